/**
 * PrescriptionRecord (reference §4.1): exactly one section, code fixed to
 * SNOMED 440545006, entries MedicationRequest (with the diagnoses as
 * reasons, as in the IG example) and at most one Binary (a scanned or PDF
 * prescription). No place for lab orders or advice.
 */
import { issue, type Assembly } from '../assembly.js';
import { RECORD_PROFILES } from '../constants.js';
import { codedSection, diagnosisLine, documentLine, li, medicationLine } from '../narrative.js';
import type { CompositionSection } from '../r4.js';
import { binary, conditions, documentBytes, medicationRequests, misfit, reportDocumentProblem } from '../resources.js';

/**
 * The sections of a PrescriptionRecord: one, or none with an
 * `empty-document` error when there is neither a medication nor an
 * embedded prescription document.
 */
export function prescriptionSections(a: Assembly): CompositionSection[] {
  const diagnoses = a.content.diagnosis ?? [];
  const medications = a.content.medications ?? [];
  // The Conditions are reached through MedicationRequest.reasonReference only.
  const reasons = medications.length > 0 ? conditions(a) : [];
  if (medications.length === 0 && diagnoses.length > 0) misfit(a, 'diagnosis', 'a diagnosis without a medication');
  const refs = [...medicationRequests(a, reasons)];
  const lines: string[] = medications.map(medicationLine);
  if (reasons.length > 0) lines.push(`Diagnosis: ${diagnoses.map(diagnosisLine).join('; ')}`);
  const doc = documentBytes(a);
  if (typeof doc === 'object') {
    refs.push(binary(a, doc));
    lines.push(documentLine(doc));
  } else if (doc !== 'none') reportDocumentProblem(a, doc, false);
  if ((a.content.labInvestigations ?? []).length > 0) misfit(a, 'labInvestigations', 'labInvestigations (lab orders)');
  if (a.content.advice !== undefined) misfit(a, 'advice', 'advice');
  if (refs.length === 0) {
    a.report(issue(a.job.at.content(), 'empty-document', 'a PrescriptionRecord needs at least one medication or an embedded prescription document'));
    return [];
  }
  return [codedSection('Prescription record', RECORD_PROFILES.Prescription.section.coding, refs, li(lines))];
}
