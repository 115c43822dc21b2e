/**
 * Schema validation with issues a person can act on, given a schema's
 * validator: the issue collection behind validate() (validate.ts, every
 * schema's validator at hand) and the CLI's checks (loadValidator(): one
 * schema's validator module, loaded on use; the CLI checks one schema and
 * loads no other).
 *
 * The validators are ajv standalone code generated at build time
 * (src/generated/validators/), so nothing is compiled when the library is
 * imported or used. They run with `allErrors`, which is safe here because
 * every string and array in every schema is bounded.
 */
import { distance } from 'fastest-levenshtein';
import { TOO_MANY_ISSUES, escapePointerToken, parsePointer, type Issue } from '../errors.js';
import { SCHEMA_MANIFEST, type SchemaName } from '../generated/manifest.js';
import type { SchemaTypes } from '../generated/types.js';
import { VALIDATOR_LOADERS } from '../generated/validator-loaders.js';
import type * as Definition from '../spec/definition.js';
import type { FieldDef, ObjectDef } from '../spec/definition.js';

/** What explaining a failure reads from the spec's definition: patterns, formats and the objects' fields. */
export type SpecDefinition = Pick<typeof Definition, 'ENDPOINTS' | 'FORMATS' | 'INPUTS' | 'PATTERNS' | 'RESOURCES'>;

/**
 * The definition, and what is derived from it, once given: validate.ts gives
 * it at import (the library's validate() explains at once); the CLI loads it
 * only before the first document that fails (a valid document never reads it,
 * and src/spec/definition.ts is the largest module validation reaches).
 */
let spec: { readonly def: SpecDefinition; readonly patternByRegex: Map<string, { expects: string; code: string }>; readonly objectDefs: Map<string, ObjectDef> } | undefined;

/** Gives validation the spec's definition (see {@link loadSpecDefinition}); the first one given stays. */
export function useSpecDefinition(def: SpecDefinition): void {
  spec ??= {
    def,
    patternByRegex: new Map(Object.values(def.PATTERNS).map((p) => [p.regex, p])),
    objectDefs: new Map<string, ObjectDef>([
      ...def.RESOURCES.map((r) => [r.name, r] as const),
      ...def.INPUTS.map((r) => [r.name, r] as const),
      ...def.ENDPOINTS.map((e) => [`${e.id}-request`, e.request] as const),
    ]),
  };
}

/** Loads the spec's definition, which explaining a failed document needs, unless it is there. */
export async function loadSpecDefinition(): Promise<void> {
  if (spec === undefined) useSpecDefinition(await import('../spec/definition.js'));
}

function specDefinition(): NonNullable<typeof spec> {
  if (spec === undefined) throw new Error('internal: a failed document is explained before the spec definition was loaded (loadSpecDefinition)');
  return spec;
}

/**
 * What validation returns: the typed value, or the issues found. At most
 * `maxIssues` issues are listed (100 by default); `omitted` counts the rest,
 * and when it is not 0 the last issue is a `too-many-issues` summary.
 */
export type ValidationResult<V> =
  { readonly success: true; readonly value: V; readonly issues: readonly [] } | { readonly success: false; readonly issues: readonly Issue[]; readonly omitted: number };

/** How many issues validation lists per document unless told otherwise. */
export const DEFAULT_MAX_ISSUES = 100;

/** Options of validate() and of validateWith(). */
export interface ValidateOptions {
  /**
   * At most this many issues are listed (default {@link DEFAULT_MAX_ISSUES});
   * the rest are counted in `omitted` and in a final `too-many-issues` issue.
   * A positive whole number, or `Infinity` for every issue.
   */
  readonly maxIssues?: number;
  /**
   * Show an unknown key itself in its issue's path (`/careContexts/0/drugname`)
   * instead of its position among the keys of its object (`/careContexts/0/#4`).
   * Off by default: keys are the caller's data (an ABHA address or a diagnosis
   * typed as a key would otherwise reach logs). Even when revealed, a key is cut
   * to 64 characters and its control characters are replaced.
   */
  readonly revealKeys?: boolean;
}

/** An error as ajv's standalone code reports it. */
interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}
/** A schema's generated validator (ajv standalone code). */
export type StandaloneValidator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

export type { SchemaTypes };

// A compile-time check that SchemaTypes names exactly the generated schemas.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const schemaTypesCoverManifest: Exact<keyof SchemaTypes, SchemaName> = true;
void schemaTypesCoverManifest;

