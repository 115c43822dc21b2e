/**
 * The machine-readable definition of the ABHA identity and care-context linking
 * service (`shared/spec/abha-linking-service.md`). Everything the library ships
 * about the service's shapes is generated from this one value by
 * `npm run schemas`: the JSON Schemas in `schemas/`, the TypeScript types in
 * `src/generated/types.ts` and the standalone validators in
 * `src/generated/validators.ts`.
 *
 * The value is plain JSON-compatible data: no functions, no classes. Decisions
 * on what the spec leaves open are recorded in `docs/spec-decisions.md`; the
 * bounds below (maxLength / maxItems) are ours, the spec gives none except the
 * 10-digit mobile and the 6-digit OTP.
 */

/** A named string shape. The key is used in issue codes, the text in messages. */
export interface PatternDef {
  readonly regex: string;
  /** What a person must supply, completing "must be ...". */
  readonly expects: string;
  /** The issue code used when a value does not match. */
  readonly code: string;
}

export const PATTERNS = {
  mobile: { regex: '^[0-9]{10}$', expects: 'exactly 10 digits', code: 'invalid-mobile' },
  otp: { regex: '^[0-9]{6}$', expects: 'exactly 6 digits', code: 'invalid-otp' },
  datetime: {
    regex: '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-](0[0-9]|1[0-4]):[0-5][0-9])?)?$',
    expects: 'an ISO 8601 date or date-time such as 2026-11-20 or 2026-11-20T10:30:00+05:30',
    code: 'invalid-datetime',
  },
  snomed: { regex: '^[1-9][0-9]{5,17}$', expects: 'a SNOMED CT concept id of 6 to 18 digits, e.g. 80146002', code: 'invalid-snomed-code' },
  loinc: { regex: '^[0-9]{1,7}-[0-9]$', expects: 'a LOINC code such as 718-7', code: 'invalid-loinc-code' },
  gstin: { regex: '^[0-9]{2}[A-Z0-9]{13}$', expects: 'a GSTIN of 15 characters: 2 digits (the state) and 13 capital letters or digits, e.g. 29ABCDE1234F1Z5', code: 'invalid-gstin' },
  hsnSac: { regex: '^[0-9]{4,8}$', expects: 'an HSN or SAC code of 4 to 8 digits, e.g. 3004 or 999312', code: 'invalid-hsn-sac' },
} as const satisfies Record<string, PatternDef>;

export type PatternName = keyof typeof PATTERNS;

/** ajv-formats formats used by the schemas, with their message text. */
export const FORMATS = {
  date: { expects: 'a calendar date YYYY-MM-DD', code: 'invalid-date' },
  email: { expects: 'an email address', code: 'invalid-email' },
  uri: { expects: 'an absolute URI such as https://example.org/doc.pdf', code: 'invalid-uri' },
} as const;

export type FormatName = keyof typeof FORMATS;

export type FieldDef =
  | {
      readonly type: 'string';
      readonly maxLength: number;
      readonly minLength?: number;
      readonly pattern?: PatternName;
      readonly format?: FormatName;
      /** Closed sets; used only in abha-link's own input schemas, never for spec fields. */
      readonly enum?: readonly string[];
      readonly examples?: readonly string[];
      readonly description?: string;
    }
  | {
      readonly type: 'integer';
      readonly minimum?: number;
      readonly maximum?: number;
      readonly examples?: readonly number[];
      readonly description?: string;
    }
  | {
      readonly type: 'number';
      readonly minimum?: number;
      readonly exclusiveMinimum?: number;
      readonly maximum?: number;
      readonly description?: string;
    }
  | { readonly type: 'boolean'; readonly description?: string }
  /** A point in time: an ISO 8601 string in JSON, `Date | string` in TypeScript (builder inputs only). */
  | { readonly type: 'datetime'; readonly description?: string }
  /** One of several shapes, each of a different JSON type (builder inputs only). */
  | { readonly type: 'union'; readonly of: readonly FieldDef[]; readonly description?: string }
  | {
      readonly type: 'array';
      readonly items: FieldDef;
      readonly maxItems: number;
      readonly minItems?: number;
      readonly description?: string;
    }
  /** A reference to a resource of this definition. */
  | { readonly type: 'ref'; readonly ref: ResourceName; readonly description?: string }
  /** An inline object (used for endpoint bodies and response data). */
  | { readonly type: 'object'; readonly object: ObjectDef; readonly description?: string }
  /** Anything: the spec does not show the shape. */
  | { readonly type: 'unknown'; readonly description?: string };

export interface ObjectDef {
  /** Type name in TypeScript (PascalCase). */
  readonly typeName: string;
  readonly properties: Readonly<Record<string, FieldDef>>;
  readonly required: readonly string[];
  /**
   * `closed` objects reject unknown fields (everything we send); open objects
   * tolerate them (everything the service answers).
   */
  readonly closed: boolean;
}

export interface ResourceDef extends ObjectDef {
  /** Schema name, kebab-case; also the file name `schemas/<name>.schema.json`. */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The spec section this resource encodes, e.g. "2" or "4.12" (builder inputs: the section they produce). */
  readonly section: string;
}

/** The names of the resources of §2 and of the care-context parts of §4.12. */
export type ResourceName =
  | 'response-envelope'
  | 'token-envelope'
  | 'session-tokens'
  | 'account-summary'
  | 'abha-profile'
  | 'abha-address-profile'
  | 'account-profile'
  | 'user'
  | 'search-account-entry'
  | 'search-result-item'
  | 'hospital'
  | 'doctor'
  | 'diagnosis'
  | 'medication'
  | 'lab-investigation'
  | 'bundle-data'
  | 'care-context'
  | 'duration-input'
  | 'frequency-input'
  | 'medication-input'
  | 'diagnosis-input'
  | 'patient-input'
  | 'hospital-input'
  | 'doctor-input'
  | 'vitals-input'
  | 'guardian-input'
  | 'visit-input'
  | 'bundle-data-input'
  | 'care-context-input'
  | 'care-context-build-input'
  | 'clinical-input'
  | 'snomed-coding-input'
  | 'loinc-coding-input'
  | 'finding-input'
  | 'procedure-input'
  | 'investigation-input'
  | 'inpatient-stay-input'
  | 'immunization-input'
  // Wellness and invoice input (WellnessRecord, Invoice): src/spec/definition.ts "Wellness and invoice input".
  | 'measurement-input'
  | 'blood-pressure-input'
  | 'temperature-input'
  | 'lifestyle-input'
  | 'observations-input'
  | 'invoice-tax-input'
  | 'invoice-line-input'
  | 'payment-input'
  | 'invoice-input';

export type EnvelopeKind = 'standard' | 'token';

export interface EndpointDef {
  /** Kebab-case id; schema names are `<id>-request` and `<id>-response`. */
  readonly id: string;
  readonly method: 'POST';
  readonly path: string;
  readonly section: string;
  readonly title: string;
  readonly description: string;
  /** `none` for the token endpoint; `bearer` for every other one (spec §5). */
  readonly auth: 'none' | 'bearer';
  /**
   * True when sending the request again changes nothing the first one did not
   * (the token, the search, the profile reads): the client then also retries
   * it after time-outs, lost connections and 5xx. False for the link and OTP
   * calls, which the spec does not say are idempotent (docs/spec-decisions.md).
   */
  readonly idempotent: boolean;
  readonly request: ObjectDef;
  readonly response: {
    readonly envelope: EnvelopeKind;
    /** The shape of `data`. */
    readonly data: FieldDef;
    /**
     * True when a success must carry `data` (the spec shows a payload): the
     * client treats a success without it as off the spec. False when the spec
     * does not show the answer (the link call).
     */
    readonly dataRequired: boolean;
  };
  /** Set when a success returns an ABHA session token (spec §2): its lifetime, and the refresh token's when one comes with it, in seconds. */
  readonly session?: SessionDef;
  /** How the local mock (abha-link/mock) treats the endpoint around its handler. */
  readonly mock?: MockHooks;
}

