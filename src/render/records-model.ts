/**
 * The `records` part of the document model: what the discharge summary, immunisation certificate, health check
 * (wellness) and bill templates print from a clinical input's content (an inpatient stay, immunisations,
 * observations, an invoice). Like the rest of the model, fields are copied into fresh objects, every field is
 * present (`null` when unknown), text the library writes (dates, units, amounts) is in the document's language(s),
 * and names and free text are printed as written.
 */
import type { Issue } from '../errors.js';
import { rupeesInWords } from './amount-words.js';
import type { BundleData, CareContextInput, InvoiceInput, ObservationsInput } from '../generated/types.js';
import { localDate, localFlag, localRoute } from './localize.js';
import { formatNumber } from './messages/format.js';
import { MESSAGES, type Language, type Messages } from './messages/index.js';
import { bilingual, type PrintedText } from './text.js';

/** The bundled record templates and the hiType each prints by default. */
export const RECORD_TEMPLATES = {
  'discharge-summary': 'DischargeSummary',
  'immunisation-certificate': 'ImmunizationRecord',
  wellness: 'WellnessRecord',
  invoice: 'Invoice',
} as const;

/** A bundled record template's name. */
export type RecordTemplate = keyof typeof RECORD_TEMPLATES;

const isRecordTemplate = (name: string): name is RecordTemplate => Object.hasOwn(RECORD_TEMPLATES, name);

/**
 * The bundled record template that prints a care context of this hiType by default, or undefined.
 *
 * @example
 * recordTemplateFor('DischargeSummary') //=> 'discharge-summary'
 * recordTemplateFor('Prescription')     //=> undefined
 */
export function recordTemplateFor(hiType: string): RecordTemplate | undefined {
  return (Object.keys(RECORD_TEMPLATES) as RecordTemplate[]).find((t) => RECORD_TEMPLATES[t] === hiType);
}

/** One labelled value (a measurement, a lifestyle habit, an examination finding). */
export interface RecordRow {
  readonly label: PrintedText;
  readonly value: PrintedText;
  /** When it was measured, as printed; null when not given. */
  readonly at: PrintedText | null;
}

/** What the record templates print; each part is null (or empty) when the content does not have it. */
export interface RecordsModel {
  readonly stay: {
    readonly admittedAt: PrintedText;
    readonly dischargedAt: PrintedText | null;
    readonly reasonForAdmission: string | null;
    readonly chiefComplaints: readonly string[];
    readonly presentIllness: string | null;
    readonly pastHistory: readonly string[];
    readonly allergies: readonly string[];
    readonly examinationFindings: readonly RecordRow[];
    readonly procedures: ReadonlyArray<{ readonly name: string; readonly date: PrintedText | null; readonly notes: string | null }>;
    readonly investigations: ReadonlyArray<{
      readonly testName: string;
      readonly result: PrintedText;
      readonly referenceRange: string | null;
      /** A known flag (high, low, normal) in the document's language(s); anything else as given. */
      readonly interpretation: PrintedText | null;
      readonly date: PrintedText | null;
    }>;
    readonly courseInHospital: string | null;
    readonly conditionAtDischarge: string | null;
  } | null;
  readonly immunizations: ReadonlyArray<{
    readonly number: number;
    readonly vaccine: string;
    readonly doseNumber: string | null;
    readonly date: PrintedText;
    readonly lotNumber: string | null;
    readonly manufacturer: string | null;
    readonly site: string | null;
    /** A known route (intramuscular, oral…) in the document's language(s); anything else as given. */
    readonly route: PrintedText | null;
    readonly nextDue: PrintedText | null;
  }>;
  readonly observations: readonly RecordRow[];
  readonly lifestyle: readonly RecordRow[];
  readonly invoice: {
    readonly number: string;
    readonly date: PrintedText | null;
    readonly lines: ReadonlyArray<{
      readonly number: number;
      readonly item: string;
      /** The line's HSN (goods) or SAC (services) code for GST, when given. */
      readonly hsnSac: string | null;
      readonly quantity: string;
      readonly unitPrice: string;
      readonly discount: string | null;
      readonly tax: string | null;
      readonly total: string;
    }>;
    readonly hasDiscount: boolean;
    readonly hasTax: boolean;
    /** Whether any line has an HSN/SAC code (the bill then prints the column). */
    readonly hasHsnSac: boolean;
    readonly total: string;
    /** The total in words (`Rupees Five Hundred Only`): a bill in rupees with English among its languages; else null. */
    readonly amountInWords: string | null;
    readonly payment: { readonly method: string; readonly amountPaid: string; readonly date: PrintedText | null; readonly reference: string | null } | null;
    /** What is left to pay, when less than the total was paid; else null. */
    readonly balanceDue: string | null;
  } | null;
}

