import { AbhaLinkError } from '../errors.js';

/**
 * A template that cannot be used: it does not parse, uses an unknown helper
 * or partial, writes a value without escaping, or failed while rendering.
 * `template` names the template (or `partials/<name>`), `line` is the line in
 * its source when known. Messages name fields and lines, never data values.
 *
 * @example
 * try { await createRenderer({ templates: { mine: '{{{patient.name}}}' } }) } catch (e) {
 *   if (isTemplateError(e)) console.error(e.template, e.line, e.message)
 * }
 * //=> mine 1 template mine, line 1: {{{ }}} and {{& }} write a value without escaping; use {{ }}
 */
export class TemplateError extends AbhaLinkError {
  override name = 'TemplateError';
  /** The template's name, or `partials/<name>` for a partial. */
  readonly template: string;
  /** 1-based line in the template source, when known. */
  readonly line: number | undefined;
  /** A stable code: `syntax`, `unescaped-output`, `dynamic-partial`, `decorator`, `prototype-path`, `unknown-partial`, `unknown-helper`, `missing-field`, `runtime`, `bad-name`. */
  readonly code: string;

  constructor(template: string, code: string, reason: string, line?: number) {
    super(`template ${template}${line === undefined ? '' : `, line ${line}`}: ${reason}`);
    this.template = template;
    this.code = code;
    this.line = line;
  }
}

/**
 * True when `e` is a {@link TemplateError} (also across copies of the library).
 *
 * @example
 * isTemplateError(new TemplateError('mine', 'syntax', 'expected }}')) //=> true
 */
export function isTemplateError(e: unknown): e is TemplateError {
  return e instanceof TemplateError || (e instanceof Error && e.name === 'TemplateError' && typeof (e as { template?: unknown }).template === 'string');
}

/**
 * PDF output is not possible here: playwright-core is not installed, no
 * Chromium was found, or it did not start. The message says how to fix it.
 *
 * @example
 * try { await htmlToPdf(html) } catch (e) { if (isPdfUnavailableError(e)) console.error(e.message) }
 */
export class PdfUnavailableError extends AbhaLinkError {
  override name = 'PdfUnavailableError';
  /** `no-playwright`, `no-browser` or `launch-failed`. */
  readonly code: 'no-playwright' | 'no-browser' | 'launch-failed';

  constructor(code: 'no-playwright' | 'no-browser' | 'launch-failed', message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * True when `e` is a {@link PdfUnavailableError}.
 *
 * @example
 * isPdfUnavailableError(new PdfUnavailableError('no-browser', 'no Chromium')) //=> true
 */
export function isPdfUnavailableError(e: unknown): e is PdfUnavailableError {
  return e instanceof PdfUnavailableError || (e instanceof Error && e.name === 'PdfUnavailableError');
}
