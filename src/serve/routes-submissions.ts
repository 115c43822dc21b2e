/**
 * The submissions routes: a link request (or a clinical input, built first)
 * is validated and linted as `abha-link submit` does, stored in the queue and
 * answered 202 before it is sent; the same request again is the same
 * submission (200).
 */
import type { FastifyInstance } from 'fastify';
import type { ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import { safeBuildLinkRequest } from '../builders/link-request.js';
import { detectInputKind } from '../input-kind.js';
import type { ServeContext } from './app.js';
import { requireBody } from './json-body.js';
import { HttpProblem, problem } from './problems.js';
import { SUBMISSION_STATUSES, type Queue, type Submission, type SubmissionStatus } from './queue-contract.js';
import { validateDocument } from './routes-core.js';
import { checkCallbackUrl as checkCallbackPolicy, type CallbackAllow } from './queue/callback-policy.js';

export const SUBMISSION_QUERY = {
  create: {
    type: 'object',
    additionalProperties: false,
    properties: {
      callbackUrl: {
        type: 'string',
        maxLength: 2048,
        description: 'https URL of a public address (or of a host allowed with --callback-allow; http only to an allowed loopback port) called with the final status',
      },
    },
  },
  list: {
    type: 'object',
    additionalProperties: false,
    properties: { status: { type: 'string', enum: SUBMISSION_STATUSES }, limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
  },
  id: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 128 } } },
} as const;

/** A submission as the routes answer it. */
export function submissionView(s: Submission): Record<string, unknown> {
  return { id: s.id, status: s.status, attempts: s.attempts, ...(s.error === undefined ? {} : { error: s.error }), createdAt: s.createdAt, updatedAt: s.updatedAt };
}

/** A callback URL as the rules allow it (queue/callback-policy.ts), or a 400 naming /callbackUrl. */
function checkCallbackUrl(raw: string | undefined, allow: readonly CallbackAllow[]): string | undefined {
  if (raw === undefined) return undefined;
  const verdict = checkCallbackPolicy(raw, allow);
  if (!verdict.ok) throw problem(400, 'invalid-parameter', verdict.reason, { path: '/callbackUrl', in: 'query' });
  return verdict.url.href;
}

/** The link request to queue: the body itself, or the one built from a clinical input; every issue is a 422. */
function linkRequestOf(body: unknown, now: Date): LinkCareContextRequest {
  if (detectInputKind(body) === 'clinical-input') {
    const built = safeBuildLinkRequest(body as ClinicalInput, { lint: { now } });
    if (!built.success) throw new HttpProblem(422, built.issues);
    return built.value;
  }
  const checked = validateDocument(body, 'link-carecontext-request', true, now);
  if (!checked.valid) throw new HttpProblem(422, checked.errors);
  return body as LinkCareContextRequest;
}

function queueOf(context: ServeContext): Queue {
  const q = context.options.queue;
  if (q === undefined) throw problem(503, 'queue-unavailable', 'this server has no submissions queue');
  return q;
}

export function registerSubmissionRoutes(app: FastifyInstance, context: ServeContext): void {
  app.post<{ Querystring: { callbackUrl?: string } }>('/v1/submissions', { schema: { querystring: SUBMISSION_QUERY.create } }, async (request, reply) => {
    const callbackUrl = checkCallbackUrl(request.query.callbackUrl, context.options.callbackAllow ?? []);
    const linkRequest = linkRequestOf(requireBody(request.body), context.options.now());
    const { submission, created } = await queueOf(context).enqueue(linkRequest, callbackUrl === undefined ? {} : { callbackUrl });
    return reply
      .code(created ? 202 : 200)
      .header('location', `/v1/submissions/${encodeURIComponent(submission.id)}`)
      .send({ id: submission.id, status: submission.status });
  });

  app.get<{ Querystring: { status?: SubmissionStatus; limit: number } }>('/v1/submissions', { schema: { querystring: SUBMISSION_QUERY.list } }, async (request) => {
    const q = request.query;
    const list = await queueOf(context).list({ limit: q.limit, ...(q.status === undefined ? {} : { status: q.status }) });
    return { submissions: list.map(submissionView) };
  });

  app.get<{ Params: { id: string } }>('/v1/submissions/:id', { schema: { params: SUBMISSION_QUERY.id } }, async (request) => {
    const s = await queueOf(context).get(request.params.id);
    if (s === undefined) throw problem(404, 'not-found', 'no submission has this id', { path: '/id', in: 'path' });
    return submissionView(s);
  });

  app.post<{ Params: { id: string } }>('/v1/submissions/:id/retry', { schema: { params: SUBMISSION_QUERY.id } }, async (request) => {
    const r = await queueOf(context).retry(request.params.id);
    if (r === 'not-found') throw problem(404, 'not-found', 'no submission has this id', { path: '/id', in: 'path' });
    if (r === 'not-retryable') throw problem(409, 'not-retryable', 'only a failed or unknown submission can be sent again', { path: '/id', in: 'path' });
    return submissionView(r);
  });
}
