/**
 * The NRCeS profile data (derived from the IG by scripts/derive-profiles.mjs
 * into src/generated/ndhm-profiles.ts), compiled once, lazily, into lookup
 * tables: per profile, each element by id, its children by name and its
 * slices; value sets as code lists per system.
 */
import { NDHM_PROFILES_JSON } from '../../generated/ndhm-profiles.js';
import { R4_MODEL_JSON } from '../../generated/r4-model.js';

export interface TypeRef {
  readonly code: string;
  readonly profile?: readonly string[];
  readonly target?: readonly string[];
}
export interface Discriminator {
  readonly type: 'value' | 'pattern' | 'type' | 'profile' | 'exists';
  readonly path: string;
}
export interface Constraint {
  readonly key: string;
  readonly severity: 'error' | 'warning';
  readonly expression: string;
  readonly human: string;
}
/** One element of a profile's snapshot, as derived. */
export interface ElementData {
  readonly id: string;
  readonly min?: number;
  readonly max?: string;
  readonly slice?: string;
  readonly ref?: string;
  readonly types?: readonly TypeRef[];
  readonly fixed?: unknown;
  readonly pattern?: unknown;
  readonly slicing?: { readonly discriminator: readonly Discriminator[]; readonly rules: 'open' | 'closed' | 'openAtEnd'; readonly ordered?: boolean };
  readonly binding?: { readonly strength: 'required' | 'extensible'; readonly valueSet: string };
  readonly constraints?: readonly Constraint[];
}
interface ProfileData {
  readonly url: string;
  readonly name: string;
  readonly type: string;
  readonly kind: string;
  readonly elements: readonly ElementData[];
}
interface Data {
  readonly ig: { readonly name: string; readonly version: string; readonly canonical: string };
  readonly profiles: readonly ProfileData[];
  readonly valueSets: Readonly<Record<string, Readonly<Record<string, readonly string[] | null>>>>;
  readonly igCodeSystems: readonly string[];
  readonly baseBindings: Readonly<Record<string, string>>;
  readonly baseBindingsUnexpanded: readonly string[];
  readonly recordTypes: readonly RecordType[];
  readonly baseRequired: Readonly<Record<string, readonly string[]>>;
}

/** The Composition `type` that implies a record profile (for a document whose Composition declares none). */
export interface RecordType {
  readonly url: string;
  readonly name: string;
  /** The coding system of `type` (SNOMED CT), with the codes that imply the profile. */
  readonly system?: string;
  readonly codes: readonly string[];
  /** The fixed `type.text` (WellnessRecord, InvoiceRecord, which fix no coding). */
  readonly text?: string;
}

/** Every key of `T`, present: an absent one is there with the value undefined. */
type AllKeys<T> = { readonly [K in keyof T]-?: T[K] | undefined };

/**
 * An element with its place in the profile: children by name, slices by name. Every element has every key, in
 * the same order ({@link element}), so that all share one object shape: the walk reads an element's properties
 * at a known place, not through V8's shared lookup cache, which other code (a bundle's build) fills in between.
 */
export interface Element extends AllKeys<Omit<ElementData, 'id'>> {
  readonly id: string;
  readonly name: string;
  readonly minimum: number;
  /** Maximum occurrences (Infinity for `*`). */
  readonly maximum: number;
  readonly children: Map<string, Element>;
  readonly slices: Element[];
}

export interface Profile {
  readonly url: string;
  readonly name: string;
  readonly type: string;
  readonly root: Element;
  readonly byId: ReadonlyMap<string, Element>;
}

export interface ValueSetCodes {
  /** system → codes, or null when any code of the system is accepted (not expandable offline). */
  readonly systems: ReadonlyMap<string, ReadonlySet<string> | null>;
}

export interface Tables {
  readonly profiles: ReadonlyMap<string, Profile>;
  readonly valueSets: ReadonlyMap<string, ValueSetCodes>;
  readonly igCodeSystems: ReadonlySet<string>;
  readonly igVersion: string;
  /** Base R4 required bindings: element path (`Timing.repeat.periodUnit`) → value set URL. */
  readonly baseBindings: ReadonlyMap<string, string>;
  /** Base R4 elements with a required binding whose value set cannot be expanded offline. */
  readonly baseBindingsUnexpanded: ReadonlySet<string>;
  readonly recordTypes: readonly RecordType[];
  /** Base R4 elements with a minimum of 1, by the type or backbone element path that holds them (`x[x]` for a choice). */
  readonly baseRequired: ReadonlyMap<string, readonly string[]>;
}