/** Text in the document's language(s). */
type Say = (say: (m: Messages) => string) => PrintedText;

/** A value in the document's language(s) when `local` knows it (the library reads the same words in every language), else as given. */
function knownOr(say: Say, value: string | null, local: (m: Messages, text: string) => string | null): PrintedText | null {
  if (value === null || local(MESSAGES.en, value) === null) return value;
  return say((m) => local(m, value) ?? value);
}

function sayIn(first: Language, second: Language | null): Say {
  const a = MESSAGES[first];
  if (second === null) return (say) => say(a);
  const b = MESSAGES[second];
  return (say) => bilingual(say(a), say(b), second);
}

const text = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t;
};
const texts = (v: readonly string[] | undefined): string[] => (v ?? []).map(text).filter((t): t is string => t !== null);

/**
 * A date or date-time as printed: `20 Nov 2026`, with the clock time as written when given (`20 Nov 2026, 11:20`).
 *
 * @example
 * whenText(MESSAGES.hi, '2026-11-20T11:20:00+05:30') //=> '20 नवंबर 2026, 11:20'
 */
export function whenText(m: Messages, value: string): string {
  const d = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}))?/.exec(value);
  if (d === null) return value;
  const date = localDate(m, d[1] ?? '');
  return d[2] === undefined ? date : `${date}, ${d[2]}`;
}

/** UCUM units as printed; those with words in them come from the catalogue. */
function unitText(m: Messages, unit: string): string {
  switch (unit) {
    case '/min':
      return m.labels.perMinute;
    case 'Cel':
      return '°C';
    case '[degF]':
      return '°F';
    case 'mm[Hg]':
      return 'mmHg';
    case '[in_i]':
      return 'in';
    case '[lb_av]':
      return 'lb';
    case 'kg/m2':
      return 'kg/m²';
    default:
      return unit;
  }
}

const withUnit = (m: Messages, value: number, unit: string): string => (unit === '%' ? `${formatNumber(m, value)}%` : `${formatNumber(m, value)} ${unitText(m, unit)}`);

/**
 * An amount of money in the language's locale with Latin digits, e.g. `₹1,000.80`; an unknown currency code falls
 * back to the number and the code.
 *
 * @example
 * formatAmount(MESSAGES.en, 1000.8, 'INR') //=> '₹1,000.80'
 */
