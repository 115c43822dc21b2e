/**
 * CONTRIBUTING.md stays true: every file its recipes name exists, and the
 * hiType and endpoint recipes name every test file that imports the tables
 * those kinds live in (such a test goes over every hiType or endpoint, so a
 * new one touches it). A test that starts to import one of the tables
 * fails here until the recipe names it.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const CONTRIBUTING = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');

/** The tables an hiType or an endpoint has an entry in: a test file importing one of them goes over every item. */
const TABLES = {
  hiType: ['HI_TYPES', 'HI_TYPE_FACTS', 'HI_TYPE_DISPLAY', 'HI_TYPE_LABELS', 'FHIR_HI_TYPES', 'RECORD_PROFILES', 'OTHER_RECORD_PROFILES', 'PROFILE_BUILDERS', 'PRINTED_DOCUMENT_SLOTS'],
  endpoint: ['ENDPOINTS', 'ENDPOINT_IDS', 'ENDPOINT_BY_ID', 'ENDPOINT_PATHS', 'HANDLERS', 'CLIENT_METHODS', 'SCHEMA_NAMES'],
} as const;

/** The recipes of a CONTRIBUTING text by title ("add an hiType (a kind of health record)"), each with its text up to the next heading. */
function recipesOf(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const [title = '', ...body] = part.split('\n');
    if (title.startsWith('Recipe: ')) out.set(title.slice('Recipe: '.length).trim(), body.join('\n'));
  }
  return out;
}

/** The recipe whose title starts with `start` (its text), or an error naming the titles there are. */
function recipe(recipes: ReadonlyMap<string, string>, start: string): string {
  for (const [title, text] of recipes) if (title.startsWith(start)) return text;
  throw new Error(`CONTRIBUTING.md has no recipe "${start}…"; it has: ${[...recipes.keys()].join('; ')}`);
}

/**
 * The repository paths a text names in code spans: words with a slash (not absolute, not a URL)
 * and file names with an extension. A `<placeholder>` stands for a file to create: its folder must exist.
 */
function pathsIn(text: string): string[] {
  const words = [...text.matchAll(/`([^`]+)`/g)].flatMap((m) => (m[1] ?? '').split(/\s+/));
  const isPath = (w: string): boolean => !w.startsWith('/') && !w.includes('://') && !w.includes(':') && (/^[\w.-]+(\/[\w.<>-]*)+$/.test(w) || /^[\w-]+(\.[\w-]+)*\.(md|ts|mjs|json|hbs)$/.test(w));
  return [...new Set(words.filter(isPath))];
}

/** Whether a named path exists (a folder named with its trailing slash must be a folder; a placeholder's folder must exist). */
function pathExists(path: string, base = root): boolean {
  if (path.includes('<')) return existsSync(join(base, dirname(path.slice(0, path.indexOf('<')) + 'x')));
  const full = join(base, path);
  return existsSync(full) && (!path.endsWith('/') || statSync(full).isDirectory());
}

/** The test files (paths from the repository root) that import any of `names`, statically or with `await import`. */
function testsImporting(names: readonly string[], dir = join(root, 'test')): string[] {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.test\.[cm]?ts$/.test(f));
  const imported = (source: string): string[] =>
    [...source.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"][^'"]+['"]|\{([^}]*)\}\s*=\s*await\s+import\(/g)].flatMap((m) =>
      (m[1] ?? m[2] ?? '').split(',').map(
        (n) =>
          n
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+|\s*:\s*/)[0] ?? '',
      ),
    );
  return files
    .filter((f) => imported(readFileSync(join(dir, f), 'utf8')).some((n) => names.includes(n)))
    .map((f) => `test/${f.split('\\').join('/')}`)
    .sort();
}

/** The test files of `tests` that a recipe's text does not name. */
function unnamedTests(recipeText: string, tests: readonly string[]): string[] {
  const named = new Set(pathsIn(recipeText));
  return tests.filter((t) => !named.has(t));
}

const recipes = recipesOf(CONTRIBUTING);

describe('CONTRIBUTING.md', () => {
  it('has the four recipes', () => {
    expect([...recipes.keys()].map((t) => t.split(' ').slice(0, 3).join(' '))).toEqual(['add a lint', 'add a printable', 'add an endpoint', 'add an hiType']);
  });

  it.each([...recipes.keys()])('names only files and folders that exist in the recipe "%s"', (title) => {
    const paths = pathsIn(recipes.get(title) ?? '');
    expect(paths.length, title).toBeGreaterThan(0);
    expect(paths.filter((p) => !pathExists(p))).toEqual([]);
  });

  it.each([
    ['add an hiType', TABLES.hiType],
    ['add an endpoint', TABLES.endpoint],
  ] as const)('recipe "%s" names every test file that imports its tables (%j)', (start, names) => {
    const tests = testsImporting(names);
    expect(tests.length).toBeGreaterThan(1);
    expect(unnamedTests(recipe(recipes, start), tests)).toEqual([]);
  });
});

describe('the checks of this file catch what they are for', () => {
  it('finds a named file that does not exist, and takes a placeholder for a file to create in a folder that exists', () => {
    expect(pathExists('src/spec/hi-types.ts')).toBe(true);
    expect(pathExists('src/render/labels-old.ts')).toBe(false);
    expect(pathExists('templates/<name>.hbs')).toBe(true);
    expect(pathExists('src/no-such-folder/<name>.ts')).toBe(false);
    expect(pathExists('src/spec/hi-types.ts/')).toBe(false);
    expect(pathsIn('1. `src/x/y.ts`: its entry; run `npm run schemas` and `abha-link render -o /tmp/x.html examples/a.input.json`; `README.md`, `labels.<key>`, `https://example.org/a/b`')).toEqual([
      'src/x/y.ts',
      'examples/a.input.json',
      'README.md',
    ]);
  });

  it('finds a test of the tables that a recipe leaves out', () => {
    const text = recipe(recipes, 'add an hiType');
    const tests = testsImporting(TABLES.hiType);
    expect(tests).toContain('test/hi-types.test.ts');
    expect(unnamedTests(text.replaceAll('`test/hi-types.test.ts`', 'the registry test'), tests)).toEqual(['test/hi-types.test.ts']);
    expect(unnamedTests(recipe(recipes, 'add an endpoint').replaceAll('test/schemas.test.ts', 'test/schema.test.ts'), testsImporting(TABLES.endpoint))).toEqual(['test/schemas.test.ts']);
  });

  it('reads the names of imports over several lines, and takes no name in a string for an import', () => {
    const mentions = testsImporting(['ENDPOINT_PATHS']);
    expect(mentions).toEqual(expect.arrayContaining(['test/endpoints.test.ts', 'test/mock.test.ts']));
    // public-api.test.ts names the exports as strings only: a name in a string is no import.
    expect(testsImporting(['HI_TYPES'])).not.toContain('test/public-api.test.ts');
  });
});
