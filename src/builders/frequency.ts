import type { FrequencyInput } from '../generated/types.js';

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

const TIMES = ['', 'once', 'twice', 'three times', 'four times'];
const SLOTS3 = ['morning', 'afternoon', 'night'];
const SLOTS4 = ['morning', 'afternoon', 'evening', 'night'];
// A dose count: 1, 2, 0.5, ½ or 1½.
const DOSE = '(?:\\d{1,2}(?:\\.\\d{1,2})?|\\d?½)';
const PATTERN = new RegExp(`^${DOSE}(?:\\s*-\\s*${DOSE}){2,3}$`);
// The same typed on a keyboard: 1/2 for ½, 1 1/2 for 1½, and dashes a word processor made of hyphens.
const KEYBOARD_DOSE = '(?:\\d{1,2}(?:\\.\\d{1,2})?|(?:\\d ?)?1/2|\\d?½)';
const KEYBOARD_PATTERN = new RegExp(`^${KEYBOARD_DOSE}(?:\\s*[-–—]\\s*${KEYBOARD_DOSE}){2,3}$`);

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
  /** A dose every `hours` hours (Q6H, "every 8 hours", "12 hourly"). */
  | { readonly kind: 'interval'; readonly hours: number }
  /** `doses` as written, one per time of day; `timesPerDay` counts those above zero. */
  | { readonly kind: 'pattern'; readonly doses: readonly string[]; readonly timesPerDay: number }
  | { readonly kind: 'text'; readonly text: string };

function pattern(doses: readonly string[]): ParsedFrequency {
  return { kind: 'pattern', doses, timesPerDay: doses.filter((d) => doseValue(d) > 0).length };
}

/**
 * Reads a frequency: an abbreviation, an interval, a dose pattern, or text it cannot read.
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
    const doses = input.evening === undefined ? [input.morning ?? 0, input.afternoon ?? 0, input.night ?? 0] : [input.morning ?? 0, input.afternoon ?? 0, input.evening, input.night ?? 0];
    // A pattern without any dose says nothing: no frequency (lint then asks for one).
    if (doses.every((d) => d === 0)) return { kind: 'text', text: '' };
    return pattern(doses.map((d) => String(d)));
  }
  const text = input.trim().replace(/\s+/g, ' ');
  const lower = text.toLowerCase();
  for (const [re, code, words] of ABBREVIATIONS) {
    if (re.test(lower) || text === `${words} (${code})`) return { kind: 'abbreviation', code: code as FrequencyCode, words };
  }
  const typed = INTERVAL.exec(lower);
  const own = INTERVAL_OWN.exec(text);
  const hours = typed !== null ? Number(typed[1] ?? typed[2] ?? typed[3]) : own !== null && own[1] === own[2] ? Number(own[1]) : 0;
  if (hours >= 1 && hours <= 24) return { kind: 'interval', hours };
  if (PATTERN.test(text)) return pattern(text.split('-').map((d) => d.trim()));
  if (KEYBOARD_PATTERN.test(text)) return pattern(text.split(/[-–—]/).map(keyboardDose));
  const open = text.indexOf(' (');
  if (open > 0 && PATTERN.test(text.slice(0, open))) {
    const own = pattern(text.slice(0, open).split('-'));
    if (own.kind === 'pattern' && describePattern(own.doses) === text) return own;
  }
  return { kind: 'text', text };
}

/**
 * @internal The frequency of a built payload as later layers (lint, FHIR) read
 * it. A payload's text may carry a note after the notation ("1-0-1 (after
 * food)") or end in a code ("… (BD)", "… (Q6H)"): those are read too, without
 * changing the text that is kept.
 */
export function readFrequency(frequency: string): ParsedFrequency {
  const f = parseFrequency(frequency);
  if (f.kind !== 'text') return f;
  const code = /\((OD|BD|TDS|QID|HS|SOS|STAT|Q\d{1,2}H)\)$/.exec(f.text)?.[1];
  if (code !== undefined) return parseFrequency(code);
  const open = f.text.indexOf(' (');
  const head = open > 0 ? parseFrequency(f.text.slice(0, open)) : f;
  return head.kind === 'pattern' ? head : f;
}

/**
 * Turns a frequency as doctors write it into one consistent human string.
 *
 * Indian notation is recognised case-insensitively, with or without dots:
 * dose patterns (1-0-1, 1-1-1, 0-0-1, 1-0-1-1, ½-0-½, also typed 1/2-0-1/2),
 * the abbreviations OD, BD (BID, BDS), TDS (TID), QID (QDS), HS (OD HS),
 * SOS (PRN) and STAT, intervals (Q4H, Q6H, Q8H, Q12H, "every 6 hours",
 * "8 hourly") and the same in English ("twice daily", "thrice a day",
 * "once daily", "at bedtime", "when required"). A structured
 * pattern `{ morning, afternoon, evening, night }` becomes the same string as
 * its notation. Anything else is kept as the doctor wrote it (trimmed).
 *
 * @example
 * normalizeFrequency('1-0-1')            //=> '1-0-1 (twice a day: morning and night)'
 * normalizeFrequency('bd')               //=> 'Twice a day (BD)'
 * normalizeFrequency('1/2-0-1/2')        //=> '½-0-½ (twice a day: morning and night)'
 * normalizeFrequency('Q6H')              //=> 'Every 6 hours (Q6H)'
 * normalizeFrequency('thrice daily')     //=> 'Three times a day (TDS)'
 * normalizeFrequency({ morning: 1, night: 1 }) //=> '1-0-1 (twice a day: morning and night)'
 * normalizeFrequency({})                 //=> '' (no dose at any time: no frequency)
 * normalizeFrequency('after lunch on Sundays') //=> 'after lunch on Sundays'
 */
export function normalizeFrequency(input: string | FrequencyInput): string {
  const f = parseFrequency(input);
  switch (f.kind) {
    case 'abbreviation':
      return `${f.words} (${f.code})`;
    case 'interval':
      return `Every ${f.hours} hours (Q${f.hours}H)`;
    case 'pattern':
      return describePattern(f.doses);
    case 'text':
      return f.text;
  }
}
