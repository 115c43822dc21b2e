/**
 * The profiles and the base R4 model compiled into checking plans, once per
 * element (as ajv compiles a JSON Schema): for a complex value whose elements
 * `owner` defines under a profile element, each key's base definition and
 * profile element, the checks of its items (primitive type, binding, fixed
 * and pattern values, invariants) and the slice matchers of its slicing, all
 * resolved when first met and then reused by every resource the validator
 * walks. The walk (validate.ts) then reads a key's plan by one map lookup
 * instead of looking up paths, bindings and discriminators per element.
 */
import { basePath, fhirType, ownerOf, PRIMITIVE_TYPES, profileTables, r4, type Element, type Profile, type ValueSetCodes } from './data.js';
import { DOCUMENT_RULE_INVARIANTS } from './document.js';
import { compiledInvariant, type Compiled } from './fhirpath-engine.js';
import { deepEqual, NATIVE_INVARIANTS } from './invariants.js';
import { primitiveCheck, type PrimitiveCheck } from './primitive.js';
import { isObject } from '../../util.js';

type Json = Record<string, unknown>;

/** Plans made per owner stay below this many keys, so that hostile unknown keys cannot grow them without bound. */
const MAX_KEYS_PER_OWNER = 10_000;

/** What the base R4 model says of one key of a value whose elements `owner` defines. */
export interface KeyInfo {
  /** The element's name: the key, or `value[x]` for a choice key such as `valueQuantity`. */
  readonly name: string;
  /** The FHIR type of the value (a choice key's type comes from its suffix). */
  readonly type: string;
  readonly repeats: boolean;
  /** Whose elements the value has: a datatype name, or the path of a backbone element. */
  readonly childOwner: string;
  readonly choice: boolean;
  /** The value set of the base R4 required binding of the element, if any. */
  readonly binding: string | undefined;
  /** A base R4 required binding whose value set cannot be expanded offline. */
  readonly bindingUnexpanded: boolean;
}

const keyCache = new Map<string, Map<string, KeyInfo | null>>();

/** The base definition of `owner.key` (cached per owner and key), or undefined when R4 has no such element. */
export function keyInfo(owner: string, key: string): KeyInfo | undefined {
  let byKey = keyCache.get(owner);
  if (byKey === undefined) keyCache.set(owner, (byKey = new Map()));
  const cached = byKey.get(key);
  if (cached !== undefined) return cached ?? undefined;
  let info: KeyInfo | null = null;
  const choice = choiceOf(owner, key);
  // Every KeyInfo with the same keys in one order: one object shape for the walk's reads (as data.ts's elements).
  if (choice !== undefined) info = { name: choice.name, type: choice.type, repeats: false, childOwner: choice.type, choice: true, binding: undefined, bindingUnexpanded: false };
  else {
    const base = basePath(`${owner}.${key}`);
    if (base !== undefined) {
      const type = fhirType(r4().path2Type[base] ?? 'string');
      const childOwner = type === 'BackboneElement' || type === 'Element' ? base : ownerOf(base);
      const tables = profileTables();
      const binding = tables.baseBindings.get(base);
      const bindingUnexpanded = tables.baseBindingsUnexpanded.has(base);
      info = { name: key, type, repeats: r4().path2Repeating[base] === true, childOwner, choice: false, binding, bindingUnexpanded };
    }
  }
  if (byKey.size < MAX_KEYS_PER_OWNER) byKey.set(key, info);
  return info ?? undefined;
}

/** A choice-type key: `valueQuantity` of Observation → `value[x]`, type Quantity. */
function choiceOf(owner: string, key: string): { name: string; type: string } | undefined {
  for (let i = key.length - 1; i > 0; i--) {
    const ch = key.charCodeAt(i);
    if (ch < 65 || ch > 90) continue;
    const prefix = key.slice(0, i);
    const choices = r4().choiceTypePaths[`${owner}.${prefix}`];
    const suffix = key.slice(i);
    if (choices === undefined || !choices.includes(suffix)) continue;
    const lower = suffix.charAt(0).toLowerCase() + suffix.slice(1);
    return { name: `${prefix}[x]`, type: PRIMITIVE_TYPES.has(lower) ? lower : suffix };
  }
  return undefined;
}

