/**
 * What the document assembler (`assemble.ts`) hands to a record profile's
 * section builder (`profiles/`): the care context and its visit, ids,
 * references and a place for issues. Types and one helper only, so that
 * the profiles depend on this module and not on the assembler.
 */
import type { Issue } from '../errors.js';
import type { BundleData, CareContext, CareContextInput, VitalsInput } from '../generated/types.js';
import type { CareContextDetails } from '../resolve.js';
import type { FhirHiType, RecordProfile } from './constants.js';
import type { CompositionSection, Encounter, FhirResource, Reference } from './r4.js';
import type { ToFhirOptions } from './to-fhir-types.js';

/** Where each part of a care context came from in the caller's input (JSON Pointers). */
export interface Locator {
  content(...tokens: Array<string | number>): string;
  hospital(...tokens: string[]): string;
  doctor(...tokens: string[]): string;
  patient(...tokens: string[]): string;
  visit(...tokens: string[]): string;
  hiType(): string;
}

/** The patient as the FHIR Patient is made of it: trimmed text, blanks left out. */
export interface PatientData {
  readonly abhaAddress: string;
  readonly ABHANumber?: string;
  readonly name?: string;
  readonly gender?: string;
  readonly birthDate?: string;
  readonly age?: number;
  /** Printed-document details that FHIR carries too: Patient.telecom, Patient.address, and vital-sign Observations where the record has a place. */
  readonly mobile?: string;
  readonly address?: string;
  readonly weight?: number;
  readonly height?: number;
  readonly vitals?: VitalsInput;
}

/** One care context to make a document of, with its visit. */
export interface DocumentJob {
  readonly cc: CareContext;
  readonly hiType: string;
  readonly hipId: string;
  readonly visitId: string;
  /** The visit time as a FHIR dateTime. */
  readonly when: string;
  readonly instant: Date;
  readonly timeZone: string;
  readonly patient: PatientData;
  readonly followUp: string | undefined;
  readonly at: Locator;
  /** The care context's content as the clinical input gave it (observations, invoice…); undefined for a link request, which carries only the 4.12 body. */
  readonly clinical?: CareContextInput | undefined;
  /** The facility's postal address (Organization.address); undefined for a link request. */
  readonly hospitalAddress?: string | undefined;
  /** The doctor's registration particulars and the medications' generic name, strength, form and route (clinical input only). */
  readonly details?: CareContextDetails | undefined;
}

/** References to the resources every document has. */
export interface CommonRefs {
  readonly patient: Reference;
  readonly practitioner: Reference;
  readonly organization: Reference;
  readonly encounter: Reference;
}

/** What a record profile's section builder works with: the care context, ids, references and a place for issues. */
export interface Assembly {
  readonly job: DocumentJob;
  readonly hiType: FhirHiType;
  readonly profile: RecordProfile;
  /** The care context's clinical content. */
  readonly content: BundleData;
  readonly options: ToFhirOptions;
  readonly refs: CommonRefs;
  /** The next deterministic id of a resource type in this document. */
  nextId(kind: string): string;
  /** Adds a resource to the bundle (after the common ones) and returns a typed reference to it. */
  add<R extends FhirResource>(resource: R & { id: string }): Reference;
  /** Records an error (the document is not made) or a warning. */
  report(issue: Issue): void;
}

/** What a record profile may change in the visit's Encounter. */
export type EncounterDetails = Partial<Pick<Encounter, 'class' | 'status' | 'period' | 'reasonCode'>>;

/** A record profile's part: the Composition sections of one care context (issues go to `report`). */
export type ProfileBuilder = (a: Assembly) => CompositionSection[];

/** An issue, error unless said otherwise. */
export const issue = (path: string, code: string, message: string, severity: 'error' | 'warning' = 'error'): Issue => ({ path, code, message, severity });

/** The warning code of a field given for printed documents that a record profile has no place for. */
export const PRINT_ONLY = 'print-only-not-in-fhir';

/** A printed-document field that FHIR cannot carry here: a warning at the field, never a silent loss. */
export const printOnly = (path: string, why: string): Issue => issue(path, PRINT_ONLY, `${why}; it is printed but left out of the FHIR document`, 'warning');
