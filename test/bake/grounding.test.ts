/**
 * Pelvis grounding that ignores the tail (rig/grounding.ts and the three.js
 * placeOnGround): tail skin never defines the body's floor nor asks for a pelvis lift; with
 * the tail counted (the regression) the lift shows.
 */
import { describe, expect, it } from 'vitest';
import { quat } from 'gl-matrix';
import {
  bodyFloor, compareHipsLift, groundingLift, placeOnGround, type GroundingLift, type SupportSamples,
} from '../../rig/grounding';
import { placeOnGround as placeOnGroundThree } from '../../adapters/three/ground';
import { writeGlbBytes } from '../../rig/glb';
import { makeCritter } from './fixtures';
import { loadGlbThree } from '../helpers/loadThree';

function samples(tail: number[], contact: number[]): SupportSamples {
  const n = tail.length;
  return {
    skin: new Int32Array(n), vertex: Int32Array.from({ length: n }, (_, i) => i), bone: new Int32Array(n),
    tail: Uint8Array.from(tail), contact: Uint8Array.from(contact), perSkin: [Int32Array.from({ length: n }, (_, i) => i)],
  };
}

describe('grounding formulas', () => {
  // Points: two soles, one belly point, one tail point, one hand owned by a contact solver.
  const S = samples([0, 0, 0, 1, 0], [0, 0, 0, 0, 1]);
  const y0 = [0, 0.02, 0.5, -0.3, 0.8];
  it('f_body = min over S∖T (the tail hanging below the soles does not set the floor)', () => {
    expect(bodyFloor(S, y0, true)).toBe(0);
    expect(bodyFloor(S, y0, false)).toBe(-0.3);
  });
  it('L = max(0, a − c) with c = min over S∖(T∪E) − f_body; the contact hand never asks for lift', () => {
    const out: GroundingLift = { clearance: 0, lift: 0 };
    // Frame: soles pushed 5 cm under the floor, tail 40 cm under, the hand 1 m under.
    const y = [-0.05, -0.03, 0.45, -0.7, -1];
    expect(groundingLift(S, y, 0, { excludeTail: true, allowedDip: 0 }, out).lift).toBeCloseTo(0.05, 12);
    expect(out.clearance).toBeCloseTo(-0.05, 12);
    // Allowed dip of 3 cm: only 2 cm of lift.
    expect(groundingLift(S, y, 0, { excludeTail: true, allowedDip: -0.03 }, out).lift).toBeCloseTo(0.02, 12);
    // Tail counted (the regression): floor −0.3, tail at −0.7 → 0.4 of lift.
    expect(groundingLift(S, y, -0.3, { excludeTail: false, allowedDip: 0 }, out).lift).toBeCloseTo(0.4, 12);
    // Everything above the floor: no lift.
    expect(groundingLift(S, [0.1, 0.1, 0.6, 0.2, 0.9], 0, { excludeTail: true, allowedDip: 0 }, out).lift).toBe(0);
  });
});

describe('a creature whose tail hangs below its soles', () => {
  const arms: [string, { t?: [number, number, number]; r?: [number, number, number, number] }][] = [
    ['at the origin', {}],
    ['translated and turned about Y', { t: [3, 0.5, -2], r: Array.from(quat.setAxisAngle(quat.create(), [0, 1, 0], 2.1)) as [number, number, number, number] }],
  ];
  for (const [label, armature] of arms) {
    it(`${label}: crouching, the tail gets zero lift when excluded; counted, it lifts the hips by the tail's dip (1e-6)`, () => {
      const c = makeCritter({ variant: 'chain', tailTipY: -0.25, armature });
      const r = compareHipsLift(c.doc, 'crouch', { samples: 24 });
      const yOffset = armature.t?.[1] ?? 0;
      expect(r.floorExcluded).toBeCloseTo(yOffset, 5); // soles
      expect(r.floorCounted).toBeLessThan(yOffset - 0.25); // the tail hangs lower
      expect(r.tailSamples).toBeGreaterThan(0);
      for (const row of r.rows) {
        // Excluded: the legs fold, the feet stay down: the body never asks for lift.
        expect(row.hipsExcluded).toBeCloseTo(row.hipsClip, 6); // zero lift from the tail
        expect(row.hipsCounted).toBeGreaterThanOrEqual(row.hipsClip - 1e-12);
        expect(row.dy).toBeCloseTo(row.hipsCounted - row.hipsExcluded, 12);
      }
      expect(r.rows[0]!.dy).toBeCloseTo(0, 6); // standing: the tail is where it was at calibration
      // The crouch lowers the hips by up to 0.25 m; a tail riding the hips dips as far and asks for that lift.
      expect(r.maxDy).toBeGreaterThan(0.2);
      expect(r.maxDy).toBeLessThan(0.26);
      // The excluded hips follow the clip exactly: the lowest hips height is 1 − 0.25.
      expect(Math.min(...r.rows.map((x) => x.hipsExcluded))).toBeCloseTo(yOffset + 0.75, 2);
    });
  }

  it('placeOnGround (document): the soles touch the floor, the tail is ignored; with apply the roots move', () => {
    const c = makeCritter({ variant: 'chain', tailTipY: -0.25, armature: { t: [0, 0.4, 0] } });
    const p = placeOnGround(c.doc);
    expect(p.bodyFloor).toBeCloseTo(0.4, 5);
    expect(p.offsetY).toBeCloseTo(-0.4, 5);
    expect(p.allFloor).toBeLessThan(0.4 - 0.25);
    const q = placeOnGround(c.doc, { apply: true, floorY: 1 });
    expect(q.offsetY).toBeCloseTo(0.6, 5);
    expect(placeOnGround(c.doc).bodyFloor).toBeCloseTo(1, 5);
  });

  it('placeOnGround (three.js): soles on y = 0 with the tail below; counting the tail would lift the model', async () => {
    const c = makeCritter({ variant: 'chain', tailTipY: -0.25, armature: { t: [0, 0.3, 0] } });
    const gltf = await loadGlbThree(await writeGlbBytes(c.doc));
    const r = placeOnGroundThree(gltf.scene);
    expect(r.offsetY).toBeCloseTo(-0.3, 4);
    expect(r.allFloor).toBeLessThan(r.bodyFloor - 0.25);
    // Placed: the body floor is now 0.
    expect(placeOnGroundThree(gltf.scene).offsetY).toBeCloseTo(0, 4);
    const naive = placeOnGroundThree(gltf.scene, { includeTail: true });
    expect(naive.offsetY).toBeGreaterThan(0.25); // what the old viewer did
  });
});
