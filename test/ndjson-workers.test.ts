/**
 * `validate --ndjson --jobs N`: the same output as one thread, in input order,
 * from files and stdin, with the work really done by worker threads. Runs the
 * built CLI (in-process) and dist/cli/ndjson-workers.js (npm test builds first).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, type CliResult } from './support/run-cli.js';
import { lineBatches } from '../src/cli/io.js';
import { forEachLine } from '../src/cli/ndjson-workers.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-ndjson-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[], input?: string): Promise<CliResult> {
  return runInProcess(args, { stdin: input ?? '' });
}

const example = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(root, `examples/${name}.request.json`), 'utf8')) as Record<string, unknown>;

/**
 * About 3 MB of NDJSON (several batches of the reader, so lines straddle
 * chunk and batch boundaries) mixing every kind of line: valid, invalid,
 * not JSON, blank, whitespace-only (also U+00A0), CRLF, Devanagari, a line
 * with leading spaces, a byte-order mark on line 1, no newline at the end.
 */
function mixed(): string {
  const good = JSON.stringify(example('lab-order'));
  const multi = JSON.stringify(example('multi-care-context'));
  const bad = JSON.stringify({ ...example('opd-prescription'), visitId: 7 });
  const native = JSON.stringify({ ...example('opd-prescription'), hospitalName: 'सञ्जीवनी चिकित्सालय' });
  const kinds = [`${good}\n`, `${bad}\r\n`, '\n', `${multi}\n`, '{"visitId": }\n', '   \t \n', `${native}\n`, '\u00a0\n', `   ${good}\r\n`, 'not json at all\n', `${bad}\n`];
  let s = '\ufeff';
  for (let i = 0; s.length < 3_000_000; i++) s += kinds[(i * 7 + (i >> 3)) % kinds.length] ?? '';
  return `${s}${good}`;
}

