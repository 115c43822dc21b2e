/**
 * The two test projects stay what they say: a `unit` file (every file not in
 * test/integration-files.ts) runs in-process only, so `npm run test:unit`
 * stays quick and needs no Chromium, PostgreSQL or child process.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INTEGRATION_FILES } from './integration-files.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const testFiles = readdirSync(join(root, 'test'))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f}`);

/** What makes a file an integration test, by the modules it imports: a child process, a browser, a database, or the serve application. */
const INTEGRATION_IMPORTS: readonly [RegExp, string][] = [
  [/^(node:)?child_process$/, 'imports child_process'],
  [/^playwright(-core)?$/, 'imports playwright'],
  [/support\/postgres/, 'starts PostgreSQL (test/support/postgres.ts)'],
  [/support\/cli-process/, 'starts the CLI as a process (test/support/cli-process.ts)'],
  [/\/serve\/(app|start)(\.js)?$/, 'starts the serve application'],
];
/** Calls that start Chromium. */
const CHROMIUM_CALL = /\b(renderPdf|findChromium|launchChromium)\(|chromium\.launch/;

/** The module specifiers a test file imports, statically or with import(). */
function importsOf(code: string): string[] {
  return [...code.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2] ?? '');
}

describe('the test projects', () => {
  it('list only integration files that exist', () => {
    for (const f of INTEGRATION_FILES) expect(existsSync(join(root, f)), f).toBe(true);
  });

  it('keep child processes, browsers, databases and serve out of every unit file', () => {
    const unit = testFiles.filter((f) => !INTEGRATION_FILES.includes(f));
    expect(unit.length).toBeGreaterThan(30);
    const found = unit.flatMap((f) => {
      const code = readFileSync(join(root, f), 'utf8');
      const specs = importsOf(code);
      const marks = INTEGRATION_IMPORTS.filter(([re]) => specs.some((s) => re.test(s))).map(([, why]) => `${f} ${why}`);
      return CHROMIUM_CALL.test(code) ? [...marks, `${f} starts Chromium`] : marks;
    });
    expect(found).toEqual([]);
  });
});
