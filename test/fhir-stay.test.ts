/**
 * FHIR out for the discharge summary (DischargeSummaryRecord) and the
 * immunisation record (ImmunizationRecord): fixed codes and slices as the
 * NRCeS IG 6.5.0 StructureDefinitions give them, the bundled examples and
 * their committed request and bundle, determinism, narratives, warnings
 * instead of silent loss, and the validator's rules for both profiles.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DISCHARGE_SUMMARY_SECTIONS, RECORD_PROFILES } from '../src/fhir/constants.js';
import { PROFILES, toFhirBundles, validateFhirBundle, type Bundle, type Composition, type Encounter } from '../src/fhir/index.js';
import { buildLinkRequest, type ClinicalInput } from '../src/index.js';
import { bundlesOf, deepFreeze, example, expectReferencesResolve, expectValid, resources } from './fhir-helpers.js';

const committed = (file: string): unknown => JSON.parse(readFileSync(new URL(`../examples/${file}`, import.meta.url), 'utf8')) as unknown;
const composition = (b: Bundle): Composition => b.entry?.[0]?.resource as Composition;
const one = (input: ClinicalInput, options = {}): Bundle => {
  const [d] = bundlesOf(toFhirBundles(input, options));
  return d?.bundle as Bundle;
};
const codes = (r: ReturnType<typeof toFhirBundles>): Array<[string, string, string]> => (r.success ? r.warnings : r.issues).map((i) => [i.path, i.code, i.severity]);

const base: ClinicalInput = {
  hospital: { name: 'Green Valley Hospital', id: 'IN0710000789' },
  doctor: { name: 'Dr. Arjun Mehta', licNumber: 'DMC-80412' },
  patient: { abhaAddress: 'rahul.sharma@sbx' },
  visit: { id: 'IPD-2026-3107', at: '2026-11-18T11:00:00+05:30' },
};
const stay = { admittedAt: '2026-11-15T21:40:00+05:30', dischargedAt: '2026-11-18T11:00:00+05:30' };

describe('the two record profiles, as the NRCeS StructureDefinitions fix them', () => {
  it.each([
    ['DischargeSummary', 'DischargeSummaryRecord', '373942005', 'Discharge summary', true],
    ['ImmunizationRecord', 'ImmunizationRecord', '41000179103', 'Immunization record', false],
  ] as const)('%s is written as %s with SNOMED %s "%s"', (hiType, id, code, display, encounterRequired) => {
    const p = RECORD_PROFILES[hiType];
    expect([p.id, p.url, p.type, p.encounterRequired]).toEqual([id, `https://nrces.in/ndhm/fhir/r4/StructureDefinition/${id}`, { system: 'http://snomed.info/sct', code, display }, encounterRequired]);
  });

  it('knows the DischargeSummaryRecord slices with their own codes, and the ImmunizationRecord entry slices', () => {
    expect(Object.fromEntries(Object.entries(DISCHARGE_SUMMARY_SECTIONS).map(([k, v]) => [k, `${v.coding.code} ${v.coding.display}`]))).toEqual({
      ChiefComplaints: '422843007 Chief complaint section',
      PhysicalExamination: '425044008 Physical exam section',
      Allergies: '722446000 Allergy record',
      MedicalHistory: '1003642006 Past medical history section',
      FamilyHistory: '422432008 Family history section',
      Investigations: '721981007 Diagnostic studies report',
      Medications: '1003606003 Medication history section',
      Procedures: '1003640003 History of past procedure section',
      CarePlan: '734163000 Care plan',
      DocumentReference: '373942005 Discharge summary',
    });
    const s = RECORD_PROFILES.ImmunizationRecord.section;
    expect([s.coding.code, s.slices, s.minEntries, s.typeRequired]).toEqual([
      '41000179103',
      { Immunization: Number.POSITIVE_INFINITY, ImmunizationRecommendation: 1, DocumentReference: Number.POSITIVE_INFINITY },
      1,
      true,
    ]);
  });
});

describe('the bundled examples', () => {
  it.each([
    // The diagnosis's ICD-10 title is not known (no icd10Titles), so its code stays in the text, with a warning (issue 12 item 4).
    ['discharge-summary', '2026-11-18T11:00:00+05:30', [['/diagnosis/0/icdCode', 'icd10-title-unknown', 'warning']]],
    ['immunization', '2026-11-20T11:15:00+05:30', []],
  ])('%s: the committed request and bundle are what build and fhir make of the input, and the bundle passes the validator', (name, timestamp, warnings) => {
    const input = example(name, 'input');
    expect(buildLinkRequest(input)).toEqual(committed(`${name}.request.json`));
    const r = toFhirBundles(input, { timestamp });
    expect(codes(r)).toEqual(warnings);
    const b = one(input, { timestamp });
    expect(b).toEqual(committed(`${name}.bundle.json`));
    expectValid(b);
    expectReferencesResolve(b);
    for (const e of b.entry ?? []) expect(e.resource?.meta?.profile?.length, e.resource?.resourceType).toBe(1);
  });

  it('makes the same bundle twice, with ids that do not depend on the clock or the patient', () => {
    const input = deepFreeze(example('discharge-summary', 'input'));
    const a = one(input);
    expect(one(input)).toEqual(a);
    const renamed = one({ ...input, patient: { ...input.patient, name: 'Someone Else', abhaAddress: 'someone.else@sbx' } });
    expect(renamed.entry?.map((e) => e.fullUrl)).toEqual(a.entry?.map((e) => e.fullUrl));
  });
});

describe('DischargeSummaryRecord', () => {
  const b = one(example('discharge-summary', 'input'));
  const sections = composition(b).section ?? [];

  it('has the fixed type, the stay as its Encounter and the slices in the order of the profile, then the sections without a code', () => {
    expect(composition(b).type.coding).toEqual([{ system: 'http://snomed.info/sct', code: '373942005', display: 'Discharge summary' }]);
    expect(composition(b).meta?.profile).toEqual([PROFILES.DischargeSummaryRecord]);
    expect(sections.map((s) => [s.title, s.code?.coding?.[0]?.code])).toEqual([
      ['Chief complaints', '422843007'],
      ['Examination findings', '425044008'],
      ['Allergies', '722446000'],
      ['Past medical history', '1003642006'],
      ['Investigations', '721981007'],
      ['Procedures', '1003640003'],
      ['Discharge medications', '1003606003'],
      ['Follow-up', '734163000'],
      ['Admission', undefined],
      ['Discharge diagnosis', undefined],
      ['History of present illness', undefined],
      ['Course in hospital', undefined],
      ['Condition at discharge', undefined],
      ['Advice', undefined],
    ]);
    const [enc] = resources<Encounter>(b, 'Encounter');
    expect(composition(b).encounter?.reference).toBe(b.entry?.find((e) => e.resource?.resourceType === 'Encounter')?.fullUrl);
    expect([enc?.class, enc?.status, enc?.period, enc?.reasonCode]).toEqual([
      { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'IMP', display: 'inpatient encounter' },
      'finished',
      { start: '2026-11-15T21:40:00+05:30', end: '2026-11-18T11:00:00+05:30' },
      [{ text: 'Acute appendicitis' }],
    ]);
  });

  it('codes a procedure or a test only with the code the input gives, with its display; otherwise words alone', () => {
    const procedures = resources<{ code: unknown; performedDateTime: string }>(b, 'Procedure');
    expect(procedures.map((p) => [p.code, p.performedDateTime])).toEqual([
      [{ coding: [{ system: 'http://snomed.info/sct', code: '6025007', display: 'Laparoscopic appendectomy' }], text: 'Laparoscopic appendicectomy' }, '2026-11-16T09:30:00+05:30'],
    ]);
    const reports = resources<{ code: unknown; conclusion: string; resultsInterpreter: unknown[]; result: unknown[] }>(b, 'DiagnosticReport');
    expect(reports.map((r) => [r.code, r.conclusion, r.resultsInterpreter.length, r.result.length])).toEqual([
      [{ text: 'Total leucocyte count' }, 'High', 1, 1],
      [{ coding: [{ system: 'http://loinc.org', code: '718-7', display: 'Hemoglobin [Mass/volume] in Blood' }], text: 'Haemoglobin' }, 'Haemoglobin: 13.4 g/dL', 1, 1],
      [{ text: 'Ultrasound abdomen' }, 'Ultrasound abdomen: Non-compressible tubular structure in the right iliac fossa, 9 mm', 1, 1],
    ]);
    const observations = resources<{ code: { text: string }; valueQuantity?: unknown; valueString?: string }>(b, 'Observation');
    expect(observations.find((o) => o.code.text === 'Pulse')?.valueQuantity).toEqual({ value: 104, unit: '/min' });
    expect(observations.find((o) => o.code.text === 'Abdomen')?.valueString).toBe('Tenderness and guarding in the right iliac fossa');
    expect(observations.every((o) => (o.valueQuantity as { system?: string } | undefined)?.system === undefined)).toBe(true);
    const conditions = resources<{ code: unknown }>(b, 'Condition').map((c) => c.code);
    expect(conditions).toContainEqual({ text: 'Pain in the right lower abdomen for 1 day' });
    // The ICD-10 title of K35.8 is not known here (no icd10Titles): the code stays in the text (issue 12 item 4).
    expect(conditions).toContainEqual({ text: 'Acute appendicitis (ICD-10 K35.8)' });
  });

  it('carries the follow-up as a CarePlan and the known allergy as an active AllergyIntolerance', () => {
    expect(resources<{ description: string; status: string; intent: string }>(b, 'CarePlan').map((p) => [p.description, p.status, p.intent])).toEqual([
      ['Review in the surgery OPD after 7 days for wound check and suture removal', 'active', 'plan'],
    ]);
    const [allergy] = resources<{ clinicalStatus: unknown; code: unknown }>(b, 'AllergyIntolerance');
    expect(allergy).toMatchObject({ clinicalStatus: { coding: [{ code: 'active' }] }, code: { text: 'Sulfonamide antibiotics (rash)' } });
  });

  it('escapes what the doctor wrote in every narrative', () => {
    const planted = one({ ...base, hiType: 'DischargeSummary', inpatientStay: { ...stay, courseInHospital: '<script>alert(1)</script> & <b>x</b>', chiefComplaints: ['<img src=x>'] } });
    const text = JSON.stringify([...(planted.entry ?? []).map((e) => (e.resource as { text?: unknown }).text), ...(composition(planted).section ?? []).map((s) => s.text)]);
    expect(text).not.toContain('<script>');
    expect(text).not.toContain('<img');
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;x&lt;/b&gt;');
  });

  it('is an outpatient-free stay even without the inpatientStay: a scanned summary alone has an inpatient Encounter', () => {
    const r = toFhirBundles(
      { ...base, hiType: 'DischargeSummary', documentUrl: 'https://emr.example/ds.pdf' },
      { attachments: { 'https://emr.example/ds.pdf': { contentType: 'application/pdf', data: 'JVBERi0xLjQK' } } },
    );
    const [d] = bundlesOf(r);
    expect(resources<Encounter>(d?.bundle as Bundle, 'Encounter')[0]?.class.code).toBe('IMP');
    expect(composition(d?.bundle as Bundle).section?.map((s) => s.code?.coding?.[0]?.code)).toEqual(['373942005']);
  });

  it('says what it cannot carry: a document without its bytes, immunisations, and nothing at all', () => {
    expect(
      codes(toFhirBundles({ ...base, hiType: 'DischargeSummary', inpatientStay: stay, documentUrl: 'https://emr.example/ds.pdf', immunizations: [{ vaccine: 'Tdap', date: '2026-11-18' }] })),
    ).toEqual([
      ['/immunizations', 'clinical-content-outside-hi-type', 'warning'],
      ['/documentUrl', 'document-not-embedded', 'warning'],
      ['/immunizations', 'content-not-in-profile', 'warning'],
    ]);
    expect(codes(toFhirBundles({ ...base, hiType: 'DischargeSummary', documentUrl: 'https://emr.example/ds.pdf' }))).toEqual([['/documentUrl', 'document-data-required', 'error']]);
    expect(codes(toFhirBundles({ ...base, hiType: 'DischargeSummary' }, { lint: false }))).toEqual([['', 'empty-document', 'error']]);
  });

  it('leaves an inpatient stay out of another record with a warning at its path', () => {
    const r = toFhirBundles({
      ...base,
      careContexts: [{ hiType: 'Prescription', medications: [{ drugName: 'Paracetamol 650 mg', genericName: 'Paracetamol', dosage: '1 tablet', frequency: 'SOS' }], inpatientStay: stay }],
    });
    // Lint says it when the input is built; the FHIR layer says it again for the document it leaves it out of.
    expect(codes(r)).toEqual([
      ['/careContexts/0/inpatientStay', 'clinical-content-outside-hi-type', 'warning'],
      ['/careContexts/0/inpatientStay', 'content-not-in-profile', 'warning'],
    ]);
    expect(
      codes(
        toFhirBundles(
          {
            ...base,
            careContexts: [{ hiType: 'Prescription', medications: [{ drugName: 'Paracetamol 650 mg', genericName: 'Paracetamol', dosage: '1 tablet', frequency: 'SOS' }], inpatientStay: stay }],
          },
          { lint: false },
        ),
      ),
    ).toEqual([['/careContexts/0/inpatientStay', 'content-not-in-profile', 'warning']]);
  });
});

describe('ImmunizationRecord', () => {
  const b = one(example('immunization', 'input'));

  it('has one section with the fixed code, each entry typed: the doses, then one recommendation', () => {
    const [section, ...more] = composition(b).section ?? [];
    expect(more).toEqual([]);
    expect(section?.code?.coding).toEqual([{ system: 'http://snomed.info/sct', code: '41000179103', display: 'Immunization record' }]);
    expect(section?.entry?.map((e) => e.type)).toEqual(['Immunization', 'Immunization', 'Immunization', 'ImmunizationRecommendation']);
  });

  it('writes each dose with its lot, site, route and dose number, the vaccine in words and the manufacturer by name', () => {
    const [first] = resources<Record<string, unknown>>(b, 'Immunization');
    expect(first).toMatchObject({
      status: 'completed',
      vaccineCode: { text: 'DTwP-HepB-Hib (Pentavalent)' },
      occurrenceDateTime: '2026-11-20T11:20:00+05:30',
      lotNumber: 'PNT2611A',
      manufacturer: { display: 'Serum Institute of India' },
      site: { text: 'Left anterolateral thigh' },
      route: { text: 'Intramuscular' },
      protocolApplied: [{ doseNumberPositiveInt: 1 }],
    });
    expect((first?.vaccineCode as { coding?: unknown }).coding).toBeUndefined();
  });

  it('recommends the next dose only for the doses that have one, citing them, and codes a vaccine only when given', () => {
    const input: ClinicalInput = {
      ...base,
      immunizations: [
        { vaccine: 'Tdap', vaccineCode: { code: '871878002', display: 'Tdap vaccine product' }, date: '2026-11-18', doseNumber: 'Booster', nextDue: '2036-11-18' },
        { vaccine: 'Influenza vaccine', date: '2026-11-18' },
      ],
    };
    const d = one(input);
    const imms = resources<{ vaccineCode: unknown; protocolApplied?: unknown }>(d, 'Immunization');
    expect(imms.map((i) => [i.vaccineCode, i.protocolApplied])).toEqual([
      [{ coding: [{ system: 'http://snomed.info/sct', code: '871878002', display: 'Tdap vaccine product' }], text: 'Tdap' }, [{ doseNumberString: 'Booster' }]],
      [{ text: 'Influenza vaccine' }, undefined],
    ]);
    const [rec] = resources<{ recommendation: Array<{ dateCriterion: unknown; forecastStatus: unknown; supportingImmunization: Array<{ reference: string }> }> }>(d, 'ImmunizationRecommendation');
    expect(rec?.recommendation).toHaveLength(1);
    expect(rec?.recommendation[0]?.dateCriterion).toEqual([{ code: { coding: [{ system: 'http://loinc.org', code: '30980-7', display: 'Date vaccine due' }] }, value: '2036-11-18' }]);
    expect(rec?.recommendation[0]?.supportingImmunization[0]?.reference).toBe(d.entry?.find((e) => e.resource?.resourceType === 'Immunization')?.fullUrl);
  });

  it('leaves diagnoses, medications and advice out with a warning each, and refuses a record with nothing in it', () => {
    const r = toFhirBundles({
      ...base,
      hiType: 'ImmunizationRecord',
      immunizations: [{ vaccine: 'BCG', date: '2026-11-18' }],
      diagnosis: [{ diagnosisName: 'Fever' }],
      medications: [{ drugName: 'Paracetamol', genericName: 'Paracetamol', dosage: '2.5 ml', frequency: 'SOS' }],
      advice: 'Cold compress',
    });
    expect(codes(r)).toEqual([
      ['/diagnosis', 'content-not-in-profile', 'warning'],
      ['/medications', 'content-not-in-profile', 'warning'],
      ['/advice', 'content-not-in-profile', 'warning'],
    ]);
    expect(codes(toFhirBundles({ ...base, hiType: 'ImmunizationRecord' }, { lint: false }))).toEqual([['', 'empty-document', 'error']]);
  });
});

describe('the validator on the two profiles', () => {
  const ds = (): Bundle => structuredClone(one(example('discharge-summary', 'input')));
  const ir = (): Bundle => structuredClone(one(example('immunization', 'input')));
  const errors = (b: Bundle): Array<[string, string]> =>
    validateFhirBundle(b)
      .issues.filter((i) => i.severity === 'error')
      .map((i) => [i.path, i.code]);

  it('catches a DischargeSummaryRecord slice with the OPConsultRecord display of its name, and notes (information) a slice after the uncoded sections', () => {
    const b = ds();
    const meds = composition(b).section?.find((s) => s.title === 'Discharge medications');
    if (meds?.code?.coding?.[0] === undefined) throw new Error('example changed');
    meds.code.coding[0].display = 'Medication summary document';
    expect(errors(b)).toEqual([['Bundle.entry[0].resource.section[6].code.coding[0].display', 'fixed-value']]);
    const moved = ds();
    const sections = composition(moved).section ?? [];
    sections.push(sections.splice(0, 1)[0] as (typeof sections)[number]);
    expect(errors(moved)).toEqual([]);
    expect(validateFhirBundle(moved).issues.map((i) => [i.path, i.code, i.severity])).toEqual([[`Bundle.entry[0].resource.section[${sections.length - 1}]`, 'slice-order', 'information']]);
  });

  it('catches a DischargeSummaryRecord without its encounter, and an ImmunizationRecord entry without its type', () => {
    const b = ds();
    delete composition(b).encounter;
    expect(errors(b)).toEqual([['Bundle.entry[0].resource.encounter', 'required']]);
    const i = ir();
    delete composition(i).section?.[0]?.entry?.[0]?.type;
    expect(errors(i)).toEqual([['Bundle.entry[0].resource.section[0].entry[0].type', 'closed-slice']]);
  });
});
