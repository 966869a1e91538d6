/**
 * The per-frame path allocates nothing (issue 7: "0 allocations per frame"), measured exactly
 * (test/helpers/alloc.ts: the bytes V8's young generation gains over a window of frames,
 * tolerance 256 B per window, i.e. under one 16-byte number every 60 frames) once V8 has
 * optimised the code, through the adapters a game calls. A function called once a frame per
 * character is where a boxed number hides (a double passed to, or returned from, a helper V8
 * does not inline). The animation is played back from a table sampled at setup, so only
 * bitrig and the engine's bone setters run in the measured frames (three's own AnimationMixer
 * allocates a few hundred bytes a frame by itself).
 *
 * The scenarios (test/alloc/scenarios.ts) run in plain Node processes from one esbuild bundle
 * of the sources, as a game ships them: under vitest's module runner every import goes
 * through a getter, which changes what V8 inlines and made the same frames allocate on some
 * runs and not on others.
 */
import { describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(__dirname, '../..');

const SCENARIO_NAMES = ['threeTailWasm', 'threeTailJs', 'threeTailFloor', 'threeScene', 'threeShared', 'worldCrowd', 'babylonScene'];

interface Outcome { name: string; warmFrames: number | null; windows: number[]; check: boolean }

async function runScenarios(): Promise<Outcome[]> {
  // (inside the repo: node_modules/.cache, ignored by git)
  const cache = join(root, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'bitrig-alloc-'));
  try {
    const out = join(dir, 'scenarios.mjs');
    await build({
      entryPoints: [join(root, 'test/alloc/scenarios.ts')], bundle: true, platform: 'node', format: 'esm',
      outfile: out, logLevel: 'silent', absWorkingDir: root,
    });
    // One process per scenario, as one game runs one engine (what V8 optimised for one
    // scenario changes what it does with the next: Babylon's own world-matrix code ran
    // deoptimised, allocating, after the three.js scenarios in the same process).
    const outcomes: Outcome[] = [];
    for (const name of SCENARIO_NAMES) {
      const text = execFileSync(process.execPath, [out, name], {
        cwd: root, env: { ...process.env, BITRIG_ALLOC_SCENARIOS: '1' }, encoding: 'utf8', maxBuffer: 1 << 24,
      });
      outcomes.push(...text.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Outcome));
    }
    return outcomes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('per-frame allocation, exact (young-generation bytes per window ≤ 256 once optimised)', () => {
  test('three.js (tail on both backends, floor contact, scene IK, a shared world), a bare world of 200 tails, and Babylon.js: no allocation per frame', async () => {
    const outcomes = await runScenarios();
    expect(outcomes.map((o) => o.name)).toEqual(SCENARIO_NAMES);
    for (const o of outcomes) console.log(`${o.name}: quiet after ${o.warmFrames ?? 'never'} frames; last windows ${o.windows.slice(-3).join(', ')} B`);
    for (const o of outcomes) {
      expect(o.check, `${o.name}: the path it measures did not run`).toBe(true);
      expect(o.warmFrames, `${o.name} still allocates after ${o.windows.length} windows: ${o.windows.slice(-5).join(', ')} B per window`).not.toBeNull();
    }
  }, 300_000);
});
