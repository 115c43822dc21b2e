/**
 * The document model: what a template sees. Built from validated data only,
 * field by field into fresh objects, so a template never reaches the
 * caller's objects or their prototypes. Every field is always present
 * (`null` when unknown), because templates run in strict mode.
 */
import { readFrequency } from '../builders/frequency.js';
import type { CareContext } from '../generated/types.js';
import type { CareContextDetails, PatientDetails } from '../resolve.js';
import { formatCalendarDate } from '../time.js';
import type { BUNDLED_TEMPLATE_NAMES } from './generated/templates.js';
import { HI_TYPE_LABELS, LABELS, MONTHS, type Labels, type Language } from './labels.js';

/**
 * Page sizes of the printed documents.
 *
 * @example
 * PAGE_SIZES //=> ['A4', 'A5']
 */
export const PAGE_SIZES = ['A4', 'A5'] as const;

/**
 * A page size: A4 (210 × 297 mm) or A5 (148 × 210 mm).
 *
 * @example
 * const size: PageSize = 'A5'
 */
export type PageSize = (typeof PAGE_SIZES)[number];

/**
 * Patient details for printing; every field optional.
 *
 * @example
 * const patient: PrintPatient = { name: 'Asha Verma', gender: 'F', birthDate: '1978-03-14' }
 */
export type PrintPatient = PatientDetails;

/**
 * One care context with everything printed around it (what {@link buildDocumentModel} takes).
 *
 * @example
 * const source: DocumentSource = { careContext, patient: { name: 'Asha Verma' }, visitId: 'OPD-1', visitDate: '2026-11-20', followUp: undefined }
 */
export interface DocumentSource {
  readonly careContext: CareContext;
  readonly patient: PrintPatient;
  readonly visitId: string | undefined;
  readonly visitDate: string | undefined;
  readonly followUp: string | undefined;
  /** What the clinical input says beyond the link request (registration particulars, generic names…); default none. */
  readonly details?: CareContextDetails;
  /** The facility's postal address, when known. */
  readonly hospitalAddress?: string | undefined;
  /** The care contexts a visit summary gathers (default: just `careContext`). */
  readonly records?: readonly CareContext[];
}

/**
 * The open part of the model: any JSON object a caller passes (`custom` render
 * option, CLI `--custom FILE`), for templates. The bundled letterhead prints
 * `custom.letterheadLines` (an array of strings) and `custom.timings` (a string) when given.
 *
 * @example
 * const custom: CustomData = { letterheadLines: ['Mon–Sat 9 am – 1 pm'], timings: 'Sunday closed' }
 */
export type CustomData = Readonly<Record<string, unknown>>;

/** One time of day of the dosing grid. */
export interface DoseSlot {
  /** `Morning`, `Afternoon`, `Evening`, `Night` in the document's language. */
  readonly name: string;
  /** The first letter (grapheme) of the name, printed above the box. */
  readonly short: string;
  /** The dose at that time (`1`, `½`, or `●` when the frequency says "when" but not "how much"); null when none is taken. */
  readonly mark: string | null;
}

/**
 * What every template receives. Field names follow the spec (`licNumber`,
 * `hpId`, `icdCode`, `hiType`); `null` means "not known". The labels are in
 * the chosen language; everything else is data, printed as given.
 *
 * @example
 * // in a template:
 * // <h1>{{heading}}</h1>{{#each medications}}<p>{{number}}. {{drugName}} {{dosage}}</p>{{/each}}
 */
