/**
 * The message catalogues, one module per language. English defines the
 * keys; every other catalogue `satisfies Messages`, so a missing key is a
 * compile error.
 */
import { bn } from './bn.js';
import { en } from './en.js';
import { gu } from './gu.js';
import { hi } from './hi.js';
import { kn } from './kn.js';
import { ml } from './ml.js';
import { mr } from './mr.js';
import { or } from './or.js';
import { pa } from './pa.js';
import { ta } from './ta.js';
import { te } from './te.js';
import type { Messages } from './types.js';

/**
 * The languages of printed documents: English, Hindi, Marathi, Bengali, Tamil, Telugu, Kannada, Gujarati, Malayalam, Odia and Punjabi.
 *
 * @example
 * LANGUAGES //=> ['en', 'hi', 'mr', 'bn', 'ta', 'te', 'kn', 'gu', 'ml', 'or', 'pa']
 */
export const LANGUAGES = ['en', 'hi', 'mr', 'bn', 'ta', 'te', 'kn', 'gu', 'ml', 'or', 'pa'] as const;

/**
 * A language of printed documents (ISO 639-1 code).
 *
 * @example
 * const lang: Language = 'ta'
 */
export type Language = (typeof LANGUAGES)[number];

/**
 * Every language's messages.
 *
 * @example
 * MESSAGES.ta.labels.prescription //=> 'மருந்துச் சீட்டு'
 */
export const MESSAGES: Readonly<Record<Language, Messages>> = { en, hi, mr, bn, ta, te, kn, gu, ml, or, pa };

/**
 * True for a language code of {@link LANGUAGES}.
 *
 * @example
 * isLanguage('ta') //=> true
 * isLanguage('fr') //=> false
 */
export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export type { Messages, PluralMessage } from './types.js';
