/**
 * Input and output helpers of the CLI: reading files or stdin, locating JSON
 * syntax errors and JSON Pointer paths by line, streaming NDJSON.
 * Nothing here prints input content: locations and reasons only.
 */
import { constants as fsConstants, createReadStream, fstatSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { TOO_MANY_ISSUES, type Issue } from '../errors.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { getEventListeners } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { LineCutter } from '../lines.js';
import { encodingProblem, locateInvalidUtf8, looksLikeUtf16, parseJson, pointerLocator, type JsonSyntaxProblem } from '../json.js';

export { encodingProblem, lineColumnOf, locateInvalidUtf8, locateSyntaxError, looksLikeUtf16, parseJson, pointerLocator, type JsonSyntaxProblem } from '../json.js';

/** A mistake of the caller (bad flag, missing file, bad JSON): exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Exit codes of every command; `interrupted` (128 + SIGINT, as shells report it) when stopped by Ctrl-C. */
export const EXIT = { ok: 0, invalid: 1, usage: 2, internal: 3, interrupted: 130 } as const;

/** Where a run of the CLI writes: stdout, stderr, or a test's collector. `isTTY` as on process.stdout. */
export type CliOutput = Writable & { readonly isTTY?: boolean };

/**
 * The world one run of the CLI sees: its output streams, its input, its
 * environment and its clock. The process entry (main.ts) gives the process's
 * own; a test gives collectors, bytes for stdin and a fixed environment, and
 * runs the CLI in-process (see runCli in run.ts).
 */
export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly stdin: Readable & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
}

/** One run: its io, whether its stdout went away and whether that cut its work short (per run, so that runs in one process do not share it). */
interface CliRun {
  readonly io: CliIo;
  readonly closed: AbortController;
  /** Set when output was dropped or work skipped because stdout went away. */
  early: boolean;
  /** Writes waiting for stdout to drain (they listen to `closed` too, but stop no work). */
  draining: number;
}

const runs = new AsyncLocalStorage<CliRun>();
let processRun: CliRun | undefined;
const processIos = new WeakSet<CliIo>();

/** The io of the process itself, made on first use (process.stdin is not opened before a command reads it). */
export function processIo(): CliIo {
  const io: CliIo = {
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    now: () => new Date(),
  };
  processIos.add(io);
  return io;
}

function currentRun(): CliRun {
  const run = runs.getStore();
  if (run !== undefined) return run;
  processRun ??= { io: processIo(), closed: new AbortController(), early: false, draining: 0 };
  return processRun;
}

/** The io of the run in progress (the process's own outside of {@link withCliIo}). */
export function cliIo(): CliIo {
  return currentRun().io;
}

/**
 * Runs `fn` as one run of the CLI with `io`: everything it calls reads and
 * writes through `io`. The process's own run (main.ts, {@link processIo})
 * needs no AsyncLocalStorage, whose async hooks would slow every promise of
 * the process from start-up on: it is the run that code outside of any
 * other run sees.
 */
export function withCliIo<T>(io: CliIo, fn: () => Promise<T>): Promise<T> {
  const run: CliRun = { io, closed: new AbortController(), early: false, draining: 0 };
  if (processIos.has(io) && runs.getStore() === undefined) {
    processRun = run;
    return fn();
  }
  return runs.run(run, fn);
}

/** How the input is named in messages: the path, or `<stdin>`. */
/** Waits for SIGTERM or SIGINT (a service's stop, or Ctrl-C); resolves to the signal. */
export function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (sig: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(sig);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export function inputName(file: string | undefined): string {
  return file === undefined || file === '-' ? '<stdin>' : file;
}

/**
 * Why a file could not be read, for a message: its name and the reason
 * (no such file, permission denied, a directory, or the system code).
 *
 * @example
 * describeFsError(Object.assign(new Error(), { code: 'ENOENT' }), 'seed.json') //=> 'seed.json: no such file'
 */
export function describeFsError(e: unknown, file: string): string {
  const code = (e as { code?: string }).code;
  switch (code) {
    case 'ENOENT':
      return `${file}: no such file`;
    case 'EACCES':
    case 'EPERM':
      return `${file}: permission denied`;
    case 'EISDIR':
      return `${file}: is a directory, not a file`;
    case 'EBADF':
      return `${file}: is not open for reading`;
    default:
      return `${file}: cannot be read (${code ?? 'unknown error'})`;
  }
}

/** Refuses to wait for a person typing JSON into a terminal. */
function ensurePipedStdin(): void {
  if (cliIo().stdin.isTTY === true) throw new UsageError('no input: give a FILE, or pipe JSON into standard input (use - for stdin)');
}

/** The largest JSON document the CLI reads whole (a file, stdin, or one NDJSON line): 64 MiB. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

const mib = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MiB`;

function tooLarge(name: string, maxBytes: number): UsageError {
  return new UsageError(`${name}: larger than ${mib(maxBytes)}, the limit for one document; for many documents, give one per line with --ndjson`);
}

function stdinIsDirectory(): boolean {
  // Only the process's own stdin has a file descriptor to look at.
  if (!processIos.has(cliIo())) return false;
  try {
    return fstatSync(0).isDirectory();
  } catch {
    return false;
  }
}

/** Reads a stream whole, refusing more than `maxBytes`. */
async function collect(stream: AsyncIterable<unknown> & { destroy(): void }, name: string, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const c of stream) {
      const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
      length += b.length;
      if (length > maxBytes) {
        stream.destroy();
        throw tooLarge(name, maxBytes);
      }
      chunks.push(b);
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(describeFsError(e, name));
  }
  return Buffer.concat(chunks, length);
}

