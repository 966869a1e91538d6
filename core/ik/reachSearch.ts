/**
 * The reach search of a stretchy limb: a one-dimensional job on the distance `dd` the two-bone
 * kernel is asked for (solve-space units).
 *
 * A non-uniform scale on a limb's root bone (a stretchy upper arm) makes the lower bone's length
 * in solve space depend on the elbow angle, so the kernel's model reach (l1 + l2) is not the
 * limb's and its analytic solve misses. The root's rotation is rigid, so the tip's distance r
 * from the root depends on the elbow alone, i.e. on `dd`. The caller evaluates r(dd) (solve the
 * limb for a target at distance `dd` along the goal's direction, measure the tip); this job
 * says which `dd` to evaluate next:
 *
 * 1. the folded limb, dd = lo (|l1 − l2|): r there is the least distance, `Lmin`;
 * 2. a golden-section search for the largest r on [lo, hi] ({@link REACH_SEARCH_GOLDEN_STEPS}
 *    steps), then the straight limb dd = hi, which the golden section never samples (a squashed
 *    limb's reach peaks there): the larger is the real reach `Lr`, at `ddMax`;
 * 3. the goal distance: the blended target's distance with the kernel's soften and clamp
 *    applied to the real reach [Lmin, Lr];
 * 4. regula falsi (Illinois) on [lo, ddMax] for r(dd) = goal: the only crossing while r rises
 *    monotonically there (as it does unless the shear is extreme).
 *
 * Continuous in the target. About 30 evaluations per limb and frame. The state is a
 * caller-owned Float64Array of {@link RS.SIZE}; nothing allocates, nothing throws.
 *
 * @example
 * const s = new Float64Array(RS.SIZE);
 * reachSearchBegin(s, lo, hi, goalDistance, animatedTipDistance, soften, 1e-7);
 * let dd = s[RS.DD];
 * for (;;) {
 *   const r = solveAndMeasure(dd);       // the caller's evaluation of r(dd)
 *   if (!reachSearchNext(s, r)) break;   // done: the last evaluated pose is the answer
 *   dd = s[RS.DD];
 * }
 * const realReach = s[RS.LR];
 */

/** Golden-section steps: the bracket shrinks to 0.618^20 ≈ 7e-5 of the elbow's range, so the
 * reach is found to about 1e-7 of itself (the error is quadratic in the bracket: 14 steps left
 * 0.04 mm on a 1.5 m arm, 0.4 mm under a 10× parent). */
export const REACH_SEARCH_GOLDEN_STEPS = 20;

/** Most evaluations, the analytic solve included (the regula falsi stops there if it has not met
 * its tolerance). */
export const REACH_SEARCH_MAX_ROUNDS = 48;

/** Slots of the search state (a Float64Array of `RS.SIZE`). Read `DD` (the next distance to
 * evaluate), `LR` (the real reach, once found; 0 before) and `LMIN` (the folded distance). */
export const RS = {
  /** 1 folded, 2–3 golden section, 7 straight limb, 4 at the maximum, 5 regula falsi, 6 folded goal */
  PHASE: 0, ROUND: 1, GI: 2, PEND_C: 3, SIDE: 4,
  LO: 5, HI: 6, DD: 7, LMIN: 8, LR: 9, GOAL: 10,
  GA: 11, GB: 12, GC: 13, GD: 14, RC: 15, RD: 16, FLO: 17, FHI: 18, DD_MAX: 19, R_INT: 20, DD_INT: 21,
  D: 22, DC: 23, SOFTEN: 24, TOL: 25,
  SIZE: 26,
} as const;

const GR = 0.6180339887498949;

/**
 * Start a search after the analytic solve (round 0). `lo`, `hi`: the kernel's folded and
 * straight distances (solve space); `D`: the blended target's distance from the root; `dc`: the
 * animated tip's distance (the kernel's soften never pulls a target in below it; 0 if not
 * finite); `soften` ∈ [0, 0.5] (clamped); `tol`: the distance tolerance of the goal (solve-space
 * units). The first distance to evaluate is `s[RS.DD]` (= lo). Returns false (and leaves the
 * state unchanged) for a non-finite `lo`, `hi` or `D`, hi ≤ 0 or tol ≤ 0: the caller keeps the
 * analytic solve.
 *
 * @example
 * if (reachSearchBegin(s, lo, hi, D, dc, 0.01, 1e-7)) evaluate(s[RS.DD]);
 */
export function reachSearchBegin(s: Float64Array, lo: number, hi: number, D: number, dc: number, soften: number, tol: number): boolean {
  if (!(hi > 1e-12) || !Number.isFinite(hi) || !(lo >= 0) || !(lo <= hi) || !(D >= 0) || !Number.isFinite(D) || !(tol > 0)) return false;
  if (!(dc >= 0) || !Number.isFinite(dc)) dc = 0; // (no animated tip distance: no floor on the softening)
  let sg = soften;
  if (!(sg > 0)) sg = 0; else if (sg > 0.5) sg = 0.5;
  s.fill(0);
  s[RS.PHASE] = 1; s[RS.ROUND] = 0;
  s[RS.LO] = lo; s[RS.HI] = hi; s[RS.DD] = lo;
  s[RS.D] = D; s[RS.DC] = dc; s[RS.SOFTEN] = sg; s[RS.TOL] = tol;
  return true;
}

