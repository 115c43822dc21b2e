/**
 * The profile-driven FHIR validator: any FHIR R4 bundle or resource, checked
 * against base R4 structure (unknown elements, primitive types, repetition,
 * from the R4 model generated into src/generated/r4-model.ts) and, for every resource that declares
 * (or is referenced as) an NRCeS profile of the IG `ndhm.in` 6.5.0, against
 * the profile's snapshot: cardinality, types (choice types included), fixed
 * and pattern values, slicing with discriminators (closed slicing enforced,
 * each slice's own rules), required and extensible bindings, reference target
 * profiles, and the profile's FHIRPath invariants (decided in code; any other
 * by the optional fhirpath package). Document bundles also get the rules of the earlier hand-written
 * validator that the profiles do not carry (docs/fhir.md lists them).
 *
 * The walk reads compiled plans (plan.ts): each profile element and base
 * definition is turned once into the checks of its keys and items, so that
 * a value costs a map lookup per key, not a lookup of paths and bindings.
 *
 * Issues are `{ path, code, message, severity }` with `path` a FHIRPath-like
 * location (`Bundle.entry[3].resource.section[0].entry[1]`); messages say
 * what was expected, never the value found.
 */
import type { Issue, Severity } from '../../errors.js';
import { pathLabel } from '../structure.js';
import { bundleRules, sectionRules } from './document.js';
import { PRIMITIVE_TYPES, profileTables, type Element, type Profile, type Tables, type ValueSetCodes } from './data.js';
import { ENGINE_MISSING } from './fhirpath-engine.js';
import { deepEqual } from './invariants.js';
import {
  compiledOf,
  invariantsOf,
  keyInfo,
  keyPlan,
  matchesPattern,
  objectPlan,
  slicePlan,
  type BindingPlan,
  type InvariantPlan,
  type ItemPlan,
  type KeyPlan,
  type ObjectPlan,
  type RequiredChild,
  type SliceMatcher,
} from './plan.js';
import { isObject } from '../../util.js';

/**
 * What {@link validateFhirBundle} returns: errors make it fail; warnings and information never do.
 * `truncated` is there when validation stopped before the end: at `maxIssues` issues, or at a size limit
 * (a `too-large` issue says which); then `issues` holds what was found until it stopped.
 */
export type FhirValidationResult =
  { readonly success: true; readonly issues: readonly Issue[]; readonly truncated?: true } | { readonly success: false; readonly issues: readonly Issue[]; readonly truncated?: true };

/** Options of {@link validateFhirBundle}. */
export interface FhirValidateOptions {
  /** A profile URL to validate the bundle (or resource) against, instead of (besides) its `meta.profile`. */
  readonly profile?: string;
  /**
   * Report a rule that could not be decided (an invariant the FHIRPath engine cannot evaluate, a required
   * binding whose value set cannot be expanded offline) as an error rather than as information: code `unevaluated`.
   */
  readonly strict?: boolean;
  /** Validation stops at this many issues and the result says `truncated: true` (default {@link FHIR_MAX_ISSUES}). */
  readonly maxIssues?: number;
}

/** The default cap on the issues of one validation. */
export const FHIR_MAX_ISSUES = 1000;

/**
 * Size limits: a bundle beyond one gets a `too-large` error at the place it was met, and validation stops
 * there (`truncated`). Depth counts nested objects; nodes count every object and array walked.
 */
export const FHIR_LIMITS = { entries: 100_000, references: 1_000_000, depth: 64, nodes: 4_000_000 } as const;

/** How many key positions of a value the plans remember (ObjectPlan.seenKeys). */
const MAX_SEEN_KEYS = 64;

/** Thrown to end a validation at the issue cap or a size limit; never escapes {@link validateFhirBundle}. */
const STOP = Symbol('stop');

type Json = Record<string, unknown>;
type Steps = ReadonlyArray<string | number>;

/**
 * A place in the bundle, built lazily as the walk descends: the place above and one step down (a key or an
 * index). It costs one small object per element and becomes a path string only when an issue is reported there.
 */
interface Step {
  readonly up: Path;
  readonly key: string | number;
}
type Path = Step | null;

/** The place one step below `path`. */
const at = (up: Path, key: string | number): Step => ({ up, key });

/** The place some steps below `path`. */
function below(path: Path, keys: Steps): Path {
  let p = path;
  for (const key of keys) p = at(p, key);
  return p;
}

/** The steps from the top down to a place: `['entry', 3, 'resource']`. */
function stepsOf(path: Path): Array<string | number> {
  const out: Array<string | number> = [];
  for (let p = path; p !== null; p = p.up) out.push(p.key);
  return out.reverse();
}

/** `['entry', 3, 'resource']` under `Bundle` → `Bundle.entry[3].resource`. */
function fhirPathOf(root: string, steps: Steps): string {
  let s = root;
  for (const t of steps) s += typeof t === 'number' ? `[${t}]` : `.${t}`;
  return s;
}

