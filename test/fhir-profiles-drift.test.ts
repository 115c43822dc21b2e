/**
 * The NRCeS profile data the validator ships (src/generated/ndhm-profiles.ts)
 * must equal a fresh derivation from the IG's files by
 * scripts/derive-profiles.mjs, and carry what validation needs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { NDHM_PROFILES_JSON } from '../src/generated/ndhm-profiles.js';
import { R4_MODEL_JSON } from '../src/generated/r4-model.js';
import { r4 } from '../src/fhir/nrces/data.js';
import { loadEngine } from '../src/fhir/nrces/fhirpath-engine.js';
import fhirpathR4 from 'fhirpath/fhir-context/r4';

const script = new URL('../scripts/derive-profiles.mjs', import.meta.url);
const { derive, defaultIgDir, OUTPUT } = (await import(script.href)) as { derive: (dir: string) => string; defaultIgDir: () => string; OUTPUT: string };
const igDir = defaultIgDir();
const haveIg = existsSync(igDir);

interface Data {
  ig: { version: string };
  profiles: Array<{ url: string; name: string; elements: Array<{ id: string; binding?: { strength: string; valueSet: string }; constraints?: unknown[]; slicing?: unknown }> }>;
  valueSets: Record<string, Record<string, string[] | null>>;
}
const data = JSON.parse(NDHM_PROFILES_JSON) as Data;

describe('NRCeS profile data', () => {
  // The IG's files live outside the repository (../shared/reference/ndhm-6.5.0, or $NDHM_IG_DIR): without them there is nothing to compare with.
  it.skipIf(!haveIg)('is what scripts/derive-profiles.mjs derives from the IG today (run node scripts/derive-profiles.mjs)', () => {
    expect(readFileSync(OUTPUT, 'utf8')).toBe(derive(igDir));
  });

  it('holds every profile of IG 6.5.0, with the slicing, constraints and value sets the validator needs', () => {
    expect(data.ig.version).toBe('6.5.0');
    expect(data.profiles).toHaveLength(63);
    const byName = new Map(data.profiles.map((p) => [p.name, p]));
    for (const name of [
      'DocumentBundle',
      'PrescriptionRecord',
      'OPConsultRecord',
      'DiagnosticReportRecord',
      'DischargeSummaryRecord',
      'ImmunizationRecord',
      'WellnessRecord',
      'InvoiceRecord',
      'HealthDocumentRecord',
    ])
      expect(byName.has(name), name).toBe(true);
    const entry = byName.get('PrescriptionRecord')?.elements.find((e) => e.id === 'Composition.section.entry');
    expect(entry?.slicing).toEqual({ discriminator: [{ type: 'value', path: 'type' }], rules: 'closed' });
    expect(byName.get('Patient')?.elements.some((e) => (e.constraints ?? []).length > 0)).toBe(true);
    // Every required binding the profiles make has its codes here.
    for (const p of data.profiles) for (const e of p.elements) if (e.binding?.strength === 'required') expect(data.valueSets[e.binding.valueSet], `${p.name} ${e.id}`).toBeDefined();
  });
});

describe('base R4 model', () => {
  it('is what scripts/derive-r4-model.mjs derives from fhirpath today (run node scripts/derive-profiles.mjs)', async () => {
    const { deriveR4Model, R4_OUTPUT } = (await import(new URL('../scripts/derive-r4-model.mjs', import.meta.url).href)) as { deriveR4Model: () => string; R4_OUTPUT: string };
    expect(readFileSync(R4_OUTPUT, 'utf8')).toBe(deriveR4Model());
    expect(R4_MODEL_JSON.length).toBeLessThan(250_000);
  });

  it("expands to exactly fhirpath's element types, repetition, choice types and backbone elements", () => {
    const model = r4();
    expect({ ...model.path2Type }).toEqual(fhirpathR4.path2Type);
    expect({ ...model.path2Repeating }).toEqual(fhirpathR4.path2Repeating);
    expect({ ...model.choiceTypePaths }).toEqual(fhirpathR4.choiceTypePaths);
    expect({ ...model.pathsDefinedElsewhere }).toEqual(fhirpathR4.pathsDefinedElsewhere);
  });
});

describe('the optional fhirpath engine', () => {
  it('is null when the package cannot be required, and loads when it can', () => {
    expect(
      loadEngine(() => {
        throw Object.assign(new Error("Cannot find module 'fhirpath'"), { code: 'MODULE_NOT_FOUND' });
      }),
    ).toBeNull();
    const engine = loadEngine(createRequire(import.meta.url));
    expect(typeof engine?.compile).toBe('function');
  });
});
