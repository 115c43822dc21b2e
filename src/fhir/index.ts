/**
 * abha-link/fhir: FHIR R4 both ways. FHIR resources an EMR already has →
 * the clinical input ({@link fromFhir}); care contexts → NRCeS ABDM FHIR
 * document Bundles, one per care context ({@link toFhirBundles}); and a
 * validator for such bundles ({@link validateFhirBundle}). Pure: no I/O, no
 * clock, no network.
 *
 * @packageDocumentation
 */
export { toFhirBundles, type ToFhirOptions, type ToFhirResult, type FhirDocument, type FhirAttachmentInput } from './to-fhir.js';
export type { FhirPrintedDocument } from './to-fhir-types.js';
export { parseIcd10Titles, type Icd10TitleTable, type Icd10TitleIssue, type Icd10TitleFormat, type ParseIcd10TitlesOptions } from './icd10-titles.js';
export { fromFhir, type FromFhirOptions, type FromFhirResult, type FromFhirDefaults } from './from-fhir.js';
export { FHIR_LIMITS, FHIR_MAX_ISSUES, validateFhirBundle, type FhirValidationResult, type FhirValidateOptions } from './nrces/validate.js';
export { toOperationOutcome } from './outcome.js';
export {
  ABDM_IDENTIFIER_SYSTEMS,
  DEFAULT_IDENTIFIER_SYSTEMS,
  PROFILES,
  SYSTEMS,
  type FhirHiType,
  type FixedCoding,
  type IdentifierSystems,
  type OpConsultSlice,
  type RecordProfile,
  type SectionRule,
} from './constants.js';
export type * from './r4.js';
