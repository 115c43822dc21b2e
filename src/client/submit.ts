/**
 * Batch submission: many link requests, bounded concurrency, a journal so
 * that nothing acknowledged is sent twice and nothing is lost silently.
 *
 * For each item, in order of arrival:
 * 1. invalid (the schema, then the lint's errors) → reported (`invalid`,
 *    with issues), never sent;
 * 2. a copy of an item already taken in this run → `skipped`
 *    (`duplicate-in-input`), whatever became of the first copy;
 * 3. its key already acknowledged (or answered already linked) in the journal → `skipped`;
 * 4. its key's last state `unknown`, or `sending` (in flight when an earlier
 *    run died) → reported `unknown` and NOT sent again, unless
 *    `retryUnknown` is set: the service may have processed it, and the link
 *    call has no documented idempotency;
 * 5. otherwise a `sending` line is made durable, the request is sent, and
 *    the outcome (`acknowledged`, `already-linked`, `failed`, `unknown`) is recorded.
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
import { OutcomeUnknownError, TransportError, type NetworkFailure, type TransportErrorReason } from './errors.js';
import { JournalError, isDone, openFileJournal, readJournal, type Journal, type JournalEntry, type JournalState } from './journal.js';
import { AlreadyLinkedError } from './link-answer.js';
import { KeySet } from './key-set.js';
import { linkRequestKey } from './key.js';
import { plural } from '../util.js';
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
  /**
   * Receives every item's result as it completes, with the batch's counts so
   * far (a copy: this item counted, items still in flight may be counted
   * already); awaited (back-pressure).
   */
  readonly onResult?: (result: ItemResult, soFar: SubmitSummary) => void | Promise<void>;
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
 * so), answered "already linked" in an earlier run, or a second copy of an
 * item already taken in this run (the first copy in input order is the one
 * sent; its own result says how it went).
 */
export type SkipReason = 'acknowledged-earlier' | 'already-linked-earlier' | 'duplicate-in-input';

/**
 * The result of one item. `index` is its 0-based position in the input;
 * `key` its key in the journal (a keyed hash; without a journal, a key of
 * this run only).
 */
