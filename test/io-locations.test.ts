import { describe, expect, it } from 'vitest';
import { issueLines, pointerLocator } from '../src/cli/io.js';
import type { Issue } from '../src/index.js';

/** How many times String.prototype.charCodeAt runs during `fn`: a deterministic count of characters scanned. */
function charsScanned(fn: () => void): number {
  const original = String.prototype.charCodeAt;
  let n = 0;
  String.prototype.charCodeAt = function (this: string, i: number): number {
    n++;
    return original.call(this, i);
  };
  try {
    fn();
  } finally {
    String.prototype.charCodeAt = original;
  }
  return n;
}

/** A pretty-printed document with `n` medications, and the path of every drugName. */
function medicationsDoc(n: number): { text: string; paths: string[] } {
  const doc = { medications: Array.from({ length: n }, (_, i) => ({ drugName: `Drug ${i}`, instructions: 'after food' })) };
  return { text: JSON.stringify(doc, null, 2), paths: doc.medications.map((_, i) => `/medications/${i}/drugName`) };
}

const issue = (path: string, code = 'type'): Issue => ({ path, code, message: 'x must be a string', severity: 'error' });

describe('pointerLocator: lines of JSON Pointers (issue 10, item 5)', () => {
  it('finds the line of a member, of an array item, and of the nearest parent of a missing field', () => {
    const text = '{\n  "a": {\n    "b": [\n      1,\n      {"c": 2}\n    ]\n  }\n}';
    const lineOf = pointerLocator(text);
    expect(lineOf('')).toBe(1);
    expect(lineOf('/a')).toBe(2);
    expect(lineOf('/a/b/0')).toBe(4);
    expect(lineOf('/a/b/1/c')).toBe(5);
    expect(lineOf('/a/b/1/missing')).toBe(5);
    expect(lineOf('/nope')).toBe(1);
  });

  it('locates every path of a document with one scan of the text: doubling the document about doubles the work', () => {
    const small = medicationsDoc(2000);
    const large = medicationsDoc(4000);
    const locateAll = ({ text, paths }: { text: string; paths: string[] }): number =>
      charsScanned(() => {
        const lineOf = pointerLocator(text);
        for (const p of paths) lineOf(p);
      });
    const w1 = locateAll(small);
    const w2 = locateAll(large);
    expect(w2).toBeLessThan(2.5 * w1);
    expect(pointerLocator(large.text)(large.paths[3999] ?? '')).toBe(large.text.split('\n').findIndex((l) => l.includes('"Drug 3999"')) + 1);
  });

  it('finds an unknown key given by position (#N) at its line, counting keys in JavaScript order', () => {
    const text = '{\n  "name": "x",\n  "secret key": 1,\n  "7": 2,\n  "inner": {\n    "a": 1,\n    "b": 2\n  }\n}';
    const lineOf = pointerLocator(text);
    // JavaScript order: "7", "name", "secret key", "inner"
    expect(lineOf('/#0')).toBe(4);
    expect(lineOf('/#1')).toBe(2);
    expect(lineOf('/#2')).toBe(3);
    expect(lineOf('/inner/#1')).toBe(7);
    expect(lineOf('/inner/#9')).toBe(5);
  });

  it('gives line 1 rather than failing on text nested too deeply to parse', () => {
    const depth = 100_000;
    expect(pointerLocator(`{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`)('/a')).toBe(1);
  });
});

describe('issueLines: printed issues per document are capped', () => {
  it('prints every issue of a short list', () => {
    expect(issueLines([issue('/a'), { ...issue('/b', 'x'), severity: 'warning' }], 'f.json', () => 3)).toBe('f.json:3 /a x must be a string (type)\nf.json:3 /b warning: x must be a string (x)\n');
  });

  it('prints at most 20 issues, then how many more and where to find them', () => {
    const issues = Array.from({ length: 75 }, (_, i) => issue(`/a/${i}`));
    const lines = issueLines(issues, 'f.json', () => 1, undefined, 'use --format json for all')
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[19]).toBe('f.json:1 /a/19 x must be a string (type)');
    expect(lines[20]).toBe('f.json: … and 55 more; use --format json for all');
    // a command without a way to show them all gives no hint
    expect(
      issueLines(issues, 'f.json', () => 1)
        .trimEnd()
        .split('\n')[20],
    ).toBe('f.json: … and 55 more');
  });

  it('keeps the too-many-issues summary of the library visible after the cut', () => {
    const issues = [
      ...Array.from({ length: 100 }, (_, i) => issue(`/a/${i}`)),
      { path: '', code: 'too-many-issues', message: 'the document has 5 more issues that are not listed', severity: 'error' } as const,
    ];
    const lines = issueLines(issues, 'f.json', () => 1, 20, 'use --format json for all')
      .trimEnd()
      .split('\n');
    expect(lines.slice(20)).toEqual(['f.json: … and 80 more; use --format json for all', 'f.json:1 / the document has 5 more issues that are not listed (too-many-issues)']);
  });

  it('looks up the line of printed issues only', () => {
    const seen: string[] = [];
    issueLines(
      Array.from({ length: 1000 }, (_, i) => issue(`/a/${i}`)),
      'f.json',
      (p) => (seen.push(p), 1),
    );
    expect(seen).toHaveLength(20);
  });
});
