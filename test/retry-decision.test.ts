/**
 * The client's decision after each attempt, as a table: no server, no clock,
 * no real wait. The transport loop around it is tested against the mock in
 * client.test.ts.
 */
import { describe, expect, it } from 'vitest';
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
  type UnknownOutcomeReason,
} from '../src/client/index.js';
import { reasonCode } from '../src/client/submit.js';
import { decideAfterAttempt, readSuccessBody, type AttemptContext, type AttemptOutcome, type Decision, type DecisionEndpoint } from '../src/client/retry-decision.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../src/client/retry.js';

/** The link call and the OTP calls: a POST that must not be repeated blindly. */
const LINK: DecisionEndpoint = { auth: 'bearer', idempotent: false };
/** Search and profile reads. */
const READ: DecisionEndpoint = { auth: 'bearer', idempotent: true };
/** The token endpoint: API key, no bearer token. */
const TOKEN: DecisionEndpoint = { auth: 'none', idempotent: true };

const policy: RetryPolicy = { ...DEFAULT_RETRY, maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 5000, maxRetryAfterMs: 30_000, deadlineMs: 60_000 };
const first: AttemptContext = { attempt: 1, refreshed: false, sentToken: true, elapsedMs: 0, timeoutMs: 10_000, random: 0.5, budgetLeft: true };
const last: AttemptContext = { ...first, attempt: 3 };

const refused = (sent: 'no' | 'maybe', failure: NetworkFailure | 'aborted', systemCode?: string): AttemptOutcome => ({ kind: 'no-answer', sent, failure, systemCode });
const status = (s: number, extra: Partial<AttemptOutcome & { kind: 'answer' }> = {}): AttemptOutcome => ({ kind: 'answer', status: s, ...extra });
const ok = (value: unknown): AttemptOutcome => status(200, { body: { kind: 'valid', value } });

const retry = (delayMs: number): Decision => ({ action: 'retry', delayMs });
const unknown = (reason: UnknownOutcomeReason) => ({ action: 'fail', failure: { error: 'OutcomeUnknownError', reason } });
const network = (failure: NetworkFailure) => ({ action: 'fail', failure: { error: 'NetworkError', failure } });
const failsWith = (error: string) => ({ action: 'fail', failure: { error } });

