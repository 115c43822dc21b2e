import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildLinkRequest, defaultHiType, lintClinicalInput, safeBuildLinkRequest, validateLinkRequest, type ClinicalInput } from '../src/index.js';

const example = (name: string): ClinicalInput => JSON.parse(readFileSync(new URL(`../examples/${name}.input.json`, import.meta.url), 'utf8')) as ClinicalInput;
const wellness = (): ClinicalInput => example('wellness');
const invoiced = (): ClinicalInput => example('invoice');
const found = (input: ClinicalInput): Array<[string, string]> => lintClinicalInput(input).map((i) => [i.path, i.code]);

describe('the wellness and invoice examples', () => {
  it.each(['wellness', 'invoice'])('%s builds into the committed link request, with nothing to lint', (name) => {
    const r = safeBuildLinkRequest(example(name), { lint: { now: new Date('2026-11-30T00:00:00Z') } });
    expect(r.success ? r.warnings : r.issues).toEqual([]);
    if (!r.success) return;
    expect(validateLinkRequest(r.value).success).toBe(true);
    expect(r.value).toEqual(JSON.parse(readFileSync(new URL(`../examples/${name}.request.json`, import.meta.url), 'utf8')));
  });

  it('keep observations and the invoice out of the link payload, which stays the 4.12 body', () => {
    for (const input of [wellness(), invoiced()]) {
      const bundleData = buildLinkRequest(input).careContexts[0]?.bundleData ?? {};
      expect(Object.keys(bundleData).sort()).toEqual(['doctor', 'hospital']);
    }
  });
});

describe('defaultHiType with observations and an invoice', () => {
  it('makes observations alone a WellnessRecord and an invoice alone an Invoice', () => {
    expect(defaultHiType({ observations: { pulse: 72 } })).toBe('WellnessRecord');
    expect(defaultHiType({ observations: { pulse: 72 }, documentUrl: 'https://x.example/v.pdf' })).toBe('WellnessRecord');
    expect(defaultHiType({ invoice: { number: 'I', lines: [{ item: 'X', quantity: 1, unitPrice: 1, total: 1 }], total: 1 } })).toBe('Invoice');
  });

  it('falls back to OPConsultation when observations come with medications, and says the observations stay out of FHIR', () => {
    const input = { ...wellness(), medications: [{ drugName: 'Amlodipine 5 mg', genericName: 'Amlodipine', dosage: '1 tablet', frequency: 'OD' }] };
    delete input.hiType;
    expect(defaultHiType(input)).toBe('OPConsultation');
    expect(found(input)).toEqual([
      ['/hiType', 'hi-type-inferred'],
      ['/observations', 'observations-outside-wellness-record'],
    ]);
  });

  it('does not count an empty observations object as content', () => {
    expect(defaultHiType({ observations: {} })).toBe('OPConsultation');
  });
});

describe('lint of observations and invoices (hiType vs content)', () => {
  it('warns about an invoice on a care context of another hiType, at its path', () => {
    const input: ClinicalInput = {
      ...invoiced(),
      careContexts: [{ hiType: 'Prescription', medications: [{ drugName: 'X', genericName: 'X', dosage: '1', frequency: 'OD' }], invoice: invoiced().invoice! }],
    };
    delete (input as { invoice?: unknown }).invoice;
    expect(found(input)).toEqual([['/careContexts/0/invoice', 'invoice-outside-invoice-record']]);
  });

  it('warns about a WellnessRecord without observations and an Invoice without an invoice', () => {
    const base = wellness();
    delete base.observations;
    expect(found({ ...base, hiType: 'WellnessRecord', advice: 'Walk daily' })).toEqual([['', 'wellness-record-without-observations']]);
    expect(found({ ...base, careContexts: [{ hiType: 'Invoice', advice: 'Paid' }] })).toEqual([['/careContexts/0', 'invoice-record-without-invoice']]);
  });

  it('finds nothing to say about a WellnessRecord with observations or a document', () => {
    expect(found(wellness())).toEqual([]);
    const base = wellness();
    delete base.observations;
    expect(found({ ...base, hiType: 'WellnessRecord', documentUrl: 'https://x.example/vitals.pdf' })).toEqual([]);
  });
});