/** The names of every schema, in the order of `schemas/index.json`. */
export const SCHEMA_NAMES: readonly SchemaName[] = SCHEMA_MANIFEST.map((e) => e.name);

const schemaNames = new Set<string>(SCHEMA_NAMES);

/** True when `name` is the name of a shipped schema. */
export function isSchemaName(name: string): name is SchemaName {
  return schemaNames.has(name);
}

/** The programming error of a name that is not a schema's. */
export const unknownSchema = (name: string): TypeError => new TypeError(`unknown schema name "${name}"; see abha-link schemas`);

function label(path: string): string {
  if (path === '') return 'the document';
  const tokens = parsePointer(path);
  const last = tokens[tokens.length - 1] ?? '';
  if (/^\d+$/.test(last)) {
    const parent = tokens[tokens.length - 2];
    return parent === undefined ? `item ${last}` : `${parent}[${last}]`;
  }
  return last;
}

const KEY_MAX = 64;
// C0 and C1 controls, and the bidi embeddings, overrides and isolates that could reorder a printed line.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * An unknown key as it appears in an issue path when the caller asked for
 * keys (`revealKeys`): control and bidi characters
 * replaced by U+FFFD and at most 64 characters (then "…"), so that a hostile
 * key can neither forge output lines nor flood them. Keys the schemas define
 * are never changed by this.
 */
