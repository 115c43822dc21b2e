import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CLI tests spawn node processes; give them room on a loaded 2-core machine.
    testTimeout: 30_000,
    pool: 'forks',
    // The CLI tests run dist/: build first when it is older than src/.
    globalSetup: ['./test/support/fresh-build.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
