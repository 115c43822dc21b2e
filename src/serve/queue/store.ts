/**
 * The queue's statements: the same SQL for PostgreSQL and the embedded
 * store. Claiming uses `FOR UPDATE SKIP LOCKED`, so that replicas claiming
 * at once take different items; every write that ends a send is guarded by
 * the lease (`leased_by`, `attempts`), so that a replica can never overwrite
 * an item another replica claimed since.
 */
import type { SealedBody } from './data-key.js';
import type { ListFilter, VisitFields } from './listing.js';
import { DAY_OFFSET_MINUTES, encodeCursor } from './listing.js';
import { run, type Row, type Sql } from './sql.js';
import { SUBMISSION_STATUSES, type Ledger, type LedgerRow, type Submission, type SubmissionPage, type SubmissionStatus } from './types.js';

const COLUMNS = 'id, status, attempts, error_code, error_message, created_at, updated_at, body_sha256, visit_id, hip_id, care_context_refs, hi_types';

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

/** A jsonb array of strings as the drivers return it (parsed), or [] for NULL. */
function strings(v: unknown): string[] {
  const list: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
}

/** A row of abha_link_submissions as the API shows it. */
export function toSubmission(row: Row): Submission {
  const code = row.error_code;
  return {
    id: String(row.id),
    status: row.status as SubmissionStatus,
    attempts: Number(row.attempts),
    ...(typeof code === 'string' ? { error: { code, message: String(row.error_message ?? '') } } : {}),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    ...(typeof row.visit_id === 'string' ? { visitId: row.visit_id } : {}),
    ...(typeof row.hip_id === 'string' ? { hipId: row.hip_id } : {}),
    careContextReferences: strings(row.care_context_refs),
    hiTypes: [...new Set(strings(row.hi_types))],
  };
}

/** A submission to store: its request sealed (encrypted), and the SHA-256 of the request's canonical JSON. */
export interface NewSubmission {
  readonly id: string;
  readonly key: string;
  readonly body: SealedBody;
  readonly sha256: string;
  readonly callbackUrl: string | undefined;
  readonly now: Date;
  /** Which visit it is (kept in clear: no patient, no clinical content). */
  readonly visit: VisitFields;
}

/**
 * Inserts submissions in one statement (group commit), each unless one with
 * its key exists; resolves to the row stored for each, in order, and
 * whether this call made it. Two items with one key in a batch: the first
 * is made, the second gets it.
 */
export async function insertSubmissions(sql: Sql, items: readonly NewSubmission[]): Promise<{ row: Row; created: boolean }[]> {
  // The requests travel as one binary parameter (each a slice of it): sent as bytes, not as hex text in an array,
  // which costs the embedded store's driver more than the insert itself.
  const bodies = items.map((i) => Buffer.from(i.body.hex, 'hex'));
  let offset = 1;
  const starts = bodies.map((b) => ((offset += b.length), offset - b.length));
  const inserted = await run(
    sql,
    'storing submissions',
    `INSERT INTO abha_link_submissions (id, item_key, status, body, body_key, body_sha256, callback_url, created_at, updated_at, visit_id, hip_id, care_context_refs, hi_types)
     SELECT id, item_key, 'queued', substring($12::bytea FROM body_start FOR body_length), body_key, body_sha256, callback_url, at, at, visit_id, hip_id, refs::jsonb, hi_types::jsonb
     FROM unnest($1::uuid[], $2::text[], $3::integer[], $4::integer[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::text[], $10::text[], $11::text[], $13::text[])
       WITH ORDINALITY AS t(id, item_key, body_start, body_length, body_sha256, callback_url, at, visit_id, hip_id, refs, hi_types, body_key, n)
     ORDER BY n
     ON CONFLICT (item_key) DO NOTHING RETURNING ${COLUMNS}`,
    [
      items.map((i) => i.id),
      items.map((i) => i.key),
      starts,
      bodies.map((b) => b.length),
      items.map((i) => i.sha256),
      items.map((i) => i.callbackUrl ?? null),
      items.map((i) => i.now.toISOString()),
      items.map((i) => i.visit.visitId),
      items.map((i) => i.visit.hipId),
      items.map((i) => JSON.stringify(i.visit.careContextReferences)),
      items.map((i) => JSON.stringify(i.visit.hiTypes)),
      Buffer.concat(bodies),
      items.map((i) => i.body.keyId),
    ],
  );
  const made = new Map(inserted.map((r) => [String(r.id), r]));
  const missing = [...new Set(items.filter((i) => !made.has(i.id)).map((i) => i.key))];
  // Stored before (or by a concurrent insert that committed meanwhile: this statement's snapshot is newer).
  const found = new Map<string, Row>();
  if (missing.length > 0) {
    const rows = await run(sql, 'reading submissions', `SELECT ${COLUMNS}, item_key FROM abha_link_submissions WHERE item_key = ANY($1::text[])`, [missing]);
    for (const r of rows) found.set(String(r.item_key), r);
  }
  const byKey = new Map<string, Row>();
  for (const i of items) {
    const r = made.get(i.id);
    if (r !== undefined) byKey.set(i.key, r);
  }
  return items.map((i) => {
    const mine = made.get(i.id);
    if (mine !== undefined) return { row: mine, created: true };
    const row = byKey.get(i.key) ?? found.get(i.key);
    if (row === undefined) throw new Error('a submission that conflicted on insert is not there');
    return { row, created: false };
  });
}

