/**
 * The mock's endpoint handlers: one per endpoint id of the spec definition
 * (a missing one fails the type check), each given a request body already
 * authenticated and validated against `<id>-request`. The OTP-verification
 * endpoints (definition: `mock.verifiesOtp`) share one verification step,
 * which also issues the session tokens their definition's `session` gives.
 *
 * Every answer carries every field the spec documents for it (§2, §4): a
 * value the mock does not have (a seed account without an address) is `""`.
 */
import type * as T from '../generated/types.js';
import type { Endpoint, EndpointId, EndpointRequest, OtpVerificationId } from '../spec/endpoints.js';
import { maskAbhaNumber, maskName, type MockAccount } from './accounts.js';
import { fail, ok, type Reply } from './reply.js';
import { sameSecret, type MockState, type Txn } from './state.js';

/** The session tokens the mock issues: a token and its lifetime always, the refresh token where the endpoint has one. */
type IssuedTokens = T.SessionTokens & { readonly token: string; readonly expiresIn: number };

/** What the verification step hands to the handler of an OTP-verification endpoint. */
export interface Verified {
  readonly txnId: string;
  readonly txn: Txn;
  /** The account chosen with request-otp. */
  readonly account: MockAccount;
  /** Every account of the transaction, summarised. */
  readonly accounts: T.AccountSummary[];
  /** The session tokens the endpoint returns (its definition's `session`); undefined when it returns none. */
  readonly tokens: IssuedTokens | undefined;
}

type Handler<I extends EndpointId> = I extends OtpVerificationId ? (body: EndpointRequest<I>, state: MockState, verified: Verified) => Reply : (body: EndpointRequest<I>, state: MockState) => Reply;

/** A handler for every endpoint id: an endpoint added to the definition without one fails the type check. */
export type HandlerTable = { readonly [I in EndpointId]: Handler<I> };

/** A documented field the account has no value for: the mock answers `""` rather than leave the field out. */
const text = (v: string | undefined): string => v ?? '';

const fullName = (a: MockAccount): string => [a.firstName, a.middleName, a.lastName].filter((x) => x !== undefined && x !== '').join(' ');

const kycStatus = (a: MockAccount): string => (a.kycVerified ? 'VERIFIED' : 'PENDING');

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

const NO_SESSION = 'token is not a valid session token, or it has expired; verify an OTP again';
const UNKNOWN_TXN = 'txnId is unknown or has expired; start again with a search';

/**
 * The verification step of the OTP endpoints (4.4 to 4.9): the transaction,
 * its pending OTP, the mobile (where the endpoint sends one), the OTP's
 * expiry and value; then the OTP is used up and the session tokens issued.
 * Failures are `200 success:false`, the spec's only documented failure signal.
 */
export function verifyOtpStep(ep: Endpoint, body: Readonly<Record<string, unknown>>, state: MockState): { verified: Verified } | { reply: Reply } {
  const hook = ep.mock?.verifiesOtp;
  if (hook === undefined) throw new TypeError(`${ep.id} verifies no OTP`);
  const txnId = String(body.txnId);
  const txn = state.txn(txnId);
  if (txn === undefined) return { reply: fail(200, UNKNOWN_TXN) };
  if (txn.otp === undefined) return { reply: fail(200, 'no OTP is pending for this txnId (it was already used, or never requested); request one with /api/m1/abha/search/request/otp') };
  if (hook.mobileField !== undefined && body[hook.mobileField] !== txn.mobile) return { reply: fail(200, 'mobile does not match the transaction') };
  if (state.config.now() > txn.otpExpiresAt) {
    txn.otp = undefined;
    return { reply: fail(200, 'otp has expired; request a new one') };
  }
  if (!sameSecret(String(body[hook.otpField]), txn.otp)) return { reply: fail(200, 'otp is incorrect') };
  txn.otp = undefined;
  const account = txn.accounts[txn.selected ?? 0];
  if (account === undefined) return { reply: fail(200, 'the transaction has no account') };
  const s = ep.session;
  const refresh = s?.refreshTtlSeconds;
  const tokens =
    s === undefined
      ? undefined
      : { token: state.sessionToken(account, s.ttlSeconds), expiresIn: s.ttlSeconds, ...(refresh === undefined ? {} : { refreshToken: state.refreshToken(refresh), refreshExpiresIn: refresh }) };
  return { verified: { txnId, txn, account, accounts: txn.accounts.map(accountSummary), tokens } };
}

