/**
 * The local mock of the ABHA identity and care-context linking service: all
 * 12 endpoints of the spec on node:http, for development and tests without
 * the real service. Requests are checked with the same schemas the client
 * uses; answers use the spec's envelopes. Everything is synthetic.
 *
 * How the mock answers (the spec shows no status codes, so these are ours):
 * - schema violations: 400 with `success: false` and a message naming the
 *   field (`status: false` on the token endpoint);
 * - a wrong API key, a missing, malformed, expired or revoked bearer token: 401;
 * - business failures (wrong or expired OTP, unknown txnId, invalid session
 *   token, a link request already linked with `linkRepeats: 'already-linked'`):
 *   200 with `success: false`, the spec's only documented failure signal;
 * - unknown paths 404, other methods 405, a Content-Type other than
 *   application/json 415, non-JSON bodies 400, bodies over the limit 413 (and
 *   the connection closed), all with the envelope.
 *
 * Every answer carries every field the spec documents for it (§2, §4): a
 * value the mock does not have (a seed account without an address) is `""`.
 *
 * Against slow or hostile clients: headers must arrive within 10 s and the
 * whole request within 30 s (408 and the connection closed), bodies are cut
 * off at the limit, at most 100 fault rules, and events name the endpoint id,
 * never the raw path.
 */
import { randomInt, randomUUID, createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { linkRequestKey } from '../client/key.js';
import type { Issue } from '../errors.js';
import type { SchemaName } from '../generated/manifest.js';
import type * as T from '../generated/types.js';
import { ENDPOINTS } from '../spec/definition.js';
import { validate } from '../validation/validate.js';
import { maskAbhaNumber, maskName, syntheticAccounts, type MockAccount, type MockSeed } from './accounts.js';
import { FaultController, checkFaultRule, type Fault } from './faults.js';
import { MockJwt, type MockClaims } from './jwt.js';
import { buildOpenApiDocument } from './openapi.js';

/**
 * Options of {@link startMockServer}. All optional.
 *
 * @example
 * await startMockServer({ port: 0, apiKey: 'test-key', otp: '123456', onEvent: (e) => e.type === 'otp' && otps.push(e.otp) })
 */
export interface MockServerOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  readonly port?: number;
  /** Loopback host to listen on (default 127.0.0.1). Other hosts are refused: the mock has no security. */
  readonly host?: '127.0.0.1' | '::1' | 'localhost';
  /** The API key the token endpoint accepts (default: a random development key, see `server.apiKey`). */
  readonly apiKey?: string;
  /** The OTP of every flow (6 digits); default: a random OTP per request, reported through `onEvent`. */
  readonly otp?: string;
  /** Accounts to serve instead of the synthetic ones (see parseSeed). */
  readonly seed?: MockSeed;
  /** Lifetime of bearer tokens in seconds (default 1200). */
  readonly tokenTtlSeconds?: number;
  /** Lifetime of an OTP in seconds (default 600). */
  readonly otpTtlSeconds?: number;
  /** The clock in ms since the epoch (default Date.now); tests move it to expire OTPs and tokens. */
  readonly now?: () => number;
  /** Receives what the mock does: one event per request, and the OTPs it sends. The mock itself never logs. */
  readonly onEvent?: (event: MockEvent) => void;
  /** Largest request body in bytes (default 5 MB). */
  readonly maxBodyBytes?: number;
  /** How many link-request bodies are kept for inspection (default 1000, the most recent). */
  readonly keepBodies?: number;
  /**
   * How a link request with the same ABHA address, hipId, visitId and
   * referenceNumbers as one already linked is answered: `link-again`
   * (default: linked and counted again, as by a service without duplicate
   * detection) or `already-linked` (`200 {success:false, message, data:{code:
   * "ALREADY_LINKED", careContexts:[{referenceNumber, status:"ALREADY_LINKED"}]}}`,
   * not linked again), to rehearse resending requests whose outcome was unknown.
   */
  readonly linkRepeats?: 'link-again' | 'already-linked';
  /** Time a client has to send the request headers, in ms (default 10000); then 408 and the connection is closed. */
  readonly headersTimeoutMs?: number;
  /** Time a client has to send the whole request, in ms (default 30000, at least `headersTimeoutMs`); then 408 and the connection is closed. */
  readonly requestTimeoutMs?: number;
}

