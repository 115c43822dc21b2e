/**
 * The public API, frozen: every entry point's runtime exports, read from the
 * BUILT package (dist/, what users install), as an explicit list. A change
 * here is a change to the public API: make it on purpose, and note it in
 * CHANGELOG.md. Types are checked by the type tests, not listed here.
 */
import { readFileSync, readdirSync } from 'node:fs';
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
    'HI_TYPES',
    'LINT_RULES',
    'SCHEMA_NAMES',
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
    'CONTENT_SECURITY_POLICY',
    'LANGUAGES',
    'MESSAGES',
    'PAGE_SIZES',
    'PARTIAL_NAMES',
    'PdfUnavailableError',
    'TEMPLATE_NAMES',
    'TemplateError',
    'ageAt',
    'bilingual',
    'buildDocumentModel',
    'bundledTemplateDirectory',
    'createPdfPrinter',
    'createRenderer',
    'findChromium',
    'formatVisitDate',
    'htmlToPdf',
    'hyphenateHtml',
    'isLanguage',
    'isPdfUnavailableError',
    'isTemplateError',
    'qrCodeSvg',
    'readTemplateDirectory',
    'renderDocuments',
    'safeRenderDocuments',
    'sweepStaleProfileFolders',
    'withContentSecurityPolicy',
  ],
  './client': [
    'AbortedError',
    'AlreadyLinkedError',
    'AuthenticationError',
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
    'asSessionToken',
    'batchSummaryOf',
    'createClient',
    'isOutcomeUnknownError',
    'isTransportError',
    'linkRequestKey',
    'memoryJournal',
    'openFileJournal',
  ],
  './mock': ['buildOpenApiDocument', 'parseSeed', 'startMockServer'],
  './fhir': [
    'ABDM_IDENTIFIER_SYSTEMS',
    'DEFAULT_IDENTIFIER_SYSTEMS',
    'FHIR_LIMITS',
    'FHIR_MAX_ISSUES',
    'PROFILES',
    'SYSTEMS',
    'fromFhir',
    'parseIcd10Titles',
    'toFhirBundles',
    'toOperationOutcome',
    'validateFhirBundle',
  ],
};

/** The user documentation: the README and docs/*.md. */
const docs = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]
  .map((f) => readFileSync(new URL(f, root), 'utf8'))
  .join('\n');

const entryPoints = Object.entries(pkg.exports).filter((e): e is [string, { import: { default: string }; require: { default: string } }] => typeof e[1] !== 'string');

describe('the public API', () => {
  it('has exactly the entry points listed here', () => {
    expect(entryPoints.map(([name]) => name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it('exports each name from one entry point only', () => {
    const names = Object.values(EXPECTED).flat();
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('documents every runtime export in the README or docs/ (in code quotes)', () => {
    expect(Object.values(EXPECTED).flatMap((names) => names.filter((n) => !new RegExp(`\`[^\`\\n]*\\b${n}\\b[^\`\\n]*\``).test(docs)))).toEqual([]);
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
