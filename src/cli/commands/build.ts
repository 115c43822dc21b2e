import type { ClinicalInput } from '../../generated/types.js';
import { safeBuildLinkRequest } from '../../builders/link-request.js';
import { plural } from '../../util.js';
import { defineCommand } from '../command.js';
import { expandInputs } from '../files.js';
import { EXIT, cliIo, inputName, issueLines, outputClosed, parseJson, problemLine, readJsonInput, stopForClosedOutput, streamLines, writeOut, type JsonSyntaxProblem } from '../io.js';

export interface BuildArgs {
  /** The inputs (FILE arguments after glob expansion; `-` is stdin). */
  files: readonly string[];
  lint: boolean;
  now: Date;
  compact: boolean;
  /** One clinical input per line in, one link request per line out. */
  ndjson: boolean;
}

/** Builds one input read whole; with several inputs, each request is printed on one line. */
async function buildOne(file: string | undefined, args: BuildArgs, oneLine: boolean): Promise<number> {
  const input = await readJsonInput(file);
  if (input === undefined) return EXIT.usage;
  const { name, lineOf } = input;
  const r = safeBuildLinkRequest(input.value as ClinicalInput, { lint: args.lint ? { now: args.now } : false });
  if (!r.success) {
    const errors = r.issues.filter((i) => i.severity === 'error').length;
    cliIo().stderr.write(`${issueLines(r.issues, name, lineOf)}${name}: cannot build a valid link request: ${plural(errors, 'error')}\n`);
    return EXIT.invalid;
  }
  if (r.warnings.length > 0) cliIo().stderr.write(issueLines(r.warnings, name, lineOf));
  await writeOut(`${oneLine ? JSON.stringify(r.value) : JSON.stringify(r.value, null, 2)}\n`);
  return EXIT.ok;
}

/**
 * Builds one clinical input per line, streamed in bounded memory: each line
 * that builds gives one link request line on stdout; the issues of a line
 * that does not go to stderr as NAME:LINE PATH MESSAGE (code).
 */
async function buildLines(file: string | undefined, args: BuildArgs): Promise<number> {
  const name = inputName(file);
  let inputs = 0;
  let failed = 0;
  let broken = 0;
  await streamLines(
    file,
    (lines) => {
      let out = '';
      let err = '';
      for (const l of lines) {
        inputs++;
        let problem: JsonSyntaxProblem | undefined = l.tooLong ? { line: l.line, column: 1, reason: 'line is too long (over 64 MiB)' } : l.unreadable;
        let value: unknown;
        if (problem === undefined) {
          const parsed = parseJson(l.text);
          if (parsed.ok) value = parsed.value;
          else problem = parsed.problem;
        }
        if (problem !== undefined) {
          broken++;
          err += `${problemLine(name, { ...problem, line: l.line })}\n`;
          continue;
        }
        const r = safeBuildLinkRequest(value as ClinicalInput, { lint: args.lint ? { now: args.now } : false });
        if (!r.success) {
          failed++;
          err += issueLines(r.issues, name, () => l.line);
          continue;
        }
        if (r.warnings.length > 0) err += issueLines(r.warnings, name, () => l.line);
        out += `${JSON.stringify(r.value)}\n`;
      }
      if (err !== '') cliIo().stderr.write(err);
      return writeOut(out);
    },
    undefined,
    outputClosed(),
  );
  const parts = [plural(inputs, 'input'), `${inputs - failed - broken} built`, `${failed} failed`];
  if (broken > 0) parts.push(`${broken} not JSON`);
  cliIo().stderr.write(`${name}: ${parts.join(', ')}\n`);
  return broken > 0 ? EXIT.usage : failed > 0 ? EXIT.invalid : EXIT.ok;
}

/** `abha-link build`: clinical input JSON in, link request JSON out. Returns the exit code (the worst over the inputs). */
export async function runBuild(args: BuildArgs): Promise<number> {
  let code: number = EXIT.ok;
  const several = args.files.length > 1;
  for (const f of args.files) {
    if (stopForClosedOutput()) break;
    const file = f === '-' ? undefined : f;
    const c = args.ndjson ? await buildLines(file, args) : await buildOne(file, args, args.compact || several);
    code = Math.max(code, c);
  }
  return code;
}

export const command = defineCommand({
  usage: 'abha-link build [--no-lint] [--compact] [--ndjson] [FILE|GLOB|-]...',
  help: `Turns a clinical input (see schemas/clinical-input.schema.json and examples/)
into the link request body, printed as JSON on stdout. Reads stdin when FILE
is - or absent. Several FILEs and glob patterns ('visits/*.json') may be
given: then each request is printed on one line (NDJSON), in the order of the
files, ready for abha-link submit --ndjson.

Every problem is listed on stderr as FILE:LINE PATH MESSAGE (code), and the
exit code is 1, when an input cannot produce a valid link request (the other
inputs are still built). Lint warnings go to stderr and do not change the exit
code.

Options:
  --no-lint      skip the ABDM lint rules (schema checks still run)
  --compact      print the request on one line
  --ndjson       one clinical input per non-empty line in, one link request
                 per line out, streamed in bounded memory; an input that
                 cannot be built gives no output line, and its issues go to
                 stderr with its line number; a summary ends stderr
  -h, --help     show this help
  -v, --version  print the version`,
  options: { 'no-lint': { type: 'boolean' }, compact: { type: 'boolean' }, ndjson: { type: 'boolean' } },
  async run({ values, positionals }) {
    return runBuild({
      files: await expandInputs(positionals),
      lint: !values['no-lint'],
      now: cliIo().now(),
      compact: values.compact,
      ndjson: values.ndjson,
    });
  },
});
