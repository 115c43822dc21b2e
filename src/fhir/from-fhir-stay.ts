/**
 * FHIR in for the discharge summary and the immunisation record: an
 * inpatient Encounter (its period and reason), the DischargeSummaryRecord's
 * slices (complaints, past history, examination Observations, investigation
 * DiagnosticReports with their result Observations, Procedures,
 * AllergyIntolerance, the follow-up CarePlan, its text sections) and every
 * Immunization with the next dose due from an ImmunizationRecommendation.
 * What has no place in the clinical input is reported with its FHIR path,
 * as in `from-fhir.ts`; only a SNOMED CT coding of a procedure or a vaccine
 * and a LOINC coding of a test are kept, with the display they carry.
 */
import type { FindingInput, ImmunizationInput, InvestigationInput, ProcedureInput, VisitInput } from '../generated/types.js';
import { DISCHARGE_SUMMARY_SECTIONS, ENCOUNTER_CLASS_INPATIENT, STAY_CODES, SYSTEMS } from './constants.js';
import { ownValue } from './own.js';
import { isMeasurement } from './from-fhir-records.js';
import { isObject } from '../util.js';
import { codings, conceptText, hiTypeOfComposition, reportRest, take, type Item, type Json, type Path, type Reader } from './from-fhir-reader.js';

/** The stay as it is read, before the builders check it. */
export interface StayDraft {
  admittedAt?: string;
  dischargedAt?: string;
  reasonForAdmission?: string;
  chiefComplaints: string[];
  presentIllness?: string;
  pastHistory: string[];
  allergies: string[];
  examinationFindings: FindingInput[];
  procedures: ProcedureInput[];
  investigations: InvestigationInput[];
  courseInHospital?: string;
  conditionAtDischarge?: string;
}

/** What this module adds to the reading: the stay (when there is one), the immunisations and the follow-up of a care plan. */
export interface ClinicalDraft {
  stay: StayDraft | undefined;
  readonly immunizations: ImmunizationInput[];
  followUp?: string;
}

export const newStay = (): StayDraft => ({ chiefComplaints: [], pastHistory: [], allergies: [], examinationFindings: [], procedures: [], investigations: [] });

/** True when an Encounter's class is an inpatient stay (v3-ActCode IMP). */
export function isInpatient(r: Json): boolean {
  return isObject(r.class) && r.class.system === ENCOUNTER_CLASS_INPATIENT.system && r.class.code === ENCOUNTER_CLASS_INPATIENT.code;
}

/** An inpatient Encounter: admission and discharge from its period, the reason for admission from its reasonCode. */
export function readStayEncounter(rd: Reader, r: Json, p: Path, draft: ClinicalDraft): void {
  const stay = (draft.stay ??= newStay());
  const period = isObject(r.period) ? r.period : {};
  const start = rd.text(period.start, [...p, 'period', 'start']);
  const end = rd.text(period.end, [...p, 'period', 'end']);
  if (start !== undefined) {
    stay.admittedAt = start;
    rd.from('/inpatientStay/admittedAt', [...p, 'period', 'start']);
  }
  if (end !== undefined) {
    stay.dischargedAt = end;
    rd.from('/inpatientStay/dischargedAt', [...p, 'period', 'end']);
  }
  const reasons: unknown[] = Array.isArray(r.reasonCode) ? r.reasonCode : [];
  reasons.forEach((cc, i) => {
    const words = conceptText(rd, cc, [...p, 'reasonCode', i]);
    if (words !== undefined && i === 0) {
      stay.reasonForAdmission = words;
      rd.from('/inpatientStay/reasonForAdmission', [...p, 'reasonCode', i]);
    } else rd.warn([...p, 'reasonCode', i], 'not-mapped', 'the clinical input holds one reason for admission, in words; this reasonCode is left out');
    codings(cc).forEach((_, j) => rd.warn([...p, 'reasonCode', i, 'coding', j], 'not-mapped', 'the reason for admission is kept in words; this coding is left out'));
  });
}

/** The slice of each resource a DischargeSummaryRecord's sections reference. */
function slicesOf(rd: Reader, comp: Item): Map<Item, string> {
  const byCode = new Map(Object.entries(DISCHARGE_SUMMARY_SECTIONS).map(([name, s]) => [s.coding.code, name]));
  const out = new Map<Item, string>();
  const sections: unknown[] = Array.isArray(comp.resource.section) ? comp.resource.section : [];
  for (const s of sections) {
    if (!isObject(s)) continue;
    const name = codings(s.code)
      .map((c) => (c.system === SYSTEMS.snomed && typeof c.code === 'string' ? byCode.get(c.code) : undefined))
      .find((n) => n !== undefined);
    const entries: unknown[] = Array.isArray(s.entry) ? s.entry : [];
    for (const en of entries) {
      const t = rd.resolve(en, comp);
      if (name !== undefined && t !== undefined) out.set(t, name);
    }
  }
  return out;
}

