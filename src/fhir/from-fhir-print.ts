/**
 * FHIR in for the details a clinical input gives for printed documents and
 * abha-link writes into FHIR too: postal addresses (Address.text, else its
 * parts), the patient's mobile (a phone ContactPoint), the doctor's
 * qualifications and council, a medication's generic name, strength and
 * form (the notes abha-link writes), and the patient's vitals, weight and
 * height (the vital-sign Observations of a record other than a
 * WellnessRecord). What does not fit is reported, never guessed.
 */
import type { BloodPressureInput, MedicationInput, ObservationsInput, PatientInput, VitalsInput } from '../generated/types.js';
import { checkList, codings, conceptText, eachObject, leftOut, type Json, type Path, type Reader } from './from-fhir-reader.js';
import type { Mutable } from '../util.js';
import { CELSIUS_UP_TO, PATIENT_MEASURE_MAXIMA, PATTERNS } from '../spec/definition.js';
import { bloodPressureOf } from './patient-vitals.js';
import { MEDICATION_NOTES } from './resources.js';

const ADDRESS_PARTS = ['city', 'district', 'state', 'postalCode', 'country'] as const;

/** An address in words: its text, else its lines and parts joined with commas. */
function addressWords(rd: Reader, a: Json, ap: Path): string | undefined {
  const text = rd.text(a.text, [...ap, 'text']);
  if (text !== undefined) return text;
  const lines = Array.isArray(a.line) ? a.line.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : [];
  const parts = ADDRESS_PARTS.map((k) => (typeof a[k] === 'string' ? (a[k] as string).trim() : '')).filter((x) => x !== '');
  const words = [...lines, ...parts].join(', ');
  return words === '' ? undefined : words;
}

/** The first postal address of `r` into `into.address` (at `${at}/address`); further ones are reported. */
export function readAddress(rd: Reader, r: Json, p: Path, into: { address?: string }, at: string): void {
  checkList(rd, r, 'address', p);
  eachObject(r, 'address', p, (a, ap) => {
    const words = addressWords(rd, a, ap);
    if (words === undefined) return rd.warn(ap, 'not-mapped', 'this address has neither text nor parts; it is left out');
    if (into.address !== undefined) return rd.warn(ap, 'not-mapped', 'the clinical input holds one postal address; this further address is left out');
    into.address = words;
    rd.from(`${at}/address`, ap);
  });
}

/** The clinical input's rule for `patient.mobile` (10 digits): one definition for the input and for reading FHIR. */
const MOBILE_DIGITS = new RegExp(PATTERNS.mobile.regex);
const CONTACT_USES: readonly string[] = ['home', 'work', 'temp', 'old', 'mobile'];

/**
 * The 10-digit number of an Indian mobile from a phone as written (spaces,
 * dashes and brackets allowed, +91, 91 or 0 before it); undefined otherwise.
 * A landline's national number has 10 digits too but begins with its area
 * code, so the number must also begin with 6, 7, 8 or 9 as a mobile's does.
 */
function mobileOf(value: string): string | undefined {
  const national = value.replace(/[\s().-]/g, '').replace(/^(?:\+91|91|0)(?=[0-9]{10}$)/, '');
  return MOBILE_DIGITS.test(national) && /^[6-9]/.test(national) ? national : undefined;
}

/** Why a contact of the patient is not the mobile: undefined when it is (a phone of use mobile or no use, an Indian mobile number). */
function notMobile(t: Json, value: string | undefined): string | undefined {
  if (t.system !== 'phone') return "the clinical input holds only the patient's mobile number; this contact is not a phone and is left out";
  if (t.use !== undefined && t.use !== 'mobile')
    return `this phone's use is ${typeof t.use === 'string' && CONTACT_USES.includes(t.use) ? t.use : '(not a ContactPoint use)'}, not mobile; the clinical input holds only the patient's mobile number, so it is left out`;
  if (value === undefined) return 'this phone has no number; it is left out';
  if (mobileOf(value) === undefined) return "this phone is not an Indian mobile number (10 digits beginning 6 to 9, optionally after +91, 91 or 0), as the clinical input's mobile is; it is left out";
  return undefined;
}

/** The patient's first phone that is a mobile (use mobile or none, an Indian mobile number) → `mobile`, the address → `address`; every other contact is reported. */
export function readPatientContacts(rd: Reader, r: Json, p: Path, into: Partial<PatientInput>): void {
  checkList(rd, r, 'telecom', p);
  eachObject(r, 'telecom', p, (t, tp) => {
    const value = rd.text(t.value, [...tp, 'value']);
    const why = notMobile(t, value) ?? (into.mobile !== undefined ? 'the clinical input holds one mobile number for the patient; this further one is left out' : undefined);
    const mobile = why === undefined && value !== undefined ? mobileOf(value) : undefined;
    if (mobile === undefined) return rd.warn(tp, 'not-mapped', why ?? 'this phone is not a mobile number; it is left out');
    into.mobile = mobile;
    rd.from('/patient/mobile', [...tp, 'value']);
  });
  readAddress(rd, r, p, into, '/patient');
}

const QUALIFICATION_ELEMENTS: readonly string[] = ['identifier', 'period', 'issuer'];
const ANNOTATION_ELEMENTS: readonly string[] = ['authorReference', 'authorString', 'time'];

