/**
 * The client of the ABHA identity and care-context linking service: one typed
 * method per endpoint of the spec, requests validated before they are sent,
 * responses validated when they arrive, the bearer token handled for you.
 */
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { ValidationError, summarizeIssues, type Issue } from '../errors.js';
import type { SchemaName } from '../generated/manifest.js';
import type * as T from '../generated/types.js';
import { BOUNDS } from '../spec/definition.js';
import { endpointTable, type EndpointId, type EndpointRequest } from '../spec/endpoints.js';
import { validate } from '../validation/validate.js';
import { parseBaseUrl } from './base-url.js';
import { InvalidResponseError } from './errors.js';
import { linkAnswerMismatches } from './link-answer.js';
import { RetryBudget, numberOption, resolveRetryPolicy, sleep, type RetryOptions } from './retry.js';
import type { SessionToken } from './session.js';
import { runBatch, type SubmitOptions, type SubmitSummary } from './submit.js';
import { TokenCache, bearerTokenProblem } from './token.js';
import type { EndpointInfo } from './endpoint-info.js';
import { TimeoutSignals, callEndpoint, type CallOptions, type CallResult, type FetchLike, type SleepLike, type TransportConfig } from './transport.js';

/**
 * Options of {@link createClient}. Only `baseUrl` and `apiKey` are required.
 *
 * @example
 * const options: ClientOptions = { baseUrl: 'https://abha.example.org', apiKey, timeoutMs: 15_000, retry: { maxAttempts: 4 } }
 */
export interface ClientOptions {
  /** The service's base URL: `https:` only, except `http:` to a loopback host (the local mock). */
  readonly baseUrl: string;
  /** The account API key. Kept in memory only; never in errors, logs or `util.inspect`. */
  readonly apiKey: string;
  /** The fetch function (default: the global fetch). Inject one to mock the network. */
  readonly fetch?: FetchLike;
  /** Timeout of one HTTP attempt in ms, body included (default 10000). */
  readonly timeoutMs?: number;
  /**
   * The longest answer body the client reads, in bytes after decompression
   * (default 4194304, 4 MiB: the largest answer of the spec is a profile with
   * a photo the schemas bound at 2,000,000 characters). Reading stops past it:
   * a link or OTP call is then an OutcomeUnknownError (`response-too-large`),
   * a read an InvalidResponseError (`too-large`).
   */
  readonly maxResponseBytes?: number;
  /** Retry policy; `false` for a single attempt per call. */
  readonly retry?: RetryOptions | false;
  /** Lifetime assumed for a bearer token without a JWT `exp`, in ms (default 300000). */
  readonly tokenLifetimeMs?: number;
  /** Refresh the bearer token this long before it expires, in ms (default 60000, at most half its lifetime). */
  readonly tokenRefreshMarginMs?: number;
  /** Send the client's request id in this header (default: not sent; the spec defines no such header). */
  readonly requestIdHeader?: string;
  /** The clock, in ms since the epoch (default Date.now). Used for token expiry, Retry-After dates and deadlines. */
  readonly now?: () => number;
  /** Random numbers in [0, 1) for backoff jitter (default Math.random). */
  readonly random?: () => number;
  /**
   * The wait before a retry (default: a timer that an abort cuts short).
   * Inject one, like the clock, to test Retry-After and backoff without real
   * waits: it gets the wait in ms and the call's signal.
   */
  readonly sleep?: SleepLike;
}

/**
 * What a method of the client resolves to: the service's envelope of a
 * success. A method that resolves has succeeded (a failure is thrown), so
 * `success` is `true` and `data`, the payload the spec shows for the
 * endpoint, is present (an answer without it is an InvalidResponseError).
 * The fields inside `data` stay optional: the spec lists them but never says
 * which are always sent.
 *
 * @example
 * const r: Succeeded<SearchAbhaResponse> = await client.searchAbha({ mobile: '9000000001' })
 * r.data[0]?.txnId
 */
export type Succeeded<R extends { success: boolean; message?: string; data?: unknown }> = {
  success: true;
  message?: string;
  data: Exclude<R['data'], undefined | null>;
};

