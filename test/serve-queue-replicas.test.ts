/**
 * The queue of `abha-link serve` across processes: replicas killed with
 * SIGKILL in the middle of a batch and started again. Every item must end
 * acknowledged exactly once at the mock, or `unknown`; none sent twice. The
 * replicas are child processes running the built queue
 * (test/support/queue-replica.mjs); the test follows them by polling the
 * queue's state, never by sleeping.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { untilValue } from './support/poll.js';
import pg from 'pg';
import { linkRequestKey } from '../src/client/index.js';
import type { MockServer } from '../src/mock/index.js';
import { openQueue, type Queue, type QueueOptions, type Submission } from '../src/serve/queue/index.js';
import { root } from './support/cli-process.js';
import { mockSuite, taggedItems } from './support/mock-suite.js';
import { postgresForFile } from './support/postgres.js';

const API_KEY = 'sk-replicas-planted-M3p8';
let mock: MockServer;
const { tmp } = mockSuite(API_KEY, 'abha-link-replicas-', (m) => (mock = m));
const { item } = taggedItems('R');
const ITEMS = 120;

const postgres = postgresForFile();
const noPostgres = postgres.missing;

/** The data key every replica of a shared database is given (each data directory would otherwise make its own). */
const sharedKeyFile = (): string => join(tmp, 'shared-data.key');

const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** Starts a replica; resolves to its id and process once it sends. */
function replica(dataDir: string, databaseUrl: string | undefined, onIdle?: () => void): Promise<{ id: string; child: ChildProcess }> {
  const env = {
    ...process.env,
    QUEUE_REPORT_IDLE: onIdle === undefined ? '0' : '1',
    QUEUE_DATA_DIR: dataDir,
    MOCK_URL: mock.url,
    MOCK_API_KEY: API_KEY,
    ...(databaseUrl === undefined ? {} : { QUEUE_DATABASE_URL: databaseUrl, QUEUE_DATA_KEY_FILE: sharedKeyFile() }),
  };
  const child = spawn(process.execPath, [join(root, 'test/support/queue-replica.mjs')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const lines = out.split('\n');
      const first = lines[0];
      if (lines.length > 1 && first !== undefined) resolve({ id: (JSON.parse(first) as { replicaId: string }).replicaId, child });
      if (lines.slice(1).some((l) => l.includes('"idle"'))) onIdle?.();
    });
    child.on('exit', (code, signal) => reject(new Error(`replica exited (${code ?? signal}) before it started`)));
  });
}

/** Kills a replica with SIGKILL and waits until it is gone. */
async function kill(child: ChildProcess): Promise<void> {
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
  children.delete(child);
}

const until = <T>(probe: () => Promise<T | undefined>, what: string): Promise<T> => untilValue(probe, what);

/** Stores the batch through a queue that does not send (not started). */
async function enqueueBatch(queue: Queue, prefix: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let i = 0; i < ITEMS; i++) ids.set((await queue.enqueue(item(`${prefix}-${i}`))).submission.id, `${prefix}-${i}`);
  return ids;
}

/** Every item acknowledged once at the mock, or unknown and received at most once; none twice. */
async function expectExactlyOnce(queue: Queue, ids: Map<string, string>): Promise<{ acknowledged: number; unknown: number }> {
  const counts = { acknowledged: 0, unknown: 0 };
  for (const [id, tag] of ids) {
    const s = (await queue.get(id)) as Submission;
    const seen = mock.linkCount(linkRequestKey(item(tag)));
    expect(seen.received, `item ${tag} (${s.status}) reached the mock ${seen.received} times`).toBeLessThanOrEqual(1);
    if (s.status === 'acknowledged') expect(seen, `item ${tag}`).toEqual({ received: 1, linked: 1 });
    else expect(s.status, `item ${tag}`).toBe('unknown');
    counts[s.status as 'acknowledged' | 'unknown']++;
  }
  return counts;
}

const notDone = async (queue: Queue): Promise<number> => {
  const c = await queue.counts();
  return c.queued + c.sending;
};

