/**
 * The clinical resources the record profiles share: Condition,
 * MedicationRequest, ServiceRequest, DocumentReference and Binary, each
 * added to the document being assembled, plus the warnings for content a
 * profile has no place for. Never a code that was not given.
 */
import { text } from '../util.js';
import { issue, type Assembly } from './assembly.js';
import { PROFILES, VERIFICATION_STATUSES } from './constants.js';
import { NO_DOSAGE_TEXT, dosageOf } from './dosage.js';
import { ownValue } from './own.js';
import type { CareContextDetails } from '../resolve.js';
import type { Annotation, Binary, Condition, DocumentReference, MedicationRequest, Reference, ServiceRequest } from './r4.js';
import { PRIMITIVE_PATTERNS } from './structure.js';
import { conditionCode } from './terminology.js';

const meta = (p: string): { profile: string[] } => ({ profile: [p] });
const VERIFICATION_CODES = Object.keys(VERIFICATION_STATUSES).join(', ');

/** The document named by `documentUrl`, with its bytes as base64. */
export interface EmbeddedDocument {
  readonly contentType: string;
  readonly data: string;
  readonly title?: string;
}

/** Warns that content has no place in this record profile and is left out. */
export function misfit(a: Assembly, field: string, what: string): void {
  a.report(
    issue(
      a.job.at.content(field),
      'content-not-in-profile',
      `${what} has no place in a ${a.profile.id}; it is left out of this document. Use hiType OPConsultation (OPConsultRecord), which holds diagnoses, medications, lab investigations and advice`,
      'warning',
    ),
  );
}

/** Warns about each of diagnoses, medications, lab orders and advice given, for a record profile that holds none of them. */
export function misfitClinicalContent(a: Assembly): void {
  const { content } = a;
  if ((content.diagnosis ?? []).length > 0) misfit(a, 'diagnosis', 'diagnosis');
  if ((content.medications ?? []).length > 0) misfit(a, 'medications', 'medications');
  if ((content.labInvestigations ?? []).length > 0) misfit(a, 'labInvestigations', 'labInvestigations (lab orders)');
  if (content.advice !== undefined) misfit(a, 'advice', 'advice');
}

/** One Condition per diagnosis: an ICD-10 coding only when `icdCode` was given and its title is known (terminology.ts). */
export function conditions(a: Assembly): Reference[] {
  return (a.content.diagnosis ?? []).map((d, i) => {
    if (d.icdCode !== undefined && !(PRIMITIVE_PATTERNS.code as RegExp).test(d.icdCode))
      a.report(
        issue(
          a.job.at.content('diagnosis', i, 'icdCode'),
          'invalid-code',
          'icdCode cannot be a FHIR code: it must have no tabs or line breaks and no leading, trailing or repeated spaces, e.g. E11.9',
        ),
      );
    const status = d.status === undefined ? undefined : ownValue(VERIFICATION_STATUSES, d.status.toLowerCase());
    if (d.status !== undefined && status === undefined)
      a.report(issue(a.job.at.content('diagnosis', i, 'status'), 'status-not-mapped', `status is not a FHIR verification status (${VERIFICATION_CODES}); it is left out of the Condition`, 'warning'));
    const c: Condition = {
      resourceType: 'Condition',
      id: a.nextId('Condition'),
      meta: meta(PROFILES.Condition),
      ...(status !== undefined ? { verificationStatus: { coding: [{ system: status.system, code: status.code, display: status.display }] } } : {}),
      code: conditionCode(a, d, i),
      subject: a.refs.patient,
      encounter: a.refs.encounter,
      recordedDate: a.job.when,
    };
    return a.add(c as Condition & { id: string });
  });
}

/**
 * The labels of the MedicationRequest notes that carry what a clinical input says of a medicine beyond its
 * name: the NRCeS MedicationRequest names the medicine by a CodeableConcept only (no Medication resource, so no
 * ingredient, strength or form elements), and R4 defines `note` for what the other elements cannot convey.
 * One note each, "Label: value"; fromFhir reads them back.
 */
export const MEDICATION_NOTES = { genericName: 'Generic name', strength: 'Strength', form: 'Form' } as const;

/** The labels of {@link MEDICATION_NOTES} in their order, listed once. */
const NOTE_LABELS = Object.entries(MEDICATION_NOTES) as ReadonlyArray<[keyof typeof MEDICATION_NOTES, string]>;

/** The notes of a medication's generic name, strength and form, in that order; none when none is given. */
function notesOf(details: CareContextDetails['medications'][number] | undefined): { note?: Annotation[] } {
  if (details === undefined) return {};
  const note: Annotation[] = [];
  for (const [k, label] of NOTE_LABELS) {
    const v = details[k];
    if (v !== undefined) note.push({ text: `${label}: ${v}` });
  }
  return note.length > 0 ? { note } : {};
}

