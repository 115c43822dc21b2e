/**
 * Every code system, profile URL and fixed code of the FHIR layer, in one
 * place. Sources: shared/reference/abdm-and-fhir.md §1–§7 (NRCeS FHIR IG
 * 6.5.0 for ABDM, checked against its FSH source), section numbers below.
 * Nothing here is invented: each code comes with its documented display.
 */
import type { HiType } from '../spec/hi-types.js';

/**
 * The NRCeS ABDM IG canonical base (reference §2).
 *
 * @example
 * NRCES_BASE //=> 'https://nrces.in/ndhm/fhir/r4'
 */
export const NRCES_BASE = 'https://nrces.in/ndhm/fhir/r4';

/**
 * The NRCeS IG version these rules follow (reference §2).
 *
 * @example
 * NRCES_IG_VERSION //=> '6.5.0'
 */
export const NRCES_IG_VERSION = '6.5.0';

/**
 * The canonical URL of an NRCeS profile (reference §2: `<base>/StructureDefinition/<Id>`).
 *
 * @example
 * profileUrl('PrescriptionRecord') //=> 'https://nrces.in/ndhm/fhir/r4/StructureDefinition/PrescriptionRecord'
 */
export function profileUrl(id: string): string {
  return `${NRCES_BASE}/StructureDefinition/${id}`;
}

/**
 * Profile URLs of the resources abha-link emits (reference §2).
 *
 * @example
 * PROFILES.DocumentBundle //=> 'https://nrces.in/ndhm/fhir/r4/StructureDefinition/DocumentBundle'
 */
export const PROFILES = {
  DocumentBundle: profileUrl('DocumentBundle'),
  PrescriptionRecord: profileUrl('PrescriptionRecord'),
  OPConsultRecord: profileUrl('OPConsultRecord'),
  DiagnosticReportRecord: profileUrl('DiagnosticReportRecord'),
  HealthDocumentRecord: profileUrl('HealthDocumentRecord'),
  DischargeSummaryRecord: profileUrl('DischargeSummaryRecord'),
  ImmunizationRecord: profileUrl('ImmunizationRecord'),
  WellnessRecord: profileUrl('WellnessRecord'),
  InvoiceRecord: profileUrl('InvoiceRecord'),
  ObservationVitalSigns: profileUrl('ObservationVitalSigns'),
  ObservationBodyMeasurement: profileUrl('ObservationBodyMeasurement'),
  ObservationLifestyle: profileUrl('ObservationLifestyle'),
  ObservationPhysicalActivity: profileUrl('ObservationPhysicalActivity'),
  Invoice: profileUrl('Invoice'),
  ChargeItem: profileUrl('ChargeItem'),
  Patient: profileUrl('Patient'),
  Practitioner: profileUrl('Practitioner'),
  Organization: profileUrl('Organization'),
  Encounter: profileUrl('Encounter'),
  Condition: profileUrl('Condition'),
  MedicationRequest: profileUrl('MedicationRequest'),
  ServiceRequest: profileUrl('ServiceRequest'),
  DocumentReference: profileUrl('DocumentReference'),
  Binary: profileUrl('Binary'),
  Procedure: profileUrl('Procedure'),
  Observation: profileUrl('Observation'),
  DiagnosticReportLab: profileUrl('DiagnosticReportLab'),
  AllergyIntolerance: profileUrl('AllergyIntolerance'),
  CarePlan: profileUrl('CarePlan'),
  Immunization: profileUrl('Immunization'),
  ImmunizationRecommendation: profileUrl('ImmunizationRecommendation'),
} as const;

/**
 * Terminology and identifier-type systems (reference §2 table).
 *
 * @example
 * SYSTEMS.icd10 //=> 'http://hl7.org/fhir/sid/icd-10'
 */
