/**
 * What `abha-link submit` prints, tested in-process through its pure
 * formatters (src/cli/submit-format.ts): item lines, lines that are not
 * items, the progress counts and the summary.
 */
import { describe, expect, it } from 'vitest';
import { OutcomeUnknownError, RejectedError, type ItemResult, type SubmitSummary } from '../src/client/index.js';
import { failureKind, itemLines, notAnItemLine, progressCounts, summaryLines, type SummaryContext } from '../src/cli/submit-format.js';

const KEY = 'k2:0123456789abcdef0123456789abcdef';
const REQUEST_ID = '11111111-2222-4333-8444-555555555555';
const text = { format: 'text', showServiceMessages: false } as const;
const json = { format: 'json', showServiceMessages: false } as const;
const at = { at: 'orders.ndjson:7', line: 7 };
const details = { endpoint: '/api/m2/multiple/link-carecontext', status: 400, requestId: REQUEST_ID, attempts: 1, serviceMessage: 'abha address 91-XXXX rejected' };
const rejected = new RejectedError('the service rejected the request (HTTP 400)', details);
const counts = (over: Partial<SubmitSummary> = {}): SubmitSummary => ({
  total: 0,
  acknowledged: 0,
  warnings: 0,
  mismatches: 0,
  alreadyLinked: 0,
  alreadyAcknowledged: 0,
  duplicates: 0,
  failed: 0,
  unknown: 0,
  unknownEarlier: 0,
  invalid: 0,
  wouldSend: 0,
  stopped: false,
  ...over,
});
const context = (over: Partial<SummaryContext> = {}): SummaryContext => ({ dryRun: false, journaled: true, notItems: 0, failureKinds: new Map(), ...over });

describe('submit item lines', () => {
  it('name the line, the key, the HTTP status and the request id of an acknowledged item', () => {
    const r: ItemResult = { index: 0, outcome: 'acknowledged', key: KEY, requestId: REQUEST_ID, status: 200, attempts: 1 };
    expect(itemLines(r, at, text)).toBe(`orders.ndjson:7 acknowledged ${KEY} (HTTP 200, request ${REQUEST_ID})\n`);
    expect(JSON.parse(itemLines(r, at, json))).toEqual({ line: 7, outcome: 'acknowledged', key: KEY, status: 200, requestId: REQUEST_ID, attempts: 1 });
  });

  it('warn about an acknowledged answer that contradicts the request, with paths and codes only', () => {
    const r: ItemResult = {
      index: 0,
      outcome: 'acknowledged',
      key: KEY,
      requestId: REQUEST_ID,
      status: 200,
      attempts: 1,
      mismatches: [{ path: '/data/0', code: 'not-linked', message: 'x', severity: 'warning' }],
    };
    expect(itemLines(r, at, text)).toContain('; warning: the service said success: true, but its care contexts contradict the request (/data/0 not-linked): check this item with the service');
  });

  it('keep the service message of a failure out unless asked for, and give the fixed reason code in JSON', () => {
    const r: ItemResult = { index: 2, outcome: 'failed', key: KEY, error: rejected };
    expect(itemLines(r, at, text)).toBe(`orders.ndjson:7 failed ${KEY}: RejectedError: ${rejected.message}\n`);
    expect(itemLines(r, at, { format: 'text', showServiceMessages: true })).toContain('; the service said: "abha address 91-XXXX rejected"');
    const o = JSON.parse(itemLines(r, { at: 'one.json', line: undefined }, json)) as Record<string, unknown>;
    expect(o).toMatchObject({ index: 2, outcome: 'failed', error: 'RejectedError', reason: 'rejected', status: 400 });
    expect(o).not.toHaveProperty('serviceMessage');
  });

  it('say that an item unknown since an earlier run is not sent again', () => {
    const r: ItemResult = { index: 0, outcome: 'unknown', key: KEY, earlier: true };
    expect(itemLines(r, at, text)).toBe(`orders.ndjson:7 outcome unknown ${KEY}: unknown since an earlier run (in flight when it stopped, or no clear answer); not sent again\n`);
    const now: ItemResult = { index: 0, outcome: 'unknown', key: KEY, earlier: false, error: new OutcomeUnknownError('no answer within 30 s', { ...details, reason: 'timeout' }) };
    expect(JSON.parse(itemLines(now, at, json))).toMatchObject({ outcome: 'unknown', earlier: false, reason: 'timeout' });
  });

  it("give one line per issue of an invalid item, at the issue's own line in a one-document input", () => {
    const r: ItemResult = {
      index: 0,
      outcome: 'invalid',
      issues: [
        { path: '/visitDate', code: 'invalid-date', message: 'visitDate must be a date', severity: 'error' },
        { path: '', code: 'required', message: 'hiType is required', severity: 'error' },
      ],
    };
    const locate = (path: string): number => (path === '/visitDate' ? 4 : 1);
    expect(itemLines(r, { at: 'one.json', line: undefined, locate }, text)).toBe(
      'one.json:4 invalid, not sent: /visitDate visitDate must be a date (invalid-date)\none.json:1 invalid, not sent: / hiType is required (required)\n',
    );
  });

  it('count the care contexts a dry run would send, and say why an item was skipped', () => {
    expect(itemLines({ index: 0, outcome: 'would-send', key: KEY, hiTypes: ['Prescription'] }, at, text)).toBe(`orders.ndjson:7 would send ${KEY}: 1 care context (Prescription)\n`);
    expect(itemLines({ index: 0, outcome: 'skipped', key: KEY, reason: 'duplicate-in-input' }, at, text)).toBe(
      `orders.ndjson:7 skipped ${KEY}: a copy of an item earlier in this input; not sent twice\n`,
    );
  });

  it('report a line that is not JSON, too long, or a clinical input, with its column and code', () => {
    expect(notAnItemLine({ kind: 'invalid-json', column: 3, reason: 'unexpected end' }, 'a.ndjson', 2, 'text')).toBe('a.ndjson:2 invalid, not sent: not JSON (column 3: unexpected end)\n');
    expect(JSON.parse(notAnItemLine({ kind: 'too-long' }, 'a.ndjson', 5, 'json'))).toEqual({
      line: 5,
      outcome: 'invalid',
      issues: [{ path: '', code: 'too-long', message: 'the line is longer than 64 MiB' }],
    });
    expect(JSON.parse(notAnItemLine({ kind: 'clinical-input' }, 'one.json', undefined, 'json'))).toMatchObject({ index: 0, issues: [{ code: 'clinical-input' }] });
  });

  it('name the kind of a failure by error and HTTP status, and none for other outcomes', () => {
    expect(failureKind({ index: 0, outcome: 'failed', key: KEY, error: rejected })).toBe('RejectedError HTTP 400');
    expect(failureKind({ index: 0, outcome: 'skipped', key: KEY, reason: 'acknowledged-earlier' })).toBeUndefined();
  });
});

