/**
 * The public API, frozen: every entry point's runtime exports, read from the
 * BUILT package (dist/, what users install), as an explicit list. A change
 * here is a change to the public API: make it on purpose, and note it in
 * CHANGELOG.md. Types are checked by the type tests, not listed here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  exports: Record<string, { import: { default: string }; require: { default: string } } | string>;
};
const require = createRequire(import.meta.url);

/** Sorted runtime export names of each entry point. */
const EXPECTED: Record<string, readonly string[]> = {
  '.': [
    'AbhaLinkError',
    'BOUNDS',
    'DEFAULT_MAX_ISSUES',
    'DEFAULT_TIME_ZONE',
    'ENDPOINTS',
    'ENDPOINT_PATHS',
    'FORMATS',
    'HI_TYPES',
    'HI_TYPE_DISPLAY',
    'INPUTS',
    'LINT_RULES',
    'PATTERNS',
    'RESOURCES',
    'SCHEMA_MANIFEST',
    'SCHEMA_NAMES',
    'TOO_MANY_ISSUES',
    'ValidationError',
    'assertValid',
    'buildBundleData',
    'buildCareContext',
    'buildDiagnosis',
    'buildDoctor',
    'buildHospital',
    'buildLabInvestigation',
    'buildLinkRequest',
    'buildMedication',
    'defaultHiType',
    'deriveDisplay',
    'deriveReferenceNumber',
    'detectInputKind',
    'isSchemaName',
    'isValidationError',
    'lintClinicalInput',
    'lintLinkRequest',
    'normalizeDuration',
    'normalizeFrequency',
    'parseFrequency',
    'safeBuildLinkRequest',
    'validate',
    'validateLinkRequest',
    'visitDateOf',
  ],
  './render': [
    'CHROMIUM_ARGS',
    'COMPILE_OPTIONS',
    'CONTENT_SECURITY_POLICY',
    'DEFAULT_CHROMIUM_PATHS',
    'HELPER_NAMES',
    'HI_TYPE_LABELS_HI',
    'LABELS',
    'LANGUAGES',
    'MESSAGES',
    'MONTHS',
    'PAGE_SIZES',
    'PARTIAL_NAMES',
    'PROFILE_FOLDER_PREFIX',
    'PdfUnavailableError',
    'TEMPLATE_NAMES',
    'TemplateError',
    'ageAt',
    'bilingual',
    'buildDocumentModel',
    'bundledTemplateDirectory',
    'checkTemplateAst',
    'createPdfPrinter',
    'createRenderer',
    'detectInputKind',
    'findChromium',
    'formatVisitDate',
    'htmlToPdf',
    'hyphenateHtml',
    'isHttpsUrl',
    'isLanguage',
    'isPdfUnavailableError',
    'isTemplateError',
    'qrCodeSvg',
    'readTemplateDirectory',
    'renderDocuments',
    'resolveInput',
    'safeRenderDocuments',
    'sweepStaleProfileFolders',
    'withContentSecurityPolicy',
  ],
  './client': [
    'AbhaClient',
    'AbortedError',
    'AlreadyLinkedError',
    'AuthenticationError',
    'DEFAULT_RETRY',
    'EnvelopeError',
    'InvalidResponseError',
    'JOURNAL_MATCH_WINDOW',
    'JournalError',
    'JournalMismatchError',
    'NetworkError',
    'OutcomeUnknownError',
    'RateLimitedError',
    'RejectedError',
    'ServerError',
    'TransportError',
    'ValidationError',
    'asSessionToken',
    'batchSummaryOf',
    'createClient',
    'isAlreadyLinkedAnswer',
    'isOutcomeUnknownError',
    'isTransportError',
    'isValidationError',
    'linkAnswerMismatches',
    'linkRequestKey',
    'memoryJournal',
    'openFileJournal',
    'readJournal',
    'redactServiceMessage',
  ],
  './mock': ['buildOpenApiDocument', 'checkFaultRule', 'parseSeed', 'startMockServer', 'syntheticAccounts'],
  './fhir': [
    'ABDM_IDENTIFIER_SYSTEMS',
    'CONFIDENTIALITY_VERY_RESTRICTED',
    'DEFAULT_IDENTIFIER_SYSTEMS',
    'DISCHARGE_SUMMARY_SECTIONS',
    'ENCOUNTER_CLASS_AMBULATORY',
    'ENCOUNTER_CLASS_INPATIENT',
    'FHIR_HI_TYPES',
    'FHIR_ID_NAMESPACE',
    'FHIR_LIMITS',
    'FHIR_MAX_ISSUES',
    'IDENTIFIER_TYPES',
    'ISSUE_CODE_SYSTEM',
    'KNOWN_IDENTIFIER_SYSTEMS',
    'NRCES_BASE',
    'NRCES_IG_VERSION',
    'OP_CONSULT_SECTIONS',
    'OTHER_RECORD_TYPES',
    'PROFILES',
    'RECORD_PROFILES',
    'SYSTEMS',
    'VERIFICATION_STATUSES',
    'documentUuid',
    'escapeXhtml',
    'fromFhir',
    'isFhirHiType',
    'isolatedXhtml',
    'narrativeText',
    'parseIcd10Titles',
    'profileUrl',
    'resourceUuid',
    'toFhirBundles',
    'toOperationOutcome',
    'validateFhirBundle',
  ],
};

const entryPoints = Object.entries(pkg.exports).filter((e): e is [string, { import: { default: string }; require: { default: string } }] => typeof e[1] !== 'string');

describe('the public API', () => {
  it('has exactly the entry points listed here', () => {
    expect(entryPoints.map(([name]) => name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  describe.each(entryPoints)('entry point %s', (name, target) => {
    it('exports exactly the listed names from the built ES module', async () => {
      const mod = (await import(new URL(target.import.default, root).href)) as Record<string, unknown>;
      expect(Object.keys(mod).sort()).toEqual(EXPECTED[name]);
    });

    it('exports the same names from the built CommonJS module', () => {
      const mod = require(new URL(target.require.default, root).pathname) as Record<string, unknown>;
      expect(Object.keys(mod).sort()).toEqual(EXPECTED[name]);
    });

    it('exports no undefined value', async () => {
      const mod = (await import(new URL(target.import.default, root).href)) as Record<string, unknown>;
      expect(
        Object.entries(mod)
          .filter(([, v]) => v === undefined)
          .map(([k]) => k),
      ).toEqual([]);
    });
  });
});
