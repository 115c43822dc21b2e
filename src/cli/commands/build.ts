import type { ClinicalInput } from '../../generated/types.js';
import { safeBuildLinkRequest } from '../../builders/link-request.js';
import type { Command } from '../command.js';
import { EXIT, UsageError, issueLines, readJsonInput, writeOut } from '../io.js';

export interface BuildArgs {
  file: string | undefined;
  lint: boolean;
  now: Date;
  compact: boolean;
}

/** `abha-link build`: clinical input JSON in, link request JSON out. Returns the exit code. */
export async function runBuild(args: BuildArgs): Promise<number> {
  const input = await readJsonInput(args.file);
  if (input === undefined) return EXIT.usage;
  const { name, lineOf } = input;
  const r = safeBuildLinkRequest(input.value as ClinicalInput, { lint: args.lint ? { now: args.now } : false });
  if (!r.success) {
    const errors = r.issues.filter((i) => i.severity === 'error').length;
    process.stderr.write(`${issueLines(r.issues, name, lineOf)}${name}: cannot build a valid link request: ${errors} error${errors === 1 ? '' : 's'}\n`);
    return EXIT.invalid;
  }
  if (r.warnings.length > 0) process.stderr.write(issueLines(r.warnings, name, lineOf));
  await writeOut(`${args.compact ? JSON.stringify(r.value) : JSON.stringify(r.value, null, 2)}\n`);
  return EXIT.ok;
}

export const command: Command = {
  usage: 'abha-link build [--no-lint] [--compact] [FILE|-]',
  help: `Turns a clinical input (see schemas/clinical-input.schema.json and examples/)
into the link request body, printed as JSON on stdout. Reads stdin when FILE
is - or absent.

Every problem is listed on stderr as FILE:LINE PATH MESSAGE (code), and the
exit code is 1, when the input cannot produce a valid link request. Lint
warnings go to stderr and do not change the exit code.

Options:
  --no-lint   skip the ABDM lint rules (schema checks still run)
  --compact   print the request on one line
  -h, --help  show this help`,
  options: { 'no-lint': { type: 'boolean' }, compact: { type: 'boolean' } },
  run({ values, positionals }) {
    if (positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${positionals.length}`);
    return runBuild({ file: positionals[0], lint: values['no-lint'] !== true, now: new Date(), compact: values.compact === true });
  },
};
