/**
 * FHIR R4 resources an EMR already has → the clinical input of abha-link
 * (and so bundleData and the link request). Whatever has no place in the
 * clinical input is reported as a warning with its FHIR path; nothing is
 * dropped silently and no code is guessed.
 */
import { safeBuildLinkRequest } from '../builders/link-request.js';
import { pointer, type Issue } from '../errors.js';
import { isObject, type Mutable } from '../util.js';
import type {
  ClinicalInput,
  Diagnosis,
  DiagnosisInput,
  Doctor,
  DoctorInput,
  Hospital,
  HospitalInput,
  InvoiceInput,
  LabInvestigation,
  MedicationInput,
  ObservationsInput,
  PatientInput,
  VisitInput,
} from '../generated/types.js';
import { measuresIntoPatient, readAddress, readMedicationNotes, readPatientContacts, readQualifications } from './from-fhir-print.js';
import { readRecordContent } from './from-fhir-records.js';
import { codeFromText } from './terminology.js';
import { ENCOUNTER_CLASS_AMBULATORY, IDENTIFIER_TYPES, KNOWN_IDENTIFIER_SYSTEMS, SYSTEMS, VERIFICATION_STATUSES } from './constants.js';
import { NO_DOSAGE_TEXT, doseFromSentence, durationInFrequency, durationText, frequencyFromRepeat } from './dosage.js';
import { ownValue } from './own.js';
import type { Bundle, FhirResource } from './r4.js';
import { safeElementName, safeResourceType } from './structure.js';
import { narrativeText } from './xhtml.js';
import { Reader, checkList, codings, conceptText, eachObject, elementName, hiTypeOfComposition, last, leftOut, reportRest, take, type Item, type Json, type Path } from './from-fhir-reader.js';
import { isInpatient, readImmunizations, readStayContent, readStayEncounter, readStayText, settleStay, type ClinicalDraft } from './from-fhir-stay.js';

/** Values to use where the FHIR resources do not say (an EMR Patient without an ABHA address, say). */
export interface FromFhirDefaults {
  readonly hipId?: string;
  readonly hospital?: Partial<Hospital>;
  readonly doctor?: Partial<Doctor>;
  readonly patient?: Partial<PatientInput>;
  readonly visit?: Partial<VisitInput>;
  /** The hiType of the care context; by default the Composition's record type, or derived from the content. */
  readonly hiType?: string;
}

/** Options of {@link fromFhir}. */
export interface FromFhirOptions {
  readonly defaults?: FromFhirDefaults;
}

/** What {@link fromFhir} returns. Warnings list everything that was not carried over. */
export type FromFhirResult = { readonly success: true; readonly value: ClinicalInput; readonly warnings: readonly Issue[] } | { readonly success: false; readonly issues: readonly Issue[] };

const MAX_RESOURCES = 10_000;

function typeCodes(identifier: Json): string[] {
  return codings(identifier.type).map((c) => `${String(c.system)}|${String(c.code)}`);
}
const typeIs = (identifier: Json, t: { system: string; code: string }): boolean => typeCodes(identifier).includes(`${t.system}|${t.code}`);
const systemIn = (identifier: Json, list: readonly string[]): boolean => typeof identifier.system === 'string' && list.includes(identifier.system.replace(/\/$/, ''));

function humanName(rd: Reader, r: Json, path: Path): string | undefined {
  if (!Array.isArray(r.name)) return undefined;
  const names = r.name as unknown[];
  const i = Math.max(
    0,
    names.findIndex((n) => isObject(n) && n.use === 'official'),
  );
  const n = names[i];
  if (!isObject(n)) return undefined;
  const p = [...path, 'name', i];
  const text = rd.text(n.text, [...p, 'text']);
  if (text !== undefined) return text;
  const parts = [
    ...(Array.isArray(n.prefix) ? n.prefix : []),
    ...(Array.isArray(n.given) ? n.given : []),
    ...(typeof n.family === 'string' ? [n.family] : []),
    ...(Array.isArray(n.suffix) ? n.suffix : []),
  ].filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  return parts.length === 0 ? undefined : parts.map((x) => x.trim()).join(' ');
}

function otherNames(rd: Reader, r: Json, path: Path, what: string): void {
  if (Array.isArray(r.name) && r.name.length > 1) {
    const names = r.name as unknown[];
    const chosen = Math.max(
      0,
      names.findIndex((n) => isObject(n) && n.use === 'official'),
    );
    names.forEach((_, i) => i !== chosen && rd.warn([...path, 'name', i], 'not-mapped', `${what} has one name in the clinical input; this name is left out`));
  }
}

/** Calls `take` with each object of `r.identifier` that has a value; an identifier without one is reported and left out. */
function eachIdentifier(rd: Reader, r: Json, p: Path, take: (id: Json, value: string, ip: Path) => void): void {
  eachObject(r, 'identifier', p, (id, ip) => {
    const value = rd.text(id.value, [...ip, 'value']);
    if (value === undefined) return rd.warn(ip, 'not-mapped', 'an identifier without a value is left out');
    take(id, value, ip);
  });
}

/** A person's name (the official one first) into `into.name`, with its origin; other names are reported. */
function readPersonName(rd: Reader, r: Json, p: Path, into: { name?: string }, at: string, who: string): void {
  const name = humanName(rd, r, p);
  if (name !== undefined) {
    into.name = name;
    rd.from(at, [...p, 'name']);
  }
  otherNames(rd, r, p, who);
}

const GENDER_OUT: Readonly<Record<string, string>> = { male: 'M', female: 'F', other: 'O', unknown: 'U' };

/** Request intents that make an order (a prescription, a lab order): the rest are proposals, plans or options. */
const ORDER_INTENTS: readonly string[] = ['order', 'original-order', 'instance-order'];
/** SNOMED CT 108252007 "Laboratory procedure": the ServiceRequest category of a lab investigation. */
const LABORATORY_PROCEDURE = '108252007';
const ATTACHMENT_ELEMENTS: readonly string[] = ['contentType', 'language', 'data', 'url', 'size', 'hash', 'title', 'creation'];

