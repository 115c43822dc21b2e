/**
 * The printed labels, month names and record-type names of every language,
 * taken from the message catalogues (src/render/messages/). Data is printed
 * as given.
 */
import type { HiType } from '../spec/hi-types.js';
import { monthName } from './messages/format.js';
import { LANGUAGES, MESSAGES, isLanguage, type Language, type Messages } from './messages/index.js';

export { LANGUAGES, MESSAGES, isLanguage, type Language, type Messages };

/**
 * Every label a bundled template prints. Custom templates read them as `labels.<key>`.
 *
 * @example
 * // in a template: <th>{{labels.dosage}}</th>
 */
export type Labels = Messages['labels'];

const byLanguage = <T>(pick: (m: Messages) => T): Readonly<Record<Language, T>> => Object.freeze(Object.fromEntries(LANGUAGES.map((l) => [l, pick(MESSAGES[l])])) as Record<Language, T>);

/**
 * Labels by language.
 *
 * @example
 * LABELS.hi.prescription //=> 'दवा का पर्चा'
 * LABELS.en.licNumber    //=> 'Reg. No.'
 */
export const LABELS: Readonly<Record<Language, Labels>> = byLanguage((m) => m.labels);

/**
 * Month names for printed dates (from Intl, as each catalogue asks).
 *
 * @example
 * MONTHS.hi[10] //=> 'नवंबर'
 * MONTHS.en[10] //=> 'Nov'
 */
export const MONTHS: Readonly<Record<Language, readonly string[]>> = byLanguage((m) => Array.from({ length: 12 }, (_, i) => monthName(m, i + 1)));

/**
 * Patient-facing names of ABDM's hiTypes, one table per language (a missing
 * one is a compile error). Unknown hiTypes print as given.
 *
 * @example
 * HI_TYPE_LABELS.hi.OPConsultation //=> 'ओपीडी परामर्श'
 * HI_TYPE_LABELS.en.OPConsultation //=> 'OP Consultation'
 */
export const HI_TYPE_LABELS: Readonly<Record<Language, Readonly<Record<HiType, string>>>> = byLanguage((m) => m.hiTypes);

/**
 * Patient-facing names of ABDM's hiTypes in Hindi: {@link HI_TYPE_LABELS}`.hi`.
 *
 * @example
 * HI_TYPE_LABELS_HI.OPConsultation //=> 'ओपीडी परामर्श'
 */
export const HI_TYPE_LABELS_HI: Readonly<Record<string, string>> = HI_TYPE_LABELS.hi;
