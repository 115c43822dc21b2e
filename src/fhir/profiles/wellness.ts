/**
 * WellnessRecord (StructureDefinition-WellnessRecord, NRCeS IG 6.5.0): no
 * type coding (type.text "Wellness Record"), sections sliced by their fixed
 * titles. Vital signs and body measurements become Observations with the
 * LOINC codes of the NRCeS value sets (ndhm-vital-signs,
 * ndhm-body-measurement) and UCUM quantities; lifestyle the SNOMED CT codes
 * of ndhm-lifestyle where one fits, the text alone where none does.
 */
import type { MeasurementInput, ObservationsInput } from '../../generated/types.js';
import { issue, type Assembly } from '../assembly.js';
import { PROFILES, SYSTEMS, type FixedCoding } from '../constants.js';
import { documentLine, li, narrative } from '../narrative.js';
import type { CodeableConcept, CompositionSection, Observation, ObservationComponent, Quantity, Reference } from '../r4.js';
import { withPatientMeasurements } from '../patient-vitals.js';
import { documentBytes, documentReference, misfitClinicalContent, reportDocumentProblem } from '../resources.js';
import { visitDateTime } from '../time.js';
import { isolatedXhtml as iso } from '../xhtml.js';

const loinc = (code: string, display: string): FixedCoding => ({ system: SYSTEMS.loinc, code, display });
const sct = (code: string, display: string): FixedCoding => ({ system: SYSTEMS.snomed, code, display });

/** A UCUM unit: its code and how it is written for people. */
interface Unit {
  readonly code: string;
  readonly unit: string;
}

/** One measured value of the clinical input: its LOINC code (ValueSets ndhm-vital-signs, ndhm-body-measurement), its UCUM unit and its section. */
interface MeasureRule {
  readonly field: 'pulse' | 'spo2' | 'respiratoryRate' | 'height' | 'weight' | 'bmi';
  readonly label: string;
  readonly coding: FixedCoding;
  readonly unit: Unit;
  readonly section: 'Vital Signs' | 'Body Measurement';
}

/**
 * The LOINC codes and displays are those of the NRCeS value sets; where
 * the FHIR vital-signs profile uses another code for the same thing
 * (8310-5 Body temperature, 59408-5 SpO2 by pulse oximetry), the NRCeS one
 * is used (61008-9, 2708-6): docs/fhir.md.
 */
const MEASURES: readonly MeasureRule[] = [
  { field: 'pulse', label: 'Pulse', coding: loinc('8867-4', 'Heart rate'), unit: { code: '/min', unit: 'beats/minute' }, section: 'Vital Signs' },
  { field: 'spo2', label: 'SpO2', coding: loinc('2708-6', 'Oxygen saturation in Arterial blood'), unit: { code: '%', unit: '%' }, section: 'Vital Signs' },
  { field: 'respiratoryRate', label: 'Respiratory rate', coding: loinc('9279-1', 'Respiratory rate'), unit: { code: '/min', unit: 'breaths/minute' }, section: 'Vital Signs' },
  { field: 'height', label: 'Height', coding: loinc('8302-2', 'Body height'), unit: { code: 'cm', unit: 'cm' }, section: 'Body Measurement' },
  { field: 'weight', label: 'Weight', coding: loinc('29463-7', 'Body weight'), unit: { code: 'kg', unit: 'kg' }, section: 'Body Measurement' },
  { field: 'bmi', label: 'BMI', coding: loinc('39156-5', 'Body mass index (BMI) [Ratio]'), unit: { code: 'kg/m2', unit: 'kg/m2' }, section: 'Body Measurement' },
];

/** Exported for reading FHIR back in (from-fhir-wellness.ts). */
export const WELLNESS_CODES = {
  bloodPressure: loinc('85354-9', 'Blood pressure panel with all children optional'),
  systolic: loinc('8480-6', 'Systolic blood pressure'),
  diastolic: loinc('8462-4', 'Diastolic blood pressure'),
  temperature: loinc('61008-9', 'Body surface temperature'),
  smoking: sct('365981007', 'Finding of tobacco smoking behavior'),
  alcohol: sct('228273003', 'Finding relating to alcohol drinking behavior'),
  tobaccoChewing: sct('228509002', 'Finding relating to tobacco chewing'),
} as const;

export const MEASURE_RULES = MEASURES;

/** Temperature units (UCUM). */
export const TEMPERATURE_UNITS: Readonly<Record<string, Unit>> = { Cel: { code: 'Cel', unit: '°C' }, '[degF]': { code: '[degF]', unit: '°F' } };