function readPatient(rd: Reader, item: Item, into: Partial<PatientInput>): void {
  const { r, p } = take(rd, item, ['identifier', 'name']);
  eachIdentifier(rd, r, p, (id, value, ip) => {
    if (typeIs(id, IDENTIFIER_TYPES.abhaAddress) && into.abhaAddress === undefined) {
      into.abhaAddress = value;
      rd.from('/patient/abhaAddress', [...ip, 'value']);
    } else if (
      (typeIs(id, { system: SYSTEMS.nrcesIdentifierType, code: 'HIN' }) || (typeIs(id, IDENTIFIER_TYPES.abhaNumber) && systemIn(id, KNOWN_IDENTIFIER_SYSTEMS.abha))) &&
      into.ABHANumber === undefined
    ) {
      if (value.includes('@')) {
        into.abhaAddress ??= value;
        rd.from('/patient/abhaAddress', [...ip, 'value']);
      } else {
        into.ABHANumber = value;
        rd.from('/patient/ABHANumber', [...ip, 'value']);
      }
    } else rd.warn(ip, 'not-mapped', 'this Patient identifier is neither an ABHA address nor an ABHA number (by its type and system); it is left out');
  });
  readPersonName(rd, r, p, into, '/patient/name', 'a patient');
  if (r.gender !== undefined) {
    const g = typeof r.gender === 'string' ? ownValue(GENDER_OUT, r.gender) : undefined;
    if (g === undefined) rd.warn([...p, 'gender'], 'not-mapped', 'gender is not a FHIR administrative gender (male, female, other, unknown); it is left out');
    else {
      into.gender = g;
      rd.from('/patient/gender', [...p, 'gender']);
    }
  }
  if (r.birthDate !== undefined) {
    const b = typeof r.birthDate === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(r.birthDate) ? r.birthDate : undefined;
    if (b === undefined) rd.warn([...p, 'birthDate'], 'not-mapped', 'birthDate is not a full date YYYY-MM-DD; a partial date has no place in the clinical input, it is left out');
    else {
      into.birthDate = b;
      rd.from('/patient/birthDate', [...p, 'birthDate']);
    }
  }
  readPatientContacts(rd, r, p, into);
  reportRest(rd, r, p, ['identifier', 'name', 'gender', 'birthDate', 'active', 'telecom', 'address'], 'Patient');
}

function readPractitioner(rd: Reader, item: Item, into: Partial<DoctorInput>): void {
  const { r, p } = take(rd, item, ['identifier', 'name']);
  readPersonName(rd, r, p, into, '/doctor/name', 'a doctor');
  eachIdentifier(rd, r, p, (id, value, ip) => {
    if ((typeIs(id, IDENTIFIER_TYPES.hpr) || typeIs(id, { system: SYSTEMS.nrcesIdentifierType, code: 'HPIN' })) && into.hpId === undefined) {
      into.hpId = value;
      rd.from('/doctor/hpId', [...ip, 'value']);
    } else if (typeIs(id, IDENTIFIER_TYPES.licence) && into.licNumber === undefined) {
      into.licNumber = value;
      rd.from('/doctor/licNumber', [...ip, 'value']);
      // The council that registered the licence (abha-link writes it as the identifier's assigner).
      const council = isObject(id.assigner) ? rd.text(id.assigner.display, [...ip, 'assigner', 'display']) : undefined;
      if (council !== undefined) {
        into.council = council;
        rd.from('/doctor/council', [...ip, 'assigner', 'display']);
      } else if (id.assigner !== undefined)
        rd.warn([...ip, 'assigner'], 'not-mapped', 'the clinical input keeps the council by name (a Reference with a display); this assigner has no display and is left out');
    } else rd.warn(ip, 'not-mapped', 'this Practitioner identifier is neither a medical licence (v2-0203 MD) nor an HPR id (HPID, HPIN); it is left out');
  });
  readQualifications(rd, r, p, into);
  reportRest(rd, r, p, ['identifier', 'name', 'active', 'qualification'], 'Practitioner');
}

function readOrganization(rd: Reader, item: Item, into: Partial<HospitalInput>): void {
  const { r, p } = take(rd, item, ['identifier', 'telecom']);
  const name = rd.text(r.name, [...p, 'name']);
  if (name !== undefined) {
    into.name = name;
    rd.from('/hospital/name', [...p, 'name']);
  }
  eachIdentifier(rd, r, p, (id, value, ip) => {
    if ((typeIs(id, IDENTIFIER_TYPES.hfr) || systemIn(id, KNOWN_IDENTIFIER_SYSTEMS.hfr)) && into.id === undefined) {
      into.id = value;
      rd.from('/hospital/id', [...ip, 'value']);
    } else rd.warn(ip, 'not-mapped', 'this Organization identifier is not an HFR facility id (type PRN or an HFR system); it is left out');
  });
  eachObject(r, 'telecom', p, (t, tp) => {
    const value = rd.text(t.value, [...tp, 'value']);
    if (t.system === 'phone' && value !== undefined && into.phone === undefined) {
      into.phone = value;
      rd.from('/hospital/phone', [...tp, 'value']);
    } else if (t.system === 'email' && value !== undefined && into.email === undefined) {
      into.email = value;
      rd.from('/hospital/email', [...tp, 'value']);
    } else rd.warn(tp, 'not-mapped', 'the clinical input holds one phone and one email for the hospital; this contact is left out');
  });
  readAddress(rd, r, p, into, '/hospital');
  reportRest(rd, r, p, ['identifier', 'name', 'telecom', 'active', 'address'], 'Organization');
}

function readEncounter(rd: Reader, item: Item, into: Partial<VisitInput>, doctor: Item | undefined, clinical: ClinicalDraft, discharge: boolean): void {
  const { r, p } = take(rd, item, ['identifier']);
  // An inpatient stay (or the Encounter of a discharge summary): its period is the admission and the discharge, its reason the reason for admission (from-fhir-stay.ts).
  const inpatient = isInpatient(r) || discharge;
  if (inpatient) readStayEncounter(rd, r, p, clinical);
  const ids = Array.isArray(r.identifier) ? r.identifier : [];
  const first = ids.findIndex((id) => isObject(id) && typeof id.value === 'string' && id.value.trim() !== '');
  if (first >= 0) {
    into.id = ((ids[first] as Json).value as string).trim();
    rd.from('/visit/id', [...p, 'identifier', first, 'value']);
    ids.forEach((_, i) => i !== first && rd.warn([...p, 'identifier', i], 'not-mapped', 'the visit has one id in the clinical input; this identifier is left out'));
  } else if (typeof r.id === 'string') {
    into.id = r.id;
    rd.from('/visit/id', [...p, 'id']);
  }
  const start = isObject(r.period) && !inpatient ? rd.text(r.period.start, [...p, 'period', 'start']) : undefined;
  if (start !== undefined) {
    into.at = start;
    rd.from('/visit/at', [...p, 'period', 'start']);
  }
  if (isObject(r.period) && r.period.end !== undefined && !inpatient)
    rd.warn([...p, 'period', 'end'], 'not-mapped', 'the clinical input records when a visit happened, not when it ended; period.end is left out');
  if (isObject(r.period))
    for (const k of Object.keys(r.period))
      if (k !== 'start' && k !== 'end') rd.warn([...p, 'period', k], 'not-mapped', `period.${safeElementName(k)} has no place in the clinical input; it is left out`);
  // The class: an outpatient visit (AMB) is what a clinical input records; any other class is reported.
  if (r.class !== undefined && !inpatient && !(isObject(r.class) && r.class.system === ENCOUNTER_CLASS_AMBULATORY.system && r.class.code === ENCOUNTER_CLASS_AMBULATORY.code))
    rd.warn([...p, 'class'], 'not-mapped', 'the clinical input records an outpatient visit; this Encounter class (not ambulatory, AMB) is left out');
  else if (r.class !== undefined && inpatient && !isInpatient(r))
    rd.warn([...p, 'class'], 'not-mapped', 'the clinical input records a discharge summary as an inpatient stay; this Encounter class (not inpatient, IMP) is left out');
  // Participants: the doctor of the clinical input, with no role or period, is bookkeeping; anything else is reported.
  checkList(rd, r, 'participant', p);
  if (Array.isArray(r.participant))
    r.participant.forEach((x, i) => {
      const pp = [...p, 'participant', i];
      if (!isObject(x)) return;
      const who = rd.resolve(x.individual, item);
      if (doctor === undefined || who !== doctor) return rd.warn(pp, 'not-mapped', 'the clinical input has one doctor; this participant of the visit is left out');
      for (const k of Object.keys(x))
        if (k !== 'individual')
          rd.warn([...pp, k], 'not-mapped', `participant.${elementName('Encounter', k)} (the doctor's role or time in the visit) has no place in the clinical input; it is left out`);
    });
  reportRest(rd, r, p, ['identifier', 'status', 'class', 'subject', 'participant', 'period', 'serviceProvider', ...(inpatient ? ['reasonCode'] : [])], 'Encounter');
}

