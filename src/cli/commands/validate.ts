import type { Issue } from '../../errors.js';
import type { LinkCareContextRequest } from '../../generated/types.js';
import type { lintLinkRequest } from '../../validation/lint.js';
import { detectInputKind } from '../../input-kind.js';
import { SCHEMA_MANIFEST } from '../../generated/manifest.js';
import type { SchemaName } from '../../generated/manifest.js';
import { isSchemaName, loadValidate, type ValidationResult } from '../../validation/validate-core.js';
import { plural } from '../../util.js';
import { optionError, defineCommand } from '../command.js';
import { expandInputs, hasPattern } from '../files.js';
import {
  EXIT,
  cliIo,
  UsageError,
  inputName,
  issueLines,
  outputClosed,
  stopForClosedOutput,
  parseJson,
  pointerLocator,
  problemLine,
  readText,
  streamLines,
  writeOut,
  type JsonSyntaxProblem,
  type NdjsonLine,
} from '../io.js';
import { didYouMean } from '../../suggest.js';

export interface ValidateArgs {
  schema: string;
  ndjson: boolean;
  format: 'text' | 'json';
  lint: boolean;
  /** The inputs (FILE arguments after glob expansion; `-` is stdin). */
  files: readonly string[];
  /** Name the file in each JSON result (several FILE arguments or a pattern were given). */
  nameFiles: boolean;
  /** Show unknown keys themselves in issue paths (they can be data: a mobile number typed as a key). */
  showKeys: boolean;
  now: Date;
  /** Threads for --ndjson: the main one and jobs - 1 workers (default: see jobsFor). */
  jobs?: number;
}

/** One input of a run: the file, and the run's options. */
interface OneInput extends ValidateArgs {
  file: string | undefined;
}

/** Documents counted over every input of a run. */
interface Counts {
  docs: number;
  invalid: number;
  broken: number;
}

export interface DocResult {
  index: number;
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
  syntax?: JsonSyntaxProblem;
  /** Advice for a document that is not what the schema expects (a clinical input given as a link request). */
  hint?: string;
}

const LINK_SCHEMA = 'link-carecontext-request';

let lintRules: typeof lintLinkRequest | undefined;
let schemaCheck: { readonly schema: string; readonly validate: (value: unknown, options: { revealKeys: boolean }) => ValidationResult<unknown> } | undefined;

/**
 * Loads what the checks of a run need before its first document, on the main
 * thread and in each worker: the validator module of the run's schema alone
 * (not the other schemas'), and the lint rules (and the builders they read)
 * only with --lint.
 */
export async function prepareChecks(args: Pick<ValidateArgs, 'schema' | 'lint'>): Promise<void> {
  if (schemaCheck?.schema !== args.schema) schemaCheck = { schema: args.schema, validate: await loadValidate(args.schema as SchemaName) };
  if (args.lint) lintRules ??= (await import('../../validation/lint.js')).lintLinkRequest;
}
const CLINICAL_INPUT_HINT = 'this is a clinical input: run `abha-link build`, or pass `--schema clinical-input`';

/** Lint findings of a document that passed the schema, or of one that did not (see lintBesideSchema); none without --lint. */
function lintFindings(value: unknown, args: ValidateArgs, schemaIssues: readonly Issue[]): Issue[] {
  if (!args.lint || args.schema !== LINK_SCHEMA) return [];
  if (lintRules === undefined) throw new Error('internal: the lint rules were not loaded (prepareChecks)');
  return schemaIssues.length === 0 ? lintRules(value as LinkCareContextRequest, { now: args.now }) : lintBesideSchema(lintRules, value, schemaIssues, args.now);
}

/**
 * The lint rules of a document the schema refused, so that every issue comes
 * in one pass: findings at or under a path the schema already refused are
 * left out (they read a value of the wrong shape), and a rule that cannot
 * read the document at all gives none.
 */
function lintBesideSchema(rules: typeof lintLinkRequest, value: unknown, schemaIssues: readonly Issue[], now: Date): Issue[] {
  if (schemaIssues.some((i) => i.path === '')) return [];
  const refused = (p: string): boolean => schemaIssues.some((i) => p === i.path || p.startsWith(`${i.path}/`) || i.path.startsWith(`${p}/`));
  let findings: readonly Issue[];
  try {
    findings = rules(value as LinkCareContextRequest, { now });
  } catch {
    return [];
  }
  return findings.filter((f) => !refused(f.path));
}

