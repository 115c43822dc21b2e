/**
 * The printed page in the bundle: `toFhirBundles(input, { printedDocuments })`
 * puts each care context's PDF where its record profile has a place for a
 * document, and `abha-link fhir --embed-pdf` prints the pages with Chromium
 * (run when findChromium() finds one, skipped saying why otherwise).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClinicalInput } from '../src/index.js';
import { toFhirBundles, validateFhirBundle, type Binary, type Bundle, type Composition, type DocumentReference, type FhirDocument } from '../src/fhir/index.js';
import { findChromium } from '../src/render/index.js';
import { ATTACHMENTS, DR_URL, PDF_BYTES, bundlesOf, example, expectReferencesResolve } from './fhir-helpers.js';
import { runInProcess } from './support/run-cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'abha-link-embed-pdf-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const CHROMIUM = findChromium();
const SKIP = CHROMIUM !== undefined ? '' : ' [skipped: no Chromium in the usual places (findChromium); apt-get install chromium to run it]';
const STACK = /^\s+at .+:\d+:\d+\)?$/m;
const PRINTED = new TextEncoder().encode('%PDF-1.7\n% the printed page\n%%EOF\n');
const sha1 = (b: Uint8Array): string => createHash('sha1').update(b).digest('base64');

const compositionOf = (b: Bundle): Composition => b.entry?.[0]?.resource as Composition;
const resourceAt = (b: Bundle, reference: string | undefined): unknown => b.entry?.find((e) => e.fullUrl === reference)?.resource;
/** The section holding a reference to a resource of `type`, and that resource. */
function printedIn(d: FhirDocument, type: 'Binary' | 'DocumentReference'): { section: string | undefined; resource: Binary | DocumentReference }[] {
  const out: { section: string | undefined; resource: Binary | DocumentReference }[] = [];
  for (const s of compositionOf(d.bundle).section ?? [])
    for (const e of s.entry ?? []) if (e.type === type) out.push({ section: s.code?.coding?.[0]?.code, resource: resourceAt(d.bundle, e.reference) as Binary | DocumentReference });
  return out;
}
const decoded = (data: string | undefined): Buffer => Buffer.from(data ?? '', 'base64');

