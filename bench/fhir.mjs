/**
 * Benchmark of the FHIR layer: NRCeS document bundles built and validated
 * per second, for every record type that has an example (each care context
 * of every examples/*.input.json, made a one-care-context input), next to
 * a structured copy of the same bundle. Run after a build: `node bench/fhir.mjs`.
 *
 * Figures are ratios against baselines measured in the same run, alternating
 * round by round (bench/lib.mjs `compare`), because the machines are shared
 * and noisy; only ratios compare between runs:
 *   - `structuredClone(bundle)`: a structured copy, the least any code that
 *     makes every node of the bundle costs (the target: build + validate at
 *     least 0.5x of it);
 *   - `JSON.parse(JSON.stringify(bundle))`, the other usual copy, for reference.
 * `toFhirBundles` includes lint (on by default) and the bidi-isolated narratives.
 *
 * Environment: BENCH_FHIR_ROUNDS (default 7), BENCH_FHIR_MS (one round, default 300),
 * BENCH_FHIR_ONLY (a hiType: measure that one only).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toFhirBundles, validateFhirBundle } from '../dist/fhir/index.js';
import { compare } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_FHIR_ROUNDS ?? 7);
const MS = Number(process.env.BENCH_FHIR_MS ?? 300);
const ONLY = process.env.BENCH_FHIR_ONLY;

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

// One case per record type: the first example that has it.
const byType = new Map();
for (const c of cases()) if (!byType.has(c.hiType) && (ONLY === undefined || ONLY === c.hiType)) byType.set(c.hiType, c);

let sink = 0;
const rows = [];
for (const c of byType.values()) {
  const { input, options, bundle } = c;
  const buildValidate = () => {
    const r = toFhirBundles(input, options);
    return r.success ? validate(r.bundles[0].bundle).issues.length + 1 : 0;
  };
  const clone = () => structuredClone(bundle).entry.length;
  const jsonCopy = () => JSON.parse(JSON.stringify(bundle)).entry.length;
  const build = () => (toFhirBundles(input, options).success ? 1 : 0);
  const check = () => validate(bundle).issues.length + 1;
  const bv = compare(buildValidate, clone, { rounds: ROUNDS, ms: MS });
  const b = compare(build, clone, { rounds: ROUNDS, ms: MS });
  const v = compare(check, clone, { rounds: ROUNDS, ms: MS });
  const j = compare(jsonCopy, clone, { rounds: ROUNDS, ms: MS });
  sink += bv.sink + b.sink + v.sink + j.sink;
  rows.push({ c, bv, b, v, j });
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const ratio = (s) => `${s.ratio.median.toFixed(2)} (${s.ratio.min.toFixed(2)}..${s.ratio.max.toFixed(2)})`;
console.log(`FHIR benchmark: ${ROUNDS} rounds of ${MS} ms, medians; ratios to structuredClone of the same bundle, measured in alternating rounds\n`);
console.log(
  `${'record type (example)'.padEnd(44)}${'entries'.padStart(8)}${'bytes'.padStart(8)}${'build+validate/s'.padStart(18)}  ${'vs clone'.padEnd(18)}${'build'.padEnd(18)}${'validate'.padEnd(18)}JSON copy`,
);
for (const { c, bv, b, v, j } of rows) {
  const label = `${c.hiType} (${c.file.replace('.input.json', '')})`;
  console.log(
    `${label.padEnd(44)}${String(c.bundle.entry.length).padStart(8)}${String(JSON.stringify(c.bundle).length).padStart(8)}${fmt(bv.subject.median).padStart(18)}  ${ratio(bv).padEnd(18)}${ratio(b).padEnd(18)}${ratio(v).padEnd(18)}${ratio(j)}`,
  );
}
console.log(`\nstructuredClone of each bundle: ${rows.map(({ c, bv }) => `${c.hiType} ${fmt(bv.baseline.median)}/s`).join(', ')}`);
console.log('Target: build + validate >= 0.50x the structured copy.');
if (sink === -1) console.log('');
