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
import { QueueError } from './types.js';

/** A row as the drivers return it. */
export type Row = Record<string, unknown>;

/** A connection, or a transaction on one. */
export interface Sql {
  query(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

/** A database: queries, transactions, and close. */
export interface Database extends Sql {
  /** Runs `fn` in one transaction on one connection (committed when it resolves, rolled back when it rejects). */
  transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** `postgresql` or `embedded`. */
  readonly kind: 'postgresql' | 'embedded';
}

/** The SQLSTATE of a driver error (5 characters), when it has one. */
export function sqlStateOf(e: unknown): string | undefined {
  const code = e !== null && typeof e === 'object' ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** A QueueError for a driver error: what was being done, and the SQLSTATE or system code; never the driver's message. */
export function storageError(doing: string, e: unknown): QueueError {
  if (e instanceof QueueError) return e;
  const state = sqlStateOf(e);
  const sys = e !== null && typeof e === 'object' ? (e as { code?: unknown }).code : undefined;
  const code = state ?? (typeof sys === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(sys) ? sys : undefined);
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
  const pool = new pg.Pool({ connectionString: url, max, application_name: 'abha-link-queue' });
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

/**
 * Opens the embedded database (PGlite) in `dir`, made on first use.
 *
 * @throws QueueError `storage-failed` when it cannot be opened
 */
export async function openEmbedded(dir: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  let db: InstanceType<typeof PGlite>;
  try {
    db = await PGlite.create(dir);
  } catch (e) {
    throw storageError('opening the embedded database', e);
  }
  const query = async (text: string, params: readonly unknown[] = []): Promise<Row[]> => (await db.query<Row>(text, params as unknown[])).rows;
  return {
    kind: 'embedded',
    query,
    transaction: <T>(fn: (sql: Sql) => Promise<T>): Promise<T> => db.transaction((tx) => fn({ query: async (text, params = []) => (await tx.query<Row>(text, params as unknown[])).rows })),
    close: () => db.close(),
  };
}