export interface DocumentModel {
  readonly lang: Language;
  readonly labels: Labels;
  /** `A4` or `A5`, for `@page { size }`. */
  readonly pageSize: PageSize;
  /** `a4` or `a5`, for class names. */
  readonly pageClass: 'a4' | 'a5';
  /**
   * The template's heading in the chosen language, e.g. `Prescription`; with the prescription template (and custom
   * ones), a care context that is not a Prescription is headed by its record type (`OP Consultation`), or `Visit summary`.
   */
  readonly heading: string;
  /** The HTML `<title>`: heading and care-context reference (no patient data), the reference isolated between U+2068 and U+2069. */
  readonly title: string;
  readonly hospital: { readonly name: string; readonly id: string; readonly phone: string | null; readonly email: string | null; readonly address: string | null };
  readonly doctor: {
    readonly name: string;
    readonly licNumber: string | null;
    readonly hpId: string | null;
    readonly qualification: string | null;
    readonly specialty: string | null;
    /** The medical council that registered licNumber. */
    readonly council: string | null;
  };
  readonly patient: {
    readonly name: string | null;
    readonly age: string | null;
    readonly sex: string | null;
    /** Age and sex joined for one cell, e.g. `48 y / F`. */
    readonly ageSex: string | null;
    readonly abhaAddress: string | null;
    readonly abhaNumber: string | null;
    readonly mobile: string | null;
    readonly address: string | null;
    /** `62 kg`. */
    readonly weight: string | null;
    /** `158 cm`. */
    readonly height: string | null;
    /** From weight and height, one decimal: `24.8`. */
    readonly bmi: string | null;
    /** The vitals given, in print order, each with its label: `[{ name: 'BP', value: '130/84 mmHg' }]`. */
    readonly vitals: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  };
  readonly visit: {
    readonly id: string | null;
    /** YYYY-MM-DD. */
    readonly date: string | null;
    /** The date as printed, e.g. `20 Nov 2026` or `20 नवंबर 2026`. */
    readonly dateText: string | null;
    readonly followUp: string | null;
  };
  readonly careContext: { readonly referenceNumber: string; readonly display: string; readonly hiType: string; readonly hiTypeText: string };
  /** Every care context the document covers: the one of `careContext`, or all those of the visit in a visit summary. */
  readonly records: ReadonlyArray<{ readonly referenceNumber: string; readonly display: string; readonly hiType: string; readonly hiTypeText: string }>;
  readonly diagnoses: ReadonlyArray<{ readonly number: number; readonly name: string; readonly icdCode: string | null; readonly status: string | null }>;
  readonly medications: ReadonlyArray<{
    readonly number: number;
    /** As written (the brand, often); in capitals with the `caps` option. */
    readonly drugName: string;
    /** The generic name when given (in capitals with `caps`). */
    readonly genericName: string | null;
    /** The name printed first: the generic name when given and the drugName does not already say it, else the drugName. */
    readonly name: string;
    /** The drugName (the brand) printed after the generic name, or null when the drugName already says the generic name. */
    readonly brandName: string | null;
    /** Strength, form and route that the printed names do not already say, joined with ` · `: `500 mg · tablet · oral`. */
    readonly particulars: string | null;
    readonly strength: string | null;
    readonly form: string | null;
    readonly route: string | null;
    readonly dosage: string | null;
    readonly frequency: string | null;
    /** Morning, afternoon, evening and night, when the frequency says at which times (1-0-1, BD, HS…); null otherwise (OD, SOS, free text). */
    readonly doseGrid: readonly DoseSlot[] | null;
    readonly duration: string | null;
    readonly instructions: string | null;
  }>;
  /** The four times of day with their short marks, for a legend of the dosing grid. */
  readonly doseSlots: readonly DoseSlot[];
  /** Whether any medication has a dosing grid. */
  readonly hasDoseGrid: boolean;
  readonly labInvestigations: ReadonlyArray<{ readonly number: number; readonly testName: string; readonly instructions: string | null }>;
  readonly advice: string | null;
  readonly document: {
    /** The documentUrl as given, for printing as text. */
    readonly url: string | null;
    /** The documentUrl when it is an https URL (the only case it becomes a link or a QR code); else null. */
    readonly link: string | null;
  };
  /** Whether to print a QR code of `document.link`. */
  readonly showQrCode: boolean;
  /** What the page margins print on every page (see the styles partial): the patient's name (or the blank-name label) and the date, and the page number pattern. */
  readonly page: { readonly identity: string; readonly number: string };
  /** Whether drug names are printed in capitals. */
  readonly caps: boolean;
  /** The caller's `custom` object, as given (JSON values only); `{}` when none. */
  readonly custom: CustomData;
}

/** Options of {@link buildDocumentModel}. */
export interface ModelOptions {
  readonly template: string;
  readonly lang: Language;
  readonly pageSize: PageSize;
  readonly qrCode: boolean;
  /** Drug names in capitals. Default false. */
  readonly caps?: boolean;
  /** Passed through as `custom`. */
  readonly custom?: CustomData;
}

