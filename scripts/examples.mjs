// `npm run examples`: regenerates what examples/ derives from its clinical inputs, after a build.
//   - for every examples/NAME.input.json: NAME.request.json (what `abha-link build` prints) and its FHIR
//     bundles (what `abha-link fhir` makes, stamped with the visit time): NAME.bundle.json for one care
//     context, NAME.HITYPE.bundle.json for each of several;
//   - examples/hospital-day.ndjson: one hospital's day for pipelines, one link request per line, each
//     visit of another (synthetic) patient, made from the inputs listed in HOSPITAL_DAY and then from
//     every other input of examples/ (a new record type's input joins the day by itself).
// A documentUrl whose file name is in examples/ (a synthetic document) is embedded from there (FHIR needs the bytes).
// `node scripts/examples.mjs --check` writes nothing and exits 1 naming every file that differs.
// test/examples.test.ts fails when the committed files are not what this script produces.
import { existsSync, readFileSync, readdirSync, writeFileSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Writable, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLES = join(ROOT, 'examples');

/** The day of the hospital-day example. */
export const DAY = '2026-11-20';
/** The clock for lint ("visit in the future"): fixed, after every example's visit, so the output never depends on today. */
const NOW = new Date('2026-12-01T00:00:00+05:30');

/** The hospital of the day: every line is one of its visits. */
const HOSPITAL = { name: 'Green Valley Hospital', id: 'IN0710000789', phone: '011-23456789', email: 'records@greenvalley.example' };

/** Synthetic patients, in the order they come to the hospital. */
const PATIENTS = [
  { abhaAddress: 'kavya.nair@sbx', name: 'Kavya Nair', gender: 'F', birthDate: '1991-07-02' },
  { abhaAddress: 'arjun.mehta@sbx', name: 'Arjun Mehta', gender: 'M', birthDate: '1965-01-23' },
  { abhaAddress: 'fatima.sheikh@sbx', name: 'Fatima Sheikh', gender: 'F', birthDate: '1983-10-11' },
  { abhaAddress: 'rahul.verma@sbx', name: 'Rahul Verma', gender: 'M', birthDate: '2001-04-30' },
  { abhaAddress: 'lakshmi.iyer@sbx', name: 'Lakshmi Iyer', gender: 'F', birthDate: '1958-12-05' },
  { abhaAddress: 'imran.khan@sbx', name: 'Imran Khan', gender: 'M', birthDate: '1977-08-17' },
  { abhaAddress: 'priya.singh@sbx', name: 'Priya Singh', gender: 'F', birthDate: '1996-02-14' },
  { abhaAddress: 'suresh.patil@sbx', name: 'Suresh Patil', gender: 'M', birthDate: '1949-06-09' },
  { abhaAddress: 'meena.das@sbx', name: 'Meena Das', gender: 'F', birthDate: '1988-11-27' },
  { abhaAddress: 'vikram.rao@sbx', name: 'Vikram Rao', gender: 'M', birthDate: '1970-03-08' },
  { abhaAddress: 'ananya.ghosh@sbx', name: 'Ananya Ghosh', gender: 'F', birthDate: '2012-09-19' },
  { abhaAddress: 'joseph.thomas@sbx', name: 'Joseph Thomas', gender: 'M', birthDate: '1962-05-01' },
];

/**
 * The day, in order: an input of examples/ (NAME of NAME.input.json) per visit. Inputs not listed
 * here follow, in name order. One line adds a visit; a name with no input file is skipped.
 */
export const HOSPITAL_DAY = ['opd-prescription', 'lab-order', 'multi-care-context'];

/** Pretty JSON as the repository formats it (Prettier, the house configuration). */
async function json(value, file) {
  const options = (await prettier.resolveConfig(join(EXAMPLES, file))) ?? {};
  return prettier.format(JSON.stringify(value, null, 2), { ...options, filepath: join(EXAMPLES, file) });
}

/** `abha-link ARGS` in this process: its exit code and what it printed. */
async function cli(args) {
  const { runCli } = await import('../dist/cli/run.js');
  let out = '';
  let err = '';
  const sink = (add) => new Writable({ write: (chunk, _e, done) => (add(String(chunk)), done()) });
  const code = await runCli(args, {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: Readable.from([]),
    env: {},
    now: () => NOW,
  });
  return { code, stdout: out, stderr: err };
}

/** Every documentUrl of an input whose file is in examples/documents/, with its bytes. */
function attachmentsOf(input) {
  const out = {};
  const urls = [input.documentUrl, ...(input.careContexts ?? []).map((c) => c.documentUrl)].filter((u) => typeof u === 'string');
  for (const url of urls) {
    const file = join(EXAMPLES, basename(new URL(url).pathname));
    if (existsSync(file)) out[url] = { contentType: 'application/pdf', data: new Uint8Array(readFileSync(file)), title: basename(file, '.pdf') };
  }
  return out;
}

/** The input names of examples/, sorted. */
export function inputNames() {
  return readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.input.json'))
    .map((f) => f.slice(0, -'.input.json'.length))
    .sort();
}

/** One input's request and bundles: file name → content. */
async function derived(name, problems) {
  const { toFhirBundles, validateFhirBundle } = await import('../dist/fhir/index.js');
  const files = new Map();
  const built = await cli(['build', join(EXAMPLES, `${name}.input.json`)]);
  if (built.code !== 0) problems.push(`${name}.input.json: abha-link build exits ${built.code}: ${built.stderr.trim()}`);
  else files.set(`${name}.request.json`, await json(JSON.parse(built.stdout), `${name}.request.json`));
  const input = JSON.parse(readFileSync(join(EXAMPLES, `${name}.input.json`), 'utf8'));
  const r = toFhirBundles(input, { attachments: attachmentsOf(input), lint: { now: NOW } });
  if (!r.success) {
    problems.push(`${name}.input.json: no FHIR bundles: ${r.issues.map((i) => `${i.path} ${i.code}`).join('; ')}`);
    return files;
  }
  const hiTypes = r.bundles.map((d) => d.hiType);
  for (const [i, d] of r.bundles.entries()) {
    const checked = validateFhirBundle(d.bundle);
    if (!checked.success) problems.push(`${name}: the ${d.hiType} bundle fails validation: ${checked.issues.map((x) => `${x.path} ${x.code}`).join('; ')}`);
    const tag = r.bundles.length === 1 ? '' : hiTypes.indexOf(d.hiType) === hiTypes.lastIndexOf(d.hiType) ? `.${d.hiType}` : `.${d.hiType}-${i + 1}`;
    files.set(`${name}${tag}.bundle.json`, await json(d.bundle, `${name}${tag}.bundle.json`));
  }
  return files;
}

/** The hospital's day: one link request (compact JSON) per line. */
async function hospitalDay(names, problems) {
  const { safeBuildLinkRequest } = await import('../dist/index.js');
  const order = [...HOSPITAL_DAY.filter((n) => names.includes(n)), ...names.filter((n) => !HOSPITAL_DAY.includes(n))];
  const lines = [];
  for (const [i, name] of order.entries()) {
    const input = JSON.parse(readFileSync(join(EXAMPLES, `${name}.input.json`), 'utf8'));
    const patient = PATIENTS[i % PATIENTS.length];
    // From 09:00, a visit every 25 minutes.
    const minutes = 9 * 60 + 25 * i;
    const at = `${DAY}T${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00+05:30`;
    const visit = { ...input.visit, id: `GVH-${DAY.replaceAll('-', '')}-${String(i + 1).padStart(3, '0')}`, at, timeZone: 'Asia/Kolkata' };
    const r = safeBuildLinkRequest({ ...input, hospital: HOSPITAL, patient, visit }, { lint: { now: NOW } });
    if (!r.success) problems.push(`hospital-day.ndjson, ${name}.input.json: ${r.issues.map((x) => `${x.path} ${x.code}`).join('; ')}`);
    else lines.push(JSON.stringify(r.value));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Everything the script writes, by file name in examples/, and the problems found
 * (an input that does not build, a bundle that fails validation).
 */
export async function generateExamples() {
  const problems = [];
  const files = new Map();
  const names = inputNames();
  for (const name of names) for (const [f, text] of await derived(name, problems)) files.set(f, text);
  files.set('hospital-day.ndjson', await hospitalDay(names, problems));
  return { files, problems };
}

/** The derived files in examples/ now: bundles, requests of inputs, the day. */
export function committedDerivedFiles() {
  const names = new Set(inputNames());
  return readdirSync(EXAMPLES).filter((f) => f.endsWith('.bundle.json') || f === 'hospital-day.ndjson' || (f.endsWith('.request.json') && names.has(f.slice(0, -'.request.json'.length))));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const { files, problems } = await generateExamples();
  for (const p of problems) console.error(`examples: ${p}`);
  const stale = committedDerivedFiles().filter((f) => !files.has(f));
  const differ = [...files].filter(([f, text]) => !existsSync(join(EXAMPLES, f)) || readFileSync(join(EXAMPLES, f), 'utf8') !== text).map(([f]) => f);
  if (check) {
    for (const f of [...differ, ...stale]) console.error(`examples: examples/${f} is not what npm run examples produces`);
    process.exitCode = problems.length > 0 || differ.length > 0 || stale.length > 0 ? 1 : 0;
  } else {
    for (const f of differ) writeFileSync(join(EXAMPLES, f), files.get(f));
    if (problems.length === 0) for (const f of stale) unlinkSync(join(EXAMPLES, f));
    console.log(`examples: ${files.size} files, ${differ.length} written, ${stale.length} removed${problems.length > 0 ? `, ${problems.length} problem(s)` : ''}`);
    process.exitCode = problems.length > 0 ? 1 : 0;
  }
}
