/**
 * Benchmark of the FHIR layer: NRCeS document bundles built and validated
 * per second, for every record type that has an example (each care context
 * of every examples/*.input.json, made a one-care-context input; per type
 * the one with the largest bundle), next to a structured copy of the same bundle. Run after a build: `node bench/fhir.mjs`.
 *
 * Figures are ratios against baselines measured in the same run, round by
 * round (each round runs the copy and every subject once, in an order that
 * turns each round), because the machines are shared and noisy; only ratios
 * compare between runs. Time is this process's CPU time (process.cpuUsage),
 * not the wall clock, so that other jobs on the machine count less:
 *   - `structuredClone(bundle)`: a structured copy, the least any code that
 *     makes every node of the bundle costs (the target: build + validate at
 *     least 0.5x of it);
 * `toFhirBundles` includes lint (on by default) and the bidi-isolated narratives.
 *
 * Before measuring, every case is built and validated for BENCH_FHIR_WARMUP_MS of CPU time (default
 * 3000, per implementation), so that the rounds measure code the JIT has compiled (V8 optimises a function
 * after some thousands of calls, and its compiler's threads count in the process's CPU time) rather than
 * the first calls of a process; `BENCH_FHIR_WARMUP_MS=0` measures from a cold start.
 *
 * Environment: BENCH_FHIR_ROUNDS (default 5), BENCH_FHIR_MS (CPU time of each subject in one round,
 * default 200), BENCH_FHIR_ONLY (a hiType: measure that one only), BENCH_BEFORE (the dist/ directory of
 * another build, e.g. /work/before/dist: measured after this one, by the same script in a process of
 * its own, with its own warm-up and its own structured copies; each build's ratios are to the copies
 * of its own process, and "this build / before" divides the two medians). Two builds loaded in one
 * process disturb each other (each fills V8's shared caches with its own object shapes, and not
 * evenly: two builds of one commit measured 0.43 and 0.57 side by side), so each gets a process.
 * BENCH_FHIR_DIST (the dist/ directory to measure, default this checkout's) and BENCH_FHIR_JSON=1
 * (print the figures as JSON) are how the script runs itself for BENCH_BEFORE.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { summary } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_FHIR_ROUNDS ?? 5);
const MS = Number(process.env.BENCH_FHIR_MS ?? 200);
const ONLY = process.env.BENCH_FHIR_ONLY;
const WARMUP_MS = Number(process.env.BENCH_FHIR_WARMUP_MS ?? 3000);
const BEFORE = process.env.BENCH_BEFORE ? resolve(process.env.BENCH_BEFORE) : undefined;
const DIST = process.env.BENCH_FHIR_DIST ? resolve(process.env.BENCH_FHIR_DIST) : fileURLToPath(new URL('../dist', import.meta.url));
const JSON_OUT = process.env.BENCH_FHIR_JSON === '1';
const { toFhirBundles, validateFhirBundle } = await import(pathToFileURL(`${DIST}/fhir/index.js`).href);

/**
 * The validator measured. One place to switch: the profile-driven NRCeS
 * validator replaces this call when it lands.
 */
const validate = (bundle) => validateFhirBundle(bundle);

/** Synthetic bytes for a documentUrl (NRCeS needs the document embedded). */
const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

/** Every care context of every example input, as a one-care-context input of its own, with its documents. */
function cases() {
  const out = [];
  const names = readdirSync(`${ROOT}examples`)
    .filter((f) => f.endsWith('.input.json'))
    .sort();
  for (const file of names) {
    const input = JSON.parse(readFileSync(`${ROOT}examples/${file}`, 'utf8'));
    const singles = Array.isArray(input.careContexts) ? input.careContexts.map((cc) => ({ ...input, careContexts: [cc] })) : [input];
    for (const one of singles) {
      const urls = [one.documentUrl, ...(one.careContexts ?? []).map((c) => c.documentUrl)].filter((u) => typeof u === 'string');
      const options = { attachments: Object.fromEntries(urls.map((u) => [u, { contentType: 'application/pdf', data: PDF }])) };
      const r = toFhirBundles(one, options);
      if (!r.success) throw new Error(`${file} does not build: ${r.issues.map((i) => `${i.path} ${i.code}`).join('; ')}`);
      const [d] = r.bundles;
      if (!validate(d.bundle).success) throw new Error(`${file} ${d.hiType}: the bundle does not validate`);
      out.push({ file, hiType: d.hiType, input: one, options, bundle: d.bundle });
    }
  }
  return out;
}

// One case per record type: the example with the largest bundle of that type.
const byType = new Map();
for (const c of cases()) {
  const seen = byType.get(c.hiType);
  if ((ONLY === undefined || ONLY === c.hiType) && (seen === undefined || c.bundle.entry.length > seen.bundle.entry.length)) byType.set(c.hiType, c);
}

let sink = 0;

/** Calls per second of CPU time: `n` calls of fn. */
function cpuRate(fn, n) {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) sink ^= fn();
  const used = process.cpuUsage(start);
  return n / ((used.user + used.system) / 1e6);
}

/** How many calls take about `ms` of CPU time. */
function callsFor(fn, ms) {
  let n = 1;
  for (;;) {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) sink ^= fn();
    const used = process.cpuUsage(start);
    if (used.user + used.system >= 20_000) return Math.max(1, Math.round((n * ms * 1000) / (used.user + used.system)));
    n *= 2;
  }
}

