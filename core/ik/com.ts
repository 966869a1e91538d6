/**
 * Centre of mass of a scene character, for the diagnostics and the game: the scene contacts
 * kernel's own (wasm/sceneContacts.ts `centerOfMassOf`, the one PelvisHeight's balance uses),
 * reached through the world's kernels. Engine-free and setup-free.
 */
import type { BitrigWorld } from '../world';

/**
 * Centre of mass of a scene character from the pose store now (world): weighted body segments
 * (midpoint of each bone and its child) plus held loads at the held objects. Writes
 * `out[o..o+2]`; false (out untouched) for a character without one (no segments, a non-finite
 * pose, not a scene character) or a world without its kernels. Per-frame safe.
 *
 * @example
 * computeCenterOfMass(world, handle.eid, out, 0);
 */
export function computeCenterOfMass(world: BitrigWorld, eid: number, out: Float64Array, o: number): boolean {
  const accel = world.tailAccel;
  if (accel === null || accel.scene === null || accel.scene.centerOfMassOf(eid) !== 1) return false;
  const k = accel.scene;
  out[o] = k.comXOf(); out[o + 1] = k.comYOf(); out[o + 2] = k.comZOf();
  return true;
}
