/**
 * The submission queue of `abha-link serve` (src/serve/queue): its contract
 * against both stores (the embedded PGlite one in a data directory, and a
 * real PostgreSQL server started for this file), idempotent enqueue, the
 * outcomes, retry, migrations, leases and recovery, callbacks, and logs
 * without health data. Time is driven by injected clocks and ticks; waits
 * poll the queue's state.
 */
import { createHmac } from 'node:crypto';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilValue } from './support/poll.js';
import pg from 'pg';
import type { MockServer } from '../src/mock/index.js';
import { MIGRATIONS, QueueError, openQueue, type Queue, type QueueOptions, type Submission, type SubmissionStatus } from '../src/serve/queue/index.js';
import { outcomeOf } from '../src/serve/queue/worker.js';
import { vacuumDue } from '../src/serve/queue/vacuum.js';
import { AlreadyLinkedError, NetworkError, OutcomeUnknownError, RejectedError, linkRequestKey, type FetchLike } from '../src/client/index.js';
import { ValidationError } from '../src/errors.js';
import { mockSuite, taggedItems } from './support/mock-suite.js';
import { postgresMissing, startPostgres, type TestPostgres } from './support/postgres.js';

const API_KEY = 'sk-queue-planted-K9v4';
const PLANTED_ABHA = 'planted.patient@sbx';
let mock: MockServer;
// A repeated link is answered "already linked", as a real service would: a deliberate resend of an item the service linked ends `already-linked`.
const { tmp } = mockSuite(API_KEY, 'abha-link-queue-', (m) => (mock = m), { linkRepeats: 'already-linked' });
const { item, keyOf } = taggedItems('Q');
const planted = (tag: string): ReturnType<typeof item> => ({ ...item(tag), abhaAddress: PLANTED_ABHA });

const noPostgres = postgresMissing();
let server: TestPostgres | undefined;
let databases = 0;
beforeAll(() => {
  if (noPostgres === undefined) server = startPostgres();
}, 60_000);
afterAll(() => server?.stop());

/**
 * A data directory with a fresh embedded database: a copy of one made once
 * for this file (the embedded database's first start, its initdb, is slow).
 */
