/**
 * Compares the service's `success: true` answer to a link request with the
 * request itself. The spec does not show the answer's shape (§4.12); when it
 * carries care contexts (`data.careContexts`, as the mock and ABDM's own
 * linking answers do), each entry is checked: a reference the request did not
 * send, a status that does not say linked, and every care context of the
 * request that the list leaves out are reported as warnings. The item stays
 * acknowledged (the service said it processed it, and sending it again could
 * link it twice); the warnings say which care contexts need a person's look.
 */
import { pointer, type Issue } from '../errors.js';
import type { LinkCareContextRequest } from '../generated/types.js';

/**
 * Status words read as "linked", compared case-insensitively (the mock
 * answers `LINKED`). Any other status (`FAILED`, `ERROR`, an unknown word) is
 * a mismatch.
 */
const LINKED_STATUS = /^(linked|already[ _-]?linked|success|successful|ok)$/i;

/** At most this many mismatches are listed per answer (a hostile answer can list 100,000 entries). */
const MAX_MISMATCHES = 100;

/** At most this many answer entries are read (the request has at most 100 care contexts). */
const MAX_ENTRIES = 1000;

const warning = (path: string, code: string, message: string): Issue => ({ path, code, message, severity: 'warning' });

/**
 * Where a `success: true` link answer contradicts the request, or undefined
 * when it agrees or lists no care contexts. Paths under `/data` point into the
 * answer; `/careContexts/N` into the request (a care context the answer left
 * out). Codes: `care-context-not-linked`, `care-context-not-requested`,
 * `care-context-missing`, `care-context-unreadable`. Never values.
 *
 * @example
 * linkAnswerMismatches(request, { careContexts: [{ referenceNumber: 'OPD-1-Prescription', status: 'FAILED' }] })
 * //=> [{ path: '/data/careContexts/0/status', code: 'care-context-not-linked', ... }]
 */
export function linkAnswerMismatches(request: LinkCareContextRequest, data: unknown): readonly Issue[] | undefined {
  if (data === null || typeof data !== 'object' || !Object.hasOwn(data, 'careContexts')) return undefined;
  const listed = (data as { careContexts?: unknown }).careContexts;
  if (!Array.isArray(listed)) {
    return [warning('/data/careContexts', 'care-context-unreadable', 'the answer has careContexts, but not as a list: which care contexts were linked cannot be told; check them with the service')];
  }
  const requested = new Map<string, number>();
  request.careContexts.forEach((c, i) => requested.set(c.referenceNumber, i));
  const answered = new Set<string>();
  const issues: Issue[] = [];
  const add = (i: Issue): void => {
    if (issues.length < MAX_MISMATCHES) issues.push(i);
  };
  const entries = listed.length > MAX_ENTRIES ? listed.slice(0, MAX_ENTRIES) : listed;
  if (listed.length > MAX_ENTRIES) add(warning('/data/careContexts', 'care-context-not-requested', `the answer lists ${listed.length} care contexts, more than the request sent`));
  entries.forEach((entry: unknown, i) => {
    const at = pointer('data', 'careContexts', i);
    if (entry === null || typeof entry !== 'object') {
      add(warning(at, 'care-context-unreadable', 'this entry of the answer is not an object: which care context it is about cannot be told'));
      return;
    }
    const e = entry as { referenceNumber?: unknown; status?: unknown };
    if (typeof e.referenceNumber !== 'string') {
      add(warning(`${at}/referenceNumber`, 'care-context-unreadable', 'this entry of the answer has no referenceNumber: which care context it is about cannot be told'));
    } else if (!requested.has(e.referenceNumber)) {
      add(warning(`${at}/referenceNumber`, 'care-context-not-requested', 'the answer names a care context reference that this request did not send'));
    } else {
      answered.add(e.referenceNumber);
    }
    if (Object.hasOwn(e, 'status') && (typeof e.status !== 'string' || !LINKED_STATUS.test(e.status))) {
      add(warning(`${at}/status`, 'care-context-not-linked', 'the service said success: true, but reports this care context as not linked; check it with the service before sending it again'));
    }
  });
  for (const [reference, i] of requested) {
    if (!answered.has(reference)) add(warning(pointer('careContexts', i), 'care-context-missing', "this care context of the request is missing from the answer's list of care contexts"));
  }
  return issues.length === 0 ? undefined : issues;
}
