/**
 * Property-based tests (fast-check) of validation and of the builders:
 * validate never throws and its issues are well formed; odd keys such as
 * __proto__ do no harm; buildLinkRequest returns a valid request or throws a
 * ValidationError; builders do not mutate their input and are deterministic.
 * All generated people and ids are synthetic.
 */
import { readFileSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  HI_TYPES,
  SCHEMA_NAMES,
  buildBundleData,
  buildCareContext,
  buildDiagnosis,
  buildDoctor,
  buildHospital,
  buildLabInvestigation,
  buildLinkRequest,
  buildMedication,
  isValidationError,
  validate,
  type BuildOptions,
  type ClinicalInput,
  type Issue,
  type SchemaName,
} from '../src/index.js';

const NUM_RUNS = 200;
/** Per-schema properties run once per schema (50 schemas): fewer runs each. */
const PER_SCHEMA_RUNS = 60;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

type Path = readonly (string | number)[];

/** Resolves a JSON Pointer in a value; `found` is false when a token does not exist. */
function resolve(value: unknown, pointer: string): { found: boolean; value?: unknown } {
  if (pointer === '') return { found: true, value };
  let cur: unknown = value;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= cur.length) return { found: false };
      cur = cur[Number(token)];
    } else if (cur !== null && typeof cur === 'object') {
      if (!Object.hasOwn(cur, token)) return { found: false };
      cur = (cur as Record<string, unknown>)[token];
    } else return { found: false };
  }
  return { found: true, value: cur };
}

function parentOf(pointer: string): string {
  return pointer.slice(0, pointer.lastIndexOf('/'));
}

/** Asserts the shape every issue must have, and that its path points into `doc` (for JSON documents). */
function expectWellFormed(issues: readonly Issue[], doc: unknown, isJson: boolean): void {
  for (const i of issues) {
    expect(typeof i.path).toBe('string');
    expect(i.path === '' || i.path.startsWith('/')).toBe(true);
    // every ~ of a JSON Pointer is an escape: ~0 or ~1
    expect(/~(?![01])/.test(i.path)).toBe(false);
    expect(typeof i.code).toBe('string');
    expect(i.code.length).toBeGreaterThan(0);
    expect(typeof i.message).toBe('string');
    expect(i.message.length).toBeGreaterThan(0);
    expect(['error', 'warning']).toContain(i.severity);
    if (isJson && i.path !== '') {
      // a missing field is reported at its would-be place, inside an existing parent
      if (i.code === 'required') expect(resolve(doc, parentOf(i.path)).found).toBe(true);
      else if (i.code === 'unknown-field') {
        // an unknown key is given by its position among the keys of an existing object: #N
        const parent = resolve(doc, parentOf(i.path));
        expect(parent.found).toBe(true);
        const position = /\/#(\d+)$/.exec(i.path);
        expect(position).not.toBeNull();
        expect(Number(position?.[1])).toBeLessThan(Object.keys(parent.value as object).length);
      } else expect(resolve(doc, i.path).found).toBe(true);
    }
  }
}

function checkValidation(name: SchemaName, doc: unknown, isJson: boolean): void {
  const r = validate(name, doc);
  if (r.success) {
    expect(r.issues).toEqual([]);
    return;
  }
  expect(r.issues.length).toBeGreaterThan(0);
  expectWellFormed(r.issues, doc, isJson);
}

/** Every path in a JSON value. */
function pathsOf(v: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...pathsOf(x, [...at, i])));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...pathsOf(x, [...at, k]));
  return out;
}

/** A copy of `doc` with the value at `path` replaced, removed, or given an extra key. */
function mutate(doc: unknown, path: Path, how: 'replace' | 'remove' | 'add-key', value: unknown, key: string): unknown {
  const copy: unknown = JSON.parse(JSON.stringify(doc));
  if (path.length === 0) return how === 'replace' ? value : copy;
  let cur = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (how === 'replace') cur[last] = value;
  else if (how === 'remove') {
    if (Array.isArray(cur)) cur.splice(Number(last), 1);
    else delete cur[last];
  } else {
    const target = cur[last];
    if (target !== null && typeof target === 'object' && !Array.isArray(target)) Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    else cur[last] = value;
  }
  return copy;
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Reflect.ownKeys(v)) deepFreeze((v as Record<string | symbol, unknown>)[k]);
  }
  return v;
}

type Outcome = { ok: true; value: unknown } | { ok: false; issues: readonly Issue[] };

