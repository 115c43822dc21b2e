/**
 * The text the library writes itself, in the document's language(s): record
 * types, sex, diagnosis status, age, dates, frequencies, durations, dose
 * units and common timing phrases. Free text (drug names, the doctor's
 * words) is printed as given; only what abha-link generated or recognises
 * exactly is translated.
 */
import { parseFrequency, type ParsedFrequency } from '../builders/frequency.js';
import { formatDate, fill, list, plural } from './messages/format.js';
import type { Messages, PluralMessage } from './messages/types.js';

const DURATION = /^(\d{1,4}(?:\.\d{1,2})?) (day|week|month|year)s?$/;
const DOSE = /^(\d{1,3}(?:\.\d{1,2})?|\d?½|(?:\d )?1\/2)\s*(tablets?|tabs?\.?|capsules?|caps?\.?|ml|mls|drops?|puffs?|sachets?|teaspoons?|tsp\.?)$/i;
const UNIT_OF: ReadonlyArray<readonly [RegExp, keyof Messages['units']]> = [
  [/^tab/i, 'tablet'],
  [/^cap/i, 'capsule'],
  [/^ml/i, 'ml'],
  [/^drop/i, 'drop'],
  [/^puff/i, 'puff'],
  [/^sachet/i, 'sachet'],
  [/^(teaspoon|tsp)/i, 'teaspoon'],
];
const TIMING: ReadonlyArray<readonly [RegExp, keyof Messages['timing']]> = [
  [/^(after (food|meals?)|p\.?c\.?)$/i, 'afterFood'],
  [/^(before (food|meals?)|a\.?c\.?)$/i, 'beforeFood'],
  [/^(with (food|meals?))$/i, 'withFood'],
  [/^((on )?(an )?empty stomach)$/i, 'emptyStomach'],
  [/^((at )?bed ?time)$/i, 'atBedtime'],
  [/^(before breakfast)$/i, 'beforeBreakfast'],
];
const SEX: Readonly<Record<string, keyof Messages['sex']>> = { m: 'M', male: 'M', f: 'F', female: 'F', o: 'O', other: 'O', u: 'U', unknown: 'U' };
const SLOTS3 = ['morning', 'afternoon', 'night'] as const;
const SLOTS4 = ['morning', 'afternoon', 'evening', 'night'] as const;

function doseValue(s: string): number {
  const t = s.replace(/1\/2$/, '½').replace(/\s/g, '');
  if (t.endsWith('½')) return (t.length > 1 ? Number(t.slice(0, -1)) : 0) + 0.5;
  return Number(t);
}

/** A frequency split into the notation (kept as written: 1-0-1, BD, Q6H) and the phrase in words, or null for free text. */
export interface FrequencyWords {
  readonly notation: string;
  /** Whether the notation goes first (`1-0-1 (twice a day…)`) or after the words (`Twice a day (BD)`). */
  readonly notationFirst: boolean;
  readonly phrase: string;
}

/**
 * The words of a frequency abha-link reads (its own normalised output included), in the language; null for text it
 * does not read.
 *
 * @example
 * frequencyWords(messages.hi, '1-0-1 (twice a day: morning and night)') //=> { notation: '1-0-1', notationFirst: true, phrase: 'दिन में दो बार: सुबह और रात' }
 */
export function frequencyWords(m: Messages, text: string): FrequencyWords | null {
  const f: ParsedFrequency = parseFrequency(text);
  switch (f.kind) {
    case 'abbreviation':
      return { notation: f.code, notationFirst: false, phrase: m.frequency[f.code] };
    case 'interval':
      return { notation: `Q${f.hours}H`, notationFirst: false, phrase: plural(m, m.frequency.everyHours, f.hours) };
    case 'pattern': {
      const slots = f.doses.length === 3 ? SLOTS3 : SLOTS4;
      const taken = f.doses.flatMap((d, i) => (doseValue(d) > 0 ? [m.frequency.slots[slots[i] ?? 'morning']] : []));
      const times = m.frequency.timesADay[taken.length as 1 | 2 | 3 | 4];
      return { notation: f.doses.join('-'), notationFirst: true, phrase: fill(m.frequency.pattern, { times, slots: list(m, taken) }) };
    }
    case 'text':
      return null;
  }
}

