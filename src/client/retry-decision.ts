/**
 * What the client does after one attempt of a call: return the answer,
 * refresh the bearer token and repeat, retry after a wait, or fail with a
 * typed error. A pure function of the attempt's outcome, the endpoint, the
 * call's progress and the retry policy ({@link decideAfterAttempt}); the
 * transport's loop (transport.ts) does the I/O around it. The rules, for a
 * call that is not idempotent (the link call, the OTP calls):
 *
 * - retried only when the request provably never reached the service
 *   (`sent: 'no'`: connection refused, DNS failure, connect timeout,
 *   unreachable network, read from the connection phase) or on 429/503 with
 *   Retry-After (the service said it did not process it);
 * - a 401 on a bearer call refreshes the token once and repeats once;
 * - anything else after the request may have been sent (connection lost,
 *   timeout, caller abort in flight, other 5xx, a redirect, a 2xx body
 *   without a readable `success` flag or longer than `maxResponseBytes`) is
 *   an OutcomeUnknownError, never retried;
 * - a request fetch refused to build (an invalid header value) was not sent:
 *   a NetworkError `request-refused`, never outcome unknown, never retried;
 * - a 2xx with `success: true` is a success (processed), also when the rest
 *   of the answer does not match the response schema (`offSpec` says where).
 *
 * Idempotent calls (the token, search, profile reads) are also retried with
 * backoff after timeouts, lost connections, 429, 500, 502, 503 and 504.
 */
import { summarizeIssues } from '../errors.js';
import type { Issue } from '../errors.js';
import type { SchemaName } from '../generated/manifest.js';
import { validate } from '../validation/validate.js';
import type { NetworkFailure, UnknownOutcomeReason } from './errors.js';
import { isAlreadyLinkedAnswer } from './link-answer.js';
import { backoffDelay, type RetryPolicy } from './retry.js';
import type { EndpointInfo } from './endpoint-info.js';

/** The endpoint facts the decision reads. */
export type DecisionEndpoint = Pick<EndpointInfo, 'auth' | 'idempotent'>;

/** What the body of a 2xx answer came to (see {@link readSuccessBody}). */
export type SuccessBody =
  /** Longer than `maxBytes`: its reading was stopped. */
  | { readonly kind: 'too-large'; readonly maxBytes: number }
  /** No boolean `flag` (`success`, or `status` for the token endpoint): the outcome cannot be read. */
  | { readonly kind: 'unreadable'; readonly flag: 'success' | 'status'; readonly why: 'empty' | 'not-json' | 'no-flag' }
  /** The flag is false: processed and refused; `alreadyLinked` when a link answer says the care contexts were linked before (isAlreadyLinkedAnswer). */
  | { readonly kind: 'refused'; readonly flag: 'success' | 'status'; readonly alreadyLinked?: true }
  /** The flag is true and the answer has the spec's shape. */
  | { readonly kind: 'valid'; readonly value: unknown }
  /** The flag is true but the answer breaks the response schema (`issues` say where). */
  | { readonly kind: 'off-spec'; readonly value: unknown; readonly issues: readonly Issue[] };

/** How one attempt ended, as the decision needs it. */
export type AttemptOutcome =
  | {
      readonly kind: 'no-answer';
      /** `no`: provably never reached the service; `maybe`: it may have. */
      readonly sent: 'no' | 'maybe';
      readonly failure: NetworkFailure | 'aborted';
      /** The system error code, e.g. `ECONNREFUSED`, quoted in the message with its meaning in words. */
      readonly systemCode?: string | undefined;
      /** fetch refused the port (one the Fetch standard blocks, such as 1 or 9): nothing was sent. */
      readonly badPort?: boolean;
    }
  | {
      readonly kind: 'answer';
      readonly status: number;
      /** The parsed Retry-After of a 429 or 503, in ms. */
      readonly retryAfterMs?: number | undefined;
      /** A non-2xx answer whose body could not be read. */
      readonly bodyLost?: boolean;
      /** A 2xx answer's body; absent for other statuses. */
      readonly body?: SuccessBody | undefined;
    };