/** A coding of `system` kept with its display (`{ code, display }`), the other codings reported. */
function keptCoding(rd: Reader, cc: unknown, p: Path, system: string, what: string): { code: string; display: string } | undefined {
  let kept: { code: string; display: string } | undefined;
  codings(cc).forEach((c, i) => {
    if (kept === undefined && c.system === system && typeof c.code === 'string' && typeof c.display === 'string' && c.display.trim() !== '') kept = { code: c.code.trim(), display: c.display.trim() };
    else rd.warn([...p, 'coding', i], 'not-mapped', `the clinical input keeps one ${what} coding with its display; this coding is left out, the name is kept`);
  });
  return kept;
}

/** An Observation's value as the input holds it: a number with its unit, or words. */
function valueOf(rd: Reader, r: Json, p: Path): { value?: number | string; unit?: string } {
  if (isObject(r.valueQuantity) && typeof r.valueQuantity.value === 'number') {
    const unit = rd.text(r.valueQuantity.unit, [...p, 'valueQuantity', 'unit']) ?? rd.text(r.valueQuantity.code, [...p, 'valueQuantity', 'code']);
    return { value: r.valueQuantity.value, ...(unit !== undefined ? { unit } : {}) };
  }
  const words = rd.text(r.valueString, [...p, 'valueString']);
  if (words !== undefined) return { value: words };
  for (const k of Object.keys(r)) if (k.startsWith('value')) rd.warn([...p, k], 'not-mapped', 'the clinical input holds a number with its unit, or words, as a value; this value is left out');
  return {};
}

const OBSERVATION_DONE = ['subject', 'encounter', 'performer', 'status', 'category', 'code', 'effectiveDateTime', 'valueQuantity', 'valueString', 'interpretation', 'referenceRange', 'issued'];

/** An examination finding from an Observation of the PhysicalExamination slice. */
function readFinding(rd: Reader, item: Item): FindingInput | undefined {
  const { r, p } = take(rd, item, []);
  const name = conceptText(rd, r.code, [...p, 'code']);
  if (name === undefined) return void rd.warn([...p, 'code'], 'not-mapped', 'this Observation does not name what was examined; it is left out');
  codings(r.code).forEach((_, i) => rd.warn([...p, 'code', 'coding', i], 'not-mapped', 'the clinical input names findings in words; this coding is left out'));
  reportRest(
    rd,
    r,
    p,
    OBSERVATION_DONE.filter((k) => !['interpretation', 'referenceRange', 'effectiveDateTime'].includes(k)),
    'Observation',
  );
  return { name, ...valueOf(rd, r, p) };
}

