/**
 * The client against a hostile or broken server: local node:http servers (or
 * an injected fetch) that answer endlessly, with a compression bomb, with a
 * bearer token holding CR/LF/NUL, with redirects after processing, and with
 * `success: true` answers that contradict the request.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { createGzip } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { linkAnswerMismatches } from '../src/client/link-answer.js';
import { InvalidResponseError, NetworkError, OutcomeUnknownError, TransportError, createClient, memoryJournal, type FetchLike, type ItemResult } from '../src/client/index.js';
import type { LinkCareContextRequest } from '../src/index.js';
// Internals (not exported by abha-link/client), tested where they live.
import { sanitizeCause } from '../src/client/errors.js';
import { bearerTokenProblem } from '../src/client/token.js';
import { failure } from './support/failure.js';

const API_KEY = 'sk-hostile-planted-Vb81';
const base = JSON.parse(readFileSync(new URL('../examples/opd-prescription.request.json', import.meta.url), 'utf8')) as LinkCareContextRequest;
const request = (n: number): LinkCareContextRequest => ({ ...base, visitId: `OPD-H-${n}` });
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-hostile-'));
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  rmSync(tmp, { recursive: true, force: true });
});

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A loopback server: the token endpoint answers `token` (default a plain one), everything else goes to `handler`. */
async function serve(handler: Handler, token: string = 'hostile-test-token'): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      if (req.url === '/api/m1/abha/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: true, data: token }));
        return;
      }
      handler(req, res, body);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** Writes 64 KiB chunks as fast as the socket takes them until the client goes away; resolves `closed` then. */
function endless(res: ServerResponse, sent: { bytes: number }): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"success":true,"message":"');
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk)) sent.bytes += chunk.length;
  };
  res.on('drain', pump);
  pump();
}

/** `mib` MiB of spaces, gzip-compressed in a stream (a few hundred KB). */
function gzipBomb(mib: number): Promise<Buffer> {
  return new Promise((done) => {
    const gz = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gz.on('data', (d: Buffer) => parts.push(d));
    gz.on('end', () => done(Buffer.concat(parts)));
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let left = mib;
    const feed = (): void => {
      while (left > 0) {
        left--;
        if (!gz.write(chunk)) {
          gz.once('drain', feed);
          return;
        }
      }
      gz.end();
    };
    feed();
  });
}

describe('answers larger than maxResponseBytes', () => {
  it('stop reading an endless link answer and report it as outcome unknown, reason response-too-large', async () => {
    const sent = { bytes: 0 };
    let closed!: () => void;
    const connectionClosed = new Promise<void>((r) => (closed = r));
    let links = 0;
    const url = await serve((_req, res) => {
      links++;
      res.on('close', closed);
      endless(res, sent);
    });
    const c = createClient({ baseUrl: url, apiKey: API_KEY, maxResponseBytes: 256 * 1024, timeoutMs: 60_000 });
    const e = await failure(c.linkCareContexts(request(1)));
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(e).toMatchObject({ reason: 'response-too-large', status: 200 });
    expect(e.message).toContain('larger than 262144 bytes');
    // The client hung up: the server's endless writing stopped.
    await connectionClosed;
    expect(links).toBe(1);
  });

  it('stop reading a gzip bomb at the same cap, counted after decompression', async () => {
    const bomb = await gzipBomb(64);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    });
    const c = createClient({ baseUrl: url, apiKey: API_KEY, maxResponseBytes: 1024 * 1024 });
    const e = await failure(c.linkCareContexts(request(2)));
    expect(e).toMatchObject({ name: 'OutcomeUnknownError', reason: 'response-too-large' });
  });

  it('make a too-large answer to a read an InvalidResponseError (too-large), and refuse a declared length over the cap at once', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 10_000_000 });
      res.write('{"success":true,');
      // Never sends the rest: only the declared length can stop the client.
    });
    const c = createClient({ baseUrl: url, apiKey: API_KEY, maxResponseBytes: 4096, retry: false, timeoutMs: 60_000 });
    const e = await failure(c.searchAbha({ mobile: '9000000001' }));
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect((e as InvalidResponseError).issues[0]).toMatchObject({ path: '', code: 'too-large' });
  });

  it('still read answers up to the cap, whole', async () => {
    const message = 'x'.repeat(4000);
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, message, data: {} }));
    });
    const c = createClient({ baseUrl: url, apiKey: API_KEY, maxResponseBytes: 4100 });
    expect((await c.linkCareContexts(request(3))).message).toBe(message);
  });

  it('refuse a maxResponseBytes that is not a positive number, naming the option', () => {
    expect(() => createClient({ baseUrl: 'https://abha.example.org', apiKey: 'k', maxResponseBytes: 0 })).toThrow(/maxResponseBytes/);
    expect(() => createClient({ baseUrl: 'https://abha.example.org', apiKey: 'k', maxResponseBytes: Number.NaN })).toThrow(/maxResponseBytes/);
  });
});

