/**
 * The HTTP edge of `abha-link serve` under attack (issue 20): the token
 * decided on the matched route whatever the spelling of the path, requests
 * a web page can make (another Origin, a DNS-rebinding Host, a text/plain
 * body) refused, no lock-out by connections that never finish their body,
 * readiness that cannot be used to make the server call upstream, bodies
 * read as strict UTF-8, and a Chromium child without the server's secrets.
 * Requests go over real sockets (node:http, node:net) where the spelling of
 * the request line matters: fastify's inject would normalise it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createClient } from '../src/client/client.js';
import { startMockServer, type MockServer } from '../src/mock/server.js';
import { chromiumEnvironment, createPdfPrinter, findChromium } from '../src/render/pdf.js';
import { createServeApp, type ServeAppOptions } from '../src/serve/app.js';
import { hostAllowed, normalizeTarget, pathProblem, sameOrigin } from '../src/serve/request-guard.js';
import { sharedCheck } from '../src/serve/routes-ops.js';
import { fakeQueue } from './support/fake-queue.js';
import { until } from './support/cli-process.js';
import { runInProcess } from './support/run-cli.js';

const TOKEN = 'security-test-token-5d1f0a9c7e3b2846';
const NOW = new Date('2026-11-24T10:00:00+05:30');
const request = JSON.parse(readFileSync(new URL('../examples/opd-prescription.request.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const json = { 'content-type': 'application/json' };
const auth = { authorization: `Bearer ${TOKEN}`, ...json };
/** The ceiling of the tests that start a process, a browser or 70 connections (a loaded machine is slow; nothing waits on it). */
const SLOW = 120_000;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over a socket, its target sent exactly as given. */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A server listening on 127.0.0.1, with the token unless `token` is null. */
async function listening(options: Partial<ServeAppOptions>, token: string | null = TOKEN): Promise<{ app: FastifyInstance; port: number }> {
  const app = await createServeApp({ now: () => NOW, queue: fakeQueue(), ...(token === null ? {} : { token }), ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, port: (app.server.address() as AddressInfo).port };
}

/** Every spelling of a /v1 path that a router or a proxy could take for it. */
function spellings(path: string): string[] {
  const rest = path.slice('/v1'.length);
  const upper = path.replace(/[a-z]/, (c) => c.toUpperCase());
  return [
    `/%761${rest}`,
    `/%76%31${rest}`,
    `/v%31${rest}`,
    `/%56%31${rest}`,
    `/V1${rest}`,
    upper,
    `//v1${rest}`,
    `/v1/${rest}`,
    `/v1/../v1${rest}`,
    `/v1/%2e%2e/v1${rest}`,
    `/./v1${rest}`,
    `/v1/.${rest}`,
    `${path}/`,
    `/v1%2F${rest.slice(1)}`,
    `/v1%2f${rest.slice(1)}`,
    path.replace(/\/([a-z])/g, (_, c: string) => `/%${c.charCodeAt(0).toString(16)}`),
  ];
}

describe('serve security: the token is decided on the matched route', () => {
  let mock: MockServer;
  let app: FastifyInstance;
  let port = 0;
  beforeAll(async () => {
    mock = await startMockServer();
    ({ app, port } = await listening({ client: createClient({ baseUrl: mock.url, apiKey: mock.apiKey, retry: false }) }));
  });
  afterAll(async () => {
    await app.close();
    await mock.close();
  });

  it('answers every operation of the OpenAPI document, spelled any other way and without the token, with 400, 401 or 404, never 2xx', async () => {
    const doc = JSON.parse((await send(port, 'GET', '/openapi.json')).body) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ path: path.replace('{id}', 'x'), method: method.toUpperCase() })));
    expect(operations.length).toBeGreaterThan(15);
    const admitted: string[] = [];
    let tried = 0;
    for (const op of operations.filter((o) => o.path.startsWith('/v1'))) {
      const body = op.method === 'POST' ? JSON.stringify(op.path.endsWith('/search/abha') ? { mobile: '9000000001' } : request) : undefined;
      for (const target of [op.path, ...spellings(op.path)]) {
        const r = await send(port, op.method, target, json, body);
        tried++;
        if (![400, 401, 404].includes(r.status)) admitted.push(`${op.method} ${target}: ${r.status}`);
      }
    }
    expect(tried).toBeGreaterThan(200);
    expect(admitted).toEqual([]);
    expect(mock.stats().requests['search-abha'] ?? 0).toBe(0);
  });

  it('serves exactly the operations the OpenAPI document declares public without the token, and the others with it under their plain spelling', async () => {
    const doc = JSON.parse((await send(port, 'GET', '/openapi.json')).body) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const open = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).flatMap(([method, op]) => (op.security?.length === 0 ? [`${method.toUpperCase()} ${path}`] : [])));
    expect(open.sort()).toEqual(['GET /', 'GET /healthz', 'GET /openapi.json', 'GET /readyz']);
    for (const path of ['/healthz', '/readyz', '/openapi.json', '/']) expect((await send(port, 'GET', path)).status, path).toBe(200);
    expect((await send(port, 'GET', '/metrics')).status).toBe(401);
    expect((await send(port, 'GET', '/metrics', auth)).status).toBe(200);
    expect((await send(port, 'POST', '/%76%31/validate', auth, JSON.stringify(request))).status).toBe(200);
    const dots = await send(port, 'GET', '/v1/../v1/submissions', auth);
    expect(dots.status).toBe(400);
    expect(JSON.parse(dots.body)).toMatchObject({ issues: [{ code: 'invalid-path', in: 'path' }] });
  });

  it('normalises percent-encoded unreserved characters and names the spellings it refuses', () => {
    expect(normalizeTarget('/%76%31/submissions?x=%76')).toBe('/v1/submissions?x=%76');
    expect(normalizeTarget('/v1/submissions/a%2Fb%20c')).toBe('/v1/submissions/a%2Fb%20c');
    expect(pathProblem('/v1/submissions/a%2Fb')).toMatch(/encoded "\/"/);
    expect(pathProblem(normalizeTarget('/v1/%2e%2e/x'))).toMatch(/"\.\." segment/);
    expect(pathProblem('//v1/submissions')).toMatch(/empty segment/);
    expect(pathProblem('/v1/submissions?next=/../x')).toBeUndefined();
  });
});

