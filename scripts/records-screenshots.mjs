/**
 * Screenshots of the record templates (discharge summary, immunisation
 * certificate, health check, bill) for docs/render.md: English, Hindi, Tamil
 * and bilingual English + Hindi, A4, from real renders of the examples
 * through the Chromium on this machine. Run after a build:
 *
 *   npm run build && node scripts/records-screenshots.mjs [OUT_DIR]
 *
 * Writes OUT_DIR/<template>-<lang>.png (default OUT_DIR: docs/records/).
 * Every value on the pages is synthetic.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { createPdfPrinter, findChromium, renderDocuments } = await import('../dist/render/index.js');
const out = process.argv[2] ?? join(root, 'docs/records');
const chromium = process.env.ABHA_LINK_CHROMIUM || findChromium();
if (chromium === undefined) {
  process.stderr.write('records-screenshots: no Chromium found (apt-get install chromium, or set ABHA_LINK_CHROMIUM)\n');
  process.exit(2);
}
const templates = [
  ['discharge-summary', 'discharge-summary'],
  ['immunisation-certificate', 'immunization'],
  ['wellness', 'wellness'],
  ['invoice', 'invoice'],
];
const languages = [
  ['en', 'en'],
  ['hi', 'hi'],
  ['ta', 'ta'],
  ['en-hi', ['en', 'hi']],
];
mkdirSync(out, { recursive: true });
const printer = await createPdfPrinter({ executablePath: chromium });
try {
  for (const [template, example] of templates) {
    const input = JSON.parse(readFileSync(join(root, `examples/${example}.input.json`), 'utf8'));
    for (const [name, lang] of languages) {
      const file = join(out, `${template}-${name}.png`);
      writeFileSync(file, await printer.screenshot(renderDocuments(input, { template, lang })[0].html, { pageSize: 'A4', scale: 1 }));
      process.stdout.write(`${file}\n`);
    }
  }
} finally {
  await printer.close();
}
