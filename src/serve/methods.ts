/**
 * 404 or 405: the answer for a request no route takes. A path the service
 * knows, asked with a method it does not answer there, is `405 Method Not
 * Allowed` with `Allow` listing the methods it does answer (RFC 9110
 * §15.5.6); any other path is 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problem, type HttpProblem } from './problems.js';

/** A route's path pattern (`/v1/submissions/:id/retry`) as a regular expression over a request's path. */
function patternOf(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}

/** The methods each known path answers, filled as routes are added. */
export interface RouteMethods {
  /** The methods the routes answer at `path` (a request's path, without the query), sorted; empty for an unknown path. */
  allowed(path: string): string[];
}

/**
 * Records the method of every route added to `app` from now on: call it
 * before the routes are registered.
 *
 * @example
 * const methods = trackRouteMethods(app) // then register the routes
 * methods.allowed('/v1/submissions/0b0f…/retry') //=> ['POST']
 */
export function trackRouteMethods(app: FastifyInstance): RouteMethods {
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = patternOf(route.url ?? route.path);
    const known = routes.find((r) => r.pattern.source === pattern.source);
    if (known === undefined) routes.push({ pattern, methods: new Set(methods) });
    else for (const m of methods) known.methods.add(m);
  });
  return {
    allowed(path) {
      const found = new Set<string>();
      for (const r of routes) if (r.pattern.test(path)) for (const m of r.methods) found.add(m);
      return [...found].sort();
    },
  };
}

/**
 * The problem for a request no route took: 405 with `Allow` when its path is
 * known, else 404. Neither repeats the path (it could hold data).
 *
 * @example
 * unroutedProblem('DELETE', ['GET', 'HEAD', 'POST']) //=> 405, code method-not-allowed, headers { allow: 'GET, HEAD, POST' }
 */
export function unroutedProblem(method: string, allowed: readonly string[]): HttpProblem {
  if (allowed.length === 0) return problem(404, 'not-found', `no route ${method} for this path; GET /openapi.json lists the routes`);
  const allow = allowed.join(', ');
  return problem(405, 'method-not-allowed', `${method} is not allowed on this path; it answers ${allow} (GET /openapi.json lists the routes)`, { headers: { allow } });
}

/**
 * The not-found handler of the service: 405 with `Allow` for a known path
 * asked with another method, else 404 (see {@link unroutedProblem}).
 */
export function notFoundHandler(methods: RouteMethods): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request) => {
    const path = request.url.split('?')[0] ?? '';
    throw unroutedProblem(request.method, methods.allowed(path));
  };
}