const quantity = (value: number, u: Unit): Quantity => ({ value, unit: u.unit, system: SYSTEMS.ucum, code: u.code });
const conceptOf = (c: FixedCoding, text?: string): CodeableConcept => ({ coding: [{ system: c.system, code: c.code, display: c.display }], text: text ?? c.display });

/** Collects the Observations of one section with their narrative lines. */
class SectionBuilder {
  readonly refs: Reference[] = [];
  readonly lines: string[] = [];
}

/** What the observation builders share: the assembly, the default time, and where the observations are. */
interface Ctx {
  readonly a: Assembly;
  readonly obs: ObservationsInput;
  readonly sections: Map<string, SectionBuilder>;
  /** The observations' own time, else the visit time; undefined when `observations.at` is not a real time (reported once). */
  readonly defaultWhen: string | undefined;
  /** The profile of every Observation, when the record's section asks for one (an OPConsultRecord's PhysicalExamination: Observation). */
  readonly profile?: string;
}

/** A time of the clinical input as a FHIR dateTime in the facility's zone; an error at `at` when it is not a real time. */
export function timeOf(a: Assembly, given: string, ...at: Array<string | number>): string | undefined {
  const when = visitDateTime(given, a.job.timeZone);
  if (when === undefined) a.report(issue(a.job.at.content(...at), 'invalid-datetime', 'must be a real date and time (ISO 8601, e.g. 2026-11-20T10:30:00+05:30)'));
  return when;
}

/** The FHIR dateTime of a measurement: its own time, else the observations' time, else the visit time. */
function effectiveOf(ctx: Ctx, own: string | undefined, ...at: Array<string | number>): string | undefined {
  return own === undefined ? ctx.defaultWhen : timeOf(ctx.a, own, 'observations', ...at, 'at');
}

/** Adds one Observation of `profile` to section `title`. */
function addObservation(ctx: Ctx, title: string, profile: string, body: Omit<Observation, 'resourceType' | 'status' | 'subject'>, line: string): void {
  const { a } = ctx;
  const o: Observation = {
    resourceType: 'Observation',
    id: a.nextId('Observation'),
    meta: { profile: [ctx.profile ?? profile] },
    status: 'final',
    subject: a.refs.patient,
    encounter: a.refs.encounter,
    performer: [a.refs.practitioner],
    ...body,
  } as Observation;
  const s = ctx.sections.get(title) ?? new SectionBuilder();
  ctx.sections.set(title, s);
  s.refs.push(a.add(o as Observation & { id: string }));
  s.lines.push(line);
}

const valueOf = (m: number | MeasurementInput): { value: number; at: string | undefined } => (typeof m === 'number' ? { value: m, at: undefined } : { value: m.value, at: m.at });

/** Vital signs and body measurements: blood pressure (a panel of two components), temperature, and the single-valued measures. */
function measurements(ctx: Ctx): void {
  const { obs } = ctx;
  const bp = obs.bloodPressure;
  if (bp !== undefined) {
    const mmHg: Unit = { code: 'mm[Hg]', unit: 'mmHg' };
    const component: ObservationComponent[] = [
      { code: conceptOf(WELLNESS_CODES.systolic), valueQuantity: quantity(bp.systolic, mmHg) },
      { code: conceptOf(WELLNESS_CODES.diastolic), valueQuantity: quantity(bp.diastolic, mmHg) },
    ];
    const effectiveDateTime = effectiveOf(ctx, bp.at, 'bloodPressure');
    addObservation(
      ctx,
      'Vital Signs',
      PROFILES.ObservationVitalSigns,
      { code: conceptOf(WELLNESS_CODES.bloodPressure, 'Blood pressure'), ...(effectiveDateTime !== undefined ? { effectiveDateTime } : {}), component },
      `Blood pressure: ${iso(String(bp.systolic))}/${iso(String(bp.diastolic))} mmHg`,
    );
  }
  if (obs.temperature !== undefined) {
    const t = typeof obs.temperature === 'number' ? { value: obs.temperature, unit: 'Cel', at: undefined } : obs.temperature;
    const unit = TEMPERATURE_UNITS[t.unit ?? 'Cel'] ?? { code: 'Cel', unit: '°C' };
    const effectiveDateTime = effectiveOf(ctx, t.at, 'temperature');
    addObservation(
      ctx,
      'Vital Signs',
      PROFILES.ObservationVitalSigns,
      { code: conceptOf(WELLNESS_CODES.temperature, 'Temperature'), ...(effectiveDateTime !== undefined ? { effectiveDateTime } : {}), valueQuantity: quantity(t.value, unit) },
      `Temperature: ${iso(String(t.value))} ${unit.unit}`,
    );
  }
  for (const rule of MEASURES) {
    const m = obs[rule.field];
    if (m === undefined) continue;
    const { value, at } = valueOf(m);
    const effectiveDateTime = effectiveOf(ctx, at, rule.field);
    const profile = rule.section === 'Vital Signs' ? PROFILES.ObservationVitalSigns : PROFILES.ObservationBodyMeasurement;
    addObservation(
      ctx,
      rule.section,
      profile,
      { code: conceptOf(rule.coding, rule.label), ...(effectiveDateTime !== undefined ? { effectiveDateTime } : {}), valueQuantity: quantity(value, rule.unit) },
      `${rule.label}: ${iso(String(value))} ${rule.unit.unit}`,
    );
  }
}