/**
 * Consume r = r(s[RS.DD]) (the tip's distance from the root when the kernel was asked for
 * s[RS.DD]). Returns true with the next distance in s[RS.DD], or false when the search is done:
 * the pose just evaluated is the answer (at the goal, at the real reach, or folded).
 *
 * @example
 * while (reachSearchNext(s, evaluate(s[RS.DD])));
 */
export function reachSearchNext(s: Float64Array, r: number): boolean {
  const round = ++s[RS.ROUND];
  let phase = s[RS.PHASE]!;
  if (phase === 1) {
    s[RS.LMIN] = r;
    const ga = s[RS.LO]!, gb = s[RS.HI]!;
    s[RS.GA] = ga; s[RS.GB] = gb;
    s[RS.GC] = gb - GR * (gb - ga); s[RS.GD] = ga + GR * (gb - ga);
    s[RS.DD] = s[RS.GC]!; s[RS.PEND_C] = 1; s[RS.PHASE] = 2; s[RS.GI] = 0;
    return true;
  }
  if (phase === 2) {
    // golden section for the largest r: first the two interior points
    if (s[RS.PEND_C] === 1) { s[RS.RC] = r; s[RS.DD] = s[RS.GD]!; s[RS.PEND_C] = 0; return true; }
    s[RS.RD] = r; phase = 3; s[RS.PHASE] = 3;
  }
  let atMax = false; // this round evaluated the maximum
  if (phase === 3) {
    const gi = s[RS.GI]!;
    if (gi > 0) { if (s[RS.PEND_C] === 1) s[RS.RC] = r; else s[RS.RD] = r; }
    const rc = s[RS.RC]!, rd = s[RS.RD]!;
    if (gi >= REACH_SEARCH_GOLDEN_STEPS) {
      // the interior maximum; the straight limb (the search never samples hi) is checked next
      s[RS.DD_INT] = rc > rd ? s[RS.GC]! : s[RS.GD]!; s[RS.R_INT] = rc > rd ? rc : rd;
      s[RS.DD] = s[RS.HI]!; s[RS.PHASE] = 7;
      return true;
    }
    s[RS.GI] = gi + 1;
    if (rc > rd) {
      const gb = s[RS.GD]!; s[RS.GB] = gb; s[RS.GD] = s[RS.GC]!; s[RS.RD] = rc;
      s[RS.GC] = gb - GR * (gb - s[RS.GA]!); s[RS.DD] = s[RS.GC]!; s[RS.PEND_C] = 1;
    } else {
      const ga = s[RS.GC]!; s[RS.GA] = ga; s[RS.GC] = s[RS.GD]!; s[RS.RC] = rd;
      s[RS.GD] = ga + GR * (s[RS.GB]! - ga); s[RS.DD] = s[RS.GD]!; s[RS.PEND_C] = 0;
    }
    return true;
  }
  if (phase === 7) {
    if (r >= s[RS.R_INT]!) { s[RS.DD_MAX] = s[RS.HI]!; atMax = true; } else { s[RS.DD_MAX] = s[RS.DD_INT]!; s[RS.DD] = s[RS.DD_INT]!; }
    s[RS.PHASE] = 4;
    if (!atMax) return true;
  } else if (phase === 4) atMax = true;
  const tol = s[RS.TOL]!;
  if (atMax) {
    const Lr = r; // at the maximum
    s[RS.LR] = Lr;
    // The goal: the kernel's soften and clamp, on the real reach [Lmin, Lr].
    const sG = s[RS.SOFTEN]!, Lmin = s[RS.LMIN]!, dcA = s[RS.DC]!;
    let De = s[RS.D]!;
    if (sG > 0 && De > Lr * (1 - sG)) {
      let da = Lr * (1 - sG);
      if (dcA > da) da = dcA < Lr ? dcA : Lr;
      const sl = Lr - da;
      if (De > da) De = sl > 1e-12 * Lr ? da + sl * (1 - Math.exp(-(De - da) / sl)) : Lr;
    }
    if (De > Lr) De = Lr;
    if (De < Lmin) De = Lmin;
    s[RS.GOAL] = De;
    if (!(De < Lr - tol)) return false; // stay at the maximum (this pose)
    const flo = Lmin - De, fhi = Lr - De;
    s[RS.FLO] = flo; s[RS.FHI] = fhi;
    if (!(flo < -tol)) { s[RS.DD] = s[RS.LO]!; s[RS.PHASE] = 6; return true; }
    const lo = s[RS.LO]!, ddMax = s[RS.DD_MAX]!;
    s[RS.DD] = (lo * fhi - ddMax * flo) / (fhi - flo); s[RS.HI] = ddMax; s[RS.SIDE] = 0; s[RS.PHASE] = 5;
    return true;
  }
  if (phase === 5) {
    const f = r - s[RS.GOAL]!;
    if (!(Math.abs(f) > tol) || round >= REACH_SEARCH_MAX_ROUNDS) return false;
    let lo = s[RS.LO]!, hi = s[RS.HI]!, flo = s[RS.FLO]!, fhi = s[RS.FHI]!;
    const side = s[RS.SIDE]!, dd = s[RS.DD]!;
    if (f > 0) { hi = dd; fhi = f; if (side === 1) flo *= 0.5; s[RS.SIDE] = 1; } else { lo = dd; flo = f; if (side === -1) fhi *= 0.5; s[RS.SIDE] = -1; }
    s[RS.LO] = lo; s[RS.HI] = hi; s[RS.FLO] = flo; s[RS.FHI] = fhi;
    s[RS.DD] = (lo * fhi - hi * flo) / (fhi - flo);
    return true;
  }
  return false; // phase 6: the folded pose, evaluated
}