/** What a file is, when it is not a regular file. */
function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Reads a regular file whole (at most `maxBytes`): a FIFO, a device, a
 * socket or a directory is refused at once, without waiting for a writer,
 * so a planted FIFO cannot hang the command. Returns the bytes and the
 * file's stats (for a permission check). `stdinAllowed`: the message
 * mentions `-` for standard input.
 *
 * @throws UsageError naming the file and the reason
 */
export async function readRegularFile(file: string, options: { maxBytes?: number; stdinAllowed?: boolean } = {}): Promise<{ bytes: Buffer; stats: Stats }> {
  const maxBytes = options.maxBytes ?? MAX_DOCUMENT_BYTES;
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it does not exist on Windows, where FIFOs do not either).
    handle = await open(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw new UsageError(describeFsError(e, file));
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      if (stats.isDirectory()) throw new UsageError(describeFsError({ code: 'EISDIR' }, file));
      throw new UsageError(`${file}: is ${fileKind(stats)}, not a regular file; give a file${options.stdinAllowed === true ? ', or - for standard input' : ''}`);
    }
    if (stats.size > maxBytes) throw tooLarge(file, maxBytes);
    return { bytes: await collect(handle.createReadStream({ autoClose: false }), file, maxBytes), stats };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * The bytes of a file or stdin (`-` / no file), at most `maxBytes`. A named
 * file that is a pipe (process substitution) is read as a stream unless
 * `regularOnly`, which refuses anything but a regular file (see
 * {@link readRegularFile}); `-` always reads stdin.
 *
 * @throws UsageError when the input cannot be read or is too large
 */
export async function readInputBytes(file: string | undefined, options: { regularOnly?: boolean; maxBytes?: number } = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? MAX_DOCUMENT_BYTES;
  if (file === undefined || file === '-') {
    ensurePipedStdin();
    // A directory given as stdin (< dir) reads as nothing on some systems: say what it is.
    if (stdinIsDirectory()) throw new UsageError(describeFsError({ code: 'EISDIR' }, '<stdin>'));
    return collect(cliIo().stdin, '<stdin>', maxBytes);
  }
  if (options.regularOnly === true) return (await readRegularFile(file, { maxBytes, stdinAllowed: true })).bytes;
  let st: Stats;
  try {
    st = await stat(file);
  } catch (e) {
    throw new UsageError(describeFsError(e, file));
  }
  if (st.isDirectory()) throw new UsageError(describeFsError({ code: 'EISDIR' }, file));
  if (st.isFile()) return (await readRegularFile(file, { maxBytes })).bytes;
  return collect(
    createReadStream(file).on('error', () => undefined),
    file,
    maxBytes,
  );
}

/**
 * Decodes bytes as UTF-8 strictly: a leading byte-order mark is dropped;
 * UTF-16 text, or bytes that are not UTF-8, are refused with where (never
 * turned into U+FFFD).
 *
 * @throws UsageError `NAME:LINE:COLUMN reason`
 */
export function decodeUtf8(bytes: Uint8Array, name: string): string {
  const problem = encodingProblem(bytes);
  if (problem !== undefined) throw new UsageError(problemLine(name, problem));
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', start);
}

/**
 * Reads a whole file, or stdin for `-` / no file, as strict UTF-8 (see
 * {@link decodeUtf8}), at most {@link MAX_DOCUMENT_BYTES}.
 *
 * @throws UsageError when it cannot be read, is too large, or is not UTF-8
 */
export async function readText(file: string | undefined, options: { regularOnly?: boolean; maxBytes?: number } = {}): Promise<string> {
  return decodeUtf8(await readInputBytes(file, options), inputName(file));
}

