/**
 * FHIR in for the discharge summary and the immunisation record: round
 * trips of both examples (clinical input → FHIR → clinical input → FHIR),
 * an inpatient Encounter and its resources without a Composition, and what
 * an EMR's own Immunization carries that the clinical input cannot, each
 * reported at its FHIR path.
 */
import { describe, expect, it } from 'vitest';
import type { ClinicalInput, Issue } from '../src/index.js';
import { fromFhir, toFhirBundles, type Bundle, type FhirResource } from '../src/fhir/index.js';
import { bundlesOf, example } from './fhir-helpers.js';

function valueOf(r: ReturnType<typeof fromFhir>): { value: ClinicalInput; warnings: readonly Issue[] } {
  if (!r.success) expect.fail(`expected success, got ${JSON.stringify(r.issues, null, 2)}`);
  return { value: r.value, warnings: r.warnings };
}
const bundleOf = (input: ClinicalInput): Bundle => bundlesOf(toFhirBundles(input))[0]?.bundle as Bundle;
const warned = (w: readonly Issue[]): Array<[string, string]> => w.map((i) => [i.path, i.code]);

const patient = {
  resourceType: 'Patient',
  id: 'p1',
  identifier: [{ type: { coding: [{ system: 'https://nrces.in/ndhm/fhir/r4/CodeSystem/ndhm-identifier-type-code', code: 'ABHA' }] }, value: 'rahul.sharma@sbx' }],
};
const practitioner = {
  resourceType: 'Practitioner',
  id: 'd1',
  name: [{ text: 'Dr. Arjun Mehta' }],
  identifier: [{ type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MD' }] }, value: 'DMC-80412' }],
};
const organization = {
  resourceType: 'Organization',
  id: 'o1',
  name: 'Green Valley Hospital',
  identifier: [{ type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'PRN' }] }, value: 'IN0710000789' }],
};
const people = [patient, practitioner, organization] as unknown as FhirResource[];

describe('round trips', () => {
  it.each(['discharge-summary', 'immunization'])('%s: the stay and the doses come back as given, and make the same bundle again', (name) => {
    const input = example(name, 'input');
    const first = bundleOf(input);
    const { value, warnings } = valueOf(fromFhir(first));
    expect(warnings).toEqual([]);
    expect(value.hiType).toBe(input.hiType);
    expect(value.inpatientStay).toEqual(input.inpatientStay);
    expect(value.immunizations).toEqual(input.immunizations);
    expect([value.diagnosis, value.advice, value.visit]).toEqual([input.diagnosis, input.advice, input.visit]);
    expect(bundleOf(value)).toEqual(first);
  });
});

describe('an inpatient Encounter and its resources, without a Composition', () => {
  const encounter = {
    resourceType: 'Encounter',
    id: 'e1',
    identifier: [{ value: 'IPD-77' }],
    status: 'finished',
    class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'IMP' },
    period: { start: '2026-11-10T08:00:00+05:30', end: '2026-11-12T17:00:00+05:30' },
    reasonCode: [{ text: 'Dengue fever with thrombocytopenia', coding: [{ system: 'http://snomed.info/sct', code: '38362002', display: 'Dengue' }] }],
  };
  const procedure = {
    resourceType: 'Procedure',
    id: 'pr1',
    status: 'completed',
    code: { text: 'Platelet transfusion', coding: [{ system: 'http://www.ama-assn.org/go/cpt', code: '36430', display: 'Transfusion' }] },
    performedDateTime: '2026-11-11',
    bodySite: [{ text: 'Left forearm' }],
  };

  it('reads the period as admission and discharge, the visit as the discharge, and the procedures into the stay', () => {
    const { value, warnings } = valueOf(fromFhir([...people, encounter, procedure] as unknown as FhirResource[]));
    expect(value.inpatientStay).toEqual({
      admittedAt: '2026-11-10T08:00:00+05:30',
      dischargedAt: '2026-11-12T17:00:00+05:30',
      reasonForAdmission: 'Dengue fever with thrombocytopenia',
      procedures: [{ name: 'Platelet transfusion', date: '2026-11-11' }],
    });
    expect(value.visit).toEqual({ id: 'IPD-77', at: '2026-11-12T17:00:00+05:30' });
    expect(warned(warnings)).toEqual([
      ['/3/reasonCode/0/coding/0', 'not-mapped'],
      ['/4/code/coding/0', 'not-mapped'],
      ['/4/bodySite', 'not-mapped'],
    ]);
  });

  it('leaves a Procedure of an outpatient visit out, saying so', () => {
    const outpatient = {
      resourceType: 'Encounter',
      id: 'e1',
      identifier: [{ value: 'OPD-77' }],
      status: 'finished',
      class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB' },
      period: { start: '2026-11-10T08:00:00+05:30' },
    };
    const { value, warnings } = valueOf(fromFhir([...people, outpatient, procedure] as unknown as FhirResource[]));
    expect(value.inpatientStay).toBeUndefined();
    expect(warned(warnings)).toEqual([['/4', 'resource-not-mapped']]);
  });
});

