/**
 * Analytic two-bone IK (SPEC §4): a root → mid → end chain (hip-knee-ankle, shoulder-
 * elbow-wrist) turned so the end reaches a target, with a pole (knee/elbow guide), separate
 * position and rotation weights, an end-effector orientation target, softening near full
 * extension and a `reached` flag.
 *
 * Everything happens in one "solve space" chosen by the caller: any frame in which the chain
 * is rigid (bone lengths constant). The runtime uses the limb root's parent-local frame, which
 * makes the result exact under translated, rotated, uniformly or non-uniformly scaled and
 * mirrored parents (positions are carried by the full affine parent, so the end lands on the
 * target in world space whatever the parent's scale).
 *
 * The solve only produces rotations: bone lengths are never changed, so an out-of-reach target
 * leaves the limb fully extended, pointing at the target, and reports the miss.
 *
 * Method: (1) change the knee angle about its current hinge axis (law of cosines), (2) aim the
 * chain at the target about the root, (3) twist about the root→target axis so the knee lies
 * toward the pole (default: the animated knee, i.e. keep the clip's bend plane). A straight
 * limb with no usable bend uses the caller's bend hint; colinear pole and target skip the
 * twist. No trigonometric calls: everything is cosines, square roots and shortest arcs.
 */
import { qMul, qSlerp, qSwing, qRotate } from '../qmath';

/** Options of {@link solveTwoBone}. */
export interface TwoBoneOptions {
  /** Position weight in [0, 1]: 0 leaves the chain exactly as animated, 1 reaches for the target. */
  weight: number;
  /** Rotation weight in [0, 1] for the end-effector orientation target (ignored without one). */
  rotationWeight: number;
  /** Softening band as a fraction of the chain length (0 = hard). Beyond `(1 − soften) × length` (or the animated extension, if larger) the reach approaches full extension smoothly instead of snapping straight. */
  soften: number;
  /** Distance (solve-space units) under which the end counts as having reached the target. */
  reachTolerance: number;
}

/** Defaults of {@link TwoBoneOptions}: full weights, hard reach, 1e-4 tolerance (0.1 mm in metres). */
export const TWO_BONE_DEFAULTS: Readonly<TwoBoneOptions> = Object.freeze({
  weight: 1,
  rotationWeight: 1,
  soften: 0,
  reachTolerance: 1e-4,
});

/**
 * Merge options over {@link TWO_BONE_DEFAULTS} and validate them. Setup-time; throws
 * `bitrig/ik: …` naming the bad field.
 *
 * @example
 * const opts = twoBoneOptions({ soften: 0.02 });
 */
export function twoBoneOptions(user: Partial<TwoBoneOptions> = {}): TwoBoneOptions {
  const o: TwoBoneOptions = { ...TWO_BONE_DEFAULTS };
  for (const k of Object.keys(user) as (keyof TwoBoneOptions)[]) if (user[k] !== undefined) o[k] = user[k]!;
  const in01 = (k: keyof TwoBoneOptions, hi = 1): void => {
    if (!(o[k] >= 0 && o[k] <= hi)) throw new Error(`bitrig/ik: option ${k} must be in [0, ${hi}], got ${String(o[k])}`);
  };
  in01('weight');
  in01('rotationWeight');
  in01('soften', 0.5);
  if (!(o.reachTolerance > 0 && Number.isFinite(o.reachTolerance))) throw new Error(`bitrig/ik: option reachTolerance must be a positive number, got ${String(o.reachTolerance)}`);
  return o;
}

