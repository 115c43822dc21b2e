/**
 * Benchmark of the submission queue of `abha-link serve` (src/serve/queue):
 * link requests per second through the queue (enqueue, claim, send to the
 * mock, record the outcome) next to `abha-link submit`'s batch submitter
 * (`client.submitMany` with a journal file) at the same concurrency, against
 * the same mock. Both stores: the embedded one (PGlite in a data directory)
 * and PostgreSQL. Target: the queue at >= 0.8x the submitter.
 *
 * The mock runs in a child process; the submitter and the queue run here.
 * Beside each rate, the CPU this process spent per item (all its threads,
 * the embedded store's database thread too): on a busy machine a round's
 * rate swings with the other jobs, the CPU per item far less.
 * Rounds alternate their order; medians of per-round figures are reported.
 * Before the rounds, `submit` and each queue send BENCH_QUEUE_WARMUP items:
 * both get faster over their first thousand or two items (V8 compiles
 * their code, PGlite's WebAssembly tiers up), `submit` more than the queue,
 * so rounds run cold compare a cold `submit` and read too high.
 *
 * On Linux the CPU is also split by thread (from /proc): the service's
 * thread (the one that runs `submit`, enqueues and the queue's worker), the
 * embedded store's database thread, V8's and libuv's helper threads; and the
 * mock's process. That says where the queue's extra CPU goes.
 * Run with `npm run build && node bench/queue.mjs`.
 *
 * PostgreSQL: ABHA_LINK_DATABASE_URL when set (a database the benchmark may
 * write to: it creates the queue's tables); otherwise a throwaway cluster is
 * started from Debian's binaries (/usr/lib/postgresql/<v>/bin) in a temporary
 * directory (as the postgres user when run as root); without them the
 * PostgreSQL rows are skipped, saying why.
 *
 * BENCH_BEFORE=DIR also measures the queue of another build (DIR/dist, with
 * a node_modules in DIR) in the same rounds, for a before/after comparison in
 * one run; each queue is compared with its own `submit` run of the round.
 *
 * The embedded store is measured twice: with its default durability (each
 * write flushed to disk before it resolves) and with `embeddedDurability:
 * 'relaxed'`, for what the flushes cost.
 *
 * Environment:
 *   BENCH_QUEUE_ITEMS        link requests per round, default 400
 *   BENCH_QUEUE_WARMUP       link requests sent through `submit` and through each queue before the rounds, default 2000
 *   BENCH_QUEUE_ROUNDS       measured rounds, default 3
 *   BENCH_QUEUE_CONCURRENCY  requests in flight, default 16
 *   BENCH_QUEUE_STORES       embedded, postgresql or both (comma-separated; default both)
 *   BENCH_BEFORE             the root of another build to measure beside this one
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, startMock } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(join(ROOT, 'dist', 'serve', 'queue', 'index.js'))) {
  process.stderr.write('bench/queue.mjs: dist/ is missing: run `npm run build` first\n');
  process.exit(2);
}
const { createClient } = await import('../dist/client/index.js');
const { openQueue } = await import('../dist/serve/queue/index.js');

const num = (name, dflt) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
};
const ITEMS = Math.round(num('BENCH_QUEUE_ITEMS', 400));
const WARMUP = Math.round(num('BENCH_QUEUE_WARMUP', 2000));
const ROUNDS = Math.round(num('BENCH_QUEUE_ROUNDS', 3));
const CONCURRENCY = Math.round(num('BENCH_QUEUE_CONCURRENCY', 16));
const KEY = 'bench-api-key';
const TARGET = 0.8;
const log = (s) => process.stderr.write(`${s}\n`);
/** The median of each part of the runs' CPU splits. */
const medianSplit = (runs) => Object.fromEntries(['service', 'database', 'helpers', 'mock'].map((k) => [k, median(runs.map((r) => r.split[k]))]));
const fmt = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const base = JSON.parse(readFileSync(join(ROOT, 'examples', 'opd-prescription.request.json'), 'utf8'));
const RUN = Date.now().toString(36);
let serial = 0;
const batch = (n = ITEMS) => Array.from({ length: n }, () => ({ ...base, visitId: `BQ-${RUN}-${++serial}` }));

