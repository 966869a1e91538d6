/**
 * One-shot (non-looping) clips in the bake (rig/bake.ts): glTF has no loop flag, so a clip
 * whose last pose differs from its first is detected (`clipMode: 'auto'`) and baked `'once'`:
 * its first pose is held until the tail settles, then the clip is recorded one time. Replayed
 * as a loop instead, the warm-up ends on the clip's END pose and the recording starts with the
 * jump back to the start: a pop the clip never had. Loops bake exactly as before.
 *
 * The reference "tail settled on the first pose" comes from a code path that knows nothing of
 * one-shots: a clip holding the first pose still (same duration, so the same internal step),
 * simulated as a loop to a tight closure (0.005°).
 */
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import type { Document } from '@gltf-transform/core';
import {
  bakeTails, captureBakeCalibration, detectClipMode, mergeBakeOptions, simulateTailCycle, CLIP_MODE_DETECT_DEFAULTS, type TailCycle,
} from '../../rig/bake';
import { createClipSampler, findClip, listClipNames } from '../../rig/sample';
import { writeGlbBytes } from '../../rig/glb';
import { characterToDocument } from '../../rig/characterDocument';
import { createBuiltinCharacter } from '../../core/character/index';
import { makeCritter } from './fixtures';
import { addFallClip, addHoldClip, tailKeyAngles } from './oneShotFixtures';
import { loadAsset } from '../fixtures/assets';

interface ValidatorReport { issues: { messages: { severity: number }[] } }
const validator = createRequire(import.meta.url)('gltf-validator') as { validateBytes(b: Uint8Array, o?: object): Promise<ValidatorReport> };

/** The written rotation keys of a clip's tail bones (in `bones` order), as one (keys × bones × 4) array. */
function writtenKeys(doc: Document, clip: string, bones: string[]): { keys: number; values: Float64Array } {
  const anim = doc.getRoot().listAnimations().find((a) => a.getName() === clip)!;
  const tracks = bones.map((b) => anim.listChannels().find((c) => c.getTargetNode()!.getName() === b && c.getTargetPath() === 'rotation')!);
  const arrays = tracks.map((t) => t.getSampler()!.getOutput()!.getArray()!);
  const keys = arrays[0]!.length / 4;
  const values = new Float64Array(keys * bones.length * 4);
  for (let k = 0; k < keys; k++) for (let i = 0; i < bones.length; i++) for (let j = 0; j < 4; j++) values[4 * (k * bones.length + i) + j] = arrays[i]![4 * k + j]!;
  return { keys, values };
}

/** A TailCycle-shaped view of written keys (for tailKeyAngles). */
function asCycle(bones: string[], values: Float64Array): TailCycle {
  return { bones, rotations: values } as unknown as TailCycle;
}

/** The tail settled on `clip`'s first pose: a hold clip of the same duration, simulated as a loop to 0.005° closure. */
function settledReference(doc: Document, clip: string, fps = 30): TailCycle {
  addHoldClip(doc, clip, `${clip}__hold`);
  const calib = captureBakeCalibration(doc);
  const D = createClipSampler(calib.graph, findClip(doc, clip)).duration;
  const F = Math.max(1, Math.round(D * fps));
  const ref = simulateTailCycle(calib, `${clip}__hold`, F, { loopTolerance: 0.005, maxWarmupSeconds: 120 }, 'loop');
  expect(ref.converged).toBe(true);
  return ref;
}

const lastKey = (c: TailCycle): number => c.times.length - 1;

