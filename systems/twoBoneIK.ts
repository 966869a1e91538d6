/**
 * TwoBoneIK — solve every limb toward its request.
 *
 * Reads: per limb the request in the Limb component (legs: written by FootLock; arms: built
 * here from the HandTarget — a held object's wrist target is the desired object pose × the
 * inverse grip transform), the pose store (local TRS and world matrices, after PelvisHeight
 * moved the pelvis).
 * Writes: the local rotations of the root, mid and end bones (and, for IK-controller ends
 * that hang outside the chain, the end's local translation), the world matrices of the limb
 * subtree, and the outcome: `reached`, `missWs`, `missFullWs`, `extension`, `solved`,
 * `invalid`; for arms the held object's pose on the solved hand and the `reposition` flag.
 *
 * The solve runs in the limb root's parent-local frame (see core/ik/twoBone.ts), so it is
 * exact under any affine parent. Where world and local rotations do not compose (a sheared or
 * non-uniformly scaled parent, a non-uniform or negative scale on the chain) the end's rotation
 * is solved from its parent's new world matrix, so a rotation target (and, with none, the
 * animated orientation) is met in the convention of `rotationOfMatrix`: x axis exact, y axis in
 * the target's xy plane. Direct chains (mid a child of the root, end a child of the
 * mid: the usual leg and arm) take a fused straight-line path — the kernel inline, the parent
 * inverse shared by limbs with the same parent, the world matrices of the chain computed in one
 * pass and only the root's subtree (`Limb.subtreeEnd`) refreshed; other chains (bones between
 * the joints, IK-controller ends, a non-uniformly scaled root bone, whose analytic solve is then
 * refined by moving its target by the miss) take the step-by-step path. Both give the same pose
 * (test/scene/fastPath.test.ts). A weight of 0 (and no rotation request) leaves the bones
 * untouched; invalid input (non-finite target, zero-length bone at runtime) keeps the
 * animation and sets `invalid`. Units: world units. Never allocates or throws.
 *
 * With WebAssembly (`world.tailAccel.ik`, the Limb and HandTarget components and the pose store
 * in its memory) the fused path of most limbs runs in `wasm/twoBone.ts`, the same operations in
 * the same order, so every f64 is bit-identical (test/scene/ikWasm.test.ts): the kernel solves
 * the limb list in order (arms with their hand request and held object; two legs of a character
 * at a time) and stops at the first limb it leaves to JavaScript (step-by-step chains, a
 * mirroring or non-uniform scale on the chain, a non-conformal root parent), which
 * {@link solveOne} solves before the kernel goes on from the next.
 *
 * Runs over a range of the limbs (`from`, `count` into `world.queries.limbs.dense`; all by
 * default): limbs of different characters are independent, so a job system may split them
 * (a character's limbs together: two legs of one character are solved as a pair).
 */
import { limbStructureOk } from '../core/sceneGuard';
import type { BitrigWorld } from '../core/world';
import type { TwoBoneExports } from '../core/kernelTypes';

/** What the solve needs of a WebAssembly layout (`world.tailAccel`): the kernel and its limb list. */
interface IkKernel { ik: TwoBoneExports | null; ikList: Int32Array }
import { LIMB_ARM } from '../core/components/scene';
import type { PoseStore } from '../core/pose';
import { TB, twoBoneKernel, unitOfHuge } from '../core/ik/twoBone';
import { invertAffine, isConformal, isMirroredMatrix, localRotationForWorld, qSlerpAt, rotationOfMatrix, rotationToLocal, rotationToWorld, transformPoint } from '../core/ik/frames';
import { qConjMul, qMul, qMulConj, qRotate, qSwing } from '../core/qmath';
import { RS, reachSearchBegin, reachSearchNext } from '../core/ik/reachSearch';

const _io = new Float64Array(TB.SIZE);
const _f = new Float64Array(1); // a double handed to a helper (no boxed argument)
const _Pi = new Float64Array(16);
const _qP = new Float64Array(4);
const _q = new Float64Array(32);
const _v = new Float64Array(16);
const _v2 = new Float64Array(16);
const _Pm = new Float64Array(16); // the mid's new world matrix, for the end rotation solved from it
const _wr = new Float64Array(1); // endWantedWs's rotation weight
const _state = new Int32Array(4); // [cache valid, cached parent mirrored, cached parent slot, cached char]

/** out = R_top · … · R_bottom along the parent chain (local rotations). */
function pathRot(pose: PoseStore, top: number, bottom: number, out: Float64Array, o: number): void {
  const R = pose.localR;
  out[o] = R[bottom * 4]!; out[o + 1] = R[bottom * 4 + 1]!; out[o + 2] = R[bottom * 4 + 2]!; out[o + 3] = R[bottom * 4 + 3]!;
  if (bottom === top) return;
  let s = pose.parent[bottom]!;
  while (s >= 0 && s !== top) { qMul(out, o, R, s * 4, out, o); s = pose.parent[s]!; }
  if (s === top) qMul(out, o, R, top * 4, out, o);
}

function normalizeAt(q: Float64Array, o: number): void {
  const x = q[o]!, y = q[o + 1]!, z = q[o + 2]!, w = q[o + 3]!;
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  if (l > 1e-15) { const il = 1 / l; q[o] = x * il; q[o + 1] = y * il; q[o + 2] = z * il; q[o + 3] = w * il; } else { q[o] = 0; q[o + 1] = 0; q[o + 2] = 0; q[o + 3] = 1; }
}

/**
 * The end bone's wanted world rotation, written to `_q[24..27]`: its animated world rotation
 * (read from `wm` before the solve writes the end), slerped toward the limb's target by the
 * rotation weight in `_wr[0]` ∈ [0, 1].
 */
function endWantedWs(world: BitrigWorld, e: number): void {
  const L = world.components.Limb;
  const wr = _wr[0]!; // (a double argument would be boxed: an allocation per call)
  if (wr < 1) rotationOfMatrix(_q, 24, world.pose.worldM, L.endSlot[e]! * 16);
  if (wr > 0) {
    for (let k = 0; k < 4; k++) _q[28 + k] = L.targetRotWs[e * 4 + k]!;
    normalizeAt(_q, 28);
    if (wr === 1) { for (let k = 0; k < 4; k++) _q[24 + k] = _q[28 + k]!; } else { _f[0] = wr; qSlerpAt(_q, 24, _q, 24, _q, 28, _f, 0); }
  }
}

/**
 * Under a parent that is not conformal (a non-uniformly scaled or sheared frame), world and
 * local rotations do not compose, so the end's local rotation is solved from its parent's new
 * world matrix `P[po..]` to give exactly the wanted world rotation `_q[24..27]`
 * ({@link localRotationForWorld}; the convention of `rotationOfMatrix`). Keeps the rotation
 * already in `localR` when the parent is singular or the end has a zero scale.
 */
function endRotationSheared(pose: PoseStore, es: number, P: ArrayLike<number>, po: number): void {
  if (localRotationForWorld(_v2, 0, P, po, pose.localS, es * 3, _q, 24)) {
    for (let k = 0; k < 4; k++) pose.localR[es * 4 + k] = _v2[k]!;
  }
}

const _cq = new Float64Array(4); // conjugateByScale's result
const _M = new Float64Array(16); // a 3×3 in a column-major 4×4, for rotationOfMatrix

/** Rotation matrix of the unit quaternion q[o..o+3] into _M's columns (0–2, 4–6, 8–10). */
function rotToM(q: Float64Array, o: number): void {
  const x = q[o]!, y = q[o + 1]!, z = q[o + 2]!, w = q[o + 3]!;
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2, wx = w * x2, wy = w * y2, wz = w * z2;
  _M[0] = 1 - (yy + zz); _M[1] = xy + wz; _M[2] = xz - wy;
  _M[4] = xy - wz; _M[5] = 1 - (xx + zz); _M[6] = yz + wx;
  _M[8] = xz + wy; _M[9] = yz - wx; _M[10] = 1 - (xx + yy);
}

/**
 * `_cq` ← the rotation S⁻¹ · rot(`_cq`) · S for the diagonal scale S at Sc[so..] (a rotation in
 * a bone's parent frame seen from inside its scaled frame): exact when |S| is uniform
 * (mirroring signs included), the nearest rotation in rotationOfMatrix's convention otherwise.
 */
