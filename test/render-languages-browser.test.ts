/**
 * Every language in a real Chromium: the script's Noto font is embedded in
 * the PDF (fonts-noto-core), and no word on the page is broken across lines
 * except at a soft hyphen (checked character by character from the layout).
 * These tests need Chromium where findChromium() looks, and pdffonts
 * (poppler-utils) for the font check; they are skipped, saying so, without.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClinicalInput } from '../src/generated/types.js';
import { CHROMIUM_ARGS } from '../src/render/pdf.js';
import { LANGUAGES, createPdfPrinter, findChromium, renderDocuments, type Language, type PdfPrinter } from '../src/render/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = findChromium();
const hasChromium = CHROMIUM !== undefined;
const hasPdfFonts = hasChromium && spawnSync('pdffonts', ['-v'], { encoding: 'utf8' }).error === undefined;
const SKIP = hasChromium ? '' : ' [skipped: no Chromium in the usual places (findChromium); apt-get install chromium to run it]';
const FONT_SKIP = hasPdfFonts ? '' : ' [skipped: no Chromium or no pdffonts (apt-get install chromium poppler-utils)]';
const example = (name: string): ClinicalInput => JSON.parse(readFileSync(join(root, `examples/${name}.input.json`), 'utf8')) as ClinicalInput;

/** The Noto font that must carry each language's script. */
const SCRIPT_FONT: Readonly<Record<Language, RegExp>> = {
  en: /NotoSans-/,
  hi: /NotoSansDevanagari/,
  mr: /NotoSansDevanagari/,
  bn: /NotoSansBengali/,
  ta: /NotoSansTamil/,
  te: /NotoSansTelugu/,
  kn: /NotoSansKannada/,
  gu: /NotoSansGujarati/,
  ml: /NotoSansMalayalam/,
  or: /NotoSansOriya/,
  pa: /NotoSansGurmukhi/,
};

/** A prescription with long words in narrow columns: the A5 duration column is 22 mm wide. */
const narrow = (): ClinicalInput => {
  const input = example('opd-prescription');
  return {
    ...input,
    medications: [
      ...(input.medications ?? []),
      { drugName: 'Hydroxychloroquine 200 mg tablet', dosage: '1 tablet', frequency: 'Q6H', duration: 'Indefinitely, unless contraindicated', instructions: 'before food' },
    ],
  };
};

/**
 * Run in the page: every place where a text node continues on a new line. Between two letters (or a letter and its
 * mark) that must be right after a soft hyphen; returns those that are not (`bad`) and how many are (`soft`).
 * A character's last box is its own: after a soft hyphen that breaks the line, the next character also reports the
 * hyphen's box on the line before.
 */
const LINE_BREAKS = `(() => {
  const bad = [];
  let soft = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const text = node.textContent || '';
    let top;
    for (let i = 0; i < text.length; i++) {
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rects = range.getClientRects();
      const rect = rects[rects.length - 1];
      if (rect === undefined || rect.width === 0) continue;
      if (top !== undefined && rect.top > top + 2) {
        const previous = text.slice(0, i).replace(/\u00ad$/, '').slice(-1);
        if (text[i - 1] === '\u00ad') soft++;
        else if (/[\\p{L}\\p{M}]/u.test(previous) && /[\\p{L}\\p{M}]/u.test(text[i] || '')) bad.push(text.slice(Math.max(0, i - 12), i) + '|' + text.slice(i, i + 12));
      }
      top = rect.top;
    }
  }
  return { bad, soft };
})()`;

describe(`printed languages in Chromium${SKIP}`, () => {
  let printer: PdfPrinter | undefined;
  beforeAll(async () => {
    if (CHROMIUM !== undefined) printer = await createPdfPrinter({ executablePath: CHROMIUM });
  }, 60_000);
  afterAll(async () => {
    await printer?.close();
  });

  it.skipIf(!hasPdfFonts).each(LANGUAGES)(
    `embeds the script's Noto font in the PDF of a %s prescription${FONT_SKIP}`,
    async (lang) => {
      if (printer === undefined) throw new Error('no printer');
      const dir = mkdtempSync(join(tmpdir(), 'abha-link-fonts-'));
      try {
        const file = join(dir, 'rx.pdf');
        writeFileSync(file, await printer.pdf(renderDocuments(example('opd-prescription'), { lang })[0]?.html ?? ''));
        const fonts = spawnSync('pdffonts', [file], { encoding: 'utf8' }).stdout;
        expect(fonts, fonts).toMatch(SCRIPT_FONT[lang]);
        // Every font is embedded (the "emb" column): nothing is left to the reader's machine.
        for (const line of fonts
          .split('\n')
          .slice(2)
          .filter((l) => l.trim() !== ''))
          expect(line, line).toMatch(/\byes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `breaks words across lines only at a soft hyphen, in every language and both page sizes, one language or two${SKIP}`,
    async () => {
      const { chromium } = (await import('playwright-core')) as unknown as {
        chromium: { launch(o: object): Promise<{ newPage(): Promise<{ setContent(h: string): Promise<void>; evaluate(expression: string): Promise<unknown> }>; close(): Promise<void> }> };
      };
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
      try {
        const page = await browser.newPage();
        let softBreaks = 0;
        const cases: Array<[Language | readonly Language[], 'A4' | 'A5']> = [
          ...LANGUAGES.flatMap((l): Array<[Language, 'A4' | 'A5']> => [
            [l, 'A4'],
            [l, 'A5'],
          ]),
          [['en', 'hi'], 'A5'],
          [['en', 'ta'], 'A5'],
        ];
        for (const [lang, pageSize] of cases) {
          await page.setContent(renderDocuments(narrow(), { lang, pageSize })[0]?.html ?? '');
          const found = (await page.evaluate(LINE_BREAKS)) as { bad: string[]; soft: number };
          expect(found.bad, `${String(lang)} ${pageSize}`).toEqual([]);
          softBreaks += found.soft;
        }
        // The narrow columns did make words break, at soft hyphens.
        expect(softBreaks).toBeGreaterThan(0);
      } finally {
        await browser.close();
      }
    },
    120_000,
  );
});