/** An investigation from a DiagnosticReport of the Investigations slice and its one result. */
function readInvestigation(rd: Reader, item: Item): InvestigationInput | undefined {
  const { r, p } = take(rd, item, ['result']);
  const results: unknown[] = Array.isArray(r.result) ? r.result : [];
  const obs = results.map((x) => rd.resolve(x, item)).filter((x): x is Item => x !== undefined && x.resourceType === 'Observation');
  results.slice(1).forEach((_, i) => rd.warn([...p, 'result', i + 1], 'not-mapped', 'the clinical input holds one result per investigation; this result is left out'));
  const first = obs[0];
  if (first === undefined) return void rd.warn(p, 'not-mapped', 'this DiagnosticReport has no Observation result of the input; it is left out');
  const { r: o, p: op } = take(rd, first, []);
  const testName = conceptText(rd, o.code, [...op, 'code']) ?? conceptText(rd, r.code, [...p, 'code']);
  if (testName === undefined) return void rd.warn([...op, 'code'], 'not-mapped', 'this result does not name its test; it is left out');
  const code = keptCoding(rd, o.code, [...op, 'code'], SYSTEMS.loinc, 'LOINC');
  const interpretation = Array.isArray(o.interpretation) ? conceptText(rd, o.interpretation[0], [...op, 'interpretation', 0]) : undefined;
  const range = Array.isArray(o.referenceRange) && isObject(o.referenceRange[0]) ? rd.text(o.referenceRange[0].text, [...op, 'referenceRange', 0, 'text']) : undefined;
  const date = rd.text(o.effectiveDateTime, [...op, 'effectiveDateTime']) ?? rd.text(r.effectiveDateTime, [...p, 'effectiveDateTime']);
  const out: InvestigationInput = { testName, ...(code !== undefined ? { code } : {}), ...valueOf(rd, o, op) };
  if (range !== undefined) out.referenceRange = range;
  if (date !== undefined) out.date = date;
  // The profile requires a conclusion; abha-link writes the interpretation, else the result in words. Another one is the interpretation.
  const conclusion = rd.text(r.conclusion, [...p, 'conclusion']);
  const words = `${testName}${out.value === undefined ? '' : `: ${String(out.value)}${out.unit !== undefined ? ` ${out.unit}` : ''}`}${range !== undefined ? ` (reference ${range})` : ''}`;
  if (interpretation !== undefined) out.interpretation = interpretation;
  else if (conclusion !== undefined && conclusion !== words) out.interpretation = conclusion;
  reportRest(rd, o, op, OBSERVATION_DONE, 'Observation');
  reportRest(rd, r, p, ['status', 'category', 'code', 'subject', 'encounter', 'effectiveDateTime', 'issued', 'performer', 'resultsInterpreter', 'result', 'conclusion'], 'DiagnosticReport');
  return out;
}

/** A procedure: its name, a SNOMED CT coding with its display, when it was done, its notes. */
function readProcedure(rd: Reader, item: Item): ProcedureInput | undefined {
  const { r, p } = take(rd, item, ['note']);
  if (r.status === 'entered-in-error' || r.status === 'not-done') return void rd.warn([...p, 'status'], 'not-mapped', 'this Procedure was not done or was entered in error; it is left out');
  const name = conceptText(rd, r.code, [...p, 'code']);
  if (name === undefined) return void rd.warn([...p, 'code'], 'not-mapped', 'this Procedure does not name what was done; it is left out');
  const code = keptCoding(rd, r.code, [...p, 'code'], SYSTEMS.snomed, 'SNOMED CT');
  const date = rd.text(r.performedDateTime, [...p, 'performedDateTime']);
  const notes = (Array.isArray(r.note) ? r.note : []).flatMap((n, i) => (isObject(n) ? [rd.text(n.text, [...p, 'note', i, 'text'])] : [])).filter((x): x is string => x !== undefined);
  reportRest(rd, r, p, ['status', 'code', 'subject', 'encounter', 'performedDateTime', 'recorder', 'asserter', 'note'], 'Procedure');
  return { name, ...(code !== undefined ? { code } : {}), ...(date !== undefined ? { date } : {}), ...(notes.length > 0 ? { notes: notes.join('\n') } : {}) };
}

/** The words of a resource's `code` (a complaint, a past illness, an allergy), its codings reported. */
function wordsOf(rd: Reader, item: Item, key: string, done: readonly string[]): string | undefined {
  const { r, p } = take(rd, item, []);
  const words = conceptText(rd, r[key], [...p, key]);
  if (words === undefined) rd.warn([...p, key], 'not-mapped', `this ${item.resourceType} has no text or display; it is left out`);
  codings(r[key]).forEach((_, i) => rd.warn([...p, key, 'coding', i], 'not-mapped', 'the clinical input keeps this in words; this coding is left out'));
  reportRest(rd, r, p, [key, 'subject', 'patient', 'encounter', 'recordedDate', 'recorder', ...done], item.resourceType);
  return words;
}

/**
 * The stay's content of a DischargeSummaryRecord (or of an inpatient
 * Encounter's resources); returns the Conditions it took, which are then
 * not read as diagnoses.
 */
