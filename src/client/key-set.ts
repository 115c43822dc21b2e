/**
 * The set of item keys a batch has taken, kept small: a batch of millions of
 * items remembers every key (a second copy of an item is never sent), and a
 * `Set<string>` costs about 100 bytes per key. Keys of the usual shape
 * (`k1:` or `k2:` and 32 hex digits) are stored as their 128 bits in an
 * open-addressing table of 32-bit words: 16 bytes per slot, at most three
 * quarters of the slots used. Exact: the whole key is stored, nothing is a fingerprint.
 */

const HEX_KEY = /^(k\d+:)([0-9a-f]{32})$/;
const WORDS = 4;

/**
 * A set of item keys.
 *
 * @example
 * const seen = new KeySet()
 * seen.add('k2:00112233445566778899aabbccddeeff') //=> true (new)
 * seen.add('k2:00112233445566778899aabbccddeeff') //=> false (already there)
 * seen.size //=> 1
 */
export class KeySet {
  #table = new Uint32Array(WORDS * 1024);
  #used = 0;
  /** The prefix of the keys in the table (`k2:`); keys with another prefix, or another shape, go to `#other`. */
  #prefix: string | undefined;
  readonly #other = new Set<string>();

  /** Keys in the set. */
  get size(): number {
    return this.#used + this.#other.size;
  }

  /** Adds `key`; true when it was not in the set yet. */
  add(key: string): boolean {
    const m = HEX_KEY.exec(key);
    const hex = m?.[2];
    if (m === null || hex === undefined || (this.#prefix !== undefined && m[1] !== this.#prefix)) return this.#addOther(key);
    this.#prefix ??= m[1];
    const w0 = Number.parseInt(hex.slice(0, 8), 16) >>> 0;
    const w1 = Number.parseInt(hex.slice(8, 16), 16) >>> 0;
    const w2 = Number.parseInt(hex.slice(16, 24), 16) >>> 0;
    const w3 = Number.parseInt(hex.slice(24, 32), 16) >>> 0;
    // An all-zero key would look like an empty slot.
    if ((w0 | w1 | w2 | w3) === 0) return this.#addOther(key);
    // At most three quarters of the slots used: short probes, 21 to 43 bytes per key.
    if ((this.#used + 1) * 4 > (this.#table.length / WORDS) * 3) this.#grow();
    if (!this.#insert(this.#table, w0, w1, w2, w3)) return false;
    this.#used++;
    return true;
  }

  #addOther(key: string): boolean {
    if (this.#other.has(key)) return false;
    this.#other.add(key);
    return true;
  }

  /** Puts the key in `table` unless it is there; false when it was. */
  #insert(table: Uint32Array, w0: number, w1: number, w2: number, w3: number): boolean {
    const mask = table.length / WORDS - 1;
    // The key is a hash already: its first word spreads the slots evenly.
    for (let slot = w0 & mask; ; slot = (slot + 1) & mask) {
      const at = slot * WORDS;
      const a = table[at] ?? 0;
      const b = table[at + 1] ?? 0;
      const c = table[at + 2] ?? 0;
      const d = table[at + 3] ?? 0;
      if ((a | b | c | d) === 0) {
        table[at] = w0;
        table[at + 1] = w1;
        table[at + 2] = w2;
        table[at + 3] = w3;
        return true;
      }
      if (a === w0 && b === w1 && c === w2 && d === w3) return false;
    }
  }

  #grow(): void {
    const old = this.#table;
    const table = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += WORDS) {
      const a = old[at] ?? 0;
      const b = old[at + 1] ?? 0;
      const c = old[at + 2] ?? 0;
      const d = old[at + 3] ?? 0;
      if ((a | b | c | d) !== 0) this.#insert(table, a, b, c, d);
    }
    this.#table = table;
  }
}
