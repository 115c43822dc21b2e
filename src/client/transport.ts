/**
 * One call to the service: attempts, timeouts, the token, and the I/O around
 * the decision after each attempt (return, repeat after a token refresh,
 * retry, or fail with a typed error), which is {@link decideAfterAttempt}
 * (retry-decision.ts, where the rules are). "Never reached the service" is
 * read here, from errors of the connection phase only: a system error whose
 * syscall is `connect` or `getaddrinfo`, undici's connect timeout, a
 * certificate the TLS handshake refused; a request fetch refused to build
 * was not sent either.
 */
import type { Issue } from '../errors.js';
import {
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
  type NetworkFailure,
  type TransportErrorDetails,
} from './errors.js';
import { AlreadyLinkedError } from './link-answer.js';
import { redactServiceMessage } from './redact.js';
import { parseRetryAfter, type RetryBudget, type RetryPolicy } from './retry.js';
import { decideAfterAttempt, readSuccessBody, type AttemptOutcome, type Failure } from './retry-decision.js';
import type { TokenCache } from './token.js';
import type { EndpointInfo } from './endpoint-info.js';

/** The fetch function the client uses (the global one by default). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * The wait before a retry (default: a timer). It resolves after `ms`
 * milliseconds, and should reject as soon as `signal` aborts (the call then
 * fails with an AbortedError). Inject one to test Retry-After and backoff
 * without real waits.
 *
 * @example
 * const waits: number[] = []
 * const sleep: SleepLike = (ms) => { waits.push(ms); return Promise.resolve() }
 */
export type SleepLike = (ms: number, signal: AbortSignal | undefined) => Promise<void>;

export interface TransportConfig {
  readonly baseUrl: string;
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
  readonly policy: RetryPolicy;
  readonly budget: RetryBudget;
  readonly now: () => number;
  readonly random: () => number;
  readonly sleep: SleepLike;
  readonly newRequestId: () => string;
  readonly requestIdHeader: string | undefined;
  /** Strings that must never appear in an error (the API key, tokens). */
  readonly secrets: () => readonly string[];
  /** The bearer-token cache, for bearer endpoints. */
  readonly tokens: TokenCache | undefined;
  /** Shared timeout signals for attempts with the default timeout. */
  readonly timeouts: TimeoutSignals;
  /** The longest answer body read, in bytes after decompression; reading stops past it. */
  readonly maxResponseBytes: number;
}

/** A successful call. */
export interface CallResult {
  /** The parsed response envelope, validated against the endpoint's response schema. */
  readonly body: unknown;
  readonly status: number;
  readonly requestId: string;
  readonly attempts: number;
  /**
   * Set when the service said it succeeded (`success: true`) on a call that is
   * not idempotent, but the rest of its answer does not match the spec's
   * response schema: the request was processed, so the call is a success;
   * `body` is then the answer as parsed, not validated. Paths and codes, never values.
   */
  readonly offSpec?: readonly Issue[];
  /**
   * Link calls only (set by the client, not the transport): where the service's
   * `success: true` answer contradicts the request: a care context reported as
   * not linked, a reference the request did not send, or one of the request's
   * references missing from an answer that lists care contexts. Warnings with
   * paths and codes, never values. Absent when the answer agrees or carries no
   * care contexts.
   */
  readonly mismatches?: readonly Issue[];
}

export interface CallOptions {
  /** Aborts the call; see AbortedError and OutcomeUnknownError for what an abort means. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Awaited right before each attempt leaves, with its request id (the batch
   * journals its `sending` line here); when it rejects, nothing is sent.
   */
  readonly beforeAttempt?: ((requestId: string) => Promise<void>) | undefined;
}

type Attempt =
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly headers: Headers;
      readonly text: string;
      readonly bodyLost: boolean;
      /** The body was longer than maxResponseBytes: its reading was stopped and `text` is empty. */
      readonly tooLarge: boolean;
    }
  | {
      readonly kind: 'no-answer';
      /** `no`: provably never reached the service; `maybe`: it may have. */
      readonly sent: 'no' | 'maybe';
      readonly failure: NetworkFailure | 'aborted';
      readonly code: string | undefined;
      readonly cause: unknown;
      /** fetch refused the port (see {@link blockedPort}). */
      readonly badPort?: true;
    };

