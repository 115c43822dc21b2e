/**
 * Validation as a FHIR OperationOutcome (issue 23 item 5), for tools that
 * speak FHIR: `toOperationOutcome` and `abha-link fhir validate --format outcome`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ISSUE_CODE_SYSTEM } from '../src/fhir/outcome.js';
import { toFhirBundles, toOperationOutcome, validateFhirBundle, type Bundle, type OperationOutcome } from '../src/fhir/index.js';
import type { ClinicalInput } from '../src/generated/types.js';
import { runInProcess } from './support/run-cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'abha-link-outcome-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const input = JSON.parse(readFileSync(new URL('../examples/opd-prescription.input.json', import.meta.url), 'utf8')) as ClinicalInput;

function bundle(): Bundle {
  const r = toFhirBundles(input, { timestamp: new Date('2026-11-20T12:00:00+05:30') });
  if (!r.success) throw new Error('the example does not convert');
  return structuredClone(r.bundles[0]!.bundle);
}
/** The bundle with its Composition's title removed (required by R4). */
function withoutTitle(): Bundle {
  const b = bundle();
  delete (b.entry?.[0]?.resource as { title?: string }).title;
  return b;
}

describe('toOperationOutcome', () => {
  it('says a valid bundle is valid with the one information issue FHIR requires, and is itself valid R4', () => {
    const o = toOperationOutcome(validateFhirBundle(bundle()).issues);
    expect(o.issue).toEqual([{ severity: 'information', code: 'informational', details: { text: expect.stringContaining('no issues') } }]);
    expect(validateFhirBundle(o).issues.filter((i) => i.severity === 'error')).toEqual([]);
  });

  it('gives each issue its severity, an IssueType code, the FHIRPath of where it is and our code and message', () => {
    const issues = validateFhirBundle(withoutTitle()).issues;
    const o = toOperationOutcome(issues);
    expect(o.issue).toHaveLength(issues.length);
    const title = o.issue.find((i) => i.expression?.[0]?.endsWith('.title'));
    expect(title).toEqual({
      severity: 'error',
      code: 'required',
      expression: [expect.stringMatching(/^Bundle\.entry\[0\]\.resource\.title$/)],
      details: { coding: [{ system: ISSUE_CODE_SYSTEM, code: 'required' }], text: expect.any(String) },
    });
    // The outcome itself is valid R4 (issue.code is a required binding to IssueType).
    expect(validateFhirBundle(o).issues.filter((i) => i.severity === 'error')).toEqual([]);
  });

  it('maps a code it does not know, even one named like an Object method, to invalid', () => {
    const o = toOperationOutcome([
      { path: 'Bundle', code: 'constructor', message: 'm', severity: 'error' },
      { path: '', code: 'something-new', message: 'n', severity: 'warning' },
    ]);
    expect(o.issue.map((i) => [i.severity, i.code, i.expression])).toEqual([
      ['error', 'invalid', ['Bundle']],
      ['warning', 'invalid', undefined],
    ]);
  });
});

describe('abha-link fhir validate --format outcome', () => {
  const good = join(tmp, 'good.json');
  const bad = join(tmp, 'bad.json');
  const broken = join(tmp, 'broken.json');
  writeFileSync(good, JSON.stringify(bundle()));
  writeFileSync(bad, JSON.stringify(withoutTitle()));
  writeFileSync(broken, '{ not json');

  it('prints one indented OperationOutcome for one file, with the exit code of the check', async () => {
    const ok = await runInProcess(['fhir', 'validate', '--format', 'outcome', good], { stdin: '' });
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.stdout) as OperationOutcome).issue[0]?.code).toBe('informational');
    expect(ok.stdout).toContain('\n  "issue"');
    const no = await runInProcess(['fhir', 'validate', '--format', 'outcome', bad], { stdin: '' });
    expect(no.code).toBe(1);
    expect((JSON.parse(no.stdout) as OperationOutcome).issue.some((i) => i.severity === 'error' && i.code === 'required')).toBe(true);
  });

  it('prints one OperationOutcome per line for several files, a fatal one for a file that is not JSON (exit 2)', async () => {
    const r = await runInProcess(['fhir', 'validate', '--format', 'outcome', good, bad, broken], { stdin: '' });
    expect(r.code).toBe(2);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as OperationOutcome);
    expect(lines.map((o) => o.issue[0]?.severity)).toEqual(['information', 'error', 'fatal']);
  });

  it('refuses another format, naming the choices', async () => {
    const r = await runInProcess(['fhir', 'validate', '--format', 'outcom', good], { stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('outcome');
  });
});
