import type { BundleData, BundleDataInput, Doctor, Hospital } from '../generated/types.js';
import { checkInput, checkOutput } from './check.js';
import { compact, text } from '../util.js';
import { makeDiagnosis } from './diagnosis.js';
import { makeDoctor } from './doctor.js';
import { makeHospital } from './hospital.js';
import { makeLabInvestigation } from './lab-investigation.js';
import { makeMedication } from './medication.js';

/**
 * Builds `careContexts[].bundleData`: hospital, doctor, diagnoses,
 * medications, lab investigations, advice and the document URL. Empty lists
 * and blank text are left out.
 *
 * @throws ValidationError listing every issue of the input
 * @example
 * buildBundleData({ hospital: { name: 'City Care Clinic', id: 'IN2910000123' },
 *   doctor: { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678' },
 *   medications: [{ drugName: 'Paracetamol 650 mg', dosage: '1 tablet', frequency: 'SOS' }] })
 * //=> { hospital: {...}, doctor: {...}, medications: [{ drugName: 'Paracetamol 650 mg',
 * //     dosage: '1 tablet', frequency: 'When required (SOS)' }] }
 */
export function buildBundleData(input: BundleDataInput): BundleData {
  return checkOutput('bundle-data', makeBundleData(checkInput('bundle-data-input', input)));
}

/** @internal Builds from inputs already checked against their schemas. */
export function makeBundleData(b: BundleDataInput): BundleData {
  return bundleDataOf(b, b.hospital, b.doctor);
}

/** @internal The bundleData of a content beside its hospital and doctor (a care context's content as given, without a merged copy). */
export function bundleDataOf(content: Omit<BundleDataInput, 'hospital' | 'doctor'>, hospital: Hospital, doctor: Doctor): BundleData {
  const list = <I, O>(items: readonly I[] | undefined, make: (x: I) => O): O[] | undefined => (items === undefined || items.length === 0 ? undefined : items.map(make));
  return compact({
    hospital: makeHospital(hospital),
    doctor: makeDoctor(doctor),
    documentUrl: text(content.documentUrl),
    diagnosis: list(content.diagnosis, makeDiagnosis),
    medications: list(content.medications, makeMedication),
    labInvestigations: list(content.labInvestigations, makeLabInvestigation),
    advice: text(content.advice),
  });
}
