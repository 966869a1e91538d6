/**
 * Hand targets and held objects: a world position and orientation with a
 * blend weight, solved exactly under translated, rotated, scaled and mirrored parents; a held
 * object's wrist target = object pose × grip⁻¹ (key in a lock, a jug's spout over a cup while
 * tilting); out of reach the arm is clamped, never stretched, the object stays on the solved
 * hand and the result says the character must be repositioned.
 */
import { describe, expect, test } from 'vitest';
import { mat4, quat, vec3 } from 'gl-matrix';
import { makeBiped, dist, quatAngle, PARENTS, SHEARED_PARENTS, type BipedRig } from './rig';
import { sceneDiagnostics, type HandTargetInput } from '../../core/sceneIK';

const DEG = Math.PI / 180;
const DT = 1 / 60;

function xform(m: mat4, p: number[]): number[] {
  const o = vec3.transformMat4(vec3.create(), p as unknown as vec3, m);
  return [o[0]!, o[1]!, o[2]!];
}

function armLengths(rig: BipedRig): number[] {
  return [dist(rig.pos('LeftArm'), rig.pos('LeftForeArm')), dist(rig.pos('LeftForeArm'), rig.pos('LeftHand'))];
}

describe('hand targets under parent transforms', () => {
  for (const [name, make] of Object.entries(PARENTS)) {
    test(`${name} parent: wrist within 0.1 mm of the target and 0.1° of its orientation (x axis exact, y in the target's xy plane under the sheared frame); local bone lengths untouched`, () => {
      const rig = makeBiped();
      mat4.copy(rig.root, make());
      rig.frame(DT, { feet: [0, 0] });
      const restT = ['LeftArm', 'LeftForeArm', 'LeftHand'].map((n) => rig.localT(n));
      const lengths0 = armLengths(rig);
      const targets = [[0.55, 1.25, 0.25], [0.35, 1.7, 0.2], [0.5, 1.1, -0.15], [0.25, 1.2, 0.3]];
      let worstPos = 0, worstRot = 0;
      for (const [i, tl] of targets.entries()) {
        const target = xform(rig.root, tl);
        const rotation = quat.normalize(quat.create(), [0.2 * i, 0.5, -0.3, 0.8]);
        rig.frame(DT, { hands: [{ position: target, rotation }, null] });
        const d = sceneDiagnostics(rig.world, rig.ik);
        expect(d.hands[0]!.reached).toBe(true);
        worstPos = Math.max(worstPos, dist(rig.pos('LeftHand'), target));
        worstRot = Math.max(worstRot, quatAngle(rig.rot('LeftHand'), rotation));
        ['LeftArm', 'LeftForeArm', 'LeftHand'].forEach((n, k) => expect(rig.localT(n)).toEqual(restT[k]));
        if (!SHEARED_PARENTS.has(name)) {
          const l = armLengths(rig);
          expect(Math.abs(l[0]! - lengths0[0]!)).toBeLessThan(1e-9 * lengths0[0]!);
          expect(Math.abs(l[1]! - lengths0[1]!)).toBeLessThan(1e-9 * lengths0[1]!);
        }
      }
      expect(worstPos).toBeLessThan(1e-4);
      expect(worstRot).toBeLessThan(0.1 * DEG);
    });
  }

  test('weight 0 leaves the arm exactly as animated; weight 0.5 lands halfway (1e-9 m)', () => {
    const rig = makeBiped();
    rig.frame(DT, { feet: [0, 0] });
    const anim = rig.pos('LeftHand');
    const pose = rig.world.pose;
    const target = [0.45, 1.2, 0.3];
    rig.frame(DT, { hands: [{ position: target, weight: 0 }, null] });
    for (const n of ['LeftArm', 'LeftForeArm', 'LeftHand']) {
      const s = rig.slot(n);
      const r = rig.rest[rig.names.indexOf(n)]!;
      for (let j = 0; j < 4; j++) expect(pose.localR[s * 4 + j]).toBe(r.r[j]);
    }
    rig.frame(DT, { hands: [{ position: target, weight: 0.5 }, null] });
    const half = [0, 1, 2].map((k) => anim[k]! + 0.5 * (target[k]! - anim[k]!));
    expect(dist(rig.pos('LeftHand'), half)).toBeLessThan(1e-9);
  });

  test('the elbow follows a pole guide (elbow on the pole side of the shoulder→wrist line)', () => {
    const rig = makeBiped();
    const target = [0.5, 1.2, 0.2];
    for (const pole of [[0.4, 0.9, 0], [0.4, 1.9, 0], [0.4, 1.3, -0.8]]) {
      rig.frame(DT, { hands: [{ position: target, pole }, null] });
      const a = rig.pos('LeftArm'), e = rig.pos('LeftForeArm');
      const t = vec3.normalize(vec3.create(), vec3.sub(vec3.create(), target as unknown as vec3, a as unknown as vec3));
      const rel = (p: number[]): vec3 => {
        const v = vec3.sub(vec3.create(), p as unknown as vec3, a as unknown as vec3);
        return vec3.scaleAndAdd(vec3.create(), v, t, -vec3.dot(v, t));
      };
      expect(vec3.dot(rel(e), rel(pole))).toBeGreaterThan(0);
      expect(dist(rig.pos('LeftHand'), target)).toBeLessThan(1e-4);
    }
  });
});