/** Runs a builder; returns its value or the issues of the ValidationError it threw. Any other throw fails the test. */
function outcome(build: () => unknown): Outcome {
  try {
    return { ok: true, value: build() };
  } catch (e) {
    if (!isValidationError(e)) throw e;
    expect(e.issues.length).toBeGreaterThan(0);
    return { ok: false, issues: e.issues };
  }
}

function noPollution(): void {
  const probe = {} as Record<string, unknown>;
  expect(probe.polluted).toBeUndefined();
  expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
  expect(Object.prototype.toString).toBe(ORIGINAL_TO_STRING);
  expect(Object.prototype.constructor).toBe(Object);
}
const ORIGINAL_TO_STRING = Object.prototype.toString;

// ---------------------------------------------------------------------------
// Seeds: valid documents to mutate, so that issues deep inside are exercised
// ---------------------------------------------------------------------------

const examplesDir = new URL('../examples/', import.meta.url);
const exampleFiles = readdirSync(examplesDir).filter((f) => f.endsWith('.json'));
const readExample = (f: string): unknown => JSON.parse(readFileSync(new URL(f, examplesDir), 'utf8'));
const exampleRequests = exampleFiles.filter((f) => f.endsWith('.request.json')).map(readExample);
const exampleInputs = exampleFiles.filter((f) => f.endsWith('.input.json')).map(readExample);

const account = { ABHANumber: '91-1000-2000-3001', name: 'Test Patient One', gender: 'M', kycVerified: true, mobileVerified: true };
const tokens = { token: 'eyJ.a.b', expiresIn: 1800, refreshToken: 'eyJ.c.d', refreshExpiresIn: 1296000 };
const SEEDS: Partial<Record<SchemaName, readonly unknown[]>> = {
  'link-carecontext-request': exampleRequests,
  'clinical-input': exampleInputs,
  'search-abha-response': [{ success: true, message: 'ok', data: [{ txnId: 't', ABHA: [{ index: 1, ABHANumber: 'xx-3001', kycVerified: 'true', authMethods: ['MOBILE_OTP'] }] }] }],
  'verify-otp-response': [{ success: true, data: { txnId: 't', authResult: 'success', ...tokens, accounts: [account] } }],
  'abha-address-login-verify-otp-response': [{ success: true, data: { txnId: 't', users: [{ abhaAddress: 'a@sbx', age: 30 }], tokens } }],
  'enroll-verify-otp-response': [{ success: true, data: { txnId: 't', tokens, ABHAProfile: { mobile: '9000012345', phrAddress: ['a@sbx'] }, isNew: true } }],
  'request-otp-request': [{ scope: ['abha-login'], loginHint: 'index', otpSystem: 'abdm', loginId: '1', txnId: 't' }],
  'aadhar-number-login-verify-otp-request': [{ txnId: 't', otpValue: '123456', mobile: '9000012345' }],
  'token-response': [{ status: true, message: 'ok', data: 'eyJ.a.b' }],
};

/** Valid-ish documents with one random subtree replaced, removed or extended. */
function mutatedDoc(name: SchemaName): fc.Arbitrary<unknown> {
  const seeds = SEEDS[name] ?? [{}];
  return fc
    .record({
      seed: fc.constantFrom(...seeds),
      n: fc.nat(),
      how: fc.constantFrom('replace' as const, 'remove' as const, 'add-key' as const),
      value: fc.jsonValue({ maxDepth: 2 }),
      key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'a/b', 'x~y')),
    })
    .map(({ seed, n, how, value, key }) => {
      const paths = pathsOf(seed);
      return mutate(seed, paths[n % paths.length] ?? [], how, value, key);
    });
}

