/**
 * The document routes: validate, build, render, FHIR. Each answers the
 * library's result as JSON; problems with the input are `{ issues }` with
 * JSON Pointer paths into the body.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Issue } from '../errors.js';
import type { ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import { SCHEMA_MANIFEST } from '../generated/manifest.js';
import { safeBuildLinkRequest } from '../builders/link-request.js';
import { detectInputKind } from '../input-kind.js';
import { lintLinkRequest } from '../validation/lint.js';
import { validate } from '../validation/validate.js';
import { FHIR_HI_TYPES } from '../fhir/constants.js';
import { toFhirBundles } from '../fhir/to-fhir.js';
import { isPdfUnavailableError } from '../render/errors.js';
import { LANGUAGES, type Language } from '../render/labels.js';
import { PAGE_SIZES, type PageSize } from '../render/model.js';
import { safeRenderDocuments, TEMPLATE_NAMES, type RenderedDocument } from '../render/render.js';
import type { PdfPrinter } from '../render/pdf.js';
import type { ServeContext } from './app.js';
import { checkFhirBundle } from './fhir-validator.js';
import { requireBody } from './json-body.js';
import { HttpProblem, issue, problem } from './problems.js';

const LINK_SCHEMA = 'link-carecontext-request';
export const SCHEMA_NAMES_OF_MANIFEST: readonly string[] = SCHEMA_MANIFEST.map((s) => s.name);

/** The query string schemas of the routes (also in /openapi.json). */
export const QUERY = {
  validate: {
    type: 'object',
    additionalProperties: false,
    properties: { schema: { type: 'string', enum: SCHEMA_NAMES_OF_MANIFEST, default: LINK_SCHEMA }, lint: { type: 'boolean', default: false } },
  },
  build: { type: 'object', additionalProperties: false, properties: { lint: { type: 'boolean', default: true } } },
  render: {
    type: 'object',
    additionalProperties: false,
    properties: {
      template: { type: 'string', enum: TEMPLATE_NAMES, default: 'prescription' },
      lang: { type: 'string', enum: LANGUAGES, default: 'en' },
      size: { type: 'string', enum: PAGE_SIZES, default: 'A4' },
      index: { type: 'integer', minimum: 0, description: 'which care context, when the input has several (0-based)' },
    },
  },
  fhir: {
    type: 'object',
    additionalProperties: false,
    properties: { hiType: { type: 'string', enum: FHIR_HI_TYPES }, index: { type: 'integer', minimum: 0, description: 'which care context, when the input has several (0-based)' } },
  },
  none: { type: 'object', additionalProperties: false, properties: {} },
} as const;

const errorsOf = (issues: readonly Issue[]): Issue[] => issues.filter((i) => i.severity === 'error');
const warningsOf = (issues: readonly Issue[]): Issue[] => issues.filter((i) => i.severity === 'warning');

/** POST /v1/validate: the CLI's validate for one document. */
export function validateDocument(value: unknown, schema: string, lint: boolean, now: Date): { valid: boolean; errors: Issue[]; warnings: Issue[]; hint?: string } {
  const r = validate(schema as typeof LINK_SCHEMA, value);
  if (!r.success) {
    const clinical = schema !== 'clinical-input' && detectInputKind(value) === 'clinical-input';
    return { valid: false, errors: [...r.issues], warnings: [], ...(clinical ? { hint: 'this is a clinical input: POST it to /v1/build, or validate it with ?schema=clinical-input' } : {}) };
  }
  if (!lint || schema !== LINK_SCHEMA) return { valid: true, errors: [], warnings: [] };
  const findings = lintLinkRequest(r.value as LinkCareContextRequest, { now });
  const errors = errorsOf(findings);
  return { valid: errors.length === 0, errors, warnings: warningsOf(findings) };
}

/** The one document of several the caller chose with ?index=, or a 422 naming how many there are. */
function pick<T>(items: readonly T[], index: number | undefined, what: string): T {
  if (index === undefined && items.length > 1) {
    throw problem(422, 'several-documents', `the input has ${items.length} care contexts, so ${items.length} ${what}: choose one with ?index=0 to ${items.length - 1}`, { path: '/careContexts' });
  }
  const i = index ?? 0;
  const item = items[i];
  if (item === undefined) throw problem(422, 'no-such-document', `index must be below ${items.length}, the number of care contexts`, { path: '/index', in: 'query' });
  return item;
}

