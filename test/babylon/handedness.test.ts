/**
 * The handedness helpers of the Babylon adapter: H = diag(−1, 1, 1) maps Babylon's world of a
 * mirrored (glTF-loaded) character to bitrig's and back.
 */
import { describe, expect, test } from 'vitest';
import { mat4, quat } from 'gl-matrix';
import { createMirrorXInputs, mirrorMatrixX, mirrorSceneDiagnosticsX } from '../../adapters/babylon';
import type { GroundHit, SceneDiagnostics } from '../../core/sceneIK';

const H = new Float64Array([-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);

describe('Babylon handedness helpers', () => {
  test('mirrorMatrixX(m) = H·m·H (1e-12), is its own inverse, keeps a proper frame proper', () => {
    const q = quat.setAxisAngle(quat.create(), [0.3, 0.8, -0.5].map((x) => x / Math.hypot(0.3, 0.8, 0.5)) as [number, number, number], 0.9);
    const m = mat4.fromRotationTranslationScale(new Float64Array(16) as unknown as mat4, q, [1.5, -2, 0.25], [2, 2, 2]);
    const expected = new Float64Array(16);
    mat4.multiply(expected as unknown as mat4, H as unknown as mat4, m);
    mat4.multiply(expected as unknown as mat4, expected as unknown as mat4, H as unknown as mat4);
    const got = mirrorMatrixX(m);
    for (let i = 0; i < 16; i++) expect(Math.abs(got[i]! - expected[i]!)).toBeLessThan(1e-12);
    const back = mirrorMatrixX(got);
    for (let i = 0; i < 16; i++) expect(Math.abs(back[i]! - m[i]!)).toBeLessThan(1e-12);
    expect(mat4.determinant(got as unknown as mat4)).toBeGreaterThan(0);
  });

  test('scene inputs: positions and poles negate x, rotations conjugate (x, −y, −z, w), the ground query is queried mirrored; the same objects are reused', () => {
    const map = createMirrorXInputs();
    const calls: number[][] = [];
    const ground = (p: Float64Array, out: GroundHit): boolean => { const x = p[0]!, z = p[2]!; calls.push([x, z]); out.height = 0.5; out.normal[0] = 0.6; out.normal[1] = 0.8; out.normal[2] = 0; out.support = -1; return true; };
    const feet = [1, 0.5];
    const a = map({ feet, ground, grounded: true, hands: [{ position: [1, 2, 3], rotation: [0.1, 0.2, 0.3, 0.9], pole: [4, 5, 6], weight: 0.7 }, null] });
    expect(a.feet).toBe(feet);
    expect(a.grounded).toBe(true);
    const h = a.hands![0]!;
    expect(Array.from(h.position)).toEqual([-1, 2, 3]);
    expect(Array.from(h.rotation!)).toEqual([0.1, -0.2, -0.3, 0.9]);
    expect(Array.from(h.pole!)).toEqual([-4, 5, 6]);
    expect(h.weight).toBe(0.7);
    expect(a.hands![1]).toBe(null);
    const hit: GroundHit = { height: 0, normal: new Float64Array(3), support: 0 };
    expect(a.ground!(new Float64Array([2, 7, 3]), hit)).toBe(true);
    expect(calls).toEqual([[-2, 3]]);
    expect(Array.from(hit.normal)).toEqual([-0.6, 0.8, 0]);
    // Next frame: same output objects, same wrapped query (no per-frame allocation).
    const b = map({ ground, hands: [{ position: [7, 8, 9] }] });
    expect(b).toBe(a);
    expect(b.ground).toBe(a.ground);
    expect(b.hands![0]).toBe(h);
    expect(Array.from(h.position)).toEqual([-7, 8, 9]);
    expect(h.rotation).toBeUndefined(); // none given this frame
    expect(b.feet).toBeUndefined(); // undefined fields keep their last value in core
  });

  test('scene diagnostics map back in place: points negate x, rotations conjugate, heights and bands unchanged', () => {
    const d = {
      contacts: [{ pointWs: [1, 2, 3], normalWs: [0.6, 0.8, 0], soleWs: [4, 5, 6], soleNormalWs: [0, 1, 0] }],
      hands: [{ objectPosWs: [7, 8, 9], objectRotWs: [0.1, 0.2, 0.3, 0.9] }],
      comWs: [1, 1, 1], supportWs: [2, 2, 2], pelvis: { offsetWs: [3, 3, 3], band: [-1, 1], legs: 2, infeasibleLegs: 0 },
      repositionNeeded: false, problems: [],
    } as unknown as SceneDiagnostics;
    mirrorSceneDiagnosticsX(d);
    expect(d.contacts[0]!.pointWs).toEqual([-1, 2, 3]);
    expect(d.contacts[0]!.normalWs).toEqual([-0.6, 0.8, 0]);
    expect(d.contacts[0]!.soleWs).toEqual([-4, 5, 6]);
    expect(d.hands[0]!.objectPosWs).toEqual([-7, 8, 9]);
    expect(d.hands[0]!.objectRotWs).toEqual([0.1, -0.2, -0.3, 0.9]);
    expect(d.comWs).toEqual([-1, 1, 1]);
    expect(d.pelvis.offsetWs).toEqual([-3, 3, 3]);
    expect(d.pelvis.band).toEqual([-1, 1]);
  });
});
