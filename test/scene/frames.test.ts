/**
 * The two-bone kernel's frame maths (wasm/twoBone.ts), alone: the local rotation that gives a
 * bone a wanted world rotation under a scaled, sheared or mirrored parent, and the conformal test.
 * rotationOfMatrix (core/ik/frames.ts) judges the result.
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat, vec3 } from 'gl-matrix';
import { det3, rotationOfMatrix } from '../../core/ik/frames';
import { qConjMul } from '../../core/qmath';
import { twoBoneWasmModule } from '../../runtime/kernels';
import { createRng as rng } from '../helpers/rng';

/** The kernel's frame maths on its own instance: arguments copied into its memory at 64 KiB. */
const kernel = ((): { localRotationForWorld: (out: Float64Array, P: ArrayLike<number>, S: ArrayLike<number>, q: ArrayLike<number>) => boolean; isConformal: (m: ArrayLike<number>) => boolean } => {
  const memory = new WebAssembly.Memory({ initial: 2, maximum: 2 });
  const x = new WebAssembly.Instance(twoBoneWasmModule()!, { env: { memory, exp: Math.exp, acos: Math.acos, sin: Math.sin } }).exports as unknown as {
    frameLocalRotation(out: number, P: number, S: number, q: number): number; frameConformal(m: number): number;
  };
  const base = 65536, f = new Float64Array(memory.buffer, base, 32); // P 0..15, S 16..18, q 20..23, out 24..27
  return {
    localRotationForWorld: (out, P, S, q) => {
      f.set(Array.from(P).slice(0, 16), 0); f.set(Array.from(S).slice(0, 3), 16); f.set(Array.from(q).slice(0, 4), 20); f.set(out.subarray(0, 4), 24);
      const ok = x.frameLocalRotation(base + 24 * 8, base, base + 16 * 8, base + 20 * 8) === 1;
      out.set(f.subarray(24, 28));
      return ok;
    },
    isConformal: (m) => { f.set(Array.from(m).slice(0, 16), 0); return x.frameConformal(base) === 1; },
  };
})();
const localRotationForWorld = (out: Float64Array, _o: number, P: ArrayLike<number>, _po: number, S: ArrayLike<number>, _so: number, q: ArrayLike<number>, _qo: number): boolean =>
  kernel.localRotationForWorld(out, P, S, q);
const isConformal = (m: ArrayLike<number>, _o: number): boolean => kernel.isConformal(m);

/** M(qP⁻¹ · q), M negating y and z when the parent is mirrored: the local rotation under a conformal parent. */
function rotationToLocal(out: Float64Array, _o: number, qP: Float64Array, _po: number, q: ArrayLike<number>, _qo: number, mirrored: boolean): void {
  qConjMul(out, 0, qP, 0, q, 0);
  if (mirrored) { out[1] = -out[1]!; out[2] = -out[2]!; }
}

glMatrix.setMatrixArrayType(Float64Array as unknown as Float32ArrayConstructor);


function randomQuat(r: () => number): Float64Array {
  const q = new Float64Array([r() * 2 - 1, r() * 2 - 1, r() * 2 - 1, r() * 2 - 1]);
  const l = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!);
  for (let k = 0; k < 4; k++) q[k] = q[k]! / l;
  return q;
}

/** 1 − |a·b| for unit quaternions (0 when they are the same rotation). */
function qDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return 1 - Math.abs(a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]! + a[3]! * b[3]!);
}

