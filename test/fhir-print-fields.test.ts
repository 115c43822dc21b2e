/**
 * The fields a clinical input gives for printed documents (clinic address,
 * doctor's qualification, council and specialty, a medicine's generic name,
 * strength, form and route, the patient's mobile, address, weight, height
 * and vitals) go into FHIR where the NRCeS record has a place, come back
 * through fromFhir, and are named in a `print-only-not-in-fhir` warning
 * where the record has none: never lost silently.
 */
import { describe, expect, it } from 'vitest';
import type { ClinicalInput } from '../src/index.js';
import {
  fromFhir,
  toFhirBundles,
  type Bundle,
  type Composition,
  type FhirResource,
  type MedicationRequest,
  type Observation,
  type Organization,
  type Patient,
  type Practitioner,
} from '../src/fhir/index.js';
import { ATTACHMENTS, bundlesOf, example, expectReferencesResolve } from './fhir-helpers.js';

const resources = (b: Bundle): FhirResource[] => (b.entry ?? []).map((e) => e.resource as FhirResource);
const ofType = <T extends FhirResource>(b: Bundle, type: T['resourceType']): T[] => resources(b).filter((r): r is T => r.resourceType === type);
const one = <T extends FhirResource>(b: Bundle, type: T['resourceType']): T => {
  const [r] = ofType<T>(b, type);
  if (r === undefined) throw new Error(`no ${type}`);
  return r;
};
const PRINT_ONLY = 'print-only-not-in-fhir';

/** The bundled prescription example: every printed field given. */
const prescription = (): ClinicalInput => example('opd-prescription', 'input');
const withHiType = (input: ClinicalInput, hiType: string): ClinicalInput => ({ ...input, hiType });
const single = (input: ClinicalInput): { bundle: Bundle; warnings: ReturnType<typeof warningsOf> } => {
  const r = toFhirBundles(input);
  const [d] = bundlesOf(r);
  if (d === undefined || !r.success) throw new Error('no bundle');
  expectReferencesResolve(d.bundle);
  return { bundle: d.bundle, warnings: warningsOf(r) };
};
const warningsOf = (r: ReturnType<typeof toFhirBundles>): Array<{ path: string; code: string; message: string }> =>
  (r.success ? r.warnings : r.issues).map((i) => ({ path: i.path, code: i.code, message: i.message }));
const printOnlyPaths = (w: ReadonlyArray<{ path: string; code: string }>): string[] => w.filter((i) => i.code === PRINT_ONLY).map((i) => i.path);

