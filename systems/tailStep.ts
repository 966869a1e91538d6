/**
 * TailStep — one internal step of every tail chain (pipeline steps 5–7), run by the
 * WebAssembly kernel wasm/tailStep.ts (the one implementation) on the components in place.
 * Per link, from the hips outward, its stages run in order, then the link is aimed at its
 * final tip so the next link's head and frame are final:
 *
 *   5. tailSpring   rest target T = h + ℓ r from the parent's current frame;
 *                   p̈ = ω²(T − p) − 2ζω ṗ + g, ω = 2πf (f from the root's frequency to
 *                   tipRatio × it at the tip), semi-implicit Euler. Rope: p back onto the
 *                   sphere of radius ℓ around h, dropping only the radial velocity — never
 *                   feeding the correction back as velocity. Forward plane through the tail
 *                   root: (p − O)·F ≤ max(0, (T − O)·F), so the tail never swings between the
 *                   legs, yet a clip may still curl it forward on purpose.
 *   6. bendCouple   bend q_i = swing(r_h, d_h) in the hips frame. Target from the previous
 *                   step's snapshots: interior slerp(q_{i−1}, q_{i+1}, ½); base halfway between
 *                   the next bend and identity; the free tip its one neighbour; a one-link tail
 *                   is not coupled. q* = slerp(q_i, q̄_i, α), α = 1 − e^(−kΔt) (a normalised
 *                   lerp). Elastic limit: if θ = 2·acos|w| > θmax, q* = slerp(I, q*, θmax/θ).
 *                   Velocity pushing against the correction is removed — only ever taken away.
 *   7. floorContact contact has precedence over the limit: a tip predicted below F = g0 + ρ
 *                   goes onto the floor circle, velocity damped.
 *
 * Reads: the chain's anchor at this step (`anchorStep`), its options and step cache, the
 * per-link rest data (`headLs`, `restDirLs`, `lenRel`, `scaleRel`, `toHipsM` A_i, `restDirHs`,
 * `restR`), the particles and the previous step's bend snapshots. Writes, in place: the
 * particles (`pos` relative to `origin`, which moves to this step's anchor; `vel`, `contact`;
 * world axes, units and units/s), `bendOld` (once the whole chain is done: a step never reads a
 * half-updated neighbour), `localPrev` ← `localCur` ← the links' new local rotations (parent
 * frame). World space, engine units, seconds. A chain without a step pending keeps its state.
 */
import type { BitrigWorld } from '../core/world';
import { CLOCK } from '../core/components/tail';
import { LK, K, refreshStepCache } from '../core/tailKernel';

/**
 * Step the chains of row groups [`from`, `from + count`) (four chains a group; default: all,
 * `world.tailRows.groups`) by `step` seconds (default: the world's fixed step). Groups are
 * independent: a game's job system may split them. A no-op on a world without bitrig.
 *
 * @example
 * for (let s = 0; s < steps; s++) { tailClockStep(world, s); tailStep(world); }
 */
export function tailStep(world: BitrigWorld, step?: number, from = 0, count = 0x7fffffff): void {
  // h into the link register: the world's fixed step, or `step` when given (two statements:
  // mixing the optional argument with the clock's number would box it).
  // (no double is read here without a given step: this once-a-frame function may stay
  // unoptimised for thousands of frames, and unoptimised code boxes every double it reads; the
  // tail clock, which loops over the chains and is optimised at once, has put the fixed step
  // into the link register and the kernel's params[0])
  const accel = world.tailAccel;
  if (accel === null) return;
  if (step !== undefined) { LK[K.STEP] = step; accel.params[0] = step; }
  refreshCaches(world);
  const groups = world.tailRows.groups;
  const g0 = from > 0 ? (from < groups ? from : groups) : 0;
  const g1 = count < groups - g0 ? g0 + count : groups;
  accel.kernel.tailStep(g0, g1);
}

/** The cached exponentials of every chain with a step pending, where stale (JavaScript's Math.exp). */
function refreshCaches(world: BitrigWorld): void {
  const C = world.components.TailChain;
  const ents = world.queries.tails.dense, cache = C.stepCache;
  for (let e = 0; e < ents.length; e++) {
    const eid = ents[e]!;
    if (cache[eid * 5] !== LK[K.STEP] && C.stepsLastFrame[eid] !== 0) refreshStepCache(world, eid);
  }
}
