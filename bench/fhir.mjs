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
 * another build, e.g. /work/before/dist: its build + validate and build are measured in the same
 * rounds, on the same inputs, against the same structured copies, and this build's speed over it is
 * given round by round).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { toFhirBundles, validateFhirBundle } from '../dist/fhir/index.js';
import { summary } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_FHIR_ROUNDS ?? 5);
const MS = Number(process.env.BENCH_FHIR_MS ?? 200);
const ONLY = process.env.BENCH_FHIR_ONLY;
const WARMUP_MS = Number(process.env.BENCH_FHIR_WARMUP_MS ?? 3000);
const BEFORE = process.env.BENCH_BEFORE ? await import(`${resolve(process.env.BENCH_BEFORE)}/fhir/index.js`) : undefined;

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
 * subject's ratio is taken to the baseline of the same round (and `pairs` name subjects compared with
 * each other round by round, e.g. this build against BENCH_BEFORE's), so that a change in the machine's
 * load between rounds moves both sides of every ratio.
 */
function compareAll(subjects, baseline, { rounds, ms }, pairs = []) {
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
  for (const [a, b] of pairs) out[`${a}/${b}`] = { ratio: summary(byName[a].map((x, r) => x / byName[b][r])) };
  return out;
}

/** Build + validate and build alone of one implementation (this build's, or BENCH_BEFORE's). */
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

if (BEFORE !== undefined) warmUp(BEFORE, WARMUP_MS);
warmUp({ toFhirBundles, validateFhirBundle: validate }, WARMUP_MS);

const rows = [];
for (const c of byType.values()) {
  const { bundle } = c;
  const clone = () => structuredClone(bundle).entry.length;
  const ours = subjectsOf({ toFhirBundles, validateFhirBundle: validate }, c);
  const subjects = { bv: ours.bv, b: ours.b, v: () => validate(bundle).issues.length + 1 };
  if (BEFORE !== undefined) Object.assign(subjects, { beforeBv: subjectsOf(BEFORE, c).bv, beforeB: subjectsOf(BEFORE, c).b });
  const m = compareAll(
    subjects,
    clone,
    { rounds: ROUNDS, ms: MS },
    BEFORE === undefined
      ? []
      : [
          ['bv', 'beforeBv'],
          ['b', 'beforeB'],
        ],
  );
  const before = BEFORE === undefined ? undefined : { bv: m.beforeBv, b: m.beforeB, speedBv: m['bv/beforeBv'], speedB: m['b/beforeB'] };
  rows.push({ c, bv: m.bv, b: m.b, v: m.v, before });
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const ratio = (s) => `${s.ratio.median.toFixed(2)} (${s.ratio.min.toFixed(2)}..${s.ratio.max.toFixed(2)})`;
console.log(
  `FHIR benchmark: ${ROUNDS} rounds of about ${MS} ms of CPU time after ${WARMUP_MS} ms of warm-up, medians (min..max); ratios to structuredClone of the same bundle, every subject and the copy once per round in turning order\n`,
);
console.log(`${'record type (example)'.padEnd(44)}${'entries'.padStart(8)}${'bytes'.padStart(8)}${'build+validate/s'.padStart(18)}  ${'vs clone'.padEnd(18)}${'build'.padEnd(18)}validate`);
for (const { c, bv, b, v, before } of rows) {
  const label = `${c.hiType} (${c.file.replace('.input.json', '')})`;
  console.log(
    `${label.padEnd(44)}${String(c.bundle.entry.length).padStart(8)}${String(JSON.stringify(c.bundle).length).padStart(8)}${fmt(bv.subject.median).padStart(18)}  ${ratio(bv).padEnd(18)}${ratio(b).padEnd(18)}${ratio(v)}`,
  );
  if (before !== undefined) {
    console.log(`${'  before (BENCH_BEFORE)'.padEnd(60)}${fmt(before.bv.subject.median).padStart(18)}  ${ratio(before.bv).padEnd(18)}${ratio(before.b)}`);
    console.log(`${'  this build / before, same rounds'.padEnd(78)}  ${ratio(before.speedBv).padEnd(18)}${ratio(before.speedB)}`);
  }
}
console.log(`\nstructuredClone of each bundle, per second of CPU time: ${rows.map(({ c, bv }) => `${c.hiType} ${fmt(bv.baseline.median)}`).join(', ')}`);
console.log('"build + validate" builds a fresh bundle and validates it; "validate" validates the same bundle again and again (warm).');
console.log('Target: build + validate >= 0.50x the structured copy.');
if (sink === -1) console.log('');
