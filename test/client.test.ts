/**
 * The client against the real mock on 127.0.0.1 (port 0), with injected
 * faults. Each test counts what reached the mock.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../src/index.js';
import {
  AbortedError,
  AuthenticationError,
  EnvelopeError,
  InvalidResponseError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  RejectedError,
  ServerError,
  TransportError,
  asSessionToken,
  createClient,
  isOutcomeUnknownError,
  linkRequestKey,
  type ClientOptions,
  type FetchLike,
  type SleepLike,
} from '../src/client/index.js';
import { startMockServer, type MockEvent, type MockServer } from '../src/mock/index.js';
import type { LinkCareContextRequest } from '../src/index.js';
import { failure } from './support/failure.js';

const API_KEY = 'sk-planted-Zq8vX3kLm2Pw9';
const example = (name: string): LinkCareContextRequest => JSON.parse(readFileSync(new URL(`../examples/${name}.request.json`, import.meta.url), 'utf8')) as LinkCareContextRequest;
const base = example('opd-prescription');
/** A distinct valid link request (its own key). */
const request = (n: number): LinkCareContextRequest => ({ ...base, visitId: `OPD-T-${n}` });

let mock: MockServer;
const otps: string[] = [];
/** Called with every event of the mock (tests add and remove their own). */
const listeners = new Set<(e: MockEvent) => void>();
beforeAll(async () => {
  mock = await startMockServer({
    apiKey: API_KEY,
    onEvent: (e) => {
      if (e.type === 'otp') otps.push(e.otp);
      for (const l of listeners) l(e);
    },
  });
});
afterAll(() => mock.close());
beforeEach(() => mock.faults.clear());

/** A client of the mock; `seen` records the bearer tokens and calls that went out. */
function client(extra: Partial<ClientOptions> = {}): { c: ReturnType<typeof createClient>; calls: { path: string; bearer?: string }[] } {
  const calls: { path: string; bearer?: string }[] = [];
  const spy: FetchLike = (url, init) => {
    const auth = (init.headers as Record<string, string>).authorization;
    calls.push({ path: new URL(url).pathname, ...(auth === undefined ? {} : { bearer: auth.slice('Bearer '.length) }) });
    return (extra.fetch ?? fetch)(url, init);
  };
  return { c: createClient({ baseUrl: mock.url, apiKey: API_KEY, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...extra, fetch: spy }), calls };
}

/** A sleep that returns at once and adds up the waits the client asked for (no real wait). */
function recordedSleep(): { sleep: SleepLike; waited: () => number } {
  const waits: number[] = [];
  return { sleep: (ms) => (waits.push(ms), Promise.resolve()), waited: () => waits.reduce((a, b) => a + b, 0) };
}

const linkCalls = (calls: { path: string }[]): number => calls.filter((c) => c.path === '/api/m2/multiple/link-carecontext').length;
const tokenCalls = (calls: { path: string }[]): number => calls.filter((c) => c.path === '/api/m1/abha/token').length;

describe('createClient', () => {
  it('accepts https and loopback http, and refuses plain http elsewhere without echoing the URL', () => {
    expect(createClient({ baseUrl: 'https://abha.example.org/', apiKey: 'k' }).baseUrl).toBe('https://abha.example.org');
    expect(createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }).baseUrl).toBe('http://127.0.0.1:9');
    expect(createClient({ baseUrl: 'http://[::1]:9', apiKey: 'k' }).baseUrl).toBe('http://[::1]:9');
    expect(() => createClient({ baseUrl: 'http://abha.example.org', apiKey: 'k' })).toThrow(/must use https/);
    expect(() => createClient({ baseUrl: 'ftp://abha.example.org', apiKey: 'k' })).toThrow(/must use https/);
    const e = (() => {
      try {
        createClient({ baseUrl: 'https://user:s3cret-pass@abha.example.org', apiKey: 'k' });
      } catch (x) {
        return x as Error;
      }
      return undefined;
    })();
    expect(e?.message).toMatch(/credentials/);
    expect(e?.message).not.toContain('s3cret-pass');
    expect(() => createClient({ baseUrl: 'https://abha.example.org', apiKey: '' })).toThrow(/apiKey is required/);
  });

  it('refuses numeric options that are not finite numbers in range, naming the option', () => {
    const bad: [Partial<ClientOptions>, RegExp][] = [
      [{ tokenRefreshMarginMs: Number.NaN }, /tokenRefreshMarginMs/],
      [{ tokenRefreshMarginMs: -1 }, /tokenRefreshMarginMs/],
      [{ tokenLifetimeMs: Number.POSITIVE_INFINITY }, /tokenLifetimeMs/],
      [{ timeoutMs: 0 }, /timeoutMs/],
      [{ timeoutMs: '5000' as unknown as number }, /timeoutMs/],
      [{ retry: { maxAttempts: Number.NaN } }, /retry\.maxAttempts/],
      [{ retry: { maxAttempts: Number.POSITIVE_INFINITY } }, /retry\.maxAttempts/],
      [{ retry: { deadlineMs: 0 } }, /retry\.deadlineMs/],
      [{ retry: { budget: { capacity: Number.NaN, retryCost: 5, refund: 1 } } }, /retry\.budget\.capacity/],
      [{ requestIdHeader: 'x request id' }, /requestIdHeader/],
    ];
    for (const [options, message] of bad) {
      expect(() => createClient({ baseUrl: 'https://abha.example.org', apiKey: 'k', ...options }), JSON.stringify(options)).toThrow(message);
    }
    expect(() => createClient({ baseUrl: 'https://abha.example.org', apiKey: 'k', tokenRefreshMarginMs: 0, retry: { baseDelayMs: 0 }, requestIdHeader: 'x-request-id' })).not.toThrow();
  });

  it('never shows the API key or a token in util.inspect, JSON or toString', async () => {
    const { c, calls } = client();
    await c.linkCareContexts(request(1));
    const bearer = calls.find((x) => x.bearer !== undefined)?.bearer ?? 'missing';
    for (const text of [inspect(c, { depth: 10, showHidden: true }), JSON.stringify(c), String(c)]) {
      expect(text).toContain(mock.url);
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(bearer);
    }
  });
});

