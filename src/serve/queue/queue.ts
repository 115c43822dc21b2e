/**
 * openQueue: the durable submission queue of `abha-link serve`. See
 * docs/serve.md (## Queue) for the states and the guarantees.
 */
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createClient, type AbhaClient } from '../../client/client.js';
import type { LinkCareContextRequest } from '../../generated/types.js';
import { linkRequestKey } from '../../link-key.js';
import { lintLinkRequest } from '../../validation/lint.js';
import { validateLinkRequest } from '../../validation/validate.js';
import { lockDataDir, type DataDir } from './data-dir.js';
import { dataKeys, defaultKeyFile, readKeyFile, type DataKeys, type SealedBody } from './data-key.js';
import { migrate } from './migrate.js';
import { EMBEDDED_DURABILITIES } from './durable.js';
import { openEmbedded, openPostgres, type Database } from './sql.js';
import { GroupCommit } from './group-commit.js';
import { ledgerRange, listFilter, visitFields } from './listing.js';
import {
  backfillVisitFields,
  countSubmissions,
  getSubmission,
  insertSubmissions,
  ledgerOf,
  listSubmissions,
  orphansOf,
  replaceBody,
  requeue,
  sealLegacyRequests,
  toSubmission,
  type NewSubmission,
} from './store.js';
import type { Row } from './sql.js';
import {
  QueueError,
  type EnqueueOptions,
  type EnqueueResult,
  type Ledger,
  type LedgerOptions,
  type ListOptions,
  type Queue,
  type QueueOptions,
  type Submission,
  type SubmissionPage,
  type StoreMaintenance,
  type SubmissionStatus,
} from './types.js';
import { Vacuumer } from './vacuum.js';
import { itemEndLine, Worker } from './worker.js';

/** How often the embedded store looks whether its table needs a vacuum (autovacuum's naptime). */
const VACUUM_CHECK_EVERY_MS = 60_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function wholeNumber(name: string, value: number | undefined, dflt: number, min: number, max: number): number {
  const v = value ?? dflt;
  if (!Number.isInteger(v) || v < min || v > max) throw new QueueError('invalid-options', `${name} must be a whole number from ${min} to ${max}`);
  return v;
}

/** A timer that an abort cuts short. */
function timerSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** JSON with object keys sorted at every level: the same request, however its keys were ordered. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The SHA-256 (hex) of a link request's canonical JSON: keys sorted, care
 * contexts in the order of their referenceNumber (their order does not
 * change the link), no spaces. Two bodies of one item with the same hash
 * are the same request.
 */
export function bodySha256(request: LinkCareContextRequest): string {
  const careContexts = [...request.careContexts].sort((a, b) => (a.referenceNumber < b.referenceNumber ? -1 : a.referenceNumber > b.referenceNumber ? 1 : 0));
  return createHash('sha256')
    .update(canonicalJson({ ...request, careContexts }))
    .digest('hex');
}

/** The request sealed for row `id`, and its hash. */
function sealRequest(keys: DataKeys, id: string, request: LinkCareContextRequest): { body: SealedBody; sha256: string } {
  return { body: keys.seal(id, JSON.stringify(request)), sha256: bodySha256(request) };
}

/** The visit fields of a stored request, or undefined when it does not open (altered, or its key is gone). */
function openVisit(keys: DataKeys, id: string, body: SealedBody): ReturnType<typeof visitFields> | undefined {
  const text = keys.open(id, body);
  return text === undefined ? undefined : visitFields(JSON.parse(text) as LinkCareContextRequest);
}

/** A link request that is valid and has no lint error, or an `invalid-request` QueueError. */
function checkedRequest(request: unknown): LinkCareContextRequest {
  const checked = validateLinkRequest(request);
  const issues = checked.success ? lintLinkRequest(checked.value).filter((i) => i.severity === 'error') : checked.issues;
  if (!checked.success || issues.length > 0) throw new QueueError('invalid-request', `the link request is not valid (${issues.length} issues)`, { issues });
  return checked.value;
}

/** The keys of the options: given, or read from (made in) the key file. */
async function keysOf(options: QueueOptions): Promise<{ keys: DataKeys; createdFile: string | undefined }> {
  if (options.dataKeys !== undefined) return { keys: dataKeys(options.dataKeys), createdFile: undefined };
  const file = options.dataKeyFile ?? defaultKeyFile(options.dataDir);
  const { keys, created } = await readKeyFile(file, options.dataDir);
  return { keys: dataKeys(keys), createdFile: created ? file : undefined };
}

function checkCallbackUrl(url: string | undefined, configured: boolean): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || url.length > 2048) {
    throw new QueueError('invalid-callback-url', 'callbackUrl must be an http: or https: URL of at most 2048 characters');
  }
  if (!configured) throw new QueueError('invalid-callback-url', 'callbackUrl needs a callback secret in the service configuration (none is set)');
  return parsed.href;
}

/**
 * A queue whose data directory is locked and whose keys are read, its
 * database not open yet: what can be refused at once (another process on
 * the directory, its permissions, the key, an option) has been. `open()`
 * does the slow part (the database's start, the migrations), so that a
 * server can listen meanwhile.
 */
