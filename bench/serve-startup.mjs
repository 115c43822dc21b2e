/**
 * Start-up of `abha-link serve` with the embedded queue (PGlite), as a
 * hospital runs it (an upstream configured, so the queue opens): the time
 * from spawning the process to its first stdout line ("listening on URL"),
 * and to the first /readyz that answers 200 (the queue open, submissions
 * taken), for
 *
 * - a cold start: an empty data directory (the embedded database is made);
 * - a restart: the same directory after the previous process was killed
 *   with SIGKILL (`kill -9`; the database recovers, the lock is stale),
 *
 * each as a ratio to a bare fastify server's start (import fastify, listen,
 * print the line) measured in the same round. Rounds alternate the order of
 * the subjects, since the machine is shared; medians of the per-round ratios
 * are reported, with their spread. Targets (issue 21): a restart within 3x,
 * a cold start within 6x of the bare start, to the first line.
 *
 * BENCH_BEFORE=DIR also measures another build in the same rounds: DIR holds
 * its dist/ and a node_modules (for instance a copy of main's dist/ beside a
 * symbolic link to a node_modules), so that before and after share the
 * machine's state. Run after `npm run build`: node bench/serve-startup.mjs
 *
 * Environment:
 *   BENCH_STARTUP_ROUNDS  rounds, default 5
 *   BENCH_BEFORE          the root of another build to measure beside this one
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, startMock } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'bench-startup-token';
const KEY = 'bench-startup-api-key';
/** Targets of issue 21, as multiples of the bare fastify start. */
export const TARGETS = { restart: 3, cold: 6 };

/** The baseline: fastify imported, one route, listening, the line printed. Run as `node bench/serve-startup.mjs --bare`. */
async function bare() {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok' }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`listening on ${url}\n`);
}

/**
 * Spawns `args`, resolves to the ms to its first stdout line and (with
 * `ready`) to the first /readyz 200, then kills it with SIGKILL and waits
 * for its end.
 */
function timeStart(args, env, ready) {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  const exited = new Promise((r) => child.on('exit', r));
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let settled = false;
    child.on('exit', (code, signal) => {
      if (!settled) reject(new Error(`${args.join(' ')} ended (${code ?? signal}) before its first line:\n${err}`));
    });
    child.stdout.on('data', async (d) => {
      if (out.includes('\n')) return;
      out += d;
      if (!out.includes('\n')) return;
      const firstLine = performance.now() - t0;
      let readyMs;
      if (ready) {
        const url = out.split('\n')[0].replace('listening on ', '');
        for (;;) {
          const r = await fetch(`${url}/readyz`, { headers: { authorization: `Bearer ${TOKEN}` } }).catch(() => undefined);
          await r?.arrayBuffer();
          if (r?.status === 200) break;
          await new Promise((w) => setTimeout(w, 10));
        }
        readyMs = performance.now() - t0;
      }
      settled = true;
      child.kill('SIGKILL');
      await exited;
      resolvePromise({ firstLine, ready: readyMs });
    });
  });
}

/** One build's cold start and restart on a fresh data directory. */
async function serveStarts(root, mockUrl) {
  const dir = mkdtempSync(join(os.tmpdir(), 'abha-link-bench-startup-'));
  const data = join(dir, 'data');
  const args = [join(root, 'dist', 'cli', 'main.js'), 'serve', '--port', '0', '--data', data];
  const env = { ABHA_LINK_SERVE_TOKEN: TOKEN, ABHA_LINK_BASE_URL: mockUrl, ABHA_LINK_API_KEY: KEY };
  try {
    const cold = await timeStart(args, env, true);
    const restart = await timeStart(args, env, true);
    return { cold, restart };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (x, d = 0) => x.toFixed(d);
const spread = (xs, d = 2) => `${fmt(median(xs), d)} (${fmt(Math.min(...xs), d)}-${fmt(Math.max(...xs), d)})`;

async function main() {
  const rounds = Math.max(1, Math.round(Number(process.env.BENCH_STARTUP_ROUNDS ?? 5)));
  const before = process.env.BENCH_BEFORE ? resolve(process.env.BENCH_BEFORE) : undefined;
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  if (before !== undefined && !existsSync(join(before, 'dist', 'cli', 'main.js'))) throw new Error(`BENCH_BEFORE: ${before}/dist/cli/main.js is missing`);
  const builds = [{ name: 'this build', root: ROOT }, ...(before === undefined ? [] : [{ name: `before (${before})`, root: before }])];
  const mock = await startMock(KEY);
  const load0 = os.loadavg()[0];
  const bareMs = [];
  const samples = new Map(builds.map((b) => [b.name, []]));
  try {
    // Warm-up: the file system cache and the mock.
    await timeStart([fileURLToPath(import.meta.url), '--bare'], {}, false);
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? [...builds] : [...builds].reverse();
      const runBare = async () => bareMs.push((await timeStart([fileURLToPath(import.meta.url), '--bare'], {}, false)).firstLine);
      if (i % 2 === 0) await runBare();
      for (const b of order) samples.get(b.name).push(await serveStarts(b.root, mock.url));
      if (i % 2 === 1) await runBare();
      const last = builds.map((b) => {
        const s = samples.get(b.name).at(-1);
        return `${b.name}: cold ${fmt(s.cold.firstLine)}/${fmt(s.cold.ready)} ms, restart ${fmt(s.restart.firstLine)}/${fmt(s.restart.ready)} ms`;
      });
      process.stderr.write(`round ${i + 1}: bare ${fmt(bareMs.at(-1))} ms; ${last.join('; ')} (first line/ready)\n`);
    }
  } finally {
    await mock.stop();
  }
  console.log(`\n## Start-up of abha-link serve, embedded queue (bench/serve-startup.mjs)\n`);
  console.log(`${rounds} rounds, load average ${fmt(load0, 1)} at the start and ${fmt(os.loadavg()[0], 1)} at the end; bare fastify start ${spread(bareMs, 0)} ms.`);
  console.log('Ratios to the bare fastify start of the same round: median (min-max).\n');
  console.log('| Build | Start | first line (ms) | first line / bare | target | /readyz 200 (ms) | ready / bare |\n|---|---|---|---|---|---|---|');
  for (const b of builds) {
    for (const kind of ['cold', 'restart']) {
      const s = samples.get(b.name).map((x) => x[kind]);
      const first = s.map((x, i) => x.firstLine / bareMs[i]);
      const ready = s.map((x, i) => x.ready / bareMs[i]);
      const met = median(first) <= TARGETS[kind] ? 'met' : 'NOT met';
      console.log(
        `| ${b.name} | ${kind} | ${spread(
          s.map((x) => x.firstLine),
          0,
        )} | ${spread(first)} | <= ${TARGETS[kind]}x ${met} | ${spread(
          s.map((x) => x.ready),
          0,
        )} | ${spread(ready)} |`,
      );
    }
  }
}

if (process.argv.includes('--bare')) await bare();
else await main();
