/**
 * The batch's counts reach its caller however it ends: with each result
 * (onResult's second argument) and, when it ends with an error, through
 * batchSummaryOf(error). In-process, with a fake transport.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { batchSummaryOf, type SubmitSummary } from '../src/client/index.js';
import { memoryJournal, type Journal } from '../src/client/journal.js';
import { runBatch, type SendLink } from '../src/client/submit.js';
import type { LinkCareContextRequest } from '../src/index.js';

const base = JSON.parse(readFileSync(new URL('../examples/opd-prescription.request.json', import.meta.url), 'utf8')) as LinkCareContextRequest;
const item = (tag: string): LinkCareContextRequest => ({ ...base, visitId: `OPD-SUM-${tag}` });
let sent = 0;
const send: SendLink = async (_request, _signal, beforeSend) => {
  const requestId = `00000000-0000-4000-8000-${String(++sent).padStart(12, '0')}`;
  await beforeSend(requestId);
  return { body: { success: true }, status: 200, requestId, attempts: 1 };
};

describe('the counts of a batch', () => {
  it('come with every result, this item counted', async () => {
    const seen: Array<[string, SubmitSummary]> = [];
    await runBatch([item('a'), { ...item('b'), visitDate: 'tomorrow' }, item('a')], { concurrency: 1, onResult: (r, soFar) => void seen.push([r.outcome, soFar]) }, send);
    expect(seen.map(([o, s]) => [o, s.acknowledged, s.invalid, s.duplicates])).toEqual([
      ['acknowledged', 1, 0, 0],
      ['invalid', 1, 1, 0],
      ['skipped', 1, 1, 1],
    ]);
    // A copy: what the callback keeps does not change under it.
    expect(seen[0]?.[1].invalid).toBe(0);
  });

  it('are given by batchSummaryOf when the input fails midway, the input error itself being thrown', async () => {
    const broken = new Error('the input broke');
    function* source(): Generator<LinkCareContextRequest> {
      yield item('c1');
      yield item('c2');
      throw broken;
    }
    const error = await runBatch(source(), { concurrency: 2 }, send).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBe(broken);
    expect(batchSummaryOf(error)).toMatchObject({ total: 2, acknowledged: 2, failed: 0, stopped: true });
  });

  it('are given by batchSummaryOf when the journal cannot be written midway', async () => {
    const journal = memoryJournal();
    let appends = 0;
    const full: Journal = {
      keyOf: journal.keyOf,
      load: () => journal.load(),
      append: (entry) => (++appends > 2 ? Promise.reject(new Error('disk full')) : journal.append(entry)),
      close: () => journal.close(),
    };
    const error = await runBatch([item('d1'), item('d2'), item('d3')], { concurrency: 1, journal: full }, send).catch((e: unknown) => e);
    expect((error as Error).message).toBe('disk full');
    expect(batchSummaryOf(error)).toMatchObject({ acknowledged: 1, stopped: true });
  });

  it('are all 0 for an error that did not end a batch', () => {
    expect(batchSummaryOf(new Error('elsewhere'))).toMatchObject({ total: 0, acknowledged: 0, invalid: 0, stopped: true });
    expect(batchSummaryOf('a string')).toMatchObject({ total: 0, stopped: true });
  });
});