/** The resource type a profile (or base definition) URL constrains. */
function typeOfProfile(t: Tables, url: string): string {
  return t.profiles.get(url)?.type ?? url.slice(url.lastIndexOf('/') + 1);
}

/** The resource of entry `i`, at its place. */
const entryTarget = (resource: Json, i: number): Target => ({ resource, path: at(at(at(null, 'entry'), i), 'resource') });

interface Container {
  readonly resource: Json;
  readonly path: Path;
}

interface Target {
  readonly resource: Json;
  readonly path: Path;
}

/** One validation run over one bundle or resource. */
class Engine {
  readonly issues: Issue[] = [];
  private readonly seen = new Set<string>();
  private readonly byFullUrl = new Map<string, Target>();
  private byTypeId: Map<string, Target> | undefined;
  /** Resource → profiles it was (or is to be) validated against. */
  private readonly applied = new Map<Json, Set<string>>();
  private readonly pending: Array<{ target: Target; profile: Profile }> = [];
  nodes = 0;
  /** Whether Object.prototype has no enumerable property (else for-in would list it for every object): asked once per validation. */
  private readonly plainPrototype = Object.keys(Object.prototype).length === 0;
  references = 0;
  truncated = false;
  /** The Composition of a document that declares no record profile, and the record profile its type implies. */
  implied: { readonly resource: Json; readonly url: string } | undefined;

  constructor(
    readonly tables: Tables,
    readonly root: string,
    readonly top: Json,
    readonly isDocument: boolean,
    /** Whether the rules no profile expresses run (document.ts): off only for the tests that show what the profiles imply. */
    readonly documentRules: boolean,
    readonly strict: boolean,
    readonly maxIssues: number,
  ) {}

  add(path: Path | Steps | string, code: string, message: string, severity: Severity = 'error'): void {
    const p = typeof path === 'string' ? path : fhirPathOf(this.root, Array.isArray(path) ? path : stepsOf(path as Path));
    const key = `${p}\u0000${code}`;
    if (this.seen.has(key)) return;
    if (this.issues.length >= this.maxIssues) this.stop();
    this.seen.add(key);
    this.issues.push({ path: p, code, message, severity });
  }

  /** Ends the validation here: what was found so far is the result, marked truncated. */
  stop(): never {
    this.truncated = true;
    throw STOP;
  }

  /** A size limit met: one `too-large` error, and the validation stops. */
  tooLarge(path: Path, what: string): never {
    this.add(path, 'too-large', `the bundle is beyond the validator's limit of ${what}; validation stopped here`);
    return this.stop();
  }

  /** A rule that could not be decided: information, or an error under `strict`. */
  unevaluated(path: Path, what: string): void {
    this.add(path, 'unevaluated', `${what} could not be evaluated, so it was neither passed nor failed${this.strict ? ' (strict)' : ''}`, this.strict ? 'error' : 'information');
  }

  /** Indexes the entries by fullUrl (by type and id only when a reference first needs it: most resolve by fullUrl). */
  index(): void {
    const entries = Array.isArray(this.top.entry) ? this.top.entry : [];
    if (entries.length > FHIR_LIMITS.entries) this.tooLarge(at(null, 'entry'), `${FHIR_LIMITS.entries} entries`);
    for (let i = 0; i < entries.length; i++) {
      const en: unknown = entries[i];
      if (!isObject(en) || !isObject(en.resource) || typeof en.resource.resourceType !== 'string' || typeof en.fullUrl !== 'string') continue;
      if (!this.byFullUrl.has(en.fullUrl)) this.byFullUrl.set(en.fullUrl, entryTarget(en.resource, i));
    }
  }

  /** The entries by `type/id`, made on first use. */
  private typeIds(): Map<string, Target> {
    if (this.byTypeId !== undefined) return this.byTypeId;
    const byTypeId = (this.byTypeId = new Map<string, Target>());
    const entries = Array.isArray(this.top.entry) ? this.top.entry : [];
    entries.forEach((en, i) => {
      if (!isObject(en) || !isObject(en.resource) || typeof en.resource.resourceType !== 'string' || typeof en.resource.id !== 'string') return;
      const key = `${en.resource.resourceType}/${en.resource.id}`;
      if (!byTypeId.has(key)) byTypeId.set(key, entryTarget(en.resource, i));
    });
    return byTypeId;
  }

  resolve(ref: string, container: Container): Target | undefined {
    if (ref.startsWith('#')) {
      const contained = container.resource.contained;
      const c = Array.isArray(contained) ? contained.find((x) => isObject(x) && x.id === ref.slice(1)) : undefined;
      return isObject(c) ? { resource: c, path: container.path } : undefined;
    }
    const found = this.byFullUrl.get(ref);
    if (found !== undefined) return found;
    const byTypeId = this.typeIds();
    return byTypeId.get(ref) ?? byTypeId.get(/([A-Za-z]+\/[A-Za-z0-9\-.]{1,64})(\/_history\/.*)?$/.exec(ref)?.[1] ?? '');
  }

