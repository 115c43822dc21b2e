import type { Diagnosis } from '../generated/types.js';
import { checkInput, checkOutput } from './check.js';
import { compact, text } from '../util.js';

/**
 * Builds an item of `bundleData.diagnosis`. The ICD-10 code is trimmed and
 * upper-cased (e11.9 → E11.9); the status is trimmed and lower-cased
 * (Confirmed → confirmed). No code is ever invented: a diagnosis without
 * `icdCode` stays without one.
 *
 * @throws ValidationError listing every issue of the input
 * @example
 * buildDiagnosis({ diagnosisName: 'Type 2 diabetes mellitus', icdCode: 'e11.9', status: 'Confirmed' })
 * //=> { diagnosisName: 'Type 2 diabetes mellitus', status: 'confirmed', icdCode: 'E11.9' }
 */
export function buildDiagnosis(input: Diagnosis): Diagnosis {
  return checkOutput('diagnosis', makeDiagnosis(checkInput('diagnosis', input)));
}

/** @internal Builds from an input already checked against its schema. */
export function makeDiagnosis(d: Diagnosis): Diagnosis {
  return compact({ diagnosisName: d.diagnosisName.trim(), status: text(d.status)?.toLowerCase(), icdCode: text(d.icdCode)?.toUpperCase() });
}
