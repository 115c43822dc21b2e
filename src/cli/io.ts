/**
 * Input and output helpers of the CLI: reading files or stdin, locating JSON
 * syntax errors and JSON Pointer paths by line, streaming NDJSON.
 * Nothing here prints input content: locations and reasons only.
 */
import { constants as fsConstants, createReadStream, fstatSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { TOO_MANY_ISSUES, parsePointer, type Issue } from '../errors.js';
import { createRequire } from 'node:module';
import { AsyncLocalStorage } from 'node:async_hooks';
import { getEventListeners } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { ParseError } from 'jsonc-parser';

type JsoncParser = typeof import('jsonc-parser');
let jsoncParser: JsoncParser | undefined;
/** jsonc-parser is needed only to locate problems: load it on the error path, not at start-up. */
function jsonc(): JsoncParser {
  jsoncParser ??= createRequire(import.meta.url)('jsonc-parser') as JsoncParser;
  return jsoncParser;
}

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

/** Runs `fn` as one run of the CLI with `io`: everything it calls reads and writes through `io`. */
export function withCliIo<T>(io: CliIo, fn: () => Promise<T>): Promise<T> {
  return runs.run({ io, closed: new AbortController(), early: false, draining: 0 }, fn);
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
 * Whether bytes look like UTF-16 text: a UTF-16 byte-order mark, or a NUL
 * byte in one of the first two (JSON in UTF-8 never holds a raw NUL).
 */
export function looksLikeUtf16(bytes: Uint8Array): boolean {
  const [a, b] = bytes;
  if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff)) return true;
  return bytes.length >= 2 && (a === 0) !== (b === 0);
}

/** The offset of the first byte that is not part of valid UTF-8 (bytes that are not valid UTF-8). */
function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  // Lossy decoding and encoding again gives back the same bytes up to the first invalid sequence.
  const again = Buffer.from(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), 'utf8');
  let i = 0;
  while (i < bytes.length && bytes[i] === again[i]) i++;
  return i;
}

/** Where bytes stop being UTF-8: line and column (in characters, 1-based) and the byte offset. */
export function locateInvalidUtf8(bytes: Uint8Array): { line: number; column: number; offset: number } {
  const offset = firstInvalidUtf8Byte(bytes);
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  const before = Buffer.from(bytes.buffer, bytes.byteOffset + lineStart, offset - lineStart).toString('utf8');
  let column = 1;
  for (const _ of before) column++;
  return { line, column, offset };
}

/**
 * Why bytes cannot be read as UTF-8 JSON, as a syntax problem (line, column,
 * reason): UTF-16 text, or bytes that are not UTF-8 (with where). Undefined
 * when they are fine. Fast when they are (one pass of node's isUtf8).
 */
export function encodingProblem(bytes: Uint8Array): JsonSyntaxProblem | undefined {
  if (looksLikeUtf16(bytes)) return { line: 1, column: 1, reason: 'UTF-16 text; save it as UTF-8', encoding: true };
  if (isUtf8(bytes)) return undefined;
  const at = locateInvalidUtf8(bytes);
  return { line: at.line, column: at.column, reason: `invalid UTF-8 (byte ${at.offset}); save it as UTF-8`, encoding: true };
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

/** Line (1-based) and column (1-based) of a character offset. */
export function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lastBreak = -1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lastBreak = i;
    }
  }
  return { line, column: end - lastBreak };
}

const REASONS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected a colon after the property name',
  CommaExpected: 'expected a comma',
  CloseBraceExpected: 'expected } to close the object',
  CloseBracketExpected: 'expected ] to close the array',
  EndOfFileExpected: 'unexpected content after the JSON value',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'comments are not allowed in JSON',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'malformed number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in string (control characters must be escaped)',
};

/** Where and why JSON text does not parse. Never quotes the text. */
export interface JsonSyntaxProblem {
  line: number;
  column: number;
  reason: string;
  /** True when the bytes are not UTF-8 text at all (UTF-16, invalid bytes), rather than broken JSON. */
  encoding?: true;
}

/** The message line of a problem: `NAME:LINE:COLUMN invalid JSON: reason`, or `NAME:LINE:COLUMN reason` for an encoding problem. */
export function problemLine(name: string, p: JsonSyntaxProblem): string {
  return `${name}:${p.line}:${p.column} ${p.encoding === true ? '' : 'invalid JSON: '}${p.reason}`;
}

/** Locates the first syntax error of text that JSON.parse rejected. */
export function locateSyntaxError(text: string, parseError: unknown): JsonSyntaxProblem {
  if (text.trim() === '') return { line: 1, column: 1, reason: 'the input is empty' };
  const errors: ParseError[] = [];
  try {
    jsonc().parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch {
    // jsonc-parser recurses: nesting deep enough to overflow the stack lands here.
    return { ...lineColumnOf(text, 0), reason: 'nested too deeply to read' };
  }
  const first = errors[0];
  if (first !== undefined) {
    const code = jsonc().printParseErrorCode(first.error);
    return { ...lineColumnOf(text, first.offset), reason: REASONS[code] ?? 'invalid JSON' };
  }
  // jsonc-parser accepted what JSON.parse did not (trailing commas are one case): use V8's position when it gives one.
  const m = /position (\d+)/.exec(parseError instanceof Error ? parseError.message : '');
  const trailingComma = /,\s*[}\]]/.exec(text);
  const offset = m !== null ? Number(m[1]) : trailingComma !== null ? trailingComma.index : 0;
  return { ...lineColumnOf(text, offset), reason: trailingComma !== null && m === null ? 'trailing comma' : 'invalid JSON' };
}