const ANYTHING = fc.anything({
  maxDepth: 3,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withObjectString: true,
  withSet: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

// ---------------------------------------------------------------------------
// (a) + (b) validate never throws; issues are well formed
// ---------------------------------------------------------------------------

describe('validate never throws and reports well-formed issues', () => {
  it.each(SCHEMA_NAMES)('validate("%s", x) for any JSON value', (name) => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        checkValidation(name, v, true);
      }),
      { numRuns: PER_SCHEMA_RUNS },
    );
  });

  it.each(SCHEMA_NAMES)('validate("%s", x) for any JavaScript value (fc.anything)', (name) => {
    fc.assert(
      fc.property(ANYTHING, (v) => {
        checkValidation(name, v, false);
      }),
      { numRuns: PER_SCHEMA_RUNS },
    );
  });

  it.each(SCHEMA_NAMES)('validate("%s", x) for a document with one random subtree changed', (name) => {
    fc.assert(
      fc.property(mutatedDoc(name), (v) => {
        checkValidation(name, v, true);
      }),
      { numRuns: PER_SCHEMA_RUNS },
    );
  });

  it('validate(name, x) for a random schema name and any JSON value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SCHEMA_NAMES), fc.jsonValue(), (name, v) => {
        checkValidation(name, v, true);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('validation issues never quote a string value of the document', () => {
    // A distinctive marker in every string of a mutated link request.
    fc.assert(
      fc.property(mutatedDoc('link-carecontext-request'), fc.stringMatching(/^[A-Z]{4}-[0-9]{10}$/), (doc, marker) => {
        const marked = JSON.parse(JSON.stringify(doc, (_k, v: unknown) => (typeof v === 'string' ? `${marker}${v}` : v))) as unknown;
        const r = validate('link-carecontext-request', marked);
        if (!r.success) expect(JSON.stringify(r.issues.map((i) => [i.code, i.message]))).not.toContain(marker);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

// ---------------------------------------------------------------------------
// (c) __proto__, constructor, toString
// ---------------------------------------------------------------------------

const DANGEROUS_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'] as const;

/** An object with own properties of the given keys, built the way JSON.parse builds them. */
function ownObject(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

const POISON_JSON = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"toString":"not a function"}';

describe('__proto__, constructor and toString keys do no harm', () => {
  afterEach(() => {
    noPollution();
  });

  it.each(SCHEMA_NAMES)('validate("%s") of a JSON.parse-d object with __proto__, constructor and toString keys', (name) => {
    const doc: unknown = JSON.parse(POISON_JSON);
    expect(() => validate(name, doc)).not.toThrow();
    checkValidation(name, doc, true);
    noPollution();
  });

  it.each(SCHEMA_NAMES.filter((n) => n.endsWith('-request')))('request schema "%s" reports each of them as an unknown field', (name) => {
    const r = validate(name, JSON.parse(POISON_JSON));
    expect(r.success).toBe(false);
    if (r.success) return;
    // by position: __proto__, constructor and toString are the 1st, 2nd and 3rd keys
    for (const position of [0, 1, 2]) expect(r.issues).toContainEqual(expect.objectContaining({ path: `/#${position}`, code: 'unknown-field' }));
    const revealed = validate(name, JSON.parse(POISON_JSON), { revealKeys: true });
    for (const key of ['__proto__', 'constructor', 'toString']) expect(revealed.issues).toContainEqual(expect.objectContaining({ path: `/${key}`, code: 'unknown-field' }));
  });

  it('they are reported inside a link request too, and tolerated inside a response', () => {
    const [request] = exampleRequests as [Record<string, unknown>];
    const poisoned = JSON.parse(JSON.stringify(request).replace('"bundleData":{', `"bundleData":{"__proto__":{"polluted":"yes"},`)) as unknown;
    const r = validate('link-carecontext-request', poisoned);
    expect(r.success).toBe(false);
    if (!r.success) expect(r.issues).toEqual([expect.objectContaining({ path: '/careContexts/0/bundleData/#0', code: 'unknown-field' })]);
    const response: unknown = JSON.parse(`{"success":true,"data":{"txnId":"t","token":"t","accounts":[${POISON_JSON}]},"__proto__":{"polluted":"yes"}}`);
    expect(validate('verify-otp-response', response).success).toBe(true);
  });

  it('arbitrary objects mixing dangerous keys with real field names, for every schema', () => {
    const key = fc.constantFrom(...DANGEROUS_KEYS, 'mobile', 'success', 'data', 'careContexts', 'visit', 'hospital', 'name');
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.jsonValue({ maxDepth: 1 }).map((v) => ownObject([['__proto__', v]])),
    );
    fc.assert(
      fc.property(fc.constantFrom(...SCHEMA_NAMES), fc.array(fc.tuple(key, value), { maxLength: 6 }), (name, entries) => {
        const viaDefine = ownObject(entries);
        const viaJson: unknown = JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);
        checkValidation(name, viaDefine, true);
        checkValidation(name, viaJson, true);
        noPollution();
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('buildLinkRequest with dangerous keys at the top level and inside visit, patient and medications', () => {
    const input = exampleInputs.find((i) => Object.hasOwn(i as object, 'medications'));
    expect(input).toBeDefined();
    const places = ['', '"visit":{', '"patient":{', '"medications":[{'];
    for (const place of places) {
      const text = JSON.stringify(input);
      const poisoned = place === '' ? `{${POISON_JSON.slice(1, -1)},${text.slice(1)}` : text.replace(place, `${place}${POISON_JSON.slice(1, -1)},`);
      const o = outcome(() => buildLinkRequest(JSON.parse(poisoned) as ClinicalInput));
      expect(o.ok).toBe(false);
      noPollution();
    }
  });
});

// ---------------------------------------------------------------------------
// (d) buildLinkRequest: a valid request or a ValidationError
// ---------------------------------------------------------------------------

/** Text as people type it: mostly ordinary, sometimes anything at all. */
const plainText = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 .,()-]{0,24}$/);
const anyText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 3 }),
  fc.constantFrom('', '   ', '\t\n', 'x'.repeat(300)),
);
const text = fc.oneof({ weight: 5, arbitrary: plainText }, { weight: 1, arbitrary: anyText });
const id = fc.oneof({ weight: 5, arbitrary: fc.stringMatching(/^[A-Z]{2,4}-?[0-9]{3,10}$/) }, { weight: 1, arbitrary: anyText });

const two = (n: number) => String(n).padStart(2, '0');
const visitAt = fc.oneof(
  fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2035-12-31T23:59:59Z') }),
  fc
    .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2035-12-31T23:59:59Z'), noInvalidDate: true })
    .chain((d) => fc.constantFrom(d.toISOString(), d.toISOString().slice(0, 10), d.toISOString().slice(0, 16), `${d.toISOString().slice(0, 19)}+05:30`, `${d.toISOString().slice(0, 19)}-11:00`)),
  fc
    .record({ y: fc.integer({ min: 1990, max: 2035 }), m: fc.integer({ min: 0, max: 13 }), d: fc.integer({ min: 0, max: 32 }) }, { noNullPrototype: true })
    .map(({ y, m, d }) => `${y}-${two(m)}-${two(d)}`),
  fc.constantFrom('2026-02-30', '2026-13-01', '20-11-2026', '2026-11-20T25:00', '2028-02-29T10:00:00Z', 'yesterday'),
  anyText,
);
const timeZone = fc.oneof(fc.constantFrom('Asia/Kolkata', 'UTC', 'America/New_York', 'Pacific/Kiritimati', 'Etc/GMT+12', 'Mars/Olympus', ''), anyText);
const abhaAddress = fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9_.]{1,12}[a-z0-9]@(sbx|abdm)$/) }, { weight: 1, arbitrary: text });

