/**
 * The reading of FHIR resources into a clinical input (`fromFhir`,
 * from-fhir.ts) and its helpers shared by from-fhir-print.ts,
 * from-fhir-records.ts and from-fhir-stay.ts: the Reader (issues, origins,
 * references), the checks of lists, codings and concepts, the hiType of a
 * Composition. A module of its own, so that those files need not import
 * from-fhir.ts, which imports them.
 */
import { pointer, type Issue } from '../errors.js';
import { isObject } from '../util.js';
import { OTHER_RECORD_TYPES, RECORD_PROFILES, SYSTEMS, type RecordProfile } from './constants.js';
import { RESOURCES, safeElementName } from './structure.js';

/** @internal */
export type Json = Record<string, unknown>;
/** @internal */
export type Path = ReadonlyArray<string | number>;

/** @internal */
export interface Item {
  readonly resourceType: string;
  readonly resource: Json;
  readonly path: Path;
  used: boolean;
}

/** @internal The reading of one input: issues, origins, the resources. */
export class Reader {
  readonly issues: Issue[] = [];
  /** Clinical-input JSON Pointer → the FHIR path it came from. */
  readonly origin = new Map<string, string>();
  readonly items: Item[] = [];
  /** Request dates (authoredOn) to compare with the visit date once it is known. */
  readonly requestDates: Array<{ readonly path: Path; readonly value: unknown; readonly what: string }> = [];
  private readonly byUrl = new Map<string, Item>();

  warn(path: Path, code: string, message: string): void {
    this.issues.push({ path: pointer(...path), code, message, severity: 'warning' });
  }
  error(path: Path, code: string, message: string): void {
    this.issues.push({ path: pointer(...path), code, message, severity: 'error' });
  }
  from(inputPath: string, fhirPath: Path): void {
    this.origin.set(inputPath, pointer(...fhirPath));
  }
  /** A value read into `fromInput` moved to `toInput`: its origin (that of its `value` when it has one) goes with it. */
  moveOrigin(fromInput: string, toInput: string): void {
    const at = this.origin.get(`${fromInput}/value`) ?? this.origin.get(fromInput);
    for (const k of [...this.origin.keys()]) if (k === fromInput || k.startsWith(`${fromInput}/`)) this.origin.delete(k);
    if (at !== undefined) this.origin.set(toInput, at);
  }

  /** A trimmed non-empty string at `path`, or undefined (with a warning when the value is there but not text). */
  text(value: unknown, path: Path): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      this.warn(path, 'type', `${safeElementName(last(path))} must be a string; it is left out`);
      return undefined;
    }
    const t = value.trim();
    return t === '' ? undefined : t;
  }

  index(item: Item, fullUrl: string | undefined): void {
    this.items.push(item);
    const id = typeof item.resource.id === 'string' ? item.resource.id : undefined;
    if (fullUrl !== undefined && !this.byUrl.has(fullUrl)) this.byUrl.set(fullUrl, item);
    if (id !== undefined && !this.byUrl.has(`${item.resourceType}/${id}`)) this.byUrl.set(`${item.resourceType}/${id}`, item);
  }

  resolve(ref: unknown, container?: Item): Item | undefined {
    if (!isObject(ref) || typeof ref.reference !== 'string') return undefined;
    const r = ref.reference;
    if (r.startsWith('#') && container !== undefined) {
      const contained = container.resource.contained;
      if (!Array.isArray(contained)) return undefined;
      const i = contained.findIndex((c) => isObject(c) && c.id === r.slice(1));
      const c = contained[i];
      return isObject(c) && typeof c.resourceType === 'string' ? { resourceType: c.resourceType, resource: c, path: [...container.path, 'contained', i], used: true } : undefined;
    }
    const hit = this.byUrl.get(r) ?? this.byUrl.get(/([A-Za-z]+\/[A-Za-z0-9\-.]{1,64})(\/_history\/[^/]*)?$/.exec(r)?.[1] ?? '');
    return hit;
  }

  ofType(type: string): Item[] {
    return this.items.filter((i) => i.resourceType === type);
  }
}

/** The last element name of a path (`value` when it has none). */
export function last(path: Path): string {
  for (let i = path.length - 1; i >= 0; i--) if (typeof path[i] === 'string') return String(path[i]);
  return 'value';
}