/** Where the call stands when the attempt ended. */
export interface AttemptContext {
  /** Attempts counted against `maxAttempts`, this one included (a repeat after a token refresh does not count). */
  readonly attempt: number;
  /** True when the token was already refreshed once in this call. */
  readonly refreshed: boolean;
  /** True when this attempt carried a bearer token. */
  readonly sentToken: boolean;
  /** Time since the call started, in ms. */
  readonly elapsedMs: number;
  /** This attempt's timeout, in ms (for the message of a timeout). */
  readonly timeoutMs: number;
  /** A number in [0, 1) for the backoff's jitter. */
  readonly random: number;
  /** True when the client's retry budget can pay for one more retry. */
  readonly budgetLeft: boolean;
}

/** The error a failed call throws, as data: the transport adds the endpoint, status and request id. */
export type Failure =
  | { readonly error: 'OutcomeUnknownError'; readonly reason: UnknownOutcomeReason; readonly summary: string }
  | { readonly error: 'NetworkError'; readonly failure: NetworkFailure; readonly summary: string }
  | { readonly error: 'RateLimitedError' | 'ServerError'; readonly summary: string; readonly retryAfterMs?: number | undefined }
  | { readonly error: 'InvalidResponseError'; readonly summary: string; readonly issues: readonly Issue[] }
  | { readonly error: 'AuthenticationError' | 'EnvelopeError' | 'AlreadyLinkedError' | 'RejectedError' | 'AbortedError'; readonly summary: string };

/** What to do after an attempt. */
export type Decision =
  | { readonly action: 'return'; readonly body: unknown; readonly offSpec?: readonly Issue[] }
  | { readonly action: 'refresh-and-repeat' }
  | { readonly action: 'retry'; readonly delayMs: number }
  | { readonly action: 'fail'; readonly failure: Failure };

const FAILURE_TEXT: Readonly<Record<NetworkFailure, string>> = {
  'connection-refused': 'connection refused: the request never reached the service',
  dns: 'the host name could not be resolved: the request never reached the service',
  'connect-timeout': 'the connection could not be opened in time: the request never reached the service',
  unreachable: 'the network or host is unreachable: the request never reached the service',
  tls: 'the TLS handshake failed (certificate or protocol): the request was not sent',
  timeout: 'no answer within the attempt timeout',
  'connection-lost': 'the connection was lost before an answer came',
  other: 'the request failed before an answer came',
  'request-refused': 'fetch refused to build the request (an invalid header value): the request was not sent',
};

/** What the common system error codes mean, in words, for the message beside the code. */
const CODE_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the other side',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection closed by the other side while sending',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'no such host name',
  EAI_AGAIN: 'DNS lookup failed for now (temporary)',
  EAI_NONAME: 'no such host name',
  EAI_FAIL: 'DNS lookup failed',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'no route to the network',
  ENETDOWN: 'the network is down',
  EHOSTDOWN: 'the host is down',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_SOCKET: 'the connection closed',
  CERT_HAS_EXPIRED: "the service's certificate has expired",
  CERT_NOT_YET_VALID: "the service's certificate is not valid yet",
  DEPTH_ZERO_SELF_SIGNED_CERT: 'a self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'a self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'a certificate from an issuer this machine does not trust',
  UNABLE_TO_GET_ISSUER_CERT: 'a certificate from an issuer this machine does not trust',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'a certificate from an issuer this machine does not trust',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is for another host name',
  HOSTNAME_MISMATCH: 'the certificate is for another host name',
};

/**
 * A system error code for a message: the code and what it means, ` (ECONNRESET: connection reset by the other side)`;
 * the code alone when `text`, the message it follows, already says it; empty without a code.
 *
 * @example
 * codeInWords('ETIMEDOUT', 'no answer') //=> ' (ETIMEDOUT: connection timed out)'
 */
