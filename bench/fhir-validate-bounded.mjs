/**
 * The validator's bound (issue 23): a document bundle of about 6.4 MB whose
 * first MedicationRequest lists 200,000 references to nothing (supportingInformation), validated
 * against the time JSON.parse takes over the same text, in the same run.
 * The answer must come within a small multiple of the parse and carry at most
 * 1,000 issues (then `truncated`). Run after a build:
 * `node bench/fhir-validate-bounded.mjs`.
 *
 * Environment: BENCH_ROUNDS (default 5), BENCH_REFS (default 200000),
 * BENCH_RESOLVED=1 (every reference resolves: the whole bundle is walked).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toFhirBundles, validateFhirBundle } from '../dist/fhir/index.js';
import { median } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REFS = Number(process.env.BENCH_REFS ?? 200_000);

const input = JSON.parse(readFileSync(`${ROOT}examples/opd-prescription.input.json`, 'utf8'));
const built = toFhirBundles(input, { timestamp: new Date('2026-11-20T06:00:00Z') });
if (!built.success) throw new Error('the opd-prescription example does not build');
const bundle = structuredClone(built.bundles[0].bundle);
const request = bundle.entry.find((e) => e.resource.resourceType === 'MedicationRequest').resource;
// BENCH_RESOLVED=1: references that all resolve (to the Patient), so the whole bundle is walked.
const patient = bundle.entry.find((e) => e.resource.resourceType === 'Patient').fullUrl;
request.supportingInformation = Array.from({ length: REFS }, (_, i) => ({ reference: process.env.BENCH_RESOLVED === '1' ? patient : `Basic/${i}` }));
const text = JSON.stringify(bundle);

/** CPU milliseconds of one call. */
function cpu(fn) {
  const t = process.cpuUsage();
  const out = fn();
  const d = process.cpuUsage(t);
  return { ms: (d.user + d.system) / 1000, out };
}

const parse = [];
const validate = [];
let last;
for (let r = 0; r < ROUNDS; r++) {
  parse.push(cpu(() => JSON.parse(text)).ms);
  const value = JSON.parse(text);
  const v = cpu(() => validateFhirBundle(value));
  validate.push(v.ms);
  last = v.out;
}
const p = median(parse);
const v = median(validate);
console.log(`bundle ${(text.length / 1e6).toFixed(1)} MB, ${REFS} ${process.env.BENCH_RESOLVED === '1' ? 'resolving' : 'dangling'} references, ${ROUNDS} rounds (CPU time, medians)`);
console.log(`JSON.parse        ${p.toFixed(1)} ms`);
console.log(`validateFhirBundle ${v.toFixed(1)} ms  = ${(v / p).toFixed(2)} x the parse; ${last.issues.length} issues, truncated: ${last.truncated === true}`);
