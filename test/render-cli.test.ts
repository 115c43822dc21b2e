/**
 * `abha-link render` as a user runs it: the built CLI (npm test builds
 * first), in-process. No Chromium is needed here; PDF output is
 * tested in render-browser.test.ts.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, type CliResult } from './support/run-cli.js';
import { textOf, unhyphenated } from './fixtures/render/html.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-render-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

function run(args: string[], input?: string, env: Record<string, string> = {}): Promise<CliResult> {
  return runInProcess(args, { stdin: input ?? '', env });
}
const example = (name: string): string => readFileSync(join(root, 'examples', name), 'utf8');
function file(name: string, content: string): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

describe('abha-link render', () => {
  it('prints the prescription of a one-visit clinical input as HTML on stdout', async () => {
    const r = await run(['render', 'examples/opd-prescription.input.json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout.startsWith('<!DOCTYPE html>')).toBe(true);
    const text = textOf(r.stdout);
    for (const s of ['Sanjeevani Family Clinic', 'Dr. Meera Iyer', 'KMC-45678', 'Asha Verma', 'Metformin 500 mg tablet', 'Betadine 2% gargle', 'E11.9', 'Review after 2 weeks'])
      expect(text).toContain(s);
  });

  it('reads stdin, and renders a link request too', async () => {
    const r = await run(['render', '-'], example('lab-order.request.json'));
    expect(r.code).toBe(0);
    expect(textOf(r.stdout)).toContain('Serum vitamin B12');
  });

  it('takes --template, --lang and --size', async () => {
    const r = await run(['render', '--template', 'lab-order', '--lang', 'hi', '--size', 'A5', 'examples/lab-order.input.json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('<html lang="hi" class="page-a5 template-lab-order">');
    expect(textOf(r.stdout)).toContain('जाँच अनुरोध पत्र');
    expect((await run(['render', '--size', 'a5', 'examples/lab-order.input.json'])).stdout).toContain('class="page-a5');
  });

  it('prints a bilingual document with --lang en,hi and a Tamil one with --lang TA', async () => {
    const r = await run(['render', '--lang', 'en,hi', 'examples/opd-prescription.input.json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('<html lang="en"');
    expect(unhyphenated(r.stdout)).toContain('<span class=l1>1-0-1 (twice a day: morning and night)</span><span class=l2 lang=hi>दिन में दो बार: सुबह और रात</span>');
    const ta = await run(['render', '--lang', 'TA', 'examples/opd-prescription.input.json']);
    expect(ta.stdout).toContain('<html lang="ta"');
    expect(textOf(ta.stdout)).toContain('1-0-1 (நாளுக்கு இரண்டு முறை: காலை மற்றும் இரவு)');
  });

  it('writes one file per care context into --out DIR, named after the care-context reference, and lists them', async () => {
    const dir = join(tmp, 'out', 'nested');
    const r = await run(['render', '--template', 'prescription', '--out', dir, 'examples/multi-care-context.input.json']);
    expect(r.code).toBe(0);
    const names = ['GVH-ENC-55012-OPConsultation.html', 'GVH-ENC-55012-Prescription.html', 'GVH-LAB-2026-88120.html'];
    expect(readdirSync(dir).sort()).toEqual(names);
    expect(r.stdout).toBe(names.map((n) => `${join(dir, n)}\n`).join(''));
    expect(textOf(readFileSync(join(dir, names[1] ?? ''), 'utf8'))).toContain('Ferrous ascorbate + folic acid tablet');
    expect(textOf(readFileSync(join(dir, names[2] ?? ''), 'utf8'))).toContain('Complete blood count (CBC)');
  });

  it('writes one visit summary per visit, gathering the diagnoses, medicines, investigations and advice of every care context', async () => {
    const out = join(tmp, 'summary.html');
    const r = await run(['render', '--template', 'visit-summary', '-o', out, 'examples/multi-care-context.input.json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const text = textOf(readFileSync(out, 'utf8'));
    for (const s of ['Iron deficiency anaemia', 'Ferrous ascorbate + folic acid', 'Vitamin C 500 mg tablet', 'Serum ferritin', 'Complete blood count (CBC)', 'Iron-rich diet', 'Review after 1 week'])
      expect(text).toContain(s);
    expect(text).not.toContain('No diagnosis recorded');
    for (const ref of ['GVH-ENC-55012-OPConsultation', 'GVH-ENC-55012-Prescription', 'GVH-LAB-2026-88120']) expect(text).toContain(ref);
  });

  it('prints a blank line for the name of a link request and says so, or takes the patient from --patient FILE', async () => {
    const bare = await run(['render', 'examples/opd-prescription.request.json']);
    expect(bare.code).toBe(0);
    expect(bare.stderr).toMatch(/warning: .*blank line.*--patient FILE.*\(missing-patient-name\)/);
    expect(textOf(bare.stdout)).toMatch(/Patient name\s+_{10,}/);
    const patient = file('patient.json', JSON.stringify({ name: 'Asha Verma', gender: 'F', birthDate: '1978-03-14' }));
    const named = await run(['render', '--patient', patient, 'examples/opd-prescription.request.json']);
    expect(named).toMatchObject({ code: 0, stderr: '' });
    expect(textOf(named.stdout)).toMatch(/Asha Verma[\s\S]*48 y \/ F/);
    const bad = await run(['render', '--patient', file('bad-patient.json', JSON.stringify({ name: 'X', birthDate: 'soon' })), 'examples/opd-prescription.request.json']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('/birthDate');
    expect(bad.stderr).not.toContain('soon');
  });

  it('prints drug names in capitals with --caps and passes --custom FILE to the letterhead', async () => {
    const custom = file('custom.json', JSON.stringify({ letterheadLines: ['Mon to Sat, 9 am to 1 pm'], timings: 'Closed on Sundays' }));
    const r = await run(['render', '--caps', '--custom', custom, 'examples/opd-prescription.input.json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const text = textOf(r.stdout);
    expect(text).toContain('METFORMIN 500 MG TABLET');
    expect(text).toContain('POVIDONE-IODINE');
    expect(text).toContain('Mon to Sat, 9 am to 1 pm');
    expect(text).toContain('Closed on Sundays');
    const notObject = await run(['render', '--custom', file('list.json', '[1,2]'), 'examples/opd-prescription.input.json']);
    expect(notObject.code).toBe(2);
    expect(notObject.stderr).toContain('--custom: custom must be a JSON object');
  });

  it('asks for --out DIR when there are several documents and writes -o FILE for one', async () => {
    const several = await run(['render', 'examples/multi-care-context.request.json']);
    expect(several.code).toBe(2);
    expect(several.stderr).toContain('abha-link: the input has 3 care contexts, so 3 documents: give --out DIR to write one file per document\n');
    expect((await run(['render', '-o', join(tmp, 'x.html'), 'examples/multi-care-context.request.json'])).code).toBe(2);
    const out = join(tmp, 'one.html');
    const one = await run(['render', '-o', out, 'examples/opd-prescription.request.json']);
    expect(one).toMatchObject({ code: 0, stdout: '' });
    expect(one.stderr).toContain('(missing-patient-name)');
    expect(textOf(readFileSync(out, 'utf8'))).toContain('Telmisartan 40 mg tablet');
  });

  it('never writes through a link planted at an --out name nor over an earlier document: it takes the next free name and lists it', async () => {
    const dir = join(tmp, 'planted');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    // Another patient's document, the target of a link planted at the name this render would use.
    const victim = file('other-patient.html', 'OTHER PATIENT: Zzother Person');
    symlinkSync(victim, join(dir, 'OPD-2026-0042-Prescription.html'));
    writeFileSync(join(dir, 'OPD-2026-0042-Prescription-2.html'), 'EARLIER DOCUMENT');
    const r = await run(['render', '--out', dir, 'examples/opd-prescription.input.json']);
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('OTHER PATIENT: Zzother Person');
    expect(lstatSync(join(dir, 'OPD-2026-0042-Prescription.html')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'OPD-2026-0042-Prescription.html'))).toBe(victim);
    expect(readFileSync(join(dir, 'OPD-2026-0042-Prescription-2.html'), 'utf8')).toBe('EARLIER DOCUMENT');
    const written = join(dir, 'OPD-2026-0042-Prescription-3.html');
    expect(r.stdout).toBe(`${written}\n`);
    expect(r.stderr).toBe(`abha-link: ${join(dir, 'OPD-2026-0042-Prescription.html')} is taken, so the document went to ${written} (--force replaces instead)\n`);
    expect(textOf(readFileSync(written, 'utf8'))).toContain('Metformin 500 mg tablet');
    // A second run takes the next name again; nothing is overwritten.
    expect((await run(['render', '--out', dir, 'examples/opd-prescription.input.json'])).stdout).toBe(`${join(dir, 'OPD-2026-0042-Prescription-4.html')}\n`);
    expect(readFileSync(victim, 'utf8')).toBe('OTHER PATIENT: Zzother Person');
  });

  it('with --force replaces the file or the link at an --out name itself, never the file a link points at', async () => {
    const dir = join(tmp, 'forced');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const victim = file('other-patient-2.html', 'OTHER PATIENT');
    symlinkSync(victim, join(dir, 'GVH-ENC-55012-OPConsultation.html'));
    writeFileSync(join(dir, 'GVH-LAB-2026-88120.html'), 'EARLIER DOCUMENT');
    const r = await run(['render', '--force', '--template', 'prescription', '--out', dir, 'examples/multi-care-context.input.json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const names = ['GVH-ENC-55012-OPConsultation.html', 'GVH-ENC-55012-Prescription.html', 'GVH-LAB-2026-88120.html'];
    expect(readdirSync(dir).sort()).toEqual(names);
    expect(r.stdout).toBe(names.map((n) => `${join(dir, n)}\n`).join(''));
    expect(readFileSync(victim, 'utf8')).toBe('OTHER PATIENT');
    expect(lstatSync(join(dir, names[0] ?? '')).isSymbolicLink()).toBe(false);
    expect(textOf(readFileSync(join(dir, names[0] ?? ''), 'utf8'))).toContain('OP Consultation');
    expect(textOf(readFileSync(join(dir, names[2] ?? ''), 'utf8'))).toContain('Complete blood count (CBC)');
  });

  it('-o FILE refuses an existing file or a planted link without --force (exit 2, nothing written), and --force replaces the link, not its target', async () => {
    const dir = join(tmp, 'single');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const earlier = join(dir, 'rx.html');
    writeFileSync(earlier, 'EARLIER DOCUMENT');
    const refused = await run(['render', '-o', earlier, 'examples/opd-prescription.input.json']);
    expect(refused).toMatchObject({ code: 2, stdout: '', stderr: `abha-link: ${earlier}: already exists; not overwritten (give --force to replace it, or another name)\n` });
    expect(readFileSync(earlier, 'utf8')).toBe('EARLIER DOCUMENT');
    const victim = file('other-patient-3.html', 'OTHER PATIENT');
    const link = join(dir, 'link.html');
    symlinkSync(victim, link);
    const dangling = join(dir, 'dangling.html');
    symlinkSync(join(dir, 'not-yet-there.html'), dangling);
    for (const p of [link, dangling]) {
      const r = await run(['render', '-o', p, 'examples/opd-prescription.input.json']);
      expect(r).toMatchObject({ code: 2, stdout: '', stderr: `abha-link: ${p}: is a symbolic link; not written through it (give --force to replace it, or another name)\n` });
    }
    expect(readFileSync(victim, 'utf8')).toBe('OTHER PATIENT');
    expect(existsSync(join(dir, 'not-yet-there.html'))).toBe(false);
    expect(await run(['render', '--force', '-o', link, 'examples/opd-prescription.input.json'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(victim, 'utf8')).toBe('OTHER PATIENT');
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
    expect(textOf(readFileSync(link, 'utf8'))).toContain('Metformin 500 mg tablet');
    expect((await run(['render', '--force', '-o', earlier, 'examples/opd-prescription.input.json'])).code).toBe(0);
    expect(textOf(readFileSync(earlier, 'utf8'))).toContain('Metformin 500 mg tablet');
    expect(await run(['render', '-o', dir, 'examples/opd-prescription.input.json'])).toMatchObject({ code: 2, stderr: `abha-link: ${dir}: is a directory; give the path of a file\n` });
    expect(await run(['render', '--force', '-o', dir, 'examples/opd-prescription.input.json'])).toMatchObject({ code: 2, stderr: `abha-link: ${dir}: cannot be written (is a directory)\n` });
    // No temporary file is left beside them.
    expect(readdirSync(dir).sort()).toEqual(['dangling.html', 'link.html', 'rx.html']);
  });

  it('exits 1 listing every issue as FILE:LINE PATH MESSAGE (code), without values from the document', async () => {
    const input = JSON.parse(example('opd-prescription.input.json')) as Record<string, unknown>;
    const p = file(
      'bad.json',
      JSON.stringify(
        { ...input, patient: { abhaAddress: 'zzsecret.abha@sbx', name: 'Zzsecret Patientname' }, medications: [{ dosage: 'Zzsecret dose' }], visit: { id: 'V', at: 'yesterday' } },
        null,
        2,
      ),
    );
    const r = await run(['render', p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^${p}:\\d+ /medications/0/drugName drugName is required \\(required\\)$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^${p}:\\d+ /visit/at at `, 'm'));
    expect(r.stderr).toMatch(/cannot render: 2 errors\n$/);
    expect(r.stderr).not.toMatch(/Zzsecret|zzsecret/);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('exits 1 on lint errors, as build does (the clock decides "in the future")', async () => {
    const input = JSON.parse(example('opd-prescription.input.json')) as { visit: Record<string, unknown> };
    input.visit.at = '2999-01-01T10:00:00+05:30';
    const r = await run(['render', file('future.json', JSON.stringify(input))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('/visit/at visitDate is in the future in the facility time zone (visit-date-in-future)');
  });

  it('exits 2 with the line and column of JSON that does not parse', async () => {
    const r = await run(['render', '-'], '{\n  "hospital": {,\n}');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('<stdin>:2:16 invalid JSON: expected a value\n');
  });

  it.each([
    [['--template', 'discharge'], 'did you mean discharge-summary?'],
    [['--template', 'dischrge-summary'], '--template must be discharge-summary, immunisation-certificate, invoice, lab-order, prescription, visit-summary, wellness or the path of a .hbs file'],
    [['--template', 'nowhere/mine.hbs'], 'nowhere/mine.hbs: no such file'],
    [
      ['--lang', 'fr'],
      '--lang must be one of en (English), hi (हिन्दी), mr (मराठी), bn (বাংলা), ta (தமிழ்), te (తెలుగు), kn (ಕನ್ನಡ), gu (ગુજરાતી), ml (മലയാളം), or (ଓଡ଼ିଆ), pa (ਪੰਜਾਬੀ), or two of them for a bilingual document (en,hi)',
    ],
    [['--lang', 'en,hi,ta'], '--lang must be one of en (English)'],
    [['--lang', 'hi,hi'], 'or two of them for a bilingual document (en,hi)'],
    [['--size', 'letter'], '--size must be A4 or A5'],
    [['--out', 'd', '-o', 'f'], 'give either --out DIR or -o FILE, not both'],
    [['--colour'], 'unknown option --colour (abha-link render --help lists the options)'],
    [['--force'], '--force applies to the files of --out DIR or -o FILE'],
  ])('exits 2 for %j', async (args, message) => {
    const r = await run(['render', ...args, 'examples/lab-order.input.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('renders your own template file, with the partials/ beside it replacing the bundled ones', async () => {
    const r = await run(['render', '--template', 'test/fixtures/render/custom/my-prescription.hbs', 'examples/opd-prescription.input.json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('<h1 class="custom-heading">Rx for Asha Verma</h1>');
    expect(unhyphenated(r.stdout)).toContain('Sanjeevani Family Clinic (custom letterhead)');
    expect(r.stdout).toContain('<footer class="custom-footer">Ref OPD-2026-0042-Prescription</footer>');
  });

  it('exits 2 naming the template and line when your template breaks a rule', async () => {
    const dir = join(tmp, 'tpl');
    rmSync(dir, { recursive: true, force: true });
    const p = join(dir, 'mine.hbs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(p, '<html>\n<body>{{{advice}}}</body>\n</html>');
    const r = await run(['render', '--template', p, 'examples/lab-order.input.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('abha-link: template mine, line 2: {{{ }}} and {{& }} write a value without escaping; use {{ }}\n');
    writeFileSync(p, '<p>{{patient.nickname}}</p>');
    const missing = await run(['render', '--template', p, 'examples/lab-order.input.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('template mine, line 1: uses the field "nickname", which the document model does not have');
  });

  it('explains how to get PDF output when no Chromium is found, and writes nothing', async () => {
    const out = join(tmp, 'no.pdf');
    const r = await run(['render', '--pdf', '--chromium', '/nonexistent/chromium', '-o', out, 'examples/opd-prescription.input.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no Chromium at /nonexistent/chromium');
    expect(r.stderr).toContain('apt-get install chromium');
    expect(r.stderr).not.toContain('playwright install');
    expect(existsSync(out)).toBe(false);
    const env = await run(['render', '--pdf', '-o', out, 'examples/opd-prescription.input.json'], undefined, { ABHA_LINK_CHROMIUM: '/nonexistent/from-env' });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain('no Chromium at /nonexistent/from-env');
  });

  it('documents its options in --help', async () => {
    const r = await run(['render', '--help']);
    expect(r.code).toBe(0);
    // The usage line is wrapped at 80 columns.
    expect(r.stdout.replace(/\n +/g, ' ')).toContain(
      'Usage: abha-link render [--template NAME|PATH] [--lang LANG[,LANG]] [--size A4|A5] [--caps] [--patient FILE] [--custom FILE] [--out DIR|-o FILE] [--force] [--pdf] [--chromium PATH] [FILE|-]',
    );
    for (const o of ['--template', '--lang', '--size', '--caps', '--patient FILE', '--custom FILE', '--out DIR', '-o, --output FILE', '--force', '--pdf', '--chromium PATH', 'Exit codes:'])
      expect(r.stdout).toContain(o);
    expect((await run(['--help'])).stdout).toMatch(/^\s+render\s+printable prescription/m);
  });
});