/**
 * A frequency as printed on its own: `1-0-1 (twice a day: morning and night)`, `Twice a day (BD)`; free text as given.
 *
 * @example
 * localFrequency(messages.hi, 'Twice a day (BD)') //=> 'दिन में दो बार (BD)'
 */
export function localFrequency(m: Messages, text: string): string {
  const w = frequencyWords(m, text);
  if (w === null) return text;
  return w.notationFirst ? `${w.notation} (${w.phrase})` : `${w.phrase} (${w.notation})`;
}

/**
 * A duration abha-link wrote (`5 days`, `1 month`) in the language; anything else as given.
 *
 * @example
 * localDuration(messages.hi, '3 months') //=> '3 महीने'
 */
export function localDuration(m: Messages, text: string): string | null {
  const d = DURATION.exec(text);
  if (d === null) return null;
  return plural(m, m.duration[d[2] as keyof Messages['duration']], Number(d[1]));
}

/**
 * A dose of a known unit (`1 tablet`, `½ tab`, `5 ml`) in the language; null for anything else.
 *
 * @example
 * localDose(messages.hi, '2 tablets') //=> '2 गोलियाँ'
 */
export function localDose(m: Messages, text: string): string | null {
  const d = DOSE.exec(text.trim());
  if (d === null) return null;
  const unit = UNIT_OF.find(([re]) => re.test(d[2] ?? ''))?.[1];
  if (unit === undefined) return null;
  const written = (d[1] ?? '').replace(/(\d) 1\/2$/, '$1½').replace(/^1\/2$/, '½');
  const value = doseValue(written);
  const message: PluralMessage = m.units[unit];
  return plural(m, message, value, written.includes('½') ? written : undefined);
}

/**
 * Instructions that are exactly a common timing phrase (`after food`, `empty stomach`) in the language; null otherwise.
 *
 * @example
 * localTiming(messages.hi, 'after food') //=> 'खाना खाने के बाद'
 */
export function localTiming(m: Messages, text: string): string | null {
  const t = text.trim().replace(/\s+/g, ' ');
  const key = TIMING.find(([re]) => re.test(t))?.[1];
  return key === undefined ? null : m.timing[key];
}

/**
 * The sex (M, F, O, U, or the words) in the language; null for anything else.
 *
 * @example
 * localSex(messages.hi, 'F') //=> 'महिला'
 */
export function localSex(m: Messages, text: string): string | null {
  const key = SEX[text.trim().toLowerCase()];
  return key === undefined || !Object.hasOwn(SEX, text.trim().toLowerCase()) ? null : m.sex[key];
}

/**
 * A diagnosis status (confirmed, provisional…) in the language; null for anything else.
 *
 * @example
 * localStatus(messages.hi, 'provisional') //=> 'अनुमानित'
 */
export function localStatus(m: Messages, text: string): string | null {
  const key = text.trim().toLowerCase();
  return Object.hasOwn(m.diagnosisStatus, key) ? m.diagnosisStatus[key as keyof Messages['diagnosisStatus']] : null;
}

/**
 * An age in years (or months under one) in the language.
 *
 * @example
 * localAge(messages.en, { years: 48 }) //=> '48 y'
 */
export function localAge(m: Messages, age: { years: number } | { months: number }): string {
  return 'years' in age ? plural(m, m.age.years, age.years) : plural(m, m.age.months, age.months);
}

/**
 * A YYYY-MM-DD date in the language.
 *
 * @example
 * localDate(messages.hi, '2026-11-20') //=> '20 नवंबर 2026'
 */
export function localDate(m: Messages, date: string): string {
  return formatDate(m, date);
}
