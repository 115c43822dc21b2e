/**
 * The import graph of src/ has no cycle and follows the layer order written
 * in CONTRIBUTING.md (type imports and `import()` count).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, layerOf, layersOf, layerViolations, specifiersOf } from '../scripts/import-graph.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const graph = importGraph(join(root, 'src'));
const layers = layersOf(readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8'));

describe('the import graph of src/', () => {
  it('has no cycle', () => {
    expect(cycles(graph).map((c) => c.chain.join(' → '))).toEqual([]);
  });

  it('imports only along the layer order of CONTRIBUTING.md, and every module has a layer', () => {
    expect(layerViolations(graph, layers)).toEqual({ upward: [], unplaced: [] });
  });

  it('is read whole: every module, with its static, type and dynamic imports', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('cli/run.ts')).toContain('cli/commands/validate.ts');
    expect(graph.get('index.ts')).toContain('validation/validate.ts');
  });
});

describe('the graph tools', () => {
  it('find every kind of import: static, type-only, re-export, typeof import() and import()', () => {
    const code = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "type E = typeof import('./e.js');",
      "const f = () => import('./f.js');",
      'const g = \'import("./not-an-import.js")\';',
    ].join('\n');
    expect(specifiersOf('x.ts', code)).toEqual(['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js']);
  });

  it('report a cycle as a closed chain of its modules, and none for a chain without one', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    expect(cycles(g)).toEqual([{ modules: ['a.ts', 'b.ts', 'c.ts'], chain: ['a.ts', 'b.ts', 'c.ts', 'a.ts'] }]);
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('report an import from a lower layer to a higher one, and a module in no layer', () => {
    const l = layersOf('```layers\nutil.ts   # helpers\nspec/\ncli/ index.ts\n```');
    expect(l).toEqual([['util.ts'], ['spec/'], ['cli/', 'index.ts']]);
    expect(layerOf(l, 'spec/hi-types.ts')).toBe(1);
    const g = new Map([
      ['util.ts', ['spec/a.ts']],
      ['spec/a.ts', ['util.ts']],
      ['cli/x.ts', ['spec/a.ts', 'index.ts']],
      ['index.ts', ['cli/x.ts']],
      ['other.ts', []],
    ]);
    expect(layerViolations(g, l)).toEqual({ upward: ['util.ts → spec/a.ts (layer 1 imports layer 2)'], unplaced: ['other.ts'] });
  });
});
