/**
 * Batch submission: client.submitMany with its journal, and the
 * `abha-link submit` command (built dist/cli/main.js) against the real mock,
 * including a run killed with SIGKILL and resumed from its journal.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../src/client/journal.js';
import { JournalError, createClient, linkRequestKey, memoryJournal, openFileJournal, type FetchLike, type ItemResult, type JournalEntry } from '../src/client/index.js';
import { KeySet } from '../src/client/key-set.js';
import type { MockServer } from '../src/mock/index.js';
import { cli, root, startCli, until, type Run } from './support/cli-process.js';
import { runInProcess } from './support/run-cli.js';
import { exampleRequest, mockSuite, ndjson, taggedItems } from './support/mock-suite.js';
import type { LinkCareContextRequest } from '../src/index.js';

const API_KEY = 'sk-submit-planted-Q7x2';
/** A distinct valid link request (`item`), and the mock's key of an item (plain k1), for linkCount (`keyOf`). */
const { item, keyOf } = taggedItems('S');
const base = exampleRequest;
/** The key a journal file records an item under: a keyed hash with the journal's salt. */
const fileKey = async (path: string, tag: string): Promise<string> => linkRequestKey(item(tag), (await readJournal(path)).salt);
const KEY2 = 'k2:[0-9a-f]{32}';

let mock: MockServer;
const { tmp, file } = mockSuite(API_KEY, 'abha-link-submit-', (m) => (mock = m));

function client(fetchFn?: FetchLike): ReturnType<typeof createClient> {
  return createClient({ baseUrl: mock.url, apiKey: API_KEY, retry: { baseDelayMs: 1, maxDelayMs: 2 }, ...(fetchFn === undefined ? {} : { fetch: fetchFn }) });
}

/** Runs the CLI without blocking this process (the mock runs here). */
const run = (args: string[], env: Record<string, string | undefined> = {}, input = ''): Promise<Run> =>
  runInProcess(args, { env: { ABHA_LINK_API_KEY: API_KEY, ABHA_LINK_BASE_URL: undefined, ...env }, stdin: input });

