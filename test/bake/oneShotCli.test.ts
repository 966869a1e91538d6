/**
 * `bitrig bake --clip-mode`: a mode for every clip (auto, loop, once), Clip=mode pairs, or
 * both; bad values are usage errors (exit 2, one line); the text report says how each clip
 * was baked and why; --json carries the report's mode fields; the help documents the flag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { parseClipModeFlag } from '../../cli/bake';
import { writeGlbBytes } from '../../rig/glb';
import { makeCritter } from './fixtures';
import { addDropClip, addFallClip } from './oneShotFixtures';

let dir = '';
const file = (name: string): string => path.join(dir, name);

const run = runCli;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-bake-oneshot-'));
  const c = makeCritter({ variant: 'chain' });
  addFallClip(c.doc);
  writeFileSync(file('fall.glb'), await writeGlbBytes(c.doc));
  const d = makeCritter({ variant: 'chain' });
  addDropClip(d.doc);
  writeFileSync(file('drop.glb'), await writeGlbBytes(d.doc));
});
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe('parseClipModeFlag', () => {
  it('a mode for every clip, Clip=mode pairs, or both (spaces around items are dropped)', () => {
    expect(parseClipModeFlag('once')).toEqual({ clipMode: 'once', clipModes: {} });
    expect(parseClipModeFlag('Death=once')).toEqual({ clipMode: undefined, clipModes: { Death: 'once' } });
    expect(parseClipModeFlag('loop, Death = once ,Jump_ToIdle=auto')).toEqual({ clipMode: 'loop', clipModes: { Death: 'once', Jump_ToIdle: 'auto' } });
    expect(parseClipModeFlag('a=b=once')).toEqual({ clipMode: undefined, clipModes: { 'a=b': 'once' } }); // the mode follows the last '='
  });

  it('bad values name the problem', () => {
    expect(() => parseClipModeFlag('')).toThrow('--clip-mode needs a mode (auto, loop, once) or Clip=mode pairs');
    expect(() => parseClipModeFlag(' , ')).toThrow('--clip-mode needs a mode (auto, loop, once) or Clip=mode pairs');
    expect(() => parseClipModeFlag('sometimes')).toThrow('--clip-mode must be auto, loop or once (or Clip=mode pairs), got "sometimes"');
    expect(() => parseClipModeFlag('Loop')).toThrow('--clip-mode must be auto, loop or once (or Clip=mode pairs), got "Loop"');
    expect(() => parseClipModeFlag('Death=maybe')).toThrow('--clip-mode: "maybe" is not a mode for clip "Death" (auto, loop, once)');
    expect(() => parseClipModeFlag('=once')).toThrow('--clip-mode: "=once" names no clip (Clip=mode)');
    expect(() => parseClipModeFlag('once,loop')).toThrow('--clip-mode: give at most one mode for every clip (then Clip=mode pairs)');
    expect(() => parseClipModeFlag('Death=once,Death=loop')).toThrow('--clip-mode: clip "Death" is given twice');
  });
});

describe('bitrig bake --clip-mode', () => {
  it('default (auto): the fall is baked once and says why; walk stays a loop with its seam', async () => {
    const r = await run(['bake', file('fall.glb'), '-o', file('auto.glb'), '--clips', 'walk,fall']);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^walk: 31 keys × 4 bones, warm-up \d+ cycle\(s\), loop seam ≤ 0\.\d{3}°, largest key step [\d.]+°, root swing [\d.]+°, loop \(auto: last pose vs first 0\.0° at \S+, 0\.0 % of the height at Hips\)$/);
    expect(r.out[1]).toMatch(/^fall: 31 keys × 4 bones, settled on the first pose in \d+\.0 s, recorded once, largest key step [\d.]+°, tail [\d.]+° from settled at the end, root swing [\d.]+°, one-shot \(auto: last pose vs first 80\.0° at LeftLeg, 3\d\.\d % of the height at Hips, root motion 6\.8 % of the height\)$/); // the hips end 0.1 m aside
    expect(r.out[1]).not.toMatch(/seam/);
    expect(r.out[r.out.length - 1]).toBe(`wrote ${file('auto.glb')}`);
  });

  it('forced: --clip-mode loop bakes the fall as a loop; --clip-mode loop,fall=auto keeps the fall once', async () => {
    const l = await run(['bake', file('fall.glb'), '-o', file('loop.glb'), '--clips', 'fall', '--clip-mode', 'loop']);
    expect(l.code).toBe(0);
    expect(l.out[0]).toMatch(/^fall: 31 keys × 4 bones, warm-up \d+ cycle\(s\), loop seam ≤ [\d.]+°, largest key step [\d.]+°, root swing [\d.]+°, root motion 0\.100 units a cycle \(carried\), loop \(forced: last pose vs first 80\.0° at LeftLeg/);
    const m = await run(['bake', file('fall.glb'), '-o', file('mixed.glb'), '--clip-mode=loop,fall=auto', '--json']);
    expect(m.code).toBe(0);
    const j = JSON.parse(m.out.join('\n'));
    expect(j.clips.map((c: { clip: string; mode: string; modeSource: string }) => [c.clip, c.mode, c.modeSource])).toEqual([
      ['walk', 'loop', 'option'], ['crouch', 'loop', 'option'], ['fall', 'once', 'auto'],
    ]);
    const fall = j.clips[2];
    expect(fall.seamJumpDeg).toEqual([]);
    expect(Object.keys(fall.endPose)).toEqual(['mode', 'rotationDeg', 'rotationJoint', 'translation', 'translationJoint', 'scale', 'scaleJoint', 'rootMotionWs', 'rootMotion']);
    expect(fall.endPose.rotationJoint).toBe('LeftLeg');
    expect(fall.warmupSeconds).toBeGreaterThan(0);
  });

  it('bad values: exit 2 with one line, nothing written', async () => {
    const bad = await run(['bake', file('fall.glb'), '-o', file('bad.glb'), '--clip-mode', 'sometimes']);
    expect(bad.code).toBe(2);
    expect(bad.err).toEqual(['bitrig bake: --clip-mode must be auto, loop or once (or Clip=mode pairs), got "sometimes"']);
    const pair = await run(['bake', file('fall.glb'), '-o', file('bad.glb'), '--clip-mode', 'fall=maybe']);
    expect(pair.code).toBe(2);
    expect(pair.err).toEqual(['bitrig bake: --clip-mode: "maybe" is not a mode for clip "fall" (auto, loop, once)']);
    const unknown = await run(['bake', file('fall.glb'), '-o', file('bad.glb'), '--clip-mode', 'Fall=once']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toEqual(['bitrig bake: a clip mode is given for clip "Fall", which the file does not have; clips: walk, crouch, fall']);
    const empty = await run(['bake', file('fall.glb'), '-o', file('bad.glb'), '--clip-mode']);
    expect(empty.code).toBe(2);
    expect(empty.err).toEqual(['bitrig bake: --clip-mode needs a value (see bitrig bake --help)']);
    expect(readdirSync(dir)).not.toContain('bad.glb');
  });

  it('the help documents --clip-mode', async () => {
    const r = await run(['bake', '--help']);
    const text = r.out.join('\n');
    expect(text).toMatch(/\[--clip-mode auto\|loop\|once\|Clip=mode,\.\.\.\]/);
    expect(text).toMatch(/--clip-mode <mode>\s+loop, once, or auto \(default\) for every clip; Clip=mode,\.\.\. per clip/);
    expect(text).toMatch(/more than 10°\s+\(a rotation\), 2 % of the height \(a translation\) or 2 % \(a scale\)/);
    expect(text).toMatch(/may repeat: the pairs merge/);
    expect(text).toMatch(/tail N° from settled at the end/);
  });

  it('--clip-mode may repeat: the pairs merge (Death=loop then Walk=once both apply); a clip named twice, or not among --clips, is refused', async () => {
    const m = await run(['bake', file('fall.glb'), '-o', file('rep.glb'), '--clip-mode', 'walk=once', '--clip-mode', 'fall=loop', '--json']);
    expect(m.code).toBe(0);
    const j = JSON.parse(m.out.join('\n'));
    expect(j.clips.map((c: { clip: string; mode: string; modeSource: string }) => [c.clip, c.mode, c.modeSource])).toEqual([
      ['walk', 'once', 'option'], ['crouch', 'loop', 'auto'], ['fall', 'loop', 'option'],
    ]);
    const dup = await run(['bake', file('fall.glb'), '-o', file('bad.glb'), '--clip-mode', 'fall=loop', '--clip-mode', 'fall=once']);
    expect(dup.code).toBe(2);
    expect(dup.err).toEqual(['bitrig bake: --clip-mode: clip "fall" is given twice']);
    const notBaked = await run(['bake', file('fall.glb'), '-o', file('bad.glb'), '--clips', 'walk', '--clip-mode', 'fall=loop']);
    expect(notBaked.code).toBe(2);
    expect(notBaked.err).toEqual(['bitrig bake: a clip mode is given for clip "fall", which is not among the clips being baked (walk); add it to clips or drop its mode']);
    const twice = await run(['bake', file('fall.glb'), '-o', file('bad.glb'), '--fps', '30', '--fps', '60']);
    expect(twice.code).toBe(2);
    expect(twice.err[0]).toBe('bitrig bake: --fps is given twice; give it once');
    expect(readdirSync(dir)).not.toContain('bad.glb');
  });

  it('a one-shot that stops mid-swing gets a hint (the clip is not lengthened)', async () => {
    const r = await run(['bake', file('drop.glb'), '-o', file('drop-baked.glb'), '--clips', 'drop']);
    expect(r.code).toBe(0);
    const m = /tail ([\d.]+)° from settled at the end/.exec(r.out[0]!);
    expect(Number(m![1])).toBeGreaterThan(2);
    expect(r.out[1]).toMatch(/^ {2}hint: drop stops while its tail still swings \([\d.]+° from where it would settle\); .*hold the end pose longer in the source clip/);
    const quiet = await run(['bake', file('fall.glb'), '-o', file('fall-walk.glb'), '--clips', 'walk']);
    expect(quiet.out.some((l) => /hint/.test(l))).toBe(false);
  });
});
