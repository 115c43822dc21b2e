import type { CareContext, CareContextBuildInput } from '../generated/types.js';
import { defaultHiType } from '../spec/hi-types.js';
import { makeBundleData } from './bundle-data.js';
import { checkInput, checkOutput } from './check.js';
import { text } from '../util.js';
import { deriveDisplay, deriveReferenceNumber } from './labels.js';

export { defaultHiType } from '../spec/hi-types.js';

/**
 * Builds one item of `careContexts`: referenceNumber, display, hiType and
 * bundleData. When not given, the hiType comes from the content
 * ({@link defaultHiType}), the referenceNumber from the visit id and hiType,
 * and the display from hiType, hospital and date: the same input always
 * gives the same care context.
 *
 * @throws ValidationError listing every issue of the input
 * @example
 * buildCareContext({ hospital: { name: 'City Care Clinic', id: 'IN2910000123' },
 *   doctor: { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678' }, visitId: 'OPD-2026-0042',
 *   visitDate: '2026-11-20', medications: [{ drugName: 'Cetirizine 10 mg', frequency: 'HS' }] })
 * //=> { referenceNumber: 'OPD-2026-0042-Prescription',
 * //     display: 'Prescription at City Care Clinic on 20 Nov 2026', hiType: 'Prescription',
 * //     bundleData: { hospital: {...}, doctor: {...}, medications: [{ drugName: 'Cetirizine 10 mg',
 * //       frequency: 'At bedtime (HS)' }] } }
 */
export function buildCareContext(input: CareContextBuildInput): CareContext {
  return checkOutput('care-context', makeCareContext(checkInput('care-context-build-input', input)));
}

/** @internal Builds from an input already checked against its schema. */
export function makeCareContext(c: CareContextBuildInput): CareContext {
  const hiType = text(c.hiType) ?? defaultHiType(c);
  return {
    referenceNumber: text(c.referenceNumber) ?? deriveReferenceNumber(c.visitId.trim(), hiType, c.occurrence ?? 1),
    display: text(c.display) ?? deriveDisplay(hiType, c.hospital.name, c.visitDate),
    hiType,
    bundleData: makeBundleData(c),
  };
}
