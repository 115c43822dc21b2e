/**
 * The two record profiles that carry a report document: DiagnosticReportRecord
 * (reference §4.3) and HealthDocumentRecord (§4.4). Each has one section
 * with the DocumentReference of the embedded document; everything else in
 * the care context is left out with a warning.
 */
import { issue, type Assembly } from '../assembly.js';
import { RECORD_PROFILES, type FixedCoding } from '../constants.js';
import { codedSection, documentLine, li } from '../narrative.js';
import { PRINTED_DOCUMENT_SLOTS } from '../printed.js';
import type { CompositionSection } from '../r4.js';
import { documentBytes, documentReference, misfit, reportDocumentProblem } from '../resources.js';

/** The single section of a document record, titled `title` and coded `coding`; errors when the document's bytes are missing. */
function documentRecordSections(a: Assembly, title: string, coding: FixedCoding): CompositionSection[] {
  const { content, profile } = a;
  const doc = documentBytes(a);
  if ((content.labInvestigations ?? []).length > 0)
    a.report(
      issue(
        a.job.at.content('labInvestigations'),
        'content-not-in-profile',
        `labInvestigations are test orders without results; a ${profile.id} carries reports (results or the report document), so they are left out of this document. Use hiType OPConsultation to send them as investigation advice`,
        'warning',
      ),
    );
  if ((content.diagnosis ?? []).length > 0) misfit(a, 'diagnosis', 'diagnosis');
  if ((content.medications ?? []).length > 0) misfit(a, 'medications', 'medications');
  if (content.advice !== undefined) misfit(a, 'advice', 'advice');
  if (doc === 'none') {
    // The printed page can be the document (added by printed.ts) where the profile keeps it in this section.
    const printed = a.options.printedDocuments;
    if (PRINTED_DOCUMENT_SLOTS[a.hiType]?.kind === 'record-section' && printed !== undefined && Object.hasOwn(printed, a.job.cc.referenceNumber))
      return [{ ...codedSection(title, coding, [], ''), entry: [] }];
    a.report(issue(a.job.at.content(), 'empty-document', `a ${profile.id} needs a document: give documentUrl and supply its bytes in options.attachments`));
    return [];
  }
  if (doc === 'not-supplied' || doc === 'invalid') {
    reportDocumentProblem(a, doc, true);
    return [];
  }
  return [codedSection(title, coding, [documentReference(a, doc)], li([documentLine(doc)]))];
}

/** The section of a DiagnosticReportRecord: the report document. */
export function diagnosticReportSections(a: Assembly): CompositionSection[] {
  return documentRecordSections(a, 'Diagnostic report', RECORD_PROFILES.DiagnosticReport.section.coding);
}

/** The section of a HealthDocumentRecord: the document, whatever it is. */
export function healthDocumentSections(a: Assembly): CompositionSection[] {
  return documentRecordSections(a, 'Record artifact', RECORD_PROFILES.HealthDocumentRecord.section.coding);
}
