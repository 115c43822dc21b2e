import { fstatSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readJournal } from '../../client/journal.js';
import { JournalError, batchSummaryOf, createClient, linkRequestKey, openFileJournal, type FileJournal, type ItemResult, type SubmitOptions, type SubmitSummary } from '../../client/index.js';
import { parseBaseUrl } from '../../client/base-url.js';
import { detectInputKind, validateLinkRequest } from '../../index.js';
import { plural } from '../../util.js';
import { canDrawStatus, statusLine, type StatusLine } from '../status-line.js';
import { defineCommand, optionError } from '../command.js';
import { EXIT, cliIo, UsageError, decodeUtf8, inputName, lineBatches, outputClosed, parseJson, pointerLocator, readRegularFile, readText, writeOut } from '../io.js';
import { failureKind, itemLines, notAnItemLine, progressCounts, summaryLines, type NotAnItem } from '../submit-format.js';

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

/** Refuses contradicting or missing journal options, and a journal that cannot be one (no folder, the input itself). */
async function checkJournalArgs(args: SubmitArgs, name: string): Promise<void> {
  if (args.ndjson && args.journal === undefined && !args.noJournal && !args.dryRun) {
    throw new UsageError(
      'submit --ndjson sends many items: give --journal FILE, so that a run that stops early can be continued without sending acknowledged items twice, or --no-journal to send without one',
    );
  }
  if (args.journal === undefined) return;
  if (args.noJournal) throw new UsageError('--journal and --no-journal contradict each other; give one');
  const folder = dirname(args.journal);
  const st = await stat(folder).catch((e: unknown) => e as { code?: string });
  if ('code' in st && st.code === 'ENOENT') throw new UsageError(`--journal ${args.journal}: the folder ${folder} does not exist; create it first (mkdir -p ${folder}) or give another path`);
  if ('isDirectory' in st && !st.isDirectory()) throw new UsageError(`--journal ${args.journal}: ${folder} is not a folder`);
  if (await journalIsInput(args.journal, args.file)) {
    throw new UsageError(`the journal ${args.journal} is the input file ${name}: appending to it would damage the input; give the journal a file of its own`);
  }
}

/** One run of `abha-link submit`: what its parts share. */
interface Run {
  readonly args: SubmitArgs;
  /** The input's name, for the item lines. */
  readonly name: string;
  /** Stops taking items (first Ctrl-C, stdout closed); the NDJSON input is closed with it. */
  readonly stop: AbortController;
  /** Abandons the requests in flight (second Ctrl-C). */
  readonly abort: AbortController;
  /** The input line of each item in flight, by its index (NDJSON). */
  readonly lineOf: Map<number, number>;
  /** Failed and unknown items by kind, for the summary's reasons. */
  readonly failureKinds: Map<string, number>;
  /** Lines that were not items (not JSON, too long, a clinical input): reported, never sent. */
  notItems: number;
  /** Bytes of input read so far (characters + newline: exact for ASCII), for the progress bar. */
  bytesRead: number;
  /** The line of a JSON Pointer in a one-document input. */
  locate: ((path: string) => number) | undefined;
  /** The batch's counts as of the last result. */
  soFar: SubmitSummary | undefined;
  /** The status line on a terminal (stderr); result lines to the same terminal are printed above it, whole. */
  status: StatusLine | undefined;
  /** Shows the counts on the status line, if there is one. */
  showProgress: () => void;
}

/** Prints a result line, above the status line when both go to the terminal. */
async function write(run: Run, text: string): Promise<void> {
  if (run.status !== undefined && cliIo().stdout.isTTY === true) await run.status.above(() => writeOut(text));
  else await writeOut(text);
}

/** Reports a line of the input (or the input) that is not a link request. */
async function notAnItem(run: Run, what: NotAnItem, line: number | undefined): Promise<void> {
  run.notItems++;
  await write(run, notAnItemLine(what, run.name, line, run.args.format));
}

