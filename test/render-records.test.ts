/**
 * The record templates: discharge summary, immunisation certificate, health check (wellness) and bill (invoice),
 * printed from the clinical content in every language of the catalogue, with the values of the input, warnings for
 * what they expect and do not get, and bilingual pages.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildLinkRequest } from '../src/builders/link-request.js';
import type { ClinicalInput } from '../src/generated/types.js';
import { en } from '../src/render/messages/en.js';
import { LANGUAGES, MESSAGES, TEMPLATE_NAMES, renderDocuments, safeRenderDocuments, type Language } from '../src/render/index.js';
import { textOf, unhyphenated } from './fixtures/render/html.js';
import { runInProcess } from './support/run-cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const input = (name: string): ClinicalInput => JSON.parse(readFileSync(join(root, `examples/${name}.input.json`), 'utf8')) as ClinicalInput;
const OTHERS = LANGUAGES.filter((l) => l !== 'en');
const RECORDS = [
  ['discharge-summary', 'discharge-summary', 'DischargeSummary'],
  ['immunisation-certificate', 'immunization', 'ImmunizationRecord'],
  ['wellness', 'wellness', 'WellnessRecord'],
  ['invoice', 'invoice', 'Invoice'],
] as const;

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(strings);
}
/** Every string the input gives (names, free text), longest first: printed as written, so taken out before looking for English. */
function givenText(value: unknown): string[] {
  return [...new Set(strings(value))].sort((a, b) => b.length - a.length);
}
/** The library's own English words of the catalogue (placeholders taken out, three letters or more). */
const ENGLISH = [
  ...new Set(
    Object.entries(en)
      .filter(([k]) => k !== 'intl' && k !== 'date' && k !== 'name')
      .flatMap(([, v]) => strings(v))
      .flatMap((s) => s.split(/\{[a-z]+\}/i).map((p) => p.trim())),
  ),
]
  .filter((s) => /[a-z]{3}/i.test(s))
  .concat(['Nov', 'Dec', 'per min']);
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the record templates', () => {
  it('are bundled templates', () => {
    for (const [template] of RECORDS) expect(TEMPLATE_NAMES).toContain(template);
  });

  it.each(RECORDS.map(([t, example, hiType]) => [hiType, t, example] as const))('print a %s care context on the %s template when no template is named', (hiType, template, example) => {
    const [doc] = renderDocuments(input(example));
    expect(doc?.hiType).toBe(hiType);
    expect(doc?.template).toBe(template);
    expect(doc?.html).toContain(`template-${template}`);
  });

  it.each(OTHERS.flatMap((lang) => RECORDS.map(([template, example]) => [lang, template, example] as const)))(
    'in %s, the %s template prints its example with none of the English the library writes',
    (lang, template, example) => {
      const ci = input(example);
      const given = givenText([ci, buildLinkRequest(ci)]);
      const r = safeRenderDocuments(ci, { lang, template });
      expect(r.success).toBe(true);
      if (!r.success) return;
      for (const doc of r.documents) {
        expect(doc.html).toContain(`<html lang="${lang}"`);
        let text = textOf(doc.html);
        for (const g of given) text = text.split(g).join(' ');
        const mine = strings(MESSAGES[lang]);
        const left = ENGLISH.filter((english) => !mine.some((s) => s.includes(english)) && new RegExp(`\\b${escapeRe(english)}\\b`, 'i').test(text));
        expect(left, `${lang} ${template}`).toEqual([]);
      }
    },
  );
});

