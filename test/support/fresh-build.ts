/**
 * Vitest global setup: the CLI tests run the built code in dist/ (in-process
 * or as a child process), so a file of src/ changed since the last build
 * would be tested in its old version. Build first then; `npm test` builds
 * before vitest starts, so this costs nothing there and fires only for a
 * bare `npx vitest` after an edit.
 */
import { execSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The files of src/ whose build in dist/ is missing or older than they are. */
export function staleBuilds(): string[] {
  const src = join(root, 'src');
  return sources(src).filter((file) => {
    const built = join(root, 'dist', relative(src, file)).replace(/\.ts$/, '.js');
    try {
      return statSync(built).mtimeMs < statSync(file).mtimeMs;
    } catch {
      return true;
    }
  });
}

export function setup(): void {
  const stale = staleBuilds();
  if (stale.length === 0) return;
  const first = relative(root, stale[0] ?? '');
  process.stderr.write(`dist/ is older than src/ (${first}${stale.length > 1 ? ` and ${stale.length - 1} more` : ''}): building first\n`);
  execSync('npm run build', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const still = staleBuilds();
  if (still.length > 0) throw new Error(`dist/ is still older than src/ after npm run build (${relative(root, still[0] ?? '')})`);
}