describe('decideAfterAttempt', () => {
  // [what happened, outcome, endpoint, context, what the client does]
  const table: [string, AttemptOutcome, DecisionEndpoint, AttemptContext, object][] = [
    // Answers that end the call.
    ['a 2xx with success: true returns the answer', ok({ success: true }), LINK, first, { action: 'return', body: { success: true } }],
    [
      'a link answered success: true off the spec returns it with offSpec',
      status(200, { body: { kind: 'off-spec', value: { success: true }, issues: [{ path: '/message', code: 'type', message: 'x', severity: 'error' }] } }),
      LINK,
      first,
      { action: 'return', offSpec: [{ path: '/message' }] },
    ],
    [
      'a read answered off the spec fails with InvalidResponseError',
      status(200, { body: { kind: 'off-spec', value: {}, issues: [{ path: '/data', code: 'required', message: 'x', severity: 'error' }] } }),
      READ,
      first,
      { action: 'fail', failure: { error: 'InvalidResponseError', issues: [{ path: '/data' }] } },
    ],
    ['a 2xx with success: false fails with EnvelopeError', status(200, { body: { kind: 'refused', flag: 'success' } }), LINK, first, failsWith('EnvelopeError')],
    ['a link answered 2xx without a readable flag is outcome unknown', status(200, { body: { kind: 'unreadable', flag: 'success', why: 'not-json' } }), LINK, first, unknown('unreadable-response')],
    [
      'a read answered 2xx without a readable flag fails with InvalidResponseError',
      status(200, { body: { kind: 'unreadable', flag: 'status', why: 'no-flag' } }),
      TOKEN,
      first,
      { action: 'fail', failure: { error: 'InvalidResponseError', issues: [{ path: '/status', code: 'required' }] } },
    ],
    ['a link answer over maxResponseBytes is outcome unknown', status(200, { body: { kind: 'too-large', maxBytes: 10 } }), LINK, first, unknown('response-too-large')],
    [
      'a read answer over maxResponseBytes fails with InvalidResponseError too-large',
      status(200, { body: { kind: 'too-large', maxBytes: 10 } }),
      READ,
      first,
      { action: 'fail', failure: { error: 'InvalidResponseError', issues: [{ code: 'too-large' }] } },
    ],
    // Credentials.
    ['a 401 on a bearer call refreshes the token and repeats', status(401), LINK, first, { action: 'refresh-and-repeat' }],
    ['a second 401 after the refresh fails with AuthenticationError', status(401), LINK, { ...first, refreshed: true }, failsWith('AuthenticationError')],
    ['a 401 from the token endpoint fails at once (the API key)', status(401), TOKEN, { ...first, sentToken: false }, failsWith('AuthenticationError')],
    ['a 403 fails with AuthenticationError, never refreshed', status(403), LINK, first, failsWith('AuthenticationError')],
    // Slow down: 429 and 503.
    ['a 429 with Retry-After is retried after it, even on the link call', status(429, { retryAfterMs: 1000 }), LINK, first, retry(1000)],
    ['a 503 with Retry-After is retried after it, even on the link call', status(503, { retryAfterMs: 0 }), LINK, first, retry(0)],
    [
      'a 429 with a Retry-After over the cap fails with RateLimitedError',
      status(429, { retryAfterMs: 120_000 }),
      LINK,
      first,
      { action: 'fail', failure: { error: 'RateLimitedError', retryAfterMs: 120_000 } },
    ],
    ['a 429 without Retry-After on the link call fails with RateLimitedError', status(429), LINK, first, failsWith('RateLimitedError')],
    ['a 429 without Retry-After on a read is retried after backoff', status(429), READ, first, retry(100)],
    ['a 503 without Retry-After on the link call is outcome unknown', status(503), LINK, first, unknown('server-error')],
    ['a 503 with Retry-After on the last attempt fails with ServerError', status(503, { retryAfterMs: 0 }), LINK, last, failsWith('ServerError')],
    ['a 429 with Retry-After when the budget is spent fails with RateLimitedError', status(429, { retryAfterMs: 10 }), LINK, { ...first, budgetLeft: false }, failsWith('RateLimitedError')],
    ['a 429 whose Retry-After would pass the deadline fails with RateLimitedError', status(429, { retryAfterMs: 10_000 }), LINK, { ...first, elapsedMs: 55_000 }, failsWith('RateLimitedError')],
    // Other 5xx.
    ['a 500 on the link call is outcome unknown, never retried', status(500), LINK, first, unknown('server-error')],
    ['a 500 on a read is retried after backoff', status(500), READ, first, retry(100)],
    ['a 502 on the second attempt of a read waits twice as long', status(502), READ, { ...first, attempt: 2 }, retry(200)],
    ['a 504 on the last attempt of a read fails with ServerError', status(504), READ, last, failsWith('ServerError')],
    ['a 501 on a read fails with ServerError, not retried', status(501), READ, first, failsWith('ServerError')],
    // Redirects and refusals.
    ['a redirect answering the link call is outcome unknown', status(303), LINK, first, unknown('redirect')],
    ['a redirect answering a read fails with RejectedError', status(307), READ, first, failsWith('RejectedError')],
    ['a 400 fails with RejectedError', status(400), LINK, first, failsWith('RejectedError')],
    // No answer: never sent.
    ['a link refused at connect is retried after backoff', refused('no', 'connection-refused', 'ECONNREFUSED'), LINK, first, retry(100)],
    ['a link refused at connect on the last attempt fails with NetworkError', refused('no', 'connection-refused', 'ECONNREFUSED'), LINK, last, network('connection-refused')],
    ['a DNS failure is retried after backoff', refused('no', 'dns', 'ENOTFOUND'), LINK, first, retry(100)],
    ['a connect timeout is retried after backoff', refused('no', 'connect-timeout'), LINK, first, retry(100)],
    ['a refused certificate fails at once with NetworkError tls', refused('no', 'tls', 'CERT_HAS_EXPIRED'), LINK, first, network('tls')],
    ['a request fetch refused to build fails at once with NetworkError request-refused', refused('no', 'request-refused'), READ, first, network('request-refused')],
    ['a retry the budget cannot pay for fails with NetworkError', refused('no', 'connection-refused'), LINK, { ...first, budgetLeft: false }, network('connection-refused')],
    // No answer: maybe sent.
    ['a link whose attempt timed out is outcome unknown, never retried', refused('maybe', 'timeout'), LINK, first, unknown('timeout')],
    ['a link whose connection was lost is outcome unknown, never retried', refused('maybe', 'connection-lost', 'ECONNRESET'), LINK, first, unknown('connection-lost')],
    ['a link that failed for another reason after sending is outcome unknown (connection-lost)', refused('maybe', 'other'), LINK, first, unknown('connection-lost')],
    ['a read whose attempt timed out is retried after backoff', refused('maybe', 'timeout'), READ, first, retry(100)],
    ['a read whose attempt timed out on the last attempt fails with NetworkError timeout', refused('maybe', 'timeout'), READ, last, network('timeout')],
    // The caller's abort.
    ['an abort before the request left fails with AbortedError', refused('no', 'aborted'), LINK, first, failsWith('AbortedError')],
    ['an abort while the link was in flight is outcome unknown', refused('maybe', 'aborted'), LINK, first, unknown('aborted')],
    ['an abort while a read was in flight fails with AbortedError', refused('maybe', 'aborted'), READ, first, failsWith('AbortedError')],
  ];

  it.each(table)('%s', (_what, outcome, ep, ctx, expected) => {
    expect(decideAfterAttempt(outcome, ep, ctx, policy)).toMatchObject(expected);
  });

  it('says in the failure why it did not retry: attempts, deadline or budget', () => {
    const summary = (ctx: AttemptContext): string => {
      const d = decideAfterAttempt(refused('no', 'connection-refused', 'ECONNREFUSED'), LINK, ctx, policy);
      return d.action === 'fail' ? d.failure.summary : d.action;
    };
    expect(summary(last)).toBe('connection refused: the request never reached the service (ECONNREFUSED); not retried: all 3 attempts made');
    expect(summary({ ...first, elapsedMs: 59_990 })).toMatch(/not retried: the call's deadline of 60 s would pass$/);
    expect(summary({ ...first, budgetLeft: false })).toMatch(/not retried: the client's retry budget is spent/);
  });

  it.each([
    ['ECONNRESET', 'connection-lost', 'the connection was lost before an answer came (ECONNRESET: connection reset by the other side)'],
    ['ETIMEDOUT', 'connect-timeout', 'the connection could not be opened in time: the request never reached the service (ETIMEDOUT: connection timed out)'],
    ['ENOTFOUND', 'dns', 'the host name could not be resolved: the request never reached the service (ENOTFOUND: no such host name)'],
    ['EAI_AGAIN', 'dns', 'the host name could not be resolved: the request never reached the service (EAI_AGAIN: DNS lookup failed for now (temporary))'],
    ['EHOSTUNREACH', 'unreachable', 'the network or host is unreachable: the request never reached the service (EHOSTUNREACH: no route to the host)'],
    ['CERT_HAS_EXPIRED', 'tls', "the TLS handshake failed (certificate or protocol): the request was not sent (CERT_HAS_EXPIRED: the service's certificate has expired)"],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls', 'the TLS handshake failed (certificate or protocol): the request was not sent (ERR_TLS_CERT_ALTNAME_INVALID: the certificate is for another host name)'],
    ['ESOMETHINGNEW', 'connection-lost', 'the connection was lost before an answer came (ESOMETHINGNEW)'],
  ] as const)('says what %s means in words beside the code', (code, failure, text) => {
    const d = decideAfterAttempt(refused(failure === 'connection-lost' ? 'maybe' : 'no', failure, code), READ, last, policy);
    expect(d.action === 'fail' ? d.failure.summary : d.action).toBe(failure === 'tls' ? text : `${text}; not retried: all 3 attempts made`);
  });

  it('says so when a link call lost its connection, with the code in words', () => {
    const d = decideAfterAttempt(refused('maybe', 'connection-lost', 'ECONNRESET'), LINK, first, policy);
    expect(d.action === 'fail' && d.failure.summary).toBe(
      'the connection was lost before an answer came (ECONNRESET: connection reset by the other side); the request may have been processed, so it was not sent again',
    );
  });

  it('draws the backoff from the jitter it is given, capped at maxDelayMs', () => {
    expect(decideAfterAttempt(status(500), READ, { ...first, random: 0 }, policy)).toEqual(retry(0));
    expect(decideAfterAttempt(status(500), READ, { ...first, random: 0.999, attempt: 2 }, { ...policy, maxAttempts: 10, maxDelayMs: 300 })).toEqual(retry(299));
  });

  it('names the attempt timeout in the message of a link that timed out', () => {
    const d = decideAfterAttempt(refused('maybe', 'timeout'), LINK, { ...first, timeoutMs: 2500 }, policy);
    expect(d.action === 'fail' && d.failure.summary).toBe('no answer within 2.5 s; the request may have been processed, so it was not sent again');
  });

  it('does not change its inputs, and decides the same way twice', () => {
    const outcome = status(429, { retryAfterMs: 1000 });
    const ctx = { ...first };
    const frozen = JSON.stringify([outcome, ctx, policy]);
    expect(decideAfterAttempt(outcome, LINK, ctx, policy)).toEqual(decideAfterAttempt(outcome, LINK, ctx, policy));
    expect(JSON.stringify([outcome, ctx, policy])).toBe(frozen);
  });
});

describe('readSuccessBody', () => {
  const link = { id: 'link-carecontext', envelope: 'standard', dataRequired: false } as const;
  const search = { id: 'search-abha', envelope: 'standard', dataRequired: true } as const;
  const token = { id: 'token', envelope: 'token', dataRequired: true } as const;
  const json = (text: string) => {
    try {
      return { ok: true as const, value: JSON.parse(text) as unknown };
    } catch {
      return { ok: false as const };
    }
  };
  const cases: [string, Parameters<typeof readSuccessBody>[0], string, object][] = [
    ['an empty body is unreadable (empty)', link, '', { kind: 'unreadable', why: 'empty' }],
    ['a body that is not JSON is unreadable (not-json)', link, '<html>', { kind: 'unreadable', why: 'not-json' }],
    ['a body without a boolean success is unreadable (no-flag)', link, '{"success":"yes"}', { kind: 'unreadable', flag: 'success', why: 'no-flag' }],
    ['the token endpoint reads its status flag', token, '{"status":false}', { kind: 'refused', flag: 'status' }],
    ['success: false is refused', link, '{"success":false,"message":"no"}', { kind: 'refused', flag: 'success' }],
    ['a link answer success: true is valid without data', link, '{"success":true}', { kind: 'valid', value: { success: true } }],
    ['a read answer without the data the spec shows is off the spec at /data', search, '{"success":true}', { kind: 'off-spec', issues: [{ path: '/data', code: 'required' }] }],
  ];
  it.each(cases)('%s', (_what, ep, text, expected) => {
    expect(readSuccessBody(ep, json(text), text)).toMatchObject(expected);
  });
});

describe('TransportError reason', () => {
  const d: TransportErrorDetails = { endpoint: '/api/m2/multiple/link-carecontext', requestId: 'r-1', attempts: 1 };
  // The codes the journal recorded before errors carried them (reasonCode's old instanceof chain).
  const table: [TransportError, string][] = [
    [new AuthenticationError('x', d), 'authentication'],
    [new RateLimitedError('x', d), 'rate-limited'],
    [new ServerError('x', { ...d, status: 503 }), 'server-error'],
    [new NetworkError('x', { ...d, failure: 'connection-refused', code: 'ECONNREFUSED' }), 'connection-refused'],
    [new NetworkError('x', { ...d, failure: 'timeout' }), 'timeout'],
    [new NetworkError('x', { ...d, failure: 'request-refused' }), 'request-refused'],
    [new EnvelopeError('x', { ...d, status: 200 }), 'envelope-failure'],
    [new RejectedError('x', { ...d, status: 400 }), 'rejected'],
    [new RejectedError('x', { ...d, status: 307 }), 'redirect'],
    [new RejectedError('x', d), 'rejected'],
    [new InvalidResponseError('x', { ...d, issues: [] }), 'invalid-response'],
    [new OutcomeUnknownError('x', { ...d, reason: 'timeout' }), 'timeout'],
    [new OutcomeUnknownError('x', { ...d, reason: 'response-too-large' }), 'response-too-large'],
    [new AbortedError('x', d), 'aborted'],
    [new TransportError('x', d), 'error'],
  ];
  it.each(table.map(([e, code]) => [e.name, code, e] as const))('%s has the stable code %s, which is what the journal records', (_name, code, e) => {
    expect(e.reason).toBe(code);
    expect(reasonCode(e)).toBe(code);
  });

  it('keeps the system error code of a NetworkError apart from its stable code', () => {
    const e = new NetworkError('x', { ...d, failure: 'connection-refused', code: 'ECONNREFUSED' });
    expect(e).toMatchObject({ reason: 'connection-refused', failure: 'connection-refused', code: 'ECONNREFUSED' });
  });
});