/** The message line of a problem: `NAME:LINE:COLUMN invalid JSON: reason`, or `NAME:LINE:COLUMN reason` for an encoding problem. */
export function problemLine(name: string, p: JsonSyntaxProblem): string {
  return `${name}:${p.line}:${p.column} ${p.encoding === true ? '' : 'invalid JSON: '}${p.reason}`;
}

/** A line of NDJSON input with its 1-based line number. */
/**
 * One NDJSON line from its bytes (without the newline, a CR before it or a
 * byte-order mark), decoded strictly: bytes that are not UTF-8 give a line
 * with `unreadable` saying where, never U+FFFD. The line reader and the
 * worker threads of `validate --jobs` both cut lines with it.
 */
export function ndjsonLine(bytes: Uint8Array, lineNo: number): NdjsonLine {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isUtf8(b)) {
    const at = locateInvalidUtf8(b);
    return { line: lineNo, text: '', tooLong: false, unreadable: { line: lineNo, column: at.column, reason: `invalid UTF-8 (byte ${at.offset} of the line); save it as UTF-8`, encoding: true } };
  }
  return { line: lineNo, text: b.toString('utf8'), tooLong: false };
}

export interface NdjsonLine {
  line: number;
  text: string;
  /** True when the line was longer than the limit and was not kept. */
  tooLong: boolean;
  /** When the line is not UTF-8: where (its line, the column of the first bad byte) and why; `text` is then ''. */
  unreadable?: JsonSyntaxProblem;
}

/**
 * The lines of a file or stdin, one batch per chunk read, with memory bounded
 * by the chunk size and `maxLineLength` (a longer line is reported, not
 * kept). Blank lines are skipped. The input is read only as fast as batches
 * are taken (back-pressure). When `signal` aborts, the input is closed at
 * once, also while waiting for data that does not come (an idle stdin), and
 * the batches end without an error; closing the generator closes it too.
 *
 * @throws UsageError when the input cannot be read
 */
export async function* lineBatches(file: string | undefined, maxLineLength = 64 * 1024 * 1024, signal?: AbortSignal): AsyncGenerator<NdjsonLine[]> {
  let stream: NodeJS.ReadableStream & { destroy(): void };
  if (file === undefined || file === '-') {
    ensurePipedStdin();
    stream = cliIo().stdin;
  } else {
    const s = createReadStream(file, { highWaterMark: 1024 * 1024 });
    await new Promise<void>((resolve, reject) => {
      s.once('open', () => resolve());
      s.once('error', (e) => reject(new UsageError(describeFsError(e, file))));
    });
    stream = s;
  }
  const close = (): void => stream.destroy();
  if (signal?.aborted === true) close();
  signal?.addEventListener('abort', close, { once: true });
  // Lines are cut from the raw bytes and decoded one by one: a line of ASCII
  // then stays a one-byte string even when its neighbours hold Devanagari,
  // which keeps JSON.parse fast.
  const cutter = new LineCutter(maxLineLength);
  let lineNo = 0;
  const take = (bytes: Buffer | undefined, out: NdjsonLine[]): void => {
    lineNo++;
    if (bytes === undefined) {
      out.push({ line: lineNo, text: '', tooLong: true });
      return;
    }
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 13) end--;
    let start = 0;
    if (lineNo === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    const l = ndjsonLine(bytes.subarray(start, end), lineNo);
    if (l.unreadable !== undefined || l.text.trim() !== '') out.push(l);
  };
  let first = true;
  try {
    for await (const chunk of stream) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      if (first && buf.length > 0) {
        first = false;
        if (looksLikeUtf16(buf)) throw new UsageError(`${inputName(file)}:1:1 UTF-16 text; save it as UTF-8`);
      }
      const out: NdjsonLine[] = [];
      cutter.push(buf, (line) => take(line, out));
      if (out.length > 0) yield out;
      if (signal?.aborted === true) return;
    }
  } catch (e) {
    // Closed on purpose: the end, not an error.
    if (signal?.aborted === true) return;
    if (e instanceof UsageError) throw e;
    throw new UsageError(describeFsError(e, inputName(file)));
  } finally {
    signal?.removeEventListener('abort', close);
  }
  if (signal?.aborted === true) return;
  const out: NdjsonLine[] = [];
  cutter.end((line) => take(line, out));
  if (out.length > 0) yield out;
}

/**
 * Streams the lines of a file or stdin in batches (see {@link lineBatches}).
 * `onBatch` may return a promise to apply back-pressure. When `signal`
 * aborts, the input is closed and reading stops after the current batch.
 */