describe('a discharge summary whose Encounter is not marked inpatient', () => {
  it('takes the admission from the Encounter start, and says that the class is left out', () => {
    const bundle = structuredClone(bundlesOf(toFhirBundles(example('discharge-summary', 'input')))[0]?.bundle as Bundle);
    const at = (bundle.entry ?? []).findIndex((e) => e.resource?.resourceType === 'Encounter');
    const enc = bundle.entry?.[at]?.resource as unknown as { class: unknown; period: { start: string; end?: string } };
    enc.class = { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB' };
    delete enc.period.end;
    const { value, warnings } = valueOf(fromFhir(bundle));
    expect(value.inpatientStay?.admittedAt).toBe('2026-11-15T21:40:00+05:30');
    expect(value.inpatientStay?.dischargedAt).toBeUndefined();
    expect(value.visit.at).toBe('2026-11-18T11:00:00+05:30');
    expect(warned(warnings)).toEqual([[`/entry/${at}/resource/class`, 'not-mapped']]);
  });
});

describe("an EMR's own Immunization", () => {
  const encounter = { resourceType: 'Encounter', id: 'e1', identifier: [{ value: 'OPD-9' }], status: 'finished', period: { start: '2026-11-20T11:00:00+05:30' } };
  const dose = {
    resourceType: 'Immunization',
    id: 'i1',
    status: 'completed',
    vaccineCode: { text: 'Hepatitis B vaccine', coding: [{ system: 'http://hl7.org/fhir/sid/cvx', code: '08', display: 'Hep B, adolescent or pediatric' }] },
    occurrenceDateTime: '2026-11-20',
    protocolApplied: [{ doseNumberPositiveInt: 2, series: 'Infant' }],
    manufacturer: { reference: 'Organization/o1' },
    expirationDate: '2027-06-30',
  };
  const notGiven = { resourceType: 'Immunization', id: 'i2', status: 'not-done', vaccineCode: { text: 'MMR' }, occurrenceDateTime: '2026-11-20' };
  const recommendation = {
    resourceType: 'ImmunizationRecommendation',
    id: 'r1',
    date: '2026-11-20',
    recommendation: [
      {
        vaccineCode: [{ text: 'Hepatitis B vaccine' }],
        dateCriterion: [{ code: { coding: [{ system: 'http://loinc.org', code: '30980-7' }] }, value: '2027-05-20' }],
        supportingImmunization: [{ reference: 'Immunization/i1' }],
      },
      { vaccineCode: [{ text: 'MMR' }], dateCriterion: [{ code: { coding: [{ system: 'http://loinc.org', code: '30981-5' }] }, value: '2027-02-20' }] },
    ],
  };

  it('keeps the dose, its number and its next due date, and reports each thing it leaves out at its path', () => {
    const { value, warnings } = valueOf(fromFhir([...people, encounter, dose, notGiven, recommendation] as unknown as FhirResource[]));
    expect(value.immunizations).toEqual([{ vaccine: 'Hepatitis B vaccine', date: '2026-11-20', doseNumber: 2, nextDue: '2027-05-20' }]);
    expect(warned(warnings)).toEqual([
      ['/4/vaccineCode/coding/0', 'not-mapped'],
      ['/4/protocolApplied/0/series', 'not-mapped'],
      ['/4/manufacturer', 'not-mapped'],
      ['/4/expirationDate', 'not-mapped'],
      ['/5/status', 'not-mapped'],
      ['/6/recommendation/1', 'not-mapped'],
    ]);
    expect(JSON.stringify(warnings)).not.toContain('Hep B, adolescent');
  });
});
