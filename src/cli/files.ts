/**
 * The FILE arguments of validate and build: several files, `-` for stdin,
 * and glob patterns, expanded here for shells that do not (Windows cmd, or
 * a quoted pattern), as eslint and prettier do.
 */
import { stat } from 'node:fs/promises';
import { UsageError, describeFsError } from './io.js';

let tinyglobby: Promise<typeof import('tinyglobby')> | undefined;
/** tinyglobby (and picomatch under it), loaded on first use: a run on plain paths never loads them. */
const globber = (): Promise<typeof import('tinyglobby')> => (tinyglobby ??= import('tinyglobby'));

/** An argument as a glob pattern: Windows paths use backslashes, glob patterns forward slashes. */
const patternOf = (arg: string): string => (process.platform === 'win32' ? arg.replaceAll('\\', '/') : arg);

/** Whether `arg` is a glob pattern (tinyglobby's judgement), asked only when it holds a character some pattern syntax uses. */
async function isPattern(arg: string): Promise<boolean> {
  const pattern = patternOf(arg);
  return /[*?[\]{}()!+@]/.test(pattern) && (await globber()).isDynamicPattern(pattern);
}

/**
 * The inputs named by FILE arguments, in the order given, each once: `-`
 * and plain paths as they are; a glob pattern (`*`, `?`, `[…]`, `{…}`,
 * `**`) replaced by the files it matches, sorted. A pattern that is also
 * the name of an existing file means that file. No arguments means stdin.
 *
 * @throws UsageError when a path does not exist, a pattern matches no file, or `-` is given twice
 *
 * @example
 * await expandInputs(['examples/*.request.json', '-'])
 * //=> ['examples/lab-order.request.json', 'examples/multi-care-context.request.json', 'examples/opd-prescription.request.json', '-']
 */
export async function expandInputs(args: readonly string[], cwd: string = process.cwd()): Promise<string[]> {
  if (args.length === 0) return ['-'];
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (f: string): void => {
    if (seen.has(f)) return;
    seen.add(f);
    out.push(f);
  };
  for (const arg of args) {
    if (arg === '-') {
      if (seen.has('-')) throw new UsageError('standard input (-) can be given only once');
      add(arg);
      continue;
    }
    if (await exists(arg)) {
      add(arg);
      continue;
    }
    // A plain path that is not there is reported before any input is read, so a run of
    // several files never stops halfway with its summary lost.
    if (!(await isPattern(arg))) throw new UsageError(describeFsError({ code: 'ENOENT' }, arg));
    const matches = await (await globber()).glob(patternOf(arg), { cwd, onlyFiles: true, expandDirectories: false, absolute: false });
    if (matches.length === 0) throw new UsageError(`no file matches ${arg}`);
    for (const m of matches.sort()) add(m);
  }
  return out;
}

/** Whether any FILE argument is a glob pattern (then results name their file, however many files match). */
export async function hasPattern(args: readonly string[]): Promise<boolean> {
  for (const a of args) if (a !== '-' && (await isPattern(a))) return true;
  return false;
}

/** True when something (a file, a folder) is at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
