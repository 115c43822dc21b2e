/**
 * The hospital's ICD-10 title table (issue 23 item 4): read from CSV, TSV or
 * WHO ClaML, given to `abha-link fhir` and `abha-link serve` with
 * `--icd10-titles FILE`, so that an icdCode becomes an ICD-10 coding in the
 * NRCeS Condition slice. The titles here are written for the tests; no table
 * ships with abha-link.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIcd10Titles, toFhirBundles, validateFhirBundle, type Bundle, type Condition } from '../src/fhir/index.js';
import type { ClinicalInput } from '../src/generated/types.js';
import { createServeApp } from '../src/serve/app.js';
import { runInProcess } from './support/run-cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'abha-link-icd10-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
function file(name: string, content: string): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}
const STACK = /^\s+at .+:\d+:\d+\)?$/m;
const input = JSON.parse(readFileSync(new URL('../examples/opd-prescription.input.json', import.meta.url), 'utf8')) as ClinicalInput;

/** The ICD-10 codings of the Conditions of a bundle, as [code, display, text]. */
function codings(bundle: Bundle): Array<[string | undefined, string | undefined, string | undefined]> {
  return (bundle.entry ?? [])
    .map((e) => e.resource)
    .filter((r): r is Condition => r?.resourceType === 'Condition')
    .map((c) => [c.code?.coding?.[0]?.code, c.code?.coding?.[0]?.display, c.code?.text]);
}

describe('parseIcd10Titles', () => {
  it('reads a CSV with a header row, quoted titles with commas, a byte-order mark and CRLF line ends', () => {
    const t = parseIcd10Titles('\uFEFFcode,title\r\nE11.9,Sugar title one\r\nI10,"Pressure, title two"\r\n');
    expect(t.format).toBe('csv');
    expect(t.count).toBe(2);
    expect({ ...t.titles }).toEqual({ 'E11.9': 'Sugar title one', I10: 'Pressure, title two' });
    expect(t.issues).toEqual([]);
  });

  it('writes codes in the dotted capitals of the WHO release (e119 is E11.9)', () => {
    expect({ ...parseIcd10Titles('e119,Sugar title\nj20.9,Chest title\n').titles }).toEqual({ 'E11.9': 'Sugar title', 'J20.9': 'Chest title' });
  });

  it('reads TSV when the first line holds a tab', () => {
    const t = parseIcd10Titles('E11.9\tSugar "quoted" title\nI10\tPressure title\n');
    expect(t.format).toBe('tsv');
    expect({ ...t.titles }).toEqual({ 'E11.9': 'Sugar "quoted" title', I10: 'Pressure title' });
  });

  it('reports each row it leaves out by its line, and keeps the first title of a repeated code', () => {
    const t = parseIcd10Titles(['code,title', 'E11.9,Sugar title', 'not a code,Whatever', 'I10,', 'K35.8', 'E11.9,Another title', 'J20.9,Chest, unquoted', ''].join('\n'));
    expect({ ...t.titles }).toEqual({ 'E11.9': 'Sugar title', 'J20.9': 'Chest' });
    expect(t.issues.map((i) => [i.line, i.code, i.severity])).toEqual([
      [3, 'not-icd10-code', 'error'],
      [4, 'empty-title', 'error'],
      [5, 'too-few-columns', 'error'],
      [6, 'duplicate-code', 'warning'],
      [7, 'extra-columns', 'warning'],
    ]);
    // Messages name what is wrong, never a cell's text.
    expect(t.issues.map((i) => i.message).join(' ')).not.toMatch(/Whatever|Another title|unquoted/);
  });

  it('says where a CSV stops being readable (an unclosed quote)', () => {
    const t = parseIcd10Titles('E11.9,Sugar title\nI10,"Pressure title\n');
    expect(t.issues).toEqual([expect.objectContaining({ code: 'unreadable', severity: 'error' })]);
  });

  it("reads WHO ClaML: each category's preferred label, whole, and no block, chapter or other rubric", () => {
    const claml = `<?xml version="1.0" encoding="UTF-8"?>
<ClaML version="2.0.0">
  <Class code="I" kind="chapter"><Rubric kind="preferred"><Label xml:lang="en">Chapter title</Label></Rubric></Class>
  <Class code="E10-E14" kind="block"><Rubric kind="preferred"><Label xml:lang="en">Block title</Label></Rubric></Class>
  <Class code="E11" kind="category">
    <SuperClass code="E10-E14"/>
    <Rubric id="r1" kind="preferred"><Label xml:lang="en" xml:space="default">Sugar &amp; category title</Label></Rubric>
    <Rubric id="r2" kind="inclusion"><Label xml:lang="en">An inclusion, not the title</Label></Rubric>
  </Class>
  <Class code="E11.9" kind="category">
    <Rubric kind="preferred"><Label xml:lang="en">Sugar title <Reference>E11</Reference> without <Fragment>complications</Fragment></Label></Rubric>
  </Class>
  <Class code="K35.8" kind="category"><Rubric kind="inclusion"><Label>Only an inclusion</Label></Rubric></Class>
</ClaML>`;
    const t = parseIcd10Titles(claml);
    expect(t.format).toBe('claml');
    expect({ ...t.titles }).toEqual({ E11: 'Sugar & category title', 'E11.9': 'Sugar title E11 without complications' });
    // A category without a preferred label is reported at the line of its Class.
    expect(t.issues.map((i) => [i.line, i.code])).toEqual([[13, 'empty-title']]);
  });

  it('keeps what it read before ClaML stops being well-formed, and says where', () => {
    const t = parseIcd10Titles(
      '<ClaML>\n<Class code="E11.9" kind="category"><Rubric kind="preferred"><Label>Sugar title</Label></Rubric></Class>\n<Class code="I10" kind="category"><Rubric kind="preferred"><Label>Broken</Rubric>\n',
    );
    expect({ ...t.titles }).toEqual({ 'E11.9': 'Sugar title' });
    expect(t.issues).toEqual([expect.objectContaining({ line: 3, code: 'unreadable' })]);
  });

  it('gives a table with no prototype: a code named like an Object method is never found', () => {
    const t = parseIcd10Titles('E11.9,Sugar title\n');
    expect(Object.getPrototypeOf(t.titles)).toBeNull();
    const r = toFhirBundles({ ...input, diagnosis: [{ diagnosisName: 'X', icdCode: 'E11.9' }] }, { icd10Titles: t.titles, timestamp: new Date('2026-11-20T12:00:00+05:30') });
    expect(r.success && codings(r.bundles[0]!.bundle)).toEqual([['E11.9', 'Sugar title', 'X']]);
  });
});

