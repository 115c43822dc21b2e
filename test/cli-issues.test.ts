/**
 * How `abha-link validate` prints many issues and unknown keys: the built CLI
 * (npm test builds first), run in-process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, type CliResult } from './support/run-cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-issues-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[]): Promise<CliResult> {
  return runInProcess(args);
}

function file(name: string, content: string): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

const request = (): Record<string, unknown> => JSON.parse(readFileSync(join(root, 'examples/opd-prescription.request.json'), 'utf8')) as Record<string, unknown>;

describe('validate prints a bounded number of issues per document', () => {
  const p = file('wrong-typed.json', JSON.stringify({ ...request(), careContexts: Array.from({ length: 5000 }, () => 1) }));

  it('prints 20 issues, how many more, and the count of those not listed at all', async () => {
    const r = await run(['validate', p]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(22);
    expect(lines[0]).toBe(`${p}:1 /careContexts careContexts must have at most 100 items (too-many-items)`);
    expect(lines[20]).toBe(`${p}: … and 80 more; use --format json for all`);
    expect(lines[21]).toBe(`${p}:1 / the document has 4901 more issues that are not listed (at most 100 are listed per document); fix these and validate again (too-many-issues)`);
  });

  it('lists the 100 issues and the summary in --format json', async () => {
    const r = await run(['validate', '--format', 'json', p]);
    const doc = JSON.parse(r.stdout) as { errors: { code: string }[] };
    expect(doc.errors).toHaveLength(101);
    expect(doc.errors.at(-1)?.code).toBe('too-many-issues');
  });
});

describe('validate shows unknown keys by position, at their line', () => {
  it('prints the position and the line of the key, never the key', async () => {
    const req = request();
    const text = JSON.stringify({ ...req, 'asha.verma@sbx has HIV': true }, null, 2);
    const p = file('secret-key.json', text);
    const r = await run(['validate', p]);
    expect(r.code).toBe(1);
    const line = text.split('\n').findIndex((l) => l.includes('asha.verma@sbx has HIV')) + 1;
    expect(r.stdout).toBe(`${p}:${line} /#6 the 7th key of the document is not in the spec; remove it or check its spelling (unknown-field)\n`);
    expect(`${r.stdout}${r.stderr}`).not.toContain('HIV');
  });

  it('names the key itself only when asked with --show-keys, at the same line', async () => {
    const text = JSON.stringify({ ...request(), 'stray note': true }, null, 2);
    const p = file('shown-key.json', text);
    const r = await run(['validate', '--show-keys', p]);
    expect(r.code).toBe(1);
    const line = text.split('\n').findIndex((l) => l.includes('stray note')) + 1;
    expect(r.stdout).toMatch(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line} /stray note .*\\(unknown-field\\)\n$`));
  });

  it('suggests the field a misspelt key was meant to be', async () => {
    const req = request();
    const text = JSON.stringify(req, null, 2).replace('"drugName": "Metformin', '"drugname": "Metformin');
    const p = file('misspelt.json', text);
    const r = await run(['validate', p]);
    const line = text.split('\n').findIndex((l) => l.includes('"drugname"')) + 1;
    expect(r.stdout).toContain(`${p}:${line} /careContexts/0/bundleData/medications/0/#0 the 1st key of medications[0] is not in the spec; did you mean drugName? (unknown-field)`);
  });
});

describe('build prints an hiType it chose as information, which never changes the exit code', () => {
  const input = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.input.json'), 'utf8')) as Record<string, unknown>;
  delete input.hiType;

  it('builds with exit 0 and labels the line "information:", not "warning:"', async () => {
    const p = file('inferred.json', JSON.stringify({ ...input, advice: 'Steam inhalation twice a day' }));
    const r = await run(['build', p]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { careContexts: Array<{ hiType: string }> }).careContexts[0]?.hiType).toBe('OPConsultation');
    expect(r.stderr).toBe(
      `${p}:1 /hiType information: hiType is not given, so OPConsultation was chosen from the content: it has medications, but also advice, which hiType Prescription has no place for; set "hiType" on this care context to choose it yourself, e.g. "hiType": "Prescription" (hi-type-inferred)\n`,
    );
    expect(r.stderr).not.toContain('Steam');
  });

  it('prints nothing when the input gives its hiType', async () => {
    const r = await run(['build', file('given.json', JSON.stringify({ ...input, hiType: 'OPConsultation', advice: 'Steam inhalation twice a day' }))]);
    expect([r.code, r.stderr]).toEqual([0, '']);
  });
});
