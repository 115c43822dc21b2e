/**
 * InvoiceRecord (StructureDefinition-InvoiceRecord, NRCeS IG 6.5.0): no
 * type coding (type.text "Invoice Record"), one section whose one entry is
 * the Invoice (closed slicing by type). Each line is a lineItem with its
 * price components (NRCeS ndhm-price-components: 01 Rate, 02 Discount,
 * 03 CGST, 04 SGST); a line with an NRCeS billing code gets a ChargeItem.
 */
import type { InvoiceInput, InvoiceLineInput } from '../../generated/types.js';
import { lineTax } from '../../validation/care-content.js';
import { issue, printOnly, type Assembly } from '../assembly.js';
import { PROFILES, SYSTEMS, type FixedCoding } from '../constants.js';
import { li, narrative } from '../narrative.js';
import type { ChargeItem, CompositionSection, Invoice, InvoiceLineItem, InvoiceLineItemPriceComponent, Money, Reference } from '../r4.js';
import { misfitClinicalContent } from '../resources.js';
import { isolatedXhtml as iso } from '../xhtml.js';
import { timeOf } from './wellness.js';

/** CodeSystem ndhm-billing-codes (IG 6.5.0): ChargeItem.code and Invoice.type. */
export const BILLING_CODES: Readonly<Record<string, string>> = {
  '00': 'Consultation',
  '01': 'Pharmacy',
  '02': 'IPD',
  '03': 'OPD',
  '04': 'Pathology',
  '05': 'Medicines',
  '06': 'Nursing Charges',
  '07': 'Handling Charges',
  '08': 'Delivery Charges',
  '99': 'Others',
};

/** CodeSystem ndhm-price-components (IG 6.5.0). */
export const PRICE_COMPONENTS = {
  rate: { system: SYSTEMS.nrcesPriceComponents, code: '01', display: 'Rate' },
  discount: { system: SYSTEMS.nrcesPriceComponents, code: '02', display: 'Discount' },
  cgst: { system: SYSTEMS.nrcesPriceComponents, code: '03', display: 'CGST' },
  sgst: { system: SYSTEMS.nrcesPriceComponents, code: '04', display: 'SGST' },
} as const satisfies Record<string, FixedCoding>;

/** The invoice type when none is given: 03 OPD (docs/spec-decisions.md). */
export const DEFAULT_INVOICE_TYPE = '03';

const round2 = (n: number): number => Math.round(n * 100) / 100;
const billing = (code: string): FixedCoding => ({ system: SYSTEMS.nrcesBillingCodes, code, display: BILLING_CODES[code] ?? code });
const concept = (c: FixedCoding): { coding: [FixedCoding]; text: string } => ({ coding: [{ ...c }], text: c.display });

/** The price components of a line: its rate (factor = quantity), its discount, its tax as CGST and SGST halves; IGST, which has no NRCeS code, is reported. */
function priceComponents(a: Assembly, line: InvoiceLineInput, at: Array<string | number>, money: (v: number) => Money): InvoiceLineItemPriceComponent[] {
  const out: InvoiceLineItemPriceComponent[] = [{ type: 'base', code: concept(PRICE_COMPONENTS.rate), factor: line.quantity, amount: money(line.quantity * line.unitPrice) }];
  if (line.discount !== undefined && line.discount > 0) out.push({ type: 'discount', code: concept(PRICE_COMPONENTS.discount), amount: money(line.discount) });
  const tax = round2(lineTax(line));
  if (tax <= 0) return out;
  if (line.tax?.kind === 'IGST') {
    a.report(
      issue(
        a.job.at.content(...at, 'tax'),
        'content-not-in-profile',
        "IGST has no code among the NRCeS price components (MRP, Rate, Discount, CGST, SGST), which the Invoice profile requires; the tax is left out of the line's price components and stays in the invoice total and narrative",
        'warning',
      ),
    );
    return out;
  }
  // CGST and SGST are levied at equal rates: half each, the odd paisa to CGST.
  const cgst = round2(Math.ceil(tax * 50) / 100);
  const rate = line.tax?.rate;
  const factor = rate !== undefined ? { factor: rate / 200 } : {};
  out.push({ type: 'tax', code: concept(PRICE_COMPONENTS.cgst), ...factor, amount: money(cgst) }, { type: 'tax', code: concept(PRICE_COMPONENTS.sgst), ...factor, amount: money(round2(tax - cgst)) });
  return out;
}

/** A ChargeItem for a line with a billing code; the line's CodeableConcept otherwise. */
function chargeOf(a: Assembly, line: InvoiceLineInput, date: string | undefined): Pick<InvoiceLineItem, 'chargeItemReference' | 'chargeItemCodeableConcept'> {
  if (line.code === undefined) return { chargeItemCodeableConcept: { text: line.item } };
  const ci: ChargeItem = {
    resourceType: 'ChargeItem',
    id: a.nextId('ChargeItem'),
    meta: { profile: [PROFILES.ChargeItem] },
    status: 'billable',
    code: { coding: [billing(line.code)], text: line.item },
    subject: a.refs.patient,
    context: a.refs.encounter,
    ...(date !== undefined ? { occurrenceDateTime: date } : {}),
    performingOrganization: a.refs.organization,
    quantity: { value: line.quantity },
    productCodeableConcept: { text: line.item },
  };
  return { chargeItemReference: a.add(ci as ChargeItem & { id: string }) };
}

