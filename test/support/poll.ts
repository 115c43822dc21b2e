/** Polling a state until it holds, for tests that wait on servers and processes (never a fixed sleep). */

/** How long a test waits for a started program by default: generous, for a loaded 2-core machine running eight test workers. */
export const WAIT_MS = 90_000;

/** The last `n` lines of a program's output, for a report. */
export function lastLines(text: string, n = 10): string {
  const lines = text.trimEnd().split('\n');
  return lines.length === 1 && lines[0] === '' ? '(nothing)' : lines.slice(-n).join('\n');
}

/**
 * Polls `probe` every 10 ms until it returns a value (not undefined); after
 * `ms` fails naming `what` and, when given, what `seen` reports (a server's
 * last output lines, a queue's counts).
 */
export async function untilValue<T>(probe: () => Promise<T | undefined>, what: string, ms = WAIT_MS, seen?: () => string | Promise<string>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${Math.round(ms / 1000)} s waiting for ${what}${seen === undefined ? '' : `; last seen:\n${await seen()}`}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