/**
 * The baseline and every subject run once per round, in an order that turns by one each round; each
 * subject's ratio is taken to the baseline of the same round, so that a change in the machine's load
 * between rounds moves both sides of every ratio.
 */
function compareAll(subjects, baseline, { rounds, ms }) {
  const all = [['baseline', baseline], ...Object.entries(subjects)];
  const calls = all.map(([, fn]) => callsFor(fn, ms));
  all.forEach(([, fn], i) => cpuRate(fn, calls[i]));
  const rates = all.map(() => []);
  for (let r = 0; r < rounds; r++)
    for (let k = 0; k < all.length; k++) {
      const i = (k + r) % all.length;
      rates[i].push(cpuRate(all[i][1], calls[i]));
    }
  const byName = Object.fromEntries(all.map(([name], i) => [name, rates[i]]));
  const out = {};
  for (const name of Object.keys(subjects)) out[name] = { subject: summary(byName[name]), baseline: summary(byName.baseline), ratio: summary(byName[name].map((x, r) => x / byName.baseline[r])) };
  return out;
}

/** Build + validate and build alone of one implementation. */
function subjectsOf(impl, { input, options }) {
  return {
    bv: () => {
      const r = impl.toFhirBundles(input, options);
      return r.success ? impl.validateFhirBundle(r.bundles[0].bundle).issues.length + 1 : 0;
    },
    b: () => (impl.toFhirBundles(input, options).success ? 1 : 0),
  };
}

/** Builds and validates every case, in turn, for about `ms` of CPU time. */
function warmUp(impl, ms) {
  const start = process.cpuUsage();
  const spent = () => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  while (spent() < ms)
    for (const { input, options } of byType.values())
      for (let i = 0; i < 20; i++) {
        const r = impl.toFhirBundles(input, options);
        if (r.success) sink ^= impl.validateFhirBundle(r.bundles[0].bundle).issues.length;
      }
}

warmUp({ toFhirBundles, validateFhirBundle: validate }, WARMUP_MS);

const rows = [];
for (const c of byType.values()) {
  const { bundle } = c;
  const clone = () => structuredClone(bundle).entry.length;
  const ours = subjectsOf({ toFhirBundles, validateFhirBundle: validate }, c);
  const subjects = { bv: ours.bv, b: ours.b, v: () => validate(bundle).issues.length + 1 };
  const m = compareAll(subjects, clone, { rounds: ROUNDS, ms: MS });
  rows.push({ c, bv: m.bv, b: m.b, v: m.v });
}

if (JSON_OUT) {
  process.stdout.write(`${JSON.stringify(rows.map(({ c, bv, b, v }) => ({ hiType: c.hiType, bv, b, v })))}\n`);
  process.exit(0);
}

/** BENCH_BEFORE's figures, by hiType: this script run on its dist/ in a process of its own. */
const before = new Map();
if (BEFORE !== undefined) {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_BEFORE: '', BENCH_FHIR_DIST: BEFORE, BENCH_FHIR_JSON: '1' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.status !== 0) {
    process.stderr.write(`bench/fhir.mjs: the run of BENCH_BEFORE (${BEFORE}) failed with exit code ${child.status}\n`);
    process.exit(1);
  }
  for (const row of JSON.parse(child.stdout)) before.set(row.hiType, row);
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const ratio = (s) => `${s.ratio.median.toFixed(2)} (${s.ratio.min.toFixed(2)}..${s.ratio.max.toFixed(2)})`;
console.log(
  `FHIR benchmark: ${ROUNDS} rounds of about ${MS} ms of CPU time after ${WARMUP_MS} ms of warm-up, medians (min..max); ratios to structuredClone of the same bundle, every subject and the copy once per round in turning order\n`,
);
console.log(`${'record type (example)'.padEnd(44)}${'entries'.padStart(8)}${'bytes'.padStart(8)}${'build+validate/s'.padStart(18)}  ${'vs clone'.padEnd(18)}${'build'.padEnd(18)}validate`);
for (const { c, bv, b, v } of rows) {
  const label = `${c.hiType} (${c.file.replace('.input.json', '')})`;
  console.log(
    `${label.padEnd(44)}${String(c.bundle.entry.length).padStart(8)}${String(JSON.stringify(c.bundle).length).padStart(8)}${fmt(bv.subject.median).padStart(18)}  ${ratio(bv).padEnd(18)}${ratio(b).padEnd(18)}${ratio(v)}`,
  );
  const then = before.get(c.hiType);
  if (then !== undefined) {
    console.log(`${'  before (BENCH_BEFORE, its own process)'.padEnd(60)}${fmt(then.bv.subject.median).padStart(18)}  ${ratio(then.bv).padEnd(18)}${ratio(then.b).padEnd(18)}${ratio(then.v)}`);
    const speed = (now, was) => (now.ratio.median / was.ratio.median).toFixed(2);
    console.log(`${'  this build / before (medians of the ratios)'.padEnd(78)}  ${speed(bv, then.bv).padEnd(18)}${speed(b, then.b).padEnd(18)}${speed(v, then.v)}`);
  }
}
console.log(`\nstructuredClone of each bundle, per second of CPU time: ${rows.map(({ c, bv }) => `${c.hiType} ${fmt(bv.baseline.median)}`).join(', ')}`);
console.log('"build + validate" builds a fresh bundle and validates it; "validate" validates the same bundle again and again (warm).');
console.log('Target: build + validate >= 0.50x the structured copy.');
if (sink === -1) console.log('');
