/**
 * TailStep — one internal step of every tail chain: per link, from the hips outward, the
 * three stages in the pipeline's order (TailSpring → BendCouple → FloorContact), then the
 * link is aimed at its final tip so the next link's head and frame are final.
 *
 * Reads/writes what the three stages do (see their headers); also `rotWs`/`headWs`, the links'
 * local rotations `localCur` (parent frame) and the bend snapshots `bendOld` (taken once the whole chain is done: a step never reads a
 * half-updated neighbour). World space, engine units, seconds.
 */
import type { BitrigWorld } from '../core/world';
import { LINK_STRIDE } from '../core/components/tail';
import { CS, LF, chainBegin, linkAim, linkFrame } from '../core/tailKernel';
import { tailSpringLink } from './tailSpring';
import { bendCoupleLink } from './bendCouple';
import { floorContactLink } from './floorContact';
import { qConjMul } from '../core/qmath';

/**
 * Step every chain that has a step pending this frame by `h` seconds.
 *
 * @example
 * for (let s = 0; s < steps; s++) { tailClockStep(world, s); tailStep(world, h); }
 */
export function tailStep(world: BitrigWorld, h: number): void {
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
  const B = world.components.BendState;
  const ents = world.queries.tails.dense;
  for (let e = 0; e < ents.length; e++) {
    const eid = ents[e]!;
    if (C.stepsLastFrame[eid] === 0) continue;
    const n = C.links[eid]!;
    const a = eid * 8;
    chainBegin(world, eid, h, C.anchorStep, a);
    for (let i = 0; i < n; i++) {
      const k = eid * LINK_STRIDE + i;
      linkFrame(world, eid, i, C.anchorStep, a);
      if (!(LF[14]! > 0)) {
        // Zero-length link: the tip is the head; rest direction, no bend.
        P.pos[k * 3] = LF[0]!; P.pos[k * 3 + 1] = LF[1]!; P.pos[k * 3 + 2] = LF[2]!;
        P.vel[k * 3] = 0; P.vel[k * 3 + 1] = 0; P.vel[k * 3 + 2] = 0;
        P.contact[k] = 0;
        B.bendNew[k * 4] = 0; B.bendNew[k * 4 + 1] = 0; B.bendNew[k * 4 + 2] = 0; B.bendNew[k * 4 + 3] = 1;
        if (i === 0) { CS[3] = LF[0]!; CS[4] = LF[1]!; CS[5] = LF[2]!; }
        linkAim(world, eid, i, LF, 11);
        qConjMul(B.localCur, k * 4, LF, 3, B.rotWs, k * 4);
        continue;
      }
      tailSpringLink(world, eid, i, h); // 5. TailSpring
      bendCoupleLink(world, eid, i, h); // 6. BendCouple
      floorContactLink(world, eid, i, h); // 7. FloorContact
      linkAim(world, eid, i, CS, 20);
      qConjMul(B.localCur, k * 4, LF, 3, B.rotWs, k * 4); // local = parent⁻¹ · world
    }
    const o = eid * LINK_STRIDE * 4;
    for (let j = o; j < o + n * 4; j++) B.bendOld[j] = B.bendNew[j]!;
  }
}
