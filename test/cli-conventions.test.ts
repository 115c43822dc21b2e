/**
 * The conventions of well-liked command-line tools (eslint, prettier, tsc),
 * and input the CLI must refuse clearly: the built CLI (npm test builds
 * first), in-process; the built dist/cli/main.js in a child process for
 * Ctrl-C, streaming stdin, and a stdin that is /dev/zero or write-only.
 */
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, type CliResult } from './support/run-cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli/main.js');
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-conventions-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in a child process, for what only a real process has (a stdin that is /dev/zero or not open for reading); a run that does not end within 20 s is killed and fails its test. */
function spawnRun(args: string[], input: string | Buffer = '', options: SpawnSyncOptions = {}): Result {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, input, encoding: 'utf8', timeout: 20_000, maxBuffer: 64 * 1024 * 1024, ...options });
  return { code: r.status, signal: r.signal, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Runs the CLI in-process (the built code, see test/support/run-cli.ts). */
function run(args: string[], input: string | Buffer = ''): Promise<CliResult> {
  return runInProcess(args, { stdin: input });
}

function file(name: string, content: string | Buffer): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

const example = (name: string): string => readFileSync(join(root, 'examples', name), 'utf8');
const STACK = /^\s+at .+:\d+:\d+\)?$/m;
const COMMANDS = ['build', 'validate', 'schemas', 'fhir', 'submit', 'mock', 'openapi', 'render', 'serve'];
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** A FIFO nobody writes to: reading it would wait for ever. */
function fifo(name: string): string {
  const p = join(tmp, name);
  const r = spawnSync('mkfifo', [p]);
  if (r.status !== 0) throw new Error('mkfifo is needed for this test');
  return p;
}

