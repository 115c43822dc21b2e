import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LINT_RULES, buildLinkRequest, lintClinicalInput, lintLinkRequest, safeBuildLinkRequest, validateLinkRequest, type ClinicalInput, type LinkCareContextRequest } from '../src/index.js';

const load = (name: string): LinkCareContextRequest => JSON.parse(readFileSync(new URL(`../examples/${name}.request.json`, import.meta.url), 'utf8')) as LinkCareContextRequest;

/** A copy of the multi-care-context example (OPConsultation, Prescription, DiagnosticReport) to break. */
const request = (): LinkCareContextRequest => structuredClone(load('multi-care-context'));

function codes(req: LinkCareContextRequest, options = {}): Array<[string, string, string]> {
  // Lint assumes a schema-valid request: make sure each case still is one.
  expect(validateLinkRequest(req).success).toBe(true);
  return lintLinkRequest(req, options).map((i) => [i.path, i.code, i.severity]);
}

function careContext(req: LinkCareContextRequest, i: number) {
  const cc = req.careContexts[i];
  if (cc === undefined) throw new Error(`no care context ${i}`);
  return cc;
}

describe('lintLinkRequest', () => {
  it('finds nothing in the bundled examples', () => {
    for (const name of ['opd-prescription', 'lab-order', 'multi-care-context']) expect(codes(load(name), { now: new Date('2026-11-21T12:00:00Z') })).toEqual([]);
  });

  it('flags an empty careContexts list', () => {
    const r = request();
    r.careContexts = [];
    expect(codes(r)).toEqual([['/careContexts', 'empty-care-contexts', 'error']]);
  });

  it('flags a referenceNumber used twice, at the second use', () => {
    const r = request();
    careContext(r, 2).referenceNumber = careContext(r, 0).referenceNumber;
    expect(codes(r)).toEqual([['/careContexts/2/referenceNumber', 'duplicate-reference-number', 'error']]);
  });

  describe('visit date in the future', () => {
    it('is flagged against today in India, not in UTC', () => {
      const r = request();
      r.visitDate = '2026-11-21';
      // 20:00 UTC on 20 Nov is 01:30 IST on 21 Nov: a visit dated 21 Nov is today, not the future.
      expect(codes(r, { now: new Date('2026-11-20T20:00:00Z') })).toEqual([]);
      expect(codes(r, { now: new Date('2026-11-20T18:00:00Z') })).toEqual([['/visitDate', 'visit-date-in-future', 'error']]);
    });

    it('follows the facility time zone option', () => {
      const r = request();
      r.visitDate = '2026-11-21';
      expect(codes(r, { now: new Date('2026-11-20T20:00:00Z'), timeZone: 'UTC' })).toEqual([['/visitDate', 'visit-date-in-future', 'error']]);
    });

    it('does not run without now: the library never reads the clock', () => {
      const r = request();
      r.visitDate = '2099-01-01';
      expect(codes(r)).toEqual([]);
    });
  });

  it.each([
    ['E11.9', []],
    ['I10', []],
    ['D50.9', []],
    ['S72.001A', [['icd10-not-who', 'warning']]],
    ['e11.9', [['icd10-shape', 'error']]],
    ['250.00', [['icd10-shape', 'error']]],
    ['Diabetes', [['icd10-shape', 'error']]],
  ])('checks the ICD-10 shape of %s', (code, expected) => {
    const r = request();
    const d = careContext(r, 0).bundleData.diagnosis?.[0];
    if (d === undefined) throw new Error('example changed');
    d.icdCode = code;
    expect(codes(r).map(([path, c, s]) => [path, c, s])).toEqual(expected.map(([c, s]) => ['/careContexts/0/bundleData/diagnosis/0/icdCode', c, s]));
  });

  it("flags an hiType outside ABDM's list, and accepts a configured list", () => {
    const r = request();
    careContext(r, 0).hiType = 'Prescriptions';
    expect(codes(r)).toEqual([['/careContexts/0/hiType', 'unknown-hi-type', 'error']]);
    expect(codes(r, { hiTypes: ['Prescriptions', 'Prescription', 'DiagnosticReport'] })).toEqual([]);
  });

  it('flags a Prescription without medication or document', () => {
    const r = request();
    delete careContext(r, 1).bundleData.medications;
    expect(codes(r)).toEqual([['/careContexts/1/bundleData/medications', 'prescription-without-medication', 'error']]);
  });

  it('accepts a Prescription that is only a scanned document', () => {
    const r = request();
    const b = careContext(r, 1).bundleData;
    delete b.medications;
    b.documentUrl = 'https://records.greenvalley.example/rx/1.pdf';
    expect(codes(r)).toEqual([]);
  });

  describe('a Prescription carrying lab orders or advice', () => {
    const extra = (r: LinkCareContextRequest) => lintLinkRequest(r).filter((f) => f.code === 'prescription-extra-content');

    it('names only the advice, at its path, and says it stays in the request and on paper', () => {
      const r = request();
      careContext(r, 1).bundleData.advice = 'Rest';
      expect(codes(r)).toEqual([['/careContexts/1/bundleData/advice', 'prescription-extra-content', 'warning']]);
      const [f] = extra(r);
      expect(f?.message).toMatch(/^advice is kept in the link request and on the printed prescription/);
      expect(f?.message).toContain('FHIR Prescription profile has no place for it');
      expect(f?.message).not.toContain('labInvestigations');
    });

    it('names only the lab investigations, at their path', () => {
      const r = request();
      careContext(r, 1).bundleData.labInvestigations = [{ testName: 'HbA1c' }];
      const found = extra(r);
      expect(found.map((f) => f.path)).toEqual(['/careContexts/1/bundleData/labInvestigations']);
      expect(found[0]?.message).toMatch(/^labInvestigations are kept in the link request/);
      expect(found[0]?.message).not.toContain('advice');
    });

    it('gives one finding for each when both are present', () => {
      const r = request();
      careContext(r, 1).bundleData.labInvestigations = [{ testName: 'HbA1c' }];
      careContext(r, 1).bundleData.advice = 'Rest';
      expect(extra(r).map((f) => f.path)).toEqual(['/careContexts/1/bundleData/labInvestigations', '/careContexts/1/bundleData/advice']);
    });
  });

  it('warns about a DiagnosticReport with no content and a HealthDocumentRecord with no URL', () => {
    const r = request();
    const report = careContext(r, 2).bundleData;
    delete report.documentUrl;
    delete report.labInvestigations;
    careContext(r, 0).hiType = 'HealthDocumentRecord';
    expect(codes(r)).toEqual([
      ['/careContexts/0/bundleData/documentUrl', 'health-document-without-url', 'warning'],
      ['/careContexts/2/bundleData', 'diagnostic-report-without-content', 'warning'],
    ]);
  });

  it('warns about a medication without dosage or frequency', () => {
    const r = request();
    const m = careContext(r, 1).bundleData.medications?.[0];
    if (m === undefined) throw new Error('example changed');
    delete m.dosage;
    m.frequency = ' ';
    expect(codes(r)).toEqual([
      ['/careContexts/1/bundleData/medications/0/dosage', 'medication-without-dosage', 'warning'],
      ['/careContexts/1/bundleData/medications/0/frequency', 'medication-without-frequency', 'warning'],
    ]);
  });

  describe('frequencies', () => {
    const withFrequency = (frequency: string): LinkCareContextRequest => {
      const r = request();
      const m = careContext(r, 1).bundleData.medications?.[0];
      if (m === undefined) throw new Error('example changed');
      m.frequency = frequency;
      return r;
    };

    it.each(['alternate days after dialysis', 'BD after dialysis', '1-0', 'every other Sunday', 'Mon Wed Fri fortnightly'])('warns that %s is not understood, naming its path', (frequency) => {
      expect(codes(withFrequency(frequency))).toEqual([['/careContexts/1/bundleData/medications/0/frequency', 'frequency-not-understood', 'warning']]);
    });

    it.each([
      '1/2-0-1/2',
      'Q6H',
      'q8h',
      'twice daily',
      'OD HS',
      'thrice daily',
      'once daily',
      'at bedtime',
      'Q12H',
      'Q4H',
      'BDS',
      '1-1-1-1',
      'Twice a day (BD)',
      '1-0-1 (after food)',
      'Every 6 hours (Q6H)',
      'once a week',
      'thrice weekly',
      'alternate day',
      'EOD',
      'every Monday',
      'Mon, Thu',
      '1-0-1-0-1',
      'BD x 5 days',
      '1-1-1 after food',
    ])('accepts %s as understood', (frequency) => {
      expect(codes(withFrequency(frequency))).toEqual([]);
    });

    it.each(['0-0-0', '0-0-0-0', '0 - 0 - 0', '0-0-0-0-0', '0-0-0 after food'])('refuses %s, a pattern with no dose at all, as an error at its path', (frequency) => {
      expect(codes(withFrequency(frequency))).toEqual([['/careContexts/1/bundleData/medications/0/frequency', 'frequency-without-dose', 'error']]);
    });

    it.each(['0-0-1', '½-0-0', '0-0-0-1', '0-0-0-0-1'])('does not refuse %s, which has a dose', (frequency) => {
      expect(codes(withFrequency(frequency)).map(([, code]) => code)).not.toContain('frequency-without-dose');
    });
  });

  describe('hostile text in medications', () => {
    it.each(['drugName', 'dosage', 'frequency', 'duration', 'instructions'] as const)('warns about a right-to-left override inside %s', (field) => {
      const r = request();
      const m = careContext(r, 1).bundleData.medications?.[0];
      if (m === undefined) throw new Error('example changed');
      m[field] = `${m[field] ?? '1 tablet'}\u202E01 x`;
      const found = lintLinkRequest(r).filter((f) => f.code === 'bidi-control-in-medication');
      expect(found.map((f) => [f.path, f.severity])).toEqual([[`/careContexts/1/bundleData/medications/0/${field}`, 'warning']]);
    });

    it('warns about an isolate control (U+2066) and leaves Devanagari and Urdu text alone', () => {
      const r = request();
      const m = careContext(r, 1).bundleData.medications?.[0];
      if (m === undefined) throw new Error('example changed');
      m.instructions = 'खाने के बाद \u2066x\u2069';
      expect(lintLinkRequest(r).map((f) => f.code)).toContain('bidi-control-in-medication');
      m.instructions = 'खाने के बाद, کھانے کے بعد';
      expect(lintLinkRequest(r).map((f) => f.code)).not.toContain('bidi-control-in-medication');
    });
  });

  it.each([
    ['https://asha:s3cret@records.example/rx/1.pdf', true],
    ['https://token@records.example/rx/1.pdf', true],
    ['https://records.example/rx/1.pdf?user=a@b', false],
    ['https://records.example/rx/a@b.pdf', false],
  ])('warns about credentials inside documentUrl %s: %s', (url, warned) => {
    const r = request();
    careContext(r, 2).bundleData.documentUrl = url;
    const found = lintLinkRequest(r).filter((f) => f.code === 'document-url-credentials');
    expect(found.map((f) => [f.path, f.severity])).toEqual(warned ? [['/careContexts/2/bundleData/documentUrl', 'warning']] : []);
    expect(JSON.stringify(found)).not.toContain('s3cret');
  });

  it.each([
    ['a 256-character referenceNumber', 'referenceNumber', 'R'.repeat(256), 'reference-number-too-long'],
    ['a referenceNumber with #', 'referenceNumber', 'OPD#42', 'reference-number-characters'],
    ['a referenceNumber with a quote', 'referenceNumber', "OPD'42", 'reference-number-characters'],
    ['a 256-character display', 'display', 'D'.repeat(256), 'display-too-long'],
    ['a display in Devanagari', 'display', 'पर्चा 20 नवंबर', 'display-characters'],
    ['a display with a newline', 'display', 'Prescription\n20 Nov', 'display-characters'],
    ['a display with &', 'display', 'Tests & results', 'display-characters'],
  ] as const)('flags %s', (_, field, value, code) => {
    const r = request();
    careContext(r, 0)[field] = value;
    expect(codes(r)).toEqual([[`/careContexts/0/${field}`, code, 'error']]);
  });

  it('accepts the characters ABDM allows', () => {
    const r = request();
    careContext(r, 0).referenceNumber = 'A-b_1@x,y. (z)/w:v\\u';
    careContext(r, 0).display = `OP visit, "Dr. A's" clinic | 20/11/2026 (OPD) - ok_1@x`;
    expect(codes(r)).toEqual([]);
  });

  it.each(['asha@sbx', 'asha.verma@abdm', 'asha_v1@sbx', 'a.b_c9@abdm'])('accepts the ABHA address %s', (address) => {
    const r = request();
    r.abhaAddress = address;
    expect(codes(r)).toEqual([]);
  });

  it.each(['asha.verma', 'asha@gmail.com', '.asha@sbx', 'asha.@abdm', 'as ha@sbx', '@sbx', 'asha@SBX', 'ab@sbx'])('flags the ABHA address %j', (address) => {
    const r = request();
    r.abhaAddress = address;
    expect(codes(r)).toEqual([['/abhaAddress', 'abha-address-shape', 'error']]);
  });

  it('accepts other ABHA address suffixes when configured', () => {
    const r = request();
    r.abhaAddress = 'asha@ndhm';
    expect(codes(r, { abhaAddressSuffixes: ['ndhm'] })).toEqual([]);
  });

  it.each(['http://x.example/a.pdf', 'ftp://x.example/a.pdf', 'javascript:alert(1)', 'file:///etc/passwd'])('flags the documentUrl %s', (url) => {
    const r = request();
    careContext(r, 2).bundleData.documentUrl = url;
    expect(codes(r)).toEqual([['/careContexts/2/bundleData/documentUrl', 'document-url-not-https', 'error']]);
  });

  it('warns about a doctor without registration number or HPR id', () => {
    const r = request();
    careContext(r, 0).bundleData.doctor = { name: 'Dr. Farah Siddiqui' };
    expect(codes(r)).toEqual([['/careContexts/0/bundleData/doctor', 'doctor-without-identifier', 'warning']]);
  });

  it('warns when the hospital id differs from hipId', () => {
    const r = request();
    careContext(r, 0).bundleData.hospital.id = 'IN0710000790';
    expect(codes(r)).toEqual([['/careContexts/0/bundleData/hospital/id', 'hospital-id-differs-from-hip-id', 'warning']]);
  });

  it('skips disabled rules', () => {
    const r = request();
    r.abhaAddress = 'asha@gmail.com';
    expect(codes(r, { disable: ['abha-address-shape'] })).toEqual([]);
  });

  it('never puts request values in messages', () => {
    const r = request();
    r.abhaAddress = 'secret.patient@gmail.com';
    careContext(r, 0).display = 'Secret-Diagnosis & more';
    const text = JSON.stringify(lintLinkRequest(r));
    expect(text).not.toContain('secret.patient');
    expect(text).not.toContain('Secret-Diagnosis');
  });

  it('can report every documented code, and nothing undocumented', () => {
    const r = request();
    r.abhaAddress = 'x';
    r.visitDate = '2026-12-01';
    const [op, rx, report] = [careContext(r, 0), careContext(r, 1), careContext(r, 2)];
    op.hiType = 'HealthDocumentRecord';
    op.referenceNumber = `R#${'x'.repeat(300)}`;
    op.display = `D&${'x'.repeat(300)}`;
    op.bundleData.doctor = { name: 'Dr. Farah Siddiqui' };
    op.bundleData.hospital.id = 'IN0710000790';
    op.bundleData.diagnosis = [
      { diagnosisName: 'A', icdCode: 'nonsense' },
      { diagnosisName: 'B', icdCode: 'S72.001A' },
    ];
    delete rx.bundleData.medications;
    rx.bundleData.advice = 'Rest';
    report.referenceNumber = rx.referenceNumber;
    const meds = [{ drugName: 'ORS sachet' }, { drugName: 'ORS\u202E sachet', dosage: '1', frequency: 'alternate days after dialysis' }, { drugName: 'ORS', dosage: '1', frequency: '0-0-0' }];
    r.careContexts.push(
      { ...structuredClone(report), referenceNumber: 'EMPTY-REPORT', hiType: 'DiagnosticReport', bundleData: { hospital: report.bundleData.hospital, doctor: report.bundleData.doctor } },
      { ...structuredClone(rx), referenceNumber: 'ODD-TYPE', hiType: 'Prescriptions', bundleData: { ...structuredClone(rx.bundleData), medications: meds } },
    );
    expect(validateLinkRequest(r).success).toBe(true);
    report.bundleData.documentUrl = 'http://user:pw@x.example/a.pdf';
    const found = new Set(lintLinkRequest(r, { now: new Date('2026-11-21T12:00:00Z') }).map((f) => f.code));
    // abha-number-shape, medication-without-generic-name and the observation and invoice rules are about the clinical input (lintClinicalInput), not the request.
    const inputOnly = new Set<string>([
      'abha-number-shape',
      'discharge-summary-without-stay',
      'immunization-record-without-immunizations',
      'clinical-content-outside-hi-type',
      'observations-outside-wellness-record',
      'invoice-outside-invoice-record',
      'wellness-record-without-observations',
      'invoice-record-without-invoice',
      'invoice-line-arithmetic',
      'invoice-total-arithmetic',
      'medication-without-generic-name',
      'hi-type-inferred',
    ]);
    const documented = LINT_RULES.map((rule) => rule.code).filter((c) => c !== 'empty-care-contexts' && !inputOnly.has(c));
    expect([...found].sort()).toEqual([...documented].sort());
    expect(lintLinkRequest({ ...r, careContexts: [] }).map((f) => f.code)).toContain('empty-care-contexts');
    expect(LINT_RULES.every((rule) => rule.description.length > 0)).toBe(true);
  });
});