function readCondition(rd: Reader, item: Item, at: string): DiagnosisInput | undefined {
  const { r, p } = take(rd, item, []);
  const ver = codings(r.verificationStatus).find((c) => c.system === SYSTEMS.conditionVerificationStatus);
  if (ver?.code === 'entered-in-error') {
    rd.warn(p, 'entered-in-error', 'this Condition was entered in error; it is left out');
    return undefined;
  }
  const name = conceptText(rd, r.code, [...p, 'code']);
  if (name === undefined) {
    rd.warn([...p, 'code'], 'not-mapped', 'this Condition has no text or display to name the diagnosis; it is left out');
    return undefined;
  }
  const d: Mutable<DiagnosisInput> = { diagnosisName: name };
  rd.from(`${at}/diagnosisName`, [...p, 'code']);
  const all = codings(r.code);
  all.forEach((c, i) => {
    const cp = [...p, 'code', 'coding', i];
    const display = typeof c.display === 'string' && c.display.trim() !== '' ? c.display.trim() : undefined;
    if (c.system === SYSTEMS.icd10 && typeof c.code === 'string' && d.icdCode === undefined) {
      d.icdCode = c.code.trim();
      rd.from(`${at}/icdCode`, [...cp, 'code']);
      if (display !== undefined) {
        d.icdTitle = display;
        rd.from(`${at}/icdTitle`, [...cp, 'display']);
      }
    } else if (c.system === SYSTEMS.snomed && typeof c.code === 'string' && display !== undefined && d.snomed === undefined) {
      d.snomed = { code: c.code.trim(), display };
      rd.from(`${at}/snomed`, cp);
    } else
      rd.warn(
        cp,
        'not-mapped',
        'the clinical input carries one ICD-10 coding (icdCode, icdTitle) and one SNOMED CT coding with its display (snomed) per diagnosis; this coding is left out, the diagnosis keeps its name',
      );
  });
  // An ICD-11 code, or an ICD-10 code whose title was not known, is kept in code.text: "name (ICD-11 CA40.0)".
  const inText = d.icdCode === undefined ? codeFromText(name) : undefined;
  if (inText !== undefined) {
    d.diagnosisName = inText.name;
    d.icdCode = inText.code;
    rd.from(`${at}/icdCode`, [...p, 'code', 'text']);
  }
  if (r.verificationStatus !== undefined) {
    if (ver !== undefined && typeof ver.code === 'string' && Object.hasOwn(VERIFICATION_STATUSES, ver.code)) {
      d.status = ver.code;
      rd.from(`${at}/status`, [...p, 'verificationStatus']);
    } else rd.warn([...p, 'verificationStatus'], 'not-mapped', 'verificationStatus has no condition-ver-status code; it is left out');
  }
  const category = Array.isArray(r.category) ? r.category : [];
  category.forEach((cat, i) => {
    const plain = codings(cat).every((c) => c.system === 'http://terminology.hl7.org/CodeSystem/condition-category' && (c.code === 'encounter-diagnosis' || c.code === 'problem-list-item'));
    if (!plain || codings(cat).length === 0) rd.warn([...p, 'category', i], 'not-mapped', 'this Condition category has no place in the clinical input; it is left out');
  });
  reportRest(rd, r, p, ['identifier', 'code', 'verificationStatus', 'category', 'subject', 'encounter', 'recordedDate', 'recorder', 'asserter'], 'Condition');
  return d;
}

