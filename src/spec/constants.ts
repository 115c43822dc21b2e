/**
 * Named constants: endpoint paths (generated), hiType codes and ABDM rules, in one place.
 * Sources are in `shared/reference/abdm-and-fhir.md` (section numbers below).
 */

/**
 * Endpoint paths of the service (spec §4), by endpoint name: generated from
 * the spec definition (src/spec/definition.ts, `npm run schemas`).
 */
export { ENDPOINT_PATHS } from '../generated/endpoints.js';

// hiType codes and their facts: one registry (spec/hi-types.ts).
export { HI_TYPES, HI_TYPE_DISPLAY, type HiType } from './hi-types.js';

/** The facility time zone used for visit dates unless another is given. */
export const DEFAULT_TIME_ZONE = 'Asia/Kolkata';

/** ABDM's limit on care-context referenceNumber and display (reference §9.2). */
export const ABDM_LABEL_MAX = 255;

/**
 * Characters ABDM v3 HIP-initiated linking accepts (reference §9.2, NHA
 * `hip-initiated-linking.yaml`), without the length part of the regex.
 */
export const ABDM_REFERENCE_CHARS = /^[a-zA-Z0-9_\-@,. ()/:\\]*$/;
export const ABDM_DISPLAY_CHARS = /^[a-zA-Z0-9_\-@,. "':|()/]*$/;

/**
 * ABHA address as HIE-CM accepts it (reference §8): alphanumeric first and
 * last, `.` and `_` between, ending `@abdm` (production) or `@sbx` (sandbox).
 * The suffix list is configurable in lint options.
 */
export const ABHA_ADDRESS_LOCAL = /^[a-zA-Z0-9][a-zA-Z0-9_.]+[a-zA-Z0-9]$/;
export const DEFAULT_ABHA_ADDRESS_SUFFIXES = ['abdm', 'sbx'] as const;

/**
 * ICD-10 code shapes (reference §8; suggested, not official).
 * WHO: letter, two digits, optional `.` and one or two digits (E11.9).
 * Permissive: also ICD-10-CM style (S72.001A).
 */
export const ICD10_WHO = /^[A-Z][0-9]{2}(\.[0-9]{1,2})?$/;
export const ICD10_PERMISSIVE = /^[A-TV-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?$/;

/**
 * ICD-11 MMS code shape (abha-link's decision, docs/spec-decisions.md): a
 * stem code of four characters (digit 1-9 or a letter other than X, letter, digit, digit or
 * letter; never I or O) with an optional `.` and one or two sub-code
 * characters (1A00, CA40.0, 8A80.1Z), optionally postcoordinated with `&`
 * or `/` and further stem or extension codes (extension codes start with X:
 * CA40.0&XN8C1). An extension code alone is not a diagnosis. ICD-10 codes
 * have a digit second, ICD-11 codes a letter: the two shapes never overlap.
 */
const ICD11_CHAR = '[0-9A-HJ-NP-Z]';
const ICD11_STEM = `[1-9A-HJ-NP-WYZ][A-HJ-NP-Z][0-9]${ICD11_CHAR}(\\.${ICD11_CHAR}{1,2})?`;
const ICD11_EXTENSION = `X[A-HJ-NP-Z]${ICD11_CHAR}{2,4}`;
export const ICD11_MMS = new RegExp(`^${ICD11_STEM}([&/](${ICD11_STEM}|${ICD11_EXTENSION}))*$`);
