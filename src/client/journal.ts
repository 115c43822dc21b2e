/**
 * The journal of a batch: an append-only NDJSON file with one line per
 * state change of an item, flushed to disk (fsync) before the batch goes on.
 * It holds keys (hashes, see linkRequestKey), states, request ids, HTTP
 * statuses, error class names and fixed reason codes: never a payload, an
 * ABHA address, a token, or a message (the service's may echo health data).
 *
 * Lines, in order of a normal item: `sending` (written and synced before the
 * request leaves), then `acknowledged`, `failed` or `unknown`. A key whose last
 * line is `sending` was in flight when the process died: its outcome is
 * unknown.
 *
 * Format 2 (new journals) starts with a header line holding a random salt,
 * `{"v":2,"journal":"abha-link","salt":"..."}`, and keys its items with
 * `linkRequestKey(request, salt)` (`k2:`, a keyed hash: a list of ABHA
 * addresses or visit ids cannot be checked against the journal without its
 * salt). Format 1 (journals written before) has no header and plain `k1:`
 * keys; such a journal is still read and continued in format 1.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, rm, stat, truncate, writeFile, type FileHandle } from 'node:fs/promises';
import { AbhaLinkError } from '../errors.js';
import { linkRequestKey, type LinkRequestIdentity } from './key.js';

/** The state of an item in the journal. */
export type JournalState = 'sending' | 'acknowledged' | 'failed' | 'unknown';

const STATES: ReadonlySet<string> = new Set<JournalState>(['sending', 'acknowledged', 'failed', 'unknown']);

/** One line of the journal. */
export interface JournalEntry {
  /** The item's key (the journal's keyOf, see linkRequestKey). */
  readonly key: string;
  readonly state: JournalState;
  /** When the line was written, ISO 8601. */
  readonly at?: string;
  /** The client's request id of the last attempt. */
  readonly requestId?: string;
  /** The HTTP status of the answer, when one came. */
  readonly status?: number;
  /** The error class, for `failed` and `unknown`. */
  readonly error?: string;
  /**
   * A fixed reason code, never a message: for `failed` and `unknown` the
   * failure (`rejected`, `rate-limited`, `connection-refused`, `timeout`, ...
   * see reasonCode); for `acknowledged`, `answer-off-spec` when the answer
   * said success but did not match the spec's schema.
   */
  readonly reason?: string;
}

/**
 * Where a batch records its items. {@link openFileJournal} is the durable
 * one; {@link memoryJournal} keeps lines in memory (tests, short-lived
 * batches). Implement it to keep the journal elsewhere (a database table).
 *
 * @example
 * const journal: Journal = await openFileJournal('links.journal')
 */
export interface Journal {
  /** The last state of every key recorded so far. */
  load(): Promise<Map<string, JournalState>>;
  /**
   * The key this journal records a request under. The file and memory
   * journals use a keyed hash with a salt of their own (see linkRequestKey);
   * when a journal has no keyOf, the batch uses the plain `linkRequestKey(request)`.
   */
  keyOf?(request: LinkRequestIdentity): string;
  /** Records a line; resolves once it is durable. */
  append(entry: JournalEntry): Promise<void>;
  /** Waits for pending lines and releases the journal. */
  close(): Promise<void>;
}

/**
 * The journal cannot be used: it is locked by a running batch, a line in its
 * middle is damaged, or it cannot be written.
 *
 * @example
 * await openFileJournal('links.journal').catch((e) => e instanceof JournalError) //=> true while another run holds it
 */
export class JournalError extends AbhaLinkError {
  override name = 'JournalError';
}

/** The salt of a new journal: 32 random bytes. */
const SALT_BYTES = 32;
const SALT_TEXT = /^[A-Za-z0-9_-]{43}$/;

function headerLine(salt: Buffer): string {
  return `${JSON.stringify({ v: 2, journal: 'abha-link', salt: salt.toString('base64url') })}\n`;
}

/** The salt of a header line, or undefined when the line is not a header. */
function parseHeader(text: string): Buffer | undefined {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (o === null || typeof o !== 'object') return undefined;
  const r = o as Record<string, unknown>;
  if (r.v !== 2 || r.journal !== 'abha-link' || typeof r.salt !== 'string' || !SALT_TEXT.test(r.salt)) return undefined;
  return Buffer.from(r.salt, 'base64url');
}

