/**
 * The service's side of the embedded database's thread (embedded-thread.ts):
 * statements and transactions sent to the thread that owns PGlite, answers
 * matched to them by id. When the thread ends unasked (a crash of the
 * WebAssembly, a thread killed), every call waiting and every later one
 * rejects with a QueueError `storage-failed` instead of hanging.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../work-pool.js';
import type { Row, Sql } from './sql-base.js';
import type { ThreadAnswer, ThreadRequest } from './embedded-thread.js';
import { QueueError } from './types.js';

/** The thread's script: its twin beside this module (`.ts` in tests and development, run through tsx). */
const THREAD_SCRIPT = new URL(import.meta.url.endsWith('.ts') ? './embedded-thread.ts' : './embedded-thread.js', import.meta.url);

/** An error of the database reduced to its code (what storageError reads); never a message from the thread. */
const codeError = (code: string | undefined): Error => Object.assign(new Error('the embedded database failed'), code === undefined ? {} : { code });

const stopped = (): QueueError => new QueueError('storage-failed', "the queue's embedded database stopped (its thread ended)");

type Request = ThreadRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** The embedded database's thread, seen from the service's thread. */
export class EmbeddedThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (rows: Row[]) => void; reject: (e: unknown) => void }>();
  #ids = 0;
  #ended: QueueError | undefined;
  #closing = false;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (a: ThreadAnswer) => {
      if (!('id' in a)) return;
      const call = this.#pending.get(a.id);
      this.#pending.delete(a.id);
      if ('rows' in a) call?.resolve(a.rows);
      else call?.reject(codeError(a.code));
    });
    worker.on('error', () => this.#end());
    worker.on('exit', () => this.#end());
  }

  /**
   * Starts the thread and opens the database in `dir`.
   *
   * @throws an error with the code of the failure (storageError reduces it) when it cannot be opened
   */
  static open(dir: string): Promise<EmbeddedThread> {
    const worker = startWorker(THREAD_SCRIPT, { dir });
    return new Promise((resolve, reject) => {
      const onExit = (): void => reject(stopped());
      const onError = (): void => reject(stopped());
      const onMessage = (a: ThreadAnswer): void => {
        if (!('op' in a)) return;
        worker.off('exit', onExit).off('error', onError).off('message', onMessage);
        if (a.op === 'ready') resolve(new EmbeddedThread(worker));
        else {
          reject(codeError(a.code));
          void worker.terminate();
        }
      };
      worker.on('exit', onExit).on('error', onError).on('message', onMessage);
    });
  }

  /** Every call waiting fails, and every later one. */
  #end(): void {
    if (this.#ended !== undefined) return;
    this.#ended = this.#closing ? new QueueError('closed', 'the queue is closed') : stopped();
    for (const call of this.#pending.values()) call.reject(this.#ended);
    this.#pending.clear();
  }

  /** Sends `request` under `id` (a fresh one unless given) and resolves to its rows. */
  #call(request: Request, id = ++this.#ids): Promise<Row[]> {
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }

  /** Runs a statement (prepared in the thread). */
  query(text: string, params: readonly unknown[] = []): Promise<Row[]> {
    return this.#call({ op: 'query', text, params });
  }

  /** Runs `fn` in one transaction in the thread: committed when it resolves, rolled back when it rejects. */
  async transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    // The thread knows a transaction by the id of its `begin`.
    const tx = ++this.#ids;
    await this.#call({ op: 'begin' }, tx);
    let out: T;
    try {
      out = await fn({ query: (text, params = []) => this.#call({ op: 'query', text, params, tx }) });
    } catch (e) {
      await this.#call({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw e;
    }
    await this.#call({ op: 'end', tx, commit: true });
    return out;
  }

  /** Closes the database, then ends the thread. */
  async close(): Promise<void> {
    if (this.#ended !== undefined) return;
    this.#closing = true;
    try {
      await this.#call({ op: 'close' });
    } finally {
      await this.#worker.terminate();
    }
  }

  /** Ends the thread at once, as a crash would (tests). */
  kill(): Promise<number> {
    return this.#worker.terminate();
  }
}
