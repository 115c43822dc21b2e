/**
 * Errors of the client. Every failure of a call to the service is a
 * {@link TransportError}: it carries the endpoint, the HTTP status when an
 * answer came and the client's request id, in its message and as
 * properties. None of them carries the API key, a token, an OTP, a mobile
 * number or any part of the request body. The service's own message may
 * echo health data no redaction can recognise (a name, a diagnosis, a drug):
 * it is never part of `message`, `stack`, `util.inspect` or JSON output,
 * only of the `serviceMessage` getter (redacted), for a program that asks.
 * A request that is invalid before it is sent is a core `ValidationError`
 * instead: the caller's data was wrong, not the call.
 */
import { AbhaLinkError } from '../errors.js';
import type { Issue } from '../errors.js';

/** What the client knows about one failed call, passed to every error. */
export interface TransportErrorDetails {
  /** The endpoint path, e.g. `/api/m2/multiple/link-carecontext`. */
  readonly endpoint: string;
  /** The HTTP status of the last answer, when one came. */
  readonly status?: number | undefined;
  /**
   * The service's `message`, redacted (no digit runs, addresses or tokens) and
   * shortened. Kept out of the error's message (see TransportError.serviceMessage).
   */
  readonly serviceMessage?: string | undefined;
  /** The client's id of the last attempt (a UUID); quote it when asking about a call. */
  readonly requestId: string;
  /** How many HTTP attempts were made, the repeat after a token refresh included. */
  readonly attempts: number;
  /**
   * The underlying network error, when there is one. Never kept as it came:
   * only its class name and system error code survive (see
   * {@link TransportErrorCause}), because a raw error can hold a secret (fetch's
   * header errors quote the header value: the bearer token).
   */
  readonly cause?: unknown;
}

/**
 * What an error keeps of its underlying error (`error.cause`): the class name
 * and the system error code, e.g. `{ name: 'TypeError', code: 'ECONNREFUSED' }`.
 * Never the underlying message, which can quote a header (the bearer token),
 * a URL or a body.
 */
export interface TransportErrorCause {
  /** The underlying error's class name (letters and digits only; `Error` otherwise). */
  readonly name: string;
  /** The first system error code in it or its causes, e.g. `ECONNRESET`, when there is one. */
  readonly code?: string;
}

const CAUSE_NAME = /^[A-Za-z][A-Za-z0-9]{0,39}$/;
const CAUSE_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

function causeCode(e: unknown, depth: number): string | undefined {
  if (depth > 6 || e === null || typeof e !== 'object') return undefined;
  const o = e as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof o.code === 'string' && CAUSE_CODE.test(o.code)) return o.code;
  const fromCause = causeCode(o.cause, depth + 1);
  if (fromCause !== undefined) return fromCause;
  if (Array.isArray(o.errors)) {
    for (const x of o.errors as unknown[]) {
      const c = causeCode(x, depth + 1);
      if (c !== undefined) return c;
    }
  }
  return undefined;
}

/**
 * Reduces an underlying error to its class name and system error code (see
 * {@link TransportErrorCause}); undefined for undefined.
 *
 * @example
 * sanitizeCause(new TypeError('Headers.append: "Bearer eyJ..." is an invalid header value.')) //=> { name: 'TypeError' }
 */
export function sanitizeCause(cause: unknown): TransportErrorCause | undefined {
  if (cause === undefined) return undefined;
  const rawName = cause !== null && typeof cause === 'object' ? (cause as { name?: unknown }).name : undefined;
  const name = typeof rawName === 'string' && CAUSE_NAME.test(rawName) ? rawName : 'Error';
  const code = causeCode(cause, 0);
  return Object.freeze(code === undefined ? { name } : { name, code });
}

