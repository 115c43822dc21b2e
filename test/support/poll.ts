/** Polling a state until it holds, for tests that wait on servers and processes (never a fixed sleep). */

/** Polls `probe` every 10 ms until it returns a value (not undefined); fails naming `what` after `ms`. */
export async function untilValue<T>(probe: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
