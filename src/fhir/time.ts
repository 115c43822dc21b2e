/**
 * FHIR date, dateTime and instant text in a facility time zone (the zone
 * arithmetic is in src/time.ts). Pure: nothing here reads the clock.
 */
import { DATE_ONLY, instantOf, isCalendarDate, wallTime } from '../time.js';

/**
 * A FHIR `instant` (seconds, milliseconds and offset) for a moment, written
 * in the facility's time zone.
 *
 * @example
 * fhirInstant(new Date('2026-11-20T05:00:00Z'), 'Asia/Kolkata') //=> '2026-11-20T10:30:00.000+05:30'
 */
export function fhirInstant(instant: Date, timeZone: string): string {
  const w = wallTime(instant, timeZone);
  const ms = String(instant.getUTCMilliseconds()).padStart(3, '0');
  return `${w.date}T${w.time}.${ms}${w.offset}`;
}

/** A FHIR `dateTime` with seconds and offset (no milliseconds), in the facility's time zone. */
export function fhirDateTime(instant: Date, timeZone: string): string {
  const w = wallTime(instant, timeZone);
  return `${w.date}T${w.time}${w.offset}`;
}

/**
 * The FHIR `dateTime` of a visit: with time and offset when the visit time
 * is known, the bare date when only a date is (link requests).
 *
 * @example
 * visitDateTime('2026-11-20T10:30:00', 'Asia/Kolkata') //=> '2026-11-20T10:30:00+05:30'
 * visitDateTime('2026-11-20', 'Asia/Kolkata')          //=> '2026-11-20'
 */
export function visitDateTime(at: Date | string, timeZone: string): string | undefined {
  if (typeof at === 'string' && DATE_ONLY.test(at)) return isCalendarDate(at) ? at : undefined;
  const instant = instantOf(at, timeZone);
  return instant === undefined ? undefined : fhirDateTime(instant, timeZone);
}
