/**
 * The OpenAPI 3.1 document of `abha-link serve`, built from the same JSON
 * Schemas the validators use (schemas/*.schema.json, via the mock's OpenAPI
 * builder) and the query schemas the routes validate with. Written for code
 * generators: every operation has a stable camelCase `operationId`, every
 * request body and response an example, every 4xx the route can answer is
 * listed, and only the components it uses are in it (`@redocly/cli lint`
 * passes with its recommended rules, see test/serve-openapi.test.ts).
 */
import { readFileSync } from 'node:fs';
import { ISSUE_CODE_SYSTEM } from '../fhir/outcome.js';
import { buildOpenApiDocument, componentSchemas, pruneUnusedSchemas, type Json } from '../mock/openapi.js';
import { SERVICE_EXAMPLES } from './openapi-examples.js';
import { SUBMISSION_STATUSES } from './queue-contract.js';
import { QUERY } from './routes-core.js';
import { PASSED_THROUGH } from './routes-service.js';
import { SUBMISSION_QUERY } from './routes-submissions.js';

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const media = (schema: Json, example: Json): Json => ({ 'application/json': { schema, example } });
const json = (schema: Json, description: string, example: Json): Json => ({ description, content: media(schema, example) });

/** An example of each error status: one issue in the library's format. */
const PROBLEM_EXAMPLES: Readonly<Record<string, readonly [string, string, string]>> = {
  '400': ['/schema', 'invalid-parameter', 'schema must be a schema name (GET /openapi.json lists them; so does abha-link schemas); did you mean clinical-input?'],
  '401': ['/authorization', 'unauthorized', 'this route needs Authorization: Bearer TOKEN (the token of ABHA_LINK_SERVE_TOKEN or --token-file)'],
  '404': ['', 'not-found', 'no submission has this id'],
  '409': ['', 'not-retryable', 'only a failed or unknown submission can be sent again'],
  '413': ['', 'body-too-large', 'the request body is larger than this server accepts'],
  '422': ['/careContexts/0/hiType', 'invalid-enum', 'hiType must be one of the spec’s health information types'],
  '429': ['', 'rate-limited', 'the ABHA service call failed (RateLimitedError, HTTP 429): rate limited; try again later'],
  '501': ['', 'pdf-unavailable', 'PDF needs a Chromium on this server; ask for HTML instead'],
  '502': ['', 'outcome-unknown', 'the ABHA service call failed: no usable answer came; the request may have been processed'],
  '503': ['', 'overloaded', 'the server is handling 64 requests; try again shortly'],
  '504': ['', 'timeout', 'the ABHA service call failed: it did not answer in time'],
};

/** An error answer with `status`'s example. */
function problems(status: string, description: string): Json {
  const [path, code, message] = PROBLEM_EXAMPLES[status] ?? ['', 'error', description];
  return json(ref('serve-problem'), description, {
    issues: [{ path, code, message, severity: 'error', ...(status === '400' || status === '401' ? { in: status === '400' ? 'query' : 'header' } : {}) }],
  });
}

/** OpenAPI parameters from a query schema of a route. */
function parameters(schema: { readonly properties: Readonly<Record<string, object>> }, where: 'query' | 'path' = 'query'): Json[] {
  return Object.entries(schema.properties).map(([name, s]) => ({ name, in: where, required: where === 'path', schema: s as Json }));
}

/** What every /v1 route can answer besides its own statuses. */
const COMMON: Record<string, Json> = {
  '400': problems('400', 'The body is not JSON, or a query parameter is not valid.'),
  '401': problems('401', 'No or a wrong Authorization: Bearer token.'),
  '413': problems('413', 'The body is larger than the server accepts.'),
  '503': problems('503', 'The server is overloaded (Retry-After), or shutting down.'),
};

/** A request body: its schema and example. */
interface Body {
  readonly schema: Json;
  readonly example: Json;
}

/** A /v1 operation: bearer authentication, the common error answers. */
function op(operationId: string, summary: string, body: Body | undefined, responses: Record<string, Json>, params: Json[] = []): Json {
  return {
    operationId,
    summary,
    security: [{ bearerAuth: [] }],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body === undefined ? {} : { requestBody: { required: true, content: media(body.schema, body.example) } }),
    responses: { ...responses, ...COMMON },
  };
}

