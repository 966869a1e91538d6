/**
 * Bad input: NaN targets, zero-length bones, weights outside [0, 1],
 * missing limbs, broken ground queries and frame times — defined results, no throw per frame,
 * a clear error at setup.
 */
import { describe, expect, test } from 'vitest';
import { mat4, quat } from 'gl-matrix';
import { makeBiped } from './rig';
import { createBitrigWorld } from '../../runtime/world';
import { bindSkeleton } from '../../core/binding';
import {
  addSceneIK, addSupport, mergeSceneIKOptions, removeSceneIK, sceneDiagnostics, setSceneInputs, setSupportFrame, type GroundQuery,
} from '../../core/sceneIK';

const DT = 1 / 60;

function allFinite(rig: ReturnType<typeof makeBiped>): boolean {
  const p = rig.world.pose;
  return [p.localR, p.localT, p.worldM].every((a) => a.every(Number.isFinite));
}

function skeleton(names: string[], parents: number[], pos: number[][]) {
  const ibm = pos.map((p) => Array.from(mat4.invert(mat4.create(), mat4.fromTranslation(mat4.create(), p as [number, number, number]))!));
  const rest = pos.map((p, i) => ({ t: parents[i]! >= 0 ? p.map((v, k) => v - pos[parents[i]!]![k]!) : p, r: [0, 0, 0, 1], s: [1, 1, 1] }));
  return { names, parents, inverseBind: ibm, rest };
}

describe('setup errors', () => {
  test('no legs: a clear error naming the skeleton', () => {
    const world = createBitrigWorld();
    const b = bindSkeleton(world, skeleton(['Hips', 'Spine', 'Head'], [-1, 0, 1], [[0, 1, 0], [0, 1.2, 0], [0, 1.6, 0]]));
    expect(() => addSceneIK(world, b)).toThrow(/bitrig\/sceneIK: no legs found .*Hips, Spine, Head.*options\.limbs/);
  });

  test('zero-length leg bone: a clear error naming the bone', () => {
    const world = createBitrigWorld();
    const b = bindSkeleton(world, skeleton(
      ['Hips', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'RightUpLeg', 'RightLeg', 'RightFoot'], [-1, 0, 1, 2, 0, 4, 5],
      [[0, 1, 0], [0.1, 0.9, 0], [0.1, 0.9, 0], [0.1, 0.1, 0], [-0.1, 0.9, 0], [-0.1, 0.5, 0], [-0.1, 0.1, 0]],
    ));
    expect(() => addSceneIK(world, b)).toThrow(/bitrig\/sceneIK: limb "LeftUpLeg" has a zero-length bone "LeftUpLeg" → "LeftLeg"/);
  });

  test('explicit limbs with a missing bone or a mid not below the root: clear errors', () => {
    const world = createBitrigWorld();
    const b = bindSkeleton(world, skeleton(['Hips', 'A', 'B', 'C'], [-1, 0, 1, 2], [[0, 1, 0], [0.1, 0.9, 0], [0.1, 0.5, 0], [0.1, 0.1, 0]]));
    expect(() => addSceneIK(world, b, { limbs: [{ kind: 'leg', root: 'A', mid: 'X', end: 'C' }] })).toThrow(/limb 0 mid bone "X" not found/);
    expect(() => addSceneIK(world, b, { limbs: [{ kind: 'leg', root: 'B', mid: 'A', end: 'C' }] })).toThrow(/mid bone "A" is not below root "B"/);
    const ok = addSceneIK(world, b, { limbs: [{ kind: 'leg', root: 'A', mid: 'B', end: 'C' }] });
    expect(ok.legs.length).toBe(1);
  });

  test('bad options name the field', () => {
    expect(() => mergeSceneIKOptions({ soften: 2 })).toThrow(/bitrig\/sceneIK: option soften/);
    expect(() => mergeSceneIKOptions({ unitScale: 0 })).toThrow(/unitScale/);
    expect(() => mergeSceneIKOptions({ maxTilt: NaN })).toThrow(/maxTilt/);
    expect(() => mergeSceneIKOptions({ lockOn: 0 })).toThrow(/lockOn/);
  });

  test('a skin with too few joint entries is rejected at setup', () => {
    const world = createBitrigWorld();
    const b = bindSkeleton(world, skeleton(['Hips', 'LeftUpLeg', 'LeftLeg', 'LeftFoot'], [-1, 0, 1, 2], [[0, 1, 0], [0.1, 0.9, 0], [0.1, 0.5, 0.02], [0.1, 0.1, 0]]));
    expect(() => addSceneIK(world, b, { skin: { positions: new Float32Array(6), joints: new Uint16Array(4), weights: new Float32Array(8) } })).toThrow(/skin\.joints and skin\.weights/);
  });
});

