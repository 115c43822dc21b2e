/**
 * Benchmark of the FHIR layer: NRCeS document bundles built and validated
 * per second for a typical visit (examples/opd-prescription.input.json: five
 * medications, three diagnoses). Run after a build: `node bench/fhir.mjs`.
 *
 * Figures are reported as ratios against baselines measured in the same run
 * (the machines are shared and noisy; only ratios compare between runs):
 *   - buildLinkRequest of the same visit (the core builder, schema and lint);
 *   - a structured copy of the bundle (JSON.parse(JSON.stringify(bundle))),
 *     the least any code that touches every node of the bundle costs.
 * Each measurement has a warm-up and several timed rounds; the median is
 * reported with the spread (min..max).
 *
 * Environment: BENCH_FHIR_ROUNDS (default 7), BENCH_FHIR_MS (one round, default 400).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildLinkRequest } from '../dist/index.js';
import { toFhirBundles, validateFhirBundle } from '../dist/fhir/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_FHIR_ROUNDS ?? 7);
const MS = Number(process.env.BENCH_FHIR_MS ?? 400);

const inputText = readFileSync(`${ROOT}examples/opd-prescription.input.json`, 'utf8');
const input = JSON.parse(inputText);
const timestamp = new Date('2026-11-20T06:00:00Z');
const first = toFhirBundles(input, { timestamp });
if (!first.success) throw new Error('the example does not build');
const bundle = first.bundles[0].bundle;
if (!validateFhirBundle(bundle).success) throw new Error('the example bundle does not validate');

/** Operations per second of fn: median of ROUNDS rounds of MS milliseconds, after a warm-up. */
function measure(fn) {
  const until = performance.now() + MS;
  while (performance.now() < until) fn();
  const rates = [];
  for (let r = 0; r < ROUNDS; r++) {
    let n = 0;
    const start = performance.now();
    let now = start;
    while (now - start < MS) {
      fn();
      n++;
      if ((n & 7) === 0) now = performance.now();
    }
    now = performance.now();
    rates.push((n * 1000) / (now - start));
  }
  rates.sort((a, b) => a - b);
  return { median: rates[Math.floor(rates.length / 2)], min: rates[0], max: rates[rates.length - 1] };
}

let sink = 0;
const results = {
  'baseline: buildLinkRequest (core builder)': measure(() => {
    sink += buildLinkRequest(input, { lint: false }).careContexts.length;
  }),
  'baseline: structured copy of the bundle': measure(() => {
    sink += JSON.parse(JSON.stringify(bundle)).entry.length;
  }),
  'toFhirBundles (build)': measure(() => {
    const r = toFhirBundles(input, { timestamp });
    sink += r.success ? r.bundles.length : 0;
  }),
  'validateFhirBundle (validate)': measure(() => {
    sink += validateFhirBundle(bundle).issues.length;
  }),
  'build + validate': measure(() => {
    const r = toFhirBundles(input, { timestamp });
    if (r.success) for (const d of r.bundles) sink += validateFhirBundle(d.bundle).issues.length;
  }),
};

const core = results['baseline: buildLinkRequest (core builder)'].median;
const copy = results['baseline: structured copy of the bundle'].median;
const fmt = (n) => n.toFixed(0).padStart(8);
console.log(`FHIR benchmark: a typical visit (5 medications, 3 diagnoses), bundle of ${bundle.entry.length} entries, ${JSON.stringify(bundle).length} bytes`);
console.log(`${ROUNDS} rounds of ${MS} ms each; median ops/s (min..max), and ratios to the same-run baselines\n`);
console.log(`${'measurement'.padEnd(44)}${'ops/s'.padStart(8)}  ${'spread'.padEnd(18)} vs builder  vs copy`);
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(44)}${fmt(r.median)}  ${`${r.min.toFixed(0)}..${r.max.toFixed(0)}`.padEnd(18)} ${(r.median / core).toFixed(2).padStart(9)}  ${(r.median / copy).toFixed(2).padStart(7)}`);
}
if (sink === -1) console.log('');
