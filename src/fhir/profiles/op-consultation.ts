/**
 * OPConsultRecord (reference §4.2): one coded section per kind of content
 * (diagnoses in ChiefComplaints or MedicalHistory, the patient's vitals in
 * PhysicalExamination, medications,
 * investigation advice, documents), then advice and follow-up as trailing
 * narrative-only sections (the slicing is open at the end).
 */
import { issue, type Assembly } from '../assembly.js';
import { OP_CONSULT_SECTIONS, PROFILES } from '../constants.js';
import { codedSection, diagnosisLine, documentLine, labLine, li, medicationLine, narrative, paragraphs } from '../narrative.js';
import type { CompositionSection } from '../r4.js';
import { readableMeasurements } from '../patient-vitals.js';
import { conditions, documentBytes, documentReference, medicationRequests, reportDocumentProblem, serviceRequests } from '../resources.js';
import { measurementObservations } from './wellness.js';

/**
 * The sections of an OPConsultRecord, or none with an `empty-document`
 * error when the care context has no content of its own (the patient's
 * vitals alone do not count).
 */
export function opConsultationSections(a: Assembly): CompositionSection[] {
  const { content, job } = a;
  const diagnoses = content.diagnosis ?? [];
  const medications = content.medications ?? [];
  const labs = content.labInvestigations ?? [];
  const sections: CompositionSection[] = [];
  const slice = a.options.opConsultDiagnosisSection === 'MedicalHistory' ? 'MedicalHistory' : 'ChiefComplaints';
  if (diagnoses.length > 0) sections.push(codedSection('Diagnosis', OP_CONSULT_SECTIONS[slice].coding, conditions(a), li(diagnoses.map(diagnosisLine))));
  // The patient's vitals, weight and height taken at the visit: Observations of the PhysicalExamination slice (after ChiefComplaints, in the profile's order).
  const measured = measurementObservations(a, readableMeasurements(a), PROFILES.Observation);
  if (measured.refs.length > 0)
    sections.splice(slice === 'ChiefComplaints' ? sections.length : 0, 0, codedSection('Vital signs', OP_CONSULT_SECTIONS.PhysicalExamination.coding, measured.refs, li(measured.lines)));
  if (medications.length > 0) sections.push(codedSection('Medications', OP_CONSULT_SECTIONS.Medications.coding, medicationRequests(a, []), li(medications.map(medicationLine))));
  if (labs.length > 0) sections.push(codedSection('Investigations advised', OP_CONSULT_SECTIONS.InvestigationAdvice.coding, serviceRequests(a), li(labs.map(labLine))));
  const doc = documentBytes(a);
  if (typeof doc === 'object') sections.push(codedSection('Documents', OP_CONSULT_SECTIONS.DocumentReference.coding, [documentReference(a, doc)], li([documentLine(doc)])));
  else if (doc !== 'none') reportDocumentProblem(a, doc, false);
  // Free text: trailing sections with narrative only (OPConsultRecord slicing is open at the end).
  if (content.advice !== undefined) sections.push({ title: 'Advice', text: narrative(paragraphs(content.advice)) });
  if (job.followUp !== undefined) sections.push({ title: 'Follow-up', text: narrative(paragraphs(job.followUp)) });
  // The patient's vitals are the visit's, carried by every OPConsultRecord of it: they do not make a care context's document (spec-decisions.md).
  if (sections.length === (measured.refs.length > 0 ? 1 : 0))
    a.report(
      issue(
        job.at.content(),
        'empty-document',
        "an OPConsultRecord needs some content: a diagnosis, medication, lab investigation, advice, the visit's follow-up or an embedded document (the patient's vitals, weight and height, which every record of the visit carries, are not enough)",
      ),
    );
  return sections;
}
