/**
 * Validation of FHIR document bundles: base R4 structure for the resources
 * abha-link emits (required elements, cardinalities, value types, unknown
 * elements), the document-bundle invariants (bdl-7, 8, 9, 10, 11), reference
 * integrity, and the NRCeS profile rules abha-link implements (DocumentBundle,
 * the four record profiles, and the resource profiles of reference §5).
 *
 * Issues are `{ path, code, message, severity }`, `path` a JSON Pointer into
 * the bundle. They never contain values from the bundle.
 */
import { pointer, type Issue } from '../errors.js';
import { DISCHARGE_SUMMARY_SECTIONS, OP_CONSULT_SECTIONS, PROFILES, RECORD_PROFILES, SYSTEMS, type FixedCoding, type RecordProfile, type SectionRule, type TitledSectionsRule } from './constants.js';
import {
  CHOICES,
  DATATYPES,
  pathLabel,
  safeResourceType,
  PRIMITIVE_PATTERNS,
  PRIMITIVE_WORDS,
  PRIMITIVES,
  REQUIRED_CHOICES,
  RESOURCES,
  type ElementDef,
  type Primitive,
  type StructureDef,
} from './structure.js';
import { xhtmlProblem } from './xhtml.js';

/** What {@link validateFhirBundle} returns: errors make it fail; warnings never do; `truncated` when it stopped at `maxIssues`. */
export type FhirValidationResult =
  { readonly success: true; readonly issues: readonly Issue[]; readonly truncated?: true } | { readonly success: false; readonly issues: readonly Issue[]; readonly truncated?: true };

/** Thrown to end a validation at the issue cap; never escapes {@link validateFhirBundle}. */
const STOP = Symbol('stop');
const NODE_LIMIT = 4_000_000;

type Json = Record<string, unknown>;
type Path = ReadonlyArray<string | number>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const label = (path: Path): string => pathLabel(path, 'the bundle');

/** The elements a datatype may carry beside its own (element id and extensions), and none for a resource. */
const DATATYPE_EXTRAS: ReadonlySet<string> = new Set(['id', 'extension']);
const NO_EXTRAS: ReadonlySet<string> = new Set();
const EXTENSIONS: ElementDef = { type: 'Extension', min: 0, max: Number.POSITIVE_INFINITY };

/** The required element names of each structure, in definition order, computed once. */
const requiredCache = new WeakMap<StructureDef, readonly string[]>();
function requiredOf(def: StructureDef): readonly string[] {
  let r = requiredCache.get(def);
  if (r === undefined) {
    r = Object.entries(def)
      .filter(([, d]) => d.min > 0)
      .map(([k]) => k);
    requiredCache.set(def, r);
  }
  return r;
}

interface Target {
  readonly resourceType: string;
  readonly resource: Json;
  readonly path: Path;
}

class Checker {
  readonly issues: Issue[] = [];
  private readonly seenMessages = new Set<string>();
  nodes = 0;
  truncated = false;
  /** The entries of the bundle by fullUrl and Type/id, known before the walk: references are checked where they are met. */
  index: Index = { byFullUrl: new Map(), byTypeId: new Map() };
  isDocument = false;

  constructor(private readonly maxIssues: number) {}

  add(path: Path, code: string, message: string, severity: 'error' | 'warning' = 'error'): void {
    const p = pointer(...path);
    const key = `${p}\u0000${code}`;
    if (this.seenMessages.has(key)) return;
    if (this.issues.length >= this.maxIssues) {
      this.truncated = true;
      throw STOP;
    }
    this.seenMessages.add(key);
    this.issues.push({ path: p, code, message, severity });
  }

  /** A Reference: it must resolve inside a document, to a resource of the type it declares. */
  reference(ref: Json, path: Path, container: Target | undefined): void {
    const reference = str(ref.reference);
    if (reference === undefined) return;
    const target = resolve(this.index, reference, container);
    if (target === undefined) {
      if (this.isDocument)
        this.add([...path, 'reference'], 'unresolved-reference', 'the reference does not resolve to an entry of this document; a document must contain every resource it references');
      return;
    }
    const declared = str(ref.type);
    if (declared !== undefined && declared !== target.resourceType) this.add([...path, 'type'], 'wrong-target', 'Reference.type does not match the type of the resource referenced');
  }

