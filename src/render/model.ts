/**
 * The document model: what a template sees. Built from validated data only,
 * field by field into fresh objects, so a template never reaches the
 * caller's objects or their prototypes. Every field is always present
 * (`null` when unknown), because templates run in strict mode.
 */
import { readFrequency } from '../spec/frequency.js';
import type { CareContext, CareContextInput } from '../generated/types.js';
import type { CareContextDetails, PatientDetails } from '../resolve.js';
import { CELSIUS_UP_TO } from '../spec/definition.js';
import type { BUNDLED_TEMPLATE_NAMES } from './generated/templates.js';
import type { Labels } from './labels.js';
import { frequencyShown, frequencyWords, localAge, localDate, localDose, localDuration, localForm, localInstructions, localRoute, localSex, localStatus } from './localize.js';
import { MESSAGES, type Language, type Messages } from './messages/index.js';
import { buildRecordsModel, type RecordsModel } from './records-model.js';
import { bilingual, type PrintedText } from './text.js';
import type { PageSize } from './page-sizes.js';

export { PAGE_SIZES, type PageSize } from './page-sizes.js';

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
  /** A clinical input's content of this care context as given (inpatient stay, immunisations…); absent for other inputs. */
  readonly content?: CareContextInput | undefined;
  /** The JSON Pointer of that content in the input (`''` or `/careContexts/1`; the bundleData of a link request or care context). */
  readonly contentPath?: string | undefined;
  /** What the clinical input says beyond the link request (registration particulars, generic names…); default none. */
  readonly details?: CareContextDetails;
  /** The facility's postal address, when known. */
  readonly hospitalAddress?: string | undefined;
  /** The facility's GSTIN, when known (printed on the bill). */
  readonly hospitalGstin?: string | undefined;
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
  /** `Morning`, `Afternoon`, `Evening`, `Night` in the document's language(s). */
  readonly name: PrintedText;
  /** The first letter (grapheme) of the name in each language, printed above the box. */
  readonly short: PrintedText;
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
  /** The document's language (the first one of a bilingual document): the page's `lang`. */
  readonly lang: Language;
  /** The second language of a bilingual document (printed under or after the first), else null. */
  readonly secondLang: Language | null;
  /** The labels; in a bilingual document each is a {@link BilingualText} when the two languages differ. */
  readonly labels: PrintedLabels;
  /** `A4` or `A5`, for `@page { size }`. */
  readonly pageSize: PageSize;
  /** `a4` or `a5`, for class names. */
  readonly pageClass: 'a4' | 'a5';
  /**
   * The template's heading in the chosen language, e.g. `Prescription`; with the prescription template (and custom
   * ones), a care context that is not a Prescription is headed by its record type (`OP Consultation`), or `Visit summary`.
   */
  readonly heading: PrintedText;
  /** The HTML `<title>`: heading and care-context reference (no patient data), the reference isolated between U+2068 and U+2069. */
  readonly title: string;
  readonly hospital: { readonly name: string; readonly id: string; readonly phone: string | null; readonly email: string | null; readonly address: string | null; readonly gstin: string | null };
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
    readonly age: PrintedText | null;
    /** M, F, O, U (or the words) in the document's language; anything else as given. */
    readonly sex: PrintedText | null;
    /** Age and sex joined for one cell, e.g. `48 y / F`, `48 वर्ष / महिला`. */
    readonly ageSex: PrintedText | null;
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
    readonly vitals: ReadonlyArray<{ readonly name: PrintedText; readonly value: string }>;
    /** The date of birth in the document's language(s) (`25 Sep 2026`), when given. */
    readonly birthDateText: PrintedText | null;
    /** The parent or guardian, when given: `Priya Sharma (mother)`. */
    readonly guardian: string | null;
  };
  readonly visit: {
    readonly id: string | null;
    /** YYYY-MM-DD. */
    readonly date: string | null;
    /** The date as printed, e.g. `20 Nov 2026` or `20 नवंबर 2026`. */
    readonly dateText: PrintedText | null;
    readonly followUp: string | null;
  };
  readonly careContext: { readonly referenceNumber: string; readonly display: string; readonly hiType: string; readonly hiTypeText: PrintedText };
  /** Every care context the document covers: the one of `careContext`, or all those of the visit in a visit summary. */
  readonly careContexts: ReadonlyArray<{ readonly referenceNumber: string; readonly display: string; readonly hiType: string; readonly hiTypeText: PrintedText }>;
  /** `status`: a known status (confirmed, provisional…) in the document's language, anything else as given. */
  readonly diagnoses: ReadonlyArray<{ readonly number: number; readonly name: string; readonly icdCode: string | null; readonly status: PrintedText | null }>;
  /**
   * `drugName` as written. `dosage` of a known unit (1 tablet, 5 ml), a `frequency` abha-link reads (1-0-1, BD, Q6H,
   * weekly, its own words), a `duration` it wrote (5 days), `instructions` it reads (after lunch, 30 minutes before
   * breakfast, at night…) and known forms and routes are in the document's language; anything else is printed as given.
   */
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
    /** Strength, form and route that the printed names do not already say, joined with ` · `: `500 mg · tablet · oral` (a known form and route in the document's language). */
    readonly particulars: PrintedText | null;
    readonly strength: string | null;
    readonly form: string | null;
    readonly route: string | null;
    readonly dosage: PrintedText | null;
    readonly frequency: PrintedText | null;
    /** Morning, afternoon, evening and night, when the frequency says at which times (1-0-1, BD, HS…); null otherwise (OD, SOS, free text). */
    readonly doseGrid: readonly DoseSlot[] | null;
    readonly duration: PrintedText | null;
    readonly instructions: PrintedText | null;
    /** "doctor's words", in the document's language, when `instructions` print as written in a document not only in English; null otherwise. */
    readonly instructionsAsWritten: PrintedText | null;
  }>;
  /** The four times of day with their short marks, for a legend of the dosing grid. */
  readonly doseSlots: readonly DoseSlot[];
  /** Whether any medication has a dosing grid. */
  readonly hasDoseGrid: boolean;
  readonly labInvestigations: ReadonlyArray<{ readonly number: number; readonly testName: string; readonly instructions: string | null }>;
  readonly advice: string | null;
  /**
   * Whether there is advice or a follow-up and both are short (at most 600 characters and 12 lines together), so that
   * the closing (advice, follow-up, signature, footer) prints as one piece that a page never splits; longer ones may
   * break inside it, the signature keeping with their end. A closing with neither is not one piece: it keeps with
   * what precedes it instead (a piece cannot).
   */
  readonly compactClosing: boolean;
  /**
   * Whether the closing has neither advice nor a follow-up: the signature then keeps with what precedes it, and a
   * template whose last section is a table puts its last row and the closing in one table section (`closing-group`).
   */
  readonly bareClosing: boolean;
  /**
   * Whether the closing goes inside the medicine table, with the last medicine: a bare closing, medicines, and no
   * investigations after them (prescription, visit summary, the discharge summary's medicines to take at home).
   */
  readonly closingInMedicines: boolean;
  /**
   * Whether the medicine table signs every page it reaches (prescription, visit summary): the signature and footer are
   * the table's footer, which Chromium repeats at the foot of each page of the table, and the dose legend, the
   * investigations (8 at most), the advice and the follow-up (a compact closing, or none) go with the last medicine. A
   * page with a medicine then always carries the signature, and the last page always a medicine.
   */
  readonly signEveryPage: boolean;
  /**
   * With `signEveryPage`: whether the record reference (and QR code) print beside the signature on every page, which
   * they do for one record (short enough to repeat); the references of several print once, after the last medicine.
   */
  readonly footerEveryPage: boolean;
  readonly document: {
    /** The documentUrl as given, for printing as text. */
    readonly url: string | null;
    /** The documentUrl when it is an https URL (the only case it becomes a link or a QR code); else null. */
    readonly link: string | null;
  };
  /** Whether to print a QR code of `document.link`. */
  readonly showQrCode: boolean;
  /** What the record templates print: inpatient stay, immunisations, observations, invoice (see RecordsModel). */
  readonly records: RecordsModel;
  /**
   * What the page margins print on every page (see the styles partial), in the document's language(s): the patient's
   * name (or the blank-name label), age and sex, the visit id and the date, and the page number pattern (`{page}`,
   * `{pages}`).
   */
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
  /** A second language: a bilingual document. */
  readonly secondLang?: Language | undefined;
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
 * A YYYY-MM-DD date as printed: day, month name and year in the language (Latin digits). Anything else is returned
 * as given.
 *
 * @example
 * formatVisitDate('2026-11-20', 'en') //=> '20 Nov 2026'
 * formatVisitDate('2026-11-20', 'hi') //=> '20 नवंबर 2026'
 * formatVisitDate('2026-11-20', 'ta') //=> '20 நவம்பர் 2026'
 */