describe('printed-document fields in FHIR', () => {
  it('writes the clinic address as Organization.address text', () => {
    const { bundle } = single(prescription());
    expect(one<Organization>(bundle, 'Organization').address).toEqual([{ text: '14, 2nd Cross, Jayanagar 4th Block, Bengaluru 560011' }]);
  });

  it("writes the doctor's qualification as Practitioner.qualification text and the council as the assigner of the licence number", () => {
    const { bundle } = single(prescription());
    const p = one<Practitioner>(bundle, 'Practitioner');
    expect(p.qualification).toEqual([{ code: { text: 'MBBS, MD (General Medicine)' } }]);
    const licence = p.identifier?.find((i) => i.type?.coding?.[0]?.code === 'MD');
    expect(licence).toMatchObject({ value: 'KMC-45678', assigner: { display: 'Karnataka Medical Council' } });
  });

  it("writes the patient's mobile as a phone ContactPoint and the address as Patient.address text", () => {
    const { bundle } = single({ ...prescription(), patient: { ...prescription().patient, address: '22 Temple Street, Mysuru 570001' } });
    const p = one<Patient>(bundle, 'Patient');
    expect(p.telecom).toEqual([{ system: 'phone', value: '9876543210', use: 'mobile' }]);
    expect(p.address).toEqual([{ text: '22 Temple Street, Mysuru 570001' }]);
  });

  it("writes a medicine's generic name, strength and form as MedicationRequest notes and its route as the dosage's route", () => {
    const input = prescription();
    const meds = [{ drugName: 'Betadine 2% gargle', genericName: 'Povidone-iodine', strength: '2%', form: 'gargle', route: 'oral rinse', dosage: '10 ml', frequency: 'TDS' }];
    const { bundle } = single({ ...input, medications: meds });
    const mr = one<MedicationRequest>(bundle, 'MedicationRequest');
    expect(mr.medicationCodeableConcept).toEqual({ text: 'Betadine 2% gargle' });
    expect(mr.note).toEqual([{ text: 'Generic name: Povidone-iodine' }, { text: 'Strength: 2%' }, { text: 'Form: gargle' }]);
    expect(mr.dosageInstruction?.[0]?.route).toEqual({ text: 'oral rinse' });
  });

  it('writes nothing new where the fields are absent: no notes, route, addresses, telecom or qualification', () => {
    const input = prescription();
    const { bundle, warnings } = single({
      ...input,
      hospital: { name: input.hospital.name, id: input.hospital.id },
      doctor: { name: input.doctor.name, licNumber: 'KMC-45678' },
      patient: { abhaAddress: input.patient.abhaAddress, name: 'Asha Verma' },
      medications: [{ drugName: 'Metformin 500 mg tablet', dosage: '1 tablet', frequency: 'BD' }],
    });
    const mr = one<MedicationRequest>(bundle, 'MedicationRequest');
    expect(mr.note).toBeUndefined();
    expect(mr.dosageInstruction?.[0]?.route).toBeUndefined();
    expect(one<Organization>(bundle, 'Organization').address).toBeUndefined();
    expect(one<Patient>(bundle, 'Patient')).not.toHaveProperty('telecom');
    expect(one<Patient>(bundle, 'Patient')).not.toHaveProperty('address');
    expect(one<Practitioner>(bundle, 'Practitioner')).not.toHaveProperty('qualification');
    expect(one<Practitioner>(bundle, 'Practitioner').identifier?.[0]).not.toHaveProperty('assigner');
    expect(printOnlyPaths(warnings)).toEqual([]);
  });

  it("puts the patient's vitals, weight and height as Observations in an OPConsultRecord's physical examination section", () => {
    const { bundle, warnings } = single(withHiType(prescription(), 'OPConsultation'));
    const comp = one<Composition>(bundle, 'Composition');
    const exam = comp.section?.find((s) => s.code?.coding?.[0]?.code === '425044008');
    expect(exam?.title).toBe('Vital signs');
    const obs = ofType<Observation>(bundle, 'Observation');
    expect(exam?.entry?.map((e) => e.reference)).toEqual(obs.map((o) => `urn:uuid:${o.id ?? ''}`));
    const byCode = new Map(obs.map((o) => [o.code.coding?.[0]?.code, o]));
    expect(byCode.get('85354-9')?.component?.map((c) => c.valueQuantity?.value)).toEqual([138, 86]);
    expect(byCode.get('8867-4')?.valueQuantity).toMatchObject({ value: 78, code: '/min' });
    // 99.1 is above 50: degrees Fahrenheit, as the input schema says.
    expect(byCode.get('61008-9')?.valueQuantity).toMatchObject({ value: 99.1, code: '[degF]' });
    expect(byCode.get('2708-6')?.valueQuantity).toMatchObject({ value: 98, code: '%' });
    expect(byCode.get('29463-7')?.valueQuantity).toMatchObject({ value: 64, code: 'kg' });
    expect(byCode.get('8302-2')?.valueQuantity).toMatchObject({ value: 158, code: 'cm' });
    expect(obs.every((o) => o.effectiveDateTime === '2026-11-20T10:30:00+05:30')).toBe(true);
    expect(printOnlyPaths(warnings)).toEqual(['/doctor/specialty']);
    // In the profile's order: ChiefComplaints, PhysicalExamination, …, MedicalHistory.
    const codes = (r: ReturnType<typeof toFhirBundles>): Array<string | undefined> =>
      (one<Composition>(bundlesOf(r)[0]?.bundle as Bundle, 'Composition').section ?? []).map((x) => x.code?.coding?.[0]?.code);
    expect(codes(toFhirBundles(withHiType(prescription(), 'OPConsultation'))).slice(0, 3)).toEqual(['422843007', '425044008', '721912009']);
    const history = toFhirBundles(withHiType(prescription(), 'OPConsultation'), { opConsultDiagnosisSection: 'MedicalHistory' });
    expect(codes(history).slice(0, 3)).toEqual(['425044008', '371529009', '721912009']);
  });

  it("adds the patient's measures to a WellnessRecord where its observations have none, and warns when one differs", () => {
    const wellness = example('wellness', 'input');
    const input = { ...wellness, patient: { ...wellness.patient, weight: 70, vitals: { pulse: 78, bloodPressure: '120/80' } }, observations: { pulse: 78, height: 158 } };
    const { bundle, warnings } = single(input);
    const codes = ofType<Observation>(bundle, 'Observation').map((o) => o.code.coding?.[0]?.code);
    expect(codes.filter((c) => c === '8867-4')).toHaveLength(1);
    expect(codes).toEqual(expect.arrayContaining(['85354-9', '29463-7', '8302-2']));
    expect(printOnlyPaths(warnings)).toEqual([]);
    const differing = single({ ...input, observations: { weight: 64.5 } });
    expect(ofType<Observation>(differing.bundle, 'Observation').find((o) => o.code.coding?.[0]?.code === '29463-7')?.valueQuantity?.value).toBe(64.5);
    expect(printOnlyPaths(differing.warnings)).toEqual(['/patient/weight']);
  });

  it('warns, naming each field, for what the record has no place for: the specialty, and vitals in a Prescription', () => {
    const { warnings } = single(prescription());
    expect(printOnlyPaths(warnings)).toEqual(['/doctor/specialty', '/patient/vitals', '/patient/weight', '/patient/height']);
    const specialty = warnings.find((w) => w.path === '/doctor/specialty');
    expect(specialty?.message).toContain('PractitionerRole');
    expect(warnings.find((w) => w.path === '/patient/weight')?.message).toContain('OPConsultRecord');
  });

  it('warns about a council without a licence number, and a blood pressure that is not systolic/diastolic', () => {
    const input = withHiType(prescription(), 'OPConsultation');
    const { bundle, warnings } = single({
      ...input,
      doctor: { name: 'Dr. Meera Iyer', hpId: '71-2665-5777-2713', council: 'Karnataka Medical Council' },
      patient: { ...input.patient, vitals: { bloodPressure: 'high' } },
    });
    expect(printOnlyPaths(warnings)).toEqual(['/doctor/council', '/patient/vitals/bloodPressure']);
    expect(JSON.stringify(one<Practitioner>(bundle, 'Practitioner'))).not.toContain('Karnataka');
    expect(ofType<Observation>(bundle, 'Observation').map((o) => o.code.coding?.[0]?.code)).not.toContain('85354-9');
  });

  it('warns once per visit, not once per care context, and not at all when one care context of the visit holds the vitals', () => {
    const input = example('multi-care-context', 'input');
    const doctor = { ...input.doctor, specialty: 'Physician' };
    const patient = { ...input.patient, weight: 64 };
    const r = toFhirBundles({ ...input, doctor, patient }, { attachments: ATTACHMENTS });
    bundlesOf(r);
    expect(printOnlyPaths(warningsOf(r))).toEqual(['/doctor/specialty']);
    const noOp = { ...input, doctor, patient, careContexts: (input.careContexts ?? []).filter((c) => c.hiType !== 'OPConsultation') };
    const r2 = toFhirBundles(noOp, { attachments: ATTACHMENTS });
    expect(bundlesOf(r2).length).toBeGreaterThan(1);
    expect(printOnlyPaths(warningsOf(r2))).toEqual(['/doctor/specialty', '/patient/weight']);
  });

  it('never quotes the mobile, the address or the vitals in a warning', () => {
    const input = prescription();
    const r = toFhirBundles({ ...input, patient: { ...input.patient, mobile: '9123456780', address: 'SECRET-ADDR-7', vitals: { bloodPressure: 'SECRET-BP' } } });
    const text = JSON.stringify(warningsOf(r));
    expect(text).toContain(PRINT_ONLY);
    for (const planted of ['9123456780', 'SECRET-ADDR-7', 'SECRET-BP', '138/86']) expect(text).not.toContain(planted);
  });
});

