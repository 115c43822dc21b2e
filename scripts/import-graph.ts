/**
 * The import graph of src/: every relative import of every module (static
 * imports and re-exports, `import type`, `typeof import('…')` and dynamic
 * `import('…')` with a literal), its cycles, and the imports that run
 * against the layer order written in CONTRIBUTING.md.
 *
 * `npx tsx scripts/import-graph.ts` prints the cycles and the violations;
 * test/import-graph.test.ts fails on any.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Module path (relative to src/, with `.ts`) → the src/ modules it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Every `.ts` file under `dir`, relative to it, with `/` separators. */
function tsFiles(dir: string, under = ''): string[] {
  return readdirSync(join(dir, under), { withFileTypes: true }).flatMap((e) => {
    const path = under === '' ? e.name : `${under}/${e.name}`;
    if (e.isDirectory()) return tsFiles(dir, path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The module specifiers one source file names: imports, re-exports, import types and literal dynamic imports. */
export function specifiersOf(fileName: string, code: string): string[] {
  const file = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The import graph of the modules under `srcDir` (only imports between them; packages and node: modules are left out). */
export function importGraph(srcDir: string): ImportGraph {
  const files = tsFiles(srcDir);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = specifiersOf(file, readFileSync(join(srcDir, file), 'utf8'))
      .filter((s) => s.startsWith('.'))
      .map((s) => posix.normalize(posix.join(posix.dirname(file), s)).replace(/\.js$/, '.ts'))
      .map((t) => (known.has(t) ? t : known.has(`${t}/index.ts`) ? `${t}/index.ts` : t));
    graph.set(file, [...new Set(targets.filter((t) => known.has(t)))].sort());
  }
  return graph;
}

/** An import cycle: the modules of one strongly connected component, and one closed chain through it (a → b → … → a). */
export interface Cycle {
  modules: string[];
  chain: string[];
}

/** The strongly connected components of more than one module (or of one importing itself). */
export function cycles(graph: ImportGraph): Cycle[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const strongConnect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) strongConnect(v);
  return components.map((modules) => ({ modules, chain: chainThrough(graph, new Set(modules)) }));
}

/** A shortest closed chain from the first module of a component back to it, staying inside the component. */
function chainThrough(graph: ImportGraph, component: ReadonlySet<string>): string[] {
  const [start] = [...component].sort();
  const previous = new Map<string, string>();
  const queue = [start!];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const chain = [v];
        while (chain[0] !== start) chain.unshift(previous.get(chain[0]!)!);
        return [...chain, start!];
      }
      if (!previous.has(w) && w !== start) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...component];
}

/** The layer order: layers lowest first, each a list of path patterns relative to src/ (`dir/` for a folder, else a file). */
export type Layers = readonly (readonly string[])[];

/** Reads the layer order from the fenced ```layers block of CONTRIBUTING.md: one layer a line, lowest first, patterns separated by spaces, `#` starts a comment. */
export function layersOf(markdown: string): Layers {
  const block = /```layers\n([\s\S]*?)```/.exec(markdown)?.[1];
  if (block === undefined) throw new Error('CONTRIBUTING.md has no ```layers block');
  return block
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '')
    .map((line) => line.split(/\s+/));
}

/** The layer of a module: the index of the layer whose longest matching pattern names it, or undefined when none does. */
export function layerOf(layers: Layers, file: string): number | undefined {
  let best: { layer: number; length: number } | undefined;
  layers.forEach((patterns, layer) => {
    for (const p of patterns) {
      const matches = p.endsWith('/') ? file.startsWith(p) : file === p;
      if (matches && (best === undefined || p.length > best.length)) best = { layer, length: p.length };
    }
  });
  return best?.layer;
}

/** Each import from a lower layer to a higher one, as `from → to`, and each module no layer names. */
export function layerViolations(graph: ImportGraph, layers: Layers): { upward: string[]; unplaced: string[] } {
  const upward: string[] = [];
  const unplaced: string[] = [];
  for (const [from, targets] of graph) {
    const fromLayer = layerOf(layers, from);
    if (fromLayer === undefined) {
      unplaced.push(from);
      continue;
    }
    for (const to of targets) {
      const toLayer = layerOf(layers, to);
      if (toLayer !== undefined && toLayer > fromLayer) upward.push(`${from} → ${to} (layer ${fromLayer + 1} imports layer ${toLayer + 1})`);
    }
  }
  return { upward: upward.sort(), unplaced: unplaced.sort() };
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (process.argv[1] !== undefined && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') {
  const graph = importGraph(join(root, 'src'));
  const found = cycles(graph);
  const { upward, unplaced } = layerViolations(graph, layersOf(readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8')));
  const inCycles = found.reduce((n, c) => n + c.modules.length, 0);
  const lines = [
    `${graph.size} modules; ${found.length} cycles (${inCycles} modules); ${upward.length} imports against the layer order; ${unplaced.length} modules in no layer`,
    ...found.map((c) => `cycle of ${c.modules.length}: ${c.chain.join(' → ')}${c.modules.length > c.chain.length - 1 ? ` (also ${c.modules.filter((m) => !c.chain.includes(m)).join(', ')})` : ''}`),
    ...upward.map((u) => `against the layers: ${u}`),
    ...unplaced.map((u) => `in no layer: ${u}`),
  ];
  // One write: a reader that stops early (| head) gets what fits, without an EPIPE per line.
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exitCode = found.length + upward.length + unplaced.length === 0 ? 0 : 1;
}
