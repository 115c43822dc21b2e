/**
 * The worker of one replica: claims queued items while it has free slots,
 * sends each with the client (its guarantees: the token, retries only when
 * provably unsent, an unknown outcome never repeated, Retry-After honoured),
 * and records each outcome. Recording and claiming run in cycles, one at a
 * time: a cycle records every outcome that came in since the last one and
 * claims items for every free slot in one statement, so that a busy replica
 * writes once per batch of answers instead of twice per item (the embedded
 * store runs one statement at a time, in its own thread, and flushes each write to disk). A tick renews this replica's leases,
 * turns other replicas' expired leases into `unknown`, picks up items
 * queued elsewhere, delivers callbacks and vacuums the embedded store when
 * enough rows changed (see vacuum.ts).
 */
import type { AbhaClient } from '../../client/client.js';
import { OutcomeUnknownError, TransportError } from '../../client/errors.js';
import { AlreadyLinkedError } from '../../client/link-answer.js';
import { ValidationError } from '../../errors.js';
import type { LinkCareContextRequest } from '../../generated/types.js';
import { deliverCallbacks } from './callback.js';
import type { DataKeys } from './data-key.js';
import type { Database } from './sql.js';
import { expireBodies, expireLeases, recordAndClaim, renewLeases, type Claimed, type Outcome } from './store.js';
import type { CallbackOptions, QueueLogger } from './types.js';
import type { Vacuumer } from './vacuum.js';

/** What the worker needs. */
export interface WorkerConfig {
  readonly db: Database;
  readonly client: AbhaClient;
  readonly replicaId: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly tickMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly logger: QueueLogger | undefined;
  readonly callback: CallbackOptions | undefined;
  /** The keys of the stored requests: claims take only items sealed with one of them. */
  readonly keys: DataKeys;
  /** How long a failed or unknown item keeps its request (ms since its last change). */
  readonly keepBodiesMs: number;
  /** The embedded store's vacuum (none for PostgreSQL, whose autovacuum does it). */
  readonly vacuumer?: Vacuumer | undefined;
}

/** Failures after which the worker pauses claiming: the service looks down, or refuses the API key. */
const PAUSING = new Set(['authentication', 'rate-limited', 'server-error', 'connection-refused', 'dns', 'connect-timeout', 'unreachable', 'tls', 'request-refused']);
const MAX_PAUSE_MS = 30_000;
/** How often a replica looks for stored requests to delete (failed or unknown items past their time). */
const EXPIRY_EVERY_MS = 60_000;

/**
 * What one send became (pure; a table test covers it).
 *
 * @example
 * outcomeOf(new RejectedError('...', details)) //=> { status: 'failed', code: 'rejected', message: '...' }
 */
export function outcomeOf(error: unknown): Pick<Outcome, 'status' | 'code' | 'message'> {
  if (error instanceof AlreadyLinkedError) return { status: 'already-linked', code: null, message: null };
  if (error instanceof OutcomeUnknownError) return { status: 'unknown', code: error.reason, message: error.message };
  if (error instanceof TransportError) return { status: 'failed', code: error.reason, message: error.message };
  if (error instanceof ValidationError) return { status: 'failed', code: 'invalid-request', message: 'the link request is not valid' };
  // Not an error of the client: the request may have left.
  return { status: 'unknown', code: 'internal-error', message: 'the send ended with an unexpected error; it may have been sent' };
}

/** Why an item became `failed`, `unknown` or `already-linked`, for its log line. */
export interface ItemEnd {
  readonly id: string;
  readonly visitId: string | undefined;
  readonly status: 'already-linked' | 'failed' | 'unknown';
  /** The error code (`rejected`, `timeout`, `lease-expired`, `replica-restarted`, ...); `already-linked` for that status. */
  readonly code: string;
}

const END_MESSAGES: Readonly<Record<string, string>> = {
  'already-linked': 'already linked: done, nothing linked again',
  failed: 'send failed',
  unknown: 'outcome unknown: not sent again',
  'lease-expired': 'the lease of the replica sending it ran out: unknown, not sent again',
  'replica-restarted': 'in flight when this replica stopped: unknown, not sent again',
  'stored-request-unreadable': 'the stored request cannot be decrypted: not sent',
};