/** The session token an endpoint returns: lifetimes in seconds (the spec does not state the unit; docs/spec-decisions.md). */
export interface SessionDef {
  readonly ttlSeconds: number;
  /** Present when a refresh token comes with the session token. */
  readonly refreshTtlSeconds?: number;
}

/** The mock's behaviour hooks of an endpoint: data the mock's request pipeline reads (src/mock/endpoints.ts). */
export interface MockHooks {
  /**
   * The endpoint verifies the OTP of a transaction (spec §4.4 to §4.9): the
   * mock runs its one verification step before the handler. `otpField` is the
   * request field holding the OTP; `mobileField`, when set, the field whose
   * mobile must be the transaction's.
   */
  readonly verifiesOtp?: { readonly otpField: string; readonly mobileField?: string };
  /**
   * The mock counts the request under its link-request key as received
   * (`linkCount(key).received`) once it is authenticated and its body valid,
   * before a fault can keep it from being processed.
   */
  readonly countsReceived?: boolean;
}

// ---------------------------------------------------------------------------
// Field shorthands. They return plain data.
// ---------------------------------------------------------------------------

type StrOpts = Omit<Extract<FieldDef, { type: 'string' }>, 'type' | 'maxLength'>;
const str = (maxLength: number, opts: StrOpts = {}): FieldDef => ({ type: 'string', maxLength, ...opts });
const int = (opts: Omit<Extract<FieldDef, { type: 'integer' }>, 'type'> = {}): FieldDef => ({ type: 'integer', ...opts });
const bool = (description?: string): FieldDef => (description === undefined ? { type: 'boolean' } : { type: 'boolean', description });
const arr = (items: FieldDef, maxItems: number, description?: string): FieldDef => (description === undefined ? { type: 'array', items, maxItems } : { type: 'array', items, maxItems, description });
const ref = (r: ResourceName): FieldDef => ({ type: 'ref', ref: r });

/** The largest value of each of the patient's measures at the visit (`patient.vitals`, `weight`, `height`). None of them comes from the spec. */
export const PATIENT_MEASURE_MAXIMA = { pulse: 400, temperature: 115, spo2: 100, respiratoryRate: 200, weight: 500, height: 300 } as const;

/** A patient's body temperature up to this value is in degrees Celsius, above it in degrees Fahrenheit: the two ranges do not overlap. */
export const CELSIUS_UP_TO = 50;

/** Bounds shared by many fields. None of them comes from the spec. */
export const BOUNDS = {
  name: 255,
  id: 128,
  shortText: 255,
  text: 1000,
  longText: 4000,
  message: 4096,
  url: 2048,
  email: 254,
  phone: 32,
  /** Care-context reference and display: generous; lint enforces ABDM's 255. */
  careContextLabel: 1024,
  /** JWTs (bearer and session tokens). */
  jwt: 16384,
  apiKey: 1024,
  /** Base64 photos in profiles. */
  photo: 2_000_000,
  careContexts: 100,
  listItems: 200,
  accounts: 100,
} as const;

const MOBILE = str(10, { pattern: 'mobile', description: 'Mobile number, exactly 10 digits (spec §8).' });
const OTP = str(6, { pattern: 'otp', description: 'One-time password, exactly 6 digits (spec §8).' });
const TXN = str(BOUNDS.id, { minLength: 1, description: 'Transaction id from the previous step.' });
const SCOPE: FieldDef = {
  ...arr(
    str(64, { minLength: 1, examples: ['abha-login', 'abha-enrol'] }),
    10,
    'OTP scopes. The spec gives the examples abha-login and abha-enrol and no list of allowed values (open): send the scopes your ABDM onboarding names for the flow.',
  ),
  minItems: 1,
} as FieldDef;
const JWT = (description: string): FieldDef => str(BOUNDS.jwt, { description });
/** A token we send: required ones must not be empty. */
const SENT_JWT = (description: string): FieldDef => str(BOUNDS.jwt, { minLength: 1, description });

// ---------------------------------------------------------------------------
// Resources (spec §2 and the care-context parts of §4.12)
// ---------------------------------------------------------------------------