const dose = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom(0.5, 1.5, 100, 101, -1), fc.double());
const frequency = fc.oneof(
  fc.constantFrom('1-0-1', '1-1-1', '0-0-1', '1-0-1-1', '½-0-½', '1½-0-1', '1 - 0 - 1', 'OD', 'bd', 'B.I.D.', 'T.D.S.', 'qid', 'HS', 'sos', 'PRN', 'stat.', 'after lunch'),
  text,
  fc.record({ morning: dose, afternoon: dose, evening: dose, night: dose }, { requiredKeys: [], noNullPrototype: true }),
);
const durationUnit = fc.oneof(fc.constantFrom('day', 'days', 'week', 'weeks', 'month', 'months', 'year', 'years'), text);
const duration = fc.oneof(
  fc.constantFrom('5 days', '5d', 'x 2 wks', 'for 1 month', '1 yr', '3 Days.', 'till review', '× 10 days'),
  text,
  fc.record({ value: fc.oneof(fc.integer({ min: 1, max: 90 }), fc.double()), unit: durationUnit }, { noNullPrototype: true }),
);
const medication = fc.record({ drugName: text, dosage: text, frequency, duration, instructions: text }, { requiredKeys: ['drugName'], noNullPrototype: true });
const diagnosis = fc.record(
  {
    diagnosisName: text,
    status: fc.oneof(fc.constantFrom('confirmed', 'provisional', 'Confirmed'), text),
    icdCode: fc.oneof(fc.constantFrom('E11.9', 'I10', 'J02.9', 'e11.9', 'S72.001A', 'R53'), text),
  },
  { requiredKeys: ['diagnosisName'], noNullPrototype: true },
);
const lab = fc.record({ testName: text, instructions: text }, { requiredKeys: ['testName'], noNullPrototype: true });
const doctor = fc.record({ name: text, licNumber: id, hpId: id }, { requiredKeys: ['name'], noNullPrototype: true });
const hospital = fc.record(
  { name: text, id, phone: fc.stringMatching(/^0[0-9]{2,4}-[0-9]{6,8}$/), email: fc.oneof(fc.constantFrom('records@clinic.example.org'), text) },
  { requiredKeys: ['name', 'id'], noNullPrototype: true },
);
const content = fc.record(
  {
    hiType: fc.oneof(fc.constantFrom(...HI_TYPES), fc.constantFrom('Invalid', ' Prescription '), text),
    referenceNumber: text,
    display: text,
    doctor,
    documentUrl: fc.oneof(fc.constantFrom('https://records.example.org/a.pdf', 'http://records.example.org/b.pdf', 'not a url'), text),
    diagnosis: fc.array(diagnosis, { maxLength: 3 }),
    medications: fc.array(medication, { maxLength: 4 }),
    labInvestigations: fc.array(lab, { maxLength: 3 }),
    advice: text,
  },
  { requiredKeys: [], noNullPrototype: true },
);
/** Content without the fields that most often make a build fail, so that successes are common. */
const simpleContent = fc.record(
  { medications: fc.array(medication, { minLength: 1, maxLength: 3 }), diagnosis: fc.array(diagnosis, { maxLength: 2 }) },
  { requiredKeys: ['medications'], noNullPrototype: true },
);

