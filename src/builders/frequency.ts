import type { FrequencyInput } from '../generated/types.js';

const ABBREVIATIONS: ReadonlyArray<readonly [RegExp, string, string]> = [
  [/^o\.?d\.?$/, 'OD', 'Once a day'],
  [/^(b\.?d\.?|b\.?i\.?d\.?)$/, 'BD', 'Twice a day'],
  [/^(t\.?d\.?s\.?|t\.?i\.?d\.?)$/, 'TDS', 'Three times a day'],
  [/^(q\.?i\.?d\.?|q\.?d\.?s\.?)$/, 'QID', 'Four times a day'],
  [/^h\.?s\.?$/, 'HS', 'At bedtime'],
  [/^(s\.?o\.?s\.?|p\.?r\.?n\.?)$/, 'SOS', 'When required'],
  [/^stat\.?$/, 'STAT', 'Immediately, once'],
];

const TIMES = ['', 'once', 'twice', 'three times', 'four times'];
const SLOTS3 = ['morning', 'afternoon', 'night'];
const SLOTS4 = ['morning', 'afternoon', 'evening', 'night'];
// A dose count: 1, 2, 0.5, ½ or 1½.
const DOSE = '(?:\\d{1,2}(?:\\.\\d{1,2})?|\\d?½)';
const PATTERN = new RegExp(`^${DOSE}(?:\\s*-\\s*${DOSE}){2,3}$`);

function doseValue(s: string): number {
  if (s.endsWith('½')) return (s.length > 1 ? Number(s.slice(0, -1)) : 0) + 0.5;
  return Number(s);
}

function list(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1] ?? ''}`;
}

function describePattern(doses: readonly string[]): string {
  const slots = doses.length === 3 ? SLOTS3 : SLOTS4;
  const taken = doses.flatMap((d, i) => (doseValue(d) > 0 ? [slots[i] ?? ''] : []));
  const notation = doses.join('-');
  if (taken.length === 0) return notation;
  const times = TIMES[taken.length] ?? `${taken.length} times`;
  return `${notation} (${times} a day: ${list(taken)})`;
}

/** An abbreviation code abha-link reads. */
export type FrequencyCode = 'OD' | 'BD' | 'TDS' | 'QID' | 'HS' | 'SOS' | 'STAT';

/** What a frequency says, as {@link parseFrequency} reads it. */
export type ParsedFrequency =
  | { readonly kind: 'abbreviation'; readonly code: FrequencyCode; readonly words: string }
  /** `doses` as written, one per time of day; `timesPerDay` counts those above zero. */
  | { readonly kind: 'pattern'; readonly doses: readonly string[]; readonly timesPerDay: number }
  | { readonly kind: 'text'; readonly text: string };

function pattern(doses: readonly string[]): ParsedFrequency {
  return { kind: 'pattern', doses, timesPerDay: doses.filter((d) => doseValue(d) > 0).length };
}

/**
 * Reads a frequency: an abbreviation, a dose pattern, or text it cannot read.
 * It also reads its own output (`Twice a day (BD)`, `1-0-1 (twice a day: …)`),
 * so normalising twice changes nothing and later layers (FHIR) can read the
 * strings of a built payload.
 *
 * @example
 * parseFrequency('b.d.')                                     //=> { kind: 'abbreviation', code: 'BD', words: 'Twice a day' }
 * parseFrequency('1-0-1 (twice a day: morning and night)')   //=> { kind: 'pattern', doses: ['1', '0', '1'], timesPerDay: 2 }
 * parseFrequency('alternate days')                           //=> { kind: 'text', text: 'alternate days' }
 */
export function parseFrequency(input: string | FrequencyInput): ParsedFrequency {
  if (typeof input !== 'string') {
    const doses = input.evening === undefined
      ? [input.morning ?? 0, input.afternoon ?? 0, input.night ?? 0]
      : [input.morning ?? 0, input.afternoon ?? 0, input.evening, input.night ?? 0];
    // A pattern without any dose says nothing: no frequency (lint then asks for one).
    if (doses.every((d) => d === 0)) return { kind: 'text', text: '' };
    return pattern(doses.map((d) => String(d)));
  }
  const text = input.trim().replace(/\s+/g, ' ');
  const lower = text.toLowerCase();
  for (const [re, code, words] of ABBREVIATIONS) {
    if (re.test(lower) || text === `${words} (${code})`) return { kind: 'abbreviation', code: code as FrequencyCode, words };
  }
  if (PATTERN.test(text)) return pattern(text.split('-').map((d) => d.trim()));
  const open = text.indexOf(' (');
  if (open > 0 && PATTERN.test(text.slice(0, open))) {
    const own = pattern(text.slice(0, open).split('-'));
    if (own.kind === 'pattern' && describePattern(own.doses) === text) return own;
  }
  return { kind: 'text', text };
}

/**
 * Turns a frequency as doctors write it into one consistent human string.
 *
 * Indian notation is recognised case-insensitively, with or without dots:
 * dose patterns (1-0-1, 1-1-1, 0-0-1, 1-0-1-1, ½-0-½) and the abbreviations
 * OD, BD (BID), TDS (TID), QID (QDS), HS, SOS (PRN) and STAT. A structured
 * pattern `{ morning, afternoon, evening, night }` becomes the same string as
 * its notation. Anything else is kept as the doctor wrote it (trimmed).
 *
 * @example
 * normalizeFrequency('1-0-1')            //=> '1-0-1 (twice a day: morning and night)'
 * normalizeFrequency('bd')               //=> 'Twice a day (BD)'
 * normalizeFrequency({ morning: 1, night: 1 }) //=> '1-0-1 (twice a day: morning and night)'
 * normalizeFrequency({})                 //=> '' (no dose at any time: no frequency)
 * normalizeFrequency('after lunch on Sundays') //=> 'after lunch on Sundays'
 */
export function normalizeFrequency(input: string | FrequencyInput): string {
  const f = parseFrequency(input);
  switch (f.kind) {
    case 'abbreviation':
      return `${f.words} (${f.code})`;
    case 'pattern':
      return describePattern(f.doses);
    case 'text':
      return f.text;
  }
}
