/**
 * FloorContact — keeps tail particles above a floor plane (SPEC §2), after bend coupling:
 * contact has precedence over the bend limit.
 *
 * Reads: `pos`/`vel` (world), the chain's floor options (height g0 in world units, clearance ρ
 * in metres × unitScale, contact damping γ in 1/s), `anchorStep`, the hips forward axis.
 * Writes: `pos` (tips on the floor circle), `vel` (downward part removed, damped by e^(−γΔt)),
 * `contact` (1 when touching), `headWs`, `rotWs`, and the step's bend snapshots `bendOld`
 * (the final bends, contacts included: a neighbour coupling toward a stale, pre-contact bend
 * lifts a resting tail off the floor every step — a jitter).
 *
 * Per link (root to tip, heads from already-corrected parents): with F = g0 + ρ and a
 * predicted tip below F, u = (F − h_y)/ℓ clamped to [−1, 1] and
 * p' = h + ℓ(√(1−u²)·t + u·e_y), t the unit horizontal part of the candidate direction
 * (fallback: the rest direction, then backward). Height exactly F (when reachable), length
 * exactly ℓ; the bone is never stretched and the body never lifted.
 */
import type { BitrigWorld } from '../core/world';
import { LINK_STRIDE } from '../core/components/tail';
import { floorDirection, linkAim, linkFrame, LF } from '../core/tailKernel';
import { qMul, qMulConj, qRotate, qRotateInv, qSwing } from '../core/qmath';

const _f = new Float64Array(3);
const _d = new Float64Array(3);
const _e = new Float64Array(3);
const _q = new Float64Array(4);

/**
 * Resolve floor contact for every chain for a step of `h` seconds.
 *
 * @example
 * floorContact(world, world.tailClock.fixedStep);
 */
export function floorContact(world: BitrigWorld, h: number): void {
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
  const B = world.components.BendState;
  const pos = P.pos, vel = P.vel, contact = P.contact;
  const ents = world.queries.tails.dense;
  for (let e = 0; e < ents.length; e++) {
    const eid = ents[e]!;
    if (C.stepsLastFrame[eid] === 0) continue;
    const n = C.links[eid]!;
    const a = eid * 8;
    const on = C.floorEnabled[eid] === 1;
    const F = C.floorY[eid]! + C.floorClearance[eid]! * C.unitScale[eid]!;
    const damp = Math.exp(-C.contactDamping[eid]! * h);
    qRotate(_f, 0, C.anchorStep, a + 3, C.axesLs, eid * 9);
    let bx = -_f[0]!, bz = -_f[2]!; // backward, horizontal
    const bl = Math.sqrt(bx * bx + bz * bz);
    if (bl > 1e-9) { bx /= bl; bz /= bl; } else { bx = 0; bz = -1; }
    let moved = false; // a contact upstream moved this link's head
    for (let i = 0; i < n; i++) {
      const k = eid * LINK_STRIDE + i;
      linkFrame(world, eid, i, C.anchorStep, a);
      const hx = LF[0]!, hy = LF[1]!, hz = LF[2]!;
      const len = LF[14]!;
      if (!(len > 0)) {
        pos[k * 3] = hx; pos[k * 3 + 1] = hy; pos[k * 3 + 2] = hz;
        contact[k] = 0;
        linkAim(world, eid, i, LF[11]!, LF[12]!, LF[13]!);
        continue;
      }
      let dx = pos[k * 3]! - hx, dy = pos[k * 3 + 1]! - hy, dz = pos[k * 3 + 2]! - hz;
      const dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (dl > 1e-12 * len && Number.isFinite(dl)) { dx /= dl; dy /= dl; dz /= dl; } else { dx = LF[11]!; dy = LF[12]!; dz = LF[13]!; }
      let vx = vel[k * 3]!, vy = vel[k * 3 + 1]!, vz = vel[k * 3 + 2]!;
      if (on && hy + len * dy < F) {
        floorDirection(_d, 0, hy, len, F, dx, dz, LF[11]!, LF[13]!, bx, bz);
        dx = _d[0]!; dy = _d[1]!; dz = _d[2]!;
        // Radial velocity of the new direction goes; then inelastic contact with damping.
        const vr = vx * dx + vy * dy + vz * dz;
        vx -= vr * dx; vy -= vr * dy; vz -= vr * dz;
        if (vy < 0) vy = 0;
        vx *= damp; vy *= damp; vz *= damp;
        contact[k] = 1;
        moved = true;
      } else {
        contact[k] = 0;
      }
      pos[k * 3] = hx + len * dx; pos[k * 3 + 1] = hy + len * dy; pos[k * 3 + 2] = hz + len * dz;
      vel[k * 3] = vx; vel[k * 3 + 1] = vy; vel[k * 3 + 2] = vz;
      linkAim(world, eid, i, dx, dy, dz);
      if (moved) {
        // Final bend of this link in the hips frame: A · swing(r_par, d̃_par) · A⁻¹.
        qRotate(_d, 0, B.restR, k * 4, B.tipDirLs, k * 3);
        _e[0] = dx; _e[1] = dy; _e[2] = dz;
        qRotateInv(_e, 0, LF, 3, _e, 0);
        qSwing(_q, 0, _d, 0, _e, 0);
        qMul(_q, 0, B.toHips, k * 4, _q, 0);
        qMulConj(B.bendNew, k * 4, _q, 0, B.toHips, k * 4);
      }
    }
    // Snapshot for the next step (never half-updated neighbours within a step).
    const L0 = eid * LINK_STRIDE * 4;
    for (let j = L0; j < L0 + n * 4; j++) B.bendOld[j] = B.bendNew[j]!;
  }
}
