/**
 * TwoBoneIK has two code paths: a fused one for direct chains (root → mid → end, the end a child
 * of the mid bone) and the step-by-step one for anything else (bones between the joints,
 * IK-controller ends). Both must give the same pose. The same character is built twice — once
 * with direct chains, once with an identity "twist" bone inserted above every mid and end bone
 * (same geometry, so the step-by-step path runs) — and driven through 60 frames of swaying,
 * turning body under a rotated, non-uniformly scaled and mirrored root frame, with planted and
 * half-planted feet and a hand reaching with partial weights, a pole and a held object.
 * Tolerances: world matrices 1e-9, miss distances 1e-9 m, held object 1e-9 m; flags equal.
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { bindSkeleton, beginCharacterFrame, type CharacterBinding, type SkeletonSource } from '../../core/binding';
import { addSceneIK, setSceneInputs, type SceneIKHandle } from '../../core/sceneIK';
import { footLock } from '../../systems/footLock';
import { pelvisHeight } from '../../systems/pelvisHeight';
import { twoBoneIK } from '../../systems/twoBoneIK';

// Double precision quaternions: float32 ones are unit only to ~1e-8, and the two paths
// compose a non-unit rotation with its conjugate differently (each right to that level).
glMatrix.setMatrixArrayType(Float64Array as unknown as Float32ArrayConstructor);
const DT = 1 / 60;

interface Rig { world: BitrigWorld; b: CharacterBinding; ik: SceneIKHandle; names: string[]; rest: SkeletonSource['rest'] }

/** A biped with legs and arms; `twist` inserts identity bones above every mid and end bone. */
function makeRig(twist: boolean): Rig {
  const names: string[] = [];
  const parents: number[] = [];
  const pos: number[][] = [];
  const add = (name: string, parent: string | null, p: number[]): void => { names.push(name); parents.push(parent === null ? -1 : names.indexOf(parent)); pos.push(p); };
  add('Hips', null, [0, 0.95, 0]);
  for (const [side, sx] of [['Left', 1], ['Right', -1]] as const) {
    add(`${side}UpLeg`, 'Hips', [0.1 * sx, 0.9, 0]);
    if (twist) add(`${side}UpLegTwist`, `${side}UpLeg`, [0.1 * sx, 0.9, 0]);
    add(`${side}Leg`, twist ? `${side}UpLegTwist` : `${side}UpLeg`, [0.1 * sx, 0.5, 0.05]);
    if (twist) add(`${side}LegTwist`, `${side}Leg`, [0.1 * sx, 0.5, 0.05]);
    add(`${side}Foot`, twist ? `${side}LegTwist` : `${side}Leg`, [0.1 * sx, 0.1, 0]);
    add(`${side}ToeBase`, `${side}Foot`, [0.1 * sx, 0.02, 0.12]);
  }
  add('LeftArm', 'Hips', [0.2, 1.4, 0]);
  if (twist) add('LeftArmTwist', 'LeftArm', [0.2, 1.4, 0]);
  add('LeftForeArm', twist ? 'LeftArmTwist' : 'LeftArm', [0.45, 1.4, -0.03]);
  if (twist) add('LeftForeArmTwist', 'LeftForeArm', [0.45, 1.4, -0.03]);
  add('LeftHand', twist ? 'LeftForeArmTwist' : 'LeftForeArm', [0.7, 1.4, 0]);
  const inverseBind = pos.map((p) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -p[0]!, -p[1]!, -p[2]!, 1]);
  const rest = pos.map((p, i) => ({ t: parents[i]! >= 0 ? p.map((v, k) => v - pos[parents[i]!]![k]!) : p, r: [0, 0, 0, 1], s: [1, 1, 1] }));
  const src: SkeletonSource = { names, parents, inverseBind, rest };
  const world = createBitrigWorld({ entities: 16, bones: 64 });
  const b = bindSkeleton(world, src, { pelvis: 'Hips' } as never);
  const ik = addSceneIK(world, b, {
    limbs: [
      { kind: 'leg', root: 'LeftUpLeg', mid: 'LeftLeg', end: 'LeftFoot', side: 'left' },
      { kind: 'leg', root: 'RightUpLeg', mid: 'RightLeg', end: 'RightFoot', side: 'right' },
      { kind: 'arm', root: 'LeftArm', mid: 'LeftForeArm', end: 'LeftHand', side: 'left' },
    ],
    pelvisRate: 8,
  });
  return { world, b, ik, names, rest };
}

/** The root frame: rotated, non-uniformly scaled and mirrored, moving with the frame index. */
function rootFrame(f: number): mat4 {
  const m = mat4.create();
  mat4.translate(m, m, [0.3 + 0.05 * Math.sin(f * 0.2), 0.02 * Math.sin(f * 0.3), -0.2 + 0.04 * Math.cos(f * 0.17)]);
  mat4.rotateY(m, m, 0.4 + 0.05 * Math.sin(f * 0.1));
  mat4.rotateX(m, m, 0.05);
  mat4.scale(m, m, [-1.1, 0.95, 1.05]);
  return m;
}

