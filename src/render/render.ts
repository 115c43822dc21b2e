/**
 * Rendering: data in, one standalone HTML document per care context out.
 *
 * The bundled templates are precompiled at build time
 * (src/render/generated/templates.ts) and run with the handlebars runtime in
 * a private environment; the compiler is loaded only when a user supplies
 * template strings of their own.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ValidationError, type Issue } from '../errors.js';
import type { LintOptions } from '../validation/lint.js';
import { withContentSecurityPolicy } from './csp.js';
import { TemplateError } from './errors.js';
import { uniqueFileName } from './file-name.js';
import { BUNDLED_PARTIAL_NAMES, BUNDLED_TEMPLATE_NAMES, PARTIAL_SPECS, TEMPLATE_SPECS } from './generated/templates.js';
import { createCompilerEnv, createRuntimeEnv, type HandlebarsCompilerEnv, type HandlebarsEnv, type TemplateFn } from './handlebars.js';
import { cssContent } from './css-content.js';
import { resolveInput, type RenderContext, type RenderInputKind } from './input.js';
import { hyphenateHtml } from './hyphenate.js';
import { LANGUAGES, isLanguage, type Language } from './messages/index.js';
import { PAGE_SIZES, buildDocumentModel, isHttpsUrl, type CustomData, type PageSize, type PrintPatient } from './model.js';
import { VISIT_SUMMARY_HI_TYPE, checkCustom, gatherVisit, missingValueWarnings } from './visit.js';
import { qrCodeSvg } from './qr.js';
import { recordTemplateFor, recordWarnings } from './records-model.js';
import { COMPILE_OPTIONS, checkTemplateAst, compileError, isTemplateName } from './template-rules.js';

/**
 * The names of the bundled templates.
 *
 * @example
 * TEMPLATE_NAMES //=> ['lab-order', 'prescription', 'visit-summary']
 */
export const TEMPLATE_NAMES: readonly string[] = BUNDLED_TEMPLATE_NAMES;

/**
 * The names of the bundled partials; a user's partial of the same name replaces it.
 *
 * @example
 * PARTIAL_NAMES.includes('letterhead') //=> true
 */
export const PARTIAL_NAMES: readonly string[] = BUNDLED_PARTIAL_NAMES;

/**
 * Options of the render functions.
 *
 * @example
 * const options: RenderOptions = { template: 'lab-order', lang: 'hi', pageSize: 'A5', lint: { now: new Date() } }
 */
export interface RenderOptions {
  /**
   * Template name: `prescription`, `lab-order`, `visit-summary`, `discharge-summary`, `immunisation-certificate`,
   * `wellness`, `invoice`, or a user template's name. Default: the record template of the care context's hiType
   * (DischargeSummary, ImmunizationRecord, WellnessRecord, Invoice), else `prescription`.
   */
  readonly template?: string;
  /**
   * The document's language (default `en`; see LANGUAGES), or two for a bilingual document (`['en', 'hi']`: each label
   * and generated phrase in both, the second under or after the first; data once). Data is printed as given.
   */
  readonly lang?: Language | readonly Language[];
  /** Soft hyphens in the printed words, by language, so that a word breaks only at a hyphen. Default true. */
  readonly hyphenate?: boolean;
  /** `A4` (default) or `A5`. */
  readonly pageSize?: PageSize;
  /** Print a QR code of the documentUrl when it is https. Default true. */
  readonly qrCode?: boolean;
  /**
   * Lint options for the core lint rules, run on the link request before
   * rendering (lint errors stop rendering, as they stop a build). Default:
   * on, with default options. `false` skips lint; schema checks always run.
   */
  readonly lint?: LintOptions | false;
  /** Patient and visit details for a link request or care-context input. */
  readonly context?: RenderContext;
  /**
   * The patient, for a link request or a care context, which carry no name
   * (the same as `context.patient`, which it overrides). Without a name the
   * page prints a blank line to write it on, and a warning says so.
   */
  readonly patient?: PrintPatient;
  /** Drug names (brand and generic) in capital letters, as the Indian Medical Council recommends. Default false. */
  readonly caps?: boolean;
  /**
   * Anything a template wants (letterhead lines, clinic timings…), passed to
   * it as `custom`: a JSON object (plain objects, arrays, strings, numbers,
   * booleans, null) of at most 64 KiB and 8 levels. The bundled letterhead
   * prints `custom.letterheadLines` (strings) and `custom.timings`.
   * Anything else is a TypeError.
   */
  readonly custom?: CustomData;
}

