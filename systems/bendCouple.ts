/**
 * BendCouple — bend coupling between neighbouring links and the elastic bend limit (SPEC §2),
 * in rotations, not particle positions.
 *
 * Reads: predicted tips `pos` (world), `restR`, `toHips` (A_i: parent rest frame → hips
 * frame), bend snapshots `bendOld` from the previous step, chain options.
 * Writes: `pos` (tips moved onto the coupled, limited bend), `vel` (radial part and the part
 * pushing against the limit removed), `bendNew` (this step's bends; FloorContact finalises
 * them and snapshots them into `bendOld`), `bendAngle` (radians), `headWs`, `rotWs`.
 *
 * Per link i (root to tip, heads from the already-corrected parents): bend in the parent
 * frame q = swing(r_i, d̃_i), compared in the hips frame as q_i = A_i q A_i⁻¹. Target q̄_i from
 * the previous step's snapshots: interior slerp(q_{i−1}, q_{i+1}, ½); base slerp(I, q_1, ½)
 * (the hips hold the base); tip q_{N−2}; a one-link tail is not coupled. q* = slerp(q_i, q̄_i, α),
 * α = 1 − exp(−kΔt). Limit: θ = 2 acos|w|; above θmax, q* = slerp(I, q*, θmax/θ).
 */
import type { BitrigWorld } from '../core/world';
import { LINK_STRIDE } from '../core/components/tail';
import { linkAim, linkFrame, LF } from '../core/tailKernel';
import { qAngle, qConjMul, qMul, qMulConj, qRotate, qRotateInv, qSlerp, qSwing } from '../core/qmath';

const _v = new Float64Array(12);
const _q = new Float64Array(16);
const ID = new Float64Array([0, 0, 0, 1]);

/**
 * Couple and limit every chain's bends for a step of `h` seconds.
 *
 * @example
 * bendCouple(world, world.tailClock.fixedStep);
 */
export function bendCouple(world: BitrigWorld, h: number): void {
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
  const B = world.components.BendState;
  const pos = P.pos, vel = P.vel;
  const ents = world.queries.tails.dense;
  for (let e = 0; e < ents.length; e++) {
    const eid = ents[e]!;
    if (C.stepsLastFrame[eid] === 0) continue;
    const n = C.links[eid]!;
    const a = eid * 8;
    const k12 = C.couplingRate[eid]!;
    const alpha = n > 1 && k12 > 0 ? 1 - Math.exp(-k12 * h) : 0;
    const thMax = C.bendLimit[eid]!;
    const L = eid * LINK_STRIDE;
    for (let i = 0; i < n; i++) {
      const k = L + i;
      linkFrame(world, eid, i, C.anchorStep, a);
      const hx = LF[0]!, hy = LF[1]!, hz = LF[2]!;
      const len = LF[14]!;
      if (!(len > 0)) {
        linkAim(world, eid, i, LF[11]!, LF[12]!, LF[13]!);
        B.bendNew[k * 4] = 0; B.bendNew[k * 4 + 1] = 0; B.bendNew[k * 4 + 2] = 0; B.bendNew[k * 4 + 3] = 1;
        continue;
      }
      let dx = pos[k * 3]! - hx, dy = pos[k * 3 + 1]! - hy, dz = pos[k * 3 + 2]! - hz;
      const dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (dl > 1e-12 * len && Number.isFinite(dl)) { dx /= dl; dy /= dl; dz /= dl; } else { dx = LF[11]!; dy = LF[12]!; dz = LF[13]!; }
      // Parent frame: r (rest dir) and d̃ (candidate dir).
      qRotate(_v, 0, B.restR, k * 4, B.tipDirLs, k * 3); // r_par
      _v[3] = dx; _v[4] = dy; _v[5] = dz;
      qRotateInv(_v, 3, LF, 3, _v, 3); // d̃_par
      qSwing(_q, 0, _v, 0, _v, 3); // q (parent frame)
      // Hips frame: q_i = A q A⁻¹
      qMul(_q, 4, B.toHips, k * 4, _q, 0);
      qMulConj(_q, 4, _q, 4, B.toHips, k * 4);
      if (alpha > 0) {
        // q̄ from the previous step's snapshots.
        if (i === 0) qSlerp(_q, 8, ID, 0, B.bendOld, (k + 1) * 4, 0.5);
        else if (i === n - 1) { _q[8] = B.bendOld[(k - 1) * 4]!; _q[9] = B.bendOld[(k - 1) * 4 + 1]!; _q[10] = B.bendOld[(k - 1) * 4 + 2]!; _q[11] = B.bendOld[(k - 1) * 4 + 3]!; }
        else qSlerp(_q, 8, B.bendOld, (k - 1) * 4, B.bendOld, (k + 1) * 4, 0.5);
        qSlerp(_q, 4, _q, 4, _q, 8, alpha);
      }
      // Elastic limit.
      const th = qAngle(_q, 4);
      let limited = false;
      if (th > thMax) {
        qSlerp(_q, 4, ID, 0, _q, 4, thMax / th);
        limited = true;
      }
      B.bendAngle[k] = limited ? thMax : th;
      B.bendNew[k * 4] = _q[4]!; B.bendNew[k * 4 + 1] = _q[5]!; B.bendNew[k * 4 + 2] = _q[6]!; B.bendNew[k * 4 + 3] = _q[7]!;
      // Back to the parent frame: q' = A⁻¹ q* A ; d' = parent · q' · r_par
      qConjMul(_q, 12, B.toHips, k * 4, _q, 4);
      qMul(_q, 12, _q, 12, B.toHips, k * 4);
      qRotate(_v, 6, _q, 12, _v, 0);
      qRotate(_v, 6, LF, 3, _v, 6);
      let nx = _v[6]!, ny = _v[7]!, nz = _v[8]!;
      const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (nl > 1e-12) { nx /= nl; ny /= nl; nz /= nl; } else { nx = dx; ny = dy; nz = dz; }
      pos[k * 3] = hx + len * nx; pos[k * 3 + 1] = hy + len * ny; pos[k * 3 + 2] = hz + len * nz;
      let vx = vel[k * 3]!, vy = vel[k * 3 + 1]!, vz = vel[k * 3 + 2]!;
      const vr = vx * nx + vy * ny + vz * nz;
      vx -= vr * nx; vy -= vr * ny; vz -= vr * nz;
      // Remove the velocity that keeps pushing back against the correction (the limit, or the
      // coupling), at most as much as the correction undid this step: left in place it builds
      // up every step and releases as a snap (limit) or a jitter (coupling against a resting
      // neighbour). Velocity is only ever taken away here, never added.
      const c = dx * nx + dy * ny + dz * nz;
      let ex = nx - c * dx, ey = ny - c * dy, ez = nz - c * dz; // candidate → result, tangential
      const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
      if (el > 1e-12) {
        ex /= el; ey /= el; ez /= el;
        const ve = vx * ex + vy * ey + vz * ez;
        if (ve < 0) {
          const cut = limited ? ve : Math.max(ve, -(el * len) / h);
          vx -= cut * ex; vy -= cut * ey; vz -= cut * ez;
        }
      }
      vel[k * 3] = vx; vel[k * 3 + 1] = vy; vel[k * 3 + 2] = vz;
      linkAim(world, eid, i, nx, ny, nz);
    }
  }
}