/** The element's own name: the last part of its id, without the slice. */
function nameOf(id: string): { parent: string | undefined; name: string; slice: string | undefined } {
  const dot = id.lastIndexOf('.');
  const last = dot < 0 ? id : id.slice(dot + 1);
  const colon = last.indexOf(':');
  if (colon >= 0) return { parent: dot < 0 ? undefined : `${id.slice(0, dot)}.${last.slice(0, colon)}`, name: last.slice(0, colon), slice: last.slice(colon + 1) };
  return { parent: dot < 0 ? undefined : id.slice(0, dot), name: last, slice: undefined };
}

const EXTENSION_SLICING: NonNullable<ElementData['slicing']> = { discriminator: [{ type: 'value', path: 'url' }], rules: 'open' };

/** The element of `e`, with every key of an element in one order (absent ones undefined). */
function element(e: ElementData, name: string): Element {
  return {
    id: e.id,
    min: e.min,
    max: e.max,
    slice: e.slice,
    ref: e.ref,
    types: e.types,
    fixed: e.fixed,
    pattern: e.pattern,
    slicing: e.slicing,
    binding: e.binding,
    constraints: e.constraints,
    name,
    minimum: e.min ?? 0,
    maximum: e.max === undefined || e.max === '*' ? Number.POSITIVE_INFINITY : Number(e.max),
    children: new Map(),
    slices: [],
  };
}

function compileProfile(p: ProfileData): Profile {
  const byId = new Map<string, Element>();
  let root: Element | undefined;
  for (const e of p.elements) {
    const el = element(e, nameOf(e.id).name);
    byId.set(e.id, el);
    if (root === undefined) root = el;
  }
  // Elements the derivation left out (nothing beyond base R4) but whose descendants it kept: placeholders.
  const ensure = (id: string): void => {
    if (byId.has(id)) return;
    byId.set(id, element({ id }, nameOf(id).name));
    const { parent } = nameOf(id);
    if (parent !== undefined) ensure(parent);
  };
  for (const id of [...byId.keys()]) {
    const { parent } = nameOf(id);
    if (parent !== undefined) ensure(parent);
  }
  for (const el of byId.values()) {
    const { parent, slice } = nameOf(el.id);
    if (parent === undefined) continue;
    if (slice !== undefined) {
      // `a.b:s` is a slice of `a.b`; the slice's parent is `a.b`.
      byId.get(parent)?.slices.push(el);
      continue;
    }
    byId.get(parent)?.children.set(el.name, el);
  }
  // Extension slicing by url (open) is what the derivation leaves out as the default: put it back where there are slices.
  for (const [id, el] of byId) {
    if (el.slices.length === 0 || el.slicing !== undefined || (el.name !== 'extension' && el.name !== 'modifierExtension')) continue;
    byId.set(id, Object.assign(el, { slicing: EXTENSION_SLICING }));
  }
  const fallback = element({ id: p.type }, p.type);
  return { url: p.url, name: p.name, type: p.type, root: root ?? fallback, byId };
}

let tables: Tables | undefined;

/** The compiled tables, built on first use. */
export function profileTables(): Tables {
  if (tables !== undefined) return tables;
  const data = JSON.parse(NDHM_PROFILES_JSON) as Data;
  const profiles = new Map<string, Profile>();
  for (const p of data.profiles) profiles.set(p.url, compileProfile(p));
  const valueSets = new Map<string, ValueSetCodes>();
  for (const [url, systems] of Object.entries(data.valueSets)) valueSets.set(url, { systems: new Map(Object.entries(systems).map(([s, codes]) => [s, codes === null ? null : new Set(codes)])) });
  tables = {
    profiles,
    valueSets,
    igCodeSystems: new Set(data.igCodeSystems),
    igVersion: data.ig.version,
    baseBindings: new Map(Object.entries(data.baseBindings)),
    baseBindingsUnexpanded: new Set(data.baseBindingsUnexpanded),
    recordTypes: data.recordTypes,
    baseRequired: new Map(Object.entries(data.baseRequired)),
  };
  return tables;
}

