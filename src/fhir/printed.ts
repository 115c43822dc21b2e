/**
 * The printed page of a care context (the PDF the clinic handed over, made
 * by the render layer) carried in its bundle, where the record profile has
 * a place for a document: so that a PHR app shows the same page. The bytes
 * come from the caller (`options.printedDocuments`): this module, like the
 * rest of the FHIR builder, never starts a browser.
 */
import { issue, type Assembly } from './assembly.js';
import { DISCHARGE_SUMMARY_SECTIONS, OP_CONSULT_SECTIONS, PROFILES, type FixedCoding } from './constants.js';
import { coded, narrative } from './narrative.js';
import type { Attachment, Binary, CompositionSection, DocumentReference, Reference } from './r4.js';
import { instantOf } from '../time.js';
import { fhirInstant } from './time.js';
import { isolatedXhtml } from './xhtml.js';
import type { FhirPrintedDocument } from './to-fhir-types.js';

/**
 * Where a record profile keeps a printed document:
 * - `binary`: a Binary entry in its single section (PrescriptionRecord, at most one);
 * - `document-section`: a DocumentReference in the section coded `coding` (made after the coded sections when absent);
 * - `record-section`: a DocumentReference in its single section.
 * A hiType without a slot (DiagnosticReportRecord, whose one document place holds the report) gets a warning.
 */
export type PrintedSlot =
  | { readonly kind: 'binary' }
  | { readonly kind: 'document-section'; readonly coding: FixedCoding; readonly title: string }
  | { readonly kind: 'record-section' }
  | { readonly kind: 'titled-section'; readonly title: string };