/** Animated locals (same for both rigs; twist bones stay identity) and one scene step. */
function step(r: Rig, f: number): void {
  const pose = r.world.pose;
  const q = quat.create();
  for (let i = 0; i < r.names.length; i++) {
    const s = r.b.slotOf[i]!;
    const n = r.names[i]!;
    for (let k = 0; k < 3; k++) { pose.localT[s * 3 + k] = r.rest[i]!.t[k]!; pose.localS[s * 3 + k] = 1; }
    quat.identity(q);
    if (n.endsWith('UpLeg')) quat.rotateX(q, q, -0.25 + 0.1 * Math.sin(f * 0.15 + n.length));
    else if (n.endsWith('Leg')) quat.rotateX(q, q, 0.4 + 0.1 * Math.cos(f * 0.15));
    else if (n.endsWith('Foot')) quat.rotateX(q, q, -0.15);
    else if (n === 'LeftArm') quat.rotateZ(q, q, -0.6);
    else if (n === 'LeftForeArm') quat.rotateY(q, q, 0.5);
    for (let k = 0; k < 4; k++) pose.localR[s * 4 + k] = q[k]!;
  }
  pose.charRootWs.set(rootFrame(f), r.b.charId * 16);
  beginCharacterFrame(r.b);
  const h = 0.5 + 0.5 * Math.sin(f * 0.07);
  setSceneInputs(r.world, r.ik, {
    feet: [1, f < 20 ? 0.6 : f < 40 ? 1 : 0.3],
    grounded: true,
    hands: [{
      position: [0.6, 1.25 + 0.1 * h, 0.35], rotation: [0, Math.sin(0.3), 0, Math.cos(0.3)],
      weight: 0.7 + 0.3 * h, rotationWeight: 0.5, pole: [0.5, 0.9, -0.5],
      grip: { position: [0.05, 0, 0.02], rotation: [Math.sin(0.1), 0, 0, Math.cos(0.1)] },
    }],
  });
  footLock(r.world, DT);
  pelvisHeight(r.world, DT);
  twoBoneIK(r.world, DT);
}

describe('two-bone paths agree', () => {
  test('fused direct-chain path = step-by-step path (world matrices 1e-9, outcomes 1e-9 m, flags equal)', () => {
    const a = makeRig(false), b = makeRig(true);
    // validity: the rigs really take different paths (direct chain vs bones between the joints)
    const La = a.world.components.Limb, Lb = b.world.components.Limb;
    const parentA = a.world.pose.parent, parentB = b.world.pose.parent;
    for (let k = 0; k < 3; k++) {
      const ea = [...a.ik.legs, ...a.ik.arms][k]!.eid, eb = [...b.ik.legs, ...b.ik.arms][k]!.eid;
      expect(parentA[La.midSlot[ea]!]).toBe(La.rootSlot[ea]);
      expect(parentB[Lb.midSlot[eb]!]).not.toBe(Lb.rootSlot[eb]);
    }
    const slotA = (n: string): number => a.b.slotOf[a.names.indexOf(n)]!;
    const slotB = (n: string): number => b.b.slotOf[b.names.indexOf(n)]!;
    const bones = ['Hips', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'LeftToeBase', 'RightUpLeg', 'RightLeg', 'RightFoot', 'RightToeBase', 'LeftArm', 'LeftForeArm', 'LeftHand'];
    let solvedFrames = 0, unreached = 0;
    for (let f = 0; f < 60; f++) {
      step(a, f);
      step(b, f);
      for (const n of bones) {
        const sa = slotA(n) * 16, sb = slotB(n) * 16;
        for (let k = 0; k < 16; k++) {
          const va = a.world.pose.worldM[sa + k]!, vb = b.world.pose.worldM[sb + k]!;
          expect(Number.isFinite(va)).toBe(true);
          expect(Math.abs(va - vb), `frame ${f} ${n}[${k}]`).toBeLessThan(1e-9);
        }
      }
      for (let k = 0; k < 3; k++) {
        const ea = [...a.ik.legs, ...a.ik.arms][k]!.eid, eb = [...b.ik.legs, ...b.ik.arms][k]!.eid;
        expect(La.solved[ea]).toBe(Lb.solved[eb]);
        expect(La.reached[ea]).toBe(Lb.reached[eb]);
        expect(La.invalid[ea]).toBe(Lb.invalid[eb]);
        expect(Math.abs(La.missWs[ea]! - Lb.missWs[eb]!)).toBeLessThan(1e-9);
        expect(Math.abs(La.missFullWs[ea]! - Lb.missFullWs[eb]!)).toBeLessThan(1e-9);
        expect(Math.abs(La.extension[ea]! - Lb.extension[eb]!)).toBeLessThan(1e-9);
        solvedFrames += La.solved[ea]!;
        unreached += La.reached[ea] === 1 ? 0 : 1;
      }
      const ha = a.ik.arms[0]!.eid, hb = b.ik.arms[0]!.eid;
      const Ha = a.world.components.HandTarget, Hb = b.world.components.HandTarget;
      expect(Ha.reposition[ha]).toBe(Hb.reposition[hb]);
      for (let k = 0; k < 3; k++) expect(Math.abs(Ha.objectPosWs[ha * 3 + k]! - Hb.objectPosWs[hb * 3 + k]!)).toBeLessThan(1e-9);
    }
    // the comparison covered real solves (every limb, every frame)
    expect(solvedFrames).toBe(180);
    void unreached;
  });
});

