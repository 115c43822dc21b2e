/**
 * Schema validation with issues a person can act on.
 *
 * The validators are ajv standalone code generated at build time
 * (src/generated/validators.ts), so nothing is compiled when the library is
 * imported or used. They run with `allErrors`, which is safe here because
 * every string and array in every schema is bounded.
 */
import { ValidationError, escapePointerToken, parsePointer, type Issue } from '../errors.js';
import { SCHEMA_MANIFEST, type SchemaName } from '../generated/manifest.js';
import type * as T from '../generated/types.js';
import type { SchemaTypes } from '../generated/types.js';
import { validatorsByName } from '../generated/validators.js';
import { FORMATS, PATTERNS } from '../spec/definition.js';

/** What validation returns: the typed value, or every issue found. */
export type ValidationResult<V> =
  | { readonly success: true; readonly value: V; readonly issues: readonly [] }
  | { readonly success: false; readonly issues: readonly Issue[] };

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}
type StandaloneValidator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

export type { SchemaTypes };

// A compile-time check that SchemaTypes names exactly the generated schemas.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const schemaTypesCoverManifest: Exact<keyof SchemaTypes, SchemaName> = true;
void schemaTypesCoverManifest;

const validators = validatorsByName as unknown as Record<SchemaName, StandaloneValidator>;
const patternByRegex = new Map<string, { expects: string; code: string }>(Object.values(PATTERNS).map((p) => [p.regex, p]));

/** The names of every schema, in the order of `schemas/index.json`. */
export const SCHEMA_NAMES: readonly SchemaName[] = SCHEMA_MANIFEST.map((e) => e.name);

/** True when `name` is the name of a shipped schema. */
export function isSchemaName(name: string): name is SchemaName {
  return Object.hasOwn(validators, name);
}

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
 * An unknown key as it appears in an issue path: control and bidi characters
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

function issue(path: string, code: string, text: string): Issue {
  return { path, code, message: `${label(path)} ${text}`, severity: 'error' };
}

/** Turns one ajv error into an issue, or undefined for bookkeeping errors (if/then). */
function toIssue(e: AjvError): Issue | undefined {
  const at = e.instancePath;
  const p = e.params;
  switch (e.keyword) {
    case 'required':
      return issue(`${at}/${escapePointerToken(String(p.missingProperty))}`, 'required', 'is required');
    case 'additionalProperties':
      // The key is the caller's text: never repeat it in the message, and keep it short and printable in the path.
      return {
        path: `${at}/${escapePointerToken(displayKey(String(p.additionalProperty)))}`,
        code: 'unknown-field',
        message: 'this field is not in the spec; remove it or check its spelling',
        severity: 'error',
      };
    case 'type': {
      const types = String(p.type).split(',');
      return issue(at, 'type', `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`);
    }
    case 'maxLength':
      return issue(at, 'too-long', `must be at most ${String(p.limit)} characters long`);
    case 'minLength':
      return p.limit === 1 ? issue(at, 'empty', 'must not be empty') : issue(at, 'too-short', `must be at least ${String(p.limit)} characters long`);
    case 'maxItems':
      return issue(at, 'too-many-items', `must have at most ${String(p.limit)} items`);
    case 'minItems':
      return issue(at, 'too-few-items', `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`);
    case 'exclusiveMinimum':
      return issue(at, 'out-of-range', `must be greater than ${String(p.limit)}`);
    case 'enum':
      return issue(at, 'not-allowed', `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`);
    case 'minimum':
    case 'maximum':
      return issue(at, 'out-of-range', `must be ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${String(p.limit)}`);
    case 'pattern': {
      const named = patternByRegex.get(String(p.pattern));
      return named === undefined ? issue(at, 'pattern', 'has the wrong shape') : issue(at, named.code, `must be ${named.expects}`);
    }
    case 'format': {
      const f = FORMATS[String(p.format) as keyof typeof FORMATS] as { expects: string; code: string } | undefined;
      return f === undefined ? issue(at, 'format', `must be a valid ${String(p.format)}`) : issue(at, f.code, `must be ${f.expects}`);
    }
    case 'if':
    case 'anyOf':
      return undefined;
    default:
      return issue(at, 'invalid', `does not satisfy the "${e.keyword}" rule of the schema`);
  }
}