export function formatVisitDate(date: string, lang: Language): string {
  return localDate(MESSAGES[lang], date);
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

function ageOf(p: PrintPatient, visitDate: string | undefined): { years: number } | { months: number } | undefined {
  if (typeof p.age === 'number' && Number.isFinite(p.age) && p.age >= 0) return { years: p.age };
  const birth = str(p.birthDate);
  if (birth === null || visitDate === undefined) return undefined;
  return ageAt(birth, visitDate);
}

/**
 * The labels as a template sees them: strings in a one-language document, a {@link BilingualText} where the two
 * languages of a bilingual document differ.
 *
 * @example
 * // in a template: <th>{{labels.dosage}}</th>
 */
export type PrintedLabels = { readonly [K in keyof Labels]: PrintedText };

const pairLabels = new Map<string, PrintedLabels>();

/** The labels of a language pair, made once. */
function labelsFor(first: Language, second: Language | null): PrintedLabels {
  if (second === null) return MESSAGES[first].labels;
  const key = `${first},${second}`;
  let labels = pairLabels.get(key);
  if (labels === undefined) {
    const a = MESSAGES[first].labels;
    const b = MESSAGES[second].labels;
    labels = Object.freeze(Object.fromEntries(Object.keys(a).map((k) => [k, bilingual(a[k as keyof Labels], b[k as keyof Labels], second)])) as PrintedLabels);
    pairLabels.set(key, labels);
  }
  return labels;
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
  'discharge-summary': 'dischargeSummary',
  'immunisation-certificate': 'immunisationCertificate',
  wellness: 'wellnessRecord',
  invoice: 'invoice',
} satisfies Record<(typeof BUNDLED_TEMPLATE_NAMES)[number], keyof Labels>;

/** Text in the document's language(s): `say` words it for one language, or returns null for text it leaves as given. */
type Say = (say: (m: Messages) => string | null) => PrintedText | null;

function sayer(first: Language, second: Language | null): Say {
  const a = MESSAGES[first];
  if (second === null) return (say) => say(a);
  const b = MESSAGES[second];
  return (say) => {
    const x = say(a);
    const y = say(b);
    return x === null ? null : y === null ? x : bilingual(x, y, second);
  };
}

/** A frequency: in a bilingual document the notation (1-0-1, BD) is printed once, with the first language's words. */
function frequencyText(text: string, first: Language, second: Language | null): PrintedText {
  const a = frequencyWords(MESSAGES[first], text);
  if (a === null) return text;
  const shown = frequencyShown(a);
  const b = second === null ? null : frequencyWords(MESSAGES[second], text);
  return b === null || second === null ? shown : bilingual(shown, b.phrase, second);
}

/** Free text, or the words of the language(s) when `local` recognises it exactly. */
const orAsGiven = (say: Say, value: string | null, local: (m: Messages, text: string) => string | null): PrintedText | null => (value === null ? null : (say((m) => local(m, value)) ?? value));

const SLOT_KEYS = ['morning', 'afternoon', 'evening', 'night'] as const;

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
  // Five times of day have no column each: the words say how many times.
  if (f.kind === 'pattern' && f.doses.length <= 4) {
    const doses = f.doses.length === 3 ? [f.doses[0], f.doses[1], '0', f.doses[2]] : f.doses;
    return doses.map((d) => (d === undefined || /^0+(\.0+)?$/.test(d) ? null : d));
  }
  if (f.kind === 'abbreviation') {
    const slots = ownValue(ABBREVIATION_SLOTS, f.code);
    return slots === undefined ? null : slots.map((on) => (on ? '●' : null));
  }
  return null;
}