export function codeInWords(code: string | undefined, text: string): string {
  if (code === undefined) return '';
  const words = CODE_WORDS[code];
  return words === undefined || text.includes(words) ? ` (${code})` : ` (${code}: ${words})`;
}

const BAD_PORT_TEXT = 'fetch refuses to connect to this port (one the Fetch standard blocks, such as 1, 9 or 6000; check the base URL): the request was not sent';

const MAY_HAVE_BEEN_PROCESSED = 'the request may have been processed, so it was not sent again';

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

const fail = (failure: Failure): Decision => ({ action: 'fail', failure });

/**
 * Why another attempt is not possible after waiting `delayMs`, or undefined
 * when it is: no attempts left, the call's deadline, the retry budget.
 *
 * @example
 * retryBlocker({ ...ctx, attempt: 3 }, DEFAULT_RETRY, 100) //=> 'all 3 attempts made'
 */
export function retryBlocker(ctx: AttemptContext, policy: RetryPolicy, delayMs: number): string | undefined {
  if (ctx.attempt >= policy.maxAttempts) return `all ${policy.maxAttempts} attempts made`;
  if (ctx.elapsedMs + delayMs >= policy.deadlineMs) return `the call's deadline of ${seconds(policy.deadlineMs)} would pass`;
  if (!ctx.budgetLeft) return "the client's retry budget is spent (too many recent failures)";
  return undefined;
}

/**
 * Reads the body of a 2xx answer: the envelope's flag, then the response
 * schema `<endpoint id>-response` (and the `data` the spec shows, when
 * `dataRequired`). Pure.
 *
 * @param parsed - the body parsed as JSON, or `{ ok: false }` when it is empty or not JSON
 * @example
 * readSuccessBody({ id: 'search-abha', envelope: 'standard', dataRequired: true }, { ok: true, value: { success: false } }, '{"success":false}')
 * //=> { kind: 'refused', flag: 'success' }
 */
export function readSuccessBody(
  ep: Pick<EndpointInfo, 'id' | 'envelope' | 'dataRequired'>,
  parsed: { readonly ok: true; readonly value: unknown } | { readonly ok: false },
  text: string,
): SuccessBody {
  const flagName = ep.envelope === 'token' ? 'status' : 'success';
  const flag = parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? (parsed.value as Record<string, unknown>)[flagName] : undefined;
  if (typeof flag !== 'boolean') return { kind: 'unreadable', flag: flagName, why: parsed.ok ? 'no-flag' : text === '' ? 'empty' : 'not-json' };
  if (!flag)
    return ep.id === 'link-carecontext' && isAlreadyLinkedAnswer(parsed.ok ? parsed.value : undefined) ? { kind: 'refused', flag: flagName, alreadyLinked: true } : { kind: 'refused', flag: flagName };
  const value = parsed.ok ? parsed.value : undefined;
  const checked = validate(`${ep.id}-response` as SchemaName, value);
  if (!checked.success) return { kind: 'off-spec', value, issues: checked.issues };
  if (ep.dataRequired && (value as { data?: unknown }).data == null) {
    // The spec shows a payload for this endpoint; the typed result promises it.
    return { kind: 'off-spec', value, issues: [{ path: '/data', code: 'required', message: 'data is required: the spec shows a payload for this endpoint', severity: 'error' }] };
  }
  return { kind: 'valid', value: checked.value };
}

/**
 * Decides what follows an attempt (see the module comment for the rules).
 * Pure: no clock, no randomness, no I/O; everything it needs is an argument.
 *
 * @example
 * decideAfterAttempt({ kind: 'answer', status: 429, retryAfterMs: 1000 }, { auth: 'bearer', idempotent: false }, ctx, DEFAULT_RETRY)
 * //=> { action: 'retry', delayMs: 1000 }
 */
