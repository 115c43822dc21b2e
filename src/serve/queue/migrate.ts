/**
 * The queue's schema and its migrations, run at every start. Each migration
 * runs once: `abha_link_schema_version` records the versions applied. Two
 * replicas starting at once do not race: the whole check-and-apply runs in
 * one transaction under a transaction-level advisory lock, so the second
 * waits for the first, then finds the versions applied and does nothing.
 */
import { randomBytes } from 'node:crypto';
import { run, storageError, type Database } from './sql.js';

/** The advisory lock key of migrations (any fixed 64-bit number; 'abhalink' in ASCII). */
const MIGRATION_LOCK = '7017851726424320107';

/** The migrations, in order: version n is MIGRATIONS[n - 1]. Never edit one that shipped; add another. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE abha_link_queue_meta (
     name text PRIMARY KEY,
     value text NOT NULL
   );
   CREATE TABLE abha_link_submissions (
     id uuid PRIMARY KEY,
     item_key text NOT NULL UNIQUE,
     status text NOT NULL CHECK (status IN ('queued', 'sending', 'acknowledged', 'failed', 'unknown')),
     request jsonb,
     callback_url text,
     attempts integer NOT NULL DEFAULT 0,
     error_code text,
     error_message text,
     leased_by text,
     lease_until timestamptz,
     created_at timestamptz NOT NULL,
     updated_at timestamptz NOT NULL,
     callback_due boolean NOT NULL DEFAULT false,
     callback_attempts integer NOT NULL DEFAULT 0
   );
   CREATE INDEX abha_link_submissions_queued ON abha_link_submissions (created_at, id) WHERE status = 'queued';
   CREATE INDEX abha_link_submissions_sending ON abha_link_submissions (leased_by, lease_until) WHERE status = 'sending';
   CREATE INDEX abha_link_submissions_status ON abha_link_submissions (status, created_at);
   CREATE INDEX abha_link_submissions_callbacks ON abha_link_submissions (updated_at) WHERE callback_due;`,
  // 2: link requests stored encrypted (body: IV, ciphertext and tag of AES-256-GCM; body_key: the key's id),
  // and the SHA-256 of each request's canonical JSON, kept after the body is deleted. `request` (in clear)
  // is no longer written: rows of version 1 are sealed at start (sealLegacyRequests).
  `ALTER TABLE abha_link_submissions ADD COLUMN body bytea;
   ALTER TABLE abha_link_submissions ADD COLUMN body_key text;
   ALTER TABLE abha_link_submissions ADD COLUMN body_sha256 text;`,
  // 3: the status `already-linked` (issue 21): the service said the care contexts were linked before.
  `ALTER TABLE abha_link_submissions DROP CONSTRAINT abha_link_submissions_status_check;
   ALTER TABLE abha_link_submissions ADD CONSTRAINT abha_link_submissions_status_check
     CHECK (status IN ('queued', 'sending', 'acknowledged', 'already-linked', 'failed', 'unknown'));`,
  // 4: which visit a submission is, in clear (issue 21): visitId, hipId, the care contexts' referenceNumbers and
  // hiTypes (JSON arrays, one per care context), never the patient or clinical content; and the indexes of the
  // listing (newest first, by visit, by facility). Rows stored before keep NULL until backfillVisitFields.
  `ALTER TABLE abha_link_submissions ADD COLUMN visit_id text;
   ALTER TABLE abha_link_submissions ADD COLUMN hip_id text;
   ALTER TABLE abha_link_submissions ADD COLUMN care_context_refs jsonb;
   ALTER TABLE abha_link_submissions ADD COLUMN hi_types jsonb;
   CREATE INDEX abha_link_submissions_created ON abha_link_submissions (created_at, id);
   CREATE INDEX abha_link_submissions_visit ON abha_link_submissions (visit_id, created_at, id);
   CREATE INDEX abha_link_submissions_hip ON abha_link_submissions (hip_id, created_at, id);`,
];

/**
 * Brings the schema up to date (or up to version `upTo`: tests of an
 * upgrade make a database of an earlier version); resolves to the versions
 * it applied (none when it was already up to date) and the database's key salt.
 *
 * @throws QueueError `storage-failed`
 */
export async function migrate(db: Database, upTo: number = MIGRATIONS.length): Promise<{ applied: number[]; salt: Buffer }> {
  try {
    return await db.transaction(async (sql) => {
      await sql.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      await sql.query('CREATE TABLE IF NOT EXISTS abha_link_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      const rows = await sql.query('SELECT coalesce(max(version), 0) AS v FROM abha_link_schema_version');
      const current = Number(rows[0]?.v ?? 0);
      const applied: number[] = [];
      for (let v = current + 1; v <= Math.min(upTo, MIGRATIONS.length); v++) {
        for (const statement of (MIGRATIONS[v - 1] ?? '').split(/;\s*(?:\n|$)/).filter((s) => s.trim() !== '')) await sql.query(statement);
        await sql.query('INSERT INTO abha_link_schema_version (version) VALUES ($1)', [v]);
        applied.push(v);
      }
      // The salt of the items' keys: made once per database, shared by every replica.
      await sql.query(`INSERT INTO abha_link_queue_meta (name, value) VALUES ('key-salt', $1) ON CONFLICT (name) DO NOTHING`, [randomBytes(32).toString('hex')]);
      const salt = await sql.query(`SELECT value FROM abha_link_queue_meta WHERE name = 'key-salt'`);
      return { applied, salt: Buffer.from(String(salt[0]?.value ?? ''), 'hex') };
    });
  } catch (e) {
    throw storageError('migrating its schema', e);
  }
}

/** The schema version of the database (0 before the first migration). */
export async function schemaVersion(db: Database): Promise<number> {
  const rows = await run(db, 'reading the schema version', 'SELECT coalesce(max(version), 0) AS v FROM abha_link_schema_version');
  return Number(rows[0]?.v ?? 0);
}
