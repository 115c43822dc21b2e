// One module each: the package's index loads its 300 modules (half a second of start-up).
import { isValid } from 'date-fns/isValid';
import { parseISO } from 'date-fns/parseISO';
import { calendarDateIn, isKnownTimeZone } from '../time.js';
import { DEFAULT_TIME_ZONE } from '../spec/constants.js';
import { boundedMemo } from '../util.js';

/** Why a visit time could not be turned into a date. */
export type VisitDateProblem = 'invalid-datetime' | 'unknown-time-zone';

const OFFSET = /(Z|[+-]\d{2}:\d{2})$/;

/**
 * The visit date (YYYY-MM-DD) in the facility's time zone, or the problem.
 *
 * - a `Date`, or an ISO string with `Z` or an offset, is an instant: its date
 *   is taken in `timeZone` (default Asia/Kolkata, so 2026-11-20T19:30:00Z is
 *   2026-11-21 and 2026-11-20T18:00:00Z is 2026-11-20 at 23:30 IST);
 * - an ISO date-time without offset is wall-clock time at the facility: its
 *   date part is the date;
 * - a bare YYYY-MM-DD is the date itself.
 *
 * @example
 * visitDateOf('2026-11-20T19:30:00Z') //=> { date: '2026-11-21' }
 * visitDateOf('2026-02-30')           //=> { problem: 'invalid-datetime' }
 * visitDateOf('0999-06-01T00:00:00Z') //=> { problem: 'invalid-datetime' } (before 1900)
 */
export function visitDateOf(at: Date | string, timeZone: string = DEFAULT_TIME_ZONE): { date: string } | { problem: VisitDateProblem } {
  if (at instanceof Date) return readVisitDate(at, timeZone);
  // Parsing ISO text costs microseconds and a service reads the same few visit times again and again: once each.
  return { ...visitDates.get(`${timeZone}\u0000${at}`, () => readVisitDate(at, timeZone)) };
}

/** What {@link visitDateOf} has read of each text in each zone. */
const visitDates = boundedMemo<{ date: string } | { problem: VisitDateProblem }>();

function readVisitDate(at: Date | string, timeZone: string): { date: string } | { problem: VisitDateProblem } {
  if (!isKnownTimeZone(timeZone)) return { problem: 'unknown-time-zone' };
  let date: string;
  if (at instanceof Date) {
    if (!isValid(at)) return { problem: 'invalid-datetime' };
    date = calendarDateIn(at, timeZone);
  } else {
    // date-fns parseISO rejects impossible dates such as 2026-02-30 or 25:00.
    const parsed = parseISO(at);
    if (!isValid(parsed)) return { problem: 'invalid-datetime' };
    date = OFFSET.test(at) ? calendarDateIn(parsed, timeZone) : at.slice(0, 10);
  }
  // A visit before 1900 or after 9999 is a typo, not a visit.
  if (!/^(19|[2-9][0-9])[0-9]{2}-[0-9]{2}-[0-9]{2}$/.test(date)) return { problem: 'invalid-datetime' };
  return { date };
}
