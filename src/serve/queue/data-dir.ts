/**
 * The data directory of one replica: a lock (`queue.lock`, this process's
 * pid) so that two processes never use it at once, and the replica's id
 * (`replica-id`), kept across restarts: a replica that restarts after a
 * crash finds the items it was sending by this id, and reports them
 * `unknown`. A lock left by a process that is gone is taken over.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { QueueError } from './types.js';

const codeOf = (e: unknown): string => String((e as { code?: unknown } | null)?.code ?? 'unknown error');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return codeOf(e) === 'EPERM';
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
  release(): Promise<void>;
}

/**
 * Creates (if needed) and locks `dir`, and reads or makes the replica id.
 *
 * @throws QueueError `data-dir-in-use` when a live process holds it; `storage-failed` when it cannot be written
 */
export async function lockDataDir(dir: string, replicaId: string | undefined): Promise<DataDir> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new QueueError('storage-failed', `cannot create the data directory ${dir} (${codeOf(e)})`);
  }
  const lock = join(dir, 'queue.lock');
  const token = `${process.pid} ${randomUUID()}\n`;
  let taken = false;
  for (let i = 0; i < 5 && !taken; i++) {
    if (await createExclusive(lock, token)) taken = true;
    else {
      const holder = await readFile(lock, 'utf8').catch(() => undefined);
      const pid = Number(holder?.split(' ')[0]);
      const mine = pid === process.pid && !heldHere.has(resolve(dir));
      if (holder !== undefined && Number.isInteger(pid) && pid > 0 && !mine && alive(pid)) {
        throw new QueueError('data-dir-in-use', `the data directory ${dir} is in use by process ${pid}; give each replica its own --data directory`);
      }
      // Gone (a crash, a kill): taken over if it is still the lock found stale.
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
    release: async () => {
      heldHere.delete(resolve(dir));
      if ((await readFile(lock, 'utf8').catch(() => undefined)) === token) await rm(lock, { force: true });
    },
  };
}