export async function getSubmission(sql: Sql, id: string): Promise<Row | undefined> {
  return (await run(sql, 'reading a submission', `SELECT ${COLUMNS} FROM abha_link_submissions WHERE id = $1`, [id]))[0];
}

/** The conditions of a filter on createdAt, status, visitId and hipId, and their parameters (from $1). */
function filterSql(filter: Partial<ListFilter>): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const conditions: string[] = [];
  const add = (condition: (n: number) => string, ...values: unknown[]): void => {
    params.push(...values);
    conditions.push(condition(params.length - values.length + 1));
  };
  if (filter.status !== undefined) add((n) => `status = $${n}`, filter.status);
  if (filter.from !== undefined) add((n) => `created_at >= $${n}::timestamptz`, filter.from.toISOString());
  if (filter.to !== undefined) add((n) => `created_at < $${n}::timestamptz`, filter.to.toISOString());
  if (filter.visitId !== undefined) add((n) => `visit_id = $${n}`, filter.visitId);
  if (filter.hipId !== undefined) add((n) => `hip_id = $${n}`, filter.hipId);
  if (filter.after !== undefined) add((n) => `(created_at, id) < ($${n}::timestamptz, $${n + 1}::uuid)`, filter.after.createdAt, filter.after.id);
  return { where: conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`, params };
}

/**
 * A page of submissions, newest first (createdAt, then id): one more row is
 * read than asked for, so that the last page has no `nextCursor`. The cursor
 * holds the last row's createdAt to the microsecond and its id: the next page
 * starts strictly after it, whatever was stored since.
 */
export async function listSubmissions(sql: Sql, filter: ListFilter): Promise<SubmissionPage> {
  const { where, params } = filterSql(filter);
  const rows = await run(
    sql,
    'listing submissions',
    `SELECT ${COLUMNS}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_exact
     FROM abha_link_submissions ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1}`,
    [...params, filter.limit + 1],
  );
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  const more = rows.length > filter.limit && last !== undefined;
  return { submissions: page.map(toSubmission), ...(more ? { nextCursor: encodeCursor({ createdAt: String(last.created_exact), id: String(last.id) }) } : {}) };
}

/**
 * The daily ledger of the submissions made in a range: care contexts by day
 * (in India), status and hiType; a submission whose care contexts are not
 * known (hi_types NULL) counts one, without a hiType.
 */
export async function ledgerOf(sql: Sql, range: Pick<ListFilter, 'from' | 'to'>): Promise<Ledger> {
  const { where, params } = filterSql(range);
  const rows = await run(
    sql,
    'counting the ledger',
    `SELECT to_char((s.created_at AT TIME ZONE 'UTC') + interval '${DAY_OFFSET_MINUTES} minutes', 'YYYY-MM-DD') AS day, s.status, h.hi_type, count(*) AS n
     FROM abha_link_submissions AS s LEFT JOIN LATERAL jsonb_array_elements_text(s.hi_types) AS h(hi_type) ON true
     ${where} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    params,
  );
  const submissions = await run(sql, 'counting the ledger', `SELECT count(*) AS n FROM abha_link_submissions ${where}`, params);
  const days: LedgerRow[] = rows.map((r) => ({
    day: String(r.day),
    status: r.status as SubmissionStatus,
    ...(typeof r.hi_type === 'string' ? { hiType: r.hi_type } : {}),
    count: Number(r.n),
  }));
  return { days, total: days.reduce((sum, r) => sum + r.count, 0), submissions: Number(submissions[0]?.n ?? 0) };
}