  primitive(value: unknown, type: Primitive, path: Path): void {
    // The label is made only for an issue: most values are fine.
    const bad = (): void => this.add(path, 'type', `${label(path)} must be ${PRIMITIVE_WORDS[type]}`);
    switch (type) {
      case 'boolean':
        if (typeof value !== 'boolean') bad();
        return;
      case 'integer':
        if (typeof value !== 'number' || !Number.isInteger(value)) bad();
        return;
      case 'positiveInt':
        if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) bad();
        return;
      case 'unsignedInt':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) bad();
        return;
      case 'decimal':
        if (typeof value !== 'number' || !Number.isFinite(value)) bad();
        return;
      default:
        break;
    }
    if (typeof value !== 'string') return bad();
    if (value === '') return this.add(path, 'empty', `${label(path)} must not be an empty string (FHIR ele-1)`);
    if (value.trim() === '' && type !== 'xhtml') return this.add(path, 'empty', `${label(path)} must have non-whitespace content`);
    if (type === 'base64Binary') {
      const s = value.replace(/\s+/g, '');
      if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) bad();
      return;
    }
    if (type === 'xhtml') {
      const problem = xhtmlProblem(value);
      if (problem !== undefined) this.add(path, 'narrative', `${label(path)} ${problem}`);
      return;
    }
    const re = PRIMITIVE_PATTERNS[type];
    if (re !== undefined) {
      if (!re.test(value)) bad();
      return;
    }
    if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(value)) this.add(path, 'control-characters', `${label(path)} contains control characters, which FHIR strings should not`, 'warning');
  }

  /** Checks a value against an element definition (type and cardinality). */
  element(value: unknown, def: ElementDef, path: Path, container: Target | undefined, depth: number): void {
    if (def.max > 1) {
      if (!Array.isArray(value)) return this.add(path, 'type', `${label(path)} must be an array`);
      if (value.length === 0) return this.add(path, 'empty', `${label(path)} must not be an empty array (FHIR ele-1)`);
      if (value.length < def.min) this.add(path, 'cardinality', `${label(path)} must have at least ${def.min} item${def.min === 1 ? '' : 's'}`);
      value.forEach((v, i) => this.single(v, def.type, [...path, i], container, depth));
      return;
    }
    if (Array.isArray(value)) return this.add(path, 'cardinality', `${label(path)} must be a single value, not an array`);
    this.single(value, def.type, path, container, depth);
  }

  single(value: unknown, type: ElementDef['type'], path: Path, container: Target | undefined, depth: number): void {
    if (++this.nodes > NODE_LIMIT) return;
    if (value === null) return this.add(path, 'null', `${label(path)} must not be null (FHIR JSON has no nulls)`);
    if (typeof type === 'string' && PRIMITIVES.has(type)) return this.primitive(value, type as Primitive, path);
    if (!isObject(value)) return this.add(path, 'type', `${label(path)} must be an object`);
    if (depth > 64) return this.add(path, 'too-deep', `${label(path)} is nested too deeply`);
    if (type === 'Resource') return this.resource(value, path, depth + 1);
    if (type === 'Extension') return this.extension(value, path);
    const def = typeof type === 'string' ? DATATYPES[type] : type;
    if (def === undefined) return;
    if (type === 'Reference') this.reference(value, path, container);
    this.structure(value, def, path, container, depth + 1, DATATYPE_EXTRAS);
  }

  extension(value: Json, path: Path): void {
    if (typeof value.url !== 'string' || value.url === '') this.add([...path, 'url'], 'required', 'extension url is required');
  }

  structure(value: Json, def: StructureDef, path: Path, container: Target | undefined, depth: number, extra: ReadonlySet<string>): void {
    const keys = Object.keys(value);
    if (keys.length === 0) return this.add(path, 'empty', `${label(path)} must not be an empty object (FHIR ele-1)`);
    for (const k of keys) {
      const v = value[k];
      if (k.charCodeAt(0) === 95 /* _ */ && Object.hasOwn(def, k.slice(1))) continue; // primitive extensions
      if (k === 'resourceType' && container?.resource === value) continue;
      const own = Object.hasOwn(def, k);
      if (k === 'modifierExtension' || (!own && extra.has(k))) {
        if (k === 'id') this.primitive(v, 'string', [...path, k]);
        else this.element(v, EXTENSIONS, [...path, k], container, depth);
        continue;
      }
      const d = own ? def[k] : undefined;
      if (d === undefined) {
        this.add(
          [...path, k],
          'unknown-element',
          `this is not an element of ${label(path) === 'the bundle' ? 'this resource' : label(path)} in FHIR R4; remove it or check the spelling of its name (the last part of the path)`,
        );
        continue;
      }
      this.element(v, d, [...path, k], container, depth);
    }
    for (const k of requiredOf(def)) if (value[k] === undefined) this.add([...path, k], 'required', `${k} is required`);
  }

  resource(value: Json, path: Path, depth: number): void {
    const rt = str(value.resourceType);
    if (rt === undefined) return this.add([...path, 'resourceType'], 'required', 'resourceType is required');
    const target: Target = { resourceType: rt, resource: value, path };
    const def = Object.hasOwn(RESOURCES, rt) ? RESOURCES[rt] : undefined;
    if (def === undefined) {
      // Not a resource abha-link emits: generic checks only (ids, nulls, empties, references).
      this.generic(value, path, target, depth);
      return;
    }
    this.structure(value, def, path, target, depth, NO_EXTRAS);
    for (const [name, options] of REQUIRED_CHOICES[rt] ?? []) {
      const present = options.filter((o) => value[o] !== undefined);
      if (present.length === 0) this.add([...path, name.replace('[x]', '')], 'required', `${name} is required`);
    }
    for (const group of [...(CHOICES[rt] ?? []), ...(REQUIRED_CHOICES[rt] ?? []).map(([, o]) => o)]) {
      if (group.filter((o) => value[o] !== undefined).length > 1) this.add(path, 'choice', `only one of ${group.join(', ')} may be present`);
    }
  }

  generic(value: unknown, path: Path, container: Target, depth: number): void {
    if (++this.nodes > NODE_LIMIT) return;
    if (depth > 64) return this.add(path, 'too-deep', `${label(path)} is nested too deeply`);
    if (value === null) return this.add(path, 'null', `${label(path)} must not be null (FHIR JSON has no nulls)`);
    if (value === '') return this.add(path, 'empty', `${label(path)} must not be an empty string (FHIR ele-1)`);
    if (Array.isArray(value)) {
      if (value.length === 0) this.add(path, 'empty', `${label(path)} must not be an empty array (FHIR ele-1)`);
      value.forEach((v, i) => this.generic(v, [...path, i], container, depth + 1));
      return;
    }
    if (!isObject(value)) return;
    if (Object.keys(value).length === 0) return this.add(path, 'empty', `${label(path)} must not be an empty object (FHIR ele-1)`);
    if (typeof value.reference === 'string') this.reference(value, path, container);
    for (const [k, v] of Object.entries(value)) this.generic(v, [...path, k], container, depth + 1);
  }
}

