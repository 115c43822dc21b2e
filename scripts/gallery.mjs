/**
 * Every bundled template, from the examples, in every language and in the
 * bilingual layout (English with each Indian language), printed through
 * Chromium to PDF and rasterised page by page, for a person to look at: a
 * native reader reviewing a translation, or a developer checking a change of
 * layout in all the scripts at once. Run after `npm run build`:
 *
 *   node scripts/gallery.mjs [--out DIR] [--lang en,hi,...] [--dpi N] [--chromium PATH]
 *
 * Writes DIR (default gallery/, not committed):
 * - `<lang>/<document>-<N>.png`: every printed page (page margins included; pdftoppm's numbering);
 * - `<lang>/<document>.pdf`: the PDF itself (fonts embedded: check with pdffonts);
 * - `sheet-<lang>.png`: one contact sheet per language, every page side by side;
 * - `index.html`: all the pages, by language, to open in a browser.
 * Every value on the pages is synthetic (the examples).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { LANGUAGES, createPdfPrinter, findChromium, renderDocuments } from '../dist/render/index.js';
import { example, languageOption, printPages, root } from './printed-pages.mjs';

const { values } = parseArgs({
  options: { out: { type: 'string', default: join(root, 'gallery') }, lang: { type: 'string' }, dpi: { type: 'string', default: '60' }, chromium: { type: 'string' } },
});
const chromium = values.chromium ?? process.env.ABHA_LINK_CHROMIUM ?? findChromium();
if (chromium === undefined) {
  process.stderr.write('gallery: no Chromium found (apt-get install chromium, or give --chromium PATH)\n');
  process.exit(2);
}
try {
  execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
} catch {
  process.stderr.write('gallery: pdftoppm not found (apt-get install poppler-utils)\n');
  process.exit(2);
}
const dpi = Number(values.dpi);
if (!Number.isInteger(dpi) || dpi < 20 || dpi > 300) {
  process.stderr.write('gallery: --dpi is a whole number from 20 to 300\n');
  process.exit(2);
}
// Each language alone, then English with each Indian language ("en+hi").
const all = [...LANGUAGES, ...LANGUAGES.filter((l) => l !== 'en').map((l) => `en+${l}`)];
const langs = values.lang === undefined ? all : values.lang.split(',');
const unknown = langs.filter((l) => !all.includes(l));
if (unknown.length > 0) {
  process.stderr.write(`gallery: unknown language ${unknown.join(', ')}; use ${all.join(', ')}\n`);
  process.exit(2);
}

/** What is printed: file name, template, example input, page size (and which care context's document, by record type). */
const DOCUMENTS = [
  ['prescription-a4', 'prescription', 'opd-prescription', 'A4'],
  ['prescription-a5', 'prescription', 'opd-prescription', 'A5'],
  ['multi-care-context-prescription-a4', 'prescription', 'multi-care-context', 'A4', 'Prescription'],
  ['long-prescription-a5', 'prescription', 'long-prescription', 'A5'],
  ['long-prescription-a4', 'prescription', 'long-prescription', 'A4'],
  ['lab-order-a4', 'lab-order', 'lab-order', 'A4'],
  ['visit-summary-a4', 'visit-summary', 'multi-care-context', 'A4'],
  ['discharge-summary-a4', 'discharge-summary', 'discharge-summary', 'A4'],
  ['immunisation-certificate-a4', 'immunisation-certificate', 'immunization', 'A4'],
  ['immunisation-certificate-a5', 'immunisation-certificate', 'immunization', 'A5'],
  ['wellness-a4', 'wellness', 'wellness', 'A4'],
  ['invoice-a4', 'invoice', 'invoice', 'A4'],
];

const out = values.out;
const printer = await createPdfPrinter({ executablePath: chromium });
const pages = new Map(); // lang -> [{ document, file }]
try {
  for (const lang of langs) {
    const dir = join(out, lang);
    // Only what an earlier run wrote here (PDFs and pages) is removed: --out may name a folder with other files.
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(dir)) if (/\.(pdf|png)$/.test(f)) rmSync(join(dir, f));
    const list = [];
    for (const [name, template, input, pageSize, hiType] of DOCUMENTS) {
      const docs = renderDocuments(example(input), { template, lang: languageOption(lang), pageSize, lint: false });
      const doc = docs.find((d) => hiType === undefined || d.hiType === hiType) ?? docs[0];
      for (const { page, file } of await printPages(printer, doc.html, pageSize, dir, name, dpi)) list.push({ document: `${name} p${page}`, file });
    }
    pages.set(lang, list);
    process.stdout.write(`${relative(root, dir) || dir}: ${list.length} pages\n`);
  }
} finally {
  await printer.close();
}

// Contact sheets: one page of images per language, drawn by the same Chromium (no image library needed).
const { chromium: pw } = await import('playwright-core');
const browser = await pw.launch({ executablePath: chromium });
try {
  const page = await browser.newPage({ viewport: { width: 2400, height: 800 } });
  for (const [lang, list] of pages) {
    const cells = list.map((p) => `<figure><img src="data:image/png;base64,${readFileSync(p.file).toString('base64')}"><figcaption>${p.document}</figcaption></figure>`).join('');
    await page.setContent(
      `<!DOCTYPE html><html><head><style>body{margin:8px;font:14px sans-serif;background:#bbb}h1{margin:0 0 8px;font-size:20px}` +
        `main{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-start}figure{margin:0;background:#fff}img{display:block;height:390px}` +
        `figcaption{padding:2px 4px}</style></head><body><h1>${lang}</h1><main>${cells}</main></body></html>`,
    );
    writeFileSync(join(out, `sheet-${lang}.png`), await page.screenshot({ fullPage: true }));
  }
} finally {
  await browser.close();
}
const index = [...pages]
  .map(
    ([lang, list]) =>
      `<h2 id="${lang}">${lang}</h2><div>${list.map((p) => `<figure><img src="${relative(out, p.file)}" loading="lazy"><figcaption>${p.document}</figcaption></figure>`).join('')}</div>`,
  )
  .join('\n');
writeFileSync(
  join(out, 'index.html'),
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>abha-link documents in every language</title><style>body{font:14px sans-serif;background:#ccc}` +
    `div{display:flex;flex-wrap:wrap;gap:10px}figure{margin:0;background:#fff}img{display:block;width:420px}</style></head><body>` +
    `<p>${[...pages.keys()].map((l) => `<a href="#${l}">${l}</a>`).join(' · ')}</p>${index}</body></html>`,
);
process.stdout.write(`${relative(root, join(out, 'index.html'))}\n`);