describe('abha-link fhir --icd10-titles FILE', () => {
  const titles = file('titles.csv', 'code,title\nE11.9,Sugar title\n');

  it('writes each icdCode the table has a title for as an ICD-10 coding, and warns, saying how, for the others', async () => {
    const r = await runInProcess(['fhir', '--icd10-titles', titles, '--timestamp', '2026-11-20T12:00:00+05:30', 'examples/opd-prescription.input.json'], { stdin: '' });
    expect(r.code).toBe(0);
    const bundle = JSON.parse(r.stdout) as Bundle;
    expect(validateFhirBundle(bundle).success).toBe(true);
    expect(codings(bundle)).toEqual([
      ['E11.9', 'Sugar title', 'Type 2 diabetes mellitus without complications'],
      [undefined, undefined, 'Essential (primary) hypertension (ICD-10 I10)'],
      [undefined, undefined, 'Acute upper respiratory infection'],
    ]);
    expect(r.stderr).not.toContain('/diagnosis/0/icdCode');
    expect(r.stderr).toContain('/diagnosis/1/icdCode warning:');
    expect(r.stderr).toContain('the ICD-10 title table given has no title for this code');
    expect(r.stderr).toContain('--icd10-titles FILE');
  });

  it('without a table, tells how to supply one', async () => {
    const r = await runInProcess(['fhir', '--timestamp', '2026-11-20T12:00:00+05:30', 'examples/opd-prescription.input.json'], { stdin: '' });
    expect(r.stderr).toContain('no ICD-10 title table was given (abha-link ships none)');
    expect(r.stderr).toContain("supply the hospital's licensed ICD-10 title table (CSV or TSV of code and title, or WHO ClaML XML): --icd10-titles FILE on abha-link fhir and abha-link serve");
  });

  it('lists the rows it leaves out by file and line, and still converts', async () => {
    const f = file('some-bad.csv', 'E11.9,Sugar title\nnot-a-code,x\n');
    const r = await runInProcess(['fhir', '--icd10-titles', f, 'examples/opd-prescription.input.json'], { stdin: '' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${f}:2 the first column is not an ICD-10 code`);
    expect(r.stderr).toContain('(not-icd10-code)');
  });

  it.each([
    ['a table with no usable row', () => file('empty.csv', 'code,title\n'), 'holds no ICD-10 code with a title'],
    ['a file that is not there', () => join(tmp, 'missing.csv'), 'missing.csv'],
    [
      'a file that is not UTF-8',
      () => {
        const p = join(tmp, 'latin1.csv');
        writeFileSync(p, Buffer.from('E11.9,Sugar \xe9 title\n', 'latin1'));
        return p;
      },
      'invalid UTF-8',
    ],
    ['standard input', () => '-', 'needs a file'],
  ])('refuses %s with a usage error and no stack (exit 2)', async (_name, path, message) => {
    const p = path();
    const r = await runInProcess(['fhir', '--icd10-titles', p, 'examples/opd-prescription.input.json'], { stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('applies to FHIR output only: not to --from-fhir nor to fhir validate', async () => {
    const a = await runInProcess(['fhir', '--from-fhir', 'examples/opd-prescription.request.json', '--icd10-titles', titles], { stdin: '' });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--icd10-titles apply to FHIR output');
    const b = await runInProcess(['fhir', 'validate', '--icd10-titles', titles, 'examples/opd-prescription.request.json'], { stdin: '' });
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--icd10-titles does not apply to abha-link fhir validate');
  });
});

describe('abha-link serve with an ICD-10 title table', () => {
  it('answers /v1/fhir with the ICD-10 codings of the table', async () => {
    const app = await createServeApp({
      token: 'serve-test-token-7f3a-0123456789abcdef',
      now: () => new Date('2026-11-24T10:00:00+05:30'),
      icd10Titles: parseIcd10Titles('I10,Pressure title\n').titles,
    });
    try {
      const r = await app.inject({ method: 'POST', url: '/v1/fhir', headers: { authorization: 'Bearer serve-test-token-7f3a-0123456789abcdef', 'content-type': 'application/json' }, payload: input });
      expect(r.statusCode).toBe(200);
      expect(codings(r.json<Bundle>())).toEqual([
        [undefined, undefined, 'Type 2 diabetes mellitus without complications (ICD-10 E11.9)'],
        ['I10', 'Pressure title', 'Essential (primary) hypertension'],
        [undefined, undefined, 'Acute upper respiratory infection'],
      ]);
    } finally {
      await app.close();
    }
  });

  it('reads --icd10-titles at start and refuses a table with no usable row before listening (exit 2)', async () => {
    const r = await runInProcess(['serve', '--port', '0', '--data', join(tmp, 'data'), '--icd10-titles', file('none.csv', 'x,y\n')], { stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds no ICD-10 code with a title');
    expect(r.stdout).toBe('');
  });
});

describe('codings the EMR already holds (icdTitle, snomed)', () => {
  const at = { timestamp: new Date('2026-11-20T12:00:00+05:30') };
  const coded: ClinicalInput = {
    ...input,
    diagnosis: [
      {
        diagnosisName: 'Sugar, as the doctor wrote it',
        status: 'confirmed',
        icdCode: 'E11.9',
        icdTitle: 'Sugar title from the EMR',
        snomed: { code: '44054006', display: 'Diabetes mellitus type 2' },
      },
      { diagnosisName: 'Only a concept', snomed: { code: '38341003', display: 'Hypertensive disorder' } },
      { diagnosisName: 'Chest, ICD-11', icdCode: 'CA20.0', icdTitle: 'A title with no place' },
    ],
  };

  it('writes the ICD-10 coding with the EMR title and the SNOMED CT coding beside it; the bundle validates', () => {
    const r = toFhirBundles(coded, { ...at, icd10Titles: { 'E11.9': 'The table title, not used when the EMR gives one' } });
    if (!r.success) throw new Error(JSON.stringify(r.issues));
    const bundle = r.bundles[0]!.bundle;
    expect(validateFhirBundle(bundle).success).toBe(true);
    const conds = (bundle.entry ?? []).map((e) => e.resource).filter((x): x is Condition => x?.resourceType === 'Condition');
    expect(conds.map((c) => c.code)).toEqual([
      {
        coding: [
          { system: 'http://hl7.org/fhir/sid/icd-10', code: 'E11.9', display: 'Sugar title from the EMR' },
          { system: 'http://snomed.info/sct', code: '44054006', display: 'Diabetes mellitus type 2' },
        ],
        text: 'Sugar, as the doctor wrote it',
      },
      { coding: [{ system: 'http://snomed.info/sct', code: '38341003', display: 'Hypertensive disorder' }], text: 'Only a concept' },
      { text: 'Chest, ICD-11 (ICD-11 CA20.0)' },
    ]);
    // The ICD-11 diagnosis's title has no place: said, not dropped silently.
    expect(r.warnings.map((w) => [w.path, w.code])).toContainEqual(['/diagnosis/2/icdTitle', 'icd-title-not-used']);
    expect(r.warnings.map((w) => w.path)).not.toContain('/diagnosis/0/icdCode');
  });

  it('never sends icdTitle or snomed in the link request (the spec has no place for them)', async () => {
    const { buildLinkRequest } = await import('../src/builders/link-request.js');
    const req = buildLinkRequest(coded);
    expect(req.careContexts[0]?.bundleData.diagnosis).toEqual([
      { diagnosisName: 'Sugar, as the doctor wrote it', status: 'confirmed', icdCode: 'E11.9' },
      { diagnosisName: 'Only a concept' },
      { diagnosisName: 'Chest, ICD-11', icdCode: 'CA20.0' },
    ]);
  });

  it('reads both codings back through fromFhir, so a round trip keeps them', async () => {
    const { fromFhir } = await import('../src/fhir/from-fhir.js');
    const r = toFhirBundles(coded, at);
    if (!r.success) throw new Error('not built');
    const back = fromFhir(r.bundles[0]!.bundle);
    if (!back.success) throw new Error(JSON.stringify(back.issues));
    expect(back.value.diagnosis).toEqual([
      {
        diagnosisName: 'Sugar, as the doctor wrote it',
        status: 'confirmed',
        icdCode: 'E11.9',
        icdTitle: 'Sugar title from the EMR',
        snomed: { code: '44054006', display: 'Diabetes mellitus type 2' },
      },
      { diagnosisName: 'Only a concept', snomed: { code: '38341003', display: 'Hypertensive disorder' } },
      { diagnosisName: 'Chest, ICD-11', icdCode: 'CA20.0' },
    ]);
    expect(back.warnings.filter((w) => w.path.includes('/code/coding'))).toEqual([]);
  });
});
