/**
 * The mock service, spoken to with plain fetch (as any client would), and the
 * `abha-link mock` / `abha-link openapi` commands as a user runs them.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_PATHS } from '../src/index.js';
import { buildOpenApiDocument, checkFaultRule, parseSeed, startMockServer, syntheticAccounts, type MockEvent, type MockServer } from '../src/mock/index.js';

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
    expect(r.body).toMatchObject({ success: false, message: '/mobile: mobile must be exactly 10 digits' });
    const link = await post(ENDPOINT_PATHS.linkCareContext, { ...linkBody, visitDate: '21-11-2026', extra: 1 }, { authorization: `Bearer ${token}` });
    expect(link.status).toBe(400);
    // an unknown key is named by its position (the 7th key), never echoed
    expect(link.body.message).toBe('/#6: the 7th key of the document is not in the spec; remove it or check its spelling (and 1 more)');
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
    expect(events).toEqual([{ type: 'request', method: 'POST', path: ENDPOINT_PATHS.linkCareContext, status: 200, ms: expect.any(Number) as unknown, requestId: 'req-123' }]);
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
    const r = parseSeed({ accounts: [{ mobile: '98765', abhaAddress: 'secret.person@sbx' }, { mobile: '9100000009', abhaAddress: 'secret.person@sbx', firstName: 'X', colour: 'red' }] });
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
    const m = await startMockServer({ apiKey: KEY });
    const tok = (await (await fetch(`${m.url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: KEY }) })).json()) as { data: string };
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${tok.data}` };
    const add = await fetch(`${m.url}/__mock/faults`, { method: 'POST', body: JSON.stringify({ endpoint: 'search-abha', skip: 1, times: null, fault: { type: 'hang' } }) });
    expect(((await add.json()) as { data: unknown }).data).toEqual({ active: 1 });
    const bad = await fetch(`${m.url}/__mock/faults`, { method: 'POST', body: JSON.stringify({ fault: { type: 'explode' } }) });
    expect(bad.status).toBe(400);
    expect((await fetch(`${m.url}${ENDPOINT_PATHS.searchAbha}`, { method: 'POST', headers, body: '{"mobile":"9000000001"}' })).status).toBe(200);
    const hung = fetch(`${m.url}${ENDPOINT_PATHS.searchAbha}`, { method: 'POST', headers, body: '{"mobile":"9000000001"}' });
    const settled = await Promise.race([hung.then(() => 'answered', () => 'failed'), new Promise((r) => setTimeout(() => r('still waiting'), 300))]);
    expect(settled).toBe('still waiting');
    const stats = (await (await fetch(`${m.url}/__mock/stats`)).json()) as { data: { requests: Record<string, number> } };
    expect(stats.data.requests['search-abha']).toBe(2);
    await m.close();
    expect(await hung.then(() => 'answered', () => 'failed')).toBe('failed');
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
  it('prints the same document', () => {
    const r = spawnSync(process.execPath, [cli, 'openapi'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(0);
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
        if (lines.length >= 3) {
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
    const key = /^development API key: (\S+) /.exec(lines[1] ?? '')?.[1] ?? '';
    expect(key).toMatch(/^dev-/);
    const tok = (await (await fetch(`${url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: key }) })).json()) as { data: string };
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${tok.data}` };
    const s = (await (await fetch(`${url}${ENDPOINT_PATHS.searchAbha}`, { method: 'POST', headers, body: '{"mobile":"9000000001"}' })).json()) as { data: { txnId: string }[] };
    const txnId = s.data[0]?.txnId ?? '';
    await fetch(`${url}${ENDPOINT_PATHS.requestOtp}`, { method: 'POST', headers, body: JSON.stringify({ scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId }) });
    const v = (await (await fetch(`${url}${ENDPOINT_PATHS.verifyOtp}`, { method: 'POST', headers, body: JSON.stringify({ scope: ['abha-login'], txnId, otp: '135790' }) })).json()) as { success: boolean };
    expect(v.success).toBe(true);
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    const log = stderr();
    expect(log).toMatch(/^POST \/api\/m1\/abha\/token 200 [\d.]+ ms$/m);
    expect(log).toContain(`otp 135790 for txn ${txnId} (mobile ending 0001)`);
    // Request lines carry no token and no mobile.
    expect(log).not.toContain(tok.data);
    expect(log).not.toContain('9000000001');
  });

  it('uses ABHA_LINK_API_KEY when set and does not print it', async () => {
    const { child, lines } = await start(['--port', '0'], { ABHA_LINK_API_KEY: 'env-planted-key-77' });
    expect(lines[1]).toBe('API key: the value of ABHA_LINK_API_KEY');
    const url = (lines[0] ?? '').replace('listening on ', '');
    const r = await fetch(`${url}${ENDPOINT_PATHS.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: 'env-planted-key-77' }) });
    expect(r.status).toBe(200);
    expect(lines.join('\n')).not.toContain('env-planted-key-77');
    child.kill('SIGTERM');
  });

  it('refuses bad options and seed files with exit 2 and the field, without a stack trace', () => {
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
      const r = spawnSync(process.execPath, [cli, 'mock', ...args], { cwd: root, encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    }
  });
});
