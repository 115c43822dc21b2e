/**
 * The queue at scale (issue 21): 10,000 submissions stored at once through
 * the store (one transaction), then paged with the cursor (no row twice,
 * none missed, even with submissions arriving while paging), filtered by
 * status, time range, visitId and hipId, and counted by the daily ledger,
 * whose counts must add up to them; on the embedded store and on a real
 * PostgreSQL started for this file. Then the HTTP routes over the same
 * queue: the token, bad and hostile query values, CSV.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeApp } from '../src/serve/app.js';
import { dataKeys } from '../src/serve/queue/data-key.js';
import { DAY_OFFSET_MINUTES, encodeCursor } from '../src/serve/queue/listing.js';
import { migrate } from '../src/serve/queue/migrate.js';
import { openEmbedded, openPostgres, type Database } from '../src/serve/queue/sql.js';
import { insertSubmissions } from '../src/serve/queue/store.js';
import { SUBMISSION_STATUSES, openQueue, type ListOptions, type Queue, type Submission, type SubmissionStatus } from '../src/serve/queue/index.js';
import { exampleRequest } from './support/mock-suite.js';
import { postgresForFile } from './support/postgres.js';

const N = 10_000;
const HI_TYPES = ['Prescription', 'DiagnosticReport', 'OPConsultation'];
const START = Date.parse('2026-11-20T00:00:00+05:30');
const DAY_MS = 86_400_000;

/** One stored submission as the test made it, to compute what every listing and the ledger must say. */
interface Made {
  readonly id: string;
  readonly visitId: string;
  readonly hipId: string;
  readonly refs: string[];
  readonly hiTypes: string[];
  readonly at: number;
  readonly status: SubmissionStatus;
  /** Stored as an earlier version would have (no visit fields, its request gone). */
  readonly legacy: boolean;
}

/** The 10,000: pairs share a createdAt (the id breaks the tie), 43 s apart, from 20 to 22 November in India; every tenth has two care contexts. */
function made(): Made[] {
  return Array.from({ length: N }, (_, i) => {
    const visitId = `V-${String(i).padStart(5, '0')}`;
    const two = i % 10 === 0;
    return {
      id: randomUUID(),
      visitId,
      hipId: i % 4 === 0 ? 'HIP-B' : 'HIP-A',
      refs: two ? [`${visitId}-1`, `${visitId}-2`] : [`${visitId}-1`],
      hiTypes: two ? ['OPConsultation', 'Prescription'] : [HI_TYPES[i % 3] ?? 'Prescription'],
      at: START + Math.floor(i / 2) * 43_000,
      status: SUBMISSION_STATUSES[i % SUBMISSION_STATUSES.length] ?? 'queued',
      legacy: i % 1000 === 7,
    };
  });
}

/** Stores them in one transaction through the store, then sets their statuses and makes the legacy ones as version 3 left them. */
async function store(db: Database, items: readonly Made[]): Promise<void> {
  await db.transaction(async (sql) => {
    await insertSubmissions(
      sql,
      items.map((m) => ({
        id: m.id,
        key: `k2:${m.id}`,
        body: { keyId: 'test', hex: '00' },
        sha256: '0'.repeat(64),
        callbackUrl: undefined,
        now: new Date(m.at),
        visit: { visitId: m.visitId, hipId: m.hipId, careContextReferences: m.refs, hiTypes: m.hiTypes },
      })),
    );
    for (const status of SUBMISSION_STATUSES) {
      await sql.query('UPDATE abha_link_submissions SET status = $2 WHERE id = ANY($1::uuid[])', [items.filter((m) => m.status === status).map((m) => m.id), status]);
    }
    const legacy = items.filter((m) => m.legacy).map((m) => m.id);
    await sql.query('UPDATE abha_link_submissions SET visit_id = NULL, hip_id = NULL, care_context_refs = NULL, hi_types = NULL, body = NULL WHERE id = ANY($1::uuid[])', [legacy]);
  });
}

/** Every page of a listing, in order; `between` runs after each page (to store more while paging). */
async function allPages(queue: Queue, options: ListOptions, between: (page: number) => Promise<void> = async () => undefined): Promise<Submission[]> {
  const out: Submission[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await queue.list({ ...options, ...(cursor === undefined ? {} : { cursor }) });
    out.push(...r.submissions);
    if (r.nextCursor === undefined) return out;
    expect(r.submissions).toHaveLength(options.limit ?? 100);
    cursor = r.nextCursor;
    await between(page);
  }
  throw new Error('more than 100 pages');
}

