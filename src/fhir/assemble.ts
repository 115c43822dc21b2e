/**
 * The document assembler: one care context → one NRCeS document Bundle.
 * It owns what every record profile shares (ids, references, the people
 * and the visit, the Composition, the Bundle, warnings); the sections come
 * from the record profile's builder (`profiles/`).
 */
import { text } from '../util.js';
import type { Issue } from '../errors.js';
import type { Doctor, Hospital } from '../generated/types.js';
import {
  CONFIDENTIALITY_VERY_RESTRICTED,
  ENCOUNTER_CLASS_AMBULATORY,
  FHIR_HI_TYPES,
  IDENTIFIER_TYPES,
  PROFILES,
  RECORD_PROFILES,
  SYSTEMS,
  isFhirHiType,
  type IdentifierSystems,
  type RecordProfile,
} from './constants.js';
import { documentUuid, resourceUuid } from './ids.js';
import { coded, li, narrative } from './narrative.js';
import { ownValue } from './own.js';
import { withPrintedDocument } from './printed.js';
import { ENCOUNTER_DETAILS, PROFILE_BUILDERS } from './profiles/index.js';
import { CLINICAL_ONLY_CONTENT, HI_TYPE_FACTS, type ContentField, type HiType } from '../spec/hi-types.js';
import type { Bundle, BundleEntry, Composition, CompositionSection, ContactPoint, Encounter, FhirResource, Identifier, Organization, Patient, Practitioner, Reference } from './r4.js';
import { instantOf } from '../time.js';
import { fhirInstant } from './time.js';
import type { ToFhirOptions, FhirDocument, FhirPrintedDocument } from './to-fhir-types.js';
import { escapeXhtml, isolatedXhtml as iso } from './xhtml.js';
import { issue, printOnly, type Assembly, type CommonRefs, type DocumentJob, type EncounterDetails } from './assembly.js';

const urn = (id: string): string => `urn:uuid:${id}`;
const meta = (p: string): { profile: string[] } => ({ profile: [p] });
const errorCount = (issues: readonly Issue[]): number => issues.filter((i) => i.severity === 'error').length;

/** Builds one document; pushes issues to `out`; undefined when it cannot conform. */
export function assembleDocument(job: DocumentJob, options: ToFhirOptions, systems: IdentifierSystems, out: Issue[]): FhirDocument | undefined {
  const hiType = text(options.hiType) ?? job.hiType;
  if (!isFhirHiType(hiType)) {
    const message = `FHIR output is implemented for hiType ${FHIR_HI_TYPES.join(', ')}; choose one of them (HealthDocumentRecord carries any document)`;
    out.push(issue(options.hiType !== undefined ? '' : job.at.hiType(), 'unsupported-hi-type', message));
    return undefined;
  }
  const profile: RecordProfile = RECORD_PROFILES[hiType];
  const errorsBefore = errorCount(out);
  const root = documentUuid(job.hipId, job.visitId, job.cc.referenceNumber, hiType);
  const counters = new Map<string, number>();
  const nextId = (kind: string): string => {
    const i = counters.get(kind) ?? 0;
    counters.set(kind, i + 1);
    return resourceUuid(root, kind, i);
  };
  const entries: BundleEntry[] = [];
  const add = <R extends FhirResource>(resource: R & { id: string }): Reference => {
    entries.push({ fullUrl: urn(resource.id), resource });
    return { reference: urn(resource.id), type: resource.resourceType };
  };
  const report = (i: Issue): void => void out.push(i);
  const refs = commonResources(job, systems, nextId, add, report, ENCOUNTER_DETAILS[hiType]?.(job) ?? {});
  const compositionId = nextId('Composition');
  const assembly: Assembly = { job, hiType, profile, content: job.cc.bundleData, options, refs, nextId, add, report };
  const timestamp = timestampText(options, job);
  const printed = printedDocumentOf(options, job.cc.referenceNumber);
  const built = PROFILE_BUILDERS[hiType](assembly);
  reportClinicalOutside(assembly);
  const sections = printed === undefined || errorCount(out) > errorsBefore ? built : withPrintedDocument(assembly, built, printed, timestamp);
  if (errorCount(out) > errorsBefore) return undefined;
  const composition = compositionOf(compositionId, assembly, sections);
  const bundle: Bundle = {
    resourceType: 'Bundle',
    id: root,
    meta: { versionId: '1', lastUpdated: timestamp, profile: [PROFILES.DocumentBundle], security: [{ ...CONFIDENTIALITY_VERY_RESTRICTED }] },
    identifier: options.bundleIdentifierSystem !== undefined ? { system: options.bundleIdentifierSystem, value: job.cc.referenceNumber } : { system: SYSTEMS.uri, value: urn(root) },
    type: 'document',
    timestamp,
    // Composition first, then the people and the visit, then the content.
    entry: [{ fullUrl: urn(compositionId), resource: composition }, ...entries],
  };
  return { referenceNumber: job.cc.referenceNumber, hiType, profile: profile.url, bundle };
}

