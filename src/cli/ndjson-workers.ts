/**
 * `validate --ndjson --jobs N`: the work spread over worker threads.
 *
 * N jobs are the main thread and N - 1 worker threads. The main thread reads
 * the input, cuts it into batches of whole lines at newline bytes (it never
 * decodes a line, except the rare one that starts with a space or a non-ASCII
 * byte, to tell whether it is blank), numbers lines and documents, and hands
 * each batch's bytes to a worker by transfer, not copy. Workers decode, parse,
 * validate, lint and format with the same function as the single-threaded
 * path (ndjsonLineOutput), and answer with the output text. When every worker
 * holds four batches (and while they start), the main thread does the next
 * batch itself, so no core idles and start-up costs no time. The main thread
 * writes the answers in input order.
 *
 * Memory stays bounded: at most `8 × jobs` batches (of about 512 KiB) are in
 * flight; when that many are out, reading waits for the oldest answer to be
 * written (which itself waits for stdout to drain), so a slow reader of the
 * output slows the reading of the input.
 */
import { open, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ValidateArgs, ndjsonLineOutput } from './validate-document.js';
import { UsageError, cliIo, describeFsError, inputName, looksLikeUtf16, ndjsonLine, type NdjsonLine } from './io.js';

/** Sizes of the reading; only tests change them. */
export interface NdjsonLimits {
  /** Smallest batch handed to a worker from a stream (the last one of the input may be smaller). Default 512 KiB. */
  readonly batchBytes?: number;
  /** Bytes read from a file at a time: about one batch. Default 512 KiB. */
  readonly readBytes?: number;
  /** A longer line is reported as too long and not kept, as by the single-threaded line reader. Default 64 MiB. */
  readonly maxLineLength?: number;
}

/**
 * Batches a worker holds: one being worked on and three waiting, so that it
 * does not idle while the main thread is busy or not scheduled.
 */
const IN_FLIGHT_PER_WORKER = 4;
/**
 * Batches read and not yet written, per job: room for the main thread to
 * work ahead of a worker's oldest batch, since output is written in order.
 */
const WINDOW_PER_JOB = 8;

/** The default of --jobs: the number of cores Node may use. */
export function defaultJobs(): number {
  return Math.max(1, os.availableParallelism());
}

/**
 * Reads the value of `--jobs`: a whole number from 1 to 256.
 *
 * @throws UsageError for anything else
 */
export function parseJobs(value: string): number {
  const n = /^\d{1,3}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(n >= 1 && n <= 256)) throw new UsageError('--jobs must be a whole number from 1 to 256');
  return n;
}

/** What a worker is told once, at start. */
export interface NdjsonWorkerSetup {
  readonly args: ValidateArgs;
  readonly name: string;
}

/** One batch: whole lines, the first of them line `firstLine`, the first document `firstIndex`. */
export interface NdjsonBatch {
  readonly bytes: Uint8Array;
  readonly firstLine: number;
  readonly firstIndex: number;
}

/** A worker's answer to a batch. */
export interface NdjsonBatchResult {
  readonly text: string;
  readonly docs: number;
  readonly invalid: number;
  readonly broken: number;
}

/** Counts of a whole run. */
export interface NdjsonCounts {
  docs: number;
  invalid: number;
  broken: number;
  /** Batches done by worker threads (the rest by the main thread). */
  workerBatches: number;
  /** The most batches that were at once read and not yet written (at most 8 × jobs). */
  peakInFlight: number;
}

/** True for the bytes JavaScript's trim() removes that can start a line: tab, VT, FF, CR, space. */
const isAsciiSpace = (b: number): boolean => b === 32 || (b >= 9 && b <= 13);

/**
 * Whether `bytes[start, end)` is a blank line as the line reader sees it
 * (`text.trim() === ''`). Decodes only when the first byte leaves a doubt.
 */
function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  if (start >= end) return true;
  const b = bytes[start] ?? 32;
  if (b < 0x80 && !isAsciiSpace(b)) return false;
  return (
    Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start)
      .toString('utf8')
      .trim() === ''
  );
}