/** Inputs of {@link solveTwoBone}, all in one solve space. */
export interface TwoBoneInput {
  /** Root joint position (hip, shoulder). */
  root: ArrayLike<number>;
  /** Mid joint position (knee, elbow). */
  mid: ArrayLike<number>;
  /** End joint position (ankle, wrist) as animated. */
  end: ArrayLike<number>;
  /** Target position for the end joint. */
  target: ArrayLike<number>;
  /** End-effector orientation target (x, y, z, w), or null/undefined for position only. */
  targetRotation?: ArrayLike<number> | null;
  /** A point the mid joint should bend toward; default: the animated mid joint (keep the clip's bend plane). */
  pole?: ArrayLike<number> | null;
  /** Direction the mid joint should point when the limb is straight (default: any perpendicular). */
  bendHint?: ArrayLike<number> | null;
  /** Current orientation of the root bone (solve space); default identity. */
  rootRotation?: ArrayLike<number> | null;
  /** Current orientation of the mid bone; default identity. */
  midRotation?: ArrayLike<number> | null;
  /** Current orientation of the end bone; default identity. */
  endRotation?: ArrayLike<number> | null;
}

/** Caller-owned outputs of {@link solveTwoBone} (create once with {@link createTwoBoneOutput}). */
export interface TwoBoneOutput {
  /** Rotation applied to the whole chain about the root: `root' = rootDelta · root`. */
  rootDelta: Float64Array;
  /** Rotation of the lower bone about the mid joint, in the original pose: `mid' = rootDelta · midDelta · mid`. */
  midDelta: Float64Array;
  /** New root orientation. */
  rootRotation: Float64Array;
  /** New mid orientation. */
  midRotation: Float64Array;
  /** New end orientation (slerp of the animated one toward the target by the rotation weight). */
  endRotation: Float64Array;
  /** New mid joint position. */
  midPosition: Float64Array;
  /** New end joint position. */
  endPosition: Float64Array;
  /** The target after the position weight (what the solve reached for). */
  blendedTarget: Float64Array;
  /** True when the end is within `reachTolerance` of the blended target. */
  reached: boolean;
  /** Distance from the end to the blended target (solve-space units). */
  miss: number;
  /** Root→end distance over the chain length after the solve (1 = fully extended). */
  extension: number;
}

/**
 * Allocate an output record (setup-time).
 *
 * @example
 * const out = createTwoBoneOutput();
 */
export function createTwoBoneOutput(): TwoBoneOutput {
  const q = (): Float64Array => Float64Array.of(0, 0, 0, 1);
  return {
    rootDelta: q(), midDelta: q(), rootRotation: q(), midRotation: q(), endRotation: q(),
    midPosition: new Float64Array(3), endPosition: new Float64Array(3), blendedTarget: new Float64Array(3),
    reached: false, miss: 0, extension: 0,
  };
}

/** Layout of the flat kernel's buffer ({@link twoBoneKernel}). */
export const TB = Object.freeze({
  /** in: root (3) */ A: 0,
  /** in: mid (3) */ B: 3,
  /** in: end (3) */ C: 6,
  /** in: target (3) */ T: 9,
  /** in: pole point (3), used when hasPole */ P: 12,
  /** in: bend hint direction (3) */ H: 15,
  /** out: rootDelta (4) */ QR: 20,
  /** out: midDelta (4) */ QM: 24,
  /** out: new mid (3) */ NB: 28,
  /** out: new end (3) */ NC: 31,
  /** out: miss (1) */ MISS: 34,
  /** out: extension (1) */ EXT: 35,
  /** out: upper length (1) */ L1: 36,
  /** out: lower length (1) */ L2: 37,
  /** out: blended target (3) */ BT: 38,
  /** scratch from here */ S: 44,
  /** total size */ SIZE: 64,
});

/**
 * The flat two-bone kernel used by the systems (no objects, no allocation). Reads the inputs
 * from `io` at the {@link TB} offsets, writes the outputs there. Returns false on invalid
 * input (non-finite values, a zero-length bone); the outputs are then identity rotations and
 * the original positions, so applying them changes nothing.
 *
 * @example
 * const io = new Float64Array(TB.SIZE);
 * // fill io[TB.A..], io[TB.B..], io[TB.C..], io[TB.T..]
 * twoBoneKernel(io, 1, 0, false);
 */
