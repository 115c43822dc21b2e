import type { ParseArgsConfig } from 'node:util';
import { UsageError } from './io.js';
import { didYouMean } from '../suggest.js';

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

/** One option as node:util parseArgs takes it. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
}

/** The options of a command, by name. */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The value of one option: a flag is true or false, a string option its value (undefined when absent), a repeatable one every value given. */
export type OptionValue<S extends OptionSpec> = S['type'] extends 'boolean' ? boolean : S['multiple'] extends true ? readonly string[] : string | undefined;

/** The values of a command's options, typed from their specs. */
export type OptionValues<O extends OptionSpecs> = { readonly [K in keyof O]: OptionValue<O[K]> };

/**
 * The values parseArgs found, typed by the options' specs: a flag that was
 * not given is false, a string option undefined, a repeatable one [].
 * Reading an option the command does not declare is a type error.
 *
 * @example
 * readOptions({ format: { type: 'string' }, lint: { type: 'boolean' } }, { lint: true }) //=> { format: undefined, lint: true }
 */
export function readOptions<const O extends OptionSpecs>(specs: O, values: CommandArgs['values']): OptionValues<O> {
  const out: Record<string, string | boolean | readonly string[] | undefined> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const v = Object.hasOwn(values, name) ? values[name] : undefined;
    const expected = spec.type === 'boolean' ? 'boolean' : 'string';
    const all = v === undefined ? [] : Array.isArray(v) ? v : [v];
    if (!all.every((x) => typeof x === expected)) throw new TypeError(`internal: --${name} is not a ${expected} as its spec says`);
    if (spec.type === 'boolean') out[name] = v === true || (Array.isArray(v) && v.length > 0);
    else out[name] = spec.multiple === true ? (all as string[]) : (v as string | undefined);
  }
  return out as OptionValues<O>;
}

/** What a command defined with {@link defineCommand} receives: its options, typed, and the positional arguments. */
export interface TypedArgs<O extends OptionSpecs> {
  readonly values: OptionValues<O>;
  readonly positionals: readonly string[];
}

/**
 * A command whose `run` receives its options typed from their specs (see
 * readOptions), instead of casting `values.x as string | undefined`.
 *
 * @example
 * export const command = defineCommand({ usage, help, options: { json: { type: 'boolean' } }, run: ({ values }) => runSchemas(values.json) })
 */
export function defineCommand<const O extends OptionSpecs>(c: { readonly usage: string; readonly help: string; readonly options: O; run(args: TypedArgs<O>): Promise<number> }): Command {
  return {
    usage: c.usage,
    help: c.help,
    options: c.options,
    run: ({ values, positionals }) => c.run({ values: readOptions(c.options, values), positionals }),
  };
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
