/**
 * abha-link/render: what a printed document contains, for every bundled
 * example, template, language and page size; the input kinds; invalid input.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildLinkRequest } from '../src/builders/link-request.js';
import type { ClinicalInput, LinkCareContextRequest } from '../src/generated/types.js';
import { isValidationError } from '../src/errors.js';
import { LABELS } from '../src/render/labels.js';
import { detectInputKind } from '../src/index.js';
import { isHttpsUrl } from '../src/render/model.js';
import { TEMPLATE_NAMES, ageAt, formatVisitDate, renderDocuments, safeRenderDocuments, type RenderedDocument } from '../src/render/index.js';
import { attributeValues, textOf, unhyphenated } from './fixtures/render/html.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLES = ['opd-prescription', 'lab-order', 'multi-care-context'] as const;
const input = (name: string): ClinicalInput => JSON.parse(readFileSync(join(root, `examples/${name}.input.json`), 'utf8')) as ClinicalInput;
const request = (name: string): LinkCareContextRequest => JSON.parse(readFileSync(join(root, `examples/${name}.request.json`), 'utf8')) as LinkCareContextRequest;
const only = (docs: RenderedDocument[]): RenderedDocument => {
  expect(docs).toHaveLength(1);
  return docs[0] as RenderedDocument;
};

/** The templates that print every part of a link request's bundle data. */
const GENERAL_TEMPLATES = TEMPLATE_NAMES.filter((t) => !['discharge-summary', 'immunisation-certificate', 'wellness', 'invoice'].includes(t));

/** What each care context of a link request must show on the page. */
function expectCareContextPrinted(text: string, req: LinkCareContextRequest, i: number, template: string): void {
  const cc = req.careContexts[i];
  if (cc === undefined) throw new Error('no care context');
  const b = cc.bundleData;
  expect(text).toContain(b.hospital.name);
  expect(text).toContain(b.hospital.id);
  if (b.hospital.phone !== undefined) expect(text).toContain(b.hospital.phone);
  if (b.hospital.email !== undefined) expect(text).toContain(b.hospital.email);
  expect(text).toContain(b.doctor.name);
  if (b.doctor.licNumber !== undefined) expect(text).toContain(b.doctor.licNumber);
  if (b.doctor.hpId !== undefined) expect(text).toContain(b.doctor.hpId);
  expect(text).toContain(req.abhaAddress);
  expect(text).toContain(cc.referenceNumber);
  for (const d of b.diagnosis ?? []) {
    expect(text).toContain(d.diagnosisName);
    if (d.icdCode !== undefined) expect(text).toContain(d.icdCode);
    if (d.status !== undefined) expect(text).toContain(d.status);
  }
  if (template !== 'lab-order') {
    for (const m of b.medications ?? []) {
      for (const v of [m.drugName, m.dosage, m.frequency, m.duration, m.instructions]) if (v !== undefined) expect(text).toContain(v);
    }
  }
  for (const l of b.labInvestigations ?? []) {
    expect(text).toContain(l.testName);
    if (l.instructions !== undefined) expect(text).toContain(l.instructions);
  }
  if (b.advice !== undefined) expect(text).toContain(b.advice);
  if (b.documentUrl !== undefined) expect(text).toContain(b.documentUrl);
  if (template === 'visit-summary') expect(text).toContain(cc.display);
}

