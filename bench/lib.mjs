/**
 * Timing helpers shared by the benchmarks. Figures are reported as ratios to a
 * baseline measured in the same run, because these machines are shared and noisy.
 */
import { spawn } from 'node:child_process';

/** The median of a list of numbers. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Median, minimum, maximum and the samples. */
export const summary = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs), samples: xs });

let sink = 0;

/** Runs fn for about `ms` and returns the rate in calls per second. */
export function rate(fn, ms, batch) {
  let n = 0;
  const t0 = performance.now();
  let t;
  do {
    for (let i = 0; i < batch; i++) sink ^= fn();
    n += batch;
    t = performance.now();
  } while (t - t0 < ms);
  return n / ((t - t0) / 1000);
}

/** A batch size that takes about 1 ms, so that reading the clock costs nothing. */
export function calibrate(fn) {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 50) {
    sink ^= fn();
    n++;
  }
  return Math.max(1, Math.round(n / 50));
}

/**
 * Subject and baseline alternate round by round (ABBA order) so that a slow
 * spell of the machine hits both; the ratio is taken within each round.
 */
export function compare(subject, baseline, { rounds, ms }) {
  const bs = calibrate(subject);
  const bb = calibrate(baseline);
  // Warm-up: enough calls for the JIT to settle on both.
  rate(subject, 400, bs);
  rate(baseline, 400, bb);
  const s = [];
  const b = [];
  const r = [];
  for (let i = 0; i < rounds; i++) {
    let rs;
    let rb;
    if (i % 2 === 0) {
      rs = rate(subject, ms, bs);
      rb = rate(baseline, ms, bb);
    } else {
      rb = rate(baseline, ms, bb);
      rs = rate(subject, ms, bs);
    }
    s.push(rs);
    b.push(rb);
    r.push(rs / rb);
  }
  return { subject: summary(s), baseline: summary(b), ratio: summary(r), sink };
}

/**
 * The mock of the upstream service (the built dist/mock) in a child process,
 * so that its work is not counted in this one's; resolves to { url, stop }.
 */
export function startMock(apiKey) {
  const code = `import { startMockServer } from ${JSON.stringify(new URL('../dist/mock/index.js', import.meta.url).href)};
const m = await startMockServer({ apiKey: ${JSON.stringify(apiKey)}, keepBodies: 0 });
process.stdout.write(m.url + '\\n');
process.on('SIGTERM', () => m.close().then(() => process.exit(0)));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ url: out.trim(), pid: child.pid, stop: () => new Promise((r) => (child.on('exit', r), child.kill('SIGTERM'))) });
    });
    child.on('exit', (c) => reject(new Error(`mock exited with ${c}`)));
  });
}
