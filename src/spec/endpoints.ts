/**
 * The endpoint registry: the endpoints of the spec definition by their
 * generated `EndpointId`. The client's endpoint table and the mock's handler
 * table are keyed by it, so an endpoint added to the definition and missing
 * from either fails the type check.
 */
import { ENDPOINT_IDS, type EndpointId } from '../generated/endpoints.js';
import { ENDPOINTS, type EndpointDef } from './definition.js';

export type { EndpointId, EndpointRequest, EndpointResponse, EndpointTypes, OtpVerificationId } from '../generated/endpoints.js';
export { ENDPOINT_IDS } from '../generated/endpoints.js';

/** An endpoint of the spec definition, its id typed. */
export type Endpoint<I extends EndpointId = EndpointId> = EndpointDef & { readonly id: I };

/**
 * A table with one entry per endpoint, made from each endpoint's definition.
 *
 * @example
 * const paths = endpointTable((e) => e.path)
 * paths['link-carecontext'] //=> '/api/m2/multiple/link-carecontext'
 */
export function endpointTable<V>(entry: (e: Endpoint) => V): Readonly<Record<EndpointId, V>> {
  const byId = new Map(ENDPOINTS.map((e) => [e.id, e]));
  const table: Partial<Record<EndpointId, V>> = {};
  for (const id of ENDPOINT_IDS) {
    const e = byId.get(id);
    // Only a stale src/generated/endpoints.ts can get here: `npm run schemas`.
    if (e === undefined) throw new Error(`endpoint ${id} is not in the spec definition; run npm run schemas`);
    table[id] = entry(e as Endpoint);
  }
  return table as Record<EndpointId, V>;
}

/** Every endpoint definition by id. */
export const ENDPOINT_BY_ID: Readonly<Record<EndpointId, Endpoint>> = endpointTable((e) => e);

/** Whether a string is an endpoint id. */
export function isEndpointId(id: string): id is EndpointId {
  return Object.hasOwn(ENDPOINT_BY_ID, id);
}
