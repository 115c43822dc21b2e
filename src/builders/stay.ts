/**
 * Checks of the discharge-summary and immunisation content that the schema
 * cannot express: dates that exist, a discharge that does not come before
 * the admission. The content itself never enters the link request; it
 * feeds FHIR and printing.
 */
import { pointer, type Issue } from '../errors.js';
import type { CareContextInput } from '../generated/types.js';
import { instantOf } from '../time.js';

const INVALID = 'must be a real date or date-time (ISO 8601, e.g. 2026-11-20 or 2026-11-20T10:30:00+05:30)';

/** The moment a date or date-time of the content stands for, in the facility's time zone; undefined when it is not real. */
function momentOf(value: string, timeZone: string): Date | undefined {
  const t = instantOf(value.trim(), timeZone);
  return t === undefined || t.getUTCFullYear() < 1900 ? undefined : t;
}

/**
 * Issues of the inpatient stay and immunisations of one care context's
 * content at `at` (a JSON Pointer): every date real, the discharge not
 * before the admission.
 *
 * @example
 * stayIssues({ inpatientStay: { admittedAt: '2026-11-20', dischargedAt: '2026-11-18' } }, '', 'Asia/Kolkata')
 * //=> [{ path: '/inpatientStay/dischargedAt', code: 'discharge-before-admission', ... }]
 */
export function stayIssues(content: CareContextInput, at: string, timeZone: string): Issue[] {
  const issues: Issue[] = [];
  const check = (value: string | undefined, ...tokens: Array<string | number>): Date | undefined => {
    if (value === undefined) return undefined;
    const m = momentOf(value, timeZone);
    if (m === undefined) issues.push({ path: `${at}${pointer(...tokens)}`, code: 'invalid-datetime', message: `${String(tokens[tokens.length - 1])} ${INVALID}`, severity: 'error' });
    return m;
  };
  const stay = content.inpatientStay;
  if (stay !== undefined) {
    const admitted = check(stay.admittedAt, 'inpatientStay', 'admittedAt');
    const discharged = check(stay.dischargedAt, 'inpatientStay', 'dischargedAt');
    if (admitted !== undefined && discharged !== undefined && discharged.getTime() < admitted.getTime())
      issues.push({
        path: `${at}/inpatientStay/dischargedAt`,
        code: 'discharge-before-admission',
        message: 'dischargedAt is before admittedAt; the discharge must come after the admission',
        severity: 'error',
      });
    stay.procedures?.forEach((p, i) => check(p.date, 'inpatientStay', 'procedures', i, 'date'));
    stay.investigations?.forEach((x, i) => check(x.date, 'inpatientStay', 'investigations', i, 'date'));
  }
  content.immunizations?.forEach((im, i) => check(im.date, 'immunizations', i, 'date'));
  return issues;
}