describe('lintClinicalInput', () => {
  const input = (): ClinicalInput => JSON.parse(readFileSync(new URL('../examples/opd-prescription.input.json', import.meta.url), 'utf8')) as ClinicalInput;

  it.each(['91-1234-5678-9012', '91123456789012', ' 91-1234-5678-9012 '])('accepts the ABHA number %s', (n) => {
    const i = input();
    i.patient.ABHANumber = n;
    expect(lintClinicalInput(i)).toEqual([]);
  });

  it.each(['5555', '77-8888-9999-000', '77-8888-99990000', '77 8888 9999 0000x', 'asha.verma@sbx'])('warns about %s, which is not of the 14-digit shape', (n) => {
    const i = input();
    i.patient.ABHANumber = n;
    const found = lintClinicalInput(i);
    expect(found.map((f) => [f.path, f.code, f.severity])).toEqual([['/patient/ABHANumber', 'abha-number-shape', 'warning']]);
    expect(JSON.stringify(found)).not.toContain(n.trim());
  });

  it('runs in build: the warning points into the input and the request is still built', () => {
    const i = input();
    i.patient.ABHANumber = '12-34';
    const r = safeBuildLinkRequest(i);
    expect(r.success).toBe(true);
    if (r.success) expect(r.warnings.map((w) => [w.path, w.code])).toContainEqual(['/patient/ABHANumber', 'abha-number-shape']);
    expect(() => buildLinkRequest(i, { lint: { disable: ['abha-number-shape'] } })).not.toThrow();
    const off = safeBuildLinkRequest(i, { lint: { disable: ['abha-number-shape'] } });
    expect(off.success && off.warnings.map((w) => w.code)).not.toContain('abha-number-shape');
  });

  it('warns in build about a frequency it keeps as written, at the input path', () => {
    const i = input();
    const m = i.medications?.[0];
    if (m === undefined) throw new Error('example changed');
    m.frequency = 'alternate days after dialysis';
    const r = safeBuildLinkRequest(i);
    expect(r.success && r.warnings.map((w) => [w.path, w.code])).toEqual([['/medications/0/frequency', 'frequency-not-understood']]);
  });

  it('refuses in build a frequency with no dose at all (0-0-0), at the input path, and builds nothing', () => {
    const i = input();
    const m = i.medications?.[0];
    if (m === undefined) throw new Error('example changed');
    m.frequency = '0-0-0';
    const r = safeBuildLinkRequest(i);
    expect(r.success).toBe(false);
    if (!r.success) expect(r.issues.filter((f) => f.severity === 'error').map((f) => [f.path, f.code])).toEqual([['/medications/0/frequency', 'frequency-without-dose']]);
    expect(() => buildLinkRequest(i)).toThrow(/frequency/);
  });

  it("refuses 0-0-0 in a care context of a clinical input at that care context's input path", () => {
    const i = input();
    const { medications, diagnosis, hiType, ...rest } = i;
    const withCc: ClinicalInput = {
      ...rest,
      careContexts: [{ hiType: hiType ?? 'Prescription', diagnosis: diagnosis ?? [], medications: [{ ...(medications?.[0] ?? { drugName: 'x' }), frequency: '0-0-0' }] }],
    };
    const r = safeBuildLinkRequest(withCc);
    expect(!r.success && r.issues.filter((f) => f.code === 'frequency-without-dose').map((f) => f.path)).toEqual(['/careContexts/0/medications/0/frequency']);
  });
});

