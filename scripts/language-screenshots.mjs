/**
 * Screenshots for docs/render.md in English, Hindi, Tamil and bilingual
 * English + Hindi, A4, from real renders of the examples through the Chromium
 * on this machine: the bundled prescription (docs/render-<lang>.png) and the
 * record templates (docs/records/<template>-<lang>.png). Run after a build:
 *
 *   npm run build && node scripts/language-screenshots.mjs
 *
 * Every value on the pages is synthetic.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { example as exampleInput, root } from './printed-pages.mjs';

const { createPdfPrinter, findChromium, renderDocuments } = await import('../dist/render/index.js');
const chromium = process.env.ABHA_LINK_CHROMIUM || findChromium();
if (chromium === undefined) {
  process.stderr.write('language-screenshots: no Chromium found (apt-get install chromium, or set ABHA_LINK_CHROMIUM)\n');
  process.exit(2);
}
const languages = [
  ['en', 'en'],
  ['hi', 'hi'],
  ['ta', 'ta'],
  ['en-hi', ['en', 'hi']],
];
// [example input, template (undefined: the default), file name before -<lang>.png]
const documents = [
  ['opd-prescription', undefined, 'docs/render'],
  ['discharge-summary', 'discharge-summary', 'docs/records/discharge-summary'],
  ['immunization', 'immunisation-certificate', 'docs/records/immunisation-certificate'],
  ['wellness', 'wellness', 'docs/records/wellness'],
  ['invoice', 'invoice', 'docs/records/invoice'],
];
const printer = await createPdfPrinter({ executablePath: chromium });
try {
  for (const [example, template, prefix] of documents) {
    const input = exampleInput(example);
    for (const [name, lang] of languages) {
      const file = join(root, `${prefix}-${name}.png`);
      mkdirSync(dirname(file), { recursive: true });
      const html = renderDocuments(input, { ...(template === undefined ? {} : { template }), lang })[0].html;
      writeFileSync(file, await printer.screenshot(html, { pageSize: 'A4', scale: 1 }));
      process.stdout.write(`${file}\n`);
    }
  }
} finally {
  await printer.close();
}
