/**
 * Small text helpers shared by every layer (core, client, CLI). Internal:
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