  /** Validates a resource against base R4 and the given profiles (its own meta.profile ones added). */
  resource(resource: Json, path: Path, extra: readonly string[], depth = 0): void {
    const rt = typeof resource.resourceType === 'string' ? resource.resourceType : undefined;
    if (rt === undefined) return this.add(at(path, 'resourceType'), 'required', 'resourceType is required');
    const profiles: Profile[] = [];
    const declared = isObject(resource.meta) && Array.isArray(resource.meta.profile) ? (resource.meta.profile as unknown[]) : [];
    for (const u of declared) if (typeof u === 'string') this.profileOf(u, rt, profiles);
    for (const u of extra) this.profileOf(u, rt, profiles);
    if (this.implied?.resource === resource) this.profileOf(this.implied.url, rt, profiles);
    for (const u of extra) {
      const p = this.tables.profiles.get(u);
      if (p !== undefined && p.type !== rt) this.add(at(path, 'resourceType'), 'wrong-profile', `this resource cannot conform to ${p.name}, which profiles ${p.type}`);
    }
    const applied = this.applied.get(resource) ?? new Set<string>();
    if (!this.applied.has(resource)) {
      this.applied.set(resource, applied);
      if (Array.isArray(resource.contained)) this.containedRules(resource, path);
      if (rt === 'Composition' && this.documentRules) sectionRules(resource.section, stepsOf(at(path, 'section')), (p, c, m, sv) => this.add(p, c, m, sv));
    }
    const container: Container = { resource, path };
    if (profiles.length === 0) {
      if (applied.has('')) return;
      applied.add('');
      return this.object(resource, objectPlan(rt, undefined), path, container, depth);
    }
    for (const p of profiles) {
      if (applied.has(p.url)) continue;
      applied.add(p.url);
      this.object(resource, objectPlan(rt, p.root), path, container, depth);
      this.invariants(resource, invariantsOf(p.root), path, container);
    }
  }

  /** Adds the profile of `url` (a version after `|` ignored) to `out` when it profiles `rt` and is not there yet. */
  private profileOf(url: string, rt: string, out: Profile[]): void {
    const bar = url.indexOf('|');
    const p = this.tables.profiles.get(bar < 0 ? url : url.slice(0, bar));
    if (p !== undefined && p.type === rt && !out.includes(p)) out.push(p);
  }

  /** dom-2 to dom-5, natively, for every resource that contains others (profiled or not). */
  private containedRules(resource: Json, path: Path): void {
    const contained = resource.contained as unknown[];
    const refs = new Set<string>();
    collectLocalReferences(resource, refs, 0);
    contained.forEach((c, i) => {
      if (!isObject(c)) return;
      const p = below(path, ['contained', i]);
      if (c.contained !== undefined) this.add(p, 'dom-2', 'a contained resource cannot contain other resources (invariant dom-2)');
      if (isObject(c.meta) && (c.meta.versionId !== undefined || c.meta.lastUpdated !== undefined))
        this.add(at(p, 'meta'), 'dom-4', 'a contained resource cannot have meta.versionId or meta.lastUpdated (invariant dom-4)');
      if (isObject(c.meta) && c.meta.security !== undefined) this.add(below(p, ['meta', 'security']), 'dom-5', 'a contained resource cannot have a security label (invariant dom-5)');
      if (typeof c.id !== 'string' || !(refs.has(`#${c.id}`) || refs.has('#')))
        this.add(p, 'dom-3', 'a contained resource must be referenced from elsewhere in the resource that contains it, or refer to it (invariant dom-3)');
    });
  }

  /** A profile a reference targets, to be applied to the resource it resolves to. */
  private schedule(target: Target, profile: Profile): void {
    if (this.applied.get(target.resource)?.has(profile.url) === true) return;
    this.pending.push({ target, profile });
  }

  runPending(): void {
    for (let i = 0; i < this.pending.length && i < 10_000; i++) {
      const { target, profile } = this.pending[i] ?? {};
      if (target === undefined || profile === undefined) continue;
      this.resource(target.resource, target.path, [profile.url]);
      this.checkedAs(target.path, `${profile.name}, the profile a reference to it requires`);
    }
  }

  /** The earlier validator's warning says no NRCeS rule was applied to a resource: say which profile was, instead. */
  checkedAs(path: Path, what: string): void {
    const where = fhirPathOf(this.root, stepsOf(below(path, ['meta', 'profile'])));
    const issue: Issue = { path: where, code: 'missing-profile', message: `this resource declares no profile in meta.profile; it was checked as ${what}`, severity: 'warning' };
    const w = this.issues.findIndex((x) => x.code === 'missing-profile' && x.path === where);
    if (w >= 0) this.issues[w] = issue;
    else this.add(where, issue.code, issue.message, issue.severity);
  }