describe('validate given a clinical input', () => {
  it('says it is a clinical input and what to run instead, in text', async () => {
    const r = await run(['validate', 'examples/lab-order.input.json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('examples/lab-order.input.json:1 hint: this is a clinical input: run `abha-link build`, or pass `--schema clinical-input`\n');
  });

  it('gives the hint as a field of the JSON result', async () => {
    const r = await run(['validate', '--format', 'json', 'examples/lab-order.input.json']);
    expect(r.code).toBe(1);
    const line = JSON.parse(r.stdout) as { valid: boolean; hint?: string };
    expect(line.valid).toBe(false);
    expect(line.hint).toBe('this is a clinical input: run `abha-link build`, or pass `--schema clinical-input`');
  });

  it('gives no hint to a link request, nor when --schema clinical-input is asked for', async () => {
    const bad = JSON.stringify({ ...(JSON.parse(example('lab-order.request.json')) as object), visitId: 7 });
    expect((await run(['validate', '-'], bad)).stdout).not.toContain('hint');
    const input = JSON.parse(example('lab-order.input.json')) as Record<string, unknown>;
    delete input.visit;
    expect((await run(['validate', '--schema', 'clinical-input', '-'], JSON.stringify(input))).stdout).not.toContain('hint');
  });
});

describe('several files and glob patterns', () => {
  it('validate reports each file and sums up, with exit 1 when one is invalid', async () => {
    const bad = file('bad.request.json', JSON.stringify({ ...(JSON.parse(example('lab-order.request.json')) as object), visitId: 7 }, null, 2));
    const r = await run(['validate', 'examples/lab-order.request.json', bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`${bad}:6 /visitId visitId must be a string (type)\n`);
    expect(r.stderr).toBe('2 files: 2 documents, 1 valid, 1 invalid\n');
  });

  it('validate expands a quoted glob itself (as on Windows cmd) and names the file in each JSON result', async () => {
    const r = await run(['validate', '--format', 'json', 'examples/*.request.json']);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; index: number; valid: boolean });
    expect(lines.map((l) => l.file)).toEqual([
      'examples/discharge-summary.request.json',
      'examples/health-document.request.json',
      'examples/immunization.request.json',
      'examples/invoice.request.json',
      'examples/lab-order.request.json',
      'examples/long-prescription.request.json',
      'examples/multi-care-context.request.json',
      'examples/opd-prescription.request.json',
      'examples/wellness.request.json',
    ]);
    expect(lines.every((l) => l.valid && l.index === 0)).toBe(true);
  });

  it('a missing file among several is reported before any file is validated, so nothing is half done (exit 2)', async () => {
    const missing = join(tmp, 'not-there.request.json');
    const r = await run(['validate', '--format', 'json', 'examples/lab-order.request.json', missing]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`abha-link: ${missing}: no such file\n`);
  });

  it('a pattern that matches nothing is an error, exit 2', async () => {
    const r = await run(['validate', 'examples/*.nothing']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('abha-link: no file matches examples/*.nothing\n');
  });

  it('build prints one request per line (NDJSON) for several inputs, in the order of the files', async () => {
    const r = await run(['build', 'examples/lab-order.input.json', 'examples/opd-prescription.input.json']);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([JSON.parse(example('lab-order.request.json')), JSON.parse(example('opd-prescription.request.json'))]);
  });

  it('build goes on after an input that cannot be built, and exits 1', async () => {
    const broken = file('broken.input.json', '{\n  "hospital": {}\n}\n');
    const r = await run(['build', broken, 'examples/lab-order.input.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${broken}:2 /hospital/id id is required (required)`);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(example('lab-order.request.json')));
  });
});

describe('build --ndjson', () => {
  const input = JSON.stringify(JSON.parse(example('lab-order.input.json')));
  const other = JSON.stringify(JSON.parse(example('opd-prescription.input.json')));

  it('turns one clinical input per line into one link request per line, with the issues of a bad line on stderr by line number', async () => {
    const r = await run(['build', '--ndjson', '-'], `${input}\n\n{"hospital":{}}\n${other}\n{"visit": }\n`);
    expect(r.code).toBe(2);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(out).toEqual([JSON.parse(example('lab-order.request.json')), JSON.parse(example('opd-prescription.request.json'))]);
    expect(r.stderr).toContain('<stdin>:3 /hospital/id id is required (required)');
    expect(r.stderr).toContain('<stdin>:5:11 invalid JSON: expected a value');
    expect(r.stderr).toContain('<stdin>: 4 inputs, 2 built, 1 failed, 1 not JSON');
  });

  it('exits 1 when a line cannot be built and every line is JSON', async () => {
    const r = await run(['build', '--ndjson', '-'], `${input}\n{"hospital":{}}\n`);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('streams: the request of the first line comes out before the input ends', async () => {
    const child = spawn(process.execPath, [cli, 'build', '--ndjson', '-'], { cwd: root });
    child.stdin.write(`${input}\n`);
    const first = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    expect(JSON.parse(first)).toEqual(JSON.parse(example('lab-order.request.json')));
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
  });
});

describe('did you mean', () => {
  it.each([
    ['a misspelt option', ['validate', '--shcema', 'x'], 'abha-link: unknown option --shcema; did you mean --schema? (abha-link validate --help lists the options)'],
    ['a single-dash long option', ['build', '-compact'], 'abha-link: unknown option -compact; did you mean --compact? (abha-link build --help lists the options)'],
    ['a misspelt command', ['valdate'], 'abha-link: unknown command "valdate"; did you mean validate? (abha-link --help lists the commands)'],
    ['a schema name', ['validate', '--schema', 'clinical', '-'], 'abha-link: unknown schema "clinical"; did you mean clinical-input? (abha-link schemas lists them)'],
    ['a choice', ['validate', '--format', 'jsno', '-'], 'abha-link: --format must be text or json; did you mean json?'],
    [
      'a template name',
      ['render', '--template', 'prescripton', '-'],
      'abha-link: --template must be discharge-summary, immunisation-certificate, invoice, lab-order, prescription, visit-summary, wellness or the path of a .hbs file; did you mean prescription?',
    ],
  ])('suggests the nearest name for %s, exit 2', async (_, args, message) => {
    const r = await run(args, '{}');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(message);
  });

  it('suggests nothing for a word far from every name', async () => {
    expect((await run(['validate', '--colour'])).stderr.trim()).toBe('abha-link: unknown option --colour (abha-link validate --help lists the options)');
  });
});

describe('--version and --help on every command', () => {
  it.each(COMMANDS)('%s --version prints the version', async (command) => {
    expect(await run([command, '--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it.each([...COMMANDS.map((c) => [c]), []])('help of %s has no line over 80 columns', async (...command) => {
    const r = await run([...command, '--help']);
    expect(r.code).toBe(0);
    const long = r.stdout.split('\n').filter((l) => l.length > 80);
    expect(long).toEqual([]);
    if (command.length > 0) expect(r.stdout).toContain('-v, --version');
  });
});

describe('option errors', () => {
  // One wording for every command: "--NAME must be …", "--NAME needs a value", "--NAME takes no value", "unknown option …".
  const WORDING = /^abha-link: (--[a-z-]+ (must be .+|needs a value|takes no value)|unknown option \S+.*|abha-link [a-z]+ takes (no FILE|at most one FILE, got \d+).*)$/;
  it.each([
    ['validate', '--format', 'xml'],
    ['validate', '--schema'],
    ['validate', '--lint=yes'],
    ['build', '--compact=1'],
    ['render', '--lang', 'fr', '-'],
    ['render', '--size', 'letter', '-'],
    ['render', '--template', '', '-'],
    ['render', 'a.json', 'b.json'],
    ['fhir', '--hi-type', 'Blood', '-'],
    ['fhir', '--timestamp', 'yesterday', '-'],
    ['fhir', '--attach', 'nourl', '-'],
    ['fhir', 'a.json', 'b.json'],
    ['mock', '--port', 'eighty'],
    ['mock', '--otp', '12'],
    ['mock', 'accounts.json'],
    ['openapi', '--server', 'ftp://x'],
    ['openapi', 'extra'],
    ['schemas', 'extra'],
    ['submit', '--format', 'xml', '--dry-run', '-'],
    ['submit', '--concurrency'],
  ])('%s %s … is worded as every other option error, exit 2', async (...args) => {
    const r = await run(args, '{}');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(WORDING);
  });
});

describe('Ctrl-C', () => {
  /** Starts a command, waits for its first output on `stream`, sends SIGINT, and gives the exit code and stderr. */
  async function interrupt(args: string[], firstInput: string, stream: 'stdout' | 'stderr' = 'stdout'): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, env: { ...process.env, ABHA_LINK_API_KEY: '' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    if (firstInput !== '') child.stdin.write(firstInput);
    await new Promise<void>((resolve) => child[stream].once('data', () => resolve()));
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
    child.kill('SIGINT');
    return { ...(await done), stderr };
  }

  it.each([
    ['validate --ndjson', ['validate', '--ndjson', '--format', 'json', '-']],
    ['build --ndjson', ['build', '--ndjson', '-']],
  ])('%s stops with exit 130 while it waits for more input', async (_, args) => {
    const line = args[0] === 'build' ? example('lab-order.input.json') : example('lab-order.request.json');
    const r = await interrupt(args, `${JSON.stringify(JSON.parse(line))}\n`);
    expect(r).toMatchObject({ code: 130, signal: null });
    expect(r.stderr).toContain('stopped by Ctrl-C');
  });

  it('mock stops with exit 130', async () => {
    const r = await interrupt(['mock', '--port', '0'], '');
    expect(r).toMatchObject({ code: 130, signal: null });
    expect(r.stderr).toContain('mock stopped');
  });
});

describe('input that is not UTF-8', () => {
  const request = example('lab-order.request.json');

  it.each([
    ['UTF-16 LE with a byte-order mark', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(request, 'utf16le')])],
    ['UTF-16 LE without a byte-order mark', Buffer.from(request, 'utf16le')],
    ['UTF-16 BE with a byte-order mark', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(request, 'utf16le').swap16()])],
  ])('%s is told to save it as UTF-8, exit 2', async (name, bytes) => {
    const p = file(`${name.replace(/\W+/g, '-')}.json`, bytes);
    for (const args of [
      ['validate', p],
      ['build', p],
      ['validate', '--ndjson', p],
    ]) {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(r.stdout + r.stderr).toContain(`${p}:1:1 UTF-16 text; save it as UTF-8`);
      expect(r.stdout + r.stderr).not.toContain('unexpected character');
    }
  });

  it('a byte that is not UTF-8 is refused with its line and column, never turned into U+FFFD on a printed prescription', async () => {
    const input = example('opd-prescription.input.json');
    const at = input.indexOf('"drugName": "') + '"drugName": "'.length;
    const bytes = Buffer.concat([Buffer.from(input.slice(0, at)), Buffer.from([0xc3, 0x28]), Buffer.from(input.slice(at))]);
    const p = file('latin1.input.json', bytes);
    const before = input.slice(0, at).split('\n');
    const where = `${p}:${before.length}:${(before.at(-1) ?? '').length + 1} invalid UTF-8 (byte ${at}); save it as UTF-8`;
    for (const command of ['render', 'build', 'validate', 'fhir']) {
      const r = await run([command, p]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(where);
      expect(r.stdout).not.toContain('\ufffd');
    }
  });

  it('a bad NDJSON line is reported with its line and column, the other lines still validated', async () => {
    const line = JSON.stringify(JSON.parse(request));
    const bytes = Buffer.concat([Buffer.from(`${line}\n{"hipId": "`), Buffer.from([0xff]), Buffer.from(`"}\n${line}\n`)]);
    const r = await run(['validate', '--ndjson', '--format', 'json', file('bad-byte.ndjson', bytes)]);
    expect(r.code).toBe(2);
    const results = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { valid: boolean; errors: Array<{ message: string }> });
    expect(results.map((x) => x.valid)).toEqual([true, false, true]);
    expect(results[1]?.errors[0]?.message).toBe('line 2, column 12: invalid UTF-8 (byte 11 of the line); save it as UTF-8');
  });

  it('a UTF-8 byte-order mark is fine', async () => {
    expect((await run(['validate', file('bom.json', `\ufeff${request}`)])).code).toBe(0);
  });
});

describe('standard input that cannot be read whole', () => {
  it('refuses more than 64 MiB with exit 2, naming the limit (an endless stdin such as /dev/zero)', async () => {
    const zero = openSync('/dev/zero', 'r');
    try {
      const r = spawnRun(['validate', '-'], '', { stdio: [zero, 'pipe', 'pipe'] });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('abha-link: <stdin>: larger than 64 MiB, the limit for one document; for many documents, give one per line with --ndjson\n');
    } finally {
      closeSync(zero);
    }
  });

  it('refuses a file over 64 MiB before reading it', async () => {
    const big = file('big.json', Buffer.alloc(64 * 1024 * 1024 + 1, 0x20));
    const r = await run(['build', big]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`abha-link: ${big}: larger than 64 MiB, the limit for one document; for many documents, give one per line with --ndjson\n`);
    rmSync(big);
  });

  it('says that stdin is not open for reading, exit 2 (not "a bug")', async () => {
    const writeOnly = openSync(join(tmp, 'write-only'), 'w');
    try {
      const r = spawnRun(['validate', '-'], '', { stdio: [writeOnly, 'pipe', 'pipe'] });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('abha-link: <stdin>: is not open for reading\n');
      expect(r.stderr).not.toMatch(STACK);
    } finally {
      closeSync(writeOnly);
    }
  });
});

describe('files that must be regular files', () => {
  const key = file('key', 'test-key\n');
  writeFileSync(key, 'test-key\n', { mode: 0o600 });

  it.each([
    ['an API key file', (p: string) => ['submit', '--dry-run', '--api-key-file', p, 'examples/lab-order.request.json']],
    ['a seed file', (p: string) => ['mock', '--seed', p]],
    ['a template', (p: string) => ['render', '--template', p, 'examples/lab-order.input.json']],
    ['FHIR input', (p: string) => ['fhir', p]],
    ['FHIR input with --from-fhir', (p: string) => ['fhir', '--from-fhir', p]],
  ])('%s that is a FIFO is refused at once, exit 2', async (what, args) => {
    const p = fifo(`${what.replace(/\W+/g, '-')}.fifo`);
    const r = await run(args(p));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`abha-link: ${p}: is a pipe (FIFO), not a regular file; give a file${what.startsWith('FHIR') ? ', or - for standard input' : ''}\n`);
  });

  it('a device is refused too', async () => {
    const r = await run(['fhir', '/dev/zero']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('abha-link: /dev/zero: is a device, not a regular file; give a file, or - for standard input\n');
  });

  it('FHIR input from standard input is still allowed', async () => {
    const r = await run(['fhir', '-'], example('lab-order.input.json'));
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { resourceType: string }).resourceType).toBe('Bundle');
  });

  it('a directory given as a template says so', async () => {
    mkdirSync(join(tmp, 'tpl-dir'), { recursive: true });
    const r = await run(['render', '--template', join(tmp, 'tpl-dir'), 'examples/lab-order.input.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`abha-link: ${join(tmp, 'tpl-dir')}: is a directory, not a file\n`);
  });

  it('the key file is still read', async () => {
    const r = await run(['submit', '--dry-run', '--api-key-file', key, 'examples/lab-order.request.json']);
    expect(r.code).toBe(0);
  });
});
