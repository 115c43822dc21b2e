import type { ClinicalInput } from '../../generated/types.js';
import { safeBuildLinkRequest } from '../../builders/link-request.js';
import type { Command } from '../command.js';
import { EXIT, UsageError, inputName, parseJson, pointerLocator, readText, writeOut } from '../io.js';

export interface BuildArgs {
  file: string | undefined;
  lint: boolean;
  now: Date;
  compact: boolean;
}

/** `abha-link build`: clinical input JSON in, link request JSON out. Returns the exit code. */
export async function runBuild(args: BuildArgs): Promise<number> {
  const name = inputName(args.file);
  const text = await readText(args.file);
  const parsed = parseJson(text);
  if (!parsed.ok) {
    const p = parsed.problem;
    process.stderr.write(`${name}:${p.line}:${p.column} invalid JSON: ${p.reason}\n`);
    return EXIT.usage;
  }
  const r = safeBuildLinkRequest(parsed.value as ClinicalInput, { lint: args.lint ? { now: args.now } : false });
  const lineOf = pointerLocator(text);
  if (!r.success) {
    let s = '';
    for (const i of r.issues) s += `${name}:${lineOf(i.path)} ${i.path || '/'} ${i.severity === 'warning' ? 'warning: ' : ''}${i.message} (${i.code})\n`;
    const errors = r.issues.filter((i) => i.severity === 'error').length;
    process.stderr.write(`${s}${name}: cannot build a valid link request: ${errors} error${errors === 1 ? '' : 's'}\n`);
    return EXIT.invalid;
  }
  let s = '';
  for (const w of r.warnings) s += `${name}:${lineOf(w.path)} ${w.path || '/'} warning: ${w.message} (${w.code})\n`;
  if (s !== '') process.stderr.write(s);
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
