/**
 * Batch submission: many link requests, bounded concurrency, a journal so
 * that nothing acknowledged is sent twice and nothing is lost silently.
 *
 * For each item, in order of arrival:
 * 1. invalid (the schema, then the lint's errors) → reported (`invalid`,
 *    with issues), never sent;
 * 2. a copy of an item already taken in this run → `skipped`
 *    (`duplicate-in-input`), whatever became of the first copy;
 * 3. its key already acknowledged in the journal → `skipped`;
 * 4. its key's last state `unknown`, or `sending` (in flight when an earlier
 *    run died) → reported `unknown` and NOT sent again, unless
 *    `retryUnknown` is set: the service may have processed it, and the link
 *    call has no documented idempotency;
 * 5. otherwise a `sending` line is made durable, the request is sent, and
 *    the outcome (`acknowledged`, `failed`, `unknown`) is recorded.
 *
 * Memory stays flat in the input's size: items are pulled from the iterable
 * only when a slot is free, and results are handed to `onResult`, not kept.
 * Only the set of keys seen in this run (16 to 43 bytes per distinct item,
 * see KeySet) and the journal's key index (about 100 bytes per key) grow.
 */
import { randomBytes } from 'node:crypto';
import { untilAborted } from './abort.js';
import type { Issue } from '../errors.js';
import type { LinkCareContextRequest } from '../generated/types.js';
import { validateLinkRequest } from '../validation/validate.js';
import { lintLinkRequest, type LintOptions } from '../validation/lint.js';
import { isOutcomeUnknownError, isTransportError, type NetworkFailure, type OutcomeUnknownError, type TransportError, type TransportErrorReason } from './errors.js';
import { JournalError, openFileJournal, readJournal, type Journal, type JournalEntry, type JournalState } from './journal.js';
import { KeySet } from './key-set.js';
import { linkRequestKey } from './key.js';
import type { CallResult } from './transport.js';

/**
 * Options of `client.submitMany`.
 *
 * @example
 * await client.submitMany(requests, { concurrency: 8, journal: 'links.journal', onResult: (r) => console.log(r.index, r.outcome) })
 */
export interface SubmitOptions {
  /** Requests in flight at once (default 4, at most 256). */
  readonly concurrency?: number;
  /** A journal, or the path of a journal file (opened, locked and closed by the batch). */
  readonly journal?: Journal | string;
  /**
   * Send again items whose earlier outcome is unknown (default false: they are
   * reported, not sent). A function sends only the items it returns true for:
   * those a person confirmed were not linked (`abha-link submit --resend-confirmed`).
   */
  readonly retryUnknown?: boolean | ((item: { readonly key: string; readonly index: number }) => boolean);
  /**
   * Send even when the journal holds acknowledged items and none of the
   * first {@link JOURNAL_MATCH_WINDOW} valid items of the input is in it
   * (default false: the batch rejects with a {@link JournalMismatchError}
   * before sending anything: a journal of another input, or one whose keys
   * changed, would let every item be sent again).
   */
  readonly force?: boolean;
  /** Validate and check the journal, but send nothing and write nothing: results are `would-send`. */
  readonly dryRun?: boolean;
  /** Stop taking new items when this aborts; items in flight finish (a graceful stop). */
  readonly stopSignal?: AbortSignal;
  /** Abort items in flight too; an item aborted in flight becomes `unknown`. */
  readonly signal?: AbortSignal;
  /** Receives every item's result as it completes; awaited (back-pressure). */
  readonly onResult?: (result: ItemResult) => void | Promise<void>;
  /**
   * Lint every valid item as `abha-link validate --lint` does (lintLinkRequest):
   * an item with a lint error (an empty careContexts, a visit date in the
   * future) is `invalid`, with the lint's issues, and never sent. Default
   * `true`: the rules that need no clock; pass `{ now: new Date() }` for the
   * date rules too (the library never reads the clock); `false` turns lint off.
   */
  readonly lint?: LintOptions | boolean;
  /** The clock for journal timestamps (default Date.now). */
  readonly now?: () => number;
  /**
   * Stop the batch after this many items in a row failed because the service
   * looked unavailable (network errors, 5xx, 429, outcome unknown), so that an outage does not
   * burn through the input (default 25; 0 never stops). The batch always
   * stops at the first authentication failure: every other item would fail
   * the same way.
   */
  readonly stopAfterConsecutiveFailures?: number;
}