const template = join(tmp, 'template');
beforeAll(async () => {
  await (await openQueue({ dataDir: template, client: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k' } })).close();
}, 180_000);
function embeddedDir(name: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  cpSync(join(template, 'queue-db'), join(dir, 'queue-db'), { recursive: true });
  return dir;
}

/** A fresh database on the test server. */
function freshDatabase(): string {
  if (server === undefined) throw new Error('no PostgreSQL');
  const name = `q${++databases}`;
  server.createDatabase(name);
  return server.url(name);
}

/** Everything the queue logged, to check for health data and keys. */
const logLines: string[] = [];
const logger = {
  info: (f: Record<string, unknown>, m: string) => logLines.push(JSON.stringify({ ...f, m })),
  warn: (f: Record<string, unknown>, m: string) => logLines.push(JSON.stringify({ ...f, m })),
  error: (f: Record<string, unknown>, m: string) => logLines.push(JSON.stringify({ ...f, m })),
};

/** The one line logged when the item `id` ended with `code` (its id, visitId, status and code), or undefined. */
const endLine = (id: string, code: string): Record<string, unknown> | undefined => logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((f) => f.id === id && f.code === code);

const until = <T>(probe: () => Promise<T | undefined>, what: string): Promise<T> => untilValue(probe, what);

const final = (q: Queue, id: string): Promise<Submission> =>
  until(async () => {
    const s = await q.get(id);
    return s !== undefined && s.status !== 'queued' && s.status !== 'sending' ? s : undefined;
  }, `submission ${id} to end`);

type Store = { name: string; skip: string | undefined; options: () => Pick<QueueOptions, 'dataDir' | 'databaseUrl'> };
let dirs = 0;
const stores: Store[] = [
  { name: 'the embedded store', skip: undefined, options: () => ({ dataDir: embeddedDir(`embedded-${++dirs}`) }) },
  { name: 'PostgreSQL', skip: noPostgres, options: () => ({ dataDir: join(tmp, `replica-${++dirs}`), databaseUrl: freshDatabase() }) },
];

const clientOptions = (extra: Partial<QueueOptions['client']> = {}): QueueOptions['client'] => ({
  baseUrl: mock.url,
  apiKey: API_KEY,
  retry: { baseDelayMs: 1, maxDelayMs: 2 },
  ...extra,
});

describe.each(stores)('the queue on $name', (store) => {
  let queue: Queue;
  let where: Pick<QueueOptions, 'dataDir' | 'databaseUrl'>;
  beforeAll(async () => {
    if (store.skip !== undefined) return;
    where = store.options();
    queue = await openQueue({ ...where, client: clientOptions(), concurrency: 4, logger });
    queue.start();
  }, 120_000);
  afterAll(() => queue?.close());
  const test = store.skip === undefined ? it : it.skip;
  if (store.skip !== undefined) it.skip(`runs against PostgreSQL (skipped: ${store.skip})`, () => undefined);

  test('stores a submission, sends it once and reports it acknowledged', async () => {
    const { submission, created } = await queue.enqueue(item(`${store.name}-1`));
    expect(created).toBe(true);
    expect(['queued', 'sending', 'acknowledged']).toContain(submission.status);
    const done = await final(queue, submission.id);
    expect(done).toMatchObject({ id: submission.id, status: 'acknowledged', attempts: 1 });
    expect(done.error).toBeUndefined();
    expect(mock.linkCount(keyOf(`${store.name}-1`))).toEqual({ received: 1, linked: 1 });
  });

  test('treats the same item submitted twice, even at once, as one submission', async () => {
    const tag = `${store.name}-dup`;
    const results = await Promise.all([1, 2, 3, 4].map(() => queue.enqueue(item(tag))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.submission.id)).size).toBe(1);
    const id = results[0]?.submission.id ?? '';
    await final(queue, id);
    const later = await queue.enqueue(item(tag));
    expect(later).toMatchObject({ created: false, submission: { id, status: 'acknowledged' } });
    // The same visit with its care contexts in another order is the same item too.
    const reordered = { ...item(tag), careContexts: [...item(tag).careContexts].reverse() };
    expect((await queue.enqueue(reordered)).submission.id).toBe(id);
    expect(mock.linkCount(keyOf(tag)).received).toBe(1);
  });

  test('refuses an invalid link request with its issues, storing nothing', async () => {
    const before = await queue.counts();
    const bad = { ...planted(`${store.name}-bad`), hipId: 42 };
    const error = await queue.enqueue(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueError);
    expect(error).toMatchObject({ code: 'invalid-request' });
    expect((error as QueueError).issues.map((i) => i.path)).toContain('/hipId');
    expect(inspect(error)).not.toContain(PLANTED_ABHA);
    expect(await queue.counts()).toEqual(before);
  });

  test('reports a definite rejection as failed, and sends it again only on a deliberate retry', async () => {
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 400, message: `bad ${PLANTED_ABHA}` } });
    const tag = `${store.name}-rejected`;
    const { submission } = await queue.enqueue(planted(tag));
    const failed = await final(queue, submission.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'rejected' } });
    expect(JSON.stringify(failed)).not.toContain(PLANTED_ABHA);
    expect(endLine(submission.id, 'rejected')).toMatchObject({ component: 'queue', id: submission.id, visitId: `OPD-Q-${tag}`, status: 'failed', m: 'send failed' });
    const retried = await queue.retry(submission.id);
    expect(retried).toMatchObject({ id: submission.id, status: 'queued' });
    expect(await final(queue, submission.id)).toMatchObject({ status: 'acknowledged', attempts: 2 });
    expect(await queue.retry(submission.id)).toBe('not-retryable');
    expect(await queue.retry('6b1d3f1e-7a7c-4c55-9d1e-000000000000')).toBe('not-found');
    expect(await queue.retry('not-an-id')).toBe('not-found');
  });

  test('reports an item whose answer was lost as unknown, and never sends it again by itself', async () => {
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'drop', when: 'after' } });
    const tag = `${store.name}-lost`;
    const { submission } = await queue.enqueue(planted(tag));
    const unknown = await final(queue, submission.id);
    expect(unknown).toMatchObject({ status: 'unknown', attempts: 1 });
    expect(unknown.error?.code).toMatch(/^[a-z-]+$/);
    expect(endLine(submission.id, unknown.error?.code ?? '')).toMatchObject({ id: submission.id, visitId: `OPD-Q-${tag}`, status: 'unknown' });
    await queue.tick();
    await queue.tick();
    expect(await queue.get(submission.id)).toMatchObject({ status: 'unknown', attempts: 1 });
    expect(mock.linkCount(linkRequestKey(planted(tag)))).toEqual({ received: 1, linked: 1 });
    // A deliberate retry sends it once more; the service had linked it, and says so: the item is done.
    await queue.retry(submission.id);
    const done = await final(queue, submission.id);
    expect(done).toMatchObject({ status: 'already-linked', attempts: 2 });
    expect(done.error).toBeUndefined();
    expect(mock.linkCount(linkRequestKey(planted(tag)))).toEqual({ received: 2, linked: 1 });
    expect(await queue.retry(submission.id)).toBe('not-retryable');
    expect((await queue.list({ status: 'already-linked' })).submissions.map((s) => s.id)).toContain(submission.id);
    expect((await queue.counts())['already-linked']).toBeGreaterThanOrEqual(1);
    expect(logLines.filter((l) => l.includes(submission.id)).at(-1)).toMatch(/"status":"already-linked".*already linked: done/);
    expect(endLine(submission.id, 'already-linked')).toMatchObject({ id: submission.id, visitId: `OPD-Q-${tag}`, status: 'already-linked' });
  });

  test('lists submissions by status and counts them', async () => {
    const counts = await queue.counts();
    expect(Object.keys(counts).sort()).toEqual(['acknowledged', 'already-linked', 'failed', 'queued', 'sending', 'unknown']);
    expect(counts.acknowledged).toBeGreaterThanOrEqual(3);
    const acknowledged = (await queue.list({ status: 'acknowledged', limit: 2 })).submissions;
    expect(acknowledged).toHaveLength(2);
    expect(acknowledged.every((s) => s.status === 'acknowledged')).toBe(true);
    expect((await queue.list()).submissions.length).toBe(Object.values(counts).reduce((a, b) => a + b, 0));
    await expect(queue.list({ status: 'lost' as SubmissionStatus })).rejects.toMatchObject({ code: 'invalid-options' });
    expect(await queue.get('6b1d3f1e-7a7c-4c55-9d1e-000000000000')).toBeUndefined();
    expect(await queue.ready()).toBe(true);
    // The embedded store vacuums itself (see below); PostgreSQL's autovacuum does it there.
    if (store.name === 'PostgreSQL') expect(await queue.maintenance()).toBeUndefined();
    else expect(await queue.maintenance()).toMatchObject({ vacuums: expect.any(Number) as number, activity: { rows: expect.any(Number) as number } });
  });

  test('keeps what it stored across a restart, and drops an acknowledged request from storage', async () => {
    const { submission } = await queue.enqueue(item(`${store.name}-restart`));
    await final(queue, submission.id);
    await queue.close();
    expect(await queue.ready()).toBe(false);
    await expect(queue.enqueue(item(`${store.name}-after-close`))).rejects.toMatchObject({ code: 'closed' });
    queue = await openQueue({ ...where, client: clientOptions(), logger });
    queue.start();
    expect(await queue.get(submission.id)).toMatchObject({ status: 'acknowledged' });
    expect((await queue.enqueue(item(`${store.name}-restart`))).created).toBe(false);
  }, 120_000);

  test('drains the sends in flight when closed', async () => {
    mock.faults.add({ endpoint: 'link-carecontext', times: 6, fault: { type: 'latency', ms: 150 } });
    const ids = await Promise.all([1, 2, 3, 4, 5, 6].map(async (i) => (await queue.enqueue(item(`${store.name}-drain-${i}`))).submission.id));
    await until(async () => ((await queue.counts()).sending > 0 ? true : undefined), 'a send in flight');
    await queue.close();
    queue = await openQueue({ ...where, client: clientOptions(), logger });
    const states = await Promise.all(ids.map(async (id) => (await queue.get(id))?.status));
    // Nothing was left in flight: each item is either acknowledged or still queued for the next start.
    expect(states.every((s) => s === 'acknowledged' || s === 'queued')).toBe(true);
    expect(states).toContain('acknowledged');
    queue.start();
    for (const id of ids) expect(await final(queue, id)).toMatchObject({ status: 'acknowledged' });
  }, 120_000);
});

