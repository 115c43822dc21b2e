/**
 * The FHIRPath invariants of the NRCeS profiles decided in code instead of by
 * the FHIRPath engine: each gives exactly the expression's result (quoted in
 * its comment) on the value the invariant is about, `resource` being the
 * resource that holds it (`%resource`). The engine costs tens of microseconds
 * per evaluation; these cost a property read or two. An invariant with no
 * entry here, or whose entry returns undefined (a case it leaves to the
 * engine), is evaluated by the optional fhirpath engine (compiled once).
 * test/fhir-nrces.test.ts compares each with FHIRPath on passing and failing
 * values.
 */
import { isObject } from '../../util.js';

type Json = Record<string, unknown>;

const underscored = new Map<string, string>();

/** `_x` for `x`, made once per name, as a property key (interned, so that reading it needs no lookup of the text). */
function underscore(k: string): string {
  let u = underscored.get(k);
  if (u === undefined) underscored.set(k, (u = Object.keys({ [`_${k}`]: 0 })[0] ?? `_${k}`));
  return u;
}

/** `x.exists()` of one element: the value, or the extensions of a primitive (`_x`). */
const has = (v: Json, k: string): boolean => v[k] !== undefined || v[underscore(k)] !== undefined;

/** `x.exists()` of a choice element `x[x]`: any `xType` key (or its `_xType`). */
function hasChoice(v: Json, prefix: string): boolean {
  for (const k in v) {
    const key = k.charCodeAt(0) === 95 /* _ */ ? k.slice(1) : k;
    if (key.length > prefix.length && key.startsWith(prefix)) {
      const c = key.charCodeAt(prefix.length);
      if (c >= 65 && c <= 90) return true;
    }
  }
  return false;
}

const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** The codings of a CodeableConcept (or of each of a list of them). */
const codingsOf = (cc: unknown): Json[] => listOf(cc).flatMap((c) => (isObject(c) ? listOf(c.coding).filter(isObject) : []));

/** Whether one of `codings` (a Coding or a list of them) is of `system` and one of `codes`. */
function codingIn(codings: unknown, system: string, codes: readonly string[]): boolean {
  const is = (c: unknown): boolean => isObject(c) && c.system === system && typeof c.code === 'string' && codes.includes(c.code);
  return Array.isArray(codings) ? codings.some(is) : is(codings);
}

/** `cc.coding.where(system = S and code in codes).exists()`, without a list made on the way. */
function hasCode(cc: unknown, system: string, codes: readonly string[]): boolean {
  if (isObject(cc)) return codingIn(cc.coding, system, codes);
  if (!Array.isArray(cc)) return false;
  for (const c of cc) if (isObject(c) && codingIn(c.coding, system, codes)) return true;
  return false;
}

/** Deep equality of JSON values (FHIRPath `=` on complex values, pattern-free `fixed[x]`). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

const count = (v: Json, k: string): number => listOf(v[k]).length;
const ALLERGY_VERIFICATION = 'http://terminology.hl7.org/CodeSystem/allergyintolerance-verification';
const CONDITION_VERIFICATION = 'http://terminology.hl7.org/CodeSystem/condition-ver-status';
const CONDITION_CLINICAL = 'http://terminology.hl7.org/CodeSystem/condition-clinical';

const PARTIAL_DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * FHIRPath `a >= b` on two dateTimes, with an empty result (different
 * precisions equal as far as both go) as true; undefined where abha-link
 * does not decide it (a time without seconds or zone, a date against a time).
 */
export function notBefore(a: string, b: string): boolean | undefined {
  if (INSTANT.test(a) && INSTANT.test(b)) return Date.parse(a) >= Date.parse(b);
  const x = PARTIAL_DATE.exec(a);
  const y = PARTIAL_DATE.exec(b);
  if (x === null || y === null) return undefined;
  for (let i = 1; i <= 3; i++) {
    const [p, q] = [x[i], y[i]];
    if (p === undefined || q === undefined) return true;
    if (p !== q) return p > q;
  }
  return true;
}

