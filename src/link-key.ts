/**
 * The stable key of a link request, used by the journal and the mock. It is
 * a hash, never the payload: the journal may sit on a shared disk and must
 * not hold health data or identifiers in clear.
 *
 * The inputs (hospital id, visit id, ABHA address, reference numbers) are
 * often guessable: visit ids run in sequence and ABHA addresses can come
 * from a list. A plain hash of them can be confirmed by guessing, so a
 * journal keys its items with a keyed hash (HMAC-SHA-256) under a random
 * salt of its own, kept in its first line: without the journal, its keys
 * say nothing.
 *
 * Shared by the client (journal, batches) and the mock (linkCount); exported
 * to users by `abha-link/client`. Not on the core entry point: it hashes with
 * node:crypto, and the core bundles for browsers.
 */
import { createHash, createHmac } from 'node:crypto';
import type { LinkCareContextRequest } from './generated/types.js';

/** What identifies a link request: the fields its key is made from. */
export type LinkRequestIdentity = Pick<LinkCareContextRequest, 'hipId' | 'visitId' | 'abhaAddress' | 'careContexts'>;

function material(request: LinkRequestIdentity): string {
  const refs = request.careContexts.map((c) => c.referenceNumber).sort();
  return JSON.stringify(['abha-link/link-request/v1', request.hipId, request.visitId, request.abhaAddress, refs]);
}

/**
 * The key of a link request, made from its hipId, visitId, ABHA address and
 * sorted care-context referenceNumbers: the same visit record gives the same
 * key; a different patient, visit or set of care contexts gives another.
 *
 * - With a `salt` (at least 16 bytes): `k2:` and the first 32 hex digits of
 *   HMAC-SHA-256(salt, fields). What journals use: stable within a journal,
 *   and not guessable without its salt.
 * - Without: `k1:` and the first 32 hex digits of the SHA-256 of the fields.
 *   Anyone who guesses the fields can confirm the guess: used by the mock
 *   (linkCount) and by journals written before keyed hashes.
 *
 * @throws TypeError for a salt shorter than 16 bytes
 * @example
 * linkRequestKey(request) //=> 'k1:5d41402abc4b2a76b9719d911017c592'
 * linkRequestKey(request, journalSalt) //=> 'k2:9e107d9d372bb6826bd81d3542a419d6'
 */
export function linkRequestKey(request: LinkRequestIdentity, salt?: Uint8Array): string {
  if (salt === undefined) return `k1:${createHash('sha256').update(material(request)).digest('hex').slice(0, 32)}`;
  if (!(salt instanceof Uint8Array) || salt.length < 16) throw new TypeError('salt must be at least 16 random bytes');
  return `k2:${createHmac('sha256', salt).update(material(request)).digest('hex').slice(0, 32)}`;
}