/** The repository's example files (shipped in the package's examples/). */
function exampleFile(name: string): Json {
  return JSON.parse(readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8')) as Json;
}

const ISSUE_EXAMPLE: Json = { path: '/hipId', code: 'required', message: 'hipId is required', severity: 'error' };
const VALIDATION: Json = {
  type: 'object',
  required: ['valid', 'errors', 'warnings'],
  properties: {
    valid: { type: 'boolean', description: 'True when there is no error (warnings do not count).' },
    errors: { type: 'array', items: ref('serve-issue') },
    warnings: { type: 'array', items: ref('serve-issue') },
    hint: { type: 'string', description: 'What to do instead, when the body is of another kind (a clinical input sent as a link request).' },
  },
};
const VALIDATION_EXAMPLE: Json = { valid: false, errors: [ISSUE_EXAMPLE], warnings: [] };
/** An OperationOutcome of FHIR validation (toOperationOutcome of abha-link/fhir). */
const OUTCOME_EXAMPLE: Json = {
  resourceType: 'OperationOutcome',
  issue: [
    {
      severity: 'error',
      code: 'required',
      expression: ['Bundle.entry[0].resource.title'],
      details: { coding: [{ system: ISSUE_CODE_SYSTEM, code: 'required' }], text: 'title is required (1..1)' },
    },
  ],
};
const STATUS: Json = { type: 'string', enum: [...SUBMISSION_STATUSES], description: 'See docs/serve.md (The queue, States).' };
const SUBMISSION: Json = {
  type: 'object',
  required: ['id', 'status', 'attempts', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', description: 'The submission id (a UUID).' },
    status: STATUS,
    attempts: { type: 'integer', description: 'Times it was taken to be sent.' },
    error: {
      type: 'object',
      description: 'For failed and unknown: a stable code and a message without health data.',
      properties: { code: { type: 'string', examples: ['rejected', 'timeout', 'lease-expired'] }, message: { type: 'string' } },
    },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    visitId: { type: 'string', description: "The link request's visitId. Absent only for a submission stored before version 4 of the queue's schema whose request was already deleted." },
    hipId: { type: 'string', description: "The link request's hipId (the facility). Absent only where visitId is." },
    careContextReferences: { type: 'array', items: { type: 'string' }, description: "The care contexts' referenceNumbers, in the request's order (empty where visitId is absent)." },
    hiTypes: { type: 'array', items: { type: 'string' }, description: "The care contexts' hiTypes, each once, in the request's order (empty where visitId is absent)." },
  },
};
const SUBMISSION_EXAMPLE: Json = {
  id: '0b6c1c2e-5d43-4f7e-9a51-3f0f0e2b7a10',
  status: 'acknowledged',
  attempts: 1,
  createdAt: '2026-11-24T04:30:00.000Z',
  updatedAt: '2026-11-24T04:30:01.000Z',
  visitId: 'OPD-2026-0042',
  hipId: 'IN2910000123',
  careContextReferences: ['OPD-2026-0042-Prescription'],
  hiTypes: ['Prescription'],
};
const PAGE: Json = {
  type: 'object',
  required: ['submissions'],
  properties: {
    submissions: { type: 'array', items: SUBMISSION },
    nextCursor: { type: 'string', description: 'Present when there may be more: pass it as cursor for the next page (opaque; stable while rows are added).' },
  },
};
const LEDGER: Json = {
  type: 'object',
  required: ['days', 'total', 'submissions'],
  properties: {
    days: {
      type: 'array',
      items: {
        type: 'object',
        required: ['day', 'status', 'count'],
        properties: {
          day: { type: 'string', format: 'date', description: 'The day the submissions were made, in India (+05:30).' },
          status: STATUS,
          hiType: { type: 'string', description: 'Absent for submissions whose care contexts are not known (stored before version 4 of the schema and already done).' },
          count: { type: 'integer', description: 'Care contexts (health records) of this hiType; a submission without known care contexts counts one.' },
        },
      },
    },
    total: { type: 'integer', description: 'The sum of count.' },
    submissions: { type: 'integer', description: 'The submissions the rows count.' },
  },
};
const LEDGER_EXAMPLE: Json = {
  days: [
    { day: '2026-11-24', status: 'acknowledged', hiType: 'OPConsultation', count: 41 },
    { day: '2026-11-24', status: 'acknowledged', hiType: 'Prescription', count: 38 },
    { day: '2026-11-24', status: 'failed', hiType: 'Prescription', count: 1 },
  ],
  total: 80,
  submissions: 42,
};
const CREATED: Json = { type: 'object', required: ['id', 'status'], properties: { id: { type: 'string' }, status: STATUS } };

function documentPaths(input: Json, linkRequest: Json): Record<string, Json> {
  const issues422 = problems('422', 'The input has errors: every issue, with JSON Pointer paths into the body.');
  const either: Body = { schema: { oneOf: [ref('clinical-input'), ref('link-carecontext-request')] }, example: input };
  return {
    '/v1/validate': {
      post: op(
        'validateDocument',
        'Validate a document against a schema (200 either way)',
        { schema: { description: 'Any JSON document; ?schema= names the schema it is checked against.' }, example: linkRequest },
        { '200': json(VALIDATION, 'valid, errors, warnings', VALIDATION_EXAMPLE) },
        parameters(QUERY.validate),
      ),
    },
    '/v1/build': {
      post: op(
        'buildLinkRequest',
        'Build the link request from a clinical input',
        { schema: ref('clinical-input'), example: input },
        { '200': json(ref('link-carecontext-request'), 'The link request.', linkRequest), '422': issues422 },
        parameters(QUERY.build),
      ),
    },
    '/v1/render': {
      post: op(
        'renderDocument',
        'Render a printable document (HTML, or PDF with Accept: application/pdf)',
        either,
        {
          '200': {
            description: 'The document.',
            content: {
              'text/html': { schema: { type: 'string' }, example: '<!doctype html><html lang="en">…</html>' },
              'application/pdf': { schema: { type: 'string', format: 'binary' }, example: '%PDF-1.7 …' },
            },
          },
          '422': issues422,
          '501': problems('501', 'PDF asked for, and this server has no Chromium.'),
        },
        parameters(QUERY.render),
      ),
    },
    '/v1/fhir': {
      post: op(
        'buildFhirBundle',
        'FHIR R4 document bundle of a care context',
        either,
        {
          '200': {
            description: 'A FHIR Bundle (type document).',
            content: { 'application/fhir+json': { schema: { type: 'object' }, example: { resourceType: 'Bundle', type: 'document', entry: [] } } },
          },
          '422': issues422,
        },
        parameters(QUERY.fhir),
      ),
    },
    '/v1/fhir/Bundle/$validate': {
      post: op(
        'validateFhirBundleOutcome',
        "FHIR's $validate: a FHIR OperationOutcome for a bundle or resource (200 either way)",
        { schema: { type: 'object' }, example: { resourceType: 'Bundle', type: 'document', entry: [] } },
        {
          '200': {
            description: 'An OperationOutcome: one issue per issue found, or one informational issue when there is none.',
            content: { 'application/fhir+json': { schema: { type: 'object' }, example: OUTCOME_EXAMPLE } },
          },
        },
      ),
    },
    '/v1/fhir/validate': {
      post: op(
        'validateFhirBundle',
        'Validate a FHIR document bundle (200 either way); with Accept: application/fhir+json, a FHIR OperationOutcome',
        { schema: { type: 'object' }, example: { resourceType: 'Bundle', type: 'document', entry: [] } },
        {
          '200': {
            description: 'valid, errors, warnings (truncated when validation stopped at the cap); or an OperationOutcome when asked for application/fhir+json.',
            content: { ...(media(VALIDATION, VALIDATION_EXAMPLE) as Record<string, unknown>), 'application/fhir+json': { schema: { type: 'object' }, example: OUTCOME_EXAMPLE } },
          },
        },
      ),
    },
  };
}

function submissionPaths(linkRequest: Json): Record<string, Json> {
  const idParam = parameters(SUBMISSION_QUERY.id, 'path');
  return {
    '/v1/submissions': {
      post: op(
        'createSubmission',
        'Queue a link request (or a clinical input, built first)',
        { schema: { oneOf: [ref('link-carecontext-request'), ref('clinical-input')] }, example: linkRequest },
        {
          '202': json(CREATED, 'Stored; it will be sent.', { id: '0b6c1c2e-5d43-4f7e-9a51-3f0f0e2b7a10', status: 'queued' }),
          '200': json(CREATED, 'The same item was submitted before: its submission.', { id: '0b6c1c2e-5d43-4f7e-9a51-3f0f0e2b7a10', status: 'acknowledged' }),
          '409': problems('409', 'different-body: the same item was submitted before with another body (storedBodySha256: the SHA-256 of its canonical JSON).'),
          '422': problems('422', 'The request is not valid; nothing was queued.'),
          '503': problems('503', "The queue's storage is unavailable (storage-unavailable, Retry-After), the server is overloaded, or shutting down; nothing was stored."),
        },
        parameters(SUBMISSION_QUERY.create),
      ),
      get: op(
        'listSubmissions',
        'List submissions',
        undefined,
        {
          '200': json(PAGE, 'Newest first; nextCursor when there may be more.', {
            submissions: [SUBMISSION_EXAMPLE],
            nextCursor: 'MXwyMDI2LTExLTI0VDA0OjMwOjAwLjAwMDAwMFp8MGI2YzFjMmUtNWQ0My00ZjdlLTlhNTEtM2YwZjBlMmI3YTEw',
          }),
        },
        parameters(SUBMISSION_QUERY.list),
      ),
    },
    '/v1/submissions/ledger': {
      get: op(
        'getSubmissionLedger',
        'The daily ledger: care contexts by day (in India), status and hiType; CSV with Accept: text/csv or format=csv',
        undefined,
        {
          '200': {
            description: 'The ledger: the counts add up to total.',
            content: {
              ...(media(LEDGER, LEDGER_EXAMPLE) as Record<string, unknown>),
              'text/csv': {
                schema: { type: 'string' },
                example: 'day,status,hiType,count\r\n2026-11-24,acknowledged,OPConsultation,41\r\n2026-11-24,acknowledged,Prescription,38\r\n2026-11-24,failed,Prescription,1\r\n',
              },
            },
          },
        },
        parameters(SUBMISSION_QUERY.ledger),
      ),
    },
    '/v1/submissions/{id}': {
      get: op('getSubmission', 'One submission', undefined, { '200': json(SUBMISSION, 'The submission.', SUBMISSION_EXAMPLE), '404': problems('404', 'No submission has this id.') }, idParam),
      put: op(
        'replaceSubmission',
        'Replace the request of a failed submission with a corrected one of the same item, and queue it again',
        { schema: { oneOf: [ref('link-carecontext-request'), ref('clinical-input')] }, example: linkRequest },
        {
          '202': json(SUBMISSION, 'Replaced and queued.', { ...(SUBMISSION_EXAMPLE as Record<string, unknown>), status: 'queued' } as Json),
          '404': problems('404', 'No submission has this id.'),
          '409': problems('409', 'not-replaceable: the submission is not failed; different-item: the body is another item (submit it as new).'),
          '422': problems('422', 'The request is not valid; nothing was changed.'),
        },
        idParam,
      ),
    },
    '/v1/submissions/{id}/retry': {
      post: op(
        'retrySubmission',
        'Send a failed or unknown submission again',
        undefined,
        {
          '200': json(SUBMISSION, 'Queued again.', { ...(SUBMISSION_EXAMPLE as Record<string, Json>), status: 'queued', attempts: 1 }),
          '404': problems('404', 'No such id.'),
          '409': problems('409', 'Not failed or unknown.'),
        },
        idParam,
      ),
    },
  };
}

const camelCase = (id: string): string => id.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The answer the server passes through: always `success: true` (a refusal is
 * a problem answer), with the `data` of the endpoint's response schema (there
 * under `if`/`then`, which code generators do not read).
 */
