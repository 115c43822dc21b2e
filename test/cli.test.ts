/**
 * The `abha-link` command as a user runs it: the built CLI (npm test builds
 * first), in-process through runCli; a real child process where the process
 * boundary is the point (a reader that goes away).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, type CliResult } from './support/run-cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli/main.js');
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[], input?: string): Promise<CliResult> {
  return runInProcess(args, { stdin: input ?? '' });
}

function file(name: string, content: string): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

const exampleRequest = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(root, `examples/${name}.request.json`), 'utf8')) as Record<string, unknown>;

/** A stack trace has lines like "    at fn (file.js:1:2)". */
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

describe('abha-link schemas', () => {
  it('--json lists every schema with name, title, file and, for endpoints, method + path and part', async () => {
    const r = await run(['schemas', '--json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<Record<string, string>>;
    const index = JSON.parse(readFileSync(join(root, 'schemas/index.json'), 'utf8')) as unknown;
    expect(list).toEqual(index);
    const link = list.find((e) => e.name === 'link-carecontext-request');
    expect(link).toEqual({
      name: 'link-carecontext-request',
      title: 'Link care contexts: request body',
      file: 'schemas/link-carecontext-request.schema.json',
      endpoint: 'POST /api/m2/multiple/link-carecontext',
      part: 'request',
    });
    expect(list.filter((e) => e.endpoint !== undefined)).toHaveLength(24);
    for (const e of list) {
      expect(Object.keys(e).every((k) => ['name', 'title', 'file', 'resource', 'endpoint', 'part'].includes(k))).toBe(true);
      expect(readFileSync(join(root, e.file ?? ''), 'utf8')).toContain(`"$id"`);
    }
  });

  it('prints a table for people', async () => {
    const r = await run(['schemas']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^link-carecontext-request\s+request of POST \/api\/m2\/multiple\/link-carecontext$/m);
  });
});

describe('abha-link validate', () => {
  it('exits 0 for a valid link request', async () => {
    const r = await run(['validate', 'examples/opd-prescription.request.json']);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toContain('1 document, 1 valid, 0 invalid');
  });

  it('exits 1 and prints FILE:LINE PATH MESSAGE for each issue', async () => {
    const req = exampleRequest('opd-prescription');
    req.visitDate = '2026-02-30';
    const p = file('bad-date.json', JSON.stringify(req, null, 2));
    const r = await run(['validate', p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`${p}:5 /visitDate visitDate must be a calendar date YYYY-MM-DD (invalid-date)\n`);
  });

  it('points a missing field at the line of its parent object', async () => {
    const p = file('missing.json', '{\n  "abhaAddress": "asha@sbx",\n  "careContexts": [\n    {\n      "display": "x"\n    }\n  ]\n}\n');
    const r = await run(['validate', p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${p}:4 /careContexts/0/referenceNumber referenceNumber is required (required)`);
    expect(r.stdout).toContain(`${p}:1 /hipId hipId is required (required)`);
  });

  it('--format json prints one object per document', async () => {
    const r = await run(['validate', '--format', 'json', '-'], '{"abhaAddress": 5}');
    expect(r.code).toBe(1);
    const line = JSON.parse(r.stdout) as { index: number; valid: boolean; errors: Array<Record<string, string>> };
    expect(line.index).toBe(0);
    expect(line.valid).toBe(false);
    expect(line.errors).toContainEqual({ path: '/abhaAddress', message: 'abhaAddress must be a string', code: 'type' });
    expect(Object.keys(line.errors[0] ?? {})).toEqual(['path', 'message', 'code']);
  });

  it('--ndjson validates each non-empty line in order', async () => {
    const good = JSON.stringify(exampleRequest('lab-order'));
    const bad = JSON.stringify({ ...exampleRequest('lab-order'), visitId: 7 });
    const p = file('mixed.ndjson', `${good}\n\n${bad}\r\n${good}\n`);
    const r = await run(['validate', '--ndjson', '--format', 'json', p]);
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index: number; valid: boolean; errors: unknown[] });
    expect(lines.map((l) => [l.index, l.valid])).toEqual([
      [0, true],
      [1, false],
      [2, true],
    ]);
    expect(lines[1]?.errors).toEqual([{ path: '/visitId', message: 'visitId must be a string', code: 'type' }]);
  });

  it('--ndjson text output names the line of each document', async () => {
    const bad = JSON.stringify({ ...exampleRequest('lab-order'), visitId: 7 });
    const p = file('lines.ndjson', `\n${JSON.stringify(exampleRequest('lab-order'))}\n${bad}\n`);
    const r = await run(['validate', '--ndjson', p]);
    expect(r.stdout).toBe(`${p}:3 /visitId visitId must be a string (type)\n`);
  });

  it('exits 2 for JSON that does not parse, saying where', async () => {
    const p = file('broken.json', '{\n  "abhaAddress": "asha@sbx",\n  "hipId" "IN2910000123"\n}\n');
    const r = await run(['validate', p]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(`${p}:3:11 invalid JSON: expected a colon after the property name\n`);
    expect(r.stdout + r.stderr).not.toContain('IN2910000123');
  });

  it('exits 2 for a broken NDJSON line but still reports every other line', async () => {
    const good = JSON.stringify(exampleRequest('lab-order'));
    const p = file('broken.ndjson', `${good}\n{"visitId": }\n${good}\n`);
    const r = await run(['validate', '--ndjson', '--format', 'json', p]);
    expect(r.code).toBe(2);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index: number; valid: boolean; errors: Array<{ code: string; message: string }> });
    expect(lines.map((l) => l.valid)).toEqual([true, false, true]);
    expect(lines[1]?.errors[0]).toEqual({ path: '', code: 'invalid-json', message: 'line 2, column 13: expected a value' });
  });

  it('exits 2 for empty input', async () => {
    const r = await run(['validate', '-'], '');
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('the input is empty');
  });

  it.each([
    ['a missing file', ['validate', 'no-such-file.json'], 'abha-link: no-such-file.json: no such file'],
    ['an unknown option', ['validate', '--strict'], 'abha-link: unknown option --strict (abha-link validate --help lists the options)'],
    ['an unknown schema', ['validate', '--schema', 'xyzzy', 'examples/lab-order.request.json'], 'abha-link: unknown schema "xyzzy" (abha-link schemas lists them)'],
    ['a bad format', ['validate', '--format', 'xml'], 'abha-link: --format must be text or json'],
    ['two files, one missing', ['validate', 'examples/lab-order.request.json', 'b.json'], 'abha-link: b.json: no such file'],
    ['an unknown command', ['lint'], 'abha-link: unknown command "lint" (abha-link --help lists the commands)'],
    ['a directory', ['validate', 'examples'], 'abha-link: examples: is a directory, not a file'],
  ])('exits 2 without a stack trace for %s', async (_, args, message) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(message);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('validates any schema by name', async () => {
    expect((await run(['validate', '--schema', 'search-abha-request', '-'], '{"mobile":"9876543210"}')).code).toBe(0);
    const r = await run(['validate', '--schema', 'search-abha-request', '-'], '{"mobile":"98765"}');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('<stdin>:1 /mobile mobile must be exactly 10 digits (invalid-mobile)\n');
  });

  it('--lint reports warnings without failing, and lint errors as failures', async () => {
    const req = exampleRequest('opd-prescription') as { careContexts: Array<{ bundleData: { medications: Array<Record<string, string>> } }> };
    delete req.careContexts[0]?.bundleData.medications[0]?.dosage;
    const warn = file('warn.json', JSON.stringify(req));
    const w = await run(['validate', '--lint', '--format', 'json', warn]);
    expect(w.code).toBe(0);
    expect(JSON.parse(w.stdout)).toEqual({
      index: 0,
      valid: true,
      errors: [],
      warnings: [{ path: '/careContexts/0/bundleData/medications/0/dosage', message: expect.any(String), code: 'medication-without-dosage' }],
    });
    (req as Record<string, unknown>).abhaAddress = 'asha@gmail.com';
    const err = file('err.json', JSON.stringify(req));
    expect((await run(['validate', '--lint', err])).code).toBe(1);
    expect((await run(['validate', err])).code).toBe(0);
  });

  it('--lint flags a visit date after today', async () => {
    const req = exampleRequest('lab-order');
    req.visitDate = '2999-01-01';
    const p = file('future.json', JSON.stringify(req, null, 2));
    const r = await run(['validate', '--lint', p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('/visitDate visitDate is in the future in the facility time zone (visit-date-in-future)');
  });

  it('--lint with --schema clinical-input runs the rules build runs, information included, which never fails a document', async () => {
    const input = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.input.json'), 'utf8')) as Record<string, unknown>;
    expect(input.hiType).toBeDefined();
    delete input.hiType;
    const p = file('no-hitype.input.json', JSON.stringify(input, null, 2));
    const json = await run(['validate', '--schema', 'clinical-input', '--lint', '--format', 'json', p]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      index: 0,
      valid: true,
      errors: [],
      warnings: [],
      information: [{ path: '/hiType', message: expect.stringContaining('Prescription was chosen from the content'), code: 'hi-type-inferred' }],
    });
    const text = await run(['validate', '--schema', 'clinical-input', '--lint', p]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^.*no-hitype\.input\.json:\d+ \/hiType information: hiType is not given, so Prescription was chosen.*\(hi-type-inferred\)$/m);
    // Without --lint, or for a document that gives its hiType, nothing is said.
    expect(JSON.parse((await run(['validate', '--schema', 'clinical-input', '--format', 'json', p])).stdout)).toEqual({ index: 0, valid: true, errors: [] });
    const given = await run(['validate', '--schema', 'clinical-input', '--lint', '--format', 'json', 'examples/opd-prescription.input.json']);
    expect(JSON.parse(given.stdout)).toEqual({ index: 0, valid: true, errors: [], warnings: [] });
  });

  it('never echoes values of the document', async () => {
    const req = exampleRequest('opd-prescription');
    req.abhaAddress = 'very.secret.patient@gmail';
    req.visitDate = 'SECRET-DATE';
    req.hipId = { secret: 'SECRET-HIP' };
    const p = file('phi.json', JSON.stringify(req));
    for (const format of ['text', 'json']) {
      const r = await run(['validate', '--lint', '--format', format, p]);
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toMatch(/secret/i);
    }
  });
});

describe('abha-link build', () => {
  it.each(['opd-prescription', 'lab-order', 'multi-care-context'])('builds examples/%s.input.json into the committed request', async (name) => {
    const r = await run(['build', `examples/${name}.input.json`]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(exampleRequest(name));
    expect(r.stderr).toBe('');
  });

  it('reads stdin and prints one line with --compact', async () => {
    const r = await run(['build', '--compact', '-'], readFileSync(join(root, 'examples/lab-order.input.json'), 'utf8'));
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('exits 1 listing every issue with its line when the input cannot be built', async () => {
    const p = file('bad-input.json', '{\n  "hospital": { "name": "Clinic" },\n  "doctor": {},\n  "patient": { "abhaAddress": "asha@sbx" },\n  "visit": { "id": "V1", "at": "yesterday" }\n}\n');
    const r = await run(['build', p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${p}:2 /hospital/id id is required (required)`);
    expect(r.stderr).toContain(`${p}:3 /doctor/name name is required (required)`);
    expect(r.stderr).toContain(`${p}:5 /visit/at at must be an ISO 8601 date or date-time`);
    expect(r.stderr).toContain('cannot build a valid link request: 3 errors');
    expect(r.stderr).not.toMatch(STACK);
  });

  it('prints lint warnings on stderr and still builds', async () => {
    const input = JSON.parse(readFileSync(join(root, 'examples/lab-order.input.json'), 'utf8')) as { doctor: Record<string, string> };
    input.doctor = { name: 'Dr. Arvind Raghavan' };
    const r = await run(['build', '-'], JSON.stringify(input));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: doctor has neither licNumber nor hpId');
  });

  it('exits 2 for input that is not JSON', async () => {
    const r = await run(['build', '-'], '{"hospital": ');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('<stdin>:1:14 invalid JSON: expected a value\n');
  });
});

describe('help and version', () => {
  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it.each(['build', 'validate', 'schemas'])('%s --help explains the command and the exit codes', async (command) => {
    const r = await run([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: abha-link ${command}`);
    expect(r.stdout).toContain('Exit codes:');
  });

  it('--help lists the commands', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['build', 'validate', 'schemas']) expect(r.stdout).toContain(`  ${c} `);
  });

  it('no command prints help and exits 2', async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Usage: abha-link <command>');
  });
});

describe('hostile input to the CLI', () => {
  it('reports JSON nested too deeply for the position finder without crashing', async () => {
    const depth = 100_000;
    const p = file('deep.json', `{"abhaAddress":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    const r = await run(['validate', p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('/abhaAddress abhaAddress must be a string (type)');
    const broken = file('deep-broken.json', `{"abhaAddress":${'['.repeat(depth)}${']'.repeat(depth - 1)}}`);
    const b = await run(['validate', broken]);
    expect(b.code).toBe(2);
    expect(b.stderr).not.toMatch(STACK);
  });

  it('never repeats an unknown key in a message, and keeps it short and printable in the path', async () => {
    const req = exampleRequest('lab-order');
    const longKey = `Diabetes type 2 of Ramesh Kumar ${'x'.repeat(100_000)}`;
    const forged = 'x\nfake.json:1 / all good (ok)\u001b[2J\u202e';
    req[longKey] = 1;
    req[forged] = 1;
    const p = file('keys.json', JSON.stringify(req));
    for (const format of ['text', 'json']) {
      const r = await run(['validate', '--format', format, p]);
      expect(r.code).toBe(1);
      expect(r.stdout.length).toBeLessThan(1000);
      expect(r.stdout).not.toContain('Ramesh Kumar xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx');
      expect(r.stdout).not.toMatch(/[\u001b\u202e]/);
      expect(r.stdout).not.toMatch(/^fake\.json/m);
    }
    // by position (the 7th and 8th keys), never by the key itself
    expect((await run(['validate', p])).stdout).toContain(' /#6 the 7th key of the document is not in the spec; remove it or check its spelling (unknown-field)');
  });

  it('stops early and does not report success when the reader of its output goes away', async () => {
    const bad = JSON.stringify({ ...exampleRequest('lab-order'), visitId: 7 });
    const p = file('many-invalid.ndjson', `${bad}\n`.repeat(20_000));
    const r = spawnSync('bash', ['-c', `node "${cli}" validate --ndjson "${p}" | head -1 > /dev/null; echo "exit=\${PIPESTATUS[0]}"`], { cwd: root, encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('exit=1');
    expect(r.stderr).toContain('standard output was closed before the end; stopped early');
  });
});
