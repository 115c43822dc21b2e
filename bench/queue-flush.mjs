/**
 * What a durable write costs the embedded store (src/serve/queue/durable.ts):
 * inserts of 2 kB into PGlite with `full` durability (each write flushed to
 * disk before it resolves) next to `relaxed` (no flush), in the same run:
 * one at a time (one flush each) and 200 at once (flushes shared).
 * Run with `npm run build && node bench/queue-flush.mjs`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { openEmbedded } = await import('../dist/serve/queue/sql.js');
const tmp = mkdtempSync(join(tmpdir(), 'abha-queue-flush-'));
const N = 200;
const ROUNDS = 3;
const row = 'x'.repeat(2000);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
try {
  const dbs = { full: await openEmbedded(join(tmp, 'full'), 'full'), relaxed: await openEmbedded(join(tmp, 'relaxed'), 'relaxed') };
  for (const db of Object.values(dbs)) await db.query('CREATE TABLE t (v text)');
  const rate = { full: { 'one at a time': [], [`${N} at once`]: [] }, relaxed: { 'one at a time': [], [`${N} at once`]: [] } };
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of r % 2 ? ['relaxed', 'full'] : ['full', 'relaxed']) {
      const db = dbs[name];
      let t = performance.now();
      for (let i = 0; i < N; i++) await db.query('INSERT INTO t VALUES ($1)', [row]);
      rate[name]['one at a time'].push(N / ((performance.now() - t) / 1000));
      t = performance.now();
      await Promise.all(Array.from({ length: N }, () => db.query('INSERT INTO t VALUES ($1)', [row])));
      rate[name][`${N} at once`].push(N / ((performance.now() - t) / 1000));
    }
  }
  for (const db of Object.values(dbs)) await db.close();
  process.stdout.write(`\n## Embedded store: durable writes (bench/queue-flush.mjs)\n\n${N} inserts of 2 kB per round, ${ROUNDS} rounds.\n\n`);
  process.stdout.write('| Inserts | full (per s) | relaxed (per s) | full / relaxed, median (per round) |\n|---|---|---|---|\n');
  for (const kind of Object.keys(rate.full)) {
    const ratios = rate.full[kind].map((f, i) => f / rate.relaxed[kind][i]);
    process.stdout.write(
      `| ${kind} | ${median(rate.full[kind]).toFixed(0)} | ${median(rate.relaxed[kind]).toFixed(0)} | ${median(ratios).toFixed(2)} (${ratios.map((x) => x.toFixed(2)).join(', ')}) |\n`,
    );
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
