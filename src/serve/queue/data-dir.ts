/**
 * The data directory of one replica: private to the service's user (0700,
 * its files 0600; one that others can read is refused), a lock
 * (`queue.lock`: this process's pid and start time) so that two processes
 * never use it at once, and the replica's id (`replica-id`), kept across
 * restarts: a replica that restarts after a crash finds the items it was
 * sending by this id, and reports them `unknown`. A lock whose process is
 * gone, or whose pid now belongs to another process, is taken over.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { lstat, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isProcessAlive } from '../../process.js';
import { QueueError } from './types.js';

const codeOf = (e: unknown): string => String((e as { code?: unknown } | null)?.code ?? 'unknown error');

/** The start time of process `pid` (field 22 of /proc/PID/stat, in clock ticks since boot), or undefined without /proc. */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count the fields after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The command line of process `pid` (arguments joined by spaces), or undefined without /proc. */
function commandOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return undefined;
  }
}

/**
 * True when the lock's holder still runs: its pid is alive and, where /proc
 * tells, it is the very process that wrote the lock (same start time; a
 * lock of an older version, without one, must name a Node.js or abha-link
 * process). A pid reused by another process after a crash or a reboot is no holder.
 */
export function holderRunning(pid: number, startTime: string | undefined): boolean {
  if (!isProcessAlive(pid)) return false;
  const now = startTimeOf(pid);
  if (now === undefined) return true;
  if (startTime !== undefined) return now === startTime;
  return /abha-link|node/.test(commandOf(pid) ?? '');
}

/**
 * Makes every file under `dir` 0600 and every folder 0700 (files made by
 * earlier versions, or by PGlite, which sets their modes itself). The
 * embedded database has about a thousand files: synchronous calls take
 * milliseconds where a thousand trips through the thread pool take a second
 * on a busy machine.
 */
export async function makePrivate(dir: string): Promise<void> {
  makePrivateSync(dir);
}

function makePrivateSync(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      chmodSync(path, 0o700);
      makePrivateSync(path);
    } else if (entry.isFile()) chmodSync(path, 0o600);
  }
}

/**
 * Makes `dir` (0700) when missing, and refuses one that other users can
 * read, write or enter: the queue's database holds link requests.
 */
async function privateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // mkdir's mode passes through the umask: a missing dir is 0700 or narrower; an existing one is checked below.
    const info = await lstat(dir);
    if (!info.isDirectory()) throw new QueueError('storage-failed', `the data directory ${dir} is not a directory`);
    if ((info.mode & 0o077) !== 0 && process.platform !== 'win32') {
      const mode = (info.mode & 0o777).toString(8).padStart(3, '0');
      throw new QueueError('data-dir-unsafe', `the data directory ${dir} can be read by other users (mode ${mode}); it holds link requests: restrict it with chmod 700 ${dir}`);
    }
  } catch (e) {
    if (e instanceof QueueError) throw e;
    throw new QueueError('storage-failed', `cannot create the data directory ${dir} (${codeOf(e)})`);
  }
}

async function createExclusive(path: string, content: string): Promise<boolean> {
  try {
    await writeFile(path, content, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (e) {
    if (codeOf(e) === 'EEXIST') return false;
    throw new QueueError('storage-failed', `cannot create ${path} (${codeOf(e)})`);
  }
}

/** Data directories this process holds: a lock naming this process's pid but not held here is left by an earlier process that had the same pid (PID 1 in a container restarted after a kill). */
const heldHere = new Set<string>();

/** The data directory, locked. `release()` removes the lock if it is still this process's. */
export interface DataDir {
  readonly replicaId: string;
  /**
   * Makes the files in the directory private (see {@link makePrivate}); called before the database opens.
   *
   * @throws QueueError `storage-failed`
   */
  makePrivate(): Promise<void>;
  release(): Promise<void>;
}

/**
 * Creates (if needed, 0700) and locks `dir`, and reads or makes the
 * replica id; `makePrivate()` of the result makes its files private.
 *
 * @throws QueueError `data-dir-unsafe` when other users can read it; `data-dir-in-use` when a running process holds it; `storage-failed` when it cannot be written
 */
export async function lockDataDir(dir: string, replicaId: string | undefined): Promise<DataDir> {
  await privateDir(dir);
  const lock = join(dir, 'queue.lock');
  const token = `${process.pid} ${randomUUID()} ${startTimeOf(process.pid) ?? '-'}\n`;
  let taken = false;
  for (let i = 0; i < 5 && !taken; i++) {
    if (await createExclusive(lock, token)) taken = true;
    else {
      const holder = await readFile(lock, 'utf8').catch(() => undefined);
      const [pidText, , start] = (holder ?? '').trim().split(' ');
      const pid = Number(pidText);
      const mine = pid === process.pid && !heldHere.has(resolve(dir));
      if (holder !== undefined && Number.isInteger(pid) && pid > 0 && !mine && holderRunning(pid, start === '-' ? undefined : start)) {
        throw new QueueError('data-dir-in-use', `the data directory ${dir} is in use by process ${pid} (another abha-link serve); stop it first, or give each server its own --data directory`);
      }
      // Gone (a crash, a kill, a pid now another program's): taken over if it is still the lock found stale.
      if ((await readFile(lock, 'utf8').catch(() => undefined)) === holder) await rm(lock, { force: true });
    }
  }
  if (!taken) throw new QueueError('data-dir-in-use', `cannot take the lock ${lock}`);
  heldHere.add(resolve(dir));
  let id = replicaId;
  if (id === undefined) {
    const file = join(dir, 'replica-id');
    id = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (!/^[A-Za-z0-9._:-]{1,100}$/.test(id)) {
      id = randomUUID();
      await writeFile(file, `${id}\n`, { mode: 0o600 });
    }
  }
  return {
    replicaId: id,
    makePrivate: async () => {
      try {
        await makePrivate(dir);
      } catch (e) {
        throw new QueueError('storage-failed', `cannot restrict the files of the data directory ${dir} (${codeOf(e)})`);
      }
    },
    release: async () => {
      heldHere.delete(resolve(dir));
      if ((await readFile(lock, 'utf8').catch(() => undefined)) === token) await rm(lock, { force: true });
    },
  };
}
