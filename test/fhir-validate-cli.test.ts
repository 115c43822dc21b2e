/**
 * `abha-link fhir validate [--format text|json] FILE...` as a user runs it
 * (the built CLI, in-process): exit 0 when every file is valid, 1 when one is
 * invalid, 2 when one cannot be read or is not JSON.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toFhirBundles } from '../src/fhir/index.js';
import { example } from './fhir-helpers.js';
import { runInProcess, type CliResult } from './support/run-cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'abha-link-fhir-validate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

function file(name: string, content: string): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}
const run = (args: string[], stdin = ''): Promise<CliResult> => runInProcess(['fhir', 'validate', ...args], { stdin });

function prescription(): Record<string, any> {
  const r = toFhirBundles(example('opd-prescription', 'input'), { timestamp: new Date('2026-11-20T06:00:00Z') });
  if (!r.success) throw new Error('the example must build');
  return structuredClone(r.bundles[0]?.bundle) as Record<string, any>;
}

describe('abha-link fhir validate', () => {
  it('accepts a bundle abha-link built: exit 0, a summary on stderr, nothing on stdout', async () => {
    const r = await run([file('ok.json', JSON.stringify(prescription(), null, 2))]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('1 file: 1 valid, 0 invalid\n');
  });

  it('lists the problems of an invalid bundle as FILE:LINE PATH MESSAGE (code), the line where the value is: exit 1', async () => {
    const b = prescription();
    b.entry[0].resource.section[0].code.coding[0].code = 'PLANTED-not-the-code';
    const text = JSON.stringify(b, null, 2);
    const name = file('bad.json', text);
    const r = await run([name]);
    expect(r.code).toBe(1);
    const line = text.split('\n').findIndex((l) => l.includes('PLANTED-not-the-code')) + 1;
    expect(r.stdout).toContain(`${name}:${line} Bundle.entry[0].resource.section[0].code.coding[0].code code must be exactly the value the profile fixes ("440545006") (fixed-value)\n`);
    expect(r.stdout).not.toContain('PLANTED');
    expect(r.stderr).toBe('1 file: 0 valid, 1 invalid\n');
  });

  it('prints one JSON object per file with --format json, and reads stdin for -', async () => {
    const b = prescription();
    delete b.entry[0].resource.title;
    const r = await run(['--format', 'json', '-'], JSON.stringify(b));
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { file: string; valid: boolean; issues: Array<{ path: string; code: string; severity: string }> };
    expect(out.file).toBe('<stdin>');
    expect(out.valid).toBe(false);
    expect(out.issues).toContainEqual(expect.objectContaining({ path: 'Bundle.entry[0].resource.title', code: 'required', severity: 'error' }));
  });

  it('validates any FHIR resource, not only bundles: base R4 for a resource without an NRCeS profile', async () => {
    const ok = await run([file('patient.json', '{"resourceType":"Patient","gender":"female"}')]);
    expect(ok.code).toBe(0);
    const bad = await run([file('patient-bad.json', '{"resourceType":"Patient","gendr":"female"}')]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('Patient.gendr this is not an element of');
  });

  it('exits 2 for a file that is missing or not JSON, after checking the others', async () => {
    const good = file('good.json', JSON.stringify(prescription()));
    const r = await run([join(tmp, 'missing.json'), file('broken.json', '{"resourceType": '), good]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing.json');
    expect(r.stderr).toContain('broken.json');
    expect(r.stderr).toContain('3 files: 1 valid, 0 invalid, 2 unreadable');
    expect(r.stderr).not.toMatch(STACK);
  });

  it('names a link request or a clinical input given by mistake, and the command that makes bundles from it', async () => {
    for (const [name, what] of [
      ['opd-prescription.request.json', 'a link request (link-carecontext-request)'],
      ['opd-prescription.input.json', 'a clinical input'],
    ] as const) {
      const r = await run([`examples/${name}`]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`this is ${what}, not a FHIR resource or bundle`);
      expect(r.stdout).toContain('`abha-link fhir FILE` makes FHIR document bundles from it');
      expect(r.stdout).toContain('(not-fhir)');
    }
  });

  it('reports a rule it cannot decide as information, and as an error with --strict', async () => {
    // The required binding of MolecularSequence.structureVariant.variantType is to a LOINC answer list abha-link cannot expand offline.
    const name = file(
      'sequence.json',
      JSON.stringify({ resourceType: 'MolecularSequence', coordinateSystem: 0, structureVariant: [{ variantType: { coding: [{ system: 'http://loinc.org', code: 'LA6692-3' }] } }] }),
    );
    const lenient = await run([name]);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain('MolecularSequence.structureVariant[0].variantType information: ');
    expect(lenient.stdout).toContain('(unevaluated)');
    const strict = await run(['--strict', name]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('(unevaluated)');
    expect((await runInProcess(['fhir', '--strict', 'examples/opd-prescription.input.json'])).stderr).toContain('--strict applies to abha-link fhir validate');
  });

  it('says when it stopped at the cap of issues', async () => {
    const b = prescription();
    for (let i = 0; i < 1500; i++) b.entry[0].resource.section[0].entry.push({ reference: `urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, type: 'MedicationRequest' });
    const r = await run(['--format', 'json', file('dangling.json', JSON.stringify(b))]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { issues: unknown[]; truncated?: boolean };
    expect(out.issues).toHaveLength(1000);
    expect(out.truncated).toBe(true);
  });

  it('is a usage error without FILE, with a bad --format, with an option of FHIR output, or with --format outside validate', async () => {
    expect((await run([])).code).toBe(2);
    const f = await run(['--format', 'xml', file('x.json', '{}')]);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain('--format must be text, json or outcome');
    const misplaced = await run(['--out', tmp, file('y.json', '{}')]);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('--out does not apply to abha-link fhir validate');
    const outside = await runInProcess(['fhir', '--format', 'json', 'examples/opd-prescription.input.json']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('--format applies to abha-link fhir validate');
  });
});
