/**
 * FHIR date, dateTime and instant text in a facility time zone, with the
 * platform's Intl data. Pure: nothing here reads the clock.
 */
import { isValid, parseISO } from 'date-fns';

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
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

interface WallTime {
  readonly date: string;
  readonly time: string;
  readonly offset: string;
}

/** The last wall time made: a document formats its visit time more than once (Composition.date, Bundle.timestamp). */
let last: { ms: number; timeZone: string; wall: WallTime } | undefined;

function wallTime(instant: Date, timeZone: string): WallTime {
  const ms = instant.getTime();
  if (last !== undefined && last.ms === ms && last.timeZone === timeZone) return last.wall;
  const wall = formatWallTime(instant, timeZone);
  last = { ms, timeZone, wall };
  return wall;
}

function formatWallTime(instant: Date, timeZone: string): WallTime {
  // One pass over the parts (this runs for every date-time of every bundle).
  const v: Record<string, string> = { year: '', month: '', day: '', hour: '', minute: '', second: '', timeZoneName: '' };
  for (const p of formatterFor(timeZone).formatToParts(instant)) if (p.type !== 'literal' && v[p.type] === '') v[p.type] = p.value;
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

const OFFSET = /(Z|[+-]\d{2}:\d{2})$/i;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The moment a visit's `at` stands for: a Date, ISO text with an offset, or
 * wall-clock text at the facility (a bare date is its midnight there).
 * Undefined when the text is not a real date-time.
 */
export function instantOf(at: Date | string, timeZone: string): Date | undefined {
  if (at instanceof Date) return isValid(at) ? at : undefined;
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

/**
 * The FHIR `dateTime` of a visit: with time and offset when the visit time
 * is known, the bare date when only a date is (link requests).
 *
 * @example
 * visitDateTime('2026-11-20T10:30:00', 'Asia/Kolkata') //=> '2026-11-20T10:30:00+05:30'
 * visitDateTime('2026-11-20', 'Asia/Kolkata')          //=> '2026-11-20'
 */
export function visitDateTime(at: Date | string, timeZone: string): string | undefined {
  if (typeof at === 'string' && DATE_ONLY.test(at)) return isValid(parseISO(at)) ? at : undefined;
  const instant = instantOf(at, timeZone);
  return instant === undefined ? undefined : fhirDateTime(instant, timeZone);
}
