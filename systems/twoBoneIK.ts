/**
 * TwoBoneIK — solve every limb toward its request (SPEC §4, pipeline step 3).
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
 * exact under any affine parent. A weight of 0 (and no rotation request) leaves the bones
 * untouched; invalid input (non-finite target, zero-length bone at runtime) keeps the
 * animation and sets `invalid`. Units: world units. Never allocates or throws.
 */
import type { BitrigWorld } from '../core/world';
import { LIMB_ARM } from '../core/components/scene';
import { poseUpdateSubtree, type PoseStore } from '../core/pose';
import { TB, twoBoneKernel } from '../core/ik/twoBone';
import { det3, invertAffine, rotationOfMatrix, rotationToLocal, rotationToWorld, transformPoint } from '../core/ik/frames';
import { qConjMul, qMul, qMulConj, qNormalize, qRotate, qSlerp } from '../core/qmath';

const _io = new Float64Array(TB.SIZE);
const _Pi = new Float64Array(16);
const _q = new Float64Array(32);
const _v = new Float64Array(12);

/** out = R_top · … · R_bottom along the parent chain (local rotations). */
function pathRot(pose: PoseStore, top: number, bottom: number, out: Float64Array, o: number): void {
  const R = pose.localR;
  out[o] = R[bottom * 4]!; out[o + 1] = R[bottom * 4 + 1]!; out[o + 2] = R[bottom * 4 + 2]!; out[o + 3] = R[bottom * 4 + 3]!;
  if (bottom === top) return;
  let s = pose.parent[bottom]!;
  while (s >= 0 && s !== top) { qMul(out, o, R, s * 4, out, o); s = pose.parent[s]!; }
  if (s === top) qMul(out, o, R, top * 4, out, o);
}

/**
 * Solve every limb of the world.
 *
 * @example
 * twoBoneIK(world, 1 / 60);
 */
