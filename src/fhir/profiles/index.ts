/**
 * The record profiles abha-link emits, one section builder per hiType.
 * Keyed by {@link FhirHiType} (the hiTypes of `RECORD_PROFILES`): an entry
 * there without a builder here, or a builder for an hiType without a
 * record profile, is a compile error. The hiTypes not emitted yet are
 * listed in `OTHER_RECORD_PROFILES` (constants.ts) and answered with
 * `unsupported-hi-type`.
 */
import type { DocumentJob, EncounterDetails, ProfileBuilder } from '../assembly.js';
import type { FhirHiType } from '../constants.js';
import { dischargeEncounter, dischargeSummarySections } from './discharge-summary.js';
import { diagnosticReportSections, healthDocumentSections } from './document-record.js';
import { immunizationSections } from './immunization.js';
import { invoiceSections } from './invoice.js';
import { opConsultationSections } from './op-consultation.js';
import { prescriptionSections } from './prescription.js';
import { wellnessSections } from './wellness.js';

/** The section builder of each emitted record profile, by hiType. */
export const PROFILE_BUILDERS = {
  Prescription: prescriptionSections,
  OPConsultation: opConsultationSections,
  DiagnosticReport: diagnosticReportSections,
  HealthDocumentRecord: healthDocumentSections,
  DischargeSummary: dischargeSummarySections,
  ImmunizationRecord: immunizationSections,
  WellnessRecord: wellnessSections,
  Invoice: invoiceSections,
} as const satisfies Record<FhirHiType, ProfileBuilder>;

/** What a record profile changes in the visit's Encounter (a discharge summary's is the inpatient stay); the rest keep the outpatient visit. */
export const ENCOUNTER_DETAILS: Partial<Record<FhirHiType, (job: DocumentJob) => EncounterDetails>> = {
  DischargeSummary: dischargeEncounter,
};
