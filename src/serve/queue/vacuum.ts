/**
 * Vacuuming the embedded store. PGlite runs PostgreSQL in single-user mode:
 * no autovacuum, so nothing would ever reclaim the dead row versions that
 * every claim and outcome leaves in `abha_link_submissions`, nor gather the
 * planner's statistics. The worker's tick runs `VACUUM (ANALYZE)` of the
 * table itself when enough rows changed, with autovacuum's default rule.
 * PostgreSQL (`pg`) is left to its own autovacuum.
 *
 * PGlite's statistics of the table (pg_stat_user_tables) start empty at
 * every open, so the first check after an open runs once anything changed:
 * what died before the restart is not counted, and this catches it up.
 */
import { run, type Sql } from './sql.js';
import type { StoreMaintenance, TableActivity, VacuumRun } from './types.js';

/** The table vacuumed (the queue's other tables hardly change). */
const TABLE = 'abha_link_submissions';

/** Autovacuum's defaults: a vacuum once dead rows exceed 50 + 20 % of the rows; an analyze once changes exceed 50 + 10 %. */
export const VACUUM_RULE = { baseRows: 50, vacuumScale: 0.2, analyzeScale: 0.1 } as const;

/**
 * Reads the table's statistics. PostgreSQL sends a statement's counts to
 * them at most once a second; the first statement asks for them at once, so
 * that this reading includes every write before it.
 */
export async function tableActivity(sql: Sql): Promise<TableActivity> {
  await run(sql, 'reading its statistics', 'SELECT pg_stat_force_next_flush()');
  const rows = await run(
    sql,
    'reading its statistics',
    `SELECT greatest(c.reltuples, s.n_live_tup, 0)::bigint AS rows, s.n_dead_tup AS dead, s.n_mod_since_analyze AS changed, pg_total_relation_size(c.oid) AS bytes
     FROM pg_class AS c JOIN pg_stat_user_tables AS s ON s.relid = c.oid WHERE c.oid = '${TABLE}'::regclass`,
  );
  const r = rows[0] ?? {};
  return { rows: Number(r.rows ?? 0), deadRows: Number(r.dead ?? 0), changedRows: Number(r.changed ?? 0), bytes: Number(r.bytes ?? 0) };
}

/**
 * Whether a vacuum is due (pure): dead rows past autovacuum's vacuum
 * threshold, changes past its analyze threshold, or, at the first check
 * since the store opened, any change at all.
 *
 * @example
 * vacuumDue({ rows: 1000, deadRows: 251, changedRows: 251, bytes: 0 }, false) //=> true
 * vacuumDue({ rows: 1000, deadRows: 100, changedRows: 100, bytes: 0 }, false) //=> false
 */
export function vacuumDue(a: TableActivity, firstSinceOpen: boolean): boolean {
  const { baseRows, vacuumScale, analyzeScale } = VACUUM_RULE;
  if (firstSinceOpen) return a.deadRows > 0 || a.changedRows > 0;
  return a.deadRows > baseRows + vacuumScale * a.rows || a.changedRows > baseRows + analyzeScale * a.rows;
}

/**
 * Runs `VACUUM (ANALYZE)` of the table. VACUUM cannot run inside a
 * transaction: it goes through the database's `query`, which PGlite runs
 * only between transactions and statements (its one connection is taken by
 * one call at a time), and which the embedded store flushes to disk like
 * any write.
 */
export async function vacuumTable(sql: Sql): Promise<void> {
  await run(sql, 'vacuuming', `VACUUM (ANALYZE) ${TABLE}`);
}

/**
 * Vacuums one embedded store when due (see {@link vacuumDue}), at most
 * once per `everyMs`; counts its runs.
 */
export class Vacuumer {
  #nextCheck = 0;
  #runs = 0;
  #last: VacuumRun | undefined;

  constructor(
    readonly sql: Sql,
    readonly now: () => number,
    readonly everyMs: number,
  ) {}

  /** Checks the table and vacuums it when due; resolves to the run, or undefined when none was due (or the check is not yet). */
  async maybeVacuum(): Promise<VacuumRun | undefined> {
    if (this.now() < this.#nextCheck) return undefined;
    this.#nextCheck = this.now() + this.everyMs;
    const before = await tableActivity(this.sql);
    // Until the first run since the open, any change makes one (the statistics of before were lost).
    if (!vacuumDue(before, this.#runs === 0)) return undefined;
    const start = performance.now();
    await vacuumTable(this.sql);
    const ms = Math.round(performance.now() - start);
    const after = await tableActivity(this.sql);
    this.#runs++;
    return (this.#last = { rows: after.rows, deadRows: before.deadRows, ms });
  }

  /** The runs since the open and the table's statistics now. */
  async report(): Promise<StoreMaintenance> {
    return { vacuums: this.#runs, lastVacuum: this.#last, activity: await tableActivity(this.sql) };
  }
}
