/**
 * The route schemas of `abha-link serve` are compiled by their first
 * request (src/serve/lazy-validators.ts), with fastify's own compiler: none
 * before, each once, and the compiled validator's answer, errors and
 * coercion passed through unchanged.
 */
import { describe, expect, it } from 'vitest';
import { lazyValidatorBuilder, type RouteValidator, type ValidatorBuilder } from '../src/serve/lazy-validators.js';

const QUERY = { type: 'object', additionalProperties: false, properties: { lint: { type: 'boolean', default: false } } };
const AJV = { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: true } };

describe('lazyValidatorBuilder', () => {
  it('compiles a route schema on its first call only, once, with fastify’s compiler and the server’s ajv options', () => {
    const compiled: unknown[] = [];
    let built = 0;
    const counting = (): ValidatorBuilder => {
      built++;
      return (externals, options) => (route) => {
        compiled.push({ externals, options, schema: route.schema });
        const fn = ((data: { lint?: unknown }) => typeof data.lint !== 'string') as RouteValidator;
        fn.errors = [{ instancePath: '/lint', keyword: 'type' }];
        fn.schemaEnv = { root: true };
        return fn;
      };
    };
    const compiler = lazyValidatorBuilder(counting)({}, AJV);
    const validate = compiler({ schema: QUERY, method: 'POST', url: '/v1/validate', httpPart: 'querystring' });
    compiler({ schema: QUERY, method: 'POST', url: '/v1/build', httpPart: 'querystring' });
    expect(built).toBe(0);
    expect(compiled).toEqual([]);
    expect(validate({ lint: 'yes' })).toBe(false);
    expect(validate.errors).toEqual([{ instancePath: '/lint', keyword: 'type' }]);
    expect(validate({ lint: true })).toBe(true);
    expect(validate.schemaEnv).toEqual({ root: true });
    expect(built).toBe(1);
    expect(compiled).toEqual([{ externals: {}, options: AJV, schema: QUERY }]);
  });

  it('answers as fastify’s own compiler does: defaults, coercion and every error', () => {
    const validate = lazyValidatorBuilder()({}, AJV)({ schema: QUERY, httpPart: 'querystring' });
    const empty: Record<string, unknown> = {};
    expect(validate(empty, { parentData: { query: empty }, parentDataProperty: 'query' })).toBe(true);
    expect(empty).toEqual({ lint: false });
    const given: Record<string, unknown> = { lint: 'true' };
    expect(validate(given)).toBe(true);
    expect(given).toEqual({ lint: true });
    expect(validate({ lint: 'maybe', other: 1 })).toBe(false);
    expect((validate.errors as { keyword: string }[]).map((e) => e.keyword).sort()).toEqual(['additionalProperties', 'type']);
  });
});
