/**
 * TailWrite — readback into the pose store, every frame (SPEC §2 "rotation readback").
 *
 * Reads: the links' local rotations after the last two internal steps (`localPrev`,
 * `localCur`; each is the shortest arc taking the bone's rest direction onto the direction to
 * its particle, in the parent's frame) and the clock's display fraction α (so every render
 * rate shows the same motion, one step behind); this frame's anchor `anchorCur`; the floor.
 * Writes: the pose store's local rotation and world matrix of every link bone (and the end
 * helper's world matrix), `headWs`/`rotWs`, `writtenR`, `anchorPrev`.
 *
 * Local rotations are blended, so the tail rides the body exactly as it moves this frame. A
 * drawn tip that the blend (or this frame's hips) puts under the floor goes back onto the
 * floor circle. A non-finite result writes the rest rotation and re-initialises the chain next
 * frame: no NaN ever reaches a bone.
 */
import type { BitrigWorld } from '../core/world';
import { LINK_STRIDE } from '../core/components/tail';
import { floorDirection, linkAim, linkFrame, LF } from '../core/tailKernel';
import { qConjMul, qMul, qRotate } from '../core/qmath';
import { composeTRS, poseUpdateSubtree } from '../core/pose';

const _q = new Float64Array(4);
const _d = new Float64Array(3);
const _sc = new Float64Array(3);

/**
 * Write every chain's bone rotations (and tail world matrices) for this frame.
 *
 * @example
 * tailWrite(world);
 */
export function tailWrite(world: BitrigWorld): void {
  const C = world.components.TailChain;
  const B = world.components.BendState;
  const pose = world.pose;
  const al = world.tailClock.alpha;
  const ents = world.queries.tails.dense;
  for (let e = 0; e < ents.length; e++) {
    const eid = ents[e]!;
    if (C.initialised[eid] === 0) continue; // no valid anchor this frame: leave the bones
    const n = C.links[eid]!;
    const a = eid * 8;
    const floorOn = C.floorEnabled[eid] === 1;
    const F = C.floorY[eid]! + C.floorClearance[eid]! * C.unitScale[eid]!;
    let bad = false;
    for (let i = 0; i < n; i++) {
      const k = eid * LINK_STRIDE + i;
      const q = k * 4;
      // Displayed local rotation: normalised blend of the last two steps (shorter arc).
      const p = B.localPrev, c = B.localCur;
      const sgn = p[q]! * c[q]! + p[q + 1]! * c[q + 1]! + p[q + 2]! * c[q + 2]! + p[q + 3]! * c[q + 3]! < 0 ? -al : al;
      let x = p[q]! * (1 - al) + c[q]! * sgn, y = p[q + 1]! * (1 - al) + c[q + 1]! * sgn;
      let z = p[q + 2]! * (1 - al) + c[q + 2]! * sgn, w = p[q + 3]! * (1 - al) + c[q + 3]! * sgn;
      const l = Math.sqrt(x * x + y * y + z * z + w * w);
      if (!(l > 1e-9) || !(l < Infinity)) { bad = true; break; }
      x /= l; y /= l; z /= l; w /= l;
      _q[0] = x; _q[1] = y; _q[2] = z; _q[3] = w;
      linkFrame(world, eid, i, C.anchorCur, a);
      qMul(B.rotWs, q, LF, 3, _q, 0);
      const len = LF[14]!;
      if (floorOn && len > 0) {
        qRotate(_d, 0, B.rotWs, q, B.tipDirLs, k * 3);
        if (LF[1]! + len * _d[1]! < F) {
          floorDirection(_d, 0, LF[1]!, len, F, _d[0]!, _d[2]!, LF[11]!, LF[13]!, 0, -1);
          linkAim(world, eid, i, _d, 0);
          qConjMul(_q, 0, LF, 3, B.rotWs, q);
        }
      }
      const s = C.slot[k]! * 4;
      pose.localR[s] = _q[0]!; pose.localR[s + 1] = _q[1]!; pose.localR[s + 2] = _q[2]!; pose.localR[s + 3] = _q[3]!;
    }
    if (bad) {
      for (let i = 0; i < n; i++) {
        const k = eid * LINK_STRIDE + i;
        const s = C.slot[k]!;
        for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = B.restR[k * 4 + j]!;
      }
      C.initialised[eid] = 0;
    }
    for (let i = 0; i < n; i++) {
      const k = eid * LINK_STRIDE + i;
      const s = C.slot[k]!;
      for (let j = 0; j < 4; j++) B.writtenR[k * 4 + j] = pose.localR[s * 4 + j]!;
    }
    for (let j = 0; j < 8; j++) C.anchorPrev[a + j] = C.anchorCur[a + j]!;
    if (bad || C.exactWorld[eid] === 1) {
      poseUpdateSubtree(pose, C.slot[eid * LINK_STRIDE]!);
    } else {
      // World matrices of the links straight from their world frames (uniform scale), then
      // the end helper from its parent.
      const s0 = C.anchorCur[a + 7]!;
      for (let i = 0; i < n; i++) {
        const k = eid * LINK_STRIDE + i;
        const sc = s0 * B.scaleRel[k]!;
        _sc[0] = sc; _sc[1] = sc; _sc[2] = sc;
        composeTRS(pose.worldM, C.slot[k]! * 16, B.headWs, k * 3, B.rotWs, k * 4, _sc, 0);
      }
      const end = C.endSlot[eid]!;
      if (end >= 0) poseUpdateSubtree(pose, end);
    }
  }
}
