/**
 * What the scripts that print the bundled documents share (gallery.mjs, screenshots.mjs): the example inputs,
 * the language option ("en+hi" for a bilingual page), and a document printed through Chromium to a PDF and
 * rasterised page by page with pdftoppm of poppler-utils.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** An example's clinical input, examples/NAME.input.json. */
export const example = (name) => JSON.parse(readFileSync(join(root, 'examples', `${name}.input.json`), 'utf8'));

/** The render option of a language as the scripts write it: "hi", or "en+hi" for English with Hindi. */
export const languageOption = (lang) => (lang.includes('+') ? lang.split('+') : lang);

/**
 * Prints `html` to DIR/NAME.pdf and each of its pages to DIR/NAME-N.png at `dpi`; returns the pages in order,
 * each with its number and file.
 */
export async function printPages(printer, html, pageSize, dir, name, dpi) {
  const pdf = join(dir, `${name}.pdf`);
  writeFileSync(pdf, await printer.pdf(html, { pageSize }));
  execFileSync('pdftoppm', ['-r', String(dpi), '-png', pdf, join(dir, name)]);
  // pdftoppm numbers the pages NAME-1.png, or NAME-01.png from ten pages on.
  return readdirSync(dir)
    .map((f) => ({ f, m: f.startsWith(`${name}-`) ? /^(\d+)\.png$/.exec(f.slice(name.length + 1)) : null }))
    .filter(({ m }) => m !== null)
    .map(({ f, m }) => ({ page: Number(m[1]), file: join(dir, f) }))
    .sort((a, b) => a.page - b.page);
}
