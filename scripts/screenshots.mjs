/**
 * Renders every bundled template from the examples, in English and Hindi, and
 * screenshots the printed pages (the PDF as Chromium prints it, page by page,
 * through pdftoppm of poppler-utils) to PNG under docs/screenshots/. Run after
 * `npm run build`:
 *
 *   node scripts/screenshots.mjs [--chromium PATH] [--lang en,hi,ta,en+hi]  (en+hi: bilingual)
 *
 * The PNGs are the printed pages: page margins with the patient's name, the
 * date and "Page N of M" included. Look at every one before committing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPdfPrinter, renderDocuments } from '../dist/render/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { chromium: { type: 'string' }, lang: { type: 'string', default: 'en,hi,ta,en+hi' } } });
const langs = values.lang.split(',');
const example = (name) => JSON.parse(readFileSync(join(root, 'examples', `${name}.input.json`), 'utf8'));

/** What is shot: name, template, example, page size. */
const SHOTS = [
  ['prescription-a4', 'prescription', 'opd-prescription', 'A4'],
  ['prescription-a5', 'prescription', 'opd-prescription', 'A5'],
  ['long-prescription-a5', 'prescription', 'long-prescription', 'A5'],
  ['lab-order-a4', 'lab-order', 'lab-order', 'A4'],
  ['visit-summary-a4', 'visit-summary', 'multi-care-context', 'A4'],
];

const out = join(root, 'docs', 'screenshots');
mkdirSync(out, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'abha-link-shots-'));
const printer = await createPdfPrinter(values.chromium === undefined ? {} : { executablePath: values.chromium });
const written = [];
try {
  for (const lang of langs) {
    for (const [name, template, input, pageSize] of SHOTS) {
      const [doc] = renderDocuments(example(input), { template, lang: lang.includes('+') ? lang.split('+') : lang, pageSize, lint: false });
      const pdf = join(work, `${name}-${lang}.pdf`);
      writeFileSync(pdf, await printer.pdf(doc.html, { pageSize }));
      // 80 dpi: readable, and small enough to commit.
      execFileSync('pdftoppm', ['-r', '80', '-png', pdf, join(work, `${name}-${lang}`)]);
      // The pages of an earlier shot of this document go first: a document that now has fewer pages leaves none behind.
      for (const f of readdirSync(out).filter((x) => new RegExp(`^${name}-${lang.replace('+', '\\+')}-p\\d+\\.png$`).test(x))) rmSync(join(out, f));
      for (const f of readdirSync(work).filter((x) => x.startsWith(`${name}-${lang}-`) && x.endsWith('.png'))) {
        const page = Number(/-(\d+)\.png$/.exec(f)[1]);
        const target = `${name}-${lang}-p${page}.png`;
        renameSync(join(work, f), join(out, target));
        written.push(target);
      }
    }
  }
} finally {
  await printer.close();
  rmSync(work, { recursive: true, force: true });
}
for (const f of written.sort()) process.stdout.write(`docs/screenshots/${f}\n`);
