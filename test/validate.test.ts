import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { streamLines, type NdjsonLine } from '../src/cli/io.js';
import { assertValid, isValidationError, validate } from '../src/index.js';

describe('validate: string lengths', () => {
  it('counts characters, not UTF-16 units: 255 emoji fit a 255-character name', () => {
    expect(validate('diagnosis', { diagnosisName: '😀'.repeat(255) }).success).toBe(true);
    expect(validate('diagnosis', { diagnosisName: '😀'.repeat(256) })).toEqual({
      success: false,
      issues: [{ path: '/diagnosisName', code: 'too-long', message: 'diagnosisName must be at most 255 characters long', severity: 'error' }],
      omitted: 0,
    });
  });

  it('counts Devanagari letters and marks as characters', () => {
    const name = 'मधुमेह'; // 6 code points
    expect(validate('lab-investigation', { testName: name.repeat(42) }).success).toBe(true); // 252
    expect(validate('lab-investigation', { testName: name.repeat(43) }).success).toBe(false); // 258
  });

  it('treats an empty required string as empty, and one emoji as not empty', () => {
    expect(validate('doctor', { name: '' })).toMatchObject({ success: false, issues: [{ path: '/name', code: 'empty' }] });
    expect(validate('doctor', { name: '😀' }).success).toBe(true);
  });
});

describe('assertValid', () => {
  it('returns the typed value', () => {
    expect(assertValid('search-abha-request', { mobile: '9876543210' }).mobile).toBe('9876543210');
  });

  it('throws one ValidationError with every issue, naming paths but no values', () => {
    try {
      assertValid('verify-otp-request', { scope: 'abha-login', otp: '12345' });
      throw new Error('expected a ValidationError');
    } catch (e) {
      expect(isValidationError(e)).toBe(true);
      if (!isValidationError(e)) return;
      expect(e.issues.map((i) => [i.path, i.code])).toEqual(
        expect.arrayContaining([
          ['/scope', 'type'],
          ['/otp', 'invalid-otp'],
          ['/txnId', 'required'],
        ]),
      );
      expect(e.message).toMatch(/^invalid verify-otp-request: \/\w+ .+ \(and 2 more issues\)$/);
      expect(e.message).not.toContain('12345');
    }
  });

  it('refuses an unknown schema name as a programming error', () => {
    expect(() => validate('patient' as never, {})).toThrow(TypeError);
  });
});

describe('streamLines (NDJSON input)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'abha-link-ndjson-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function lines(content: Buffer | string, max?: number): Promise<NdjsonLine[]> {
    const p = join(dir, `f${Math.random().toString(36).slice(2)}.ndjson`);
    writeFileSync(p, content);
    const out: NdjsonLine[] = [];
    await streamLines(p, (batch) => void out.push(...batch), max);
    return out;
  }

  it('keeps line numbers, skips blank lines, drops CR and a leading BOM, and keeps a last line without newline', async () => {
    expect(await lines('\ufeff{"a":1}\r\n\n  \n{"b":2}\n{"c":3}')).toEqual([
      { line: 1, text: '{"a":1}', tooLong: false },
      { line: 4, text: '{"b":2}', tooLong: false },
      { line: 5, text: '{"c":3}', tooLong: false },
    ]);
  });

  it('joins lines and multi-byte characters split across 1 MiB reads', async () => {
    const long = `{"t":"${'अ'.repeat(700_000)}"}`; // 2.1 MB of UTF-8, crosses two read boundaries
    const got = await lines(`{"x":1}\n${long}\n{"y":2}\n`);
    expect(got.map((l) => l.line)).toEqual([1, 2, 3]);
    expect(got[1]?.text).toBe(long);
  });

  it('reports a line over the limit without keeping it, and goes on', async () => {
    const got = await lines(`{"x":1}\n${'x'.repeat(3_000_000)}\n{"y":2}\n`, 1_000_000);
    expect(got).toEqual([
      { line: 1, text: '{"x":1}', tooLong: false },
      { line: 2, text: '', tooLong: true },
      { line: 3, text: '{"y":2}', tooLong: false },
    ]);
  });
});

describe('validate: choices where the spec is silent', () => {
  it('requires at least one OTP scope (4.3, 4.4: all fields required)', () => {
    expect(validate('verify-otp-request', { scope: [], txnId: 't-1', otp: '123456' })).toMatchObject({
      success: false,
      issues: [{ path: '/scope', code: 'too-few-items' }],
    });
  });

  it('rejects an empty session token in the profile requests', () => {
    expect(validate('get-profile-request', { token: '' })).toMatchObject({ success: false, issues: [{ path: '/token', code: 'empty' }] });
  });

  it('checks the token response data only when status is true', () => {
    expect(validate('token-response', { status: false, message: 'Invalid API key', data: null }).success).toBe(true);
    expect(validate('token-response', { status: true, data: null })).toMatchObject({ success: false, issues: [{ path: '/data', code: 'type' }] });
  });
});
