/**
 * Renders every bundled template from the examples on A4 and A5, in English, Hindi, Tamil, Bengali, Malayalam and English + Hindi, and
 * screenshots the printed pages (the PDF as Chromium prints it, page by page,
 * through pdftoppm of poppler-utils) to PNG under docs/screenshots/. Run after
 * `npm run build`:
 *
 *   node scripts/screenshots.mjs [--chromium PATH] [--lang en,hi,ta,bn,ml,en+hi] [--only NAME,...]  (en+hi: bilingual)
 *
 * `--only` shoots the named shots alone (e.g. `prescription-a5,long-prescription-a4`), after a change to one template.
 *
 * The PNGs are the printed pages: page margins with the patient's name, the
 * date and "Page N of M" included. Look at every one before committing.
 */
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createPdfPrinter, renderDocuments } from '../dist/render/index.js';
import { example, languageOption, printPages, root } from './printed-pages.mjs';

const { values } = parseArgs({ options: { chromium: { type: 'string' }, lang: { type: 'string', default: 'en,hi,ta,bn,ml,en+hi' }, only: { type: 'string' } } });
const langs = values.lang.split(',');
const only = values.only === undefined ? undefined : new Set(values.only.split(','));

/** What is shot: name, template, example, page size. */
const SHOTS = [
  ...[
    ['prescription', 'prescription', 'opd-prescription'],
    ['long-prescription', 'prescription', 'long-prescription'],
    ['lab-order', 'lab-order', 'lab-order'],
    ['visit-summary', 'visit-summary', 'multi-care-context'],
    ['discharge-summary', 'discharge-summary', 'discharge-summary'],
    ['immunisation-certificate', 'immunisation-certificate', 'immunization'],
    ['wellness', 'wellness', 'wellness'],
    ['invoice', 'invoice', 'invoice'],
  ].flatMap(([name, template, input]) => ['A4', 'A5'].map((size) => [`${name}-${size.toLowerCase()}`, template, input, size])),
].filter(([name]) => only === undefined || only.has(name));
if (only !== undefined && SHOTS.length !== only.size) throw new Error(`--only: no shot named ${[...only].filter((n) => !SHOTS.some(([name]) => name === n)).join(', ')}`);

const out = join(root, 'docs', 'screenshots');
mkdirSync(out, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'abha-link-shots-'));
const printer = await createPdfPrinter(values.chromium === undefined ? {} : { executablePath: values.chromium });
const written = [];
try {
  for (const lang of langs) {
    for (const [name, template, input, pageSize] of SHOTS) {
      const [doc] = renderDocuments(example(input), { template, lang: languageOption(lang), pageSize, lint: false });
      // 80 dpi: readable, and small enough to commit.
      const shots = await printPages(printer, doc.html, pageSize, work, `${name}-${lang}`, 80);
      // The pages of an earlier shot of this document go first: a document that now has fewer pages leaves none behind.
      for (const f of readdirSync(out).filter((x) => new RegExp(`^${name}-${lang.replace('+', '\\+')}-p\\d+\\.png$`).test(x))) rmSync(join(out, f));
      for (const { page, file } of shots) {
        const target = `${name}-${lang}-p${page}.png`;
        renameSync(file, join(out, target));
        written.push(target);
      }
    }
  }
} finally {
  await printer.close();
  rmSync(work, { recursive: true, force: true });
}
for (const f of written.sort()) process.stdout.write(`docs/screenshots/${f}\n`);
