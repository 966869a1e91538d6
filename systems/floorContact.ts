/**
 * FloorContact — stage 7 of the pipeline, per link of a tail step (floor contact),
 * after bend coupling: contact has precedence over the bend limit. The below-the-floor test is
 * inline in {@link tailStep}; this file resolves a contact.
 *
 * Reads: the link register {@link LK} (direction D, world unit; head; length; rest direction;
 * floor F = g0 + ρ, world units; damping factor e^(−γΔt); backward axis; parent rotation
 * matrix M), `toHipsM` (A_i), `restDirHs`.
 * Writes: `pos` (tip on the floor circle), `vel` (radial part and downward part removed, then
 * damped — inelastic, not Coulomb friction), `contact[i]` = 1, `bendNew[i]` for a link in contact
 * (the final bend, so neighbours never couple toward a stale pre-contact bend — that lifts a
 * resting tail off the floor every step: a jitter), LK[D] and LK[DP].
 *
 * With the predicted tip below F: u = (F − h_y)/ℓ clamped to [−1, 1] and
 * p' = h + ℓ(√(1−u²)·t + u·e_y), t the unit horizontal part of the candidate direction
 * (fallback: the rest direction, then backward). Height exactly F when reachable, length
 * exactly ℓ; the bone is never stretched and the body never lifted.
 */
import type { BitrigWorld } from '../core/world';
import { K, LK, floorDirection } from '../core/tailKernel';
import { qSwingUnit } from '../core/qmath';

const _d = new Float64Array(6);

/**
 * Put link `k`'s (per-link index: row × LINK_STRIDE + i) tip on the floor circle. Called by
 * {@link tailStep} when the predicted tip is below `F` with the link register {@link LK}
 * filled (parent matrix, head, rest direction, direction, length, floor F, damping, backward
 * axis);
 * writes `pos`, `vel`, `contact`, `bendNew` and LK[D], LK[DP].
 *
 * @example
 * if (floorOn && hy + len * dy < F) floorContactResolve(world, k); // LK filled
 */
export function floorContactResolve(world: BitrigWorld, k: number): void {
  // (numbers come through LK, not as arguments: V8 boxes doubles passed to a call it does not
  // inline, which would allocate in the frame)
  const hy = LK[K.H + 1]!, len = LK[K.LEN]!, F = LK[K.FLOOR]!;
  const P = world.components.TailParticle;
  const B = world.components.BendState;
  floorDirection(_d, 0, hy, len, F, LK[K.D]!, LK[K.D + 2]!, LK[K.R]!, LK[K.R + 2]!, LK[K.BACK]!, LK[K.BACK + 1]!);
  const dx = _d[0]!, dy = _d[1]!, dz = _d[2]!;
  const p = k * 3;
  const pos = P.pos, vel = P.vel;
  pos[p] = LK[K.H]! + len * dx; pos[p + 1] = hy + len * dy; pos[p + 2] = LK[K.H + 2]! + len * dz;
  let vx = vel[p]!, vy = vel[p + 1]!, vz = vel[p + 2]!;
  const vr = vx * dx + vy * dy + vz * dz;
  vx -= vr * dx; vy -= vr * dy; vz -= vr * dz;
  if (vy < 0) vy = 0;
  const damp = LK[K.DAMP]!;
  vel[p] = vx * damp; vel[p + 1] = vy * damp; vel[p + 2] = vz * damp;
  P.contact[k] = 1;
  LK[K.D] = dx; LK[K.D + 1] = dy; LK[K.D + 2] = dz;
  // The direction in the parent frame (M⁻¹ d) and the final bend in the hips frame.
  const M = LK;
  const ux = M[K.M]! * dx + M[K.M + 3]! * dy + M[K.M + 6]! * dz;
  const uy = M[K.M + 1]! * dx + M[K.M + 4]! * dy + M[K.M + 7]! * dz;
  const uz = M[K.M + 2]! * dx + M[K.M + 5]! * dy + M[K.M + 8]! * dz;
  LK[K.DP] = ux; LK[K.DP + 1] = uy; LK[K.DP + 2] = uz;
  const A = B.toHipsM, m = k * 9;
  _d[3] = A[m]! * ux + A[m + 1]! * uy + A[m + 2]! * uz;
  _d[4] = A[m + 3]! * ux + A[m + 4]! * uy + A[m + 5]! * uz;
  _d[5] = A[m + 6]! * ux + A[m + 7]! * uy + A[m + 8]! * uz;
  qSwingUnit(B.bendNew, k * 4, B.restDirHs, p, _d, 3);
}