describe('printed-document fields back from FHIR', () => {
  const back = (bundle: Bundle): ClinicalInput => {
    const r = fromFhir(bundle);
    if (!r.success) expect.fail(JSON.stringify(r.issues));
    return r.value;
  };

  it('reads every field of a Prescription back into the clinical input, and reports none of them as left out', () => {
    const input = prescription();
    const meds = [
      { drugName: 'Betadine 2% gargle', genericName: 'Povidone-iodine', strength: '2%', form: 'gargle', route: 'oral rinse', dosage: '10 ml', frequency: 'Three times a day (TDS)' },
      ...(input.medications ?? []).slice(0, 1),
    ];
    const { bundle } = single({ ...input, patient: { ...input.patient, address: '22 Temple Street, Mysuru 570001' }, medications: meds });
    const r = fromFhir(bundle);
    if (!r.success) expect.fail(JSON.stringify(r.issues));
    const v = r.value;
    expect(v.hospital.address).toBe('14, 2nd Cross, Jayanagar 4th Block, Bengaluru 560011');
    expect(v.doctor).toMatchObject({ qualification: 'MBBS, MD (General Medicine)', council: 'Karnataka Medical Council', licNumber: 'KMC-45678' });
    expect(v.patient).toMatchObject({ mobile: '9876543210', address: '22 Temple Street, Mysuru 570001' });
    expect(v.medications?.[0]).toMatchObject({ drugName: 'Betadine 2% gargle', genericName: 'Povidone-iodine', strength: '2%', form: 'gargle', route: 'oral rinse' });
    expect(v.medications?.[1]).toMatchObject({ drugName: 'Metformin 500 mg tablet', genericName: 'Metformin' });
    expect(v.medications?.[1]).not.toHaveProperty('route');
    expect(r.warnings.filter((w) => /telecom|address|qualification|note|route/.test(w.path))).toEqual([]);
  });

  it("reads an OPConsultRecord's vital signs back as the patient's vitals, weight and height", () => {
    const v = back(single(withHiType(prescription(), 'OPConsultation')).bundle);
    expect(v.patient).toMatchObject({ weight: 64, height: 158, vitals: { bloodPressure: '138/86', pulse: 78, temperature: 99.1, spo2: 98 } });
    expect(v).not.toHaveProperty('observations');
  });

  it('gives the same bundle again from what it read back (a round trip keeps every carried field)', () => {
    const original = single(withHiType(prescription(), 'OPConsultation')).bundle;
    expect(one<Organization>(original, 'Organization').address).toHaveLength(1);
    expect(ofType<Observation>(original, 'Observation')).toHaveLength(6);
    const again = single(back(original)).bundle;
    for (const type of ['Organization', 'Practitioner', 'Patient'] as const) expect(one(again, type)).toEqual(one(original, type));
    expect(ofType<MedicationRequest>(again, 'MedicationRequest').map((m) => m.note)).toEqual(ofType<MedicationRequest>(original, 'MedicationRequest').map((m) => m.note));
    const values = (b: Bundle): unknown[] => ofType<Observation>(b, 'Observation').map((o) => [o.code, o.valueQuantity, o.component]);
    expect(values(again)).toEqual(values(original));
  });

  it("keeps a WellnessRecord's observations as observations, the patient's measures among them", () => {
    const wellness = example('wellness', 'input');
    const observations = { ...wellness.observations };
    delete observations.weight;
    const v = back(single({ ...wellness, patient: { ...wellness.patient, weight: 70 }, observations }).bundle);
    expect(v.observations).toMatchObject({ pulse: 78, weight: 70 });
    expect(v.patient.vitals).toBeUndefined();
    expect(v.patient.weight).toBeUndefined();
  });

  it('reports a note it did not write and a phone that is not a 10-digit mobile, and reads an address from its parts', () => {
    const { bundle } = single(prescription());
    const b = structuredClone(bundle);
    const patient = one<Patient>(b, 'Patient');
    patient.telecom = [
      { system: 'phone', value: '080-4123' },
      { system: 'phone', value: '+91 98765 43210' },
    ];
    patient.address = [{ line: ['22 Temple Street'], city: 'Mysuru', postalCode: '570001' }];
    const mr = one<MedicationRequest>(b, 'MedicationRequest');
    mr.note = [{ text: 'Dispense in original pack' }];
    const r = fromFhir(b);
    if (!r.success) expect.fail(JSON.stringify(r.issues));
    expect(r.value.patient).toMatchObject({ mobile: '9876543210', address: '22 Temple Street, Mysuru, 570001' });
    const at = (suffix: string): string[] => r.warnings.filter((w) => w.path.endsWith(suffix)).map((w) => w.code);
    expect(at('/telecom/0')).toEqual(['not-mapped']);
    expect(at('/note/0')).toEqual(['not-mapped']);
    expect(JSON.stringify(r.warnings)).not.toContain('080-4123');
  });
});

