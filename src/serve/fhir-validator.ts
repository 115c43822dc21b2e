/**
 * The one FHIR bundle validator of the service: POST /v1/fhir checks every
 * bundle with it, POST /v1/fhir/validate answers with it. Switch the
 * implementation here, in one place.
 */
import type { Issue } from '../errors.js';
import { validateFhirBundle } from '../fhir/validate.js';

/** The result of checking one bundle: at most `maxIssues` of its issues, and how many there were. */
export interface BundleCheck {
  readonly success: boolean;
  readonly issues: readonly Issue[];
  /** Every issue found, of which `issues` holds the first `maxIssues`. */
  readonly issueCount: number;
}

/**
 * Checks one FHIR document bundle against the NRCeS profiles; only the first
 * `maxIssues` issues are kept, so that no more cross a thread or the wire.
 */
export function checkFhirBundle(bundle: unknown, maxIssues: number): BundleCheck {
  // When the validator can stop at a number of issues, pass maxIssues to it here.
  const r = validateFhirBundle(bundle);
  return { success: r.success, issues: r.issues.length > maxIssues ? r.issues.slice(0, maxIssues) : r.issues, issueCount: r.issues.length };
}