describe('client.submitMany', () => {
  it('sends every valid item once, reports invalid ones without sending them, and journals each step', async () => {
    const journal = memoryJournal();
    const results: ItemResult[] = [];
    const tags = ['a1', 'a2', 'a3'];
    const items = [item('a1'), { ...item('bad'), visitDate: 'tomorrow' }, item('a2'), 42, item('a3')];
    const summary = await client().submitMany(items, { journal, onResult: (r) => void results.push(r) });
    expect(summary).toMatchObject({ total: 5, acknowledged: 3, invalid: 2, failed: 0, unknown: 0, alreadyAcknowledged: 0, stopped: false });
    for (const t of tags) expect(mock.linkCount(keyOf(t))).toEqual({ received: 1, linked: 1 });
    expect(mock.linkCount(keyOf('bad'))).toEqual({ received: 0, linked: 0 });
    const invalid = results.filter((r) => r.outcome === 'invalid');
    expect(invalid.map((r) => r.index).sort()).toEqual([1, 3]);
    expect(invalid[0]?.outcome === 'invalid' && invalid[0].issues[0]?.path).toBe('/visitDate');
    for (const t of tags) expect(journal.entries.filter((e) => e.key === journal.keyOf(item(t))).map((e) => e.state)).toEqual(['sending', 'acknowledged']);
  });

  it('resumes from its journal: acknowledged items are skipped, the rest sent', async () => {
    const journal = memoryJournal();
    await client().submitMany([item('b1'), item('b2')], { journal });
    const summary = await client().submitMany([item('b1'), item('b2'), item('b3')], { journal });
    expect(summary).toMatchObject({ acknowledged: 1, alreadyAcknowledged: 2 });
    for (const t of ['b1', 'b2', 'b3']) expect(mock.linkCount(keyOf(t)).linked).toBe(1);
  });

  it('never resends an item whose outcome is unknown, unless asked to', async () => {
    const journal = memoryJournal();
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'drop', when: 'before' } });
    const first = await client().submitMany([item('c1')], { journal });
    expect(first).toMatchObject({ unknown: 1, acknowledged: 0 });
    expect(journal.entries.at(-1)).toMatchObject({ key: journal.keyOf(item('c1')), state: 'unknown', error: 'OutcomeUnknownError', reason: 'connection-lost' });
    const results: ItemResult[] = [];
    const second = await client().submitMany([item('c1')], { journal, onResult: (r) => void results.push(r) });
    expect(second).toMatchObject({ unknownEarlier: 1, acknowledged: 0 });
    expect(results[0]).toMatchObject({ outcome: 'unknown', earlier: true });
    expect(mock.linkCount(keyOf('c1'))).toEqual({ received: 1, linked: 0 });
    const third = await client().submitMany([item('c1')], { journal, retryUnknown: true });
    expect(third.acknowledged).toBe(1);
    expect(mock.linkCount(keyOf('c1'))).toEqual({ received: 2, linked: 1 });
  });

  it('records an answer with success: true as acknowledged, with a warning, when the rest of it is off the spec', async () => {
    let links = 0;
    const scripted: FetchLike = (url, init) => {
      if (!url.endsWith('link-carecontext')) return fetch(url, init);
      links++;
      return Promise.resolve(Response.json({ success: true, message: links === 1 ? null : 'y'.repeat(5000), data: {} }));
    };
    const journal = memoryJournal();
    const results: ItemResult[] = [];
    const first = await client(scripted).submitMany([item('odd1'), item('odd2')], { journal, onResult: (r) => void results.push(r) });
    expect(first).toMatchObject({ acknowledged: 2, failed: 0, unknown: 0, warnings: 2 });
    expect(results.map((r) => r.outcome)).toEqual(['acknowledged', 'acknowledged']);
    const ack = results[0];
    expect(ack?.outcome === 'acknowledged' && ack.warnings?.map((i) => i.path)).toEqual(['/message']);
    expect(journal.entries.filter((e) => e.state !== 'sending').map((e) => [e.state, e.reason])).toEqual([
      ['acknowledged', 'answer-off-spec'],
      ['acknowledged', 'answer-off-spec'],
    ]);
    const again = await client(scripted).submitMany([item('odd1'), item('odd2')], { journal });
    expect(again).toMatchObject({ alreadyAcknowledged: 2, acknowledged: 0 });
    expect(links).toBe(2);
  });

  it('treats an item left "sending" by a crashed run as unknown', async () => {
    const journal = memoryJournal();
    await journal.append({ key: journal.keyOf(item('d1')), state: 'sending' });
    const summary = await client().submitMany([item('d1'), item('d2')], { journal });
    expect(summary).toMatchObject({ unknownEarlier: 1, acknowledged: 1 });
    expect(mock.linkCount(keyOf('d1')).received).toBe(0);
  });

  it('sends failed items again on a rerun: they were not processed', async () => {
    const journal = memoryJournal();
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 429 } });
    const first = await client().submitMany([item('e1')], { journal });
    expect(first.failed).toBe(1);
    expect(journal.entries.at(-1)).toMatchObject({ state: 'failed', status: 429, error: 'RateLimitedError' });
    const second = await client().submitMany([item('e1')], { journal });
    expect(second.acknowledged).toBe(1);
    expect(mock.linkCount(keyOf('e1'))).toEqual({ received: 2, linked: 1 });
  });

  it('keeps at most `concurrency` requests in flight and pulls items only when a slot is free', async () => {
    let active = 0;
    let peak = 0;
    const counting: FetchLike = async (url, init) => {
      const link = url.endsWith('link-carecontext');
      if (link) peak = Math.max(peak, ++active);
      try {
        return await fetch(url, init);
      } finally {
        if (link) active--;
      }
    };
    mock.faults.add({ endpoint: 'link-carecontext', times: 12, fault: { type: 'latency', ms: 40 } });
    let pulled = 0;
    let done = 0;
    let maxAhead = 0;
    async function* source(): AsyncGenerator<LinkCareContextRequest> {
      for (let i = 0; i < 12; i++) {
        pulled++;
        maxAhead = Math.max(maxAhead, pulled - done);
        yield item(`f${i}`);
      }
    }
    const summary = await client(counting).submitMany(source(), { concurrency: 3, onResult: () => void done++ });
    expect(summary.acknowledged).toBe(12);
    expect(peak).toBe(3);
    expect(maxAhead).toBeLessThanOrEqual(4);
  });

  it('when the input fails midway, finishes and journals the requests in flight, then reports the input error', async () => {
    const path = join(tmp, 'input-fails.journal');
    mock.faults.add({ endpoint: 'link-carecontext', times: 3, fault: { type: 'latency', ms: 80 } });
    const broken = new Error('the input broke');
    async function* source(): AsyncGenerator<LinkCareContextRequest> {
      yield item('if1');
      yield item('if2');
      yield item('if3');
      throw broken;
    }
    const results: ItemResult[] = [];
    await expect(client().submitMany(source(), { concurrency: 4, journal: path, onResult: (r) => void results.push(r) })).rejects.toBe(broken);
    expect(results.map((r) => r.outcome)).toEqual(['acknowledged', 'acknowledged', 'acknowledged']);
    const states = (await readJournal(path)).states;
    for (const t of ['if1', 'if2', 'if3']) {
      expect(mock.linkCount(keyOf(t)).linked).toBe(1);
      expect(states.get(await fileKey(path, t))).toBe('acknowledged');
    }
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('skips a duplicate of an item in flight', async () => {
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'latency', ms: 100 } });
    const results: ItemResult[] = [];
    const summary = await client().submitMany([item('g1'), item('g1')], { concurrency: 2, onResult: (r) => void results.push(r) });
    expect(summary).toMatchObject({ acknowledged: 1, duplicates: 1 });
    expect(results[0]).toMatchObject({ index: 1, outcome: 'skipped', reason: 'duplicate-in-input' });
    expect(mock.linkCount(keyOf('g1')).received).toBe(1);
  });

  it('sends a second copy of an item in the same run never: it is skipped as duplicate-in-input, whatever the concurrency', async () => {
    for (const concurrency of [1, 2, 8]) {
      const tag = (t: string): string => `dup${concurrency}-${t}`;
      mock.faults.add({ endpoint: 'link-carecontext', times: 3, fault: { type: 'latency', ms: 30 } });
      const results: ItemResult[] = [];
      const items = [item(tag('a')), item(tag('b')), item(tag('a')), item(tag('c')), item(tag('a')), item(tag('b'))];
      const summary = await client().submitMany(items, { concurrency, onResult: (r) => void results.push(r) });
      expect(summary, `concurrency ${concurrency}`).toMatchObject({ total: 6, acknowledged: 3, duplicates: 3, alreadyAcknowledged: 0 });
      const byIndex = [...results].sort((x, y) => x.index - y.index).map((r) => (r.outcome === 'skipped' ? `skipped ${r.reason}` : r.outcome));
      expect(byIndex).toEqual(['acknowledged', 'acknowledged', 'skipped duplicate-in-input', 'acknowledged', 'skipped duplicate-in-input', 'skipped duplicate-in-input']);
      for (const t of ['a', 'b', 'c']) expect(mock.linkCount(keyOf(tag(t)))).toEqual({ received: 1, linked: 1 });
    }
  });

  it('with a journal, reports a second copy as a duplicate, not as acknowledged in an earlier run, and does not resend a copy of a failed item', async () => {
    const journal = memoryJournal();
    mock.faults.add({ endpoint: 'link-carecontext', skip: 1, fault: { type: 'status', status: 429 } });
    const results: ItemResult[] = [];
    const summary = await client().submitMany([item('dj1'), item('dj2'), item('dj1'), item('dj2')], { concurrency: 1, journal, onResult: (r) => void results.push(r) });
    expect(summary).toMatchObject({ acknowledged: 1, failed: 1, duplicates: 2, alreadyAcknowledged: 0 });
    expect(results.slice(2)).toMatchObject([
      { index: 2, outcome: 'skipped', reason: 'duplicate-in-input' },
      { index: 3, outcome: 'skipped', reason: 'duplicate-in-input' },
    ]);
    expect(mock.linkCount(keyOf('dj2'))).toEqual({ received: 1, linked: 0 });
  });

  it('stops taking items when stopSignal aborts, finishing those in flight', async () => {
    const stop = new AbortController();
    let pulled = 0;
    function* source(): Generator<LinkCareContextRequest> {
      for (let i = 0; i < 50; i++) {
        pulled++;
        yield item(`h${i}`);
      }
    }
    const summary = await client().submitMany(source(), {
      concurrency: 1,
      stopSignal: stop.signal,
      onResult: (r) => {
        if (r.index === 2) stop.abort();
      },
    });
    expect(summary).toMatchObject({ stopped: true, acknowledged: 3 });
    expect(pulled).toBeLessThanOrEqual(4);
  });

  it('stops at the first authentication failure instead of failing every item', async () => {
    let tokenCalls = 0;
    const counting: FetchLike = (url, init) => {
      if (url.endsWith('/token')) tokenCalls++;
      return fetch(url, init);
    };
    const c = createClient({ baseUrl: mock.url, apiKey: 'sk-not-the-key', fetch: counting });
    const summary = await c.submitMany(
      Array.from({ length: 30 }, (_, i) => item(`auth${i}`)),
      { concurrency: 2 },
    );
    expect(summary).toMatchObject({ stopped: true, stopReason: 'authentication', acknowledged: 0 });
    expect(summary.failed).toBeLessThanOrEqual(3);
    expect(tokenCalls).toBeLessThanOrEqual(3);
  });

  it('stops after too many failures in a row when the service looks unavailable', async () => {
    const journal = memoryJournal();
    mock.faults.add({ endpoint: 'link-carecontext', times: Infinity, fault: { type: 'status', status: 429 } });
    const summary = await client().submitMany(
      Array.from({ length: 20 }, (_, i) => item(`down${i}`)),
      { concurrency: 1, journal, stopAfterConsecutiveFailures: 3 },
    );
    expect(summary).toMatchObject({ stopped: true, stopReason: 'service-unavailable', failed: 3, total: 3 });
    expect(journal.entries.filter((e) => e.state === 'failed')).toHaveLength(3);
  });

  it('dry run: validates and checks the journal, sends and writes nothing', async () => {
    const journal = memoryJournal();
    await journal.append({ key: journal.keyOf(item('i1')), state: 'acknowledged' });
    const results: ItemResult[] = [];
    const summary = await client().submitMany([item('i1'), item('i2'), { nope: 1 }], { journal, dryRun: true, onResult: (r) => void results.push(r) });
    expect(summary).toMatchObject({ wouldSend: 1, alreadyAcknowledged: 1, invalid: 1 });
    expect(results.find((r) => r.outcome === 'would-send')).toMatchObject({ key: journal.keyOf(item('i2')), hiTypes: ['Prescription'] });
    expect(journal.entries).toHaveLength(1);
    expect(mock.linkCount(keyOf('i2')).received).toBe(0);
  });
});

