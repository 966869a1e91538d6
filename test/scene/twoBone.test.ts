/**
 * The analytic two-bone IK job (core/ik/twoBone.ts): validity first, then reach, rotation,
 * pole, softening, weights and degenerate input. Tolerances are stated where asserted.
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, quat, vec3 } from 'gl-matrix';
import { createTwoBoneOutput, twoBoneOptions, type TwoBoneInput } from '../../core/ik/twoBone';
import { solveTwoBone } from '../../runtime/twoBone';
import { dist, quatAngle } from './rig';

glMatrix.setMatrixArrayType(Float64Array as unknown as Float32ArrayConstructor);
const DEG = Math.PI / 180;

/** Deterministic pseudo-random numbers. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 4294967296);
}

/** A chain root (0,1,0) → mid → end with lengths 0.45 / 0.4, knee bent forward. */
function chain(): { root: number[]; mid: number[]; end: number[] } {
  return { root: [0, 1, 0], mid: [0, 0.55, 0.02], end: [0, 0.15, -0.01] };
}

function rotate(q: ArrayLike<number>, v: number[]): number[] {
  const o = vec3.transformQuat(vec3.create(), v as unknown as vec3, q as unknown as quat);
  return [o[0]!, o[1]!, o[2]!];
}

/** Apply the output deltas to the input positions, as a caller would. */
function applied(inp: TwoBoneInput, out: ReturnType<typeof createTwoBoneOutput>): { mid: number[]; end: number[] } {
  const a = inp.root, b = inp.mid, c = inp.end;
  const v1 = [b[0]! - a[0]!, b[1]! - a[1]!, b[2]! - a[2]!];
  const v2 = [c[0]! - b[0]!, c[1]! - b[1]!, c[2]! - b[2]!];
  const v1n = rotate(out.rootDelta, v1);
  const v2n = rotate(out.rootDelta, rotate(out.midDelta, v2));
  const mid = [a[0]! + v1n[0]!, a[1]! + v1n[1]!, a[2]! + v1n[2]!];
  return { mid, end: [mid[0]! + v2n[0]!, mid[1]! + v2n[1]!, mid[2]! + v2n[2]!] };
}

describe('validity', () => {
  test('outputs are finite unit quaternions and bone lengths are exact (1e-12 m)', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    const inp = { ...c, target: [0.2, 0.4, 0.3] };
    expect(solveTwoBone(inp, out)).toBe(true);
    for (const q of [out.rootDelta, out.midDelta, out.rootRotation, out.midRotation, out.endRotation]) {
      expect(q.every(Number.isFinite)).toBe(true);
      expect(Math.abs(Math.hypot(...q) - 1)).toBeLessThan(1e-12);
    }
    const r = applied(inp, out);
    expect(Math.abs(dist(c.root, r.mid) - dist(c.root, c.mid))).toBeLessThan(1e-12);
    expect(Math.abs(dist(r.mid, r.end) - dist(c.mid, c.end))).toBeLessThan(1e-12);
    expect(dist(r.end, out.endPosition)).toBeLessThan(1e-12);
    expect(dist(r.mid, out.midPosition)).toBeLessThan(1e-12);
  });

  test('option merge validates (a clear error naming the field)', () => {
    expect(() => twoBoneOptions({ weight: 2 })).toThrow(/bitrig\/ik: option weight/);
    expect(() => twoBoneOptions({ soften: -1 })).toThrow(/soften/);
    expect(() => twoBoneOptions({ reachTolerance: 0 })).toThrow(/reachTolerance/);
    expect(twoBoneOptions({ soften: 0.1 }).soften).toBe(0.1);
  });
});