/** The day in India of an instant (YYYY-MM-DD). */
const indiaDay = (at: number): string => new Date(at + DAY_OFFSET_MINUTES * 60_000).toISOString().slice(0, 10);
const ids = (list: readonly { id: string }[]): string[] => list.map((s) => s.id).sort();

const root = mkdtempSync(join(tmpdir(), 'abha-link-listing-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** A new data directory (0700). */
function dataDirOf(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

const db = postgresForFile();
const stores = [
  { name: 'the embedded store', skip: undefined as string | undefined },
  { name: 'PostgreSQL', skip: db.missing },
];

describe.each(stores)('10,000 submissions on $name', ({ name, skip }) => {
  const items = made();
  let queue: Queue;
  const test = skip === undefined ? it : it.skip;
  if (skip !== undefined) it.skip(`runs against PostgreSQL (skipped: ${skip})`, () => undefined);

  beforeAll(async () => {
    if (skip !== undefined) return;
    const dataDir = dataDirOf(`listing-${name.length}`);
    const url = name === 'PostgreSQL' ? (db.get()?.createDatabase('listing'), db.get()?.url('listing')) : undefined;
    const direct = url === undefined ? await openEmbedded(join(dataDir, 'queue-db')) : await openPostgres(url, 2);
    await migrate(direct);
    await store(direct, items);
    await direct.close();
    queue = await openQueue({ dataDir, ...(url === undefined ? {} : { databaseUrl: url }), client: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }, dataKeys: [randomBytes(32)] });
  }, 300_000);
  afterAll(() => queue?.close());

  test('pages through all of them with the cursor, newest first, none twice and none missed, while more arrive', async () => {
    let added = 0;
    const seen = await allPages(queue, { limit: 1000 }, async (page) => {
      // Submissions stored while paging are newer: they come before the cursor, and shift nothing after it.
      if (page % 3 === 0) await queue.enqueue({ ...exampleRequest, visitId: `NEW-${name.length}-${++added}` });
    });
    expect(added).toBeGreaterThan(0);
    expect(seen).toHaveLength(N);
    expect(new Set(seen.map((s) => s.id)).size).toBe(N);
    expect(ids(seen)).toEqual(ids(items));
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1], seen[i]] as [Submission, Submission];
      expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)).toBe(true);
    }
    // An uneven page size ends with a short last page and no cursor.
    const uneven = await allPages(queue, { limit: 777, to: '2026-11-24T18:30:00Z' });
    expect(uneven).toHaveLength(N);
  });

  test('shows which visit each one is, without the patient or clinical content', async () => {
    const { submissions } = await queue.list({ visitId: 'V-00010' });
    expect(submissions).toHaveLength(1);
    const [s] = submissions as [Submission];
    expect(s).toMatchObject({ visitId: 'V-00010', hipId: 'HIP-A', careContextReferences: ['V-00010-1', 'V-00010-2'], hiTypes: ['OPConsultation', 'Prescription'] });
    expect(await queue.get(s.id)).toEqual(s);
    expect(Object.keys(s).sort()).toEqual(['attempts', 'careContextReferences', 'createdAt', 'hiTypes', 'hipId', 'id', 'status', 'updatedAt', 'visitId']);
    // A row an earlier version stored, whose request is gone: no visit fields, never invented ones.
    const legacy = items.find((m) => m.legacy) as Made;
    expect(await queue.get(legacy.id)).toEqual(expect.objectContaining({ careContextReferences: [], hiTypes: [] }));
    expect(await queue.get(legacy.id)).not.toHaveProperty('visitId');
    expect(await queue.get(legacy.id)).not.toHaveProperty('hipId');
  });

  test('filters by status, time range, visitId and hipId, each over every page', async () => {
    const originals = { to: new Date(START + 6 * DAY_MS).toISOString() };
    for (const status of SUBMISSION_STATUSES) {
      expect(ids(await allPages(queue, { ...originals, status, limit: 1000 }))).toEqual(ids(items.filter((m) => m.status === status)));
    }
    expect(ids(await allPages(queue, { hipId: 'HIP-B', limit: 1000 }))).toEqual(ids(items.filter((m) => !m.legacy && m.hipId === 'HIP-B')));
    expect(ids(await allPages(queue, { visitId: 'V-09999' }))).toEqual(ids(items.filter((m) => m.visitId === 'V-09999')));
    expect((await queue.list({ visitId: 'V-00007' })).submissions).toEqual([]); // a legacy row: not found by a visitId it does not have
    // A date is a whole day in India; an instant is itself (from inclusive, to exclusive).
    const day = '2026-11-22';
    expect(ids(await allPages(queue, { from: day, to: day, limit: 1000 }))).toEqual(ids(items.filter((m) => indiaDay(m.at) === day)));
    const from = START + DAY_MS + 43_000 * 7;
    const to = from + 43_000 * 100;
    const instants = await allPages(queue, { from: new Date(from).toISOString(), to: new Date(to).toISOString().replace('Z', '+00:00'), limit: 1000 });
    expect(ids(instants)).toEqual(ids(items.filter((m) => m.at >= from && m.at < to)));
    expect(instants).toHaveLength(200);
    // Filters together.
    const both = await allPages(queue, { status: 'failed', hipId: 'HIP-B', from: '2026-11-21', to: '2026-11-23', limit: 50 });
    expect(ids(both)).toEqual(ids(items.filter((m) => m.status === 'failed' && !m.legacy && m.hipId === 'HIP-B' && indiaDay(m.at) >= '2026-11-21' && indiaDay(m.at) <= '2026-11-23')));
  });

  test('counts them in the daily ledger, which adds up to them', async () => {
    const range = { from: '2026-11-20', to: '2026-11-24' };
    const ledger = await queue.ledger(range);
    const expected = new Map<string, number>();
    for (const m of items) {
      for (const hiType of m.legacy ? [''] : m.hiTypes) {
        const key = `${indiaDay(m.at)},${m.status},${hiType}`;
        expected.set(key, (expected.get(key) ?? 0) + 1);
      }
    }
    expect(new Map(ledger.days.map((r) => [`${r.day},${r.status},${r.hiType ?? ''}`, r.count]))).toEqual(expected);
    expect(ledger.submissions).toBe(N);
    expect(ledger.total).toBe(ledger.days.reduce((sum, r) => sum + r.count, 0));
    expect(ledger.total).toBe(items.reduce((sum, m) => sum + (m.legacy ? 1 : m.refs.length), 0));
    // Per day and status, its submissions are the ones the listing finds.
    const day = ledger.days.filter((r) => r.day === '2026-11-21' && r.status === 'acknowledged');
    const listed = await allPages(queue, { from: '2026-11-21', to: '2026-11-21', status: 'acknowledged', limit: 1000 });
    expect(day.reduce((sum, r) => sum + r.count, 0)).toBe(listed.reduce((sum, s) => sum + Math.max(1, s.careContextReferences.length), 0));
    expect(new Set(ledger.days.map((r) => r.day))).toEqual(new Set(['2026-11-20', '2026-11-21', '2026-11-22']));
    expect(new Set(items.map((m) => indiaDay(m.at)))).toEqual(new Set(['2026-11-20', '2026-11-21', '2026-11-22']));
  });
});

