/**
 * The pose store's per-frame matrix work (compose, multiply, forward kinematics) on flat
 * arrays, without gl-matrix (no views made per call); re-exported by core/pose.ts.
 */
import type { PoseStore } from './pose';

const _m = new Float64Array(16);

/**
 * Compose a TRS into a column-major 4×4 (out = T·R·S). No allocation.
 * Reads t/r/s at the given element offsets of flat arrays.
 */
export function composeTRS(
  out: Float64Array, o: number,
  t: ArrayLike<number>, to: number,
  r: ArrayLike<number>, ro: number,
  sc: ArrayLike<number>, so: number,
): void {
  const x = r[ro]!, y = r[ro + 1]!, z = r[ro + 2]!, w = r[ro + 3]!;
  const sx = sc[so]!, sy = sc[so + 1]!, sz = sc[so + 2]!;
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2;
  const yy = y * y2, yz = y * z2, zz = z * z2;
  const wx = w * x2, wy = w * y2, wz = w * z2;
  out[o] = (1 - (yy + zz)) * sx;
  out[o + 1] = (xy + wz) * sx;
  out[o + 2] = (xz - wy) * sx;
  out[o + 3] = 0;
  out[o + 4] = (xy - wz) * sy;
  out[o + 5] = (1 - (xx + zz)) * sy;
  out[o + 6] = (yz + wx) * sy;
  out[o + 7] = 0;
  out[o + 8] = (xz + wy) * sz;
  out[o + 9] = (yz - wx) * sz;
  out[o + 10] = (1 - (xx + yy)) * sz;
  out[o + 11] = 0;
  out[o + 12] = t[to]!;
  out[o + 13] = t[to + 1]!;
  out[o + 14] = t[to + 2]!;
  out[o + 15] = 1;
}

/** out[oo..] = a[ao..] × b[bo..] for column-major 4×4 affine matrices stored in flat arrays. */
export function mulAffine(
  out: Float64Array, oo: number,
  a: ArrayLike<number>, ao: number,
  b: ArrayLike<number>, bo: number,
): void {
  const a00 = a[ao]!, a01 = a[ao + 1]!, a02 = a[ao + 2]!;
  const a10 = a[ao + 4]!, a11 = a[ao + 5]!, a12 = a[ao + 6]!;
  const a20 = a[ao + 8]!, a21 = a[ao + 9]!, a22 = a[ao + 10]!;
  const a30 = a[ao + 12]!, a31 = a[ao + 13]!, a32 = a[ao + 14]!;
  for (let c = 0; c < 4; c++) {
    const b0 = b[bo + c * 4]!, b1 = b[bo + c * 4 + 1]!, b2 = b[bo + c * 4 + 2]!, b3 = b[bo + c * 4 + 3]!;
    out[oo + c * 4] = a00 * b0 + a10 * b1 + a20 * b2 + a30 * b3;
    out[oo + c * 4 + 1] = a01 * b0 + a11 * b1 + a21 * b2 + a31 * b3;
    out[oo + c * 4 + 2] = a02 * b0 + a12 * b1 + a22 * b2 + a32 * b3;
    out[oo + c * 4 + 3] = c === 3 ? 1 : 0;
  }
}

/** World matrix of one slot from its parent's (or the root frame) and its current local. */
export function poseUpdateSlot(s: PoseStore, slot: number): void {
  composeTRS(_m, 0, s.localT, slot * 3, s.localR, slot * 4, s.localS, slot * 3);
  const p = s.parent[slot]!;
  if (p >= 0) mulAffine(s.worldM, slot * 16, s.worldM, p * 16, _m, 0);
  else mulAffine(s.worldM, slot * 16, s.charRootWs, s.owner[slot]! * 16, _m, 0);
}

/**
 * Recompute every world matrix of a character from its root frame and current locals.
 * Per-frame; no allocation.
 */
export function poseUpdateWorld(s: PoseStore, id: number): void {
  const start = s.charStart[id]!;
  const end = start + s.charCount[id]!;
  for (let k = start; k < end; k++) poseUpdateSlot(s, k);
}

/**
 * Recompute the world matrices of `slot` and all its descendants (after a system changed
 * its local TRS). Per-frame; no allocation.
 */
export function poseUpdateSubtree(s: PoseStore, slot: number): void {
  const id = s.owner[slot]!;
  if (id < 0) return;
  const end = s.charStart[id]! + s.charCount[id]!;
  const dirty = s.dirty;
  poseUpdateSlot(s, slot);
  dirty[slot] = 1;
  for (let k = slot + 1; k < end; k++) {
    const p = s.parent[k]!;
    if (p >= 0 && dirty[p] === 1) {
      poseUpdateSlot(s, k);
      dirty[k] = 1;
    }
  }
  for (let k = slot; k < end; k++) dirty[k] = 0;
}