describe('review fixes: reading printed-document fields back from FHIR', () => {
  const prescriptionBundle = (): Bundle => structuredClone(single(prescription()).bundle);
  const read = (b: Bundle): { value: ClinicalInput; warnings: Array<{ path: string; code: string; message: string }> } => {
    const r = fromFhir(b);
    if (!r.success) expect.fail(JSON.stringify(r.issues));
    return { value: r.value, warnings: r.warnings.map((w) => ({ path: w.path, code: w.code, message: w.message })) };
  };
  const patientPath = (b: Bundle): string => `/entry/${(b.entry ?? []).findIndex((e) => e.resource?.resourceType === 'Patient')}/resource`;

  it('never reads a landline, or a phone whose use is home, work, temp or old, as the mobile, and says why at each phone without quoting it', () => {
    const b = prescriptionBundle();
    one<Patient>(b, 'Patient').telecom = [
      { system: 'phone', use: 'home', value: '080-41234567' },
      { system: 'phone', use: 'work', value: '9876500001' },
      { system: 'phone', use: 'old', value: '9876500002' },
      { system: 'phone', use: 'temp', value: '9876500003' },
      { system: 'phone', value: '2241234567' },
      { system: 'phone', use: 'mobile', value: '0 12345 67890' },
    ];
    const { value, warnings } = read(b);
    expect(value.patient).not.toHaveProperty('mobile');
    const at = patientPath(b);
    expect(warnings.filter((w) => w.path.startsWith(`${at}/telecom`)).map((w) => [w.path, w.code])).toEqual([0, 1, 2, 3, 4, 5].map((i) => [`${at}/telecom/${i}`, 'not-mapped']));
    const text = JSON.stringify(warnings);
    for (const planted of ['41234567', '8041234567', '9876500001', '9876500002', '9876500003', '2241234567', '12345']) expect(text).not.toContain(planted);
    expect(warnings.find((w) => w.path === `${at}/telecom/0`)?.message).toContain('home');
    expect(warnings.find((w) => w.path === `${at}/telecom/4`)?.message).toContain('6 to 9');
  });

  it('reads as the mobile a phone of use mobile or of no use whose number is an Indian mobile, with +91, 91 or 0 before it', () => {
    for (const [use, written] of [
      ['mobile', '+91 98765 43210'],
      [undefined, '91-9876543210'],
      ['mobile', '09876543210'],
      [undefined, '(987) 654-3210'],
    ] as const) {
      const b = prescriptionBundle();
      one<Patient>(b, 'Patient').telecom = [{ system: 'phone', ...(use !== undefined ? { use } : {}), value: written }];
      expect(read(b).value.patient.mobile, written).toBe('9876543210');
    }
  });
});