/**
 * One rendered document: one per care context, or one per visit with the
 * `visit-summary` template (which gathers every care context of the visit).
 *
 * @example
 * const [doc] = renderDocuments(input)
 * writeFileSync(`${doc.fileName}.html`, doc.html) // OPD-2026-0042-Prescription.html
 */
export interface RenderedDocument {
  /** The care context's referenceNumber; for a visit summary, the visit id (else the first care context's reference). */
  readonly referenceNumber: string;
  /** The care context's hiType; `VisitSummary` for a visit summary (not an ABDM hiType). */
  readonly hiType: string;
  /** A safe file name (no extension) derived from the referenceNumber, unique within one render call. */
  readonly fileName: string;
  readonly template: string;
  /** The document's language (the first of a bilingual document). */
  readonly lang: Language;
  /** Every language printed: one, or two for a bilingual document. */
  readonly languages: readonly Language[];
  readonly pageSize: PageSize;
  /**
   * A complete, standalone HTML document: inline CSS, no scripts, no external
   * requests. Its first element is the CONTENT_SECURITY_POLICY meta,
   * put there by the renderer whatever the template.
   */
  readonly html: string;
}

/**
 * What the safe render functions return.
 *
 * @example
 * const r: RenderResult = safeRenderDocuments(value)
 * if (!r.success) console.error(r.issues.map((i) => i.path))
 */
export type RenderResult =
  | { readonly success: true; readonly kind: RenderInputKind; readonly documents: readonly RenderedDocument[]; readonly warnings: readonly Issue[] }
  | { readonly success: false; readonly issues: readonly Issue[] };

/**
 * Template strings a user supplies, by name (file name without `.hbs`).
 *
 * @example
 * const sources: TemplateSources = { partials: { letterhead: '<header>{{hospital.name}}</header>' } }
 */
export interface TemplateSources {
  /** Whole-document templates; a name of a bundled template replaces it. */
  readonly templates?: Readonly<Record<string, string>>;
  /** Partials; a bundled partial's name (`letterhead`, `footer`, …) replaces it. */
  readonly partials?: Readonly<Record<string, string>>;
}

/**
 * Renders with a fixed set of templates and partials (see {@link createRenderer}).
 *
 * @example
 * const renderer: Renderer = await createRenderer(await readTemplateDirectory('my-templates'))
 * renderer.render(input, { template: 'my-prescription' })
 */
export interface Renderer {
  /** The template names this renderer knows. */
  readonly templates: readonly string[];
  /** The partial names this renderer knows. */
  readonly partials: readonly string[];
  /** Renders one document per care context, or returns every issue of the input. Throws only {@link TemplateError} (a template fault) or RangeError (an unknown option value). */
  safeRender(input: unknown, options?: RenderOptions): RenderResult;
  /** Renders one document per care context; throws ValidationError with every issue of the input. */
  render(input: unknown, options?: RenderOptions): RenderedDocument[];
}

/**
 * The languages of the `lang` option: one, or two different ones for a bilingual document.
 *
 * @throws RangeError for an unknown language, more than two, or the same one twice (a programming error)
 */
function documentLanguages(lang: Language | readonly Language[] | undefined): readonly Language[] {
  const list: readonly unknown[] = lang === undefined ? ['en'] : typeof lang === 'string' ? [lang] : Array.isArray(lang) ? lang : [lang];
  const bad = list.find((l) => !isLanguage(l));
  if (bad !== undefined || list.length === 0) throw new RangeError(`unknown language "${String(bad)}"; use one of ${LANGUAGES.join(', ')}, or two of them for a bilingual document`);
  if (list.length > 2 || list[0] === list[1]) throw new RangeError(`lang is one language, or two different ones for a bilingual document (${LANGUAGES.join(', ')})`);
  return list as readonly Language[];
}

/**
 * A bilingual label inside an attribute value (`aria-label="{{labels.patient}}"`) as plain text, `Patient / रोगी`.
 * Handlebars escapes every `<` of data, so the only markup inside a quoted attribute value is a BilingualText's.
 */