function readDosage(rd: Reader, d: Json, path: Path, out: { dosage?: string; frequency?: string; duration?: string; instructions?: string; route?: string }, at: string): void {
  const timing = isObject(d.timing) ? d.timing : undefined;
  const repeat = timing !== undefined && isObject(timing.repeat) ? timing.repeat : undefined;
  const tp = [...path, 'timing'];
  // Frequency: the timing's own text first (abha-link writes it), else the structure in words.
  let frequency = timing !== undefined ? conceptText(rd, timing.code, [...tp, 'code']) : undefined;
  if (frequency !== undefined) rd.from(`${at}/frequency`, [...tp, 'code']);
  const asNeeded = d.asNeededBoolean === true;
  if (repeat !== undefined && frequency === undefined) {
    const f = frequencyFromRepeat(repeat as Parameters<typeof frequencyFromRepeat>[0], asNeeded);
    if (f.text !== undefined) {
      frequency = f.text;
      rd.from(`${at}/frequency`, [...tp, 'repeat']);
    }
    for (const k of f.unused) rd.warn([...tp, 'repeat', k], 'not-mapped', `timing.repeat.${safeElementName(k)} cannot be written as a frequency; it is left out (Dosage.text, when present, is kept)`);
  } else if (repeat !== undefined) {
    for (const k of Object.keys(repeat))
      if (!['frequency', 'period', 'periodUnit', 'boundsDuration', 'count', 'when', 'dayOfWeek'].includes(k))
        rd.warn([...tp, 'repeat', k], 'not-mapped', `timing.repeat.${safeElementName(k)} has no place in the clinical input; it is left out`);
  } else if (asNeeded && frequency === undefined) frequency = 'When required (SOS)';
  if (timing !== undefined) {
    if (Array.isArray(timing.event)) rd.warn([...tp, 'event'], 'not-mapped', 'timing.event (exact dates) has no place in the clinical input; it is left out');
    if (timing.code === undefined && repeat === undefined && timing.event === undefined) rd.warn(tp, 'not-mapped', 'this timing says nothing the clinical input can hold; it is left out');
  }
  if (frequency !== undefined) out.frequency = frequency;
  // Duration: bounds of the repeat.
  if (repeat !== undefined && repeat.boundsDuration !== undefined) {
    const t = isObject(repeat.boundsDuration) ? durationText(repeat.boundsDuration) : undefined;
    if (t === undefined) rd.warn([...tp, 'repeat', 'boundsDuration'], 'not-mapped', 'boundsDuration is not a number of days, weeks, months or years; it is left out');
    // "Twice a day (BD), for 5 days": the frequency already says it.
    else if (frequency !== undefined && durationInFrequency(frequency) === t) rd.from(`${at}/frequency`, [...tp, 'repeat', 'boundsDuration']);
    else {
      out.duration = t;
      rd.from(`${at}/duration`, [...tp, 'repeat', 'boundsDuration']);
    }
  }
  // Dose: the dose quantity, else abha-link's own "dose; frequency; for duration" text, else the whole text.
  const dr = Array.isArray(d.doseAndRate) ? d.doseAndRate : [];
  const first = isObject(dr[0]) ? dr[0] : undefined;
  const q = first !== undefined && isObject(first.doseQuantity) ? first.doseQuantity : undefined;
  const range = first !== undefined && isObject(first.doseRange) ? first.doseRange : undefined;
  const qty = (x: Json): string | undefined =>
    typeof x.value === 'number' && Number.isFinite(x.value) ? `${x.value}${typeof x.unit === 'string' ? ` ${x.unit}` : typeof x.code === 'string' ? ` ${x.code}` : ''}` : undefined;
  if (q !== undefined && qty(q) !== undefined) {
    out.dosage = qty(q) as string;
    rd.from(`${at}/dosage`, [...path, 'doseAndRate', 0, 'doseQuantity']);
  } else if (range !== undefined && isObject(range.low) && isObject(range.high) && qty(range.low) !== undefined && qty(range.high) !== undefined) {
    out.dosage = `${qty(range.low) as string} to ${qty(range.high) as string}`;
    rd.from(`${at}/dosage`, [...path, 'doseAndRate', 0, 'doseRange']);
  } else if (first !== undefined) rd.warn([...path, 'doseAndRate', 0], 'not-mapped', 'this dose has no numeric quantity or range; it is left out (Dosage.text, when present, is kept)');
  dr.slice(1).forEach((_, i) => rd.warn([...path, 'doseAndRate', i + 1], 'not-mapped', 'only the first dose of a dosage has a place in the clinical input; this one is left out'));
  if (first !== undefined)
    for (const k of Object.keys(first))
      if (k !== 'doseQuantity' && k !== 'doseRange') rd.warn([...path, 'doseAndRate', 0, k], 'not-mapped', `doseAndRate.${safeElementName(k)} has no place in the clinical input; it is left out`);
  const rawText = rd.text(d.text, [...path, 'text']);
  const text = rawText === NO_DOSAGE_TEXT ? undefined : rawText;
  if (text !== undefined) {
    const fromSentence = doseFromSentence(text, out.frequency, out.duration);
    const ours =
      fromSentence !== undefined || text === out.frequency || text === `for ${out.duration ?? ''}` || (out.frequency !== undefined && text === `${out.frequency}; for ${out.duration ?? ''}`);
    if (out.dosage === undefined && fromSentence !== undefined) {
      out.dosage = fromSentence;
      rd.from(`${at}/dosage`, [...path, 'text']);
    } else if (!ours && text !== out.dosage) {
      // A free-text instruction (the doctor's SIG): keep it whole.
      if (out.dosage === undefined) {
        out.dosage = text;
        rd.from(`${at}/dosage`, [...path, 'text']);
      } else {
        out.instructions = out.instructions === undefined ? text : `${text}; ${out.instructions}`;
        rd.from(`${at}/instructions`, [...path, 'text']);
      }
    }
  }
  // Instructions: patient instruction, additional instructions, route and method in words.
  const words: string[] = [];
  const pi = rd.text(d.patientInstruction, [...path, 'patientInstruction']);
  if (pi !== undefined) words.push(pi);
  const extra: Array<[unknown, Path]> = [
    ...(Array.isArray(d.additionalInstruction) ? d.additionalInstruction.map((x, i): [unknown, Path] => [x, [...path, 'additionalInstruction', i]]) : []),
    [d.method, [...path, 'method']],
    [d.site, [...path, 'site']],
    [d.asNeededCodeableConcept, [...path, 'asNeededCodeableConcept']],
  ];
  for (const [cc, cp] of extra) {
    if (cc === undefined) continue;
    const w = conceptText(rd, cc, cp);
    if (w === undefined) rd.warn(cp, 'not-mapped', `${safeElementName(last(cp))} has no text or display; it is left out`);
    else words.push(last(cp) === 'asNeededCodeableConcept' ? `when required for ${w}` : w);
  }
  // Route: its words (text, else a coding's display) are the medication's route.
  if (d.route !== undefined) {
    const route = conceptText(rd, d.route, [...path, 'route']);
    if (route === undefined) rd.warn([...path, 'route'], 'not-mapped', 'route has no text or display; it is left out');
    else {
      out.route = route;
      rd.from(`${at}/route`, [...path, 'route']);
      codings(d.route).forEach((_, j) => rd.warn([...path, 'route', 'coding', j], 'not-mapped', 'the clinical input keeps the route in words; this coding is left out, the route keeps its words'));
    }
  }
  if (words.length > 0) {
    out.instructions = out.instructions === undefined ? words.join('; ') : `${out.instructions}; ${words.join('; ')}`;
    if (!rd.origin.has(`${at}/instructions`)) rd.from(`${at}/instructions`, path);
  }
  for (const k of Object.keys(d))
    if (!['text', 'timing', 'asNeededBoolean', 'asNeededCodeableConcept', 'doseAndRate', 'patientInstruction', 'additionalInstruction', 'route', 'method', 'site', 'sequence'].includes(k))
      rd.warn([...path, k], 'not-mapped', `dosageInstruction.${safeElementName(k)} has no place in the clinical input; it is left out`);
}