describe('the built package', () => {
  it('loads abha-link/client and abha-link/mock by name in plain Node, from ESM and CommonJS', async () => {
    const { spawnSync } = await import('node:child_process');
    const root = new URL('..', import.meta.url);
    const esm = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { createClient } from 'abha-link/client'; import { startMockServer } from 'abha-link/mock'; const m = await startMockServer(); const c = createClient({ baseUrl: m.url, apiKey: m.apiKey }); const r = await c.searchAbha({ mobile: '9000000001' }); console.log(r.success, c.tokenRequests); await m.close();",
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(esm.stderr).toBe('');
    expect(esm.stdout.trim()).toBe('true 1');
    const cjs = spawnSync(
      process.execPath,
      [
        '--no-warnings',
        '-e',
        "const { createClient } = require('abha-link/client'); const { buildOpenApiDocument } = require('abha-link/mock'); console.log(typeof createClient, Object.keys(buildOpenApiDocument().paths).length)",
      ],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(cjs.stdout.trim()).toBe('function 12');
  });
});

describe('bearer token', () => {
  it('is fetched once for many requests, also when they start together', async () => {
    const { c, calls } = client();
    await Promise.all(Array.from({ length: 20 }, (_, i) => c.linkCareContexts(request(100 + i))));
    await c.linkCareContexts(request(120));
    expect(tokenCalls(calls)).toBe(1);
    expect(c.tokenRequests).toBe(1);
    expect(linkCalls(calls)).toBe(21);
    // The token endpoint got no Authorization header; every link call carried the same token.
    expect(calls.find((x) => x.path === '/api/m1/abha/token')?.bearer).toBeUndefined();
    expect(new Set(calls.filter((x) => x.bearer !== undefined).map((x) => x.bearer)).size).toBe(1);
  });

  it('is refreshed exactly once after a 401, and the request repeated once', async () => {
    const { c, calls } = client();
    await c.linkCareContexts(request(200));
    mock.expireTokens();
    const r = await c.linkCareContexts(request(201));
    expect(r.success).toBe(true);
    expect(tokenCalls(calls)).toBe(2);
    expect(linkCalls(calls)).toBe(3);
    // The request refused with 401 is not counted: the mock counts link requests only once authenticated.
    expect(mock.linkCount(linkRequestKey(request(201)))).toEqual({ received: 1, linked: 1 });
  });

  it('is refreshed once when many requests in flight all get a 401', async () => {
    const { c, calls } = client();
    await c.linkCareContexts(request(210));
    mock.expireTokens();
    await Promise.all(Array.from({ length: 8 }, (_, i) => c.linkCareContexts(request(211 + i))));
    expect(tokenCalls(calls)).toBe(2);
  });

  it('gives up with AuthenticationError when the new token is refused too (no loop)', async () => {
    const { c, calls } = client();
    await c.linkCareContexts(request(220));
    mock.faults.add({ endpoint: 'link-carecontext', times: 5, fault: { type: 'expire-token' } });
    const e = await failure(c.linkCareContexts(request(221)));
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as AuthenticationError).status).toBe(401);
    expect(tokenCalls(calls)).toBe(2);
    expect(linkCalls(calls)).toBe(3);
  });

  it('treats a 401 from the token endpoint as final', async () => {
    const { c, calls } = client({ apiKey: 'sk-wrong-key-000' });
    const e = await failure(c.linkCareContexts(request(230)));
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as AuthenticationError).endpoint).toBe('/api/m1/abha/token');
    expect(e.message).toContain('API key was refused');
    expect(tokenCalls(calls)).toBe(1);
    expect(linkCalls(calls)).toBe(0);
    expect(e.message).not.toContain('sk-wrong-key-000');
  });

  it('turns status: false from the token endpoint into an EnvelopeError', async () => {
    const { c } = client();
    mock.faults.add({ endpoint: 'token', fault: { type: 'envelope-failure', message: 'account suspended' } });
    const e = await failure(c.linkCareContexts(request(240)));
    expect(e).toBeInstanceOf(EnvelopeError);
    expect((e as EnvelopeError).serviceMessage).toBe('account suspended');
  });

  it('is refreshed before its JWT exp, without waiting for a 401', async () => {
    let offset = 0;
    const { c, calls } = client({ now: () => Date.now() + offset });
    await c.linkCareContexts(request(250));
    offset = 1200 * 1000 - 30_000; // the mock's tokens live 1200 s; within the 60 s margin
    await c.linkCareContexts(request(251));
    expect(tokenCalls(calls)).toBe(2);
    expect(linkCalls(calls)).toBe(2);
  });

  it('uses the configured lifetime for a token that is not a JWT', async () => {
    let now = 1_000_000;
    const fake: FetchLike = (url) =>
      Promise.resolve(
        new URL(url).pathname === '/api/m1/abha/token' ? Response.json({ status: true, message: 'ok', data: 'opaque-token' }) : Response.json({ success: true, message: 'linked', data: null }),
      );
    const { c, calls } = client({ fetch: fake, now: () => now, tokenLifetimeMs: 120_000, tokenRefreshMarginMs: 10_000 });
    await c.linkCareContexts(request(260));
    now += 100_000;
    await c.linkCareContexts(request(261));
    expect(tokenCalls(calls)).toBe(1);
    now += 15_000; // 115 s: inside the 10 s margin of 120 s
    await c.linkCareContexts(request(262));
    expect(tokenCalls(calls)).toBe(2);
  });
});