const base = fc.record(
  {
    hipId: id,
    hospital,
    doctor,
    patient: fc.record(
      { abhaAddress, name: text, gender: fc.constantFrom('M', 'F', 'O'), birthDate: fc.constantFrom('1990-01-15', '2026-02-30'), age: fc.integer({ min: -1, max: 151 }) },
      { requiredKeys: ['abhaAddress'], noNullPrototype: true },
    ),
    visit: fc.record({ id, at: visitAt, timeZone, followUp: text }, { requiredKeys: ['id', 'at'], noNullPrototype: true }),
  },
  { requiredKeys: ['hospital', 'doctor', 'patient', 'visit'], noNullPrototype: true },
);

/** Structurally plausible clinical inputs: the right shape, arbitrary leaves. */
const clinicalInput: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.tuple(base, fc.oneof(content, simpleContent)).map(([b, c]) => ({ ...b, ...c })),
  fc.tuple(base, fc.array(fc.oneof(content, simpleContent), { maxLength: 4 })).map(([b, careContexts]) => ({ ...b, careContexts })),
  // content both at the top level and in careContexts: a structural error
  fc.tuple(base, simpleContent, fc.array(simpleContent, { maxLength: 2 })).map(([b, c, careContexts]) => ({ ...b, ...c, careContexts })),
);

/**
 * Well-formed clinical inputs: every field the schema and the lint rules
 * check is drawn from acceptable values, while medication frequencies and
 * durations (text or structured) and the free-text fields stay arbitrary.
 * These must always build.
 */
const freeText = fc.string({ unit: 'grapheme', maxLength: 60 });
const wfDose = fc.double({ min: -100, max: 100, noNaN: true });
const wfMedication = fc.record(
  {
    drugName: plainText,
    dosage: freeText,
    frequency: fc.oneof(
      frequency.filter((f) => typeof f === 'string' && f.length <= 255),
      freeText,
      fc.record({ morning: wfDose, afternoon: wfDose, evening: wfDose, night: wfDose }, { requiredKeys: [], noNullPrototype: true }),
    ),
    duration: fc.oneof(
      fc.constantFrom('5 days', '5d', 'x 2 wks', 'for 1 month', '1 yr', 'till review'),
      freeText,
      fc.record(
        {
          value: fc.double({ min: 0, max: 10000, minExcluded: true, noNaN: true }),
          unit: fc.constantFrom('day', 'days', 'week', 'weeks', 'month', 'months', 'year', 'years'),
        },
        { noNullPrototype: true },
      ),
    ),
    instructions: freeText,
  },
  { requiredKeys: ['drugName'], noNullPrototype: true },
);
const wfContent = fc.record(
  {
    hiType: fc.constantFrom(...HI_TYPES.filter((t) => t !== 'Prescription')),
    documentUrl: fc.constantFrom('https://records.example.org/a.pdf', 'https://records.example.org/visits/V-1.pdf'),
    diagnosis: fc.array(
      fc.record(
        { diagnosisName: plainText, status: freeText, icdCode: fc.constantFrom('E11.9', 'I10', 'J02.9', 'e11.9', 'S72.001A', 'R53') },
        { requiredKeys: ['diagnosisName'], noNullPrototype: true },
      ),
      { maxLength: 3 },
    ),
    medications: fc.array(wfMedication, { maxLength: 4 }),
    labInvestigations: fc.array(fc.record({ testName: plainText, instructions: freeText }, { requiredKeys: ['testName'], noNullPrototype: true }), { maxLength: 3 }),
    advice: freeText,
  },
  { requiredKeys: [], noNullPrototype: true },
);
const wfAt = fc
  .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2035-12-31T23:59:59Z'), noInvalidDate: true })
  .chain((d) => fc.constantFrom<Date | string>(d, d.toISOString(), d.toISOString().slice(0, 10), d.toISOString().slice(0, 16), `${d.toISOString().slice(0, 19)}+05:30`));