/** Every text a log or a crash report could show of an error. */
const exposures = (e: unknown): string[] => [
  String(e),
  (e as Error).message,
  (e as Error).stack ?? '',
  inspect(e, { depth: Infinity, showHidden: true }),
  JSON.stringify(e),
  JSON.stringify((e as Error).cause ?? null),
];

describe('bearer tokens with CR, LF or NUL from the token endpoint', () => {
  const planted = ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.PLANTEDsig1\r\nx-injected: 1', 'PLANTED-token-two\n', 'PLANTED\u0000token-three', 'PLANTED token four'];

  it('are refused on receipt, never reach a header, and appear in no inspected or serialised error', async () => {
    for (const token of planted) {
      let links = 0;
      const url = await serve((_req, res) => {
        links++;
        res.end('{}');
      }, token);
      const c = createClient({ baseUrl: url, apiKey: API_KEY });
      const e = await failure(c.linkCareContexts(request(10)));
      expect(e, JSON.stringify(token)).toBeInstanceOf(InvalidResponseError);
      expect((e as InvalidResponseError).issues[0]).toMatchObject({ path: '/data', code: 'invalid-token' });
      expect(e.message).toContain('cannot be a bearer token');
      expect(links).toBe(0);
      const pieces = token.split(/[\r\n\u0000 ]/).filter((p) => p.length >= 6);
      for (const text of exposures(e)) for (const p of [token, ...pieces]) expect(text, `${JSON.stringify(token)} leaks`).not.toContain(p);
    }
  });

  it('make a batch record the item failed, not outcome unknown (nothing was sent)', async () => {
    let links = 0;
    const url = await serve((_req, res) => {
      links++;
      res.end('{}');
    }, planted[0]);
    const c = createClient({ baseUrl: url, apiKey: API_KEY });
    const results: ItemResult[] = [];
    const summary = await c.submitMany([request(11)], { onResult: (r) => void results.push(r) });
    expect(summary).toMatchObject({ failed: 1, unknown: 0 });
    expect(links).toBe(0);
  });

  it('are checked by shape and length: RFC 6750 token characters, at most 16384', () => {
    expect(bearerTokenProblem('eyJhbGciOiJIUzI1NiJ9.e30.c2ln')).toBeUndefined();
    expect(bearerTokenProblem('opaque-token_1.2~3+4/5==')).toBeUndefined();
    expect(bearerTokenProblem('a'.repeat(16385))).toMatch(/longer than 16384/);
    expect(bearerTokenProblem('')).toMatch(/no token/);
    expect(bearerTokenProblem(42)).toMatch(/no token/);
    expect(bearerTokenProblem('é')).toMatch(/characters/);
  });
});