export function formatAmount(m: Messages, amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(`${m.intl.locale}-u-nu-latn`, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

type Measured = number | { readonly value: number; readonly at?: string | undefined; readonly unit?: string | undefined } | undefined;

function observationRows(o: ObservationsInput, say: Say): RecordRow[] {
  const rows: RecordRow[] = [];
  const at = (v: { at?: string | undefined }): PrintedText | null => {
    const when = text(v.at) ?? text(o.at);
    return when === null ? null : say((m) => whenText(m, when));
  };
  if (o.bloodPressure !== undefined) {
    const bp = o.bloodPressure;
    rows.push({ label: say((m) => m.labels.bloodPressure), value: say((m) => `${formatNumber(m, bp.systolic)}/${formatNumber(m, bp.diastolic)} ${unitText(m, 'mm[Hg]')}`), at: at(bp) });
  }
  const add = (key: 'pulse' | 'temperature' | 'spo2' | 'respiratoryRate' | 'height' | 'weight' | 'bmi', unit: string): void => {
    const v = o[key] as Measured;
    if (v === undefined) return;
    const m = typeof v === 'number' ? { value: v } : v;
    const u = m.unit ?? unit;
    rows.push({ label: say((c) => c.labels[key]), value: say((c) => withUnit(c, m.value, u)), at: at(m) });
  };
  add('pulse', '/min');
  add('temperature', 'Cel');
  add('spo2', '%');
  add('respiratoryRate', '/min');
  add('height', 'cm');
  add('weight', 'kg');
  add('bmi', 'kg/m2');
  return rows;
}

function lifestyleRows(o: ObservationsInput | undefined, say: Say): RecordRow[] {
  const l = o?.lifestyle;
  if (l === undefined) return [];
  const keys = ['smoking', 'alcohol', 'tobaccoChewing', 'diet', 'physicalActivity'] as const;
  return keys.flatMap((k) => {
    const v = text(l[k]);
    return v === null ? [] : [{ label: say((m) => m.labels[k]), value: v, at: null }];
  });
}

function stayModel(c: CareContextInput, say: Say): RecordsModel['stay'] {
  const s = c.inpatientStay;
  if (s === undefined) return null;
  const when = (v: string | undefined): PrintedText | null => {
    const t = text(v);
    return t === null ? null : say((m) => whenText(m, t));
  };
  return {
    admittedAt: say((m) => whenText(m, s.admittedAt)),
    dischargedAt: when(s.dischargedAt),
    reasonForAdmission: text(s.reasonForAdmission),
    chiefComplaints: texts(s.chiefComplaints),
    presentIllness: text(s.presentIllness),
    pastHistory: texts(s.pastHistory),
    allergies: texts(s.allergies),
    examinationFindings: (s.examinationFindings ?? []).map((f) => {
      const unit = text(f.unit);
      const v = f.value;
      const value = typeof v === 'number' ? say((m) => (unit === null ? formatNumber(m, v) : withUnit(m, v, unit))) : `${v ?? '—'}${unit === null ? '' : ` ${unit}`}`;
      return { label: f.name, value, at: null };
    }),
    procedures: (s.procedures ?? []).map((p) => ({ name: p.name, date: when(p.date), notes: text(p.notes) })),
    investigations: (s.investigations ?? []).map((t) => {
      const unit = text(t.unit);
      const v = t.value;
      const result = typeof v === 'number' ? say((m) => (unit === null ? formatNumber(m, v) : withUnit(m, v, unit))) : `${v ?? '—'}${unit === null ? '' : ` ${unit}`}`;
      return { testName: t.testName, result, referenceRange: text(t.referenceRange), interpretation: knownOr(say, text(t.interpretation), localFlag), date: when(t.date) };
    }),
    courseInHospital: text(s.courseInHospital),
    conditionAtDischarge: text(s.conditionAtDischarge),
  };
}

function invoiceModel(inv: InvoiceInput | undefined, m: Messages, say: Say, english: boolean): RecordsModel['invoice'] {
  if (inv === undefined) return null;
  const currency = text(inv.currency) ?? 'INR';
  const money = (n: number): string => formatAmount(m, n, currency);
  const date = text(inv.date);
  const lines = inv.lines.map((l, i) => {
    const taxAmount = l.tax?.amount ?? (l.tax?.rate === undefined ? undefined : ((l.quantity * l.unitPrice - (l.discount ?? 0)) * l.tax.rate) / 100);
    const rate = l.tax?.rate === undefined ? '' : ` (${formatNumber(m, l.tax.rate)}%${l.tax.kind === undefined ? '' : ` ${l.tax.kind}`})`;
    return {
      number: i + 1,
      item: l.item,
      hsnSac: text(l.hsnSac),
      quantity: formatNumber(m, l.quantity),
      unitPrice: money(l.unitPrice),
      discount: l.discount === undefined ? null : money(l.discount),
      tax: taxAmount === undefined ? null : `${money(taxAmount)}${rate}`,
      total: money(l.total),
    };
  });
  const p = inv.payment;
  const paymentDate = text(p?.date) ?? date;
  const due = p === undefined ? inv.total : Math.round((inv.total - p.amountPaid) * 100) / 100;
  return {
    number: inv.number,
    date: date === null ? null : say((c) => whenText(c, date)),
    lines,
    hasDiscount: lines.some((l) => l.discount !== null),
    hasTax: lines.some((l) => l.tax !== null),
    hasHsnSac: lines.some((l) => l.hsnSac !== null),
    total: money(inv.total),
    amountInWords: english && currency === 'INR' ? rupeesInWords(inv.total) : null,
    payment: p === undefined ? null : { method: p.method, amountPaid: money(p.amountPaid), date: paymentDate === null ? null : say((c) => whenText(c, paymentDate)), reference: text(p.reference) },
    balanceDue: due > 0 ? money(due) : null,
  };
}

/**
 * Builds the `records` part of the model from a care context's clinical content (undefined for a link request or a
 * care context, which carry none: every part is then empty).
 *
 * @example
 * buildRecordsModel(content, 'hi', null).immunizations[0].nextDue //=> '18 दिसंबर 2026'
 */
export function buildRecordsModel(content: CareContextInput | undefined, lang: Language, secondLang: Language | null): RecordsModel {
  const say = sayIn(lang, secondLang);
  const c = content ?? {};
  const when = (v: string | undefined): PrintedText | null => {
    const t = text(v);
    return t === null ? null : say((m) => whenText(m, t));
  };
  return {
    stay: stayModel(c, say),
    immunizations: (c.immunizations ?? []).map((d, i) => ({
      number: i + 1,
      vaccine: d.vaccine,
      doseNumber: d.doseNumber === undefined ? null : String(d.doseNumber),
      date: say((m) => whenText(m, d.date)),
      lotNumber: text(d.lotNumber),
      manufacturer: text(d.manufacturer),
      site: text(d.site),
      route: knownOr(say, text(d.route), localRoute),
      nextDue: when(d.nextDue),
    })),
    observations: c.observations === undefined ? [] : observationRows(c.observations, say),
    lifestyle: lifestyleRows(c.observations, say),
    invoice: invoiceModel(c.invoice, MESSAGES[lang], say, lang === 'en' || secondLang === 'en'),
  };
}

/** What of the care context's own content a record template leaves off the page: never lost silently. */
function notPrinted(template: RecordTemplate, bundle: BundleData | undefined, at: string): Issue[] {
  if (bundle === undefined) return [];
  const parts = template === 'discharge-summary' ? [] : (['diagnosis', 'medications', 'labInvestigations'] as const);
  const unprinted: Issue[] = parts
    .filter((k) => (bundle[k] ?? []).length > 0)
    .map((k) => ({
      path: `${at}/${k}`,
      code: 'content-not-printed',
      message: `the ${template} template does not print ${k}; print them with the prescription or visit-summary template`,
      severity: 'warning',
    }));
  if (template === 'invoice' && text(bundle.advice) !== null)
    unprinted.push({
      path: `${at}/advice`,
      code: 'content-not-printed',
      message: 'the invoice template does not print advice; print it with the prescription or visit-summary template',
      severity: 'warning',
    });
  return unprinted;
}

const missing = (path: string, what: string, template: string): Issue => ({
  path,
  code: 'print-value-missing',
  message: `the ${template} template prints a blank for ${what}: it is not given`,
  severity: 'warning',
});

/**
 * Warnings for what a record template expects and the content lacks (the page prints a blank or an "not recorded"
 * line instead). `at` is the JSON Pointer of the content in the input (`''` or `/careContexts/1`); `content` is
 * undefined for a link request or a care context, which carry no clinical content. Other templates: none.
 *
 * @example
 * recordWarnings('immunisation-certificate', { immunizations: [{ vaccine: 'BCG', date: '2026-11-20' }] }, '')
 * //=> [{ path: '/immunizations/0/lotNumber', code: 'print-value-missing', ... }, { path: '/immunizations/0/doseNumber', ... }]
 */
export function recordWarnings(template: string, content: CareContextInput | undefined, at: string, bundle?: BundleData): Issue[] {
  if (!isRecordTemplate(template)) return [];
  const unprinted = notPrinted(template, bundle, at);
  if (content === undefined)
    return [
      ...unprinted,
      {
        path: at,
        code: 'print-value-missing',
        message: `the ${template} template prints what only a clinical input carries; a link request or a care context has none, so the page says it is not recorded (render the clinical input)`,
        severity: 'warning',
      },
    ];
  const out: Issue[] = [...unprinted];
  switch (template) {
    case 'discharge-summary': {
      const s = content.inpatientStay;
      if (s === undefined) return [...out, missing(`${at}/inpatientStay`, 'the hospital stay (inpatientStay)', template)];
      if (s.dischargedAt === undefined) out.push(missing(`${at}/inpatientStay/dischargedAt`, 'the discharge date', template));
      if (text(s.conditionAtDischarge) === null) out.push(missing(`${at}/inpatientStay/conditionAtDischarge`, 'the condition at discharge', template));
      if ((content.diagnosis ?? []).length === 0) out.push(missing(`${at}/diagnosis`, 'the discharge diagnosis', template));
      break;
    }
    case 'immunisation-certificate':
      if ((content.immunizations ?? []).length === 0) return [...out, missing(`${at}/immunizations`, 'the vaccines given (immunizations)', template)];
      (content.immunizations ?? []).forEach((d, i) => {
        if (text(d.lotNumber) === null) out.push(missing(`${at}/immunizations/${i}/lotNumber`, 'the batch (lot) number', template));
        if (d.doseNumber === undefined) out.push(missing(`${at}/immunizations/${i}/doseNumber`, 'the dose number', template));
      });
      break;
    case 'wellness':
      if (content.observations === undefined) out.push(missing(`${at}/observations`, 'the measurements (observations)', template));
      break;
    case 'invoice':
      if (content.invoice === undefined) out.push(missing(`${at}/invoice`, 'the bill (invoice)', template));
      break;
  }
  return out;
}
