/**
 * The fixed pipeline order (DESIGN.md). Every system is `(world, dt) => void`; a game with
 * its own ECS schedule may call them itself in this order.
 *
 *   game: move character → engine evaluates animation → adapter.read
 *   bitrig:
 *     1. FootLock      (scene IK; issue "scene contacts")
 *     2. PelvisHeight  (scene IK)
 *     3. TwoBoneIK     (scene IK)
 *     4. TailSpring    ┐ stepped together on the tail's fixed internal clock
 *     5. BendCouple    │ (accumulator, capped steps per frame, anchor interpolated per step)
 *     6. FloorContact  ┘
 *     7. TailWrite     (rotation readback into the pose store, every frame)
 *   game: adapter.write → render
 */
import type { BitrigWorld } from '../core/world';
import { tailStep } from './tailClock';

/** Run every bitrig system once for a frame of `dt` seconds (bad dt is ignored safely). */
export function update(world: BitrigWorld, dt: number): void {
  // 1–3: scene contacts (added by the scene-IK systems).
  // 4–7: tail secondary motion.
  tailStep(world, dt);
}
