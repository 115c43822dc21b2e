/**
 * The resources of a hospital stay, as a DischargeSummaryRecord uses them:
 * Conditions from the doctor's words (complaints, past history),
 * AllergyIntolerance, examination Observations, Procedures, investigation
 * results (Observation + DiagnosticReportLab) and the follow-up CarePlan.
 * Codes only where the input gives them (SNOMED CT for procedures, LOINC
 * for tests), with the display the input gives; otherwise `text` alone.
 */
import type { FindingInput, InvestigationInput, LoincCodingInput, ProcedureInput, SnomedCodingInput } from '../../generated/types.js';
import type { Assembly } from '../assembly.js';
import { PROFILES, STAY_CODES, SYSTEMS } from '../constants.js';
import type { AllergyIntolerance, CarePlan, CodeableConcept, Condition, DiagnosticReport, Observation, Procedure, Quantity, Reference } from '../r4.js';
import { visitDateTime } from '../time.js';
import { isolatedXhtml as iso } from '../xhtml.js';

const meta = (p: string): { profile: string[] } => ({ profile: [p] });

/** A concept in words, with the coding the input gave (never one derived from the words). */
export function conceptOf(words: string, coding: SnomedCodingInput | LoincCodingInput | undefined, system: string): CodeableConcept {
  return coding === undefined ? { text: words } : { coding: [{ system, code: coding.code.trim(), display: coding.display.trim() }], text: words };
}

/** A date or date-time of the input as a FHIR dateTime in the facility's zone; undefined when absent. */
export function dateTimeOf(a: Assembly, value: string | undefined): string | undefined {
  return value === undefined ? undefined : visitDateTime(value.trim(), a.job.timeZone);
}

/** One Condition per item of the doctor's words (a complaint, a past illness). */
export function textConditions(a: Assembly, items: readonly string[]): Reference[] {
  return items.map((words) => {
    const c: Condition & { id: string } = {
      resourceType: 'Condition',
      id: a.nextId('Condition'),
      meta: meta(PROFILES.Condition),
      code: { text: words.trim() },
      subject: a.refs.patient,
      encounter: a.refs.encounter,
      recordedDate: a.job.when,
    };
    return a.add(c);
  });
}

/** One AllergyIntolerance per known allergy, active (ait-1 needs a clinical status). */
export function allergies(a: Assembly, items: readonly string[]): Reference[] {
  return items.map((words) => {
    const r: AllergyIntolerance & { id: string } = {
      resourceType: 'AllergyIntolerance',
      id: a.nextId('AllergyIntolerance'),
      meta: meta(PROFILES.AllergyIntolerance),
      clinicalStatus: { coding: [{ ...STAY_CODES.allergyActive }] },
      code: { text: words.trim() },
      patient: a.refs.patient,
      encounter: a.refs.encounter,
      recordedDate: a.job.when,
      recorder: a.refs.practitioner,
    };
    return a.add(r);
  });
}

/** An Observation's value: a number with its unit as written (no UCUM code is claimed), or words. */
function valueOf(value: number | string | undefined, unit: string | undefined): { valueQuantity: Quantity } | { valueString: string } | Record<string, never> {
  if (typeof value === 'number') return { valueQuantity: { value, ...(unit !== undefined ? { unit: unit.trim() } : {}) } };
  if (typeof value === 'string') return { valueString: unit === undefined ? value.trim() : `${value.trim()} ${unit.trim()}` };
  return {};
}

/** One Observation per examination finding. */
export function findings(a: Assembly, items: readonly FindingInput[]): Reference[] {
  return items.map((f) => {
    const o: Observation & { id: string } = {
      resourceType: 'Observation',
      id: a.nextId('Observation'),
      meta: meta(PROFILES.Observation),
      status: 'final',
      code: { text: f.name.trim() },
      subject: a.refs.patient,
      encounter: a.refs.encounter,
      performer: [a.refs.practitioner],
      ...valueOf(f.value, f.unit),
    };
    return a.add(o);
  });
}

