/**
 * Terminology honesty (issue 12 item 4): an ICD-10 coding's display is the
 * code's title or there is no coding; an ICD-11 MMS code is kept in
 * Condition.code.text, never as a coding under the ICD-10 system.
 */
import { describe, expect, it } from 'vitest';
import type { ClinicalInput } from '../src/index.js';
import { fromFhir, toFhirBundles, type Bundle, type Composition, type Condition } from '../src/fhir/index.js';
import { bundlesOf, example } from './fhir-helpers.js';

const input = (diagnosis: NonNullable<ClinicalInput['diagnosis']>): ClinicalInput => {
  const base = example('opd-prescription', 'input');
  return { ...base, hiType: 'OPConsultation', diagnosis };
};
const conditionsOf = (b: Bundle): Condition[] => (b.entry ?? []).map((e) => e.resource).filter((r): r is Condition => r?.resourceType === 'Condition');

describe('Condition.code of a diagnosis', () => {
  it('never gives an ICD-10 coding the diagnosis as written for its display: without a known title the code is kept in code.text, with a warning', () => {
    const r = toFhirBundles(input([{ diagnosisName: 'Sugar problem', icdCode: 'E11.9' }]));
    const [d] = bundlesOf(r);
    expect(conditionsOf(d!.bundle).map((c) => c.code)).toEqual([{ text: 'Sugar problem (ICD-10 E11.9)' }]);
    expect(r.success && r.warnings.filter((w) => w.path.startsWith('/diagnosis')).map((w) => [w.path, w.code])).toEqual([['/diagnosis/0/icdCode', 'icd10-title-unknown']]);
    expect(JSON.stringify(d!.bundle)).not.toContain('"display":"Sugar problem"');
  });

  it('writes the ICD-10 coding with the title the caller supplies, the diagnosis as written in code.text', () => {
    const r = toFhirBundles(input([{ diagnosisName: 'Sugar problem', icdCode: 'E11.9' }]), { icd10Titles: { 'E11.9': 'Type 2 diabetes mellitus without complications' } });
    const [d] = bundlesOf(r);
    expect(conditionsOf(d!.bundle).map((c) => c.code)).toEqual([
      { coding: [{ system: 'http://hl7.org/fhir/sid/icd-10', code: 'E11.9', display: 'Type 2 diabetes mellitus without complications' }], text: 'Sugar problem' },
    ]);
    expect(r.success && r.warnings.filter((w) => w.path.startsWith('/diagnosis'))).toEqual([]);
  });

  it('keeps an ICD-11 MMS code in code.text, never as a coding, with a warning that says so, and the bundle passes the validator', () => {
    const r = toFhirBundles(input([{ diagnosisName: 'Acute bronchitis', icdCode: 'CA20.0' }]), { icd10Titles: { 'CA20.0': 'not an ICD-10 code' } });
    const [d] = bundlesOf(r);
    const [c] = conditionsOf(d!.bundle);
    expect(c?.code).toEqual({ text: 'Acute bronchitis (ICD-11 CA20.0)' });
    expect(JSON.stringify(d!.bundle)).not.toMatch(/icd-10","code":"CA20/);
    const warning = r.success ? r.warnings.find((w) => w.path === '/diagnosis/0/icdCode') : undefined;
    expect(warning?.code).toBe('icd11-in-text');
    expect(warning?.message).toContain('ICD-10 and SNOMED CT only');
    const section = (d!.bundle.entry?.[0]?.resource as Composition).section?.[0];
    expect(section?.text?.div).toContain('ICD-11');
  });

  it('refuses icd10Titles that is not an object of texts', () => {
    const r = toFhirBundles(input([{ diagnosisName: 'X', icdCode: 'E11.9' }]), { icd10Titles: ['E11.9'] as unknown as Record<string, string> });
    expect(r.success ? [] : r.issues.map((i) => i.code)).toEqual(['invalid-option']);
  });
});

describe('reading a code kept in code.text back in', () => {
  it.each([
    ['an ICD-11 MMS code', 'CA20.0'],
    ['an ICD-10 code without a known title', 'J20.9'],
    ['a postcoordinated ICD-11 code', 'CA40.0&XN8C1'],
  ])('round-trips %s into icdCode, the diagnosis name without it', (_, icdCode) => {
    const [d] = bundlesOf(toFhirBundles(input([{ diagnosisName: 'Acute bronchitis', icdCode, status: 'provisional' }])));
    const back = fromFhir(d!.bundle);
    expect(back.success && back.value.diagnosis).toEqual([{ diagnosisName: 'Acute bronchitis', icdCode, status: 'provisional' }]);
  });

  it('keeps a text that only looks like a kept code, with a system that does not fit its shape, as the name', () => {
    const [d] = bundlesOf(toFhirBundles(input([{ diagnosisName: 'Fever (ICD-11 R50.9)' }])));
    const back = fromFhir(d!.bundle);
    expect(back.success && back.value.diagnosis).toEqual([{ diagnosisName: 'Fever (ICD-11 R50.9)' }]);
  });
});