/** The doctor's qualifications in words, joined with commas ("MBBS, MD (General Medicine)"); codings, periods and issuers are reported. */
export function readQualifications(rd: Reader, r: Json, p: Path, into: { qualification?: string }): void {
  checkList(rd, r, 'qualification', p);
  const words: string[] = [];
  eachObject(r, 'qualification', p, (q, qp) => {
    const w = conceptText(rd, q.code, [...qp, 'code']);
    if (w === undefined) return rd.warn([...qp, 'code'], 'not-mapped', 'this qualification has no text or display; it is left out');
    words.push(w);
    codings(q.code).forEach((_, j) =>
      rd.warn([...qp, 'code', 'coding', j], 'not-mapped', 'the clinical input keeps qualifications in words; this coding is left out, the qualification keeps its words'),
    );
    for (const k of Object.keys(q)) if (k !== 'code' && k !== 'id') rd.warn([...qp, k], 'not-mapped', leftOut('qualification', k, QUALIFICATION_ELEMENTS));
  });
  if (words.length > 0) {
    into.qualification = words.join(', ');
    rd.from('/doctor/qualification', [...p, 'qualification']);
  }
}

const FIELD_OF_LABEL: ReadonlyMap<string, keyof typeof MEDICATION_NOTES> = new Map(
  (Object.entries(MEDICATION_NOTES) as Array<[keyof typeof MEDICATION_NOTES, string]>).map(([k, label]) => [label, k]),
);

/** The notes abha-link writes on a MedicationRequest ("Generic name: …", "Strength: …", "Form: …"); any other note is reported. */
export function readMedicationNotes(rd: Reader, r: Json, p: Path, out: Pick<Mutable<MedicationInput>, 'genericName' | 'strength' | 'form'>, at: string): void {
  checkList(rd, r, 'note', p);
  eachObject(r, 'note', p, (n, np) => {
    const m = typeof n.text === 'string' ? /^([A-Za-z ]+): (.+)$/s.exec(n.text.trim()) : null;
    const field = m?.[1] === undefined ? undefined : FIELD_OF_LABEL.get(m[1]);
    const value = m?.[2]?.trim();
    if (field === undefined || value === undefined || value === '' || out[field] !== undefined)
      return rd.warn(np, 'not-mapped', 'this note is none of the notes abha-link writes (Generic name, Strength, Form: one each); it is left out');
    out[field] = value;
    rd.from(`${at}/${field}`, [...np, 'text']);
    for (const k of Object.keys(n)) if (k !== 'text' && k !== 'id') rd.warn([...np, k], 'not-mapped', leftOut('note', k, ANNOTATION_ELEMENTS));
  });
}

/** A blood pressure as the patient's vitals hold it ("120/80"): only when the clinical input's own reading of that text gives the same numbers back. */
function vitalsBloodPressure(bp: BloodPressureInput): string | undefined {
  const text = `${bp.systolic}/${bp.diastolic}`;
  const back = bloodPressureOf(text);
  return back?.systolic === bp.systolic && back.diastolic === bp.diastolic ? text : undefined;
}

/**
 * The vital signs and body measurements read from a record that is not a
 * WellnessRecord are the patient's at the visit (abha-link writes
 * `patient.vitals`, `weight` and `height` there): those measured at the
 * visit time that the patient's fields accept (a blood pressure as
 * "120/80", values within the patient's limits) move from `observations`
 * to the patient, with their origin; the rest stay in `observations`.
 */
export function measuresIntoPatient(rd: Reader, draft: { readonly patient: Partial<PatientInput>; observations?: ObservationsInput }): void {
  const obs = draft.observations;
  if (obs === undefined) return;
  const rest: Mutable<ObservationsInput> = { ...obs };
  const patient = draft.patient;
  const vitals: Mutable<VitalsInput> = { ...(patient.vitals ?? {}) };
  const move = (k: keyof ObservationsInput, to: string): void => {
    delete rest[k];
    rd.moveOrigin(`/observations/${k}`, to);
  };
  const bp = obs.bloodPressure;
  const bpText = bp === undefined || bp.at !== undefined ? undefined : vitalsBloodPressure(bp);
  if (bpText !== undefined && vitals.bloodPressure === undefined) {
    vitals.bloodPressure = bpText;
    move('bloodPressure', '/patient/vitals/bloodPressure');
  }
  // The patient's temperature is in degrees Celsius up to CELSIUS_UP_TO, Fahrenheit above.
  const t = obs.temperature;
  const celsius = typeof t === 'number' && t <= CELSIUS_UP_TO ? t : undefined;
  const fahrenheit = typeof t === 'object' && t.unit === '[degF]' && t.at === undefined && t.value > CELSIUS_UP_TO && t.value <= PATIENT_MEASURE_MAXIMA.temperature ? t.value : undefined;
  if ((celsius ?? fahrenheit) !== undefined && vitals.temperature === undefined) {
    vitals.temperature = (celsius ?? fahrenheit) as number;
    move('temperature', '/patient/vitals/temperature');
  }
  for (const k of ['pulse', 'spo2', 'respiratoryRate'] as const) {
    const v = obs[k];
    if (typeof v === 'number' && v <= PATIENT_MEASURE_MAXIMA[k] && vitals[k] === undefined) {
      vitals[k] = v;
      move(k, `/patient/vitals/${k}`);
    }
  }
  for (const k of ['weight', 'height'] as const) {
    const v = obs[k];
    if (typeof v === 'number' && v <= PATIENT_MEASURE_MAXIMA[k] && patient[k] === undefined) {
      patient[k] = v;
      move(k, `/patient/${k}`);
    }
  }
  if (Object.keys(vitals).length > 0) patient.vitals = vitals;
  if (Object.keys(rest).length > 0) draft.observations = rest;
  else delete draft.observations;
}