/** What the mock reports. Request events hold no body, header, token or path. */
export type MockEvent =
  | {
      readonly type: 'request';
      readonly method: string;
      /**
       * The endpoint id of the spec definition (`token`, `link-carecontext`, ...),
       * `openapi`, `mock-control` (`/__mock/...`) or `unknown`: never the raw
       * path, which may carry anything.
       */
      readonly endpoint: string;
      /** The HTTP status sent, or `dropped` / `hung` for faults without an answer. */
      readonly status: number | 'dropped' | 'hung';
      readonly ms: number;
      readonly fault?: Fault['type'];
      /** The client's request id, when it sent an `x-request-id` header. */
      readonly requestId?: string;
    }
  /** An OTP "sent" to the account's mobile: the mock reports it so a developer can type it. */
  | { readonly type: 'otp'; readonly txnId: string; readonly otp: string; readonly mobileLast4: string };

/** A link request the mock received and processed. */
export interface LinkRecord {
  readonly key: string;
  readonly body: T.LinkCareContextRequest;
  readonly receivedAt: number;
}

/** Counts of what the mock saw. */
export interface MockStats {
  /** Requests per endpoint id (all of them, faults included). */
  readonly requests: Readonly<Record<string, number>>;
  /** Bearer tokens issued. */
  readonly tokensIssued: number;
  /** Link requests received with a valid body (including those a fault dropped or hung). */
  readonly linkReceived: number;
  /** Link requests processed (recorded as linked). */
  readonly linked: number;
  /** Link requests answered "already linked" (with `linkRepeats: 'already-linked'`). */
  readonly alreadyLinked: number;
}

/** A running mock. Close it when done. */
export interface MockServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  /** The API key the token endpoint accepts. */
  readonly apiKey: string;
  /** Fault injection rules. */
  readonly faults: FaultController;
  /** Makes every bearer token issued so far invalid (the next request with one gets 401). */
  expireTokens(): void;
  /** Counts. */
  stats(): MockStats;
  /** How often a link request with this key was received (authenticated, valid body) and processed. */
  linkCount(key: string): { received: number; linked: number };
  /** Counts of every key seen (authenticated requests with a valid body only). */
  linkCounts(): ReadonlyMap<string, { received: number; linked: number }>;
  /** The most recent link requests processed (see `keepBodies`). */
  linkRequests(): readonly LinkRecord[];
  /** Stops listening and closes every connection, hung ones included. */
  close(): Promise<void>;
}

interface Txn {
  readonly mobile: string;
  readonly accounts: readonly MockAccount[];
  selected: number | undefined;
  otp: string | undefined;
  otpExpiresAt: number;
  readonly createdAt: number;
}

type Reply = { status: number; body: unknown; headers?: Record<string, string> };

const SESSION_TTL: Readonly<Record<string, number>> = {
  // Spec §2: 1800 for enrolment and ABHA-address login, 300 for mobile login. The others are not stated; 1800.
  'verify-otp': 1800,
  'mobile-login-verify-otp': 300,
  'aadhar-number-login-verify-otp': 1800,
  'abha-address-login-verify-otp': 1800,
  'enroll-verify-otp': 1800,
};
const REFRESH_TTL = 1296000;
const MAX_TXNS = 10_000;

const ENDPOINT_BY_PATH = new Map(ENDPOINTS.map((e) => [e.path, e]));