describe('toFhirBundles with printedDocuments', () => {
  it('puts a prescription page in the PrescriptionRecord section as a Binary that decodes to the PDF', () => {
    const input = example('opd-prescription', 'input');
    const [d] = bundlesOf(toFhirBundles(input, { printedDocuments: { 'OPD-2026-0042-Prescription': { data: PRINTED } } }));
    const found = printedIn(d as FhirDocument, 'Binary');
    expect(found).toHaveLength(1);
    expect(found[0]?.section).toBe('440545006');
    const b = found[0]?.resource as Binary;
    expect(b.contentType).toBe('application/pdf');
    expect(decoded(b.data).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(Buffer.compare(decoded(b.data), Buffer.from(PRINTED))).toBe(0);
    expect(compositionOf((d as FhirDocument).bundle).section?.[0]?.text?.div).toContain('Printed document: <span dir="auto">Prescription record (printed)</span> (application/pdf)');
    expectReferencesResolve((d as FhirDocument).bundle);
  });

  it('puts a visit page of an OPConsultation in the document section (371530004) with size, hash, title and creation, before the text-only sections', () => {
    const input = example('lab-order', 'input');
    const ref = bundlesOf(toFhirBundles(input))[0]?.referenceNumber ?? '';
    const r = toFhirBundles(input, { printedDocuments: { [ref]: { data: PRINTED, sha1: sha1(PRINTED), creation: '2026-11-20T11:00:00+05:30', title: 'Visit summary' } } });
    const [d] = bundlesOf(r);
    const found = printedIn(d as FhirDocument, 'DocumentReference');
    expect(found.map((f) => f.section)).toEqual(['371530004']);
    const attachment = (found[0]?.resource as DocumentReference).content[0]?.attachment;
    expect(attachment).toMatchObject({ contentType: 'application/pdf', size: PRINTED.byteLength, hash: sha1(PRINTED), title: 'Visit summary', creation: '2026-11-20T11:00:00.000+05:30' });
    expect(sha1(decoded(attachment?.data))).toBe(attachment?.hash);
    expect(decoded(attachment?.data).byteLength).toBe(attachment?.size);
    const titles = compositionOf((d as FhirDocument).bundle).section?.map((s) => s.title);
    expect(titles?.indexOf('Documents')).toBeLessThan(titles?.indexOf('Advice') ?? -1);
  });

  it('adds the page to the section of a HealthDocumentRecord beside its document, and warns for a DiagnosticReport, whose one document place holds the report', () => {
    const input = example('multi-care-context', 'input');
    const refs = bundlesOf(toFhirBundles(input, { attachments: ATTACHMENTS })).map((d) => d.referenceNumber);
    const printedDocuments = Object.fromEntries(refs.map((ref) => [ref, { data: Buffer.from(PRINTED).toString('base64') }]));
    const report = input.careContexts?.find((c) => c.hiType === 'DiagnosticReport');
    const onlyReport: ClinicalInput = { ...input, careContexts: [report as NonNullable<typeof report>] };
    const [asDocument] = bundlesOf(toFhirBundles(onlyReport, { attachments: ATTACHMENTS, printedDocuments, hiType: 'HealthDocumentRecord' }));
    expect(printedIn(asDocument as FhirDocument, 'DocumentReference').map((f) => f.section)).toEqual(['419891008', '419891008']);
    const r = toFhirBundles(input, { attachments: ATTACHMENTS, printedDocuments });
    const bundles = bundlesOf(r);
    const reportBundle = bundles.find((d) => d.hiType === 'DiagnosticReport') as FhirDocument;
    expect(printedIn(reportBundle, 'DocumentReference')).toHaveLength(1);
    expect(r.success && r.warnings.filter((w) => w.code === 'printed-document-not-embedded').map((w) => w.path)).toEqual(['/careContexts/2']);
  });

  it.each([
    ['discharge-summary', '373942005'],
    ['immunization', '41000179103'],
    ['wellness', undefined],
  ])("puts the page of the %s example in its record profile's document place, and the bundle still passes the NRCeS validator", (name, sectionCode) => {
    const input = example(name, 'input');
    const ref = bundlesOf(toFhirBundles(input))[0]?.referenceNumber ?? '';
    const [d] = bundlesOf(toFhirBundles(input, { printedDocuments: { [ref]: { data: PRINTED, sha1: sha1(PRINTED) } } }));
    const found = printedIn(d as FhirDocument, 'DocumentReference');
    expect(found.map((f) => f.section)).toEqual([sectionCode]);
    expect(decoded((found[0]?.resource as DocumentReference).content[0]?.attachment.data)).toEqual(Buffer.from(PRINTED));
    if (sectionCode === undefined) expect(compositionOf((d as FhirDocument).bundle).section?.find((s) => s.entry?.some((e) => e.type === 'DocumentReference'))?.title).toBe('Document Reference');
    expect(validateFhirBundle((d as FhirDocument).bundle).issues.filter((i) => i.severity === 'error')).toEqual([]);
  });

  it('warns that an InvoiceRecord has no place for the printed page', () => {
    const input = example('invoice', 'input');
    const ref = bundlesOf(toFhirBundles(input))[0]?.referenceNumber ?? '';
    const r = toFhirBundles(input, { printedDocuments: { [ref]: { data: PRINTED } } });
    expect(r.success ? r.warnings.map((w) => w.code) : r.issues).toContain('printed-document-not-embedded');
  });

  it('makes a HealthDocumentRecord of the printed page alone when the care context has no document of its own', () => {
    const input = example('opd-prescription', 'input');
    const r = toFhirBundles(input, { hiType: 'HealthDocumentRecord', printedDocuments: { 'OPD-2026-0042-Prescription': { data: PRINTED } } });
    const [d] = bundlesOf(r);
    const found = printedIn(d as FhirDocument, 'DocumentReference');
    expect(found.map((f) => f.section)).toEqual(['419891008']);
    expect(Buffer.compare(decoded((found[0]?.resource as DocumentReference).content[0]?.attachment.data), Buffer.from(PRINTED))).toBe(0);
    expect(toFhirBundles(input, { hiType: 'HealthDocumentRecord' }).success).toBe(false);
  });

  it('keeps an embedded prescription document in the one Binary place of a PrescriptionRecord and warns that the page is not embedded', () => {
    const input = example('multi-care-context', 'input');
    const cc = input.careContexts?.find((c) => c.hiType === 'Prescription');
    const withDocument: ClinicalInput = { ...input, careContexts: [{ ...(cc as NonNullable<typeof cc>), documentUrl: DR_URL }] };
    const ref = bundlesOf(toFhirBundles(withDocument, { attachments: ATTACHMENTS }))[0]?.referenceNumber ?? '';
    const r = toFhirBundles(withDocument, { attachments: ATTACHMENTS, printedDocuments: { [ref]: { data: PRINTED } } });
    const [d] = bundlesOf(r);
    const binaries = printedIn(d as FhirDocument, 'Binary');
    expect(binaries.map((b) => Buffer.compare(decoded((b.resource as Binary).data), Buffer.from(PDF_BYTES)))).toEqual([0]);
    expect(r.success && r.warnings.map((w) => w.code)).toContain('printed-document-not-embedded');
  });

  it('gives the same ids for the same input and page, and ids that do not depend on the page', () => {
    const input = example('lab-order', 'input');
    const ref = bundlesOf(toFhirBundles(input))[0]?.referenceNumber ?? '';
    const once = (data: Uint8Array): string => JSON.stringify(bundlesOf(toFhirBundles(input, { printedDocuments: { [ref]: { data } } }))[0]?.bundle);
    expect(once(PRINTED)).toBe(once(PRINTED));
    const ids = (s: string): string[] => [...s.matchAll(/urn:uuid:[0-9a-f-]{36}/g)].map((m) => m[0]);
    expect(ids(once(PRINTED))).toEqual(ids(once(PDF_BYTES)));
  });

  it('refuses page bytes that are not bytes or base64, and warns about a page keyed by no care context', () => {
    const input = example('opd-prescription', 'input');
    const bad = toFhirBundles(input, { printedDocuments: { 'OPD-2026-0042-Prescription': { data: 'not base64!' } } });
    expect(bad.success).toBe(false);
    expect(!bad.success && bad.issues.map((i) => [i.path, i.code])).toContainEqual(['', 'invalid-option']);
    expect(!bad.success && bad.issues.find((i) => i.code === 'invalid-option')?.message).not.toContain('OPD-2026-0042');
    const unused = toFhirBundles(input, { printedDocuments: { 'NO-SUCH-REF': { data: PRINTED } } });
    expect(unused.success && unused.warnings.map((w) => w.code)).toContain('printed-document-not-embedded');
  });
});

describe('abha-link fhir --embed-pdf', () => {
  it('exits 1 with what to install, and writes nothing, when there is no Chromium at the given path', async () => {
    const out = join(tmp, 'none');
    const r = await runInProcess(['fhir', '--embed-pdf', '--chromium', '/nonexistent/chromium', '--out', out, 'examples/opd-prescription.input.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('abha-link: --embed-pdf: no Chromium at /nonexistent/chromium: install a Chromium (Debian/Ubuntu: apt-get install chromium)');
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stdout).toBe('');
    expect(() => readdirSync(out)).toThrow();
  });

  it('takes the Chromium from ABHA_LINK_CHROMIUM, and refuses --chromium without --embed-pdf and --embed-pdf with --from-fhir (exit 2)', async () => {
    const env = await runInProcess(['fhir', '--embed-pdf', 'examples/opd-prescription.input.json'], { env: { ABHA_LINK_CHROMIUM: '/nonexistent/from-env' } });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain('no Chromium at /nonexistent/from-env');
    const alone = await runInProcess(['fhir', '--chromium', '/usr/bin/chromium', 'examples/opd-prescription.input.json']);
    expect([alone.code, alone.stderr]).toEqual([2, expect.stringContaining('--chromium applies to --embed-pdf')]);
    const from = await runInProcess(['fhir', '--embed-pdf', '--from-fhir', 'examples/opd-prescription.input.json']);
    expect(from.code).toBe(2);
  });

  it.skipIf(CHROMIUM === undefined)(
    `prints each care context and carries the PDF in its bundle, referenced from the record's section${SKIP}`,
    async () => {
      const out = join(tmp, 'printed');
      const r = await runInProcess(['fhir', '--embed-pdf', '--out', out, '--timestamp', '2026-11-20T12:00:00+05:30', 'examples/lab-order.input.json']);
      expect(r.code, r.stderr).toBe(0);
      const [name] = readdirSync(out);
      const bundle = JSON.parse(readFileSync(join(out, name ?? ''), 'utf8')) as Bundle;
      const d = { bundle } as FhirDocument;
      const [page] = printedIn(d, 'DocumentReference');
      expect(page?.section).toBe('371530004');
      const a = (page?.resource as DocumentReference).content[0]?.attachment;
      const bytes = decoded(a?.data);
      expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(a?.size).toBe(bytes.byteLength);
      expect(a?.hash).toBe(sha1(bytes));
      expect(a?.title).toBe('OP consultation record (printed)');
    },
    60_000,
  );
});