/** Where a reference points inside the bundle. */
interface Index {
  readonly byFullUrl: Map<string, Target>;
  readonly byTypeId: Map<string, Target>;
}

function resolve(index: Index, ref: string, container: Target | undefined): Target | undefined {
  if (ref.startsWith('#')) {
    const contained = container?.resource.contained;
    if (!Array.isArray(contained)) return undefined;
    const c = contained.find((x) => isObject(x) && x.id === ref.slice(1));
    return isObject(c) && typeof c.resourceType === 'string' ? { resourceType: c.resourceType, resource: c, path: container?.path ?? [] } : undefined;
  }
  return index.byFullUrl.get(ref) ?? index.byTypeId.get(ref) ?? index.byTypeId.get(/([A-Za-z]+\/[A-Za-z0-9\-.]{1,64})(\/_history\/.*)?$/.exec(ref)?.[1] ?? '');
}

const codingEquals = (c: unknown, f: FixedCoding): boolean => isObject(c) && c.system === f.system && c.code === f.code && c.display === f.display;

/** The NRCeS rules of the resources in a bundle. */
class Profiles {
  constructor(
    private readonly ck: Checker,
    private readonly index: Index,
  ) {}

  private target(ref: unknown, container: Target | undefined): Target | undefined {
    if (!isObject(ref) || typeof ref.reference !== 'string') return undefined;
    return resolve(this.index, ref.reference, container);
  }

  /** A reference that must be present, have `reference`, and point at one of `types`. */
  private mustReference(value: unknown, path: Path, types: readonly string[], container: Target, what: string): void {
    if (value === undefined) return this.ck.add(path, 'required', `${what} is required by the NRCeS profile`);
    const list = Array.isArray(value) ? value : [value];
    list.forEach((r, i) => {
      const p = Array.isArray(value) ? [...path, i] : path;
      if (!isObject(r) || typeof r.reference !== 'string') return this.ck.add([...p, 'reference'], 'required', `${label(p)}.reference is required by the NRCeS profile`);
      const t = this.target(r, container);
      if (t !== undefined && !types.includes(t.resourceType)) this.ck.add([...p, 'reference'], 'wrong-target', `${label(p)} must reference ${types.join(' or ')}`);
    });
  }

  /** Every coding of a CodeableConcept (or list of them) must have system (fixed when given), code and display. */
  private codings(cc: unknown, path: Path, system?: string, listOfConcepts = false): void {
    const concepts = listOfConcepts ? (Array.isArray(cc) ? cc.map((c, i) => [c, [...path, i]] as const) : []) : [[cc, path] as const];
    for (const [c, p] of concepts) {
      if (!isObject(c) || !Array.isArray(c.coding)) continue;
      c.coding.forEach((coding, j) => {
        const cp = [...p, 'coding', j];
        if (!isObject(coding)) return;
        if (coding.system === undefined) this.ck.add([...cp, 'system'], 'required', 'coding.system is required by the NRCeS profile');
        else if (system !== undefined && coding.system !== system) this.ck.add([...cp, 'system'], 'fixed-value', `coding.system must be ${system} (NRCeS profile)`);
        if (coding.code === undefined) this.ck.add([...cp, 'code'], 'required', 'coding.code is required by the NRCeS profile');
        if (coding.display === undefined) this.ck.add([...cp, 'display'], 'required', 'coding.display is required by the NRCeS profile');
      });
    }
  }

  private identifiers(r: Json, path: Path, needSystem: boolean): void {
    const ids = r.identifier;
    if (!Array.isArray(ids) || ids.length === 0) return this.ck.add([...path, 'identifier'], 'required', 'identifier is required by the NRCeS profile');
    ids.forEach((id, i) => {
      const p = [...path, 'identifier', i];
      if (!isObject(id)) return;
      if (id.type === undefined) this.ck.add([...p, 'type'], 'required', 'identifier.type is required by the NRCeS profile');
      else this.codings(id.type, [...p, 'type']);
      if (id.value === undefined) this.ck.add([...p, 'value'], 'required', 'identifier.value is required by the NRCeS profile');
      if (needSystem && id.system === undefined) this.ck.add([...p, 'system'], 'required', 'identifier.system is required by the NRCeS profile');
    });
  }