function readMedicationRequest(rd: Reader, item: Item, at: string, conditions: ReadonlySet<Item>): MedicationInput | undefined {
  const { r, p } = take(rd, item, []);
  if (r.doNotPerform === true) {
    rd.warn([...p, 'doNotPerform'], 'do-not-perform', 'this MedicationRequest says the medication must NOT be given; it is not a prescription and is left out');
    return undefined;
  }
  if (typeof r.status === 'string' && ['cancelled', 'entered-in-error', 'stopped'].includes(r.status)) {
    rd.warn([...p, 'status'], 'inactive-request', 'this MedicationRequest was cancelled, stopped or entered in error; it is left out');
    return undefined;
  }
  if (r.status === 'draft') {
    rd.warn([...p, 'status'], 'draft-request', 'this MedicationRequest is a draft, not yet a prescription; it is left out');
    return undefined;
  }
  if (r.intent !== undefined && !(typeof r.intent === 'string' && ORDER_INTENTS.includes(r.intent))) {
    rd.warn([...p, 'intent'], 'not-an-order', 'this MedicationRequest is not an order (its intent is a proposal, plan, option or another kind of request); it is not a prescription and is left out');
    return undefined;
  }
  if (r.authoredOn !== undefined) rd.requestDates.push({ path: [...p, 'authoredOn'], value: r.authoredOn, what: 'MedicationRequest' });
  let name: string | undefined;
  let fromContained = false;
  if (r.medicationCodeableConcept !== undefined) {
    name = conceptText(rd, r.medicationCodeableConcept, [...p, 'medicationCodeableConcept']);
    if (name !== undefined) rd.from(`${at}/drugName`, [...p, 'medicationCodeableConcept']);
    codings(r.medicationCodeableConcept).forEach((_, i) =>
      rd.warn([...p, 'medicationCodeableConcept', 'coding', i], 'not-mapped', 'the clinical input names medicines in words; this coding is left out, the medicine keeps its name'),
    );
    if (r.medicationReference !== undefined)
      rd.warn([...p, 'medicationReference'], 'not-mapped', 'a MedicationRequest names its medicine once (medication[x]); medicationCodeableConcept is read, this reference is left out');
  } else if (r.medicationReference !== undefined) {
    const med = rd.resolve(r.medicationReference, item);
    if (med !== undefined && med.resourceType === 'Medication') {
      med.used = true;
      fromContained = isObject(r.medicationReference) && typeof r.medicationReference.reference === 'string' && r.medicationReference.reference.startsWith('#');
      name = conceptText(rd, med.resource.code, [...med.path, 'code']);
      if (name !== undefined) rd.from(`${at}/drugName`, [...med.path, 'code']);
      reportRest(rd, med.resource, med.path, ['code'], 'Medication');
    } else if (isObject(r.medicationReference) && typeof r.medicationReference.display === 'string') {
      name = r.medicationReference.display.trim() || undefined;
      rd.from(`${at}/drugName`, [...p, 'medicationReference', 'display']);
    }
  }
  if (name === undefined) {
    rd.warn(p, 'not-mapped', 'this MedicationRequest does not name its medicine (no text, display or Medication resource); it is left out');
    return undefined;
  }
  const out: { drugName: string; dosage?: string; frequency?: string; duration?: string; instructions?: string; route?: string } & Pick<Mutable<MedicationInput>, 'genericName' | 'strength' | 'form'> =
    { drugName: name };
  readMedicationNotes(rd, r, p, out, at);
  checkList(rd, r, 'dosageInstruction', p);
  const dosages = Array.isArray(r.dosageInstruction) ? r.dosageInstruction : [];
  if (isObject(dosages[0])) readDosage(rd, dosages[0], [...p, 'dosageInstruction', 0], out, at);
  dosages.slice(1).forEach((_, i) => rd.warn([...p, 'dosageInstruction', i + 1], 'not-mapped', 'a medication has one dosage in the clinical input; this further dosage instruction is left out'));
  if (Array.isArray(r.reasonReference))
    r.reasonReference.forEach((ref, i) => {
      const t = rd.resolve(ref, item);
      if (t === undefined || !conditions.has(t)) rd.warn([...p, 'reasonReference', i], 'not-mapped', 'this reason does not point at a Condition of the input; it is left out');
    });
  if (Array.isArray(r.reasonCode))
    r.reasonCode.forEach((_, i) => rd.warn([...p, 'reasonCode', i], 'not-mapped', 'a coded reason has no place next to the medication; add it as a Condition to keep it as a diagnosis'));
  reportRest(
    rd,
    r,
    p,
    [
      'identifier',
      'status',
      'intent',
      'subject',
      'encounter',
      'authoredOn',
      'requester',
      'recorder',
      'medicationCodeableConcept',
      'medicationReference',
      'dosageInstruction',
      'reasonReference',
      'reasonCode',
      'groupIdentifier',
      'doNotPerform',
      'note',
      ...(fromContained && Array.isArray(r.contained) && r.contained.length === 1 ? ['contained'] : []),
    ],
    'MedicationRequest',
  );
  return out;
}

function readServiceRequest(rd: Reader, item: Item, at: string): LabInvestigation | undefined {
  const { r, p } = take(rd, item, []);
  if (r.doNotPerform === true) {
    rd.warn([...p, 'doNotPerform'], 'do-not-perform', 'this ServiceRequest says the test must NOT be done; it is left out');
    return undefined;
  }
  if (typeof r.status === 'string' && ['revoked', 'entered-in-error'].includes(r.status)) {
    rd.warn([...p, 'status'], 'inactive-request', 'this ServiceRequest was revoked or entered in error; it is left out');
    return undefined;
  }
  if (r.status === 'draft') {
    rd.warn([...p, 'status'], 'draft-request', 'this ServiceRequest is a draft, not yet an order; it is left out');
    return undefined;
  }
  if (r.intent !== undefined && !(typeof r.intent === 'string' && ORDER_INTENTS.includes(r.intent)))
    rd.warn(
      [...p, 'intent'],
      'not-mapped',
      'this ServiceRequest is not an order (its intent is a proposal, plan or another kind of request); the clinical input lists it as a lab investigation, its intent is left out',
    );
  if (r.authoredOn !== undefined) rd.requestDates.push({ path: [...p, 'authoredOn'], value: r.authoredOn, what: 'ServiceRequest' });
  checkList(rd, r, 'category', p);
  if (Array.isArray(r.category))
    r.category.forEach((cat, i) => {
      const lab = codings(cat).length > 0 && codings(cat).every((c) => c.system === SYSTEMS.snomed && c.code === LABORATORY_PROCEDURE);
      if (!lab) rd.warn([...p, 'category', i], 'not-mapped', 'the clinical input lists lab investigations; this category (not a laboratory procedure) is left out');
    });
  const name = conceptText(rd, r.code, [...p, 'code']);
  if (name === undefined) {
    rd.warn(p, 'not-mapped', 'this ServiceRequest does not name its test (no code text or display); it is left out');
    return undefined;
  }
  rd.from(`${at}/testName`, [...p, 'code']);
  codings(r.code).forEach((_, i) => rd.warn([...p, 'code', 'coding', i], 'not-mapped', 'the clinical input names tests in words; this coding is left out, the test keeps its name'));
  const words: string[] = [];
  const pi = rd.text(r.patientInstruction, [...p, 'patientInstruction']);
  if (pi !== undefined) words.push(pi);
  if (Array.isArray(r.note)) r.note.forEach((n, i) => isObject(n) && rd.text(n.text, [...p, 'note', i, 'text']) !== undefined && words.push((n.text as string).trim()));
  const out: { testName: string; instructions?: string } = { testName: name };
  if (words.length > 0) {
    out.instructions = words.join('; ');
    rd.from(`${at}/instructions`, [...p, pi !== undefined ? 'patientInstruction' : 'note']);
  }
  reportRest(rd, r, p, ['identifier', 'status', 'intent', 'category', 'code', 'subject', 'encounter', 'authoredOn', 'requester', 'patientInstruction', 'note', 'doNotPerform'], 'ServiceRequest');
  return out;
}

