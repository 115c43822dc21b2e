/**
 * The FHIRPath engine for the rare invariant not decided in code
 * (src/fhir/nrces/invariants.ts): the `fhirpath` package, an optional peer
 * dependency. It is loaded with a synchronous `require` (validateFhirBundle is
 * synchronous; `import.meta.url` works in both the ESM and the CommonJS build)
 * only when such an invariant is met, once; when it is not installed, the
 * invariant is reported `unevaluated`, saying to install it.
 */
import { createRequire } from 'node:module';

/** A compiled FHIRPath expression. */
export type Compiled = (resource: unknown, env?: Record<string, unknown>) => unknown[];

interface Engine {
  readonly compile: (expression: { base: string; expression: string }, model: unknown, options: { traceFn: () => void }) => unknown;
  readonly model: unknown;
}

/** What to say when an invariant could not be evaluated because the engine is missing. */
export const ENGINE_MISSING = 'install the optional package fhirpath (npm install fhirpath) to evaluate it';

/** The engine through `load` (a `require`), or null when the package cannot be loaded. */
export function loadEngine(load: (id: string) => unknown): Engine | null {
  try {
    const fhirpath = load('fhirpath') as { compile?: unknown };
    if (typeof fhirpath.compile !== 'function') return null;
    return { compile: fhirpath.compile as Engine['compile'], model: load('fhirpath/fhir-context/r4') };
  } catch {
    return null;
  }
}

let engine: Engine | null | undefined;
const cache = new Map<string, Compiled | null>();

/**
 * The invariant's expression compiled on `base` (cached), null when it does
 * not compile, or `'missing'` when the fhirpath package is not installed.
 */
export function compiledInvariant(base: string, expression: string): Compiled | null | 'missing' {
  engine ??= loadEngine(createRequire(import.meta.url));
  if (engine === null) return 'missing';
  const key = `${base}\u0000${expression}`;
  let fn = cache.get(key);
  if (fn === undefined) {
    try {
      fn = engine.compile({ base, expression }, engine.model, { traceFn: () => undefined }) as Compiled;
    } catch {
      fn = null;
    }
    cache.set(key, fn);
  }
  return fn;
}