  private names(r: Json, path: Path): void {
    if (Array.isArray(r.name)) r.name.forEach((n, i) => isObject(n) && n.text === undefined && this.ck.add([...path, 'name', i, 'text'], 'required', 'name.text is required by the NRCeS profile'));
    if (Array.isArray(r.telecom))
      r.telecom.forEach((t, i) => isObject(t) && t.value === undefined && this.ck.add([...path, 'telecom', i, 'value'], 'required', 'telecom.value is required by the NRCeS profile'));
  }

  resource(t: Target): void {
    const r = t.resource;
    const path = t.path;
    const profiles = isObject(r.meta) && Array.isArray(r.meta.profile) ? r.meta.profile.filter((x): x is string => typeof x === 'string') : [];
    const has = (url: string): boolean => profiles.includes(url);
    switch (t.resourceType) {
      case 'Patient':
        if (!has(PROFILES.Patient)) break;
        this.identifiers(r, path, false);
        this.names(r, path);
        break;
      case 'Practitioner':
        if (!has(PROFILES.Practitioner)) break;
        this.identifiers(r, path, false);
        this.names(r, path);
        if (Array.isArray(r.photo))
          r.photo.forEach((ph, i) => {
            if (!isObject(ph)) return;
            if (ph.contentType === undefined) this.ck.add([...path, 'photo', i, 'contentType'], 'required', 'photo.contentType is required by the NRCeS profile');
            if (ph.data === undefined) this.ck.add([...path, 'photo', i, 'data'], 'required', 'photo.data is required by the NRCeS profile');
          });
        if (Array.isArray(r.qualification)) r.qualification.forEach((q, i) => isObject(q) && this.codings(q.code, [...path, 'qualification', i, 'code']));
        break;
      case 'Organization':
        if (!has(PROFILES.Organization)) break;
        this.identifiers(r, path, true);
        if (r.name === undefined) this.ck.add([...path, 'name'], 'required', 'name is required by the NRCeS Organization profile');
        this.codings(r.type, [...path, 'type'], 'http://terminology.hl7.org/CodeSystem/organization-type', true);
        if (Array.isArray(r.telecom))
          r.telecom.forEach((x, i) => isObject(x) && x.value === undefined && this.ck.add([...path, 'telecom', i, 'value'], 'required', 'telecom.value is required by the NRCeS profile'));
        break;
      case 'Encounter':
        if (!has(PROFILES.Encounter)) break;
        this.codings(r.type, [...path, 'type'], undefined, true);
        this.codings(r.serviceType, [...path, 'serviceType']);
        this.codings(r.priority, [...path, 'priority']);
        this.codings(r.reasonCode, [...path, 'reasonCode'], SYSTEMS.snomed, true);
        if (Array.isArray(r.participant)) r.participant.forEach((x, i) => isObject(x) && this.codings(x.type, [...path, 'participant', i, 'type'], undefined, true));
        if (Array.isArray(r.diagnosis)) r.diagnosis.forEach((x, i) => isObject(x) && this.codings(x.use, [...path, 'diagnosis', i, 'use'], SYSTEMS.snomed));
        break;
      case 'Condition':
        if (!has(PROFILES.Condition)) break;
        if (r.code === undefined) this.ck.add([...path, 'code'], 'required', 'code is required by the NRCeS Condition profile');
        else if (isObject(r.code) && Array.isArray(r.code.coding))
          r.code.coding.forEach((c, i) => {
            const p = [...path, 'code', 'coding', i];
            if (!isObject(c)) return;
            if (c.system !== SYSTEMS.icd10 && c.system !== SYSTEMS.snomed)
              return this.ck.add([...p, 'system'], 'closed-slice', `Condition codings are limited to ICD-10 (${SYSTEMS.icd10}) and SNOMED CT (${SYSTEMS.snomed}); use code.text for anything else`);
            if (c.code === undefined) this.ck.add([...p, 'code'], 'required', 'coding.code is required by the NRCeS profile');
            if (c.display === undefined) this.ck.add([...p, 'display'], 'required', 'coding.display is required by the NRCeS profile');
          });
        break;
      case 'MedicationRequest':
        if (!has(PROFILES.MedicationRequest)) break;
        if (r.medicationReference !== undefined) this.ck.add([...path, 'medicationReference'], 'not-allowed', 'the NRCeS MedicationRequest profile allows medicationCodeableConcept only');
        this.codings(r.medicationCodeableConcept, [...path, 'medicationCodeableConcept'], SYSTEMS.snomed);
        if (r.authoredOn === undefined) this.ck.add([...path, 'authoredOn'], 'required', 'authoredOn is required by the NRCeS MedicationRequest profile');
        if (r.requester === undefined) this.ck.add([...path, 'requester'], 'required', 'requester is required by the NRCeS MedicationRequest profile');
        if (r.dosageInstruction === undefined) this.ck.add([...path, 'dosageInstruction'], 'required', 'dosageInstruction is required by the NRCeS MedicationRequest profile');
        this.codings(r.reasonCode, [...path, 'reasonCode'], SYSTEMS.snomed, true);
        if (Array.isArray(r.dosageInstruction))
          r.dosageInstruction.forEach((d, i) => {
            if (!isObject(d)) return;
            const p = [...path, 'dosageInstruction', i];
            this.codings(d.additionalInstruction, [...p, 'additionalInstruction'], SYSTEMS.snomed, true);
            this.codings(d.route, [...p, 'route'], SYSTEMS.snomed);
            this.codings(d.method, [...p, 'method'], SYSTEMS.snomed);
          });
        break;
      case 'ServiceRequest':
        if (!has(PROFILES.ServiceRequest)) break;
        if (r.requester === undefined) this.ck.add([...path, 'requester'], 'required', 'requester is required by the NRCeS ServiceRequest profile');
        this.codings(r.code, [...path, 'code'], SYSTEMS.snomed);
        break;
      case 'DocumentReference':
        if (!has(PROFILES.DocumentReference)) break;
        if (Array.isArray(r.content))
          r.content.forEach((c, i) => {
            const a = isObject(c) ? c.attachment : undefined;
            if (!isObject(a)) return;
            const p = [...path, 'content', i, 'attachment'];
            if (a.contentType === undefined) this.ck.add([...p, 'contentType'], 'required', 'attachment.contentType is required by the NRCeS DocumentReference profile');
            if (a.data === undefined) this.ck.add([...p, 'data'], 'required', 'attachment.data is required by the NRCeS DocumentReference profile: a URL alone does not conform; embed the document');
          });
        break;
      case 'Binary':
        if (!has(PROFILES.Binary)) break;
        if (r.data === undefined) this.ck.add([...path, 'data'], 'required', 'data is required by the NRCeS Binary profile: a URL alone does not conform; embed the document');
        break;
      default:
        break;
    }
  }

