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

/** A trimmed copy of an optional string; undefined when absent or blank. */
export function text(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  const t = s.trim();
  return t === '' ? undefined : t;
}

/** Copies the defined entries only, so optional fields stay absent (exactOptionalPropertyTypes). */
export function compact<O extends Record<string, unknown>>(o: O): { [K in keyof O]: Exclude<O[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof O]: Exclude<O[K], undefined> };
}
