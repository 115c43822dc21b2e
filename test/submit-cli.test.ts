/**
 * `abha-link submit` (built dist/cli/main.js) against the real mock: what a
 * person at a terminal sees, runs without a journal, lint, clinical inputs,
 * Ctrl-C and journal paths.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { linkRequestKey } from '../src/client/index.js';
import { startMockServer, type MockServer } from '../src/mock/index.js';
import type { LinkCareContextRequest } from '../src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli/main.js');
const ptyRun = join(root, 'test/support/pty-run.py');
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-submit-cli-'));
const API_KEY = 'sk-submit-cli-planted-M3k9';
const base = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.request.json'), 'utf8')) as LinkCareContextRequest;
const clinicalInput = readFileSync(join(root, 'examples/opd-prescription.input.json'), 'utf8');
const item = (tag: string): LinkCareContextRequest => ({ ...base, visitId: `OPD-C-${tag}` });
const keyOf = (tag: string): string => linkRequestKey(item(tag));
const ndjson = (values: unknown[]): string => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n') + '\n';

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ apiKey: API_KEY });
});
afterAll(async () => {
  await mock.close();
  rmSync(tmp, { recursive: true, force: true });
});
beforeEach(() => mock.faults.clear());

function file(name: string, content: string): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` with its output collected, without blocking this process (the mock runs here). */
function spawnCollect(command: string, args: string[], env: Record<string, string | undefined> = {}, input = ''): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ABHA_LINK_API_KEY: API_KEY, ABHA_LINK_BASE_URL: undefined, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const run = (args: string[], env: Record<string, string | undefined> = {}, input = ''): Promise<Run> => spawnCollect(process.execPath, [cli, ...args], env, input);

/** Runs the CLI with stdin, stdout and stderr on one pseudo-terminal `columns` wide; `tty` is what the terminal received. */
async function onTerminal(args: string[], columns: number, term: string): Promise<{ code: number | null; tty: string }> {
  const r = await spawnCollect('python3', [ptyRun, String(columns), process.execPath, cli, ...args], { TERM: term });
  return { code: r.code, tty: r.stdout.replace(/\r\n/g, '\n') };
}

/** The text a terminal shows for a transcript: each row after its last erase. */
const rows = (tty: string): string[] => tty.split('\n').map((l) => l.split('\r\x1b[2K').at(-1) ?? '');

const hasPython = spawnCollect('python3', ['-c', 'import pty, termios, fcntl']).then((r) => r.code === 0);

describe('abha-link submit on a terminal', () => {
  it('prints every item line whole, the last ones and failures included, with stdout and stderr on a narrow terminal', async (ctx) => {
    if (!(await hasPython)) ctx.skip(); // python3 (with pty) fakes the terminal; Debian's base image has it
    const tags = Array.from({ length: 12 }, (_, i) => `tty-${i}`);
    const p = file('tty12.ndjson', ndjson(tags.map(item)));
    // The last two items fail: the screen must say which.
    mock.faults.add({ endpoint: 'link-carecontext', skip: 10, times: 2, fault: { type: 'status', status: 400 } });
    const r = await onTerminal(['submit', '--ndjson', '--no-journal', '--concurrency', '1', '--base-url', mock.url, p], 40, 'xterm');
    expect(r.code).toBe(1);
    // Line wrapping is never turned off: a line longer than the terminal wraps instead of being cut.
    expect(r.tty).not.toContain('\x1b[?7l');
    const shown = rows(r.tty);
    for (let i = 1; i <= 10; i++)
      expect(
        shown.filter((l) => new RegExp(`^${p}:${i} acknowledged k2:[0-9a-f]{32} \\(HTTP 200, request [0-9a-f-]{36}\\)$`).test(l)),
        `line ${i}`,
      ).toHaveLength(1);
    for (const i of [11, 12])
      expect(
        shown.filter((l) => new RegExp(`^${p}:${i} failed k2:[0-9a-f]{32}: RejectedError: .+`).test(l)),
        `line ${i}`,
      ).toHaveLength(1);
    expect(shown).toContain('submit: 12 items: 10 acknowledged, 0 already acknowledged (skipped), 2 failed, 0 outcome unknown, 0 invalid');
    // The status line is cut to the terminal's width, so that it fits on one row and is erased whole.
    const statusRows = r.tty
      .split('\r\x1b[2K')
      .map((s) => s.split('\n')[0] ?? '')
      .filter((s) => s.startsWith('submit: input read'));
    expect(statusRows.length).toBeGreaterThan(0);
    for (const s of statusRows) expect([...s].length).toBeLessThanOrEqual(39);
  });

  it('prints the one line of a one-item run', async (ctx) => {
    if (!(await hasPython)) ctx.skip();
    const p = file('tty1.ndjson', ndjson([item('tty-one')]));
    const r = await onTerminal(['submit', '--ndjson', '--no-journal', '--base-url', mock.url, p], 80, 'xterm');
    expect(r.code).toBe(0);
    expect(rows(r.tty).filter((l) => l.startsWith(`${p}:1 acknowledged `))).toHaveLength(1);
  });

  it('sends no escape sequence to a dumb terminal, and still prints every line', async (ctx) => {
    if (!(await hasPython)) ctx.skip();
    const tags = Array.from({ length: 3 }, (_, i) => `dumb-${i}`);
    const p = file('dumb.ndjson', ndjson(tags.map(item)));
    const r = await onTerminal(['submit', '--ndjson', '--no-journal', '--base-url', mock.url, p], 80, 'dumb');
    expect(r.code).toBe(0);
    expect(r.tty).not.toContain('\x1b');
    expect(r.tty.match(/ acknowledged k2:/g)).toHaveLength(3);
  });
});