describe('reach', () => {
  test('500 random reachable targets: end within 0.1 mm (observed ≤ 1e-9 m), rotation target within 0.1°', () => {
    const r = rng(7);
    const out = createTwoBoneOutput();
    const c = chain();
    const l1 = dist(c.root, c.mid), l2 = dist(c.mid, c.end);
    let worst = 0, worstRot = 0;
    for (let i = 0; i < 500; i++) {
      // Random direction, distance in [|l1 − l2| + 1 %, (l1 + l2) × 0.99].
      const d = vec3.normalize(vec3.create(), [r() - 0.5, r() - 0.5, r() - 0.5]);
      const lo = Math.abs(l1 - l2) * 1.01 + 0.01, hi = (l1 + l2) * 0.99;
      const D = lo + r() * (hi - lo);
      const target = [c.root[0]! + d[0]! * D, c.root[1]! + d[1]! * D, c.root[2]! + d[2]! * D];
      const targetRotation = quat.normalize(quat.create(), [r() - 0.5, r() - 0.5, r() - 0.5, r() - 0.5]);
      expect(solveTwoBone({ ...c, target, targetRotation }, out)).toBe(true);
      expect(out.reached).toBe(true);
      worst = Math.max(worst, dist(out.endPosition, target), dist(applied({ ...c, target }, out).end, target));
      worstRot = Math.max(worstRot, quatAngle(out.endRotation, targetRotation));
    }
    expect(worst).toBeLessThan(1e-4);
    expect(worst).toBeLessThan(1e-9);
    expect(worstRot).toBeLessThan(0.1 * DEG);
  });

  test('unreachable: reached false, fully extended toward the target, lengths exact (1e-6), no NaN', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    const target = [1.5, 0.2, 0.9];
    const inp = { ...c, target };
    expect(solveTwoBone(inp, out)).toBe(true);
    expect(out.reached).toBe(false);
    const l1 = dist(c.root, c.mid), l2 = dist(c.mid, c.end);
    const r = applied(inp, out);
    expect(Math.abs(dist(c.root, r.mid) - l1)).toBeLessThan(1e-6);
    expect(Math.abs(dist(r.mid, r.end) - l2)).toBeLessThan(1e-6);
    // fully extended and pointing at the target: end on the ray root → target at l1 + l2
    const dirT = vec3.normalize(vec3.create(), [target[0]! - c.root[0]!, target[1]! - c.root[1]!, target[2]! - c.root[2]!]);
    const expected = [c.root[0]! + dirT[0]! * (l1 + l2), c.root[1]! + dirT[1]! * (l1 + l2), c.root[2]! + dirT[2]! * (l1 + l2)];
    expect(dist(r.end, expected)).toBeLessThan(1e-9);
    expect(Math.abs(out.miss - (dist(c.root, target) - l1 - l2))).toBeLessThan(1e-9);
    expect(out.extension).toBeCloseTo(1, 12);
    expect([...out.rootDelta, ...out.midDelta, ...out.endPosition].every(Number.isFinite)).toBe(true);
  });

  test('a target too close to the root folds to |l1 − l2| and reports the miss', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    solveTwoBone({ ...c, target: [0, 0.98, 0.01] }, out);
    expect(out.reached).toBe(false);
    const l1 = dist(c.root, c.mid), l2 = dist(c.mid, c.end);
    expect(Math.abs(dist(c.root, out.endPosition) - Math.abs(l1 - l2))).toBeLessThan(1e-9);
  });
});