/** The document's language(s): `say` for generated text, the labels, and the languages. */
interface Speech {
  readonly say: Say;
  readonly labels: PrintedLabels;
  readonly first: Language;
  readonly second: Language | null;
}

function vitalsOf(p: PrintPatient, labels: PrintedLabels, fmt: (n: number) => string): Array<{ name: PrintedText; value: string }> {
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null);
  const v = p.vitals ?? {};
  const vitals: Array<{ name: PrintedText; value: string }> = [];
  const bp = str(v.bloodPressure);
  if (bp !== null) vitals.push({ name: labels.bloodPressure, value: `${bp} mmHg` });
  const pulse = num(v.pulse);
  if (pulse !== null) vitals.push({ name: labels.pulse, value: `${fmt(pulse)} /min` });
  const temp = num(v.temperature);
  if (temp !== null) vitals.push({ name: labels.temperature, value: `${fmt(temp)} °${temp > CELSIUS_UP_TO ? 'F' : 'C'}` });
  const spo2 = num(v.spo2);
  if (spo2 !== null) vitals.push({ name: labels.spo2, value: `${fmt(spo2)}%` });
  const rr = num(v.respiratoryRate);
  if (rr !== null) vitals.push({ name: labels.respiratoryRate, value: `${fmt(rr)} /min` });
  return vitals;
}

