/**
 * abha-link/render: printable documents (prescription, lab investigation
 * order, visit summary) from the same data that goes to the linking service.
 *
 * The only entry point that loads handlebars: the bundled templates are
 * precompiled and run with the handlebars runtime in a private environment;
 * every value is escaped, templates run in strict mode, and a documentUrl
 * becomes a link only when it is https. PDF output is optional and needs
 * playwright-core and a Chromium on the machine.
 *
 * @packageDocumentation
 */
export {
  renderDocuments,
  safeRenderDocuments,
  createRenderer,
  readTemplateDirectory,
  bundledTemplateDirectory,
  TEMPLATE_NAMES,
  PARTIAL_NAMES,
  type RenderOptions,
  type RenderedDocument,
  type RenderResult,
  type Renderer,
  type TemplateSources,
} from './render.js';
export type { RenderInput, RenderInputKind, RenderContext, ResolvedInput } from './input.js';
export {
  buildDocumentModel,
  formatVisitDate,
  ageAt,
  PAGE_SIZES,
  type PageSize,
  type DocumentModel,
  type DocumentSource,
  type PrintPatient,
  type PrintedLabels,
  type ModelOptions,
  type CustomData,
  type DoseSlot,
} from './model.js';
export { LANGUAGES, MESSAGES, isLanguage, type Language, type Labels, type Messages } from './labels.js';
export type { PluralMessage } from './messages/index.js';
export type { RecordsModel, RecordRow } from './records-model.js';
export { bilingual, type BilingualText, type PrintedText } from './text.js';
export { hyphenateHtml } from './hyphenate.js';
export { qrCodeSvg } from './qr.js';
export { CONTENT_SECURITY_POLICY, withContentSecurityPolicy } from './csp.js';
export { TemplateError, isTemplateError, PdfUnavailableError, isPdfUnavailableError } from './errors.js';
export { htmlToPdf, createPdfPrinter, findChromium, sweepStaleProfileFolders, type PdfOptions, type PdfPrinter, type PdfPrinterOptions } from './pdf.js';
