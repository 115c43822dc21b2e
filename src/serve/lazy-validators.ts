/**
 * Route schemas compiled on first use instead of at start-up. fastify
 * compiles every route's querystring and params schema with ajv before the
 * server listens (about a second on a busy 2-core machine, for a server
 * most of whose routes a given hospital never calls); here each route gets a
 * stand-in that compiles its schema with fastify's own compiler (the same
 * ajv, options and formats, so the same coercion, defaults and errors) the
 * first time a request needs it, and then just runs it.
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

/** A validator as fastify calls it: ajv's signature (data, and the data's parent for coercing a root value). */
export type RouteValidator = ((data: unknown, context?: object) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/** What fastify hands a validator compiler for one route part. */
export interface RouteSchemaArgs {
  readonly schema: unknown;
  readonly method?: string;
  readonly url?: string;
  readonly httpPart?: string;
}

/** fastify's validator builder (`compilersFactory.buildValidator`): the server's shared schemas and its `ajv` option in, a compiler out. */
export type ValidatorBuilder = (externalSchemas: unknown, ajvOptions: unknown) => (route: RouteSchemaArgs) => RouteValidator;

/** fastify's default builder (@fastify/ajv-compiler, found from fastify's own folder, as fastify finds it). */
function fastifyValidatorBuilder(): ValidatorBuilder {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const { AjvCompiler } = fromFastify('@fastify/ajv-compiler') as { AjvCompiler: () => ValidatorBuilder };
  return AjvCompiler();
}

/**
 * A validator that compiles itself on its first call. fastify reads
 * `schemaEnv` before each call (ajv's compiled functions have one, and are
 * then given the data's parent): reading it compiles too.
 */
function lazyValidator(compile: () => RouteValidator): RouteValidator {
  let compiled: RouteValidator | undefined;
  const real = (): RouteValidator => (compiled ??= compile());
  const validate: RouteValidator = (data, context) => {
    const fn = real();
    const result = fn(data, context);
    validate.errors = fn.errors;
    return result;
  };
  Object.defineProperty(validate, 'schemaEnv', { get: () => real().schemaEnv });
  return validate;
}

/**
 * A `compilersFactory.buildValidator` for fastify whose validators compile
 * on first use, each with the compiler `builder` makes (fastify's default
 * unless a test gives another), made on the first compilation.
 */
export function lazyValidatorBuilder(builder: () => ValidatorBuilder = fastifyValidatorBuilder): ValidatorBuilder {
  return (externalSchemas, ajvOptions) => {
    let compiler: ((route: RouteSchemaArgs) => RouteValidator) | undefined;
    return (route) => lazyValidator(() => (compiler ??= builder()(externalSchemas, ajvOptions))(route));
  };
}

/** The builder's type in fastify's declarations (which describe a compiler as taking the schema alone; fastify calls it as above). */
type FastifyValidatorBuilder = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>;

/** fastify's `schemaController` option with {@link lazyValidatorBuilder}. */
export function lazySchemaController(): NonNullable<FastifyServerOptions['schemaController']> {
  return { compilersFactory: { buildValidator: lazyValidatorBuilder() as unknown as FastifyValidatorBuilder } };
}
