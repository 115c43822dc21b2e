/**
 * Formatting with a catalogue: placeholders, plural forms (Intl.PluralRules),
 * numbers with Latin digits (Intl.NumberFormat), lists (Intl.ListFormat) and
 * dates (day, month name from Intl.DateTimeFormat, year). Formatters are
 * created once per locale.
 */
import { WEEKDAYS, type Weekday } from '../../spec/frequency.js';
import type { Messages, PluralMessage } from './types.js';

const cache = new Map<string, unknown>();
function cached<T>(key: string, make: () => T): T {
  let v = cache.get(key) as T | undefined;
  if (v === undefined) {
    v = make();
    cache.set(key, v);
  }
  return v;
}

/** The locale with Latin digits, whatever the language's default numbering system (Marathi and Bengali default to their own). */
const latn = (locale: string): string => `${locale}-u-nu-latn`;

/**
 * Puts values into a message's `{name}` placeholders; a placeholder without a value stays as written.
 *
 * @example
 * fill('Page {page} of {pages}', { page: 1, pages: 3 }) //=> 'Page 1 of 3'
 */
export function fill(message: string, values: Readonly<Record<string, string | number>>): string {
  return message.replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}

/**
 * A number as the language writes it, with Latin digits.
 *
 * @example
 * formatNumber(messages.mr, 1.5) //=> '1.5'
 */
export function formatNumber(m: Messages, n: number): string {
  return cached(`n:${m.intl.locale}`, () => new Intl.NumberFormat(latn(m.intl.locale), { maximumFractionDigits: 2, useGrouping: false })).format(n);
}

/**
 * A plural message for a count: the form Intl.PluralRules picks, `{count}` filled in.
 * `shown` is printed instead of the number when given (½).
 *
 * @example
 * plural(messages.en, messages.en.duration.day, 5) //=> '5 days'
 */
export function plural(m: Messages, message: PluralMessage, count: number, shown?: string): string {
  const rule = cached(`p:${m.intl.locale}`, () => new Intl.PluralRules(m.intl.locale)).select(count);
  const form = rule === 'one' ? message.one : message.other;
  return fill(form, { count: shown ?? formatNumber(m, count) });
}

/**
 * Words joined as a list in the language ("morning and night", "सुबह और रात").
 *
 * @example
 * list(messages.en, ['morning', 'afternoon', 'night']) //=> 'morning, afternoon and night'
 */
export function list(m: Messages, words: readonly string[]): string {
  return cached(`l:${m.intl.locale}`, () => new Intl.ListFormat(m.intl.locale, { type: 'conjunction' })).format(words);
}

/**
 * A YYYY-MM-DD date as day, month name and year in the language; anything else as given.
 *
 * @example
 * formatDate(messages.en, '2026-11-20') //=> '20 Nov 2026'
 * formatDate(messages.hi, '2026-11-20') //=> '20 नवंबर 2026'
 */
export function formatDate(m: Messages, date: string): string {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (d === null) return date;
  const [month, day] = [Number(d[2]), Number(d[3])];
  if (month < 1 || month > 12 || day < 1 || day > 31) return date;
  return fill(m.date, { day: formatNumber(m, day), month: monthName(m, month), year: d[1] ?? '' });
}

/**
 * The name of a month (1 to 12) in the language, from Intl.
 *
 * @example
 * monthName(messages.hi, 11) //=> 'नवंबर'
 */
export function monthName(m: Messages, month: number): string {
  const style = m.intl.month === 'long' ? 'long' : 'short';
  const f = cached(`m:${m.intl.monthLocale}:${style}`, () => new Intl.DateTimeFormat(latn(m.intl.monthLocale), { month: style, day: 'numeric', timeZone: 'UTC' }));
  // With the day, Intl gives the month as used in a date (the format form, not the stand-alone one).
  return f.formatToParts(new Date(Date.UTC(2000, month - 1, 15))).find((p) => p.type === 'month')?.value ?? String(month);
}

/**
 * The name of a day of the week (FHIR's code: `mon` … `sun`) in the language, from Intl.
 *
 * @example
 * weekdayName(messages.hi, 'mon') //=> 'सोमवार'
 */
export function weekdayName(m: Messages, day: Weekday): string {
  const f = cached(`w:${m.intl.monthLocale}`, () => new Intl.DateTimeFormat(latn(m.intl.monthLocale), { weekday: 'long', timeZone: 'UTC' }));
  // 1 January 2024 was a Monday.
  return f.format(new Date(Date.UTC(2024, 0, 1 + WEEKDAYS.indexOf(day))));
}