const str = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t;
};

/**
 * True for an absolute `https:` URL with nothing that could break out of an
 * attribute or change its meaning: no spaces or control characters.
 *
 * @example
 * isHttpsUrl('https://records.example/r/1.pdf') //=> true
 * isHttpsUrl('javascript:alert(1)')             //=> false
 * isHttpsUrl('http://records.example/r/1.pdf')  //=> false
 */
export function isHttpsUrl(value: string): boolean {
  if (!/^https:\/\/[^\s\u0000-\u001f\u007f-\u009f]+$/i.test(value)) return false;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * A YYYY-MM-DD date as printed: `20 Nov 2026`, or `20 नवंबर 2026` in Hindi.
 * Anything else is returned as given.
 *
 * @example
 * formatVisitDate('2026-11-20', 'en') //=> '20 Nov 2026'
 * formatVisitDate('2026-11-20', 'hi') //=> '20 नवंबर 2026'
 */
export function formatVisitDate(date: string, lang: Language): string {
  return formatCalendarDate(date, MONTHS[lang]);
}

/**
 * Age on the visit date from a birth date (both YYYY-MM-DD), in whole years,
 * or in months under one year; undefined when either date is missing or the
 * birth date is after the visit.
 *
 * @example
 * ageAt('1978-03-14', '2026-11-20') //=> { years: 48 }
 * ageAt('2026-03-01', '2026-11-20') //=> { months: 8 }
 */
export function ageAt(birthDate: string, visitDate: string): { years: number } | { months: number } | undefined {
  const b = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birthDate);
  const v = /^(\d{4})-(\d{2})-(\d{2})$/.exec(visitDate);
  if (b === null || v === null) return undefined;
  const [by, bm, bd] = [Number(b[1]), Number(b[2]), Number(b[3])];
  const [vy, vm, vd] = [Number(v[1]), Number(v[2]), Number(v[3])];
  let months = (vy - by) * 12 + (vm - bm);
  if (vd < bd) months--;
  if (months < 0) return undefined;
  return months >= 12 ? { years: Math.floor(months / 12) } : { months };
}

function ageText(p: PrintPatient, visitDate: string | undefined, labels: Labels): string | null {
  if (typeof p.age === 'number' && Number.isFinite(p.age) && p.age >= 0) return `${p.age} ${labels.years}`;
  const birth = str(p.birthDate);
  if (birth === null || visitDate === undefined) return null;
  const a = ageAt(birth, visitDate);
  if (a === undefined) return null;
  return 'years' in a ? `${a.years} ${labels.years}` : `${a.months} ${labels.months}`;
}

/** `table[key]` when it is the table's own entry: data such as a hiType of "constructor" must not reach Object.prototype. */
function ownValue<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/**
 * Which label heads each bundled template (a bundled template without one is a compile error); custom templates get
 * the Prescription heading unless named like a bundled one.
 */
const HEADINGS: Readonly<Record<string, keyof Labels>> = {
  prescription: 'prescription',
  'lab-order': 'labOrder',
  'visit-summary': 'visitSummary',
} satisfies Record<(typeof BUNDLED_TEMPLATE_NAMES)[number], keyof Labels>;

const SLOT_KEYS = ['morning', 'afternoon', 'evening', 'night'] as const;

/** The first grapheme of a word: `M` of Morning, `सु` of सुबह. */
function firstGrapheme(word: string, lang: string): string {
  const first = new Intl.Segmenter(lang, { granularity: 'grapheme' }).segment(word)[Symbol.iterator]().next();
  return first.done === true ? '' : first.value.segment;
}

/** Which times of day an abbreviation means, as Indian prescriptions print them (BD is 1-0-1). */
const ABBREVIATION_SLOTS: Readonly<Record<string, readonly boolean[]>> = {
  BD: [true, false, false, true],
  TDS: [true, true, false, true],
  QID: [true, true, true, true],
  HS: [false, false, false, true],
};