/** A value that is not a link request but a clinical input: reported, never sent. */
const isClinical = (value: unknown): boolean => detectInputKind(value) === 'clinical-input';

/** The one document of a non-NDJSON input, as the batch's only item (none when it is a clinical input). */
async function documentItems(run: Run): Promise<unknown[]> {
  const text = await readText(run.args.file);
  const parsed = parseJson(text);
  if (!parsed.ok) throw new UsageError(`${run.name}:${parsed.problem.line}:${parsed.problem.column} invalid JSON: ${parsed.problem.reason}`);
  if (Array.isArray(parsed.value)) throw new UsageError(`${run.name} holds a JSON array; submit takes one link request, or one request per line with --ndjson`);
  run.locate = pointerLocator(text);
  if (!isClinical(parsed.value)) return [parsed.value];
  await notAnItem(run, { kind: 'clinical-input' }, undefined);
  return [];
}

/**
 * The items of an NDJSON input, read only as fast as they are taken; lines
 * that are not link requests are reported on the way. When the run stops the
 * input is closed (stdin too, even while it is idle) and the items end.
 */
async function* ndjsonItems(run: Run): AsyncGenerator<unknown> {
  let index = 0;
  for await (const batch of lineBatches(run.args.file, undefined, run.stop.signal)) {
    for (const l of batch) {
      run.bytesRead += l.text.length + 1;
      if (l.tooLong) {
        await notAnItem(run, { kind: 'too-long' }, l.line);
        continue;
      }
      const parsed = parseJson(l.text);
      if (!parsed.ok) await notAnItem(run, { kind: 'invalid-json', column: parsed.problem.column, reason: parsed.problem.reason }, l.line);
      else if (isClinical(parsed.value)) await notAnItem(run, { kind: 'clinical-input' }, l.line);
      else {
        run.lineOf.set(index++, l.line);
        yield parsed.value;
      }
    }
  }
}

/** Prints one item's result, and notes its failure kind. */
async function onResult(run: Run, r: ItemResult, soFar: SubmitSummary): Promise<void> {
  const line = run.lineOf.get(r.index);
  run.lineOf.delete(r.index);
  run.soFar = soFar;
  const at = line === undefined ? run.name : `${run.name}:${line}`;
  await write(run, itemLines(r, { at, line, locate: run.locate }, run.args));
  const kind = failureKind(r);
  if (kind !== undefined && (run.failureKinds.has(kind) || run.failureKinds.size < 20)) run.failureKinds.set(kind, (run.failureKinds.get(kind) ?? 0) + 1);
  run.showProgress();
}

/** The counts so far, for the status line and the progress lines. */
function progress(run: Run, started: number): { text: string; rate: string } {
  const secs = Math.max(0.001, (Date.now() - started) / 1000);
  const { done, text } = progressCounts(run.soFar, run.notItems);
  return { text, rate: `${(done / secs).toFixed(1)}/s` };
}

/**
 * Starts the progress: a status line on a terminal, else a line every
 * progressMs on stderr (NDJSON only; none for a dry run). Returns its stop.
 */
async function startProgress(run: Run): Promise<() => void> {
  const { args } = run;
  if (args.dryRun || !args.ndjson) return () => undefined;
  const started = Date.now();
  if (canDrawStatus(cliIo().stderr, args.term)) {
    /** The input's size in bytes, when it is a file (from stdin it is unknown). */
    const size =
      args.file === undefined || args.file === '-'
        ? 0
        : await stat(args.file).then(
            (st) => (st.isFile() ? st.size : 0),
            () => 0,
          );
    const statusText = (): string => {
      const { text, rate } = progress(run, started);
      const read = size > 0 ? `input read ${Math.min(100, Math.floor((run.bytesRead / size) * 100))}% | ` : '';
      return `submit: ${read}${text} | ${rate}`;
    };
    const status = statusLine(cliIo().stderr);
    run.status = status;
    run.showProgress = () => status.set(statusText());
    status.set(statusText(), true);
    return () => status.stop();
  }
  const ticker = setInterval(() => {
    const { text, rate } = progress(run, started);
    cliIo().stderr.write(`progress: ${text}; ${rate}\n`);
  }, args.progressMs);
  ticker.unref();
  return () => clearInterval(ticker);
}

