/**
 * The journal of a batch: an append-only NDJSON file with one line per
 * state change of an item, flushed to disk (fsync) before the batch goes on.
 * It holds keys (hashes, see linkRequestKey), states, request ids, HTTP
 * statuses, error class names and fixed reason codes: never a payload, an
 * ABHA address, a token, or a message (the service's may echo health data).
 *
 * Lines, in order of a normal item: `sending` (written and synced right
 * before each attempt leaves, with its request id), then `acknowledged`,
 * `already-linked` (the service said the care contexts were linked before:
 * done, like `acknowledged`), `failed` or `unknown`. A key whose last line is `sending` was in flight
 * when the process died: its outcome is unknown.
 *
 * Format 3 (new journals) starts with a header line holding a random salt
 * and a check value of it,
 * `{"v":3,"journal":"abha-link","salt":"...","check":"..."}`, keys its items
 * with `linkRequestKey(request, salt)` (`k2:`, a keyed hash: a list of ABHA
 * addresses or visit ids cannot be checked against the journal without its
 * salt), and ends every line with `"sum"`, an HMAC of the rest of the line
 * under the salt. A changed salt or a changed line is refused, never read
 * as other keys. Format 2 (a salt, no check values) and format 1 (no
 * header, plain `k1:` keys), written by earlier versions, are still read and
 * continued in their own format.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, readFile, realpath, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AbhaLinkError } from '../errors.js';
import { linkRequestKey, type LinkRequestIdentity } from '../link-key.js';
import { LineCutter } from '../lines.js';
import { isProcessAlive } from '../process.js';

/** The state of an item in the journal. */
export type JournalState = 'sending' | 'acknowledged' | 'already-linked' | 'failed' | 'unknown';

const STATES: ReadonlySet<string> = new Set<JournalState>(['sending', 'acknowledged', 'already-linked', 'failed', 'unknown']);

/**
 * True for the states of an item that is done and never sent again: `acknowledged`, `already-linked`.
 *
 * @example
 * isDone('already-linked') //=> true
 */
export const isDone = (state: JournalState | undefined): boolean => state === 'acknowledged' || state === 'already-linked';

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
   * the error's `reason`, see TransportErrorReason); for `acknowledged`, `answer-off-spec` when the answer
   * said success but did not match the spec's schema, `answer-mismatch` when
   * its care contexts contradicted the request.
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
/**
 * The longest line a journal may hold, in bytes. Its lines are under 400
 * bytes; a longer one is not a journal's (a wrong file given as --journal),
 * and is refused before it fills memory.
 */
export const MAX_JOURNAL_LINE_BYTES = 4096;
/** Bytes read at a time while loading; the load can be stopped between two reads. */
const CHUNK_BYTES = 1 << 20;

/** The check value of a format-3 header: it changes with any change of the salt. */
function headerCheck(saltText: string): string {
  return createHash('sha256').update(`abha-link/journal-header/v3\n${saltText}`).digest('hex').slice(0, 16);
}

function headerLine(salt: Buffer): string {
  const text = salt.toString('base64url');
  return `${JSON.stringify({ v: 3, journal: 'abha-link', salt: text, check: headerCheck(text) })}\n`;
}

/**
 * A header line: its format and salt; `damaged` when it is a format-3 header
 * whose check value does not match its salt; undefined when the line is not a header.
 */
function parseHeader(text: string): { version: 2 | 3; salt: Buffer } | 'damaged' | undefined {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (o === null || typeof o !== 'object') return undefined;
  const r = o as Record<string, unknown>;
  if ((r.v !== 2 && r.v !== 3) || r.journal !== 'abha-link') return undefined;
  if (typeof r.salt !== 'string' || !SALT_TEXT.test(r.salt)) return r.v === 3 ? 'damaged' : undefined;
  if (r.v === 3 && r.check !== headerCheck(r.salt)) return 'damaged';
  return { version: r.v, salt: Buffer.from(r.salt, 'base64url') };
}

/** The checksum of a format-3 line: a keyed hash under the journal's salt, so a line from another journal does not pass. */
function lineSum(body: string, salt: Uint8Array): string {
  return createHmac('sha256', salt).update(body).digest('hex').slice(0, 16);
}