function plainBilingualAttributes(html: string): string {
  return html.replace(/="[^"<>]*<span class=l1>[^"]*"/g, (attr) => attr.replace(/<span class=l1>([^<]*)<\/span><span class=l2 lang=[a-z]+>([^<]*)<\/span>/g, '$1 / $2'));
}

function setUpHelpers(env: HandlebarsEnv): void {
  // Templates cannot write to the console or look up properties dynamically.
  env.unregisterHelper('log');
  env.unregisterHelper('lookup');
  env.registerHelper('qrCode', (url: unknown) => {
    if (typeof url !== 'string' || !isHttpsUrl(url)) return '';
    const svg = qrCodeSvg(url);
    return svg === undefined ? '' : new env.SafeString(svg);
  });
  // Text for a CSS content property (page margins): every character escaped, so data cannot leave the string.
  env.registerHelper('cssContent', (text: unknown) => new env.SafeString(cssContent(typeof text === 'string' ? text : '')));
}

/** A template error at render time, without data: field names and lines only. */
function runtimeError(template: string, e: unknown): TemplateError {
  if (e instanceof TemplateError) return e;
  const err = e instanceof Error ? e : new Error(String(e));
  const lineNumber = (err as { lineNumber?: unknown }).lineNumber;
  const line = typeof lineNumber === 'number' ? lineNumber : undefined;
  const missing = /^"([A-Za-z0-9_$@-]{1,64})" not defined in /.exec(err.message);
  if (missing !== null)
    return new TemplateError(template, 'missing-field', `uses the field "${missing[1] ?? ''}", which the document model does not have (templates run in strict mode; see DocumentModel)`, line);
  const partial = /^The partial ([A-Za-z0-9_@-]{1,64}) could not be found/.exec(err.message);
  if (partial !== null) return new TemplateError(template, 'unknown-partial', `uses the partial ${partial[1] ?? ''}, which does not exist`, line);
  return new TemplateError(template, 'runtime', `failed while rendering (${err.name})`, line);
}

function makeRenderer(templates: ReadonlyMap<string, TemplateFn>, partials: readonly string[]): Renderer {
  const names = [...templates.keys()].sort();
  const safeRender = (input: unknown, options: RenderOptions = {}): RenderResult => {
    if (options.template !== undefined && !templates.has(options.template)) throw new RangeError(`unknown template "${options.template}"; the templates are ${names.join(', ')}`);
    const languages = documentLanguages(options.lang);
    const [lang = 'en', secondLang] = languages;
    const pageSize = options.pageSize ?? 'A4';
    if (!(PAGE_SIZES as readonly string[]).includes(pageSize)) throw new RangeError(`unknown page size "${String(pageSize)}"; use ${PAGE_SIZES.join(' or ')}`);
    const custom = options.custom === undefined ? undefined : checkCustom(options.custom);
    const context: RenderContext | undefined = options.patient === undefined ? options.context : { ...options.context, patient: options.patient };
    const resolved = resolveInput(input, { ...(options.lint === undefined ? {} : { lint: options.lint }), ...(context === undefined ? {} : { context }) });
    if (!resolved.success) return resolved;
    const used = new Set<string>();
    // The visit summary is one document per visit; the other templates, one per care context.
    const sources = options.template === 'visit-summary' ? [gatherVisit(resolved.sources)] : resolved.sources;
    const warnings = [...resolved.warnings, ...missingValueWarnings(resolved.kind, sources)];
    if ((options.patient !== undefined || options.context !== undefined) && resolved.kind === 'clinical-input')
      warnings.push({
        path: '/patient',
        code: 'patient-option-ignored',
        message: 'a clinical input carries its own patient and visit: the patient (or context) option is not used',
        severity: 'warning',
      });
    const documents = sources.map((source): RenderedDocument => {
      // Without a template named, a discharge summary, immunisation record, wellness record or invoice prints on its own template.
      const template = options.template ?? recordTemplateFor(source.careContext.hiType) ?? 'prescription';
      const fn = templates.get(template) as TemplateFn;
      warnings.push(...recordWarnings(template, source.content, source.contentPath ?? '', source.careContext.bundleData));
      const model = buildDocumentModel(source, { template, lang, secondLang, pageSize, qrCode: options.qrCode ?? true, caps: options.caps === true, ...(custom === undefined ? {} : { custom }) });
      let html: string;
      try {
        html = fn(model);
      } catch (e) {
        throw runtimeError(template, e);
      }
      if (secondLang !== undefined) html = plainBilingualAttributes(html);
      if (options.hyphenate !== false) html = hyphenateHtml(html, languages);
      // The renderer's policy, whatever the template wrote (see csp.ts).
      html = withContentSecurityPolicy(html);
      const cc = source.careContext;
      const stem = cc.hiType === VISIT_SUMMARY_HI_TYPE ? `${cc.referenceNumber}-${VISIT_SUMMARY_HI_TYPE}` : cc.referenceNumber;
      return { referenceNumber: cc.referenceNumber, hiType: cc.hiType, fileName: uniqueFileName(stem, used), template, lang, languages, pageSize, html };
    });
    return { success: true, kind: resolved.kind, documents, warnings };
  };
  return {
    templates: names,
    partials: [...partials].sort(),
    safeRender,
    render(input, options) {
      const r = safeRender(input, options);
      if (!r.success) throw new ValidationError(r.issues, 'render input');
      return [...r.documents];
    },
  };
}

