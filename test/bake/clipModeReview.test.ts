/**
 * Loop or one-shot, as the simulation feels it (rig/bake.ts, review 34): detection counts keyed
 * tail bones, scale and the nodes above the skeleton; root motion is a loop whose displacement
 * is carried across warm-up cycles; one-shots settle in fixed 1 s windows and report how far
 * the tail is from settled at the end; short clips compare ≥ 1 s apart and step at 1/60 s;
 * clip-mode settings are never dropped silently.
 *
 * Every clip is built in code on the tiny critter (test/bake/fixtures.ts). A "pop" is the
 * largest rotation between two neighbouring keys of a tail track (`maxStepDeg`); the critter's
 * in-place walk baked as a loop steps at most 3.7° a key (30 fps), so the bounds below are
 * stated against that.
 */
import { describe, expect, it } from 'vitest';
import { quat } from 'gl-matrix';
import type { Document } from '@gltf-transform/core';
import { bakeTails, captureBakeCalibration, detectClipMode, mergeBakeOptions, simulateTailCycle } from '../../rig/bake';
import { formatMeasureTable, type MeasureReport } from '../../rig/measure';
import { parseArgs } from '../../cli/measure';
import { makeCritter } from './fixtures';
import { addDropClip, addFallClip, addHoldClip, tailKeyAngles } from './oneShotFixtures';

type Path = 'translation' | 'rotation' | 'scale';
/** Add a LINEAR clip `name` with keys at `times` and one channel per track. */
function addClip(doc: Document, name: string, times: number[], tracks: { node: string; path: Path; f: (t: number) => number[] }[]): void {
  const root = doc.getRoot();
  const buffer = root.listBuffers()[0]!;
  const anim = doc.createAnimation(name);
  const input = doc.createAccessor(`${name}_t`, buffer).setType('SCALAR').setArray(new Float32Array(times));
  for (const tr of tracks) {
    const vals: number[] = [];
    for (const t of times) vals.push(...tr.f(t));
    const out = doc.createAccessor(`${name}_${tr.node}_${tr.path}`, buffer).setType(tr.path === 'rotation' ? 'VEC4' : 'VEC3').setArray(new Float32Array(vals));
    const s = doc.createAnimationSampler().setInput(input).setOutput(out).setInterpolation('LINEAR');
    anim.addSampler(s);
    anim.addChannel(doc.createAnimationChannel().setSampler(s).setTargetNode(root.listNodes().find((n) => n.getName() === tr.node)!).setTargetPath(tr.path));
  }
}
const rot = (ax: [number, number, number], deg: number): number[] => Array.from(quat.setAxisAngle(quat.create(), ax, (deg * Math.PI) / 180));
const ease = (t: number): number => t * t * (3 - 2 * t);
const keys = (n: number, D: number): number[] => Array.from({ length: n }, (_, i) => (i * D) / (n - 1));
const TAU = 2 * Math.PI;
const maxOf = (a: ArrayLike<number>): number => Math.max(0, ...Array.from(a));

