/**
 * Optional PDF (and PNG) output through a Chromium already on the machine,
 * driven by playwright-core, which is loaded only here and only when asked
 * for. Nothing is downloaded: no browser at install time, none at run time.
 * Each document is printed in its own off-the-record browser context with
 * JavaScript off and every network request aborted, in memory. The browser's
 * profile goes into a private folder of ours (`abha-link-chromium-…`, mode
 * 0700) that is removed on close; folders left by a process that was killed
 * are removed when the next printer starts.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../process.js';
import { PdfUnavailableError } from './errors.js';
import type { PageSize } from './model.js';
import { dropUnusedSoftHyphens } from './pdf-soft-hyphens.js';

/**
 * Where {@link findChromium} looks, in order: Debian/Ubuntu, Fedora, Chrome on Linux, macOS and Windows.
 *
 * @example
 * DEFAULT_CHROMIUM_PATHS[0] //=> '/usr/bin/chromium'
 */
export const DEFAULT_CHROMIUM_PATHS: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/lib/chromium/chromium',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
];

/**
 * Chromium flags used for printing: no sandbox (containers), no GPU, no background traffic.
 *
 * @example
 * createPdfPrinter({ args: [...CHROMIUM_ARGS, '--font-render-hinting=none'] })
 */
export const CHROMIUM_ARGS: readonly string[] = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * The variables of this process's environment the browser gets: what it needs
 * to find its libraries, fonts, locale and temp folder (and, on Windows, its
 * system folders). Nothing else: not the serve token, the API key, the
 * callback secret, a database URL or any ABHA_LINK_* variable.
 */
export const CHROMIUM_ENV_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'TMP',
  'TEMP',
  'LANG',
  'LANGUAGE',
  'TZ',
  'FONTCONFIG_FILE',
  'FONTCONFIG_PATH',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_DATA_DIRS',
  'XDG_RUNTIME_DIR',
  'LD_LIBRARY_PATH',
  'SYSTEMROOT',
  'WINDIR',
  'USERPROFILE',
  'LOCALAPPDATA',
  'APPDATA',
  'PROGRAMFILES',
  'PROGRAMFILES(X86)',
  'COMMONPROGRAMFILES',
];

/**
 * The environment of the browser process: the variables of {@link CHROMIUM_ENV_NAMES}
 * and the locale's `LC_*`, taken from `env`; never a variable named `ABHA_LINK_*`.
 *
 * @example
 * chromiumEnvironment({ PATH: '/usr/bin', ABHA_LINK_API_KEY: 'k', DATABASE_URL: 'postgres://…' }) //=> { PATH: '/usr/bin' }
 */
export function chromiumEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const keep = new Set(CHROMIUM_ENV_NAMES);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const upper = name.toUpperCase();
    if (value === undefined || upper.startsWith('ABHA_LINK_')) continue;
    if (keep.has(upper) || /^LC_[A-Z]+$/.test(upper)) out[name] = value;
  }
  return out;
}

const HOW_TO = 'install a Chromium (Debian/Ubuntu: apt-get install chromium) and give its path if it is not in a usual place (executablePath; CLI: --chromium PATH or ABHA_LINK_CHROMIUM=PATH)';

/** Page sizes in CSS pixels (96 per inch) for screenshots. */
const PAGE_PX: Readonly<Record<PageSize, { width: number; height: number }>> = {
  A4: { width: 794, height: 1123 },
  A5: { width: 559, height: 794 },
};

// The few playwright-core shapes used here, so its types never reach the public API.
interface PwRoute {
  abort(): Promise<void>;
}
interface PwPage {
  setViewportSize(size: { width: number; height: number }): Promise<void>;
  close(): Promise<void>;
  setContent(html: string, options: { waitUntil: 'load'; timeout: number }): Promise<void>;
  emulateMedia(options: { media: 'print' | 'screen' }): Promise<void>;
  pdf(options: Record<string, unknown>): Promise<Uint8Array>;
  screenshot(options: Record<string, unknown>): Promise<Uint8Array>;
  evaluate(expression: string): Promise<unknown>;
}
interface PwContext {
  route(url: string, handler: (route: PwRoute) => Promise<void>): Promise<void>;
  newPage(): Promise<PwPage>;
  close(): Promise<void>;
  browser(): PwBrowser | null;
}
interface PwBrowser {
  newContext(options: Record<string, unknown>): Promise<PwContext>;
}
interface PwModule {
  chromium: { launchPersistentContext(userDataDir: string, options: Record<string, unknown>): Promise<PwContext> };
}

/**
 * Options of {@link createPdfPrinter} and {@link htmlToPdf}.
 *
 * @example
 * const options: PdfPrinterOptions = { executablePath: '/usr/bin/chromium', timeoutMs: 10_000 }
 */
