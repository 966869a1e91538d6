/**
 * Scene IK geometry on small fixtures (the code biped of ./rig): a character under a mirroring
 * parent solves to the mirror image of the same character unmirrored (legs planted, a hand
 * reaching), and golden values of a hand reach and a stepped-up foot (joint positions, world
 * metres, 1e-9 m) pin the solve down.
 */
import { describe, expect, test } from 'vitest';
import { mat4, vec3 } from 'gl-matrix';
import type { GroundQuery } from '../../core/sceneIK';
import { makeBiped, dist } from './rig';

const DT = 1 / 60;
const JOINTS = ['Hips', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'RightUpLeg', 'RightLeg', 'RightFoot', 'LeftArm', 'LeftForeArm', 'LeftHand'];

describe('mirror symmetry', () => {
  test('under a parent mirroring x (scale −1, 1, 1) with the hand target mirrored: every joint is the mirror image of the unmirrored solve (1e-9 m), bone lengths kept (1e-9 relative)', () => {
    const M = mat4.fromScaling(mat4.create(), [-1, 1, 1]);
    const target = [0.5, 1.25, 0.3];
    const A = makeBiped(), B = makeBiped();
    mat4.copy(B.root, M);
    const mt = vec3.transformMat4(vec3.create(), target as unknown as vec3, M);
    for (let f = 0; f < 20; f++) {
      A.frame(DT, { feet: [1, 1], hands: [{ position: target }, null] });
      B.frame(DT, { feet: [1, 1], hands: [{ position: Array.from(mt) }, null] });
    }
    // validity first: the hand reached (the fixture is not trivially symmetric: the hand moved)
    expect(dist(A.pos('LeftHand'), target)).toBeLessThan(1e-6);
    let worst = 0;
    for (const n of JOINTS) {
      const a = A.pos(n), b = B.pos(n);
      worst = Math.max(worst, dist([-a[0]!, a[1]!, a[2]!], b));
    }
    expect(worst).toBeLessThan(1e-9);
    for (const [p, c] of [['LeftArm', 'LeftForeArm'], ['LeftForeArm', 'LeftHand'], ['LeftUpLeg', 'LeftLeg'], ['LeftLeg', 'LeftFoot']] as const) {
      const la = dist(A.pos(p), A.pos(c)), lb = dist(B.pos(p), B.pos(c));
      expect(Math.abs(la - lb)).toBeLessThan(1e-9 * la);
    }
  });
});

describe('golden values', () => {
  test('a hand reach and a foot stepped 6 cm up: elbow, wrist, knee, ankle and hips where they were computed (1e-9 m)', () => {
    const rig = makeBiped();
    const ground: GroundQuery = (p, out) => { out.height = p[0]! > 0 ? 0.06 : 0; return true; };
    for (let f = 0; f < 30; f++) rig.frame(DT, { feet: [1, 1], ground, hands: [{ position: [0.45, 1.2, 0.3] }, null] });
    const got = Object.fromEntries(['Hips', 'LeftLeg', 'LeftFoot', 'RightFoot', 'LeftForeArm', 'LeftHand'].map((n) => [n, rig.pos(n)]));
    const golden: Record<string, number[]> = GOLDEN;
    for (const [n, p] of Object.entries(golden)) expect(dist(got[n]!, p), `${n}: ${JSON.stringify(got[n])}`).toBeLessThan(1e-9);
  });
});

/** Computed by the kernel when this test was written (the knee rises 6 cm and forward; the wrist on its target; the hips stay). */
const GOLDEN: Record<string, number[]> = {
  Hips: [0, 0.9499999992000002, 0],
  LeftLeg: [0.10000000000000003, 0.5299999996000001, 0.15491933480363237],
  LeftFoot: [0.0999999999999999, 0.16000000000000003, -6.938893903907228e-16],
  RightFoot: [-0.09999999999999992, 0.10000000000000003, -1.0096090630185017e-15],
  LeftForeArm: [0.42693445017149306, 1.3590592430696038, 0.09343732765760113],
  LeftHand: [0.44999999999999973, 1.1999999999999997, 0.30000000000000016],
};
