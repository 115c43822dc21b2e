/**
 * FHIR R4 primitive values: the JSON type and the R4 regular expression of
 * each primitive type (the same tables as the document validator).
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

/** What is wrong with a primitive value of `type`, in words that never quote the value; undefined when nothing. */
export function checkPrimitive(value: unknown, type: string): { code: string; message: string; severity?: 'warning' } | undefined {
  const words = PRIMITIVES.has(type) ? PRIMITIVE_WORDS[type as Primitive] : (OTHER_WORDS[type] ?? 'a string');
  const bad = { code: 'type', message: `must be ${words}` };
  if (type === 'boolean') return typeof value === 'boolean' ? undefined : bad;
  const numeric = NUMERIC[type];
  if (numeric !== undefined) return typeof value === 'number' && numeric(value) ? undefined : bad;
  if (typeof value !== 'string') return bad;
  if (value === '') return { code: 'empty', message: 'must not be an empty string (FHIR ele-1)' };
  if (type === 'xhtml') {
    const problem = xhtmlProblem(value);
    return problem === undefined ? undefined : { code: 'narrative', message: problem };
  }
  if (value.trim() === '') return { code: 'empty', message: 'must have non-whitespace content' };
  if (type === 'base64Binary') {
    const s = value.replace(/\s+/g, '');
    return s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s) ? undefined : bad;
  }
  const re = PRIMITIVES.has(type) ? PRIMITIVE_PATTERNS[type as Primitive] : OTHER_PATTERNS[type];
  if (re !== undefined) return re.test(value) ? undefined : bad;
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(value)) return { code: 'control-characters', message: 'contains control characters, which FHIR strings should not', severity: 'warning' };
  return undefined;
}
