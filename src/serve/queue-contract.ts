/**
 * The queue as the HTTP routes use it. The queue itself (the embedded store
 * and PostgreSQL) lives in src/serve/queue/; the routes depend only on this
 * contract, so that a test can give them an in-memory queue.
 */
import type { LinkCareContextRequest } from '../generated/types.js';

import type { Ledger, LedgerOptions, ListOptions, StoreMaintenance, Submission, SubmissionPage, SubmissionStatus } from './queue/types.js';

export {
  SUBMISSION_STATUSES,
  type Ledger,
  type LedgerOptions,
  type LedgerRow,
  type ListOptions,
  type StoreMaintenance,
  type Submission,
  type SubmissionPage,
  type SubmissionStatus,
} from './queue/types.js';

/** The queue of link requests to send. */
export interface Queue {
  /**
   * Stores the request (before it resolves); the same request twice is one
   * submission (`created: false`). The same item with another body rejects
   * with a QueueError `different-body`.
   */
  enqueue(linkRequest: LinkCareContextRequest, options: { readonly callbackUrl?: string }): Promise<{ submission: Submission; created: boolean }>;
  get(id: string): Promise<Submission | undefined>;
  /** A page, newest first, filtered (QueueError `invalid-options` with issues naming the parameter). */
  list(options: ListOptions): Promise<SubmissionPage>;
  /** Care contexts by day (in India), status and hiType (QueueError `invalid-options` with issues naming the parameter). */
  ledger(options: LedgerOptions): Promise<Ledger>;
  /** Resends a failed or unknown submission deliberately. */
  retry(id: string): Promise<Submission | 'not-found' | 'not-retryable'>;
  /** Replaces the stored request of a failed submission with a corrected one of the same item, and queues it (QueueError `not-replaceable`, `different-item`). */
  replace(id: string, linkRequest: LinkCareContextRequest): Promise<Submission | 'not-found'>;
  counts(): Promise<Record<SubmissionStatus, number>>;
  /** The embedded store's vacuums and its table's statistics; undefined (or absent) when the store vacuums itself (PostgreSQL). */
  maintenance?(): Promise<StoreMaintenance | undefined>;
  /** True when the store can be read and written. */
  ready(): Promise<boolean>;
  /** True while the store is still opening (the server listens meanwhile; see starting-queue.ts). */
  starting?(): boolean;
  start(): void;
  /** Stops taking work and waits for the sends in flight. */
  close(): Promise<void>;
}
