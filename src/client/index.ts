/**
 * abha-link/client: the HTTP client of the ABHA identity and care-context
 * linking service, batch submission with a journal, and typed errors. The
 * only entry point of the library that uses the network.
 *
 * @example
 * import { createClient } from 'abha-link/client'
 * const client = createClient({ baseUrl: 'https://abha.example.org', apiKey })
 * await client.linkCareContexts(request)
 *
 * @packageDocumentation
 */
export { createClient, type AbhaClient, type ClientInfo, type ClientOptions, type LinkCareContextSuccess, type SessionTokenRequest, type Succeeded, type WithSessionTokens } from './client.js';
export { AlreadyLinkedError } from './link-answer.js';
export {
  AbortedError,
  AuthenticationError,
  EnvelopeError,
  InvalidResponseError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  RejectedError,
  ServerError,
  TransportError,
  isOutcomeUnknownError,
  isTransportError,
  type NetworkFailure,
  type TransportErrorCause,
  type TransportErrorReason,
  type TransportErrorDetails,
  type UnknownOutcomeReason,
} from './errors.js';
export type { Issue } from '../errors.js';
export type { RetryBudgetOptions, RetryOptions, RetryPolicy } from './retry.js';
export { asSessionToken, type SessionToken } from './session.js';
export { linkRequestKey, type LinkRequestIdentity } from '../link-key.js';
export {
  JournalError,
  memoryJournal,
  openFileJournal,
  type FileJournal,
  type FileJournalOptions,
  type JournalContents,
  type ReadJournalOptions,
  type Journal,
  type JournalEntry,
  type JournalState,
  type MemoryJournal,
  type MemoryJournalOptions,
} from './journal.js';
export { JOURNAL_MATCH_WINDOW, JournalMismatchError, batchSummaryOf, type ItemResult, type SkipReason, type SubmitOptions, type SubmitSummary } from './submit.js';
export type { CallOptions, FetchLike, SleepLike } from './transport.js';