describe('linkCareContexts', () => {
  it('posts the request with Authorization: Bearer and Content-Type: application/json and returns the envelope', async () => {
    const seen: { headers: Record<string, string>; body: unknown }[] = [];
    const { c } = client({
      fetch: (url, init) => {
        seen.push({ headers: init.headers as Record<string, string>, body: JSON.parse(String(init.body)) });
        return fetch(url, init);
      },
    });
    const r = await c.linkCareContexts(base);
    expect(r).toMatchObject({ success: true, message: '1 care context linked' });
    const link = seen[1];
    expect(link?.headers['content-type']).toBe('application/json');
    expect(link?.headers.authorization).toMatch(/^Bearer eyJ/);
    expect(link?.body).toEqual(base);
    expect(seen[0]?.body).toEqual({ apiKey: API_KEY });
  });

  it('never sends an invalid request: ValidationError with paths, no network at all', async () => {
    const { c, calls } = client();
    const bad = { ...base, visitDate: '2026-02-30', careContexts: [{ ...base.careContexts[0], hiType: '' }] } as LinkCareContextRequest;
    const e = await failure(c.linkCareContexts(bad));
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).issues.map((i) => i.path).sort()).toEqual(['/careContexts/0/hiType', '/visitDate']);
    expect(calls).toHaveLength(0);
  });

  it('does not retry a 400 and reports the field the service named', async () => {
    const { c, calls } = client();
    await c.linkCareContexts(request(300));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 400, message: '/careContexts/0/hiType hiType is not accepted' } });
    const e = await failure(c.linkCareContexts(request(301)));
    expect(e).toBeInstanceOf(RejectedError);
    expect(e).toMatchObject({ status: 400, endpoint: '/api/m2/multiple/link-carecontext', attempts: 1 });
    expect((e as RejectedError).serviceMessage).toContain('/careContexts/0/hiType');
    expect((e as RejectedError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(linkCalls(calls)).toBe(2);
  });

  it('honours Retry-After on 429 (seconds) and then succeeds', async () => {
    const wait = recordedSleep();
    const { c, calls } = client({ sleep: wait.sleep });
    await c.linkCareContexts(request(310));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 429, retryAfter: 1 } });
    const r = await c.linkCareContexts(request(311));
    const waited = wait.waited();
    expect(r.success).toBe(true);
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(5000);
    expect(linkCalls(calls)).toBe(3);
    expect(mock.linkCount(linkRequestKey(request(311)))).toEqual({ received: 2, linked: 1 });
  });

  it('honours Retry-After as an HTTP date on 503', async () => {
    // The client's clock is a whole second; the service asks to come back one second later.
    const clock = Date.UTC(2026, 10, 21, 10, 0, 0);
    const wait = recordedSleep();
    const { c, calls } = client({ now: () => clock, sleep: wait.sleep });
    await c.linkCareContexts(request(320));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 503, retryAfter: new Date(clock + 1000).toUTCString() } });
    const r = await c.linkCareContexts(request(321));
    const waited = wait.waited();
    expect(r.success).toBe(true);
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(5000);
    expect(linkCalls(calls)).toBe(3);
    expect(mock.linkCount(linkRequestKey(request(321)))).toEqual({ received: 2, linked: 1 });
  });

  it('fails at once when Retry-After is longer than the cap, saying it was not processed', async () => {
    const { c, calls } = client({ retry: { maxRetryAfterMs: 2000 } });
    await c.linkCareContexts(request(330));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 429, retryAfter: 120 } });
    const t0 = performance.now();
    const e = await failure(c.linkCareContexts(request(331)));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(e).toBeInstanceOf(RateLimitedError);
    expect((e as RateLimitedError).retryAfterMs).toBe(120_000);
    expect(e.message).toMatch(/not processed, safe to send later/);
    expect(linkCalls(calls)).toBe(2);
  });

  it('does not retry a 429 without Retry-After on the link call', async () => {
    const { c, calls } = client();
    await c.linkCareContexts(request(340));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 429 } });
    const e = await failure(c.linkCareContexts(request(341)));
    expect(e).toBeInstanceOf(RateLimitedError);
    expect(linkCalls(calls)).toBe(2);
  });

  it('stops retrying after maxAttempts', async () => {
    const { c, calls } = client({ retry: { maxAttempts: 3, maxRetryAfterMs: 10_000 } });
    await c.linkCareContexts(request(350));
    mock.faults.add({ endpoint: 'link-carecontext', times: 5, fault: { type: 'status', status: 503, retryAfter: 0 } });
    const e = await failure(c.linkCareContexts(request(351)));
    expect(e).toBeInstanceOf(ServerError);
    expect(e.message).toMatch(/not retried: all 3 attempts made/);
    expect((e as ServerError).attempts).toBe(3);
    expect(linkCalls(calls)).toBe(4);
  });

  it('is not repeated after the connection drops once the request was processed: OutcomeUnknownError', async () => {
    const { c, calls } = client();
    await c.linkCareContexts(request(400));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'drop', when: 'after' } });
    const e = await failure(c.linkCareContexts(request(401)));
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(isOutcomeUnknownError(e)).toBe(true);
    expect((e as OutcomeUnknownError).reason).toBe('connection-lost');
    expect(linkCalls(calls)).toBe(2);
    expect(mock.linkCount(linkRequestKey(request(401)))).toEqual({ received: 1, linked: 1 });
  });

  it('is not repeated after a 500 or a 502: OutcomeUnknownError with the status', async () => {
    const { c, calls } = client();
    await c.linkCareContexts(request(410));
    for (const status of [500, 502]) {
      mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status } });
      const e = await failure(c.linkCareContexts(request(410 + status)));
      expect(e).toBeInstanceOf(OutcomeUnknownError);
      expect(e).toMatchObject({ status, reason: 'server-error' });
    }
    expect(linkCalls(calls)).toBe(3);
  });

  it('is not repeated after a 503 without Retry-After', async () => {
    const { c, calls } = client();
    await c.linkCareContexts(request(420));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 503 } });
    expect(await failure(c.linkCareContexts(request(421)))).toBeInstanceOf(OutcomeUnknownError);
    expect(linkCalls(calls)).toBe(2);
  });

  it('is not repeated after an attempt timeout (the service hung)', async () => {
    const { c, calls } = client({ timeoutMs: 300 });
    await c.linkCareContexts(request(430));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'hang' } });
    const e = await failure(c.linkCareContexts(request(431)));
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect((e as OutcomeUnknownError).reason).toBe('timeout');
    expect(linkCalls(calls)).toBe(2);
    expect(mock.linkCount(linkRequestKey(request(431)))).toEqual({ received: 1, linked: 0 });
  });

  it('is not repeated when a 2xx answer cannot be read', async () => {
    const { c, calls } = client();
    await c.linkCareContexts(request(440));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'garbage' } });
    const e = await failure(c.linkCareContexts(request(441)));
    expect(e).toMatchObject({ name: 'OutcomeUnknownError', reason: 'unreadable-response', status: 200 });
    expect(linkCalls(calls)).toBe(2);
  });

  it('is a success when the service said success: true, even when the rest of its answer is off the spec', async () => {
    for (const odd of [{ message: null }, { message: 'x'.repeat(5000) }, { message: 42, extra: true }]) {
      let links = 0;
      const scripted: FetchLike = (url) => {
        if (new URL(url).pathname === '/api/m1/abha/token') return Promise.resolve(Response.json({ status: true, data: 'opaque' }));
        links++;
        return Promise.resolve(Response.json({ success: true, ...odd, data: { careContexts: [] } }));
      };
      const c = createClient({ baseUrl: mock.url, apiKey: API_KEY, fetch: scripted });
      const r = await c.linkCareContexts(request(445));
      expect(r.success).toBe(true);
      // The message that broke the schema is left out of what the caller gets; data is kept.
      expect(r.message).toBeUndefined();
      expect(r.data).toEqual({ careContexts: [] });
      expect(links).toBe(1);
    }
  });

  it('is outcome unknown when a 2xx answer has no readable success flag', async () => {
    const scripted: FetchLike = (url) =>
      Promise.resolve(new URL(url).pathname === '/api/m1/abha/token' ? Response.json({ status: true, data: 'opaque' }) : Response.json({ message: 'done', data: null }));
    const c = createClient({ baseUrl: mock.url, apiKey: API_KEY, fetch: scripted });
    expect(await failure(c.linkCareContexts(request(446)))).toMatchObject({ name: 'OutcomeUnknownError', reason: 'unreadable-response', status: 200 });
  });

  it('never follows a redirect: the request and its bearer token would go elsewhere', async () => {
    const { createServer: createHttpServer } = await import('node:http');
    let elsewhere = 0;
    const target = createHttpServer((_req, res) => {
      elsewhere++;
      res.end('{}');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const redirecting = createHttpServer((req, res) => {
      if (req.url?.endsWith('/token')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: true, data: 'opaque' }));
        return;
      }
      res.writeHead(307, { location: `http://127.0.0.1:${(target.address() as { port: number }).port}/x` });
      res.end();
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    try {
      const c = createClient({ baseUrl: `http://127.0.0.1:${(redirecting.address() as { port: number }).port}`, apiKey: API_KEY });
      const e = await failure(c.linkCareContexts(request(455)));
      // The link call may have been processed before the redirect: outcome unknown, never "failed".
      expect(e).toBeInstanceOf(OutcomeUnknownError);
      expect(e).toMatchObject({ status: 307, reason: 'redirect' });
      expect(e.message).toContain('redirect, which is not followed');
      // A read changed nothing: a redirect there is a RejectedError.
      const read = await failure(c.searchAbha({ mobile: '9000000001' }));
      expect(read).toBeInstanceOf(RejectedError);
      expect(read).toMatchObject({ status: 307 });
      expect(elsewhere).toBe(0);
    } finally {
      await new Promise((r) => redirecting.close(r));
      await new Promise((r) => target.close(r));
    }
  });

  it('reports success: false on HTTP 200 as an EnvelopeError', async () => {
    const { c } = client();
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'envelope-failure', message: 'care context already linked' } });
    const e = await failure(c.linkCareContexts(request(450)));
    expect(e).toBeInstanceOf(EnvelopeError);
    expect(e).toMatchObject({ status: 200, serviceMessage: 'care context already linked' });
  });

  it('retries when the request provably never left: connection refused, then success', async () => {
    let refusals = 0;
    const flaky: FetchLike = (url, init) => {
      if (new URL(url).pathname.includes('link-carecontext') && refusals < 2) {
        refusals++;
        return Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1'), { code: 'ECONNREFUSED', syscall: 'connect' }) }));
      }
      return fetch(url, init);
    };
    const { c, calls } = client({ fetch: flaky });
    const r = await c.linkCareContexts(request(460));
    expect(r.success).toBe(true);
    expect(linkCalls(calls)).toBe(3);
    expect(mock.linkCount(linkRequestKey(request(460)))).toEqual({ received: 1, linked: 1 });
  });

  describe('trusts "never reached the service" only for errors of the connection phase', () => {
    const cases: [string, string | undefined, 'not-sent' | 'unknown' | 'tls'][] = [
      ['ECONNREFUSED', 'connect', 'not-sent'],
      ['ECONNREFUSED', 'read', 'unknown'],
      ['EHOSTUNREACH', 'connect', 'not-sent'],
      ['EHOSTUNREACH', undefined, 'unknown'],
      ['EHOSTUNREACH', 'write', 'unknown'],
      ['ENETUNREACH', 'connect', 'not-sent'],
      ['ENETUNREACH', 'read', 'unknown'],
      ['ENETDOWN', undefined, 'unknown'],
      ['EHOSTDOWN', 'read', 'unknown'],
      ['ENOTFOUND', 'getaddrinfo', 'not-sent'],
      ['EAI_AGAIN', undefined, 'unknown'],
      ['UND_ERR_CONNECT_TIMEOUT', undefined, 'not-sent'],
      ['ETIMEDOUT', 'connect', 'not-sent'],
      ['ETIMEDOUT', 'read', 'unknown'],
      ['CERT_HAS_EXPIRED', undefined, 'tls'],
      ['ERR_TLS_CERT_ALTNAME_INVALID', undefined, 'tls'],
      ['ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC', undefined, 'unknown'],
      ['ERR_SSL_WRONG_VERSION_NUMBER', undefined, 'unknown'],
    ];
    it.each(cases)('%s with syscall %s: %s', async (code, syscall, expected) => {
      let links = 0;
      const failing: FetchLike = (url, init) => {
        if (!new URL(url).pathname.includes('link-carecontext')) return fetch(url, init);
        links++;
        const cause = Object.assign(new Error(`${syscall ?? 'socket'} ${code}`), { code, ...(syscall === undefined ? {} : { syscall }) });
        return Promise.reject(new TypeError('fetch failed', { cause }));
      };
      const { c } = client({ fetch: failing });
      const e = await failure(c.linkCareContexts(request(465)));
      if (expected === 'unknown') {
        expect(e).toMatchObject({ name: 'OutcomeUnknownError', reason: 'connection-lost' });
        expect(links).toBe(1);
      } else if (expected === 'tls') {
        expect(e).toMatchObject({ name: 'NetworkError', failure: 'tls', code });
        expect(links).toBe(1);
      } else {
        expect(e).toMatchObject({ name: 'NetworkError', code });
        expect(e.message).toMatch(/never reached the service/);
        expect(links).toBe(3);
      }
    });

    it('reads the syscall of the attempts inside an AggregateError (several addresses tried)', async () => {
      let links = 0;
      const failing: FetchLike = (url, init) => {
        if (!new URL(url).pathname.includes('link-carecontext')) return fetch(url, init);
        links++;
        const attempts = ['::1', '127.0.0.1'].map((a) => Object.assign(new Error(`connect ECONNREFUSED ${a}`), { code: 'ECONNREFUSED', syscall: 'connect' }));
        return Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new AggregateError(attempts), { code: 'ECONNREFUSED' }) }));
      };
      const { c } = client({ fetch: failing });
      expect(await failure(c.linkCareContexts(request(466)))).toMatchObject({ name: 'NetworkError', failure: 'connection-refused' });
      expect(links).toBe(3);
    });

    it('still retries a read after an ambiguous network error', async () => {
      let searches = 0;
      const flaky: FetchLike = (url, init) => {
        if (new URL(url).pathname.endsWith('/search/abha') && searches++ === 0) {
          return Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('read EHOSTUNREACH'), { code: 'EHOSTUNREACH', syscall: 'read' }) }));
        }
        return fetch(url, init);
      };
      const { c } = client({ fetch: flaky });
      expect((await c.searchAbha({ mobile: '9000000007' })).success).toBe(true);
      expect(searches).toBe(2);
    });
  });

  it('reports a closed port as NetworkError connection-refused after its retries', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const c = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    const e = await failure(c.linkCareContexts(request(470)));
    expect(e).toBeInstanceOf(NetworkError);
    expect(e).toMatchObject({ failure: 'connection-refused', code: 'ECONNREFUSED', attempts: 3, endpoint: '/api/m1/abha/token' });
    expect(e.message).toMatch(/never reached the service/);
  });

  it('spends a shared retry budget, so an outage does not become a storm', async () => {
    let attempts = 0;
    const down: FetchLike = () => {
      attempts++;
      return Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED', syscall: 'connect' }) }));
    };
    const c = createClient({ baseUrl: mock.url, apiKey: API_KEY, fetch: down, retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 1, budget: { capacity: 10, retryCost: 5, refund: 1 } } });
    const errors = [];
    for (let i = 0; i < 4; i++) errors.push(await failure(c.linkCareContexts(request(480 + i))));
    // The budget holds 2 retries: the first call (its token request) makes 3 attempts, the others 1 each.
    expect(attempts).toBe(4 + 2);
    expect(errors.at(-1)?.message).toMatch(/retry budget is spent/);
  });

  it('settles promptly when the caller aborts during a Retry-After wait, and sends nothing more', async () => {
    const ac = new AbortController();
    // The caller aborts once the client has started its wait (the wait listens to the signal).
    const abortedWait: SleepLike = (_ms, signal) =>
      new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        ac.abort();
      });
    const { c, calls } = client({ sleep: abortedWait });
    await c.linkCareContexts(request(490));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 429, retryAfter: 20 } });
    const t0 = performance.now();
    const e = await failure(c.linkCareContexts(request(491), { signal: ac.signal }));
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(e).toBeInstanceOf(AbortedError);
    expect(linkCalls(calls)).toBe(2);
    // The same client still works.
    expect((await c.linkCareContexts(request(492))).success).toBe(true);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { c, calls } = client();
    const ac = new AbortController();
    ac.abort();
    expect(await failure(c.linkCareContexts(request(500), { signal: ac.signal }))).toBeInstanceOf(AbortedError);
    expect(calls).toHaveLength(0);
  });

  it('reports an abort while the link request is in flight as outcome unknown', async () => {
    const { c } = client();
    await c.linkCareContexts(request(510));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'hang' } });
    const ac = new AbortController();
    // Abort once the mock holds the whole request (it reports the hang when it has read the body).
    const onHang = (e: MockEvent): void => {
      if (e.type === 'request' && e.status === 'hung') ac.abort();
    };
    listeners.add(onHang);
    try {
      const e = await failure(c.linkCareContexts(request(511), { signal: ac.signal }));
      expect(e).toMatchObject({ name: 'OutcomeUnknownError', reason: 'aborted' });
      expect(mock.linkCount(linkRequestKey(request(511)))).toEqual({ received: 1, linked: 0 });
    } finally {
      listeners.delete(onHang);
    }
  });

  it('keeps the whole call within its deadline', async () => {
    const { c } = client({ timeoutMs: 5000, retry: { deadlineMs: 400 } });
    await c.linkCareContexts(request(520));
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'hang' } });
    const t0 = performance.now();
    const e = await failure(c.linkCareContexts(request(521)));
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(e).toMatchObject({ name: 'OutcomeUnknownError', reason: 'timeout' });
  });
});

