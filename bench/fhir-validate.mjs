/**
 * Benchmark of the profile-driven NRCeS validator (validateFhirBundle of
 * abha-link/fhir): bundles validated per second, for each record type abha-link
 * builds from the examples, next to `structuredClone` of the same bundle (the
 * least any code that touches every node costs). Run after a build:
 * `node bench/fhir-validate.mjs`.
 *
 * Figures are ratios to the same-run baseline, subject and baseline alternating
 * round by round (bench/lib.mjs compare); medians with min..max.
 *
 * Environment: BENCH_ROUNDS (default 7), BENCH_MS (one round, default 300),
 * BENCH_WARM_MS (warm-up of the validator before measuring, default 3000),
 * BENCH_BEFORE (the dist/ directory of another build, e.g. of an earlier commit in
 * a `git worktree`: its validateFhirBundle is measured in the same run, a
 * "before" column).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toFhirBundles, validateFhirBundle } from '../dist/fhir/index.js';
import { compare } from './lib.mjs';

/** Another build's validator, for before/after figures in one run. */
const before = process.env.BENCH_BEFORE === undefined ? undefined : (await import(`${process.env.BENCH_BEFORE}/fhir/index.js`)).validateFhirBundle;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const MS = Number(process.env.BENCH_MS ?? 300);
const timestamp = new Date('2026-11-20T06:00:00Z');
const pdf = new TextEncoder().encode('%PDF-1.4\n%%EOF\n');
const attachments = { 'https://records.greenvalley.example/reports/GVH-LAB-2026-88120.pdf': { contentType: 'application/pdf', data: pdf } };

/** One bundle per record profile abha-link builds from the examples. */
const bundles = new Map();
for (const name of ['opd-prescription', 'multi-care-context', 'lab-order']) {
  const input = JSON.parse(readFileSync(`${ROOT}examples/${name}.input.json`, 'utf8'));
  const r = toFhirBundles(input, { timestamp, attachments });
  if (!r.success) throw new Error(`${name} does not build`);
  for (const d of r.bundles) {
    const profile = d.profile.slice(d.profile.lastIndexOf('/') + 1);
    if (bundles.has(profile)) continue;
    if (!validateFhirBundle(d.bundle).success) throw new Error(`the ${profile} bundle of ${name} does not validate`);
    bundles.set(profile, d.bundle);
  }
}

const fmt = (n) => n.toFixed(0).padStart(7);
const range = (s) => `${s.min.toFixed(2)}..${s.max.toFixed(2)}`;
console.log(`Profile-driven FHIR validation, ${ROUNDS} rounds of ${MS} ms; bundles/s (median) and ratio to structuredClone of the same bundle\n`);
console.log(
  `${'record profile'.padEnd(24)}${'entries'.padStart(8)} ${'clone/s'.padStart(8)} ${'validate/s'.padStart(11)} ${'ratio'.padStart(6)} ${'(min..max)'.padEnd(12)}${before === undefined ? '' : ` ${'before/s'.padStart(9)} ${'ratio'.padStart(6)}`}`,
);
// Warm-up beyond compare's own: the FHIRPath engine is large and its code takes seconds of calls to be optimised.
const warmUntil = performance.now() + Number(process.env.BENCH_WARM_MS ?? 3000);
while (performance.now() < warmUntil)
  for (const bundle of bundles.values()) {
    validateFhirBundle(bundle);
    before?.(bundle);
  }
for (const [profile, bundle] of bundles) {
  const clone = () => structuredClone(bundle).entry.length;
  const v = compare(() => validateFhirBundle(bundle).issues.length, clone, { rounds: ROUNDS, ms: MS });
  const b = before === undefined ? undefined : compare(() => before(bundle).issues.length, clone, { rounds: ROUNDS, ms: MS });
  console.log(
    `${profile.padEnd(24)}${String(bundle.entry.length).padStart(8)} ${fmt(v.baseline.median).padStart(8)} ${fmt(v.subject.median).padStart(11)} ${v.ratio.median.toFixed(2).padStart(6)} ${range(v.ratio).padEnd(12)}${b === undefined ? '' : ` ${fmt(b.subject.median).padStart(9)} ${b.ratio.median.toFixed(2).padStart(6)}`}`,
  );
}
