/**
 * The retry policy's parts: full-jitter backoff, Retry-After parsing, a retry
 * budget shared by all calls of a client, and an abortable wait. Pure except
 * for the wait, which uses setTimeout (so fake timers work).
 */

/**
 * How a client retries. Every field has a default; `retry: false` turns retries off.
 *
 * @example
 * createClient({ baseUrl, apiKey, retry: { maxAttempts: 5, maxRetryAfterMs: 10_000, budget: false } })
 */
export interface RetryOptions {
  /** Attempts per call, the first included (default 3). A repeat after a token refresh does not count. */
  readonly maxAttempts?: number;
  /** Base of the exponential backoff in ms (default 200). */
  readonly baseDelayMs?: number;
  /** Cap of one backoff wait in ms (default 5000). */
  readonly maxDelayMs?: number;
  /** The longest Retry-After the client waits for, in ms (default 30000); a longer one fails the call at once. */
  readonly maxRetryAfterMs?: number;
  /** Total time for one call, attempts and waits included, in ms (default 60000). */
  readonly deadlineMs?: number;
  /** The retry budget shared by the client's calls, or false for none (default `{ capacity: 100, retryCost: 5, refund: 1 }`). */
  readonly budget?: RetryBudgetOptions | false;
}

/**
 * A token bucket: each retry costs `retryCost` tokens, each call that
 * succeeds at its first attempt gives `refund` back (up to `capacity`). When
 * the bucket is empty calls fail at their first error instead of retrying, so
 * an outage does not become a storm. With the defaults, 20 retries in a row
 * without a success empty it.
 */
export interface RetryBudgetOptions {
  readonly capacity: number;
  readonly retryCost: number;
  readonly refund: number;
}

/** The options with every default filled in. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
  readonly deadlineMs: number;
  readonly budget: RetryBudgetOptions | false;
}

/**
 * The default retry policy.
 *
 * @example
 * DEFAULT_RETRY.maxAttempts //=> 3
 * DEFAULT_RETRY.maxRetryAfterMs //=> 30000
 */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 30_000,
  deadlineMs: 60_000,
  budget: { capacity: 100, retryCost: 5, refund: 1 },
};

/**
 * A numeric option: `fallback` when it is undefined, else a finite number of
 * at least `min`. NaN, Infinity and strings are refused, so that a bad value
 * cannot turn into a retry or a token request on every call.
 *
 * @throws TypeError naming the option
 * @example
 * numberOption('timeoutMs', undefined, 10_000, 1) //=> 10000
 * numberOption('timeoutMs', Number.NaN, 10_000, 1) // throws TypeError: timeoutMs must be a finite number >= 1
 */
export function numberOption(name: string, value: unknown, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) throw new TypeError(`${name} must be a finite number >= ${min}`);
  return value;
}

/**
 * Fills in the defaults of retry options and checks them.
 *
 * @throws TypeError when an option is not a finite number in range
 * @example
 * resolveRetryPolicy({ maxAttempts: 5 }).maxAttempts //=> 5
 * resolveRetryPolicy(false).maxAttempts //=> 1
 */
export function resolveRetryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { ...DEFAULT_RETRY, maxAttempts: 1, budget: false };
  const o = options ?? {};
  const budget = o.budget === undefined ? DEFAULT_RETRY.budget : o.budget;
  if (budget !== false) {
    if (budget === null || typeof budget !== 'object') throw new TypeError('retry.budget must be false or { capacity, retryCost, refund }');
    for (const k of ['capacity', 'retryCost', 'refund'] as const) numberOption(`retry.budget.${k}`, budget[k] ?? Number.NaN, 0);
  }
  return {
    maxAttempts: Math.floor(numberOption('retry.maxAttempts', o.maxAttempts, DEFAULT_RETRY.maxAttempts, 1)),
    baseDelayMs: numberOption('retry.baseDelayMs', o.baseDelayMs, DEFAULT_RETRY.baseDelayMs),
    maxDelayMs: numberOption('retry.maxDelayMs', o.maxDelayMs, DEFAULT_RETRY.maxDelayMs),
    maxRetryAfterMs: numberOption('retry.maxRetryAfterMs', o.maxRetryAfterMs, DEFAULT_RETRY.maxRetryAfterMs),
    deadlineMs: numberOption('retry.deadlineMs', o.deadlineMs, DEFAULT_RETRY.deadlineMs, 1),
    budget,
  };
}

/**
 * The wait before retry number `retry` (1 for the first retry): full jitter,
 * a uniformly random time between 0 and `min(maxDelayMs, baseDelayMs * 2^(retry-1))`.
 *
 * @param random - a number in [0, 1), e.g. Math.random()
 * @example
 * backoffDelay(3, { baseDelayMs: 200, maxDelayMs: 5000 }, 0.5) //=> 400
 */
export function backoffDelay(retry: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random * ceiling);
}

/**
 * Parses a Retry-After header value: delay-seconds or an HTTP date
 * (RFC 9110 §10.2.3). Returns the wait in ms (0 for a date in the past), or
 * undefined when the value is missing or malformed.
 *
 * @param nowMs - the current time in ms since the epoch, for HTTP dates
 * @example
 * parseRetryAfter('2', 0) //=> 2000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', Date.UTC(2015, 9, 21, 7, 28, 0)) //=> 5000
 * parseRetryAfter('soon', 0) //=> undefined
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (/^\d{1,10}$/.test(v)) return Number(v) * 1000;
  // An HTTP date (IMF-fixdate, or the obsolete forms Date.parse also reads); it must name a time.
  if (v.length > 64 || !/\d{2}:\d{2}:\d{2}/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * The retry budget of one client (see {@link RetryBudgetOptions}).
 *
 * @example
 * const b = new RetryBudget({ capacity: 10, retryCost: 5, refund: 1 })
 * b.tryAcquire() //=> true
 * b.tryAcquire() //=> true
 * b.tryAcquire() //=> false
 */
export class RetryBudget {
  #tokens: number;
  readonly #options: RetryBudgetOptions | false;

  constructor(options: RetryBudgetOptions | false) {
    this.#options = options;
    this.#tokens = options === false ? Infinity : options.capacity;
  }

  /** Takes the cost of one retry; false when the budget is spent. */
  tryAcquire(): boolean {
    if (this.#options === false) return true;
    if (this.#tokens < this.#options.retryCost) return false;
    this.#tokens -= this.#options.retryCost;
    return true;
  }

  /** True when one retry can be paid for now; takes nothing (tryAcquire does). */
  canAcquire(): boolean {
    return this.#options === false || this.#tokens >= this.#options.retryCost;
  }

  /** Gives back the refund of a call that succeeded at its first attempt. */
  refund(): void {
    if (this.#options === false) return;
    this.#tokens = Math.min(this.#options.capacity, this.#tokens + this.#options.refund);
  }

  /** Tokens left (Infinity without a budget). */
  get available(): number {
    return this.#tokens;
  }
}

/**
 * Waits `ms` milliseconds, or rejects with the signal's reason as soon as it
 * aborts.
 *
 * @example
 * await sleep(100, AbortSignal.timeout(1000))
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
