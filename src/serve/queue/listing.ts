/**
 * Listing the queue and its daily ledger (pure): the filters of a listing
 * and of the ledger checked and turned into instants, the opaque cursor of
 * a page, the non-sensitive visit fields kept beside each submission, and
 * the ledger as CSV. See docs/serve.md (#### Listing and the daily ledger).
 *
 * Days are days in India: a date (`2026-11-24`) means that day from 00:00
 * to 24:00 at +05:30 (Asia/Kolkata, which has no daylight saving), and the
 * ledger counts by that day, as a hospital's own registers do.
 */
import type { Issue } from '../../errors.js';
import type { LinkCareContextRequest } from '../../generated/types.js';
import { QueueError, SUBMISSION_STATUSES, type Ledger, type LedgerOptions, type ListOptions, type SubmissionStatus } from './types.js';

/** The offset of the ledger's days and of dates in filters: India (+05:30), in minutes. */
export const DAY_OFFSET_MINUTES = 330;
/** The ledger's days, as docs and answers name them. */
export const DAY_ZONE = 'Asia/Kolkata (+05:30)';
/** Rows of one page: default and most. */
export const PAGE_DEFAULT = 100;
export const PAGE_MAX = 1000;
/** The longest cursor the service makes (and so accepts). */
export const CURSOR_MAX_LENGTH = 128;

/** The position of a row in the listing's order (newest first): its createdAt to the microsecond, and its id. */
export interface Position {
  readonly createdAt: string;
  readonly id: string;
}

/** A listing's options, checked. */
export interface ListFilter {
  readonly status: SubmissionStatus | undefined;
  readonly from: Date | undefined;
  readonly to: Date | undefined;
  readonly visitId: string | undefined;
  readonly hipId: string | undefined;
  readonly limit: number;
  readonly after: Position | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;
/** A position's createdAt: UTC, to the microsecond, as the store writes it into a cursor. */
const EXACT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}Z$/;

/** True when year-month-day is a real calendar date from 1970 to 9999. */
function realDate(y: string, m: string, d: string): boolean {
  const t = Date.UTC(Number(y), Number(m) - 1, Number(d));
  const back = new Date(t);
  return Number(y) >= 1970 && back.getUTCFullYear() === Number(y) && back.getUTCMonth() === Number(m) - 1 && back.getUTCDate() === Number(d);
}

/** Hours, minutes and seconds in range (a leap second is refused). */
const realTime = (h: string | undefined, mi: string | undefined, s: string | undefined): boolean => Number(h ?? 0) < 24 && Number(mi ?? 0) < 60 && Number(s ?? 0) < 60;

/**
 * The instant a `from` or `to` value means, or undefined when it is not one:
 * an instant is itself; a date is its start in India (`from`) or the start
 * of the day after (`to`: the whole day is in the range).
 *
 * @example
 * rangeEdge('2026-11-24', 'from') //=> 2026-11-23T18:30:00.000Z
 * rangeEdge('2026-11-24', 'to') //=> 2026-11-24T18:30:00.000Z
 */
export function rangeEdge(value: string, edge: 'from' | 'to'): Date | undefined {
  const day = DATE.exec(value);
  if (day !== null) {
    const [, y = '', m = '', d = ''] = day;
    if (!realDate(y, m, d)) return undefined;
    return new Date(Date.UTC(Number(y), Number(m) - 1, Number(d) + (edge === 'to' ? 1 : 0)) - DAY_OFFSET_MINUTES * 60_000);
  }
  const at = INSTANT.exec(value);
  if (at === null) return undefined;
  const [, y = '', m = '', d = '', h, mi, s, oh, om] = at;
  if (!realDate(y, m, d) || !realTime(h, mi, s) || !realTime(oh, om, undefined)) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : new Date(t);
}

/** The cursor of a position: opaque to callers (base64url of a version, the createdAt and the id). */
export function encodeCursor(p: Position): string {
  return Buffer.from(`1|${p.createdAt}|${p.id}`, 'utf8').toString('base64url');
}

