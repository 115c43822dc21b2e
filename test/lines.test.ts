/** The one line cutter (src/lines.ts) of the NDJSON and journal readers. */
import { describe, expect, it } from 'vitest';
import { LineCutter } from '../src/lines.js';

/** Feeds `chunks` to a cutter with limit `max`; the lines as text (`null` for one over the limit) and what end() gave. */
function cut(chunks: readonly (string | Buffer)[], max = 100): { lines: (string | null)[]; last: string | null | undefined } {
  const c = new LineCutter(max);
  const lines: (string | null)[] = [];
  for (const chunk of chunks) c.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, (l) => lines.push(l === undefined ? null : l.toString()));
  let last: string | null | undefined;
  const had = c.end((l) => (last = l === undefined ? null : l.toString()));
  expect(had).toBe(last !== undefined);
  return { lines, last };
}

describe('LineCutter', () => {
  it('cuts at newlines, joins a line split across chunks, and keeps empty lines', () => {
    expect(cut(['{"a":1}\n{"b"', ':2}\n', '\n{"c":3}\n'])).toEqual({ lines: ['{"a":1}', '{"b":2}', '', '{"c":3}'], last: undefined });
  });

  it('gives the last line that no newline ended at the end, and none after a final newline', () => {
    expect(cut(['a\nb', 'c'])).toEqual({ lines: ['a'], last: 'bc' });
    expect(cut(['a\n'])).toEqual({ lines: ['a'], last: undefined });
    expect(cut([])).toEqual({ lines: [], last: undefined });
  });

  it('keeps a multi-byte character split between chunks whole', () => {
    const bytes = Buffer.from('अ\nआ\n');
    expect(cut([bytes.subarray(0, 2), bytes.subarray(2, 5), bytes.subarray(5)]).lines).toEqual(['अ', 'आ']);
  });

  it('reports a line over the limit as such, within one chunk or across several, and goes on', () => {
    expect(cut(['ok\n' + 'x'.repeat(11) + '\nok2\n'], 10).lines).toEqual(['ok', null, 'ok2']);
    expect(cut(['ok\nxxxxxx', 'xxxxxx', 'xxxxxx\nok2'], 10)).toEqual({ lines: ['ok', null], last: 'ok2' });
    expect(cut(['xxxxxx', 'xxxxx\n'], 10).lines).toEqual([null]);
    expect(cut(['x'.repeat(10) + '\n'], 10).lines).toEqual(['x'.repeat(10)]);
    expect(cut(['x'.repeat(11)], 10).last).toBeNull();
  });

  it('says a carried line is over the limit as soon as it is, before its newline comes', () => {
    const c = new LineCutter(10);
    c.push(Buffer.from('x'.repeat(8)), () => undefined);
    expect(c.overLimit).toBe(false);
    c.push(Buffer.from('x'.repeat(8)), () => undefined);
    expect(c.overLimit).toBe(true);
  });

  it('keeps what it carries when the caller reuses its buffer for the next read', () => {
    const c = new LineCutter(100);
    const buffer = Buffer.from('ab');
    const lines: string[] = [];
    c.push(buffer, (l) => lines.push(String(l)));
    buffer.write('c\n');
    c.push(buffer, (l) => lines.push(String(l)));
    expect(lines).toEqual(['abc']);
  });
});
