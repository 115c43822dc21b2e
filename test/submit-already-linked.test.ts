/**
 * "Already linked" is a final outcome of its own (issue 21): the client's
 * AlreadyLinkedError, the batch's `already-linked` result and journal state,
 * and `abha-link submit` (built CLI, in-process) against the mock started
 * with `linkRepeats: 'already-linked'` (`abha-link mock --already-linked`).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlreadyLinkedAnswer } from '../src/client/link-answer.js';
import { readJournal } from '../src/client/journal.js';
import { AlreadyLinkedError, EnvelopeError, createClient, linkRequestKey, memoryJournal, openFileJournal, type ItemResult } from '../src/client/index.js';
import type { MockServer } from '../src/mock/index.js';
import { runInProcess } from './support/run-cli.js';
import { mockSuite, ndjson, taggedItems } from './support/mock-suite.js';

const API_KEY = 'sk-already-linked-planted-T4w8';
const { item, keyOf } = taggedItems('AL');
let mock: MockServer;
const { tmp, file } = mockSuite(API_KEY, 'abha-link-already-linked-', (m) => (mock = m), { linkRepeats: 'already-linked' });

const client = (): ReturnType<typeof createClient> => createClient({ baseUrl: mock.url, apiKey: API_KEY, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
const run = (args: string[]): ReturnType<typeof runInProcess> => runInProcess(args, { env: { ABHA_LINK_API_KEY: API_KEY, ABHA_LINK_BASE_URL: undefined } });

describe('recognising "already linked"', () => {
  it('reads data.code ALREADY_LINKED of a success: false answer, never the message, and not when a care context says otherwise', () => {
    const cc = (status: string): { referenceNumber: string; status: string } => ({ referenceNumber: 'OPD-1', status });
    expect(isAlreadyLinkedAnswer({ success: false, message: 'x', data: { code: 'ALREADY_LINKED', careContexts: [cc('ALREADY_LINKED')] } })).toBe(true);
    expect(isAlreadyLinkedAnswer({ success: false, data: { code: 'already-linked' } })).toBe(true);
    expect(isAlreadyLinkedAnswer({ success: false, message: 'care context already linked', data: null })).toBe(false);
    expect(isAlreadyLinkedAnswer({ success: false, data: { code: 'ALREADY_LINKED', careContexts: [cc('ALREADY_LINKED'), cc('FAILED')] } })).toBe(false);
    expect(isAlreadyLinkedAnswer({ success: false, data: { code: 'ALREADY_LINKED', careContexts: 'all' } })).toBe(false);
    expect(isAlreadyLinkedAnswer({ success: true, data: { code: 'ALREADY_LINKED' } })).toBe(false);
    expect(isAlreadyLinkedAnswer({ success: false, data: { code: 'ABDM-1056' } })).toBe(false);
  });

  it('the link call rejects with an AlreadyLinkedError (reason already-linked), not retried; another refusal stays an EnvelopeError', async () => {
    const request = item('client');
    await client().linkCareContexts(request);
    const e = await client()
      .linkCareContexts(request)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AlreadyLinkedError);
    expect(e).not.toBeInstanceOf(EnvelopeError);
    expect(e).toMatchObject({ reason: 'already-linked', status: 200, attempts: 1 });
    expect((e as Error).message).not.toContain(request.abhaAddress);
    expect(mock.linkCount(keyOf('client'))).toEqual({ received: 2, linked: 1 });
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'envelope-failure', message: 'care context already linked' } });
    const other = await client()
      .linkCareContexts(item('client-other'))
      .catch((x: unknown) => x);
    expect(other).toBeInstanceOf(EnvelopeError);
    expect(other).toMatchObject({ reason: 'envelope-failure' });
  });
});

describe('a batch', () => {
  it('reports already-linked, journals it, and never sends it again on a rerun (memory and file journals round trip)', async () => {
    await client().linkCareContexts(item('batch-1'));
    const items = [item('batch-1'), item('batch-2')];
    const journal = memoryJournal();
    const results: ItemResult[] = [];
    const summary = await client().submitMany(items, { journal, onResult: (r) => void results.push(r) });
    expect(summary).toMatchObject({ total: 2, acknowledged: 1, alreadyLinked: 1, failed: 0, unknown: 0 });
    const linked = results.find((r) => r.index === 0);
    expect(linked).toMatchObject({ outcome: 'already-linked', status: 200 });
    expect(journal.entries.map((e) => e.state)).toEqual(expect.arrayContaining(['already-linked', 'acknowledged']));
    const again = await client().submitMany(items, { journal });
    expect(again).toMatchObject({ alreadyAcknowledged: 2, alreadyLinked: 0, acknowledged: 0 });

    const path = join(tmp, 'round-trip.journal');
    const fileJournal = await openFileJournal(path);
    const key = fileJournal.keyOf?.(item('batch-1')) ?? '';
    await fileJournal.append({ key, state: 'sending', requestId: 'r1' });
    await fileJournal.append({ key, state: 'already-linked', requestId: 'r1', status: 200 });
    await fileJournal.close();
    const read = await readJournal(path);
    expect(read.states.get(key)).toBe('already-linked');
    expect(read.unknown.has(key)).toBe(false);
    const reopened = await openFileJournal(path);
    expect((await reopened.load()).get(key)).toBe('already-linked');
    await reopened.close();
  });
});

describe('abha-link submit', () => {
  it('ends an item the service answers already linked as already-linked with exit 0; --list-unknown no longer lists it; a rerun sends nothing', async () => {
    const journal = join(tmp, 'submit.journal');
    const input = file('already.ndjson', ndjson([item('cli-1'), item('cli-2')]));
    // The first run: item 1's answer is lost after the service linked it (outcome unknown).
    mock.faults.add({ endpoint: 'link-carecontext', times: 1, fault: { type: 'drop', when: 'after' } });
    const first = await run(['submit', '--ndjson', '--concurrency', '1', '--journal', journal, '--base-url', mock.url, input]);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/:1 outcome unknown k2:/);
    const listed = await run(['submit', '--list-unknown', '--ndjson', '--journal', journal, input]);
    expect(listed.stdout).toMatch(new RegExp(`^${input.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1 outcome unknown`));

    // Checked with the service: resent deliberately, it answers "already linked": done.
    const confirmed = file('confirmed.txt', '1\n');
    const resent = await run(['submit', '--ndjson', '--journal', journal, '--resend-confirmed', confirmed, '--base-url', mock.url, input]);
    expect(resent.stderr).toContain('submit: 2 items: 0 acknowledged, 1 already linked (done), 1 already acknowledged (skipped), 0 failed, 0 outcome unknown, 0 invalid');
    expect(resent.stdout).toMatch(
      /:1 already linked k2:[0-9a-f]{32}: the service answered that these care contexts were linked before; done, nothing linked again \(HTTP 200, request [0-9a-f-]{36}\)\n/,
    );
    expect(resent.code).toBe(0);
    expect(mock.linkCount(keyOf('cli-1'))).toEqual({ received: 2, linked: 1 });
    const journalText = (await readJournal(journal)).states;
    expect([...journalText.values()].sort()).toEqual(['acknowledged', 'already-linked']);

    const listedAfter = await run(['submit', '--list-unknown', '--ndjson', '--journal', journal, input]);
    expect(listedAfter.stdout).toBe('');
    expect(listedAfter.stderr).toMatch(/^submit --list-unknown: 0 items with an unknown outcome/);

    const received = mock.stats().linkReceived;
    const rerun = await run(['submit', '--ndjson', '--format', 'json', '--journal', journal, '--base-url', mock.url, input]);
    expect(rerun.code).toBe(0);
    expect(mock.stats().linkReceived).toBe(received);
    const lines = rerun.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; outcome: string; reason: string });
    expect(lines.map((l) => [l.line, l.outcome, l.reason])).toEqual([
      [1, 'skipped', 'already-linked-earlier'],
      [2, 'skipped', 'acknowledged-earlier'],
    ]);
  });

  it('prints already-linked as its own outcome in JSON, and counts it in a one-item run', async () => {
    await client().linkCareContexts(item('cli-json'));
    const r = await run(['submit', '--format', 'json', '--base-url', mock.url, file('one.json', JSON.stringify(item('cli-json')))]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ index: 0, outcome: 'already-linked', status: 200, key: expect.stringMatching(/^k2:/) as string });
    expect(linkRequestKey(item('cli-json'))).toBe(keyOf('cli-json'));
  });
});