describe('orientation under a non-uniformly scaled (sheared) root frame', () => {
  // A sheared world matrix has no exact rotation; the library's orientation is its x column
  // (negated when mirrored) exactly and its y column made orthogonal to it (rig.rot).
  for (const name of SHEARED_PARENTS) {
    test(`${name}: a position-only target keeps the animated wrist orientation (0.1°); rotation weights 0.25, 0.5, 0.75 land that far in angle (0.1°)`, () => {
      const rig = makeBiped();
      mat4.copy(rig.root, PARENTS[name]!());
      rig.frame(DT, { feet: [0, 0] });
      const animRot = rig.rot('LeftHand');
      const target = xform(rig.root, [0.45, 1.25, 0.25]);
      rig.frame(DT, { hands: [{ position: target }, null] });
      expect(dist(rig.pos('LeftHand'), target)).toBeLessThan(1e-4);
      expect(quatAngle(rig.rot('LeftHand'), animRot)).toBeLessThan(0.1 * DEG);
      const rotation = quat.normalize(quat.create(), [0.3, -0.4, 0.2, 0.8]);
      for (const rw of [0.25, 0.5, 0.75]) {
        rig.frame(DT, { hands: [{ position: target, rotation, rotationWeight: rw }, null] });
        const want = quat.slerp(quat.create(), animRot, rotation, rw);
        expect(quatAngle(rig.rot('LeftHand'), want), `rotation weight ${rw}`).toBeLessThan(0.1 * DEG);
        expect(dist(rig.pos('LeftHand'), target)).toBeLessThan(1e-4);
      }
    });

    test(`${name}: key in lock — the key tip is on the lock within 0.5 mm, the key's orientation within 0.1°`, () => {
      const rig = makeBiped();
      mat4.copy(rig.root, PARENTS[name]!());
      const grip = { position: [0.09, -0.01, 0.02], rotation: Array.from(quat.normalize(quat.create(), [0.1, 0.7, 0.1, 0.7])) };
      const keyTip = [0, 0, 0.055];
      let worstTip = 0, worstRot = 0;
      for (let f = 0; f < 40; f++) {
        const keyRot = quat.setAxisAngle(quat.create(), [0, 0, 1], (f / 39) * (Math.PI / 2));
        const tipTarget = xform(rig.root, [0.42, 1.3, 0.35]);
        const o = vec3.transformQuat(vec3.create(), keyTip as unknown as vec3, keyRot);
        const keyPos = [tipTarget[0]! - o[0]!, tipTarget[1]! - o[1]!, tipTarget[2]! - o[2]!];
        rig.frame(DT, { hands: [{ position: keyPos, rotation: keyRot, grip }, null] });
        const h = sceneDiagnostics(rig.world, rig.ik).hands[0]!;
        expect(h.reached).toBe(true);
        worstTip = Math.max(worstTip, dist(tipOf(h.objectPosWs, h.objectRotWs, keyTip), tipTarget));
        worstRot = Math.max(worstRot, quatAngle(h.objectRotWs, keyRot));
      }
      expect(worstTip).toBeLessThan(5e-4);
      expect(worstRot).toBeLessThan(0.1 * DEG);
    });
  }
});