export interface ReservedQueue {
  readonly replicaId: string;
  /** Opens the database (see {@link openQueue}); on failure the data directory is released. */
  open(): Promise<Queue>;
  /** Releases the data directory without opening. */
  release(): Promise<void>;
}

/**
 * The first half of {@link openQueue}: checks the options, locks the data
 * directory and reads (or makes) the data key.
 *
 * @throws QueueError `invalid-options`, `data-dir-in-use`, `data-dir-unsafe`, `invalid-data-key`, `storage-failed`
 */
export async function reserveQueue(options: QueueOptions): Promise<ReservedQueue> {
  const concurrency = wholeNumber('concurrency', options.concurrency, 4, 1, 256);
  const leaseMs = wholeNumber('leaseMs', options.leaseMs, 30_000, 1000, 60_000);
  const pollMs = wholeNumber('pollMs', options.pollMs, 1000, 10, 60_000);
  if (typeof options.dataDir !== 'string' || options.dataDir === '') throw new QueueError('invalid-options', 'dataDir is required');
  if (options.databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(options.databaseUrl)) {
    throw new QueueError('invalid-options', 'the database URL must start with postgres:// or postgresql://');
  }
  if (options.embeddedDurability !== undefined && !EMBEDDED_DURABILITIES.includes(options.embeddedDurability)) {
    throw new QueueError('invalid-options', `embeddedDurability must be one of ${EMBEDDED_DURABILITIES.join(', ')}`);
  }
  if (options.callback !== undefined && (typeof options.callback.secret !== 'string' || options.callback.secret.length < 16)) {
    throw new QueueError('invalid-options', 'the callback secret must be at least 16 characters');
  }
  let client;
  try {
    client = createClient(options.client);
  } catch (e) {
    throw new QueueError('invalid-options', `client: ${(e as Error).message}`);
  }
  const keepFailedDays = wholeNumber('keepFailedDays', options.keepFailedDays, 30, 1, 3650);
  const dir = await lockDataDir(options.dataDir, options.replicaId);
  let keys: DataKeys;
  try {
    const read = await keysOf(options);
    keys = read.keys;
    if (read.createdFile !== undefined) {
      options.logger?.warn({ component: 'queue', keyFile: read.createdFile }, 'made a new data key file (0600): back it up apart from the data; replicas sharing a database need the same key');
    }
  } catch (e) {
    await dir.release();
    throw e;
  }
  const settings = { concurrency, leaseMs, tickMs: Math.min(pollMs, Math.floor(leaseMs / 3)), keepBodiesMs: keepFailedDays * 86_400_000 };
  return { replicaId: dir.replicaId, open: () => openReserved(options, dir, keys, client, settings), release: () => dir.release() };
}

/** The second half of {@link openQueue}: the database opened and migrated, the items this replica was sending when it last stopped made `unknown`. */
async function openReserved(
  options: QueueOptions,
  dir: DataDir,
  keys: DataKeys,
  client: AbhaClient,
  settings: { concurrency: number; leaseMs: number; tickMs: number; keepBodiesMs: number },
): Promise<Queue> {
  let db: Database | undefined;
  try {
    await dir.makePrivate();
    db =
      options.databaseUrl !== undefined
        ? await openPostgres(options.databaseUrl, options.poolSize ?? settings.concurrency + 4)
        : await openEmbedded(join(options.dataDir, 'queue-db'), options.embeddedDurability);
    const { applied, salt } = await migrate(db);
    const sealed = await sealLegacyRequests(db, (id, request) => sealRequest(keys, id, request as LinkCareContextRequest));
    // The rows of earlier versions that still hold their request get their visit fields once, when migration 4 is applied.
    const backfilled = applied.includes(4) ? await backfillVisitFields(db, (id, body) => openVisit(keys, id, body)) : 0;
    const now = options.now ?? Date.now;
    const recovered = await orphansOf(db, dir.replicaId, new Date(now()));
    const opened = { component: 'queue', replicaId: dir.replicaId, store: db.kind, migrations: applied, recovered: recovered.length, sealed };
    options.logger?.info(applied.includes(4) ? { ...opened, backfilled } : opened, 'queue opened');
    for (const item of recovered) {
      const [level, fields, message] = itemEndLine({ ...item, status: 'unknown' });
      options.logger?.[level]({ component: 'queue', replicaId: dir.replicaId, ...fields }, message);
    }
    const vacuumer = db.kind === 'embedded' ? new Vacuumer(db, now, VACUUM_CHECK_EVERY_MS) : undefined;
    const worker = new Worker({
      db,
      client,
      replicaId: dir.replicaId,
      concurrency: settings.concurrency,
      leaseMs: settings.leaseMs,
      tickMs: settings.tickMs,
      now,
      sleep: options.sleep ?? timerSleep,
      logger: options.logger,
      callback: options.callback,
      keys,
      keepBodiesMs: settings.keepBodiesMs,
      vacuumer,
    });
    return new OpenQueue(db, worker, { salt, keys }, now, options.callback !== undefined, dir, vacuumer);
  } catch (e) {
    await db?.close().catch(() => undefined);
    await dir.release();
    throw e;
  }
}

