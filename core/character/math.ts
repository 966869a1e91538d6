/**
 * Small float64 vector / quaternion / matrix helpers for the character generator
 * (setup-time code: these allocate freely). Quaternions x, y, z, w; matrices column-major.
 */

/** A 3-vector as a tuple. */
export type V3 = [number, number, number];
/** A quaternion x, y, z, w as a tuple. */
export type Q = [number, number, number, number];

/** a + b */
export const add = (a: V3, b: V3): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
/** a − b */
export const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
/** a · s */
export const scale = (a: V3, s: number): V3 => [a[0] * s, a[1] * s, a[2] * s];
/** a · b */
export const dot = (a: V3, b: V3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
/** a × b */
export const cross = (a: V3, b: V3): V3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
/** |a| */
export const len = (a: V3): number => Math.hypot(a[0], a[1], a[2]);
/** a / |a| (zero vector stays zero). */
export const norm = (a: V3): V3 => {
  const l = len(a);
  return l > 0 ? [a[0] / l, a[1] / l, a[2] / l] : [0, 0, 0];
};
/** (1 − t)·a + t·b, exact at t = 0 and t = 1. */
export const lerp3 = (a: V3, b: V3, t: number): V3 => [
  (1 - t) * a[0] + t * b[0],
  (1 - t) * a[1] + t * b[1],
  (1 - t) * a[2] + t * b[2],
];
/** Hermite smoothstep of x between e0 and e1 (e0 may exceed e1). */
export const smoothstep = (e0: number, e1: number, x: number): number => {
  const t = Math.min(1, Math.max(0, (x - e0) / (e1 - e0)));
  return t * t * (3 - 2 * t);
};
/** Degrees to radians. */
export const rad = (deg: number): number => (deg * Math.PI) / 180;

/** Identity quaternion. */
export const qId = (): Q => [0, 0, 0, 1];
/** a · b (apply b first). */
export const qMul = (a: Q, b: Q): Q => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];
/** Inverse of a unit quaternion (its conjugate). */
export const qInv = (a: Q): Q => [-a[0], -a[1], -a[2], a[3]];
/** Unit quaternion. */
export const qNorm = (a: Q): Q => {
  const l = Math.hypot(a[0], a[1], a[2], a[3]);
  return [a[0] / l, a[1] / l, a[2] / l, a[3] / l];
};
/** Rotation of `angle` radians about the (unit) axis. */
export const qAxis = (axis: V3, angle: number): Q => {
  const s = Math.sin(angle / 2);
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
};
/** Rotation about world X. */
export const qX = (angle: number): Q => qAxis([1, 0, 0], angle);
/** Rotation about world Y. */
export const qY = (angle: number): Q => qAxis([0, 1, 0], angle);
/** Rotation about world Z. */
export const qZ = (angle: number): Q => qAxis([0, 0, 1], angle);
/** Rotate v by unit q. */
export const qRot = (q: Q, v: V3): V3 => {
  const [x, y, z, w] = q;
  const tx = 2 * (y * v[2] - z * v[1]);
  const ty = 2 * (z * v[0] - x * v[2]);
  const tz = 2 * (x * v[1] - y * v[0]);
  return [
    v[0] + w * tx + (y * tz - z * ty),
    v[1] + w * ty + (z * tx - x * tz),
    v[2] + w * tz + (x * ty - y * tx),
  ];
};

/** Quaternion of the rotation whose matrix columns are the orthonormal basis X, Y, Z. */
export function qFromBasis(X: V3, Y: V3, Z: V3): Q {
  const m00 = X[0], m10 = X[1], m20 = X[2];
  const m01 = Y[0], m11 = Y[1], m21 = Y[2];
  const m02 = Z[0], m12 = Z[1], m22 = Z[2];
  const tr = m00 + m11 + m22;
  let q: Q;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    q = [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s];
  } else if (m00 > m11 && m00 > m22) {
    const s = Math.sqrt(1 + m00 - m11 - m22) * 2;
    q = [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s];
  } else if (m11 > m22) {
    const s = Math.sqrt(1 + m11 - m00 - m22) * 2;
    q = [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s];
  } else {
    const s = Math.sqrt(1 + m22 - m00 - m11) * 2;
    q = [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s];
  }
  q = qNorm(q);
  if (q[3] < 0) q = [-q[0], -q[1], -q[2], -q[3]];
  return q;
}

/**
 * Frame whose +Y runs along `dir` and whose +X is `refX` made orthogonal to it
 * (Blender bone convention). `refX` must not be parallel to `dir`.
 */
