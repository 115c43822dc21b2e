import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isPdfUnavailableError, isTemplateError } from '../../render/errors.js';
import { LANGUAGES, MESSAGES, isLanguage, type Language } from '../../render/messages/index.js';
import { PAGE_SIZES, type CustomData, type PageSize, type PrintPatient } from '../../render/model.js';
import { createPdfPrinter } from '../../render/pdf.js';
import { checkCustom } from '../../render/visit.js';
import { validate } from '../../validation/validate.js';
import { TEMPLATE_NAMES, createRenderer, readTemplateDirectory, type RenderedDocument, type Renderer } from '../../render/render.js';
import { isTemplateName } from '../../render/template-rules.js';
import { plural } from '../../util.js';
import { fileCountError, missingValueError, optionError, defineCommand } from '../command.js';
import { EXIT, cliIo, UsageError, decodeUtf8, issueLines, readJsonInput, readRegularFile, writeOut } from '../io.js';
import { exists } from '../files.js';
import { writeListedFiles, writeOutputFile } from '../output-files.js';

/** A template is a page of markup: 1 MiB is far more than one needs. */
const MAX_TEMPLATE_BYTES = 1024 * 1024;

/** What `abha-link render` runs with, after its options are checked. */
export interface RenderArgs {
  file: string | undefined;
  /** A bundled template name or the path of a .hbs file; undefined: each care context's record template (discharge summary, immunisation certificate, wellness, invoice) by its hiType, else prescription. */
  template: string | undefined;
  /** One language, or two for a bilingual document. */
  lang: readonly Language[];
  pageSize: PageSize;
  outDir: string | undefined;
  outFile: string | undefined;
  pdf: boolean;
  /** Replace a file or link already at an output name (never writing through a link) instead of taking the next free name (--out) or refusing (-o). */
  force: boolean;
  /** Chromium executable for --pdf: --chromium, else ABHA_LINK_CHROMIUM, else the usual places. */
  chromium: string | undefined;
  now: Date;
  /** Drug names in capitals. */
  caps?: boolean;
  /** A JSON file with the patient (for a link request, which carries no name). */
  patientFile?: string | undefined;
  /** A JSON file with an object passed to templates as `custom`. */
  customFile?: string | undefined;
}

/** The --patient file: a patient as a clinical input gives it (abhaAddress optional), or undefined after printing its issues. */
async function readPatient(file: string): Promise<PrintPatient | undefined> {
  const input = await readJsonInput(file, { regularOnly: true });
  if (input === undefined) throw new UsageError(`${file}: --patient must be a JSON file`);
  if (input.value === null || typeof input.value !== 'object' || Array.isArray(input.value))
    throw new UsageError(`${input.name}: --patient must hold a JSON object (name, gender, birthDate or age, ...)`);
  // The schema asks for abhaAddress, which a link request already has: a placeholder stands in when the file has none.
  const value = input.value as Record<string, unknown>;
  const r = validate('patient-input', { abhaAddress: 'placeholder@sbx', ...value });
  if (!r.success) {
    cliIo().stderr.write(`${issueLines(r.issues, input.name, input.lineOf)}${input.name}: cannot use the patient: ${plural(r.issues.length, 'error')}\n`);
    return undefined;
  }
  return value as PrintPatient;
}

/** The --custom file: a JSON object of at most 64 KiB. */
async function readCustom(file: string): Promise<CustomData> {
  const input = await readJsonInput(file, { regularOnly: true });
  if (input === undefined) throw new UsageError(`${file}: --custom must be a JSON file`);
  try {
    return checkCustom(input.value);
  } catch (e) {
    if (e instanceof TypeError) throw new UsageError(`${input.name}: --custom: ${e.message}`);
    throw e;
  }
}

/** Loads the renderer: the bundled templates, or a .hbs file with the partials/ beside it. Returns the renderer and the template name to use. */
async function loadRenderer(template: string): Promise<{ renderer: Renderer; name: string }> {
  if (TEMPLATE_NAMES.includes(template)) return { renderer: await createRenderer(), name: template };
  const looksLikePath = template.includes('/') || template.includes('\\') || template.endsWith('.hbs');
  if (!looksLikePath && !(await exists(template))) throw optionError('template', `${TEMPLATE_NAMES.join(', ')} or the path of a .hbs file`, { given: template, choices: TEMPLATE_NAMES });
  const bytes = (await readRegularFile(template, { maxBytes: MAX_TEMPLATE_BYTES })).bytes;
  const base = basename(template)
    .replace(/\.hbs$/i, '')
    .toLowerCase();
  const name = isTemplateName(base) ? base : 'custom';
  const source = decodeUtf8(bytes, template);
  let partials: Record<string, string> = {};
  try {
    partials = (await readTemplateDirectory(join(dirname(template), 'partials'))).templates;
  } catch (e) {
    if (isTemplateError(e)) throw e;
    if ((e as { code?: string }).code !== 'ENOENT' && (e as { code?: string }).code !== 'ENOTDIR') throw new UsageError(`${join(dirname(template), 'partials')}: cannot be read`);
  }
  return { renderer: await createRenderer({ templates: { [name]: source }, partials }), name };
}