  /** Composition rules common to the record profiles and the profile's own (reference §3.2, §4). */
  composition(t: Target, profile: RecordProfile): void {
    const r = t.resource;
    const path = t.path;
    const type = isObject(r.type) ? r.type : undefined;
    const codings = Array.isArray(type?.coding) ? type.coding : [];
    if (profile.type === undefined) {
      // WellnessRecord and InvoiceRecord: type.text fixed, codings free.
      if (profile.typeText !== undefined && type?.text !== profile.typeText) this.ck.add([...path, 'type', 'text'], 'fixed-value', `type.text must be "${profile.typeText}" (${profile.id})`);
    } else {
      if (codings.length !== 1) this.ck.add([...path, 'type', 'coding'], 'cardinality', `type.coding must have exactly one coding (${profile.id})`);
      const c = codings[0];
      const fixed = profile.type;
      if (profile.typeFixed) {
        if (c !== undefined && !codingEquals(c, fixed))
          this.ck.add([...path, 'type', 'coding', 0], 'fixed-value', `type.coding must be ${fixed.system} ${fixed.code} "${fixed.display}" (${profile.id})`);
      } else if (c !== undefined) this.codings({ coding: [c] }, [...path, 'type'], SYSTEMS.snomed);
    }
    this.mustReference(r.subject, [...path, 'subject'], ['Patient'], t, 'subject');
    if (Array.isArray(r.author))
      r.author.forEach((a, i) => isObject(a) && a.reference === undefined && this.ck.add([...path, 'author', i, 'reference'], 'required', 'author.reference is required by the NRCeS profile'));
    if (profile.encounterRequired) this.mustReference(r.encounter, [...path, 'encounter'], ['Encounter'], t, 'encounter');
    if (r.custodian !== undefined) this.mustReference(r.custodian, [...path, 'custodian'], ['Organization'], t, 'custodian');
    const sections = Array.isArray(r.section) ? r.section : [];
    if (sections.length === 0) return this.ck.add([...path, 'section'], 'required', `section is required by ${profile.id}`);
    if (profile.section === 'op-consult') this.codeSlicedSections(sections, [...path, 'section'], t, OP_CONSULT_SECTIONS, profile.id);
    else if (profile.section === 'discharge-summary') this.codeSlicedSections(sections, [...path, 'section'], t, DISCHARGE_SUMMARY_SECTIONS, profile.id);
    else if (typeof profile.section === 'object' && 'kind' in profile.section) this.titledSections(sections, [...path, 'section'], t, profile, profile.section);
    else this.fixedSection(sections, [...path, 'section'], t, profile, profile.section);
  }

