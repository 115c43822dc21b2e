/**
 * The types of the submission queue behind `abha-link serve`: its options,
 * a submission as the API shows it, and its error with stable codes.
 */
import type { ClientOptions } from '../../client/client.js';
import { AbhaLinkError } from '../../errors.js';
import type { LinkCareContextRequest } from '../../generated/types.js';
import type { Issue } from '../../errors.js';

/**
 * Where a submission is: see docs/serve.md (## Queue) for the transitions.
 * `already-linked`: the service answered that its care contexts were linked
 * before; done, like `acknowledged`.
 */
export type SubmissionStatus = 'queued' | 'sending' | 'acknowledged' | 'already-linked' | 'failed' | 'unknown';

/** Every status, in the order of a submission's life. */
export const SUBMISSION_STATUSES: readonly SubmissionStatus[] = ['queued', 'sending', 'acknowledged', 'already-linked', 'failed', 'unknown'];

/**
 * A submission as the API shows it: never the request itself (health data),
 * only its state. `error` is set for `failed` and `unknown`: a stable code
 * (the client's reason, e.g. `rejected`, `timeout`, or the queue's own,
 * e.g. `lease-expired`) and a message that holds no health data.
 */
export interface Submission {
  readonly id: string;
  readonly status: SubmissionStatus;
  /** Times the worker took it to send (a deliberate retry adds one more). */
  readonly attempts: number;
  readonly error?: { readonly code: string; readonly message: string };
  /** ISO 8601 timestamps. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A structured logger (pino's shape): an object of fields, then a message. Never given health data, keys or tokens. */
export interface QueueLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** The final-status callback: a signed POST to the submission's `callbackUrl`. */
export interface CallbackOptions {
  /** The HMAC-SHA-256 key of the `X-Abha-Link-Signature: sha256=<hex>` header (at least 16 characters). */
  readonly secret: string;
  /** The fetch function (default: the global fetch). */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Timeout of one delivery in ms (default 5000). */
  readonly timeoutMs?: number;
  /** Deliveries tried per submission before giving up (default 5). */
  readonly maxAttempts?: number;
}

/**
 * Options of {@link openQueue}.
 *
 * @example
 * const queue = await openQueue({ dataDir: './abha-link-data', client: { baseUrl, apiKey }, concurrency: 8 })
 */
export interface QueueOptions {
  /** The data directory (`--data DIR`): the embedded database, the replica id and the lock live here. */
  readonly dataDir: string;
  /** `postgres://…` (ABHA_LINK_DATABASE_URL): share the queue with other replicas in PostgreSQL; default: the embedded store in `dataDir`. */
  readonly databaseUrl?: string;
  /** The client the worker sends with (`createClient`'s options: base URL, API key, retry, timeouts, fetch). */
  readonly client: ClientOptions;
  /** Requests in flight at once in this replica (default 4, 1 to 256). */
  readonly concurrency?: number;
  /** How long a replica's claim on an item it sends lasts without renewal, in ms (default 30000, 1000 to 60000). */
  readonly leaseMs?: number;
  /** How often the worker looks for items queued by other replicas and for expired leases, in ms (default 1000). */
  readonly pollMs?: number;
  /** The clock, ms since the epoch (default Date.now). */
  readonly now?: () => number;
  /** A wait of the worker's loop (default a timer); the signal aborts it at close. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Receives the queue's log lines (default: none). */
  readonly logger?: QueueLogger;
  /** Signed callbacks with the final status; without it, a `callbackUrl` is refused. */
  readonly callback?: CallbackOptions;
  /** This replica's id (default: one kept in `dataDir/replica-id`, made on first start). */
  readonly replicaId?: string;
  /** The database pool's size with `databaseUrl` (default concurrency + 4). */
  readonly poolSize?: number;
}

/** Options of `queue.enqueue`. */
export interface EnqueueOptions {
  /** Called with the final status (http: or https:); needs `callback` in the queue's options. */
  readonly callbackUrl?: string;
}

/** What `enqueue` resolves to: the submission, and whether this call made it (false: the same item was submitted before). */
export interface EnqueueResult {
  readonly submission: Submission;
  readonly created: boolean;
}

/** The queue. Open it with {@link openQueue}. */
export interface Queue {
  /**
   * Stores the link request durably, then resolves. The same item (same
   * hipId, visitId, ABHA address and care-context references) is one
   * submission: `created: false` and the first one's id.
   *
   * @throws QueueError `invalid-request` (with issues), `invalid-callback-url`, `closed`, `storage-failed`
   */
  enqueue(request: LinkCareContextRequest | unknown, options?: EnqueueOptions): Promise<EnqueueResult>;
  /** The submission, or undefined. */
  get(id: string): Promise<Submission | undefined>;
  /** Submissions, newest first (default limit 100, at most 1000). */
  list(options?: { readonly status?: SubmissionStatus; readonly limit?: number }): Promise<Submission[]>;
  /** Queues an `unknown` or `failed` submission again: a deliberate resend. */
  retry(id: string): Promise<Submission | 'not-found' | 'not-retryable'>;
  /** How many submissions are in each status. */
  counts(): Promise<Record<SubmissionStatus, number>>;
  /** True when the storage answers. */
  ready(): Promise<boolean>;
  /** Starts the worker (sending queued items). */
  start(): void;
  /**
   * One maintenance step now: renew this replica's leases, report other
   * replicas' expired items `unknown`, deliver due callbacks, look for queued
   * items. The worker does it every `pollMs` (at least every `leaseMs / 3`).
   */
  tick(): Promise<void>;
  /** Stops taking new work, waits for the sends in flight and their records, then releases the storage. */
  close(): Promise<void>;
  /** This replica's id (in the `leased_by` column). */
  readonly replicaId: string;
}

/**
 * The stable codes of {@link QueueError}.
 * - `invalid-options`: an option out of range;
 * - `invalid-request`: the link request is not valid (see `issues`);
 * - `invalid-callback-url`: not an http(s) URL, or no callback secret configured;
 * - `invalid-id`: not a submission id;
 * - `data-dir-in-use`: another process holds the data directory;
 * - `storage-failed`: the database could not be opened, migrated, read or written;
 * - `closed`: the queue is closed.
 */
export type QueueErrorCode = 'invalid-options' | 'invalid-request' | 'invalid-callback-url' | 'invalid-id' | 'data-dir-in-use' | 'storage-failed' | 'closed';

/**
 * An error of the queue: a stable `code`, a message without health data,
 * and for `invalid-request` the issues (paths and codes, never values). A
 * database error is kept only as its SQLSTATE code (`sqlState`), never its
 * message, which can quote a row.
 */
export class QueueError extends AbhaLinkError {
  override name = 'QueueError';
  readonly code: QueueErrorCode;
  readonly issues: readonly Issue[];
  readonly sqlState: string | undefined;

  constructor(code: QueueErrorCode, message: string, details: { issues?: readonly Issue[]; sqlState?: string | undefined } = {}) {
    super(message);
    this.code = code;
    this.issues = details.issues ?? [];
    this.sqlState = details.sqlState;
  }
}

/** True for a {@link QueueError}. */
export const isQueueError = (e: unknown): e is QueueError => e instanceof QueueError;
