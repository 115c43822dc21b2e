/** The operations routes: health, readiness, the OpenAPI document and the playground page (public), and the metrics (with the token). */
import type { FastifyInstance } from 'fastify';
import type { ServeContext } from './context.js';
import type { ServeMetrics } from './metrics.js';
import { PLAYGROUND_CSP, playgroundHtml } from './playground.js';

/** Resolves to false instead of rejecting, and after at most `ms`. */
async function settles(check: (() => Promise<boolean>) | undefined, ms: number): Promise<boolean | undefined> {
  if (check === undefined) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([check().catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What /readyz answers. */
interface Readiness {
  readonly ready: boolean;
  readonly checks: { readonly storage: string; readonly upstream: string };
}

/** One check of the storage and the upstream, each within 2 s. */
async function checkReadiness(options: ServeContext['options']): Promise<Readiness> {
  const queue = options.queue;
  const [storage, upstream] = await Promise.all([settles(queue === undefined ? undefined : () => queue.ready(), 2000), settles(options.probeUpstream, 2000)]);
  const stored = storage === undefined ? 'not-configured' : storage ? 'ok' : queue?.starting?.() === true ? 'starting' : 'failing';
  const checks = { storage: stored, upstream: upstream === undefined ? 'not-configured' : upstream ? 'ok' : 'failing' };
  return { ready: storage !== false && upstream !== false, checks };
}

/**
 * `check` run at most once at a time: a caller arriving while one runs
 * shares it; `get(maxAgeMs)` answers the last result while it is younger
 * than that, so that callers without a token cannot make the server call
 * upstream at will.
 */
export function sharedCheck<T>(check: () => Promise<T>, clock: () => number = Date.now): (maxAgeMs: number) => Promise<T> {
  let last: { at: number; value: T } | undefined;
  let running: Promise<T> | undefined;
  return (maxAgeMs) => {
    if (last !== undefined && clock() - last.at < maxAgeMs) return Promise.resolve(last.value);
    running ??= check().then(
      (value) => {
        last = { at: clock(), value };
        running = undefined;
        return value;
      },
      (e: unknown) => {
        running = undefined;
        throw e;
      },
    );
    return running;
  };
}

export function registerOpsRoutes(app: FastifyInstance, context: ServeContext, metrics: ServeMetrics): void {
  const { options } = context;
  const open = { config: { public: true } };
  app.get('/healthz', open, async () => ({ status: 'ok' }));

  const readiness = sharedCheck(() => checkReadiness(options));
  const maxAge = options.readinessMaxAgeMs ?? 5000;
  app.get('/readyz', open, async (request, reply) => {
    // With the token: a fresh check; without: the last one while it is young.
    const r = await readiness(context.authorized(request) && request.headers.authorization !== undefined ? 0 : maxAge);
    return reply.code(r.ready ? 200 : 503).send({ status: r.ready ? 'ready' : 'not-ready', checks: r.checks });
  });

  app.get('/metrics', async (_request, reply) => {
    const { contentType, text } = await metrics.exposition();
    return reply.type(contentType).send(text);
  });

  // Built (and its module loaded) on the first request, not at start-up.
  let openapi: object | undefined;
  app.get('/openapi.json', open, async () => (openapi ??= (await import('./openapi.js')).buildServeOpenApi()));

  const page = playgroundHtml();
  app.get('/', open, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', PLAYGROUND_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .send(page),
  );
}