describe('clip mode detection (detectClipMode): last pose against first, tail bones not counted', () => {
  it('critter: the fall (hips roll 70°, sink 0.45 m, knees fold 70–80°) is a one-shot; walk and crouch are loops (their last key equals the first)', () => {
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    const calib = captureBakeCalibration(c.doc);
    const fall = detectClipMode(calib, 'fall');
    expect(fall.mode).toBe('once');
    expect(fall.rotationJoint).toBe('LeftLeg'); // the largest: the left knee folds 80° (the hips roll 70°)
    expect(fall.rotationDeg).toBeCloseTo(80, 3); // float32 keys: within 5e-4°
    expect(fall.translationJoint).toBe('Hips');
    // |(0.1, −0.45, 0)| = 0.461 m over the critter's skinned height (1.48 m)
    expect(fall.translation).toBeGreaterThan(0.25);
    expect(fall.translation).toBeLessThan(0.35);
    for (const clip of ['walk', 'crouch']) {
      const e = detectClipMode(calib, clip);
      expect(e.mode, clip).toBe('loop');
      expect(e.rotationDeg, clip).toBeLessThan(1e-3);
      expect(e.translation, clip).toBeLessThan(1e-6);
    }
  });

  it('the built-in character\'s four clips are loops', () => {
    const doc = characterToDocument(createBuiltinCharacter({ variant: 'chain' }));
    const calib = captureBakeCalibration(doc);
    expect(listClipNames(doc).map((n) => detectClipMode(calib, n).mode)).toEqual(['loop', 'loop', 'loop', 'loop']);
  });

  it('tolerances: the fall is a loop under 85° and 50 % of the height; either one alone is enough for a one-shot', () => {
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    const calib = captureBakeCalibration(c.doc);
    expect(detectClipMode(calib, 'fall', { endPoseRotationTolerance: 85, endPoseTranslationTolerance: 0.5 }).mode).toBe('loop');
    expect(detectClipMode(calib, 'fall', { endPoseRotationTolerance: 85 }).mode).toBe('once'); // translation 0.31 > 0.02
    expect(detectClipMode(calib, 'fall', { endPoseTranslationTolerance: 0.5 }).mode).toBe('once'); // rotation 80° > 10°
    expect(CLIP_MODE_DETECT_DEFAULTS).toEqual({ endPoseRotationTolerance: 10, endPoseTranslationTolerance: 0.02, endPoseScaleTolerance: 0.02 });
    expect(() => detectClipMode(calib, 'fall', { endPoseRotationTolerance: -1 })).toThrow(/^bitrig\/bake: endPoseRotationTolerance must be a number of degrees ≥ 0, got -1$/);
    expect(() => detectClipMode(calib, 'Fall')).toThrow(/^bitrig\/bake: unknown clip "Fall"/);
  });

  it('a clip that ends with only the tail elsewhere is a one-shot (keyed tail rotations are the tail\'s rest: replayed, it jumps)', () => {
    const c = makeCritter({ variant: 'chain' });
    const doc = c.doc;
    const buffer = doc.getRoot().listBuffers()[0]!;
    const anim = doc.createAnimation('wag');
    const input = doc.createAccessor('wag_t', buffer).setType('SCALAR').setArray(new Float32Array([0, 1]));
    for (const bone of ['Tail_1', 'Tail_End']) {
      const s = doc.createAnimationSampler().setInput(input).setInterpolation('LINEAR')
        .setOutput(doc.createAccessor(`wag_${bone}`, buffer).setType('VEC4').setArray(new Float32Array([0, 0, 0, 1, 0, Math.sin(0.35), 0, Math.cos(0.35)])));
      anim.addSampler(s).addChannel(doc.createAnimationChannel().setSampler(s).setTargetPath('rotation')
        .setTargetNode(doc.getRoot().listNodes().find((n) => n.getName() === bone)!));
    }
    const e = detectClipMode(captureBakeCalibration(doc), 'wag'); // Tail_1 and Tail_End turn 40°
    expect(e.mode).toBe('once');
    expect(e.rotationDeg).toBeCloseTo(40.107, 2); // 2 · 0.35 rad (float32 keys)
    expect(['Tail_1', 'Tail_End']).toContain(e.rotationJoint);
  });
});