/**
 * Why an item was skipped: acknowledged in an earlier run (the journal says
 * so), or a second copy of an item already taken in this run (the first
 * copy in input order is the one sent; its own result says how it went).
 */
export type SkipReason = 'acknowledged-earlier' | 'duplicate-in-input';

/**
 * The result of one item. `index` is its 0-based position in the input;
 * `key` its key in the journal (a keyed hash; without a journal, a key of
 * this run only).
 */
export type ItemResult =
  | {
      readonly index: number;
      readonly outcome: 'acknowledged';
      readonly key: string;
      readonly requestId: string;
      readonly status: number;
      readonly attempts: number;
      /**
       * Set when the service said `success: true` but the rest of its answer does
       * not match the spec's response schema (paths and codes, never values): the
       * item was processed, so it is acknowledged, with this warning.
       */
      readonly warnings?: readonly Issue[];
      /**
       * Set when the service said `success: true` but the care contexts of its
       * answer contradict the request (one reported as not linked, a reference
       * the request did not send, one missing): paths and codes, never values.
       * The item is acknowledged (sending it again could link it twice); a
       * person should look at it.
       */
      readonly mismatches?: readonly Issue[];
    }
  | { readonly index: number; readonly outcome: 'skipped'; readonly key: string; readonly reason: SkipReason }
  | { readonly index: number; readonly outcome: 'failed'; readonly key: string; readonly error: TransportError }
  | {
      readonly index: number;
      readonly outcome: 'unknown';
      readonly key: string;
      /** True when the outcome is unknown since an earlier run (the item was not sent in this one). */
      readonly earlier: boolean;
      readonly error?: OutcomeUnknownError;
    }
  | { readonly index: number; readonly outcome: 'invalid'; readonly issues: readonly Issue[] }
  | { readonly index: number; readonly outcome: 'would-send'; readonly key: string; readonly hiTypes: readonly string[] };

/** Counts of a batch. */
export interface SubmitSummary {
  /** Items read. */
  total: number;
  /** Acknowledged by the service in this run. */
  acknowledged: number;
  /** Of those, acknowledged with an answer that does not match the spec's response schema (see ItemResult `warnings`). */
  warnings: number;
  /** Of those, acknowledged with an answer whose care contexts contradict the request (see ItemResult `mismatches`). */
  mismatches: number;
  /** Skipped: acknowledged in an earlier run (journal). */
  alreadyAcknowledged: number;
  /** Skipped: a second copy of an item already taken in this run. */
  duplicates: number;
  /** Failed: not processed (safe to send again; a rerun does). */
  failed: number;
  /** Outcome unknown in this run. */
  unknown: number;
  /** Outcome unknown since an earlier run, not sent again. */
  unknownEarlier: number;
  /** Invalid, never sent. */
  invalid: number;
  /** Dry run: would be sent. */
  wouldSend: number;
  /** True when the batch stopped before the end of the input. */
  stopped: boolean;
  /** Why it stopped: the stopSignal, an authentication failure, or too many failures in a row. */
  stopReason?: 'stop-signal' | 'authentication' | 'service-unavailable';
}

/**
 * Sends one validated link request; the client's transport. It must await
 * `beforeSend(requestId)` right before each attempt leaves (the batch makes
 * the item's `sending` line durable there), and send nothing when it rejects.
 */
export type SendLink = (request: LinkCareContextRequest, signal: AbortSignal | undefined, beforeSend: (requestId: string) => Promise<void>) => Promise<CallResult>;

/** How many valid items of the input are looked at for one the journal knows, before anything is sent. */
export const JOURNAL_MATCH_WINDOW = 1000;

