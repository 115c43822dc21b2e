import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assertValid, isValidationError, validate, validateLinkRequest } from '../src/index.js';

const example = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(`../examples/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;

const ARRAY_METHODS = ['concat', 'some', 'every', 'filter', 'map', 'forEach', 'find', 'findIndex', 'indexOf', 'includes', 'slice', 'reduce', 'flatMap', 'join', 'splice'] as const;

/**
 * A deterministic measure of work: how many array elements the built-in array
 * methods visit or copy while `fn` runs. Quadratic issue collection (copying
 * every error found so far for each new one, or scanning every error for each
 * union) shows up here as work that quadruples when the input doubles.
 */
function arrayWork(fn: () => void): number {
  const proto = Array.prototype as unknown as Record<string, (this: unknown[], ...args: unknown[]) => unknown>;
  const saved = ARRAY_METHODS.map((m) => [m, proto[m]] as const);
  let work = 0;
  for (const [m, original] of saved) {
    proto[m] = function (this: unknown[], ...args: unknown[]): unknown {
      work += this.length;
      if (m === 'concat') for (const a of args) if (Array.isArray(a)) work += a.length;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  try {
    fn();
  } finally {
    for (const [m, original] of saved) proto[m] = original as (this: unknown[], ...args: unknown[]) => unknown;
  }
  return work;
}

/** The example link request with `n` numbers in place of care contexts: one error per item. */
function wrongTypedCareContexts(n: number): unknown {
  return { ...example('opd-prescription.request'), careContexts: Array.from({ length: n }, () => 1) };
}

/** A clinical input with `n` medications whose union fields (frequency, duration) have the wrong type. */
function wrongTypedUnions(n: number): unknown {
  return { ...example('opd-prescription.input'), medications: Array.from({ length: n }, (_, i) => ({ drugName: `Drug ${i}`, frequency: 1, duration: true })) };
}

describe('validation work grows linearly with the number of errors (issue 10, item 4)', () => {
  it.each([
    ['wrong-typed array items of a link request', 'link-carecontext-request', wrongTypedCareContexts],
    ['wrong-typed union fields of a clinical input', 'clinical-input', wrongTypedUnions],
  ] as const)('doubling a document of %s at most about doubles the work', (_, schema, make) => {
    const small = make(4000);
    const large = make(8000);
    const w1 = arrayWork(() => void validate(schema, small, { maxIssues: Infinity }));
    const w2 = arrayWork(() => void validate(schema, large, { maxIssues: Infinity }));
    expect(w2).toBeLessThan(2.5 * w1 + 1000);
  });

  it('still reports one issue per wrong-typed item when asked for all of them', () => {
    const r = validate('link-carecontext-request', wrongTypedCareContexts(3000), { maxIssues: Infinity });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.issues.filter((i) => i.code === 'type')).toHaveLength(3000);
    expect(r.issues.find((i) => i.path === '/careContexts/2999')).toMatchObject({ code: 'type', message: 'careContexts[2999] must be an object' });
    expect(r.omitted).toBe(0);
  });

  it('folds the branch errors of a union field into one issue per field', () => {
    const r = validate('clinical-input', wrongTypedUnions(2), { maxIssues: Infinity });
    expect(r.success ? [] : r.issues.map((i) => [i.path, i.code, i.message])).toEqual([
      ['/medications/0/frequency', 'type', 'frequency must be a string or an object'],
      ['/medications/0/duration', 'type', 'duration must be a string or an object'],
      ['/medications/1/frequency', 'type', 'frequency must be a string or an object'],
      ['/medications/1/duration', 'type', 'duration must be a string or an object'],
    ]);
  });
});

describe('issues per document are capped (issue 10, item 4)', () => {
  it('lists the first 100 issues and counts the rest in a final too-many-issues issue', () => {
    const r = validateLinkRequest(wrongTypedCareContexts(40_000));
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.issues).toHaveLength(101);
    expect(r.issues[0]).toMatchObject({ path: '/careContexts', code: 'too-many-items' });
    expect(r.issues[99]).toMatchObject({ path: '/careContexts/98', code: 'type' });
    // 40,000 type errors and one too-many-items: 40,001 issues, 100 listed
    expect(r.omitted).toBe(39_901);
    expect(r.issues[100]).toEqual({
      path: '',
      code: 'too-many-issues',
      message: 'the document has 39901 more issues that are not listed (at most 100 are listed per document); fix these and validate again',
      severity: 'error',
    });
  });

  it('takes another cap from maxIssues, and reports nothing omitted under it', () => {
    const r = validate('link-carecontext-request', wrongTypedCareContexts(10), { maxIssues: 3 });
    expect(r.success ? [] : r.issues.map((i) => i.code)).toEqual(['type', 'type', 'type', 'too-many-issues']);
    expect(r.success ? undefined : r.omitted).toBe(7);
    const all = validate('link-carecontext-request', wrongTypedCareContexts(10), { maxIssues: 10 });
    expect(all.success ? [] : all.issues.map((i) => i.code)).toEqual(Array(10).fill('type'));
    expect(all.success ? undefined : all.omitted).toBe(0);
  });

  it('refuses a cap that is not a positive whole number as a programming error', () => {
    for (const maxIssues of [0, -1, 1.5, Number.NaN]) expect(() => validate('doctor', {}, { maxIssues })).toThrow(TypeError);
  });

  it('ValidationError of a capped document does not understate how many issues there are', () => {
    try {
      assertValid('link-carecontext-request', wrongTypedCareContexts(500));
      throw new Error('expected a ValidationError');
    } catch (e) {
      expect(isValidationError(e)).toBe(true);
      expect((e as Error).message).toBe('invalid link-carecontext-request: /careContexts careContexts must have at most 100 items (and more than 99 other issues)');
    }
  });
});