/** The spec's three fields of a diagnosis (4.12), shared by the link request's `diagnosis` and the clinical input's. */
const DIAGNOSIS_FIELDS: Record<string, FieldDef> = {
  diagnosisName: str(BOUNDS.name, { minLength: 1 }),
  status: str(64, { examples: ['confirmed'] }),
  icdCode: str(32, { description: 'ICD-10 code, e.g. E11.9 (or an ICD-11 MMS code).' }),
};
const resourceList: readonly (ResourceDef & { readonly name: ResourceName })[] = [
  {
    name: 'response-envelope',
    typeName: 'ResponseEnvelope',
    title: 'Response envelope',
    section: '2',
    description: 'The envelope of every response except the token endpoint: success, message and data.',
    closed: false,
    required: ['success'],
    properties: {
      success: bool('Outcome flag.'),
      message: str(BOUNDS.message),
      data: { type: 'unknown', description: 'Payload; its shape depends on the endpoint (an array for the search endpoint).' },
    },
  },
  {
    name: 'token-envelope',
    typeName: 'TokenEnvelope',
    title: 'Token response envelope',
    section: '2',
    description: 'The envelope of the token endpoint: status, message and data (the JWT bearer token).',
    closed: false,
    required: ['status'],
    properties: {
      status: bool('Outcome flag.'),
      message: str(BOUNDS.message),
      data: JWT('The JWT bearer token.'),
    },
  },
  {
    name: 'session-tokens',
    typeName: 'SessionTokens',
    title: 'Session tokens',
    section: '2',
    description: 'The ABHA session tokens returned by OTP verification (field tokens).',
    closed: false,
    required: [],
    properties: {
      token: JWT('The ABHA session token (a JWT).'),
      expiresIn: int({ minimum: 0, examples: [1800, 300], description: 'Lifetime; unit not stated by the spec.' }),
      refreshToken: JWT('Refresh token.'),
      refreshExpiresIn: int({ minimum: 0, examples: [1296000], description: 'Refresh-token lifetime; unit not stated by the spec.' }),
    },
  },
  {
    name: 'account-summary',
    typeName: 'AccountSummary',
    title: 'Account summary',
    section: '2',
    description: 'An item of accounts in OTP verification responses.',
    closed: false,
    required: [],
    properties: {
      ABHANumber: str(BOUNDS.id),
      preferredAbhaAddress: str(BOUNDS.name),
      name: str(BOUNDS.name),
      gender: str(16, { examples: ['M'] }),
      dob: str(32),
      status: str(64),
      profilePhoto: str(BOUNDS.photo),
      kycVerified: bool(),
      mobileVerified: bool(),
    },
  },
  {
    name: 'abha-profile',
    typeName: 'AbhaProfile',
    title: 'ABHA profile',
    section: '2',
    description: 'The enrolment result, field ABHAProfile of the enrolment verification (4.9).',
    closed: false,
    required: [],
    properties: {
      ABHANumber: str(BOUNDS.id),
      preferredAddress: str(BOUNDS.name),
      firstName: str(BOUNDS.name),
      middleName: str(BOUNDS.name),
      lastName: str(BOUNDS.name),
      dob: str(32),
      gender: str(16, { examples: ['M'] }),
      photo: str(BOUNDS.photo),
      mobile: MOBILE,
      email: str(BOUNDS.email),
      address: str(BOUNDS.text),
      districtCode: str(16),
      stateCode: str(16),
      pinCode: str(16),
      stateName: str(BOUNDS.name),
      districtName: str(BOUNDS.name),
      abhaType: str(64),
      abhaStatus: str(64),
      phrAddress: arr(str(BOUNDS.name), BOUNDS.accounts),
    },
  },
  {
    name: 'abha-address-profile',
    typeName: 'AbhaAddressProfile',
    title: 'ABHA address profile',
    section: '2',
    description: 'The profile returned by the ABHA-address profile fetch (4.10).',
    closed: false,
    required: [],
    properties: {
      abhaAddress: str(BOUNDS.name),
      fullName: str(BOUNDS.name),
      profilePhoto: str(BOUNDS.photo),
      firstName: str(BOUNDS.name),
      lastName: str(BOUNDS.name),
      dateOfBirth: str(32),
      gender: str(16),
      mobile: MOBILE,
      abhaNumber: str(BOUNDS.id),
      address: str(BOUNDS.text),
      stateName: str(BOUNDS.name),
      districtName: str(BOUNDS.name),
      pinCode: str(16),
      status: str(64),
      kycStatus: str(64),
      authMethods: arr(str(64), 20),
    },
  },
  {
    name: 'account-profile',
    typeName: 'AccountProfile',
    title: 'Account profile',
    section: '2',
    description: 'The profile returned by get-profile (4.11).',
    closed: false,
    required: [],
    properties: {
      ABHANumber: str(BOUNDS.id),
      preferredAbhaAddress: str(BOUNDS.name),
      mobile: MOBILE,
      firstName: str(BOUNDS.name),
      lastName: str(BOUNDS.name),
      gender: str(16),
      status: str(64),
      stateCode: str(16),
      districtCode: str(16),
      pincode: str(16),
      address: str(BOUNDS.text),
      verificationStatus: str(64),
      kycVerified: bool(),
      authMethods: arr(str(64), 20),
    },
  },
  {
    name: 'user',
    typeName: 'User',
    title: 'User',
    section: '2',
    description: 'An item of users in the ABHA-address login (4.8).',
    closed: false,
    required: [],
    properties: {
      abhaAddress: str(BOUNDS.name),
      fullName: str(BOUNDS.name),
      abhaNumber: str(BOUNDS.id),
      status: str(64),
      kycStatus: str(64),
      age: int({ minimum: 0, maximum: 200 }),
    },
  },
  {
    name: 'search-account-entry',
    typeName: 'SearchAccountEntry',
    title: 'Search account entry',
    section: '2',
    description: 'An item of ABHA in a search result: a masked account with its index.',
    closed: false,
    // The index is what the typical flow (spec §1) sends back as loginId.
    required: ['index'],
    properties: {
      index: int({ minimum: 0, description: 'The per-account index; sent back as loginId when requesting an OTP.' }),
      ABHANumber: str(BOUNDS.id, { description: 'Masked ABHA number.' }),
      name: str(BOUNDS.name),
      gender: str(16, { examples: ['M'] }),
      kycVerified: str(16, { description: 'A string here, unlike the boolean of account summaries.' }),
      authMethods: arr(str(64), 20),
    },
  },
  {
    name: 'search-result-item',
    typeName: 'SearchResultItem',
    title: 'Search result item',
    section: '2',
    description: 'An item of data in the search-by-mobile response (4.2).',
    closed: false,
    // The typical flow (spec §1): the search returns the txnId and a per-account index.
    required: ['txnId', 'ABHA'],
    properties: {
      txnId: str(BOUNDS.id),
      ABHA: arr(ref('search-account-entry'), BOUNDS.accounts),
    },
  },
  {
    name: 'hospital',
    typeName: 'Hospital',
    title: 'Hospital',
    section: '4.12',
    description: 'bundleData.hospital: the facility that produced the record.',
    closed: true,
    required: ['name', 'id'],
    properties: {
      name: str(BOUNDS.name, { minLength: 1 }),
      id: str(BOUNDS.id, { minLength: 1, description: 'Facility id (the HFR id for ABDM).' }),
      phone: str(BOUNDS.phone),
      email: str(BOUNDS.email, { format: 'email' }),
    },
  },
  {
    name: 'doctor',
    typeName: 'Doctor',
    title: 'Doctor',
    section: '4.12',
    description: 'bundleData.doctor: the practitioner responsible for the record.',
    closed: true,
    required: ['name'],
    properties: {
      name: str(BOUNDS.name, { minLength: 1 }),
      licNumber: str(BOUNDS.id, { description: 'Medical registration (licence) number.' }),
      hpId: str(BOUNDS.id, { description: 'Healthcare Professionals Registry (HPR) id.' }),
    },
  },
  {
    name: 'diagnosis',
    typeName: 'Diagnosis',
    title: 'Diagnosis',
    section: '4.12',
    description: 'An item of bundleData.diagnosis.',
    closed: true,
    required: ['diagnosisName'],
    properties: DIAGNOSIS_FIELDS,
  },
  {
    name: 'medication',
    typeName: 'Medication',
    title: 'Medication',
    section: '4.12',
    description: 'An item of bundleData.medications.',
    closed: true,
    required: ['drugName'],
    properties: {
      drugName: str(BOUNDS.name, { minLength: 1 }),
      dosage: str(BOUNDS.shortText),
      frequency: str(BOUNDS.shortText),
      duration: str(BOUNDS.shortText),
      instructions: str(BOUNDS.text),
    },
  },
  {
    name: 'lab-investigation',
    typeName: 'LabInvestigation',
    title: 'Lab investigation',
    section: '4.12',
    description: 'An item of bundleData.labInvestigations.',
    closed: true,
    required: ['testName'],
    properties: {
      testName: str(BOUNDS.name, { minLength: 1 }),
      instructions: str(BOUNDS.text),
    },
  },
  {
    name: 'bundle-data',
    typeName: 'BundleData',
    title: 'Bundle data',
    section: '4.12',
    description: 'careContexts[].bundleData: the clinical content of one care context.',
    closed: true,
    required: ['hospital', 'doctor'],
    properties: {
      hospital: ref('hospital'),
      doctor: ref('doctor'),
      documentUrl: str(BOUNDS.url, { format: 'uri' }),
      diagnosis: arr(ref('diagnosis'), BOUNDS.listItems),
      medications: arr(ref('medication'), BOUNDS.listItems),
      labInvestigations: arr(ref('lab-investigation'), BOUNDS.listItems),
      advice: str(BOUNDS.longText),
    },
  },
  {
    name: 'care-context',
    typeName: 'CareContext',
    title: 'Care context',
    section: '4.12',
    description: 'An item of careContexts in the link request: one visit record to link.',
    closed: true,
    required: ['referenceNumber', 'display', 'hiType', 'bundleData'],
    properties: {
      referenceNumber: str(BOUNDS.careContextLabel, { minLength: 1 }),
      display: str(BOUNDS.careContextLabel, { minLength: 1, description: 'Display label shown to the patient.' }),
      hiType: str(64, { minLength: 1, examples: ['Prescription'] }),
      bundleData: ref('bundle-data'),
    },
  },
];

export const RESOURCES: readonly ResourceDef[] = resourceList;

// ---------------------------------------------------------------------------
// Endpoints (spec §4)
// ---------------------------------------------------------------------------

const obj = (typeName: string, properties: Record<string, FieldDef>, required: readonly string[], closed: boolean): ObjectDef => ({
  typeName,
  properties,
  required,
  closed,
});

/**
 * The `data` of an OTP call's answer. `required`: the fields the next step of
 * the typical flow (spec §1) takes from it; the others stay optional.
 */
const verifyResult = (typeName: string, fields: Record<string, FieldDef>, required: readonly string[] = []): FieldDef => ({
  type: 'object',
  object: obj(typeName, fields, required, false),
});

const ACCOUNTS = arr(ref('account-summary'), BOUNDS.accounts);

/** The session-token fields that 4.4 and 4.7 return inline in data. */
const SESSION_TOKEN_FIELDS: Record<string, FieldDef> = {
  token: JWT('ABHA session token.'),
  expiresIn: int({ minimum: 0 }),
  refreshToken: JWT('Refresh token.'),
  refreshExpiresIn: int({ minimum: 0 }),
};

/** The documented refresh-token lifetime (spec §2, refreshExpiresIn). */
const REFRESH_TTL = 1296000;

