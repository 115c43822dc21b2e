/**
 * Every issue in one pass: schema issues, a date that does not exist and
 * lint errors of one document are reported together where they do not
 * depend on each other (README: every issue at once).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { safeBuildLinkRequest, type ClinicalInput } from '../src/index.js';
import { Readable, Writable } from 'node:stream';

// The built CLI, loaded by path so that type-checking does not depend on dist/ (its types are those of src/).
const { runCli } = (await import(new URL('../dist/cli/run.js', import.meta.url).href)) as typeof import('../src/cli/run.js');

const example = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

describe('one pass', () => {
  it('build: a misspelt field and a visit time that does not exist (2026-02-30) give both issues', () => {
    const input = example('opd-prescription.input.json') as { visit: Record<string, unknown>; patient: Record<string, unknown> };
    input.visit['at'] = '2026-02-30T10:30:00+05:30';
    input.patient['abhaAdress'] = input.patient['abhaAddress'];
    delete input.patient['abhaAddress'];
    const r = safeBuildLinkRequest(input as unknown as ClinicalInput);
    expect(r.success).toBe(false);
    const codes = r.success ? [] : r.issues.map((i) => `${i.path} ${i.code}`);
    expect(codes).toContain('/visit/at invalid-datetime');
    expect(codes).toContain('/patient/abhaAddress required');
    expect(codes.some((c) => c.endsWith('unknown-field'))).toBe(true);
  });

  it("validate --lint: a misspelt field and a lint error (a visit date after the run's today) give both issues", async () => {
    const request = example('opd-prescription.request.json');
    request['hospitalNmae'] = request['hospitalName'];
    delete request['hospitalName'];
    let stdout = '';
    const sink = (write: (s: string) => void): Writable => new Writable({ write: (c: Buffer, _e, done) => (write(c.toString()), done()) });
    const io = {
      stdout: sink((t) => (stdout += t)),
      stderr: sink(() => undefined),
      stdin: Readable.from([Buffer.from(JSON.stringify(request))]),
      env: {},
      now: () => new Date('2020-01-01T00:00:00Z'),
    };
    expect(await runCli(['validate', '--lint', '--format', 'json', '-'], io)).toBe(1);
    const out = JSON.parse(stdout) as { valid: boolean; errors: { path: string; code: string }[] };
    const codes = out.errors.map((e) => `${e.path} ${e.code}`);
    expect(codes).toContain('/hospitalName required');
    expect(codes.some((c) => c.endsWith(' unknown-field'))).toBe(true);
    expect(codes).toContain('/visitDate visit-date-in-future');
  });
});