describe('review fixes: vital signs read back from FHIR', () => {
  const opBundle = (): Bundle => structuredClone(single(withHiType(prescription(), 'OPConsultation')).bundle);
  const observationAt = (b: Bundle, loinc: string): { obs: Observation; path: string } => {
    const i = (b.entry ?? []).findIndex((e) => e.resource?.resourceType === 'Observation' && (e.resource as Observation).code.coding?.[0]?.code === loinc);
    return { obs: b.entry?.[i]?.resource as Observation, path: `/entry/${i}/resource` };
  };

  it('keeps a blood pressure the patient vitals cannot hold as "120/80" in observations, and fails on nothing', () => {
    const b = opBundle();
    const bp = observationAt(b, '85354-9').obs;
    const systolic = bp.component?.[0]?.valueQuantity;
    if (systolic === undefined) expect.fail('no systolic');
    systolic.value = 120.1234567891;
    const r = fromFhir(b);
    if (!r.success) expect.fail(JSON.stringify(r.issues));
    expect(r.value.patient.vitals).not.toHaveProperty('bloodPressure');
    expect(r.value.patient.vitals).toMatchObject({ pulse: 78 });
    expect(r.value.observations?.bloodPressure).toEqual({ systolic: 120.1234567891, diastolic: 86 });
  });

  it('names the FHIR element, never the empty path, when a measure read back is out of range', () => {
    const b = opBundle();
    const pulse = observationAt(b, '8867-4');
    if (pulse.obs.valueQuantity === undefined) expect.fail('no pulse value');
    pulse.obs.valueQuantity.value = 1e308;
    const bp = observationAt(b, '85354-9');
    const diastolic = bp.obs.component?.[1]?.valueQuantity;
    if (diastolic === undefined) expect.fail('no diastolic');
    diastolic.value = 1e308;
    const r = fromFhir(b);
    expect(r.success).toBe(false);
    const errors = (r.success ? [] : r.issues).filter((i) => i.severity === 'error').map((i) => [i.path, i.code]);
    expect(errors).toEqual(
      expect.arrayContaining([
        [`${pulse.path}/valueQuantity/value`, 'out-of-range'],
        [`${bp.path}/component/1/valueQuantity/value`, 'out-of-range'],
      ]),
    );
    expect(errors.map(([path]) => path)).not.toContain('');
  });

  it('names the FHIR element of a WellnessRecord observation that is out of range', () => {
    const { bundle } = single(example('wellness', 'input'));
    const b = structuredClone(bundle);
    const height = observationAt(b, '8302-2');
    if (height.obs.valueQuantity === undefined) expect.fail('no height value');
    height.obs.valueQuantity.value = 9999;
    const r = fromFhir(b);
    expect(r.success ? [] : r.issues.filter((i) => i.severity === 'error').map((i) => [i.path, i.code])).toEqual([[`${height.path}/valueQuantity/value`, 'out-of-range']]);
  });
});

