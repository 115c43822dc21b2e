/**
 * Peak memory of the client against hostile answers to the link call: an
 * endless body (the server writes 64 KiB chunks as fast as the socket takes
 * them, forever) and a gzip bomb (256 MiB of zeros, about 256 KB on the wire).
 * The server runs here; each case runs the client in a fresh child process,
 * which reports its own peak RSS (`process.resourceUsage().maxRSS`), the
 * error it got and its time to settle. The baseline is the same child's peak
 * RSS after a normal small answer, measured in the same run.
 *
 *   npm run build && node bench/client-hostile.mjs [DIST_DIR]
 *
 * DIST_DIR (default ./dist) lets an older build be measured the same way.
 * BENCH_HOSTILE_TIMEOUT_MS sets the client's attempt timeout (default 5000),
 * which is what stops a client that reads without a cap.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { createGzip } from 'node:zlib';

const dist = resolve(process.argv[2] ?? 'dist');
const timeoutMs = Number(process.env.BENCH_HOSTILE_TIMEOUT_MS ?? 5000);
const chunk = Buffer.alloc(64 * 1024, 0x20);
// Compressed in a stream, so that this process never holds the 256 MiB (a child inherits its
// parent's peak RSS on Linux).
const bomb = await new Promise((done) => {
  const gz = createGzip({ level: 9 });
  const parts = [];
  gz.on('data', (d) => parts.push(d));
  gz.on('end', () => done(Buffer.concat(parts)));
  let left = 4096;
  const feed = () => {
    while (left > 0) {
      left--;
      if (!gz.write(chunk)) return gz.once('drain', feed);
    }
    gz.end();
  };
  feed();
});
let mode = 'normal';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url?.endsWith('/token')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: true, data: 'bench-token' }));
      return;
    }
    if (mode === 'normal') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, message: 'linked', data: {} }));
      return;
    }
    if (mode === 'gzip-bomb') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"success":true,"message":"');
    const pump = () => {
      while (res.write(chunk)) if (res.destroyed) return;
    };
    res.on('drain', pump);
    res.on('close', () => res.off('drain', pump));
    pump();
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

const child = `
const { createClient } = await import(${JSON.stringify(`${dist}/client/index.js`)});
const fs = await import('node:fs');
const request = JSON.parse(fs.readFileSync(${JSON.stringify(resolve('examples/opd-prescription.request.json'))}, 'utf8'));
const c = createClient({ baseUrl: ${JSON.stringify(baseUrl)}, apiKey: 'bench-key', timeoutMs: ${timeoutMs}, retry: false });
const t0 = performance.now();
let outcome;
try { await c.linkCareContexts(request); outcome = 'acknowledged'; }
catch (e) { outcome = e.name + (e.reason ? ' ' + e.reason : '') + (e.failure ? ' ' + e.failure : ''); }
process.stdout.write(JSON.stringify({ outcome, ms: Math.round(performance.now() - t0), maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }));
`;

async function run(m) {
  mode = m;
  const p = spawn(process.execPath, ['--input-type=module', '-e', child], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.stdout.on('data', (d) => (out += d));
  const code = await new Promise((r) => p.on('close', (c, sig) => r(sig ?? c)));
  try {
    return JSON.parse(out);
  } catch {
    return { outcome: `child ended without a result (exit ${code})`, ms: NaN, maxRssMiB: NaN };
  }
}

const baseline = await run('normal');
const results = { baseline, endless: await run('endless'), gzipBomb: await run('gzip-bomb') };
server.closeAllConnections();
server.close();
console.log(`dist: ${dist}, attempt timeout ${timeoutMs} ms`);
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(9)} ${String(r.maxRssMiB).padStart(6)} MiB peak RSS (${(r.maxRssMiB / baseline.maxRssMiB).toFixed(2)}x the baseline), ${r.ms} ms, ${r.outcome}`);
}
