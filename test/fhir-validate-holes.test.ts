/**
 * The holes of issue 23 in validateFhirBundle (abha-link/fhir), each shown
 * caught on a bundle abha-link built with one defect planted: a document whose
 * Composition declares no profile gets the record profile its type implies;
 * required bindings of base R4 apply everywhere; dom-3 and ext-1 are
 * evaluated; a rule that cannot be decided is reported (`unevaluated`,
 * an error under `strict`); issues are capped (`maxIssues`, `truncated`).
 */
import { describe, expect, it } from 'vitest';
import { toFhirBundles, validateFhirBundle, type FhirValidateOptions } from '../src/fhir/index.js';
import { ATTACHMENTS, example } from './fhir-helpers.js';

type Json = Record<string, any>;

function prescription(): Json {
  const r = toFhirBundles(example('opd-prescription', 'input'), { attachments: ATTACHMENTS });
  if (!r.success) throw new Error('the opd-prescription example must build');
  return structuredClone(r.bundles[r.bundles.length - 1]?.bundle) as Json;
}
const issues = (b: unknown, options: FhirValidateOptions = {}): Array<[string, string, string]> => validateFhirBundle(b, options).issues.map((i) => [i.severity, i.path, i.code]);
const errors = (b: unknown, options: FhirValidateOptions = {}): Array<[string, string]> => issues(b, options).flatMap(([s, p, c]) => (s === 'error' ? [[p, c] as [string, string]] : []));
const indexOf = (b: Json, type: string): number => (b.entry as Json[]).findIndex((e) => e.resource.resourceType === type);
/** The prescription bundle with its Composition's meta dropped, as an EMR's serialiser may do. */
function withoutMeta(): Json {
  const b = prescription();
  delete b.entry[0].resource.meta;
  return b;
}

describe('a document whose Composition declares no profile', () => {
  it('is checked as the record profile its type implies, and says so', () => {
    const b = withoutMeta();
    const r = validateFhirBundle(b);
    expect(r.success).toBe(true);
    const warning = r.issues.find((i) => i.path === 'Bundle.entry[0].resource.meta.profile');
    expect(warning?.code).toBe('missing-profile');
    expect(warning?.message).toContain('PrescriptionRecord');
  });

  it('catches a changed type code: the type implies another record profile, whose rules fail', () => {
    const b = withoutMeta();
    b.entry[0].resource.type.coding[0].code = '371530004';
    expect(errors(b)).toContainEqual(['Bundle.entry[0].resource.type.coding[0].display', 'fixed-value']);
  });

  it('is an error when its type implies no record profile', () => {
    const b = withoutMeta();
    b.entry[0].resource.type.coding[0].code = '1234567';
    expect(errors(b)).toEqual([['Bundle.entry[0].resource.type', 'unknown-record-type']]);
  });

  it('catches a changed section code', () => {
    const b = withoutMeta();
    b.entry[0].resource.section[0].code.coding[0].code = '371530004';
    expect(errors(b)).toContainEqual(['Bundle.entry[0].resource.section[0].code.coding[0].code', 'fixed-value']);
  });

  it('catches a section entry pointing at the Patient', () => {
    const b = withoutMeta();
    b.entry[0].resource.section[0].entry[0].reference = b.entry[indexOf(b, 'Patient')].fullUrl;
    expect(errors(b)).toContainEqual(['Bundle.entry[0].resource.section[0].entry[0].reference', 'wrong-target']);
  });

  it('judges an author pointing at the Patient as the declared profile does (PrescriptionRecord lists Patient among its authors)', () => {
    const declared = prescription();
    declared.entry[0].resource.author = [{ reference: declared.entry[indexOf(declared, 'Patient')].fullUrl }];
    const implied = structuredClone(declared);
    delete implied.entry[0].resource.meta;
    expect(errors(implied)).toEqual(errors(declared));
  });
});