describe('per frame: defined results, no throw', () => {
  test('NaN / infinite hand targets: the arm keeps the animation and reports invalid', () => {
    const rig = makeBiped();
    for (const position of [[NaN, 1, 0], [0, Infinity, 0]]) {
      expect(() => rig.frame(DT, { hands: [{ position }, { position: [0.1, 1, 0.3], rotation: [NaN, 0, 0, 1] }] })).not.toThrow();
      const d = sceneDiagnostics(rig.world, rig.ik);
      expect(d.hands[0]!.invalid).toBe(true);
      expect(d.hands[1]!.invalid).toBe(true);
      const s = rig.slot('LeftForeArm');
      const r = rig.rest[rig.names.indexOf('LeftForeArm')]!;
      for (let j = 0; j < 4; j++) expect(rig.world.pose.localR[s * 4 + j]).toBe(r.r[j]);
      expect(allFinite(rig)).toBe(true);
    }
  });

  test('weights outside [0, 1] and NaN are clamped (NaN → 0)', () => {
    const rig = makeBiped();
    rig.frame(DT, { feet: [5, -3], hands: [{ position: [0.5, 1.2, 0.2], weight: 7, rotationWeight: -1 }, { position: [-0.5, 1.2, 0.2], weight: NaN }] });
    const F = rig.world.components.FootContact, H = rig.world.components.HandTarget;
    expect(F.stance[rig.ik.legs[0]!.eid]).toBe(1);
    expect(F.stance[rig.ik.legs[1]!.eid]).toBe(0);
    expect(H.weight[rig.ik.arms[0]!.eid]).toBe(1);
    expect(H.rotWeight[rig.ik.arms[0]!.eid]).toBe(0);
    expect(H.weight[rig.ik.arms[1]!.eid]).toBe(0);
    rig.frame(DT, { feet: [NaN, 0.5] });
    expect(F.stance[rig.ik.legs[0]!.eid]).toBe(0);
    expect(allFinite(rig)).toBe(true);
  });

  test('a ground query that throws, returns NaN, or a downward/zero normal: no throw, finite pose', () => {
    const rig = makeBiped();
    const queries: GroundQuery[] = [
      () => { throw new Error('physics exploded'); },
      (_p, out) => { out.height = NaN; return true; },
      (_p, out) => { out.height = 0; out.normal[0] = 0; out.normal[1] = -1; out.normal[2] = 0; out.support = 9999; return true; },
      (_p, out) => { out.height = 0; out.normal = [0, 0, 0]; return true; },
      () => false,
    ];
    for (const ground of queries) {
      for (let f = 0; f < 10; f++) expect(() => rig.frame(DT, { feet: [1, 1], ground })).not.toThrow();
      expect(allFinite(rig)).toBe(true);
    }
  });

  test('a ground query that throws: the error is kept for the diagnostics (message and world time), for that character only; a working query shows none', () => {
    const rig = makeBiped(), other = makeBiped({ world: rig.world });
    rig.frame(DT, { feet: [1, 1], ground: (_p, out) => { out.height = 0; return true; } });
    expect(sceneDiagnostics(rig.world, rig.ik).groundError).toBeNull();
    rig.frame(DT, { feet: [1, 1], ground: () => { throw new Error('terrain tile 4 not loaded'); } });
    const d = sceneDiagnostics(rig.world, rig.ik);
    expect(d.groundError!.message).toBe('terrain tile 4 not loaded');
    expect(d.groundError!.time).toBeCloseTo(rig.world.time - DT, 12); // the world time at the start of that frame
    expect(sceneDiagnostics(other.world, other.ik).groundError).toBeNull(); // not the other character's
    expect(allFinite(rig)).toBe(true);
  });

  test('a ground query that replaces out.normal (null, undefined, a number, its own array) or returns a truthy non-boolean: no throw in update or sceneDiagnostics, finite pose, the game\'s array untouched, and solver and diagnostics agree (only `true` is ground)', () => {
    const rig = makeBiped();
    const mine = [-0.2, 0.98, 0]; // the game's own normal
    const queries: GroundQuery[] = [
      (_p, out) => { out.height = 0; (out as { normal: unknown }).normal = null; return true; },
      (_p, out) => { out.height = 0; (out as { normal: unknown }).normal = undefined; return true; },
      (_p, out) => { out.height = 0; (out as { normal: unknown }).normal = 7; return true; },
      (_p, out) => { out.height = 0; out.normal = mine; out.support = -1; return true; },
    ];
    for (const ground of queries) {
      for (let f = 0; f < 5; f++) expect(() => rig.frame(DT, { feet: [1, 1], ground })).not.toThrow();
      expect(allFinite(rig)).toBe(true);
      expect(() => sceneDiagnostics(rig.world, rig.ik)).not.toThrow();
      expect(() => sceneDiagnostics(rig.world, rig.ik)).not.toThrow();
      expect(Number.isFinite(sceneDiagnostics(rig.world, rig.ik).contacts[0]!.gapWs)).toBe(true);
    }
    expect(mine).toEqual([-0.2, 0.98, 0]);
    // a well-behaved character afterwards (the module scratch is not left poisoned)
    const rig2 = makeBiped();
    rig2.frame(DT, { feet: [1, 1], ground: (_p, out) => { out.height = 0; out.normal[1] = 1; return true; } });
    expect(() => sceneDiagnostics(rig2.world, rig2.ik)).not.toThrow();
    // a truthy non-boolean is "no ground" for both
    const truthy = ((_p: Float64Array, out: { height: number }) => { out.height = 0.2; return 1; }) as unknown as GroundQuery;
    for (let f = 0; f < 5; f++) rig2.frame(DT, { feet: [1, 1], ground: truthy });
    const F = rig2.world.components.FootContact;
    expect(F.hasGround[rig2.ik.legs[0]!.eid]).toBe(0);
    expect(sceneDiagnostics(rig2.world, rig2.ik).contacts[0]!.gapWs).toBeNaN();
  });

  for (const stretchy of [false, true]) test(`hand targets 10 m to 1e300 m away (the squared distance overflows past 1e154)${stretchy ? ', stretchy arm (1.5, 0.82, 0.82)' : ''}: the arm points at the target (direction within 1e-3) as far as it reaches (the same distance at every range, 1e-9), reposition flagged, finite pose`, () => {
    const rig = makeBiped();
    if (stretchy) rig.overrides.set('LeftArm', { s: [1.5, 0.82, 0.82] });
    let reachAt10 = NaN;
    rig.frame(DT, {});
    for (const k of [10, 1e100, 1e154, 1e155, 1e200, 1e300]) {
      const sh = rig.pos('LeftArm');
      const target = [sh[0]! + k * 0.6, sh[1]!, sh[2]! + k * 0.8];
      for (let f = 0; f < 2; f++) rig.frame(DT, { hands: [{ position: target }, null] });
      const hand = rig.pos('LeftHand'), a = rig.pos('LeftArm');
      const l = Math.hypot(hand[0]! - a[0]!, hand[1]! - a[1]!, hand[2]! - a[2]!);
      if (k === 10) reachAt10 = l; else expect(Math.abs(l - reachAt10), `${k} m: reach`).toBeLessThan(1e-9);
      expect((hand[0]! - a[0]!) / l, `${k} m: x`).toBeCloseTo(0.6, 3);
      expect((hand[2]! - a[2]!) / l, `${k} m: z`).toBeCloseTo(0.8, 3);
      const d = sceneDiagnostics(rig.world, rig.ik);
      expect(d.hands[0]!.reposition, `${k} m`).toBe(true);
      expect(allFinite(rig)).toBe(true);
    }
  });

  test('dt of 0, NaN, negative or huge: no throw, finite pose', () => {
    const rig = makeBiped();
    for (const dt of [0, NaN, -1, Infinity, 1e9]) {
      expect(() => rig.frame(dt, { feet: [1, 1], hands: [{ position: [0.5, 1.2, 0.2] }, null] })).not.toThrow();
      expect(allFinite(rig)).toBe(true);
    }
  });

  test('a bone the animation collapses to zero length: the limb keeps the animation and reports invalid', () => {
    const rig = makeBiped();
    rig.overrides.set('LeftForeArm', { t: [0, 0, 0] });
    rig.frame(DT, { hands: [{ position: [0.5, 1.2, 0.2] }, null] });
    const L = rig.world.components.Limb;
    expect(L.invalid[rig.ik.arms[0]!.eid]).toBe(1);
    expect(allFinite(rig)).toBe(true);
  });

  test('a support with a singular or non-finite matrix is ignored; unknown ids are ignored', () => {
    const rig = makeBiped();
    const s = addSupport(rig.world);
    const good = mat4.fromTranslation(mat4.create(), [1, 2, 3]);
    setSupportFrame(rig.world, s, good);
    setSupportFrame(rig.world, s, new Float64Array(16));
    setSupportFrame(rig.world, s, [NaN, ...new Array(15).fill(0)]);
    setSupportFrame(rig.world, 123456, good);
    setSupportFrame(rig.world, -1, good);
    const row = rig.world.components.SupportFrame.row[s]!;
    expect(row).toBeGreaterThanOrEqual(0);
    expect(Array.from(rig.world.components.SupportFrame.matrixWs.subarray(row * 16, row * 16 + 16))).toEqual(Array.from(good));
  });

  test('inputs after removeSceneIK are ignored; removing twice is safe; flags are cleared', () => {
    const rig = makeBiped();
    removeSceneIK(rig.world, rig.ik);
    removeSceneIK(rig.world, rig.ik);
    expect(() => setSceneInputs(rig.world, rig.ik, { feet: [1, 1] })).not.toThrow();
    expect(() => rig.frame(DT)).not.toThrow();
    expect(rig.binding.drivenRotation[rig.names.indexOf('LeftUpLeg')]).toBe(0);
    expect(rig.binding.drivenTranslation[rig.names.indexOf('Hips')]).toBe(0);
    void quat;
  });
});
