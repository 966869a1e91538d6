/**
 * TailWrite's per-chain finish (systems/tailWrite.ts): the rest fallback for a chain whose write went
 * non-finite, the anchor copy for the next frame, and the world matrices the link loop did not
 * compose (the end helper's subtree, or the whole chain's when it keeps exact world matrices or
 * failed). Reads and writes this chain's data and its character's pose (the `dirty` scratch of
 * the character's slots): chains of one character must run in order.
 */
import type { BitrigWorld } from './world';
import { linkEl, linkIndex } from './components/tail';
import { poseUpdateSubtree } from './poseMath';

/**
 * Finish one chain's write (after every chain's link loop). Per-frame; no allocation.
 *
 * @example
 * for (const eid of world.queries.tails.dense) tailFinishChain(world, eid);
 */
export function tailFinishChain(world: BitrigWorld, eid: number): void {
  const C = world.components.TailChain;
  const B = world.components.BendState;
  const pose = world.pose;
  const localR = pose.localR, restR = B.restR, AC = C.anchorCur, AP = C.anchorPrev;
  if (C.initialised[eid] === 0) return;
  const n = C.links[eid]!;
  const row = C.row[eid]!;
  const bad = n > 0 && C.writeFailed[eid] === 1;
  if (bad) {
    for (let i = 0; i < n; i++) {
      const k = linkIndex(row, i);
      const s4 = C.slot[k]! * 4;
      const x = restR[linkEl(k, 4, 0)]!, y = restR[linkEl(k, 4, 1)]!, z = restR[linkEl(k, 4, 2)]!, w = restR[linkEl(k, 4, 3)]!;
      const il = 1 / Math.sqrt(x * x + y * y + z * z + w * w); // (float32 is unit to 1e-7 only)
      localR[s4] = x * il; localR[s4 + 1] = y * il; localR[s4 + 2] = z * il; localR[s4 + 3] = w * il;
    }
    C.initialised[eid] = 0;
  }
  const a = eid * 8;
  for (let j = 0; j < 8; j++) AP[a + j] = AC[a + j]!;
  if (bad || C.exactWorld[eid] === 1) poseUpdateSubtree(pose, C.slot[linkIndex(row, 0)]!);
  else {
    const end = C.endSlot[eid]!;
    if (end >= 0) poseUpdateSubtree(pose, end);
  }
}
