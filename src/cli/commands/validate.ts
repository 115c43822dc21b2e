import type { Issue } from '../../errors.js';
import type { LinkCareContextRequest } from '../../generated/types.js';
import { lintLinkRequest } from '../../validation/lint.js';
import { isSchemaName, validate } from '../../validation/validate.js';
import type { Command } from '../command.js';
import { EXIT, UsageError, inputName, issueLines, outputClosed, parseJson, pointerLocator, readText, streamLines, writeOut, type JsonSyntaxProblem, type NdjsonLine } from '../io.js';
import { defaultJobs, parseJobs, validateNdjsonInWorkers } from '../ndjson-workers.js';

export interface ValidateArgs {
  schema: string;
  ndjson: boolean;
  format: 'text' | 'json';
  lint: boolean;
  file: string | undefined;
  now: Date;
  /** Threads for --ndjson: the main one and jobs - 1 workers; 1 (default): the main thread only. */
  jobs?: number;
}

export interface DocResult {
  index: number;
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
  syntax?: JsonSyntaxProblem;
}

const LINK_SCHEMA = 'link-carecontext-request';

function check(value: unknown, args: ValidateArgs, index: number): DocResult {
  const r = validate(args.schema as typeof LINK_SCHEMA, value);
  if (!r.success) return { index, valid: false, errors: [...r.issues], warnings: [] };
  if (!args.lint || args.schema !== LINK_SCHEMA) return { index, valid: true, errors: [], warnings: [] };
  const findings = lintLinkRequest(r.value as LinkCareContextRequest, { now: args.now });
  const errors = findings.filter((f) => f.severity === 'error');
  return { index, valid: errors.length === 0, errors, warnings: findings.filter((f) => f.severity === 'warning') };
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

function jsonLine(r: DocResult, lint: boolean): string {
  if (r.valid && r.warnings.length === 0) return `{"index":${r.index},"valid":true,"errors":[]${lint ? ',"warnings":[]' : ''}}\n`;
  const o: Record<string, unknown> = { index: r.index, valid: r.valid, errors: r.errors.map(slim) };
  if (lint) o.warnings = r.warnings.map(slim);
  return `${JSON.stringify(o)}\n`;
}

function textLines(r: DocResult, name: string, lineOf: (path: string) => number): string {
  if (r.syntax !== undefined) return `${name}:${r.syntax.line}:${r.syntax.column} invalid JSON: ${r.syntax.reason}\n`;
  return issueLines([...r.errors, ...r.warnings], name, lineOf);
}

/** The output and result of one NDJSON line: the same on the main thread (--jobs 1) and in the workers. */
export function ndjsonLineOutput(l: NdjsonLine, index: number, args: ValidateArgs, name: string): { text: string; result: DocResult } {
  let r: DocResult;
  if (l.tooLong) r = syntaxResult(index, { line: l.line, column: 1, reason: 'line is too long (over 64 MiB)' });
  else {
    const parsed = parseJson(l.text);
    r = parsed.ok ? check(parsed.value, args, index) : syntaxResult(index, { ...parsed.problem, line: l.line });
  }
  return { text: args.format === 'json' ? jsonLine(r, args.lint) : textLines(r, name, () => l.line), result: r };
}

/** `abha-link validate`: returns the exit code. */
export async function runValidate(args: ValidateArgs): Promise<number> {
  if (!isSchemaName(args.schema)) throw new UsageError(`unknown schema "${args.schema}"; run abha-link schemas to list them`);
  const name = inputName(args.file);
  let docs = 0;
  let invalid = 0;
  let broken = 0;
  const count = (r: DocResult): void => {
    docs++;
    if (r.syntax !== undefined) broken++;
    else if (!r.valid) invalid++;
  };

  if (!args.ndjson) {
    const text = await readText(args.file);
    const parsed = parseJson(text);
    const r = parsed.ok ? check(parsed.value, args, 0) : syntaxResult(0, parsed.problem);
    count(r);
    await writeOut(args.format === 'json' ? jsonLine(r, args.lint) : textLines(r, name, pointerLocator(text)));
  } else if ((args.jobs ?? 1) > 1) {
    const c = await validateNdjsonInWorkers(args.file, args.jobs ?? 1, { ...args, name }, writeOut, outputClosed);
    docs += c.docs;
    invalid += c.invalid;
    broken += c.broken;
  } else {
    let index = 0;
    await streamLines(args.file, (lines) => {
      let out = '';
      for (const l of lines) {
        const o = ndjsonLineOutput(l, index++, args, name);
        count(o.result);
        out += o.text;
      }
      return writeOut(out);
    }, undefined, outputClosed);
  }
  if (args.format === 'text') {
    const ok = docs - invalid - broken;
    const parts = [`${docs} document${docs === 1 ? '' : 's'}`, `${ok} valid`, `${invalid} invalid`];
    if (broken > 0) parts.push(`${broken} not JSON`);
    process.stderr.write(`${name}: ${parts.join(', ')}\n`);
  }
  if (broken > 0) return EXIT.usage;
  return invalid > 0 ? EXIT.invalid : EXIT.ok;
}

export const command: Command = {
  usage: 'abha-link validate [--schema NAME] [--ndjson [--jobs N]] [--format text|json] [--lint] [FILE|-]',
  help: `Validates JSON against a schema (default: link-carecontext-request, the body of
POST /api/m2/multiple/link-carecontext). Reads stdin when FILE is - or absent.

Options:
  --schema NAME          a schema name from abha-link schemas
  --ndjson               one document per non-empty line, streamed in bounded memory
  --jobs N               with --ndjson: threads to validate on, the main one and
                         N-1 workers (default: the number of cores); output stays
                         in input order
  --format text|json     text (default): FILE:LINE PATH MESSAGE (code), for people;
                         json: one object per document and line, in input order:
                         {"index":n,"valid":true|false,"errors":[{"path","message","code"}]}
                         (with --lint also "warnings")
  --lint                 also apply ABDM lint rules (link requests only); lint errors
                         make a document invalid, warnings do not
  -h, --help             show this help`,
  options: { schema: { type: 'string' }, ndjson: { type: 'boolean' }, format: { type: 'string' }, lint: { type: 'boolean' }, jobs: { type: 'string' } },
  run({ values, positionals }) {
    const format = (values.format as string | undefined) ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError('--format must be text or json');
    if (positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${positionals.length}`);
    if (values.jobs !== undefined && values.ndjson !== true) throw new UsageError('--jobs works only with --ndjson');
    return runValidate({
      schema: (values.schema as string | undefined) ?? 'link-carecontext-request',
      ndjson: values.ndjson === true,
      format,
      lint: values.lint === true,
      file: positionals[0],
      now: new Date(),
      jobs: values.jobs === undefined ? defaultJobs() : parseJobs(values.jobs as string),
    });
  },
};