export const SYSTEMS = {
  snomed: 'http://snomed.info/sct',
  loinc: 'http://loinc.org',
  icd10: 'http://hl7.org/fhir/sid/icd-10',
  v2IdentifierType: 'http://terminology.hl7.org/CodeSystem/v2-0203',
  nrcesIdentifierType: 'https://nrces.in/ndhm/fhir/r4/CodeSystem/ndhm-identifier-type-code',
  confidentiality: 'http://terminology.hl7.org/CodeSystem/v3-Confidentiality',
  encounterClass: 'http://terminology.hl7.org/CodeSystem/v3-ActCode',
  conditionVerificationStatus: 'http://terminology.hl7.org/CodeSystem/condition-ver-status',
  /** AllergyIntolerance.clinicalStatus codes (base R4). */
  allergyClinicalStatus: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical',
  /** ImmunizationRecommendation forecast status codes (base R4). */
  immunizationRecommendationStatus: 'http://terminology.hl7.org/CodeSystem/immunization-recommendation-status',
  /** UCUM, the required system of Duration codes in base FHIR R4. */
  ucum: 'http://unitsofmeasure.org',
  /** NRCeS billing codes: ChargeItem.code and Invoice.type (ValueSets ndhm-chargeitem-types, ndhm-invoice-types). */
  nrcesBillingCodes: 'https://nrces.in/ndhm/fhir/r4/CodeSystem/ndhm-billing-codes',
  /** NRCeS price components: Invoice.lineItem.priceComponent.code (ValueSet ndhm-price-components). */
  nrcesPriceComponents: 'https://nrces.in/ndhm/fhir/r4/CodeSystem/ndhm-price-components',
  /** RFC 3986: the identifier value is itself a URI (base FHIR convention). */
  uri: 'urn:ietf:rfc:3986',
} as const;

/** A coding as abha-link writes it: every part present. */
export interface FixedCoding {
  readonly system: string;
  readonly code: string;
  readonly display: string;
}

const sct = (code: string, display: string): FixedCoding => ({ system: SYSTEMS.snomed, code, display });

/**
 * Identifier types (reference §6): v2-0203 `MR` (ABHA number, as in the IG
 * example), `MD` (medical licence), `PRN` (HFR facility id), and NRCeS
 * `ABHA` (ABHA address) and `HPID` (HPR id). Displays are the code systems'.
 *
 * @example
 * IDENTIFIER_TYPES.hfr //=> { system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'PRN', display: 'Provider number' }
 */
export const IDENTIFIER_TYPES = {
  abhaNumber: { system: SYSTEMS.v2IdentifierType, code: 'MR', display: 'Medical record number' },
  abhaAddress: { system: SYSTEMS.nrcesIdentifierType, code: 'ABHA', display: 'Ayushman Bharat Health Account (ABHA) ID' },
  licence: { system: SYSTEMS.v2IdentifierType, code: 'MD', display: 'Medical License number' },
  hpr: { system: SYSTEMS.nrcesIdentifierType, code: 'HPID', display: 'Healthcare Professional ID (HPID)' },
  hfr: { system: SYSTEMS.v2IdentifierType, code: 'PRN', display: 'Provider number' },
} as const satisfies Record<string, FixedCoding>;

/** The systems (namespaces) of the identifiers abha-link writes. */
export interface IdentifierSystems {
  /** ABHA number and ABHA address. */
  readonly abha: string;
  /** HPR id (doctor hpId). */
  readonly hpr: string;
  /** HFR facility id (hospital id). */
  readonly hfr: string;
  /** Medical licence number (doctor licNumber); none by default: state councils issue them. */
  readonly licence?: string;
}

/**
 * Default identifier systems: the hosts of the IG examples (reference §6,
 * `*.ndhm.gov.in`). NHA's own code uses `*.abdm.gov.in`
 * ({@link ABDM_IDENTIFIER_SYSTEMS}); the profiles enforce neither.
 *
 * @example
 * DEFAULT_IDENTIFIER_SYSTEMS.abha //=> 'https://healthid.ndhm.gov.in'
 */
export const DEFAULT_IDENTIFIER_SYSTEMS: IdentifierSystems = {
  abha: 'https://healthid.ndhm.gov.in',
  hpr: 'https://doctor.ndhm.gov.in',
  hfr: 'https://facility.ndhm.gov.in',
};

/**
 * The identifier systems of NHA's ABDM-wrapper (reference §6), for consumers that expect them.
 *
 * @example
 * toFhirBundles(input, { identifierSystems: ABDM_IDENTIFIER_SYSTEMS })
 */
export const ABDM_IDENTIFIER_SYSTEMS: IdentifierSystems = {
  abha: 'https://healthid.abdm.gov.in',
  hpr: 'https://doctor.abdm.gov.in',
  hfr: 'https://facility.abdm.gov.in',
};

