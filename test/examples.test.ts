/**
 * examples/: the committed requests, bundles and hospital day are what
 * `npm run examples` (scripts/examples.mjs) produces from the inputs, and
 * the hospital day goes through the pipeline commands as a user runs them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LinkCareContextRequest } from '../src/index.js';
import { startMockServer, type MockServer } from '../src/mock/index.js';
import { FHIR_HI_TYPES, RECORD_PROFILES } from '../src/fhir/constants.js';
import { type Bundle } from '../src/fhir/index.js';
import { runInProcess } from './support/run-cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const examples = join(root, 'examples');
const script = (await import(new URL('../scripts/examples.mjs', import.meta.url).href)) as {
  generateExamples(): Promise<{ files: Map<string, string>; problems: string[] }>;
  committedDerivedFiles(): string[];
  inputNames(): string[];
};
const generated = await script.generateExamples();
const day = readFileSync(join(examples, 'hospital-day.ndjson'), 'utf8');
const dayRequests = day
  .trimEnd()
  .split('\n')
  .map((l) => JSON.parse(l) as LinkCareContextRequest);

describe('the committed examples', () => {
  it('are exactly what npm run examples produces from the inputs, with nothing stale and no problem', () => {
    expect(generated.problems).toEqual([]);
    const committed = Object.fromEntries(script.committedDerivedFiles().map((f) => [f, readFileSync(join(examples, f), 'utf8')]));
    expect(committed).toEqual(Object.fromEntries(generated.files));
  });

  it('have a request and at least one bundle for every input', () => {
    const files = readdirSync(examples);
    for (const name of script.inputNames()) {
      expect(files, name).toContain(`${name}.request.json`);
      expect(
        files.some((f) => f.startsWith(`${name}.`) && f.endsWith('.bundle.json')),
        name,
      ).toBe(true);
    }
  });

  it('hold a bundle of every record profile abha-link builds (issue 23 item 6)', () => {
    const profiles = new Set(
      readdirSync(examples)
        .filter((f) => f.endsWith('.bundle.json'))
        .map((f) => (JSON.parse(readFileSync(join(examples, f), 'utf8')) as Bundle).entry?.[0]?.resource?.meta?.profile?.[0]?.split('/').pop()),
    );
    for (const hiType of FHIR_HI_TYPES) expect(profiles, hiType).toContain(RECORD_PROFILES[hiType].id);
  });

  it('hold the bundle abha-link fhir prints for a one-care-context input at the same timestamp', async () => {
    const committed = readFileSync(join(examples, 'opd-prescription.bundle.json'), 'utf8');
    const timestamp = (JSON.parse(committed) as Bundle).timestamp ?? '';
    const r = await runInProcess(['fhir', '--timestamp', timestamp.replace(/\.\d{3}/, ''), 'examples/opd-prescription.input.json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(committed));
  });
});

describe('the hospital day (examples/hospital-day.ndjson)', () => {
  it('is one visit per line, each of another patient on the same day at one hospital, covering every hiType of the example inputs', () => {
    expect(dayRequests.length).toBe(script.inputNames().length);
    expect(new Set(dayRequests.map((r) => r.abhaAddress)).size).toBe(dayRequests.length);
    expect(new Set(dayRequests.map((r) => r.visitDate))).toEqual(new Set(['2026-11-20']));
    expect(new Set(dayRequests.map((r) => r.hipId)).size).toBe(1);
    const inputTypes = new Set(
      script
        .inputNames()
        .map((n) => readFileSync(join(examples, `${n}.request.json`), 'utf8'))
        .flatMap((t) => (JSON.parse(t) as LinkCareContextRequest).careContexts.map((c) => c.hiType)),
    );
    expect(new Set(dayRequests.flatMap((r) => r.careContexts.map((c) => c.hiType)))).toEqual(inputTypes);
  });

  it('is accepted line by line by abha-link validate --ndjson', async () => {
    const r = await runInProcess(['validate', '--ndjson', 'examples/hospital-day.ndjson']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`examples/hospital-day.ndjson: ${dayRequests.length} documents, ${dayRequests.length} valid, 0 invalid\n`);
  });

  describe('submitted with abha-link submit --ndjson to the mock', () => {
    const API_KEY = 'sk-examples-test-key';
    let mock: MockServer;
    beforeAll(async () => {
      mock = await startMockServer({ apiKey: API_KEY });
    });
    afterAll(async () => {
      await mock.close();
    });

    it('is acknowledged on every line', async () => {
      const r = await runInProcess(['submit', '--ndjson', '--no-journal', '--format', 'json', '--base-url', mock.url, 'examples/hospital-day.ndjson'], {
        env: { ABHA_LINK_API_KEY: API_KEY, ABHA_LINK_BASE_URL: undefined },
      });
      expect(r.code, r.stderr).toBe(0);
      const outcomes = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { outcome?: string })
        .filter((o) => o.outcome !== undefined);
      expect(outcomes.map((o) => o.outcome)).toEqual(dayRequests.map(() => 'acknowledged'));
    });
  });
});
