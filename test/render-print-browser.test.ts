/**
 * What a patient and a pharmacist read on the printed page (issue 22, items 4-6): names never broken, every page with a
 * medicine signed and saying whose it is, type large enough to dose from. The HTML checks run always; the others print
 * through a real Chromium (findChromium) and read each PDF page with pdftotext (poppler-utils), and are skipped, saying
 * so, without them.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClinicalInput } from '../src/generated/types.js';
import { rupeesInWords } from '../src/render/amount-words.js';
import { CHROMIUM_ARGS } from '../src/render/pdf.js';
import { LANGUAGES, createPdfPrinter, findChromium, renderDocuments, type Language, type PdfPrinter } from '../src/render/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = findChromium();
const hasPdfToText = CHROMIUM !== undefined && spawnSync('pdftotext', ['-v'], { encoding: 'utf8' }).error === undefined;
const SKIP = hasPdfToText ? '' : ' [skipped: no Chromium or no pdftotext (apt-get install chromium poppler-utils)]';
const example = (name: string): ClinicalInput => JSON.parse(readFileSync(join(root, `examples/${name}.input.json`), 'utf8')) as ClinicalInput;
type Options = Parameters<typeof renderDocuments>[1];
const html = (input: unknown, options: Options = {}): string => renderDocuments(input, options)[0]?.html ?? '';

/** The names a document prints: drugs (brand and generic), hospital, doctor, council, patient. */
function namesOf(input: ClinicalInput): string[] {
  const meds = (input.medications ?? []).flatMap((m) => [m.drugName, (m as { genericName?: string }).genericName]);
  const doctor = input.doctor as { name: string; council?: string };
  return [...meds, input.hospital.name, doctor.name, doctor.council, input.patient.name].filter((x): x is string => typeof x === 'string');
}

/** The words of the names that hyphenation could break: six letters or more. */
const longWords = (names: readonly string[]): string[] => [...new Set(names.flatMap((n) => n.split(/[\s()+,/]+/)).filter((w) => /^\p{L}{6,}$/u.test(w)))];

describe('names in the HTML', () => {
  it('carry no soft hyphen, in any language, while running text still does', () => {
    const input = example('long-prescription');
    for (const lang of [...LANGUAGES, ['en', 'hi']] as Array<Language | Language[]>) {
      const page = html(input, { lang });
      const marked = [...page.matchAll(/<bdi translate="no">([^<]*)<\/bdi>/g)].map((m) => m[1] ?? '');
      expect(marked.length, String(lang)).toBeGreaterThan(40);
      for (const name of marked) expect(name, `${String(lang)}: ${name}`).not.toContain('\u00ad');
      for (const name of namesOf(input)) expect(marked, `${String(lang)}: ${name} is marked as a name`).toContain(name);
      // The running text (here a long instruction) is still hyphenated, so a narrow column breaks it at a syllable.
      expect(page, String(lang)).toMatch(/\p{L}\u00ad\p{L}/u);
    }
  });
});