function readDocumentReference(rd: Reader, item: Item, encounter: Item | undefined): string | undefined {
  const { r, p } = take(rd, item, []);
  if (r.status === 'entered-in-error' || r.status === 'superseded') {
    rd.warn([...p, 'status'], r.status, `this DocumentReference ${r.status === 'superseded' ? 'was replaced by another document (superseded)' : 'was entered in error'}; it is left out`);
    return undefined;
  }
  checkList(rd, r, 'content', p);
  let url: string | undefined;
  eachObject(r, 'content', p, (c, cp) => {
    for (const k of Object.keys(c)) if (k !== 'attachment') rd.warn([...cp, k], 'not-mapped', leftOut('content', k, ['format', 'id']));
    const a = isObject(c.attachment) ? c.attachment : undefined;
    const ap = [...cp, 'attachment'];
    if (a === undefined) return;
    const u = rd.text(a.url, [...ap, 'url']);
    if (u !== undefined && url === undefined) {
      url = u;
      rd.from('/documentUrl', [...ap, 'url']);
    } else if (u !== undefined) rd.warn([...ap, 'url'], 'not-mapped', 'the clinical input holds one documentUrl; this further document is left out');
    else if (a.data !== undefined) rd.warn([...ap, 'data'], 'not-mapped', 'the clinical input carries a document by URL (documentUrl); these embedded bytes have no URL and are left out');
    // The URL names the document; its bytes, size and hash beside it are the same document. Anything else about it is reported.
    for (const k of Object.keys(a))
      if (!['url', 'data', 'size', 'hash'].includes(k))
        rd.warn([...ap, k], 'not-mapped', leftOut('attachment', k, ATTACHMENT_ELEMENTS, "has no place in the clinical input (it holds the document's URL only)"));
  });
  if (typeof r.description === 'string') rd.warn([...p, 'description'], 'not-mapped', 'DocumentReference.description has no place in the clinical input; it is left out');
  // The context: the visit's own Encounter is bookkeeping; the rest of it is reported.
  if (isObject(r.context))
    for (const k of Object.keys(r.context)) {
      const refs = r.context[k];
      const ownVisit = k === 'encounter' && Array.isArray(refs) && refs.length > 0 && encounter !== undefined && refs.every((x) => rd.resolve(x, item) === encounter);
      if (!ownVisit)
        rd.warn(
          [...p, 'context', k],
          'not-mapped',
          `DocumentReference.context.${k === 'encounter' ? 'encounter (another visit)' : '(this element)'} has no place in the clinical input; it is left out`,
        );
    }
  else if (r.context !== undefined) rd.warn([...p, 'context'], 'type', 'context must be an object; it is left out');
  reportRest(rd, r, p, ['identifier', 'masterIdentifier', 'status', 'subject', 'author', 'custodian', 'content', 'context', 'description'], 'DocumentReference');
  return url;
}

/** Moves the mapped issue path to the FHIR element the clinical-input field came from. */
function fhirPathOf(path: string, origin: ReadonlyMap<string, string>): string {
  let p = path;
  for (;;) {
    const hit = origin.get(p);
    if (hit !== undefined) return hit;
    const cut = p.lastIndexOf('/');
    if (cut <= 0) return origin.get(p) ?? '';
    p = p.slice(0, cut);
  }
}

/**
 * Builds a clinical input (see `buildLinkRequest`) from FHIR R4 resources an
 * EMR already has: a Bundle (document, collection, searchset…) or a plain
 * array of resources.
 *
 * Patient (ABHA address and number, name, gender, birth date, mobile,
 * address), Practitioner (licence MD and its council, HPR id,
 * qualifications), Organization (HFR id, name, phone, email, address),
 * Encounter (visit id and time), Condition (ICD-10 coding →
 * `icdCode`, verificationStatus → `status`), MedicationRequest (timing, dose
 * and bounds → `frequency`, `dosage`, `duration`; patientInstruction and
 * additionalInstruction → `instructions`, route → `route`, the notes
 * abha-link writes → `genericName`, `strength`, `form`), ServiceRequest (→ lab
 * investigations) and DocumentReference (→ `documentUrl`). A Composition
 * gives the hiType and text-only Advice / Follow-up sections.
 *
 * Every element that has no place in the clinical input is reported as a
 * warning with its FHIR path (such as
 * `/entry/3/resource/dosageInstruction/0/timing/repeat/timeOfDay`); codes
 * other than ICD-10 are never turned into `icdCode`. `defaults` fill what
 * the resources do not say (an ABHA address, say). Never throws.
 *
 * @example
 * const r = fromFhir(emrBundle, { defaults: { patient: { abhaAddress: 'asha.verma@sbx' } } })
 * if (r.success) buildLinkRequest(r.value)
 * for (const w of r.success ? r.warnings : r.issues) console.warn(w.path, w.message)
 * //=> /entry/1/resource/maritalStatus Patient.maritalStatus has no place in the clinical input; it is left out
 */
export function fromFhir(input: Bundle | readonly FhirResource[], options: FromFhirOptions = {}): FromFhirResult {
  const rd = new Reader();
  try {
    return read(rd, input as unknown, options.defaults ?? {});
  } catch {
    return { success: false, issues: [...rd.issues, { path: '', code: 'unreadable', message: 'the input could not be read as JSON data', severity: 'error' }] };
  }
}

/** One resource of the input and where it stands. */
interface Located {
  readonly value: unknown;
  readonly path: Path;
  readonly fullUrl?: string;
}

/** The resources that say who and where: the document's Composition, its Encounter, Patient, Practitioner and Organization. */
interface Parties {
  readonly composition: Item | undefined;
  readonly encounter: Item | undefined;
  readonly patient: Item | undefined;
  readonly practitioner: Item | undefined;
  readonly organization: Item | undefined;
}

/** What the reading has found so far, before defaults fill the gaps. */
interface Draft {
  readonly patient: Partial<PatientInput>;
  readonly doctor: Partial<DoctorInput>;
  readonly hospital: Partial<HospitalInput>;
  readonly visit: Partial<VisitInput>;
  readonly diagnosis: Diagnosis[];
  readonly medications: MedicationInput[];
  readonly labs: LabInvestigation[];
  documentUrl?: string;
  advice?: string;
  hiType?: string;
  /** The inpatient stay, the immunisations and a care plan's follow-up (from-fhir-stay.ts). */
  readonly clinical: ClinicalDraft;
  /** WellnessRecord and Invoice content (from-fhir-records.ts). */
  observations?: ObservationsInput;
  invoice?: InvoiceInput;
}

