/**
 * What the embedded store's statements cost (src/serve/queue): the CPU of a
 * round trip to its database thread (`SELECT 1`), of a one-row read and of a
 * one-row update, with `full` durability (each write flushed to disk before
 * it resolves) and `relaxed`; then `counts()` (what /metrics asks) and a page
 * of `list()` as the table grows. CPU is this process's, every thread of it
 * (the database thread too), per statement; each figure also as a ratio to
 * the `SELECT 1` round trip of the same store, measured in the same run.
 * Run with `npm run build && node bench/queue-store.mjs`.
 *
 * Environment: BENCH_STORE_N (statements per figure, default 500),
 * BENCH_STORE_ROWS (table sizes for counts and list, default 1000,10000,40000).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { openQueue } = await import('../dist/serve/queue/index.js');
const N = Number(process.env.BENCH_STORE_N ?? 500);
const SIZES = (process.env.BENCH_STORE_ROWS ?? '1000,10000,40000').split(',').map(Number);
const base = JSON.parse(readFileSync(join(ROOT, 'examples', 'opd-prescription.request.json'), 'utf8'));
const tmp = mkdtempSync(join(tmpdir(), 'abha-queue-store-'));
const client = { baseUrl: 'http://127.0.0.1:9', apiKey: 'bench' };

/** CPU ms per call of `fn`, after a tenth as many calls of warm-up. */
async function cpuPer(fn, n = N) {
  for (let i = 0; i < Math.ceil(n / 10); i++) await fn();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / n;
}

try {
  console.log(
    `## The embedded store's statements (bench/queue-store.mjs)\n\nCPU per statement, every thread of this process, ${N} statements after ${Math.ceil(N / 10)} of warm-up; the ratio is to the same store's \`SELECT 1\`.\n`,
  );
  console.log('| Durability | `SELECT 1` (a round trip) | one-row read | one-row update |\n|---|---|---|---|');
  for (const durability of ['full', 'relaxed']) {
    const queue = await openQueue({ dataDir: join(tmp, durability), dataKeyFile: join(tmp, `${durability}.key`), client, embeddedDurability: durability });
    try {
      const { db } = queue;
      await db.query(`INSERT INTO abha_link_queue_meta (name, value) VALUES ('bench', 'x') ON CONFLICT (name) DO NOTHING`);
      const trip = await cpuPer(() => db.query('SELECT 1'));
      const read = await cpuPer(() => db.query('SELECT value FROM abha_link_queue_meta WHERE name = $1', ['bench']));
      const update = await cpuPer(() => db.query('UPDATE abha_link_queue_meta SET value = $2 WHERE name = $1', ['bench', 'y']));
      const cell = (ms) => `${ms.toFixed(3)} ms (${(ms / trip).toFixed(2)}×)`;
      console.log(`| ${durability} | ${trip.toFixed(3)} ms | ${cell(read)} | ${cell(update)} |`);
    } finally {
      await queue.close();
    }
  }

  console.log('\n`counts()` (a count of every row by status, what /metrics asks) and a page of 100 queued items, as the table grows (`relaxed`; wall time, the median of 5):\n');
  console.log('| Rows | `counts()` | `list({ status: "queued", limit: 100 })` |\n|---|---|---|');
  const queue = await openQueue({ dataDir: join(tmp, 'rows'), dataKeyFile: join(tmp, 'rows.key'), client, embeddedDurability: 'relaxed' });
  try {
    let rows = 0;
    const wall = async (fn) => {
      const times = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await fn();
        times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b)[2];
    };
    for (const size of SIZES) {
      while (rows < size) {
        const batch = Math.min(1000, size - rows);
        await Promise.all(Array.from({ length: batch }, () => queue.enqueue({ ...base, visitId: `BS-${++rows}` })));
      }
      const counts = await wall(() => queue.counts());
      const page = await wall(() => queue.list({ status: 'queued', limit: 100 }));
      console.log(`| ${rows.toLocaleString('en-US')} | ${counts.toFixed(1)} ms | ${page.toFixed(1)} ms |`);
    }
  } finally {
    await queue.close();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