describe('detection feels what the simulation feels', () => {
  it('a tail-only one-shot (the tail tucks 50°/30° and stays) is once; its once bake steps ≤ 4°, replayed as a loop it popped 18°', () => {
    const c = makeCritter({ variant: 'chain' });
    addClip(c.doc, 'tuck', keys(25, 1), [
      { node: 'Tail_1', path: 'rotation', f: (t) => rot([1, 0, 0], -50 * ease(t)) },
      { node: 'Tail_2', path: 'rotation', f: (t) => rot([1, 0, 0], -30 * ease(t)) },
    ]);
    const calib = captureBakeCalibration(c.doc);
    const e = detectClipMode(calib, 'tuck');
    expect(e.mode).toBe('once'); // was 'loop' (tail bones excluded)
    expect(e.rotationJoint).toBe('Tail_1');
    expect(e.rotationDeg).toBeCloseTo(50, 3);
    const loop = simulateTailCycle(calib, 'tuck', 30, {}, 'loop'); // (before the bake replaces the tail keys)
    expect(maxOf(loop.maxStepDeg)).toBeGreaterThan(15); // the pop the auto mode used to bake: 18.2°
    const r = bakeTails(c.doc, { clips: ['tuck'] }).clips[0]!;
    expect(r.mode).toBe('once');
    expect(maxOf(r.maxStepDeg)).toBeLessThan(4); // measured 2.5°
  });

  it('scale is compared (relative, endPoseScaleTolerance 2 %): hips shrinking to 0.3 is once (its loop bake popped 37°); 1.5 % stays a loop', () => {
    const c = makeCritter({ variant: 'chain' });
    addClip(c.doc, 'shrink', keys(25, 1), [{ node: 'Hips', path: 'scale', f: (t) => { const s = 1 - 0.7 * ease(t); return [s, s, s]; } }]);
    addClip(c.doc, 'breathe', keys(25, 1), [{ node: 'Hips', path: 'scale', f: (t) => [1, 1 + 0.015 * t, 1] }]);
    const calib = captureBakeCalibration(c.doc);
    const e = detectClipMode(calib, 'shrink');
    expect(e.mode).toBe('once');
    expect(e.scaleJoint).toBe('Hips');
    expect(e.scale).toBeCloseTo(0.7, 5);
    const b = detectClipMode(calib, 'breathe');
    expect(b.mode).toBe('loop');
    expect(b.scale).toBeCloseTo(0.015, 5);
    expect(detectClipMode(calib, 'breathe', { endPoseScaleTolerance: 0.01 }).mode).toBe('once');
    expect(() => detectClipMode(calib, 'breathe', { endPoseScaleTolerance: -0.1 })).toThrow(/^bitrig\/bake: endPoseScaleTolerance must be a relative scale difference ≥ 0/);
    const r = bakeTails(c.doc, { clips: ['shrink'] }).clips[0]!;
    expect(r.mode).toBe('once');
    expect(maxOf(r.maxStepDeg)).toBeLessThan(2); // measured 0.25°
    expect(maxOf(simulateTailCycle(calib, 'shrink', 30, {}, 'loop').maxStepDeg)).toBeGreaterThan(30); // 37.3°
  });

  it('a node above the skeleton counts: the Armature tipping over 80° is once (its loop bake popped 58°)', () => {
    const c = makeCritter({ variant: 'chain' });
    addClip(c.doc, 'tipover', keys(25, 1), [{ node: 'Armature', path: 'rotation', f: (t) => rot([0, 0, 1], 80 * ease(t)) }]);
    const calib = captureBakeCalibration(c.doc);
    const e = detectClipMode(calib, 'tipover');
    expect(e.mode).toBe('once');
    expect(e.rotationJoint).toBe('Armature');
    expect(e.rotationDeg).toBeCloseTo(80, 3);
    const r = bakeTails(c.doc, { clips: ['tipover'] }).clips[0]!;
    expect(r.mode).toBe('once');
    expect(maxOf(r.maxStepDeg)).toBeLessThan(6); // measured 4.0°
  });
});

describe('root motion: a loop, its displacement carried across warm-up cycles', () => {
  const rmwalk = (doc: Document): void => addClip(doc, 'rmwalk', keys(25, 1), [
    { node: 'Hips', path: 'translation', f: (t) => [0.03 * Math.sin(TAU * t), 1.0 + 0.03 * Math.sin(2 * TAU * t), 1.2 * t] },
    { node: 'Hips', path: 'rotation', f: (t) => rot([0, 1, 0], 14 * Math.sin(TAU * t)) },
    { node: 'LeftUpLeg', path: 'rotation', f: (t) => rot([1, 0, 0], -30 * Math.sin(TAU * t)) },
    { node: 'RightUpLeg', path: 'rotation', f: (t) => rot([1, 0, 0], 30 * Math.sin(TAU * t)) },
  ]);

  it('a walk moving 1.2 m forward a cycle is a loop with root motion (0, 0, 1.2); baked, seam < 0.5° and no key step over 4° (forced loop used to pop 37.9°)', () => {
    const c = makeCritter({ variant: 'chain' });
    rmwalk(c.doc);
    const calib = captureBakeCalibration(c.doc);
    const e = detectClipMode(calib, 'rmwalk');
    expect(e.mode).toBe('loop'); // was 'once' (translation 81 % of the height)
    expect(e.translation).toBeLessThan(1e-6);
    expect(e.rootMotionWs[0]).toBeCloseTo(0, 6);
    expect(e.rootMotionWs[1]).toBe(0);
    expect(e.rootMotionWs[2]).toBeCloseTo(1.2, 6);
    expect(e.rootMotion).toBeCloseTo(1.2 / 1.48, 2); // critter height 1.48
    for (const opt of [{}, { clipMode: 'loop' as const }]) {
      const d = makeCritter({ variant: 'chain' });
      rmwalk(d.doc);
      const r = bakeTails(d.doc, { clips: ['rmwalk'], ...opt }).clips[0]!;
      expect(r.mode).toBe('loop');
      expect(r.converged).toBe(true);
      expect(r.rootMotionWs![2]).toBeCloseTo(1.2, 6);
      expect(maxOf(r.seamJumpDeg)).toBeLessThan(0.5);
      expect(maxOf(r.maxStepDeg)).toBeLessThan(4); // measured 2.5°; the in-place walk steps 3.7°
    }
  });

  it('vertical displacement is not root motion: a clip whose hips end 0.3 m higher stays a one-shot', () => {
    const c = makeCritter({ variant: 'chain' });
    addClip(c.doc, 'climb', keys(25, 1), [{ node: 'Hips', path: 'translation', f: (t) => [0, 1 + 0.3 * t, 1.2 * t] }]);
    const e = detectClipMode(captureBakeCalibration(c.doc), 'climb');
    expect(e.mode).toBe('once');
    expect(e.translation).toBeCloseTo(0.3 / 1.48, 2);
  });

  it('the Armature sliding 1.2 m is root motion above the skeleton: a loop that the tail rides without a pop (was 36.2°)', () => {
    const c = makeCritter({ variant: 'chain' });
    addClip(c.doc, 'armslide', keys(25, 1), [{ node: 'Armature', path: 'translation', f: (t) => [0, 0, 1.2 * t] }]);
    const r = bakeTails(c.doc, { clips: ['armslide'] }).clips[0]!;
    expect(r.mode).toBe('loop');
    expect(r.endPose.rootMotionWs[2]).toBeCloseTo(1.2, 6);
    expect(maxOf(r.maxStepDeg)).toBeLessThan(0.5);
  });
});

