/**
 * Frame helpers for the scene setup (the per-frame solve has its own, in the kernels): affine
 * inverses, rotation of a (possibly scaled, sheared or mirrored) matrix, and conversions between
 * a bone's parent-local frame and world space. Flat Float64Arrays with element offsets, column-major 4×4
 * (gl-matrix layout), quaternions x, y, z, w. Allocation-free; never throws.
 *
 * Convention for mirrored frames (negative determinant): the reflection is taken on the
 * frame's local x axis, as {@link decomposeAffine} does, so `rotationOfMatrix` of a mirrored
 * matrix is the rotation part with the x column negated. With that convention a rotation
 * `q` in a mirrored parent's local frame appears in world as `R_P · M(q)` with
 * `M(x, y, z, w) = (x, −y, −z, w)` (conjugation by the reflection).
 */

/**
 * out[oo..oo+15] = inverse of the affine matrix m[mo..]. A singular (or non-finite) matrix
 * gives identity and returns false.
 *
 * @example
 * const inv = new Float64Array(16);
 * invertAffine(inv, 0, pose.worldM, slot * 16);
 */
export function invertAffine(out: Float64Array, oo: number, m: ArrayLike<number>, mo: number): boolean {
  const a00 = m[mo]!, a01 = m[mo + 1]!, a02 = m[mo + 2]!;
  const a10 = m[mo + 4]!, a11 = m[mo + 5]!, a12 = m[mo + 6]!;
  const a20 = m[mo + 8]!, a21 = m[mo + 9]!, a22 = m[mo + 10]!;
  const tx = m[mo + 12]!, ty = m[mo + 13]!, tz = m[mo + 14]!;
  const b01 = a22 * a11 - a12 * a21;
  const b11 = -a22 * a10 + a12 * a20;
  const b21 = a21 * a10 - a11 * a20;
  const det = a00 * b01 + a01 * b11 + a02 * b21;
  if (!(Math.abs(det) > 1e-300) || !Number.isFinite(det) || !Number.isFinite(tx + ty + tz)) {
    for (let i = 0; i < 16; i++) out[oo + i] = i % 5 === 0 ? 1 : 0;
    return false;
  }
  const id = 1 / det;
  const i00 = b01 * id;
  const i01 = (-a22 * a01 + a02 * a21) * id;
  const i02 = (a12 * a01 - a02 * a11) * id;
  const i10 = b11 * id;
  const i11 = (a22 * a00 - a02 * a20) * id;
  const i12 = (-a12 * a00 + a02 * a10) * id;
  const i20 = b21 * id;
  const i21 = (-a21 * a00 + a01 * a20) * id;
  const i22 = (a11 * a00 - a01 * a10) * id;
  out[oo] = i00; out[oo + 1] = i01; out[oo + 2] = i02; out[oo + 3] = 0;
  out[oo + 4] = i10; out[oo + 5] = i11; out[oo + 6] = i12; out[oo + 7] = 0;
  out[oo + 8] = i20; out[oo + 9] = i21; out[oo + 10] = i22; out[oo + 11] = 0;
  out[oo + 12] = -(i00 * tx + i10 * ty + i20 * tz);
  out[oo + 13] = -(i01 * tx + i11 * ty + i21 * tz);
  out[oo + 14] = -(i02 * tx + i12 * ty + i22 * tz);
  out[oo + 15] = 1;
  return true;
}

/** out[o..o+2] = m · (p, 1) (affine point transform). `out` may alias `p`. */
export function transformPoint(out: Float64Array, o: number, m: ArrayLike<number>, mo: number, p: ArrayLike<number>, po: number): void {
  const x = p[po]!, y = p[po + 1]!, z = p[po + 2]!;
  out[o] = m[mo]! * x + m[mo + 4]! * y + m[mo + 8]! * z + m[mo + 12]!;
  out[o + 1] = m[mo + 1]! * x + m[mo + 5]! * y + m[mo + 9]! * z + m[mo + 13]!;
  out[o + 2] = m[mo + 2]! * x + m[mo + 6]! * y + m[mo + 10]! * z + m[mo + 14]!;
}

/** out[o..o+2] = linear part of m · v (direction transform, no translation). `out` may alias `v`. */
export function transformDir(out: Float64Array, o: number, m: ArrayLike<number>, mo: number, v: ArrayLike<number>, vo: number): void {
  const x = v[vo]!, y = v[vo + 1]!, z = v[vo + 2]!;
  out[o] = m[mo]! * x + m[mo + 4]! * y + m[mo + 8]! * z;
  out[o + 1] = m[mo + 1]! * x + m[mo + 5]! * y + m[mo + 9]! * z;
  out[o + 2] = m[mo + 2]! * x + m[mo + 6]! * y + m[mo + 10]! * z;
}

/**
 * True when the linear 3×3 part of an affine matrix is mirrored (negative determinant). A
 * boolean, for per-frame code: a double returned from a call that is not inlined is boxed.
 *
 * @example
 * const mirrored = isMirroredMatrix(pose.worldM, slot * 16);
 */
export function isMirroredMatrix(m: ArrayLike<number>, mo: number): boolean {
  // (the determinant inline: a nested call's double result would be boxed)
  const a00 = m[mo]!, a01 = m[mo + 1]!, a02 = m[mo + 2]!, a10 = m[mo + 4]!, a11 = m[mo + 5]!, a12 = m[mo + 6]!, a20 = m[mo + 8]!, a21 = m[mo + 9]!, a22 = m[mo + 10]!;
  return a00 * (a22 * a11 - a12 * a21) + a01 * (-a22 * a10 + a12 * a20) + a02 * (a21 * a10 - a11 * a20) < 0;
}