export function readStayContent(rd: Reader, comp: Item | undefined, draft: ClinicalDraft): ReadonlySet<Item> {
  const discharge = comp !== undefined && hiTypeOfComposition(comp.resource) === 'DischargeSummary';
  if (!discharge && draft.stay === undefined) return new Set();
  const stay = (draft.stay ??= newStay());
  const slices = comp !== undefined && discharge ? slicesOf(rd, comp) : new Map<Item, string>();
  const taken = new Set<Item>();
  for (const [item, slice] of slices) {
    const into = item.resourceType === 'Condition' ? (slice === 'ChiefComplaints' ? stay.chiefComplaints : slice === 'MedicalHistory' ? stay.pastHistory : undefined) : undefined;
    if (into !== undefined) {
      taken.add(item);
      const w = wordsOf(rd, item, 'code', ['clinicalStatus', 'verificationStatus', 'category']);
      if (w !== undefined) into.push(w);
    } else if (item.resourceType === 'Observation' && slice === 'PhysicalExamination' && !isMeasurement(item.resource)) {
      // A vital sign or body measurement (LOINC coded) is the patient's, read with the other Observations (from-fhir-records.ts); the rest are findings.
      const f = readFinding(rd, item);
      if (f !== undefined) stay.examinationFindings.push(f);
    } else if (item.resourceType === 'DiagnosticReport' && slice === 'Investigations') {
      const x = readInvestigation(rd, item);
      if (x !== undefined) stay.investigations.push(x);
    }
  }
  for (const it of rd.ofType('Procedure')) {
    const x = readProcedure(rd, it);
    if (x !== undefined) stay.procedures.push(x);
  }
  for (const it of rd.ofType('AllergyIntolerance')) {
    const w = wordsOf(rd, it, 'code', ['clinicalStatus', 'verificationStatus', 'type', 'category']);
    if (w !== undefined) stay.allergies.push(w);
  }
  for (const it of rd.ofType('CarePlan')) readCarePlan(rd, it, draft);
  return taken;
}

/** The follow-up from a CarePlan's description. */
function readCarePlan(rd: Reader, item: Item, draft: ClinicalDraft): void {
  const { r, p } = take(rd, item, []);
  const words = rd.text(r.description, [...p, 'description']);
  if (words === undefined || draft.followUp !== undefined) return void rd.warn(p, 'not-mapped', 'the clinical input holds one follow-up, from a CarePlan description; this CarePlan is left out');
  draft.followUp = words;
  rd.from('/visit/followUp', [...p, 'description']);
  reportRest(rd, r, p, ['status', 'intent', 'title', 'description', 'subject', 'encounter', 'created', 'author'], 'CarePlan');
}

const TEXT_SECTIONS: Readonly<Record<string, 'presentIllness' | 'courseInHospital' | 'conditionAtDischarge'>> = {
  'history of present illness': 'presentIllness',
  'course in hospital': 'courseInHospital',
  'condition at discharge': 'conditionAtDischarge',
};

/** The text sections of a DischargeSummaryRecord, by title (lower case); false when the title is none of them. */
export function readStayText(rd: Reader, title: string, words: string, sp: Path, draft: ClinicalDraft): boolean {
  // The Admission section repeats the Encounter's period and reason in words.
  if (title === 'admission') return draft.stay !== undefined;
  const field = ownValue(TEXT_SECTIONS, title);
  if (field === undefined || draft.stay === undefined || draft.stay[field] !== undefined) return false;
  draft.stay[field] = words;
  rd.from(`/inpatientStay/${field}`, [...sp, 'text']);
  return true;
}

