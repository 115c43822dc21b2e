/**
 * The mock service, spoken to with plain fetch (as any client would), and the
 * `abha-link mock` / `abha-link openapi` commands as a user runs them.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { linkRequestKey } from '../src/client/key.js';
import type { SchemaName } from '../src/generated/manifest.js';
import { ENDPOINT_PATHS } from '../src/spec/constants.js';
import { checkFaultRule } from '../src/mock/faults.js';
import { syntheticAccounts } from '../src/mock/accounts.js';
import { buildOpenApiDocument, parseSeed, startMockServer, type MockEvent, type MockServer, type MockServerOptions } from '../src/mock/index.js';
import { ENDPOINTS, RESOURCES, type FieldDef } from '../src/spec/definition.js';
import { validate } from '../src/validation/validate.js';
import { runInProcess } from './support/run-cli.js';

/** Counts the mock's schema validations per schema (the wrapper delegates to the real validator). */
const validations = vi.hoisted(() => new Map<string, number>());
vi.mock('../src/validation/validate.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/validation/validate.js')>();
  return {
    ...real,
    validate: (name: string, value: unknown) => {
      validations.set(name, (validations.get(name) ?? 0) + 1);
      return real.validate(name as never, value);
    },
  };
});

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli/main.js');
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-mock-'));
const KEY = 'mock-test-key-1';
const linkBody = JSON.parse(readFileSync(join(root, 'examples/lab-order.request.json'), 'utf8')) as Record<string, unknown>;

let mock: MockServer;
let clock = Date.now();
const events: MockEvent[] = [];
beforeAll(async () => {
  mock = await startMockServer({ apiKey: KEY, now: () => clock, onEvent: (e) => events.push(e) });
});
afterAll(async () => {
  await mock.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${mock.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>, headers: res.headers };
}

async function bearer(): Promise<string> {
  const r = await post(ENDPOINT_PATHS.token, { apiKey: KEY });
  return r.body.data as string;
}

describe('startMockServer: authentication', () => {
  it('issues a JWT for the API key and refuses another key with status: false and 401', async () => {
    const ok = await post(ENDPOINT_PATHS.token, { apiKey: KEY });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: true, data: expect.stringMatching(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/) as unknown });
    const claims = JSON.parse(Buffer.from((ok.body.data as string).split('.')[1] ?? '', 'base64url').toString()) as { exp: number; iat: number };
    expect(claims.exp - claims.iat).toBe(1200);
    const bad = await post(ENDPOINT_PATHS.token, { apiKey: 'another-key' });
    expect(bad).toMatchObject({ status: 401, body: { status: false, message: 'invalid API key' } });
    const missing = await post(ENDPOINT_PATHS.token, {});
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('/apiKey');
  });

  it('rejects missing, malformed, foreign, expired and session tokens with 401 and the envelope', async () => {
    const token = await bearer();
    const search = { mobile: '9000000001' };
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /Authorization header is missing/],
      [{ authorization: token }, /must be "Bearer <token>"/],
      [{ authorization: 'Bearer not-a-jwt' }, /malformed/],
      [{ authorization: `Bearer ${token.slice(0, -4)}AAAA` }, /not issued by this service/],
    ];
    for (const [headers, message] of cases) {
      const r = await post(ENDPOINT_PATHS.searchAbha, search, headers);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ success: false });
      expect(r.body.message).toMatch(message);
    }
    const saved = clock;
    clock += 1201 * 1000;
    const expired = await post(ENDPOINT_PATHS.searchAbha, search, { authorization: `Bearer ${token}` });
    clock = saved;
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/expired/);
    expect((await post(ENDPOINT_PATHS.searchAbha, search, { authorization: `Bearer ${token}` })).status).toBe(200);
  });
});

