/**
 * FHIR out: NRCeS document bundles per care context (toFhirBundles), the
 * constants per hiType, determinism, profile fit, narratives, and the IG's
 * Prescription example-06 reproduced from an equivalent input.
 */
import { dosageOf, frequencyFromRepeat, timingOf } from '../src/fhir/dosage.js';
import type { TimingRepeat } from '../src/fhir/r4.js';
import { describe, expect, it } from 'vitest';
import type { ClinicalInput } from '../src/index.js';
import { FHIR_HI_TYPES, FHIR_ID_NAMESPACE, OP_CONSULT_SECTIONS, RECORD_PROFILES, profileUrl } from '../src/fhir/constants.js';
import { v5 as uuidv5 } from 'uuid';
import { documentUuid, resourceUuid } from '../src/fhir/ids.js';
import { escapeXhtml, isolatedXhtml, xhtmlProblem } from '../src/fhir/xhtml.js';
import { visitDateTime } from '../src/fhir/time.js';
import { isValid } from 'date-fns/isValid';
import { parseISO } from 'date-fns/parseISO';
import {
  PROFILES,
  SYSTEMS,
  fromFhir,
  toFhirBundles,
  validateFhirBundle,
  type Bundle,
  type Composition,
  type Condition,
  type MedicationRequest,
  type Patient,
  type Practitioner,
} from '../src/fhir/index.js';
import { ATTACHMENTS, DR_URL, EXAMPLES, PDF_BYTES, bundlesOf, deepFreeze, example, expectReferencesResolve, expectValid, resources } from './fhir-helpers.js';