describe('an upgrade from schema version 3', () => {
  it('fills in the visit of the rows that still hold their request, with the data key, and invents none for the others', async () => {
    const dataDir = dataDirOf('upgrade');
    const key = randomBytes(32);
    const direct = await openEmbedded(join(dataDir, 'queue-db'));
    expect((await migrate(direct, 3)).applied).toEqual([1, 2, 3]);
    const [failed, done] = [randomUUID(), randomUUID()];
    const request = { ...exampleRequest, visitId: 'OPD-V3-1' };
    const body = dataKeys([key]).seal(failed, JSON.stringify(request));
    // As version 3 stored them: a failed item with its sealed request, an acknowledged one whose request was deleted.
    await direct.query(
      `INSERT INTO abha_link_submissions (id, item_key, status, body, body_key, body_sha256, created_at, updated_at)
       VALUES ($1, 'k2:a', 'failed', decode($2, 'hex'), $3, 'h', now(), now()), ($4, 'k2:b', 'acknowledged', NULL, NULL, 'h', now(), now())`,
      [failed, body.hex, body.keyId, done],
    );
    await direct.close();
    const logged: Record<string, unknown>[] = [];
    const logger = { info: (f: Record<string, unknown>) => logged.push(f), warn: () => undefined, error: () => undefined };
    const queue = await openQueue({ dataDir, client: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }, dataKeys: [key], logger });
    try {
      expect(logged[0]).toMatchObject({ migrations: [4], backfilled: 1 });
      const reference = exampleRequest.careContexts.map((c) => c.referenceNumber);
      expect(await queue.get(failed)).toMatchObject({ visitId: 'OPD-V3-1', hipId: exampleRequest.hipId, careContextReferences: reference, hiTypes: ['Prescription'] });
      const old = await queue.get(done);
      expect(old).toMatchObject({ status: 'acknowledged', careContextReferences: [], hiTypes: [] });
      expect(old).not.toHaveProperty('visitId');
      expect((await queue.list({ visitId: 'OPD-V3-1' })).submissions.map((s) => s.id)).toEqual([failed]);
      expect((await queue.ledger()).days.map((r) => [r.status, r.hiType, r.count])).toEqual([
        ['acknowledged', undefined, 1],
        ['failed', 'Prescription', 1],
      ]);
    } finally {
      await queue.close();
    }
  }, 300_000);
});