describe('one-shots: fixed settle windows, and how far the tail is from settled at the end', () => {
  it('a 31 s one-shot settles in 1 s windows (it never did: windows of 31 s, converged false at 62 s)', () => {
    const c = makeCritter({ variant: 'chain' });
    addClip(c.doc, 'longfall', [0, 0.25, 0.5, 0.75, 1, 31], [
      { node: 'Hips', path: 'translation', f: (t) => [0.1 * ease(Math.min(1, t)), 1.0 - 0.45 * ease(Math.min(1, t)), 0] },
      { node: 'Hips', path: 'rotation', f: (t) => rot([0, 0, 1], 70 * ease(Math.min(1, t))) },
    ]);
    const r = bakeTails(c.doc, { clips: ['longfall'], fps: 10 });
    const x = r.clips[0]!;
    expect(x.mode).toBe('once');
    expect(x.converged).toBe(true);
    expect(x.warmupSeconds).toBeLessThanOrEqual(10);
    expect(x.warmupSeconds % 1).toBeCloseTo(0, 9); // whole 1 s windows
    expect(r.warnings).toEqual([]);
  });

  it('endUnsettledDeg is the largest angle between the last key and the tail settled on the end pose (reference: a hold of the end pose looped to 0.005°), within 0.3°', () => {
    const c = makeCritter({ variant: 'chain' });
    addDropClip(c.doc); // an abrupt stop: the tail is still swinging at the last key
    addHoldClip(c.doc, 'drop', 'dropEnd', undefined, 'end');
    const calib = captureBakeCalibration(c.doc);
    const once = simulateTailCycle(calib, 'drop', 8, {}, 'once');
    const ref = simulateTailCycle(calib, 'dropEnd', 8, { loopTolerance: 0.005, maxWarmupSeconds: 120 }, 'loop');
    expect(ref.converged).toBe(true);
    const off = Math.max(...tailKeyAngles(once, 8, ref, 8));
    expect(off).toBeGreaterThan(2); // the case worth reporting
    expect(once.endSettleConverged).toBe(true);
    expect(Math.abs(once.endUnsettledDeg - off)).toBeLessThan(0.3);
    const r = bakeTails(c.doc, { clips: ['drop'], fps: 32 }).clips[0]!;
    expect(r.endUnsettledDeg).toBeGreaterThan(2);
    expect(r.duration).toBeCloseTo(0.25, 6); // not lengthened
    expect(bakeTails(makeCritter({ variant: 'chain' }).doc, { clips: ['walk'] }).clips[0]!.endUnsettledDeg).toBe(0); // a loop: 0
  });
});