/** Invariant key → its result on a value (`v`) in `resource`, or undefined for a value left to the FHIRPath engine. */
export const NATIVE_INVARIANTS: Readonly<Record<string, (v: Json, resource: Json) => boolean | undefined>> = {
  // lastModified.exists().not() or authoredOn.exists().not() or lastModified >= authoredOn   (Task)
  'inv-1': (v) => {
    if (!has(v, 'lastModified') || !has(v, 'authoredOn')) return true;
    if (v.lastModified === undefined || v.authoredOn === undefined) return true;
    return typeof v.lastModified === 'string' && typeof v.authoredOn === 'string' ? notBefore(v.lastModified, v.authoredOn) : undefined;
  },
  // resource.exists() or request.exists() or response.exists()
  'bdl-5': (v) => has(v, 'resource') || has(v, 'request') || has(v, 'response'),
  // dataAbsentReason.empty() or value.empty()
  'obs-6': (v) => !has(v, 'dataAbsentReason') || !hasChoice(v, 'value'),
  // value.empty() or component.code.where(coding.intersect(%resource.code.coding).exists()).empty()
  'obs-7': (v, resource) => {
    if (!hasChoice(v, 'value') || v.component === undefined) return true;
    const own = codingsOf(isObject(resource.code) ? resource.code : undefined);
    return !listOf(v.component).some((c) => isObject(c) && codingsOf(c.code).some((x) => own.some((o) => deepEqual(x, o))));
  },
  // low.exists() or high.exists() or text.exists()
  'obs-3': (v) => has(v, 'low') || has(v, 'high') || has(v, 'text'),
  // verificationStatus.coding.where(system = '…allergyintolerance-verification' and code = 'entered-in-error').exists() or clinicalStatus.exists()
  'ait-1': (v) => hasCode(v.verificationStatus, ALLERGY_VERIFICATION, ['entered-in-error']) || has(v, 'clinicalStatus'),
  // verificationStatus.coding.where(system = '…allergyintolerance-verification' and code = 'entered-in-error').empty() or clinicalStatus.empty()
  'ait-2': (v) => !hasCode(v.verificationStatus, ALLERGY_VERIFICATION, ['entered-in-error']) || !has(v, 'clinicalStatus'),
  // type.exists() or actor.exists()
  'app-1': (v) => has(v, 'type') || has(v, 'actor'),
  // start.exists() = end.exists()
  'app-2': (v) => has(v, 'start') === has(v, 'end'),
  // (start.exists() and end.exists()) or (status in ('proposed' | 'cancelled' | 'waitlist'))
  'app-3': (v) => (has(v, 'start') && has(v, 'end')) || (typeof v.status === 'string' && ['proposed', 'cancelled', 'waitlist'].includes(v.status)),
  // Appointment.cancelationReason.exists() implies (Appointment.status='noshow' or Appointment.status='cancelled')
  'app-4': (v) => !has(v, 'cancelationReason') || v.status === 'noshow' || v.status === 'cancelled',
  // category.exists() xor productOrService.exists()
  'ces-1': (v) => has(v, 'category') !== has(v, 'productOrService'),
  // summary.exists() or assessment.exists()
  'con-1': (v) => has(v, 'summary') || has(v, 'assessment'),
  // code.exists() or detail.exists()
  'con-2': (v) => has(v, 'code') || has(v, 'detail'),
  // clinicalStatus.exists() or verificationStatus.coding.where(system='…condition-ver-status' and code = 'entered-in-error').exists()
  //   or category.select($this='problem-list-item').empty()   (a CodeableConcept never equals a string: false per category)
  'con-3': (v) => has(v, 'clinicalStatus') || hasCode(v.verificationStatus, CONDITION_VERIFICATION, ['entered-in-error']) || !has(v, 'category'),
  // abatement.empty() or clinicalStatus.coding.where(system='…condition-clinical' and (code='resolved' or code='remission' or code='inactive')).exists()
  'con-4': (v) => !hasChoice(v, 'abatement') || hasCode(v.clinicalStatus, CONDITION_CLINICAL, ['resolved', 'remission', 'inactive']),
  // verificationStatus.coding.where(system='…condition-ver-status' and code='entered-in-error').empty() or clinicalStatus.empty()
  'con-5': (v) => !hasCode(v.verificationStatus, CONDITION_VERIFICATION, ['entered-in-error']) || !has(v, 'clinicalStatus'),
  // detail.empty() or reference.empty()
  'cpl-3': (v) => !has(v, 'detail') || !has(v, 'reference'),
  // age.empty() or born.empty()
  'fhs-1': (v) => !hasChoice(v, 'age') || !hasChoice(v, 'born'),
  // age.exists() or estimatedAge.empty()
  'fhs-2': (v) => hasChoice(v, 'age') || !has(v, 'estimatedAge'),
  // documentType.exists() or reference.exists()
  'imm-1': (v) => has(v, 'documentType') || has(v, 'reference'),
  // vaccineCode.exists() or targetDisease.exists()
  'imr-1': (v) => has(v, 'vaccineCode') || has(v, 'targetDisease'),
  // (identifier.count() + name.count()) > 0
  'ipn-1': (v) => count(v, 'identifier') + count(v, 'name') > 0,
  'org-1': (v) => count(v, 'identifier') + count(v, 'name') > 0,
  // where(use = 'home').empty()  (on each address, each telecom)
  'org-2': (v) => v.use !== 'home',
  'org-3': (v) => v.use !== 'home',
  // name.exists() or telecom.exists() or address.exists() or organization.exists()
  'pat-1': (v) => has(v, 'name') || has(v, 'telecom') || has(v, 'address') || has(v, 'organization'),
  // orderDetail.empty() or code.exists()
  'prr-1': (v) => !has(v, 'orderDetail') || has(v, 'code'),
  // total.empty() or (type = 'searchset') or (type = 'history')
  'bdl-1': (v) => v.total === undefined || v.type === 'searchset' || v.type === 'history',
  // entry.search.empty() or (type = 'searchset')
  'bdl-2': (v) => v.type === 'searchset' || listOf(v.entry).every((e) => !isObject(e) || e.search === undefined),
  // entry.all(response.exists() = (%resource.type = 'batch-response' or %resource.type = 'transaction-response' or %resource.type = 'history'))
  'bdl-4': (v) => {
    const responses = v.type === 'batch-response' || v.type === 'transaction-response' || v.type === 'history';
    return listOf(v.entry).every((e) => !isObject(e) || (e.response !== undefined) === responses);
  },
  // type = 'message' implies entry.first().resource.is(MessageHeader)
  'bdl-12': (v) => {
    if (v.type !== 'message') return true;
    const first = listOf(v.entry)[0];
    return isObject(first) && isObject(first.resource) && first.resource.resourceType === 'MessageHeader';
  },
};
