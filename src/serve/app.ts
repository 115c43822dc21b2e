/**
 * The HTTP service of `abha-link serve` as a fastify instance: what the CLI
 * listens with and what tests call with `app.inject()`. Every /v1 route needs
 * the bearer token; /healthz, /readyz, /metrics, /openapi.json and the
 * playground (/) do not. Logs are JSON lines (pino) that name the route
 * pattern, the status and the time, never a URL, header or body.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AbhaClient } from '../client/client.js';
import type { PdfPrinter } from '../render/pdf.js';
import { bearerCheck } from './auth.js';
import { parseJsonBody } from './json-body.js';
import { notFoundHandler, trackRouteMethods } from './methods.js';
import { createMetrics, type ServeMetrics } from './metrics.js';
import { HttpProblem, problem, validationIssues, type ServeIssue } from './problems.js';
import type { Queue } from './queue-contract.js';
import { registerCoreRoutes } from './routes-core.js';
import { registerOpsRoutes } from './routes-ops.js';
import { registerServiceRoutes } from './routes-service.js';
import { registerSubmissionRoutes } from './routes-submissions.js';

/** Options of {@link createServeApp}. */
export interface ServeAppOptions {
  /** The bearer token every /v1 request must carry; undefined: /v1 needs none (loopback only: the CLI checks). */
  readonly token?: string;
  /** The client of the upstream service (identity pass-through, readiness); undefined when none is configured. */
  readonly client?: AbhaClient;
  /** The submissions queue; undefined: the submissions routes answer 503. */
  readonly queue?: Queue;
  /** The clock (lint rules, FHIR timestamps). */
  readonly now: () => Date;
  /** Where JSON log lines go; none: no logs. */
  readonly logStream?: { write(line: string): unknown };
  /** The largest request body, in bytes (default 8 MiB). */
  readonly bodyLimit?: number;
  /** Requests handled at once; more are answered 503 with Retry-After (default 64). */
  readonly maxConcurrent?: number;
  /** Whether the upstream service answers (for /readyz); default: true when a client is configured. */
  readonly probeUpstream?: () => Promise<boolean>;
  /** Opens the PDF printer (a Chromium) on the first PDF request; rejects with a PdfUnavailableError when there is none. */
  readonly openPrinter?: () => Promise<PdfPrinter>;
}

/** What the routes share. */
export interface ServeContext {
  readonly options: ServeAppOptions;
}

/** A request id given by the caller is kept when it is short and plain; otherwise a new one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

function sendProblem(reply: FastifyReply, status: number, issues: readonly ServeIssue[], headers: Readonly<Record<string, string>> = {}, extra: Readonly<Record<string, unknown>> = {}): FastifyReply {
  return reply
    .code(status)
    .headers(headers)
    .type('application/json; charset=utf-8')
    .send({ ...extra, issues });
}

/** Turns every error into `{ issues }` with a fitting status; logs only its name and code, never its message. */
function onError(error: FastifyError | HttpProblem | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof HttpProblem) return sendProblem(reply, error.statusCode, error.issues, error.headers, error.extra);
  const e = error as FastifyError;
  if (e.validation !== undefined) {
    const given = e.validationContext === 'params' ? request.params : request.query;
    return sendProblem(reply, 400, validationIssues(e.validation as never, e.validationContext, given));
  }
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendProblem(reply, 413, problem(413, 'body-too-large', 'the request body is larger than this server accepts').issues);
  if (e.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') return sendProblem(reply, 400, problem(400, 'invalid-content-length', 'the Content-Length header does not match the body').issues);
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return sendProblem(reply, e.statusCode, problem(e.statusCode, 'bad-request', 'the request could not be read').issues);
  }
  request.log.error({ reqId: request.id, err: { name: error.name, code: e.code } }, 'internal error');
  return sendProblem(reply, 500, problem(500, 'internal', `internal error (request ${request.id}); the server's log has the details`).issues);
}

/** The JSON logger: what is logged is chosen in the hooks below; these paths are redacted should anything ever carry them. */
function loggerOptions(stream: ServeAppOptions['logStream']): object | false {
  if (stream === undefined) return false;
  return {
    level: 'info',
    stream,
    base: { service: 'abha-link-serve' },
    redact: { paths: ['req.headers', 'req.body', 'req.url', 'req.query', 'headers', 'body', 'authorization', 'apiKey', 'token', 'otp', 'mobile'], censor: '[redacted]' },
    // Whatever fastify itself logs about a request or an error: no URL, header, body or message (they can hold data).
    serializers: { req: () => undefined, res: () => undefined, err: (e: { name?: unknown; code?: unknown }) => ({ name: String(e.name), code: String(e.code) }) },
  };
}

/**
 * The hooks every request goes through, in one place (callback hooks: they
 * cost less than async ones on the hot path): the request id header, the
 * concurrency limit, the bearer token on /v1 routes, one log line and the
 * metrics when the answer is out, and, while the server closes, the end of
 * keep-alive connections once their answers are out (a client's idle
 * connection would otherwise hold close() open).
 */
function addRequestHooks(app: FastifyInstance, options: ServeAppOptions, metrics: ServeMetrics): void {
  const max = options.maxConcurrent ?? 64;
  const check = options.token === undefined ? undefined : bearerCheck(options.token);
  let inFlight = 0;
  let closing = false;
  const unauthorized = problem(401, 'unauthorized', 'this route needs Authorization: Bearer TOKEN (the token of ABHA_LINK_SERVE_TOKEN or --token-file)', { in: 'header', path: '/authorization' });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    if (inFlight >= max) {
      sendProblem(reply, 503, problem(503, 'overloaded', `the server is handling ${max} requests; try again shortly`).issues, { 'retry-after': '1' });
      return;
    }
    // Counted until the answer is out or the connection is gone, whichever comes first ('close' fires for both).
    inFlight++;
    reply.raw.once('close', () => inFlight--);
    if (check !== undefined && request.url.startsWith('/v1') && !check(request.headers.authorization)) {
      sendProblem(reply, 401, unauthorized.issues, { 'www-authenticate': 'Bearer realm="abha-link"' });
      return;
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    request.log.info({ reqId: request.id, method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
    // The connection becomes idle once this answer is out: close it then.
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
}

/**
 * Creates the service (not listening yet: call `listen`, or `inject` in tests).
 *
 * @example
 * const app = await createServeApp({ token: 's3cret', now: () => new Date() })
 * await app.inject({ method: 'POST', url: '/v1/validate', headers: { authorization: 'Bearer s3cret' }, payload: request })
 */
export async function createServeApp(options: ServeAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(options.logStream),
    // No child logger per request: the one line per request (the onResponse hook) names its request id itself.
    childLoggerFactory: (logger) => logger,
    // One line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? 8 * 1024 * 1024,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: true } },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  const metrics = createMetrics(options.queue);
  addRequestHooks(app, options, metrics);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.setErrorHandler(onError);
  const methods = trackRouteMethods(app);
  app.setNotFoundHandler(notFoundHandler(methods));
  const context: ServeContext = { options };
  registerOpsRoutes(app, context, metrics);
  registerCoreRoutes(app, context);
  registerSubmissionRoutes(app, context);
  registerServiceRoutes(app, context);
  await app.ready();
  return app;
}