describe('a request fetch refuses to build', () => {
  /** A fetch that adds a header value fetch itself refuses, holding a planted secret. */
  const refusing: FetchLike = (url, init) => fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-trace': 'PLANTED-secret-trace\r\nx: y' } });

  it('is a NetworkError request-refused (not sent), not outcome unknown, and keeps only the cause name', async () => {
    let links = 0;
    const url = await serve((_req, res) => {
      links++;
      res.end('{}');
    });
    const c = createClient({ baseUrl: url, apiKey: API_KEY, fetch: refusing });
    const e = await failure(c.linkCareContexts(request(20)));
    expect(e).toBeInstanceOf(NetworkError);
    expect(e).toMatchObject({ failure: 'request-refused' });
    expect(e.cause).toEqual({ name: 'TypeError' });
    expect(links).toBe(0);
    for (const text of exposures(e)) expect(text).not.toContain('PLANTED-secret-trace');
  });

  it('is journaled failed with reason request-refused by a batch', async () => {
    const c = createClient({ baseUrl: await serve((_req, res) => res.end('{}')), apiKey: API_KEY, fetch: refusing });
    const results: ItemResult[] = [];
    const summary = await c.submitMany([request(21)], { onResult: (r) => void results.push(r) });
    expect(summary).toMatchObject({ failed: 1, unknown: 0 });
    expect(results[0]?.outcome === 'failed' && results[0].error).toMatchObject({ failure: 'request-refused' });
  });
});