export interface PdfPrinterOptions {
  /** Path of the Chromium (or Chrome) executable. Default: the first of {@link DEFAULT_CHROMIUM_PATHS} that exists. */
  readonly executablePath?: string;
  /** Chromium flags. Default {@link CHROMIUM_ARGS}. */
  readonly args?: readonly string[];
  /** Time limit for starting the browser and for loading each document, in ms. Default 30000. */
  readonly timeoutMs?: number;
  /** Loads playwright-core; tests and bundlers may inject it. Default: `import('playwright-core')`. */
  readonly loadPlaywright?: () => Promise<unknown>;
  /** Where the browser's private profile folder is made (and stale ones of ours are swept). Default: the system's temp directory (`os.tmpdir()`). */
  readonly tempDirectory?: string;
  /** The environment the browser's variables are taken from, through {@link chromiumEnvironment}. Default: this process's. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The name prefix of the private profile folders, `abha-link-chromium-HOST-PID-XXXXXX`
 * (HOST: 8 hex digits of a hash of the host name; PID: the process that made it).
 *
 * @example
 * PROFILE_FOLDER_PREFIX //=> 'abha-link-chromium-'
 */
export const PROFILE_FOLDER_PREFIX = 'abha-link-chromium-';

const hostTag = (): string => createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/**
 * Removes the profile folders of ours in `directory` that a printer left
 * when its process was killed: only folders named {@link PROFILE_FOLDER_PREFIX}
 * of this host, owned by this user, whose process is gone (a running
 * process's folder, another user's, another program's are left alone).
 * {@link createPdfPrinter} calls it at start. Returns the names removed.
 *
 * @example
 * await sweepStaleProfileFolders(os.tmpdir()) //=> ['abha-link-chromium-1a2b3c4d-4242-Xy12Ab']
 */
export async function sweepStaleProfileFolders(directory: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const host = hostTag();
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const removed: string[] = [];
  for (const name of names) {
    const m = /^abha-link-chromium-([0-9a-f]{8})-(\d{1,10})-[A-Za-z0-9]{6}$/.exec(name);
    if (m === null || m[1] !== host) continue;
    const pid = Number(m[2]);
    if (pid === process.pid || isProcessAlive(pid)) continue;
    const path = join(directory, name);
    try {
      const st = await lstat(path);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      // A browser of the dead process may still be closing: retry a non-empty folder.
      await rm(path, { recursive: true, force: true, maxRetries: 3 });
      removed.push(name);
    } catch {
      // gone meanwhile, or not ours to remove: leave it
    }
  }
  return removed;
}

/**
 * Options of one PDF or screenshot.
 *
 * @example
 * await printer.pdf(doc.html, { pageSize: doc.pageSize })
 */
export interface PdfOptions {
  /** Used when the document sets no `@page` size. Default A4. */
  readonly pageSize?: PageSize;
}

/**
 * A running Chromium that prints documents; reuse it for many, then close it.
 *
 * @example
 * const printer: PdfPrinter = await createPdfPrinter()
 * try { writeFileSync('rx.png', await printer.screenshot(doc.html)) } finally { await printer.close() }
 */
export interface PdfPrinter {
  /** The executable in use. */
  readonly executablePath: string;
  /** The document as PDF bytes, printed with the document's own `@page` size. */
  pdf(html: string, options?: PdfOptions): Promise<Uint8Array>;
  /** A PNG of the whole document as a browser shows it (screen media), one page wide. */
  screenshot(html: string, options?: PdfOptions & { readonly scale?: number }): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * The first path of `candidates` that is a file, or undefined.
 *
 * @example
 * findChromium() //=> '/usr/bin/chromium' (when Debian's chromium is installed)
 */
export function findChromium(candidates: readonly string[] = DEFAULT_CHROMIUM_PATHS): string | undefined {
  for (const p of candidates) {
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      // not there: try the next
    }
  }
  return undefined;
}

async function loadPlaywright(load: (() => Promise<unknown>) | undefined): Promise<PwModule> {
  let mod: unknown;
  try {
    mod = await (load ?? (() => import('playwright-core')))();
  } catch {
    throw new PdfUnavailableError(
      'no-playwright',
      `PDF output needs the playwright-core package, which is not installed: run npm install playwright-core (it downloads no browser), and ${HOW_TO}. Without PDF, print the HTML from any browser.`,
    );
  }
  const m = ((mod as { chromium?: unknown }).chromium === undefined ? (mod as { default?: unknown }).default : mod) as Partial<PwModule> | undefined;
  if (m?.chromium === undefined) throw new PdfUnavailableError('no-playwright', 'the loaded playwright module has no chromium launcher; install playwright-core');
  return m as PwModule;
}

/**
 * Starts a Chromium for printing. Throws {@link PdfUnavailableError} with
 * what to install when playwright-core or the browser is missing.
 *
 * @example
 * const printer = await createPdfPrinter({ executablePath: '/usr/bin/chromium' })
 * try { for (const d of docs) writeFileSync(`${d.fileName}.pdf`, await printer.pdf(d.html)) } finally { await printer.close() }
 */
export async function createPdfPrinter(options: PdfPrinterOptions = {}): Promise<PdfPrinter> {
  const pw = await loadPlaywright(options.loadPlaywright);
  const executablePath = options.executablePath ?? findChromium();
  if (executablePath === undefined)
    throw new PdfUnavailableError('no-browser', `PDF output needs a Chromium, and none was found in ${DEFAULT_CHROMIUM_PATHS.slice(0, 3).join(', ')} or other usual places: ${HOW_TO}.`);
  if (findChromium([executablePath]) === undefined) throw new PdfUnavailableError('no-browser', `no Chromium at ${executablePath}: ${HOW_TO}.`);
  const timeout = options.timeoutMs ?? 30_000;
  const temp = options.tempDirectory ?? tmpdir();
  await sweepStaleProfileFolders(temp);
  const folder = await mkdtemp(join(temp, `${PROFILE_FOLDER_PREFIX}${hostTag()}-${process.pid}-`));
  const removeFolder = (): Promise<void> => rm(folder, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  const contextOptions = { javaScriptEnabled: false, offline: true, acceptDownloads: false, serviceWorkers: 'block' };
  let persistent: PwContext;
  try {
    await chmod(folder, 0o700);
    // A persistent launch is the one way to choose where the profile goes (a plain launch puts it in the temp directory);
    // the documents are still printed in off-the-record contexts of that browser.
    persistent = await pw.chromium.launchPersistentContext(join(folder, 'profile'), {
      executablePath,
      args: [...(options.args ?? CHROMIUM_ARGS)],
      timeout,
      headless: true,
      // A minimal environment: the browser never holds this process's secrets.
      env: chromiumEnvironment(options.env ?? process.env),
      artifactsDir: join(folder, 'artifacts'),
      ...contextOptions,
    });
  } catch (e) {
    await removeFolder();
    const first = (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
    throw new PdfUnavailableError('launch-failed', `Chromium at ${executablePath} did not start (${first.slice(0, 200)}): ${HOW_TO}.`);
  }
  const abortAll = (route: PwRoute): Promise<void> => route.abort();
  const browser = persistent.browser();
  if (browser === null) await persistent.route('**/*', abortAll);
  const withPage = async <T>(html: string, pageSize: PageSize, media: 'print' | 'screen', job: (page: PwPage) => Promise<T>): Promise<T> => {
    // An older playwright-core without browser() on a persistent context: pages of that one context.
    const context = browser === null ? persistent : await browser.newContext({ ...contextOptions, viewport: PAGE_PX[pageSize] });
    let page: PwPage | undefined;
    try {
      // Nothing leaves the machine: an <img src> or a stylesheet link in a custom template is aborted.
      if (context !== persistent) await context.route('**/*', abortAll);
      page = await context.newPage();
      await page.setViewportSize(PAGE_PX[pageSize]);
      await page.emulateMedia({ media });
      await page.setContent(html, { waitUntil: 'load', timeout });
      return await job(page);
    } finally {
      if (context === persistent) await page?.close();
      else await context.close();
    }
  };
  return {
    executablePath,
    pdf(html, o = {}) {
      const pageSize = o.pageSize ?? 'A4';
      return withPage(html, pageSize, 'print', async (page) => {
        // The soft hyphens where no line breaks would stay in the PDF's text ("Met\u00adformin"): removed first
        // (pdf-soft-hyphens.ts). Best effort: a page the script cannot read is printed as it is.
        await page.evaluate(dropUnusedSoftHyphens(pageSize)).catch(() => undefined);
        return page.pdf({ format: pageSize, printBackground: true, preferCSSPageSize: true, timeout });
      });
    },
    screenshot(html, o = {}) {
      const pageSize = o.pageSize ?? 'A4';
      return withPage(html, pageSize, 'screen', (page) => page.screenshot({ fullPage: true, type: 'png', scale: o.scale === 1 ? 'css' : 'device', timeout }));
    },
    async close() {
      try {
        await persistent.close();
      } finally {
        await removeFolder();
      }
    },
  };
}

/**
 * One HTML document to PDF bytes, with a browser started and closed for it.
 * For many documents, use {@link createPdfPrinter} and reuse it.
 *
 * @throws PdfUnavailableError when playwright-core or Chromium is missing, saying what to install
 * @example
 * const [doc] = renderDocuments(input)
 * writeFileSync('prescription.pdf', await htmlToPdf(doc.html, { pageSize: doc.pageSize }))
 */
export async function htmlToPdf(html: string, options: PdfPrinterOptions & PdfOptions = {}): Promise<Uint8Array> {
  const printer = await createPdfPrinter(options);
  try {
    return await printer.pdf(html, options.pageSize === undefined ? {} : { pageSize: options.pageSize });
  } finally {
    await printer.close();
  }
}