/** A throwaway PostgreSQL cluster; resolves to { url, stop } or { skip }. */
function startPostgres() {
  const rootDir = '/usr/lib/postgresql';
  const version = existsSync(rootDir)
    ? readdirSync(rootDir)
        .filter((v) => existsSync(join(rootDir, v, 'bin', 'postgres')))
        .sort((a, b) => b - a)[0]
    : undefined;
  if (version === undefined) return { skip: 'no PostgreSQL: set ABHA_LINK_DATABASE_URL or install postgresql' };
  const bin = join(rootDir, version, 'bin');
  const dir = mkdtempSync(join(os.tmpdir(), 'abha-link-bench-pg-'));
  const asRoot = os.userInfo().uid === 0;
  if (asRoot) {
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
    chmodSync(dir, 0o700);
  }
  const as = (cmd, args) => (asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]) : execFileSync(join(bin, cmd), args));
  const user = asRoot ? 'postgres' : os.userInfo().username;
  as('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', user]);
  as('pg_ctl', ['-D', join(dir, 'data'), '-w', '-s', '-l', join(dir, 'log'), '-o', `-k ${dir} -p 5432 -c listen_addresses=''`, 'start']);
  const urlOf = (db) => `postgresql://${user}@localhost/${db}?host=${encodeURIComponent(dir)}`;
  return {
    url: urlOf('postgres'),
    urlOf: (db) => {
      as('createdb', ['-h', dir, '-p', '5432', '-U', user, db]);
      return urlOf(db);
    },
    stop: () => {
      as('pg_ctl', ['-D', join(dir, 'data'), '-w', '-s', '-m', 'fast', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const DATA = join(ROOT, 'bench', '.data', `queue-${process.pid}`);
mkdirSync(DATA, { recursive: true });
const mock = await startMock(KEY);
const client = createClient({ baseUrl: mock.url, apiKey: KEY });

let journals = 0;
async function viaSubmit(n = ITEMS) {
  const items = batch(n);
  const journal = join(DATA, `journal-${++journals}`);
  const t0 = performance.now();
  const s = await client.submitMany(items, { concurrency: CONCURRENCY, journal });
  const secs = (performance.now() - t0) / 1000;
  if (s.acknowledged !== n) throw new Error(`submit: ${s.acknowledged} of ${n} acknowledged`);
  return n / secs;
}

/**
 * The link requests the mock has linked so far (asked of the mock's process: the queue's thread does no work for it).
 * Each poll on a connection of its own: a kept-alive one that sat idle past the mock's keep-alive time-out (5 s) while
 * this thread was busy could be reused just as the mock closes it, and fail with `other side closed`.
 */
function mockLinked() {
  return new Promise((resolve, reject) => {
    const req = http.get(`${mock.url}/__mock/stats`, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        try {
          resolve(JSON.parse(text).data.linked);
        } catch (e) {
          reject(e);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/**
 * Enqueues a batch at once (as concurrent API calls would) and waits until
 * every item is acknowledged: first until the mock has linked them all
 * (polled in the mock's process), then until the queue has recorded them
 * (the queue's counts, a scan of its table, asked only then).
 */
async function viaQueue(queue, n = ITEMS) {
  const items = batch(n);
  const before = await queue.counts();
  const linked = await mockLinked();
  const t0 = performance.now();
  await Promise.all(items.map((i) => queue.enqueue(i)));
  while ((await mockLinked()) - linked < n) await new Promise((r) => setTimeout(r, 20));
  for (;;) {
    const c = await queue.counts();
    if (c.failed + c.unknown > before.failed + before.unknown) throw new Error(`queue: ${c.failed - before.failed} failed, ${c.unknown - before.unknown} unknown`);
    if (c.acknowledged - before.acknowledged === n) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return n / ((performance.now() - t0) / 1000);
}

/** Linux: the CPU time (ms) of each thread of this process, by thread id, and of the mock's process (`mock`); empty elsewhere. */
const TASKS = '/proc/self/task';
const ON_LINUX = existsSync(TASKS);
const CLOCK_TICKS_PER_S = 100; // USER_HZ: 100 on Linux
const ticksMs = (statFile) => {
  const text = readFileSync(statFile, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
};
function threadTimes() {
  const out = new Map();
  if (!ON_LINUX) return out;
  for (const tid of readdirSync(TASKS)) {
    try {
      out.set(tid, ticksMs(join(TASKS, tid, 'stat')));
    } catch {
      // The thread ended meanwhile.
    }
  }
  try {
    out.set('mock', ticksMs(`/proc/${mock.pid}/stat`));
  } catch {
    // The mock ended meanwhile.
  }
  return out;
}
/** The threads running now (V8's and libuv's helpers once the pool started): a store's database thread is one that appears when it opens. */
const threadIds = () => new Set(ON_LINUX ? readdirSync(TASKS) : []);

/**
 * A run's rate, and the CPU this process spent per item meanwhile (every thread: the queue's database thread
 * too; not the mock's process, whose work is the same for both). On a busy machine the rate of one round
 * swings with the other jobs; the CPU per item much less. On Linux also `split`: the same CPU by thread
 * (`databaseThreads` are the store's), and the mock's beside it.
 */
async function withCpu(run, databaseThreads = new Set()) {
  const t0 = threadTimes();
  const c0 = process.cpuUsage();
  const rate = await run();
  const c = process.cpuUsage(c0);
  const split = { service: 0, database: 0, helpers: 0, mock: 0 };
  for (const [tid, ms] of threadTimes()) {
    const d = (ms - (t0.get(tid) ?? 0)) / ITEMS;
    if (tid === 'mock') split.mock += d;
    else if (tid === String(process.pid)) split.service += d;
    else if (databaseThreads.has(tid)) split.database += d;
    else split.helpers += d;
  }
  return { rate, cpu: (c.user + c.system) / 1000 / ITEMS, split: ON_LINUX ? split : undefined };
}

const wanted = (process.env.BENCH_QUEUE_STORES ?? 'embedded,postgresql').split(',').map((x) => x.trim());
const BEFORE = process.env.BENCH_BEFORE;
const builds = [{ label: '', openQueue }];
if (BEFORE) builds.push({ label: ', before', openQueue: (await import(pathToFileURL(join(BEFORE, 'dist', 'serve', 'queue', 'index.js')).href)).openQueue });
const pgSetting = process.env.ABHA_LINK_DATABASE_URL;
const pgServer = !wanted.includes('postgresql') ? { skip: 'not in BENCH_QUEUE_STORES' } : pgSetting === undefined ? startPostgres() : { url: pgSetting };
const stores = [];
for (const [i, b] of builds.entries()) {
  if (wanted.includes('embedded')) stores.push({ name: `embedded (PGlite)${b.label}`, open: b.openQueue, options: { dataDir: join(DATA, `embedded-${i}`) } });
  // What a 202 on disk costs: the embedded store with its flushes off (this build only; earlier builds have no flushes).
  if (wanted.includes('embedded') && i === 0)
    stores.push({ name: 'embedded (PGlite), --embedded-durability relaxed', open: b.openQueue, options: { dataDir: join(DATA, 'embedded-relaxed'), embeddedDurability: 'relaxed' } });
  // Each build its own schema: a database of one build is not opened by another.
  if (pgServer.url !== undefined)
    stores.push({
      name: `PostgreSQL${b.label}`,
      open: b.openQueue,
      options: { dataDir: join(DATA, `replica-${i}`), databaseUrl: i === 0 ? pgServer.url : (pgServer.urlOf?.(`before${i}`) ?? pgServer.url) },
    });
}
if (pgServer.url === undefined) log(`bench/queue: PostgreSQL rows skipped: ${pgServer.skip}`);

log(
  `bench/queue: Node ${process.version}, ${os.cpus().length} CPUs, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; ${ROUNDS} rounds of ${ITEMS} items at concurrency ${CONCURRENCY}`,
);
const rows = [];
try {
  const queues = [];
  // Starts libuv's pool first, so that the threads a store's open starts are its own (its database thread).
  await readFile(join(ROOT, 'package.json'));
  for (const store of stores) {
    const known = threadIds();
    const queue = await store.open({ ...store.options, client: { baseUrl: mock.url, apiKey: KEY }, concurrency: CONCURRENCY });
    const databaseThreads = new Set([...threadIds()].filter((t) => !known.has(t)));
    queue.start();
    queues.push({ store, queue, databaseThreads, s: [], q: [] });
  }
  log(`bench/queue: warm-up: ${WARMUP} items through submit and through each queue`);
  await viaSubmit(WARMUP);
  for (const m of queues) await viaQueue(m.queue, WARMUP);
  for (let i = 0; i < ROUNDS; i++) {
    // Every store in each round, in alternating order; each next to a submit run of its own.
    for (const m of i % 2 === 0 ? queues : [...queues].reverse()) {
      if (i % 2 === 0) {
        m.s.push(await withCpu(() => viaSubmit()));
        m.q.push(await withCpu(() => viaQueue(m.queue), m.databaseThreads));
      } else {
        m.q.push(await withCpu(() => viaQueue(m.queue), m.databaseThreads));
        m.s.push(await withCpu(() => viaSubmit()));
      }
      const [s, q] = [m.s[i], m.q[i]];
      log(
        `  ${m.store.name}, round ${i + 1}: submit ${fmt(s.rate)}/s ${fmt(s.cpu, 2)} ms CPU/item, queue ${fmt(q.rate)}/s ${fmt(q.cpu, 2)} ms CPU/item (${fmt(q.rate / s.rate, 2)}, CPU ${fmt(s.cpu / q.cpu, 2)})`,
      );
    }
  }
  for (const { store, queue, s, q } of queues) {
    await queue.close();
    const ratios = q.map((x, i) => x.rate / s[i].rate);
    const cpuRatios = q.map((x, i) => s[i].cpu / x.cpu);
    rows.push({
      store: store.name,
      submit: median(s.map((x) => x.rate)),
      queue: median(q.map((x) => x.rate)),
      ratio: median(ratios),
      min: Math.min(...ratios),
      max: Math.max(...ratios),
      submitCpu: median(s.map((x) => x.cpu)),
      queueCpu: median(q.map((x) => x.cpu)),
      cpuRatio: median(cpuRatios),
      cpuMin: Math.min(...cpuRatios),
      cpuMax: Math.max(...cpuRatios),
      split: q[0].split === undefined ? undefined : { submit: medianSplit(s), queue: medianSplit(q) },
    });
  }
} finally {
  await mock.stop();
  pgServer.stop?.();
  rmSync(DATA, { recursive: true, force: true });
}

process.stdout.write(`\n## Queue throughput (bench/queue.mjs)\n\n`);
process.stdout.write(`After a warm-up of ${WARMUP} items through each.\n`);
process.stdout.write(`Concurrency ${CONCURRENCY}, ${ITEMS} link requests per round, ${ROUNDS} rounds, load average ${os.loadavg()[0].toFixed(1)} at the end.\n\n`);
process.stdout.write(
  '| Store | `abha-link submit` (items/s) | queue (items/s) | ratio (median, min-max) | target | CPU per item, submit / queue (ms) | CPU ratio (median, min-max) |\n|---|---|---|---|---|---|---|\n',
);
for (const r of rows) {
  process.stdout.write(
    `| ${r.store} | ${fmt(r.submit)} | ${fmt(r.queue)} | ${fmt(r.ratio, 2)} (${fmt(r.min, 2)}-${fmt(r.max, 2)}) | >= ${TARGET} ${r.ratio >= TARGET ? 'met' : 'NOT met'} | ${fmt(r.submitCpu, 2)} / ${fmt(r.queueCpu, 2)} | ${fmt(r.cpuRatio, 2)} (${fmt(r.cpuMin, 2)}-${fmt(r.cpuMax, 2)}) |\n`,
  );
}

if (rows.some((r) => r.split !== undefined)) {
  process.stdout.write(
    "\nWhere the CPU goes, ms per item (medians; Linux, from /proc): the service's thread, the embedded store's database thread, V8's and libuv's helper threads (garbage collection, compilation, file I/O), and the mock's process.\n\n",
  );
  process.stdout.write('| Store | run | service thread | database thread | helper threads | mock |\n|---|---|---|---|---|---|\n');
  for (const r of rows.filter((x) => x.split !== undefined)) {
    for (const [run, x] of [
      ['submit', r.split.submit],
      ['queue', r.split.queue],
    ]) {
      process.stdout.write(
        `| ${r.store} | ${run} | ${fmt(x.service, 2)} | ${run === 'submit' || r.store.startsWith('PostgreSQL') ? '-' : fmt(x.database, 2)} | ${fmt(x.helpers, 2)} | ${fmt(x.mock, 2)} |\n`,
      );
    }
  }
}