/**
 * The stable code of a {@link TransportError}, in its `reason` property:
 * what went wrong, as a fixed string a program can switch on instead of
 * testing classes one by one. It is the code the batch journal records as
 * `reason` and `abha-link submit --format json` prints. Each class has its
 * own codes: `authentication` (AuthenticationError), `rate-limited`
 * (RateLimitedError), `server-error` (ServerError), the {@link NetworkFailure}
 * codes (NetworkError: `connection-refused`, `dns`, `timeout`,
 * `request-refused`...), `envelope-failure` (EnvelopeError), `already-linked`
 * (AlreadyLinkedError, in link-answer.ts), `rejected` or
 * `redirect` (RejectedError), `invalid-response` (InvalidResponseError), the
 * {@link UnknownOutcomeReason} codes (OutcomeUnknownError: `timeout`,
 * `connection-lost`, `redirect`, `response-too-large`...), `aborted`
 * (AbortedError), and `error` for a TransportError of no subclass. A few codes
 * (`timeout`, `connection-lost`, `redirect`, `server-error`, `aborted`) name both
 * a failure whose outcome is known and one whose outcome is not: ask
 * {@link isOutcomeUnknownError} whether the request may have been processed.
 *
 * @example
 * const e = new RateLimitedError('rate limited', { endpoint: '/api/m1/abha/token', requestId: 'r', attempts: 1 })
 * e.reason //=> 'rate-limited'
 */
export type TransportErrorReason =
  | 'authentication'
  | 'rate-limited'
  | 'server-error'
  | NetworkFailure
  | 'envelope-failure'
  | 'already-linked'
  | 'rejected'
  | 'redirect'
  | 'invalid-response'
  | UnknownOutcomeReason
  | 'aborted'
  | 'error';

/**
 * The base class of every error of a call to the service.
 *
 * @example
 * try { await client.linkCareContexts(request) } catch (e) {
 *   if (isTransportError(e)) console.error(e.name, e.endpoint, e.status, e.requestId)
 * }
 */
export class TransportError extends AbhaLinkError {
  override name = 'TransportError';
  /** The endpoint path. */
  readonly endpoint: string;
  /** The HTTP status of the last answer, or undefined when none came. */
  readonly status: number | undefined;
  /** The client's id of the last attempt. */
  readonly requestId: string;
  /** HTTP attempts made. */
  readonly attempts: number;
  /**
   * What went wrong, as a stable code (see {@link TransportErrorReason}): the
   * reason the journal records. Set by each subclass; `error` for this class.
   */
  readonly reason: TransportErrorReason = 'error';
  readonly #serviceMessage: string | undefined;

  constructor(summary: string, details: TransportErrorDetails) {
    const status = details.status === undefined ? '' : ` HTTP ${details.status}`;
    const tries = details.attempts > 1 ? `, ${details.attempts} attempts` : '';
    const cause = sanitizeCause(details.cause);
    super(`POST ${details.endpoint}${status}: ${summary} (request ${details.requestId}${tries})`, cause === undefined ? undefined : { cause });
    this.endpoint = details.endpoint;
    this.status = details.status;
    this.#serviceMessage = details.serviceMessage === '' ? undefined : details.serviceMessage;
    this.requestId = details.requestId;
    this.attempts = details.attempts;
  }

  /**
   * The service's message, redacted; undefined when it sent none. It may hold
   * health data (a real service can echo names, diagnoses or drugs, which no
   * redaction recognises), so it is not part of `message`, and as a getter it
   * stays out of `util.inspect`, JSON and most loggers: show it only where
   * health data may be shown.
   */
  get serviceMessage(): string | undefined {
    return this.#serviceMessage;
  }
}

/**
 * The service refused the credentials: HTTP 401 or 403, a 401 from the token
 * endpoint, or a 401 again after one token refresh. Not retried.
 *
 * @example
 * await client.searchAbha({ mobile: '9000000001' }).catch((e) => e instanceof AuthenticationError) //=> true for a revoked API key
 */
export class AuthenticationError extends TransportError {
  override name = 'AuthenticationError';
  override readonly reason = 'authentication';
}

/**
 * HTTP 429: the service asked the client to slow down, and the client could
 * not (no Retry-After on a call that may not be repeated blindly, a wait
 * longer than the cap, or no attempts, budget or time left). The request was
 * not processed: sending it again later is safe.
 *
 * @example
 * if (e instanceof RateLimitedError) console.log(`retry in ${e.retryAfterMs ?? 'unknown'} ms`)
 */
export class RateLimitedError extends TransportError {
  override name = 'RateLimitedError';
  override readonly reason = 'rate-limited';
  /** The wait the service asked for, in milliseconds, when it sent Retry-After. */
  readonly retryAfterMs: number | undefined;

