/**
 * Calendar dates in a facility's time zone, with the platform's Intl data
 * (no time-zone database is bundled). Pure: nothing here reads the clock.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    // en-CA formats dates as YYYY-MM-DD; the parts are read one by one anyway.
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when `timeZone` is an IANA time-zone name this platform knows. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/**
 * The calendar date (YYYY-MM-DD) of an instant in a time zone.
 *
 * @throws RangeError when the time zone is unknown or the date invalid
 *
 * @example
 * calendarDateIn(new Date('2026-11-20T19:30:00Z'), 'Asia/Kolkata')
 * //=> '2026-11-21'
 */
export function calendarDateIn(instant: Date, timeZone: string): string {
  const parts = formatterFor(timeZone).formatToParts(instant);
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year').padStart(4, '0')}-${get('month')}-${get('day')}`;
}

/** English month abbreviations, as printed in displays and on English documents. */
export const MONTHS_EN: readonly string[] = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A calendar date YYYY-MM-DD as "day month year" with the given month names;
 * anything else is returned as given. No time zone is involved.
 *
 * @example
 * formatCalendarDate('2026-11-20') //=> '20 Nov 2026'
 */
export function formatCalendarDate(date: string, months: readonly string[] = MONTHS_EN): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const month = m === null ? undefined : months[Number(m[2]) - 1];
  if (m === null || month === undefined) return date;
  return `${Number(m[3])} ${month} ${m[1] ?? ''}`;
}
