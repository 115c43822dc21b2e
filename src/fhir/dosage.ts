/**
 * Medication text ↔ FHIR Dosage. Structure is written only where the text
 * says it without doubt (OD, BD, TDS, QID, HS, SOS, STAT, Q6H, dose patterns
 * such as 1-0-1, weekly, alternate days, named weekdays, a food timing or a
 * duration written into the frequency, durations such as "5 days"); the text
 * itself is always kept (Dosage.text, Timing.code.text) so nothing the doctor
 * wrote is lost.
 */
import { normalizeDuration } from '../builders/duration.js';
import { WEEKDAYS, normalizeFrequency, readFrequency, type FoodTiming, type FrequencyCore, type Weekday } from '../spec/frequency.js';
import type { Medication } from '../generated/types.js';
import { SYSTEMS } from './constants.js';
import { ownValue } from './own.js';
import type { Dosage, Duration, Quantity, Timing, TimingRepeat } from './r4.js';

const PER_DAY: Readonly<Record<string, number>> = { OD: 1, BD: 2, TDS: 3, QID: 4, HS: 1 };
/** The R4 event-timing code (Timing.repeat.when) of a food timing written into a frequency; an empty stomach has none. */
const WHEN_OF_FOOD: Readonly<Record<FoodTiming, TimingRepeat['when'] | undefined>> = { afterFood: ['PC'], beforeFood: ['AC'], withFood: ['C'], emptyStomach: undefined };

/** How often, as Timing.repeat: frequency/period/periodUnit, dayOfWeek, or count; undefined for as-needed and nothing certain. */
function repeatOf(f: FrequencyCore): TimingRepeat | undefined {
  switch (f.kind) {
    case 'abbreviation':
      if (f.code === 'SOS') return undefined;
      return f.code === 'STAT' ? { count: 1 } : { frequency: PER_DAY[f.code] ?? 1, period: 1, periodUnit: 'd' };
    case 'interval':
      return { frequency: 1, period: f.hours, periodUnit: 'h' };
    case 'pattern':
      return f.timesPerDay > 0 ? { frequency: f.timesPerDay, period: 1, periodUnit: 'd' } : undefined;
    case 'weekly':
      return { frequency: f.timesPerWeek, period: 1, periodUnit: 'wk' };
    case 'alternateDays':
      return { frequency: 1, period: 2, periodUnit: 'd' };
    case 'weekdays':
      return { frequency: 1, period: 1, periodUnit: 'd', dayOfWeek: [...f.days] };
  }
}

/**
 * What a frequency text says in FHIR terms: repeat (with `when` for a food timing and `boundsDuration` for a duration
 * written into it), as-needed, or nothing certain.
 *
 * @example
 * timingOf('thrice weekly') //=> { repeat: { frequency: 3, period: 1, periodUnit: 'wk' } }
 * timingOf('1-1-1 after food') //=> { repeat: { frequency: 3, period: 1, periodUnit: 'd', when: ['PC'] } }
 */
export function timingOf(frequency: string): { repeat?: TimingRepeat; asNeeded?: true } {
  const f = readFrequency(frequency);
  if (f.kind === 'text') return {};
  const asNeeded = f.kind === 'abbreviation' && f.code === 'SOS' ? ({ asNeeded: true } as const) : {};
  let repeat = repeatOf(f);
  const when = f.food === undefined ? undefined : WHEN_OF_FOOD[f.food];
  if (when !== undefined) repeat = { ...repeat, when };
  const bounds = f.duration === undefined ? undefined : durationOf(`${f.duration.value} ${f.duration.unit}`);
  if (bounds !== undefined) repeat = { boundsDuration: bounds, ...repeat };
  return repeat === undefined ? asNeeded : { repeat, ...asNeeded };
}

const UCUM_OF: Readonly<Record<string, string>> = { day: 'd', week: 'wk', month: 'mo', year: 'a' };
const WORD_OF_UCUM: Readonly<Record<string, string>> = { s: 'second', min: 'minute', h: 'hour', d: 'day', wk: 'week', mo: 'month', a: 'year' };
const UCUM_OF_WORD: Readonly<Record<string, string>> = { day: 'd', days: 'd', week: 'wk', weeks: 'wk', month: 'mo', months: 'mo', year: 'a', years: 'a', hour: 'h', hours: 'h' };

/** A FHIR Duration for "5 days", "2 weeks"…, or undefined when the text is not that simple. */
export function durationOf(duration: string): Duration | undefined {
  const m = /^(\d{1,4}(?:\.\d{1,2})?) (day|week|month|year)s?$/.exec(normalizeDuration(duration));
  if (m === null) return undefined;
  const value = Number(m[1]);
  const unit = m[2] ?? 'day';
  return { value, unit: `${unit}${value === 1 ? '' : 's'}`, system: SYSTEMS.ucum, code: UCUM_OF[unit] ?? 'd' };
}

