import type { ParseArgsConfig } from 'node:util';
import { UsageError } from './io.js';
import { didYouMean } from './suggest.js';

/** What a command receives: parsed options and positional arguments. */
export interface CommandArgs {
  readonly values: Readonly<Record<string, string | boolean | Array<string | boolean> | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * One `abha-link` command. Each lives in src/cli/commands/<name>.ts, exports
 * `command`, and is registered in COMMANDS in src/cli/main.ts; it is loaded
 * only when it runs.
 */
export interface Command {
  /** The usage line, e.g. `abha-link schemas [--json]` (wrapped at 80 columns by the help). */
  readonly usage: string;
  /** What the command does and its options, in lines of at most 80 columns; the exit codes are appended. */
  readonly help: string;
  /** node:util parseArgs options (`--help` and `--version` are added). */
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** Runs the command; resolves to the exit code. Throw UsageError for user mistakes. */
  run(args: CommandArgs): Promise<number>;
}

/*
 * The wording of every option error, one place for all commands:
 *   unknown option --shcema; did you mean --schema? (abha-link validate --help lists the options)
 *   unknown command "valdate"; did you mean validate? (abha-link --help lists the commands)
 *   --schema needs a value
 *   --lint takes no value
 *   --format must be text or json; did you mean json?
 *   abha-link schemas takes no FILE
 *   abha-link render takes at most one FILE, got 2
 */

/**
 * A bad option value: `--NAME must be EXPECTED`, with a suggestion when the
 * value is a near miss of one of `choices`. The value itself is not repeated
 * (an option can hold an OTP or a URL with credentials).
 *
 * @example
 * optionError('format', 'text or json', { given: 'jsn', choices: ['text', 'json'] }).message
 * //=> '--format must be text or json; did you mean json?'
 */
export function optionError(name: string, expected: string, near?: { given: string; choices: readonly string[] }): UsageError {
  return new UsageError(`--${name} must be ${expected}${near === undefined ? '' : didYouMean(near.given, near.choices)}`);
}

/** `--NAME needs a value`. */
export function missingValueError(name: string): UsageError {
  return new UsageError(`--${name} needs a value`);
}

/** Too many FILE arguments, or any for a command that takes none. */
export function fileCountError(command: string, most: number, got: number): UsageError {
  return new UsageError(most === 0 ? `abha-link ${command} takes no FILE` : `abha-link ${command} takes at most one FILE, got ${got}`);
}

/**
 * The option error of a command line that node:util parseArgs refused,
 * in the wording above: an unknown option (with the nearest known one), an
 * option without its value, a flag given a value.
 */
export function describeParseError(command: string, args: readonly string[], options: NonNullable<ParseArgsConfig['options']>, fallback: string): UsageError {
  const known = Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short === undefined ? [] : [`-${o.short}`])]);
  const help = `(abha-link ${command} --help lists the options)`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') continue;
    const long = arg.startsWith('--');
    const eq = long ? arg.indexOf('=') : -1;
    const raw = eq !== -1 ? arg.slice(0, eq) : long ? arg : arg.slice(0, 2);
    // -ofile is -o with the value "file"; a cluster of flags (-hv) is left to the fallback.
    const inline = eq !== -1 || (!long && arg.length > 2);
    const name = long ? raw.slice(2) : Object.keys(options).find((n) => options[n]?.short === raw.slice(1));
    const spec = name === undefined ? undefined : Object.hasOwn(options, name) ? options[name] : undefined;
    if (name === undefined || spec === undefined) {
      const shown = long ? raw : arg;
      return new UsageError(`unknown option ${shown}${didYouMean(long || arg.length === 2 ? shown : `-${arg}`, known)} ${help}`);
    }
    if (spec.type === 'boolean' && inline) {
      if (long) return new UsageError(`--${name} takes no value`);
      continue;
    }
    if (spec.type === 'string' && !inline) {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-')) return missingValueError(name);
      i++;
    }
  }
  return new UsageError(fallback);
}