function sha(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

function firstIssues(issues: readonly Issue[]): string {
  const first = issues[0];
  if (first === undefined) return 'the request body does not match the spec';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `${first.path || '/'}: ${first.message}${more}`;
}

/** A documented field the account has no value for: the mock answers `""` rather than leave the field out. */
const text = (v: string | undefined): string => v ?? '';

const fullName = (a: MockAccount): string => [a.firstName, a.middleName, a.lastName].filter((x) => x !== undefined && x !== '').join(' ');

function accountSummary(a: MockAccount): T.AccountSummary {
  return {
    ABHANumber: a.ABHANumber,
    preferredAbhaAddress: a.abhaAddress,
    name: fullName(a),
    gender: a.gender,
    dob: a.dob,
    status: a.status,
    profilePhoto: '',
    kycVerified: a.kycVerified,
    mobileVerified: true,
  };
}

/**
 * Starts the mock service on a loopback port.
 *
 * @throws TypeError for options out of range; the listen error when the port is taken
 * @example
 * const mock = await startMockServer({ port: 0, apiKey: 'dev-key' })
 * const client = createClient({ baseUrl: mock.url, apiKey: mock.apiKey })
 * await client.linkCareContexts(request)
 * mock.stats().linked //=> 1
 * await mock.close()
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const host = options.host ?? '127.0.0.1';
  if (!['127.0.0.1', '::1', 'localhost'].includes(host)) throw new TypeError('the mock listens on loopback only (127.0.0.1, ::1, localhost)');
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError('port must be a whole number from 0 to 65535');
  if (options.otp !== undefined && !/^[0-9]{6}$/.test(options.otp)) throw new TypeError('otp must be exactly 6 digits');
  const apiKey = options.apiKey ?? `dev-${randomUUID()}`;
  if (apiKey === '') throw new TypeError('apiKey must not be empty');
  if (options.seed !== undefined && new Set(options.seed.accounts.map((a) => a.ABHANumber)).size !== options.seed.accounts.length) {
    throw new TypeError('seed: two accounts have the same ABHA number (parseSeed reports which)');
  }
  const apiKeyHash = sha(apiKey);
  const now = options.now ?? Date.now;
  const tokenTtl = options.tokenTtlSeconds ?? 1200;
  const otpTtlMs = (options.otpTtlSeconds ?? 600) * 1000;
  const maxBody = options.maxBodyBytes ?? 5 * 1024 * 1024;
  const keepBodies = options.keepBodies ?? 1000;
  const linkRepeats = options.linkRepeats ?? 'link-again';
  if (linkRepeats !== 'link-again' && linkRepeats !== 'already-linked') throw new TypeError('linkRepeats must be link-again or already-linked');
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = options.requestTimeoutMs ?? Math.max(30_000, headersTimeout);
  if (!Number.isInteger(headersTimeout) || headersTimeout < 1) throw new TypeError('headersTimeoutMs must be a whole number of milliseconds >= 1');
  if (!Number.isInteger(requestTimeout) || requestTimeout < headersTimeout) throw new TypeError('requestTimeoutMs must be a whole number of milliseconds >= headersTimeoutMs');
  const emit = options.onEvent ?? ((): void => undefined);
  const jwt = new MockJwt();
  const faults = new FaultController();
  const requests: Record<string, number> = {};
  const counts = new Map<string, { received: number; linked: number }>();
  const bodies: LinkRecord[] = [];
  const txns = new Map<string, Txn>();
  const seeded = options.seed === undefined ? undefined : groupByMobile(options.seed.accounts);
  let tokensIssued = 0;
  let linkReceived = 0;
  let linked = 0;
  let alreadyLinked = 0;
  let generation = 0;
  const sockets = new Set<Socket>();
  let openapi: string | undefined;

  const seconds = (): number => Math.floor(now() / 1000);
  const accountsOf = (mobile: string): readonly MockAccount[] => (seeded === undefined ? syntheticAccounts(mobile) : (seeded.get(mobile) ?? []));

  const fail = (status: number, message: string, data: unknown = null): Reply => ({ status, body: { success: false, message, data } });
  const ok = (message: string, data: unknown): Reply => ({ status: 200, body: { success: true, message, data } });

  const newTxn = (mobile: string, accounts: readonly MockAccount[]): string => {
    const id = randomUUID();
    if (txns.size >= MAX_TXNS) {
      const oldest = txns.keys().next();
      if (oldest.done !== true) txns.delete(oldest.value);
    }
    txns.set(id, { mobile, accounts, selected: undefined, otp: undefined, otpExpiresAt: 0, createdAt: now() });
    return id;
  };

  // Each session token has its own id (jti), and the account is looked up by it: two people
  // never share a session, whatever their accounts have in common. The oldest sessions are
  // forgotten past MAX_TXNS.
  const sessionAccounts = new Map<string, MockAccount>();
  const sessionToken = (account: MockAccount, ttl: number): string => {
    const jti = randomUUID();
    sessionAccounts.set(jti, account);
    if (sessionAccounts.size > MAX_TXNS) {
      const oldest = sessionAccounts.keys().next();
      if (oldest.done !== true) sessionAccounts.delete(oldest.value);
    }
    return jwt.sign({ typ: 'session', iat: seconds(), exp: seconds() + ttl, jti, sub: account.ABHANumber });
  };

  const bearerCheck = (req: IncomingMessage): string | undefined => {
    const h = req.headers.authorization;
    if (h === undefined) return 'the Authorization header is missing: send Authorization: Bearer <token> from /api/m1/abha/token';
    const m = /^Bearer ([^\s]+)$/.exec(h);
    if (m === null || m[1] === undefined) return 'the Authorization header must be "Bearer <token>"';
    const v = jwt.verify(m[1]);
    if (!v.ok) return v.why === 'signature' ? 'the bearer token was not issued by this service' : 'the bearer token is malformed';
    if (v.claims.typ !== 'bearer') return 'this is not a bearer token (a session token goes in the body field token)';
    if (v.claims.exp <= seconds()) return 'the bearer token has expired; get a new one from /api/m1/abha/token';
    if ((v.claims.gen ?? -1) < generation) return 'the bearer token has expired; get a new one from /api/m1/abha/token';
    return undefined;
  };

  /** The verified OTP step shared by 4.4 to 4.9. */
  const checkOtp = (txnId: string, otp: string, mobile: string | undefined): { txn: Txn } | { reply: Reply } => {
    const txn = txns.get(txnId);
    if (txn === undefined) return { reply: fail(200, 'txnId is unknown or has expired; start again with a search') };
    if (txn.otp === undefined) return { reply: fail(200, 'no OTP is pending for this txnId (it was already used, or never requested); request one with /api/m1/abha/search/request/otp') };
    if (mobile !== undefined && mobile !== txn.mobile) return { reply: fail(200, 'mobile does not match the transaction') };
    if (now() > txn.otpExpiresAt) {
      txn.otp = undefined;
      return { reply: fail(200, 'otp has expired; request a new one') };
    }
    const given = sha(otp);
    if (!timingSafeEqual(given, sha(txn.otp))) return { reply: fail(200, 'otp is incorrect') };
    txn.otp = undefined;
    return { txn };
  };

  const selectedAccount = (txn: Txn): MockAccount | undefined => txn.accounts[txn.selected ?? 0];

  const sessionAccount = (token: string): MockAccount | undefined => {
    const v = jwt.verify(token);
    if (!v.ok || v.claims.typ !== 'session' || v.claims.exp <= seconds()) return undefined;
    return sessionAccounts.get(v.claims.jti);
  };

  const handlers: Record<string, (body: never) => Reply> = {
    'search-abha': (b: T.SearchAbhaRequest) => {
      const accounts = accountsOf(b.mobile);
      if (accounts.length === 0) return fail(200, 'no ABHA account is linked to this mobile number');
      const txnId = newTxn(b.mobile, accounts);
      const item: T.SearchResultItem = {
        txnId,
        ABHA: accounts.map((a, index) => ({
          index,
          ABHANumber: maskAbhaNumber(a.ABHANumber),
          name: maskName([a.firstName, a.lastName].filter((x) => x !== '').join(' ')),
          gender: a.gender,
          kycVerified: String(a.kycVerified),
          authMethods: ['MOBILE_OTP'],
        })),
      };
      return ok(`${accounts.length} account${accounts.length === 1 ? '' : 's'} found`, [item]);
    },
    'request-otp': (b: T.RequestOtpRequest) => {
      const txn = txns.get(b.txnId);
      if (txn === undefined) return fail(200, 'txnId is unknown or has expired; start again with a search');
      const index = /^\d{1,3}$/.test(b.loginId) ? Number(b.loginId) : NaN;
      if (!(index >= 0 && index < txn.accounts.length)) return fail(200, `loginId must be the index of an account of the search (0 to ${txn.accounts.length - 1})`);
      txn.selected = index;
      txn.otp = options.otp ?? String(randomInt(0, 1_000_000)).padStart(6, '0');
      txn.otpExpiresAt = now() + otpTtlMs;
      emit({ type: 'otp', txnId: b.txnId, otp: txn.otp, mobileLast4: txn.mobile.slice(-4) });
      const data: T.RequestOtpResponseData = { txnId: b.txnId, message: `OTP sent to the mobile number ending in ${txn.mobile.slice(-4)}` };
      return ok('OTP sent', data);
    },
    'verify-otp': (b: T.VerifyOtpRequest) => {
      const r = checkOtp(b.txnId, b.otp, undefined);
      if ('reply' in r) return r.reply;
      const account = selectedAccount(r.txn);
      if (account === undefined) return fail(200, 'the transaction has no account');
      const data: T.VerifyOtpResponseData = {
        txnId: b.txnId,
        authResult: 'success',
        token: sessionToken(account, SESSION_TTL['verify-otp'] ?? 1800),
        expiresIn: SESSION_TTL['verify-otp'] ?? 1800,
        refreshToken: jwt.sign({ typ: 'session', iat: seconds(), exp: seconds() + REFRESH_TTL, jti: randomUUID() }),
        refreshExpiresIn: REFRESH_TTL,
        accounts: r.txn.accounts.map(accountSummary),
      };
      return ok('OTP verified', data);
    },
    'mobile-login-verify-otp': (b: T.MobileLoginVerifyOtpRequest) => {
      const r = checkOtp(b.txnId, b.otp, undefined);
      if ('reply' in r) return r.reply;
      const account = selectedAccount(r.txn);
      if (account === undefined) return fail(200, 'the transaction has no account');
      const ttl = SESSION_TTL['mobile-login-verify-otp'] ?? 300;
      const data: T.MobileLoginVerifyOtpResponseData = { txnId: b.txnId, authResult: 'success', token: sessionToken(account, ttl), expiresIn: ttl, accounts: r.txn.accounts.map(accountSummary) };
      return ok('OTP verified', data);
    },
    'mobile-login-abha-number-verify-otp': (b: T.MobileLoginAbhaNumberVerifyOtpRequest) => {
      const r = checkOtp(b.txnId, b.otp, undefined);
      if ('reply' in r) return r.reply;
      const data: T.MobileLoginAbhaNumberVerifyOtpResponseData = { txnId: b.txnId, authResult: 'success', accounts: r.txn.accounts.map(accountSummary) };
      return ok('OTP verified', data);
    },
    'aadhar-number-login-verify-otp': (b: T.AadharNumberLoginVerifyOtpRequest) => {
      const r = checkOtp(b.txnId, b.otpValue, b.mobile);
      if ('reply' in r) return r.reply;
      const account = selectedAccount(r.txn);
      if (account === undefined) return fail(200, 'the transaction has no account');
      const ttl = SESSION_TTL['aadhar-number-login-verify-otp'] ?? 1800;
      const data: T.AadharNumberLoginVerifyOtpResponseData = {
        txnId: b.txnId,
        authResult: 'success',
        token: sessionToken(account, ttl),
        expiresIn: ttl,
        refreshToken: jwt.sign({ typ: 'session', iat: seconds(), exp: seconds() + REFRESH_TTL, jti: randomUUID() }),
        refreshExpiresIn: REFRESH_TTL,
        accounts: r.txn.accounts.map(accountSummary),
      };
      return ok('OTP verified', data);
    },
    'abha-address-login-verify-otp': (b: T.AbhaAddressLoginVerifyOtpRequest) => {
      const r = checkOtp(b.txnId, b.otpValue, b.mobile);
      if ('reply' in r) return r.reply;
      const account = selectedAccount(r.txn);
      if (account === undefined) return fail(200, 'the transaction has no account');
      const ttl = SESSION_TTL['abha-address-login-verify-otp'] ?? 1800;
      const age = Math.max(0, new Date(now()).getUTCFullYear() - Number(account.dob.slice(0, 4)));
      const data: T.AbhaAddressLoginVerifyOtpResponseData = {
        txnId: b.txnId,
        message: 'login successful',
        authResult: 'success',
        users: r.txn.accounts.map((a) => ({
          abhaAddress: a.abhaAddress,
          fullName: fullName(a),
          abhaNumber: a.ABHANumber,
          status: a.status,
          kycStatus: a.kycVerified ? 'VERIFIED' : 'PENDING',
          age: a === account ? age : Math.max(0, new Date(now()).getUTCFullYear() - Number(a.dob.slice(0, 4))),
        })),
        tokens: { token: sessionToken(account, ttl), expiresIn: ttl, refreshToken: jwt.sign({ typ: 'session', iat: seconds(), exp: seconds() + REFRESH_TTL, jti: randomUUID() }), refreshExpiresIn: REFRESH_TTL },
      };
      return ok('OTP verified', data);
    },
    'enroll-verify-otp': (b: T.EnrollVerifyOtpRequest) => {
      const r = checkOtp(b.txnId, b.otpValue, b.mobile);
      if ('reply' in r) return r.reply;
      const a = selectedAccount(r.txn);
      if (a === undefined) return fail(200, 'the transaction has no account');
      const ttl = SESSION_TTL['enroll-verify-otp'] ?? 1800;
      const data: T.EnrollVerifyOtpResponseData = {
        txnId: b.txnId,
        tokens: { token: sessionToken(a, ttl), expiresIn: ttl, refreshToken: jwt.sign({ typ: 'session', iat: seconds(), exp: seconds() + REFRESH_TTL, jti: randomUUID() }), refreshExpiresIn: REFRESH_TTL },
        ABHAProfile: {
          ABHANumber: a.ABHANumber,
          preferredAddress: a.abhaAddress,
          firstName: a.firstName,
          middleName: text(a.middleName),
          lastName: a.lastName,
          dob: a.dob,
          gender: a.gender,
          photo: '',
          mobile: a.mobile,
          email: text(a.email),
          address: text(a.address),
          districtCode: text(a.districtCode),
          stateCode: text(a.stateCode),
          pinCode: text(a.pinCode),
          stateName: text(a.stateName),
          districtName: text(a.districtName),
          abhaType: 'STANDARD',
          abhaStatus: a.status,
          phrAddress: [a.abhaAddress],
        },
        isNew: false,
      };
      return ok('enrolment verified', data);
    },
    'fetch-abha-address-profile': (b: T.FetchAbhaAddressProfileRequest) => {
      const a = sessionAccount(b.token);
      if (a === undefined) return fail(200, 'token is not a valid session token, or it has expired; verify an OTP again');
      const data: T.AbhaAddressProfile = {
        abhaAddress: a.abhaAddress,
        fullName: fullName(a),
        profilePhoto: '',
        firstName: a.firstName,
        lastName: a.lastName,
        dateOfBirth: a.dob,
        gender: a.gender,
        mobile: a.mobile,
        abhaNumber: a.ABHANumber,
        address: text(a.address),
        stateName: text(a.stateName),
        districtName: text(a.districtName),
        pinCode: text(a.pinCode),
        status: a.status,
        kycStatus: a.kycVerified ? 'VERIFIED' : 'PENDING',
        authMethods: ['MOBILE_OTP'],
      };
      return ok('profile fetched', data);
    },
    'get-profile': (b: T.GetProfileRequest) => {
      const a = sessionAccount(b.token);
      if (a === undefined) return fail(200, 'token is not a valid session token, or it has expired; verify an OTP again');
      const data: T.AccountProfile = {
        ABHANumber: a.ABHANumber,
        preferredAbhaAddress: a.abhaAddress,
        mobile: a.mobile,
        firstName: a.firstName,
        lastName: a.lastName,
        gender: a.gender,
        status: a.status,
        stateCode: text(a.stateCode),
        districtCode: text(a.districtCode),
        pincode: text(a.pinCode),
        address: text(a.address),
        verificationStatus: a.kycVerified ? 'VERIFIED' : 'PENDING',
        kycVerified: a.kycVerified,
        authMethods: ['MOBILE_OTP'],
      };
      return ok('profile fetched', data);
    },
    'link-carecontext': (b: T.LinkCareContextRequest) => {
      const key = linkRequestKey(b);
      const c = counts.get(key) ?? { received: 0, linked: 0 };
      const n = b.careContexts.length;
      const plural = n === 1 ? '' : 's';
      if (linkRepeats === 'already-linked' && c.linked > 0) {
        alreadyLinked++;
        return {
          status: 200,
          body: {
            success: false,
            message: `${n} care context${plural} already linked: the same ABHA address, hipId, visitId and referenceNumbers were linked before`,
            data: { code: 'ALREADY_LINKED', careContexts: b.careContexts.map((cc) => ({ referenceNumber: cc.referenceNumber, status: 'ALREADY_LINKED' })) },
          },
        };
      }
      c.linked++;
      counts.set(key, c);
      linked++;
      if (keepBodies > 0) {
        bodies.push({ key, body: b, receivedAt: now() });
        if (bodies.length > keepBodies) bodies.splice(0, bodies.length - keepBodies);
      }
      const data = { careContexts: b.careContexts.map((cc) => ({ referenceNumber: cc.referenceNumber, status: 'LINKED' })) };
      return ok(`${n} care context${plural} linked`, data);
    },
  };

  const tokenHandler = (b: T.TokenRequest): Reply => {
    const given = sha(b.apiKey);
    if (!timingSafeEqual(given, apiKeyHash)) return { status: 401, body: { status: false, message: 'invalid API key', data: null } };
    tokensIssued++;
    const iat = seconds();
    const claims: MockClaims = { typ: 'bearer', iat, exp: iat + tokenTtl, jti: randomUUID(), gen: generation };
    return { status: 200, body: { status: true, message: 'token generated', data: jwt.sign(claims) } };
  };

  const send = (res: ServerResponse, reply: Reply): void => {
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    res.writeHead(reply.status, { 'content-type': typeof reply.body === 'string' ? 'text/html' : 'application/json', 'content-length': Buffer.byteLength(text), ...reply.headers });
    res.end(text);
  };

  /**
   * The body, or `too-large` as soon as it is declared or found larger than
   * the limit: the rest is not read (the answer closes the connection).
   */
  const readBody = (req: IncomingMessage): Promise<Buffer | 'too-large'> =>
    new Promise((resolve, reject) => {
      const declared = Number(req.headers['content-length']);
      if (declared > maxBody) {
        resolve('too-large');
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const onData = (c: Buffer): void => {
        size += c.length;
        if (size <= maxBody) {
          chunks.push(c);
          return;
        }
        req.off('data', onData);
        req.off('end', onEnd);
        req.pause();
        chunks.length = 0;
        resolve('too-large');
      };
      const onEnd = (): void => resolve(Buffer.concat(chunks));
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', reject);
    });

  /**
   * Answers 413 and closes the connection once the answer is out: node
   * discards what the client still sends, for at most two seconds.
   */
  const tooLarge = (req: IncomingMessage, res: ServerResponse, reply: Reply): Reply => {
    res.on('finish', () => {
      setTimeout(() => req.socket.destroy(), 2000).unref();
    });
    return { ...reply, headers: { ...reply.headers, connection: 'close' } };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    const rid = req.headers['x-request-id'];
    const requestId = typeof rid === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(rid) ? rid : undefined;
    const ep = ENDPOINT_BY_PATH.get(path);
    // Events name the endpoint, never the path: a path is whatever the client sent.
    const endpoint = ep?.id ?? (path === '/openapi.json' ? 'openapi' : path.startsWith('/__mock/') ? 'mock-control' : 'unknown');
    let faultType: Fault['type'] | undefined;
    const report = (status: number | 'dropped' | 'hung'): void => {
      emit({
        type: 'request',
        method,
        endpoint,
        status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        ...(faultType === undefined ? {} : { fault: faultType }),
        ...(requestId === undefined ? {} : { requestId }),
      });
    };
    const answer = (reply: Reply): void => {
      send(res, reply);
      report(reply.status);
    };

    if (method === 'GET' && path === '/openapi.json') {
      openapi ??= JSON.stringify(buildOpenApiDocument({ serverUrl: server.url }), null, 2);
      answer({ status: 200, body: JSON.parse(openapi) as unknown });
      return;
    }
    if (endpoint === 'mock-control') {
      await control(req, res, method, path, answer);
      return;
    }
    const tokenEnvelope = ep?.response.envelope === 'token';
    const failEnv = (status: number, message: string, data: unknown = null): Reply =>
      tokenEnvelope ? { status, body: { status: false, message, data } } : fail(status, message, data);
    if (ep === undefined) {
      answer(fail(404, 'no such endpoint; GET /openapi.json lists the 12 endpoints of the service'));
      return;
    }
    if (method !== 'POST') {
      answer({ ...failEnv(405, `${ep.path} accepts POST only`), headers: { allow: 'POST' } });
      return;
    }
    requests[ep.id] = (requests[ep.id] ?? 0) + 1;
    const raw = await readBody(req).catch(() => undefined);
    if (raw === undefined) return;
    if (raw === 'too-large') {
      answer(tooLarge(req, res, failEnv(413, `the request body is larger than ${maxBody} bytes`)));
      return;
    }
    // Authentication first: nothing an unauthenticated client sends is counted or processed.
    if (ep.auth === 'bearer') {
      const authProblem = bearerCheck(req);
      if (authProblem !== undefined) {
        answer(fail(401, authProblem));
        return;
      }
    }
    const media = jsonMediaType(req.headers['content-type']);
    if (media !== 'ok') {
      answer(failEnv(415, media === 'charset' ? 'Content-Type must be application/json with charset utf-8 (or no charset)' : 'Content-Type must be application/json (parameters allowed)'));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      answer(failEnv(400, 'the request body is not valid JSON'));
      return;
    }
    // Validated once; the result serves the counts below and the handler.
    const checked = validate(`${ep.id}-request` as SchemaName, body);
    // A link request is "received" once it is authenticated and its body valid; faults below may keep it from being processed.
    if (ep.id === 'link-carecontext' && checked.success) {
      const linkKey = linkRequestKey(checked.value as T.LinkCareContextRequest);
      linkReceived++;
      const c = counts.get(linkKey) ?? { received: 0, linked: 0 };
      c.received++;
      counts.set(linkKey, c);
    }

    const fault = faults.take(ep.id);
    faultType = fault?.type;
    if (fault !== undefined) {
      switch (fault.type) {
        case 'latency':
          await new Promise((r) => setTimeout(r, fault.ms));
          if (res.destroyed) return;
          break;
        case 'status': {
          const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) };
          answer({ ...failEnv(fault.status, fault.message ?? `injected HTTP ${fault.status}`), headers });
          return;
        }
        case 'envelope-failure':
          answer(failEnv(200, fault.message ?? 'injected failure'));
          return;
        case 'drop':
          if (fault.when !== 'after') {
            req.socket.destroy();
            report('dropped');
            return;
          }
          break;
        case 'hang':
          report('hung');
          return;
        case 'expire-token':
          if (ep.auth === 'bearer') {
            answer(fail(401, 'the bearer token has expired; get a new one from /api/m1/abha/token'));
            return;
          }
          break;
        case 'garbage':
          break;
      }
    }

    let reply: Reply;
    if (!checked.success) {
      const errors = checked.issues.slice(0, 20).map((i) => ({ path: i.path, code: i.code, message: i.message }));
      reply = failEnv(400, firstIssues(checked.issues), { errors });
    } else if (ep.id === 'token') {
      reply = tokenHandler(checked.value as T.TokenRequest);
    } else {
      const h = handlers[ep.id];
      reply = h === undefined ? failEnv(501, 'not implemented') : h(checked.value as never);
    }
    if (fault?.type === 'drop') {
      req.socket.destroy();
      report('dropped');
      return;
    }
    if (fault?.type === 'garbage' && reply.status === 200) {
      answer({ status: 200, body: '<html><body>Gateway says hello</body></html>' });
      return;
    }
    answer(reply);
  };

  const control = async (req: IncomingMessage, res: ServerResponse, method: string, path: string, answer: (r: Reply) => void): Promise<void> => {
    const raw = await readBody(req).catch(() => undefined);
    if (raw === 'too-large') {
      answer(tooLarge(req, res, fail(413, `the request body is larger than ${maxBody} bytes`)));
      return;
    }
    if (path === '/__mock/stats' && method === 'GET') {
      answer(ok('stats', stats()));
      return;
    }
    if (path === '/__mock/faults' && method === 'DELETE') {
      faults.clear();
      answer(ok('faults cleared', null));
      return;
    }
    if (path === '/__mock/faults' && method === 'POST') {
      let value: unknown;
      try {
        value = JSON.parse(raw === undefined ? '' : raw.toString('utf8'));
      } catch {
        answer(fail(400, 'the body must be a JSON fault rule or an array of rules'));
        return;
      }
      const rules = Array.isArray(value) ? value : [value];
      const full = faults.roomFor(rules.length);
      if (full !== undefined) {
        answer(fail(400, `${full}; DELETE /__mock/faults removes them`));
        return;
      }
      const checkedRules = rules.map(checkFaultRule);
      const bad = checkedRules.findIndex((c) => !c.ok);
      const problem = checkedRules[bad];
      if (problem !== undefined && !problem.ok) {
        answer(fail(400, Array.isArray(value) ? `/${bad}${problem.message}` : problem.message));
        return;
      }
      for (const c of checkedRules) if (c.ok) faults.add(c.rule);
      answer(ok(`${rules.length} fault rule${rules.length === 1 ? '' : 's'} added`, { active: faults.size }));
      return;
    }
    if (path === '/__mock/expire-tokens' && method === 'POST') {
      generation++;
      answer(ok('every bearer token issued so far is now expired', null));
      return;
    }
    answer(fail(404, 'mock control endpoints: GET /__mock/stats, POST|DELETE /__mock/faults, POST /__mock/expire-tokens'));
  };

  const stats = (): MockStats => ({ requests: { ...requests }, tokensIssued, linkReceived, linked, alreadyLinked });

  const httpServer = createServer(
    {
      // Shorter than the header time-out, so that an idle kept-alive connection closes quietly rather than with a 408.
      keepAliveTimeout: Math.min(5_000, headersTimeout),
      headersTimeout,
      requestTimeout,
      // How often node looks for connections past those time-outs (its default, 30 s, would let them run on).
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    (req, res) => {
      handle(req, res).catch(() => {
        if (!res.headersSent) send(res, fail(500, 'internal error of the mock'));
        else res.destroy();
      });
    },
  );
  httpServer.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const server: MockServer = {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    apiKey,
    faults,
    expireTokens() {
      generation++;
    },
    stats,
    linkCount: (key) => ({ ...(counts.get(key) ?? { received: 0, linked: 0 }) }),
    linkCounts: () => new Map([...counts].map(([k, v]) => [k, { ...v }])),
    linkRequests: () => [...bodies],
    close() {
      return new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        for (const s of sockets) s.destroy();
        httpServer.closeAllConnections();
      });
    },
  };
  return server;
}