export async function countSubmissions(sql: Sql): Promise<Record<SubmissionStatus, number>> {
  const rows = await run(sql, 'counting submissions', 'SELECT status, count(*) AS n FROM abha_link_submissions GROUP BY status');
  const counts = Object.fromEntries(SUBMISSION_STATUSES.map((s) => [s, 0])) as Record<SubmissionStatus, number>;
  for (const r of rows) counts[r.status as SubmissionStatus] = Number(r.n);
  return counts;
}

/** A claimed item: to be sent now (its request still sealed). */
export interface Claimed {
  readonly id: string;
  readonly attempts: number;
  readonly body: SealedBody | undefined;
  readonly callbackUrl: string | undefined;
  /** For the log lines of its outcome. */
  readonly visitId: string | undefined;
}

const sealedOf = (r: Row): SealedBody | undefined => (typeof r.body_hex === 'string' && typeof r.body_key === 'string' ? { keyId: r.body_key, hex: r.body_hex } : undefined);

/** The end of one send. */
export interface Outcome {
  readonly id: string;
  readonly attempts: number;
  readonly status: 'acknowledged' | 'already-linked' | 'failed' | 'unknown';
  readonly code: string | null;
  readonly message: string | null;
}

/**
 * One cycle of a replica's worker in one statement (one commit, one flush of
 * the embedded store): records the outcomes of sends, then claims up to `n`
 * queued items (none when `n` is 0) and resolves to them.
 *
 * Recording: only rows this replica still holds for that very attempt are
 * written: `sending`, or `unknown` because another replica found the lease
 * expired meanwhile (the answer that came is then the truth). An
 * acknowledged (or already linked) item's request is deleted: it is not
 * needed again, and it is health data. A failed or unknown one keeps it for
 * a retry or a replacement, until {@link expireBodies}.
 *
 * Claiming: queued items sealed with one of `keyIds`, oldest first; each
 * becomes `sending`, leased by `replica` until `leaseUntil`, its attempts
 * counted, before any request leaves. Items sealed with a key this replica
 * lacks stay queued for a replica that has it. The two parts touch disjoint
 * rows (`sending`/`unknown` and `queued`), so they share one snapshot safely.
 */
export async function recordAndClaim(
  sql: Sql,
  cycle: { readonly replica: string; readonly outcomes: readonly Outcome[]; readonly keyIds: readonly string[]; readonly n: number; readonly now: Date; readonly leaseUntil: Date },
): Promise<Claimed[]> {
  const { replica, outcomes, keyIds, n, now, leaseUntil } = cycle;
  const rows = await run(
    sql,
    outcomes.length === 0 ? 'claiming queued items' : 'recording outcomes and claiming queued items',
    `WITH recorded AS (
       UPDATE abha_link_submissions AS s SET status = o.status, error_code = o.code, error_message = o.message, lease_until = NULL, updated_at = $3,
         body = CASE WHEN o.status IN ('acknowledged', 'already-linked') THEN NULL ELSE s.body END,
         body_key = CASE WHEN o.status IN ('acknowledged', 'already-linked') THEN NULL ELSE s.body_key END, request = NULL,
         callback_due = s.callback_url IS NOT NULL, callback_attempts = 0
       FROM unnest($4::uuid[], $5::integer[], $6::text[], $7::text[], $8::text[]) AS o(id, attempts, status, code, message)
       WHERE s.id = ANY($4::uuid[]) AND s.id = o.id AND s.attempts = o.attempts AND s.leased_by = $1 AND s.status IN ('sending', 'unknown')
       RETURNING s.id
     )
     UPDATE abha_link_submissions SET status = 'sending', leased_by = $1, lease_until = $2, attempts = attempts + 1, updated_at = $3,
       error_code = NULL, error_message = NULL
     WHERE id = ANY(ARRAY(SELECT id FROM abha_link_submissions WHERE status = 'queued' AND body_key = ANY($10::text[]) ORDER BY created_at, id LIMIT $9 FOR UPDATE SKIP LOCKED))
     RETURNING id, attempts, encode(body, 'hex') AS body_hex, body_key, callback_url, visit_id`,
    [
      replica,
      leaseUntil.toISOString(),
      now.toISOString(),
      outcomes.map((o) => o.id),
      outcomes.map((o) => o.attempts),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.code),
      outcomes.map((o) => o.message),
      n,
      keyIds,
    ],
  );
  return rows.map((r) => ({
    id: String(r.id),
    attempts: Number(r.attempts),
    body: sealedOf(r),
    callbackUrl: typeof r.callback_url === 'string' ? r.callback_url : undefined,
    visitId: typeof r.visit_id === 'string' ? r.visit_id : undefined,
  }));
}

