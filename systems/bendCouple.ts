/**
 * BendCouple — stage 2 of a tail step, per link (SPEC §2 bend coupling and elastic limit),
 * in rotations, not particle positions.
 *
 * Reads: the candidate direction CS[20..22] (world unit), {@link LF} (head, parent frame),
 * `toHips` (A_i: parent rest frame → hips frame), `restDirHs` (rest direction in the hips
 * frame), the previous step's snapshots `bendOld`, α = 1 − e^(−kΔt) and cos/sin(θmax/2) in
 * {@link CS}.
 * Writes: `pos` (tip on the coupled, limited bend), `vel` (radial part removed; the part that
 * keeps pushing against the correction removed, at most what the correction undid),
 * `bendNew[i]` (hips frame), the direction CS[20..22], and M = A_i·parent⁻¹ in CS[16..19].
 *
 * Bend q_i = swing(r_h, d_h) compared in the hips frame (a change of frame, not an extra
 * rotation). Target from the previous step's snapshots: interior slerp(q_{i−1}, q_{i+1}, ½);
 * base halfway between the next bend and identity (the hips hold the base); the free tip its
 * one neighbour; a one-link tail is not coupled. q* = slerp(q_i, q̄_i, α) (as a normalised
 * lerp: within 0.03° at a 20° difference). Limit: if
 * θ = 2·acos|w| > θmax, q* = slerp(I, q*, θmax/θ) — the same axis at exactly θmax.
 */
import type { BitrigWorld } from '../core/world';
import { LINK_STRIDE } from '../core/components/tail';
import { CS, LF } from '../core/tailKernel';
import { qMulConj, qRotate, qRotateInv, qSwingUnit } from '../core/qmath';

const _v = new Float64Array(6);
const _q = new Float64Array(8);

/**
 * Couple and limit link `i` of chain `eid` for a step of `h` seconds (after
 * {@link tailSpringLink}).
 *
 * @example
 * tailSpringLink(world, eid, i, h);
 * bendCoupleLink(world, eid, i, h);
 */