/** Reports every element of `r` that is neither mapped nor bookkeeping. */
export function reportRest(rd: Reader, r: Json, path: Path, handled: readonly string[], what: string): void {
  const known = new Set(['resourceType', 'id', 'meta', 'text', 'implicitRules', 'language', ...handled]);
  for (const k of Object.keys(r)) {
    if (known.has(k) || (k.startsWith('_') && known.has(k.slice(1)))) continue;
    rd.warn([...path, k], 'not-mapped', `${what}.${elementName(what, k)} has no place in the clinical input; it is left out`);
  }
}

/** An element's name for a message: only names FHIR R4 defines, never an arbitrary key (which could be data). */
export function elementName(resourceType: string, key: string): string {
  const def = Object.hasOwn(RESOURCES, resourceType) ? RESOURCES[resourceType] : undefined;
  if (def !== undefined) return Object.hasOwn(def, key) ? key : '(an element FHIR R4 does not define)';
  return safeElementName(key);
}

/**
 * Why element `key` of a `what` is left out, naming the element only when
 * FHIR R4 defines it there (`elements`, or an extension): a key could be data.
 */
export function leftOut(what: string, key: string, elements: readonly string[], why = 'has no place in the clinical input'): string {
  if (key === 'extension' || key === 'modifierExtension') return `${what}.${key}: abha-link does not read extensions; it is left out`;
  return `${what}.${elements.includes(key) ? key : '(an element FHIR R4 does not define)'} ${why}; it is left out`;
}

/** Warns about a mapped element that is present but not an array of objects, and about items that are not objects. */
export function checkList(rd: Reader, r: Json, key: string, path: Path): void {
  const v = r[key];
  if (v === undefined) return;
  if (!Array.isArray(v)) return rd.warn([...path, key], 'type', `${key} must be an array; it is left out`);
  v.forEach((x, i) => !isObject(x) && rd.warn([...path, key, i], 'type', `${key}[${i}] must be an object; it is left out`));
}

/** Calls `fn` with each object of the list `r[key]` and its path; a value that is not an array, or an item that is not an object, is skipped ({@link checkList} reports them). */
export function eachObject(r: Json, key: string, path: Path, fn: (item: Json, itemPath: Path) => void): void {
  const v = r[key];
  if (Array.isArray(v)) v.forEach((x, i) => isObject(x) && fn(x, [...path, key, i]));
}

export function codings(cc: unknown): Json[] {
  return isObject(cc) && Array.isArray(cc.coding) ? cc.coding.filter(isObject) : [];
}

/** The words of a CodeableConcept: its text, else the display of its first coding with one. */
export function conceptText(rd: Reader, cc: unknown, path: Path): string | undefined {
  if (!isObject(cc)) return undefined;
  const t = rd.text(cc.text, [...path, 'text']);
  if (t !== undefined) return t;
  for (const c of codings(cc)) if (typeof c.display === 'string' && c.display.trim() !== '') return c.display.trim();
  return undefined;
}

/** Marks `item` read and warns about those of its mapped lists that are not arrays of objects. */
export function take(rd: Reader, item: Item, lists: readonly string[]): { r: Json; p: Path } {
  item.used = true;
  for (const key of lists) checkList(rd, item.resource, key, item.path);
  return { r: item.resource, p: item.path };
}

export function hiTypeOfComposition(c: Json): string | undefined {
  const profiles = isObject(c.meta) && Array.isArray(c.meta.profile) ? c.meta.profile : [];
  const records = Object.values(RECORD_PROFILES) as RecordProfile[];
  for (const rp of records) if (profiles.includes(rp.url)) return rp.hiType;
  for (const o of OTHER_RECORD_TYPES) if (profiles.some((x) => typeof x === 'string' && x.endsWith(`/StructureDefinition/${o.id}`))) return o.hiType;
  for (const c0 of codings(c.type)) {
    if (c0.system !== SYSTEMS.snomed) continue;
    const rp = records.find((x) => x.typeFixed && x.type?.code === c0.code);
    if (rp !== undefined) return rp.hiType;
    const o = OTHER_RECORD_TYPES.find((x) => x.code === c0.code);
    if (o !== undefined) return o.hiType;
  }
  // WellnessRecord and InvoiceRecord fix type.text only.
  const typeText = isObject(c.type) && typeof c.type.text === 'string' ? c.type.text : undefined;
  return typeText === undefined ? undefined : records.find((x) => x.typeText === typeText)?.hiType;
}