/**
 * The one log line of an item that became `failed`, `unknown` or
 * `already-linked`: its id, visitId, status and code, never the request,
 * the ABHA address or the service's message. Pure; the caller logs it.
 *
 * @example
 * itemEndLine({ id, visitId: 'OPD-42', status: 'failed', code: 'rejected' }) //=> ['warn', { id, visitId: 'OPD-42', status: 'failed', code: 'rejected' }, 'send failed']
 */
export function itemEndLine(end: ItemEnd): ['info' | 'warn' | 'error', Record<string, unknown>, string] {
  const fields = { id: end.id, ...(end.visitId === undefined ? {} : { visitId: end.visitId }), status: end.status, code: end.code };
  const message = END_MESSAGES[end.code] ?? END_MESSAGES[end.status] ?? 'ended';
  const level = end.status === 'already-linked' ? 'info' : end.code === 'stored-request-unreadable' ? 'error' : 'warn';
  return [level, fields, message];
}

export class Worker {
  readonly #c: WorkerConfig;
  readonly #stop = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  /** Outcomes of sends that ended, to be recorded by the next cycle. */
  #outcomes: Outcome[] = [];
  /** The cycles running (see {@link Worker.poke}); undefined when idle. */
  #cycles: Promise<void> | undefined;
  #started = false;
  #again = false;
  #pausedUntil = 0;
  #pauseMs = 0;
  #loop: Promise<void> | undefined;
  /** When the next tick looks for stored requests past their time. */
  #nextExpiry = 0;
  /** Resolves at stop: a wait of the loop ends then even when the injected sleep ignores its signal. */
  readonly #stopped = new Promise<void>((resolve) => this.#stop.signal.addEventListener('abort', () => resolve(), { once: true }));

  constructor(config: WorkerConfig) {
    this.#c = config;
  }