/** A binding of an element, its value set resolved once. */
export interface BindingPlan {
  readonly strength: 'required' | 'extensible';
  /** The value set's codes, or undefined when abha-link holds no expansion of it. */
  readonly vs: ValueSetCodes | undefined;
  /** The value set's name, for messages. */
  readonly name: string;
  /** Every code of any system of the value set (a `code` element's binding), and whether some system accepts any code. */
  readonly anyCodes: ReadonlySet<string>;
  readonly anySystemOpen: boolean;
}

const bindingCache = new Map<string, BindingPlan>();

/** The plan of a binding to `valueSet` with `strength` (made once per value set and strength). */
function bindingPlan(strength: 'required' | 'extensible', valueSet: string): BindingPlan {
  const key = `${strength} ${valueSet}`;
  let plan = bindingCache.get(key);
  if (plan === undefined) {
    const vs = profileTables().valueSets.get(valueSet);
    const anyCodes = new Set<string>();
    let anySystemOpen = false;
    for (const codes of vs?.systems.values() ?? []) {
      if (codes === null) anySystemOpen = true;
      else for (const c of codes) anyCodes.add(c);
    }
    plan = { strength, vs, name: valueSet.slice(valueSet.lastIndexOf('/') + 1), anyCodes, anySystemOpen };
    bindingCache.set(key, plan);
  }
  return plan;
}

/** One invariant of an element, ready to evaluate: its native decision, else its FHIRPath expression (compiled when first needed). */
export interface InvariantPlan {
  readonly key: string;
  readonly native: ((v: Json, resource: Json) => boolean | undefined) | undefined;
  /** The FHIRPath base the expression is compiled on. */
  readonly base: string;
  readonly expression: string;
  /** The issue message when it fails. */
  readonly message: string;
  readonly severity: 'error' | 'warning';
  /** The compiled expression, once asked for. */
  compiled: Compiled | null | 'missing' | undefined;
}

/** DomainResource invariants whose expressions only navigate `contained` (each is `contained….empty()` or a `where` on it): decided in validate.ts. */
const CONTAINED_INVARIANTS = new Set(['dom-2', 'dom-3', 'dom-4', 'dom-5']);

const invariantCache = new WeakMap<Element, readonly InvariantPlan[]>();

/** The invariants of a profile element that the walk evaluates (not those decided by the document or contained rules), made once per element. */
export function invariantsOf(el: Element): readonly InvariantPlan[] {
  let plans = invariantCache.get(el);
  if (plans === undefined) {
    const head = el.id.split(':')[0]?.replace(/\[x\]$/, '') ?? el.id;
    const base = head.includes('.') ? head.replace(/:[^.]*/g, '') : head;
    plans = (el.constraints ?? [])
      .filter((c) => !DOCUMENT_RULE_INVARIANTS.has(c.key) && !CONTAINED_INVARIANTS.has(c.key))
      .map((c) => ({
        key: c.key,
        native: NATIVE_INVARIANTS[c.key],
        base,
        expression: c.expression,
        message: `${c.human.replace(/\.$/, '')} (invariant ${c.key})`,
        severity: c.severity === 'error' ? ('error' as const) : ('warning' as const),
        compiled: undefined,
      }));
    invariantCache.set(el, plans);
  }
  return plans;
}

/** The compiled FHIRPath expression of an invariant (compiled once per plan). */
export function compiledOf(inv: InvariantPlan): Compiled | null | 'missing' {
  return (inv.compiled ??= compiledInvariant(inv.base, inv.expression));
}

/** Whether an item belongs to one slice: every discriminator of the slicing met. */
export type SliceMatcher = (item: unknown, resolve: (ref: string) => Json | undefined) => boolean;