describe("the embedded store's vacuum", () => {
  /** Every line the queue logged for a vacuum, parsed. */
  const vacuumLines = (): Record<string, unknown>[] => logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((f) => f.m === "vacuumed the queue's table");

  it('reclaims the dead rows of the items it claimed and finished, when enough changed, at most once a minute, and keeps working', async () => {
    let clock = Date.parse('2026-03-01T00:00:00Z');
    const now = (): number => clock;
    const queue = await openQueue({ dataDir: embeddedDir('vacuum'), client: clientOptions(), concurrency: 8, logger, now, sleep: () => new Promise(() => undefined) });
    /** Enqueues `n` items and waits until every one is acknowledged (none in flight: the clock may move). */
    const work = async (tag: string, n: number): Promise<void> => {
      const ids = await Promise.all(Array.from({ length: n }, async (_, i) => (await queue.enqueue(item(`vacuum-${tag}-${i}`))).submission.id));
      for (const id of ids) expect(await final(queue, id)).toMatchObject({ status: 'acknowledged' });
    };
    try {
      queue.start();
      await work('a', 60);
      const before = await queue.maintenance();
      // Each item was inserted, claimed and acknowledged: its two earlier versions are dead, and nothing reclaimed them.
      expect(before).toMatchObject({ vacuums: 0, lastVacuum: undefined });
      expect(before?.activity.deadRows).toBeGreaterThanOrEqual(60);
      const lines = vacuumLines().length;

      await queue.tick();
      const after = await queue.maintenance();
      expect(after).toMatchObject({ vacuums: 1, activity: { deadRows: 0, rows: 60 } });
      expect(after?.lastVacuum).toMatchObject({ rows: 60, deadRows: before?.activity.deadRows });
      const line = vacuumLines().at(-1);
      expect(vacuumLines()).toHaveLength(lines + 1);
      expect(Object.keys(line ?? {}).sort()).toEqual(['component', 'deadRows', 'm', 'ms', 'replicaId', 'rows']);
      expect(line).toMatchObject({ component: 'queue', rows: 60, deadRows: before?.activity.deadRows });

      // Below autovacuum's thresholds (50 + 20 % of the rows dead, 50 + 10 % changed): no vacuum.
      await work('b', 5);
      clock += 60_001;
      await queue.tick();
      expect((await queue.maintenance())?.vacuums).toBe(1);
      expect((await queue.maintenance())?.activity.deadRows).toBeGreaterThan(0);

      // Past them: the next look (at most one a minute) vacuums.
      await work('c', 40);
      await queue.tick();
      expect((await queue.maintenance())?.vacuums).toBe(1);
      clock += 60_001;
      await queue.tick();
      expect(await queue.maintenance()).toMatchObject({ vacuums: 2, activity: { deadRows: 0, rows: 105 } });

      // The queue works on: an item goes through, and every item is there.
      await work('d', 1);
      expect((await queue.counts()).acknowledged).toBe(106);
      expect((await queue.list({ limit: 1000 })).submissions).toHaveLength(106);
    } finally {
      await queue.close();
    }
  }, 120_000);

  it.each([
    { what: 'nothing changed, at the first look since the open', dead: 0, changed: 0, rows: 1000, first: true, due: false },
    { what: 'one change, at the first look since the open (what died before a restart is not counted)', dead: 0, changed: 1, rows: 1000, first: true, due: true },
    { what: 'dead rows at 50 + 20 % of the rows', dead: 250, changed: 150, rows: 1000, first: false, due: false },
    { what: 'dead rows past 50 + 20 % of the rows', dead: 251, changed: 150, rows: 1000, first: false, due: true },
    { what: 'changes (inserts) past 50 + 10 % of the rows, no dead row', dead: 0, changed: 151, rows: 1000, first: false, due: true },
    { what: 'a new table: 51 dead rows', dead: 51, changed: 51, rows: 0, first: false, due: true },
  ])('is due with $what: $due', ({ dead, changed, rows, first, due }) => {
    expect(vacuumDue({ deadRows: dead, changedRows: changed, rows, bytes: 0 }, first)).toBe(due);
  });
});

