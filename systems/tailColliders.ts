/**
 * TailColliders — places the tail colliders for the frame (with pipeline step 4, before the
 * tail steps; the tail kernel's tailCollide stage, 6b, reads them).
 *
 * Reads: each collider's bone slot and shape in the bone's space (`TailCollider.shapeLs`:
 * ends a, b and radius, bone units) and the pose store's world matrices of this frame (after
 * the scene IK). Writes: `shapePrev` ← `shapeCur` ← the world shape now (ends through the
 * bone's world matrix; radius × the bone's world scale, the mean length of its axes); each
 * internal step interpolates between the two at its time, as the tail clock interpolates the
 * anchors. The lead (slot 7): how far the ends moved this frame in the frame of `refSlot` (the
 * tails' anchor), in engine units, at most the radius (`relPrev` keeps the ends in that frame);
 * a step takes its share (step / frame dt, into the kernel's params[3]). A collider whose
 * character was unbound, or whose bone its character no longer owns, gets radius −1 (inert).
 * Clears each chain's `colliderContacts` at the frame's start. A collider whose entity is gone
 * without `removeTailCollider` (bitecs `removeEntity` / `removeComponent`), or whose id the
 * game reused, is not placed and the step skips it (the next setup call drops it from its
 * chains' lists). World space, engine units. The placement runs in the tail kernel
 * (wasm/tailStep.ts `placeColliders`) over the colliders the query lists this frame.
 */
import type { BitrigWorld } from '../core/world';
import { CLOCK } from '../core/components/tail';

/**
 * The colliders' world shapes for this frame (call once a frame, before the tail steps, after
 * the pose store's world matrices are final). No allocation; never throws.
 *
 * @example
 * const steps = tailClockBegin(world, dt); tailCollidersBegin(world);
 */
export function tailCollidersBegin(world: BitrigWorld): void {
  const accel = world.tailAccel;
  if (accel === null) return;
  const C = world.components.TailChain, tails = world.queries.tails.dense;
  for (let i = 0; i < tails.length; i++) C.colliderContacts[tails[i]!] = 0;
  // (no colliders: none listed, so none placed, and no double is computed for an unoptimised frame to box)
  if (world.queries.colliders.dense.length === 0) { accel.kernel.placeColliders(0); return; }
  accel.kernel.placeColliders(listColliders(world, accel.colliderList, accel.params));
}

/**
 * The collider entities into the kernel's list, and a step's share of the frame (the lead's
 * scale per step) into params[3]: here, in a function that loops and gets optimised, not in
 * the once-a-frame dispatcher, whose unoptimised code would box the double. Returns the count.
 */
function listColliders(world: BitrigWorld, list: Int32Array, params: Float64Array): number {
  const q = world.queries.colliders, cols = q.dense, gone = q.toRemove;
  let n = 0;
  // (bitecs lists a removed entity until the query is next read through its API)
  if (gone.dense.length === 0) { for (let i = 0; i < cols.length; i++) list[i] = cols[i]!; n = cols.length; } else {
    for (let i = 0; i < cols.length; i++) if (!gone.has(cols[i]!)) list[n++] = cols[i]!;
  }
  const c = world.clock;
  params[3] = c[CLOCK.FRAME_DT]! > 0 ? Math.min(1, c[CLOCK.FIXED_STEP]! / c[CLOCK.FRAME_DT]!) : 1;
  return n;
}
