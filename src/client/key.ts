/**
 * The stable key of a link request, used by the journal and the mock. It is
 * a hash, never the payload: the journal may sit on a shared disk and must
 * not hold health data or identifiers in clear.
 */
import { createHash } from 'node:crypto';
import type { LinkCareContextRequest } from '../generated/types.js';

/**
 * The key of a link request: `k1:` and the first 32 hex digits of the
 * SHA-256 of its hipId, visitId, ABHA address and sorted care-context
 * referenceNumbers. The same visit record gives the same key in every run;
 * a different patient, visit or set of care contexts gives another.
 *
 * @example
 * linkRequestKey(request) //=> 'k1:5d41402abc4b2a76b9719d911017c592'
 */
export function linkRequestKey(request: Pick<LinkCareContextRequest, 'hipId' | 'visitId' | 'abhaAddress' | 'careContexts'>): string {
  const refs = request.careContexts.map((c) => c.referenceNumber).sort();
  const material = JSON.stringify(['abha-link/link-request/v1', request.hipId, request.visitId, request.abhaAddress, refs]);
  return `k1:${createHash('sha256').update(material).digest('hex').slice(0, 32)}`;
}