export async function streamLines(file: string | undefined, onBatch: (lines: NdjsonLine[]) => void | Promise<void>, maxLineLength = 64 * 1024 * 1024, signal?: AbortSignal): Promise<void> {
  for await (const batch of lineBatches(file, maxLineLength, signal)) await onBatch(batch);
}

/** One JSON document read from a file or stdin, and how to find the line of a path in it. */
export interface JsonInput {
  /** The file name for messages, or `<stdin>`. */
  readonly name: string;
  readonly text: string;
  readonly value: unknown;
  /** The 1-based line of a JSON Pointer (or of its nearest existing parent). */
  readonly lineOf: (pointer: string) => number;
}

/**
 * Reads and parses one JSON document. When it does not parse, prints
 * `FILE:LINE:COLUMN invalid JSON: reason` on stderr and returns undefined
 * (the caller exits 2).
 */
export async function readJsonInput(file: string | undefined, options: { regularOnly?: boolean } = {}): Promise<JsonInput | undefined> {
  const name = inputName(file);
  const text = await readText(file, options);
  const parsed = parseJson(text);
  if (!parsed.ok) {
    cliIo().stderr.write(`${problemLine(name, parsed.problem)}\n`);
    return undefined;
  }
  return { name, text, value: parsed.value, lineOf: pointerLocator(text) };
}

/** How many issues of one document the text format prints. */
export const MAX_PRINTED_ISSUES = 20;

function issueLine(i: Issue, name: string, lineOf: (pointer: string) => number): string {
  return `${name}:${lineOf(i.path)} ${i.path || '/'} ${i.severity === 'error' ? '' : `${i.severity}: `}${i.message} (${i.code})\n`;
}

/**
 * Issues of one document as lines for people: `FILE:LINE PATH [warning: ]MESSAGE (code)`,
 * at most `max` of them, then `FILE: … and N more` and, when the command has
 * one, where to see them all (`hint`, e.g. `use --format json for all`).
 * The library's `too-many-issues` summary, if any, is printed last whatever the cut.
 * Lines are looked up for printed issues only.
 */
export function issueLines(issues: readonly Issue[], name: string, lineOf: (pointer: string) => number, max = MAX_PRINTED_ISSUES, hint?: string): string {
  const listed = issues.filter((i) => i.code !== TOO_MANY_ISSUES);
  let s = '';
  for (const i of listed.slice(0, max)) s += issueLine(i, name, lineOf);
  if (listed.length > max) s += `${name}: … and ${listed.length - max} more${hint === undefined ? '' : `; ${hint}`}\n`;
  for (const i of issues) if (i.code === TOO_MANY_ISSUES) s += issueLine(i, name, lineOf);
  return s;
}

/**
 * Aborted when standard output of the run went away
 * (`abha-link ... | head`). Long-running commands listen to it to stop
 * early; when that cut their work short, the CLI says so and exits 1 (see
 * {@link stoppedEarly}).
 */
export function outputClosed(): AbortSignal {
  return currentRun().closed.signal;
}

/**
 * Called by the CLI when writing to stdout fails with EPIPE. A command
 * listening to {@link outputClosed} at that moment (streaming lines, waiting
 * for the pipe to drain, sending) stops before its end.
 */
export function markOutputClosed(): void {
  const run = currentRun();
  if (getEventListeners(run.closed.signal, 'abort').length > run.draining) run.early = true;
  run.closed.abort();
}

/** True when stdout went away: the caller stops here, and the run counts as stopped before its end. */
export function stopForClosedOutput(): boolean {
  const run = currentRun();
  if (run.closed.signal.aborted) run.early = true;
  return run.closed.signal.aborted;
}

/**
 * Whether the closing of stdout cut the run short: output was dropped or
 * work skipped. A reader that goes away after the last output it wanted
 * (`abha-link openapi | head -c 50`) cuts nothing.
 */
export function stoppedEarly(): boolean {
  return currentRun().early;
}

/** Writes to stdout, waiting when the pipe is full; does nothing once the reader has gone. */
export function writeOut(text: string): Promise<void> | void {
  const closed = outputClosed();
  if (text === '') return;
  if (closed.aborted) {
    currentRun().early = true;
    return;
  }
  const stdout = cliIo().stdout;
  if (stdout.write(text)) return;
  const run = currentRun();
  run.draining++;
  return new Promise((resolve) => {
    const done = (): void => {
      stdout.off('drain', done);
      closed.removeEventListener('abort', done);
      run.draining--;
      resolve();
    };
    stdout.once('drain', done);
    closed.addEventListener('abort', done, { once: true });
  });
}