export const ENDPOINTS: readonly EndpointDef[] = [
  {
    id: 'token',
    method: 'POST',
    path: '/api/m1/abha/token',
    section: '4.1',
    title: 'Generate bearer token',
    description: 'Exchanges the account API key for a JWT bearer token. No Authorization header is sent.',
    auth: 'none',
    idempotent: true,
    request: obj('TokenRequest', { apiKey: str(BOUNDS.apiKey, { minLength: 1 }) }, ['apiKey'], true),
    response: { envelope: 'token', data: JWT('The JWT bearer token.'), dataRequired: true },
  },
  {
    id: 'search-abha',
    method: 'POST',
    path: '/api/m1/abha/search/abha',
    section: '4.2',
    title: 'Search accounts by mobile',
    description: 'Searches for ABHA accounts linked to a 10-digit mobile number; returns a masked list.',
    auth: 'bearer',
    idempotent: true,
    request: obj('SearchAbhaRequest', { mobile: MOBILE }, ['mobile'], true),
    response: { envelope: 'standard', data: arr(ref('search-result-item'), BOUNDS.accounts), dataRequired: true },
  },
  {
    id: 'request-otp',
    method: 'POST',
    path: '/api/m1/abha/search/request/otp',
    section: '4.3',
    title: 'Send OTP',
    description: 'Sends an OTP for the account chosen from a search result.',
    auth: 'bearer',
    idempotent: false,
    request: obj(
      'RequestOtpRequest',
      {
        scope: SCOPE,
        loginHint: str(64, {
          minLength: 1,
          examples: ['index'],
          description: "What loginId holds. Not given by the spec (open): with loginId the index number from a search result, the hint is 'index' (what the mock and abha-link's examples send).",
        }),
        otpSystem: str(64, {
          minLength: 1,
          examples: ['abdm'],
          description: "Which system sends the OTP. Not given by the spec (open); the mock accepts any non-empty value, and abha-link's examples send 'abdm'.",
        }),
        loginId: str(64, { minLength: 1, description: 'The index number from a search result.' }),
        txnId: TXN,
      },
      ['scope', 'loginHint', 'otpSystem', 'loginId', 'txnId'],
      true,
    ),
    response: {
      envelope: 'standard',
      data: verifyResult('RequestOtpResponseData', { txnId: str(BOUNDS.id), message: str(BOUNDS.message) }, ['txnId']),
      dataRequired: true,
    },
  },
  {
    id: 'verify-otp',
    method: 'POST',
    path: '/api/m1/abha/search/verify/otp',
    section: '4.4',
    title: 'Verify OTP',
    description: 'Verifies the OTP; returns the matching accounts and session tokens.',
    auth: 'bearer',
    idempotent: false,
    request: obj('VerifyOtpRequest', { scope: SCOPE, txnId: TXN, otp: OTP }, ['scope', 'txnId', 'otp'], true),
    response: {
      envelope: 'standard',
      data: verifyResult(
        'VerifyOtpResponseData',
        {
          txnId: str(BOUNDS.id),
          authResult: str(64),
          ...SESSION_TOKEN_FIELDS,
          accounts: ACCOUNTS,
        },
        ['token'],
      ),
      dataRequired: true,
    },
    session: { ttlSeconds: 1800, refreshTtlSeconds: REFRESH_TTL },
    mock: { verifiesOtp: { otpField: 'otp' } },
  },
  {
    id: 'mobile-login-verify-otp',
    method: 'POST',
    path: '/api/m1/abha/mobile/login/verify-otp',
    section: '4.5',
    title: 'Verify OTP for mobile login',
    description: 'Verifies the OTP of a mobile login; returns the accounts and a session token.',
    auth: 'bearer',
    idempotent: false,
    request: obj('MobileLoginVerifyOtpRequest', { txnId: TXN, otp: OTP }, ['txnId', 'otp'], true),
    response: {
      envelope: 'standard',
      data: verifyResult('MobileLoginVerifyOtpResponseData', {
        txnId: str(BOUNDS.id),
        authResult: str(64),
        token: JWT('ABHA session token.'),
        expiresIn: int({ minimum: 0, examples: [300] }),
        accounts: ACCOUNTS,
      }),
      dataRequired: true,
    },
    session: { ttlSeconds: 300 },
    mock: { verifiesOtp: { otpField: 'otp' } },
  },
  {
    id: 'mobile-login-abha-number-verify-otp',
    method: 'POST',
    path: '/api/m1/abha/mobile/login/abha-number/verify-otp',
    section: '4.6',
    title: 'Verify OTP for mobile login by ABHA number',
    description: 'Verifies the OTP of a mobile login by ABHA number; reports the OTP as verified or expired.',
    auth: 'bearer',
    idempotent: false,
    request: obj('MobileLoginAbhaNumberVerifyOtpRequest', { txnId: TXN, otp: OTP }, ['txnId', 'otp'], true),
    response: {
      envelope: 'standard',
      data: verifyResult('MobileLoginAbhaNumberVerifyOtpResponseData', {
        txnId: str(BOUNDS.id),
        authResult: str(64),
        accounts: ACCOUNTS,
      }),
      dataRequired: true,
    },
    mock: { verifiesOtp: { otpField: 'otp' } },
  },
  {
    id: 'aadhar-number-login-verify-otp',
    method: 'POST',
    path: '/api/m1/abha/aadhar-number/login/verify-otp',
    section: '4.7',
    title: 'Verify OTP for national-ID-number login',
    description: 'Verifies the OTP of a national-ID-number login; returns the ABHA accounts linked to the national ID.',
    auth: 'bearer',
    idempotent: false,
    request: obj('AadharNumberLoginVerifyOtpRequest', { txnId: TXN, otpValue: OTP, mobile: MOBILE }, ['txnId', 'otpValue', 'mobile'], true),
    response: {
      envelope: 'standard',
      data: verifyResult('AadharNumberLoginVerifyOtpResponseData', {
        txnId: str(BOUNDS.id),
        authResult: str(64),
        ...SESSION_TOKEN_FIELDS,
        accounts: ACCOUNTS,
      }),
      dataRequired: true,
    },
    session: { ttlSeconds: 1800, refreshTtlSeconds: REFRESH_TTL },
    mock: { verifiesOtp: { otpField: 'otpValue', mobileField: 'mobile' } },
  },
  {
    id: 'abha-address-login-verify-otp',
    method: 'POST',
    path: '/api/m1/abha/aadhar/login/abha-address/verify-otp',
    section: '4.8',
    title: 'Verify OTP for ABHA-address login',
    description: 'Completes ABHA-address login; returns the users and session tokens.',
    auth: 'bearer',
    idempotent: false,
    request: obj('AbhaAddressLoginVerifyOtpRequest', { txnId: TXN, otpValue: OTP, mobile: MOBILE }, ['txnId', 'otpValue', 'mobile'], true),
    response: {
      envelope: 'standard',
      data: verifyResult('AbhaAddressLoginVerifyOtpResponseData', {
        txnId: str(BOUNDS.id),
        message: str(BOUNDS.message),
        authResult: str(64),
        users: arr(ref('user'), BOUNDS.accounts),
        tokens: ref('session-tokens'),
      }),
      dataRequired: true,
    },
    session: { ttlSeconds: 1800, refreshTtlSeconds: REFRESH_TTL },
    mock: { verifiesOtp: { otpField: 'otpValue', mobileField: 'mobile' } },
  },
  {
    id: 'enroll-verify-otp',
    method: 'POST',
    path: '/api/m1/abha/aadhar/enroll/verify-otp',
    section: '4.9',
    title: 'Verify OTP for enrolment',
    description: 'Verifies the OTP sent to the ID-linked mobile during enrolment; returns the new ABHA profile and session tokens.',
    auth: 'bearer',
    idempotent: false,
    request: obj('EnrollVerifyOtpRequest', { txnId: TXN, otpValue: OTP, mobile: MOBILE }, ['txnId', 'otpValue', 'mobile'], true),
    response: {
      envelope: 'standard',
      data: verifyResult('EnrollVerifyOtpResponseData', {
        txnId: str(BOUNDS.id),
        tokens: ref('session-tokens'),
        ABHAProfile: ref('abha-profile'),
        isNew: bool(),
      }),
      dataRequired: true,
    },
    session: { ttlSeconds: 1800, refreshTtlSeconds: REFRESH_TTL },
    mock: { verifiesOtp: { otpField: 'otpValue', mobileField: 'mobile' } },
  },
  {
    id: 'fetch-abha-address-profile',
    method: 'POST',
    path: '/api/m1/abha/aadhar/login/abha-address/fetch/profile',
    section: '4.10',
    title: 'Fetch ABHA address profile',
    description: 'Fetches the ABHA address profile with the session token from the verify-otp step.',
    auth: 'bearer',
    idempotent: true,
    request: obj('FetchAbhaAddressProfileRequest', { token: SENT_JWT('The ABHA session token.') }, ['token'], true),
    response: { envelope: 'standard', data: ref('abha-address-profile'), dataRequired: true },
  },
  {
    id: 'get-profile',
    method: 'POST',
    path: '/api/m1/abha/login/get-profile',
    section: '4.11',
    title: 'Get account profile',
    description: 'Fetches the account profile with the ABHA session token.',
    auth: 'bearer',
    idempotent: true,
    request: obj('GetProfileRequest', { token: SENT_JWT('The ABHA session token.') }, ['token'], true),
    response: { envelope: 'standard', data: ref('account-profile'), dataRequired: true },
  },
  {
    id: 'link-carecontext',
    method: 'POST',
    path: '/api/m2/multiple/link-carecontext',
    section: '4.12',
    title: 'Link care contexts',
    description: 'Links several care contexts (visit records) to an ABHA address under a health-information-provider id.',
    auth: 'bearer',
    idempotent: false,
    request: obj(
      'LinkCareContextRequest',
      {
        abhaAddress: str(BOUNDS.name, { minLength: 1, description: 'The patient ABHA address, e.g. name@sbx.' }),
        hipId: str(BOUNDS.id, { minLength: 1, description: 'Health-information-provider id (the HFR facility id).' }),
        hospitalName: str(BOUNDS.name, { minLength: 1 }),
        visitDate: str(10, { format: 'date', description: 'Visit date, YYYY-MM-DD.' }),
        visitId: str(BOUNDS.id, { minLength: 1 }),
        careContexts: arr(ref('care-context'), BOUNDS.careContexts),
      },
      ['abhaAddress', 'hipId', 'hospitalName', 'visitDate', 'visitId', 'careContexts'],
      true,
    ),
    response: { envelope: 'standard', data: { type: 'unknown', description: 'Not shown by the spec.' }, dataRequired: false },
    mock: { countsReceived: true },
  },
];

