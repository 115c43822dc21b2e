import { fstatSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createClient } from '../../client/client.js';
import { parseBaseUrl } from '../../client/base-url.js';
import { JournalError, openFileJournal, readJournal, type FileJournal } from '../../client/journal.js';
import { linkRequestKey } from '../../client/key.js';
import { validateLinkRequest } from '../../validation/validate.js';
import type { ItemResult, SubmitOptions, SubmitSummary } from '../../client/submit.js';
import { runBatch } from '../../client/submit.js';
import type { TransportError } from '../../client/errors.js';
import type { Issue } from '../../errors.js';
import { detectInputKind } from '../../input-kind.js';
import { canDrawStatus, statusLine, type StatusLine } from '../status-line.js';
import type { Command } from '../command.js';
import { EXIT, UsageError, decodeUtf8, inputName, lineBatches, outputClosed, parseJson, pointerLocator, readRegularFile, readText, writeOut, type NdjsonLine } from '../io.js';

export interface SubmitArgs {
  readonly baseUrl: string | undefined;
  readonly apiKey: string | undefined;
  readonly concurrency: number;
  readonly journal: string | undefined;
  /** --no-journal: the user chose to send many items without a journal. */
  readonly noJournal: boolean;
  /** --force: send although the journal knows none of the input's first items. */
  readonly force: boolean;
  /** --resend-confirmed FILE: keys and input line numbers a person confirmed were not linked. */
  readonly resendConfirmed: { readonly keys: ReadonlySet<string>; readonly lines: ReadonlySet<number> } | undefined;
  readonly dryRun: boolean;
  readonly ndjson: boolean;
  readonly retryUnknown: boolean;
  readonly format: 'text' | 'json';
  /** Show the service's (redacted) message of failures: it may contain health data. */
  readonly showServiceMessages: boolean;
  readonly file: string | undefined;
  /** Interval of the one-line progress when stderr is not a terminal, in ms. */
  readonly progressMs: number;
  /** The current time, for the lint's date rules (the CLI reads the clock). */
  readonly now: Date;
  /** $TERM: no status line on a `dumb` terminal. */
  readonly term: string | undefined;
}

/** The exit code after Ctrl-C (SIGINT) and SIGTERM, as shells report a process killed by them. */
const EXIT_SIGINT = 130;
const EXIT_SIGTERM = 143;

/** What an input that is a clinical input (not a link request) is told. */
const CLINICAL_INPUT = 'this is a clinical input: run `abha-link build` first';

/**
 * The lines of an NDJSON input, one by one, read only as fast as they are
 * taken. When `signal` aborts the input is closed (stdin too, even while it
 * is idle) and the lines end.
 */
