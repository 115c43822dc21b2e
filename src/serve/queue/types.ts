/**
 * The types of the submission queue behind `abha-link serve`: its options,
 * a submission as the API shows it, and its error with stable codes.
 */
import type { ClientOptions } from '../../client/client.js';
import { AbhaLinkError } from '../../errors.js';
import type { LinkCareContextRequest } from '../../generated/types.js';
import type { Issue } from '../../errors.js';
import type { CallbackAllow, LookupFn } from './callback-policy.js';
import type { EmbeddedDurability } from './durable.js';

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
 * only its state and which visit it is (identifiers and types, no patient and
 * no clinical content). `error` is set for `failed` and `unknown`: a stable
 * code (the client's reason, e.g. `rejected`, `timeout`, or the queue's own,
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
  /**
   * The link request's visitId, hipId, care-context referenceNumbers and
   * hiTypes (distinct, in order). Absent (empty lists) only for a submission
   * stored before version 4 of the schema whose request was already deleted.
   */
  readonly visitId?: string;
  readonly hipId?: string;
  readonly careContextReferences: readonly string[];
  readonly hiTypes: readonly string[];
}

/** What a listing may ask for (the query parameters of GET /v1/submissions). */
export interface ListOptions {
  readonly status?: SubmissionStatus;
  /** From this instant on (inclusive): an ISO 8601 instant with its offset, or a date (its start in India). */
  readonly from?: string;
  /** Before this instant (exclusive): an ISO 8601 instant with its offset, or a date (through its end in India). */
  readonly to?: string;
  readonly visitId?: string;
  readonly hipId?: string;
  /** Rows of the page (default 100, at most 1000). */
  readonly limit?: number;
  /** `nextCursor` of the page before: the next page. */
  readonly cursor?: string;
}

/** What the ledger may ask for: a time range on createdAt. */
export type LedgerOptions = Pick<ListOptions, 'from' | 'to'>;

/** One row of the ledger: the care contexts of one hiType in the submissions made that day and now in that status. */
export interface LedgerRow {
  /** The day the submissions were made, in India (YYYY-MM-DD). */
  readonly day: string;
  readonly status: SubmissionStatus;
  /** Absent for submissions whose care contexts are not known (stored before version 4 of the schema and already done). */
  readonly hiType?: string;
  /** Care contexts (health records); a submission without known care contexts counts one. */
  readonly count: number;
}

/** The daily ledger: its rows, their sum (`total`), and the number of submissions they come from. */
export interface Ledger {
  readonly days: readonly LedgerRow[];
  readonly total: number;
  readonly submissions: number;
}

/** A page of a listing: newest first; `nextCursor` when there may be more. */
export interface SubmissionPage {
  readonly submissions: Submission[];
  readonly nextCursor?: string;
}