describe('validate --ndjson --jobs', () => {
  const text = mixed();
  const path = join(tmp, 'mixed.ndjson');
  writeFileSync(path, text);
  const lines = text.split('\n').length;

  it('gives exactly the output and exit code of --jobs 1, in json and in text format', async () => {
    for (const format of ['json', 'text']) {
      const one = await run(['validate', '--ndjson', '--jobs', '1', '--format', format, path]);
      expect(one.code).toBe(2);
      expect(one.stdout.split('\n').length).toBeGreaterThan(1000);
      for (const jobs of ['2', '3']) {
        const many = await run(['validate', '--ndjson', '--jobs', jobs, '--format', format, path]);
        expect(many.code).toBe(one.code);
        expect(many.stderr).toBe(one.stderr);
        expect(many.stdout === one.stdout).toBe(true);
      }
    }
  });

  it('keeps input order and numbers documents and lines as the file does', async () => {
    const r = await run(['validate', '--ndjson', '--jobs', '2', '--format', 'json', path]);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index: number; valid: boolean; errors: Array<{ code: string; message: string }> });
    expect(out.map((o) => o.index)).toEqual(out.map((_, i) => i));
    const nonBlank = text
      .replace(/^\ufeff/, '')
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(out.length).toBe(nonBlank.length);
    // Every not-JSON error names the line of the file it is on.
    const fileLines = text.split('\n');
    for (const o of out) {
      const e = o.errors[0];
      if (e?.code !== 'invalid-json') continue;
      const line = Number(/^line (\d+),/.exec(e.message)?.[1]);
      const content = fileLines[line - 1]?.trim();
      expect(content === '{"visitId": }' || content === 'not json at all').toBe(true);
    }
  });

  it('names the file line of each issue in text output', async () => {
    const r = await run(['validate', '--ndjson', '--jobs', '2', path]);
    const fileLines = text.split('\n');
    const reported = r.stdout.trim().split('\n');
    expect(reported.length).toBeGreaterThan(100);
    for (const l of reported) {
      const m = /^(.+?):(\d+)(?::\d+)? (.*)$/.exec(l);
      expect(m?.[1]).toBe(path);
      const content = fileLines[Number(m?.[2]) - 1] ?? '';
      if (m?.[3]?.startsWith('/visitId')) expect(content).toContain('"visitId":7');
      else expect(m?.[3]).toMatch(/^invalid JSON/);
    }
    expect(r.stderr).toMatch(/documents, \d+ valid, \d+ invalid, \d+ not JSON\n$/);
    expect(lines).toBeGreaterThan(1000);
  });

  it('reads standard input the same way', async () => {
    const file = await run(['validate', '--ndjson', '--jobs', '2', '--format', 'json', path]);
    const stdin = await run(['validate', '--ndjson', '--jobs', '2', '--format', 'json', '-'], text);
    expect(stdin.code).toBe(file.code);
    expect(stdin.stdout === file.stdout).toBe(true);
  });

  it('rejects a --jobs that is not a whole number from 1 to 256, and --jobs without --ndjson', async () => {
    for (const bad of ['0', 'two', '-1', '1.5', '999']) {
      const r = await run(['validate', '--ndjson', `--jobs=${bad}`, path]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--jobs must be a whole number from 1 to 256');
    }
    const r = await run(['validate', '--jobs', '2', path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--jobs works only with --ndjson');
  });

  it('hands batches to worker threads, with at most eight per job in flight however slow the output', async () => {
    const mod = (await import(pathToFileURL(join(root, 'dist/cli/ndjson-workers.js')).href)) as typeof import('../src/cli/ndjson-workers.js');
    let out = '';
    let writes = 0;
    // A slow reader of the output: every write completes only on a later turn of the event loop.
    const write = (s: string): Promise<void> => {
      out += s;
      writes++;
      return new Promise((resolve) => setImmediate(resolve));
    };
    const args = {
      schema: 'link-carecontext-request',
      ndjson: true,
      format: 'json' as const,
      lint: true,
      files: [path],
      nameFiles: false,
      showKeys: false,
      now: new Date('2026-11-21T00:00:00Z'),
      name: path,
    };
    const counts = await mod.validateNdjsonInWorkers(path, 3, args, write);
    expect(counts.workerBatches).toBeGreaterThan(0);
    expect(counts.peakInFlight).toBeLessThanOrEqual(24);
    expect(writes).toBeGreaterThan(3);
    const one = await run(['validate', '--ndjson', '--jobs', '1', '--lint', '--format', 'json', path]);
    expect(counts.docs).toBe(one.stdout.trim().split('\n').length);
    // --lint adds warnings; the CLI reads the clock for "now", which these examples do not depend on.
    expect(out === one.stdout).toBe(true);
  });
});

describe('validateNdjsonInWorkers with tiny reads', () => {
  it('cuts batches anywhere, reports lines over the limit in place, and matches one thread line for line', async () => {
    const dist = (m: string) => import(pathToFileURL(join(root, `dist/cli/${m}.js`)).href);
    const mod = (await dist('ndjson-workers')) as typeof import('../src/cli/ndjson-workers.js');
    const { ndjsonLineOutput, prepareChecks } = (await dist('validate-document')) as typeof import('../src/cli/validate-document.js');
    const long = JSON.stringify({ ...example('lab-order'), note: 'x'.repeat(1000) });
    const kinds = ['{"a":1}', '', '{"b": }', long, '  ', '[1,2]\r', 'आ', long];
    const lines = Array.from({ length: 120 }, (_, i) => kinds[(i * 5 + (i >> 2)) % kinds.length] ?? '');
    const p = join(tmp, 'tiny.ndjson');
    writeFileSync(p, lines.join('\n'));
    const args = { schema: 'link-carecontext-request', ndjson: true, format: 'json' as const, lint: false, files: [p], nameFiles: false, showKeys: false, now: new Date(0), name: p };
    await prepareChecks(args);
    let expected = '';
    let index = 0;
    lines.forEach((l, i) => {
      const text = l.replace(/\r$/, '');
      if (text.trim() === '') return;
      expected += ndjsonLineOutput({ line: i + 1, text, tooLong: text.length > 200 }, index++, args, p).text;
    });
    expect(expected).toContain('line is too long');
    let out = '';
    const counts = await mod.validateNdjsonInWorkers(p, 2, args, (t) => void (out += t), undefined, { readBytes: 37, maxLineLength: 200 });
    expect(out === expected).toBe(true);
    expect(counts.docs).toBe(index);
    expect(counts.workerBatches).toBeGreaterThan(0);
  });
});

describe('forEachLine', () => {
  it('cuts lines as the line reader does: CR and a first-line BOM removed, blank lines skipped, numbers kept', async () => {
    const bytes = new TextEncoder().encode('\ufeff{"a":1}\r\n\n  \n\u00a0\n x\n{"b":2}');
    const seen: Array<[number, string]> = [];
    const dec = new TextDecoder();
    const n = forEachLine(bytes, 1, (line, start, end) => seen.push([line, dec.decode(bytes.subarray(start, end))]));
    expect(seen).toEqual([
      [1, '{"a":1}'],
      [5, ' x'],
      [6, '{"b":2}'],
    ]);
    expect(n).toBe(6);
  });

  it('keeps a byte-order mark that is not on line 1', async () => {
    const bytes = new TextEncoder().encode('\ufeff{}\n');
    const seen: number[] = [];
    forEachLine(bytes, 7, (_line, start) => seen.push(start));
    expect(seen).toEqual([0]);
  });
});

describe('forEachLine against the single-threaded line reader', () => {
  it('sees the same lines, numbers and texts for any mix of whitespace, BOMs, CRs and non-ASCII text', async () => {
    const piece = fc.constantFrom(' ', '\t', '\r', '\n', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', 'x', '{}', 'आ', '\u0085', '\u200b');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 40 }), async (parts) => {
        const text = parts.join('');
        const p = join(tmp, 'prop.ndjson');
        writeFileSync(p, text);
        const expected: Array<[number, string]> = [];
        for await (const batch of lineBatches(p)) for (const l of batch) expected.push([l.line, l.text]);
        const bytes = new TextEncoder().encode(text);
        const seen: Array<[number, string]> = [];
        forEachLine(bytes, 1, (line, start, end) => seen.push([line, Buffer.from(bytes.subarray(start, end)).toString('utf8')]));
        expect(seen).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