const base: ClinicalInput = {
  hospital: { name: 'Sanjeevani Family Clinic', id: 'IN2910000123', phone: '080-41234567' },
  doctor: { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678', hpId: '71-2665-5777-2713' },
  patient: { abhaAddress: 'asha.verma@sbx', name: 'Asha Verma', gender: 'F', birthDate: '1978-03-14', ABHANumber: '91-4455-6677-8899' },
  visit: { id: 'OPD-2026-0042', at: '2026-11-20T10:30:00+05:30' },
};
const composition = (b: Bundle): Composition => b.entry?.[0]?.resource as Composition;

describe('constants, one test per hiType', () => {
  it.each([
    ['Prescription', 'PrescriptionRecord', '440545006', 'Prescription record'],
    ['OPConsultation', 'OPConsultRecord', '371530004', 'Clinical consultation report'],
    ['DiagnosticReport', 'DiagnosticReportRecord', '721981007', 'Diagnostic studies report'],
    ['HealthDocumentRecord', 'HealthDocumentRecord', '419891008', 'Record artifact'],
  ] as const)('%s is written as the NRCeS %s with SNOMED %s "%s"', (hiType, id, code, display) => {
    const p = RECORD_PROFILES[hiType];
    expect(p.id).toBe(id);
    expect(p.url).toBe(`https://nrces.in/ndhm/fhir/r4/StructureDefinition/${id}`);
    expect(p.type).toEqual({ system: 'http://snomed.info/sct', code, display });
    expect(FHIR_HI_TYPES).toContain(hiType);
  });

  it('fixes the section codes of the single-section profiles and the OPConsult slices (reference §4)', () => {
    expect(RECORD_PROFILES.Prescription.section.coding.code).toBe('440545006');
    expect(RECORD_PROFILES.Prescription.section.slices).toEqual({ MedicationRequest: Number.POSITIVE_INFINITY, Binary: 1 });
    expect(RECORD_PROFILES.HealthDocumentRecord.section.coding.code).toBe('419891008');
    expect(RECORD_PROFILES.DiagnosticReport.section.maxEntries).toBe(2);
    expect(RECORD_PROFILES.OPConsultation.encounterRequired).toBe(true);
    expect(Object.fromEntries(Object.entries(OP_CONSULT_SECTIONS).map(([k, v]) => [k, v.coding.code]))).toEqual({
      ChiefComplaints: '422843007',
      PhysicalExamination: '425044008',
      Allergies: '722446000',
      MedicalHistory: '371529009',
      FamilyHistory: '422432008',
      InvestigationAdvice: '721963009',
      Medications: '721912009',
      FollowUp: '390906007',
      Procedure: '371525003',
      Referral: '306206005',
      OtherObservations: '404684003',
      DocumentReference: '371530004',
    });
    expect(profileUrl('Patient')).toBe(PROFILES.Patient);
    expect(SYSTEMS.icd10).toBe('http://hl7.org/fhir/sid/icd-10');
  });
});

describe('toFhirBundles on the bundled examples', () => {
  for (const name of EXAMPLES)
    for (const kind of ['input', 'request'] as const)
      it(`${name}.${kind}.json: every bundle passes the validator and every reference resolves`, () => {
        const docs = bundlesOf(toFhirBundles(example(name, kind), { attachments: ATTACHMENTS }));
        expect(docs.length).toBe(name === 'multi-care-context' ? 3 : 1);
        for (const d of docs) {
          expectValid(d.bundle);
          expectReferencesResolve(d.bundle);
          expect(composition(d.bundle).meta?.profile).toEqual([d.profile]);
          for (const e of d.bundle.entry ?? []) expect(e.resource?.meta?.profile?.length, e.resource?.resourceType).toBe(1);
        }
      });

  it('gives each care context of a link request the profile of its own hiType', () => {
    const docs = bundlesOf(toFhirBundles(example('multi-care-context', 'request'), { attachments: ATTACHMENTS }));
    expect(docs.map((d) => [d.referenceNumber, d.hiType, d.profile])).toEqual([
      ['GVH-ENC-55012-OPConsultation', 'OPConsultation', PROFILES.OPConsultRecord],
      ['GVH-ENC-55012-Prescription', 'Prescription', PROFILES.PrescriptionRecord],
      ['GVH-LAB-2026-88120', 'DiagnosticReport', PROFILES.DiagnosticReportRecord],
    ]);
    expect(docs.map((d) => composition(d.bundle).type.coding?.[0]?.code)).toEqual(['371530004', '440545006', '721981007']);
    const dr = docs[2]?.bundle as Bundle;
    const [docRef] = resources<{ content: Array<{ attachment: { data: string; url: string; contentType: string } }> }>(dr, 'DocumentReference');
    expect(Buffer.from(docRef?.content[0]?.attachment.data ?? '', 'base64')).toEqual(Buffer.from(PDF_BYTES));
    expect(docRef?.content[0]?.attachment).toMatchObject({ url: DR_URL, contentType: 'application/pdf' });
    expect(composition(dr).section?.[0]?.entry).toEqual([{ reference: expect.stringMatching(/^urn:uuid:/), type: 'DocumentReference' }]);
  });

  it('writes the envelope the DocumentBundle profile asks for: identifier, instant timestamp with zone, versionId, Composition first', () => {
    const [d] = bundlesOf(toFhirBundles(example('opd-prescription', 'input'), { timestamp: new Date('2026-11-20T07:15:30.250Z') }));
    const b = d?.bundle as Bundle;
    expect(b.type).toBe('document');
    expect(b.timestamp).toBe('2026-11-20T12:45:30.250+05:30');
    expect(b.meta).toEqual({
      versionId: '1',
      lastUpdated: '2026-11-20T12:45:30.250+05:30',
      profile: [PROFILES.DocumentBundle],
      security: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-Confidentiality', code: 'V', display: 'very restricted' }],
    });
    expect(b.identifier).toEqual({ system: 'urn:ietf:rfc:3986', value: `urn:uuid:${b.id}` });
    expect(b.entry?.map((e) => e.resource?.resourceType)).toEqual([
      'Composition',
      'Patient',
      'Practitioner',
      'Organization',
      'Encounter',
      'Condition',
      'Condition',
      'Condition',
      'MedicationRequest',
      'MedicationRequest',
      'MedicationRequest',
      'MedicationRequest',
      'MedicationRequest',
    ]);
  });

  it('uses the care-context reference as Bundle.identifier.value when a system is given', () => {
    const [d] = bundlesOf(toFhirBundles(example('opd-prescription', 'request'), { bundleIdentifierSystem: 'https://hip.sanjeevani.example/care-contexts' }));
    expect(d?.bundle.identifier).toEqual({ system: 'https://hip.sanjeevani.example/care-contexts', value: 'OPD-2026-0042-Prescription' });
  });
});

describe('determinism', () => {
  it('gives the same bundles for the same input, and the visit time as timestamp by default', () => {
    const a = toFhirBundles(example('multi-care-context', 'input'), { attachments: ATTACHMENTS });
    const b = toFhirBundles(example('multi-care-context', 'input'), { attachments: ATTACHMENTS });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(bundlesOf(a)[0]?.bundle.timestamp).toBe('2026-11-19T21:40:00.000+05:30');
  });

  it('derives ids from hip id, visit id, reference number and hiType (UUID v5), so another visit gets other ids', () => {
    const one = bundlesOf(toFhirBundles(example('opd-prescription', 'request')))[0]?.bundle as Bundle;
    expect(one.id).toBe(documentUuid('IN2910000123', 'OPD-2026-0042', 'OPD-2026-0042-Prescription', 'Prescription'));
    const other = example('opd-prescription', 'request');
    other.visitId = 'OPD-2026-0043';
    const two = bundlesOf(toFhirBundles(other))[0]?.bundle as Bundle;
    expect(two.id).not.toBe(one.id);
    const ids = (b: Bundle): string[] => (b.entry ?? []).map((e) => e.fullUrl ?? '');
    expect(ids(two).filter((u) => ids(one).includes(u))).toEqual([]);
    const asOp = bundlesOf(toFhirBundles(example('opd-prescription', 'request'), { hiType: 'OPConsultation' }))[0]?.bundle as Bundle;
    expect(asOp.id).not.toBe(one.id);
  });

  it('makes its ids as RFC 9562 name-based UUIDs (v5, SHA-1): the uuid package gives the same for every name, long and non-ASCII ones included', () => {
    // A fixed pseudo-random sequence (a linear congruential generator), so a failure repeats.
    let seed = 42;
    const next = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const name = (length: number): string => Array.from({ length }, () => String.fromCodePoint(next(5) === 0 ? 0x900 + next(128) : 32 + next(95))).join('');
    expect(documentUuid('', '', '', '')).toBe(uuidv5(new TextEncoder().encode('["","","",""]'), FHIR_ID_NAMESPACE));
    for (let i = 0; i < 300; i++) {
      // Up to 130 characters: names of one, two and three SHA-1 blocks.
      const parts = [name(next(40)), name(next(40)), name(next(130)), name(next(20))] as const;
      const document = documentUuid(...parts);
      expect(document).toBe(uuidv5(new TextEncoder().encode(JSON.stringify(parts)), FHIR_ID_NAMESPACE));
      const kind = name(next(60));
      expect(resourceUuid(document, kind, i)).toBe(uuidv5(`${kind}/${i}`, document));
    }
    // Every length of name around SHA-1's block and padding boundaries (the message is 16 bytes of namespace, then the name).
    const document = documentUuid('IN1', 'V1', 'R1', 'Prescription');
    for (let n = 0; n <= 140; n++) expect(resourceUuid(document, 'x'.repeat(n), 0), `${n}`).toBe(uuidv5(`${'x'.repeat(n)}/0`, document));
  });

  it("keeps a bare date (a stay's, a result's) exactly when date-fns parseISO reads it as a real day: 29 February in leap years only, no month 13 or day 31 of a 30-day month", () => {
    const years = [0, 4, 100, 400, 1600, 1700, 1900, 2000, 2024, 2026, 2028, 2100, 2400, 9999];
    for (const y of years)
      for (let m = 0; m <= 13; m++)
        for (let d = 0; d <= 32; d++) {
          const date = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
          expect(visitDateTime(date, 'Asia/Kolkata'), date).toBe(isValid(parseISO(date)) ? date : undefined);
        }
  });

  it('does not mutate its input', () => {
    const input = deepFreeze(example('multi-care-context', 'input'));
    expect(() => toFhirBundles(input, { attachments: ATTACHMENTS })).not.toThrow();
  });

  it('keeps patient data out of ids', () => {
    const a = bundlesOf(toFhirBundles({ ...base, medications: [{ drugName: 'Cetirizine 10 mg' }] }))[0]?.bundle as Bundle;
    const b = bundlesOf(toFhirBundles({ ...base, patient: { abhaAddress: 'ravi.k@sbx' }, medications: [{ drugName: 'Cetirizine 10 mg' }] }))[0]?.bundle as Bundle;
    expect((b.entry ?? []).map((e) => e.fullUrl)).toEqual((a.entry ?? []).map((e) => e.fullUrl));
  });
});

describe('people and identifiers', () => {
  it('builds the Patient from the clinical input: ABHA number and address, name, gender, birth date', () => {
    const [d] = bundlesOf(toFhirBundles({ ...base, medications: [{ drugName: 'Cetirizine 10 mg' }] }));
    const [p] = resources<Patient>(d?.bundle as Bundle, 'Patient');
    expect(p).toMatchObject({
      identifier: [
        {
          type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MR', display: 'Medical record number' }] },
          system: 'https://healthid.ndhm.gov.in',
          value: '91-4455-6677-8899',
        },
        { type: { coding: [{ system: 'https://nrces.in/ndhm/fhir/r4/CodeSystem/ndhm-identifier-type-code', code: 'ABHA' }] }, system: 'https://healthid.ndhm.gov.in', value: 'asha.verma@sbx' },
      ],
      name: [{ text: 'Asha Verma' }],
      gender: 'female',
      birthDate: '1978-03-14',
    });
  });

  it('builds the Patient of a link request from the ABHA address only', () => {
    const [d] = bundlesOf(toFhirBundles(example('opd-prescription', 'request')));
    const [p] = resources<Patient>(d?.bundle as Bundle, 'Patient');
    expect(Object.keys(p ?? {}).sort()).toEqual(['id', 'identifier', 'meta', 'resourceType']);
    expect(p?.identifier).toHaveLength(1);
    expect(p?.identifier?.[0]?.value).toBe('asha.verma@sbx');
  });

  it('identifies the doctor by licence (MD) and HPR id (HPID), and the facility by HFR id (PRN) with its system', () => {
    const b = bundlesOf(toFhirBundles({ ...base, medications: [{ drugName: 'Cetirizine 10 mg' }] }, { identifierSystems: { licence: 'https://kmc.example/reg' } }))[0]?.bundle as Bundle;
    const [dr] = resources<Practitioner>(b, 'Practitioner');
    expect(dr?.identifier?.map((i) => [i.type?.coding?.[0]?.code, i.system, i.value])).toEqual([
      ['MD', 'https://kmc.example/reg', 'KMC-45678'],
      ['HPID', 'https://doctor.ndhm.gov.in', '71-2665-5777-2713'],
    ]);
    const [org] = resources<{ identifier: Array<{ system: string; value: string; type: { coding: Array<{ code: string }> } }> }>(b, 'Organization');
    expect(org?.identifier).toEqual([{ type: expect.objectContaining({ coding: [expect.objectContaining({ code: 'PRN' })] }), system: 'https://facility.ndhm.gov.in', value: 'IN2910000123' }]);
  });

  it('refuses a doctor without licence number or HPR id: the Practitioner profile needs an identifier', () => {
    const r = toFhirBundles({ ...base, doctor: { name: 'Dr. Meera Iyer' }, medications: [{ drugName: 'Cetirizine 10 mg' }] });
    expect(r.success).toBe(false);
    expect(r.success ? [] : r.issues).toContainEqual(expect.objectContaining({ path: '/doctor', code: 'practitioner-identifier-required', severity: 'error' }));
  });
});

describe('clinical content', () => {
  // Issue 12 item 4 changed this test: the coding's display was the diagnosis as written; now a coding is written only with the code's title.
  it('writes an ICD-10 coding only when icdCode was given with its title, text-only otherwise, and maps status to verificationStatus', () => {
    const b = bundlesOf(
      toFhirBundles(
        {
          ...base,
          diagnosis: [{ diagnosisName: 'Type 2 diabetes mellitus', icdCode: 'E11.9', status: 'confirmed' }, { diagnosisName: 'Viral fever', status: 'provisional' }, { diagnosisName: 'Cough' }],
          medications: [{ drugName: 'Metformin 500 mg', frequency: 'BD' }],
        },
        { icd10Titles: { 'E11.9': 'Type 2 diabetes mellitus without complications' } },
      ),
    )[0]?.bundle as Bundle;
    const conditions = resources<Condition>(b, 'Condition');
    expect(conditions.map((c) => c.code)).toEqual([
      { coding: [{ system: 'http://hl7.org/fhir/sid/icd-10', code: 'E11.9', display: 'Type 2 diabetes mellitus without complications' }], text: 'Type 2 diabetes mellitus' },
      { text: 'Viral fever' },
      { text: 'Cough' },
    ]);
    expect(conditions.map((c) => c.verificationStatus?.coding?.[0]?.code)).toEqual(['confirmed', 'provisional', undefined]);
    expect(JSON.stringify(b)).not.toMatch(/snomed\.info\/sct","code":"(?!440545006)/);
  });

  it('writes MedicationRequests with authoredOn, requester and dosageInstruction, and no invented medicine codes', () => {
    const b = bundlesOf(
      toFhirBundles({ ...base, medications: [{ drugName: 'Metformin 500 mg tablet', dosage: '1 tablet', frequency: '1-0-1', duration: { value: 30, unit: 'day' }, instructions: 'after food' }] }),
    )[0]?.bundle as Bundle;
    const [mr] = resources<MedicationRequest>(b, 'MedicationRequest');
    expect(mr).toMatchObject({
      status: 'active',
      intent: 'order',
      medicationCodeableConcept: { text: 'Metformin 500 mg tablet' },
      authoredOn: '2026-11-20T10:30:00+05:30',
      requester: { reference: expect.stringMatching(/^urn:uuid:/), type: 'Practitioner' },
      dosageInstruction: [
        {
          text: '1 tablet; 1-0-1 (twice a day: morning and night); for 30 days',
          patientInstruction: 'after food',
          timing: {
            code: { text: '1-0-1 (twice a day: morning and night)' },
            repeat: { frequency: 2, period: 1, periodUnit: 'd', boundsDuration: { value: 30, unit: 'days', system: 'http://unitsofmeasure.org', code: 'd' } },
          },
          doseAndRate: [{ doseQuantity: { value: 1, unit: 'tablet' } }],
        },
      ],
    });
    expect(mr?.medicationCodeableConcept?.coding).toBeUndefined();
  });

  it('gives a medication without any dosage a dosageInstruction that says so, warns, and reads back as the bare medicine', () => {
    const r = toFhirBundles({ ...base, medications: [{ drugName: 'Cetirizine 10 mg' }] }, { lint: false });
    expect(r.success ? r.warnings.map((w) => [w.path, w.code]) : []).toEqual([['/medications/0', 'medication-without-dosage']]);
    // With lint on (the default), the lint rules say it first, as buildLinkRequest does.
    const linted = toFhirBundles({ ...base, hiType: 'Prescription', medications: [{ drugName: 'Cetirizine 10 mg', genericName: 'Cetirizine' }] });
    expect(linted.success ? linted.warnings.map((w) => w.code) : []).toEqual(['medication-without-dosage', 'medication-without-frequency', 'medication-without-dosage']);
    const [mr] = resources<MedicationRequest>(bundlesOf(r)[0]?.bundle as Bundle, 'MedicationRequest');
    expect(mr?.dosageInstruction).toEqual([{ text: 'No dosage instructions recorded' }]);
    const back = fromFhir(bundlesOf(r)[0]?.bundle as Bundle);
    expect(back.success ? back.value.medications : undefined).toEqual([{ drugName: 'Cetirizine 10 mg' }]);
  });

  it('puts diagnoses, medications, lab orders, advice and follow-up in the OPConsultRecord sections', () => {
    const b = bundlesOf(
      toFhirBundles({
        ...base,
        visit: { ...base.visit, followUp: 'Review after 2 weeks' },
        hiType: 'OPConsultation',
        diagnosis: [{ diagnosisName: 'Iron deficiency anaemia', icdCode: 'D50.9' }],
        medications: [{ drugName: 'Ferrous ascorbate tablet', frequency: 'OD' }],
        labInvestigations: [{ testName: 'Serum ferritin', instructions: 'fasting' }],
        advice: 'Iron-rich diet.\nAvoid tea with meals.',
      }),
    )[0]?.bundle as Bundle;
    const c = composition(b);
    expect(c.encounter?.reference).toMatch(/^urn:uuid:/);
    expect(c.section?.map((s) => [s.title, s.code?.coding?.[0]?.code, s.entry?.map((e) => e.type)])).toEqual([
      ['Diagnosis', '422843007', ['Condition']],
      ['Medications', '721912009', ['MedicationRequest']],
      ['Investigations advised', '721963009', ['ServiceRequest']],
      ['Advice', undefined, undefined],
      ['Follow-up', undefined, undefined],
    ]);
    expect(c.section?.[3]?.text?.div).toBe('<div xmlns="http://www.w3.org/1999/xhtml"><p><span dir="auto">Iron-rich diet.</span></p><p><span dir="auto">Avoid tea with meals.</span></p></div>');
    expectValid(b);
    const alt = bundlesOf(toFhirBundles({ ...base, hiType: 'OPConsultation', diagnosis: [{ diagnosisName: 'Asthma' }] }, { opConsultDiagnosisSection: 'MedicalHistory' }))[0]?.bundle as Bundle;
    expect(composition(alt).section?.[0]?.code?.coding?.[0]).toEqual({ system: SYSTEMS.snomed, code: '371529009', display: 'History and physical report' });
  });
});

describe('content that does not fit the profile', () => {
  const prescriptionWithExtras: ClinicalInput = {
    ...base,
    hiType: 'Prescription',
    medications: [{ drugName: 'Azithromycin 500 mg', frequency: 'OD', duration: '3 days' }],
    labInvestigations: [{ testName: 'CBC' }],
    advice: 'Rest',
    documentUrl: 'https://emr.example/rx/42.pdf',
  };

  it('warns, naming OPConsultation, when a Prescription carries lab orders or advice, and leaves them out', () => {
    const r = toFhirBundles(prescriptionWithExtras, { lint: false });
    expect(r.success).toBe(true);
    const warnings = r.success ? r.warnings : [];
    expect(warnings.map((w) => [w.path, w.code])).toEqual([
      ['/documentUrl', 'document-not-embedded'],
      ['/labInvestigations', 'content-not-in-profile'],
      ['/advice', 'content-not-in-profile'],
    ]);
    for (const w of warnings.slice(1)) expect(w.message).toContain('OPConsultation');
    const b = bundlesOf(r)[0]?.bundle as Bundle;
    expect(resources(b, 'ServiceRequest')).toEqual([]);
    expect(resources(b, 'Binary')).toEqual([]);
    expectValid(b);
  });

  it('embeds a supplied document as the Prescription Binary', () => {
    const r = toFhirBundles(prescriptionWithExtras, { attachments: { 'https://emr.example/rx/42.pdf': { contentType: 'application/pdf', data: 'JVBERi0xLjQK' } } });
    const b = bundlesOf(r)[0]?.bundle as Bundle;
    expect(resources(b, 'Binary')).toEqual([expect.objectContaining({ contentType: 'application/pdf', data: 'JVBERi0xLjQK' })]);
    expect(composition(b).section?.[0]?.entry?.map((e) => e.type)).toEqual(['MedicationRequest', 'Binary']);
    expectValid(b);
  });

  it('refuses a URL-only document where the document is the only content, and says how to embed it', () => {
    const r = toFhirBundles({ ...base, hiType: 'HealthDocumentRecord', documentUrl: 'https://emr.example/discharge.pdf' });
    expect(r.success).toBe(false);
    expect(r.success ? [] : r.issues).toEqual([expect.objectContaining({ path: '/documentUrl', code: 'document-data-required', severity: 'error' })]);
    expect(r.success ? '' : r.issues[0]?.message).toContain('options.attachments');
  });

  it('rejects supplied bytes that are not base64', () => {
    const r = toFhirBundles(
      { ...base, hiType: 'HealthDocumentRecord', documentUrl: 'https://emr.example/d.pdf' },
      { attachments: { 'https://emr.example/d.pdf': { contentType: 'application/pdf', data: 'not base64!' } } },
    );
    expect(r.success ? [] : r.issues.map((i) => i.code)).toEqual(['invalid-attachment']);
  });

  it('maps hiTypes that had no mapping before (a WellnessRecord), and refuses an empty Prescription', () => {
    const a = toFhirBundles({ ...base, hiType: 'WellnessRecord', observations: { pulse: 72 } });
    expect(a.success ? a.bundles.map((x) => x.hiType) : a.issues).toEqual(['WellnessRecord']);
    const b = toFhirBundles({ ...base, hiType: 'Prescription', diagnosis: [{ diagnosisName: 'Fever' }] }, { lint: false });
    expect(b.success ? [] : b.issues.map((i) => i.code)).toEqual(['content-not-in-profile', 'empty-document']);
    const linted = toFhirBundles({ ...base, hiType: 'Prescription', diagnosis: [{ diagnosisName: 'Fever' }] });
    expect(linted.success ? [] : linted.issues.map((i) => i.code)).toEqual(['prescription-without-medication']);
  });

  it('returns the input issues, with paths into the input, for an invalid input', () => {
    const r = toFhirBundles({ ...base, visit: { id: 'V1', at: '2026-02-30T10:00:00' }, medications: [{ drugName: 'X' }] });
    expect(r.success ? [] : r.issues.map((i) => i.path)).toEqual(['/visit/at']);
    const bad = example('opd-prescription', 'request');
    bad.careContexts[0]!.bundleData.hospital.name = '';
    const r2 = toFhirBundles(bad);
    expect(r2.success ? [] : r2.issues.map((i) => [i.path, i.code])).toEqual([['/careContexts/0/bundleData/hospital/name', 'empty']]);
  });

  it('rejects a timestamp without a time zone', () => {
    const r = toFhirBundles(example('opd-prescription', 'input'), { timestamp: '2026-11-20T10:00:00' });
    expect(r.success ? [] : r.issues.map((i) => i.code)).toEqual(['invalid-option']);
  });
});

describe('narratives', () => {
  it('escapes every value placed in XHTML, so hostile names stay text', () => {
    const hostile = '<script>alert("x")</script> & <img src=x onerror=alert(1)> \u0000\u0007 \'q\'';
    const r = toFhirBundles({
      ...base,
      patient: { ...base.patient, name: hostile },
      doctor: { ...base.doctor, name: hostile },
      hiType: 'OPConsultation',
      diagnosis: [{ diagnosisName: hostile }],
      medications: [{ drugName: hostile, instructions: hostile }],
      labInvestigations: [{ testName: hostile }],
      advice: `${hostile}\n</div><div>`,
    });
    const b = bundlesOf(r)[0]?.bundle as Bundle;
    const divs = JSON.stringify(b).match(/"div":"(?:[^"\\]|\\.)*"/g) ?? [];
    expect(divs.length).toBe(5); // the Composition and its four sections
    for (const d of divs) {
      expect(d).not.toMatch(/<script|<img|<\/div><div>/);
      expect(d).not.toMatch(/[\u0000\u0007]/);
    }
    expect(escapeXhtml(hostile)).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt; \uFFFD\uFFFD &#39;q&#39;');
    expect(validateFhirBundle(b).issues.filter((i) => i.severity === 'error')).toEqual([]);
  });

  it('reads the tags abha-link writes in place, with the verdicts of any other spelling of them', () => {
    const div = (inner: string): string => `<div xmlns="http://www.w3.org/1999/xhtml">${inner}</div>`;
    expect(xhtmlProblem(div('<ul><li><span dir="auto">a</span></li></ul><p><b>b</b></p>'))).toBeUndefined();
    expect(xhtmlProblem(div('<ul ><li><span dir="auto" >a</span ></li ></ul>'))).toBeUndefined();
    expect(xhtmlProblem(div('<li><span dir="auto">a</li></span>'))).toBe('is not well-formed XHTML (mismatched closing tag)');
    expect(xhtmlProblem(div('<LI>a</LI>'))).toBe('uses an element narratives may not contain (only basic HTML formatting is allowed)');
    expect(xhtmlProblem(div('<li>a</li'))).toBe('is not well-formed XHTML (mismatched closing tag)');
    expect(xhtmlProblem('<div xmlns="http://www.w3.org/1999/xhtml"><p>a</p')).toBe('is not well-formed XHTML (unclosed tag)');
    expect(xhtmlProblem('<div xmlns="http://www.w3.org/1999/xhtml"><p>a</p>')).toBe('is not well-formed XHTML (unclosed element)');
    expect(xhtmlProblem('<span dir="auto">a</span>')).toBe('must be an XHTML <div> element');
    expect(xhtmlProblem(`${div('a')}<p>b</p>`)).toBe('has content outside the root <div>');
    expect(xhtmlProblem(div('<ul><li></li></ul>'))).toBe('must have some non-whitespace content');
  });
});

