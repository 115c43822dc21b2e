import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ClinicalInput } from '../src/index.js';
import { toFhirBundles, validateFhirBundle, type Bundle, type ChargeItem, type Composition, type FhirResource, type Invoice, type Observation } from '../src/fhir/index.js';
import { bundlesOf, example, expectReferencesResolve } from './fhir-helpers.js';

const resources = (b: Bundle): FhirResource[] => (b.entry ?? []).map((e) => e.resource as FhirResource);
const ofType = <T extends FhirResource>(b: Bundle, type: T['resourceType']): T[] => resources(b).filter((r): r is T => r.resourceType === type);
const only = (r: ReturnType<typeof toFhirBundles>): Bundle => {
  const [d] = bundlesOf(r);
  if (d === undefined) throw new Error('no bundle');
  return d.bundle;
};
const committed = (name: string): unknown => JSON.parse(readFileSync(new URL(`../examples/${name}.bundle.json`, import.meta.url), 'utf8'));
const codeOf = (o: Observation): string => o.code.coding?.[0]?.code ?? `text:${o.code.text ?? ''}`;

describe('WellnessRecord bundles', () => {
  const bundle = (): Bundle => only(toFhirBundles(example('wellness', 'input')));

  it('match the committed example bundle, and the same input gives the same bundle', () => {
    expect(bundle()).toEqual(committed('wellness'));
    expect(bundle()).toEqual(bundle());
  });

  it('put the Composition first, with the profile, type.text "Wellness Record" and no invented type coding', () => {
    const b = bundle();
    const c = b.entry?.[0]?.resource as Composition;
    expect(c.resourceType).toBe('Composition');
    expect(c.meta?.profile).toEqual(['https://nrces.in/ndhm/fhir/r4/StructureDefinition/WellnessRecord']);
    expect(c.type).toEqual({ text: 'Wellness Record' });
    expect(c.section?.map((s) => s.title)).toEqual(['Vital Signs', 'Body Measurement', 'Physical Activity', 'Lifestyle']);
    expectReferencesResolve(b);
  });

  it('codes each vital sign and body measurement with the LOINC code of the NRCeS value sets and a UCUM quantity', () => {
    const obs = ofType<Observation>(bundle(), 'Observation');
    const byCode = new Map(obs.map((o) => [codeOf(o), o]));
    const q = (code: string): unknown => byCode.get(code)?.valueQuantity;
    expect(q('8867-4')).toEqual({ value: 78, unit: 'beats/minute', system: 'http://unitsofmeasure.org', code: '/min' });
    expect(q('61008-9')).toEqual({ value: 98.4, unit: '°F', system: 'http://unitsofmeasure.org', code: '[degF]' });
    expect(q('2708-6')).toMatchObject({ value: 98, code: '%' });
    expect(q('9279-1')).toMatchObject({ value: 16, code: '/min' });
    expect(q('8302-2')).toMatchObject({ value: 158, code: 'cm' });
    expect(q('29463-7')).toMatchObject({ value: 64.5, code: 'kg' });
    expect(q('39156-5')).toMatchObject({ value: 25.8, code: 'kg/m2' });
    const bp = byCode.get('85354-9');
    expect(bp?.component?.map((c) => [c.code.coding?.[0]?.code, c.valueQuantity?.value, c.valueQuantity?.code])).toEqual([
      ['8480-6', 134, 'mm[Hg]'],
      ['8462-4', 86, 'mm[Hg]'],
    ]);
    expect(byCode.get('29463-7')?.effectiveDateTime).toBe('2026-11-22T09:10:00+05:30');
    expect(byCode.get('8867-4')?.effectiveDateTime).toBe('2026-11-22T09:15:00+05:30');
    expect(obs.every((o) => o.status === 'final' && o.subject?.reference !== undefined)).toBe(true);
  });

  it('codes smoking and alcohol from the NRCeS lifestyle value set and keeps diet and physical activity as text, without a code', () => {
    const obs = ofType<Observation>(bundle(), 'Observation');
    const smoking = obs.find((o) => codeOf(o) === '365981007');
    expect(smoking?.valueCodeableConcept).toEqual({ text: 'Never smoked' });
    expect(obs.find((o) => codeOf(o) === '228273003')?.valueCodeableConcept).toEqual({ text: 'Does not drink' });
    expect(obs.find((o) => o.code.text === 'Diet')).toMatchObject({ code: { text: 'Diet' }, valueCodeableConcept: { text: 'Vegetarian, low salt' } });
    expect(obs.find((o) => o.code.text === 'Physical activity')?.code.coding).toBeUndefined();
  });

  it('reports a WellnessRecord without observations (a link request) as an empty document', () => {
    const r = toFhirBundles(example('wellness', 'request'));
    expect(r.success ? [] : r.issues.map((i) => [i.path, i.code])).toEqual([['/careContexts/0/bundleData', 'empty-document']]);
  });

  it('reports a measurement time that is not a real time at its path', () => {
    const input = example('wellness', 'input');
    input.observations = { pulse: { value: 70, at: '2026-02-30T10:00' } };
    const r = toFhirBundles(input);
    expect(r.success ? [] : r.issues.map((i) => [i.path, i.code])).toEqual([['/observations/pulse/at', 'invalid-datetime']]);
  });

  it('leaves out, with a warning each, content a WellnessRecord has no place for', () => {
    const input: ClinicalInput = { ...example('wellness', 'input'), hiType: 'WellnessRecord', advice: 'Walk daily', diagnosis: [{ diagnosisName: 'Obesity' }] };
    const r = toFhirBundles(input);
    expect(r.success ? r.warnings.map((w) => [w.path, w.code]) : r.issues).toEqual([
      ['/diagnosis', 'content-not-in-profile'],
      ['/advice', 'content-not-in-profile'],
    ]);
  });
});

