/**
 * `abha-link fhir` when a bundle abha-link built fails its own validation:
 * that is abha-link's fault, not the caller's data, so the exit code is 3
 * (internal error), nothing is written, and the message asks for a report.
 * The validator is replaced in this file only, to fail on purpose.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('../src/fhir/nrces/validate.js', () => ({
  validateFhirBundle: () => ({ success: false, issues: [{ path: 'Bundle.entry[0].resource.type', code: 'type', message: 'type must be a CodeableConcept', severity: 'error' }] }),
}));

const { runFhir } = await import('../src/cli/commands/fhir.js');

describe('abha-link fhir, when its own output fails FHIR validation', () => {
  afterEach(() => vi.restoreAllMocks());

  it('exits 3 (internal error), writes nothing and asks for a bug report', async () => {
    let stderr = '';
    let stdout = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr += String(chunk);
      return true;
    });
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    });
    const code = await runFhir({
      file: 'examples/opd-prescription.input.json',
      fromFhir: undefined,
      hiType: undefined,
      out: undefined,
      attach: [],
      force: false,
      timestamp: new Date('2026-11-20T12:00:00+05:30'),
      now: new Date('2026-11-21T00:00:00+05:30'),
    });
    vi.restoreAllMocks();
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toContain('bundle OPD-2026-0042-Prescription Bundle.entry[0].resource.type type must be a CodeableConcept (type)');
    expect(stderr).toMatch(/1 bundle failed FHIR validation; nothing was written \(this is a bug in abha-link: please report it\)\n$/);
  });
});
