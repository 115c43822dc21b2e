/**
 * Printing through a real Chromium: the page as a person sees it (a
 * screenshot that is neither blank nor the wrong size), PDF page sizes and
 * page breaks, Devanagari, blocked network, and the hostile corpus in a live
 * page with JavaScript on. These tests need a Chromium where findChromium()
 * looks (Debian's /usr/bin/chromium…) and are skipped, saying so, without it. The PDF-unavailable paths run always.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClinicalInput } from '../src/generated/types.js';
import { buildLinkRequest } from '../src/index.js';
import { CHROMIUM_ARGS } from '../src/render/pdf.js';
import { createPdfPrinter, createRenderer, findChromium, htmlToPdf, isPdfUnavailableError, renderDocuments, sweepStaleProfileFolders, type PdfPrinter } from '../src/render/index.js';
import { decodePng, pdfPages } from './fixtures/render/html.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = findChromium();
const hasChromium = CHROMIUM !== undefined;
const SKIP = hasChromium ? '' : ' [skipped: no Chromium in the usual places (findChromium); apt-get install chromium to run it]';
const hasDevanagariFont = hasChromium && /Devanagari/i.test(spawnSync('fc-list', [':lang=hi', 'family'], { encoding: 'utf8' }).stdout ?? '');
const hasPdfToText = hasChromium && spawnSync('pdftotext', ['-v'], { encoding: 'utf8' }).error === undefined;
const example = (name: string): ClinicalInput => JSON.parse(readFileSync(join(root, `examples/${name}.input.json`), 'utf8')) as ClinicalInput;
const html = (input: unknown, options: Parameters<typeof renderDocuments>[1] = {}): string => renderDocuments(input, options)[0]?.html ?? '';

describe('when PDF output is not possible', () => {
  it('says how to install playwright-core and Chromium when playwright-core is missing', async () => {
    const missing = (): Promise<unknown> => Promise.reject(Object.assign(new Error("Cannot find package 'playwright-core'"), { code: 'ERR_MODULE_NOT_FOUND' }));
    const err = await htmlToPdf('<p>x</p>', { loadPlaywright: missing }).catch((e: unknown) => e);
    expect(isPdfUnavailableError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'no-playwright' });
    expect(String(err)).toContain('npm install playwright-core (it downloads no browser)');
    expect(String(err)).toContain('apt-get install chromium');
    expect(String(err)).not.toContain('playwright install');
  });

  it('says where it looked and how to give a path when there is no Chromium', async () => {
    await expect(createPdfPrinter({ executablePath: '/nonexistent/chromium' })).rejects.toMatchObject({ name: 'PdfUnavailableError', code: 'no-browser' });
    await expect(createPdfPrinter({ executablePath: '/nonexistent/chromium' })).rejects.toThrow(/ABHA_LINK_CHROMIUM/);
    expect(findChromium(['/nonexistent/a', '/nonexistent/b'])).toBeUndefined();
    expect(findChromium(['/nonexistent/a', process.execPath])).toBe(process.execPath);
  });

  it('reports a browser that does not start', async () => {
    // node is a file that exists but is no browser: the launch fails.
    await expect(createPdfPrinter({ executablePath: process.execPath, timeoutMs: 15_000 })).rejects.toMatchObject({ name: 'PdfUnavailableError', code: 'launch-failed' });
  });
});

describe('the private profile folders of PDF printing', () => {
  const hostTag = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

  it('are swept only when they are ours, of this host, and their process is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'abha-link-sweep-'));
    try {
      const gone = spawnSync(process.execPath, ['-e', '0']).pid;
      const alive = process.ppid;
      const names = {
        stale: `abha-link-chromium-${hostTag}-${gone}-Ab12Cd`,
        running: `abha-link-chromium-${hostTag}-${alive}-Ab12Cd`,
        mine: `abha-link-chromium-${hostTag}-${process.pid}-Ab12Cd`,
        otherHost: `abha-link-chromium-00000000-${gone}-Ab12Cd`,
        otherProgram: 'playwright_chromiumdev_profile-Ab12Cd',
        aFile: `abha-link-chromium-${hostTag}-${gone}-Ef34Gh`,
        aLink: `abha-link-chromium-${hostTag}-${gone}-Ij56Kl`,
      };
      for (const n of [names.stale, names.running, names.mine, names.otherHost, names.otherProgram]) mkdirSync(join(dir, n, 'profile', 'Default'), { recursive: true });
      writeFileSync(join(dir, names.stale, 'profile', 'Default', 'Cookies'), 'x');
      writeFileSync(join(dir, names.aFile), 'x');
      symlinkSync(join(dir, names.otherProgram), join(dir, names.aLink));
      expect(await sweepStaleProfileFolders(dir)).toEqual([names.stale]);
      expect(readdirSync(dir).sort()).toEqual(
        Object.values(names)
          .filter((n) => n !== names.stale)
          .sort(),
      );
      expect(lstatSync(join(dir, names.otherProgram, 'profile')).isDirectory()).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves nothing behind when the browser does not start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'abha-link-nostart-'));
    try {
      await expect(createPdfPrinter({ executablePath: process.execPath, timeoutMs: 15_000, tempDirectory: dir })).rejects.toMatchObject({ code: 'launch-failed' });
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  /** The pids of processes whose command line mentions `text` (Linux /proc). */
  const processesMentioning = (text: string): number[] =>
    readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .filter((n) => {
        try {
          return readFileSync(`/proc/${n}/cmdline`, 'latin1').includes(text);
        } catch {
          return false;
        }
      })
      .map(Number);

  it.skipIf(!hasChromium || process.platform !== 'linux')(
    `a PDF render killed mid-way, then a new render, leave no profile folder in the temp directory, and it is private while it exists${SKIP}`,
    async () => {
      const temp = mkdtempSync(join(tmpdir(), 'abha-link-tmpdir-'));
      try {
        const child = spawn(process.execPath, [join(root, 'test/fixtures/render/print-and-wait.mjs')], { cwd: root, env: { ...process.env, TMPDIR: temp }, stdio: ['ignore', 'pipe', 'inherit'] });
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (b: Buffer) => {
            if (b.toString().includes('printing')) resolve();
          });
          child.on('exit', () => reject(new Error('the printing child ended before the kill')));
        });
        const folders = readdirSync(temp);
        expect(folders.length).toBeGreaterThan(0);
        for (const f of folders) expect((lstatSync(join(temp, f)).mode & 0o777).toString(8), f).toBe('700');
        const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
        // Nothing cleaned up after the kill: the folder is there.
        expect(readdirSync(temp).length).toBeGreaterThan(0);
        // The browser sees its pipe close and ends; wait for that (or end it) so that it writes no more.
        for (let i = 0; i < 100 && processesMentioning(temp).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
        for (const pid of processesMentioning(temp)) process.kill(pid, 'SIGKILL');
        const r = spawnSync(
          process.execPath,
          [join(root, 'dist/cli/main.js'), 'render', '--pdf', '-o', join(temp, '..', `${temp.split('/').pop() ?? ''}.pdf`), 'examples/opd-prescription.input.json'],
          {
            cwd: root,
            env: { ...process.env, TMPDIR: temp },
            encoding: 'utf8',
          },
        );
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
        expect(readdirSync(temp)).toEqual([]);
      } finally {
        rmSync(temp, { recursive: true, force: true });
        rmSync(`${temp}.pdf`, { force: true });
      }
    },
    90_000,
  );
});

