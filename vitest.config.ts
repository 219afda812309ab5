import { defineConfig } from 'vitest/config';

/**
 * expect.poll's default timeout (1 s) is a wall-clock budget a loaded machine breaks; polls wait
 * for a state to come, so their bound is a hang guard (issue 38).
 */
const POLL = { timeout: 30_000 };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: ['tests/unit/**/*.test.ts', 'tests/integration/**/*.test.ts'],
          // A hang guard, not a budget: on a loaded machine (load 7 on 2 cores) a Pyodide start and a
          // first call took longer than 20 s (issue 38).
          testTimeout: 180_000,
          expect: { poll: POLL },
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['tests/e2e/**/*.test.ts'],
          // The tiny test GGUF the wllama tests run (built once, cached in .cache/models/).
          globalSetup: ['tests/e2e/global-setup.ts'],
          // A hang guard, not a budget: a browser test on a loaded machine (2x its cores) takes
          // several times its idle time, and the tests assert which bound fired, not how fast.
          testTimeout: 180_000,
          hookTimeout: 180_000,
          expect: { poll: POLL },
          // One Chromium at a time on a 2-core machine.
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'examples',
          environment: 'node',
          include: ['tests/examples/**/*.test.ts'],
          // One npm pack for all of them; then an npm install and a build per example.
          globalSetup: ['tests/examples/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'browsers',
          environment: 'node',
          include: ['tests/browsers/**/*.test.ts'],
          // The tiny test GGUF, dist/ built with it, and the WebSocket-mode page's build.
          globalSetup: ['tests/browsers/global-setup.ts'],
          // Hang guards, not budgets: every wait in a row has its own, smaller bound that names it.
          testTimeout: 180_000,
          hookTimeout: 180_000,
          expect: { poll: POLL },
          // One browser at a time on a 2-core machine: vitest runs the files of every project without
          // file parallelism (e2e's too) in one sequential group, one file after another.
          fileParallelism: false,
        },
      },
    ],
  },
});