/**
 * Visits every line of a batch as the CLI's line reader cuts it: without the
 * newline and a CR before it, without a byte-order mark on line 1, blank
 * lines skipped. Returns the number of lines (blank ones included).
 */
export function forEachLine(bytes: Uint8Array, firstLine: number, visit: (line: number, start: number, end: number) => void): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let line = firstLine;
  let pos = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(10, pos);
    const next = nl === -1 ? buf.length : nl + 1;
    let end = nl === -1 ? buf.length : nl;
    if (end > pos && buf[end - 1] === 13) end--;
    let start = pos;
    if (line === 1 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
    if (!isBlank(buf, start, end)) visit(line, start, end);
    line++;
    pos = next;
  }
  return line - firstLine;
}

/** A piece of the input for the main thread to hand out: a batch of whole lines, or a line over the limit. */
type Piece = { kind: 'lines'; bytes: Uint8Array } | { kind: 'too-long' };

/**
 * Cuts a byte stream into batches of whole lines (at least BATCH_BYTES, except
 * the last) with one copy into a buffer of their own, which can be transferred.
 * A line longer than the limit is dropped as the line reader drops it, and
 * stands for itself.
 */
async function* pieces(stream: AsyncIterable<Buffer | string>, batchBytes: number, maxLineLength: number): AsyncGenerator<Piece> {
  let parts: Uint8Array[] = [];
  let partsLength = 0;
  let tail: Uint8Array[] = [];
  let tailLength = 0;
  let skipping = false;
  const batch = (): Piece => {
    const bytes = new Uint8Array(partsLength);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    parts = [];
    partsLength = 0;
    return { kind: 'lines', bytes };
  };
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const last = buf.lastIndexOf(10);
    if (last === -1) {
      if (!skipping) {
        tail.push(buf);
        tailLength += buf.length;
      }
    } else {
      let start = 0;
      if (skipping) {
        // The newline that ends the line over the limit.
        start = buf.indexOf(10) + 1;
        if (partsLength > 0) yield batch();
        yield { kind: 'too-long' };
        skipping = false;
      } else {
        for (const t of tail) parts.push(t);
        partsLength += tailLength;
      }
      if (last + 1 > start) {
        parts.push(buf.subarray(start, last + 1));
        partsLength += last + 1 - start;
      }
      tail = last + 1 < buf.length ? [buf.subarray(last + 1)] : [];
      tailLength = buf.length - last - 1;
    }
    if (!skipping && tailLength > maxLineLength) {
      tail = [];
      tailLength = 0;
      skipping = true;
    }
    if (partsLength >= batchBytes) yield batch();
  }
  if (skipping) {
    if (partsLength > 0) yield batch();
    yield { kind: 'too-long' };
    return;
  }
  for (const t of tail) parts.push(t);
  partsLength += tailLength;
  if (partsLength > 0) yield batch();
}

/**
 * Batches of a file read straight into buffers of their own, so that nothing
 * is copied but the partial line at the end of each read (a line longer than
 * one read grows the next buffer, doubling, so long lines cost linear time).
 */
async function* filePieces(handle: FileHandle, readBytes: number, maxLineLength: number, signal: AbortSignal | undefined): AsyncGenerator<Piece> {
  let carry = new Uint8Array(0);
  let skipping = false;
  for (;;) {
    if (signal?.aborted === true) return;
    const size = carry.length + Math.max(readBytes, carry.length);
    const buf = new Uint8Array(size);
    buf.set(carry, 0);
    const { bytesRead } = await handle.read(buf, carry.length, size - carry.length, null);
    const end = carry.length + bytesRead;
    if (bytesRead === 0) {
      if (skipping) yield { kind: 'too-long' };
      else if (carry.length > 0) yield { kind: 'lines', bytes: carry };
      return;
    }
    const view = Buffer.from(buf.buffer, 0, end);
    let start = 0;
    if (skipping) {
      const first = view.indexOf(10);
      if (first === -1) {
        carry = new Uint8Array(0);
        continue;
      }
      yield { kind: 'too-long' };
      skipping = false;
      start = first + 1;
    }
    const last = view.lastIndexOf(10);
    if (last < start) {
      carry = buf.subarray(start, end);
    } else {
      // Copied before the batch's buffer is handed over (transfer empties it here).
      carry = buf.slice(last + 1, end);
      yield { kind: 'lines', bytes: buf.subarray(start, last + 1) };
    }
    if (carry.length > maxLineLength) {
      carry = new Uint8Array(0);
      skipping = true;
    }
  }
}

