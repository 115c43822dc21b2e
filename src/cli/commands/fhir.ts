import { detectInputKind } from '../../input-kind.js';
import { lstat, mkdir, readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import type { ClinicalInput, LinkCareContextRequest } from '../../generated/types.js';
import { validate } from '../../validation/validate.js';
import { FHIR_HI_TYPES, isFhirHiType } from '../../fhir/constants.js';
import { fromFhir } from '../../fhir/from-fhir.js';
import type { Bundle } from '../../fhir/r4.js';
import { toFhirBundles, type FhirAttachmentInput } from '../../fhir/to-fhir.js';
import { validateFhirBundle } from '../../fhir/nrces/validate.js';
import { uniqueFileName } from '../../render/file-name.js';
import { plural } from '../../util.js';
import { fileCountError, missingValueError, optionError, defineCommand } from '../command.js';
import { EXIT, cliIo, UsageError, issueLines, readJsonInput, writeOut } from '../io.js';
import { writeListedFiles } from '../output-files.js';
import { printedDocuments } from '../embed-pdf.js';
import { readIcd10TitlesFile } from '../icd10-titles.js';

export interface FhirArgs {
  file: string | undefined;
  fromFhir: string | undefined;
  hiType: string | undefined;
  out: string | undefined;
  attach: readonly string[];
  /** Replace a file or link already at an --out name (never writing through a link) instead of taking the next free name. */
  force: boolean;
  timestamp: Date;
  /** --embed-pdf: print each care context's page (Chromium) and carry the PDF in its bundle. */
  embedPdf?: boolean;
  /** Chromium executable for --embed-pdf: --chromium, else ABHA_LINK_CHROMIUM, else the usual places. */
  chromium?: string | undefined;
  /** Whether --chromium itself was given (it needs --embed-pdf). */
  chromiumGiven?: boolean;
  /** The clock, for the lint rule "visit date in the future" (as build and render run it). */
  now: Date;
  /** --icd10-titles FILE: the hospital's ICD-10 title table (CSV, TSV or ClaML), so that ICD-10 codes become codings. */
  icd10TitlesFile?: string | undefined;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.txt': 'text/plain',
  '.xml': 'application/xml',
  '.json': 'application/json',
};

/** `URL=FILE` → the document's bytes, keyed by its URL, and which file each URL came from. */
async function readAttachments(specs: readonly string[]): Promise<{ attachments: Record<string, FhirAttachmentInput>; files: Array<{ url: string; file: string }> }> {
  const out: Record<string, FhirAttachmentInput> = {};
  const files: Array<{ url: string; file: string }> = [];
  for (const spec of specs) {
    const eq = spec.lastIndexOf('=');
    if (eq <= 0 || eq === spec.length - 1) throw optionError('attach', 'URL=FILE (the documentUrl, then the file holding that document)');
    const url = spec.slice(0, eq);
    const file = spec.slice(eq + 1);
    const contentType = CONTENT_TYPES[extname(file).toLowerCase()];
    if (contentType === undefined) throw new UsageError(`--attach: cannot tell the content type of ${file}; use a file ending in ${Object.keys(CONTENT_TYPES).join(', ')}`);
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch {
      throw new UsageError(`--attach: ${file} cannot be read`);
    }
    if (data.length === 0) throw new UsageError(`--attach: ${file} is empty`);
    out[url] = { contentType, data };
    files.push({ url, file });
  }
  return { attachments: out, files };
}

/** A plain file name: what a documentUrl's last segment must be to be looked for beside the input. */
const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

/**
 * The documents of the documentUrls no --attach gave, from files beside the input named as the URL's
 * last segment (`…/reports/GVH-LAB-2026-88120.pdf` → `GVH-LAB-2026-88120.pdf` in the input's folder):
 * a regular file (not a link), with a known extension, not empty. Each one used is named on stderr.
 */
async function documentsBesideInput(file: string, urls: ReadonlySet<string>, attachments: Record<string, FhirAttachmentInput>): Promise<void> {
  for (const url of urls) {
    if (Object.hasOwn(attachments, url) || !URL.canParse(url)) continue;
    const segment = new URL(url).pathname.split('/').pop() ?? '';
    const contentType = CONTENT_TYPES[extname(segment).toLowerCase()];
    if (!PLAIN_NAME.test(segment) || contentType === undefined) continue;
    const path = join(dirname(file), segment);
    try {
      if (!(await lstat(path)).isFile()) continue;
      const data = await readFile(path);
      if (data.length === 0) continue;
      attachments[url] = { contentType, data };
      cliIo().stderr.write(`abha-link: embedding ${path} as the document of a documentUrl that no --attach gave (the file of that name beside the input)\n`);
    } catch {
      // No such file: the conversion says the document's bytes are needed.
    }
  }
}

/** Every documentUrl of a clinical input or link request (top level, per care context, in bundleData). */
function documentUrls(value: unknown, found = new Set<string>(), depth = 0): Set<string> {
  if (depth > 4 || value === null || typeof value !== 'object') return found;
  if (Array.isArray(value)) {
    for (const v of value) documentUrls(v, found, depth + 1);
    return found;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === 'documentUrl' && typeof v === 'string') found.add(v);
    else if (k === 'careContexts' || k === 'bundleData') documentUrls(v, found, depth + 1);
  }
  return found;
}