// ---------------------------------------------------------------------------
// abha-link's own builder inputs (not part of the service spec). They produce
// the §4.12 body through the builders; they are closed so that nothing the
// user gives is dropped without a word.
// ---------------------------------------------------------------------------

// Wellness and invoice input: what a WellnessRecord and an Invoice carry
// beyond the link payload (UCUM units fixed per measurement; money in the
// invoice currency). None of it goes into the §4.12 body.

const AT = str(40, { pattern: 'datetime', description: 'When it was measured (ISO 8601). Default: the visit time.' });
const AMOUNT = (description: string): FieldDef => ({ type: 'number', minimum: 0, maximum: 1_000_000_000, description });
/** A measurement: its number, or the number with when it was taken. */
const MEASURE = (unit: string, maximum: number): FieldDef => ({
  type: 'union',
  of: [{ type: 'number', exclusiveMinimum: 0, maximum }, ref('measurement-input')],
  description: `In ${unit}: a number, or { value, at }.`,
});

const WELLNESS_AND_INVOICE_INPUTS: readonly (ResourceDef & { readonly name: ResourceName })[] = [
  {
    name: 'measurement-input',
    typeName: 'MeasurementInput',
    title: 'Measurement input',
    section: '4.12',
    description: 'One measurement with when it was taken; the unit is the one of the field that holds it.',
    closed: true,
    required: ['value'],
    properties: { value: { type: 'number', exclusiveMinimum: 0, maximum: 100_000 }, at: AT },
  },
  {
    name: 'blood-pressure-input',
    typeName: 'BloodPressureInput',
    title: 'Blood pressure input',
    section: '4.12',
    description: 'Blood pressure in mm[Hg]: systolic and diastolic.',
    closed: true,
    required: ['systolic', 'diastolic'],
    properties: {
      systolic: { type: 'number', exclusiveMinimum: 0, maximum: 400, description: 'mm[Hg].' },
      diastolic: { type: 'number', exclusiveMinimum: 0, maximum: 400, description: 'mm[Hg].' },
      at: AT,
    },
  },
  {
    name: 'temperature-input',
    typeName: 'TemperatureInput',
    title: 'Temperature input',
    section: '4.12',
    description: 'Body temperature: in Cel (default) or [degF].',
    closed: true,
    required: ['value'],
    properties: {
      value: { type: 'number', exclusiveMinimum: 0, maximum: 200 },
      unit: str(8, { enum: ['Cel', '[degF]'], description: 'UCUM unit: Cel (degree Celsius, default) or [degF] (degree Fahrenheit).' }),
      at: AT,
    },
  },
  {
    name: 'lifestyle-input',
    typeName: 'LifestyleInput',
    title: 'Lifestyle input',
    section: '4.12',
    description: 'Lifestyle as the doctor wrote it down.',
    closed: true,
    required: [],
    properties: {
      smoking: str(BOUNDS.shortText, { examples: ['Never smoked', '10 cigarettes a day'] }),
      alcohol: str(BOUNDS.shortText, { examples: ['Occasional'] }),
      tobaccoChewing: str(BOUNDS.shortText, { examples: ['None'] }),
      diet: str(BOUNDS.shortText, { examples: ['Vegetarian'] }),
      physicalActivity: str(BOUNDS.shortText, { examples: ['30 min walk daily'] }),
    },
  },
  {
    name: 'observations-input',
    typeName: 'ObservationsInput',
    title: 'Observations input',
    section: '4.12',
    description: 'Vital signs, body measurements (UCUM units) and lifestyle of a visit: what a WellnessRecord carries.',
    closed: true,
    required: [],
    properties: {
      at: AT,
      bloodPressure: ref('blood-pressure-input'),
      pulse: MEASURE('/min (beats per minute)', 400),
      temperature: { type: 'union', of: [{ type: 'number', exclusiveMinimum: 0, maximum: 200 }, ref('temperature-input')], description: 'In Cel: a number, or { value, unit, at }.' },
      spo2: MEASURE('% (oxygen saturation)', 100),
      respiratoryRate: MEASURE('/min (breaths per minute)', 200),
      height: MEASURE('cm', 300),
      weight: MEASURE('kg', 700),
      bmi: MEASURE('kg/m2', 200),
      lifestyle: ref('lifestyle-input'),
    },
  },
  {
    name: 'invoice-tax-input',
    typeName: 'InvoiceTaxInput',
    title: 'Invoice tax input',
    section: '4.12',
    description: 'The tax of an invoice line: its rate in percent and/or its amount; GST as CGST+SGST (default, a supply within the state) or IGST.',
    closed: true,
    required: [],
    properties: {
      rate: { type: 'number', minimum: 0, maximum: 100, description: 'Percent of quantity x unitPrice (less discount).' },
      amount: AMOUNT('The tax amount of the line.'),
      kind: str(16, { enum: ['CGST+SGST', 'IGST'], description: 'CGST+SGST (default: half each) or IGST.' }),
    },
  },
  {
    name: 'invoice-line-input',
    typeName: 'InvoiceLineInput',
    title: 'Invoice line input',
    section: '4.12',
    description: 'One line of an invoice: total = quantity x unitPrice - discount + tax.',
    closed: true,
    required: ['item', 'quantity', 'unitPrice', 'total'],
    properties: {
      item: str(BOUNDS.name, { minLength: 1, examples: ['Consultation', 'Paracetamol 500 mg'] }),
      code: str(8, {
        enum: ['00', '01', '02', '03', '04', '05', '06', '07', '08', '99'],
        description: 'NRCeS billing code: 00 Consultation, 01 Pharmacy, 02 IPD, 03 OPD, 04 Pathology, 05 Medicines, 06 Nursing Charges, 07 Handling Charges, 08 Delivery Charges, 99 Others.',
      }),
      hsnSac: str(8, {
        pattern: 'hsnSac',
        examples: ['3004', '999312'],
        description: 'HSN code (goods) or SAC (services) of the line for GST, 4 to 8 digits, printed on the bill. Not in FHIR.',
      }),
      quantity: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 },
      unitPrice: AMOUNT('Price of one unit.'),
      discount: AMOUNT('Discount on the line, an amount.'),
      tax: ref('invoice-tax-input'),
      total: AMOUNT('What the line costs in all.'),
    },
  },
  {
    name: 'payment-input',
    typeName: 'PaymentInput',
    title: 'Payment input',
    section: '4.12',
    description: 'How the invoice was paid.',
    closed: true,
    required: ['method', 'amountPaid'],
    properties: {
      method: str(BOUNDS.shortText, { minLength: 1, examples: ['Cash', 'UPI', 'Card'] }),
      amountPaid: AMOUNT('The amount paid.'),
      date: str(40, { pattern: 'datetime', description: 'When it was paid. Default: the invoice date.' }),
      reference: str(BOUNDS.id, { description: 'Transaction or receipt reference.' }),
    },
  },
  {
    name: 'invoice-input',
    typeName: 'InvoiceInput',
    title: 'Invoice input',
    section: '4.12',
    description: 'The bill of a care context of hiType Invoice.',
    closed: true,
    required: ['number', 'lines', 'total'],
    properties: {
      number: str(BOUNDS.id, { minLength: 1, description: 'The invoice number.' }),
      date: str(40, { pattern: 'datetime', description: 'The invoice date. Default: the visit time.' }),
      type: str(8, { enum: ['00', '01', '02', '03', '99'], description: 'NRCeS invoice type: 00 Consultation, 01 Pharmacy, 02 IPD, 03 OPD, 99 Others. Default 03 OPD.' }),
      currency: str(3, { minLength: 3, examples: ['INR'], description: 'ISO 4217 code, three capital letters. Default INR.' }),
      lines: { ...arr(ref('invoice-line-input'), BOUNDS.listItems), minItems: 1 } as FieldDef,
      total: AMOUNT('What the invoice costs in all: the sum of the line totals.'),
      payment: ref('payment-input'),
    },
  },
];