/** Extends the leases of the items this replica is sending. */
export async function renewLeases(sql: Sql, replica: string, leaseUntil: Date): Promise<void> {
  await run(sql, 'renewing leases', `UPDATE abha_link_submissions SET lease_until = $2 WHERE status = 'sending' AND leased_by = $1`, [replica, leaseUntil.toISOString()]);
}

const UNKNOWN_SET = `status = 'unknown', error_code = $1, error_message = $2, updated_at = $3, callback_due = callback_url IS NOT NULL, callback_attempts = 0`;

/** An item made `unknown` by the queue itself, for its log line. */
export interface MadeUnknown {
  readonly id: string;
  readonly visitId: string | undefined;
  readonly code: 'lease-expired' | 'replica-restarted';
}

const madeUnknown = (rows: Row[], code: MadeUnknown['code']): MadeUnknown[] => rows.map((r) => ({ id: String(r.id), visitId: typeof r.visit_id === 'string' ? r.visit_id : undefined, code }));

/**
 * Items whose lease ran out (their replica died, or lost the database)
 * become `unknown`: they may have been sent. Never queued again.
 */
export async function expireLeases(sql: Sql, now: Date): Promise<MadeUnknown[]> {
  const rows = await run(sql, 'expiring leases', `UPDATE abha_link_submissions SET ${UNKNOWN_SET} WHERE status = 'sending' AND lease_until < $3 RETURNING id, visit_id`, [
    'lease-expired',
    'the replica sending it stopped before recording an answer (its lease ran out); it may have been sent, so it is not sent again',
    now.toISOString(),
  ]);
  return madeUnknown(rows, 'lease-expired');
}

/** At the start of a replica: the items it was sending when it stopped become `unknown`. */
export async function orphansOf(sql: Sql, replica: string, now: Date): Promise<MadeUnknown[]> {
  const rows = await run(sql, 'recovering after a restart', `UPDATE abha_link_submissions SET ${UNKNOWN_SET} WHERE status = 'sending' AND leased_by = $4 RETURNING id, visit_id`, [
    'replica-restarted',
    'the replica sending it stopped before recording an answer; it may have been sent, so it is not sent again',
    now.toISOString(),
    replica,
  ]);
  return madeUnknown(rows, 'replica-restarted');
}

/** Queues an `unknown` or `failed` item again, with exactly its stored request; resolves to the row, or why not. */
export async function requeue(sql: Sql, id: string, now: Date): Promise<Row | 'not-found' | 'not-retryable'> {
  const rows = await run(
    sql,
    'queueing a submission again',
    `UPDATE abha_link_submissions SET status = 'queued', leased_by = NULL, lease_until = NULL, error_code = NULL, error_message = NULL, updated_at = $2,
       callback_due = false
     WHERE id = $1 AND status IN ('unknown', 'failed') AND body IS NOT NULL RETURNING ${COLUMNS}`,
    [id, now.toISOString()],
  );
  if (rows[0] !== undefined) return rows[0];
  return (await getSubmission(sql, id)) === undefined ? 'not-found' : 'not-retryable';
}

/**
 * Replaces the stored request of a `failed` item of key `key` with `body`,
 * and queues it; resolves to the row, or why not.
 */
export async function replaceBody(
  sql: Sql,
  id: string,
  key: string,
  replacement: { readonly body: SealedBody; readonly sha256: string; readonly visit: VisitFields },
  now: Date,
): Promise<Row | 'not-found' | 'not-replaceable' | 'different-item'> {
  const { body, sha256, visit } = replacement;
  const rows = await run(
    sql,
    'replacing a submission',
    `UPDATE abha_link_submissions SET status = 'queued', body = decode($3, 'hex'), body_key = $4, body_sha256 = $5, leased_by = NULL, lease_until = NULL,
       error_code = NULL, error_message = NULL, updated_at = $6, callback_due = false, care_context_refs = $7::jsonb, hi_types = $8::jsonb
     WHERE id = $1 AND item_key = $2 AND status = 'failed' RETURNING ${COLUMNS}`,
    [id, key, body.hex, body.keyId, sha256, now.toISOString(), JSON.stringify(visit.careContextReferences), JSON.stringify(visit.hiTypes)],
  );
  if (rows[0] !== undefined) return rows[0];
  const found = (await run(sql, 'reading a submission', `SELECT status, item_key FROM abha_link_submissions WHERE id = $1`, [id]))[0];
  if (found === undefined) return 'not-found';
  return found.status !== 'failed' ? 'not-replaceable' : 'different-item';
}