/** One MedicationRequest per medication, citing `reasons` (Conditions) when given; generic name, strength and form as notes, route in the dosage. */
export function medicationRequests(a: Assembly, reasons: readonly Reference[]): Reference[] {
  return (a.content.medications ?? []).map((m, i) => {
    if (m.dosage === undefined && m.frequency === undefined && m.duration === undefined && m.instructions === undefined)
      a.report(
        issue(
          a.job.at.content('medications', i),
          'medication-without-dosage',
          `the medication has no dosage, frequency, duration or instructions; the NRCeS MedicationRequest requires a dosageInstruction, so it says "${NO_DOSAGE_TEXT}"`,
          'warning',
        ),
      );
    const details = a.job.details?.medications[i];
    const mr: MedicationRequest = {
      resourceType: 'MedicationRequest',
      id: a.nextId('MedicationRequest'),
      meta: meta(PROFILES.MedicationRequest),
      status: 'active',
      intent: 'order',
      medicationCodeableConcept: { text: m.drugName },
      subject: a.refs.patient,
      encounter: a.refs.encounter,
      authoredOn: a.job.when,
      requester: a.refs.practitioner,
      ...(reasons.length > 0 ? { reasonReference: reasons.map((r) => ({ ...r })) } : {}),
      ...notesOf(details),
      dosageInstruction: [details?.route !== undefined ? { ...dosageOf(m), route: { text: details.route } } : dosageOf(m)],
    };
    return a.add(mr as MedicationRequest & { id: string });
  });
}

/** One ServiceRequest (an order) per lab investigation. */
export function serviceRequests(a: Assembly): Reference[] {
  return (a.content.labInvestigations ?? []).map((l) => {
    const sr: ServiceRequest = {
      resourceType: 'ServiceRequest',
      id: a.nextId('ServiceRequest'),
      meta: meta(PROFILES.ServiceRequest),
      status: 'active',
      intent: 'order',
      code: { text: l.testName },
      subject: a.refs.patient,
      encounter: a.refs.encounter,
      authoredOn: a.job.when,
      requester: a.refs.practitioner,
      ...(l.instructions !== undefined ? { patientInstruction: l.instructions } : {}),
    };
    return a.add(sr as ServiceRequest & { id: string });
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

/** The embedded document, when its bytes were supplied; a problem code otherwise. */
export function documentBytes(a: Assembly): EmbeddedDocument | 'none' | 'not-supplied' | 'invalid' {
  const url = a.content.documentUrl;
  if (url === undefined) return 'none';
  const attachments = a.options.attachments;
  const given = attachments !== undefined && Object.hasOwn(attachments, url) ? attachments[url] : undefined;
  if (given === undefined) return 'not-supplied';
  const data = base64Of(given.data);
  const contentType = typeof given.contentType === 'string' ? given.contentType.trim() : '';
  if (data === undefined || !/^[A-Za-z0-9!#$&^_.+-]{1,127}\/[A-Za-z0-9!#$&^_.+-]{1,127}$/.test(contentType)) return 'invalid';
  const title = typeof given.title === 'string' ? text(given.title) : undefined;
  return { contentType, data, ...(title !== undefined ? { title } : {}) };
}

/** Reports a documentUrl that cannot be embedded: an error when the profile needs the document, else a warning. */
export function reportDocumentProblem(a: Assembly, state: 'not-supplied' | 'invalid', required: boolean): void {
  const at = a.job.at.content('documentUrl');
  if (state === 'invalid') {
    a.report(issue(at, 'invalid-attachment', 'the document supplied for this documentUrl (options.attachments) needs a MIME contentType such as application/pdf and non-empty base64 data'));
    return;
  }
  a.report(
    required
      ? issue(
          at,
          'document-data-required',
          `a documentUrl alone cannot make a conformant ${a.profile.id}: the NRCeS DocumentReference profile requires the document's bytes (attachment data); supply them in options.attachments keyed by the URL (CLI: --attach URL=FILE)`,
        )
      : issue(
          at,
          'document-not-embedded',
          "documentUrl was not embedded: NRCeS DocumentReference and Binary require the document's bytes, not a URL; supply them in options.attachments keyed by the URL (CLI: --attach URL=FILE) to include the document",
          'warning',
        ),
  );
}

/** A DocumentReference carrying the document's bytes and its URL. */
export function documentReference(a: Assembly, doc: EmbeddedDocument): Reference {
  const dr: DocumentReference = {
    resourceType: 'DocumentReference',
    id: a.nextId('DocumentReference'),
    meta: meta(PROFILES.DocumentReference),
    status: 'current',
    subject: a.refs.patient,
    author: [a.refs.practitioner],
    custodian: a.refs.organization,
    content: [{ attachment: { contentType: doc.contentType, data: doc.data, url: a.content.documentUrl as string, ...(doc.title !== undefined ? { title: doc.title } : {}) } }],
    context: { encounter: [a.refs.encounter] },
  };
  return a.add(dr as DocumentReference & { id: string });
}

/** A Binary carrying the document's bytes (a scanned or PDF prescription). */
export function binary(a: Assembly, doc: EmbeddedDocument): Reference {
  const b: Binary = { resourceType: 'Binary', id: a.nextId('Binary'), meta: meta(PROFILES.Binary), contentType: doc.contentType, data: doc.data };
  return a.add(b as Binary & { id: string });
}
