/**
 * Every shipped schema against documents written field by field from the
 * service spec (shared/spec/abha-linking-service.md), NOT generated from
 * src/spec/definition.ts: the point is to check the definition against the
 * spec. Section numbers in test names are spec sections.
 *
 * Bounds (maxLength / maxItems) and the "required" flags of §4.2, §4.7-4.10
 * and §4.12 are abha-link's own choices (the spec gives none); the tests that
 * rely on them say so. All people, numbers and ids are synthetic.
 */
import { describe, expect, it } from 'vitest';
import { SCHEMA_NAMES, assertValid, isValidationError, validate, type SchemaName } from '../src/index.js';

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

type Path = readonly (string | number)[];
type Pair = readonly [path: string, code: string];

/** Marks a field to delete in {@link edit}. */
const REMOVE: unique symbol = Symbol('remove');

/** JSON Pointer (RFC 6901) of a path. */
function ptr(path: Path): string {
  return path.map((t) => `/${String(t).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** A deep copy of `doc` with the value at `path` replaced (or removed with REMOVE). */
function edit(doc: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  // Through JSON, not structuredClone: fixtures share sub-objects, and
  // structuredClone would keep that sharing (an edit would land twice).
  const copy: unknown = JSON.parse(JSON.stringify(doc));
  let cur = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === REMOVE) delete cur[last];
  else cur[last] = value;
  return copy;
}

/**
 * The path of an unknown key as issues give it: its position among the keys
 * of its object (`/careContexts/0/#4`), not the key, which is the caller's data.
 */
function unknownKey(doc: unknown, at: Path, key: string): string {
  let cur = doc as Record<string | number, unknown>;
  for (const k of at) cur = cur[k] as Record<string | number, unknown>;
  const position = Object.keys(cur).indexOf(key);
  if (position < 0) throw new Error(`no key ${key} at ${ptr(at)}`);
  return `${ptr(at)}/#${position}`;
}

function sortPairs(pairs: readonly Pair[]): Pair[] {
  return [...pairs].sort((a, b) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`));
}

/** The issues of a validation as sorted [path, code] pairs; [] when valid. */
function issuesOf(schema: SchemaName, doc: unknown): Pair[] {
  const r = validate(schema, doc);
  return r.success ? [] : sortPairs(r.issues.map((i) => [i.path, i.code] as const));
}

function describeValue(v: unknown): string {
  if (typeof v === 'string') return v.length > 24 ? `a ${v.length}-character string` : `"${v}"`;
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

interface ValidCase {
  readonly title: string;
  readonly schema: SchemaName;
  readonly doc: unknown;
}
interface InvalidCase extends ValidCase {
  readonly issues: readonly Pair[];
}

// Records which schemas got valid and invalid cases, for the coverage check at the end.
const coveredValid = new Set<SchemaName>();
const coveredInvalid = new Set<SchemaName>();
function valid(cases: readonly ValidCase[]): readonly ValidCase[] {
  for (const c of cases) coveredValid.add(c.schema);
  return cases;
}
function invalid(cases: readonly InvalidCase[]): readonly InvalidCase[] {
  for (const c of cases) coveredInvalid.add(c.schema);
  return cases;
}

function runValid(cases: readonly ValidCase[]): void {
  it.each(cases)('$title', ({ schema, doc }) => {
    expect(issuesOf(schema, doc)).toEqual([]);
    expect(validate(schema, doc).success).toBe(true);
  });
}
function runInvalid(cases: readonly InvalidCase[]): void {
  it.each(cases)('$title', ({ schema, doc, issues }) => {
    const r = validate(schema, doc);
    expect(r.success).toBe(false);
    expect(issuesOf(schema, doc)).toEqual(sortPairs(issues));
  });
}

// ---------------------------------------------------------------------------
// Synthetic values
// ---------------------------------------------------------------------------

const MOBILE = '9000012345';
const OTP = '482913';
const TXN = '0f1e2d3c-4b5a-4000-8000-00000000a001';
const JWT_SESSION = 'eyJhbGciOiJSUzUxMiJ9.eyJzdWIiOiJzeW50aGV0aWMtc2Vzc2lvbiJ9.c2lnbmF0dXJlLXNlc3Npb24';
const JWT_REFRESH = 'eyJhbGciOiJSUzUxMiJ9.eyJzdWIiOiJzeW50aGV0aWMtcmVmcmVzaCJ9.c2lnbmF0dXJlLXJlZnJlc2g';
const JWT_BEARER = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzeW50aGV0aWMtY2xpZW50In0.c2lnbmF0dXJlLWJlYXJlcg';
const PHOTO = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

// ---------------------------------------------------------------------------
// §2 resources, field by field from the spec tables
// ---------------------------------------------------------------------------

/** §2 Session tokens object. */
const sessionTokens = { token: JWT_SESSION, expiresIn: 1800, refreshToken: JWT_REFRESH, refreshExpiresIn: 1296000 };

/** §2 Account summary. */
const accountSummary = {
  ABHANumber: '91-1000-2000-3001',
  preferredAbhaAddress: 'test.patient.one@sbx',
  name: 'Test Patient One',
  gender: 'M',
  dob: '1990-01-15',
  status: 'ACTIVE',
  profilePhoto: PHOTO,
  kycVerified: true,
  mobileVerified: true,
};

/** §2 ABHA profile: 18 strings and phrAddress, an array of strings. */
const abhaProfile = {
  ABHANumber: '91-1000-2000-3002',
  preferredAddress: 'test.patient.two@sbx',
  firstName: 'Test',
  middleName: 'Patient',
  lastName: 'Two',
  dob: '15-08-1985',
  gender: 'M',
  photo: PHOTO,
  mobile: MOBILE,
  email: 'test.patient.two@example.org',
  address: '1 Sample Street, Example Nagar',
  districtCode: '572',
  stateCode: '29',
  pinCode: '560001',
  stateName: 'SAMPLE STATE',
  districtName: 'Sample District',
  abhaType: 'STANDARD',
  abhaStatus: 'ACTIVE',
  phrAddress: ['test.patient.two@sbx', 'tp2@sbx'],
};

/** §2 ABHA address profile: 15 strings and authMethods, an array of strings. */
const abhaAddressProfile = {
  abhaAddress: 'test.patient.three@sbx',
  fullName: 'Test Patient Three',
  profilePhoto: PHOTO,
  firstName: 'Test',
  lastName: 'Three',
  dateOfBirth: '1978-3-14',
  gender: 'F',
  mobile: MOBILE,
  abhaNumber: '91-1000-2000-3003',
  address: '2 Sample Road, Example Town',
  stateName: 'SAMPLE STATE',
  districtName: 'Sample District',
  pinCode: '600001',
  status: 'ACTIVE',
  kycStatus: 'VERIFIED',
  authMethods: ['MOBILE_OTP', 'DEMOGRAPHICS'],
};

/** §2 Account profile: 12 strings, kycVerified boolean, authMethods array of strings. */
const accountProfile = {
  ABHANumber: '91-1000-2000-3004',
  preferredAbhaAddress: 'test.patient.four@sbx',
  mobile: MOBILE,
  firstName: 'Test',
  lastName: 'Four',
  gender: 'F',
  status: 'ACTIVE',
  stateCode: '27',
  districtCode: '519',
  pincode: '400001',
  address: '3 Sample Lane, Example City',
  verificationStatus: 'VERIFIED',
  kycVerified: false,
  authMethods: ['AADHAAR_OTP', 'MOBILE_OTP'],
};

/** §2 User: 5 strings and age, an integer. */
const user = {
  abhaAddress: 'test.patient.five@sbx',
  fullName: 'Test Patient Five',
  abhaNumber: '91-1000-2000-3005',
  status: 'ACTIVE',
  kycStatus: 'VERIFIED',
  age: 34,
};

/** §2 Search account entry: index integer, kycVerified a STRING here. */
const searchAccountEntry = {
  index: 1,
  ABHANumber: 'xx-xxxx-xxxx-3006',
  name: 'T*** P***** S**',
  gender: 'M',
  kycVerified: 'true',
  authMethods: ['AADHAAR_OTP', 'MOBILE_OTP'],
};

/** §2 Search result item. */
const searchResultItem = { txnId: TXN, ABHA: [searchAccountEntry, { ...searchAccountEntry, index: 2, kycVerified: 'false' }] };

/** §2 Response envelope. */
const responseEnvelope = { success: true, message: 'Request processed', data: { anything: 'goes' } };

/** §2 Token envelope. */
const tokenEnvelope = { status: true, message: 'Token generated', data: JWT_BEARER };

// ---------------------------------------------------------------------------
// §4.12 care context parts
// ---------------------------------------------------------------------------

const hospital = { name: 'Sample Community Health Centre', id: 'IN0000000001', phone: '080-00000000', email: 'records@chc.example.org' };
const doctor = { name: 'Dr. Test Physician', licNumber: 'TMC-00001', hpId: '71-0000-0000-0001' };
const diagnosis = { diagnosisName: 'Acute pharyngitis', status: 'confirmed', icdCode: 'J02.9' };
const medication = { drugName: 'Paracetamol 500 mg tablet', dosage: '1 tablet', frequency: '1-0-1', duration: '5 days', instructions: 'after food' };
const labInvestigation = { testName: 'Complete blood count', instructions: 'no fasting needed' };
const bundleData = {
  hospital,
  doctor,
  documentUrl: 'https://records.chc.example.org/visits/V-0001.pdf',
  diagnosis: [diagnosis],
  medications: [medication, { ...medication, drugName: 'Cetirizine 10 mg tablet', frequency: 'HS' }],
  labInvestigations: [labInvestigation],
  advice: 'Warm fluids and rest.',
};
const bundleDataMinimal = { hospital: { name: hospital.name, id: hospital.id }, doctor: { name: doctor.name } };
const careContext = { referenceNumber: 'V-0001-Prescription', display: 'Prescription at Sample CHC on 20 Nov 2026', hiType: 'Prescription', bundleData };
const careContextMinimal = { referenceNumber: 'V-0001-OPConsultation', display: 'OP Consultation', hiType: 'OPConsultation', bundleData: bundleDataMinimal };

// ---------------------------------------------------------------------------
// §4 request bodies
// ---------------------------------------------------------------------------

const tokenRequest = { apiKey: 'synthetic-api-key-0001' };
const searchAbhaRequest = { mobile: MOBILE };
const requestOtpRequest = { scope: ['abha-login', 'mobile-verify'], loginHint: 'index', otpSystem: 'abdm', loginId: '1', txnId: TXN };
const requestOtpRequestMinimal = { scope: ['abha-enrol'], loginHint: 'x', otpSystem: 'y', loginId: '0', txnId: 't' };
const verifyOtpRequest = { scope: ['abha-login', 'mobile-verify'], txnId: TXN, otp: OTP };
const verifyOtpRequestMinimal = { scope: ['abha-login'], txnId: 't', otp: '000000' };
const mobileLoginRequest = { txnId: TXN, otp: OTP };
const otpValueRequest = { txnId: TXN, otpValue: OTP, mobile: MOBILE };
const profileRequest = { token: JWT_SESSION };
const linkRequest = {
  abhaAddress: 'test.patient.one@sbx',
  hipId: 'IN0000000001',
  hospitalName: 'Sample Community Health Centre',
  visitDate: '2026-11-20',
  visitId: 'V-0001',
  careContexts: [careContext, { ...careContext, referenceNumber: 'V-0001-OPConsultation', hiType: 'OPConsultation', display: 'OP Consultation at Sample CHC' }],
};
const linkRequestMinimal = { ...linkRequest, careContexts: [careContextMinimal] };

// ---------------------------------------------------------------------------
// §4 response bodies
// ---------------------------------------------------------------------------

const ok = (data: unknown) => ({ success: true, message: 'Success', data });

const tokenResponse = { status: true, message: 'Token generated successfully', data: JWT_BEARER };
const searchAbhaResponse = ok([searchResultItem]);
const requestOtpResponse = ok({ txnId: TXN, message: 'OTP sent to mobile number ending with ****2345' });
const verifyOtpResponse = ok({
  txnId: TXN,
  authResult: 'success',
  token: JWT_SESSION,
  expiresIn: 1800,
  refreshToken: JWT_REFRESH,
  refreshExpiresIn: 1296000,
  accounts: [accountSummary],
});
const mobileLoginResponse = ok({ txnId: TXN, authResult: 'success', token: JWT_SESSION, expiresIn: 300, accounts: [accountSummary] });
const mobileLoginAbhaNumberResponse = ok({ txnId: TXN, authResult: 'success', accounts: [accountSummary] });
const aadharNumberLoginResponse = ok({
  txnId: TXN,
  authResult: 'success',
  token: JWT_SESSION,
  expiresIn: 1800,
  refreshToken: JWT_REFRESH,
  refreshExpiresIn: 1296000,
  accounts: [accountSummary, { ...accountSummary, ABHANumber: '91-1000-2000-3009', kycVerified: false }],
});
const abhaAddressLoginResponse = ok({ txnId: TXN, message: 'OTP verified', authResult: 'success', users: [user], tokens: sessionTokens });
const enrollResponse = ok({ txnId: TXN, tokens: sessionTokens, ABHAProfile: abhaProfile, isNew: true });
const fetchProfileResponse = ok(abhaAddressProfile);
const getProfileResponse = ok(accountProfile);
const linkResponse = ok({ linked: 2 });

const MIN_RESPONSE = { success: true };

/** The 12 endpoints of §4: schemas, and a minimal and full valid request and response. */
const ENDPOINT_CASES: ReadonlyArray<{
  section: string;
  id: string;
  request: { min: unknown; full: unknown };
  response: { min: unknown; full: unknown };
}> = [
  { section: '4.1', id: 'token', request: { min: { apiKey: 'k' }, full: tokenRequest }, response: { min: { status: true }, full: tokenResponse } },
  { section: '4.2', id: 'search-abha', request: { min: searchAbhaRequest, full: searchAbhaRequest }, response: { min: MIN_RESPONSE, full: searchAbhaResponse } },
  { section: '4.3', id: 'request-otp', request: { min: requestOtpRequestMinimal, full: requestOtpRequest }, response: { min: MIN_RESPONSE, full: requestOtpResponse } },
  { section: '4.4', id: 'verify-otp', request: { min: verifyOtpRequestMinimal, full: verifyOtpRequest }, response: { min: MIN_RESPONSE, full: verifyOtpResponse } },
  { section: '4.5', id: 'mobile-login-verify-otp', request: { min: { txnId: 't', otp: '000000' }, full: mobileLoginRequest }, response: { min: MIN_RESPONSE, full: mobileLoginResponse } },
  {
    section: '4.6',
    id: 'mobile-login-abha-number-verify-otp',
    request: { min: { txnId: 't', otp: '000000' }, full: mobileLoginRequest },
    response: { min: MIN_RESPONSE, full: mobileLoginAbhaNumberResponse },
  },
  {
    section: '4.7',
    id: 'aadhar-number-login-verify-otp',
    request: { min: { txnId: 't', otpValue: '000000', mobile: '6000000000' }, full: otpValueRequest },
    response: { min: MIN_RESPONSE, full: aadharNumberLoginResponse },
  },
  {
    section: '4.8',
    id: 'abha-address-login-verify-otp',
    request: { min: { txnId: 't', otpValue: '000000', mobile: '6000000000' }, full: otpValueRequest },
    response: { min: MIN_RESPONSE, full: abhaAddressLoginResponse },
  },
  {
    section: '4.9',
    id: 'enroll-verify-otp',
    request: { min: { txnId: 't', otpValue: '000000', mobile: '6000000000' }, full: otpValueRequest },
    response: { min: MIN_RESPONSE, full: enrollResponse },
  },
  { section: '4.10', id: 'fetch-abha-address-profile', request: { min: { token: 'x' }, full: profileRequest }, response: { min: MIN_RESPONSE, full: fetchProfileResponse } },
  { section: '4.11', id: 'get-profile', request: { min: { token: 'x' }, full: profileRequest }, response: { min: MIN_RESPONSE, full: getProfileResponse } },
  { section: '4.12', id: 'link-carecontext', request: { min: linkRequestMinimal, full: linkRequest }, response: { min: MIN_RESPONSE, full: linkResponse } },
];

const req = (id: string) => `${id}-request` as SchemaName;
const res = (id: string) => `${id}-response` as SchemaName;
const STANDARD_RESPONSES = ENDPOINT_CASES.filter((e) => e.id !== 'token');
/** Standard responses whose data shape the spec shows (all but §4.12). */
const TYPED_DATA_RESPONSES = STANDARD_RESPONSES.filter((e) => e.id !== 'link-carecontext');

// ---------------------------------------------------------------------------
// Spec field types, transcribed from the spec tables (§2 and §4)
// ---------------------------------------------------------------------------

type SpecType = 'string' | 'integer' | 'boolean' | 'string[]' | 'object' | 'object[]';

const S = 'string' as const;
const SPEC_TYPES = {
  responseEnvelope: { success: 'boolean', message: S },
  tokenEnvelope: { status: 'boolean', message: S, data: S },
  sessionTokens: { token: S, expiresIn: 'integer', refreshToken: S, refreshExpiresIn: 'integer' },
  accountSummary: {
    ABHANumber: S,
    preferredAbhaAddress: S,
    name: S,
    gender: S,
    dob: S,
    status: S,
    profilePhoto: S,
    kycVerified: 'boolean',
    mobileVerified: 'boolean',
  },
  abhaProfile: {
    ABHANumber: S,
    preferredAddress: S,
    firstName: S,
    middleName: S,
    lastName: S,
    dob: S,
    gender: S,
    photo: S,
    mobile: S,
    email: S,
    address: S,
    districtCode: S,
    stateCode: S,
    pinCode: S,
    stateName: S,
    districtName: S,
    abhaType: S,
    abhaStatus: S,
    phrAddress: 'string[]',
  },
  abhaAddressProfile: {
    abhaAddress: S,
    fullName: S,
    profilePhoto: S,
    firstName: S,
    lastName: S,
    dateOfBirth: S,
    gender: S,
    mobile: S,
    abhaNumber: S,
    address: S,
    stateName: S,
    districtName: S,
    pinCode: S,
    status: S,
    kycStatus: S,
    authMethods: 'string[]',
  },
  accountProfile: {
    ABHANumber: S,
    preferredAbhaAddress: S,
    mobile: S,
    firstName: S,
    lastName: S,
    gender: S,
    status: S,
    stateCode: S,
    districtCode: S,
    pincode: S,
    address: S,
    verificationStatus: S,
    kycVerified: 'boolean',
    authMethods: 'string[]',
  },
  user: { abhaAddress: S, fullName: S, abhaNumber: S, status: S, kycStatus: S, age: 'integer' },
  searchResultItem: { txnId: S, ABHA: 'object[]' },
  searchAccountEntry: { index: 'integer', ABHANumber: S, name: S, gender: S, kycVerified: S, authMethods: 'string[]' },
  hospital: { name: S, id: S, phone: S, email: S },
  doctor: { name: S, licNumber: S, hpId: S },
  diagnosis: { diagnosisName: S, status: S, icdCode: S },
  medication: { drugName: S, dosage: S, frequency: S, duration: S, instructions: S },
  labInvestigation: { testName: S, instructions: S },
  bundleData: { hospital: 'object', doctor: 'object', documentUrl: S, diagnosis: 'object[]', medications: 'object[]', labInvestigations: 'object[]', advice: S },
  careContext: { referenceNumber: S, display: S, hiType: S, bundleData: 'object' },
  tokenRequest: { apiKey: S },
  searchAbhaRequest: { mobile: S },
  requestOtpRequest: { scope: 'string[]', loginHint: S, otpSystem: S, loginId: S, txnId: S },
  verifyOtpRequest: { scope: 'string[]', txnId: S, otp: S },
  mobileLoginRequest: { txnId: S, otp: S },
  otpValueRequest: { txnId: S, otpValue: S, mobile: S },
  profileRequest: { token: S },
  linkRequest: { abhaAddress: S, hipId: S, hospitalName: S, visitDate: S, visitId: S, careContexts: 'object[]' },
  requestOtpData: { txnId: S, message: S },
  verifyOtpData: { txnId: S, authResult: S, token: S, expiresIn: 'integer', refreshToken: S, refreshExpiresIn: 'integer', accounts: 'object[]' },
  mobileLoginData: { txnId: S, authResult: S, token: S, expiresIn: 'integer', accounts: 'object[]' },
  mobileLoginAbhaNumberData: { txnId: S, authResult: S, accounts: 'object[]' },
  abhaAddressLoginData: { txnId: S, message: S, authResult: S, users: 'object[]', tokens: 'object' },
  enrollData: { txnId: S, tokens: 'object', ABHAProfile: 'object', isNew: 'boolean' },
} as const satisfies Record<string, Record<string, SpecType>>;

/** Where a spec type map applies: which schema, the valid base document and the path of the object. */
const TYPE_SITES: ReadonlyArray<{ section: string; schema: SchemaName; base: unknown; at: Path; types: Record<string, SpecType> }> = [
  { section: '2', schema: 'response-envelope', base: responseEnvelope, at: [], types: SPEC_TYPES.responseEnvelope },
  { section: '2', schema: 'token-envelope', base: tokenEnvelope, at: [], types: SPEC_TYPES.tokenEnvelope },
  { section: '2', schema: 'session-tokens', base: sessionTokens, at: [], types: SPEC_TYPES.sessionTokens },
  { section: '2', schema: 'account-summary', base: accountSummary, at: [], types: SPEC_TYPES.accountSummary },
  { section: '2', schema: 'abha-profile', base: abhaProfile, at: [], types: SPEC_TYPES.abhaProfile },
  { section: '2', schema: 'abha-address-profile', base: abhaAddressProfile, at: [], types: SPEC_TYPES.abhaAddressProfile },
  { section: '2', schema: 'account-profile', base: accountProfile, at: [], types: SPEC_TYPES.accountProfile },
  { section: '2', schema: 'user', base: user, at: [], types: SPEC_TYPES.user },
  { section: '2', schema: 'search-result-item', base: searchResultItem, at: [], types: SPEC_TYPES.searchResultItem },
  { section: '2', schema: 'search-result-item', base: searchResultItem, at: ['ABHA', 0], types: SPEC_TYPES.searchAccountEntry },
  { section: '2', schema: 'search-account-entry', base: searchAccountEntry, at: [], types: SPEC_TYPES.searchAccountEntry },
  { section: '4.12', schema: 'hospital', base: hospital, at: [], types: SPEC_TYPES.hospital },
  { section: '4.12', schema: 'doctor', base: doctor, at: [], types: SPEC_TYPES.doctor },
  { section: '4.12', schema: 'diagnosis', base: diagnosis, at: [], types: SPEC_TYPES.diagnosis },
  { section: '4.12', schema: 'medication', base: medication, at: [], types: SPEC_TYPES.medication },
  { section: '4.12', schema: 'lab-investigation', base: labInvestigation, at: [], types: SPEC_TYPES.labInvestigation },
  { section: '4.12', schema: 'bundle-data', base: bundleData, at: [], types: SPEC_TYPES.bundleData },
  { section: '4.12', schema: 'care-context', base: careContext, at: [], types: SPEC_TYPES.careContext },
  // requests
  { section: '4.1', schema: 'token-request', base: tokenRequest, at: [], types: SPEC_TYPES.tokenRequest },
  { section: '4.2', schema: 'search-abha-request', base: searchAbhaRequest, at: [], types: SPEC_TYPES.searchAbhaRequest },
  { section: '4.3', schema: 'request-otp-request', base: requestOtpRequest, at: [], types: SPEC_TYPES.requestOtpRequest },
  { section: '4.4', schema: 'verify-otp-request', base: verifyOtpRequest, at: [], types: SPEC_TYPES.verifyOtpRequest },
  { section: '4.5', schema: 'mobile-login-verify-otp-request', base: mobileLoginRequest, at: [], types: SPEC_TYPES.mobileLoginRequest },
  { section: '4.6', schema: 'mobile-login-abha-number-verify-otp-request', base: mobileLoginRequest, at: [], types: SPEC_TYPES.mobileLoginRequest },
  { section: '4.7', schema: 'aadhar-number-login-verify-otp-request', base: otpValueRequest, at: [], types: SPEC_TYPES.otpValueRequest },
  { section: '4.8', schema: 'abha-address-login-verify-otp-request', base: otpValueRequest, at: [], types: SPEC_TYPES.otpValueRequest },
  { section: '4.9', schema: 'enroll-verify-otp-request', base: otpValueRequest, at: [], types: SPEC_TYPES.otpValueRequest },
  { section: '4.10', schema: 'fetch-abha-address-profile-request', base: profileRequest, at: [], types: SPEC_TYPES.profileRequest },
  { section: '4.11', schema: 'get-profile-request', base: profileRequest, at: [], types: SPEC_TYPES.profileRequest },
  { section: '4.12', schema: 'link-carecontext-request', base: linkRequest, at: [], types: SPEC_TYPES.linkRequest },
  { section: '4.12', schema: 'link-carecontext-request', base: linkRequest, at: ['careContexts', 0], types: SPEC_TYPES.careContext },
  { section: '4.12', schema: 'link-carecontext-request', base: linkRequest, at: ['careContexts', 0, 'bundleData'], types: SPEC_TYPES.bundleData },
  { section: '4.12', schema: 'link-carecontext-request', base: linkRequest, at: ['careContexts', 0, 'bundleData', 'hospital'], types: SPEC_TYPES.hospital },
  { section: '4.12', schema: 'link-carecontext-request', base: linkRequest, at: ['careContexts', 0, 'bundleData', 'doctor'], types: SPEC_TYPES.doctor },
  { section: '4.12', schema: 'link-carecontext-request', base: linkRequest, at: ['careContexts', 0, 'bundleData', 'diagnosis', 0], types: SPEC_TYPES.diagnosis },
  { section: '4.12', schema: 'link-carecontext-request', base: linkRequest, at: ['careContexts', 0, 'bundleData', 'medications', 0], types: SPEC_TYPES.medication },
  { section: '4.12', schema: 'link-carecontext-request', base: linkRequest, at: ['careContexts', 0, 'bundleData', 'labInvestigations', 0], types: SPEC_TYPES.labInvestigation },
  // responses: the envelope and the data of each endpoint
  { section: '4.1', schema: 'token-response', base: tokenResponse, at: [], types: SPEC_TYPES.tokenEnvelope },
  ...STANDARD_RESPONSES.map((e) => ({ section: e.section, schema: res(e.id), base: e.response.full, at: [] as Path, types: SPEC_TYPES.responseEnvelope })),
  { section: '4.2', schema: 'search-abha-response', base: searchAbhaResponse, at: ['data', 0], types: SPEC_TYPES.searchResultItem },
  { section: '4.2', schema: 'search-abha-response', base: searchAbhaResponse, at: ['data', 0, 'ABHA', 0], types: SPEC_TYPES.searchAccountEntry },
  { section: '4.3', schema: 'request-otp-response', base: requestOtpResponse, at: ['data'], types: SPEC_TYPES.requestOtpData },
  { section: '4.4', schema: 'verify-otp-response', base: verifyOtpResponse, at: ['data'], types: SPEC_TYPES.verifyOtpData },
  { section: '4.4', schema: 'verify-otp-response', base: verifyOtpResponse, at: ['data', 'accounts', 0], types: SPEC_TYPES.accountSummary },
  { section: '4.5', schema: 'mobile-login-verify-otp-response', base: mobileLoginResponse, at: ['data'], types: SPEC_TYPES.mobileLoginData },
  { section: '4.5', schema: 'mobile-login-verify-otp-response', base: mobileLoginResponse, at: ['data', 'accounts', 0], types: SPEC_TYPES.accountSummary },
  { section: '4.6', schema: 'mobile-login-abha-number-verify-otp-response', base: mobileLoginAbhaNumberResponse, at: ['data'], types: SPEC_TYPES.mobileLoginAbhaNumberData },
  { section: '4.6', schema: 'mobile-login-abha-number-verify-otp-response', base: mobileLoginAbhaNumberResponse, at: ['data', 'accounts', 0], types: SPEC_TYPES.accountSummary },
  { section: '4.7', schema: 'aadhar-number-login-verify-otp-response', base: aadharNumberLoginResponse, at: ['data'], types: SPEC_TYPES.verifyOtpData },
  { section: '4.7', schema: 'aadhar-number-login-verify-otp-response', base: aadharNumberLoginResponse, at: ['data', 'accounts', 1], types: SPEC_TYPES.accountSummary },
  { section: '4.8', schema: 'abha-address-login-verify-otp-response', base: abhaAddressLoginResponse, at: ['data'], types: SPEC_TYPES.abhaAddressLoginData },
  { section: '4.8', schema: 'abha-address-login-verify-otp-response', base: abhaAddressLoginResponse, at: ['data', 'users', 0], types: SPEC_TYPES.user },
  { section: '4.8', schema: 'abha-address-login-verify-otp-response', base: abhaAddressLoginResponse, at: ['data', 'tokens'], types: SPEC_TYPES.sessionTokens },
  { section: '4.9', schema: 'enroll-verify-otp-response', base: enrollResponse, at: ['data'], types: SPEC_TYPES.enrollData },
  { section: '4.9', schema: 'enroll-verify-otp-response', base: enrollResponse, at: ['data', 'tokens'], types: SPEC_TYPES.sessionTokens },
  { section: '4.9', schema: 'enroll-verify-otp-response', base: enrollResponse, at: ['data', 'ABHAProfile'], types: SPEC_TYPES.abhaProfile },
  { section: '4.10', schema: 'fetch-abha-address-profile-response', base: fetchProfileResponse, at: ['data'], types: SPEC_TYPES.abhaAddressProfile },
  { section: '4.11', schema: 'get-profile-response', base: getProfileResponse, at: ['data'], types: SPEC_TYPES.accountProfile },
];

/** Values of the wrong JSON type for a field of a spec type, with the path (relative to the field) of the issue. */
function wrongValues(type: SpecType): ReadonlyArray<{ value: unknown; at: Path }> {
  switch (type) {
    case 'string':
      return [
        { value: 42, at: [] },
        { value: true, at: [] },
      ];
    case 'integer':
      return [
        { value: '1800', at: [] },
        { value: 1.5, at: [] },
        { value: false, at: [] },
      ];
    case 'boolean':
      return [
        { value: 'true', at: [] },
        { value: 1, at: [] },
      ];
    case 'string[]':
      return [
        { value: 'MOBILE_OTP', at: [] },
        { value: ['MOBILE_OTP', 7], at: [1] },
      ];
    case 'object':
      return [
        { value: 'x', at: [] },
        { value: [], at: [] },
      ];
    case 'object[]':
      return [
        { value: {}, at: [] },
        { value: ['x'], at: [0] },
      ];
  }
}

const WRONG_TYPE_CASES: readonly InvalidCase[] = invalid(
  TYPE_SITES.flatMap((site) =>
    Object.entries(site.types).flatMap(([field, type]) =>
      wrongValues(type).map(({ value, at }) => {
        const path = [...site.at, field];
        return {
          title: `§${site.section} ${site.schema} rejects ${describeValue(value)} at ${ptr(path)} (spec type: ${type})`,
          schema: site.schema,
          doc: edit(site.base, path, value),
          issues: [[ptr([...path, ...at]), 'type']] as const,
        };
      }),
    ),
  ),
);

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

describe('§2 resources: valid documents', () => {
  runValid(
    valid([
      { title: 'response envelope: minimal (success only)', schema: 'response-envelope', doc: { success: false } },
      { title: 'response envelope: full, data an object', schema: 'response-envelope', doc: responseEnvelope },
      { title: 'response envelope: full, data an array (the search endpoint)', schema: 'response-envelope', doc: { ...responseEnvelope, data: [searchResultItem] } },
      { title: 'token envelope: minimal (status only)', schema: 'token-envelope', doc: { status: true } },
      { title: 'token envelope: full', schema: 'token-envelope', doc: tokenEnvelope },
      { title: 'session tokens: minimal (empty object)', schema: 'session-tokens', doc: {} },
      { title: 'session tokens: full, enrolment lifetimes 1800 / 1296000', schema: 'session-tokens', doc: sessionTokens },
      { title: 'session tokens: full, mobile-login lifetime 300', schema: 'session-tokens', doc: { ...sessionTokens, expiresIn: 300 } },
      { title: 'account summary: minimal', schema: 'account-summary', doc: {} },
      { title: 'account summary: full, kycVerified a boolean', schema: 'account-summary', doc: accountSummary },
      { title: 'ABHA profile: minimal', schema: 'abha-profile', doc: {} },
      { title: 'ABHA profile: full, 18 strings and phrAddress', schema: 'abha-profile', doc: abhaProfile },
      { title: 'ABHA address profile: minimal', schema: 'abha-address-profile', doc: {} },
      { title: 'ABHA address profile: full, 15 strings and authMethods', schema: 'abha-address-profile', doc: abhaAddressProfile },
      { title: 'account profile: minimal', schema: 'account-profile', doc: {} },
      { title: 'account profile: full, kycVerified a boolean, lower-case pincode', schema: 'account-profile', doc: accountProfile },
      { title: 'user: minimal', schema: 'user', doc: {} },
      { title: 'user: full, age an integer', schema: 'user', doc: user },
      { title: 'search result item: minimal, the txnId and the account list the flow goes on with', schema: 'search-result-item', doc: { txnId: TXN, ABHA: [{ index: 1 }] } },
      { title: 'search result item: full, two masked account entries', schema: 'search-result-item', doc: searchResultItem },
      { title: 'search result item: no accounts found', schema: 'search-result-item', doc: { txnId: TXN, ABHA: [] } },
      { title: 'search account entry: minimal, its index', schema: 'search-account-entry', doc: { index: 0 } },
      { title: 'search account entry: full, kycVerified a string', schema: 'search-account-entry', doc: searchAccountEntry },
    ]),
  );
});

describe('§4.12 care-context parts: valid documents', () => {
  runValid(
    valid([
      { title: 'hospital: minimal (name and id, our required fields)', schema: 'hospital', doc: { name: 'Sample Clinic', id: 'IN0000000002' } },
      { title: 'hospital: full (name, id, phone, email)', schema: 'hospital', doc: hospital },
      { title: 'doctor: minimal (name)', schema: 'doctor', doc: { name: 'Dr. Test' } },
      { title: 'doctor: full (name, licNumber, hpId)', schema: 'doctor', doc: doctor },
      { title: 'diagnosis: minimal (diagnosisName)', schema: 'diagnosis', doc: { diagnosisName: 'Fever' } },
      { title: 'diagnosis: full (diagnosisName, status confirmed, icdCode)', schema: 'diagnosis', doc: diagnosis },
      {
        title: 'diagnosis input: the codings the EMR holds (icdTitle, snomed)',
        schema: 'diagnosis-input',
        doc: { ...diagnosis, icdTitle: 'Sample ICD-10 title', snomed: { code: '44054006', display: 'Diabetes mellitus type 2' } },
      },
      { title: 'medication: minimal (drugName)', schema: 'medication', doc: { drugName: 'ORS sachet' } },
      { title: 'medication: full (five strings)', schema: 'medication', doc: medication },
      { title: 'lab investigation: minimal (testName)', schema: 'lab-investigation', doc: { testName: 'HbA1c' } },
      { title: 'lab investigation: full (testName, instructions)', schema: 'lab-investigation', doc: labInvestigation },
      { title: 'bundleData: minimal (hospital and doctor)', schema: 'bundle-data', doc: bundleDataMinimal },
      { title: 'bundleData: full (every field of the spec table)', schema: 'bundle-data', doc: bundleData },
      { title: 'bundleData: empty lists', schema: 'bundle-data', doc: { ...bundleDataMinimal, diagnosis: [], medications: [], labInvestigations: [] } },
      { title: 'care context: minimal', schema: 'care-context', doc: careContextMinimal },
      { title: 'care context: full, hiType Prescription', schema: 'care-context', doc: careContext },
    ]),
  );
});

describe('§4 endpoints: valid request and response bodies', () => {
  runValid(
    valid(
      ENDPOINT_CASES.flatMap((e) => [
        { title: `§${e.section} ${e.id} request: minimal`, schema: req(e.id), doc: e.request.min },
        { title: `§${e.section} ${e.id} request: full`, schema: req(e.id), doc: e.request.full },
        { title: `§${e.section} ${e.id} response: minimal`, schema: res(e.id), doc: e.response.min },
        { title: `§${e.section} ${e.id} response: full`, schema: res(e.id), doc: e.response.full },
      ]),
    ),
  );
  runValid(
    valid([
      {
        title: '§4.6 response reporting the OTP as expired',
        schema: 'mobile-login-abha-number-verify-otp-response',
        doc: { success: false, message: 'OTP expired', data: { txnId: TXN, authResult: 'failed', accounts: [] } },
      },
      { title: '§4.2 response: no accounts found (empty data array)', schema: 'search-abha-response', doc: ok([]) },
      { title: '§4.12 request: the visit date is a leap day', schema: 'link-carecontext-request', doc: { ...linkRequest, visitDate: '2028-02-29' } },
      { title: '§4.12 request: the visit date is the last day of a year', schema: 'link-carecontext-request', doc: { ...linkRequest, visitDate: '2026-12-31' } },
      { title: '§4.12 response: data may be anything (shape not shown)', schema: 'link-carecontext-response', doc: ok(['anything', 1, null]) },
    ]),
  );
});

describe('wrong JSON types, field by field from the spec tables', () => {
  runInvalid(WRONG_TYPE_CASES);

  describe('kycVerified: a string in search account entries (§2), a boolean in account summaries and account profiles (§2)', () => {
    runValid(
      valid([
        { title: 'search account entry accepts kycVerified "true"', schema: 'search-account-entry', doc: { index: 1, kycVerified: 'true' } },
        { title: 'account summary accepts kycVerified true', schema: 'account-summary', doc: { kycVerified: true } },
        { title: 'account profile accepts kycVerified false', schema: 'account-profile', doc: { kycVerified: false } },
      ]),
    );
    runInvalid(
      invalid([
        { title: 'search account entry rejects kycVerified true (a boolean)', schema: 'search-account-entry', doc: { index: 1, kycVerified: true }, issues: [['/kycVerified', 'type']] },
        { title: 'account summary rejects kycVerified "true" (a string)', schema: 'account-summary', doc: { kycVerified: 'true' }, issues: [['/kycVerified', 'type']] },
        { title: 'account profile rejects kycVerified "true" (a string)', schema: 'account-profile', doc: { kycVerified: 'true' }, issues: [['/kycVerified', 'type']] },
        {
          title: '§4.2 search response rejects a boolean kycVerified in an account entry',
          schema: 'search-abha-response',
          doc: edit(searchAbhaResponse, ['data', 0, 'ABHA', 1, 'kycVerified'], false),
          issues: [['/data/0/ABHA/1/kycVerified', 'type']],
        },
        {
          title: '§4.4 verify response rejects a string kycVerified in an account summary',
          schema: 'verify-otp-response',
          doc: edit(verifyOtpResponse, ['data', 'accounts', 0, 'kycVerified'], 'true'),
          issues: [['/data/accounts/0/kycVerified', 'type']],
        },
      ]),
    );
  });

  describe('non-object documents', () => {
    it.each(SCHEMA_NAMES.flatMap((schema) => [null, [], 'text', 7, true].map((doc) => ({ schema, doc, label: describeValue(doc) }))))(
      '$schema rejects $label as the whole document with path "" and code type',
      ({ schema, doc }) => {
        expect(issuesOf(schema, doc)).toEqual([['', 'type']]);
      },
    );
  });
});

describe('missing required fields', () => {
  /** The spec says "all required" (§4.3-4.6) or "required" (§4.1, §4.11). */
  const SPEC_REQUIRED: ReadonlyArray<[section: string, schema: SchemaName, base: unknown, fields: readonly string[]]> = [
    ['4.1', 'token-request', tokenRequest, ['apiKey']],
    ['4.3', 'request-otp-request', requestOtpRequest, ['scope', 'loginHint', 'otpSystem', 'loginId', 'txnId']],
    ['4.4', 'verify-otp-request', verifyOtpRequest, ['scope', 'txnId', 'otp']],
    ['4.5', 'mobile-login-verify-otp-request', mobileLoginRequest, ['txnId', 'otp']],
    ['4.6', 'mobile-login-abha-number-verify-otp-request', mobileLoginRequest, ['txnId', 'otp']],
    ['4.11', 'get-profile-request', profileRequest, ['token']],
  ];
  /** The spec does not show required flags here (§4 last paragraph); these are abha-link's choices. */
  const OUR_REQUIRED: ReadonlyArray<[section: string, schema: SchemaName, base: unknown, at: Path, fields: readonly string[]]> = [
    ['4.2', 'search-abha-request', searchAbhaRequest, [], ['mobile']],
    ['4.7', 'aadhar-number-login-verify-otp-request', otpValueRequest, [], ['txnId', 'otpValue', 'mobile']],
    ['4.8', 'abha-address-login-verify-otp-request', otpValueRequest, [], ['txnId', 'otpValue', 'mobile']],
    ['4.9', 'enroll-verify-otp-request', otpValueRequest, [], ['txnId', 'otpValue', 'mobile']],
    ['4.10', 'fetch-abha-address-profile-request', profileRequest, [], ['token']],
    ['4.12', 'link-carecontext-request', linkRequest, [], ['abhaAddress', 'hipId', 'hospitalName', 'visitDate', 'visitId', 'careContexts']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 1], ['referenceNumber', 'display', 'hiType', 'bundleData']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData'], ['hospital', 'doctor']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'hospital'], ['name', 'id']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'doctor'], ['name']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'diagnosis', 0], ['diagnosisName']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'medications', 1], ['drugName']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'labInvestigations', 0], ['testName']],
    ['4.12', 'care-context', careContext, [], ['referenceNumber', 'display', 'hiType', 'bundleData']],
    ['4.12', 'bundle-data', bundleData, [], ['hospital', 'doctor']],
    ['4.12', 'hospital', hospital, [], ['name', 'id']],
    ['4.12', 'doctor', doctor, [], ['name']],
    ['4.12', 'diagnosis', diagnosis, [], ['diagnosisName']],
    ['4.12', 'medication', medication, [], ['drugName']],
    ['4.12', 'lab-investigation', labInvestigation, [], ['testName']],
    // What one step of the typical flow (§1) hands to the next.
    ['4.2', 'search-abha-response', searchAbhaResponse, ['data', 0], ['txnId', 'ABHA']],
    ['4.2', 'search-abha-response', searchAbhaResponse, ['data', 0, 'ABHA', 1], ['index']],
    ['4.3', 'request-otp-response', requestOtpResponse, ['data'], ['txnId']],
    ['4.4', 'verify-otp-response', verifyOtpResponse, ['data'], ['token']],
  ];
  describe('"all required" request fields of the spec', () => {
    runInvalid(
      invalid(
        SPEC_REQUIRED.flatMap(([section, schema, base, fields]) =>
          fields.map((f) => ({ title: `§${section} ${schema} without ${f}`, schema, doc: edit(base, [f], REMOVE), issues: [[`/${f}`, 'required']] as const })),
        ),
      ),
    );
  });
  describe('fields abha-link chose to require where the spec shows no flags', () => {
    runInvalid(
      invalid(
        OUR_REQUIRED.flatMap(([section, schema, base, at, fields]) =>
          fields.map((f) => ({
            title: `§${section} ${schema} without ${ptr([...at, f])}`,
            schema,
            doc: edit(base, [...at, f], REMOVE),
            issues: [[ptr([...at, f]), 'required']] as const,
          })),
        ),
      ),
    );
  });
  describe('every field missing at once is reported, one issue each', () => {
    runInvalid(
      invalid([
        {
          title: '§4.3 request-otp-request as an empty object',
          schema: 'request-otp-request',
          doc: {},
          issues: ['scope', 'loginHint', 'otpSystem', 'loginId', 'txnId'].map((f) => [`/${f}`, 'required'] as const),
        },
        {
          title: '§4.12 link-carecontext-request as an empty object',
          schema: 'link-carecontext-request',
          doc: {},
          issues: ['abhaAddress', 'hipId', 'hospitalName', 'visitDate', 'visitId', 'careContexts'].map((f) => [`/${f}`, 'required'] as const),
        },
        { title: '§2 response envelope without success', schema: 'response-envelope', doc: { message: 'x', data: {} }, issues: [['/success', 'required']] },
        { title: '§2 token envelope without status', schema: 'token-envelope', doc: { message: 'x', data: JWT_BEARER }, issues: [['/status', 'required']] },
      ]),
    );
  });
});

describe('mobile: exactly 10 digits (§8) wherever a mobile appears', () => {
  const SITES: ReadonlyArray<[section: string, schema: SchemaName, base: unknown, at: Path]> = [
    ['4.2', 'search-abha-request', searchAbhaRequest, ['mobile']],
    ['4.7', 'aadhar-number-login-verify-otp-request', otpValueRequest, ['mobile']],
    ['4.8', 'abha-address-login-verify-otp-request', otpValueRequest, ['mobile']],
    ['4.9', 'enroll-verify-otp-request', otpValueRequest, ['mobile']],
    ['2', 'abha-profile', abhaProfile, ['mobile']],
    ['2', 'abha-address-profile', abhaAddressProfile, ['mobile']],
    ['2', 'account-profile', accountProfile, ['mobile']],
    ['4.9', 'enroll-verify-otp-response', enrollResponse, ['data', 'ABHAProfile', 'mobile']],
    ['4.10', 'fetch-abha-address-profile-response', fetchProfileResponse, ['data', 'mobile']],
    ['4.11', 'get-profile-response', getProfileResponse, ['data', 'mobile']],
  ];
  const BAD: ReadonlyArray<[label: string, value: string]> = [
    ['5 digits', '98765'],
    ['9 digits', '987654321'],
    ['a hyphen', '98765-4321'],
    ['a space', '98765 4321'],
    ['a +91 prefix and 8 digits', '+919876543'],
    ['letters', 'abcdefghij'],
    ['Devanagari digits', '९८७६५४३२१०'],
    ['nothing (empty string)', ''],
  ];
  const TOO_LONG: ReadonlyArray<[label: string, value: string]> = [
    ['11 digits', '98765432101'],
    ['a +91 prefix and 10 digits', '+919876543210'],
  ];
  runValid(
    valid(
      SITES.flatMap(([section, schema, base, at]) =>
        ['9876543210', '6000000000'].map((m) => ({ title: `§${section} ${schema} accepts the mobile ${m} at ${ptr(at)}`, schema, doc: edit(base, at, m) })),
      ),
    ),
  );
  runInvalid(
    invalid(
      SITES.flatMap(([section, schema, base, at]) => [
        ...BAD.map(([label, m]) => ({
          title: `§${section} ${schema} rejects a mobile of ${label} at ${ptr(at)}`,
          schema,
          doc: edit(base, at, m),
          issues: [[ptr(at), 'invalid-mobile']] as const,
        })),
        ...TOO_LONG.map(([label, m]) => ({
          title: `§${section} ${schema} rejects a mobile of ${label} at ${ptr(at)} (too long and not 10 digits)`,
          schema,
          doc: edit(base, at, m),
          issues: [
            [ptr(at), 'too-long'],
            [ptr(at), 'invalid-mobile'],
          ] as const,
        })),
        { title: `§${section} ${schema} rejects a mobile given as a number at ${ptr(at)}`, schema, doc: edit(base, at, 9876543210), issues: [[ptr(at), 'type']] as const },
      ]),
    ),
  );
});

describe('OTP: exactly 6 digits (§8) for otp and otpValue', () => {
  const SITES: ReadonlyArray<[section: string, schema: SchemaName, base: unknown, field: string]> = [
    ['4.4', 'verify-otp-request', verifyOtpRequest, 'otp'],
    ['4.5', 'mobile-login-verify-otp-request', mobileLoginRequest, 'otp'],
    ['4.6', 'mobile-login-abha-number-verify-otp-request', mobileLoginRequest, 'otp'],
    ['4.7', 'aadhar-number-login-verify-otp-request', otpValueRequest, 'otpValue'],
    ['4.8', 'abha-address-login-verify-otp-request', otpValueRequest, 'otpValue'],
    ['4.9', 'enroll-verify-otp-request', otpValueRequest, 'otpValue'],
  ];
  const BAD: ReadonlyArray<[label: string, value: string]> = [
    ['5 digits', '12345'],
    ['letters', 'abcdef'],
    ['a space', '12 345'],
    ['a letter at the end', '12345a'],
    ['a minus sign', '-12345'],
    ['Devanagari digits', '१२३४५६'],
    ['nothing (empty string)', ''],
  ];
  runValid(
    valid(SITES.flatMap(([section, schema, base, field]) => ['000000', '999999'].map((o) => ({ title: `§${section} ${schema} accepts the ${field} ${o}`, schema, doc: edit(base, [field], o) })))),
  );
  runInvalid(
    invalid(
      SITES.flatMap(([section, schema, base, field]) => [
        ...BAD.map(([label, o]) => ({
          title: `§${section} ${schema} rejects an ${field} of ${label}`,
          schema,
          doc: edit(base, [field], o),
          issues: [[`/${field}`, 'invalid-otp']] as const,
        })),
        {
          title: `§${section} ${schema} rejects an ${field} of 7 digits (too long and not 6 digits)`,
          schema,
          doc: edit(base, [field], '1234567'),
          issues: [
            [`/${field}`, 'too-long'],
            [`/${field}`, 'invalid-otp'],
          ] as const,
        },
        { title: `§${section} ${schema} rejects an ${field} given as a number`, schema, doc: edit(base, [field], 123456), issues: [[`/${field}`, 'type']] as const },
      ]),
    ),
  );
});

describe('§4.12 visitDate: a real calendar date in YYYY-MM-DD form', () => {
  const BAD: ReadonlyArray<[label: string, value: string]> = [
    ['30 February', '2026-02-30'],
    ['month 13', '2026-13-01'],
    ['day-month-year order', '20-11-2026'],
    ['29 February in a common year', '2025-02-29'],
    ['31 November', '2026-11-31'],
    ['month 00', '2026-00-10'],
    ['day 00', '2026-11-00'],
    ['no zero padding', '2026-2-3'],
    ['slashes', '2026/11/20'],
    ['nothing (empty string)', ''],
  ];
  runInvalid(
    invalid([
      ...BAD.map(([label, d]) => ({
        title: `rejects a visitDate with ${label} ("${d}")`,
        schema: 'link-carecontext-request' as const,
        doc: { ...linkRequest, visitDate: d },
        issues: [['/visitDate', 'invalid-date']] as const,
      })),
      {
        title: 'rejects a visitDate with a time ("2026-11-20T10:30") as too long and not a date',
        schema: 'link-carecontext-request',
        doc: { ...linkRequest, visitDate: '2026-11-20T10:30' },
        issues: [
          ['/visitDate', 'too-long'],
          ['/visitDate', 'invalid-date'],
        ],
      },
      { title: 'rejects a visitDate given as a number', schema: 'link-carecontext-request', doc: { ...linkRequest, visitDate: 20261120 }, issues: [['/visitDate', 'type']] },
    ]),
  );
});

describe('unknown fields: rejected in requests, tolerated in responses', () => {
  runInvalid(
    invalid([
      ...ENDPOINT_CASES.map((e) => ({
        title: `§${e.section} ${e.id} request rejects an unknown top-level field, path the position of the unknown key`,
        schema: req(e.id),
        doc: { ...(e.request.full as object), unexpectedField: 'x' },
        issues: [[unknownKey({ ...(e.request.full as object), unexpectedField: 'x' }, [], 'unexpectedField'), 'unknown-field']] as const,
      })),
      ...(
        [
          ['careContexts', 0],
          ['careContexts', 0, 'bundleData'],
          ['careContexts', 0, 'bundleData', 'hospital'],
          ['careContexts', 0, 'bundleData', 'doctor'],
          ['careContexts', 0, 'bundleData', 'diagnosis', 0],
          ['careContexts', 1, 'bundleData', 'medications', 1],
          ['careContexts', 0, 'bundleData', 'labInvestigations', 0],
        ] as const
      ).map((at) => ({
        title: `§4.12 link request rejects an unknown field inside ${ptr(at)}`,
        schema: 'link-carecontext-request' as const,
        doc: edit(linkRequest, [...at, 'route'], 'oral'),
        issues: [[unknownKey(edit(linkRequest, [...at, 'route'], 'oral'), at, 'route'), 'unknown-field']] as const,
      })),
      {
        title: '§4.7 request with otp instead of otpValue: otp is unknown and otpValue is missing',
        schema: 'aadhar-number-login-verify-otp-request',
        doc: { txnId: TXN, otp: OTP, mobile: MOBILE },
        issues: [
          ['/#1', 'unknown-field'],
          ['/otpValue', 'required'],
        ],
      },
      {
        title: '§4.4 request with otpValue instead of otp: otpValue is unknown and otp is missing',
        schema: 'verify-otp-request',
        doc: { scope: ['abha-login'], txnId: TXN, otpValue: OTP },
        issues: [
          ['/#2', 'unknown-field'],
          ['/otp', 'required'],
        ],
      },
      {
        title: '§4.2 request with mobileNumber instead of mobile',
        schema: 'search-abha-request',
        doc: { mobileNumber: MOBILE },
        issues: [
          ['/#0', 'unknown-field'],
          ['/mobile', 'required'],
        ],
      },
      {
        title: '§4.12 request with a medication frequency given as a dose pattern object (the body takes a string)',
        schema: 'link-carecontext-request',
        doc: edit(linkRequest, ['careContexts', 0, 'bundleData', 'medications', 0, 'frequency'], { morning: 1, night: 1 }),
        issues: [['/careContexts/0/bundleData/medications/0/frequency', 'type']],
      },
    ]),
  );
  it('an unknown key shown on request (revealKeys) is escaped in the JSON Pointer path', () => {
    const r = validate('token-request', { apiKey: 'k', 'a/b~c': 1 }, { revealKeys: true });
    expect(r.success ? [] : r.issues.map((i) => [i.path, i.code])).toEqual([['/a~1b~0c', 'unknown-field']]);
  });
  runValid(
    valid([
      ...ENDPOINT_CASES.map((e) => ({
        title: `§${e.section} ${e.id} response tolerates an unknown top-level field`,
        schema: res(e.id),
        doc: { ...(e.response.full as object), unexpectedField: 'x' },
      })),
      { title: '§2 response envelope tolerates an unknown field', schema: 'response-envelope', doc: { ...responseEnvelope, code: 200 } },
      { title: '§2 token envelope tolerates an unknown field', schema: 'token-envelope', doc: { ...tokenEnvelope, code: 200 } },
      { title: '§2 session tokens tolerate an unknown field', schema: 'session-tokens', doc: { ...sessionTokens, tokenType: 'Bearer' } },
      { title: '§2 account summary tolerates an unknown field', schema: 'account-summary', doc: { ...accountSummary, mobile: 'xxxxxx2345' } },
      { title: '§2 ABHA profile tolerates an unknown field', schema: 'abha-profile', doc: { ...abhaProfile, townName: 'Sample Town' } },
      { title: '§2 ABHA address profile tolerates an unknown field', schema: 'abha-address-profile', doc: { ...abhaAddressProfile, email: 'x@example.org' } },
      { title: '§2 account profile tolerates an unknown field', schema: 'account-profile', doc: { ...accountProfile, middleName: 'K' } },
      { title: '§2 user tolerates an unknown field', schema: 'user', doc: { ...user, gender: 'M' } },
      { title: '§2 search result item tolerates an unknown field', schema: 'search-result-item', doc: { ...searchResultItem, count: 2 } },
      { title: '§2 search account entry tolerates an unknown field', schema: 'search-account-entry', doc: { ...searchAccountEntry, mobile: 'xxxxxx2345' } },
      { title: '§4.4 response tolerates an unknown field inside an account summary', schema: 'verify-otp-response', doc: edit(verifyOtpResponse, ['data', 'accounts', 0, 'verifiedAt'], 'x') },
      {
        title: '§4.5 response tolerates refresh-token fields the spec says do not appear',
        schema: 'mobile-login-verify-otp-response',
        doc: edit(mobileLoginResponse, ['data', 'refreshToken'], JWT_REFRESH),
      },
      {
        title: '§4.8 response tolerates an unknown field inside tokens',
        schema: 'abha-address-login-verify-otp-response',
        doc: edit(abhaAddressLoginResponse, ['data', 'tokens', 'tokenType'], 'Bearer'),
      },
      { title: '§4.9 response tolerates an unknown field inside ABHAProfile', schema: 'enroll-verify-otp-response', doc: edit(enrollResponse, ['data', 'ABHAProfile', 'kycPhoto'], PHOTO) },
      { title: '§4.2 response tolerates an unknown field inside an account entry', schema: 'search-abha-response', doc: edit(searchAbhaResponse, ['data', 0, 'ABHA', 0, 'mobile'], 'xxxxxx2345') },
    ]),
  );
});

describe('empty required strings', () => {
  const SITES: ReadonlyArray<[section: string, schema: SchemaName, base: unknown, at: Path]> = [
    ['4.1', 'token-request', tokenRequest, ['apiKey']],
    ['4.3', 'request-otp-request', requestOtpRequest, ['loginHint']],
    ['4.3', 'request-otp-request', requestOtpRequest, ['otpSystem']],
    ['4.3', 'request-otp-request', requestOtpRequest, ['loginId']],
    ['4.3', 'request-otp-request', requestOtpRequest, ['txnId']],
    ['4.3', 'request-otp-request', requestOtpRequest, ['scope', 1]],
    ['4.4', 'verify-otp-request', verifyOtpRequest, ['txnId']],
    ['4.4', 'verify-otp-request', verifyOtpRequest, ['scope', 0]],
    ['4.5', 'mobile-login-verify-otp-request', mobileLoginRequest, ['txnId']],
    ['4.6', 'mobile-login-abha-number-verify-otp-request', mobileLoginRequest, ['txnId']],
    ['4.7', 'aadhar-number-login-verify-otp-request', otpValueRequest, ['txnId']],
    ['4.8', 'abha-address-login-verify-otp-request', otpValueRequest, ['txnId']],
    ['4.9', 'enroll-verify-otp-request', otpValueRequest, ['txnId']],
    ['4.12', 'link-carecontext-request', linkRequest, ['abhaAddress']],
    ['4.12', 'link-carecontext-request', linkRequest, ['hipId']],
    ['4.12', 'link-carecontext-request', linkRequest, ['hospitalName']],
    ['4.12', 'link-carecontext-request', linkRequest, ['visitId']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'referenceNumber']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'display']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'hiType']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'hospital', 'name']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'hospital', 'id']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'doctor', 'name']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'diagnosis', 0, 'diagnosisName']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'medications', 0, 'drugName']],
    ['4.12', 'link-carecontext-request', linkRequest, ['careContexts', 0, 'bundleData', 'labInvestigations', 0, 'testName']],
  ];
  runInvalid(
    invalid(
      SITES.map(([section, schema, base, at]) => ({
        title: `§${section} ${schema} rejects an empty ${ptr(at)}`,
        schema,
        doc: edit(base, at, ''),
        issues: [[ptr(at), 'empty']] as const,
      })),
    ),
  );

  // An empty session token is no token: §4.11 marks it required.
  it.each([
    ['4.10', 'fetch-abha-address-profile-request'],
    ['4.11', 'get-profile-request'],
  ] as const)('§%s %s rejects an empty session token', (_section, schema) => {
    expect(issuesOf(schema, { token: '' })).toEqual([['/token', 'empty']]);
  });
});

describe('bounds (abha-link choices; the spec gives none): too-long strings and too many items', () => {
  const s = (n: number, c = 'a') => c.repeat(n);
  const scope = (n: number) => Array.from({ length: n }, (_, i) => `scope-${i}`);
  const accounts = (n: number) => Array.from({ length: n }, () => accountSummary);
  runValid(
    valid([
      { title: '§4.1 accepts an apiKey of exactly 1024 characters', schema: 'token-request', doc: { apiKey: s(1024) } },
      { title: '§4.12 accepts a hospitalName of exactly 255 characters', schema: 'link-carecontext-request', doc: { ...linkRequest, hospitalName: s(255) } },
      { title: '§4.3 accepts 10 scopes', schema: 'request-otp-request', doc: { ...requestOtpRequest, scope: scope(10) } },
      {
        title: '§4.12 accepts 100 care contexts',
        schema: 'link-carecontext-request',
        doc: { ...linkRequest, careContexts: Array.from({ length: 100 }, () => careContextMinimal) },
      },
    ]),
  );
  runInvalid(
    invalid([
      { title: '§4.1 rejects an apiKey of 1025 characters', schema: 'token-request', doc: { apiKey: s(1025) }, issues: [['/apiKey', 'too-long']] },
      { title: '§4.4 rejects a txnId of 129 characters', schema: 'verify-otp-request', doc: { ...verifyOtpRequest, txnId: s(129) }, issues: [['/txnId', 'too-long']] },
      { title: '§4.3 rejects a scope entry of 65 characters', schema: 'request-otp-request', doc: { ...requestOtpRequest, scope: [s(65)] }, issues: [['/scope/0', 'too-long']] },
      { title: '§4.11 rejects a session token of 16385 characters', schema: 'get-profile-request', doc: { token: s(16385) }, issues: [['/token', 'too-long']] },
      { title: '§4.12 rejects a hospitalName of 256 characters', schema: 'link-carecontext-request', doc: { ...linkRequest, hospitalName: s(256) }, issues: [['/hospitalName', 'too-long']] },
      { title: '§4.12 rejects a visitId of 129 characters', schema: 'link-carecontext-request', doc: { ...linkRequest, visitId: s(129) }, issues: [['/visitId', 'too-long']] },
      {
        title: '§4.12 rejects a care-context display of 1025 characters',
        schema: 'link-carecontext-request',
        doc: edit(linkRequest, ['careContexts', 0, 'display'], s(1025)),
        issues: [['/careContexts/0/display', 'too-long']],
      },
      {
        title: '§4.12 rejects advice of 4001 characters',
        schema: 'link-carecontext-request',
        doc: edit(linkRequest, ['careContexts', 1, 'bundleData', 'advice'], s(4001)),
        issues: [['/careContexts/1/bundleData/advice', 'too-long']],
      },
      {
        title: '§4.12 counts characters, not UTF-16 units: 256 Devanagari letters are too long for hospitalName',
        schema: 'link-carecontext-request',
        doc: { ...linkRequest, hospitalName: s(256, 'अ') },
        issues: [['/hospitalName', 'too-long']],
      },
      { title: '§2 rejects a response message of 4097 characters', schema: 'response-envelope', doc: { success: false, message: s(4097) }, issues: [['/message', 'too-long']] },
      {
        title: '§4.4 rejects an account-summary name of 256 characters',
        schema: 'verify-otp-response',
        doc: edit(verifyOtpResponse, ['data', 'accounts', 0, 'name'], s(256)),
        issues: [['/data/accounts/0/name', 'too-long']],
      },
      { title: '§4.3 rejects 11 scopes', schema: 'request-otp-request', doc: { ...requestOtpRequest, scope: scope(11) }, issues: [['/scope', 'too-many-items']] },
      {
        title: '§4.12 rejects 101 care contexts',
        schema: 'link-carecontext-request',
        doc: { ...linkRequest, careContexts: Array.from({ length: 101 }, () => careContextMinimal) },
        issues: [['/careContexts', 'too-many-items']],
      },
      {
        title: '§4.12 rejects 201 diagnoses in one bundleData',
        schema: 'link-carecontext-request',
        doc: edit(
          linkRequest,
          ['careContexts', 0, 'bundleData', 'diagnosis'],
          Array.from({ length: 201 }, () => diagnosis),
        ),
        issues: [['/careContexts/0/bundleData/diagnosis', 'too-many-items']],
      },
      { title: '§4.2 rejects 101 search result items', schema: 'search-abha-response', doc: ok(Array.from({ length: 101 }, () => searchResultItem)), issues: [['/data', 'too-many-items']] },
      { title: '§4.4 rejects 101 accounts', schema: 'verify-otp-response', doc: edit(verifyOtpResponse, ['data', 'accounts'], accounts(101)), issues: [['/data/accounts', 'too-many-items']] },
      { title: '§2 rejects 21 authMethods in an account profile', schema: 'account-profile', doc: { authMethods: scope(21) }, issues: [['/authMethods', 'too-many-items']] },
      { title: '§2 rejects 101 phrAddress entries in an ABHA profile', schema: 'abha-profile', doc: { phrAddress: scope(101) }, issues: [['/phrAddress', 'too-many-items']] },
      { title: '§2 rejects a negative expiresIn', schema: 'session-tokens', doc: { ...sessionTokens, expiresIn: -1 }, issues: [['/expiresIn', 'out-of-range']] },
      { title: '§2 rejects a negative search index', schema: 'search-account-entry', doc: { index: -1 }, issues: [['/index', 'out-of-range']] },
    ]),
  );
});

describe('abha-link choices stricter than the spec (§4.12 gives these as plain strings)', () => {
  runInvalid(
    invalid([
      {
        title: 'hospital.email must be an email address',
        schema: 'link-carecontext-request',
        doc: edit(linkRequest, ['careContexts', 0, 'bundleData', 'hospital', 'email'], 'records at chc'),
        issues: [['/careContexts/0/bundleData/hospital/email', 'invalid-email']],
      },
      {
        title: 'documentUrl must be an absolute URI',
        schema: 'link-carecontext-request',
        doc: edit(linkRequest, ['careContexts', 0, 'bundleData', 'documentUrl'], 'visits/V-0001.pdf'),
        issues: [['/careContexts/0/bundleData/documentUrl', 'invalid-uri']],
      },
    ]),
  );
});

describe('response envelopes (§2, §7)', () => {
  runValid(
    valid(
      STANDARD_RESPONSES.flatMap((e) => [
        { title: `§${e.section} ${e.id} response: success false with data null is accepted`, schema: res(e.id), doc: { success: false, message: 'Something went wrong', data: null } },
        { title: `§${e.section} ${e.id} response: success false without data is accepted`, schema: res(e.id), doc: { success: false, message: 'Something went wrong' } },
        { title: `§${e.section} ${e.id} response: success false with an unchecked data shape is accepted`, schema: res(e.id), doc: { success: false, data: 'error text' } },
      ]),
    ),
  );
  runInvalid(
    invalid([
      ...TYPED_DATA_RESPONSES.flatMap((e) => [
        { title: `§${e.section} ${e.id} response: success true with data 42 is rejected at /data`, schema: res(e.id), doc: ok(42), issues: [['/data', 'type']] as const },
        { title: `§${e.section} ${e.id} response: success true with data null is rejected at /data`, schema: res(e.id), doc: ok(null), issues: [['/data', 'type']] as const },
        {
          title: `§${e.section} ${e.id} response: success true with data of the wrong container type is rejected at /data`,
          schema: res(e.id),
          doc: ok(e.id === 'search-abha' ? {} : []),
          issues: [['/data', 'type']] as const,
        },
      ]),
      ...STANDARD_RESPONSES.flatMap((e) => [
        { title: `§${e.section} ${e.id} response uses success, not status`, schema: res(e.id), doc: { status: true, message: 'x' }, issues: [['/success', 'required']] as const },
        { title: `§${e.section} ${e.id} response: success "true" (a string) is rejected`, schema: res(e.id), doc: { success: 'true' }, issues: [['/success', 'type']] as const },
      ]),
      { title: '§4.1 token response uses status, not success', schema: 'token-response', doc: { success: true, message: 'x', data: JWT_BEARER }, issues: [['/status', 'required']] },
      { title: '§4.1 token response: status "true" (a string) is rejected', schema: 'token-response', doc: { status: 'true', data: JWT_BEARER }, issues: [['/status', 'type']] },
      { title: '§4.1 token response: data an object instead of the JWT string', schema: 'token-response', doc: { status: true, data: { token: JWT_BEARER } }, issues: [['/data', 'type']] },
      {
        title: '§4.9 response: success true with a wrongly typed nested field is rejected at a path under /data',
        schema: 'enroll-verify-otp-response',
        doc: edit(enrollResponse, ['data', 'ABHAProfile', 'phrAddress'], 'test.patient.two@sbx'),
        issues: [['/data/ABHAProfile/phrAddress', 'type']],
      },
    ]),
  );
  runValid(
    valid([
      { title: '§4.1 token response: status false with a message and no data is accepted', schema: 'token-response', doc: { status: false, message: 'Invalid API key' } },
      { title: '§4.12 response: success true with data null is accepted (shape not shown)', schema: 'link-carecontext-response', doc: ok(null) },
    ]),
  );

  // The spec does not show the error body (§7); both envelopes treat a
  // failed outcome alike and check data only on success.
  it.each([['token-response'], ['token-envelope']] as const)('§4.1 %s: status false with data null is accepted like a failed standard envelope', (schema) => {
    expect(issuesOf(schema, { status: false, message: 'Invalid API key', data: null })).toEqual([]);
  });
});

describe("abha-link's own builder inputs (not part of the service spec)", () => {
  const visit = { id: 'V-0001', at: '2026-11-20T10:30:00+05:30' };
  const patient = { abhaAddress: 'test.patient.one@sbx' };
  const clinicalMin = { hospital: { name: 'Sample Clinic', id: 'IN0000000002' }, doctor: { name: 'Dr. Test' }, patient, visit };
  const clinicalFull = {
    hipId: 'IN0000000001',
    hospital,
    doctor,
    patient: { ...patient, ABHANumber: '91-1000-2000-3001', name: 'Test Patient One', gender: 'M', birthDate: '1990-01-15', age: 36 },
    visit: { ...visit, timeZone: 'Asia/Kolkata', followUp: 'Review after 5 days' },
    careContexts: [
      {
        hiType: 'Prescription',
        referenceNumber: 'V-0001-Rx',
        display: 'Prescription',
        doctor,
        diagnosis: [diagnosis],
        medications: [{ drugName: 'Amoxicillin 500 mg', frequency: { morning: 1, night: 1 }, duration: { value: 5, unit: 'days' } }],
      },
      { labInvestigations: [labInvestigation], advice: 'Rest.', documentUrl: 'https://records.chc.example.org/v.pdf' },
    ],
  };
  runValid(
    valid([
      { title: 'duration input: minimal', schema: 'duration-input', doc: { value: 5, unit: 'days' } },
      { title: 'duration input: fractional value', schema: 'duration-input', doc: { value: 1.5, unit: 'week' } },
      { title: 'frequency input: minimal (empty)', schema: 'frequency-input', doc: {} },
      { title: 'frequency input: full', schema: 'frequency-input', doc: { morning: 1, afternoon: 0, evening: 0.5, night: 1 } },
      { title: 'medication input: minimal', schema: 'medication-input', doc: { drugName: 'ORS' } },
      { title: 'medication input: structured frequency and duration', schema: 'medication-input', doc: { ...medication, frequency: { morning: 1 }, duration: { value: 3, unit: 'days' } } },
      { title: 'medication input: text frequency and duration', schema: 'medication-input', doc: medication },
      { title: 'patient input: minimal', schema: 'patient-input', doc: patient },
      { title: 'patient input: full', schema: 'patient-input', doc: clinicalFull.patient },
      {
        title: 'patient input: printed details (mobile, address, weight, height, vitals)',
        schema: 'patient-input',
        doc: { ...patient, mobile: '9876543210', address: '1 Main Road', weight: 64.5, height: 158, vitals: { bloodPressure: '120/80', pulse: 72, temperature: 98.6, spo2: 98, respiratoryRate: 16 } },
      },
      { title: 'hospital input: with address', schema: 'hospital-input', doc: { ...hospital, address: '1 Main Road, Pune' } },
      { title: 'doctor input: with registration particulars', schema: 'doctor-input', doc: { ...doctor, qualification: 'MBBS', specialty: 'Physician', council: 'Maharashtra Medical Council' } },
      { title: 'vitals input: minimal (empty)', schema: 'vitals-input', doc: {} },
      { title: 'guardian input: name and relation', schema: 'guardian-input', doc: { name: 'Lakshmi Rao', relation: 'mother' } },
      { title: 'hospital input: a GSTIN', schema: 'hospital-input', doc: { name: 'Clinic', id: 'IN2910000123', gstin: '29AAACS1234K1Z5' } },
      {
        title: 'medication input: generic name, strength, form and route',
        schema: 'medication-input',
        doc: { drugName: 'Glycomet 500', genericName: 'Metformin', strength: '500 mg', form: 'tablet', route: 'oral' },
      },
      { title: 'visit input: minimal', schema: 'visit-input', doc: visit },
      { title: 'visit input: full', schema: 'visit-input', doc: clinicalFull.visit },
      { title: 'bundle-data input: minimal', schema: 'bundle-data-input', doc: bundleDataMinimal },
      { title: 'bundle-data input: full', schema: 'bundle-data-input', doc: bundleData },
      { title: 'care-context input: minimal (empty)', schema: 'care-context-input', doc: {} },
      { title: 'care-context input: full', schema: 'care-context-input', doc: clinicalFull.careContexts[0] },
      { title: 'care-context build input: minimal', schema: 'care-context-build-input', doc: { ...bundleDataMinimal, visitId: 'V-1', visitDate: '2026-11-20' } },
      { title: 'care-context build input: full', schema: 'care-context-build-input', doc: { ...bundleData, hiType: 'Prescription', visitId: 'V-1', visitDate: '2026-11-20', occurrence: 2 } },
      { title: 'clinical input: minimal', schema: 'clinical-input', doc: clinicalMin },
      { title: 'clinical input: full', schema: 'clinical-input', doc: clinicalFull },
    ]),
  );
  runInvalid(
    invalid([
      { title: 'duration input: value 0', schema: 'duration-input', doc: { value: 0, unit: 'days' }, issues: [['/value', 'out-of-range']] },
      { title: 'duration input: an unknown unit', schema: 'duration-input', doc: { value: 2, unit: 'fortnight' }, issues: [['/unit', 'not-allowed']] },
      { title: 'duration input: no unit', schema: 'duration-input', doc: { value: 2 }, issues: [['/unit', 'required']] },
      { title: 'frequency input: an unknown slot', schema: 'frequency-input', doc: { morning: 1, noon: 1 }, issues: [['/#1', 'unknown-field']] },
      { title: 'frequency input: a dose as text', schema: 'frequency-input', doc: { morning: '1' }, issues: [['/morning', 'type']] },
      { title: 'frequency input: more than 100 doses', schema: 'frequency-input', doc: { night: 101 }, issues: [['/night', 'out-of-range']] },
      { title: 'medication input: frequency a number', schema: 'medication-input', doc: { drugName: 'X', frequency: 2 }, issues: [['/frequency', 'type']] },
      {
        title: 'diagnosis input: a SNOMED CT concept without its term',
        schema: 'diagnosis-input',
        doc: { diagnosisName: 'X', snomed: { code: '44054006' } },
        issues: [['/snomed/display', 'required']],
      },
      { title: 'diagnosis input: an empty icdTitle', schema: 'diagnosis-input', doc: { diagnosisName: 'X', icdCode: 'E11.9', icdTitle: '' }, issues: [['/icdTitle', 'empty']] },
      { title: 'medication input: dose pattern with a text dose', schema: 'medication-input', doc: { drugName: 'X', frequency: { morning: 'one' } }, issues: [['/frequency/morning', 'type']] },
      { title: 'patient input: birthDate 30 February', schema: 'patient-input', doc: { ...patient, birthDate: '2026-02-30' }, issues: [['/birthDate', 'invalid-date']] },
      { title: 'patient input: negative age', schema: 'patient-input', doc: { ...patient, age: -1 }, issues: [['/age', 'out-of-range']] },
      { title: 'patient input: a mobile of 9 digits', schema: 'patient-input', doc: { ...patient, mobile: '987654321' }, issues: [['/mobile', 'invalid-mobile']] },
      { title: 'hospital input: an empty address', schema: 'hospital-input', doc: { ...hospital, address: '' }, issues: [['/address', 'empty']] },
      { title: 'doctor input: a council that is a number', schema: 'doctor-input', doc: { ...doctor, council: 7 }, issues: [['/council', 'type']] },
      { title: 'vitals input: SpO2 above 100', schema: 'vitals-input', doc: { spo2: 101 }, issues: [['/spo2', 'out-of-range']] },
      { title: 'guardian input: no name', schema: 'guardian-input', doc: { relation: 'mother' }, issues: [['/name', 'required']] },
      { title: 'hospital input: a GSTIN of 14 characters', schema: 'hospital-input', doc: { name: 'Clinic', id: 'IN2910000123', gstin: '29AAACS1234K1Z' }, issues: [['/gstin', 'invalid-gstin']] },
      { title: 'visit input: at not a date-time', schema: 'visit-input', doc: { id: 'V', at: 'yesterday' }, issues: [['/at', 'invalid-datetime']] },
      {
        title: 'bundle-data input: empty object',
        schema: 'bundle-data-input',
        doc: {},
        issues: [
          ['/hospital', 'required'],
          ['/doctor', 'required'],
        ],
      },
      { title: 'care-context input: documentUrl not a URI', schema: 'care-context-input', doc: { documentUrl: 'not a url' }, issues: [['/documentUrl', 'invalid-uri']] },
      {
        title: 'care-context build input: visitDate 2026-13-01',
        schema: 'care-context-build-input',
        doc: { ...bundleDataMinimal, visitId: 'V-1', visitDate: '2026-13-01' },
        issues: [['/visitDate', 'invalid-date']],
      },
      { title: 'clinical input: unknown field', schema: 'clinical-input', doc: { ...clinicalMin, notes: 'x' }, issues: [[unknownKey({ ...clinicalMin, notes: 'x' }, [], 'notes'), 'unknown-field']] },
      {
        title: 'clinical input: empty object',
        schema: 'clinical-input',
        doc: {},
        issues: ['hospital', 'doctor', 'patient', 'visit'].map((f) => [`/${f}`, 'required'] as const),
      },
    ]),
  );
});

describe('discharge summary and immunisation input schemas', () => {
  const stay = {
    admittedAt: '2026-11-15T21:40:00+05:30',
    dischargedAt: '2026-11-18T11:00:00+05:30',
    reasonForAdmission: 'Acute appendicitis',
    chiefComplaints: ['Pain in the right lower abdomen'],
    presentIllness: 'Pain since yesterday.',
    pastHistory: ['Childhood asthma'],
    allergies: ['Sulfonamides'],
    examinationFindings: [{ name: 'Pulse', value: 104, unit: '/min' }, { name: 'Abdomen', value: 'Guarding in the right iliac fossa' }, { name: 'Pallor' }],
    procedures: [{ name: 'Laparoscopic appendicectomy', code: { code: '6025007', display: 'Laparoscopic appendectomy' }, date: '2026-11-16', notes: 'Uneventful' }],
    investigations: [
      {
        testName: 'Haemoglobin',
        code: { code: '718-7', display: 'Hemoglobin [Mass/volume] in Blood' },
        value: 13.4,
        unit: 'g/dL',
        referenceRange: '13-17 g/dL',
        interpretation: 'Normal',
        date: '2026-11-15',
      },
    ],
    courseInHospital: 'Uneventful.',
    conditionAtDischarge: 'Stable',
  };
  const dose = {
    vaccine: 'Tdap',
    vaccineCode: { code: '871878002', display: 'Vaccine product containing only Bordetella pertussis and Clostridium tetani and Corynebacterium diphtheriae antigens' },
    doseNumber: 1,
    date: '2026-11-20',
    lotNumber: 'L1',
    manufacturer: 'M',
    site: 'Left deltoid',
    route: 'Intramuscular',
    nextDue: '2027-11-20',
  };
  runValid(
    valid([
      { title: 'SNOMED CT coding input: a concept id and its term', schema: 'snomed-coding-input', doc: { code: '80146002', display: 'Appendectomy' } },
      { title: 'LOINC coding input: a code and its name', schema: 'loinc-coding-input', doc: { code: '718-7', display: 'Hemoglobin [Mass/volume] in Blood' } },
      { title: 'finding input: a name alone', schema: 'finding-input', doc: { name: 'Pallor' } },
      { title: 'procedure input: a name alone', schema: 'procedure-input', doc: { name: 'Dressing' } },
      { title: 'investigation input: a result in words', schema: 'investigation-input', doc: { testName: 'Blood culture', value: 'No growth after 48 hours' } },
      { title: 'inpatient stay input: the admission alone', schema: 'inpatient-stay-input', doc: { admittedAt: '2026-11-15' } },
      { title: 'inpatient stay input: full', schema: 'inpatient-stay-input', doc: stay },
      { title: 'immunization input: minimal', schema: 'immunization-input', doc: { vaccine: 'BCG', date: '2026-11-20' } },
      { title: 'immunization input: full, dose number in words', schema: 'immunization-input', doc: { ...dose, doseNumber: 'Booster' } },
      { title: 'care-context input: an inpatient stay and immunizations', schema: 'care-context-input', doc: { inpatientStay: stay, immunizations: [dose] } },
    ]),
  );
  runInvalid(
    invalid([
      { title: 'SNOMED CT coding input: a code with letters', schema: 'snomed-coding-input', doc: { code: 'K35.8', display: 'x' }, issues: [['/code', 'invalid-snomed-code']] },
      { title: 'LOINC coding input: no check digit', schema: 'loinc-coding-input', doc: { code: '718', display: 'x' }, issues: [['/code', 'invalid-loinc-code']] },
      { title: 'LOINC coding input: without its display', schema: 'loinc-coding-input', doc: { code: '718-7' }, issues: [['/display', 'required']] },
      { title: 'finding input: a value that is neither a number nor words', schema: 'finding-input', doc: { name: 'Pulse', value: true }, issues: [['/value', 'type']] },
      { title: 'procedure input: no name', schema: 'procedure-input', doc: { date: '2026-11-16' }, issues: [['/name', 'required']] },
      { title: 'investigation input: a date that is not one', schema: 'investigation-input', doc: { testName: 'CBC', date: 'yesterday' }, issues: [['/date', 'invalid-datetime']] },
      { title: 'inpatient stay input: no admission', schema: 'inpatient-stay-input', doc: { dischargedAt: '2026-11-18' }, issues: [['/admittedAt', 'required']] },
      {
        title: 'inpatient stay input: a procedure code with letters, at its path',
        schema: 'inpatient-stay-input',
        doc: { admittedAt: '2026-11-15', procedures: [{ name: 'X', code: { code: 'abc', display: 'X' } }] },
        issues: [['/procedures/0/code/code', 'invalid-snomed-code']],
      },
      { title: 'immunization input: no date', schema: 'immunization-input', doc: { vaccine: 'BCG' }, issues: [['/date', 'required']] },
      { title: 'immunization input: dose number 0', schema: 'immunization-input', doc: { vaccine: 'BCG', date: '2026-11-20', doseNumber: 0 }, issues: [['/doseNumber', 'out-of-range']] },
      { title: 'immunization input: nextDue 31 June', schema: 'immunization-input', doc: { vaccine: 'BCG', date: '2026-11-20', nextDue: '2027-06-31' }, issues: [['/nextDue', 'invalid-date']] },
    ]),
  );
});

describe('issues never contain input values', () => {
  const SECRET = 'SECRET-9876543210';
  const CASES: ReadonlyArray<[title: string, schema: SchemaName, doc: unknown]> = [
    ['§4.2 secret as the mobile', 'search-abha-request', { mobile: SECRET }],
    ['§4.4 secret as the otp', 'verify-otp-request', { ...verifyOtpRequest, otp: SECRET }],
    ['§4.7 secret as the otpValue and the mobile', 'aadhar-number-login-verify-otp-request', { txnId: TXN, otpValue: SECRET, mobile: SECRET }],
    ['§4.12 secret as the visitDate', 'link-carecontext-request', { ...linkRequest, visitDate: SECRET }],
    ['§4.12 secret as the value of an unknown field', 'link-carecontext-request', { ...linkRequest, note: SECRET }],
    ['§4.12 secret inside an over-long hospitalName', 'link-carecontext-request', { ...linkRequest, hospitalName: SECRET.repeat(20) }],
    ['§4.12 secret as a documentUrl', 'link-carecontext-request', edit(linkRequest, ['careContexts', 0, 'bundleData', 'documentUrl'], SECRET)],
    ['§4.1 secret inside an over-long apiKey', 'token-request', { apiKey: SECRET.repeat(70) }],
    ['§4.11 secret as the profile mobile', 'get-profile-response', edit(getProfileResponse, ['data', 'mobile'], SECRET)],
    ['§4.4 secret as a kycVerified string', 'verify-otp-response', edit(verifyOtpResponse, ['data', 'accounts', 0, 'kycVerified'], SECRET)],
    ['§4.2 secret as a search index', 'search-abha-response', edit(searchAbhaResponse, ['data', 0, 'ABHA', 0, 'index'], SECRET)],
    ['§4.1 secret as the token status', 'token-response', { status: SECRET, data: SECRET }],
    ['a secret as the whole document', 'token-request', SECRET],
  ];
  it.each(CASES)('%s: validate issues do not contain it', (_title, schema, doc) => {
    const r = validate(schema, doc);
    expect(r.success).toBe(false);
    const text = JSON.stringify(r.issues);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('9876543210');
  });
  it.each(CASES)('%s: the assertValid error does not contain it', (_title, schema, doc) => {
    let caught: unknown;
    try {
      assertValid(schema, doc);
    } catch (e) {
      caught = e;
    }
    expect(isValidationError(caught)).toBe(true);
    if (!isValidationError(caught)) return;
    expect(caught.message).not.toContain('9876543210');
    expect(JSON.stringify(caught.issues)).not.toContain('9876543210');
  });
});

describe('coverage of this file', () => {
  it('the schema list holds a request and a response schema for each of the 12 endpoints of §4', () => {
    for (const e of ENDPOINT_CASES) {
      expect(SCHEMA_NAMES).toContain(req(e.id));
      expect(SCHEMA_NAMES).toContain(res(e.id));
    }
    expect(ENDPOINT_CASES).toHaveLength(12);
  });
  it('the schema list holds every resource of §2', () => {
    for (const n of [
      'response-envelope',
      'token-envelope',
      'session-tokens',
      'account-summary',
      'abha-profile',
      'abha-address-profile',
      'account-profile',
      'user',
      'search-result-item',
      'search-account-entry',
    ]) {
      expect(SCHEMA_NAMES).toContain(n);
    }
  });
  it('every schema has at least one valid and one invalid document above', () => {
    expect(SCHEMA_NAMES.filter((n) => !coveredValid.has(n))).toEqual([]);
    expect(SCHEMA_NAMES.filter((n) => !coveredInvalid.has(n))).toEqual([]);
  });
});

describe('wellness and invoice input: valid and invalid documents', () => {
  const line = { item: 'Paracetamol 500 mg', code: '05', quantity: 10, unitPrice: 2, tax: { rate: 12, kind: 'CGST+SGST' }, total: 22.4 };
  const invoice = {
    number: 'INV-1',
    date: '2026-11-20',
    type: '01',
    currency: 'INR',
    lines: [line],
    total: 22.4,
    payment: { method: 'UPI', amountPaid: 22.4, date: '2026-11-20', reference: 'UPI-1' },
  };
  const observations = {
    at: '2026-11-20T10:30:00+05:30',
    bloodPressure: { systolic: 128, diastolic: 84 },
    pulse: 72,
    temperature: { value: 98.6, unit: '[degF]' },
    spo2: { value: 98, at: '2026-11-20T10:35:00+05:30' },
    respiratoryRate: 16,
    height: 162,
    weight: 61.5,
    bmi: 23.4,
    lifestyle: { smoking: 'Never smoked', alcohol: 'Occasional', tobaccoChewing: 'None', diet: 'Vegetarian', physicalActivity: '30 min walk daily' },
  };
  runValid(
    valid([
      { title: 'measurement input: value and time', schema: 'measurement-input', doc: { value: 72, at: '2026-11-20T10:30' } },
      { title: 'blood pressure input: systolic and diastolic', schema: 'blood-pressure-input', doc: { systolic: 120, diastolic: 80 } },
      { title: 'temperature input: in Fahrenheit', schema: 'temperature-input', doc: { value: 99.1, unit: '[degF]' } },
      { title: 'lifestyle input: empty', schema: 'lifestyle-input', doc: {} },
      { title: 'observations input: every field', schema: 'observations-input', doc: observations },
      { title: 'invoice tax input: a rate', schema: 'invoice-tax-input', doc: { rate: 5 } },
      { title: 'invoice line input: minimal', schema: 'invoice-line-input', doc: { item: 'Consultation', quantity: 1, unitPrice: 500, total: 500 } },
      { title: 'payment input: minimal', schema: 'payment-input', doc: { method: 'Cash', amountPaid: 0 } },
      { title: 'invoice input: full', schema: 'invoice-input', doc: invoice },
      { title: 'care-context input: observations and an invoice', schema: 'care-context-input', doc: { observations, invoice } },
    ]),
  );
  runInvalid(
    invalid([
      { title: 'measurement input: value 0', schema: 'measurement-input', doc: { value: 0 }, issues: [['/value', 'out-of-range']] },
      { title: 'blood pressure input: no diastolic', schema: 'blood-pressure-input', doc: { systolic: 120 }, issues: [['/diastolic', 'required']] },
      { title: 'temperature input: a unit that is not UCUM', schema: 'temperature-input', doc: { value: 37, unit: 'C' }, issues: [['/unit', 'not-allowed']] },
      { title: 'lifestyle input: an unknown field', schema: 'lifestyle-input', doc: { sleep: '7 h' }, issues: [['/#0', 'unknown-field']] },
      { title: 'observations input: SpO2 above 100', schema: 'observations-input', doc: { spo2: 101 }, issues: [['/spo2', 'out-of-range']] },
      { title: 'invoice tax input: a negative rate', schema: 'invoice-tax-input', doc: { rate: -5 }, issues: [['/rate', 'out-of-range']] },
      { title: 'invoice line input: no total', schema: 'invoice-line-input', doc: { item: 'X', quantity: 1, unitPrice: 1 }, issues: [['/total', 'required']] },
      { title: 'payment input: no method', schema: 'payment-input', doc: { amountPaid: 1 }, issues: [['/method', 'required']] },
      { title: 'invoice input: no lines', schema: 'invoice-input', doc: { ...invoice, lines: [] }, issues: [['/lines', 'too-few-items']] },
    ]),
  );
});