function check(value: unknown, args: ValidateArgs, index: number): DocResult {
  if (schemaCheck?.schema !== args.schema) throw new Error('internal: the validator was not loaded (prepareChecks)');
  const r = schemaCheck.validate(value, { revealKeys: args.showKeys });
  // A document of another kind (a clinical input given as a link request) gets a hint, not the link request's lint rules.
  const clinical = !r.success && args.schema !== 'clinical-input' && detectInputKind(value) === 'clinical-input';
  const findings = clinical ? [] : lintFindings(value, args, r.success ? [] : r.issues);
  const errors = findings.filter((f) => f.severity === 'error');
  const warnings = findings.filter((f) => f.severity === 'warning');
  if (!r.success) return { index, valid: false, errors: [...r.issues, ...errors], warnings, ...(clinical ? { hint: CLINICAL_INPUT_HINT } : {}) };
  return { index, valid: errors.length === 0, errors, warnings };
}

function syntaxResult(index: number, problem: JsonSyntaxProblem): DocResult {
  return {
    index,
    valid: false,
    errors: [{ path: '', code: 'invalid-json', message: `line ${problem.line}, column ${problem.column}: ${problem.reason}`, severity: 'error' }],
    warnings: [],
    syntax: problem,
  };
}

const slim = (i: Issue): { path: string; message: string; code: string } => ({ path: i.path, message: i.message, code: i.code });

function jsonLine(r: DocResult, lint: boolean, file?: string): string {
  const named = file === undefined ? '' : `"file":${JSON.stringify(file)},`;
  if (r.valid && r.warnings.length === 0) return `{${named}"index":${r.index},"valid":true,"errors":[]${lint ? ',"warnings":[]' : ''}}\n`;
  const o: Record<string, unknown> = { ...(file === undefined ? {} : { file }), index: r.index, valid: r.valid, errors: r.errors.map(slim) };
  if (lint) o.warnings = r.warnings.map(slim);
  if (r.hint !== undefined) o.hint = r.hint;
  return `${JSON.stringify(o)}\n`;
}

function textLines(r: DocResult, name: string, lineOf: (path: string) => number): string {
  if (r.syntax !== undefined) return `${problemLine(name, r.syntax)}\n`;
  const hint = r.hint === undefined ? '' : `${name}:${lineOf('')} hint: ${r.hint}\n`;
  return issueLines([...r.errors, ...r.warnings], name, lineOf, undefined, 'use --format json for all') + hint;
}

/** The output and result of one NDJSON line: the same on the main thread (--jobs 1) and in the workers. */
export function ndjsonLineOutput(l: NdjsonLine, index: number, args: ValidateArgs, name: string): { text: string; result: DocResult } {
  let r: DocResult;
  if (l.tooLong) r = syntaxResult(index, { line: l.line, column: 1, reason: 'line is too long (over 64 MiB)' });
  else if (l.unreadable !== undefined) r = syntaxResult(index, l.unreadable);
  else {
    const parsed = parseJson(l.text);
    r = parsed.ok ? check(parsed.value, args, index) : syntaxResult(index, { ...parsed.problem, line: l.line });
  }
  return { text: args.format === 'json' ? jsonLine(r, args.lint, args.nameFiles ? name : undefined) : textLines(r, name, () => l.line), result: r };
}

/** `abha-link validate`: returns the exit code. */
export async function runValidate(args: ValidateArgs): Promise<number> {
  if (!isSchemaName(args.schema)) {
    const names = SCHEMA_MANIFEST.map((e) => e.name);
    throw new UsageError(`unknown schema "${args.schema}"${didYouMean(args.schema, names)} (abha-link schemas lists them)`);
  }
  await prepareChecks(args);
  const counts: Counts = { docs: 0, invalid: 0, broken: 0 };
  for (const file of args.files) {
    if (stopForClosedOutput()) break;
    await validateOne({ ...args, file: file === '-' ? undefined : file }, counts);
  }
  const { docs, invalid, broken } = counts;
  if (args.format === 'text') {
    const ok = docs - invalid - broken;
    const parts = [`${plural(docs, 'document')}`, `${ok} valid`, `${invalid} invalid`];
    if (broken > 0) parts.push(`${broken} not JSON`);
    const what = args.files.length === 1 ? inputName(args.files[0]) : `${args.files.length} files`;
    cliIo().stderr.write(`${what}: ${parts.join(', ')}\n`);
  }
  if (broken > 0) return EXIT.usage;
  return invalid > 0 ? EXIT.invalid : EXIT.ok;
}

