/**
 * The one FHIR bundle validator of the service: POST /v1/fhir checks every
 * bundle with it, POST /v1/fhir/validate answers with it. Switch the
 * implementation here, in one place.
 */
import type { Issue } from '../errors.js';
import { validateFhirBundle } from '../fhir/validate.js';

/** The result of checking one bundle. */
export interface BundleCheck {
  readonly success: boolean;
  readonly issues: readonly Issue[];
}

/** Checks one FHIR document bundle against the NRCeS profiles. */
export function checkFhirBundle(bundle: unknown): BundleCheck {
  return validateFhirBundle(bundle);
}