/**
 * Every known host of each identifier namespace, used when reading FHIR in.
 *
 * @example
 * KNOWN_IDENTIFIER_SYSTEMS.hfr //=> ['https://facility.ndhm.gov.in', 'https://facility.abdm.gov.in']
 */
export const KNOWN_IDENTIFIER_SYSTEMS = {
  abha: ['https://healthid.ndhm.gov.in', 'https://healthid.abdm.gov.in'],
  hpr: ['https://doctor.ndhm.gov.in', 'https://doctor.abdm.gov.in'],
  hfr: ['https://facility.ndhm.gov.in', 'https://facility.abdm.gov.in'],
} as const;

/**
 * `meta.security` of every bundle, as in the IG example (reference §3.1).
 *
 * @example
 * CONFIDENTIALITY_VERY_RESTRICTED.code //=> 'V'
 */
export const CONFIDENTIALITY_VERY_RESTRICTED: FixedCoding = { system: SYSTEMS.confidentiality, code: 'V', display: 'very restricted' };

/**
 * Encounter class of an outpatient visit (v3-ActCode, reference §2, §7).
 *
 * @example
 * ENCOUNTER_CLASS_AMBULATORY.code //=> 'AMB'
 */
export const ENCOUNTER_CLASS_AMBULATORY: FixedCoding = { system: SYSTEMS.encounterClass, code: 'AMB', display: 'ambulatory' };

/**
 * Encounter class of a hospital stay (v3-ActCode): the Encounter of a DischargeSummaryRecord.
 *
 * @example
 * ENCOUNTER_CLASS_INPATIENT.code //=> 'IMP'
 */
export const ENCOUNTER_CLASS_INPATIENT: FixedCoding = { system: SYSTEMS.encounterClass, code: 'IMP', display: 'inpatient encounter' };

/** The fixed structural codes of the discharge and immunisation resources (base R4 code systems and the FHIR example LOINC code for a due date). */
export const STAY_CODES = {
  allergyActive: { system: SYSTEMS.allergyClinicalStatus, code: 'active', display: 'Active' },
  recommendationDue: { system: SYSTEMS.immunizationRecommendationStatus, code: 'due', display: 'Due' },
  /** LOINC 30980-7, the date criterion of a dose's due date (FHIR R4 value set immunization-recommendation-date-criterion). */
  dateVaccineDue: { system: SYSTEMS.loinc, code: '30980-7', display: 'Date vaccine due' },
} as const satisfies Record<string, FixedCoding>;

/**
 * Condition.verificationStatus codes of base R4 with their displays (reference §5).
 *
 * @example
 * VERIFICATION_STATUSES.confirmed //=> { system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status', code: 'confirmed', display: 'Confirmed' }
 */
export const VERIFICATION_STATUSES: Readonly<Record<string, FixedCoding>> = {
  unconfirmed: { system: SYSTEMS.conditionVerificationStatus, code: 'unconfirmed', display: 'Unconfirmed' },
  provisional: { system: SYSTEMS.conditionVerificationStatus, code: 'provisional', display: 'Provisional' },
  differential: { system: SYSTEMS.conditionVerificationStatus, code: 'differential', display: 'Differential' },
  confirmed: { system: SYSTEMS.conditionVerificationStatus, code: 'confirmed', display: 'Confirmed' },
  refuted: { system: SYSTEMS.conditionVerificationStatus, code: 'refuted', display: 'Refuted' },
  'entered-in-error': { system: SYSTEMS.conditionVerificationStatus, code: 'entered-in-error', display: 'Entered in Error' },
};

/**
 * The OPConsultRecord section slices (reference §4.2): code, exact display and the resource types their entries may reference.
 *
 * @example
 * OP_CONSULT_SECTIONS.InvestigationAdvice.coding.code //=> '721963009'
 */
