/**
 * The document model: what a template sees. Built from validated data only,
 * field by field into fresh objects, so a template never reaches the
 * caller's objects or their prototypes. Every field is always present
 * (`null` when unknown), because templates run in strict mode.
 */
import type { CareContext, CareContextInput } from '../generated/types.js';
import type { PatientDetails } from '../resolve.js';
import type { BUNDLED_TEMPLATE_NAMES } from './generated/templates.js';
import type { Labels } from './labels.js';
import { frequencyWords, localAge, localDate, localDose, localDuration, localSex, localStatus, localTiming } from './localize.js';
import { MESSAGES, type Language, type Messages } from './messages/index.js';
import { buildRecordsModel, type RecordsModel } from './records-model.js';
import { bilingual, type PrintedText } from './text.js';

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
  /** A clinical input's content of this care context as given (inpatient stay, immunisations…); absent for other inputs. */
  readonly content?: CareContextInput | undefined;
  /** The JSON Pointer of that content in the input (`''` or `/careContexts/1`; the bundleData of a link request or care context). */
  readonly contentPath?: string | undefined;
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
  readonly hospital: { readonly name: string; readonly id: string; readonly phone: string | null; readonly email: string | null };
  readonly doctor: { readonly name: string; readonly licNumber: string | null; readonly hpId: string | null };
  readonly patient: {
    readonly name: string | null;
    readonly age: PrintedText | null;
    /** M, F, O, U (or the words) in the document's language; anything else as given. */
    readonly sex: PrintedText | null;
    /** Age and sex joined for one cell, e.g. `48 y / F`, `48 वर्ष / महिला`. */
    readonly ageSex: PrintedText | null;
    readonly abhaAddress: string | null;
    readonly abhaNumber: string | null;
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
  /** `status`: a known status (confirmed, provisional…) in the document's language, anything else as given. */
  readonly diagnoses: ReadonlyArray<{ readonly number: number; readonly name: string; readonly icdCode: string | null; readonly status: PrintedText | null }>;
  /**
   * `drugName` as written. `dosage` of a known unit (1 tablet, 5 ml), a `frequency` abha-link reads (1-0-1, BD, Q6H,
   * its own words), a `duration` it wrote (5 days) and `instructions` that are a common timing phrase (after food) are
   * in the document's language; anything else is printed as given.
   */
  readonly medications: ReadonlyArray<{
    readonly number: number;
    readonly drugName: string;
    readonly dosage: PrintedText | null;
    readonly frequency: PrintedText | null;
    readonly duration: PrintedText | null;
    readonly instructions: PrintedText | null;
  }>;
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
  /** What the record templates print: inpatient stay, immunisations, observations, invoice (see RecordsModel). */
  readonly records: RecordsModel;
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

/**
 * Options of {@link buildDocumentModel}.
 *
 * @example
 * const options: ModelOptions = { template: 'prescription', lang: 'en', secondLang: 'hi', pageSize: 'A4', qrCode: true }
 */
export interface ModelOptions {
  readonly template: string;
  readonly lang: Language;
  /** A second language: a bilingual document. */
  readonly secondLang?: Language | undefined;
  readonly pageSize: PageSize;
  readonly qrCode: boolean;
}

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
  const shown = a.notationFirst ? `${a.notation} (${a.phrase})` : `${a.phrase} (${a.notation})`;
  const b = second === null ? null : frequencyWords(MESSAGES[second], text);
  return b === null || second === null ? shown : bilingual(shown, b.phrase, second);
}

/** Free text, or the words of the language(s) when `local` recognises it exactly. */
const orAsGiven = (say: Say, value: string | null, local: (m: Messages, text: string) => string | null): PrintedText | null => (value === null ? null : (say((m) => local(m, value)) ?? value));