describe('startMockServer: requests', () => {
  it('answers a schema violation with 400 and a message naming the field', async () => {
    const token = await bearer();
    const r = await post(ENDPOINT_PATHS.searchAbha, { mobile: '12345' }, { authorization: `Bearer ${token}` });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, message: '/mobile mobile must be exactly 10 digits' });
    const link = await post(ENDPOINT_PATHS.linkCareContext, { ...linkBody, visitDate: '21-11-2026', extra: 1 }, { authorization: `Bearer ${token}` });
    expect(link.status).toBe(400);
    // an unknown key is named by its position (the 7th key), never echoed
    expect(link.body.message).toBe('/#6 the 7th key of the document is not in the spec; remove it or check its spelling (and 1 more issue)');
    expect((link.body.data as { errors: { path: string }[] }).errors.map((e) => e.path).sort()).toEqual(['/#6', '/visitDate']);
  });

  it('answers bodies that are not JSON, wrong content types, unknown paths and methods with the envelope', async () => {
    expect(await post(ENDPOINT_PATHS.token, '{"apiKey":')).toMatchObject({ status: 400, body: { status: false, message: 'the request body is not valid JSON' } });
    const ctype = await fetch(`${mock.url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(ctype.status).toBe(415);
    expect(await post('/api/m9/nothing', {})).toMatchObject({ status: 404, body: { success: false } });
    const get = await fetch(`${mock.url}${ENDPOINT_PATHS.linkCareContext}`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('records link requests and answers with the envelope', async () => {
    const token = await bearer();
    const before = mock.stats().linked;
    const r = await post(ENDPOINT_PATHS.linkCareContext, linkBody, { authorization: `Bearer ${token}` });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: '1 care context linked', data: { careContexts: [{ status: 'LINKED' }] } });
    expect(mock.stats().linked).toBe(before + 1);
    expect(mock.linkRequests().at(-1)?.body).toEqual(linkBody);
  });

  it('reports each request as an event without bodies or tokens', async () => {
    const token = await bearer();
    events.length = 0;
    await post(ENDPOINT_PATHS.linkCareContext, linkBody, { authorization: `Bearer ${token}`, 'x-request-id': 'req-123' });
    expect(events).toEqual([{ type: 'request', method: 'POST', endpoint: 'link-carecontext', status: 200, ms: expect.any(Number) as unknown, requestId: 'req-123' }]);
    expect(JSON.stringify(events)).not.toContain(token);
    expect(JSON.stringify(events)).not.toContain('rohit');
  });
});

describe('startMockServer: accounts and OTP flows', () => {
  it('gives every valid mobile one to three deterministic synthetic accounts, masked in search', async () => {
    const token = await bearer();
    for (const mobile of ['9000000001', '9876543210', '7012345678']) {
      const accounts = syntheticAccounts(mobile);
      expect(accounts.length).toBeGreaterThanOrEqual(1);
      expect(accounts.length).toBeLessThanOrEqual(3);
      expect(syntheticAccounts(mobile)).toEqual(accounts);
      const r = await post(ENDPOINT_PATHS.searchAbha, { mobile }, { authorization: `Bearer ${token}` });
      const item = (r.body.data as { txnId: string; ABHA: { index: number; ABHANumber: string; name: string }[] }[])[0];
      expect(item?.ABHA.map((a) => a.index)).toEqual(accounts.map((_, i) => i));
      for (const [i, a] of (item?.ABHA ?? []).entries()) {
        const full = accounts[i];
        expect(a.ABHANumber).toBe(`xx-xxxx-xxxx-${full?.ABHANumber.slice(-4) ?? ''}`);
        expect(a.name).not.toContain(full?.firstName.slice(1) ?? 'x');
        expect(a.name).toMatch(/^[A-Z]\*+ [A-Z]\*+$/);
      }
    }
  });

  it('logs the OTP through onEvent, and refuses wrong, expired and unknown-transaction OTPs with success: false', async () => {
    const token = await bearer();
    const auth = { authorization: `Bearer ${token}` };
    const txnId = ((await post(ENDPOINT_PATHS.searchAbha, { mobile: '9000000009' }, auth)).body.data as { txnId: string }[])[0]?.txnId ?? '';
    events.length = 0;
    const sent = await post(ENDPOINT_PATHS.requestOtp, { scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId }, auth);
    expect(sent.body).toMatchObject({ success: true, data: { txnId, message: 'OTP sent to the mobile number ending in 0009' } });
    const otpEvent = events.find((e) => e.type === 'otp');
    expect(otpEvent).toMatchObject({ type: 'otp', txnId, otp: expect.stringMatching(/^\d{6}$/) as unknown, mobileLast4: '0009' });
    const otp = otpEvent?.type === 'otp' ? otpEvent.otp : '';
    const wrong = await post(ENDPOINT_PATHS.verifyOtp, { scope: ['abha-login'], txnId, otp: otp === '000000' ? '000001' : '000000' }, auth);
    expect(wrong).toMatchObject({ status: 200, body: { success: false, message: 'otp is incorrect' } });
    const unknown = await post(ENDPOINT_PATHS.verifyOtp, { scope: ['abha-login'], txnId: 'nope', otp }, auth);
    expect(unknown.body).toMatchObject({ success: false, message: expect.stringMatching(/txnId is unknown/) as unknown });
    const badIndex = await post(ENDPOINT_PATHS.requestOtp, { scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '7', txnId }, auth);
    expect(badIndex.body.message).toMatch(/loginId must be the index/);
    const saved = clock;
    clock += 601 * 1000;
    const expired = await post(ENDPOINT_PATHS.verifyOtp, { scope: ['abha-login'], txnId, otp }, auth);
    clock = saved;
    expect(expired.body).toMatchObject({ success: false, message: 'otp has expired; request a new one' });
  });

  it('uses one fixed OTP with the otp option, and serves seeded accounts only with a seed', async () => {
    const seedFile = JSON.parse(readFileSync(join(root, 'test/fixtures/submit/seed.json'), 'utf8')) as unknown;
    const seed = parseSeed(seedFile);
    if (!seed.success) throw new Error('fixture seed is invalid');
    const m = await startMockServer({ apiKey: KEY, otp: '424242', seed: seed.seed });
    try {
      const tok = await fetch(`${m.url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: KEY }) });
      const auth = { 'content-type': 'application/json', authorization: `Bearer ${((await tok.json()) as { data: string }).data}` };
      const call = async (path: string, body: unknown): Promise<Record<string, unknown>> =>
        (await (await fetch(`${m.url}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
      expect(await call(ENDPOINT_PATHS.searchAbha, { mobile: '9000000001' })).toMatchObject({ success: false, message: 'no ABHA account is linked to this mobile number' });
      const found = await call(ENDPOINT_PATHS.searchAbha, { mobile: '9100000001' });
      const txnId = (found.data as { txnId: string }[])[0]?.txnId ?? '';
      expect((found.data as { ABHA: unknown[] }[])[0]?.ABHA).toHaveLength(2);
      await call(ENDPOINT_PATHS.requestOtp, { scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '1', txnId });
      const v = await call(ENDPOINT_PATHS.abhaAddressLoginVerifyOtp, { txnId, otpValue: '424242', mobile: '9100000001' });
      expect(v).toMatchObject({ success: true, data: { tokens: { expiresIn: 1800 } } });
      const session = (v.data as { tokens: { token: string } }).tokens.token;
      expect(await call(ENDPOINT_PATHS.fetchAbhaAddressProfile, { token: session })).toMatchObject({ success: true, data: { abhaAddress: 'test.two@sbx', fullName: 'Test Two Person' } });
      // A session token is not a bearer token, and the other way round.
      const asBearer = await fetch(`${m.url}${ENDPOINT_PATHS.getProfile}`, { method: 'POST', headers: { ...auth, authorization: `Bearer ${session}` }, body: JSON.stringify({ token: session }) });
      expect(asBearer.status).toBe(401);
      expect(await call(ENDPOINT_PATHS.getProfile, { token: auth.authorization.slice(7) })).toMatchObject({ success: false });
    } finally {
      await m.close();
    }
  });

  it('keeps the people of one mobile apart: each seeded account has its own ABHA number, and a session serves only its own account', async () => {
    const seed = parseSeed({
      accounts: [
        { mobile: '9100000001', abhaAddress: 'first.person@sbx', firstName: 'First' },
        { mobile: '9100000001', abhaAddress: 'second.person@sbx', firstName: 'Second' },
      ],
    });
    if (!seed.success) throw new Error('seed is invalid');
    const [first, second] = seed.seed.accounts;
    expect(first?.ABHANumber).toMatch(/^\d{2}-\d{4}-\d{4}-\d{4}$/);
    expect(first?.ABHANumber).not.toBe(second?.ABHANumber);
    const m = await startMockServer({ apiKey: KEY, otp: '424242', seed: seed.seed });
    try {
      const tok = await fetch(`${m.url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: KEY }) });
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${((await tok.json()) as { data: string }).data}` };
      const call = async (path: string, body: unknown): Promise<Record<string, unknown>> =>
        (await (await fetch(`${m.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
      const login = async (index: number): Promise<string> => {
        const txnId = ((await call(ENDPOINT_PATHS.searchAbha, { mobile: '9100000001' })).data as { txnId: string }[])[0]?.txnId ?? '';
        await call(ENDPOINT_PATHS.requestOtp, { scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: String(index), txnId });
        return ((await call(ENDPOINT_PATHS.verifyOtp, { scope: ['abha-login'], txnId, otp: '424242' })).data as { token: string }).token;
      };
      const profile = async (token: string): Promise<unknown> => ((await call(ENDPOINT_PATHS.getProfile, { token })).data as { preferredAbhaAddress: string }).preferredAbhaAddress;
      const t0 = await login(0);
      expect(await profile(t0)).toBe('first.person@sbx');
      const t1 = await login(1);
      expect(await profile(t1)).toBe('second.person@sbx');
      expect(await profile(t0)).toBe('first.person@sbx');
      // A second login of the same person does not end the first session.
      const again = await login(0);
      expect(await profile(again)).toBe('first.person@sbx');
      expect(await profile(t0)).toBe('first.person@sbx');
    } finally {
      await m.close();
    }
  });

  it('gives session tokens the spec lifetimes: 300 s for mobile login, 1800 s for enrolment', async () => {
    const token = await bearer();
    const auth = { authorization: `Bearer ${token}` };
    const start = async (): Promise<{ txnId: string; otp: string }> => {
      const txnId = ((await post(ENDPOINT_PATHS.searchAbha, { mobile: '9000000010' }, auth)).body.data as { txnId: string }[])[0]?.txnId ?? '';
      events.length = 0;
      await post(ENDPOINT_PATHS.requestOtp, { scope: ['abha-enrol'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId }, auth);
      const e = events.find((x) => x.type === 'otp');
      return { txnId, otp: e?.type === 'otp' ? e.otp : '' };
    };
    let s = await start();
    const mobileLogin = await post(ENDPOINT_PATHS.mobileLoginVerifyOtp, { txnId: s.txnId, otp: s.otp }, auth);
    expect(mobileLogin.body).toMatchObject({ success: true, data: { expiresIn: 300 } });
    const session = (mobileLogin.body.data as { token: string }).token;
    const claims = JSON.parse(Buffer.from(session.split('.')[1] ?? '', 'base64url').toString()) as { exp: number; iat: number };
    expect(claims.exp - claims.iat).toBe(300);
    s = await start();
    const enrol = await post(ENDPOINT_PATHS.enrollVerifyOtp, { txnId: s.txnId, otpValue: s.otp, mobile: '9000000010' }, auth);
    expect(enrol.body).toMatchObject({ success: true, data: { isNew: false, tokens: { expiresIn: 1800, refreshExpiresIn: 1296000 } } });
    const wrongMobile = await start();
    const mismatch = await post(ENDPOINT_PATHS.enrollVerifyOtp, { txnId: wrongMobile.txnId, otpValue: wrongMobile.otp, mobile: '9000000011' }, auth);
    expect(mismatch.body).toMatchObject({ success: false, message: 'mobile does not match the transaction' });
  });
});