export const OP_CONSULT_SECTIONS = {
  ChiefComplaints: { coding: sct('422843007', 'Chief complaint section'), entries: ['Condition'] },
  PhysicalExamination: { coding: sct('425044008', 'Physical exam section'), entries: ['Observation'] },
  Allergies: { coding: sct('722446000', 'Allergy record'), entries: ['AllergyIntolerance'] },
  MedicalHistory: { coding: sct('371529009', 'History and physical report'), entries: ['Condition', 'Procedure'] },
  FamilyHistory: { coding: sct('422432008', 'Family history section'), entries: ['FamilyMemberHistory'] },
  InvestigationAdvice: { coding: sct('721963009', 'Order document'), entries: ['ServiceRequest'] },
  Medications: { coding: sct('721912009', 'Medication summary document'), entries: ['MedicationStatement', 'MedicationRequest'] },
  FollowUp: { coding: sct('390906007', 'Follow-up encounter'), entries: ['Appointment'] },
  Procedure: { coding: sct('371525003', 'Clinical procedure report'), entries: ['Procedure'] },
  Referral: { coding: sct('306206005', 'Referral to service'), entries: ['ServiceRequest'] },
  OtherObservations: { coding: sct('404684003', 'Clinical finding'), entries: ['Observation'] },
  DocumentReference: { coding: sct('371530004', 'Clinical consultation report'), entries: ['DocumentReference'] },
} as const satisfies Record<string, { coding: FixedCoding; entries: readonly string[] }>;

/**
 * The DischargeSummaryRecord section slices (NRCeS IG 6.5.0
 * StructureDefinition-DischargeSummaryRecord): code, exact display and the
 * resource types their entries may reference. Several codes differ from
 * OPConsultRecord's for the same slice name.
 *
 * @example
 * DISCHARGE_SUMMARY_SECTIONS.Medications.coding.code //=> '1003606003'
 */
export const DISCHARGE_SUMMARY_SECTIONS = {
  ChiefComplaints: { coding: sct('422843007', 'Chief complaint section'), entries: ['Condition'] },
  PhysicalExamination: { coding: sct('425044008', 'Physical exam section'), entries: ['Observation'] },
  Allergies: { coding: sct('722446000', 'Allergy record'), entries: ['AllergyIntolerance'] },
  MedicalHistory: { coding: sct('1003642006', 'Past medical history section'), entries: ['Condition', 'Procedure'] },
  FamilyHistory: { coding: sct('422432008', 'Family history section'), entries: ['FamilyMemberHistory'] },
  Investigations: { coding: sct('721981007', 'Diagnostic studies report'), entries: ['DiagnosticReport'] },
  Medications: { coding: sct('1003606003', 'Medication history section'), entries: ['MedicationRequest'] },
  Procedures: { coding: sct('1003640003', 'History of past procedure section'), entries: ['Procedure'] },
  CarePlan: { coding: sct('734163000', 'Care plan'), entries: ['CarePlan'] },
  DocumentReference: { coding: sct('373942005', 'Discharge summary'), entries: ['DocumentReference'] },
} as const satisfies Record<string, { coding: FixedCoding; entries: readonly string[] }>;

/** The name of an OPConsultRecord section slice. */
export type OpConsultSlice = keyof typeof OP_CONSULT_SECTIONS;

/**
 * The WellnessRecord section slices (StructureDefinition-WellnessRecord,
 * IG 6.5.0): the fixed title of each and the resource types of its entries.
 *
 * @example
 * WELLNESS_SECTIONS['Vital Signs'] //=> ['Observation']
 */
export const WELLNESS_SECTIONS = {
  'Vital Signs': ['Observation'],
  'Body Measurement': ['Observation'],
  'Physical Activity': ['Observation'],
  'General Assessment': ['Observation'],
  'Women Health': ['Observation'],
  Lifestyle: ['Observation'],
  'Other Observations': ['Observation', 'Condition'],
  'Document Reference': ['DocumentReference'],
} as const satisfies Record<string, readonly string[]>;

/** How a record profile's section entries are constrained (reference §4). */
export interface SectionRule {
  /** The section code; `fixed` means exactly this coding, otherwise any SNOMED coding with code and display. Absent: the profile fixes none and abha-link writes none. */
  readonly coding?: FixedCoding;
  readonly fixed: boolean;
  /** Entry slices by `Reference.type`, each with its maximum count; closed (nothing else allowed). */
  readonly slices: Readonly<Record<string, number>>;
  readonly minEntries: number;
  readonly maxEntries: number;
  /** When true every entry must carry `type` (closed slicing by type, reference §10.6). */
  readonly typeRequired: boolean;
}

/**
 * Sections sliced by their fixed `title` (WellnessRecord, reference §4.5):
 * each title at most once, its entries referencing the resource types
 * listed; the slicing is open at the end.
 */