/** The checks of the items of one element under one profile element (or none), compiled once. */
export interface ItemPlan {
  readonly type: string;
  /** Whose elements an item has (a datatype name or a backbone element path). */
  readonly owner: string;
  readonly el: Element | undefined;
  readonly binding: BindingPlan | undefined;
  /** A base R4 required binding whose value set cannot be expanded offline. */
  readonly bindingUnexpanded: boolean;
  /** The check of a primitive item; undefined for a complex type. */
  readonly primitive: PrimitiveCheck | undefined;
  /** The primitive check is all there is (no profile element, no binding): the walk may run it without more. */
  readonly primitiveOnly: PrimitiveCheck | undefined;
  /** The profiles a contained or entry resource must meet (`Resource` items). */
  readonly resourceProfiles: readonly string[];
  /** The IG extension definition an extension slice names. */
  readonly definition: Profile | undefined;
  /** The element's own invariants. */
  readonly invariants: readonly InvariantPlan[] | undefined;
  /** The plans of an item's elements, under the element and under the extension definition (made when first needed). */
  object: ObjectPlan | undefined;
  definitionObject: ObjectPlan | undefined;
}

/** The plan of one key of a complex value: its base definition, its profile element, its slicing, its items. */
export interface KeyPlan {
  readonly info: KeyInfo;
  /** The profile element of the key, if the profile constrains it. */
  readonly pel: Element | undefined;
  /** The message when a choice key's type is not one the profile allows. */
  readonly wrongChoice: string | undefined;
  /** One matcher per slice of the element, when the profile slices it. */
  readonly matchers: readonly SliceMatcher[] | undefined;
  /** The items' plan under the key's own profile element. */
  readonly item: ItemPlan;
  /** The items' plans under each slice. */
  readonly bySlice: Map<Element, ItemPlan>;
  /**
   * The check of a value that is all there is to it when the value is one primitive: an element that does not
   * repeat, of a primitive type, that no profile element constrains, with no binding (the walk's commonest case).
   */
  readonly plainPrimitive: PrimitiveCheck | undefined;
  /** The bit of the key's element among the required children of the value ({@link RequiredChild.bit}), 0 when it is none. */
  readonly requiredBit: number;
}

/** The plan of a complex value whose elements `owner` defines, under a profile element (or none). */
export interface ObjectPlan {
  readonly owner: string;
  readonly el: Element | undefined;
  /** Key → its plan, or null for a key that is no element of the owner (made as keys are met). */
  readonly keys: Map<string, KeyPlan | null>;
  /**
   * The keys of the last value walked, in order, and their plans: values of one plan mostly have the same keys in
   * the same order, so the walk compares the key at each position with the one seen there before (one comparison
   * of interned strings) and reads the map only when they differ.
   */
  readonly seenKeys: string[];
  readonly seenPlans: Array<KeyPlan | null>;
  /** The children the profile element requires, then those base R4 requires. */
  readonly required: readonly RequiredChild[];
  /** Every required child's bit, or -1 when one has none: a value whose present keys cover it needs no look for a missing one. */
  readonly requiredMask: number;
}

/**
 * A required child: its name (`x`, or `x[x]` for a choice, then with its `prefix` `x`), by whom (`by the profile`, or
 * '' for base R4), and its bit (one per name, the first 30 names; 0 after): the walk sets the bit of each element it
 * meets with a value, and looks for a missing one only when the bits it set are not all the required ones.
 */
export interface RequiredChild {
  readonly name: string;
  readonly prefix: string | undefined;
  readonly by: string;
  readonly bit: number;
}

/** Required children get a bit each up to this many names. */
const MAX_REQUIRED_BITS = 30;

/** The required children `names`, each said `by`, with the bits of `bits` (a name's bit, added when first met). */
function requiredList(names: readonly string[], by: string, bits: Map<string, number>): RequiredChild[] {
  return names.map((name) => {
    let bit = bits.get(name);
    if (bit === undefined) bits.set(name, (bit = bits.size < MAX_REQUIRED_BITS ? 1 << bits.size : 0));
    return { name, prefix: name.endsWith('[x]') ? name.slice(0, -3) : undefined, by, bit };
  });
}

const plainPlans = new Map<string, ObjectPlan>();
const profiledPlans = new WeakMap<Element, Map<string, ObjectPlan>>();