describe('records as clinics issue them', () => {
  const textOf = (page: string): string =>
    page
      .replace(/<style[\s\S]*?<\/style>/g, '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\u00ad/g, '')
      .replace(/\s+/g, ' ');

  it("prints the child's date of birth and parent on the immunisation certificate", () => {
    const t = textOf(html(example('immunization'), { template: 'immunisation-certificate' }));
    expect(t).toContain('Date of birth 25 Sep 2026');
    expect(t).toContain('Parent / guardian Lakshmi Rao (mother)');
    expect(textOf(html(example('immunization'), { template: 'immunisation-certificate', lang: 'hi' }))).toContain('जन्म तिथि 25 सितंबर 2026');
    // One spelling in English (en-IN): the footer's record type too.
    expect(t).not.toMatch(/Immunization /);
    // The date of birth is the certificate's; a prescription prints the age only.
    expect(textOf(html(example('immunization'), { template: 'prescription' }))).not.toContain('Date of birth');
  });

  it("prints the GSTIN, each line's HSN/SAC, the total in words and the authorised signatory on the bill", () => {
    const page = html(example('invoice'));
    const t = textOf(page);
    expect(t).toContain('GSTIN 29AAACS1234K1Z5');
    expect(t).toMatch(/HSN\/SAC/);
    for (const code of ['999312', '3004', '999316']) expect(t).toContain(code);
    expect(t).toContain('Amount in words: Rupees One Thousand and Eighty Paise Only');
    expect(t).toContain('Authorised signatory Sanjeevani Family Clinic');
    expect(t).not.toContain('Signature and stamp');
    // A bill without English prints no words (no library spells numbers in the Indian languages; docs/render.md).
    expect(textOf(html(example('invoice'), { lang: 'ta' }))).not.toContain('Rupees');
    expect(textOf(html(example('invoice'), { lang: ['hi', 'en'] }))).toContain('Rupees');
  });

  it('spells amounts with Indian numbering', () => {
    expect(rupeesInWords(0)).toBe('Rupees Zero Only');
    expect(rupeesInWords(1090.8)).toBe('Rupees One Thousand Ninety and Eighty Paise Only');
    expect(rupeesInWords(123456.5)).toBe('Rupees One Lakh Twenty-Three Thousand Four Hundred Fifty-Six and Fifty Paise Only');
    expect(rupeesInWords(987654321)).toBe('Rupees Ninety-Eight Crore Seventy-Six Lakh Fifty-Four Thousand Three Hundred Twenty-One Only');
    expect(rupeesInWords(-1)).toBeNull();
    expect(rupeesInWords(Number.NaN)).toBeNull();
  });

  it('titles the prescription template "Prescription" when advice made the record an OP Consultation', () => {
    const { hiType: _, ...opd } = example('opd-prescription');
    const input = { ...opd, advice: 'Walk daily.', labInvestigations: [{ testName: 'HbA1c' }] };
    const [doc] = renderDocuments(input);
    expect(doc?.hiType).toBe('OPConsultation');
    expect(/<h1>([^<]*)<\/h1>/.exec(doc?.html ?? '')?.[1]?.replace(/\u00ad/g, '')).toBe('Prescription');
  });
});

describe(`the printed page in Chromium${SKIP}`, () => {
  let printer: PdfPrinter | undefined;
  beforeAll(async () => {
    if (hasPdfToText) printer = await createPdfPrinter({ executablePath: CHROMIUM ?? '' });
  }, 60_000);
  afterAll(async () => {
    await printer?.close();
  });
  /** The text of each printed page, soft hyphens kept (pdftotext writes a line-end one as U+00AD U+2010). */
  const pdfPages = async (input: unknown, options: Options & { pageSize: 'A4' | 'A5' }): Promise<string[]> => {
    if (printer === undefined) throw new Error('no printer');
    const pdf = await printer.pdf(html(input, options), { pageSize: options.pageSize });
    return spawnSync('pdftotext', ['-layout', '-', '-'], { input: Buffer.from(pdf), encoding: 'utf8' })
      .stdout.split('\f')
      .filter((t) => t.trim() !== '');
  };

  it.skipIf(!hasPdfToText)(
    `never splits a name across lines with a hyphen, on A4 and A5, in English, Hindi and Tamil${SKIP}`,
    async () => {
      const input = example('long-prescription');
      const words = longWords(namesOf(input));
      expect(words).toEqual(expect.arrayContaining(['levocetirizine', 'levosalbutamol', 'Sanjeevani', 'Karnataka', 'Council']));
      for (const lang of ['en', 'hi', 'ta'] as const)
        for (const pageSize of ['A4', 'A5'] as const) {
          const pages = await pdfPages(input, { lang, pageSize });
          for (const [i, page] of pages.entries()) {
            // Any hyphen at the end of a line is a break inside a word: none may fall inside a name's word.
            const ends = [...page.matchAll(/(\p{L}+)\u00ad?[\u2010-]\s*\n\s*(\S+)/gu)].map((m) => `${m[1] ?? ''}${(m[2] ?? '').replace(/\P{L}.*$/u, '')}`);
            for (const joined of ends) for (const w of words) expect(w.includes(joined) || joined.includes(w), `${lang} ${pageSize} page ${i + 1}: ${joined}`).toBe(false);
          }
          const all = pages.join('\n').replace(/\u00ad/g, '');
          for (const w of words) expect(all, `${lang} ${pageSize}: ${w} printed whole`).toContain(w);
        }
    },
    120_000,
  );

  it.skipIf(!hasPdfToText)(
    `signs every page that holds a medicine, and every page after the first says whose it is${SKIP}`,
    async () => {
      const long = example('long-prescription');
      const opd = example('opd-prescription');
      const visit = example('multi-care-context');
      const cases: Array<{ label: string; input: ClinicalInput; options: Options & { pageSize: 'A4' | 'A5' }; pages: number; medicine: RegExp }> = [
        { label: 'long prescription, A5', input: long, options: { pageSize: 'A5' }, pages: 3, medicine: /^\s+\d+ \S/m },
        { label: 'long prescription, A4', input: long, options: { pageSize: 'A4' }, pages: 2, medicine: /^\s+\d+ \S/m },
        { label: 'bilingual prescription, A5', input: opd, options: { pageSize: 'A5', lang: ['en', 'hi'] }, pages: 2, medicine: /^\s+\d+ \S/m },
        { label: 'bilingual visit summary, A5', input: visit, options: { pageSize: 'A5', lang: ['en', 'hi'], template: 'visit-summary' }, pages: 2, medicine: /^\s+\d+ (?!Iron)\S/m },
      ];
      for (const { label, input, options, pages: count, medicine: row } of cases) {
        // A medicine row: after the MEDICINES heading on the first page, anywhere on the others (no other numbered rows).
        const medicine = { test: (page: string): boolean => row.test(page.includes('MEDICINES') ? (page.split('MEDICINES')[1] ?? '') : page) };
        const pages = (await pdfPages(input, options)).map((p) => p.replace(/\u00ad\u2010?/g, ''));
        expect(pages, label).toHaveLength(count);
        const doctor = input.doctor as { name: string; licNumber?: string };
        for (const [i, page] of pages.entries()) {
          const at = `${label}, page ${i + 1}`;
          if (medicine.test(page)) {
            expect(page, `${at}: a medicine without the signature`).toContain('Signature and stamp');
            expect(page, at).toContain(doctor.name);
            expect(page, at).toMatch(new RegExp(`Reg\\. No\\.[^\\n]*${doctor.licNumber ?? ''}`));
          }
          // The page margin: name, age / sex, visit id and date, on the first page and every one after it.
          const margin = page.trimEnd().split('\n').pop() ?? '';
          expect(margin, at).toContain(input.patient.name ?? '');
          expect(margin, at).toMatch(/\d+ y \/ [MFO]/);
          expect(margin, at).toContain(input.visit.id);
          expect(margin, at).toMatch(/\d{1,2} \w{3} 20\d\d/);
        }
        // The last page holds a medicine: it never carries only the closing lines.
        expect(medicine.test(pages[pages.length - 1] ?? ''), `${label}: the last page has no medicine`).toBe(true);
        expect(pages.filter((p) => medicine.test(p)).length, `${label}: pages with medicines`).toBeGreaterThan(1);
      }
    },
    180_000,
  );

  /** Runs `use` on a Chromium page in print media that loads nothing from the network, and closes the browser. */
  const withPrintPage = async (use: (page: import('playwright-core').Page) => Promise<void>): Promise<void> => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM ?? '', args: [...CHROMIUM_ARGS] });
    try {
      const page = await browser.newPage();
      await page.route('**/*', (route) => route.abort());
      await page.emulateMedia({ media: 'print' });
      await use(page);
    } finally {
      await browser.close();
    }
  };

  /** Run in the page: the smallest type of the dosing cells and of all printed text, in pt, and duration cells on more than one line. */
  const MEASURE = `(() => {
    const out = { dosing: 99, dosingAt: '', all: 99, allAt: '', brokenDurations: [] };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
      if (!/\\S/.test(n.data)) continue;
      const el = n.parentElement;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || el.getClientRects().length === 0) continue;
      const pt = parseFloat(style.fontSize) * 0.75;
      const at = el.className + ' "' + n.data.trim().slice(0, 24) + '"';
      if (pt < out.all) { out.all = pt; out.allAt = at; }
      if (el.closest('.med-table tbody tr:not(.closing-row) td') !== null && pt < out.dosing) { out.dosing = pt; out.dosingAt = at; }
    }
    // Each text of a duration cell (one per language) on one line.
    for (const td of document.querySelectorAll('.med-table td.dur')) {
      const texts = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      for (let t = texts.nextNode(); t !== null; t = texts.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(t);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) out.brokenDurations.push(t.data);
      }
    }
    return out;
  })()`;

  it.skipIf(CHROMIUM === undefined)(
    `prints dosing text at 8.5 pt or more on A5 (9.5 pt on A4) and nothing under 7 pt, and each duration on one line, in every language${SKIP}`,
    async () => {
      await withPrintPage(async (page) => {
        const input = example('long-prescription');
        const durations = { ...input, medications: (input.medications ?? []).map((m, i) => ({ ...m, duration: ['30 days', '10 days', '3 months', '2 weeks'][i % 4] ?? '' })) };
        const langs: Array<Language | Language[]> = [...LANGUAGES, ['en', 'hi']];
        for (const lang of langs)
          for (const pageSize of ['A4', 'A5'] as const) {
            const at = `${String(lang)} ${pageSize}`;
            for (const [doc, template] of [
              [durations, 'prescription'],
              [example('discharge-summary'), 'discharge-summary'],
            ] as const) {
              await page.setContent(html(doc, { lang, pageSize, template }), { waitUntil: 'load' });
              const m = (await page.evaluate(MEASURE)) as { dosing: number; dosingAt: string; all: number; allAt: string; brokenDurations: string[] };
              expect(m.dosing, `${at} ${template}: ${m.dosingAt}`).toBeGreaterThanOrEqual(pageSize === 'A5' ? 8.49 : 9.49);
              expect(m.all, `${at} ${template}: ${m.allAt}`).toBeGreaterThanOrEqual(6.99);
              if (template === 'prescription') expect(m.brokenDurations, at).toEqual([]);
            }
          }
        // The records too: nothing under 7 pt on A5.
        for (const [name, template] of [
          ['immunization', 'immunisation-certificate'],
          ['invoice', 'invoice'],
          ['wellness', 'wellness'],
          ['lab-order', 'lab-order'],
          ['multi-care-context', 'visit-summary'],
        ] as const)
          for (const lang of [['en', 'hi'], 'ta'] as Array<Language | Language[]>) {
            await page.setContent(html(example(name), { lang, pageSize: 'A5', template }), { waitUntil: 'load' });
            const m = (await page.evaluate(MEASURE)) as { all: number; allAt: string };
            expect(m.all, `${template} ${String(lang)}: ${m.allAt}`).toBeGreaterThanOrEqual(6.99);
          }
      });
    },
    240_000,
  );
  /** Run in the page: the "doctor's words" notes whose closing parenthesis is not on the line of the word before it. */
  const LONE_PARENS = `(() => {
    const out = [];
    for (const note of document.querySelectorAll('.med-table .note')) {
      if (note.getClientRects().length === 0) continue;
      const chars = [];
      const walker = document.createTreeWalker(note, NodeFilter.SHOW_TEXT);
      for (let t = walker.nextNode(); t !== null; t = walker.nextNode()) for (let i = 0; i < t.data.length; i++) if (/\\S/.test(t.data[i])) chars.push([t, i]);
      const top = ([t, i]) => { const r = document.createRange(); r.setStart(t, i); r.setEnd(t, i + 1); return Math.round(r.getBoundingClientRect().top); };
      const last = chars[chars.length - 1], before = chars[chars.length - 2];
      if (last === undefined || before === undefined || last[0].data[last[1]] !== ')') { out.push('no closing parenthesis: ' + note.textContent); continue; }
      if (top(last) !== top(before)) out.push(note.textContent);
    }
    return out;
  })()`;

  it.skipIf(CHROMIUM === undefined)(
    `keeps the closing parenthesis of the "doctor's words" note on the line of its last word, bilingual and in one language, on A4 and A5${SKIP}`,
    async () => {
      await withPrintPage(async (page) => {
        let notes = 0;
        for (const lang of [['en', 'hi'], ['en', 'ta'], 'hi'] as Array<Language | Language[]>)
          for (const pageSize of ['A4', 'A5'] as const) {
            await page.setContent(html(example('opd-prescription'), { lang, pageSize }), { waitUntil: 'load' });
            notes += (await page.evaluate(`document.querySelectorAll('.med-table .note').length`)) as number;
            expect(await page.evaluate(LONE_PARENS), `${String(lang)} ${pageSize}`).toEqual([]);
          }
        expect(notes).toBeGreaterThan(0);
      });
    },
    120_000,
  );
});
