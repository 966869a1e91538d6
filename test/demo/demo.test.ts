/**
 * The demo in a real headless Chromium. Serves the demo the way `npm start` does, then: the
 * tail page opens on the de-tailed fox walking, its tail torn on the left and whole in the two
 * repaired copies; every page draws characters (pixels other than the background, not just a
 * canvas) with no console errors; the tail view differs with tail physics on and off and the
 * scene view with corrections on and off, and is identical when switched back (so the
 * difference is the setting, not the clock); the out-of-reach flag; the 390 × 844 layout keeps
 * every view and control on screen; the crowd page draws its walkers and clears its numbers
 * when a new run starts. Screenshots go to test-output/demo/.
 *
 * Skips with a printed reason when no chromium is installed (CI installs Debian's).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterToGlb } from '../../rig/characterDocument';
import {
  type DemoServer, findChromium, type Grab, launchChromium, outputDir, pixelDiff, pixelsNotColour, repoRoot, startDemoServer,
} from './browser';
import { hasMixamo, warnIfNoAssets } from '../fixtures/assets';

const chromiumPath = findChromium();
const repoModels = readdirSync(path.join(repoRoot, 'demo/models')).filter((f) => f.endsWith('.glb'));
warnIfNoAssets();
if (!chromiumPath) console.warn('skipping demo browser tests: no chromium found (set CHROMIUM_PATH or apt-get install chromium)');

/** Clear colour of the views (#1b1f27). */
const BG: [number, number, number] = [27, 31, 39];
const SLOW = 240_000; // CI has 2 cores and software WebGL

type Hook = Record<string, (...a: unknown[]) => unknown> & { ready: boolean };