/**
 * What `linkCareContexts` resolves to: the service's `success: true`
 * envelope. The spec does not show this answer's shape (§4.12), so `data`
 * is kept as it came, when it came.
 */
export interface LinkCareContextSuccess {
  success: true;
  message?: string;
  /** The service's payload, any shape (the spec shows none); the mock sends `{ careContexts: [{ referenceNumber, status }] }`. */
  data?: unknown;
  /**
   * Set (by the client, not the service) when the answer lists care contexts
   * that contradict the request: one reported as not linked (`FAILED`), a
   * reference the request did not send, or one of the request's care contexts
   * left out. Warnings with paths and codes, never values; the request was
   * processed, so it is not sent again. See {@link linkAnswerMismatches}.
   */
  mismatches?: readonly Issue[];
}

/** A response envelope whose session tokens are typed {@link SessionToken}. */
export type WithSessionTokens<R> = { [K in keyof R]: K extends 'data' ? SessionFields<R[K]> : R[K] };
type SessionFields<D> = D extends object ? { [K in keyof D]: K extends 'token' ? SessionToken : K extends 'tokens' ? SessionFields<D[K]> : D[K] } : D;

/** The body of the two profile fetches: the session token, typed. */
export interface SessionTokenRequest {
  /** The ABHA session token from an OTP verification (never the bearer token). */
  readonly token: SessionToken;
}

/** Information about a client, safe to log. */
export interface ClientInfo {
  readonly baseUrl: string;
}

/** What the transport needs of each endpoint, all from the spec definition. */
const ENDPOINT_INFO: Readonly<Record<EndpointId, EndpointInfo>> = endpointTable((e) => ({
  id: e.id,
  path: e.path,
  auth: e.auth,
  idempotent: e.idempotent,
  envelope: e.response.envelope,
  dataRequired: e.response.dataRequired,
}));

/**
 * The method of {@link AbhaClient} that calls each endpoint (`null`: called
 * by the client itself). An endpoint added to the spec definition without a
 * method here fails the type check; test/endpoints.test.ts checks that each
 * method sends to its endpoint's path.
 */
export const CLIENT_METHODS = {
  token: null,
  'search-abha': 'searchAbha',
  'request-otp': 'requestOtp',
  'verify-otp': 'verifyOtp',
  'mobile-login-verify-otp': 'mobileLoginVerifyOtp',
  'mobile-login-abha-number-verify-otp': 'mobileLoginAbhaNumberVerifyOtp',
  'aadhar-number-login-verify-otp': 'aadharNumberLoginVerifyOtp',
  'abha-address-login-verify-otp': 'abhaAddressLoginVerifyOtp',
  'enroll-verify-otp': 'enrollVerifyOtp',
  'fetch-abha-address-profile': 'fetchAbhaAddressProfile',
  'get-profile': 'getProfile',
  'link-carecontext': 'linkCareContexts',
} as const satisfies Record<EndpointId, keyof AbhaClient | null>;

/** The default of `maxResponseBytes`: 4 MiB. */
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

function endpoint(id: EndpointId): EndpointInfo {
  return ENDPOINT_INFO[id];
}

/**
 * The envelope of a link call the service acknowledged (`success: true`)
 * with an answer off the spec: a message that is not a string of at most
 * 4096 characters is left out; `data` is kept as it came (the spec does not
 * define it).
 */
function linkEnvelope(body: unknown, mismatches: readonly Issue[] | undefined): LinkCareContextSuccess {
  const b = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const message = typeof b.message === 'string' && b.message.length <= BOUNDS.message ? b.message : undefined;
  return {
    success: true,
    ...(message === undefined ? {} : { message }),
    ...(Object.hasOwn(b, 'data') ? { data: b.data } : {}),
    ...(mismatches === undefined ? {} : { mismatches }),
  };
}

