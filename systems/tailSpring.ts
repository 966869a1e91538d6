/**
 * TailSpring — one internal step of every tail chain's particle springs (SPEC §2).
 *
 * Reads: `anchorStep` (interpolated anchor, world), rest rotations `restR`, link geometry,
 * particle `pos`/`vel` (world, engine units, units/s), chain options.
 * Writes: `pos`, `vel` (predicted tips), `headWs`, `rotWs` (links aimed at the predicted tips).
 *
 * Per link, root to tip: rest target T from the parent's current frame; spring
 * p̈ = ω²(T − p) − 2ζω ṗ + g with ω = 2πf (f from the root's frequency to tip × tipRatio),
 * semi-implicit Euler; rope projection onto the sphere of the link's length around its head,
 * dropping only the radial velocity (never correction/Δt as velocity); the forward plane
 * through the tail root (a particle may not pass in front of it, unless its own rest target
 * is there — a clip may curl the tail forward).
 */
import type { BitrigWorld } from '../core/world';
import { LINK_STRIDE } from '../core/components/tail';
import { linkAim, linkFrame, LF } from '../core/tailKernel';
import { qRotate } from '../core/qmath';

const _f = new Float64Array(4);
const TWO_PI = Math.PI * 2;

/**
 * Step every chain's springs by `h` seconds (the clock's fixed step).
 *
 * @example
 * tailSpring(world, world.tailClock.fixedStep);
 */
export function tailSpring(world: BitrigWorld, h: number): void {
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
  const pos = P.pos, vel = P.vel;
  const ents = world.queries.tails.dense;
  for (let e = 0; e < ents.length; e++) {
    const eid = ents[e]!;
    if (C.stepsLastFrame[eid] === 0) continue;
    const n = C.links[eid]!;
    const a = eid * 8;
    const us = C.unitScale[eid]!;
    const g = C.gravity[eid]! * us;
    const zeta = C.damping[eid]!;
    const f0 = C.frequency[eid]!;
    const fTip = f0 * C.tipRatio[eid]!;
    // Forward axis of the hips in world space at this step.
    qRotate(_f, 0, C.anchorStep, a + 3, C.axesLs, eid * 9);
    const fx = _f[0]!, fy = _f[1]!, fz = _f[2]!;
    let ox = 0, oy = 0, oz = 0; // tail root (head of link 0)
    for (let i = 0; i < n; i++) {
      const k = (eid * LINK_STRIDE + i) * 3;
      linkFrame(world, eid, i, C.anchorStep, a);
      const hx = LF[0]!, hy = LF[1]!, hz = LF[2]!;
      if (i === 0) { ox = hx; oy = hy; oz = hz; }
      const rx = LF[11]!, ry = LF[12]!, rz = LF[13]!;
      const len = LF[14]!;
      if (!(len > 0)) {
        pos[k] = hx; pos[k + 1] = hy; pos[k + 2] = hz;
        vel[k] = 0; vel[k + 1] = 0; vel[k + 2] = 0;
        linkAim(world, eid, i, rx, ry, rz);
        continue;
      }
      const tx = hx + len * rx, ty = hy + len * ry, tz = hz + len * rz;
      const fi = n > 1 ? f0 + (fTip - f0) * (i / (n - 1)) : f0;
      const w = TWO_PI * fi;
      const w2 = w * w, c = 2 * zeta * w;
      let px = pos[k]!, py = pos[k + 1]!, pz = pos[k + 2]!;
      let vx = vel[k]!, vy = vel[k + 1]!, vz = vel[k + 2]!;
      vx += (w2 * (tx - px) - c * vx) * h;
      vy += (w2 * (ty - py) - c * vy - g) * h;
      vz += (w2 * (tz - pz) - c * vz) * h;
      px += vx * h; py += vy * h; pz += vz * h;
      // Rope: back onto the sphere of radius len around the head; drop radial velocity only.
      let dx = px - hx, dy = py - hy, dz = pz - hz;
      let dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (dl > 1e-12 * len && Number.isFinite(dl)) { dx /= dl; dy /= dl; dz /= dl; } else { dx = rx; dy = ry; dz = rz; }
      // Forward plane through the tail root: (p − O)·F ≤ max(0, (T − O)·F).
      const allow = Math.max(0, (tx - ox) * fx + (ty - oy) * fy + (tz - oz) * fz);
      px = hx + len * dx; py = hy + len * dy; pz = hz + len * dz;
      const ex = (px - ox) * fx + (py - oy) * fy + (pz - oz) * fz - allow;
      if (ex > 0) {
        px -= ex * fx; py -= ex * fy; pz -= ex * fz;
        dx = px - hx; dy = py - hy; dz = pz - hz;
        dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
        if (dl > 1e-12 * len) { dx /= dl; dy /= dl; dz /= dl; } else { dx = rx; dy = ry; dz = rz; }
        px = hx + len * dx; py = hy + len * dy; pz = hz + len * dz;
        const vf = vx * fx + vy * fy + vz * fz;
        if (vf > 0) { vx -= vf * fx; vy -= vf * fy; vz -= vf * fz; }
      }
      const vr = vx * dx + vy * dy + vz * dz;
      vx -= vr * dx; vy -= vr * dy; vz -= vr * dz;
      pos[k] = px; pos[k + 1] = py; pos[k + 2] = pz;
      vel[k] = vx; vel[k + 1] = vy; vel[k + 2] = vz;
      linkAim(world, eid, i, dx, dy, dz);
    }
  }
}