  /** A complex value: each of its elements, then the required ones. */
  object(value: Json, plan: ObjectPlan, path: Path, container: Container, depth: number): void {
    if (++this.nodes > FHIR_LIMITS.nodes) this.tooLarge(path, `${FHIR_LIMITS.nodes} objects`);
    if (depth > FHIR_LIMITS.depth) return this.add(path, 'too-deep', `${label(path)} is nested too deeply`);
    const isResource = value === container.resource;
    // for-in, not Object.keys: no array per object, and V8 reads `value[key]` by the enumeration's own index. Only own keys count.
    const proto: unknown = Object.getPrototypeOf(value);
    const ownOnly = proto === null || (proto === Object.prototype && this.plainPrototype);
    let count = 0;
    let choices: string[] | undefined;
    // The bits of the required children met with a value (plan.ts, RequiredChild).
    let present = 0;
    // The position among the keys that have plans, for the plan's memory of the keys seen there.
    let position = 0;
    const { seenKeys, seenPlans } = plan;
    for (const key in value) {
      if (!ownOnly && !Object.prototype.hasOwnProperty.call(value, key)) continue;
      count++;
      if (key === 'resourceType' && isResource) continue;
      if (key === 'fhir_comments') continue;
      if (key.charCodeAt(0) === 95 /* _ */) {
        this.primitiveExtension(value, key, plan.owner, path, container, depth);
        continue;
      }
      // The walk's most frequent lookup: the key seen at this position before, else the plan's map (keyPlan makes a missing one).
      let kp: KeyPlan | null | undefined;
      if (seenKeys[position] === key) kp = seenPlans[position];
      else {
        kp = plan.keys.get(key) ?? keyPlan(plan, key) ?? null;
        if (position < MAX_SEEN_KEYS) {
          seenKeys[position] = key;
          seenPlans[position] = kp;
        }
      }
      position++;
      if (kp === undefined || kp === null) {
        this.add(at(path, key), 'unknown-element', `this is not an element of ${label(path)} in FHIR R4; remove it or check the spelling of its name (the last part of the path)`);
        continue;
      }
      const v = value[key];
      if (v !== undefined) present |= kp.requiredBit;
      // A plain primitive that passes its check needs nothing more (childValue reports it when it does not).
      const plain = kp.plainPrimitive;
      if (plain === undefined || typeof v === 'object' || plain(v) !== undefined) this.childValue(v, path, key, kp, container, depth);
      if (!kp.info.choice) continue;
      const choice = kp.info.name;
      if (choices?.includes(choice) === true) this.add(path, 'choice', `only one type of ${choice} may be present`);
      (choices ??= []).push(choice);
    }
    if (count === 0) return this.add(path, 'empty', `${label(path)} must not be an empty object (FHIR ele-1)`);
    if (present === plan.requiredMask) return;
    for (const r of plan.required) {
      // A required element (`x`, or a choice `x[x]`): there, or an issue (said once per place).
      if ((present & r.bit) !== 0) continue;
      if (r.prefix === undefined) {
        if (value[r.name] === undefined) this.add(at(path, r.name), 'required', requiredMessage(r));
      } else if (!hasChoice(Object.keys(value), r.prefix)) this.add(at(path, r.prefix), 'required', requiredMessage(r));
    }
  }

  /** `_birthDate`: the id and extensions of a primitive element (an Element, or an array of them beside an array of primitives). */
  private primitiveExtension(value: Json, key: string, owner: string, path: Path, container: Container, depth: number): void {
    const p = at(path, key);
    const info = keyInfo(owner, key.slice(1));
    if (info === undefined || !PRIMITIVE_TYPES.has(info.type))
      return this.add(p, 'unknown-element', `this is not the extension of a primitive element of ${label(path)} in FHIR R4 (the part after _ must name one)`);
    const v = value[key];
    const items: unknown[] = info.repeats && Array.isArray(v) ? v : [v];
    if (!info.repeats && Array.isArray(v)) return this.add(p, 'cardinality', `${label(p)} must be a single object, not an array`);
    const plan = objectPlan('Element', undefined);
    items.forEach((item, i) => {
      if (item === null && info.repeats) return; // a null keeps the arrays aligned
      const ip = info.repeats ? at(p, i) : p;
      if (!isObject(item)) return this.add(ip, 'type', `${label(ip)} must be an object with id or extension`);
      this.object(item, plan, ip, container, depth + 1);
    });
  }

  /** The value of one element (`key` of the value at `up`): its base definition, its profile element, its items. */
  private childValue(v: unknown, up: Path, key: string, kp: KeyPlan, container: Container, depth: number): void {
    const { pel, info } = kp;
    const array = Array.isArray(v);
    const count = array ? v.length : 1;
    if (kp.wrongChoice !== undefined || info.repeats !== array || count === 0 || (pel !== undefined && (count > pel.maximum || count < pel.minimum)))
      if (this.shape(at(up, key), kp, array, count)) return;
    // A plain loop, no item array or closure per element: this is the walk's innermost step.
    if (!array) {
      // A plain primitive that passes its check needs nothing more (item() reports it when it does not).
      const only = kp.item.primitiveOnly;
      if (only !== undefined && v !== null && only(v) === undefined) return;
      if (kp.matchers === undefined || pel === undefined) return this.item(v, kp.item, up, key, container, depth);
      const s = this.slice(v, 1, pel, kp.matchers, at(up, key), false, container)[0];
      return this.item(v, s === undefined ? kp.item : slicePlan(kp, s), up, key, container, depth);
    }
    const p = at(up, key);
    const assigned = kp.matchers !== undefined && pel !== undefined ? this.slice(v, count, pel, kp.matchers, p, true, container) : undefined;
    for (let i = 0; i < count; i++) {
      const s = assigned?.[i];
      this.item(v[i], s === undefined ? kp.item : slicePlan(kp, s), p, i, container, depth);
    }
  }