/**
 * System error codes that mean "the request never left", but only when they
 * come from the connection phase: the error's syscall is `connect` (or
 * `getaddrinfo` for DNS). The same codes on a socket already in use (syscall
 * `read` or `write`, or none) can arrive after the body was written: a
 * connection that dies while retransmitting reports the last ICMP error it
 * saw (EHOSTUNREACH, ECONNREFUSED...).
 */
const NOT_SENT: Readonly<Record<string, { readonly failure: NetworkFailure; readonly syscall: 'connect' | 'getaddrinfo' }>> = {
  ECONNREFUSED: { failure: 'connection-refused', syscall: 'connect' },
  ETIMEDOUT: { failure: 'connect-timeout', syscall: 'connect' },
  ENETUNREACH: { failure: 'unreachable', syscall: 'connect' },
  EHOSTUNREACH: { failure: 'unreachable', syscall: 'connect' },
  ENETDOWN: { failure: 'unreachable', syscall: 'connect' },
  EHOSTDOWN: { failure: 'unreachable', syscall: 'connect' },
  ENOTFOUND: { failure: 'dns', syscall: 'getaddrinfo' },
  EAI_AGAIN: { failure: 'dns', syscall: 'getaddrinfo' },
  EAI_NONAME: { failure: 'dns', syscall: 'getaddrinfo' },
  EAI_FAIL: { failure: 'dns', syscall: 'getaddrinfo' },
};

/** undici's connect timeout: its code names the connection phase. */
const CONNECT_TIMEOUT = 'UND_ERR_CONNECT_TIMEOUT';

/**
 * Certificate verification failures: the certificate is checked during the
 * TLS handshake, before a byte of the request is written. Other TLS and
 * OpenSSL errors (ERR_SSL_*, most ERR_TLS_*) can also break a connection in
 * use, so they do not prove anything.
 */
const CERT_CODE =
  /^(CERT_|UNABLE_TO_(GET_ISSUER_CERT|VERIFY_LEAF_SIGNATURE|DECRYPT_CERT_SIGNATURE|DECODE_ISSUER_PUBLIC_KEY)|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|ERR_TLS_CERT_ALTNAME_INVALID$)/;

/** The first system error code in an error, its causes and aggregated errors, with the syscall that failed. */
function systemError(e: unknown, depth = 0): { code: string; syscall: string | undefined } | undefined {
  if (depth > 6 || e === null || typeof e !== 'object') return undefined;
  const o = e as { code?: unknown; syscall?: unknown; cause?: unknown; errors?: unknown };
  const errors = Array.isArray(o.errors) ? (o.errors as unknown[]) : [];
  if (typeof o.code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(o.code)) {
    if (typeof o.syscall === 'string') return { code: o.code, syscall: o.syscall };
    // An AggregateError of several connection attempts (one per address) carries the code of the
    // first but no syscall: every attempt must have failed in the same call.
    const calls = new Set<string | undefined>();
    for (const x of errors) {
      const sub = systemError(x, depth + 1);
      calls.add(sub !== undefined && sub.code === o.code ? sub.syscall : undefined);
    }
    return { code: o.code, syscall: calls.size === 1 ? [...calls][0] : undefined };
  }
  const fromCause = systemError(o.cause, depth + 1);
  if (fromCause !== undefined) return fromCause;
  for (const x of errors) {
    const c = systemError(x, depth + 1);
    if (c !== undefined) return c;
  }
  return undefined;
}

/**
 * Shared timeout signals for attempts with the client's default timeout and
 * no caller signal (the common case): attempts started within the same slice
 * of `granularity` ms (at most 32) share one AbortController, aborted `timeoutMs +
 * granularity` after the slice opened. Each such attempt therefore times out
 * between `timeoutMs` and `timeoutMs + granularity` after it started. An
 * AbortController and a timer per attempt would cost more than the rest of
 * the client's work on a fast network (Node 20).
 */
export class TimeoutSignals {
  readonly #timeoutMs: number;
  readonly #granularity: number;
  #slice: { readonly signal: AbortSignal; readonly closesAt: number; uses: number } | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#granularity = Math.min(250, Math.max(5, Math.floor(timeoutMs / 100)));
  }

  /** The attempt timeout these signals implement. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** A signal that aborts with reason {@link ATTEMPT_TIMEOUT} between timeoutMs and timeoutMs + granularity from now. */
  signal(): AbortSignal {
    const now = performance.now();
    const slice = this.#slice;
    // fetch keeps a listener on the signal until the request is collected, and walks the listeners
    // on every call: a slice also closes after 32 uses.
    if (slice !== undefined && now < slice.closesAt && slice.uses < 32) {
      slice.uses++;
      return slice.signal;
    }
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(ATTEMPT_TIMEOUT), this.#timeoutMs + this.#granularity);
    timer.unref();
    this.#slice = { signal: ac.signal, closesAt: now + this.#granularity, uses: 1 };
    return ac.signal;
  }
}

