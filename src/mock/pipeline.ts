/**
 * The way of a request through the mock: route it (an endpoint of the spec,
 * `/openapi.json` or `/__mock/...`), then for an endpoint: method, body size,
 * authentication, Content-Type, JSON, the request schema, the fault rules and
 * the handler. One `request` event per request names the endpoint id, never
 * the raw path.
 *
 * How the mock answers (the spec shows no status codes, so these are ours):
 * - schema violations: 400 with `success: false` and a message naming the
 *   field (`status: false` on the token endpoint);
 * - a wrong API key, a missing, malformed, expired or revoked bearer token: 401;
 * - business failures (wrong or expired OTP, unknown txnId, invalid session
 *   token, a link request already linked with `linkRepeats: 'already-linked'`):
 *   200 with `success: false`, the spec's only documented failure signal;
 * - unknown paths 404, other methods 405, a Content-Type other than
 *   application/json 415, non-JSON bodies 400, bodies over the limit 413 (and
 *   the connection closed), all with the envelope.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { summarizeIssues, type Issue } from '../errors.js';
import type { SchemaName } from '../generated/manifest.js';
import type * as T from '../generated/types.js';
import { ENDPOINT_BY_ID, ENDPOINT_IDS, type Endpoint } from '../spec/endpoints.js';
import { validate } from '../validation/validate.js';
import { controlReply } from './control.js';
import { answerEndpoint } from './endpoints.js';
import type { Fault } from './faults.js';
import { authorizationProblem, closingAfter, jsonMediaType, readBody, requestIdOf, send } from './http.js';
import { buildOpenApiDocument } from './openapi.js';
import { fail, failIn, type Reply } from './reply.js';
import type { MockEvent } from './types.js';
import type { MockState } from './state.js';

/** What the pipeline needs besides the state. */
export interface PipelineConfig {
  readonly maxBodyBytes: number;
  readonly emit: (event: MockEvent) => void;
  /** The server's URL, for the OpenAPI document (known once it listens). */
  readonly url: () => string;
}

const ENDPOINT_BY_PATH: ReadonlyMap<string, Endpoint> = new Map(Object.values(ENDPOINT_BY_ID).map((e) => [e.path, e]));

/** One request and its answer: the event is reported once, with the status sent (or `dropped` / `hung`). */
class Exchange {
  readonly started = performance.now();
  readonly path: string;
  readonly method: string;
  readonly requestId: string | undefined;
  /** The endpoint id, `openapi`, `mock-control` or `unknown`: a path is whatever the client sent. */
  readonly endpoint: string;
  fault: Fault['type'] | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly emit: (event: MockEvent) => void,
  ) {
    this.path = (req.url ?? '/').split('?')[0] ?? '/';
    this.method = req.method ?? 'GET';
    this.requestId = requestIdOf(req);
    const ep = ENDPOINT_BY_PATH.get(this.path);
    this.endpoint = ep?.id ?? (this.path === '/openapi.json' ? 'openapi' : this.path.startsWith('/__mock/') ? 'mock-control' : 'unknown');
  }

  report(status: number | 'dropped' | 'hung'): void {
    this.emit({
      type: 'request',
      method: this.method,
      endpoint: this.endpoint,
      status,
      ms: Math.round((performance.now() - this.started) * 10) / 10,
      ...(this.fault === undefined ? {} : { fault: this.fault }),
      ...(this.requestId === undefined ? {} : { requestId: this.requestId }),
    });
  }

  answer(reply: Reply): void {
    send(this.res, reply);
    this.report(reply.status);
  }

  /** Closes the connection without an answer. */
  drop(): void {
    this.req.socket.destroy();
    this.report('dropped');
  }
}

/** The failure a checked body gets: 400 naming the first field, and up to 20 issues in data. */
function schemaViolation(ep: Endpoint, issues: readonly Issue[]): Reply {
  const errors = issues.slice(0, 20).map((i) => ({ path: i.path, code: i.code, message: i.message }));
  return failIn(ep.response.envelope, 400, issues.length === 0 ? 'the request body does not match the spec' : summarizeIssues(issues), { errors });
}

/**
 * Applies a fault before the handler: `answered` when the fault answered (or
 * dropped, or hung) the request, `go-on` when the handler is to run.
 */
