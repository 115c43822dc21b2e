/**
 * "Did you mean …?" for the CLI and the HTTP service: the nearest known word
 * to a mistyped option, command, schema name, template, language or option value.
 */
import { distance } from 'fastest-levenshtein';

/**
 * The known word nearest to `given`, when it is near enough to be a typo:
 * at most a third of its letters changed (a swap of two neighbours counts
 * as two), or one of the words starts with the other. Case is ignored.
 * Returns undefined when nothing is close.
 *
 * @example
 * suggest('shcema', ['schema', 'ndjson', 'format', 'lint']) //=> 'schema'
 * suggest('valdate', ['build', 'validate', 'render'])       //=> 'validate'
 * suggest('jsno', ['text', 'json'])                         //=> 'json'
 * suggest('xyz', ['build', 'validate'])                     //=> undefined
 */
export function suggest(given: string, known: readonly string[]): string | undefined {
  const g = given.toLowerCase();
  // One or two letters (-x, --o) are too short to guess from.
  const letters = g.replace(/^-+/, '').length;
  if (letters < 3) return undefined;
  const limit = Math.max(1, Math.floor(letters / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = distance(g, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  if (best !== undefined && bestDistance <= limit) return best;
  // Two neighbouring letters swapped (jsno, shcema) cost two edits; count them as one.
  const swapped = known.find((k) => k.length === g.length && distance(g, k.toLowerCase()) === 2 && sorted(k.toLowerCase()) === sorted(g));
  if (swapped !== undefined) return swapped;
  return known.find((k) => k.toLowerCase().startsWith(g) || (k.replace(/^-+/, '').length >= 3 && g.startsWith(k.toLowerCase())));
}

const sorted = (s: string): string => [...s].sort().join('');

/**
 * `; did you mean X?` for a message, or '' when nothing is close.
 *
 * @example
 * didYouMean('--shcema', ['--schema', '--lint']) //=> '; did you mean --schema?'
 * didYouMean('-x', ['-o', '--lint'])             //=> ''
 */
export function didYouMean(given: string, known: readonly string[]): string {
  const s = suggest(given, known);
  return s === undefined ? '' : `; did you mean ${s}?`;
}
