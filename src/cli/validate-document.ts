/**
 * What `abha-link validate` finds in one document and how it is written: the
 * same on the main thread and in the worker threads of `--ndjson --jobs N`
 * (a module of its own, which commands/validate.ts and ndjson-workers.ts
 * both import, so that neither imports the other).
 */
import type { Issue } from '../errors.js';
import type { LinkCareContextRequest } from '../generated/types.js';
import type { ClinicalInput } from '../generated/types.js';
import type { lintClinicalInput, lintLinkRequest } from '../validation/lint.js';
import { detectInputKind } from '../input-kind.js';
import type { SchemaName } from '../generated/manifest.js';
import { loadSpecDefinition, loadValidator, validateWith, type ValidationResult } from '../validation/validate-core.js';
import { issueLines, parseJson, problemLine, type JsonSyntaxProblem, type NdjsonLine } from './io.js';

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

export interface DocResult {
  index: number;
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
  /** Lint findings of severity information (with --lint): they never make a document invalid. */
  information: Issue[];
  syntax?: JsonSyntaxProblem;
  /** Advice for a document that is not what the schema expects (a clinical input given as a link request). */
  hint?: string;
}

const LINK_SCHEMA = 'link-carecontext-request';
const CLINICAL_SCHEMA = 'clinical-input';

let lintRules: { readonly link: typeof lintLinkRequest; readonly clinical: typeof lintClinicalInput } | undefined;
let schemaCheck:
  | {
      readonly schema: string;
      readonly passes: (value: unknown) => boolean;
      readonly validate: (value: unknown, options: { revealKeys: boolean }) => ValidationResult<unknown>;
    }
  | undefined;

/**
 * Loads what the checks of a run need before its first document, on the main
 * thread and in each worker: the validator module of the run's schema alone
 * (not the other schemas'), the spec's definition that explains a failure
 * (unless `explainOnDemand`: see {@link prepareExplanation}), and the lint
 * rules (and the builders they read) only with --lint.
 */
export async function prepareChecks(args: Pick<ValidateArgs, 'schema' | 'lint'>, explainOnDemand = false): Promise<void> {
  if (schemaCheck?.schema !== args.schema) {
    const schema = args.schema as SchemaName;
    const v = await loadValidator(schema);
    const passes = (value: unknown): boolean => {
      try {
        return v(value);
      } catch {
        return false;
      }
    };
    schemaCheck = { schema, passes, validate: (value, options) => validateWith(v, schema, value, options) };
  }
  if (!explainOnDemand) await loadSpecDefinition();
  if (args.lint) lintRules ??= await import('../validation/lint.js').then((m) => ({ link: m.lintLinkRequest, clinical: m.lintClinicalInput }));
}

/**
 * Before {@link check} of a document of a run prepared with `explainOnDemand`:
 * loads the spec's definition when the document fails its schema (once), so
 * that a run of valid documents never loads it.
 */
export async function prepareExplanation(value: unknown): Promise<void> {
  if (schemaCheck === undefined) throw new Error('internal: the validator was not loaded (prepareChecks)');
  if (!schemaCheck.passes(value)) await loadSpecDefinition();
}
const CLINICAL_INPUT_HINT = 'this is a clinical input: run `abha-link build`, or pass `--schema clinical-input`';

/**
 * The lint rules of the run's schema: a link request's (lintLinkRequest, with
 * the date rules) or a clinical input's (lintClinicalInput, the rules `build`
 * runs); other schemas have none.
 */
function rulesFor(args: ValidateArgs): ((value: unknown) => Issue[]) | undefined {
  if (!args.lint || (args.schema !== LINK_SCHEMA && args.schema !== CLINICAL_SCHEMA)) return undefined;
  if (lintRules === undefined) throw new Error('internal: the lint rules were not loaded (prepareChecks)');
  const { link, clinical } = lintRules;
  return args.schema === LINK_SCHEMA ? (value) => link(value as LinkCareContextRequest, { now: args.now }) : (value) => clinical(value as ClinicalInput);
}