describe('parseSeed', () => {
  it('names the field of every problem and never quotes values', () => {
    const r = parseSeed({
      accounts: [
        { mobile: '98765', abhaAddress: 'secret.person@sbx' },
        { mobile: '9100000009', abhaAddress: 'secret.person@sbx', firstName: 'X', colour: 'red' },
      ],
    });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.issues.map((i) => `${i.path} ${i.code}`)).toEqual([
      '/accounts/0/mobile invalid',
      '/accounts/0/firstName required',
      '/accounts/1/colour unknown-field',
      '/accounts/1/abhaAddress duplicate',
    ]);
    expect(JSON.stringify(r.issues)).not.toContain('secret.person');
    expect(JSON.stringify(r.issues)).not.toContain('98765');
  });

  it('refuses two accounts with the same ABHA number, given or derived', () => {
    const given = parseSeed({
      accounts: [
        { mobile: '9100000001', abhaAddress: 'a.person@sbx', firstName: 'A', ABHANumber: '91-1111-2222-3333' },
        { mobile: '9100000002', abhaAddress: 'b.person@sbx', firstName: 'B', ABHANumber: '91-1111-2222-3333' },
      ],
    });
    expect(given.success).toBe(false);
    if (given.success) return;
    expect(given.issues.map((i) => `${i.path} ${i.code}`)).toEqual(['/accounts/1/ABHANumber duplicate']);
    expect(JSON.stringify(given.issues)).not.toContain('1111');
    const derived = parseSeed({ accounts: [{ mobile: '9100000001', abhaAddress: 'a.person@sbx', firstName: 'A' }] });
    if (!derived.success) throw new Error('seed is invalid');
    const clash = parseSeed({
      accounts: [
        { mobile: '9100000001', abhaAddress: 'a.person@sbx', firstName: 'A' },
        { mobile: '9100000003', abhaAddress: 'c.person@sbx', firstName: 'C', ABHANumber: derived.seed.accounts[0]?.ABHANumber },
      ],
    });
    expect(clash.success === false && clash.issues.map((i) => `${i.path} ${i.code}`)).toEqual(['/accounts/1/ABHANumber duplicate']);
  });
});