function toLine(e: JournalEntry, version: 1 | 2 | 3, salt: Uint8Array | undefined): string {
  const o: Record<string, unknown> = { v: version, key: e.key, state: e.state };
  if (e.at !== undefined) o.at = e.at;
  if (e.requestId !== undefined) o.requestId = e.requestId;
  if (e.status !== undefined) o.status = e.status;
  if (e.error !== undefined) o.error = e.error;
  if (e.reason !== undefined) o.reason = e.reason;
  const body = JSON.stringify(o);
  if (version !== 3 || salt === undefined) return `${body}\n`;
  return `${body.slice(0, -1)},"sum":"${lineSum(body, salt)}"}\n`;
}

const SUMMED = /^(\{.*),"sum":"([0-9a-f]{16})"\}$/;

/** Parses one entry line of a journal of format `version`; undefined when it is not one (or its checksum does not match). */
function parseLine(text: string, version: 1 | 2 | 3, salt: Uint8Array | undefined): JournalEntry | undefined {
  let body = text;
  if (version === 3) {
    const m = SUMMED.exec(text);
    if (m === null || salt === undefined) return undefined;
    body = `${m[1] ?? ''}}`;
    if (lineSum(body, salt) !== m[2]) return undefined;
  }
  let o: unknown;
  try {
    o = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (o === null || typeof o !== 'object') return undefined;
  const r = o as Record<string, unknown>;
  if (r.v !== version || typeof r.key !== 'string' || r.key === '' || r.key.length > 256 || typeof r.state !== 'string' || !STATES.has(r.state)) return undefined;
  const e: { -readonly [K in keyof JournalEntry]: JournalEntry[K] } = { key: r.key, state: r.state as JournalState };
  if (typeof r.at === 'string' && r.at.length <= 40) e.at = r.at;
  if (typeof r.requestId === 'string' && r.requestId.length <= 200) e.requestId = r.requestId;
  if (typeof r.status === 'number') e.status = r.status;
  if (typeof r.error === 'string' && r.error.length <= 100) e.error = r.error;
  if (typeof r.reason === 'string' && r.reason.length <= 100) e.reason = r.reason;
  return e;
}

const codeOf = (e: unknown): string => (e as { code?: string }).code ?? 'unknown error';

/** What {@link readJournal} found in a journal file. */
export interface JournalContents {
  /** The last state of every key. */
  readonly states: Map<string, JournalState>;
  /** The last line of every key whose last state is `sending` or `unknown` (for `abha-link submit --list-unknown`). */
  readonly unknown: Map<string, JournalEntry>;
  /** The salt of its keys (undefined for a format-1 or empty journal). */
  readonly salt: Buffer | undefined;
  /** Its format: 3 (header check value, line checksums), 2 (salt, no checks), 1 (no salt); 0 when empty. */
  readonly version: 0 | 1 | 2 | 3;
  /** Whether the file ends with a newline. */
  readonly endsCleanly: boolean;
  /** Its size in bytes. */
  readonly size: number;
  /** Bytes of a torn last line (a write cut short by a crash); 0 when none. */
  readonly tornBytes: number;
}

/** Options of {@link readJournal}. */
export interface ReadJournalOptions {
  /** Stops the load between two reads: rejects with a JournalError. */
  readonly signal?: AbortSignal;
}

/** Opens a path without blocking on a FIFO or a device, and refuses anything but a regular file. */
async function openRegular(path: string, flags: number, mode?: number): Promise<FileHandle> {
  const fh = await open(path, flags | constants.O_NONBLOCK, mode);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new JournalError(`journal ${path} is not a regular file (${kindOf(st)}): a journal must be a file of its own`);
  } catch (e) {
    await fh.close();
    throw e;
  }
  return fh;
}