describe.skipIf(!chromiumPath)('demo in headless chromium', () => {
  let server: DemoServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;

  beforeAll(async () => {
    mkdirSync(outputDir, { recursive: true });
    server = await startDemoServer();
    browser = await launchChromium(chromiumPath!);
    context = browser.context;
  }, SLOW + 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  }, 60_000);

  /** Open a page, collecting console errors and uncaught exceptions, and wait for the demo. */
  async function open(name: string, viewport = { width: 1280, height: 760 }): Promise<{ page: Page; errors: string[] }> {
    const page = await context.newPage();
    await page.setViewportSize(viewport);
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console.error: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
    await page.goto(server.url + name, { waitUntil: 'load', timeout: 120_000 });
    await page.waitForFunction(() => (window as unknown as { __bitrigDemo?: Hook }).__bitrigDemo?.ready === true, null, { timeout: 180_000 });
    return { page, errors };
  }

  const call = <T>(page: Page, fn: string, ...args: unknown[]): Promise<T> =>
    page.evaluate(([f, a]) => {
      const h = (window as unknown as { __bitrigDemo: Hook }).__bitrigDemo;
      return h[f as string]!(...(a as unknown[]));
    }, [fn, args] as const) as Promise<T>;

  const labelOf = (page: Page): Promise<string> => page.evaluate(() => (window as unknown as { __bitrigDemo: { label: string } }).__bitrigDemo.label);

  async function shot(page: Page, file: string): Promise<void> {
    const vp = page.viewportSize()!;
    // A clip of the viewport: headless full-page captures can skip canvas tiles.
    await page.screenshot({ path: path.join(outputDir, file), clip: { x: 0, y: 0, width: vp.width, height: vp.height } });
  }

  async function uiVisible(page: Page, selectors: string[]): Promise<string[]> {
    return page.evaluate((sels) => {
      const bad: string[] = [];
      const W = innerWidth, H = innerHeight;
      for (const s of sels) {
        const els = Array.from(document.querySelectorAll(s));
        if (els.length === 0) bad.push(`${s}: missing`);
        for (const e of els) {
          const r = e.getBoundingClientRect();
          const cs = getComputedStyle(e);
          if (cs.display === 'none' || cs.visibility === 'hidden') bad.push(`${s}: hidden`);
          if (r.width < 8 || r.height < 8) bad.push(`${s}: ${r.width.toFixed(0)}×${r.height.toFixed(0)}`);
          if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) {
            bad.push(`${s}: outside the ${W}×${H} viewport at ${r.left.toFixed(0)},${r.top.toFixed(0)}–${r.right.toFixed(0)},${r.bottom.toFixed(0)}`);
          }
        }
      }
      return bad;
    }, selectors);
  }

  it('tail page: opens on the de-tailed fox walking, torn on the left, whole in the repaired copies; draws every view', async () => {
    const { page, errors } = await open('tail.html');
    await page.waitForTimeout(1500); // a few live frames
    await shot(page, 'tail-wide.png');
    for (const v of ['shin', 'rigid', 'chain', 'side']) {
      const g = await call<Grab>(page, 'grab', v);
      // WebGL works (SwiftShader): at least 2 % of each view is not the clear colour.
      const px = pixelsNotColour(g, BG);
      console.log(`tail view ${v}: ${px} of ${g.w * g.h} pixels drawn`);
      expect(px, `view ${v}`).toBeGreaterThan(0.02 * g.w * g.h);
    }
    expect(await labelOf(page)).toBe('quaternius-fox-detailed.glb');
    expect(await page.evaluate(() => (window as unknown as { __bitrigDemo: { clip: string } }).__bitrigDemo.clip)).toBe('Walk');
    // Chromium runs the WebAssembly SIMD tail step (compiled synchronously on the main thread).
    // Every repository model is offered, then the built-in critter, then the Mixamo ones when present.
    const values = await page.locator('#model option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(values.filter((v) => v.startsWith('repo:')).map((v) => v.slice(5)).sort()).toEqual([...repoModels].sort());
    expect(values).toContain('builtin');
    if (hasMixamo) expect(values).toEqual(expect.arrayContaining(['shared:threejs-xbot.glb', 'shared:threejs-soldier.glb']));
    // A full walk cycle, paused: the auto-rigger's weights tear the tail; both repairs keep it whole.
    await call(page, 'setPaused', true);
    await call(page, 'setClip', 'Walk');
    type Row = { p99: number; torn: number; samples: number };
    const r = await call<Record<string, Row>>(page, 'stats');
    console.log(`fox walk torn: as rigged ${(r.shin!.torn * 100).toFixed(2)} %, rigid ${(r.rigid!.torn * 100).toFixed(2)} %, chain ${(r.chain!.torn * 100).toFixed(2)} % (p99 ${r.shin!.p99.toFixed(2)} / ${r.rigid!.p99.toFixed(2)} / ${r.chain!.p99.toFixed(2)})`);
    // (the tail's edges: vertices at least half on the grown chain's bones; the rump keeps its body
    // weights in the repair, so the seam's torn edges mostly fall outside that mask: 0.3 % counted)
    expect(r.shin!.torn).toBeGreaterThan(0.001);
    expect(r.rigid!.torn).toBe(0);
    expect(r.chain!.torn).toBe(0);
    expect(Math.abs(r.rigid!.p99 - 1)).toBeLessThan(1e-4); // rigid on the pelvis: every edge keeps its length (float32 skinning)
    expect(await page.locator('.readout[data-readout="shin"]').getAttribute('data-torn')).toBe('yes');
    expect(errors).toEqual([]);
    await page.close();
  }, SLOW);

  it('tail page: a fox that already has tail bones says why its middle copy equals the left one', async () => {
    const { page, errors } = await open('tail.html');
    await call(page, 'load', 'quaternius-fox.glb');
    await expect.poll(() => labelOf(page), { timeout: 120_000, interval: 500 }).toBe('quaternius-fox.glb');
    expect(await page.locator('.view[data-view="rigid"]').getAttribute('data-same')).toBe('yes');
    expect(await page.locator('.view[data-view="rigid"] .label small').textContent()).toMatch(/same as the left: the file already has tail bones/);
    await call(page, 'setPaused', true);
    await call(page, 'seek', 1);
    const g = await call<Grab>(page, 'grab', 'chain');
    expect(pixelsNotColour(g, BG)).toBeGreaterThan(0.02 * g.w * g.h);
    expect(errors).toEqual([]);
    await page.close();
  }, SLOW);

  it('tail page: the chain view differs with tail physics on and off, and only because of it', async () => {
    const { page, errors } = await open('tail.html');
    await call(page, 'setPaused', true);
    await call(page, 'setClip', 'Walk');
    await call(page, 'seek', 0.6);
    const on = await call<Grab>(page, 'grab', 'chain');
    await shot(page, 'tail-physics-on.png');
    await call(page, 'setPhysics', false);
    const off = await call<Grab>(page, 'grab', 'chain');
    await shot(page, 'tail-physics-off.png');
    await call(page, 'setPhysics', true);
    const again = await call<Grab>(page, 'grab', 'chain');
    const changed = pixelDiff(on, off);
    console.log(`tail: ${changed} of ${on.w * on.h} chain-view pixels differ with physics off (channel tolerance 16); ${pixelDiff(on, again)} after switching back`);
    // The swinging tail vs the carried rest pose: at least 0.2 % of the view moves.
    expect(changed).toBeGreaterThan(0.002 * on.w * on.h);
    // Deterministic re-simulation: the same setting at the same time draws the same pixels (≤ 0.05 %).
    expect(pixelDiff(on, again)).toBeLessThanOrEqual(0.0005 * on.w * on.h);
    // The as-rigged and rigid copies have no runtime: physics does not touch them.
    expect(errors).toEqual([]);
    await page.close();
  }, SLOW);

  it('tail page: live stretch readouts on the built-in critter — rigid is exactly 1, the chain tears less than the rig as it came', async () => {
    const { page, errors } = await open('tail.html');
    await call(page, 'load', 'builtin');
    await expect.poll(() => labelOf(page), { timeout: 120_000, interval: 500 }).toBe('built-in critter');
    await call(page, 'setPaused', true);
    type Row = { p1: number; p99: number; max: number; torn: number; samples: number; edges: number };
    const rows: Record<string, Record<string, Row>> = {};
    for (const clip of ['walk', 'sprint', 'crouch']) {
      await call(page, 'setClip', clip); // seeks to 0: a full cycle of 24 samples after the warm-up
      rows[clip] = await call<Record<string, Row>>(page, 'stats');
    }
    for (const [clip, r] of Object.entries(rows)) {
      console.log(`stretch ${clip}: ${Object.entries(r).map(([k, v]) => `${k} p99 ${v.p99.toFixed(3)} p1 ${v.p1.toFixed(3)} torn ${(v.torn * 100).toFixed(2)} %`).join(' | ')}`);
    }
    const text = await page.locator('.readout[data-readout="chain"]').textContent();
    expect(text).toMatch(/p99 \d\.\d\d/);
    for (const r of Object.values(rows)) {
      for (const k of ['shin', 'rigid', 'chain']) {
        expect(r[k]!.samples).toBe(24);
        expect(r[k]!.edges).toBeGreaterThan(1000); // the tail shell's edges
      }
      // Rigid on the pelvis: every tail edge keeps its length (1 ± 1e-4, float32 skinning).
      expect(Math.abs(r.rigid!.p99 - 1)).toBeLessThan(1e-4);
      expect(r.rigid!.torn).toBe(0);
      // The grown chain swings but never tears, and stays under the body's own stretch (about 1.1–1.3).
      expect(r.chain!.torn).toBeLessThan(0.005);
      expect(r.chain!.p99).toBeLessThan(1.3);
      expect(r.chain!.p99).toBeGreaterThan(1.01); // it does move (a p99 of 1.00 would mean a plank)
    }
    // The built-in critter's shin rig fails by collapsing (ratios below 0.67), not by stretching.
    expect(rows.sprint!.shin!.torn).toBeGreaterThan(0.02);
    expect(rows.crouch!.shin!.torn).toBeGreaterThan(0.1);
    for (const clip of ['sprint', 'crouch']) {
      expect(rows[clip]!.chain!.torn).toBeLessThan(rows[clip]!.shin!.torn);
      expect(rows[clip]!.chain!.p1).toBeGreaterThan(rows[clip]!.shin!.p1);
    }
    expect(errors).toEqual([]);
    await page.close();
  }, SLOW);

  it('crowd page: draws hundreds of walkers, shows the frame time and the systems\' share, and clears the numbers when a run starts', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console.error: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(server.url + 'crowd.html', { waitUntil: 'load', timeout: 120_000 });
    await page.evaluate(() => (window as unknown as { __bitrigDemo: { run(n: number): void } }).__bitrigDemo.run(300));
    // A new run shows no number from the one before.
    expect(await page.locator('#frame').textContent()).toBe('–');
    expect(await page.locator('#systems').textContent()).toBe('–');
    await page.waitForFunction(() => document.body.dataset.crowdReady === '1', null, { timeout: 180_000 });
    await shot(page, 'crowd.png');
    expect(await page.evaluate(() => (window as unknown as { __bitrigDemo: { characters: number } }).__bitrigDemo.characters)).toBe(300);
    const g = await page.evaluate(() => (window as unknown as { __bitrigDemo: { grab(): Grab } }).__bitrigDemo.grab());
    const px = pixelsNotColour(g, BG);
    console.log(`crowd: ${px} of ${g.w * g.h} pixels drawn; ${await page.locator('#frame').textContent()} per frame, systems ${await page.locator('#systems').textContent()} (${await page.locator('#share').textContent()})`);
    expect(px).toBeGreaterThan(0.03 * g.w * g.h); // the walkers and the floor grid
    expect(await page.locator('#share').textContent()).toMatch(/^\d+ %$/);
    expect(errors).toEqual([]);
    await page.close();
  }, SLOW);

  it('scene page: every scenario runs with no console errors; corrections change the corrected view and only it', async () => {
    const { page, errors } = await open('scene.html');
    await call(page, 'setPaused', true);
    const ids = await page.evaluate(() => (window as unknown as { __bitrigDemo: { scenarios: string[] } }).__bitrigDemo.scenarios);
    expect(ids).toEqual(['terrain', 'platform-move', 'platform-rotate', 'reach', 'key', 'pour', 'out-of-reach']);
    const mid: Record<string, number> = { terrain: 3.3, 'platform-move': 1.5, 'platform-rotate': 4, reach: 3, key: 4, pour: 4.5, 'out-of-reach': 3 };
    for (const id of ids) {
      await call(page, 'setScenario', id);
      await call(page, 'seek', mid[id]);
      const g = await call<Grab>(page, 'grab', 'corrected');
      expect(pixelsNotColour(g, BG), id).toBeGreaterThan(0.03 * g.w * g.h); // the whole character framed: at least 3 % of the view
      await shot(page, `scene-${id}.png`);
    }
    for (const id of ['terrain', 'key', 'pour']) {
      await call(page, 'setScenario', id);
      await call(page, 'seek', mid[id]);
      const on = await call<Grab>(page, 'grab', 'corrected');
      const baseOn = await call<Grab>(page, 'grab', 'base');
      await call(page, 'setCorrections', false);
      const off = await call<Grab>(page, 'grab', 'corrected');
      const baseOff = await call<Grab>(page, 'grab', 'base');
      if (id === 'terrain') await shot(page, 'scene-terrain-corrections-off.png');
      await call(page, 'setCorrections', true);
      const again = await call<Grab>(page, 'grab', 'corrected');
      const changed = pixelDiff(on, off);
      console.log(`scene ${id}: ${changed} of ${on.w * on.h} corrected-view pixels differ with corrections off; ${pixelDiff(on, again)} after switching back; base view ${pixelDiff(baseOn, baseOff)}`);
      expect(changed, id).toBeGreaterThan(0.002 * on.w * on.h);
      expect(pixelDiff(on, again), id).toBeLessThanOrEqual(0.0005 * on.w * on.h);
      expect(pixelDiff(baseOn, baseOff), `${id} base view`).toBeLessThanOrEqual(0.0005 * on.w * on.h);
    }
    expect(errors).toEqual([]);
    await page.close();
  }, SLOW);

  it('scene page: an out-of-reach target is flagged "needs repositioning"; a reachable one is reached', async () => {
    const { page, errors } = await open('scene.html');
    await call(page, 'setPaused', true);
    type State = { repositionNeeded: boolean; flagShown: boolean; hands: { side: string; weight: number; reached: boolean; missWs: number }[]; contacts: { locked: boolean; gapWs: number }[] };
    await call(page, 'setScenario', 'out-of-reach');
    await call(page, 'seek', 3);
    const far = await call<State>(page, 'state');
    expect(far.repositionNeeded).toBe(true);
    expect(far.flagShown).toBe(true);
    await expect.poll(() => page.locator('#flag').isVisible()).toBe(true);
    const right = far.hands.find((h) => h.side === 'right')!;
    expect(right.reached).toBe(false);
    expect(right.missWs).toBeGreaterThan(0.3); // the target is ~0.95 m away, the arm 0.36 m
    await call(page, 'setScenario', 'key');
    await call(page, 'seek', 4);
    const near = await call<State>(page, 'state');
    expect(near.repositionNeeded).toBe(false);
    expect(near.flagShown).toBe(false);
    expect(near.hands.find((h) => h.side === 'right')!.reached).toBe(true);
    // Idle on a flat floor: both feet locked on the ground (gap within 1 mm).
    for (const c of near.contacts) { expect(c.locked).toBe(true); expect(Math.abs(c.gapWs)).toBeLessThan(1e-3); }
    expect(errors).toEqual([]);
    await page.close();
  }, SLOW);

  it('narrow layout (390 × 844): both pages keep every view and control on screen, and draw', async () => {
    for (const [name, views, extra] of [
      ['tail.html', ['shin', 'rigid', 'chain', 'side'], ['#model', '#file']],
      ['scene.html', ['base', 'corrected'], ['#play', '#scrub']],
    ] as const) {
      const { page, errors } = await open(name, { width: 390, height: 844 });
      await call(page, 'setPaused', true);
      await call(page, 'seek', 2);
      await shot(page, `${name.replace('.html', '')}-narrow.png`);
      const bad = await uiVisible(page, [
        ...views.map((v) => `.view[data-view="${v}"]`), '.controls', '.controls .lil-controller', ...extra,
      ]);
      expect(bad, name).toEqual([]);
      const controls = await page.locator('.controls .lil-controller').count();
      expect(controls).toBeGreaterThanOrEqual(name === 'tail.html' ? 12 : 9);
      for (const v of views) {
        const g = await call<Grab>(page, 'grab', v);
        expect(pixelsNotColour(g, BG), `${name} ${v}`).toBeGreaterThan((v === 'side' ? 0.02 : 0.05) * g.w * g.h);
      }
      if (name === 'scene.html') {
        await call(page, 'seek', 3.3);
        const on = await call<Grab>(page, 'grab', 'corrected');
        await call(page, 'setCorrections', false);
        const off = await call<Grab>(page, 'grab', 'corrected');
        expect(pixelDiff(on, off)).toBeGreaterThan(0.002 * on.w * on.h);
      }
      expect(errors).toEqual([]);
      await page.close();
    }
  }, SLOW);

  it('tail page: a GLB from the file input goes through the rig pass in the browser', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bitrig-demo-glb-'));
    try {
      const file = path.join(dir, 'critter-shin.glb');
      writeFileSync(file, await characterToGlb(createBuiltinCharacter({ variant: 'shin', tailLinks: 4 })));
      const { page, errors } = await open('tail.html');
      await page.setInputFiles('#file', file);
      await expect.poll(() => labelOf(page), { timeout: 120_000, interval: 500 }).toBe('critter-shin.glb');
      const status = await page.textContent('#status');
      expect(status).toMatch(/chain → chain on Hips/); // the rig pass grew a chain on the pelvis
      await call(page, 'setPaused', true);
      await call(page, 'seek', 1.5);
      const g = await call<Grab>(page, 'grab', 'chain');
      expect(pixelsNotColour(g, BG)).toBeGreaterThan(0.05 * g.w * g.h);
      await shot(page, 'tail-file-input.png');
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, SLOW);

  it('npm start serves the shared asset list (empty without ../shared/assets) and never the repo', async () => {
    const res = await fetch(server.url + 'shared-assets/index.json');
    expect(res.ok).toBe(true);
    const body = (await res.json()) as { files: { name: string; bytes: number }[] };
    expect(Array.isArray(body.files)).toBe(true);
    for (const f of body.files) expect(f.name).toMatch(/\.glb$/);
    expect((await fetch(server.url + 'shared-assets/..%2Fpackage.json')).status).toBe(404);
    expect((await fetch(server.url + 'shared-assets/nope.glb')).status).toBe(404);
    writeFileSync(path.join(outputDir, 'server.log'), server.log());
  }, 60_000);
});
