/**
 * Durability of the embedded store. PGlite runs PostgreSQL compiled to
 * WebAssembly on Emscripten's Node filesystem, which writes each page with
 * `fs.writeSync` and has no `fsync`: PostgreSQL's own flushes do nothing
 * (whatever its `fsync` setting), so a commit reaches the operating
 * system's page cache (it survives the process being killed) but not the
 * disk (a power cut can lose it). This module flushes the files after a
 * write instead: the write-ahead log after every write (what makes a commit
 * durable), and every file of the database when a checkpoint rewrote
 * `global/pg_control` (the log before the checkpoint may then be recycled).
 * Writes that complete while a flush runs share the next flush.
 */
import { open, readdir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** `full`: a write resolves once it is on disk; `relaxed`: once PostgreSQL committed it (lost by a power cut, kept through a crash). */
export type EmbeddedDurability = 'full' | 'relaxed';

/** The durabilities, for validating an option. */
export const EMBEDDED_DURABILITIES: readonly EmbeddedDurability[] = ['full', 'relaxed'];

/** `path` opened for reading, or undefined when it is gone (a WAL segment recycled or removed since the listing: nothing to flush). */
async function openIfThere(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Flushes one file or folder to disk (folders: so that a new file's name is durable too). */
async function flush(path: string): Promise<void> {
  const handle = await openIfThere(path);
  if (handle === undefined) return;
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Every file and folder under `dir` (the folders after their files), for a flush after a checkpoint. */
async function everyPath(dir: string): Promise<string[]> {
  const paths: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) paths.push(...(await everyPath(path)));
    else if (entry.isFile()) paths.push(path);
  }
  paths.push(dir);
  return paths;
}

/** PostgreSQL's PG_CONTROL_FILE_SIZE. */
const CONTROL_SIZE = 8192;

/** The bytes of `global/pg_control`, to tell a checkpoint (which rewrites it) from a plain write. */
async function readControl(handle: FileHandle): Promise<Buffer> {
  const buffer = Buffer.alloc(CONTROL_SIZE);
  const { bytesRead } = await handle.read(buffer, 0, CONTROL_SIZE, 0);
  return buffer.subarray(0, bytesRead);
}

/**
 * Flushes the database in `dir` (PGDATA) to disk. Calls while a flush runs
 * share the next one (which starts after it, so that it covers their
 * writes): many concurrent writes cost one flush (group commit).
 *
 * A plain write costs one round of flushes run at once: every segment of
 * the write-ahead log (`fdatasync`: they are preallocated, their size does
 * not change) and the log's folder, through handles kept open between
 * flushes. A checkpoint (seen as a change in pg_control's bytes) costs a
 * flush of every file, pg_control last.
 */
export class DiskFlusher {
  #control: Buffer | undefined;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;
  /** Open handles of pg_control, pg_wal and its segments, by path; dropped when the segments' names change (one was recycled or removed). */
  readonly #handles = new Map<string, FileHandle>();
  #segments = '';

  constructor(readonly dir: string) {}

  /** Resolves once everything written before the call is on disk. */
  flush(): Promise<void> {
    if (this.#running === undefined) return (this.#running = this.#flushNow().finally(() => (this.#running = undefined)));
    this.#next ??= this.#running.then(
      () => ((this.#next = undefined), this.flush()),
      () => ((this.#next = undefined), this.flush()),
    );
    return this.#next;
  }

  /** Waits for the flushes under way, then closes the handles it keeps open. */
  async close(): Promise<void> {
    await Promise.allSettled([this.#running, this.#next]);
    await this.#forget();
  }

  async #forget(): Promise<void> {
    const handles = [...this.#handles.values()];
    this.#handles.clear();
    await Promise.allSettled(handles.map((h) => h.close()));
  }

  /** A kept handle of `path` (opened for reading), or undefined when it is gone. */
  async #handle(path: string): Promise<FileHandle | undefined> {
    const kept = this.#handles.get(path);
    if (kept !== undefined) return kept;
    const handle = await openIfThere(path);
    if (handle !== undefined) this.#handles.set(path, handle);
    return handle;
  }

  async #flushNow(): Promise<void> {
    const controlPath = join(this.dir, 'global', 'pg_control');
    const wal = join(this.dir, 'pg_wal');
    const segments = (await readdir(wal, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(wal, e.name));
    const names = segments.join('\n');
    if (names !== this.#segments) {
      // A segment recycled (renamed) or removed: its kept handle may now name another file.
      await this.#forget();
      this.#segments = names;
    }
    const control = await this.#handle(controlPath);
    if (control === undefined) throw Object.assign(new Error('pg_control is missing'), { code: 'ENOENT' });
    const bytes = await readControl(control);
    if (this.#control === undefined || !bytes.equals(this.#control)) {
      // A checkpoint (or the first flush): every data file, then the log, then pg_control.
      for (const path of await everyPath(this.dir)) if (path !== controlPath) await flush(path);
      await control.sync();
      this.#control = bytes;
      return;
    }
    await Promise.all([...segments.map(async (path) => (await this.#handle(path))?.datasync()), this.#handle(wal).then((h) => h?.sync())]);
  }
}
