/**
 * The thread that owns the embedded database (PGlite): it opens it in the
 * directory it is given and runs the statements the service's thread sends
 * (see EmbeddedThread in embedded.ts), so that PostgreSQL's WebAssembly runs
 * beside the service instead of on its thread. Every answer is rows, or a
 * code alone (a SQLSTATE or a system error code): a driver's message can
 * quote a row, and rows hold link requests.
 *
 * A transaction is a session of its own: `begin` opens it and answers once
 * it began, its statements name it, `end` commits or rolls it back. The
 * statements sent meanwhile outside it wait for its end (PGlite runs one
 * thing at a time).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PreparedStatements } from './prepared.js';
import { codeOf, type Row } from './sql-base.js';

/** A request of the service's thread. */
export type ThreadRequest =
  | { readonly id: number; readonly op: 'query'; readonly text: string; readonly params: readonly unknown[]; readonly tx?: number }
  | { readonly id: number; readonly op: 'begin' }
  | { readonly id: number; readonly op: 'end'; readonly tx: number; readonly commit: boolean }
  | { readonly id: number; readonly op: 'close' };

/** An answer: `ready` once open, or rows (or a code) for a request's id. */
export type ThreadAnswer =
  | { readonly op: 'ready' }
  | { readonly op: 'open-failed'; readonly code: string | undefined }
  | { readonly id: number; readonly rows: Row[] }
  | { readonly id: number; readonly code: string | undefined };

/** Messages for one transaction, taken one at a time. */
class Inbox {
  readonly #waiting: ((m: ThreadRequest) => void)[] = [];
  readonly #queued: ThreadRequest[] = [];

  put(m: ThreadRequest): void {
    const take = this.#waiting.shift();
    if (take !== undefined) take(m);
    else this.#queued.push(m);
  }

  next(): Promise<ThreadRequest> {
    const m = this.#queued.shift();
    return m !== undefined ? Promise.resolve(m) : new Promise((resolve) => this.#waiting.push(resolve));
  }
}

/** Thrown inside a transaction to roll it back. */
const ROLLBACK = Symbol('rollback');

async function main(): Promise<void> {
  const port = parentPort;
  if (port === null) return;
  const answer = (a: ThreadAnswer): void => port.postMessage(a);
  const { dir } = workerData as { dir: string };
  const { PGlite, protocol } = await import('@electric-sql/pglite');
  let db: InstanceType<typeof PGlite>;
  try {
    db = await PGlite.create(dir);
    // Each statement planned once (see PreparedStatements): the queue's statements have plans that do not depend on their values.
    await db.query('SET plan_cache_mode = force_generic_plan');
  } catch (e) {
    answer({ op: 'open-failed', code: codeOf(e) });
    return;
  }
  const prepared = new PreparedStatements(db, protocol.serialize);
  const transactions = new Map<number, Inbox>();
  const reply = (id: number, run: () => Promise<Row[]>): Promise<void> =>
    run().then(
      (rows) => answer({ id, rows }),
      (e: unknown) => answer({ id, code: codeOf(e) }),
    );

  /** Runs a transaction whose statements and end come through its inbox. */
  const transaction = (id: number): void => {
    const inbox = new Inbox();
    transactions.set(id, inbox);
    let endId: number | undefined;
    let began = false;
    db.transaction(async (tx) => {
      began = true;
      answer({ id, rows: [] });
      for (;;) {
        const m = await inbox.next();
        if (m.op === 'end') {
          endId = m.id;
          if (m.commit) return;
          throw ROLLBACK;
        }
        if (m.op === 'query') await reply(m.id, async () => (await tx.query<Row>(m.text, m.params as unknown[])).rows);
      }
    })
      .then(
        () => endId !== undefined && answer({ id: endId, rows: [] }),
        (e: unknown) => {
          const to = began ? endId : id;
          if (to !== undefined) answer(e === ROLLBACK ? { id: to, rows: [] } : { id: to, code: codeOf(e) });
        },
      )
      .finally(() => transactions.delete(id));
  };

  /** A statement or the end of transaction `tx`; 25P01 (no active transaction) when it has ended. */
  const toTransaction = (tx: number, m: ThreadRequest): void => {
    const inbox = transactions.get(tx);
    if (inbox === undefined) answer({ id: m.id, code: '25P01' });
    else inbox.put(m);
  };

  port.on('message', (m: ThreadRequest) => {
    switch (m.op) {
      case 'query':
        if (m.tx === undefined) void reply(m.id, () => prepared.query(m.text, m.params));
        else toTransaction(m.tx, m);
        return;
      case 'begin':
        transaction(m.id);
        return;
      case 'end':
        toTransaction(m.tx, m);
        return;
      case 'close':
        void reply(m.id, async () => (await db.close(), [])).then(() => port.close());
        return;
    }
  });
  answer({ op: 'ready' });
}

// A failure outside a statement (the driver cannot load) ends the thread: the service's side fails every call.
main().catch(() => process.exit(1));