/**
 * Ctrl-C and SIGTERM: the first stops taking items, the second abandons the
 * requests in flight; a closed stdout stops as the first. Returns the first
 * signal (for the exit code) and the removal of the listeners.
 */
function watchSignals(run: Run): { signalled: () => 'SIGINT' | 'SIGTERM' | undefined; dispose: () => void } {
  let interrupts = 0;
  let signalled: 'SIGINT' | 'SIGTERM' | undefined;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    signalled ??= signal;
    interrupts++;
    if (interrupts === 1) {
      cliIo().stderr.write('\nabha-link submit: stopping: no new items; waiting for the requests in flight (Ctrl-C again to abandon them)\n');
      run.stop.abort();
    } else {
      cliIo().stderr.write('\nabha-link submit: abandoning the requests in flight; their outcome will be unknown\n');
      run.abort.abort();
    }
  };
  const onSigint = (): void => onSignal('SIGINT');
  const onSigterm = (): void => onSignal('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  // The reader of stdout went away (| head): stop as for Ctrl-C, so that the requests in flight
  // finish and are journaled and the summary reaches stderr; the CLI then exits 1.
  const onOutputClosed = (): void => run.stop.abort();
  if (outputClosed().aborted) run.stop.abort();
  else outputClosed().addEventListener('abort', onOutputClosed, { once: true });
  return {
    signalled: () => signalled,
    dispose: () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      outputClosed().removeEventListener('abort', onOutputClosed);
    },
  };
}

/** The batch's options; `confirmedMet` collects the --resend-confirmed items met among the unknown ones. */
function batchOptions(run: Run, confirmedMet: Set<string>): SubmitOptions {
  const { args } = run;
  const confirmed = args.resendConfirmed;
  return {
    concurrency: args.concurrency,
    ...(args.journal === undefined ? {} : { journal: args.journal }),
    retryUnknown:
      confirmed === undefined
        ? args.retryUnknown
        : ({ key, index }) => {
            const line = run.lineOf.get(index) ?? (args.ndjson ? undefined : 1);
            const yes = confirmed.keys.has(key) || (line !== undefined && confirmed.lines.has(line));
            if (yes) confirmedMet.add(key);
            return yes;
          },
    force: args.force,
    dryRun: args.dryRun,
    // The same lint as validate --lint, with the clock the CLI read: lint errors are invalid, never sent.
    lint: { now: args.now },
    stopSignal: run.stop.signal,
    signal: run.abort.signal,
    onResult: (r, soFar) => onResult(run, r, soFar),
  };
}

/** A journal error is the user's to fix (exit 2). */
const asUsage = (e: unknown): unknown => (e instanceof JournalError ? new UsageError(e.message) : e);

/** Opens the journal (Ctrl-C stops a long load), saying what opening found: a torn last line, an older format. */
async function openJournal(path: string, signal: AbortSignal): Promise<FileJournal> {
  const journal = await openFileJournal(path, { signal });
  if (journal.tornBytesRemoved > 0) {
    cliIo().stderr.write(
      `abha-link submit: journal ${path}: removed a torn last line (${plural(journal.tornBytesRemoved, 'byte')}), a write cut short when a run stopped; its item, if any, counts as in flight\n`,
    );
  }
  if (journal.version < 3) {
    cliIo().stderr.write(`abha-link submit: journal ${path} is of an older format (${journal.version}) without check values; continued in that format (start a new journal for checked lines)\n`);
  }
  return journal;
}

/**
 * Runs the batch: a dry run without a client, else through the client with
 * the journal. Resolves to its summary, and the error that ended it early
 * (the journal could not be written, the input could not be read), if any.
 */
