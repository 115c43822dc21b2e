import type { CareContext, CareContextBuildInput, CareContextInput, DoctorInput, Hospital } from '../generated/types.js';
import { defaultHiType } from '../spec/hi-types.js';
import { bundleDataOf } from './bundle-data.js';
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
  return careContextOf(c, { hiType, hospital: c.hospital, doctor: c.doctor, visitId: c.visitId, visitDate: c.visitDate, occurrence: c.occurrence ?? 1 });
}

/** @internal What a care context takes from its visit, beside its own content. */
export interface CareContextVisit {
  /** The care context's hiType, decided already. */
  readonly hiType: string;
  readonly hospital: Hospital;
  readonly doctor: DoctorInput;
  readonly visitId: string;
  /** YYYY-MM-DD. */
  readonly visitDate: string;
  /** This is the nth care context of its hiType in the visit. */
  readonly occurrence: number;
}

/**
 * @internal One care context from its content as the caller gave it and
 * the visit's facts beside it, without merging them into a copy of the
 * content (the link-request builder makes one per care context of every
 * visit). The same result as {@link makeCareContext} of the merged input.
 */
export function careContextOf(content: CareContextInput, visit: CareContextVisit): CareContext {
  const { hiType } = visit;
  return {
    referenceNumber: text(content.referenceNumber) ?? deriveReferenceNumber(visit.visitId.trim(), hiType, visit.occurrence),
    display: text(content.display) ?? deriveDisplay(hiType, visit.hospital.name, visit.visitDate),
    hiType,
    bundleData: bundleDataOf(content, visit.hospital, visit.doctor),
  };
}