export function twoBoneKernel(io: Float64Array, weight: number, soften: number, hasPole: boolean): boolean {
  const ax = io[0]!, ay = io[1]!, az = io[2]!;
  const bx = io[3]!, by = io[4]!, bz = io[5]!;
  const cx = io[6]!, cy = io[7]!, cz = io[8]!;
  // identity outputs first (the invalid-input result)
  io[20] = 0; io[21] = 0; io[22] = 0; io[23] = 1;
  io[24] = 0; io[25] = 0; io[26] = 0; io[27] = 1;
  io[28] = bx; io[29] = by; io[30] = bz;
  io[31] = cx; io[32] = cy; io[33] = cz;
  io[34] = 0; io[35] = 0;
  const v1x = bx - ax, v1y = by - ay, v1z = bz - az;
  const v2x = cx - bx, v2y = cy - by, v2z = cz - bz;
  const l1 = Math.sqrt(v1x * v1x + v1y * v1y + v1z * v1z);
  const l2 = Math.sqrt(v2x * v2x + v2y * v2y + v2z * v2z);
  io[36] = l1; io[37] = l2;
  let w = weight;
  if (!(w > 0)) w = 0; else if (w > 1) w = 1;
  const tx0 = io[9]!, ty0 = io[10]!, tz0 = io[11]!;
  const sum = ax + ay + az + cx + cy + cz + bx + by + bz + tx0 + ty0 + tz0;
  if (!Number.isFinite(sum) || !(l1 > 1e-12) || !(l2 > 1e-12) || !Number.isFinite(l1 + l2)) {
    io[38] = cx; io[39] = cy; io[40] = cz;
    return false;
  }
  const tx = cx + w * (tx0 - cx), ty = cy + w * (ty0 - cy), tz = cz + w * (tz0 - cz);
  io[38] = tx; io[39] = ty; io[40] = tz;
  const lmax = l1 + l2;
  const lmin = Math.abs(l1 - l2);
  if (w === 0) {
    io[34] = Math.sqrt((cx - tx) ** 2 + (cy - ty) ** 2 + (cz - tz) ** 2);
    io[35] = Math.sqrt((cx - ax) ** 2 + (cy - ay) ** 2 + (cz - az) ** 2) / lmax;
    return true;
  }
  // Direction root → target (fallback: root → end, then the upper bone).
  let dx = tx - ax, dy = ty - ay, dz = tz - az;
  let D = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (D > 1e-12 * lmax) { dx /= D; dy /= D; dz /= D; } else {
    D = 0;
    dx = cx - ax; dy = cy - ay; dz = cz - az;
    let l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(l > 1e-12 * lmax)) { dx = v1x; dy = v1y; dz = v1z; l = l1; }
    dx /= l; dy /= l; dz /= l;
  }
  // Softened reach distance.
  let De = D;
  let s = soften;
  if (!(s > 0)) s = 0; else if (s > 0.5) s = 0.5;
  if (s > 0) {
    // The soft band starts at (1 − soften) × length, or at the animated extension if the clip
    // already reaches further: a target the animation already reaches is never softened.
    let da = lmax * (1 - s);
    const dc = Math.sqrt((cx - ax) ** 2 + (cy - ay) ** 2 + (cz - az) ** 2);
    if (dc > da) da = dc < lmax ? dc : lmax;
    const sl = lmax - da;
    if (De > da) De = sl > 1e-12 * lmax ? da + sl * (1 - Math.exp(-(De - da) / sl)) : lmax;
  }
  if (De > lmax) De = lmax;
  if (De < lmin) De = lmin;
  // Hinge plane at the knee: u1 along the upper bone, e toward the current bend.
  const u1x = v1x / l1, u1y = v1y / l1, u1z = v1z / l1;
  const p2 = v2x * u1x + v2y * u1y + v2z * u1z;
  let ex = v2x - p2 * u1x, ey = v2y - p2 * u1y, ez = v2z - p2 * u1z;
  let el = Math.sqrt(ex * ex + ey * ey + ez * ez);
  if (!(el > 1e-7 * l2)) {
    // Straight (or folded) limb: the mid joint goes toward the hint, so the lower bone turns
    // away from it (e = −hint ⊥ u1); without a hint, any perpendicular.
    const hx = io[15]!, hy = io[16]!, hz = io[17]!;
    const hp = hx * u1x + hy * u1y + hz * u1z;
    ex = hp * u1x - hx; ey = hp * u1y - hy; ez = hp * u1z - hz;
    el = Math.sqrt(ex * ex + ey * ey + ez * ez);
    if (!(el > 1e-9) || !Number.isFinite(el)) {
      // perpendicular from the axis with the smallest component of u1
      const axu = Math.abs(u1x), ayu = Math.abs(u1y), azu = Math.abs(u1z);
      let kx = 0, ky = 0, kz = 0;
      if (axu <= ayu && axu <= azu) kx = 1; else if (ayu <= azu) ky = 1; else kz = 1;
      const kp = kx * u1x + ky * u1y + kz * u1z;
      ex = kx - kp * u1x; ey = ky - kp * u1y; ez = kz - kp * u1z;
      el = Math.sqrt(ex * ex + ey * ey + ez * ez);
    }
  }
  ex /= el; ey /= el; ez /= el;
  // Law of cosines: interior knee angle θ with cos θ = (l1² + l2² − De²) / (2 l1 l2).
  let cosK = (l1 * l1 + l2 * l2 - De * De) / (2 * l1 * l2);
  if (cosK > 1) cosK = 1; else if (cosK < -1) cosK = -1;
  const sinK = Math.sqrt(1 - cosK * cosK);
  // New lower bone (original frame): l2 (−cos θ u1 + sin θ e).
  const nx = l2 * (-cosK * u1x + sinK * ex), ny = l2 * (-cosK * u1y + sinK * ey), nz = l2 * (-cosK * u1z + sinK * ez);
  const S = 44;
  io[S] = v2x; io[S + 1] = v2y; io[S + 2] = v2z;
  io[S + 3] = nx; io[S + 4] = ny; io[S + 5] = nz;
  qSwing(io, 24, io, S, io, S + 3); // midDelta
  // End after the knee change, relative to the root.
  const rx = v1x + nx, ry = v1y + ny, rz = v1z + nz;
  io[S] = rx; io[S + 1] = ry; io[S + 2] = rz;
  io[S + 3] = dx; io[S + 4] = dy; io[S + 5] = dz;
  qSwing(io, 20, io, S, io, S + 3); // aim
  // Twist about the root→target axis: put the knee toward the pole (default: animated knee).
  let pvx: number, pvy: number, pvz: number;
  if (hasPole) { pvx = io[12]! - ax; pvy = io[13]! - ay; pvz = io[14]! - az; } else { pvx = v1x; pvy = v1y; pvz = v1z; }
  if (Number.isFinite(pvx + pvy + pvz)) {
    io[S] = v1x; io[S + 1] = v1y; io[S + 2] = v1z;
    qRotate(io, S, io, 20, io, S); // knee after aim
    const kd = io[S]! * dx + io[S + 1]! * dy + io[S + 2]! * dz;
    const kx = io[S]! - kd * dx, ky = io[S + 1]! - kd * dy, kz = io[S + 2]! - kd * dz;
    const pd = pvx * dx + pvy * dy + pvz * dz;
    const px = pvx - pd * dx, py = pvy - pd * dy, pz = pvz - pd * dz;
    const kl = kx * kx + ky * ky + kz * kz, pl = px * px + py * py + pz * pz;
    const pv2 = pvx * pvx + pvy * pvy + pvz * pvz;
    // Skip when the knee or the pole lies (numerically) on the root→target axis: colinear
    // pole and target leave the minimal-arc result, which is defined.
    if (kl > 1e-14 * l1 * l1 && pv2 > 0 && pl > 1e-14 * pv2) {
      io[S] = kx; io[S + 1] = ky; io[S + 2] = kz;
      io[S + 3] = px; io[S + 4] = py; io[S + 5] = pz;
      qSwing(io, S + 6, io, S, io, S + 3);
      qMul(io, 20, io, S + 6, io, 20);
    }
  }
  // New positions.
  io[S] = v1x; io[S + 1] = v1y; io[S + 2] = v1z;
  qRotate(io, S, io, 20, io, S);
  io[28] = ax + io[S]!; io[29] = ay + io[S + 1]!; io[30] = az + io[S + 2]!;
  io[S] = rx; io[S + 1] = ry; io[S + 2] = rz;
  qRotate(io, S, io, 20, io, S);
  const ncx = ax + io[S]!, ncy = ay + io[S + 1]!, ncz = az + io[S + 2]!;
  io[31] = ncx; io[32] = ncy; io[33] = ncz;
  io[34] = Math.sqrt((ncx - tx) ** 2 + (ncy - ty) ** 2 + (ncz - tz) ** 2);
  io[35] = De / lmax;
  return true;
}

