import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { LINT_RULES, type LintCode, type Severity } from '../src/index.js';

/** The README's lint table (under Validation): code(s) of each row with their severity. */
function readmeLintTable(): Array<{ codes: string[]; severities: string[]; line: string }> {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Validation'));
  const lines = section.split('\n');
  const start = lines.findIndex((l) => l.trim() === '| Code | Severity | Checks |');
  if (start < 0) throw new Error('README has no "| Code | Severity | Checks |" table under Validation');
  const rows: Array<{ codes: string[]; severities: string[]; line: string }> = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    // The first two cells hold no '|': codes in backticks, then one severity or one per code ("error / warning").
    const [, codeCell = '', severityCell = ''] = line.split('|');
    const codes = [...codeCell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
    rows.push({ codes, severities: severityCell.split('/').map((s) => s.trim()), line });
  }
  return rows;
}

function readmeSeverities(): Map<string, string> {
  const out = new Map<string, string>();
  for (const { codes, severities, line } of readmeLintTable()) {
    if (codes.length === 0) throw new Error(`README lint row without a code: ${line}`);
    if (severities.length !== 1 && severities.length !== codes.length) throw new Error(`README lint row with ${codes.length} codes and ${severities.length} severities: ${line}`);
    codes.forEach((code, i) => out.set(code, severities.length === 1 ? (severities[0] ?? '') : (severities[i] ?? '')));
  }
  return out;
}

describe('the lint rule list', () => {
  it('has one row in the README lint table for every rule, with the same severity', () => {
    const documented = readmeSeverities();
    expect(Object.fromEntries(LINT_RULES.map((r) => [r.code, documented.get(r.code) ?? 'missing from README']))).toEqual(Object.fromEntries(LINT_RULES.map((r) => [r.code, r.severity])));
  });

  it('has a rule for every code the README lint table names', () => {
    const codes = new Set(LINT_RULES.map((r) => r.code));
    expect([...readmeSeverities().keys()].filter((c) => !codes.has(c as LintCode))).toEqual([]);
  });

  it('names each rule once', () => {
    const codes = LINT_RULES.map((r) => r.code);
    expect(codes.filter((c, i) => codes.indexOf(c) !== i)).toEqual([]);
  });

  it('exposes only code, severity and description of each rule', () => {
    for (const rule of LINT_RULES) expect(Object.keys(rule).sort()).toEqual(['code', 'description', 'severity']);
  });

  it('derives LintCode from the list: a code outside it fails the type check', () => {
    expectTypeOf<LintCode>().toEqualTypeOf<(typeof LINT_RULES)[number]['code']>();
    expectTypeOf<'icd10-not-who'>().toMatchTypeOf<LintCode>();
    expectTypeOf<Severity>().toEqualTypeOf<(typeof LINT_RULES)[number]['severity']>();
    // @ts-expect-error a made-up code is not a LintCode
    const madeUp: LintCode = 'no-such-rule';
    expect(madeUp).toBe('no-such-rule');
  });
});
