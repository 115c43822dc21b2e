/**
 * Start-up of a one-file `abha-link validate` against a bare `node -e 0`,
 * measured in the same run in alternating order (the machine is shared): the
 * ratio of the medians, and each pair's ratio.
 *
 * Usage as a script, after `npm run build`: node bench/startup.mjs [RUNS]
 * (default 15); prints the figures and exits 1 when the ratio misses
 * {@link TARGET_STARTUP}. bench/run.mjs runs it as measurement 4.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, summary } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The most a one-file validate may take, as a multiple of `node -e 0` (issue 24). */
export const TARGET_STARTUP = 1.5;

/** Wall times (ms) of `abha-link validate examples/opd-prescription.request.json` and of `node -e 0`, `runs` each after 3 warm-ups. */
export function startup(runs) {
  const cliArgs = [join(ROOT, 'dist', 'cli', 'main.js'), 'validate', join('examples', 'opd-prescription.request.json')];
  const nodeArgs = ['-e', '0'];
  const once = (args) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${r.status}`);
    return ms;
  };
  for (let i = 0; i < 3; i++) {
    once(nodeArgs);
    once(cliArgs);
  }
  const cli = [];
  const node = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      node.push(once(nodeArgs));
      cli.push(once(cliArgs));
    } else {
      cli.push(once(cliArgs));
      node.push(once(nodeArgs));
    }
  }
  return { cli: summary(cli), node: summary(node), ratio: median(cli) / median(node), pairRatios: summary(cli.map((c, i) => c / node[i])) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const m = startup(Number(process.argv[2] ?? 15));
  const f = (x) => x.toFixed(1);
  console.log(`validate ${f(m.cli.median)} ms (min ${f(m.cli.min)}), node -e 0 ${f(m.node.median)} ms (min ${f(m.node.min)})`);
  console.log(`ratio of medians ${m.ratio.toFixed(2)}x, ratio of minima ${(m.cli.min / m.node.min).toFixed(2)}x, pair ratios median ${m.pairRatios.median.toFixed(2)}x (target <= ${TARGET_STARTUP}x)`);
  process.exitCode = m.ratio <= TARGET_STARTUP ? 0 : 1;
}
