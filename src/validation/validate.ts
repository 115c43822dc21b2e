/**
 * Schema validation with issues a person can act on, with every schema's
 * validator at hand (src/generated/validators.ts); the issues themselves are
 * made in validate-core.ts.
 */
import { ValidationError } from '../errors.js';
import type { SchemaName } from '../generated/manifest.js';
import type * as T from '../generated/types.js';
import { validatorsByName } from '../generated/validators.js';
import * as definition from '../spec/definition.js';
import { unknownSchema, useSpecDefinition, validateWith, type SchemaTypes, type StandaloneValidator, type ValidateOptions, type ValidationResult } from './validate-core.js';

export { DEFAULT_MAX_ISSUES, SCHEMA_NAMES, isSchemaName, type SchemaTypes, type ValidateOptions, type ValidationResult } from './validate-core.js';

const validators = validatorsByName as unknown as Record<SchemaName, StandaloneValidator>;

// validate() explains a failure at once: the definition is at hand whenever this module is.
useSpecDefinition(definition);

/**
 * Validates a value against one of the shipped schemas.
 *
 * Never throws for any input. On failure the issues are returned, each with a
 * JSON Pointer `path`, a stable `code` and a `message`; issues never contain
 * values from the input, and an unknown key appears in a path by its position
 * (`/careContexts/0/#3`: the 4th key of that object) unless `revealKeys` is set.
 * At most `maxIssues` (100) are listed; a final `too-many-issues` issue and
 * `omitted` count the rest. Time and memory grow linearly with the document.
 *
 * @param name - a schema name from `schemas/index.json`, e.g. `link-carecontext-request`
 * @param value - the document, typically the result of `JSON.parse`
 * @param options - `maxIssues` (default 100), `revealKeys` (default false)
 * @returns `{ success: true, value }` or `{ success: false, issues, omitted }`
 * @throws TypeError when `name` is not a schema name or `maxIssues` is not a positive whole number (programming errors, not bad data)
 *
 * @example
 * validate('search-abha-request', { mobile: '98765' })
 * //=> { success: false, issues: [{ path: '/mobile', code: 'invalid-mobile',
 * //      message: 'mobile must be exactly 10 digits', severity: 'error' }], omitted: 0 }
 */
export function validate<N extends SchemaName>(name: N, value: unknown, options: ValidateOptions = {}): ValidationResult<SchemaTypes[N]> {
  const v = Object.hasOwn(validators, name) ? validators[name] : undefined;
  if (v === undefined) throw unknownSchema(String(name));
  return validateWith(v, name, value, options);
}

/**
 * Like {@link validate}, but returns the typed value or throws.
 *
 * @throws {@link ValidationError} carrying every issue
 *
 * @example
 * const req = assertValid('link-carecontext-request', JSON.parse(text))
 */
export function assertValid<N extends SchemaName>(name: N, value: unknown, options: ValidateOptions = {}): SchemaTypes[N] {
  const r = validate(name, value, options);
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
export function validateLinkRequest(value: unknown, options: ValidateOptions = {}): ValidationResult<T.LinkCareContextRequest> {
  return validate('link-carecontext-request', value, options);
}
