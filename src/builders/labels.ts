import { formatCalendarDate } from '../time.js';
import { ABDM_LABEL_MAX, HI_TYPE_DISPLAY, type HiType } from '../spec/constants.js';

/** FNV-1a, 32 bits, as 8 hex digits: a short stable fingerprint, not a security hash. */
function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * A stable care-context reference: the visit id, the hiType and, for the
 * second and later care contexts of the same hiType in one visit, a counter.
 * Characters ABDM rejects are replaced by `-`, and then a fingerprint of the
 * original visit id keeps different visit ids apart.
 *
 * @example
 * deriveReferenceNumber('OPD-2026-0042', 'Prescription', 1) //=> 'OPD-2026-0042-Prescription'
 * deriveReferenceNumber('OPD-2026-0042', 'Prescription', 2) //=> 'OPD-2026-0042-Prescription-2'
 * deriveReferenceNumber('OPD#42', 'OPConsultation', 1)      //=> 'OPD-42-1a2b3c4d-OPConsultation' (fingerprint varies)
 */
export function deriveReferenceNumber(visitId: string, hiType: string, occurrence: number): string {
  const clean = (s: string): string => s.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '');
  let id = clean(visitId);
  if (id !== visitId) id = `${id.slice(0, 150)}-${fingerprint(visitId)}`.replace(/^-/, '');
  const type = clean(hiType) || fingerprint(hiType);
  return `${id}-${type}${occurrence > 1 ? `-${occurrence}` : ''}`;
}

/**
 * A patient-readable care-context display: record type, facility and date,
 * using only characters ABDM accepts and at most 255 of them.
 *
 * @example
 * deriveDisplay('Prescription', 'City Care Clinic', '2026-11-20')
 * //=> 'Prescription at City Care Clinic on 20 Nov 2026'
 */
export function deriveDisplay(hiType: string, hospitalName: string, visitDate: string): string {
  const kind = Object.hasOwn(HI_TYPE_DISPLAY, hiType) ? HI_TYPE_DISPLAY[hiType as HiType] : hiType;
  const when = formatCalendarDate(visitDate);
  const safe = (s: string): string =>
    s
      .replace(/[^a-zA-Z0-9_\-@,. "':|()/]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  const place = safe(hospitalName);
  const tail = ` on ${when}`;
  const head = safe(kind) || 'Health record';
  if (place === '') return `${head}${tail}`.slice(0, ABDM_LABEL_MAX);
  const room = ABDM_LABEL_MAX - head.length - tail.length - ' at '.length;
  return `${head} at ${place.slice(0, Math.max(0, room)).trim()}${tail}`;
}