describe('the listing and ledger routes', () => {
  const TOKEN = 'listing-token-5c2e9a';
  const auth = { authorization: `Bearer ${TOKEN}` };
  let app: FastifyInstance;
  let queue: Queue;
  const items = made().slice(0, 300);

  beforeAll(async () => {
    const dataDir = dataDirOf('listing-http');
    const direct = await openEmbedded(join(dataDir, 'queue-db'));
    await migrate(direct);
    await store(direct, items);
    await direct.close();
    queue = await openQueue({ dataDir, client: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }, dataKeys: [randomBytes(32)] });
    app = await createServeApp({ token: TOKEN, now: () => new Date(), queue });
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await queue?.close();
  });

  const get = (url: string, headers: Record<string, string> = auth) => app.inject({ method: 'GET', url, headers });

  it('needs the token for the listing, one submission and the ledger, however the path is spelled', async () => {
    const one = items[1] as Made;
    for (const url of [
      '/v1/submissions',
      '/v1/submissions?limit=1',
      `/v1/submissions/${one.id}`,
      '/v1/submissions/ledger',
      '/v1/submissions/ledger?format=csv',
      '/v1/submissions/%6Cedger',
      '/%76%31/submissions/ledger',
    ]) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: `bearer  ${TOKEN}x` }]) {
        const r = await get(url, headers);
        expect(r.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(r.body).not.toContain('V-0');
      }
      expect((await get(url)).statusCode, url).toBe(200);
    }
  });

  it('answers pages with nextCursor, and one submission with the same view', async () => {
    const first = (await get('/v1/submissions?limit=120')).json() as { submissions: Record<string, unknown>[]; nextCursor?: string };
    expect(first.submissions).toHaveLength(120);
    expect(typeof first.nextCursor).toBe('string');
    const second = (await get(`/v1/submissions?limit=120&cursor=${first.nextCursor ?? ''}`)).json() as typeof first;
    const third = (await get(`/v1/submissions?limit=120&cursor=${second.nextCursor ?? ''}`)).json() as typeof first;
    expect(third.submissions).toHaveLength(60);
    expect(third.nextCursor).toBeUndefined();
    const all = [...first.submissions, ...second.submissions, ...third.submissions];
    expect(new Set(all.map((s) => s.id)).size).toBe(300);
    const shown = all.find((s) => s.visitId === 'V-00004') as Record<string, unknown>;
    expect(shown).toEqual({
      id: items[4]?.id,
      status: items[4]?.status,
      attempts: 0,
      createdAt: new Date(items[4]?.at ?? 0).toISOString(),
      updatedAt: new Date(items[4]?.at ?? 0).toISOString(),
      visitId: 'V-00004',
      hipId: 'HIP-B',
      careContextReferences: ['V-00004-1'],
      hiTypes: ['DiagnosticReport'],
    });
    expect((await get(`/v1/submissions/${String(shown.id)}`)).json()).toEqual(shown);
    const filtered = (await get('/v1/submissions?visitId=V-00004&hipId=HIP-B&status=' + String(shown.status) + '&from=2026-11-20&to=2026-11-20T00:05:00%2B05:30')).json() as typeof first;
    expect(filtered.submissions.map((s) => s.id)).toEqual([shown.id]);
  });

  it('answers the ledger as JSON, and as CSV with Accept: text/csv or format=csv', async () => {
    const json = await get('/v1/submissions/ledger?from=2026-11-20&to=2026-11-20');
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    const ledger = json.json() as { days: { day: string; status: string; hiType?: string; count: number }[]; total: number; submissions: number };
    expect(ledger.submissions).toBe(300);
    expect(ledger.total).toBe(ledger.days.reduce((sum, r) => sum + r.count, 0));
    for (const r of [
      await get('/v1/submissions/ledger?from=2026-11-20&to=2026-11-20', { ...auth, accept: 'text/csv' }),
      await get('/v1/submissions/ledger?from=2026-11-20&to=2026-11-20&format=csv'),
    ]) {
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toMatch(/^text\/csv/);
      const lines = r.body.split('\r\n');
      expect(lines[0]).toBe('day,status,hiType,count');
      expect(lines.at(-1)).toBe('');
      const rows = lines.slice(1, -1).map((l) => l.split(','));
      expect(rows.map(([day, status, hiType, count]) => ({ day, status, ...(hiType === '' ? {} : { hiType }), count: Number(count) }))).toEqual(ledger.days);
    }
    expect((await get('/v1/submissions/ledger?format=json', { ...auth, accept: 'text/csv' })).headers['content-type']).toMatch(/^application\/json/);
  });

  it('refuses bad and hostile query values with 400 naming the parameter and what was expected', async () => {
    const forged = (text: string): string => Buffer.from(text).toString('base64url');
    const cases: [string, string, RegExp][] = [
      ['/v1/submissions?from=yesterday', '/from', /ISO 8601 instant with its offset .* or a date/],
      ['/v1/submissions?from=2026-11-24T10:00:00', '/from', /with its offset/], // no offset: which zone?
      ['/v1/submissions?to=2026-02-30', '/to', /ISO 8601/],
      ['/v1/submissions?from=2026-11-24&to=2026-11-23', '/to', /later than from/],
      ['/v1/submissions?limit=0', '/limit', /must be >= 1/],
      ['/v1/submissions?limit=1001', '/limit', /must be <= 1000/],
      ['/v1/submissions?status=lost', '/status', /must be one of queued, sending/],
      [`/v1/submissions?visitId=${'x'.repeat(129)}`, '/visitId', /must NOT have more than 128 characters/],
      [`/v1/submissions?cursor=${'A'.repeat(10_000)}`, '/cursor', /must NOT have more than 128 characters/],
      ['/v1/submissions?cursor=not%20a%20cursor', '/cursor', /nextCursor of an earlier page/],
      [`/v1/submissions?cursor=${forged("1|2026-11-24T04:30:00.000000Z|x' OR '1'='1")}`, '/cursor', /nextCursor of an earlier page/],
      [`/v1/submissions?cursor=${forged(`1|2026-02-30T04:30:00.000000Z|${randomUUID()}`)}`, '/cursor', /nextCursor of an earlier page/],
      [`/v1/submissions?cursor=${forged(`2|2026-11-24T04:30:00.000000Z|${randomUUID()}`)}`, '/cursor', /nextCursor of an earlier page/],
      ['/v1/submissions/ledger?from=24-11-2026', '/from', /ISO 8601/],
      ['/v1/submissions/ledger?format=xml', '/format', /must be one of json, csv/],
    ];
    for (const [url, path, message] of cases) {
      const r = await get(url);
      expect(r.statusCode, url.slice(0, 80)).toBe(400);
      const [issue] = (r.json() as { issues: { path: string; in: string; message: string; code: string }[] }).issues;
      expect(issue, url.slice(0, 80)).toMatchObject({ path, in: 'query', code: 'invalid-parameter' });
      expect(issue?.message).toMatch(message);
    }
    // A well-formed cursor of a row that does not exist is a position like any other.
    const beyond = encodeCursor({ createdAt: '2030-01-01T00:00:00.000000Z', id: randomUUID() });
    expect(((await get(`/v1/submissions?limit=1000&cursor=${beyond}`)).json() as { submissions: unknown[] }).submissions).toHaveLength(300);
  });

  it("exposes the embedded store's vacuums, dead rows and size in /metrics", async () => {
    const value = (text: string, name: string): number | undefined => {
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? undefined : Number(line.slice(name.length + 1));
    };
    const before = (await get('/metrics')).body;
    expect(value(before, 'abha_link_queue_vacuums')).toBe(0);
    expect(value(before, 'abha_link_queue_dead_rows')).toBe(0);
    expect(value(before, 'abha_link_queue_table_bytes')).toBeGreaterThan(8192);
    expect(value(before, 'abha_link_queue_last_vacuum_seconds')).toBe(0); // none yet
    // A change since the open (a retry rewrites a row), then the tick: the first look since the open vacuums.
    const failed = items.find((m) => m.status === 'failed' && !m.legacy) as Made;
    expect(await queue.retry(failed.id)).toMatchObject({ status: 'queued' });
    expect(value((await get('/metrics')).body, 'abha_link_queue_dead_rows')).toBeGreaterThan(0);
    await queue.tick();
    const after = (await get('/metrics')).body;
    expect(value(after, 'abha_link_queue_vacuums')).toBe(1);
    expect(value(after, 'abha_link_queue_dead_rows')).toBe(0);
    expect(value(after, 'abha_link_queue_last_vacuum_seconds')).toBeGreaterThanOrEqual(0);
    expect(after).toMatch(/# HELP abha_link_queue_dead_rows Dead row versions/);
  });
});
