/**
 * The OpenAPI document of `abha-link serve` as code generators see it:
 * operationIds, servers, examples, 4xx answers and no unused components;
 * `@redocly/cli lint` with its recommended rules on it and on the upstream
 * document (`abha-link openapi`); and a client generated from it with
 * openapi-typescript + openapi-fetch driving the identity flow and a
 * submission through a server started in-process against the mock.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import createFetchClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/client/client.js';
import { buildOpenApiDocument, type Json } from '../src/mock/openapi.js';
import { startMockServer, type MockServer } from '../src/mock/server.js';
import { createServeApp } from '../src/serve/app.js';
import { buildServeOpenApi } from '../src/serve/openapi.js';
import { SERVICE_EXAMPLES } from '../src/serve/openapi-examples.js';
import type { SchemaName } from '../src/generated/manifest.js';
import { validate } from '../src/validation/validate.js';
import { SERVE_API_TYPES, serveApiTypes } from '../scripts/serve-openapi-types.js';
import { root } from './support/cli-process.js';
import { fakeQueue } from './support/fake-queue.js';
import type { paths } from './generated/serve-api.js';

type Operation = { operationId?: string; requestBody?: { content: Record<string, { example?: unknown }> }; responses: Record<string, { content?: Record<string, { example?: unknown }> }> };

type SubmissionBody = paths['/v1/submissions']['post']['requestBody']['content']['application/json'];

const doc = buildServeOpenApi() as { servers: { url: string }[]; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Json> } };
const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })));

describe('the served OpenAPI document', () => {
  it('gives every operation a unique camelCase operationId, and lists a server', () => {
    const ids = operations.map((o) => o.op.operationId);
    for (const { where, op } of operations) expect(op.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/v1/submissions']?.post?.operationId).toBe('createSubmission');
    expect(doc.paths['/v1/service/api/m1/abha/search/abha']?.post?.operationId).toBe('serviceSearchAbha');
    expect(doc.servers.length).toBeGreaterThan(0);
  });

  it('has an example for every request body and response, and a 4xx answer on every operation', () => {
    for (const { where, op } of operations) {
      for (const [type, m] of Object.entries(op.requestBody?.content ?? {})) expect(m.example, `${where} request ${type}`).toBeDefined();
      for (const [status, r] of Object.entries(op.responses)) for (const [type, m] of Object.entries(r.content ?? {})) expect(m.example, `${where} ${status} ${type}`).toBeDefined();
      expect(
        Object.keys(op.responses).some((s) => s.startsWith('4')),
        where,
      ).toBe(true);
    }
  });

  it('gives the identity endpoints examples their schemas accept, and describes the fields the spec leaves open', () => {
    for (const [id, { request, response }] of Object.entries(SERVICE_EXAMPLES)) {
      expect(validate(`${id}-request` as SchemaName, request).success, `${id} request`).toBe(true);
      expect(validate(`${id}-response` as SchemaName, response).success, `${id} response`).toBe(true);
    }
    const otp = doc.components.schemas['request-otp-request'] as { properties: Record<string, { description?: string; examples?: unknown[]; items?: { examples?: unknown[] } }> };
    for (const field of ['loginHint', 'otpSystem', 'scope']) expect(otp.properties[field]?.description, field).toMatch(/open/);
    expect(otp.properties.loginHint?.examples).toEqual(['index']);
    expect(otp.properties.scope?.items?.examples).toEqual(['abha-login', 'abha-enrol']);
  });

  it('holds only components it uses', () => {
    const text = JSON.stringify({ paths: doc.paths, components: doc.components });
    for (const name of Object.keys(doc.components.schemas)) expect(text, name).toContain(`"#/components/schemas/${name}"`);
    expect(Object.keys(doc.components.schemas)).toContain('clinical-input');
  });
});

/** Runs `redocly lint` with the recommended rules; resolves to its totals per document. */
async function redoclyLint(files: string[], dir: string): Promise<{ errors: number; warnings: number }[]> {
  const config = join(dir, 'redocly.yaml');
  writeFileSync(config, 'extends:\n  - recommended\n');
  const cli = join(root, 'node_modules/@redocly/cli/bin/cli.js');
  const child = spawn(process.execPath, [cli, 'lint', '--config', config, '--format', 'json', ...files], { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.resume();
  await new Promise((resolve) => child.on('close', resolve));
  // One JSON report per document, one after the other.
  const totals: { errors: number; warnings: number }[] = [];
  for (const m of out.matchAll(/"totals":\s*(\{[^}]*\})/g)) totals.push(JSON.parse(m[1] ?? '{}') as { errors: number; warnings: number });
  return totals;
}

describe('@redocly/cli lint (recommended rules)', () => {
  it('reports no error for the served document nor for the upstream one (abha-link openapi)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'abha-link-redocly-'));
    try {
      const served = join(dir, 'serve.json');
      const upstream = join(dir, 'upstream.json');
      writeFileSync(served, JSON.stringify(doc));
      writeFileSync(upstream, JSON.stringify(buildOpenApiDocument()));
      const totals = await redoclyLint([served, upstream], dir);
      expect(totals).toHaveLength(2);
      for (const t of totals) expect(t.errors).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a client generated from the document (openapi-typescript + openapi-fetch)', () => {
  const TOKEN = 'openapi-client-token-3k8d';
  let mock: MockServer;
  let app: FastifyInstance;
  let api: ReturnType<typeof createFetchClient<paths>>;
  beforeAll(async () => {
    mock = await startMockServer({ otp: '123456' });
    const upstream = createClient({ baseUrl: mock.url, apiKey: mock.apiKey, retry: false });
    app = await createServeApp({ token: TOKEN, now: () => new Date(), client: upstream, queue: fakeQueue(async (r) => void (await upstream.linkCareContexts(r))) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    api = createFetchClient<paths>({ baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, headers: { authorization: `Bearer ${TOKEN}` } });
  });
  afterAll(async () => {
    await app.close();
    await mock.close();
  });

  it('is the committed one (npm run openapi-types regenerates it)', async () => {
    expect(await serveApiTypes()).toBe(readFileSync(SERVE_API_TYPES, 'utf8'));
  });

  it('drives search, OTP, verify and profile, then a submission to acknowledged, against the mock', async () => {
    const search = await api.POST('/v1/service/api/m1/abha/search/abha', { body: { mobile: '9000000001' } });
    expect(search.response.status).toBe(200);
    const found = search.data?.data?.[0];
    const txnId = found?.txnId ?? '';
    const loginId = String(found?.ABHA?.[0]?.index ?? 0);
    const otp = await api.POST('/v1/service/api/m1/abha/search/request/otp', { body: { scope: ['abha-login', 'mobile-verify'], loginHint: 'index', loginId, otpSystem: 'abdm', txnId } });
    expect(otp.data?.success).toBe(true);
    const verified = await api.POST('/v1/service/api/m1/abha/search/verify/otp', { body: { scope: ['abha-login', 'mobile-verify'], txnId, otp: '123456' } });
    const session = verified.data?.data?.token;
    expect(session).toEqual(expect.any(String));
    const profile = await api.POST('/v1/service/api/m1/abha/login/get-profile', { body: { token: session ?? '' } });
    expect(profile.data?.data?.ABHANumber).toMatch(/^\d{2}-\d{4}-\d{4}-\d{4}$/);

    const linkRequest = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.request.json'), 'utf8')) as SubmissionBody;
    const created = await api.POST('/v1/submissions', { body: linkRequest });
    expect(created.response.status).toBe(202);
    const id = created.data?.id ?? '';
    const got = await api.GET('/v1/submissions/{id}', { params: { path: { id } } });
    expect(got.data).toMatchObject({ id, status: 'acknowledged', attempts: 1 });
    expect(mock.stats().linked).toBe(1);

    const wrong = await api.POST('/v1/service/api/m1/abha/search/abha', { body: { mobile: '12' } });
    expect(wrong.response.status).toBe(422);
    expect(wrong.error?.issues[0]?.path).toBe('/mobile');
  });
});