async function faultBefore(ex: Exchange, ep: Endpoint, fault: Fault): Promise<'answered' | 'go-on'> {
  const env = ep.response.envelope;
  switch (fault.type) {
    case 'latency':
      await new Promise((r) => setTimeout(r, fault.ms));
      return ex.res.destroyed ? 'answered' : 'go-on';
    case 'status': {
      const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) };
      ex.answer({ ...failIn(env, fault.status, fault.message ?? `injected HTTP ${fault.status}`), headers });
      return 'answered';
    }
    case 'envelope-failure':
      ex.answer(failIn(env, 200, fault.message ?? 'injected failure'));
      return 'answered';
    case 'drop':
      if (fault.when === 'after') return 'go-on';
      ex.drop();
      return 'answered';
    case 'hang':
      ex.report('hung');
      return 'answered';
    case 'expire-token':
      if (ep.auth !== 'bearer') return 'go-on';
      ex.answer(fail(401, 'the bearer token has expired; get a new one from /api/m1/abha/token'));
      return 'answered';
    case 'garbage':
      return 'go-on';
  }
}

/**
 * The body of an endpoint request, checked in order: size, authentication
 * (nothing an unauthenticated client sends is counted or processed),
 * Content-Type, JSON. Undefined when the request was answered (or its body
 * could not be read).
 */
async function acceptBody(ex: Exchange, ep: Endpoint, state: MockState, maxBody: number): Promise<{ body: unknown } | undefined> {
  const env = ep.response.envelope;
  const raw = await readBody(ex.req, maxBody).catch(() => undefined);
  if (raw === undefined) return undefined;
  if (raw === 'too-large') {
    ex.answer(closingAfter(ex.req, ex.res, failIn(env, 413, `the request body is larger than ${maxBody} bytes`)));
    return undefined;
  }
  const authProblem = ep.auth === 'bearer' ? authorizationProblem(ex.req.headers.authorization, (t) => state.bearerProblem(t)) : undefined;
  if (authProblem !== undefined) {
    ex.answer(fail(401, authProblem));
    return undefined;
  }
  const media = jsonMediaType(ex.req.headers['content-type']);
  if (media !== 'ok') {
    ex.answer(failIn(env, 415, media === 'charset' ? 'Content-Type must be application/json with charset utf-8 (or no charset)' : 'Content-Type must be application/json (parameters allowed)'));
    return undefined;
  }
  try {
    return { body: JSON.parse(raw.toString('utf8')) };
  } catch {
    ex.answer(failIn(env, 400, 'the request body is not valid JSON'));
    return undefined;
  }
}

async function handleEndpoint(ex: Exchange, ep: Endpoint, state: MockState, maxBody: number): Promise<void> {
  if (ex.method !== 'POST') {
    ex.answer({ ...failIn(ep.response.envelope, 405, `${ep.path} accepts POST only`), headers: { allow: 'POST' } });
    return;
  }
  state.countRequest(ep.id);
  const accepted = await acceptBody(ex, ep, state, maxBody);
  if (accepted === undefined) return;
  // Validated once; the result serves the hook below and the handler.
  const checked = validate(`${ep.id}-request` as SchemaName, accepted.body);
  // A link request is "received" once it is authenticated and its body valid; a fault below may keep it from being processed.
  if (ep.mock?.countsReceived === true && checked.success) state.received(checked.value as T.LinkCareContextRequest);
  const fault = state.faults.take(ep.id);
  ex.fault = fault?.type;
  if (fault !== undefined && (await faultBefore(ex, ep, fault)) === 'answered') return;
  const reply = checked.success ? answerEndpoint(ep, checked.value, state) : schemaViolation(ep, checked.issues);
  if (fault?.type === 'drop') ex.drop();
  else if (fault?.type === 'garbage' && reply.status === 200) ex.answer({ status: 200, body: '<html><body>Gateway says hello</body></html>' });
  else ex.answer(reply);
}

/** The request listener of a mock server. */
export function requestListener(state: MockState, config: PipelineConfig): RequestListener {
  let openapi: string | undefined;
  const handle = async (ex: Exchange): Promise<void> => {
    if (ex.method === 'GET' && ex.path === '/openapi.json') {
      openapi ??= JSON.stringify(buildOpenApiDocument({ serverUrl: config.url() }), null, 2);
      ex.answer({ status: 200, body: JSON.parse(openapi) as unknown });
      return;
    }
    if (ex.endpoint === 'mock-control') {
      const raw = await readBody(ex.req, config.maxBodyBytes).catch(() => undefined);
      if (raw === 'too-large') ex.answer(closingAfter(ex.req, ex.res, fail(413, `the request body is larger than ${config.maxBodyBytes} bytes`)));
      else ex.answer(controlReply(ex.method, ex.path, raw, state));
      return;
    }
    const ep = ENDPOINT_BY_PATH.get(ex.path);
    if (ep === undefined) ex.answer(fail(404, `no such endpoint; GET /openapi.json lists the ${ENDPOINT_IDS.length} endpoints of the service`));
    else await handleEndpoint(ex, ep, state, config.maxBodyBytes);
  };
  return (req, res) => {
    handle(new Exchange(req, res, config.emit)).catch(() => {
      if (!res.headersSent) send(res, fail(500, 'internal error of the mock'));
      else res.destroy();
    });
  };
}