function read(rd: Reader, input: unknown, defaults: FromFhirDefaults): FromFhirResult {
  const list = locateResources(rd, input);
  if (!Array.isArray(list)) return list;
  indexResources(rd, list);
  const parties = pickParties(rd);
  const draft: Draft = { patient: {}, doctor: {}, hospital: {}, visit: {}, diagnosis: [], medications: [], labs: [], clinical: { stay: undefined, immunizations: [] } };
  readParties(rd, parties, draft);
  readClinicalContent(rd, parties, draft);
  if (parties.composition !== undefined) readComposition(rd, parties.composition, draft);
  settleStay(draft.clinical, draft.visit);
  // Observations after the Composition and the stay: a measurement at the visit time has no time of its own, and a discharge summary's visit time is known only now.
  readRecordContent(rd, draft);
  if ((defaults.hiType ?? draft.hiType) !== 'WellnessRecord') measuresIntoPatient(rd, draft);
  checkRequestDates(rd, draft.visit.at ?? defaults.visit?.at);
  reportUnread(rd);
  const out = clinicalInputOf(draft, defaults);
  const missing = missingFacts(parties, out, defaults);
  if (missing.length > 0) return { success: false, issues: [...rd.issues, ...missing] };
  return checkAsBuilders(rd, out);
}

/** Step 1: the resources and where they are, or why the input is not FHIR at all. */
function locateResources(rd: Reader, input: unknown): Located[] | FromFhirResult {
  let list: Located[];
  if (Array.isArray(input)) list = input.map((value, i) => ({ value, path: [i] }));
  else if (isObject(input) && input.resourceType === 'Bundle') {
    const entries = Array.isArray(input.entry) ? input.entry : [];
    list = entries.map((en, i) => {
      const fullUrl = isObject(en) && typeof en.fullUrl === 'string' ? en.fullUrl : undefined;
      return { value: isObject(en) ? en.resource : undefined, path: ['entry', i, 'resource'], ...(fullUrl !== undefined ? { fullUrl } : {}) };
    });
    if (input.entry !== undefined && !Array.isArray(input.entry)) rd.error(['entry'], 'type', 'entry must be an array of bundle entries');
  } else if (isObject(input) && typeof input.resourceType === 'string') list = [{ value: input, path: [] }];
  else return { success: false, issues: [{ path: '', code: 'not-fhir', message: 'the input must be a FHIR Bundle, a FHIR resource, or an array of FHIR resources', severity: 'error' }] };
  if (list.length > MAX_RESOURCES)
    return { success: false, issues: [{ path: '', code: 'too-many-resources', message: `the input has more than ${MAX_RESOURCES} resources; split it by visit`, severity: 'error' }] };
  return list;
}

function indexResources(rd: Reader, list: readonly Located[]): void {
  for (const { value, path, fullUrl } of list) {
    if (!isObject(value) || typeof value.resourceType !== 'string') {
      rd.warn(path, 'not-a-resource', 'this is not a FHIR resource (no resourceType); it is left out');
      continue;
    }
    rd.index({ resourceType: value.resourceType, resource: value, path, used: false }, fullUrl);
  }
}

/** Step 2: the document's Composition, when there is one, and the resources it (or the first of each type) points at. */
function pickParties(rd: Reader): Parties {
  const compositions = rd.ofType('Composition');
  const comp = compositions[0];
  compositions.slice(1).forEach((c) => rd.warn(c.path, 'not-mapped', 'a clinical input is one visit record; only the first Composition is read, this one is left out'));
  const pick = (type: string, ...refs: unknown[]): Item | undefined => {
    for (const ref of refs) {
      const t = rd.resolve(ref, comp);
      if (t !== undefined && t.resourceType === type) return t;
    }
    return rd.ofType(type)[0];
  };
  const c = comp?.resource;
  const encounter = pick('Encounter', c?.encounter);
  const requesters = rd.ofType('MedicationRequest').map((m) => m.resource.requester);
  const participants = encounter !== undefined && Array.isArray(encounter.resource.participant) ? encounter.resource.participant.map((x) => (isObject(x) ? x.individual : undefined)) : [];
  return {
    composition: comp,
    encounter,
    patient: pick('Patient', c?.subject, encounter?.resource.subject),
    practitioner: pick('Practitioner', ...(Array.isArray(c?.author) ? c.author : []), ...requesters, ...participants),
    organization: pick('Organization', c?.custodian, encounter?.resource.serviceProvider),
  };
}

function readParties(rd: Reader, parties: Parties, draft: Draft): void {
  if (parties.patient !== undefined) readPatient(rd, parties.patient, draft.patient);
  if (parties.practitioner !== undefined) readPractitioner(rd, parties.practitioner, draft.doctor);
  if (parties.organization !== undefined) readOrganization(rd, parties.organization, draft.hospital);
  const discharge = parties.composition !== undefined && hiTypeOfComposition(parties.composition.resource) === 'DischargeSummary';
  if (parties.encounter !== undefined) readEncounter(rd, parties.encounter, draft.visit, parties.practitioner, draft.clinical, discharge);
}

/** Step 3: the clinical content. */
function readClinicalContent(rd: Reader, parties: Parties, draft: Draft): void {
  const encounter = parties.encounter;
  const taken = readStayContent(rd, parties.composition, draft.clinical);
  readImmunizations(rd, draft.clinical);
  const conditionItems = rd.ofType('Condition').filter((it) => !taken.has(it));
  for (const it of conditionItems) {
    const d = readCondition(rd, it, `/diagnosis/${draft.diagnosis.length}`);
    if (d !== undefined) draft.diagnosis.push(d);
  }
  for (const it of rd.ofType('MedicationRequest')) {
    const m = readMedicationRequest(rd, it, `/medications/${draft.medications.length}`, new Set(conditionItems));
    if (m !== undefined) draft.medications.push(m);
  }
  for (const it of rd.ofType('ServiceRequest')) {
    const l = readServiceRequest(rd, it, `/labInvestigations/${draft.labs.length}`);
    if (l !== undefined) draft.labs.push(l);
  }
  for (const it of rd.ofType('DocumentReference')) {
    const u = readDocumentReference(rd, it, encounter);
    if (u !== undefined && draft.documentUrl === undefined) draft.documentUrl = u;
    else if (u !== undefined) rd.warn(it.path, 'not-mapped', 'the clinical input holds one documentUrl; this further DocumentReference is left out');
  }
}

/** Step 4: the Composition: hiType, visit time and text-only sections. */
function readComposition(rd: Reader, comp: Item, draft: Draft): void {
  comp.used = true;
  const cr = comp.resource;
  const hiType = hiTypeOfComposition(cr);
  if (hiType !== undefined) draft.hiType = hiType;
  if (draft.visit.at === undefined && typeof cr.date === 'string') {
    draft.visit.at = cr.date;
    rd.from('/visit/at', [...comp.path, 'date']);
  }
  const sections = Array.isArray(cr.section) ? cr.section : [];
  sections.forEach((s, i) => {
    if (isObject(s)) readSection(rd, comp, s, [...comp.path, 'section', i], draft);
  });
  reportRest(rd, cr, comp.path, ['identifier', 'status', 'type', 'subject', 'encounter', 'date', 'author', 'title', 'custodian', 'section', 'confidentiality'], 'Composition');
}

