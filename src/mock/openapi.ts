/**
 * The OpenAPI 3.1 document of the service, built at run time from the
 * shipped JSON Schemas (`schemas/*.schema.json`, listed in
 * `schemas/index.json`) and the endpoint list of the spec definition, so that
 * it says exactly what the validators check.
 */
import { readFileSync } from 'node:fs';
import { ENDPOINTS } from '../spec/definition.js';

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An OpenAPI 3.1 document (the parts this module writes). */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly jsonSchemaDialect: string;
  readonly info: { readonly title: string; readonly version: string; readonly description: string; readonly license: { readonly name: string; readonly identifier: string } };
  readonly servers?: readonly { readonly url: string; readonly description: string }[];
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  readonly paths: Readonly<Record<string, { readonly post: Json }>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, Json>>;
    readonly responses: Readonly<Record<string, Json>>;
    readonly securitySchemes: Readonly<Record<string, Json>>;
  };
}

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiOptions {
  /** The server to list (e.g. the mock's URL); none by default. */
  readonly serverUrl?: string;
  /** The folder of the schemas (default: the package's `schemas/`). */
  readonly schemasDir?: URL;
}

const SCHEMA_REF = /^([a-z0-9-]+)\.schema\.json$/;

/** Rewrites `x.schema.json` references to `#/components/schemas/x` and drops per-file keywords. */
function toComponent(schema: Json, name: string): Json {
  const walk = (v: Json, top: boolean): Json => {
    if (Array.isArray(v)) return v.map((x) => walk(x, false));
    if (v === null || typeof v !== 'object') return v;
    const out: { [key: string]: Json } = {};
    for (const [k, x] of Object.entries(v)) {
      if (top && (k === '$schema' || k === '$id' || k === '$comment')) continue;
      if (k === '$ref' && typeof x === 'string') {
        const m = SCHEMA_REF.exec(x);
        if (m === null) throw new Error(`schema ${name}: unexpected $ref ${x}`);
        out[k] = `#/components/schemas/${m[1] ?? ''}`;
        continue;
      }
      out[k] = walk(x, false);
    }
    return out;
  };
  return walk(schema, true);
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * Every shipped JSON Schema as an OpenAPI component (`$ref`s rewritten to
 * `#/components/schemas/<name>`), by name.
 *
 * @throws Error when a schema file is missing or holds an unexpected $ref (a packaging bug)
 * @example
 * Object.keys(componentSchemas()).includes('clinical-input') //=> true
 */
export function componentSchemas(dir: URL = new URL('../../schemas/', import.meta.url)): Record<string, Json> {
  const index = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8')) as { name: string; file: string }[];
  const schemas: Record<string, Json> = {};
  for (const entry of index) {
    const file = entry.file.split('/').pop() ?? '';
    schemas[entry.name] = toComponent(JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Json, entry.name);
  }
  return schemas;
}

/** The `#/components/<kind>/<name>` references anywhere in `value`. */
function refsIn(value: Json, found: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) refsIn(v, found);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/')) found.add(v);
      else refsIn(v, found);
    }
  }
}

/**
 * The document with only the component schemas and responses its paths use,
 * directly or through other components (code generators and linters flag
 * unused ones).
 *
 * @example
 * pruneUnusedSchemas({ paths: {}, components: { schemas: { a: {} } } }).components //=> { schemas: {} }
 */
export function pruneUnusedSchemas<
  D extends { readonly paths: unknown; readonly components: { readonly schemas: Readonly<Record<string, Json>>; readonly responses?: Readonly<Record<string, Json>> } },
>(doc: D): D {
  const used = new Set<string>();
  refsIn(doc.paths as Json, used);
  const pending = [...used];
  for (let r = pending.pop(); r !== undefined; r = pending.pop()) {
    const [, , kind, name] = r.split('/');
    const target = kind === 'schemas' ? doc.components.schemas[name ?? ''] : kind === 'responses' ? doc.components.responses?.[name ?? ''] : undefined;
    if (target === undefined) continue;
    const inner = new Set<string>();
    refsIn(target, inner);
    for (const x of inner) {
      if (used.has(x)) continue;
      used.add(x);
      pending.push(x);
    }
  }
  const keep = (kind: string, all: Readonly<Record<string, Json>>): Record<string, Json> => Object.fromEntries(Object.entries(all).filter(([name]) => used.has(`#/components/${kind}/${name}`)));
  const { responses } = doc.components;
  return { ...doc, components: { ...doc.components, schemas: keep('schemas', doc.components.schemas), ...(responses === undefined ? {} : { responses: keep('responses', responses) }) } };
}

