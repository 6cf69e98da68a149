import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The examples import the package by name, as a user would; in the repository that is the sources.
  resolve: {
    alias: {
      'toolgate/testing': new URL('./src/testing/index.ts', import.meta.url).pathname,
      'toolgate/agent-sdk': new URL('./src/agent-sdk/index.ts', import.meta.url).pathname,
      'toolgate/internals': new URL('./src/internals.ts', import.meta.url).pathname,
      toolgate: new URL('./src/index.ts', import.meta.url).pathname,
    },
  },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Type-level tests (*.test-d.ts) prove that what must not compile does not.
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    // Limits against hangs, not speed checks: a test that starts the CLI from the TypeScript sources a few times took
    // over 30 s at load 21 on two cores (CI's machine may be as busy), and a timeout there failed a run for nothing.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Two cores on every machine: keep the pool small so real processes (bash, rg) are not starved.
    maxWorkers: 2,
  },
});
