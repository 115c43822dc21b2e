/**
 * The playground page (GET /) in a real Chromium: a person types the token,
 * pastes a clinical input, and sees the issues at their fields, the built
 * request, the printed preview and the FHIR bundle; the page makes no request
 * but to its own server and breaks none of its Content-Security-Policy.
 * Needs a Chromium where findChromium() looks (Debian's /usr/bin/chromium);
 * skipped, saying so, without one.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, findChromium } from '../src/render/pdf.js';
import { createServeApp } from '../src/serve/app.js';
import { PLAYGROUND_CSP } from '../src/serve/playground.js';

const CHROMIUM = findChromium();
const SKIP = CHROMIUM === undefined ? ' [skipped: no Chromium in the usual places (findChromium); apt-get install chromium to run it]' : '';
const TOKEN = 'playground-token-93';
const input = JSON.parse(readFileSync(new URL('../examples/opd-prescription.input.json', import.meta.url), 'utf8')) as { visit: Record<string, unknown>; patient: Record<string, unknown> };

describe.skipIf(CHROMIUM === undefined)(`the playground page in Chromium${SKIP}`, () => {
  let app: FastifyInstance;
  let url: string;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    app = await createServeApp({ token: TOKEN, now: () => new Date('2026-11-24T10:00:00+05:30') });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM ?? '', args: [...CHROMIUM_ARGS] });
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on('request', (r) => requested.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${url}/`);
    await page.fill('#token', TOKEN);
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
    await expect.poll(async () => (await page.textContent('#fhir')) ?? '', { timeout: 20_000 }).toContain('"resourceType"');
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
    await expect.poll(async () => page.inputValue('#input'), { timeout: 20_000 }).toContain('"patient"');
    await expect.poll(async () => (await page.textContent('#built')) ?? '', { timeout: 20_000 }).not.toBe('');
  });

  it('says so when the token is wrong', async () => {
    await page.fill('#token', 'not-the-token');
    await page.click('#run');
    await expect.poll(async () => (await page.textContent('#status')) ?? '', { timeout: 20_000 }).toContain('token');
    await page.fill('#token', TOKEN);
  });

  it('made requests to its own server only, and broke no policy', () => {
    expect(requested.length).toBeGreaterThan(3);
    for (const r of requested) expect(r.startsWith(url) || r.startsWith('about:')).toBe(true);
    // The 401 and 422 answered on purpose show as a failed resource in the console: anything else is a problem.
    expect(
      problems.filter((p) => !/status of (401|422)/.test(p)),
      problems.join('\n'),
    ).toEqual([]);
  });
});
