/**
 * Care contexts → NRCeS FHIR R4 document Bundles, one per care context,
 * following the record profile of its hiType (reference §3–§7).
 */
import { compact, text } from '../builders/check.js';
import { detectInputKind } from '../input-kind.js';
import { safeBuildLinkRequest } from '../builders/link-request.js';
import { pointer, type Issue } from '../errors.js';
import type { CareContext, ClinicalInput, Diagnosis, Doctor, Hospital, LabInvestigation, LinkCareContextRequest, Medication } from '../generated/types.js';
import { DEFAULT_TIME_ZONE } from '../spec/constants.js';
import { lintLinkRequest, type LintOptions } from '../validation/lint.js';
import { validate } from '../validation/validate.js';
import {
  CONFIDENTIALITY_VERY_RESTRICTED,
  DEFAULT_IDENTIFIER_SYSTEMS,
  ENCOUNTER_CLASS_AMBULATORY,
  FHIR_HI_TYPES,
  IDENTIFIER_TYPES,
  OP_CONSULT_SECTIONS,
  PROFILES,
  RECORD_PROFILES,
  SYSTEMS,
  VERIFICATION_STATUSES,
  isFhirHiType,
  type FhirHiType,
  type FixedCoding,
  type IdentifierSystems,
  type RecordProfile,
} from './constants.js';
import { NO_DOSAGE_TEXT, dosageOf } from './dosage.js';
import { documentUuid, resourceUuid } from './ids.js';
import { PRIMITIVE_PATTERNS } from './structure.js';
import { ownValue } from './own.js';
import type {
  Binary,
  Bundle,
  BundleEntry,
  Composition,
  CompositionSection,
  Condition,
  ContactPoint,
  DocumentReference,
  Encounter,
  FhirResource,
  Identifier,
  MedicationRequest,
  Narrative,
  Organization,
  Patient,
  Practitioner,
  Reference,
  ServiceRequest,
} from './r4.js';
import { fhirInstant, instantOf, visitDateTime } from './time.js';
import { isKnownTimeZone } from '../time.js';
import { escapeXhtml, isolatedXhtml, narrativeDiv } from './xhtml.js';

/** The bytes of a document named by a `documentUrl`, to embed in the bundle. */
export interface FhirAttachmentInput {
  /** MIME type, e.g. `application/pdf`. */
  readonly contentType: string;
  /** The document itself: bytes, or base64 text. */
  readonly data: Uint8Array | string;
  /** A title for the document, shown to the patient. */
  readonly title?: string;
}

/** Options of {@link toFhirBundles}. */
export interface ToFhirOptions {
  /**
   * When the bundles were assembled: `Bundle.timestamp` and `meta.lastUpdated`
   * (a Date, or ISO text with an offset). The library never reads the clock;
   * by default the visit time is used, so the output depends on the input only.
   */
  readonly timestamp?: Date | string;
  /** Emit every care context as this hiType (overrides the input's). */
  readonly hiType?: string;
  /**
   * The documents named by `documentUrl`, keyed by the URL. NRCeS
   * DocumentReference and Binary need the bytes (`data`); a URL alone is
   * never embedded.
   */
  readonly attachments?: Readonly<Record<string, FhirAttachmentInput>>;
  /** Identifier systems (namespaces) to write; default {@link DEFAULT_IDENTIFIER_SYSTEMS}. */
  readonly identifierSystems?: Partial<IdentifierSystems>;
  /**
   * `Bundle.identifier.system`. When given, the identifier value is the
   * care-context referenceNumber; by default the identifier is the bundle's
   * own UUID (`urn:ietf:rfc:3986` / `urn:uuid:…`).
   */
  readonly bundleIdentifierSystem?: string;
  /** The OPConsultRecord section for diagnoses: `ChiefComplaints` (default) or `MedicalHistory`. */
  readonly opConsultDiagnosisSection?: 'ChiefComplaints' | 'MedicalHistory';
  /** Facility time zone for link requests, whose visit has a date only. Default Asia/Kolkata. */
  readonly timeZone?: string;
  /**
   * Lint the input as `buildLinkRequest` does (lint errors stop the
   * conversion, lint warnings are returned as warnings). Default: on, with
   * default lint options; `false` skips lint (the schema checks always run).
   * The "visit date in the future" rule runs only when `lint.now` is given:
   * the library never reads the clock, the CLI passes it.
   */
  readonly lint?: LintOptions | false;
}

