/**
 * Table lookups keyed by data. `table[key]` with a key such as
 * `constructor` or `__proto__` reaches Object.prototype; these helpers read
 * a table's own entries only.
 */

/**
 * `table[key]` when `key` is the table's own entry, else undefined.
 *
 * @example
 * ownValue({ male: 'M' }, 'male')        //=> 'M'
 * ownValue({ male: 'M' }, 'constructor') //=> undefined
 */
export function ownValue<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
