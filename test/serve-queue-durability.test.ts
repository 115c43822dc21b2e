/**
 * Durability of the embedded store (src/serve/queue/durable.ts): PGlite's
 * filesystem never flushes, so with `embeddedDurability` `full` (the
 * default) a write resolves only once its write-ahead log was flushed to
 * disk; `relaxed` flushes nothing. The flushes are observed on
 * node:fs/promises' file handles.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';

const flushed: string[] = [];
/** While set, every flush (sync or datasync) waits for it before it runs: a test holds the disk. */
const gate: { held: Promise<void> | undefined; failWith: Error | undefined; started: number } = { held: undefined, failWith: undefined, started: 0 };
vi.mock('node:fs/promises', async (importOriginal) => {
  const fsp = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof fsp.open>) => {
    const handle = await fsp.open(...args);
    for (const method of ['sync', 'datasync'] as const) {
      const real = handle[method].bind(handle);
      handle[method] = async () => {
        gate.started++;
        await gate.held;
        if (gate.failWith !== undefined) throw gate.failWith;
        await real();
        flushed.push(String(args[0]));
      };
    }
    return handle;
  };
  return { ...fsp, default: { ...fsp, open }, open };
});

const { openEmbedded } = await import('../src/serve/queue/sql.js');
const { openQueue } = await import('../src/serve/queue/index.js');
const { migrate } = await import('../src/serve/queue/migrate.js');
const { vacuumTable } = await import('../src/serve/queue/vacuum.js');
const { run } = await import('../src/serve/queue/sql.js');

const tmp = mkdtempSync(join(tmpdir(), 'abha-durable-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeEach(() => {
  flushed.splice(0);
  Object.assign(gate, { held: undefined, failWith: undefined, started: 0 });
});

/** Whether `p` has settled, after letting every ready callback run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

/** The flushed paths under `dir`, relative, with `/`. */
const flushedIn = (dir: string): string[] => flushed.filter((p) => p.startsWith(dir)).map((p) => relative(dir, p).split(sep).join('/'));