describe('fault injection', () => {
  it('adds latency, and answers 429 with Retry-After', async () => {
    const token = await bearer();
    const auth = { authorization: `Bearer ${token}` };
    mock.faults.add({ endpoint: 'search-abha', fault: { type: 'latency', ms: 250 } });
    const t0 = performance.now();
    expect((await post(ENDPOINT_PATHS.searchAbha, { mobile: '9000000001' }, auth)).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(240);
    mock.faults.add({ endpoint: 'search-abha', fault: { type: 'status', status: 429, retryAfter: 3 } });
    const limited = await post(ENDPOINT_PATHS.searchAbha, { mobile: '9000000001' }, auth);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect((await post(ENDPOINT_PATHS.searchAbha, { mobile: '9000000001' }, auth)).status).toBe(200);
  });

  it('checks fault rules: types of retryAfter and message, known endpoints, no header injection', async () => {
    const bad: [unknown, RegExp][] = [
      [{ fault: { type: 'status', status: 429, retryAfter: {} } }, /\/fault\/retryAfter/],
      [{ fault: { type: 'status', status: 429, retryAfter: -1 } }, /\/fault\/retryAfter/],
      [{ fault: { type: 'status', status: 503, retryAfter: '1\r\nx-injected: 1' } }, /\/fault\/retryAfter/],
      [{ fault: { type: 'status', status: 400, message: 42 } }, /\/fault\/message/],
      [{ fault: { type: 'envelope-failure', message: 'x'.repeat(5000) } }, /\/fault\/message/],
      [{ fault: { type: 'drop', when: 'sometimes' } }, /\/fault\/when/],
      [{ endpoint: 'link-care-context', fault: { type: 'hang' } }, /\/endpoint must be any or an endpoint id/],
      [{ skip: 1.5, fault: { type: 'hang' } }, /\/skip/],
    ];
    for (const [rule, message] of bad) {
      const r = await fetch(`${mock.url}/__mock/faults`, { method: 'POST', body: JSON.stringify(rule) });
      expect(r.status, JSON.stringify(rule)).toBe(400);
      expect(((await r.json()) as { message: string }).message).toMatch(message);
      expect(checkFaultRule(rule).ok).toBe(false);
    }
    expect(() => mock.faults.add({ fault: { type: 'status', status: 429, retryAfter: {} as unknown as number } })).toThrow(TypeError);
    for (const retryAfter of [2, '2', 'Wed, 21 Oct 2026 07:28:00 GMT']) expect(checkFaultRule({ fault: { type: 'status', status: 503, retryAfter } }).ok).toBe(true);
    expect(mock.faults.size).toBe(0);
  });

  it('drops connections before or after processing, and counts what was received and linked', async () => {
    const token = await bearer();
    const auth = { authorization: `Bearer ${token}` };
    const body = { ...linkBody, visitId: 'FAULT-DROP-1' };
    const { linkRequestKey } = await import('../src/client/key.js');
    const key = linkRequestKey(body as never);
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'drop' } });
    await expect(post(ENDPOINT_PATHS.linkCareContext, body, auth)).rejects.toThrow();
    expect(mock.linkCount(key)).toEqual({ received: 1, linked: 0 });
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'drop', when: 'after' } });
    await expect(post(ENDPOINT_PATHS.linkCareContext, body, auth)).rejects.toThrow();
    expect(mock.linkCount(key)).toEqual({ received: 2, linked: 1 });
  });

  it('skips the first matching requests, then hangs the rest until close; the control endpoints work over HTTP', async () => {
    // The mock reports a request it holds: the test waits for that, not for a while.
    let held: () => void = () => undefined;
    const heldAtMock = new Promise<'still waiting'>((resolve) => (held = () => resolve('still waiting')));
    const m = await startMockServer({ apiKey: KEY, onEvent: (e) => e.type === 'request' && e.status === 'hung' && held() });
    const tok = (await (await fetch(`${m.url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: KEY }) })).json()) as {
      data: string;
    };
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${tok.data}` };
    const add = await fetch(`${m.url}/__mock/faults`, { method: 'POST', body: JSON.stringify({ endpoint: 'search-abha', skip: 1, times: null, fault: { type: 'hang' } }) });
    expect(((await add.json()) as { data: unknown }).data).toEqual({ active: 1 });
    const bad = await fetch(`${m.url}/__mock/faults`, { method: 'POST', body: JSON.stringify({ fault: { type: 'explode' } }) });
    expect(bad.status).toBe(400);
    expect((await fetch(`${m.url}${ENDPOINT_PATHS.searchAbha}`, { method: 'POST', headers, body: '{"mobile":"9000000001"}' })).status).toBe(200);
    const hung = fetch(`${m.url}${ENDPOINT_PATHS.searchAbha}`, { method: 'POST', headers, body: '{"mobile":"9000000001"}' });
    const settled = await Promise.race([
      hung.then(
        () => 'answered',
        () => 'failed',
      ),
      heldAtMock,
    ]);
    expect(settled).toBe('still waiting');
    const stats = (await (await fetch(`${m.url}/__mock/stats`)).json()) as { data: { requests: Record<string, number> } };
    expect(stats.data.requests['search-abha']).toBe(2);
    await m.close();
    expect(
      await hung.then(
        () => 'answered',
        () => 'failed',
      ),
    ).toBe('failed');
  });
});

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument();

  it('has the 12 endpoints of the spec, bearer auth on all but the token endpoint', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(Object.values(ENDPOINT_PATHS).sort());
    for (const [path, item] of Object.entries(doc.paths)) {
      const op = item.post as { security: unknown[]; requestBody: unknown; responses: Record<string, unknown> };
      expect(op.security).toEqual(path === ENDPOINT_PATHS.token ? [] : [{ bearerAuth: [] }]);
      expect(Object.keys(op.responses)).toEqual(['200', '400', '401', '429', '503']);
    }
  });

  it('resolves every $ref, and its schemas validate like the shipped ones', () => {
    const text = JSON.stringify(doc);
    for (const m of text.matchAll(/"\$ref":"#\/components\/(schemas|responses)\/([^"]+)"/g)) {
      const group = doc.components[m[1] as 'schemas' | 'responses'];
      expect(Object.keys(group), m[0]).toContain(m[2]);
    }
    expect(text).not.toMatch(/\.schema\.json"/);
    const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', components: doc.components } as object);
    const check = ajv.getSchema('openapi#/components/schemas/link-carecontext-request');
    expect(check?.(linkBody)).toBe(true);
    expect(check?.({ ...linkBody, visitDate: '2026-02-30' })).toBe(false);
    const search = ajv.getSchema('openapi#/components/schemas/search-abha-request');
    expect(search?.({ mobile: '9000000001' })).toBe(true);
    expect(search?.({ mobile: '900' })).toBe(false);
  });

  it('is served by the mock at GET /openapi.json with the mock as server', async () => {
    const served = (await (await fetch(`${mock.url}/openapi.json`)).json()) as { servers: { url: string }[]; paths: unknown };
    expect(served.servers[0]?.url).toBe(mock.url);
    expect(served.paths).toEqual(JSON.parse(JSON.stringify(doc.paths)));
  });
});

