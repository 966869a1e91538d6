/**
 * Leg colliders at normal settings (the default tail options: carried up and back) leave the
 * tail's swing alone: under a sideways sway of the hips, the tip's sideways travel relative to
 * the hips with two thigh capsules is within 10 % of the travel without them, though the tail
 * does brush them (so the comparison can fail); the same for a tail hanging under 9.8 m/s².
 */
import { describe, expect, test } from 'vitest';
import { vec3, mat4 } from 'gl-matrix';
import { makeColliderRig, PARENTS, type Capsule } from './fixture';

const THIGHS: Capsule[] = [
  { a: [0.1, -0.05, -0.06], b: [0.11, -0.5, -0.05], r: 0.1 },
  { a: [-0.1, -0.05, -0.06], b: [-0.11, -0.5, -0.05], r: 0.1 },
];

function swing(capsules: Capsule[], tail: object): { travel: number; contacts: number } {
  const rig = makeColliderRig(PARENTS[1]!, capsules, tail);
  const dt = 1 / 60;
  let lo = Infinity, hi = -Infinity, contacts = 0;
  for (let f = 0; f < 240; f++) {
    rig.frame(dt, 0.3 * Math.sin(2 * Math.PI * 0.8 * f * dt));
    contacts += rig.world.components.TailChain.colliderContacts[rig.tailEid]!;
    if (f < 60) continue;
    const inv = mat4.invert(mat4.create(), rig.hipsWs())!;
    const tip = vec3.transformMat4(vec3.create(), rig.joints()[4]!, inv);
    lo = Math.min(lo, tip[0]!); hi = Math.max(hi, tip[0]!);
  }
  return { travel: hi - lo, contacts };
}

describe('leg colliders keep the swing', () => {
  test('default options: the tip\'s sideways travel with thigh capsules within 10 % of without', () => {
    const none = swing([], {}), legs = swing(THIGHS, {});
    expect(none.travel).toBeGreaterThan(0.05); // (it swings)
    expect(legs.contacts).toBeGreaterThan(0); // (the tail does brush the thighs: about 50 link steps)
    expect(Math.abs(legs.travel / none.travel - 1)).toBeLessThanOrEqual(0.1); // (about 0.1 %)
  });
  test('a tail hanging under 9.8 m/s² at 0.3 Hz: against the thighs, its travel still within 10 %', () => {
    const o = { gravity: 9.8, frequency: 0.3 };
    const none = swing([], o), legs = swing(THIGHS, o);
    expect(legs.contacts).toBeGreaterThan(50); // (about 110 link steps)
    expect(Math.abs(legs.travel / none.travel - 1)).toBeLessThanOrEqual(0.1); // (about 1 %)
  });
});
