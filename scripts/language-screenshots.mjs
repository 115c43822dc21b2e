/**
 * Screenshots of the bundled prescription in a few languages, for
 * docs/render.md: English, Hindi, Tamil and bilingual English + Hindi, A4,
 * from real renders of examples/opd-prescription.input.json through the
 * Chromium on this machine. Run after a build:
 *
 *   npm run build && node scripts/language-screenshots.mjs [OUT_DIR]
 *
 * Writes OUT_DIR/render-<lang>.png (default OUT_DIR: docs/). Every value on
 * the pages is synthetic.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { createPdfPrinter, findChromium, renderDocuments } = await import('../dist/render/index.js');
const out = process.argv[2] ?? join(root, 'docs');
const chromium = process.env.ABHA_LINK_CHROMIUM || findChromium();
if (chromium === undefined) {
  process.stderr.write('language-screenshots: no Chromium found (apt-get install chromium, or set ABHA_LINK_CHROMIUM)\n');
  process.exit(2);
}
const input = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.input.json'), 'utf8'));
const pages = [
  ['en', 'en'],
  ['hi', 'hi'],
  ['ta', 'ta'],
  ['en-hi', ['en', 'hi']],
];
mkdirSync(out, { recursive: true });
const printer = await createPdfPrinter({ executablePath: chromium });
try {
  for (const [name, lang] of pages) {
    const file = join(out, `render-${name}.png`);
    writeFileSync(file, await printer.screenshot(renderDocuments(input, { lang })[0].html, { pageSize: 'A4', scale: 1 }));
    process.stdout.write(`${file}\n`);
  }
} finally {
  await printer.close();
}
