/**
 * Each entry type-checks for a consumer under TypeScript's default `lib` for its target
 * (es2022: no Float16Array) with library checking on (no `skipLibCheck`), strict, module
 * `nodenext`, from a project that has only what the entry needs: `bitrig` and `bitrig/rig`
 * without `@types/three`; `bitrig/three` with it. `bitrig/babylon` counts only diagnostics
 * outside Babylon's own declarations (they name WebGPU types a project adds with
 * `@webgpu/types`). Reads the build (dist/) the global setup made.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repoRoot } from '../fixtures/assets';

const CASES: { entry: string; use: string; withThreeTypes: boolean }[] = [
  { entry: 'bitrig', use: "import { createBitrigWorld, TAIL_DEFAULTS, type TailOptions } from 'bitrig';\nexport const w = createBitrigWorld();\nexport const o: Partial<TailOptions> = { carry: TAIL_DEFAULTS.carry };", withThreeTypes: false },
  { entry: 'bitrig/rig', use: "import { rigGlb, type RigReport } from 'bitrig/rig';\nexport const f = rigGlb;\nexport type R = RigReport;", withThreeTypes: false },
  { entry: 'bitrig/three', use: "import { createAnimator, type AnimatorOptions } from 'bitrig/three';\nexport const f = createAnimator;\nexport const o: AnimatorOptions = {};", withThreeTypes: true },
  { entry: 'bitrig/babylon', use: "import { createAnimator } from 'bitrig/babylon';\nexport const f = createAnimator;", withThreeTypes: false },
];

let dir = '';

describe('each entry compiles for a consumer under the default lib', () => {
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'bitrig-entries-'));
  });
  afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  for (const c of CASES) {
    test(`${c.entry}${c.withThreeTypes ? ' (with @types/three)' : ' (no @types/three installed)'}`, () => {
      const proj = path.join(dir, c.entry.replace('/', '-'));
      const nm = path.join(proj, 'node_modules');
      mkdirSync(path.join(nm, '@types'), { recursive: true });
      symlinkSync(repoRoot, path.join(nm, 'bitrig'), 'dir');
      for (const name of readdirSync(path.join(repoRoot, 'node_modules'))) {
        if (name.startsWith('.') || name === '@types') continue;
        symlinkSync(path.join(repoRoot, 'node_modules', name), path.join(nm, name), 'dir');
      }
      for (const t of readdirSync(path.join(repoRoot, 'node_modules', '@types'))) {
        if ((t === 'three' || t === 'webxr') && !c.withThreeTypes) continue; // @types/three brings @types/webxr
        symlinkSync(path.join(repoRoot, 'node_modules', '@types', t), path.join(nm, '@types', t), 'dir');
      }
      writeFileSync(path.join(proj, 'use.ts'), `${c.use}\n`);
      const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
      const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--pretty', 'false', 'use.ts'], { cwd: proj, encoding: 'utf8', timeout: 120_000 });
      const lines = (r.stdout + r.stderr).split('\n').filter((l) => /error TS/.test(l));
      const ours = c.entry === 'bitrig/babylon' ? lines.filter((l) => !/node_modules[\\/]@babylonjs[\\/]/.test(l)) : lines;
      expect(ours).toEqual([]);
    }, 120_000);
  }
});