export function bendCoupleLink(world: BitrigWorld, eid: number, i: number, h: number): void {
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
  const B = world.components.BendState;
  const pos = P.pos, vel = P.vel;
  const n = C.links[eid]!;
  const k = eid * LINK_STRIDE + i;
  const len = LF[14]!;
  const dx = CS[20]!, dy = CS[21]!, dz = CS[22]!;
  // M = A_i · parent⁻¹ maps world directions into the hips frame.
  qMulConj(CS, 16, B.toHips, k * 4, LF, 3);
  qRotate(_v, 0, CS, 16, CS, 20); // d_h
  qSwingUnit(_q, 0, B.restDirHs, k * 3, _v, 0); // q_i (hips frame)
  const alpha = CS[10]!;
  if (alpha > 0) {
    const o = B.bendOld;
    let bx: number, by: number, bz: number, bw: number;
    if (i === 0) {
      // halfway between identity and the next bend: normalize(I + q_1) (same hemisphere)
      const j = (k + 1) * 4;
      const s = o[j + 3]! < 0 ? -1 : 1;
      bx = s * o[j]!; by = s * o[j + 1]!; bz = s * o[j + 2]!; bw = s * o[j + 3]! + 1;
    } else if (i === n - 1) {
      const j = (k - 1) * 4;
      bx = o[j]!; by = o[j + 1]!; bz = o[j + 2]!; bw = o[j + 3]!;
    } else {
      // slerp(a, b, ½) = normalize(a + b) on the shorter arc
      const a = (k - 1) * 4, b = (k + 1) * 4;
      const s = o[a]! * o[b]! + o[a + 1]! * o[b + 1]! + o[a + 2]! * o[b + 2]! + o[a + 3]! * o[b + 3]! < 0 ? -1 : 1;
      bx = o[a]! + s * o[b]!; by = o[a + 1]! + s * o[b + 1]!; bz = o[a + 2]! + s * o[b + 2]!; bw = o[a + 3]! + s * o[b + 3]!;
    }
    const bl = Math.sqrt(bx * bx + by * by + bz * bz + bw * bw);
    if (bl > 1e-12) { _q[4] = bx / bl; _q[5] = by / bl; _q[6] = bz / bl; _q[7] = bw / bl; }
    else { _q[4] = 0; _q[5] = 0; _q[6] = 0; _q[7] = 1; }
    // q* = slerp(q_i, q̄_i, α), evaluated as a normalised lerp: α ≈ 0.18 and bends within tens
    // of degrees put it within 0.03° of the true slerp at a 20° difference.
    const d = _q[0]! * _q[4]! + _q[1]! * _q[5]! + _q[2]! * _q[6]! + _q[3]! * _q[7]! < 0 ? -alpha : alpha;
    const x = _q[0]! * (1 - alpha) + _q[4]! * d, y = _q[1]! * (1 - alpha) + _q[5]! * d;
    const z = _q[2]! * (1 - alpha) + _q[6]! * d, w = _q[3]! * (1 - alpha) + _q[7]! * d;
    const l = Math.sqrt(x * x + y * y + z * z + w * w);
    _q[0] = x / l; _q[1] = y / l; _q[2] = z / l; _q[3] = w / l;
  }
  // Elastic limit: |w| < cos(θmax/2) ⇔ θ > θmax; keep the axis, set the angle to θmax.
  let limited = false;
  if (_q[3]! < 0) { _q[0] = -_q[0]!; _q[1] = -_q[1]!; _q[2] = -_q[2]!; _q[3] = -_q[3]!; }
  if (_q[3]! < CS[11]!) {
    const al = Math.sqrt(_q[0]! * _q[0]! + _q[1]! * _q[1]! + _q[2]! * _q[2]!);
    if (al > 1e-12) {
      const s = CS[12]! / al;
      _q[0] = _q[0]! * s; _q[1] = _q[1]! * s; _q[2] = _q[2]! * s; _q[3] = CS[11]!;
      limited = true;
    }
  }
  B.bendNew[k * 4] = _q[0]!; B.bendNew[k * 4 + 1] = _q[1]!; B.bendNew[k * 4 + 2] = _q[2]!; B.bendNew[k * 4 + 3] = _q[3]!;
  // Back to world: d' = M⁻¹ · q* · r_h
  qRotate(_v, 3, _q, 0, B.restDirHs, k * 3);
  qRotateInv(_v, 3, CS, 16, _v, 3);
  let nx = _v[3]!, ny = _v[4]!, nz = _v[5]!;
  const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (nl > 1e-12) { nx /= nl; ny /= nl; nz /= nl; } else { nx = dx; ny = dy; nz = dz; }
  const hx = LF[0]!, hy = LF[1]!, hz = LF[2]!;
  const p = k * 3;
  pos[p] = hx + len * nx; pos[p + 1] = hy + len * ny; pos[p + 2] = hz + len * nz;
  let vx = vel[p]!, vy = vel[p + 1]!, vz = vel[p + 2]!;
  const vr = vx * nx + vy * ny + vz * nz;
  vx -= vr * nx; vy -= vr * ny; vz -= vr * nz;
  // Remove the velocity that keeps pushing back against the correction (the limit, or the
  // coupling), at most as much as the correction undid this step: left in place it builds up
  // every step and releases as a snap (limit) or a jitter (coupling against a resting
  // neighbour). Velocity is only ever taken away here, never added.
  const c = dx * nx + dy * ny + dz * nz;
  let ex = nx - c * dx, ey = ny - c * dy, ez = nz - c * dz;
  const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
  if (el > 1e-12) {
    ex /= el; ey /= el; ez /= el;
    const ve = vx * ex + vy * ey + vz * ez;
    if (ve < 0) {
      const cut = limited ? ve : Math.max(ve, -(el * len) / h);
      vx -= cut * ex; vy -= cut * ey; vz -= cut * ez;
    }
  }
  vel[p] = vx; vel[p + 1] = vy; vel[p + 2] = vz;
  CS[20] = nx; CS[21] = ny; CS[22] = nz;
}

/** Bend angle (radians) of a bend quaternion's w: θ = 2·acos(clamp(|w|, 0, 1)). */
export function bendAngleOf(w: number): number {
  const a = w < 0 ? -w : w;
  return 2 * Math.acos(a > 1 ? 1 : a);
}