describe('linkRequestKey', () => {
  it('is a keyed hash under a salt: stable with the same salt, unrelated without it', () => {
    const salt = Buffer.alloc(32, 7);
    const k = linkRequestKey(item('key1'), salt);
    expect(k).toMatch(new RegExp(`^${KEY2}$`));
    expect(linkRequestKey(item('key1'), Buffer.alloc(32, 7))).toBe(k);
    expect(linkRequestKey(item('key1'), Buffer.alloc(32, 8))).not.toBe(k);
    expect(linkRequestKey(item('key2'), salt)).not.toBe(k);
    expect(linkRequestKey(item('key1'))).toMatch(/^k1:[0-9a-f]{32}$/);
    expect(linkRequestKey(item('key1')).slice(3)).not.toBe(k.slice(3));
    expect(() => linkRequestKey(item('key1'), Buffer.alloc(8))).toThrow(/at least 16/);
  });
});

describe('KeySet', () => {
  it('remembers every key exactly, compact keys and others alike, across growth', () => {
    const seen = new KeySet();
    const keys = Array.from({ length: 5000 }, (_, i) => linkRequestKey(item(`ks${i}`), Buffer.alloc(32, 3)));
    for (const k of keys) expect(seen.add(k)).toBe(true);
    for (const k of keys) expect(seen.add(k)).toBe(false);
    // Keys of another shape or prefix, and the all-zero key, are kept too.
    for (const k of ['k1:00112233445566778899aabbccddeeff', 'custom-key', 'k2:00000000000000000000000000000000']) {
      expect(seen.add(k)).toBe(true);
      expect(seen.add(k)).toBe(false);
    }
    // Two keys that differ only in their last digit are two keys.
    expect(seen.add(`${keys[0]?.slice(0, -1) ?? ''}${keys[0]?.endsWith('0') === true ? '1' : '0'}`)).toBe(true);
    expect(seen.size).toBe(5000 + 3 + 1);
  });
});