describe('orientation with scales on the arm and with an IK-controller end', () => {
  // Negative or non-uniform scales on the chain's bones (mirrored exports, squashed limbs) make
  // world and local rotations stop composing, as a sheared parent does.
  const cases: Array<[string, Record<string, number[]>]> = [
    ['hand scale (1, −1, 1)', { LeftHand: [1, -1, 1] }],
    ['hand scale (−1, −1, 1)', { LeftHand: [-1, -1, 1] }],
    ['hand scale (1, 1, −1)', { LeftHand: [1, 1, -1] }],
    ['forearm scale (1.3, 0.8, 1)', { LeftForeArm: [1.3, 0.8, 1] }],
    ['arm scale (−1, 1, 1), forearm (0.9, 1.2, 1.1)', { LeftArm: [-1, 1, 1], LeftForeArm: [0.9, 1.2, 1.1] }],
  ];
  for (const parent of ['identity', 'uniformScale', 'nonUniformScale']) {
    for (const [label, scales] of cases) {
      test(`${parent} parent, ${label}: the wrist meets its rotation target within 0.1° and its position within 0.1 mm`, () => {
        const rig = makeBiped();
        mat4.copy(rig.root, PARENTS[parent]!());
        for (const [bone, sc] of Object.entries(scales)) rig.overrides.set(bone, { s: sc });
        rig.frame(DT, { feet: [0, 0] });
        for (const [i, tl] of [[0.5, 1.25, 0.25], [0.35, 1.6, 0.2]].entries()) {
          const target = xform(rig.root, tl);
          const rotation = quat.normalize(quat.create(), [0.2 + 0.3 * i, -0.4, 0.2, 0.8]);
          rig.frame(DT, { hands: [{ position: target, rotation }, null] });
          expect(quatAngle(rig.rot('LeftHand'), rotation)).toBeLessThan(0.1 * DEG);
          expect(dist(rig.pos('LeftHand'), target)).toBeLessThan(1e-4);
        }
      });
    }
  }

  for (const scale of [[1.3, 0.8, 1], [1, 1.4, 1], [-1.2, 0.9, 1]]) {
    test(`a non-uniform scale on the arm bone itself (${scale.join(', ')}, a stretchy upper arm): the forearm's length in the world then depends on the elbow angle; the refined solve still puts the wrist within 0.1 mm and its orientation within 0.1°; out of reach the miss is reported exactly (1e-9 m), nothing is NaN`, () => {
      const rig = makeBiped();
      rig.overrides.set('LeftArm', { s: scale });
      rig.frame(DT, { feet: [0, 0] });
      const Lm = rig.world.components.Limb, e = rig.ik.arms[0]!.eid;
      const A = rig.pos('LeftArm');
      const reach = dist(A, rig.pos('LeftForeArm')) + dist(rig.pos('LeftForeArm'), rig.pos('LeftHand'));
      // targets at 80 % of the animated pose's reach (and one at twice it)
      for (const [k, dir] of [[1, 0.2, 0.3], [0.3, 1, 0.1], [0.5, -0.5, 0.7], [1, 0.1, 0.4]].entries()) {
        const far = k === 3;
        const d = vec3.normalize(vec3.create(), dir as unknown as vec3);
        const tl = [0, 1, 2].map((j) => A[j]! + (far ? 2 : 0.8) * reach * d[j]!);
        const rotation = quat.normalize(quat.create(), [0.1, 0.3, -0.2, 0.9]);
        rig.frame(DT, { hands: [{ position: tl, rotation }, null] });
        const h = sceneDiagnostics(rig.world, rig.ik).hands[0]!;
        const miss = dist(rig.pos('LeftHand'), tl);
        expect(h.reached, `target ${tl}`).toBe(!far);
        if (!far) expect(miss).toBeLessThan(1e-4);
        expect(Math.abs(Lm.missWs[e]! - miss)).toBeLessThan(1e-9);
        expect(quatAngle(rig.rot('LeftHand'), rotation)).toBeLessThan(0.1 * DEG);
        expect(rig.world.pose.worldM.every(Number.isFinite)).toBe(true);
      }
    });
  }

  for (const [scale, soften] of [[[1.5, 0.82, 0.82], 0.01], [[0.7, 1.2, 1.2], 0.01], [[3, 1, 1], 0.01], [[1.5, 0.82, 0.82], 0.1]] as const) {
    test(`a stretchy upper arm (${scale.join(', ')}), soften ${soften}: a target swept through and past the reach in 0.2 mm steps moves wrist and elbow continuously (wrist ≤ 10×, elbow ≤ 100× the target's step), meets every target within the reach (0.1 mm; the reach: the farthest the wrist gets over a fine sweep of targets), and flags reposition only beyond it`, () => {
      const rig = makeBiped({ ik: { soften } });
      rig.overrides.set('LeftArm', { s: scale as unknown as number[] });
      rig.frame(DT, { feet: [0, 0] });
      const A = rig.pos('LeftArm');
      const dir = vec3.normalize(vec3.create(), [1, -0.3, 0.4]);
      // Brute force: the farthest the wrist gets from the shoulder over a fan of elbow-reaching
      // targets (each solved exactly when reachable), i.e. the arm's real reach.
      let reach = 0;
      for (let d = 0.05; d < 1.6; d += 0.002) {
        rig.frame(DT, { hands: [{ position: [0, 1, 2].map((j) => A[j]! + d * dir[j]!) }, null] });
        reach = Math.max(reach, dist(A, rig.pos('LeftHand')));
      }
      const step = 2e-4;
      let prevHand: number[] | null = null, prevElbow: number[] | null = null;
      let worstHand = 0, worstElbow = 0, worstMiss = 0, unreached = 0, falseReposition = 0, missedReposition = 0;
      for (let d = 0.35 * reach; d <= 1.04 * reach; d += step) {
        const t = [0, 1, 2].map((j) => A[j]! + d * dir[j]!);
        rig.frame(DT, { hands: [{ position: t }, null] });
        const hand = rig.pos('LeftHand'), elbow = rig.pos('LeftForeArm');
        if (prevHand) { worstHand = Math.max(worstHand, dist(hand, prevHand) / step); worstElbow = Math.max(worstElbow, dist(elbow, prevElbow!) / step); }
        prevHand = hand; prevElbow = elbow;
        const hd = sceneDiagnostics(rig.world, rig.ik).hands[0]!;
        if (d <= (1 - soften) * reach - 1e-4) {
          worstMiss = Math.max(worstMiss, dist(hand, t));
          if (!hd.reached) unreached++;
          if (hd.reposition) falseReposition++;
        }
        if (d >= reach + 2e-3 && !hd.reposition) missedReposition++;
      }
      expect(worstMiss).toBeLessThan(1e-4);
      expect(unreached).toBe(0);
      expect(falseReposition).toBe(0);
      expect(missedReposition).toBe(0);
      expect(worstHand).toBeLessThan(10);
      expect(worstElbow).toBeLessThan(100);
    }, 60_000);
  }

  test('a stretchy upper arm with position weight 0.3, with soften 0.1, and the reposition flag: the wrist lands 30 % of the way (0.1 mm); softening is kept (as on a uniform arm, 0.5 mm); reposition only out of reach', () => {
    const make = (sc: number[], soften?: number): BipedRig => {
      const r = makeBiped(soften === undefined ? {} : { ik: { soften } });
      r.overrides.set('LeftArm', { s: sc });
      r.frame(DT, { feet: [0, 0] });
      return r;
    };
    const rig = make([1.3, 0.8, 1]);
    const anim = rig.pos('LeftHand');
    const A = rig.pos('LeftArm');
    const reach = dist(A, rig.pos('LeftForeArm')) + dist(rig.pos('LeftForeArm'), anim);
    const dir = vec3.normalize(vec3.create(), [1, 0.2, 0.3]);
    const t = [0, 1, 2].map((j) => A[j]! + 0.8 * reach * dir[j]!);
    rig.frame(DT, { hands: [{ position: t, weight: 0.3 }, null] });
    expect(dist(rig.pos('LeftHand'), [0, 1, 2].map((j) => anim[j]! + 0.3 * (t[j]! - anim[j]!)))).toBeLessThan(1e-4);
    expect(sceneDiagnostics(rig.world, rig.ik).hands[0]!.reposition).toBe(false);
    rig.frame(DT, { hands: [{ position: [0, 1, 2].map((j) => A[j]! + 2 * reach * dir[j]!) }, null] });
    expect(sceneDiagnostics(rig.world, rig.ik).hands[0]!.reposition).toBe(true);
    // soften: a nearly uniform stretch (1e-5) takes the refined path and must land where the uniform arm does
    const soft = make([1, 1.00001, 1], 0.1), hard = make([1, 1, 1], 0.1);
    for (const r of [soft, hard]) {
      const a = r.pos('LeftArm');
      r.frame(DT, { hands: [{ position: [0, 1, 2].map((j) => a[j]! + 0.98 * reach * dir[j]!) }, null] });
    }
    expect(dist(soft.pos('LeftHand'), hard.pos('LeftHand'))).toBeLessThan(5e-4);
  });

  test('a stretchy upper arm (1.5, 0.82, 0.82) with a bent animated elbow and soften 0.1: near the reach the wrist lands where the kernel\'s softening puts it on the arm\'s real reach (0.1 mm)', () => {
    const rig = makeBiped({ ik: { soften: 0.1 } });
    rig.overrides.set('LeftArm', { s: [1.5, 0.82, 0.82] });
    rig.overrides.set('LeftForeArm', { r: Array.from(quat.normalize(quat.create(), quat.multiply(quat.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], 1.1), rig.rest[rig.names.indexOf('LeftForeArm')]!.r as unknown as quat))) });
    rig.frame(DT, { feet: [0, 0] });
    const A = rig.pos('LeftArm');
    const dcA = dist(A, rig.pos('LeftHand')); // the animated wrist's distance
    const dir = vec3.normalize(vec3.create(), [1, -0.3, 0.4]);
    rig.frame(DT, { hands: [{ position: [0, 1, 2].map((j) => A[j]! + 5 * dir[j]!) }, null] });
    const Lr = dist(A, rig.pos('LeftHand')); // the real reach (the wrist on a far target)
    expect(dcA).toBeLessThan(0.9 * Lr); // (bent: the softening band starts at 0.9·Lr)
    for (const k of [0.93, 0.96, 0.99, 1.02]) {
      const D = k * Lr;
      rig.frame(DT, { hands: [{ position: [0, 1, 2].map((j) => A[j]! + D * dir[j]!) }, null] });
      const da = 0.9 * Lr, sl = Lr - da;
      const want = D > da ? da + sl * (1 - Math.exp(-(D - da) / sl)) : D;
      expect(Math.abs(dist(A, rig.pos('LeftHand')) - want), `target at ${k}·reach`).toBeLessThan(1e-4);
    }
  });

  // The step-by-step path with a bone between the limb's root and mid: the root is the
  // shoulder, the arm bone sits between, scaled; targets at 80 % of the reach, in the root frame.
  for (const [parent, bone, sc] of [
    ['identity', 'LeftArm', [-1, 1, 1]], ['identity', 'LeftArm', [1, -1, -1]], ['mirrored', 'LeftArm', [-1.2, -1.2, 1.2]],
    ['nonUniformScale', 'LeftArm', [-1, 1, 1]], ['identity', 'LeftShoulder', [-1, 1, 1]], ['nonUniformScale', 'LeftForeArm', [-1, 1, 1]],
  ] as const) {
    test(`${parent} parent, a bone between root and mid (${bone} scaled ${sc.join(', ')}): the wrist meets position (0.1 mm) and rotation (0.1°) targets`, () => {
      const rig = makeBiped({ ik: { limbs: [
        { kind: 'leg', root: 'LeftUpLeg', mid: 'LeftLeg', end: 'LeftFoot', side: 'left' },
        { kind: 'leg', root: 'RightUpLeg', mid: 'RightLeg', end: 'RightFoot', side: 'right' },
        { kind: 'arm', root: 'LeftShoulder', mid: 'LeftForeArm', end: 'LeftHand', side: 'left' },
      ] } });
      mat4.copy(rig.root, PARENTS[parent]!());
      rig.overrides.set(bone, { s: sc as unknown as number[] });
      rig.frame(DT, { feet: [0, 0] });
      const inv = mat4.invert(mat4.create(), rig.root)!;
      const local = (n: string): vec3 => vec3.transformMat4(vec3.create(), rig.pos(n) as unknown as vec3, inv);
      const A = local('LeftShoulder'), B = local('LeftForeArm'), C = local('LeftHand');
      const reach = vec3.distance(A, B) + vec3.distance(B, C);
      for (const [k, dir] of [[1, 0.2, 0.3], [0.3, 1, 0.1], [0.5, -0.5, 0.7]].entries()) {
        const d = vec3.normalize(vec3.create(), dir as unknown as vec3);
        const target = Array.from(vec3.transformMat4(vec3.create(), vec3.scaleAndAdd(vec3.create(), A, d, 0.8 * reach), rig.root));
        const rotation = quat.normalize(quat.create(), [0.1 + 0.2 * k, 0.3, -0.2, 0.9]);
        rig.frame(DT, { feet: [0, 0], hands: [{ position: target, rotation }, null] });
        expect(dist(rig.pos('LeftHand'), target)).toBeLessThan(1e-4);
        expect(quatAngle(rig.rot('LeftHand'), rotation)).toBeLessThan(0.1 * DEG);
      }
    });
  }

  for (const [parent, armScale, under] of [['identity', null, 'Spine'], ['nonUniformScale', null, 'Spine'], ['mirroredNonUniform', null, 'Spine'], ['identity', [-1, 1, 1], 'Spine'], ['uniformScale', [1, -1, -1], 'Spine'], ['identity', [1.3, 0.8, 1], 'Spine'], ['identity', [1.5, 0.82, 0.82], 'LeftArm']] as const) {
    test(`${parent} parent${armScale ? `, arm scale (${armScale.join(', ')})` : ''}: an IK-controller end (a bone under the ${under}, not under the forearm) meets its rotation target within 0.1° (weights 1 and 0.25) and its position within 0.1 mm`, () => {
      const rig = makeBiped({
        handController: under,
        ik: { limbs: [
          { kind: 'leg', root: 'LeftUpLeg', mid: 'LeftLeg', end: 'LeftFoot', side: 'left' },
          { kind: 'leg', root: 'RightUpLeg', mid: 'RightLeg', end: 'RightFoot', side: 'right' },
          { kind: 'arm', root: 'LeftArm', mid: 'LeftForeArm', end: 'LeftHandIK', side: 'left' },
        ] },
      });
      expect(rig.world.components.Limb.endIsChild[rig.ik.arms[0]!.eid]).toBe(0);
      mat4.copy(rig.root, PARENTS[parent]!());
      if (armScale) rig.overrides.set('LeftArm', { s: armScale });
      rig.frame(DT, { feet: [0, 0] });
      const anim = rig.rot('LeftHandIK');
      const target = xform(rig.root, [0.5, 1.25, 0.25]);
      const rotation = quat.normalize(quat.create(), [0.3, -0.4, 0.2, 0.8]);
      rig.frame(DT, { hands: [{ position: target, rotation }, null] });
      expect(quatAngle(rig.rot('LeftHandIK'), rotation)).toBeLessThan(0.1 * DEG);
      expect(dist(rig.pos('LeftHandIK'), target)).toBeLessThan(1e-4);
      // the forearm itself reaches: its tip (where the controller sat at bind, in its frame) is on the target
      const e = rig.ik.arms[0]!.eid, tipLs = rig.world.components.Limb.tipLs.subarray(e * 3, e * 3 + 3);
      const fore = rig.slot('LeftForeArm');
      const tip = vec3.transformMat4(vec3.create(), tipLs as unknown as vec3, rig.world.pose.worldM.subarray(fore * 16, fore * 16 + 16) as unknown as mat4);
      expect(dist(tip, target)).toBeLessThan(1e-4);
      rig.frame(DT, { hands: [{ position: target, rotation, rotationWeight: 0.25 }, null] });
      expect(quatAngle(rig.rot('LeftHandIK'), quat.slerp(quat.create(), anim, rotation, 0.25))).toBeLessThan(0.1 * DEG);
    });
  }
});

