/**
 * FHIR R4 (4.0.1) types for the resources abha-link reads and writes.
 *
 * The installed `@types/fhir` (3.0.2) describes FHIR STU3 in a global
 * `fhir` namespace: it has no ServiceRequest and types
 * Condition.verificationStatus as a code, not R4's CodeableConcept. These
 * interfaces follow R4 and use the names of the R4 module of `@types/fhir`
 * (`fhir/r4`, versions 0.0.x), so that switching to it is a change of
 * import. Only the elements abha-link uses are listed, plus an index
 * signature on resources so that any R4 resource fits.
 *
 * @packageDocumentation
 */

export interface Element {
  id?: string;
  extension?: Extension[];
}
export interface Extension {
  url: string;
  [value: `value${string}`]: unknown;
}
export interface Coding {
  system?: string;
  version?: string;
  code?: string;
  display?: string;
  userSelected?: boolean;
}
export interface CodeableConcept {
  coding?: Coding[];
  text?: string;
}
export interface Period {
  start?: string;
  end?: string;
}
export interface Reference {
  reference?: string;
  type?: string;
  identifier?: Identifier;
  display?: string;
}
export interface Identifier {
  use?: 'usual' | 'official' | 'temp' | 'secondary' | 'old';
  type?: CodeableConcept;
  system?: string;
  value?: string;
  period?: Period;
  assigner?: Reference;
}
export interface HumanName {
  use?: string;
  text?: string;
  family?: string;
  given?: string[];
  prefix?: string[];
  suffix?: string[];
}
export interface ContactPoint {
  system?: 'phone' | 'fax' | 'email' | 'pager' | 'url' | 'sms' | 'other';
  value?: string;
  use?: string;
  rank?: number;
}
export interface Quantity {
  value?: number;
  comparator?: string;
  unit?: string;
  system?: string;
  code?: string;
}
export type Duration = Quantity;
export interface Range {
  low?: Quantity;
  high?: Quantity;
}
export interface Attachment {
  contentType?: string;
  language?: string;
  data?: string;
  url?: string;
  size?: number;
  hash?: string;
  title?: string;
  creation?: string;
}
export interface Annotation {
  authorString?: string;
  authorReference?: Reference;
  time?: string;
  text: string;
}
export interface Meta {
  versionId?: string;
  lastUpdated?: string;
  source?: string;
  profile?: string[];
  security?: Coding[];
  tag?: Coding[];
}
export interface Narrative {
  status: 'generated' | 'extensions' | 'additional' | 'empty';
  div: string;
}
export interface TimingRepeat {
  boundsDuration?: Duration;
  boundsRange?: Range;
  boundsPeriod?: Period;
  count?: number;
  countMax?: number;
  duration?: number;
  durationMax?: number;
  durationUnit?: string;
  frequency?: number;
  frequencyMax?: number;
  period?: number;
  periodMax?: number;
  periodUnit?: 's' | 'min' | 'h' | 'd' | 'wk' | 'mo' | 'a';
  dayOfWeek?: string[];
  timeOfDay?: string[];
  when?: string[];
  offset?: number;
}
export interface Timing {
  event?: string[];
  repeat?: TimingRepeat;
  code?: CodeableConcept;
}
export interface DosageDoseAndRate {
  type?: CodeableConcept;
  doseRange?: Range;
  doseQuantity?: Quantity;
  rateQuantity?: Quantity;
}
export interface Dosage {
  sequence?: number;
  text?: string;
  additionalInstruction?: CodeableConcept[];
  patientInstruction?: string;
  timing?: Timing;
  asNeededBoolean?: boolean;
  asNeededCodeableConcept?: CodeableConcept;
  site?: CodeableConcept;
  route?: CodeableConcept;
  method?: CodeableConcept;
  doseAndRate?: DosageDoseAndRate[];
}

