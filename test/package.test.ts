/**
 * The published package (built once by test/package/buildOnce.ts): ESM + CJS + .d.ts for every entry point,
 * each loads in Node, the `bitrig` bin runs, and the tarball holds no test assets.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { repoRoot } from './helpers/loadThree';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  exports: Record<string, { import: { types: string; default: string }; require: { types: string; default: string } } | string>;
  bin: Record<string, string>;
};
const entries = Object.entries(pkg.exports).filter(([k]) => k !== './package.json') as [string, { import: { types: string; default: string }; require: { types: string; default: string } }][];

describe('package build', () => {
  test('every export has ESM, CJS and both .d.ts files', () => {
    for (const [, e] of entries) {
      for (const f of [e.import.default, e.import.types, e.require.default, e.require.types]) {
        expect(existsSync(path.join(repoRoot, f)), f).toBe(true);
      }
    }
  });

  test('each entry loads as ESM and as CJS with the same export names', async () => {
    const require = createRequire(path.join(repoRoot, 'package.json'));
    for (const [name, e] of entries) {
      const esm = (await import(pathToFileURL(path.join(repoRoot, e.import.default)).href)) as Record<string, unknown>;
      const cjs = require(path.join(repoRoot, e.require.default)) as Record<string, unknown>;
      const a = Object.keys(esm).filter((k) => k !== 'default').sort();
      const b = Object.keys(cjs).filter((k) => k !== 'default' && k !== '__esModule').sort();
      expect(a.length, name).toBeGreaterThan(0);
      expect(b, name).toEqual(a);
    }
    const main = (await import(pathToFileURL(path.join(repoRoot, 'dist/index.js')).href)) as Record<string, unknown>;
    for (const k of ['createBitrigWorld', 'bindSkeleton', 'update', 'TAIL_DEFAULTS', 'createBuiltinCharacter']) expect(typeof main[k], k).not.toBe('undefined');
    const three = (await import(pathToFileURL(path.join(repoRoot, 'dist/three.js')).href)) as Record<string, unknown>;
    expect(typeof three.createAnimator).toBe('function');
  });

  test('the core entry imports no engine', () => {
    for (const f of ['dist/index.js', 'dist/index.cjs']) {
      const src = readFileSync(path.join(repoRoot, f), 'utf8');
      expect(src).not.toMatch(/from ['"]three['"]|require\(['"]three['"]\)/);
      expect(src).not.toMatch(/@babylonjs/);
    }
  });

  test('without an engine installed (three and Babylon are optional peers) and with the production dependencies only (no native image library): the core and rig entries load as ESM and CJS, and the bitrig bin runs rig, bake and measure', () => {
    // dist copied into a project whose node_modules hold the dependencies but no engine
    const dir = mkdtempSync(path.join(tmpdir(), 'bitrig-noengine-'));
    try {
      const pkgDir = path.join(dir, 'node_modules', 'bitrig');
      mkdirSync(pkgDir, { recursive: true });
      cpSync(path.join(repoRoot, 'dist'), path.join(pkgDir, 'dist'), { recursive: true });
      cpSync(path.join(repoRoot, 'bin'), path.join(pkgDir, 'bin'), { recursive: true });
      copyFileSync(path.join(repoRoot, 'package.json'), path.join(pkgDir, 'package.json'));
      const deps = Object.keys((JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies);
      const need = new Set<string>();
      const walk = (name: string): void => {
        if (need.has(name)) return;
        need.add(name);
        const pj = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
        for (const d of Object.keys(pj.dependencies ?? {})) walk(d);
      };
      for (const d of deps) walk(d);
      expect(need.has('three') || [...need].some((n) => n.startsWith('@babylonjs/'))).toBe(false);
      // a lean install: no native image library (@gltf-transform/functions pulls sharp; the rig copies documents with core alone)
      expect([...need].filter((n) => n === 'sharp' || n.startsWith('@img/') || n === '@gltf-transform/functions')).toEqual([]);
      for (const name of need) {
        const to = path.join(dir, 'node_modules', name);
        mkdirSync(path.dirname(to), { recursive: true });
        symlinkSync(path.join(repoRoot, 'node_modules', name), to, 'dir');
      }
      const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 120_000 });
      for (const entry of ['bitrig', 'bitrig/rig']) {
        const esm = run(['--input-type=module', '-e', `const m = await import('${entry}'); if (Object.keys(m).length < 3) process.exit(3);`]);
        expect(esm.status, `${entry} (ESM): ${esm.stderr}`).toBe(0);
        const cjs = run(['-e', `const m = require('${entry}'); if (Object.keys(m).length < 3) process.exit(3);`]);
        expect(cjs.status, `${entry} (CJS): ${cjs.stderr}`).toBe(0);
      }
      const bin = path.join(pkgDir, pkg.bin.bitrig!.replace(/^\.\//, ''));
      const help = run([bin, '--help']);
      expect(help.status, help.stderr).toBe(0);
      // a real run of each tool on the built-in character (written by the bin's own library)
      const glb = path.join(dir, 'creature.glb');
      const make = run(['--input-type=module', '-e', `import { createBuiltinCharacter } from 'bitrig'; import { characterToGlb } from 'bitrig/rig'; import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(glb)}, await characterToGlb(createBuiltinCharacter({ variant: 'shin' })));`]);
      expect(make.status, make.stderr).toBe(0);
      const rig = run([bin, 'rig', glb, '-o', path.join(dir, 'rigged.glb'), '--quiet']);
      expect(rig.status, rig.stderr + rig.stdout).toBe(0);
      const bake = run([bin, 'bake', path.join(dir, 'rigged.glb'), '-o', path.join(dir, 'baked.glb')]);
      expect(bake.status, bake.stderr + bake.stdout).toBe(0);
      const measure = run([bin, 'measure', path.join(dir, 'rigged.glb'), '--clip', 'walk']);
      expect(measure.status, measure.stderr + measure.stdout).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  test('the typed entry points resolve for a TypeScript user under every module resolution (node10 through typesVersions, node16/nodenext, bundler), strict', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bitrig-types-'));
    try {
      const nm = path.join(dir, 'node_modules');
      mkdirSync(nm);
      symlinkSync(repoRoot, path.join(nm, 'bitrig'), 'dir');
      for (const name of readdirSync(path.join(repoRoot, 'node_modules'))) {
        if (name.startsWith('.')) continue;
        symlinkSync(path.join(repoRoot, 'node_modules', name), path.join(nm, name), 'dir');
      }
      writeFileSync(path.join(dir, 'use.ts'), [
        "import { createBitrigWorld, type SceneInputs } from 'bitrig';",
        "import { createAnimator, type AnimatorOptions, type PlaceOnGroundOptions, type GroundPlacementThree } from 'bitrig/three';",
        "import { createAnimator as createBabylonAnimator } from 'bitrig/babylon';",
        "import { rigGlb, type RigReport } from 'bitrig/rig';",
        'export const used = [createBitrigWorld, createAnimator, createBabylonAnimator, rigGlb];',
        'export type Used = [SceneInputs, AnimatorOptions, PlaceOnGroundOptions, GroundPlacementThree, RigReport];',
        '',
      ].join('\n'));
      const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
      for (const [module, resolution] of [['commonjs', 'node10'], ['nodenext', 'nodenext'], ['esnext', 'bundler']] as const) {
        const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', '--module', module, '--moduleResolution', resolution, '--target', 'es2022', '--types', 'node', 'use.ts'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
        expect(r.status, `${resolution}: ${r.stdout}${r.stderr}`).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  test('the bitrig bin starts and prints its help', () => {
    const bin = path.join(repoRoot, pkg.bin.bitrig!);
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    const out = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(out).toMatch(/rig/);
  });

  test('the bin runs the TypeScript sources when dist/ is absent (a clone right after npm install)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bitrig-clone-'));
    try {
      for (const d of ['bin', 'cli', 'core', 'systems', 'runtime', 'rig', 'adapters', 'wasm']) {
        if (existsSync(path.join(repoRoot, d))) cpSync(path.join(repoRoot, d), path.join(dir, d), { recursive: true });
      }
      copyFileSync(path.join(repoRoot, 'package.json'), path.join(dir, 'package.json'));
      symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      const r = spawnSync(process.execPath, [path.join(dir, 'bin', 'bitrig.mjs'), '--help'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/usage: bitrig/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test('installed from the npm pack tarball into an empty project: the entries load and npx bitrig --help exits 0', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bitrig-tarball-'));
    try {
      const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: repoRoot, encoding: 'utf8' });
      expect(pack.status, pack.stderr).toBe(0);
      const tgz = path.join(dir, (JSON.parse(pack.stdout) as [{ filename: string }])[0].filename);
      const app = path.join(dir, 'app');
      mkdirSync(app);
      writeFileSync(path.join(app, 'package.json'), '{ "name": "app", "private": true, "type": "module" }\n');
      // dist/ is the global setup's build (--ignore-scripts skips prepack's second build). The
      // dependencies come from the npm cache that npm ci filled.
      const inst = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tgz], { cwd: app, encoding: 'utf8', timeout: 180_000 });
      expect(inst.status, inst.stderr).toBe(0);
      const load = spawnSync(process.execPath, ['--input-type=module', '-e', "const m = await import('bitrig'); const r = await import('bitrig/rig'); if (!m.createBitrigWorld || !r.rigGlb) process.exit(3);"], { cwd: app, encoding: 'utf8' });
      expect(load.status, load.stderr).toBe(0);
      const help = spawnSync('npx', ['--no-install', 'bitrig', '--help'], { cwd: app, encoding: 'utf8' });
      expect(help.status, help.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  test('the tarball holds dist, README and LICENSE, and no test assets', () => {
    const r = spawnSync('npm', ['pack', '--ignore-scripts', '--dry-run', '--json'], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status).toBe(0);
    const files = (JSON.parse(r.stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files.some((f) => f.startsWith('dist/'))).toBe(true);
    expect(files.some((f) => f.endsWith('.glb'))).toBe(false);
    expect(files.some((f) => f.startsWith('test/') || f.startsWith('demo/'))).toBe(false);
  });
});
