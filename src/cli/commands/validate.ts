import { SCHEMA_MANIFEST } from '../../generated/manifest.js';
import { isSchemaName } from '../../validation/validate-core.js';
import { plural } from '../../util.js';
import { optionError, defineCommand } from '../command.js';
import { expandInputs, hasPattern } from '../files.js';
import { EXIT, cliIo, UsageError, inputName, outputClosed, stopForClosedOutput, parseJson, pointerLocator, readText, streamLines, writeOut } from '../io.js';
import { didYouMean } from '../../suggest.js';
import { check, jsonLine, ndjsonLineOutput, prepareChecks, prepareExplanation, syntaxResult, textLines, type DocResult, type ValidateArgs } from '../validate-document.js';

export type { ValidateArgs } from '../validate-document.js';

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

/** `abha-link validate`: returns the exit code. */
export async function runValidate(args: ValidateArgs): Promise<number> {
  if (!isSchemaName(args.schema)) {
    const names = SCHEMA_MANIFEST.map((e) => e.name);
    throw new UsageError(`unknown schema "${args.schema}"${didYouMean(args.schema, names)} (abha-link schemas lists them)`);
  }
  // One document per file is explained only when it fails; NDJSON (many documents, worker threads) loads the explanations up front.
  await prepareChecks(args, !args.ndjson);
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
    if (parsed.ok) await prepareExplanation(parsed.value);
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
                       "warnings", and "information" when there is any; with
                       several FILEs also "file"; "hint" when the document is
                       of another kind)
  --lint               also apply the lint rules of link requests (ABDM's) or
                       of clinical inputs (those build runs); lint errors make
                       a document invalid, warnings and information do not
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