function kindOf(st: { isFIFO(): boolean; isDirectory(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (st.isFIFO()) return 'a named pipe';
  if (st.isDirectory()) return 'a folder';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a file';
}

/** Reads a journal from an open handle (see {@link readJournal}). */
async function readFrom(fh: FileHandle, path: string, options: ReadJournalOptions): Promise<JournalContents> {
  const states = new Map<string, JournalState>();
  const unknown = new Map<string, JournalEntry>();
  const size = (await fh.stat()).size;
  let lineNo = 0;
  let version: 0 | 1 | 2 | 3 = 0;
  let salt: Buffer | undefined;
  const damaged = (line: number, why = 'is not a journal entry'): JournalError =>
    new JournalError(`journal ${path}: line ${line} ${why}; the file is damaged (restore it from a copy, or fix or remove that line)`);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  /** An entry (or, as the first line, the header); undefined when the line is neither. */
  const read = (bytes: Buffer): JournalEntry | 'header' | undefined => {
    let line: string;
    try {
      line = decoder.decode(bytes);
    } catch {
      return undefined;
    }
    if (version === 0) {
      const h = parseHeader(line);
      if (h === 'damaged') {
        throw new JournalError(
          `journal ${path}: its header (line 1) is damaged: its check value does not match its salt, so the keys of its items cannot be trusted; restore the journal from a copy (do not delete it: it records what was sent)`,
        );
      }
      if (h !== undefined) {
        version = h.version;
        salt = h.salt;
        return 'header';
      }
      // No header: a journal of format 1, written before keyed hashes.
      const e = parseLine(line, 1, undefined);
      if (e !== undefined) version = 1;
      return e;
    }
    return parseLine(line, version, salt);
  };
  const take = (bytes: Buffer): void => {
    lineNo++;
    if (bytes.toString('latin1').trim() === '') return;
    const e = read(bytes);
    if (e === undefined) throw damaged(lineNo, version === 3 ? 'is not a journal entry, or its checksum does not match' : undefined);
    if (e === 'header') return;
    states.set(e.key, e.state);
    if (e.state === 'sending' || e.state === 'unknown') unknown.set(e.key, e);
    else unknown.delete(e.key);
  };
  const buffer = Buffer.alloc(CHUNK_BYTES);
  const cutter = new LineCutter(MAX_JOURNAL_LINE_BYTES);
  const tooLong = (): JournalError => damaged(lineNo + 1, `is longer than ${MAX_JOURNAL_LINE_BYTES} bytes: not a journal's line`);
  let position = 0;
  try {
    for (;;) {
      if (options.signal?.aborted === true) throw new JournalError(`journal ${path}: loading was stopped (interrupted); nothing was sent`);
      const { bytesRead } = await fh.read(buffer, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      cutter.push(buffer.subarray(0, bytesRead), (line) => {
        if (line === undefined) throw tooLong();
        take(line);
      });
      if (cutter.overLimit) throw tooLong();
    }
  } catch (e) {
    if (e instanceof JournalError) throw e;
    throw new JournalError(`journal ${path}: cannot be read (${codeOf(e)})`);
  }
  // The last line has no newline: a write cut short, unless it is a whole entry.
  const tail: Buffer[] = [];
  const endsCleanly = !cutter.end((line) => line !== undefined && tail.push(Buffer.from(line)));
  let tornBytes = 0;
  const last = tail[0];
  if (last !== undefined) {
    let e: JournalEntry | 'header' | undefined;
    try {
      e = read(last);
    } catch {
      e = undefined;
    }
    if (e === undefined) tornBytes = last.length;
    else if (e !== 'header') {
      states.set(e.key, e.state);
      if (e.state === 'sending' || e.state === 'unknown') unknown.set(e.key, e);
      else unknown.delete(e.key);
    }
  }
  return { states, unknown, salt, version, endsCleanly, size, tornBytes };
}

/**
 * Reads the last state of every key of a journal file, streaming (memory
 * grows with the number of keys, not the file), without locking it. A
 * missing file is an empty journal; anything but a regular file (a named
 * pipe, a device) is refused without blocking. A last line without its
 * newline that is not a whole entry (a write cut short by a crash) is
 * counted in `tornBytes`; any complete line that is not an entry, the last
 * one included, a line whose checksum does not match (format 3), a header
 * whose check value does not match its salt, or a line longer than
 * {@link MAX_JOURNAL_LINE_BYTES} is a {@link JournalError}.
 *
 * @example
 * const { states, salt } = await readJournal('links.journal')
 * states.get(linkRequestKey(request, salt)) //=> 'acknowledged'
 */
export async function readJournal(path: string, options: ReadJournalOptions = {}): Promise<JournalContents> {
  let fh: FileHandle;
  try {
    fh = await openRegular(path, constants.O_RDONLY);
  } catch (e) {
    if (e instanceof JournalError) throw e;
    if (codeOf(e) === 'ENOENT') return { states: new Map(), unknown: new Map(), salt: undefined, version: 0, endsCleanly: true, size: 0, tornBytes: 0 };
    throw new JournalError(`journal ${path}: cannot be read (${codeOf(e)})`);
  }
  try {
    return await readFrom(fh, path, options);
  } finally {
    await fh.close();
  }
}

/**
 * Creates `path` holding `content`, only if it does not exist; false when it
 * exists. The content is written to a private temporary file first and then
 * hard-linked into place, so that nobody ever reads the lock empty or half
 * written (an empty lock read as stale let two batches take it over). Where
 * the file system has no hard links, an exclusive create and write.
 */
async function createExclusive(path: string, content: string, journalPath: string): Promise<boolean> {
  const fail = (e: unknown): never => {
    throw new JournalError(`journal ${journalPath}: cannot create its lock file (${codeOf(e)})`);
  };
  const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, content, { flag: 'wx', mode: 0o600 });
  } catch (e) {
    fail(e);
  }
  try {
    await link(temporary, path);
    return true;
  } catch (e) {
    const code = codeOf(e);
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') fail(e);
  } finally {
    await rm(temporary, { force: true });
  }
  try {
    await writeFile(path, content, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (e) {
    if (codeOf(e) === 'EEXIST') return false;
    return fail(e);
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
async function acquireLock(lockPath: string, journalPath: string, fileIdentity: string): Promise<string> {
  const token = `${process.pid} ${randomUUID()} ${fileIdentity}\n`;
  const takeoverPath = `${lockPath}.takeover`;
  for (let i = 0; i < 100; i++) {
    if (await createExclusive(lockPath, token, journalPath)) return token;
    const holder = await readLock(lockPath);
    if (holder === undefined) continue; // released meanwhile: try again
    const pid = lockPid(holder);
    if (pid !== undefined && (pid === process.pid || isProcessAlive(pid))) {
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
    if (taker !== undefined && taker !== process.pid && !isProcessAlive(taker)) await rm(takeoverPath, { force: true });
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
  /** Stops loading the journal (a large file): rejects with a JournalError, the lock released. */
  readonly signal?: AbortSignal;
}

/** A journal file opened by {@link openFileJournal}: a {@link Journal}, with what opening it found. */
export interface FileJournal extends Journal {
  keyOf(request: LinkRequestIdentity): string;
  /** Its format (3 for a new journal; 1 or 2 for a journal written by an older abha-link, continued in its format). */
  readonly version: 1 | 2 | 3;
  /** Bytes of a torn last line (a write cut short by a crash) removed on opening; 0 when none. */
  readonly tornBytesRemoved: number;
  /** The file's real path (symbolic links resolved): its lock is `<realPath>.lock`. */
  readonly realPath: string;
}

/** The real path of a journal that may not exist yet: its folder's real path and its name. */
async function realPathOf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (e) {
    if (codeOf(e) !== 'ENOENT') throw e;
    return join(await realpath(dirname(path)), basename(path));
  }
}

const identity = (st: { dev: number; ino: number }): string => `${st.dev}:${st.ino}`;

/** What openFileJournal finds under the lock: the journal's real path, the lock, its contents, salt and format. */
interface LockedJournal {
  readonly realPath: string;
  readonly lock: { readonly path: string; readonly token: string };
  readonly loaded: JournalContents;
  readonly salt: Buffer | undefined;
  readonly version: 1 | 2 | 3;
}

/**
 * Takes the lock of an opened journal file (checking that the name still
 * points at it and that it has one name), loads it, removes a torn last
 * line, and writes the header of a new journal. Closes the file and releases
 * the lock when it fails.
 *
 * @throws JournalError
 */
async function lockAndLoad(fh: FileHandle, path: string, options: FileJournalOptions): Promise<LockedJournal> {
  let lockPath: string | undefined;
  let lockToken: string | undefined;
  try {
    const realPath = await realPathOf(path).catch((e: unknown) => {
      throw new JournalError(`journal ${path}: cannot resolve its real path (${codeOf(e)})`);
    });
    const opened = await fh.stat();
    const hardLinks = (st: { nlink: number }): JournalError | undefined =>
      st.nlink > 1
        ? new JournalError(
            `journal ${path} has ${st.nlink} hard links (names): two batches could each lock one name and both send; keep one name (find its others with find / -samefile ${path}), or copy the journal to a new file`,
          )
        : undefined;
    const linked = hardLinks(opened);
    if (linked !== undefined) throw linked;
    lockPath = `${realPath}.lock`;
    lockToken = await acquireLock(lockPath, path, identity(opened));
    // Checked again under the lock: the name may have been pointed at another file, or linked, meanwhile.
    const now = await stat(realPath).catch(() => undefined);
    const again = await fh.stat();
    if (now === undefined || identity(now) !== identity(opened) || identity(again) !== identity(opened)) {
      throw new JournalError(`journal ${path}: the file changed while it was being opened (another file now has its name); try again`);
    }
    const linkedNow = hardLinks(again);
    if (linkedNow !== undefined) throw linkedNow;
    const loaded = await readFrom(fh, path, options.signal === undefined ? {} : { signal: options.signal });
    // A line cut short by a crash is removed, so that it does not end up in the middle.
    if (loaded.tornBytes > 0) await fh.truncate(loaded.size - loaded.tornBytes);
    if (!loaded.endsCleanly && loaded.tornBytes === 0) await fh.write('\n');
    const lock = { path: lockPath, token: lockToken };
    if (loaded.version !== 0) return { realPath, lock, loaded, salt: loaded.salt, version: loaded.version };
    // A new journal (or one holding no line yet): format 3, with a salt of its own.
    const salt = randomBytes(SALT_BYTES);
    await fh.truncate(0);
    await fh.write(headerLine(salt));
    await fh.sync();
    return { realPath, lock, loaded, salt, version: 3 };
  } catch (e) {
    await fh.close().catch(() => undefined);
    if (lockPath !== undefined && lockToken !== undefined) await releaseLock(lockPath, lockToken);
    if (e instanceof JournalError) throw e;
    throw new JournalError(`journal ${path}: cannot be opened for writing (${codeOf(e)})`);
  }
}

/**
 * Writes lines to an open journal: lines queued while a write runs are
 * grouped into one write and one fsync; each `write` resolves once its line
 * is on disk. After a failed write nothing more is written.
 */
function lineWriter(fh: FileHandle, path: string, fsync: boolean): { write(line: string): Promise<void>; drain(): Promise<void> } {
  const queue: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let writing: Promise<void> | undefined;

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
        for (let at = 0; at < bytes.length;) {
          const { bytesWritten } = await fh.write(bytes, at, bytes.length - at);
          if (bytesWritten <= 0) throw Object.assign(new Error('no progress writing the journal'), { code: 'EIO' });
          at += bytesWritten;
        }
        if (fsync) await fh.sync();
        for (const b of batch) b.resolve();
      } catch (e) {
        broken = new JournalError(`journal ${path}: cannot be written (${codeOf(e)})`);
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

  return {
    write: (line) =>
      new Promise<void>((resolve, reject) => {
        queue.push({ line, resolve, reject });
        kick();
      }),
    async drain() {
      while (writing !== undefined) await writing;
    },
  };
}

/**
 * Opens (or creates) a journal file for a batch.
 *
 * The lock belongs to the file, not to the name it was given: it is
 * `<real path>.lock` (symbolic links resolved, so two names linking to one
 * journal share one lock), it records the file's device and inode, and the
 * file opened is checked to be the file locked. A journal with more than one
 * hard link is refused: two names of one file would have two locks. A lock
 * left by a process that is gone is taken over (by one batch only, when
 * several find it together). Only a regular file is a journal (a named pipe
 * or a device is refused without blocking). Lines written concurrently are
 * grouped into one write and one fsync; each `append` resolves once its line
 * is on disk.
 *
 * @throws JournalError when locked by a running process, damaged, not a regular file, hard-linked, or unwritable
 * @example
 * const journal = await openFileJournal('links.journal')
 * await client.submitMany(items, { journal })
 * await journal.close()
 */
export async function openFileJournal(path: string, options: FileJournalOptions = {}): Promise<FileJournal> {
  let fh: FileHandle;
  try {
    // Created if missing (an empty file is an empty journal), so that the lock can be named by its real path.
    fh = await openRegular(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o600);
  } catch (e) {
    if (e instanceof JournalError) throw e;
    if (codeOf(e) === 'ENOENT') throw new JournalError(`journal ${path}: the folder ${dirname(path)} does not exist; create it first, or give another path`);
    throw new JournalError(`journal ${path}: cannot be opened for writing (${codeOf(e)})`);
  }
  const { realPath, lock, loaded, salt, version } = await lockAndLoad(fh, path, options);
  const writer = lineWriter(fh, path, options.fsync !== false);
  let closed = false;
  return {
    version,
    tornBytesRemoved: loaded.tornBytes,
    realPath,
    load: () => Promise.resolve(new Map(loaded.states)),
    keyOf: (request) => linkRequestKey(request, salt),
    append(entry) {
      if (closed) return Promise.reject(new JournalError(`journal ${path} is closed`));
      return writer.write(toLine(entry, version, salt));
    },
    async close() {
      if (closed) return;
      closed = true;
      await writer.drain();
      await fh.close();
      await releaseLock(lock.path, lock.token);
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