/**
 * Builds the model a template renders from one care context and what is
 * known of the patient and visit. Pure; copies every field.
 *
 * @example
 * buildDocumentModel(source, { template: 'prescription', lang: 'en', pageSize: 'A4', qrCode: true }).heading
 * //=> 'Prescription'
 */
export function buildDocumentModel(source: DocumentSource, options: ModelOptions): DocumentModel {
  const second = options.secondLang !== undefined && options.secondLang !== options.lang ? options.secondLang : null;
  const labels = labelsFor(options.lang, second);
  const say = sayer(options.lang, second);
  const cc = source.careContext;
  const b = cc.bundleData;
  const p = source.patient;
  const headingKey = ownValue(HEADINGS, options.template) ?? 'prescription';
  const hiTypeName = (m: Messages): string | null => ownValue<string>(m.hiTypes, cc.hiType) ?? null;
  // The prescription layout holds every section; a care context that is not a Prescription is headed by its record
  // type (OP Consultation…), one abha-link does not know by the neutral "Visit summary", never "Prescription".
  const heading = headingKey === 'prescription' && cc.hiType !== 'Prescription' ? (say(hiTypeName) ?? labels.visitSummary) : labels[headingKey];
  const ageYm = ageOf(p, source.visitDate);
  const age = ageYm === undefined ? null : say((m) => localAge(m, ageYm));
  const gender = str(p.gender);
  const sex = orAsGiven(say, gender, localSex);
  const ageSex =
    ageYm === undefined && gender === null
      ? null
      : say((m) => [ageYm === undefined ? null : localAge(m, ageYm), gender === null ? null : (localSex(m, gender) ?? gender)].filter((x) => x !== null).join(' / '));
  const url = str(b.documentUrl);
  const link = url !== null && isHttpsUrl(url) ? url : null;
  return {
    lang: options.lang,
    secondLang: second,
    labels,
    pageSize: options.pageSize,
    pageClass: options.pageSize === 'A5' ? 'a5' : 'a4',
    heading,
    // The reference is data: first-strong isolate … pop directional isolate keep its bidi controls to itself.
    title: `${String(heading)} · \u2068${cc.referenceNumber}\u2069`,
    hospital: { name: b.hospital.name, id: b.hospital.id, phone: str(b.hospital.phone), email: str(b.hospital.email) },
    doctor: { name: b.doctor.name, licNumber: str(b.doctor.licNumber), hpId: str(b.doctor.hpId) },
    patient: { name: str(p.name), age, sex, ageSex, abhaAddress: str(p.abhaAddress), abhaNumber: str(p.ABHANumber) },
    visit: {
      id: str(source.visitId),
      date: str(source.visitDate),
      dateText: source.visitDate === undefined ? null : say((m) => localDate(m, source.visitDate ?? '')),
      followUp: str(source.followUp),
    },
    careContext: { referenceNumber: cc.referenceNumber, display: cc.display, hiType: cc.hiType, hiTypeText: say(hiTypeName) ?? cc.hiType },
    diagnoses: (b.diagnosis ?? []).map((d, i) => ({ number: i + 1, name: d.diagnosisName, icdCode: str(d.icdCode), status: orAsGiven(say, str(d.status), localStatus) })),
    medications: (b.medications ?? []).map((m, i) => {
      const frequency = str(m.frequency);
      return {
        number: i + 1,
        drugName: m.drugName,
        dosage: orAsGiven(say, str(m.dosage), localDose),
        frequency: frequency === null ? null : frequencyText(frequency, options.lang, second),
        duration: orAsGiven(say, str(m.duration), localDuration),
        instructions: orAsGiven(say, str(m.instructions), localTiming),
      };
    }),
    labInvestigations: (b.labInvestigations ?? []).map((l, i) => ({ number: i + 1, testName: l.testName, instructions: str(l.instructions) })),
    advice: str(b.advice),
    document: { url, link },
    showQrCode: options.qrCode && link !== null,
    records: buildRecordsModel(source.content, options.lang, second),
  };
}