/** The input: a file handle, or stdin as a stream. */
async function openInput(file: string | undefined): Promise<{ handle: FileHandle } | { stream: NodeJS.ReadableStream & { destroy(): void } }> {
  if (file === undefined || file === '-') {
    if (cliIo().stdin.isTTY === true) throw new UsageError('no input: give a FILE, or pipe JSON into standard input (use - for stdin)');
    return { stream: cliIo().stdin };
  }
  try {
    const handle = await open(file, 'r');
    const st = await handle.stat();
    if (st.isDirectory()) {
      await handle.close();
      throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    }
    return { handle };
  } catch (e) {
    throw new UsageError(describeFsError(e, file));
  }
}

/** A worker thread and the answers it owes, in the order it was asked. */
interface Lane {
  readonly worker: Worker;
  readonly waiting: Array<{ resolve: (r: NdjsonBatchResult) => void; reject: (e: Error) => void }>;
}

/** An internal failure of a worker thread: a bug, never a problem of the input. */
export class NdjsonWorkerError extends Error {
  override name = 'NdjsonWorkerError';
}

function startLane(setup: NdjsonWorkerSetup, onFailure: (e: Error) => void): Lane {
  const worker = new Worker(new URL('./ndjson-worker.js', import.meta.url), { workerData: setup });
  const lane: Lane = { worker, waiting: [] };
  worker.on('message', (r: NdjsonBatchResult) => lane.waiting.shift()?.resolve(r));
  const fail = (e: Error): void => {
    for (const w of lane.waiting.splice(0)) w.reject(e);
    onFailure(e);
  };
  // The worker's own error is not passed on: it could quote input (a JSON parse message does).
  worker.on('error', (e) => fail(new NdjsonWorkerError(`a validation worker failed (${e.name})`)));
  worker.on('exit', (code) => {
    if (lane.waiting.length > 0) fail(new NdjsonWorkerError(`a validation worker stopped (exit ${code})`));
  });
  return lane;
}

/**
 * Validates NDJSON from a file or stdin on `jobs` worker threads and writes
 * the output through `write` in input order; returns the counts. Input of
 * less than one batch is done on the calling thread. When `signal` aborts
 * (the output went away), reading stops and the workers are ended.
 *
 * @throws UsageError when the input cannot be read
 */
export async function validateNdjsonInWorkers(
  file: string | undefined,
  jobs: number,
  options: ValidateArgs & { readonly name: string },
  write: (text: string) => void | Promise<void>,
  signal?: AbortSignal,
  limits: NdjsonLimits = {},
): Promise<NdjsonCounts> {
  const maxLineLength = limits.maxLineLength ?? 64 * 1024 * 1024;
  const { ndjsonLineOutput, prepareChecks } = await import('./validate-document.js');
  const { name, ...args } = options;
  await prepareChecks(args);
  const run: RunState = { counts: { docs: 0, invalid: 0, broken: 0, workerBatches: 0, peakInFlight: 0 }, failure: undefined };
  const input = await openInput(file);
  const close = (): void => {
    if ('stream' in input) input.stream.destroy();
  };
  if (signal?.aborted === true) close();
  signal?.addEventListener('abort', close, { once: true });
  const pool = new WorkerPool(run, { args, name }, jobs);
  const writer = new InOrderWriter(run, jobs * WINDOW_PER_JOB, write, signal);
  const lineOutput: LineOutput = (l, index) => ndjsonLineOutput(l, index, args, name);
  const read = pieceReader(input, file, limits, maxLineLength, signal);
  try {
    await handOutAll(read, { line: 1, index: 0 }, { run, pool, writer, lineOutput, file, signal });
    await writer.drained();
    if (run.failure !== undefined) throw run.failure;
  } finally {
    signal?.removeEventListener('abort', close);
    if (signal?.aborted === true || run.failure !== undefined) close();
    if ('handle' in input) await input.handle.close();
    await pool.terminate();
  }
  return run.counts;
}