describe('identity endpoints', () => {
  it('search, request OTP, verify OTP, then both profile fetches with the session token', async () => {
    const { c, calls } = client();
    const s = await c.searchAbha({ mobile: '9000000001' });
    const item = s.data?.[0];
    expect(item?.txnId).toMatch(/^[0-9a-f-]{36}$/);
    const entries = item?.ABHA ?? [];
    expect(entries.length).toBeGreaterThanOrEqual(1);
    expect(entries[0]).toMatchObject({ index: 0, ABHANumber: expect.stringMatching(/^xx-xxxx-xxxx-\d{4}$/) as unknown });
    const txnId = item?.txnId ?? '';
    const sent = await c.requestOtp({ scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId });
    expect(sent.data?.txnId).toBe(txnId);
    const otp = otps.at(-1) ?? '';
    const v = await c.verifyOtp({ scope: ['abha-login'], txnId, otp });
    expect(v.data).toMatchObject({ authResult: 'success', expiresIn: 1800, refreshExpiresIn: 1296000 });
    const session = v.data?.token;
    if (session === undefined) throw new Error('no session token');
    const profile = await c.getProfile({ token: session });
    expect(profile.data?.mobile).toBe('9000000001');
    const address = await c.fetchAbhaAddressProfile({ token: session });
    expect(address.data?.abhaAddress).toBe(profile.data?.preferredAbhaAddress);
    // The session token travelled in the body only; the Authorization header always carried the bearer token.
    expect(calls.filter((x) => x.bearer === session)).toHaveLength(0);
    // @ts-expect-error a plain string is not a SessionToken: the types keep the two tokens apart
    await c.getProfile({ token: 'plain-string' }).catch(() => undefined);
  });

  it('covers the other verification flows with their documented lifetimes', async () => {
    const { c } = client();
    const start = async (mobile: string): Promise<string> => {
      const txnId = (await c.searchAbha({ mobile })).data?.[0]?.txnId ?? '';
      await c.requestOtp({ scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId });
      return txnId;
    };
    const mobile = '9000000002';
    let txnId = await start(mobile);
    const m = await c.mobileLoginVerifyOtp({ txnId, otp: otps.at(-1) ?? '' });
    expect(m.data?.expiresIn).toBe(300);
    txnId = await start(mobile);
    const n = await c.mobileLoginAbhaNumberVerifyOtp({ txnId, otp: otps.at(-1) ?? '' });
    expect(n.data?.authResult).toBe('success');
    txnId = await start(mobile);
    const a = await c.aadharNumberLoginVerifyOtp({ txnId, otpValue: otps.at(-1) ?? '', mobile });
    expect(a.data?.refreshExpiresIn).toBe(1296000);
    txnId = await start(mobile);
    const l = await c.abhaAddressLoginVerifyOtp({ txnId, otpValue: otps.at(-1) ?? '', mobile });
    expect(l.data?.tokens?.expiresIn).toBe(1800);
    const session = l.data?.tokens?.token;
    expect((await c.getProfile({ token: session ?? asSessionToken('x') })).data?.mobile).toBe(mobile);
    txnId = await start(mobile);
    const en = await c.enrollVerifyOtp({ txnId, otpValue: otps.at(-1) ?? '', mobile });
    expect(en.data?.ABHAProfile?.mobile).toBe(mobile);
    expect(en.data?.tokens?.expiresIn).toBe(1800);
  });

  it('reports a wrong OTP, a reused OTP and an unknown txnId as EnvelopeErrors, not retried', async () => {
    const { c, calls } = client();
    const txnId = (await c.searchAbha({ mobile: '9000000003' })).data?.[0]?.txnId ?? '';
    await c.requestOtp({ scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId });
    const otp = otps.at(-1) ?? '';
    const wrong = otp === '000000' ? '111111' : '000000';
    const e1 = await failure(c.verifyOtp({ scope: ['abha-login'], txnId, otp: wrong }));
    expect(e1).toBeInstanceOf(EnvelopeError);
    expect((e1 as EnvelopeError).serviceMessage).toBe('otp is incorrect');
    await c.verifyOtp({ scope: ['abha-login'], txnId, otp });
    const e2 = await failure(c.verifyOtp({ scope: ['abha-login'], txnId, otp }));
    expect((e2 as EnvelopeError).serviceMessage).toMatch(/no OTP is pending/);
    const e3 = await failure(c.mobileLoginVerifyOtp({ txnId: 'no-such-txn', otp: '123456' }));
    expect((e3 as EnvelopeError).serviceMessage).toMatch(/txnId is unknown/);
    expect(calls.filter((x) => x.path.endsWith('/verify/otp'))).toHaveLength(3);
  });

  it('validates identity requests before sending', async () => {
    const { c, calls } = client();
    const e = await failure(c.searchAbha({ mobile: '98765' }));
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).issues[0]).toMatchObject({ path: '/mobile', code: 'invalid-mobile' });
    const e2 = await failure(c.verifyOtp({ scope: ['abha-login'], txnId: 't', otp: '12' }));
    expect((e2 as ValidationError).issues[0]).toMatchObject({ path: '/otp', code: 'invalid-otp' });
    expect(calls).toHaveLength(0);
  });

  it('validates responses on arrival: a body without the spec shape is an InvalidResponseError with paths', async () => {
    const fake: FetchLike = (url) =>
      Promise.resolve(
        new URL(url).pathname === '/api/m1/abha/token' ? Response.json({ status: true, data: 'opaque' }) : Response.json({ success: true, message: 'ok', data: [{ txnId: 42, ABHA: 'no' }] }),
      );
    const { c } = client({ fetch: fake });
    const e = await failure(c.searchAbha({ mobile: '9000000001' }));
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect((e as InvalidResponseError).issues.map((i) => i.path).sort()).toEqual(['/data/0/ABHA', '/data/0/txnId']);
  });

  it('retries reads after server errors with backoff', async () => {
    const { c, calls } = client();
    mock.faults.add({ endpoint: 'search-abha', times: 2, fault: { type: 'status', status: 502 } });
    const r = await c.searchAbha({ mobile: '9000000004' });
    expect(r.success).toBe(true);
    expect(calls.filter((x) => x.path.endsWith('/search/abha'))).toHaveLength(3);
  });

  it('retries reads after a lost connection, but gives a ServerError after its attempts', async () => {
    const { c, calls } = client();
    mock.faults.add({ endpoint: 'search-abha', fault: { type: 'drop' } });
    expect((await c.searchAbha({ mobile: '9000000005' })).success).toBe(true);
    mock.faults.add({ endpoint: 'search-abha', times: 3, fault: { type: 'status', status: 500 } });
    const e = await failure(c.searchAbha({ mobile: '9000000005' }));
    expect(e).toBeInstanceOf(ServerError);
    expect(calls.filter((x) => x.path.endsWith('/search/abha'))).toHaveLength(5);
  });
});

