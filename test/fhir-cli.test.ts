/**
 * `abha-link fhir` as a user runs it: the built CLI (npm test builds first),
 * in-process; the built entry point in plain Node in a child process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, type CliResult } from './support/run-cli.js';
import { validateFhirBundle, type Bundle } from '../src/fhir/index.js';
import { DR_URL, PDF_BYTES } from './fhir-helpers.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-fhir-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

function run(args: string[], input?: string): Promise<CliResult> {
  return runInProcess(['fhir', ...args], { stdin: input ?? '' });
}
function file(name: string, content: string | Uint8Array): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

describe('abha-link fhir', () => {
  it('prints the one bundle of a clinical input as JSON, with warnings on stderr, exit 0', async () => {
    const r = await run(['examples/opd-prescription.input.json', '--timestamp', '2026-11-20T12:00:00+05:30']);
    expect(r.code).toBe(0);
    const b = JSON.parse(r.stdout) as Bundle;
    expect(b.timestamp).toBe('2026-11-20T12:00:00.000+05:30');
    expect(validateFhirBundle(b).success).toBe(true);
    // Issue 12 item 4: an ICD-10 code whose title is not known is kept in Condition.code.text, with a warning.
    // Issue 13 item 4: printed-document fields a PrescriptionRecord has no place for are named, never dropped silently.
    expect(r.stderr.split('\n').map((l) => l.replace(/ warning: .* \(/, ' ('))).toEqual([
      'examples/opd-prescription.input.json:14 /doctor/specialty (print-only-not-in-fhir)',
      'examples/opd-prescription.input.json:34 /diagnosis/0/icdCode (icd10-title-unknown)',
      'examples/opd-prescription.input.json:35 /diagnosis/1/icdCode (icd10-title-unknown)',
      'examples/opd-prescription.input.json:30 /visit/followUp (content-not-in-profile)',
      'examples/opd-prescription.input.json:25 /patient/vitals (print-only-not-in-fhir)',
      'examples/opd-prescription.input.json:23 /patient/weight (print-only-not-in-fhir)',
      'examples/opd-prescription.input.json:24 /patient/height (print-only-not-in-fhir)',
      '',
    ]);
    expect(r.stderr).toContain(
      'examples/opd-prescription.input.json:30 /visit/followUp warning: followUp has a place only in an OPConsultRecord or a DischargeSummaryRecord and no care context of this visit is an OPConsultation or a DischargeSummary; it is left out (content-not-in-profile)\n',
    );
  });

  it('stamps the current time when no --timestamp is given', async () => {
    const before = Date.now();
    const r = await run(['examples/lab-order.request.json']);
    expect(r.code).toBe(0);
    const t = Date.parse((JSON.parse(r.stdout) as Bundle).timestamp ?? '');
    expect(t).toBeGreaterThanOrEqual(before - 1000);
    expect(t).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('writes one file per care context into --out DIR, named after the reference, each with the right profile', async () => {
    const pdf = file('report.pdf', PDF_BYTES);
    const out = join(tmp, 'out');
    const r = await run(['--out', out, '--attach', `${DR_URL}=${pdf}`, 'examples/multi-care-context.request.json']);
    expect(r.stderr).toContain('(content-not-in-profile)');
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['GVH-ENC-55012-OPConsultation.json', 'GVH-ENC-55012-Prescription.json', 'GVH-LAB-2026-88120.json']);
    expect(r.stdout.trim().split('\n').sort()).toEqual(
      readdirSync(out)
        .sort()
        .map((f) => join(out, f)),
    );
    const profiles = readdirSync(out)
      .sort()
      .map((f) => JSON.parse(readFileSync(join(out, f), 'utf8')) as Bundle)
      .map((b) => {
        expect(validateFhirBundle(b).success).toBe(true);
        return b.entry?.[0]?.resource?.meta?.profile?.[0]?.split('/').pop();
      });
    expect(profiles).toEqual(['OPConsultRecord', 'PrescriptionRecord', 'DiagnosticReportRecord']);
  });

  it('warns about an --attach whose URL is no documentUrl of the input, naming the file but not the URL', async () => {
    const pdf = file('stray.pdf', PDF_BYTES);
    const stray = 'https://nowhere.example/SECRET-URL-77.pdf';
    const out = join(tmp, 'stray-out');
    const r = await run(['--out', out, '--attach', `${stray}=${pdf}`, '--attach', `${DR_URL}=${pdf}`, 'examples/multi-care-context.request.json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`abha-link: warning: --attach ${pdf}: its URL is not the documentUrl of any care context of examples/multi-care-context.request.json; the file is not embedded\n`);
    expect(r.stderr.match(/--attach/g)).toHaveLength(1);
    expect(r.stderr).not.toContain('SECRET-URL-77');
  });

  it('needs --out for several bundles (exit 2), and refuses a URL-only report document (exit 1, saying how to attach it)', async () => {
    // A copy away from examples/, where no file beside it holds the report.
    const request = file('multi-care-context.request.json', readFileSync(join(root, 'examples/multi-care-context.request.json')));
    const r = await run(['--hi-type', 'OPConsultation', request]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(document-not-embedded)');
    expect(r.stderr.endsWith('abha-link: 3 care contexts make 3 bundles: give --out DIR to write one file per care context\n')).toBe(true);
    const s = await run([request]);
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(/\/careContexts\/2\/bundleData\/documentUrl .*--attach URL=FILE.*\(document-data-required\)/);
  });

  it('converts the multi-care-context example with --out alone: the report is the file of its name beside the input (issue 23 item 6)', async () => {
    const out = join(tmp, 'beside-out');
    const r = await run(['--out', out, 'examples/multi-care-context.input.json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('abha-link: embedding examples/GVH-LAB-2026-88120.pdf as the document of a documentUrl that no --attach gave');
    expect(readdirSync(out).sort()).toEqual(['GVH-ENC-55012-OPConsultation.json', 'GVH-ENC-55012-Prescription.json', 'GVH-LAB-2026-88120.json']);
    const report = JSON.parse(readFileSync(join(out, 'GVH-LAB-2026-88120.json'), 'utf8')) as Bundle;
    expect(validateFhirBundle(report).success).toBe(true);
    const pdf = readFileSync(join(root, 'examples/GVH-LAB-2026-88120.pdf')).toString('base64');
    expect(JSON.stringify(report)).toContain(pdf);
  });

  it('never follows a link planted beside the input at the name of a documentUrl', async () => {
    const dir = join(tmp, 'linked');
    mkdirSync(dir);
    const input = join(dir, 'multi.json');
    writeFileSync(input, readFileSync(join(root, 'examples/multi-care-context.input.json')));
    symlinkSync(join(root, 'examples/GVH-LAB-2026-88120.pdf'), join(dir, 'GVH-LAB-2026-88120.pdf'));
    const r = await run(['--out', join(tmp, 'linked-out'), input]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('(document-data-required)');
    expect(r.stderr).not.toContain('embedding');
  });

  it('never writes a bundle through a link planted at an --out name nor over an earlier file; --force replaces the link itself', async () => {
    const dir = join(tmp, 'planted');
    mkdirSync(dir);
    const victim = file('other-patient.json', '{"other":"patient"}');
    symlinkSync(victim, join(dir, 'OPD-2026-0042-Prescription.json'));
    const r = await run(['--out', dir, 'examples/opd-prescription.request.json']);
    expect(r.code).toBe(0);
    const written = join(dir, 'OPD-2026-0042-Prescription-2.json');
    expect(r.stdout).toBe(`${written}\n`);
    expect(r.stderr).toContain(`abha-link: ${join(dir, 'OPD-2026-0042-Prescription.json')} is taken, so the document went to ${written} (--force replaces instead)\n`);
    expect(readFileSync(victim, 'utf8')).toBe('{"other":"patient"}');
    expect(validateFhirBundle(JSON.parse(readFileSync(written, 'utf8')) as Bundle).success).toBe(true);
    // A second run does not overwrite the first.
    const before = readFileSync(written, 'utf8');
    expect((await run(['--out', dir, 'examples/opd-prescription.request.json'])).stdout).toBe(`${join(dir, 'OPD-2026-0042-Prescription-3.json')}\n`);
    expect(readFileSync(written, 'utf8')).toBe(before);
    const forced = await run(['--force', '--out', dir, 'examples/opd-prescription.request.json']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toBe(`${join(dir, 'OPD-2026-0042-Prescription.json')}\n`);
    expect(readFileSync(victim, 'utf8')).toBe('{"other":"patient"}');
    expect(lstatSync(join(dir, 'OPD-2026-0042-Prescription.json')).isSymbolicLink()).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['OPD-2026-0042-Prescription-2.json', 'OPD-2026-0042-Prescription-3.json', 'OPD-2026-0042-Prescription.json']);
  });

  it('makes file names safe from any reference number', async () => {
    const req = JSON.parse(readFileSync(join(root, 'examples/lab-order.request.json'), 'utf8')) as { careContexts: Array<{ referenceNumber: string }> };
    req.careContexts[0]!.referenceNumber = '../../etc/passwd';
    const out = join(tmp, 'safe');
    const r = await run(['--out', out, file('traversal.json', JSON.stringify(req))]);
    expect(r.code).toBe(0);
    expect(readdirSync(out)).toEqual(['etc-passwd.json']);
    expect(existsSync(join(tmp, 'etc'))).toBe(false);
    // The same names as abha-link render gives: Windows device names are prefixed, repeats numbered case-insensitively.
    const two = JSON.parse(readFileSync(join(root, 'examples/multi-care-context.request.json'), 'utf8')) as { careContexts: Array<{ referenceNumber: string; hiType: string }> };
    two.careContexts = two.careContexts.slice(0, 2);
    two.careContexts[0]!.referenceNumber = 'CON';
    two.careContexts[1]!.referenceNumber = 'lpt1.txt';
    const dev = join(tmp, 'devices');
    const d = await run(['--out', dev, '--hi-type', 'OPConsultation', file('devices.json', JSON.stringify(two))]);
    expect(d.code).toBe(0);
    expect(readdirSync(dev).sort()).toEqual(['document-CON.json', 'document-lpt1.txt.json']);
  });

  it('--hi-type sets the profile of every care context; an unknown one is a usage error', async () => {
    const r = await run(['--hi-type', 'OPConsultation', 'examples/opd-prescription.request.json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Bundle).entry?.[0]?.resource?.meta?.profile).toEqual(['https://nrces.in/ndhm/fhir/r4/StructureDefinition/OPConsultRecord']);
    const bad = await run(['--hi-type', 'Invoices', 'examples/opd-prescription.request.json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--hi-type must be one of Prescription, OPConsultation, DiagnosticReport, HealthDocumentRecord, DischargeSummary, ImmunizationRecord, WellnessRecord, Invoice');
  });

  it('--from-fhir turns an EMR export into a clinical input that builds, listing what it left out', async () => {
    const r = await run(['--from-fhir', 'test/fixtures/fhir/emr-export.bundle.json']);
    expect(r.code).toBe(0);
    const input = JSON.parse(r.stdout) as { patient: { abhaAddress: string }; medications: unknown[] };
    expect(input.patient.abhaAddress).toBe('asha.verma@sbx');
    expect(input.medications).toHaveLength(2);
    expect(r.stderr).toContain('test/fixtures/fhir/emr-export.bundle.json:');
    // Observations now have a place (observations); this text-only one with a non-UCUM unit is none of them (issue 12).
    expect(r.stderr).toContain(
      '/entry/13/resource warning: this Observation is none of the vital signs, body measurements or lifestyle findings the clinical input holds (observations); it is left out (resource-not-mapped)',
    );
    const built = await runInProcess(['build', '-'], { stdin: r.stdout });
    expect(built.code).toBe(0);
  });

  it('exits 1 with the issue at the input path for an icdCode that cannot be a FHIR code (not "a bug")', async () => {
    const ci = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.input.json'), 'utf8')) as { diagnosis: Array<{ icdCode?: string }> };
    ci.diagnosis[0]!.icdCode = 'E11.9\tX';
    const r = await run([file('icd-tab.json', JSON.stringify(ci, null, 2)), '--timestamp', '2026-11-20T12:00:00+05:30']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/icd-tab\.json:\d+ \/diagnosis\/0\/icdCode .*\((invalid-code|icd10-shape)\)/);
    expect(r.stderr).not.toContain('bug');
    expect(r.stdout).toBe('');
  });

  it('lints the input as build and render do: a visit in the future or an http documentUrl exits 1 with the issues', async () => {
    const future = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.input.json'), 'utf8')) as { visit: { at: string }; documentUrl?: string };
    future.visit.at = '2099-01-01T10:00:00+05:30';
    const a = await run([file('future.json', JSON.stringify(future, null, 2))]);
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(/future\.json:\d+ \/visit\/at .*\(visit-date-in-future\)/);
    expect(a.stdout).toBe('');
    const http = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.input.json'), 'utf8')) as { documentUrl?: string };
    http.documentUrl = 'http://records.example/rx.pdf';
    const b = await run([file('http.json', JSON.stringify(http, null, 2))]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('(document-url-not-https)');
    const req = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.request.json'), 'utf8')) as { visitDate: string };
    req.visitDate = '2099-01-01';
    const c = await run([file('future-request.json', JSON.stringify(req, null, 2))]);
    expect(c.code).toBe(1);
    expect(c.stderr).toMatch(/future-request\.json:\d+ \/visitDate .*\(visit-date-in-future\)/);
  });

  it('exit codes: 1 for invalid data, 2 for bad JSON, usage and unreadable files; never a stack trace or a value', async () => {
    const secret = 'kavya.SECRET@sbx';
    const bad = JSON.parse(readFileSync(join(root, 'examples/lab-order.input.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    bad.patient!.abhaAddress = secret;
    bad.doctor = { name: secret };
    const invalid = await run([file('no-doctor-id.json', JSON.stringify(bad, null, 2))]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('/doctor the doctor needs licNumber or hpId');
    const notInput = await run([file('garbage.json', '{"visitDate": "2026-13-40", "careContexts": []}')]);
    expect(notInput.code).toBe(1);
    expect(notInput.stderr).toContain('not a valid link request');
    const results = [
      invalid,
      notInput,
      await run([], '{"a": '),
      await run(['--nope']),
      await run([join(tmp, 'missing.json')]),
      await run(['--from-fhir', file('not-fhir.json', JSON.stringify({ hello: secret }))]),
      await run(['--attach', 'x', 'examples/lab-order.input.json']),
      await run(['--timestamp', 'yesterday', 'examples/lab-order.input.json']),
      await run(['--force', 'examples/lab-order.input.json']),
    ];
    expect(results.map((r) => r.code)).toEqual([1, 1, 2, 2, 2, 1, 2, 2, 2]);
    expect(results.at(-1)?.stderr).toBe('abha-link: --force applies to the files of --out DIR\n');
    for (const r of results) {
      expect(r.stderr).not.toMatch(STACK);
      expect(r.stderr).not.toContain(secret);
      expect(r.stdout).not.toContain(secret);
    }
  });

  it('the built abha-link/fhir entry point imports by name in plain Node and loads no templates or network code', async () => {
    const script = `import { toFhirBundles, validateFhirBundle } from 'abha-link/fhir'; import { readFileSync } from 'node:fs';
      const r = toFhirBundles(JSON.parse(readFileSync('examples/lab-order.input.json', 'utf8')));
      console.log(JSON.stringify({ ok: r.success && validateFhirBundle(r.bundles[0].bundle).success, profile: r.success ? r.bundles[0].profile : null }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, profile: 'https://nrces.in/ndhm/fhir/r4/StructureDefinition/OPConsultRecord' });
    const seen = new Set<string>();
    const bare = new Set<string>();
    const visit = (f: string): void => {
      if (seen.has(f)) return;
      seen.add(f);
      const code = readFileSync(f, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      expect(code, f).not.toMatch(/\bfetch\(|Date\.now\(|new Date\(\)|process\.env|console\./);
      for (const m of code.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]/g)) {
        const spec = m[1] ?? '';
        if (spec.startsWith('.')) visit(join(f, '..', spec));
        else bare.add(spec);
      }
    };
    visit(join(root, 'dist/fhir/index.js'));
    expect([...bare].sort()).toEqual([
      'ajv-formats/dist/formats.js',
      'ajv/dist/runtime/ucs2length.js',
      'csv-parse/sync',
      'date-fns/isValid',
      'date-fns/parseISO',
      'fastest-levenshtein',
      // fhirpath is an optional peer: loaded through createRequire only for an invariant not decided in code.
      'node:module',
      'sax',
    ]);
  });

  it('documents its options in --help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const o of ['--hi-type', '--out', '--force', '--attach', '--timestamp', '--from-fhir', 'Exit codes']) expect(r.stdout).toContain(o);
  });
});
