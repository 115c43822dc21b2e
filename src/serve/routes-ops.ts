/** The routes without a token: health, readiness, metrics, the OpenAPI document and the playground page. */
import type { FastifyInstance } from 'fastify';
import type { ServeContext } from './app.js';
import type { ServeMetrics } from './metrics.js';
import { buildServeOpenApi } from './openapi.js';
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

export function registerOpsRoutes(app: FastifyInstance, context: ServeContext, metrics: ServeMetrics): void {
  const { options } = context;
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const queue = options.queue;
    const [storage, upstream] = await Promise.all([settles(queue === undefined ? undefined : () => queue.ready(), 2000), settles(options.probeUpstream, 2000)]);
    const checks = { storage: storage === undefined ? 'not-configured' : storage ? 'ok' : 'failing', upstream: upstream === undefined ? 'not-configured' : upstream ? 'ok' : 'failing' };
    const ready = storage !== false && upstream !== false;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not-ready', checks });
  });

  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });

  let openapi: object | undefined;
  app.get('/openapi.json', async () => (openapi ??= buildServeOpenApi()));

  const page = playgroundHtml();
  app.get('/', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', PLAYGROUND_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .send(page),
  );
}
