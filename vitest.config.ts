import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CLI tests spawn node processes; give them room on a loaded 2-core machine.
    testTimeout: 30_000,
    // Hooks start servers (abha-link serve with its embedded PostgreSQL, a PostgreSQL cluster, Chromium).
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest 4 uses one worker fewer than the cores (one, on a 2-core machine); most files wait on
    // processes, sockets and Chromium, so two workers keep both cores busy.
    maxWorkers: 2,
    // The CLI tests run dist/: build first when it is older than src/.
    globalSetup: ['./test/support/fresh-build.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
