/**
 * The mock's ABHA accounts: synthetic and deterministic for every valid
 * mobile number, or the accounts of a seed file. All people here are made up.
 */
import { createHash } from 'node:crypto';
import type { Issue } from '../errors.js';
import { escapePointerToken, pointer } from '../errors.js';

/** An account of the mock. */
export interface MockAccount {
  readonly mobile: string;
  /** 14 digits as `91-1234-5678-9012`. */
  readonly ABHANumber: string;
  readonly abhaAddress: string;
  readonly firstName: string;
  readonly middleName?: string;
  readonly lastName: string;
  /** `M`, `F` or `O`. */
  readonly gender: string;
  /** `YYYY-MM-DD`. */
  readonly dob: string;
  readonly email?: string;
  readonly stateName?: string;
  readonly districtName?: string;
  /** State code (the LGD code for real accounts; two digits here). */
  readonly stateCode?: string;
  /** District code (synthetic here). */
  readonly districtCode?: string;
  /** Six-digit PIN code. */
  readonly pinCode?: string;
  /** Postal address, one line. */
  readonly address?: string;
  readonly kycVerified: boolean;
  readonly status: string;
}

/** A seed file: `{ "accounts": [ { "mobile", "abhaAddress", "firstName", ... } ] }`. */
export interface MockSeed {
  readonly accounts: readonly MockAccount[];
}

const FIRST: readonly (readonly [string, 'M' | 'F'])[] = [
  ['Asha', 'F'],
  ['Ravi', 'M'],
  ['Meera', 'F'],
  ['Arjun', 'M'],
  ['Kavya', 'F'],
  ['Vikram', 'M'],
  ['Priya', 'F'],
  ['Rahul', 'M'],
  ['Lakshmi', 'F'],
  ['Suresh', 'M'],
  ['Ananya', 'F'],
  ['Imran', 'M'],
  ['Fatima', 'F'],
  ['Gurpreet', 'M'],
  ['Divya', 'F'],
  ['Joseph', 'M'],
];
const LAST: readonly string[] = ['Verma', 'Iyer', 'Nair', 'Reddy', 'Sharma', 'Khan', 'Das', 'Patel', 'Singh', 'Menon', 'Rao', 'Gupta'];
/** State, district, state code (LGD), a synthetic district code, the PIN code of the district's head post office. */
const PLACES: readonly (readonly [string, string, string, string, string])[] = [
  ['Karnataka', 'Bengaluru Urban', '29', '901', '560001'],
  ['Kerala', 'Ernakulam', '32', '902', '682011'],
  ['Maharashtra', 'Pune', '27', '903', '411001'],
  ['Tamil Nadu', 'Chennai', '33', '904', '600001'],
  ['Uttar Pradesh', 'Lucknow', '09', '905', '226001'],
  ['West Bengal', 'Kolkata', '19', '906', '700001'],
];
const STREETS: readonly string[] = ['MG Road', 'Station Road', 'Temple Street', 'Gandhi Nagar', 'Lake View Colony', 'Market Lane'];

const MOBILE = /^[0-9]{10}$/;

/** A synthetic 14-digit ABHA number (`91-1234-5678-9012`), the same for the same material. */
function abhaNumberFor(material: string): string {
  const digits = createHash('sha256')
    .update(`abha-number:${material}`)
    .digest('hex')
    .replace(/[a-f]/g, (c) => String(c.charCodeAt(0) % 10))
    .slice(0, 12);
  return `91-${digits.slice(0, 4)}-${digits.slice(4, 8)}-${digits.slice(8, 12)}`;
}

/**
 * The synthetic accounts of a mobile number: one to three, always the same
 * for the same number.
 *
 * @example
 * syntheticAccounts('9000000001').length //=> 1, 2 or 3, the same on every call
 */
