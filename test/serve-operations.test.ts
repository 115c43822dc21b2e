/**
 * Operations of `abha-link serve`, in-process: body and concurrency limits,
 * request ids, readiness, metrics, the OpenAPI document, and JSON logs that
 * carry no health data, keys, tokens, OTPs or mobiles (planted in bodies,
 * headers and URLs, on success and error paths).
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createServeApp, type ServeAppOptions } from '../src/serve/app.js';
import type { Queue } from '../src/serve/queue-contract.js';
import { PASSED_THROUGH } from '../src/serve/routes-service.js';
import { StartingQueue } from '../src/serve/starting-queue.js';
import { fakeQueue } from './support/fake-queue.js';

const TOKEN = 'ops-token-Zq81-secret';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const NOW = new Date('2026-11-24T10:00:00+05:30');
const request = JSON.parse(readFileSync(new URL('../examples/opd-prescription.request.json', import.meta.url), 'utf8')) as Record<string, unknown>;

function logs(): { stream: Writable; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _e, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const text = (): string => chunks.join('');
  return {
    stream,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const app = (extra: Partial<ServeAppOptions> = {}) => createServeApp({ token: TOKEN, now: () => NOW, ...extra });

/** A promise and its resolve, to hold a request in flight without waiting on the clock. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('serve: limits', () => {
  it('refuses a body over the limit with 413 in the issue format', async () => {
    const a = await app({ bodyLimit: 1024 });
    const r = await a.inject({ method: 'POST', url: '/v1/validate', headers: auth, payload: JSON.stringify({ ...request, hospitalName: 'x'.repeat(2000) }) });
    expect(r.statusCode).toBe(413);
    expect(r.json()).toMatchObject({ issues: [{ code: 'body-too-large' }] });
    await a.close();
  });

  it('answers 503 with Retry-After beyond the concurrency limit, and takes requests again once one finishes', async () => {
    const gate = deferred();
    const entered = deferred();
    const base = fakeQueue();
    const slow: Queue = {
      ...base,
      enqueue: async (r, o) => {
        entered.resolve();
        await gate.promise;
        return base.enqueue(r, o);
      },
    };
    const a = await app({ maxConcurrent: 1, queue: slow });
    const held = a.inject({ method: 'POST', url: '/v1/submissions', headers: auth, payload: request });
    await entered.promise;
    const refused = await a.inject({ method: 'POST', url: '/v1/validate', headers: auth, payload: request });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toMatchObject({ issues: [{ code: 'overloaded' }] });
    gate.resolve();
    expect((await held).statusCode).toBe(202);
    expect((await a.inject({ method: 'POST', url: '/v1/validate', headers: auth, payload: request })).statusCode).toBe(200);
    await a.close();
  });
});

describe('serve: request ids', () => {
  it('answers each request with an x-request-id, keeping a plain one the caller sent and replacing any other', async () => {
    const a = await app();
    const made = await a.inject({ method: 'GET', url: '/healthz' });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await a.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'hms-42.a' } })).headers['x-request-id']).toBe('hms-42.a');
    const odd = await a.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'mobile 9876543210 <x>' } });
    expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    await a.close();
  });
});

describe('serve: readiness and metrics', () => {
  it('is ready when storage and upstream answer, and not ready (503) saying which check fails', async () => {
    const q = fakeQueue();
    let upstream = true;
    const a = await app({ queue: q, probeUpstream: async () => upstream });
    expect((await a.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready', checks: { storage: 'ok', upstream: 'ok' } });
    q.readyValue = false;
    upstream = false;
    // With the token, /readyz checks again (without it, it may answer the last check for a few seconds).
    const r = await a.inject({ method: 'GET', url: '/readyz', headers: auth });
    expect(r.statusCode).toBe(503);
    expect(r.json()).toEqual({ status: 'not-ready', checks: { storage: 'failing', upstream: 'failing' } });
    q.readyValue = true;
    const broken = await app({ queue: q, probeUpstream: () => Promise.reject(new Error('x')) });
    expect((await broken.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({ checks: { storage: 'ok', upstream: 'failing' } });
    await a.close();
    await broken.close();
  });

  it('answers while the queue opens: /readyz says starting, a submission waits for the opening and is stored, one past the wait is refused 503 with Retry-After', async () => {
    const opened = fakeQueue();
    let open = (_q: Queue): void => undefined;
    const starting = new StartingQueue(new Promise<Queue>((resolve) => (open = resolve)), 60_000);
    const a = await app({ queue: starting });
    // Before the opening: the server answers, and says why it is not ready yet.
    expect((await a.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const notYet = await a.inject({ method: 'GET', url: '/readyz', headers: auth });
    expect(notYet.statusCode).toBe(503);
    expect(notYet.json()).toEqual({ status: 'not-ready', checks: { storage: 'starting', upstream: 'not-configured' } });
    expect((await a.inject({ method: 'GET', url: '/metrics', headers: auth })).body).not.toContain('abha_link_submissions{');
    // A submission sent meanwhile waits for the store, and is stored once it is open.
    let answered = false;
    const submitted = a.inject({ method: 'POST', url: '/v1/submissions', headers: auth, payload: request }).finally(() => (answered = true));
    // Another request's whole round trip meanwhile: the submission is still waiting.
    expect((await a.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect(answered).toBe(false);
    open(opened);
    expect((await submitted).statusCode).toBe(202);
    expect(opened.items.size).toBe(1);
    expect((await a.inject({ method: 'GET', url: '/readyz', headers: auth })).json()).toMatchObject({ status: 'ready', checks: { storage: 'ok' } });
    await a.close();

    // A store that takes longer than the wait: the caller is told to come back, nothing is stored.
    const slow = await app({ queue: new StartingQueue(new Promise<Queue>(() => undefined), 1) });
    const refused = await slow.inject({ method: 'POST', url: '/v1/submissions', headers: auth, payload: request });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.json()).toMatchObject({ issues: [{ code: 'storage-unavailable' }] });
    await slow.close();
  });

  it('counts requests by route pattern and status, their latency, and the queue by status, in Prometheus text', async () => {
    const q = fakeQueue();
    const a = await app({ queue: q });
    await a.inject({ method: 'POST', url: '/v1/submissions', headers: auth, payload: request });
    await a.inject({ method: 'GET', url: '/v1/submissions/abc', headers: auth });
    await a.inject({ method: 'POST', url: '/v1/validate', headers: auth, payload: '{' });
    const r = await a.inject({ method: 'GET', url: '/metrics', headers: auth });
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.body).toContain('abha_link_http_requests_total{method="POST",route="/v1/submissions",status="202"} 1');
    expect(r.body).toContain('abha_link_http_requests_total{method="GET",route="/v1/submissions/:id",status="404"} 1');
    expect(r.body).toContain('abha_link_http_requests_total{method="POST",route="/v1/validate",status="400"} 1');
    expect(r.body).toMatch(/abha_link_http_request_duration_seconds_bucket\{le="0.005",method="POST",route="\/v1\/submissions"\} \d/);
    expect(r.body).toContain('abha_link_queue_depth 1');
    expect(r.body).toContain('abha_link_submissions{status="acknowledged"} 0');
    expect(r.body).not.toContain('/v1/submissions/abc');
    await a.close();
  });
});

describe('serve: OpenAPI', () => {
  it('describes every route of the server in OpenAPI 3.1, with references that all resolve', async () => {
    const a = await app();
    const doc = (await a.inject({ method: 'GET', url: '/openapi.json' })).json() as { openapi: string; paths: Record<string, object>; components: { schemas: Record<string, unknown> } };
    expect(doc.openapi).toBe('3.1.0');
    // printRoutes draws a tree: each line's segment is appended to its parent's path (4 columns a level).
    const routes: string[] = [];
    const stack: string[] = [];
    for (const line of a.printRoutes({ commonPrefix: false }).split('\n')) {
      const m = /^([│├└─ ]*)(\S+) \(([A-Z, ]+)\)$/.exec(line);
      if (m === null) continue;
      const depth = (m[1] ?? '').length / 4;
      const path = (stack[depth - 1] ?? '') + (m[2] ?? '');
      stack[depth] = path;
      for (const method of (m[3] ?? '').split(', ')) if (method !== 'HEAD') routes.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
    }
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(new Set(documented)).toEqual(new Set(routes));
    for (const e of PASSED_THROUGH) expect(doc.paths[e.path]).toBeDefined();
    // The schemas the routes use are there; the others are left out (code generators flag unused components).
    for (const name of ['clinical-input', 'link-carecontext-request', ...PASSED_THROUGH.map((e) => `${e.id}-request`)]) expect(doc.components.schemas[name], name).toBeDefined();
    expect(doc.components.schemas['token-request']).toBeUndefined();
    const refs = JSON.stringify(doc).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) expect(doc.components.schemas[ref.slice(22, -1)], ref).toBeDefined();
    await a.close();
  });
});

describe('serve: logs', () => {
  const MOBILE = '9812345678';
  const ABHA = 'planted.patient@sbx';
  const OTP = '604931';
  const DIAGNOSIS = 'Plantedosis chronica';
  const API_KEY = 'apikey-PLANTED-8c1d';
  const planted = [MOBILE, ABHA, OTP, DIAGNOSIS, API_KEY, TOKEN, 'Plantedosis'];

  it('writes one JSON line per request with route, status and time, and never a planted mobile, address, OTP, diagnosis, key or token', async () => {
    const log = logs();
    const q = fakeQueue();
    const failing: Queue = { ...q, get: () => Promise.reject(new Error(`database said ${MOBILE} ${ABHA}`)) };
    const a = await app({ logStream: log.stream, queue: failing });
    const cc = (request.careContexts as Record<string, unknown>[])[0] ?? {};
    const body = { ...request, abhaAddress: ABHA, careContexts: [{ ...cc, display: DIAGNOSIS }], otp: OTP, mobile: MOBILE };
    const headers = { ...auth, 'x-api-key': API_KEY, 'x-mobile': MOBILE };
    await a.inject({ method: 'POST', url: `/v1/validate?lint=true&mobile=${MOBILE}`, headers, payload: body });
    await a.inject({ method: 'POST', url: `/v1/validate`, headers, payload: body });
    await a.inject({ method: 'POST', url: '/v1/validate', headers, payload: `{"abhaAddress":"${ABHA}", ${OTP}` });
    await a.inject({ method: 'POST', url: `/v1/submissions?callbackUrl=https://x.example/${OTP}`, headers, payload: body });
    const clean = { ...request, abhaAddress: ABHA, careContexts: [{ ...cc, display: DIAGNOSIS }] };
    await a.inject({ method: 'POST', url: `/v1/submissions?callbackUrl=https://x.example/${OTP}`, headers, payload: clean });
    await a.inject({ method: 'GET', url: `/v1/submissions/${MOBILE}`, headers });
    await a.inject({ method: 'POST', url: `/v1/service/api/m1/abha/search/abha`, headers, payload: { mobile: MOBILE } });
    await a.inject({ method: 'GET', url: `/v1/${ABHA}/${OTP}`, headers: { authorization: `Bearer ${API_KEY}` } });
    await a.inject({ method: 'POST', url: '/v1/build', headers, payload: { patient: { abhaAddress: ABHA, mobile: MOBILE } } });
    await a.close();
    const text = log.text();
    for (const p of planted) expect(text, p).not.toContain(p);
    const requests = log.lines().filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(9);
    expect(requests.map((l) => l.status)).toEqual([400, 200, 400, 422, 202, 500, 503, 401, 422]);
    expect(requests[5]).toMatchObject({ method: 'GET', route: '/v1/submissions/:id', reqId: expect.any(String), ms: expect.any(Number) });
    expect(log.lines().some((l) => l.msg === 'internal error' && (l.err as { name: string }).name === 'Error')).toBe(true);
  });
});