/** A dose quantity for "1 tablet", "10 ml", "500 mg"; undefined for anything less plain. */
export function doseQuantityOf(dosage: string): Quantity | undefined {
  const m = /^(\d{1,4}(?:\.\d{1,3})?) ([A-Za-z]{1,20})$/.exec(dosage.trim());
  if (m === null) return undefined;
  return { value: Number(m[1]), unit: m[2] ?? '' };
}

/**
 * Dosage.text of a medication given without dose, frequency, duration or
 * instructions: the NRCeS MedicationRequest requires a dosageInstruction,
 * and FHIR forbids an empty one. A statement about the record, not advice.
 */
export const NO_DOSAGE_TEXT = 'No dosage instructions recorded';

/** The human sentence of Dosage.text: "1 tablet; 1-0-1 (…); for 30 days". */
export function dosageSentence(m: Pick<Medication, 'dosage' | 'frequency' | 'duration'>): string | undefined {
  const parts: string[] = [];
  if (m.dosage !== undefined) parts.push(m.dosage);
  if (m.frequency !== undefined) parts.push(m.frequency);
  if (m.duration !== undefined) parts.push(`for ${m.duration}`);
  return parts.length === 0 ? undefined : parts.join('; ');
}

/**
 * The Dosage of a medication: text, timing (code text, and repeat and
 * bounds when certain), as-needed, dose quantity when plain, and the
 * patient instruction.
 *
 * @example
 * dosageOf({ drugName: 'Metformin', dosage: '1 tablet', frequency: 'Twice a day (BD)', duration: '30 days' })
 * //=> { text: '1 tablet; Twice a day (BD); for 30 days',
 * //     timing: { code: { text: 'Twice a day (BD)' }, repeat: { frequency: 2, period: 1, periodUnit: 'd',
 * //       boundsDuration: { value: 30, unit: 'days', system: 'http://unitsofmeasure.org', code: 'd' } } },
 * //     doseAndRate: [{ doseQuantity: { value: 1, unit: 'tablet' } }] }
 */
export function dosageOf(m: Medication): Dosage {
  const d: Dosage = {};
  const text = dosageSentence(m);
  if (text !== undefined) d.text = text;
  if (m.instructions !== undefined) d.patientInstruction = m.instructions;
  const timing: Timing = {};
  let repeat: TimingRepeat | undefined;
  if (m.frequency !== undefined) {
    timing.code = { text: m.frequency };
    const t = timingOf(m.frequency);
    if (t.asNeeded === true) d.asNeededBoolean = true;
    if (t.repeat !== undefined) repeat = { ...t.repeat };
  }
  if (m.duration !== undefined) {
    const bounds = durationOf(m.duration);
    // The medication's own duration wins over one written into its frequency.
    if (bounds !== undefined) repeat = Object.assign({ boundsDuration: bounds }, repeat, { boundsDuration: bounds });
  }
  if (repeat !== undefined) timing.repeat = repeat;
  if (timing.code !== undefined || timing.repeat !== undefined) d.timing = timing;
  if (m.dosage !== undefined) {
    const q = doseQuantityOf(m.dosage);
    if (q !== undefined) d.doseAndRate = [{ doseQuantity: q }];
  }
  // Nothing was set: read from the object itself, so that a field added above can never be missed here.
  if (Object.keys(d).length === 0) d.text = NO_DOSAGE_TEXT;
  return d;
}

/** Words for the event-timing codes of R4 Timing.repeat.when that have a plain meaning. */
const WHEN_WORDS: Readonly<Record<string, string>> = {
  MORN: 'morning',
  AFT: 'afternoon',
  EVE: 'evening',
  NIGHT: 'night',
  NOON: 'noon',
  HS: 'at bedtime',
  WAKE: 'on waking',
  C: 'with meals',
  AC: 'before meals',
  PC: 'after meals',
  CM: 'with breakfast',
  CD: 'with lunch',
  CV: 'with dinner',
  ACM: 'before breakfast',
  ACD: 'before lunch',
  ACV: 'before dinner',
  PCM: 'after breakfast',
  PCD: 'after lunch',
  PCV: 'after dinner',
};

const TIMES = ['', 'Once', 'Twice', 'Three times', 'Four times'];
const ABBR_OF_PER_DAY = ['', 'OD', 'BD', 'TDS', 'QID'];

function unitWord(unit: string | undefined, n: number): string | undefined {
  const w = typeof unit !== 'string' ? undefined : ownValue(WORD_OF_UCUM, unit);
  return w === undefined ? undefined : `${w}${n === 1 ? '' : 's'}`;
}

/**
 * Reads the frequency of a FHIR timing as text, the way abha-link's
 * builders write it ("Twice a day (BD)"), or in words for anything else.
 * Returns the text and the repeat elements it did not express.
 */
