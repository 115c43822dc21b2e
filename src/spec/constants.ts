/**
 * Named constants: endpoint paths, hiType codes and ABDM rules, in one place.
 * Sources are in `shared/reference/abdm-and-fhir.md` (section numbers below).
 */

/** Endpoint paths of the service (spec §4), by endpoint id. */
export const ENDPOINT_PATHS = {
  token: '/api/m1/abha/token',
  searchAbha: '/api/m1/abha/search/abha',
  requestOtp: '/api/m1/abha/search/request/otp',
  verifyOtp: '/api/m1/abha/search/verify/otp',
  mobileLoginVerifyOtp: '/api/m1/abha/mobile/login/verify-otp',
  mobileLoginAbhaNumberVerifyOtp: '/api/m1/abha/mobile/login/abha-number/verify-otp',
  aadharNumberLoginVerifyOtp: '/api/m1/abha/aadhar-number/login/verify-otp',
  abhaAddressLoginVerifyOtp: '/api/m1/abha/aadhar/login/abha-address/verify-otp',
  enrollVerifyOtp: '/api/m1/abha/aadhar/enroll/verify-otp',
  fetchAbhaAddressProfile: '/api/m1/abha/aadhar/login/abha-address/fetch/profile',
  getProfile: '/api/m1/abha/login/get-profile',
  linkCareContext: '/api/m2/multiple/link-carecontext',
} as const;

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