  private fixedSection(sections: unknown[], path: Path, t: Target, profile: RecordProfile, rule: SectionRule): void {
    if (sections.length !== 1) this.ck.add(path, 'cardinality', `${profile.id} has exactly one section`);
    const s = sections[0];
    if (!isObject(s)) return;
    const p = [...path, 0];
    const codings = isObject(s.code) && Array.isArray(s.code.coding) ? s.code.coding : [];
    const fixed = rule.coding;
    if (codings.length === 0 && fixed !== undefined) this.ck.add([...p, 'code'], 'required', `section.code is required by ${profile.id}`);
    if (rule.fixed && fixed !== undefined) {
      codings.forEach(
        (c, i) => !codingEquals(c, fixed) && this.ck.add([...p, 'code', 'coding', i], 'fixed-value', `section.code.coding must be ${fixed.system} ${fixed.code} "${fixed.display}" (${profile.id})`),
      );
    } else if (codings.length > 0) this.codings(s.code, [...p, 'code'], SYSTEMS.snomed);
    const entries = Array.isArray(s.entry) ? s.entry : [];
    if (entries.length < rule.minEntries) this.ck.add([...p, 'entry'], 'cardinality', `section.entry must have at least ${rule.minEntries} entr${rule.minEntries === 1 ? 'y' : 'ies'} (${profile.id})`);
    if (entries.length > rule.maxEntries) this.ck.add([...p, 'entry'], 'cardinality', `section.entry may have at most ${rule.maxEntries} entries (${profile.id})`);
    const counts = new Map<string, number>();
    const sliceNames = Object.keys(rule.slices);
    entries.forEach((en, i) => {
      const ep = [...p, 'entry', i];
      if (!isObject(en)) return;
      if (typeof en.reference !== 'string') return this.ck.add([...ep, 'reference'], 'required', 'section.entry.reference is required by the NRCeS profile');
      const target = this.target(en, t);
      const declared = str(en.type);
      if (rule.typeRequired && declared === undefined)
        return this.ck.add([...ep, 'type'], 'closed-slice', `section.entry.type is required: ${profile.id} slices its entries by type (closed), allowed ${sliceNames.join(', ')}`);
      const kind = declared ?? target?.resourceType;
      if (kind === undefined) return;
      if (!sliceNames.includes(kind)) return this.ck.add([...ep, rule.typeRequired ? 'type' : 'reference'], 'closed-slice', `${profile.id} section entries may only be ${sliceNames.join(' or ')}`);
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      if ((counts.get(kind) ?? 0) > (rule.slices[kind] ?? 0))
        this.ck.add([...ep], 'cardinality', `${profile.id} allows at most ${rule.slices[kind]} ${kind} entr${rule.slices[kind] === 1 ? 'y' : 'ies'}`);
      if (target !== undefined && target.resourceType !== kind) this.ck.add([...ep, 'reference'], 'wrong-target', `the entry's type says ${kind} but the reference points at another resource type`);
    });
  }

  /** Sections sliced by title (WellnessRecord): each title once, before untitled extras; entries of the listed resource types. */
  private titledSections(sections: unknown[], path: Path, t: Target, profile: RecordProfile, rule: TitledSectionsRule): void {
    const seen = new Set<string>();
    let unsliced = false;
    sections.forEach((s, i) => {
      const p = [...path, i];
      if (!isObject(s)) return;
      const title = str(s.title);
      const allowed = title !== undefined && Object.hasOwn(rule.slices, title) ? rule.slices[title] : undefined;
      if (title === undefined || allowed === undefined) {
        unsliced = true;
        return;
      }
      if (unsliced) this.ck.add(p, 'slice-order', `the ${title} section must come before sections that are not ${profile.id} slices (slicing is open at the end)`);
      if (seen.has(title)) this.ck.add(p, 'cardinality', `${profile.id} allows one ${title} section`);
      seen.add(title);
      const entries = Array.isArray(s.entry) ? s.entry : [];
      entries.forEach((en, j) => {
        const ep = [...p, 'entry', j];
        if (!isObject(en) || typeof en.reference !== 'string') return this.ck.add([...ep, 'reference'], 'required', 'section.entry.reference is required by the NRCeS profile');
        const target = this.target(en, t);
        if (target !== undefined && !allowed.includes(target.resourceType)) this.ck.add([...ep, 'reference'], 'wrong-target', `entries of the ${title} section must reference ${allowed.join(' or ')}`);
      });
    });
  }