function patientModel(p: PrintPatient, visitDate: string | undefined, speech: Speech): DocumentModel['patient'] {
  const { say } = speech;
  const ageYm = ageOf(p, visitDate);
  const age = ageYm === undefined ? null : say((m) => localAge(m, ageYm));
  const gender = str(p.gender);
  const sex = orAsGiven(say, gender, localSex);
  const ageSex =
    ageYm === undefined && gender === null
      ? null
      : say((m) => [ageYm === undefined ? null : localAge(m, ageYm), gender === null ? null : (localSex(m, gender) ?? gender)].filter((x) => x !== null).join(' / '));
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null);
  const weight = num(p.weight);
  const height = num(p.height);
  const fmt = (n: number): string => String(Math.round(n * 10) / 10);
  return {
    name: str(p.name),
    age,
    sex,
    ageSex,
    abhaAddress: str(p.abhaAddress),
    abhaNumber: str(p.ABHANumber),
    mobile: str(p.mobile),
    address: str(p.address),
    weight: weight === null ? null : `${fmt(weight)} kg`,
    height: height === null ? null : `${fmt(height)} cm`,
    bmi: weight === null || height === null ? null : (weight / (height / 100) ** 2).toFixed(1),
    vitals: vitalsOf(p, speech.labels, fmt),
    birthDateText: birthDateOf(p, say),
    guardian: guardianOf(p),
  };
}

/** The date of birth in words, when it is a calendar date. */
function birthDateOf(p: PrintPatient, say: Say): PrintedText | null {
  const born = str(p.birthDate);
  return born === null || !/^\d{4}-\d{2}-\d{2}$/.test(born) ? null : say((m) => localDate(m, born));
}

/** The parent or guardian as printed: the name, and the relation in brackets when given. */
function guardianOf(p: PrintPatient): string | null {
  const name = str(p.guardian?.name);
  if (name === null) return null;
  const relation = str(p.guardian?.relation);
  return relation === null ? name : `${name} (${relation})`;
}

/** See {@link DocumentModel.compactClosing}: the advice and follow-up given are short enough to print as one piece (never taller than a page). */
function compactClosingOf(notes: readonly string[]): boolean {
  return notes.length > 0 && notes.join('').length <= 600 && notes.reduce((n, t) => n + t.split('\n').length, 0) <= 12;
}

/** The four times of day, named from the catalogue(s), each with its short mark (`dosing.marks`, distinct in every language). */
function doseSlotsOf(speech: Speech): DoseSlot[] {
  return SLOT_KEYS.map((k): DoseSlot => ({ name: speech.labels[k], short: speech.say((m) => m.dosing.marks[k]) ?? '', mark: null }));
}

