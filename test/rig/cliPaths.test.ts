/**
 * `bitrig rig` paths, spellings and summary lines from the newcomer review (review 26):
 * L11 a report or output path that is a folder is refused before the pass runs (the GLB was
 * written, then the report failed; `-o <folder>` failed only after the whole pass), reading a
 * folder says "(it is a folder)" in every command; L12 `--out`/`--output`/`-o` in both rig and
 * bake, a non-.glb output refused as bake does, a .gltf JSON input named as one with how to
 * convert it; L13 "rigid on Hips on Hips", and "[100%] done" printed before "encode".
 * Runs `main()` in-process; everything is written into a temp folder.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterToGlb } from '../../rig/characterDocument';

const dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-cli-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const f = (name: string): string => path.join(dir, name);

const run = runCli;

beforeAll(async () => {
  writeFileSync(f('shin.glb'), await characterToGlb(createBuiltinCharacter({ variant: 'shin' })));
  mkdirSync(f('adir'));
  mkdirSync(f('folder.glb'));
  writeFileSync(f('model.gltf'), '{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}]}');
});

describe('bitrig rig: output and report paths are checked before the pass (L11)', () => {
  it('--report <folder>: exit 2, one line "(it is a folder)", no progress, and the GLB is NOT written', async () => {
    const out = f('never-1.glb');
    const r = await run(['rig', f('shin.glb'), '-o', out, '--report', f('adir')]);
    expect(r.code).toBe(2);
    expect(r.err).toEqual([`bitrig rig: cannot write the report ${f('adir')} (it is a folder)`]);
    expect(r.out).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it('-o <folder>: exit 2 with one line and no progress lines (the pass never ran)', async () => {
    for (const o of [f('adir'), f('folder.glb')]) {
      const r = await run(['rig', f('shin.glb'), '-o', o]);
      expect(r.code).toBe(2);
      expect(r.err).toEqual([`bitrig rig: cannot write ${o} (it is a folder)`]);
    }
  });

  it('an input that is a folder: "(it is a folder)" in rig, measure and bake alike', async () => {
    const rig = await run(['rig', f('adir'), '-o', f('x.glb')]);
    const measure = await run(['measure', f('adir'), '--clip', 'walk']);
    const bake = await run(['bake', f('adir'), '-o', f('x.glb')]);
    expect(rig.err).toEqual([`bitrig rig: cannot read ${f('adir')} (it is a folder)`]);
    expect(measure.err).toEqual([`bitrig measure: cannot read ${f('adir')} (it is a folder)`]);
    expect(bake.err).toEqual([`bitrig bake: cannot read ${f('adir')} (it is a folder)`]);
    for (const r of [rig, measure, bake]) expect(r.code).toBe(2);
    const missing = await run(['measure', f('nope.glb'), '--clip', 'walk']);
    expect(missing.err).toEqual([`bitrig measure: cannot read ${f('nope.glb')} (no such file)`]);
  });
});

describe('bitrig rig: spellings, .glb only, .gltf input (L12)', () => {
  it('-o, --out and --output (also --out=…) all name the output; two of them are refused', async () => {
    for (const [flag, name] of [['-o', 'a.glb'], ['--out', 'b.glb'], ['--output', 'c.glb'], ['--out=', 'd.glb']] as const) {
      const args = flag.endsWith('=') ? [`${flag}${f(name)}`] : [flag, f(name)];
      const r = await run(['rig', f('shin.glb'), ...args, '-q']);
      expect(r.code, flag).toBe(0);
      expect(readFileSync(f(name)).subarray(0, 4).toString(), flag).toBe('glTF');
    }
    const both = await run(['rig', f('shin.glb'), '-o', f('e.glb'), '--out', f('e2.glb')]);
    expect(both.code).toBe(2);
    expect(both.err[0]).toBe(`bitrig rig: -o and --out are the same option; give it once`);
    const help = (await run(['rig', '--help'])).out.join('\n');
    expect(help).toMatch(/-o, --out, --output <file\.glb>/);
  });

  it('-o x.gltf (or any non-.glb name) is refused as bake refuses it, before the pass, nothing written; .GLB is fine', async () => {
    for (const name of ['y.gltf', 'y.txt']) {
      const r = await run(['rig', f('shin.glb'), '-o', f(name)]);
      expect(r.code).toBe(2);
      expect(r.err).toHaveLength(1);
      expect(r.err[0]).toMatch(new RegExp(`^bitrig rig: the output must be a \\.glb file, got .*${name.replace('.', '\\.')}`));
      expect(existsSync(f(name))).toBe(false);
    }
    const gltf = (await run(['rig', f('shin.glb'), '-o', f('y.gltf')])).err[0]!;
    expect(gltf).toMatch(/\(bitrig writes binary glTF; name it \.glb\)$/);
    const bake = (await run(['bake', f('shin.glb'), '-o', f('y.gltf')])).err[0]!;
    expect(bake.replace(/^bitrig bake: /, '')).toBe(gltf.replace(/^bitrig rig: /, ''));
    expect((await run(['rig', f('shin.glb'), '-o', f('UPPER.GLB'), '-q'])).code).toBe(0);
  });

  it('a .gltf JSON input: "it is a glTF JSON file (.gltf)" and how to convert it', async () => {
    for (const cmd of [['rig', f('model.gltf'), '-o', f('m.glb'), '-q'], ['measure', f('model.gltf'), '--clip', 'walk'], ['bake', f('model.gltf'), '-o', f('m.glb')]]) {
      const r = await run(cmd);
      expect(r.code, cmd[0]).toBe(2);
      expect(r.err, cmd[0]).toHaveLength(1);
      expect(r.err[0]).toMatch(/not a GLB file: it starts with "\{", so it is a glTF JSON file \(\.gltf\); convert it to a binary GLB first, e\.g\. npx @gltf-transform\/cli copy in\.gltf out\.glb/);
    }
  });
});

describe('bitrig rig: summary and progress lines (L13)', () => {
  it('--mode rigid: "tail rigid on Hips: …", never "rigid on Hips on Hips"', async () => {
    const r = await run(['rig', f('shin.glb'), '-o', f('rigid.glb'), '--mode', 'rigid', '-q']);
    expect(r.code).toBe(0);
    const text = r.out.join('\n');
    expect(text).toMatch(/^ {2}tail rigid on Hips: \d+ vertices re-weighted/m);
    expect(text).not.toMatch(/rigid on (\S+) on \1/);
    const worn = await run(['rig', f('shin.glb'), '-o', f('worn.glb'), '--include', 'torso', '-q']);
    expect(worn.out.join('\n')).toMatch(/^ {2}worn piece rigid on Spine: \d+ vertices re-weighted/m);
    expect(worn.out.join('\n')).not.toMatch(/rigid on (\S+) on \1/);
  });

  it('progress: percentages never go back and "[100%] done" is the last line, after encode and save', async () => {
    const r = await run(['rig', f('shin.glb'), '-o', f('progress.glb')]);
    expect(r.code).toBe(0);
    const steps = r.err.map((l) => /^bitrig rig: \[ *(\d+)%\] (\w+) \(/.exec(l)).map((m) => [Number(m![1]), m![2]!] as const);
    for (let i = 1; i < steps.length; i++) expect(steps[i]![0], `${steps[i - 1]![1]} → ${steps[i]![1]}`).toBeGreaterThanOrEqual(steps[i - 1]![0]);
    expect(steps.slice(-3).map((s) => s[1])).toEqual(['encode', 'save', 'done']);
    expect(steps[steps.length - 1]![0]).toBe(100);
    expect(steps.filter((s) => s[0] === 100).map((s) => s[1])).toEqual(['done']);
  });

  it('a model that already has a tail chain: "already has a tail chain … (N bones): nothing to grow", not "no tail found" (M5)', async () => {
    const first = await run(['rig', f('shin.glb'), '-o', f('once.glb'), '-q']);
    expect(first.code).toBe(0);
    const again = await run(['rig', f('once.glb'), '-o', f('twice.glb'), '-q']);
    expect(again.code).toBe(0);
    const text = again.out.join('\n');
    expect(text).toMatch(/already has a tail chain Tail_1…Tail_(\d) \+ Tail_End \(\1 bones\) on Hips: nothing to grow; its skin is left as it is/);
    expect(text).not.toMatch(/no tail found/);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