describe('pole and bend plane', () => {
  test('the mid joint lies in the plane (root, target, pole) on the pole side (1e-9)', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    const target = [0.1, 0.4, 0.2];
    for (const pole of [[1, 0.6, 0], [-1, 0.6, 0.3], [0, 0.6, -1]]) {
      solveTwoBone({ ...c, target, pole }, out);
      expect(out.reached).toBe(true);
      const a = vec3.fromValues(c.root[0]!, c.root[1]!, c.root[2]!);
      const t = vec3.sub(vec3.create(), target as unknown as vec3, a);
      const p = vec3.sub(vec3.create(), pole as unknown as vec3, a);
      const m = vec3.sub(vec3.create(), out.midPosition as unknown as vec3, a);
      const nrm = vec3.normalize(vec3.create(), vec3.cross(vec3.create(), t, p));
      expect(Math.abs(vec3.dot(nrm, m))).toBeLessThan(1e-9);
      // same side as the pole: components perpendicular to t point the same way
      const tn = vec3.normalize(vec3.create(), t);
      const mp = vec3.scaleAndAdd(vec3.create(), m, tn, -vec3.dot(m, tn));
      const pp = vec3.scaleAndAdd(vec3.create(), p, tn, -vec3.dot(p, tn));
      expect(vec3.dot(mp, pp)).toBeGreaterThan(0);
    }
  });

  test('without a pole the animated knee decides: the knee stays in the plane (root, animated knee, target)', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    const target = [0.05, 0.3, 0.1];
    solveTwoBone({ ...c, target }, out);
    const a = vec3.fromValues(c.root[0]!, c.root[1]!, c.root[2]!);
    const t = vec3.sub(vec3.create(), target as unknown as vec3, a);
    const k = vec3.sub(vec3.create(), c.mid as unknown as vec3, a);
    const m = vec3.sub(vec3.create(), out.midPosition as unknown as vec3, a);
    const nrm = vec3.normalize(vec3.create(), vec3.cross(vec3.create(), t, k));
    expect(Math.abs(vec3.dot(nrm, m))).toBeLessThan(1e-9);
  });

  test('colinear pole and target give a defined result (finite, reached)', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    const target = [0, 0.4, 0.2];
    const pole = [0, 1 - 0.6 * 2, 0.2 * 2]; // on the root→target line, beyond the target
    expect(solveTwoBone({ ...c, target, pole }, out)).toBe(true);
    expect([...out.rootDelta, ...out.midDelta, ...out.midPosition].every(Number.isFinite)).toBe(true);
    expect(out.reached).toBe(true);
    // pole at the root itself
    expect(solveTwoBone({ ...c, target, pole: c.root }, out)).toBe(true);
    expect(out.reached).toBe(true);
  });

  test('a straight limb bends toward the hint (and without a hint still bends somewhere, defined)', () => {
    const out = createTwoBoneOutput();
    const straight = { root: [0, 1, 0], mid: [0, 0.55, 0], end: [0, 0.15, 0] };
    solveTwoBone({ ...straight, target: [0, 0.4, 0], bendHint: [0, 0, 1] }, out);
    expect(out.reached).toBe(true);
    expect(out.midPosition[2]!).toBeGreaterThan(0.1);
    expect(Math.abs(out.midPosition[0]!)).toBeLessThan(1e-12);
    solveTwoBone({ ...straight, target: [0, 0.4, 0] }, out);
    expect(out.reached).toBe(true);
    expect([...out.midPosition].every(Number.isFinite)).toBe(true);
  });

  test('a target straight at the root (zero distance) is defined', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    expect(solveTwoBone({ ...c, target: c.root }, out)).toBe(true);
    expect([...out.rootDelta, ...out.midDelta, ...out.endPosition].every(Number.isFinite)).toBe(true);
    expect(out.reached).toBe(false);
  });
});

