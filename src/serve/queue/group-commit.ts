/**
 * Group commit: calls that arrive while a write runs are written together in
 * the next one, so that many concurrent callers share one statement and one
 * commit (the commit's flush to disk is most of a small write's cost). Each
 * caller's promise settles with its own result once its batch committed.
 */
export class GroupCommit<I, O> {
  #pending: { input: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  #running: Promise<void> | undefined;

  /** `write` gets a batch and resolves to one result per input, in order. */
  constructor(
    readonly write: (batch: I[]) => Promise<O[]>,
    readonly maxBatch = 256,
  ) {}

  add(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#pending.push({ input, resolve, reject });
      this.#running ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.maxBatch);
      try {
        const out = await this.write(batch.map((b) => b.input));
        batch.forEach((b, i) => b.resolve(out[i] as O));
      } catch (e) {
        for (const b of batch) b.reject(e);
      }
    }
    this.#running = undefined;
  }

  /** Resolves once nothing is being written. */
  idle(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }
}