describe('InvoiceRecord bundles', () => {
  const bundle = (input: ClinicalInput = example('invoice', 'input')): Bundle => only(toFhirBundles(input));

  it('match the committed example bundle', () => {
    expect(bundle()).toEqual(committed('invoice'));
  });

  it('hold one section with one typed entry, the Invoice, under type.text "Invoice Record"', () => {
    const b = bundle();
    const c = b.entry?.[0]?.resource as Composition;
    expect(c.type).toEqual({ text: 'Invoice Record' });
    expect(c.section).toHaveLength(1);
    expect(c.section?.[0]?.entry?.map((e) => e.type)).toEqual(['Invoice']);
    expectReferencesResolve(b);
  });

  it('write each line as NRCeS price components: rate times quantity, discount, and the GST as CGST and SGST halves', () => {
    const [inv] = ofType<Invoice>(bundle(), 'Invoice');
    const parts = inv?.lineItem?.map((l) => l.priceComponent?.map((p) => [p.type, p.code?.coding?.[0]?.code, p.factor, p.amount?.value]));
    expect(parts).toEqual([
      [['base', '01', 1, 500]],
      [
        ['base', '01', 3, 90],
        ['tax', '03', 0.06, 5.4],
        ['tax', '04', 0.06, 5.4],
      ],
      [
        ['base', '01', 1, 450],
        ['discount', '02', undefined, 50],
      ],
    ]);
    expect([inv?.totalNet, inv?.totalGross]).toEqual([
      { value: 990, currency: 'INR' },
      { value: 1000.8, currency: 'INR' },
    ]);
    expect(inv?.status).toBe('balanced');
    expect(inv?.type?.coding).toEqual([{ system: 'https://nrces.in/ndhm/fhir/r4/CodeSystem/ndhm-billing-codes', code: '03', display: 'OPD' }]);
    expect(inv?.note?.[0]?.text).toBe('Paid 1000.80 INR by UPI on 2026-11-20T11:07:00+05:30 (reference UPI-4471-2026)');
  });

  it('gives a ChargeItem with its NRCeS billing code to each coded line, and a text concept to a line without a code', () => {
    const input = example('invoice', 'input');
    delete input.invoice!.lines[2]!.code;
    const b = bundle(input);
    expect(ofType<ChargeItem>(b, 'ChargeItem').map((c) => [c.code.coding?.[0]?.code, c.code.coding?.[0]?.display, c.quantity?.value])).toEqual([
      ['00', 'Consultation', 1],
      ['05', 'Medicines', 3],
    ]);
    expect(ofType<Invoice>(b, 'Invoice')[0]?.lineItem?.[2]?.chargeItemCodeableConcept).toEqual({ text: 'HbA1c' });
  });

  it('splits an odd paisa of GST so that CGST and SGST add up to the tax', () => {
    const input = example('invoice', 'input');
    input.invoice!.lines = [{ item: 'Syrup', quantity: 1, unitPrice: 100, tax: { amount: 10.81 }, total: 110.81 }];
    input.invoice!.total = 110.81;
    delete input.invoice!.payment;
    const [inv] = ofType<Invoice>(bundle(input), 'Invoice');
    expect(inv?.lineItem?.[0]?.priceComponent?.filter((p) => p.type === 'tax').map((p) => p.amount?.value)).toEqual([5.41, 5.4]);
    expect(inv?.status).toBe('issued');
  });

  it('warns that IGST has no NRCeS price-component code and keeps it in the total', () => {
    const input = example('invoice', 'input');
    input.invoice!.lines[1]!.tax = { rate: 12, kind: 'IGST' };
    const r = toFhirBundles(input);
    // (The HSN/SAC codes of the example's lines are printed only: their warnings are left aside here.)
    expect(r.success ? r.warnings.filter((w) => !w.path.endsWith('/hsnSac')).map((w) => [w.path, w.code]) : r.issues).toEqual([['/invoice/lines/1/tax', 'content-not-in-profile']]);
    const [inv] = ofType<Invoice>(only(r), 'Invoice');
    expect(inv?.lineItem?.[1]?.priceComponent?.map((p) => p.type)).toEqual(['base']);
    expect(inv?.totalGross?.value).toBe(1000.8);
  });

  it('reports an Invoice care context without its invoice (a link request) as an empty document', () => {
    const r = toFhirBundles(example('invoice', 'request'));
    expect(r.success ? [] : r.issues.map((i) => [i.path, i.code])).toEqual([['/careContexts/0/bundleData', 'empty-document']]);
  });
});