function registerBundled(env: HandlebarsEnv): Map<string, TemplateFn> {
  setUpHelpers(env);
  for (const name of BUNDLED_PARTIAL_NAMES) env.registerPartial(name, env.template(PARTIAL_SPECS[name]));
  return new Map(BUNDLED_TEMPLATE_NAMES.map((name) => [name, env.template(TEMPLATE_SPECS[name])]));
}

let bundled: Renderer | undefined;

/** The renderer of the bundled templates, created on first use (runtime only, no compiler). */
function bundledRenderer(): Renderer {
  bundled ??= makeRenderer(registerBundled(createRuntimeEnv()), BUNDLED_PARTIAL_NAMES);
  return bundled;
}

/**
 * Renders one printable HTML document per care context with the bundled
 * templates, and reports instead of throwing when the input is invalid.
 *
 * The input is a clinical input (built with `buildLinkRequest` first, so the
 * page shows exactly what is linked), a link request (spec §4.12), or one
 * care context; it is validated with the core validators and lint rules.
 *
 * @throws RangeError for an unknown template, language or page size (a programming error)
 * @example
 * const r = safeRenderDocuments(JSON.parse(text), { template: 'prescription', lang: 'hi' })
 * if (r.success) for (const d of r.documents) writeFileSync(`${d.fileName}.html`, d.html)
 * else for (const i of r.issues) console.error(i.path, i.message)
 * //=> r.documents[0].fileName === 'OPD-2026-0042-Prescription'
 */
export function safeRenderDocuments(input: unknown, options: RenderOptions = {}): RenderResult {
  return bundledRenderer().safeRender(input, options);
}

/**
 * Renders one printable HTML document per care context with the bundled
 * templates (see {@link safeRenderDocuments}).
 *
 * @throws ValidationError carrying every issue of the input (paths into it)
 * @example
 * const [doc] = renderDocuments(buildLinkRequest(input), { pageSize: 'A5', context: { patient: { name: 'Asha Verma' } } })
 * doc.html //=> '<!DOCTYPE html>\n<html lang="en" class="page-a5 template-prescription">...'
 */
export function renderDocuments(input: unknown, options: RenderOptions = {}): RenderedDocument[] {
  return bundledRenderer().render(input, options);
}

function compileUserTemplate(env: HandlebarsCompilerEnv, label: string, source: unknown): { fn: TemplateFn; partials: string[] } {
  // Only strings reach the compiler: an object here could be a handlebars AST, which compiles to code.
  if (typeof source !== 'string') throw new TemplateError(label, 'bad-source', `must be template text (a string), not ${source === null ? 'null' : typeof source}`);
  let ast: unknown;
  try {
    ast = env.parse(source);
  } catch (e) {
    throw compileError(label, e);
  }
  const partials = checkTemplateAst(ast, label);
  const options = { ...COMPILE_OPTIONS, knownHelpers: { ...COMPILE_OPTIONS.knownHelpers } };
  try {
    // precompile runs the whole compiler now, so errors surface here rather than at the first render.
    env.precompile(source, options);
  } catch (e) {
    throw compileError(label, e);
  }
  return { fn: env.compile(source, options), partials };
}

