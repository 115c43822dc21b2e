/**
 * Runs the built `abha-link` CLI (dist/, which npm test builds first) in this
 * process instead of a child: runCli with collectors for stdout and stderr,
 * the given bytes as stdin (an empty pipe when none, as spawnSync gives) and
 * the test process's environment plus `env`. The result has the shape of a
 * spawnSync helper's, so a test changes only which helper it calls.
 *
 * Use a real process (spawnSync) where the boundary is the point: signals,
 * a closed stdout, a terminal, stdin from a FIFO or a directory, the exit
 * code of the real binary.
 */
import { Readable, Writable } from 'node:stream';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// The built CLI, loaded by path so that type-checking does not depend on dist/ (its types are those of src/).
const built = new URL('../../dist/cli/run.js', import.meta.url).href;
const { runCli } = (await import(built)) as typeof import('../../src/cli/run.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface InProcessOptions {
  /** What the command reads from stdin; empty when not given. */
  readonly stdin?: string | Uint8Array;
  /** Added to (or, with undefined, removed from) the environment of the test process. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A stream that keeps what is written to it. */
function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/**
 * `abha-link ARGS` in-process, with relative paths resolved against the
 * repository root (where vitest runs; the spawn helpers used it as cwd).
 *
 * @example
 * const r = await runInProcess(['validate', 'examples/lab-order.request.json'])
 * expect(r.code).toBe(0)
 */
export async function runInProcess(args: readonly string[], options: InProcessOptions = {}): Promise<CliResult> {
  if (resolve(process.cwd()) !== resolve(root)) throw new Error(`runInProcess resolves paths against the working directory, which must be ${root} (it is ${process.cwd()})`);
  const out = collector();
  const err = collector();
  const input = options.stdin === undefined ? [] : [typeof options.stdin === 'string' ? Buffer.from(options.stdin) : Buffer.from(options.stdin)];
  const code = await runCli(args, {
    stdout: out.stream,
    stderr: err.stream,
    stdin: Readable.from(input),
    env: { ...process.env, ...options.env },
    now: () => new Date(),
  });
  return { code, stdout: out.text(), stderr: err.text() };
}