function conjugateByScale(Sc: Float64Array, so: number): void {
  const s0 = Sc[so]!, s1 = Sc[so + 1]!, s2 = Sc[so + 2]!;
  if (!(s0 !== 0 && s1 !== 0 && s2 !== 0)) return;
  rotToM(_cq, 0);
  // M_ij = G_ij · s_j / s_i, column-major: _M[j*4 + i]
  _M[1] *= s0 / s1; _M[2] *= s0 / s2;
  _M[4] *= s1 / s0; _M[6] *= s1 / s2;
  _M[8] *= s2 / s0; _M[9] *= s2 / s1;
  rotationOfMatrix(_cq, 0, _M, 0);
}

const _sv = new Float64Array(15); // solveLimb: the animated locals (root, mid, end rotations; end translation)
const _tgt = new Float64Array(3); // solveLimb: the target the solve reaches for (world)
const _search = new Float64Array(RS.SIZE); // solveLimb: the stretchy-limb reach search

/** True when every bone from the root `rs` down to `pm` has a scale of uniform magnitude (signs free: a mirror is exact). */
function pathUniformScale(pose: PoseStore, rs: number, pm: number): boolean {
  const S = pose.localS;
  for (let s = pm; s >= 0; s = pose.parent[s]!) {
    const x = Math.abs(S[s * 3]!), y = Math.abs(S[s * 3 + 1]!), z = Math.abs(S[s * 3 + 2]!);
    if (!(Math.abs(x - y) <= 1e-6 * x && Math.abs(x - z) <= 1e-6 * x)) return false;
    if (s === rs) return true;
  }
  return true;
}

/** True when every bone from the root `rs` down to `pm` (the mid's parent) has a uniform positive scale. */
function midFrameConformalPositive(pose: PoseStore, rs: number, pm: number): boolean {
  for (let s = pm; s >= 0; s = pose.parent[s]!) {
    if (!uniformPositive(pose.localS, s * 3)) return false;
    if (s === rs) return true;
  }
  return true;
}

/**
 * out = the rotation L⁻¹ · rot(q) · L, L the linear map from the frame of slot `pm` (world
 * matrix W at wo) to solve space (P⁻¹ · W, P the cached root parent `_Pi`): exact when L is
 * conformal, the nearest rotation (rotationOfMatrix) otherwise.
 */
function conjugateByFrame(out: Float64Array, o: number, q: Float64Array, qo: number, W: Float64Array, wo: number): void {
  rotToM(q, qo);
  // G = rot(q) in solve space (row r, column c: gRC)
  const g00 = _M[0]!, g10 = _M[1]!, g20 = _M[2]!, g01 = _M[4]!, g11 = _M[5]!, g21 = _M[6]!, g02 = _M[8]!, g12 = _M[9]!, g22 = _M[10]!;
  const Pi = _Pi;
  // L = Pi · W (linear parts; LRC = row R, column C)
  const L00 = Pi[0]! * W[wo]! + Pi[4]! * W[wo + 1]! + Pi[8]! * W[wo + 2]!;
  const L10 = Pi[1]! * W[wo]! + Pi[5]! * W[wo + 1]! + Pi[9]! * W[wo + 2]!;
  const L20 = Pi[2]! * W[wo]! + Pi[6]! * W[wo + 1]! + Pi[10]! * W[wo + 2]!;
  const L01 = Pi[0]! * W[wo + 4]! + Pi[4]! * W[wo + 5]! + Pi[8]! * W[wo + 6]!;
  const L11 = Pi[1]! * W[wo + 4]! + Pi[5]! * W[wo + 5]! + Pi[9]! * W[wo + 6]!;
  const L21 = Pi[2]! * W[wo + 4]! + Pi[6]! * W[wo + 5]! + Pi[10]! * W[wo + 6]!;
  const L02 = Pi[0]! * W[wo + 8]! + Pi[4]! * W[wo + 9]! + Pi[8]! * W[wo + 10]!;
  const L12 = Pi[1]! * W[wo + 8]! + Pi[5]! * W[wo + 9]! + Pi[9]! * W[wo + 10]!;
  const L22 = Pi[2]! * W[wo + 8]! + Pi[6]! * W[wo + 9]! + Pi[10]! * W[wo + 10]!;
  // L⁻¹ by cofactors
  const c00 = L11 * L22 - L12 * L21, c01 = L12 * L20 - L10 * L22, c02 = L10 * L21 - L11 * L20;
  const det = L00 * c00 + L01 * c01 + L02 * c02;
  if (!(Math.abs(det) > 1e-300) || !Number.isFinite(det)) { for (let k = 0; k < 4; k++) out[o + k] = q[qo + k]!; return; }
  const id = 1 / det;
  const i00 = c00 * id, i01 = (L02 * L21 - L01 * L22) * id, i02 = (L01 * L12 - L02 * L11) * id;
  const i10 = c01 * id, i11 = (L00 * L22 - L02 * L20) * id, i12 = (L02 * L10 - L00 * L12) * id;
  const i20 = c02 * id, i21 = (L01 * L20 - L00 * L21) * id, i22 = (L00 * L11 - L01 * L10) * id;
  // A = G · L
  const a00 = g00 * L00 + g01 * L10 + g02 * L20, a01 = g00 * L01 + g01 * L11 + g02 * L21, a02 = g00 * L02 + g01 * L12 + g02 * L22;
  const a10 = g10 * L00 + g11 * L10 + g12 * L20, a11 = g10 * L01 + g11 * L11 + g12 * L21, a12 = g10 * L02 + g11 * L12 + g12 * L22;
  const a20 = g20 * L00 + g21 * L10 + g22 * L20, a21 = g20 * L01 + g21 * L11 + g22 * L21, a22 = g20 * L02 + g21 * L12 + g22 * L22;
  // M = L⁻¹ · A, column-major into _M
  _M[0] = i00 * a00 + i01 * a10 + i02 * a20; _M[4] = i00 * a01 + i01 * a11 + i02 * a21; _M[8] = i00 * a02 + i01 * a12 + i02 * a22;
  _M[1] = i10 * a00 + i11 * a10 + i12 * a20; _M[5] = i10 * a01 + i11 * a11 + i12 * a21; _M[9] = i10 * a02 + i11 * a12 + i12 * a22;
  _M[2] = i20 * a00 + i21 * a10 + i22 * a20; _M[6] = i20 * a01 + i21 * a11 + i22 * a21; _M[10] = i20 * a02 + i21 * a12 + i22 * a22;
  rotationOfMatrix(out, o, _M, 0);
}

/** True when the scale at S[o..o+2] is uniform (within 1e-6 relative) and positive. */
function uniformPositive(S: Float64Array, o: number): boolean {
  const x = S[o]!, y = S[o + 1]!, z = S[o + 2]!;
  return x > 0 && Math.abs(x - y) <= 1e-6 * x && Math.abs(x - z) <= 1e-6 * x;
}

/** World matrix of one slot from its parent's (or the root frame) and its local TRS, fused. */
function worldOfSlot(pose: PoseStore, k: number): void {
  const p = pose.parent[k]!;
  const P = p >= 0 ? pose.worldM : pose.charRootWs;
  const po = p >= 0 ? p * 16 : pose.owner[k]! * 16;
  const R = pose.localR, T = pose.localT, Sc = pose.localS, W = pose.worldM;
  const x = R[k * 4]!, y = R[k * 4 + 1]!, z = R[k * 4 + 2]!, w = R[k * 4 + 3]!;
  const sx = Sc[k * 3]!, sy = Sc[k * 3 + 1]!, sz = Sc[k * 3 + 2]!;
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2, wx = w * x2, wy = w * y2, wz = w * z2;
  // local linear columns (scaled)
  const l00 = (1 - (yy + zz)) * sx, l01 = (xy + wz) * sx, l02 = (xz - wy) * sx;
  const l10 = (xy - wz) * sy, l11 = (1 - (xx + zz)) * sy, l12 = (yz + wx) * sy;
  const l20 = (xz + wy) * sz, l21 = (yz - wx) * sz, l22 = (1 - (xx + yy)) * sz;
  const tx = T[k * 3]!, ty = T[k * 3 + 1]!, tz = T[k * 3 + 2]!;
  const a00 = P[po]!, a01 = P[po + 1]!, a02 = P[po + 2]!;
  const a10 = P[po + 4]!, a11 = P[po + 5]!, a12 = P[po + 6]!;
  const a20 = P[po + 8]!, a21 = P[po + 9]!, a22 = P[po + 10]!;
  const o = k * 16;
  W[o] = a00 * l00 + a10 * l01 + a20 * l02; W[o + 1] = a01 * l00 + a11 * l01 + a21 * l02; W[o + 2] = a02 * l00 + a12 * l01 + a22 * l02; W[o + 3] = 0;
  W[o + 4] = a00 * l10 + a10 * l11 + a20 * l12; W[o + 5] = a01 * l10 + a11 * l11 + a21 * l12; W[o + 6] = a02 * l10 + a12 * l11 + a22 * l12; W[o + 7] = 0;
  W[o + 8] = a00 * l20 + a10 * l21 + a20 * l22; W[o + 9] = a01 * l20 + a11 * l21 + a21 * l22; W[o + 10] = a02 * l20 + a12 * l21 + a22 * l22; W[o + 11] = 0;
  W[o + 12] = a00 * tx + a10 * ty + a20 * tz + P[po + 12]!;
  W[o + 13] = a01 * tx + a11 * ty + a21 * tz + P[po + 13]!;
  W[o + 14] = a02 * tx + a12 * ty + a22 * tz + P[po + 14]!;
  W[o + 15] = 1;
}

