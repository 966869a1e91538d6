/**
 * The fixed pipeline order (DESIGN.md). Every system is a plain function of the world; a
 * game with its own ECS schedule may call them itself, in this order.
 *
 *   game: move character → engine evaluates animation → adapter.read (pose store filled)
 *   bitrig, {@link update}:
 *     1. FootLock      (scene IK)
 *     2. PelvisHeight  (scene IK)
 *     3. TwoBoneIK     (scene IK)
 *     4. TailClock     fixed internal step: accumulator, capped steps, anchors, resets
 *        TailColliders the colliders' world shapes this frame, then at each step
 *        for each internal step (TailStep), per link from the hips outward:
 *     5.   TailSpring    springs, rope, forward plane
 *     6.   BendCouple    coupling between neighbours, elastic bend limit
 *     6b.  TailCollide   spheres and capsules on the bones (rope kept)
 *     7.   FloorContact  floor plane (has precedence over the limit and the colliders)
 *     8. TailWrite     rotation readback into the pose store, every frame
 *   game: adapter.write → render
 *
 * Contacts come before secondary motion: the pelvis height is settled
 * before the legs are solved from it, and the tail's rest targets read the final hips.
 */
import { isBitrigWorld, type BitrigWorld } from '../core/world';
import { tailClockBegin, tailClockStep } from './tailClock';
import { tailStep } from './tailStep';
import { tailCollidersBegin, tailCollidersStep } from './tailColliders';
import { tailWrite } from './tailWrite';
import { footLock } from './footLock';
import { pelvisHeight } from './pelvisHeight';
import { twoBoneIK } from './twoBoneIK';

/**
 * Run every bitrig system for one frame of `dt` seconds. Never throws; a bad dt
 * (≤ 0, NaN, Inf) simulates nothing and still writes a valid pose; a world bitrig is not
 * attached to (no `attachBitrig`) is left alone.
 *
 * @example
 * mixer.update(dt); animator.read(); update(world, dt); animator.write();
 */
export function update(world: BitrigWorld, dt: number): void {
  if (!isBitrigWorld(world)) return; // (a world bitrig is not attached to: nothing to run; the frame never throws)
  // 1–3: scene contacts.
  footLock(world, dt);
  pelvisHeight(world, dt);
  twoBoneIK(world, dt);
  // 4–8: tail secondary motion.
  const steps = tailClockBegin(world, dt);
  tailCollidersBegin(world);
  for (let s = 0; s < steps; s++) {
    tailClockStep(world, s);
    tailCollidersStep(world, s);
    tailStep(world); // 5–7 per link, hips outward: TailSpring → BendCouple → TailCollide → FloorContact
  }
  tailWrite(world);
}
