/**
 * A throwaway PostgreSQL cluster for the queue's tests: Debian's binaries
 * (`/usr/lib/postgresql/<version>/bin`), `initdb` in a temporary directory,
 * the server listening on a Unix socket in that directory only (no TCP
 * port), stopped and removed by `stop()`. PostgreSQL refuses to run as root,
 * so as root the cluster runs as the `postgres` user (runuser).
 *
 * Started per test file that needs it (not in the global setup), so that
 * running other tests never pays for an initdb.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { WAIT_MS, lastLines } from './poll.js';

export interface TestPostgres {
  /** A connection URL for database `name` (created on demand by createDatabase). */
  url(name?: string): string;
  createDatabase(name: string): void;
  stop(): void;
}

/** The bin directory of the newest installed PostgreSQL, or undefined. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresMissing(): string | undefined {
  if (postgresBin() === undefined) return 'PostgreSQL is not installed (/usr/lib/postgresql/*/bin/postgres); .ci/run installs it';
  if (userInfo().uid === 0) {
    try {
      execFileSync('id', ['postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root without a postgres user to run the server as';
    }
  }
  return undefined;
}

/** Starts a cluster; throws when it cannot (check postgresMissing() first). */
export function startPostgres(): TestPostgres {
  const bin = postgresBin();
  if (bin === undefined) throw new Error('PostgreSQL is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'abha-link-pg-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const as = (cmd: string, args: string[]): void => {
    const file = join(bin, cmd);
    if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', file, ...args], { stdio: 'pipe' });
    else execFileSync(file, args, { stdio: 'pipe' });
  };
  const user = asRoot ? 'postgres' : userInfo().username;
  as('initdb', ['-D', data, '-A', 'trust', '-U', user, '--no-sync']);
  // pg_ctl -w waits for the server to accept connections (its event), up to -t seconds: generous for a loaded machine.
  const log = join(dir, 'log');
  try {
    as('pg_ctl', ['-D', data, '-w', '-t', String(WAIT_MS / 1000), '-s', '-l', log, '-o', `-k ${dir} -p 5432 -c listen_addresses='' -c max_connections=200 -c fsync=on`, 'start']);
  } catch (e) {
    const { status, stderr } = e as { status?: number | null; stderr?: Buffer };
    const serverLog = existsSync(log) ? readFileSync(log, 'utf8') : '';
    throw new Error(
      `PostgreSQL did not start: pg_ctl exited with ${status ?? 'no code'}\npg_ctl said:\n${lastLines(stderr?.toString() ?? '')}\nlast lines of the server log:\n${lastLines(serverLog)}`,
      { cause: e },
    );
  }
  const url = (name = 'postgres'): string => `postgresql://${user}@localhost/${name}?host=${encodeURIComponent(dir)}`;
  return {
    url,
    createDatabase(name: string): void {
      execFileSync(join(bin, 'psql'), ['-h', dir, '-U', user, '-d', 'postgres', '-qc', `CREATE DATABASE "${name}"`], { stdio: 'pipe' });
    },
    stop(): void {
      try {
        as('pg_ctl', ['-D', data, '-w', '-s', '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A file's cluster: started before its tests when PostgreSQL can run here, stopped after them. */
export interface FilePostgres {
  /** Why PostgreSQL tests are skipped here, or undefined. */
  readonly missing: string | undefined;
  /** The running cluster (undefined when missing, or once stopped). */
  get(): TestPostgres | undefined;
  /** Stops it now (a test of an outage); the file's end then has nothing to stop. */
  stopNow(): void;
}

/** Registers the hooks that start and stop a cluster for the calling test file. */
export function postgresForFile(): FilePostgres {
  const missing = postgresMissing();
  let server: TestPostgres | undefined;
  beforeAll(() => {
    if (missing === undefined) server = startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());
  return {
    missing,
    get: () => server,
    stopNow: () => {
      const s = server;
      server = undefined;
      s?.stop();
    },
  };
}