async function runFromFhir(args: FhirArgs): Promise<number> {
  const input = await readJsonInput(args.fromFhir, { regularOnly: true });
  if (input === undefined) return EXIT.usage;
  const { name, lineOf } = input;
  const r = fromFhir(input.value as Bundle, args.hiType !== undefined ? { defaults: { hiType: args.hiType } } : {});
  if (!r.success) {
    const errors = r.issues.filter((i) => i.severity === 'error').length;
    cliIo().stderr.write(`${issueLines(r.issues, name, lineOf)}${name}: cannot make a clinical input: ${plural(errors, 'error')}\n`);
    return EXIT.invalid;
  }
  if (r.warnings.length > 0) cliIo().stderr.write(issueLines(r.warnings, name, lineOf));
  await writeOut(`${JSON.stringify(r.value, null, 2)}\n`);
  return EXIT.ok;
}

/** `abha-link fhir`: returns the exit code. */
export async function runFhir(args: FhirArgs): Promise<number> {
  if (args.fromFhir !== undefined) {
    if (args.file !== undefined) throw new UsageError('give either --from-fhir FILE or a clinical input / link request FILE, not both');
    if (args.out !== undefined || args.attach.length > 0 || args.force || args.embedPdf === true || args.icd10TitlesFile !== undefined)
      throw new UsageError('--out, --force, --attach, --embed-pdf and --icd10-titles apply to FHIR output, not to --from-fhir');
    return runFromFhir(args);
  }
  if (args.force && args.out === undefined) throw new UsageError('--force applies to the files of --out DIR');
  if (args.chromiumGiven === true && args.embedPdf !== true) throw new UsageError('--chromium applies to --embed-pdf');
  if (args.hiType !== undefined && !isFhirHiType(args.hiType)) throw optionError('hi-type', `one of ${FHIR_HI_TYPES.join(', ')} for FHIR output`, { given: args.hiType, choices: FHIR_HI_TYPES });
  const { attachments, files } = await readAttachments(args.attach);
  const icd10Titles = args.icd10TitlesFile === undefined ? undefined : (await readIcd10TitlesFile(args.icd10TitlesFile)).titles;
  const read = await readJsonInput(args.file, { regularOnly: true });
  if (read === undefined) return EXIT.usage;
  const { name, lineOf } = read;
  // Which document is it? A clinical input or a link request (the 4.12 body), by the core schemas.
  const value = read.value;
  const asInput = validate('clinical-input', value);
  const asRequest = asInput.success ? undefined : validate('link-carecontext-request', value);
  if (!asInput.success && asRequest?.success !== true) {
    const looksLikeRequest = detectInputKind(value) === 'link-request';
    const issues = looksLikeRequest ? (asRequest?.issues ?? []) : asInput.issues;
    cliIo().stderr.write(
      `${issueLines(issues, name, lineOf)}${name}: not a valid ${looksLikeRequest ? 'link request (link-carecontext-request)' : 'clinical input (clinical-input)'}: ${plural(issues.length, 'error')}\n`,
    );
    return EXIT.invalid;
  }
  const input = value as ClinicalInput | LinkCareContextRequest;
  // An --attach whose URL is no documentUrl of the input would be silently ignored: say so (the file, never the URL).
  const urls = documentUrls(input);
  for (const f of files)
    if (!urls.has(f.url)) cliIo().stderr.write(`abha-link: warning: --attach ${f.file}: its URL is not the documentUrl of any care context of ${name}; the file is not embedded\n`);
  if (args.file !== undefined && args.file !== '-') await documentsBesideInput(args.file, urls, attachments);
  const printed = args.embedPdf === true ? await printedDocuments({ input, name, lineOf, hiType: args.hiType, chromium: args.chromium, now: args.now }) : undefined;
  if (args.embedPdf === true && printed === undefined) return EXIT.invalid;
  const r = toFhirBundles(input, {
    timestamp: args.timestamp,
    ...(args.hiType !== undefined ? { hiType: args.hiType } : {}),
    attachments,
    ...(icd10Titles !== undefined ? { icd10Titles } : {}),
    ...(printed !== undefined ? { printedDocuments: printed } : {}),
    lint: { now: args.now },
  });
  if (!r.success) {
    const errors = r.issues.filter((i) => i.severity === 'error').length;
    cliIo().stderr.write(`${issueLines(r.issues, name, lineOf)}${name}: cannot make FHIR documents: ${plural(errors, 'error')}\n`);
    return EXIT.invalid;
  }
  if (r.warnings.length > 0) cliIo().stderr.write(issueLines(r.warnings, name, lineOf));
  // Every bundle is checked before it is written.
  let invalid = 0;
  for (const d of r.bundles) {
    const v = validateFhirBundle(d.bundle);
    if (!v.success) {
      invalid++;
      cliIo().stderr.write(issueLines(v.issues, `bundle ${d.referenceNumber}`, () => 0).replace(/:0 /g, ' '));
    }
  }
  if (invalid > 0) {
    // abha-link built these bundles from valid input: a failure here is ours, not the caller's data.
    cliIo().stderr.write(`${name}: ${plural(invalid, 'bundle')} failed FHIR validation; nothing was written (this is a bug in abha-link: please report it)\n`);
    return EXIT.internal;
  }
  if (args.out === undefined) {
    if (r.bundles.length > 1) throw new UsageError(`${r.bundles.length} care contexts make ${r.bundles.length} bundles: give --out DIR to write one file per care context`);
    await writeOut(`${JSON.stringify(r.bundles[0]?.bundle, null, 2)}\n`);
    return EXIT.ok;
  }
  try {
    await mkdir(args.out, { recursive: true });
  } catch {
    throw new UsageError(`--out: ${args.out} cannot be created`);
  }
  const taken = new Set<string>();
  const outputs = r.bundles.map((d) => ({ stem: uniqueFileName(d.referenceNumber, taken), ext: 'json', body: `${JSON.stringify(d.bundle, null, 2)}\n` }));
  await writeListedFiles(args.out, outputs, args.force);
  return EXIT.ok;
}