function displayKey(key: string): string {
  const clean = key.replace(UNPRINTABLE, '\ufffd');
  return clean.length > KEY_MAX ? `${clean.slice(0, KEY_MAX)}…` : clean;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** An issue in the making: path and code at once, the message only for issues that are listed. */
interface Draft {
  readonly path: string;
  readonly code: string;
  readonly make: () => Issue;
}

/** A draft whose message (`text`, after the field's label) is written only if the issue is listed. */
function issue(path: string, code: string, text: () => string): Draft {
  return { path, code, make: () => ({ path, code, message: `${label(path)} ${text()}`, severity: 'error' }) };
}

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st. */
function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

// ---------------------------------------------------------------------------
// Unknown keys: their position in the caller's object, and the field they may have meant
// ---------------------------------------------------------------------------

/** The object definitions a field may hold (a union has several). */
function objectsOf(f: FieldDef): ObjectDef[] {
  switch (f.type) {
    case 'object':
      return [f.object];
    case 'ref': {
      const o = specDefinition().objectDefs.get(f.ref);
      return o === undefined ? [] : [o];
    }
    case 'union':
      return f.of.flatMap(objectsOf);
    default:
      return [];
  }
}

/** The fields a JSON Pointer token leads to from `f`. */
function step(f: FieldDef, token: string): FieldDef[] {
  if (f.type === 'array') return /^\d+$/.test(token) ? [f.items] : [];
  if (f.type === 'union') return f.of.flatMap((b) => step(b, token));
  return objectsOf(f).flatMap((o) => (Object.hasOwn(o.properties, token) ? [o.properties[token] as FieldDef] : []));
}

/** The property names the schema `name` allows for the object at `at` (empty when unknown). */
function knownKeysAt(name: string, at: string): string[] {
  const root = specDefinition().objectDefs.get(name);
  if (root === undefined) return [];
  let fields: FieldDef[] = [{ type: 'object', object: root }];
  for (const t of parsePointer(at)) fields = fields.flatMap((f) => step(f, t));
  return [...new Set(fields.flatMap(objectsOf).flatMap((o) => Object.keys(o.properties)))];
}

/**
 * The closest known property to a misspelt key: one that differs only in case,
 * else one within a small edit distance (1 for names up to 5 characters, 2
 * beyond), never one the object already has. Returns a schema name, never the key.
 */
function closestField(key: string, known: readonly string[], present: ReadonlySet<string>): string | undefined {
  const k = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    if (present.has(candidate)) continue;
    const c = candidate.toLowerCase();
    if (c === k) return candidate;
    const limit = c.length <= 5 ? 1 : 2;
    // The distance is at least the difference of the lengths: skip long keys without comparing them.
    if (Math.abs(c.length - k.length) > limit) continue;
    const d = distance(k, c);
    if (d <= limit && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** What issue collection needs to describe unknown keys of one document. */
interface Context {
  readonly schema: string;
  readonly value: unknown;
  readonly revealKeys: boolean;
  /** Per object path: the object's keys in for-in order (ajv's order) and each key's position. */
  readonly objects: Map<string, { keys: string[]; position: Map<string, number> } | undefined>;
}

/** The keys of the object at `at` in the document, read once per object. */
function objectAt(ctx: Context, at: string): { keys: string[]; position: Map<string, number> } | undefined {
  if (ctx.objects.has(at)) return ctx.objects.get(at);
  let found: { keys: string[]; position: Map<string, number> } | undefined;
  try {
    let cur: unknown = ctx.value;
    for (const t of parsePointer(at)) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[t] : undefined;
    if (cur !== null && typeof cur === 'object') {
      const keys: string[] = [];
      // for-in, as ajv's additionalProperties loop walks the object: integer-like keys first, then insertion order.
      for (const k in cur) keys.push(k);
      found = { keys, position: new Map(keys.map((k, i) => [k, i])) };
    }
  } catch {
    // A getter or proxy that throws on the second read: no position, no suggestion.
  }
  ctx.objects.set(at, found);
  return found;
}

function unknownFieldPath(ctx: Context, at: string, key: string): string {
  if (ctx.revealKeys) return `${at}/${escapePointerToken(displayKey(key))}`;
  const position = objectAt(ctx, at)?.position.get(key);
  return `${at}/#${position ?? '?'}`;
}

function unknownFieldIssue(ctx: Context, at: string, key: string, path: string): Issue {
  const obj = objectAt(ctx, at);
  const position = obj?.position.get(key);
  const which = position === undefined ? 'a key' : `the ${ordinal(position + 1)} key`;
  const suggestion = obj === undefined ? undefined : closestField(key, knownKeysAt(ctx.schema, at), new Set(obj.keys));
  const advice = suggestion === undefined ? 'remove it or check its spelling' : `did you mean ${suggestion}?`;
  // The key is the caller's text: the message never repeats it.
  return { path, code: 'unknown-field', message: `${which} of ${label(at)} is not in the spec; ${advice}`, severity: 'error' };
}

/** Turns one ajv error into an issue, or undefined for bookkeeping errors (if/then). */
function toDraft(e: AjvError, ctx: Context): Draft | undefined {
  const at = e.instancePath;
  const p = e.params;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(p.additionalProperty);
      const path = unknownFieldPath(ctx, at, key);
      return { path, code: 'unknown-field', make: () => unknownFieldIssue(ctx, at, key, path) };
    }
    case 'required':
      return issue(`${at}/${escapePointerToken(String(p.missingProperty))}`, 'required', () => 'is required');
    case 'type':
      return issue(
        at,
        'type',
        () =>
          `must be ${String(p.type)
            .split(',')
            .map((t) => TYPE_WORDS[t] ?? t)
            .join(' or ')}`,
      );
    case 'maxLength':
      return issue(at, 'too-long', () => `must be at most ${String(p.limit)} characters long`);
    case 'minLength':
      return p.limit === 1 ? issue(at, 'empty', () => 'must not be empty') : issue(at, 'too-short', () => `must be at least ${String(p.limit)} characters long`);
    case 'maxItems':
      return issue(at, 'too-many-items', () => `must have at most ${String(p.limit)} items`);
    case 'minItems':
      return issue(at, 'too-few-items', () => `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`);
    case 'exclusiveMinimum':
      return issue(at, 'out-of-range', () => `must be greater than ${String(p.limit)}`);
    case 'enum':
      return issue(at, 'not-allowed', () => `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`);
    case 'minimum':
    case 'maximum':
      return issue(at, 'out-of-range', () => `must be ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${String(p.limit)}`);
    case 'pattern': {
      const named = specDefinition().patternByRegex.get(String(p.pattern));
      return named === undefined ? issue(at, 'pattern', () => 'has the wrong shape') : issue(at, named.code, () => `must be ${named.expects}`);
    }
    case 'format': {
      const formats = specDefinition().def.FORMATS;
      const f = formats[String(p.format) as keyof typeof formats] as { expects: string; code: string } | undefined;
      return f === undefined ? issue(at, 'format', () => `must be a valid ${String(p.format)}`) : issue(at, f.code, () => `must be ${f.expects}`);
    }
    case 'if':
    case 'anyOf':
      return undefined;
    default:
      return issue(at, 'invalid', () => `does not satisfy the "${e.keyword}" rule of the schema`);
  }
}

/**
 * Union fields (anyOf of a string and an object) fail with one type error per
 * branch. Keep the errors of the branch whose type matched; when none did,
 * say once which types are accepted. One pass over the errors plus one walk
 * up each error's path (as deep as the schema, not the document): linear.
 */
function foldUnions(errors: readonly AjvError[]): readonly AjvError[] {
  const unionPaths = new Set<string>();
  for (const e of errors) if (e.keyword === 'anyOf') unionPaths.add(e.instancePath);
  if (unionPaths.size === 0) return errors;
  const out: AjvError[] = [];
  const branchTypes = new Map<string, Set<string>>();
  const covered = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'type' && unionPaths.has(e.instancePath)) {
      let types = branchTypes.get(e.instancePath);
      if (types === undefined) branchTypes.set(e.instancePath, (types = new Set()));
      types.add(String(e.params.type));
      continue;
    }
    out.push(e);
    if (e.keyword === 'anyOf') continue;
    // The union paths at or above this error have an error inside them.
    for (let p = e.instancePath; ; p = p.slice(0, p.lastIndexOf('/'))) {
      if (unionPaths.has(p)) covered.add(p);
      if (p === '') break;
    }
  }
  for (const at of unionPaths) {
    if (covered.has(at)) continue;
    out.push({ instancePath: at, keyword: 'type', params: { type: [...(branchTypes.get(at) ?? [])].join(',') } });
  }
  return out;
}

