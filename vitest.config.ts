import { defineConfig } from 'vitest/config';
import { INTEGRATION_FILES } from './test/integration-files.js';

export default defineConfig({
  test: {
    pool: 'forks',
    // vitest 4 uses one worker fewer than the cores (one, on a 2-core machine); most files wait on
    // processes, sockets and Chromium, so two workers keep both cores busy.
    maxWorkers: 2,
    // The CLI tests run dist/: build first when it is older than src/.
    globalSetup: ['./test/support/fresh-build.ts'],
    // dist/ is plain JavaScript that Node runs as it is: imported natively, not transformed by Vite for each file.
    server: { deps: { external: [/\/dist\//] } },
    reporters: ['default', './test/support/summary-reporter.ts'],
    // `npm test` runs both projects; `npm run test:unit` the quick one (CONTRIBUTING says when to run which).
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...INTEGRATION_FILES],
          testTimeout: 30_000,
          // In-process files that restore what they change (time zone, timers, spies): each worker imports
          // the library once for all its files instead of once per file, which was most of the run.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [...INTEGRATION_FILES],
          // Child processes, Chromium and PostgreSQL on a loaded 2-core machine: the waits in
          // test/support (90 s) report what they saw before these limits are reached.
          testTimeout: 150_000,
          hookTimeout: 150_000,
        },
      },
    ],
  },
});
