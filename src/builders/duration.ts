import type { DurationInput } from '../generated/types.js';
import { boundedMemo } from '../util.js';

const UNITS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(d|dy|dys|day|days)$/, 'day'],
  [/^(w|wk|wks|week|weeks)$/, 'week'],
  [/^(m|mo|mon|mons|month|months)$/, 'month'],
  [/^(y|yr|yrs|year|years)$/, 'year'],
];

function phrase(value: number, unit: string): string {
  return `${value} ${unit}${value === 1 ? '' : 's'}`;
}

/**
 * Turns a medication duration into one consistent human string.
 *
 * A structured `{ value, unit }` and the usual written forms ("5 days",
 * "5d", "x 5 days", "for 2 weeks", "1 month") become "5 days", "2 weeks",
 * "1 month". Anything else is kept as written (trimmed), e.g. "till review".
 *
 * @example
 * normalizeDuration({ value: 5, unit: 'day' }) //=> '5 days'
 * normalizeDuration('x 2 wks')                 //=> '2 weeks'
 * normalizeDuration('till next visit')         //=> 'till next visit'
 */
export function normalizeDuration(input: string | DurationInput): string {
  if (typeof input !== 'string') return phrase(input.value, input.unit.replace(/s$/, ''));
  // The same few durations ("5 days") come again and again: each text is read once.
  return normalized.get(input, () => normalizeText(input));
}

/** What {@link normalizeDuration} has made of each text. */
const normalized = boundedMemo<string>();

function normalizeText(input: string): string {
  const text = input.trim().replace(/\s+/g, ' ');
  const m = /^(?:x|×|for)?\s*(\d{1,4}(?:\.\d{1,2})?)\s*([a-z]{1,6})\.?$/i.exec(text);
  if (m === null) return text;
  const unit = UNITS.find(([re]) => re.test((m[2] ?? '').toLowerCase()))?.[1];
  return unit === undefined ? text : phrase(Number(m[1]), unit);
}
