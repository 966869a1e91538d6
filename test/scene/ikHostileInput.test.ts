/**
 * The two-bone kernel alone on hostile input (wasm/twoBone.ts): seeded random worlds whose root
 * frames are rotated, scaled (uniformly or not), mirrored, sheared, far, NaN or singular, whose
 * bones carry mirroring, zero or NaN scales and rotations, zero-length bones, weights and
 * rotation weights inside and outside [0, 1], NaN, huge and at-the-root targets, poles on the
 * line, soften and tolerance edges, arms with grips, and rewired chains (bones between the
 * joints). After every frame: no trap; the solve makes no bone's local rotation or translation
 * non-finite that was finite before it; every bone of a character whose input was finite has a
 * finite world matrix; each limb's outcome is data (a leg's `solved` and `invalid` not both set;
 * a solved limb's miss not NaN and not negative).
 * A limb whose subtree end or root slot lies outside the layout is not solved (`solved` 0,
 * `invalid` 1) and the others are. Splitting the limbs into ranges (a job system's pieces) gives
 * the same bytes as one call over them all.
 */
import { describe, test, expect } from 'vitest';
import { mat4, quat } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame } from '../../core/binding';
import { twoBoneIK } from '../../systems/twoBoneIK';
import { LIMB_LEG } from '../../core/components/scene';
import { makeBiped, type BipedRig } from '../scene/rig';
import { bytesOf } from '../helpers/worldBytes';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}
const pick = <T,>(r: () => number, a: T[]): T => a[Math.floor(r() * a.length)]!;

const ROOTS: Record<string, () => mat4> = {
  id: () => mat4.create(),
  rot: () => mat4.fromRotation(mat4.create(), 0.7, [0.3, 1, 0.2]),
  uni: () => mat4.fromScaling(mat4.create(), [1.7, 1.7, 1.7]),
  mir: () => mat4.fromScaling(mat4.create(), [-1, 1, 1]),
  nonuni: () => mat4.fromScaling(mat4.create(), [1, 1.5, 1]),
  shear: () => { const m = mat4.create(); m[4] = 0.3; return m; },
  nearConf: () => mat4.fromScaling(mat4.create(), [1, 1 + 5e-7, 1]),
  far: () => mat4.fromTranslation(mat4.create(), [1e9, 0, -1e9]),
  nan: () => { const m = mat4.create(); m[12] = NaN; return m; },
  sing: () => mat4.fromScaling(mat4.create(), [1, 0, 1]),
};
const W = [0, 0.5, 1, 1.5, -0.2, NaN, 0.3, Infinity, 1e-320];


/** Chains rewired so that bones lie between the joints (mode 1: a leg hip → thigh → shin; mode 2: an arm spine → shoulder → upper arm). */
function rewire(rig: BipedRig, mode: number): void {
  const L = rig.world.components.Limb, pose = rig.world.pose; const c = rig.binding.charId; const e = rig.ik.legs[0]!.eid;
  if (mode === 1) { L.rootSlot[e] = rig.slot('Hips'); L.midSlot[e] = rig.slot('LeftUpLeg'); L.endSlot[e] = rig.slot('LeftLeg'); L.subtreeEnd[e] = pose.charStart[c]! + pose.charCount[c]!; }
  if (mode === 2) { const a = rig.ik.arms[0]!.eid; L.rootSlot[a] = rig.slot('Spine'); L.midSlot[a] = rig.slot('LeftShoulder'); L.endSlot[a] = rig.slot('LeftArm'); L.subtreeEnd[a] = rig.slot('RightUpLeg') > rig.slot('LeftHand') ? rig.slot('LeftHand') + 1 : pose.charStart[c]! + pose.charCount[c]!; }
}

