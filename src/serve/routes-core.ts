/**
 * The document routes: validate, build, render, FHIR. Each answers the
 * library's result as JSON; problems with the input are `{ issues }` with
 * JSON Pointer paths into the body.
 */
import os from 'node:os';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { SCHEMA_MANIFEST } from '../generated/manifest.js';
import { FHIR_HI_TYPES } from '../fhir/constants.js';
import { isPdfUnavailableError } from '../render/errors.js';
import { LANGUAGES, type Language } from '../render/messages/index.js';
import { PAGE_SIZES, type PageSize } from '../render/page-sizes.js';
import { BUNDLED_TEMPLATE_NAMES as TEMPLATE_NAMES } from '../render/generated/templates.js';
import type { RenderedDocument } from '../render/render.js';
import type { PdfPrinter } from '../render/pdf.js';
import type { ServeContext } from './context.js';
import { HttpProblem, problem } from './problems.js';
import { createWorkPool, WorkRefusedError } from './work-pool.js';
import { loadWorkDocuments } from './load-work-documents.js';
import { DEFAULT_MAX_ISSUES, type WorkAnswer, type WorkMessage, type WorkReply } from './work-messages.js';
import type { WorkSettings } from './work-tasks.js';

/** Omit over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

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

/** True when the Accept header names `type` and not `otherwise` (the route's default type). */
export function asksFor(accept: string | undefined, type: string, otherwise: string): boolean {
  if (accept === undefined) return false;
  const types = accept.split(',').map((t) => t.split(';')[0]?.trim().toLowerCase());
  return types.includes(type) && !types.includes(otherwise);
}

/** PDF or HTML, as the Accept header asks (HTML by default). */
const wantsPdf = (accept: string | undefined): boolean => asksFor(accept, 'application/pdf', 'text/html');

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

/**
 * A validation or build of a body up to this size is done on the event loop:
 * its schema bounds it to a few milliseconds, less than a trip to a worker.
 * Larger ones, and every render, FHIR and FHIR validation, go to a worker.
 */
const INLINE_BYTES = 64 * 1024;

/** The default time limit of one request's work, in milliseconds. */
export const DEFAULT_WORK_TIME_LIMIT_MS = 20_000;

const WORKER_SCRIPT = new URL(`./work-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/** The answer to a request the pool refused or cut. */
function refusal(e: WorkRefusedError, timeLimitMs: number): HttpProblem {
  switch (e.reason) {
    case 'busy':
      return problem(503, 'busy', 'every worker of this server is busy and the line of waiting requests is full; try again shortly', { headers: { 'retry-after': '1' } });
    case 'time-limit':
      return problem(503, 'time-limit', `the work on this request took longer than ${timeLimitMs / 1000} s, this server's limit (--work-time-limit), and was stopped; send a smaller document`);
    case 'worker-failed':
      return problem(503, 'worker-failed', 'the worker doing this request stopped (out of memory?) and was replaced; send a smaller document');
    case 'closed':
      return problem(503, 'closing', 'the server is stopping; try again shortly', { headers: { 'retry-after': '1' } });
  }
}

/** A body's bytes in an ArrayBuffer of their own, to hand to a worker without a copy (a pooled small buffer is copied). */
function ownBytes(body: unknown): Uint8Array<ArrayBuffer> {
  if (!Buffer.isBuffer(body)) return new Uint8Array(0);
  if (body.buffer instanceof ArrayBuffer && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength) return new Uint8Array(body.buffer);
  return new Uint8Array(body);
}

/** An error a worker met that is not the caller's doing; the error handler answers 500 and logs its name. */
class WorkerInternalError extends Error {
  override name = 'WorkerInternalError';
}