describe('renderDocuments', () => {
  it.each(EXAMPLES)('turns examples/%s.input.json into one prescription per care context with everything on it', (name) => {
    const ci = input(name);
    const req = buildLinkRequest(ci);
    const docs = renderDocuments(ci);
    expect(docs.map((d) => d.referenceNumber)).toEqual(req.careContexts.map((c) => c.referenceNumber));
    docs.forEach((d, i) => {
      expect(d).toMatchObject({ template: 'prescription', lang: 'en', pageSize: 'A4', hiType: req.careContexts[i]?.hiType });
      const text = textOf(d.html);
      expectCareContextPrinted(text, req, i, 'prescription');
      expect(text).toContain(ci.patient.name ?? 'no name in the example');
      expect(/<h1>([^<]*)<\/h1>/.exec(unhyphenated(d.html))?.[1]).toBe(
        ({ Prescription: 'Prescription', OPConsultation: 'OP Consultation', DiagnosticReport: 'Diagnostic Report' } as Record<string, string>)[d.hiType],
      );
      expect(text).toContain('Signature and stamp');
      if (ci.visit.followUp !== undefined) expect(text).toContain(ci.visit.followUp);
    });
  });

  // The record templates (discharge summary, immunisation certificate, wellness, invoice) print a clinical input's content: test/render-records.test.ts.
  it.each(GENERAL_TEMPLATES.flatMap((t) => EXAMPLES.map((e) => [t, e] as const)))('renders the %s template for examples/%s.request.json (a link request)', (template, name) => {
    const req = request(name);
    const docs = renderDocuments(req, { template });
    // The visit summary is one document per visit; the others, one per care context.
    expect(docs).toHaveLength(template === 'visit-summary' ? 1 : req.careContexts.length);
    docs.forEach((d) => {
      expect(d.template).toBe(template);
      expect(d.html).toContain(`class="page-a4 template-${template}"`);
    });
    req.careContexts.forEach((_, i) => expectCareContextPrinted(textOf((docs[template === 'visit-summary' ? 0 : i] ?? docs[0])?.html ?? ''), req, i, template));
  });

  it('puts one medicine in each row of the medication table, in order', () => {
    const ci = input('opd-prescription');
    const html = unhyphenated(only(renderDocuments(ci)).html);
    const rows = [...html.matchAll(/<td class="num">(\d+)<\/td>\s*<td class="drug"><span class="generic"><bdi translate="no">([^<]*)<\/bdi><\/span>/g)].map((m) => [Number(m[1]), m[2]]);
    // The generic name first; the example's drug names already say it, except the Betadine gargle's (povidone-iodine).
    expect(rows).toEqual((ci.medications ?? []).map((m, i) => [i + 1, m.drugName.includes(m.genericName ?? '') ? m.drugName : m.genericName]));
  });

  it('prints the lab order as a checklist of tests', () => {
    const { html } = only(renderDocuments(input('lab-order'), { template: 'lab-order' }));
    expect(textOf(html)).toContain('Lab investigation order');
    expect(html.match(/<span class="box"><\/span>/g)).toHaveLength(5);
    expect(textOf(html)).toContain('12 hours fasting');
  });

  it('shows age and sex from the birth date on the visit date, and from age when given', () => {
    expect(textOf(only(renderDocuments(input('opd-prescription'))).html)).toMatch(/Age \/ Sex\s+48 y \/ F/);
    expect(textOf(only(renderDocuments(input('lab-order'))).html)).toMatch(/Age \/ Sex\s+47 y \/ M/);
  });

  it('shows the ABHA number when known and the visit date as a date a person reads', () => {
    const [doc] = renderDocuments(input('multi-care-context'), { template: 'visit-summary' });
    const text = textOf(doc?.html ?? '');
    expect(text).toContain('91-4455-6677-8899');
    expect(text).toContain('19 Nov 2026');
    expect(doc?.html).toContain('<time datetime="2026-11-19">19 Nov 2026</time>');
  });

  it('marks the page size in a class and in @page, A4 by default and A5 on request', () => {
    const a4 = only(renderDocuments(input('opd-prescription')));
    const a5 = only(renderDocuments(input('opd-prescription'), { pageSize: 'A5' }));
    expect(a4.html).toContain('<html lang="en" class="page-a4 template-prescription">');
    expect(a4.html).toMatch(/@page \{\s+size: A4 portrait;/);
    expect(a5.pageSize).toBe('A5');
    expect(a5.html).toContain('<html lang="en" class="page-a5 template-prescription">');
    expect(a5.html).toMatch(/@page \{\s+size: A5 portrait;/);
    expect(a5.html).toMatch(/@page a5 \{ size: A5 portrait;/);
  });

  it('prints Hindi labels and generated text with --lang hi and the data exactly as given', () => {
    const ci = input('opd-prescription');
    const doc = only(renderDocuments(ci, { lang: 'hi' }));
    const text = textOf(doc.html);
    expect(doc.html).toContain('<html lang="hi"');
    for (const key of ['prescription', 'patient', 'ageSex', 'diagnosis', 'medications', 'drug', 'dosage', 'frequency', 'duration', 'instructions', 'followUp', 'signature', 'licNumber'] as const)
      expect(text).toContain(LABELS.hi[key]);
    expect(text).toContain('20 नवंबर 2026');
    expect(text).toContain('48 वर्ष / महिला');
    expect(text).not.toContain('Signature and stamp');
    for (const m of ci.medications ?? []) expect(text).toContain(m.drugName);
    expect(doc.html).toMatch(/html\[lang="hi"\] body, html\[lang="mr"\] body \{ font-family: "Noto Sans Devanagari", "Nirmala UI", Mangal, "Lohit Devanagari"/);
  });

  it('gives every template a Hindi heading', () => {
    const ci = input('lab-order');
    expect(textOf(only(renderDocuments(ci, { lang: 'hi', template: 'lab-order' })).html)).toContain(LABELS.hi.labOrder);
    expect(textOf(only(renderDocuments(ci, { lang: 'hi', template: 'visit-summary' })).html)).toContain(LABELS.hi.visitSummary);
  });

  it('produces a standalone document: inline CSS, no scripts, no external resources, a restrictive CSP', () => {
    for (const name of EXAMPLES) {
      for (const d of renderDocuments(input(name), { template: 'visit-summary' })) {
        expect(d.html.startsWith('<!DOCTYPE html>\n<html')).toBe(true);
        expect(d.html.trimEnd().endsWith('</html>')).toBe(true);
        expect(d.html).not.toMatch(/<script|<link|<iframe|<img|<object|<embed|@import|url\(|\son[a-z]+=/i);
        expect(attributeValues(d.html, 'src')).toEqual([]);
        expect(d.html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:;`);
        expect(d.html.match(/<style>/g)).toHaveLength(1);
      }
    }
  });

  it('links the document URL and prints its QR code only when it is https', () => {
    const req = request('multi-care-context');
    const docs = renderDocuments(req, { template: 'prescription' });
    const withUrl = docs.find((d) => d.referenceNumber === 'GVH-LAB-2026-88120');
    expect(attributeValues(withUrl?.html ?? '', 'href')).toEqual(['https://records.greenvalley.example/reports/GVH-LAB-2026-88120.pdf']);
    expect(withUrl?.html).toMatch(/<div class="qr" role="img" aria-label="QR code of the document link"><svg [^>]*viewBox="0 0 \d+ \d+"/);
    for (const d of docs.filter((x) => x !== withUrl)) expect(d.html).not.toMatch(/href=|<svg/);
    const noQr = renderDocuments(req, { template: 'prescription', qrCode: false }).find((d) => d.referenceNumber === 'GVH-LAB-2026-88120');
    expect(noQr?.html).not.toContain('<svg');
    expect(attributeValues(noQr?.html ?? '', 'href')).toHaveLength(1);

    const cc = req.careContexts[2];
    if (cc === undefined) throw new Error('example changed');
    for (const url of ['http://records.greenvalley.example/r.pdf', 'javascript:alert(1)', 'data:text/html,x', 'ftp://records.example/r.pdf']) {
      const doc = only(renderDocuments({ ...cc, bundleData: { ...cc.bundleData, documentUrl: url } }));
      expect(attributeValues(doc.html, 'href')).toEqual([]);
      expect(doc.html).not.toContain('<svg');
      expect(textOf(doc.html)).toContain(url);
    }
  });

  it('names each document after its care-context reference, safely and uniquely', () => {
    expect(renderDocuments(input('multi-care-context')).map((d) => d.fileName)).toEqual(['GVH-ENC-55012-OPConsultation', 'GVH-ENC-55012-Prescription', 'GVH-LAB-2026-88120']);
    const req = request('multi-care-context');
    const odd = {
      ...req,
      careContexts: [
        { ...req.careContexts[0], referenceNumber: '../../etc/passwd' },
        { ...req.careContexts[1], referenceNumber: '..\\..\\etc\\PASSWD' },
        { ...req.careContexts[2], referenceNumber: 'con' },
      ],
    } as LinkCareContextRequest;
    const names = renderDocuments(odd, { lint: false }).map((d) => d.fileName);
    expect(names).toEqual(['etc-passwd', 'etc-PASSWD-2', 'document-con']);
    const withExtension = { ...odd, careContexts: [{ ...odd.careContexts[0], referenceNumber: 'NUL.txt' }] } as LinkCareContextRequest;
    expect(renderDocuments(withExtension, { lint: false }).map((d) => d.fileName)).toEqual(['document-NUL.txt']); // Windows reserves NUL.txt too
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/);
  });

  it('renders one care context, with patient and visit details from the context option', () => {
    const cc = request('opd-prescription').careContexts[0];
    const doc = only(
      renderDocuments(cc, { context: { patient: { name: 'Asha Verma', gender: 'F', birthDate: '1978-03-14' }, visitDate: '2026-11-20', visitId: 'OPD-2026-0042', followUp: 'Review in 2 weeks' } }),
    );
    const text = textOf(doc.html);
    expect(text).toMatch(/Asha Verma[\s\S]*48 y \/ F/);
    expect(text).toContain('20 Nov 2026');
    expect(text).toContain('Review in 2 weeks');
    expect(safeRenderDocuments(cc)).toMatchObject({ success: true, kind: 'care-context' });
  });

  it('prints patient details given as context beside a link request, which carries only the ABHA address', () => {
    const req = request('opd-prescription');
    const bare = textOf(only(renderDocuments(req)).html);
    expect(bare).toMatch(/Patient name\s+_{10,}/);
    const doc = only(renderDocuments(req, { context: { patient: { name: 'Asha Verma', gender: 'F', age: 48, ABHANumber: '91-1111-2222-3333' }, followUp: 'Review after 2 weeks' } }));
    const text = textOf(doc.html);
    expect(text).toMatch(/Asha Verma\s+Age \/ Sex\s+48 y \/ F/);
    expect(text).toContain('91-1111-2222-3333');
    expect(text).toContain('asha.verma@sbx');
    expect(text).toContain('Review after 2 weeks');
  });

  it('heads a care context that is not a Prescription, printed with the prescription template, by its record type', () => {
    const heading = (html: string): string | undefined => /<h1>([^<]*)<\/h1>/.exec(unhyphenated(html))?.[1];
    const docs = renderDocuments(input('multi-care-context'));
    expect(docs.map((d) => [d.hiType, heading(d.html)])).toEqual([
      ['OPConsultation', 'OP Consultation'],
      ['Prescription', 'Prescription'],
      ['DiagnosticReport', 'Diagnostic Report'],
    ]);
    expect(/<title>([^<]*)<\/title>/.exec(docs[0]?.html ?? '')?.[1]).toBe('OP Consultation · \u2068GVH-ENC-55012-OPConsultation\u2069');
    expect(renderDocuments(input('multi-care-context'), { lang: 'hi' }).map((d) => heading(d.html))).toEqual(['ओपीडी परामर्श', 'दवा का पर्चा', 'जाँच रिपोर्ट']);
    // The other templates keep their own heading; an hiType abha-link does not know is not printed as a heading.
    expect(renderDocuments(input('multi-care-context'), { template: 'lab-order' }).map((d) => heading(d.html))).toEqual([
      'Lab investigation order',
      'Lab investigation order',
      'Lab investigation order',
    ]);
    const req = request('opd-prescription');
    const cc = req.careContexts[0];
    // Over medicines the prescription template says "Prescription" whatever the hiType; without, an unknown one reads "Visit summary".
    const odd = { ...req, careContexts: [{ ...cc, hiType: 'constructor' }] } as LinkCareContextRequest;
    expect(heading(renderDocuments(odd, { lint: false })[0]?.html ?? '')).toBe('Prescription');
    const { medications: _, ...noMedicines } = cc?.bundleData ?? { hospital: { name: '', id: '' }, doctor: { name: '' } };
    const oddEmpty = { ...req, careContexts: [{ ...cc, hiType: 'constructor', bundleData: noMedicines }] } as LinkCareContextRequest;
    expect(heading(renderDocuments(oddEmpty, { lint: false })[0]?.html ?? '')).toBe('Visit summary');
  });

  it('keeps patient data out of the <title>, which browsers show in tabs and PDF metadata', () => {
    const doc = only(renderDocuments(input('opd-prescription')));
    expect(/<title>([^<]*)<\/title>/.exec(doc.html)?.[1]).toBe('Prescription · \u2068OPD-2026-0042-Prescription\u2069');
  });

  it('does not change its input and gives the same output for the same input', () => {
    const ci = input('multi-care-context');
    const copy = structuredClone(ci);
    const first = renderDocuments(ci, { template: 'visit-summary', lang: 'hi' });
    expect(ci).toEqual(copy);
    expect(renderDocuments(ci, { template: 'visit-summary', lang: 'hi' })).toEqual(first);
  });

  it('prints what buildLinkRequest sends: the same normalised medication strings', () => {
    const ci = input('opd-prescription');
    const text = textOf(only(renderDocuments(ci)).html);
    expect(text).toContain('1-0-1 (twice a day: morning and night)');
    expect(text).toContain('Three times a day (TDS)');
    expect(text).toContain('30 days');
  });
});

describe('safeRenderDocuments with invalid input', () => {
  it('returns every issue of a clinical input, with paths into it, and renders nothing', () => {
    const ci = input('opd-prescription') as unknown as Record<string, unknown>;
    const bad = { ...ci, medications: [{ dosage: '1 tablet' }], visit: { id: 'V1', at: '2026-02-30T10:00:00+05:30' }, extra: 1 };
    const r = safeRenderDocuments(bad);
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.issues.map((i) => [i.path, i.code])).toEqual(
      expect.arrayContaining([
        ['/medications/0/drugName', 'required'],
        [`/#${Object.keys(bad).indexOf('extra')}`, 'unknown-field'],
      ]),
    );
  });

  it('applies the lint rules, as a build does, unless lint is false', () => {
    const ci = input('opd-prescription');
    const future = { ...ci, visit: { ...ci.visit, at: '2027-06-01T10:00:00+05:30' } };
    const r = safeRenderDocuments(future, { lint: { now: new Date('2026-11-21T08:00:00Z') } });
    expect(r).toMatchObject({ success: false, issues: [expect.objectContaining({ code: 'visit-date-in-future', path: '/visit/at' })] });
    expect(safeRenderDocuments(future, { lint: false }).success).toBe(true);
    const req = { ...request('opd-prescription'), abhaAddress: 'not-an-abha-address' };
    expect(safeRenderDocuments(req)).toMatchObject({ success: false, issues: [expect.objectContaining({ code: 'abha-address-shape', path: '/abhaAddress' })] });
  });

  it('says what it accepts when the document is none of the three inputs', () => {
    for (const v of [null, 42, 'text', [1], {}, { name: 'x' }]) {
      const r = safeRenderDocuments(v);
      expect(r).toMatchObject({ success: false, issues: [{ path: '', code: 'unknown-input', severity: 'error' }] });
    }
    expect(detectInputKind({ hospital: {}, doctor: {}, patient: {}, visit: {} })).toBe('clinical-input');
    expect(detectInputKind({ abhaAddress: 'a@sbx', careContexts: [] })).toBe('link-request');
    expect(detectInputKind({ referenceNumber: 'R1', bundleData: {} })).toBe('care-context');
  });

  it('rejects a care context with a context.visitDate that is not a date', () => {
    const cc = request('opd-prescription').careContexts[0];
    expect(safeRenderDocuments(cc, { context: { visitDate: '20/11/2026' } })).toMatchObject({ success: false, issues: [{ path: '/context/visitDate', code: 'invalid-date' }] });
  });

  it('throws ValidationError from renderDocuments, and RangeError for an unknown template, language or page size', () => {
    try {
      renderDocuments({ abhaAddress: 'x@sbx' });
      expect.unreachable();
    } catch (e) {
      expect(isValidationError(e)).toBe(true);
    }
    const ci = input('lab-order');
    expect(() => renderDocuments(ci, { template: 'discharge' })).toThrow(RangeError);
    expect(() => renderDocuments(ci, { lang: 'fr' as 'en' })).toThrow(/unknown language "fr"; use one of en, hi, mr, bn, ta, te, kn, gu, ml, or, pa, or two of them/);
    expect(() => renderDocuments(ci, { pageSize: 'Letter' as 'A4' })).toThrow(/use A4 or A5/);
  });
});

describe('formatting helpers', () => {
  it('formats visit dates in English and Hindi and keeps anything else as given', () => {
    expect(formatVisitDate('2026-01-05', 'en')).toBe('5 Jan 2026');
    expect(formatVisitDate('2026-12-31', 'hi')).toBe('31 दिसंबर 2026');
    expect(formatVisitDate('2026-13-01', 'en')).toBe('2026-13-01');
  });

  it('computes the age on the visit date, in months under one year', () => {
    expect(ageAt('1978-03-14', '2026-03-13')).toEqual({ years: 47 });
    expect(ageAt('1978-03-14', '2026-03-14')).toEqual({ years: 48 });
    expect(ageAt('2026-03-01', '2026-11-20')).toEqual({ months: 8 });
    expect(ageAt('2027-01-01', '2026-11-20')).toBeUndefined();
  });

  it('accepts only absolute https URLs without spaces as links', () => {
    expect(isHttpsUrl('https://records.example/r/1.pdf?a=1&b=2')).toBe(true);
    expect(isHttpsUrl('HTTPS://RECORDS.EXAMPLE/R.PDF')).toBe(true);
    for (const u of ['http://x.example', 'javascript:alert(1)', 'https://', 'https://x.example/a b', ' https://x.example', 'https://x.example/\n', '//x.example']) expect(isHttpsUrl(u)).toBe(false);
  });
});