describe('serve security: a web page cannot use the service', () => {
  let app: FastifyInstance;
  let port = 0;
  beforeAll(async () => {
    ({ app, port } = await listening({ allowedHosts: ['abha.hospital.internal'] }, null));
  });
  afterAll(() => app.close());

  it('refuses a foreign Host (DNS rebinding) with 421 on every route, and takes loopback names, the address and allowed names', async () => {
    for (const host of ['attacker.example', `attacker.example:${port}`, `rebind.127.0.0.1.nip.io:${port}`, '10.1.2.3']) {
      const r = await send(port, 'GET', '/v1/submissions', { host });
      expect(r.status, host).toBe(421);
      expect(JSON.parse(r.body)).toMatchObject({ issues: [{ code: 'host-not-allowed', in: 'header', path: '/host', message: expect.stringContaining('--allowed-host') }] });
      expect((await send(port, 'GET', '/openapi.json', { host })).status).toBe(421);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'abha.hospital.internal', 'ABHA.Hospital.Internal.:443']) {
      expect((await send(port, 'GET', '/v1/submissions', { host })).status, host).toBe(200);
    }
  });

  it('refuses a request from another origin with 403, and answers no preflight', async () => {
    const post = (origin: string) => send(port, 'POST', '/v1/submissions', { origin, ...json }, JSON.stringify({ ...request, visitId: 'ORIGIN-1' }));
    for (const origin of ['https://attacker.example', `http://localhost:${port + 1}`, 'null', `https://127.0.0.1:${port}.attacker.example`]) {
      const r = await post(origin);
      expect(r.status, origin).toBe(403);
      expect(JSON.parse(r.body)).toMatchObject({ issues: [{ code: 'origin-not-allowed', path: '/origin' }] });
    }
    expect((await post(`http://127.0.0.1:${port}`)).status).toBe(202);
    const preflight = await send(port, 'OPTIONS', '/v1/submissions', { origin: 'https://attacker.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' });
    expect(preflight.status).toBeGreaterThanOrEqual(400);
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('refuses a body that is not declared JSON with 415 (a simple cross-origin request cannot declare it)', async () => {
    const body = JSON.stringify({ ...request, visitId: 'TEXT-1' });
    for (const type of ['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await send(port, 'POST', '/v1/submissions', { 'content-type': type }, body);
      expect(r.status, type).toBe(415);
      expect(JSON.parse(r.body)).toMatchObject({ issues: [{ code: 'unsupported-media-type', path: '/content-type' }] });
    }
    expect((await send(port, 'POST', '/v1/submissions', {}, body)).status).toBe(415);
    expect((await send(port, 'POST', '/v1/validate', { 'content-type': 'application/vnd.hms+json; charset=utf-8' }, body)).status).toBe(200);
    expect((await send(port, 'POST', '/v1/submissions/none/retry')).status).toBe(404);
  });

  it('decides Host and Origin as pure functions: wildcard listening takes this machine’s addresses only', () => {
    const policy = { listenHost: '0.0.0.0', allowedHosts: [], localAddresses: () => new Set(['192.168.1.20']) };
    expect(hostAllowed('192.168.1.20:8080', policy)).toBe(true);
    expect(hostAllowed('192.168.1.21:8080', policy)).toBe(false);
    expect(hostAllowed(undefined, policy)).toBe(false);
    expect(hostAllowed('a b', policy)).toBe(false);
    expect(sameOrigin('https://abha.hospital.internal', 'abha.hospital.internal')).toBe(true);
    expect(sameOrigin('http://abha.hospital.internal:3000', 'abha.hospital.internal')).toBe(false);
    expect(sameOrigin(undefined, 'x')).toBe(true);
  });
});

describe('serve security: the CLI refuses a short token beyond loopback', () => {
  it(
    'exits 2 on --host 0.0.0.0 with a token under 32 characters, saying how to make one',
    async () => {
      const r = await runInProcess(['serve', '--host', '0.0.0.0', '--port', '0'], { env: { ABHA_LINK_SERVE_TOKEN: 'x', ABHA_LINK_BASE_URL: undefined } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/1 characters: it needs at least 32 .*urandom/);
      expect(r.stderr).not.toContain('x\n');
      expect(r.stdout).toBe('');
    },
    SLOW,
  );

  it(
    'refuses a bad --allowed-host and time-outs out of range',
    async () => {
      const env = { ABHA_LINK_SERVE_TOKEN: TOKEN, ABHA_LINK_BASE_URL: undefined };
      expect((await runInProcess(['serve', '--port', '0', '--allowed-host', 'http://x/'], { env })).stderr).toContain('--allowed-host must be a host name');
      expect((await runInProcess(['serve', '--port', '0', '--request-timeout', '0'], { env })).stderr).toContain('--request-timeout must be a number of seconds');
      expect((await runInProcess(['serve', '--port', '0', '--headers-timeout', '20', '--request-timeout', '10'], { env })).stderr).toContain('--headers-timeout must be at most');
    },
    SLOW,
  );
});

describe('serve security: no lock-out', () => {
  it(
    'keeps /healthz and authorised requests answering while 70 connections hold half a body, and closes those at the time-out',
    async () => {
      const { app, port } = await listening({ timeouts: { headersMs: 1000, requestMs: 1500, keepAliveMs: 1000 } });
      let accepted = 0;
      app.server.on('connection', () => accepted++);
      const closed = new Set<Socket>();
      const answers: string[] = [];
      const sockets = Array.from({ length: 70 }, () => {
        const s = connect(port, '127.0.0.1');
        s.on('error', () => undefined);
        s.on('data', (d: Buffer) => answers.push(d.toString('latin1').split('\r\n')[0] ?? ''));
        s.on('close', () => closed.add(s));
        s.write(`POST /v1/validate HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
        return s;
      });
      await until(() => accepted >= 70);
      const health: number[] = [];
      const authorised: number[] = [];
      while (closed.size < sockets.length) {
        health.push((await send(port, 'GET', '/healthz')).status);
        if (authorised.length < 3) authorised.push((await send(port, 'POST', '/v1/validate', auth, JSON.stringify(request))).status);
        if (health.length > 5000) break;
      }
      expect(closed.size).toBe(70);
      expect(answers.filter((a) => a !== '').every((a) => a.startsWith('HTTP/1.1 408'))).toBe(true);
      expect(new Set(health)).toEqual(new Set([200]));
      expect(authorised).toEqual([200, 200, 200]);
      expect((await send(port, 'POST', '/v1/validate', auth, JSON.stringify(request))).status).toBe(200);
      await app.close();
    },
    SLOW,
  );

  it('counts only authorised work in the concurrency limit, and never refuses /healthz', async () => {
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let entered = false;
    const base = fakeQueue();
    const app = await createServeApp({
      token: TOKEN,
      now: () => NOW,
      maxConcurrent: 1,
      queue: {
        ...base,
        enqueue: async (r, o) => {
          entered = true;
          await gate;
          return base.enqueue(r, o);
        },
      },
    });
    const held = app.inject({ method: 'POST', url: '/v1/submissions', headers: auth, payload: request });
    await until(() => entered);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/v1/validate', headers: json, payload: request })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/v1/validate', headers: auth, payload: request })).statusCode).toBe(503);
    release();
    expect((await held).statusCode).toBe(202);
    await app.close();
  });

  it('answers unauthenticated /readyz from one shared, recent check: 40 of them make one upstream probe', async () => {
    let probes = 0;
    const app = await createServeApp({
      token: TOKEN,
      now: () => NOW,
      probeUpstream: async () => {
        probes++;
        return true;
      },
    });
    const answers = await Promise.all(Array.from({ length: 40 }, () => app.inject({ method: 'GET', url: '/readyz' })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: 40 }, () => 200));
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect(probes).toBe(1);
    expect((await app.inject({ method: 'GET', url: '/readyz', headers: auth })).statusCode).toBe(200);
    expect(probes).toBe(2);
    await app.close();
  });

  it('shares one check among callers and keeps its result for the age asked', async () => {
    let now = 0;
    let runs = 0;
    const check = sharedCheck(
      async () => ++runs,
      () => now,
    );
    expect(await Promise.all([check(5000), check(5000)])).toEqual([1, 1]);
    now = 4999;
    expect(await check(5000)).toBe(1);
    now = 5000;
    expect(await check(5000)).toBe(2);
    expect(await check(0)).toBe(3);
  });
});

describe('serve security: bodies are strict UTF-8', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await createServeApp({ token: TOKEN, now: () => NOW });
  });
  afterAll(() => app.close());
  const post = (payload: Buffer) => app.inject({ method: 'POST', url: '/v1/validate', headers: auth, payload });

  it('refuses invalid UTF-8 with 400 naming the byte offset, without quoting the body', async () => {
    const bytes = Buffer.concat([Buffer.from('{"abhaAddress":"98765'), Buffer.from([0xc3, 0x28]), Buffer.from('43210@sbx"}')]);
    const r = await post(bytes);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ issues: [{ path: '', code: 'invalid-utf8', message: expect.stringContaining('byte 21'), severity: 'error' }] });
    expect(r.body).not.toContain('98765');
  });

  it('refuses UTF-16, and takes UTF-8 with a byte-order mark', async () => {
    expect((await post(Buffer.from('\ufeff{}', 'utf16le'))).json()).toMatchObject({ issues: [{ code: 'invalid-utf8', message: expect.stringContaining('UTF-16') }] });
    expect((await post(Buffer.from('\ufeff{"a":"\u0928"}', 'utf8'))).statusCode).toBe(200);
  });
});

const CHROMIUM = findChromium();
const NO_CHROMIUM = CHROMIUM === undefined ? ' [skipped: no Chromium in the usual places (findChromium); apt-get install chromium to run it]' : '';

/** The processes below `pid`, read from /proc. */
function descendants(pid: number): number[] {
  const parentOf = (p: string): number => Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
  const all: { pid: number; ppid: number }[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      all.push({ pid: Number(p), ppid: parentOf(p) });
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (parent: number): void => {
    for (const c of all.filter((x) => x.ppid === parent)) {
      out.push(c.pid);
      walk(c.pid);
    }
  };
  walk(pid);
  return out;
}

describe('serve security: the Chromium child gets no secrets', () => {
  const secrets = {
    ABHA_LINK_SERVE_TOKEN: 'canary-serve-token-1',
    ABHA_LINK_API_KEY: 'canary-api-key-2',
    ABHA_LINK_CALLBACK_SECRET: 'canary-callback-3',
    DATABASE_URL: 'postgres://u:canary-db-4@h/db',
  };

  it('keeps what the browser needs and drops every ABHA_LINK_* variable, token, key and database URL', () => {
    const env = chromiumEnvironment({ PATH: '/usr/bin', HOME: '/home/h', LANG: 'en_IN.UTF-8', LC_ALL: 'C.UTF-8', FONTCONFIG_PATH: '/etc/fonts', ...secrets, ABHA_LINK_CHROMIUM: '/usr/bin/chromium' });
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/h', LANG: 'en_IN.UTF-8', LC_ALL: 'C.UTF-8', FONTCONFIG_PATH: '/etc/fonts' });
  });

  it.skipIf(CHROMIUM === undefined || process.platform !== 'linux')(
    `launches a Chromium whose processes hold none of them (/proc/PID/environ)${NO_CHROMIUM}`,
    async () => {
      // As in `serve`: the secrets are in this process's environment, and the printer is made without saying anything about it.
      const saved = Object.fromEntries(Object.keys(secrets).map((k) => [k, process.env[k]]));
      Object.assign(process.env, secrets);
      let printer: Awaited<ReturnType<typeof createPdfPrinter>>;
      try {
        printer = await createPdfPrinter();
      } finally {
        for (const [k, v] of Object.entries(saved)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
      }
      try {
        const children = descendants(process.pid).filter((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('chrom');
          } catch {
            return false;
          }
        });
        expect(children.length).toBeGreaterThan(0);
        const environs = children.map((p) => {
          try {
            return readFileSync(`/proc/${p}/environ`, 'utf8');
          } catch {
            return '';
          }
        });
        expect(environs.some((e) => e.includes('PATH='))).toBe(true);
        for (const value of Object.values(secrets)) expect(environs.filter((e) => e.includes(value))).toEqual([]);
      } finally {
        await printer.close();
      }
    },
    SLOW,
  );
});
