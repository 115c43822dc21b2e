/**
 * The submissions routes: a link request (or a clinical input, built first)
 * is validated and linted as `abha-link submit` does, stored in the queue and
 * answered 202 before it is sent; the same request again is the same
 * submission (200), the same item with another body a 409
 * `different-body`; a failed one is corrected with PUT. A storage outage is
 * a 503 with Retry-After: the caller tries again, nothing was stored.
 */
import type { FastifyInstance } from 'fastify';
import type { ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import { safeBuildLinkRequest } from '../builders/link-request.js';
import { detectInputKind } from '../input-kind.js';
import type { ServeContext } from './context.js';
import { requireBody } from './json-body.js';
import { isQueueError } from './queue/types.js';
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

/** Seconds a caller waits before trying again after a storage outage. */
const STORAGE_RETRY_AFTER = '5';

/** The queue's refusals and outages as answers; anything else is left to the error handler. */
function queueProblem(e: unknown): unknown {
  if (!isQueueError(e)) return e;
  switch (e.code) {
    case 'storage-failed':
    case 'closed':
      return problem(503, 'storage-unavailable', "the queue's storage is unavailable; nothing was changed: try again later", { headers: { 'retry-after': STORAGE_RETRY_AFTER } });
    case 'different-body':
      return new HttpProblem(
        409,
        [
          {
            path: '',
            code: 'different-body',
            message: `${e.message}; the stored body's SHA-256 is storedBodySha256 (see docs/serve.md); a failed submission can be corrected with PUT /v1/submissions/{id}`,
            severity: 'error',
          },
        ],
        {},
        { storedBodySha256: e.storedBodySha256 },
      );
    case 'not-replaceable':
    case 'different-item':
      return problem(409, e.code, e.message, { path: e.code === 'not-replaceable' ? '/id' : '', ...(e.code === 'not-replaceable' ? { in: 'path' as const } : {}) });
    default:
      return e;
  }
}

/** Runs a call of the queue, its refusals and outages turned into answers. */
async function queueCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw queueProblem(e);
  }
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
    const queue = queueOf(context);
    const { submission, created } = await queueCall(() => queue.enqueue(linkRequest, callbackUrl === undefined ? {} : { callbackUrl }));
    return reply
      .code(created ? 202 : 200)
      .header('location', `/v1/submissions/${encodeURIComponent(submission.id)}`)
      .send({ id: submission.id, status: submission.status });
  });

  app.get<{ Querystring: { status?: SubmissionStatus; limit: number } }>('/v1/submissions', { schema: { querystring: SUBMISSION_QUERY.list } }, async (request) => {
    const q = request.query;
    const queue = queueOf(context);
    const list = await queueCall(() => queue.list({ limit: q.limit, ...(q.status === undefined ? {} : { status: q.status }) }));
    return { submissions: list.map(submissionView) };
  });

  app.get<{ Params: { id: string } }>('/v1/submissions/:id', { schema: { params: SUBMISSION_QUERY.id } }, async (request) => {
    const queue = queueOf(context);
    const s = await queueCall(() => queue.get(request.params.id));
    if (s === undefined) throw problem(404, 'not-found', 'no submission has this id', { path: '/id', in: 'path' });
    return submissionView(s);
  });

  app.post<{ Params: { id: string } }>('/v1/submissions/:id/retry', { schema: { params: SUBMISSION_QUERY.id } }, async (request) => {
    const queue = queueOf(context);
    const r = await queueCall(() => queue.retry(request.params.id));
    if (r === 'not-found') throw problem(404, 'not-found', 'no submission has this id', { path: '/id', in: 'path' });
    if (r === 'not-retryable') throw problem(409, 'not-retryable', 'only a failed or unknown submission can be sent again', { path: '/id', in: 'path' });
    return submissionView(r);
  });

  app.put<{ Params: { id: string } }>('/v1/submissions/:id', { schema: { params: SUBMISSION_QUERY.id } }, async (request, reply) => {
    const queue = queueOf(context);
    const linkRequest = linkRequestOf(requireBody(request.body), context.options.now());
    const r = await queueCall(() => queue.replace(request.params.id, linkRequest));
    if (r === 'not-found') throw problem(404, 'not-found', 'no submission has this id', { path: '/id', in: 'path' });
    return reply.code(202).send(submissionView(r));
  });
}