/** The marks of the four times of day for a frequency, or null when it does not say at which times. */
export function doseMarks(frequency: string): ReadonlyArray<string | null> | null {
  const f = readFrequency(frequency);
  if (f.kind === 'pattern') {
    const doses = f.doses.length === 3 ? [f.doses[0], f.doses[1], '0', f.doses[2]] : f.doses;
    return doses.map((d) => (d === undefined || /^0+(\.0+)?$/.test(d) ? null : d));
  }
  if (f.kind === 'abbreviation') {
    const slots = ownValue(ABBREVIATION_SLOTS, f.code);
    return slots === undefined ? null : slots.map((on) => (on ? '●' : null));
  }
  return null;
}

function patientModel(p: PrintPatient, visitDate: string | undefined, labels: Labels): DocumentModel['patient'] {
  const age = ageText(p, visitDate, labels);
  const sex = str(p.gender);
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null);
  const weight = num(p.weight);
  const height = num(p.height);
  const fmt = (n: number): string => String(Math.round(n * 10) / 10);
  const v = p.vitals ?? {};
  const vitals: Array<{ name: string; value: string }> = [];
  const bp = str(v.bloodPressure);
  if (bp !== null) vitals.push({ name: labels.bloodPressure, value: `${bp} mmHg` });
  const pulse = num(v.pulse);
  if (pulse !== null) vitals.push({ name: labels.pulse, value: `${fmt(pulse)} /min` });
  const temp = num(v.temperature);
  // Body temperatures in Celsius and Fahrenheit do not overlap: up to 50 is Celsius.
  if (temp !== null) vitals.push({ name: labels.temperature, value: `${fmt(temp)} °${temp > 50 ? 'F' : 'C'}` });
  const spo2 = num(v.spo2);
  if (spo2 !== null) vitals.push({ name: labels.spo2, value: `${fmt(spo2)}%` });
  const rr = num(v.respiratoryRate);
  if (rr !== null) vitals.push({ name: labels.respiratoryRate, value: `${fmt(rr)} /min` });
  return {
    name: str(p.name),
    age,
    sex,
    ageSex: age === null && sex === null ? null : [age, sex].filter((x) => x !== null).join(' / '),
    abhaAddress: str(p.abhaAddress),
    abhaNumber: str(p.ABHANumber),
    mobile: str(p.mobile),
    address: str(p.address),
    weight: weight === null ? null : `${fmt(weight)} kg`,
    height: height === null ? null : `${fmt(height)} cm`,
    bmi: weight === null || height === null ? null : (weight / (height / 100) ** 2).toFixed(1),
    vitals,
  };
}

function medicationsModel(records: readonly CareContext[], details: CareContextDetails | undefined, caps: boolean, slots: readonly DoseSlot[]): DocumentModel['medications'] {
  const upper = (t: string): string => (caps ? t.toLocaleUpperCase('en-IN') : t);
  const meds = records.flatMap((cc) => cc.bundleData.medications ?? []);
  return meds.map((m, i) => {
    const d = details?.medications[i] ?? {};
    const frequency = str(m.frequency);
    const marks = frequency === null ? null : doseMarks(frequency);
    const generic = str(d.genericName);
    const has = (text: string, part: string): boolean => text.toLocaleLowerCase('en-IN').includes(part.toLocaleLowerCase('en-IN'));
    const withBrand = generic !== null && !has(m.drugName, generic);
    const printed = withBrand ? `${generic} ${m.drugName}` : m.drugName;
    const particulars = [str(d.strength), str(d.form), str(d.route)].filter((x): x is string => x !== null && !has(printed, x));
    return {
      number: i + 1,
      drugName: upper(m.drugName),
      genericName: generic === null ? null : upper(generic),
      name: upper(withBrand ? generic : m.drugName),
      brandName: withBrand ? upper(m.drugName) : null,
      particulars: particulars.length === 0 ? null : particulars.join(' · '),
      strength: str(d.strength),
      form: str(d.form),
      route: str(d.route),
      dosage: str(m.dosage),
      frequency,
      doseGrid: marks === null ? null : slots.map((s, k) => ({ ...s, mark: marks[k] ?? null })),
      duration: str(m.duration),
      instructions: str(m.instructions),
    };
  });
}