/**
 * The vital signs and body measurements of `obs` as Observations of `profile`, at the visit time (for a
 * record other than a WellnessRecord: the patient's vitals taken at the visit), with their narrative lines.
 */
export function measurementObservations(a: Assembly, obs: ObservationsInput, profile: string): { refs: Reference[]; lines: string[] } {
  const ctx: Ctx = { a, obs, sections: new Map(), defaultWhen: a.job.when, profile };
  measurements(ctx);
  const all = [...ctx.sections.values()];
  return { refs: all.flatMap((s) => s.refs), lines: all.flatMap((s) => s.lines) };
}

/** Lifestyle: smoking, alcohol and tobacco chewing coded (ndhm-lifestyle), diet by text; physical activity as text in its own section. */
function lifestyle(ctx: Ctx): void {
  const l = ctx.obs.lifestyle;
  if (l === undefined) return;
  const effectiveDateTime = effectiveOf(ctx, undefined);
  const when = effectiveDateTime !== undefined ? { effectiveDateTime } : {};
  const coded = [
    ['smoking', 'Smoking', WELLNESS_CODES.smoking],
    ['alcohol', 'Alcohol', WELLNESS_CODES.alcohol],
    ['tobaccoChewing', 'Tobacco chewing', WELLNESS_CODES.tobaccoChewing],
  ] as const;
  for (const [field, label, coding] of coded) {
    const v = l[field]?.trim();
    if (v !== undefined && v !== '')
      addObservation(ctx, 'Lifestyle', PROFILES.ObservationLifestyle, { code: conceptOf(coding, label), ...when, valueCodeableConcept: { text: v } }, `${label}: ${iso(v)}`);
  }
  // No code of ndhm-lifestyle or ndhm-physical-activity says "diet" or "physical activity" in words: the text alone, no invented code.
  const diet = l.diet?.trim();
  if (diet !== undefined && diet !== '')
    addObservation(ctx, 'Lifestyle', PROFILES.ObservationLifestyle, { code: { text: 'Diet' }, ...when, valueCodeableConcept: { text: diet } }, `Diet: ${iso(diet)}`);
  const activity = l.physicalActivity?.trim();
  if (activity !== undefined && activity !== '')
    addObservation(ctx, 'Physical Activity', PROFILES.ObservationPhysicalActivity, { code: { text: 'Physical activity' }, ...when, valueString: activity }, `Physical activity: ${iso(activity)}`);
}

/** The order of the sections (the profile's slice order). */
const SECTION_ORDER = ['Vital Signs', 'Body Measurement', 'Physical Activity', 'Lifestyle'] as const;

/**
 * The sections of a WellnessRecord, or none with an `empty-document` error
 * when there are neither observations nor an embedded document. Content a
 * WellnessRecord has no place for (diagnoses, medications, lab orders,
 * advice) is left out with a warning.
 */
export function wellnessSections(a: Assembly): CompositionSection[] {
  misfitClinicalContent(a);
  const obs = withPatientMeasurements(a, a.job.clinical?.observations ?? {});
  const ctx: Ctx = { a, obs, sections: new Map(), defaultWhen: obs.at === undefined ? a.job.when : timeOf(a, obs.at, 'observations', 'at') };
  measurements(ctx);
  lifestyle(ctx);
  const sections: CompositionSection[] = SECTION_ORDER.flatMap((title) => {
    const s = ctx.sections.get(title);
    return s === undefined ? [] : [{ title, text: narrative(li(s.lines)), entry: s.refs.map((r) => ({ ...r })) }];
  });
  const doc = documentBytes(a);
  if (typeof doc === 'object') sections.push({ title: 'Document Reference', text: narrative(li([documentLine(doc)])), entry: [documentReference(a, doc)] });
  else if (doc !== 'none') reportDocumentProblem(a, doc, sections.length === 0);
  if (sections.length === 0 && doc === 'none')
    a.report(
      issue(
        a.job.at.content(),
        'empty-document',
        'a WellnessRecord needs observations (vital signs, body measurements or lifestyle, given in a clinical input) or an embedded document; a link request carries neither',
      ),
    );
  return sections;
}