describe('very short clips', () => {
  it('a 1-frame static pose (1/30 s) closes its loop ≥ 1 s apart: its key is within 0.1° of the settled tail (was 0.22°, closed after 0.6 s)', () => {
    const c = makeCritter({ variant: 'chain' });
    addClip(c.doc, 'pose1f', [0, 1 / 30], [{ node: 'Hips', path: 'rotation', f: () => rot([0, 0, 1], 40) }]);
    const calib = captureBakeCalibration(c.doc);
    // Reference: the same clip (same internal step: float32 1/30 s gives 1/90 s steps) held as a one-shot to 0.0005°.
    const ref = simulateTailCycle(calib, 'pose1f', 1, { loopTolerance: 0.0005, maxWarmupSeconds: 120 }, 'once');
    expect(ref.converged).toBe(true);
    const cyc = simulateTailCycle(calib, 'pose1f', 1, {}, 'loop');
    expect(cyc.converged).toBe(true);
    expect(Math.max(...tailKeyAngles(cyc, 0, ref, 0))).toBeLessThan(0.1); // measured 0.045°
    expect(cyc.warmupSeconds).toBeGreaterThanOrEqual(1);
  });

  it('a clip shorter than a world step (1 ms) steps at 1/60 s: each cycle is one 1/60 s step (was 1 ms steps)', () => {
    const c = makeCritter({ variant: 'chain' });
    addClip(c.doc, 'blip', [0, 0.001], [{ node: 'Hips', path: 'rotation', f: (t) => rot([0, 0, 1], t === 0 ? 0 : 30) }]);
    const calib = captureBakeCalibration(c.doc);
    const cyc = simulateTailCycle(calib, 'blip', 1, {}, 'loop');
    expect(cyc.converged).toBe(true);
    expect(cyc.warmupSeconds).toBeCloseTo(cyc.warmupCycles / 60, 9);
    expect(cyc.warmupSeconds).toBeGreaterThanOrEqual(1);
    expect(cyc.times[1]).toBeCloseTo(0.001, 9); // keys still span the clip
  });
});

describe('clip-mode settings are never silently dropped', () => {
  it('clipModes must be a plain object (a Map was read as empty)', () => {
    expect(() => mergeBakeOptions({ clipModes: new Map([['fall', 'loop']]) as never })).toThrow(/^bitrig\/bake: clipModes must be a plain object .*a Map \(use Object\.fromEntries\(map\)\)/);
    expect(mergeBakeOptions({ clipModes: Object.assign(Object.create(null), { fall: 'loop' }) }).clipModes).toEqual({ fall: 'loop' });
  });

  it('a mode for a clip not being baked is refused, naming the clips being baked', () => {
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    expect(() => bakeTails(c.doc, { clips: ['walk'], clipModes: { fall: 'loop' } }))
      .toThrow('bitrig/bake: a clip mode is given for clip "fall", which is not among the clips being baked (walk); add it to clips or drop its mode');
  });

  it('parseArgs: a repeatable flag joins its values; any other value flag given twice is refused', () => {
    expect(parseArgs(['a.glb', '--clip-mode', 'Death=loop', '--clip-mode=Walk=once'], ['--clip-mode'], [], ['--clip-mode']).flags['--clip-mode']).toBe('Death=loop,Walk=once');
    expect(() => parseArgs(['a.glb', '--fps', '30', '--fps', '60'], ['--fps'], [])).toThrow('--fps is given twice; give it once');
  });
});

describe('measure text', () => {
  it('a one-shot names its settle windows and no seam', () => {
    const base = { clip: 'fall', samples: 24, tailEdgeSamples: 10, rows: { original: null, rigid: null, chain: null, body: null }, boneDistance: { before: null, after: null }, chainRootSwingDeg: 12, grounding: null };
    const once = formatMeasureTable({ ...base, warmup: { mode: 'once', cycles: 4, converged: true, cycleDeltaDeg: 0.05, maxSeamJumpDeg: 0 } } as unknown as MeasureReport);
    expect(once).toContain('chain: one-shot, first pose held 3 settle window(s), recorded once (no loop seam), root link swings 12.0° off rest');
    expect(once).not.toContain('seam jump');
    const loop = formatMeasureTable({ ...base, warmup: { mode: 'loop', cycles: 4, converged: true, cycleDeltaDeg: 0.05, maxSeamJumpDeg: 0.01 } } as unknown as MeasureReport);
    expect(loop).toContain('chain: warm-up 3 cycle(s), seam jump ≤ 0.010°');
  });
});