export function syntheticAccounts(mobile: string): MockAccount[] {
  const h = createHash('sha256').update(`abha-link-mock:${mobile}`).digest();
  const count = 1 + ((h[0] ?? 0) % 3);
  const out: MockAccount[] = [];
  for (let i = 0; i < count; i++) {
    const b = (n: number): number => h[(i * 8 + n) % h.length] ?? 0;
    const [first, gender] = FIRST[b(1) % FIRST.length] ?? ['Asha', 'F'];
    const last = LAST[b(2) % LAST.length] ?? 'Verma';
    const [stateName, districtName, stateCode, districtCode, pinCode] = PLACES[b(3) % PLACES.length] ?? ['Karnataka', 'Bengaluru Urban', '29', '901', '560001'];
    const street = STREETS[b(0) % STREETS.length] ?? 'MG Road';
    const year = 1950 + (b(4) % 56);
    const month = 1 + (b(5) % 12);
    const day = 1 + (b(6) % 28);
    out.push({
      mobile,
      ABHANumber: abhaNumberFor(`${mobile}:${i}`),
      abhaAddress: `${first.toLowerCase()}.${last.toLowerCase()}${String(b(7) % 100).padStart(2, '0')}@sbx`,
      firstName: first,
      lastName: last,
      gender,
      dob: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      email: `${first.toLowerCase()}.${last.toLowerCase()}${String(b(7) % 100).padStart(2, '0')}@example.org`,
      stateName,
      districtName,
      stateCode,
      districtCode,
      pinCode,
      address: `${1 + (b(5) % 200)}, ${street}, ${districtName}`,
      kycVerified: true,
      status: 'ACTIVE',
    });
  }
  return out;
}

/**
 * A person's name with all but the first letter of each part hidden.
 *
 * @example
 * maskName('Asha Verma') //=> 'A*** V****'
 */
export function maskName(name: string): string {
  return name
    .split(/\s+/)
    .filter((p) => p !== '')
    .map((p) => `${p[0] ?? ''}${'*'.repeat(Math.max(1, p.length - 1))}`)
    .join(' ');
}

/**
 * An ABHA number with all but the last four digits hidden.
 *
 * @example
 * maskAbhaNumber('91-1234-5678-9012') //=> 'xx-xxxx-xxxx-9012'
 */
export function maskAbhaNumber(n: string): string {
  return `xx-xxxx-xxxx-${n.replace(/\D/g, '').slice(-4)}`;
}

const SEED_FIELDS: Readonly<Record<string, { required: boolean; check?: (v: string) => string | undefined }>> = {
  mobile: { required: true, check: (v) => (MOBILE.test(v) ? undefined : 'must be exactly 10 digits') },
  ABHANumber: { required: false, check: (v) => (/^\d{2}-\d{4}-\d{4}-\d{4}$/.test(v) ? undefined : 'must look like 91-1234-5678-9012') },
  abhaAddress: { required: true, check: (v) => (/^[a-zA-Z0-9][a-zA-Z0-9_.]*@[a-z]+$/.test(v) ? undefined : 'must look like name@sbx') },
  firstName: { required: true },
  middleName: { required: false },
  lastName: { required: false },
  gender: { required: false },
  dob: { required: false, check: (v) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? undefined : 'must be a date YYYY-MM-DD') },
  email: { required: false },
  stateName: { required: false },
  districtName: { required: false },
  stateCode: { required: false },
  districtCode: { required: false },
  pinCode: { required: false, check: (v) => (/^[0-9]{6}$/.test(v) ? undefined : 'must be exactly 6 digits') },
  address: { required: false },
  status: { required: false },
};

/**
 * Checks a parsed seed file and fills in defaults (an ABHA number derived
 * from the account's mobile and ABHA address, so that accounts sharing a
 * mobile get their own; gender `O`, status `ACTIVE`, KYC verified). Two
 * accounts with the same ABHA address or ABHA number (given or derived) are
 * refused. Issues point into the file and never quote its values.
 *
 * @example
 * parseSeed({ accounts: [{ mobile: '9000000001', abhaAddress: 'test.one@sbx', firstName: 'Test' }] })
 * //=> { success: true, seed: { accounts: [ ... ] } }
 * parseSeed({ accounts: [{ mobile: '12' }] }).issues?.[0]?.path //=> '/accounts/0/mobile'
 */