describe('abha-link openapi', () => {
  it('prints the same document', async () => {
    const r = await runInProcess(['openapi']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });
});

describe('abha-link mock', () => {
  const children: ChildProcessWithoutNullStreams[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });

  function start(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcessWithoutNullStreams; lines: string[]; stderr: () => string }> {
    const child = spawn(process.execPath, [cli, 'mock', ...args], { cwd: root, env: { ...process.env, ABHA_LINK_API_KEY: '', ...env } });
    children.push(child);
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mock did not start: ${err}`)), 15_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const lines = out.split('\n');
        if (lines.length >= 4) {
          clearTimeout(timer);
          resolve({ child, lines, stderr: () => err });
        }
      });
      child.on('exit', () => reject(new Error(`mock exited: ${err}`)));
    });
  }

  it('prints "listening on http://127.0.0.1:PORT" first, a development key, logs requests and OTPs, and stops on SIGTERM', async () => {
    const { child, lines, stderr } = await start(['--port', '0', '--otp', '135790']);
    expect(lines[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = (lines[0] ?? '').replace('listening on ', '');
    const key = /^export ABHA_LINK_API_KEY=(\S+)$/.exec(lines[1] ?? '')?.[1] ?? '';
    expect(key).toMatch(/^dev-/);
    const tok = (await (await fetch(`${url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: key }) })).json()) as {
      data: string;
    };
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${tok.data}` };
    const s = (await (await fetch(`${url}${ENDPOINT_PATHS.searchAbha}`, { method: 'POST', headers, body: '{"mobile":"9000000001"}' })).json()) as { data: { txnId: string }[] };
    const txnId = s.data[0]?.txnId ?? '';
    await fetch(`${url}${ENDPOINT_PATHS.requestOtp}`, { method: 'POST', headers, body: JSON.stringify({ scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId }) });
    const v = (await (await fetch(`${url}${ENDPOINT_PATHS.verifyOtp}`, { method: 'POST', headers, body: JSON.stringify({ scope: ['abha-login'], txnId, otp: '135790' }) })).json()) as {
      success: boolean;
    };
    expect(v.success).toBe(true);
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    const log = stderr();
    expect(log).toMatch(/^POST token 200 [\d.]+ ms$/m);
    expect(log).toContain(`otp 135790 for txn ${txnId} (mobile ending 0001)`);
    // Request lines carry no token and no mobile.
    expect(log).not.toContain(tok.data);
    expect(log).not.toContain('9000000001');
  });

  it('uses ABHA_LINK_API_KEY when set and does not print it', async () => {
    const { child, lines } = await start(['--port', '0'], { ABHA_LINK_API_KEY: 'env-planted-key-77' });
    expect(lines[1]).toBe('# API key: the value of ABHA_LINK_API_KEY in your environment');
    const url = (lines[0] ?? '').replace('listening on ', '');
    const r = await fetch(`${url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: 'env-planted-key-77' }) });
    expect(r.status).toBe(200);
    expect(lines.join('\n')).not.toContain('env-planted-key-77');
    child.kill('SIGTERM');
  });

  it('prints the key and the URL as export lines that a shell can run as pasted', async () => {
    const { child, lines } = await start(['--port', '0']);
    const url = (lines[0] ?? '').replace('listening on ', '');
    expect(lines[2]).toBe(`export ABHA_LINK_BASE_URL=${url}`);
    const sh = spawnSync('sh', ['-c', `${lines[1] ?? ''}\n${lines[2] ?? ''}\nprintf '%s %s' "$ABHA_LINK_API_KEY" "$ABHA_LINK_BASE_URL"`], { encoding: 'utf8', env: {} });
    expect(sh.status).toBe(0);
    const [key, base] = sh.stdout.split(' ');
    expect(base).toBe(url);
    const r = await fetch(`${base ?? ''}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: key }) });
    expect(r.status).toBe(200);
    child.kill('SIGTERM');
  });

  it('answers a repeated link request "already linked" with --already-linked, and logs endpoint ids', async () => {
    const { child, lines, stderr } = await start(['--port', '0', '--already-linked'], { ABHA_LINK_API_KEY: 'cli-repeat-key' });
    const url = (lines[0] ?? '').replace('listening on ', '');
    const tok = (await (
      await fetch(`${url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: 'cli-repeat-key' }) })
    ).json()) as { data: string };
    const send = async (): Promise<Record<string, unknown>> =>
      (await (
        await fetch(`${url}${ENDPOINT_PATHS.linkCareContext}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${tok.data}` }, body: JSON.stringify(linkBody) })
      ).json()) as Record<string, unknown>;
    expect(await send()).toMatchObject({ success: true });
    expect(await send()).toMatchObject({ success: false, data: { code: 'ALREADY_LINKED' } });
    await fetch(`${url}/api/m1/abha/asha.verma@sbx`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(stderr()).toMatch(/^POST link-carecontext 200 [\d.]+ ms$/m);
    expect(stderr()).toMatch(/^POST unknown 404 [\d.]+ ms$/m);
    expect(stderr()).not.toContain('asha');
  });

  it('refuses bad options and seed files with exit 2 and the field, without a stack trace', async () => {
    const badSeed = join(tmp, 'bad-seed.json');
    writeFileSync(badSeed, JSON.stringify({ accounts: [{ mobile: '12', abhaAddress: 'x@sbx', firstName: 'A' }] }));
    const cases: [string[], RegExp][] = [
      [['--otp', '12ab'], /--otp must be exactly 6 digits/],
      [['--port', '70000'], /--port must be a number from 0 to 65535/],
      [['--seed', join(tmp, 'missing.json')], /missing\.json: no such file/],
      [['--seed', tmp], /: is a directory, not a file/],
      [['--seed', badSeed], /\/accounts\/0\/mobile mobile must be exactly 10 digits \(invalid\)/],
    ];
    for (const [args, message] of cases) {
      const r = await runInProcess(['mock', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    }
  });
});