/** Recompute the world matrices of `slot` and its descendants (same result as poseUpdateSubtree). */
function updateSubtree(pose: PoseStore, slot: number): void {
  const id = pose.owner[slot]!;
  if (id < 0) return;
  const end = pose.charStart[id]! + pose.charCount[id]!;
  const dirty = pose.dirty;
  worldOfSlot(pose, slot);
  dirty[slot] = 1;
  let last = slot;
  for (let k = slot + 1; k < end; k++) {
    const p = pose.parent[k]!;
    if (p >= 0 && dirty[p] === 1) { worldOfSlot(pose, k); dirty[k] = 1; last = k; }
  }
  for (let k = slot; k <= last; k++) dirty[k] = 0;
}

/**
 * Solve the limbs `[from, from + count)` of `world.queries.limbs.dense` (every one by default).
 *
 * @example
 * twoBoneIK(world, 1 / 60);
 */
export function twoBoneIK(world: BitrigWorld, dt: number, from = 0, count = 0x7fffffff): void {
  void dt;
  _state[0] = 0;
  // (the parent cache starts empty each call)
  _pcI[PC.VALID] = 0; _pcI[PC.OK] = 0; _pcI[PC.MIR] = 0; _pcI[PC.CONF] = 0; _pcI[PC.PAR] = -2; _pcI[PC.CHAR] = -1;
  _pc.fill(0); _pc[0] = 1; _pc[4] = 1; _pc[8] = 1; _pc[15] = 1;
  const ents = world.queries.limbs.dense;
  const lo = from > 0 ? from : 0;
  const hi = count < ents.length - lo ? lo + count : ents.length;
  const accel: IkKernel | null = world.tailAccel;
  if (accel !== null && accel.ik !== null && hi > lo) { solveWithKernel(world, accel, ents, lo, hi); return; }
  for (let i = lo; i < hi; i++) solveOne(world, ents[i]!);
}

/**
 * The limbs `ents` in order: runs of them in the WebAssembly kernel, each limb it leaves in
 * {@link solveOne}. The kernel and JavaScript keep their own parent caches; each starts afresh
 * after the other solved limbs (either may have moved a cached parent).
 */
function solveWithKernel(world: BitrigWorld, accel: IkKernel, ents: ArrayLike<number>, lo: number, hi: number): void {
  const list = accel.ikList, ik = accel.ik!;
  const n = hi - lo < list.length ? hi - lo : list.length;
  for (let i = 0; i < n; i++) list[i] = ents[lo + i]!;
  let i = 0;
  while (i < n) {
    let j: number;
    try {
      j = ik.twoBoneRun(i, n);
    } catch {
      // (a trap: the kernel checks every limb's slots against the layout first, so only a
      // corrupted pose store could cause one. The limbs before the one it stopped in are
      // solved; JavaScript solves that one — which may hold the kernel's partial writes — and
      // the rest, never throwing.)
      _pcI[PC.VALID] = 0;
      let at = ik.twoBoneAt();
      if (!(at >= i && at < n)) at = i;
      for (let k = at; k < n; k++) solveOne(world, list[k]!);
      break;
    }
    if (j >= n) break;
    if (j > i) _pcI[PC.VALID] = 0; // (the kernel's limbs may have moved the cached parent)
    solveOne(world, list[j]!);
    i = j + 1;
  }
  for (let k = lo + n; k < hi; k++) solveOne(world, ents[k]!); // (never: limbs are entities below the capacity)
}

/**
 * Cache of the limb root's parent matrix P across the limbs of one {@link twoBoneIK} call: its
 * inverse (`_pc[0..11]`: i00 i01 i02 i10 i11 i12 i20 i21 i22 i30 i31 i32), rotation
 * (`_pc[12..15]`) and flags (`_pcI`, {@link PC}), reused by the next limb with the same parent
 * (both legs hang from the pelvis). Dropped when a solved limb could contain the cached parent
 * (a solve only changes its own subtree). Module scope, not locals of one loop: each limb is
 * solved by a function of its own, called once per limb, which V8 optimises (and after a
 * deoptimisation re-optimises) within a few frames; a loop over every limb inside a function
 * called once a frame stayed unoptimised for tens of thousands of frames after a late
 * deoptimisation, boxing its numbers (2–8 KB a frame).
 */
const _pc = new Float64Array(16);
const _pcI = new Int32Array(6);
const PC = { VALID: 0, OK: 1, MIR: 2, CONF: 3, PAR: 4, CHAR: 5 } as const;

