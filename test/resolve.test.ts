/**
 * The core resolver that printing and FHIR share: clinical input, link
 * request or care context → the care contexts to document, with patient,
 * visit and follow-up.
 */
import { describe, expect, it } from 'vitest';
import { toFhirBundles } from '../src/fhir/index.js';
import { buildLinkRequest, type ClinicalInput } from '../src/index.js';
import { resolveInput } from '../src/render/input.js';
import { resolveCareContexts } from '../src/resolve.js';

const input: ClinicalInput = {
  hospital: { name: 'Sanjeevani Family Clinic', id: 'IN2910000123' },
  doctor: { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678' },
  patient: { abhaAddress: ' asha.verma@sbx ', name: 'Asha Verma', gender: 'F', age: 48 },
  visit: { id: 'OPD-2026-0042', at: '2026-11-20T23:30:00+05:30', followUp: 'Review after 2 weeks' },
  careContexts: [
    { hiType: 'OPConsultation', diagnosis: [{ diagnosisName: 'Viral fever' }], advice: 'Rest' },
    { medications: [{ drugName: 'Paracetamol 500 mg', dosage: '1 tablet', frequency: 'TDS', duration: '3 days' }] },
  ],
};

describe('resolveCareContexts', () => {
  it('builds a clinical input as buildLinkRequest does and keeps its patient, visit and follow-up', () => {
    const r = resolveCareContexts(input);
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.kind).toBe('clinical-input');
    expect(r.careContexts).toEqual(buildLinkRequest(input).careContexts);
    expect(r.visit).toEqual({
      patient: { name: 'Asha Verma', gender: 'F', age: 48, abhaAddress: 'asha.verma@sbx' },
      hipId: 'IN2910000123',
      visitId: 'OPD-2026-0042',
      visitDate: '2026-11-20',
      visitAt: '2026-11-20T23:30:00+05:30',
      timeZone: undefined,
      followUp: 'Review after 2 weeks',
    });
  });

  it('takes the patient and follow-up of a link request from the context, but its ABHA address from the request', () => {
    const request = buildLinkRequest(input);
    const r = resolveCareContexts(request, { context: { patient: { name: 'Asha Verma', abhaAddress: 'someone.else@sbx' }, followUp: 'Review after 1 week', visitId: 'ignored' } });
    expect(r.success && r.visit).toEqual({
      patient: { name: 'Asha Verma', abhaAddress: 'asha.verma@sbx' },
      hipId: 'IN2910000123',
      visitId: 'OPD-2026-0042',
      visitDate: '2026-11-20',
      visitAt: undefined,
      timeZone: undefined,
      followUp: 'Review after 1 week',
    });
    expect(r.success && r.careContexts).toEqual(request.careContexts);
  });

  it('gives a care context alone the visit of its context, and rejects a context date that is not a calendar date', () => {
    const cc = buildLinkRequest(input).careContexts[1];
    const r = resolveCareContexts(cc, { context: { visitId: 'V-1', visitDate: '2026-11-20' } });
    expect(r.success && r.kind).toBe('care-context');
    expect(r.success && r.visit).toMatchObject({ patient: {}, hipId: undefined, visitId: 'V-1', visitDate: '2026-11-20' });
    expect(resolveCareContexts(cc, { context: { visitDate: '20/11/2026' } })).toMatchObject({ success: false, issues: [{ path: '/context/visitDate', code: 'invalid-date' }] });
  });

  it('says what it accepts when the input is none of the three, and reads it as the kind it is told', () => {
    expect(resolveCareContexts({ hello: 1 })).toMatchObject({ success: false, issues: [{ path: '', code: 'unknown-input' }] });
    const asInput = resolveCareContexts({ hello: 1 }, { kind: 'clinical-input' });
    expect(asInput.success ? [] : asInput.issues.map((i) => i.code)).toContain('required');
  });

  it('stops at lint errors and lists every finding in the order found, warnings included', () => {
    const request = buildLinkRequest(input);
    const bad = {
      ...request,
      careContexts: [
        { ...request.careContexts[0], bundleData: { ...request.careContexts[0]!.bundleData, hospital: { name: 'Elsewhere', id: 'IN0000000001' } } },
        { ...request.careContexts[1], referenceNumber: 'bad#ref' },
      ],
    };
    const r = resolveCareContexts(bad);
    expect(r.success ? [] : r.issues.map((i) => [i.code, i.severity])).toEqual([
      ['hospital-id-differs-from-hip-id', 'warning'],
      ['reference-number-characters', 'error'],
    ]);
    expect(resolveCareContexts(bad, { lint: false }).success).toBe(true);
  });

  it('is what printing and FHIR both read: the same care contexts, in the same order', () => {
    const printed = resolveInput(input);
    const fhir = toFhirBundles(input);
    expect(printed.success && fhir.success).toBe(true);
    if (!printed.success || !fhir.success) return;
    expect(printed.sources.map((s) => s.careContext.referenceNumber)).toEqual(fhir.bundles.map((d) => d.referenceNumber));
    expect(printed.sources[0]?.patient).toEqual({ name: 'Asha Verma', gender: 'F', age: 48, abhaAddress: 'asha.verma@sbx' });
  });

  it('does not change its input', () => {
    const copy = structuredClone(input);
    resolveCareContexts(input);
    expect(input).toEqual(copy);
  });
});
