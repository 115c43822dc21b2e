/**
 * Benchmark of abha-link/render: printable documents per second for a
 * typical visit. Run after a build: `npm run build && node bench/render.mjs`.
 * Imports the built library (dist/).
 *
 * Every figure is a ratio against a baseline measured in the same run, in
 * alternating order (subject, baseline, baseline, subject, ...), because the
 * machines this runs on are shared and noisy; absolute rates are printed
 * too, but only the ratios compare between runs. Each measurement has a
 * warm-up and several rounds; the median is reported with the spread.
 *
 *   1. renderDocuments(clinical input), prescription, A4: the whole path
 *      (validate, build the link request, lint, model, template)
 *      vs buildLinkRequest(the same input): what printing adds to building
 *   2. renderDocuments(link request), prescription
 *      vs validateLinkRequest(the same request)
 *   3. the same render with the QR code of an https documentUrl vs without
 *   4. Hindi, A5 vs English, A4; every other language (and the bilingual
 *      en,hi) vs English, A4 (target 0.9x or better); soft hyphens vs none
 *   5. PDF through Chromium (only when /usr/bin/chromium or ABHA_LINK_CHROMIUM
 *      exists): ms per document with one reused browser vs the HTML render
 *
 * Environment: BENCH_MICRO_ROUNDS (default 7), BENCH_MICRO_MS (default 300),
 * BENCH_PDF_DOCS (default 20; 0 skips the PDF measurement).
 * Data: the bundled examples (synthetic people and hospitals).
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare as compareRates, summary } from './lib.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(join(ROOT, 'dist', 'render', 'index.js'))) {
  process.stderr.write('bench/render: dist/ is missing: run `npm run build` first\n');
  process.exit(2);
}
const core = await import('../dist/index.js');
const render = await import('../dist/render/index.js');

const envNum = (name, dflt) => {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!(n >= 0)) throw new Error(`${name} must be a number >= 0, got "${v}"`);
  return n;
};
const ROUNDS = Math.max(1, Math.round(envNum('BENCH_MICRO_ROUNDS', 7)));
const ROUND_MS = envNum('BENCH_MICRO_MS', 300);
const PDF_DOCS = Math.round(envNum('BENCH_PDF_DOCS', 20));

const log = (s) => process.stderr.write(`${s}\n`);
const int = (n) => Math.round(n).toLocaleString('en-US');
const fix = (n, d = 2) => n.toFixed(d);

const compare = (subject, baseline) => compareRates(subject, baseline, { rounds: ROUNDS, ms: ROUND_MS });

const example = (name) => JSON.parse(readFileSync(join(ROOT, 'examples', name), 'utf8'));
const visit = example('opd-prescription.input.json');
const request = example('opd-prescription.request.json');
const multi = example('multi-care-context.request.json');
const withUrl = multi.careContexts.find((c) => c.bundleData.documentUrl !== undefined);
const htmlBytes = render.renderDocuments(visit)[0].html.length;

const rows = [];
const measure = (label, subject, baselineLabel, baseline) => {
  log(`measuring: ${label}`);
  const m = compare(subject, baseline);
  rows.push({ label, baselineLabel, ...m });
  return m;
};

const full = measure(
  'renderDocuments(clinical input) → prescription HTML',
  () => render.renderDocuments(visit)[0].html.length,
  'buildLinkRequest(clinical input)',
  () => core.buildLinkRequest(visit).careContexts.length,
);
measure(
  'renderDocuments(link request) → prescription HTML',
  () => render.renderDocuments(request)[0].html.length,
  'validateLinkRequest(link request)',
  () => (core.validateLinkRequest(request).success ? 1 : 0),
);
measure(
  'render with QR code of an https documentUrl',
  () => render.renderDocuments(withUrl, { qrCode: true })[0].html.length,
  'the same without the QR code',
  () => render.renderDocuments(withUrl, { qrCode: false })[0].html.length,
);
measure(
  'Hindi, A5',
  () => render.renderDocuments(visit, { lang: 'hi', pageSize: 'A5' })[0].html.length,
  'English, A4',
  () => render.renderDocuments(visit)[0].html.length,
);
// Every language next to English (target: 0.9x or better), a bilingual page, and what the soft hyphens cost.
for (const lang of [...render.LANGUAGES.filter((l) => l !== 'en'), ['en', 'hi']]) {
  const name = Array.isArray(lang) ? lang.join(',') : lang;
  measure(
    `${name}, A4`,
    () => render.renderDocuments(visit, { lang })[0].html.length,
    'English, A4',
    () => render.renderDocuments(visit)[0].html.length,
  );
}
measure(
  'English, A4, with soft hyphens (default)',
  () => render.renderDocuments(visit)[0].html.length,
  'English, A4, hyphenate: false',
  () => render.renderDocuments(visit, { hyphenate: false })[0].html.length,
);

// The same comparison in CPU time (process.cpuUsage), which other processes on a shared machine disturb less than wall
// time: en and the language alternate in blocks of 200 renders, 7 rounds, median of the per-round ratios.
const cpuPerRender = (lang, n) => {
  const c = process.cpuUsage();
  for (let i = 0; i < n; i++) render.renderDocuments(visit, { lang });
  const d = process.cpuUsage(c);
  return (d.user + d.system) / n;
};
const cpuRows = [];
for (const lang of [...render.LANGUAGES.filter((l) => l !== 'en'), ['en', 'hi']]) {
  cpuPerRender(lang, 100);
  cpuPerRender('en', 100);
  const ratios = [];
  for (let k = 0; k < 7; k++) {
    const english = cpuPerRender('en', 200);
    ratios.push(english / cpuPerRender(lang, 200));
  }
  ratios.sort((a, b) => a - b);
  cpuRows.push([Array.isArray(lang) ? lang.join(',') : lang, ratios]);
}

let pdf = null;
const chromium = process.env.ABHA_LINK_CHROMIUM || render.findChromium();
if (PDF_DOCS > 0 && chromium !== undefined) {
  log(`measuring: PDF through ${chromium}, ${PDF_DOCS} documents`);
  try {
    const printer = await render.createPdfPrinter({ executablePath: chromium });
    try {
      const html = render.renderDocuments(visit)[0].html;
      await printer.pdf(html); // warm-up
      const times = [];
      let bytes = 0;
      for (let i = 0; i < PDF_DOCS; i++) {
        const t0 = performance.now();
        bytes = (await printer.pdf(html)).length;
        times.push(performance.now() - t0);
      }
      pdf = { ...summary(times), bytes };
    } finally {
      await printer.close();
    }
  } catch (e) {
    log(`PDF measurement skipped: ${e instanceof Error ? e.message : String(e)}`);
  }
} else log(PDF_DOCS === 0 ? 'PDF measurement skipped (BENCH_PDF_DOCS=0)' : 'PDF measurement skipped: no Chromium found (set ABHA_LINK_CHROMIUM)');

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
let out = `# abha-link render benchmark\n\nNode ${process.version}, ${os.cpus().length} × ${cpu}; ${ROUNDS} rounds of ${ROUND_MS} ms each, median (min..max).\n`;
out += `Typical visit: examples/opd-prescription.input.json (3 diagnoses, 5 medicines), prescription template, ${int(htmlBytes)} bytes of HTML.\n\n`;
out += '| Subject | per second | Baseline | per second | Ratio subject/baseline |\n|---|---:|---|---:|---:|\n';
for (const r of rows) {
  out += `| ${r.label} | ${int(r.subject.median)} | ${r.baselineLabel} | ${int(r.baseline.median)} | ${fix(r.ratio.median)}x (${fix(r.ratio.min)}..${fix(r.ratio.max)}) |\n`;
}
out += `\nA typical prescription renders at **${int(full.subject.median)} per second** (${fix(1000 / full.subject.median, 3)} ms each), `;
out += `${fix(full.ratio.median)}x the rate of building its link request, i.e. printing costs ${fix(1 / full.ratio.median, 1)} builds.\n`;
out += '\n| Language | CPU time ratio to English (rate, median of 7 rounds) |\n|---|---:|\n';
for (const [name, r] of cpuRows) out += `| ${name} | ${fix(r[3])}x (${fix(r[0])}..${fix(r[6])}) |\n`;
const single = cpuRows.filter(([name]) => !name.includes(','));
const slowest = single.reduce((x, y) => (y[1][3] < x[1][3] ? y : x));
out += `\nIn CPU time every language renders at ${fix(slowest[1][3])}x English's rate or better (slowest: ${slowest[0]}; target 0.9x); a bilingual page costs more (two catalogues, more text).\n`;
if (pdf !== null) {
  const htmlMs = 1000 / full.subject.median;
  out += `\nPDF (Chromium, one browser reused, a fresh context per document): ${fix(pdf.median, 1)} ms per document (${fix(pdf.min, 1)}..${fix(pdf.max, 1)}), ${int(pdf.bytes)} bytes; `;
  out += `${int(pdf.median / htmlMs)}x the time of the HTML render.\n`;
}
process.stdout.write(out);
