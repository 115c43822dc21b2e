/**
 * fhirpath is an optional peer dependency: without it, an invariant the
 * validator does not decide in code is reported `unevaluated` (an error under
 * `strict`), saying to install it. The engine's loader is replaced by one that
 * finds no fhirpath, as in a library install.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('../src/fhir/nrces/fhirpath-engine.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/fhir/nrces/fhirpath-engine.js')>();
  return { ...real, compiledInvariant: () => 'missing' as const };
});

const TASK = 'https://nrces.in/ndhm/fhir/r4/StructureDefinition/Task';
/** A Task whose inv-1 is left to the engine: lastModified is a time without seconds. */
const task = (lastModified: string): Record<string, unknown> => ({
  resourceType: 'Task',
  id: 't',
  meta: { profile: [TASK] },
  status: 'requested',
  intent: 'order',
  authoredOn: '2026-01-01T10:00:00Z',
  lastModified,
});

describe('validateFhirBundle without the fhirpath package', () => {
  let validateFhirBundle: typeof import('../src/fhir/index.js').validateFhirBundle;
  beforeAll(async () => {
    // The unit project shares modules between files (isolate: false): load the validator anew, over the mocked engine.
    vi.resetModules();
    ({ validateFhirBundle } = await import('../src/fhir/index.js'));
  });

  it('reports an invariant it leaves to the engine as unevaluated information, saying to install fhirpath', () => {
    const issues = validateFhirBundle(task('2026-01-01T10:00Z'), { profile: TASK }).issues;
    const inv = issues.filter((i) => i.code === 'unevaluated');
    expect(inv).toHaveLength(1);
    expect(inv[0]?.severity).toBe('information');
    expect(inv[0]?.message).toContain('invariant inv-1 (install the optional package fhirpath (npm install fhirpath) to evaluate it)');
  });

  it('makes it an error under strict', () => {
    const inv = validateFhirBundle(task('2026-01-01T10:00Z'), { profile: TASK, strict: true }).issues.filter((i) => i.code === 'unevaluated');
    expect(inv.map((i) => i.severity)).toEqual(['error']);
  });

  it('still decides inv-1 in code where it can: a lastModified before authoredOn is an error, one after it passes', () => {
    expect(
      validateFhirBundle(task('2026-01-01T09:00:00Z'), { profile: TASK })
        .issues.filter((i) => i.code === 'inv-1' || i.code === 'unevaluated')
        .map((i) => [i.code, i.severity]),
    ).toEqual([['inv-1', 'error']]);
    expect(validateFhirBundle(task('2026-01-01T11:00:00Z'), { profile: TASK }).issues.filter((i) => i.code === 'inv-1' || i.code === 'unevaluated')).toEqual([]);
  });
});
