/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self and inclusive
 * time per function, biggest first.
 *
 * Usage as a script: node bench/profile-summary.mjs FILE.cpuprofile [TOP]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const keyOf = (cf) => {
  const file =
    cf.url === ''
      ? ''
      : cf.url
          .replace(/^file:\/\//, '')
          .split('/')
          .slice(-2)
          .join('/');
  return `${cf.functionName || '(anonymous)'}${file === '' ? '' : ` ${file}:${cf.lineNumber + 1}`}`;
};

/**
 * `library` marks functions of dist/ or ajv; `libraryInclusive` lists only those.
 * @returns {{ totalMs: number, self: Row[], inclusive: Row[], libraryInclusive: Row[] }}
 * @typedef {{ fn: string, ms: number, pct: number, library: boolean }} Row
 */
export function summarizeProfile(path, top = 15) {
  const p = JSON.parse(readFileSync(path, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const perNode = new Map();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const d = p.timeDeltas[i] ?? 0;
    total += d;
    perNode.set(p.samples[i], (perNode.get(p.samples[i]) ?? 0) + d);
  }
  const self = new Map();
  const incl = new Map();
  const own = new Set();
  for (const n of p.nodes) if (/\/dist\/|node_modules\/ajv/.test(n.callFrame.url)) own.add(keyOf(n.callFrame));
  for (const [id, t] of perNode) {
    const k = keyOf(byId.get(id).callFrame);
    self.set(k, (self.get(k) ?? 0) + t);
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const key = keyOf(byId.get(cur).callFrame);
      if (seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + t);
    }
  }
  const rows = (m) =>
    [...m]
      .filter(([fn]) => !fn.startsWith('(root)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, us]) => ({ fn, ms: us / 1000, pct: (100 * us) / total, library: own.has(fn) }));
  const libraryIncl = new Map([...incl].filter(([fn]) => own.has(fn)));
  return { totalMs: total / 1000, self: rows(self), inclusive: rows(incl), libraryInclusive: rows(libraryIncl) };
}

export function formatSummary(s) {
  const line = (r) => `  ${r.ms.toFixed(0).padStart(6)} ms ${r.pct.toFixed(1).padStart(5)}%  ${r.fn}`;
  return [`sampled ${s.totalMs.toFixed(0)} ms; self time:`, ...s.self.map(line), 'inclusive time:', ...s.inclusive.map(line)].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (file === undefined) {
    process.stderr.write('usage: node bench/profile-summary.mjs FILE.cpuprofile [TOP]\n');
    process.exit(2);
  }
  process.stdout.write(`${formatSummary(summarizeProfile(file, Number(top ?? 15)))}\n`);
}