/** The worker pool of --ndjson --jobs N, loaded only for NDJSON input. */
const loadWorkers = (): Promise<typeof import('../ndjson-workers.js')> => import('../ndjson-workers.js');

/**
 * Threads for an NDJSON input: --jobs when given; otherwise the number of
 * cores for a file, and 1 for stdin, whose lines are answered as they come
 * (workers take input in batches of 512 KiB, which a slow producer may take
 * long to fill).
 */
async function jobsFor(args: OneInput): Promise<number> {
  if (args.jobs !== undefined || args.file === undefined) return args.jobs ?? 1;
  return (await loadWorkers()).defaultJobs();
}

/** Validates the documents of one input, writing their results and counting them. */
async function validateOne(args: OneInput, counts: Counts): Promise<void> {
  const name = inputName(args.file);
  const named = args.nameFiles ? name : undefined;
  const count = (r: DocResult): void => {
    counts.docs++;
    if (r.syntax !== undefined) counts.broken++;
    else if (!r.valid) counts.invalid++;
  };

  if (!args.ndjson) {
    const text = await readText(args.file);
    const parsed = parseJson(text);
    const r = parsed.ok ? check(parsed.value, args, 0) : syntaxResult(0, parsed.problem);
    count(r);
    await writeOut(args.format === 'json' ? jsonLine(r, args.lint, named) : textLines(r, name, pointerLocator(text)));
  } else if ((await jobsFor(args)) > 1) {
    const c = await (await loadWorkers()).validateNdjsonInWorkers(args.file, await jobsFor(args), { ...args, name }, writeOut, outputClosed());
    counts.docs += c.docs;
    counts.invalid += c.invalid;
    counts.broken += c.broken;
  } else {
    let index = 0;
    await streamLines(
      args.file,
      (lines) => {
        let out = '';
        for (const l of lines) {
          const o = ndjsonLineOutput(l, index++, args, name);
          count(o.result);
          out += o.text;
        }
        return writeOut(out);
      },
      undefined,
      outputClosed(),
    );
  }
}

export const command = defineCommand({
  usage: 'abha-link validate [--schema NAME] [--ndjson [--jobs N]] [--format text|json] [--lint] [--show-keys] [FILE|GLOB|-]...',
  help: `Validates JSON against a schema (default: link-carecontext-request, the body of
POST /api/m2/multiple/link-carecontext). Reads stdin when FILE is - or absent.
Several FILEs and glob patterns ('requests/*.json', '**/*.ndjson') may be
given; patterns are expanded here too, for shells that do not.

A clinical input given where a link request is expected gets a hint: run
abha-link build, or pass --schema clinical-input.

Options:
  --schema NAME        a schema name from abha-link schemas
  --ndjson             one document per non-empty line, streamed in bounded
                       memory
  --jobs N             with --ndjson: threads to validate on, the main one and
                       N-1 workers (default: the number of cores for a FILE,
                       1 for stdin); output stays in input order
  --format text|json   text (default): FILE:LINE PATH MESSAGE (code), for
                       people; json: one object per document and line, in
                       input order: {"index":n,"valid":true|false,
                       "errors":[{"path","message","code"}]} (with --lint also
                       "warnings"; with several FILEs also "file"; "hint"
                       when the document is of another kind)
  --lint               also apply ABDM lint rules (link requests only); lint
                       errors make a document invalid, warnings do not
  --show-keys          name unknown keys in paths as written, not by position
                       (/#3); a key can be data, such as a mobile number
  -h, --help           show this help
  -v, --version        print the version`,
  options: { schema: { type: 'string' }, ndjson: { type: 'boolean' }, format: { type: 'string' }, lint: { type: 'boolean' }, 'show-keys': { type: 'boolean' }, jobs: { type: 'string' } },
  async run({ values, positionals }) {
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw optionError('format', 'text or json', { given: format, choices: ['text', 'json'] });
    if (values.jobs !== undefined && values.ndjson !== true) throw new UsageError('--jobs works only with --ndjson');
    const files = await expandInputs(positionals);
    const jobs = values.jobs === undefined ? undefined : (await loadWorkers()).parseJobs(values.jobs);
    return runValidate({
      schema: values.schema ?? 'link-carecontext-request',
      ndjson: values.ndjson,
      format,
      lint: values.lint,
      files,
      nameFiles: files.length > 1 || (await hasPattern(positionals)),
      showKeys: values['show-keys'],
      now: cliIo().now(),
      ...(jobs === undefined ? {} : { jobs }),
    });
  },
});
