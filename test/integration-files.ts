/**
 * The test files of the `integration` project: those that start programs
 * (the CLI as a child process, npm, tsc, Jest), Chromium, PostgreSQL or the
 * `serve` application with its database. Every other test file is `unit`:
 * in-process only, the quick loop (`npm run test:unit`). vitest.config.ts
 * reads this list, and test/test-kinds.test.ts checks that no unit file
 * imports what would make it an integration file.
 */
export const INTEGRATION_FILES: readonly string[] = [
  'test/cli-conventions.test.ts',
  'test/cli.test.ts',
  'test/client.test.ts',
  'test/docs.test.ts',
  'test/fhir-cli.test.ts',
  'test/fhir-embed-pdf.test.ts',
  'test/fhir-icd10-titles.test.ts',
  'test/journal-hardening.test.ts',
  'test/mock.test.ts',
  'test/package.test.ts',
  'test/packed.test.ts',
  'test/render-browser.test.ts',
  'test/render-cli.test.ts',
  'test/render-languages-browser.test.ts',
  'test/render-print-browser.test.ts',
  'test/render-records-browser.test.ts',
  'test/render-templates.test.ts',
  'test/serve-api.test.ts',
  'test/serve-callbacks.test.ts',
  'test/serve-cli.test.ts',
  'test/serve-examples.test.ts',
  'test/serve-fhir-outcome.test.ts',
  'test/serve-limits.test.ts',
  'test/serve-openapi.test.ts',
  'test/serve-operations.test.ts',
  'test/serve-playground.test.ts',
  'test/serve-queue-at-rest.test.ts',
  'test/serve-queue-durability.test.ts',
  'test/serve-queue-listing.test.ts',
  'test/serve-queue-replicas.test.ts',
  'test/serve-queue.test.ts',
  'test/serve-security.test.ts',
  'test/submit-cli.test.ts',
  'test/submit.test.ts',
];
