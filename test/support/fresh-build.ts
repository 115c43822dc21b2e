/**
 * Vitest global setup: the CLI tests run the built code in dist/ (in-process
 * or as a child process), so a file of src/ changed since the last build
 * would be tested in its old version. Refuse to start then, saying what to
 * run; `npm test` builds first, so this fires only for a bare `npx vitest`.
 */
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
  throw new Error(`dist/ is older than src/ (${first}${stale.length > 1 ? ` and ${stale.length - 1} more` : ''}): run \`npm run build\` first (npm test does)`);
}
