/**
 * Waits for a promise, or stops waiting as soon as a signal aborts: the
 * promise itself goes on (it may be shared), only this wait ends. The abort
 * listener is removed either way, so long-lived signals do not collect them.
 *
 * @example
 * await untilAborted(sharedRefresh, signal, () => Promise.reject(signal.reason)) // token.ts
 * await untilAborted(iterator.next(), stopSignal, () => Promise.resolve(STOP))   // submit.ts
 */
export function untilAborted<T, A>(pending: Promise<T>, signal: AbortSignal | undefined, onAbort: () => Promise<A>): Promise<T | A> {
  if (signal === undefined) return pending;
  if (signal.aborted) return onAbort();
  return new Promise<T | A>((resolve, reject) => {
    const abort = (): void => {
      onAbort().then(resolve, reject);
    };
    signal.addEventListener('abort', abort, { once: true });
    pending.then(
      (v) => {
        signal.removeEventListener('abort', abort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(e);
      },
    );
  });
}