describe('what one send becomes', () => {
  const details = { endpoint: '/api/m2/multiple/link-carecontext', requestId: 'r', attempts: 1 };
  it.each([
    ['a definite rejection', new RejectedError('rejected', { ...details, status: 400 }), 'failed', 'rejected'],
    ['a connection refused (provably unsent) after the retries', new NetworkError('refused', { ...details, failure: 'connection-refused' }), 'failed', 'connection-refused'],
    ['an outcome unknown', new OutcomeUnknownError('lost', { ...details, reason: 'connection-lost' }), 'unknown', 'connection-lost'],
    ['an answer "already linked"', new AlreadyLinkedError('already linked', { ...details, status: 200 }), 'already-linked', null],
    ['an invalid request', new ValidationError([]), 'failed', 'invalid-request'],
    ['an unexpected error', new Error('boom'), 'unknown', 'internal-error'],
  ])('%s is %s', (_what, error, status, code) => {
    expect(outcomeOf(error)).toMatchObject({ status, code });
  });
});

describe.skipIf(noPostgres !== undefined)(`the queue shared by replicas in PostgreSQL${noPostgres === undefined ? '' : ` (skipped: ${noPostgres})`}`, () => {
  it('migrates a database once, even when two replicas start at the same moment', async () => {
    const url = freshDatabase();
    const opened: string[] = [];
    const log = { ...logger, info: (f: Record<string, unknown>) => opened.push(JSON.stringify(f.migrations)) };
    const [a, b] = await Promise.all([1, 2].map((i) => openQueue({ dataDir: join(tmp, `mig-${i}`), databaseUrl: url, client: clientOptions(), logger: log })));
    await Promise.all([a?.close(), b?.close()]);
    const c = await openQueue({ dataDir: join(tmp, 'mig-1'), databaseUrl: url, client: clientOptions(), logger: log });
    await c.close();
    expect(opened.sort()).toEqual([JSON.stringify(MIGRATIONS.map((_, i) => i + 1)), '[]', '[]'].sort());
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const rows = (await db.query('SELECT version FROM abha_link_schema_version ORDER BY version')).rows;
    await db.end();
    expect(rows.map((r: { version: number }) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it('reports the items of a replica whose lease ran out as unknown, never sending them again', async () => {
    const url = freshDatabase();
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const now = (): number => clock;
    const sent: string[] = [];
    const gone = new AbortController();
    // Replica A's send never ends (it stopped answering): its lease is not renewed.
    const hang: FetchLike = (input, init) => {
      if (!input.endsWith('/link-carecontext')) return fetch(input, init);
      sent.push(input);
      return new Promise<Response>((_, reject) => gone.signal.addEventListener('abort', () => reject(new TypeError('fetch failed'))));
    };
    const a = await openQueue({ dataDir: join(tmp, 'lease-a'), databaseUrl: url, client: clientOptions({ fetch: hang, now }), leaseMs: 5000, now, sleep: () => new Promise(() => undefined), logger });
    const b = await openQueue({ dataDir: join(tmp, 'lease-b'), databaseUrl: url, client: clientOptions(), leaseMs: 5000, now, logger });
    a.start();
    const { submission } = await a.enqueue(item('lease'));
    await until(async () => (sent.length === 1 ? true : undefined), 'replica A to send');
    expect(await b.get(submission.id)).toMatchObject({ status: 'sending' });
    await b.tick();
    expect(await b.get(submission.id)).toMatchObject({ status: 'sending' }); // the lease still runs
    clock += 5001;
    await b.tick();
    expect(await b.get(submission.id)).toMatchObject({ status: 'unknown', attempts: 1, error: { code: 'lease-expired' } });
    expect(endLine(submission.id, 'lease-expired')).toMatchObject({ id: submission.id, visitId: 'OPD-Q-lease', status: 'unknown' });
    b.start();
    await b.tick();
    expect(await b.get(submission.id)).toMatchObject({ status: 'unknown', attempts: 1 });
    expect(mock.linkCount(keyOf('lease')).received).toBe(0);
    await b.close();
    gone.abort(); // A's send ends at last, so that A can close
    await a.close();
  });

  it('reports, at its restart, the items a replica was sending when it stopped as unknown', async () => {
    const url = freshDatabase();
    const gone = new AbortController();
    const never: FetchLike = (input, init) =>
      input.endsWith('/link-carecontext') ? new Promise<Response>((_, reject) => gone.signal.addEventListener('abort', () => reject(new TypeError('fetch failed')))) : fetch(input, init);
    const a = await openQueue({
      dataDir: join(tmp, 'restart-a'),
      databaseUrl: url,
      client: clientOptions({ fetch: never }),
      replicaId: 'replica-a',
      logger,
      sleep: () => new Promise(() => undefined),
    });
    a.start();
    const { submission } = await a.enqueue(item('restart-a'));
    await until(async () => ((await a.get(submission.id))?.status === 'sending' ? true : undefined), 'A to claim');
    // The same replica (same id) starts again while the old process is gone.
    const again = await openQueue({ dataDir: join(tmp, 'restart-a2'), databaseUrl: url, client: clientOptions(), replicaId: 'replica-a', logger });
    expect(await again.get(submission.id)).toMatchObject({ status: 'unknown', error: { code: 'replica-restarted' } });
    expect(endLine(submission.id, 'replica-restarted')).toMatchObject({ id: submission.id, visitId: 'OPD-Q-restart-a', status: 'unknown', replicaId: 'replica-a' });
    await again.close();
    gone.abort();
    await a.close();
  });
});

describe('callbacks with the final status', () => {
  it('posts the final status to the callback URL, signed with HMAC-SHA-256', async () => {
    const secret = 'callback-secret-0123456789';
    const received: { body: string; signature: string | undefined; timestamp: string | undefined; delivery: string | undefined }[] = [];
    const receiver = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const h = (name: string): string | undefined => req.headers[name] as string | undefined;
        received.push({ body, signature: h('x-abha-link-signature'), timestamp: h('x-abha-link-timestamp'), delivery: h('x-abha-link-delivery') });
        res.writeHead(received.length === 1 ? 500 : 204).end(); // the first delivery fails: tried again
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as { port: number }).port;
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const now = (): number => clock;
    const queue = await openQueue({
      dataDir: embeddedDir('callbacks'),
      client: clientOptions(),
      callback: { secret, allow: [{ host: '127.0.0.1', port }] },
      logger,
      now,
      sleep: () => new Promise(() => undefined),
    });
    try {
      queue.start();
      await expect(queue.enqueue(item('cb-bad'), { callbackUrl: 'ftp://example.org/x' })).rejects.toMatchObject({ code: 'invalid-callback-url' });
      const { submission } = await queue.enqueue(item('cb'), { callbackUrl: `http://127.0.0.1:${port}/hook` });
      await final(queue, submission.id);
      await queue.tick();
      expect(received).toHaveLength(1); // refused (500): tried again once its claim (30 s) is over
      await queue.tick();
      expect(received).toHaveLength(1);
      clock += 31_000;
      await queue.tick();
      expect(received).toHaveLength(2);
      await queue.tick();
      clock += 31_000;
      await queue.tick();
      expect(received).toHaveLength(2); // delivered: not sent again
      for (const r of received) {
        expect(r.signature).toBe(`v1=${createHmac('sha256', secret).update(`${r.timestamp}.${r.delivery}.${r.body}`).digest('hex')}`);
        expect(Number(r.timestamp)).toBe(Math.floor(Date.parse('2026-01-01T00:00:00Z') / 1000) + (r === received[0] ? 0 : 31));
        expect(r.delivery).toBe(received[0]?.delivery);
        expect(JSON.parse(r.body)).toMatchObject({ id: submission.id, status: 'acknowledged', attempts: 1 });
      }
    } finally {
      await queue.close();
      receiver.close();
    }
  }, 120_000);

  it('refuses a callback URL when no secret is configured', async () => {
    const queue = await openQueue({ dataDir: embeddedDir('no-callbacks'), client: clientOptions(), logger });
    try {
      await expect(queue.enqueue(item('cb-none'), { callbackUrl: 'https://hms.example.org/hook' })).rejects.toMatchObject({ code: 'invalid-callback-url' });
    } finally {
      await queue.close();
    }
  }, 120_000);
});

describe("the queue's options and logs", () => {
  it('refuses a lease over 60 s, a second process on one data directory, and a database URL that is not postgres://', async () => {
    await expect(openQueue({ dataDir: join(tmp, 'opts'), client: clientOptions(), leaseMs: 61_000 })).rejects.toMatchObject({ code: 'invalid-options' });
    await expect(openQueue({ dataDir: join(tmp, 'opts'), databaseUrl: 'mysql://x', client: clientOptions() })).rejects.toMatchObject({ code: 'invalid-options' });
    // A lock left by a process that is gone, or by an earlier process with this one's pid (PID 1 in a restarted container), is taken over.
    const stale = embeddedDir('stale-lock');
    writeFileSync(join(stale, 'queue.lock'), `${process.pid} left-by-an-earlier-process\n`);
    await (await openQueue({ dataDir: stale, client: clientOptions() })).close();
    writeFileSync(join(stale, 'queue.lock'), '2147483646 left-by-a-dead-process\n');
    await (await openQueue({ dataDir: stale, client: clientOptions() })).close();
    const first = await openQueue({ dataDir: embeddedDir('opts'), client: clientOptions() });
    try {
      const second = await openQueue({ dataDir: join(tmp, 'opts'), client: clientOptions() }).catch((e: unknown) => e);
      expect(second).toMatchObject({ code: 'data-dir-in-use' });
    } finally {
      await first.close();
    }
  }, 120_000);

  it('never logs the ABHA address, the API key or a token', () => {
    expect(logLines.length).toBeGreaterThan(3);
    const all = logLines.join('\n');
    expect(all).not.toContain(PLANTED_ABHA);
    expect(all).not.toContain(API_KEY);
    expect(all).not.toMatch(/Bearer|eyJ/);
    // Nor the clinical content of the requests (their diagnoses, medicines, the doctor) or the hospital's phone.
    for (const text of ['diabetes', 'Metformin', 'Meera', '41234567']) expect(all).not.toContain(text);
  });
});