/** One document: the bundle of one care context. */
export interface FhirDocument {
  readonly referenceNumber: string;
  readonly hiType: FhirHiType;
  /** The record profile URL of its Composition. */
  readonly profile: string;
  readonly bundle: Bundle;
}

/** What {@link toFhirBundles} returns. */
export type ToFhirResult =
  | { readonly success: true; readonly bundles: readonly FhirDocument[]; readonly warnings: readonly Issue[] }
  | { readonly success: false; readonly issues: readonly Issue[] };

/** Where each part of a care context came from in the caller's input. */
interface Locator {
  content(...tokens: Array<string | number>): string;
  hospital(...tokens: string[]): string;
  doctor(...tokens: string[]): string;
  patient(...tokens: string[]): string;
  visit(...tokens: string[]): string;
  hiType(): string;
}

interface PatientData {
  readonly abhaAddress: string;
  readonly ABHANumber?: string;
  readonly name?: string;
  readonly gender?: string;
  readonly birthDate?: string;
  readonly age?: number;
}

interface Job {
  readonly cc: CareContext;
  readonly hiType: string;
  readonly hipId: string;
  readonly visitId: string;
  readonly when: string;
  readonly instant: Date;
  readonly timeZone: string;
  readonly patient: PatientData;
  readonly followUp: string | undefined;
  readonly at: Locator;
}

const issue = (path: string, code: string, message: string, severity: 'error' | 'warning' = 'error'): Issue => ({ path, code, message, severity });



function jobsFromLinkRequest(req: LinkCareContextRequest, timeZone: string): Job[] | Issue[] {
  const instant = instantOf(req.visitDate, timeZone);
  if (instant === undefined) return [issue('/visitDate', 'invalid-date', 'visitDate must be a calendar date YYYY-MM-DD')];
  return req.careContexts.map((cc, i) => {
    const base = ['careContexts', i] as const;
    return {
      cc,
      hiType: cc.hiType,
      hipId: req.hipId,
      visitId: req.visitId,
      when: req.visitDate,
      instant,
      timeZone,
      patient: { abhaAddress: req.abhaAddress },
      followUp: undefined,
      at: {
        content: (...t) => pointer(...base, 'bundleData', ...t),
        hospital: (...t) => pointer(...base, 'bundleData', 'hospital', ...t),
        doctor: (...t) => pointer(...base, 'bundleData', 'doctor', ...t),
        patient: () => '/abhaAddress',
        visit: () => '/visitDate',
        hiType: () => pointer(...base, 'hiType'),
      },
    };
  });
}

function jobsFromClinicalInput(input: ClinicalInput, lint: LintOptions | false, warnings: Issue[]): Job[] | Issue[] {
  const built = safeBuildLinkRequest(input, { lint });
  if (!built.success) return [...built.issues];
  warnings.push(...built.warnings);
  const req = built.value;
  const timeZone = text(input.visit.timeZone) ?? DEFAULT_TIME_ZONE;
  const when = visitDateTime(input.visit.at, timeZone);
  const instant = instantOf(input.visit.at, timeZone);
  if (when === undefined || instant === undefined) return [issue('/visit/at', 'invalid-datetime', 'at must be a real date and time (ISO 8601, e.g. 2026-11-20T10:30:00+05:30)')];
  const p = input.patient;
  const patient: PatientData = {
    abhaAddress: req.abhaAddress,
    ...compact({ ABHANumber: text(p.ABHANumber), name: text(p.name), gender: text(p.gender), birthDate: text(p.birthDate), age: p.age }),
  };
  return req.careContexts.map((cc, i) => {
    const own = input.careContexts?.[i];
    const base: Array<string | number> = input.careContexts === undefined ? [] : ['careContexts', i];
    return {
      cc,
      hiType: cc.hiType,
      hipId: req.hipId,
      visitId: req.visitId,
      when,
      instant,
      timeZone,
      patient,
      followUp: text(input.visit.followUp),
      at: {
        content: (...t) => pointer(...base, ...t),
        hospital: (...t) => pointer('hospital', ...t),
        doctor: (...t) => (own?.doctor !== undefined ? pointer(...base, 'doctor', ...t) : pointer('doctor', ...t)),
        patient: (...t) => pointer('patient', ...t),
        visit: (...t) => pointer('visit', ...t),
        hiType: () => (text(own?.hiType ?? (input.careContexts === undefined ? input.hiType : undefined)) !== undefined ? pointer(...base, 'hiType') : pointer(...base)),
      },
    };
  });
}

