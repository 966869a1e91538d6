import { defineConfig } from 'vitest/config';
import { BROWSER_TESTS } from './vitest.config';

/**
 * `npm run test:browser`: the demo and examples in headless chromium, the package build
 * (tsup, `npm pack`, sizes) and the consumer type checks. Files run one at a time: each
 * starts a build or a browser, and the machine may have two cores.
 */
export default defineConfig({
  test: {
    include: BROWSER_TESTS,
    globalSetup: ['test/package/buildOnce.ts'],
    testTimeout: 240_000,
    hookTimeout: 360_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
