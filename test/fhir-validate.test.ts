/**
 * validateFhirBundle on our own bundles with one rule broken each: the document
 * rules no profile expresses (src/fhir/nrces/document.ts: fullUrls, bdl-*,
 * reference integrity), base R4 structure, and the NRCeS rules the earlier
 * hand-written validator had (now all from the profiles), including the peer
 * bugs of reference §10.
 */
import { describe, expect, it } from 'vitest';
import { toFhirBundles, validateFhirBundle, type Bundle } from '../src/fhir/index.js';
import { ATTACHMENTS, bundlesOf, example } from './fhir-helpers.js';

type Json = Record<string, any>;

function bundle(name = 'opd-prescription', hiType?: string): Json {
  const docs = bundlesOf(toFhirBundles(example(name, 'input'), { attachments: ATTACHMENTS, ...(hiType !== undefined ? { hiType } : {}) }));
  return structuredClone(docs[docs.length - 1]?.bundle) as Json;
}
const codes = (b: unknown): Array<[string, string]> =>
  validateFhirBundle(b)
    .issues.filter((i) => i.severity === 'error')
    .map((i) => [i.path, i.code]);
const entryOf = (b: Json, type: string): number => (b.entry as Json[]).findIndex((e) => e.resource.resourceType === type);

describe('validateFhirBundle', () => {
  it('accepts our bundles', () => {
    expect(validateFhirBundle(bundle()).success).toBe(true);
    expect(validateFhirBundle(bundle('multi-care-context')).success).toBe(true);
  });

  it('rejects relative fullUrls, the ABDM-wrapper bug (reference §10.1)', () => {
    const b = bundle();
    const first = b.entry[0];
    const id = first.fullUrl.slice('urn:uuid:'.length);
    first.fullUrl = `Composition/${id}`;
    expect(codes(b)).toContainEqual(['Bundle.entry[0].fullUrl', 'relative-full-url']);
    expect(codes(b)).toContainEqual(['Bundle.entry[0].fullUrl', 'relative-full-url']);
  });

  it('checks reference integrity: every reference resolves inside the document, to the right type', () => {
    const b = bundle();
    b.entry[0].resource.subject.reference = 'urn:uuid:00000000-0000-5000-8000-000000000000';
    expect(codes(b)).toContainEqual(['Bundle.entry[0].resource.subject.reference', 'unresolved-reference']);
    const c = bundle();
    c.entry[0].resource.subject.type = 'Practitioner';
    expect(codes(c)).toContainEqual(['Bundle.entry[0].resource.subject.type', 'wrong-target']);
  });

  it('enforces bdl-7, bdl-9, bdl-10 and bdl-11', () => {
    const b = bundle();
    b.entry[2].fullUrl = b.entry[1].fullUrl;
    delete b.identifier;
    delete b.timestamp;
    b.entry.push(b.entry.shift());
    const c = codes(b);
    expect(c).toContainEqual(['Bundle.identifier', 'bdl-9']);
    expect(c).toContainEqual(['Bundle.timestamp', 'bdl-10']);
    expect(c).toContainEqual(['Bundle.entry[0].resource', 'bdl-11']);
    expect(c).toContainEqual(['Bundle.entry[1].fullUrl', 'bdl-7']);
  });

  it('needs an instant with seconds and a time zone for the timestamp', () => {
    const b = bundle();
    b.timestamp = '2026-11-20T10:30';
    expect(codes(b)).toEqual([['Bundle.timestamp', 'type']]);
    b.timestamp = '2026-11-20T10:30:00';
    expect(codes(b)).toEqual([['Bundle.timestamp', 'type']]);
  });

  it('requires entry.type in the closed slices of PrescriptionRecord, the abdmcare/wrapper omission (reference §10.6)', () => {
    const b = bundle();
    delete b.entry[0].resource.section[0].entry[0].type;
    expect(codes(b)).toEqual([['Bundle.entry[0].resource.section[0].entry[0].type', 'closed-slice']]);
    b.entry[0].resource.section[0].entry[0].type = 'ServiceRequest';
    expect(codes(b)).toContainEqual(['Bundle.entry[0].resource.section[0].entry[0].type', 'closed-slice']);
  });

  it('checks the fixed Composition type per profile: one type stamped on every record fails (reference §10.3)', () => {
    const b = bundle();
    b.entry[0].resource.type.coding[0] = { system: 'http://snomed.info/sct', code: '371530004', display: 'Clinical consultation report' };
    expect(codes(b)).toEqual([
      ['Bundle.entry[0].resource.type.coding[0].code', 'fixed-value'],
      ['Bundle.entry[0].resource.type.coding[0].display', 'fixed-value'],
    ]);
  });

  it('checks OPConsultRecord sections: fixed slice codes, one per slice, sliced ones first, encounter required', () => {
    const b = bundle('lab-order');
    b.entry[0].resource.section[0].code.coding[0].display = 'Diagnosis';
    expect(codes(b)).toEqual([['Bundle.entry[0].resource.section[0].code.coding[0].display', 'fixed-value']]);
    const c = bundle('lab-order');
    c.entry[0].resource.section.reverse();
    // Open-at-end order: information only, as the HL7 validator does not check it (docs/fhir.md).
    expect(validateFhirBundle(c).issues.map((x) => [x.code, x.severity])).toContainEqual(['slice-order', 'information']);
    const d = bundle('lab-order');
    delete d.entry[0].resource.encounter;
    expect(codes(d)).toContainEqual(['Bundle.entry[0].resource.encounter', 'required']);
    const e = bundle('lab-order');
    e.entry[0].resource.section.push(structuredClone(e.entry[0].resource.section[1]));
    expect(codes(e).map((x) => x[1])).toContain('slice-cardinality');
  });

  it('checks the resource profiles: requester, authoredOn, dosageInstruction; Condition codings ICD-10 or SNOMED only', () => {
    const b = bundle();
    const mr = b.entry[entryOf(b, 'MedicationRequest')].resource;
    delete mr.requester;
    delete mr.authoredOn;
    delete mr.dosageInstruction;
    const i = entryOf(b, 'MedicationRequest');
    expect(codes(b)).toEqual(
      expect.arrayContaining([
        [`Bundle.entry[${i}].resource.requester`, 'required'],
        [`Bundle.entry[${i}].resource.authoredOn`, 'required'],
        [`Bundle.entry[${i}].resource.dosageInstruction`, 'required'],
      ]),
    );
    const c = bundle();
    const j = entryOf(c, 'Condition');
    c.entry[j].resource.code.coding = [{ system: 'https://projecteka.in/sct', code: '1', display: 'x' }];
    expect(codes(c)).toEqual([[`Bundle.entry[${j}].resource.code.coding[0].system`, 'closed-slice']]);
    const d = bundle();
    d.entry[entryOf(d, 'MedicationRequest')].resource.medicationCodeableConcept.coding = [{ system: 'http://snomed.info/sct', code: '261665006' }];
    expect(codes(d)).toEqual([[`Bundle.entry[${entryOf(d, 'MedicationRequest')}].resource.medicationCodeableConcept.coding[0].display`, 'required']]);
  });

  it('rejects a URL-only DocumentReference: the profile needs the bytes', () => {
    const b = bundle('multi-care-context');
    const i = entryOf(b, 'DocumentReference');
    delete b.entry[i].resource.content[0].attachment.data;
    expect(codes(b)).toEqual([[`Bundle.entry[${i}].resource.content[0].attachment.data`, 'required']]);
  });

  it('checks identifiers of Patient, Practitioner and Organization', () => {
    const b = bundle();
    const o = entryOf(b, 'Organization');
    delete b.entry[o].resource.identifier[0].system;
    const p = entryOf(b, 'Practitioner');
    delete b.entry[p].resource.identifier[0].type;
    expect(codes(b)).toEqual([
      [`Bundle.entry[${p}].resource.identifier[0].type`, 'required'],
      [`Bundle.entry[${o}].resource.identifier[0].system`, 'required'],
    ]);
  });

  it('checks base R4 structure: required elements, value types, unknown elements, empties and nulls', () => {
    const b = bundle();
    delete b.entry[0].resource.title;
    b.entry[0].resource.status = 'final draft  ';
    b.entry[0].resource.colour = 'blue';
    b.entry[0].resource.author[0].display = '';
    b.entry[0].resource.custodian.display = null;
    b.entry[1].resource.identifier.push({});
    b.entry[1].resource.birthDate = '14/03/1978';
    const c = codes(b);
    expect(c).toEqual(
      expect.arrayContaining([
        ['Bundle.entry[0].resource.title', 'required'],
        ['Bundle.entry[0].resource.status', 'type'],
        ['Bundle.entry[0].resource.colour', 'unknown-element'],
        ['Bundle.entry[0].resource.author[0].display', 'empty'],
        ['Bundle.entry[0].resource.custodian.display', 'null'],
        ['Bundle.entry[1].resource.identifier[1]', 'empty'],
        ['Bundle.entry[1].resource.birthDate', 'type'],
      ]),
    );
  });

  it('gives a value the issues it has, whatever values of the same element came before it (keys in another order, misspelt, missing)', () => {
    // The walk remembers, per element, the keys met at each position and which required children were there:
    // values with the usual keys come first (the clean bundle, then the Composition), then ones that differ.
    expect(validateFhirBundle(bundle()).success).toBe(true);
    const b = bundle();
    const m = entryOf(b, 'MedicationRequest');
    const request = b.entry[m].resource as Json;
    // The same keys in the reverse order, `status` (required by base R4) left out.
    b.entry[m].resource = Object.fromEntries(
      Object.entries(request)
        .filter(([k]) => k !== 'status')
        .reverse(),
    );
    // A coding whose first key is misspelt where every other coding has `system`; another in reverse order.
    const coding = b.entry[0].resource.type.coding[0] as Json;
    b.entry[0].resource.type.coding[0] = { sytem: coding.system, code: coding.code, display: coding.display };
    const p = entryOf(b, 'Patient');
    b.entry[p].resource.identifier[0].type.coding[0] = Object.fromEntries(Object.entries(b.entry[p].resource.identifier[0].type.coding[0] as Json).reverse());
    expect(codes(b)).toEqual(
      expect.arrayContaining([
        [`Bundle.entry[${m}].resource.status`, 'required'],
        ['Bundle.entry[0].resource.type.coding[0].sytem', 'unknown-element'],
      ]),
    );
    expect(codes(b).filter(([path]) => path.startsWith(`Bundle.entry[${m}]`) || path.startsWith(`Bundle.entry[${p}]`))).toEqual([[`Bundle.entry[${m}].resource.status`, 'required']]);
    // And the bundle as it was is valid again after them.
    expect(validateFhirBundle(bundle()).success).toBe(true);
  });

  it('rejects unsafe or malformed narratives (FHIR txt-1, txt-2)', () => {
    for (const div of [
      '<div xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></div>',
      '<div xmlns="http://www.w3.org/1999/xhtml"><p onclick="x()">a</p></div>',
      '<div xmlns="http://www.w3.org/1999/xhtml"><a href="javascript:x()">a</a></div>',
      '<div xmlns="http://www.w3.org/1999/xhtml"><p>a & b</p></div>',
      '<div xmlns="http://www.w3.org/1999/xhtml"><p>unclosed</div>',
      '<div><p>no namespace</p></div>',
      '<div xmlns="http://www.w3.org/1999/xhtml">  </div>',
    ]) {
      const b = bundle();
      b.entry[0].resource.text.div = div;
      expect(codes(b), div).toEqual([['Bundle.entry[0].resource.text.div', 'narrative']]);
    }
  });

  it('never throws, whatever it is given', () => {
    for (const x of [null, undefined, 1, 'x', [], {}, { resourceType: 'Bundle', entry: 'x' }, { resourceType: 'Bundle', type: 'document', entry: [null, 1, { resource: [] }] }])
      expect(() => validateFhirBundle(x)).not.toThrow();
    expect(validateFhirBundle({ resourceType: 'Bundle', type: 'document' }).issues.map((i) => i.code)).toEqual(expect.arrayContaining(['bdl-9', 'bdl-10', 'bdl-11']));
  });

  it('validates every bundle of every hiType from every example', () => {
    let n = 0;
    for (const hiType of ['Prescription', 'OPConsultation', 'DiagnosticReport', 'HealthDocumentRecord'])
      for (const kind of ['input', 'request'] as const) {
        const input = example('multi-care-context', kind);
        const r = toFhirBundles(input, { hiType, attachments: ATTACHMENTS });
        if (!r.success) {
          // Only the documents that cannot conform may fail, and they say why.
          expect(
            r.issues
              .filter((i) => i.severity === 'error')
              .map((i) => i.code)
              .every((c) => ['empty-document', 'document-data-required'].includes(c)),
          ).toBe(true);
          continue;
        }
        for (const d of r.bundles) {
          expect(validateFhirBundle(d.bundle as Bundle).issues).toEqual([]);
          n++;
        }
      }
    expect(n).toBeGreaterThanOrEqual(6);
  });
});
