/**
 * /healthz under the worst FHIR bundle: `abha-link serve`'s app (dist/) listens
 * on 127.0.0.1, one client POSTs a document bundle of about 6 MB whose
 * Composition lists 200,000 references to entries that are not there (400,000
 * issues before the cap) to /v1/fhir/validate, and another polls /healthz one
 * request after the other until that answer is in. Prints the worst /healthz
 * latency, the number of polls, the validation's own time, the answer's size
 * and issue count, and the worst /healthz latency of the same polling for as
 * long on the idle server afterwards (the baseline). Run after a build: `node bench/serve-healthz.mjs`.
 *
 * The server runs in a child process, so the client's own work is not counted.
 *
 * Environment: BENCH_REFS (references, default 200000); BENCH_TRACE=1 also
 * prints the ten slowest polls as [ms since the POST, ms]; BENCH_PROF=DIR
 * writes the server's CPU profile there.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServeApp } from '../dist/serve/app.js';

if (process.argv[2] === 'server') {
  // No time limit here: the point is how /healthz fares while the whole validation runs.
  const app = await createServeApp({ token: 'bench-token-0123456789abcdef0123', now: () => new Date(), work: { timeLimitMs: 600_000 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${app.server.address().port}\n`);
  process.stdin.on('end', () => void app.close());
  process.stdin.resume();
} else {
  await client();
}

async function client() {
  const refs = Number(process.env.BENCH_REFS ?? 200_000);
  // Built as text (few objects: the client's own garbage collection is not measured).
  const bundle = JSON.parse(readFileSync(new URL('../examples/opd-prescription.bundle.json', import.meta.url), 'utf8'));
  bundle.entry[0].resource.section[0].entry = '@REFS@';
  const refsText = Array.from({ length: refs }, (_, i) => `{"reference":"urn:uuid:${i}"}`).join(',');
  const body = Buffer.from(JSON.stringify(bundle).replace('"@REFS@"', `[${refsText}]`));
  // The server runs in a child process, so that the client's own work is not counted in its latency.
  const child = spawn(process.execPath, [...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROF] : []), fileURLToPath(import.meta.url), 'server'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: 'Bearer bench-token-0123456789abcdef0123', 'content-type': 'application/json' };
  // A running server has served requests before: one small validation first (it starts a worker, where there are workers).
  await (await fetch(`${base}/v1/fhir/validate`, { method: 'POST', headers: auth, body: '{}' })).arrayBuffer();

  let done = false;
  const started = performance.now();
  const validation = fetch(`${base}/v1/fhir/validate`, { method: 'POST', headers: auth, body }).then(async (r) => {
    const text = await r.text();
    done = true;
    return { status: r.status, ms: performance.now() - started, bytes: text.length, json: JSON.parse(text) };
  });
  const lat = [];
  let worst = 0;
  let polls = 0;
  let errors = 0;
  while (!done) {
    const t = performance.now();
    // A connection the stalled server resets counts as an answer that took this long.
    await fetch(`${base}/healthz`).then(
      (r) => r.arrayBuffer(),
      () => errors++,
    );
    const ms = performance.now() - t;
    if (process.env.BENCH_TRACE) lat.push([Math.round(t - started), Math.round(ms)]);
    worst = Math.max(worst, ms);
    polls++;
  }
  const v = await validation;
  // The baseline: the same polling for as long, the server idle (what the machine itself adds).
  let idleWorst = 0;
  const until = performance.now() + v.ms;
  while (performance.now() < until) {
    const t = performance.now();
    await fetch(`${base}/healthz`).then(
      (r) => r.arrayBuffer(),
      () => errors++,
    );
    idleWorst = Math.max(idleWorst, performance.now() - t);
  }
  const issues = (v.json.errors?.length ?? 0) + (v.json.warnings?.length ?? 0);
  console.log(
    JSON.stringify({
      bodyBytes: body.length,
      status: v.status,
      validationMs: Math.round(v.ms),
      answerBytes: v.bytes,
      issuesInAnswer: issues,
      truncated: v.json.truncated ?? false,
      issueCount: v.json.issueCount ?? issues,
      healthzPolls: polls,
      healthzErrors: errors,
      healthzWorstMs: Math.round(worst),
      healthzIdleWorstMs: Math.round(idleWorst),
    }),
  );
  if (process.env.BENCH_TRACE) console.log(JSON.stringify(lat.sort((a, b) => b[1] - a[1]).slice(0, 10)), JSON.stringify(v.json.issues ?? []));
  child.stdin.end();
}