  #log(level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string): void {
    this.#c.logger?.[level]({ component: 'queue', replicaId: this.#c.replicaId, ...fields }, message);
  }

  /** Logs the line of an item that ended failed, unknown or already linked. */
  #end(end: ItemEnd): void {
    this.#log(...itemEndLine(end));
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  start(): void {
    if (this.#started || this.#stop.signal.aborted) return;
    this.#started = true;
    this.#loop = this.#tickLoop();
    this.poke();
  }

  /**
   * Looks for work now (after an enqueue, a retry, a send that ended): starts
   * the cycles unless they run, in which case one more cycle follows. The
   * first cycle waits one turn of the event loop, so that the answers that
   * arrived together are recorded together.
   */
  poke(): void {
    if (this.#cycles !== undefined) {
      this.#again = true;
      return;
    }
    if (this.#outcomes.length === 0 && !this.#mayClaim()) return;
    this.#cycles = this.#runCycles();
  }

  /** Whether this worker may claim now: started, not stopping, not paused, a slot free. */
  #mayClaim(): boolean {
    return this.#started && !this.#stop.signal.aborted && this.#c.now() >= this.#pausedUntil && this.#inFlight.size < this.#c.concurrency;
  }

  async #runCycles(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    do {
      this.#again = false;
      await this.#cycle();
    } while (this.#again || this.#outcomes.length > 0);
    this.#cycles = undefined;
  }

  /**
   * One cycle, one statement: records the outcomes that came in and claims an
   * item for each free slot (see {@link recordAndClaim}), then sends them.
   */
  async #cycle(): Promise<void> {
    const outcomes = this.#outcomes.splice(0);
    const free = this.#mayClaim() ? this.#c.concurrency - this.#inFlight.size : 0;
    if (outcomes.length === 0 && free === 0) return;
    const now = this.#c.now();
    let items: Claimed[] = [];
    try {
      const cycle = { replica: this.#c.replicaId, outcomes, keyIds: this.#c.keys.ids, n: free, now: new Date(now), leaseUntil: new Date(now + this.#c.leaseMs) };
      items = await recordAndClaim(this.#c.db, cycle);
    } catch (e) {
      // The items stay `sending`: when the lease runs out they become `unknown`, never sent again.
      const code = (e as { code?: unknown }).code;
      if (outcomes.length > 0) this.#log('error', { code, items: outcomes.length }, 'could not record outcomes');
      else this.#log('error', { code }, 'could not claim queued items');
    }
    for (const item of items) {
      const p: Promise<void> = this.#send(item).finally(() => {
        this.#inFlight.delete(p);
        this.poke();
      });
      this.#inFlight.add(p);
    }
    // A full claim: there may be more.
    if (free > 0 && items.length === free) this.#again = true;
  }

  /** An outcome to record: the next cycle writes it with the others that came in meanwhile. */
  #record(outcome: Outcome): void {
    this.#outcomes.push(outcome);
  }

  /** The stored request of a claimed item, or undefined when it cannot be opened (altered, or its key is gone). */
  #request(item: Claimed): LinkCareContextRequest | undefined {
    const text = item.body === undefined ? undefined : this.#c.keys.open(item.id, item.body);
    return text === undefined ? undefined : (JSON.parse(text) as LinkCareContextRequest);
  }

  async #send(item: Claimed): Promise<void> {
    let outcome: Outcome;
    const request = this.#request(item);
    if (request === undefined) {
      // Nothing left: the request is not sent, and cannot be.
      this.#end({ id: item.id, visitId: item.visitId, status: 'failed', code: 'stored-request-unreadable' });
      this.#record({
        id: item.id,
        attempts: item.attempts,
        status: 'failed',
        code: 'stored-request-unreadable',
        message: 'the stored request could not be decrypted (altered, or sealed with a key this server does not have); it was not sent',
      });
      return;
    }
    try {
      await this.#c.client.linkCareContexts(request);
      outcome = { id: item.id, attempts: item.attempts, status: 'acknowledged', code: null, message: null };
      this.#pauseMs = 0;
    } catch (e) {
      const o = outcomeOf(e);
      outcome = { id: item.id, attempts: item.attempts, ...o };
      if (o.status !== 'acknowledged') this.#end({ id: item.id, visitId: item.visitId, status: o.status, code: o.code ?? o.status });
      if (o.code !== null && PAUSING.has(o.code)) this.#pause();
    }
    // The slot is free once the answer is in: the outcome is written by the next cycle (grouped
    // with others), and stop() waits for it. A replica that dies before it lands leaves the item
    // `sending`, which becomes `unknown`: never sent twice.
    this.#record(outcome);
  }

  /** After a failure that says the service is down or refuses us: claim nothing for a while (1 s, doubling up to 30 s). */
  #pause(): void {
    this.#pauseMs = Math.min(MAX_PAUSE_MS, this.#pauseMs === 0 ? 1000 : this.#pauseMs * 2);
    this.#pausedUntil = this.#c.now() + this.#pauseMs;
    this.#log('warn', { pauseMs: this.#pauseMs }, 'the service looks unavailable: pausing');
  }

  /** One tick: renew, expire, pick up, deliver, vacuum (the embedded store, when due). Exposed for tests that drive time by hand. */
  async tick(): Promise<void> {
    const { db, replicaId, now, leaseMs } = this.#c;
    try {
      if (this.#inFlight.size > 0) await renewLeases(db, replicaId, new Date(now() + leaseMs));
      const expired = await expireLeases(db, new Date(now()));
      for (const item of expired) this.#end({ ...item, status: 'unknown' });
      let deleted = 0;
      if (now() >= this.#nextExpiry) {
        this.#nextExpiry = now() + EXPIRY_EVERY_MS;
        deleted = await expireBodies(db, new Date(now() - this.#c.keepBodiesMs));
      }
      if (deleted > 0) this.#log('info', { count: deleted }, 'deleted the stored requests of old failed and unknown items');
      if (this.#c.callback !== undefined) await deliverCallbacks(db, this.#c.callback, { now, leaseMs, log: (l, f, m) => this.#log(l, f, m) });
      const vacuum = await this.#c.vacuumer?.maybeVacuum();
      if (vacuum !== undefined) this.#log('info', { rows: vacuum.rows, deadRows: vacuum.deadRows, ms: vacuum.ms }, "vacuumed the queue's table");
    } catch (e) {
      this.#log('error', { code: (e as { code?: unknown }).code }, 'queue maintenance failed');
    }
    this.poke();
  }

  async #tickLoop(): Promise<void> {
    while (!this.#stop.signal.aborted) {
      try {
        await Promise.race([this.#c.sleep(this.#c.tickMs, this.#stop.signal), this.#stopped]);
      } catch {
        return;
      }
      if (this.#stop.signal.aborted) return;
      await this.tick();
    }
  }

  /** Stops claiming, waits for the sends in flight and their records. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
    // The cycles claim nothing more once stopping; the sends in flight end, each pokes a cycle that records it.
    while (this.#cycles !== undefined || this.#inFlight.size > 0) await Promise.all([this.#cycles, ...this.#inFlight]);
  }
}
