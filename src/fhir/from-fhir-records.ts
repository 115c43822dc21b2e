/**
 * FHIR in for the WellnessRecord and InvoiceRecord content: Observations of
 * vital signs, body measurements and lifestyle → `observations`; the Invoice
 * with its ChargeItems → `invoice`. What does not fit (another code, a unit
 * the clinical input does not hold, a second pulse) is reported, never
 * converted or guessed.
 */
import { isObject, type Mutable } from '../util.js';
import type { InvoiceInput, InvoiceLineInput, InvoiceTaxInput, LifestyleInput, MeasurementInput, ObservationsInput, TemperatureInput } from '../generated/types.js';
import { SYSTEMS } from './constants.js';
import { codings, reportRest, take, type Item, type Json, type Path, type Reader } from './from-fhir-reader.js';
import { BILLING_CODES, PRICE_COMPONENTS } from './profiles/invoice.js';
import { MEASURE_RULES, TEMPERATURE_UNITS, WELLNESS_CODES } from './profiles/wellness.js';

/** What the readers fill in the draft clinical input. */
interface RecordDraft {
  readonly visit: { at?: string | Date };
  observations?: ObservationsInput;
  invoice?: InvoiceInput;
}

const OBSERVATION_ELEMENTS = ['status', 'category', 'code', 'subject', 'encounter', 'effectiveDateTime', 'issued', 'performer', 'valueQuantity', 'valueCodeableConcept', 'valueString', 'component'];
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const round6 = (n: number): number => Math.round(n * 1e6) / 1e6;

/** The code of a coding of `system` in a CodeableConcept. */
function codeIn(cc: unknown, system: string): string | undefined {
  const c = codings(cc).find((x) => x.system === system && typeof x.code === 'string');
  return c === undefined ? undefined : String(c.code);
}

/** A Quantity's value when its UCUM code is one of `units`; undefined (reported) otherwise. */
function quantityIn(rd: Reader, q: unknown, units: readonly string[], path: Path): { value: number; code: string } | undefined {
  const value = isObject(q) ? num(q.value) : undefined;
  const code = isObject(q) && typeof q.code === 'string' ? q.code : undefined;
  if (value === undefined || value <= 0 || code === undefined || !units.includes(code)) {
    rd.warn(path, 'not-mapped', `the clinical input holds this measurement as a positive number in ${units.join(' or ')} (UCUM); this value is left out, not converted`);
    return undefined;
  }
  return { value, code };
}

/** The words of a CodeableConcept or string value. */
function words(r: Json): string | undefined {
  const cc = r.valueCodeableConcept;
  const t = isObject(cc) && typeof cc.text === 'string' ? cc.text : codings(cc).find((c) => typeof c.display === 'string')?.display;
  const w = typeof t === 'string' ? t : typeof r.valueString === 'string' ? r.valueString : undefined;
  return w?.trim() === '' ? undefined : w?.trim();
}

const LIFESTYLE: ReadonlyArray<[keyof LifestyleInput, string]> = [
  ['smoking', WELLNESS_CODES.smoking.code],
  ['alcohol', WELLNESS_CODES.alcohol.code],
  ['tobaccoChewing', WELLNESS_CODES.tobaccoChewing.code],
];

/** The vital sign or body measurement an Observation's LOINC code names (a rule of `MEASURE_RULES`, the blood pressure or the temperature), if any. */
function measureOf(code: unknown): { loinc: string | undefined; rule: (typeof MEASURE_RULES)[number] | undefined; bloodPressure: boolean; temperature: boolean } {
  const loinc = codeIn(code, SYSTEMS.loinc);
  return {
    loinc,
    rule: MEASURE_RULES.find((m) => m.coding.code === loinc || (m.field === 'spo2' && loinc === '59408-5')),
    bloodPressure: loinc === WELLNESS_CODES.bloodPressure.code,
    temperature: loinc === WELLNESS_CODES.temperature.code || loinc === '8310-5',
  };
}

