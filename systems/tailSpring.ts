/**
 * TailSpring — stage 1 of a tail step, per link (SPEC §2 spring, rope, forward plane).
 *
 * Reads: {@link LF} (head h, parent frame, rest direction r, length ℓ — world, engine units),
 * {@link CS} (forward axis, gravity in units/s²), particle `pos`/`vel` (world, units/s),
 * chain frequency (Hz), tip ratio, damping ratio.
 * Writes: `pos`, `vel` of the link's tip particle; the unit candidate direction in CS[20..22];
 * the tail root O in CS[3..5] (link 0).
 *
 * Rest target T = h + ℓ r from the parent's current frame; p̈ = ω²(T − p) − 2ζω ṗ + g with
 * ω = 2πf, f running from the root's frequency to tipRatio × it at the tip; semi-implicit
 * Euler. Rope: p back onto the sphere of radius ℓ around h, dropping only the radial
 * velocity — never feeding the correction back as velocity (correction/Δt explodes under fast
 * hips). Forward plane through the tail root: (p − O)·F ≤ max(0, (T − O)·F), so the tail never
 * swings between the legs, yet a clip may still curl it forward on purpose.
 */
import type { BitrigWorld } from '../core/world';
import { LINK_STRIDE } from '../core/components/tail';
import { CS, LF } from '../core/tailKernel';

const TWO_PI = Math.PI * 2;

/**
 * Integrate link `i` of chain `eid` over `h` seconds. Needs {@link linkFrame} and
 * {@link chainBegin} for this link and step.
 *
 * @example
 * chainBegin(world, eid, h, C.anchorStep, eid * 8);
 * linkFrame(world, eid, 0, C.anchorStep, eid * 8);
 * tailSpringLink(world, eid, 0, h);
 */
export function tailSpringLink(world: BitrigWorld, eid: number, i: number, h: number): void {
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
  const pos = P.pos, vel = P.vel;
  const k = (eid * LINK_STRIDE + i) * 3;
  const n = C.links[eid]!;
  const hx = LF[0]!, hy = LF[1]!, hz = LF[2]!;
  if (i === 0) { CS[3] = hx; CS[4] = hy; CS[5] = hz; }
  const rx = LF[11]!, ry = LF[12]!, rz = LF[13]!;
  const len = LF[14]!;
  const f0 = C.frequency[eid]!;
  const fi = n > 1 ? f0 * (1 + (C.tipRatio[eid]! - 1) * (i / (n - 1))) : f0;
  const w = TWO_PI * fi;
  const w2 = w * w, c = 2 * C.damping[eid]! * w;
  const tx = hx + len * rx, ty = hy + len * ry, tz = hz + len * rz;
  let px = pos[k]!, py = pos[k + 1]!, pz = pos[k + 2]!;
  let vx = vel[k]!, vy = vel[k + 1]!, vz = vel[k + 2]!;
  vx += (w2 * (tx - px) - c * vx) * h;
  vy += (w2 * (ty - py) - c * vy - CS[13]!) * h;
  vz += (w2 * (tz - pz) - c * vz) * h;
  px += vx * h; py += vy * h; pz += vz * h;
  // Rope: back onto the sphere of radius len around the head.
  let dx = px - hx, dy = py - hy, dz = pz - hz;
  let dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (dl > 1e-12 * len && dl < Infinity) { dx /= dl; dy /= dl; dz /= dl; } else { dx = rx; dy = ry; dz = rz; }
  // Forward plane through the tail root.
  const fx = CS[0]!, fy = CS[1]!, fz = CS[2]!;
  const ox = CS[3]!, oy = CS[4]!, oz = CS[5]!;
  const allow = Math.max(0, (tx - ox) * fx + (ty - oy) * fy + (tz - oz) * fz);
  const ex = (hx + len * dx - ox) * fx + (hy + len * dy - oy) * fy + (hz + len * dz - oz) * fz - allow;
  if (ex > 0) {
    px = hx + len * dx - ex * fx; py = hy + len * dy - ex * fy; pz = hz + len * dz - ex * fz;
    dx = px - hx; dy = py - hy; dz = pz - hz;
    dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (dl > 1e-12 * len) { dx /= dl; dy /= dl; dz /= dl; } else { dx = rx; dy = ry; dz = rz; }
    const vf = vx * fx + vy * fy + vz * fz;
    if (vf > 0) { vx -= vf * fx; vy -= vf * fy; vz -= vf * fz; }
  }
  const vr = vx * dx + vy * dy + vz * dz;
  vx -= vr * dx; vy -= vr * dy; vz -= vr * dz;
  pos[k] = hx + len * dx; pos[k + 1] = hy + len * dy; pos[k + 2] = hz + len * dz;
  vel[k] = vx; vel[k + 1] = vy; vel[k + 2] = vz;
  CS[20] = dx; CS[21] = dy; CS[22] = dz;
}