async function sendBatch(run: Run, items: AsyncIterable<unknown> | Iterable<unknown>, options: SubmitOptions): Promise<{ summary: SubmitSummary; failure?: { error: unknown } }> {
  const { args } = run;
  let journal: FileJournal | undefined;
  let failure: { error: unknown } | undefined;
  let summary: SubmitSummary;
  try {
    if (args.dryRun) {
      // A dry run sends nothing: the client needs no URL or key.
      summary = await createClient({ baseUrl: 'https://dry-run.invalid', apiKey: 'dry-run' }).submitMany(items, options);
    } else {
      if (args.baseUrl === undefined || args.apiKey === undefined) throw new UsageError('internal: base URL and API key are checked before');
      if (args.journal !== undefined) journal = await openJournal(args.journal, run.stop.signal);
      const client = createClient({ baseUrl: args.baseUrl, apiKey: args.apiKey });
      summary = await client.submitMany(items, journal === undefined ? options : { ...options, journal });
    }
  } catch (e) {
    // The requests in flight have finished and the journal is closed: report what was done, then the error.
    failure = { error: asUsage(e) };
    summary = batchSummaryOf(e);
  } finally {
    await journal?.close().catch((e: unknown) => {
      failure ??= { error: asUsage(e) };
    });
  }
  return failure === undefined ? { summary } : { summary, failure };
}

/** `abha-link submit`: returns the exit code. */
export async function runSubmit(args: SubmitArgs): Promise<number> {
  const name = inputName(args.file);
  await checkJournalArgs(args, name);
  const stop = new AbortController();
  const run: Run = {
    args,
    name,
    stop,
    abort: new AbortController(),
    lineOf: new Map(),
    failureKinds: new Map(),
    notItems: 0,
    bytesRead: 0,
    locate: undefined,
    soFar: undefined,
    status: undefined,
    showProgress: () => undefined,
  };
  const items = args.ndjson ? ndjsonItems(run) : await documentItems(run);
  const signals = watchSignals(run);
  const stopProgress = await startProgress(run);
  const confirmedMet = new Set<string>();
  let ended: Awaited<ReturnType<typeof sendBatch>>;
  try {
    ended = await sendBatch(run, items, batchOptions(run, confirmedMet));
  } finally {
    signals.dispose();
    // Whatever ended the batch, the input is not read any further (an open stdin would keep the process alive).
    stop.abort();
    stopProgress();
  }
  const { summary, failure } = ended;
  const confirmed = args.resendConfirmed;
  const lines = summaryLines(summary, {
    dryRun: args.dryRun,
    journaled: args.journal !== undefined,
    notItems: run.notItems,
    failureKinds: run.failureKinds,
    confirmed: confirmed === undefined ? undefined : { listed: confirmed.keys.size + confirmed.lines.size, met: confirmedMet.size },
  });
  return finish(args, { summary, failure, lines, total: summary.total + run.notItems, signalled: signals.signalled() });
}

