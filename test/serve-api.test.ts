/**
 * The HTTP contract of `abha-link serve`, in-process with fastify's inject:
 * every route, authentication, errors in the issue format, limits, request
 * ids, metrics, OpenAPI and logs without health data. The identity
 * pass-through calls the real client against the in-process mock.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildLinkRequest } from '../src/builders/link-request.js';
import { createClient } from '../src/client/client.js';
import type { ClinicalInput } from '../src/generated/types.js';
import { startMockServer, type MockServer } from '../src/mock/server.js';
import { PdfUnavailableError } from '../src/render/errors.js';
import { createServeApp, type ServeAppOptions } from '../src/serve/app.js';
import { PASSED_THROUGH } from '../src/serve/routes-service.js';
import { fakeQueue, type FakeQueue } from './support/fake-queue.js';

const TOKEN = 'serve-test-token-7f3a';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const NOW = new Date('2026-11-24T10:00:00+05:30');
const read = (f: string): unknown => JSON.parse(readFileSync(new URL(`../examples/${f}`, import.meta.url), 'utf8'));
const input = read('opd-prescription.input.json') as ClinicalInput;
const request = read('opd-prescription.request.json') as Record<string, unknown>;
const multi = read('multi-care-context.input.json');

async function app(extra: Partial<ServeAppOptions> = {}): Promise<FastifyInstance> {
  return createServeApp({ token: TOKEN, now: () => NOW, ...extra });
}

describe('serve: authentication', () => {
  let a: FastifyInstance;
  beforeAll(async () => {
    a = await app({ queue: fakeQueue() });
  });
  afterAll(() => a.close());

  it('refuses a /v1 request without a token, or with a wrong one, with 401 and WWW-Authenticate', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }]) {
      const r = await a.inject({ method: 'POST', url: '/v1/validate', headers, payload: request });
      expect(r.statusCode).toBe(401);
      expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(r.json()).toMatchObject({ issues: [{ code: 'unauthorized', path: '/authorization', in: 'header', severity: 'error' }] });
    }
    const listing = await a.inject({ method: 'GET', url: '/v1/submissions' });
    expect(listing.statusCode).toBe(401);
  });

  it('accepts the right token, and serves health, readiness, OpenAPI and the page without one (the metrics with it)', async () => {
    expect((await a.inject({ method: 'POST', url: '/v1/validate', headers: auth, payload: request })).statusCode).toBe(200);
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/']) expect((await a.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    expect((await a.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await a.inject({ method: 'GET', url: '/metrics', headers: auth })).statusCode).toBe(200);
  });

  it('answers an unknown route 404 in the issue format', async () => {
    const r = await a.inject({ method: 'GET', url: '/v1/nothing', headers: auth });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toMatchObject({ issues: [{ code: 'not-found' }] });
  });

  it('answers a known path asked with another method 405 with Allow, after the token check', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/v1/validate', 'POST'],
      ['DELETE', '/v1/submissions', 'GET, HEAD, POST'],
      ['DELETE', '/v1/submissions/6b1d3f1e-7a7c-4c55-9d1e-000000000000', 'GET, HEAD, PUT'],
      ['GET', '/v1/submissions/6b1d3f1e-7a7c-4c55-9d1e-000000000000/retry?x=1', 'POST'],
      ['POST', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, url, allow] of cases) {
      const r = await a.inject({ method: method as 'GET', url, headers: auth });
      expect(r.statusCode, `${method} ${url}`).toBe(405);
      expect(r.headers.allow).toBe(allow);
      expect(r.json()).toMatchObject({ issues: [{ code: 'method-not-allowed', message: expect.stringContaining(`answers ${allow}`) as string }] });
      expect(r.body).not.toContain('6b1d3f1e');
    }
    expect((await a.inject({ method: 'GET', url: '/v1/validate' })).statusCode).toBe(401);
    expect((await a.inject({ method: 'DELETE', url: '/v1/submissions/a/b/c', headers: auth })).statusCode).toBe(404);
  });
});

describe('serve: validate, build, render, FHIR', () => {
  let a: FastifyInstance;
  beforeAll(async () => {
    a = await app({ openPrinter: () => Promise.reject(new PdfUnavailableError('no-browser', 'PDF output needs a Chromium, and none was found')) });
  });
  afterAll(() => a.close());
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    a.inject({ method: 'POST', url, headers: { ...auth, ...headers }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });

  it('validates a link request with 200 whether it is valid or not, with JSON Pointer paths', async () => {
    expect((await post('/v1/validate', request)).json()).toEqual({ valid: true, errors: [], warnings: [] });
    const bad = await post('/v1/validate', { ...request, visitDate: '20-11-2026' });
    expect(bad.statusCode).toBe(200);
    expect(bad.json()).toMatchObject({ valid: false, errors: [{ path: '/visitDate', severity: 'error' }] });
  });

  it('validates against the schema named in ?schema= and lints with ?lint=true', async () => {
    expect((await post('/v1/validate?schema=clinical-input', input)).json()).toMatchObject({ valid: true });
    const asRequest = await post('/v1/validate', input);
    expect(asRequest.json()).toMatchObject({ valid: false, hint: expect.stringContaining('/v1/build') });
    const future = await post('/v1/validate?lint=true', { ...request, visitDate: '2027-05-01' });
    expect(future.json()).toMatchObject({ valid: false, errors: [{ path: '/visitDate' }] });
    expect((await post('/v1/validate?lint=false', { ...request, visitDate: '2027-05-01' })).json()).toMatchObject({ valid: true });
  });

  it('answers 400 for a body that is not JSON, naming line and column without quoting it', async () => {
    const r = await post('/v1/validate', '{"abhaAddress": "9876543210@sbx",\n oops}');
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ issues: [{ path: '', code: 'invalid-json', message: expect.stringMatching(/line 2, column 2/), severity: 'error' }] });
    expect(r.body).not.toContain('9876543210');
    expect((await a.inject({ method: 'POST', url: '/v1/validate', headers: auth })).json()).toMatchObject({ issues: [{ code: 'empty-body' }] });
  });

  it('refuses an unknown schema, an unknown parameter and a bad flag with 400 naming the query parameter', async () => {
    expect((await post('/v1/validate?schema=nope', request)).json()).toMatchObject({ issues: [{ path: '/schema', in: 'query', code: 'invalid-parameter' }] });
    const unknown = await post('/v1/validate?mobile=9876543210', request);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ issues: [{ code: 'unknown-parameter', in: 'query' }] });
    expect(unknown.body).not.toContain('9876543210');
    expect((await post('/v1/validate?lint=maybe', request)).statusCode).toBe(400);
  });

  it('suggests the schema name, template or language nearest a mistyped one, as the CLI does', async () => {
    const message = async (url: string): Promise<string> => ((await post(url, request)).json() as { issues: { message: string }[] }).issues[0]?.message ?? '';
    expect(await message('/v1/validate?schema=clinical_input')).toMatch(/^schema must be a schema name .*; did you mean clinical-input\?$/);
    expect(await message('/v1/render?template=prescriptoin')).toMatch(/; did you mean prescription\?$/);
    expect(await message('/v1/render?lang=hni')).toMatch(/; did you mean hi\?$/);
    expect(await message('/v1/validate?schema=zzzzzzzz')).not.toContain('did you mean');
  });

  it('builds the link request the library builds, or answers 422 with every issue', async () => {
    const r = await post('/v1/build', input);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual(JSON.parse(JSON.stringify(buildLinkRequest(input, { lint: { now: NOW } }))));
    const bad = await post('/v1/build', { ...input, patient: {}, visit: { ...(input as unknown as { visit: object }).visit, at: 'yesterday' } });
    expect(bad.statusCode).toBe(422);
    const paths = (bad.json() as { issues: { path: string }[] }).issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['/patient/abhaAddress', '/visit/at']));
  });

  it('counts warnings, not information, in x-abha-link-warnings (an inferred hiType is information)', async () => {
    const { hiType: _given, ...inferred } = input as unknown as Record<string, unknown>;
    const r = await post('/v1/build', inferred);
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-abha-link-warnings']).toBe('0');
  });

  it('renders HTML by default, and answers 501 with the reason when PDF is asked for and there is no Chromium', async () => {
    const html = await post('/v1/render?template=prescription&lang=hi&size=A5', input);
    expect(html.statusCode).toBe(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.body).toContain('Content-Security-Policy');
    expect(html.body).toContain('lang="hi"');
    const pdf = await post('/v1/render', input, { accept: 'application/pdf' });
    expect(pdf.statusCode).toBe(501);
    expect(pdf.json()).toMatchObject({ issues: [{ code: 'pdf-unavailable', message: expect.stringContaining('Chromium') }] });
    expect((await post('/v1/render?template=nope', input)).statusCode).toBe(400);
    expect((await post('/v1/render', { ...input, patient: {} })).statusCode).toBe(422);
  });

  it('asks which document with ?index= when the input has several care contexts', async () => {
    const several = await post('/v1/render', multi);
    expect(several.statusCode).toBe(422);
    expect(several.json()).toMatchObject({ issues: [{ code: 'several-documents', path: '/careContexts' }] });
    const [first, second] = [await post('/v1/render?index=0', multi), await post('/v1/render?index=1', multi)];
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(first.body).not.toEqual(second.body);
    expect((await post('/v1/render?index=9', multi)).json()).toMatchObject({ issues: [{ code: 'no-such-document', in: 'query' }] });
    expect((await post('/v1/fhir', multi)).statusCode).toBe(422);
  });

  it('makes a FHIR document bundle that /v1/fhir/validate accepts, and reports a broken one with 200', async () => {
    const r = await post('/v1/fhir', input);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/fhir\+json/);
    const bundle = r.json() as { resourceType: string; type: string; timestamp: string };
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'document' });
    expect(new Date(bundle.timestamp).getTime()).toBe(NOW.getTime());
    expect((await post('/v1/fhir/validate', bundle)).json()).toMatchObject({ valid: true, errors: [] });
    const broken = await post('/v1/fhir/validate', { ...bundle, type: 'collection', entry: 'x' });
    expect(broken.statusCode).toBe(200);
    expect(broken.json()).toMatchObject({ valid: false, errors: expect.arrayContaining([expect.objectContaining({ severity: 'error' })]) });
    expect((await post('/v1/fhir', { ...input, patient: {} })).statusCode).toBe(422);
  });
});

describe('serve: submissions', () => {
  let a: FastifyInstance;
  let q: FakeQueue;
  beforeAll(async () => {
    q = fakeQueue();
    a = await app({ queue: q });
  });
  afterAll(() => a.close());
  const post = (url: string, payload?: unknown) => a.inject({ method: 'POST', url, headers: auth, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) });

  it('stores a link request and answers 202, and the same request again 200 with the same id', async () => {
    const first = await post('/v1/submissions', request);
    expect(first.statusCode).toBe(202);
    const { id, status } = first.json() as { id: string; status: string };
    expect(status).toBe('queued');
    expect(first.headers.location).toBe(`/v1/submissions/${id}`);
    const again = await post('/v1/submissions', request);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ id, status: 'queued' });
    expect(q.items.size).toBe(1);
  });

  it('builds a clinical input first, and queues nothing for an invalid one (422 with every issue)', async () => {
    const built = await post('/v1/submissions', input);
    expect([200, 202]).toContain(built.statusCode);
    expect(q.items.get((built.json() as { id: string }).id)?.request).toEqual(JSON.parse(JSON.stringify(buildLinkRequest(input, { lint: { now: NOW } }))));
    const before = q.items.size;
    const bad = await post('/v1/submissions', { ...request, visitDate: '2027-05-01' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ issues: [{ path: '/visitDate' }] });
    expect(q.items.size).toBe(before);
  });

  it('passes a callbackUrl to the queue, and refuses one that is not https', async () => {
    const ok = await post(`/v1/submissions?callbackUrl=${encodeURIComponent('https://hms.example/abha/callback')}`, { ...request, visitId: 'OPD-CB-1' });
    expect(q.items.get((ok.json() as { id: string }).id)?.callbackUrl).toBe('https://hms.example/abha/callback');
    const plain = await post(`/v1/submissions?callbackUrl=${encodeURIComponent('http://hms.example/cb')}`, request);
    expect(plain.statusCode).toBe(400);
    expect(plain.json()).toMatchObject({ issues: [{ path: '/callbackUrl', in: 'query' }] });
  });

  it('shows one submission, lists them by status, and answers 404 for an unknown id', async () => {
    const { id } = (await post('/v1/submissions', { ...request, visitId: 'OPD-LIST-1' })).json() as { id: string };
    q.set(id, 'unknown');
    const one = await a.inject({ method: 'GET', url: `/v1/submissions/${id}`, headers: auth });
    expect(one.json()).toMatchObject({ id, status: 'unknown', attempts: 0 });
    const listed = (await a.inject({ method: 'GET', url: '/v1/submissions?status=unknown', headers: auth })).json() as { submissions: { id: string }[] };
    expect(listed.submissions.map((s) => s.id)).toEqual([id]);
    expect((await a.inject({ method: 'GET', url: '/v1/submissions?status=lost', headers: auth })).statusCode).toBe(400);
    expect((await a.inject({ method: 'GET', url: '/v1/submissions/does-not-exist', headers: auth })).statusCode).toBe(404);
  });

  it('resends an unknown submission on retry, and refuses one that is not failed or unknown with 409', async () => {
    const { id } = (await post('/v1/submissions', { ...request, visitId: 'OPD-RETRY-1' })).json() as { id: string };
    expect((await post(`/v1/submissions/${id}/retry`)).statusCode).toBe(409);
    q.set(id, 'failed');
    const r = await post(`/v1/submissions/${id}/retry`);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ id, status: 'queued' });
    expect((await post('/v1/submissions/nope/retry')).statusCode).toBe(404);
  });

  it('answers 503 on the submissions routes of a server without a queue', async () => {
    const bare = await app();
    const r = await bare.inject({ method: 'POST', url: '/v1/submissions', headers: auth, payload: request });
    expect(r.statusCode).toBe(503);
    expect(r.json()).toMatchObject({ issues: [{ code: 'queue-unavailable' }] });
    await bare.close();
  });
});

describe('serve: the identity endpoints passed through', () => {
  let mock: MockServer;
  let a: FastifyInstance;
  beforeAll(async () => {
    mock = await startMockServer({ otp: '123456' });
    a = await app({ client: createClient({ baseUrl: mock.url, apiKey: mock.apiKey, retry: false }) });
  });
  afterAll(async () => {
    await a.close();
    await mock.close();
  });

  it('serves every identity endpoint of the spec under /v1/service/<its path>, and not the token or link call', () => {
    expect(PASSED_THROUGH.map((e) => e.path)).toContain('/v1/service/api/m1/abha/search/abha');
    expect(PASSED_THROUGH.map((e) => e.path)).not.toContain('/v1/service/api/m1/abha/token');
    expect(PASSED_THROUGH.map((e) => e.path)).not.toContain('/v1/service/api/m2/multiple/link-carecontext');
    expect(PASSED_THROUGH).toHaveLength(10);
  });

  it('runs the search and OTP flow through the server with its API key and bearer token', async () => {
    const search = await a.inject({ method: 'POST', url: '/v1/service/api/m1/abha/search/abha', headers: auth, payload: { mobile: '9000000001' } });
    expect(search.statusCode).toBe(200);
    const data = (search.json() as { success: boolean; data: { txnId: string; ABHA: { index: number }[] }[] }).data;
    expect(data[0]?.txnId).toEqual(expect.any(String));
    const otp = await a.inject({
      method: 'POST',
      url: '/v1/service/api/m1/abha/search/request/otp',
      headers: auth,
      payload: { scope: ['abha-login', 'search-abha', 'mobile-verify'], loginHint: 'index', loginId: String(data[0]?.ABHA[0]?.index ?? 0), otpSystem: 'abdm', txnId: data[0]?.txnId },
    });
    expect(otp.statusCode).toBe(200);
    expect(otp.json()).toMatchObject({ success: true });
  });

  it('answers 422 with JSON Pointer paths for a request off the spec, before anything is sent', async () => {
    const before = mock.stats();
    const r = await a.inject({ method: 'POST', url: '/v1/service/api/m1/abha/search/abha', headers: auth, payload: { mobile: '12' } });
    expect(r.statusCode).toBe(422);
    expect(r.json()).toMatchObject({ issues: [{ path: '/mobile', severity: 'error' }] });
    expect(mock.stats()).toEqual(before);
  });

  it('answers 502 when the service cannot be reached, and 503 when none is configured', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await app({ client: createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', retry: false }) });
    const r = await down.inject({ method: 'POST', url: '/v1/service/api/m1/abha/search/abha', headers: auth, payload: { mobile: '9000000001' } });
    expect(r.statusCode).toBe(502);
    expect(r.json()).toMatchObject({ issues: [{ code: 'connection-refused' }] });
    await down.close();
    const none = await app();
    expect((await none.inject({ method: 'POST', url: '/v1/service/api/m1/abha/search/abha', headers: auth, payload: { mobile: '9000000001' } })).statusCode).toBe(503);
    await none.close();
  });
});