describe('bake of a one-shot: hold the first pose until the tail settles, record the clip once', () => {
  it('critter fall, auto: first key = the tail settled on the first pose (< 1°, measured ≈ 0.005°); forced to loop the first key pops (> 5°, measured 5–15°)', () => {
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    const ref = settledReference(c.doc, 'fall');
    const report = bakeTails(c.doc, { clips: ['fall'] });
    const r = report.clips[0]!;
    expect(r.mode).toBe('once');
    expect(r.modeSource).toBe('auto');
    expect(r.endPose.mode).toBe('once');
    expect(r.endPose.rotationDeg).toBeCloseTo(80, 3);
    expect(r.converged).toBe(true);
    expect(r.warmupCycles).toBeGreaterThanOrEqual(2); // window 0 is compared with the cold start
    expect(r.warmupSeconds).toBeCloseTo(r.warmupCycles * 1, 9); // windows of max(1 s clip, 1 s)
    expect(r.cycleDeltaDeg).toBeLessThan(0.1);
    expect(r.seamJumpDeg).toEqual([]); // a one-shot has no loop seam
    expect(r.keys).toBe(31);
    expect(report.warnings).toEqual([]);
    const once = writtenKeys(c.doc, 'fall', r.bones);
    const onceOff = tailKeyAngles(asCycle(r.bones, once.values), 0, ref, lastKey(ref));
    for (const a of onceOff) expect(a).toBeLessThan(1);
    // the first frame moves the tail little (the hips start slowly: smoothstep)
    expect(Math.max(...tailKeyAngles(asCycle(r.bones, once.values), 0, asCycle(r.bones, once.values), 1))).toBeLessThan(2);

    // The same assertion fails when the clip is forced to loop: the warm-up ends on the fallen
    // pose and the recording starts with the jump back to standing.
    const l = makeCritter({ variant: 'chain' });
    addFallClip(l.doc);
    const lr = bakeTails(l.doc, { clips: ['fall'], clipMode: 'loop' }).clips[0]!;
    expect(lr.mode).toBe('loop');
    expect(lr.modeSource).toBe('option');
    expect(lr.endPose.mode).toBe('once'); // measured anyway
    const loop = writtenKeys(l.doc, 'fall', lr.bones);
    const loopOff = tailKeyAngles(asCycle(lr.bones, loop.values), 0, ref, lastKey(ref));
    expect(Math.max(...loopOff)).toBeGreaterThan(5);
    expect(loopOff.some((a) => a >= 1)).toBe(true); // the once assertion above would fail
    expect(Math.max(...tailKeyAngles(asCycle(lr.bones, loop.values), 0, asCycle(lr.bones, loop.values), 1))).toBeGreaterThan(10);
  });

  it('simulateTailCycle(…, \'once\') matches the bake, is deterministic, and is reported as once', () => {
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    const calib = captureBakeCalibration(c.doc);
    const a = simulateTailCycle(calib, 'fall', 30, {}, 'once');
    const b = simulateTailCycle(calib, 'fall', 30, {}, 'once');
    expect(Array.from(a.rotations)).toEqual(Array.from(b.rotations));
    expect(a.mode).toBe('once');
    expect(a.seamJumpDeg.length).toBe(0);
    expect(a.cycles).toBe(a.warmupCycles + 1);
    const loop = simulateTailCycle(calib, 'fall', 30);
    expect(loop.mode).toBe('loop'); // default mode (the measure's) is unchanged
    expect(() => simulateTailCycle(calib, 'fall', 30, {}, 'auto' as never)).toThrow(/^bitrig\/bake: mode must be 'loop' or 'once', got "auto"/);
  });

  it('a tail that cannot settle within the cap: warning, recorded from where it was', () => {
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    const warnings: string[] = [];
    const r = bakeTails(c.doc, { clips: ['fall'], loopTolerance: 1e-12, maxWarmupSeconds: 2.5, onWarning: (m) => warnings.push(m) });
    const cr = r.clips[0]!;
    expect(cr.mode).toBe('once');
    expect(cr.converged).toBe(false);
    expect(cr.warmupCycles).toBe(3); // ceil(2.5 s / 1 s windows)
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^clip "fall" \(one-shot\): the tail did not settle on the clip's first pose within 3\.00 s \(last settle window differs by [\d.]+° > 1e-12°\); recorded the clip from where it was$/);
    expect(r.warnings).toEqual(warnings);
  });

  it('a short one-shot settles in windows of 1 s (not of its own 0.25 s)', () => {
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    const fall = c.doc.getRoot().listAnimations().find((a) => a.getName() === 'fall')!;
    const input = fall.listSamplers()[0]!.getInput()!;
    input.setArray((input.getArray() as Float32Array).map((t) => t / 4));
    const r = bakeTails(c.doc, { clips: ['fall'] }).clips[0]!;
    expect(r.duration).toBeCloseTo(0.25, 6);
    expect(r.mode).toBe('once');
    expect(r.keys).toBe(9); // round(0.25 · 30) + 1
    expect(r.warmupSeconds / r.warmupCycles).toBeCloseTo(1, 6);
  });

  it('progress runs 0 → 1 without going back, with settle windows named', () => {
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    const seen: [string, number][] = [];
    bakeTails(c.doc, { clips: ['walk', 'fall'], onProgress: (s, f) => seen.push([s, f]) });
    for (let i = 1; i < seen.length; i++) expect(seen[i]![1]).toBeGreaterThanOrEqual(seen[i - 1]![1] - 1e-12);
    expect(seen[seen.length - 1]![1]).toBeCloseTo(1, 12);
    expect(seen.some(([s]) => /^fall: settle window 1$/.test(s))).toBe(true);
    expect(seen.some(([s]) => /^walk: warm-up cycle 1$/.test(s))).toBe(true);
  });

  it('the baked one-shot is validator clean', async () => {
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    bakeTails(c.doc, { clips: ['fall'] });
    const r = await validator.validateBytes(await writeGlbBytes(c.doc), { maxIssues: 100 });
    expect(r.issues.messages.filter((m) => m.severity === 0)).toEqual([]);
  });
});

