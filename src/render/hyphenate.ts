/**
 * Soft hyphens (U+00AD) in the printed text, by language, so that a long
 * word in a narrow column breaks at a syllable with a visible hyphen rather
 * than anywhere (Chromium on Linux has no hyphenation dictionaries, so CSS
 * `hyphens: auto` does nothing there). Liang's patterns come from the
 * `hyphen` package, one set per script, loaded on first use.
 *
 * Only element text of the body is touched: attributes, the head (title,
 * styles), SVG, and any token that looks like an identifier, address or
 * number (digits, `@`, `/`, `:`, `_`, a dot between letters) are left alone.
 * So is the text of an element marked `translate="no"`: the templates mark
 * names so (drugs, the hospital, the doctor, the council, the patient), which
 * a break with a hyphen would make another word ("levoceti-rizine").
 */
import { createRequire } from 'node:module';
import type { Language } from './messages/index.js';

type Hyphenator = (word: string) => string;
interface HyphenModule {
  hyphenateSync(text: string, options?: { minWordLength?: number }): string;
}

/** The pattern set of each script (Devanagari: Marathi's in a Marathi document, else Hindi's). */
const SCRIPTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\p{Script=Latin}/u, 'en-us'],
  [/\p{Script=Devanagari}/u, 'hi'],
  [/\p{Script=Bengali}/u, 'bn'],
  [/\p{Script=Tamil}/u, 'ta'],
  [/\p{Script=Telugu}/u, 'te'],
  [/\p{Script=Kannada}/u, 'kn'],
  [/\p{Script=Gujarati}/u, 'gu'],
  [/\p{Script=Malayalam}/u, 'ml'],
  [/\p{Script=Oriya}/u, 'or'],
  [/\p{Script=Gurmukhi}/u, 'pa'],
];

const MIN_WORD = 6;
const CACHE_LIMIT = 20_000;
const hyphenators = new Map<string, Hyphenator>();
let load: ((id: string) => unknown) | undefined;

/** Letters, not counting combining marks (a vowel sign or virama belongs to the letter before it). */
const letters = (s: string): number => s.replace(/[\p{M}\u200c\u200d]/gu, '').length;

/** Drops the soft hyphens that would leave fewer than `left` letters before the break or `right` after it. */
function trimBreaks(hyphenated: string, left: number, right: number): string {
  const parts = hyphenated.split('\u00ad');
  if (parts.length === 1) return hyphenated;
  const total = letters(parts.join(''));
  let out = parts[0] ?? '';
  let before = letters(out);
  for (const part of parts.slice(1)) {
    out += before >= left && total - before >= right ? `\u00ad${part}` : part;
    before += letters(part);
  }
  return out;
}

function hyphenator(patterns: string): Hyphenator {
  let h = hyphenators.get(patterns);
  if (h === undefined) {
    load ??= createRequire(import.meta.url);
    const mod = load(`hyphen/${patterns}/index.js`) as HyphenModule;
    // Latin keeps 2 letters before a break and 3 after (as TeX does for English); the Indian scripts 2 and 2.
    const [left, right] = patterns === 'en-us' ? [2, 3] : [2, 2];
    h = (word) => trimBreaks(mod.hyphenateSync(word, { minWordLength: MIN_WORD }), left, right);
    hyphenators.set(patterns, h);
  }
  return h;
}

function hyphenateWord(word: string, devanagari: string): string {
  const script = SCRIPTS.find(([re]) => re.test(word.charAt(0)))?.[1];
  return script === undefined ? word : hyphenator(script === 'hi' ? devanagari : script)(word);
}

/** A token that is an identifier, address, number or URL: left whole. */
const NOT_A_WORD = /[\d@/\\:_#?=]|\.\p{L}/u;
/** Entities pass through; runs of letters (with combining marks and joiners) of MIN_WORD or more are words. */
const WORD = /(&#?[a-zA-Z0-9]+;)|([\p{L}\p{M}\u200c\u200d]{6,})/gu;

/** Tokens already seen, by the patterns used for Devanagari: a page repeats most of its words, and so do pages. */
const tokens = new Map<string, Map<string, string>>();

function hyphenateToken(token: string, devanagari: string): string {
  let seen = tokens.get(devanagari);
  if (seen === undefined) tokens.set(devanagari, (seen = new Map()));
  let out = seen.get(token);
  if (out === undefined) {
    out = NOT_A_WORD.test(token) ? token : token.replace(WORD, (whole, entity: string | undefined) => (entity !== undefined ? whole : hyphenateWord(whole, devanagari)));
    if (seen.size >= CACHE_LIMIT) seen.clear();
    seen.set(token, out);
  }
  return out;
}

function hyphenateText(text: string, devanagari: string): string {
  // Most text between tags is indentation or a short label: a six-character run is looked for first, without Unicode classes.
  if (text.length < 6 || !/\S{6}/.test(text)) return text;
  return text.replace(/\S{6,}/g, (token) => hyphenateToken(token, devanagari));
}

/**
 * Puts soft hyphens into the words of a rendered page's body text, each word by its script's patterns. Markup,
 * attributes, the head and SVG are left as they are.
 *
 * @example
 * hyphenateHtml('<body><p>Paracetamol</p></body>', ['en']) //=> '<body><p>Parac\u00adeta\u00admol</p></body>'
 */
export function hyphenateHtml(html: string, languages: readonly Language[]): string {
  const devanagari = languages.includes('mr') && !languages.includes('hi') ? 'mr' : 'hi';
  const body = html.search(/<body[\s>]/i);
  if (body < 0) return html;
  let out = html.slice(0, body);
  let skip: string | null = null;
  // Inside an element marked translate="no" (a name): its tag, and how many of that tag are open.
  let name: { tag: string; depth: number } | null = null;
  for (const part of html.slice(body).split(/(<[^>]*>)/)) {
    if (part.startsWith('<')) {
      out += part;
      if (name !== null) name = nameDepth(part, name);
      else if (part.includes('translate')) name = startOfName(part);
      // Only <svg>, <style>, <script>, <title> and their ends change what is skipped: s or t after "<" or "</".
      const c = part.charCodeAt(part[1] === '/' ? 2 : 1) | 0x20;
      if (c !== 0x73 && c !== 0x74) continue;
      const tag = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/.exec(part);
      const tagName = tag?.[2]?.toLowerCase();
      if (skip === null && tag?.[1] === '' && (tagName === 'svg' || tagName === 'style' || tagName === 'script' || tagName === 'title')) skip = tagName;
      else if (skip !== null && tag?.[1] === '/' && tagName === skip) skip = null;
    } else out += skip === null && name === null ? hyphenateText(part, devanagari) : part;
  }
  return out;
}

/** The start of a name: an element (not void, not self-closed) whose translate attribute is "no". */
function startOfName(tag: string): { tag: string; depth: number } | null {
  const m = /^<([a-zA-Z][a-zA-Z0-9-]*)\s[^>]*?\btranslate\s*=\s*(["']?)no\2(?=[\s/>])/i.exec(tag);
  return m === null || tag.endsWith('/>') ? null : { tag: (m[1] ?? '').toLowerCase(), depth: 1 };
}

/** The name still open after this tag: the same tag nested inside it counts, its end closes it. */
function nameDepth(part: string, open: { tag: string; depth: number }): { tag: string; depth: number } | null {
  const tag = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/.exec(part);
  if (tag === null || tag[2]?.toLowerCase() !== open.tag || part.endsWith('/>')) return open;
  const depth = open.depth + (tag[1] === '/' ? -1 : 1);
  return depth === 0 ? null : { tag: open.tag, depth };
}
