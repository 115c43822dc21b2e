/**
 * FHIR validation in `abha-link serve` as FHIR tools call it (issue 23 item
 * 5): `POST /v1/fhir/Bundle/$validate`, and `Accept: application/fhir+json`
 * on `POST /v1/fhir/validate`, answer a FHIR OperationOutcome.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFhirBundles, type Bundle, type OperationOutcome } from '../src/fhir/index.js';
import type { ClinicalInput } from '../src/generated/types.js';
import { createServeApp } from '../src/serve/app.js';

const TOKEN = 'serve-outcome-token-0123456789abcdef';
const input = JSON.parse(readFileSync(new URL('../examples/opd-prescription.input.json', import.meta.url), 'utf8')) as ClinicalInput;
const made = toFhirBundles(input, { timestamp: new Date('2026-11-20T12:00:00+05:30') });
if (!made.success) throw new Error('the example does not convert');
const good: Bundle = made.bundles[0]!.bundle;
const bad: Bundle = structuredClone(good);
delete (bad.entry?.[0]?.resource as { title?: string }).title;

describe('serve: FHIR validation as an OperationOutcome', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await createServeApp({ token: TOKEN, now: () => new Date('2026-11-24T10:00:00+05:30'), work: { workers: 1 } });
  });
  afterAll(() => app.close());
  const post = (url: string, body: unknown, accept?: string) =>
    app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/fhir+json', ...(accept === undefined ? {} : { accept }) },
      payload: JSON.stringify(body),
    });

  it('answers $validate with an OperationOutcome (application/fhir+json), 200 for a valid and an invalid bundle', async () => {
    const ok = await post('/v1/fhir/Bundle/$validate', good);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^application\/fhir\+json/);
    expect(ok.json<OperationOutcome>().issue).toEqual([expect.objectContaining({ severity: 'information', code: 'informational' })]);
    const no = await post('/v1/fhir/Bundle/$validate', bad);
    expect(no.statusCode).toBe(200);
    const o = no.json<OperationOutcome>();
    expect(o.resourceType).toBe('OperationOutcome');
    expect(o.issue).toContainEqual(expect.objectContaining({ severity: 'error', code: 'required', expression: ['Bundle.entry[0].resource.title'] }));
  });

  it('answers /v1/fhir/validate with an OperationOutcome when asked for application/fhir+json, and with its own JSON otherwise', async () => {
    const asFhir = await post('/v1/fhir/validate', bad, 'application/fhir+json');
    expect(asFhir.json<OperationOutcome>().resourceType).toBe('OperationOutcome');
    const plain = await post('/v1/fhir/validate', bad);
    expect(plain.json<{ valid: boolean }>().valid).toBe(false);
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
  });

  it('needs the token, and refuses a body that is not JSON, like every route', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/fhir/Bundle/$validate', headers: { 'content-type': 'application/fhir+json' }, payload: '{}' });
    expect(r.statusCode).toBe(401);
    const t = await app.inject({ method: 'POST', url: '/v1/fhir/Bundle/$validate', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' }, payload: '{}' });
    expect(t.statusCode).toBe(415);
  });
});