export const command = defineCommand({
  usage:
    'abha-link fhir [--hi-type T] [--out DIR [--force]] [--attach URL=FILE]... [--icd10-titles FILE] [--embed-pdf [--chromium PATH]] [FILE|-]\n       abha-link fhir --from-fhir FILE|- [--hi-type T]\n       abha-link fhir validate [--format text|json|outcome] [--strict] FILE|-...',
  help: `Turns a clinical input or a link request (the body of POST
/api/m2/multiple/link-carecontext) into NRCeS FHIR R4 document bundles, one
per care context, each following the record profile of its hiType
(PrescriptionRecord, OPConsultRecord, DiagnosticReportRecord,
HealthDocumentRecord, DischargeSummaryRecord, ImmunizationRecord,
WellnessRecord, InvoiceRecord). Reads stdin when FILE is - or absent; a named
FILE must be a regular file. The input is validated and linted first, as build
does (a visit in the future, an http documentUrl... exit 1), and every bundle
is validated before it is written. With --from-fhir, does the reverse: a FHIR
Bundle or array of resources becomes a clinical input JSON on stdout.

One bundle is printed as JSON on stdout; several need --out DIR, where each
is written to a file named after its care-context reference (the paths are
printed). Problems are listed on stderr as FILE:LINE PATH MESSAGE (code);
warnings (content the profile has no place for, elements not mapped) do not
change the exit code.

abha-link fhir validate checks any FHIR R4 bundle or resource (not only
abha-link's) offline against base R4 and the NRCeS IG 6.5.0 profiles its
resources declare in meta.profile: cardinality, types, fixed values, slicing,
bindings, reference targets and invariants; a document whose Composition
declares no profile is checked as the record profile its type implies. Issues
go to stdout as FILE:LINE PATH MESSAGE (code), PATH a FHIRPath location such
as Bundle.entry[3].resource.section[0]; at most 1,000 per file. A rule it
cannot decide is reported as information (unevaluated); --strict makes that
an error. Exit 0 valid, 1 invalid, 2 unreadable or not JSON.

Options:
  --hi-type T          emit every care context as hiType T (any of ABDM's
                       eight); with --from-fhir, the hiType of the clinical
                       input
  --out DIR            write one file per care context into DIR; files are
                       created new: a name that is taken (an earlier file, a
                       symbolic link) gets the next free name (REF-2.json...)
  --force              with --out, replace a file or link at the name instead
                       (the link itself, never what it points at)
  --attach URL=FILE    embed FILE as the document of documentUrl URL (NRCeS
                       needs the bytes, not the URL); repeatable; the content
                       type comes from the extension (.pdf .png .jpg .jpeg .txt
                       .xml .json). Without it, a file beside FILE named as
                       the URL's last segment is embedded (stderr says so)
  --icd10-titles FILE  the hospital's ICD-10 title table: CSV or TSV rows of
                       code and title, or WHO's ClaML XML; an icdCode with a
                       title becomes an ICD-10 coding (NRCeS needs the
                       title as its display; abha-link ships no table)
  --embed-pdf          print each care context's page (the prescription
                       template for a Prescription, the visit summary for
                       the others) to PDF and carry it in its bundle, where
                       the record profile has a place for a document; needs
                       playwright-core and a Chromium on this machine
                       (nothing is downloaded); without them, exit 1 saying
                       what to install
  --chromium PATH      the Chromium for --embed-pdf (default: the
                       ABHA_LINK_CHROMIUM environment variable, else the
                       usual places such as /usr/bin/chromium)
  --timestamp ISO      Bundle.timestamp (default: now), e.g.
                       2026-11-20T10:30:00+05:30
  --from-fhir FILE     FHIR Bundle or array of resources -> clinical input
  --format F           with validate: text (default) for people; json: one
                       object per file {file, valid, issues}; outcome: a FHIR
                       OperationOutcome per file (one per line for several)
  --strict             with validate: a rule that cannot be decided
                       (unevaluated) is an error, not information
  -h, --help           show this help
  -v, --version        print the version`,
  options: {
    'hi-type': { type: 'string' },
    out: { type: 'string' },
    attach: { type: 'string', multiple: true },
    force: { type: 'boolean' },
    timestamp: { type: 'string' },
    'from-fhir': { type: 'string' },
    'embed-pdf': { type: 'boolean' },
    chromium: { type: 'string' },
    'icd10-titles': { type: 'string' },
    format: { type: 'string' },
    strict: { type: 'boolean' },
  },
  async run({ values, positionals }) {
    if (positionals[0] === 'validate') {
      const other = (['hi-type', 'out', 'attach', 'force', 'timestamp', 'from-fhir', 'icd10-titles'] as const).find((o) =>
        o === 'attach' ? values.attach.length > 0 : o === 'force' ? values.force : values[o] !== undefined,
      );
      if (other !== undefined) throw new UsageError(`--${other} does not apply to abha-link fhir validate (it takes --format and --strict)`);
      const format = values.format ?? 'text';
      if (format !== 'text' && format !== 'json' && format !== 'outcome') throw optionError('format', 'text, json or outcome', { given: format, choices: ['text', 'json', 'outcome'] });
      const { runFhirValidate } = await import('./fhir-validate.js');
      return runFhirValidate(positionals.slice(1), format, { strict: values.strict });
    }
    if (values.format !== undefined) throw new UsageError('--format applies to abha-link fhir validate');
    if (values.strict) throw new UsageError('--strict applies to abha-link fhir validate');
    if (positionals.length > 1) throw fileCountError('fhir', 1, positionals.length);
    const ts = values.timestamp;
    const now = cliIo().now();
    let timestamp = now;
    if (ts !== undefined) {
      timestamp = new Date(ts);
      if (Number.isNaN(timestamp.getTime()) || !/T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(ts))
        throw optionError('timestamp', 'an ISO date-time with seconds and an offset, e.g. 2026-11-20T10:30:00+05:30');
    }
    const hiType = values['hi-type'];
    if (hiType !== undefined && hiType.trim() === '') throw missingValueError('hi-type');
    return runFhir({
      file: positionals[0],
      fromFhir: values['from-fhir'],
      hiType,
      out: values.out,
      attach: values.attach,
      force: values.force,
      timestamp,
      embedPdf: values['embed-pdf'],
      chromium: values.chromium ?? (cliIo().env.ABHA_LINK_CHROMIUM || undefined),
      chromiumGiven: values.chromium !== undefined,
      now,
      icd10TitlesFile: values['icd10-titles'],
    });
  },
});
