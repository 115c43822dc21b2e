/**
 * A small pool of worker threads for the CPU-bound work of `abha-link serve`
 * (validation, FHIR, rendering), so that the event loop, which answers
 * `/healthz` and renews the queue's leases, never waits on it.
 *
 * - At most `size` workers, started when work arrives (none while idle at start).
 * - A task waits in a bounded line when every worker is busy; when the line
 *   is full the task is refused at once (`busy`), never queued without end.
 * - Each task has a time limit from the moment a worker takes it; past it the
 *   worker is terminated (the only way to stop synchronous code) and another
 *   is started for the next task (`time-limit`).
 * - A worker that dies (an uncaught error, out of memory) fails only its own
 *   task (`worker-failed`) and is replaced.
 *
 * The pool knows nothing of the tasks: a message goes in, the worker's one
 * answer comes out. A worker script posts `WORKER_READY` once it has loaded
 * and then answers every message with exactly one message.
 */
import { Worker, type Transferable } from 'node:worker_threads';

/** What a worker script posts once its modules are loaded. */
export const WORKER_READY = 'abha-link-worker-ready';

/** Why the pool did not run a task to its end. */
export type WorkRefusal = 'busy' | 'time-limit' | 'worker-failed' | 'closed';

/** A task the pool refused or cut, with the reason. */
export class WorkRefusedError extends Error {
  override name = 'WorkRefusedError';
  readonly reason: WorkRefusal;
  constructor(reason: WorkRefusal, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Limits of a {@link WorkPool}. */
export interface WorkPoolOptions {
  /** The worker script (a `.ts` one is run through tsx: tests and development only). */
  readonly script: URL;
  /** Workers at most. */
  readonly size: number;
  /** Tasks that may wait for a worker; one more is refused as `busy`. */
  readonly maxWaiting: number;
  /** Milliseconds a worker may spend on one task before it is terminated. */
  readonly timeLimitMs: number;
  /** Given to every worker at its start (`workerData`, structured-cloned once per worker). */
  readonly workerData?: unknown;
}

/** Counts for /metrics and tests. */
export interface WorkPoolStats {
  readonly workers: number;
  readonly busy: number;
  readonly waiting: number;
  /** Tasks cut at the time limit since the start. */
  readonly cut: number;
  /** Workers that died on a task since the start. */
  readonly failed: number;
}

/** The pool: run a message on a worker, close at the end. */
export interface WorkPool {
  /** The worker's answer to `message`; rejects with a {@link WorkRefusedError} when refused or cut. */
  run(message: unknown, transfer?: readonly Transferable[]): Promise<unknown>;
  stats(): WorkPoolStats;
  /** Terminates every worker; waiting and running tasks are refused as `closed`. */
  close(): Promise<void>;
}

interface Task {
  readonly message: unknown;
  readonly transfer: readonly Transferable[];
  readonly resolve: (answer: unknown) => void;
  readonly reject: (e: WorkRefusedError) => void;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  task: Task | undefined;
  timer: NodeJS.Timeout | undefined;
}

/** Starts a worker; a TypeScript script (tests, development) is loaded through tsx. */
export function startWorker(script: URL, workerData: unknown): Worker {
  if (!script.pathname.endsWith('.ts')) return new Worker(script, { workerData });
  const boot = `import('tsx/esm/api').then((tsx) => tsx.register()).then(() => import(${JSON.stringify(script.href)}))`;
  return new Worker(boot, { eval: true, workerData });
}

/**
 * Creates a pool; no worker starts before the first task.
 *
 * @example
 * const pool = createWorkPool({ script: new URL('./work-worker.js', import.meta.url), size: 2, maxWaiting: 16, timeLimitMs: 20_000 })
 * const answer = await pool.run({ kind: 'fhir-validate', body })
 */
export function createWorkPool(options: WorkPoolOptions): WorkPool {
  const slots = new Set<Slot>();
  const waiting: Task[] = [];
  let cut = 0;
  let failed = 0;
  let closed = false;

  const finish = (slot: Slot): Task | undefined => {
    const task = slot.task;
    slot.task = undefined;
    clearTimeout(slot.timer);
    slot.timer = undefined;
    return task;
  };

  /** A worker is gone: its task (if any) fails, and the next waiting task may get a new worker. */
  const drop = (slot: Slot, refusal: WorkRefusedError | undefined): void => {
    if (!slots.delete(slot)) return;
    const task = finish(slot);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
    // A worker that fails before it is ready fails the first waiting task: a broken script must not loop.
    const victim = task ?? (slot.ready ? undefined : waiting.shift());
    if (victim !== undefined && refusal !== undefined) victim.reject(refusal);
    dispatch();
  };

  const give = (slot: Slot, task: Task): void => {
    slot.task = task;
    slot.timer = setTimeout(() => {
      cut++;
      drop(slot, new WorkRefusedError('time-limit', `the work took longer than ${options.timeLimitMs} ms, this server's limit`));
    }, options.timeLimitMs);
    slot.worker.postMessage(task.message, task.transfer as Transferable[]);
  };

  const spawn = (): void => {
    const slot: Slot = { worker: startWorker(options.script, options.workerData), ready: false, task: undefined, timer: undefined };
    slots.add(slot);
    const died = (): void => {
      if (!slots.has(slot)) return;
      failed++;
      drop(slot, new WorkRefusedError('worker-failed', 'the worker doing this work stopped unexpectedly'));
    };
    slot.worker.on('message', (m: unknown) => {
      if (!slot.ready && m === WORKER_READY) {
        slot.ready = true;
        return dispatch();
      }
      finish(slot)?.resolve(m);
      dispatch();
    });
    slot.worker.on('error', died);
    slot.worker.on('exit', died);
    // An idle worker does not keep the process alive.
    slot.worker.unref();
  };

  function dispatch(): void {
    if (closed) return;
    for (const slot of slots) {
      if (waiting.length === 0) return;
      if (slot.ready && slot.task === undefined) give(slot, waiting.shift() as Task);
    }
    const starting = [...slots].filter((s) => !s.ready).length;
    if (waiting.length > starting && slots.size < options.size) spawn();
  }

  return {
    run(message, transfer = []) {
      if (closed) return Promise.reject(new WorkRefusedError('closed', 'the server is stopping'));
      if (waiting.length >= options.maxWaiting) {
        return Promise.reject(new WorkRefusedError('busy', `every worker is busy and ${waiting.length} tasks wait`));
      }
      return new Promise((resolve, reject) => {
        waiting.push({ message, transfer, resolve, reject });
        dispatch();
      });
    },
    stats: () => ({ workers: slots.size, busy: [...slots].filter((s) => s.task !== undefined).length, waiting: waiting.length, cut, failed }),
    async close() {
      closed = true;
      const gone = new WorkRefusedError('closed', 'the server is stopping');
      for (const task of waiting.splice(0)) task.reject(gone);
      const all = [...slots];
      slots.clear();
      await Promise.all(
        all.map((slot) => {
          finish(slot)?.reject(gone);
          slot.worker.removeAllListeners();
          slot.worker.on('error', () => undefined);
          return slot.worker.terminate();
        }),
      );
    },
  };
}