describe('lintClinicalInput: hiType vs the discharge and immunisation content', () => {
  const base = (): ClinicalInput => ({
    hospital: { name: 'Green Valley Hospital', id: 'IN0710000789' },
    doctor: { name: 'Dr. Arjun Mehta', licNumber: 'DMC-80412' },
    patient: { abhaAddress: 'rahul.sharma@sbx' },
    visit: { id: 'IPD-1', at: '2026-11-18T11:00:00+05:30' },
  });

  it('warns about a DischargeSummary with neither an inpatient stay nor a document, at its inpatientStay', () => {
    const found = lintClinicalInput({ ...base(), hiType: 'DischargeSummary', medications: [{ drugName: 'Paracetamol 650 mg', genericName: 'Paracetamol' }] });
    expect(found.map((f) => [f.path, f.code, f.severity])).toEqual([['/inpatientStay', 'discharge-summary-without-stay', 'warning']]);
  });

  it('accepts a DischargeSummary with an inpatient stay, or one that is only the scanned summary', () => {
    expect(lintClinicalInput({ ...base(), hiType: 'DischargeSummary', inpatientStay: { admittedAt: '2026-11-15' } })).toEqual([]);
    expect(lintClinicalInput({ ...base(), hiType: 'DischargeSummary', documentUrl: 'https://emr.example/ds.pdf' })).toEqual([]);
  });

  it('warns about an ImmunizationRecord without immunizations inside careContexts, at its own path', () => {
    const input: ClinicalInput = {
      ...base(),
      careContexts: [
        { hiType: 'OPConsultation', advice: 'Rest' },
        { hiType: 'ImmunizationRecord', advice: 'Paracetamol if fever' },
      ],
    };
    expect(lintClinicalInput(input).map((f) => [f.path, f.code])).toEqual([['/careContexts/1/immunizations', 'immunization-record-without-immunizations']]);
    const given: ClinicalInput = { ...base(), careContexts: [{ hiType: 'ImmunizationRecord', immunizations: [{ vaccine: 'BCG', date: '2026-11-18' }] }] };
    expect(lintClinicalInput(given)).toEqual([]);
  });

  it('warns about a stay or immunisations in a care context whose hiType has no place for them, at each field', () => {
    const stay = { admittedAt: '2026-11-15' };
    const input: ClinicalInput = {
      ...base(),
      careContexts: [
        {
          hiType: 'Prescription',
          medications: [{ drugName: 'X', genericName: 'X', dosage: '1 tablet', frequency: 'OD' }],
          inpatientStay: stay,
          immunizations: [{ vaccine: 'BCG', date: '2026-11-18' }],
        },
        { hiType: 'DischargeSummary', inpatientStay: stay },
        { inpatientStay: stay },
      ],
    };
    expect(lintClinicalInput(input).map((f) => [f.path, f.code, f.severity])).toEqual([
      ['/careContexts/0/inpatientStay', 'clinical-content-outside-hi-type', 'warning'],
      ['/careContexts/0/immunizations', 'clinical-content-outside-hi-type', 'warning'],
      ['/careContexts/2/hiType', 'hi-type-inferred', 'information'],
    ]);
  });

  it('runs in build, which still builds the request, and can be disabled', () => {
    const input: ClinicalInput = { ...base(), hiType: 'ImmunizationRecord', advice: 'Paracetamol if fever' };
    const r = safeBuildLinkRequest(input);
    expect(r.success && r.warnings.map((w) => w.code)).toEqual(['immunization-record-without-immunizations']);
    const off = safeBuildLinkRequest(input, { lint: { disable: ['immunization-record-without-immunizations'] } });
    expect(off.success && off.warnings).toEqual([]);
  });
});