describe('the embedded store on disk', () => {
  it('resolves a write only after flushing the write-ahead log (full, the default), and every file after a checkpoint, pg_control last', async () => {
    const dir = join(tmp, 'full');
    const db = await openEmbedded(dir);
    try {
      await db.query('CREATE TABLE t (v text)');
      flushed.splice(0);
      await db.query(`INSERT INTO t VALUES ('a')`);
      const afterInsert = flushedIn(dir);
      expect(afterInsert.some((p) => /^pg_wal\/[0-9A-F]{24}$/.test(p))).toBe(true);
      expect(afterInsert).toContain('pg_wal');
      // No checkpoint: pg_control is as flushed before, and no data file needs a flush.
      expect(afterInsert).not.toContain('global/pg_control');
      expect(afterInsert.some((p) => p.startsWith('base/'))).toBe(false);

      flushed.splice(0);
      await db.query('SELECT v FROM t');
      expect(flushedIn(dir)).toEqual([]);

      await db.transaction(async (tx) => void (await tx.query(`INSERT INTO t VALUES ('b')`)));
      expect(flushedIn(dir).some((p) => p.startsWith('pg_wal/'))).toBe(true);

      flushed.splice(0);
      await db.query('CHECKPOINT');
      expect(flushedIn(dir).some((p) => p.startsWith('base/'))).toBe(true);
      expect(flushedIn(dir).at(-1)).toBe('global/pg_control');
    } finally {
      await db.close();
    }
  }, 120_000);

  it('holds every write whose flush has not finished, however many share it, and rejects a write whose flush failed', async () => {
    const dir = join(tmp, 'held');
    const db = await openEmbedded(dir);
    try {
      await db.query('CREATE TABLE t (v text)');
      let release = (): void => undefined;
      gate.held = new Promise<void>((resolve) => (release = resolve));
      const first = db.query(`INSERT INTO t VALUES ('a')`);
      const second = db.query(`INSERT INTO t VALUES ('b')`);
      const third = db.transaction(async (tx) => void (await tx.query(`INSERT INTO t VALUES ('c')`)));
      // Committed by PostgreSQL (a read sees them), but on disk only once the flush ends: not reported done before.
      await expect(db.query('SELECT count(*)::int AS n FROM t')).resolves.toEqual([{ n: 3 }]);
      expect(gate.started).toBeGreaterThan(0);
      expect(await settled(Promise.race([first, second, third]))).toBe(false);
      const flushesWhileHeld = gate.started;
      release();
      await Promise.all([first, second, third]);
      // The three writes shared the flush under way and one more (group commit), not one flush each.
      expect(gate.started).toBeLessThanOrEqual(flushesWhileHeld * 2);

      gate.failWith = Object.assign(new Error('I/O error'), { code: 'EIO' });
      await expect(db.query(`INSERT INTO t VALUES ('d')`)).rejects.toMatchObject({ code: 'EIO' });
    } finally {
      gate.failWith = undefined;
      await db.close();
    }
  }, 120_000);

  it('runs a vacuum only between statements and transactions, never inside one, and flushes it like a write', async () => {
    const dir = join(tmp, 'vacuum');
    const db = await openEmbedded(dir);
    try {
      await migrate(db);
      const insert = (sql: { query: typeof db.query }, n: number): Promise<unknown> =>
        sql.query(`INSERT INTO abha_link_queue_meta (name, value) VALUES ($1, 'v') ON CONFLICT (name) DO UPDATE SET value = 'w'`, [`n${n}`]);
      // A transaction holds the one connection: the vacuum waits for its end (inside it, VACUUM would fail with 25001).
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const transaction = db.transaction(async (tx) => {
        await insert(tx, 1);
        await held;
        await insert(tx, 2);
      });
      const vacuum = vacuumTable(db);
      expect(await settled(vacuum)).toBe(false);
      release();
      await expect(Promise.all([transaction, vacuum])).resolves.toBeDefined();
      // Among a burst of writes, each runs whole: every statement succeeds.
      const burst = [...Array.from({ length: 20 }, (_, i) => insert(db, i)), vacuumTable(db), ...Array.from({ length: 20 }, (_, i) => insert(db, i + 20))];
      await expect(Promise.all(burst)).resolves.toHaveLength(41);
      flushed.splice(0);
      await vacuumTable(db);
      expect(flushedIn(dir).some((p) => /^pg_wal\/[0-9A-F]{24}$/.test(p))).toBe(true);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('flushes nothing with relaxed durability', async () => {
    const dir = join(tmp, 'relaxed');
    const db = await openEmbedded(dir, 'relaxed');
    try {
      await db.query('CREATE TABLE t (v text)');
      await db.query(`INSERT INTO t VALUES ('a')`);
      await db.transaction(async (tx) => void (await tx.query(`INSERT INTO t VALUES ('b')`)));
      expect(flushedIn(dir)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('refuses an embeddedDurability that is not full or relaxed, naming the option', async () => {
    const options = { dataDir: join(tmp, 'opts'), client: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }, embeddedDurability: 'off' as 'full' };
    await expect(openQueue(options)).rejects.toMatchObject({ code: 'invalid-options', message: expect.stringMatching(/embeddedDurability must be one of full, relaxed/) });
  });
});

describe("the embedded store's thread", () => {
  it('rolls a transaction back across the thread, and runs the statements sent meanwhile after its end', async () => {
    const dir = join(tmp, 'thread-tx');
    const db = await openEmbedded(dir, 'relaxed');
    try {
      await db.query('CREATE TABLE t (v text)');
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const failing = db.transaction(async (tx) => {
        await tx.query(`INSERT INTO t VALUES ('rolled back')`);
        await held;
        throw new Error('the caller gave up');
      });
      // Sent while the transaction is open: it waits for its end, so it never sees the row.
      const outside = db.query('SELECT count(*)::int AS n FROM t');
      expect(await settled(outside)).toBe(false);
      release();
      await expect(failing).rejects.toThrow('the caller gave up');
      await expect(outside).resolves.toEqual([{ n: 0 }]);
      // A statement that fails inside rolls the whole transaction back too; a committed one stays.
      await expect(
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO t VALUES ('x')`);
          await tx.query('SELECT 1/0');
        }),
      ).rejects.toMatchObject({ code: '22012' });
      await db.transaction(async (tx) => void (await tx.query(`INSERT INTO t VALUES ('kept')`)));
      await expect(db.query('SELECT v FROM t')).resolves.toEqual([{ v: 'kept' }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('reduces a failed statement to its SQLSTATE: the row it quotes never crosses from the thread', async () => {
    const dir = join(tmp, 'thread-errors');
    const db = await openEmbedded(dir, 'relaxed');
    try {
      await db.query('CREATE TABLE t (v text PRIMARY KEY)');
      await db.query('INSERT INTO t VALUES ($1)', ['priya.sharma@sbx']);
      const error = await db.query('INSERT INTO t VALUES ($1)', ['priya.sharma@sbx']).catch((e: unknown) => e);
      // PostgreSQL's message would be: duplicate key value violates unique constraint "t_pkey", Key (v)=(priya.sharma@sbx) already exists.
      expect(error).toMatchObject({ code: '23505' });
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('priya');
      const reduced = await run(db, 'storing a row', 'INSERT INTO t VALUES ($1)', ['priya.sharma@sbx']).catch((e: unknown) => e);
      expect(reduced).toMatchObject({ code: 'storage-failed', sqlState: '23505', message: "the queue's database failed while storing a row (23505)" });
      // The session goes on after the failure.
      await expect(db.query('SELECT count(*)::int AS n FROM t')).resolves.toEqual([{ n: 1 }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('fails every waiting and later call with a QueueError when its thread ends, instead of hanging', async () => {
    const dir = join(tmp, 'thread-killed');
    const db = await openEmbedded(dir, 'relaxed');
    try {
      await db.query('CREATE TABLE t (v text)');
      const waiting = db.query(`INSERT INTO t SELECT 'v' FROM generate_series(1, 200000)`);
      await db.thread.kill();
      await expect(waiting).rejects.toMatchObject({ name: 'QueueError', code: 'storage-failed', message: "the queue's embedded database stopped (its thread ended)" });
      await expect(db.query('SELECT 1')).rejects.toMatchObject({ code: 'storage-failed' });
      await expect(db.transaction(async (tx) => tx.query('SELECT 1'))).rejects.toMatchObject({ code: 'storage-failed' });
    } finally {
      await db.close();
    }
  }, 120_000);
});