/** Prints the summary and picks the exit code (or throws the error that ended the batch). */
function finish(args: SubmitArgs, end: { summary: SubmitSummary; failure: { error: unknown } | undefined; lines: string[]; total: number; signalled: 'SIGINT' | 'SIGTERM' | undefined }): number {
  const { summary, failure, total, signalled } = end;
  // A batch that ended before its first item (a locked journal, an unreadable input) has nothing to sum up.
  if (failure === undefined || total > 0) cliIo().stderr.write(`${end.lines.join('\n')}\n`);
  const signalExit = signalled === 'SIGINT' ? EXIT_SIGINT : EXIT_SIGTERM;
  // Ctrl-C while the journal loaded: nothing was sent.
  if (failure !== undefined && signalled !== undefined && total === 0) {
    cliIo().stderr.write(`abha-link submit: stopped before anything was sent\n`);
    return signalExit;
  }
  if (failure !== undefined) throw failure.error;
  if (signalled !== undefined) return signalExit;
  const invalid = summary.invalid + (total - summary.total);
  const bad = invalid > 0 || (!args.dryRun && (summary.failed > 0 || summary.unknown + summary.unknownEarlier > 0 || summary.stopped));
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
  cliIo().stderr.write(
    `submit --list-unknown: ${plural(total, 'item')} with an unknown outcome in ${journalPath}, ${inInput} of them in ${name}${
      total > 0 ? '; ask the service (or your records) which were linked, list the keys of those that were NOT in a file, one per line, and send only them with --resend-confirmed FILE' : ''
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

export async function readApiKeyFile(file: string): Promise<string> {
  // A regular file only: a FIFO or a device would hang the run or feed it endless bytes.
  const { bytes, stats } = await readRegularFile(file, { maxBytes: 4096 });
  if ((stats.mode & 0o077) !== 0 && process.platform !== 'win32') {
    cliIo().stderr.write(`abha-link: warning: ${file} can be read by other users; restrict it (chmod 600)\n`);
  }
  const text = decodeUtf8(bytes, file);
  const key = text.trim();
  if (key === '') throw new UsageError(`${file} is empty; it must hold the API key`);
  if (/[\r\n]/.test(key)) throw new UsageError(`${file} must hold the API key on one line`);
  return key;
}

export const command = defineCommand({
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

Exit codes: 0 every item acknowledged or already linked (now or in an earlier
run); 1 an item failed, was invalid or has an unknown outcome, or the run was
stopped; 2 usage or journal errors; 130 stopped by Ctrl-C (143 by SIGTERM).`,
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
      throw new UsageError('--api-key is not accepted: a key given on the command line is visible to other users (process list, shell history); set ABHA_LINK_API_KEY or use --api-key-file FILE');
    }
    if (positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${positionals.length}`);
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw optionError('format', 'text or json', { given: format, choices: ['text', 'json'] });
    const concurrencyText = values.concurrency ?? '4';
    const concurrency = /^\d{1,3}$/.test(concurrencyText) ? Number(concurrencyText) : NaN;
    if (!(concurrency >= 1 && concurrency <= 256)) throw optionError('concurrency', 'a whole number from 1 to 256');
    const dryRun = values['dry-run'];
    const journalPath = values.journal;
    if (values['list-unknown']) {
      if (journalPath === undefined) throw new UsageError('--list-unknown needs --journal FILE: the journal whose unknown items to list');
      return listUnknown(journalPath, positionals[0], values.ndjson, format);
    }
    const confirmedFile = values['resend-confirmed'];
    if (confirmedFile !== undefined && journalPath === undefined) throw new UsageError('--resend-confirmed needs --journal FILE: the journal that records those items as unknown');
    if (confirmedFile !== undefined && values['retry-unknown']) throw new UsageError('--resend-confirmed and --retry-unknown contradict each other: --retry-unknown resends every unknown item');
    const resendConfirmed = confirmedFile === undefined ? undefined : await readConfirmed(confirmedFile);

    const rawBase = values['base-url'] ?? cliIo().env.ABHA_LINK_BASE_URL;
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
    const keyFile = values['api-key-file'];
    if (keyFile !== undefined) apiKey = await readApiKeyFile(keyFile);
    else {
      const envKey = cliIo().env.ABHA_LINK_API_KEY?.trim();
      if (envKey !== undefined && envKey !== '') apiKey = envKey;
    }
    if (apiKey === undefined && !dryRun) throw new UsageError('no API key: set ABHA_LINK_API_KEY, or give --api-key-file FILE');

    const progressEnv = Number(cliIo().env.ABHA_LINK_PROGRESS_MS);
    return runSubmit({
      baseUrl,
      apiKey,
      concurrency,
      journal: journalPath,
      noJournal: values['no-journal'],
      force: values.force,
      resendConfirmed,
      now: cliIo().now(),
      term: cliIo().env.TERM,
      dryRun,
      ndjson: values.ndjson,
      retryUnknown: values['retry-unknown'],
      format,
      showServiceMessages: values['show-service-messages'],
      file: positionals[0],
      progressMs: Number.isFinite(progressEnv) && progressEnv >= 50 ? progressEnv : 5000,
    });
  },
});