describe('underlying errors', () => {
  it('are kept as their class name and system code only, never their message', async () => {
    const secret = 'PLANTED-in-a-cause-message';
    const refused: FetchLike = () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ECONNREFUSED ${secret}`), { code: 'ECONNREFUSED', syscall: 'connect' }) }));
    const c = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: API_KEY, fetch: refused, retry: false });
    const e = await failure(c.searchAbha({ mobile: '9000000001' }));
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.cause).toEqual({ name: 'TypeError', code: 'ECONNREFUSED' });
    for (const text of exposures(e)) expect(text).not.toContain(secret);
    expect(sanitizeCause({ name: 'Bad name\r\nwith secret', code: 'lower-case secret' })).toEqual({ name: 'Error' });
  });
});

describe('a redirect answering the link call after processing', () => {
  it('is outcome unknown, so three runs on one journal link each item once', async () => {
    const linked = new Map<string, number>();
    const url = await serve((_req, res, body) => {
      // Processes the request, then redirects (303 See Other), as a gateway in front of the service might.
      const visitId = (JSON.parse(body) as LinkCareContextRequest).visitId;
      linked.set(visitId, (linked.get(visitId) ?? 0) + 1);
      res.writeHead(303, { location: '/elsewhere' });
      res.end();
    });
    const c = createClient({ baseUrl: url, apiKey: API_KEY });
    const journal = join(tmp, 'redirect.journal');
    const items = [request(30), request(31), request(32)];
    const runs = [];
    for (let run = 0; run < 3; run++) runs.push(await c.submitMany(items, { journal }));
    expect([...linked.values()]).toEqual([1, 1, 1]);
    expect(runs[0]).toMatchObject({ unknown: 3, failed: 0 });
    expect(runs[2]).toMatchObject({ unknown: 0, unknownEarlier: 3, failed: 0 });
  });

  it('is a OutcomeUnknownError with reason redirect for a single call', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(303, { location: '/elsewhere' });
      res.end();
    });
    const e = await failure(createClient({ baseUrl: url, apiKey: API_KEY }).linkCareContexts(request(33)));
    expect(e).toMatchObject({ name: 'OutcomeUnknownError', reason: 'redirect', status: 303 });
  });
});

describe('a success: true link answer that contradicts the request', () => {
  const twoContexts: LinkCareContextRequest = {
    ...request(40),
    careContexts: [base.careContexts[0]!, { ...base.careContexts[0]!, referenceNumber: 'OPD-H-40-second' }],
  };
  const refs = twoContexts.careContexts.map((c) => c.referenceNumber);
  const answering = async (data: unknown): Promise<ReturnType<typeof createClient>> =>
    createClient({
      baseUrl: await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, message: 'done', data }));
      }),
      apiKey: API_KEY,
    });

  it('resolves with mismatches when a care context is reported FAILED', async () => {
    const c = await answering({
      careContexts: [
        { referenceNumber: refs[0], status: 'LINKED' },
        { referenceNumber: refs[1], status: 'FAILED' },
      ],
    });
    const r = await c.linkCareContexts(twoContexts);
    expect(r.success).toBe(true);
    expect(r.mismatches).toEqual([expect.objectContaining({ path: '/data/careContexts/1/status', code: 'care-context-not-linked', severity: 'warning' })]);
  });

  it('resolves with mismatches when the answer names other references, and says which of the request are missing', async () => {
    const other = 'SOMEONE-ELSES-REF-99';
    const c = await answering({
      careContexts: [
        { referenceNumber: refs[0], status: 'LINKED' },
        { referenceNumber: other, status: 'LINKED' },
      ],
    });
    const r = await c.linkCareContexts(twoContexts);
    expect(r.mismatches?.map((m) => [m.path, m.code])).toEqual([
      ['/data/careContexts/1/referenceNumber', 'care-context-not-requested'],
      ['/careContexts/1', 'care-context-missing'],
    ]);
    // Paths and codes only: no reference from either side in a message.
    for (const m of r.mismatches ?? []) for (const v of [other, ...refs]) expect(m.message).not.toContain(v);
  });

  it('has no mismatches when the answer agrees or lists no care contexts', async () => {
    const agreeing = await answering({ careContexts: refs.map((referenceNumber) => ({ referenceNumber, status: 'linked' })) });
    expect((await agreeing.linkCareContexts(twoContexts)).mismatches).toBeUndefined();
    const silent = await answering({});
    expect(await silent.linkCareContexts(twoContexts)).toEqual({ success: true, message: 'done', data: {} });
    expect(linkAnswerMismatches(twoContexts, null)).toBeUndefined();
    expect(linkAnswerMismatches(twoContexts, { careContexts: 'all of them' })?.[0]).toMatchObject({ code: 'care-context-unreadable' });
  });
  it('counts such an item in the batch summary: acknowledged (never sent again), with its mismatches on the result and in the journal as a reason code', async () => {
    // Answers each request with its own care contexts, all LINKED but the second reference of twoContexts.
    const c = createClient({
      baseUrl: await serve((_req, res, body) => {
        const sent = JSON.parse(body) as LinkCareContextRequest;
        const careContexts = sent.careContexts.map(({ referenceNumber }) => ({ referenceNumber, status: referenceNumber === refs[1] ? 'FAILED' : 'LINKED' }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, message: 'done', data: { careContexts } }));
      }),
      apiKey: API_KEY,
    });
    const journal = memoryJournal();
    const results: ItemResult[] = [];
    const summary = await c.submitMany([twoContexts, request(41)], { journal, onResult: (r) => void results.push(r) });
    expect(summary).toMatchObject({ total: 2, acknowledged: 2, mismatches: 1, failed: 0, unknown: 0 });
    const flagged = results.find((r) => r.index === 0);
    expect(flagged).toMatchObject({ outcome: 'acknowledged', mismatches: [expect.objectContaining({ code: 'care-context-not-linked' })] });
    expect(results.find((r) => r.index === 1)).not.toHaveProperty('mismatches');
    expect(journal.entries.filter((e) => e.state === 'acknowledged').map((e) => e.reason)).toEqual(expect.arrayContaining(['answer-mismatch', undefined]));
    for (const e of journal.entries) for (const v of refs) expect(JSON.stringify(e)).not.toContain(v);
  });
});

describe('typed success results at run time', () => {
  it('refuse a success: true answer without the data the spec shows (a read): InvalidResponseError at /data', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, message: 'ok' }));
    });
    const e = await failure(createClient({ baseUrl: url, apiKey: API_KEY, retry: false }).getProfile({ token: 'x' as never }));
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect((e as InvalidResponseError).issues[0]).toMatchObject({ path: '/data', code: 'required' });
  });

  it('refuse an OTP answer with success: true and no data, saying it was processed', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, message: 'verified' }));
    });
    const e = await failure(createClient({ baseUrl: url, apiKey: API_KEY }).verifyOtp({ scope: ['abha-login'], txnId: 't', otp: '123456' }));
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect(e.message).toContain('the request was processed');
    expect(e).toBeInstanceOf(TransportError);
  });
});