/** Solve limb `e` (the fused straight-line path, or the step-by-step one). */
function solveOne(world: BitrigWorld, e: number): void {
  const L = world.components.Limb;
  // (structure fields outside the world's arrays: left alone, not solved — core/sceneGuard.ts)
  if (!limbStructureOk(world, e)) { if (e >= 0 && e < world.capacity) { L.solved[e] = 0; L.invalid[e] = 1; } return; }
  const pose = world.pose;
  const wm = pose.worldM, R = pose.localR, T = pose.localT, Sc = pose.localS, parent = pose.parent, owner = pose.owner;
  const rootWs = pose.charRootWs;
  const io = _io;
  let cValid = _pcI[PC.VALID] === 1, cOk = _pcI[PC.OK] === 1, cMir = _pcI[PC.MIR] === 1, cConf = _pcI[PC.CONF] === 1;
  let cPar = _pcI[PC.PAR]!, cChar = _pcI[PC.CHAR]!;
  let i00 = _pc[0]!, i01 = _pc[1]!, i02 = _pc[2]!, i10 = _pc[3]!, i11 = _pc[4]!, i12 = _pc[5]!, i20 = _pc[6]!, i21 = _pc[7]!, i22 = _pc[8]!;
  let i30 = _pc[9]!, i31 = _pc[10]!, i32 = _pc[11]!;
  let qpx = _pc[12]!, qpy = _pc[13]!, qpz = _pc[14]!, qpw = _pc[15]!;
  {
    const rs = L.rootSlot[e]!, ms = L.midSlot[e]!, es = L.endSlot[e]!;
    if (L.endIsChild[e] !== 1 || parent[ms] !== rs || parent[es] !== ms || !pathUniformScale(pose, rs, rs)) {
      // General chains (bones between the joints, IK-controller ends, a non-uniformly scaled
      // root bone, whose solve is refined): the step-by-step path.
      _state[0] = 0;
      solveLimb(world, e);
      if (cPar >= rs && owner[cPar] === owner[rs]) _pcI[PC.VALID] = 0; // the cached parent moved with this limb
      return;
    }
    // ---- Direct chain root → mid → end: fused straight-line path (same maths as solveLimb).
    const isArm = L.kind[e] === LIMB_ARM;
    if (isArm) handRequest(world, e);
    let w = L.weight[e]!;
    if (!(w > 0)) w = 0; else if (w > 1) w = 1;
    let wr = L.rotWeight[e]!;
    if (!(wr > 0) || L.hasTargetRot[e] !== 1) wr = 0; else if (wr > 1) wr = 1;
    L.solved[e] = 0;
    if (w === 0 && wr === 0) {
      // Nothing asked: the animation stays exactly as it was.
      L.reached[e] = 1; L.missWs[e] = 0; L.missFullWs[e] = 0;
      if (isArm) { world.components.HandTarget.reposition[e] = 0; heldObject(world, e); }
      return;
    }
    const ch = L.char[e]!;
    const par = parent[rs]!;
    const P = par >= 0 ? wm : rootWs;
    const po = par >= 0 ? par * 16 : ch * 16;
    if (!(cValid && cPar === par && cChar === ch)) {
      const a00 = P[po]!, a01 = P[po + 1]!, a02 = P[po + 2]!;
      const a10 = P[po + 4]!, a11 = P[po + 5]!, a12 = P[po + 6]!;
      const a20 = P[po + 8]!, a21 = P[po + 9]!, a22 = P[po + 10]!;
      const ptx = P[po + 12]!, pty = P[po + 13]!, ptz = P[po + 14]!;
      const b01 = a22 * a11 - a12 * a21, b11 = -a22 * a10 + a12 * a20, b21 = a21 * a10 - a11 * a20;
      const det = a00 * b01 + a01 * b11 + a02 * b21;
      if (!(Math.abs(det) > 1e-300) || !Number.isFinite(det) || !Number.isFinite(ptx + pty + ptz)) {
        cOk = false;
        i00 = 1; i01 = 0; i02 = 0; i10 = 0; i11 = 1; i12 = 0; i20 = 0; i21 = 0; i22 = 1; i30 = 0; i31 = 0; i32 = 0;
      } else {
        cOk = true;
        const id = 1 / det;
        i00 = b01 * id; i01 = (-a22 * a01 + a02 * a21) * id; i02 = (a12 * a01 - a02 * a11) * id;
        i10 = b11 * id; i11 = (a22 * a00 - a02 * a20) * id; i12 = (-a12 * a00 + a02 * a10) * id;
        i20 = b21 * id; i21 = (-a21 * a00 + a01 * a20) * id; i22 = (a11 * a00 - a01 * a10) * id;
        i30 = -(i00 * ptx + i10 * pty + i20 * ptz);
        i31 = -(i01 * ptx + i11 * pty + i21 * ptz);
        i32 = -(i02 * ptx + i12 * pty + i22 * ptz);
      }
      rotationOfMatrix(_qP, 0, P, po);
      qpx = _qP[0]!; qpy = _qP[1]!; qpz = _qP[2]!; qpw = _qP[3]!;
      cMir = det < 0;
      cConf = isConformal(P, po);
      cValid = cOk; cPar = par; cChar = ch;
      _pcI[PC.VALID] = cValid ? 1 : 0; _pcI[PC.OK] = cOk ? 1 : 0; _pcI[PC.MIR] = cMir ? 1 : 0; _pcI[PC.CONF] = cConf ? 1 : 0;
      _pcI[PC.PAR] = cPar; _pcI[PC.CHAR] = cChar;
      _pc[0] = i00; _pc[1] = i01; _pc[2] = i02; _pc[3] = i10; _pc[4] = i11; _pc[5] = i12; _pc[6] = i20; _pc[7] = i21; _pc[8] = i22;
      _pc[9] = i30; _pc[10] = i31; _pc[11] = i32; _pc[12] = qpx; _pc[13] = qpy; _pc[14] = qpz; _pc[15] = qpw;
    }
    // Solve-space inputs (the root's parent frame): root A (its local translation), mid B,
    // end C, target, pole.
    const ax = T[rs * 3]!, ay = T[rs * 3 + 1]!, az = T[rs * 3 + 2]!;
    let x = wm[ms * 16 + 12]!, y = wm[ms * 16 + 13]!, z = wm[ms * 16 + 14]!;
    const bx = i00 * x + i10 * y + i20 * z + i30, by = i01 * x + i11 * y + i21 * z + i31, bz = i02 * x + i12 * y + i22 * z + i32;
    const cwx = wm[es * 16 + 12]!, cwy = wm[es * 16 + 13]!, cwz = wm[es * 16 + 14]!; // animated end (world)
    const cx = i00 * cwx + i10 * cwy + i20 * cwz + i30, cy = i01 * cwx + i11 * cwy + i21 * cwz + i31, cz = i02 * cwx + i12 * cwy + i22 * cwz + i32;
    const twx = L.targetWs[e * 3]!, twy = L.targetWs[e * 3 + 1]!, twz = L.targetWs[e * 3 + 2]!;
    const tx0 = i00 * twx + i10 * twy + i20 * twz + i30, ty0 = i01 * twx + i11 * twy + i21 * twz + i31, tz0 = i02 * twx + i12 * twy + i22 * twz + i32;
    // ---- The two-bone kernel (core/ik/twoBone.ts twoBoneKernel), inline: same operations.
    const v1x = bx - ax, v1y = by - ay, v1z = bz - az;
    const v2x = cx - bx, v2y = cy - by, v2z = cz - bz;
    const l1 = Math.sqrt(v1x * v1x + v1y * v1y + v1z * v1z);
    const l2 = Math.sqrt(v2x * v2x + v2y * v2y + v2z * v2z);
    const sum = ax + ay + az + cx + cy + cz + bx + by + bz + tx0 + ty0 + tz0;
    if (!Number.isFinite(sum) || !(l1 > 1e-12) || !(l2 > 1e-12) || !Number.isFinite(l1 + l2) || !cOk) {
      L.invalid[e] = 1; L.reached[e] = 0; L.missWs[e] = 0; L.missFullWs[e] = 0;
      if (isArm) { world.components.HandTarget.reposition[e] = 0; heldObject(world, e); }
      return;
    }
    const lmax = l1 + l2;
    const acx = cx - ax, acy = cy - ay, acz = cz - az;
    let QRx = 0, QRy = 0, QRz = 0, QRw = 1, QMx = 0, QMy = 0, QMz = 0, QMw = 1, ext: number;
    if (w === 0) ext = Math.sqrt(acx * acx + acy * acy + acz * acz) / lmax;
    else {
      const tx = cx + w * (tx0 - cx), ty = cy + w * (ty0 - cy), tz = cz + w * (tz0 - cz);
      const lmin = Math.abs(l1 - l2);
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
      // Softened reach (see the kernel).
      let De = D;
      let sf = L.soften[e]!;
      if (!(sf > 0)) sf = 0; else if (sf > 0.5) sf = 0.5;
      if (sf > 0 && De > lmax * (1 - sf)) {
        let da = lmax * (1 - sf);
        const dc = Math.sqrt(acx * acx + acy * acy + acz * acz);
        if (dc > da) da = dc < lmax ? dc : lmax;
        const sl = lmax - da;
        if (De > da) De = sl > 1e-12 * lmax ? da + sl * (1 - Math.exp(-(De - da) / sl)) : lmax;
      }
      if (De > lmax) De = lmax;
      if (De < lmin) De = lmin;
      // Hinge axis n of the current bend; a straight limb bends toward the hint.
      let nx = v1y * v2z - v1z * v2y, ny = v1z * v2x - v1x * v2z, nz = v1x * v2y - v1y * v2x;
      const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (nl > 1e-7 * l1 * l2) { nx /= nl; ny /= nl; nz /= nl; } else {
        const hx = L.bendHintLs[e * 3]!, hy = L.bendHintLs[e * 3 + 1]!, hz = L.bendHintLs[e * 3 + 2]!;
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
      }
      // Knee: interior angle now / wanted (law of cosines), midDelta from half-angle cosines.
      let c0 = -(v1x * v2x + v1y * v2y + v1z * v2z) / (l1 * l2);
      if (c0 > 1) c0 = 1; else if (c0 < -1) c0 = -1;
      let c1 = (l1 * l1 + l2 * l2 - De * De) / (2 * l1 * l2);
      if (c1 > 1) c1 = 1; else if (c1 < -1) c1 = -1;
      const ch0 = Math.sqrt(0.5 * (1 + c0)), sh0 = Math.sqrt(0.5 * (1 - c0));
      const ch1 = Math.sqrt(0.5 * (1 + c1)), sh1 = Math.sqrt(0.5 * (1 - c1));
      const sh = sh0 * ch1 - ch0 * sh1;
      QMx = nx * sh; QMy = ny * sh; QMz = nz * sh; QMw = ch0 * ch1 + sh0 * sh1;
      // Knee direction k̂ ⊥ û: toward the pole (default the animated knee); on the line, keep the hinge.
      let pvx: number, pvy: number, pvz: number;
      if (L.hasPole[e] === 1) {
        x = L.poleWs[e * 3]!; y = L.poleWs[e * 3 + 1]!; z = L.poleWs[e * 3 + 2]!;
        pvx = i00 * x + i10 * y + i20 * z + i30 - ax; pvy = i01 * x + i11 * y + i21 * z + i31 - ay; pvz = i02 * x + i12 * y + i22 * z + i32 - az;
      } else { pvx = v1x; pvy = v1y; pvz = v1z; }
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
      // Root angle → new upper-bone direction u1' and new hinge n' = k̂ × û.
      let cA = 0;
      if (De > 1e-12 * lmax) { cA = (l1 * l1 + De * De - l2 * l2) / (2 * l1 * De); if (cA > 1) cA = 1; else if (cA < -1) cA = -1; }
      const sA = Math.sqrt(1 - cA * cA);
      const ux = cA * dx + sA * kx, uy = cA * dy + sA * ky, uz = cA * dz + sA * kz;
      const mx = ky * dz - kz * dy, my = kz * dx - kx * dz, mz = kx * dy - ky * dx;
      // rootDelta: the rotation taking the frame (u1, n, u1 × n) onto (u1', n', u1' × n').
      const ax0 = u1y * nz - u1z * ny, ay0 = u1z * nx - u1x * nz, az0 = u1x * ny - u1y * nx;
      const bx1 = uy * mz - uz * my, by1 = uz * mx - ux * mz, bz1 = ux * my - uy * mx;
      const r00 = ux * u1x + mx * nx + bx1 * ax0, r01 = ux * u1y + mx * ny + bx1 * ay0, r02 = ux * u1z + mx * nz + bx1 * az0;
      const r10 = uy * u1x + my * nx + by1 * ax0, r11 = uy * u1y + my * ny + by1 * ay0, r12 = uy * u1z + my * nz + by1 * az0;
      const r20 = uz * u1x + mz * nx + bz1 * ax0, r21 = uz * u1y + mz * ny + bz1 * ay0, r22 = uz * u1z + mz * nz + bz1 * az0;
      const trc = r00 + r11 + r22;
      if (trc > 0) {
        const S = Math.sqrt(trc + 1) * 2;
        QRw = 0.25 * S; QRx = (r21 - r12) / S; QRy = (r02 - r20) / S; QRz = (r10 - r01) / S;
      } else if (r00 > r11 && r00 > r22) {
        const S = Math.sqrt(1 + r00 - r11 - r22) * 2;
        QRw = (r21 - r12) / S; QRx = 0.25 * S; QRy = (r01 + r10) / S; QRz = (r02 + r20) / S;
      } else if (r11 > r22) {
        const S = Math.sqrt(1 + r11 - r00 - r22) * 2;
        QRw = (r02 - r20) / S; QRx = (r01 + r10) / S; QRy = 0.25 * S; QRz = (r12 + r21) / S;
      } else {
        const S = Math.sqrt(1 + r22 - r00 - r11) * 2;
        QRw = (r10 - r01) / S; QRx = (r02 + r20) / S; QRy = (r12 + r21) / S; QRz = 0.25 * S;
      }
      const ql = 1 / Math.sqrt(QRx * QRx + QRy * QRy + QRz * QRz + QRw * QRw);
      QRx *= ql; QRy *= ql; QRz *= ql; QRw *= ql;
      ext = De / lmax;
    }
    if (isArm) {
      // what armOutcome reads (the kernel's buffer layout)
      io[0] = ax; io[1] = ay; io[2] = az; io[9] = tx0; io[10] = ty0; io[11] = tz0; io[TB.L1] = l1; io[TB.L2] = l2;
    }
    if (!isArm) L.invalid[e] = 0;
    // Local rotations: root qr, mid qm, end qe (solve space = the root's parent frame).
    const r4 = rs * 4, m4 = ms * 4, e4 = es * 4;
    const qrx = R[r4]!, qry = R[r4 + 1]!, qrz = R[r4 + 2]!, qrw = R[r4 + 3]!;
    const qmx = R[m4]!, qmy = R[m4 + 1]!, qmz = R[m4 + 2]!, qmw = R[m4 + 3]!;
    // End's parent orientation Q_pe = qr·qm; end orientation before the solve Qe = Q_pe·qe.
    const pex = qrx * qmw + qrw * qmx + qry * qmz - qrz * qmy;
    const pey = qry * qmw + qrw * qmy + qrz * qmx - qrx * qmz;
    const pez = qrz * qmw + qrw * qmz + qrx * qmy - qry * qmx;
    const pew = qrw * qmw - qrx * qmx - qry * qmy - qrz * qmz;
    let qex: number, qey: number, qez: number, qew: number;
    if (wr === 1) {
      // Full rotation weight: the target orientation replaces the animated one.
      const tr = L.targetRotWs;
      const bx = tr[e * 4]!, by = tr[e * 4 + 1]!, bz = tr[e * 4 + 2]!, bw = tr[e * 4 + 3]!;
      const lx = -qpx * bw + qpw * bx - qpy * bz + qpz * by;
      let ly = -qpy * bw + qpw * by - qpz * bx + qpx * bz;
      let lz = -qpz * bw + qpw * bz - qpx * by + qpy * bx;
      const lw = qpw * bw + qpx * bx + qpy * by + qpz * bz;
      if (cMir) { ly = -ly; lz = -lz; }
      const l = Math.sqrt(lx * lx + ly * ly + lz * lz + lw * lw);
      if (l > 1e-15) { const il = 1 / l; qex = lx * il; qey = ly * il; qez = lz * il; qew = lw * il; } else { qex = 0; qey = 0; qez = 0; qew = 1; }
    } else {
      const bx = R[e4]!, by = R[e4 + 1]!, bz = R[e4 + 2]!, bw = R[e4 + 3]!;
      qex = pex * bw + pew * bx + pey * bz - pez * by;
      qey = pey * bw + pew * by + pez * bx - pex * bz;
      qez = pez * bw + pew * bz + pex * by - pey * bx;
      qew = pew * bw - pex * bx - pey * by - pez * bz;
      if (wr > 0) {
        _q[12] = qex; _q[13] = qey; _q[14] = qez; _q[15] = qew;
        // the cached parent rotation (the step-by-step path may have overwritten _qP since)
        _qP[0] = qpx; _qP[1] = qpy; _qP[2] = qpz; _qP[3] = qpw;
        rotationToLocal(_q, 20, _qP, 0, L.targetRotWs, e * 4, cMir);
        normalizeAt(_q, 20);
        _f[0] = wr;
        qSlerpAt(_q, 12, _q, 12, _q, 20, _f, 0);
        qex = _q[12]!; qey = _q[13]!; qez = _q[14]!; qew = _q[15]!;
      }
    }
    // Root: R_r' = rootDelta · qr.
    R[r4] = QRx * qrw + QRw * qrx + QRy * qrz - QRz * qry;
    R[r4 + 1] = QRy * qrw + QRw * qry + QRz * qrx - QRx * qrz;
    R[r4 + 2] = QRz * qrw + QRw * qrz + QRx * qry - QRy * qrx;
    R[r4 + 3] = QRw * qrw - QRx * qrx - QRy * qry - QRz * qrz;
    // Mid: R_m' = qr⁻¹ · midDelta · qr · qm.
    const gx = QMx * qrw + QMw * qrx + QMy * qrz - QMz * qry;
    const gy = QMy * qrw + QMw * qry + QMz * qrx - QMx * qrz;
    const gz = QMz * qrw + QMw * qrz + QMx * qry - QMy * qrx;
    const gw = QMw * qrw - QMx * qrx - QMy * qry - QMz * qrz;
    let hx = -qrx * gw + qrw * gx - qry * gz + qrz * gy;
    let hy = -qry * gw + qrw * gy - qrz * gx + qrx * gz;
    let hz = -qrz * gw + qrw * gz - qrx * gy + qry * gx;
    let hw = qrw * gw + qrx * gx + qry * gy + qrz * gz;
    if (!uniformPositive(Sc, rs * 3)) {
      // The root bone's own scale sits between it and the mid: conjugate by it too (exact for
      // a mirroring scale; a non-uniform one has no exact rotation, and the miss is reported).
      _cq[0] = hx; _cq[1] = hy; _cq[2] = hz; _cq[3] = hw;
      conjugateByScale(Sc, rs * 3);
      hx = _cq[0]!; hy = _cq[1]!; hz = _cq[2]!; hw = _cq[3]!;
    }
    R[m4] = hx * qmw + hw * qmx + hy * qmz - hz * qmy;
    R[m4 + 1] = hy * qmw + hw * qmy + hz * qmx - hx * qmz;
    R[m4 + 2] = hz * qmw + hw * qmz + hx * qmy - hy * qmx;
    R[m4 + 3] = hw * qmw - hx * qmx - hy * qmy - hz * qmz;
    // End: R_e' = (rootDelta · midDelta · Q_pe)⁻¹ · Qe.
    const jx = QMx * pew + QMw * pex + QMy * pez - QMz * pey;
    const jy = QMy * pew + QMw * pey + QMz * pex - QMx * pez;
    const jz = QMz * pew + QMw * pez + QMx * pey - QMy * pex;
    const jw = QMw * pew - QMx * pex - QMy * pey - QMz * pez;
    const fx = QRx * jw + QRw * jx + QRy * jz - QRz * jy;
    const fy = QRy * jw + QRw * jy + QRz * jx - QRx * jz;
    const fz = QRz * jw + QRw * jz + QRx * jy - QRy * jx;
    const fw = QRw * jw - QRx * jx - QRy * jy - QRz * jz;
    R[e4] = -fx * qew + fw * qex - fy * qez + fz * qey;
    R[e4 + 1] = -fy * qew + fw * qey - fz * qex + fx * qez;
    R[e4 + 2] = -fz * qew + fw * qez - fx * qey + fy * qex;
    R[e4 + 3] = fw * qew + fx * qex + fy * qey + fz * qez;
    // The end's rotation above composes the solve-space rotations as if they were the world's:
    // exact when the root's parent is conformal (rotation, mirror, uniform scale), the root and
    // mid scales are uniform and positive, and the end's scale is positive. Else solve it from
    // the mid's new world matrix (below). Conformal within 1e-6: the composed rotation is then
    // within ~1e-6 rad, and float32-rounded rotations (an engine's bones) still count.
    const composes = cConf && uniformPositive(Sc, rs * 3) && uniformPositive(Sc, ms * 3) &&
      Sc[es * 3]! > 0 && Sc[es * 3 + 1]! > 0 && Sc[es * 3 + 2]! > 0;
    // World matrices of the chain, then of any other bone of the root's subtree (toes, twists),
    // in helpers of their own: this function keeps no loop (see _pc).
    _wr[0] = wr;
    chainWorlds(world, e, composes);
    const sEnd = L.subtreeEnd[e]!;
    if (sEnd > es + 1 || ms > rs + 1 || es > ms + 1) subtreeWorlds(pose, rs, ms, es, sEnd);
    if (cPar >= rs && owner[cPar] === owner[rs]) _pcI[PC.VALID] = 0; // the cached parent moved with this limb
    // Outcome, in world units.
    const ex = wm[es * 16 + 12]!, ey = wm[es * 16 + 13]!, ez = wm[es * 16 + 14]!;
    const ox = cwx + w * (twx - cwx) - ex, oy = cwy + w * (twy - cwy) - ey, oz = cwz + w * (twz - cwz) - ez;
    const miss = Math.sqrt(ox * ox + oy * oy + oz * oz);
    L.missWs[e] = miss;
    L.missFullWs[e] = Math.sqrt((ex - twx) * (ex - twx) + (ey - twy) * (ey - twy) + (ez - twz) * (ez - twz));
    L.reached[e] = miss <= L.reachTolerance[e]! ? 1 : 0;
    L.extension[e] = ext;
    L.solved[e] = 1;
    if (isArm) { _f[0] = w; armOutcome(world, e); }
  }
}