const TOKEN_CHARS = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** One `; name=value` parameter of a media type (RFC 9110 §5.6.6); an empty one (`;`) is allowed. */
const MEDIA_PARAMETER = new RegExp(`^[ \\t]*;[ \\t]*(?:(${TOKEN_CHARS})=(${TOKEN_CHARS}|"(?:[^"\\\\]|\\\\.)*")[ \\t]*)?`);

/**
 * Whether a Content-Type is exactly `application/json` (any case), with
 * parameters or none; a charset other than utf-8 is `charset`. Anything else
 * (`application/jsonx`, `application/json-patch+json`, a list) is `not-json`.
 *
 * @example
 * jsonMediaType('application/json; charset=UTF-8') //=> 'ok'
 * jsonMediaType('application/json-patch+json') //=> 'not-json'
 */
function jsonMediaType(header: string | undefined): 'ok' | 'not-json' | 'charset' {
  if (header === undefined) return 'not-json';
  const semi = header.indexOf(';');
  if ((semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase() !== 'application/json') return 'not-json';
  let rest = semi === -1 ? '' : header.slice(semi);
  while (rest.trim() !== '') {
    const m = MEDIA_PARAMETER.exec(rest);
    if (m === null) return 'not-json';
    const [whole, name, quoted] = m;
    if (name !== undefined && quoted !== undefined && name.toLowerCase() === 'charset') {
      const value = quoted.startsWith('"') ? quoted.slice(1, -1).replace(/\\(.)/g, '$1') : quoted;
      if (value.toLowerCase() !== 'utf-8') return 'charset';
    }
    rest = rest.slice(whole.length);
  }
  return 'ok';
}

function groupByMobile(accounts: readonly MockAccount[]): Map<string, MockAccount[]> {
  const m = new Map<string, MockAccount[]>();
  for (const a of accounts) {
    const list = m.get(a.mobile) ?? [];
    list.push(a);
    m.set(a.mobile, list);
  }
  return m;
}