/** Diagnoses of the records, the same diagnosis (name and code) once. */
function diagnosesModel(records: readonly CareContext[]): DocumentModel['diagnoses'] {
  const seen = new Set<string>();
  const out: Array<DocumentModel['diagnoses'][number]> = [];
  for (const d of records.flatMap((cc) => cc.bundleData.diagnosis ?? [])) {
    const key = `${d.diagnosisName.trim().toLowerCase()}|${(d.icdCode ?? '').trim().toUpperCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ number: out.length + 1, name: d.diagnosisName, icdCode: str(d.icdCode), status: str(d.status) });
  }
  return out;
}

/** The advice of the records, each distinct text once, in order. */
function adviceOf(records: readonly CareContext[]): string | null {
  const texts = [...new Set(records.map((cc) => str(cc.bundleData.advice)).filter((t): t is string => t !== null))];
  return texts.length === 0 ? null : texts.join('\n');
}

/**
 * Builds the model a template renders from one care context (or, for a
 * visit summary, every care context of the visit: `source.records`) and
 * what is known of the patient and visit. Pure; copies every field.
 *
 * @example
 * buildDocumentModel(source, { template: 'prescription', lang: 'en', pageSize: 'A4', qrCode: true }).heading
 * //=> 'Prescription'
 */
export function buildDocumentModel(source: DocumentSource, options: ModelOptions): DocumentModel {
  const labels = LABELS[options.lang];
  const cc = source.careContext;
  const records = source.records ?? [cc];
  const b = cc.bundleData;
  const headingKey = ownValue(HEADINGS, options.template) ?? 'prescription';
  const hiTypeNames: Readonly<Record<string, string>> = HI_TYPE_LABELS[options.lang];
  // The prescription layout holds every section; a care context that is not a Prescription is headed by its record
  // type (OP Consultation…), one abha-link does not know by the neutral "Visit summary", never "Prescription".
  const heading = headingKey === 'prescription' && cc.hiType !== 'Prescription' ? (ownValue(hiTypeNames, cc.hiType) ?? labels.visitSummary) : labels[headingKey];
  const url = str(b.documentUrl);
  const link = url !== null && isHttpsUrl(url) ? url : null;
  const recordOf = (r: CareContext): DocumentModel['careContext'] => ({
    referenceNumber: r.referenceNumber,
    display: r.display,
    hiType: r.hiType,
    hiTypeText: ownValue(hiTypeNames, r.hiType) ?? r.hiType,
  });
  const patient = patientModel(source.patient, source.visitDate, labels);
  const dateText = source.visitDate === undefined ? null : formatVisitDate(source.visitDate, options.lang);
  const doseSlots = SLOT_KEYS.map((k): DoseSlot => ({ name: labels[k], short: firstGrapheme(labels[k], options.lang), mark: null }));
  const medications = medicationsModel(records, source.details, options.caps === true, doseSlots);
  const d = source.details?.doctor ?? {};
  return {
    lang: options.lang,
    labels,
    pageSize: options.pageSize,
    pageClass: options.pageSize === 'A5' ? 'a5' : 'a4',
    heading,
    // The reference is data: first-strong isolate … pop directional isolate keep its bidi controls to itself.
    title: `${heading} · \u2068${cc.referenceNumber}\u2069`,
    hospital: { name: b.hospital.name, id: b.hospital.id, phone: str(b.hospital.phone), email: str(b.hospital.email), address: str(source.hospitalAddress) },
    doctor: { name: b.doctor.name, licNumber: str(b.doctor.licNumber), hpId: str(b.doctor.hpId), qualification: str(d.qualification), specialty: str(d.specialty), council: str(d.council) },
    patient,
    visit: { id: str(source.visitId), date: str(source.visitDate), dateText, followUp: str(source.followUp) },
    careContext: recordOf(cc),
    records: records.map(recordOf),
    diagnoses: diagnosesModel(records),
    medications,
    doseSlots,
    hasDoseGrid: medications.some((m) => m.doseGrid !== null),
    labInvestigations: records.flatMap((r) => r.bundleData.labInvestigations ?? []).map((l, i) => ({ number: i + 1, testName: l.testName, instructions: str(l.instructions) })),
    advice: adviceOf(records),
    document: { url, link },
    showQrCode: options.qrCode && link !== null,
    page: { identity: [patient.name ?? `${labels.patientNameBlank} ____________________`, dateText].filter((x) => x !== null).join(' · '), number: labels.pageOf },
    caps: options.caps === true,
    custom: options.custom ?? {},
  };
}
