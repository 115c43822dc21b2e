import type { ParseArgsConfig } from 'node:util';

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
  /** The usage line, e.g. `abha-link schemas [--json]`. */
  readonly usage: string;
  /** What the command does and its options; the exit codes are appended. */
  readonly help: string;
  /** node:util parseArgs options (`--help` is added). */
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** Runs the command; resolves to the exit code. Throw UsageError for user mistakes. */
  run(args: CommandArgs): Promise<number>;
}
