/**
 * FloorContact — keeps tail particles above a floor plane (SPEC §2), after bend coupling:
 * contact has precedence over the bend limit.
 *
 * Reads: `pos`/`vel` (world), the chain's floor options (height g0 in world units, clearance ρ
 * in metres × unitScale, contact damping γ in 1/s), `anchorStep`, the hips forward axis.
 * Writes: `pos` (tips on the floor circle), `vel` (downward part removed, damped by e^(−γΔt)),
 * `contact` (1 when touching), `headWs`, `rotWs`.
 *
 * Per link (root to tip, heads from already-corrected parents): with F = g0 + ρ and a
 * predicted tip below F, u = (F − h_y)/ℓ clamped to [−1, 1] and
 * p' = h + ℓ(√(1−u²)·t + u·e_y), t the unit horizontal part of the candidate direction
 * (fallback: the rest direction, then backward). Height exactly F (when reachable), length
 * exactly ℓ; the bone is never stretched and the body never lifted.
 */
import type { BitrigWorld } from '../core/world';
import { LINK_STRIDE } from '../core/components/tail';
import { linkAim, linkFrame, LF } from '../core/tailKernel';
import { qRotate } from '../core/qmath';

const _f = new Float64Array(3);

/**
 * Resolve floor contact for every chain for a step of `h` seconds.
 *
 * @example
 * floorContact(world, world.tailClock.fixedStep);
 */
export function floorContact(world: BitrigWorld, h: number): void {
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
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
        let u = (F - hy) / len;
        if (u > 1) u = 1; else if (u < -1) u = -1;
        let tx = dx, tz = dz;
        let tl = Math.sqrt(tx * tx + tz * tz);
        if (tl < 1e-9) { tx = LF[11]!; tz = LF[13]!; tl = Math.sqrt(tx * tx + tz * tz); }
        if (tl < 1e-9) { tx = bx; tz = bz; tl = 1; }
        tx /= tl; tz /= tl;
        const c = Math.sqrt(1 - u * u);
        dx = c * tx; dy = u; dz = c * tz;
        // Radial velocity of the new direction goes; then inelastic contact with damping.
        const vr = vx * dx + vy * dy + vz * dz;
        vx -= vr * dx; vy -= vr * dy; vz -= vr * dz;
        if (vy < 0) vy = 0;
        vx *= damp; vy *= damp; vz *= damp;
        contact[k] = 1;
      } else {
        contact[k] = 0;
      }
      pos[k * 3] = hx + len * dx; pos[k * 3 + 1] = hy + len * dy; pos[k * 3 + 2] = hz + len * dz;
      vel[k * 3] = vx; vel[k * 3 + 1] = vy; vel[k * 3 + 2] = vz;
      linkAim(world, eid, i, dx, dy, dz);
    }
  }
}