/** A structured logger (pino's shape): an object of fields, then a message. Never given health data, keys or tokens. */
export interface QueueLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** The final-status callback: a signed POST to the submission's `callbackUrl` (see callback.ts). */
export interface CallbackOptions {
  /** The HMAC-SHA-256 key of the `X-Abha-Link-Signature: v1=<hex>` header (at least 16 characters). */
  readonly secret: string;
  /** Hosts (and ports) a callback may go to whatever their address (`--callback-allow`); plain http needs a loopback host and port here. */
  readonly allow?: readonly CallbackAllow[];
  /** The resolver (dns.lookup's shape; default dns.lookup): tests stub it. */
  readonly lookup?: LookupFn;
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
  /**
   * The embedded store only (`--embedded-durability`): `full` (default), a write (a 202, an outcome)
   * resolves once it is on disk; `relaxed`, once committed to the operating system, which keeps it
   * through a crash of the process but may lose the last seconds of writes to a power cut.
   */
  readonly embeddedDurability?: EmbeddedDurability;
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
  /**
   * The keys that encrypt stored link requests (AES-256-GCM), 32 bytes each,
   * the newest first: it encrypts, every one decrypts. Replicas sharing a
   * database need the same keys. Default: the key file `dataKeyFile`.
   */
  readonly dataKeys?: readonly Uint8Array[];
  /** A key file (one base64 key a line, newest first), made with a new key (0600) when missing; outside `dataDir`. Default `DIR.key` beside the data directory. */
  readonly dataKeyFile?: string;
  /** How long a `failed` or `unknown` submission keeps its stored request for a retry or a replacement, in days (default 30, 1 to 3650); then the request is deleted. */
  readonly keepFailedDays?: number;
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

/** What PostgreSQL's statistics say of the embedded store's table now (see vacuum.ts). */
export interface TableActivity {
  /** Rows, as the last vacuum or analyze counted them (kept across restarts), or as counted since the open when more. */
  readonly rows: number;
  /** Dead row versions since the open (or the last vacuum). */
  readonly deadRows: number;
  /** Rows inserted, updated or deleted since the last analyze (or the open). */
  readonly changedRows: number;
  /** The table's size on disk with its indexes, in bytes. */
  readonly bytes: number;
}

/** One vacuum's figures, for its log line and the metrics: no row's content. */
export interface VacuumRun {
  /** Rows in the table after it. */
  readonly rows: number;
  /** Dead row versions before it. */
  readonly deadRows: number;
  readonly ms: number;
}

/** What the embedded store's maintenance did since it opened, for the metrics. */
export interface StoreMaintenance {
  readonly vacuums: number;
  readonly lastVacuum: VacuumRun | undefined;
  readonly activity: TableActivity;
}

/** The queue. Open it with {@link openQueue}. */
export interface Queue {
  /**
   * Stores the link request durably, then resolves. The same item (same
   * hipId, visitId, ABHA address and care-context references) is one
   * submission: `created: false` and the first one's id; with another body
   * than the stored one, `different-body`.
   *
   * @throws QueueError `invalid-request` (with issues), `invalid-callback-url`, `different-body`, `closed`, `storage-failed`
   */
  enqueue(request: LinkCareContextRequest | unknown, options?: EnqueueOptions): Promise<EnqueueResult>;
  /** The submission, or undefined. */
  get(id: string): Promise<Submission | undefined>;
  /**
   * A page of submissions, newest first (default limit 100, at most 1000),
   * filtered by status, a range of createdAt, visitId and hipId; the next
   * page with `cursor: page.nextCursor`. Rows stored while paging come
   * before the cursor (a page never repeats or skips a row).
   *
   * @throws QueueError `invalid-options` (with issues naming the option, e.g. `/from`)
   */
  list(options?: ListOptions): Promise<SubmissionPage>;
  /**
   * The daily ledger: care contexts by day (in India), status and hiType,
   * of the submissions made in the range (all when none).
   *
   * @throws QueueError `invalid-options` (with issues naming the option)
   */
  ledger(options?: LedgerOptions): Promise<Ledger>;
  /** Queues an `unknown` or `failed` submission again: a deliberate resend of exactly the stored request. */
  retry(id: string): Promise<Submission | 'not-found' | 'not-retryable'>;
  /**
   * Replaces the stored request of a `failed` submission with a corrected
   * one of the same item, and queues it again.
   *
   * @throws QueueError `invalid-request`, `not-replaceable` (not failed), `different-item`, `storage-failed`
   */
  replace(id: string, request: LinkCareContextRequest | unknown): Promise<Submission | 'not-found'>;
  /** How many submissions are in each status. */
  counts(): Promise<Record<SubmissionStatus, number>>;
  /**
   * The embedded store's maintenance: its vacuums since it opened (the last
   * one's rows, dead rows and duration) and its table's statistics now (rows,
   * dead rows, changes since the last analyze, bytes). Undefined with
   * PostgreSQL, whose autovacuum does it.
   */
  maintenance(): Promise<StoreMaintenance | undefined>;
  /** True when the storage answers. */
  ready(): Promise<boolean>;
  /** Starts the worker (sending queued items). */
  start(): void;
  /**
   * One maintenance step now: renew this replica's leases, report other
   * replicas' expired items `unknown`, deliver due callbacks, vacuum the
   * embedded store when enough rows changed (looked at once a minute), look
   * for queued items. The worker does it every `pollMs` (at least every `leaseMs / 3`).
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
 * - `data-dir-unsafe`: other users can read or write the data directory;
 * - `invalid-data-key`: the data key (ABHA_LINK_SERVE_DATA_KEY or the key file) is missing, malformed or readable by others;
 * - `different-body`: the same item (same key) came with another body than the stored one (`storedBodySha256`);
 * - `not-replaceable`: only a `failed` submission can be replaced;
 * - `different-item`: a replacement body is another item (hipId, visitId, ABHA address or care contexts differ);
 * - `storage-failed`: the database could not be opened, migrated, read or written;
 * - `closed`: the queue is closed.
 */
export type QueueErrorCode =
  | 'invalid-options'
  | 'invalid-request'
  | 'invalid-callback-url'
  | 'invalid-id'
  | 'data-dir-in-use'
  | 'data-dir-unsafe'
  | 'invalid-data-key'
  | 'different-body'
  | 'not-replaceable'
  | 'different-item'
  | 'storage-failed'
  | 'closed';

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
  /** For `different-body`: the SHA-256 (hex) of the stored body's canonical JSON (see docs/serve.md), never the body. */
  readonly storedBodySha256: string | undefined;

  constructor(code: QueueErrorCode, message: string, details: { issues?: readonly Issue[]; sqlState?: string | undefined; storedBodySha256?: string } = {}) {
    super(message);
    this.code = code;
    this.issues = details.issues ?? [];
    this.sqlState = details.sqlState;
    this.storedBodySha256 = details.storedBodySha256;
  }
}

/** True for a {@link QueueError}. */
export const isQueueError = (e: unknown): e is QueueError => e instanceof QueueError;
