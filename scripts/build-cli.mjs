/**
 * The CLI bundle, run by `npm run build` after tsc: src/cli/main.ts and every
 * module it reaches are bundled by rolldown into dist/cli/main.js and chunks
 * beside it (dist/cli/cli-*.js), with linked source maps (so that
 * `node --enable-source-maps`, or ABHA_LINK_DEBUG=1 for a command's modules,
 * gives stack frames as src/ files and lines). Node 20 reads, links and evaluates every ESM file on its own
 * (and lexes every CommonJS package an ESM file imports); the per-file build
 * made `abha-link validate FILE` load some twenty files, the bundle five
 * (issue 24: start-up within 1.5x `node -e 0`).
 *
 * The chunks:
 * - main.js: what every command needs (the entry, run.ts, io.ts and what they import);
 * - one chunk per command ({@link commandGroups}), holding the modules it imports statically; a module
 *   two commands share lies in the chunk of the first of {@link COMMAND_ORDER}
 *   (validate first: its chunk is exactly what it needs);
 * - the per-schema validator modules stay one chunk each ({@link validatorChunkOf}),
 *   loaded on use; their ajv helpers (runtime.ts) lie in the validate chunk;
 * - rolldown's automatic chunks for what is left (modules only reached by import()).
 *
 * Unchanged: the library entry points (dist/index.js, ...), tsc's per-file
 * dist/cli/*.js (tests and scripts import them), the workers
 * (dist/cli/ndjson-worker.js, dist/serve/work-worker.js, started from the
 * per-file build). Semantics stay those of the per-file build:
 * `import.meta.url` becomes the URL of the module's twin in dist/ (so
 * package.json, templates/, schemas/, examples/ and worker scripts are found
 * as before); packages stay imports of node_modules, except the small ones
 * on the commands' paths ({@link INLINE_PACKAGES}); the large generated data
 * modules ({@link SHARED_MODULES}) are imported from dist/, not copied.
 */
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const out = join(root, 'dist', 'cli');

/**
 * Dependencies bundled into the CLI: plain JavaScript that reads no file of
 * its own, on the paths of the commands (ajv's runtime, ajv-formats,
 * fastest-levenshtein, sax: CommonJS that Node would lex; date-fns,
 * csv-parse: ES modules of many files). All others (the optional peers,
 * handlebars, hyphen, jsonc-parser, qrcode-generator, tinyglobby) stay imports
 * of node_modules.
 */
export const INLINE_PACKAGES = ['ajv', 'ajv-formats', 'fastest-levenshtein', 'sax', 'date-fns', 'csv-parse'];

/**
 * Generated modules of data alone (no state, no classes), large, imported
 * from tsc's build in dist/ instead of being copied into the bundle: the
 * package carries them once.
 */
const SHARED_MODULES = ['generated/ndhm-profiles.ts', 'generated/r4-model.ts', 'render/generated/templates.ts'];

/** An import of a {@link SHARED_MODULES} module → an import of its file in dist/, relative to dist/cli/. */
const sharedModules = {
  name: 'shared-modules',
  resolveId(source, importer) {
    if (importer === undefined || !source.startsWith('.')) return null;
    const path = join(dirname(importer), source).replace(/\.js$/, '.ts');
    if (!SHARED_MODULES.includes(relative(src, path).split(sep).join('/'))) return null;
    const twin = join(root, 'dist', relative(src, path)).replace(/\.ts$/, '.js');
    return { id: `./${relative(out, twin).split(sep).join('/')}`, external: true };
  },
};

/** The commands whose chunks take shared modules first: the quickest start-up is owed to validate, then build. */
const COMMAND_ORDER = ['validate', 'build', 'schemas', 'fhir', 'render', 'submit', 'mock', 'openapi', 'serve'];

/** The prefix of the chunk files, so that a rebuild finds and removes the previous ones. */
const CHUNK_PREFIX = 'cli-';

/** The package a bare specifier names. */
const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec));

/** Bare specifiers stay imports resolved by Node at run time, except {@link INLINE_PACKAGES}. */
function isExternal(id) {
  if (id.startsWith('node:')) return true;
  if (id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false;
  return !INLINE_PACKAGES.includes(packageOf(id));
}

/** `import.meta.url` → the URL of the module's twin in tsc's dist/, written relative to dist/cli/ where every chunk lies. */
const importMetaUrl = {
  name: 'import-meta-url',
  transform(code, id) {
    if (!id.startsWith(src) || !code.includes('import.meta.url')) return null;
    const twin = join(root, 'dist', relative(src, id)).replace(/\.ts$/, '.js');
    const rel = relative(out, twin).split(sep).join('/');
    return { code: code.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), map: null };
  },
};