  /** The shape of an element's value (type, array or not, count) against its definitions; true when its items are not to be walked. */
  private shape(p: Path, kp: KeyPlan, array: boolean, count: number): boolean {
    const { pel, info } = kp;
    if (kp.wrongChoice !== undefined) return (this.add(p, 'type', kp.wrongChoice), true);
    if (info.repeats && !array) return (this.add(p, 'type', `${label(p)} must be an array`), true);
    if (!info.repeats && array) return (this.add(p, 'cardinality', `${label(p)} must be a single value, not an array`), true);
    if (count === 0) return (this.add(p, 'empty', `${label(p)} must not be an empty array (FHIR ele-1)`), true);
    if (pel !== undefined) {
      if (count > pel.maximum) this.add(p, 'cardinality', pel.maximum === 0 ? `${label(p)} is not allowed by the profile` : `${label(p)} may have at most ${pel.maximum} item(s) in this profile`);
      if (count < pel.minimum) this.add(p, 'cardinality', `${label(p)} must have at least ${pel.minimum} item(s) in this profile`);
    }
    return false;
  }

  /**
   * Assigns each item to a slice, checks slice cardinality, closed and openAtEnd rules. `items` is the element's array
   * of `count` items, or (not `array`) its one value.
   */
  private slice(items: unknown, count: number, el: Element, matchers: readonly SliceMatcher[], path: Path, array: boolean, container: Container): Array<Element | undefined> {
    const slicing = el.slicing;
    if (slicing === undefined) return [];
    const counts = el.slices.map(() => 0);
    const resolve = (ref: string): Json | undefined => this.resolve(ref, container)?.resource;
    const out: Array<Element | undefined> = [];
    let unmatchedBefore = false;
    for (let i = 0; i < count; i++) {
      const item = array ? (items as unknown[])[i] : items;
      let k = 0;
      while (k < matchers.length && !(matchers[k] as SliceMatcher)(item, resolve)) k++;
      const s = k < matchers.length ? el.slices[k] : undefined;
      out.push(s);
      if (s !== undefined) {
        counts[k] = (counts[k] ?? 0) + 1;
        // openAtEnd: FHIR says unmatched items come last, but the HL7 reference validator treats openAtEnd as open (its
        // InstanceValidator gives an unmatched item the same informational hint either way, "TODO … check that this element
        // is at end") and checks the order of slices only when slicing.ordered is true: information, never a warning.
        if (slicing.rules === 'openAtEnd' && unmatchedBefore) {
          const ip = array ? at(path, i) : path;
          this.add(
            ip,
            'slice-order',
            `${label(ip)} comes after items that match no slice; open-at-end slicing puts those last, an order the HL7 validator does not check (information only)`,
            'information',
          );
        }
        continue;
      }
      unmatchedBefore = true;
      if (slicing.rules === 'closed') this.closedSlice(el, array ? at(path, i) : path);
    }
    el.slices.forEach((s, k) => {
      const n = counts[k] ?? 0;
      if (n < s.minimum) this.add(path, 'slice-cardinality', `${label(path)} must have at least ${s.minimum} ${s.slice ?? s.name} item(s) (slice of ${el.id})`);
      if (n > s.maximum) this.add(path, 'slice-cardinality', `${label(path)} may have at most ${s.maximum} ${s.slice ?? s.name} item(s) (slice of ${el.id})`);
    });
    return out;
  }

  /** An item (at `ip`) that matches none of the slices of a closed slicing. */
  private closedSlice(el: Element, ip: Path): void {
    const discriminators = el.slicing?.discriminator ?? [];
    const d = discriminators[0];
    const simple = discriminators.length === 1 && d !== undefined && /^[a-z][A-Za-z.]*$/.test(d.path);
    const there = simple && d !== undefined ? below(ip, d.path.split('.')) : ip;
    const names = el.slices.map((sl) => sl.slice ?? sl.name).join(', ');
    this.add(there, 'closed-slice', `${label(ip)} matches none of the slices of ${el.id} (closed slicing${simple ? ` by ${d?.path}` : ''}); allowed: ${names}`);
  }