/** Base64 text of attachment data, or undefined when it is not valid. */
function base64Of(data: Uint8Array | string): string | undefined {
  if (data instanceof Uint8Array) return data.length === 0 ? undefined : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
  if (typeof data !== 'string') return undefined;
  const s = data.replace(/\s+/g, '');
  if (s === '' || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  return s;
}

const GENDERS: Readonly<Record<string, Patient['gender']>> = { m: 'male', male: 'male', f: 'female', female: 'female', o: 'other', other: 'other', u: 'unknown', unknown: 'unknown' };

const VERIFICATION_CODES = Object.keys(VERIFICATION_STATUSES).join(', ');

function coded(c: FixedCoding): { coding: [{ system: string; code: string; display: string }]; text: string } {
  return { coding: [{ system: c.system, code: c.code, display: c.display }], text: c.display };
}

function narrative(inner: string): Narrative {
  return { status: 'generated', div: narrativeDiv(inner) };
}

/** A list of narrative lines, each already XHTML (values isolated with {@link isolatedXhtml}). */
const li = (items: readonly string[]): string => `<ul>${items.map((t) => `<li>${t}</li>`).join('')}</ul>`;
const iso = isolatedXhtml;
const paragraphs = (text: string): string =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => `<p>${iso(l)}</p>`)
    .join('');

// Narrative lines: every value in its own isolate, so a bidi control in one cannot reorder what follows it.
function diagnosisLine(d: Diagnosis): string {
  return `${iso(d.diagnosisName)}${d.icdCode !== undefined ? ` (ICD-10 ${iso(d.icdCode)})` : ''}${d.status !== undefined ? `, ${iso(d.status)}` : ''}`;
}
function medicationLine(m: Medication): string {
  const parts: string[] = [];
  if (m.dosage !== undefined) parts.push(iso(m.dosage));
  if (m.frequency !== undefined) parts.push(iso(m.frequency));
  if (m.duration !== undefined) parts.push(`for ${iso(m.duration)}`);
  return `${iso(m.drugName)}${parts.length > 0 ? `: ${parts.join('; ')}` : ''}${m.instructions !== undefined ? ` (${iso(m.instructions)})` : ''}`;
}
function labLine(l: LabInvestigation): string {
  return `${iso(l.testName)}${l.instructions !== undefined ? ` (${iso(l.instructions)})` : ''}`;
}