describe("review fixes: the patient's vitals in a DischargeSummaryRecord", () => {
  const discharge = (): ClinicalInput => {
    const input = example('discharge-summary', 'input');
    return { ...input, patient: { ...input.patient, weight: 71, height: 172, vitals: { bloodPressure: '118/76', pulse: 88, temperature: 37.1, spo2: 97, respiratoryRate: 18 } } };
  };
  const examSection = (b: Bundle): NonNullable<Composition['section']>[number] | undefined => one<Composition>(b, 'Composition').section?.find((s) => s.code?.coding?.[0]?.code === '425044008');

  it("puts the patient's vitals, weight and height as Observations in the PhysicalExamination section, beside the stay's findings, with the OPConsultRecord's codes and units", () => {
    const { bundle, warnings } = single(discharge());
    const exam = examSection(bundle);
    const byUrl = new Map((bundle.entry ?? []).map((e) => [e.fullUrl, e.resource as Observation]));
    const inExam = (exam?.entry ?? []).map((e) => byUrl.get(e.reference));
    const coded = inExam.filter((o) => o?.code.coding !== undefined);
    expect(coded.map((o) => [o?.code.coding?.[0]?.code, o?.valueQuantity?.code ?? o?.component?.map((c) => c.valueQuantity?.code).join()])).toEqual([
      ['85354-9', 'mm[Hg],mm[Hg]'],
      ['61008-9', 'Cel'],
      ['8867-4', '/min'],
      ['2708-6', '%'],
      ['9279-1', '/min'],
      ['8302-2', 'cm'],
      ['29463-7', 'kg'],
    ]);
    // The stay's findings (Temperature, Pulse, Abdomen) stay in the same slice, in words.
    expect(inExam.filter((o) => o?.code.coding === undefined).map((o) => o?.code.text)).toEqual(['Temperature', 'Pulse', 'Abdomen']);
    const op = single(withHiType(prescription(), 'OPConsultation')).bundle;
    const opCodes = new Map(ofType<Observation>(op, 'Observation').map((o) => [o.code.coding?.[0]?.code, o.meta?.profile]));
    for (const o of coded) expect(o?.meta?.profile).toEqual(opCodes.get('8867-4'));
    expect(printOnlyPaths(warnings)).toEqual([]);
  });

  it("reads a DischargeSummaryRecord's vitals back as the patient's and its findings as findings, with or without an inpatient stay", () => {
    const r = fromFhir(single(discharge()).bundle);
    if (!r.success) expect.fail(JSON.stringify(r.issues));
    expect(r.value.patient).toMatchObject({ weight: 71, height: 172, vitals: { bloodPressure: '118/76', pulse: 88, temperature: 37.1, spo2: 97, respiratoryRate: 18 } });
    expect(r.value.inpatientStay?.examinationFindings?.map((f) => f.name)).toEqual(['Temperature', 'Pulse', 'Abdomen']);
    expect(r.value).not.toHaveProperty('observations');
    const { inpatientStay, ...noStay } = discharge();
    expect(inpatientStay).toBeDefined();
    const { bundle } = single(noStay);
    expect(examSection(bundle)?.entry).toHaveLength(7);
    const back = fromFhir(bundle);
    if (!back.success) expect.fail(JSON.stringify(back.issues));
    expect(back.value.patient.vitals).toEqual({ bloodPressure: '118/76', pulse: 88, temperature: 37.1, spo2: 97, respiratoryRate: 18 });
  });

  it('says which records hold the vitals when no care context of the visit has a place for them', () => {
    const { warnings } = single(prescription());
    const message = warnings.find((w) => w.path === '/patient/vitals')?.message ?? '';
    for (const record of ['OPConsultRecord', 'DischargeSummaryRecord', 'WellnessRecord']) expect(message).toContain(record);
  });
});