describe(`in Chromium${SKIP}`, () => {
  let printer: PdfPrinter | undefined;
  beforeAll(async () => {
    if (CHROMIUM !== undefined) printer = await createPdfPrinter({ executablePath: CHROMIUM });
  }, 60_000);
  afterAll(async () => {
    await printer?.close();
  });
  const p = (): PdfPrinter => {
    if (printer === undefined) throw new Error('no printer');
    return printer;
  };

  it.skipIf(!hasChromium)(
    `shows the prescription as a full, non-blank A4 page with the letterhead at the top${SKIP}`,
    async () => {
      const png = decodePng(await p().screenshot(html(example('opd-prescription')), { pageSize: 'A4' }));
      expect(png.width).toBe(794);
      expect(png.height).toBeGreaterThanOrEqual(1123);
      let ink = 0;
      let accent = 0;
      let firstInkRow = -1;
      let lastInkRow = -1;
      for (let y = 0; y < png.height; y++) {
        for (let x = 0; x < png.width; x++) {
          const i = (y * png.width + x) * 4;
          const [r, g, b] = [png.rgba[i] ?? 0, png.rgba[i + 1] ?? 0, png.rgba[i + 2] ?? 0];
          if (r + g + b < 200) {
            ink++;
            if (firstInkRow < 0) firstInkRow = y;
            lastInkRow = y;
          }
          // The accent colour #1d4f73 of the hospital name and the letterhead rule.
          if (Math.abs(r - 0x1d) < 12 && Math.abs(g - 0x4f) < 12 && Math.abs(b - 0x73) < 12 && y < 150) accent++;
        }
      }
      const share = ink / (png.width * png.height);
      expect(share).toBeGreaterThan(0.005);
      expect(share).toBeLessThan(0.3);
      expect(accent).toBeGreaterThan(500);
      expect(firstInkRow).toBeLessThan(120);
      expect(lastInkRow).toBeGreaterThan(600);
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `prints A4 and A5 PDFs of one page each for a typical visit, and breaks a long medication list across pages${SKIP}`,
    async () => {
      const a4 = pdfPages(await p().pdf(html(example('opd-prescription')), { pageSize: 'A4' }));
      // A4 is 595.3 × 841.9 pt and A5 419.5 × 595.3 pt; Chromium rounds to whole CSS pixels.
      const near = (v: number | undefined, pt: number): boolean => v !== undefined && Math.abs(v - pt) < 2;
      expect(a4.pages).toBe(1);
      expect(near(a4.mediaBox[2], 595.3) && near(a4.mediaBox[3], 841.9), `A4 MediaBox ${a4.mediaBox.join(' ')}`).toBe(true);
      const a5 = pdfPages(await p().pdf(html(example('opd-prescription'), { pageSize: 'A5' }), { pageSize: 'A5' }));
      expect(a5.pages).toBe(1);
      expect(near(a5.mediaBox[2], 419.5) && near(a5.mediaBox[3], 595.3), `A5 MediaBox ${a5.mediaBox.join(' ')}`).toBe(true);
      const input = example('opd-prescription');
      const long = {
        ...input,
        medications: Array.from({ length: 60 }, (_, i) => ({ drugName: `Medicine number ${i + 1}`, dosage: '1 tablet', frequency: 'BD', duration: '5 days', instructions: 'after food' })),
      };
      expect(pdfPages(await p().pdf(html(long), { pageSize: 'A4' })).pages).toBeGreaterThanOrEqual(2);
    },
    60_000,
  );

  it.skipIf(!hasPdfToText)(
    `repeats the medication table header on every page, on A4 and on A5${hasPdfToText ? SKIP : ' [skipped: no Chromium or no pdftotext (poppler-utils)]'}`,
    async () => {
      const input = example('opd-prescription');
      const long = {
        ...input,
        medications: Array.from({ length: 60 }, (_, i) => ({
          drugName: `Medicine number ${i + 1}`,
          dosage: '1 tablet',
          frequency: 'BD',
          duration: '5 days',
          ...(i % 2 === 1 ? { instructions: 'after food' } : {}),
        })),
      };
      for (const pageSize of ['A4', 'A5'] as const) {
        const pdf = await p().pdf(html(long, { pageSize }), { pageSize });
        // The text layer keeps the invisible soft hyphens the renderer puts into words.
        const text = spawnSync('pdftotext', ['-layout', '-', '-'], { input: Buffer.from(pdf), encoding: 'utf8' }).stdout.replace(/\u00ad/g, '');
        const pages = text.split('\f').filter((t) => /Medicine number/.test(t));
        expect(pages.length, pageSize).toBeGreaterThanOrEqual(2);
        for (const [i, page] of pages.entries()) expect(page, `${pageSize} page ${i + 1} has no table header`).toMatch(/NO\.\s+MEDICINE\s+DOSE[\s\S]{0,200}DURATION/);
      }
    },
    60_000,
  );

  // The text of each page, without the soft hyphens the renderer puts in words (pdftotext keeps them).
  const pdfText = (pdf: Uint8Array): string[] =>
    spawnSync('pdftotext', ['-layout', '-', '-'], { input: Buffer.from(pdf), encoding: 'utf8' })
      .stdout.replace(/\u00AD/g, '')
      .split('\f')
      .filter((t) => t.trim() !== '');
  const POPPLER_SKIP = hasPdfToText ? SKIP : ' [skipped: no Chromium or no pdftotext (poppler-utils)]';

  it.skipIf(!hasPdfToText)(
    `prints the patient's name, the date and Page N of 3 on every page of the 20-medicine prescription${POPPLER_SKIP}`,
    async () => {
      const pages = pdfText(await p().pdf(html(example('long-prescription'), { pageSize: 'A5' }), { pageSize: 'A5' }));
      expect(pages).toHaveLength(3);
      for (const [i, page] of pages.entries()) {
        expect(page, `page ${i + 1}`).toContain('Ramesh Gowda');
        expect(page, `page ${i + 1}`).toContain('21 Nov 2026');
        expect(page, `page ${i + 1}`).toContain(`Page ${i + 1} of 3`);
      }
      // The medicine table's header repeats on each page the table reaches.
      for (const page of pages.filter((t) => /GLYCOMET|Glycomet|Zincovit|Betadine|Otrivin/.test(t))) expect(page).toMatch(/NO\.\s+MEDICINE\s+DOSE/);
      // Every page of a one-page document says so too, and a link request without a name prints the blank line.
      const one = pdfText(await p().pdf(html(buildLinkRequest(example('opd-prescription'))), { pageSize: 'A4' }));
      expect(one).toHaveLength(1);
      expect(one[0]).toMatch(/Patient name\s+_{10,}\s+·\s+OPD-2026-0042\s+·\s+20 Nov 2026\s+Page 1 of 1/);
    },
    60_000,
  );

  it.skipIf(!hasPdfToText)(
    `fits the bundled prescription with a line of advice on one A5 page, and a visit summary of three records on one A4 page${POPPLER_SKIP}`,
    async () => {
      const withAdvice = { ...example('opd-prescription'), advice: 'Walk 30 minutes a day; avoid sweets and fried food; check blood sugar weekly.' };
      // One A4 page. On A5, since the dosing text is 8.5 pt and the frequency is printed as the clinician wrote it with
      // its meaning ("1-0-1 (twice a day: morning and night)", three lines in its column), the fifth medicine, the
      // advice and the follow-up go to a second page: each page is signed, and the advice stays with the last medicine.
      for (const [pageSize, count] of [
        ['A4', 1],
        ['A5', 2],
      ] as const) {
        const pages = pdfText(await p().pdf(html(withAdvice, { pageSize }), { pageSize }));
        expect(pages, pageSize).toHaveLength(count);
        for (const [i, page] of pages.entries()) {
          expect(page, `${pageSize} page ${i + 1}`).toContain('Signature and stamp');
          expect(page, `${pageSize} page ${i + 1}`).toContain(`Page ${i + 1} of ${count}`);
        }
        const last = pages[count - 1] ?? '';
        expect(last, pageSize).toContain('Walk 30 minutes a day');
        expect(last.split('Walk 30 minutes a day')[0], `${pageSize}: the advice goes with the last medicine`).toContain('Povidone-iodine');
      }
      // A visit summary of three records with investigations and advice: one A4 page; on A5, at 8.5 pt with the
      // signature at the foot of each page of medicines, two.
      for (const [pageSize, pages] of [
        ['A4', 1],
        ['A5', 2],
      ] as const)
        expect(pdfText(await p().pdf(html(example('multi-care-context'), { pageSize, template: 'visit-summary' }), { pageSize })), pageSize).toHaveLength(pages);
    },
    60_000,
  );

  it.skipIf(!hasPdfToText)(
    `never leaves the signature alone on the last page: the follow-up (or the last rows) go with it${POPPLER_SKIP}`,
    async () => {
      const input = example('long-prescription');
      const meds = (n: number): NonNullable<ClinicalInput['medications']> =>
        Array.from({ length: n }, (_, i) => ({ ...(input.medications?.[i % 20] ?? { drugName: 'X' }), drugName: `Brand ${i + 1}` }));
      const { followUp: _, ...visit } = input.visit;
      // Lists that end at every height of the last page, on both sizes; without a follow-up the last medicine goes to
      // the signature's page with it, also where the break is the second or third one (A5 21, 35; A4 25: the signature
      // alone, or split, before the closing shared the last medicine's table section).
      const cases = [
        ...[18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28].map((n) => ({ pageSize: 'A5' as const, n, doc: { ...input, medications: meds(n) } as ClinicalInput })),
        ...[12, 13, 14, 15, 16, 17, 18, 30, 31, 32, 33, 34, 35, 36].map((n) => ({ pageSize: 'A4' as const, n, doc: { ...input, medications: meds(n) } as ClinicalInput })),
        ...[5, 6, 7, 8, 9, 21, 22, 35, 36, 37].map((n) => ({ pageSize: 'A5' as const, n, doc: { ...input, visit, medications: meds(n) } as ClinicalInput })),
        ...[14, 15, 16, 17, 18, 25, 26, 27, 28].map((n) => ({ pageSize: 'A4' as const, n, doc: { ...input, visit, medications: meds(n) } as ClinicalInput })),
      ];
      for (const { pageSize, n, doc } of cases) {
        const pages = pdfText(await p().pdf(html(doc, { pageSize }), { pageSize }));
        const label = `${pageSize}, ${n} medicines${doc.visit.followUp === undefined ? ', no follow-up' : ''}`;
        const last = pages[pages.length - 1] ?? '';
        expect(last, label).toContain('Signature and stamp');
        // With the signature on its page: a medicine row or the follow-up (beside it), not only the page margin.
        // (A medicine row: "Paracetamol (Brand 6)" may wrap between "Brand" and its number.)
        expect(last, label).toMatch(/\bBrand\b|FOLLOW-UP/);
        expect(last, `${label}: the record reference stays with the signature`).toContain('Record reference');
      }
    },
    180_000,
  );

  it.skipIf(!hasPdfToText)(
    `prints every line of a long advice, over pages, with the signature after its last line${POPPLER_SKIP}`,
    async () => {
      const advice = Array.from({ length: 110 }, (_, i) => `Advice line ${i + 1}: walk daily.`).join('\n');
      for (const pageSize of ['A4', 'A5'] as const) {
        const pages = pdfText(await p().pdf(html({ ...example('long-prescription'), advice }, { pageSize }), { pageSize }));
        const text = pages.join('\n');
        for (let i = 1; i <= 110; i++) expect(text, `${pageSize}: line ${i}`).toContain(`Advice line ${i}: walk daily.`);
        const last = pages[pages.length - 1] ?? '';
        expect(last, pageSize).toContain('Signature and stamp');
        expect(last, pageSize).toContain('Advice line 110');
      }
    },
    60_000,
  );

  it.skipIf(!hasPdfToText)(
    `prints a short advice of many lines with every line once, none cut between two pages${POPPLER_SKIP}`,
    async () => {
      // 120 short lines (under 600 characters): too tall to print as one piece, which a page would slice through a line.
      const advice = Array.from({ length: 120 }, (_, i) => `L${i + 1}`).join('\n');
      for (const pageSize of ['A4', 'A5'] as const) {
        const text = pdfText(await p().pdf(html({ ...example('opd-prescription'), advice }, { pageSize }), { pageSize })).join('\n');
        for (let i = 1; i <= 120; i++) expect(text.match(new RegExp(`^\\s*L${i}(?!\\d)`, 'gm')) ?? [], `${pageSize}: line L${i}`).toHaveLength(1);
      }
    },
    60_000,
  );

  it.skipIf(!hasPdfToText)(
    `keeps the signature with the last test, vaccine or bill line when nothing else follows them${POPPLER_SKIP}`,
    async () => {
      const lab = example('lab-order');
      const { advice: _, ...labNoAdvice } = lab;
      const imm = example('immunization');
      const inv = example('invoice');
      const dis = example('discharge-summary');
      const { advice: _a, ...disNoAdvice } = dis;
      const named = (n: number, name: string): string[] => Array.from({ length: n }, (_, i) => `${name} ${i + 1}`);
      // sign: the signature's line, "Authorised signatory" on the bill (the hospital signs it, not the doctor).
      const cases: Array<{ label: string; pageSize: 'A4' | 'A5'; input: unknown; template?: 'lab-order' | 'visit-summary'; last: RegExp; printed?: string; sign?: string }> = [
        // The test table of a lab order, and the test list of a visit summary (heights where the signature went alone).
        ...[18, 19, 20, 21, 44, 45, 46, 47].map((n) => ({
          label: `lab order, A5, ${n} tests`,
          pageSize: 'A5' as const,
          input: { ...labNoAdvice, labInvestigations: named(n, 'Test number').map((testName) => ({ testName })) },
          last: /Test number \d+/,
        })),
        ...[30, 32, 34, 36, 38].map((n) => ({
          label: `visit summary, A4, ${n} tests`,
          pageSize: 'A4' as const,
          template: 'visit-summary' as const,
          input: { ...labNoAdvice, labInvestigations: named(n, 'Test number').map((testName) => ({ testName })) },
          last: /Test number \d+/,
        })),
        ...[5, 6, 15, 16].map((n) => ({
          label: `immunisation certificate, A5, ${n} vaccines`,
          pageSize: 'A5' as const,
          input: { ...imm, visit: { ...imm.visit, followUp: undefined }, immunizations: named(n, 'Vaccine').map((vaccine) => ({ ...imm.immunizations?.[0], vaccine })) },
          last: /Vaccine \d+/,
        })),
        ...[20, 22, 24, 26, 56, 57, 58].map((n) => ({
          label: `invoice without a receipt, A4, ${n} lines`,
          pageSize: 'A4' as const,
          input: {
            ...inv,
            invoice: { ...inv.invoice, payment: undefined, total: 10 * n, lines: named(n, 'Item').map((item) => ({ item, code: '00', quantity: 1, unitPrice: 10, total: 10 })) },
          },
          last: /Total/,
          sign: 'Authorised signatory',
        })),
      ];
      // The discharge summary's medicines to take at home, where its last page begins.
      for (const [pageSize, ns] of [
        ['A4', [17, 18, 19]],
        ['A5', [16, 17, 18]],
      ] as const)
        for (const n of ns)
          cases.push({
            label: `discharge summary, ${pageSize}, ${n} medicines`,
            pageSize,
            input: { ...disNoAdvice, visit: { ...dis.visit, followUp: undefined }, medications: named(n, 'Brand').map((drugName, i) => ({ ...dis.medications?.[i % 2], drugName })) },
            last: /Brand/,
            // The instructions print under the name on A5, as in the prescription (the column is left out there).
            printed: 'after food',
          });
      for (const { label, pageSize, input, template, last, printed, sign = 'Signature and stamp' } of cases) {
        const pages = pdfText(await p().pdf(html(input, { pageSize, lint: false, ...(template === undefined ? {} : { template }) }), { pageSize }));
        if (printed !== undefined) expect(pages.join('\n'), label).toContain(printed);
        const page = pages[pages.length - 1] ?? '';
        expect(page, label).toContain(sign);
        expect(page.split(sign)[0], `${label}: the signature has company`).toMatch(last);
        expect(page, `${label}: the record reference stays with the signature`).toContain('Record reference');
      }
    },
    180_000,
  );

  it.skipIf(!hasPdfToText)(
    `keeps in the PDF's text only the soft hyphens where a line breaks, so a drug name is found whole${POPPLER_SKIP}`,
    async () => {
      for (const [lang, pageSize, pages] of [
        ['en', 'A5', 3],
        ['en', 'A4', 2],
        ['hi', 'A5', 3],
        // Bilingual A4: three pages since the frequencies print as written with their meaning and every page of
        // medicines is signed (the signature is the medicine table's footer, repeated per page).
        [['en', 'hi'], 'A4', 3],
      ] as const) {
        const label = `${String(lang)} ${pageSize}`;
        const raw = spawnSync('pdftotext', ['-layout', '-', '-'], {
          input: Buffer.from(await p().pdf(html(example('long-prescription'), { lang, pageSize }), { pageSize })),
          encoding: 'utf8',
        }).stdout;
        // The renderer puts hundreds of soft hyphens into the words (hyphenate.ts); the text layer keeps only those
        // printed as a hyphen at the end of a line (pdftotext writes them as U+00AD U+2010). The layout is unchanged.
        expect(raw.match(/\u00AD(?!\u2010)/g) ?? [], label).toEqual([]);
        expect(
          raw.split('\f').filter((t) => t.trim() !== ''),
          label,
        ).toHaveLength(pages);
        for (const name of ['Metformin', 'Telmisartan', 'Atorvastatin']) expect(raw, `${label}: ${name}`).toMatch(new RegExp(name, 'i'));
      }
    },
    90_000,
  );

  it.skipIf(!hasDevanagariFont)(
    `embeds a Devanagari font for Hindi labels${hasDevanagariFont ? '' : ' [skipped: no Chromium or no Devanagari font (fonts-noto-core)]'}`,
    async () => {
      const pdf = Buffer.from(await p().pdf(html(example('opd-prescription'), { lang: 'hi' }))).toString('latin1');
      expect(pdf).toMatch(/\/BaseFont \/[A-Z]{6}\+[A-Za-z]*Devanagari/);
    },
    60_000,
  );

  describe('with a local server that counts requests', () => {
    let server: Server | undefined;
    let requests = 0;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        requests++;
        res.end('x');
      });
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server?.close(() => resolve()));
    });

    it.skipIf(!hasChromium)(
      `lets no request leave the page, even from a template that asks for one${SKIP}`,
      async () => {
        const port = (server?.address() as AddressInfo).port;
        const renderer = await createRenderer({
          templates: {
            leaky: `<!DOCTYPE html><html><head><link rel="stylesheet" href="http://127.0.0.1:${port}/style.css"></head><body><img src="http://127.0.0.1:${port}/pixel.png"><p>{{hospital.name}}</p></body></html>`,
          },
        });
        const [doc] = renderer.render(example('lab-order'), { template: 'leaky' });
        const pdf = await p().pdf(doc?.html ?? '');
        expect(pdfPages(pdf).pages).toBe(1);
        expect(requests).toBe(0);
      },
      60_000,
    );
  });

  it.skipIf(!hasChromium)(
    `runs no script and makes no request from a custom template with <script>, external images and a looser policy of its own, with JavaScript on${SKIP}`,
    async () => {
      // The page is served over http as a person would open it, with the network open: only the policy stands in the way.
      let asked: string[] = [];
      let page = '';
      const server = createServer((req, res) => {
        if (req.url === '/page.html') {
          res.setHeader('content-type', 'text/html; charset=utf-8');
          res.end(page);
          return;
        }
        asked.push(req.url ?? '');
        res.end(req.url === '/s.js' ? "document.title = 'ran'" : 'x');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const active = [
        `<link rel="stylesheet" href="${origin}/style.css"><script src="${origin}/s.js"></script>`,
        `<script>document.title = 'ran'; fetch('${origin}/fetch'); new Image().src = '${origin}/beacon';</script>`,
      ].join('');
      const body = `<img src="https://tracker.invalid/p.png"><img src="${origin}/pixel.png"><iframe src="${origin}/frame"></iframe><p id="name">{{hospital.name}}</p><img src="x" onerror="document.title = 'ran'">`;
      const looser = `<meta http-equiv="Content-Security-Policy" content="default-src * 'unsafe-inline'; script-src * 'unsafe-inline'; img-src *">`;
      // The policy goes after <head>, after the doctype when there is no <head>, or first when there is no doctype either.
      const templates = {
        'with-head': `<!DOCTYPE html><html lang="en"><head>${looser}${active}</head><body>${body}</body></html>`,
        'no-head': `<!DOCTYPE html>\n${looser}${active}<body>${body}</body>`,
        fragment: `${active}${body}`,
      };
      const renderer = await createRenderer({ templates });
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: CHROMIUM ?? '', args: [...CHROMIUM_ARGS] });
      try {
        for (const template of Object.keys(templates)) {
          page = renderer.render(example('opd-prescription'), { template })[0]?.html ?? '';
          const tab = await browser.newPage({ javaScriptEnabled: true });
          // Chromium announces the requests it then blocks: each must fail as blocked by the policy, none may finish.
          const finished: string[] = [];
          const failed: string[] = [];
          tab.on('requestfinished', (r) => {
            if (!r.url().endsWith('/page.html')) finished.push(r.url());
          });
          tab.on('requestfailed', (r) => failed.push(r.failure()?.errorText ?? ''));
          asked = [];
          await tab.goto(`${origin}/page.html`, { waitUntil: 'load' });
          // Evaluated by the test through the debugging protocol, which the page's policy does not govern.
          const seen = (await tab.evaluate(
            '({ title: document.title, text: document.getElementById("name").textContent, policies: document.head.querySelectorAll("meta[http-equiv=Content-Security-Policy]").length })',
          )) as { title: string; text: string; policies: number };
          expect(seen.text.replace(/\u00ad/g, ''), template).toBe('Sanjeevani Family Clinic');
          expect(seen.title, template).not.toBe('ran');
          expect(finished, template).toEqual([]);
          expect(asked, template).toEqual([]);
          expect(failed.length, template).toBeGreaterThan(0);
          for (const f of failed) expect(f, template).toMatch(/^(csp|net::ERR_BLOCKED_BY_CSP)$/);
          // Ours is in the head (the template's own, looser policy too, changing nothing).
          expect(seen.policies, template).toBe(template === 'fragment' ? 1 : 2);
          await tab.close();
        }
      } finally {
        await browser.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `wraps a 128-character registration number and HPR id inside the page, keeping each label on one line; usual ones stay on one line${SKIP}`,
    async () => {
      const input = example('opd-prescription');
      const long = { ...input, doctor: { ...input.doctor, licNumber: `KMC-${'1234567890'.repeat(12)}1234`, hpId: `71-2665-5777-2713-${'ABCDEFGHIJ'.repeat(11)}` } };
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: CHROMIUM ?? '', args: [...CHROMIUM_ARGS] });
      try {
        for (const [pageSize, data] of [
          ['A4', long],
          ['A5', long],
          ['A4', input],
          ['A5', input],
        ] as const) {
          const page = await browser.newPage({ viewport: pageSize === 'A4' ? { width: 794, height: 1123 } : { width: 559, height: 794 } });
          await page.route('**/*', (route) => route.abort());
          await page.emulateMedia({ media: 'print' });
          await page.setContent(html(data, { pageSize }), { waitUntil: 'load' });
          // Measured in the page (a string: the test's tsconfig has no DOM types).
          const m = (await page.evaluate(`(() => {
          const sheet = document.querySelector('.sheet').getBoundingClientRect();
          const ids = [...document.querySelectorAll('.letterhead .doctor .id')].map((el) => {
            const label = document.createRange();
            label.setStart(el.firstChild, 0);
            label.setEnd(el.firstChild, el.firstChild.textContent.length);
            const value = el.querySelector('bdi');
            return { right: el.getBoundingClientRect().right, overflow: el.scrollWidth - el.clientWidth, labelLines: new Set([...label.getClientRects()].map((r) => Math.round(r.top))).size, valueLines: new Set([...value.getClientRects()].map((r) => Math.round(r.top))).size };
          });
          return { sheetRight: sheet.right, pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth, ids };
        })()`)) as { sheetRight: number; pageWidth: number; viewport: number; ids: Array<{ right: number; overflow: number; labelLines: number; valueLines: number }> };
          expect(m.ids, pageSize).toHaveLength(2);
          expect(m.pageWidth, `${pageSize}: the page scrolls sideways`).toBeLessThanOrEqual(m.viewport);
          for (const id of m.ids) {
            expect(id.right, pageSize).toBeLessThanOrEqual(m.sheetRight + 0.5);
            expect(id.overflow, pageSize).toBeLessThanOrEqual(0);
            expect(id.labelLines, `${pageSize}: the label is broken`).toBe(1);
            if (data === long) expect(id.valueLines, `${pageSize}: the long value does not wrap`).toBeGreaterThan(1);
            else expect(id.valueLines, `${pageSize}: a usual id is broken`).toBe(1);
          }
          await page.close();
        }
      } finally {
        await browser.close();
      }
    },
    60_000,
  );

  it.skipIf(!hasChromium)(
    `runs nothing from the hostile corpus in a live page with JavaScript on${SKIP}`,
    async () => {
      const corpus = JSON.parse(readFileSync(join(root, 'test/fixtures/render/hostile-strings.json'), 'utf8')) as Array<{ value: string }>;
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: CHROMIUM ?? '', args: [...CHROMIUM_ARGS] });
      try {
        const page = await browser.newPage();
        await page.route('**/*', (route) => route.abort());
        let dialogs = 0;
        page.on('dialog', (d) => {
          dialogs++;
          void d.dismiss();
        });
        const input = example('opd-prescription');
        for (const { value } of corpus) {
          const hostile = {
            ...input,
            patient: { ...input.patient, name: value.slice(0, 255) },
            advice: value,
            medications: [{ drugName: value.slice(0, 255), dosage: value.slice(0, 255), frequency: 'BD', instructions: value }],
          };
          await page.setContent(html(hostile, { lint: false }), { waitUntil: 'load' });
          // Evaluated in the page (a string: the test's tsconfig has no DOM types).
          const seen = (await page.evaluate('({ scripts: document.scripts.length, imgs: document.images.length, text: document.body.innerText })')) as { scripts: number; imgs: number; text: string };
          expect(seen.scripts).toBe(0);
          expect(seen.imgs).toBe(0);
          expect(seen.text.replace(/\u00ad/g, '').replace(/\s+/g, ' ')).toContain(value.replace(/\s+/g, ' ').trim());
        }
        expect(dialogs).toBe(0);
      } finally {
        await browser.close();
      }
    },
    120_000,
  );
});