/** The abort reason of an attempt timeout. */
export const ATTEMPT_TIMEOUT = new Error('attempt timed out');

/**
 * True for the errors fetch (undici) throws while it builds the request,
 * before any connection exists: an invalid header value or name, a header
 * character above U+00FF, an invalid URL. Network failures are always
 * `TypeError('fetch failed')` with a cause, and other runtimes' messages
 * ("Failed to fetch", "Load failed") do not match, so they stay "maybe sent".
 */
function refusedByFetch(e: unknown): boolean {
  if (!(e instanceof TypeError) || e.cause !== undefined) return false;
  return /^(Headers\.(append|set)|Request constructor|Cannot convert argument to a ByteString|Failed to parse URL|Invalid URL)/.test(e.message);
}

/**
 * True for fetch's refusal of a port the Fetch standard blocks (1, 9, 6000…):
 * `TypeError('fetch failed')` caused by `Error('bad port')`, before any connection.
 */
function blockedPort(e: unknown): boolean {
  return e instanceof TypeError && e.cause instanceof Error && e.cause.message === 'bad port';
}

/** A header value fetch accepts (Fetch standard: no NUL, CR or LF; bytes up to 0xFF). */
const HEADER_VALUE = /^[^\u0000\r\n\u0100-\uffff]*$/;

/**
 * Reads a body, stopping past `maxBytes` (counted after decompression: fetch
 * decompresses gzip, deflate and br before the reader sees the bytes, so a
 * compression bomb is stopped at the same size as a plain endless answer).
 * Decodes UTF-8 as `Response.text()` does.
 */
async function readCapped(res: Response, maxBytes: number): Promise<string | undefined> {
  const declared = res.headers.get('content-length');
  if (declared !== null && res.headers.get('content-encoding') === null && Number(declared) > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    return undefined;
  }
  const body = res.body;
  if (body === null) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Cancelling stops the download and the decompression; the connection is closed.
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0] !== undefined) return UTF8.decode(chunks[0]);
  return UTF8.decode(Buffer.concat(chunks, total));
}

const UTF8 = new TextDecoder();

/**
 * Classifies a failed fetch or body read. "Never sent" is decided only from
 * errors of the connection phase (see NOT_SENT, CONNECT_TIMEOUT, CERT_CODE);
 * anything else may have come after the request was written.
 */
function noAnswer(e: unknown, afterHeaders: boolean, attemptSignal: AbortSignal, signal: AbortSignal | undefined): Attempt {
  const sys = systemError(e);
  const code = sys?.code;
  if (attemptSignal.aborted && attemptSignal.reason === ATTEMPT_TIMEOUT) return { kind: 'no-answer', sent: 'maybe', failure: 'timeout', code, cause: undefined };
  if (signal?.aborted === true) return { kind: 'no-answer', sent: 'maybe', failure: 'aborted', code, cause: undefined };
  if (!afterHeaders && refusedByFetch(e)) return { kind: 'no-answer', sent: 'no', failure: 'request-refused', code: undefined, cause: e };
  if (!afterHeaders && blockedPort(e)) return { kind: 'no-answer', sent: 'no', failure: 'request-refused', code: undefined, cause: e, badPort: true };
  if (!afterHeaders && sys !== undefined) {
    const notSent = NOT_SENT[sys.code];
    if (notSent !== undefined && sys.syscall === notSent.syscall) return { kind: 'no-answer', sent: 'no', failure: notSent.failure, code, cause: e };
    if (sys.code === CONNECT_TIMEOUT) return { kind: 'no-answer', sent: 'no', failure: 'connect-timeout', code, cause: e };
    if (CERT_CODE.test(sys.code)) return { kind: 'no-answer', sent: 'no', failure: 'tls', code, cause: e };
  }
  return { kind: 'no-answer', sent: 'maybe', failure: code === undefined ? 'other' : 'connection-lost', code, cause: e };
}