/** Lint findings of a document that passed the schema, or of one that did not (see lintBesideSchema); none without --lint. */
function lintFindings(value: unknown, args: ValidateArgs, schemaIssues: readonly Issue[]): Issue[] {
  const rules = rulesFor(args);
  if (rules === undefined) return [];
  return schemaIssues.length === 0 ? rules(value) : lintBesideSchema(rules, value, schemaIssues);
}

/**
 * The lint rules of a document the schema refused, so that every issue comes
 * in one pass: findings at or under a path the schema already refused are
 * left out (they read a value of the wrong shape), and a rule that cannot
 * read the document at all gives none.
 */
function lintBesideSchema(rules: (value: unknown) => Issue[], value: unknown, schemaIssues: readonly Issue[]): Issue[] {
  if (schemaIssues.some((i) => i.path === '')) return [];
  const refused = (p: string): boolean => schemaIssues.some((i) => p === i.path || p.startsWith(`${i.path}/`) || i.path.startsWith(`${p}/`));
  let findings: readonly Issue[];
  try {
    findings = rules(value);
  } catch {
    return [];
  }
  return findings.filter((f) => !refused(f.path));
}

export function check(value: unknown, args: ValidateArgs, index: number): DocResult {
  if (schemaCheck?.schema !== args.schema) throw new Error('internal: the validator was not loaded (prepareChecks)');
  const r = schemaCheck.validate(value, { revealKeys: args.showKeys });
  // A document of another kind (a clinical input given as a link request) gets a hint, not the link request's lint rules.
  const clinical = !r.success && args.schema !== 'clinical-input' && detectInputKind(value) === 'clinical-input';
  const findings = clinical ? [] : lintFindings(value, args, r.success ? [] : r.issues);
  const errors = findings.filter((f) => f.severity === 'error');
  const warnings = findings.filter((f) => f.severity === 'warning');
  const information = findings.filter((f) => f.severity === 'information');
  if (!r.success) return { index, valid: false, errors: [...r.issues, ...errors], warnings, information, ...(clinical ? { hint: CLINICAL_INPUT_HINT } : {}) };
  return { index, valid: errors.length === 0, errors, warnings, information };
}

export function syntaxResult(index: number, problem: JsonSyntaxProblem): DocResult {
  return {
    index,
    valid: false,
    errors: [{ path: '', code: 'invalid-json', message: `line ${problem.line}, column ${problem.column}: ${problem.reason}`, severity: 'error' }],
    warnings: [],
    information: [],
    syntax: problem,
  };
}

const slim = (i: Issue): { path: string; message: string; code: string } => ({ path: i.path, message: i.message, code: i.code });

export function jsonLine(r: DocResult, lint: boolean, file?: string): string {
  const named = file === undefined ? '' : `"file":${JSON.stringify(file)},`;
  if (r.valid && r.warnings.length === 0 && r.information.length === 0) return `{${named}"index":${r.index},"valid":true,"errors":[]${lint ? ',"warnings":[]' : ''}}\n`;
  const o: Record<string, unknown> = { ...(file === undefined ? {} : { file }), index: r.index, valid: r.valid, errors: r.errors.map(slim) };
  if (lint) o.warnings = r.warnings.map(slim);
  if (r.information.length > 0) o.information = r.information.map(slim);
  if (r.hint !== undefined) o.hint = r.hint;
  return `${JSON.stringify(o)}\n`;
}

export function textLines(r: DocResult, name: string, lineOf: (path: string) => number): string {
  if (r.syntax !== undefined) return `${problemLine(name, r.syntax)}\n`;
  const hint = r.hint === undefined ? '' : `${name}:${lineOf('')} hint: ${r.hint}\n`;
  return issueLines([...r.errors, ...r.warnings, ...r.information], name, lineOf, undefined, 'use --format json for all') + hint;
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