/** True when an Observation is a vital sign or body measurement the clinical input holds (by its LOINC code). */
export function isMeasurement(r: Json): boolean {
  const m = measureOf(r.code);
  return m.rule !== undefined || m.bloodPressure || m.temperature;
}

/** One Observation into `obs`, or a warning saying why it is left out. */
function readObservation(rd: Reader, item: Item, obs: Mutable<ObservationsInput>, visitAt: string | undefined): void {
  const { r, p } = take(rd, item, []);
  if (r.status === 'entered-in-error' || r.status === 'cancelled') return rd.warn([...p, 'status'], 'entered-in-error', 'this Observation was entered in error or cancelled; it is left out');
  const { loinc, rule, temperature: isTemperature } = measureOf(r.code);
  const sct = codeIn(r.code, SYSTEMS.snomed);
  const text = isObject(r.code) && typeof r.code.text === 'string' ? r.code.text.trim().toLowerCase() : '';
  const at = typeof r.effectiveDateTime === 'string' && r.effectiveDateTime !== visitAt ? r.effectiveDateTime : undefined;
  const timed = (value: number): number | MeasurementInput => (at === undefined ? value : { value, at });
  const effective = [...p, 'effectiveDateTime'];
  /** Sets `field` once, recording where each of its parts came from (`value` for a plain number). */
  const once = (field: keyof ObservationsInput, set: () => void, parts: Record<string, Path>): void => {
    if (obs[field] !== undefined) return rd.warn(p, 'not-mapped', `the clinical input holds one ${field}; this further Observation is left out`);
    set();
    const v = obs[field];
    if (typeof v === 'number') return rd.from(`/observations/${field}`, parts.value ?? p);
    rd.from(`/observations/${field}`, p);
    for (const [k, fp] of Object.entries(parts)) rd.from(`/observations/${field}/${k}`, fp);
    if (at !== undefined) rd.from(`/observations/${field}/at`, effective);
  };
  const style = LIFESTYLE.find(([, code]) => code === sct)?.[0] ?? (text === 'diet' ? 'diet' : text === 'physical activity' ? 'physicalActivity' : undefined);
  if (loinc !== WELLNESS_CODES.bloodPressure.code && !isTemperature && rule === undefined && style === undefined)
    return rd.warn(p, 'resource-not-mapped', 'this Observation is none of the vital signs, body measurements or lifestyle findings the clinical input holds (observations); it is left out');
  reportRest(rd, r, p, OBSERVATION_ELEMENTS, 'Observation');
  if (loinc === WELLNESS_CODES.bloodPressure.code) {
    const comps = Array.isArray(r.component) ? r.component.filter(isObject) : [];
    const valuePath = (code: string): Path => [...p, 'component', comps.findIndex((c) => codeIn(c.code, SYSTEMS.loinc) === code), 'valueQuantity'];
    const part = (code: string): number | undefined => {
      const i = comps.findIndex((c) => codeIn(c.code, SYSTEMS.loinc) === code);
      return i < 0 ? undefined : quantityIn(rd, comps[i]?.valueQuantity, ['mm[Hg]'], valuePath(code))?.value;
    };
    const [systolic, diastolic] = [part(WELLNESS_CODES.systolic.code), part(WELLNESS_CODES.diastolic.code)];
    if (systolic === undefined || diastolic === undefined)
      return rd.warn([...p, 'component'], 'not-mapped', 'the clinical input holds a blood pressure with both systolic and diastolic; this one is left out');
    return once('bloodPressure', () => (obs.bloodPressure = { systolic, diastolic, ...(at !== undefined ? { at } : {}) }), {
      systolic: [...valuePath(WELLNESS_CODES.systolic.code), 'value'],
      diastolic: [...valuePath(WELLNESS_CODES.diastolic.code), 'value'],
    });
  }
  if (isTemperature) {
    const q = quantityIn(rd, r.valueQuantity, Object.keys(TEMPERATURE_UNITS), [...p, 'valueQuantity']);
    if (q !== undefined)
      once(
        'temperature',
        () =>
          (obs.temperature =
            q.code === 'Cel' && at === undefined
              ? q.value
              : { value: q.value, ...(q.code !== 'Cel' ? { unit: q.code as TemperatureInput['unit'] & string } : {}), ...(at !== undefined ? { at } : {}) }),
        { value: [...p, 'valueQuantity', 'value'], unit: [...p, 'valueQuantity', 'code'] },
      );
    return;
  }
  if (rule !== undefined) {
    const q = quantityIn(rd, r.valueQuantity, [rule.unit.code], [...p, 'valueQuantity']);
    if (q !== undefined) once(rule.field, () => (obs[rule.field] = timed(q.value)), { value: [...p, 'valueQuantity', 'value'] });
    return;
  }
  const w = words(r);
  if (style !== undefined && w !== undefined) {
    const l: Mutable<LifestyleInput> = { ...(obs.lifestyle ?? {}) };
    if (l[style] !== undefined) return rd.warn(p, 'not-mapped', `the clinical input holds one ${style}; this further Observation is left out`);
    l[style] = w;
    obs.lifestyle = l;
    return rd.from(`/observations/lifestyle/${style}`, [...p, r.valueCodeableConcept !== undefined ? 'valueCodeableConcept' : 'valueString']);
  }
  rd.warn(p, 'not-mapped', 'this lifestyle Observation has no value in words; it is left out');
}

