/**
 * TailCollide on a hanging tail (gravity 9.8 m/s², 0.3 Hz, floor off): a capsule on the hips
 * lies across where the tail hangs; the hips sweep sideways and back. In every frame, for
 * every parent transform (plain, translated and turned, scaled 2.5, mirrored): no link segment
 * inside the capsule by more than 2 % of its radius, every link's length kept (1e-5 relative:
 * the rest data is float32), no NaN. Without the capsule the same tail passes through it (so
 * the test can fail).
 */
import { describe, expect, test } from 'vitest';
import { deepestPenetration, linkLengths, makeColliderRig, PARENTS, SEG, type Capsule } from './fixture';

const HANGING = { gravity: 9.8, frequency: 0.3, carry: 0, floorEnabled: false, bendLimit: Math.PI };
/**
 * Across the tail, 0.45 m under the hips: clear of the rest pose (back and down, which the
 * first frame shows), across the line the tail would hang along under gravity.
 */
const ACROSS: Capsule = { a: [-0.2, -0.45, -0.12], b: [0.4, -0.45, -0.13], r: 0.06 }; // (not symmetric in x: a mirror mistake shows)
const FRAMES = 240;

function run(parent: (typeof PARENTS)[number], capsules: Capsule[], dt: number): { worst: number; lenErr: number; finite: boolean } {
  const rig = makeColliderRig(parent, capsules, HANGING);
  let worst = 0, lenErr = 0, finite = true;
  for (let f = 0; f < FRAMES; f++) {
    const t = f * dt;
    rig.frame(dt, 0.25 * Math.sin(2 * Math.PI * 0.6 * t)); // (a sideways sway of ±0.25 m)
    const j = rig.joints();
    finite &&= j.every((p) => Array.from(p).every(Number.isFinite));
    worst = Math.max(worst, deepestPenetration(j, rig.capsulesWs()));
    for (const l of linkLengths(j)) lenErr = Math.max(lenErr, Math.abs(l / (SEG * parent.scale) - 1));
  }
  return { worst, lenErr, finite };
}

describe('a capsule across a hanging tail', () => {
  for (const parent of PARENTS) {
    test(`${parent.name}: no segment deeper than 2 % of the radius in any frame, lengths kept, finite`, () => {
      for (const dt of [1 / 60, 1 / 45]) {
        const r = run(parent, [ACROSS], dt);
        expect(r.finite).toBe(true);
        expect(r.worst, `dt ${dt}`).toBeLessThanOrEqual(0.02);
        expect(r.lenErr).toBeLessThan(1e-5);
      }
    });
  }
  test('without the collider the tail hangs through the capsule (the test can fail)', () => {
    const rig = makeColliderRig(PARENTS[0]!, [], HANGING);
    const ghost = makeColliderRig(PARENTS[0]!, [ACROSS], HANGING);
    let worst = 0;
    for (let f = 0; f < 120; f++) {
      rig.frame(1 / 60); ghost.frame(1 / 60);
      worst = Math.max(worst, deepestPenetration(rig.joints(), ghost.capsulesWs()));
    }
    expect(worst).toBeGreaterThan(0.2); // (about 0.29: the tail hangs through the capsule's near side)
  });
});