export function decideAfterAttempt(outcome: AttemptOutcome, ep: DecisionEndpoint, ctx: AttemptContext, policy: RetryPolicy): Decision {
  if (outcome.kind === 'no-answer') return afterNoAnswer(outcome, ep, ctx, policy);
  const { status } = outcome;
  if (status >= 200 && status < 300) return afterSuccessStatus(outcome.body, ep);
  if (status === 401) {
    if (ep.auth === 'bearer' && !ctx.refreshed && ctx.sentToken) return { action: 'refresh-and-repeat' };
    const summary = ep.auth === 'bearer' ? 'the bearer token was refused, also after a refresh' : 'the API key was refused; check it (it is not retried)';
    return fail({ error: 'AuthenticationError', summary });
  }
  if (status === 403) return fail({ error: 'AuthenticationError', summary: 'access refused for this API key' });
  if (status === 429 || status === 503) return afterSlowDown(status, outcome.retryAfterMs, ep, ctx, policy);
  if (status >= 500) return afterServerError(status, ep, ctx, policy);
  if (status >= 300 && status < 400) {
    // A redirect is not followed (the request and its bearer token would go elsewhere). The
    // service may have processed the request before redirecting (a 303 "see other" says just
    // that), so for a call that is not idempotent it is outcome unknown, never "failed": a
    // failed link would be sent again by every rerun.
    if (!ep.idempotent) {
      const summary = `the service answered with a redirect, which is not followed; ${MAY_HAVE_BEEN_PROCESSED} (check the base URL)`;
      return fail({ error: 'OutcomeUnknownError', reason: 'redirect', summary });
    }
    return fail({ error: 'RejectedError', summary: 'unexpected redirect; redirects are not followed (check the base URL)' });
  }
  const summary = outcome.bodyLost === true ? 'the service refused the request (its answer could not be read)' : 'the service refused the request; it is not retried';
  return fail({ error: 'RejectedError', summary });
}

function afterNoAnswer(outcome: AttemptOutcome & { kind: 'no-answer' }, ep: DecisionEndpoint, ctx: AttemptContext, policy: RetryPolicy): Decision {
  const { failure, sent } = outcome;
  if (failure === 'aborted') {
    if (sent === 'no' || ep.idempotent) return fail({ error: 'AbortedError', summary: 'aborted by the caller' });
    return fail({ error: 'OutcomeUnknownError', reason: 'aborted', summary: 'aborted by the caller while the request was in flight: it may have been processed' });
  }
  const failed = (note: string): Decision => {
    if (sent === 'maybe' && !ep.idempotent) {
      const what = failure === 'timeout' ? `no answer within ${seconds(ctx.timeoutMs)}` : `the connection was lost before an answer came${codeInWords(outcome.systemCode, '')}`;
      return fail({ error: 'OutcomeUnknownError', reason: failure === 'timeout' ? 'timeout' : 'connection-lost', summary: `${what}; ${MAY_HAVE_BEEN_PROCESSED}${note}` });
    }
    const text = outcome.badPort === true ? BAD_PORT_TEXT : FAILURE_TEXT[failure];
    return fail({ error: 'NetworkError', failure, summary: `${text}${codeInWords(outcome.systemCode, text)}${note}` });
  };
  const retryable = failure !== 'tls' && failure !== 'request-refused' && (sent === 'no' || ep.idempotent);
  if (!retryable) return failed('');
  const delayMs = backoffDelay(ctx.attempt, policy, ctx.random);
  const blocker = retryBlocker(ctx, policy, delayMs);
  return blocker === undefined ? { action: 'retry', delayMs } : failed(`; not retried: ${blocker}`);
}