describe('abha-link submit without a journal', () => {
  it('refuses to send many items (--ndjson) without --journal or --no-journal, sending nothing (exit 2)', async () => {
    const p = file('nojournal.ndjson', ndjson([item('nj-1'), item('nj-2')]));
    const r = await run(['submit', '--ndjson', '--base-url', mock.url, p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('give --journal FILE');
    expect(r.stderr).toContain('--no-journal');
    expect(mock.linkCount(keyOf('nj-1')).received).toBe(0);
  });

  it('when stopped early without a journal, says that nothing recorded progress instead of pointing to a --journal it did not have', async () => {
    const p = file('nojournal-stop.ndjson', ndjson(Array.from({ length: 5 }, (_, i) => item(`njs-${i}`))));
    // A refused API key stops the batch at its first item.
    const r = await run(['submit', '--ndjson', '--no-journal', '--concurrency', '1', '--base-url', mock.url, p], { ABHA_LINK_API_KEY: 'sk-wrong-key' });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('same --journal');
    expect(r.stderr).toContain('no journal recorded this run, so a rerun of the same input sends every item again');
    expect(r.stderr).toContain('--journal FILE');
  });

  it('sends one link request (a single JSON file) without a journal', async () => {
    const p = file('single.json', JSON.stringify(item('single')));
    const r = await run(['submit', '--base-url', mock.url, p]);
    expect(r.code).toBe(0);
    expect(mock.linkCount(keyOf('single')).linked).toBe(1);
  });
});

describe('abha-link submit lints as validate --lint does', () => {
  it('skips lint errors (empty careContexts, a visit date in the future) as invalid, with the messages of validate --lint', async () => {
    const future = { ...item('future'), visitDate: '2999-01-01' };
    const empty = { ...item('empty'), careContexts: [] };
    const p = file('lint.ndjson', ndjson([item('lint-ok'), future, empty]));
    const r = await run(['submit', '--ndjson', '--no-journal', '--concurrency', '1', '--base-url', mock.url, p]);
    expect(r.code).toBe(1);
    expect(mock.linkCount(linkRequestKey(future)).received).toBe(0);
    expect(mock.linkCount(linkRequestKey(empty)).received).toBe(0);
    expect(mock.linkCount(keyOf('lint-ok')).linked).toBe(1);
    const v = await run(['validate', '--lint', '--ndjson', '--format', 'json', p]);
    const errors = v.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { errors: { path: string; code: string; message: string }[] });
    for (const [index, line] of [
      [1, 2],
      [2, 3],
    ] as const) {
      const expected = errors[index]?.errors ?? [];
      expect(expected.length).toBeGreaterThan(0);
      for (const e of expected) expect(r.stdout).toContain(`${p}:${line} invalid, not sent: ${e.path || '/'} ${e.message} (${e.code})`);
    }
    expect(r.stderr).toContain('2 invalid');
  });
});

describe('abha-link submit given a clinical input', () => {
  it('says to run abha-link build first instead of listing schema errors, for a file and for an NDJSON line', async () => {
    const single = file('clinical.json', clinicalInput);
    const r = await run(['submit', '--base-url', mock.url, single]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`${single} invalid, not sent: this is a clinical input: run \`abha-link build\` first\n`);
    const lines = file('clinical.ndjson', ndjson([item('cl-ok'), JSON.parse(clinicalInput) as unknown]));
    const n = await run(['submit', '--ndjson', '--no-journal', '--base-url', mock.url, lines]);
    expect(n.code).toBe(1);
    expect(n.stdout).toContain(`${lines}:2 invalid, not sent: this is a clinical input: run \`abha-link build\` first\n`);
    expect(n.stdout.match(/invalid, not sent/g)).toHaveLength(1);
    expect(n.stderr).toContain('submit: 2 items: 1 acknowledged');
  });
});

describe('abha-link submit: Ctrl-C and journal paths', () => {
  it('exits 130 when stopped by Ctrl-C', async () => {
    const journal = join(tmp, 'sigint.journal');
    const tags = Array.from({ length: 6 }, (_, i) => `sig-${i}`);
    const p = file('sigint.ndjson', ndjson(tags.map(item)));
    mock.faults.add({ endpoint: 'link-carecontext', skip: 1, times: Infinity, fault: { type: 'latency', ms: 300 } });
    const child = spawn(process.execPath, [cli, 'submit', '--ndjson', '--concurrency', '1', '--journal', journal, '--base-url', mock.url, p], {
      cwd: root,
      env: { ...process.env, ABHA_LINK_API_KEY: API_KEY },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (!stdout.includes(' acknowledged ') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('stopped before the end of the input: rerun with the same --journal to continue');
  });

  it('says that the folder of --journal does not exist (exit 2), sending nothing', async () => {
    const p = file('nofolder.ndjson', ndjson([item('nf-1')]));
    const journal = join(tmp, 'no-such-folder', 'run.journal');
    const r = await run(['submit', '--ndjson', '--journal', journal, '--base-url', mock.url, p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the folder ${join(tmp, 'no-such-folder')} does not exist`);
    expect(existsSync(join(tmp, 'no-such-folder'))).toBe(false);
    expect(mock.linkCount(keyOf('nf-1')).received).toBe(0);
  });
});
