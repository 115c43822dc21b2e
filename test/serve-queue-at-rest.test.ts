/**
 * The queue's data at rest (issue 20, items 4, 6 and 7): the data directory
 * and its files private to the service's user whatever the umask; link
 * requests encrypted in the embedded store and in PostgreSQL, and gone once
 * acknowledged (canaries planted in submissions are found in no file of the
 * data directory and in no pg_dump); the data key file; the lock of a data
 * directory; a changed body under one item key (409), a corrected body for a
 * failed item (PUT), a retry that sends exactly what is stored; and a
 * storage outage answered 503 with Retry-After.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { LinkCareContextRequest } from '../src/generated/types.js';
import type { MockServer } from '../src/mock/index.js';
import { createServeApp } from '../src/serve/app.js';
import { bodySha256 } from '../src/serve/queue/queue.js';
import { openQueue, type Queue, type QueueOptions, type Submission } from '../src/serve/queue/index.js';
import { startCli } from './support/cli-process.js';
import { exampleRequest, mockSuite } from './support/mock-suite.js';
import { untilValue } from './support/poll.js';
import { postgresBin, postgresForFile } from './support/postgres.js';

const API_KEY = 'sk-at-rest-planted-Q2w9';
const TOKEN = 'at-rest-token-5b81';
let mock: MockServer;
const { tmp } = mockSuite(API_KEY, 'abha-link-at-rest-', (m) => (mock = m));

/** Canaries: what must never be readable at rest. */
const CANARY = { abha: 'canary.zq7731@sbx', mobile: '9812375461', diagnosis: 'Zyxomatosis canaria' };

/** A valid link request carrying the canaries, told apart by `tag`. */
function canaryRequest(tag: string): LinkCareContextRequest {
  const cc = exampleRequest.careContexts[0];
  if (cc === undefined) throw new Error('the example has a care context');
  const bundle = cc.bundleData as unknown as Record<string, unknown> & { hospital: Record<string, unknown>; diagnosis?: unknown[] };
  return {
    ...exampleRequest,
    abhaAddress: CANARY.abha,
    visitId: `OPD-REST-${tag}`,
    careContexts: [
      {
        ...cc,
        referenceNumber: `OPD-REST-${tag}-Prescription`,
        bundleData: {
          ...bundle,
          hospital: { ...bundle.hospital, phone: CANARY.mobile },
          diagnosis: [{ diagnosisName: CANARY.diagnosis, status: 'confirmed' }, ...(bundle.diagnosis ?? [])],
        },
      } as typeof cc,
    ],
  };
}

/** Every file under `dir` (recursively). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

/** The canaries found, binary-safe, in the files under `dir` (`file: canary`). */
function canariesIn(dir: string): string[] {
  const found: string[] = [];
  for (const f of filesUnder(dir)) {
    const bytes = readFileSync(f);
    for (const c of Object.values(CANARY)) if (bytes.includes(Buffer.from(c, 'utf8'))) found.push(`${f}: ${c}`);
  }
  return found;
}