/** Builds one document; pushes issues; undefined when it cannot conform. */
function buildDocument(job: Job, options: ToFhirOptions, systems: IdentifierSystems, out: Issue[]): FhirDocument | undefined {
  const { cc, at } = job;
  const hiType = text(options.hiType) ?? job.hiType;
  if (!isFhirHiType(hiType)) {
    out.push(
      issue(
        options.hiType !== undefined ? '' : at.hiType(),
        'unsupported-hi-type',
        `FHIR output is implemented for hiType ${FHIR_HI_TYPES.join(', ')}; choose one of them (HealthDocumentRecord carries any document)`,
      ),
    );
    return undefined;
  }
  const profile: RecordProfile = RECORD_PROFILES[hiType];
  const errorsBefore = out.filter((i) => i.severity === 'error').length;
  const b = cc.bundleData;
  const root = documentUuid(job.hipId, job.visitId, cc.referenceNumber, hiType);
  const urn = (id: string): string => `urn:uuid:${id}`;
  const ids = { n: new Map<string, number>() };
  const nextId = (kind: string): string => {
    const i = ids.n.get(kind) ?? 0;
    ids.n.set(kind, i + 1);
    return resourceUuid(root, kind, i);
  };
  const entries: BundleEntry[] = [];
  const add = <R extends FhirResource>(resource: R & { id: string }): Reference => {
    entries.push({ fullUrl: urn(resource.id), resource });
    return { reference: urn(resource.id), type: resource.resourceType };
  };
  const meta = (p: string): { profile: string[] } => ({ profile: [p] });

  // Patient: from the clinical input's patient, or the ABHA address alone for a link request.
  const p = job.patient;
  const patientIdentifiers: Identifier[] = [];
  if (p.ABHANumber !== undefined) patientIdentifiers.push({ type: coded(IDENTIFIER_TYPES.abhaNumber), system: systems.abha, value: p.ABHANumber });
  patientIdentifiers.push({ type: coded(IDENTIFIER_TYPES.abhaAddress), system: systems.abha, value: p.abhaAddress });
  const gender = p.gender === undefined ? undefined : ownValue(GENDERS, p.gender.toLowerCase());
  if (p.gender !== undefined && gender === undefined)
    out.push(issue(at.patient('gender'), 'gender-not-mapped', 'gender is not one of M, F, O, U (or male, female, other, unknown); it is left out of the FHIR Patient', 'warning'));
  if (p.age !== undefined && p.birthDate === undefined)
    out.push(issue(at.patient('age'), 'age-not-mapped', 'age has no place in a FHIR Patient, which records a birthDate; give patient.birthDate to carry it', 'warning'));
  const patientId = nextId('Patient');
  const patientRes: Patient = {
    resourceType: 'Patient',
    id: patientId,
    meta: meta(PROFILES.Patient),
    identifier: patientIdentifiers,
    ...(p.name !== undefined ? { name: [{ text: p.name }] } : {}),
    ...(gender !== undefined ? { gender } : {}),
    ...(p.birthDate !== undefined ? { birthDate: p.birthDate } : {}),
  };

  // Practitioner: licence number (MD) and HPR id (HPID); the profile needs at least one identifier.
  const doctor: Doctor = b.doctor;
  const practitionerIdentifiers: Identifier[] = [];
  if (doctor.licNumber !== undefined)
    practitionerIdentifiers.push({ type: coded(IDENTIFIER_TYPES.licence), ...(systems.licence !== undefined ? { system: systems.licence } : {}), value: doctor.licNumber });
  if (doctor.hpId !== undefined) practitionerIdentifiers.push({ type: coded(IDENTIFIER_TYPES.hpr), system: systems.hpr, value: doctor.hpId });
  if (practitionerIdentifiers.length === 0)
    out.push(issue(at.doctor(), 'practitioner-identifier-required', 'the doctor needs licNumber or hpId: the NRCeS Practitioner profile requires an identifier'));
  const practitionerId = nextId('Practitioner');
  const practitionerRes: Practitioner = { resourceType: 'Practitioner', id: practitionerId, meta: meta(PROFILES.Practitioner), identifier: practitionerIdentifiers, name: [{ text: doctor.name }] };

  // Organization: HFR id (PRN) with its system, name, phone and email.
  const hospital: Hospital = b.hospital;
  const telecom: ContactPoint[] = [];
  if (hospital.phone !== undefined) telecom.push({ system: 'phone', value: hospital.phone });
  if (hospital.email !== undefined) telecom.push({ system: 'email', value: hospital.email });
  const organizationId = nextId('Organization');
  const organizationRes: Organization = {
    resourceType: 'Organization',
    id: organizationId,
    meta: meta(PROFILES.Organization),
    identifier: [{ type: coded(IDENTIFIER_TYPES.hfr), system: systems.hfr, value: hospital.id }],
    name: hospital.name,
    ...(telecom.length > 0 ? { telecom } : {}),
  };

  const compositionId = nextId('Composition');
  const patientRef = { reference: urn(patientId), type: 'Patient' };
  const practitionerRef = { reference: urn(practitionerId), type: 'Practitioner' };
  const organizationRef = { reference: urn(organizationId), type: 'Organization' };
  const encounterId = nextId('Encounter');
  const encounterRef = { reference: urn(encounterId), type: 'Encounter' };
  const encounterRes: Encounter = {
    resourceType: 'Encounter',
    id: encounterId,
    meta: meta(PROFILES.Encounter),
    identifier: [{ value: job.visitId }],
    status: 'finished',
    class: { ...ENCOUNTER_CLASS_AMBULATORY },
    subject: patientRef,
    period: { start: job.when },
    serviceProvider: organizationRef,
  };
  // Composition first, then the people and the visit, then the content.
  const head: BundleEntry[] = [];
  entries.push(
    { fullUrl: urn(patientId), resource: patientRes },
    { fullUrl: urn(practitionerId), resource: practitionerRes },
    { fullUrl: urn(organizationId), resource: organizationRes },
    { fullUrl: urn(encounterId), resource: encounterRes },
  );

  const diagnoses = b.diagnosis ?? [];
  const medications = b.medications ?? [];
  const labs = b.labInvestigations ?? [];
  const misfit = (field: string, what: string): void => {
    out.push(
      issue(
        at.content(field),
        'content-not-in-profile',
        `${what} ${hiType === 'Prescription' ? 'has no place in a PrescriptionRecord' : `has no place in a ${profile.id}`}; it is left out of this document. Use hiType OPConsultation (OPConsultRecord), which holds diagnoses, medications, lab investigations and advice`,
        'warning',
      ),
    );
  };

  const conditions = (): Reference[] =>
    diagnoses.map((d, i) => {
      if (d.icdCode !== undefined && !(PRIMITIVE_PATTERNS.code as RegExp).test(d.icdCode))
        out.push(issue(at.content('diagnosis', i, 'icdCode'), 'invalid-code', 'icdCode cannot be a FHIR code: it must have no tabs or line breaks and no leading, trailing or repeated spaces, e.g. E11.9'));
      const status = d.status === undefined ? undefined : ownValue(VERIFICATION_STATUSES, d.status.toLowerCase());
      if (d.status !== undefined && status === undefined)
        out.push(issue(at.content('diagnosis', i, 'status'), 'status-not-mapped', `status is not a FHIR verification status (${VERIFICATION_CODES}); it is left out of the Condition`, 'warning'));
      const c: Condition = {
        resourceType: 'Condition',
        id: nextId('Condition'),
        meta: meta(PROFILES.Condition),
        ...(status !== undefined ? { verificationStatus: { coding: [{ system: status.system, code: status.code, display: status.display }] } } : {}),
        code: d.icdCode !== undefined ? { coding: [{ system: SYSTEMS.icd10, code: d.icdCode, display: d.diagnosisName }], text: d.diagnosisName } : { text: d.diagnosisName },
        subject: patientRef,
        encounter: encounterRef,
        recordedDate: job.when,
      };
      return add(c as Condition & { id: string });
    });
  const medicationRequests = (reasons: readonly Reference[]): Reference[] =>
    medications.map((m, i) => {
      if (m.dosage === undefined && m.frequency === undefined && m.duration === undefined && m.instructions === undefined)
        out.push(issue(at.content('medications', i), 'medication-without-dosage', `the medication has no dosage, frequency, duration or instructions; the NRCeS MedicationRequest requires a dosageInstruction, so it says "${NO_DOSAGE_TEXT}"`, 'warning'));
      const mr: MedicationRequest = {
        resourceType: 'MedicationRequest',
        id: nextId('MedicationRequest'),
        meta: meta(PROFILES.MedicationRequest),
        status: 'active',
        intent: 'order',
        medicationCodeableConcept: { text: m.drugName },
        subject: patientRef,
        encounter: encounterRef,
        authoredOn: job.when,
        requester: practitionerRef,
        ...(reasons.length > 0 ? { reasonReference: reasons.map((r) => ({ ...r })) } : {}),
        dosageInstruction: [dosageOf(m)],
      };
      return add(mr as MedicationRequest & { id: string });
    });
  const serviceRequests = (): Reference[] =>
    labs.map((l) => {
      const sr: ServiceRequest = {
        resourceType: 'ServiceRequest',
        id: nextId('ServiceRequest'),
        meta: meta(PROFILES.ServiceRequest),
        status: 'active',
        intent: 'order',
        code: { text: l.testName },
        subject: patientRef,
        encounter: encounterRef,
        authoredOn: job.when,
        requester: practitionerRef,
        ...(l.instructions !== undefined ? { patientInstruction: l.instructions } : {}),
      };
      return add(sr as ServiceRequest & { id: string });
    });

  /** The embedded document, when its bytes were supplied; a problem code otherwise. */
  const documentBytes = (): { contentType: string; data: string; title?: string } | 'none' | 'not-supplied' | 'invalid' => {
    const url = b.documentUrl;
    if (url === undefined) return 'none';
    const a = options.attachments !== undefined && Object.hasOwn(options.attachments, url) ? options.attachments[url] : undefined;
    if (a === undefined) return 'not-supplied';
    const data = base64Of(a.data);
    const contentType = typeof a.contentType === 'string' ? a.contentType.trim() : '';
    if (data === undefined || !/^[A-Za-z0-9!#$&^_.+-]{1,127}\/[A-Za-z0-9!#$&^_.+-]{1,127}$/.test(contentType)) return 'invalid';
    const title = typeof a.title === 'string' ? text(a.title) : undefined;
    return { contentType, data, ...(title !== undefined ? { title } : {}) };
  };
  const reportDocumentProblem = (state: 'not-supplied' | 'invalid', required: boolean): void => {
    if (state === 'invalid') {
      out.push(issue(at.content('documentUrl'), 'invalid-attachment', 'the document supplied for this documentUrl (options.attachments) needs a MIME contentType such as application/pdf and non-empty base64 data'));
      return;
    }
    out.push(
      required
        ? issue(at.content('documentUrl'), 'document-data-required', `a documentUrl alone cannot make a conformant ${profile.id}: the NRCeS DocumentReference profile requires the document's bytes (attachment data); supply them in options.attachments keyed by the URL (CLI: --attach URL=FILE)`)
        : issue(at.content('documentUrl'), 'document-not-embedded', 'documentUrl was not embedded: NRCeS DocumentReference and Binary require the document\'s bytes, not a URL; supply them in options.attachments keyed by the URL (CLI: --attach URL=FILE) to include the document', 'warning'),
    );
  };
  const documentReference = (doc: { contentType: string; data: string; title?: string }): Reference => {
    const dr: DocumentReference = {
      resourceType: 'DocumentReference',
      id: nextId('DocumentReference'),
      meta: meta(PROFILES.DocumentReference),
      status: 'current',
      subject: patientRef,
      author: [practitionerRef],
      custodian: organizationRef,
      content: [{ attachment: { contentType: doc.contentType, data: doc.data, url: b.documentUrl as string, ...(doc.title !== undefined ? { title: doc.title } : {}) } }],
      context: { encounter: [encounterRef] },
    };
    return add(dr as DocumentReference & { id: string });
  };
  const documentLine = (doc: { title?: string }): string => `Document: ${doc.title !== undefined ? iso(doc.title) : 'attached document'}`;

  const sections: CompositionSection[] = [];
  const codedSection = (title: string, c: FixedCoding, refs: readonly Reference[], lines: string): CompositionSection => ({
    title,
    code: coded(c),
    text: narrative(lines),
    entry: refs.map((r) => ({ ...r })),
  });

  switch (hiType) {
    case 'Prescription': {
      const reasons = medications.length > 0 ? conditions() : [];
      if (medications.length === 0 && diagnoses.length > 0) misfit('diagnosis', 'a diagnosis without a medication');
      const mrs = medicationRequests(reasons);
      const refs = [...mrs];
      const lines: string[] = medications.map(medicationLine);
      if (reasons.length > 0) lines.push(`Diagnosis: ${diagnoses.map(diagnosisLine).join('; ')}`);
      const doc = documentBytes();
      if (typeof doc === 'object') {
        const binary: Binary = { resourceType: 'Binary', id: nextId('Binary'), meta: meta(PROFILES.Binary), contentType: doc.contentType, data: doc.data };
        refs.push(add(binary as Binary & { id: string }));
        lines.push(documentLine(doc));
      } else if (doc !== 'none') reportDocumentProblem(doc, false);
      if (labs.length > 0) misfit('labInvestigations', 'labInvestigations (lab orders)');
      if (b.advice !== undefined) misfit('advice', 'advice');
      if (refs.length === 0) {
        out.push(issue(at.content(), 'empty-document', 'a PrescriptionRecord needs at least one medication or an embedded prescription document'));
        break;
      }
      sections.push(codedSection('Prescription record', RECORD_PROFILES.Prescription.section.coding, refs, li(lines)));
      break;
    }
    case 'OPConsultation': {
      const slice = options.opConsultDiagnosisSection === 'MedicalHistory' ? 'MedicalHistory' : 'ChiefComplaints';
      if (diagnoses.length > 0) sections.push(codedSection('Diagnosis', OP_CONSULT_SECTIONS[slice].coding, conditions(), li(diagnoses.map(diagnosisLine))));
      if (medications.length > 0) sections.push(codedSection('Medications', OP_CONSULT_SECTIONS.Medications.coding, medicationRequests([]), li(medications.map(medicationLine))));
      if (labs.length > 0) sections.push(codedSection('Investigations advised', OP_CONSULT_SECTIONS.InvestigationAdvice.coding, serviceRequests(), li(labs.map(labLine))));
      const doc = documentBytes();
      if (typeof doc === 'object') sections.push(codedSection('Documents', OP_CONSULT_SECTIONS.DocumentReference.coding, [documentReference(doc)], li([documentLine(doc)])));
      else if (doc !== 'none') reportDocumentProblem(doc, false);
      // Free text: trailing sections with narrative only (OPConsultRecord slicing is open at the end).
      if (b.advice !== undefined) sections.push({ title: 'Advice', text: narrative(paragraphs(b.advice)) });
      if (job.followUp !== undefined) sections.push({ title: 'Follow-up', text: narrative(paragraphs(job.followUp)) });
      if (sections.length === 0) out.push(issue(at.content(), 'empty-document', 'an OPConsultRecord needs some content: a diagnosis, medication, lab investigation, advice or an embedded document'));
      break;
    }
    case 'DiagnosticReport':
    case 'HealthDocumentRecord': {
      const doc = documentBytes();
      if (labs.length > 0)
        out.push(
          issue(
            at.content('labInvestigations'),
            'content-not-in-profile',
            `labInvestigations are test orders without results; a ${profile.id} carries reports (results or the report document), so they are left out of this document. Use hiType OPConsultation to send them as investigation advice`,
            'warning',
          ),
        );
      if (diagnoses.length > 0) misfit('diagnosis', 'diagnosis');
      if (medications.length > 0) misfit('medications', 'medications');
      if (b.advice !== undefined) misfit('advice', 'advice');
      if (doc === 'none') {
        out.push(issue(at.content(), 'empty-document', `a ${profile.id} needs a document: give documentUrl and supply its bytes in options.attachments`));
        break;
      }
      if (doc !== 'not-supplied' && doc !== 'invalid') {
        const title = hiType === 'DiagnosticReport' ? 'Diagnostic report' : 'Record artifact';
        const rule = RECORD_PROFILES[hiType].section;
        sections.push(codedSection(title, rule.coding, [documentReference(doc)], li([documentLine(doc)])));
      } else reportDocumentProblem(doc, true);
      break;
    }
  }

  if (out.filter((i) => i.severity === 'error').length > errorsBefore) return undefined;

  const composition: Composition = {
    resourceType: 'Composition',
    id: compositionId,
    meta: meta(profile.url),
    text: narrative(
      `<p><b>${escapeXhtml(profile.title)}</b></p>${li([
        `Patient: ${iso(p.name ?? p.abhaAddress)}`,
        `Doctor: ${iso(doctor.name)}`,
        `Facility: ${iso(hospital.name)}`,
        `Date: ${iso(job.when)}`,
      ])}`,
    ),
    status: 'final',
    type: coded(profile.type),
    subject: patientRef,
    encounter: encounterRef,
    date: job.when,
    author: [{ ...practitionerRef, display: doctor.name }],
    title: profile.title,
    custodian: organizationRef,
    section: sections,
  };
  head.push({ fullUrl: urn(compositionId), resource: composition });

  const timestamp = timestampText(options, job);
  const bundle: Bundle = {
    resourceType: 'Bundle',
    id: root,
    meta: { versionId: '1', lastUpdated: timestamp, profile: [PROFILES.DocumentBundle], security: [{ ...CONFIDENTIALITY_VERY_RESTRICTED }] },
    identifier: options.bundleIdentifierSystem !== undefined ? { system: options.bundleIdentifierSystem, value: cc.referenceNumber } : { system: SYSTEMS.uri, value: urn(root) },
    type: 'document',
    timestamp,
    entry: [...head, ...entries],
  };
  return { referenceNumber: cc.referenceNumber, hiType, profile: profile.url, bundle };
}

function timestampText(options: ToFhirOptions, job: Job): string {
  const t = options.timestamp;
  const instant = t === undefined ? job.instant : t instanceof Date ? t : (instantOf(t, job.timeZone) as Date);
  return fhirInstant(instant, job.timeZone);
}

function optionIssues(options: ToFhirOptions): Issue[] {
  const out: Issue[] = [];
  const t = options.timestamp;
  if (t !== undefined) {
    const ok = t instanceof Date ? !Number.isNaN(t.getTime()) : typeof t === 'string' && /(Z|[+-]\d{2}:\d{2})$/i.test(t) && /T\d{2}:\d{2}:\d{2}/.test(t) && instantOf(t, 'UTC') !== undefined;
    if (!ok) out.push(issue('', 'invalid-option', 'options.timestamp must be a valid Date or an ISO date-time with seconds and an offset, e.g. 2026-11-20T10:30:00+05:30'));
  }
  if (options.lint !== undefined && options.lint !== false && (options.lint === null || typeof options.lint !== 'object' || Array.isArray(options.lint)))
    out.push(issue('', 'invalid-option', 'options.lint must be lint options (an object) or false'));
  if (options.timeZone !== undefined && !isKnownTimeZone(options.timeZone)) out.push(issue('', 'invalid-option', 'options.timeZone must be an IANA time-zone name such as Asia/Kolkata'));
  if (options.bundleIdentifierSystem !== undefined && !/^[a-z][a-z0-9+.-]*:\S+$/i.test(options.bundleIdentifierSystem))
    out.push(issue('', 'invalid-option', 'options.bundleIdentifierSystem must be an absolute URI'));
  if (options.opConsultDiagnosisSection !== undefined && options.opConsultDiagnosisSection !== 'ChiefComplaints' && options.opConsultDiagnosisSection !== 'MedicalHistory')
    out.push(issue('', 'invalid-option', 'options.opConsultDiagnosisSection must be ChiefComplaints or MedicalHistory'));
  for (const [k, v] of Object.entries(options.identifierSystems ?? {}))
    if (v !== undefined && (typeof v !== 'string' || !/^[a-z][a-z0-9+.-]*:\S+$/i.test(v))) out.push(issue('', 'invalid-option', `options.identifierSystems.${k} must be an absolute URI`));
  return out;
}

/**
 * Builds one NRCeS FHIR R4 document Bundle per care context, from a
 * clinical input or a link request (the 4.12 body), following the record
 * profile of each care context's hiType: PrescriptionRecord,
 * OPConsultRecord, DiagnosticReportRecord or HealthDocumentRecord.
 *
 * - Composition first, with the profile's fixed type and section codes;
 *   `urn:uuid` fullUrls; every reference resolves inside the bundle;
 *   `meta.profile` on every resource.
 * - Ids are name-based UUIDs of hip id, visit id, reference number and
 *   hiType: the same input gives the same bundles (`timestamp` defaults to
 *   the visit time; pass the current time to stamp assembly time).
 * - Conditions carry an ICD-10 coding only when `icdCode` was given; no code
 *   is ever guessed. Content the profile has no place for (lab orders in a
 *   Prescription, a URL without the document's bytes) is reported as a
 *   warning naming the alternative, never dropped silently.
 * - The Patient comes from the clinical input's patient, or only from the
 *   ABHA address for a link request.
 *
 * Never throws for bad data: returns `{ success: false, issues }` with JSON
 * Pointers into the input. Does not change its input.
 *
 * @example
 * const r = toFhirBundles(clinicalInput, { timestamp: new Date() })
 * if (r.success) for (const d of r.bundles) save(d.referenceNumber, JSON.stringify(d.bundle))
 * //=> r.bundles[0].bundle.entry[0].resource.type.coding[0].code === '440545006' for a Prescription
 */
export function toFhirBundles(input: ClinicalInput | LinkCareContextRequest, options: ToFhirOptions = {}): ToFhirResult {
  try {
    const bad = optionIssues(options);
    if (bad.length > 0) return { success: false, issues: bad };
    const timeZone = options.timeZone ?? DEFAULT_TIME_ZONE;
    const lint: LintOptions | false = options.lint === false ? false : (options.lint ?? {});
    const lintWarnings: Issue[] = [];
    let jobs: Job[] | Issue[];
    if (detectInputKind(input) === 'link-request') {
      const r = validate('link-carecontext-request', input);
      const findings = r.success && lint !== false ? lintLinkRequest(r.value, lint) : [];
      if (findings.some((f) => f.severity === 'error')) return { success: false, issues: findings };
      lintWarnings.push(...findings);
      jobs = r.success ? jobsFromLinkRequest(r.value, timeZone) : [...r.issues];
    } else jobs = jobsFromClinicalInput(input as ClinicalInput, lint, lintWarnings);
    if (jobs.length > 0 && 'path' in (jobs[0] as object)) return { success: false, issues: jobs as Issue[] };
    if (jobs.length === 0) return { success: false, issues: [issue('/careContexts', 'empty-care-contexts', 'careContexts is empty: there is no care context to make a document of')] };
    const systems: IdentifierSystems = { ...DEFAULT_IDENTIFIER_SYSTEMS, ...definedOnly(options.identifierSystems ?? {}) };
    const out: Issue[] = [...lintWarnings];
    const bundles: FhirDocument[] = [];
    for (const job of jobs as Job[]) {
      const d = buildDocument(job, options, systems, out);
      if (d !== undefined) bundles.push(d);
    }
    // Follow-up advice has a place only in an OPConsultRecord.
    const first = (jobs as Job[])[0];
    if (first?.followUp !== undefined && !bundles.some((d) => d.hiType === 'OPConsultation'))
      out.push(issue('/visit/followUp', 'content-not-in-profile', 'followUp has a place only in an OPConsultRecord and no care context of this visit is an OPConsultation; it is left out', 'warning'));
    const errors = out.filter((i) => i.severity === 'error');
    if (errors.length > 0) return { success: false, issues: out };
    return { success: true, bundles, warnings: out };
  } catch {
    // A getter that throws, a revoked proxy: not data that came from JSON.
    return { success: false, issues: [issue('', 'unreadable', 'the input could not be read as JSON data')] };
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  const r: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) r[k] = v;
  return r as Partial<T>;
}