/**
 * World matrices of a solved direct chain: root, mid and end in turn (worldOfSlot: the root's
 * from its parent `P` at `po`, each next from the one just written). When world and local
 * rotations do not compose (`composes` false: a sheared or non-uniformly scaled frame, or a
 * negative scale on the chain), the end's local rotation is first solved from the mid's new
 * world matrix (as the step path always does; rotation weight in `_wr[0]`).
 */
function chainWorlds(world: BitrigWorld, e: number, composes: boolean): void {
  const L = world.components.Limb;
  const pose = world.pose;
  const rs = L.rootSlot[e]!, ms = L.midSlot[e]!, es = L.endSlot[e]!;
  worldOfSlot(pose, rs);
  worldOfSlot(pose, ms);
  if (!composes) {
    const wm = pose.worldM, o = ms * 16;
    for (let j = 0; j < 11; j++) _Pm[j] = wm[o + j]!;
    endWantedWs(world, e);
    endRotationSheared(pose, es, _Pm, 0);
  }
  worldOfSlot(pose, es);
}

/** World matrices of the other bones of a solved chain's subtree [rs, sEnd) (toes, twists, bones between the joints). */
function subtreeWorlds(pose: PoseStore, rs: number, ms: number, es: number, sEnd: number): void {
  const dirty = pose.dirty, parent = pose.parent;
  dirty[rs] = 1; dirty[ms] = 1; dirty[es] = 1;
  for (let k = rs + 1; k < sEnd; k++) {
    if (k === ms || k === es) continue;
    const p = parent[k]!;
    if (p >= 0 && dirty[p] === 1) { worldOfSlot(pose, k); dirty[k] = 1; }
  }
  for (let k = rs; k < sEnd; k++) dirty[k] = 0;
}