const CONTENT_FIELDS: Record<string, FieldDef> = {
  hiType: str(64, { minLength: 1, examples: ['Prescription', 'OPConsultation', 'DiagnosticReport'], description: 'ABDM hiType code. Default: derived from the content (see buildCareContext).' }),
  referenceNumber: str(BOUNDS.careContextLabel, { minLength: 1, description: 'Care-context reference. Default: derived from the visit id and hiType.' }),
  display: str(BOUNDS.careContextLabel, { minLength: 1, description: 'Patient-readable label. Default: hiType, date and hospital.' }),
  doctor: { ...ref('doctor-input'), description: 'The doctor of this care context, when not the visit doctor.' },
  documentUrl: str(BOUNDS.url, { format: 'uri' }),
  diagnosis: arr(ref('diagnosis-input'), BOUNDS.listItems),
  medications: arr(ref('medication-input'), BOUNDS.listItems),
  labInvestigations: arr(ref('lab-investigation'), BOUNDS.listItems),
  advice: str(BOUNDS.longText),
  inpatientStay: { ...ref('inpatient-stay-input'), description: 'The inpatient stay a discharge summary tells of (not sent in the link request; FHIR and printing).' },
  immunizations: { ...arr(ref('immunization-input'), BOUNDS.listItems), description: 'Vaccines given (not sent in the link request; FHIR and printing).' } as FieldDef,
  observations: { ...ref('observations-input'), description: 'Vital signs, body measurements and lifestyle (a WellnessRecord); for FHIR and printing, never in the link request.' },
  invoice: { ...ref('invoice-input'), description: 'The bill of this care context (an Invoice); for FHIR and printing, never in the link request.' },
};

// ---------------------------------------------------------------------------
// Discharge summary and immunisation content: clinical input only. It never
// enters the link request (bundleData keeps the spec's fields); it feeds the
// FHIR DischargeSummaryRecord and ImmunizationRecord, and printing.
// ---------------------------------------------------------------------------

/** A point in time as text: a date, or a date-time (without offset: the facility's time zone). */
const WHEN = (description: string): FieldDef => str(40, { pattern: 'datetime', description });
/** A measured or observed value: a number (with `unit`) or words. */
const VALUE: FieldDef = { type: 'union', of: [{ type: 'number', maximum: 1e12 }, str(BOUNDS.shortText, { minLength: 1 })], description: 'A number (give unit) or words.' };