const validators = join(src, 'generated', 'validators');

/**
 * Modules that validate loads only on demand (src/spec/definition.ts, to
 * explain a document that failed), each a chunk of its own: in a command's
 * chunk, they would bring that command's other modules along.
 */
const OWN_CHUNKS = ['spec/definition.ts'];

/** The schema `validate` checks by default: its validator and those it refers to make one chunk. */
const DEFAULT_SCHEMA = 'link-carecontext-request';

/**
 * A per-schema validator module: a chunk of its own, but those the default
 * schema's validator imports lie in its chunk (its ajv helpers, runtime.ts,
 * go with validate); and the {@link OWN_CHUNKS}.
 */
function validatorChunkOf(id) {
  const own = relative(src, id).split(sep).join('/');
  if (OWN_CHUNKS.includes(own)) return own.replace(/\.ts$/, '').replaceAll('/', '-');
  if (dirname(id) !== validators || id.endsWith(`${sep}runtime.ts`)) return null;
  return owners.get(id) === DEFAULT_SCHEMA ? `schema-${DEFAULT_SCHEMA}` : `schema-${basename(id, '.ts')}`;
}

/** The modules `id` imports statically, itself included, transitively (getModuleInfo: the plugin context's). */
function staticClosure(id, getModuleInfo, seen = new Set()) {
  if (seen.has(id)) return seen;
  seen.add(id);
  for (const dep of getModuleInfo(id)?.importedIds ?? []) staticClosure(dep, getModuleInfo, seen);
  return seen;
}

/**
 * Module id → the first command of COMMAND_ORDER that imports it statically
 * (or DEFAULT_SCHEMA for its validators); filled once the module graph is known.
 */
const owners = new Map();
const commandOwners = {
  name: 'command-owners',
  buildEnd() {
    owners.clear();
    const getInfo = (id) => this.getModuleInfo(id);
    for (const m of staticClosure(join(validators, `${DEFAULT_SCHEMA}.ts`), getInfo)) if (validatorChunkOf(m) !== null) owners.set(m, DEFAULT_SCHEMA);
    for (const name of COMMAND_ORDER) {
      const closure = staticClosure(join(src, 'cli', 'commands', `${name}.ts`), getInfo);
      if (name === 'validate') staticClosure(join(validators, 'runtime.ts'), getInfo, closure);
      for (const m of closure) if (!owners.has(m)) owners.set(m, name);
    }
  },
};

/**
 * One group per command, in COMMAND_ORDER's order of priority, below main's.
 * The validators' groups come right after validate's (which holds their
 * runtime), before the other commands' (build's holds validators.ts, which
 * imports every validator).
 */
const commandGroups = COMMAND_ORDER.map((name, i) => ({ name, test: (id) => owners.get(id) === name, priority: COMMAND_ORDER.length - i }));
const validatorGroup = { name: validatorChunkOf, debugName: 'validators', priority: COMMAND_ORDER.length - 0.5 };

for (const f of readdirSync(out)) if (f.startsWith(CHUNK_PREFIX) || f === 'main.js.map') rmSync(join(out, f));

await build({
  input: { main: join(src, 'cli', 'main.ts') },
  platform: 'node',
  external: isExternal,
  plugins: [sharedModules, importMetaUrl, commandOwners],
  logLevel: 'warn',
  // A validator module is imported statically by validators.ts (every schema, for the library's validate()) and lazily by validate-core.ts: both as meant.
  onLog: (level, log, handler) => (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' ? undefined : handler(level, log)),
  output: {
    dir: out,
    format: 'esm',
    chunkFileNames: `${CHUNK_PREFIX}[name]-[hash].js`,
    // Maps name src/ files and lines (enough for a stack trace) without carrying their text.
    sourcemap: true,
    sourcemapExcludeSources: true,
    // Less text for Node to decode and V8 to scan at each start: no comments (the maps lead to them), ASCII only
    // (one non-ASCII character makes a whole chunk a two-byte string).
    comments: false,
    charset: 'ascii',
    codeSplitting: {
      groups: [{ name: 'main', tags: ['$initial'], priority: COMMAND_ORDER.length + 1 }, validatorGroup, ...commandGroups],
    },
  },
});