/** The printed-document slot of each record profile, by hiType. Add a line when a record profile gains a place for documents. */
export const PRINTED_DOCUMENT_SLOTS: Readonly<Record<string, PrintedSlot>> = {
  Prescription: { kind: 'binary' },
  OPConsultation: { kind: 'document-section', coding: OP_CONSULT_SECTIONS.DocumentReference.coding, title: 'Documents' },
  HealthDocumentRecord: { kind: 'record-section' },
  // DischargeSummaryRecord's DocumentReference slice (373942005).
  DischargeSummary: { kind: 'document-section', coding: DISCHARGE_SUMMARY_SECTIONS.DocumentReference.coding, title: 'Documents' },
  // ImmunizationRecord's one section takes DocumentReference entries.
  ImmunizationRecord: { kind: 'record-section' },
  // WellnessRecord's sections are sliced by title; one is "Document Reference".
  WellnessRecord: { kind: 'titled-section', title: 'Document Reference' },
  // InvoiceRecord's one section holds the Invoice only: no place for a page.
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MIME = /^[A-Za-z0-9!#$&^_.+-]{1,127}\/[A-Za-z0-9!#$&^_.+-]{1,127}$/;

/** The printed document checked and as FHIR writes it: base64 data, its size in bytes, and the attachment fields. */
function attachmentOf(a: Assembly, printed: FhirPrintedDocument, timestamp: string): Attachment | undefined {
  let data: string;
  let size = 0;
  if (printed.data instanceof Uint8Array) {
    data = Buffer.from(printed.data.buffer, printed.data.byteOffset, printed.data.byteLength).toString('base64');
    size = printed.data.byteLength;
  } else if (typeof printed.data === 'string') {
    data = printed.data.replace(/\s+/g, '');
    if (data.length % 4 !== 0 || !BASE64.test(data)) data = '';
    size = (data.length / 4) * 3 - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
  } else data = '';
  const contentType = printed.contentType ?? 'application/pdf';
  const hash = printed.sha1;
  const printedAt = printed.creation === undefined ? undefined : instantOf(printed.creation, a.job.timeZone);
  // The path names the care context; the message quotes no value (a reference number may carry an identifier).
  const bad = (what: string): undefined => void a.report(issue(a.job.at.content(), 'invalid-option', `the printed document of this care context (options.printedDocuments): ${what}`));
  if (data === '') return bad('data must be the document bytes (a non-empty Uint8Array) or base64 text');
  if (typeof contentType !== 'string' || !MIME.test(contentType)) return bad('contentType must be a MIME type such as application/pdf');
  if (hash !== undefined && (typeof hash !== 'string' || hash.length !== 28 || !BASE64.test(hash))) return bad('sha1 must be the base64 SHA-1 of the bytes (28 characters)');
  if (printed.creation !== undefined && printedAt === undefined) return bad('creation must be a valid Date or an ISO date-time with an offset');
  const title = typeof printed.title === 'string' && printed.title.trim() !== '' ? printed.title.trim() : `${a.profile.title} (printed)`;
  return {
    contentType,
    data,
    size,
    ...(hash !== undefined ? { hash } : {}),
    title,
    creation: printedAt === undefined ? timestamp : fhirInstant(printedAt, a.job.timeZone),
  };
}

/** Adds one line to a section's narrative. */
function withLine(section: CompositionSection, line: string): CompositionSection {
  const div = section.text?.div ?? '';
  const inner = div.startsWith('<div') ? div.slice(div.indexOf('>') + 1, -'</div>'.length) : '';
  return { ...section, text: narrative(`${inner}<p>${line}</p>`) };
}

/** A DocumentReference of the printed page (no URL: the bytes are the document). */
function printedReference(a: Assembly, attachment: Attachment): Reference {
  const dr: DocumentReference & { id: string } = {
    resourceType: 'DocumentReference',
    id: a.nextId('DocumentReference'),
    meta: { profile: [PROFILES.DocumentReference] },
    status: 'current',
    subject: a.refs.patient,
    author: [a.refs.practitioner],
    custodian: a.refs.organization,
    content: [{ attachment }],
    context: { encounter: [a.refs.encounter] },
  };
  return a.add(dr);
}

/**
 * The sections with the printed page of this care context added where its
 * record profile has a place, or unchanged with a warning when it has none.
 */
export function withPrintedDocument(a: Assembly, sections: CompositionSection[], printed: FhirPrintedDocument, timestamp: string): CompositionSection[] {
  const slot = Object.hasOwn(PRINTED_DOCUMENT_SLOTS, a.hiType) ? PRINTED_DOCUMENT_SLOTS[a.hiType] : undefined;
  const noPlace = (why: string): CompositionSection[] => {
    a.report(issue(a.job.at.content(), 'printed-document-not-embedded', `the printed document is not embedded: ${why}`, 'warning'));
    return sections;
  };
  if (slot === undefined) return noPlace(`a ${a.profile.id} has no place for a further document`);
  const attachment = attachmentOf(a, printed, timestamp);
  if (attachment === undefined) return sections;
  const line = `Printed document: ${isolatedXhtml(attachment.title as string)} (${attachment.contentType})`;
  if (slot.kind === 'binary') {
    const [section, ...rest] = sections;
    if (section === undefined) return sections;
    if ((section.entry ?? []).some((e) => e.type === 'Binary')) return noPlace(`a ${a.profile.id} holds at most one Binary, and the documentUrl's document is already embedded`);
    const b: Binary & { id: string } = {
      resourceType: 'Binary',
      id: a.nextId('Binary'),
      meta: { profile: [PROFILES.Binary] },
      contentType: attachment.contentType as string,
      data: attachment.data as string,
    };
    const ref = a.add(b);
    return [withLine({ ...section, entry: [...(section.entry ?? []), ref] }, line), ...rest];
  }
  const ref = printedReference(a, attachment);
  if (slot.kind === 'record-section') {
    const [section, ...rest] = sections;
    if (section === undefined) return sections;
    return [withLine({ ...section, entry: [...(section.entry ?? []), ref] }, line), ...rest];
  }
  if (slot.kind === 'titled-section') {
    const i = sections.findIndex((s) => s.title === slot.title);
    if (i >= 0) return sections.map((s, j) => (j === i ? withLine({ ...s, entry: [...(s.entry ?? []), ref] }, line) : s));
    return [...sections, { title: slot.title, text: narrative(`<p>${line}</p>`), entry: [ref] }];
  }
  const at = sections.findIndex((s) => s.code?.coding?.some((c) => c.code === slot.coding.code && c.system === slot.coding.system) === true);
  if (at >= 0) return sections.map((s, i) => (i === at ? withLine({ ...s, entry: [...(s.entry ?? []), ref] }, line) : s));
  // A new coded section goes after the coded ones, before the narrative-only sections (open slicing at the end).
  const firstTextOnly = sections.findIndex((s) => s.code === undefined);
  const section: CompositionSection = { title: slot.title, code: coded(slot.coding), text: narrative(`<p>${line}</p>`), entry: [ref] };
  const cut = firstTextOnly < 0 ? sections.length : firstTextOnly;
  return [...sections.slice(0, cut), section, ...sections.slice(cut)];
}
