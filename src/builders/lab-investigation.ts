import type { LabInvestigation } from '../generated/types.js';
import { checkInput, checkOutput } from './check.js';
import { compact, text } from '../util.js';

/**
 * Builds an item of `bundleData.labInvestigations`: the test ordered and any
 * instructions (fasting, timing).
 *
 * @throws ValidationError listing every issue of the input
 * @example
 * buildLabInvestigation({ testName: 'HbA1c', instructions: ' ' })
 * //=> { testName: 'HbA1c' }
 */
export function buildLabInvestigation(input: LabInvestigation): LabInvestigation {
  return checkOutput('lab-investigation', makeLabInvestigation(checkInput('lab-investigation', input)));
}

/** @internal Builds from an input already checked against its schema. */
export function makeLabInvestigation(l: LabInvestigation): LabInvestigation {
  return compact({ testName: l.testName.trim(), instructions: text(l.instructions) });
}