describe('replicas killed with SIGKILL in the middle of a batch', () => {
  it.skipIf(noPostgres !== undefined)(
    `two replicas sharing PostgreSQL: every item is acknowledged exactly once or reported unknown, none sent twice${noPostgres === undefined ? '' : ` (skipped: ${noPostgres})`}`,
    async () => {
      const server = postgres.get();
      if (server === undefined) throw new Error('no PostgreSQL');
      server.createDatabase('replicas');
      const url = server.url('replicas');
      // Each link request takes a while at the mock, so that requests are in flight when A dies.
      mock.faults.add({ endpoint: 'link-carecontext', times: Infinity, fault: { type: 'latency', ms: 40 } });
      const options: QueueOptions = { dataDir: join(tmp, 'observer'), databaseUrl: url, dataKeyFile: sharedKeyFile(), client: { baseUrl: mock.url, apiKey: API_KEY } };
      const observer = await openQueue(options);
      const ids = await enqueueBatch(observer, 'pg');
      const a = await replica(join(tmp, 'replica-a'), url);
      const b = await replica(join(tmp, 'replica-b'), url);
      const db = new pg.Client({ connectionString: url });
      // Should the test fail before db.end(), the cluster's stop must not surface as an unhandled error.
      db.on('error', () => undefined);
      await db.connect();
      const inFlightOfA = async (): Promise<number> => Number((await db.query(`SELECT count(*) AS n FROM abha_link_submissions WHERE status = 'sending' AND leased_by = $1`, [a.id])).rows[0].n);
      // Mid-batch: some items acknowledged, and A has requests in flight.
      await until(async () => ((await observer.counts()).acknowledged >= 10 && (await inFlightOfA()) > 0 ? true : undefined), 'A to be sending mid-batch');
      await kill(a.child);
      const orphans = (await db.query(`SELECT id FROM abha_link_submissions WHERE status = 'sending' AND leased_by = $1`, [a.id])).rows.map((r: { id: string }) => r.id);
      const orphaned = orphans.length;
      expect(orphaned).toBeGreaterThan(0);
      // B sends everything still queued; A's items in flight are not sent again: they stay A's (sending), or,
      // when B finds their lease expired first (a slow machine: B's sends outlast the lease), B makes them unknown.
      const orphanStates = async (): Promise<{ held: number; unknown: number }> => {
        const row = (
          await db.query(
            `SELECT count(*) FILTER (WHERE status = 'sending' AND leased_by = $1) AS held, count(*) FILTER (WHERE status = 'unknown') AS unknown FROM abha_link_submissions WHERE id = ANY($2::uuid[])`,
            [a.id, orphans],
          )
        ).rows[0] as { held: string; unknown: string };
        return { held: Number(row.held), unknown: Number(row.unknown) };
      };
      await until(async () => {
        const c = await observer.counts();
        const o = await orphanStates();
        return c.queued === 0 && c.sending === o.held && o.held + o.unknown === orphaned ? true : undefined;
      }, 'B to send the rest');
      const o = await orphanStates();
      expect(o.held + o.unknown).toBe(orphaned);
      // A starts again (same data directory, same replica id): its items in flight become unknown.
      const again = await replica(join(tmp, 'replica-a'), url);
      expect(again.id).toBe(a.id);
      await until(async () => ((await notDone(observer)) === 0 ? true : undefined), 'every item to end');
      const counts = await expectExactlyOnce(observer, ids);
      expect(counts.unknown).toBe(orphaned);
      expect(counts.acknowledged + counts.unknown).toBe(ITEMS);
      const byReplica = (await db.query(`SELECT leased_by, count(*) AS n FROM abha_link_submissions WHERE status = 'acknowledged' GROUP BY leased_by`)).rows;
      expect(byReplica.length, 'both replicas sent items').toBe(2);
      await db.end();
      for (const c of [b.child, again.child]) {
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        await exited;
        children.delete(c);
      }
      await observer.close();
    },
    300_000,
  );

  it('one replica on the embedded store: killed and started again, it reports what was in flight unknown and sends the rest once', async () => {
    mock.faults.add({ endpoint: 'link-carecontext', times: Infinity, fault: { type: 'latency', ms: 40 } });
    const dataDir = join(tmp, 'embedded');
    let queue = await openQueue({ dataDir, client: { baseUrl: mock.url, apiKey: API_KEY } });
    const ids = await enqueueBatch(queue, 'emb');
    await queue.close();
    const linkedBefore = mock.stats().linked;
    const a = await replica(dataDir, undefined);
    // The embedded store belongs to the replica's process: follow it through the mock's counts.
    await until(async () => (mock.stats().linked - linkedBefore >= 10 ? true : undefined), 'the replica to be mid-batch');
    await kill(a.child);
    let idle = false;
    const again = await replica(dataDir, undefined, () => (idle = true));
    await until(async () => (idle ? true : undefined), 'the rest to be sent');
    const exited = new Promise((r) => again.child.once('exit', r));
    again.child.kill('SIGTERM');
    await exited;
    children.delete(again.child);
    queue = await openQueue({ dataDir, client: { baseUrl: mock.url, apiKey: API_KEY } });
    expect(await notDone(queue)).toBe(0);
    const counts = await expectExactlyOnce(queue, ids);
    expect(counts.acknowledged + counts.unknown).toBe(ITEMS);
    expect(counts.unknown).toBeGreaterThan(0);
    await queue.close();
  }, 300_000);
});
