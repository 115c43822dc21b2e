/**
 * The patient's weight, height and vitals of a clinical input (taken at the
 * visit, printed in the patient header) as the measurements of a record:
 * vital-sign Observations where the record profile has a place for them
 * (the PhysicalExamination section of an OPConsultRecord and of a
 * DischargeSummaryRecord; a WellnessRecord's sections, beside its own
 * observations). The record that has no place for
 * them says so in a warning (`to-fhir.ts`).
 */
import type { Mutable } from '../util.js';
import type { BloodPressureInput, MeasurementInput, ObservationsInput, TemperatureInput } from '../generated/types.js';
import { CELSIUS_UP_TO } from '../spec/definition.js';
import { printOnly, type Assembly, type PatientData } from './assembly.js';

type Measure = 'bloodPressure' | 'temperature' | 'pulse' | 'spo2' | 'respiratoryRate' | 'weight' | 'height';

/** Where each measure is in the clinical input's patient (JSON Pointer tokens under /patient). */
export const PATIENT_MEASURES: Readonly<Record<Measure, readonly string[]>> = {
  bloodPressure: ['vitals', 'bloodPressure'],
  temperature: ['vitals', 'temperature'],
  pulse: ['vitals', 'pulse'],
  spo2: ['vitals', 'spo2'],
  respiratoryRate: ['vitals', 'respiratoryRate'],
  weight: ['weight'],
  height: ['height'],
};

/** "120/80" (or "120 / 80 mmHg") → systolic and diastolic in mmHg; undefined for anything else. */
export function bloodPressureOf(text: string): BloodPressureInput | undefined {
  const m = /^\s*(\d{2,3}(?:\.\d)?)\s*\/\s*(\d{2,3}(?:\.\d)?)\s*(?:mm ?hg)?\s*$/i.exec(text);
  if (m === null) return undefined;
  const systolic = Number(m[1]);
  const diastolic = Number(m[2]);
  return systolic > diastolic && diastolic > 0 ? { systolic, diastolic } : undefined;
}

/** The measures the patient was given with, as `observations` holds them, and those that cannot be read (a blood pressure not as 120/80). */
export function patientMeasurements(p: PatientData): { obs: ObservationsInput; unreadable: Measure[] } {
  const obs: Mutable<ObservationsInput> = {};
  const unreadable: Measure[] = [];
  const v = p.vitals ?? {};
  if (v.bloodPressure !== undefined) {
    const bp = bloodPressureOf(v.bloodPressure);
    if (bp === undefined) unreadable.push('bloodPressure');
    else obs.bloodPressure = bp;
  }
  if (v.temperature !== undefined) obs.temperature = v.temperature <= CELSIUS_UP_TO ? v.temperature : { value: v.temperature, unit: '[degF]' };
  for (const k of ['pulse', 'spo2', 'respiratoryRate'] as const) if (v[k] !== undefined) obs[k] = v[k];
  if (p.weight !== undefined) obs.weight = p.weight;
  if (p.height !== undefined) obs.height = p.height;
  return { obs, unreadable };
}

/** The measures given for the patient, as JSON Pointer tokens under /patient: the vitals (one object), weight, height. */
export function givenMeasures(p: PatientData): Array<readonly string[]> {
  const out: Array<readonly string[]> = [];
  if (p.vitals !== undefined && Object.keys(p.vitals).length > 0) out.push(['vitals']);
  if (p.weight !== undefined) out.push(['weight']);
  if (p.height !== undefined) out.push(['height']);
  return out;
}

/** Reports the measures that cannot become an Observation; returns the rest. */
export function readableMeasurements(a: Assembly): ObservationsInput {
  const { obs, unreadable } = patientMeasurements(a.job.patient);
  for (const k of unreadable) a.report(printOnly(a.job.at.patient(...PATIENT_MEASURES[k]), `${k} is not systolic/diastolic in mmHg such as 120/80, so it cannot be an Observation`));
  return obs;
}

type Value = number | MeasurementInput | TemperatureInput | BloodPressureInput | undefined;
const numbersOf = (v: Value): string =>
  v === undefined ? '' : typeof v === 'number' ? `${v}` : 'systolic' in v ? `${v.systolic}/${v.diastolic}` : `${v.value}${'unit' in v && v.unit !== undefined ? v.unit : ''}`;

/**
 * A WellnessRecord's observations with the patient's measures added where
 * the observations have none; a patient measure that differs from the
 * observation of the same thing is reported (the observations are kept).
 */
export function withPatientMeasurements(a: Assembly, given: ObservationsInput): ObservationsInput {
  const fromPatient = readableMeasurements(a);
  const out: Mutable<ObservationsInput> = { ...given };
  for (const k of Object.keys(fromPatient) as Measure[]) {
    const mine = fromPatient[k] as Value;
    const theirs = given[k] as Value;
    if (theirs === undefined) (out as Record<Measure, Value>)[k] = mine;
    else if (numbersOf(mine).replace(/Cel$/, '') !== numbersOf(theirs).replace(/Cel$/, ''))
      a.report(printOnly(a.job.at.patient(...PATIENT_MEASURES[k]), `the WellnessRecord carries observations.${k}, which differs from the patient's ${k}; the observations are kept`));
  }
  return out;
}