const STAY_INPUTS: readonly (ResourceDef & { readonly name: ResourceName })[] = [
  {
    name: 'snomed-coding-input',
    typeName: 'SnomedCodingInput',
    title: 'SNOMED CT coding input',
    section: '4.12',
    description: "A SNOMED CT concept as the EMR holds it: the concept id and its term (the display must be the concept's own term, not free text).",
    closed: true,
    required: ['code', 'display'],
    properties: { code: str(18, { pattern: 'snomed' }), display: str(BOUNDS.name, { minLength: 1, description: 'The SNOMED CT term of the concept.' }) },
  },
  {
    name: 'loinc-coding-input',
    typeName: 'LoincCodingInput',
    title: 'LOINC coding input',
    section: '4.12',
    description: "A LOINC code as the EMR holds it: the code and its name (the display must be LOINC's own name, not free text).",
    closed: true,
    required: ['code', 'display'],
    properties: { code: str(10, { pattern: 'loinc' }), display: str(BOUNDS.name, { minLength: 1, description: 'The LOINC name of the code.' }) },
  },
  {
    name: 'finding-input',
    typeName: 'FindingInput',
    title: 'Examination finding input',
    section: '4.12',
    description: 'A finding on examination: what was examined and what was found, e.g. { name: "Pulse", value: 88, unit: "/min" } or { name: "Abdomen", value: "soft, non-tender" }.',
    closed: true,
    required: ['name'],
    properties: { name: str(BOUNDS.name, { minLength: 1 }), value: VALUE, unit: str(64, { minLength: 1, examples: ['/min', 'mm[Hg]', 'Cel'] }) },
  },
  {
    name: 'procedure-input',
    typeName: 'ProcedureInput',
    title: 'Procedure input',
    section: '4.12',
    description: 'A procedure done during the stay.',
    closed: true,
    required: ['name'],
    properties: {
      name: str(BOUNDS.name, { minLength: 1, examples: ['Laparoscopic appendicectomy'] }),
      code: { ...ref('snomed-coding-input'), description: 'Its SNOMED CT concept, when the EMR has it; never derived from the name.' },
      date: WHEN('When it was done.'),
      notes: str(BOUNDS.longText),
    },
  },
  {
    name: 'investigation-input',
    typeName: 'InvestigationInput',
    title: 'Investigation result input',
    section: '4.12',
    description: 'A test done during the stay, with its result: a lab investigation with value, unit and date.',
    closed: true,
    required: ['testName'],
    properties: {
      testName: str(BOUNDS.name, { minLength: 1, examples: ['Haemoglobin'] }),
      code: { ...ref('loinc-coding-input'), description: 'Its LOINC code, when the EMR has it; never derived from the name.' },
      value: VALUE,
      unit: str(64, { minLength: 1, examples: ['g/dL', 'mg/dL'] }),
      referenceRange: str(BOUNDS.shortText, { examples: ['12-15 g/dL'] }),
      interpretation: str(BOUNDS.text, { examples: ['Low'], description: 'What the result means, in words.' }),
      date: WHEN('When the sample was taken or the result reported.'),
    },
  },
  {
    name: 'inpatient-stay-input',
    typeName: 'InpatientStayInput',
    title: 'Inpatient stay input',
    section: '4.12',
    description:
      "What a discharge summary tells of a hospital stay. Discharge diagnoses, discharge medications and advice are the care context's own diagnosis, medications and advice; the follow-up is visit.followUp.",
    closed: true,
    required: ['admittedAt'],
    properties: {
      admittedAt: WHEN('Admission date-time.'),
      dischargedAt: WHEN('Discharge date-time.'),
      reasonForAdmission: str(BOUNDS.text),
      chiefComplaints: arr(str(BOUNDS.shortText, { minLength: 1 }), BOUNDS.listItems, 'Complaints on admission, one per item.'),
      presentIllness: str(BOUNDS.longText, { description: 'History of the present illness.' }),
      pastHistory: arr(str(BOUNDS.shortText, { minLength: 1 }), BOUNDS.listItems, 'Past medical and surgical history, one condition per item.'),
      allergies: arr(str(BOUNDS.shortText, { minLength: 1 }), BOUNDS.listItems, 'Known allergies, one per item.'),
      examinationFindings: arr(ref('finding-input'), BOUNDS.listItems),
      procedures: arr(ref('procedure-input'), BOUNDS.listItems),
      investigations: arr(ref('investigation-input'), BOUNDS.listItems),
      courseInHospital: str(BOUNDS.longText),
      conditionAtDischarge: str(BOUNDS.text, { examples: ['Stable, afebrile, tolerating oral diet'] }),
    },
  },
  {
    name: 'immunization-input',
    typeName: 'ImmunizationInput',
    title: 'Immunization input',
    section: '4.12',
    description: 'One vaccine dose given.',
    closed: true,
    required: ['vaccine', 'date'],
    properties: {
      vaccine: str(BOUNDS.name, { minLength: 1, examples: ['Covishield (ChAdOx1 nCoV-19)', 'Tdap'] }),
      vaccineCode: { ...ref('snomed-coding-input'), description: "The vaccine's SNOMED CT concept, when the EMR has it; never derived from the name." },
      doseNumber: {
        type: 'union',
        of: [int({ minimum: 1, maximum: 100 }), str(64, { minLength: 1, examples: ['Booster'] })],
        description: 'Which dose of the series: 1, 2… or words such as "Booster".',
      },
      date: WHEN('When the dose was given.'),
      lotNumber: str(BOUNDS.id, { minLength: 1 }),
      manufacturer: str(BOUNDS.name, { minLength: 1, examples: ['Serum Institute of India'] }),
      site: str(BOUNDS.shortText, { minLength: 1, examples: ['Left deltoid'] }),
      route: str(BOUNDS.shortText, { minLength: 1, examples: ['Intramuscular'] }),
      nextDue: str(10, { format: 'date', description: 'When the next dose is due, YYYY-MM-DD.' }),
    },
  },
];