const wfBase = fc.record(
  {
    hipId: id.filter((x) => /^[A-Z]/.test(x)),
    hospital: fc.record(
      { name: plainText, id: fc.stringMatching(/^IN[0-9]{10}$/), phone: fc.stringMatching(/^0[0-9]{2,4}-[0-9]{6,8}$/), email: fc.constant('records@clinic.example.org') },
      { requiredKeys: ['name', 'id'], noNullPrototype: true },
    ),
    doctor: fc.record(
      { name: plainText, licNumber: fc.stringMatching(/^[A-Z]{2,4}-[0-9]{3,6}$/), hpId: fc.stringMatching(/^71-[0-9]{4}-[0-9]{4}-[0-9]{4}$/) },
      { requiredKeys: ['name'], noNullPrototype: true },
    ),
    patient: fc.record(
      {
        abhaAddress: fc.stringMatching(/^[a-z0-9][a-z0-9_.]{1,12}[a-z0-9]@(sbx|abdm)$/),
        name: plainText,
        gender: fc.constantFrom('M', 'F', 'O'),
        birthDate: fc.constant('1990-01-15'),
        age: fc.integer({ min: 0, max: 150 }),
      },
      { requiredKeys: ['abhaAddress'], noNullPrototype: true },
    ),
    visit: fc.record(
      {
        id: fc.oneof(
          fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9/#_. -]{0,40}$/),
          id.filter((x) => /^[A-Z]/.test(x)),
        ),
        at: wfAt,
        timeZone: fc.constantFrom('Asia/Kolkata', 'UTC', 'America/New_York', 'Pacific/Kiritimati'),
        followUp: freeText,
      },
      { requiredKeys: ['id', 'at'], noNullPrototype: true },
    ),
  },
  { requiredKeys: ['hospital', 'doctor', 'patient', 'visit'], noNullPrototype: true },
);
const wellFormedInput: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.tuple(wfBase, wfContent).map(([b, c]) => ({ ...b, ...c })),
  fc.tuple(wfBase, fc.array(wfContent, { minLength: 1, maxLength: 4 })).map(([b, careContexts]) => ({ ...b, careContexts })),
);

/** A clinical input with one random subtree replaced by arbitrary JSON. */
const damagedInput = fc.tuple(fc.constantFrom(...exampleInputs), fc.nat(), fc.jsonValue({ maxDepth: 2 })).map(([seed, n, value]) => {
  const paths = pathsOf(seed);
  return mutate(seed, paths[n % paths.length] ?? [], 'replace', value, '');
});

function checkBuild(input: unknown, options?: BuildOptions): Outcome {
  const o = outcome(() => buildLinkRequest(input as ClinicalInput, options));
  if (o.ok) {
    const r = validate('link-carecontext-request', o.value);
    expect(r.issues).toEqual([]);
    expect(r.success).toBe(true);
  } else {
    expectWellFormed(o.issues, input, false);
  }
  return o;
}

