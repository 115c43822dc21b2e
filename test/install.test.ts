/**
 * Install only what you use: the server stack is `serve`'s alone (optional
 * peer dependencies, so a library install leaves it out), and each command
 * loads only the modules it uses (read from the built dist/, whose static
 * imports are what Node loads at start-up).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERVE_PACKAGES, missingServePackages, serveInstallAdvice } from '../src/cli/commands/serve.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** The files and packages a built module reaches: through static imports only, or through dynamic import() and the threads it starts too. */
function reach(entry: string, dynamic: boolean): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const code = readFileSync(file, 'utf8');
    const staticImports = /(?:^|\n)(?:import|export)\s(?!type\b)[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)import\s*['"]([^'"]+)['"]/g;
    const specs = [...code.matchAll(staticImports)].map((m) => m[1] ?? m[2] ?? '');
    if (dynamic) specs.push(...[...code.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? ''));
    // The script of a thread it starts (`new URL('./x.js', import.meta.url)`, in a chunk of the bundle
    // `new URL('./x.js', new URL('<its twin in dist/>', import.meta.url).href)`): what the thread imports is loaded on use too.
    const threads = /new URL\([^;\n]*?['"](\.\/[^'"]+\.js)['"],\s*(?:new URL\(\s*['"]([^'"]+)['"],\s*import\.meta\.url\)\.href|import\.meta\.url)\)/g;
    if (dynamic) for (const m of code.matchAll(threads)) visit(resolve(dirname(m[2] === undefined ? file : resolve(dirname(file), m[2])), m[1] ?? ''));
    for (const spec of specs) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec));
    }
  };
  visit(join(root, entry));
  return { files, packages };
}
const local = (files: Set<string>): string[] => [...files].map((f) => f.slice(root.length).replaceAll('\\', '/')).sort();

describe("serve's packages", () => {
  it('are optional peer dependencies (npm leaves them out of a library install) and devDependencies of the repository, never dependencies', () => {
    for (const name of SERVE_PACKAGES) {
      expect(pkg.dependencies, name).not.toHaveProperty([name]);
      expect(pkg.peerDependencies[name], name).toMatch(/^\^\d/);
      expect(pkg.peerDependenciesMeta[name], name).toEqual({ optional: true });
      expect(pkg.devDependencies[name], name).toBe(pkg.peerDependencies[name]);
    }
  });

  it('are reached by no library entry point and by no command but serve, even through import()', () => {
    const entries = ['dist/index.js', 'dist/render/index.js', 'dist/client/index.js', 'dist/mock/index.js', 'dist/fhir/index.js'];
    const commands = readdirSync(join(root, 'dist/cli/commands'))
      .filter((f) => f.endsWith('.js') && f !== 'serve.js')
      .map((f) => `dist/cli/commands/${f}`);
    for (const entry of [...entries, ...commands]) {
      const { packages } = reach(entry, true);
      for (const name of SERVE_PACKAGES) expect(packages.has(name), `${entry} reaches ${name}`).toBe(false);
    }
    const serve = reach('dist/cli/commands/serve.js', true).packages;
    for (const name of SERVE_PACKAGES) expect(serve.has(name), `serve reaches ${name}`).toBe(true);
  });

  it('are loaded by the serve command only when it runs: its module and --help need none of them', () => {
    const { packages, files } = reach('dist/cli/commands/serve.js', false);
    expect([...packages].filter((p) => (SERVE_PACKAGES as readonly string[]).includes(p))).toEqual([]);
    expect(local(files)).not.toContain('dist/serve/start.js');
  });

  it('when missing, make serve say in one line which packages are missing and the npm install line, with the ranges of package.json', () => {
    const missing = missingServePackages((name) => {
      if (name === 'fastify' || name === 'prom-client') throw Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' });
      return `file:///node_modules/${name}/index.js`;
    });
    expect(missing).toEqual(['fastify', 'prom-client']);
    const line = serveInstallAdvice(missing, pkg.peerDependencies);
    expect(line).toBe(
      `abha-link serve needs packages that are not installed (fastify, prom-client): npm install fastify@${pkg.peerDependencies['fastify']} pg@${pkg.peerDependencies['pg']} @electric-sql/pglite@${pkg.peerDependencies['@electric-sql/pglite']} prom-client@${pkg.peerDependencies['prom-client']}`,
    );
    expect(line).not.toContain('\n');
  });

  it('are found in this repository (npm ci installs the devDependencies)', () => {
    expect(missingServePackages()).toEqual([]);
  });
});

