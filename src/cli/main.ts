#!/usr/bin/env node
/**
 * The `abha-link` process: runs the command line with the process's own
 * streams, environment and clock (see runCli in run.ts) and sets the exit code.
 *
 * Exit codes: 0 success; 1 invalid documents or a failed operation (also when
 * stdout closed before the end); 2 usage errors, unreadable input, JSON that
 * does not parse; 3 an internal error; 130 stopped by Ctrl-C (SIGINT).
 */
import { EXIT, processIo } from './io.js';
import { runCli } from './run.js';

// The bin is a bundle (scripts/build-cli.mjs): with ABHA_LINK_DEBUG=1, the
// stack of an internal error names the src/ lines of the command's modules
// (loaded after this line) through the bundle's source maps.
if (process.env.ABHA_LINK_DEBUG === '1') process.setSourceMapsEnabled(true);

// Ctrl-C stops every command with exit 130. A command that stops gracefully
// on SIGINT (submit finishes its journal, mock closes its server) installs its
// own listener and sets its own exit code; this one then stands aside.
const onSigint = (): void => {
  if (process.listenerCount('SIGINT') > 1) return;
  process.stderr.write('abha-link: stopped by Ctrl-C\n');
  process.exit(EXIT.interrupted);
};
process.on('SIGINT', onSigint);

// A write that fails after the run has ended: a reader that went away is not an error any more.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
});

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