  /** Sections sliced by code, open at the end (OPConsultRecord, DischargeSummaryRecord): each slice at most once, before the unsliced ones, its code exact, its entries of the allowed types. */
  private codeSlicedSections(sections: unknown[], path: Path, t: Target, table: Readonly<Record<string, SectionSlice>>, profileId: string): void {
    const byCode = new Map<string, [string, SectionSlice]>(Object.entries(table).map(([name, s]) => [s.coding.code, [name, s]]));
    const seen = new Map<string, number>();
    let unsliced = false;
    sections.forEach((s, i) => {
      const p = [...path, i];
      if (!isObject(s)) return;
      const codings = isObject(s.code) && Array.isArray(s.code.coding) ? s.code.coding : [];
      const match = codings.map((c) => (isObject(c) && typeof c.code === 'string' ? byCode.get(c.code) : undefined)).find((m) => m !== undefined);
      if (match === undefined) {
        unsliced = true;
        return;
      }
      const [name, slice] = match;
      if (unsliced) this.ck.add(p, 'slice-order', `the ${name} section must come before sections that are not ${profileId} slices (slicing is open at the end)`);
      seen.set(name, (seen.get(name) ?? 0) + 1);
      if ((seen.get(name) ?? 0) > 1) this.ck.add(p, 'cardinality', `${profileId} allows one ${name} section`);
      if (codings.length > 1) this.ck.add([...p, 'code', 'coding'], 'cardinality', `the ${name} section has exactly one code coding`);
      codings.forEach(
        (c, j) =>
          !codingEquals(c, slice.coding) &&
          this.ck.add([...p, 'code', 'coding', j], 'fixed-value', `the ${name} section code must be ${slice.coding.system} ${slice.coding.code} "${slice.coding.display}"`),
      );
      const entries = Array.isArray(s.entry) ? s.entry : [];
      entries.forEach((en, j) => {
        const ep = [...p, 'entry', j];
        if (!isObject(en) || typeof en.reference !== 'string') return this.ck.add([...ep, 'reference'], 'required', 'section.entry.reference is required by the NRCeS profile');
        const target = this.target(en, t);
        const allowed: readonly string[] = slice.entries;
        if (target !== undefined && !allowed.includes(target.resourceType)) this.ck.add([...ep, 'reference'], 'wrong-target', `entries of the ${name} section must reference ${allowed.join(' or ')}`);
        if (typeof en.type === 'string' && target !== undefined && en.type !== target.resourceType)
          this.ck.add([...ep, 'type'], 'wrong-target', "the entry's type does not match the resource it references");
      });
    });
  }
}

/** A section slice: its fixed code and the resource types its entries may reference. */
interface SectionSlice {
  readonly coding: FixedCoding;
  readonly entries: readonly string[];
}

function checkSections(sections: unknown, path: Path, ck: Checker, depth = 0): void {
  if (!Array.isArray(sections) || depth > 16) return;
  sections.forEach((s, i) => {
    if (!isObject(s)) return;
    const p = [...path, i];
    const hasEntries = Array.isArray(s.entry) && s.entry.length > 0;
    if (s.text === undefined && !hasEntries && s.section === undefined) ck.add(p, 'cmp-1', 'a section must contain at least one of text, entries, or sub-sections (FHIR cmp-1)');
    if (s.emptyReason !== undefined && hasEntries) ck.add([...p, 'emptyReason'], 'cmp-2', 'a section can only have an emptyReason if it is empty (FHIR cmp-2)');
    checkSections(s.section, [...p, 'section'], ck, depth + 1);
  });
}

const UUID = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Validates a FHIR R4 document Bundle: base R4 structure of the resources
 * abha-link emits, document rules (bdl-7, bdl-8, bdl-9, bdl-10, bdl-11,
 * absolute fullUrls), reference integrity (every reference resolves inside
 * the bundle and to the right resource type) and the NRCeS rules abha-link
 * implements: DocumentBundle, PrescriptionRecord, OPConsultRecord,
 * DiagnosticReportRecord, HealthDocumentRecord and the resource profiles
 * they use, applied to the resources that declare them in `meta.profile`.
 *
 * With `nrcesRules: false` the hand-written NRCeS rules are left out: the
 * profile-driven validator (src/fhir/nrces/validate.ts, the public
 * validateFhirBundle) runs this one that way and applies the profiles
 * themselves, which imply every one of those rules (test/fhir-nrces.test.ts).
 *
 * Never throws; issues never contain values from the bundle.
 *
 * @example
 * validateFhirBundle({ resourceType: 'Bundle', type: 'document' })
 * //=> { success: false, issues: [
 * //     { path: '/identifier', code: 'bdl-9', message: 'a document must have an identifier with a system and a value (FHIR bdl-9)', severity: 'error' }, ...] }
 */