  /**
   * One item of an element (`key` of the value at `up`): primitive or complex, fixed/pattern, binding, reference target,
   * nested elements, invariants. A primitive's path is made only when an issue is found there.
   */
  private item(item: unknown, plan: ItemPlan, up: Path, key: string | number, container: Container, depth: number): void {
    if (item === null) {
      const path = at(up, key);
      return this.add(path, 'null', `${label(path)} must not be null (FHIR JSON has no nulls)`);
    }
    const { el, type } = plan;
    if (el !== undefined) {
      if (el.fixed !== undefined && !deepEqual(item, el.fixed)) this.add(at(up, key), 'fixed-value', `${label(at(up, key))} must be exactly the value the profile fixes (${describe(el.fixed)})`);
      if (el.pattern !== undefined && !matchesPattern(item, el.pattern)) this.add(at(up, key), 'pattern', `${label(at(up, key))} must match the profile's pattern (${describe(el.pattern)})`);
    }
    if (plan.binding !== undefined) this.binding(item, type, plan.binding, up, key);
    else if (plan.bindingUnexpanded) this.unevaluated(at(up, key), `the required binding of ${label(at(up, key))} (its value set cannot be expanded offline)`);
    if (plan.primitive !== undefined) {
      const problem = plan.primitive(item);
      if (problem !== undefined) this.add(at(up, key), problem.code, `${label(at(up, key))} ${problem.message}`, problem.severity);
      return;
    }
    const path = at(up, key);
    if (!isObject(item)) return this.add(path, 'type', `${label(path)} must be an object (a ${type})`);
    if (type === 'Resource') return this.resource(item, path, plan.resourceProfiles, depth + 1);
    if (type === 'Reference') this.reference(item, el, path, container);
    else if (type === 'Extension') {
      if (el === undefined && (typeof item.url !== 'string' || item.url === '')) this.add(at(path, 'url'), 'required', 'extension url is required');
      if ((item.extension !== undefined) === hasValueKey(item)) this.add(path, 'ext-1', 'an extension must have either extensions or a value[x], not both (invariant ext-1)');
      // An extension slice whose type names an IG extension definition: the definition's own rules (value type, url, sub-extensions).
      if (plan.definition !== undefined) {
        this.object(item, (plan.definitionObject ??= objectPlan(plan.owner, plan.definition.root)), path, container, depth + 1);
        this.invariants(item, invariantsOf(plan.definition.root), path, container);
      }
    }
    this.object(item, (plan.object ??= objectPlan(plan.owner, el)), path, container, depth + 1);
    if (plan.invariants !== undefined) this.invariants(item, plan.invariants, path, container);
  }

  /** A Reference: it must resolve inside a document, to the type it declares and to a type (and profile) the element allows. */
  private reference(ref: Json, el: Element | undefined, path: Path, container: Container): void {
    if (typeof ref.reference !== 'string') return;
    if (++this.references > FHIR_LIMITS.references) this.tooLarge(path, `${FHIR_LIMITS.references} references`);
    const target = this.resolve(ref.reference, container);
    if (target === undefined) {
      if (this.isDocument) this.add(at(path, 'reference'), 'unresolved-reference', 'the reference does not resolve to an entry of this document; a document must contain every resource it references');
      return;
    }
    const rt = target.resource.resourceType;
    if (typeof ref.type === 'string' && ref.type !== rt) this.add(at(path, 'type'), 'wrong-target', 'Reference.type does not match the type of the resource referenced');
    const targets = el === undefined ? undefined : targetsOf(this.tables, el);
    if (targets === undefined) return;
    if (typeof rt !== 'string' || (!targets.types.has(rt) && !targets.types.has('Resource')))
      return this.add(at(path, 'reference'), 'wrong-target', `${label(path)} must reference ${[...targets.types].join(' or ')}`);
    const only = targets.onlyProfile.get(rt);
    // A target already checked against the profile needs nothing (one set lookup, before comparing its declared URLs).
    if (only === undefined || this.applied.get(target.resource)?.has(only.url) === true) return;
    const declared = isObject(target.resource.meta) && Array.isArray(target.resource.meta.profile) ? target.resource.meta.profile : [];
    if (!declared.includes(only.url)) this.schedule(target, only);
  }

  /** An item's binding (`key` of the value at `up`): a code of the value set, or an issue there. */
  private binding(item: unknown, type: string, b: BindingPlan, up: Path, key: string | number): void {
    const vs = b.vs;
    if (vs === undefined) {
      if (b.strength === 'required') this.unevaluated(at(up, key), `the required binding of ${label(at(up, key))} (its value set is not one abha-link holds)`);
      return;
    }
    let ok: boolean | undefined;
    if (type === 'code' || type === 'string' || type === 'uri') {
      // A code element: any system of the value set.
      ok = typeof item !== 'string' ? undefined : b.anyCodes.has(item) ? true : b.anySystemOpen ? undefined : false;
    } else if (type === 'Coding' && isObject(item)) ok = inValueSet(vs, item.system, item.code);
    else if (type === 'CodeableConcept' && isObject(item) && Array.isArray(item.coding)) ok = conceptInValueSet(vs, item.coding);
    else return;
    if (ok !== false) return;
    const path = at(up, key);
    if (b.strength === 'required') this.add(path, 'binding', `${label(path)} must be a code of the value set ${b.name} (required binding)`);
    else if (type === 'code' || this.systemKnown(item, type, vs))
      this.add(path, 'binding', `${label(path)} should be a code of the value set ${b.name} (extensible binding: its code system is in the value set, the code is not)`, 'warning');
  }

