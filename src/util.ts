/**
 * Small helpers shared by every layer (text, objects). Internal:
 * not exported from an entry point. Pure: no I/O, no clock.
 */

/**
 * A count and its noun, in the plural unless the count is 1.
 *
 * @example
 * plural(1, 'item') //=> '1 item'
 * plural(3, 'care context') //=> '3 care contexts'
 */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** `T` with its properties writable: a value being assembled before it is handed out as read-only. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * True for a JSON object (or any non-null object that is not an array): the
 * one check of "is this an object with properties to read".
 *
 * @example
 * isObject({ a: 1 }) //=> true
 * isObject([1])      //=> false
 * isObject(null)     //=> false
 */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A trimmed copy of an optional string; undefined when absent or blank. */
export function text(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  const t = s.trim();
  return t === '' ? undefined : t;
}

/** Copies the defined entries only, so optional fields stay absent (exactOptionalPropertyTypes). */
export function compact<O extends Record<string, unknown>>(o: O): { [K in keyof O]: Exclude<O[K], undefined> } {
  const out: Record<string, unknown> = {};
  // Keys, not entries: no pair array made per field (this runs for every resource of every document).
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v !== undefined) out[k] = v;
  }
  return out as { [K in keyof O]: Exclude<O[K], undefined> };
}

/**
 * A memo of values by text key, emptied when it holds `size` of them: for
 * what is costly to work out and asked again and again with the same few keys
 * (a visit time, a frequency). Values must not be changed by those who get them.
 *
 * @example
 * const dates = boundedMemo<string>()
 * dates.get('Asia/Kolkata 2026-11-20T10:30', () => slowFormat()) // works it out once
 */
export function boundedMemo<T>(size = 512): { get(key: string, make: () => T): T } {
  const known = new Map<string, T>();
  return {
    get(key, make) {
      const hit = known.get(key);
      if (hit !== undefined) return hit;
      if (known.size >= size) known.clear();
      const value = make();
      known.set(key, value);
      return value;
    },
  };
}

/**
 * A {@link boundedMemo} keyed by two parts (a time zone and an instant, say)
 * that answers a repeat of the last pair asked without making its key: a
 * document asks for its visit time again and again.
 *
 * @example
 * const wallTimes = pairMemo<string>()
 * wallTimes.get('Asia/Kolkata', 1795152600000, () => slowFormat()) // works it out once
 */
export function pairMemo<T>(size = 512): { get(a: string, b: string | number, make: () => T): T } {
  const memo = boundedMemo<T>(size);
  let lastA: string | undefined;
  let lastB: string | number | undefined;
  let last: T | undefined;
  return {
    get(a, b, make) {
      if (a === lastA && b === lastB) return last as T;
      const value = memo.get(`${a}\u0000${b}`, make);
      lastA = a;
      lastB = b;
      last = value;
      return value;
    },
  };
}