/** The Composition: profile type and title, the people, the visit, the sections. */
function compositionOf(id: string, a: Assembly, sections: CompositionSection[]): Composition {
  const { job, profile, refs } = a;
  const p = job.patient;
  const { doctor, hospital } = a.content;
  return {
    resourceType: 'Composition',
    id,
    meta: meta(profile.url),
    text: narrative(
      `<p><b>${escapeXhtml(profile.title)}</b></p>${li([`Patient: ${iso(p.name ?? p.abhaAddress)}`, `Doctor: ${iso(doctor.name)}`, `Facility: ${iso(hospital.name)}`, `Date: ${iso(job.when)}`])}`,
    ),
    status: 'final',
    // WellnessRecord and InvoiceRecord fix type.text and no coding: none is invented.
    type: profile.type !== undefined ? coded(profile.type) : { text: profile.typeText ?? profile.title },
    subject: refs.patient,
    encounter: refs.encounter,
    date: job.when,
    author: [{ ...refs.practitioner, display: doctor.name }],
    title: profile.title,
    custodian: refs.organization,
    section: sections,
  };
}

/** Warns about clinical-input content (an inpatient stay, immunisations) that this record profile has no place for. */
function reportClinicalOutside(a: Assembly): void {
  const clinical = a.job.clinical;
  if (clinical === undefined) return;
  const holds: readonly ContentField[] = HI_TYPE_FACTS[a.hiType].holds;
  for (const [field, home] of Object.entries(CLINICAL_ONLY_CONTENT) as Array<[ContentField, HiType]>) {
    const v: unknown = clinical[field as keyof typeof clinical];
    if (v === undefined || (Array.isArray(v) && v.length === 0) || holds.includes(field)) continue;
    a.report(
      issue(a.job.at.content(field), 'content-not-in-profile', `${field} has no place in a ${a.profile.id}; it is left out of this document. Use hiType ${home} to carry it into FHIR`, 'warning'),
    );
  }
}

/** Patient, Practitioner, Organization and Encounter, added in that order; their references. */
function commonResources(
  job: DocumentJob,
  systems: IdentifierSystems,
  nextId: (kind: string) => string,
  add: <R extends FhirResource>(resource: R & { id: string }) => Reference,
  report: (i: Issue) => void,
  encounterDetails: EncounterDetails,
): CommonRefs {
  const patient = add(patientResource(job, systems, nextId('Patient'), report));
  const practitioner = add(practitionerResource(job, systems, nextId('Practitioner'), report));
  const organization = add(organizationResource(job.cc.bundleData.hospital, text(job.hospitalAddress), systems, nextId('Organization')));
  const encounterRes: Encounter & { id: string } = {
    resourceType: 'Encounter',
    id: nextId('Encounter'),
    meta: meta(PROFILES.Encounter),
    identifier: [{ value: job.visitId }],
    status: 'finished',
    class: { ...ENCOUNTER_CLASS_AMBULATORY },
    subject: patient,
    period: { start: job.when },
    serviceProvider: organization,
    ...encounterDetails,
  };
  return { patient, practitioner, organization, encounter: add(encounterRes) };
}

const GENDERS: Readonly<Record<string, Patient['gender']>> = { m: 'male', male: 'male', f: 'female', female: 'female', o: 'other', other: 'other', u: 'unknown', unknown: 'unknown' };

