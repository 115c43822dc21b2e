/**
 * The queue while its database opens behind a server that already listens:
 * the embedded store's first start (its initdb) takes seconds, a restart
 * after a crash recovers its log, and neither should keep the document
 * routes, /healthz or /readyz from answering. Calls wait for the opening,
 * up to a bound, then are refused as a storage outage (503 with
 * Retry-After); /readyz says `starting` until it is open.
 */
import type { LinkCareContextRequest } from '../generated/types.js';
import type { Ledger, LedgerOptions, ListOptions, Queue, StoreMaintenance, Submission, SubmissionPage, SubmissionStatus } from './queue-contract.js';
import { QueueError } from './queue/types.js';

/** How long a call waits for the opening before it is refused (below the default request time limit, 30 s). */
export const OPEN_WAIT_MS = 20_000;

/**
 * A {@link Queue} over one that is opening: each call waits for `opening`
 * (at most `waitMs`) and goes to the queue it resolves to. When the opening
 * fails, calls are refused as a storage outage; the server is expected to
 * stop (see start.ts).
 */
export class StartingQueue implements Queue {
  #queue: Queue | undefined;
  #failed = false;
  #started = false;
  readonly #opening: Promise<Queue>;

  constructor(
    opening: Promise<Queue>,
    readonly waitMs: number = OPEN_WAIT_MS,
  ) {
    this.#opening = opening.then(
      (queue) => {
        this.#queue = queue;
        if (this.#started) queue.start();
        return queue;
      },
      (e: unknown) => {
        this.#failed = true;
        throw e;
      },
    );
    // A failure is the opener's to report; the calls waiting see it too.
    this.#opening.catch(() => undefined);
  }

  /** True while the database is still opening. */
  starting(): boolean {
    return this.#queue === undefined && !this.#failed;
  }

  /** The open queue, once it is; a storage-failed QueueError when it does not open within `waitMs`, or failed to. */
  async #open(): Promise<Queue> {
    if (this.#queue !== undefined) return this.#queue;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.waitMs);
    });
    try {
      const queue = await Promise.race([this.#opening.catch(() => undefined), late]);
      if (queue !== undefined) return queue;
    } finally {
      clearTimeout(timer);
    }
    throw new QueueError('storage-failed', this.#failed ? 'the queue could not be opened' : 'the queue is still opening its database');
  }

  async enqueue(linkRequest: LinkCareContextRequest, options: { readonly callbackUrl?: string }): Promise<{ submission: Submission; created: boolean }> {
    return (await this.#open()).enqueue(linkRequest, options);
  }

  async get(id: string): Promise<Submission | undefined> {
    return (await this.#open()).get(id);
  }

  async list(options: ListOptions): Promise<SubmissionPage> {
    return (await this.#open()).list(options);
  }

  async ledger(options: LedgerOptions): Promise<Ledger> {
    return (await this.#open()).ledger(options);
  }

  async retry(id: string): Promise<Submission | 'not-found' | 'not-retryable'> {
    return (await this.#open()).retry(id);
  }

  async replace(id: string, linkRequest: LinkCareContextRequest): Promise<Submission | 'not-found'> {
    return (await this.#open()).replace(id, linkRequest);
  }

  async counts(): Promise<Record<SubmissionStatus, number>> {
    return (await this.#open()).counts();
  }

  /** Undefined until the queue is open (no wait: a scrape is not held up). */
  async maintenance(): Promise<StoreMaintenance | undefined> {
    return this.#queue?.maintenance?.();
  }

  /** False until the queue is open (no wait): /readyz answers at once. */
  async ready(): Promise<boolean> {
    return this.#queue === undefined ? false : this.#queue.ready();
  }

  /** Starts the worker now, or as soon as the queue is open. */
  start(): void {
    this.#started = true;
    this.#queue?.start();
  }

  /** Waits for the opening to end (it cannot be cut short), then closes the queue it opened. */
  async close(): Promise<void> {
    const queue = await this.#opening.catch(() => undefined);
    await queue?.close();
  }
}