describe('localRotationForWorld', () => {
  test('1,000 random sheared, non-uniformly scaled and mirrored parents, local scales with either sign: the bone\'s world rotation (rotationOfMatrix) is the wanted one (1 − |q·q\'| < 1e-12)', () => {
    const r = rng(7);
    let worst = 0;
    for (let t = 0; t < 1000; t++) {
      // parent = T · R1 · S1 · R2 · S2 (shear from two non-uniform scales), mirrored one time in three
      const P = mat4.fromRotationTranslationScale(mat4.create(), randomQuat(r) as unknown as quat, [r() * 4 - 2, r() * 4 - 2, r() * 4 - 2],
        [0.3 + r() * 2, 0.3 + r() * 2, 0.3 + r() * 2]);
      mat4.multiply(P, P, mat4.fromRotationTranslationScale(mat4.create(), randomQuat(r) as unknown as quat, [0, 0, 0], [0.5 + r(), 1, 0.5 + r()]));
      if (t % 3 === 0) mat4.scale(P, P, [-1, 1, 1]);
      const S = new Float64Array([(0.5 + r()) * (t % 5 === 0 ? -1 : 1), (0.5 + r()) * (t % 7 === 0 ? -1 : 1), 0.5 + r()]);
      const want = randomQuat(r);
      const R = new Float64Array(4);
      expect(localRotationForWorld(R, 0, P as unknown as Float64Array, 0, S, 0, want, 0)).toBe(true);
      expect(Math.hypot(R[0]!, R[1]!, R[2]!, R[3]!)).toBeCloseTo(1, 12);
      const W = mat4.multiply(mat4.create(), P, mat4.fromRotationTranslationScale(mat4.create(), R as unknown as quat, [0, 0, 0], S as unknown as vec3));
      const got = new Float64Array(4);
      rotationOfMatrix(got, 0, W as unknown as Float64Array, 0);
      worst = Math.max(worst, qDiff(got, want));
    }
    expect(worst).toBeLessThan(1e-12);
  });

  test('under a conformal parent (rotation × uniform scale, mirrored or not) it equals rotationToLocal (1 − |q·q\'| < 1e-12)', () => {
    const r = rng(11);
    for (let t = 0; t < 200; t++) {
      const s = 0.2 + 3 * r();
      const P = mat4.fromRotationTranslationScale(mat4.create(), randomQuat(r) as unknown as quat, [1, 2, 3], [t % 2 === 0 ? -s : s, s, s]);
      expect(isConformal(P as unknown as Float64Array, 0)).toBe(true);
      const want = randomQuat(r);
      const a = new Float64Array(4), b = new Float64Array(4), qP = new Float64Array(4);
      expect(localRotationForWorld(a, 0, P as unknown as Float64Array, 0, [1, 1, 1], 0, want, 0)).toBe(true);
      rotationOfMatrix(qP, 0, P as unknown as Float64Array, 0);
      rotationToLocal(b, 0, qP, 0, want, 0, det3(P as unknown as Float64Array, 0) < 0);
      expect(qDiff(a, b)).toBeLessThan(1e-12);
    }
  });

  test('a singular parent or a zero local scale returns false and leaves the output untouched', () => {
    const out = new Float64Array([9, 9, 9, 9]);
    const q = [0, 0, 0, 1];
    const flat = mat4.fromScaling(mat4.create(), [1, 0, 1]);
    expect(localRotationForWorld(out, 0, flat as unknown as Float64Array, 0, [1, 1, 1], 0, q, 0)).toBe(false);
    expect(localRotationForWorld(out, 0, mat4.create() as unknown as Float64Array, 0, [1, 0, 1], 0, q, 0)).toBe(false);
    const nan = mat4.create(); nan[5] = NaN;
    expect(localRotationForWorld(out, 0, nan as unknown as Float64Array, 0, [1, 1, 1], 0, q, 0)).toBe(false);
    expect(Array.from(out)).toEqual([9, 9, 9, 9]);
  });
});

describe('isConformal', () => {
  test('true for rotation × uniform scale; false for 1e-6 non-uniform scale and for a small shear', () => {
    const q = quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [1, 2, 3]), 0.8);
    expect(isConformal(mat4.fromRotationTranslationScale(mat4.create(), q, [5, 6, 7], [2, 2, 2]) as unknown as Float64Array, 0)).toBe(true);
    expect(isConformal(mat4.fromRotationTranslationScale(mat4.create(), q, [0, 0, 0], [2, 2, 2 * (1 + 1e-6)]) as unknown as Float64Array, 0)).toBe(false);
    const shear = mat4.create(); shear[4] = 1e-4; // y column leans toward x
    expect(isConformal(shear as unknown as Float64Array, 0)).toBe(false);
  });
});
