/**
 * The durable, exactly-once submission queue behind `abha-link serve`:
 * PostgreSQL shared by replicas (`databaseUrl`), or an embedded PostgreSQL
 * (PGlite) in the data directory. See docs/serve.md (## Queue).
 *
 * @example
 * const queue = await openQueue({ dataDir: './abha-link-data', databaseUrl: env.ABHA_LINK_DATABASE_URL, client: { baseUrl, apiKey } })
 * queue.start()
 * const { submission, created } = await queue.enqueue(linkRequest, { callbackUrl })
 * await queue.close()
 */
export { openQueue } from './queue.js';
export { signCallback, SIGNATURE_HEADER } from './callback.js';
export { MIGRATIONS } from './migrate.js';
export {
  QueueError,
  SUBMISSION_STATUSES,
  isQueueError,
  type CallbackOptions,
  type EnqueueOptions,
  type EnqueueResult,
  type Ledger,
  type LedgerOptions,
  type LedgerRow,
  type ListOptions,
  type Queue,
  type QueueErrorCode,
  type QueueLogger,
  type QueueOptions,
  type StoreMaintenance,
  type Submission,
  type SubmissionPage,
  type SubmissionStatus,
  type TableActivity,
  type VacuumRun,
} from './types.js';
