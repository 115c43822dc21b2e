/**
 * FHIR R4 primitive values: the JSON type and the R4 regular expression of
 * each primitive type, each compiled once into a checker.
 */
import { PRIMITIVE_PATTERNS, PRIMITIVE_WORDS, PRIMITIVES, type Primitive } from '../structure.js';
import { xhtmlProblem } from '../xhtml.js';

const NUMERIC: Readonly<Record<string, (n: number) => boolean>> = {
  integer: (n) => Number.isInteger(n),
  positiveInt: (n) => Number.isInteger(n) && n > 0,
  unsignedInt: (n) => Number.isInteger(n) && n >= 0,
  decimal: (n) => Number.isFinite(n),
};

const OTHER_WORDS: Readonly<Record<string, string>> = { oid: 'an OID (urn:oid:…)', uuid: 'a UUID (urn:uuid:…)' };
const OTHER_PATTERNS: Readonly<Record<string, RegExp>> = { oid: /^urn:oid:[0-2](\.(0|[1-9][0-9]*))+$/, uuid: /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/ };

/** What is wrong with a primitive value: a code, a message that never quotes the value, a severity (error by default). */
export interface PrimitiveProblem {
  readonly code: string;
  readonly message: string;
  readonly severity?: 'warning';
}
/** The check of one primitive type: what is wrong with a value, or undefined. */
export type PrimitiveCheck = (value: unknown) => PrimitiveProblem | undefined;
type Check = PrimitiveCheck;

const EMPTY: PrimitiveProblem = { code: 'empty', message: 'must not be an empty string (FHIR ele-1)' };
const BLANK: PrimitiveProblem = { code: 'empty', message: 'must have non-whitespace content' };
const CONTROL: PrimitiveProblem = { code: 'control-characters', message: 'contains control characters, which FHIR strings should not', severity: 'warning' };
const NON_BLANK = /\S/;
const SPACE = /\s/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether a non-empty string has non-whitespace content: a visible ASCII first character decides most without a scan. */
function nonBlank(s: string): boolean {
  const c = s.charCodeAt(0);
  return (c > 32 && c < 127) || NON_BLANK.test(s);
}

/** The checker of one primitive type, made once per type: its problems are built once too. */
function compileCheck(type: string): Check {
  const words = PRIMITIVES.has(type) ? PRIMITIVE_WORDS[type as Primitive] : (OTHER_WORDS[type] ?? 'a string');
  const bad: PrimitiveProblem = { code: 'type', message: `must be ${words}` };
  if (type === 'boolean') return (v) => (typeof v === 'boolean' ? undefined : bad);
  const numeric = NUMERIC[type];
  if (numeric !== undefined) return (v) => (typeof v === 'number' && numeric(v) ? undefined : bad);
  const re = PRIMITIVES.has(type) ? PRIMITIVE_PATTERNS[type as Primitive] : OTHER_PATTERNS[type];
  /** The string rules every string type shares (ele-1), then the type's own. */
  const text =
    (own: (s: string) => PrimitiveProblem | undefined): Check =>
    (v) => {
      if (typeof v !== 'string') return bad;
      if (v === '') return EMPTY;
      return own(v);
    };
  if (type === 'xhtml')
    return text((s) => {
      const problem = xhtmlProblem(s);
      return problem === undefined ? undefined : { code: 'narrative', message: problem };
    });
  // White space is allowed in base64 and not counted; most data has none, and is then not copied without it.
  if (type === 'base64Binary') return text((s) => (!nonBlank(s) ? BLANK : (s = SPACE.test(s) ? s.replace(/\s+/g, '') : s).length % 4 === 0 && BASE64.test(s) ? undefined : bad));
  if (re !== undefined) return text((s) => (!nonBlank(s) ? BLANK : re.test(s) ? undefined : bad));
  return text((s) => (!nonBlank(s) ? BLANK : CONTROL_CHARACTERS.test(s) ? CONTROL : undefined));
}

const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;
const checks = new Map<string, Check>();

/** The check of primitive `type` (what is wrong with a value, in words that never quote it), compiled once per type. */
export function primitiveCheck(type: string): PrimitiveCheck {
  let check = checks.get(type);
  if (check === undefined) {
    check = compileCheck(type);
    checks.set(type, check);
  }
  return check;
}
