/**
 * TailWrite — readback into the pose store, every frame (rotation readback).
 *
 * Reads: the links' local rotations after the last two internal steps (`localPrev`,
 * `localCur`; each is the shortest arc taking the bone's rest direction onto the direction to
 * its particle, in the parent's frame) and the clock's display fraction α (so every render
 * rate shows the same motion, one step behind); this frame's anchor `anchorCur`; the floor.
 * Writes: the pose store's local rotation and world matrix of every link bone (and the end
 * helper's world matrix; reflected back for a mirrored anchor), `anchorPrev`; on the WebAssembly
 * write, `initialised` 0 for a chain whose links, row or bone slots lie outside the world's
 * arrays (written nothing; `tailStructureOk`).
 *
 * Local rotations are blended, so the tail rides the body exactly as it moves this frame. A
 * drawn tip that the blend (or this frame's hips) puts under the floor goes back onto the
 * floor circle. A non-finite result writes the rest rotation and re-initialises the chain next
 * frame: no NaN ever reaches a bone.
 *
 * Speed: one loop body on locals per link (the parent frame travels as a quaternion and a
 * 3×3 matrix; the same matrix gives the bone's world matrix), like {@link tailStep}.
 */
import type { BitrigWorld } from '../core/world';
import { CLOCK, LINK_STRIDE } from '../core/components/tail';
import { tailFinishChain } from '../core/tailFinish';
import type { TailAccel } from '../core/kernelTypes';


/**
 * Write every chain's bone rotations (and tail world matrices) for this frame.
 *
 * @example
 * tailWrite(world);
 */
export function tailWrite(world: BitrigWorld): void {
  const accel = world.tailAccel;
  if (accel !== null) tailWriteWasm(world, accel);
  else tailWriteJs(world);
}

