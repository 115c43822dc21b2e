/**
 * The HTTP service of `abha-link serve` as a fastify instance: what the CLI
 * listens with and what tests call with `app.inject()`. Every route needs
 * the bearer token but the public ones, which say so in their route config
 * (`config: { public: true }`: /healthz, /readyz, /openapi.json and the
 * playground page /); the check is made on the route the router matched, so
 * no spelling of a path gets around it. Logs are JSON lines (pino) that name
 * the route pattern, the status and the time, never a URL, header or body.
 */
import { randomUUID } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { bearerCheck } from './auth.js';
import { parseJsonBody } from './json-body.js';
import { lazySchemaController } from './lazy-validators.js';
import { DEFAULT_TIMEOUTS, hasBody, hostAllowed, JSON_MEDIA_TYPE, normalizeTarget, pathProblem, sameOrigin, type HostPolicy } from './request-guard.js';
export { DEFAULT_TIMEOUTS, type ServeTimeouts } from './request-guard.js';
import { notFoundHandler, trackRouteMethods } from './methods.js';
import { createMetrics, type ServeMetrics } from './metrics.js';
import { HttpProblem, problem, validationIssues, type ServeIssue } from './problems.js';
import { registerCoreRoutes } from './routes-core.js';
import { registerOpsRoutes } from './routes-ops.js';
import { registerServiceRoutes } from './routes-service.js';
import { registerSubmissionRoutes } from './routes-submissions.js';
import type { ServeAppOptions, ServeContext } from './context.js';

export type { ServeAppOptions, ServeContext } from './context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route anyone may call without the token (health, readiness, the OpenAPI document, the playground). */
    public?: boolean;
  }
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

/** The Host policy of a server that listens on `listenHost` (the interfaces' addresses are read at most every 10 s). */
function hostPolicy(options: ServeAppOptions): HostPolicy {
  let addresses: { at: number; set: ReadonlySet<string> } | undefined;
  const localAddresses = (): ReadonlySet<string> => {
    if (addresses === undefined || Date.now() - addresses.at > 10_000) {
      const set = new Set(Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.toLowerCase())));
      addresses = { at: Date.now(), set };
    }
    return addresses.set;
  };
  return { listenHost: options.listenHost ?? '127.0.0.1', allowedHosts: options.allowedHosts ?? [], localAddresses };
}

/** The problems the hooks answer with, made once. */
const REFUSALS = {
  host: problem(421, 'host-not-allowed', 'the Host header does not name this server: use the address it listens on or a loopback name, or start it with --allowed-host NAME for a name of yours', {
    in: 'header',
    path: '/host',
  }),
  origin: problem(403, 'origin-not-allowed', 'requests from another web page (an Origin other than this server) are refused; call the service from your server, not from a browser', {
    in: 'header',
    path: '/origin',
  }),
  unauthorized: problem(401, 'unauthorized', 'this route needs Authorization: Bearer TOKEN (the token of ABHA_LINK_SERVE_TOKEN or --token-file)', { in: 'header', path: '/authorization' }),
  mediaType: problem(415, 'unsupported-media-type', 'the body must be JSON, sent with Content-Type: application/json', { in: 'header', path: '/content-type' }),
};

/** Whether a request may reach its route, or the refusal to answer (in this order: path, Host, then for non-public routes Origin, token, body type). */
function refusalOf(
  request: FastifyRequest,
  policy: HostPolicy,
  authorized: (request: FastifyRequest) => boolean,
): { status: number; issues: readonly ServeIssue[]; headers?: Record<string, string> } | undefined {
  const odd = pathProblem(request.url);
  if (odd !== undefined) return { status: 400, issues: problem(400, 'invalid-path', `the path has ${odd}; send it in its plain form`, { in: 'path' }).issues };
  const h = request.headers;
  if (!hostAllowed(h.host, policy)) return { status: 421, issues: REFUSALS.host.issues };
  if (request.routeOptions.config.public === true) return undefined;
  if (!sameOrigin(h.origin, h.host)) return { status: 403, issues: REFUSALS.origin.issues };
  if (!authorized(request)) return { status: 401, issues: REFUSALS.unauthorized.issues, headers: { 'www-authenticate': 'Bearer realm="abha-link"' } };
  if (hasBody(h) && !JSON_MEDIA_TYPE.test(h['content-type'] ?? '')) return { status: 415, issues: REFUSALS.mediaType.issues };
  return undefined;
}

/**
 * The hooks every request goes through, in one place (callback hooks: they
 * cost less than async ones on the hot path): the request id header; the
 * checks of {@link refusalOf}, decided on the route the router matched
 * (public routes say so in their config; every other one needs the token);
 * the concurrency limit, counting only authorised work whose body is in;
 * one log line and the metrics when the answer is out; and, while the server
 * closes, the end of keep-alive connections once their answers are out (a
 * client's idle connection would otherwise hold close() open).
 */
function addRequestHooks(app: FastifyInstance, options: ServeAppOptions, metrics: ServeMetrics, authorized: (request: FastifyRequest) => boolean): void {
  const max = options.maxConcurrent ?? 64;
  const policy = hostPolicy(options);
  let inFlight = 0;
  let closing = false;
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    const refusal = refusalOf(request, policy, authorized);
    if (refusal !== undefined) {
      sendProblem(reply, refusal.status, refusal.issues, refusal.headers);
      return;
    }
    done();
  });
  // After the body is in (preValidation): a client that is slow to send it holds no place.
  app.addHook('preValidation', (request, reply, done) => {
    if (request.routeOptions.config.public === true) return done();
    if (inFlight >= max) {
      sendProblem(reply, 503, problem(503, 'overloaded', `the server is handling ${max} requests; try again shortly`).issues, { 'retry-after': '1' });
      return;
    }
    // Counted until the answer is out or the connection is gone, whichever comes first ('close' fires for both).
    inFlight++;
    reply.raw.once('close', () => inFlight--);
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
  const t = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
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
    // Each route's schema compiled by its first request, not before the server listens.
    schemaController: lazySchemaController(),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // One spelling of each path before the router and the checks see it (/%76%31/x is /v1/x).
    rewriteUrl: (req) => normalizeTarget(req.url ?? '/'),
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    // Node checks the header and request time limits this often (its default, 30 s, would let them run far over).
    http: { headersTimeout: t.headersMs, requestTimeout: t.requestMs, connectionsCheckingInterval: Math.max(50, Math.min(1000, t.headersMs / 4, t.requestMs / 4)) },
  });
  const metrics = createMetrics(options.queue);
  const check = options.token === undefined ? undefined : bearerCheck(options.token);
  const authorized = (request: FastifyRequest): boolean => check === undefined || check(request.headers.authorization);
  addRequestHooks(app, options, metrics, authorized);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.setErrorHandler(onError);
  const methods = trackRouteMethods(app);
  app.setNotFoundHandler(notFoundHandler(methods));
  const context: ServeContext = { options, authorized };
  registerOpsRoutes(app, context, metrics);
  registerCoreRoutes(app, context);
  registerSubmissionRoutes(app, context);
  registerServiceRoutes(app, context);
  await app.ready();
  return app;
}
