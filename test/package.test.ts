/**
 * The published package: `npm run build` produces ESM + CJS + .d.ts for every entry point,
 * each loads in Node, the `bitrig` bin runs, and the tarball holds no test assets.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { repoRoot } from './helpers/loadThree';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  exports: Record<string, { import: { types: string; default: string }; require: { types: string; default: string } } | string>;
  bin: Record<string, string>;
};
const entries = Object.entries(pkg.exports).filter(([k]) => k !== './package.json') as [string, { import: { types: string; default: string }; require: { types: string; default: string } }][];

describe('package build', () => {
  beforeAll(() => {
    const r = spawnSync('npx', ['tsup', '--silent'], { cwd: repoRoot, encoding: 'utf8', timeout: 300_000 });
    if (r.status !== 0) throw new Error(`tsup failed:\n${r.stdout}\n${r.stderr}`);
  }, 320_000);

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

  test('the bitrig bin starts and prints its help', () => {
    const bin = path.join(repoRoot, pkg.bin.bitrig!);
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    const out = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(out).toMatch(/rig/);
  });

  test('the tarball holds dist, README and LICENSE, and no test assets', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status).toBe(0);
    const files = (JSON.parse(r.stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files.some((f) => f.startsWith('dist/'))).toBe(true);
    expect(files.some((f) => f.endsWith('.glb'))).toBe(false);
    expect(files.some((f) => f.startsWith('test/') || f.startsWith('demo/'))).toBe(false);
  });
});
