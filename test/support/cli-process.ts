/**
 * The built CLI (dist/cli/main.js) run as a child process, for the tests
 * where the process boundary is the point (signals, exit codes, terminals).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const root = fileURLToPath(new URL('../..', import.meta.url));
/** The built CLI. */
export const cli = join(root, 'dist/cli/main.js');

/** What a finished process said. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A running process: its output so far, and its end. */
export interface Started {
  readonly child: ChildProcess;
  readonly done: Promise<Run>;
  readonly out: () => string;
  readonly err: () => string;
}

/**
 * Starts `command` in the repository's root with `env` over this process's
 * environment (a key set to undefined is left out), collecting its output
 * without blocking this process (a mock server may run here). `input` is
 * written to its stdin, which is then closed; with `input` null, stdin stays open.
 */
export function startProcess(command: string, args: readonly string[], env: Record<string, string | undefined>, input: string | null = ''): Started {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  if (input !== null) child.stdin.end(input);
  return { child, done, out: () => stdout, err: () => stderr };
}

/** {@link startProcess} for the built CLI. */
export function startCli(args: readonly string[], env: Record<string, string | undefined>, input: string | null = ''): Started {
  return startProcess(process.execPath, [cli, ...args], env, input);
}

/** Runs `command` to its end with its output collected. */
export function spawnCollect(command: string, args: readonly string[], env: Record<string, string | undefined> = {}, input = ''): Promise<Run> {
  return startProcess(command, args, env, input).done;
}

/** Polls `cond` (no fixed sleep decides an outcome); fails after 20 s. */
export async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 20 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}