describe('lint', () => {
  it('runs as buildLinkRequest runs it, on clinical inputs and link requests alike; lint: false skips it', () => {
    const now = new Date('2026-11-21T00:00:00+05:30');
    const future = { ...base, visit: { ...base.visit, at: '2026-12-01T10:00:00+05:30' }, medications: [{ drugName: 'X', genericName: 'X', dosage: '1 tablet', frequency: 'OD' }] };
    const a = toFhirBundles(future, { lint: { now } });
    expect(a.success ? [] : a.issues.map((i) => [i.path, i.code])).toEqual([['/visit/at', 'visit-date-in-future']]);
    expect(toFhirBundles(future).success).toBe(true); // no clock, no "future" rule
    expect(toFhirBundles(future, { lint: false }).success).toBe(true);
    const http = { ...base, documentUrl: 'http://emr.example/rx.pdf', medications: [{ drugName: 'X', genericName: 'X', dosage: '1 tablet', frequency: 'OD' }] };
    const b = toFhirBundles(http);
    expect(b.success ? [] : b.issues.map((i) => [i.path, i.code])).toEqual([['/documentUrl', 'document-url-not-https']]);
    const req = example('opd-prescription', 'request');
    const c = toFhirBundles({ ...req, visitDate: '2026-12-01' }, { lint: { now } });
    expect(c.success ? [] : c.issues.map((i) => [i.path, i.code])).toEqual([['/visitDate', 'visit-date-in-future']]);
    const d = toFhirBundles({ ...req, abhaAddress: 'not an address' });
    expect(d.success ? [] : d.issues.map((i) => [i.path, i.code])).toEqual([['/abhaAddress', 'abha-address-shape']]);
    expect(toFhirBundles({ ...req, visitDate: '2026-12-01' }, { lint: { now, disable: ['visit-date-in-future'] } }).success).toBe(true);
  });

  it('refuses lint options that are not an object', () => {
    const r = toFhirBundles(base, { lint: 'on' as unknown as false });
    expect(r.success ? [] : r.issues.map((i) => i.code)).toEqual(['invalid-option']);
  });
});

