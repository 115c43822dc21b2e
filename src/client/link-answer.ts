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
import { TransportError } from './errors.js';

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

/** The code of an "already linked" refusal, compared case-insensitively (`ALREADY_LINKED`, `already-linked`). */
const ALREADY_LINKED_CODE = /^already[ _-]?linked$/i;

/**
 * True when a `success: false` link answer says that the care contexts were
 * linked before (see docs/spec-decisions.md): `data.code` is
 * `ALREADY_LINKED` (any case, `_`, `-` or a space), and when `data` lists
 * `careContexts`, each entry's status says linked (`ALREADY_LINKED`,
 * `LINKED`, ...). The service's message is never read: it is free text that
 * may echo health data, and a refusal of another kind may mention linking.
 *
 * @example
 * isAlreadyLinkedAnswer({ success: false, data: { code: 'ALREADY_LINKED' } }) //=> true
 * isAlreadyLinkedAnswer({ success: false, message: 'care context already linked' }) //=> false (no code)
 */
export function isAlreadyLinkedAnswer(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || (body as { success?: unknown }).success !== false) return false;
  const data = (body as { data?: unknown }).data;
  if (data === null || typeof data !== 'object') return false;
  const { code, careContexts } = data as { code?: unknown; careContexts?: unknown };
  if (typeof code !== 'string' || !ALREADY_LINKED_CODE.test(code)) return false;
  if (careContexts === undefined) return true;
  if (!Array.isArray(careContexts) || careContexts.length > MAX_ENTRIES) return false;
  return careContexts.every((c: unknown) => c !== null && typeof c === 'object' && typeof (c as { status?: unknown }).status === 'string' && LINKED_STATUS.test((c as { status: string }).status));
}

/**
 * The service answered that the care contexts of a link request were linked
 * before (see {@link isAlreadyLinkedAnswer}): nothing was linked again, and
 * nothing needs to be. A final outcome of its own, counted as done: a batch
 * reports it `already-linked` and never sends the item again; the queue of
 * `abha-link serve` stores it as the status `already-linked`. Not retried.
 *
 * @example
 * try { await client.linkCareContexts(request) } catch (e) { if (e instanceof AlreadyLinkedError) markDone(request) }
 */
export class AlreadyLinkedError extends TransportError {
  override name = 'AlreadyLinkedError';
  override readonly reason = 'already-linked';
}