describe('clip modes: forcing, per clip, loops unchanged, validation', () => {
  it('loops bake bit-identically with clipMode auto (default) and loop', () => {
    const a = makeCritter({ variant: 'chain' });
    const b = makeCritter({ variant: 'chain' });
    const ra = bakeTails(a.doc);
    const rb = bakeTails(b.doc, { clipMode: 'loop' });
    for (const clip of ['walk', 'crouch']) {
      const bones = ra.clips.find((c) => c.clip === clip)!.bones;
      expect(Array.from(writtenKeys(a.doc, clip, bones).values)).toEqual(Array.from(writtenKeys(b.doc, clip, bones).values));
    }
    expect(ra.clips.map((c) => [c.mode, c.modeSource])).toEqual([['loop', 'auto'], ['loop', 'auto']]);
    expect(rb.clips.map((c) => [c.mode, c.modeSource])).toEqual([['loop', 'option'], ['loop', 'option']]);
    for (const c of ra.clips) expect(c.warmupSeconds).toBeCloseTo(c.warmupCycles * c.duration, 9);
  });

  it('clipModes per clip over clipMode: walk forced once, fall back to auto under clipMode loop', () => {
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    const r = bakeTails(c.doc, { clipMode: 'loop', clipModes: { walk: 'once', fall: 'auto' } });
    expect(r.clips.map((x) => [x.clip, x.mode, x.modeSource])).toEqual([
      ['walk', 'once', 'option'], ['crouch', 'loop', 'option'], ['fall', 'once', 'auto'],
    ]);
    expect(r.clips[0]!.endPose.mode).toBe('loop'); // walk is a loop by its poses; forced anyway
    expect(r.clips[0]!.seamJumpDeg).toEqual([]);
  });

  it('bad modes are refused, naming the problem', () => {
    expect(mergeBakeOptions({}).clipMode).toBe('auto');
    expect(mergeBakeOptions({}).clipModes).toEqual({});
    expect(() => mergeBakeOptions({ clipMode: 'sometimes' as never })).toThrow('bitrig/bake: clipMode must be \'auto\', \'loop\' or \'once\', got "sometimes" (a string)');
    expect(() => mergeBakeOptions({ clipModes: { Death: 'one-shot' as never } })).toThrow('bitrig/bake: clipModes["Death"] must be \'auto\', \'loop\' or \'once\', got "one-shot" (a string)');
    expect(() => mergeBakeOptions({ clipModes: ['once'] as never })).toThrow(/^bitrig\/bake: clipModes must be a plain object of clip name/);
    expect(() => mergeBakeOptions({ clipModes: null as never })).toThrow(/^bitrig\/bake: clipModes must be a plain object of clip name/);
    expect(() => mergeBakeOptions({ endPoseTranslationTolerance: Number.NaN })).toThrow(/^bitrig\/bake: endPoseTranslationTolerance must be a fraction of the height ≥ 0, got NaN$/);
    const c = makeCritter({ variant: 'chain' });
    expect(() => bakeTails(c.doc, { clipModes: { Walk: 'once' } })).toThrow('bitrig/bake: a clip mode is given for clip "Walk", which the file does not have; clips: walk, crouch');
  });
});