/** The JavaScript write (the reference; where WebAssembly SIMD is unavailable). */
function tailWriteJs(world: BitrigWorld): void {
  const C = world.components.TailChain;
  const B = world.components.BendState;
  const pose = world.pose;
  const localR = pose.localR, worldM = pose.worldM;
  const al = world.clock[CLOCK.ALPHA]!, al1 = 1 - al;
  const lp = B.localPrev, lc = B.localCur, restR = B.restR;
  const headLs = B.headLs, restDirLs = B.restDirLs, tipDirLs = B.tipDirLs, lenRel = B.lenRel, scaleRel = B.scaleRel;
  const AC = C.anchorCur;
  const ents = world.queries.tails.dense;
  for (let e = 0; e < ents.length; e++) {
    const eid = ents[e]!;
    if (C.initialised[eid] === 0) continue; // no valid anchor this frame: leave the bones
    const n = C.links[eid]!;
    const base = C.row[eid]! * LINK_STRIDE; // this chain's per-link row
    const a = eid * 8;
    const floorOn = C.floorEnabled[eid] === 1;
    const F = C.floorY[eid]! + C.floorClearance[eid]! * C.unitScale[eid]!;
    const composeWorld = C.exactWorld[eid] !== 1;
    const mx = C.mirrored[eid] === 1 ? -1 : 1; // reflect world matrices back (x row) when mirrored
    // Parent frame of link 0: this frame's anchor.
    let qx = AC[a + 3]!, qy = AC[a + 4]!, qz = AC[a + 5]!, qw = AC[a + 6]!;
    let px = AC[a]!, py = AC[a + 1]!, pz = AC[a + 2]!;
    const s = AC[a + 7]!;
    let ps = s;
    let x2 = qx + qx, y2 = qy + qy, z2 = qz + qz;
    let xx = qx * x2, xy = qx * y2, xz = qx * z2, yy = qy * y2, yz = qy * z2, zz = qz * z2;
    let wx = qw * x2, wy = qw * y2, wz = qw * z2;
    let m00 = 1 - (yy + zz), m01 = xy - wz, m02 = xz + wy;
    let m10 = xy + wz, m11 = 1 - (xx + zz), m12 = yz - wx;
    let m20 = xz - wy, m21 = yz + wx, m22 = 1 - (xx + yy);
    let bad = false;
    for (let i = 0; i < n; i++) {
      const k = base + i;
      const k3 = k * 3, q = k * 4;
      // Displayed local rotation: normalised blend of the last two steps (shorter arc).
      const p0 = lp[q]!, p1 = lp[q + 1]!, p2 = lp[q + 2]!, p3 = lp[q + 3]!;
      const c0 = lc[q]!, c1 = lc[q + 1]!, c2 = lc[q + 2]!, c3 = lc[q + 3]!;
      const sg = p0 * c0 + p1 * c1 + p2 * c2 + p3 * c3 < 0 ? -al : al;
      let lx = p0 * al1 + c0 * sg, ly = p1 * al1 + c1 * sg, lz = p2 * al1 + c2 * sg, lw = p3 * al1 + c3 * sg;
      const l2 = lx * lx + ly * ly + lz * lz + lw * lw;
      if (!(l2 > 1e-18) || !(l2 < Infinity)) { bad = true; break; }
      if (al !== 0) { // (α = 0 shows the last step's unit rotation as it is)
        const il = 1 / Math.sqrt(l2);
        lx *= il; ly *= il; lz *= il; lw *= il;
      }
      // Head from the parent frame.
      const hlx = headLs[k3]!, hly = headLs[k3 + 1]!, hlz = headLs[k3 + 2]!;
      const hx = px + ps * (m00 * hlx + m01 * hly + m02 * hlz);
      const hy = py + ps * (m10 * hlx + m11 * hly + m12 * hlz);
      const hz = pz + ps * (m20 * hlx + m21 * hly + m22 * hlz);
      // World rotation = parent · local.
      let nx = qx * lw + qw * lx + qy * lz - qz * ly;
      let ny = qy * lw + qw * ly + qz * lx - qx * lz;
      let nz = qz * lw + qw * lz + qx * ly - qy * lx;
      let nw = qw * lw - qx * lx - qy * ly - qz * lz;
      x2 = nx + nx; y2 = ny + ny; z2 = nz + nz;
      xx = nx * x2; xy = nx * y2; xz = nx * z2; yy = ny * y2; yz = ny * z2; zz = nz * z2;
      wx = nw * x2; wy = nw * y2; wz = nw * z2;
      let n00 = 1 - (yy + zz), n01 = xy - wz, n02 = xz + wy;
      let n10 = xy + wz, n11 = 1 - (xx + zz), n12 = yz - wx;
      let n20 = xz - wy, n21 = yz + wx, n22 = 1 - (xx + yy);
      const len = s * lenRel[k]!;
      if (floorOn && len > 0) {
        const tx = tipDirLs[k3]!, ty = tipDirLs[k3 + 1]!, tz = tipDirLs[k3 + 2]!;
        const dy = n10 * tx + n11 * ty + n12 * tz;
        if (hy + len * dy < F) {
          // Back onto the floor circle; aimed with the least twist from rest.
          const dx = n00 * tx + n01 * ty + n02 * tz, dz = n20 * tx + n21 * ty + n22 * tz;
          const ux = restDirLs[k3]!, uy = restDirLs[k3 + 1]!, uz = restDirLs[k3 + 2]!;
          const rx = m00 * ux + m01 * uy + m02 * uz, rz = m20 * ux + m21 * uy + m22 * uz;
          // Floor circle (as floorDirection, inline: no boxed-double call in the frame).
          let u = (F - hy) / len;
          if (u > 1) u = 1; else if (u < -1) u = -1;
          let hx2 = dx, hz2 = dz, tl = Math.sqrt(hx2 * hx2 + hz2 * hz2);
          if (tl < 1e-9) { hx2 = rx; hz2 = rz; tl = Math.sqrt(hx2 * hx2 + hz2 * hz2); }
          if (tl < 1e-9) { hx2 = 0; hz2 = -1; tl = 1; }
          const cu = Math.sqrt(1 - u * u) / tl;
          const fx = cu * hx2, fy = u, fz = cu * hz2;
          // d in the parent frame; local = swing(restDirLs, d_p) · restR.
          const ex = m00 * fx + m10 * fy + m20 * fz;
          const ey = m01 * fx + m11 * fy + m21 * fz;
          const ez = m02 * fx + m12 * fy + m22 * fz;
          let sx: number, sy: number, sz: number, sw: number;
          const dd = ux * ex + uy * ey + uz * ez;
          if (dd < -0.999999999) {
            let ax = 0, ay = -uz, az = uy;
            if (ay * ay + az * az < 1e-12) { ax = uz; ay = 0; az = -ux; }
            const axl = Math.sqrt(ax * ax + ay * ay + az * az);
            sx = ax / axl; sy = ay / axl; sz = az / axl; sw = 0;
          } else {
            sx = uy * ez - uz * ey; sy = uz * ex - ux * ez; sz = ux * ey - uy * ex; sw = 1 + dd;
            const sl = 1 / Math.sqrt(sx * sx + sy * sy + sz * sz + sw * sw);
            sx *= sl; sy *= sl; sz *= sl; sw *= sl;
          }
          const r0 = restR[q]!, r1 = restR[q + 1]!, r2 = restR[q + 2]!, r3 = restR[q + 3]!;
          lx = sx * r3 + sw * r0 + sy * r2 - sz * r1;
          ly = sy * r3 + sw * r1 + sz * r0 - sx * r2;
          lz = sz * r3 + sw * r2 + sx * r1 - sy * r0;
          lw = sw * r3 - sx * r0 - sy * r1 - sz * r2;
          nx = qx * lw + qw * lx + qy * lz - qz * ly;
          ny = qy * lw + qw * ly + qz * lx - qx * lz;
          nz = qz * lw + qw * lz + qx * ly - qy * lx;
          nw = qw * lw - qx * lx - qy * ly - qz * lz;
          x2 = nx + nx; y2 = ny + ny; z2 = nz + nz;
          xx = nx * x2; xy = nx * y2; xz = nx * z2; yy = ny * y2; yz = ny * z2; zz = nz * z2;
          wx = nw * x2; wy = nw * y2; wz = nw * z2;
          n00 = 1 - (yy + zz); n01 = xy - wz; n02 = xz + wy;
          n10 = xy + wz; n11 = 1 - (xx + zz); n12 = yz - wx;
          n20 = xz - wy; n21 = yz + wx; n22 = 1 - (xx + yy);
        }
      }
      const sl = C.slot[k]!;
      const s4 = sl * 4;
      localR[s4] = lx; localR[s4 + 1] = ly; localR[s4 + 2] = lz; localR[s4 + 3] = lw;
      const sc = s * scaleRel[k]!;
      if (composeWorld) {
        // The bone's world matrix straight from its world frame (uniform scale).
        const o = sl * 16;
        const sx = mx * sc;
        worldM[o] = n00 * sx; worldM[o + 1] = n10 * sc; worldM[o + 2] = n20 * sc; worldM[o + 3] = 0;
        worldM[o + 4] = n01 * sx; worldM[o + 5] = n11 * sc; worldM[o + 6] = n21 * sc; worldM[o + 7] = 0;
        worldM[o + 8] = n02 * sx; worldM[o + 9] = n12 * sc; worldM[o + 10] = n22 * sc; worldM[o + 11] = 0;
        worldM[o + 12] = mx * hx; worldM[o + 13] = hy; worldM[o + 14] = hz; worldM[o + 15] = 1;
      }
      qx = nx; qy = ny; qz = nz; qw = nw;
      m00 = n00; m01 = n01; m02 = n02; m10 = n10; m11 = n11; m12 = n12; m20 = n20; m21 = n21; m22 = n22;
      px = hx; py = hy; pz = hz; ps = sc;
    }
    C.writeFailed[eid] = bad ? 1 : 0;
  }
  tailWriteFinish(world);
}

