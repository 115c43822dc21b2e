/**
 * Whether a process runs, by its pid: the one check the journal lock, the
 * Chromium profile sweep and the serve data directory's lock share.
 */

/**
 * True when process `pid` runs on this machine (as this user or another:
 * EPERM means it runs, but we may not signal it). Sends no signal (signal 0).
 *
 * @example
 * isProcessAlive(process.pid) //=> true
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown } | null)?.code === 'EPERM';
  }
}