describe('weights and softening', () => {
  test('weight 0 leaves the chain exactly as it was (identity deltas, bit-exact)', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    const rootRotation = quat.normalize(quat.create(), [0.1, 0.2, 0.3, 0.9]);
    const midRotation = quat.normalize(quat.create(), [0.3, 0.2, 0.1, 0.9]);
    const endRotation = quat.normalize(quat.create(), [0.5, 0.1, 0.1, 0.8]);
    const opts = twoBoneOptions({ weight: 0, rotationWeight: 0 });
    solveTwoBone({ ...c, target: [1, 1, 1], targetRotation: [0, 0, 0, 1], rootRotation, midRotation, endRotation }, out, opts);
    expect(Array.from(out.rootDelta)).toEqual([0, 0, 0, 1]);
    expect(Array.from(out.midDelta)).toEqual([0, 0, 0, 1]);
    expect(Array.from(out.rootRotation)).toEqual(Array.from(rootRotation));
    expect(Array.from(out.midRotation)).toEqual(Array.from(midRotation));
    expect(Array.from(out.endRotation)).toEqual(Array.from(endRotation));
    expect(Array.from(out.endPosition)).toEqual(c.end);
  });

  test('position weight 0.5 reaches the halfway target; rotation weight 0.5 lands halfway in angle (1e-9)', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    const target = [0.2, 0.3, 0.2];
    const targetRotation = quat.setAxisAngle(quat.create(), [0, 1, 0], 1);
    solveTwoBone({ ...c, target, targetRotation }, out, twoBoneOptions({ weight: 0.5, rotationWeight: 0.5 }));
    const half = [0, 1, 2].map((k) => c.end[k]! + 0.5 * (target[k]! - c.end[k]!));
    expect(dist(out.endPosition, half)).toBeLessThan(1e-9);
    expect(Math.abs(quatAngle(out.endRotation, [0, 0, 0, 1]) - 0.5)).toBeLessThan(1e-9);
  });

  test('softening: the reach approaches full extension smoothly (continuous, monotone, never beyond the chain)', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    const l = dist(c.root, c.mid) + dist(c.mid, c.end);
    const opts = twoBoneOptions({ soften: 0.05 });
    let prevExt = 0, prevD = 0, maxStep = 0;
    for (let i = 0; i <= 400; i++) {
      const D = l * (0.8 + (0.5 * i) / 400);
      solveTwoBone({ ...c, target: [0, 1 - D, 0] }, out, opts);
      const ext = out.extension;
      expect(ext).toBeLessThanOrEqual(1);
      if (i > 0) {
        expect(ext).toBeGreaterThanOrEqual(prevExt - 1e-12);
        maxStep = Math.max(maxStep, ((ext - prevExt) * l) / (D - prevD));
      }
      prevExt = ext; prevD = D;
      // below the soft band: exact
      if (D < l * 0.95 - 1e-9) expect(out.reached).toBe(true);
    }
    // slope of reach vs target distance stays ≤ 1 (+ 1e-6): no snap
    expect(maxStep).toBeLessThanOrEqual(1 + 1e-6);
  });
});

describe('bad input', () => {
  test('NaN or infinite target: returns false, identity deltas, unchanged positions', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    for (const target of [[NaN, 0, 0], [0, Infinity, 0]]) {
      expect(solveTwoBone({ ...c, target }, out)).toBe(false);
      expect(out.reached).toBe(false);
      expect(Array.from(out.rootDelta)).toEqual([0, 0, 0, 1]);
      expect(Array.from(out.midDelta)).toEqual([0, 0, 0, 1]);
      expect(Array.from(out.endPosition)).toEqual(c.end);
    }
  });

  test('zero-length bones: returns false with the pose unchanged', () => {
    const out = createTwoBoneOutput();
    expect(solveTwoBone({ root: [0, 1, 0], mid: [0, 1, 0], end: [0, 0, 0], target: [0, 0.5, 0.2] }, out)).toBe(false);
    expect(solveTwoBone({ root: [0, 1, 0], mid: [0, 0.5, 0], end: [0, 0.5, 0], target: [0, 0.5, 0.2] }, out)).toBe(false);
    expect(Array.from(out.rootDelta)).toEqual([0, 0, 0, 1]);
  });

  test('non-finite rotation target is ignored (position still solved)', () => {
    const out = createTwoBoneOutput();
    const c = chain();
    expect(solveTwoBone({ ...c, target: [0.1, 0.4, 0.1], targetRotation: [NaN, 0, 0, 1] }, out)).toBe(true);
    expect(out.reached).toBe(true);
    expect(out.endRotation.every(Number.isFinite)).toBe(true);
  });
});