/** Arm outcome after a solve: the reposition flag and the held object on the solved hand. */
function armOutcome(world: BitrigWorld, e: number): void {
  const w = _f[0]!; // the position weight (passed in an array: no boxed double argument)
  const L = world.components.Limb;
  const H = world.components.HandTarget;
  const io = _io;
  // Out of reach at full weight: the character must be repositioned. The distances are in
  // solve space (the root's parent frame) and the tolerance in world units, so the excess is
  // measured in the world: along the target's direction through the parent's linear map.
  const dx = io[TB.T]! - io[0]!, dy = io[TB.T + 1]! - io[1]!, dz = io[TB.T + 2]! - io[2]!;
  const reach = (io[TB.L1]! + io[TB.L2]!) * (1 - L.soften[e]!);
  const dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
  let out = w > 0 && dist === Infinity; // (a target so far its distance overflows)
  if (w > 0 && dist > reach && dist < Infinity) {
    const pose = world.pose;
    const par = pose.parent[L.rootSlot[e]!]!;
    const P = par >= 0 ? pose.worldM : pose.charRootWs;
    const po = par >= 0 ? par * 16 : L.char[e]! * 16;
    const k = (dist - reach) / dist; // the excess, as a fraction of the target's offset
    const ex = (P[po]! * dx + P[po + 4]! * dy + P[po + 8]! * dz) * k;
    const ey = (P[po + 1]! * dx + P[po + 5]! * dy + P[po + 9]! * dz) * k;
    const ez = (P[po + 2]! * dx + P[po + 6]! * dy + P[po + 10]! * dz) * k;
    out = Math.sqrt(ex * ex + ey * ey + ez * ez) > L.reachTolerance[e]!;
  }
  H.reposition[e] = out ? 1 : 0;
  heldObject(world, e);
}

function handRequest(world: BitrigWorld, e: number): void {
  const L = world.components.Limb;
  const H = world.components.HandTarget;
  L.weight[e] = H.weight[e]!;
  L.rotWeight[e] = H.rotWeight[e]!;
  if (H.hasGrip[e] === 1) {
    // wrist = object × grip⁻¹: rot = objRot · gripRot⁻¹, pos = objPos − rot · gripPos
    qMulConj(L.targetRotWs, e * 4, H.rotWs, e * 4, H.gripRot, e * 4);
    qRotate(_v, 0, L.targetRotWs, e * 4, H.gripPos, e * 3);
    for (let k = 0; k < 3; k++) L.targetWs[e * 3 + k] = H.posWs[e * 3 + k]! - _v[k]!;
    L.hasTargetRot[e] = 1;
  } else {
    for (let k = 0; k < 3; k++) L.targetWs[e * 3 + k] = H.posWs[e * 3 + k]!;
    for (let k = 0; k < 4; k++) L.targetRotWs[e * 4 + k] = H.rotWs[e * 4 + k]!;
    L.hasTargetRot[e] = H.hasRot[e]!;
  }
  L.hasPole[e] = H.hasPole[e]!;
  for (let k = 0; k < 3; k++) L.poleWs[e * 3 + k] = H.poleWs[e * 3 + k]!;
}

function heldObject(world: BitrigWorld, e: number): void {
  const H = world.components.HandTarget;
  const L = world.components.Limb;
  const wm = world.pose.worldM;
  const eo = L.endSlot[e]! * 16;
  rotationOfMatrix(_q, 28, wm, eo);
  if (H.hasGrip[e] === 1) {
    qRotate(_v, 0, _q, 28, H.gripPos, e * 3);
    for (let k = 0; k < 3; k++) H.objectPosWs[e * 3 + k] = wm[eo + 12 + k]! + _v[k]!;
    qMul(H.objectRotWs, e * 4, _q, 28, H.gripRot, e * 4);
  } else {
    for (let k = 0; k < 3; k++) H.objectPosWs[e * 3 + k] = wm[eo + 12 + k]!;
    for (let k = 0; k < 4; k++) H.objectRotWs[e * 4 + k] = _q[28 + k]!;
  }
}

