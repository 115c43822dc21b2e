/**
 * The playground page (GET /) in a real Chromium: a person types the token,
 * pastes a clinical input, and sees the issues listed first (each a link to
 * its field), the built request, the printed preview scaled to its frame and
 * the FHIR bundle; on a phone (390 px) in one column; the queue view lists,
 * opens and retries submissions through the API. The page makes no request
 * but to its own server and breaks none of its Content-Security-Policy.
 * Needs a Chromium where findChromium() looks (Debian's /usr/bin/chromium);
 * skipped, saying so, without one.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, findChromium } from '../src/render/pdf.js';
import { createServeApp } from '../src/serve/app.js';
import { PLAYGROUND_CSP } from '../src/serve/playground.js';
import { fakeQueue, type FakeQueue } from './support/fake-queue.js';

const CHROMIUM = findChromium();
const SKIP = CHROMIUM === undefined ? ' [skipped: no Chromium in the usual places (findChromium); apt-get install chromium to run it]' : '';
const TOKEN = 'playground-token-93';
const input = JSON.parse(readFileSync(new URL('../examples/opd-prescription.input.json', import.meta.url), 'utf8')) as { visit: Record<string, unknown>; patient: Record<string, unknown> };

describe.skipIf(CHROMIUM === undefined)(`the playground page in Chromium${SKIP}`, () => {
  let app: FastifyInstance;
  let url: string;
  let browser: Browser;
  let page: Page;
  let queue: FakeQueue;
  // The fake upstream refuses the links while this is true: the submissions end failed, to be retried.
  let refuse = false;
  const requested: Request[] = [];
  const problems: string[] = [];

  /** A page of the given width, the token typed in, its requests and problems recorded. */
  async function openPage(width: number, height: number): Promise<Page> {
    const p = await browser.newPage({ viewport: { width, height } });
    // Generous: the machines that run the suite are often busy.
    p.setDefaultTimeout(90_000);
    p.on('request', (r) => requested.push(r));
    p.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    p.on('pageerror', (e) => problems.push(e.message));
    await p.goto(`${url}/`);
    await p.fill('#token', TOKEN);
    return p;
  }

  beforeAll(async () => {
    queue = fakeQueue(async () => {
      if (refuse) throw new Error('refused');
    });
    app = await createServeApp({ token: TOKEN, queue, now: () => new Date('2026-11-24T10:00:00+05:30') });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM ?? '', args: [...CHROMIUM_ARGS] });
    page = await openPage(1280, 1000);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('is served with a strict Content-Security-Policy (its own script only, requests to itself only)', async () => {
    const r = await app.inject({ method: 'GET', url: '/' });
    expect(r.headers['content-security-policy']).toBe(PLAYGROUND_CSP);
    expect(PLAYGROUND_CSP).toMatch(/default-src 'none'/);
    expect(PLAYGROUND_CSP).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(PLAYGROUND_CSP).toContain("connect-src 'self'");
    expect(r.body).not.toMatch(/(src|href)="https?:/);
  });

  it('shows each issue of a clinical input under the line of its field', async () => {
    const broken = { ...input, visit: { ...input.visit, at: 'yesterday' }, patient: { ...input.patient, abhaAddress: undefined } };
    await page.fill('#input', JSON.stringify(broken));
    await page.click('#run');
    await page.waitForSelector('.note');
    // Each note's field path and the line just above it (the page's DOM, read as the page sees it).
    const notes = (await page.evaluate(
      "[...document.querySelectorAll('.note')].map((e) => ({ path: e.dataset.path, text: e.textContent, above: e.previousElementSibling ? e.previousElementSibling.textContent : '' }))",
    )) as { path: string; text: string; above: string }[];
    const at = notes.find((n) => n.path === '/visit/at');
    expect(at?.above).toContain('"at": "yesterday"');
    expect(notes.some((n) => n.path === '/patient/abhaAddress')).toBe(true);
    expect(await page.textContent('#status')).toMatch(/clinical-input: \d+ error/);
    expect(await page.textContent('#built')).toBe('');
    await page.screenshot({ path: join(tmpdir(), 'abha-link-playground-issues.png') });
  });

  it('shows the built request, the printed prescription and the FHIR bundle of a valid input', async () => {
    await page.fill('#input', JSON.stringify(input));
    await page.click('#run');
    // Polled through the DevTools protocol: the page's policy forbids the eval of page.waitForFunction(string).
    await expect.poll(async () => (await page.textContent('#fhir')) ?? '', { timeout: 90_000 }).toContain('"resourceType"');
    expect(JSON.parse((await page.textContent('#built')) ?? '')).toMatchObject({ abhaAddress: input.patient.abhaAddress, careContexts: [expect.any(Object)] });
    expect(JSON.parse((await page.textContent('#fhir')) ?? '')).toMatchObject({ resourceType: 'Bundle', type: 'document' });
    // The frame loads its document after the page set it: wait for the doctor's name to show in it.
    const doctor = (input as unknown as { doctor: { name: string } }).doctor.name;
    await page.frameLocator('#preview').getByText(doctor, { exact: false }).first().waitFor();
    expect(await page.textContent('#status')).toMatch(/valid/);
    const shot = join(tmpdir(), 'abha-link-playground.png');
    await page.screenshot({ path: shot, fullPage: true });
  });

  it('loads a file chosen with the upload button', async () => {
    await page.setInputFiles('#file', { name: 'visit.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(input)) });
    await expect.poll(async () => page.inputValue('#input'), { timeout: 90_000 }).toContain('"patient"');
    await expect.poll(async () => (await page.textContent('#built')) ?? '', { timeout: 90_000 }).not.toBe('');
  });

  it('says so when the token is wrong', async () => {
    await page.fill('#token', 'not-the-token');
    await page.click('#run');
    await expect.poll(async () => (await page.textContent('#status')) ?? '', { timeout: 90_000 }).toContain('token');
    await page.fill('#token', TOKEN);
  });

  it('lists the issues first, counted, each a link that scrolls to and marks its field in the echo', async () => {
    const meds = (input as unknown as { medications: Record<string, unknown>[] }).medications;
    const deep = { ...input, medications: meds.map((m, i) => (i === meds.length - 1 ? { ...m, frequency: 42 } : m)) };
    await page.fill('#input', JSON.stringify(deep));
    await page.click('#run');
    await page.locator('#issues a').first().waitFor();
    expect(await page.textContent('#count')).toMatch(/^\d+ errors?, \d+ warnings?, \d+ notes?$/);
    // The list comes before the echo, and each severity has a word and a mark, not only a colour.
    expect(await page.evaluate("document.getElementById('issues').compareDocumentPosition(document.getElementById('inline')) & Node.DOCUMENT_POSITION_FOLLOWING")).toBeTruthy();
    const first = page.locator('#issues a').first();
    expect(await first.textContent()).toMatch(/^\u2716 Error \/medications\/4\/frequency /);
    const line = Number(await first.getAttribute('data-line'));
    // Scrolled away (as a person reading the echo would), the field's line is out of the echo's view.
    await page.evaluate("document.getElementById('inline').scrollTop = 0; window.scrollTo(0, 0)");
    const visible = `(() => { const l = document.getElementById('L${line}').getBoundingClientRect(); const b = document.getElementById('inline').getBoundingClientRect();
      return l.top >= b.top && l.bottom <= b.bottom && l.top >= 0 && l.bottom <= innerHeight; })()`;
    expect(await page.evaluate(visible)).toBe(false);
    await first.click();
    expect(await page.evaluate(visible)).toBe(true);
    expect(await page.getAttribute(`#L${line}`, 'class')).toContain('current');
    expect(await page.textContent(`#L${line}`)).toContain('"frequency": 42');
    expect(await page.getAttribute('.note.current', 'data-path')).toBe('/medications/4/frequency');
    expect(await first.getAttribute('aria-current')).toBe('true');
    expect(page.url()).toBe(`${url}/`);
  });

  it.each(['A4', 'A5'])('scales the %s preview to its frame: the whole sheet, the registration number included, inside the frame', async (size) => {
    await page.selectOption('#size', size);
    await page.fill('#input', JSON.stringify(input));
    // The run is started by the button's own click event and awaited through its render request: under load a
    // pointer click can land while the page is still laying out the long input, and be lost (seen in CI, where
    // the hidden frame then kept the document of an earlier run).
    await Promise.all([page.waitForResponse((r) => r.url().includes('/v1/render?') && r.status() === 200), page.locator('#run').dispatchEvent('click')]);
    // The document of this size (the one before it may still show for a moment), then its registration number.
    await page.frameLocator('#preview').locator(`html.page-${size.toLowerCase()}`).waitFor({ state: 'attached' });
    await page.frameLocator('#preview').getByText('KMC-45678', { exact: false }).first().waitFor();
    // The frame, scaled, lies within its box and fills its width.
    const box = await page.locator('#frame-box').boundingBox();
    const frame = await page.locator('#preview').boundingBox();
    if (box === null || frame === null) throw new Error('the preview is not laid out');
    expect(frame.x).toBeGreaterThanOrEqual(box.x - 0.5);
    expect(frame.x + frame.width).toBeLessThanOrEqual(box.x + box.width + 0.5);
    expect(frame.width).toBeGreaterThan(box.width * 0.9);
    // Inside the frame, the whole sheet and the registration number fit its width: nothing to scroll to sideways.
    const inner = page.frames().find((f) => f.parentFrame() === page.mainFrame());
    const measured = await inner?.evaluate(`(() => {
      const reg = [...document.querySelectorAll('*')].filter((e) => e.children.length === 0 && e.textContent.includes('KMC-45678')).map((e) => e.getBoundingClientRect().right);
      return { right: Math.max(...reg), sheet: document.querySelector('.sheet').getBoundingClientRect().right, width: innerWidth, scroll: document.scrollingElement.scrollWidth };
    })()`);
    const { right, sheet, width, scroll } = measured as { right: number; sheet: number; width: number; scroll: number };
    expect(right).toBeLessThanOrEqual(sheet);
    expect(sheet).toBeLessThanOrEqual(width);
    expect(scroll).toBeLessThanOrEqual(width);
    await page.selectOption('#size', 'A4');
  });

  it('is usable at 390 px: one column, no horizontal scroll, tap targets of 44 px, the preview whole', async () => {
    const phone = await openPage(390, 844);
    const broken = { ...input, visit: { ...input.visit, at: 'yesterday' } };
    await phone.fill('#input', JSON.stringify(broken));
    await phone.click('#run');
    await phone.locator('#issues a').first().waitFor();
    const fits = 'document.scrollingElement.scrollWidth <= innerWidth';
    const small = `[...document.querySelectorAll('a, button, input, select, textarea')].filter((e) => e.offsetParent !== null)
      .map((e) => ({ id: e.id || e.textContent, r: e.getBoundingClientRect() })).filter((x) => x.r.height < 44 || x.r.width < 44).map((x) => x.id)`;
    expect(await phone.evaluate(fits)).toBe(true);
    expect(await phone.evaluate(small)).toEqual([]);
    // One column: the sections stand one above the other.
    expect(await phone.evaluate("new Set([...document.querySelectorAll('#check > section')].map((s) => s.getBoundingClientRect().left)).size")).toBe(1);
    await phone.fill('#input', JSON.stringify(input));
    await phone.click('#run');
    await phone.frameLocator('#preview').getByText('KMC-45678', { exact: false }).first().waitFor();
    const box = await phone.locator('#frame-box').boundingBox();
    const frame = await phone.locator('#preview').boundingBox();
    expect(frame?.width).toBeLessThanOrEqual((box?.width ?? 0) + 0.5);
    expect(await phone.evaluate(fits)).toBe(true);
    await phone.click('#tab-queue');
    await phone.locator('#queue-count').getByText('shown').waitFor();
    expect(await phone.evaluate(fits)).toBe(true);
    expect(await phone.evaluate(small)).toEqual([]);
    await phone.close();
  });

  it('lists the submissions made through the API, opens one and retries it through the API', async () => {
    const post = (visitId: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/submissions',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        payload: { ...input, visit: { ...input.visit, id: visitId } },
      });
    // A page of its own: the shared page's earlier runs are no part of this one.
    const q = await openPage(1280, 900);
    const done = await post('OPD-2026-0101');
    refuse = true;
    const failed = await post('OPD-2026-0102');
    refuse = false;
    const failedId = (failed.json() as { id: string }).id;
    expect(queue.items.get(failedId)?.submission.status).toBe('failed');
    await q.click('#tab-queue');
    await expect.poll(async () => q.locator('#subs .sub').count(), { timeout: 90_000 }).toBe(2);
    const card = q.locator(`#subs .sub[data-id="${failedId}"]`);
    expect(await card.locator('.badge').textContent()).toBe('failed');
    // The visit, HIP, care contexts and hiTypes the queue keeps in clear; one page only: no "load more".
    expect(await card.locator('dd').allTextContents()).toEqual([
      'OPD-2026-0102',
      'IN2910000123',
      'OPD-2026-0102-Prescription',
      'Prescription',
      expect.stringMatching(/^2026-11-24 \d\d:\d\d:\d\d$/),
      '1',
      'error',
    ]);
    expect(await q.isVisible('#more')).toBe(false);
    expect(await q.locator(`#subs .sub[data-id="${(done.json() as { id: string }).id}"] button[data-action="retry"]`).count()).toBe(0);

    await card.getByRole('button', { name: 'Open' }).click();
    await q.locator('#detail code').getByText(failedId).waitFor();
    const sent = requested.length;
    await card.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(async () => q.locator(`#subs .sub[data-id="${failedId}"] .badge`).textContent(), { timeout: 90_000 }).toBe('acknowledged');
    const retry = requested.slice(sent).find((r) => r.url().endsWith('/retry'));
    expect(retry?.method()).toBe('POST');
    expect(retry?.url()).toBe(`${url}/v1/submissions/${failedId}/retry`);
    expect(retry?.headers().authorization).toBe(`Bearer ${TOKEN}`);
    expect(queue.items.get(failedId)?.submission).toMatchObject({ status: 'acknowledged', attempts: 2 });

    // The status filter goes to the API as a query parameter.
    await q.selectOption('#f-status', 'acknowledged');
    await q.click('#list');
    await expect.poll(async () => requested.some((r) => r.url().includes('/v1/submissions?status=acknowledged&limit=50')), { timeout: 90_000 }).toBe(true);
    await q.close();
  });

  it("shows the paged list's fields and loads more with its cursor, the filters sent", async () => {
    const p = await openPage(1280, 900);
    const view = (n: number) => ({
      id: `sub-${n}`,
      status: n === 1 ? 'unknown' : 'acknowledged',
      attempts: 1,
      ...(n === 1 ? { error: { code: 'timeout', message: 'the service did not answer in time' } } : {}),
      createdAt: '2026-11-24T04:30:00.000Z',
      updatedAt: '2026-11-24T04:31:00.000Z',
      visitId: `OPD-${n}`,
      hipId: 'IN2910000123',
      careContextReferences: [`CC-${n}`, `CC-${n}b`],
      hiTypes: ['Prescription'],
    });
    const lists: URL[] = [];
    await p.route('**/v1/submissions?*', async (route) => {
      const asked = new URL(route.request().url());
      lists.push(asked);
      const more = asked.searchParams.get('cursor') === null;
      await route.fulfill({ contentType: 'application/json', body: JSON.stringify(more ? { submissions: [view(1), view(2)], nextCursor: 'c-2' } : { submissions: [view(3)] }) });
    });
    await p.click('#tab-queue');
    await p.locator('#more').waitFor();
    await p.fill('#f-visitId', 'OPD-1');
    await p.fill('#f-hipId', 'IN2910000123');
    await p.fill('#f-from', '2026-11-24T00:00');
    await p.click('#list');
    await expect.poll(() => lists.length, { timeout: 90_000 }).toBe(2);
    await p.locator('#more').waitFor();
    expect(await p.locator('#subs .sub[data-id="sub-1"] dd').allTextContents()).toEqual(['OPD-1', 'IN2910000123', 'CC-1, CC-1b', 'Prescription', expect.any(String), '1', 'timeout']);
    expect(lists[1]?.searchParams.get('visitId')).toBe('OPD-1');
    expect(lists[1]?.searchParams.get('hipId')).toBe('IN2910000123');
    expect(new Date(lists[1]?.searchParams.get('from') ?? '').getTime()).toBe(new Date(2026, 10, 24).getTime());
    await p.click('#more');
    await expect.poll(async () => p.locator('#subs .sub').count(), { timeout: 90_000 }).toBe(3);
    expect(lists[2]?.searchParams.get('cursor')).toBe('c-2');
    expect(lists[2]?.searchParams.get('visitId')).toBe('OPD-1');
    expect(await p.isVisible('#more')).toBe(false);
    expect(await p.textContent('#queue-count')).toBe('3 submissions shown');
    await p.close();
  });

  it('gives up a call the server never answers, saying so, and takes the next one', async () => {
    const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    p.setDefaultTimeout(90_000);
    // The page's clock is the test's: the wait for an answer passes without waiting.
    await p.clock.install();
    await p.goto(`${url}/`);
    await p.fill('#token', TOKEN);
    let held = 0;
    await p.route('**/v1/submissions?*', () => {
      held++; // never answered, as by a server or proxy that hangs
    });
    await p.click('#tab-queue');
    await expect.poll(() => held, { timeout: 90_000 }).toBe(1);
    await p.clock.runFor(31_000);
    await expect.poll(async () => (await p.textContent('#status')) ?? '', { timeout: 90_000 }).toBe('Failed: the server did not answer /v1/submissions within 30 s; try again');
    // The page is not stuck: the next call goes out and is answered.
    await p.unrouteAll({ behavior: 'ignoreErrors' });
    await p.click('#list');
    await expect.poll(async () => (await p.textContent('#status')) ?? '', { timeout: 90_000 }).toBe('Submissions listed');
    await p.close();
  });

  it('made requests to its own server only, with the token in a header only, and broke no policy', () => {
    expect(requested.length).toBeGreaterThan(3);
    for (const r of requested) {
      expect(r.url().startsWith(url) || r.url().startsWith('about:')).toBe(true);
      expect(r.url()).not.toContain(TOKEN);
      expect(r.url()).not.toContain(input.patient.abhaAddress as string);
    }
    // The 401 and 422 answered on purpose show as a failed resource in the console: anything else is a problem.
    expect(
      problems.filter((p) => !/status of (401|422)/.test(p)),
      problems.join('\n'),
    ).toEqual([]);
  });
});