/** Fill every rig's pose and requests for one frame from the seed (the same for every world given the same seed). */
function hostileFrame(world: BitrigWorld, rigs: BipedRig[], seedF: number): void {
  const r = rng(seedF);
  const pose = world.pose;
      for (const rig of rigs) {
        const rootKind = pick(r, Object.keys(ROOTS).concat(['id', 'id', 'rot', 'rot', 'uni']));
        const m = ROOTS[rootKind]!();
        mat4.multiply(m, m, mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], r() * 6), [r() - 0.5, 0, r() - 0.5]));
        for (let i = 0; i < rig.names.length; i++) {
          const sl = rig.binding.slotOf[i]!; const rs = rig.rest[i]!;
          let rr = rs.r.slice(); const tt = rs.t.slice(); let sc = [1, 1, 1];
          const nm = rig.names[i]!;
          if (/Leg$|ForeArm$|Arm$|UpLeg$/.test(nm) && r() < 0.7) { const q = quat.setAxisAngle(quat.create(), [1, r() - 0.5, 0], (r() - 0.3) * 1.2); rr = Array.from(quat.multiply(quat.create(), rr as any, q)); }
          if (r() < 0.12) sc = pick(r, [[1.3, 1.3, 1.3], [1, 1 + 5e-7, 1], [1, 1.2, 1], [-1, 1, 1], [-1, -1, -1], [0, 0, 0], [1, 1, -1], [2, 2, 2 + 1e-6]]);
          if (r() < 0.02) { tt[0] = 0; tt[1] = 0; tt[2] = 0; } // zero-length bone
          if (r() < 0.01) rr = [NaN, 0, 0, 1];
          for (let j = 0; j < 3; j++) { pose.localT[sl * 3 + j] = tt[j]!; pose.localS[sl * 3 + j] = sc[j]!; }
          for (let j = 0; j < 4; j++) pose.localR[sl * 4 + j] = rr[j]!;
        }
        for (let j = 0; j < 16; j++) pose.charRootWs[rig.binding.charId * 16 + j] = m[j]!;
        beginCharacterFrame(rig.binding);
        const L = world.components.Limb, H = world.components.HandTarget;
        for (const leg of rig.ik.legs) {
          const e = leg.eid; const rs = L.rootSlot[e]!;
          const hx = pose.worldM[rs * 16 + 12]!, hy = pose.worldM[rs * 16 + 13]!, hz = pose.worldM[rs * 16 + 14]!;
          L.weight[e] = pick(r, W.concat([1, 1, 0.5])); L.rotWeight[e] = pick(r, [0, 0, 1, 1, 0.5, 0.3, 2, NaN, -1]);
          L.hasTargetRot[e] = r() < 0.7 ? 1 : 0; L.hasPole[e] = r() < 0.4 ? 1 : 0;
          L.soften[e] = pick(r, [0, 0.02, 0.05, 0.5, 0.7, -1, NaN]);
          L.reachTolerance[e] = pick(r, [1e-3, 0, 1, NaN]);
          const k = Math.floor(r() * 10);
          const d = [hx + 0.3 * (r() - 0.5), hy - 0.8 * r(), hz + 0.3 * (r() - 0.5)];
          if (k === 0) { d[0] = hx + 3; d[1] = hy - 4; }
          else if (k === 1) d[1] = NaN;
          else if (k === 2) { d[0] = 1e200; d[1] = -1e200; }
          else if (k === 3) { d[0] = hx; d[1] = hy; d[2] = hz; }
          else if (k === 4) { d[0] = hx + 1e-310; }
          else if (k === 5) { d[0] = 1e160; }
          for (let j = 0; j < 3; j++) L.targetWs[e * 3 + j] = d[j]!;
          const pk = Math.floor(r() * 4);
          const pl = pk === 0 ? [hx + (d[0]! - hx) * 0.5, hy + (d[1]! - hy) * 0.5, hz + (d[2]! - hz) * 0.5] : pk === 1 ? [hx, hy, hz] : pk === 2 ? [NaN, 0, 0] : [hx, hy - 0.4, hz + 1];
          for (let j = 0; j < 3; j++) L.poleWs[e * 3 + j] = pl[j]!;
          const q = quat.setAxisAngle(quat.create(), [r(), r(), r() + 0.01], 6 * r());
          const qs = pick(r, [1, 1, 1.3, 0, 1e-200]);
          for (let j = 0; j < 4; j++) L.targetRotWs[e * 4 + j] = q[j]! * qs;
          if (r() < 0.05) for (let j = 0; j < 3; j++) L.bendHintLs[e * 3 + j] = pick(r, [0, NaN, 1]);
        }
        for (const arm of rig.ik.arms) {
          const e = arm.eid; const rs = L.rootSlot[e]!;
          const hx = pose.worldM[rs * 16 + 12]!, hy = pose.worldM[rs * 16 + 13]!, hz = pose.worldM[rs * 16 + 14]!;
          H.weight[e] = pick(r, W.concat([1, 0.5])); H.rotWeight[e] = pick(r, [0, 1, 0.5, 2, NaN]);
          H.hasRot[e] = r() < 0.6 ? 1 : 0; H.hasPole[e] = r() < 0.4 ? 1 : 0; H.hasGrip[e] = r() < 0.4 ? 1 : 0;
          const k = Math.floor(r() * 6);
          const d = [hx + 0.6 * (r() - 0.5), hy + 0.6 * (r() - 0.5), hz + 0.6 * (r() - 0.5)];
          if (k === 0) d[0] = hx + 5; else if (k === 1) d[2] = NaN; else if (k === 2) d[1] = 1e200;
          for (let j = 0; j < 3; j++) { H.posWs[e * 3 + j] = d[j]!; H.poleWs[e * 3 + j] = hy + r(); H.gripPos[e * 3 + j] = 0.05 * r(); }
          const q = quat.setAxisAngle(quat.create(), [r(), r(), r() + 0.01], 6 * r());
          const g = quat.setAxisAngle(quat.create(), [r(), r() + 0.01, r()], 3 * r());
          for (let j = 0; j < 4; j++) { H.rotWs[e * 4 + j] = q[j]!; H.gripRot[e * 4 + j] = g[j]!; }
          L.soften[e] = pick(r, [0, 0.02, 0.5]);
        }
      }
}

