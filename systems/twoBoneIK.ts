/**
 * TwoBoneIK — solve every limb toward its request.
 *
 * Reads: per limb the request in the Limb component (legs: written by FootLock; arms: built
 * from the HandTarget — a held object's wrist target is the desired object pose × the inverse
 * grip transform), the pose store (local TRS and world matrices, after PelvisHeight moved the
 * pelvis).
 * Writes: the local rotations of the root, mid and end bones (and, for IK-controller ends that
 * hang outside the chain, the end's local translation), the world matrices of the limb
 * subtree, and the outcome: `reached`, `missWs`, `missFullWs`, `extension`, `solved`,
 * `invalid`; for arms the held object's pose on the solved hand and the `reposition` flag.
 *
 * The solve runs in the limb root's parent-local frame, so it is exact under any affine parent;
 * where world and local rotations do not compose (a sheared or non-uniformly scaled parent, a
 * non-uniform or negative scale on the chain) the end's rotation is solved from its parent's new
 * world matrix (x axis exact, y axis in the target's xy plane). Bone lengths never change: an
 * out-of-reach target leaves the limb extended toward it and reports the miss. A weight of 0
 * (and no rotation request) leaves the bones untouched; invalid input (non-finite target,
 * zero-length bone) keeps the animation and sets `invalid`; a limb whose slots lie outside the
 * pose store is not solved (`solved` 0, `invalid` 1). Units: world units. Never allocates or
 * throws.
 *
 * The solve itself is the WebAssembly kernel `wasm/twoBone.ts` (`twoBoneRun`); this system hands
 * it the limbs.
 *
 * Runs over a range of the limbs (`from`, `count` into `world.queries.limbs.dense`; all by
 * default): limbs of different characters are independent, so a job system may split them
 * (a character's limbs together: two legs of one character are solved as a pair).
 */
import type { BitrigWorld } from '../core/world';

/**
 * Solve the limbs `[from, from + count)` of `world.queries.limbs.dense` (every one by default).
 *
 * @example
 * twoBoneIK(world, 1 / 60);
 */
export function twoBoneIK(world: BitrigWorld, dt: number, from = 0, count = 0x7fffffff): void {
  void dt;
  const ents = world.queries.limbs.dense;
  const lo = from > 0 ? from : 0;
  const hi = count < ents.length - lo ? lo + count : ents.length;
  const accel = world.tailAccel;
  // (the kernel's arrays are this world's own after every layout; anything else is a world mid-setup: nothing to do)
  if (accel === null || accel.ik === null || hi <= lo || hi - lo > accel.ikList.length) return;
  const list = accel.ikList;
  for (let i = lo; i < hi; i++) list[i - lo] = ents[i]!;
  accel.ik.twoBoneRun(0, hi - lo);
}