/** The result of a link call, with the answer compared to the request (see linkAnswerMismatches). */
function withMismatches(r: CallResult, request: T.LinkCareContextRequest): CallResult {
  const b = r.body;
  const data = b !== null && typeof b === 'object' ? (b as { data?: unknown }).data : undefined;
  const mismatches = linkAnswerMismatches(request, data);
  return mismatches === undefined ? r : { ...r, mismatches };
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/**
 * A client of the service. Create it with {@link createClient}.
 *
 * @example
 * const client = createClient({ baseUrl: 'https://abha.example.org', apiKey: key })
 * const answer = await client.linkCareContexts(request)
 * //=> { success: true, message: '...', data: ... }
 */
export class AbhaClient {
  readonly #apiKey: string;
  readonly #config: TransportConfig;
  readonly #tokens: TokenCache;
  readonly #recentTokens: string[] = [];
  /** The normalised base URL. */
  readonly baseUrl: string;

  constructor(options: ClientOptions) {
    if (options === null || typeof options !== 'object') throw new TypeError('createClient needs an options object: { baseUrl, apiKey }');
    this.baseUrl = parseBaseUrl(options.baseUrl);
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') throw new TypeError('apiKey is required (a non-empty string)');
    this.#apiKey = options.apiKey;
    const policy = resolveRetryPolicy(options.retry);
    const now = options.now ?? Date.now;
    const fetchFn: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const timeoutMs = numberOption('timeoutMs', options.timeoutMs, 10_000, 1);
    if (options.sleep !== undefined && typeof options.sleep !== 'function') throw new TypeError('sleep must be a function (ms, signal) => Promise<void>');
    if (options.requestIdHeader !== undefined && (typeof options.requestIdHeader !== 'string' || !HEADER_NAME.test(options.requestIdHeader))) {
      throw new TypeError('requestIdHeader must be an HTTP header name, e.g. x-request-id');
    }
    const base: Omit<TransportConfig, 'tokens'> = {
      baseUrl: this.baseUrl,
      fetch: fetchFn,
      timeoutMs,
      timeouts: new TimeoutSignals(timeoutMs),
      policy,
      budget: new RetryBudget(policy.budget),
      now,
      random: options.random ?? Math.random,
      sleep: options.sleep ?? sleep,
      newRequestId: randomUUID,
      requestIdHeader: options.requestIdHeader,
      secrets: () => [this.#apiKey, ...this.#recentTokens],
      maxResponseBytes: numberOption('maxResponseBytes', options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 1),
    };
    const tokenConfig: TransportConfig = { ...base, tokens: undefined };
    this.#tokens = new TokenCache({
      fetchToken: async () => {
        const r = await callEndpoint(tokenConfig, endpoint('token'), { apiKey: this.#apiKey } satisfies T.TokenRequest);
        const token = (r.body as T.TokenResponse).data;
        const problem = bearerTokenProblem(token);
        if (problem !== undefined || typeof token !== 'string') {
          // Checked on receipt: a token with CR, LF or NUL would make fetch refuse the header, and
          // its error would quote the token. The token itself is never quoted.
          const missing = typeof token !== 'string' || token === '';
          const why = missing ? 'without a token in data' : `with a token that cannot be a bearer token: ${problem ?? ''}`;
          throw new InvalidResponseError(`the token endpoint answered status: true ${why}`, {
            endpoint: endpoint('token').path,
            status: r.status,
            requestId: r.requestId,
            attempts: r.attempts,
            issues: [
              missing
                ? { path: '/data', code: 'required', message: 'data is required: the bearer token', severity: 'error' }
                : { path: '/data', code: 'invalid-token', message: `data is not a usable bearer token: ${problem ?? ''}`, severity: 'error' },
            ],
          });
        }
        this.#recentTokens.unshift(token);
        this.#recentTokens.length = Math.min(this.#recentTokens.length, 3);
        return token;
      },
      now,
      lifetimeMs: numberOption('tokenLifetimeMs', options.tokenLifetimeMs, 300_000, 1),
      marginMs: numberOption('tokenRefreshMarginMs', options.tokenRefreshMarginMs, 60_000, 0),
    });
    this.#config = { ...base, tokens: this.#tokens };
  }

  /** Validates `request` against `<id>-request`, calls the endpoint, resolves to the validated envelope. */
  #body<R, I extends EndpointId = EndpointId>(id: I, request: EndpointRequest<I>, options: CallOptions | undefined): Promise<R> {
    const checked = validate(`${id}-request` as SchemaName, request);
    if (!checked.success) return Promise.reject(new ValidationError(checked.issues, `${id} request`));
    return callEndpoint(this.#config, endpoint(id), request, options).then((r) => {
      if (id === 'link-carecontext') {
        const compared = withMismatches(r, request as T.LinkCareContextRequest);
        if (r.offSpec === undefined && compared.mismatches === undefined) return r.body as R;
        return linkEnvelope(r.body, compared.mismatches) as R;
      }
      if (r.offSpec === undefined) return r.body as R;
      // An OTP call the service processed (success: true) whose data is unusable: the caller
      // cannot go on with it, and must know that it was processed (the OTP may be used up).
      throw new InvalidResponseError(
        `the service answered success: true (the request was processed), but the rest of the answer does not have the spec's shape (${summarizeIssues(r.offSpec, 'count')}); not sent again`,
        {
          endpoint: endpoint(id).path,
          status: r.status,
          requestId: r.requestId,
          attempts: r.attempts,
          issues: r.offSpec,
        },
      );
    });
  }

  /** Bearer-token requests made so far (one per refresh). */
  get tokenRequests(): number {
    return this.#tokens.refreshes;
  }

  /**
   * Links care contexts to an ABHA address (spec §4.12). The request is
   * validated first: an invalid one throws a `ValidationError` and never
   * reaches the network. Never repeated after an ambiguous failure: see
   * {@link OutcomeUnknownError}.
   *
   * @returns the service's envelope (`success: true`)
   * @throws ValidationError, or a TransportError subclass
   * @example
   * const r = await client.linkCareContexts(buildLinkRequest(input))
   * //=> { success: true, message: 'care contexts linked', data: { ... } }
   */
  linkCareContexts(request: T.LinkCareContextRequest, options?: CallOptions): Promise<LinkCareContextSuccess> {
    return this.#body('link-carecontext', request, options);
  }

  /**
   * Searches ABHA accounts by a 10-digit mobile number (spec §4.2). Returns
   * masked entries with a per-account `index` and a `txnId`.
   *
   * @example
   * const r = await client.searchAbha({ mobile: '9000000001' })
   * r.data[0]?.ABHA?.[0]?.index //=> 0
   */
  searchAbha(request: T.SearchAbhaRequest, options?: CallOptions): Promise<Succeeded<T.SearchAbhaResponse>> {
    return this.#body('search-abha', request, options);
  }

  /**
   * Sends an OTP for the account chosen from a search (spec §4.3): `loginId`
   * is the account's index, `txnId` the search's.
   *
   * @example
   * await client.requestOtp({ scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '0', txnId })
   */
  requestOtp(request: T.RequestOtpRequest, options?: CallOptions): Promise<Succeeded<T.RequestOtpResponse>> {
    return this.#body('request-otp', request, options);
  }

  /**
   * Verifies the OTP (spec §4.4); returns the accounts and the session token.
   *
   * @example
   * const r = await client.verifyOtp({ scope: ['abha-login'], txnId, otp })
   * const session = r.data.token // a SessionToken | undefined
   */
  verifyOtp(request: T.VerifyOtpRequest, options?: CallOptions): Promise<WithSessionTokens<Succeeded<T.VerifyOtpResponse>>> {
    return this.#body('verify-otp', request, options);
  }

  /**
   * Verifies the OTP of a mobile login (spec §4.5).
   *
   * @example
   * const r = await client.mobileLoginVerifyOtp({ txnId, otp })
   */
  mobileLoginVerifyOtp(request: T.MobileLoginVerifyOtpRequest, options?: CallOptions): Promise<WithSessionTokens<Succeeded<T.MobileLoginVerifyOtpResponse>>> {
    return this.#body('mobile-login-verify-otp', request, options);
  }

  /**
   * Verifies the OTP of a mobile login by ABHA number (spec §4.6).
   *
   * @example
   * const r = await client.mobileLoginAbhaNumberVerifyOtp({ txnId, otp })
   * r.data.authResult //=> 'success'
   */
  mobileLoginAbhaNumberVerifyOtp(request: T.MobileLoginAbhaNumberVerifyOtpRequest, options?: CallOptions): Promise<Succeeded<T.MobileLoginAbhaNumberVerifyOtpResponse>> {
    return this.#body('mobile-login-abha-number-verify-otp', request, options);
  }

  /**
   * Verifies the OTP of a national-ID-number login (spec §4.7).
   *
   * @example
   * const r = await client.aadharNumberLoginVerifyOtp({ txnId, otpValue, mobile })
   */
  aadharNumberLoginVerifyOtp(request: T.AadharNumberLoginVerifyOtpRequest, options?: CallOptions): Promise<WithSessionTokens<Succeeded<T.AadharNumberLoginVerifyOtpResponse>>> {
    return this.#body('aadhar-number-login-verify-otp', request, options);
  }

  /**
   * Completes an ABHA-address login (spec §4.8); returns users and `tokens`.
   *
   * @example
   * const r = await client.abhaAddressLoginVerifyOtp({ txnId, otpValue, mobile })
   * const session = r.data.tokens?.token
   */
  abhaAddressLoginVerifyOtp(request: T.AbhaAddressLoginVerifyOtpRequest, options?: CallOptions): Promise<WithSessionTokens<Succeeded<T.AbhaAddressLoginVerifyOtpResponse>>> {
    return this.#body('abha-address-login-verify-otp', request, options);
  }

  /**
   * Verifies the enrolment OTP (spec §4.9); returns the ABHA profile and `tokens`.
   *
   * @example
   * const r = await client.enrollVerifyOtp({ txnId, otpValue, mobile })
   * r.data.ABHAProfile?.ABHANumber
   */
  enrollVerifyOtp(request: T.EnrollVerifyOtpRequest, options?: CallOptions): Promise<WithSessionTokens<Succeeded<T.EnrollVerifyOtpResponse>>> {
    return this.#body('enroll-verify-otp', request, options);
  }

  /**
   * Fetches the ABHA address profile with a session token (spec §4.10). The
   * token travels in the body field `token`, never in a header.
   *
   * @example
   * const p = await client.fetchAbhaAddressProfile({ token: session })
   * p.data.abhaAddress
   */
  fetchAbhaAddressProfile(request: SessionTokenRequest, options?: CallOptions): Promise<Succeeded<T.FetchAbhaAddressProfileResponse>> {
    return this.#body('fetch-abha-address-profile', request, options);
  }

  /**
   * Fetches the account profile with a session token (spec §4.11).
   *
   * @example
   * const p = await client.getProfile({ token: session })
   * p.data.ABHANumber
   */
  getProfile(request: SessionTokenRequest, options?: CallOptions): Promise<Succeeded<T.GetProfileResponse>> {
    return this.#body('get-profile', request, options);
  }

  /**
   * Sends many link requests with bounded concurrency, recording each item's
   * key and outcome in a journal so that a rerun sends only what was not
   * acknowledged. See {@link SubmitOptions}.
   *
   * @throws the input's own error when iterating `items` fails, after the
   * requests in flight have finished and their outcomes are journaled; a
   * JournalError when the journal cannot be opened or written
   * @example
   * const summary = await client.submitMany(requests, { concurrency: 8, journal: 'links.journal' })
   * //=> { total: 3, acknowledged: 3, failed: 0, unknown: 0, invalid: 0, ... }
   */
  submitMany(items: AsyncIterable<unknown> | Iterable<unknown>, options: SubmitOptions = {}): Promise<SubmitSummary> {
    return runBatch(items, options, (request, signal, beforeSend) =>
      callEndpoint(this.#config, endpoint('link-carecontext'), request, { signal, beforeAttempt: beforeSend }).then((r) => withMismatches(r, request)),
    );
  }

  /** What a log line may show about this client. */
  toJSON(): ClientInfo {
    return { baseUrl: this.baseUrl };
  }

  /** Never reveals the API key or tokens. */
  [inspect.custom](): string {
    return `AbhaClient { baseUrl: '${this.baseUrl}' }`;
  }

  toString(): string {
    return `AbhaClient(${this.baseUrl})`;
  }
}

/**
 * Creates a client of the service.
 *
 * @throws TypeError for a missing API key or a base URL that is not https (loopback excepted)
 * @example
 * const client = createClient({ baseUrl: 'https://abha.example.org', apiKey: process.env.ABHA_LINK_API_KEY! })
 * await client.linkCareContexts(request)
 */
export function createClient(options: ClientOptions): AbhaClient {
  return new AbhaClient(options);
}
