/**
 * Re-seating a tail along the pose shown last (core/animatorCore.ts `reseatTailsAtPose`,
 * systems/tailClock.ts `seatChainAtLocal`): what the animators do when a clip bitrig baked
 * stops playing, so the tail continues from the keys it showed instead of snapping to rest.
 *
 * Rig A swings its tail (a fast hip sweep) and shows a bent pose; rig B, a twin held at rest at
 * the same hips, is re-seated on A's shown local rotations. Checked under
 * plain, rotated and centimetre hips: B's joints land on A's (2e-7 of the tail length: float32 components), its
 * shown rotations turn each bone exactly as A's (bone directions 1e-9; the whole rotation
 * within 0.05°, the twist a readback blend can carry), the next step moves each link < 1°
 * (from rest velocity), and a non-finite shown rotation falls back to rest (no NaN).
 */
import { describe, expect, test } from 'vitest';
import { quat, vec3 } from 'gl-matrix';
import { makeTailRig, sweepX, type TailRigOptions } from './rig';
import { reseatTailsAtPose } from '../../adapters/animatorCore';
import { linkEl } from '../../core/components/tail';
import { tailLinkIndex } from '../../core/tailSetup';
import { SEAT_EASE_TIME } from '../../core/components/tail';

const LINKS = 5;
const cases: { name: string; o: TailRigOptions; hipsRot: [number, number, number, number] }[] = [
  { name: 'plain', o: {}, hipsRot: [0, 0, 0, 1] },
  { name: 'rotated hips', o: {}, hipsRot: [0.2, 0.5, -0.1, 0.84] },
  { name: 'centimetre rig', o: { unitScale: 100 }, hipsRot: [0, 0.38, 0, 0.92] },
];

/** Local rotations of every bone of a rig, by bone index (as an animator's written rotations). */
function shownByBone(r: ReturnType<typeof makeTailRig>): Float64Array {
  const out = new Float64Array(r.names.length * 4);
  for (let j = 0; j < r.names.length; j++) for (let c = 0; c < 4; c++) out[j * 4 + c] = r.world.pose.localR[r.binding.slotOf[j]! * 4 + c]!;
  return out;
}

/** Angle (degrees) between two unit quaternions. */
function angleDeg(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  const d = Math.abs(a[ao]! * b[bo]! + a[ao + 1]! * b[bo + 1]! + a[ao + 2]! * b[bo + 2]! + a[ao + 3]! * b[bo + 3]!);
  return (2 * Math.acos(Math.min(1, d)) * 180) / Math.PI;
}