/** The price components of a line read back: unit price (base amount / factor), discount, tax (CGST + SGST). */
function readLine(rd: Reader, li: Json, lp: Path, chargeItem: Item | undefined): InvoiceLineInput | undefined {
  const comps = Array.isArray(li.priceComponent) ? li.priceComponent.filter(isObject) : [];
  const amountOf = (c: Json | undefined): number => (isObject(c?.amount) ? (num(c.amount.value) ?? 0) : 0);
  const byCode = (code: string): Json[] => comps.filter((c) => codeIn(c.code, SYSTEMS.nrcesPriceComponents) === code);
  const base = byCode(PRICE_COMPONENTS.rate.code)[0] ?? comps.find((c) => c.type === 'base');
  const cr = chargeItem?.resource;
  const quantity = num(base?.factor) ?? (isObject(cr?.quantity) ? num(cr.quantity.value) : undefined) ?? 1;
  const item = (isObject(cr?.code) && typeof cr.code.text === 'string' ? cr.code.text : undefined) ?? (isObject(li.chargeItemCodeableConcept) ? li.chargeItemCodeableConcept.text : undefined);
  if (base === undefined || typeof item !== 'string' || item.trim() === '') {
    rd.warn(lp, 'not-mapped', 'this invoice line has no base price (Rate) or no item name; it is left out');
    return undefined;
  }
  const discount = byCode(PRICE_COMPONENTS.discount.code).reduce((s, c) => s + amountOf(c), 0);
  const taxes = [...byCode(PRICE_COMPONENTS.cgst.code), ...byCode(PRICE_COMPONENTS.sgst.code)];
  const taxAmount = round6(taxes.reduce((s, c) => s + amountOf(c), 0));
  comps.forEach((c, i) => {
    if (c !== base && !taxes.includes(c) && !byCode(PRICE_COMPONENTS.discount.code).includes(c))
      rd.warn([...lp, 'priceComponent', i], 'not-mapped', 'this price component is none of Rate, Discount, CGST and SGST; it is left out');
  });
  const taxable = amountOf(base) - discount;
  const factor = num(taxes[0]?.factor);
  const rate = factor === undefined ? undefined : round6(factor * 200);
  const tax: InvoiceTaxInput | undefined = taxAmount === 0 ? undefined : rate !== undefined && Math.abs((taxable * rate) / 100 - taxAmount) < 0.011 ? { rate } : { amount: taxAmount };
  const code = codeIn(cr?.code, SYSTEMS.nrcesBillingCodes);
  return {
    item: item.trim(),
    ...(code !== undefined && Object.hasOwn(BILLING_CODES, code) ? { code: code as InvoiceLineInput['code'] & string } : {}),
    quantity,
    unitPrice: round6(amountOf(base) / quantity),
    ...(discount > 0 ? { discount: round6(discount) } : {}),
    ...(tax !== undefined ? { tax } : {}),
    total: round6(taxable + taxAmount),
  };
}