/** What one run shares between its steps: the counts, and the first failure (after which nothing more is written). */
interface RunState {
  readonly counts: NdjsonCounts;
  failure: Error | undefined;
}

/** Where the reading stands: the next line number and the next document index. */
interface Cursor {
  line: number;
  index: number;
}

type LineOutput = (l: NdjsonLine, index: number) => ReturnType<typeof ndjsonLineOutput>;

/** Everything the hand-out loop works with. */
interface HandOut {
  readonly run: RunState;
  readonly pool: WorkerPool;
  readonly writer: InOrderWriter;
  readonly lineOutput: LineOutput;
  readonly file: string | undefined;
  readonly signal: AbortSignal | undefined;
}

/** The worker threads, started as they are needed, and the answers each owes. */
class WorkerPool {
  readonly lanes: Lane[] = [];
  constructor(
    private readonly run: RunState,
    private readonly setup: NdjsonWorkerSetup,
    private readonly jobs: number,
  ) {}

  /** The worker owing the fewest answers, when one owes fewer than it can hold. */
  freeLane(): Lane | undefined {
    while (this.lanes.length < this.jobs - 1) this.lanes.push(startLane(this.setup, (e) => (this.run.failure ??= e)));
    let lane: Lane | undefined;
    for (const l of this.lanes) if (l.waiting.length < IN_FLIGHT_PER_WORKER && (lane === undefined || l.waiting.length < lane.waiting.length)) lane = l;
    return lane;
  }

  dispatch(chosen: Lane, batch: NdjsonBatch): Promise<NdjsonBatchResult> {
    return new Promise<NdjsonBatchResult>((resolve, reject) => {
      if (this.run.failure !== undefined) {
        reject(this.run.failure);
        return;
      }
      chosen.waiting.push({ resolve, reject });
      chosen.worker.postMessage(batch, [batch.bytes.buffer as ArrayBuffer]);
    });
  }

  async terminate(): Promise<void> {
    await Promise.all(this.lanes.map((l) => l.worker.terminate()));
  }
}

/** Batches asked for and not yet written, oldest first; the writer takes them in this order. */
class InOrderWriter {
  private inFlight = 0;
  private roomMade: (() => void) | undefined;
  private writing: Promise<void> = Promise.resolve();
  constructor(
    private readonly run: RunState,
    private readonly maxInFlight: number,
    private readonly write: (text: string) => void | Promise<void>,
    private readonly signal: AbortSignal | undefined,
  ) {}

  enqueue(answer: Promise<NdjsonBatchResult>): void {
    const { run } = this;
    this.inFlight++;
    run.counts.peakInFlight = Math.max(run.counts.peakInFlight, this.inFlight);
    this.writing = this.writing
      .then(async () => {
        const r = await answer;
        if (run.failure !== undefined) return;
        run.counts.docs += r.docs;
        run.counts.invalid += r.invalid;
        run.counts.broken += r.broken;
        if (this.signal?.aborted !== true) await this.write(r.text);
      })
      .catch((e: unknown) => {
        run.failure ??= e instanceof Error ? e : new NdjsonWorkerError('a validation worker failed');
      })
      .finally(() => {
        this.inFlight--;
        this.roomMade?.();
      });
  }

  /** Waits until fewer batches than the limit are out (or the run failed). */
  async room(): Promise<void> {
    while (this.inFlight >= this.maxInFlight && this.run.failure === undefined) await new Promise<void>((resolve) => (this.roomMade = resolve));
    this.roomMade = undefined;
  }