/**
 * True when the linear 3×3 part of an affine matrix is finite and invertible (|det| > 1e-300).
 *
 * @example
 * if (!isInvertible3(matrixWs, 0)) return;
 */
export function isInvertible3(m: ArrayLike<number>, mo: number): boolean {
  const a00 = m[mo]!, a01 = m[mo + 1]!, a02 = m[mo + 2]!, a10 = m[mo + 4]!, a11 = m[mo + 5]!, a12 = m[mo + 6]!, a20 = m[mo + 8]!, a21 = m[mo + 9]!, a22 = m[mo + 10]!;
  return Math.abs(a00 * (a22 * a11 - a12 * a21) + a01 * (-a22 * a10 + a12 * a20) + a02 * (a21 * a10 - a11 * a20)) > 1e-300;
}

/** Determinant of the linear 3×3 part of an affine matrix. */
export function det3(m: ArrayLike<number>, mo: number): number {
  const a00 = m[mo]!, a01 = m[mo + 1]!, a02 = m[mo + 2]!;
  const a10 = m[mo + 4]!, a11 = m[mo + 5]!, a12 = m[mo + 6]!;
  const a20 = m[mo + 8]!, a21 = m[mo + 9]!, a22 = m[mo + 10]!;
  return a00 * (a22 * a11 - a12 * a21) + a01 * (-a22 * a10 + a12 * a20) + a02 * (a21 * a10 - a11 * a20);
}

/**
 * Rotation (unit quaternion) of an affine matrix's linear part: columns orthonormalised
 * (Gram–Schmidt, so scale and shear are removed), the x column negated when the matrix is
 * mirrored. A degenerate matrix gives identity.
 *
 * @example
 * rotationOfMatrix(qWs, 0, pose.worldM, slot * 16);
 */
export function rotationOfMatrix(out: Float64Array, o: number, m: ArrayLike<number>, mo: number): void {
  let x0 = m[mo]!, x1 = m[mo + 1]!, x2 = m[mo + 2]!;
  let y0 = m[mo + 4]!, y1 = m[mo + 5]!, y2 = m[mo + 6]!;
  const z0 = m[mo + 8]!, z1 = m[mo + 9]!, z2 = m[mo + 10]!;
  // Mirrored: negate x.
  const d = x0 * (y1 * z2 - y2 * z1) - y0 * (x1 * z2 - x2 * z1) + z0 * (x1 * y2 - x2 * y1);
  if (d < 0) { x0 = -x0; x1 = -x1; x2 = -x2; }
  let l = x0 * x0 + x1 * x1 + x2 * x2;
  if (!(l > 1e-300) || !Number.isFinite(l)) { out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1; return; }
  l = 1 / Math.sqrt(l);
  x0 *= l; x1 *= l; x2 *= l;
  const dp = y0 * x0 + y1 * x1 + y2 * x2;
  y0 -= dp * x0; y1 -= dp * x1; y2 -= dp * x2;
  l = y0 * y0 + y1 * y1 + y2 * y2;
  if (!(l > 1e-300)) { out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1; return; }
  l = 1 / Math.sqrt(l);
  y0 *= l; y1 *= l; y2 *= l;
  // z = x × y (right-handed); the matrix (columns x, y, z) → quaternion (Shepperd).
  const m02 = x1 * y2 - x2 * y1, m12 = x2 * y0 - x0 * y2, m22 = x0 * y1 - x1 * y0;
  const m00 = x0, m10 = x1, m20 = x2, m01 = y0, m11 = y1, m21 = y2;
  const tr = m00 + m11 + m22;
  let qx: number, qy: number, qz: number, qw: number;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2, is = 1 / s;
    qw = 0.25 * s; qx = (m21 - m12) * is; qy = (m02 - m20) * is; qz = (m10 - m01) * is;
  } else if (m00 > m11 && m00 > m22) {
    const s = Math.sqrt(1 + m00 - m11 - m22) * 2, is = 1 / s;
    qw = (m21 - m12) * is; qx = 0.25 * s; qy = (m01 + m10) * is; qz = (m02 + m20) * is;
  } else if (m11 > m22) {
    const s = Math.sqrt(1 + m11 - m00 - m22) * 2, is = 1 / s;
    qw = (m02 - m20) * is; qx = (m01 + m10) * is; qy = 0.25 * s; qz = (m12 + m21) * is;
  } else {
    const s = Math.sqrt(1 + m22 - m00 - m11) * 2, is = 1 / s;
    qw = (m10 - m01) * is; qx = (m02 + m20) * is; qy = (m12 + m21) * is; qz = 0.25 * s;
  }
  out[o] = qx; out[o + 1] = qy; out[o + 2] = qz; out[o + 3] = qw;
}

/**
 * Local rotation → world rotation under a parent whose world rotation is `qP` (from
 * {@link rotationOfMatrix}) and which is mirrored when `mirrored` is true: `q_ws = qP · M(q_local)`.
 * `out` may alias `q`.
 */
export function rotationToWorld(out: Float64Array, o: number, qP: ArrayLike<number>, po: number, q: ArrayLike<number>, qo: number, mirrored: boolean): void {
  const ax = qP[po]!, ay = qP[po + 1]!, az = qP[po + 2]!, aw = qP[po + 3]!;
  const bx = q[qo]!, by = mirrored ? -q[qo + 1]! : q[qo + 1]!, bz = mirrored ? -q[qo + 2]! : q[qo + 2]!, bw = q[qo + 3]!;
  out[o] = ax * bw + aw * bx + ay * bz - az * by;
  out[o + 1] = ay * bw + aw * by + az * bx - ax * bz;
  out[o + 2] = az * bw + aw * bz + ax * by - ay * bx;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}