/**
 * The journal holds acknowledged items, but none of the first items of the
 * input is in it: a journal of another input, or one whose keys changed
 * (its salt edited). Nothing was sent; `force: true` (`--force`) sends anyway.
 */
export class JournalMismatchError extends JournalError {
  override name = 'JournalMismatchError';
}

const STOP = Symbol('stop');

/**
 * The fixed reason code the journal records for a failure: never the
 * error's message or the service's, which may echo health data. The error's
 * own stable code, `e.reason` (see TransportErrorReason).
 *
 * @example
 * reasonCode(new RateLimitedError('...', details)) //=> 'rate-limited'
 */
export function reasonCode(e: TransportError): TransportErrorReason {
  return e.reason;
}

/**
 * The codes of failures that say the service looks unavailable (network
 * errors, 5xx, 429): they count towards `stopAfterConsecutiveFailures`.
 * Every NetworkFailure must be listed (a compile error otherwise).
 */
const UNAVAILABLE: Readonly<Record<NetworkFailure | 'server-error' | 'rate-limited', true>> = {
  'connection-refused': true,
  dns: true,
  'connect-timeout': true,
  unreachable: true,
  tls: true,
  timeout: true,
  'connection-lost': true,
  other: true,
  'request-refused': true,
  'server-error': true,
  'rate-limited': true,
};
const looksUnavailable = (reason: TransportErrorReason): boolean => Object.hasOwn(UNAVAILABLE, reason);

