/**
 * Screenshots of the playground (GET / of `abha-link serve`) in Chromium, at
 * 1280 px and at 390 px (a phone): a clinical input with errors (the list of
 * issues, one opened in the echo), a valid one (the preview scaled to its
 * frame, A4 and A5) and the queue view with a few submissions made through
 * the API against the mock (one refused, then retried). Writes
 * docs/screenshots/playground-*.png; look at every one before committing.
 *
 *   npx tsx scripts/playground-screenshots.ts [--chromium PATH]
 *
 * The server listens on 127.0.0.1 only, its data in a temporary folder.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { createClient } from '../src/client/client.js';
import { startMockServer } from '../src/mock/index.js';
import { CHROMIUM_ARGS, findChromium } from '../src/render/pdf.js';
import { startServe } from '../src/serve/start.js';

const { values } = parseArgs({ options: { chromium: { type: 'string' } } });
const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'docs', 'screenshots');
const TOKEN = 'playground-screenshots-token';
const input = JSON.parse(readFileSync(join(root, 'examples', 'opd-prescription.input.json'), 'utf8')) as Record<string, Record<string, unknown>> & {
  medications: Record<string, unknown>[];
};

/** The example with three mistakes: a date that is no date, no ABHA address, a duration that is no duration. */
function broken(): unknown {
  const meds = input.medications.map((m, i) => (i === input.medications.length - 1 ? { ...m, duration: 'for ever' } : m));
  return { ...input, visit: { ...input.visit, at: 'yesterday' }, patient: { ...input.patient, abhaAddress: undefined }, medications: meds };
}

async function check(page: Page, value: unknown, size = 'A4'): Promise<void> {
  await page.selectOption('#size', size);
  await page.fill('#input', JSON.stringify(value));
  await page.click('#run');
}

async function shoot(page: Page, name: string, fullPage = true): Promise<void> {
  const file = join(out, `playground-${name}.png`);
  await page.screenshot({ path: file, fullPage });
  process.stdout.write(`docs/screenshots/playground-${name}.png\n`);
}

/** Submissions through the API: four linked, one refused by the mock (then retried in the page). */
async function submit(url: string, refuse: () => void): Promise<void> {
  const post = (visitId: string): Promise<Response> =>
    fetch(`${url}/v1/submissions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...input, visit: { ...input.visit, id: visitId } }),
    });
  for (const n of [1, 2, 3, 4]) await post(`OPD-2026-01${n}`);
  refuse();
  await post('OPD-2026-0199');
}

const mock = await startMockServer();
const data = mkdtempSync(join(tmpdir(), 'abha-link-playground-'));
const clientOptions = { baseUrl: mock.url, apiKey: mock.apiKey };
const serve = await startServe({
  host: '127.0.0.1',
  port: 0,
  dataDir: join(data, 'data'),
  token: TOKEN,
  client: createClient(clientOptions),
  clientOptions,
  databaseUrl: undefined,
  chromium: undefined,
  now: () => new Date(),
  logStream: { write: () => true },
  warn: () => undefined,
});
const browser = await chromium.launch({ executablePath: values.chromium ?? findChromium() ?? '/usr/bin/chromium', args: [...CHROMIUM_ARGS] });
try {
  for (const [name, width, height] of [
    ['1280', 1280, 900],
    ['390', 390, 844],
  ] as const) {
    const page = await browser.newPage({ viewport: { width, height } });
    page.setDefaultTimeout(120_000);
    await page.goto(`${serve.url}/`);
    await page.fill('#token', TOKEN);
    await check(page, broken());
    await page.locator('#issues a').first().waitFor();
    await shoot(page, `${name}-errors`, false);
    await page.locator('#issues a').last().click();
    await shoot(page, `${name}-errors-opened`, false);
    for (const size of ['A4', 'A5']) {
      await check(page, input, size);
      await page.frameLocator('#preview').locator(`html.page-${size.toLowerCase()}`).waitFor({ state: 'attached' });
      await page.frameLocator('#preview').getByText('KMC-45678').first().waitFor();
      await page.locator('#preview-section').scrollIntoViewIfNeeded();
      await shoot(page, `${name}-preview-${size.toLowerCase()}`, false);
    }
    if (name === '1280') {
      await submit(serve.url, () => mock.faults.add({ endpoint: 'link-carecontext', times: 1, fault: { type: 'status', status: 400, message: 'refused' } }));
    }
    await page.click('#tab-queue');
    await page.locator('#subs .sub').first().waitFor();
    await page.locator('#subs .sub button[data-action="open"]').first().click();
    await page.locator('#detail code').waitFor();
    await shoot(page, `${name}-queue`);
    await page.close();
  }
} finally {
  await browser.close();
  await serve.close();
  await mock.close();
  rmSync(data, { recursive: true, force: true });
}