/** Parses JSON, or returns where it is broken. A leading byte-order mark is ignored. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problem: JsonSyntaxProblem } {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(t) as unknown };
  } catch (e) {
    return { ok: false, problem: locateSyntaxError(t, e) };
  }
}

type JsonNode = NonNullable<ReturnType<JsoncParser['parseTree']>>;

/** The offsets at which the lines of `text` start, in one pass. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 1-based line holding `offset`: a binary search of the line starts. */
function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** True for a key that JavaScript lists before the others (an array index: 0 to 2^32-2, no leading zero). */
function isIndexKey(k: string): boolean {
  return /^(0|[1-9]\d{0,9})$/.test(k) && Number(k) < 4294967295;
}

/** The members of one object node: by key (the last of duplicates wins, as in JSON.parse) and in JavaScript key order. */
interface Members {
  readonly byKey: Map<string, JsonNode>;
  readonly order: readonly string[];
}

function membersOf(node: JsonNode): Members {
  const byKey = new Map<string, JsonNode>();
  for (const prop of node.children ?? []) {
    const [keyNode, valueNode] = prop.children ?? [];
    if (keyNode === undefined || typeof keyNode.value !== 'string') continue;
    byKey.set(keyNode.value, valueNode ?? keyNode);
  }
  // Object.keys / for-in order: integer-like keys ascending, then the others in first-seen order.
  const keys = [...byKey.keys()];
  const order = [...keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !isIndexKey(k))];
  return { byKey, order };
}

/**
 * A function giving the 1-based line of a JSON Pointer in `text`, or of its
 * nearest ancestor that exists (a missing required field points at its
 * parent object). A last token `#N` is an unknown key given by position (see
 * `validate`): the Nth key of its object in JavaScript order. The parse tree
 * and a table of line starts are built once, on first use; each lookup then
 * costs the depth of the pointer (members of an object are indexed the first
 * time a pointer goes through it), so locating every issue of a large file
 * stays linear.
 */
export function pointerLocator(text: string): (pointer: string) => number {
  let tree: JsonNode | undefined;
  let starts: number[] | undefined;
  let failed = false;
  const members = new Map<JsonNode, Members>();
  const membersAt = (node: JsonNode): Members => {
    let m = members.get(node);
    if (m === undefined) members.set(node, (m = membersOf(node)));
    return m;
  };
  const child = (node: JsonNode, token: string, last: boolean): JsonNode | undefined => {
    if (node.type === 'array') return /^(0|[1-9]\d*)$/.test(token) ? node.children?.[Number(token)] : undefined;
    if (node.type !== 'object') return undefined;
    const m = membersAt(node);
    const position = last ? /^#(\d+)$/.exec(token) : null;
    if (position !== null) {
      const key = m.order[Number(position[1])];
      return key === undefined ? undefined : m.byKey.get(key);
    }
    return m.byKey.get(token);
  };
  return (ptr: string): number => {
    if (failed) return 1;
    if (tree === undefined) {
      try {
        tree = jsonc().parseTree(text, [], { disallowComments: true }) ?? undefined;
      } catch {
        // Nested deeper than the parser's recursion allows: give the first line rather than fail.
        tree = undefined;
      }
      if (tree === undefined) {
        failed = true;
        return 1;
      }
      starts = lineStarts(text);
    }
    const tokens = parsePointer(ptr);
    let node: JsonNode = tree;
    for (let i = 0; i < tokens.length; i++) {
      const next = child(node, tokens[i] ?? '', i === tokens.length - 1);
      if (next === undefined) break;
      node = next;
    }
    // For a property, point at its key's line.
    const at = node.parent?.type === 'property' ? node.parent.offset : node.offset;
    return lineAt(starts ?? [0], at);
  };
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
  let carry: Buffer[] = [];
  let carryLength = 0;
  let carryTooLong = false;
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
      let start = 0;
      let nl = buf.indexOf(10, start);
      while (nl !== -1) {
        if (carryTooLong) take(undefined, out);
        else if (carryLength === 0) take(buf.subarray(start, nl), out);
        else {
          carry.push(buf.subarray(start, nl));
          take(Buffer.concat(carry), out);
        }
        carry = [];
        carryLength = 0;
        carryTooLong = false;
        start = nl + 1;
        nl = buf.indexOf(10, start);
      }
      if (!carryTooLong && start < buf.length) {
        carry.push(buf.subarray(start));
        carryLength += buf.length - start;
        if (carryLength > maxLineLength) {
          carry = [];
          carryLength = 0;
          carryTooLong = true;
        }
      }
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
  if (carryTooLong) take(undefined, out);
  else if (carryLength > 0) take(Buffer.concat(carry), out);
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
