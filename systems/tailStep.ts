/**
 * TailStep — one internal step of every tail chain. Per link, from the hips
 * outward, the pipeline's stages 5–7 run in order, then the link is aimed at its final tip so
 * the next link's head and frame are final:
 *
 *   5. TailSpring   rest target T = h + ℓ r from the parent's current frame;
 *                   p̈ = ω²(T − p) − 2ζω ṗ + g, ω = 2πf (f from the root's frequency to
 *                   tipRatio × it at the tip), semi-implicit Euler. Rope: p back onto the
 *                   sphere of radius ℓ around h, dropping only the radial velocity — never
 *                   feeding the correction back as velocity (correction/Δt explodes under fast
 *                   hips). Forward plane through the tail root: (p − O)·F ≤ max(0, (T − O)·F),
 *                   so the tail never swings between the legs, yet a clip may still curl it
 *                   forward on purpose.
 *   6. BendCouple   bend q_i = swing(r_h, d_h) compared in the hips frame, d_h = A_i ·
 *                   parent⁻¹ · d (a change of frame, not an extra rotation). Target from the
 *                   previous step's snapshots: interior slerp(q_{i−1}, q_{i+1}, ½); base halfway
 *                   between the next bend and identity (the hips hold the base); the free tip
 *                   its one neighbour; a one-link tail is not coupled. q* = slerp(q_i, q̄_i, α),
 *                   α = 1 − e^(−kΔt), as a normalised lerp (within 0.03° at a 20° difference).
 *                   Elastic limit: if θ = 2·acos|w| > θmax, q* = slerp(I, q*, θmax/θ) (same
 *                   axis, angle exactly θmax). The velocity that keeps pushing against the
 *                   correction is removed (all of it at the limit; at most what the correction
 *                   undid for coupling) — velocity is only ever taken away here.
 *   7. FloorContact contact has precedence over the limit: a tip predicted below F = g0 + ρ
 *                   goes onto the floor circle ({@link floorContactResolve}).
 *
 * Reads: the chain's anchor at this step (`anchorStep`: world position, rotation, uniform
 * scale), its options, the per-link rest data (`headLs`, `restDirLs`, `lenRel`, `scaleRel`,
 * `toHipsM` A_i, `restDirHs`, `restR`), the particles and the previous step's bend snapshots.
 * Writes: the particles (`pos`, `vel`, `contact`; world, units and units/s), `bendNew` →
 * `bendOld` (snapshots, taken once the whole chain is done: a step never reads a half-updated
 * neighbour; `bendNew` is scratch: the WebAssembly step keeps it in its mirror and writes
 * only `bendOld` back) and the links' local rotations `localCur` (parent frame; the previous
 * value goes to `localPrev` for display interpolation). World space, engine units, seconds.
 *
 * Speed: this is the hot loop (60,000 links per frame in `npm run bench`). The three stages
 * are written out in one loop body on local variables, with the parent frame carried from
 * link to link as a quaternion and a 3×3 matrix: splitting them into functions that hand
 * state over through scratch arrays made the step 1.5–1.8× slower (V8 does not inline
 * kernels this size). Only the rare floor-contact resolution is a separate function.
 */
import type { BitrigWorld } from '../core/world';
import { CLOCK, LINK_STRIDE } from '../core/components/tail';
import { LK, K, chainStepConstants, refreshStepCache } from '../core/tailKernel';
import { floorContactResolve } from './floorContact';
import type { TailAccel } from '../core/kernelTypes';

/**
 * Step every chain that has a step pending this frame by `step` seconds (default: the world's
 * fixed step, read from `world.clock` by the step itself rather than passed, so the frame
 * allocates no boxed number).
 *
 * @example
 * for (let s = 0; s < steps; s++) { tailClockStep(world, s); tailStep(world); }
 */
export function tailStep(world: BitrigWorld, step?: number): void {
  // No number is read here: this dispatcher runs once a frame, so V8 may keep it unoptimised
  // for thousands of frames, and unoptimised code boxes every double it reads from a typed
  // array (16 bytes a frame). The step functions below loop over the chains and get optimised.
  const accel = world.tailAccel;
  if (accel !== null) tailStepWasm(world, accel, step);
  else tailStepJs(world, step);
}

/**
 * The JavaScript step (the reference; runs where WebAssembly SIMD is unavailable). A function
 * of its own so that the small dispatcher above gets optimised on its own: left in one large
 * function, V8 kept it interpreted (only its first lines ran) and boxed the step length read
 * from the clock, one allocation per frame.
 */
