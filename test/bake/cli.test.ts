/**
 * `bitrig measure` and `bitrig bake` through the dispatcher, in-process: the seed's table and
 * the JSON shape, bad input (unknown clip with the clip list, no skin, no animations) as exit 2
 * with one line, and a bake that never writes over its input and leaves no temporary file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Document } from '@gltf-transform/core';
import { runCli } from '../helpers/cli';
import { writeGlbBytes, readGlbBytes } from '../../rig/glb';
import { characterToGlb } from '../../rig/characterDocument';
import { createBuiltinCharacter } from '../../core/character/index';
import { makeCritter } from './fixtures';

let dir = '';
const file = (name: string): string => path.join(dir, name);
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

const run = runCli;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-bake-cli-'));
  writeFileSync(file('shin.glb'), await characterToGlb(createBuiltinCharacter({ variant: 'shin' })));
  writeFileSync(file('critter.glb'), await writeGlbBytes(makeCritter({ variant: 'chain' }).doc));
  writeFileSync(file('critter-shin.glb'), await writeGlbBytes(makeCritter({ variant: 'shin' }).doc));
  const still = makeCritter({ variant: 'chain' }).doc;
  for (const a of still.getRoot().listAnimations()) a.dispose();
  writeFileSync(file('still.glb'), await writeGlbBytes(still));
  const plain = new Document();
  const buf = plain.createBuffer();
  const prim = plain.createPrimitive().setAttribute('POSITION', plain.createAccessor('', buf).setType('VEC3').setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0])));
  plain.createScene().addChild(plain.createNode('box').setMesh(plain.createMesh().addPrimitive(prim)));
  writeFileSync(file('plain.glb'), await writeGlbBytes(plain));
  writeFileSync(file('not.glb'), 'hello, not a glb');
});
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe('bitrig measure', () => {
  it('prints the seed\'s table: four rows, tail edge samples, bone distance, warm-up', async () => {
    const r = await run(['measure', file('shin.glb'), '--clip', 'sprint']);
    expect(r.code).toBe(0);
    const text = r.out.join('\n');
    expect(text).toMatch(/^sprint clip, [\d,]+ tail edge samples \(24 times\)/);
    for (const row of ['original rig', 'rigid to Hips', 'tail chain', 'body baseline']) expect(text).toContain(row);
    expect(text).toMatch(/p95\s+p99\s+max\s+torn/);
    expect(text).toMatch(/rigid to Hips\s+1\.00\s+1\.00\s+1\.00\s+0\.0 %/);
    expect(text).toMatch(/weighted bone distance on the tail: [\d.]+ → [\d.]+/);
  });

  it('--json has exactly the issue\'s shape, torn as a fraction', async () => {
    const r = await run(['measure', file('shin.glb'), '--clip', 'crouch', '--json', '--samples', '8']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out.join('\n'));
    expect(Object.keys(j)).toEqual(['clip', 'samples', 'tailEdgeSamples', 'rows', 'boneDistance']);
    expect(j.clip).toBe('crouch');
    expect(j.samples).toBe(8);
    expect(j.tailEdgeSamples % 8).toBe(0);
    expect(Object.keys(j.rows)).toEqual(['original', 'rigid', 'chain', 'body']);
    for (const k of ['original', 'rigid', 'chain', 'body']) {
      expect(Object.keys(j.rows[k])).toEqual(['p95', 'p99', 'max', 'torn']);
      expect(j.rows[k].torn).toBeGreaterThanOrEqual(0);
      expect(j.rows[k].torn).toBeLessThanOrEqual(1);
    }
    expect(j.rows.original.torn).toBeGreaterThan(0.01); // 25 % of the crouch's tail edges tear: a fraction, not a percent
    expect(Object.keys(j.boneDistance)).toEqual(['before', 'after']);
  });

  it('--grounding adds the Δy-of-hips comparison', async () => {
    const r = await run(['measure', file('critter.glb'), '--clip', 'crouch', '--grounding', '--samples', '6']);
    expect(r.code).toBe(0);
    expect(r.out.join('\n')).toMatch(/grounding \(Hips, \d+ support samples, \d+ on the tail\)/);
    expect(r.out.join('\n')).toMatch(/largest extra lift from the tail: /);
  });

  it('unknown clip: exit 2, one line listing the clips', async () => {
    const r = await run(['measure', file('shin.glb'), '--clip', 'Run']);
    expect(r.code).toBe(2);
    expect(r.err).toEqual(['bitrig measure: unknown clip "Run"; clips: walk, sprint, crouch, hipSweep']);
    expect(r.out).toEqual([]);
  });

  it('no skin, no animations, not a GLB, missing file, missing --clip: exit 2 with a reason', async () => {
    const noSkin = await run(['measure', file('plain.glb'), '--clip', 'walk']);
    expect(noSkin.code).toBe(2);
    expect(noSkin.err).toEqual(['bitrig measure: the file has no skin']);
    const noAnim = await run(['measure', file('still.glb'), '--clip', 'walk']);
    expect(noAnim.code).toBe(2);
    expect(noAnim.err).toEqual(['bitrig measure: the file has no animations']);
    const notGlb = await run(['measure', file('not.glb'), '--clip', 'walk']);
    expect(notGlb.code).toBe(2);
    expect(notGlb.err[0]).toMatch(/^bitrig measure: not a GLB file/);
    const missing = await run(['measure', file('nope.glb'), '--clip', 'walk']);
    expect(missing.code).toBe(2);
    expect(missing.err[0]).toMatch(/^bitrig measure: cannot read .*nope\.glb \(no such file\)$/);
    const noClip = await run(['measure', file('shin.glb')]);
    expect(noClip.code).toBe(2);
    expect(noClip.err).toEqual(['bitrig measure: --clip <name> is required (see bitrig measure --help)']);
  });
});

describe('bitrig bake', () => {
  it('bakes the chosen clips into a new file; the input is untouched; no temporary file remains', async () => {
    const before = sha(file('critter.glb'));
    const r = await run(['bake', file('critter.glb'), '-o', file('baked.glb'), '--clips', 'walk', '--fps', '30']);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^walk: 31 keys × 4 bones, warm-up \d+ cycle\(s\), loop seam ≤ 0\.\d{3}°/);
    expect(sha(file('critter.glb'))).toBe(before);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const doc = await readGlbBytes(new Uint8Array(readFileSync(file('baked.glb'))));
    const tracks = (clip: string): string[] => doc.getRoot().listAnimations().find((a) => a.getName() === clip)!.listChannels()
      .map((c) => c.getTargetNode()!.getName()).filter((n) => n.startsWith('Tail_')).sort();
    expect(tracks('walk')).toEqual(['Tail_1', 'Tail_2', 'Tail_3', 'Tail_4']);
    expect(tracks('crouch')).toEqual([]); // not chosen
  });

  it('refuses to write over its input (exit 2, file unchanged)', async () => {
    const before = sha(file('critter.glb'));
    const r = await run(['bake', file('critter.glb'), '-o', path.join(dir, '.', 'critter.glb')]);
    expect(r.code).toBe(2);
    expect(r.err[0]).toMatch(/^bitrig bake: refusing to write over the input file/);
    expect(sha(file('critter.glb'))).toBe(before);
  });

  it('an output folder that does not exist: exit 2 naming it, before any simulation (no progress reported), nothing written', async () => {
    const r = await run(['bake', file('critter.glb'), '-o', path.join(dir, 'no-such-folder', 'baked.glb'), '--progress']);
    expect(r.code).toBe(2);
    expect(r.err.join('\n')).toMatch(/cannot write .*baked\.glb \(its folder .*no-such-folder does not exist\)/);
    expect(r.err.join('\n')).not.toMatch(/warm-up/);
    expect(existsSync(path.join(dir, 'no-such-folder'))).toBe(false);
  });

  it('an output that is a folder (even one named x.glb): exit 2 "(it is a folder)" before any simulation (review 26 L11)', async () => {
    mkdirSync(file('folder.glb'));
    const r = await run(['bake', file('critter.glb'), '-o', file('folder.glb'), '--progress']);
    expect(r.code).toBe(2);
    expect(r.err).toEqual([`bitrig bake: cannot write ${file('folder.glb')} (it is a folder)`]);
  });

  it('-o, --out and --output all name the output (as in bitrig rig); two of them are refused (review 26 L12)', async () => {
    const r = await run(['bake', file('critter.glb'), '--output', file('baked-output.glb'), '--clips', 'walk', '--fps', '10']);
    expect(r.code).toBe(0);
    expect(readFileSync(file('baked-output.glb')).subarray(0, 4).toString()).toBe('glTF');
    const both = await run(['bake', file('critter.glb'), '-o', file('b1.glb'), '--output', file('b2.glb')]);
    expect(both.code).toBe(2);
    expect(both.err[0]).toBe('bitrig bake: -o and --output are the same option; give it once');
    expect((await run(['bake', '--help'])).out.join('\n')).toMatch(/-o, --out, --output <file\.glb>/);
  });

  it('bad input: unknown clip lists the clips; no tail bones names the rig pass; no animations; no skin', async () => {
    const u = await run(['bake', file('critter.glb'), '-o', file('x.glb'), '--clips', 'walk,Run']);
    expect(u.code).toBe(2);
    expect(u.err).toEqual(['bitrig bake: unknown clip "Run"; clips: walk, crouch']);
    const s = await run(['bake', file('critter-shin.glb'), '-o', file('x.glb')]);
    expect(s.code).toBe(2);
    expect(s.err[0]).toMatch(/no Tail_\* chain to simulate; run the rig pass first/);
    const a = await run(['bake', file('still.glb'), '-o', file('x.glb')]);
    expect(a.code).toBe(2);
    expect(a.err).toEqual(['bitrig bake: the file has no animations']);
    const k = await run(['bake', file('plain.glb'), '-o', file('x.glb')]);
    expect(k.code).toBe(2);
    expect(k.err).toEqual(['bitrig bake: the file has no skin']);
    expect(readdirSync(dir)).not.toContain('x.glb');
  });

  it('--progress reports progress on stderr; --json prints the report', async () => {
    const r = await run(['bake', file('critter.glb'), '-o', file('baked2.glb'), '--progress', '--json']);
    expect(r.code).toBe(0);
    expect(r.err.some((l) => /^bake: walk: warm-up cycle \d+ \d+ %$/.test(l))).toBe(true);
    const j = JSON.parse(r.out.join('\n'));
    expect(j.clips.map((c: { clip: string }) => c.clip)).toEqual(['walk', 'crouch']);
    expect(j.warnings).toEqual([]);
  });

  it('is listed by bitrig --help', async () => {
    const r = await run(['--help']);
    expect(r.out.join('\n')).toMatch(/measure\s+edge stretch/);
    expect(r.out.join('\n')).toMatch(/bake\s+bake the runtime tail motion/);
  });
});