async function toPdf(docs: readonly RenderedDocument[], chromium: string | undefined): Promise<Uint8Array[] | undefined> {
  let printer;
  try {
    printer = await createPdfPrinter(chromium === undefined ? {} : { executablePath: chromium });
  } catch (e) {
    if (isPdfUnavailableError(e)) {
      cliIo().stderr.write(`abha-link: ${e.message}\n`);
      return undefined;
    }
    throw e;
  }
  try {
    const out: Uint8Array[] = [];
    for (const d of docs) {
      try {
        out.push(await printer.pdf(d.html, { pageSize: d.pageSize }));
      } catch (e) {
        const first = (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
        cliIo().stderr.write(`abha-link: could not print ${d.fileName} to PDF (${first.slice(0, 200)})\n`);
        return undefined;
      }
    }
    return out;
  } finally {
    await printer.close();
  }
}

/**
 * `abha-link render`: returns the exit code.
 *
 * @example
 * await runRender({ file: 'visit.json', template: 'prescription', lang: ['en'], pageSize: 'A4', outDir: 'out', outFile: undefined, pdf: false, force: false, chromium: undefined, now: new Date() }) //=> 0
 */
export async function runRender(args: RenderArgs): Promise<number> {
  if (args.outDir !== undefined && args.outFile !== undefined) throw new UsageError('give either --out DIR or -o FILE, not both');
  if (args.force && args.outDir === undefined && args.outFile === undefined) throw new UsageError('--force applies to the files of --out DIR or -o FILE');
  let loaded: { renderer: Renderer; name: string | undefined };
  try {
    loaded = args.template === undefined ? { renderer: await createRenderer(), name: undefined } : await loadRenderer(args.template);
  } catch (e) {
    if (isTemplateError(e)) throw new UsageError(e.message);
    throw e;
  }
  const custom = args.customFile === undefined ? undefined : await readCustom(args.customFile);
  const patient = args.patientFile === undefined ? undefined : await readPatient(args.patientFile);
  if (args.patientFile !== undefined && patient === undefined) return EXIT.invalid;
  const input = await readJsonInput(args.file);
  if (input === undefined) return EXIT.usage;
  const { name, lineOf } = input;
  let r;
  try {
    r = loaded.renderer.safeRender(input.value, {
      ...(loaded.name === undefined ? {} : { template: loaded.name }),
      lang: args.lang,
      pageSize: args.pageSize,
      lint: { now: args.now },
      caps: args.caps === true,
      ...(custom === undefined ? {} : { custom }),
      ...(patient === undefined ? {} : { patient }),
    });
  } catch (e) {
    if (isTemplateError(e)) throw new UsageError(e.message);
    throw e;
  }
  if (!r.success) {
    const errors = r.issues.filter((i) => i.severity === 'error').length;
    cliIo().stderr.write(`${issueLines(r.issues, name, lineOf)}${name}: cannot render: ${plural(errors, 'error')}\n`);
    return EXIT.invalid;
  }
  if (r.warnings.length > 0) cliIo().stderr.write(issueLines(r.warnings, name, lineOf));
  const docs = r.documents;
  if (docs.length > 1 && args.outDir === undefined) throw new UsageError(`the input has ${docs.length} care contexts, so ${docs.length} documents: give --out DIR to write one file per document`);
  if (args.pdf && args.outDir === undefined && args.outFile === undefined && cliIo().stdout.isTTY)
    throw new UsageError('--pdf writes binary data: give -o FILE or --out DIR, or redirect standard output');

  const bodies: Array<string | Uint8Array> = args.pdf ? ((await toPdf(docs, args.chromium)) ?? []) : docs.map((d) => d.html);
  if (bodies.length !== docs.length) return EXIT.invalid;
  const ext = args.pdf ? 'pdf' : 'html';
  if (args.outDir !== undefined) {
    try {
      await mkdir(args.outDir, { recursive: true });
    } catch {
      throw new UsageError(`${args.outDir}: cannot create the directory`);
    }
    await writeListedFiles(
      args.outDir,
      docs.map((d, i) => ({ stem: d.fileName, ext, body: bodies[i] ?? '' })),
      args.force,
    );
  } else if (args.outFile !== undefined) {
    await writeOutputFile(args.outFile, bodies[0] ?? '', { force: args.force });
  } else {
    const body = bodies[0] ?? '';
    await writeOut(typeof body === 'string' ? body : '');
    if (typeof body !== 'string') await new Promise<void>((resolve) => cliIo().stdout.write(body, () => resolve()));
  }
  return EXIT.ok;
}

/** `en (English), hi (हिन्दी), …` for the help text. */
const LANGUAGE_LIST = LANGUAGES.join(', ');

/** `--lang hi` or `--lang en,hi`: one language, or two different ones; the error lists the languages. */
function parseLanguages(value: string): Language[] {
  const parts = value.split(',').map((s) => s.trim().toLowerCase());
  const expected = `one of ${LANGUAGES.map((l) => `${l} (${MESSAGES[l].name})`).join(', ')}, or two of them for a bilingual document (en,hi)`;
  const bad = parts.find((p) => !isLanguage(p));
  if (bad !== undefined) throw optionError('lang', expected, { given: bad, choices: LANGUAGES });
  if (parts.length > 2 || parts[0] === parts[1]) throw optionError('lang', expected);
  return parts as Language[];
}

export const command = defineCommand({
  usage: 'abha-link render [--template NAME|PATH] [--lang LANG[,LANG]] [--size A4|A5] [--caps] [--patient FILE] [--custom FILE] [--out DIR|-o FILE] [--force] [--pdf] [--chromium PATH] [FILE|-]',
  help: `Renders printable documents, one per care context (the visit summary: one
per visit, gathering every care context): standalone HTML (inline
CSS, no scripts, no external requests) that prints cleanly from a browser, or
PDF with --pdf. The input is a clinical input (see examples/*.input.json) or
a link request (the 4.12 body); it is validated and linted first, and every
problem is listed on stderr as FILE:LINE PATH MESSAGE (code), exit code 1.
Reads stdin when FILE is - or absent.

With one document and neither --out nor -o, the document goes to stdout.

Options:
  --template NAME|PATH  prescription, lab-order, visit-summary,
                        discharge-summary, immunisation-certificate, wellness,
                        invoice, or the path of your own .hbs template (a
                        regular file). Default: discharge-summary,
                        immunisation-certificate, wellness or invoice for a
                        care context of that record type, else prescription;
                        partials/*.hbs beside it replace the bundled partials
                        of the same name (letterhead, footer, ...). Templates
                        run in strict mode and must not use {{{ }}}; a
                        template that does not compile exits 2.
  --lang LANG[,LANG]    the document's language (default en):
                        ${LANGUAGE_LIST};
                        two, such as en,hi, print every label and phrase in
                        both (data once). Drug names and free text are printed
                        as given
  --size A4|A5          page size (default A4)
  --caps                drug names (brand and generic) in capital letters
  --patient FILE        the patient (JSON: name, gender, birthDate or age,
                        ...) for a link request, which carries no name;
                        without it the page has a blank line for the name
                        and a warning says so
  --custom FILE         a JSON object (at most 64 KiB) passed to templates as
                        custom; the bundled letterhead prints
                        custom.letterheadLines and custom.timings
  --out DIR             write one file per document into DIR, named after the
                        care-context reference (REF.html or REF.pdf), and list
                        the files on stdout; needed when there are several.
                        Files are created new: nothing is overwritten and no
                        symbolic link is followed (see --force)
  -o, --output FILE     write the one document to FILE
  --force               replace a file or link already at an output name (the
                        link itself, never what it points at); without it, an
                        --out name that is taken gets the next free name
                        (REF-2.html...) and -o FILE refuses (exit 2)
  --pdf                 write PDF instead of HTML; needs playwright-core and a
                        Chromium on this machine (Debian/Ubuntu: apt-get install
                        chromium). Nothing is downloaded.
  --chromium PATH       the Chromium executable for --pdf (default: the
                        ABHA_LINK_CHROMIUM environment variable, else the usual
                        places such as /usr/bin/chromium)
  -h, --help            show this help
  -v, --version         print the version`,
  options: {
    template: { type: 'string' },
    lang: { type: 'string' },
    size: { type: 'string' },
    out: { type: 'string' },
    output: { type: 'string', short: 'o' },
    pdf: { type: 'boolean' },
    force: { type: 'boolean' },
    chromium: { type: 'string' },
    caps: { type: 'boolean' },
    patient: { type: 'string' },
    custom: { type: 'string' },
  },
  run({ values, positionals }) {
    if (positionals.length > 1) throw fileCountError('render', 1, positionals.length);
    const lang = parseLanguages(values.lang ?? 'en');
    const size = (values.size ?? 'A4').toUpperCase();
    if (!(PAGE_SIZES as readonly string[]).includes(size)) throw optionError('size', PAGE_SIZES.join(' or '), { given: size, choices: PAGE_SIZES });
    const template = values.template;
    if (template === '') throw missingValueError('template');
    const chromium = values.chromium ?? (cliIo().env.ABHA_LINK_CHROMIUM || undefined);
    return runRender({
      file: positionals[0],
      template,
      lang,
      pageSize: size as PageSize,
      outDir: values.out,
      outFile: values.output,
      pdf: values.pdf,
      force: values.force,
      chromium,
      now: cliIo().now(),
      caps: values.caps,
      patientFile: values.patient,
      customFile: values.custom,
    });
  },
});
