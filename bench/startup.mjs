/**
 * Start-up of the `abha-link` bin against a bare `node -e 0`, measured in the
 * same run in alternating order (the machine is shared): for each command
 * line, the ratio of the medians and each round's ratio.
 *
 * Usage as a script, after `npm run build`:
 *   node bench/startup.mjs [RUNS]                       (default 15 rounds)
 *   BENCH_BEFORE=/work/before node bench/startup.mjs    (also another build, DIR/dist/cli/main.js, in the same rounds)
 * measures `validate FILE` (the target, {@link TARGET_STARTUP}), `--help`
 * and `build FILE`; prints the figures and exits 1 when validate misses the
 * target. bench/run.mjs runs {@link startup} as measurement 4.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, summary } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The most a one-file validate may take, as a multiple of `node -e 0` (issue 24). */
export const TARGET_STARTUP = 1.5;

/** The command lines measured (run from the repository, whose examples/ they read). */
export const COMMAND_LINES = {
  validate: ['validate', join('examples', 'opd-prescription.request.json')],
  help: ['--help'],
  build: ['build', join('examples', 'opd-prescription.input.json')],
};

/** Wall time (ms) of one `node ARGS` from the repository, output discarded; throws when it fails. */
function once(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${r.status}`);
  return ms;
}

/**
 * Wall times of `node -e 0` and of each of `subjects` (label → node
 * arguments), `runs` rounds after 3 warm-ups; each round runs them all, in
 * reverse order every other round. Each subject: its summary, the ratio of
 * its median to node's, and the summary of the rounds' ratios.
 */
export function measure(subjects, runs) {
  const all = [['node -e 0', ['-e', '0']], ...Object.entries(subjects)];
  for (let i = 0; i < 3; i++) for (const [, args] of all) once(args);
  const times = new Map(all.map(([label]) => [label, []]));
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? all : [...all].reverse();
    for (const [label, args] of order) times.get(label).push(once(args));
  }
  const node = times.get('node -e 0');
  const result = { node: summary(node), subjects: {} };
  for (const [label] of all.slice(1)) {
    const t = times.get(label);
    result.subjects[label] = { ms: summary(t), ratio: median(t) / median(node), pairRatios: summary(t.map((x, i) => x / node[i])) };
  }
  return result;
}

/** Wall times (ms) of `abha-link validate examples/opd-prescription.request.json` and of `node -e 0`, `runs` each after 3 warm-ups. */
export function startup(runs) {
  const m = measure({ validate: [join(ROOT, 'dist', 'cli', 'main.js'), ...COMMAND_LINES.validate] }, runs);
  const v = m.subjects.validate;
  return { cli: v.ms, node: m.node, ratio: v.ratio, pairRatios: v.pairRatios };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 15);
  const builds = { after: join(ROOT, 'dist', 'cli', 'main.js') };
  if (process.env.BENCH_BEFORE) builds.before = join(process.env.BENCH_BEFORE, 'dist', 'cli', 'main.js');
  const subjects = {};
  for (const [name, args] of Object.entries(COMMAND_LINES)) for (const [build, main] of Object.entries(builds)) subjects[`${name} (${build})`] = [main, ...args];
  const m = measure(subjects, runs);
  const f = (x) => x.toFixed(1);
  console.log(`node -e 0: ${f(m.node.median)} ms (min ${f(m.node.min)}); ${runs} rounds\n`);
  console.log('| command line | median ms | min ms | ratio of medians to node -e 0 | round ratios (median, min-max) |');
  console.log('|---|---|---|---|---|');
  for (const [label, s] of Object.entries(m.subjects)) {
    const p = s.pairRatios;
    console.log(`| ${label} | ${f(s.ms.median)} | ${f(s.ms.min)} | ${s.ratio.toFixed(2)}x | ${p.median.toFixed(2)}x (${p.min.toFixed(2)}-${p.max.toFixed(2)}) |`);
  }
  const target = m.subjects['validate (after)'].ratio;
  console.log(`\nvalidate: ${target.toFixed(2)}x node -e 0 (target <= ${TARGET_STARTUP}x)`);
  process.exitCode = target <= TARGET_STARTUP ? 0 : 1;
}