describe('invoice arithmetic', () => {
  const withInvoice = (edit: (inv: NonNullable<ClinicalInput['invoice']>) => void): ClinicalInput => {
    const input = invoiced();
    edit(input.invoice!);
    return input;
  };

  it('accepts lines and totals that add up to the paisa', () => {
    expect(found(invoiced())).toEqual([]);
  });

  it('warns when a line total is not quantity x unitPrice - discount + tax, naming the amount it comes to', () => {
    const input = withInvoice((inv) => {
      inv.lines[1]!.total = 90;
      inv.total = 990;
      inv.payment = { method: 'UPI', amountPaid: 990 };
    });
    const issues = lintClinicalInput(input);
    expect(issues.map((i) => [i.path, i.code, i.severity])).toEqual([['/invoice/lines/1/total', 'invoice-line-arithmetic', 'warning']]);
    expect(issues[0]?.message).toContain('100.80');
  });

  it('warns when a tax amount is not its rate of the taxable value', () => {
    const input = withInvoice((inv) => {
      inv.lines[1]!.tax = { rate: 12, amount: 12 };
      inv.lines[1]!.total = 102;
      inv.total = 1002;
      inv.payment = { method: 'UPI', amountPaid: 1002 };
    });
    expect(found(input)).toEqual([['/invoice/lines/1/tax/amount', 'invoice-line-arithmetic']]);
  });

  it('warns when the invoice total is not the sum of its lines, and when more was paid than the total', () => {
    const input = withInvoice((inv) => {
      inv.total = 1100;
      inv.payment = { method: 'Cash', amountPaid: 1200 };
    });
    expect(found(input)).toEqual([
      ['/invoice/total', 'invoice-total-arithmetic'],
      ['/invoice/payment/amountPaid', 'invoice-total-arithmetic'],
    ]);
  });

  it('tolerates rounding to the paisa', () => {
    const input = withInvoice((inv) => {
      inv.lines[1] = { item: 'Syrup', quantity: 3, unitPrice: 33.33, tax: { rate: 5 }, total: 104.99 };
      inv.total = 1004.99;
      inv.payment = { method: 'Cash', amountPaid: 1004.99 };
    });
    expect(found(input)).toEqual([]);
  });

  it('does not stop the build: arithmetic findings are warnings', () => {
    const input = withInvoice((inv) => {
      inv.total = 1;
      delete inv.payment;
    });
    const r = safeBuildLinkRequest(input);
    expect(r.success && r.warnings.map((w) => w.code)).toEqual(['invoice-total-arithmetic']);
  });
});

describe('ICD-11 MMS codes beside ICD-10', () => {
  const withCode = (icdCode: string): ClinicalInput => {
    const input = wellness();
    delete input.observations;
    return { ...input, hiType: 'OPConsultation', diagnosis: [{ diagnosisName: 'Diagnosis', icdCode }] };
  };
  it.each(['1A00', 'CA40.0', '8A80.1Z', 'BA00.Z', 'CA40.0&XN8C1', '5A11/BA00'])('accepts the well-formed ICD-11 MMS code %s without a finding', (code) => {
    const input = withCode(code);
    const r = safeBuildLinkRequest(input);
    expect(r.success ? r.warnings : r.issues).toEqual([]);
    expect(r.success && r.value.careContexts[0]?.bundleData.diagnosis?.[0]?.icdCode).toBe(code);
  });

  it.each(['XN8C1', 'CA4', 'CI40.0', 'CA40.0&', '1A00.123'])('refuses %s, which is neither ICD-10 nor ICD-11 MMS, naming both shapes', (code) => {
    const input = withCode(code);
    const r = safeBuildLinkRequest(input);
    expect(r.success ? [] : r.issues.map((i) => [i.path, i.code])).toEqual([['/diagnosis/0/icdCode', 'icd10-shape']]);
    expect(r.success ? '' : r.issues[0]?.message).toMatch(/ICD-10 .*ICD-11 MMS/);
  });
});