const PAYMENT_NOTE = /^Paid (\d+(?:\.\d+)?) [A-Z]{3} by (.+?)(?: on (\S+))?(?: \(reference (.+)\))?$/;

/** The Invoice and the ChargeItems it refers to. */
function readInvoice(rd: Reader, item: Item): InvoiceInput | undefined {
  const { r, p } = take(rd, item, ['lineItem', 'note']);
  const identifier = Array.isArray(r.identifier) ? r.identifier.find(isObject) : undefined;
  const number = typeof identifier?.value === 'string' ? identifier.value.trim() : '';
  const gross = isObject(r.totalGross) ? r.totalGross : undefined;
  const total = num(gross?.value);
  const lineItems = Array.isArray(r.lineItem) ? r.lineItem.filter(isObject) : [];
  const lines = lineItems.flatMap((li, i) => {
    const ci = rd.resolve(li.chargeItemReference, item);
    if (ci !== undefined) ci.used = true;
    const line = readLine(rd, li, [...p, 'lineItem', i], ci?.resourceType === 'ChargeItem' ? ci : undefined);
    return line === undefined ? [] : [line];
  });
  if (number === '' || total === undefined || lines.length === 0) {
    rd.warn(p, 'not-mapped', 'the clinical input holds an invoice with a number (identifier), lines and a total (totalGross); this Invoice lacks one of them and is left out');
    return undefined;
  }
  const notes = Array.isArray(r.note) ? r.note.filter(isObject) : [];
  const matches = notes.map((n) => (typeof n.text === 'string' ? PAYMENT_NOTE.exec(n.text) : null));
  const paidAt = matches.findIndex((m) => m !== null);
  const paid = paidAt < 0 ? undefined : matches[paidAt];
  notes.forEach((_, i) => i !== paidAt && rd.warn([...p, 'note', i], 'not-mapped', 'this note is not the payment line abha-link writes; it is left out'));
  const type = codeIn(r.type, SYSTEMS.nrcesBillingCodes);
  reportRest(rd, r, p, ['identifier', 'status', 'type', 'subject', 'date', 'participant', 'issuer', 'lineItem', 'totalNet', 'totalGross', 'note'], 'Invoice');
  return {
    number,
    ...(typeof r.date === 'string' ? { date: r.date } : {}),
    ...(type !== undefined && ['00', '01', '02', '03', '99'].includes(type) ? { type: type as InvoiceInput['type'] & string } : {}),
    ...(typeof gross?.currency === 'string' && gross.currency !== 'INR' ? { currency: gross.currency } : {}),
    lines,
    total,
    ...(paid !== undefined && paid !== null
      ? { payment: { method: paid[2] ?? '', amountPaid: Number(paid[1]), ...(paid[3] !== undefined ? { date: paid[3] } : {}), ...(paid[4] !== undefined ? { reference: paid[4] } : {}) } }
      : {}),
  };
}

/** Observations not read already (a discharge summary's findings and results) → `observations`, the first Invoice → `invoice`; further Invoices are reported. */
export function readRecordContent(rd: Reader, draft: RecordDraft): void {
  const visitAt = typeof draft.visit.at === 'string' ? draft.visit.at : undefined;
  const obs: Mutable<ObservationsInput> = {};
  for (const it of rd.ofType('Observation')) if (it.used !== true) readObservation(rd, it, obs, visitAt);
  if (Object.keys(obs).length > 0) draft.observations = obs;
  rd.ofType('Invoice').forEach((it, i) => {
    if (i > 0) {
      it.used = true;
      return rd.warn(it.path, 'not-mapped', 'the clinical input holds one invoice; this further Invoice is left out');
    }
    const inv = readInvoice(rd, it);
    if (inv !== undefined) draft.invoice = inv;
  });
}
