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
import { detectInputKind } from '../input-kind.js';
import type { ServeContext } from './context.js';
import { requireBody } from './json-body.js';
import { isQueueError } from './queue/types.js';
import { HttpProblem, problem } from './problems.js';
import { SUBMISSION_STATUSES, type LedgerOptions, type ListOptions, type Queue, type Submission } from './queue-contract.js';
import { CURSOR_MAX_LENGTH, ledgerCsv, PAGE_DEFAULT, PAGE_MAX } from './queue/listing.js';
import { asksFor } from './routes-core.js';
import { loadWorkDocuments } from './load-work-documents.js';
import { checkCallbackUrl as checkCallbackPolicy, type CallbackAllow } from './queue/callback-policy.js';

/** The range of createdAt of a listing or the ledger. */
const RANGE = {
  from: {
    type: 'string',
    maxLength: 40,
    description: 'From this instant on (inclusive): an ISO 8601 instant with its offset (2026-11-24T09:30:00+05:30), or a date (2026-11-24: from 00:00 in India, +05:30).',
    examples: ['2026-11-24'],
  },
  to: {
    type: 'string',
    maxLength: 40,
    description: 'Before this instant (exclusive): an ISO 8601 instant with its offset, or a date (2026-11-24: through the end of that day in India).',
    examples: ['2026-11-24'],
  },
} as const;

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
    properties: {
      status: { type: 'string', enum: SUBMISSION_STATUSES },
      from: RANGE.from,
      to: RANGE.to,
      visitId: { type: 'string', minLength: 1, maxLength: 128, description: "The link request's visitId (exact)." },
      hipId: { type: 'string', minLength: 1, maxLength: 128, description: "The link request's hipId (exact)." },
      limit: { type: 'integer', minimum: 1, maximum: PAGE_MAX, default: PAGE_DEFAULT },
      cursor: { type: 'string', minLength: 1, maxLength: CURSOR_MAX_LENGTH, description: 'The nextCursor of the page before, unchanged: the next page.' },
    },
  },
  ledger: {
    type: 'object',
    additionalProperties: false,
    properties: {
      from: RANGE.from,
      to: RANGE.to,
      format: { type: 'string', enum: ['json', 'csv'], description: 'csv: the ledger as text/csv (as with Accept: text/csv).' },
    },
  },
  id: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 128 } } },
} as const;

/** A submission as the routes answer it: its state and which visit it is (no patient, no clinical content). */
export function submissionView(s: Submission): Record<string, unknown> {
  return {
    id: s.id,
    status: s.status,
    attempts: s.attempts,
    ...(s.error === undefined ? {} : { error: s.error }),
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    ...(s.visitId === undefined ? {} : { visitId: s.visitId }),
    ...(s.hipId === undefined ? {} : { hipId: s.hipId }),
    careContextReferences: s.careContextReferences,
    hiTypes: s.hiTypes,
  };
}

/** A callback URL as the rules allow it (queue/callback-policy.ts), or a 400 naming /callbackUrl. */
function checkCallbackUrl(raw: string | undefined, allow: readonly CallbackAllow[]): string | undefined {
  if (raw === undefined) return undefined;
  const verdict = checkCallbackPolicy(raw, allow);
  if (!verdict.ok) throw problem(400, 'invalid-parameter', verdict.reason, { path: '/callbackUrl', in: 'query' });
  return verdict.url.href;
}

/** The link request to queue: the body itself, or the one built from a clinical input; every issue is a 422. */
async function linkRequestOf(body: unknown, now: Date): Promise<LinkCareContextRequest> {
  const { safeBuildLinkRequest, validateDocument } = await loadWorkDocuments();
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
    case 'invalid-options':
      // A query parameter of a listing or the ledger: each issue names it.
      return new HttpProblem(
        400,
        e.issues.map((i) => ({ ...i, in: 'query' as const })),
      );
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
    const linkRequest = await linkRequestOf(requireBody(request.body), context.options.now());
    const queue = queueOf(context);
    const { submission, created } = await queueCall(() => queue.enqueue(linkRequest, callbackUrl === undefined ? {} : { callbackUrl }));
    return reply
      .code(created ? 202 : 200)
      .header('location', `/v1/submissions/${encodeURIComponent(submission.id)}`)
      .send({ id: submission.id, status: submission.status });
  });

  app.get<{ Querystring: ListOptions }>('/v1/submissions', { schema: { querystring: SUBMISSION_QUERY.list } }, async (request) => {
    const queue = queueOf(context);
    const page = await queueCall(() => queue.list(request.query));
    return { submissions: page.submissions.map(submissionView), ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
  });

  app.get<{ Querystring: LedgerOptions & { format?: 'json' | 'csv' } }>('/v1/submissions/ledger', { schema: { querystring: SUBMISSION_QUERY.ledger } }, async (request, reply) => {
    const { format, ...range } = request.query;
    const queue = queueOf(context);
    const ledger = await queueCall(() => queue.ledger(range));
    const csv = format === 'csv' || (format === undefined && asksFor(request.headers.accept, 'text/csv', 'application/json'));
    if (!csv) return ledger;
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="abha-link-ledger.csv"').send(ledgerCsv(ledger));
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
    const linkRequest = await linkRequestOf(requireBody(request.body), context.options.now());
    const r = await queueCall(() => queue.replace(request.params.id, linkRequest));
    if (r === 'not-found') throw problem(404, 'not-found', 'no submission has this id', { path: '/id', in: 'path' });
    return reply.code(202).send(submissionView(r));
  });
}
