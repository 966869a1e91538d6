/**
 * Quaternion maths shared by the scene kernels (wasm/twoBone.ts, wasm/sceneContacts.ts): the
 * rotation of a matrix, a rotation matrix as a quaternion, the swing between two directions, slerp. Results in qx..qw (no multiple
 * returns); quaternions x, y, z, w; matrices column-major 4×4 (gl-matrix layout) at a byte
 * address. acos and sin are JavaScript's own Math functions, imported (one rounding everywhere).
 */
// @ts-ignore: decorator
@external("env", "acos") declare function jsAcos(x: f64): f64;
// @ts-ignore: decorator
@external("env", "sin") declare function jsSin(x: f64): f64;

/** The last result of the functions below. */
export let qx: f64 = 0, qy: f64 = 0, qz: f64 = 0, qw: f64 = 1;

@inline function M(m: usize, i: i32): f64 { return load<f64>(m + (<usize>i << 3)); }

/**
 * The rotation of the matrix at byte address m (into qx..qw): its columns orthonormalised
 * (Gram–Schmidt: scale and shear removed), the x column negated when the matrix is mirrored,
 * then Shepperd's four cases; identity when degenerate or not finite.
 */
export function rotationOfMatrixQ(m: usize): void {
  let x0 = M(m, 0), x1 = M(m, 1), x2 = M(m, 2);
  let y0 = M(m, 4), y1 = M(m, 5), y2 = M(m, 6);
  const z0 = M(m, 8), z1 = M(m, 9), z2 = M(m, 10);
  const d = x0 * (y1 * z2 - y2 * z1) - y0 * (x1 * z2 - x2 * z1) + z0 * (x1 * y2 - x2 * y1);
  if (d < 0) { x0 = -x0; x1 = -x1; x2 = -x2; }
  let l = x0 * x0 + x1 * x1 + x2 * x2;
  if (!(l > 1e-300) || !isFinite<f64>(l)) { qx = 0; qy = 0; qz = 0; qw = 1; return; }
  l = 1 / Math.sqrt(l);
  x0 *= l; x1 *= l; x2 *= l;
  const dp = y0 * x0 + y1 * x1 + y2 * x2;
  y0 -= dp * x0; y1 -= dp * x1; y2 -= dp * x2;
  l = y0 * y0 + y1 * y1 + y2 * y2;
  if (!(l > 1e-300)) { qx = 0; qy = 0; qz = 0; qw = 1; return; }
  l = 1 / Math.sqrt(l);
  y0 *= l; y1 *= l; y2 *= l;
  const m02 = x1 * y2 - x2 * y1, m12 = x2 * y0 - x0 * y2, m22 = x0 * y1 - x1 * y0;
  const tr = x0 + y1 + m22;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2, is = 1 / s;
    qw = 0.25 * s; qx = (y2 - m12) * is; qy = (m02 - x2) * is; qz = (x1 - y0) * is;
  } else if (x0 > y1 && x0 > m22) {
    const s = Math.sqrt(1 + x0 - y1 - m22) * 2, is = 1 / s;
    qw = (y2 - m12) * is; qx = 0.25 * s; qy = (y0 + x1) * is; qz = (m02 + x2) * is;
  } else if (y1 > m22) {
    const s = Math.sqrt(1 + y1 - x0 - m22) * 2, is = 1 / s;
    qw = (m02 - x2) * is; qx = (y0 + x1) * is; qy = 0.25 * s; qz = (m12 + y2) * is;
  } else {
    const s = Math.sqrt(1 + m22 - x0 - y1) * 2, is = 1 / s;
    qw = (x1 - y0) * is; qx = (m02 + x2) * is; qy = (m12 + y2) * is; qz = 0.25 * s;
  }
}

/** The shortest rotation taking direction a onto b (into qx..qw): identity for a zero vector, π about a perpendicular for opposite ones. */
export function swingQ(ax0: f64, ay0: f64, az0: f64, bx0: f64, by0: f64, bz0: f64): void {
  let ax = ax0, ay = ay0, az = az0, bx = bx0, by = by0, bz = bz0;
  const la = Math.sqrt(ax * ax + ay * ay + az * az);
  const lb = Math.sqrt(bx * bx + by * by + bz * bz);
  if (!(la > 1e-15) || !(lb > 1e-15)) { qx = 0; qy = 0; qz = 0; qw = 1; return; }
  ax /= la; ay /= la; az /= la;
  bx /= lb; by /= lb; bz /= lb;
  const d = ax * bx + ay * by + az * bz;
  if (d < -0.999999999) {
    let px: f64 = 0, py = -az, pz = ay;
    if (px * px + py * py + pz * pz < 1e-12) { px = az; py = 0; pz = -ax; }
    const lp = Math.sqrt(px * px + py * py + pz * pz);
    qx = px / lp; qy = py / lp; qz = pz / lp; qw = 0;
    return;
  }
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  const w = 1 + d;
  const l = Math.sqrt(cx * cx + cy * cy + cz * cz + w * w);
  qx = cx / l; qy = cy / l; qz = cz / l; qw = w / l;
}

/** Slerp of a toward b by f (the shorter way; linear above cos 0.9995), normalised (identity when it vanishes), into qx..qw. */
export function slerpQ(ax: f64, ay: f64, az: f64, aw: f64, bx0: f64, by0: f64, bz0: f64, bw0: f64, f: f64): void {
  let bx = bx0, by = by0, bz = bz0, bw = bw0;
  let cos = ax * bx + ay * by + az * bz + aw * bw;
  if (cos < 0) { cos = -cos; bx = -bx; by = -by; bz = -bz; bw = -bw; }
  let s0: f64, s1: f64;
  if (cos > 0.9995) {
    s0 = 1 - f; s1 = f;
  } else {
    const th = jsAcos(cos);
    const sin = Math.sqrt(1 - cos * cos);
    s0 = jsSin((1 - f) * th) / sin;
    s1 = jsSin(f * th) / sin;
  }
  let x = s0 * ax + s1 * bx, y = s0 * ay + s1 * by, z = s0 * az + s1 * bz, w = s0 * aw + s1 * bw;
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  if (l > 1e-15) { x /= l; y /= l; z /= l; w /= l; } else { x = 0; y = 0; z = 0; w = 1; }
  qx = x; qy = y; qz = z; qw = w;
}

/** The rotation matrix (rows r0., r1., r2.) as a quaternion (Shepperd's four cases), into qx..qw. */
export function shepperdQ(r00: f64, r01: f64, r02: f64, r10: f64, r11: f64, r12: f64, r20: f64, r21: f64, r22: f64): void {
  const tr = r00 + r11 + r22;
  if (tr > 0) {
    const S = Math.sqrt(tr + 1) * 2;
    qw = 0.25 * S; qx = (r21 - r12) / S; qy = (r02 - r20) / S; qz = (r10 - r01) / S;
  } else if (r00 > r11 && r00 > r22) {
    const S = Math.sqrt(1 + r00 - r11 - r22) * 2;
    qw = (r21 - r12) / S; qx = 0.25 * S; qy = (r01 + r10) / S; qz = (r02 + r20) / S;
  } else if (r11 > r22) {
    const S = Math.sqrt(1 + r11 - r00 - r22) * 2;
    qw = (r02 - r20) / S; qx = (r01 + r10) / S; qy = 0.25 * S; qz = (r12 + r21) / S;
  } else {
    const S = Math.sqrt(1 + r22 - r00 - r11) * 2;
    qw = (r10 - r01) / S; qx = (r02 + r20) / S; qy = (r12 + r21) / S; qz = 0.25 * S;
  }
}