/** Strength as written, form and route in the language(s) when known, joined with ` · `. */
function particularsOf(say: Say, parts: ReadonlyArray<readonly [string, 'strength' | 'form' | 'route']>): PrintedText | null {
  if (parts.length === 0) return null;
  const local = { strength: () => null, form: localForm, route: localRoute } as const;
  return say((m) => parts.map(([text, kind]) => local[kind](m, text) ?? text).join(' · '));
}

/** The "doctor's words" mark for instructions printed as written, when the document speaks a language other than English. */
function asWrittenMark(speech: Speech, instructions: string | null, printed: PrintedText | null): PrintedText | null {
  if (instructions === null || printed !== instructions) return null;
  if (speech.first === 'en' && (speech.second === null || speech.second === 'en')) return null;
  return speech.say((m) => m.dosing.asWritten);
}

function medicationsModel(records: readonly CareContext[], details: CareContextDetails | undefined, caps: boolean, speech: Speech): DocumentModel['medications'] {
  const { say } = speech;
  const slots = doseSlotsOf(speech);
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
    const particulars = (
      [
        [str(d.strength), 'strength'],
        [str(d.form), 'form'],
        [str(d.route), 'route'],
      ] as const
    ).filter((x): x is readonly [string, 'strength' | 'form' | 'route'] => x[0] !== null && !has(printed, x[0]));
    const instructions = str(m.instructions);
    const instructionsText = orAsGiven(say, instructions, localInstructions);
    return {
      number: i + 1,
      drugName: upper(m.drugName),
      genericName: generic === null ? null : upper(generic),
      name: upper(withBrand ? generic : m.drugName),
      brandName: withBrand ? upper(m.drugName) : null,
      particulars: particularsOf(say, particulars),
      strength: str(d.strength),
      form: str(d.form),
      route: str(d.route),
      dosage: orAsGiven(say, str(m.dosage), localDose),
      frequency: frequency === null ? null : frequencyText(frequency, speech.first, speech.second),
      doseGrid: marks === null ? null : slots.map((s, k) => ({ ...s, mark: marks[k] ?? null })),
      duration: orAsGiven(say, str(m.duration), localDuration),
      instructions: instructionsText,
      instructionsAsWritten: asWrittenMark(speech, instructions, instructionsText),
    };
  });
}