describe('icdCode as a FHIR code', () => {
  it.each([
    ['a tab', 'E11.9\tX'],
    ['a line break', 'E11.9\nX'],
    ['a carriage return', 'E11\r9'],
    ['two spaces', 'E11  9'],
    ['a no-break space', 'E11\u00a09'],
  ])('with %s is an error at the input path, not an invalid bundle', (_name, icdCode) => {
    // Lint (on by default) refuses it as icd10-shape; without lint the FHIR layer still does.
    const linted = toFhirBundles({ ...base, hiType: 'OPConsultation', diagnosis: [{ diagnosisName: 'Diabetes' }, { diagnosisName: 'Diabetes', icdCode }] });
    expect(linted.success ? [] : linted.issues.map((i) => [i.path, i.code])).toEqual([['/diagnosis/1/icdCode', 'icd10-shape']]);
    const r = toFhirBundles({ ...base, hiType: 'OPConsultation', diagnosis: [{ diagnosisName: 'Diabetes' }, { diagnosisName: 'Diabetes', icdCode }] }, { lint: false });
    expect(r.success).toBe(false);
    expect(r.success ? [] : r.issues.filter((i) => i.severity === 'error').map((i) => [i.path, i.code])).toEqual([['/diagnosis/1/icdCode', 'invalid-code']]);
    expect(JSON.stringify(r)).not.toContain(JSON.stringify(icdCode).slice(1, -1));
  });

  it('is checked in a link request too, where leading and trailing spaces are not trimmed away, at its careContexts path', () => {
    const req = example('opd-prescription', 'request');
    const cc = req.careContexts[0];
    if (cc === undefined) throw new Error('no care context');
    for (const icdCode of [' E11.9', 'E11.9 ', 'E11.9\tX']) {
      const r = toFhirBundles({ ...req, careContexts: [{ ...cc, hiType: 'OPConsultation', bundleData: { ...cc.bundleData, diagnosis: [{ diagnosisName: 'Diabetes', icdCode }] } }] }, { lint: false });
      expect(r.success ? [] : r.issues.filter((i) => i.severity === 'error').map((i) => [i.path, i.code]), JSON.stringify(icdCode)).toEqual([
        ['/careContexts/0/bundleData/diagnosis/0/icdCode', 'invalid-code'],
      ]);
    }
  });

  it('accepts the codes ICD-10 has, with one space inside at most as FHIR allows', () => {
    for (const icdCode of ['E11.9', 'I10', 'E11.9 X']) bundlesOf(toFhirBundles({ ...base, hiType: 'OPConsultation', diagnosis: [{ diagnosisName: 'Diabetes', icdCode }] }, { lint: false }));
  });
});