  drained(): Promise<void> {
    return this.writing;
  }
}

/** The next piece of the input; a read that fails is a UsageError, a read cut by the signal the end. */
function pieceReader(
  input: { handle: FileHandle } | { stream: NodeJS.ReadableStream },
  file: string | undefined,
  limits: NdjsonLimits,
  maxLineLength: number,
  signal: AbortSignal | undefined,
): () => Promise<IteratorResult<Piece>> {
  const it =
    'stream' in input ? pieces(input.stream as AsyncIterable<Buffer>, limits.batchBytes ?? 512 * 1024, maxLineLength) : filePieces(input.handle, limits.readBytes ?? 512 * 1024, maxLineLength, signal);
  return async () => {
    try {
      return await it.next();
    } catch (e) {
      // Closed on purpose: the end, not an error.
      if (signal?.aborted === true) return { done: true, value: undefined };
      throw new UsageError(describeFsError(e, inputName(file)));
    }
  };
}

/** Reads the input piece by piece and hands each to a worker or to this thread, until the end, an abort or a failure. */
async function handOutAll(read: () => Promise<IteratorResult<Piece>>, at: Cursor, h: HandOut): Promise<void> {
  let current = await read();
  if (!current.done && current.value.kind === 'lines' && looksLikeUtf16(current.value.bytes)) {
    throw new UsageError(`${inputName(h.file)}:1:1 UTF-16 text; save it as UTF-8`);
  }
  while (!current.done && h.signal?.aborted !== true) {
    const piece = current.value;
    // The next read runs while this piece is handed out; before the first
    // worker exists, it tells whether this piece is the whole input.
    let upcoming: Promise<IteratorResult<Piece>>;
    let whole = false;
    if (h.pool.lanes.length === 0) {
      const n = await read();
      whole = n.done === true;
      upcoming = Promise.resolve(n);
    } else {
      upcoming = read();
      // Handled when awaited below; this keeps a failed read from counting as unhandled meanwhile.
      upcoming.catch(() => undefined);
    }
    handOut(piece, whole, at, h);
    await h.writer.room();
    if (h.run.failure !== undefined) break;
    current = await upcoming;
  }
}

/**
 * The main thread is one of the jobs: it takes a line over the limit, the
 * whole input when it is one batch, and a batch whenever every worker has
 * its hands full (also while the workers are still starting).
 */
function handOut(piece: Piece, whole: boolean, at: Cursor, h: HandOut): void {
  const lane = piece.kind === 'lines' && !whole ? h.pool.freeLane() : undefined;
  if (lane !== undefined && piece.kind === 'lines') {
    const firstLine = at.line;
    const firstIndex = at.index;
    at.line += forEachLine(piece.bytes, at.line, () => {
      at.index++;
    });
    h.run.counts.workerBatches++;
    h.writer.enqueue(h.pool.dispatch(lane, { bytes: piece.bytes, firstLine, firstIndex }));
  } else {
    const r = validateHere(piece, at.line, at.index, h.lineOutput);
    at.line += piece.kind === 'too-long' ? 1 : forEachLine(piece.bytes, at.line, () => undefined);
    at.index += r.docs;
    h.writer.enqueue(Promise.resolve(r));
  }
}

/** Work done on this thread, for a line over the limit and for input of a single batch. */
function validateHere(piece: Piece, firstLine: number, firstIndex: number, lineOutput: LineOutput): NdjsonBatchResult {
  const r = { text: '', docs: 0, invalid: 0, broken: 0 };
  const one = (l: NdjsonLine): void => {
    const o = lineOutput(l, firstIndex + r.docs);
    r.docs++;
    if (o.result.syntax !== undefined) r.broken++;
    else if (!o.result.valid) r.invalid++;
    r.text += o.text;
  };
  if (piece.kind === 'too-long') one({ line: firstLine, text: '', tooLong: true });
  else {
    forEachLine(piece.bytes, firstLine, (line, start, end) => one(ndjsonLine(piece.bytes.subarray(start, end), line)));
  }
  return r;
}