describe('the discharge summary', () => {
  it('prints the stay, the discharge diagnosis, the medicines to take at home and the follow-up', () => {
    const ci = input('discharge-summary');
    const text = textOf(renderDocuments(ci, { template: 'discharge-summary' })[0]?.html ?? '');
    for (const s of ['Discharge summary', 'Admission', '15 Nov 2026, 21:40', '18 Nov 2026, 11:00', 'Acute appendicitis', 'K35.8', 'Laparoscopic appendicectomy', '38.2 °C', '104 per min'])
      expect(text).toContain(s);
    expect(text).toContain('Medicines to take at home');
    expect(text).toContain('Twice a day (BD)');
    for (const m of ci.medications ?? []) expect(text).toContain(m.drugName);
    expect(text).toContain(ci.visit.followUp);
    expect(text).toContain(ci.inpatientStay?.conditionAtDischarge);
  });

  it('warns, at its path, that the discharge date and condition are missing, and prints a blank', () => {
    const ci = input('discharge-summary');
    const { dischargedAt: _d, conditionAtDischarge: _c, ...stay } = ci.inpatientStay ?? { admittedAt: '' };
    const r = safeRenderDocuments({ ...ci, inpatientStay: stay });
    expect(r.success).toBe(true);
    if (!r.success) return;
    const paths = r.warnings.filter((w) => w.code === 'print-value-missing').map((w) => w.path);
    expect(paths).toEqual(['/inpatientStay/dischargedAt', '/inpatientStay/conditionAtDischarge']);
    expect(textOf(r.documents[0]?.html ?? '')).toMatch(/Discharge\s+—/);
  });
});

describe('the immunisation certificate', () => {
  it('prints each vaccine with its dose, batch number, date given and next dose due, in Hindi with the names as written', () => {
    const ci = input('immunization');
    const text = textOf(renderDocuments(ci, { lang: 'hi' })[0]?.html ?? '');
    for (const d of ci.immunizations ?? []) {
      expect(text).toContain(d.vaccine);
      expect(text).toContain(d.lotNumber);
    }
    for (const s of ['टीकाकरण', '20 नवंबर 2026, 11:20', '18 दिसंबर 2026', 'Serum Institute of India']) expect(text).toContain(s);
    expect(textOf(renderDocuments(ci)[0]?.html ?? '')).toMatch(/DTwP-HepB-Hib \(Pentavalent\)[\s\S]*?1\s+20 Nov 2026, 11:20\s+PNT2611A\s+18 Dec 2026/);
  });

  it('warns when a dose has no batch number or dose number, and prints a dash', () => {
    const ci = input('immunization');
    const r = safeRenderDocuments({ ...ci, immunizations: [{ vaccine: 'BCG', date: '2026-11-20' }] });
    expect(r.success && r.warnings.filter((w) => w.code === 'print-value-missing').map((w) => w.path)).toEqual(['/immunizations/0/lotNumber', '/immunizations/0/doseNumber']);
  });

  it('says so, and warns, when the content has no immunisations (a link request carries none)', () => {
    const req = buildLinkRequest(input('immunization'));
    const r = safeRenderDocuments(req, { template: 'immunisation-certificate', context: { patient: { name: 'Aarav Rao' } } });
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.warnings.map((w) => w.code)).toContain('print-value-missing');
    expect(textOf(r.documents[0]?.html ?? '')).toContain('No vaccines recorded.');
  });
});

describe('the health check (wellness) sheet', () => {
  const wellness = (): ClinicalInput => {
    const ci = input('wellness');
    return { ...ci, observations: { ...ci.observations, bloodPressure: { systolic: 128, diastolic: 84 } } };
  };

  it('prints each measurement with its unit, and the lifestyle as written', () => {
    const ci = wellness();
    const text = textOf(renderDocuments(ci)[0]?.html ?? '');
    for (const s of ['BP', '128/84 mmHg', '78 per min', '98.4 °F', '98%', '158 cm', '64.5 kg', '25.8 kg/m²', '22 Nov 2026, 09:10', 'Never smoked', 'Vegetarian, low salt']) expect(text).toContain(s);
  });

  it('writes the units in the language: per minute in Tamil, numbers in Latin digits', () => {
    const text = textOf(renderDocuments(wellness(), { lang: 'ta' })[0]?.html ?? '');
    expect(text).toContain('128/84 mmHg');
    expect(text).toContain('78 நிமிடத்திற்கு');
    expect(text).toContain(MESSAGES.ta.labels.bloodPressure);
  });

  it('warns when there are no observations', () => {
    const { observations: _o, ...ci } = wellness();
    const r = safeRenderDocuments({ ...ci, hiType: 'WellnessRecord', documentUrl: 'https://records.example/w.pdf' }, { template: 'wellness' });
    expect(r.success && r.warnings.filter((w) => w.code === 'print-value-missing').map((w) => w.path)).toEqual(['/observations']);
  });
});