/** The base FHIR R4 model the validator walks with (fhirpath's model, in fhirpath's shape). */
export interface R4Model {
  /** Element path → its type (`Observation.code` → `CodeableConcept`, `Patient.active` → `boolean`). */
  readonly path2Type: Readonly<Record<string, string | undefined>>;
  /** Element paths that repeat. */
  readonly path2Repeating: Readonly<Record<string, boolean | undefined>>;
  /** Choice element path (`Observation.value`) → its types. */
  readonly choiceTypePaths: Readonly<Record<string, readonly string[] | undefined>>;
  /** Backbone element path → the path that defines its elements (`Bundle.entry.link` → `Bundle.link`). */
  readonly pathsDefinedElsewhere: Readonly<Record<string, string | undefined>>;
}

let r4Model: R4Model | undefined;

/**
 * The base R4 model, expanded on first use from src/generated/r4-model.ts
 * (derived from fhirpath's R4 model by scripts/derive-r4-model.mjs: holder
 * path → `name:Type` entries, `name*:Type` for one that repeats).
 */
export function r4(): R4Model {
  if (r4Model !== undefined) return r4Model;
  const data = JSON.parse(R4_MODEL_JSON) as { elements: Record<string, string>; choiceTypes: Record<string, string[]>; definedElsewhere: Record<string, string> };
  const path2Type: Record<string, string> = Object.create(null) as Record<string, string>;
  const path2Repeating: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
  for (const [holder, entries] of Object.entries(data.elements)) {
    for (const entry of entries.split(' ')) {
      const colon = entry.indexOf(':');
      const repeats = entry.charCodeAt(colon - 1) === 42; /* * */
      const path = `${holder}.${entry.slice(0, repeats ? colon - 1 : colon)}`;
      path2Type[path] = entry.slice(colon + 1);
      if (repeats) path2Repeating[path] = true;
    }
  }
  const choiceTypePaths = Object.assign(Object.create(null) as Record<string, string[]>, data.choiceTypes);
  const pathsDefinedElsewhere = Object.assign(Object.create(null) as Record<string, string>, data.definedElsewhere);
  r4Model = { path2Type, path2Repeating, choiceTypePaths, pathsDefinedElsewhere };
  return r4Model;
}

/** FHIR primitive type names. */
export const PRIMITIVE_TYPES: ReadonlySet<string> = new Set([
  'boolean',
  'integer',
  'string',
  'decimal',
  'uri',
  'url',
  'canonical',
  'base64Binary',
  'instant',
  'date',
  'dateTime',
  'time',
  'code',
  'oid',
  'id',
  'markdown',
  'unsignedInt',
  'positiveInt',
  'uuid',
  'xhtml',
]);

const baseCache = new Map<string, string | undefined>();

/**
 * Where the base model defines an element path: `Observation.code.coding` →
 * `CodeableConcept.coding`; backbone elements keep their own path.
 */
export function basePath(path: string): string | undefined {
  if (baseCache.has(path)) return baseCache.get(path);
  let out: string | undefined;
  if (r4().path2Type[path] !== undefined) out = path;
  else {
    const dot = path.lastIndexOf('.');
    if (dot > 0) {
      const parent = basePath(path.slice(0, dot));
      if (parent !== undefined) {
        const own = ownerOf(parent);
        const candidate = `${own}.${path.slice(dot + 1)}`;
        out = r4().path2Type[candidate] !== undefined ? candidate : undefined;
      }
    }
  }
  baseCache.set(path, out);
  return out;
}

/** The type whose elements a value at `path` has: a datatype name, or the path itself for a backbone element. */
export function ownerOf(path: string): string {
  const elsewhere = r4().pathsDefinedElsewhere[path];
  if (elsewhere !== undefined) return elsewhere;
  const t = r4().path2Type[path];
  if (t === undefined || t === 'BackboneElement' || t === 'Element') return path;
  return t;
}

/** A FHIR type name from the R4 model (`System.String` → `string`). */
export function fhirType(modelType: string): string {
  if (modelType.startsWith('System.')) return 'string';
  return modelType;
}
