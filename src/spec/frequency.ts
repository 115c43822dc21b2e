import type { FrequencyInput } from '../generated/types.js';
import { boundedMemo } from '../util.js';

// "daily", "a day", "per day", "in a day", "/day".
const A_DAY = '(?:daily|(?:a|per|in a|each) day|/ ?day)';
const ABBREVIATIONS: ReadonlyArray<readonly [RegExp, string, string]> = [
  [new RegExp(`^(o\\.?d\\.?|once ${A_DAY}|(?:1|one) times? ${A_DAY}|daily|every day|q\\.?d\\.?)$`), 'OD', 'Once a day'],
  [new RegExp(`^(b\\.?d\\.?(s\\.?)?|b\\.?i\\.?d\\.?|twice ${A_DAY}|(?:2|two) times ${A_DAY})$`), 'BD', 'Twice a day'],
  [new RegExp(`^(t\\.?d\\.?s\\.?|t\\.?i\\.?d\\.?|thrice ${A_DAY}|(?:3|three) times ${A_DAY})$`), 'TDS', 'Three times a day'],
  [new RegExp(`^(q\\.?i\\.?d\\.?|q\\.?d\\.?s\\.?|(?:4|four) times ${A_DAY})$`), 'QID', 'Four times a day'],
  // "OD HS" (once a day, at bedtime) says no more than HS.
  [/^((o\.?d\.?|once( daily| a day)?),? )?(h\.?s\.?|(at )?bed ?time)$/, 'HS', 'At bedtime'],
  [/^(s\.?o\.?s\.?|p\.?r\.?n\.?|(when|if|as) (required|needed))$/, 'SOS', 'When required'],
  [/^(stat\.?|immediately)$/, 'STAT', 'Immediately, once'],
];

/** Q4H, q.6.h., "every 8 hours", "8 hourly", "8-hrly": a dose every so many hours (1 to 24). */
const INTERVAL = /^(?:q\.? ?(\d{1,2})\.? ?h\.?|(?:once )?every (\d{1,2}) ?(?:hours?|hrs?)|(\d{1,2})[ -]?(?:hourly|hrly))$/;
/** The words abha-link writes for an interval: "Every 6 hours (Q6H)". */
const INTERVAL_OWN = /^Every (\d{1,2}) hours \(Q(\d{1,2})H\)$/;

const TIMES = ['', 'once', 'twice', 'three times', 'four times', 'five times', 'six times'];
const SLOTS3 = ['morning', 'afternoon', 'night'];
const SLOTS4 = ['morning', 'afternoon', 'evening', 'night'];
// A dose count: 1, 2, 0.5, ½ or 1½.
const DOSE = '(?:\\d{1,2}(?:\\.\\d{1,2})?|\\d?½)';
// Three, four or five times of day (1-0-1, 1-0-1-1, 1-0-1-0-1).
const PATTERN = new RegExp(`^${DOSE}(?:\\s*-\\s*${DOSE}){2,4}$`);
// The same typed on a keyboard: 1/2 for ½, 1 1/2 for 1½, and dashes a word processor made of hyphens.
const KEYBOARD_DOSE = '(?:\\d{1,2}(?:\\.\\d{1,2})?|(?:\\d ?)?1/2|\\d?½)';
const KEYBOARD_PATTERN = new RegExp(`^${KEYBOARD_DOSE}(?:\\s*[-–—]\\s*${KEYBOARD_DOSE}){2,4}$`);

/** How many times a week, in words and figures: "once", "twice", "thrice", "3 times", "three times". */
const COUNT_WORDS: Readonly<Record<string, number>> = { once: 1, twice: 2, thrice: 3, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };
/** OW, "once a week", "weekly", "every week", "twice weekly", "3 times a week", BIW, TIW. */
const WEEKLY =
  /^(?:(once|twice|thrice|[1-6] ?times?|(?:one|two|three|four|five|six) times) (?:(?:a|per|every|in a) week|weekly)|(weekly|every week|o\.?w\.?|q\.?wk?\.?)|(b\.?i\.?w\.?)|(t\.?i\.?w\.?))$/;