describe('the validator on WellnessRecord and InvoiceRecord', () => {
  it('catches a wrong type.text, a repeated section title and a section entry of the wrong resource type', () => {
    const b = structuredClone(only(toFhirBundles(example('wellness', 'input'))));
    const c = b.entry?.[0]?.resource as Composition;
    c.type = { text: 'Wellness record' };
    const sections = c.section ?? [];
    sections.push({ ...structuredClone(sections[0]!) });
    sections[1]!.entry = [{ reference: b.entry?.[1]?.fullUrl ?? '' }];
    const found = validateFhirBundle(b).issues.map((i) => [i.path, i.code]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['Bundle.entry[0].resource.type.text', 'fixed-value'],
        ['Bundle.entry[0].resource.section[1].entry[0].reference', 'wrong-target'],
        // The repeated Vital Signs section: its slice allows one.
        ['Bundle.entry[0].resource.section', 'slice-cardinality'],
      ]),
    );
  });

  it('catches an InvoiceRecord section entry that is not the Invoice', () => {
    const b = structuredClone(only(toFhirBundles(example('invoice', 'input'))));
    const c = b.entry?.[0]?.resource as Composition;
    c.section![0]!.entry = [{ reference: b.entry?.[5]?.fullUrl ?? '', type: 'ChargeItem' }];
    expect(validateFhirBundle(b).issues.map((i) => [i.path, i.code])).toContainEqual(['Bundle.entry[0].resource.section[0].entry[0].type', 'closed-slice']);
  });
});

describe('issues about wellness, invoice and diagnosis codes never carry health data', () => {
  it('names paths and codes only, with planted values absent from every issue', () => {
    const planted = 'PLANTED-Secret-Value';
    const input = example('invoice', 'input');
    input.invoice!.lines[1]!.item = `${planted} tablet`;
    input.invoice!.lines[1]!.tax = { rate: 12, kind: 'IGST' };
    input.invoice!.payment = { method: planted, amountPaid: 5000, reference: planted };
    input.invoice!.total = 9999;
    const wellness: ClinicalInput = {
      ...example('wellness', 'input'),
      careContexts: [
        {
          hiType: 'OPConsultation',
          diagnosis: [
            { diagnosisName: planted, icdCode: 'CA20.0' },
            { diagnosisName: planted, icdCode: 'J20.9' },
          ],
          observations: { lifestyle: { smoking: planted } },
        },
      ],
    };
    delete (wellness as { observations?: unknown }).observations;
    for (const r of [toFhirBundles(input), toFhirBundles(wellness)]) {
      const issues = r.success ? r.warnings : r.issues;
      expect(issues.length).toBeGreaterThan(0);
      expect(JSON.stringify(issues)).not.toContain(planted);
    }
  });
});
