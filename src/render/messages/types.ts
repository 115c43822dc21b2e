/**
 * The shape of a message catalogue: the English catalogue defines the keys,
 * every language must have every key (a missing or extra key is a compile error).
 */
import type { en } from './en.js';

/** Deeply read-only, with string literals widened to string. */
type Catalogue<T> = T extends string ? string : T extends readonly string[] ? readonly string[] : { readonly [K in keyof T]: Catalogue<T[K]> };

/**
 * One language's messages: labels, record types, sex, diagnosis status, age, durations, frequencies, timing phrases
 * and dose units. Plural messages have the forms `one` and `other` (what Intl.PluralRules gives for English and the
 * Indian languages); placeholders are `{name}`.
 *
 * @example
 * const ta = { ... } satisfies Messages
 */
export type Messages = Catalogue<typeof en>;

/**
 * A message with plural forms, chosen with Intl.PluralRules; `{count}` is the number.
 *
 * @example
 * const days: PluralMessage = { one: '{count} day', other: '{count} days' }
 */
export type PluralMessage = Messages['duration']['day'];