/** Alternate days: "alternate day(s)", AD, EOD, QOD, "every other day", Q48H. */
const ALTERNATE = /^(?:(?:on )?alternate days?|(?:once )?every (?:other|alternate|second) day|a\.?d\.?|e\.?o\.?d\.?|q\.?o\.?d\.?|q ?48 ?h|once in (?:2|two) days)$/;

/** The days of the week, in FHIR's codes (Timing.repeat.dayOfWeek), Monday first. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
/** A day of the week, as FHIR codes it. */
export type Weekday = (typeof WEEKDAYS)[number];
const WEEKDAY_NAMES: Readonly<Record<Weekday, string>> = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };
const DAY = '(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)s?\\.?';
const DAY_LIST = new RegExp(`^(?:(?:once )?(?:every|on|each) )?(${DAY}(?:(?:\\s*(?:,|/|&|\\band\\b|,\\s*and\\b)\\s*|\\s+)${DAY})*)(?: (?:every week|weekly))?$`);

/** Timing relative to food written into a frequency ("1-1-1 after food"), as the instructions' words name it. */
export type FoodTiming = 'afterFood' | 'beforeFood' | 'withFood' | 'emptyStomach';
/** The English words of each food timing: the normalised text and the instructions abha-link reads. */
export const FOOD_TIMING: Readonly<Record<FoodTiming, { readonly words: string; readonly read: RegExp }>> = {
  afterFood: { words: 'after food', read: /^(?:after (?:food|meals?)|p\.?c\.?)$/i },
  beforeFood: { words: 'before food', read: /^(?:before (?:food|meals?)|a\.?c\.?)$/i },
  withFood: { words: 'with food', read: /^(?:with (?:food|meals?))$/i },
  emptyStomach: { words: 'on an empty stomach', read: /^(?:(?:on )?(?:an )?empty stomach)$/i },
};
const FOOD_TAIL = /(?:,\s*|\s+)\(?((?:after|before|with) (?:food|meals?)|(?:on )?(?:an )?empty stomach|p\.?c\.?|a\.?c\.?)\)?$/i;
/** A duration written after a frequency: "x 5 days", "× 5d", "for 2 weeks", ", for 1 month". */
const DURATION_TAIL = /(?:,\s*|\s+)(?:x|×|for)\s*(\d{1,3})\s*(d|days?|w|wks?|weeks?|mo?|months?)\.?$/i;
/** A duration written into a frequency. */
export interface FrequencyDuration {
  readonly value: number;
  readonly unit: 'day' | 'week' | 'month';
}

/** A keyboard dose as the notation writes it: 1/2 → ½, 1 1/2 → 1½. */
function keyboardDose(d: string): string {
  const t = d.trim();
  return t.endsWith('1/2') ? `${t.slice(0, -3).trim()}½` : t;
}

function doseValue(s: string): number {
  if (s.endsWith('½')) return (s.length > 1 ? Number(s.slice(0, -1)) : 0) + 0.5;
  return Number(s);
}

