/**
 * What the queue's two drivers, its SQL and the embedded store's thread
 * share: the shape of a row and of a connection, and the reduction of a
 * driver error to its code (never its message, which can quote a row). A
 * module of its own, importing nothing, so that the thread (which must not
 * load the drivers' wrappers) and `sql.ts` (which starts the thread) both
 * use it without importing each other.
 */

/** A row as the drivers return it. */
export type Row = Record<string, unknown>;

/** A connection, or a transaction on one. */
export interface Sql {
  query(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

/** The SQLSTATE of a driver error (5 characters), when it has one. */
export function sqlStateOf(e: unknown): string | undefined {
  const code = e !== null && typeof e === 'object' ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** The code of an error, without its message: its SQLSTATE, or a system error code (`EIO`, `ENOSPC`). */
export function codeOf(e: unknown): string | undefined {
  const sys = e !== null && typeof e === 'object' ? (e as { code?: unknown }).code : undefined;
  return sqlStateOf(e) ?? (typeof sys === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(sys) ? sys : undefined);
}