function iteratorOf(items: AsyncIterable<unknown> | Iterable<unknown>): AsyncIterator<unknown> | Iterator<unknown> {
  if (items !== null && typeof items === 'object' && Symbol.asyncIterator in items) return (items as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  if (items !== null && typeof items === 'object' && Symbol.iterator in items) return (items as Iterable<unknown>)[Symbol.iterator]();
  throw new TypeError('submitMany needs an iterable or async iterable of link requests');
}

/**
 * The next item, or STOP as soon as `signal` aborts. The listener is removed
 * after each item (a Promise.race against one long-lived promise would keep
 * every item alive until the batch ends).
 */
function nextOrStop<T>(next: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof STOP> {
  return untilAborted(next, signal, () => Promise.resolve(STOP));
}

/** A batch's journal, its word on earlier runs, and the key of an item. */
interface BatchJournal {
  readonly journal: Journal | undefined;
  /** True when the batch opened the journal from a path (and closes it). */
  readonly own: boolean;
  /** The journal's states as loaded (a dry run reads them without opening the journal). */
  readonly states: Map<string, JournalState> | undefined;
  readonly keyOf: (request: LinkCareContextRequest) => string;
}

/** Opens (or, for a dry run, reads) the batch's journal and picks the items' keys. */
async function openBatchJournal(options: SubmitOptions): Promise<BatchJournal> {
  /** The salt of the items' keys: the journal's; without a journal, one of this run (undefined: plain k1 keys). */
  let salt: Uint8Array | undefined;
  let keyOfJournal: Journal['keyOf'];
  let journal: Journal | undefined;
  let states: Map<string, JournalState> | undefined;
  if (typeof options.journal === 'string') {
    if (options.dryRun === true) {
      const read = await readJournal(options.journal);
      states = read.states;
      salt = read.version === 0 ? randomBytes(32) : read.salt;
    } else {
      journal = await openFileJournal(options.journal, options.stopSignal === undefined ? {} : { signal: options.stopSignal });
      keyOfJournal = journal.keyOf?.bind(journal);
    }
  } else {
    journal = options.journal;
    // A journal of its own kind without keyOf keeps plain keys.
    keyOfJournal = journal?.keyOf?.bind(journal) ?? (journal === undefined ? undefined : (r) => linkRequestKey(r));
    if (journal === undefined) salt = randomBytes(32);
  }
  const keyOf = keyOfJournal ?? ((request: LinkCareContextRequest): string => linkRequestKey(request, salt));
  return { journal, own: typeof options.journal === 'string', states, keyOf };
}

/**
 * Before anything is sent, when the journal holds acknowledged items: the
 * journal must know one of the input's first JOURNAL_MATCH_WINDOW valid
 * items. Returns the items read ahead (to be taken first), whether the input
 * ended, and whether the stop signal came meanwhile.
 *
 * @throws JournalMismatchError when none of them is in the journal
 */
async function matchJournal(
  iterator: AsyncIterator<unknown> | Iterator<unknown>,
  states: Map<string, JournalState>,
  keyOf: (request: LinkCareContextRequest) => string,
  stopSignal: AbortSignal | undefined,
): Promise<{ ahead: unknown[]; inputDone: boolean; stopped: boolean }> {
  const ahead: unknown[] = [];
  let valid = 0;
  let matched = false;
  let inputDone = false;
  let stopped = false;
  while (valid < JOURNAL_MATCH_WINDOW) {
    const next = await nextOrStop(Promise.resolve(iterator.next()), stopSignal);
    if (next === STOP || next.done === true) {
      inputDone = next !== STOP;
      stopped = next === STOP;
      break;
    }
    ahead.push(next.value);
    const checked = validateLinkRequest(next.value);
    if (!checked.success) continue;
    valid++;
    if (states.has(keyOf(checked.value))) {
      matched = true;
      break;
    }
  }
  if (!matched && valid > 0 && !stopped) {
    let acknowledged = 0;
    for (const v of states.values()) if (v === 'acknowledged') acknowledged++;
    throw new JournalMismatchError(
      `the journal holds ${acknowledged} acknowledged item${acknowledged === 1 ? '' : 's'}, but none of the first ${valid} valid item${valid === 1 ? '' : 's'} of the input is in it: a journal of another input, or one whose keys changed; nothing was sent (give the journal of this input, or --force to send anyway)`,
    );
  }
  return { ahead, inputDone, stopped };
}

/**
 * One batch's items: each one checked, sent and recorded (see the module
 * comment), its result counted in `summary` and handed to `onResult`.
 */
class BatchItems {
  readonly summary: SubmitSummary = {
    total: 0,
    acknowledged: 0,
    warnings: 0,
    mismatches: 0,
    alreadyAcknowledged: 0,
    duplicates: 0,
    failed: 0,
    unknown: 0,
    unknownEarlier: 0,
    invalid: 0,
    wouldSend: 0,
    stopped: false,
  };
  /** Why the batch must stop taking items (authentication, too many failures in a row). */
  halt: SubmitSummary['stopReason'];
  /** The journal's word on earlier runs, as loaded; this run's items are in `#seen`. */
  states: Map<string, JournalState> | undefined;
  // Keys taken in this run, in input order: a second copy of an item is never sent (with or
  // without a journal, whatever the concurrency). One entry per distinct item.
  readonly #seen = new KeySet();
  #failuresInARow = 0;
  readonly #options: SubmitOptions;
  readonly #send: SendLink;
  readonly #journal: BatchJournal;
  readonly #lint: LintOptions | undefined;
  readonly #maxFailuresInARow: number;
  readonly #now: () => number;

  constructor(options: SubmitOptions, send: SendLink, journal: BatchJournal, maxFailuresInARow: number) {
    this.#options = options;
    this.#send = send;
    this.#journal = journal;
    this.states = journal.states;
    this.#lint = options.lint === false ? undefined : options.lint === true || options.lint === undefined ? {} : options.lint;
    this.#maxFailuresInARow = maxFailuresInARow;
    this.#now = options.now ?? Date.now;
  }

  async #emit(r: ItemResult): Promise<void> {
    if (this.#options.onResult !== undefined) await this.#options.onResult(r);
  }

  async #record(entry: Omit<JournalEntry, 'at'>): Promise<void> {
    const journal = this.#journal.journal;
    if (journal !== undefined) await journal.append({ ...entry, at: new Date(this.#now()).toISOString() });
  }

  /** Checks, sends and records one item. */
  async process(value: unknown, index: number): Promise<void> {
    const screened = this.#screen(value, index);
    if ('outcome' in screened) {
      await this.#emit(screened);
      return;
    }
    const { request, key } = screened;
    // The `sending` line is made durable right before each attempt leaves, with its request id:
    // not before a token is fetched or a retry waited for.
    const beforeSend = (requestId: string): Promise<void> => this.#record({ key, state: 'sending', requestId });
    let result: CallResult;
    try {
      result = await this.#send(request, this.#options.signal, beforeSend);
    } catch (e) {
      if (!isTransportError(e)) throw e;
      await this.#failed(e, key, index);
      return;
    }
    await this.#acknowledged(result, key, index);
  }

  /**
   * The result of an item that is not sent (invalid, a copy, acknowledged or
   * unknown earlier, a dry run), counted; or the request and key to send.
   * Synchronous: items are screened in input order, so the first copy is the one sent.
   */
  #screen(value: unknown, index: number): ItemResult | { request: LinkCareContextRequest; key: string } {
    const { summary } = this;
    const checked = validateLinkRequest(value);
    if (!checked.success) {
      summary.invalid++;
      return { index, outcome: 'invalid', issues: checked.issues };
    }
    const request = checked.value;
    if (this.#lint !== undefined) {
      const errors = lintLinkRequest(request, this.#lint).filter((i) => i.severity === 'error');
      if (errors.length > 0) {
        summary.invalid++;
        return { index, outcome: 'invalid', issues: errors };
      }
    }
    const key = this.#journal.keyOf(request);
    if (!this.#seen.add(key)) {
      summary.duplicates++;
      return { index, outcome: 'skipped', key, reason: 'duplicate-in-input' };
    }
    const prior = this.states?.get(key);
    if (prior === 'acknowledged') {
      summary.alreadyAcknowledged++;
      return { index, outcome: 'skipped', key, reason: 'acknowledged-earlier' };
    }
    const retry = this.#options.retryUnknown;
    if ((prior === 'unknown' || prior === 'sending') && !(retry === true || (typeof retry === 'function' && retry({ key, index })))) {
      summary.unknownEarlier++;
      return { index, outcome: 'unknown', key, earlier: true };
    }
    if (this.#options.dryRun === true) {
      summary.wouldSend++;
      return { index, outcome: 'would-send', key, hiTypes: request.careContexts.map((c) => c.hiType) };
    }
    return { request, key };
  }

  /** Records and reports a failed call: `unknown` when it may have been processed, else `failed`. */
  async #failed(e: TransportError, key: string, index: number): Promise<void> {
    const unknown = isOutcomeUnknownError(e);
    if (!unknown && e.reason === 'authentication') this.halt ??= 'authentication';
    else if (unknown || looksUnavailable(e.reason)) {
      this.#failuresInARow++;
      if (this.#maxFailuresInARow > 0 && this.#failuresInARow >= this.#maxFailuresInARow) this.halt ??= 'service-unavailable';
    }
    const state = unknown ? 'unknown' : 'failed';
    await this.#record({ key, state, requestId: e.requestId, ...(e.status === undefined ? {} : { status: e.status }), error: e.name, reason: e.reason });
    if (unknown) {
      this.summary.unknown++;
      await this.#emit({ index, outcome: 'unknown', key, earlier: false, error: e });
    } else {
      this.summary.failed++;
      await this.#emit({ index, outcome: 'failed', key, error: e });
    }
  }

  /** Records and reports an acknowledged call, with its warnings and mismatches. */
  async #acknowledged(result: CallResult, key: string, index: number): Promise<void> {
    this.#failuresInARow = 0;
    const warnings = result.offSpec;
    const mismatches = result.mismatches;
    const reason = mismatches !== undefined ? 'answer-mismatch' : warnings !== undefined ? 'answer-off-spec' : undefined;
    await this.#record({ key, state: 'acknowledged', requestId: result.requestId, status: result.status, ...(reason === undefined ? {} : { reason }) });
    this.summary.acknowledged++;
    if (warnings !== undefined) this.summary.warnings++;
    if (mismatches !== undefined) this.summary.mismatches++;
    await this.#emit({
      index,
      outcome: 'acknowledged',
      key,
      requestId: result.requestId,
      status: result.status,
      attempts: result.attempts,
      ...(warnings === undefined ? {} : { warnings }),
      ...(mismatches === undefined ? {} : { mismatches }),
    });
  }
}

/**
 * Runs a batch (see the module comment). Used by `client.submitMany`.
 *
 * @throws the input's error when iterating `items` fails: no item is taken
 * after it, the requests in flight finish and are journaled, the journal is
 * closed, then the error is thrown
 * @example
 * const summary = await runBatch(items, { concurrency: 4 }, send)
 */
export async function runBatch(items: AsyncIterable<unknown> | Iterable<unknown>, options: SubmitOptions, send: SendLink): Promise<SubmitSummary> {
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) throw new TypeError('concurrency must be a whole number from 1 to 256');
  const maxFailuresInARow = options.stopAfterConsecutiveFailures ?? 25;
  if (!Number.isInteger(maxFailuresInARow) || maxFailuresInARow < 0) throw new TypeError('stopAfterConsecutiveFailures must be a whole number >= 0');
  // Checked before the journal is opened (and locked).
  const iterator = iteratorOf(items);
  const batchJournal = await openBatchJournal(options);
  const { journal } = batchJournal;
  const batch = new BatchItems(options, send, batchJournal, maxFailuresInARow);
  const { summary } = batch;
  const inFlight = new Set<Promise<void>>();
  let fatal: { error: unknown } | undefined;
  let inputFailure: { error: unknown } | undefined;
  let index = 0;
  /** Items read ahead by the journal check, taken before the rest of the input. */
  let ahead: unknown[] = [];
  let inputDone = false;
  const stop = (reason: NonNullable<SubmitSummary['stopReason']>): void => {
    summary.stopped = true;
    summary.stopReason = reason;
  };
  try {
    batch.states ??= journal === undefined ? undefined : await journal.load();
    const states = batch.states;
    if (states !== undefined && options.force !== true && [...states.values()].includes('acknowledged')) {
      const matched = await matchJournal(iterator, states, batchJournal.keyOf, options.stopSignal);
      ({ ahead, inputDone } = matched);
      if (matched.stopped) stop('stop-signal');
    }
    for (;;) {
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
      if (fatal !== undefined) break;
      if (batch.halt !== undefined) {
        stop(batch.halt);
        break;
      }
      if (options.stopSignal?.aborted === true || options.signal?.aborted === true) {
        stop('stop-signal');
        break;
      }
      let next: IteratorResult<unknown> | typeof STOP;
      try {
        if (ahead.length > 0) next = { done: false, value: ahead.shift() };
        else if (inputDone) next = { done: true, value: undefined };
        else next = await nextOrStop(Promise.resolve(iterator.next()), options.stopSignal);
      } catch (e) {
        // The input failed (a read error, a throwing generator): take nothing more, but let the
        // requests in flight finish and journal their outcomes before the error is reported.
        inputFailure = { error: e };
        break;
      }
      if (next === STOP) {
        stop('stop-signal');
        break;
      }
      if (next.done === true) break;
      const i = index++;
      summary.total++;
      // At most `concurrency` items are in flight: the loop waits above before taking another.
      const p: Promise<void> = batch
        .process(next.value, i)
        .catch((e: unknown) => {
          fatal ??= { error: e };
        })
        .finally(() => {
          inFlight.delete(p);
        });
      inFlight.add(p);
    }
    await Promise.all(inFlight);
  } finally {
    if (summary.stopped || fatal !== undefined) void Promise.resolve(iterator.return?.()).catch(() => undefined);
    if (batchJournal.own) await journal?.close();
  }
  if (fatal !== undefined) throw fatal.error;
  if (inputFailure !== undefined) throw inputFailure.error;
  return summary;
}
