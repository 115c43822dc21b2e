/**
 * The built CLI (dist/cli/main.js) run as a child process, for the tests
 * where the process boundary is the point (signals, exit codes, terminals).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WAIT_MS, lastLines } from './poll.js';

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

/** What a started process has shown so far: its exit code (if it ended) and the last lines of its stdout and stderr. */
export function describeProcess(p: Started): string {
  const { exitCode, signalCode } = p.child;
  const state = exitCode !== null ? `exited with ${exitCode}` : signalCode !== null ? `killed by ${signalCode}` : 'still running';
  return `process ${state}\nlast stdout lines:\n${lastLines(p.out())}\nlast stderr lines:\n${lastLines(p.err())}`;
}

/**
 * Polls `cond` (no fixed sleep decides an outcome) until it holds; fails
 * after `ms` (generous: a loaded machine), reporting what `from` (a started
 * process) showed. When `from` ends before `cond` holds, fails at once with
 * its exit code and last lines instead of waiting out the limit.
 */
export async function until(cond: () => boolean, from?: Started, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (from !== undefined && (from.child.exitCode !== null || from.child.signalCode !== null)) {
      // The output of a process that ended may still be in its pipes: wait for them to close.
      await from.done;
      if (cond()) return;
      throw new Error(`the process ended before the condition held: ${describeProcess(from)}`);
    }
    if (Date.now() > deadline) throw new Error(`condition not reached within ${Math.round(ms / 1000)} s${from === undefined ? '' : `: ${describeProcess(from)}`}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until `p` has written its first line on stdout (a server's "listening on URL") and returns it; fails with its exit code and last lines when it ends first or after `ms`. */
export async function firstLine(p: Started, ms = WAIT_MS): Promise<string> {
  await until(() => p.out().includes('\n'), p, ms);
  return p.out().split('\n')[0] ?? '';
}