/** A world with `n` rigs, chains rewired one time in three. */
function hostileWorld(seed: number, n: number): { world: BitrigWorld; rigs: BipedRig[] } {
  const world = createBitrigWorld({ entities: 8, bones: 16, characters: 2 });
  const r0 = rng(seed);
  const rigs: BipedRig[] = [];
  for (let i = 0; i < n; i++) { const rig = makeBiped({ world, kneeBend: pick(r0, [0, 0.03, 0.1]), ik: { soften: 0.02 } }); rewire(rig, Math.floor(r0() * 3)); rigs.push(rig); }
  return { world, rigs };
}

const finite = (a: ArrayLike<number>, o: number, n: number): boolean => { for (let k = 0; k < n; k++) if (!Number.isFinite(a[o + k]!)) return false; return true; };

describe('two-bone kernel on hostile input: no trap, no NaN made, outcomes as data', () => {
  for (const seed of [1, 2, 3]) {
    test(`seed ${seed}: 150 frames`, () => {
      const { world, rigs } = hostileWorld(seed, 5);
      const pose = world.pose, L = world.components.Limb;
      const rand = rng(seed * 7 + 1);
      let solved = 0, invalid = 0, unreached = 0;
      for (let f = 0; f < 150; f++) {
        hostileFrame(world, rigs, rand() * 1e9 | 0);
        const before = Float64Array.from([...pose.localR, ...pose.localT]);
        const finiteIn = rigs.map((rig) => finite(pose.charRootWs, rig.binding.charId * 16, 16) && rig.names.every((_, i) => {
          const s = rig.binding.slotOf[i]!; return finite(pose.localR, s * 4, 4) && finite(pose.localT, s * 3, 3) && finite(pose.localS, s * 3, 3);
        }));
        expect(() => twoBoneIK(world, 1 / 60)).not.toThrow();
        // per bone: a rotation (translation) finite before the solve is finite after it
        for (let b = 0; b < pose.localR.length / 4; b++) {
          if (finite(before, b * 4, 4) && !finite(pose.localR, b * 4, 4)) throw new Error(`frame ${f}: the solve made slot ${b}'s local rotation non-finite`);
          if (finite(before, pose.localR.length + b * 3, 3) && !finite(pose.localT, b * 3, 3)) throw new Error(`frame ${f}: the solve made slot ${b}'s local translation non-finite`);
        }
        rigs.forEach((rig, ri) => {
          if (!finiteIn[ri]) return;
          rig.names.forEach((nm, i) => { if (!finite(pose.worldM, rig.binding.slotOf[i]! * 16, 16)) throw new Error(`frame ${f}: rig ${ri} ${nm}: a non-finite world matrix from finite input`); });
        });
        for (const e of world.queries.limbs.dense) {
          // (a leg's flag is the solve's; an arm's also says its hand request was invalid)
          if (L.kind[e] === LIMB_LEG) expect(L.solved[e]! === 1 && L.invalid[e]! === 1, `frame ${f}: leg ${e} solved and invalid`).toBe(false);
          if (L.solved[e] === 1) {
            expect(L.missWs[e]!, `frame ${f}: limb ${e} miss (not NaN, not negative; +Infinity for a target near 1e200)`).toBeGreaterThanOrEqual(0);
            solved++; if (L.reached[e] === 0) unreached++;
          }
          invalid += L.invalid[e]!;
        }
      }
      // (the fixture covers the outcomes: solved, invalid and out-of-reach limbs all occur)
      expect(solved).toBeGreaterThan(150 * 5);
      expect(invalid).toBeGreaterThan(20);
      expect(unreached).toBeGreaterThan(20);
    });
  }
});