function afterSuccessStatus(body: SuccessBody | undefined, ep: DecisionEndpoint): Decision {
  const b: SuccessBody = body ?? { kind: 'unreadable', flag: 'success', why: 'empty' };
  switch (b.kind) {
    case 'too-large': {
      const why = `the answer is larger than ${b.maxBytes} bytes (maxResponseBytes); its reading was stopped`;
      if (!ep.idempotent) return fail({ error: 'OutcomeUnknownError', reason: 'response-too-large', summary: `${why}; ${MAY_HAVE_BEEN_PROCESSED}` });
      return fail({ error: 'InvalidResponseError', summary: why, issues: [{ path: '', code: 'too-large', message: why, severity: 'error' }] });
    }
    case 'unreadable': {
      const why = b.why === 'no-flag' ? `the answer has no boolean "${b.flag}" flag` : b.why === 'empty' ? 'the answer was empty' : 'the answer is not JSON';
      if (!ep.idempotent) return fail({ error: 'OutcomeUnknownError', reason: 'unreadable-response', summary: `${why}; ${MAY_HAVE_BEEN_PROCESSED}` });
      const issue: Issue = b.why === 'no-flag' ? { path: `/${b.flag}`, code: 'required', message: why, severity: 'error' } : { path: '', code: 'invalid-json', message: why, severity: 'error' };
      return fail({ error: 'InvalidResponseError', summary: why, issues: [issue] });
    }
    case 'refused':
      if (b.alreadyLinked === true)
        return fail({ error: 'AlreadyLinkedError', summary: 'the service answered that these care contexts are already linked; nothing was linked again, and the item is done' });
      return fail({ error: 'EnvelopeError', summary: `the service refused the request (it answered ${b.flag}: false)` });
    case 'off-spec': {
      // The service said it succeeded: the request was processed. Failing a call that is not
      // idempotent would have it sent again; an answer that breaks the schema elsewhere is only
      // worth a warning.
      if (!ep.idempotent) return { action: 'return', body: b.value, offSpec: b.issues };
      const summary = `the answer does not have the spec's shape (${summarizeIssues(b.issues, 'count')})`;
      return fail({ error: 'InvalidResponseError', summary, issues: b.issues });
    }
    case 'valid':
      return { action: 'return', body: b.value };
  }
}

/** 429 and 503: retried after Retry-After (any call) or backoff (idempotent calls). */
function afterSlowDown(status: 429 | 503, retryAfterMs: number | undefined, ep: DecisionEndpoint, ctx: AttemptContext, policy: RetryPolicy): Decision {
  const said = status === 429 ? 'rate limited' : 'service unavailable';
  const failed = (summary: string): Decision => fail({ error: status === 429 ? 'RateLimitedError' : 'ServerError', summary, retryAfterMs });
  let delayMs: number;
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > policy.maxRetryAfterMs) {
      return failed(`${said}; the service asked to wait ${seconds(retryAfterMs)}, more than the ${seconds(policy.maxRetryAfterMs)} the client waits; not processed, safe to send later`);
    }
    delayMs = retryAfterMs;
  } else if (ep.idempotent) {
    delayMs = backoffDelay(ctx.attempt, policy, ctx.random);
  } else if (status === 429) {
    return failed(`${said} without Retry-After; not processed, safe to send later`);
  } else {
    return fail({ error: 'OutcomeUnknownError', reason: 'server-error', summary: `service unavailable (503) without Retry-After; ${MAY_HAVE_BEEN_PROCESSED}` });
  }
  const blocker = retryBlocker(ctx, policy, delayMs);
  if (blocker !== undefined) return failed(`${said}; not retried: ${blocker}; not processed, safe to send later`);
  return { action: 'retry', delayMs };
}

/** Other 5xx: outcome unknown for a call that is not idempotent; 500, 502 and 504 retried for the others. */
function afterServerError(status: number, ep: DecisionEndpoint, ctx: AttemptContext, policy: RetryPolicy): Decision {
  if (!ep.idempotent) return fail({ error: 'OutcomeUnknownError', reason: 'server-error', summary: `server error; ${MAY_HAVE_BEEN_PROCESSED}` });
  if (status !== 500 && status !== 502 && status !== 504) return fail({ error: 'ServerError', summary: 'server error' });
  const delayMs = backoffDelay(ctx.attempt, policy, ctx.random);
  const blocker = retryBlocker(ctx, policy, delayMs);
  return blocker === undefined ? { action: 'retry', delayMs } : fail({ error: 'ServerError', summary: `server error; not retried: ${blocker}` });
}