/** `Paid 1000.80 INR by UPI on 2026-11-20 (reference UPI-1)`: the payment, as Invoice.note and the narrative write it. */
export function paymentNote(inv: InvoiceInput, currency: string, paidOn: string | undefined): string | undefined {
  const p = inv.payment;
  if (p === undefined) return undefined;
  return `Paid ${round2(p.amountPaid).toFixed(2)} ${currency} by ${p.method.trim()}${paidOn !== undefined ? ` on ${paidOn}` : ''}${p.reference !== undefined && p.reference.trim() !== '' ? ` (reference ${p.reference.trim()})` : ''}`;
}

/** The Invoice resource of the clinical input's invoice. */
function invoiceResource(a: Assembly, inv: InvoiceInput): Reference {
  const currency = inv.currency ?? 'INR';
  if (!/^[A-Z]{3}$/.test(currency)) a.report(issue(a.job.at.content('invoice', 'currency'), 'invalid-code', 'currency must be an ISO 4217 code of three capital letters, such as INR'));
  const money = (v: number): Money => ({ value: round2(v), currency });
  const date = inv.date === undefined ? a.job.when : timeOf(a, inv.date, 'invoice', 'date');
  const paidOn = inv.payment?.date === undefined ? undefined : timeOf(a, inv.payment.date, 'invoice', 'payment', 'date');
  // HSN/SAC is India's GST classification: no NRCeS or R4 code system names it, so it is printed, not coded (no system is invented).
  inv.lines.forEach((line, i) => {
    if (line.hsnSac !== undefined) a.report(printOnly(a.job.at.content('invoice', 'lines', i, 'hsnSac'), 'HSN/SAC has no code system in the NRCeS InvoiceRecord'));
  });
  const lineItem: InvoiceLineItem[] = inv.lines.map((line, i) => ({ sequence: i + 1, ...chargeOf(a, line, date), priceComponent: priceComponents(a, line, ['invoice', 'lines', i], money) }));
  const net = inv.lines.reduce((s, l) => s + l.quantity * l.unitPrice - (l.discount ?? 0), 0);
  const note = paymentNote(inv, currency, paidOn);
  const lines = inv.lines.map((l) => `${iso(l.item)}: ${iso(String(l.quantity))} x ${iso(l.unitPrice.toFixed(2))} = ${iso(l.total.toFixed(2))} ${iso(currency)}`);
  const resource: Invoice = {
    resourceType: 'Invoice',
    id: a.nextId('Invoice'),
    meta: { profile: [PROFILES.Invoice] },
    text: narrative(`<p>Invoice ${iso(inv.number)}</p>${li([...lines, `Total: ${iso(inv.total.toFixed(2))} ${iso(currency)}`, ...(note !== undefined ? [iso(note)] : [])])}`),
    identifier: [{ value: inv.number }],
    status: inv.payment !== undefined && inv.payment.amountPaid >= inv.total ? 'balanced' : 'issued',
    type: concept(billing(inv.type ?? DEFAULT_INVOICE_TYPE)),
    subject: a.refs.patient,
    ...(date !== undefined ? { date } : {}),
    participant: [{ actor: a.refs.practitioner }],
    issuer: a.refs.organization,
    lineItem,
    totalNet: money(net),
    totalGross: money(inv.total),
    ...(note !== undefined ? { note: [{ text: note }] } : {}),
  };
  return a.add(resource as Invoice & { id: string });
}

/**
 * The one section of an InvoiceRecord, or none with an `empty-document`
 * error when the care context has no invoice (a link request never has
 * one). Every other content is left out with a warning: the section holds
 * the Invoice only.
 */
export function invoiceSections(a: Assembly): CompositionSection[] {
  const { content } = a;
  misfitClinicalContent(a);
  if (content.documentUrl !== undefined)
    a.report(
      issue(
        a.job.at.content('documentUrl'),
        'content-not-in-profile',
        'documentUrl has no place in an InvoiceRecord, whose one section holds the Invoice only; it is left out of this document',
        'warning',
      ),
    );
  const inv = a.job.clinical?.invoice;
  if (inv === undefined) {
    a.report(issue(a.job.at.content(), 'empty-document', 'an InvoiceRecord needs the invoice (number, lines, total), given in a clinical input; a link request does not carry one'));
    return [];
  }
  const ref = invoiceResource(a, inv);
  return [{ title: 'Invoice', text: narrative(li([`Invoice ${iso(inv.number)}: ${iso(inv.total.toFixed(2))} ${iso(inv.currency ?? 'INR')}`])), entry: [{ ...ref }] }];
}
