/**
 * `abha-link fhir --embed-pdf`: prints each care context's page with the
 * render layer (Chromium through playwright-core) and hands the PDF bytes
 * to the FHIR builder (`printedDocuments`), which stays free of browsers.
 * The render modules are loaded only when asked for.
 */
import { createHash } from 'node:crypto';
import type { ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import type { FhirPrintedDocument } from '../fhir/to-fhir-types.js';
import { plural } from '../util.js';
import { cliIo, issueLines } from './io.js';

/** The bundled template that prints each hiType; others print as a visit summary. */
export const PRINT_TEMPLATES: Readonly<Record<string, string>> = {
  Prescription: 'prescription',
  DischargeSummary: 'discharge-summary',
  ImmunizationRecord: 'immunisation-certificate',
  WellnessRecord: 'wellness',
  Invoice: 'invoice',
};
const DEFAULT_PRINT_TEMPLATE = 'visit-summary';

/** What printing needs from the fhir command. */
export interface EmbedPdfArgs {
  readonly input: ClinicalInput | LinkCareContextRequest;
  /** The file name for messages, and the line finder for issue paths. */
  readonly name: string;
  readonly lineOf: (path: string) => number;
  /** --hi-type: every care context is emitted (and printed) as this hiType. */
  readonly hiType: string | undefined;
  readonly chromium: string | undefined;
  readonly now: Date;
}

/**
 * The printed PDF of every care context, keyed by referenceNumber; or
 * undefined after saying why on stderr (input that cannot be printed, no
 * Chromium, a page that failed to print): the command then exits 1.
 */
export async function printedDocuments(args: EmbedPdfArgs): Promise<Record<string, FhirPrintedDocument> | undefined> {
  const [{ safeRenderDocuments }, { createPdfPrinter }, { isPdfUnavailableError }] = await Promise.all([import('../render/render.js'), import('../render/pdf.js'), import('../render/errors.js')]);
  const err = cliIo().stderr;
  // One render per template in use; each care context takes the page of the template of its hiType.
  const templateOf = (hiType: string): string => PRINT_TEMPLATES[args.hiType ?? hiType] ?? DEFAULT_PRINT_TEMPLATE;
  const pages: Array<{ referenceNumber: string; html: string; pageSize: 'A4' | 'A5' }> = [];
  const rendered = new Map<string, ReturnType<typeof safeRenderDocuments>>();
  const first = safeRenderDocuments(args.input, { lint: { now: args.now } });
  if (!first.success) {
    const errors = first.issues.filter((i) => i.severity === 'error').length;
    err.write(`${issueLines(first.issues, args.name, args.lineOf)}${args.name}: --embed-pdf: cannot print: ${plural(errors, 'error')}\n`);
    return undefined;
  }
  for (const d of first.documents) {
    const template = templateOf(d.hiType);
    if (!rendered.has(template)) rendered.set(template, template === d.template ? first : safeRenderDocuments(args.input, { template, lint: { now: args.now } }));
    const r = rendered.get(template);
    const doc = r?.success === true ? r.documents.find((x) => x.referenceNumber === d.referenceNumber) : undefined;
    if (doc !== undefined) pages.push({ referenceNumber: doc.referenceNumber, html: doc.html, pageSize: doc.pageSize });
  }
  let printer;
  try {
    printer = await createPdfPrinter(args.chromium === undefined ? {} : { executablePath: args.chromium });
  } catch (e) {
    if (isPdfUnavailableError(e)) {
      err.write(`abha-link: --embed-pdf: ${e.message}\n`);
      return undefined;
    }
    throw e;
  }
  try {
    const out: Record<string, FhirPrintedDocument> = {};
    for (const p of pages) {
      let pdf: Uint8Array;
      try {
        pdf = await printer.pdf(p.html, { pageSize: p.pageSize });
      } catch (e) {
        const firstLine = (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
        err.write(`abha-link: --embed-pdf: could not print a page to PDF (${firstLine.slice(0, 200)})\n`);
        return undefined;
      }
      out[p.referenceNumber] = { data: pdf, contentType: 'application/pdf', creation: args.now, sha1: createHash('sha1').update(pdf).digest('base64') };
    }
    return out;
  } finally {
    await printer.close();
  }
}