/** Files and folders under `dir` (itself included) that another user could read. */
function notPrivate(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string): void => {
    const st = lstatSync(p);
    if ((st.mode & 0o077) !== 0) out.push(`${p} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
  };
  walk(dir);
  return out;
}

const final = (q: Queue, id: string): Promise<Submission> =>
  untilValue(
    async () => {
      const s = await q.get(id);
      return s !== undefined && s.status !== 'queued' && s.status !== 'sending' ? s : undefined;
    },
    `submission ${id} to end`,
    30_000,
  );

/** The link requests the client sent to the mock, as parsed JSON, in order. */
const sentBodies: unknown[] = [];
const clientOptions = (): QueueOptions['client'] => ({
  baseUrl: mock.url,
  apiKey: API_KEY,
  retry: { baseDelayMs: 1, maxDelayMs: 2 },
  fetch: (input, init) => {
    if (input.endsWith('/link-carecontext') && typeof init?.body === 'string') sentBodies.push(JSON.parse(init.body));
    return fetch(input, init);
  },
});

const postgres = postgresForFile();
const noPostgres = postgres.missing;

describe('the embedded store at rest', () => {
  it('keeps the data directory 0700 and its files 0600 under umask 022, and no canary readable in any file, pending or acknowledged', async () => {
    const dir = join(tmp, 'embedded');
    const before = process.umask(0o022);
    try {
      let queue = await openQueue({ dataDir: dir, client: clientOptions(), concurrency: 2 });
      const ids: string[] = [];
      for (const tag of ['a', 'b', 'c']) ids.push((await queue.enqueue(canaryRequest(`emb-${tag}`))).submission.id);
      await queue.close();
      // Pending: stored, encrypted.
      expect(canariesIn(dir)).toEqual([]);
      expect(notPrivate(dir)).toEqual([]);
      expect(statSync(`${dir}.key`).mode & 0o777).toBe(0o600);
      queue = await openQueue({ dataDir: dir, client: clientOptions(), concurrency: 2 });
      queue.start();
      for (const id of ids) expect(await final(queue, id)).toMatchObject({ status: 'acknowledged' });
      await queue.close();
      // The canaries went out (so they were there to find), and none is left at rest.
      expect(JSON.stringify(sentBodies)).toContain(CANARY.diagnosis);
      expect(canariesIn(dir)).toEqual([]);
      expect(notPrivate(dir)).toEqual([]);
    } finally {
      process.umask(before);
    }
    // Two first starts of an embedded store (its initdb) on a shared, loaded machine.
  }, 600_000);

  it('refuses a data directory other users can read, naming the fix, and makes files of older versions private', async () => {
    const open = join(tmp, 'open-dir');
    mkdirSync(open, { mode: 0o755 });
    chmodSync(open, 0o755);
    const e = await openQueue({ dataDir: open, client: clientOptions() }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'data-dir-unsafe' });
    expect((e as Error).message).toContain(`chmod 700 ${open}`);
    chmodSync(open, 0o700);
    writeFileSync(join(open, 'left-by-an-older-version'), 'x', { mode: 0o644 });
    chmodSync(join(open, 'left-by-an-older-version'), 0o644);
    await (await openQueue({ dataDir: open, client: clientOptions() })).close();
    expect(notPrivate(open)).toEqual([]);
  }, 600_000);

  it('refuses a key file others can read, one inside the data directory, and a key that is not 32 bytes', async () => {
    const dir = join(tmp, 'keys');
    const shared = join(tmp, 'shared.key');
    writeFileSync(shared, `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o644 });
    chmodSync(shared, 0o644);
    await expect(openQueue({ dataDir: dir, dataKeyFile: shared, client: clientOptions() })).rejects.toMatchObject({
      code: 'invalid-data-key',
      message: expect.stringContaining(`chmod 600 ${shared}`),
    });
    await expect(openQueue({ dataDir: dir, dataKeyFile: join(dir, 'inside.key'), client: clientOptions() })).rejects.toMatchObject({
      code: 'invalid-data-key',
      message: expect.stringContaining('inside the data directory'),
    });
    await expect(openQueue({ dataDir: dir, dataKeys: [Buffer.alloc(16)], client: clientOptions() })).rejects.toMatchObject({ code: 'invalid-data-key' });
  });
});

