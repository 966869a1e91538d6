/**
 * PelvisHeight — the pelvis band and balance.
 *
 * Reads: per character the legs' animated joint positions (pose store, world), their IK
 * targets and effective stance weights (written by FootLock), the balance input, the
 * centre-of-mass segments and held loads; options (rate, limits as fractions of the mean leg
 * length, softening).
 * Writes: the pelvis local translation (pose store; the whole pelvis subtree's world matrices
 * are shifted by the same world translation), and per character the smoothed offset
 * `offsetWs`, the band `bandLo`/`bandHi`, the legs that set it, the infeasible legs, the
 * centre of mass and the support centroid.
 *
 * Band: for every planted leg (stance > 0), the pelvis heights y (world, relative to the
 * animated pelvis) from which its hip reaches the leg's target: |hip + y·ŷ − target| ≤ R with
 * R = (upper + lower) × (1 − soften), an interval from a quadratic. Heavier stance weights
 * come first, and among equal ones the interval nearest the animated height (a foot over a drop
 * or on a block far above the others misses, rather than the body moving to it); a leg whose
 * interval misses the band so far is reported as infeasible. The drop/raise limits narrow the band only where they overlap it
 * (planted feet win over the limits; diagnostics then ask for a reposition). The animated height (offset 0) is clamped into the band, smoothed with
 * α = 1 − exp(−rate·dt), and the smoothed height is clamped into the band again: smoothing
 * never crosses a reach limit (the seed's foot floating on a slope came from that).
 * Balance: when every foot is planted (or the game asks), the pelvis moves horizontally by
 * balance × (support centroid − COM), capped, smoothed with the same rate; the band is
 * computed after that shift. Units: world units; rates 1/s. Never allocates or throws.
 *
 * The step itself is the WebAssembly kernel `wasm/sceneContacts.ts` (`pelvisRun`); this system
 * hands it the characters.
 *
 * Runs over a range of the scene characters (`from`, `count` into `world.queries.sceneChars.dense`;
 * all by default): characters are independent here, so a game's job system may split them.
 */
import type { BitrigWorld } from '../core/world';

/**
 * Run the pelvis step for the scene characters `[from, from + count)` of
 * `world.queries.sceneChars.dense` (every one by default).
 *
 * @example
 * pelvisHeight(world, 1 / 60);
 */
export function pelvisHeight(world: BitrigWorld, dt: number, from = 0, count = 0x7fffffff): void {
  const chars = world.queries.sceneChars.dense;
  const lo = from > 0 ? from : 0;
  const hi = count < chars.length - lo ? lo + count : chars.length;
  const accel = world.tailAccel;
  // (the kernel's arrays are this world's own after every layout; anything else is a world mid-setup: nothing to do)
  if (accel === null || accel.scene === null || hi <= lo || hi - lo > accel.sceneList.length) return;
  if (world.comSegments.buffer !== accel.memory.buffer) return;
  const list = accel.sceneList;
  for (let i = lo; i < hi; i++) list[i - lo] = chars[i]!;
  accel.sceneParams[0] = dt;
  accel.scene.pelvisRun(0, hi - lo);
}
