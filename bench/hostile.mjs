/**
 * Measurement 5 of the suite: the hostile documents of the adversarial review
 * (issue 10, items 4 and 5; see gen-hostile.mjs), each against a baseline of
 * the same run.
 *
 *   5a/5b  validate(JSON.parse(text)) of a link request with 40,000 / 80,000
 *          wrong-typed care contexts (80 KB / 160 KB) vs JSON.parse(text):
 *          linear collection keeps the ratio about the same at both sizes
 *   5c     `abha-link validate --lint FILE` (text: every issue located by line)
 *          vs `--format json` of the 2.8 MB request with 40,000 lint warnings,
 *          child processes, wall time
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { manyWarnings, wrongTypedItems } from './gen-hostile.mjs';
import { summary } from './lib.mjs';

function wall(args, cwd) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd, stdio: 'ignore' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')} exited with ${r.status}`);
  return performance.now() - t0;
}

/**
 * @param {{ validate: Function, compare: Function, cli: string, root: string, dataDir: string, runs: number, log: (s: string) => void }} o
 */
export function measureHostile({ validate, compare, cli, root, dataDir, runs, log }) {
  const wrongTyped = {};
  for (const bytes of [80_000, 160_000]) {
    const text = wrongTypedItems(bytes);
    const check = validate('link-carecontext-request', JSON.parse(text));
    if (check.success || check.omitted === 0) throw new Error('the wrong-typed document should fail with issues omitted');
    const m = compare(
      () => validate('link-carecontext-request', JSON.parse(text)).issues.length,
      () => JSON.parse(text).careContexts.length,
    );
    wrongTyped[bytes] = { bytes: text.length, ...m, secondsPerValidate: 1 / m.subject.median };
    log(`  ${text.length} bytes: validate ${m.subject.median.toFixed(1)} ops/s, JSON.parse ${m.baseline.median.toFixed(1)} ops/s, ratio ${m.ratio.median.toFixed(4)}x`);
  }
  const file = join(dataDir, 'many-warnings.json');
  writeFileSync(file, manyWarnings());
  const text = [];
  const json = [];
  const ratio = [];
  for (let i = 0; i < runs; i++) {
    const t = wall([cli, 'validate', '--lint', file], root);
    const j = wall([cli, 'validate', '--lint', '--format', 'json', file], root);
    text.push(t);
    json.push(j);
    ratio.push(t / j);
  }
  rmSync(file, { force: true });
  const located = { textMs: summary(text), jsonMs: summary(json), ratio: summary(ratio) };
  log(`  2.8 MB, 40,000 warnings: text ${located.textMs.median.toFixed(0)} ms, json ${located.jsonMs.median.toFixed(0)} ms, ratio ${located.ratio.median.toFixed(2)}x`);
  return { wrongTyped, located };
}
