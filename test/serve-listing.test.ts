/**
 * The pure parts of the queue's listing and ledger (src/serve/queue/listing.ts)
 * and of its log lines: what a `from`/`to` value means (days in India), the
 * cursor that only the service can make, the ledger's CSV, and the one line
 * of an item that ended. The database side is test/serve-queue-listing.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LinkCareContextRequest } from '../src/generated/types.js';
import { decodeCursor, encodeCursor, ledgerCsv, listFilter, rangeEdge, visitFields } from '../src/serve/queue/listing.js';
import { itemEndLine } from '../src/serve/queue/worker.js';

const exampleRequest = JSON.parse(readFileSync(new URL('../examples/opd-prescription.request.json', import.meta.url), 'utf8')) as LinkCareContextRequest;

describe('a from or to value', () => {
  it.each([
    ['2026-11-24', 'from', '2026-11-23T18:30:00.000Z'],
    ['2026-11-24', 'to', '2026-11-24T18:30:00.000Z'],
    ['2026-12-31', 'to', '2026-12-31T18:30:00.000Z'],
    ['2026-11-24T09:30:00+05:30', 'from', '2026-11-24T04:00:00.000Z'],
    ['2026-11-24T04:00Z', 'to', '2026-11-24T04:00:00.000Z'],
    ['2026-11-24T04:00:00.123456Z', 'from', '2026-11-24T04:00:00.123Z'],
  ] as const)('%s as %s is %s (a date: a whole day in India)', (value, edge, instant) => {
    expect(rangeEdge(value, edge)?.toISOString()).toBe(instant);
  });

  it.each(['2026-02-30', '2026-13-01', '1969-12-31', '2026-11-24T10:00:00', '2026-11-24T24:00:00Z', '2026-11-24T10:00:00+25:00', 'yesterday', '24/11/2026', ''])('refuses %j', (value) => {
    expect(rangeEdge(value, 'from')).toBeUndefined();
  });
});

describe('the cursor', () => {
  const at = { createdAt: '2026-11-24T04:30:00.123456Z', id: '0b6c1c2e-5d43-4f7e-9a51-3f0f0e2b7a10' };

  it('carries a position to the microsecond and back', () => {
    expect(decodeCursor(encodeCursor(at))).toEqual(at);
  });

  it.each([
    ['not base64url', 'a b'],
    ['too long', 'A'.repeat(129)],
    ['another version', Buffer.from(`2|${at.createdAt}|${at.id}`).toString('base64url')],
    ['an id that is not a UUID', Buffer.from(`1|${at.createdAt}|1 OR 1=1`).toString('base64url')],
    ['a day that does not exist', Buffer.from(`1|2026-02-30T04:30:00.123456Z|${at.id}`).toString('base64url')],
    ['milliseconds only', Buffer.from(`1|2026-11-24T04:30:00.123Z|${at.id}`).toString('base64url')],
    ['a field more', Buffer.from(`1|${at.createdAt}|${at.id}|x`).toString('base64url')],
  ])('refuses one that is %s', (_why, cursor) => {
    expect(decodeCursor(cursor)).toBeUndefined();
    expect(() => listFilter({ cursor })).toThrow(expect.objectContaining({ code: 'invalid-options', issues: [expect.objectContaining({ path: '/cursor' })] }));
  });
});

describe('the options of a listing', () => {
  it('names every bad one, with what was expected', () => {
    const error = (() => {
      try {
        listFilter({ status: 'lost' as never, limit: 0, from: 'monday', to: '2026-11-24', visitId: '' });
      } catch (e) {
        return e as { issues: { path: string; message: string }[] };
      }
      return undefined;
    })();
    expect(error?.issues.map((i) => i.path)).toEqual(['/status', '/limit', '/from', '/visitId']);
    expect(() => listFilter({ from: '2026-11-24', to: '2026-11-24T00:00:00+05:30' })).toThrow(/to must be later than from/);
  });
});

describe('the ledger as CSV', () => {
  it('writes a header and one CRLF line per row, quoting what must be, and never a formula', () => {
    const csv = ledgerCsv({
      days: [
        { day: '2026-11-24', status: 'acknowledged', hiType: 'Prescription', count: 3 },
        { day: '2026-11-24', status: 'failed', hiType: '=HYPERLINK("http://x")', count: 1 },
        { day: '2026-11-24', status: 'acknowledged', count: 2 },
      ],
      total: 6,
      submissions: 6,
    });
    expect(csv).toBe('day,status,hiType,count\r\n2026-11-24,acknowledged,Prescription,3\r\n2026-11-24,failed,"\'=HYPERLINK(""http://x"")",1\r\n2026-11-24,acknowledged,,2\r\n');
  });
});

describe('which visit a submission is', () => {
  it('keeps the identifiers and types of the link request, never the patient or the clinical content', () => {
    const visit = visitFields(exampleRequest);
    expect(visit).toEqual({ visitId: 'OPD-2026-0042', hipId: 'IN2910000123', careContextReferences: ['OPD-2026-0042-Prescription'], hiTypes: ['Prescription'] });
    const text = JSON.stringify(visit);
    for (const value of [exampleRequest.abhaAddress, exampleRequest.careContexts[0]?.display ?? '?', 'diabetes', 'Meera']) expect(text).not.toContain(value);
  });
});

describe('the log line of an item that ended', () => {
  it.each([
    [{ status: 'failed', code: 'rejected' }, 'warn', 'send failed'],
    [{ status: 'unknown', code: 'timeout' }, 'warn', 'outcome unknown: not sent again'],
    [{ status: 'unknown', code: 'lease-expired' }, 'warn', 'the lease of the replica sending it ran out: unknown, not sent again'],
    [{ status: 'unknown', code: 'replica-restarted' }, 'warn', 'in flight when this replica stopped: unknown, not sent again'],
    [{ status: 'already-linked', code: 'already-linked' }, 'info', 'already linked: done, nothing linked again'],
    [{ status: 'failed', code: 'stored-request-unreadable' }, 'error', 'the stored request cannot be decrypted: not sent'],
  ] as const)('%j is %s: %s', (end, level, message) => {
    expect(itemEndLine({ id: 'i', visitId: 'OPD-42', ...end })).toEqual([level, { id: 'i', visitId: 'OPD-42', ...end }, message]);
  });

  it('has no visitId where the submission has none', () => {
    expect(itemEndLine({ id: 'i', visitId: undefined, status: 'unknown', code: 'lease-expired' })[1]).toEqual({ id: 'i', status: 'unknown', code: 'lease-expired' });
  });
});