describe('openFileJournal', () => {
  it('writes one synced NDJSON line per step, readable by readJournal, with no health data', async () => {
    const path = join(tmp, 'lib.journal');
    const summary = await client().submitMany([item('j1'), item('j2')], { journal: path });
    expect(summary.acknowledged).toBe(2);
    const [header, ...lines] = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as JournalEntry & { v: number });
    // The first line holds the journal's own salt; items are keyed with a keyed hash under it.
    // Format 3: the header has a check value of its salt, every line a checksum.
    expect(header).toEqual({ v: 3, journal: 'abha-link', salt: expect.stringMatching(/^[\w-]{43}$/) as unknown, check: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown });
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.v === 3 && new RegExp(`^${KEY2}$`).test(l.key) && /^[0-9a-f]{16}$/.test((l as unknown as { sum: string }).sum))).toBe(true);
    // The `sending` line carries the request id of the attempt it precedes.
    expect(lines[0]).toMatchObject({ state: 'sending', requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown });
    expect(lines[0]?.key).not.toBe(keyOf('j1'));
    expect((await readJournal(path)).states.get(await fileKey(path, 'j1'))).toBe('acknowledged');
    const text = readFileSync(path, 'utf8');
    for (const phi of [base.abhaAddress, base.visitId, 'OPD-S-j1', 'Metformin', 'Meera', base.hipId]) expect(text).not.toContain(phi);
    expect(statSync(path).mode & 0o077).toBe(0);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('keeps reading and continuing a journal of the first format (plain k1 keys, no salt line)', async () => {
    const path = file('format1.journal', `${JSON.stringify({ v: 1, key: keyOf('v1a'), state: 'acknowledged' })}\n`);
    const dry = await client().submitMany([item('v1a'), item('v1b')], { journal: path, dryRun: true });
    expect(dry).toMatchObject({ alreadyAcknowledged: 1, wouldSend: 1 });
    const summary = await client().submitMany([item('v1a'), item('v1b')], { journal: path });
    expect(summary).toMatchObject({ alreadyAcknowledged: 1, acknowledged: 1 });
    expect(mock.linkCount(keyOf('v1a')).received).toBe(0);
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as JournalEntry & { v: number });
    expect(lines.map((l) => [l.v, l.key, l.state])).toEqual([
      [1, keyOf('v1a'), 'acknowledged'],
      [1, keyOf('v1b'), 'sending'],
      [1, keyOf('v1b'), 'acknowledged'],
    ]);
    // A line of the other format in a journal is damage, not a silent switch of keys.
    const mixed = file('mixed.journal', `${JSON.stringify({ v: 1, key: keyOf('v1a'), state: 'acknowledged' })}\n${JSON.stringify({ v: 2, key: 'k2:00', state: 'sending' })}\n`);
    await expect(readJournal(mixed)).rejects.toThrow(/line 2 is not a journal entry/);
  });

  it('leaves no lock behind when the options or the input are refused', async () => {
    const path = join(tmp, 'refused.journal');
    await expect(client().submitMany(42 as unknown as Iterable<unknown>, { journal: path })).rejects.toThrow(TypeError);
    await expect(client().submitMany([], { journal: path, stopAfterConsecutiveFailures: -1 })).rejects.toThrow(TypeError);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('groups concurrent appends into few writes, and resolves every one once it is on disk', async () => {
    const path = join(tmp, 'concurrent.journal');
    const j = await openFileJournal(path);
    const appends: Promise<void>[] = [];
    for (let i = 0; i < 200; i++) {
      appends.push(j.append({ key: `k1:${i}`, state: 'sending' }));
      if (i % 7 === 0) await Promise.resolve();
      if (i % 50 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(appends);
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1 + 200);
    await j.append({ key: 'k1:last', state: 'acknowledged' });
    await j.close();
    expect((await readJournal(path)).states.size).toBe(201);
  });

  it('is locked while in use, and a lock left by a dead process is taken over', async () => {
    const path = join(tmp, 'locked.journal');
    const j = await openFileJournal(path);
    await expect(openFileJournal(path)).rejects.toThrow(JournalError);
    await expect(openFileJournal(path)).rejects.toThrow(/is in use by process \d+/);
    await j.close();
    // A process that has exited leaves its pid behind.
    const dead = await new Promise<number>((resolve) => {
      const c = spawn(process.execPath, ['-e', '0']);
      c.on('exit', () => resolve(c.pid ?? 0));
    });
    writeFileSync(`${path}.lock`, `${dead}\n`);
    const again = await openFileJournal(path);
    await again.close();
  });

  it('lets exactly one of several processes take over a stale lock', async () => {
    const path = join(tmp, 'stale-race.journal');
    const dead = await new Promise<number>((resolve) => {
      const c = spawn(process.execPath, ['-e', '0']);
      c.on('exit', () => resolve(c.pid ?? 0));
    });
    // Each contender waits for the same moment, so that they all find the stale lock together.
    // The winner says so and holds the lock until every contender has answered (it reads a line
    // from its stdin then), so a contender that started late still meets the lock, however slow
    // the machine: no outcome depends on timing.
    const code = `import { openFileJournal } from ${JSON.stringify(join(root, 'dist/client/index.js'))};
import { once } from 'node:events';
await new Promise((r) => setTimeout(r, Math.max(0, Number(process.argv[2]) - Date.now())));
let j;
try { j = await openFileJournal(process.argv[1]); }
catch (e) { console.log(/is in use by process/.test(e.message) ? 'busy' : e.message); process.exit(0); }
console.log('won');
await once(process.stdin, 'data');
await j.close();`;
    let startAt = 0;
    const contender = (): { answer: Promise<string>; release(): void; closed: Promise<void> } => {
      const c = spawn(process.execPath, ['--input-type=module', '-e', code, path, String(startAt)]);
      // A contender that found the lock busy has exited: writing to it fails with EPIPE, which is expected.
      c.stdin.on('error', () => undefined);
      let out = '';
      let answered: (s: string) => void = () => {};
      const answer = new Promise<string>((resolve) => (answered = resolve));
      c.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) answered(out.trim());
      });
      const closed = new Promise<void>((resolve) => c.on('close', () => (answered(out.trim()), resolve())));
      return { answer, release: () => c.stdin.end('close\n'), closed };
    };
    for (let round = 0; round < 2; round++) {
      writeFileSync(`${path}.lock`, `${dead}\n`);
      startAt = Date.now() + 1500;
      const contenders = Array.from({ length: 6 }, contender);
      const outcomes = await Promise.all(contenders.map((c) => c.answer));
      for (const c of contenders) c.release();
      await Promise.all(contenders.map((c) => c.closed));
      expect(outcomes.sort(), `round ${round}: ${JSON.stringify(outcomes)}`).toEqual(['busy', 'busy', 'busy', 'busy', 'busy', 'won']);
      expect(existsSync(`${path}.lock`)).toBe(false);
    }
  });

  it('leaves a lock alone at close when it is no longer its own', async () => {
    const path = join(tmp, 'not-mine.journal');
    const j = await openFileJournal(path);
    writeFileSync(`${path}.lock`, '1\n');
    await j.close();
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe('1\n');
    rmSync(`${path}.lock`);
  });

  it('ignores a line cut short by a crash, but refuses a damaged line in the middle', async () => {
    const torn = file('torn.journal', `${JSON.stringify({ v: 1, key: 'k1:aa', state: 'acknowledged' })}\n{"v":1,"key":"k1:bb","sta`);
    const j = await openFileJournal(torn);
    expect(await j.load()).toEqual(new Map([['k1:aa', 'acknowledged']]));
    await j.append({ key: 'k1:cc', state: 'sending' });
    await j.close();
    expect([...(await readJournal(torn)).states.keys()]).toEqual(['k1:aa', 'k1:cc']);
    const damaged = file('damaged.journal', `${JSON.stringify({ v: 1, key: 'k1:aa', state: 'sending' })}\nGARBAGE\n${JSON.stringify({ v: 1, key: 'k1:aa', state: 'acknowledged' })}\n`);
    await expect(openFileJournal(damaged)).rejects.toThrow(/line 2 is not a journal entry/);
    expect(existsSync(`${damaged}.lock`)).toBe(false);
  });
});

