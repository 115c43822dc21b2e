/**
 * Medication text ↔ FHIR Dosage. Structure is written only where the text
 * says it without doubt (OD, BD, TDS, QID, HS, SOS, STAT, Q6H, dose patterns
 * such as 1-0-1, durations such as "5 days"); the text itself is always
 * kept (Dosage.text, Timing.code.text) so nothing the doctor wrote is lost.
 */
import { normalizeDuration } from '../builders/duration.js';
import { readFrequency } from '../builders/frequency.js';
import type { Medication } from '../generated/types.js';
import { SYSTEMS } from './constants.js';
import { ownValue } from './own.js';
import type { Dosage, Duration, Quantity, Timing, TimingRepeat } from './r4.js';

const PER_DAY: Readonly<Record<string, number>> = { OD: 1, BD: 2, TDS: 3, QID: 4, HS: 1 };

/** What a frequency text says in FHIR terms: repeat, as-needed, or nothing certain. */
export function timingOf(frequency: string): { repeat?: TimingRepeat; asNeeded?: true } {
  const f = readFrequency(frequency);
  if (f.kind === 'abbreviation') {
    if (f.code === 'SOS') return { asNeeded: true };
    if (f.code === 'STAT') return { repeat: { count: 1 } };
    return { repeat: { frequency: PER_DAY[f.code] ?? 1, period: 1, periodUnit: 'd' } };
  }
  if (f.kind === 'interval') return { repeat: { frequency: 1, period: f.hours, periodUnit: 'h' } };
  if (f.kind === 'pattern' && f.timesPerDay > 0) return { repeat: { frequency: f.timesPerDay, period: 1, periodUnit: 'd' } };
  return {};
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
    if (bounds !== undefined) repeat = { boundsDuration: bounds, ...repeat };
  }
  if (repeat !== undefined) timing.repeat = repeat;
  if (timing.code !== undefined || timing.repeat !== undefined) d.timing = timing;
  if (m.dosage !== undefined) {
    const q = doseQuantityOf(m.dosage);
    if (q !== undefined) d.doseAndRate = [{ doseQuantity: q }];
  }
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
  if (f !== undefined && p !== undefined) {
    const unit = repeat.periodUnit;
    if (p === 1 && unit === 'd' && f >= 1 && f <= 4 && Number.isInteger(f)) text = `${TIMES[f]} a day (${ABBR_OF_PER_DAY[f]})`;
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
  for (const k of ['frequencyMax', 'periodMax', 'countMax', 'duration', 'durationMax', 'durationUnit', 'dayOfWeek', 'timeOfDay', 'offset', 'boundsPeriod', 'boundsRange'] as const) {
    if (repeat[k] !== undefined) unused.push(k);
  }
  return text === undefined ? { unused } : { text, unused };
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
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
