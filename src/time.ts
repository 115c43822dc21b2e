/**
 * Calendar dates, wall-clock times and zone offsets in a facility's time
 * zone, with the platform's Intl data (no time-zone database is bundled).
 * Pure: nothing here reads the clock.
 */
// One module each: the package's index loads its 300 modules (half a second of start-up).
import { isValid } from 'date-fns/isValid';
import { parseISO } from 'date-fns/parseISO';
import { pairMemo } from './util.js';

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
  return calendarDates.get(timeZone, instant.getTime(), () => {
    const parts = formatterFor(timeZone).formatToParts(instant);
    const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
    return `${get('year').padStart(4, '0')}-${get('month')}-${get('day')}`;
  });
}

/*
 * Memos of what the platform's Intl and date parsing make of one instant or
 * text: a build reads the same visit time several times (the visit date, the
 * Composition, the Bundle timestamp, the stay's checks), and formatting with
 * Intl costs microseconds.
 */
const calendarDates = pairMemo<string>();
const wallTimes = pairMemo<WallTime>();
/** Epoch milliseconds, NaN for text that is no instant. */
const instants = pairMemo<number>();

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

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    partsFormatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock date, time and UTC offset of an instant in a time zone. */
export interface WallTime {
  readonly date: string;
  readonly time: string;
  readonly offset: string;
}

/**
 * The wall-clock date (YYYY-MM-DD), time (HH:MM:SS) and offset (+05:30) of an
 * instant in `timeZone`.
 *
 * @example
 * wallTime(new Date('2026-11-20T05:00:00Z'), 'Asia/Kolkata') //=> { date: '2026-11-20', time: '10:30:00', offset: '+05:30' }
 */
export function wallTime(instant: Date, timeZone: string): WallTime {
  return wallTimes.get(timeZone, instant.getTime(), () => formatWallTime(instant, timeZone));
}

function formatWallTime(instant: Date, timeZone: string): WallTime {
  // One pass over the parts (this runs for every date-time of every bundle).
  const v: Record<string, string> = { year: '', month: '', day: '', hour: '', minute: '', second: '', timeZoneName: '' };
  for (const p of partsFormatterFor(timeZone).formatToParts(instant)) if (p.type !== 'literal' && v[p.type] === '') v[p.type] = p.value;
  const name = v.timeZoneName as string; // "GMT+05:30", or "GMT" for UTC
  const offset = name === 'GMT' || name === '' ? '+00:00' : name.slice(3);
  return { date: `${v.year}-${v.month}-${v.day}`, time: `${v.hour}:${v.minute}:${v.second}`, offset };
}

/** Offset of `timeZone` at `instant`, in minutes east of UTC. */
function offsetMinutes(instant: Date, timeZone: string): number {
  const o = wallTime(instant, timeZone).offset;
  const sign = o.startsWith('-') ? -1 : 1;
  return sign * (Number(o.slice(1, 3)) * 60 + Number(o.slice(4, 6)));
}

const OFFSET = /(Z|[+-]\d{2}:\d{2})$/i;
/** A calendar date alone (YYYY-MM-DD), without a time. */
export const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * True when a calendar date YYYY-MM-DD names a real day: month 01 to 12, day
 * 01 to the month's last (29 February in leap years only); what date-fns's
 * `parseISO` accepts, without its parsing.
 *
 * @example
 * isCalendarDate('2028-02-29') //=> true
 * isCalendarDate('2026-02-29') //=> false
 */
export function isCalendarDate(date: string): boolean {
  if (!DATE_ONLY.test(date)) return false;
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const day = Number(date.slice(8, 10));
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 400 === 0 || (year % 4 === 0 && year % 100 !== 0);
  return day <= (month === 2 ? (leap ? 29 : 28) : DAYS_IN_MONTH[month - 1]!);
}

/** Days of each month of a common year. */
const DAYS_IN_MONTH: readonly number[] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The moment a visit's `at` stands for: a Date, ISO text with an offset, or
 * wall-clock text at the facility (a bare date is its midnight there).
 * Undefined when the text is not a real date-time.
 */
export function instantOf(at: Date | string, timeZone: string): Date | undefined {
  if (at instanceof Date) return isValid(at) ? at : undefined;
  const ms = instants.get(timeZone, at, () => parseInstant(at, timeZone)?.getTime() ?? Number.NaN);
  // A new Date each time: the caller may change the one it gets.
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

function parseInstant(at: string, timeZone: string): Date | undefined {
  const parsed = parseISO(at);
  if (!isValid(parsed)) return undefined;
  if (OFFSET.test(at)) return parsed;
  // Wall-clock time at the facility: read the fields as if UTC, then shift by the zone's offset there.
  const wall = DATE_ONLY.test(at) ? `${at}T00:00:00Z` : `${at}Z`;
  const asUtc = parseISO(wall);
  if (!isValid(asUtc)) return undefined;
  let guess = new Date(asUtc.getTime() - offsetMinutes(asUtc, timeZone) * 60_000);
  guess = new Date(asUtc.getTime() - offsetMinutes(guess, timeZone) * 60_000);
  return guess;
}