/**
 * The same write with the link loop in WebAssembly SIMD (wasm/tailStep.ts `tailWrite`, f64,
 * bit-identical for the same state), which also does the common per-chain finish (the anchor copy, and the world
 * matrix of a `Tail_End` helper without children); then the rest of the finish for the
 * chains that need it (failed, exact world matrices, an end helper with children).
 */
function tailWriteWasm(world: BitrigWorld, accel: TailAccel): void {
  const ents = world.queries.tails.dense;
  const ids = accel.ents;
  for (let e = 0; e < ents.length; e++) ids[e] = ents[e]!;
  accel.params[1] = world.clock[CLOCK.ALPHA]!;
  accel.kernel.prepareWrite(ents.length);
  accel.kernel.run();
  // (counted in the kernel, from the list it wrote: the same test as finishLeft)
  const left = accel.kernel.finishLeftCount(ents.length);
  if (left === 0) return;
  const C = world.components.TailChain;
  // Many left (say exact world matrices everywhere): the whole finish
  // (it repeats the anchor copies and helpers done, with the same values).
  if (left >= 256) { tailWriteFinish(world); return; }
  for (let e = 0; e < ents.length; e++) if (finishLeft(C, ents[e]!)) tailFinishChain(world, ents[e]!);
}

/** Whether the WebAssembly write left part of chain `eid`'s finish to {@link tailFinishChain}. */
function finishLeft(C: BitrigWorld['components']['TailChain'], eid: number): boolean {
  if (C.initialised[eid] === 0) return false; // not written (and the finish skips it)
  if (C.links[eid] === 0 || C.writeFailed[eid] === 1 || C.exactWorld[eid] === 1) return true;
  return C.endSlot[eid]! >= 0 && C.endLeaf[eid] !== 1;
}

/**
 * Per chain, once every chain's links are written: the rest fallback for a chain whose write
 * went non-finite (`writeFailed`: rest rotations, re-initialised next frame), the anchor copy
 * for the next frame, and the world matrices the link loop did not compose — the end helper's
 * subtree, or the whole chain's when it keeps exact world matrices or failed. Done after all
 * link loops (both backends), so a tail hanging under another tail's bones gets world
 * matrices from its parent tail's final pose.
 */
function tailWriteFinish(world: BitrigWorld): void {
  const ents = world.queries.tails.dense;
  for (let e = 0; e < ents.length; e++) tailFinishChain(world, ents[e]!);
}
