/**
 * What the lint rules of a clinical input need to know of its care
 * contexts beyond the link payload: each one's content (observations and
 * invoice included), where it is, and its hiType (given, or the default of
 * its content); and the arithmetic of an invoice.
 */
import { defaultHiType } from '../spec/hi-types.js';
import type { CareContextInput, ClinicalInput, InvoiceInput, InvoiceLineInput } from '../generated/types.js';

/** A care context of a clinical input: its content, its JSON Pointer tokens and its hiType. */
export interface CareContent {
  readonly content: CareContextInput;
  readonly at: ReadonlyArray<string | number>;
  readonly hiType: string;
}

const TOP_LEVEL = ['hiType', 'documentUrl', 'diagnosis', 'medications', 'labInvestigations', 'advice', 'observations', 'invoice'] as const;

/** The care contexts of a clinical input (top-level content, or each of `careContexts`). */
export function careContentsOf(input: ClinicalInput): CareContent[] {
  const withType = (content: CareContextInput, at: ReadonlyArray<string | number>): CareContent => {
    const given = content.hiType?.trim();
    return { content, at, hiType: given !== undefined && given !== '' ? given : defaultHiType(content) };
  };
  if (input.careContexts !== undefined) return input.careContexts.map((c, i) => withType(c, ['careContexts', i]));
  const content: Record<string, unknown> = {};
  for (const k of TOP_LEVEL) if (input[k] !== undefined) content[k] = input[k];
  return [withType(content as CareContextInput, [])];
}

/** Money compares to the paisa: rounding of each amount to two decimals is tolerated. */
const TOLERANCE = 0.011;

/** Two decimals, as money is written. */
export const money = (n: number): string => (Math.round(n * 100) / 100).toFixed(2);

/** The tax of a line: its amount when given, else its rate of the taxable value (quantity x unitPrice - discount). */
export function lineTax(line: InvoiceLineInput): number {
  const taxable = line.quantity * line.unitPrice - (line.discount ?? 0);
  if (line.tax?.amount !== undefined) return line.tax.amount;
  return line.tax?.rate !== undefined ? (taxable * line.tax.rate) / 100 : 0;
}

/** A finding of the invoice arithmetic: its message and where under the invoice it is. */
export interface ArithmeticFinding {
  readonly message: string;
  readonly below: ReadonlyArray<string | number>;
}

/**
 * The lines whose numbers do not add up: a tax amount that is not its rate
 * of the taxable value, a total that is not quantity x unitPrice - discount
 * + tax. Messages name the fields and the computed amount, never a value
 * the caller gave.
 */
export function lineFindings(invoice: InvoiceInput): ArithmeticFinding[] {
  const out: ArithmeticFinding[] = [];
  invoice.lines.forEach((line, i) => {
    const taxable = line.quantity * line.unitPrice - (line.discount ?? 0);
    const { rate, amount } = line.tax ?? {};
    if (rate !== undefined && amount !== undefined && Math.abs((taxable * rate) / 100 - amount) > TOLERANCE)
      out.push({ message: `tax.amount is not tax.rate percent of quantity x unitPrice - discount (that would be ${money((taxable * rate) / 100)})`, below: ['lines', i, 'tax', 'amount'] });
    const expected = taxable + lineTax(line);
    if (Math.abs(expected - line.total) > TOLERANCE) out.push({ message: `total is not quantity x unitPrice - discount + tax (that comes to ${money(expected)})`, below: ['lines', i, 'total'] });
  });
  return out;
}

/** The invoice total against the sum of its line totals, and the payment against the total. */
export function totalFindings(invoice: InvoiceInput): ArithmeticFinding[] {
  const out: ArithmeticFinding[] = [];
  const sum = invoice.lines.reduce((s, l) => s + l.total, 0);
  if (Math.abs(sum - invoice.total) > TOLERANCE) out.push({ message: `total is not the sum of the line totals (that comes to ${money(sum)})`, below: ['total'] });
  if (invoice.payment !== undefined && invoice.payment.amountPaid - invoice.total > TOLERANCE)
    out.push({ message: 'payment.amountPaid is more than the invoice total', below: ['payment', 'amountPaid'] });
  return out;
}