export type ItemResult =
  | ({
      readonly index: number;
      readonly outcome: 'acknowledged';
      readonly key: string;
      /**
       * Set when the service said `success: true` but the rest of its answer does
       * not match the spec's response schema (paths and codes, never values): the
       * item was processed, so it is acknowledged, with this warning.
       */
      readonly warnings?: readonly Issue[];
    } & Pick<CallResult, 'requestId' | 'status' | 'attempts' | 'mismatches'>)
  | {
      readonly index: number;
      /** The service answered that these care contexts were linked before (an AlreadyLinkedError): done, nothing linked again. */
      readonly outcome: 'already-linked';
      readonly key: string;
      readonly requestId: string;
      readonly status: number | undefined;
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
  /** Answered "already linked" in this run: done, like acknowledged (see ItemResult `already-linked`). */
  alreadyLinked: number;
  /** Skipped: done in an earlier run (journal): acknowledged, or answered already linked. */
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
 * error's message or the service's, which may echo health data.
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

/** A summary with every count 0: the start of every batch. */
function emptySummary(): SubmitSummary {
  return {
    total: 0,
    acknowledged: 0,
    warnings: 0,
    mismatches: 0,
    alreadyLinked: 0,
    alreadyAcknowledged: 0,
    duplicates: 0,
    failed: 0,
    unknown: 0,
    unknownEarlier: 0,
    invalid: 0,
    wouldSend: 0,
    stopped: false,
  };
}

/** The counts of batches that ended with an error, by the error (the error itself is thrown unchanged). */
const partialSummaries = new WeakMap<object, SubmitSummary>();

const isObject = (e: unknown): e is object => (typeof e === 'object' && e !== null) || typeof e === 'function';

/**
 * The counts of the batch that ended with `error` (a batch rejects with the
 * input's error, a journal error, …): what was done before it stopped, with
 * `stopped: true`. Every count is 0 for an error that did not come from a
 * batch, or from one that ended before its first item.
 *
 * @example
 * try { await client.submitMany(items, { journal }) } catch (e) { console.log(batchSummaryOf(e).acknowledged, 'acknowledged before', e) }
 */
export function batchSummaryOf(error: unknown): SubmitSummary {
  const partial = isObject(error) ? partialSummaries.get(error) : undefined;
  return { ...(partial ?? emptySummary()), stopped: true };
}

/** Where a batch's items come from: its journal (or none), what the journal knew, and how items are keyed. */
interface BatchKeys {
  /** The journal the batch writes to (none: no journal, or a dry run). */
  readonly journal: Journal | undefined;
  /** The journal's last state of each key, when it was read without opening it (a dry run). */
  readonly states: Map<string, JournalState> | undefined;
  readonly keyOf: (request: LinkCareContextRequest) => string;
}

/** Opens (or, for a dry run, reads) the batch's journal, and picks the items' keys: the journal's salt, else one of this run. */
async function batchKeys(options: SubmitOptions): Promise<BatchKeys> {
  const given = options.journal;
  if (typeof given === 'string') {
    if (options.dryRun === true) {
      const read = await readJournal(given);
      const salt = read.version === 0 ? randomBytes(32) : read.salt;
      return { journal: undefined, states: read.states, keyOf: (r) => linkRequestKey(r, salt) };
    }
    const journal = await openFileJournal(given, options.stopSignal === undefined ? {} : { signal: options.stopSignal });
    return { journal, states: undefined, keyOf: journal.keyOf?.bind(journal) ?? ((r) => linkRequestKey(r)) };
  }
  if (given === undefined) {
    const salt = randomBytes(32);
    return { journal: undefined, states: undefined, keyOf: (r) => linkRequestKey(r, salt) };
  }
  // A journal of its own kind without keyOf keeps plain keys.
  return { journal: given, states: undefined, keyOf: given.keyOf?.bind(given) ?? ((r) => linkRequestKey(r)) };
}

/** What reading ahead for the journal check found. */
interface ReadAhead {
  /** Items read ahead, to be taken before the rest of the input. */
  readonly ahead: unknown[];
  /** The input ended within the items read ahead. */
  readonly inputDone: boolean;
  /** The stopSignal aborted while reading ahead. */
  readonly stopped: boolean;
}

/**
 * Before anything is sent to a journal that holds acknowledged items: one of
 * the input's first {@link JOURNAL_MATCH_WINDOW} valid items must be in it.
 *
 * @throws JournalMismatchError when none is
 */
async function checkJournalKnowsInput(
  iterator: AsyncIterator<unknown> | Iterator<unknown>,
  states: ReadonlyMap<string, JournalState>,
  keyOf: (request: LinkCareContextRequest) => string,
  stopSignal: AbortSignal | undefined,
): Promise<ReadAhead> {
  const ahead: unknown[] = [];
  let valid = 0;
  for (;;) {
    if (valid >= JOURNAL_MATCH_WINDOW) break;
    const next = await nextOrStop(Promise.resolve(iterator.next()), stopSignal);
    if (next === STOP) return { ahead, inputDone: false, stopped: true };
    if (next.done === true) {
      if (valid > 0) break;
      return { ahead, inputDone: true, stopped: false };
    }
    ahead.push(next.value);
    const checked = validateLinkRequest(next.value);
    if (!checked.success) continue;
    valid++;
    if (states.has(keyOf(checked.value))) return { ahead, inputDone: false, stopped: false };
  }
  let acknowledged = 0;
  for (const v of states.values()) if (isDone(v)) acknowledged++;
  throw new JournalMismatchError(
    `the journal holds ${plural(acknowledged, 'acknowledged item')}, but none of the first ${plural(valid, 'valid item')} of the input is in it: a journal of another input, or one whose keys changed; nothing was sent (give the journal of this input, or --force to send anyway)`,
  );
}

/** What one item becomes before anything is sent: its result, or the request to send under its key. */
type Taken = { readonly result: ItemResult } | { readonly send: LinkCareContextRequest; readonly key: string };

/** The state one batch's items share. */
interface BatchContext {
  readonly options: SubmitOptions;
  readonly send: SendLink;
  readonly keys: BatchKeys;
  /** The journal's word on earlier runs, as loaded; this run's items are in `seen`. */
  readonly states: ReadonlyMap<string, JournalState> | undefined;
  /** Keys taken in this run, in input order: a second copy of an item is never sent. */
  readonly seen: KeySet;
  readonly lint: LintOptions | undefined;
  readonly summary: SubmitSummary;
  readonly maxFailuresInARow: number;
  failuresInARow: number;
  /** Set when the batch must stop taking items. */
  halt: SubmitSummary['stopReason'];
}

/** Steps 1 to 4 and the dry run of the module comment: what an item is before it could be sent. */
function takeItem(ctx: BatchContext, value: unknown, index: number): Taken {
  const { options, summary } = ctx;
  const checked = validateLinkRequest(value);
  if (!checked.success) {
    summary.invalid++;
    return { result: { index, outcome: 'invalid', issues: checked.issues } };
  }
  const request = checked.value;
  const errors = ctx.lint === undefined ? [] : lintLinkRequest(request, ctx.lint).filter((i) => i.severity === 'error');
  if (errors.length > 0) {
    summary.invalid++;
    return { result: { index, outcome: 'invalid', issues: errors } };
  }
  const key = ctx.keys.keyOf(request);
  // Checked before the first await: items start in input order, so the first copy is the one sent.
  if (!ctx.seen.add(key)) {
    summary.duplicates++;
    return { result: { index, outcome: 'skipped', key, reason: 'duplicate-in-input' } };
  }
  const prior = ctx.states?.get(key);
  if (isDone(prior)) {
    summary.alreadyAcknowledged++;
    return { result: { index, outcome: 'skipped', key, reason: prior === 'already-linked' ? 'already-linked-earlier' : 'acknowledged-earlier' } };
  }
  const retry = options.retryUnknown;
  if ((prior === 'unknown' || prior === 'sending') && !(retry === true || (typeof retry === 'function' && retry({ key, index })))) {
    summary.unknownEarlier++;
    return { result: { index, outcome: 'unknown', key, earlier: true } };
  }
  if (options.dryRun === true) {
    summary.wouldSend++;
    return { result: { index, outcome: 'would-send', key, hiTypes: request.careContexts.map((c) => c.hiType) } };
  }
  return { send: request, key };
}

/** Counts a failure that says the service looks unavailable; enough in a row halt the batch. */
function countUnavailable(ctx: BatchContext): void {
  ctx.failuresInARow++;
  if (ctx.maxFailuresInARow > 0 && ctx.failuresInARow >= ctx.maxFailuresInARow) ctx.halt ??= 'service-unavailable';
}

/** Step 5 of the module comment: sends one item and journals its outcome. */
async function sendItem(ctx: BatchContext, request: LinkCareContextRequest, key: string, index: number): Promise<ItemResult> {
  const { summary } = ctx;
  const record = async (entry: Omit<JournalEntry, 'at'>): Promise<void> => {
    if (ctx.keys.journal !== undefined) await ctx.keys.journal.append({ ...entry, at: new Date((ctx.options.now ?? Date.now)()).toISOString() });
  };
  // The `sending` line is made durable right before each attempt leaves, with its request id:
  // not before a token is fetched or a retry waited for.
  const beforeSend = (requestId: string): Promise<void> => record({ key, state: 'sending', requestId });
  let result: CallResult;
  try {
    result = await ctx.send(request, ctx.options.signal, beforeSend);
  } catch (e) {
    if (e instanceof AlreadyLinkedError) {
      ctx.failuresInARow = 0;
      await record({ key, state: 'already-linked', requestId: e.requestId, ...(e.status === undefined ? {} : { status: e.status }) });
      summary.alreadyLinked++;
      return { index, outcome: 'already-linked', key, requestId: e.requestId, status: e.status };
    }
    if (e instanceof OutcomeUnknownError) {
      countUnavailable(ctx);
      await record({ key, state: 'unknown', requestId: e.requestId, ...(e.status === undefined ? {} : { status: e.status }), error: e.name, reason: reasonCode(e) });
      summary.unknown++;
      return { index, outcome: 'unknown', key, earlier: false, error: e };
    }
    if (e instanceof TransportError) {
      if (e.reason === 'authentication') ctx.halt ??= 'authentication';
      else if (looksUnavailable(e.reason)) countUnavailable(ctx);
      await record({ key, state: 'failed', requestId: e.requestId, ...(e.status === undefined ? {} : { status: e.status }), error: e.name, reason: reasonCode(e) });
      summary.failed++;
      return { index, outcome: 'failed', key, error: e };
    }
    throw e;
  }
  ctx.failuresInARow = 0;
  const { offSpec: warnings, mismatches } = result;
  const reason = mismatches !== undefined ? 'answer-mismatch' : warnings !== undefined ? 'answer-off-spec' : undefined;
  await record({ key, state: 'acknowledged', requestId: result.requestId, status: result.status, ...(reason === undefined ? {} : { reason }) });
  summary.acknowledged++;
  if (warnings !== undefined) summary.warnings++;
  if (mismatches !== undefined) summary.mismatches++;
  return {
    index,
    outcome: 'acknowledged',
    key,
    requestId: result.requestId,
    status: result.status,
    attempts: result.attempts,
    ...(warnings === undefined ? {} : { warnings }),
    ...(mismatches === undefined ? {} : { mismatches }),
  };
}

/** One item, from validation to its result, handed to onResult with the counts so far. */
async function processItem(ctx: BatchContext, value: unknown, index: number): Promise<void> {
  const taken = takeItem(ctx, value, index);
  const result = 'result' in taken ? taken.result : await sendItem(ctx, taken.send, taken.key, index);
  if (ctx.options.onResult !== undefined) await ctx.options.onResult(result, { ...ctx.summary });
}

/**
 * Runs a batch (see the module comment). Used by `client.submitMany`.
 *
 * @throws the input's error when iterating `items` fails: no item is taken
 * after it, the requests in flight finish and are journaled, the journal is
 * closed, then the error is thrown. Whatever the error, {@link batchSummaryOf}
 * gives the counts of what was done before it.
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
  const summary = emptySummary();
  try {
    const keys = await batchKeys(options);
    try {
      const states = keys.states ?? (await keys.journal?.load());
      const lint: LintOptions | undefined = options.lint === false ? undefined : options.lint === true || options.lint === undefined ? {} : options.lint;
      const ctx: BatchContext = { options, send, keys, states, seen: new KeySet(), lint, summary, maxFailuresInARow, failuresInARow: 0, halt: undefined };
      await takeAll(ctx, iterator, concurrency);
    } finally {
      if (typeof options.journal === 'string') await keys.journal?.close();
    }
  } catch (e) {
    if (isObject(e)) partialSummaries.set(e, { ...summary, stopped: true });
    throw e;
  }
  return summary;
}

/** Takes the items, at most `concurrency` in flight, until the input ends or the batch stops; then waits for those in flight. */
async function takeAll(ctx: BatchContext, iterator: AsyncIterator<unknown> | Iterator<unknown>, concurrency: number): Promise<void> {
  const { options, summary, states } = ctx;
  const stop = (reason: NonNullable<SubmitSummary['stopReason']>): void => {
    summary.stopped = true;
    summary.stopReason = reason;
  };
  const inFlight = new Set<Promise<void>>();
  let fatal: { error: unknown } | undefined;
  let inputFailure: { error: unknown } | undefined;
  let index = 0;
  try {
    let read: ReadAhead = { ahead: [], inputDone: false, stopped: false };
    if (states !== undefined && options.force !== true && [...states.values()].some(isDone)) {
      read = await checkJournalKnowsInput(iterator, states, ctx.keys.keyOf, options.stopSignal);
      if (read.stopped) stop('stop-signal');
    }
    while (!summary.stopped) {
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
      if (fatal !== undefined) break;
      if (ctx.halt !== undefined) stop(ctx.halt);
      else if (options.stopSignal?.aborted === true || options.signal?.aborted === true) stop('stop-signal');
      if (summary.stopped) break;
      let next: IteratorResult<unknown> | typeof STOP;
      try {
        if (read.ahead.length > 0) next = { done: false, value: read.ahead.shift() };
        else if (read.inputDone) next = { done: true, value: undefined };
        else next = await nextOrStop(Promise.resolve(iterator.next()), options.stopSignal);
      } catch (e) {
        // The input failed (a read error, a throwing generator): take nothing more, but let the
        // requests in flight finish and journal their outcomes before the error is reported.
        inputFailure = { error: e };
        break;
      }
      if (next === STOP) stop('stop-signal');
      else if (next.done === true) break;
      else {
        const i = index++;
        summary.total++;
        // At most `concurrency` items are in flight: the loop waits above before taking another.
        const p: Promise<void> = processItem(ctx, next.value, i)
          .catch((e: unknown) => {
            fatal ??= { error: e };
          })
          .finally(() => {
            inFlight.delete(p);
          });
        inFlight.add(p);
      }
    }
    await Promise.all(inFlight);
  } finally {
    if (summary.stopped || fatal !== undefined) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
  if (fatal !== undefined) throw fatal.error;
  if (inputFailure !== undefined) throw inputFailure.error;
}