function ownStrings(record: Readonly<Record<string, unknown>> | undefined, what: 'templates' | 'partials'): Array<[string, unknown]> {
  if (record === undefined) return [];
  if (record === null || typeof record !== 'object') throw new TemplateError(what, 'bad-source', `${what} must be an object of name → template text`);
  return Object.keys(record).map((k) => {
    if (!isTemplateName(k))
      throw new TemplateError(what === 'partials' ? `partials/${k.slice(0, 64)}` : k.slice(0, 64), 'bad-name', 'names are 1 to 64 lower-case letters, digits and -, and not constructor or prototype');
    return [k, record[k]];
  });
}

/**
 * A renderer with templates and partials of your own besides (or instead of)
 * the bundled ones. Template text is compiled here, once, with the same
 * rules as the bundled templates: strict mode, known helpers only, no
 * `{{{ }}}`, no dynamic partials, no prototype paths; every problem is a
 * {@link TemplateError} now rather than at the first render. Only strings
 * are accepted as templates. Uses a private handlebars environment.
 *
 * @throws TemplateError naming the template and line
 * @example
 * const renderer = await createRenderer({ partials: { letterhead: '<header><h1>{{hospital.name}}</h1></header>' } })
 * const [doc] = renderer.render(input, { template: 'prescription' })
 * doc.html.includes('<header><h1>Sanjeevani Family Clinic</h1></header>') //=> true
 */
export async function createRenderer(sources: TemplateSources = {}): Promise<Renderer> {
  const userTemplates = ownStrings(sources.templates as Readonly<Record<string, unknown>> | undefined, 'templates');
  const userPartials = ownStrings(sources.partials as Readonly<Record<string, unknown>> | undefined, 'partials');
  if (userTemplates.length === 0 && userPartials.length === 0) return makeRenderer(registerBundled(createRuntimeEnv()), BUNDLED_PARTIAL_NAMES);
  const env = await createCompilerEnv();
  const templates = registerBundled(env);
  const partialNames = new Set<string>(BUNDLED_PARTIAL_NAMES);
  for (const [name] of userPartials) partialNames.add(name);
  const uses: Array<[string, string[]]> = [];
  for (const [name, source] of userPartials) {
    const label = `partials/${name}`;
    const c = compileUserTemplate(env, label, source);
    env.registerPartial(name, c.fn);
    uses.push([label, c.partials]);
  }
  for (const [name, source] of userTemplates) {
    const c = compileUserTemplate(env, name, source);
    templates.set(name, c.fn);
    uses.push([name, c.partials]);
  }
  for (const [label, used] of uses) {
    for (const p of used)
      if (!partialNames.has(p)) throw new TemplateError(label, 'unknown-partial', `uses the partial ${p}, which does not exist; the partials are ${[...partialNames].sort().join(', ')}`);
  }
  return makeRenderer(templates, [...partialNames]);
}

/**
 * Reads a templates directory laid out like the bundled one: `*.hbs`
 * templates and `partials/*.hbs` partials (a missing `partials/` is fine).
 * Pass the result to {@link createRenderer}.
 *
 * @throws the file-system error when `dir` cannot be read; TemplateError for a file name that is not a template name
 * @example
 * const renderer = await createRenderer(await readTemplateDirectory('./my-templates'))
 * renderer.templates //=> ['lab-order', 'my-prescription', 'prescription', 'visit-summary']
 */
export async function readTemplateDirectory(dir: string): Promise<{ templates: Record<string, string>; partials: Record<string, string> }> {
  const read = async (d: string, optional: boolean): Promise<Record<string, string>> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch (e) {
      if (optional && (e as { code?: string }).code === 'ENOENT') return {};
      throw e;
    }
    const out: Record<string, string> = {};
    for (const e of entries) {
      if (!e.isFile() || !e.name.endsWith('.hbs')) continue;
      const name = e.name.slice(0, -'.hbs'.length);
      if (!isTemplateName(name)) throw new TemplateError(e.name, 'bad-name', 'template file names are lower-case letters, digits and - followed by .hbs');
      out[name] = await readFile(join(d, e.name), 'utf8');
    }
    return out;
  };
  return { templates: await read(dir, false), partials: await read(join(dir, 'partials'), true) };
}

/**
 * The directory of the bundled template sources (`templates/` of the
 * package), to copy as a starting point for your own.
 *
 * @example
 * bundledTemplateDirectory() //=> '/app/node_modules/abha-link/templates'
 */
export function bundledTemplateDirectory(): string {
  return fileURLToPath(new URL('../../templates', import.meta.url));
}