  /** Whether a Coding's system (a CodeableConcept's, any of them) is one of the value set or of the IG (a code outside an extensible binding is then worth a warning). */
  private systemKnown(item: unknown, type: string, vs: ValueSetCodes): boolean {
    const ig = this.tables.igCodeSystems;
    if (type === 'Coding' && isObject(item)) return typeof item.system === 'string' && (vs.systems.get(item.system) !== undefined || ig.has(item.system));
    if (type !== 'CodeableConcept' || !isObject(item) || !Array.isArray(item.coding)) return false;
    return item.coding.some((c) => isObject(c) && typeof c.system === 'string' && (vs.systems.get(c.system) != null || ig.has(c.system)));
  }

  /** An element's FHIRPath invariants, on its value. */
  private invariants(value: Json, plans: readonly InvariantPlan[], path: Path, container: Container): void {
    for (const c of plans) {
      const verdict = c.native?.(value, container.resource);
      if (verdict !== undefined) {
        if (!verdict) this.add(path, c.key, c.message, c.severity);
        continue;
      }
      const fn = compiledOf(c);
      if (fn === null || fn === 'missing') {
        this.unevaluated(path, `invariant ${c.key}${fn === 'missing' ? ` (${ENGINE_MISSING})` : ''}`);
        continue;
      }
      let result: unknown[];
      try {
        result = fn(value, { resource: container.resource, rootResource: this.top });
      } catch {
        this.unevaluated(path, `invariant ${c.key}`);
        continue;
      }
      if (result.length === 1 && result[0] === false) this.add(path, c.key, c.message, c.severity);
    }
  }
}

/** Whether a system and code are in a value set; undefined when that cannot be told (no code or system, or a system whose codes are not listed). */
function inValueSet(vs: ValueSetCodes, system: unknown, code: unknown): boolean | undefined {
  if (typeof code !== 'string' || typeof system !== 'string') return undefined;
  if (!vs.systems.has(system)) return false;
  const codes = vs.systems.get(system);
  return codes === null || codes === undefined ? true : codes.has(code);
}

/** Whether a CodeableConcept's codings are in a value set: one is; else undefined if one cannot be told or there is none; else not. */
function conceptInValueSet(vs: ValueSetCodes, codings: readonly unknown[]): boolean | undefined {
  let unknown = codings.length === 0;
  for (const c of codings) {
    const r = isObject(c) ? inValueSet(vs, c.system, c.code) : undefined;
    if (r === true) return true;
    if (r === undefined) unknown = true;
  }
  return unknown ? undefined : false;
}

/** Whether an extension has a `value[x]` key (own keys only). */
function hasValueKey(item: Json): boolean {
  for (const k in item) if (k.length > 5 && k.startsWith('value') && Object.prototype.hasOwnProperty.call(item, k)) return true;
  return false;
}

/** Whether some key is a type of the choice `prefix[x]` (the prefix, then an ASCII capital). */
const hasChoice = (keys: readonly string[], prefix: string): boolean =>
  keys.some((k) => k.length > prefix.length && k.startsWith(prefix) && k.charCodeAt(prefix.length) >= 65 && k.charCodeAt(prefix.length) <= 90);

/** The message of a missing required element. */
const requiredMessage = (r: RequiredChild): string => `${r.name} is required${r.by === '' ? '' : ` ${r.by}`}`;

/** What a Reference element may target: resource types, and per type the one NRCeS profile it requires (when exactly one). */
interface Targets {
  readonly types: ReadonlySet<string>;
  readonly onlyProfile: ReadonlyMap<string, Profile>;
}

const targetCache = new WeakMap<Element, Targets | null>();

/** The resource types and NRCeS profiles a Reference element may target (cached per element). */
function targetsOf(tables: Tables, el: Element): Targets | undefined {
  const cached = targetCache.get(el);
  if (cached !== undefined) return cached ?? undefined;
  const urls = el.types?.flatMap((t) => t.target ?? []) ?? [];
  const profiles = urls.map((u) => tables.profiles.get(u)).filter((p): p is Profile => p !== undefined);
  const onlyProfile = new Map<string, Profile>();
  for (const p of profiles) if (profiles.filter((q) => q.type === p.type).length === 1) onlyProfile.set(p.type, p);
  const out = urls.length === 0 ? null : { types: new Set(urls.map((u) => typeOfProfile(tables, u))), onlyProfile };
  targetCache.set(el, out);
  return out ?? undefined;
}

/** Every string of a resource that starts with `#` (local references, canonicals and URIs), for dom-3. */
function collectLocalReferences(value: unknown, out: Set<string>, depth: number): void {
  if (depth > FHIR_LIMITS.depth) return;
  if (typeof value === 'string') {
    if (value.charCodeAt(0) === 35 /* # */) out.add(value);
  } else if (Array.isArray(value)) for (const v of value) collectLocalReferences(v, out, depth + 1);
  else if (isObject(value)) for (const k in value) collectLocalReferences(value[k], out, depth + 1);
}