// ---------------------------------------------------------------------------
// The mock answers like the service the spec describes (issue 9, item 12)
// ---------------------------------------------------------------------------

/** Where `value` lacks a field of `def` (a field of the spec definition), or has one of another type. */
function missingFields(def: FieldDef, value: unknown, at: string, out: string[]): void {
  const object = (properties: Readonly<Record<string, FieldDef>>): void => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      out.push(`${at || '/'} is not an object`);
      return;
    }
    for (const [k, d] of Object.entries(properties)) {
      if (!Object.hasOwn(value, k)) out.push(`${at}/${k} is missing`);
      else missingFields(d, (value as Record<string, unknown>)[k], `${at}/${k}`, out);
    }
  };
  switch (def.type) {
    case 'ref': {
      const resource = RESOURCES.find((r) => r.name === def.ref);
      if (resource === undefined) throw new Error(`no resource ${def.ref}`);
      object(resource.properties);
      return;
    }
    case 'object':
      object(def.object.properties);
      return;
    case 'array':
      if (!Array.isArray(value)) out.push(`${at} is not an array`);
      else if (value.length === 0) out.push(`${at} is empty: its items' fields cannot be checked`);
      else value.forEach((v, i) => missingFields(def.items, v, `${at}/${i}`, out));
      return;
    case 'string':
      if (typeof value !== 'string') out.push(`${at} is not a string`);
      return;
    case 'integer':
      if (!Number.isInteger(value)) out.push(`${at} is not an integer`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') out.push(`${at} is not a boolean`);
      return;
    default:
      if (value === undefined) out.push(`${at} is missing`);
  }
}

/** The documented answer of an endpoint: its envelope (spec §2) with `data` as its section of §4 shows it. */
function documentedAnswer(id: string): FieldDef {
  const ep = ENDPOINTS.find((e) => e.id === id);
  if (ep === undefined) throw new Error(`no endpoint ${id}`);
  const envelope = RESOURCES.find((r) => r.name === (ep.response.envelope === 'token' ? 'token-envelope' : 'response-envelope'));
  if (envelope === undefined) throw new Error('no envelope');
  return { type: 'object', object: { ...envelope, properties: { ...envelope.properties, data: ep.response.data } } };
}