describe('medication-without-generic-name', () => {
  const base = JSON.parse(readFileSync(new URL('../examples/opd-prescription.input.json', import.meta.url), 'utf8')) as ClinicalInput;
  it('warns, never errs, for each medication of a clinical input that has no generic name', () => {
    const ci = structuredClone(base);
    const meds = ci.medications ?? [];
    delete meds[1]?.genericName;
    const found = lintClinicalInput(ci).filter((f) => f.code === 'medication-without-generic-name');
    expect(found).toEqual([expect.objectContaining({ path: '/medications/1', severity: 'warning' })]);
  });
  it('says nothing when every medication has its generic name', () => {
    expect(lintClinicalInput(base).filter((f) => f.code === 'medication-without-generic-name')).toEqual([]);
  });
});

describe('hi-type-inferred: an hiType chosen from the content is reported, with the reason', () => {
  const base = (): ClinicalInput => ({
    hospital: { name: 'City Care Clinic', id: 'IN2910000123' },
    doctor: { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678' },
    patient: { abhaAddress: 'asha.verma@sbx' },
    visit: { id: 'OPD-7', at: '2026-11-20T10:30:00+05:30' },
  });
  const medication = { drugName: 'Cetirizine 10 mg', genericName: 'Cetirizine', dosage: '1 tablet', frequency: 'HS' };
  const inferred = (input: ClinicalInput) => lintClinicalInput(input).filter((f) => f.code === 'hi-type-inferred');

  it('says nothing when the caller gives the hiType', () => {
    expect(inferred({ ...base(), hiType: 'Prescription', medications: [medication] })).toEqual([]);
    expect(inferred({ ...base(), careContexts: [{ hiType: 'OPConsultation', medications: [medication], advice: 'Steam inhalation twice a day' }] })).toEqual([]);
  });

  it('reports, as information at /careContexts/N/hiType, that advice beside a prescription made it an OPConsultation, and how to choose Prescription', () => {
    const found = inferred({
      ...base(),
      careContexts: [
        { hiType: 'Prescription', medications: [medication] },
        { medications: [medication], advice: 'Steam inhalation twice a day' },
      ],
    });
    expect(found.map((f) => [f.path, f.severity])).toEqual([['/careContexts/1/hiType', 'information']]);
    const message = found[0]?.message ?? '';
    expect(message).toContain('OPConsultation was chosen');
    expect(message).toContain('it has medications, but also advice, which hiType Prescription has no place for');
    expect(message).toContain('"hiType": "Prescription"');
  });

  it('reports the plain choice too (medications alone make a Prescription), at /hiType for top-level content; a blank hiType counts as not given', () => {
    const found = inferred({ ...base(), hiType: '  ', medications: [medication] });
    expect(found.map((f) => [f.path, f.severity])).toEqual([['/hiType', 'information']]);
    expect(found[0]?.message).toMatch(/^hiType is not given, so Prescription was chosen from the content: it has medications;/);
  });

  it('names the content that chose the fallback when no more specific type applies', () => {
    const found = inferred({ ...base(), careContexts: [{ labInvestigations: [{ testName: 'Complete blood count' }] }] });
    expect(found[0]?.message).toContain('OPConsultation was chosen from the content: it has labInvestigations, and none of');
  });

  it('never quotes a value of the input', () => {
    const secret = 'Tab. Secretol 5 mg for Asha';
    const messages = inferred({ ...base(), careContexts: [{ medications: [{ ...medication, drugName: secret }], advice: secret }] }).map((f) => f.message);
    expect(messages).toHaveLength(1);
    expect(messages.join('\n')).not.toContain('Secretol');
  });

  it('does not stop a build: the request is built and the information comes back beside it, and it can be disabled', () => {
    const input: ClinicalInput = { ...base(), medications: [medication], advice: 'Steam inhalation twice a day' };
    const r = safeBuildLinkRequest(input);
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.value.careContexts[0]?.hiType).toBe('OPConsultation');
    expect(r.warnings.map((w) => [w.path, w.code, w.severity])).toEqual([['/hiType', 'hi-type-inferred', 'information']]);
    const off = safeBuildLinkRequest(input, { lint: { disable: ['hi-type-inferred'] } });
    expect(off.success && off.warnings).toEqual([]);
  });
});