function toLine(e: JournalEntry, version: 1 | 2): string {
  const o: Record<string, unknown> = { v: version, key: e.key, state: e.state };
  if (e.at !== undefined) o.at = e.at;
  if (e.requestId !== undefined) o.requestId = e.requestId;
  if (e.status !== undefined) o.status = e.status;
  if (e.error !== undefined) o.error = e.error;
  if (e.reason !== undefined) o.reason = e.reason;
  return `${JSON.stringify(o)}\n`;
}

/** Parses one entry line of a journal of format `version`; undefined when it is not one. */
function parseLine(text: string, version: 1 | 2): JournalEntry | undefined {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (o === null || typeof o !== 'object') return undefined;
  const r = o as Record<string, unknown>;
  if (r.v !== version || typeof r.key !== 'string' || r.key === '' || r.key.length > 256 || typeof r.state !== 'string' || !STATES.has(r.state)) return undefined;
  return { key: r.key, state: r.state as JournalState };
}

/**
 * Reads the last state of every key of a journal file, streaming (memory
 * grows with the number of keys, not the file). A missing file is an empty
 * journal. A last line without its newline that is not an entry (a write
 * cut short by a crash) is ignored; any complete line that is not an entry,
 * the last one included, is a {@link JournalError}.
 *
 * @returns the states; the salt of its keys (undefined for a format-1 or
 * empty journal); its format (1 or 2; 0 when empty); whether the file ends
 * with a newline; its size; the bytes of a torn last line (0 when none)
 * @example
 * const { states, salt } = await readJournal('links.journal')
 * states.get(linkRequestKey(request, salt)) //=> 'acknowledged'
 */
export async function readJournal(
  path: string,
): Promise<{ states: Map<string, JournalState>; salt: Buffer | undefined; version: 0 | 1 | 2; endsCleanly: boolean; size: number; tornBytes: number }> {
  const states = new Map<string, JournalState>();
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return { states, salt: undefined, version: 0, endsCleanly: true, size: 0, tornBytes: 0 };
    throw new JournalError(`journal ${path}: cannot be read (${(e as { code?: string }).code ?? 'unknown error'})`);
  }
  let carry = '';
  let lineNo = 0;
  let version: 0 | 1 | 2 = 0;
  let salt: Buffer | undefined;
  const damaged = (line: number): JournalError => new JournalError(`journal ${path}: line ${line} is not a journal entry; the file is damaged (fix or remove that line)`);
  /** An entry (or, as the first line, the header); undefined when the line is neither. */
  const read = (line: string): JournalEntry | 'header' | undefined => {
    if (version === 0) {
      salt = parseHeader(line);
      if (salt !== undefined) {
        version = 2;
        return 'header';
      }
      // No header: a journal of format 1, written before keyed hashes.
      const e = parseLine(line, 1);
      if (e !== undefined) version = 1;
      return e;
    }
    return parseLine(line, version);
  };
  // Only a last line without its newline can be a write cut short; a complete line that is not
  // an entry is damage (or not a journal at all), wherever it is.
  const take = (line: string): void => {
    lineNo++;
    if (line.trim() === '') return;
    const e = read(line);
    if (e === undefined) throw damaged(lineNo);
    if (e !== 'header') states.set(e.key, e.state);
  };
  try {
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      const s = carry + (chunk as string);
      const lines = s.split('\n');
      carry = lines.pop() ?? '';
      for (const l of lines) take(l);
    }
  } catch (e) {
    if (e instanceof JournalError) throw e;
    throw new JournalError(`journal ${path}: cannot be read (${(e as { code?: string }).code ?? 'unknown error'})`);
  }
  const endsCleanly = carry === '';
  let tornBytes = 0;
  if (!endsCleanly) {
    // The last line has no newline: a write cut short, unless it parses.
    const e = read(carry);
    if (e === undefined) tornBytes = Buffer.byteLength(carry, 'utf8');
    else if (e !== 'header') states.set(e.key, e.state);
  }
  return { states, salt, version, endsCleanly, size, tornBytes };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}