describe('required bindings of base R4', () => {
  it('apply inside datatypes no profile constrains: timing.repeat.periodUnit', () => {
    const b = prescription();
    b.entry[indexOf(b, 'MedicationRequest')].resource.dosageInstruction[0].timing.repeat.periodUnit = 'fortnight';
    expect(errors(b)).toEqual([[`Bundle.entry[${indexOf(b, 'MedicationRequest')}].resource.dosageInstruction[0].timing.repeat.periodUnit`, 'binding']]);
  });

  it('apply to the narrative: text.status', () => {
    const b = prescription();
    b.entry[0].resource.text.status = 'bogus';
    expect(errors(b)).toEqual([['Bundle.entry[0].resource.text.status', 'binding']]);
  });

  it('apply to resources that declare no NRCeS profile', () => {
    const observation = { resourceType: 'Observation', status: 'finished', code: { text: 'pulse' } };
    expect(errors(observation)).toEqual([['Observation.status', 'binding']]);
  });
});

describe('invariants evaluated natively', () => {
  it('dom-3: a contained resource nothing references', () => {
    const b = prescription();
    const i = indexOf(b, 'MedicationRequest');
    b.entry[i].resource.contained = [{ resourceType: 'Medication', id: 'm1', code: { text: 'tablet' } }];
    expect(errors(b)).toEqual([[`Bundle.entry[${i}].resource.contained[0]`, 'dom-3']]);
    b.entry[i].resource.supportingInformation = [{ reference: '#m1' }];
    expect(errors(b)).toEqual([]);
  });

  it('ext-1: an extension with both a value and extensions', () => {
    const b = prescription();
    const i = indexOf(b, 'Patient');
    b.entry[i].resource.extension = [{ url: 'https://ehr.example/x', valueString: 'a', extension: [{ url: 'part', valueString: 'b' }] }];
    expect(errors(b)).toEqual([[`Bundle.entry[${i}].resource.extension[0]`, 'ext-1']]);
    b.entry[i].resource.extension = [{ url: 'https://ehr.example/x' }];
    expect(errors(b)).toEqual([[`Bundle.entry[${i}].resource.extension[0]`, 'ext-1']]);
  });
});

describe('rules that cannot be decided', () => {
  // MolecularSequence.structureVariant.variantType is bound (required) to LOINC answer list LL379-9, which abha-link cannot expand offline.
  const sequence = { resourceType: 'MolecularSequence', coordinateSystem: 0, structureVariant: [{ variantType: { coding: [{ system: 'http://loinc.org', code: 'LA6692-3' }] } }] };

  it('are reported as unevaluated information, never silently passed', () => {
    const r = validateFhirBundle(sequence);
    expect(r.success).toBe(true);
    expect(issues(sequence)).toEqual([['information', 'MolecularSequence.structureVariant[0].variantType', 'unevaluated']]);
  });

  it('are errors under strict', () => {
    const r = validateFhirBundle(sequence, { strict: true });
    expect(r.success).toBe(false);
    expect(issues(sequence, { strict: true })).toEqual([['error', 'MolecularSequence.structureVariant[0].variantType', 'unevaluated']]);
  });
});

describe('bounded', () => {
  /** A prescription whose section lists `n` references to nothing. */
  function dangling(n: number): Json {
    const b = prescription();
    const entries = b.entry[0].resource.section[0].entry as Json[];
    for (let i = 0; i < n; i++) entries.push({ reference: `urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, type: 'MedicationRequest' });
    return b;
  }

  it('stops at maxIssues and says truncated', () => {
    const r = validateFhirBundle(dangling(50), { maxIssues: 10 });
    expect(r.success).toBe(false);
    expect(r.issues).toHaveLength(10);
    expect(r.truncated).toBe(true);
    expect(r.issues.every((i) => i.code === 'unresolved-reference')).toBe(true);
  });

  it('caps at 1,000 issues by default', () => {
    const r = validateFhirBundle(dangling(5000));
    expect(r.issues).toHaveLength(1000);
    expect(r.truncated).toBe(true);
  });

  it('is not truncated when the issues fit', () => {
    const r = validateFhirBundle(dangling(5), { maxIssues: 10 });
    expect(r.issues).toHaveLength(5);
    expect(r.truncated).toBeUndefined();
  });
});
