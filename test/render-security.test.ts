/**
 * Rendering hostile data: every value is escaped (the tag structure of the
 * page does not change, whatever the data), nothing is lost (every value
 * reaches the page as text), links are https only, prototype keys cannot
 * reach the templates, and no error carries data.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildLinkRequest } from '../src/builders/link-request.js';
import type { ClinicalInput, LinkCareContextRequest } from '../src/generated/types.js';
import { createRenderer, isTemplateError, renderDocuments, safeRenderDocuments, TEMPLATE_NAMES } from '../src/render/index.js';
import { attributeValues, skeleton, textOf, unhyphenated } from './fixtures/render/html.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const HOSTILE = JSON.parse(readFileSync(join(root, 'test/fixtures/render/hostile-strings.json'), 'utf8')) as Array<{ name: string; value: string }>;
// Very long values, at the schema's limits.
const LONG: Array<{ name: string; value: string }> = [
  { name: 'very long Latin word', value: 'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(120) },
  { name: 'very long Devanagari text', value: 'मधुमेह की दवा भोजन के बाद लें। '.repeat(150).trim() },
  { name: 'long mixed markup', value: '<b>&amp;</b>"\'`='.repeat(400) },
];
const CORPUS = [...HOSTILE, ...LONG];

type Path = ReadonlyArray<string | number>;
/** Every free-text field of a clinical input, with its schema maxLength. */
const FIELDS: ReadonlyArray<readonly [Path, number]> = [
  [['hospital', 'name'], 255],
  [['hospital', 'id'], 128],
  [['hospital', 'phone'], 32],
  [['doctor', 'name'], 255],
  [['doctor', 'licNumber'], 128],
  [['doctor', 'hpId'], 128],
  [['patient', 'name'], 255],
  [['patient', 'gender'], 16],
  [['patient', 'ABHANumber'], 128],
  [['patient', 'abhaAddress'], 255],
  [['visit', 'id'], 128],
  [['visit', 'followUp'], 255],
  [['diagnosis', 0, 'diagnosisName'], 255],
  [['diagnosis', 0, 'status'], 64],
  [['diagnosis', 0, 'icdCode'], 32],
  [['medications', 0, 'drugName'], 255],
  [['medications', 0, 'dosage'], 255],
  [['medications', 0, 'frequency'], 255],
  [['medications', 0, 'duration'], 255],
  [['medications', 0, 'instructions'], 1000],
  [['labInvestigations', 0, 'testName'], 255],
  [['labInvestigations', 0, 'instructions'], 1000],
  [['advice'], 4000],
  [['display'], 1024],
  [['referenceNumber'], 1024],
];

function benignInput(): Record<string, unknown> {
  return {
    hospital: { name: 'h', id: 'IN1', phone: '1', email: 'desk@clinic.example' },
    doctor: { name: 'd', licNumber: 'L1', hpId: 'H1' },
    patient: { abhaAddress: 'a@sbx', name: 'p', gender: 'F', ABHANumber: 'N1', birthDate: '1990-01-01' },
    visit: { id: 'V1', at: '2026-11-20T10:00:00+05:30', followUp: 'f' },
    hiType: 'OPConsultation',
    referenceNumber: 'R1',
    display: 'D1',
    documentUrl: 'https://records.example/doc/1.pdf',
    diagnosis: [{ diagnosisName: 'x', status: 's', icdCode: 'E11.9' }],
    medications: [{ drugName: 'm', dosage: 'd', frequency: 'q', duration: 't', instructions: 'i' }],
    labInvestigations: [{ testName: 't', instructions: 'i' }],
    advice: 'a',
  };
}

function set(o: Record<string, unknown>, path: Path, value: string): void {
  let at: Record<string | number, unknown> = o;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[path[path.length - 1] as string | number] = value;
}

/** The benign input with `s` (tagged with the field number) in every field it fits in. */
function plant(s: string): { input: ClinicalInput; planted: Map<string, string> } {
  const input = benignInput();
  const planted = new Map<string, string>();
  FIELDS.forEach(([path, max], i) => {
    const tag = `#F${i}`;
    const value = s.length + tag.length <= max ? `${s}${tag}` : `${s.slice(0, max - tag.length)}${tag}`;
    set(input, path, value);
    planted.set(path.join('.'), value);
  });
  return { input: input as unknown as ClinicalInput, planted };
}