/** A fixed or pattern value from the profile, for messages (it is the IG's value, never the bundle's). */
function describe(v: unknown): string {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  const s = JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

const label = (path: Path): string => pathLabel(stepsOf(path), 'the resource');

/**
 * Validates any FHIR R4 bundle or resource: base R4 structure and, for each
 * resource, the NRCeS profiles it declares in `meta.profile` (or that
 * `options.profile` names for the top resource, or that a reference to it
 * targets). Document bundles also get the document rules (bdl-7 to bdl-11,
 * absolute fullUrls, reference integrity) and the NRCeS rules listed in
 * docs/fhir.md.
 *
 * Never throws; issues never contain values from the bundle.
 *
 * @example
 * validateFhirBundle({ resourceType: 'Bundle', type: 'document' })
 * //=> { success: false, issues: [{ path: 'Bundle.identifier', code: 'bdl-9', ... }, ...] }
 */
export function validateFhirBundle(bundle: unknown, options: FhirValidateOptions = {}): FhirValidationResult {
  return run(bundle, options, true);
}

/**
 * The profiles and base R4 alone, without the earlier validator's document
 * rules: internal, for the tests that show which of those rules the profiles
 * already imply (docs/fhir.md).
 */
export function validateAgainstProfiles(bundle: unknown, options: FhirValidateOptions = {}): FhirValidationResult {
  return run(bundle, options, false);
}

/** The record profile of a document whose Composition declares none: the one its `type` implies. */
function impliedRecordProfile(tables: Tables, engine: Engine, bundle: Json): void {
  const first = Array.isArray(bundle.entry) ? bundle.entry[0] : undefined;
  const composition = isObject(first) && isObject(first.resource) && first.resource.resourceType === 'Composition' ? first.resource : undefined;
  if (composition === undefined) return;
  const declared = isObject(composition.meta) && Array.isArray(composition.meta.profile) ? composition.meta.profile.map((u) => String(u).split('|')[0]) : [];
  if (tables.recordTypes.some((r) => declared.includes(r.url))) return;
  const type = isObject(composition.type) ? composition.type : {};
  const codings = Array.isArray(type.coding) ? type.coding.filter(isObject) : [];
  const record = tables.recordTypes.find((r) => (r.text !== undefined && type.text === r.text) || codings.some((c) => c.system === r.system && typeof c.code === 'string' && r.codes.includes(c.code)));
  const path = below(null, ['entry', 0, 'resource']);
  if (record === undefined) {
    engine.add(
      at(path, 'type'),
      'unknown-record-type',
      `the Composition declares no NRCeS record profile in meta.profile, and its type is the type of none (${tables.recordTypes.map((r) => r.name).join(', ')}): no record profile could be applied`,
    );
    return;
  }
  engine.implied = { resource: composition, url: record.url };
  engine.checkedAs(path, `${record.name}, the record profile its type implies`);
}

/** The cap on issues from the options: a positive whole number, else the default. */
const capOf = (n: number | undefined): number => (n !== undefined && (n === Number.POSITIVE_INFINITY || (Number.isInteger(n) && n > 0)) ? n : FHIR_MAX_ISSUES);

function run(bundle: unknown, options: FhirValidateOptions, documentRules: boolean): FhirValidationResult {
  const tables = profileTables();
  const root = isObject(bundle) && typeof bundle.resourceType === 'string' && /^[A-Z][A-Za-z]{0,63}$/.test(bundle.resourceType) ? bundle.resourceType : 'Resource';
  if (!isObject(bundle)) return { success: false, issues: [{ path: root, code: 'type', message: 'a FHIR resource or bundle must be a JSON object', severity: 'error' }] };
  const withRules = documentRules && root === 'Bundle';
  const isDocument = root === 'Bundle' && bundle.type === 'document';
  const maxIssues = capOf(options.maxIssues);
  const engine = new Engine(tables, root, bundle, isDocument, withRules, options.strict === true, maxIssues);
  try {
    if (withRules) bundleRules(bundle, (p, c, m, s) => engine.add(p, c, m, s));
    if (options.profile !== undefined && !tables.profiles.has(options.profile.split('|')[0] ?? ''))
      engine.add(root, 'unknown-profile', `the profile is not one of the NRCeS IG ${tables.igVersion} profiles abha-link knows`);
    if (isDocument) impliedRecordProfile(tables, engine, bundle);
    engine.index();
    engine.resource(bundle, null, options.profile !== undefined ? [options.profile] : []);
    engine.runPending();
  } catch (e) {
    if (e !== STOP) engine.issues.push({ path: root, code: 'unreadable', message: 'the bundle could not be read as FHIR JSON', severity: 'error' });
  }
  const errors = engine.issues.some((i) => i.severity === 'error');
  const truncated = engine.truncated ? { truncated: true as const } : {};
  return errors ? { success: false, issues: engine.issues, ...truncated } : { success: true, issues: engine.issues, ...truncated };
}