function successAnswer(schemas: Readonly<Record<string, Json>>, id: string): Json {
  const s = schemas[`${id}-response`] as { properties?: { message?: Json }; then?: { properties?: { data?: Json } } } | undefined;
  const data = s?.then?.properties?.data;
  if (data === undefined) throw new Error(`internal: the response schema of ${id} has no data under then`);
  return {
    type: 'object',
    required: ['success', 'data'],
    properties: { success: { type: 'boolean', const: true, description: 'Always true here: a refusal is an error answer.' }, message: s?.properties?.message ?? { type: 'string' }, data },
  };
}

function servicePaths(schemas: Readonly<Record<string, Json>>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const e of PASSED_THROUGH) {
    const examples = (SERVICE_EXAMPLES as Readonly<Record<string, { readonly request: Json; readonly response: Json } | undefined>>)[e.id];
    if (examples === undefined) throw new Error(`internal: no OpenAPI example for ${e.id}`);
    const { request, response } = examples;
    const id = camelCase(e.id);
    out[e.path] = {
      post: op(
        `service${id.charAt(0).toUpperCase()}${id.slice(1)}`,
        `${e.title} (spec §${e.section}), through this server's API key`,
        { schema: ref(`${e.id}-request`), example: request },
        {
          '200': json(successAnswer(schemas, e.id), "The service's answer, checked against the spec.", response),
          '422': problems('422', 'The request does not match the spec, or the service refused it.'),
          '429': problems('429', 'The service rate-limited the call.'),
          '502': problems('502', 'The service failed, or answered off the spec.'),
          '504': problems('504', 'The service did not answer in time.'),
        },
      ),
    };
  }
  return out;
}

