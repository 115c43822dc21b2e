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
 */
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** `full`: a write resolves once it is on disk; `relaxed`: once PostgreSQL committed it (lost by a power cut, kept through a crash). */
export type EmbeddedDurability = 'full' | 'relaxed';

/** The durabilities, for validating an option. */
export const EMBEDDED_DURABILITIES: readonly EmbeddedDurability[] = ['full', 'relaxed'];

/** Flushes one file or folder to disk (folders: so that a new file's name is durable too). */
async function flush(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (e) {
    // A WAL segment recycled (renamed) or removed between the listing and here: nothing to flush.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
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

/**
 * Flushes the database in `dir` (PGDATA) to disk. Calls while a flush runs
 * share the next one (which starts after it, so that it covers their
 * writes): many concurrent writes cost one flush.
 */
export class DiskFlusher {
  #controlChanged = -1;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

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

  async #flushNow(): Promise<void> {
    const control = join(this.dir, 'global', 'pg_control');
    const changed = (await stat(control)).mtimeMs;
    const wal = join(this.dir, 'pg_wal');
    if (changed !== this.#controlChanged) {
      // A checkpoint (or the first flush): every data file, then the log, then pg_control.
      for (const path of await everyPath(this.dir)) if (path !== control) await flush(path);
      this.#controlChanged = changed;
    } else {
      const segments = (await readdir(wal, { withFileTypes: true })).filter((e) => e.isFile());
      for (const segment of segments) await flush(join(wal, segment.name));
      await flush(wal);
    }
    await flush(control);
  }
}
