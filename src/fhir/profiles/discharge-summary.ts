/**
 * DischargeSummaryRecord (NRCeS IG 6.5.0): sections sliced by code
 * (open at the end). The inpatient stay of the clinical input fills the
 * slices (complaints, past history, allergies, examination, procedures,
 * investigations); the care context's own medications are the discharge
 * medications, its diagnoses the discharge diagnoses, the visit follow-up
 * the care plan. Free text (present illness, course in hospital, condition
 * at discharge, advice) and the discharge diagnoses follow as trailing
 * sections without a code, which the open slicing allows. The Encounter is
 * the stay: inpatient class, admission to discharge.
 */
import type { InpatientStayInput } from '../../generated/types.js';
import { issue, type Assembly, type DocumentJob, type EncounterDetails } from '../assembly.js';
import { DISCHARGE_SUMMARY_SECTIONS, ENCOUNTER_CLASS_INPATIENT, PROFILES, type FixedCoding } from '../constants.js';
import { readableMeasurements } from '../patient-vitals.js';
import { codedSection, diagnosisLine, documentLine, labLine, li, medicationLine, narrative, paragraphs } from '../narrative.js';
import type { CompositionSection, Reference } from '../r4.js';
import { conditions, documentBytes, documentReference, medicationRequests, reportDocumentProblem, serviceRequests } from '../resources.js';
import { visitDateTime } from '../time.js';
import { isolatedXhtml as iso } from '../xhtml.js';
import { allergies, findingLine, findings, followUpPlan, investigationLine, investigations, procedureLine, procedures, textConditions } from './stay-resources.js';
import { measurementObservations } from './wellness.js';

const S = DISCHARGE_SUMMARY_SECTIONS;

/**
 * The Encounter of a discharge summary: an inpatient stay from admission to
 * discharge (finished once discharged), with the reason for admission in words.
 */
export function dischargeEncounter(job: DocumentJob): EncounterDetails {
  const stay = job.clinical?.inpatientStay;
  if (stay === undefined) return { class: { ...ENCOUNTER_CLASS_INPATIENT } };
  const start = visitDateTime(stay.admittedAt.trim(), job.timeZone);
  const end = stay.dischargedAt === undefined ? undefined : visitDateTime(stay.dischargedAt.trim(), job.timeZone);
  const reason = stay.reasonForAdmission?.trim();
  return {
    class: { ...ENCOUNTER_CLASS_INPATIENT },
    status: end !== undefined ? 'finished' : 'in-progress',
    period: { ...(start !== undefined ? { start } : {}), ...(end !== undefined ? { end } : {}) },
    ...(reason !== undefined && reason !== '' ? { reasonCode: [{ text: reason }] } : {}),
  };
}

const list = <T>(items: readonly T[] | undefined): readonly T[] => items ?? [];

/** A coded slice when it has entries. */
function slice(out: CompositionSection[], title: string, coding: FixedCoding, refs: readonly Reference[], lines: readonly string[]): void {
  if (refs.length > 0) out.push(codedSection(title, coding, refs, li(lines)));
}

/** A trailing text-only section when there is text. */
function textSection(out: CompositionSection[], title: string, text: string | undefined): void {
  if (text !== undefined && text.trim() !== '') out.push({ title, text: narrative(paragraphs(text)) });
}

/**
 * The slices the inpatient stay fills, in the profile's order; the
 * PhysicalExamination slice also holds the patient's vitals, weight and
 * height taken at the visit (Observations as in an OPConsultRecord), before
 * the stay's findings.
 */