/** PDF or HTML, as the Accept header asks (HTML by default). */
function wantsPdf(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const types = accept.split(',').map((t) => t.split(';')[0]?.trim().toLowerCase());
  return types.includes('application/pdf') && !types.includes('text/html');
}

/** Prints one document, or answers 501 when this machine has no Chromium (or playwright-core). */
async function printPdf(context: ServeContext, doc: RenderedDocument): Promise<Uint8Array> {
  const open = context.options.openPrinter;
  if (open === undefined) throw problem(501, 'pdf-unavailable', 'PDF output is not configured on this server; ask for text/html');
  let printer: PdfPrinter;
  try {
    printer = await open();
  } catch (e) {
    if (isPdfUnavailableError(e)) throw problem(501, 'pdf-unavailable', `PDF output is not available on this server: ${e.message}`);
    throw e;
  }
  return printer.pdf(doc.html, { pageSize: doc.pageSize });
}

async function sendDocument(context: ServeContext, reply: FastifyReply, doc: RenderedDocument, accept: string | undefined, warnings: number): Promise<FastifyReply> {
  reply.header('x-abha-link-warnings', String(warnings));
  if (!wantsPdf(accept)) return reply.type('text/html; charset=utf-8').send(doc.html);
  const pdf = await printPdf(context, doc);
  return reply.type('application/pdf').header('content-disposition', `inline; filename="${doc.fileName}.pdf"`).send(Buffer.from(pdf));
}

export function registerCoreRoutes(app: FastifyInstance, context: ServeContext): void {
  const now = (): Date => context.options.now();

  app.post<{ Querystring: { schema: string; lint: boolean } }>('/v1/validate', { schema: { querystring: QUERY.validate } }, async (request) => {
    return validateDocument(requireBody(request.body), request.query.schema, request.query.lint, now());
  });

  app.post<{ Querystring: { lint: boolean } }>('/v1/build', { schema: { querystring: QUERY.build } }, async (request, reply) => {
    const r = safeBuildLinkRequest(requireBody(request.body) as ClinicalInput, { lint: request.query.lint ? { now: now() } : false });
    if (!r.success) return reply.code(422).send({ issues: r.issues });
    return reply.header('x-abha-link-warnings', String(r.warnings.length)).send(r.value);
  });

  app.post<{ Querystring: { template: string; lang: Language; size: PageSize; index?: number } }>('/v1/render', { schema: { querystring: QUERY.render } }, async (request, reply) => {
    const q = request.query;
    const r = safeRenderDocuments(requireBody(request.body), { template: q.template, lang: q.lang, pageSize: q.size, lint: { now: now() } });
    if (!r.success) return reply.code(422).send({ issues: r.issues });
    return sendDocument(context, reply, pick(r.documents, q.index, 'documents'), request.headers.accept, r.warnings.length);
  });

  app.post<{ Querystring: { hiType?: string; index?: number } }>('/v1/fhir', { schema: { querystring: QUERY.fhir } }, async (request, reply) => {
    const body = requireBody(request.body);
    const at = now();
    const { icd10Titles } = context.options;
    const r = toFhirBundles(body as ClinicalInput, {
      timestamp: at,
      lint: { now: at },
      ...(request.query.hiType === undefined ? {} : { hiType: request.query.hiType }),
      ...(icd10Titles === undefined ? {} : { icd10Titles }),
    });
    if (!r.success) return reply.code(422).send({ issues: r.issues });
    const doc = pick(r.bundles, request.query.index, 'bundles');
    const check = checkFhirBundle(doc.bundle);
    if (!check.success) {
      // Built from valid input: a bundle that fails the profile is abha-link's bug, not the caller's data.
      throw new HttpProblem(500, [issue('', 'internal', 'the FHIR bundle made from this input failed FHIR validation; this is a bug in abha-link: please report it')]);
    }
    return reply.header('x-abha-link-warnings', String(r.warnings.length)).type('application/fhir+json; charset=utf-8').send(doc.bundle);
  });

  app.post('/v1/fhir/validate', { schema: { querystring: QUERY.none } }, async (request) => {
    const r = checkFhirBundle(requireBody(request.body));
    return { valid: r.success, errors: errorsOf(r.issues), warnings: warningsOf(r.issues) };
  });
}