/** The plan of a complex value of `owner` under `el` (made once per owner and element). */
export function objectPlan(owner: string, el: Element | undefined): ObjectPlan {
  let byOwner = plainPlans;
  if (el !== undefined) {
    let m = profiledPlans.get(el);
    if (m === undefined) profiledPlans.set(el, (m = new Map()));
    byOwner = m;
  }
  let plan = byOwner.get(owner);
  if (plan === undefined) {
    const byProfile = el === undefined ? [] : [...el.children.values()].filter((c) => c.minimum > 0).map((c) => c.name);
    const bits = new Map<string, number>();
    const required = [...requiredList(byProfile, 'by the profile', bits), ...requiredList(profileTables().baseRequired.get(owner) ?? [], '', bits)];
    const requiredMask = required.some((r) => r.bit === 0) ? -1 : required.reduce((m, r) => m | r.bit, 0);
    plan = { owner, el, keys: new Map(), seenKeys: [], seenPlans: [], required, requiredMask };
    // Owners are type names and element paths of the model (plus hostile resource types, bounded like keys).
    if (byOwner.size < MAX_KEYS_PER_OWNER) byOwner.set(owner, plan);
  }
  return plan;
}

/** The plan of `key` in values of `plan` (made once per plan and key), or undefined when the key is no element. */
export function keyPlan(plan: ObjectPlan, key: string): KeyPlan | undefined {
  const cached = plan.keys.get(key);
  if (cached !== undefined) return cached ?? undefined;
  const info = keyInfo(plan.owner, key);
  let out: KeyPlan | null = null;
  if (info !== undefined) {
    const pel = plan.el?.children.get(info.name);
    const wrongChoice =
      pel !== undefined && info.choice && pel.types !== undefined && !pel.types.some((t) => t.code === info.type)
        ? `${info.name} must be ${pel.types.map((t) => t.code).join(' or ')} in this profile`
        : undefined;
    const matchers = pel !== undefined && pel.slicing !== undefined && pel.slices.length > 0 ? pel.slices.map((sl) => sliceMatcher(sl, pel.slicing?.discriminator ?? [])) : undefined;
    const requiredBit = plan.required.find((r) => r.name === info.name)?.bit ?? 0;
    const item = itemPlan(info, pel);
    const plainPrimitive = !info.repeats && wrongChoice === undefined && pel === undefined ? item.primitiveOnly : undefined;
    out = { info, pel, wrongChoice, matchers, item, bySlice: new Map(), plainPrimitive, requiredBit };
  }
  if (plan.keys.size < MAX_KEYS_PER_OWNER) plan.keys.set(key, out);
  return out ?? undefined;
}

/** The items' plan of a key under a slice (made once per key and slice). */
export function slicePlan(kp: KeyPlan, slice: Element): ItemPlan {
  let plan = kp.bySlice.get(slice);
  if (plan === undefined) kp.bySlice.set(slice, (plan = itemPlan(kp.info, slice)));
  return plan;
}

/** The items' plan of an element of base definition `info` under profile element `el`. */
function itemPlan(info: KeyInfo, el: Element | undefined): ItemPlan {
  const { type, childOwner: owner } = info;
  const binding = el?.binding !== undefined ? bindingPlan(el.binding.strength, el.binding.valueSet) : info.binding !== undefined ? bindingPlan('required', info.binding) : undefined;
  const definition = type === 'Extension' ? profileTables().profiles.get(el?.types?.[0]?.profile?.[0] ?? '') : undefined;
  const bindingUnexpanded = binding === undefined && info.bindingUnexpanded === true;
  const primitive = PRIMITIVE_TYPES.has(type) ? primitiveCheck(type) : undefined;
  return {
    type,
    owner,
    el,
    binding,
    bindingUnexpanded,
    primitive,
    primitiveOnly: el === undefined && binding === undefined && !bindingUnexpanded ? primitive : undefined,
    resourceProfiles: el?.types?.[0]?.profile ?? [],
    definition: definition?.type === 'Extension' ? definition : undefined,
    invariants: el?.constraints !== undefined ? invariantsOf(el) : undefined,
    object: undefined,
    definitionObject: undefined,
  };
}

