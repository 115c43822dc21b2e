/**
 * What a clinic's printed page says (issue 13): letterhead particulars, the
 * patient header, generic names and the dosing grid, capitals, the open
 * `custom` object, the visit summary of a whole visit, the page-margin texts,
 * and a warning for every value a page expects and the input lacks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ClinicalInput, LinkCareContextRequest } from '../src/generated/types.js';
import { cssContent } from '../src/render/css-content.js';
import { LABELS } from '../src/render/labels.js';
import { LANGUAGES, renderDocuments, safeRenderDocuments, type Language } from '../src/render/index.js';
import { doseMarks } from '../src/render/model.js';
import { textOf } from './fixtures/render/html.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const input = (name: string): ClinicalInput => JSON.parse(readFileSync(join(root, `examples/${name}.input.json`), 'utf8')) as ClinicalInput;
const request = (name: string): LinkCareContextRequest => JSON.parse(readFileSync(join(root, `examples/${name}.request.json`), 'utf8')) as LinkCareContextRequest;
const text = (value: unknown, options: Parameters<typeof renderDocuments>[1] = {}): string => textOf(renderDocuments(value, options)[0]?.html ?? '');

describe('the printed content of a clinic', () => {
  it('prints the address, qualification, specialty and registration particulars on the letterhead', () => {
    const t = text(input('opd-prescription'));
    for (const s of ['14, 2nd Cross, Jayanagar 4th Block, Bengaluru 560011', 'MBBS, MD (General Medicine)', 'Consultant Physician', 'Karnataka Medical Council', 'KMC-45678']) expect(t).toContain(s);
  });

  it('prints the patient mobile, weight, height, BMI and vitals in the header', () => {
    const t = text(input('opd-prescription'));
    for (const s of ['9876543210', '64 kg', '158 cm', '25.6', '138/86 mmHg', '78 /min', '99.1 °F', '98%']) expect(t).toContain(s);
  });

  it('prints the generic name first and the brand after it, and drug names in capitals with caps', () => {
    const ci = input('long-prescription');
    expect(text(ci)).toMatch(/Metformin\s+\(\s*Glycomet 500\s*\)/);
    expect(text(ci)).toContain('500 mg · tablet · oral');
    const caps = text(ci, { caps: true });
    expect(caps).toMatch(/METFORMIN\s+\(\s*GLYCOMET 500\s*\)/);
    expect(caps).not.toContain('Glycomet');
  });

  it('reads the dosing grid from the frequency: patterns with their doses, abbreviations as Indian prescriptions print them, none for OD or text', () => {
    expect(doseMarks('1-0-1 (twice a day: morning and night)')).toEqual(['1', null, null, '1']);
    expect(doseMarks('½-0-½')).toEqual(['½', null, null, '½']);
    expect(doseMarks('1-1-1-1')).toEqual(['1', '1', '1', '1']);
    expect(doseMarks('Twice a day (BD)')).toEqual(['●', null, null, '●']);
    expect(doseMarks('At bedtime (HS)')).toEqual([null, null, null, '●']);
    expect(doseMarks('Once a day (OD)')).toBeNull();
    expect(doseMarks('When required (SOS)')).toBeNull();
    expect(doseMarks('alternate days')).toBeNull();
    const html = renderDocuments(input('opd-prescription'))[0]?.html ?? '';
    expect(html).toContain('aria-label="Morning: 1, Afternoon: –, Evening: –, Night: 1"');
    expect(textOf(html)).toMatch(/M\s+Morning\s+A\s+Afternoon\s+E\s+Evening\s+N\s+Night/);
    expect(textOf(renderDocuments(input('opd-prescription'), { lang: 'hi' })[0]?.html ?? '')).toMatch(/सु\s+सुबह\s+दो\s+दोपहर\s+शा\s+शाम\s+रा\s+रात/);
  });

  it('passes a custom object to the templates, and refuses one that is not a small plain JSON object', () => {
    const t = text(input('opd-prescription'), { custom: { letterheadLines: ['Mon to Sat 9 am to 1 pm'], timings: 'Sunday closed' } });
    expect(t).toContain('Mon to Sat 9 am to 1 pm');
    expect(t).toContain('Sunday closed');
    const bad = (custom: unknown): unknown => renderDocuments(input('opd-prescription'), { custom: custom as Record<string, unknown> });
    expect(() => bad([1])).toThrow(TypeError);
    expect(() => bad({ a: () => 1 })).toThrow(/not a JSON value/);
    expect(() => bad(JSON.parse('{"__proto__": {"x": 1}}'))).toThrow(/prototype key/);
    expect(() => bad({ big: 'x'.repeat(70_000) })).toThrow(/64 KiB/);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 12; i++) deep = { d: deep };
    expect(() => bad(deep)).toThrow(/8 levels/);
  });

  it('gathers every care context of the visit into one visit summary', () => {
    const r = safeRenderDocuments(input('multi-care-context'), { template: 'visit-summary' });
    if (!r.success) throw new Error('example changed');
    expect(r.documents).toHaveLength(1);
    expect(r.documents[0]).toMatchObject({ referenceNumber: 'GVH-ENC-55012', hiType: 'VisitSummary', fileName: 'GVH-ENC-55012-VisitSummary' });
    const t = textOf(r.documents[0]?.html ?? '');
    for (const s of ['Iron deficiency anaemia', 'Ferrous ascorbate + folic acid', 'Serum ferritin', 'Complete blood count (CBC)', 'Iron-rich diet', 'Review after 1 week']) expect(t).toContain(s);
    expect(t).not.toContain('No diagnosis recorded');
    // The other templates stay one per care context.
    expect(renderDocuments(input('multi-care-context'), { template: 'prescription' })).toHaveLength(3);
  });
});

describe('the page margins', () => {
  it('carry the patient, the date and the page pattern of the language as escaped CSS', () => {
    const html = renderDocuments(input('opd-prescription'))[0]?.html ?? '';
    expect(html).toContain('@bottom-left { content: "Asha Verma \\b7  48 y \\2f  F \\b7  OPD\\2d 2026\\2d 0042 \\b7  20 Nov 2026";');
    expect(html).toContain('@bottom-right { content: "Page " counter(page) " of " counter(pages);');
    for (const lang of LANGUAGES) expect(LABELS[lang].pageOf).toMatch(/\{page\}.*\{pages\}/);
  });

  it('are in the language of the document, and in both languages of a bilingual one', () => {
    const margins = (lang: Language | readonly Language[]): string[] => {
      const html = renderDocuments(input('opd-prescription'), { lang })[0]?.html ?? '';
      return [/@bottom-left \{ content: ([^;]*);/, /@bottom-right \{ content: ([^;]*);/].map((re) => re.exec(html)?.[1] ?? '');
    };
    expect(margins('hi')).toEqual([cssContent('Asha Verma · 48 वर्ष / महिला · OPD-2026-0042 · 20 नवंबर 2026'), cssContent('पृष्ठ {page} / {pages}')]);
    expect(margins('ta')[1]).toBe(cssContent(LABELS.ta.pageOf));
    expect(margins(['en', 'hi'])).toEqual([
      cssContent('Asha Verma · 48 y / F / 48 वर्ष / महिला · OPD-2026-0042 · 20 Nov 2026 / 20 नवंबर 2026'),
      cssContent('Page {page} of {pages} / पृष्ठ {page} / {pages}'),
    ]);
    const blank = renderDocuments(request('opd-prescription'), { lang: 'hi' })[0]?.html ?? '';
    expect(blank).toContain(`@bottom-left { content: ${cssContent('रोगी का नाम ____________________ · OPD-2026-0042 · 20 नवंबर 2026')};`);
  });

  it('cannot be left by a name that holds quotes, braces, a closing style tag or bidi controls', () => {
    const name = 'A"; } body { display: none } </style><script>x</script>\u202E\\';
    const css = cssContent(name);
    expect(css.startsWith('"') && css.endsWith('"')).toBe(true);
    expect(css.slice(1, -1)).toMatch(/^[A-Za-z0-9 \\]*$/);
    expect(css).not.toContain('\u202E');
    const req = request('opd-prescription');
    const html = renderDocuments(req, { patient: { name } })[0]?.html ?? '';
    const style = html.slice(html.indexOf('<style>'), html.indexOf('</style>'));
    expect(style).not.toContain('<script');
    expect(html.match(/<\/style>/g)).toHaveLength(1);
  });
});

describe('values a page expects and the input lacks', () => {
  it('warns and prints a blank line for the name of a link request, and takes the patient option instead', () => {
    const bare = safeRenderDocuments(request('opd-prescription'));
    if (!bare.success) throw new Error('example changed');
    expect(bare.warnings).toContainEqual(expect.objectContaining({ path: '', code: 'missing-patient-name', severity: 'warning' }));
    expect(textOf(bare.documents[0]?.html ?? '')).toMatch(/Patient name\s+_{10,}/);
    const named = safeRenderDocuments(request('opd-prescription'), { patient: { name: 'Asha Verma' } });
    if (!named.success) throw new Error('example changed');
    expect(named.warnings.map((w) => w.code)).not.toContain('missing-patient-name');
    expect(textOf(named.documents[0]?.html ?? '')).toContain('Asha Verma');
  });

  it('warns for a missing registration number, qualification, council and visit date, naming the field', () => {
    const ci = input('opd-prescription');
    const r = safeRenderDocuments({ ...ci, doctor: { name: 'Dr. Meera Iyer' }, patient: { abhaAddress: 'asha.verma@sbx' } });
    if (!r.success) throw new Error('should render');
    expect(r.warnings.map((w) => [w.path, w.code])).toEqual(
      expect.arrayContaining([
        ['/patient/name', 'missing-patient-name'],
        ['/doctor/licNumber', 'missing-registration'],
        ['/doctor/qualification', 'missing-qualification'],
      ]),
    );
    const withLic = safeRenderDocuments({ ...ci, doctor: { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678' } });
    expect(withLic.success && withLic.warnings.map((w) => [w.path, w.code])).toContainEqual(['/doctor/council', 'missing-council']);
    const cc = request('opd-prescription').careContexts[0];
    const alone = safeRenderDocuments(cc, { patient: { name: 'Asha Verma' } });
    expect(alone.success && alone.warnings.map((w) => w.code)).toContain('missing-visit-date');
    // A patient option beside a clinical input, which carries its own, is said to be unused.
    const ignored = safeRenderDocuments(ci, { patient: { name: 'Someone Else' } });
    expect(ignored.success && ignored.warnings.map((w) => w.code)).toContain('patient-option-ignored');
    // The bundled examples lack nothing.
    for (const name of ['opd-prescription', 'lab-order', 'multi-care-context', 'long-prescription']) {
      const ok = safeRenderDocuments(input(name), { lint: false });
      expect(ok.success && ok.warnings, name).toEqual([]);
    }
  });
});