function staySections(a: Assembly, stay: InpatientStayInput | undefined, out: CompositionSection[]): { vitalsOnly: boolean } {
  const complaints = list(stay?.chiefComplaints);
  slice(
    out,
    'Chief complaints',
    S.ChiefComplaints.coding,
    textConditions(a, complaints),
    complaints.map((c) => iso(c)),
  );
  const measured = measurementObservations(a, readableMeasurements(a), PROFILES.Observation);
  const exam = list(stay?.examinationFindings);
  slice(out, exam.length > 0 ? 'Examination findings' : 'Vital signs', S.PhysicalExamination.coding, [...measured.refs, ...findings(a, exam)], [...measured.lines, ...exam.map(findingLine)]);
  const allergic = list(stay?.allergies);
  slice(
    out,
    'Allergies',
    S.Allergies.coding,
    allergies(a, allergic),
    allergic.map((x) => iso(x)),
  );
  const past = list(stay?.pastHistory);
  slice(
    out,
    'Past medical history',
    S.MedicalHistory.coding,
    textConditions(a, past),
    past.map((x) => iso(x)),
  );
  const tests = list(stay?.investigations);
  slice(out, 'Investigations', S.Investigations.coding, investigations(a, tests), tests.map(investigationLine));
  const done = list(stay?.procedures);
  slice(out, 'Procedures', S.Procedures.coding, procedures(a, done), done.map(procedureLine));
  return { vitalsOnly: measured.refs.length > 0 && exam.length === 0 };
}

/** The sections of a DischargeSummaryRecord, or none with an `empty-document` error when there is nothing to tell. */
export function dischargeSummarySections(a: Assembly): CompositionSection[] {
  const { content, job } = a;
  const stay = job.clinical?.inpatientStay;
  const out: CompositionSection[] = [];
  const { vitalsOnly } = staySections(a, stay, out);
  const meds = list(content.medications);
  slice(out, 'Discharge medications', S.Medications.coding, medicationRequests(a, []), meds.map(medicationLine));
  if (job.followUp !== undefined) slice(out, 'Follow-up', S.CarePlan.coding, [followUpPlan(a, job.followUp)], [iso(job.followUp)]);
  const doc = documentBytes(a);
  if (typeof doc === 'object') slice(out, 'Discharge summary document', S.DocumentReference.coding, [documentReference(a, doc)], [documentLine(doc)]);
  const docProblem = doc === 'not-supplied' || doc === 'invalid' ? doc : undefined;
  // Trailing sections without a code (the slicing is open at the end).
  if (stay !== undefined) {
    const admission = [`Admitted: ${iso(stay.admittedAt)}`, ...(stay.dischargedAt !== undefined ? [`Discharged: ${iso(stay.dischargedAt)}`] : [])];
    if (stay.reasonForAdmission !== undefined) admission.push(`Reason for admission: ${iso(stay.reasonForAdmission)}`);
    out.push({ title: 'Admission', text: narrative(li(admission)) });
  }
  const diagnoses = list(content.diagnosis);
  if (diagnoses.length > 0) out.push({ title: 'Discharge diagnosis', text: narrative(li(diagnoses.map(diagnosisLine))), entry: conditions(a).map((r) => ({ ...r })) });
  textSection(out, 'History of present illness', stay?.presentIllness);
  textSection(out, 'Course in hospital', stay?.courseInHospital);
  textSection(out, 'Condition at discharge', stay?.conditionAtDischarge);
  const labs = list(content.labInvestigations);
  if (labs.length > 0) out.push({ title: 'Investigations advised', text: narrative(li(labs.map(labLine))), entry: serviceRequests(a).map((r) => ({ ...r })) });
  textSection(out, 'Advice', content.advice);
  // A summary that is only its document needs the document's bytes; one with content keeps the content and warns.
  // The patient's vitals are the visit's, carried by every record of it that has a place: they do not make a summary (spec-decisions.md).
  const empty = out.length === (vitalsOnly ? 1 : 0);
  if (docProblem !== undefined) reportDocumentProblem(a, docProblem, empty);
  else if (empty)
    a.report(
      issue(
        job.at.content(),
        'empty-document',
        "a DischargeSummaryRecord needs content: the inpatientStay, discharge medications, diagnoses, advice, the visit's follow-up or the embedded summary document (the patient's vitals, weight and height are not enough)",
      ),
    );
  return out;
}
