/**
 * The stretchy-limb reach search (core/ik/reachSearch.ts) on its own, against reach curves r(dd)
 * written down in closed form: where the real reach is, which goal the soften gives, and which
 * distance meets it. (test/scene/stretchyReach.test.ts checks the search inside the solver
 * against a forward-kinematics oracle.)
 */
import { describe, expect, test } from 'vitest';
import { RS, REACH_SEARCH_MAX_ROUNDS, reachSearchBegin, reachSearchNext } from '../../core/ik/reachSearch';

/** Run a search to the end on r(dd); returns the last evaluated distance, its r, the state and the evaluations. */
function run(r: (dd: number) => number, lo: number, hi: number, D: number, dc = 0, soften = 0, tol = 1e-9) {
  const s = new Float64Array(RS.SIZE);
  const ok = reachSearchBegin(s, lo, hi, D, dc, soften, tol);
  const evaluated: number[] = [];
  if (!ok) return { ok, s, dd: NaN, r: NaN, evaluated };
  let dd = s[RS.DD]!, rv = r(dd);
  evaluated.push(dd);
  while (reachSearchNext(s, rv)) { dd = s[RS.DD]!; rv = r(dd); evaluated.push(dd); }
  return { ok, s, dd, r: rv, evaluated };
}

/** The kernel's soften on a reach [Lmin, Lr] (the formula the search applies; restated here). */
function softGoal(D: number, Lmin: number, Lr: number, dc: number, sG: number): number {
  let De = D;
  if (sG > 0 && De > Lr * (1 - sG)) {
    let da = Lr * (1 - sG);
    if (dc > da) da = Math.min(dc, Lr);
    const sl = Lr - da;
    if (De > da) De = sl > 1e-12 * Lr ? da + sl * (1 - Math.exp(-(De - da) / sl)) : Lr;
  }
  return Math.max(Lmin, Math.min(Lr, De));
}

// Reach curves on [lo, hi] = [0.1, 1.0]: rising to the straight end (a squashed limb), a hump
// with its peak inside (a stretched limb), and a hump whose peak is close to the straight end.
const lo = 0.1, hi = 1.0;
const CURVES: Array<{ label: string; r: (dd: number) => number; Lr: number; argmax: number }> = [
  { label: 'rising (maximum at the straight end)', r: (dd) => 0.05 + 0.9 * dd - 0.1 * dd * dd, Lr: 0.05 + 0.9 - 0.1, argmax: hi },
  { label: 'hump, peak inside at 0.62', r: (dd) => 1.2 - 1.5 * (dd - 0.62) ** 2, Lr: 1.2, argmax: 0.62 },
  { label: 'hump, peak at 0.97', r: (dd) => 1.1 - 0.5 * (dd - 0.97) ** 2, Lr: 1.1, argmax: 0.97 },
];