/** Creates `path` holding `content`, only if it does not exist (atomic); false when it exists. */
async function createExclusive(path: string, content: string, journalPath: string): Promise<boolean> {
  try {
    await writeFile(path, content, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === 'EEXIST') return false;
    throw new JournalError(`journal ${journalPath}: cannot create its lock file (${(e as { code?: string }).code ?? 'unknown error'})`);
  }
}

/** The pid a lock file names (its first word), or undefined. */
function lockPid(content: string): number | undefined {
  const pid = Number(content.trim().split(/\s+/)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

const readLock = (path: string): Promise<string | undefined> => readFile(path, 'utf8').catch(() => undefined);

/**
 * Takes the lock `<journal>.lock`, holding this process's pid and a token of
 * its own. A lock whose process is gone (a crash, a kill) is taken over, but
 * only under a second lock `<journal>.lock.takeover`, and only if it is
 * still the very lock found stale: two batches finding the same stale lock
 * cannot both remove it and both go on. Resolves to the token, which close()
 * checks before removing the lock.
 */
async function acquireLock(lockPath: string, journalPath: string): Promise<string> {
  const token = `${process.pid} ${randomUUID()}\n`;
  const takeoverPath = `${lockPath}.takeover`;
  for (let i = 0; i < 100; i++) {
    if (await createExclusive(lockPath, token, journalPath)) return token;
    const holder = await readLock(lockPath);
    if (holder === undefined) continue; // released meanwhile: try again
    const pid = lockPid(holder);
    if (pid !== undefined && (pid === process.pid || processAlive(pid))) {
      throw new JournalError(`journal ${journalPath} is in use by process ${pid} (lock file ${lockPath}); wait for it to finish, or remove the lock file if no batch is running`);
    }
    if (await createExclusive(takeoverPath, token, journalPath)) {
      try {
        if ((await readLock(lockPath)) === holder) {
          await rm(lockPath, { force: true });
          if (await createExclusive(lockPath, token, journalPath)) return token;
        }
      } finally {
        await rm(takeoverPath, { force: true });
      }
      continue;
    }
    // Another batch is taking the stale lock over; a takeover lock left by a process that died
    // within those few milliseconds is removed.
    const taker = lockPid((await readLock(takeoverPath)) ?? '');
    if (taker !== undefined && taker !== process.pid && !processAlive(taker)) await rm(takeoverPath, { force: true });
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new JournalError(`journal ${journalPath}: cannot take its lock ${lockPath}`);
}

/** Removes the lock if it is still this batch's own (a lock taken over meanwhile is left alone). */
async function releaseLock(lockPath: string, token: string): Promise<void> {
  if ((await readLock(lockPath)) === token) await rm(lockPath, { force: true });
}

/** Options of {@link openFileJournal}. */
export interface FileJournalOptions {
  /** fsync after each write (default true). Without it, a power loss may lose the last lines. */
  readonly fsync?: boolean;
}

/**
 * Opens (or creates) a journal file for a batch. A lock file `<path>.lock`
 * keeps two batches from using the same journal at once; a lock left by a
 * process that is gone is taken over (by one batch only, when several find
 * it together). Lines written concurrently are
 * grouped into one write and one fsync; each `append` resolves once its line
 * is on disk.
 *
 * @throws JournalError when locked by a running process, damaged or unwritable
 * @example
 * const journal = await openFileJournal('links.journal')
 * await client.submitMany(items, { journal })
 * await journal.close()
 */
export async function openFileJournal(path: string, options: FileJournalOptions = {}): Promise<Journal> {
  const lockPath = `${path}.lock`;
  const lockToken = await acquireLock(lockPath, path);
  let loaded: Awaited<ReturnType<typeof readJournal>>;
  let fh: FileHandle;
  let salt: Buffer | undefined;
  try {
    loaded = await readJournal(path);
    // A line cut short by a crash is removed, so that it does not end up in the middle.
    if (loaded.tornBytes > 0) await truncate(path, loaded.size - loaded.tornBytes);
    fh = await open(path, 'a', 0o600);
    if (!loaded.endsCleanly && loaded.tornBytes === 0) await fh.write('\n');
    if (loaded.version === 0) {
      // A new journal (or one holding no line yet): format 2, with a salt of its own.
      salt = randomBytes(SALT_BYTES);
      await fh.truncate(0);
      await fh.write(headerLine(salt));
      await fh.sync();
    } else {
      salt = loaded.salt;
    }
  } catch (e) {
    await releaseLock(lockPath, lockToken);
    if (e instanceof JournalError) throw e;
    throw new JournalError(`journal ${path}: cannot be opened for writing (${(e as { code?: string }).code ?? 'unknown error'})`);
  }
  const fsync = options.fsync !== false;
  const queue: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let writing: Promise<void> | undefined;
  let closed = false;

  /** Set by the first failed write: nothing more is written after a line that may be cut short. */
  let broken: JournalError | undefined;
  const flush = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue.splice(0, queue.length);
      if (broken !== undefined) {
        for (const b of batch) b.reject(broken);
        continue;
      }
      try {
        // A write can be short (a file-size limit, a full disk): write the rest, so that a line
        // reported durable is whole; the next write then fails with the real error.
        const bytes = Buffer.from(batch.map((b) => b.line).join(''), 'utf8');
        for (let at = 0; at < bytes.length; ) {
          const { bytesWritten } = await fh.write(bytes, at, bytes.length - at);
          if (bytesWritten <= 0) throw Object.assign(new Error('no progress writing the journal'), { code: 'EIO' });
          at += bytesWritten;
        }
        if (fsync) await fh.sync();
        for (const b of batch) b.resolve();
      } catch (e) {
        broken = new JournalError(`journal ${path}: cannot be written (${(e as { code?: string }).code ?? 'unknown error'})`);
        for (const b of batch) b.reject(broken);
      }
    }
  };

  // Starts a flush unless one runs; a line queued while a flush was finishing starts the next one.
  const kick = (): void => {
    if (writing !== undefined || queue.length === 0) return;
    writing = flush().finally(() => {
      writing = undefined;
      kick();
    });
  };

  const version = salt === undefined ? 1 : 2;
  return {
    load: () => Promise.resolve(new Map(loaded.states)),
    keyOf: (request) => linkRequestKey(request, salt),
    append(entry) {
      if (closed) return Promise.reject(new JournalError(`journal ${path} is closed`));
      return new Promise<void>((resolve, reject) => {
        queue.push({ line: toLine(entry, version), resolve, reject });
        kick();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      while (writing !== undefined) await writing;
      await fh.close();
      await releaseLock(lockPath, lockToken);
    },
  };
}

/** A journal kept in memory, with its lines readable. */
export interface MemoryJournal extends Journal {
  /** Every line recorded, in order. */
  readonly entries: readonly JournalEntry[];
  keyOf(request: LinkRequestIdentity): string;
}

/** Options of {@link memoryJournal}. */
export interface MemoryJournalOptions {
  /** The salt of its keys (at least 16 bytes; default: 32 random bytes). Give the same salt to continue a journal. */
  readonly salt?: Uint8Array;
}

/**
 * A journal in memory: the same rules as a file, without the durability.
 * Its keys are keyed hashes under its own salt: compute them with `keyOf`.
 *
 * @example
 * const journal = memoryJournal()
 * await client.submitMany(items, { journal })
 * journal.entries.filter((e) => e.state === 'acknowledged').length //=> 3
 * journal.entries.at(-1)?.key === journal.keyOf(items[2]) //=> true
 */
export function memoryJournal(initial: readonly JournalEntry[] = [], options: MemoryJournalOptions = {}): MemoryJournal {
  const entries: JournalEntry[] = [...initial];
  const salt = options.salt ?? randomBytes(SALT_BYTES);
  if (!(salt instanceof Uint8Array) || salt.length < 16) throw new TypeError('salt must be at least 16 random bytes');
  return {
    entries,
    keyOf: (request) => linkRequestKey(request, salt),
    load() {
      const m = new Map<string, JournalState>();
      for (const e of entries) m.set(e.key, e.state);
      return Promise.resolve(m);
    },
    append(entry) {
      entries.push({ ...entry });
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}
