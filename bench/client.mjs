/**
 * Benchmark of the client: link requests per second through
 * `client.linkCareContexts` against the mock, at concurrency 1 and 16, next
 * to a bare fetch loop against the same mock (token fetched once, POST,
 * parse the JSON answer, check `success`). Target: the client within 10% of
 * the bare loop. Also the peak RSS of `abha-link submit --ndjson` at two
 * input sizes four times apart (flat memory), dry run and sent to the mock.
 * Generated inputs (synthetic) are kept in bench/.data/ and reused.
 *
 * The mock runs in a child process (its own event loop), started from the
 * built package; the loops run here. Rounds alternate bare/client so that
 * drift on a shared machine hits both; medians of the per-round figures are
 * reported, with the spread. Run with `npm run build && node bench/client.mjs`.
 *
 * Environment:
 *   BENCH_CLIENT_ROUND_MS   duration of one measured round, default 1200
 *   BENCH_CLIENT_ROUNDS     measured rounds per loop and concurrency, default 6
 *   BENCH_CLIENT_RSS=0      skip the memory part
 *   BENCH_CLIENT_RSS_RUNS   runs per input size for the memory part (median), default 3
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { startMock } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DATA = join(ROOT, 'bench', '.data');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
if (!existsSync(join(ROOT, 'dist', 'client', 'index.js')) || !existsSync(join(ROOT, 'dist', 'mock', 'index.js'))) {
  process.stderr.write('bench/client.mjs: dist/ is missing: run `npm run build` first\n');
  process.exit(2);
}
const { createClient } = await import('../dist/client/index.js');

const num = (name, dflt) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
};
const ROUND_MS = num('BENCH_CLIENT_ROUND_MS', 1200);
const ROUNDS = Math.round(num('BENCH_CLIENT_ROUNDS', 6));
const RSS_RUNS = Math.round(num('BENCH_CLIENT_RSS_RUNS', 3));
const TARGET = 0.9;
const KEY = 'bench-api-key';
const log = (s) => process.stderr.write(`${s}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const base = JSON.parse(readFileSync(join(ROOT, 'examples', 'opd-prescription.request.json'), 'utf8'));
let serial = 0;
const nextRequest = () => ({ ...base, visitId: `BENCH-${++serial}` });

/** Runs `concurrency` workers calling `one()` for `ms`; returns requests per second. */
async function measure(one, concurrency, ms) {
  const end = performance.now() + ms;
  let done = 0;
  const worker = async () => {
    while (performance.now() < end) {
      await one();
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / ((performance.now() - t0) / 1000);
}

const mock = await startMock(KEY);
const linkUrl = `${mock.url}/api/m2/multiple/link-carecontext`;
const tokenRes = await fetch(`${mock.url}/api/m1/abha/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: KEY }) });
const bearer = (await tokenRes.json()).data;

const bare = async () => {
  const res = await fetch(linkUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify(nextRequest()),
  });
  const body = await res.json();
  if (res.status !== 200 || body.success !== true) throw new Error(`bare loop: HTTP ${res.status}`);
};
const client = createClient({ baseUrl: mock.url, apiKey: KEY });
const viaClient = async () => {
  const r = await client.linkCareContexts(nextRequest());
  if (r.success !== true) throw new Error('client: not acknowledged');
};

log(`bench/client: Node ${process.version}, ${os.cpus().length} CPUs; ${ROUNDS} rounds of ${ROUND_MS} ms per loop and concurrency (after one warm-up round)`);
const results = {};
for (const concurrency of [1, 16]) {
  await measure(bare, concurrency, Math.min(1000, ROUND_MS));
  await measure(viaClient, concurrency, Math.min(1000, ROUND_MS));
  const b = [];
  const c = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      b.push(await measure(bare, concurrency, ROUND_MS));
      c.push(await measure(viaClient, concurrency, ROUND_MS));
    } else {
      c.push(await measure(viaClient, concurrency, ROUND_MS));
      b.push(await measure(bare, concurrency, ROUND_MS));
    }
    log(`  concurrency ${concurrency}, round ${i + 1}: bare ${fmt(b[i])} req/s, client ${fmt(c[i])} req/s (${fmt(c[i] / b[i], 3)})`);
  }
  const ratios = b.map((x, i) => c[i] / x);
  results[concurrency] = { bare: median(b), client: median(c), ratio: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}
if (client.tokenRequests !== 1) throw new Error(`the client fetched ${client.tokenRequests} tokens; expected 1`);

// ---------------------------------------------------------------- memory of abha-link submit --ndjson

const useGnuTime = existsSync('/usr/bin/time');
/** Runs the CLI; resolves to { code, ms, rssMiB } (peak RSS of the child). */
function runCli(args, env) {
  return new Promise((resolve) => {
    const rssFile = join(DATA, `client-rss-${process.pid}.txt`);
    const [cmd, argv] = useGnuTime ? ['/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, CLI, ...args]] : [process.execPath, [CLI, ...args]];
    const t0 = performance.now();
    const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    let hwm = 0;
    const poll = useGnuTime
      ? undefined
      : setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (m) hwm = Math.max(hwm, Number(m[1]));
          } catch {
            // The child has just exited: its status file is gone.
          }
        }, 10);
    child.on('close', (code) => {
      if (poll) clearInterval(poll);
      let kb = hwm;
      if (useGnuTime) {
        const lines = existsSync(rssFile) ? readFileSync(rssFile, 'utf8').trim().split('\n') : [];
        kb = Number(lines[lines.length - 1]) || NaN;
        rmSync(rssFile, { force: true });
      }
      resolve({ code, ms: performance.now() - t0, rssMiB: kb / 1024, stderr });
    });
  });
}

async function writeNdjson(path, lines) {
  await new Promise((resolve, reject) => {
    const w = createWriteStream(path);
    w.on('error', reject);
    let i = 0;
    const pump = () => {
      while (i < lines) {
        const ok = w.write(`${JSON.stringify({ ...base, visitId: `RSS-${i}` })}\n`);
        i++;
        if (!ok) return w.once('drain', pump);
      }
      w.end(resolve);
    };
    pump();
  });
}

const memory = [];
if (process.env.BENCH_CLIENT_RSS !== '0') {
  mkdirSync(DATA, { recursive: true });
  const lineBytes = Buffer.byteLength(JSON.stringify(base)) + 1;
  const sizes = [
    { label: 'dry run', lines: [40_000, 160_000], args: ['--dry-run'] },
    { label: 'sent to the mock, concurrency 16', lines: [4_000, 16_000], args: ['--base-url', mock.url, '--concurrency', '16'] },
  ];
  for (const s of sizes) {
    const rss = [];
    for (const n of s.lines) {
      const file = join(DATA, `client-${n}.ndjson`);
      if (!existsSync(file)) await writeNdjson(file, n);
      // The peak RSS of one run moves by 20% with the garbage collector's timing: the median of three runs.
      const runs = [];
      for (let k = 0; k < RSS_RUNS; k++) {
        const r = await runCli(['submit', '--ndjson', ...s.args, file], { ABHA_LINK_API_KEY: KEY });
        if (r.code !== 0) throw new Error(`abha-link submit exited ${r.code}: ${r.stderr.slice(-500)}`);
        runs.push(r);
        log(`  submit --ndjson (${s.label}): ${fmt(n)} lines (${fmt((n * lineBytes) / 1e6, 1)} MB) in ${fmt(r.ms)} ms, peak RSS ${fmt(r.rssMiB, 1)} MiB`);
      }
      rss.push(median(runs.map((r) => r.rssMiB)));
    }
    memory.push({ label: s.label, lines: s.lines, rss, growth: rss[1] / rss[0] });
  }
}
await mock.stop();

// ---------------------------------------------------------------- report

const rows = [];
for (const c of [1, 16]) {
  const r = results[c];
  rows.push([`link requests/s, concurrency ${c}`, fmt(r.client), fmt(r.bare), `${fmt(r.ratio, 3)} (${fmt(r.min, 3)}..${fmt(r.max, 3)})`, `>= ${TARGET} ${r.ratio >= TARGET ? 'met' : 'MISSED'}`]);
}
for (const m of memory) {
  rows.push([
    `peak RSS, submit --ndjson ${m.label}: ${fmt(m.lines[1])} vs ${fmt(m.lines[0])} lines`,
    `${fmt(m.rss[1], 1)} MiB`,
    `${fmt(m.rss[0], 1)} MiB`,
    fmt(m.growth, 2),
    `flat (< 1.25) ${m.growth < 1.25 ? 'met' : 'MISSED'}`,
  ]);
}
const header = ['measure', 'client', 'baseline', 'ratio (median, spread)', 'target'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
process.stdout.write(`${line(header)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n`);
writeFileSync(join(DATA, 'client-last-run.json'), JSON.stringify({ when: new Date().toISOString(), node: process.version, roundMs: ROUND_MS, rounds: ROUNDS, throughput: results, memory }, null, 2));