/** One Procedure per procedure done, SNOMED CT coded only when the input gives the concept. */
export function procedures(a: Assembly, items: readonly ProcedureInput[]): Reference[] {
  return items.map((p) => {
    const when = dateTimeOf(a, p.date);
    const r: Procedure & { id: string } = {
      resourceType: 'Procedure',
      id: a.nextId('Procedure'),
      meta: meta(PROFILES.Procedure),
      status: 'completed',
      code: conceptOf(p.name.trim(), p.code, SYSTEMS.snomed),
      subject: a.refs.patient,
      encounter: a.refs.encounter,
      ...(when !== undefined ? { performedDateTime: when } : {}),
      recorder: a.refs.practitioner,
      ...(p.notes !== undefined && p.notes.trim() !== '' ? { note: [{ text: p.notes.trim() }] } : {}),
    };
    return a.add(r);
  });
}

/** `Haemoglobin: 10.2 g/dL (12-15 g/dL), Low`: a result in words, as plain text. */
export function resultWords(x: InvestigationInput): string {
  const value = x.value === undefined ? '' : `: ${String(x.value).trim()}${x.unit !== undefined ? ` ${x.unit.trim()}` : ''}`;
  const range = x.referenceRange !== undefined && x.referenceRange.trim() !== '' ? ` (reference ${x.referenceRange.trim()})` : '';
  return `${x.testName.trim()}${value}${range}`;
}

/**
 * One DiagnosticReportLab per investigation, with its result as an
 * Observation. The profile requires a conclusion: the interpretation when
 * given, else the result in words (docs/spec-decisions.md).
 */
export function investigations(a: Assembly, items: readonly InvestigationInput[]): Reference[] {
  return items.map((x) => {
    const when = dateTimeOf(a, x.date);
    const code = conceptOf(x.testName.trim(), x.code, SYSTEMS.loinc);
    const interpretation = x.interpretation !== undefined && x.interpretation.trim() !== '' ? x.interpretation.trim() : undefined;
    const o: Observation & { id: string } = {
      resourceType: 'Observation',
      id: a.nextId('Observation'),
      meta: meta(PROFILES.Observation),
      status: 'final',
      code,
      subject: a.refs.patient,
      encounter: a.refs.encounter,
      ...(when !== undefined ? { effectiveDateTime: when } : {}),
      performer: [a.refs.organization],
      ...valueOf(x.value, x.unit),
      ...(interpretation !== undefined ? { interpretation: [{ text: interpretation }] } : {}),
      ...(x.referenceRange !== undefined && x.referenceRange.trim() !== '' ? { referenceRange: [{ text: x.referenceRange.trim() }] } : {}),
    };
    const result = a.add(o);
    const report: DiagnosticReport & { id: string } = {
      resourceType: 'DiagnosticReport',
      id: a.nextId('DiagnosticReport'),
      meta: meta(PROFILES.DiagnosticReportLab),
      status: 'final',
      code,
      subject: a.refs.patient,
      encounter: a.refs.encounter,
      ...(when !== undefined ? { effectiveDateTime: when } : {}),
      performer: [a.refs.organization],
      resultsInterpreter: [a.refs.practitioner],
      result: [result],
      conclusion: interpretation ?? resultWords(x),
    };
    return a.add(report);
  });
}

/** The follow-up as a CarePlan (the DischargeSummaryRecord CarePlan slice). */
export function followUpPlan(a: Assembly, followUp: string): Reference {
  const plan: CarePlan & { id: string } = {
    resourceType: 'CarePlan',
    id: a.nextId('CarePlan'),
    meta: meta(PROFILES.CarePlan),
    status: 'active',
    intent: 'plan',
    title: 'Follow-up',
    description: followUp,
    subject: a.refs.patient,
    encounter: a.refs.encounter,
    created: a.job.when,
    author: a.refs.practitioner,
  };
  return a.add(plan);
}

/** Narrative lines. */
export const procedureLine = (p: ProcedureInput): string =>
  `${iso(p.name)}${p.code !== undefined ? ` (SNOMED CT ${iso(p.code.code)})` : ''}${p.date !== undefined ? `, ${iso(p.date)}` : ''}${p.notes !== undefined ? `: ${iso(p.notes)}` : ''}`;
export const findingLine = (f: FindingInput): string => `${iso(f.name)}${f.value !== undefined ? `: ${iso(`${String(f.value)}${f.unit !== undefined ? ` ${f.unit}` : ''}`)}` : ''}`;
export const investigationLine = (x: InvestigationInput): string =>
  `${iso(resultWords(x))}${x.interpretation !== undefined ? `, ${iso(x.interpretation)}` : ''}${x.date !== undefined ? ` on ${iso(x.date)}` : ''}`;