export const INPUTS: readonly (ResourceDef & { readonly name: ResourceName })[] = [
  ...WELLNESS_AND_INVOICE_INPUTS,
  {
    name: 'duration-input',
    typeName: 'DurationInput',
    title: 'Duration input',
    section: '4.12',
    description: 'A structured medication duration: a number and a unit.',
    closed: true,
    required: ['value', 'unit'],
    properties: {
      value: { type: 'number', exclusiveMinimum: 0, maximum: 10000 },
      unit: str(16, { enum: ['day', 'days', 'week', 'weeks', 'month', 'months', 'year', 'years'] }),
    },
  },
  {
    name: 'frequency-input',
    typeName: 'FrequencyInput',
    title: 'Frequency input',
    section: '4.12',
    description: 'A structured dose pattern: how many doses in the morning, afternoon, evening and night (1-0-1 is { morning: 1, night: 1 }).',
    closed: true,
    required: [],
    properties: {
      morning: { type: 'number', maximum: 100, description: 'Doses in the morning.' },
      afternoon: { type: 'number', maximum: 100, description: 'Doses in the afternoon.' },
      evening: { type: 'number', maximum: 100, description: 'Doses in the evening.' },
      night: { type: 'number', maximum: 100, description: 'Doses at night.' },
    },
  },
  {
    name: 'diagnosis-input',
    typeName: 'DiagnosisInput',
    title: 'Diagnosis input',
    section: '4.12',
    description: "A diagnosis as the EMR holds it: the spec's three fields, and the codings the EMR already has (never derived from the name).",
    closed: true,
    required: ['diagnosisName'],
    properties: {
      ...DIAGNOSIS_FIELDS,
      icdTitle: str(BOUNDS.name, {
        minLength: 1,
        examples: ['Type 2 diabetes mellitus without complications'],
        description:
          "The title of icdCode in ICD-10, as the hospital's licensed table holds it (not the doctor's words): the display of the ICD-10 coding in FHIR. Not in the link request. Without it, the table given to toFhirBundles (icd10Titles) is asked.",
      }),
      snomed: {
        ...ref('snomed-coding-input'),
        description: "The diagnosis's SNOMED CT concept, when the EMR has it: a SNOMED CT coding of the Condition in FHIR. Not in the link request; never derived from the name.",
      },
    },
  },
  {
    name: 'medication-input',
    typeName: 'MedicationInput',
    title: 'Medication input',
    section: '4.12',
    description: 'A medication as the doctor wrote it; frequency and duration may be structured.',
    closed: true,
    required: ['drugName'],
    properties: {
      drugName: str(BOUNDS.name, { minLength: 1 }),
      dosage: str(BOUNDS.shortText, { examples: ['1 tablet', '500 mg', '5 ml'] }),
      frequency: {
        type: 'union',
        of: [str(BOUNDS.shortText, { examples: ['1-0-1', 'BD', 'TDS', 'SOS'] }), ref('frequency-input')],
        description: 'Indian notation (1-0-1, OD, BD, TDS, QID, HS, SOS, STAT), free text, or a dose pattern.',
      },
      duration: {
        type: 'union',
        of: [str(BOUNDS.shortText, { examples: ['5 days', '2 weeks'] }), ref('duration-input')],
        description: 'Free text such as "5 days", or a number and a unit.',
      },
      instructions: str(BOUNDS.text, { examples: ['after food'] }),
      genericName: str(BOUNDS.name, {
        minLength: 1,
        examples: ['Metformin'],
        description: 'The generic (non-proprietary) name, printed with the brand (drugName). Not in the link request; FHIR: a MedicationRequest note.',
      }),
      strength: str(64, { minLength: 1, examples: ['500 mg'], description: 'Strength per unit. Not in the link request; FHIR: a MedicationRequest note.' }),
      form: str(64, { minLength: 1, examples: ['tablet', 'syrup'], description: 'Dosage form. Not in the link request; FHIR: a MedicationRequest note.' }),
      route: str(64, { minLength: 1, examples: ['oral', 'topical'], description: 'Route of administration. Not in the link request; FHIR: dosageInstruction.route.text.' }),
    },
  },
  {
    name: 'hospital-input',
    typeName: 'HospitalInput',
    title: 'Hospital input',
    section: '4.12',
    description: 'The facility: the fields of bundleData.hospital, and its address for printed documents (not sent).',
    closed: true,
    required: ['name', 'id'],
    properties: {
      name: str(BOUNDS.name, { minLength: 1 }),
      id: str(BOUNDS.id, { minLength: 1, description: 'Facility id (the HFR id for ABDM).' }),
      phone: str(BOUNDS.phone),
      email: str(BOUNDS.email, { format: 'email' }),
      address: str(BOUNDS.text, {
        minLength: 1,
        examples: ['12 MG Road, Bengaluru 560001'],
        description: 'Postal address, printed on the letterhead. Not in the link request; FHIR: Organization.address.text.',
      }),
      gstin: str(15, {
        pattern: 'gstin',
        examples: ['29ABCDE1234F1Z5'],
        description: 'GST identification number (15 characters), printed on the bill. Not in the link request.',
      }),
    },
  },
  {
    name: 'doctor-input',
    typeName: 'DoctorInput',
    title: 'Doctor input',
    section: '4.12',
    description: 'The doctor: the fields of bundleData.doctor, and the registration particulars printed on the letterhead (not sent).',
    closed: true,
    required: ['name'],
    properties: {
      name: str(BOUNDS.name, { minLength: 1 }),
      licNumber: str(BOUNDS.id, { description: 'Medical registration (licence) number.' }),
      hpId: str(BOUNDS.id, { description: 'Healthcare Professionals Registry (HPR) id.' }),
      qualification: str(BOUNDS.name, { minLength: 1, examples: ['MBBS, MD (General Medicine)'], description: 'Qualifications. Not in the link request; FHIR: Practitioner.qualification.code.text.' }),
      specialty: str(BOUNDS.name, { minLength: 1, examples: ['Consultant Physician'], description: 'Specialty. For printed documents only (no place in FHIR: a warning).' }),
      council: str(BOUNDS.name, {
        minLength: 1,
        examples: ['Karnataka Medical Council'],
        description: "The medical council that registered licNumber. Not in the link request; FHIR: the licence identifier's assigner.",
      }),
    },
  },
  {
    name: 'vitals-input',
    typeName: 'VitalsInput',
    title: 'Vitals input',
    section: '4.12',
    description: 'Vital signs taken at the visit, printed in the patient header. Not in the link request; FHIR: Observations of an OPConsultation, DischargeSummary or WellnessRecord.',
    closed: true,
    required: [],
    properties: {
      bloodPressure: str(16, { minLength: 3, examples: ['120/80'], description: 'Systolic/diastolic in mmHg.' }),
      pulse: { type: 'number', exclusiveMinimum: 0, maximum: PATIENT_MEASURE_MAXIMA.pulse, description: 'Beats per minute.' },
      temperature: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: PATIENT_MEASURE_MAXIMA.temperature,
        description: `Body temperature: degrees Celsius up to ${CELSIUS_UP_TO}, degrees Fahrenheit above.`,
      },
      spo2: { type: 'number', exclusiveMinimum: 0, maximum: PATIENT_MEASURE_MAXIMA.spo2, description: 'Oxygen saturation in %.' },
      respiratoryRate: { type: 'number', exclusiveMinimum: 0, maximum: PATIENT_MEASURE_MAXIMA.respiratoryRate, description: 'Breaths per minute.' },
    },
  },
  {
    name: 'patient-input',
    typeName: 'PatientInput',
    title: 'Patient input',
    section: '4.12',
    description: 'The patient. Only abhaAddress goes into the link request; the rest is for printed documents and FHIR.',
    closed: true,
    required: ['abhaAddress'],
    properties: {
      abhaAddress: str(BOUNDS.name, { minLength: 1, examples: ['asha.verma@sbx'] }),
      ABHANumber: str(BOUNDS.id, { examples: ['91-1234-5678-9012'] }),
      name: str(BOUNDS.name),
      gender: str(16, { examples: ['M', 'F', 'O'] }),
      birthDate: str(10, { format: 'date' }),
      age: int({ minimum: 0, maximum: 150, description: 'Age in years, when the birth date is not known.' }),
      mobile: { ...MOBILE, description: 'Mobile number, exactly 10 digits. Not in the link request; FHIR: Patient.telecom.' } as FieldDef,
      address: str(BOUNDS.text, { minLength: 1, description: 'Postal address. Not in the link request; FHIR: Patient.address.text.' }),
      weight: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: PATIENT_MEASURE_MAXIMA.weight,
        description: 'Weight in kg. Not in the link request; FHIR: an Observation of an OPConsultation, DischargeSummary or WellnessRecord.',
      },
      height: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: PATIENT_MEASURE_MAXIMA.height,
        description: 'Height in cm. Not in the link request; FHIR: an Observation of an OPConsultation, DischargeSummary or WellnessRecord.',
      },
      vitals: ref('vitals-input'),
      guardian: ref('guardian-input'),
    },
  },
  {
    name: 'guardian-input',
    typeName: 'GuardianInput',
    title: 'Guardian input',
    section: '4.12',
    description: "A child's parent or guardian, printed on the immunisation certificate. Not in the link request.",
    closed: true,
    required: ['name'],
    properties: {
      name: str(BOUNDS.name, { minLength: 1, examples: ['Priya Sharma'] }),
      relation: str(BOUNDS.shortText, { minLength: 1, examples: ['mother', 'father', 'guardian'], description: 'How the guardian is related to the patient, as it should print.' }),
    },
  },
  {
    name: 'visit-input',
    typeName: 'VisitInput',
    title: 'Visit input',
    section: '4.12',
    description: 'The visit: its id and when it happened.',
    closed: true,
    required: ['id', 'at'],
    properties: {
      id: str(BOUNDS.id, { minLength: 1, description: 'The visit (encounter) id in the EMR; becomes visitId.' }),
      at: { type: 'datetime', description: 'When the visit happened. A date-time without offset is read in the facility time zone.' },
      timeZone: str(64, { minLength: 1, examples: ['Asia/Kolkata'], description: 'IANA time zone of the facility. Default Asia/Kolkata.' }),
      followUp: str(BOUNDS.shortText, { examples: ['Review after 5 days'], description: 'Follow-up advice for printed documents.' }),
    },
  },
  {
    name: 'bundle-data-input',
    typeName: 'BundleDataInput',
    title: 'Bundle data input',
    section: '4.12',
    description: 'What buildBundleData takes: the fields of bundleData, with medications as the doctor wrote them.',
    closed: true,
    required: ['hospital', 'doctor'],
    properties: {
      hospital: ref('hospital'),
      doctor: ref('doctor'),
      documentUrl: CONTENT_FIELDS.documentUrl as FieldDef,
      diagnosis: CONTENT_FIELDS.diagnosis as FieldDef,
      medications: CONTENT_FIELDS.medications as FieldDef,
      labInvestigations: CONTENT_FIELDS.labInvestigations as FieldDef,
      advice: CONTENT_FIELDS.advice as FieldDef,
    },
  },
  {
    name: 'care-context-input',
    typeName: 'CareContextInput',
    title: 'Care context input',
    section: '4.12',
    description: 'The clinical content of one care context.',
    closed: true,
    required: [],
    properties: CONTENT_FIELDS,
  },
  {
    name: 'care-context-build-input',
    typeName: 'CareContextBuildInput',
    title: 'Care context build input',
    section: '4.12',
    description: 'What buildCareContext takes: the content of one care context with its hospital, doctor, visit id and visit date.',
    closed: true,
    required: ['hospital', 'doctor', 'visitId', 'visitDate'],
    properties: {
      ...CONTENT_FIELDS,
      hospital: ref('hospital'),
      visitId: str(BOUNDS.id, { minLength: 1 }),
      visitDate: str(10, { format: 'date' }),
      occurrence: int({ minimum: 1, maximum: BOUNDS.careContexts, description: 'This is the nth care context of its hiType in the visit (default 1); used in the derived referenceNumber.' }),
    },
  },
  {
    name: 'clinical-input',
    typeName: 'ClinicalInput',
    title: 'Clinical input',
    section: '4.12',
    description: 'Everything an EMR knows about one visit. Give the clinical content at the top level for one care context, or a careContexts list for several.',
    closed: true,
    required: ['hospital', 'doctor', 'patient', 'visit'],
    properties: {
      hipId: str(BOUNDS.id, { minLength: 1, description: 'Health-information-provider id. Default: hospital.id.' }),
      hospital: ref('hospital-input'),
      doctor: ref('doctor-input'),
      patient: ref('patient-input'),
      visit: ref('visit-input'),
      ...CONTENT_FIELDS,
      careContexts: arr(ref('care-context-input'), BOUNDS.careContexts),
    },
  },
  ...STAY_INPUTS,
];