/** Diagnoses of the records, the same diagnosis (name and code) once. */
function diagnosesModel(records: readonly CareContext[], say: Say): DocumentModel['diagnoses'] {
  const seen = new Set<string>();
  const out: Array<DocumentModel['diagnoses'][number]> = [];
  for (const d of records.flatMap((cc) => cc.bundleData.diagnosis ?? [])) {
    const key = `${d.diagnosisName.trim().toLowerCase()}|${(d.icdCode ?? '').trim().toUpperCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ number: out.length + 1, name: d.diagnosisName, icdCode: str(d.icdCode), status: orAsGiven(say, str(d.status), localStatus) });
  }
  return out;
}

/** The advice of the records, each distinct text once, in order. */
function adviceOf(records: readonly CareContext[]): string | null {
  const texts = [...new Set(records.map((cc) => str(cc.bundleData.advice)).filter((t): t is string => t !== null))];
  return texts.length === 0 ? null : texts.join('\n');
}

/**
 * What the page margins print: name (or the blank-name label), age and sex, visit id and date, so that a page that
 * comes apart from the first still says whose it is; the page-number pattern. Plain text (CSS `content`), both
 * languages joined.
 */
function pageOf(patient: DocumentModel['patient'], visitId: string | null, dateText: PrintedText | null, labels: PrintedLabels): DocumentModel['page'] {
  const who = patient.name ?? `${String(labels.patientNameBlank)} ____________________`;
  const parts = [who, patient.ageSex === null ? null : String(patient.ageSex), visitId, dateText === null ? null : String(dateText)];
  return { identity: parts.filter((x) => x !== null).join(' · '), number: String(labels.pageOf) };
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
  const second = options.secondLang !== undefined && options.secondLang !== options.lang ? options.secondLang : null;
  const labels = labelsFor(options.lang, second);
  const say = sayer(options.lang, second);
  const speech: Speech = { say, labels, first: options.lang, second };
  const cc = source.careContext;
  const records = source.records ?? [cc];
  const b = cc.bundleData;
  const headingKey = ownValue(HEADINGS, options.template) ?? 'prescription';
  const hiTypeName =
    (hiType: string) =>
    (m: Messages): string | null =>
      ownValue<string>(m.hiTypes, hiType) ?? null;
  // The title follows the document: the prescription template prints "Prescription" over medicines whatever the record
  // type (advice or a lab order make an OPConsultation of them). Without medicines, the page is headed by its record
  // type (Diagnostic Report…), one abha-link does not know by the neutral "Visit summary".
  const prescribes = cc.hiType === 'Prescription' || records.some((r) => (r.bundleData.medications ?? []).length > 0);
  const heading = headingKey === 'prescription' && !prescribes ? (say(hiTypeName(cc.hiType)) ?? labels.visitSummary) : labels[headingKey];
  const url = str(b.documentUrl);
  const link = url !== null && isHttpsUrl(url) ? url : null;
  const recordOf = (r: CareContext): DocumentModel['careContext'] => ({
    referenceNumber: r.referenceNumber,
    display: r.display,
    hiType: r.hiType,
    hiTypeText: say(hiTypeName(r.hiType)) ?? r.hiType,
  });
  const patient = patientModel(source.patient, source.visitDate, speech);
  const visitDate = source.visitDate;
  const dateText = visitDate === undefined ? null : say((m) => localDate(m, visitDate));
  const medications = medicationsModel(records, source.details, options.caps === true, speech);
  const advice = adviceOf(records);
  const labInvestigations = records.flatMap((r) => r.bundleData.labInvestigations ?? []).map((l, i) => ({ number: i + 1, testName: l.testName, instructions: str(l.instructions) }));
  // The closing's notes: the advice and the follow-up, those given.
  const notes = [advice, str(source.followUp)].filter((t): t is string => t !== null && t.trim() !== '');
  const bareClosing = notes.length === 0;
  const d = source.details?.doctor ?? {};
  return {
    lang: options.lang,
    secondLang: second,
    labels,
    pageSize: options.pageSize,
    pageClass: options.pageSize === 'A5' ? 'a5' : 'a4',
    heading,
    // The reference is data: first-strong isolate … pop directional isolate keep its bidi controls to itself.
    title: `${String(heading)} · \u2068${cc.referenceNumber}\u2069`,
    hospital: { name: b.hospital.name, id: b.hospital.id, phone: str(b.hospital.phone), email: str(b.hospital.email), address: str(source.hospitalAddress), gstin: str(source.hospitalGstin) },
    doctor: { name: b.doctor.name, licNumber: str(b.doctor.licNumber), hpId: str(b.doctor.hpId), qualification: str(d.qualification), specialty: str(d.specialty), council: str(d.council) },
    patient,
    visit: { id: str(source.visitId), date: str(visitDate), dateText, followUp: str(source.followUp) },
    careContext: recordOf(cc),
    careContexts: records.map(recordOf),
    diagnoses: diagnosesModel(records, say),
    medications,
    doseSlots: doseSlotsOf(speech),
    hasDoseGrid: medications.some((m) => m.doseGrid !== null),
    labInvestigations,
    advice,
    compactClosing: compactClosingOf(notes),
    bareClosing,
    closingInMedicines: bareClosing && medications.length > 0 && labInvestigations.length === 0,
    signEveryPage: medications.length > 0 && labInvestigations.length <= 8 && (bareClosing || compactClosingOf(notes)),
    footerEveryPage: records.length === 1,
    document: { url, link },
    showQrCode: options.qrCode && link !== null,
    page: pageOf(patient, str(source.visitId), dateText, labels),
    caps: options.caps === true,
    custom: options.custom ?? {},
    records: buildRecordsModel(source.content, options.lang, second),
  };
}
