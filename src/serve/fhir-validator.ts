/**
 * The one FHIR bundle validator of the service: POST /v1/fhir checks every
 * bundle with it, POST /v1/fhir/validate answers with it. It is the library's
 * profile-driven validator (`validateFhirBundle` of abha-link/fhir), which
 * stops at `maxIssues`, so that no more issues than that are ever made, cross
 * a thread or go on the wire.
 */
import type { Issue } from '../errors.js';
import { validateFhirBundle } from '../fhir/nrces/validate.js';

/** The result of checking one bundle: at most `maxIssues` of its issues. */
export interface BundleCheck {
  readonly success: boolean;
  readonly issues: readonly Issue[];
  /** Validation stopped before the end (at `maxIssues` issues, or at a size limit): there may be more. */
  readonly truncated: boolean;
}

/** Checks one FHIR document bundle against base R4 and the NRCeS profiles, stopping at `maxIssues` issues. */
export function checkFhirBundle(bundle: unknown, maxIssues: number): BundleCheck {
  const r = validateFhirBundle(bundle, { maxIssues });
  return { success: r.success, issues: r.issues, truncated: r.truncated === true };
}
