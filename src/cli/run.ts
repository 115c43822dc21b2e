/**
 * The `abha-link` command as a function: {@link runCli} runs one command line
 * with the io it is given (the process's own in main.ts, collectors in
 * tests) and resolves to the exit code. Each command's module is loaded only
 * when it runs, so that `abha-link validate` does not pay for templates or
 * the network.
 *
 * Exit codes: 0 success; 1 invalid documents or a failed operation (also when
 * stdout closed before the end of the output); 2 usage errors, unreadable input, JSON that
 * does not parse; 3 an internal error; 130 stopped by Ctrl-C (SIGINT).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { describeParseError, type Command } from './command.js';
import { EXIT, UsageError, cliIo, markOutputClosed, stoppedEarly, withCliIo, type CliIo } from './io.js';
import { didYouMean } from '../suggest.js';

/** Every command: a one-line summary for --help, and its module, loaded on use. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ command: Command }> }> = {
  build: { summary: 'clinical input JSON -> link request JSON (the 4.12 body)', load: () => import('./commands/build.js') },
  validate: { summary: 'validate JSON documents against a schema of the spec', load: () => import('./commands/validate.js') },
  schemas: { summary: 'list every schema', load: () => import('./commands/schemas.js') },
  fhir: { summary: 'FHIR R4 document bundles per care context, or FHIR -> clinical input', load: () => import('./commands/fhir.js') },
  submit: { summary: 'send link requests to the service, with a journal for resuming', load: () => import('./commands/submit.js') },
  mock: { summary: 'run a local mock of the service (12 endpoints, synthetic accounts)', load: () => import('./commands/mock.js') },
  openapi: { summary: 'print the OpenAPI 3.1 document of the service', load: () => import('./commands/openapi.js') },
  render: { summary: 'printable prescription, lab order or visit summary (HTML or PDF)', load: () => import('./commands/render.js') },
  serve: { summary: 'run the HTTP service (validate, build, render, FHIR, a queue)', load: () => import('./commands/serve.js') },
};

export const EXIT_CODES = `Exit codes:
  0  success
  1  invalid input or a failed operation: a document failed validation or lint,
     a build failed, an item was not accepted
  2  usage error, unreadable file, or input that is not JSON (line and column
     are given)
  3  internal error (a bug: please report it; ABHA_LINK_DEBUG=1 shows the stack)
  130  stopped by Ctrl-C`;

function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const list = Object.entries(COMMANDS)
    .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
    .join('\n');
  return `abha-link: build, validate and check ABHA care-context link requests.

Usage: abha-link <command> [options]

Commands:
${list}

Options:
  -h, --help     show help (also: abha-link <command> --help)
  -v, --version  print the version (also: abha-link <command> --version)

${EXIT_CODES}`;
}

/**
 * A usage line wrapped at `width` columns: breaks fall before an option
 * (`[`) or an alternative form, continuation lines indented under the first
 * argument.
 */
function wrapUsage(usage: string, width = 80): string {
  return usage
    .split('\n')
    .map((form) => {
      const indent = /^ */.exec(form)?.[0] ?? '';
      const words = form.trim().split(/ (?=\[|FILE|-)/);
      words[0] = `${indent}${words[0] ?? ''}`;
      const lead = /^ *(Usage: )?abha-link \S+ /.exec(form)?.[0].length ?? 10;
      const lines: string[] = [];
      let line = '';
      for (const w of words) {
        if (line !== '' && line.length + 1 + w.length > width) {
          lines.push(line);
          line = `${' '.repeat(lead)}${w}`;
        } else line = line === '' ? w : `${line} ${w}`;
      }
      lines.push(line);
      return lines.join('\n');
    })
    .join('\n');
}

function commandHelp(c: Command): string {
  return `${wrapUsage(`Usage: ${c.usage.replace(/\n\s*/g, '\n       ')}`)}\n\n${c.help}\n\n${EXIT_CODES}`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

async function load(name: string): Promise<Command> {
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) throw new UsageError(`unknown command "${name}"${didYouMean(name, Object.keys(COMMANDS))} (abha-link --help lists the commands)`);
  return (await entry.load()).command;
}

async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help') {
    cliIo().stdout.write(`${mainHelp()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '-v' || name === '--version') {
    cliIo().stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  if (name === 'help') {
    cliIo().stdout.write(`${rest[0] === undefined ? mainHelp() : commandHelp(await load(rest[0]))}\n`);
    return EXIT.ok;
  }
  const command = await load(name);
  const options = { ...command.options, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } } as const;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (e) {
    const msg = e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
    throw describeParseError(name, rest, options, msg.replace(/\. To specify a positional argument.*$/, ''));
  }
  if (parsed.values.help === true) {
    cliIo().stdout.write(`${commandHelp(command)}\n`);
    return EXIT.ok;
  }
  if (parsed.values.version === true) {
    cliIo().stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  return command.run({ values: parsed.values, positionals: parsed.positionals });
}

/**
 * The exit code of a run that ended: a run that stdout's closing cut short
 * says so and is not a success; a reader that went away after the output it
 * wanted changes nothing.
 */
function settle(code: number): number {
  if (!stoppedEarly()) return code;
  cliIo().stderr.write('abha-link: standard output was closed before the end; stopped early\n');
  return code === EXIT.ok ? EXIT.invalid : code;
}

function failure(e: unknown): number {
  if (e instanceof UsageError) {
    cliIo().stderr.write(`abha-link: ${e.message}\n`);
    return EXIT.usage;
  }
  const detail = cliIo().env.ABHA_LINK_DEBUG === '1' && e instanceof Error ? `\n${e.stack ?? ''}` : '';
  cliIo().stderr.write(`abha-link: internal error: ${e instanceof Error ? e.name : 'unknown'}; set ABHA_LINK_DEBUG=1 for details${detail}\n`);
  return EXIT.internal;
}

/**
 * Runs one `abha-link` command line (without the program name) with `io`
 * and resolves to its exit code; never rejects. When writing to stdout fails
 * with EPIPE (the reader went away), commands stop early and the run is not
 * a success. Signals are the caller's: the process entry turns Ctrl-C into
 * exit 130.
 *
 * @example
 * await runCli(['validate', 'request.json'], processIo()) //=> 0
 */
export function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  return withCliIo(io, async () => {
    const onError = (e: NodeJS.ErrnoException): void => {
      // The reader went away (abha-link ... | head): commands stop early; a run cut short is not a success.
      if (e.code === 'EPIPE') {
        markOutputClosed();
        return;
      }
      throw e;
    };
    io.stdout.on('error', onError);
    try {
      return settle(await run([...argv]));
    } catch (e) {
      return failure(e);
    } finally {
      io.stdout.off('error', onError);
    }
  });
}