/** Deletes the stored requests of `failed` and `unknown` items last changed before `before`; resolves to how many. */
export async function expireBodies(sql: Sql, before: Date): Promise<number> {
  const rows = await run(
    sql,
    'deleting old requests',
    `UPDATE abha_link_submissions SET body = NULL, body_key = NULL WHERE status IN ('failed', 'unknown') AND body IS NOT NULL AND updated_at < $1 RETURNING id`,
    [before.toISOString()],
  );
  return rows.length;
}

/**
 * Seals the requests that versions before migration 2 stored in clear
 * (`request`): each becomes a sealed body and its hash, and `request` is
 * cleared. Resolves to how many.
 */
export async function sealLegacyRequests(sql: Sql, seal: (id: string, request: unknown) => { body: SealedBody; sha256: string }): Promise<number> {
  const rows = await run(sql, 'reading requests stored in clear', 'SELECT id, request::text AS request FROM abha_link_submissions WHERE request IS NOT NULL');
  for (const r of rows) {
    const { body, sha256 } = seal(String(r.id), JSON.parse(String(r.request)));
    await run(sql, 'sealing a request stored in clear', `UPDATE abha_link_submissions SET body = decode($2, 'hex'), body_key = $3, body_sha256 = $4, request = NULL WHERE id = $1`, [
      r.id,
      body.hex,
      body.keyId,
      sha256,
    ]);
  }
  return rows.length;
}

/**
 * Fills the visit fields of rows stored before migration 4 that still hold
 * their request (queued, failed, unknown), from the request opened with
 * `open`; rows whose request is gone (done) or cannot be opened stay
 * without them. Resolves to how many were filled.
 */
export async function backfillVisitFields(sql: Sql, open: (id: string, body: SealedBody) => VisitFields | undefined): Promise<number> {
  const rows = await run(sql, 'reading requests to fill in their visit', `SELECT id, encode(body, 'hex') AS body_hex, body_key FROM abha_link_submissions WHERE hip_id IS NULL AND body IS NOT NULL`);
  let filled = 0;
  for (const r of rows) {
    const sealed = sealedOf(r);
    const visit = sealed === undefined ? undefined : open(String(r.id), sealed);
    if (visit === undefined) continue;
    await run(sql, 'filling in the visit of a submission', `UPDATE abha_link_submissions SET visit_id = $2, hip_id = $3, care_context_refs = $4::jsonb, hi_types = $5::jsonb WHERE id = $1`, [
      r.id,
      visit.visitId,
      visit.hipId,
      JSON.stringify(visit.careContextReferences),
      JSON.stringify(visit.hiTypes),
    ]);
    filled++;
  }
  return filled;
}

/** Callbacks to deliver: final submissions with `callback_due`, claimed until `leaseUntil` (then tried again). */
export async function claimCallbacks(sql: Sql, n: number, now: Date, leaseUntil: Date): Promise<(Row & { callback_url: string })[]> {
  return (await run(
    sql,
    'claiming callbacks',
    `UPDATE abha_link_submissions SET lease_until = $1, callback_attempts = callback_attempts + 1
     WHERE id IN (SELECT id FROM abha_link_submissions WHERE callback_due AND status IN ('acknowledged', 'already-linked', 'failed', 'unknown')
                    AND (lease_until IS NULL OR lease_until < $2) ORDER BY updated_at LIMIT $3 FOR UPDATE SKIP LOCKED)
     RETURNING ${COLUMNS}, callback_url, callback_attempts`,
    [leaseUntil.toISOString(), now.toISOString(), n],
  )) as (Row & { callback_url: string })[];
}

/** A callback delivered, or given up: no longer due. Otherwise its lease lapses and it is tried again. */
export async function callbackDone(sql: Sql, id: string, updatedAt: string): Promise<void> {
  await run(sql, 'recording a callback', `UPDATE abha_link_submissions SET callback_due = false, lease_until = NULL WHERE id = $1 AND updated_at = $2`, [id, updatedAt]);
}