describe('one-shots on real assets', () => {
  it('detection: Quaternius fox and Shiba Death and Jump_ToIdle are one-shots, every other clip (Khronos fox\'s Survey too) a loop', async () => {
    const expectOnce: Record<string, string[]> = {
      'khronos-fox': [], 'quaternius-fox': ['Death', 'Jump_ToIdle'], 'quaternius-shiba-inu': ['Death', 'Jump_ToIdle'],
    };
    for (const [asset, once] of Object.entries(expectOnce)) {
      const doc = await loadAsset(asset as 'khronos-fox');
      const calib = captureBakeCalibration(doc);
      for (const clip of listClipNames(doc)) {
        const e = detectClipMode(calib, clip);
        if (once.includes(clip)) {
          expect(e.mode, `${asset} ${clip}`).toBe('once');
          expect(e.rotationDeg, `${asset} ${clip}`).toBeGreaterThan(90); // measured 97–111°
        } else {
          expect(e.mode, `${asset} ${clip}`).toBe('loop');
          expect(e.rotationDeg, `${asset} ${clip}`).toBeLessThan(0.01); // their last key is the first
        }
      }
    }
  });

  it('Quaternius fox Death: first key within 1° of the tail settled on the first pose (measured 0.02°); forced to loop it pops (> 20°, measured 41.8°)', async () => {
    const doc = await loadAsset('quaternius-fox');
    const ref = settledReference(doc, 'Death');
    const r = bakeTails(doc, { clips: ['Death'] }).clips[0]!;
    expect([r.mode, r.modeSource, r.converged]).toEqual(['once', 'auto', true]);
    expect(r.restSources).toEqual(['animation']);
    const once = tailKeyAngles(asCycle(r.bones, writtenKeys(doc, 'Death', r.bones).values), 0, ref, lastKey(ref));
    for (const a of once) expect(a).toBeLessThan(1);
    const d2 = await loadAsset('quaternius-fox');
    const lr = bakeTails(d2, { clips: ['Death'], clipModes: { Death: 'loop' } }).clips[0]!;
    const loop = tailKeyAngles(asCycle(lr.bones, writtenKeys(d2, 'Death', lr.bones).values), 0, ref, lastKey(ref));
    expect(Math.max(...loop)).toBeGreaterThan(20);
  });
});
