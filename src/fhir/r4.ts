/**
 * FHIR R4 (4.0.1) types, from `@types/fhir` (module `fhir/r4`): the
 * resources abha-link reads and writes.
 *
 * @packageDocumentation
 */
export type {
  Element,
  Extension,
  Coding,
  CodeableConcept,
  Period,
  Reference,
  Identifier,
  HumanName,
  ContactPoint,
  Quantity,
  Duration,
  Range,
  Attachment,
  Annotation,
  Meta,
  Narrative,
  TimingRepeat,
  Timing,
  DosageDoseAndRate,
  Dosage,
  Patient,
  Practitioner,
  Organization,
  Encounter,
  Condition,
  MedicationRequest,
  ServiceRequest,
  DocumentReferenceContent,
  DocumentReference,
  Binary,
  CompositionSection,
  Composition,
  BundleEntry,
  Bundle,
  FhirResource,
} from 'fhir/r4.js';