export interface TitledSectionsRule {
  readonly kind: 'titled';
  /** Section title → the resource types its entries may reference. */
  readonly slices: Readonly<Record<string, readonly string[]>>;
}

/** What abha-link knows of one record (Composition) profile. */
export interface RecordProfile {
  /** The ABDM hiType this profile carries. */
  readonly hiType: string;
  /** The profile id (`PrescriptionRecord`…), and its URL. */
  readonly id: string;
  readonly url: string;
  /** Composition.type.coding: fixed for all but DiagnosticReportRecord (reference §4.3); none for WellnessRecord and InvoiceRecord, whose profiles fix `type.text` only. */
  readonly type: FixedCoding | undefined;
  readonly typeFixed: boolean;
  /** Composition.type.text fixed by the profile (WellnessRecord, InvoiceRecord). */
  readonly typeText?: string;
  /** Composition.type.text and title as abha-link writes them. */
  readonly title: string;
  /** Composition.encounter required. */
  readonly encounterRequired: boolean;
  /** One fixed section, or the slices by section code of OPConsultRecord or DischargeSummaryRecord. */
  readonly section: SectionRule | 'op-consult' | 'discharge-summary' | TitledSectionsRule;
}

/**
 * The record profiles abha-link emits, by hiType (reference §1, §4). The
 * DiagnosticReportRecord type is not fixed; abha-link uses `721981007`
 * "Diagnostic studies report", the code of the IG's lab example, for the
 * type and its single section. Every other hiType is in
 * {@link OTHER_RECORD_PROFILES}; an entry here needs its section builder in
 * `profiles/index.ts` (both are compile-checked).
 */
export const RECORD_PROFILES = {
  Prescription: {
    hiType: 'Prescription',
    id: 'PrescriptionRecord',
    url: PROFILES.PrescriptionRecord,
    type: sct('440545006', 'Prescription record'),
    typeFixed: true,
    title: 'Prescription record',
    encounterRequired: false,
    section: {
      coding: sct('440545006', 'Prescription record'),
      fixed: true,
      slices: { MedicationRequest: Number.POSITIVE_INFINITY, Binary: 1 },
      minEntries: 1,
      maxEntries: Number.POSITIVE_INFINITY,
      typeRequired: true,
    },
  },
  OPConsultation: {
    hiType: 'OPConsultation',
    id: 'OPConsultRecord',
    url: PROFILES.OPConsultRecord,
    type: sct('371530004', 'Clinical consultation report'),
    typeFixed: true,
    title: 'OP consultation record',
    encounterRequired: true,
    section: 'op-consult',
  },
  DiagnosticReport: {
    hiType: 'DiagnosticReport',
    id: 'DiagnosticReportRecord',
    url: PROFILES.DiagnosticReportRecord,
    type: sct('721981007', 'Diagnostic studies report'),
    typeFixed: false,
    title: 'Diagnostic report',
    encounterRequired: false,
    section: {
      coding: sct('721981007', 'Diagnostic studies report'),
      fixed: false,
      slices: { DiagnosticReport: 1, DocumentReference: 1 },
      minEntries: 1,
      maxEntries: 2,
      typeRequired: true,
    },
  },
  HealthDocumentRecord: {
    hiType: 'HealthDocumentRecord',
    id: 'HealthDocumentRecord',
    url: PROFILES.HealthDocumentRecord,
    type: sct('419891008', 'Record artifact'),
    typeFixed: true,
    title: 'Health document record',
    encounterRequired: false,
    section: {
      coding: sct('419891008', 'Record artifact'),
      fixed: true,
      slices: { DocumentReference: Number.POSITIVE_INFINITY },
      minEntries: 1,
      maxEntries: Number.POSITIVE_INFINITY,
      typeRequired: false,
    },
  },
  DischargeSummary: {
    hiType: 'DischargeSummary',
    id: 'DischargeSummaryRecord',
    url: PROFILES.DischargeSummaryRecord,
    type: sct('373942005', 'Discharge summary'),
    typeFixed: true,
    title: 'Discharge summary',
    encounterRequired: true,
    section: 'discharge-summary',
  },
  ImmunizationRecord: {
    hiType: 'ImmunizationRecord',
    id: 'ImmunizationRecord',
    url: PROFILES.ImmunizationRecord,
    type: sct('41000179103', 'Immunization record'),
    typeFixed: true,
    title: 'Immunization record',
    encounterRequired: false,
    section: {
      coding: sct('41000179103', 'Immunization record'),
      fixed: true,
      slices: { Immunization: Number.POSITIVE_INFINITY, ImmunizationRecommendation: 1, DocumentReference: Number.POSITIVE_INFINITY },
      minEntries: 1,
      maxEntries: Number.POSITIVE_INFINITY,
      typeRequired: true,
    },
  },
  // WellnessRecord and InvoiceRecord (StructureDefinitions of IG 6.5.0): no type coding, type.text fixed.
  WellnessRecord: {
    hiType: 'WellnessRecord',
    id: 'WellnessRecord',
    url: PROFILES.WellnessRecord,
    type: undefined,
    typeFixed: false,
    typeText: 'Wellness Record',
    title: 'Wellness record',
    encounterRequired: false,
    section: { kind: 'titled', slices: WELLNESS_SECTIONS },
  },
  Invoice: {
    hiType: 'Invoice',
    id: 'InvoiceRecord',
    url: PROFILES.InvoiceRecord,
    type: undefined,
    typeFixed: false,
    typeText: 'Invoice Record',
    title: 'Invoice record',
    encounterRequired: false,
    section: { fixed: false, slices: { Invoice: 1 }, minEntries: 1, maxEntries: 1, typeRequired: true },
  },
} as const satisfies { readonly [K in HiType]?: RecordProfile & { readonly hiType: K } };

