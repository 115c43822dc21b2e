/**
 * Benchmark of `abha-link serve`: POST /v1/validate requests per second at
 * concurrency 16 (autocannon), next to a bare fastify route on the same
 * machine that only parses the JSON body and answers {"ok":true}. Target:
 * serve at least 0.7× the bare route. Both servers run in child processes
 * (their own event loops; serve as the CLI runs it, JSON logs included); the
 * load comes from this process. Rounds alternate bare/serve so that drift on
 * a shared machine hits both; medians of the rounds are reported with the
 * spread. Run with `npm run build && node bench/serve.mjs`.
 *
 * Environment:
 *   BENCH_SERVE_ROUND_S   seconds per measured round, default 3
 *   BENCH_SERVE_ROUNDS    measured rounds per server, default 5
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { median } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 16;
const ROUND_S = Number(process.env.BENCH_SERVE_ROUND_S ?? 3);
const ROUNDS = Number(process.env.BENCH_SERVE_ROUNDS ?? 5);
const TOKEN = 'bench-serve-token';

/** The bare route: fastify's own JSON parser, nothing else. Run as `node bench/serve.mjs --bare`. */
async function bare() {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.post('/bare', async (request) => ({ ok: request.body !== undefined }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`listening on ${url}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

/** Starts a server process and resolves to its URL (its first stdout line). */
function start(args, env = {}) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ child, url: line.replace('listening on ', '') });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

/** CPU seconds a process has used so far (Linux /proc; undefined elsewhere). */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** One round: requests per second, and the server's CPU time per request in µs (when /proc tells it). */
async function load(server, path, body, headers, seconds) {
  const cpu0 = cpuSeconds(server.child.pid);
  const r = await autocannon({ url: `${server.url}${path}`, method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, connections: CONNECTIONS, duration: seconds });
  const cpu1 = cpuSeconds(server.child.pid);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${path}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { rate: r.requests.average, cpuUs: cpu0 === undefined || cpu1 === undefined ? undefined : ((cpu1 - cpu0) * 1e6) / r.requests.total };
}

async function main() {
  const body = readFileSync(join(ROOT, 'examples/opd-prescription.request.json'), 'utf8');
  const data = mkdtempSync(join(tmpdir(), 'abha-link-bench-serve-'));
  const b = await start(['bench/serve.mjs', '--bare']);
  const s = await start(['dist/cli/main.js', 'serve', '--port', '0', '--data', data], { ABHA_LINK_SERVE_TOKEN: TOKEN, ABHA_LINK_BASE_URL: '' });
  const auth = { authorization: `Bearer ${TOKEN}` };
  try {
    // Warm-up: both JITs and connection pools.
    await load(b, '/bare', body, {}, 1);
    await load(s, '/v1/validate', body, auth, 1);
    const bareRounds = [];
    const serveRounds = [];
    for (let i = 0; i < ROUNDS; i++) {
      bareRounds.push(await load(b, '/bare', body, {}, ROUND_S));
      serveRounds.push(await load(s, '/v1/validate', body, auth, ROUND_S));
    }
    const ratios = serveRounds.map((x, i) => x.rate / bareRounds[i].rate);
    const spread = (xs, d = 0) => `${median(xs).toFixed(d)} (rounds ${Math.min(...xs).toFixed(d)}-${Math.max(...xs).toFixed(d)})`;
    console.log(`POST /v1/validate, ${Buffer.byteLength(body)} B link request, concurrency ${CONNECTIONS}, ${ROUNDS} rounds of ${ROUND_S} s, load average ${os.loadavg()[0].toFixed(1)}`);
    console.log(`  bare fastify JSON route: ${spread(bareRounds.map((r) => r.rate))} requests/s`);
    console.log(`  abha-link serve:         ${spread(serveRounds.map((r) => r.rate))} requests/s`);
    console.log(`  ratio (requests/s): ${spread(ratios, 2)}x; target >= 0.7x`);
    // On a shared machine the rates follow whoever else runs; the CPU each server spends per request does much less.
    if (bareRounds.every((r) => r.cpuUs !== undefined) && serveRounds.every((r) => r.cpuUs !== undefined)) {
      const bareCpu = median(bareRounds.map((r) => r.cpuUs));
      const serveCpu = median(serveRounds.map((r) => r.cpuUs));
      console.log(`  server CPU per request: bare ${bareCpu.toFixed(0)} µs, serve ${serveCpu.toFixed(0)} µs; ratio ${(bareCpu / serveCpu).toFixed(2)}x (the rate ratio on an idle core)`);
    }
  } finally {
    b.child.kill('SIGTERM');
    s.child.kill('SIGTERM');
    rmSync(data, { recursive: true, force: true });
  }
}

if (process.argv.includes('--bare')) await bare();
else await main();
