/**
 * Printed text in one or two languages. In a bilingual document a label or
 * generated phrase carries both: templates print it with `{{…}}` as usual and
 * get the first language, then the second in its own element marked with its
 * `lang` (handlebars prints an object's `toHTML()` as is; here both parts
 * are escaped first). Data is never doubled.
 */
import type { Language } from './messages/index.js';

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;', '`': '&#x60;', '=': '&#x3D;' };
const escape = (s: string): string => s.replace(/[&<>"'`=]/g, (c) => ESCAPES[c] ?? c);

/**
 * A label or generated phrase in two languages. `String(text)` is `first / second` (for titles and attributes);
 * in a template `{{text}}` prints `<span class=l1>first</span><span class=l2 lang=hi>second</span>`, with no
 * quotes, so that it stays inert inside an attribute value too.
 *
 * @example
 * String(bilingual('Medicines', 'दवाइयाँ', 'hi')) //=> 'Medicines / दवाइयाँ'
 */
export interface BilingualText {
  readonly first: string;
  readonly second: string;
  readonly secondLang: Language;
  toString(): string;
  toHTML(): string;
}

/**
 * What a template prints for a label or generated phrase: a string in a one-language document, a
 * {@link BilingualText} in a bilingual one (when the two languages say it differently).
 *
 * @example
 * const heading: PrintedText = 'Prescription'
 */
export type PrintedText = string | BilingualText;

/**
 * The two languages' words as one printed text; one string when they are the same.
 *
 * @example
 * bilingual('ICD-10', 'ICD-10', 'hi') //=> 'ICD-10'
 */
export function bilingual(first: string, second: string, secondLang: Language): PrintedText {
  if (first === second) return first;
  const html = `<span class=l1>${escape(first)}</span><span class=l2 lang=${secondLang}>${escape(second)}</span>`;
  const text = `${first} / ${second}`;
  return Object.freeze({ first, second, secondLang, toString: () => text, toHTML: () => html });
}