describe('prototype member names as data', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'])('%s as gender or diagnosis status: a warning, a valid bundle, no Object.prototype text', (word) => {
    const r = toFhirBundles({ ...base, patient: { ...base.patient, gender: word }, hiType: 'OPConsultation', diagnosis: [{ diagnosisName: 'Hypertension', status: word }] });
    const [d] = bundlesOf(r);
    const b = d?.bundle as Bundle;
    expect(r.success ? r.warnings.map((w) => [w.path, w.code]) : []).toEqual([
      ['/patient/gender', 'gender-not-mapped'],
      ['/diagnosis/0/status', 'status-not-mapped'],
    ]);
    expect(resources<Patient>(b, 'Patient')[0]?.gender).toBeUndefined();
    expect(resources<Condition>(b, 'Condition')[0]?.verificationStatus).toBeUndefined();
    expect(JSON.stringify(b)).not.toMatch(/function|native code|\[object/);
    expectValid(b);
  });
});

describe('bidi controls in narrative values', () => {
  const BIDI = /[\u202A-\u202E\u2066-\u2069]/;
  /** The `<span dir="auto">` isolates of a narrative div (never nested) and the div with them cut out. */
  const isolates = (div: string): { inside: string[]; outside: string } => {
    const inside: string[] = [];
    const outside = div.replace(/<span dir="auto">([\s\S]*?)<\/span>/g, (_m, inner: string) => {
      inside.push(inner);
      return ' ';
    });
    return { inside, outside };
  };
  const planted = (c: string, n: number): string => `${c}evil #T${n}`;

  it.each(['OPConsultation', 'Prescription'] as const)('are isolated value by value in every %s narrative: the text after a value keeps its direction', (hiType) => {
    for (const c of ['\u202E', '\u202B', '\u2067', '\u2066\u202E']) {
      let n = 0;
      const v = (): string => planted(c, n++);
      const doc = v();
      const r = toFhirBundles(
        {
          ...base,
          hospital: { ...base.hospital, name: v() },
          doctor: { ...base.doctor, name: v() },
          patient: { ...base.patient, name: v() },
          visit: { ...base.visit, followUp: v() },
          hiType,
          documentUrl: 'https://records.example/r/1.pdf',
          diagnosis: [{ diagnosisName: v(), icdCode: 'E11.9', status: v() }],
          medications: [{ drugName: v(), dosage: v(), frequency: v(), duration: v(), instructions: v() }],
          ...(hiType === 'OPConsultation' ? { labInvestigations: [{ testName: v(), instructions: v() }], advice: `${v()}\n${v()}` } : {}),
        },
        { attachments: { 'https://records.example/r/1.pdf': { contentType: 'application/pdf', data: PDF_BYTES, title: doc } } },
      );
      const b = bundlesOf(r)[0]?.bundle as Bundle;
      const divs = (JSON.stringify(b).match(/"div":"(?:[^"\\]|\\.)*"/g) ?? []).map((d) => (JSON.parse(`{${d}}`) as { div: string }).div);
      const seen = new Set<string>();
      for (const div of divs) {
        const { inside, outside } = isolates(div);
        for (const inner of inside) expect(inner).not.toMatch(/<span/);
        expect(outside, div).not.toMatch(BIDI);
        for (const inner of inside) {
          const tags = (inner.match(/#T\d+/gi) ?? []).map((t) => t.toUpperCase()); // statuses are lower-cased
          expect(tags.length, inner).toBeLessThanOrEqual(1);
          for (const t of tags) seen.add(t);
        }
        for (const t of div.match(/#T\d+/gi) ?? []) expect(seen.has(t.toUpperCase()), `${t} is outside an isolate`).toBe(true);
      }
      // Every value that has a place in the narrative is there (the follow-up only in an OPConsultRecord).
      expect(seen.size).toBe(hiType === 'OPConsultation' ? n : n - 1);
      expect(validateFhirBundle(b).issues.filter((i) => i.severity === 'error')).toEqual([]);
    }
  });

  it('keeps the ICD-10 code after a diagnosis ending in a right-to-left override outside its embedding', () => {
    const b = bundlesOf(toFhirBundles({ ...base, hiType: 'OPConsultation', diagnosis: [{ diagnosisName: 'Hypertension \u202E', icdCode: 'I10', status: 'confirmed' }] }))[0]?.bundle as Bundle;
    expect(composition(b).section?.[0]?.text?.div).toBe(
      '<div xmlns="http://www.w3.org/1999/xhtml"><ul><li><span dir="auto">Hypertension \u202E</span> (ICD-10 <span dir="auto">I10</span>), <span dir="auto">confirmed</span></li></ul></div>',
    );
    expect(isolatedXhtml('a<\u202Eb')).toBe('<span dir="auto">a&lt;\u202Eb</span>');
  });
});

describe('the IG Prescription example-06, reproduced from an equivalent input', () => {
  // Facts of Bundle-Prescription-example-06 (reference §3.1, §5, §6): patient ABHA number 22-7225-4829-5255 (MR,
  // https://healthid.ndhm.gov.in), Dr. DEF with MD 21-1521-3828-3227 at https://doctor.ndhm.gov.in, Azithromycin
  // 250 mg once a day, and a text-only "Paracetemol 500mg Oral Tab" (sic), both for the condition "Abdominal pain".
  const input: ClinicalInput = {
    hospital: { name: 'Example HIP', id: '4567878' },
    doctor: { name: 'Dr. DEF', licNumber: '21-1521-3828-3227' },
    patient: { abhaAddress: 'abc@sbx', ABHANumber: '22-7225-4829-5255', name: 'ABC', gender: 'M', birthDate: '1981-01-12' },
    visit: { id: 'example-06', at: '2020-07-09T15:32:26+05:30' },
    hiType: 'Prescription',
    diagnosis: [{ diagnosisName: 'Abdominal pain' }],
    medications: [
      { drugName: 'Azithromycin 250 mg oral tablet', dosage: 'One tablet at once', frequency: 'OD' },
      { drugName: 'Paracetemol 500mg Oral Tab', dosage: 'Take two tablets orally with or after meal once a day' },
    ],
  };

  it('has the same structure: Composition first, one typed section, MedicationRequests with requester and reason, identifiers as in the IG', () => {
    const b = bundlesOf(toFhirBundles(input, { identifierSystems: { licence: 'https://doctor.ndhm.gov.in' }, timestamp: '2020-07-09T15:32:26.605+05:30' }))[0]?.bundle as Bundle;
    expectValid(b);
    expect(b.timestamp).toBe('2020-07-09T15:32:26.605+05:30');
    const c = composition(b);
    expect(c.type.coding).toEqual([{ system: 'http://snomed.info/sct', code: '440545006', display: 'Prescription record' }]);
    expect(c.title).toBe('Prescription record');
    expect(c.section).toHaveLength(1);
    expect(c.section?.[0]?.code?.coding).toEqual([{ system: 'http://snomed.info/sct', code: '440545006', display: 'Prescription record' }]);
    expect(c.section?.[0]?.entry?.map((e) => e.type)).toEqual(['MedicationRequest', 'MedicationRequest']);
    const [pat] = resources<Patient>(b, 'Patient');
    expect(pat?.identifier?.[0]).toEqual({
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MR', display: 'Medical record number' }], text: 'Medical record number' },
      system: 'https://healthid.ndhm.gov.in',
      value: '22-7225-4829-5255',
    });
    expect(pat).toMatchObject({ name: [{ text: 'ABC' }], gender: 'male', birthDate: '1981-01-12' });
    const [doc] = resources<Practitioner>(b, 'Practitioner');
    expect(doc?.identifier).toEqual([
      {
        type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MD', display: 'Medical License number' }], text: 'Medical License number' },
        system: 'https://doctor.ndhm.gov.in',
        value: '21-1521-3828-3227',
      },
    ]);
    const [cond] = resources<Condition>(b, 'Condition');
    expect(cond?.code).toEqual({ text: 'Abdominal pain' }); // the IG codes it in SNOMED; abha-link never invents that code
    const mrs = resources<MedicationRequest>(b, 'MedicationRequest');
    for (const mr of mrs) {
      expect(mr).toMatchObject({ status: 'active', intent: 'order', requester: { type: 'Practitioner' } });
      expect(mr.reasonReference).toEqual([{ reference: `urn:uuid:${cond?.id}`, type: 'Condition' }]);
    }
    expect(mrs.map((m) => m.medicationCodeableConcept)).toEqual([{ text: 'Azithromycin 250 mg oral tablet' }, { text: 'Paracetemol 500mg Oral Tab' }]);
    expect(mrs[0]?.dosageInstruction?.[0]?.timing?.repeat).toEqual({ frequency: 1, period: 1, periodUnit: 'd' });
    expect(mrs[0]?.dosageInstruction?.[0]?.text).toBe('One tablet at once; Once a day (OD)');
    expect(mrs[1]?.dosageInstruction?.[0]?.text).toBe('Take two tablets orally with or after meal once a day');
  });
});

describe('FHIR timing of frequencies typed as keyboards type them', () => {
  it.each([
    ['Q6H', { frequency: 1, period: 6, periodUnit: 'h' }],
    ['Every 8 hours (Q8H)', { frequency: 1, period: 8, periodUnit: 'h' }],
    ['twice daily', { frequency: 2, period: 1, periodUnit: 'd' }],
    ['OD HS', { frequency: 1, period: 1, periodUnit: 'd' }],
    ['1/2-0-1/2', { frequency: 2, period: 1, periodUnit: 'd' }],
  ])('gives %s a repeat', (frequency, repeat) => {
    expect(timingOf(frequency)).toEqual({ repeat });
  });
});

describe('FHIR timing of frequencies as clinicians write them', () => {
  it.each([
    ['once a week', { frequency: 1, period: 1, periodUnit: 'wk' }],
    ['Three times a week', { frequency: 3, period: 1, periodUnit: 'wk' }],
    ['twice a week', { frequency: 2, period: 1, periodUnit: 'wk' }],
    ['On alternate days', { frequency: 1, period: 2, periodUnit: 'd' }],
    ['EOD', { frequency: 1, period: 2, periodUnit: 'd' }],
    ['every Monday', { frequency: 1, period: 1, periodUnit: 'd', dayOfWeek: ['mon'] }],
    ['Every Monday and Thursday', { frequency: 1, period: 1, periodUnit: 'd', dayOfWeek: ['mon', 'thu'] }],
    ['q6h', { frequency: 1, period: 6, periodUnit: 'h' }],
    ['1-0-1-0-1 (three times a day)', { frequency: 3, period: 1, periodUnit: 'd' }],
    ['Twice a day (BD), for 5 days', { boundsDuration: { value: 5, unit: 'days', system: 'http://unitsofmeasure.org', code: 'd' }, frequency: 2, period: 1, periodUnit: 'd' }],
    ['1-1-1 after food', { frequency: 3, period: 1, periodUnit: 'd', when: ['PC'] }],
    ['OD before food', { frequency: 1, period: 1, periodUnit: 'd', when: ['AC'] }],
    ['TDS with food', { frequency: 3, period: 1, periodUnit: 'd', when: ['C'] }],
    ['OD empty stomach', { frequency: 1, period: 1, periodUnit: 'd' }],
  ])('gives %s timing.repeat %j', (frequency, repeat) => {
    expect(timingOf(frequency)).toEqual({ repeat });
  });

  it('keeps SOS as needed when a duration is written into it', () => {
    expect(timingOf('When required (SOS), for 3 days')).toEqual({ asNeeded: true, repeat: { boundsDuration: { value: 3, unit: 'days', system: 'http://unitsofmeasure.org', code: 'd' } } });
  });

  it("lets the medication's own duration win over one written into its frequency", () => {
    const d = dosageOf({ drugName: 'Amoxicillin', frequency: 'Twice a day (BD), for 5 days', duration: '7 days' });
    expect(d.timing?.repeat?.boundsDuration?.value).toBe(7);
  });

  it.each([
    [{ frequency: 1, period: 1, periodUnit: 'wk' }, 'Once a week'],
    [{ frequency: 3, period: 1, periodUnit: 'wk' }, 'Three times a week'],
    [{ frequency: 1, period: 2, periodUnit: 'd' }, 'On alternate days'],
    [{ dayOfWeek: ['thu', 'mon'] }, 'Every Monday and Thursday'],
    [{ frequency: 1, period: 1, periodUnit: 'd', dayOfWeek: ['sun'] }, 'Every Sunday'],
  ] as const)('reads the repeat %j back as %s, the words the builders write', (repeat, text) => {
    expect(frequencyFromRepeat(repeat as TimingRepeat, false)).toEqual({ text, unused: [] });
  });

  it('reports a dayOfWeek it cannot say (with another frequency) as unused', () => {
    expect(frequencyFromRepeat({ frequency: 2, period: 1, periodUnit: 'd', dayOfWeek: ['mon'] }, false).unused).toContain('dayOfWeek');
  });
});
