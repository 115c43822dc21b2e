/**
 * Prepared statements for the embedded store. PGlite's `query` parses and
 * plans every statement anew, and in WebAssembly that is most of a small
 * statement's cost (planning the worker's record-and-claim statement takes
 * longer than running it). Here each statement text is parsed once, as a
 * named statement of the session, and later runs send only its parameters
 * (Bind, Execute, Sync in one message to the database); with
 * `plan_cache_mode = force_generic_plan` (set by the caller) it is planned
 * once too, and planned again only when PostgreSQL invalidates the plan
 * (a schema change, fresh statistics after ANALYZE).
 */
import type { messages, PGlite, protocol } from '@electric-sql/pglite';
import type { Row } from './sql-base.js';

type Messages = Awaited<ReturnType<PGlite['execProtocol']>>['messages'];

/** A statement parsed in the session: its name, its parameters' types and its columns. */
interface Prepared {
  readonly name: string;
  readonly paramTypes: readonly number[];
  readonly fields: readonly { readonly name: string; readonly dataTypeID: number }[];
}

/** How many statement texts are kept prepared; texts past that run unprepared (the queue has a few dozen). */
const MAX_PREPARED = 200;

/** The protocol messages, one buffer (PGlite runs a buffer of several messages in one call). */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The rows of a run's messages, each value parsed by its type as PGlite's `query` does. */
function rowsOf(db: PGlite, fields: Prepared['fields'], messages: Messages): Row[] {
  const rows: Row[] = [];
  for (const m of messages) {
    if (m.name !== 'dataRow') continue;
    const values = (m as messages.DataRowMessage).fields;
    const row: Row = {};
    fields.forEach((f, i) => {
      const v = values[i];
      const parse = db.parsers[f.dataTypeID];
      row[f.name] = v === null || v === undefined ? null : parse === undefined ? v : parse(v, f.dataTypeID);
    });
    rows.push(row);
  }
  return rows;
}

/**
 * Runs statements of an open PGlite as prepared statements, each text
 * parsed once. A failed statement rejects with PGlite's DatabaseError (its
 * SQLSTATE in `code`; the caller reduces it) and leaves the session ready
 * for the next (its Sync is in the same message).
 */
export class PreparedStatements {
  readonly #statements = new Map<string, Prepared>();

  /** `serialize` is PGlite's `protocol.serialize` (given: the driver is loaded only when used). */
  constructor(
    readonly db: PGlite,
    readonly serialize: typeof protocol.serialize,
  ) {}

  /** Runs `text` with `params`, outside any transaction of PGlite's `transaction()` (it waits for one to end, as `query` does). */
  async query(text: string, params: readonly unknown[]): Promise<Row[]> {
    if (!this.#statements.has(text) && this.#statements.size >= MAX_PREPARED) return (await this.db.query<Row>(text, params as unknown[])).rows;
    // As PGlite's own `query`: checked, then in turn with its queries and transactions, in the order they were called.
    await this.db._checkReady();
    return this.db._runExclusiveTransaction(() => this.db._runExclusiveQuery(() => this.#run(text, params)));
  }

  async #prepare(text: string): Promise<Prepared> {
    const name = `abha_link_${this.#statements.size + 1}`;
    const serialize = this.serialize;
    const { messages } = await this.db.execProtocol(concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]), { syncToFs: false });
    const params = messages.find((m): m is messages.ParameterDescriptionMessage => m.name === 'parameterDescription');
    const columns = messages.find((m): m is messages.RowDescriptionMessage => m.name === 'rowDescription');
    const prepared: Prepared = {
      name,
      paramTypes: params?.dataTypeIDs ?? [],
      fields: (columns?.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
    };
    this.#statements.set(text, prepared);
    return prepared;
  }

  async #run(text: string, params: readonly unknown[]): Promise<Row[]> {
    const prepared = this.#statements.get(text) ?? (await this.#prepare(text));
    const values = params.map((p, i) => {
      if (p === null || p === undefined) return null;
      // Bytes go as they are (the Bind message's binary format), as node-postgres sends a Buffer.
      if (p instanceof Uint8Array) return p;
      const serialize = this.db.serializers[prepared.paramTypes[i] ?? 0];
      return serialize === undefined ? String(p) : serialize(p);
    });
    const serialize = this.serialize;
    const { messages } = await this.db.execProtocol(concat([serialize.bind({ statement: prepared.name, values }), serialize.execute({}), serialize.sync()]), { syncToFs: false });
    await this.db.syncToFs();
    return rowsOf(this.db, prepared.fields, messages);
  }
}
