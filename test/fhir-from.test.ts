/**
 * FHIR in (fromFhir): a typical EMR export maps in without silent loss;
 * round trips FHIR → clinical input → FHIR and back; a hostile-input corpus.
 */
import { describe, expect, it } from 'vitest';
import { buildLinkRequest, type ClinicalInput, type Issue } from '../src/index.js';
import { fromFhir, toFhirBundles, validateFhirBundle, type Bundle, type FhirResource } from '../src/fhir/index.js';
import { DATATYPES, PRIMITIVES, RESOURCES, type ElementDef } from '../src/fhir/structure.js';
import { ATTACHMENTS, EXAMPLES, bundlesOf, deepFreeze, example, fixture } from './fhir-helpers.js';

const emr = (): Bundle => fixture('emr-export.bundle.json') as Bundle;

function valueOf(r: ReturnType<typeof fromFhir>): { value: ClinicalInput; warnings: readonly Issue[] } {
  if (!r.success) expect.fail(`expected success, got ${JSON.stringify(r.issues, null, 2)}`);
  return { value: r.value, warnings: r.warnings };
}

describe('fromFhir on a typical EMR export', () => {
  it('maps patient, doctor, hospital, visit, diagnoses, medications, labs and the document', () => {
    const { value } = valueOf(fromFhir(emr()));
    expect(value).toEqual({
      hospital: { name: 'Sanjeevani Family Clinic', id: 'IN2910000123', phone: '080-41234567', email: 'frontdesk@sanjeevani-clinic.example' },
      doctor: { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678', hpId: '71-2665-5777-2713', qualification: 'MBBS, MD (General Medicine)' },
      patient: {
        abhaAddress: 'asha.verma@sbx',
        ABHANumber: '91-4455-6677-8899',
        name: 'Asha Verma',
        gender: 'F',
        birthDate: '1978-03-14',
        mobile: '9800000042',
        address: 'Bengaluru, Karnataka, 560011, IN',
      },
      visit: { id: 'OPD-2026-0042', at: '2026-11-20T10:30:00+05:30' },
      documentUrl: 'https://emr.sanjeevani.example/docs/OPD-2026-0042.pdf',
      diagnosis: [
        { diagnosisName: 'Type 2 diabetes mellitus without complications', icdCode: 'E11.9', icdTitle: 'Type 2 diabetes mellitus without complications', status: 'confirmed' },
        // Issue 23 item 4: the EMR's SNOMED CT coding is kept as the diagnosis's snomed, never turned into icdCode.
        { diagnosisName: 'Acute upper respiratory infection', snomed: { code: '54150009', display: 'Upper respiratory infection' }, status: 'provisional' },
      ],
      medications: [
        {
          drugName: 'Metformin 500 mg tablet',
          frequency: 'Twice a day (BD)',
          duration: '30 days',
          dosage: '1 tablet',
          instructions: '1 tablet twice a day after food for 30 days; after food',
          route: 'Oral Route',
        },
        { drugName: 'Paracetamol 650 mg tablet', frequency: 'When required (SOS)', duration: '3 days', dosage: '1 tablet', instructions: 'for fever above 100 F, at least 6 hours apart' },
      ],
      labInvestigations: [{ testName: 'HbA1c' }, { testName: 'Fasting blood sugar', instructions: '10 hours fasting' }],
    });
    expect(() => buildLinkRequest(value)).not.toThrow();
  });

  it('reports everything it leaves out, with its FHIR path, and never turns a SNOMED code into icdCode', () => {
    const { value, warnings } = valueOf(fromFhir(emr()));
    expect(warnings.every((w) => w.severity === 'warning')).toBe(true);
    expect(warnings.map((w) => [w.path, w.code])).toEqual([
      ['/entry/0/resource/identifier/2', 'not-mapped'],
      ['/entry/2/resource/telecom/2', 'not-mapped'],
      ['/entry/3/resource/period/end', 'not-mapped'],
      ['/entry/3/resource/reasonCode', 'not-mapped'],
      ['/entry/4/resource/clinicalStatus', 'not-mapped'],
      ['/entry/5/resource/onsetDateTime', 'not-mapped'],
      ['/entry/6/resource', 'entered-in-error'],
      ['/entry/7/resource/dosageInstruction/0/route/coding/0', 'not-mapped'],
      ['/entry/7/resource/dispenseRequest', 'not-mapped'],
      ['/entry/8/resource/dosageInstruction/0/timing/repeat/timeOfDay', 'not-mapped'],
      ['/entry/9/resource/status', 'inactive-request'],
      ['/entry/11/resource/specimen', 'not-mapped'],
      ['/entry/12/resource/content/0/attachment/contentType', 'not-mapped'],
      ['/entry/12/resource/content/0/attachment/title', 'not-mapped'],
      ['/entry/13/resource', 'resource-not-mapped'],
      ['/entry/14/resource', 'resource-not-mapped'],
    ]);
    expect(value.diagnosis?.[1]?.icdCode).toBeUndefined();
  });

  describe('accounts for every element of every resource: each one is mapped, bookkeeping, or reported', () => {
    // Bookkeeping: elements that say nothing the clinical input could lose (ids, links between the resources, the
    // narrative, an active record). Removing or adding one of them may change nothing; any other element must
    // change the output or the warnings when it is removed or added.
    const BOOKKEEPING: Readonly<Record<string, readonly string[]>> = {
      '*': ['id', 'meta', 'implicitRules', 'language', 'text'],
      Patient: ['active'],
      Practitioner: ['active'],
      Organization: ['active'],
      Encounter: ['status', 'subject', 'serviceProvider'],
      Condition: ['identifier', 'subject', 'encounter', 'recordedDate', 'recorder', 'asserter'],
      MedicationRequest: ['identifier', 'subject', 'encounter', 'requester', 'recorder', 'groupIdentifier'],
      ServiceRequest: ['identifier', 'subject', 'encounter', 'requester'],
      DocumentReference: ['identifier', 'masterIdentifier', 'subject', 'author', 'custodian'],
      Dosage: ['sequence'],
      Attachment: ['size', 'hash', 'data'], // data beside a url: the same document's bytes
    };
    // Bookkeeping only with the value the fixture has (an ambulatory class, an order, a request on the visit day, a
    // lab category, the chosen doctor as participant…): removing it changes nothing, adding another value must.
    const ONLY_AS_GIVEN: Readonly<Record<string, readonly string[]>> = {
      Encounter: ['class', 'participant'],
      Condition: ['category'],
      MedicationRequest: ['status', 'intent', 'authoredOn', 'contained', 'reasonReference'],
      ServiceRequest: ['status', 'intent', 'authoredOn', 'category'],
      DocumentReference: ['status'],
      Participant: ['individual'],
      Repeat: ['period'],
    };
    const bookkeeping = (type: string, key: string): boolean => [...(BOOKKEEPING['*'] ?? []), ...(BOOKKEEPING[type] ?? [])].includes(key);

    /** A plausible value of an element's type, which says something (a code "x", a date far from the visit). */
    function sample(type: ElementDef['type']): unknown {
      if (typeof type !== 'string') {
        const [k, def] = Object.entries(type)[0] ?? [];
        return k === undefined || def === undefined ? {} : { [k]: one(def) };
      }
      switch (type) {
        case 'boolean':
          return true;
        case 'integer':
        case 'positiveInt':
        case 'unsignedInt':
        case 'decimal':
          return 2;
        case 'date':
          return '2001-01-01';
        case 'dateTime':
        case 'instant':
          return '2001-01-01T00:00:00+05:30';
        case 'time':
          return '07:00:00';
        case 'base64Binary':
          return 'AAAA';
        case 'uri':
        case 'url':
        case 'canonical':
          return 'https://other.example/x';
        case 'Resource':
          return { resourceType: 'Basic', id: 'extra' };
        case 'Extension':
          return { url: 'https://other.example/ext', valueString: 'extra' };
        case 'Reference':
          return { reference: 'Basic/elsewhere', display: 'extra' };
        case 'Coding':
          return { system: 'https://other.example/cs', code: 'x', display: 'extra' };
        case 'Narrative':
          return { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">extra</div>' };
        case 'Quantity':
        case 'Duration':
        case 'Age':
          return { value: 2, unit: 'mg' };
        case 'Range':
          return { low: { value: 1, unit: 'mg' }, high: { value: 2, unit: 'mg' } };
        case 'Ratio':
          return { numerator: { value: 1, unit: 'mg' }, denominator: { value: 1, unit: 'd' } };
        case 'Timing':
          return { code: { text: 'extra' } };
        case 'Annotation':
          return { text: 'extra' };
        default:
          break;
      }
      if (PRIMITIVES.has(type)) return 'x';
      const def = DATATYPES[type];
      if (def === undefined) return 'x';
      if ('text' in def) return { text: 'extra' };
      if ('value' in def) return { value: 'extra' };
      return sample(def);
    }
    const one = (def: ElementDef): unknown => (def.max > 1 ? [sample(def.type)] : sample(def.type));

    /** Where to add and remove: each resource, and the nested structures where data hides (dosage, attachment, participant). */
    function places(b: Bundle): Array<{ label: string; type: string; target: Record<string, unknown>; defs: Readonly<Record<string, ElementDef>> }> {
      const out: Array<{ label: string; type: string; target: Record<string, unknown>; defs: Readonly<Record<string, ElementDef>> }> = [];
      (b.entry ?? []).forEach((en, i) => {
        const r = en.resource as unknown as Record<string, unknown>;
        const type = r.resourceType as string;
        const defs = RESOURCES[type];
        if (defs === undefined) return;
        out.push({ label: `/entry/${i}/resource`, type, target: r, defs });
        const dosage = (r.dosageInstruction as Array<Record<string, unknown>> | undefined)?.[0];
        if (dosage !== undefined) {
          out.push({ label: `/entry/${i}/resource/dosageInstruction/0`, type: 'Dosage', target: dosage, defs: DATATYPES.Dosage as Readonly<Record<string, ElementDef>> });
          const repeat = (dosage.timing as { repeat?: Record<string, unknown> } | undefined)?.repeat;
          const repeatDef = (DATATYPES.Timing?.repeat?.type ?? {}) as Readonly<Record<string, ElementDef>>;
          if (repeat !== undefined) out.push({ label: `/entry/${i}/resource/dosageInstruction/0/timing/repeat`, type: 'Repeat', target: repeat, defs: repeatDef });
        }
        const content = (r.content as Array<Record<string, unknown>> | undefined)?.[0];
        if (type === 'DocumentReference' && content !== undefined) {
          out.push({ label: `/entry/${i}/resource/content/0`, type: 'Content', target: content, defs: defs.content?.type as Readonly<Record<string, ElementDef>> });
          out.push({
            label: `/entry/${i}/resource/content/0/attachment`,
            type: 'Attachment',
            target: content.attachment as Record<string, unknown>,
            defs: DATATYPES.Attachment as Readonly<Record<string, ElementDef>>,
          });
        }
        const participant = (r.participant as Array<Record<string, unknown>> | undefined)?.[0];
        if (type === 'Encounter' && participant !== undefined)
          out.push({ label: `/entry/${i}/resource/participant/0`, type: 'Participant', target: participant, defs: defs.participant?.type as Readonly<Record<string, ElementDef>> });
      });
      return out;
    }
    const outcome = (b: Bundle): string => JSON.stringify(fromFhir(b));
    const full = outcome(emr());
    // Resources left out whole (entered in error, cancelled, not mapped) are reported as such; their elements are not read.
    const leftOut = valueOf(fromFhir(emr()))
      .warnings.filter((w) => ['entered-in-error', 'inactive-request', 'resource-not-mapped'].includes(w.code))
      .map((w) => /^\/entry\/\d+\/resource/.exec(w.path)?.[0]);
    const read = (label: string): boolean => !leftOut.some((l) => l !== undefined && (label === l || label.startsWith(`${l}/`)));

    it('removing any element that is not bookkeeping changes the output or the warnings', () => {
      const silent: string[] = [];
      places(emr()).forEach(({ label, type, target }, n) => {
        if (!read(label)) return;
        for (const key of Object.keys(target)) {
          if (key === 'resourceType' || bookkeeping(type, key) || (ONLY_AS_GIVEN[type] ?? []).includes(key)) continue;
          const b = emr();
          delete places(b)[n]?.target[key];
          if (outcome(b) === full) silent.push(`${label}/${key}`);
        }
      });
      expect(silent).toEqual([]);
    });

    it('adding any element FHIR R4 defines that is not bookkeeping changes the output or the warnings', () => {
      const silent: string[] = [];
      let tried = 0;
      places(emr()).forEach(({ label, type, target, defs }, n) => {
        if (!read(label)) return;
        for (const [key, def] of Object.entries(defs)) {
          if (key in target || bookkeeping(type, key)) continue;
          const b = emr();
          const place = places(b)[n];
          if (place === undefined) continue;
          place.target[key] = one(def);
          tried++;
          if (outcome(b) === full) silent.push(`${label}/${key}`);
        }
      });
      expect(tried).toBeGreaterThan(250);
      expect(silent).toEqual([]);
    });
  });

  it('takes a plain array of resources as well as a Bundle, with paths into the array', () => {
    const resources = (emr().entry ?? []).map((e) => e.resource as FhirResource);
    const r = valueOf(fromFhir(resources));
    expect(r.value).toEqual(valueOf(fromFhir(emr())).value);
    expect(r.warnings[0]?.path).toBe('/0/identifier/2');
  });

  it('does not mutate its input', () => {
    expect(fromFhir(deepFreeze(emr())).success).toBe(true);
  });

  it('fills what FHIR does not say from defaults, and fails with the FHIR path when the ABHA address is missing', () => {
    const b = emr();
    const patient = b.entry?.[0]?.resource as unknown as { identifier: unknown[] };
    patient.identifier = patient.identifier.slice(1);
    const r = fromFhir(b);
    expect(r.success).toBe(false);
    expect(r.success ? [] : r.issues.filter((i) => i.severity === 'error')).toEqual([
      { path: '/entry/0/resource/identifier', code: 'abha-address-missing', message: expect.stringContaining('defaults.patient.abhaAddress'), severity: 'error' },
    ]);
    const ok = valueOf(fromFhir(b, { defaults: { patient: { abhaAddress: 'asha.v@abdm' }, hiType: 'OPConsultation' } }));
    expect(ok.value.patient.abhaAddress).toBe('asha.v@abdm');
    expect(ok.value.hiType).toBe('OPConsultation');
  });

  it('moves schema issues of the clinical input back to the FHIR element they came from', () => {
    const b = emr();
    (b.entry?.[10]?.resource as unknown as { code: { text: string } }).code.text = 'x'.repeat(300);
    const r = fromFhir(b);
    expect(r.success ? [] : r.issues.filter((i) => i.severity === 'error').map((i) => [i.path, i.code])).toEqual([['/entry/10/resource/code', 'too-long']]);
  });

  it('reads structured timings it has no text for in words, and reports what it cannot say', () => {
    const mr = {
      resourceType: 'MedicationRequest',
      status: 'active',
      intent: 'order',
      medicationCodeableConcept: { coding: [{ system: 'http://snomed.info/sct', code: '1145423002', display: 'Azithromycin 250 mg oral tablet' }] },
      subject: { reference: 'Patient/p' },
      dosageInstruction: [
        {
          timing: { repeat: { frequency: 1, period: 8, periodUnit: 'h', dayOfWeek: ['mon'] } },
          doseAndRate: [{ doseRange: { low: { value: 1, unit: 'tablet' }, high: { value: 2, unit: 'tablets' } } }],
        },
      ],
    };
    const r = fromFhir([...(emr().entry ?? []).slice(0, 4).map((e) => e.resource as FhirResource), mr as FhirResource]);
    const { value, warnings } = valueOf(r);
    expect(value.medications).toEqual([{ drugName: 'Azithromycin 250 mg oral tablet', frequency: 'Once every 8 hours', dosage: '1 tablet to 2 tablets' }]);
    expect(warnings.map((w) => w.path)).toContain('/4/dosageInstruction/0/timing/repeat/dayOfWeek');
    expect(warnings.map((w) => w.path)).toContain('/4/medicationCodeableConcept/coding/0');
  });

  it('leaves out drafts, proposals and plans, and replaced or mistaken documents, each with a warning', () => {
    const people = (emr().entry ?? []).slice(0, 4).map((e) => e.resource as FhirResource);
    const mr = (extra: Record<string, unknown>): FhirResource =>
      ({
        resourceType: 'MedicationRequest',
        status: 'active',
        intent: 'order',
        medicationCodeableConcept: { text: 'Aspirin' },
        subject: { reference: 'Patient/p' },
        ...extra,
      }) as unknown as FhirResource;
    const sr = (extra: Record<string, unknown>): FhirResource =>
      ({ resourceType: 'ServiceRequest', status: 'active', intent: 'order', code: { text: 'HbA1c' }, subject: { reference: 'Patient/p' }, ...extra }) as unknown as FhirResource;
    const dr = (status: string): FhirResource => ({ resourceType: 'DocumentReference', status, content: [{ attachment: { url: 'https://emr.example/d.pdf' } }] }) as unknown as FhirResource;
    const cases: Array<[FhirResource, string, string]> = [
      [mr({ status: 'draft' }), '/4/status', 'draft-request'],
      [mr({ intent: 'plan' }), '/4/intent', 'not-an-order'],
      [mr({ intent: 'proposal' }), '/4/intent', 'not-an-order'],
      [sr({ status: 'draft' }), '/4/status', 'draft-request'],
      [dr('entered-in-error'), '/4/status', 'entered-in-error'],
      [dr('superseded'), '/4/status', 'superseded'],
    ];
    for (const [resource, path, code] of cases) {
      const r = valueOf(fromFhir([...people, resource]));
      expect(r.value.medications, code).toBeUndefined();
      expect(r.value.labInvestigations, code).toBeUndefined();
      expect(r.value.documentUrl, code).toBeUndefined();
      expect(r.warnings.map((w) => [w.path, w.code])).toContainEqual([path, code]);
    }
    for (const intent of ['order', 'original-order', 'instance-order']) expect(valueOf(fromFhir([...people, mr({ intent })])).value.medications).toEqual([{ drugName: 'Aspirin' }]);
    const current = valueOf(fromFhir([...people, dr('current')]));
    expect(current.value.documentUrl).toBe('https://emr.example/d.pdf');
  });

  it('reports a request written on another day than the visit, and another doctor taking part in the visit', () => {
    const b = emr();
    (b.entry?.[7]?.resource as unknown as Record<string, unknown>).authoredOn = '2026-10-01';
    const enc = b.entry?.[3]?.resource as unknown as { participant: unknown[] };
    enc.participant = [...enc.participant, { individual: { reference: 'Practitioner/dr-99' }, type: [{ text: 'referrer' }] }];
    const r = valueOf(fromFhir(b));
    expect(r.warnings.map((w) => [w.path, w.code])).toEqual(
      expect.arrayContaining([
        ['/entry/7/resource/authoredOn', 'not-mapped'],
        ['/entry/3/resource/participant/1', 'not-mapped'],
      ]),
    );
    expect(r.value).toEqual(valueOf(fromFhir(emr())).value);
  });

  it('leaves out what must not be given: doNotPerform requests', () => {
    const mr = { resourceType: 'MedicationRequest', status: 'active', intent: 'order', doNotPerform: true, medicationCodeableConcept: { text: 'Aspirin' }, subject: { reference: 'Patient/p' } };
    const r = valueOf(fromFhir([...(emr().entry ?? []).slice(0, 4).map((e) => e.resource as FhirResource), mr as FhirResource]));
    expect(r.value.medications).toBeUndefined();
    expect(r.warnings.map((w) => w.code)).toContain('do-not-perform');
  });
});

describe('round trips', () => {
  it('FHIR → clinical input → FHIR keeps diagnoses, medications, labs, practitioner and organisation', () => {
    const first = valueOf(fromFhir(emr())).value;
    const [doc] = bundlesOf(toFhirBundles({ ...first, hiType: 'OPConsultation' }, { attachments: { [first.documentUrl as string]: { contentType: 'application/pdf', data: 'JVBERi0xLjQK' } } }));
    const bundle = doc?.bundle as Bundle;
    expect(validateFhirBundle(bundle).success).toBe(true);
    const second = valueOf(fromFhir(bundle));
    // Only the document's content type is lost: the clinical input holds its URL (the bytes are supplied again on the way out).
    const dr = (bundle.entry ?? []).findIndex((e) => e.resource?.resourceType === 'DocumentReference');
    expect(second.warnings.map((w) => [w.path, w.code])).toEqual([[`/entry/${dr}/resource/content/0/attachment/contentType`, 'not-mapped']]);
    expect(second.value.diagnosis).toEqual(first.diagnosis);
    expect(second.value.medications).toEqual(first.medications);
    expect(second.value.labInvestigations).toEqual(first.labInvestigations);
    expect(second.value.doctor).toEqual(first.doctor);
    expect(second.value.hospital).toEqual(first.hospital);
    expect(second.value.patient).toEqual(first.patient);
    expect(second.value.documentUrl).toBe(first.documentUrl);
    expect(second.value.hiType).toBe('OPConsultation');
  });

  for (const name of EXAMPLES)
    it(`${name}: clinical input → FHIR → clinical input gives the same link request`, () => {
      const input = example(name, 'input');
      const expected = buildLinkRequest(input);
      const docs = bundlesOf(toFhirBundles(input, { attachments: ATTACHMENTS }));
      docs.forEach((d, i) => {
        const back = valueOf(fromFhir(d.bundle));
        const cc = expected.careContexts[i];
        const rebuilt = buildLinkRequest({ ...back.value, ...(cc?.referenceNumber !== undefined ? { referenceNumber: cc.referenceNumber, display: cc.display } : {}) });
        const bd = { ...cc?.bundleData };
        // Content the profile has no place for was reported when going out, so it is not expected back.
        if (d.hiType === 'DiagnosticReport') delete bd.labInvestigations;
        expect(rebuilt.careContexts[0]?.bundleData).toEqual(bd);
        expect(rebuilt.careContexts[0]?.hiType).toBe(cc?.hiType);
        expect(rebuilt.visitDate).toBe(expected.visitDate);
        expect(rebuilt.abhaAddress).toBe(expected.abhaAddress);
      });
    });

  it('keeps advice and follow-up through an OPConsultRecord', () => {
    const input = example('lab-order', 'input');
    const [d] = bundlesOf(toFhirBundles({ ...input, visit: { ...input.visit, followUp: 'Review in 1 week\nwith reports' } }));
    const back = valueOf(fromFhir(d?.bundle as Bundle)).value;
    expect(back.advice).toBe(input.advice);
    expect(back.visit.followUp).toBe('Review in 1 week\nwith reports');
  });
});

describe('hostile input', () => {
  const corpus: Array<[string, unknown]> = [
    ['null', null],
    ['a number', 42],
    ['a string', 'Bundle'],
    ['an empty array', []],
    ['an empty object', {}],
    ['not FHIR', fixture('hostile/not-fhir.json')],
    ['wrong types everywhere', fixture('hostile/wrong-types.bundle.json')],
    ['prototype-pollution keys', fixture('hostile/proto-keys.bundle.json')],
    ['prototype member names as values (gender, status, units, event timings)', fixture('hostile/prototype-words.bundle.json')],
    ['references in circles and to nowhere, a script in a narrative', fixture('hostile/references.bundle.json')],
    ['a Bundle whose entry is not an array', { resourceType: 'Bundle', entry: { 0: {} } }],
    [
      'deep nesting',
      (() => {
        const root: Record<string, unknown> = { resourceType: 'Observation' };
        let cur = root;
        for (let i = 0; i < 5000; i++) {
          const next: Record<string, unknown> = {};
          cur.extension = [next];
          cur = next;
        }
        return { resourceType: 'Bundle', type: 'collection', entry: [{ resource: root }] };
      })(),
    ],
    [
      'a cycle (from a JavaScript caller)',
      (() => {
        const p: Record<string, unknown> = { resourceType: 'Patient' };
        p.link = [{ other: p }];
        p.name = [{ given: [p] }];
        return [p];
      })(),
    ],
    [
      'a getter that throws',
      [
        Object.defineProperty({ resourceType: 'Patient' }, 'identifier', {
          enumerable: true,
          get: () => {
            throw new Error('boom');
          },
        }),
      ],
    ],
    ['too many resources', new Array(10_001).fill({ resourceType: 'Basic' })],
  ];

  it.each(corpus)('%s: never throws, answers with issues that carry JSON Pointer paths', (_, input) => {
    let r: ReturnType<typeof fromFhir> | undefined;
    expect(() => {
      r = fromFhir(input as Bundle);
    }).not.toThrow();
    const issues = r === undefined ? [] : r.success ? r.warnings : r.issues;
    for (const i of issues) {
      expect(i.path === '' || i.path.startsWith('/')).toBe(true);
      expect(typeof i.message).toBe('string');
      expect(['error', 'warning']).toContain(i.severity);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(validateFhirBundle(input).success).toBe(false);
  });

  it('reads prototype member names as unknown codes, at their FHIR path, never as Object.prototype members', () => {
    const r = fromFhir(fixture('hostile/prototype-words.bundle.json') as Bundle);
    const { value, warnings } = valueOf(r);
    expect(JSON.stringify(value)).not.toMatch(/function|native code|\[object/);
    expect(value.patient.gender).toBeUndefined();
    expect(value.diagnosis).toEqual([{ diagnosisName: 'Hypertension' }]);
    expect(value.medications).toEqual([{ drugName: 'Metformin 500 mg tablet' }, { drugName: 'Paracetamol 650 mg tablet' }]);
    expect(warnings.map((w) => [w.path, w.code])).toEqual(
      expect.arrayContaining([
        ['/entry/0/resource/gender', 'not-mapped'],
        ['/entry/4/resource/verificationStatus', 'not-mapped'],
        ['/entry/5/resource/dosageInstruction/0/timing/repeat/periodUnit', 'not-mapped'],
        ['/entry/5/resource/dosageInstruction/0/timing/repeat/when', 'not-mapped'],
        ['/entry/5/resource/dosageInstruction/0/timing/repeat/boundsDuration', 'not-mapped'],
        ['/entry/6/resource/dosageInstruction/0/timing/repeat/periodUnit', 'not-mapped'],
        ['/entry/6/resource/dosageInstruction/0/timing/repeat/boundsDuration', 'not-mapped'],
      ]),
    );
    // Each word alone as a Patient gender: a warning at its FHIR path, and the clinical input still builds.
    for (const word of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype']) {
      const b = fixture('hostile/prototype-words.bundle.json') as Bundle;
      (b.entry?.[0]?.resource as unknown as Record<string, unknown>).gender = word;
      const one = valueOf(fromFhir(b));
      expect(one.value.patient.gender, word).toBeUndefined();
      expect(
        one.warnings.filter((w) => w.path === '/entry/0/resource/gender').map((w) => w.code),
        word,
      ).toEqual(['not-mapped']);
    }
  });

  it('keeps planted secrets out of every issue: values never appear, unknown keys only in paths', () => {
    const secret = 'SECRET-ZX81-asha';
    const keySecret = 'KEYSECRET-77';
    const b = emr();
    const p = b.entry?.[0]?.resource as unknown as Record<string, unknown>;
    p.telecom = [{ system: 'phone', value: secret }];
    p.gender = secret;
    (b.entry?.[4]?.resource as unknown as Record<string, unknown>).note = [{ text: secret }];
    (b.entry?.[10]?.resource as unknown as { code: { text: string } }).code.text = `${secret}${'x'.repeat(300)}`;
    (b.entry?.[7]?.resource as unknown as Record<string, unknown>)[keySecret] = secret;
    b.entry?.push({ resource: { resourceType: secret } as unknown as FhirResource });
    const r = fromFhir(b);
    const issues = r.success ? r.warnings : r.issues;
    expect(issues.length).toBeGreaterThan(10);
    expect(JSON.stringify(issues)).not.toContain(secret);
    expect(JSON.stringify(issues)).not.toContain('asha.verma');
    expect(JSON.stringify(issues.map((i) => i.message))).not.toContain(keySecret);
    const v = validateFhirBundle({
      ...b,
      type: 'document',
      entry: [{ fullUrl: secret, resource: { resourceType: 'Patient', gender: secret, [keySecret]: 1 } }, { resource: { resourceType: secret, [keySecret]: [null] } }],
    });
    expect(v.issues.length).toBeGreaterThan(3);
    expect(JSON.stringify(v.issues)).not.toContain(secret);
    expect(JSON.stringify(v.issues.map((i) => i.message))).not.toContain(keySecret);
  });
});
