/**
 * TailWrite — readback into the pose store, every frame (rotation readback).
 *
 * Reads: the links' local rotations after the last two internal steps (`localPrev`,
 * `localCur`; each is the shortest arc taking the bone's rest direction onto the direction to
 * its particle, in the parent's frame) and the clock's display fraction α (so every render
 * rate shows the same motion, one step behind); this frame's anchor `anchorCur`; the floor.
 * Writes: the pose store's local rotation and world matrix of every link bone (and the end
 * helper's world matrix; reflected back for a mirrored anchor), `anchorPrev`; `initialised` 0
 * for a chain whose links, row or bone slots lie outside the world's arrays (written nothing;
 * `tailStructureOk`). The link loop and the common finish run in the WebAssembly kernel
 * (wasm/tailStep.ts `tailWrite`, two chains per f64x2); the rarer finishes here.
 *
 * Local rotations are blended, so the tail rides the body exactly as it moves this frame. A
 * drawn tip that the blend (or this frame's hips) puts under the floor goes back onto the
 * floor circle. A non-finite result writes the rest rotation and re-initialises the chain next
 * frame: no NaN ever reaches a bone.
 */
import type { BitrigWorld } from '../core/world';
import { CLOCK } from '../core/components/tail';
import { tailFinishChain } from '../core/tailFinish';


/**
 * Write the chains of row groups [`from`, `from + count`) (default: all) for this frame, then
 * the finishes the kernel leaves (a failed blend's rest fallback, exact world matrices, an end
 * helper with children) for every chain. A no-op on a world without bitrig.
 *
 * @example
 * tailWrite(world);
 */
export function tailWrite(world: BitrigWorld, from = 0, count = 0x7fffffff): void {
  const accel = world.tailAccel;
  if (accel === null) return;
  const groups = world.tailRows.groups;
  const g0 = from > 0 ? (from < groups ? from : groups) : 0;
  const g1 = count < groups - g0 ? g0 + count : groups;
  listChains(world, accel.ents, accel.params);
  accel.kernel.tailWrite(g0, g1);
  const ents = world.queries.tails.dense;
  // (counted in the kernel, from the list it wrote: the same test as finishLeft)
  const left = accel.kernel.finishLeftCount(ents.length);
  if (left === 0) return;
  const C = world.components.TailChain;
  // Many left (say exact world matrices everywhere): the whole finish
  // (it repeats the anchor copies and helpers done, with the same values).
  if (left >= 256) { tailWriteFinish(world); return; }
  for (let e = 0; e < ents.length; e++) if (finishLeft(C, ents[e]!)) tailFinishChain(world, ents[e]!);
}

/**
 * The chains into the kernel's list (for its finish count) and the display fraction α into
 * params[1]: here, in a function that loops and gets optimised, not in the once-a-frame
 * dispatcher, whose unoptimised code would box the double (an allocation a frame).
 */
function listChains(world: BitrigWorld, ids: Int32Array, params: Float64Array): void {
  params[1] = world.clock[CLOCK.ALPHA]!;
  const ents = world.queries.tails.dense;
  for (let e = 0; e < ents.length; e++) ids[e] = ents[e]!;
}

/** Whether the WebAssembly write left part of chain `eid`'s finish to {@link tailFinishChain}. */
function finishLeft(C: BitrigWorld['components']['TailChain'], eid: number): boolean {
  if (C.initialised[eid] === 0) return false; // not written (and the finish skips it)
  if (C.links[eid] === 0 || C.writeFailed[eid] === 1 || C.exactWorld[eid] === 1) return true;
  return C.endSlot[eid]! >= 0 && C.endLeaf[eid] !== 1;
}

/**
 * Per chain, once every chain's links are written: the rest fallback for a chain whose write
 * went non-finite (`writeFailed`: rest rotations, re-initialised next frame), the anchor copy
 * for the next frame, and the world matrices the link loop did not compose — the end helper's
 * subtree, or the whole chain's when it keeps exact world matrices or failed. Done after all
 * link loops, so a tail hanging under another tail's bones gets world
 * matrices from its parent tail's final pose.
 */
function tailWriteFinish(world: BitrigWorld): void {
  const ents = world.queries.tails.dense;
  for (let e = 0; e < ents.length; e++) tailFinishChain(world, ents[e]!);
}