describe('secrets', () => {
  it('never appear in any error, message or inspect output', async () => {
    const mobile = '9811122233';
    const abhaAddress = 'kiran.planted77@sbx';
    const patient = { ...base, abhaAddress, visitId: 'OPD-SECRET-1' };
    const errors: unknown[] = [];
    const bearer: string[] = [];
    const { c, calls } = client({ timeoutMs: 300 });
    const catchAll = async (p: Promise<unknown>): Promise<void> => {
      try {
        await p;
      } catch (e) {
        errors.push(e);
      }
    };
    // A service that echoes secrets and clinical text in its messages: redaction cannot catch a
    // drug, a diagnosis or a name, so the service's message never enters a message or inspect output.
    const clinical = ['Atorvastatin', 'Hypertensive heart disease', 'Sunita Plantedname'];
    const echo = `rejected ${abhaAddress} for mobile ${mobile} with key ${API_KEY}: patient ${clinical[2]}, ${clinical[1]}, on ${clinical[0]}`;
    for (const fault of [
      { type: 'status', status: 400, message: echo },
      { type: 'status', status: 429, retryAfter: 999, message: echo },
      { type: 'status', status: 500, message: echo },
      { type: 'envelope-failure', message: echo },
      { type: 'drop', when: 'after' },
      { type: 'hang' },
      { type: 'garbage' },
      { type: 'expire-token' },
    ] as const) {
      mock.faults.add({ endpoint: 'link-carecontext', times: fault.type === 'expire-token' ? 2 : 1, fault });
      await catchAll(c.linkCareContexts(patient));
    }
    await catchAll(c.linkCareContexts({ ...patient, visitDate: 'not a date' }));
    const txnId = (await c.searchAbha({ mobile })).data?.[0]?.txnId ?? '';
    await c.requestOtp({ scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId });
    const otp = otps.at(-1) ?? '';
    mock.faults.add({ endpoint: 'verify-otp', fault: { type: 'envelope-failure', message: `otp ${otp} is wrong for ${mobile}` } });
    await catchAll(c.verifyOtp({ scope: ['abha-login'], txnId, otp }));
    await catchAll(c.aadharNumberLoginVerifyOtp({ txnId, otpValue: otp, mobile }));
    await catchAll(createClient({ baseUrl: mock.url, apiKey: 'sk-other-planted-key' }).searchAbha({ mobile }));
    for (const x of calls) if (x.bearer !== undefined) bearer.push(x.bearer);
    expect(errors.length).toBeGreaterThanOrEqual(11);
    expect(bearer.length).toBeGreaterThan(0);
    const secrets = [API_KEY, 'sk-other-planted-key', mobile, abhaAddress, otp, ...new Set(bearer), 'Metformin', 'Type 2 diabetes', 'Dr. Meera Iyer', ...clinical];
    for (const e of errors) {
      expect(e).toBeInstanceOf(Error);
      const texts = [String(e), (e as Error).message, (e as Error).stack ?? '', inspect(e, { depth: 10, showHidden: true }), JSON.stringify(e)];
      for (const t of texts) for (const s of secrets) expect(t, `${(e as Error).name} leaks a secret`).not.toContain(s);
    }
    expect(errors.some((e) => e instanceof TransportError && e.serviceMessage?.includes('[redacted]'))).toBe(true);
    // The redacted message stays readable for a program that asks for it.
    const said = errors.find((e) => e instanceof TransportError && e.status === 400) as TransportError | undefined;
    expect(said?.serviceMessage).toContain(clinical[0]);
    expect(said?.serviceMessage).not.toContain(mobile);
  });
});