/** A section with entries points at resources read elsewhere; a text-only one may be the Advice or the Follow-up. */
function readSection(rd: Reader, comp: Item, s: Json, sp: Path, draft: Draft): void {
  const sectionEntries: unknown[] = Array.isArray(s.entry) ? s.entry : [];
  if (sectionEntries.length > 0) {
    sectionEntries.forEach((ref, j) => {
      const t = rd.resolve(ref, comp);
      if (t === undefined) rd.warn([...sp, 'entry', j], 'unresolved-reference', 'this section entry does not point at a resource of the input; nothing is read from it');
    });
    return;
  }
  const title = typeof s.title === 'string' ? s.title.trim().toLowerCase() : '';
  const words = isObject(s.text) && typeof s.text.div === 'string' ? narrativeText(s.text.div) : '';
  if (words === '') return;
  if (title === 'advice' && draft.advice === undefined) {
    draft.advice = words;
    rd.from('/advice', [...sp, 'text']);
  } else if ((title === 'follow-up' || title === 'follow up') && draft.visit.followUp === undefined) {
    draft.visit.followUp = words;
    rd.from('/visit/followUp', [...sp, 'text']);
  } else if (!readStayText(rd, title, words, sp, draft.clinical)) rd.warn([...sp, 'text'], 'not-mapped', 'this text-only section is neither Advice nor Follow-up; it is left out');
}

/** Requests are dated by the visit in the clinical input: a request written on another day is reported. */
function checkRequestDates(rd: Reader, visitAt: unknown): void {
  const visitDay = typeof visitAt === 'string' ? visitAt.slice(0, 10) : undefined;
  for (const d of rd.requestDates) {
    const day = typeof d.value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(d.value) ? d.value.slice(0, 10) : undefined;
    if (day === undefined || day !== visitDay) rd.warn(d.path, 'not-mapped', `the clinical input dates a ${d.what} by the visit; this authoredOn is not on the visit date and is left out`);
  }
}

/** Step 5: what was not read at all. */
function reportUnread(rd: Reader): void {
  for (const it of rd.items) {
    if (it.used) continue;
    const why =
      it.resourceType === 'Patient' || it.resourceType === 'Practitioner' || it.resourceType === 'Organization' || it.resourceType === 'Encounter'
        ? `a clinical input has one ${it.resourceType}; this further one is left out`
        : it.resourceType === 'Medication'
          ? 'no MedicationRequest of the input refers to this Medication; it is left out'
          : `${safeResourceType(it.resourceType)} has no place in the clinical input; it is left out`;
    rd.warn(it.path, 'resource-not-mapped', why);
  }
}

/** Step 6: the clinical input, with defaults where FHIR was silent. */
function clinicalInputOf(draft: Draft, defaults: FromFhirDefaults): Record<string, unknown> {
  const merged = <T extends object>(fromFhirValue: Partial<T>, dflt: Partial<T> | undefined): Partial<T> => ({ ...(dflt ?? {}), ...fromFhirValue });
  const out: Record<string, unknown> = {};
  const hipId = typeof defaults.hipId === 'string' ? defaults.hipId : undefined;
  if (hipId !== undefined) out.hipId = hipId;
  out.hospital = merged(draft.hospital, defaults.hospital);
  out.doctor = merged(draft.doctor, defaults.doctor);
  out.patient = merged(draft.patient, defaults.patient);
  out.visit = merged(draft.visit, defaults.visit);
  const finalHiType = defaults.hiType ?? draft.hiType;
  if (finalHiType !== undefined) out.hiType = finalHiType;
  if (draft.documentUrl !== undefined) out.documentUrl = draft.documentUrl;
  if (draft.diagnosis.length > 0) out.diagnosis = draft.diagnosis;
  if (draft.medications.length > 0) out.medications = draft.medications;
  if (draft.labs.length > 0) out.labInvestigations = draft.labs;
  if (draft.advice !== undefined) out.advice = draft.advice;
  const stay = draft.clinical.stay;
  if (stay !== undefined) out.inpatientStay = Object.fromEntries(Object.entries(stay).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)));
  if (draft.clinical.immunizations.length > 0) out.immunizations = draft.clinical.immunizations;
  if (draft.observations !== undefined) out.observations = draft.observations;
  if (draft.invoice !== undefined) out.invoice = draft.invoice;
  return out;
}

/** Step 7a: the facts a link request cannot do without, each reported at the FHIR element that should hold it. */
function missingFacts(parties: Parties, out: Record<string, unknown>, defaults: FromFhirDefaults): Issue[] {
  const { patient: patientItem, practitioner: practitionerItem, organization: organizationItem, encounter: encounterItem } = parties;
  const missing: Issue[] = [];
  const need = (cond: boolean, path: string, code: string, message: string): void => {
    if (cond) missing.push({ path, code, message, severity: 'error' });
  };
  need(patientItem === undefined && defaults.patient?.abhaAddress === undefined, '', 'patient-missing', 'there is no Patient resource; give one, or defaults.patient.abhaAddress');
  need(
    patientItem !== undefined && (out.patient as Partial<PatientInput>).abhaAddress === undefined,
    pointer(...(patientItem?.path ?? []), 'identifier'),
    'abha-address-missing',
    'the Patient has no ABHA address (identifier of type ABHA); add one, or give defaults.patient.abhaAddress',
  );
  need(practitionerItem === undefined && defaults.doctor?.name === undefined, '', 'practitioner-missing', 'there is no Practitioner resource; give one, or defaults.doctor');
  need(organizationItem === undefined && defaults.hospital?.name === undefined, '', 'organization-missing', 'there is no Organization resource; give one, or defaults.hospital');
  need(
    organizationItem !== undefined && (out.hospital as Partial<Hospital>).id === undefined,
    pointer(...(organizationItem?.path ?? []), 'identifier'),
    'facility-id-missing',
    'the Organization has no HFR facility id (identifier of type PRN or an HFR system); add one, or give defaults.hospital.id',
  );
  need(
    (out.visit as Partial<VisitInput>).id === undefined,
    encounterItem === undefined ? '' : pointer(...encounterItem.path, 'identifier'),
    'visit-id-missing',
    'the visit has no id: give an Encounter with an identifier, or defaults.visit.id',
  );
  need(
    (out.visit as Partial<VisitInput>).at === undefined,
    encounterItem === undefined ? '' : pointer(...encounterItem.path, 'period'),
    'visit-time-missing',
    'the visit has no time: give Encounter.period.start or Composition.date, or defaults.visit.at',
  );
  return missing;
}

/** Step 7b: check the clinical input as the builders will, with paths moved back into the FHIR input. */
function checkAsBuilders(rd: Reader, out: Record<string, unknown>): FromFhirResult {
  const value = out as unknown as ClinicalInput;
  const built = safeBuildLinkRequest(value, { lint: false });
  if (!built.success) {
    const mapped = built.issues.map((i) => {
      const at = fhirPathOf(i.path, rd.origin);
      return { ...i, path: at, message: i.path === '' ? i.message : `${i.message} (clinical input ${i.path})` };
    });
    return { success: false, issues: [...rd.issues, ...mapped] };
  }
  return { success: true, value, warnings: rd.issues };
}