function tooManyIssues(omitted: number, max: number): Issue {
  return {
    path: '',
    code: TOO_MANY_ISSUES,
    message: `the document has ${omitted} more issue${omitted === 1 ? '' : 's'} that ${omitted === 1 ? 'is' : 'are'} not listed (at most ${max} are listed per document); fix these and validate again`,
    severity: 'error',
  };
}

/** The listed issues, deduplicated, and how many more there are. Linear in the number of errors. */
function collect(raw: readonly AjvError[], ctx: Context, max: number): { issues: Issue[]; omitted: number } {
  // The codes seen at each path: one lookup of a string ajv already made, no key to build.
  const seen = new Map<string, string | string[]>();
  const issues: Issue[] = [];
  let omitted = 0;
  for (const e of foldUnions(raw)) {
    const d = toDraft(e, ctx);
    if (d === undefined) continue;
    const codes = seen.get(d.path);
    if (codes === undefined) seen.set(d.path, d.code);
    else if (codes === d.code || (Array.isArray(codes) && codes.includes(d.code))) continue;
    else if (Array.isArray(codes)) codes.push(d.code);
    else seen.set(d.path, [codes, d.code]);
    if (issues.length < max) issues.push(d.make());
    else omitted++;
  }
  if (omitted > 0) issues.push(tooManyIssues(omitted, max));
  return { issues, omitted };
}

/**
 * Validates `value` with the validator `v` of the schema `name` (see validate()
 * in validate.ts for what it returns).
 *
 * @throws TypeError when `maxIssues` is not a positive whole number
 */
export function validateWith<N extends SchemaName>(v: StandaloneValidator, name: N, value: unknown, options: ValidateOptions): ValidationResult<SchemaTypes[N]> {
  const max = options.maxIssues ?? DEFAULT_MAX_ISSUES;
  if (!(max === Infinity || (Number.isInteger(max) && max > 0))) throw new TypeError('maxIssues must be a positive whole number or Infinity');
  let ok: boolean;
  let errors: AjvError[] | null | undefined;
  try {
    ok = v(value);
    errors = v.errors;
  } catch {
    // A getter that throws, a revoked proxy: not data that came from JSON.
    return { success: false, issues: [{ path: '', code: 'unreadable', message: 'the document could not be read as JSON data', severity: 'error' }], omitted: 0 };
  }
  if (ok) return { success: true, value: value as SchemaTypes[N], issues: [] };
  const { issues, omitted } = collect(errors ?? [], { schema: name, value, revealKeys: options.revealKeys === true, objects: new Map() }, max);
  if (issues.length === 0) issues.push({ path: '', code: 'invalid', message: 'the document does not match the schema', severity: 'error' });
  return { success: false, issues, omitted };
}

/**
 * The generated validator of one schema, its module loaded alone: true or
 * false, and ajv's errors. {@link validateWith} explains them once
 * {@link loadSpecDefinition} has run.
 *
 * @throws TypeError when `name` is not a schema name
 */
export async function loadValidator(name: SchemaName): Promise<StandaloneValidator> {
  if (!isSchemaName(name)) throw unknownSchema(String(name));
  return (await VALIDATOR_LOADERS[name]()).validate as StandaloneValidator;
}