const _io = new Float64Array(TB.SIZE);
const _q = new Float64Array(8);

function setQ(out: Float64Array, q: ArrayLike<number> | null | undefined): void {
  if (q) { out[0] = q[0]!; out[1] = q[1]!; out[2] = q[2]!; out[3] = q[3]!; } else { out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 1; }
}

/**
 * Solve a two-bone chain toward a target (see the module header). Writes `out`; never
 * allocates. Returns false on invalid input (non-finite positions or target, a zero-length
 * bone): `out` then holds identity deltas and the unchanged pose, `reached` is false.
 *
 * @example
 * const out = createTwoBoneOutput();
 * solveTwoBone({ root: [0, 1, 0], mid: [0, 0.5, 0.05], end: [0, 0, 0], target: [0.2, 0.1, 0.3] }, out);
 * // out.rootDelta, out.midDelta: rotations to apply; out.reached, out.miss
 */
export function solveTwoBone(input: TwoBoneInput, out: TwoBoneOutput, options: Readonly<TwoBoneOptions> = TWO_BONE_DEFAULTS): boolean {
  const io = _io;
  for (let i = 0; i < 3; i++) {
    io[i] = input.root[i]!; io[3 + i] = input.mid[i]!; io[6 + i] = input.end[i]!; io[9 + i] = input.target[i]!;
    io[12 + i] = input.pole ? input.pole[i]! : 0;
    io[15 + i] = input.bendHint ? input.bendHint[i]! : 0;
  }
  const ok = twoBoneKernel(io, options.weight, options.soften, !!input.pole);
  for (let i = 0; i < 4; i++) { out.rootDelta[i] = io[20 + i]!; out.midDelta[i] = io[24 + i]!; }
  for (let i = 0; i < 3; i++) { out.midPosition[i] = io[28 + i]!; out.endPosition[i] = io[31 + i]!; out.blendedTarget[i] = io[38 + i]!; }
  out.miss = io[34]!;
  out.extension = io[35]!;
  setQ(out.rootRotation, input.rootRotation);
  setQ(out.midRotation, input.midRotation);
  setQ(out.endRotation, input.endRotation);
  if (!ok) { out.reached = false; return false; }
  out.reached = out.miss <= options.reachTolerance;
  qMul(out.midRotation, 0, out.midDelta, 0, out.midRotation, 0);
  qMul(out.midRotation, 0, out.rootDelta, 0, out.midRotation, 0);
  qMul(out.rootRotation, 0, out.rootDelta, 0, out.rootRotation, 0);
  // End orientation: the animated one (kept in solve space), turned toward the target.
  const tr = input.targetRotation;
  let wr = options.rotationWeight;
  if (!(wr > 0)) wr = 0; else if (wr > 1) wr = 1;
  if (tr && wr > 0 && Number.isFinite(tr[0]! + tr[1]! + tr[2]! + tr[3]!)) {
    const l = Math.hypot(tr[0]!, tr[1]!, tr[2]!, tr[3]!);
    if (l > 1e-12) {
      _q[0] = tr[0]! / l; _q[1] = tr[1]! / l; _q[2] = tr[2]! / l; _q[3] = tr[3]! / l;
      qSlerp(out.endRotation, 0, out.endRotation, 0, _q, 0, wr);
    }
  }
  return true;
}