async function attemptOnce(cfg: TransportConfig, url: string, init: RequestInit, timeoutMs: number, signal: AbortSignal | undefined): Promise<Attempt> {
  if (signal?.aborted === true) return { kind: 'no-answer', sent: 'no', failure: 'aborted', code: undefined, cause: undefined };
  let timer: NodeJS.Timeout | undefined;
  let onCallerAbort: (() => void) | undefined;
  if (signal === undefined && timeoutMs === cfg.timeouts.timeoutMs) {
    init.signal = cfg.timeouts.signal();
  } else {
    const ac = new AbortController();
    timer = setTimeout(() => ac.abort(ATTEMPT_TIMEOUT), timeoutMs);
    onCallerAbort = () => ac.abort(signal?.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    init.signal = ac.signal;
  }
  const attemptSignal = init.signal;
  try {
    let res: Response;
    try {
      res = await cfg.fetch(url, init);
    } catch (e) {
      return noAnswer(e, false, attemptSignal, signal);
    }
    let text = '';
    let bodyLost = false;
    let tooLarge = false;
    // With redirect: 'manual', a browser-style fetch hides the 3xx behind status 0.
    const status = res.type === 'opaqueredirect' ? 303 : res.status;
    try {
      const read = await readCapped(res, cfg.maxResponseBytes);
      if (read === undefined) tooLarge = true;
      else text = read;
    } catch (e) {
      // Headers came but the body did not. For a 2xx the body is the outcome, so it is lost;
      // for other statuses the status says enough.
      if (status >= 200 && status < 300) return noAnswer(e, true, attemptSignal, signal);
      bodyLost = true;
    }
    return { kind: 'answer', status, headers: res.headers, text, bodyLost, tooLarge };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onCallerAbort !== undefined) signal?.removeEventListener('abort', onCallerAbort);
  }
}

function parseBody(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function messageOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const m = (body as { message?: unknown }).message;
  return typeof m === 'string' ? m : undefined;
}

/** Reads the flag through a call, so that TypeScript does not narrow it across awaits. */
const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

/** The bearer token for an attempt (the cached one without an await in the common case); undefined for other endpoints. */
async function bearerToken(cfg: TransportConfig, ep: EndpointInfo, signal: AbortSignal | undefined, details: () => TransportErrorDetails): Promise<string | undefined> {
  if (ep.auth !== 'bearer') return undefined;
  if (cfg.tokens === undefined) throw new TypeError('a bearer endpoint needs a token cache');
  try {
    return cfg.tokens.peek() ?? (await cfg.tokens.get(signal));
  } catch (e) {
    if (e instanceof TransportError) throw e;
    if (aborted(signal)) throw new AbortedError('aborted by the caller while waiting for the bearer token', details());
    throw e;
  }
}

/** The request of one attempt. */
function requestInit(cfg: TransportConfig, body: string, token: string | undefined, requestId: string, details: () => TransportErrorDetails): RequestInit {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (cfg.requestIdHeader !== undefined) headers[cfg.requestIdHeader] = requestId;
  if (token !== undefined && !HEADER_VALUE.test(token)) {
    // Tokens are checked on receipt (bearerTokenProblem); a token cache of one's own could still
    // hand one out. Never handed to fetch, whose error would quote it.
    throw new NetworkError('the bearer token cannot be sent in a header (it holds CR, LF, NUL or characters above U+00FF); the request was not sent', {
      ...details(),
      failure: 'request-refused',
    });
  }
  return { method: 'POST', headers, body, redirect: 'manual' };
}

/** What the decision needs to know of an attempt, and the details its error would carry. */
function outcomeOf(cfg: TransportConfig, ep: EndpointInfo, a: Attempt, nowMs: number): { outcome: AttemptOutcome; extra: Partial<TransportErrorDetails> & { code?: string | undefined } } {
  if (a.kind === 'no-answer') {
    return { outcome: { kind: 'no-answer', sent: a.sent, failure: a.failure, systemCode: a.code, badPort: a.badPort === true }, extra: { cause: a.cause, code: a.code } };
  }
  const { status } = a;
  const parsed = parseBody(a.text);
  const success = status >= 200 && status < 300;
  const body = !success ? undefined : a.tooLarge ? { kind: 'too-large' as const, maxBytes: cfg.maxResponseBytes } : readSuccessBody(ep, parsed, a.text);
  const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(a.headers.get('retry-after'), nowMs) : undefined;
  // Only failures carry the service's message; it is redacted when an error is made.
  const message = parsed.ok ? messageOf(parsed.value) : undefined;
  return {
    outcome: { kind: 'answer', status, retryAfterMs, bodyLost: a.bodyLost, body },
    extra: { status, serviceMessage: message === undefined ? undefined : redactServiceMessage(message, cfg.secrets()) },
  };
}