describe('review fixes: what fromFhir leaves out is reported', () => {
  const prescriptionBundle = (): Bundle => structuredClone(single(prescription()).bundle);
  const pathOf = (b: Bundle, type: string): string => `/entry/${(b.entry ?? []).findIndex((e) => e.resource?.resourceType === type)}/resource`;
  const warned = (b: Bundle): Array<[string, string]> => {
    const r = fromFhir(b);
    if (!r.success) expect.fail(JSON.stringify(r.issues));
    return r.warnings.map((w) => [w.path, w.code]);
  };

  it("warns about each coding of a route it keeps in words, as it does for a qualification's codings", () => {
    const b = prescriptionBundle();
    const mr = one<MedicationRequest>(b, 'MedicationRequest');
    const dosage = mr.dosageInstruction?.[0];
    if (dosage === undefined) expect.fail('no dosage');
    dosage.route = { text: 'Oral', coding: [{ system: 'http://snomed.info/sct', code: '26643006', display: 'Oral route' }] };
    const r = fromFhir(b);
    if (!r.success) expect.fail(JSON.stringify(r.issues));
    expect(r.value.medications?.[0]?.route).toBe('Oral');
    const at = `${pathOf(b, 'MedicationRequest')}/dosageInstruction/0/route/coding/0`;
    expect(r.warnings.filter((w) => w.path === at).map((w) => w.code)).toEqual(['not-mapped']);
  });

  it('warns at the assigner of the licence when the council is not given as its display', () => {
    for (const assigner of ['Karnataka Medical Council', { reference: 'Organization/kmc' }, { identifier: { value: 'KMC' } }]) {
      const b = prescriptionBundle();
      const licence = one<Practitioner>(b, 'Practitioner').identifier?.find((i) => i.type?.coding?.[0]?.code === 'MD') as Record<string, unknown> | undefined;
      if (licence === undefined) expect.fail('no licence');
      licence.assigner = assigner;
      const i = one<Practitioner>(b, 'Practitioner').identifier?.indexOf(licence as never) ?? -1;
      const r = fromFhir(b);
      if (!r.success) expect.fail(JSON.stringify(r.issues));
      expect(r.value.doctor).not.toHaveProperty('council');
      expect(warned(b)).toContainEqual([`${pathOf(b, 'Practitioner')}/identifier/${i}/assigner`, 'not-mapped']);
    }
    expect(warned(prescriptionBundle()).filter(([p]) => p.endsWith('/assigner'))).toEqual([]);
  });

  it('says abha-link does not read extensions when a qualification has one, and never that FHIR R4 does not define them', () => {
    const b = prescriptionBundle();
    const q = one<Practitioner>(b, 'Practitioner').qualification?.[0] as Record<string, unknown> | undefined;
    if (q === undefined) expect.fail('no qualification');
    q.extension = [{ url: 'https://example.org/x', valueString: 'x' }];
    q.modifierExtension = [{ url: 'https://example.org/y', valueString: 'y' }];
    const r = fromFhir(b);
    if (!r.success) expect.fail(JSON.stringify(r.issues));
    const messages = r.warnings.filter((w) => /qualification\/0\/(extension|modifierExtension)$/.test(w.path)).map((w) => w.message);
    expect(messages).toHaveLength(2);
    for (const m of messages) {
      expect(m).toContain('abha-link does not read extensions');
      expect(m).not.toContain('does not define');
    }
  });
});