/** A successful answer of every endpoint, from a full run of the flows of spec §1 against `options`. */
async function answersOfEveryEndpoint(options: MockServerOptions, mobile: string): Promise<Map<string, unknown>> {
  const m = await startMockServer({ apiKey: KEY, otp: '246810', ...options });
  const answers = new Map<string, unknown>();
  try {
    const call = async (id: string, body: unknown, token?: string): Promise<Record<string, unknown>> => {
      const ep = ENDPOINTS.find((e) => e.id === id);
      const r = await fetch(`${m.url}${ep?.path ?? ''}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(body),
      });
      const json = (await r.json()) as Record<string, unknown>;
      if (r.status !== 200 || (json.success ?? json.status) !== true) throw new Error(`${id} failed: ${r.status} ${String(json.message)}`);
      answers.set(id, json);
      return json;
    };
    const bearerToken = (await call('token', { apiKey: KEY })).data as string;
    const otpFor = async (): Promise<string> => {
      const txnId = ((await call('search-abha', { mobile }, bearerToken)).data as { txnId: string }[])[0]?.txnId ?? '';
      await call('request-otp', { scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId }, bearerToken);
      return txnId;
    };
    const session = ((await call('verify-otp', { scope: ['abha-login'], txnId: await otpFor(), otp: '246810' }, bearerToken)).data as { token: string }).token;
    await call('mobile-login-verify-otp', { txnId: await otpFor(), otp: '246810' }, bearerToken);
    await call('mobile-login-abha-number-verify-otp', { txnId: await otpFor(), otp: '246810' }, bearerToken);
    await call('aadhar-number-login-verify-otp', { txnId: await otpFor(), otpValue: '246810', mobile }, bearerToken);
    await call('abha-address-login-verify-otp', { txnId: await otpFor(), otpValue: '246810', mobile }, bearerToken);
    await call('enroll-verify-otp', { txnId: await otpFor(), otpValue: '246810', mobile }, bearerToken);
    await call('fetch-abha-address-profile', { token: session }, bearerToken);
    await call('get-profile', { token: session }, bearerToken);
    await call('link-carecontext', linkBody, bearerToken);
  } finally {
    await m.close();
  }
  return answers;
}

describe('the mock answers like the service the spec describes', () => {
  it('answers every endpoint with every field its section of the spec documents, with synthetic accounts and with a minimal seed', async () => {
    const minimal = parseSeed({ accounts: [{ mobile: '9100000042', abhaAddress: 'only.required@sbx', firstName: 'Only' }] });
    if (!minimal.success) throw new Error('seed is invalid');
    const runs: [string, Map<string, unknown>][] = [
      ['synthetic', await answersOfEveryEndpoint({}, '9000000001')],
      ['minimal seed', await answersOfEveryEndpoint({ seed: minimal.seed }, '9100000042')],
    ];
    for (const [label, answers] of runs) {
      expect([...answers.keys()].sort(), label).toEqual(ENDPOINTS.map((e) => e.id).sort());
      for (const [id, answer] of answers) {
        const missing: string[] = [];
        missingFields(documentedAnswer(id), answer, '', missing);
        expect(missing, `${label}: ${id}`).toEqual([]);
        expect(validate(`${id}-response` as SchemaName, answer).success, `${label}: ${id} matches its response schema`).toBe(true);
      }
    }
    // The fields the first users missed, named.
    const profile = (runs[0]?.[1].get('get-profile') as { data: Record<string, unknown> }).data;
    expect(profile).toMatchObject({ verificationStatus: 'VERIFIED', kycVerified: true, authMethods: ['MOBILE_OTP'] });
    expect(profile.stateCode).toMatch(/^\d{2}$/);
    expect(profile.pincode).toMatch(/^\d{6}$/);
    expect(profile.districtCode).toMatch(/^\d+$/);
    expect(profile.address).toMatch(/\w/);
  });

  it('answers failures of every endpoint with every field of its envelope', async () => {
    const token = await bearer();
    for (const ep of ENDPOINTS) {
      const r = await post(ep.path, { unexpected: 1 }, ep.auth === 'bearer' ? { authorization: `Bearer ${token}` } : {});
      expect(r.status, ep.id).toBe(400);
      expect(Object.keys(r.body).sort(), ep.id).toEqual(ep.response.envelope === 'token' ? ['data', 'message', 'status'] : ['data', 'message', 'success']);
    }
  });

  it('answers a repeated link request "already linked" with linkRepeats: already-linked, and links it again by default', async () => {
    const m = await startMockServer({ apiKey: KEY, linkRepeats: 'already-linked' });
    try {
      const tok = (await (await fetch(`${m.url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: KEY }) })).json()) as {
        data: string;
      };
      const send = async (body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
        const r = await fetch(`${m.url}${ENDPOINT_PATHS.linkCareContext}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tok.data}` },
          body: JSON.stringify(body),
        });
        return { status: r.status, body: (await r.json()) as Record<string, unknown> };
      };
      const key = linkRequestKey(linkBody as never);
      const refs = (linkBody.careContexts as { referenceNumber: string }[]).map((c) => c.referenceNumber);
      expect((await send(linkBody)).body).toMatchObject({ success: true, data: { careContexts: refs.map((referenceNumber) => ({ referenceNumber, status: 'LINKED' })) } });
      const again = await send(linkBody);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({
        success: false,
        message: '1 care context already linked: the same ABHA address, hipId, visitId and referenceNumbers were linked before',
        data: { code: 'ALREADY_LINKED', careContexts: refs.map((referenceNumber) => ({ referenceNumber, status: 'ALREADY_LINKED' })) },
      });
      expect(JSON.stringify(again.body)).not.toContain(linkBody.abhaAddress as string);
      expect(m.linkCount(key)).toEqual({ received: 2, linked: 1 });
      expect(m.stats()).toMatchObject({ linkReceived: 2, linked: 1, alreadyLinked: 1 });
      // Another visit of the same patient is not a repeat.
      expect((await send({ ...linkBody, visitId: 'ANOTHER-VISIT' })).body).toMatchObject({ success: true });
    } finally {
      await m.close();
    }
    await expect(startMockServer({ linkRepeats: 'sometimes' as never })).rejects.toThrow(/linkRepeats must be link-again or already-linked/);
    // The default: every repeat is linked again (and counted), as a service without duplicate detection would.
    const token = await bearer();
    const body = { ...linkBody, visitId: 'REPEAT-DEFAULT-1' };
    for (let i = 0; i < 2; i++) expect((await post(ENDPOINT_PATHS.linkCareContext, body, { authorization: `Bearer ${token}` })).body).toMatchObject({ success: true });
    expect(mock.linkCount(linkRequestKey(body as never))).toEqual({ received: 2, linked: 2 });
  });
});

// ---------------------------------------------------------------------------
// Hardening (issue 10, item 12: the mock)
// ---------------------------------------------------------------------------

/** Opens a raw connection to the mock; resolves with everything it answered once it closes the connection. */
function rawConnection(url: string): { write: (text: string) => boolean; closed: Promise<string>; isClosed: () => boolean; socket: ReturnType<typeof connect> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  let closed = false;
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  socket.on('error', () => undefined);
  const done = new Promise<string>((resolve) =>
    socket.on('close', () => {
      closed = true;
      resolve(received);
    }),
  );
  return { write: (text) => !closed && socket.write(text), closed: done, isClosed: () => closed, socket };
}