describe('fhirpath', () => {
  it('is an optional peer dependency and a devDependency, never a dependency, so a library install leaves it and its 28 packages out', () => {
    expect(pkg.dependencies).not.toHaveProperty(['fhirpath']);
    expect(pkg.peerDependenciesMeta['fhirpath']).toEqual({ optional: true });
    expect(pkg.devDependencies['fhirpath']).toBe(pkg.peerDependencies['fhirpath']);
  });

  it('is imported by no module of any entry point or command (the validator requires it lazily, for an invariant not decided in code)', () => {
    const entries = ['dist/index.js', 'dist/render/index.js', 'dist/client/index.js', 'dist/mock/index.js', 'dist/fhir/index.js', 'dist/cli/main.js'];
    const commands = readdirSync(join(root, 'dist/cli/commands'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => `dist/cli/commands/${f}`);
    for (const entry of [...entries, ...commands]) expect(reach(entry, true).packages.has('fhirpath'), entry).toBe(false);
  });
});

describe('abha-link validate FILE', () => {
  it('loads at start-up neither the lint rules and the builders they read, nor the NDJSON workers, nor the glob matcher', () => {
    const { files, packages } = reach('dist/cli/main.js', false);
    const command = reach('dist/cli/commands/validate.js', false);
    const loaded = local(new Set([...files, ...command.files]));
    expect(loaded).toContain('dist/validation/validate-core.js');
    for (const f of ['dist/validation/lint.js', 'dist/cli/ndjson-workers.js', 'dist/validation/validate.js', 'dist/generated/validators.js']) expect(loaded).not.toContain(f);
    expect(loaded.filter((f) => f.startsWith('dist/builders/') || f.startsWith('dist/generated/validators/'))).toEqual([]);
    expect([...packages, ...command.packages]).not.toContain('tinyglobby');
  });

  it("loads the validator module of the schema it checks and of the schemas that one refers to, no other schema's", () => {
    const link = local(reach('dist/generated/validators/link-carecontext-request.js', false).files);
    expect(link).toEqual(['bundle-data', 'care-context', 'link-carecontext-request', 'runtime'].map((m) => `dist/generated/validators/${m}.js`));
  });
});

describe('the abha-link bin (dist/cli/main.js, a bundle: scripts/build-cli.mjs)', () => {
  const cliDir = join(root, 'dist/cli');
  /** The chunk file a command's loader in main.js imports. */
  const commandChunk = (name: string): string => {
    const m = new RegExp(`\\b${name}: \\{[^}]*?import\\("\\./([^"]+)"\\)`).exec(readFileSync(join(cliDir, 'main.js'), 'utf8'));
    if (m?.[1] === undefined) throw new Error(`main.js has no loader for ${name}`);
    return join(cliDir, m[1]);
  };
  /** The src/ and node_modules/ modules bundled into `files`, read from their source maps (rolldown's own helpers have none). */
  const sourcesOf = (files: Iterable<string>): string[] =>
    [...files].flatMap((f) => (!existsSync(`${f}.map`) ? [] : (JSON.parse(readFileSync(`${f}.map`, 'utf8')) as { sources: string[] }).sources.map((s) => resolve(dirname(f), s).slice(root.length))));

  it('makes abha-link validate FILE load main.js, one chunk for the command and none of the other commands', () => {
    const start = reach('dist/cli/main.js', false);
    const validate = reach(relative(root, commandChunk('validate')), false);
    const files = local(new Set([...start.files, ...validate.files]));
    expect(files.every((f) => f.startsWith('dist/cli/'))).toBe(true);
    expect(files.length).toBeLessThanOrEqual(3);
    const modules = sourcesOf([...start.files, ...validate.files]);
    expect(modules).toEqual(expect.arrayContaining(['src/cli/run.ts', 'src/cli/commands/validate.ts', 'src/validation/validate-core.ts', 'src/generated/validators/runtime.ts']));
    expect(modules.filter((m) => m.startsWith('src/cli/commands/') && m !== 'src/cli/commands/validate.ts')).toEqual([]);
    // src/spec/definition.ts explains a failed document: it is loaded only then (prepareExplanation).
    for (const f of ['src/validation/lint.ts', 'src/cli/ndjson-workers.ts', 'src/validation/validate.ts', 'src/generated/validators.ts', 'src/spec/definition.ts']) expect(modules).not.toContain(f);
    expect(modules.filter((m) => m.startsWith('src/builders/') || (m.startsWith('src/generated/validators/') && !m.endsWith('/runtime.ts')))).toEqual([]);
    // CommonJS packages that Node would lex on every start are bundled, not imported.
    expect(modules.filter((m) => m.startsWith('node_modules/')).map((m) => m.split('/')[1])).toEqual(expect.arrayContaining(['ajv', 'ajv-formats', 'fastest-levenshtein']));
    expect([...start.packages, ...validate.packages]).toEqual([]);
  });

  it('loads the validator chunk of the schema checked and of the schemas it refers to, no other', () => {
    const loaders = readFileSync(commandChunk('validate'), 'utf8');
    const m = /"link-carecontext-request": \(\) => import\("\.\/([^"]+)"\)/.exec(loaders);
    expect(m?.[1]).toBeDefined();
    const chunks = reach(relative(root, join(cliDir, m?.[1] ?? '')), false).files;
    const schemas = sourcesOf([...chunks].filter((f) => f.includes('cli-schema-'))).sort();
    expect(schemas).toEqual(['bundle-data', 'care-context', 'link-carecontext-request'].map((s) => `src/generated/validators/${s}.ts`));
  });

  it('keeps the server stack and fhirpath out of every chunk but those serve loads on use', () => {
    const all = reach('dist/cli/main.js', true).packages;
    expect([...all].filter((p) => p === 'fhirpath')).toEqual([]);
    const serve = reach(relative(root, commandChunk('serve')), false).packages;
    for (const name of SERVE_PACKAGES) expect(serve.has(name), name).toBe(false);
  });
});
