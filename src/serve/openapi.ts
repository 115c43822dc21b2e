/**
 * The OpenAPI 3.1 document of `abha-link serve`, built from the same JSON
 * Schemas the validators use (schemas/*.schema.json, via the mock's OpenAPI
 * builder) and the query schemas the routes validate with.
 */
import { buildOpenApiDocument, type Json } from '../mock/openapi.js';
import { QUERY } from './routes-core.js';
import { PASSED_THROUGH } from './routes-service.js';
import { SUBMISSION_QUERY } from './routes-submissions.js';
import { SUBMISSION_STATUSES } from './queue-contract.js';

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json, description: string): Json => ({ description, content: { 'application/json': { schema } } });
const problems = (description: string): Json => ({ description, content: { 'application/json': { schema: ref('serve-problem') } } });

/** OpenAPI parameters from a query schema of a route. */
function parameters(schema: { readonly properties: Readonly<Record<string, object>> }, where: 'query' | 'path' = 'query'): Json[] {
  return Object.entries(schema.properties).map(([name, s]) => ({ name, in: where, required: where === 'path', schema: s as Json }));
}

const COMMON: Record<string, Json> = {
  '400': problems('The body is not JSON, or a query parameter is not valid.'),
  '401': problems('No or a wrong Authorization: Bearer token.'),
  '413': problems('The body is larger than the server accepts.'),
  '503': problems('The server is overloaded (Retry-After), or shutting down.'),
};

function op(summary: string, body: Json | undefined, responses: Record<string, Json>, params: Json[] = []): Json {
  return {
    summary,
    security: [{ bearerAuth: [] }],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: body } } } }),
    responses: { ...responses, ...COMMON },
  };
}

const VALIDATION: Json = { type: 'object', properties: { valid: { type: 'boolean' }, errors: { type: 'array', items: ref('serve-issue') }, warnings: { type: 'array', items: ref('serve-issue') } } };
const STATUS: Json = { enum: [...SUBMISSION_STATUSES] };
const SUBMISSION: Json = {
  type: 'object',
  required: ['id', 'status', 'attempts'],
  properties: {
    id: { type: 'string' },
    status: STATUS,
    attempts: { type: 'integer' },
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

function documentPaths(): Record<string, Json> {
  const issues422 = problems('The input has errors: every issue, with JSON Pointer paths into the body.');
  return {
    '/v1/validate': { post: op('Validate a document against a schema (200 either way)', {}, { '200': json(VALIDATION, 'valid, errors, warnings') }, parameters(QUERY.validate)) },
    '/v1/build': {
      post: op('Build the link request from a clinical input', ref('clinical-input'), { '200': json(ref('link-carecontext-request'), 'The link request.'), '422': issues422 }, parameters(QUERY.build)),
    },
    '/v1/render': {
      post: op(
        'Render a printable document (HTML, or PDF with Accept: application/pdf)',
        { oneOf: [ref('clinical-input'), ref('link-carecontext-request')] },
        {
          '200': { description: 'The document.', content: { 'text/html': { schema: { type: 'string' } }, 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
          '422': issues422,
          '501': problems('PDF asked for, and this server has no Chromium.'),
        },
        parameters(QUERY.render),
      ),
    },
    '/v1/fhir': {
      post: op(
        'FHIR R4 document bundle of a care context',
        { oneOf: [ref('clinical-input'), ref('link-carecontext-request')] },
        { '200': { description: 'A FHIR Bundle (type document).', content: { 'application/fhir+json': { schema: { type: 'object' } } } }, '422': issues422 },
        parameters(QUERY.fhir),
      ),
    },
    '/v1/fhir/validate': { post: op('Validate a FHIR document bundle (200 either way)', { type: 'object' }, { '200': json(VALIDATION, 'valid, errors, warnings') }) },
  };
}

function submissionPaths(): Record<string, Json> {
  const idParam = parameters(SUBMISSION_QUERY.id, 'path');
  return {
    '/v1/submissions': {
      post: op(
        'Queue a link request (or a clinical input, built first)',
        { oneOf: [ref('link-carecontext-request'), ref('clinical-input')] },
        {
          '202': json({ type: 'object', properties: { id: { type: 'string' }, status: STATUS } }, 'Stored; it will be sent.'),
          '200': json({ type: 'object', properties: { id: { type: 'string' }, status: STATUS } }, 'The same item was submitted before: its submission.'),
          '422': problems('The request is not valid; nothing was queued.'),
        },
        parameters(SUBMISSION_QUERY.create),
      ),
      get: op(
        'List submissions',
        undefined,
        { '200': json({ type: 'object', properties: { submissions: { type: 'array', items: SUBMISSION } } }, 'Newest first.') },
        parameters(SUBMISSION_QUERY.list),
      ),
    },
    '/v1/submissions/{id}': { get: op('One submission', undefined, { '200': json(SUBMISSION, 'The submission.'), '404': problems('No submission has this id.') }, idParam) },
    '/v1/submissions/{id}/retry': {
      post: op(
        'Send a failed or unknown submission again',
        undefined,
        { '200': json(SUBMISSION, 'Queued again.'), '404': problems('No such id.'), '409': problems('Not failed or unknown.') },
        idParam,
      ),
    },
  };
}

function servicePaths(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const e of PASSED_THROUGH) {
    out[e.path] = {
      post: op(`${e.title} (spec §${e.section}), through this server's API key`, ref(`${e.id}-request`), {
        '200': json(ref(`${e.id}-response`), "The service's answer, checked against the spec."),
        '422': problems('The request does not match the spec, or the service refused it.'),
        '429': problems('The service rate-limited the call.'),
        '502': problems('The service failed, or answered off the spec.'),
      }),
    };
  }
  return out;
}

function opsPaths(): Record<string, Json> {
  const open = (summary: string, responses: Record<string, Json>): Json => ({ get: { summary, security: [], responses } });
  return {
    '/healthz': open('The process is up', { '200': json({ type: 'object' }, 'ok') }),
    '/readyz': open('Storage and upstream reachable', { '200': json({ type: 'object' }, 'ready'), '503': json({ type: 'object' }, 'not ready: checks says which') }),
    '/metrics': open('Prometheus metrics', { '200': { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } } }),
    '/openapi.json': open('This document', { '200': json({ type: 'object' }, 'OpenAPI 3.1') }),
    '/': open('The playground page', { '200': { description: 'HTML.', content: { 'text/html': { schema: { type: 'string' } } } } }),
  };
}

/** Builds the OpenAPI 3.1 document of the service. */
export function buildServeOpenApi(): Record<string, Json> {
  const base = buildOpenApiDocument();
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'abha-link serve',
      version: base.info.version,
      description: 'The local service of abha-link: validate, build, render, FHIR, a submissions queue, and the identity endpoints of the ABHA service.',
    },
    paths: { ...opsPaths(), ...documentPaths(), ...submissionPaths(), ...servicePaths() },
    components: {
      schemas: {
        ...base.components.schemas,
        'serve-issue': {
          type: 'object',
          required: ['path', 'code', 'message', 'severity'],
          properties: {
            path: { type: 'string', description: 'JSON Pointer into the body (or the parameter, with in)' },
            code: { type: 'string' },
            message: { type: 'string' },
            severity: { enum: ['error', 'warning'] },
            in: { enum: ['query', 'header', 'path'] },
          },
        },
        'serve-problem': { type: 'object', required: ['issues'], properties: { issues: { type: 'array', items: ref('serve-issue') } } },
      },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'ABHA_LINK_SERVE_TOKEN of the server.' } },
    },
  };
}
