/**
 * The identity endpoints of the spec (search, OTP, verifications, profiles)
 * passed through under /v1/service/<the spec's path>: the request is checked
 * against the endpoint's request schema, sent by the client with the
 * server's API key and bearer token, and the answer checked against its
 * response schema before it is returned. The link call is not here: it goes
 * through the queue (/v1/submissions).
 */
import type { FastifyInstance } from 'fastify';
import { CLIENT_METHODS, type AbhaClient } from '../client/client.js';
import { isTransportError } from '../client/errors.js';
import { isValidationError } from '../errors.js';
import { ENDPOINTS } from '../spec/definition.js';
import type { EndpointId } from '../spec/endpoints.js';
import type { ServeContext } from './context.js';
import { requireBody } from './json-body.js';
import { HttpProblem, problem, upstreamProblem } from './problems.js';

/** The endpoints passed through: every one but the token (the server's own) and the link call (the queue's). */
export const PASSED_THROUGH: readonly { readonly id: EndpointId; readonly path: string; readonly title: string; readonly section: string }[] = ENDPOINTS.filter(
  (e) => e.id !== 'token' && e.id !== 'link-carecontext',
).map((e) => ({ id: e.id as EndpointId, path: `/v1/service${e.path}`, title: e.title, section: e.section }));

type Call = (client: AbhaClient, body: unknown) => Promise<unknown>;

function callerOf(id: EndpointId): Call {
  const method = CLIENT_METHODS[id];
  if (method === null || method === 'linkCareContexts') throw new Error(`internal: ${id} is not passed through`);
  return (client, body) => (client[method] as (request: unknown) => Promise<unknown>).call(client, body);
}

export function registerServiceRoutes(app: FastifyInstance, context: ServeContext): void {
  for (const e of PASSED_THROUGH) {
    const call = callerOf(e.id);
    app.post(e.path, { schema: { querystring: { type: 'object', additionalProperties: false, properties: {} } } }, async (request) => {
      const client = context.options.client;
      if (client === undefined) throw problem(503, 'no-upstream', 'this server has no upstream service: set ABHA_LINK_BASE_URL and ABHA_LINK_API_KEY');
      const body = requireBody(request.body);
      try {
        return await call(client, body);
      } catch (err) {
        if (isValidationError(err)) throw new HttpProblem(422, err.issues);
        if (isTransportError(err)) throw upstreamProblem(err);
        throw err;
      }
    });
  }
}