/**
 * Opens the queue: locks the data directory, opens the database (PostgreSQL
 * at `databaseUrl`, else the embedded one in `dataDir/queue-db`), migrates
 * its schema, and reports as `unknown` the items this replica was sending
 * when it last stopped. Call `start()` to send.
 *
 * @throws QueueError `invalid-options`, `data-dir-in-use`, `storage-failed`
 * @example
 * const queue = await openQueue({ dataDir: 'abha-link-data', client: { baseUrl: mock.url, apiKey: mock.apiKey } })
 * queue.start()
 * const { submission } = await queue.enqueue(linkRequest) //=> { submission: { id: '…', status: 'queued', attempts: 0, … }, created: true }
 */
export async function openQueue(options: QueueOptions): Promise<Queue> {
  return (await reserveQueue(options)).open();
}

class OpenQueue implements Queue {
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly replicaId: string;
  readonly #inserts: GroupCommit<NewSubmission, { row: Row; created: boolean }>;

  constructor(
    readonly db: Database,
    readonly worker: Worker,
    readonly secrets: { readonly salt: Buffer; readonly keys: DataKeys },
    readonly now: () => number,
    readonly callbacks: boolean,
    readonly dir: { replicaId: string; release(): Promise<void> },
    readonly vacuumer: Vacuumer | undefined,
  ) {
    this.replicaId = dir.replicaId;
    this.#inserts = new GroupCommit((batch) => insertSubmissions(db, batch));
  }

  #open(): void {
    if (this.#closed) throw new QueueError('closed', 'the queue is closed');
  }

  async enqueue(request: unknown, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    this.#open();
    const value = checkedRequest(request);
    const callbackUrl = checkCallbackUrl(options.callbackUrl, this.callbacks);
    const id = randomUUID();
    const { body, sha256 } = sealRequest(this.secrets.keys, id, value);
    const key = linkRequestKey(value, this.secrets.salt);
    const { row, created } = await this.#inserts.add({ id, key, body, sha256, callbackUrl, now: new Date(this.now()), visit: visitFields(value) });
    if (created) this.worker.poke();
    const stored = typeof row.body_sha256 === 'string' ? row.body_sha256 : undefined;
    // Rows stored before migration 2 and acknowledged have no hash: nothing to compare.
    if (!created && stored !== undefined && stored !== sha256) {
      throw new QueueError('different-body', 'this item (same hipId, visitId, ABHA address and care contexts) was submitted before with another body', { storedBodySha256: stored });
    }
    return { submission: toSubmission(row), created };
  }

  async replace(id: string, request: unknown): Promise<Submission | 'not-found'> {
    this.#open();
    if (typeof id !== 'string' || !UUID.test(id)) return 'not-found';
    const value = checkedRequest(request);
    const { body, sha256 } = sealRequest(this.secrets.keys, id, value);
    const r = await replaceBody(this.db, id, linkRequestKey(value, this.secrets.salt), { body, sha256, visit: visitFields(value) }, new Date(this.now()));
    if (r === 'not-replaceable') throw new QueueError('not-replaceable', 'only a failed submission can be replaced');
    if (r === 'different-item') throw new QueueError('different-item', 'the body is another item (its hipId, visitId, ABHA address or care contexts differ): submit it as a new submission');
    if (r === 'not-found') return r;
    this.worker.poke();
    return toSubmission(r);
  }

  async get(id: string): Promise<Submission | undefined> {
    this.#open();
    if (typeof id !== 'string' || !UUID.test(id)) return undefined;
    const row = await getSubmission(this.db, id);
    return row === undefined ? undefined : toSubmission(row);
  }

  async list(options: ListOptions = {}): Promise<SubmissionPage> {
    this.#open();
    return listSubmissions(this.db, listFilter(options));
  }

  async ledger(options: LedgerOptions = {}): Promise<Ledger> {
    this.#open();
    return ledgerOf(this.db, ledgerRange(options));
  }

  async retry(id: string): Promise<Submission | 'not-found' | 'not-retryable'> {
    this.#open();
    if (typeof id !== 'string' || !UUID.test(id)) return 'not-found';
    const r = await requeue(this.db, id, new Date(this.now()));
    if (typeof r === 'string') return r;
    this.worker.poke();
    return toSubmission(r);
  }

  counts(): Promise<Record<SubmissionStatus, number>> {
    this.#open();
    return countSubmissions(this.db);
  }

  async maintenance(): Promise<StoreMaintenance | undefined> {
    this.#open();
    return this.vacuumer?.report();
  }

  async ready(): Promise<boolean> {
    if (this.#closed) return false;
    try {
      await this.db.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  start(): void {
    this.#open();
    this.worker.start();
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      await this.worker.stop();
      await this.#inserts.idle();
      await this.db.close().catch(() => undefined);
      await this.dir.release();
    })();
    return this.#closing;
  }

  /** One maintenance tick now (renew leases, expire others', deliver callbacks, vacuum when due); for tests that drive time by hand. */
  tick(): Promise<void> {
    return this.worker.tick();
  }
}
