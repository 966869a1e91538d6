import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * `npm test`: the library's unit and integration tests (Node only, under five minutes on two
 * cores). The browser, build, package and type tests run with `npm run test:browser`
 * (vitest.browser.config.ts); `BROWSER_TESTS` lists them so neither config runs them twice.
 */
export const BROWSER_TESTS = ['test/demo/**/*.test.ts', 'test/types/**/*.test.ts', 'test/package.test.ts', 'test/package/**/*.test.ts', 'test/build/**/*.test.ts'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...BROWSER_TESTS],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default (cores − 1) runs one file at a time on a 2-core machine; the tests are
    // CPU-bound and independent, so use both cores.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