  constructor(summary: string, details: TransportErrorDetails & { retryAfterMs?: number | undefined }) {
    super(summary, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}

/**
 * HTTP 5xx on a call whose outcome is nevertheless known: a read (search,
 * profile), or a 503 with Retry-After that the client could not honour (the
 * service said it did not process the request). For the link call, other 5xx
 * answers are an {@link OutcomeUnknownError}.
 *
 * @example
 * if (e instanceof ServerError) console.log(e.status) //=> 503
 */
export class ServerError extends TransportError {
  override name = 'ServerError';
  override readonly reason = 'server-error';
  /** The wait the service asked for, in milliseconds, when it sent Retry-After. */
  readonly retryAfterMs: number | undefined;

  constructor(summary: string, details: TransportErrorDetails & { retryAfterMs?: number | undefined }) {
    super(summary, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** Why a {@link NetworkError} happened. */
export type NetworkFailure =
  | 'connection-refused'
  | 'dns'
  | 'connect-timeout'
  | 'unreachable'
  | 'tls'
  | 'timeout'
  | 'connection-lost'
  | 'other'
  /** fetch refused to build the request (an invalid header value): nothing was sent, and sending it again fails the same way. */
  | 'request-refused';

/**
 * No answer came. For the link call and the OTP calls this is thrown only
 * when the request provably never reached the service: connection refused,
 * DNS failure, unreachable network or a timed-out connect in the connection
 * phase (the system error's syscall is `connect` or `getaddrinfo`), undici's
 * connect timeout, a certificate the TLS handshake refused, or a port fetch
 * blocks. The message says the cause in words beside its code
 * (`connection refused: the request never reached the service (ECONNREFUSED)`,
 * `(ECONNRESET: connection reset by the other side)`). Sending it again is safe. The
 * same codes from a connection already in use, and other TLS errors, are an
 * {@link OutcomeUnknownError} for those calls. For reads it is also thrown
 * after a timeout or a lost connection.
 *
 * @example
 * if (e instanceof NetworkError) console.log(e.failure) //=> 'connection-refused'
 */
export class NetworkError extends TransportError {
  override name = 'NetworkError';
  /** What went wrong, as a stable code; the same as `reason`. */
  readonly failure: NetworkFailure;
  override readonly reason: NetworkFailure;
  /** The system error code when there is one, e.g. `ECONNREFUSED` (not a {@link TransportErrorReason}: see `reason`). */
  readonly code: string | undefined;

  constructor(summary: string, details: TransportErrorDetails & { failure: NetworkFailure; code?: string | undefined }) {
    super(summary, details);
    this.failure = details.failure;
    this.reason = details.failure;
    this.code = details.code;
  }
}

/**
 * Where the reason of a refusal is, for its message: the service's own words
 * stay out of the message (they may hold health data), so the message says
 * where to read them.
 */
function refusalReason(details: TransportErrorDetails): string {
  return details.serviceMessage === undefined || details.serviceMessage === '' ? '; it gave no reason' : '; its reason is in serviceMessage';
}

/**
 * The service answered HTTP 2xx but its envelope says it failed:
 * `success: false`, or `status: false` from the token endpoint. The request
 * was processed and refused; the message says the service refused it, and
 * `serviceMessage` says why (`HTTP 200: the service refused the request (it
 * answered success: false); its reason is in serviceMessage`).
 *
 * @example
 * if (e instanceof EnvelopeError) console.log(e.serviceMessage) //=> 'otp is incorrect'
 */
export class EnvelopeError extends TransportError {
  override name = 'EnvelopeError';
  override readonly reason = 'envelope-failure';

  constructor(summary: string, details: TransportErrorDetails) {
    super(`${summary}${refusalReason(details)}`, details);
  }
}

/**
 * The service refused the request as sent: an HTTP 4xx other than 401, 403
 * and 429 (typically 400 with the envelope naming the field), or a redirect
 * answering a read (the token, search, profiles: nothing changed; on the link
 * and OTP calls a redirect is an {@link OutcomeUnknownError}). Not retried: sending the same request
 * again would fail the same way.
 *
 * @example
 * if (e instanceof RejectedError) console.log(e.status, e.serviceMessage) //=> 400 '/visitDate visitDate must be ...'
 */
export class RejectedError extends TransportError {
  override name = 'RejectedError';
  /** `redirect` for an HTTP 3xx, `rejected` otherwise. */
  override readonly reason: 'rejected' | 'redirect';

  constructor(summary: string, details: TransportErrorDetails) {
    const redirect = details.status !== undefined && details.status >= 300 && details.status < 400;
    super(redirect ? summary : `${summary}${refusalReason(details)}`, details);
    this.reason = redirect ? 'redirect' : 'rejected';
  }
}

/**
 * The service answered HTTP 2xx with a body that is not JSON, not the
 * spec's shape (also: `success: true` without the `data` the spec shows for
 * the endpoint), or larger than `maxResponseBytes` (issue code `too-large`); or the
 * token endpoint answered a token that cannot be a bearer token. For reads (the token, search, profiles) nothing was changed.
 * For an OTP call it is thrown only when the answer says `success: true`
 * (the request was processed: the OTP may be used up) and the rest of it is
 * unusable. The link call never throws it: without a readable `success` flag
 * it is an {@link OutcomeUnknownError}, and with `success: true` it is a
 * success (the item was linked). `issues` says where, never with values.
 *
 * @example
 * if (e instanceof InvalidResponseError) console.log(e.issues[0]?.path) //=> '/data/0/txnId'
 */
export class InvalidResponseError extends TransportError {
  override name = 'InvalidResponseError';
  override readonly reason = 'invalid-response';
  readonly issues: readonly Issue[];

  constructor(summary: string, details: TransportErrorDetails & { issues: readonly Issue[] }) {
    super(summary, details);
    this.issues = details.issues;
  }
}

/** Why an {@link OutcomeUnknownError} happened. */
export type UnknownOutcomeReason =
  | 'connection-lost'
  | 'timeout'
  | 'aborted'
  | 'server-error'
  | 'unreadable-response'
  /** HTTP 3xx: the service answered with a redirect, which is never followed; it may have processed the request first. */
  | 'redirect'
  /** The answer was longer than `maxResponseBytes` (decompressed): its reading was stopped. */
  | 'response-too-large';

/**
 * The request may have reached the service, but no usable answer came: the
 * connection broke after sending, the attempt timed out, the caller aborted
 * mid-flight, a 5xx (other than 503 with Retry-After) or a redirect (3xx)
 * came back, a 2xx body had no readable `success` flag (empty, not JSON, or
 * no boolean), or a 2xx body was larger than `maxResponseBytes`. The link call is a POST with no documented
 * idempotency, so it is never repeated automatically after this: check with
 * the service (or your records) before sending it again.
 *
 * @example
 * if (isOutcomeUnknownError(e)) queueForReconciliation(e.requestId, e.reason)
 */
export class OutcomeUnknownError extends TransportError {
  override name = 'OutcomeUnknownError';
  override readonly reason: UnknownOutcomeReason;

  constructor(summary: string, details: TransportErrorDetails & { reason: UnknownOutcomeReason }) {
    super(summary, details);
    this.reason = details.reason;
  }
}

/**
 * The caller's AbortSignal fired before anything could have reached the
 * service (before the first attempt, during a wait between attempts, or
 * during a read). An abort while a link request is in flight is an
 * {@link OutcomeUnknownError} with reason `aborted` instead.
 *
 * @example
 * const ac = new AbortController(); ac.abort()
 * await client.linkCareContexts(request, { signal: ac.signal }).catch((e) => e.name) //=> 'AbortedError'
 */
export class AbortedError extends TransportError {
  override name = 'AbortedError';
  override readonly reason = 'aborted';
}

/**
 * True when `e` is a {@link TransportError} (any failure of a call).
 *
 * @example
 * isTransportError(new Error('x')) //=> false
 */
export function isTransportError(e: unknown): e is TransportError {
  return e instanceof TransportError;
}

/**
 * True when the call may have been processed: an {@link OutcomeUnknownError}.
 *
 * @example
 * if (isOutcomeUnknownError(e)) console.log('do not resend blindly')
 */
export function isOutcomeUnknownError(e: unknown): e is OutcomeUnknownError {
  return e instanceof OutcomeUnknownError;
}
