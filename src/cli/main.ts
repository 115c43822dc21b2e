#!/usr/bin/env node
/**
 * The `abha-link` command. Each command's module is loaded only when it runs,
 * so that `abha-link validate` does not pay for templates or the network.
 *
 * Exit codes: 0 success; 1 invalid documents or a failed build; 2 usage
 * errors, unreadable input, JSON that does not parse; 3 an internal error.
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EXIT, UsageError } from './io.js';

const EXIT_CODES = `Exit codes:
  0  success (every document valid)
  1  invalid input: a document failed validation, lint errors, or a build failed
  2  usage error, unreadable file, or input that is not JSON (line and column are given)
  3  internal error (a bug: please report it)`;

const HELP: Record<string, string> = {
  main: `abha-link: build, validate and check ABHA care-context link requests.

Usage: abha-link <command> [options]

Commands:
  build      clinical input JSON -> link request JSON (POST /api/m2/multiple/link-carecontext body)
  validate   validate JSON documents against a schema of the service spec
  schemas    list every schema

Options:
  -h, --help     show help (also: abha-link <command> --help)
  -v, --version  print the version

${EXIT_CODES}`,
  build: `Usage: abha-link build [--no-lint] [--compact] [FILE|-]

Turns a clinical input (see schemas/clinical-input.schema.json and examples/)
into the link request body, printed as JSON on stdout. Reads stdin when FILE
is - or absent.

Every problem is listed on stderr as FILE:LINE PATH MESSAGE (code), and the
exit code is 1, when the input cannot produce a valid link request. Lint
warnings go to stderr and do not change the exit code.

Options:
  --no-lint   skip the ABDM lint rules (schema checks still run)
  --compact   print the request on one line
  -h, --help  show this help

${EXIT_CODES}`,
  validate: `Usage: abha-link validate [--schema NAME] [--ndjson] [--format text|json] [--lint] [FILE|-]

Validates JSON against a schema (default: link-carecontext-request, the body of
POST /api/m2/multiple/link-carecontext). Reads stdin when FILE is - or absent.

Options:
  --schema NAME          a schema name from abha-link schemas
  --ndjson               one document per non-empty line, streamed in bounded memory
  --format text|json     text (default): FILE:LINE PATH MESSAGE (code), for people;
                         json: one object per document and line, in input order:
                         {"index":n,"valid":true|false,"errors":[{"path","message","code"}]}
                         (with --lint also "warnings")
  --lint                 also apply ABDM lint rules (link requests only); lint errors
                         make a document invalid, warnings do not
  -h, --help             show this help

${EXIT_CODES}`,
  schemas: `Usage: abha-link schemas [--json]

Lists every schema shipped in schemas/. With --json, prints a JSON array of
{ "name", "title", "file", "resource"?, "endpoint"?, "part"? }.

${EXIT_CODES}`,
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function parse(argv: string[], options: ParseArgsConfig['options']): { values: Record<string, unknown>; positionals: string[] } {
  try {
    const r = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    return { values: r.values as Record<string, unknown>, positionals: r.positionals };
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0] ?? '' : String(e);
    throw new UsageError(msg.replace(/\. To specify a positional argument.*$/, ''));
  }
}

function oneFile(positionals: string[]): string | undefined {
  if (positionals.length > 1) throw new UsageError(`expected at most one FILE, got ${positionals.length}`);
  return positionals[0];
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help') {
    process.stdout.write(`${HELP.main}\n`);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  if (command === 'help') {
    const topic = rest[0] ?? 'main';
    const text = HELP[topic];
    if (text === undefined) throw new UsageError(`no help for "${topic}": unknown command`);
    process.stdout.write(`${text}\n`);
    return EXIT.ok;
  }
  const help = (): number => {
    process.stdout.write(`${HELP[command] ?? HELP.main}\n`);
    return EXIT.ok;
  };
  switch (command) {
    case 'schemas': {
      const { values, positionals } = parse(rest, { json: { type: 'boolean' } });
      if (values.help === true) return help();
      if (positionals.length > 0) throw new UsageError('schemas takes no FILE');
      const { runSchemas } = await import('./commands/schemas.js');
      return runSchemas(values.json === true);
    }
    case 'validate': {
      const { values, positionals } = parse(rest, {
        schema: { type: 'string' },
        ndjson: { type: 'boolean' },
        format: { type: 'string' },
        lint: { type: 'boolean' },
      });
      if (values.help === true) return help();
      const format = (values.format as string | undefined) ?? 'text';
      if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json`);
      const { runValidate } = await import('./commands/validate.js');
      return runValidate({
        schema: (values.schema as string | undefined) ?? 'link-carecontext-request',
        ndjson: values.ndjson === true,
        format,
        lint: values.lint === true,
        file: oneFile(positionals),
        now: new Date(),
      });
    }
    case 'build': {
      const { values, positionals } = parse(rest, { 'no-lint': { type: 'boolean' }, compact: { type: 'boolean' } });
      if (values.help === true) return help();
      const { runBuild } = await import('./commands/build.js');
      return runBuild({ file: oneFile(positionals), lint: values['no-lint'] !== true, now: new Date(), compact: values.compact === true });
    }
    default:
      throw new UsageError(`unknown command "${command}"; run abha-link --help`);
  }
}

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  // The reader went away (abha-link ... | head): stop quietly.
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`abha-link: ${e.message}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    const detail = process.env.ABHA_LINK_DEBUG === '1' && e instanceof Error ? `\n${e.stack ?? ''}` : '';
    process.stderr.write(`abha-link: internal error: ${e instanceof Error ? e.name : 'unknown'}; set ABHA_LINK_DEBUG=1 for details${detail}\n`);
    process.exitCode = EXIT.internal;
  },
);
