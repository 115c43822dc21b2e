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
 * "before" column), BENCH_FRESH_POOL (bundles of each kind per round of the second table,
 * default 60; 0 leaves it out).
 *
 * The second table: bundles straight out of toFhirBundles (never validated: their
 * strings as the build made them, their objects as its literals shaped them),
 * `JSON.parse` copies of the same bundle made right after a build (whose bundle
 * is thrown away: what the build leaves in the caches and the heap counts, the
 * bundle is a parsed one) and `JSON.parse` copies alone, each made and then
 * validated once (only the validation timed, in CPU time), the kinds interleaved.
 *
 * Run with `node --expose-gc --max-semi-space-size=512 bench/fhir-validate.mjs`
 * and a third table says how much each validation allocates (heap growth over
 * 20 validations of copies of the bundle, no garbage collection in between).
 */
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { toFhirBundles, validateFhirBundle } from '../dist/fhir/index.js';
import { compare, median } from './lib.mjs';

/** Another build's validator, for before/after figures in one run. */
const before = process.env.BENCH_BEFORE === undefined ? undefined : (await import(`${process.env.BENCH_BEFORE}/fhir/index.js`)).validateFhirBundle;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const MS = Number(process.env.BENCH_MS ?? 300);
const timestamp = new Date('2026-11-20T06:00:00Z');
const POOL = Number(process.env.BENCH_FRESH_POOL ?? 60);
const pdf = new TextEncoder().encode('%PDF-1.4\n%%EOF\n');
const attachments = { 'https://records.greenvalley.example/reports/GVH-LAB-2026-88120.pdf': { contentType: 'application/pdf', data: pdf } };

/** One bundle per record profile abha-link builds from the examples, and how to build it again. */
const bundles = new Map();
const rebuild = new Map();
for (const name of ['opd-prescription', 'multi-care-context', 'lab-order']) {
  const input = JSON.parse(readFileSync(`${ROOT}examples/${name}.input.json`, 'utf8'));
  const r = toFhirBundles(input, { timestamp, attachments });
  if (!r.success) throw new Error(`${name} does not build`);
  for (const d of r.bundles) {
    const profile = d.profile.slice(d.profile.lastIndexOf('/') + 1);
    if (bundles.has(profile)) continue;
    if (!validateFhirBundle(d.bundle).success) throw new Error(`the ${profile} bundle of ${name} does not validate`);
    bundles.set(profile, d.bundle);
    const i = r.bundles.indexOf(d);
    rebuild.set(profile, () => toFhirBundles(input, { timestamp, attachments }).bundles[i].bundle);
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

if (POOL > 0) {
  /** CPU microseconds of one call. */
  const cpu = (fn) => {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    return used.user + used.system;
  };
  console.log(
    `\nEach bundle validated once, right after it is made: fresh out of toFhirBundles; a JSON.parse copy made right after a build (of another bundle, thrown away); a JSON.parse copy alone. ${ROUNDS} rounds of ${POOL} of each kind, interleaved; CPU µs per validation (median of the rounds' means)\n`,
  );
  const head = `${'fresh'.padStart(8)}${'parsed after build'.padStart(20)}${'parsed'.padStart(8)}`;
  console.log(`${'record profile'.padEnd(24)}${head}${before === undefined ? '' : `   before:${head}`}`);
  for (const [profile, make] of rebuild) {
    const text = JSON.stringify(bundles.get(profile));
    const row = (validate) => {
      const kinds = [() => make(), () => (make(), JSON.parse(text)), () => JSON.parse(text)];
      const rounds = kinds.map(() => []);
      for (let k = 0; k < ROUNDS; k++) {
        const sums = kinds.map(() => 0);
        for (let j = 0; j < POOL; j++)
          kinds.forEach((made, i) => {
            const b = made();
            sums[i] += cpu(() => validate(b));
          });
        sums.forEach((t, i) => rounds[i].push(t / POOL));
      }
      return rounds.map(median);
    };
    const cols = ([f, pb, p]) => `${f.toFixed(0).padStart(8)}${pb.toFixed(0).padStart(20)}${p.toFixed(0).padStart(8)}`;
    const b = before === undefined ? undefined : row(before);
    console.log(`${profile.padEnd(24)}${cols(row(validateFhirBundle))}${b === undefined ? '' : `          ${cols(b)}`}`);
  }
}

if (typeof globalThis.gc === 'function') {
  /** KB allocated per validation: heap growth over 20 validations of copies (made before), after a full collection. */
  const allocated = (validate, bundle) => {
    const copies = Array.from({ length: 20 }, () => structuredClone(bundle));
    const results = [];
    globalThis.gc();
    const before = getHeapStatistics().used_heap_size;
    for (const c of copies) results.push(validate(c));
    return (getHeapStatistics().used_heap_size - before) / copies.length / 1024;
  };
  console.log(`\nAllocated per validation (KB; with --max-semi-space-size=512 nothing is collected during the 20)\n`);
  console.log(`${'record profile'.padEnd(24)}${'this build'.padStart(11)}${before === undefined ? '' : 'before'.padStart(9)}`);
  for (const [profile, bundle] of bundles)
    console.log(`${profile.padEnd(24)}${allocated(validateFhirBundle, bundle).toFixed(0).padStart(11)}${before === undefined ? '' : allocated(before, bundle).toFixed(0).padStart(9)}`);
}