const searchAbha = (b: T.SearchAbhaRequest, state: MockState): Reply => {
  const accounts = state.accountsOf(b.mobile);
  if (accounts.length === 0) return fail(200, 'no ABHA account is linked to this mobile number');
  const item: T.SearchResultItem = {
    txnId: state.newTxn(b.mobile, accounts),
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
};

const requestOtp = (b: T.RequestOtpRequest, state: MockState): Reply => {
  const txn = state.txn(b.txnId);
  if (txn === undefined) return fail(200, UNKNOWN_TXN);
  const index = /^\d{1,3}$/.test(b.loginId) ? Number(b.loginId) : NaN;
  if (!(index >= 0 && index < txn.accounts.length)) return fail(200, `loginId must be the index of an account of the search (0 to ${txn.accounts.length - 1})`);
  state.sendOtp(b.txnId, txn, index);
  const data: T.RequestOtpResponseData = { txnId: b.txnId, message: `OTP sent to the mobile number ending in ${txn.mobile.slice(-4)}` };
  return ok('OTP sent', data);
};

const abhaProfile = (a: MockAccount): T.AbhaProfile => ({
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
});

const abhaAddressProfile = (a: MockAccount): T.AbhaAddressProfile => ({
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
  kycStatus: kycStatus(a),
  authMethods: ['MOBILE_OTP'],
});

const accountProfile = (a: MockAccount): T.AccountProfile => ({
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
  verificationStatus: kycStatus(a),
  kycVerified: a.kycVerified,
  authMethods: ['MOBILE_OTP'],
});

const linkCareContext = (b: T.LinkCareContextRequest, state: MockState): Reply => {
  const n = b.careContexts.length;
  const plural = n === 1 ? '' : 's';
  if (state.link(b) === 'already-linked') {
    return fail(200, `${n} care context${plural} already linked: the same ABHA address, hipId, visitId and referenceNumbers were linked before`, {
      code: 'ALREADY_LINKED',
      careContexts: b.careContexts.map((cc) => ({ referenceNumber: cc.referenceNumber, status: 'ALREADY_LINKED' })),
    });
  }
  return ok(`${n} care context${plural} linked`, { careContexts: b.careContexts.map((cc) => ({ referenceNumber: cc.referenceNumber, status: 'LINKED' })) });
};

/** The session tokens of a verification whose definition gives a `session` (verify-otp's `token` is required). */
function issuedTokens(v: Verified): IssuedTokens {
  if (v.tokens === undefined) throw new TypeError('this endpoint issues no session tokens');
  return v.tokens;
}

/** The handler of each endpoint. */
export const HANDLERS = {
  token: (b, state) => {
    const token = state.issueBearer(b.apiKey);
    if (token === undefined) return { status: 401, body: { status: false, message: 'invalid API key', data: null } };
    return { status: 200, body: { status: true, message: 'token generated', data: token } };
  },
  'search-abha': searchAbha,
  'request-otp': requestOtp,
  'verify-otp': (b, _, v) => ok('OTP verified', { txnId: b.txnId, authResult: 'success', ...issuedTokens(v), accounts: v.accounts } satisfies T.VerifyOtpResponseData),
  'mobile-login-verify-otp': (b, _, v) => ok('OTP verified', { txnId: b.txnId, authResult: 'success', ...v.tokens, accounts: v.accounts } satisfies T.MobileLoginVerifyOtpResponseData),
  'mobile-login-abha-number-verify-otp': (b, _, v) => ok('OTP verified', { txnId: b.txnId, authResult: 'success', accounts: v.accounts } satisfies T.MobileLoginAbhaNumberVerifyOtpResponseData),
  'aadhar-number-login-verify-otp': (b, _, v) => ok('OTP verified', { txnId: b.txnId, authResult: 'success', ...v.tokens, accounts: v.accounts } satisfies T.AadharNumberLoginVerifyOtpResponseData),
  'abha-address-login-verify-otp': (b, state, v) => {
    const year = new Date(state.config.now()).getUTCFullYear();
    const users = v.txn.accounts.map((a) => ({
      abhaAddress: a.abhaAddress,
      fullName: fullName(a),
      abhaNumber: a.ABHANumber,
      status: a.status,
      kycStatus: kycStatus(a),
      age: Math.max(0, year - Number(a.dob.slice(0, 4))),
    }));
    return ok('OTP verified', {
      txnId: b.txnId,
      message: 'login successful',
      authResult: 'success',
      users,
      ...(v.tokens === undefined ? {} : { tokens: v.tokens }),
    } satisfies T.AbhaAddressLoginVerifyOtpResponseData);
  },
  'enroll-verify-otp': (b, _, v) =>
    ok('enrolment verified', { txnId: b.txnId, ...(v.tokens === undefined ? {} : { tokens: v.tokens }), ABHAProfile: abhaProfile(v.account), isNew: false } satisfies T.EnrollVerifyOtpResponseData),
  'fetch-abha-address-profile': (b, state) => {
    const a = state.sessionAccount(b.token);
    return a === undefined ? fail(200, NO_SESSION) : ok('profile fetched', abhaAddressProfile(a));
  },
  'get-profile': (b, state) => {
    const a = state.sessionAccount(b.token);
    return a === undefined ? fail(200, NO_SESSION) : ok('profile fetched', accountProfile(a));
  },
  'link-carecontext': linkCareContext,
} satisfies HandlerTable;

/**
 * The answer of an endpoint to a body validated against its request schema:
 * the verification step first where the definition asks for it, then the handler.
 */
export function answerEndpoint(ep: Endpoint, body: unknown, state: MockState): Reply {
  const handler = HANDLERS[ep.id] as (body: unknown, state: MockState, verified?: Verified) => Reply;
  if (ep.mock?.verifiesOtp === undefined) return handler(body, state);
  const step = verifyOtpStep(ep, body as Record<string, unknown>, state);
  return 'reply' in step ? step.reply : handler(body, state, step.verified);
}