describe('the mock under attack', () => {
  it('caps fault rules at 100: more gets 400 over HTTP (nothing added) and a RangeError from add', async () => {
    const m = await startMockServer({ apiKey: KEY });
    try {
      const rule = { endpoint: 'search-abha', times: null, fault: { type: 'latency', ms: 1 } };
      const tooMany = await fetch(`${m.url}/__mock/faults`, { method: 'POST', body: JSON.stringify(Array.from({ length: 101 }, () => rule)) });
      expect(tooMany.status).toBe(400);
      expect(((await tooMany.json()) as { message: string }).message).toBe('at most 100 fault rules can be active (this would make 101); DELETE /__mock/faults removes them');
      expect(m.faults.size).toBe(0);
      const full = await fetch(`${m.url}/__mock/faults`, { method: 'POST', body: JSON.stringify(Array.from({ length: 100 }, () => rule)) });
      expect(((await full.json()) as { data: unknown }).data).toEqual({ active: 100 });
      const oneMore = await fetch(`${m.url}/__mock/faults`, { method: 'POST', body: JSON.stringify(rule) });
      expect(oneMore.status).toBe(400);
      expect(() => m.faults.add({ fault: { type: 'hang' } })).toThrow(RangeError);
      expect(m.faults.size).toBe(100);
      await fetch(`${m.url}/__mock/faults`, { method: 'DELETE' });
      expect((await fetch(`${m.url}/__mock/faults`, { method: 'POST', body: JSON.stringify(rule) })).status).toBe(200);
    } finally {
      await m.close();
    }
  });

  it('reports requests by endpoint id, never by the raw path, in events and in its answers', async () => {
    const token = await bearer();
    events.length = 0;
    const planted = ['/api/m1/abha/asha.verma@sbx-has-HIV', '/__mock/9876543210', '/api/m1/abha/token/9876543210'];
    for (const path of planted) {
      const r = await post(path, {});
      expect(r.status).toBe(404);
      expect(JSON.stringify(r.body)).not.toMatch(/asha|9876543210/);
    }
    await post(ENDPOINT_PATHS.linkCareContext, linkBody, { authorization: `Bearer ${token}` });
    expect(events.map((e) => (e.type === 'request' ? `${e.endpoint} ${e.status}` : e.type))).toEqual(['unknown 404', 'mock-control 404', 'unknown 404', 'link-carecontext 200']);
    expect(JSON.stringify(events)).not.toMatch(/asha|9876543210|\/api\//);
  });

  it('accepts application/json with parameters and refuses every other media type with 415', async () => {
    const send = (ctype: string): Promise<Response> => fetch(`${mock.url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': ctype }, body: JSON.stringify({ apiKey: KEY }) });
    for (const ok of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"', 'application/json ; charset=utf-8']) {
      expect((await send(ok)).status, ok).toBe(200);
    }
    for (const bad of [
      'application/jsonx',
      'application/json-patch+json',
      'application/json/x',
      'application/json, text/plain',
      'text/json',
      'application/json; charset=latin1',
      'application/json; charset',
      'application/',
    ]) {
      const r = await send(bad);
      expect(r.status, bad).toBe(415);
      expect(((await r.json()) as { message: string }).message, bad).toMatch(/^Content-Type must be application\/json/);
    }
  });

  it('counts a link request as received only after its bearer token is accepted', async () => {
    const body = { ...linkBody, visitId: 'UNAUTHENTICATED-1' };
    const key = linkRequestKey(body as never);
    const before = mock.stats().linkReceived;
    for (const headers of [{}, { authorization: 'Bearer not-a-jwt' }]) expect((await post(ENDPOINT_PATHS.linkCareContext, body, headers)).status).toBe(401);
    expect(mock.linkCount(key)).toEqual({ received: 0, linked: 0 });
    expect(mock.stats().linkReceived).toBe(before);
    expect((await post(ENDPOINT_PATHS.linkCareContext, body, { authorization: `Bearer ${await bearer()}` })).status).toBe(200);
    expect(mock.linkCount(key)).toEqual({ received: 1, linked: 1 });
  });

  it('validates each request body once', async () => {
    const token = await bearer();
    validations.clear();
    expect((await post(ENDPOINT_PATHS.linkCareContext, { ...linkBody, visitId: 'VALIDATE-ONCE-1' }, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect(Object.fromEntries(validations)).toEqual({ 'link-carecontext-request': 1 });
    validations.clear();
    expect((await post(ENDPOINT_PATHS.searchAbha, { mobile: '9000000001' }, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect(Object.fromEntries(validations)).toEqual({ 'search-abha-request': 1 });
  });

  it('closes a connection that sends its headers slowly (slow loris) with 408', async () => {
    const m = await startMockServer({ apiKey: KEY, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    try {
      const c = rawConnection(m.url);
      c.write(`POST ${ENDPOINT_PATHS.token} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
      let sent = 0;
      const drip = setInterval(() => {
        if (c.write(`x-slow-${sent++}: 1\r\n`) === false && c.isClosed()) clearInterval(drip);
      }, 25);
      const answer = await c.closed;
      clearInterval(drip);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      // Closed by the header time-out, long before the 16 KB header limit would have stopped it.
      expect(sent).toBeLessThan(400);
    } finally {
      await m.close();
    }
  });

  it('closes a connection that sends its body slowly, and one that sends nothing', async () => {
    const m = await startMockServer({ apiKey: KEY, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    try {
      const slowBody = rawConnection(m.url);
      slowBody.write(`POST ${ENDPOINT_PATHS.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`);
      const drip = setInterval(() => slowBody.write(' '), 25);
      const idle = rawConnection(m.url);
      const answer = await slowBody.closed;
      clearInterval(drip);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      await idle.closed;
      expect(idle.isClosed()).toBe(true);
    } finally {
      await m.close();
    }
  });

  it('answers 413 to a body over the limit without reading it to the end, and closes the connection', async () => {
    const m = await startMockServer({ apiKey: KEY, maxBodyBytes: 1000 });
    try {
      // Declared too large: refused before a byte of the body is sent.
      const declared = rawConnection(m.url);
      declared.write(`POST ${ENDPOINT_PATHS.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 300000000\r\n\r\n`);
      expect(await declared.closed).toMatch(/^HTTP\/1\.1 413 [\s\S]*"message":"the request body is larger than 1000 bytes"/);
      // Chunked without end: refused once past the limit, while the sender is still sending.
      const chunked = rawConnection(m.url);
      chunked.write(`POST ${ENDPOINT_PATHS.linkCareContext} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
      let sent = 0;
      const chunk = `400\r\n${' '.repeat(1024)}\r\n`;
      while (!chunked.isClosed() && sent < 50_000_000) {
        if (!chunked.write(chunk)) await new Promise((r) => chunked.socket.once('drain', r).once('close', r));
        sent += 1024;
      }
      expect(await chunked.closed).toMatch(/^HTTP\/1\.1 413 /);
      expect(sent).toBeLessThan(50_000_000);
    } finally {
      await m.close();
    }
  });
});