describe("review fixes: the patient's vitals are not a care context's own content", () => {
  const errorsOf = (r: ReturnType<typeof toFhirBundles>): Array<[string, string]> => (r.success ? [] : r.issues.filter((i) => i.severity === 'error').map((i) => [i.path, i.code]));
  /** The prescription example with the visit vitals, weight and height and nothing of the care context's own (no follow-up either). */
  const vitalsOnly = (hiType: string): ClinicalInput => {
    const input = structuredClone(prescription()) as ClinicalInput & Record<string, unknown>;
    for (const k of ['diagnosis', 'medications', 'labInvestigations', 'advice', 'documentUrl']) delete input[k];
    delete (input.visit as { followUp?: string }).followUp;
    expect(input.patient.vitals).toBeDefined();
    return { ...input, hiType };
  };

  it('refuses an OPConsultation care context whose only content is the visit vitals (empty-document), with a message that says so', () => {
    const r = toFhirBundles(vitalsOnly('OPConsultation'));
    expect(errorsOf(r)).toEqual([['', 'empty-document']]);
    const message = r.success ? '' : (r.issues.find((i) => i.code === 'empty-document')?.message ?? '');
    expect(message).toContain('follow-up');
    expect(message).toContain('vitals');
  });

  it('refuses a DischargeSummary care context whose only content is the visit vitals (empty-document)', () => {
    const r = toFhirBundles(vitalsOnly('DischargeSummary'), { lint: false });
    expect(errorsOf(r)).toEqual([['', 'empty-document']]);
  });

  it('still carries the vitals in an OPConsultRecord that has content of its own', () => {
    const input = vitalsOnly('OPConsultation');
    const { bundle } = single({ ...input, advice: 'Drink plenty of water' });
    expect(ofType<Observation>(bundle, 'Observation')).toHaveLength(6);
  });
});
