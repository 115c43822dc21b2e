/**
 * abha-link core: the spec's types, schema validation, lint rules and
 * builders. Pure: no I/O, no network, no templates. Rendering lives in
 * `abha-link/render`, the HTTP client in `abha-link/client`.
 *
 * @packageDocumentation
 */
export * from './generated/types.js';
export type { SchemaName } from './generated/manifest.js';
export { AbhaLinkError, ValidationError, isValidationError, type Issue, type Severity } from './errors.js';
export { validate, assertValid, validateLinkRequest, isSchemaName, SCHEMA_NAMES, type ValidateOptions, type ValidationResult } from './validation/validate.js';
export { lintClinicalInput, lintLinkRequest, LINT_RULES, type LintCode, type LintOptions, type LintRule } from './validation/lint.js';
export { buildHospital } from './builders/hospital.js';
export { buildDoctor } from './builders/doctor.js';
export { buildDiagnosis } from './builders/diagnosis.js';
export { buildMedication } from './builders/medication.js';
export { buildLabInvestigation } from './builders/lab-investigation.js';
export { buildBundleData } from './builders/bundle-data.js';
export { buildCareContext, defaultHiType } from './builders/care-context.js';
export { buildLinkRequest, safeBuildLinkRequest, type BuildOptions, type BuildResult } from './builders/link-request.js';
export { normalizeFrequency, parseFrequency, type ParsedFrequency, type FrequencyCode } from './spec/frequency.js';
export { normalizeDuration } from './builders/duration.js';
export { visitDateOf } from './builders/visit-date.js';
export { detectInputKind, type InputKind } from './input-kind.js';
export { HI_TYPES, type HiType } from './spec/constants.js';