const camel = (id: string): string => id.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Builds the OpenAPI 3.1 document: one `POST` operation per endpoint of the
 * spec (12), its request and response bodies as references to the shipped
 * schemas, bearer authentication on every endpoint but the token one, and
 * the error answers the mock gives.
 *
 * @throws Error when a schema file is missing or holds an unexpected $ref (a packaging bug)
 * @example
 * const doc = buildOpenApiDocument()
 * Object.keys(doc.paths).length //=> 12
 * doc.paths['/api/m2/multiple/link-carecontext'].post.operationId //=> 'linkCarecontext'
 */
export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const schemas = componentSchemas(options.schemasDir);
  const envelopeResponse = (description: string, schema: string): Json => ({
    description,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
  });
  const responses: Record<string, Json> = {
    BadRequest: envelopeResponse('The body does not match the schema (the message names the field), or is not JSON.', 'response-envelope'),
    Unauthorized: envelopeResponse('The bearer token is missing, malformed, expired or revoked.', 'response-envelope'),
    TooManyRequests: {
      ...(envelopeResponse('Rate limited. Retry-After, when present, says when to try again.', 'response-envelope') as { [key: string]: Json }),
      headers: { 'Retry-After': { description: 'Seconds, or an HTTP date.', schema: { type: 'string' } } },
    },
    ServiceUnavailable: {
      ...(envelopeResponse('Temporarily unavailable. With Retry-After, the request was not processed.', 'response-envelope') as { [key: string]: Json }),
      headers: { 'Retry-After': { description: 'Seconds, or an HTTP date.', schema: { type: 'string' } } },
    },
    TokenBadRequest: envelopeResponse('The body does not match the schema.', 'token-envelope'),
    TokenUnauthorized: envelopeResponse('The API key is not valid.', 'token-envelope'),
  };
  const paths: Record<string, { post: Json }> = {};
  for (const e of ENDPOINTS) {
    const req = `${e.id}-request`;
    const res = `${e.id}-response`;
    if (!(req in schemas) || !(res in schemas)) throw new Error(`schemas for endpoint ${e.id} are missing`);
    const token = e.auth === 'none';
    paths[e.path] = {
      post: {
        operationId: camel(e.id),
        summary: e.title,
        description: `${e.description} Spec §${e.section}.${e.auth === 'bearer' ? ' Needs Authorization: Bearer <token from /api/m1/abha/token>.' : ' No Authorization header.'}`,
        tags: [e.path.startsWith('/api/m2/') ? 'linking' : 'identity'],
        'x-spec-section': e.section,
        security: token ? [] : [{ bearerAuth: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${req}` } } } },
        responses: {
          '200': envelopeResponse(`The ${token ? 'token envelope (status, message, data)' : 'envelope (success, message, data)'}. \`${token ? 'status' : 'success'}: false\` is a failure.`, res),
          '400': { $ref: `#/components/responses/${token ? 'TokenBadRequest' : 'BadRequest'}` },
          '401': { $ref: `#/components/responses/${token ? 'TokenUnauthorized' : 'Unauthorized'}` },
          '429': { $ref: '#/components/responses/TooManyRequests' },
          '503': { $ref: '#/components/responses/ServiceUnavailable' },
        },
      },
    };
  }
  return pruneUnusedSchemas({
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'ABHA Identity and Care-Context Linking Service',
      version: packageVersion(),
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Generated by abha-link from its JSON Schemas (schemas/*.schema.json) and spec definition. Status codes other than 200 are those of the abha-link mock; the spec does not show them.',
    },
    servers: [
      options.serverUrl === undefined
        ? { url: '/', description: 'The base URL of the service (ABHA_LINK_BASE_URL); `abha-link openapi --server URL` names it' }
        : { url: options.serverUrl, description: 'abha-link mock' },
    ],
    tags: [
      { name: 'identity', description: 'Token, account search, OTP flows and profiles (/api/m1/).' },
      { name: 'linking', description: 'Care-context linking (/api/m2/).' },
    ],
    paths,
    components: {
      schemas,
      responses,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token from POST /api/m1/abha/token.' } },
    },
  });
}