describe('re-seat along the shown pose', () => {
  test.each(cases)('$name: joints on the shown joints, same bone directions, a gentle first step', ({ o, hipsRot }) => {
    const opts: TailRigOptions = { ...o, links: LINKS, world: {} };
    const us = o.unitScale ?? 1;
    const a = makeTailRig(opts), b = makeTailRig(opts);
    const hips = (x: number): number[] => [x * us, 0.9 * us, 0];
    for (let f = 0; f <= 24; f++) a.frame(1 / 60, hips(sweepX(f / 60)), hipsRot);
    const last = hips(sweepX(24 / 60));
    b.frame(1 / 60, last, hipsRot);
    const aAngles = a.linkAngles();
    expect(Math.max(...aAngles) * 180 / Math.PI).toBeGreaterThan(5); // A's tail is bent (the test means something)
    const shown = shownByBone(a);
    reseatTailsAtPose(b.binding, shown);
    b.frame(0, last, hipsRot); // no step: shows the seated pose
    const len = 0.8 * us;
    const ja = a.joints(), jb = b.joints();
    // (float32 components: positions relative to the chain's origin and rotations round to
    // float32, so joints agree to about two roundings of the tail's length)
    const jointTol = 2e-7 * len;
    for (let i = 0; i < ja.length; i++) for (let c = 0; c < 3; c++) expect(Math.abs(ja[i]![c]! - jb[i]![c]!)).toBeLessThan(jointTol);
    const C = b.world.components.TailChain, B = b.world.components.BendState;
    const dir = vec3.create(), dirA = vec3.create(), qa = quat.create(), qb = quat.create();
    for (let i = 0; i < LINKS; i++) {
      const k = tailLinkIndex(b.world, b.eid, i), s = C.slot[k]!;
      const tip = vec3.fromValues(B.tipDirLs[k * 3]!, B.tipDirLs[k * 3 + 1]!, B.tipDirLs[k * 3 + 2]!);
      quat.set(qb, b.world.pose.localR[s * 4]!, b.world.pose.localR[s * 4 + 1]!, b.world.pose.localR[s * 4 + 2]!, b.world.pose.localR[s * 4 + 3]!);
      const sa = a.binding.slotOf[b.binding.tails[0]!.bones[i]!]!;
      quat.set(qa, a.world.pose.localR[sa * 4]!, a.world.pose.localR[sa * 4 + 1]!, a.world.pose.localR[sa * 4 + 2]!, a.world.pose.localR[sa * 4 + 3]!);
      vec3.transformQuat(dir, tip, qb); vec3.transformQuat(dirA, tip, qa);
      expect(vec3.distance(dir, dirA)).toBeLessThan(1e-9);
      expect(angleDeg(qa, 0, qb, 0)).toBeLessThan(0.05);
    }
    // the first step starts from rest velocity: every link moves gently
    const before = shownByBone(b);
    b.frame(1 / 60, last, hipsRot);
    const after = shownByBone(b);
    for (const j of b.binding.tails[0]!.bones) expect(angleDeg(before, j * 4, after, j * 4)).toBeLessThan(1);
    for (const v of b.joints().flat()) expect(Number.isFinite(v)).toBe(true);
  });

  test('a zero-length link shown turned 0.6 rad keeps its shown rotation at the seat (1e-7: float32), then eases to its rest with seatEase (1e-6 rad), the ease ends on the rest', () => {
    const r = makeTailRig({ links: LINKS, zeroLinkAt: 2, world: {} });
    r.frame(1 / 60);
    const shown = shownByBone(r);
    const j = r.binding.tails[0]!.bones[2]!;
    const turn = quat.setAxisAngle(quat.create(), [1, 0, 0], 0.6);
    const q = quat.multiply(quat.create(), quat.fromValues(shown[j * 4]!, shown[j * 4 + 1]!, shown[j * 4 + 2]!, shown[j * 4 + 3]!), turn);
    for (let c = 0; c < 4; c++) shown[j * 4 + c] = q[c]!;
    // the link's rest before the seat: where the ease must end (a fixed reference, not the live restR)
    const k2 = tailLinkIndex(r.world, r.eid, 2);
    const restBefore = [0, 1, 2, 3].map((c) => r.world.components.BendState.restR[linkEl(k2, 4, c)]!);
    reseatTailsAtPose(r.binding, shown);
    r.frame(0);
    const seated = shownByBone(r);
    for (let c = 0; c < 4; c++) expect(Math.abs(seated[j * 4 + c]! - shown[j * 4 + c]!)).toBeLessThan(1e-7); // (float32 components; the old seat put it on its rest: 0.6 rad off)
    // the rest carries the shown offset, eased out with seatEase (e^(−t/τ), τ = SEAT_EASE_TIME); the
    // display runs a step behind (interpolation at alpha 0 shows the step before): frame k after
    // the seat shows the link turned back by 0.6 · (1 − e^(−(k−1)·h/τ)), h = 1/60 s
    for (let f = 1; f <= 3; f++) {
      r.frame(1 / 60);
      const want = 0.6 * (1 - Math.exp(-((f - 1) / 60) / SEAT_EASE_TIME));
      expect(Math.abs(angleDeg(seated, j * 4, shownByBone(r), j * 4) * Math.PI / 180 - want)).toBeLessThan(1e-6); // (measured 3e-8: float32 step, acos of a dot)
    }
    for (let f = 0; f < 120; f++) r.frame(1 / 60);
    expect(r.world.components.TailChain.seatEase[r.eid]).toBe(0);
    expect(r.linkAngles()[2]!).toBeLessThan(1e-6); // on its rest rotation (radians; the acos of a dot near 1)
    expect(angleDeg(restBefore, 0, shownByBone(r), j * 4)).toBeLessThan(1e-4); // … and that is the rest from before the seat (degrees; float32 step)
  });

  test('a non-finite or zero shown rotation takes the rest direction: no NaN, lengths kept (1e-9)', () => {
    const r = makeTailRig({ links: LINKS, world: {} });
    r.frame(1 / 60);
    const shown = shownByBone(r);
    const bones = r.binding.tails[0]!.bones;
    shown.fill(NaN, bones[1]! * 4, bones[1]! * 4 + 4);
    shown.fill(0, bones[3]! * 4, bones[3]! * 4 + 4);
    reseatTailsAtPose(r.binding, shown);
    r.frame(0);
    for (const v of r.joints().flat()) expect(Number.isFinite(v)).toBe(true);
    const rest = makeTailRig({ links: LINKS, world: {} });
    rest.frame(1 / 60);
    const lr = rest.linkLengths();
    r.linkLengths().forEach((l, i) => expect(Math.abs(l - lr[i]!)).toBeLessThan(1e-9));
    expect(r.linkAngles()[3]!).toBeLessThan(1e-9); // link 3: back on its rest rotation
  });
});