/**
 * The value a field of the clinical input has in the link request, i.e. as
 * sent to the service (the builders trim, upper-case ICD codes, lower-case
 * statuses and normalise frequencies); undefined for the patient details and
 * follow-up, which are printed as given.
 */
function sentValue(req: LinkCareContextRequest, field: string): string | undefined {
  const [head, ...rest] = field.split('.');
  const cc = req.careContexts[0];
  let at: unknown;
  if (head === 'patient') at = rest[0] === 'abhaAddress' ? req.abhaAddress : undefined;
  else if (head === 'visit') at = rest[0] === 'id' ? req.visitId : undefined;
  else if (head === 'display' || head === 'referenceNumber') at = cc?.[head];
  else {
    at = cc?.bundleData;
    for (const k of [head, ...rest]) at = (at as Record<string, unknown> | undefined)?.[k ?? ''];
  }
  return typeof at === 'string' ? at : undefined;
}

/** What of the care context's bundle data each record template prints (besides letterhead, patient, visit and reference). */
const RECORD_PRINTS: Readonly<Record<string, readonly string[]>> = {
  'discharge-summary': ['diagnosis.', 'medications.', 'labInvestigations.', 'advice', 'visit.followUp'],
  'immunisation-certificate': ['advice', 'visit.followUp'],
  wellness: ['advice', 'visit.followUp'],
  invoice: [],
};

/** The fields a template prints. */
function printed(template: string): string[] {
  const record = RECORD_PRINTS[template];
  return FIELDS.map(([p]) => p.join('.')).filter((p) => {
    if (record !== undefined && /^(diagnosis\.|medications\.|labInvestigations\.|advice|visit\.followUp)/.test(p)) return record.some((r) => p.startsWith(r));
    if (p.startsWith('medications.')) return template !== 'lab-order';
    if (p === 'display') return template === 'visit-summary';
    return true;
  });
}

/**
 * A harmless value as long as `s`, with its line breaks and spaces: a letter for every other code unit. The layout
 * follows how long the advice and follow-up are (a short closing signs every page from the medicine table's footer,
 * a long one prints after the table), so the tags of a hostile render are compared with those of harmless data of
 * the same length, which takes the same layout.
 */
function harmless(s: string): string {
  return s.replace(/[^\s]/g, 'b');
}