describe('submit progress and summary', () => {
  it('count the items done, lines that were not items counting as done and invalid', () => {
    expect(progressCounts(undefined, 0)).toEqual({ done: 0, text: '0 done: 0 acknowledged, 0 skipped, 0 failed, 0 unknown, 0 invalid' });
    const soFar = counts({ total: 9, acknowledged: 3, alreadyAcknowledged: 1, duplicates: 1, failed: 1, unknown: 1, unknownEarlier: 1, invalid: 1 });
    expect(progressCounts(soFar, 2)).toEqual({ done: 9, text: '11 done: 3 acknowledged, 2 skipped, 1 failed, 2 unknown, 3 invalid' });
  });

  it('sum up a clean run in one line', () => {
    expect(summaryLines(counts({ total: 2, acknowledged: 2 }), context())).toEqual(['submit: 2 items: 2 acknowledged, 0 already acknowledged (skipped), 0 failed, 0 outcome unknown, 0 invalid']);
  });

  it('tell a run without a journal that stopped early that nothing recorded its progress', () => {
    const lines = summaryLines(counts({ total: 1, acknowledged: 1, stopped: true, stopReason: 'stop-signal' }), context({ journaled: false }));
    expect(lines).toContain(
      '  stopped before the end of the input: no journal recorded this run, so a rerun of the same input sends every item again, those acknowledged above included: remove the acknowledged lines from the input first, or start again with --journal FILE',
    );
    expect(lines.join('\n')).not.toContain('rerun with the same --journal');
  });

  it('list the reasons of failures, advise on failed and unknown items, and count lines that were not items as invalid', () => {
    const lines = summaryLines(counts({ total: 3, failed: 1, unknown: 1, invalid: 1 }), context({ notItems: 1, failureKinds: new Map([['RejectedError HTTP 400', 1]]) }));
    expect(lines[0]).toBe('submit: 4 items: 0 acknowledged, 0 already acknowledged (skipped), 1 failed, 1 outcome unknown, 2 invalid');
    expect(lines).toContain('  reasons: 1 × RejectedError HTTP 400');
    expect(lines).toContain('  failed items were not processed by the service: fix the cause and rerun with the same --journal (it sends only what was not acknowledged)');
    expect(lines).toContain(
      '  outcome unknown: 1 item may or may not have been linked, so it was not sent again; list them with --list-unknown (same --journal and input), check each with the service, and resend only those that were not linked with --resend-confirmed FILE (--retry-unknown resends them all, linking twice any that were linked)',
    );
    expect(lines.at(-1)).toBe('  invalid items were not sent: see the lines above (abha-link validate --ndjson gives the same report)');
  });

  it('advise on unknown items without a journal: nothing recorded them, so nothing is to be resent before the service is asked', () => {
    const lines = summaryLines(counts({ total: 1, unknown: 1 }), context({ journaled: false }));
    expect(lines).toContain(
      '  outcome unknown: 1 item may or may not have been linked, so it was not sent again; no journal recorded them: check with the service which were linked before sending any again',
    );
    expect(lines.join('\n')).not.toContain('--retry-unknown');
  });

  it('sum up a dry run without advice, and say how many confirmed items were sent', () => {
    expect(summaryLines(counts({ total: 3, wouldSend: 2, unknownEarlier: 1 }), context({ dryRun: true, confirmed: { listed: 3, met: 1 } }))).toEqual([
      'submit (dry run): 3 items: 2 would be sent, 0 already acknowledged, 1 with an unknown outcome (not sent without --retry-unknown), 0 invalid; nothing was sent',
      "  --resend-confirmed: 1 confirmed item of 3 listed was among this input's items with an unknown outcome, and sent",
    ]);
  });

  it('say why a run stopped at an authentication failure', () => {
    expect(summaryLines(counts({ total: 1, failed: 1, stopped: true, stopReason: 'authentication' }), context())).toContain(
      '  stopped: the service refused the API key or the bearer token (AuthenticationError); fix the key, then rerun with the same --journal',
    );
  });
});
