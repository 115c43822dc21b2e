/**
 * Benchmark of the FHIR layer: NRCeS document bundles built and validated
 * per second, for every record type that has an example (each care context
 * of every examples/*.input.json, made a one-care-context input; per type
 * the one with the largest bundle), next to a structured copy of the same bundle. Run after a build: `node bench/fhir.mjs`.
 *
 * Figures are ratios against baselines measured in the same run, alternating
 * round by round, because the machines are shared and noisy; only ratios
 * compare between runs. Time is this process's CPU time (process.cpuUsage),
 * not the wall clock, so that other jobs on the machine count less:
 *   - `structuredClone(bundle)`: a structured copy, the least any code that
 *     makes every node of the bundle costs (the target: build + validate at
 *     least 0.5x of it);
 * `toFhirBundles` includes lint (on by default) and the bidi-isolated narratives.
 *
 * Environment: BENCH_FHIR_ROUNDS (default 5), BENCH_FHIR_MS (CPU time of one round, default 200),
 * BENCH_FHIR_ONLY (a hiType: measure that one only), BENCH_BEFORE (the dist/ directory of another
 * build, e.g. /work/before/dist: its build + validate and build are measured in the same run, on
 * the same inputs, against the same structured copies).
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

/** Subject and baseline alternate round by round (ABBA); the ratio is taken within each round. */
function compare(subject, baseline, { rounds, ms }) {
  const ns = callsFor(subject, ms);
  const nb = callsFor(baseline, ms);
  cpuRate(subject, ns);
  cpuRate(baseline, nb);
  const s = [];
  const b = [];
  const r = [];
  for (let i = 0; i < rounds; i++) {
    let rs;
    let rb;
    if (i % 2 === 0) {
      rs = cpuRate(subject, ns);
      rb = cpuRate(baseline, nb);
    } else {
      rb = cpuRate(baseline, nb);
      rs = cpuRate(subject, ns);
    }
    s.push(rs);
    b.push(rb);
    r.push(rs / rb);
  }
  return { subject: summary(s), baseline: summary(b), ratio: summary(r) };
}

/** Build + validate and build alone of one implementation (this build's, or BENCH_BEFORE's), each against the structured copy. */
function measure(impl, { input, options, bundle }) {
  const buildValidate = () => {
    const r = impl.toFhirBundles(input, options);
    return r.success ? impl.validateFhirBundle(r.bundles[0].bundle).issues.length + 1 : 0;
  };
  const clone = () => structuredClone(bundle).entry.length;
  const build = () => (impl.toFhirBundles(input, options).success ? 1 : 0);
  return { bv: compare(buildValidate, clone, { rounds: ROUNDS, ms: MS }), b: compare(build, clone, { rounds: ROUNDS, ms: MS }) };
}

const rows = [];
for (const c of byType.values()) {
  const { bundle } = c;
  const clone = () => structuredClone(bundle).entry.length;
  const check = () => validate(bundle).issues.length + 1;
  const before = BEFORE === undefined ? undefined : measure(BEFORE, c);
  const { bv, b } = measure({ toFhirBundles, validateFhirBundle: validate }, c);
  const v = compare(check, clone, { rounds: ROUNDS, ms: MS });
  rows.push({ c, bv, b, v, before });
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const ratio = (s) => `${s.ratio.median.toFixed(2)} (${s.ratio.min.toFixed(2)}..${s.ratio.max.toFixed(2)})`;
console.log(`FHIR benchmark: ${ROUNDS} rounds of about ${MS} ms of CPU time, medians (min..max); ratios to structuredClone of the same bundle, measured in alternating rounds\n`);
console.log(`${'record type (example)'.padEnd(44)}${'entries'.padStart(8)}${'bytes'.padStart(8)}${'build+validate/s'.padStart(18)}  ${'vs clone'.padEnd(18)}${'build'.padEnd(18)}validate`);
for (const { c, bv, b, v, before } of rows) {
  const label = `${c.hiType} (${c.file.replace('.input.json', '')})`;
  console.log(
    `${label.padEnd(44)}${String(c.bundle.entry.length).padStart(8)}${String(JSON.stringify(c.bundle).length).padStart(8)}${fmt(bv.subject.median).padStart(18)}  ${ratio(bv).padEnd(18)}${ratio(b).padEnd(18)}${ratio(v)}`,
  );
  if (before !== undefined) console.log(`${'  before (BENCH_BEFORE)'.padEnd(60)}${fmt(before.bv.subject.median).padStart(18)}  ${ratio(before.bv).padEnd(18)}${ratio(before.b)}`);
}
console.log(`\nstructuredClone of each bundle, per second of CPU time: ${rows.map(({ c, bv }) => `${c.hiType} ${fmt(bv.baseline.median)}`).join(', ')}`);
console.log('"build + validate" builds a fresh bundle and validates it; "validate" validates the same bundle again and again (warm).');
console.log('Target: build + validate >= 0.50x the structured copy.');
if (sink === -1) console.log('');