function list(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1] ?? ''}`;
}

function describePattern(doses: readonly string[]): string {
  const taken = doses.flatMap((d, i) => (doseValue(d) > 0 ? [i] : []));
  const notation = doses.join('-');
  if (taken.length === 0) return notation;
  const times = TIMES[taken.length] ?? `${taken.length} times`;
  // Five times of day have no agreed names: the notation says which, the words how many.
  if (doses.length === 5) return `${notation} (${times} a day)`;
  const slots = doses.length === 3 ? SLOTS3 : SLOTS4;
  return `${notation} (${times} a day: ${list(taken.map((i) => slots[i] ?? ''))})`;
}

/** An abbreviation code abha-link reads. */
export type FrequencyCode = 'OD' | 'BD' | 'TDS' | 'QID' | 'HS' | 'SOS' | 'STAT';

/** What a frequency may say besides how often: a food timing or a duration written into it ("BD x 5 days", "1-1-1 after food"). */
export interface FrequencyExtras {
  readonly food?: FoodTiming;
  readonly duration?: FrequencyDuration;
}

/** How often, as {@link parseFrequency} reads it (without the extras). */
export type FrequencyCore =
  | { readonly kind: 'abbreviation'; readonly code: FrequencyCode; readonly words: string }
  /** A dose every `hours` hours (Q6H, "every 8 hours", "12 hourly"). */
  | { readonly kind: 'interval'; readonly hours: number }
  /** `doses` as written, one per time of day (3, 4 or 5 of them); `timesPerDay` counts those above zero. */
  | { readonly kind: 'pattern'; readonly doses: readonly string[]; readonly timesPerDay: number }
  /** `timesPerWeek` times a week, on days not said (OW, "weekly", "thrice weekly"). */
  | { readonly kind: 'weekly'; readonly timesPerWeek: number }
  /** Every other day (AD, EOD, "alternate day"). */
  | { readonly kind: 'alternateDays' }
  /** On these days of the week, Monday first ("every Monday", "Mon, Thu"). */
  | { readonly kind: 'weekdays'; readonly days: readonly Weekday[] };

/** What a frequency says, as {@link parseFrequency} reads it: how often (with any food timing or duration written into it), or text it cannot read. */
export type ParsedFrequency = (FrequencyCore & FrequencyExtras) | { readonly kind: 'text'; readonly text: string };

function pattern(doses: readonly string[]): FrequencyCore {
  return { kind: 'pattern', doses, timesPerDay: doses.filter((d) => doseValue(d) > 0).length };
}

function weekly(lower: string): FrequencyCore | null {
  const w = WEEKLY.exec(lower);
  if (w === null) return null;
  if (w[2] !== undefined) return { kind: 'weekly', timesPerWeek: 1 };
  if (w[3] !== undefined) return { kind: 'weekly', timesPerWeek: 2 };
  if (w[4] !== undefined) return { kind: 'weekly', timesPerWeek: 3 };
  const count = (w[1] ?? '').split(' ')[0] ?? '';
  const n = /^\d/.test(count) ? Number.parseInt(count, 10) : (COUNT_WORDS[count] ?? 0);
  return n >= 1 && n <= 6 ? { kind: 'weekly', timesPerWeek: n } : null;
}

function weekdays(lower: string): FrequencyCore | null {
  const m = DAY_LIST.exec(lower);
  if (m === null) return null;
  const named = (m[1] ?? '').match(/[a-z]+/g) ?? [];
  const days = WEEKDAYS.filter((d) => named.some((w) => w !== 'and' && w.startsWith(d)));
  return days.length === 0 ? null : { kind: 'weekdays', days };
}

/** How often, when the whole text says only that; null otherwise. */
function parseCore(text: string): FrequencyCore | null {
  const lower = text.toLowerCase();
  for (const [re, code, words] of ABBREVIATIONS) {
    if (re.test(lower) || text === `${words} (${code})`) return { kind: 'abbreviation', code: code as FrequencyCode, words };
  }
  const typed = INTERVAL.exec(lower);
  const own = INTERVAL_OWN.exec(text);
  const hours = typed !== null ? Number(typed[1] ?? typed[2] ?? typed[3]) : own !== null && own[1] === own[2] ? Number(own[1]) : 0;
  if (hours >= 1 && hours <= 24) return { kind: 'interval', hours };
  if (ALTERNATE.test(lower)) return { kind: 'alternateDays' };
  const byWeek = weekly(lower) ?? weekdays(lower);
  if (byWeek !== null) return byWeek;
  if (PATTERN.test(text)) return pattern(text.split('-').map((d) => d.trim()));
  if (KEYBOARD_PATTERN.test(text)) return pattern(text.split(/[-–—]/).map(keyboardDose));
  const open = text.indexOf(' (');
  if (open > 0 && PATTERN.test(text.slice(0, open))) {
    const own = pattern(text.slice(0, open).split('-'));
    if (own.kind === 'pattern' && describePattern(own.doses) === text) return own;
  }
  return null;
}

const DURATION_UNIT = (u: string): FrequencyDuration['unit'] => (/^w/i.test(u) ? 'week' : /^m/i.test(u) ? 'month' : 'day');

/** A food timing and a duration written after how often (in either order), and the text before them. */
function extrasOf(text: string): { head: string; extras: FrequencyExtras } {
  let head = text;
  let food: FoodTiming | undefined;
  let duration: FrequencyDuration | undefined;
  for (let i = 0; i < 2; i++) {
    const d = duration === undefined ? DURATION_TAIL.exec(head) : null;
    if (d !== null) {
      duration = { value: Number(d[1]), unit: DURATION_UNIT(d[2] ?? 'd') };
      head = head.slice(0, d.index);
      continue;
    }
    const f = food === undefined ? FOOD_TAIL.exec(head) : null;
    if (f === null) break;
    food = (Object.keys(FOOD_TIMING) as FoodTiming[]).find((k) => FOOD_TIMING[k].read.test(f[1] ?? ''));
    head = head.slice(0, f.index);
  }
  return { head, extras: { ...(food === undefined ? {} : { food }), ...(duration === undefined ? {} : { duration }) } };
}

/**
 * Reads a frequency: an abbreviation, an interval, a dose pattern (three, four or five times of day), so many times a
 * week, alternate days or named weekdays, each with any food timing or duration written after it; or text it cannot
 * read. It also reads its own output (`Twice a day (BD)`, `1-0-1 (twice a day: …), after food`), so normalising twice
 * changes nothing and later layers (FHIR) can read the strings of a built payload.
 *
 * @example
 * parseFrequency('b.d.')                                     //=> { kind: 'abbreviation', code: 'BD', words: 'Twice a day' }
 * parseFrequency('1-0-1 (twice a day: morning and night)')   //=> { kind: 'pattern', doses: ['1', '0', '1'], timesPerDay: 2 }
 * parseFrequency('thrice weekly')                            //=> { kind: 'weekly', timesPerWeek: 3 }
 * parseFrequency('BD x 5 days')                              //=> { kind: 'abbreviation', code: 'BD', words: 'Twice a day', duration: { value: 5, unit: 'day' } }
 * parseFrequency('after lunch on Sundays')                   //=> { kind: 'text', text: 'after lunch on Sundays' }
 */
export function parseFrequency(input: string | FrequencyInput): ParsedFrequency {
  if (typeof input !== 'string') {
    const doses = input.evening === undefined ? [input.morning ?? 0, input.afternoon ?? 0, input.night ?? 0] : [input.morning ?? 0, input.afternoon ?? 0, input.evening, input.night ?? 0];
    // A pattern without any dose says nothing: no frequency (lint then asks for one).
    if (doses.every((d) => d === 0)) return { kind: 'text', text: '' };
    return pattern(doses.map((d) => String(d)));
  }
  const text = input.trim().replace(/\s+/g, ' ');
  const core = parseCore(text);
  if (core !== null) return core;
  const { head, extras } = extrasOf(text);
  // A duration of nothing ("x 0 days") is not read: the text stays as written.
  const read = head === text || (extras.duration?.value ?? 1) < 1 ? null : parseCore(head.trim());
  return read === null ? { kind: 'text', text } : { ...read, ...extras };
}

/**
 * @internal The frequency of a built payload as later layers (lint, FHIR) read
 * it. A payload's text may carry a note after the notation ("1-0-1 (after
 * food)") or end in a code ("… (BD)", "… (Q6H)"): those are read too, without
 * changing the text that is kept.
 */
export function readFrequency(frequency: string): ParsedFrequency {
  // Lint, the FHIR dosage and printing each read the same few frequencies of a payload ("1-0-1", "BD"): read each once.
  return readFrequencies.get(frequency, () => readFrequencyOnce(frequency));
}

/** What {@link readFrequency} has read, by text (results are readonly). */
const readFrequencies = boundedMemo<ParsedFrequency>();

function readFrequencyOnce(frequency: string): ParsedFrequency {
  const f = parseFrequency(frequency);
  if (f.kind !== 'text') return f;
  const code = /\((OD|BD|TDS|QID|HS|SOS|STAT|Q\d{1,2}H)\)$/.exec(f.text)?.[1];
  if (code !== undefined) return parseFrequency(code);
  const open = f.text.indexOf(' (');
  const head = open > 0 ? parseFrequency(f.text.slice(0, open)) : f;
  return head.kind === 'pattern' ? head : f;
}

const WEEK_TIMES = ['', 'Once', 'Twice', 'Three times', 'Four times', 'Five times', 'Six times'];

/** How often, in the words abha-link writes. */
function describeCore(f: FrequencyCore): string {
  switch (f.kind) {
    case 'abbreviation':
      return `${f.words} (${f.code})`;
    case 'interval':
      return `Every ${f.hours} hours (Q${f.hours}H)`;
    case 'pattern':
      return describePattern(f.doses);
    case 'weekly':
      return `${WEEK_TIMES[f.timesPerWeek] ?? `${f.timesPerWeek} times`} a week`;
    case 'alternateDays':
      return 'On alternate days';
    case 'weekdays':
      return `Every ${list(f.days.map((d) => WEEKDAY_NAMES[d]))}`;
  }
}

/**
 * Turns a frequency as doctors write it into one consistent human string.
 *
 * Indian notation is recognised case-insensitively, with or without dots:
 * dose patterns (1-0-1, 1-1-1, 0-0-1, 1-0-1-1, 1-0-1-0-1, ½-0-½, also typed 1/2-0-1/2),
 * the abbreviations OD, BD (BID, BDS), TDS (TID), QID (QDS), HS (OD HS),
 * SOS (PRN) and STAT, intervals (Q4H, Q6H, Q8H, Q12H, "every 6 hours",
 * "8 hourly"), weekly (OW, "once a week", "thrice weekly", BIW, TIW),
 * alternate days (AD, EOD, "alternate day"), named weekdays ("every Monday",
 * "Mon, Thu") and the same in English ("twice daily", "thrice a day",
 * "once daily", "at bedtime", "when required"). A food timing or a duration
 * written after it ("1-1-1 after food", "BD x 5 days") is kept, in words. A structured
 * pattern `{ morning, afternoon, evening, night }` becomes the same string as
 * its notation. Anything else is kept as the doctor wrote it (trimmed).
 *
 * @example
 * normalizeFrequency('1-0-1')            //=> '1-0-1 (twice a day: morning and night)'
 * normalizeFrequency('bd')               //=> 'Twice a day (BD)'
 * normalizeFrequency('1/2-0-1/2')        //=> '½-0-½ (twice a day: morning and night)'
 * normalizeFrequency('Q6H')              //=> 'Every 6 hours (Q6H)'
 * normalizeFrequency('thrice daily')     //=> 'Three times a day (TDS)'
 * normalizeFrequency('thrice weekly')    //=> 'Three times a week'
 * normalizeFrequency('EOD')              //=> 'On alternate days'
 * normalizeFrequency('Mon, Thu')         //=> 'Every Monday and Thursday'
 * normalizeFrequency('BD x 5 days')      //=> 'Twice a day (BD), for 5 days'
 * normalizeFrequency('1-1-1 after food') //=> '1-1-1 (three times a day: morning, afternoon and night), after food'
 * normalizeFrequency({ morning: 1, night: 1 }) //=> '1-0-1 (twice a day: morning and night)'
 * normalizeFrequency({})                 //=> '' (no dose at any time: no frequency)
 * normalizeFrequency('after lunch on Sundays') //=> 'after lunch on Sundays'
 */
export function normalizeFrequency(input: string | FrequencyInput): string {
  // The same few frequencies ("1-0-1", "BD") come again and again: each text is read once.
  return typeof input === 'string' ? normalized.get(input, () => normalizeOnce(input)) : normalizeOnce(input);
}

/** What {@link normalizeFrequency} has made of each text. */
const normalized = boundedMemo<string>();

function normalizeOnce(input: string | FrequencyInput): string {
  const f = parseFrequency(input);
  if (f.kind === 'text') return f.text;
  const food = f.food === undefined ? '' : `, ${FOOD_TIMING[f.food].words}`;
  const d = f.duration;
  const duration = d === undefined ? '' : `, for ${d.value} ${d.unit}${d.value === 1 ? '' : 's'}`;
  return `${describeCore(f)}${food}${duration}`;
}
