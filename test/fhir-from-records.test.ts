/**
 * FHIR in for WellnessRecord and InvoiceRecord content: Observations and the
 * Invoice with its ChargeItems map back into the clinical input; what does
 * not fit is reported, never converted.
 */
import { describe, expect, it } from 'vitest';
import type { ClinicalInput, Issue } from '../src/index.js';
import { fromFhir, toFhirBundles, type Bundle, type Invoice, type Observation } from '../src/fhir/index.js';
import { bundlesOf, example } from './fhir-helpers.js';

function valueOf(r: ReturnType<typeof fromFhir>): { value: ClinicalInput; warnings: readonly Issue[] } {
  if (!r.success) expect.fail(`expected success, got ${JSON.stringify(r.issues, null, 2)}`);
  return { value: r.value, warnings: r.warnings };
}
const bundleOf = (input: ClinicalInput): Bundle => bundlesOf(toFhirBundles(input))[0]!.bundle;

describe('round trips of wellness and invoice records', () => {
  it.each(['wellness', 'invoice'])('%s: clinical input → FHIR → clinical input gives the same content and hiType, and the same bundle again', (name) => {
    const input = example(name, 'input');
    const bundle = bundleOf(input);
    const { value, warnings } = valueOf(fromFhir(bundle));
    expect(warnings).toEqual([]);
    expect(value.observations).toEqual(input.observations);
    // HSN/SAC is printed only (no code system in the NRCeS InvoiceRecord; toFhir warns print-only-not-in-fhir), so FHIR cannot give it back.
    const printedOnly = (inv: typeof input.invoice) => (inv === undefined ? inv : { ...inv, lines: inv.lines.map(({ hsnSac: _printed, ...line }) => line) });
    expect(value.invoice).toEqual(printedOnly(input.invoice));
    expect(value.hiType).toBe(name === 'wellness' ? 'WellnessRecord' : 'Invoice');
    expect(bundleOf(value)).toEqual(bundle);
  });
});

describe('reading Observations', () => {
  const withObservation = (edit: (o: Observation) => void, code: string): Bundle => {
    const b = structuredClone(bundleOf(example('wellness', 'input')));
    const o = (b.entry ?? []).map((e) => e.resource).find((r): r is Observation => r?.resourceType === 'Observation' && (r as Observation).code.coding?.[0]?.code === code);
    if (o === undefined) throw new Error(`no Observation ${code}`);
    edit(o);
    return b;
  };

  it('leaves out, with a warning at its value, a measurement in a unit the clinical input does not hold (no conversion)', () => {
    const b = withObservation((o) => (o.valueQuantity = { value: 62, unit: 'in', system: 'http://unitsofmeasure.org', code: '[in_i]' }), '8302-2');
    const { value, warnings } = valueOf(fromFhir(b));
    expect(value.observations?.height).toBeUndefined();
    expect(warnings.map((w) => [w.path, w.code])).toEqual([['/entry/10/resource/valueQuantity', 'not-mapped']]);
  });

  it('reports an Observation that is none of the vital signs, body measurements or lifestyle findings', () => {
    const b = withObservation((o) => (o.code = { coding: [{ system: 'http://loinc.org', code: '2339-0', display: 'Glucose [Mass/volume] in Blood' }] }), '8867-4');
    const { value, warnings } = valueOf(fromFhir(b));
    expect(value.observations?.pulse).toBeUndefined();
    expect(warnings.map((w) => w.code)).toEqual(['resource-not-mapped']);
    expect(warnings[0]?.message).toContain('none of the vital signs');
  });

  it('reads SpO2 by pulse oximetry (59408-5) and body temperature (8310-5), the FHIR vital-signs codes, too', () => {
    const b = withObservation((o) => (o.code = { coding: [{ system: 'http://loinc.org', code: '59408-5', display: 'Oxygen saturation in Arterial blood by Pulse oximetry' }] }), '2708-6');
    expect(valueOf(fromFhir(b)).value.observations?.spo2).toBe(98);
    const t = withObservation((o) => (o.code = { coding: [{ system: 'http://loinc.org', code: '8310-5', display: 'Body temperature' }] }), '61008-9');
    expect(valueOf(fromFhir(t)).value.observations?.temperature).toEqual({ value: 98.4, unit: '[degF]' });
  });
});

describe('reading an Invoice', () => {
  it('reports a price component that is none of Rate, Discount, CGST and SGST, and a second Invoice', () => {
    const b = structuredClone(bundleOf(example('invoice', 'input')));
    const entries = b.entry ?? [];
    const inv = entries.find((e) => e.resource?.resourceType === 'Invoice');
    const resource = inv?.resource as Invoice | undefined;
    if (resource === undefined) throw new Error('no Invoice');
    resource.lineItem?.[0]?.priceComponent?.push({
      type: 'surcharge',
      code: { coding: [{ system: 'https://nrces.in/ndhm/fhir/r4/CodeSystem/ndhm-price-components', code: '00', display: 'MRP' }] },
      amount: { value: 1, currency: 'INR' },
    });
    entries.push({ fullUrl: 'urn:uuid:00000000-0000-5000-8000-000000000001', resource: { ...structuredClone(resource), id: '00000000-0000-5000-8000-000000000001' } });
    const { warnings } = valueOf(fromFhir(b));
    expect(warnings.map((w) => [w.path, w.code])).toEqual([
      ['/entry/8/resource/lineItem/0/priceComponent/1', 'not-mapped'],
      ['/entry/9/resource', 'not-mapped'],
    ]);
  });
});

describe('invoice fields that are printed only', () => {
  it('says, line by line, that HSN/SAC is printed but left out of FHIR (never dropped silently)', () => {
    const r = toFhirBundles(example('invoice', 'input'), { timestamp: new Date('2026-11-20T12:00:00+05:30') });
    if (!r.success) throw new Error('the invoice example does not convert');
    const lines = example('invoice', 'input').invoice?.lines ?? [];
    const expected = lines.flatMap((l, i) => (l.hsnSac === undefined ? [] : [`/invoice/lines/${i}/hsnSac`]));
    expect(expected.length).toBeGreaterThan(0);
    expect(r.warnings.filter((w) => w.code === 'print-only-not-in-fhir' && w.path.endsWith('/hsnSac')).map((w) => w.path)).toEqual(expected);
  });
});