/** Request headers over Node's limit (16 KiB): fastify answers before any route, in its own shape (not the issue format). */
const HEADERS_TOO_LARGE: Json = json(
  { type: 'object', properties: { error: { type: 'string' }, message: { type: 'string' }, statusCode: { type: 'integer' } } },
  "Request headers larger than Node's HTTP layer reads (16 KiB); answered before any route, in fastify's own error shape.",
  { error: 'Request Header Fields Too Large', message: 'Exceeded maximum allowed HTTP header size', statusCode: 431 },
);

/**
 * A route without a token. It has no parameters and reads no body, so its
 * one 4xx is the one any route can get: request headers over the limit (431).
 */
function open(operationId: string, summary: string, responses: Record<string, Json>): Json {
  const tooLarge = HEADERS_TOO_LARGE;
  return { get: { operationId, summary, security: [], responses: { '431': tooLarge, '503': COMMON['503'] ?? null, ...responses } } };
}

function opsPaths(): Record<string, Json> {
  const text = (type: string, description: string, example: string): Json => ({ description, content: { [type]: { schema: { type: 'string' }, example } } });
  const object = (description: string, example: Json): Json => json({ type: 'object' }, description, example);
  return {
    '/healthz': open('getHealth', 'The process is up', { '200': object('ok', { status: 'ok' }) }),
    '/readyz': open('getReadiness', 'Storage and upstream reachable', {
      '200': object('ready', { status: 'ready', checks: { storage: 'ok', upstream: 'ok' } }),
      '503': object('not ready: checks says which', { status: 'not-ready', checks: { storage: 'ok', upstream: 'failing' } }),
    }),
    // With the token (the document's default security), like every route that is not public.
    '/metrics': {
      get: {
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        security: [{ bearerAuth: [] }],
        responses: { '200': text('text/plain', 'Prometheus text format.', 'abha_link_queue_depth 0\n'), '401': COMMON['401'] ?? null, '503': COMMON['503'] ?? null },
      },
    },
    '/openapi.json': open('getOpenApi', 'This document', { '200': object('OpenAPI 3.1', { openapi: '3.1.0' }) }),
    '/': open('getPlayground', 'The playground page', { '200': text('text/html', 'HTML.', '<!doctype html><html lang="en">…</html>') }),
  };
}