async function* ndjsonLines(file: string | undefined, signal: AbortSignal): AsyncGenerator<NdjsonLine> {
  for await (const batch of lineBatches(file, undefined, signal)) yield* batch;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function issueText(i: Issue): string {
  return `${i.path || '/'} ${i.message} (${i.code})`;
}

/** True when the journal exists and is the input (the same file by any name, or stdin redirected from it). */
async function journalIsInput(journal: string, file: string | undefined): Promise<boolean> {
  const j = await stat(journal).catch(() => undefined);
  if (j === undefined) return false;
  let input: { dev: number; ino: number } | undefined;
  try {
    input = file === undefined || file === '-' ? fstatSync(0) : await stat(file);
  } catch {
    return false;
  }
  return j.dev === input.dev && j.ino === input.ino;
}

/** `abha-link submit`: returns the exit code. */
export async function runSubmit(args: SubmitArgs): Promise<number> {
  const name = inputName(args.file);
  if (args.ndjson && args.journal === undefined && !args.noJournal && !args.dryRun) {
    throw new UsageError(
      'submit --ndjson sends many items: give --journal FILE, so that a run that stops early can be continued without sending acknowledged items twice, or --no-journal to send without one',
    );
  }
  if (args.journal !== undefined && args.noJournal) throw new UsageError('--journal and --no-journal contradict each other; give one');
  if (args.journal !== undefined) {
    const folder = dirname(args.journal);
    const st = await stat(folder).catch((e: unknown) => e as { code?: string });
    if ('code' in st && st.code === 'ENOENT') throw new UsageError(`--journal ${args.journal}: the folder ${folder} does not exist; create it first (mkdir -p ${folder}) or give another path`);
    if ('isDirectory' in st && !st.isDirectory()) throw new UsageError(`--journal ${args.journal}: ${folder} is not a folder`);
  }
  if (args.journal !== undefined && (await journalIsInput(args.journal, args.file))) {
    throw new UsageError(`the journal ${args.journal} is the input file ${name}: appending to it would damage the input; give the journal a file of its own`);
  }
  const lineOf = new Map<number, number>();
  let notJson = 0;
  let items: AsyncIterable<unknown> | Iterable<unknown>;
  let locate: ((path: string) => number) | undefined;
  /** Bytes of input read so far (characters + newline: exact for ASCII), for the progress bar. */
  let bytesRead = 0;

  /** Stops taking items (first Ctrl-C, stdout closed); the NDJSON input is closed with it. */
  const stop = new AbortController();
  /** Abandons the requests in flight (second Ctrl-C). */
  const abort = new AbortController();

  const tty = canDrawStatus(process.stderr, args.term) && args.ndjson;
  /** The status line on a terminal (stderr); result lines to the same terminal are printed above it, whole. */
  let status: StatusLine | undefined;
  const write = async (text: string): Promise<void> => {
    if (status !== undefined && process.stdout.isTTY === true) await status.above(() => writeOut(text));
    else await writeOut(text);
  };
  /** A value that is not a link request but a clinical input: reported, never sent. */
  const clinical = (value: unknown): boolean => detectInputKind(value) === 'clinical-input';

  if (!args.ndjson) {
    const text = await readText(args.file);
    const parsed = parseJson(text);
    if (!parsed.ok) throw new UsageError(`${name}:${parsed.problem.line}:${parsed.problem.column} invalid JSON: ${parsed.problem.reason}`);
    if (Array.isArray(parsed.value)) throw new UsageError(`${name} holds a JSON array; submit takes one link request, or one request per line with --ndjson`);
    locate = pointerLocator(text);
    if (clinical(parsed.value)) {
      notJson++;
      await write(
        args.format === 'json'
          ? `${JSON.stringify({ index: 0, outcome: 'invalid', issues: [{ path: '', code: 'clinical-input', message: CLINICAL_INPUT }] })}\n`
          : `${name} invalid, not sent: ${CLINICAL_INPUT}\n`,
      );
      items = [];
    } else {
      items = [parsed.value];
    }
  } else {
    const source = ndjsonLines(args.file, stop.signal);
    let index = 0;
    items = (async function* () {
      for await (const l of source) {
        bytesRead += l.text.length + 1;
        if (l.tooLong) {
          notJson++;
          await write(args.format === 'json' ? `${JSON.stringify({ line: l.line, outcome: 'invalid', issues: [{ path: '', code: 'too-long', message: 'the line is longer than 64 MiB' }] })}\n` : `${name}:${l.line} invalid, not sent: the line is longer than 64 MiB\n`);
          continue;
        }
        const parsed = parseJson(l.text);
        if (!parsed.ok) {
          notJson++;
          const reason = `column ${parsed.problem.column}: ${parsed.problem.reason}`;
          await write(
            args.format === 'json'
              ? `${JSON.stringify({ line: l.line, outcome: 'invalid', issues: [{ path: '', code: 'invalid-json', message: `not JSON: ${reason}` }] })}\n`
              : `${name}:${l.line} invalid, not sent: not JSON (${reason})\n`,
          );
          continue;
        }
        if (clinical(parsed.value)) {
          notJson++;
          await write(
            args.format === 'json'
              ? `${JSON.stringify({ line: l.line, outcome: 'invalid', issues: [{ path: '', code: 'clinical-input', message: CLINICAL_INPUT }] })}\n`
              : `${name}:${l.line} invalid, not sent: ${CLINICAL_INPUT}\n`,
          );
          continue;
        }
        lineOf.set(index++, l.line);
        yield parsed.value;
      }
    })();
  }

  const where = (index: number): string => {
    const line = lineOf.get(index);
    return line === undefined ? name : `${name}:${line}`;
  };
  const failureKinds = new Map<string, number>();
  const counts = { done: 0, acknowledged: 0, failed: 0, unknown: 0, invalid: 0, skipped: 0 };
  /** The batch's counts as the results came, for the summary also when the batch ends with an error. */
  const tally: SubmitSummary = { total: 0, acknowledged: 0, warnings: 0, mismatches: 0, alreadyAcknowledged: 0, duplicates: 0, failed: 0, unknown: 0, unknownEarlier: 0, invalid: 0, wouldSend: 0, stopped: false };
  const count = (r: ItemResult): void => {
    tally.total++;
    switch (r.outcome) {
      case 'acknowledged':
        tally.acknowledged++;
        if (r.warnings !== undefined) tally.warnings++;
        if (r.mismatches !== undefined) tally.mismatches++;
        break;
      case 'skipped':
        if (r.reason === 'acknowledged-earlier') tally.alreadyAcknowledged++;
        else tally.duplicates++;
        break;
      case 'failed':
        tally.failed++;
        break;
      case 'unknown':
        if (r.earlier) tally.unknownEarlier++;
        else tally.unknown++;
        break;
      case 'invalid':
        tally.invalid++;
        break;
      case 'would-send':
        tally.wouldSend++;
        break;
    }
  };

  /** The service's message, only with --show-service-messages: it may echo health data. */
  const said = (e: TransportError): string =>
    args.showServiceMessages && e.serviceMessage !== undefined ? `; the service said: ${JSON.stringify(e.serviceMessage)}` : '';

  const onResult = async (r: ItemResult): Promise<void> => {
    const at = where(r.index);
    const line = lineOf.get(r.index);
    lineOf.delete(r.index);
    count(r);
    counts.done++;
    if (r.outcome === 'acknowledged') counts.acknowledged++;
    else if (r.outcome === 'skipped') counts.skipped++;
    else if (r.outcome === 'failed') counts.failed++;
    else if (r.outcome === 'unknown') counts.unknown++;
    else if (r.outcome === 'invalid') counts.invalid++;
    if (args.format === 'json') {
      const o: Record<string, unknown> = line === undefined ? { index: r.index } : { line };
      o.outcome = r.outcome;
      if ('key' in r) o.key = r.key;
      switch (r.outcome) {
        case 'acknowledged':
          Object.assign(o, { status: r.status, requestId: r.requestId, attempts: r.attempts });
          if (r.warnings !== undefined) o.warnings = r.warnings.map((i) => ({ path: i.path, code: i.code, message: i.message }));
          if (r.mismatches !== undefined) o.mismatches = r.mismatches.map((i) => ({ path: i.path, code: i.code, message: i.message }));
          break;
        case 'skipped':
          o.reason = r.reason;
          break;
        case 'failed':
          Object.assign(o, { error: r.error.name, reason: r.error.reason, status: r.error.status ?? null, requestId: r.error.requestId, message: r.error.message });
          if (args.showServiceMessages && r.error.serviceMessage !== undefined) o.serviceMessage = r.error.serviceMessage;
          break;
        case 'unknown':
          Object.assign(o, { earlier: r.earlier });
          if (r.error !== undefined) Object.assign(o, { error: r.error.name, reason: r.error.reason, status: r.error.status ?? null, requestId: r.error.requestId, message: r.error.message });
          if (args.showServiceMessages && r.error?.serviceMessage !== undefined) o.serviceMessage = r.error.serviceMessage;
          break;
        case 'invalid':
          o.issues = r.issues.map((i) => ({ path: i.path, code: i.code, message: i.message }));
          break;
        case 'would-send':
          o.hiTypes = r.hiTypes;
          break;
      }
      await write(`${JSON.stringify(o)}\n`);
    } else {
      let text: string;
      switch (r.outcome) {
        case 'acknowledged':
          text = `${at} acknowledged ${r.key} (HTTP ${r.status}, request ${r.requestId})${
            r.warnings === undefined ? '' : `; warning: the service said success: true, but its answer does not have the spec's shape (${r.warnings.map((i) => `${i.path || '/'} ${i.code}`).join(', ')})`
          }${
            r.mismatches === undefined ? '' : `; warning: the service said success: true, but its care contexts contradict the request (${r.mismatches.map((i) => `${i.path || '/'} ${i.code}`).join(', ')}): check this item with the service`
          }\n`;
          break;
        case 'skipped':
          text = `${at} skipped ${r.key}: ${r.reason === 'acknowledged-earlier' ? 'acknowledged in an earlier run' : 'a copy of an item earlier in this input; not sent twice'}\n`;
          break;
        case 'failed':
          text = `${at} failed ${r.key}: ${r.error.name}: ${r.error.message}${said(r.error)}\n`;
          break;
        case 'unknown':
          text =
            r.error === undefined
              ? `${at} outcome unknown ${r.key}: unknown since an earlier run (in flight when it stopped, or no clear answer); not sent again\n`
              : `${at} outcome unknown ${r.key}: ${r.error.message}${said(r.error)}\n`;
          break;
        case 'invalid': {
          const lineNo = (path: string): string => (line !== undefined ? at : locate === undefined ? at : `${at}:${locate(path)}`);
          text = r.issues.map((i) => `${lineNo(i.path)} invalid, not sent: ${issueText(i)}\n`).join('');
          break;
        }
        case 'would-send':
          text = `${at} would send ${r.key}: ${plural(r.hiTypes.length, 'care context')} (${r.hiTypes.join(', ')})\n`;
          break;
      }
      await write(text);
    }
    const error = r.outcome === 'failed' || r.outcome === 'unknown' ? r.error : undefined;
    if (error !== undefined) {
      const k = `${error.name}${error.status === undefined ? '' : ` HTTP ${error.status}`}`;
      if (failureKinds.has(k) || failureKinds.size < 20) failureKinds.set(k, (failureKinds.get(k) ?? 0) + 1);
    }
    showStatus();
  };

  let interrupts = 0;
  /** The first signal that stopped the run, for the exit code. */
  let signalled: 'SIGINT' | 'SIGTERM' | undefined;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    signalled ??= signal;
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write('\nabha-link submit: stopping: no new items; waiting for the requests in flight (Ctrl-C again to abandon them)\n');
      stop.abort();
    } else {
      process.stderr.write('\nabha-link submit: abandoning the requests in flight; their outcome will be unknown\n');
      abort.abort();
    }
  };
  const onSigint = (): void => onSignal('SIGINT');
  const onSigterm = (): void => onSignal('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  // The reader of stdout went away (| head): stop as for Ctrl-C, so that the requests in flight
  // finish and are journaled and the summary reaches stderr; the CLI then exits 1.
  const onOutputClosed = (): void => stop.abort();
  if (outputClosed.aborted) stop.abort();
  else outputClosed.addEventListener('abort', onOutputClosed, { once: true });

  const started = Date.now();
  let ticker: NodeJS.Timeout | undefined;
  /** The input's size in bytes, when it is a file (from stdin it is unknown). */
  const size = args.file === undefined || args.file === '-' ? 0 : await stat(args.file).then((st) => (st.isFile() ? st.size : 0), () => 0);
  /** What the status line says: the share of the input read (bytes), and the items' outcomes so far, each counted once. */
  const statusText = (): string => {
    const secs = Math.max(0.001, (Date.now() - started) / 1000);
    const read = size > 0 ? `input read ${Math.min(100, Math.floor((bytesRead / size) * 100))}% | ` : '';
    return `submit: ${read}${counts.done + notJson} done: ${counts.acknowledged} acknowledged, ${counts.skipped} skipped, ${counts.failed} failed, ${counts.unknown} unknown, ${counts.invalid + notJson} invalid | ${(counts.done / secs).toFixed(1)}/s`;
  };
  const showStatus = (): void => status?.set(statusText());
  if (tty && !args.dryRun) {
    status = statusLine(process.stderr);
    status.set(statusText(), true);
  } else if (args.ndjson && !args.dryRun) {
    ticker = setInterval(() => {
      const secs = Math.max(0.001, (Date.now() - started) / 1000);
      process.stderr.write(
        `progress: ${counts.done + notJson} done: ${counts.acknowledged} acknowledged, ${counts.skipped} skipped, ${counts.failed} failed, ${counts.unknown} unknown, ${counts.invalid + notJson} invalid; ${(counts.done / secs).toFixed(1)}/s\n`,
      );
    }, args.progressMs);
    ticker.unref();
  }

  const confirmed = args.resendConfirmed;
  /** Confirmed items met among this input's unknown ones. */
  const confirmedMet = new Set<string>();
  const options: SubmitOptions = {
    concurrency: args.concurrency,
    ...(args.journal === undefined ? {} : { journal: args.journal }),
    retryUnknown:
      confirmed === undefined
        ? args.retryUnknown
        : ({ key, index }) => {
            const line = lineOf.get(index) ?? (args.ndjson ? undefined : 1);
            const yes = confirmed.keys.has(key) || (line !== undefined && confirmed.lines.has(line));
            if (yes) confirmedMet.add(key);
            return yes;
          },
    force: args.force,
    dryRun: args.dryRun,
    // The same lint as validate --lint, with the clock the CLI read: lint errors are invalid, never sent.
    lint: { now: args.now },
    stopSignal: stop.signal,
    signal: abort.signal,
    onResult,
  };
  let summary: SubmitSummary;
  /** Why the batch ended early with an error (the journal could not be written, the input could not be read). */
  let failure: { error: unknown } | undefined;
  let journal: FileJournal | undefined;
  try {
    if (args.dryRun) {
      summary = await runBatch(items, options, () => Promise.reject(new Error('dry run: nothing is sent')));
    } else {
      if (args.baseUrl === undefined || args.apiKey === undefined) throw new UsageError('internal: base URL and API key are checked before');
      if (args.journal !== undefined) {
        // Opened here to tell what opening found; Ctrl-C stops a long load.
        journal = await openFileJournal(args.journal, { signal: stop.signal });
        if (journal.tornBytesRemoved > 0) {
          process.stderr.write(
            `abha-link submit: journal ${args.journal}: removed a torn last line (${plural(journal.tornBytesRemoved, 'byte')}), a write cut short when a run stopped; its item, if any, counts as in flight\n`,
          );
        }
        if (journal.version < 3) {
          process.stderr.write(`abha-link submit: journal ${args.journal} is of an older format (${journal.version}) without check values; continued in that format (start a new journal for checked lines)\n`);
        }
      }
      const client = createClient({ baseUrl: args.baseUrl, apiKey: args.apiKey });
      summary = await client.submitMany(items, journal === undefined ? options : { ...options, journal });
    }
  } catch (e) {
    // The requests in flight have finished and the journal is closed: report what was done, then the error.
    failure = { error: e instanceof JournalError ? new UsageError(e.message) : e };
    summary = { ...tally, stopped: true };
  } finally {
    await journal?.close().catch((e: unknown) => {
      failure ??= { error: e instanceof JournalError ? new UsageError(e.message) : e };
    });
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    outputClosed.removeEventListener('abort', onOutputClosed);
    // Whatever ended the batch, the input is not read any further (an open stdin would keep the process alive).
    stop.abort();
    if (ticker !== undefined) clearInterval(ticker);
    status?.stop();
  }

  const invalid = summary.invalid + notJson;
  const total = summary.total + notJson;
  const unknown = summary.unknown + summary.unknownEarlier;
  const lines: string[] = [];
  const journaled = args.journal !== undefined;
  if (args.dryRun) {
    lines.push(
      `submit (dry run): ${plural(total, 'item')}: ${summary.wouldSend} would be sent, ${summary.alreadyAcknowledged} already acknowledged, ${summary.unknownEarlier} with an unknown outcome (not sent without --retry-unknown), ${invalid} invalid; nothing was sent`,
    );
  } else {
    lines.push(
      `submit: ${plural(total, 'item')}: ${summary.acknowledged} acknowledged, ${summary.alreadyAcknowledged} already acknowledged (skipped), ${summary.failed} failed, ${unknown} outcome unknown, ${invalid} invalid${summary.duplicates > 0 ? `, ${summary.duplicates} duplicates skipped` : ''}`,
    );
    if (summary.warnings > 0) lines.push(`  ${plural(summary.warnings, 'item')} acknowledged with an answer that does not have the spec's shape (see the warnings above)`);
    if (summary.mismatches > 0) lines.push(`  ${plural(summary.mismatches, 'item')} acknowledged with an answer whose care contexts contradict the request (see the warnings above): check them with the service`);
    if (failureKinds.size > 0) lines.push(`  reasons: ${[...failureKinds].map(([k, n]) => `${n} × ${k}`).join(', ')}`);
    if (summary.failed > 0) {
      lines.push(
        `  failed items were not processed by the service: fix the cause and rerun${journaled ? ' with the same --journal (it sends only what was not acknowledged)' : ' only the failed items (no journal recorded this run: the whole input would send the acknowledged items again)'}`,
      );
    }
    if (unknown > 0) {
      lines.push(
        `  outcome unknown: ${plural(unknown, 'item')} may or may not have been linked, so ${unknown === 1 ? 'it was' : 'they were'} not sent again; check with the service, then rerun with --retry-unknown to send ${unknown === 1 ? 'it' : 'them'}`,
      );
    }
    const rerun = journaled
      ? 'rerun with the same --journal'
      : 'no journal recorded this run, so a rerun of the same input sends every item again, those acknowledged above included: remove the acknowledged lines from the input first, or start again with --journal FILE';
    if (summary.stopReason === 'authentication') lines.push(`  stopped: the service refused the API key or the bearer token (AuthenticationError); fix the key, then ${journaled ? rerun : `rerun (${rerun})`}`);
    else if (summary.stopReason === 'service-unavailable') lines.push(`  stopped: too many items in a row failed because the service looked unavailable; ${journaled ? `${rerun} when it is back` : `when it is back, rerun (${rerun})`}`);
    if (summary.stopped) lines.push(`  stopped before the end of the input: ${journaled ? `${rerun} to continue` : rerun}`);
    if (invalid > 0) lines.push('  invalid items were not sent: see the lines above (abha-link validate --ndjson gives the same report)');
  }
  if (confirmed !== undefined) {
    const listed = confirmed.keys.size + confirmed.lines.size;
    lines.push(`  --resend-confirmed: ${plural(confirmedMet.size, 'confirmed item')} of ${listed} listed ${confirmedMet.size === 1 ? 'was' : 'were'} among this input's items with an unknown outcome, and sent`);
  }
  // A batch that ended before its first item (a locked journal, an unreadable input) has nothing to sum up.
  if (failure === undefined || total > 0) process.stderr.write(`${lines.join('\n')}\n`);
  // Ctrl-C while the journal loaded: nothing was sent.
  if (failure !== undefined && signalled !== undefined && total === 0) {
    process.stderr.write(`abha-link submit: stopped before anything was sent\n`);
    return signalled === 'SIGINT' ? EXIT_SIGINT : EXIT_SIGTERM;
  }
  if (failure !== undefined) throw failure.error;
  if (signalled !== undefined) return signalled === 'SIGINT' ? EXIT_SIGINT : EXIT_SIGTERM;
  const bad = invalid > 0 || (!args.dryRun && (summary.failed > 0 || unknown > 0 || summary.stopped));
  return bad ? EXIT.invalid : EXIT.ok;
}

/**
 * `abha-link submit --list-unknown --journal J FILE`: the items of FILE whose
 * outcome the journal records as unknown (`unknown`, or `sending`: in flight
 * when a run stopped), with the key, the last request id and its time, then
 * those the journal holds that FILE does not. Reads the journal without
 * locking or changing it; sends nothing.
 */
async function listUnknown(journalPath: string, file: string | undefined, ndjson: boolean, format: 'text' | 'json'): Promise<number> {
  const name = inputName(file);
  let contents: Awaited<ReturnType<typeof readJournal>>;
  try {
    contents = await readJournal(journalPath);
  } catch (e) {
    throw e instanceof JournalError ? new UsageError(e.message) : e;
  }
  if (contents.version === 0) throw new UsageError(`journal ${journalPath} does not exist or is empty: nothing to list`);
  const salt = contents.salt;
  const left = new Map(contents.unknown);
  const describe = (line: number | undefined, key: string): string => {
    const e = contents.unknown.get(key);
    if (format === 'json') {
      return `${JSON.stringify({ ...(line === undefined ? {} : { line }), key, state: e?.state, requestId: e?.requestId ?? null, at: e?.at ?? null, reason: e?.reason ?? null })}\n`;
    }
    const request = e?.requestId === undefined ? 'no request id recorded' : `last request ${e.requestId}`;
    const at = e?.at === undefined ? '' : ` at ${e.at}`;
    const why = e?.state === 'sending' ? 'in flight when a run stopped' : `no clear answer${e?.reason === undefined ? '' : ` (${e.reason})`}`;
    return `${line === undefined ? `${journalPath} (not in ${name})` : `${name}:${line}`} outcome unknown ${key}: ${request}${at}; ${why}\n`;
  };
  let inInput = 0;
  const consider = async (value: unknown, line: number | undefined): Promise<void> => {
    const checked = validateLinkRequest(value);
    if (!checked.success) return;
    const key = linkRequestKey(checked.value, salt);
    if (!left.has(key)) return;
    left.delete(key);
    inInput++;
    await writeOut(describe(line, key));
  };
  if (ndjson) {
    for await (const batch of lineBatches(file, undefined, undefined)) {
      for (const l of batch) {
        if (l.tooLong) continue;
        const parsed = parseJson(l.text);
        if (parsed.ok) await consider(parsed.value, l.line);
      }
    }
  } else {
    const parsed = parseJson(await readText(file));
    if (!parsed.ok) throw new UsageError(`${name}:${parsed.problem.line}:${parsed.problem.column} invalid JSON: ${parsed.problem.reason}`);
    await consider(parsed.value, 1);
  }
  for (const key of left.keys()) await writeOut(describe(undefined, key));
  const total = contents.unknown.size;
  process.stderr.write(
    `submit --list-unknown: ${plural(total, 'item')} with an unknown outcome in ${journalPath}, ${inInput} of them in ${name}${
      total > 0
        ? '; ask the service (or your records) which were linked, list the keys of those that were NOT in a file, one per line, and send only them with --resend-confirmed FILE'
        : ''
    }\n`,
  );
  return EXIT.ok;
}

/** Reads a --resend-confirmed file: one key (`k2:…`) or input line number per line; `#` starts a comment. */
async function readConfirmed(file: string): Promise<{ keys: Set<string>; lines: Set<number> }> {
  // A regular file only, strict UTF-8, at most 64 MiB: the same reader as every other input.
  const { bytes } = await readRegularFile(file);
  const text = decodeUtf8(bytes, file);
  const keys = new Set<string>();
  const lines = new Set<number>();
  text.split('\n').forEach((raw, i) => {
    const t = raw.replace(/#.*/, '').trim();
    if (t === '') return;
    if (/^k\d:[0-9a-f]{32}$/.test(t)) keys.add(t);
    else if (/^[1-9]\d{0,11}$/.test(t)) lines.add(Number(t));
    else throw new UsageError(`--resend-confirmed ${file}:${i + 1}: expected an item key (k2: and 32 hex digits, as --list-unknown prints) or an input line number`);
  });
  if (keys.size + lines.size === 0) throw new UsageError(`--resend-confirmed ${file} lists no item`);
  return { keys, lines };
}

async function readApiKeyFile(file: string): Promise<string> {
  // A regular file only: a FIFO or a device would hang the run or feed it endless bytes.
  const { bytes, stats } = await readRegularFile(file, { maxBytes: 4096 });
  if ((stats.mode & 0o077) !== 0 && process.platform !== 'win32') {
    process.stderr.write(`abha-link: warning: ${file} can be read by other users; restrict it (chmod 600)\n`);
  }
  const text = decodeUtf8(bytes, file);
  const key = text.trim();
  if (key === '') throw new UsageError(`${file} is empty; it must hold the API key`);
  if (/[\r\n]/.test(key)) throw new UsageError(`${file} must hold the API key on one line`);
  return key;
}

export const command: Command = {
  usage: 'abha-link submit [options] [--journal FILE|--no-journal] [FILE|-]\n       abha-link submit --list-unknown --journal FILE [--ndjson] [FILE|-]',
  help: `Sends link requests (the body of POST /api/m2/multiple/link-carecontext) to the
service: one link request JSON, or one per line with --ndjson. Reads stdin when
FILE is - or absent. Every item is validated and linted first (the checks of
validate --lint); invalid items are reported and never sent. A clinical input
is told to go through abha-link build first. One result line per item on
stdout; progress (a status line on a terminal, else a line every 5 s) and the
summary on stderr.

--ndjson (many items) needs --journal FILE, or --no-journal to send without
one: without a journal nothing records which items were acknowledged, and a
rerun of the same input sends them all again.

The API key comes from the environment variable ABHA_LINK_API_KEY, or from
--api-key-file FILE; never from a flag value (a key on the command line is
visible to other users in the process list and in shell history). The base URL
comes from --base-url or ABHA_LINK_BASE_URL; it must be https (http only to
127.0.0.1, ::1 or localhost, e.g. abha-link mock).

Safety: the link call is not known to be idempotent, so a request that may have
reached the service without a clear answer ("outcome unknown") is never sent
again automatically. With --journal FILE every item's key (a keyed hash under
the journal's own salt: no health data, and not checkable against a list of
ABHA addresses without the journal) and outcome is recorded and synced to disk,
the "sending" record before the request leaves; a rerun with the same journal
skips acknowledged items, resends failed ones, and reports items whose outcome
is unknown (including those in flight when a run was killed) without sending
them, unless --retry-unknown. A second copy of an item in the same input is
skipped, never sent twice. The KEY printed per item is the journal's key
(without --journal, a key of this run only).

Options:
  --base-url URL        the service (default: $ABHA_LINK_BASE_URL)
  --api-key-file FILE   read the API key from FILE (default: $ABHA_LINK_API_KEY)
  --concurrency N       requests in flight at once, 1 to 256 (default 4)
  --journal FILE        append-only journal for resuming (NDJSON; locked while
                        in use; its folder must exist)
  --no-journal          send many items (--ndjson) without a journal
  --retry-unknown       also send items whose earlier outcome is unknown
  --list-unknown        list the input's items the journal records as outcome
                        unknown (line, key, last request id, time); send nothing
  --resend-confirmed FILE
                        send only the unknown items listed in FILE (keys as
                        --list-unknown prints them, or input line numbers, one
                        a line): those a person confirmed were not linked
  --force               send although the journal holds acknowledged items and
                        knows none of the input's first 1000 items
  --dry-run             validate and show what would be sent; send nothing
  --ndjson              one link request per non-empty line, streamed
  --format text|json    per-item lines: text (default) or one JSON object per
                        item
  --show-service-messages
                        add the service's own message to failed and unknown
                        items (redacted of digits, addresses and tokens). It
                        may contain health data (names, diagnoses, drugs the
                        service echoes): off by default; never in the journal
  -h, --help            show this help
  -v, --version         print the version

Exit codes: 0 every item acknowledged (now or in an earlier run); 1 an item
failed, was invalid or has an unknown outcome, or the run was stopped; 2 usage
or journal errors; 130 stopped by Ctrl-C (143 by SIGTERM).`,
  options: {
    'base-url': { type: 'string' },
    'api-key-file': { type: 'string' },
    'api-key': { type: 'string' },
    concurrency: { type: 'string' },
    journal: { type: 'string' },
    'no-journal': { type: 'boolean' },
    force: { type: 'boolean' },
    'list-unknown': { type: 'boolean' },
    'resend-confirmed': { type: 'string' },
    'retry-unknown': { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    ndjson: { type: 'boolean' },
    format: { type: 'string' },
    'show-service-messages': { type: 'boolean' },
  },
  async run({ values, positionals }) {
    if (values['api-key'] !== undefined) {
      throw new UsageError(
        '--api-key is not accepted: a key given on the command line is visible to other users (process list, shell history); set ABHA_LINK_API_KEY or use --api-key-file FILE',
      );
    }
    if (positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${positionals.length}`);
    const format = (values.format as string | undefined) ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError('--format must be text or json');
    const concurrencyText = (values.concurrency as string | undefined) ?? '4';
    const concurrency = /^\d{1,3}$/.test(concurrencyText) ? Number(concurrencyText) : NaN;
    if (!(concurrency >= 1 && concurrency <= 256)) throw new UsageError('--concurrency must be a whole number from 1 to 256');
    const dryRun = values['dry-run'] === true;
    const journalPath = values.journal as string | undefined;
    if (values['list-unknown'] === true) {
      if (journalPath === undefined) throw new UsageError('--list-unknown needs --journal FILE: the journal whose unknown items to list');
      return listUnknown(journalPath, positionals[0], values.ndjson === true, format);
    }
    const confirmedFile = values['resend-confirmed'] as string | undefined;
    if (confirmedFile !== undefined && journalPath === undefined) throw new UsageError('--resend-confirmed needs --journal FILE: the journal that records those items as unknown');
    if (confirmedFile !== undefined && values['retry-unknown'] === true) throw new UsageError('--resend-confirmed and --retry-unknown contradict each other: --retry-unknown resends every unknown item');
    const resendConfirmed = confirmedFile === undefined ? undefined : await readConfirmed(confirmedFile);

    const rawBase = (values['base-url'] as string | undefined) ?? process.env.ABHA_LINK_BASE_URL;
    let baseUrl: string | undefined;
    if (rawBase !== undefined && rawBase !== '') {
      try {
        baseUrl = parseBaseUrl(rawBase);
      } catch (e) {
        throw new UsageError(`${values['base-url'] === undefined ? 'ABHA_LINK_BASE_URL' : '--base-url'}: ${(e as Error).message.replace(/^baseUrl /, '')}`);
      }
    } else if (!dryRun) {
      throw new UsageError('no service URL: give --base-url URL or set ABHA_LINK_BASE_URL (for the local mock: abha-link mock prints it)');
    }

    let apiKey: string | undefined;
    const keyFile = values['api-key-file'] as string | undefined;
    if (keyFile !== undefined) apiKey = await readApiKeyFile(keyFile);
    else if (process.env.ABHA_LINK_API_KEY !== undefined && process.env.ABHA_LINK_API_KEY.trim() !== '') apiKey = process.env.ABHA_LINK_API_KEY.trim();
    if (apiKey === undefined && !dryRun) throw new UsageError('no API key: set ABHA_LINK_API_KEY, or give --api-key-file FILE');

    const progressEnv = Number(process.env.ABHA_LINK_PROGRESS_MS);
    return runSubmit({
      baseUrl,
      apiKey,
      concurrency,
      journal: values.journal as string | undefined,
      noJournal: values['no-journal'] === true,
      force: values.force === true,
      resendConfirmed,
      now: new Date(),
      term: process.env.TERM,
      dryRun,
      ndjson: values.ndjson === true,
      retryUnknown: values['retry-unknown'] === true,
      format,
      showServiceMessages: values['show-service-messages'] === true,
      file: positionals[0],
      progressMs: Number.isFinite(progressEnv) && progressEnv >= 50 ? progressEnv : 5000,
    });
  },
};
