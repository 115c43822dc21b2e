/** `npm run schemas`: writes every file generateAll() produces and removes stale schema and validator files. */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateAll } from './generate.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = generateAll();
for (const dir of ['schemas', 'src/generated/validators']) {
  mkdirSync(join(root, dir), { recursive: true });
  for (const old of readdirSync(join(root, dir))) {
    if (!files.has(`${dir}/${old}`)) rmSync(join(root, dir, old));
  }
}
for (const [path, content] of files) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}
console.log(`wrote ${files.size} files`);