function tailStepJs(world: BitrigWorld, step: number | undefined): void {
  // h into the link register: the world's fixed step, or `step` when given (two statements:
  // mixing the optional argument with the clock's number would box it). Read here, in a
  // function that loops over the chains and gets optimised, not in a helper run once a frame.
  LK[K.STEP] = world.clock[CLOCK.FIXED_STEP]!;
  if (step !== undefined) LK[K.STEP] = step;
  const h = LK[K.STEP]!;
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
  const B = world.components.BendState;
  const ents = world.queries.tails.dense;
  const AS = C.anchorStep;
  const headLs = B.headLs, restDirLs = B.restDirLs, lenRel = B.lenRel, scaleRel = B.scaleRel;
  const restR = B.restR, localCur = B.localCur, localPrev = B.localPrev;
  const toHipsM = B.toHipsM, restDirHs = B.restDirHs, bendOld = B.bendOld, bendNew = B.bendNew;
  const pos = P.pos, vel = P.vel, contact = P.contact;
  for (let e = 0; e < ents.length; e++) {
    const eid = ents[e]!;
    if (C.stepsLastFrame[eid] === 0) continue;
    const n = C.links[eid]!;
    const base = C.row[eid]! * LINK_STRIDE; // this chain's per-link row
    const a = eid * 8;
    let qx = AS[a + 3]!, qy = AS[a + 4]!, qz = AS[a + 5]!, qw = AS[a + 6]!;
    let px = AS[a]!, py = AS[a + 1]!, pz = AS[a + 2]!;
    const s = AS[a + 7]!;
    let ps = s;
    chainStepConstants(world, eid); // reads LK[STEP]
    const f0 = C.frequency[eid]!, df = n > 1 ? (f0 * (C.tipRatio[eid]! - 1)) / (n - 1) : 0;
    const zeta2 = 2 * C.damping[eid]!;
    const fx = LK[K.F]!, fy = LK[K.F + 1]!, fz = LK[K.F + 2]!;
    const grav = LK[K.GRAV]!, alpha = LK[K.ALPHA]!, cosH = LK[K.COSH]!, sinH = LK[K.SINH]!;
    const floorOn = LK[K.FLOORON] === 1, floorF = LK[K.FLOOR]!;
    let ox = 0, oy = 0, oz = 0;
    for (let i = 0; i < n; i++) {
      const k = base + i;
      const k3 = k * 3, k4 = k * 4;
      const x2 = qx + qx, y2 = qy + qy, z2 = qz + qz;
      const xx = qx * x2, xy = qx * y2, xz = qx * z2, yy = qy * y2, yz = qy * z2, zz = qz * z2;
      const wx = qw * x2, wy = qw * y2, wz = qw * z2;
      const m00 = 1 - (yy + zz), m01 = xy - wz, m02 = xz + wy;
      const m10 = xy + wz, m11 = 1 - (xx + zz), m12 = yz - wx;
      const m20 = xz - wy, m21 = yz + wx, m22 = 1 - (xx + yy);
      const lx = headLs[k3]!, ly = headLs[k3 + 1]!, lz = headLs[k3 + 2]!;
      const hx = px + ps * (m00 * lx + m01 * ly + m02 * lz);
      const hy = py + ps * (m10 * lx + m11 * ly + m12 * lz);
      const hz = pz + ps * (m20 * lx + m21 * ly + m22 * lz);
      const ux = restDirLs[k3]!, uy = restDirLs[k3 + 1]!, uz = restDirLs[k3 + 2]!;
      const rx = m00 * ux + m01 * uy + m02 * uz;
      const ry = m10 * ux + m11 * uy + m12 * uz;
      const rz = m20 * ux + m21 * uy + m22 * uz;
      const len = s * lenRel[k]!;
      if (i === 0) { ox = hx; oy = hy; oz = hz; }
      let dpx: number, dpy: number, dpz: number;
      if (len > 0) {
        // ---- 5. TailSpring
        const w = 6.283185307179586 * (f0 + df * i);
        const w2 = w * w, c = zeta2 * w;
        const tx = hx + len * rx, ty = hy + len * ry, tz = hz + len * rz;
        let vx = vel[k3]!, vy = vel[k3 + 1]!, vz = vel[k3 + 2]!;
        let cx = pos[k3]!, cy = pos[k3 + 1]!, cz = pos[k3 + 2]!;
        vx += (w2 * (tx - cx) - c * vx) * h;
        vy += (w2 * (ty - cy) - c * vy - grav) * h;
        vz += (w2 * (tz - cz) - c * vz) * h;
        cx += vx * h; cy += vy * h; cz += vz * h;
        let dx = cx - hx, dy = cy - hy, dz = cz - hz;
        let dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
        if (dl > 1e-12 * len && dl < Infinity) { dl = 1 / dl; dx *= dl; dy *= dl; dz *= dl; } else { dx = rx; dy = ry; dz = rz; }
        const tf = (tx - ox) * fx + (ty - oy) * fy + (tz - oz) * fz;
        const ex = (hx + len * dx - ox) * fx + (hy + len * dy - oy) * fy + (hz + len * dz - oz) * fz - (tf > 0 ? tf : 0);
        if (ex > 0) {
          cx = hx + len * dx - ex * fx; cy = hy + len * dy - ex * fy; cz = hz + len * dz - ex * fz;
          dx = cx - hx; dy = cy - hy; dz = cz - hz;
          dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
          if (dl > 1e-12 * len) { dx /= dl; dy /= dl; dz /= dl; } else { dx = rx; dy = ry; dz = rz; }
          const vf = vx * fx + vy * fy + vz * fz;
          if (vf > 0) { vx -= vf * fx; vy -= vf * fy; vz -= vf * fz; }
        }
        let vr = vx * dx + vy * dy + vz * dz;
        vx -= vr * dx; vy -= vr * dy; vz -= vr * dz;
        // ---- 6. BendCouple
        dpx = m00 * dx + m10 * dy + m20 * dz;
        dpy = m01 * dx + m11 * dy + m21 * dz;
        dpz = m02 * dx + m12 * dy + m22 * dz;
        const k9 = k * 9;
        const a00 = toHipsM[k9]!, a01 = toHipsM[k9 + 1]!, a02 = toHipsM[k9 + 2]!;
        const a10 = toHipsM[k9 + 3]!, a11 = toHipsM[k9 + 4]!, a12 = toHipsM[k9 + 5]!;
        const a20 = toHipsM[k9 + 6]!, a21 = toHipsM[k9 + 7]!, a22 = toHipsM[k9 + 8]!;
        const gx = a00 * dpx + a01 * dpy + a02 * dpz;
        const gy = a10 * dpx + a11 * dpy + a12 * dpz;
        const gz = a20 * dpx + a21 * dpy + a22 * dpz;
        const bx0 = restDirHs[k3]!, by0 = restDirHs[k3 + 1]!, bz0 = restDirHs[k3 + 2]!;
        let sx: number, sy: number, sz: number, sw: number;
        const dd = bx0 * gx + by0 * gy + bz0 * gz;
        if (dd < -0.999999999) {
          let qa = 0, qb = -bz0, qc = by0;
          if (qb * qb + qc * qc < 1e-12) { qa = bz0; qb = 0; qc = -bx0; }
          const pl = Math.sqrt(qa * qa + qb * qb + qc * qc);
          sx = qa / pl; sy = qb / pl; sz = qc / pl; sw = 0;
        } else {
          sx = by0 * gz - bz0 * gy; sy = bz0 * gx - bx0 * gz; sz = bx0 * gy - by0 * gx; sw = 1 + dd;
          const ql = 1 / Math.sqrt(sw + sw); // |(r×d, 1 + r·d)|² = 2(1 + r·d) for unit r, d
          sx *= ql; sy *= ql; sz *= ql; sw *= ql;
        }
        if (alpha > 0) {
          let bx: number, by: number, bz: number, bw: number;
          if (i === 0) {
            const j = k4 + 4;
            const sg = bendOld[j + 3]! < 0 ? -1 : 1;
            bx = sg * bendOld[j]!; by = sg * bendOld[j + 1]!; bz = sg * bendOld[j + 2]!; bw = sg * bendOld[j + 3]! + 1;
          } else if (i === n - 1) {
            const j = k4 - 4;
            bx = bendOld[j]!; by = bendOld[j + 1]!; bz = bendOld[j + 2]!; bw = bendOld[j + 3]!;
          } else {
            const ja = k4 - 4, jb = k4 + 4;
            const a0 = bendOld[ja]!, a1 = bendOld[ja + 1]!, a2 = bendOld[ja + 2]!, a3 = bendOld[ja + 3]!;
            const b0 = bendOld[jb]!, b1 = bendOld[jb + 1]!, b2 = bendOld[jb + 2]!, b3 = bendOld[jb + 3]!;
            const sg = a0 * b0 + a1 * b1 + a2 * b2 + a3 * b3 < 0 ? -1 : 1;
            bx = a0 + sg * b0; by = a1 + sg * b1; bz = a2 + sg * b2; bw = a3 + sg * b3;
          }
          const bl = Math.sqrt(bx * bx + by * by + bz * bz + bw * bw);
          if (bl > 1e-12) { const il = 1 / bl; bx *= il; by *= il; bz *= il; bw *= il; } else { bx = 0; by = 0; bz = 0; bw = 1; }
          const d = sx * bx + sy * by + sz * bz + sw * bw < 0 ? -alpha : alpha;
          const u = 1 - alpha;
          const x = sx * u + bx * d, y = sy * u + by * d, z = sz * u + bz * d, ww = sw * u + bw * d;
          const l = 1 / Math.sqrt(x * x + y * y + z * z + ww * ww);
          sx = x * l; sy = y * l; sz = z * l; sw = ww * l;
        }
        let limited = false;
        if (sw < 0) { sx = -sx; sy = -sy; sz = -sz; sw = -sw; }
        if (sw < cosH) {
          const al = Math.sqrt(sx * sx + sy * sy + sz * sz);
          if (al > 1e-12) { const f = sinH / al; sx *= f; sy *= f; sz *= f; sw = cosH; limited = true; }
        }
        bendNew[k4] = sx; bendNew[k4 + 1] = sy; bendNew[k4 + 2] = sz; bendNew[k4 + 3] = sw;
        if (limited || alpha > 0) {
          const t0 = 2 * (sy * bz0 - sz * by0), t1 = 2 * (sz * bx0 - sx * bz0), t2 = 2 * (sx * by0 - sy * bx0);
          const ex_ = bx0 + sw * t0 + (sy * t2 - sz * t1);
          const ey_ = by0 + sw * t1 + (sz * t0 - sx * t2);
          const ez_ = bz0 + sw * t2 + (sx * t1 - sy * t0);
          const qpx = a00 * ex_ + a10 * ey_ + a20 * ez_;
          const qpy = a01 * ex_ + a11 * ey_ + a21 * ez_;
          const qpz = a02 * ex_ + a12 * ey_ + a22 * ez_;
          const nx = m00 * qpx + m01 * qpy + m02 * qpz;
          const ny = m10 * qpx + m11 * qpy + m12 * qpz;
          const nz = m20 * qpx + m21 * qpy + m22 * qpz;
          vr = vx * nx + vy * ny + vz * nz;
          vx -= vr * nx; vy -= vr * ny; vz -= vr * nz;
          const cc = dx * nx + dy * ny + dz * nz;
          let qx2 = nx - cc * dx, qy2 = ny - cc * dy, qz2 = nz - cc * dz;
          const ve0 = vx * qx2 + vy * qy2 + vz * qz2;
          if (ve0 < 0) {
            const el = Math.sqrt(qx2 * qx2 + qy2 * qy2 + qz2 * qz2);
            if (el > 1e-12) {
              const il = 1 / el; qx2 *= il; qy2 *= il; qz2 *= il;
              const ve = ve0 * il;
              const lim = -(el * len) / h;
              const cut = limited ? ve : (ve > lim ? ve : lim);
              vx -= cut * qx2; vy -= cut * qy2; vz -= cut * qz2;
            }
          }
          dx = nx; dy = ny; dz = nz; dpx = qpx; dpy = qpy; dpz = qpz;
        }
        pos[k3] = hx + len * dx; pos[k3 + 1] = hy + len * dy; pos[k3 + 2] = hz + len * dz;
        vel[k3] = vx; vel[k3 + 1] = vy; vel[k3 + 2] = vz;
        // ---- 7. FloorContact
        if (floorOn && hy + len * dy < floorF) {
          LK[K.M] = m00; LK[K.M + 1] = m01; LK[K.M + 2] = m02; LK[K.M + 3] = m10; LK[K.M + 4] = m11; LK[K.M + 5] = m12;
          LK[K.M + 6] = m20; LK[K.M + 7] = m21; LK[K.M + 8] = m22;
          LK[K.H] = hx; LK[K.H + 1] = hy; LK[K.H + 2] = hz; LK[K.R] = rx; LK[K.R + 1] = ry; LK[K.R + 2] = rz;
          LK[K.D] = dx; LK[K.D + 1] = dy; LK[K.D + 2] = dz; LK[K.LEN] = len;
          floorContactResolve(world, k);
          dpx = LK[K.DP]!; dpy = LK[K.DP + 1]!; dpz = LK[K.DP + 2]!;
        } else contact[k] = 0;
      } else {
        pos[k3] = hx; pos[k3 + 1] = hy; pos[k3 + 2] = hz;
        vel[k3] = 0; vel[k3 + 1] = 0; vel[k3 + 2] = 0;
        contact[k] = 0;
        bendNew[k4] = 0; bendNew[k4 + 1] = 0; bendNew[k4 + 2] = 0; bendNew[k4 + 3] = 1;
        dpx = ux; dpy = uy; dpz = uz;
      }
      let sx: number, sy: number, sz: number, sw: number;
      const dd = ux * dpx + uy * dpy + uz * dpz;
      if (dd < -0.999999999) {
        let ax = 0, ay = -uz, az = uy;
        if (ay * ay + az * az < 1e-12) { ax = uz; ay = 0; az = -ux; }
        const al = Math.sqrt(ax * ax + ay * ay + az * az);
        sx = ax / al; sy = ay / al; sz = az / al; sw = 0;
      } else {
        sx = uy * dpz - uz * dpy; sy = uz * dpx - ux * dpz; sz = ux * dpy - uy * dpx; sw = 1 + dd;
        const sl = 1 / Math.sqrt(sw + sw);
        sx *= sl; sy *= sl; sz *= sl; sw *= sl;
      }
      const r0 = restR[k4]!, r1 = restR[k4 + 1]!, r2 = restR[k4 + 2]!, r3 = restR[k4 + 3]!;
      const cx = sx * r3 + sw * r0 + sy * r2 - sz * r1;
      const cy = sy * r3 + sw * r1 + sz * r0 - sx * r2;
      const cz = sz * r3 + sw * r2 + sx * r1 - sy * r0;
      const cw = sw * r3 - sx * r0 - sy * r1 - sz * r2;
      // The local rotation before this step stays for display interpolation (TailWrite).
      localPrev[k4] = localCur[k4]!; localPrev[k4 + 1] = localCur[k4 + 1]!;
      localPrev[k4 + 2] = localCur[k4 + 2]!; localPrev[k4 + 3] = localCur[k4 + 3]!;
      localCur[k4] = cx; localCur[k4 + 1] = cy; localCur[k4 + 2] = cz; localCur[k4 + 3] = cw;
      const nx = qx * cw + qw * cx + qy * cz - qz * cy;
      const ny = qy * cw + qw * cy + qz * cx - qx * cz;
      const nz = qz * cw + qw * cz + qx * cy - qy * cx;
      const nw = qw * cw - qx * cx - qy * cy - qz * cz;

      qx = nx; qy = ny; qz = nz; qw = nw;
      px = hx; py = hy; pz = hz;
      ps = s * scaleRel[k]!;
    }
    const o = base * 4;
    for (let j = o; j < o + n * 4; j++) bendOld[j] = bendNew[j]!;
  }
}

