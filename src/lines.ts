/**
 * Cutting bytes read in chunks into lines, with a limit on a line's length:
 * the one line cutter of the NDJSON reader (cli/io.ts) and the journal
 * reader (client/journal.ts). Lines are cut at the newline byte before any
 * decoding, so a line of ASCII stays cheap to decode beside one in
 * Devanagari, and memory is bounded by the limit whatever the input.
 */

/**
 * Receives each line: its bytes without the newline (a view that is valid
 * only during the call; copy it to keep it), or `undefined` for a line
 * longer than the limit, whose bytes were not kept.
 */
export type OnLine = (line: Buffer | undefined) => void;

/**
 * Cuts chunks of bytes into lines at `\n`, carrying the unfinished end of
 * each chunk over to the next. A line longer than `maxLineBytes` is not
 * kept: it is reported as `undefined` when its newline comes, and
 * {@link LineCutter.overLimit} says so as soon as the carried part exceeds
 * the limit (a reader that refuses such input can stop at once).
 *
 * @example
 * const cut = new LineCutter(1024)
 * const lines: string[] = []
 * cut.push(Buffer.from('{"a":1}\n{"b"'), (l) => lines.push(String(l)))
 * cut.push(Buffer.from(':2}\n'), (l) => lines.push(String(l)))
 * lines //=> ['{"a":1}', '{"b":2}']
 */
export class LineCutter {
  #carry: Buffer[] = [];
  #carryBytes = 0;
  #overLimit = false;

  constructor(readonly maxLineBytes: number) {}

  /** True while the line being carried (not yet ended by a newline) is longer than the limit. */
  get overLimit(): boolean {
    return this.#overLimit;
  }

  /**
   * Calls `onLine` with each line that `chunk` ends, in order, and keeps the
   * rest (copied: the caller may reuse its buffer) for the next chunk.
   */
  push(chunk: Uint8Array, onLine: OnLine): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, start)) {
      const piece = buf.subarray(start, nl);
      if (this.#overLimit || this.#carryBytes + piece.length > this.maxLineBytes) onLine(undefined);
      else onLine(this.#carryBytes === 0 ? piece : Buffer.concat([...this.#carry, piece]));
      this.#reset();
      start = nl + 1;
    }
    if (start === buf.length || this.#overLimit) return;
    this.#carry.push(Buffer.from(buf.subarray(start)));
    this.#carryBytes += buf.length - start;
    if (this.#carryBytes > this.maxLineBytes) {
      this.#reset();
      this.#overLimit = true;
    }
  }

  /**
   * The end of the input: calls `onLine` with the last line when no newline
   * ended it (`undefined` when it is over the limit). Returns true when there
   * was such a line, false when the input ended with a newline (or was empty).
   */
  end(onLine: OnLine): boolean {
    const last = this.#overLimit ? undefined : this.#carryBytes === 0 ? null : Buffer.concat(this.#carry);
    this.#reset();
    if (last === null) return false;
    onLine(last);
    return true;
  }

  #reset(): void {
    this.#carry = [];
    this.#carryBytes = 0;
    this.#overLimit = false;
  }
}
