import { ValidationError, type Issue } from '../errors.js';
import type { SchemaName } from '../generated/manifest.js';
import type { SchemaTypes } from '../generated/types.js';
import { validate } from '../validation/validate.js';

/** Validates a builder input; returns it typed, or throws with paths under `at`. */
export function checkInput<N extends SchemaName>(name: N, value: unknown, at = ''): SchemaTypes[N] {
  const r = validate(name, value);
  if (!r.success) throw new ValidationError(prefix(r.issues, at), name);
  return r.value;
}

/** Re-roots issue paths under `at`. */
export function prefix(issues: readonly Issue[], at: string): Issue[] {
  return at === '' ? [...issues] : issues.map((i) => ({ ...i, path: `${at}${i.path}` }));
}

/**
 * The last guard of every builder: the value it is about to return must pass
 * the schema. `mapPath` turns an output path back into the caller's input path.
 */
export function checkOutput<N extends SchemaName>(name: N, value: SchemaTypes[N], mapPath: (path: string) => string = (p) => p): SchemaTypes[N] {
  const r = validate(name, value);
  if (!r.success)
    throw new ValidationError(
      r.issues.map((i) => ({ ...i, path: mapPath(i.path) })),
      name,
    );
  return r.value;
}
