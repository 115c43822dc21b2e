/**
 * One small interface over the two databases of the queue, so that both run
 * the same SQL: PostgreSQL through `pg` (a pool; several replicas share the
 * database) and PGlite (PostgreSQL compiled to WebAssembly, in the data
 * directory, one process). Both drivers are loaded only when used.
 *
 * A driver error is reduced to its SQLSTATE code before it goes anywhere:
 * PostgreSQL's messages can quote a row (a unique-violation names the key's
 * value), and rows hold link requests.
 */
import { makePrivate } from './data-dir.js';
import { DiskFlusher, type EmbeddedDurability } from './durable.js';
import { EmbeddedThread } from './embedded.js';
import { codeOf, sqlStateOf, type Row, type Sql } from './sql-base.js';
import { QueueError } from './types.js';

export { codeOf, sqlStateOf, type Row, type Sql } from './sql-base.js';

/** A database: queries, transactions, and close. */
export interface Database extends Sql {
  /** Runs `fn` in one transaction on one connection (committed when it resolves, rolled back when it rejects). */
  transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** `postgresql` or `embedded`. */
  readonly kind: 'postgresql' | 'embedded';
}

/** A QueueError for a driver error: what was being done, and the SQLSTATE or system code; never the driver's message. */
export function storageError(doing: string, e: unknown): QueueError {
  if (e instanceof QueueError) return e;
  const state = sqlStateOf(e);
  const code = codeOf(e);
  return new QueueError('storage-failed', `the queue's database failed while ${doing}${code === undefined ? '' : ` (${code})`}`, { sqlState: state });
}

/** Runs a statement, turning a driver error into a QueueError. */
export async function run(sql: Sql, doing: string, text: string, params: readonly unknown[] = []): Promise<Row[]> {
  try {
    return await sql.query(text, params);
  } catch (e) {
    throw storageError(doing, e);
  }
}

/**
 * Opens PostgreSQL at `url` with a pool of `max` connections.
 *
 * @throws QueueError `storage-failed` when the server cannot be reached
 */
export async function openPostgres(url: string, max: number): Promise<Database> {
  const pg = (await import('pg')).default;
  // A server that does not answer fails a request in seconds (a 503 to the caller), instead of holding it.
  const pool = new pg.Pool({ connectionString: url, max, application_name: 'abha-link-queue', connectionTimeoutMillis: 5000 });
  // An idle connection that breaks (a server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const query = async (text: string, params: readonly unknown[] = []): Promise<Row[]> => (await pool.query(text, params as unknown[])).rows as Row[];
  try {
    await query('SELECT 1');
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw storageError('connecting', e);
  }
  return {
    kind: 'postgresql',
    query,
    async transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn({ query: async (text, params = []) => (await client.query(text, params as unknown[])).rows as Row[] });
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** Embedded databases open in this process, and the umask before the first. */
let privateFiles: { open: number; umask: number } | undefined;

/**
 * While an embedded database is open, the process's umask is 077, so that
 * the folders PGlite makes are private. PGlite sets the modes of its files
 * itself (0666): they are made 0600 after it opens and after it closes, and
 * in between the data directory (0700) keeps other users out.
 */
function holdPrivateUmask(): () => void {
  try {
    if (privateFiles === undefined) privateFiles = { open: 0, umask: process.umask(0o077) };
    privateFiles.open++;
  } catch {
    // A worker thread cannot set the umask: the caller's umask stays, and the data directory (0700) still guards the files.
    return () => undefined;
  }
  let released = false;
  return () => {
    if (released || privateFiles === undefined) return;
    released = true;
    if (--privateFiles.open === 0) {
      process.umask(privateFiles.umask);
      privateFiles = undefined;
    }
  };
}

/** The embedded database: its thread can be ended as a crash would (tests). */
export interface EmbeddedDatabase extends Database {
  readonly thread: Pick<EmbeddedThread, 'kill'>;
}

/**
 * Opens the embedded database (PGlite) in `dir`, made on first use, in a
 * thread of its own (see EmbeddedThread): PostgreSQL's WebAssembly runs
 * beside the service's thread, which only sends statements and reads their
 * rows. Its files are made private to this user (see holdPrivateUmask: the
 * umask is the process's, held here while the thread makes them). With
 * `durability` `full` (the default) every write resolves once it is on
 * disk (see DiskFlusher); `relaxed` leaves that to the operating system.
 *
 * @throws QueueError `storage-failed` when it cannot be opened
 */
export async function openEmbedded(dir: string, durability: EmbeddedDurability = 'full'): Promise<EmbeddedDatabase> {
  const release = holdPrivateUmask();
  let thread: EmbeddedThread;
  try {
    thread = await EmbeddedThread.open(dir);
  } catch (e) {
    release();
    throw storageError('opening the embedded database', e);
  }
  try {
    await makePrivate(dir);
  } catch (e) {
    await thread.close().catch(() => undefined);
    release();
    throw storageError('restricting the files of the embedded database', e);
  }
  const flusher = durability === 'full' ? new DiskFlusher(dir) : undefined;
  const durable = async <T>(written: T, text?: string): Promise<T> => {
    if (flusher !== undefined && (text === undefined || !/^\s*SELECT\b/i.test(text))) await flusher.flush();
    return written;
  };
  return {
    kind: 'embedded',
    query: async (text, params = []) => durable(await thread.query(text, params), text),
    transaction: async <T>(fn: (sql: Sql) => Promise<T>): Promise<T> => durable(await thread.transaction(fn)),
    close: () =>
      thread
        .close()
        .then(() => flusher?.close())
        .then(() => makePrivate(dir))
        .finally(release),
    thread,
  };
}