describe.skipIf(noPostgres !== undefined)(`PostgreSQL at rest${noPostgres === undefined ? '' : ` (skipped: ${noPostgres})`}`, () => {
  const dump = (name: string): string => {
    const bin = postgresBin();
    const server = postgres.get();
    if (server === undefined || bin === undefined) throw new Error('no PostgreSQL');
    return execFileSync(join(bin, 'pg_dump'), ['--data-only', server.url(name)], { maxBuffer: 64 * 1024 * 1024 }).toString('latin1');
  };
  const inDump = (text: string): string[] => Object.values(CANARY).filter((c) => text.includes(c));

  it('holds no canary in a pg_dump while pending (encrypted) nor once acknowledged (deleted)', async () => {
    postgres.get()?.createDatabase('rest');
    const url = postgres.get()?.url('rest') ?? '';
    let queue = await openQueue({ dataDir: join(tmp, 'pg-a'), databaseUrl: url, client: clientOptions() });
    const ids: string[] = [];
    for (const tag of ['a', 'b']) ids.push((await queue.enqueue(canaryRequest(`pg-${tag}`))).submission.id);
    const pending = dump('rest');
    expect(pending).toContain('abha_link_submissions');
    expect(inDump(pending)).toEqual([]);
    await queue.close();
    queue = await openQueue({ dataDir: join(tmp, 'pg-a'), databaseUrl: url, client: clientOptions() });
    queue.start();
    for (const id of ids) expect(await final(queue, id)).toMatchObject({ status: 'acknowledged' });
    await queue.close();
    const done = dump('rest');
    expect(inDump(done)).toEqual([]);
    // Acknowledged: no body left at all, only its hash.
    const rows = execFileSync(join(postgresBin() ?? '', 'psql'), [url, '-Atc', 'SELECT count(*) FROM abha_link_submissions WHERE body IS NOT NULL OR request IS NOT NULL'])
      .toString()
      .trim();
    expect(rows).toBe('0');
  }, 120_000);
});

describe('the lock of a data directory', () => {
  it('takes over a lock naming a dead process, or a live process that is not its holder; refuses a running server, naming its pid (exit 2)', async () => {
    const dir = join(tmp, 'locks');
    await (await openQueue({ dataDir: dir, client: clientOptions() })).close();
    // A live process that did not write the lock: its start time differs (pid reuse), or an old lock names a program that is not abha-link.
    const unrelated = execFileSync('sh', ['-c', 'sleep 300 >/dev/null 2>&1 & echo $!']).toString().trim();
    try {
      writeFileSync(join(dir, 'queue.lock'), `${unrelated} an-old-lock\n`);
      await (await openQueue({ dataDir: dir, client: clientOptions() })).close();
      writeFileSync(join(dir, 'queue.lock'), `${process.ppid} a-reused-pid 1\n`);
      await (await openQueue({ dataDir: dir, client: clientOptions() })).close();
    } finally {
      process.kill(Number(unrelated), 'SIGKILL');
    }
    const env = { ABHA_LINK_SERVE_TOKEN: TOKEN, ABHA_LINK_BASE_URL: mock.url, ABHA_LINK_API_KEY: API_KEY };
    const first = startCli(['serve', '--port', '0', '--data', dir], env);
    try {
      // The first start of an embedded store takes a while on a loaded machine.
      await untilValue(async () => (first.out().includes('\n') || first.child.exitCode !== null ? true : undefined), 'the first server to listen', 120_000);
      expect(first.out(), first.err()).toMatch(/^listening on /);
      const second = await startCli(['serve', '--port', '0', '--data', dir], env).done;
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`in use by process ${first.child.pid}`);
    } finally {
      first.child.kill('SIGTERM');
      await first.done;
    }
  }, 600_000);
});

