import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { assertValid, validate, validateLinkRequest } from '../src/index.js';

const request = (): Record<string, unknown> => JSON.parse(readFileSync(new URL('../examples/opd-prescription.request.json', import.meta.url), 'utf8')) as Record<string, unknown>;

describe('unknown keys are data: shown by position, not by name (issue 10, item 11)', () => {
  const planted = 'asha.verma@sbx has HIV';
  const mobile = '9876543210';

  it('names an unknown key by its position among the keys of its object', () => {
    const req = request();
    req[planted] = 1;
    req[mobile] = 'call after 6';
    const r = validateLinkRequest(req);
    expect(r.success).toBe(false);
    if (r.success) return;
    // keys: abhaAddress, hipId, hospitalName, visitDate, visitId, careContexts, then the two planted ones
    expect(r.issues.map((i) => [i.path, i.code, i.message])).toEqual([
      ['/#6', 'unknown-field', 'the 7th key of the document is not in the spec; remove it or check its spelling'],
      ['/#7', 'unknown-field', 'the 8th key of the document is not in the spec; remove it or check its spelling'],
    ]);
    const everything = `${JSON.stringify(r)}\n${inspect(r, { depth: null })}`;
    expect(everything).not.toContain('asha.verma');
    expect(everything).not.toContain(mobile);
  });

  it('counts positions in the order JavaScript lists the keys (integer-like keys first)', () => {
    const doc = JSON.parse('{"name":"Dr. Meera Iyer","x-note":1,"42":2}') as unknown;
    const r = validate('doctor', doc);
    expect(r.success ? [] : r.issues.map((i) => i.path)).toEqual(['/#0', '/#2']);
    expect(Object.keys(doc as object)).toEqual(['42', 'name', 'x-note']);
  });

  it('names unknown keys deep inside a link request by position too', () => {
    const req = request();
    const med = ((req.careContexts as Array<Record<string, Record<string, unknown>>>)[0]?.bundleData?.medications as Array<Record<string, unknown>>)[1] as Record<string, unknown>;
    med[planted] = true;
    const r = validateLinkRequest(req);
    expect(r.success ? [] : r.issues.map((i) => [i.path, i.message])).toEqual([
      ['/careContexts/0/bundleData/medications/1/#5', 'the 6th key of medications[1] is not in the spec; remove it or check its spelling'],
    ]);
  });

  it('shows the key itself only when asked with revealKeys, still short and printable', () => {
    const req = request();
    req[planted] = 1;
    req[`x\u001b[2J${'y'.repeat(100)}`] = 1;
    const r = validateLinkRequest(req, { revealKeys: true });
    expect(r.success ? [] : r.issues.map((i) => i.path)).toEqual([`/${planted}`, `/x\ufffd[2J${'y'.repeat(59)}…`]);
    // the message never repeats the key, whichever way the path shows it
    expect(r.success ? [] : r.issues.map((i) => i.message)).toEqual([
      'the 7th key of the document is not in the spec; remove it or check its spelling',
      'the 8th key of the document is not in the spec; remove it or check its spelling',
    ]);
  });

  it('keeps the key out of a thrown ValidationError and its inspection', () => {
    const req = request();
    req[planted] = 1;
    let caught: unknown;
    try {
      assertValid('link-carecontext-request', req);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(Error);
    expect(inspect(caught, { depth: null })).not.toContain('asha.verma');
    expect((caught as Error).message).toContain('/#6');
  });
});

describe('did-you-mean for a misspelt field name (issue 9, item 9)', () => {
  it('suggests the schema field a misspelt key differs from only in case', () => {
    const r = validate('medication-input', { drugname: 'Metformin 500 mg tablet' });
    expect(r.success ? [] : r.issues.map((i) => [i.path, i.code, i.message])).toEqual([
      ['/drugName', 'required', 'drugName is required'],
      ['/#0', 'unknown-field', 'the 1st key of the document is not in the spec; did you mean drugName?'],
    ]);
  });

  it('suggests a field one or two edits away, wherever the object is in the document', () => {
    const req = request();
    const contexts = req.careContexts as Array<Record<string, unknown>>;
    const first = contexts[0] as Record<string, unknown>;
    first.hiTpye = first.hiType;
    delete first.hiType;
    const med = ((first.bundleData as Record<string, unknown>).medications as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    med.frequncy = med.frequency;
    delete med.frequency;
    const r = validateLinkRequest(req);
    const unknown = r.success ? [] : r.issues.filter((i) => i.code === 'unknown-field').map((i) => i.message);
    expect(unknown).toEqual(['the 4th key of careContexts[0] is not in the spec; did you mean hiType?', 'the 5th key of medications[0] is not in the spec; did you mean frequency?']);
  });

  it('looks through union fields into the structured form', () => {
    const r = validate('medication-input', { drugName: 'Metformin', frequency: { mornign: 1, night: 1 } });
    expect(r.success ? [] : r.issues.filter((i) => i.code === 'unknown-field').map((i) => [i.path, i.message])).toEqual([
      ['/frequency/#0', 'the 1st key of frequency is not in the spec; did you mean morning?'],
    ]);
  });

  it('suggests nothing for a key far from every field, or for a field the object already has', () => {
    const far = validate('medication-input', { drugName: 'Metformin', colour: 'blue' });
    expect(far.success ? [] : far.issues.map((i) => i.message)).toEqual(['the 2nd key of the document is not in the spec; remove it or check its spelling']);
    const present = validate('medication-input', { drugName: 'Metformin', drugname: 'Metformin' });
    expect(present.success ? [] : present.issues.map((i) => i.message)).toEqual(['the 2nd key of the document is not in the spec; remove it or check its spelling']);
  });

  it('never suggests from the key itself: a long hostile key gets no suggestion and no echo', () => {
    const key = `drugName${'x'.repeat(10_000)}`;
    const r = validate('medication-input', { [key]: 1 });
    const text = JSON.stringify(r);
    expect(text).not.toContain('xxxx');
    expect(r.success ? [] : r.issues.map((i) => i.message)).toContain('the 1st key of the document is not in the spec; remove it or check its spelling');
  });
});