export function registerCoreRoutes(app: FastifyInstance, context: ServeContext): void {
  const limits = context.options.work ?? {};
  const workers = limits.workers ?? Math.max(1, os.availableParallelism());
  const timeLimitMs = limits.timeLimitMs ?? DEFAULT_WORK_TIME_LIMIT_MS;
  const maxIssues = limits.maxIssues ?? DEFAULT_MAX_ISSUES;
  const { icd10Titles } = context.options;
  const settings: WorkSettings = icd10Titles === undefined ? {} : { icd10Titles };
  const pool = createWorkPool({ script: WORKER_SCRIPT, size: workers, maxWaiting: limits.maxWaiting ?? 4 * workers, timeLimitMs, workerData: settings });
  app.addHook('onClose', () => pool.close());
  const now = (): number => context.options.now().getTime();

  /** Runs one task (on a worker unless it is a small validation or build): its answer, or the problem it found or met. */
  const work = async (task: DistributiveOmit<WorkMessage, 'body' | 'now' | 'maxIssues'>, body: unknown): Promise<WorkAnswer> => {
    const bytes = ownBytes(body);
    const message = { ...task, body: bytes, now: now(), maxIssues } as WorkMessage;
    const inline = bytes.byteLength <= INLINE_BYTES && (message.kind === 'validate' || message.kind === 'build');
    const reply = inline
      ? (await loadWorkDocuments()).runDocumentWork(message)
      : ((await pool.run(message, [bytes.buffer]).catch((e: unknown) => {
          throw e instanceof WorkRefusedError ? refusal(e, timeLimitMs) : e;
        })) as WorkReply);
    if ('problem' in reply) throw new HttpProblem(reply.problem.status, reply.problem.issues, {}, reply.problem.extra);
    if ('internal' in reply) throw new WorkerInternalError(reply.internal);
    return reply.answer;
  };
  const send = (reply: FastifyReply, answer: WorkAnswer): FastifyReply => {
    if (answer.warnings !== undefined) reply.header('x-abha-link-warnings', String(answer.warnings));
    return reply.code(answer.status).send(answer.json);
  };

  // The bodies of these routes are parsed by the worker, not here: their routes keep the raw bytes.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    scope.post<{ Querystring: { schema: string; lint: boolean } }>('/v1/validate', { schema: { querystring: QUERY.validate } }, async (request, reply) =>
      send(reply, await work({ kind: 'validate', schema: request.query.schema, lint: request.query.lint }, request.body)),
    );

    scope.post<{ Querystring: { lint: boolean } }>('/v1/build', { schema: { querystring: QUERY.build } }, async (request, reply) =>
      send(reply, await work({ kind: 'build', lint: request.query.lint }, request.body)),
    );

    scope.post<{ Querystring: { template: string; lang: Language; size: PageSize; index?: number } }>('/v1/render', { schema: { querystring: QUERY.render } }, async (request, reply) => {
      const q = request.query;
      const answer = await work({ kind: 'render', template: q.template, lang: q.lang, size: q.size, index: q.index }, request.body);
      if (answer.document === undefined) return send(reply, answer);
      return sendDocument(context, reply, answer.document, request.headers.accept, answer.warnings ?? 0);
    });

    scope.post<{ Querystring: { hiType?: string; index?: number } }>('/v1/fhir', { schema: { querystring: QUERY.fhir } }, async (request, reply) => {
      const answer = await work({ kind: 'fhir', hiType: request.query.hiType, index: request.query.index }, request.body);
      if (answer.text === undefined) return send(reply, answer);
      return reply
        .header('x-abha-link-warnings', String(answer.warnings ?? 0))
        .type('application/fhir+json; charset=utf-8')
        .send(answer.text);
    });

    /** FHIR validation: `{ valid, errors, warnings }`, or a FHIR OperationOutcome (`outcome`), as other FHIR tools expect. */
    const fhirValidate = async (body: unknown, reply: FastifyReply, outcome: boolean): Promise<FastifyReply> => {
      const answer = await work({ kind: 'fhir-validate', outcome }, body);
      if (answer.text === undefined) return send(reply, answer);
      return reply.code(answer.status).type('application/fhir+json; charset=utf-8').send(answer.text);
    };
    scope.post('/v1/fhir/validate', { schema: { querystring: QUERY.none } }, async (request, reply) =>
      fhirValidate(request.body, reply, /\bapplication\/fhir\+json\b/i.test(request.headers.accept ?? '')),
    );
    // FHIR's own operation name, for tools that call $validate on a server's Bundle type.
    scope.post('/v1/fhir/Bundle/$validate', { schema: { querystring: QUERY.none } }, async (request, reply) => fhirValidate(request.body, reply, true));
  });
}