/** The hiTypes abha-link can turn into FHIR documents. */
export type FhirHiType = keyof typeof RECORD_PROFILES;

/**
 * The hiTypes with a FHIR mapping, in a stable order.
 *
 * @example
 * FHIR_HI_TYPES //=> ['Prescription', 'OPConsultation', 'DiagnosticReport', 'HealthDocumentRecord', 'DischargeSummary', 'ImmunizationRecord']
 */
export const FHIR_HI_TYPES: readonly FhirHiType[] = Object.keys(RECORD_PROFILES) as FhirHiType[];

/**
 * True when `hiType` has a FHIR mapping.
 *
 * @example
 * isFhirHiType('Prescription')     //=> true
 * isFhirHiType('WellnessRecord')   //=> false
 */
export function isFhirHiType(hiType: string): hiType is FhirHiType {
  return Object.hasOwn(RECORD_PROFILES, hiType);
}

/** A record profile abha-link knows (to read documents back in) but does not emit yet. */
export interface KnownRecordProfile {
  /** The profile id, e.g. `DischargeSummaryRecord`. */
  readonly id: string;
  /** Its fixed SNOMED CT Composition.type code, when the reference gives one. */
  readonly code?: string;
}

/**
 * The hiTypes without a FHIR mapping yet, each with what is known of its
 * record profile (reference §1, §4.5): `toFhirBundles` answers
 * `unsupported-hi-type` for them, `fromFhir` recognises their documents.
 * Every hiType is either here or in {@link RECORD_PROFILES} (a compile
 * error otherwise); supporting one moves it there.
 *
 * Every hiType has a mapping today, so it is empty.
 *
 * @example
 * Object.keys(OTHER_RECORD_PROFILES) //=> []
 */
export const OTHER_RECORD_PROFILES = {} as const satisfies { readonly [K in Exclude<HiType, FhirHiType>]: KnownRecordProfile };

/**
 * Composition types of the other record profiles, known from the reference
 * (§1, §4.5) but not emitted by abha-link; used to read documents back in.
 *
 * @example
 * OTHER_RECORD_TYPES.length //=> 0 (every hiType has a mapping)
 */
export const OTHER_RECORD_TYPES: ReadonlyArray<{ readonly hiType: string; readonly id: string; readonly code?: string }> = Object.entries(
  OTHER_RECORD_PROFILES as Readonly<Record<string, KnownRecordProfile>>,
).map(([hiType, p]) => ({ hiType, ...p }));

/**
 * The fixed namespace of abha-link's name-based (v5) UUIDs. Changing it
 * changes every id abha-link has ever produced: never do.
 *
 * @example
 * documentUuid(hipId, visitId, referenceNumber, hiType) // a UUID v5 in this namespace
 */
export const FHIR_ID_NAMESPACE = 'db8fef56-81bf-4902-bcb7-9f0dd915ceba';
