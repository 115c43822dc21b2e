/**
 * The record templates in a real Chromium: each example prints to PDF on A4 (and A5) in a sensible number of pages,
 * with the script's font embedded for Hindi and Tamil. Needs Chromium where findChromium() looks and pdfinfo /
 * pdffonts (poppler-utils); skipped, saying so, without them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClinicalInput } from '../src/generated/types.js';
import { createPdfPrinter, findChromium, renderDocuments, type Language, type PdfPrinter } from '../src/render/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = findChromium();
const hasTools = CHROMIUM !== undefined && spawnSync('pdfinfo', ['-v'], { encoding: 'utf8' }).error === undefined;
const SKIP = hasTools ? '' : ' [skipped: no Chromium or no pdfinfo (apt-get install chromium poppler-utils)]';
const example = (name: string): ClinicalInput => JSON.parse(readFileSync(join(root, `examples/${name}.input.json`), 'utf8')) as ClinicalInput;
const RECORDS = [
  ['discharge-summary', 'discharge-summary', 2],
  ['immunisation-certificate', 'immunization', 1],
  ['wellness', 'wellness', 1],
  ['invoice', 'invoice', 1],
] as const;

describe.skipIf(!hasTools)(`the record templates in Chromium${SKIP}`, () => {
  let printer: PdfPrinter;
  let dir: string;
  beforeAll(async () => {
    printer = await createPdfPrinter({ executablePath: CHROMIUM ?? '' });
    dir = mkdtempSync(join(tmpdir(), 'abha-link-records-'));
  });
  afterAll(async () => {
    await printer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pdf = async (template: string, ex: string, lang: Language | Language[], pageSize: 'A4' | 'A5'): Promise<{ pages: number; size: string; fonts: string }> => {
    const html = renderDocuments(example(ex), { template, lang, pageSize })[0]?.html ?? '';
    const file = join(dir, `${template}-${String(lang)}-${pageSize}.pdf`);
    writeFileSync(file, await printer.pdf(html, { pageSize }));
    const info = spawnSync('pdfinfo', [file], { encoding: 'utf8' }).stdout;
    const fonts = spawnSync('pdffonts', [file], { encoding: 'utf8' }).stdout;
    return { pages: Number(/Pages:\s+(\d+)/.exec(info)?.[1]), size: /Page size:\s+([^\n]*)/.exec(info)?.[1] ?? '', fonts };
  };

  it.each(RECORDS.flatMap(([t, e, max]) => (['en', 'hi', 'ta'] as const).map((lang) => [t, lang, e, max] as const)))(
    'prints the %s template in %s on A4, in at most the expected pages, with the script font embedded',
    async (template, lang, ex, max) => {
      const r = await pdf(template, ex, lang, 'A4');
      expect(r.size).toMatch(/\(A4\)/);
      expect(r.pages).toBeGreaterThanOrEqual(1);
      expect(r.pages).toBeLessThanOrEqual(max);
      expect(r.fonts).toMatch(lang === 'hi' ? /NotoSansDevanagari/ : lang === 'ta' ? /NotoSansTamil/ : /NotoSans-/);
    },
  );

  it.each(RECORDS.map(([t, e]) => [t, e] as const))('prints the %s template bilingual (en, hi) on A4', async (template, ex) => {
    const r = await pdf(template, ex, ['en', 'hi'], 'A4');
    expect(r.pages).toBeGreaterThanOrEqual(1);
    expect(r.pages).toBeLessThanOrEqual(template === 'discharge-summary' ? 3 : 1);
    expect(r.fonts).toMatch(/NotoSansDevanagari/);
  });

  it.each([
    ['immunisation-certificate', 'immunization'],
    ['wellness', 'wellness'],
    ['invoice', 'invoice'],
  ] as const)('fits the %s example on one A5 page', async (template, ex) => {
    const r = await pdf(template, ex, 'en', 'A5');
    expect(r.size).toMatch(/\(A5\)/);
    expect(r.pages).toBe(1);
  });
});