/** One dose given, from an Immunization. */
function readImmunization(rd: Reader, item: Item, at: string): ImmunizationInput | undefined {
  const { r, p } = take(rd, item, ['protocolApplied']);
  if (r.status !== undefined && r.status !== 'completed') return void rd.warn([...p, 'status'], 'not-mapped', 'this Immunization was not given (not-done) or was entered in error; it is left out');
  const vaccine = conceptText(rd, r.vaccineCode, [...p, 'vaccineCode']);
  const date = rd.text(r.occurrenceDateTime, [...p, 'occurrenceDateTime']);
  if (vaccine === undefined || date === undefined) return void rd.warn(p, 'not-mapped', 'this Immunization does not name its vaccine or say when it was given (occurrenceDateTime); it is left out');
  rd.from(`${at}/vaccine`, [...p, 'vaccineCode']);
  rd.from(`${at}/date`, [...p, 'occurrenceDateTime']);
  const out: ImmunizationInput = { vaccine, date };
  const code = keptCoding(rd, r.vaccineCode, [...p, 'vaccineCode'], SYSTEMS.snomed, 'SNOMED CT');
  if (code !== undefined) out.vaccineCode = code;
  const applied: unknown[] = Array.isArray(r.protocolApplied) ? r.protocolApplied : [];
  applied.forEach((x, i) => {
    if (!isObject(x)) return;
    const dose = x.doseNumberPositiveInt ?? (typeof x.doseNumberString === 'string' ? x.doseNumberString.trim() : undefined);
    if (i === 0 && (typeof dose === 'number' || (typeof dose === 'string' && dose !== ''))) out.doseNumber = dose;
    else rd.warn([...p, 'protocolApplied', i], 'not-mapped', 'the clinical input holds one dose number per dose; this protocolApplied is left out');
    for (const k of Object.keys(x))
      if (!k.startsWith('doseNumber'))
        rd.warn(
          [...p, 'protocolApplied', i, k],
          'not-mapped',
          `protocolApplied.${k === 'series' || k === 'targetDisease' || k === 'authority' ? k : '(this element)'} has no place in the clinical input; it is left out`,
        );
  });
  const lot = rd.text(r.lotNumber, [...p, 'lotNumber']);
  if (lot !== undefined) out.lotNumber = lot;
  const maker = isObject(r.manufacturer) ? rd.text(r.manufacturer.display, [...p, 'manufacturer', 'display']) : undefined;
  if (maker !== undefined) out.manufacturer = maker;
  else if (r.manufacturer !== undefined)
    rd.warn([...p, 'manufacturer'], 'not-mapped', 'the clinical input names the manufacturer (manufacturer.display); this manufacturer has no name and is left out');
  for (const k of ['site', 'route'] as const) {
    const w = r[k] === undefined ? undefined : conceptText(rd, r[k], [...p, k]);
    if (w !== undefined) out[k] = w;
    codings(r[k]).forEach((_, i) => rd.warn([...p, k, 'coding', i], 'not-mapped', `the clinical input keeps the ${k} in words; this coding is left out`));
  }
  reportRest(
    rd,
    r,
    p,
    ['status', 'vaccineCode', 'patient', 'encounter', 'occurrenceDateTime', 'lotNumber', 'manufacturer', 'site', 'route', 'protocolApplied', 'primarySource', 'recorded'],
    'Immunization',
  );
  return out;
}

/** The next dose due of each immunisation an ImmunizationRecommendation cites with the date criterion "Date vaccine due". */
function readRecommendation(rd: Reader, item: Item, doses: ReadonlyMap<Item, ImmunizationInput>): void {
  const { r, p } = take(rd, item, ['recommendation']);
  const recs: unknown[] = Array.isArray(r.recommendation) ? r.recommendation : [];
  recs.forEach((x, i) => {
    const rp = [...p, 'recommendation', i];
    if (!isObject(x)) return;
    const cites: unknown[] = Array.isArray(x.supportingImmunization) ? x.supportingImmunization : [];
    const dose = cites.map((c) => rd.resolve(c, item)).find((t) => t !== undefined && doses.has(t));
    const criteria: unknown[] = Array.isArray(x.dateCriterion) ? x.dateCriterion : [];
    const due = criteria.find((c) => isObject(c) && codings(c.code).some((k) => k.system === STAY_CODES.dateVaccineDue.system && k.code === STAY_CODES.dateVaccineDue.code));
    const date = isObject(due) && typeof due.value === 'string' ? due.value.slice(0, 10) : undefined;
    const target = dose === undefined ? undefined : doses.get(dose);
    if (target === undefined || date === undefined || target.nextDue !== undefined)
      return rd.warn(rp, 'not-mapped', 'the clinical input holds a next due date of a dose given (a Date vaccine due criterion citing an Immunization of the input); this recommendation is left out');
    target.nextDue = date;
  });
  reportRest(rd, r, p, ['patient', 'date', 'authority', 'recommendation'], 'ImmunizationRecommendation');
}

/** Every Immunization of the input, with its next dose due. */
export function readImmunizations(rd: Reader, draft: ClinicalDraft): void {
  const doses = new Map<Item, ImmunizationInput>();
  for (const it of rd.ofType('Immunization')) {
    const im = readImmunization(rd, it, `/immunizations/${draft.immunizations.length}`);
    if (im === undefined) continue;
    draft.immunizations.push(im);
    doses.set(it, im);
  }
  for (const it of rd.ofType('ImmunizationRecommendation')) readRecommendation(rd, it, doses);
}

/**
 * Once everything is read: a stay without a Composition date is a visit at
 * its discharge (else its admission); a care plan's follow-up is the
 * visit's unless a Follow-up section gave one.
 */
export function settleStay(draft: ClinicalDraft, visit: Partial<VisitInput>): void {
  const at = draft.stay?.dischargedAt ?? draft.stay?.admittedAt;
  if (visit.at === undefined && at !== undefined) visit.at = at;
  if (visit.followUp === undefined && draft.followUp !== undefined) visit.followUp = draft.followUp;
}