/** The position of a cursor this service made, or undefined for anything else. */
export function decodeCursor(cursor: string): Position | undefined {
  if (cursor.length > CURSOR_MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const [version, createdAt = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const exact = EXACT.exec(createdAt);
  if (version !== '1' || rest.length > 0 || exact === null || !UUID.test(id)) return undefined;
  const [, y = '', m = '', d = '', h, mi, s] = exact;
  return realDate(y, m, d) && realTime(h, mi, s) ? { createdAt, id: id.toLowerCase() } : undefined;
}

const queryIssue = (name: string, message: string): Issue => ({ path: `/${name}`, code: 'invalid-parameter', message, severity: 'error' });
const RANGE_EXPECTED = 'an ISO 8601 instant with its offset (2026-11-24T09:30:00+05:30, 2026-11-24T04:00:00Z) or a date (2026-11-24, a day in India)';

/** The range of `from` and `to`, and its issues. */
function rangeOf(options: LedgerOptions, issues: Issue[]): { from: Date | undefined; to: Date | undefined } {
  const edge = (name: 'from' | 'to'): Date | undefined => {
    const raw = options[name];
    if (raw === undefined) return undefined;
    const at = typeof raw === 'string' && raw.length <= 40 ? rangeEdge(raw, name) : undefined;
    if (at === undefined) issues.push(queryIssue(name, `${name} must be ${RANGE_EXPECTED}`));
    return at;
  };
  const from = edge('from');
  const to = edge('to');
  if (from !== undefined && to !== undefined && to <= from) issues.push(queryIssue('to', 'to must be later than from'));
  return { from, to };
}

/** A visitId or hipId filter: 1 to 128 characters. */
function idFilter(name: 'visitId' | 'hipId', raw: unknown, issues: Issue[]): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === 'string' && raw.length >= 1 && raw.length <= 128) return raw;
  issues.push(queryIssue(name, `${name} must be a string of 1 to 128 characters`));
  return undefined;
}

function invalid(issues: readonly Issue[]): QueueError {
  return new QueueError('invalid-options', issues.map((i) => i.message).join('; '), { issues });
}

/**
 * A listing's options checked: every value that is not valid is an issue
 * naming its parameter (`/from`) and what was expected.
 *
 * @throws QueueError `invalid-options` (with issues)
 * @example
 * listFilter({ status: 'failed', from: '2026-11-24' }).from //=> 2026-11-23T18:30:00.000Z
 */
export function listFilter(options: ListOptions = {}): ListFilter {
  const issues: Issue[] = [];
  const { status, limit = PAGE_DEFAULT, cursor } = options;
  if (status !== undefined && !SUBMISSION_STATUSES.includes(status)) issues.push(queryIssue('status', `status must be one of ${SUBMISSION_STATUSES.join(', ')}`));
  if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_MAX) issues.push(queryIssue('limit', `limit must be a whole number from 1 to ${PAGE_MAX}`));
  const after = cursor === undefined ? undefined : typeof cursor === 'string' ? decodeCursor(cursor) : undefined;
  if (cursor !== undefined && after === undefined) issues.push(queryIssue('cursor', 'cursor must be the nextCursor of an earlier page, unchanged'));
  const { from, to } = rangeOf(options, issues);
  const visitId = idFilter('visitId', options.visitId, issues);
  const hipId = idFilter('hipId', options.hipId, issues);
  if (issues.length > 0) throw invalid(issues);
  return { status, from, to, visitId, hipId, limit, after };
}

/**
 * The ledger's range checked.
 *
 * @throws QueueError `invalid-options` (with issues)
 */
export function ledgerRange(options: LedgerOptions = {}): { from: Date | undefined; to: Date | undefined } {
  const issues: Issue[] = [];
  const range = rangeOf(options, issues);
  if (issues.length > 0) throw invalid(issues);
  return range;
}

/** The visit fields kept in clear beside a submission: identifiers and types, never the patient or clinical content. */
export interface VisitFields {
  readonly visitId: string;
  readonly hipId: string;
  /** The care contexts' referenceNumbers, in the request's order. */
  readonly careContextReferences: readonly string[];
  /** The care contexts' hiTypes, one per care context, in the same order. */
  readonly hiTypes: readonly string[];
}

/** The visit fields of a link request (its visitId, hipId, care-context references and hiTypes). */
export function visitFields(request: LinkCareContextRequest): VisitFields {
  return {
    visitId: request.visitId,
    hipId: request.hipId,
    careContextReferences: request.careContexts.map((c) => c.referenceNumber),
    hiTypes: request.careContexts.map((c) => c.hiType),
  };
}

/** A CSV field: quoted when it must be; one that a spreadsheet would run as a formula gets a leading `'`. */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The ledger as CSV (RFC 4180, CRLF): a header `day,status,hiType,count`,
 * then one line per row; the counts add up to the ledger's total.
 *
 * @example
 * ledgerCsv({ days: [{ day: '2026-11-24', status: 'acknowledged', hiType: 'Prescription', count: 3 }], total: 3, submissions: 3 })
 * //=> 'day,status,hiType,count\r\n2026-11-24,acknowledged,Prescription,3\r\n'
 */
export function ledgerCsv(ledger: Ledger): string {
  const lines = ledger.days.map((r) => [r.day, r.status, r.hiType ?? '', String(r.count)].map(csvField).join(','));
  return ['day,status,hiType,count', ...lines].map((l) => `${l}\r\n`).join('');
}