/** FHIR pattern[x] matching: every part of the pattern is in the value; arrays match item by item. */
export function matchesPattern(value: unknown, pattern: unknown): boolean {
  if (Array.isArray(pattern)) {
    const list = Array.isArray(value) ? value : [value];
    return pattern.every((p) => list.some((v) => matchesPattern(v, p)));
  }
  if (isObject(pattern)) return isObject(value) && Object.entries(pattern).every(([k, p]) => matchesPattern(value[k], p));
  return value === pattern;
}

/**
 * Whether some value at a dotted path split into parts (`code.coding.code`, arrays flattened at each step) meets `test`,
 * from part `i` on; no path (`$this`) tests the value itself. Depth first and without a list of the values: a slice
 * matcher runs on every item of a sliced element.
 */
function someAt(value: unknown, parts: readonly string[] | undefined, test: (v: unknown) => boolean, i = 0): boolean {
  if (parts === undefined || i === parts.length) return test(value);
  if (!isObject(value)) return false;
  const v = value[parts[i] ?? ''];
  if (!Array.isArray(v)) return v !== undefined && someAt(v, parts, test, i + 1);
  for (const x of v) if (someAt(x, parts, test, i + 1)) return true;
  return false;
}

const present = (): boolean => true;

/** The element of a slice at a dotted path inside it. */
function elementAt(el: Element, parts: readonly string[]): Element | undefined {
  let cur: Element | undefined = el;
  for (const part of parts) {
    if (cur === undefined) break;
    cur = cur.children.get(part) ?? cur.children.get(`${part}[x]`);
  }
  return cur;
}

/** Whether an item meets one discriminator of a slice, with the slice's element at the path found once. */
function discriminator(slice: Element, d: { readonly type: string; readonly path: string }): SliceMatcher {
  const parts = d.path === '$this' ? undefined : d.path.split('.');
  const sub = parts === undefined ? slice : elementAt(slice, parts);
  switch (d.type) {
    case 'value':
    case 'pattern': {
      if (sub?.fixed !== undefined) {
        const fixed = sub.fixed;
        const equal = (v: unknown): boolean => deepEqual(v, fixed);
        return (item) => someAt(item, parts, equal);
      }
      if (sub?.pattern !== undefined) {
        const pattern = sub.pattern;
        const matches = (v: unknown): boolean => matchesPattern(v, pattern);
        return (item) => someAt(item, parts, matches);
      }
      const url = d.path === 'url' ? slice.types?.[0]?.profile?.[0] : undefined;
      // An extension slice by url (the common case): one property read.
      return url === undefined ? () => false : (item) => isObject(item) && (item.url === url || (Array.isArray(item.url) && item.url.includes(url)));
    }
    case 'type': {
      const want = (sub ?? slice).types?.map((t) => t.code) ?? [];
      const typed = (v: unknown): boolean => isObject(v) && typeof v.resourceType === 'string' && want.includes(v.resourceType);
      return (item) => someAt(item, parts, typed);
    }
    case 'profile': {
      const want = (sub ?? slice).types?.flatMap((t) => [...(t.profile ?? []), ...(t.target ?? [])]) ?? [];
      return (item, resolve) =>
        someAt(item, parts, (v) => {
          const r = isObject(v) && typeof v.reference === 'string' ? resolve(v.reference) : v;
          return isObject(r) && isObject(r.meta) && Array.isArray(r.meta.profile) && r.meta.profile.some((u) => want.includes(String(u)));
        });
    }
    case 'exists': {
      const wanted = (sub?.minimum ?? 0) > 0;
      return (item) => someAt(item, parts, present) === wanted;
    }
    default:
      return () => false;
  }
}

/** The matcher of one slice: all of the slicing's discriminators. */
function sliceMatcher(slice: Element, discriminators: ReadonlyArray<{ readonly type: string; readonly path: string }>): SliceMatcher {
  const each = discriminators.map((d) => discriminator(slice, d));
  if (each.length === 1 && each[0] !== undefined) return each[0];
  return (item, resolve) => each.every((m) => m(item, resolve));
}
