/**
 * The human-readable parts of a document: codings as written, narratives,
 * and one narrative line per clinical item. Every value goes into its own
 * bidi isolate, so a control character in one cannot reorder what follows.
 */
import type { Diagnosis, LabInvestigation, Medication } from '../generated/types.js';
import type { FixedCoding } from './constants.js';
import { icdSystemOf } from './terminology.js';
import type { CompositionSection, Narrative, Reference } from './r4.js';
import { isolatedXhtml, narrativeDiv } from './xhtml.js';

/** A CodeableConcept of one fixed coding, its display as text. */
export function coded(c: FixedCoding): { coding: [{ system: string; code: string; display: string }]; text: string } {
  return { coding: [{ system: c.system, code: c.code, display: c.display }], text: c.display };
}

/** A generated narrative around XHTML content. */
export function narrative(inner: string): Narrative {
  return { status: 'generated', div: narrativeDiv(inner) };
}

/** A list of narrative lines, each already XHTML (values isolated with {@link isolatedXhtml}). */
export const li = (items: readonly string[]): string => `<ul>${items.map((t) => `<li>${t}</li>`).join('')}</ul>`;

const iso = isolatedXhtml;

/** Free text as paragraphs, one per non-blank line. */
export const paragraphs = (text: string): string =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => `<p>${iso(l)}</p>`)
    .join('');

/** A Composition section with a code, a narrative and its entries. */
export function codedSection(title: string, c: FixedCoding, refs: readonly Reference[], lines: string): CompositionSection {
  return { title, code: coded(c), text: narrative(lines), entry: refs.map((r) => ({ ...r })) };
}

/** `Fever (ICD-10 R50.9), provisional`. */
export function diagnosisLine(d: Diagnosis): string {
  return `${iso(d.diagnosisName)}${d.icdCode !== undefined ? ` (${icdSystemOf(d.icdCode) ?? 'ICD-10'} ${iso(d.icdCode)})` : ''}${d.status !== undefined ? `, ${iso(d.status)}` : ''}`;
}

/** `Paracetamol 500 mg: 1 tablet; twice a day; for 5 days (after food)`. */
export function medicationLine(m: Medication): string {
  const parts: string[] = [];
  if (m.dosage !== undefined) parts.push(iso(m.dosage));
  if (m.frequency !== undefined) parts.push(iso(m.frequency));
  if (m.duration !== undefined) parts.push(`for ${iso(m.duration)}`);
  return `${iso(m.drugName)}${parts.length > 0 ? `: ${parts.join('; ')}` : ''}${m.instructions !== undefined ? ` (${iso(m.instructions)})` : ''}`;
}

/** `CBC (fasting)`. */
export function labLine(l: LabInvestigation): string {
  return `${iso(l.testName)}${l.instructions !== undefined ? ` (${iso(l.instructions)})` : ''}`;
}

/** `Document: Report`, or `Document: attached document` without a title. */
export function documentLine(doc: { readonly title?: string }): string {
  return `Document: ${doc.title !== undefined ? iso(doc.title) : 'attached document'}`;
}
