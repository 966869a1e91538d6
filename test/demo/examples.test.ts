/**
 * examples/three.html and examples/babylon.html in headless Chromium, served by
 * `npm run examples` (Vite, the repository's sources behind the `bitrig` imports): each page
 * binds a tail, draws the fox (pixels other than its background in the canvas) and logs no
 * console errors. Each is under 60 lines. Skips with a printed reason when no chromium is
 * installed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, launchChromium, outputDir, repoRoot } from './browser';

const chromiumPath = findChromium();
if (!chromiumPath) console.warn('skipping the examples browser test: no chromium found (set CHROMIUM_PATH or apt-get install chromium)');

/** Share of the canvas whose colour differs from its corner pixel (the background) by more than 20 in some channel. */
function drawnShare(page: Page): Promise<number> {
  return page.evaluate(() => {
    const src = document.querySelector('canvas')!;
    const c = document.createElement('canvas');
    c.width = src.width; c.height = src.height;
    const g = c.getContext('2d')!;
    g.drawImage(src, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const bg = [d[0]!, d[1]!, d[2]!];
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i]! - bg[0]!) > 20 || Math.abs(d[i + 1]! - bg[1]!) > 20 || Math.abs(d[i + 2]! - bg[2]!) > 20) n++;
    return n / (c.width * c.height);
  });
}

describe.skipIf(!chromiumPath)('examples in headless chromium', () => {
  let server: ViteDevServer;
  let url = '';
  let browser: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    server = await createServer({ configFile: path.join(repoRoot, 'examples/vite.config.ts'), logLevel: 'silent', server: { host: '127.0.0.1', port: 0, open: false } });
    await server.listen();
    url = server.resolvedUrls!.local[0]!;
    browser = await launchChromium(chromiumPath!);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  }, 60_000);

  for (const name of ['three', 'babylon']) {
    it(`examples/${name}.html: under 60 lines, binds the tail, draws the fox, no console errors`, async () => {
      expect(readFileSync(path.join(repoRoot, 'examples', `${name}.html`), 'utf8').split('\n').length).toBeLessThan(60);
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 800, height: 500 });
      const errors: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push(`console.error: ${m.text()}`); });
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      await page.goto(`${url}examples/${name}.html`, { waitUntil: 'load', timeout: 120_000 });
      await page.waitForFunction(() => (window as unknown as { __example?: { ready: boolean } }).__example?.ready === true, null, { timeout: 180_000 });
      await page.waitForTimeout(1000); // a few frames
      const tails = await page.evaluate(() => (window as unknown as { __example: { tails: number } }).__example.tails);
      expect(tails).toBe(1);
      const share = await drawnShare(page);
      console.log(`examples/${name}.html: ${(share * 100).toFixed(1)} % of the canvas drawn`);
      expect(share).toBeGreaterThan(0.02);
      await page.screenshot({ path: path.join(outputDir, `example-${name}.png`) });
      expect(errors).toEqual([]);
      await page.close();
    }, 240_000);
  }
});