/**
 * Union fields (anyOf of a string and an object) fail with one type error per
 * branch. Keep the errors of the branch whose type matched; when none did,
 * say once which types are accepted.
 */
function foldUnions(errors: readonly AjvError[]): AjvError[] {
  const unionPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  if (unionPaths.size === 0) return [...errors];
  const out: AjvError[] = [];
  for (const e of errors) {
    if (e.keyword === 'type' && unionPaths.has(e.instancePath)) continue;
    out.push(e);
  }
  for (const at of unionPaths) {
    const inside = out.some((e) => e.keyword !== 'anyOf' && (e.instancePath === at || e.instancePath.startsWith(`${at}/`)));
    if (inside) continue;
    const types = errors.filter((e) => e.keyword === 'type' && e.instancePath === at).map((e) => String(e.params.type));
    out.push({ instancePath: at, keyword: 'type', params: { type: [...new Set(types)].join(',') } });
  }
  return out;
}

function collect(raw: readonly AjvError[] | null | undefined): Issue[] {
  const seen = new Set<string>();
  const out: Issue[] = [];
  for (const e of foldUnions(raw ?? [])) {
    const i = toIssue(e);
    if (i === undefined) continue;
    const key = `${i.path}\u0000${i.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(i);
  }
  return out;
}

/**
 * Validates a value against one of the shipped schemas.
 *
 * Never throws for any input. On failure every issue is returned, each with a
 * JSON Pointer `path`, a stable `code` and a `message`; issues never contain
 * values from the input.
 *
 * @param name - a schema name from `schemas/index.json`, e.g. `link-carecontext-request`
 * @param value - the document, typically the result of `JSON.parse`
 * @returns `{ success: true, value }` or `{ success: false, issues }`
 * @throws TypeError when `name` is not a schema name (a programming error, not bad data)
 *
 * @example
 * validate('search-abha-request', { mobile: '98765' })
 * //=> { success: false, issues: [{ path: '/mobile', code: 'invalid-mobile',
 * //      message: 'mobile must be exactly 10 digits', severity: 'error' }] }
 */
export function validate<N extends SchemaName>(name: N, value: unknown): ValidationResult<SchemaTypes[N]> {
  const v = validators[name] as StandaloneValidator | undefined;
  if (v === undefined) throw new TypeError(`unknown schema name "${String(name)}"; see abha-link schemas`);
  let ok: boolean;
  let errors: AjvError[] | null | undefined;
  try {
    ok = v(value);
    errors = v.errors;
  } catch {
    // A getter that throws, a revoked proxy: not data that came from JSON.
    return { success: false, issues: [{ path: '', code: 'unreadable', message: 'the document could not be read as JSON data', severity: 'error' }] };
  }
  if (ok) return { success: true, value: value as SchemaTypes[N], issues: [] };
  const issues = collect(errors);
  if (issues.length === 0) issues.push({ path: '', code: 'invalid', message: 'the document does not match the schema', severity: 'error' });
  return { success: false, issues };
}

/**
 * Like {@link validate}, but returns the typed value or throws.
 *
 * @throws {@link ValidationError} carrying every issue
 *
 * @example
 * const req = assertValid('link-carecontext-request', JSON.parse(text))
 */
export function assertValid<N extends SchemaName>(name: N, value: unknown): SchemaTypes[N] {
  const r = validate(name, value);
  if (!r.success) throw new ValidationError(r.issues, name);
  return r.value;
}

/**
 * Validates a link request (the body of POST /api/m2/multiple/link-carecontext, spec §4.12).
 *
 * @example
 * const r = validateLinkRequest(JSON.parse(text))
 * if (!r.success) for (const i of r.issues) console.error(i.path, i.message)
 */
export function validateLinkRequest(value: unknown): ValidationResult<T.LinkCareContextRequest> {
  return validate('link-carecontext-request', value);
}