/** Patient: from the clinical input's patient, or the ABHA address alone for a link request. */
function patientResource(job: DocumentJob, systems: IdentifierSystems, id: string, report: (i: Issue) => void): Patient & { id: string } {
  const p = job.patient;
  const identifier: Identifier[] = [];
  if (p.ABHANumber !== undefined) identifier.push({ type: coded(IDENTIFIER_TYPES.abhaNumber), system: systems.abha, value: p.ABHANumber });
  identifier.push({ type: coded(IDENTIFIER_TYPES.abhaAddress), system: systems.abha, value: p.abhaAddress });
  const gender = p.gender === undefined ? undefined : ownValue(GENDERS, p.gender.toLowerCase());
  if (p.gender !== undefined && gender === undefined)
    report(issue(job.at.patient('gender'), 'gender-not-mapped', 'gender is not one of M, F, O, U (or male, female, other, unknown); it is left out of the FHIR Patient', 'warning'));
  if (p.age !== undefined && p.birthDate === undefined)
    report(issue(job.at.patient('age'), 'age-not-mapped', 'age has no place in a FHIR Patient, which records a birthDate; give patient.birthDate to carry it', 'warning'));
  return {
    resourceType: 'Patient',
    id,
    meta: meta(PROFILES.Patient),
    identifier,
    ...(p.name !== undefined ? { name: [{ text: p.name }] } : {}),
    ...(gender !== undefined ? { gender } : {}),
    ...(p.birthDate !== undefined ? { birthDate: p.birthDate } : {}),
    ...(p.mobile !== undefined ? { telecom: [{ system: 'phone', value: p.mobile, use: 'mobile' }] } : {}),
    ...(p.address !== undefined ? { address: [{ text: p.address }] } : {}),
  };
}

/**
 * Practitioner: licence number (MD, its assigner the council that registered it) and HPR id (HPID); the
 * profile needs at least one identifier. Qualifications in words (qualification.code.text). The specialty
 * has no place in a Practitioner (R4 keeps it in PractitionerRole, which no record profile holds): a warning.
 */
function practitionerResource(job: DocumentJob, systems: IdentifierSystems, id: string, report: (i: Issue) => void): Practitioner & { id: string } {
  const doctor: Doctor = job.cc.bundleData.doctor;
  const { qualification, specialty, council } = job.details?.doctor ?? {};
  const identifier: Identifier[] = [];
  if (doctor.licNumber !== undefined)
    identifier.push({
      type: coded(IDENTIFIER_TYPES.licence),
      ...(systems.licence !== undefined ? { system: systems.licence } : {}),
      value: doctor.licNumber,
      ...(council !== undefined ? { assigner: { display: council } } : {}),
    });
  if (doctor.hpId !== undefined) identifier.push({ type: coded(IDENTIFIER_TYPES.hpr), system: systems.hpr, value: doctor.hpId });
  if (identifier.length === 0) report(issue(job.at.doctor(), 'practitioner-identifier-required', 'the doctor needs licNumber or hpId: the NRCeS Practitioner profile requires an identifier'));
  if (council !== undefined && doctor.licNumber === undefined)
    report(printOnly(job.at.doctor('council'), 'council names who registered licNumber (Practitioner.identifier.assigner); without a licNumber it has no place in FHIR'));
  if (specialty !== undefined) report(printOnly(job.at.doctor('specialty'), 'specialty has no place in the NRCeS Practitioner (R4 keeps it in PractitionerRole, which no record profile holds)'));
  return {
    resourceType: 'Practitioner',
    id,
    meta: meta(PROFILES.Practitioner),
    identifier,
    name: [{ text: doctor.name }],
    ...(qualification !== undefined ? { qualification: [{ code: { text: qualification } }] } : {}),
  };
}

/** Organization: HFR id (PRN) with its system, name, phone, email and postal address (in words, Address.text). */
function organizationResource(hospital: Hospital, address: string | undefined, systems: IdentifierSystems, id: string): Organization & { id: string } {
  const telecom: ContactPoint[] = [];
  if (hospital.phone !== undefined) telecom.push({ system: 'phone', value: hospital.phone });
  if (hospital.email !== undefined) telecom.push({ system: 'email', value: hospital.email });
  return {
    resourceType: 'Organization',
    id,
    meta: meta(PROFILES.Organization),
    identifier: [{ type: coded(IDENTIFIER_TYPES.hfr), system: systems.hfr, value: hospital.id }],
    name: hospital.name,
    ...(telecom.length > 0 ? { telecom } : {}),
    ...(address !== undefined ? { address: [{ text: address }] } : {}),
  };
}

/** The printed document given for this care context, if any. */
function printedDocumentOf(options: ToFhirOptions, referenceNumber: string): FhirPrintedDocument | undefined {
  const all = options.printedDocuments;
  return all !== undefined && Object.hasOwn(all, referenceNumber) ? all[referenceNumber] : undefined;
}

/** `Bundle.timestamp`: the option, else the visit time, in the facility's offset. */
function timestampText(options: ToFhirOptions, job: DocumentJob): string {
  const t = options.timestamp;
  const instant = t === undefined ? job.instant : t instanceof Date ? t : (instantOf(t, job.timeZone) as Date);
  return fhirInstant(instant, job.timeZone);
}
