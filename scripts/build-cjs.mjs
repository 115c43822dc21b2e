/**
 * The CommonJS build, run by `npm run build` after tsc has written the ESM
 * build to dist/. Every library module (everything but the CLI) is converted
 * file by file, not bundled, to dist/cjs/ with the same layout, beside a
 * package.json that marks the folder CommonJS; the declarations are copied,
 * so that `require` users get types of their own (dist/cjs/*.d.ts).
 *
 * Semantics stay those of Node ESM: esbuild's Node mode gives a default import
 * of a CommonJS package its `module.exports`, `import()` becomes `require()`
 * (test runners such as Jest cannot run `import()` in CommonJS), and
 * `import.meta.url` becomes the URL of the module's ESM twin in dist/, so that
 * files found relative to the code (templates/, schemas/, package.json) are
 * found from both builds.
 */
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'cjs');

/** dist/ files of the library: not the CLI, not an earlier CommonJS build. */
function libraryFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(dist, path);
    if (rel === 'cli' || rel === 'cjs') continue;
    if (entry.isDirectory()) files.push(...libraryFiles(path));
    else files.push(path);
  }
  return files;
}

rmSync(out, { recursive: true, force: true });
const files = libraryFiles(dist);
const code = files.filter((f) => f.endsWith('.js'));
if (code.length === 0) throw new Error('build-cjs: dist/ holds no ESM build; run tsc first');

/** `import.meta.url` → the file URL of the same module in the ESM build. */
const importMetaUrl = {
  name: 'import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const twin = relative(dirname(join(out, relative(dist, args.path))), args.path)
        .split(sep)
        .join('/');
      const url = `require("node:url").pathToFileURL(require("node:path").join(__dirname, ${JSON.stringify(twin)})).href`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

await build({
  entryPoints: code,
  outdir: out,
  outbase: dist,
  bundle: false,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  supported: { 'dynamic-import': false },
  plugins: [importMetaUrl],
  logLevel: 'warning',
});
for (const f of files.filter((f) => f.endsWith('.d.ts'))) {
  const to = join(out, relative(dist, f));
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(f, to);
}
writeFileSync(join(out, 'package.json'), '{ "type": "commonjs" }\n');
