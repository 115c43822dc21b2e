/**
 * Shared helpers of the FHIR tests: the bundled examples, synthetic document
 * bytes, and a walk over every reference of a bundle.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { ClinicalInput, LinkCareContextRequest } from '../src/index.js';
import { validateFhirBundle, type Bundle, type FhirDocument, type ToFhirResult } from '../src/fhir/index.js';

export const EXAMPLES = ['opd-prescription', 'lab-order', 'multi-care-context'] as const;
export const DR_URL = 'https://records.greenvalley.example/reports/GVH-LAB-2026-88120.pdf';
/** A tiny synthetic PDF, standing in for the lab report of the multi-care-context example. */
export const PDF_BYTES = new TextEncoder().encode('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
export const ATTACHMENTS = { [DR_URL]: { contentType: 'application/pdf', data: PDF_BYTES, title: 'CBC report' } };

export function example<K extends 'input' | 'request'>(name: string, kind: K): K extends 'input' ? ClinicalInput : LinkCareContextRequest {
  return JSON.parse(readFileSync(new URL(`../examples/${name}.${kind}.json`, import.meta.url), 'utf8')) as K extends 'input' ? ClinicalInput : LinkCareContextRequest;
}

export function fixture(path: string): unknown {
  return JSON.parse(readFileSync(new URL(`./fixtures/fhir/${path}`, import.meta.url), 'utf8')) as unknown;
}

/**
 * The bundles of a successful result; fails the test, showing the issues,
 * otherwise. Every bundle a test obtains this way is also run through the
 * validator, which must find no error in it.
 */
export function bundlesOf(r: ToFhirResult): readonly FhirDocument[] {
  if (!r.success) expect.fail(`expected success, got ${JSON.stringify(r.issues, null, 2)}`);
  for (const d of r.bundles)
    expect(
      validateFhirBundle(d.bundle).issues.filter((i) => i.severity === 'error'),
      d.referenceNumber,
    ).toEqual([]);
  return r.bundles;
}

/** Every object with a string `reference` in a value, with its JSON Pointer. */
export function referencesIn(value: unknown, path = ''): Array<{ path: string; reference: string; type?: string }> {
  const out: Array<{ path: string; reference: string; type?: string }> = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...referencesIn(v, `${path}/${i}`)));
  else if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.reference === 'string') out.push({ path, reference: o.reference, ...(typeof o.type === 'string' ? { type: o.type } : {}) });
    for (const [k, v] of Object.entries(o)) out.push(...referencesIn(v, `${path}/${k}`));
  }
  return out;
}

/** Checks, independently of the validator, that every reference resolves to an entry of the right type. */
export function expectReferencesResolve(bundle: Bundle): void {
  const byUrl = new Map<string, string>();
  for (const e of bundle.entry ?? []) {
    expect(e.fullUrl).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(byUrl.has(e.fullUrl ?? '')).toBe(false);
    byUrl.set(e.fullUrl ?? '', e.resource?.resourceType ?? '');
    expect(e.resource?.id).toBe(e.fullUrl?.slice('urn:uuid:'.length));
  }
  const refs = referencesIn(bundle.entry);
  expect(refs.length).toBeGreaterThan(0);
  for (const r of refs) {
    expect(byUrl.has(r.reference), `${r.path} resolves`).toBe(true);
    if (r.type !== undefined) expect(byUrl.get(r.reference), `${r.path} type`).toBe(r.type);
  }
}

/** Asserts our own validator accepts the bundle with no issue at all. */
export function expectValid(bundle: Bundle): void {
  const v = validateFhirBundle(bundle);
  expect(v.issues).toEqual([]);
  expect(v.success).toBe(true);
}

export function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** The resources of a bundle of one type. */
export function resources<T = Record<string, unknown>>(bundle: Bundle, type: string): T[] {
  return (bundle.entry ?? []).map((e) => e.resource).filter((r) => r?.resourceType === type) as T[];
}