describe('buildLinkRequest returns a valid link request or throws a ValidationError', () => {
  it('for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        checkBuild(v);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('for any JavaScript value (fc.anything)', () => {
    fc.assert(
      fc.property(ANYTHING, (v) => {
        checkBuild(v);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('for example inputs with one subtree replaced by arbitrary JSON', () => {
    fc.assert(
      fc.property(damagedInput, (v) => {
        checkBuild(v);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('for structurally plausible clinical inputs (arbitrary leaves), with and without lint', () => {
    fc.assert(
      fc.property(clinicalInput, (input) => {
        const o = checkBuild(input);
        const loose = checkBuild(input, { lint: false });
        // lint only ever turns a success into a failure, never the reverse
        if (o.ok) expect(loose).toEqual(o);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('for well-formed clinical inputs with arbitrary frequencies, durations and free text: always builds (the success path)', () => {
    fc.assert(
      fc.property(wellFormedInput, (input) => {
        const o = checkBuild(input);
        expect(o).toMatchObject({ ok: true });
        if (!o.ok) return;
        const value = o.value as { careContexts: unknown[]; visitId: string; abhaAddress: string };
        const careContexts = input.careContexts as unknown[] | undefined;
        expect(value.careContexts).toHaveLength(careContexts?.length ?? 1);
        expect(value.visitId).toBe((input.visit as { id: string }).id.trim());
        expect(value.abhaAddress).toBe((input.patient as { abhaAddress: string }).abhaAddress);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('the example inputs build', () => {
    for (const input of exampleInputs) expect(checkBuild(input).ok).toBe(true);
  });
});

describe('buildLinkRequest: edge cases found by the properties above', () => {
  const goodInput = {
    hospital: { name: 'Sample Clinic', id: 'IN0000000002' },
    doctor: { name: 'Dr. Test', licNumber: 'TMC-00001' },
    patient: { abhaAddress: 'test.patient@sbx' },
    medications: [{ drugName: 'ORS sachet', dosage: '1 sachet', frequency: 'TDS' }],
  };
  const withAt = (at: unknown): unknown => ({ ...goodInput, visit: { id: 'V-0001', at } });

  // Years before 1900 are typos: reported, never a RangeError.
  it('a visit instant in the year 999, given as ISO text with Z, gives a ValidationError rather than a RangeError', () => {
    checkBuild(withAt('0999-06-01T00:00:00Z'));
  });
  it('for any visit instant in the years 0001-0999, as a Date or as ISO text with an offset', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('0999-06-30T00:00:00Z'), noInvalidDate: true }), fc.boolean(), (d, asText) => {
        checkBuild(withAt(asText ? `${d.toISOString().slice(0, 19)}+05:30` : d));
      }),
      { numRuns: 50 },
    );
  });

  // Some database drivers and parsers make objects without a prototype.
  it('a visit without a prototype builds like the same visit as a plain object', () => {
    const at = new Date('2026-11-20T05:00:00Z');
    const plain = outcome(() => buildLinkRequest(withAt(at) as ClinicalInput));
    expect(plain.ok).toBe(true);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { id: 'V-0001', at });
    const nullProto = outcome(() => buildLinkRequest({ ...goodInput, visit: bare } as unknown as ClinicalInput));
    expect(nullProto).toEqual(plain);
  });

  // Real offsets lie between -12:00 and +14:00.
  it('a visit time with an impossible UTC offset (+99:00) is rejected at /visit/at', () => {
    const o = checkBuild(withAt('2026-11-20T10:00:00+99:00'));
    expect(o.ok).toBe(false);
    if (!o.ok) expect(o.issues).toContainEqual(expect.objectContaining({ path: '/visit/at' }));
  });
});

// ---------------------------------------------------------------------------
// (e) builders do not mutate their input; (f) same input, same output
// ---------------------------------------------------------------------------

interface BuilderCase {
  readonly name: string;
  readonly build: (input: unknown) => unknown;
  readonly output: SchemaName;
  readonly input: fc.Arbitrary<unknown>;
}

const BUILDERS: readonly BuilderCase[] = [
  { name: 'buildLinkRequest', build: (i) => buildLinkRequest(i as unknown as ClinicalInput), output: 'link-carecontext-request', input: fc.oneof(clinicalInput, wellFormedInput, damagedInput) },
  {
    name: 'buildCareContext',
    build: (i) => buildCareContext(i as Parameters<typeof buildCareContext>[0]),
    output: 'care-context',
    input: fc
      .tuple(content, hospital, doctor, id, fc.constantFrom('2026-11-20', '2028-02-29', '2026-02-30'), fc.option(fc.integer({ min: 0, max: 101 }), { nil: undefined }))
      .map(([c, h, d, visitId, visitDate, occurrence]) => ({ ...c, hospital: h, doctor: d, visitId, visitDate, ...(occurrence === undefined ? {} : { occurrence }) })),
  },
  {
    name: 'buildBundleData',
    build: (i) => buildBundleData(i as Parameters<typeof buildBundleData>[0]),
    output: 'bundle-data',
    input: fc.tuple(content, hospital, doctor).map(([c, h, d]) => {
      const { hiType: _h, referenceNumber: _r, display: _d, ...rest } = c;
      return { ...rest, hospital: h, doctor: d };
    }),
  },
  { name: 'buildMedication', build: (i) => buildMedication(i as Parameters<typeof buildMedication>[0]), output: 'medication', input: medication },
  { name: 'buildDiagnosis', build: (i) => buildDiagnosis(i as Parameters<typeof buildDiagnosis>[0]), output: 'diagnosis', input: diagnosis },
  { name: 'buildLabInvestigation', build: (i) => buildLabInvestigation(i as Parameters<typeof buildLabInvestigation>[0]), output: 'lab-investigation', input: lab },
  { name: 'buildHospital', build: (i) => buildHospital(i as Parameters<typeof buildHospital>[0]), output: 'hospital', input: hospital },
  { name: 'buildDoctor', build: (i) => buildDoctor(i as Parameters<typeof buildDoctor>[0]), output: 'doctor', input: doctor },
];

describe('builders do not mutate their input and are deterministic', () => {
  it.each(BUILDERS)('$name returns a value that passes its output schema, or throws a ValidationError', ({ build, output, input }) => {
    fc.assert(
      fc.property(input, (i) => {
        const o = outcome(() => build(i));
        if (o.ok) expect(validate(output, o.value).issues).toEqual([]);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it.each(BUILDERS)('$name does not mutate its (deep-frozen) input', ({ build, input }) => {
    fc.assert(
      fc.property(input, (i) => {
        const before = structuredClone(i);
        deepFreeze(i);
        outcome(() => build(i)); // a write to a frozen object throws a TypeError, which fails here
        expect(i).toEqual(before);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it.each(BUILDERS)('$name does not mutate an unfrozen input either', ({ build, input }) => {
    fc.assert(
      fc.property(input, (i) => {
        const before = structuredClone(i);
        outcome(() => build(i));
        expect(i).toEqual(before);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it.each(BUILDERS)('$name gives the same output for the same input (twice, and for a copy)', ({ build, input }) => {
    fc.assert(
      fc.property(input, (i) => {
        const first = outcome(() => build(i));
        const again = outcome(() => build(i));
        const copy = outcome(() => build(structuredClone(i)));
        expect(again).toEqual(first);
        expect(copy).toEqual(first);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it.each(BUILDERS)('$name output shares no object with its input (changing the output leaves the input alone)', ({ build, input }) => {
    fc.assert(
      fc.property(input, (i) => {
        const before = structuredClone(i);
        const o = outcome(() => build(i));
        if (!o.ok) return;
        const scribble = (v: unknown): void => {
          if (Array.isArray(v)) {
            v.forEach(scribble);
            v.push('scribbled');
          } else if (v !== null && typeof v === 'object') {
            for (const x of Object.values(v)) scribble(x);
            (v as Record<string, unknown>).scribbled = true;
          }
        };
        scribble(o.value);
        expect(i).toEqual(before);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  describe('buildLinkRequest does not depend on the clock or the process time zone', () => {
    const savedTz = process.env.TZ;
    afterEach(() => {
      vi.useRealTimers();
      if (savedTz === undefined) delete process.env.TZ;
      else process.env.TZ = savedTz;
    });

    it('same input at different system times gives the same result', () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      fc.assert(
        fc.property(fc.oneof(clinicalInput, wellFormedInput), (i) => {
          vi.setSystemTime(new Date('2001-01-01T00:00:00Z'));
          const early = outcome(() => buildLinkRequest(i as unknown as ClinicalInput));
          vi.setSystemTime(new Date('2099-12-31T23:59:59Z'));
          const late = outcome(() => buildLinkRequest(i as unknown as ClinicalInput));
          expect(late).toEqual(early);
        }),
        { numRuns: NUM_RUNS / 2 },
      );
    });

    it('same input under different process time zones gives the same result', () => {
      fc.assert(
        fc.property(fc.oneof(clinicalInput, wellFormedInput), (i) => {
          process.env.TZ = 'Pacific/Kiritimati';
          const east = outcome(() => buildLinkRequest(i as unknown as ClinicalInput));
          process.env.TZ = 'Etc/GMT+12';
          const west = outcome(() => buildLinkRequest(i as unknown as ClinicalInput));
          expect(west).toEqual(east);
        }),
        { numRuns: NUM_RUNS / 2 },
      );
    });
  });
});
