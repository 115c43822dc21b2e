/**
 * The document model: what a template sees. Built from validated data only,
 * field by field into fresh objects, so a template never reaches the
 * caller's objects or their prototypes. Every field is always present
 * (`null` when unknown), because templates run in strict mode.
 */
import type { CareContext } from '../generated/types.js';
import type { PatientDetails } from '../resolve.js';
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
  readonly hospital: { readonly name: string; readonly id: string; readonly phone: string | null; readonly email: string | null };
  readonly doctor: { readonly name: string; readonly licNumber: string | null; readonly hpId: string | null };
  readonly patient: {
    readonly name: string | null;
    readonly age: string | null;
    readonly sex: string | null;
    /** Age and sex joined for one cell, e.g. `48 y / F`. */
    readonly ageSex: string | null;
    readonly abhaAddress: string | null;
    readonly abhaNumber: string | null;
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
  readonly diagnoses: ReadonlyArray<{ readonly number: number; readonly name: string; readonly icdCode: string | null; readonly status: string | null }>;
  readonly medications: ReadonlyArray<{
    readonly number: number;
    readonly drugName: string;
    readonly dosage: string | null;
    readonly frequency: string | null;
    readonly duration: string | null;
    readonly instructions: string | null;
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

/**
 * Builds the model a template renders from one care context and what is
 * known of the patient and visit. Pure; copies every field.
 *
 * @example
 * buildDocumentModel(source, { template: 'prescription', lang: 'en', pageSize: 'A4', qrCode: true }).heading
 * //=> 'Prescription'
 */
export function buildDocumentModel(source: DocumentSource, options: { readonly template: string; readonly lang: Language; readonly pageSize: PageSize; readonly qrCode: boolean }): DocumentModel {
  const labels = LABELS[options.lang];
  const cc = source.careContext;
  const b = cc.bundleData;
  const p = source.patient;
  const headingKey = ownValue(HEADINGS, options.template) ?? 'prescription';
  const hiTypeNames: Readonly<Record<string, string>> = HI_TYPE_LABELS[options.lang];
  // The prescription layout holds every section; a care context that is not a Prescription is headed by its record
  // type (OP Consultation…), one abha-link does not know by the neutral "Visit summary", never "Prescription".
  const heading = headingKey === 'prescription' && cc.hiType !== 'Prescription' ? (ownValue(hiTypeNames, cc.hiType) ?? labels.visitSummary) : labels[headingKey];
  const age = ageText(p, source.visitDate, labels);
  const sex = str(p.gender);
  const url = str(b.documentUrl);
  const link = url !== null && isHttpsUrl(url) ? url : null;
  const hiTypeText = ownValue(hiTypeNames, cc.hiType) ?? cc.hiType;
  return {
    lang: options.lang,
    labels,
    pageSize: options.pageSize,
    pageClass: options.pageSize === 'A5' ? 'a5' : 'a4',
    heading,
    // The reference is data: first-strong isolate … pop directional isolate keep its bidi controls to itself.
    title: `${heading} · \u2068${cc.referenceNumber}\u2069`,
    hospital: { name: b.hospital.name, id: b.hospital.id, phone: str(b.hospital.phone), email: str(b.hospital.email) },
    doctor: { name: b.doctor.name, licNumber: str(b.doctor.licNumber), hpId: str(b.doctor.hpId) },
    patient: {
      name: str(p.name),
      age,
      sex,
      ageSex: age === null && sex === null ? null : [age, sex].filter((x) => x !== null).join(' / '),
      abhaAddress: str(p.abhaAddress),
      abhaNumber: str(p.ABHANumber),
    },
    visit: {
      id: str(source.visitId),
      date: str(source.visitDate),
      dateText: source.visitDate === undefined ? null : formatVisitDate(source.visitDate, options.lang),
      followUp: str(source.followUp),
    },
    careContext: { referenceNumber: cc.referenceNumber, display: cc.display, hiType: cc.hiType, hiTypeText },
    diagnoses: (b.diagnosis ?? []).map((d, i) => ({ number: i + 1, name: d.diagnosisName, icdCode: str(d.icdCode), status: str(d.status) })),
    medications: (b.medications ?? []).map((m, i) => ({
      number: i + 1,
      drugName: m.drugName,
      dosage: str(m.dosage),
      frequency: str(m.frequency),
      duration: str(m.duration),
      instructions: str(m.instructions),
    })),
    labInvestigations: (b.labInvestigations ?? []).map((l, i) => ({ number: i + 1, testName: l.testName, instructions: str(l.instructions) })),
    advice: str(b.advice),
    document: { url, link },
    showQrCode: options.qrCode && link !== null,
  };
}
