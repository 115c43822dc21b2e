/**
 * What makes validation right after a build slow: a JSON.parse copy of a
 * bundle validated right after other work, in CPU time per validation. The
 * other work is a build (`toFhirBundles`, its bundle thrown away), code that
 * reads properties of objects of many shapes (400 small objects, 64 names:
 * megamorphic property reads, which go through V8's lookup cache that all code
 * shares), and a read of 8 MB (the processor's caches), or nothing. Run after a
 * build: `node bench/fhir-validate-cold.mjs`.
 *
 * Environment: BENCH_ROUNDS (default 9), BENCH_POOL (validations of each kind
 * per round, default 60), BENCH_EXAMPLE (default multi-care-context; its second
 * bundle, the OPConsultRecord), BENCH_DIST (the dist/ directory measured, default this build's;
 * e.g. /work/before/dist).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { toFhirBundles, validateFhirBundle } = await import(process.env.BENCH_DIST === undefined ? '../dist/fhir/index.js' : `${process.env.BENCH_DIST}/fhir/index.js`);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const POOL = Number(process.env.BENCH_POOL ?? 60);
const timestamp = new Date('2026-11-20T06:00:00Z');
const pdf = new TextEncoder().encode('%PDF-1.4\n%%EOF\n');
const attachments = { 'https://records.greenvalley.example/reports/GVH-LAB-2026-88120.pdf': { contentType: 'application/pdf', data: pdf } };
const input = JSON.parse(readFileSync(`${ROOT}examples/${process.env.BENCH_EXAMPLE ?? 'multi-care-context'}.input.json`, 'utf8'));
const built = toFhirBundles(input, { timestamp, attachments }).bundles;
const which = Math.min(1, built.length - 1);
const build = () => toFhirBundles(input, { timestamp, attachments }).bundles[which].bundle;
const text = JSON.stringify(build());

let sink = 0;
const names = Array.from({ length: 64 }, (_, i) => `p${i}`);
const shapes = Array.from({ length: 400 }, (_, i) => Object.fromEntries(Array.from({ length: 8 }, (_, k) => [names[(i * 7 + k * 13) % 64], k])));
const getters = names.map((n) => new Function('o', `return o.${n}`));
/** Property reads by name over objects of many shapes. */
function megamorphic() {
  for (const o of shapes)
    for (const get of getters) {
      const v = get(o);
      if (v !== undefined) sink += v;
    }
}
const big = new Float64Array(1 << 20);
/** One read per cache line of 8 MB. */
function memory() {
  for (let i = 0; i < big.length; i += 8) sink += big[i];
}

const cpu = (fn) => {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return used.user + used.system;
};
const kinds = {
  'nothing before': () => JSON.parse(text),
  'a build before': () => (build(), JSON.parse(text)),
  'megamorphic reads before': () => (megamorphic(), JSON.parse(text)),
  '8 MB read before': () => (memory(), JSON.parse(text)),
};
const rounds = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) {
  const sums = Object.fromEntries(Object.keys(kinds).map((k) => [k, 0]));
  for (let j = 0; j < POOL; j++)
    for (const [k, made] of Object.entries(kinds)) {
      const b = made();
      sums[k] += cpu(() => validateFhirBundle(b));
    }
  for (const k in sums) rounds[k].push(sums[k] / POOL);
}
console.log(`A JSON.parse copy validated right after other work; ${ROUNDS} rounds of ${POOL} of each kind, interleaved; CPU µs per validation (median of the rounds' means)\n`);
for (const [k, xs] of Object.entries(rounds)) console.log(`${k.padEnd(28)}${median(xs).toFixed(0).padStart(6)}`);
if (sink === 0.5) console.log('');