/** The error of a failed call. */
function failureError(f: Failure, details: TransportErrorDetails & { code?: string | undefined }): TransportError {
  switch (f.error) {
    case 'OutcomeUnknownError':
      return new OutcomeUnknownError(f.summary, { ...details, reason: f.reason });
    case 'NetworkError':
      return new NetworkError(f.summary, { ...details, failure: f.failure });
    case 'RateLimitedError':
      return new RateLimitedError(f.summary, { ...details, retryAfterMs: f.retryAfterMs });
    case 'ServerError':
      return new ServerError(f.summary, { ...details, retryAfterMs: f.retryAfterMs });
    case 'InvalidResponseError':
      return new InvalidResponseError(f.summary, { ...details, issues: f.issues });
    case 'AuthenticationError':
      return new AuthenticationError(f.summary, details);
    case 'EnvelopeError':
      return new EnvelopeError(f.summary, details);
    case 'AlreadyLinkedError':
      return new AlreadyLinkedError(f.summary, details);
    case 'RejectedError':
      return new RejectedError(f.summary, details);
    case 'AbortedError':
      return new AbortedError(f.summary, details);
  }
}

/**
 * Makes one call: validated request body in, validated response envelope out,
 * or a TransportError. The loop sends; {@link decideAfterAttempt} decides.
 */
export async function callEndpoint(cfg: TransportConfig, ep: EndpointInfo, payload: unknown, options: CallOptions = {}): Promise<CallResult> {
  const { signal } = options;
  const started = cfg.now();
  const bodyText = JSON.stringify(payload);
  const url = `${cfg.baseUrl}${ep.path}`;
  const call = { counted: 0, httpAttempts: 0, refreshed: false, repeat: false, requestId: '' };
  const details = (): TransportErrorDetails => ({ endpoint: ep.path, requestId: call.requestId, attempts: call.httpAttempts });

  for (;;) {
    if (aborted(signal)) throw new AbortedError('aborted by the caller before sending', details());
    if (call.repeat) call.repeat = false;
    else call.counted++;
    const token = await bearerToken(cfg, ep, signal, details);
    call.requestId = cfg.newRequestId();
    if (options.beforeAttempt !== undefined) await options.beforeAttempt(call.requestId);
    call.httpAttempts++;
    const timeoutMs = Math.max(1, Math.min(cfg.timeoutMs, cfg.policy.deadlineMs - (cfg.now() - started)));
    const a = await attemptOnce(cfg, url, requestInit(cfg, bodyText, token, call.requestId, details), timeoutMs, signal);
    const now = cfg.now();
    const { outcome, extra } = outcomeOf(cfg, ep, a, now);
    const context = {
      attempt: call.counted,
      refreshed: call.refreshed,
      sentToken: token !== undefined,
      elapsedMs: now - started,
      timeoutMs,
      random: cfg.random(),
      budgetLeft: cfg.budget.canAcquire(),
    };
    const decision = decideAfterAttempt(outcome, ep, context, cfg.policy);
    switch (decision.action) {
      case 'return': {
        if (call.counted === 1) cfg.budget.refund();
        const status = a.kind === 'answer' ? a.status : 0;
        return { body: decision.body, status, requestId: call.requestId, attempts: call.httpAttempts, ...(decision.offSpec === undefined ? {} : { offSpec: decision.offSpec }) };
      }
      case 'refresh-and-repeat':
        call.refreshed = true;
        call.repeat = true;
        if (token !== undefined) cfg.tokens?.invalidate(token);
        continue;
      case 'retry':
        cfg.budget.tryAcquire();
        await waitToRetry(cfg, decision.delayMs, signal, details);
        continue;
      case 'fail':
        throw failureError(decision.failure, { ...details(), ...extra });
    }
  }
}

/** Waits before a retry with the client's sleep; an abort during the wait is an AbortedError (nothing was processed). */
async function waitToRetry(cfg: TransportConfig, ms: number, signal: AbortSignal | undefined, details: () => TransportErrorDetails): Promise<void> {
  try {
    await cfg.sleep(ms, signal);
  } catch (e) {
    if (aborted(signal)) throw new AbortedError('aborted by the caller while waiting to retry; the last attempt was not processed', details());
    throw e;
  }
}