describe('fused and step-by-step limbs in one frame', () => {
  /** Three legs: A direct under Hips, B with a twist bone under a turned Spine (step-by-step), C under Hips, direct or not. */
  function threeLegs(cTwist: boolean) {
    const names: string[] = [], parents: number[] = [], pos: number[][] = [];
    const add = (n: string, p: string | null, x: number[]): void => { names.push(n); parents.push(p === null ? -1 : names.indexOf(p)); pos.push(x); };
    add('Hips', null, [0, 0.95, 0]);
    add('Spine', 'Hips', [0, 1.1, 0]);
    const leg = (s: string, par: string, x: number, twist: boolean): void => {
      add(`${s}UpLeg`, par, [x, 0.9, 0]);
      if (twist) add(`${s}Tw`, `${s}UpLeg`, [x, 0.9, 0]);
      add(`${s}Leg`, twist ? `${s}Tw` : `${s}UpLeg`, [x, 0.5, 0.05]);
      add(`${s}Foot`, `${s}Leg`, [x, 0.1, 0]);
    };
    leg('A', 'Hips', 0.1, false);
    leg('B', 'Spine', 0, true);
    leg('C', 'Hips', -0.1, cTwist);
    const inverseBind = pos.map((p) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -p[0]!, -p[1]!, -p[2]!, 1]);
    const rest = pos.map((p, i) => ({ t: parents[i]! >= 0 ? p.map((v, k) => v - pos[parents[i]!]![k]!) : p, r: [0, 0, 0, 1], s: [1, 1, 1] }));
    const world = createBitrigWorld({ entities: 16, bones: 64 });
    const b = bindSkeleton(world, { names, parents, inverseBind, rest }, { pelvis: 'Hips' });
    const ik = addSceneIK(world, b, { arms: false, limbs: [
      { kind: 'leg', root: 'AUpLeg', mid: 'ALeg', end: 'AFoot', side: 'left' },
      { kind: 'leg', root: 'BUpLeg', mid: 'BLeg', end: 'BFoot', side: 'left' },
      { kind: 'leg', root: 'CUpLeg', mid: 'CLeg', end: 'CFoot', side: 'right' },
    ] });
    const pose = world.pose;
    for (let i = 0; i < names.length; i++) {
      const s = b.slotOf[i]!;
      for (let k = 0; k < 3; k++) { pose.localT[s * 3 + k] = rest[i]!.t[k]!; pose.localS[s * 3 + k] = 1; }
      const q = names[i] === 'Spine' ? [0, Math.sin(0.6), 0, Math.cos(0.6)] : /^[ABC]Leg$/.test(names[i]!) ? [Math.sin(0.2), 0, 0, Math.cos(0.2)] : [0, 0, 0, 1];
      for (let k = 0; k < 4; k++) pose.localR[s * 4 + k] = q[k]!;
    }
    beginCharacterFrame(b);
    const L = world.components.Limb;
    for (const h of ik.legs) {
      const e = h.eid, es = L.endSlot[e]! * 16;
      L.weight[e] = 1; L.rotWeight[e] = 0.5; L.hasTargetRot[e] = 1; L.hasPole[e] = 0; // half rotation weight
      L.targetWs[e * 3] = pose.worldM[es + 12]! + 0.05; L.targetWs[e * 3 + 1] = pose.worldM[es + 13]! + 0.1; L.targetWs[e * 3 + 2] = pose.worldM[es + 14]!;
      L.targetRotWs.set([Math.sin(0.4), 0, 0, Math.cos(0.4)], e * 4);
    }
    twoBoneIK(world, DT);
    const c = b.slotOf[names.indexOf('CFoot')]! * 16;
    return Array.from(pose.worldM.subarray(c, c + 16));
  }

  test('a fused limb after a step-by-step limb on another parent uses its own parent (half rotation weight; 1e-9)', () => {
    const fused = threeLegs(false), general = threeLegs(true);
    for (let k = 0; k < 16; k++) expect(Math.abs(fused[k]! - general[k]!)).toBeLessThan(1e-9);
  });
});
