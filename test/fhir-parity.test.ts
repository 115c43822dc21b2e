/**
 * The parity corpus of docs/fhir.md ("Parity with the HL7 validator"): for
 * every class of rule the HL7 reference validator applies that abha-link
 * checks (the same way or differently), one defect planted in a valid
 * PrescriptionRecord bundle, caught at its path with its code.
 */
import { describe, expect, it } from 'vitest';
import { toFhirBundles, validateFhirBundle } from '../src/fhir/index.js';
import { ATTACHMENTS, example } from './fhir-helpers.js';

type Json = Record<string, any>;

function prescription(): Json {
  const r = toFhirBundles(example('opd-prescription', 'input'), { attachments: ATTACHMENTS });
  if (!r.success) throw new Error('the opd-prescription example must build');
  return structuredClone(r.bundles[r.bundles.length - 1]?.bundle) as Json;
}
const at = (b: Json, type: string): Json => (b.entry as Json[]).find((e) => e.resource.resourceType === type)?.resource as Json;
const E = 'Bundle.entry';

/** Rule class (as in the docs table), the defect, where it must be reported, with which code. */
const CORPUS: Array<[string, (b: Json) => void, string, string]> = [
  ['structure: unknown element', (b) => (at(b, 'Patient').nickname = 'x'), `${E}[1].resource.nickname`, 'unknown-element'],
  ['structure: array where the element repeats', (b) => (at(b, 'Patient').name = at(b, 'Patient').name[0]), `${E}[1].resource.name`, 'type'],
  ['structure: no null, empty string (ele-1)', (b) => (at(b, 'Patient').gender = ''), `${E}[1].resource.gender`, 'empty'],
  ['primitive format', (b) => (at(b, 'Patient').birthDate = '14-03-1978'), `${E}[1].resource.birthDate`, 'type'],
  ['cardinality', (b) => delete b.entry[0].resource.title, `${E}[0].resource.title`, 'required'],
  ['choice types', (b) => (at(b, 'Patient').extension = [{ url: 'https://ehr.example/x', valueInteger: 'one' }]), `${E}[1].resource.extension[0].valueInteger`, 'type'],
  ['fixed and pattern values', (b) => (b.entry[0].resource.section[0].code.coding[0].code = '371530004'), `${E}[0].resource.section[0].code.coding[0].code`, 'fixed-value'],
  ['slicing: closed', (b) => delete b.entry[0].resource.section[0].entry[0].type, `${E}[0].resource.section[0].entry[0].type`, 'closed-slice'],
  [
    'slicing: each item checked against its slice',
    (b) => b.entry[0].resource.section[0].entry.push({ reference: b.entry[0].resource.section[0].entry[0].reference, type: 'Binary' }),
    `${E}[0].resource.section[0].entry[5].type`,
    'wrong-target',
  ],
  ['binding: required (profile)', (b) => (b.entry[0].resource.status = 'done'), `${E}[0].resource.status`, 'binding'],
  ['binding: required (base R4)', (b) => (b.entry[0].resource.text.status = 'bogus'), `${E}[0].resource.text.status`, 'binding'],
  ['invariant (FHIRPath)', (b) => (at(b, 'Patient').contact = [{ gender: 'female' }]), `${E}[1].resource.contact[0]`, 'pat-1'],
  ['invariant (native): dom-3', (b) => (at(b, 'Patient').contained = [{ resourceType: 'Basic', id: 'b1', code: { text: 'x' } }]), `${E}[1].resource.contained[0]`, 'dom-3'],
  [
    'invariant (native): ext-1',
    (b) => (at(b, 'Patient').extension = [{ url: 'https://ehr.example/x', valueString: 'a', extension: [{ url: 'y', valueString: 'b' }] }]),
    `${E}[1].resource.extension[0]`,
    'ext-1',
  ],
  [
    'references: resolution in a document',
    (b) => (b.entry[0].resource.subject.reference = 'urn:uuid:00000000-0000-4000-8000-000000000000'),
    `${E}[0].resource.subject.reference`,
    'unresolved-reference',
  ],
  ['references: target type', (b) => (b.entry[0].resource.custodian = { reference: b.entry[1].fullUrl }), `${E}[0].resource.custodian.reference`, 'wrong-target'],
  ['bundle: fullUrl unique (bdl-7)', (b) => (b.entry[2].fullUrl = b.entry[1].fullUrl), 'Bundle.entry[2].fullUrl', 'bdl-7'],
  ['bundle: document starts with a Composition (bdl-11)', (b) => b.entry.push(b.entry.shift()), `${E}[0].resource`, 'bdl-11'],
  ['narrative: XHTML rules (txt-1, txt-2)', (b) => (b.entry[0].resource.text.div = '<div xmlns="http://www.w3.org/1999/xhtml"><script>x()</script></div>'), `${E}[0].resource.text.div`, 'narrative'],
  ['profiles: the record profile a document implies', (b) => (delete b.entry[0].resource.meta, (b.entry[0].resource.type.coding[0].code = '1234567')), `${E}[0].resource.type`, 'unknown-record-type'],
];

describe('parity with the HL7 validator: one planted defect per rule class', () => {
  it('starts from a valid bundle', () => {
    expect(validateFhirBundle(prescription()).success).toBe(true);
  });

  it.each(CORPUS)('%s', (_rule, plant, path, code) => {
    const b = prescription();
    plant(b);
    const errors = validateFhirBundle(b)
      .issues.filter((i) => i.severity === 'error')
      .map((i) => [i.path, i.code]);
    expect(errors).toContainEqual([path, code]);
  });
});