describe('reachSearch: the real reach, the goal and the crossing on closed-form reach curves', () => {
  for (const c of CURVES) {
    test(`${c.label}: a goal beyond the reach ends at the maximum (reach within 1e-7 relative, its distance within 1e-3 of the range); goals inside are met within the tolerance 1e-9; the first evaluation is the folded limb; at most ${REACH_SEARCH_MAX_ROUNDS} evaluations`, () => {
      const far = run(c.r, lo, hi, 5);
      expect(far.ok).toBe(true);
      expect(far.evaluated[0]).toBe(lo);
      expect(far.s[RS.LMIN]).toBe(c.r(lo));
      expect(Math.abs(far.s[RS.LR]! - c.Lr) / c.Lr).toBeLessThan(1e-7);
      expect(far.r).toBe(far.s[RS.LR]); // the pose left is the one at the maximum
      expect(Math.abs(far.dd - c.argmax)).toBeLessThan(1e-3 * (hi - lo));
      expect(far.evaluated.length).toBeLessThanOrEqual(REACH_SEARCH_MAX_ROUNDS);
      for (const f of [0.3, 0.6, 0.9, 0.999]) {
        const goal = c.r(lo) + f * (c.Lr - c.r(lo));
        const res = run(c.r, lo, hi, goal);
        expect(Math.abs(res.r - goal), `goal ${goal}`).toBeLessThanOrEqual(1e-9);
        expect(res.dd).toBeGreaterThanOrEqual(lo);
        expect(res.dd).toBeLessThanOrEqual(c.argmax + 1e-3); // on the rising branch [lo, argmax]
        expect(res.evaluated.length).toBeLessThanOrEqual(REACH_SEARCH_MAX_ROUNDS);
      }
    });
  }

  test('a goal below the folded distance ends folded (r = Lmin), and a goal exactly at the reach stays at the maximum', () => {
    const c = CURVES[1]!;
    const under = run(c.r, lo, hi, 0.01);
    expect(under.dd).toBe(lo);
    expect(under.r).toBe(c.r(lo));
    const at = run(c.r, lo, hi, 1.2);
    expect(at.r).toBe(at.s[RS.LR]);
  });

  test('soften 0.1 and 0.3: the goal is the kernel\'s softening curve on the real reach [Lmin, Lr] (1e-12), met within 1e-9; an animated tip farther out than the softening start moves the start out to it', () => {
    const c = CURVES[1]!;
    for (const sG of [0.1, 0.3]) {
      for (const dc of [0, 1.15, 1.25]) {
        for (const D of [0.5, 1.0, 1.1, 1.19, 1.3, 3]) {
          const res = run(c.r, lo, hi, D, dc, sG);
          const Lr = res.s[RS.LR]!;
          const goal = softGoal(D, c.r(lo), Lr, dc, sG);
          expect(Math.abs(res.s[RS.GOAL]! - goal), `soften ${sG}, dc ${dc}, D ${D}`).toBeLessThan(1e-12);
          if (goal < Lr - 1e-9) expect(Math.abs(res.r - goal), `soften ${sG}, dc ${dc}, D ${D}`).toBeLessThanOrEqual(1e-9);
          else expect(res.r).toBe(Lr);
        }
      }
    }
    // soften is clamped to [0, 0.5] as the kernel does
    const clamped = run(c.r, lo, hi, 1.1, 0, 0.9);
    expect(clamped.s[RS.SOFTEN]).toBe(0.5);
  });

  test('continuous in the goal: sweeping the target distance in 1e-4 steps through and past the reach moves the answer\'s r by at most 2e-4 per step', () => {
    for (const c of CURVES) {
      let prev = NaN;
      for (let D = 0.3; D < 1.4; D += 1e-4) {
        const res = run(c.r, lo, hi, D, 0, 0.05);
        if (Number.isFinite(prev)) expect(Math.abs(res.r - prev), `${c.label} at D = ${D}`).toBeLessThan(2e-4);
        prev = res.r;
      }
    }
  });

  test('invalid input: non-finite or negative distances, hi ≤ 0, lo > hi, tol ≤ 0 → false (the caller keeps its analytic solve); a non-finite animated tip distance counts as 0', () => {
    const s = new Float64Array(RS.SIZE);
    for (const [l, h, D, tol] of [[NaN, 1, 0.5, 1e-9], [0.1, NaN, 0.5, 1e-9], [0.1, 0, 0.5, 1e-9], [0.1, Infinity, 0.5, 1e-9], [0.5, 0.2, 0.3, 1e-9], [-0.1, 1, 0.5, 1e-9], [0.1, 1, NaN, 1e-9], [0.1, 1, -1, 1e-9], [0.1, 1, 0.5, 0], [0.1, 1, 0.5, NaN]]) {
      expect(reachSearchBegin(s, l!, h!, D!, 0, 0, tol!), `${l}, ${h}, ${D}, ${tol}`).toBe(false);
    }
    expect(reachSearchBegin(s, 0.1, 1, 0.5, NaN, 0.2, 1e-9)).toBe(true);
    expect(s[RS.DC]).toBe(0);
  });

  test('a reach curve that is not finite everywhere: the search still ends within the round cap and never asks for a distance outside [lo, hi]', () => {
    const r = (dd: number): number => (dd > 0.5 && dd < 0.51 ? NaN : 1 - (dd - 0.7) ** 2);
    const res = run(r, lo, hi, 0.9);
    expect(res.evaluated.length).toBeLessThanOrEqual(REACH_SEARCH_MAX_ROUNDS);
    for (const dd of res.evaluated) { expect(dd).toBeGreaterThanOrEqual(lo); expect(dd).toBeLessThanOrEqual(hi); }
  });
});