describe('two-bone kernel: limbs outside the layout', () => {
  for (const [what, field, value] of [['a subtree end beyond the memory', 'subtreeEnd', 1e9], ['a root slot below zero', 'rootSlot', -5], ['a mid slot beyond the pose store', 'midSlot', 1e6]] as const) {
    test(`${what}: that limb not solved (solved 0, invalid 1), its bones untouched; the others solved; no trap`, () => {
      const world = createBitrigWorld();
      const rigs = [makeBiped({ world }), makeBiped({ world })];
      const L = world.components.Limb, pose = world.pose;
      for (const rig of rigs) {
        for (let i = 0; i < rig.names.length; i++) {
          const s = rig.binding.slotOf[i]!, q = rig.rest[i]!;
          for (let j = 0; j < 3; j++) { pose.localT[s * 3 + j] = q.t[j]!; pose.localS[s * 3 + j] = 1; }
          for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = q.r[j]!;
        }
        for (let j = 0; j < 16; j++) pose.charRootWs[rig.binding.charId * 16 + j] = j % 5 === 0 ? 1 : 0;
        beginCharacterFrame(rig.binding);
        for (const leg of rig.ik.legs) {
          const e = leg.eid, rs = L.rootSlot[e]!;
          L.weight[e] = 0.5; L.rotWeight[e] = 0; L.hasPole[e] = 0;
          L.targetWs[e * 3] = pose.worldM[rs * 16 + 12]! + 0.2; L.targetWs[e * 3 + 1] = pose.worldM[rs * 16 + 13]! - 0.6; L.targetWs[e * 3 + 2] = pose.worldM[rs * 16 + 14]! + 0.1;
        }
      }
      const bad = rigs[1]!.ik.legs[1]!.eid;
      const shin = rigs[1]!.slot('RightLeg');
      const shinBefore = Array.from(pose.localR.subarray(shin * 4, shin * 4 + 4));
      (L[field] as Int32Array)[bad] = value;
      L.solved[bad] = 1; L.invalid[bad] = 0;
      expect(() => twoBoneIK(world, 1 / 60)).not.toThrow();
      expect([L.solved[bad], L.invalid[bad]]).toEqual([0, 1]);
      expect(Array.from(pose.localR.subarray(shin * 4, shin * 4 + 4))).toEqual(shinBefore);
      for (const rig of rigs) for (const leg of rig.ik.legs) if (leg.eid !== bad) { expect(L.solved[leg.eid]).toBe(1); expect(L.reached[leg.eid]).toBe(1); }
    });
  }
});

describe('two-bone kernel over split ranges', () => {
  test('a job system\'s pieces of 7 give the same bytes as one call over every limb (40 characters, 60 hostile frames)', () => {
    const A = hostileWorld(11, 40), B = hostileWorld(11, 40);
    const rand = rng(99);
    for (let f = 0; f < 60; f++) {
      const s = rand() * 1e9 | 0;
      hostileFrame(A.world, A.rigs, s); hostileFrame(B.world, B.rigs, s);
      twoBoneIK(A.world, 1 / 60);
      const n = B.world.queries.limbs.dense.length;
      for (let from = 0; from < n; from += 7) twoBoneIK(B.world, 1 / 60, from, 7);
      for (const k of ['localR', 'localT', 'worldM'] as const) expect(bytesOf(A.world.pose[k]).equals(bytesOf(B.world.pose[k])), `frame ${f}: pose.${k}`).toBe(true);
      for (const [k, v] of Object.entries(A.world.components.Limb)) if (ArrayBuffer.isView(v)) expect(bytesOf(v as Float64Array).equals(bytesOf((B.world.components.Limb as unknown as Record<string, Float64Array>)[k]!)), `frame ${f}: Limb.${k}`).toBe(true);
    }
    expect(A.world.components.Limb.solved.reduce((a, b) => a + b, 0)).toBeGreaterThan(40);
  }, 60_000);
});