export function validateFhirBundle(bundle: unknown, options: { readonly nrcesRules?: boolean; readonly maxIssues?: number } = {}): FhirValidationResult {
  const nrces = options.nrcesRules !== false;
  const ck = new Checker(options.maxIssues ?? Number.POSITIVE_INFINITY);
  try {
    if (!isObject(bundle)) {
      ck.add([], 'type', 'the bundle must be a JSON object');
      return { success: false, issues: ck.issues };
    }
    if (bundle.resourceType !== 'Bundle') ck.add(['resourceType'], 'type', 'resourceType must be Bundle');
    const entries = Array.isArray(bundle.entry) ? bundle.entry : [];
    const isDocument = bundle.type === 'document';
    const index = ck.index;
    ck.isDocument = isDocument;
    const targets: Target[] = [];
    entries.forEach((en, i) => {
      if (!isObject(en)) return;
      const p = ['entry', i];
      const r = en.resource;
      const full = str(en.fullUrl);
      if (full !== undefined) {
        if (!/^[a-z][a-z0-9+.-]*:/i.test(full))
          ck.add([...p, 'fullUrl'], 'relative-full-url', 'fullUrl must be an absolute URI such as urn:uuid:…; relative fullUrls fail the NRCeS DocumentBundle profile');
        else if (full.startsWith('urn:uuid:') && !UUID.test(full)) ck.add([...p, 'fullUrl'], 'invalid-full-url', 'a urn:uuid fullUrl must carry a lower-case UUID');
        if (full.includes('/_history/')) ck.add([...p, 'fullUrl'], 'bdl-8', 'fullUrl cannot be a version-specific reference (FHIR bdl-8)');
        if (index.byFullUrl.has(full)) ck.add([...p, 'fullUrl'], 'bdl-7', 'fullUrl must be unique in a bundle (FHIR bdl-7)');
      } else if (isDocument) ck.add([...p, 'fullUrl'], 'required', 'every entry of a document needs a fullUrl so that references to it resolve');
      if (isDocument && r === undefined) ck.add([...p, 'resource'], 'required', 'every entry of a document must have a resource');
      if (isDocument && (en.request !== undefined || en.response !== undefined)) ck.add(p, 'bdl-3', 'entries of a document have no request or response');
      if (!isObject(r) || typeof r.resourceType !== 'string') return;
      const t: Target = { resourceType: r.resourceType, resource: r, path: [...p, 'resource'] };
      targets.push(t);
      if (full !== undefined && !index.byFullUrl.has(full)) index.byFullUrl.set(full, t);
      if (typeof r.id === 'string') {
        const key = `${r.resourceType}/${r.id}`;
        if (!index.byTypeId.has(key)) index.byTypeId.set(key, t);
        if (full !== undefined && full.startsWith('urn:uuid:') && r.id !== full.slice(9))
          ck.add([...p, 'resource', 'id'], 'id-mismatch', 'the resource id must match the UUID of its fullUrl', 'warning');
      }
    });

    if (isDocument) {
      const id = isObject(bundle.identifier) ? bundle.identifier : undefined;
      if (id?.system === undefined || id.value === undefined) ck.add(['identifier'], 'bdl-9', 'a document must have an identifier with a system and a value (FHIR bdl-9)');
      if (bundle.timestamp === undefined) ck.add(['timestamp'], 'bdl-10', 'a document must have a timestamp (FHIR bdl-10)');
      const first = entries[0];
      if (!isObject(first) || !isObject(first.resource) || first.resource.resourceType !== 'Composition')
        ck.add(entries.length === 0 ? ['entry'] : ['entry', 0, 'resource'], 'bdl-11', 'the first entry of a document must be a Composition (FHIR bdl-11)');
    }

    // NRCeS DocumentBundle.
    const bundleProfiles = isObject(bundle.meta) && Array.isArray(bundle.meta.profile) ? bundle.meta.profile : [];
    if (bundleProfiles.includes(PROFILES.DocumentBundle)) {
      // Without nrcesRules the profile-driven validator applies DocumentBundle from the profile itself.
      if (nrces && (!isObject(bundle.meta) || bundle.meta.versionId === undefined)) ck.add(['meta', 'versionId'], 'required', 'meta.versionId is required by the NRCeS DocumentBundle profile');
      if (nrces && bundle.type !== 'document') ck.add(['type'], 'fixed-value', 'type must be document (NRCeS DocumentBundle)');
      if (nrces && bundle.timestamp === undefined) ck.add(['timestamp'], 'required', 'timestamp is required by the NRCeS DocumentBundle profile');
      if (nrces && !isObject(bundle.identifier)) ck.add(['identifier'], 'required', 'identifier is required by the NRCeS DocumentBundle profile');
    } else if (isDocument)
      ck.add(['meta', 'profile'], 'missing-profile', `the bundle does not declare the NRCeS DocumentBundle profile (${PROFILES.DocumentBundle}); its rules were not applied`, 'warning');

    // Base R4 structure, and references where they are met (the index is complete).
    ck.resource(bundle, [], 0);

    // Profiles.
    const profiles = new Profiles(ck, index);
    const records = Object.values(RECORD_PROFILES) as RecordProfile[];
    for (const t of targets) {
      const declared = isObject(t.resource.meta) && Array.isArray(t.resource.meta.profile) ? t.resource.meta.profile : undefined;
      if (isDocument && (declared === undefined || declared.length === 0))
        ck.add([...t.path, 'meta', 'profile'], 'missing-profile', `${safeResourceType(t.resourceType)} declares no profile in meta.profile; NRCeS rules were not applied to it`, 'warning');
      if (nrces) profiles.resource(t);
      if (t.resourceType === 'Composition') {
        checkSections(t.resource.section, [...t.path, 'section'], ck);
        const record = records.find((rp) => declared?.includes(rp.url));
        if (nrces && record !== undefined) profiles.composition(t, record);
      }
    }
  } catch (e) {
    if (e !== STOP) ck.issues.push({ path: '', code: 'unreadable', message: 'the bundle could not be read as JSON data', severity: 'error' });
  }
  const errors = ck.issues.some((i) => i.severity === 'error');
  const truncated = ck.truncated ? { truncated: true as const } : {};
  return errors ? { success: false, issues: ck.issues, ...truncated } : { success: true, issues: ck.issues, ...truncated };
}