export function parseSeed(value: unknown): { success: true; seed: MockSeed } | { success: false; issues: Issue[] } {
  const issues: Issue[] = [];
  const bad = (path: string, code: string, message: string): void => {
    issues.push({ path, code, message, severity: 'error' });
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    bad('', 'type', 'the seed must be an object: { "accounts": [ ... ] }');
    return { success: false, issues };
  }
  const list = (value as { accounts?: unknown }).accounts;
  if (!Array.isArray(list)) {
    bad('/accounts', list === undefined ? 'required' : 'type', 'accounts must be an array of accounts');
    return { success: false, issues };
  }
  if (list.length > 10_000) bad('/accounts', 'too-many-items', 'accounts must have at most 10000 items');
  const accounts: MockAccount[] = [];
  const seen = new Set<string>();
  const numbers = new Set<string>();
  list.slice(0, 10_000).forEach((a: unknown, i) => {
    const at = pointer('accounts', i);
    if (a === null || typeof a !== 'object' || Array.isArray(a)) {
      bad(at, 'type', `accounts[${i}] must be an object`);
      return;
    }
    const r = a as Record<string, unknown>;
    for (const k of Object.keys(r)) {
      if (!Object.hasOwn(SEED_FIELDS, k) && k !== 'kycVerified') bad(`${at}/${escapePointerToken(k)}`, 'unknown-field', `${k.length > 40 ? 'this field' : k} is not a field of a seed account`);
    }
    for (const [k, def] of Object.entries(SEED_FIELDS)) {
      const v = r[k];
      if (v === undefined) {
        if (def.required) bad(`${at}/${k}`, 'required', `${k} is required`);
        continue;
      }
      if (typeof v !== 'string' || v.length === 0 || v.length > 255) {
        bad(`${at}/${k}`, 'type', `${k} must be a non-empty string of at most 255 characters`);
        continue;
      }
      const problem = def.check?.(v);
      if (problem !== undefined) bad(`${at}/${k}`, 'invalid', `${k} ${problem}`);
    }
    if (r.kycVerified !== undefined && typeof r.kycVerified !== 'boolean') bad(`${at}/kycVerified`, 'type', 'kycVerified must be true or false');
    const address = typeof r.abhaAddress === 'string' ? r.abhaAddress : '';
    if (address !== '' && seen.has(address)) bad(`${at}/abhaAddress`, 'duplicate', 'abhaAddress is used by an earlier account');
    seen.add(address);
    const mobile = typeof r.mobile === 'string' ? r.mobile : '';
    const abhaNumber = typeof r.ABHANumber === 'string' ? r.ABHANumber : abhaNumberFor(`seed:${mobile}:${address}`);
    if (numbers.has(abhaNumber)) {
      bad(
        `${at}/ABHANumber`,
        'duplicate',
        r.ABHANumber === undefined ? 'the ABHA number derived for this account is used by an earlier account; give ABHANumber' : 'ABHANumber is used by an earlier account',
      );
    }
    numbers.add(abhaNumber);
    if (issues.length > 0) return;
    accounts.push({
      mobile,
      ABHANumber: abhaNumber,
      abhaAddress: address,
      firstName: r.firstName as string,
      ...(typeof r.middleName === 'string' ? { middleName: r.middleName } : {}),
      lastName: typeof r.lastName === 'string' ? r.lastName : '',
      gender: typeof r.gender === 'string' ? r.gender : 'O',
      dob: typeof r.dob === 'string' ? r.dob : '1990-01-01',
      ...(typeof r.email === 'string' ? { email: r.email } : {}),
      ...(typeof r.stateName === 'string' ? { stateName: r.stateName } : {}),
      ...(typeof r.districtName === 'string' ? { districtName: r.districtName } : {}),
      ...(typeof r.stateCode === 'string' ? { stateCode: r.stateCode } : {}),
      ...(typeof r.districtCode === 'string' ? { districtCode: r.districtCode } : {}),
      ...(typeof r.pinCode === 'string' ? { pinCode: r.pinCode } : {}),
      ...(typeof r.address === 'string' ? { address: r.address } : {}),
      kycVerified: typeof r.kycVerified === 'boolean' ? r.kycVerified : true,
      status: typeof r.status === 'string' ? r.status : 'ACTIVE',
    });
  });
  return issues.length > 0 ? { success: false, issues } : { success: true, seed: { accounts } };
}