describe('submissions over HTTP on the real queue', () => {
  let queue: Queue;
  let app: FastifyInstance;
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  beforeAll(async () => {
    queue = await openQueue({ dataDir: join(tmp, 'http'), client: clientOptions(), pollMs: 20 });
    queue.start();
    app = await createServeApp({ token: TOKEN, now: () => new Date('2026-11-24T10:00:00+05:30'), queue });
  }, 600_000);
  afterAll(async () => {
    await app?.close();
    await queue?.close();
  });
  const post = (url: string, body: unknown, method: 'POST' | 'PUT' = 'POST') => app.inject({ method, url, headers: auth, payload: JSON.stringify(body) });

  it('answers the same item with another body 409 different-body, with the stored body hash and never its content', async () => {
    const first = canaryRequest('dup');
    const r1 = await post('/v1/submissions', first);
    expect(r1.statusCode).toBe(202);
    expect((await post('/v1/submissions', first)).statusCode).toBe(200);
    const changed = { ...first, hospitalName: 'Another Clinic Name' };
    const r2 = await post('/v1/submissions', changed);
    expect(r2.statusCode).toBe(409);
    expect(r2.json()).toMatchObject({ storedBodySha256: bodySha256(first), issues: [{ code: 'different-body' }] });
    expect(bodySha256(first)).toBe(createHash('sha256').update(canonical(first)).digest('hex'));
    for (const c of Object.values(CANARY)) expect(r2.body).not.toContain(c);
  });

  it('replaces a failed submission with PUT and sends the corrected body; retry sends exactly what is stored', async () => {
    mock.faults.add({ endpoint: 'link-carecontext', times: Infinity, fault: { type: 'status', status: 400 } });
    const original = canaryRequest('fix');
    const id = String((await post('/v1/submissions', original)).json().id);
    expect(await final(queue, id)).toMatchObject({ status: 'failed' });
    sentBodies.length = 0;
    // Retry: the very body stored, byte for byte the same request (it fails again).
    expect((await app.inject({ method: 'POST', url: `/v1/submissions/${id}/retry`, headers: auth })).statusCode).toBe(200);
    expect(await final(queue, id)).toMatchObject({ status: 'failed' });
    expect(sentBodies).toEqual([original]);
    // Another item is not a correction of this one; an unknown id is 404.
    expect((await post(`/v1/submissions/${id}`, canaryRequest('other'), 'PUT')).json()).toMatchObject({ issues: [{ code: 'different-item' }] });
    expect((await post('/v1/submissions/00000000-0000-4000-8000-000000000000', original, 'PUT')).statusCode).toBe(404);
    mock.faults.clear();
    const corrected = { ...original, hospitalName: 'Sanjeevani Family Clinic (corrected)' };
    const put = await post(`/v1/submissions/${id}`, corrected, 'PUT');
    expect(put.statusCode).toBe(202);
    expect(put.json()).toMatchObject({ id, status: 'queued' });
    expect(await final(queue, id)).toMatchObject({ status: 'acknowledged' });
    expect(sentBodies).toEqual([original, corrected]);
    // Acknowledged: not replaceable; the corrected body is now the stored one.
    expect((await post(`/v1/submissions/${id}`, corrected, 'PUT')).json()).toMatchObject({ issues: [{ code: 'not-replaceable' }] });
    expect((await post('/v1/submissions', corrected)).statusCode).toBe(200);
  }, 60_000);
});

/** The canonical JSON the hash is over: keys sorted, care contexts by referenceNumber (docs/serve.md). */
function canonical(r: LinkCareContextRequest): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort({ ...r, careContexts: [...r.careContexts].sort((a, b) => a.referenceNumber.localeCompare(b.referenceNumber)) }));
}

describe.skipIf(noPostgres !== undefined)(`a storage outage${noPostgres === undefined ? '' : ` (skipped: ${noPostgres})`}`, () => {
  it('answers 503 with Retry-After, never 500, when PostgreSQL is down', async () => {
    postgres.get()?.createDatabase('outage');
    const queue = await openQueue({ dataDir: join(tmp, 'outage'), databaseUrl: postgres.get()?.url('outage') ?? '', client: clientOptions() });
    const app = await createServeApp({ token: TOKEN, now: () => new Date('2026-11-24T10:00:00+05:30'), queue });
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    try {
      const ok = await app.inject({ method: 'POST', url: '/v1/submissions', headers: auth, payload: JSON.stringify(canaryRequest('outage-1')) });
      expect(ok.statusCode).toBe(202);
      postgres.stopNow();
      for (const [method, url, payload] of [
        ['POST', '/v1/submissions', JSON.stringify(canaryRequest('outage-2'))],
        ['GET', '/v1/submissions', undefined],
        ['GET', '/v1/submissions/ledger', undefined],
        ['GET', `/v1/submissions/${String(ok.json().id)}`, undefined],
        ['POST', `/v1/submissions/${String(ok.json().id)}/retry`, undefined],
      ] as const) {
        const r = await app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload }) });
        expect(r.statusCode, `${method} ${url}`).toBe(503);
        expect(r.headers['retry-after']).toBe('5');
        expect(r.json()).toMatchObject({ issues: [{ code: 'storage-unavailable' }] });
      }
    } finally {
      await app.close();
      await queue.close();
    }
  }, 60_000);
});