/** Object pose → tip point. */
function tipOf(pos: ArrayLike<number>, rot: ArrayLike<number>, tipLocal: number[]): number[] {
  const o = vec3.transformQuat(vec3.create(), tipLocal as unknown as vec3, rot as unknown as quat);
  return [pos[0]! + o[0]!, pos[1]! + o[1]!, pos[2]! + o[2]!];
}

describe('held objects', () => {
  const grip = { position: [0.09, -0.01, 0.02], rotation: Array.from(quat.normalize(quat.create(), [0.1, 0.7, 0.1, 0.7])) };
  const keyTip = [0, 0, 0.055];

  test('key in lock: approach, insert, turn — the key tip is on the lock within 0.5 mm every reachable frame', () => {
    const rig = makeBiped();
    const lock = [0.42, 1.3, 0.35];
    // insertion axis +z (into the door), key's local +z along it; the turn rolls about it
    let worst = 0, frames = 0;
    for (let f = 0; f < 150; f++) {
      const t = f / 149;
      const approach = Math.max(0, 1 - t * 2.5) * 0.08; // 8 cm in front of the lock, then in
      const turn = t > 0.6 ? ((t - 0.6) / 0.4) * (Math.PI / 2) : 0;
      const keyRot = quat.setAxisAngle(quat.create(), [0, 0, 1], turn);
      const tipTarget = [lock[0]!, lock[1]!, lock[2]! - approach];
      const o = vec3.transformQuat(vec3.create(), keyTip as unknown as vec3, keyRot);
      const keyPos = [tipTarget[0]! - o[0]!, tipTarget[1]! - o[1]!, tipTarget[2]! - o[2]!];
      const hand: HandTargetInput = { position: keyPos, rotation: keyRot, grip };
      rig.frame(DT, { feet: [1, 1], hands: [hand, null] });
      const d = sceneDiagnostics(rig.world, rig.ik);
      expect(d.hands[0]!.reached).toBe(true);
      const tip = tipOf(d.hands[0]!.objectPosWs, d.hands[0]!.objectRotWs, keyTip);
      worst = Math.max(worst, dist(tip, tipTarget));
      frames++;
    }
    expect(frames).toBe(150);
    expect(worst).toBeLessThan(5e-4);
  });

  test('pouring: the spout stays over the cup while the jug tilts 0 → 70° (spout within 0.5 mm)', () => {
    const rig = makeBiped();
    const spoutLocal = [0, 0.12, 0.09];
    const cupPoint = [0.38, 1.32, 0.3];
    let worst = 0;
    for (let f = 0; f <= 90; f++) {
      const tilt = (f / 90) * 70 * DEG;
      const jugRot = quat.setAxisAngle(quat.create(), [1, 0, 0], tilt);
      const o = vec3.transformQuat(vec3.create(), spoutLocal as unknown as vec3, jugRot);
      const jugPos = [cupPoint[0]! - o[0]!, cupPoint[1]! - o[1]!, cupPoint[2]! - o[2]!];
      rig.frame(DT, { hands: [{ position: jugPos, rotation: jugRot, grip, mass: 1.5 }, null] });
      const d = sceneDiagnostics(rig.world, rig.ik);
      expect(d.hands[0]!.reached).toBe(true);
      worst = Math.max(worst, dist(tipOf(d.hands[0]!.objectPosWs, d.hands[0]!.objectRotWs, spoutLocal), cupPoint));
    }
    expect(worst).toBeLessThan(5e-4);
  });

  test('out of reach: clamped, never stretched (lengths 1e-9), object stays on the solved hand (1e-9), reposition reported, no NaN', () => {
    const rig = makeBiped();
    rig.frame(DT, { feet: [1, 1] });
    const lengths0 = armLengths(rig);
    const far = [1.8, 1.6, 1.2];
    const rot = quat.setAxisAngle(quat.create(), [0, 1, 0], 0.5);
    rig.frame(DT, { feet: [1, 1], hands: [{ position: far, rotation: rot, grip }, null] });
    const d = sceneDiagnostics(rig.world, rig.ik);
    const h = d.hands[0]!;
    expect(h.reached).toBe(false);
    expect(h.reposition).toBe(true);
    expect(d.repositionNeeded).toBe(true);
    const l = armLengths(rig);
    expect(Math.abs(l[0]! - lengths0[0]!)).toBeLessThan(1e-9);
    expect(Math.abs(l[1]! - lengths0[1]!)).toBeLessThan(1e-9);
    // the held object sits on the solved hand: object = wrist × grip
    const wp = rig.pos('LeftHand'), wr = rig.rot('LeftHand');
    const expectPos = tipOf(wp, wr, grip.position);
    const expectRot = quat.multiply(quat.create(), wr, grip.rotation as unknown as quat);
    expect(dist(h.objectPosWs, expectPos)).toBeLessThan(1e-9);
    expect(quatAngle(h.objectRotWs, expectRot)).toBeLessThan(1e-9);
    // the arm points at the wrist target, fully extended
    const a = rig.pos('LeftArm'), e = rig.pos('LeftForeArm');
    const wristTarget = (() => {
      const wrot = quat.multiply(quat.create(), rot, quat.invert(quat.create(), grip.rotation as unknown as quat));
      const o = vec3.transformQuat(vec3.create(), grip.position as unknown as vec3, wrot);
      return [far[0]! - o[0]!, far[1]! - o[1]!, far[2]! - o[2]!];
    })();
    const u1 = vec3.normalize(vec3.create(), vec3.sub(vec3.create(), e as unknown as vec3, a as unknown as vec3));
    const u2 = vec3.normalize(vec3.create(), vec3.sub(vec3.create(), wp as unknown as vec3, e as unknown as vec3));
    const ut = vec3.normalize(vec3.create(), vec3.sub(vec3.create(), wristTarget as unknown as vec3, a as unknown as vec3));
    expect(vec3.dot(u1, u2)).toBeGreaterThan(1 - 1e-9);
    expect(vec3.dot(u1, ut)).toBeGreaterThan(1 - 1e-9);
    expect(h.extension).toBeGreaterThan(1 - 1e-9);
    expect([...h.objectPosWs, ...h.objectRotWs].every(Number.isFinite)).toBe(true);
  });

  test('releasing a hand (null) returns the arm to the animation', () => {
    const rig = makeBiped();
    rig.frame(DT, { hands: [{ position: [0.5, 1.2, 0.2] }, null] });
    rig.frame(DT, { hands: [null, null] });
    const pose = rig.world.pose;
    for (const n of ['LeftArm', 'LeftForeArm', 'LeftHand']) {
      const s = rig.slot(n);
      const r = rig.rest[rig.names.indexOf(n)]!;
      for (let j = 0; j < 4; j++) expect(pose.localR[s * 4 + j]).toBe(r.r[j]);
    }
  });
});
