/**
 * Analytic two-bone IK: a root → mid → end chain (hip-knee-ankle, shoulder-
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
 * Method: the knee keeps its hinge axis n (normal of the current bend plane) and turns by the
 * change of its interior angle (law of cosines); the new knee lies toward the pole (default:
 * the animated knee, i.e. keep the clip's bend plane) and the root rotation is the one taking
 * the frame (upper bone, n) onto (new upper bone, new hinge). A straight limb bends its knee
 * toward the caller's bend hint; a pole on the root→target line keeps the current hinge. No
 * trigonometric calls: cosines, half-angle square roots and one matrix-to-quaternion.
 */
import type { PartialOptions } from '../defaults';
import { qMul } from '../qmath';
import { qSlerpAt } from './frames';

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
export function twoBoneOptions(user: PartialOptions<TwoBoneOptions> = {}): TwoBoneOptions {
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
  /** in: position weight (1) */ W: 18,
  /** in: softening fraction (1) */ SOFT: 19,
  /** in: 1 when the pole point is used (1) */ HASPOLE: 42,
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

const _huge = new Float64Array(3);
/**
 * Unit direction of a vector whose squared length overflows (components up to ±Infinity):
 * scaled by its largest component first. Returns a module scratch (read it at once).
 *
 * @example
 * const d = unitOfHuge(1e300, 0, 1e300); // [0.7071…, 0, 0.7071…]
 */
export function unitOfHuge(x: number, y: number, z: number): Float64Array {
  let m = Math.max(Math.abs(x), Math.abs(y), Math.abs(z));
  if (m === Infinity) { x = x === Infinity ? 1 : x === -Infinity ? -1 : 0; y = y === Infinity ? 1 : y === -Infinity ? -1 : 0; z = z === Infinity ? 1 : z === -Infinity ? -1 : 0; m = 1; }
  x /= m; y /= m; z /= m;
  const l = Math.sqrt(x * x + y * y + z * z);
  _huge[0] = x / l; _huge[1] = y / l; _huge[2] = z / l;
  return _huge;
}

/**
 * The flat two-bone kernel used by the systems (no objects, no allocation; scalars travel in
 * the buffer so nothing is boxed). Reads the inputs from `io` at the {@link TB} offsets
 * (positions, target, pole, hint, weight `TB.W`, softening `TB.SOFT`, `TB.HASPOLE`), writes
 * the outputs there. Returns false on invalid input (non-finite values, a zero-length bone);
 * the outputs are then identity rotations and the original positions, so applying them
 * changes nothing.
 *
 * @example
 * const io = new Float64Array(TB.SIZE);
 * // fill io[TB.A..], io[TB.B..], io[TB.C..], io[TB.T..]; io[TB.W] = 1
 * twoBoneKernel(io);
 */
export function twoBoneKernel(io: Float64Array): boolean {
  const weight = io[18]!, soften = io[19]!, hasPole = io[42] === 1;
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
  const acx = cx - ax, acy = cy - ay, acz = cz - az;
  if (w === 0) {
    const mx = cx - tx, my = cy - ty, mz = cz - tz;
    io[34] = Math.sqrt(mx * mx + my * my + mz * mz);
    io[35] = Math.sqrt(acx * acx + acy * acy + acz * acz) / lmax;
    return true;
  }
  const il1 = 1 / l1;
  const u1x = v1x * il1, u1y = v1y * il1, u1z = v1z * il1;
  // Direction root → target û (fallback: root → end, then the upper bone).
  let dx = tx - ax, dy = ty - ay, dz = tz - az;
  let D = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (D === Infinity) { const dir = unitOfHuge(dx, dy, dz); dx = dir[0]!; dy = dir[1]!; dz = dir[2]!; } // (a target beyond 1e154: the square overflowed)
  else if (D > 1e-12 * lmax) { const id = 1 / D; dx *= id; dy *= id; dz *= id; } else {
    D = 0;
    const l = Math.sqrt(acx * acx + acy * acy + acz * acz);
    if (l > 1e-12 * lmax) { dx = acx / l; dy = acy / l; dz = acz / l; } else { dx = u1x; dy = u1y; dz = u1z; }
  }
  // Softened reach: the soft band starts at (1 − soften) × length, or at the animated extension
  // if the clip already reaches further (a target the animation reaches is never softened).
  let De = D;
  let s = soften;
  if (!(s > 0)) s = 0; else if (s > 0.5) s = 0.5;
  if (s > 0 && De > lmax * (1 - s)) {
    let da = lmax * (1 - s);
    const dc = Math.sqrt(acx * acx + acy * acy + acz * acz);
    if (dc > da) da = dc < lmax ? dc : lmax;
    const sl = lmax - da;
    if (De > da) De = sl > 1e-12 * lmax ? da + sl * (1 - Math.exp(-(De - da) / sl)) : lmax;
  }
  if (De > lmax) De = lmax;
  if (De < lmin) De = lmin;
  // Hinge axis n of the current bend: (v1 × v2)/|…|; a straight limb bends its knee toward
  // the hint: n = k₀ × u1 with k₀ the hint ⊥ u1 (else any perpendicular).
  let nx = v1y * v2z - v1z * v2y, ny = v1z * v2x - v1x * v2z, nz = v1x * v2y - v1y * v2x;
  let nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (nl > 1e-7 * l1 * l2) { nx /= nl; ny /= nl; nz /= nl; } else {
    const hx = io[15]!, hy = io[16]!, hz = io[17]!;
    const hp = hx * u1x + hy * u1y + hz * u1z;
    let kx = hx - hp * u1x, ky = hy - hp * u1y, kz = hz - hp * u1z;
    let kl = Math.sqrt(kx * kx + ky * ky + kz * kz);
    if (!(kl > 1e-9) || !Number.isFinite(kl)) {
      const ux = Math.abs(u1x), uy = Math.abs(u1y), uz = Math.abs(u1z);
      kx = 0; ky = 0; kz = 0;
      if (ux <= uy && ux <= uz) kx = 1; else if (uy <= uz) ky = 1; else kz = 1;
      const kp = kx * u1x + ky * u1y + kz * u1z;
      kx -= kp * u1x; ky -= kp * u1y; kz -= kp * u1z;
      kl = Math.sqrt(kx * kx + ky * ky + kz * kz);
    }
    kx /= kl; ky /= kl; kz /= kl;
    nx = ky * u1z - kz * u1y; ny = kz * u1x - kx * u1z; nz = kx * u1y - ky * u1x;
    nl = 1;
  }
  // Knee: interior angle θ0 now, θ1 wanted (law of cosines); midDelta turns the lower bone
  // about n by θ0 − θ1, from half-angle cosines (no trigonometric calls).
  let c0 = -(v1x * v2x + v1y * v2y + v1z * v2z) / (l1 * l2);
  if (c0 > 1) c0 = 1; else if (c0 < -1) c0 = -1;
  let c1 = (l1 * l1 + l2 * l2 - De * De) / (2 * l1 * l2);
  if (c1 > 1) c1 = 1; else if (c1 < -1) c1 = -1;
  const ch0 = Math.sqrt(0.5 * (1 + c0)), sh0 = Math.sqrt(0.5 * (1 - c0));
  const ch1 = Math.sqrt(0.5 * (1 + c1)), sh1 = Math.sqrt(0.5 * (1 - c1));
  const sh = sh0 * ch1 - ch0 * sh1, chh = ch0 * ch1 + sh0 * sh1;
  io[24] = nx * sh; io[25] = ny * sh; io[26] = nz * sh; io[27] = chh;
  // Knee direction k̂ ⊥ û of the solution: toward the pole (default: the animated knee); when
  // the pole lies on the root→target line, keep the hinge: k̂ = û × n.
  let pvx: number, pvy: number, pvz: number;
  if (hasPole) { pvx = io[12]! - ax; pvy = io[13]! - ay; pvz = io[14]! - az; } else { pvx = v1x; pvy = v1y; pvz = v1z; }
  const pd = pvx * dx + pvy * dy + pvz * dz;
  let kx = pvx - pd * dx, ky = pvy - pd * dy, kz = pvz - pd * dz;
  let kl = Math.sqrt(kx * kx + ky * ky + kz * kz);
  const pv2 = pvx * pvx + pvy * pvy + pvz * pvz;
  if (!(kl * kl > 1e-14 * pv2) || !Number.isFinite(kl)) {
    kx = dy * nz - dz * ny; ky = dz * nx - dx * nz; kz = dx * ny - dy * nx;
    kl = Math.sqrt(kx * kx + ky * ky + kz * kz);
    if (!(kl > 1e-9)) {
      const ux = Math.abs(dx), uy = Math.abs(dy), uz = Math.abs(dz);
      kx = 0; ky = 0; kz = 0;
      if (ux <= uy && ux <= uz) kx = 1; else if (uy <= uz) ky = 1; else kz = 1;
      const kp = kx * dx + ky * dy + kz * dz;
      kx -= kp * dx; ky -= kp * dy; kz -= kp * dz;
      kl = Math.sqrt(kx * kx + ky * ky + kz * kz);
    }
  }
  kx /= kl; ky /= kl; kz /= kl;
  // Root angle (law of cosines) → the new upper-bone direction u1' and the new hinge n' = k̂ × û.
  let cA = 0;
  if (De > 1e-12 * lmax) { cA = (l1 * l1 + De * De - l2 * l2) / (2 * l1 * De); if (cA > 1) cA = 1; else if (cA < -1) cA = -1; }
  const sA = Math.sqrt(1 - cA * cA);
  const ux = cA * dx + sA * kx, uy = cA * dy + sA * ky, uz = cA * dz + sA * kz;
  const mx = ky * dz - kz * dy, my = kz * dx - kx * dz, mz = kx * dy - ky * dx; // n'
  // rootDelta: the rotation taking the frame (u1, n, u1 × n) onto (u1', n', u1' × n').
  const ax0 = u1y * nz - u1z * ny, ay0 = u1z * nx - u1x * nz, az0 = u1x * ny - u1y * nx;
  const bx1 = uy * mz - uz * my, by1 = uz * mx - ux * mz, bz1 = ux * my - uy * mx;
  const r00 = ux * u1x + mx * nx + bx1 * ax0, r01 = ux * u1y + mx * ny + bx1 * ay0, r02 = ux * u1z + mx * nz + bx1 * az0;
  const r10 = uy * u1x + my * nx + by1 * ax0, r11 = uy * u1y + my * ny + by1 * ay0, r12 = uy * u1z + my * nz + by1 * az0;
  const r20 = uz * u1x + mz * nx + bz1 * ax0, r21 = uz * u1y + mz * ny + bz1 * ay0, r22 = uz * u1z + mz * nz + bz1 * az0;
  // Matrix → quaternion (Shepperd; as qFromRotationRows, written out: a call with nine double
  // arguments that is not inlined boxes every one of them, i.e. allocates per solve).
  {
    let x: number, y: number, z: number, w: number;
    const tr = r00 + r11 + r22;
    if (tr > 0) {
      const S = Math.sqrt(tr + 1) * 2;
      w = 0.25 * S; x = (r21 - r12) / S; y = (r02 - r20) / S; z = (r10 - r01) / S;
    } else if (r00 > r11 && r00 > r22) {
      const S = Math.sqrt(1 + r00 - r11 - r22) * 2;
      w = (r21 - r12) / S; x = 0.25 * S; y = (r01 + r10) / S; z = (r02 + r20) / S;
    } else if (r11 > r22) {
      const S = Math.sqrt(1 + r11 - r00 - r22) * 2;
      w = (r02 - r20) / S; x = (r01 + r10) / S; y = 0.25 * S; z = (r12 + r21) / S;
    } else {
      const S = Math.sqrt(1 + r22 - r00 - r11) * 2;
      w = (r10 - r01) / S; x = (r02 + r20) / S; y = (r12 + r21) / S; z = 0.25 * S;
    }
    const l = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
    io[20] = x * l; io[21] = y * l; io[22] = z * l; io[23] = w * l;
  }
  // New positions.
  io[28] = ax + l1 * ux; io[29] = ay + l1 * uy; io[30] = az + l1 * uz;
  const ncx = ax + De * dx, ncy = ay + De * dy, ncz = az + De * dz;
  io[31] = ncx; io[32] = ncy; io[33] = ncz;
  const ex = ncx - tx, ey = ncy - ty, ez = ncz - tz;
  io[34] = Math.sqrt(ex * ex + ey * ey + ez * ez);
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
  io[18] = options.weight; io[19] = options.soften; io[42] = input.pole ? 1 : 0;
  const ok = twoBoneKernel(io);
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
      _q[4] = wr;
      qSlerpAt(out.endRotation, 0, out.endRotation, 0, _q, 0, _q, 4);
    }
  }
  return true;
}