/**
 * The same step in WebAssembly SIMD (wasm/tailStep.ts: float32, four chains per group, within
 * float32 rounding of this step — test/tail/wasm.test.ts): the cached exponentials are
 * refreshed here where stale (JavaScript's Math.exp, as this step), then one call groups the
 * chains when they changed, reads in those marked in `mirrorStale`, fills every chain's
 * constants, steps every chain and writes the particle state back to the components.
 */
function tailStepWasm(world: BitrigWorld, accel: TailAccel, step: number | undefined): void {
  // h into the link register: the world's fixed step, or `step` when given (two statements:
  // mixing the optional argument with the clock's number would box it). Read here, in a
  // function that loops over the chains and gets optimised, not in a helper run once a frame.
  LK[K.STEP] = world.clock[CLOCK.FIXED_STEP]!;
  if (step !== undefined) LK[K.STEP] = step;
  const C = world.components.TailChain;
  const ents = world.queries.tails.dense;
  const ids = accel.ents, cache = C.stepCache;
  // (h stays in LK: a double local live across the call below would be boxed once per frame)
  for (let e = 0; e < ents.length; e++) {
    const eid = ents[e]!;
    ids[e] = eid;
    if (cache[eid * 5] !== LK[K.STEP] && C.stepsLastFrame[eid] !== 0) refreshStepCache(world, eid);
  }
  accel.params[0] = LK[K.STEP]!;
  accel.kernel.prepareStep(ents.length);
  accel.kernel.run();
}