export function qAlongY(dir: V3, refX: V3): Q {
  const Y = norm(dir);
  const X = norm(sub(refX, scale(Y, dot(refX, Y))));
  const Z = cross(X, Y);
  return qFromBasis(X, Y, Z);
}

/** Column-major 4×4 from translation, unit rotation and scale (out = T·R·S). */
export function mat4FromTRS(t: ArrayLike<number>, r: ArrayLike<number>, s: ArrayLike<number>): Float64Array {
  const out = new Float64Array(16);
  const x = r[0]!, y = r[1]!, z = r[2]!, w = r[3]!;
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2;
  const yy = y * y2, yz = y * z2, zz = z * z2;
  const wx = w * x2, wy = w * y2, wz = w * z2;
  out[0] = (1 - (yy + zz)) * s[0]!;
  out[1] = (xy + wz) * s[0]!;
  out[2] = (xz - wy) * s[0]!;
  out[4] = (xy - wz) * s[1]!;
  out[5] = (1 - (xx + zz)) * s[1]!;
  out[6] = (yz + wx) * s[1]!;
  out[8] = (xz + wy) * s[2]!;
  out[9] = (yz - wx) * s[2]!;
  out[10] = (1 - (xx + yy)) * s[2]!;
  out[12] = t[0]!;
  out[13] = t[1]!;
  out[14] = t[2]!;
  out[15] = 1;
  return out;
}

/** a × b for column-major 4×4 matrices. */
export function mat4Mul(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const out = new Float64Array(16);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      let v = 0;
      for (let k = 0; k < 4; k++) v += a[k * 4 + r]! * b[c * 4 + k]!;
      out[c * 4 + r] = v;
    }
  }
  return out;
}

/** General 4×4 inverse (column-major); identity when singular. */
export function mat4Invert(m: ArrayLike<number>): Float64Array {
  const a00 = m[0]!, a01 = m[1]!, a02 = m[2]!, a03 = m[3]!;
  const a10 = m[4]!, a11 = m[5]!, a12 = m[6]!, a13 = m[7]!;
  const a20 = m[8]!, a21 = m[9]!, a22 = m[10]!, a23 = m[11]!;
  const a30 = m[12]!, a31 = m[13]!, a32 = m[14]!, a33 = m[15]!;
  const b00 = a00 * a11 - a01 * a10, b01 = a00 * a12 - a02 * a10;
  const b02 = a00 * a13 - a03 * a10, b03 = a01 * a12 - a02 * a11;
  const b04 = a01 * a13 - a03 * a11, b05 = a02 * a13 - a03 * a12;
  const b06 = a20 * a31 - a21 * a30, b07 = a20 * a32 - a22 * a30;
  const b08 = a20 * a33 - a23 * a30, b09 = a21 * a32 - a22 * a31;
  const b10 = a21 * a33 - a23 * a31, b11 = a22 * a33 - a23 * a32;
  const det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
  const out = new Float64Array(16);
  if (!det || !Number.isFinite(det)) {
    out[0] = out[5] = out[10] = out[15] = 1;
    return out;
  }
  const d = 1 / det;
  out[0] = (a11 * b11 - a12 * b10 + a13 * b09) * d;
  out[1] = (a02 * b10 - a01 * b11 - a03 * b09) * d;
  out[2] = (a31 * b05 - a32 * b04 + a33 * b03) * d;
  out[3] = (a22 * b04 - a21 * b05 - a23 * b03) * d;
  out[4] = (a12 * b08 - a10 * b11 - a13 * b07) * d;
  out[5] = (a00 * b11 - a02 * b08 + a03 * b07) * d;
  out[6] = (a32 * b02 - a30 * b05 - a33 * b01) * d;
  out[7] = (a20 * b05 - a22 * b02 + a23 * b01) * d;
  out[8] = (a10 * b10 - a11 * b08 + a13 * b06) * d;
  out[9] = (a01 * b08 - a00 * b10 - a03 * b06) * d;
  out[10] = (a30 * b04 - a31 * b02 + a33 * b00) * d;
  out[11] = (a21 * b02 - a20 * b04 - a23 * b00) * d;
  out[12] = (a11 * b07 - a10 * b09 - a12 * b06) * d;
  out[13] = (a00 * b09 - a01 * b07 + a02 * b06) * d;
  out[14] = (a31 * b01 - a30 * b03 - a32 * b00) * d;
  out[15] = (a20 * b03 - a21 * b01 + a22 * b00) * d;
  return out;
}