export function frequencyFromRepeat(repeat: TimingRepeat, asNeeded: boolean): { text?: string; unused: string[] } {
  const unused: string[] = [];
  let text: string | undefined;
  const f = repeat.frequency;
  const p = repeat.period ?? (f !== undefined ? 1 : undefined);
  const days = weekdaysOf(repeat.dayOfWeek);
  if (days !== undefined && (f ?? 1) === 1 && (p ?? 1) === 1 && (repeat.periodUnit ?? 'd') === 'd') text = normalizeFrequency(days.join(', '));
  else if (f !== undefined && p !== undefined) {
    const unit = repeat.periodUnit;
    if (p === 1 && unit === 'd' && f >= 1 && f <= 4 && Number.isInteger(f)) text = `${TIMES[f]} a day (${ABBR_OF_PER_DAY[f]})`;
    else if (p === 1 && unit === 'wk' && f >= 1 && f <= 6 && Number.isInteger(f)) text = normalizeFrequency(`${f} times a week`);
    else if (p === 2 && unit === 'd' && f === 1) text = normalizeFrequency('alternate days');
    else {
      const u = unitWord(unit, p);
      if (u === undefined) unused.push('periodUnit');
      else {
        const times = Number.isInteger(f) && f >= 1 && f <= 4 ? (TIMES[f] ?? '') : `${f} times`;
        text = p === 1 ? `${times} a ${u}` : `${times} every ${p} ${u}`;
      }
    }
  } else if (f !== undefined || repeat.period !== undefined) unused.push(f !== undefined ? 'frequency' : 'period');
  else if (repeat.periodUnit !== undefined) unused.push('periodUnit');
  if (repeat.count === 1 && text === undefined) text = 'Once';
  else if (repeat.count !== undefined) unused.push('count');
  if (repeat.when !== undefined) {
    const words = Array.isArray(repeat.when) ? repeat.when.map((w) => (typeof w === 'string' ? ownValue(WHEN_WORDS, w) : undefined)) : [undefined];
    if (words.every((w) => w !== undefined) && words.length > 0) text = text === undefined ? capital(words.join(', ')) : `${text}: ${words.join(', ')}`;
    else unused.push('when');
  }
  if (asNeeded) text = text === undefined ? 'When required (SOS)' : `${text}, when required`;
  for (const k of ['frequencyMax', 'periodMax', 'countMax', 'duration', 'durationMax', 'durationUnit', 'timeOfDay', 'offset', 'boundsPeriod', 'boundsRange'] as const) {
    if (repeat[k] !== undefined) unused.push(k);
  }
  if (repeat.dayOfWeek !== undefined && (days === undefined || text === undefined || !text.startsWith('Every '))) unused.push('dayOfWeek');
  return text === undefined ? { unused } : { text, unused };
}

/** The days of Timing.repeat.dayOfWeek when every one is a day code, Monday first; undefined otherwise. */
function weekdaysOf(value: unknown): Weekday[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const days = WEEKDAYS.filter((d) => value.includes(d));
  return days.length === new Set(value).size ? days : undefined;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The duration written into a frequency ("BD x 5 days") as durationText writes it ("5 days"); undefined when there is none. */
export function durationInFrequency(frequency: string): string | undefined {
  const f = readFrequency(frequency);
  const d = f.kind === 'text' ? undefined : f.duration;
  return d === undefined ? undefined : `${d.value} ${d.unit}${d.value === 1 ? '' : 's'}`;
}

/** "30 days" for a FHIR Duration in days, weeks, months or years (UCUM code or unit word). */
export function durationText(d: Duration): string | undefined {
  if (typeof d.value !== 'number' || !Number.isFinite(d.value) || d.value <= 0) return undefined;
  const code = d.code ?? (typeof d.unit === 'string' ? ownValue(UCUM_OF_WORD, d.unit.toLowerCase()) : undefined);
  const word = unitWord(code, d.value);
  return word === undefined ? undefined : `${d.value} ${word}`;
}

/**
 * Recovers the dose text from a Dosage.text that abha-link wrote as
 * "dose; frequency; for duration", given the frequency and duration texts
 * read from the structure. Undefined when the text is not in that form.
 */
export function doseFromSentence(text: string, frequency: string | undefined, duration: string | undefined): string | undefined {
  let rest = text;
  if (duration !== undefined) {
    const tail = `; for ${duration}`;
    if (rest === `for ${duration}`) return undefined;
    if (!rest.endsWith(tail)) return undefined;
    rest = rest.slice(0, -tail.length);
  }
  if (frequency !== undefined) {
    if (rest === frequency) return undefined;
    const tail = `; ${frequency}`;
    if (!rest.endsWith(tail)) return undefined;
    rest = rest.slice(0, -tail.length);
  }
  return rest === '' ? undefined : rest;
}