export function twoBoneIK(world: BitrigWorld, dt: number): void {
  void dt;
  const ents = world.queries.limbs.dense;
  for (let i = 0; i < ents.length; i++) solveLimb(world, ents[i]!);
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
  let ok = invertAffine(_Pi, 0, P, po);
  // Solve-space inputs.
  io[0] = pose.localT[rs * 3]!; io[1] = pose.localT[rs * 3 + 1]!; io[2] = pose.localT[rs * 3 + 2]!;
  _v[0] = wm[ms * 16 + 12]!; _v[1] = wm[ms * 16 + 13]!; _v[2] = wm[ms * 16 + 14]!;
  transformPoint(io, TB.B, _Pi, 0, _v, 0);
  if (child) { _v[3] = wm[es * 16 + 12]!; _v[4] = wm[es * 16 + 13]!; _v[5] = wm[es * 16 + 14]!; } else transformPoint(_v, 3, wm, ms * 16, L.tipLs, e * 3);
  const cwx = _v[3]!, cwy = _v[4]!, cwz = _v[5]!; // animated end (world)
  transformPoint(io, TB.C, _Pi, 0, _v, 3);
  transformPoint(io, TB.T, _Pi, 0, L.targetWs, e * 3);
  const hasPole = L.hasPole[e] === 1;
  if (hasPole) transformPoint(io, TB.P, _Pi, 0, L.poleWs, e * 3);
  io[15] = L.bendHintLs[e * 3]!; io[16] = L.bendHintLs[e * 3 + 1]!; io[17] = L.bendHintLs[e * 3 + 2]!;
  const tol = L.reachTolerance[e]!;
  ok = twoBoneKernel(io, w, L.soften[e]!, hasPole) && ok;
  if (!ok) {
    L.invalid[e] = 1; L.reached[e] = 0; L.missWs[e] = 0; L.missFullWs[e] = 0;
    if (isArm) { world.components.HandTarget.reposition[e] = 0; heldObject(world, e); }
    return;
  }
  if (!isArm) L.invalid[e] = 0;
  const needRot = wr > 0 || !child;
  let mirrored = false;
  if (needRot) { rotationOfMatrix(_q, 24, P, po); mirrored = det3(P, po) < 0; }
  // Q_pm (_q 0): orientation of the mid's parent in solve space; original root rotation (_q 4).
  const R = pose.localR;
  pathRot(pose, rs, pose.parent[ms]!, _q, 0);
  for (let k = 0; k < 4; k++) _q[4 + k] = R[rs * 4 + k]!;
  // End orientation in solve space before the solve (_q 12), and its parent's (_q 16).
  if (child) {
    qMul(_q, 16, _q, 0, R, ms * 4);
    const pe = pose.parent[es]!;
    if (pe !== ms) { pathRot(pose, ms, pe, _q, 20); qConjMul(_q, 20, R, ms * 4, _q, 20); qMul(_q, 16, _q, 16, _q, 20); }
    qMul(_q, 12, _q, 16, R, es * 4);
  } else {
    rotationOfMatrix(_q, 12, wm, es * 16);
    rotationToLocal(_q, 12, _q, 24, _q, 12, mirrored);
  }
  if (wr > 0) {
    rotationToLocal(_q, 20, _q, 24, L.targetRotWs, e * 4, mirrored);
    qNormalize(_q, 20);
    qSlerp(_q, 12, _q, 12, _q, 20, wr);
  }
  // Root: R_r' = rootDelta · R_r.
  qMul(R, rs * 4, io, TB.QR, _q, 4);
  qNormalize(R, rs * 4);
  // Mid: R_m' = Q_pm⁻¹ · midDelta · Q_pm · R_m.
  qMul(_q, 8, io, TB.QM, _q, 0);
  qConjMul(_q, 8, _q, 0, _q, 8);
  qMul(R, ms * 4, _q, 8, R, ms * 4);
  qNormalize(R, ms * 4);
  if (child) {
    // R_e' = (rootDelta · midDelta · Q_pe)⁻¹ · Q_final
    qMul(_q, 16, io, TB.QM, _q, 16);
    qMul(_q, 16, io, TB.QR, _q, 16);
    qConjMul(R, es * 4, _q, 16, _q, 12);
    qNormalize(R, es * 4);
    poseUpdateSubtree(pose, rs);
  } else {
    poseUpdateSubtree(pose, rs);
    // Place the end (an IK controller outside the chain) at the solved tip.
    transformPoint(_v, 6, P, po, io, TB.NC);
    rotationToWorld(_q, 12, _q, 24, _q, 12, mirrored);
    const pe = pose.parent[es]!;
    const Pe = pe >= 0 ? wm : pose.charRootWs;
    const peo = pe >= 0 ? pe * 16 : L.char[e]! * 16;
    invertAffine(_Pi, 0, Pe, peo);
    transformPoint(pose.localT, es * 3, _Pi, 0, _v, 6);
    rotationOfMatrix(_q, 20, Pe, peo);
    rotationToLocal(R, es * 4, _q, 20, _q, 12, det3(Pe, peo) < 0);
    qNormalize(R, es * 4);
    poseUpdateSubtree(pose, es);
  }
  // Outcome, in world units.
  let ax: number, ay: number, az: number;
  if (child) { ax = wm[es * 16 + 12]!; ay = wm[es * 16 + 13]!; az = wm[es * 16 + 14]!; } else {
    transformPoint(_v, 9, wm, ms * 16, L.tipLs, e * 3); ax = _v[9]!; ay = _v[10]!; az = _v[11]!;
  }
  const tx = L.targetWs[e * 3]!, ty = L.targetWs[e * 3 + 1]!, tz = L.targetWs[e * 3 + 2]!;
  const bx = cwx + w * (tx - cwx), by = cwy + w * (ty - cwy), bz = cwz + w * (tz - cwz);
  const miss = Math.sqrt((ax - bx) ** 2 + (ay - by) ** 2 + (az - bz) ** 2);
  L.missWs[e] = miss;
  L.missFullWs[e] = Math.sqrt((ax - tx) ** 2 + (ay - ty) ** 2 + (az - tz) ** 2);
  L.reached[e] = miss <= tol ? 1 : 0;
  L.extension[e] = io[TB.EXT]!;
  L.solved[e] = 1;
  if (isArm) {
    const H = world.components.HandTarget;
    // Out of reach at full weight: the character must be repositioned.
    const dx = io[TB.T]! - io[0]!, dy = io[TB.T + 1]! - io[1]!, dz = io[TB.T + 2]! - io[2]!;
    const reach = (io[TB.L1]! + io[TB.L2]!) * (1 - L.soften[e]!);
    H.reposition[e] = w > 0 && Math.sqrt(dx * dx + dy * dy + dz * dz) > reach + tol ? 1 : 0;
    heldObject(world, e);
  }
}