describe('openFileJournal: damaged files', () => {
  it('refuses a complete line that is not an entry, also as the last line, before writing anything', async () => {
    const good = JSON.stringify({ v: 1, key: 'k1:aa', state: 'acknowledged' });
    for (const [name, text, line] of [
      ['bad-last.journal', `${good}\nGARBAGE\n`, 2],
      ['bad-last-json.journal', `${good}\n{"v":1,"key":"k1:bb","state":"nonsense"}\n`, 2],
      ['bad-first.journal', `{"v":1}\n${good}\n`, 1],
    ] as const) {
      const path = file(name, text);
      await expect(openFileJournal(path), name).rejects.toThrow(new RegExp(`line ${line} is not a journal entry`));
      await expect(readJournal(path)).rejects.toThrow(JournalError);
      expect(readFileSync(path, 'utf8')).toBe(text);
      expect(existsSync(`${path}.lock`)).toBe(false);
    }
  });

  it('treats only an unterminated last line as torn', async () => {
    const good = JSON.stringify({ v: 1, key: 'k1:aa', state: 'acknowledged' });
    const complete = file('unterminated-ok.journal', `${good}\n${JSON.stringify({ v: 1, key: 'k1:bb', state: 'failed' })}`);
    const j = await openFileJournal(complete);
    expect(await j.load()).toEqual(
      new Map([
        ['k1:aa', 'acknowledged'],
        ['k1:bb', 'failed'],
      ]),
    );
    await j.close();
    expect(readFileSync(complete, 'utf8').endsWith('\n')).toBe(true);
  });
});

