/**
 * The batch journal under attack: two submitters on one journal through a
 * symbolic or hard link, corrupted and torn journals, outcome-unknown items
 * resolved by an operator, and journals that are not regular files. Runs the
 * built CLI (dist/cli/main.js) against the real mock and counts at the mock.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, linkSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../src/client/journal.js';
import { JournalError, linkRequestKey, openFileJournal } from '../src/client/index.js';
import type { MockServer } from '../src/mock/index.js';
import { startCli, until, type Run, type Started } from './support/cli-process.js';
import { runInProcess } from './support/run-cli.js';
import { mockSuite, ndjson, taggedItems } from './support/mock-suite.js';

const API_KEY = 'sk-journal-planted-Z8q1';
const { item, keyOf } = taggedItems('J');

let mock: MockServer;
const { tmp, file } = mockSuite(API_KEY, 'abha-link-journal-', (m) => (mock = m));

const start = (args: string[], env: Record<string, string> = {}): Started => startCli(args, { ABHA_LINK_API_KEY: API_KEY, ABHA_LINK_BASE_URL: mock.url, ...env });
const run = (args: string[], env: Record<string, string> = {}): Promise<Run> => runInProcess(args, { env: { ABHA_LINK_API_KEY: API_KEY, ABHA_LINK_BASE_URL: mock.url, ...env } });

const linkedTwice = (tags: readonly string[]): number => tags.filter((t) => mock.linkCount(keyOf(t)).linked > 1).length;

describe('two submitters on one journal', () => {
  it('through a symbolic link: the second is refused while the first runs, and no item is linked twice', async () => {
    const tags = Array.from({ length: 30 }, (_, i) => `sym-${i}`);
    const input = file('sym.ndjson', ndjson(tags.map(item)));
    const journal = join(tmp, 'sym.journal');
    const alias = join(tmp, 'sym-alias.journal');
    symlinkSync(journal, alias);
    mock.faults.add({ endpoint: 'link-carecontext', times: Infinity, fault: { type: 'latency', ms: 200 } }); // the first run lasts seconds, whatever the load
    const received = mock.stats().linkReceived;
    const first = start(['submit', '--ndjson', '--concurrency', '2', '--journal', journal, input]);
    await until(() => mock.stats().linkReceived > received);
    const second = await run(['submit', '--ndjson', '--concurrency', '2', '--journal', alias, input]);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toMatch(/is in use by process \d+/);
    const r = await first.done;
    expect(r.code).toBe(0);
    expect(linkedTwice(tags)).toBe(0);
    expect(tags.every((t) => mock.linkCount(keyOf(t)).linked === 1)).toBe(true);
    // The lock is named after the file's real path, and records its device and inode.
    expect(existsSync(`${alias}.lock`)).toBe(false);
  });

  it('through a hard link: a journal with two names is refused, whichever name is used, and nothing is sent twice', async () => {
    const tags = Array.from({ length: 20 }, (_, i) => `hard-${i}`);
    const input = file('hard.ndjson', ndjson(tags.map(item)));
    const journal = join(tmp, 'hard.journal');
    const other = join(tmp, 'hard-other.journal');
    mock.faults.add({ endpoint: 'link-carecontext', times: Infinity, fault: { type: 'latency', ms: 200 } }); // the first run lasts seconds, whatever the load
    const received = mock.stats().linkReceived;
    const first = start(['submit', '--ndjson', '--concurrency', '2', '--journal', journal, input]);
    await until(() => mock.stats().linkReceived > received);
    // A second name for the journal in use, then a second submitter through it.
    linkSync(journal, other);
    const second = await run(['submit', '--ndjson', '--concurrency', '2', '--journal', other, input]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('has 2 hard links');
    expect((await first.done).code).toBe(0);
    expect(linkedTwice(tags)).toBe(0);
    // Later runs through either name are refused too, until one name is removed.
    const again = await run(['submit', '--ndjson', '--journal', journal, input]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('has 2 hard links');
    rmSync(other);
    const resumed = await run(['submit', '--ndjson', '--journal', journal, input]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('20 already acknowledged');
    expect(linkedTwice(tags)).toBe(0);
  });
});

describe('journal integrity', () => {
  /** A journal of `tags`, all acknowledged at the mock. */
  async function acknowledged(name: string, tags: readonly string[]): Promise<{ journal: string; input: string }> {
    const input = file(`${name}.ndjson`, ndjson(tags.map(item)));
    const journal = join(tmp, `${name}.journal`);
    const r = await run(['submit', '--ndjson', '--journal', journal, input]);
    expect(r.code).toBe(0);
    return { journal, input };
  }

  it('stops (exit 2), sending nothing, when one character of the header salt was changed', async () => {
    const tags = Array.from({ length: 10 }, (_, i) => `salt-${i}`);
    const { journal, input } = await acknowledged('salt', tags);
    const text = readFileSync(journal, 'utf8');
    const at = text.indexOf('"salt":"') + 10;
    writeFileSync(journal, `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`);
    const r = await run(['submit', '--ndjson', '--journal', journal, input]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('its header (line 1) is damaged: its check value does not match its salt');
    expect(linkedTwice(tags)).toBe(0);
  });

  it('stops at a line whose checksum does not match, naming the line', async () => {
    const tags = ['sum-0', 'sum-1'];
    const { journal, input } = await acknowledged('sum', tags);
    const lines = readFileSync(journal, 'utf8').split('\n');
    // Line 3 is an entry: one character of its request id changed.
    lines[2] = (lines[2] ?? '').replace(/"requestId":"(.)/, (_m, c: string) => `"requestId":"${c === 'a' ? 'b' : 'a'}`);
    writeFileSync(journal, lines.join('\n'));
    const r = await run(['submit', '--ndjson', '--journal', journal, input]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 3 is not a journal entry, or its checksum does not match');
    expect(linkedTwice(tags)).toBe(0);
  });

  it('says how many bytes of a torn last line it removed', async () => {
    const tags = ['torn-0', 'torn-1'];
    const { journal, input } = await acknowledged('torn', tags);
    appendFileSync(journal, '{"v":3,"key":"k2:0123');
    const r = await run(['submit', '--ndjson', '--journal', journal, input]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('removed a torn last line (21 bytes)');
    expect(readFileSync(journal, 'utf8').endsWith('\n')).toBe(true);
    expect(linkedTwice(tags)).toBe(0);
  });

  it('stops (exit 2) when a journal holding acknowledged items matches none of the input items, and sends with --force', async () => {
    const { journal } = await acknowledged('other', ['other-0', 'other-1']);
    const fresh = ['fresh-0', 'fresh-1', 'fresh-2'];
    const input = file('fresh.ndjson', ndjson(fresh.map(item)));
    const r = await run(['submit', '--ndjson', '--journal', journal, input]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the journal holds 2 acknowledged items, but none of the first 3 valid items of the input is in it');
    expect(fresh.map((t) => mock.linkCount(keyOf(t)).received)).toEqual([0, 0, 0]);
    const forced = await run(['submit', '--ndjson', '--force', '--journal', journal, input]);
    expect(forced.code).toBe(0);
    expect(fresh.map((t) => mock.linkCount(keyOf(t)).linked)).toEqual([1, 1, 1]);
  });

  it('keeps reading and continuing a format-2 journal (salt, no check values), saying so', async () => {
    const salt = Buffer.alloc(32, 7);
    const journal = file(
      'v2.journal',
      `${JSON.stringify({ v: 2, journal: 'abha-link', salt: salt.toString('base64url') })}\n${JSON.stringify({ v: 2, key: linkRequestKey(item('v2-0'), salt), state: 'acknowledged' })}\n`,
    );
    const input = file('v2.ndjson', ndjson([item('v2-0'), item('v2-1')]));
    const r = await run(['submit', '--ndjson', '--journal', journal, input]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('is of an older format (2) without check values');
    expect(r.stderr).toContain('1 acknowledged, 1 already acknowledged');
    expect(mock.linkCount(keyOf('v2-0')).received).toBe(0);
    const last = readFileSync(journal, 'utf8').trim().split('\n').at(-1) ?? '';
    expect(JSON.parse(last)).toMatchObject({ v: 2, state: 'acknowledged' });
  });
});

describe('outcome unknown: tools for the operator', () => {
  it('lists the unknown items (input line, key, last request id, time), and resends only those listed as confirmed', async () => {
    const tags = ['unk-0', 'unk-1', 'unk-2', 'unk-3'];
    const input = file('unk.ndjson', ndjson(tags.map(item)));
    const journal = join(tmp, 'unk.journal');
    // Items 2-4 reach the mock and hang there: a second Ctrl-C leaves them outcome unknown.
    mock.faults.add({ endpoint: 'link-carecontext', skip: 1, times: Infinity, fault: { type: 'hang' } });
    const received = mock.stats().linkReceived;
    const r = start(['submit', '--ndjson', '--concurrency', '3', '--journal', journal, input]);
    await until(() => mock.stats().linkReceived - received >= 4);
    r.child.kill('SIGINT');
    // Two signals sent at once may arrive as one: wait until the first was taken.
    await until(() => r.err().includes('stopping: no new items'));
    r.child.kill('SIGINT');
    expect((await r.done).code).toBe(130);
    mock.faults.clear();

    const listed = await run(['submit', '--list-unknown', '--ndjson', '--journal', journal, input]);
    expect(listed.code).toBe(0);
    const rows = listed.stdout.trim().split('\n');
    expect(rows).toHaveLength(3);
    for (const row of rows)
      expect(row).toMatch(
        new RegExp(`^${input}:[234] outcome unknown k2:[0-9a-f]{32}: last request [0-9a-f-]{36} at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; (no clear answer \\([a-z-]+\\)|in flight when a run stopped)$`),
      );
    expect(listed.stderr).toContain('3 items with an unknown outcome');
    // The person checked with the service: line 3 was not linked. Only it is sent.
    const key3 = /k2:[0-9a-f]{32}/.exec(rows.find((l) => l.startsWith(`${input}:3 `)) ?? '')?.[0] ?? '';
    const confirmed = file('confirmed.txt', `# not linked, checked with the service\n${key3}\n`);
    const before = tags.map((t) => mock.linkCount(keyOf(t)).received);
    const resent = await run(['submit', '--ndjson', '--resend-confirmed', confirmed, '--journal', journal, input]);
    expect(resent.code).toBe(1);
    const after = tags.map((t) => mock.linkCount(keyOf(t)).received);
    expect(after.map((n, i) => n - (before[i] ?? 0))).toEqual([0, 0, 1, 0]);
    expect(resent.stderr).toContain('1 confirmed item of 1 listed was among');
    expect(resent.stderr).toMatch(/2 outcome unknown/);
    // The journal now knows line 3 as acknowledged; two remain unknown.
    expect((await readJournal(journal)).unknown.size).toBe(2);
  });

  it('writes no `sending` line for a request that never left (the bearer token was refused), so a rerun sends it', async () => {
    const journal = join(tmp, 'token.journal');
    const input = file('token.ndjson', ndjson([item('tok-0')]));
    const refused = await run(['submit', '--ndjson', '--journal', journal, input], { ABHA_LINK_API_KEY: 'sk-refused' });
    expect(refused.code).toBe(1);
    const entries = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as { state: string });
    expect(entries.map((e) => e.state)).toEqual(['failed']);
    const r = await run(['submit', '--ndjson', '--journal', journal, input]);
    expect(r.code).toBe(0);
    expect(mock.linkCount(keyOf('tok-0')).linked).toBe(1);
  });
});

describe('journals that are not regular files', () => {
  it.skipIf(process.platform === 'win32')('refuses a named pipe at once (exit 2) instead of waiting on it', async () => {
    const fifo = join(tmp, 'pipe.journal');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const input = file('pipe.ndjson', ndjson([item('pipe-0')]));
    const r = await run(['submit', '--ndjson', '--journal', fifo, input]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not a regular file (a named pipe)');
    const dry = await run(['submit', '--dry-run', '--ndjson', '--journal', fifo, input]);
    expect(dry.code).toBe(2);
  });

  it('refuses a line longer than the cap, naming it, without reading it whole', async () => {
    const journal = file('long.journal', `${'x'.repeat(10_000_000)}\n`);
    await expect(readJournal(journal)).rejects.toThrow(/line 1 is longer than 4096 bytes/);
  });

  it('stops loading when its signal aborts, and leaves no lock behind', async () => {
    const journal = file('abort.journal', '');
    const stop = new AbortController();
    stop.abort();
    const e: unknown = await openFileJournal(journal, { signal: stop.signal }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(JournalError);
    expect(String(e)).toContain('loading was stopped');
    expect(existsSync(`${journal}.lock`)).toBe(false);
  });
});
