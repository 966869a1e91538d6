/**
 * FloorContact — stage 3 of a tail step, per link (SPEC §2 floor contact), after bend
 * coupling: contact has precedence over the bend limit.
 *
 * Reads: the direction CS[20..22] (world unit), {@link LF} (head, length), the floor F = g0 + ρ
 * (world units), damping factor e^(−γΔt), backward axis, M = A_i·parent⁻¹ (CS[16..19]),
 * `restDirHs`.
 * Writes: `pos` (tip on the floor circle), `vel` (radial part and downward part removed, then
 * damped — inelastic, not Coulomb friction), `contact[i]`, `bendNew[i]` for a link in contact
 * (the final bend, so neighbours never couple toward a stale pre-contact bend — that lifts a
 * resting tail off the floor every step: a jitter), the direction CS[20..22].
 *
 * With the predicted tip below F: u = (F − h_y)/ℓ clamped to [−1, 1] and
 * p' = h + ℓ(√(1−u²)·t + u·e_y), t the unit horizontal part of the candidate direction
 * (fallback: the rest direction, then backward). Height exactly F when reachable, length
 * exactly ℓ; the bone is never stretched and the body never lifted.
 */
import type { BitrigWorld } from '../core/world';
import { LINK_STRIDE } from '../core/components/tail';
import { CS, LF, floorDirection } from '../core/tailKernel';
import { qRotate, qSwingUnit } from '../core/qmath';

const _d = new Float64Array(3);

/**
 * Resolve floor contact for link `i` of chain `eid` for a step of `h` seconds (after
 * {@link bendCoupleLink}).
 *
 * @example
 * bendCoupleLink(world, eid, i, h);
 * floorContactLink(world, eid, i, h);
 */
export function floorContactLink(world: BitrigWorld, eid: number, i: number, h: number): void {
  const P = world.components.TailParticle;
  const k = eid * LINK_STRIDE + i;
  const hy = LF[1]!;
  const len = LF[14]!;
  const F = CS[8]!;
  if (CS[14] !== 1 || !(hy + len * CS[21]! < F)) {
    P.contact[k] = 0;
    return;
  }
  const B = world.components.BendState;
  floorDirection(_d, 0, hy, len, F, CS[20]!, CS[22]!, LF[11]!, LF[13]!, CS[6]!, CS[7]!);
  const dx = _d[0]!, dy = _d[1]!, dz = _d[2]!;
  const p = k * 3;
  const pos = P.pos, vel = P.vel;
  pos[p] = LF[0]! + len * dx; pos[p + 1] = hy + len * dy; pos[p + 2] = LF[2]! + len * dz;
  let vx = vel[p]!, vy = vel[p + 1]!, vz = vel[p + 2]!;
  const vr = vx * dx + vy * dy + vz * dz;
  vx -= vr * dx; vy -= vr * dy; vz -= vr * dz;
  if (vy < 0) vy = 0;
  const damp = CS[9]!;
  vel[p] = vx * damp; vel[p + 1] = vy * damp; vel[p + 2] = vz * damp;
  P.contact[k] = 1;
  CS[20] = dx; CS[21] = dy; CS[22] = dz;
  // Final bend of this link in the hips frame.
  qRotate(_d, 0, CS, 16, CS, 20);
  qSwingUnit(B.bendNew, k * 4, B.restDirHs, k * 3, _d, 0);
}