/** What every resource has. */
export interface ResourceBase {
  resourceType: string;
  id?: string;
  meta?: Meta;
  implicitRules?: string;
  language?: string;
  text?: Narrative;
  contained?: FhirResource[];
  extension?: Extension[];
  [element: string]: unknown;
}

export interface Patient extends ResourceBase {
  resourceType: 'Patient';
  identifier?: Identifier[];
  active?: boolean;
  name?: HumanName[];
  telecom?: ContactPoint[];
  gender?: 'male' | 'female' | 'other' | 'unknown';
  birthDate?: string;
}
export interface Practitioner extends ResourceBase {
  resourceType: 'Practitioner';
  identifier?: Identifier[];
  name?: HumanName[];
  telecom?: ContactPoint[];
}
export interface Organization extends ResourceBase {
  resourceType: 'Organization';
  identifier?: Identifier[];
  name?: string;
  telecom?: ContactPoint[];
}
export interface Encounter extends ResourceBase {
  resourceType: 'Encounter';
  identifier?: Identifier[];
  status: string;
  class: Coding;
  subject?: Reference;
  period?: Period;
  serviceProvider?: Reference;
}
export interface Condition extends ResourceBase {
  resourceType: 'Condition';
  clinicalStatus?: CodeableConcept;
  verificationStatus?: CodeableConcept;
  code?: CodeableConcept;
  subject: Reference;
  encounter?: Reference;
  recordedDate?: string;
}
export interface MedicationRequest extends ResourceBase {
  resourceType: 'MedicationRequest';
  status: string;
  intent: string;
  medicationCodeableConcept?: CodeableConcept;
  medicationReference?: Reference;
  subject: Reference;
  encounter?: Reference;
  authoredOn?: string;
  requester?: Reference;
  reasonCode?: CodeableConcept[];
  reasonReference?: Reference[];
  dosageInstruction?: Dosage[];
}
export interface ServiceRequest extends ResourceBase {
  resourceType: 'ServiceRequest';
  status: string;
  intent: string;
  code?: CodeableConcept;
  subject: Reference;
  encounter?: Reference;
  authoredOn?: string;
  requester?: Reference;
  patientInstruction?: string;
  note?: Annotation[];
}
export interface DocumentReferenceContent {
  attachment: Attachment;
  format?: Coding;
}
export interface DocumentReference extends ResourceBase {
  resourceType: 'DocumentReference';
  status: string;
  subject?: Reference;
  author?: Reference[];
  custodian?: Reference;
  description?: string;
  content: DocumentReferenceContent[];
  context?: { encounter?: Reference[] };
}
export interface Binary {
  resourceType: 'Binary';
  id?: string;
  meta?: Meta;
  contentType: string;
  data?: string;
  [element: string]: unknown;
}
export interface CompositionSection {
  title?: string;
  code?: CodeableConcept;
  text?: Narrative;
  entry?: Reference[];
  emptyReason?: CodeableConcept;
  section?: CompositionSection[];
}
export interface Composition extends ResourceBase {
  resourceType: 'Composition';
  identifier?: Identifier;
  status: string;
  type: CodeableConcept;
  subject?: Reference;
  encounter?: Reference;
  date: string;
  author: Reference[];
  title: string;
  custodian?: Reference;
  section?: CompositionSection[];
}
export interface BundleEntry {
  fullUrl?: string;
  resource?: FhirResource;
}
export interface Bundle extends ResourceBase {
  resourceType: 'Bundle';
  identifier?: Identifier;
  type: string;
  timestamp?: string;
  total?: number;
  entry?: BundleEntry[];
}

/** Any FHIR R4 resource (the ones abha-link knows, or any other by `resourceType`). */
export type FhirResource =
  | Bundle
  | Composition
  | Patient
  | Practitioner
  | Organization
  | Encounter
  | Condition
  | MedicationRequest
  | ServiceRequest
  | DocumentReference
  | Binary
  | ResourceBase;