describe('the bill', () => {
  it('prints every line, the total and the payment with Indian currency formatting', () => {
    const ci = input('invoice');
    const text = textOf(renderDocuments(ci)[0]?.html ?? '');
    for (const l of ci.invoice?.lines ?? []) expect(text).toContain(l.item);
    for (const s of ['SFC/2026-27/00817', '₹500.00', '₹30.00', '₹10.80 (12%)', '₹100.80', '−₹50.00', '₹400.00', '₹1,000.80', 'Receipt', 'Amount paid', 'UPI', 'UPI-4471-2026'])
      expect(text).toContain(s);
    expect(text).not.toContain('Balance due');
  });

  it('groups lakhs the Indian way and shows what is left to pay', () => {
    const ci = input('invoice');
    const invoice = { number: 'IPD-1', lines: [{ item: 'Room, 5 days', quantity: 5, unitPrice: 25000, total: 125000 }], total: 125000, payment: { method: 'Cash', amountPaid: 25000 } };
    const text = textOf(renderDocuments({ ...ci, invoice }, { lang: 'bn' })[0]?.html ?? '');
    expect(text).toContain('1,25,000.00');
    expect(text).toContain(MESSAGES.bn.labels.balanceDue);
    expect(text).toContain('1,00,000.00');
  });

  it('warns when the care context has no invoice', () => {
    const r = safeRenderDocuments(input('opd-prescription'), { template: 'invoice' });
    expect(r.success && r.warnings.filter((w) => w.code === 'print-value-missing').map((w) => w.path)).toEqual(['/invoice']);
  });
});

describe('content a record template does not print', () => {
  it('is a warning naming the part, never lost silently', () => {
    const ci = input('opd-prescription');
    const r = safeRenderDocuments(ci, { template: 'wellness' });
    expect(r.success).toBe(true);
    if (!r.success) return;
    const notPrinted = r.warnings.filter((w) => w.code === 'content-not-printed').map((w) => w.path);
    expect(notPrinted).toEqual(['/diagnosis', '/medications'].concat((ci.labInvestigations ?? []).length > 0 ? ['/labInvestigations'] : []));
    for (const w of r.warnings) for (const m of ci.medications ?? []) expect(w.message).not.toContain(m.drugName);
  });

  it('includes, in the discharge summary, the investigations ordered for after discharge', () => {
    const ci = { ...input('discharge-summary'), labInvestigations: [{ testName: 'Histopathology report review', instructions: 'at the follow-up visit' }] };
    const r = safeRenderDocuments(ci);
    expect(r.success && r.warnings.filter((w) => w.code === 'content-not-printed')).toEqual([]);
    const text = textOf(r.success ? (r.documents[0]?.html ?? '') : '');
    expect(text).toContain('Histopathology report review');
    expect(text).toContain('Test results');
  });
});

