/**
 * TailWrite — rotation readback into the pose store, every frame (SPEC §2 "rotation
 * readback").
 *
 * Reads: particles `pos` and `prev` (world) with the clock's display fraction (the state is
 * drawn between the last two internal steps, so every render rate shows the same path),
 * this frame's anchor `anchorCur`, rest rotations.
 * Writes: the pose store's local rotation of every link bone (parent frame) and `writtenR`, the world
 * matrices of the tail bones and their descendants, `headWs`/`rotWs`, `anchorPrev`.
 *
 * Each bone's rotation is the shortest arc taking its rest direction onto the direction to
 * its particle, expressed in the parent's frame. A non-finite result writes the rest
 * rotation and re-initialises the chain next frame: no NaN ever reaches a bone.
 */
import type { BitrigWorld } from '../core/world';
import { LINK_STRIDE } from '../core/components/tail';
import { floorDirection, linkAim, linkFrame, LF } from '../core/tailKernel';
import { qConjMul, qRotate, qRotateInv } from '../core/qmath';

const _c = new Float64Array(3);
const _n = new Float64Array(3);
const _sc = new Float64Array(3);
import { composeTRS, poseUpdateSubtree } from '../core/pose';

/**
 * Write every chain's bone rotations for this frame.
 *
 * @example
 * tailWrite(world);
 */
export function tailWrite(world: BitrigWorld): void {
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
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
      linkFrame(world, eid, i, C.anchorCur, a);
      const len = LF[14]!;
      let dx = LF[11]!, dy = LF[12]!, dz = LF[13]!;
      if (len > 0) {
        // Display state: between the last two steps, in anchor-local terms, placed with this
        // frame's anchor (so the tail never lags the body by a step).
        _c[0] = P.prev[k * 3]!; _c[1] = P.prev[k * 3 + 1]!; _c[2] = P.prev[k * 3 + 2]!;
        if (al > 1e-9) {
          // The newest state in the frame of the anchor it was computed with, blended in.
          const inv = 1 / C.anchorStep[a + 7]!;
          _n[0] = (P.pos[k * 3]! - C.anchorStep[a]!) * inv;
          _n[1] = (P.pos[k * 3 + 1]! - C.anchorStep[a + 1]!) * inv;
          _n[2] = (P.pos[k * 3 + 2]! - C.anchorStep[a + 2]!) * inv;
          qRotateInv(_n, 0, C.anchorStep, a + 3, _n, 0);
          _c[0] += (_n[0]! - _c[0]!) * al;
          _c[1] += (_n[1]! - _c[1]!) * al;
          _c[2] += (_n[2]! - _c[2]!) * al;
        }
        qRotate(_c, 0, C.anchorCur, a + 3, _c, 0);
        const s0 = C.anchorCur[a + 7]!;
        const ex = C.anchorCur[a]! + s0 * _c[0]! - LF[0]!;
        const ey = C.anchorCur[a + 1]! + s0 * _c[1]! - LF[1]!;
        const ez = C.anchorCur[a + 2]! + s0 * _c[2]! - LF[2]!;
        const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
        if (el > 1e-12 * len && Number.isFinite(el)) { dx = ex / el; dy = ey / el; dz = ez / el; }
        else if (!Number.isFinite(el)) bad = true;
        // Interpolating between two floor-circle states can dip under the floor by the chord's
        // sagitta: put the drawn tip back on the circle.
        if (floorOn && LF[1]! + len * dy < F) {
          floorDirection(_c, 0, LF[1]!, len, F, dx, dz, LF[11]!, LF[13]!, 0, -1);
          dx = _c[0]!; dy = _c[1]!; dz = _c[2]!;
        }
      }
      linkAim(world, eid, i, dx, dy, dz);
      // local = parent⁻¹ · world
      const s = C.slot[k]!;
      qConjMul(pose.localR, s * 4, LF, 3, B.rotWs, k * 4);
      const x = pose.localR[s * 4]!, y = pose.localR[s * 4 + 1]!, z = pose.localR[s * 4 + 2]!, w = pose.localR[s * 4 + 3]!;
      const l = Math.sqrt(x * x + y * y + z * z + w * w);
      if (!(l > 1e-9) || !Number.isFinite(l)) bad = true;
      else { pose.localR[s * 4] = x / l; pose.localR[s * 4 + 1] = y / l; pose.localR[s * 4 + 2] = z / l; pose.localR[s * 4 + 3] = w / l; }
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