/**
 * Builds the OpenAPI 3.1 document of the service.
 *
 * @example
 * buildServeOpenApi().paths['/v1/submissions'].post.operationId //=> 'createSubmission'
 */
export function buildServeOpenApi(): Record<string, Json> {
  const base = buildOpenApiDocument();
  const input = exampleFile('opd-prescription.input.json');
  const linkRequest = exampleFile('opd-prescription.request.json');
  const schemas = componentSchemas();
  return pruneUnusedSchemas({
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'abha-link serve',
      version: base.info.version,
      description: 'The local service of abha-link: validate, build, render, FHIR, a submissions queue, and the identity endpoints of the ABHA service.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The server that serves this document (abha-link serve listens on 127.0.0.1:8080 by default).' }],
    paths: { ...opsPaths(), ...documentPaths(input, linkRequest), ...submissionPaths(linkRequest), ...servicePaths(schemas) },
    components: {
      schemas: {
        ...schemas,
        'serve-issue': {
          type: 'object',
          required: ['path', 'code', 'message', 'severity'],
          properties: {
            path: { type: 'string', description: 'JSON Pointer into the body (or the parameter, with in)' },
            code: { type: 'string', description: 'A stable code to switch on.' },
            message: { type: 'string', description: 'What is wrong and what is expected; never the input value.' },
            severity: { type: 'string', enum: ['error', 'warning'] },
            in: { type: 'string', enum: ['query', 'header', 'path'] },
          },
        },
        'serve-problem': { type: 'object', required: ['issues'], properties: { issues: { type: 'array', items: ref('serve-issue') } } },
      },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'ABHA_LINK_SERVE_TOKEN of the server.' } },
    },
  });
}
