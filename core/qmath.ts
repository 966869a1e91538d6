/**
 * Small allocation-free quaternion/vector kernels on flat Float64Arrays with offsets, for the
 * per-frame path (gl-matrix works on whole arrays; these read/write at element offsets so
 * that systems can stay in their typed arrays). Quaternions are x, y, z, w.
 */

/** out[o..o+3] = a[ao..] · b[bo..] (Hamilton product). `out` may alias either input. */
export function qMul(out: Float64Array, o: number, a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): void {
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!, aw = a[ao + 3]!;
  const bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!, bw = b[bo + 3]!;
  out[o] = ax * bw + aw * bx + ay * bz - az * by;
  out[o + 1] = ay * bw + aw * by + az * bx - ax * bz;
  out[o + 2] = az * bw + aw * bz + ax * by - ay * bx;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out = conj(a) · b (= a⁻¹ b for unit a). */
export function qConjMul(out: Float64Array, o: number, a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): void {
  const ax = -a[ao]!, ay = -a[ao + 1]!, az = -a[ao + 2]!, aw = a[ao + 3]!;
  const bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!, bw = b[bo + 3]!;
  out[o] = ax * bw + aw * bx + ay * bz - az * by;
  out[o + 1] = ay * bw + aw * by + az * bx - ax * bz;
  out[o + 2] = az * bw + aw * bz + ax * by - ay * bx;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out = a · conj(b) (= a b⁻¹ for unit b). */
export function qMulConj(out: Float64Array, o: number, a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): void {
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!, aw = a[ao + 3]!;
  const bx = -b[bo]!, by = -b[bo + 1]!, bz = -b[bo + 2]!, bw = b[bo + 3]!;
  out[o] = ax * bw + aw * bx + ay * bz - az * by;
  out[o + 1] = ay * bw + aw * by + az * bx - ax * bz;
  out[o + 2] = az * bw + aw * bz + ax * by - ay * bx;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out[o..o+2] = rotate vector v[vo..] by unit quaternion q[qo..]. `out` may alias `v`. */
export function qRotate(out: Float64Array, o: number, q: ArrayLike<number>, qo: number, v: ArrayLike<number>, vo: number): void {
  const qx = q[qo]!, qy = q[qo + 1]!, qz = q[qo + 2]!, qw = q[qo + 3]!;
  const vx = v[vo]!, vy = v[vo + 1]!, vz = v[vo + 2]!;
  // t = 2 q.xyz × v ; v' = v + w t + q.xyz × t
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out[o] = vx + qw * tx + (qy * tz - qz * ty);
  out[o + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[o + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** out = rotate v by conj(q) (inverse rotation for unit q). */
export function qRotateInv(out: Float64Array, o: number, q: ArrayLike<number>, qo: number, v: ArrayLike<number>, vo: number): void {
  const qx = -q[qo]!, qy = -q[qo + 1]!, qz = -q[qo + 2]!, qw = q[qo + 3]!;
  const vx = v[vo]!, vy = v[vo + 1]!, vz = v[vo + 2]!;
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out[o] = vx + qw * tx + (qy * tz - qz * ty);
  out[o + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[o + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/**
 * Shortest-arc unit quaternion taking unit vector a onto unit vector b (`swing(a, b)`).
 * Opposite vectors turn π about an axis perpendicular to a. Non-unit input is normalised;
 * a zero vector gives identity.
 */
export function qSwing(out: Float64Array, o: number, a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): void {
  let ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!;
  let bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!;
  const la = Math.sqrt(ax * ax + ay * ay + az * az);
  const lb = Math.sqrt(bx * bx + by * by + bz * bz);
  if (!(la > 1e-15) || !(lb > 1e-15)) {
    out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1;
    return;
  }
  ax /= la; ay /= la; az /= la;
  bx /= lb; by /= lb; bz /= lb;
  const d = ax * bx + ay * by + az * bz;
  if (d < -0.999999999) {
    // π about any axis perpendicular to a.
    let px = 0, py = -az, pz = ay; // a × x̂
    if (px * px + py * py + pz * pz < 1e-12) { px = az; py = 0; pz = -ax; } // a × ŷ
    const lp = Math.sqrt(px * px + py * py + pz * pz);
    out[o] = px / lp; out[o + 1] = py / lp; out[o + 2] = pz / lp; out[o + 3] = 0;
    return;
  }
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  const w = 1 + d;
  const l = Math.sqrt(cx * cx + cy * cy + cz * cz + w * w);
  out[o] = cx / l; out[o + 1] = cy / l; out[o + 2] = cz / l; out[o + 3] = w / l;
}

/**
 * out = slerp(a, b, t) along the shorter arc. Falls back to normalised lerp for nearly equal
 * inputs. `out` may alias either input. (Per-frame callers that V8 may not inline should
 * prefer {@link qSlerpAt}: the double `t` is boxed when passed to a call.)
 *
 * @example
 * qSlerp(out, 0, qA, 0, qB, 0, 0.5);
 */
export function qSlerp(out: Float64Array, o: number, a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, t: number): void {
  _slerpT[0] = t;
  qSlerpAt(out, o, a, ao, b, bo, _slerpT, 0);
}
const _slerpT = new Float64Array(1);

/**
 * Slerp along the shorter arc, as {@link qSlerp}, with the fraction read from
 * `t[ti]`: a call that V8 does not inline boxes every double argument (a heap allocation per
 * call), while arrays and small-integer offsets pass free. Falls back to normalised lerp for
 * nearly equal inputs. `out` may alias either input.
 *
 * @example
 * _t[0] = w;
 * qSlerpAt(q, 0, qA, 0, qB, 0, _t, 0);
 */
export function qSlerpAt(out: Float64Array, o: number, a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, t: Float64Array, ti: number): void {
  const f = t[ti]!;
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!, aw = a[ao + 3]!;
  let bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!, bw = b[bo + 3]!;
  let cos = ax * bx + ay * by + az * bz + aw * bw;
  if (cos < 0) { cos = -cos; bx = -bx; by = -by; bz = -bz; bw = -bw; }
  let s0: number, s1: number;
  if (cos > 0.9995) {
    s0 = 1 - f; s1 = f;
  } else {
    const th = Math.acos(cos);
    const sin = Math.sqrt(1 - cos * cos);
    s0 = Math.sin((1 - f) * th) / sin;
    s1 = Math.sin(f * th) / sin;
  }
  let x = s0 * ax + s1 * bx, y = s0 * ay + s1 * by, z = s0 * az + s1 * bz, w = s0 * aw + s1 * bw;
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  if (l > 1e-15) { x /= l; y /= l; z /= l; w /= l; } else { x = 0; y = 0; z = 0; w = 1; }
  out[o] = x; out[o + 1] = y; out[o + 2] = z; out[o + 3] = w;
}

/** Rotation angle of a unit quaternion, θ = 2·acos(clamp(|w|, 0, 1)), in [0, π]. */
export function qAngle(q: ArrayLike<number>, o: number): number {
  let w = q[o + 3]!;
  if (w < 0) w = -w;
  if (w > 1) w = 1;
  return 2 * Math.acos(w);
}

/** Normalise q in place; a zero or non-finite quaternion becomes identity. */
export function qNormalize(q: Float64Array, o: number): void {
  const x = q[o]!, y = q[o + 1]!, z = q[o + 2]!, w = q[o + 3]!;
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  if (l > 1e-15 && Number.isFinite(l)) {
    q[o] = x / l; q[o + 1] = y / l; q[o + 2] = z / l; q[o + 3] = w / l;
  } else {
    q[o] = 0; q[o + 1] = 0; q[o + 2] = 0; q[o + 3] = 1;
  }
}

/** Quaternion of a rotation by `angle` radians about unit axis (ax, ay, az). */
export function qAxisAngle(out: Float64Array, o: number, ax: number, ay: number, az: number, angle: number): void {
  const h = angle * 0.5;
  const s = Math.sin(h);
  out[o] = ax * s; out[o + 1] = ay * s; out[o + 2] = az * s; out[o + 3] = Math.cos(h);
}

/**
 * {@link qSwing} for inputs already of unit length (one square root instead of three).
 */
export function qSwingUnit(out: Float64Array, o: number, a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): void {
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!;
  const bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!;
  const d = ax * bx + ay * by + az * bz;
  if (d < -0.999999999) {
    let px = 0, py = -az, pz = ay;
    if (py * py + pz * pz < 1e-12) { px = az; py = 0; pz = -ax; }
    const lp = Math.sqrt(px * px + py * py + pz * pz);
    out[o] = px / lp; out[o + 1] = py / lp; out[o + 2] = pz / lp; out[o + 3] = 0;
    return;
  }
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  const w = 1 + d;
  const l = Math.sqrt(cx * cx + cy * cy + cz * cz + w * w);
  out[o] = cx / l; out[o + 1] = cy / l; out[o + 2] = cz / l; out[o + 3] = w / l;
}