/**
 * Load the limb root's parent matrix P (slot `par`, or the root frame of `char` when -1): its
 * inverse and rotation, reused for the next limb with the same parent (both legs hang from the
 * pelvis). A solve only changes its own limb's bones, which come after its root in slot order;
 * the cache is dropped when a solved limb could contain the cached parent.
 */
function loadParent(P: Float64Array, po: number, par: number, char: number): boolean {
  if (_state[0] === 1 && _state[2] === par && _state[3] === char) return true;
  const ok = invertAffine(_Pi, 0, P, po);
  rotationOfMatrix(_qP, 0, P, po);
  _state[1] = isMirroredMatrix(P, po) ? 1 : 0;
  _state[0] = ok ? 1 : 0;
  _state[2] = par; _state[3] = char;
  return ok;
}

function solveLimb(world: BitrigWorld, e: number): void {
  const L = world.components.Limb;
  const pose = world.pose;
  const wm = pose.worldM;
  const isArm = L.kind[e] === LIMB_ARM;
  if (isArm) handRequest(world, e);
  let w = L.weight[e]!;
  if (!(w > 0)) w = 0; else if (w > 1) w = 1;
  let wr = L.rotWeight[e]!;
  if (!(wr > 0) || L.hasTargetRot[e] !== 1) wr = 0; else if (wr > 1) wr = 1;
  L.solved[e] = 0;
  if (w === 0 && wr === 0) {
    // Nothing asked: the animation stays exactly as it was.
    L.reached[e] = 1; L.missWs[e] = 0; L.missFullWs[e] = 0;
    if (isArm) { world.components.HandTarget.reposition[e] = 0; heldObject(world, e); }
    return;
  }
  const rs = L.rootSlot[e]!, ms = L.midSlot[e]!, es = L.endSlot[e]!;
  const child = L.endIsChild[e] === 1;
  const par = pose.parent[rs]!;
  const P = par >= 0 ? wm : pose.charRootWs;
  const po = par >= 0 ? par * 16 : L.char[e]! * 16;
  const io = _io;
  // The animated locals the solve changes (each search round restarts from them) and the
  // target the kernel reaches for (the search's points).
  const Rl = pose.localR, Tl = pose.localT;
  for (let k = 0; k < 4; k++) { _sv[k] = Rl[rs * 4 + k]!; _sv[4 + k] = Rl[ms * 4 + k]!; _sv[8 + k] = Rl[es * 4 + k]!; }
  for (let k = 0; k < 3; k++) { _sv[12 + k] = Tl[es * 3 + k]!; _tgt[k] = L.targetWs[e * 3 + k]!; }
  // A non-uniform scale between the root and the mid (a stretchy upper bone) makes the lower
  // bone's length in solve space depend on the elbow angle, so the analytic solve misses and
  // its model reach (l1 + l2) is not the arm's: the reach search (core/ik/reachSearch.ts) picks
  // the distances dd to ask the kernel for along the target's direction (weight 1, no soften),
  // each round measures the tip, and the chain then swings about the root onto the target's
  // direction.
  const refine = w > 0 && !pathUniformScale(pose, rs, pose.parent[ms]!);
  let cwx = 0, cwy = 0, cwz = 0; // animated end (world)
  let wk = w, sk = L.soften[e]!; // the kernel's weight and soften (search rounds: 1 and 0)
  let ux = 0, uy = 0, uz = 0; // the target's direction from the root (solve space)
  let searched = false;
  const rsS = _search;
  for (let round = 0; ; round++) {
    const okP = loadParent(P, po, par, L.char[e]!);
    const mirrored = _state[1] === 1;
    const Pi = _Pi;
    // Solve-space inputs: root (its local translation), mid, end, target, pole, hint.
    io[0] = pose.localT[rs * 3]!; io[1] = pose.localT[rs * 3 + 1]!; io[2] = pose.localT[rs * 3 + 2]!;
    transformPoint(io, 3, Pi, 0, wm, ms * 16 + 12);
    if (child) { cwx = wm[es * 16 + 12]!; cwy = wm[es * 16 + 13]!; cwz = wm[es * 16 + 14]!; transformPoint(io, 6, Pi, 0, wm, es * 16 + 12); } else {
      transformPoint(_v, 3, wm, ms * 16, L.tipLs, e * 3);
      cwx = _v[3]!; cwy = _v[4]!; cwz = _v[5]!;
      transformPoint(io, 6, Pi, 0, _v, 3);
    }
    transformPoint(io, 9, Pi, 0, _tgt, 0);
    const hasPole = L.hasPole[e] === 1;
    if (hasPole) transformPoint(io, 12, Pi, 0, L.poleWs, e * 3);
    io[15] = L.bendHintLs[e * 3]!; io[16] = L.bendHintLs[e * 3 + 1]!; io[17] = L.bendHintLs[e * 3 + 2]!;
    io[18] = wk; io[19] = sk; io[42] = hasPole ? 1 : 0;
    const ok = twoBoneKernel(io) && okP;
    if (!ok) {
      L.invalid[e] = 1; L.reached[e] = 0; L.missWs[e] = 0; L.missFullWs[e] = 0;
      if (isArm) { world.components.HandTarget.reposition[e] = 0; heldObject(world, e); }
      return;
    }
    if (!isArm) L.invalid[e] = 0;
    const R = pose.localR;
    // Q_pm (_q 0): orientation of the mid's parent in solve space; the original root rotation (_q 4).
    const pm = pose.parent[ms]!;
    if (pm === rs) { _q[0] = R[rs * 4]!; _q[1] = R[rs * 4 + 1]!; _q[2] = R[rs * 4 + 2]!; _q[3] = R[rs * 4 + 3]!; } else pathRot(pose, rs, pm, _q, 0);
    _q[4] = R[rs * 4]!; _q[5] = R[rs * 4 + 1]!; _q[6] = R[rs * 4 + 2]!; _q[7] = R[rs * 4 + 3]!;
    // End orientation in solve space before the solve (_q 12), and its parent's (_q 16).
    if (child) {
      qMul(_q, 16, _q, 0, R, ms * 4);
      const pe = pose.parent[es]!;
      if (pe !== ms) { pathRot(pose, ms, pe, _q, 20); qConjMul(_q, 20, R, ms * 4, _q, 20); qMul(_q, 16, _q, 16, _q, 20); }
      qMul(_q, 12, _q, 16, R, es * 4);
    } else {
      rotationOfMatrix(_q, 12, wm, es * 16);
      rotationToLocal(_q, 12, _qP, 0, _q, 12, mirrored);
    }
    if (wr > 0) {
      rotationToLocal(_q, 20, _qP, 0, L.targetRotWs, e * 4, mirrored);
      normalizeAt(_q, 20);
      if (wr === 1) { _q[12] = _q[20]!; _q[13] = _q[21]!; _q[14] = _q[22]!; _q[15] = _q[23]!; } else { _f[0] = wr; qSlerpAt(_q, 12, _q, 12, _q, 20, _f, 0); }
    }
    // Root: R_r' = rootDelta · R_r.
    qMul(R, rs * 4, io, TB.QR, _q, 4);
    // Mid: R_m' = L⁻¹ · midDelta · L · R_m, L the linear map from the mid's parent frame to solve
    // space (Q_pm when every bone between has a uniform positive scale).
    if (midFrameConformalPositive(pose, rs, pm)) {
      qMul(_q, 8, io, TB.QM, _q, 0);
      qConjMul(_q, 8, _q, 0, _q, 8);
    } else conjugateByFrame(_q, 8, io, TB.QM, wm, pm * 16);
    qMul(R, ms * 4, _q, 8, R, ms * 4);
    if (child) {
      // R_e' = (rootDelta · midDelta · Q_pe)⁻¹ · Q_final
      qMul(_q, 16, io, TB.QM, _q, 16);
      qMul(_q, 16, io, TB.QR, _q, 16);
      qConjMul(R, es * 4, _q, 16, _q, 12);
      _wr[0] = wr; endWantedWs(world, e); // read before the subtree update overwrites the end's world matrix
      updateSubtree(pose, rs);
      // The rotation above is exact only where world and local rotations compose (see the fused
      // path); this path is rare, so it always solves the end from its parent's new world matrix.
      endRotationSheared(pose, es, wm, pose.parent[es]! * 16);
      updateSubtree(pose, es);
    } else {
      updateSubtree(pose, rs);
      // Place the end (an IK controller outside the chain) at the solved tip.
      transformPoint(_v, 6, P, po, io, TB.NC);
      rotationToWorld(_q, 12, _qP, 0, _q, 12, mirrored);
      const pe = pose.parent[es]!;
      const Pe = pe >= 0 ? wm : pose.charRootWs;
      const peo = pe >= 0 ? pe * 16 : L.char[e]! * 16;
      invertAffine(_v2, 0, Pe, peo);
      transformPoint(pose.localT, es * 3, _v2, 0, _v, 6);
      // The end's wanted world rotation (_q 12), solved from its parent's world matrix: exact
      // under any parent and with any sign of the end's scale; the composed rotation is the
      // fallback for a singular parent.
      rotationOfMatrix(_q, 24, Pe, peo);
      rotationToLocal(R, es * 4, _q, 24, _q, 12, isMirroredMatrix(Pe, peo));
      normalizeAt(R, es * 4);
      for (let k = 0; k < 4; k++) _q[24 + k] = _q[12 + k]!;
      endRotationSheared(pose, es, Pe, peo);
      updateSubtree(pose, es);
    }
    if (_state[2] > rs && pose.owner[_state[2]]! === pose.owner[rs]!) _state[0] = 0;
    if (!refine) break;
    // The tip's distance r from the root A (io 0..2), in solve space.
    if (child) transformPoint(_v, 9, _Pi, 0, wm, es * 16 + 12); else { transformPoint(_v, 12, wm, ms * 16, L.tipLs, e * 3); transformPoint(_v, 9, _Pi, 0, _v, 12); }
    const vx = _v[9]! - io[0]!, vy = _v[10]! - io[1]!, vz = _v[11]! - io[2]!;
    const r = Math.sqrt(vx * vx + vy * vy + vz * vz);
    if (!Number.isFinite(r)) {
      // (no defined distance: back to the animated pose, the miss reported)
      for (let k = 0; k < 4; k++) { Rl[rs * 4 + k] = _sv[k]!; Rl[ms * 4 + k] = _sv[4 + k]!; Rl[es * 4 + k] = _sv[8 + k]!; }
      for (let k = 0; k < 3; k++) Tl[es * 3 + k] = _sv[12 + k]!;
      updateSubtree(pose, rs);
      if (!child) updateSubtree(pose, es);
      searched = false;
      break;
    }
    if (round === 0) {
      // After the analytic solve: the direction and distance of the blended target (the
      // kernel's), the animated end's distance, the kernel's folded and straight distances.
      let hx = io[TB.BT]! - io[0]!, hy = io[TB.BT + 1]! - io[1]!, hz = io[TB.BT + 2]! - io[2]!;
      let D = Math.sqrt(hx * hx + hy * hy + hz * hz);
      if (D === Infinity) { const dir = unitOfHuge(hx, hy, hz); hx = dir[0]!; hy = dir[1]!; hz = dir[2]!; D = Number.MAX_VALUE; } // (beyond 1e154: any reach is short of it)
      else if (!(D > 1e-12) || !Number.isFinite(D)) { hx = io[TB.NC]! - io[0]!; hy = io[TB.NC + 1]! - io[1]!; hz = io[TB.NC + 2]! - io[2]!; D = 0; }
      const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
      if (!(hl > 1e-12) || !Number.isFinite(hl)) break;
      ux = hx / hl; uy = hy / hl; uz = hz / hl;
      const cx = io[6]! - io[0]!, cy = io[7]! - io[1]!, cz = io[8]! - io[2]!;
      const lo = Math.abs(io[TB.L1]! - io[TB.L2]!), hi = io[TB.L1]! + io[TB.L2]!;
      if (!reachSearchBegin(rsS, lo, hi, D, Math.sqrt(cx * cx + cy * cy + cz * cz), L.soften[e]!, 1e-3 * L.reachTolerance[e]!)) break;
      searched = true;
    } else if (!reachSearchNext(rsS, r)) break;
    const dd = rsS[RS.DD]!;
    // Next: ask the kernel for the point at distance dd along the target's direction (weight 1, no soften).
    _v[12] = io[0]! + ux * dd; _v[13] = io[1]! + uy * dd; _v[14] = io[2]! + uz * dd;
    transformPoint(_tgt, 0, P, po, _v, 12);
    wk = 1; sk = 0;
    for (let k = 0; k < 4; k++) { Rl[rs * 4 + k] = _sv[k]!; Rl[ms * 4 + k] = _sv[4 + k]!; Rl[es * 4 + k] = _sv[8 + k]!; }
    for (let k = 0; k < 3; k++) Tl[es * 3 + k] = _sv[12 + k]!;
    updateSubtree(pose, rs);
    if (!child) updateSubtree(pose, es);
  }
  if (searched) {
    // Swing the whole chain about the root (its rotation in solve space) onto G's direction.
    if (child) transformPoint(_v, 9, _Pi, 0, wm, es * 16 + 12); else { transformPoint(_v, 12, wm, ms * 16, L.tipLs, e * 3); transformPoint(_v, 9, _Pi, 0, _v, 12); }
    _v[0] = _v[9]! - io[0]!; _v[1] = _v[10]! - io[1]!; _v[2] = _v[11]! - io[2]!;
    _v[3] = ux; _v[4] = uy; _v[5] = uz;
    const reach = Math.sqrt(_v[0]! * _v[0]! + _v[1]! * _v[1]! + _v[2]! * _v[2]!);
    qSwing(_cq, 0, _v, 0, _v, 3);
    qMul(Rl, rs * 4, _cq, 0, Rl, rs * 4);
    updateSubtree(pose, rs);
    if (child) { endRotationSheared(pose, es, wm, pose.parent[es]! * 16); updateSubtree(pose, es); }
    // the outcome measures against the real reach (armOutcome's reposition reads L1 + L2)
    const Lr = rsS[RS.LR]!;
    if (Lr > 0) { io[TB.L1] = Lr; io[TB.L2] = 0; }
    io[TB.EXT] = reach / (io[TB.L1]! + io[TB.L2]!);
  }
  if (refine) {
    transformPoint(io, 9, _Pi, 0, L.targetWs, e * 3); // (the arm outcome reads the real target)
    if (!child) {
      // The controller goes where the forearm's tip really is (the kernel's tip was the search's).
      transformPoint(_v, 6, wm, ms * 16, L.tipLs, e * 3);
      const pe = pose.parent[es]!;
      invertAffine(_v2, 0, pe >= 0 ? wm : pose.charRootWs, pe >= 0 ? pe * 16 : L.char[e]! * 16);
      transformPoint(Tl, es * 3, _v2, 0, _v, 6);
      // and keeps its wanted world rotation (_q 24) if the swing moved its parent
      endRotationSheared(pose, es, pe >= 0 ? wm : pose.charRootWs, pe >= 0 ? pe * 16 : L.char[e]! * 16);
      updateSubtree(pose, es);
    }
  }
  // Outcome, in world units.
  let ax: number, ay: number, az: number;
  if (child) { ax = wm[es * 16 + 12]!; ay = wm[es * 16 + 13]!; az = wm[es * 16 + 14]!; } else {
    transformPoint(_v, 9, wm, ms * 16, L.tipLs, e * 3); ax = _v[9]!; ay = _v[10]!; az = _v[11]!;
  }
  const tx = L.targetWs[e * 3]!, ty = L.targetWs[e * 3 + 1]!, tz = L.targetWs[e * 3 + 2]!;
  const bx = cwx + w * (tx - cwx) - ax, by = cwy + w * (ty - cwy) - ay, bz = cwz + w * (tz - cwz) - az;
  const miss = Math.sqrt(bx * bx + by * by + bz * bz);
  L.missWs[e] = miss;
  L.missFullWs[e] = Math.sqrt((ax - tx) * (ax - tx) + (ay - ty) * (ay - ty) + (az - tz) * (az - tz));
  L.reached[e] = miss <= L.reachTolerance[e]! ? 1 : 0;
  L.extension[e] = io[TB.EXT]!;
  L.solved[e] = 1;
  if (isArm) { _f[0] = w; armOutcome(world, e); }
}