describe('abha-link submit', () => {
  it('sends one link request from a file and exits 0', async () => {
    const p = file('one.json', JSON.stringify(item('k1'), null, 2));
    const r = await run(['submit', '--base-url', mock.url, p]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} acknowledged ${KEY2} \\(HTTP 200, request [0-9a-f-]{36}\\)\\n$`));
    expect(r.stderr).toContain('submit: 1 item: 1 acknowledged');
    expect(mock.linkCount(keyOf('k1')).linked).toBe(1);
  });

  it('streams NDJSON: invalid and non-JSON lines are reported with their line and skipped; exit 1', async () => {
    const p = file('mixed.ndjson', ndjson([item('l1'), '{"broken": ', { ...item('l2'), hipId: '' }, '', item('l3')]));
    const r = await run(['submit', '--ndjson', '--no-journal', '--base-url', mock.url, '--concurrency', '2', p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${p}:2 invalid, not sent: not JSON`);
    expect(r.stdout).toContain(`${p}:3 invalid, not sent: /hipId hipId must not be empty (empty)`);
    expect(r.stdout).toMatch(new RegExp(`:5 acknowledged ${KEY2}`));
    expect(r.stderr).toMatch(/submit: 4 items: 2 acknowledged, 0 already acknowledged \(skipped\), 0 failed, 0 outcome unknown, 2 invalid/);
    expect(mock.linkCount(keyOf('l1')).linked).toBe(1);
    expect(mock.linkCount(linkRequestKey({ ...item('l2'), hipId: '' })).received).toBe(0);
  });

  it('reads stdin and prints one JSON object per item with --format json', async () => {
    const r = await run(['submit', '--ndjson', '--no-journal', '--format', 'json', '--base-url', mock.url, '-'], {}, ndjson([item('m1'), { nope: true }]));
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ line: 1, outcome: 'acknowledged', key: expect.stringMatching(new RegExp(`^${KEY2}$`)) as unknown, status: 200 }));
    expect(lines).toContainEqual(expect.objectContaining({ line: 2, outcome: 'invalid' }));
  });

  it('--dry-run validates and shows what would be sent, without a key, a URL or the network', async () => {
    const before = mock.stats().linkReceived;
    const p = file('dry.ndjson', ndjson([item('n1'), item('n2')]));
    const r = await run(['submit', '--dry-run', '--ndjson', p], { ABHA_LINK_API_KEY: '' });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^.*dry\\.ndjson:1 would send ${KEY2}: 1 care context \\(Prescription\\)$`));
    expect(lines[1]).toMatch(new RegExp(`^.*dry\\.ndjson:2 would send ${KEY2}: 1 care context \\(Prescription\\)$`));
    expect(lines.slice(2)).toEqual(['']);
    expect(r.stderr).toContain('nothing was sent');
    expect(mock.stats().linkReceived).toBe(before);
  });

  it('refuses a journal that is the input file (same file, by any name or through stdin)', async () => {
    const p = file('self.ndjson', ndjson([item('self1')]));
    const before = readFileSync(p, 'utf8');
    const link = join(tmp, 'self-link.journal');
    symlinkSync(p, link);
    for (const [args, input] of [
      [['submit', '--ndjson', '--journal', p, '--base-url', mock.url, p], ''],
      [['submit', '--ndjson', '--journal', link, '--base-url', mock.url, p], ''],
      [['submit', '--ndjson', '--dry-run', '--journal', p, p], ''],
    ] as const) {
      const r = await run([...args], {}, input);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/the journal .* is the input file/);
    }
    const viaStdin = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const fd = openSync(p, 'r');
      const child = spawn(process.execPath, [cli, 'submit', '--ndjson', '--journal', p, '--base-url', mock.url, '-'], {
        cwd: root,
        env: { ...process.env, ABHA_LINK_API_KEY: API_KEY },
        stdio: [fd, 'pipe', 'pipe'],
      });
      closeSync(fd);
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(viaStdin.code).toBe(2);
    expect(viaStdin.stderr).toMatch(/the journal .* is the input file/);
    expect(readFileSync(p, 'utf8')).toBe(before);
    expect(mock.linkCount(keyOf('self1')).received).toBe(0);
  });

  it('refuses --api-key with the reason, and other usage errors with exit 2', async () => {
    const p = file('usage.json', JSON.stringify(item('o1')));
    const key = await run(['submit', '--api-key', 'sk-on-the-command-line', '--base-url', mock.url, p]);
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/--api-key is not accepted: a key given on the command line is visible to other users/);
    expect(key.stderr).not.toContain('sk-on-the-command-line');
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['submit', p], {}, /no service URL: give --base-url URL or set ABHA_LINK_BASE_URL/],
      [['submit', '--base-url', mock.url, p], { ABHA_LINK_API_KEY: '' }, /no API key: set ABHA_LINK_API_KEY, or give --api-key-file FILE/],
      [['submit', '--base-url', 'http://abha.example.org', p], {}, /--base-url: must use https/],
      [['submit', p], { ABHA_LINK_BASE_URL: 'http://abha.example.org' }, /ABHA_LINK_BASE_URL: must use https/],
      [['submit', '--base-url', mock.url, '--concurrency', '0', p], {}, /--concurrency must be a whole number from 1 to 256/],
      [['submit', '--base-url', mock.url, file('array.json', JSON.stringify([item('o2')]))], {}, /holds a JSON array; .* --ndjson/],
      [['submit', '--base-url', mock.url, file('broken.json', '{"a":')], {}, /broken\.json:1:6 invalid JSON/],
      [['submit', '--base-url', mock.url, '--api-key-file', join(tmp, 'no-key-file')], {}, /no-key-file: no such file/],
      [['submit', '--base-url', mock.url, '--api-key-file', tmp, p], {}, /: is a directory, not a file/],
    ];
    for (const [args, env, message] of cases) {
      const r = await run(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    }
    expect(mock.linkCount(keyOf('o1')).received).toBe(0);
  });

  it('reads the API key from --api-key-file', async () => {
    const keyFile = file('api.key', `${API_KEY}\n`);
    const { chmodSync } = await import('node:fs');
    chmodSync(keyFile, 0o600);
    const p = file('keyfile.json', JSON.stringify(item('p1')));
    const r = await run(['submit', '--api-key-file', keyFile, '--base-url', mock.url, p], { ABHA_LINK_API_KEY: '' });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('warning');
    chmodSync(keyFile, 0o644);
    const loose = await run(['submit', '--api-key-file', keyFile, '--base-url', mock.url, p], { ABHA_LINK_API_KEY: '' });
    expect(loose.stderr).toContain('can be read by other users; restrict it (chmod 600)');
  });

  it('prints a one-line progress periodically when stderr is not a terminal', async () => {
    mock.faults.add({ endpoint: 'link-carecontext', times: 6, fault: { type: 'latency', ms: 60 } });
    const p = file('progress.ndjson', ndjson(Array.from({ length: 6 }, (_, i) => item(`q${i}`))));
    const r = await run(['submit', '--ndjson', '--no-journal', '--concurrency', '1', '--base-url', mock.url, p], { ABHA_LINK_PROGRESS_MS: '100' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^progress: \d+ done: \d+ acknowledged, 0 skipped, 0 failed, 0 unknown, 0 invalid; [\d.]+\/s$/m);
  });

  it('reports failures and unknown outcomes with reasons, and keeps secrets out of every output and the journal', async () => {
    const journal = join(tmp, 'secrets.journal');
    const planted = { ...item('r1'), abhaAddress: 'planted.person99@sbx' };
    const items = [planted, item('r2'), item('r3'), { ...item('r4'), visitDate: '2026-13-45' }];
    // Redaction cannot catch clinical text: a drug, a diagnosis and a name the service echoes.
    const clinical = ['Atorvastatin', 'Hypertensive heart disease', 'Sunita Plantedname'];
    const said = `refused planted.person99@sbx key ${API_KEY}: ${clinical[2]}, ${clinical[1]}, ${clinical[0]}`;
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 400, message: said } });
    mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'drop', when: 'after' } });
    const p = file('secrets.ndjson', ndjson(items));
    const r = await run(['submit', '--ndjson', '--concurrency', '1', '--journal', journal, '--base-url', mock.url, p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/:1 failed k2:[0-9a-f]+: RejectedError: POST \/api\/m2\/multiple\/link-carecontext HTTP 400/);
    expect(r.stdout).toMatch(/:2 outcome unknown k2:[0-9a-f]+: POST .* the connection was lost/);
    expect(r.stderr).toMatch(/reasons: 1 × RejectedError HTTP 400, 1 × OutcomeUnknownError/);
    expect(r.stderr).toMatch(/list them with --list-unknown .* --resend-confirmed FILE/);
    const journalText = readFileSync(journal, 'utf8');
    const outputs = [r.stdout, r.stderr, journalText];
    for (const out of outputs) {
      for (const secret of [API_KEY, 'planted.person99', base.abhaAddress, 'Metformin', 'Dr. Meera Iyer', 'Type 2 diabetes', base.hospitalName, ...clinical]) {
        expect(out).not.toContain(secret);
      }
      expect(out).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
    }
    // The journal holds fixed reason codes, never a message.
    const answers = journalText
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as JournalEntry)
      .filter((e) => e.state === 'failed' || e.state === 'unknown');
    expect(answers.map((e) => [e.state, e.error, e.status, e.reason])).toEqual([
      ['failed', 'RejectedError', 400, 'rejected'],
      ['unknown', 'OutcomeUnknownError', undefined, 'connection-lost'],
    ]);

    // Only on request, the service's message (redacted) is shown, in text and JSON output.
    for (const format of ['text', 'json']) {
      mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 400, message: said } });
      const shown = await run(['submit', '--show-service-messages', '--format', format, '--base-url', mock.url, file('shown.json', JSON.stringify(item(`r5${format}`)))]);
      expect(shown.code).toBe(1);
      expect(shown.stdout).toContain(clinical[0]);
      expect(shown.stdout).not.toContain(API_KEY);
      expect(shown.stdout).not.toContain('planted.person99');
    }
  });

  it('Ctrl-C stops taking items and waits; a second Ctrl-C abandons the requests in flight as outcome unknown', async () => {
    const journal = join(tmp, 'interrupted.journal');
    const tags = Array.from({ length: 6 }, (_, i) => `int-${i}`);
    const p = file('interrupt.ndjson', ndjson(tags.map(item)));
    mock.faults.add({ endpoint: 'link-carecontext', skip: 2, times: Infinity, fault: { type: 'hang' } });
    const receivedBefore = mock.stats().linkReceived;
    const { child, done, out, err } = startCli(['submit', '--ndjson', '--concurrency', '2', '--journal', journal, '--base-url', mock.url, p], { ABHA_LINK_API_KEY: API_KEY }, null);
    const exited = done.then((r) => r.code);
    await until(() => mock.stats().linkReceived - receivedBefore >= 4 && (out().match(/ acknowledged /g) ?? []).length >= 2);
    child.kill('SIGINT');
    await until(() => err().includes('stopping: no new items'));
    expect(err()).toContain('stopping: no new items; waiting for the requests in flight (Ctrl-C again to abandon them)');
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const { stdout, stderr } = await done;
    expect(stdout.match(/ outcome unknown k2:\w+: POST .*aborted by the caller while the request was in flight/g)).toHaveLength(2);
    expect(stderr).toMatch(/submit: 4 items: 2 acknowledged, 0 already acknowledged \(skipped\), 0 failed, 2 outcome unknown, 0 invalid/);
    expect(stderr).toContain('stopped before the end of the input: rerun with the same --journal to continue');
    const states = (await readJournal(journal)).states;
    expect([...states.values()].sort()).toEqual(['acknowledged', 'acknowledged', 'unknown', 'unknown']);
    expect(existsSync(`${journal}.lock`)).toBe(false);
    mock.faults.clear();
    const resumed = await run(['submit', '--ndjson', '--journal', journal, '--base-url', mock.url, p]);
    expect(resumed.stderr).toContain('submit: 6 items: 2 acknowledged, 2 already acknowledged (skipped), 0 failed, 2 outcome unknown, 0 invalid');
    expect(tags.map((t) => mock.linkCount(keyOf(t)).linked)).toEqual([1, 1, 0, 0, 1, 1]);
  });

  it('stops like Ctrl-C when its output is closed (| head): requests in flight finish and are journaled, the summary goes to stderr, exit 1', async () => {
    const journal = join(tmp, 'head.journal');
    const errFile = join(tmp, 'head.err');
    const tags = Array.from({ length: 400 }, (_, i) => `head-${i}`);
    const p = file('head.ndjson', ndjson(tags.map(item)));
    mock.faults.add({ endpoint: 'link-carecontext', times: Infinity, fault: { type: 'latency', ms: 5 } });
    const q = (x: string): string => `'${x.replace(/'/g, "'\\''")}'`;
    const command = `timeout 60 ${q(process.execPath)} ${q(cli)} submit --ndjson --concurrency 4 --journal ${q(journal)} --base-url ${mock.url} ${q(p)} 2>${q(errFile)} | head -1; echo "exit=\${PIPESTATUS[0]}"`;
    const r = await new Promise<string>((resolve) => {
      const child = spawn('bash', ['-c', command], { env: { ...process.env, ABHA_LINK_API_KEY: API_KEY } });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', () => resolve(out));
    });
    mock.faults.clear();
    const [first, status] = r.trim().split('\n');
    expect(first).toMatch(/:\d+ acknowledged k\d:/);
    expect(status).toBe('exit=1');
    const stderr = readFileSync(errFile, 'utf8');
    expect(stderr).toMatch(/^submit: \d+ items: \d+ acknowledged/m);
    expect(stderr).toContain('stopped before the end of the input: rerun with the same --journal to continue');
    expect(stderr).toContain('standard output was closed before the end');
    expect(existsSync(`${journal}.lock`)).toBe(false);
    // Every item sent has its outcome journaled, and the journal matches what the service linked.
    const states = (await readJournal(journal)).states;
    expect(states.size).toBeGreaterThan(0);
    expect(states.size).toBeLessThan(tags.length);
    expect(new Set(states.values())).toEqual(new Set(['acknowledged']));
    for (const t of tags) expect(mock.linkCount(keyOf(t)).linked, t).toBe(states.has(await fileKey(journal, t)) ? 1 : 0);
  });

  it('when the journal cannot be written midway, finishes the requests in flight and still prints the summary (exit 2)', async () => {
    const journal = join(tmp, 'full.journal');
    const tags = Array.from({ length: 40 }, (_, i) => `full-${i}`);
    const p = file('full.ndjson', ndjson(tags.map(item)));
    const q = (x: string): string => `'${x.replace(/'/g, "'\\''")}'`;
    // A file-size limit of 2 KiB makes the journal's writes fail with EFBIG after about ten lines.
    const command = `trap '' XFSZ; ulimit -f 2; exec ${q(process.execPath)} ${q(cli)} submit --ndjson --concurrency 2 --journal ${q(journal)} --base-url ${mock.url} ${q(p)}`;
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('bash', ['-c', command], { env: { ...process.env, ABHA_LINK_API_KEY: API_KEY } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^submit: \d+ items?: \d+ acknowledged/m);
    expect(r.stderr).toContain('stopped before the end of the input');
    expect(r.stderr).toMatch(/journal .*full\.journal: cannot be written \(EFBIG\)/);
    expect(existsSync(`${journal}.lock`)).toBe(false);
    // What the journal holds is true: nothing it calls acknowledged was left unlinked, and a rerun sends no item twice.
    const states = (await readJournal(journal)).states;
    for (const t of tags) if (states.get(await fileKey(journal, t)) === 'acknowledged') expect(mock.linkCount(keyOf(t)).linked).toBe(1);
    const rerun = await run(['submit', '--ndjson', '--journal', journal, '--base-url', mock.url, p]);
    expect(rerun.stderr).toMatch(/^submit: 40 items/m);
    expect(Math.max(...tags.map((t) => mock.linkCount(keyOf(t)).linked))).toBe(1);
  });

  it('Ctrl-C ends a run waiting on an idle stdin', async () => {
    const journal = join(tmp, 'idle.journal');
    const { child, done, out } = startCli(['submit', '--ndjson', '--journal', journal, '--base-url', mock.url, '-'], { ABHA_LINK_API_KEY: API_KEY }, null);
    const exited = done.then((r) => r.code);
    // One item, then nothing: stdin stays open.
    child.stdin?.write(ndjson([item('idle1')]));
    await until(() => out().includes(' acknowledged '));
    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 8000))]);
    if (code === 'hung') child.kill('SIGKILL');
    expect(code).toBe(130);
    const { stderr } = await done;
    expect(stderr).toContain('submit: 1 item: 1 acknowledged');
    expect(stderr).toContain('stopped before the end of the input');
    expect(existsSync(`${journal}.lock`)).toBe(false);
  });

  it('a batch killed midway (SIGKILL) and resumed from its journal sends every item exactly once in total', async () => {
    const journal = join(tmp, 'killed.journal');
    const tags = Array.from({ length: 10 }, (_, i) => `kill-${i}`);
    const p = file('kill.ndjson', ndjson(tags.map(item)));
    // The first 4 link requests are answered; the next ones hang at the mock (received, never processed).
    mock.faults.add({ endpoint: 'link-carecontext', skip: 4, times: Infinity, fault: { type: 'hang' } });
    const receivedBefore = mock.stats().linkReceived;
    const child = spawn(process.execPath, [cli, 'submit', '--ndjson', '--concurrency', '2', '--journal', journal, '--base-url', mock.url, p], {
      cwd: root,
      env: { ...process.env, ABHA_LINK_API_KEY: API_KEY },
      stdio: 'ignore',
    });
    const exited = new Promise<string | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const acknowledged = (): number =>
      existsSync(journal)
        ? readFileSync(journal, 'utf8')
            .split('\n')
            .filter((l) => l.includes('"acknowledged"')).length
        : 0;
    const deadline = Date.now() + 20_000;
    while ((acknowledged() < 4 || mock.stats().linkReceived - receivedBefore < 6) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(acknowledged()).toBe(4);
    expect(mock.stats().linkReceived - receivedBefore).toBe(6);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    mock.faults.clear();
    const linked = (): number[] => tags.map((t) => mock.linkCount(keyOf(t)).linked);
    expect(linked().filter((n) => n === 1)).toHaveLength(4);

    // Resume: the 4 acknowledged are skipped, the 2 in flight at the kill are reported, not sent; the other 4 are sent.
    const resumed = await run(['submit', '--ndjson', '--concurrency', '2', '--journal', journal, '--base-url', mock.url, p]);
    expect(resumed.code).toBe(1);
    expect(resumed.stdout.match(/ skipped k2:\w+: acknowledged in an earlier run/g)).toHaveLength(4);
    expect(resumed.stdout.match(/ outcome unknown k2:\w+: unknown since an earlier run/g)).toHaveLength(2);
    expect(resumed.stdout.match(/ acknowledged k2:/g)).toHaveLength(4);
    expect(resumed.stderr).toContain('submit: 10 items: 4 acknowledged, 4 already acknowledged (skipped), 0 failed, 2 outcome unknown, 0 invalid');
    expect(linked().filter((n) => n === 1)).toHaveLength(8);
    expect(Math.max(...linked())).toBe(1);

    // The operator checked: the two were never processed. Send them on purpose.
    const retried = await run(['submit', '--ndjson', '--retry-unknown', '--journal', journal, '--base-url', mock.url, p]);
    expect(retried.code).toBe(0);
    expect(retried.stderr).toContain('submit: 10 items: 2 acknowledged, 8 already acknowledged (skipped), 0 failed, 0 outcome unknown, 0 invalid');
    expect(linked()).toEqual(tags.map(() => 1));

    // And once more: nothing left to send.
    const again = await run(['submit', '--ndjson', '--journal', journal, '--base-url', mock.url, p]);
    expect(again.code).toBe(0);
    expect(linked()).toEqual(tags.map(() => 1));
    expect((await readJournal(journal)).states.size).toBe(10);
  });
});