describe('the hostile corpus', () => {
  const baseline = new Map(TEMPLATE_NAMES.map((t) => [t, skeleton(renderDocuments(plant('benign').input, { template: t, lint: false })[0]?.html ?? '')]));
  const skeletonOfHarmless = (s: string, template: string): string[] => skeleton(renderDocuments(plant(harmless(s)).input, { template, lint: false })[0]?.html ?? '');

  it('is a real corpus: script tags, attribute breakers, javascript: URLs, {{, __proto__, non-Latin and long text', () => {
    const all = CORPUS.map((c) => c.value).join('\n');
    for (const needle of ['<script>', '"><img', "' on", 'javascript:', '{{', '__proto__', 'र', 'ذ', '💊']) expect(all).toContain(needle);
    expect(Math.max(...CORPUS.map((c) => c.value.length))).toBeGreaterThanOrEqual(4000);
  });

  it('would notice markup that escaped: the structure check is not vacuous', () => {
    const { input } = plant('<script>alert(1)</script>');
    const html = renderDocuments(input, { lint: false })[0]?.html ?? '';
    const unescaped = html.replaceAll('&lt;', '<').replaceAll('&gt;', '>');
    expect(skeleton(html)).toEqual(baseline.get('prescription'));
    expect(skeleton(unescaped)).not.toEqual(baseline.get('prescription'));
  });

  describe.each(TEMPLATE_NAMES)('in the %s template', (template) => {
    it.each(CORPUS.map((c) => [c.name, c.value] as const))('%s: changes no tag or attribute and reaches the page as text', (_name, s) => {
      const { input, planted } = plant(s);
      const req = buildLinkRequest(input, { lint: false });
      const [doc] = renderDocuments(input, { template, lint: false });
      const html = doc?.html ?? '';
      // Escaped: the same tags and attribute names as a render of harmless data (of the same length, so of the same layout).
      expect(skeleton(html)).toEqual(skeletonOfHarmless(s, template));
      expect(html).not.toMatch(/<script|<img|<svg\/|\son[a-z]+=/i);
      expect(attributeValues(html, 'href')).toEqual(['https://records.example/doc/1.pdf']);
      // Nothing lost: every printed field, as sent to the service, is in the text.
      const text = textOf(html);
      for (const field of printed(template)) {
        const expected = sentValue(req, field) ?? planted.get(field)?.trim();
        expect(expected, field).toBeTypeOf('string');
        expect(text, `${field} is missing from the page`).toContain(expected);
      }
    });
  });

  it('escapes hostile values in a link request too, hiType included, with every string printed', () => {
    for (const { value: s } of CORPUS) {
      const base = buildLinkRequest(plant(harmless(s)).input, { lint: false });
      const hostile = buildLinkRequest(plant(s).input, { lint: false });
      const cc = hostile.careContexts[0];
      if (cc === undefined) throw new Error('no care context');
      const tagged = (t: string): string => `${s.slice(0, 50)}${t}`;
      const req: LinkCareContextRequest = { ...hostile, visitId: tagged('#visitId'), careContexts: [{ ...cc, hiType: tagged('#hiType') }] };
      const html = renderDocuments(req, { template: 'visit-summary', lint: false })[0]?.html ?? '';
      const benignHtml = renderDocuments({ ...base, careContexts: [{ ...base.careContexts[0], hiType: 'h' }] } as LinkCareContextRequest, { template: 'visit-summary', lint: false })[0]?.html ?? '';
      expect(skeleton(html)).toEqual(skeleton(benignHtml));
      const text = textOf(html);
      for (const v of [req.abhaAddress, req.visitId, cc.referenceNumber, cc.display, tagged('#hiType'), cc.bundleData.advice ?? '', cc.bundleData.hospital.name]) expect(text).toContain(v);
    }
  });

  it('prints words that name prototype members as plain data', () => {
    const req = buildLinkRequest(plant('x').input, { lint: false });
    const cc = req.careContexts[0];
    if (cc === undefined) throw new Error('no care context');
    for (const word of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const doc = renderDocuments({ ...req, careContexts: [{ ...cc, hiType: word, bundleData: { ...cc.bundleData, advice: word } }] }, { template: 'visit-summary', lint: false, lang: 'hi' })[0];
      expect(textOf(doc?.html ?? '')).toMatch(new RegExp(`Record type|रिकॉर्ड का प्रकार\\s+${word}`));
      expect(doc?.html).not.toContain('[object Object]');
      expect(doc?.html).not.toContain('function');
    }
  });
});

