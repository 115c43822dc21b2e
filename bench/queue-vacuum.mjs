/**
 * What a vacuum of the embedded store costs (src/serve/queue/vacuum.ts):
 * PGlite runs on the service's thread, so a `VACUUM (ANALYZE)` holds every
 * submission for its duration. For tables of 10,000 and 50,000 submissions
 * (each inserted, claimed and acknowledged, as the worker does: two dead row
 * versions each), the duration of the vacuum that reclaims all of them (the
 * first after a restart, or with no vacuum before), of one after a day's
 * work (20 % of the rows changed: the threshold), and of one with nothing to
 * do; each next to one worker statement (claim 16, record 16) timed in the
 * same run, as a ratio.
 * Run with `npm run build && node bench/queue-vacuum.mjs`.
 *
 * Environment: BENCH_VACUUM_ROWS (comma-separated, default 10000,50000),
 * BENCH_VACUUM_DURABILITY (full or relaxed, default full).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

const { openEmbedded } = await import('../dist/serve/queue/sql.js');
const { migrate } = await import('../dist/serve/queue/migrate.js');
const { insertSubmissions, recordAndClaim } = await import('../dist/serve/queue/store.js');
const { vacuumTable, tableActivity } = await import('../dist/serve/queue/vacuum.js');

const SIZES = (process.env.BENCH_VACUUM_ROWS ?? '10000,50000').split(',').map(Number);
const DURABILITY = process.env.BENCH_VACUUM_DURABILITY ?? 'full';
const KEY = 'k1';
const tmp = mkdtempSync(join(os.tmpdir(), 'abha-queue-vacuum-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const timed = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
let serial = 0;
const submission = (now) => {
  const n = ++serial;
  return {
    id: randomUUID(),
    key: `k2:${randomBytes(32).toString('hex')}`,
    body: { keyId: KEY, hex: randomBytes(1500).toString('hex') },
    sha256: randomBytes(32).toString('hex'),
    callbackUrl: undefined,
    now,
    visit: { visitId: `OPD-${n}`, hipId: 'HIP-1', careContextReferences: [`CC-${n}-1`, `CC-${n}-2`], hiTypes: ['OPConsultation', 'Prescription'] },
  };
};

/** Inserts `n` items, then claims and acknowledges them `batch` at a time, as the worker does; resolves to the durations of the worker statements. */
async function work(db, n, batch) {
  const cycles = [];
  for (let done = 0; done < n; done += batch) {
    const now = new Date();
    await insertSubmissions(
      db,
      Array.from({ length: Math.min(batch, n - done) }, () => submission(now)),
    );
    const cycle = { replica: 'bench', keyIds: [KEY], now, leaseUntil: new Date(now.getTime() + 30_000) };
    let claimed = [];
    cycles.push(await timed(async () => (claimed = await recordAndClaim(db, { ...cycle, outcomes: [], n: batch }))));
    const outcomes = claimed.map((c) => ({ id: c.id, attempts: c.attempts, status: 'acknowledged', code: null, message: null }));
    cycles.push(await timed(() => recordAndClaim(db, { ...cycle, outcomes, n: 0 })));
  }
  return cycles;
}

const rows = [];
try {
  for (const size of SIZES) {
    const db = await openEmbedded(join(tmp, String(size)), DURABILITY);
    await migrate(db);
    const statement = median((await work(db, size, 16)).slice(-200));
    const all = await tableActivity(db);
    const first = await timed(() => vacuumTable(db));
    const clean = await timed(() => vacuumTable(db));
    await work(db, Math.round(size * 0.1), 16);
    const day = await tableActivity(db);
    const after = await timed(() => vacuumTable(db));
    const { bytes } = await tableActivity(db);
    rows.push({ size, statement, all, first, clean, day, after, bytes });
    await db.close();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
const ms = (x) => `${Math.round(x)} ms`;
const ratio = (x, s) => `${(x / s).toFixed(0)}×`;
console.log(
  `# VACUUM (ANALYZE) of the embedded store (durability ${DURABILITY}; load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; Node ${process.version})`,
);
console.log('| rows | one worker statement (16 items) | vacuum of every dead row (dead) | ratio | after +10 % items (dead) | ratio | nothing to do | ratio | table + indexes |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.size.toLocaleString('en-US')} | ${ms(r.statement)} | ${ms(r.first)} (${r.all.deadRows}) | ${ratio(r.first, r.statement)} | ${ms(r.after)} (${r.day.deadRows}) | ${ratio(r.after, r.statement)} | ${ms(r.clean)} | ${ratio(r.clean, r.statement)} | ${(r.bytes / 1e6).toFixed(1)} MB |`,
  );
}