describe('bilingual record pages', () => {
  it.each(RECORDS.map(([t, e]) => [t, e] as const))('the %s template prints labels and generated text in English and Hindi, the data once', (template, example) => {
    const ci = input(example);
    const html = unhyphenated(renderDocuments(ci, { template, lang: ['en', 'hi'] })[0]?.html ?? '');
    const pick: Record<string, keyof (typeof en)['labels']> = {
      'discharge-summary': 'dischargeSummary',
      'immunisation-certificate': 'immunisationCertificate',
      wellness: 'wellnessRecord',
      invoice: 'invoice',
    };
    const key = pick[template] as keyof (typeof en)['labels'];
    expect(html).toContain(`<span class=l1>${en.labels[key]}</span><span class=l2 lang=hi>`);
    const text = textOf(html);
    expect(text).toContain(MESSAGES.hi.labels[key].replace(/\u00ad/g, ''));
    expect(text.split(ci.patient.name ?? '').length - 1).toBe(1);
  });

  it('prints dates in both languages', () => {
    const text = textOf(renderDocuments(input('immunization'), { lang: ['en', 'hi'] as Language[] })[0]?.html ?? '');
    expect(text).toMatch(/18 Dec 2026\s+18 दिसंबर 2026/);
  });
});

describe('hostile data in the record content', () => {
  const FREE_TEXT = new Set([
    'vaccine',
    'lotNumber',
    'manufacturer',
    'site',
    'route',
    'item',
    'method',
    'reference',
    'number',
    'reasonForAdmission',
    'chiefComplaints',
    'presentIllness',
    'pastHistory',
    'allergies',
    'name',
    'notes',
    'testName',
    'referenceRange',
    'interpretation',
    'courseInHospital',
    'conditionAtDischarge',
    'smoking',
    'alcohol',
    'diet',
    'physicalActivity',
  ]);
  const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>{{constructor}}';
  /** The content with the hostile text (tagged #Rn) in every free-text field of the record parts; the planted values. */
  function plant(ci: ClinicalInput, s: string): { input: ClinicalInput; planted: string[] } {
    const planted: string[] = [];
    const walk = (v: unknown, key: string): unknown => {
      if (typeof v === 'string' && FREE_TEXT.has(key)) {
        const value = `${s}#R${planted.length}`;
        planted.push(value);
        return value;
      }
      if (Array.isArray(v)) return v.map((x) => walk(x, key));
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
      return v;
    };
    const out = { ...ci } as Record<string, unknown>;
    for (const k of ['inpatientStay', 'immunizations', 'observations', 'invoice']) if (out[k] !== undefined) out[k] = walk(out[k], k);
    return { input: out as unknown as ClinicalInput, planted };
  }
  const tags = (html: string): string[] => [...html.matchAll(/<(\/?[a-z][a-z0-9]*)/gi)].map((m) => m[1] ?? '');

  it.each(RECORDS.map(([t, e]) => [t, e] as const))('the %s template escapes every value and prints each one', (template, example) => {
    const ci = input(example);
    const benign = plant(ci, 'benign');
    const hostile = plant(ci, HOSTILE);
    expect(hostile.planted.length).toBeGreaterThan(3);
    const html = renderDocuments(hostile.input, { template, lint: false })[0]?.html ?? '';
    expect(tags(html)).toEqual(tags(renderDocuments(benign.input, { template, lint: false })[0]?.html ?? ''));
    expect(html).not.toMatch(/<script|<img|\son[a-z]+=/i);
    const text = textOf(html);
    for (const p of hostile.planted) expect(text).toContain(p);
  });
});

describe('abha-link render', () => {
  it('prints a record on its own template when no --template is given, and says on stderr what a link request lacks', async () => {
    const cert = await runInProcess(['render', 'examples/immunization.input.json']);
    expect(cert.code).toBe(0);
    expect(cert.stdout).toContain('class="page-a4 template-immunisation-certificate"');
    expect(cert.stderr).toBe('');
    const req = await runInProcess(['render', '--template', 'invoice', 'examples/invoice.request.json']);
    expect(req.code).toBe(0);
    expect(req.stderr).toContain('a link request or a care context has none');
    expect(req.stderr).toContain('(print-value-missing)');
    expect(textOf(req.stdout)).toContain('No bill details recorded.');
  });
});