describe('__proto__ and other prototype keys in the input', () => {
  it('are refused as unknown fields, and Object.prototype stays clean', () => {
    const ci = JSON.stringify(benignInput());
    const withProto = [
      ci.replace('{', '{"__proto__":{"polluted":"yes"},'),
      ci.replace('"patient":{', '"patient":{"__proto__":{"polluted":"yes"},'),
      ci.replace('"medications":[{', '"medications":[{"constructor":{"prototype":{"polluted":"yes"}},'),
    ];
    for (const text of withProto) {
      const r = safeRenderDocuments(JSON.parse(text), { lint: false });
      expect(r.success).toBe(false);
      if (r.success) continue;
      expect(r.issues.map((i) => i.code)).toContain('unknown-field');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('cannot be read by a template: prototype paths are refused when the template is compiled', async () => {
    for (const source of ['{{constructor.name}}', '{{patient.__proto__}}', '{{#with hospital}}{{constructor}}{{/with}}', '{{advice.prototype}}']) {
      await expect(createRenderer({ templates: { mine: source } })).rejects.toMatchObject({ name: 'TemplateError', code: 'prototype-path' });
    }
  });
});

describe('health data never appears in errors', () => {
  const SECRET_NAME = 'Zzsecretname Qqpatient';
  const SECRET_DX = 'Secretdiagnosis-7731';

  it('issues of an invalid input carry paths and codes, not values', () => {
    const input = benignInput();
    set(input, ['patient', 'name'], SECRET_NAME);
    set(input, ['diagnosis', 0, 'diagnosisName'], SECRET_DX);
    set(input, ['patient', 'abhaAddress'], 'zz.secret.abha@nowhere');
    set(input, ['hospital', 'email'], `${SECRET_DX} not an email`);
    const r = safeRenderDocuments(input);
    expect(r.success).toBe(false);
    const out = JSON.stringify(r);
    for (const secret of [SECRET_NAME, SECRET_DX, 'zz.secret.abha']) expect(out).not.toContain(secret);
  });

  it('a template that fails on the data reports the field or the failure, never the value', async () => {
    const input = benignInput();
    set(input, ['patient', 'name'], SECRET_NAME);
    set(input, ['diagnosis', 0, 'diagnosisName'], SECRET_DX);
    const renderer = await createRenderer({
      templates: { 'name-parts': '<p>{{patient.name.first}}</p>', missing: '<p>{{patient.nickname}}</p>', each: '{{#each diagnoses}}<p>{{name.code}}</p>{{/each}}' },
    });
    for (const template of ['name-parts', 'missing', 'each']) {
      let err: unknown;
      try {
        renderer.render(input, { template, lint: false });
      } catch (e) {
        err = e;
      }
      expect(isTemplateError(err), template).toBe(true);
      const shown = `${String(err)} ${JSON.stringify(err)} ${(err as Error).stack ?? ''}`;
      expect(shown).not.toContain('Zzsecretname');
      expect(shown).not.toContain('Secretdiagnosis');
    }
    expect(() => renderer.render(input, { template: 'missing', lint: false })).toThrow(/template missing, line 1: uses the field "nickname"/);
  });
});

/** Bidi controls that start an embedding, override or isolate, or end one. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

/**
 * The `<bdi>` elements of the body (never nested) and the body with them cut out. Names are printed in
 * `<bdi translate="no">` (kept whole by the hyphenator and by page translators), so an isolate may carry
 * attributes; it is still a `<bdi>`, which isolates its content whatever its attributes.
 */
function isolates(html: string): { inside: string[]; outside: string } {
  const body = html.slice(html.indexOf('<body'));
  const inside: string[] = [];
  const outside = body.replace(/<bdi(?:\s[^>]*)?>([\s\S]*?)<\/bdi>/g, (_m, inner: string) => {
    inside.push(inner);
    return ' ';
  });
  return { inside, outside };
}

describe('right-to-left overrides and other bidi controls in the data', () => {
  const controls = ['\u202E', '\u202B', '\u202D', '\u2067', '\u2066\u202E'];

  it.each(TEMPLATE_NAMES)('are isolated value by value in the %s template: the text after a value keeps its direction', (template) => {
    for (const c of controls) {
      const { input } = plant(`${c}evil`);
      const html = renderDocuments(input, { template, lint: false })[0]?.html ?? '';
      const { inside, outside } = isolates(html);
      // No <bdi> inside another, so each isolate ends where its value ends.
      for (const inner of inside) expect(inner).not.toMatch(/<bdi/);
      // Outside the isolates (labels, separators, the ICD label after a diagnosis…) no bidi control is left.
      expect(textOf(outside)).not.toMatch(BIDI_CONTROLS);
      // Each isolate holds one value: at most one field tag (#F<n>) per <bdi>.
      for (const inner of inside) expect((textOf(`<body>${inner}`).match(/#F\d+/g) ?? []).length, inner).toBeLessThanOrEqual(1);
      // And every planted value reached the page inside one.
      const tags = new Set(inside.flatMap((inner) => textOf(`<body>${inner}`).match(/#F\d+/g) ?? []));
      for (const tag of textOf(html).match(/#F\d+/g) ?? []) expect(tags.has(tag), `${tag} is printed outside an isolate`).toBe(true);
    }
  });

  it("keep the phone separator and the ICD code after a diagnosis in place (the reviewer's case)", () => {
    const input = plant('x').input as unknown as { hospital: { phone: string }; diagnosis: Array<{ diagnosisName: string; icdCode: string }> };
    input.hospital.phone = '080\u202E-4123';
    input.diagnosis[0] = { ...input.diagnosis[0], diagnosisName: 'Hypertension \u202E', icdCode: 'E11.9' };
    const html = unhyphenated(renderDocuments(input as unknown as ClinicalInput, { lint: false })[0]?.html ?? '');
    expect(html).toContain('Phone: <bdi>080\u202E-4123</bdi></span>');
    expect(html).toMatch(/<span class="dx-name"><bdi>Hypertension \u202E<\/bdi><\/span> <span class="icd">ICD-10 <bdi>E11\.9<\/bdi><\/span>/);
  });

  it('are closed in the <title> too (first strong isolate … pop directional isolate around the reference)', () => {
    const { input } = plant('\u202Eevil');
    const html = renderDocuments(input, { lint: false })[0]?.html ?? '';
    const title = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '';
    // The prescription template is titled "Prescription" over medicines whatever the record type (the input is an
    // OPConsultation); what matters here is the isolate around the reference.
    expect(title).toMatch(/^Prescription · \u2068[^\u2068\u2069]*\u2069$/);
  });
});

describe('the Content-Security-Policy', () => {
  const META = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">`;
  const input = (): ClinicalInput => JSON.parse(readFileSync(join(root, 'examples/opd-prescription.input.json'), 'utf8')) as ClinicalInput;
  const render = async (template: string): Promise<string> => {
    const renderer = await createRenderer({ templates: { mine: template } });
    return unhyphenated(renderer.render(input(), { template: 'mine' })[0]?.html ?? '');
  };

  it('opens the head of every bundled template, once', () => {
    for (const template of TEMPLATE_NAMES) {
      const html = renderDocuments(input(), { template })[0]?.html ?? '';
      expect(html.split('Content-Security-Policy').length - 1, template).toBe(1);
      expect(html.startsWith(`<!DOCTYPE html>\n<html lang="en" class="page-a4 template-${template}">\n<head>${META}\n<meta charset="utf-8">`), template).toBe(true);
    }
  });

  it('is put first into a custom template that has <script>, an external image and a looser policy of its own', async () => {
    const html = await render(
      `<!doctype html><html lang="en" data-x='a > b'><HEAD><meta http-equiv="Content-Security-Policy" content="default-src *; script-src 'unsafe-inline' *"><script>document.title = 'ran'</script></head><body><img src="https://tracker.example/p.png"><p>{{hospital.name}}</p></body></html>`,
    );
    expect(html.startsWith(`<!doctype html><html lang="en" data-x='a > b'><HEAD>${META}<meta http-equiv="Content-Security-Policy" content="default-src *;`)).toBe(true);
  });

  it('is put right after the doctype of a custom template without a <head>, and at the very start of one without a doctype', async () => {
    expect(await render('<!DOCTYPE html>\n<body><script>alert(1)</script><p>{{hospital.name}}</p></body>')).toBe(
      `<!DOCTYPE html>\n${META}<body><script>alert(1)</script><p>Sanjeevani Family Clinic</p></body>`,
    );
    expect(await render('<p>{{hospital.name}}</p><script>alert(1)</script>')).toBe(`${META}<p>Sanjeevani Family Clinic</p><script>alert(1)</script>`);
  });

  it('cannot be moved by markup further on: a <head> inside a comment, an <html> tag the tokenizer reads differently', async () => {
    expect(await render('<!DOCTYPE html><!-- <html><head> --><script>alert(1)</script>')).toBe(`<!DOCTYPE html>${META}<!-- <html><head> --><script>alert(1)</script>`);
    // An attribute value that would hide the policy if the tag were cut at its first ">".
    expect(await render('<!DOCTYPE html><html title="x><head>"><head><script>alert(1)</script>')).toBe(`<!DOCTYPE html><html title="x><head>"><head>${META}<script>alert(1)</script>`);
    expect(await render(`<!DOCTYPE html><html title="x"onclick='y'><head><script>alert(1)</script>`)).toBe(`<!DOCTYPE html>${META}<html title="x"onclick='y'><head><script>alert(1)</script>`);
  });
});
