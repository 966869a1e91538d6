// AssemblyScript source of the WebAssembly scene two-bone IK (`npm run build:wasm` compiles it
// into runtime/wasm/twoBoneWasm.ts; test/build/kernelsCurrent.test.ts checks the compile is current).
//
// TwoBoneIK, written once: systems/twoBoneIK.ts is a thin wrapper that fills the limb list and
// calls {@link twoBoneRun}, which solves every limb of it in order. exp, acos and sin are
// JavaScript's own Math functions, imported (one rounding everywhere).
// Three paths, the same maths: two consecutive legs of one character (same root parent, disjoint
// subtrees) run together, one per f64x2 lane (`solvePair`: both asked for a position, rotation
// weight 0 or 1, no rare branch); a direct chain (mid a child of the root, end a child of the mid)
// under a conformal root parent with uniform positive scales runs fused, in registers
// (`solveLeg`); any other limb runs step by step through the flat two-bone record (`solveLimb`:
// bones between the joints, IK-controller ends, mirrored, sheared or non-uniformly scaled frames,
// a stretchy upper bone's reach search). A limb whose slots, subtree end or character lie outside
// the layout is not solved: `solved` 0, `invalid` 1 (nothing else read or written; never a trap).
// The root parents of two characters load together, one per lane (`loadParentsAhead`), and a
// pair's three world matrices per leg are chained level by level (`chainWorlds2`).
//
// Reads (byte offsets from `setIkPointers`): the pose store's parent, owner, localT, localR,
// localS, worldM, charRootWs; the Limb request (char, kind, slots, endIsChild, subtreeEnd,
// bendHintLs, soften, reachTolerance, weight, rotWeight, targetWs, targetRotWs, hasTargetRot,
// poleWs, hasPole), the arms' HandTarget inputs and the limb list (i32 entity ids). Writes:
// localR of root, mid and end (an IK-controller end's localT), the world matrices of the root's
// subtree (pose `dirty` as scratch, left 0), the Limb outcome (reached, missWs, missFullWs, extension, solved, invalid),
// an arm's request fields and HandTarget outputs (objectPosWs, objectRotWs, reposition). Spaces: `Ws` world, solve space =
// the limb root's parent frame (`Ps`); units: world units, radians.

// JavaScript's Math functions: an AssemblyScript implementation would round differently.
// @ts-ignore: decorator
@external("env", "exp") declare function jsExp(x: f64): f64;

import { L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12, L13, L14, L15, St0, St1, St2, St3, St4, St5, St6, St7, St8, St9, St10, St11, St12, St13, St14, St15 } from './lanes';
import { qx, qy, qz, qw, rotationOfMatrixQ, shepperdQ, slerpQ, swingQ } from './quatMath';

const LIMB_ARM: i32 = 1; // = LIMB_ARM in core/components/scene.ts

let pParent: usize = 0, pOwner: usize = 0, pLocalT: usize = 0, pLocalR: usize = 0, pLocalS: usize = 0, pWorldM: usize = 0;
let pRootWs: usize = 0, pDirty: usize = 0;
let pChar: usize = 0, pKind: usize = 0, pRootSlot: usize = 0, pMidSlot: usize = 0, pEndSlot: usize = 0, pEndIsChild: usize = 0;
let pSubtreeEnd: usize = 0, pBendHint: usize = 0, pSoften: usize = 0, pReachTol: usize = 0, pWeight: usize = 0, pRotWeight: usize = 0;
let pTargetWs: usize = 0, pTargetRotWs: usize = 0, pHasTargetRot: usize = 0, pPoleWs: usize = 0, pHasPole: usize = 0;
let pReached: usize = 0, pMissWs: usize = 0, pMissFullWs: usize = 0, pExtension: usize = 0, pSolved: usize = 0, pInvalid: usize = 0;
let pList: usize = 0, pTipLs: usize = 0, pCharStart: usize = 0, pCharCount: usize = 0;
let hPosWs: usize = 0, hRotWs: usize = 0, hHasRot: usize = 0, hWeight: usize = 0, hRotWeight: usize = 0, hPoleWs: usize = 0, hHasPole: usize = 0;
let hGripPos: usize = 0, hGripRot: usize = 0, hHasGrip: usize = 0, hObjectPosWs: usize = 0, hObjectRotWs: usize = 0, hReposition: usize = 0;

/** Byte offsets of the arrays the solve reads and writes (setup, after every re-layout). */
export function setIkPointers(
  parent: usize, owner: usize, localT: usize, localR: usize, localS: usize, worldM: usize, rootWs: usize, dirty: usize,
  char: usize, kind: usize, rootSlot: usize, midSlot: usize, endSlot: usize, endIsChild: usize, subtreeEnd: usize,
  bendHint: usize, soften: usize, reachTol: usize, weight: usize, rotWeight: usize, targetWs: usize, targetRotWs: usize,
  hasTargetRot: usize, poleWs: usize, hasPole: usize, reached: usize, missWs: usize, missFullWs: usize, extension: usize,
  solved: usize, invalid: usize,
  posWs: usize, rotWs: usize, hasRot: usize, hWeight_: usize, hRotWeight_: usize, hPole: usize, hHasPole_: usize, gripPos: usize, gripRot: usize,
  hasGrip: usize, objectPosWs: usize, objectRotWs: usize, reposition: usize, tipLs: usize, charStart: usize, charCount: usize,
  list: usize, bones: i32, chars: i32, ents: i32,
): void {
  gBones = bones; gChars = chars; gEnts = ents;
  pTipLs = tipLs; pCharStart = charStart; pCharCount = charCount;
  hPosWs = posWs; hRotWs = rotWs; hHasRot = hasRot; hWeight = hWeight_; hRotWeight = hRotWeight_; hPoleWs = hPole; hHasPole = hHasPole_;
  hGripPos = gripPos; hGripRot = gripRot; hHasGrip = hasGrip; hObjectPosWs = objectPosWs; hObjectRotWs = objectRotWs; hReposition = reposition;
  pParent = parent; pOwner = owner; pLocalT = localT; pLocalR = localR; pLocalS = localS; pWorldM = worldM; pRootWs = rootWs; pDirty = dirty;
  pChar = char; pKind = kind; pRootSlot = rootSlot; pMidSlot = midSlot; pEndSlot = endSlot; pEndIsChild = endIsChild; pSubtreeEnd = subtreeEnd;
  pBendHint = bendHint; pSoften = soften; pReachTol = reachTol; pWeight = weight; pRotWeight = rotWeight; pTargetWs = targetWs;
  pTargetRotWs = targetRotWs; pHasTargetRot = hasTargetRot; pPoleWs = poleWs; pHasPole = hasPole; pReached = reached; pMissWs = missWs;
  pMissFullWs = missFullWs; pExtension = extension; pSolved = solved; pInvalid = invalid; pList = list;
}

// The pose store's slot capacity, the character capacity and the entity capacity this layout
// was made for: a limb whose ids lie outside them is not solved (the kernel has no bounds checks
// of its own: such ids would read and write other arrays of the memory, or trap).
let gBones: i32 = 0, gChars: i32 = 0, gEnts: i32 = 0;

/** Limb e's slots, subtree end, joints' parents and character lie inside the layout's capacities. */
function limbInBounds(e: i32): bool {
  const rs = I(pRootSlot, e), ms = I(pMidSlot, e), es = I(pEndSlot, e), sEnd = I(pSubtreeEnd, e), ch = I(pChar, e);
  if (<u32>rs >= <u32>gBones || <u32>ms >= <u32>gBones || <u32>es >= <u32>gBones || <u32>ch >= <u32>gChars) return false;
  if (sEnd < 0 || sEnd > gBones) return false;
  const par = I(pParent, rs), pe = I(pParent, es);
  return par >= -1 && par < gBones && <u32>I(pParent, ms) < <u32>gBones && pe >= -1 && pe < gBones && (pe >= 0 || B(pEndIsChild, e) !== 1);
}

@inline function F(p: usize, i: i32): f64 { return load<f64>(p + (<usize>i << 3)); }
@inline function SF(p: usize, i: i32, v: f64): void { store<f64>(p + (<usize>i << 3), v); }
@inline function I(p: usize, i: i32): i32 { return load<i32>(p + (<usize>i << 2)); }
@inline function B(p: usize, i: i32): i32 { return <i32>load<u8>(p + <usize>i); }
@inline function SB(p: usize, i: i32, v: i32): void { store<u8>(p + <usize>i, <u8>v); }

// The root parent cache: P's inverse, rotation and flags, reused by
// the next limb with the same parent; dropped when a solved limb could contain it. Starts empty
// on every call, and after every step-by-step solve (it may have moved it).
let cValid = false, cOk = false, cMir = false, cConf = false, cPar: i32 = -2, cChar: i32 = -1;
let i00: f64 = 1, i01: f64 = 0, i02: f64 = 0, i10: f64 = 0, i11: f64 = 1, i12: f64 = 0, i20: f64 = 0, i21: f64 = 0, i22: f64 = 1;
let i30: f64 = 0, i31: f64 = 0, i32_: f64 = 0;
let qpx: f64 = 0, qpy: f64 = 0, qpz: f64 = 0, qpw: f64 = 1;
// The next character's root parent, loaded together with the current one (`loadParentsAhead`, two
// parents per f64x2 lane pair) and taken over by `adoptNext` when its limb comes; dropped like the
// cache itself (a solved limb that could contain it).
let nValid = false, nMir = false, nConf = false, nPar: i32 = -2, nChar: i32 = -1;
let j00: f64 = 1, j01: f64 = 0, j02: f64 = 0, j10: f64 = 0, j11: f64 = 1, j12: f64 = 0, j20: f64 = 0, j21: f64 = 0, j22: f64 = 1;
let j30: f64 = 0, j31: f64 = 0, j32: f64 = 0;
let nqx: f64 = 0, nqy: f64 = 0, nqz: f64 = 0, nqw: f64 = 1;

// Results handed between helpers (no multiple returns): a quaternion, a direction.
let rx: f64 = 0, ry: f64 = 0, rz: f64 = 0, rw: f64 = 1;

/** True when the scale at localS[s] is uniform (within 1e-6 relative) and positive. */
@inline function uniformPositive(s: i32): bool {
  const x = F(pLocalS, s * 3), y = F(pLocalS, s * 3 + 1), z = F(pLocalS, s * 3 + 2);
  return x > 0 && Math.abs(x - y) <= 1e-6 * x && Math.abs(x - z) <= 1e-6 * x;
}

/** True when the scale at localS[s] has a uniform magnitude (signs free). */
@inline function uniformMagnitude(s: i32): bool {
  const x = Math.abs(F(pLocalS, s * 3)), y = Math.abs(F(pLocalS, s * 3 + 1)), z = Math.abs(F(pLocalS, s * 3 + 2));
  return Math.abs(x - y) <= 1e-6 * x && Math.abs(x - z) <= 1e-6 * x;
}

/** The rotation of the matrix at byte address m (wasm/quatMath.ts), into rx..rw. */
function rotationOfMatrix(m: usize): void {
  rotationOfMatrixQ(m);
  rx = qx; ry = qy; rz = qz; rw = qw;
}

/** True when the matrix at byte address m is conformal (orthogonal columns of equal length, within 1e-6 relative). */
function isConformal(m: usize): bool {
  const a0 = F(m, 0), a1 = F(m, 1), a2 = F(m, 2);
  const b0 = F(m, 4), b1 = F(m, 5), b2 = F(m, 6);
  const c0 = F(m, 8), c1 = F(m, 9), c2 = F(m, 10);
  const na = a0 * a0 + a1 * a1 + a2 * a2, nb = b0 * b0 + b1 * b1 + b2 * b2, nc = c0 * c0 + c1 * c1 + c2 * c2;
  const t = 1e-6 * na;
  return Math.abs(na - nb) <= t && Math.abs(na - nc) <= t &&
    Math.abs(a0 * b0 + a1 * b1 + a2 * b2) <= t && Math.abs(a0 * c0 + a1 * c1 + a2 * c2) <= t &&
    Math.abs(b0 * c0 + b1 * c1 + b2 * c2) <= t;
}

/** Load the root parent matrix at byte address P into the cache. */
function loadParent(P: usize, par: i32, ch: i32): void {
  cOk = loadInverse(P);
  i00 = gI00; i01 = gI01; i02 = gI02; i10 = gI10; i11 = gI11; i12 = gI12; i20 = gI20; i21 = gI21; i22 = gI22;
  i30 = gI30; i31 = gI31; i32_ = gI32;
  const det = gDet;
  rotationOfMatrix(P);
  qpx = rx; qpy = ry; qpz = rz; qpw = rw;
  cMir = det < 0;
  cConf = isConformal(P);
  cValid = cOk; cPar = par; cChar = ch;
}

/** The next character's parent (loaded ahead) becomes the cache. */
function adoptNext(): void {
  i00 = j00; i01 = j01; i02 = j02; i10 = j10; i11 = j11; i12 = j12; i20 = j20; i21 = j21; i22 = j22; i30 = j30; i31 = j31; i32_ = j32;
  qpx = nqx; qpy = nqy; qpz = nqz; qpw = nqw;
  cOk = true; cMir = nMir; cConf = nConf; cValid = true; cPar = nPar; cChar = nChar;
  nValid = false;
}

/**
 * The root parents of limbs e1 and e2 (e2 two list entries later: the next character's first leg)
 * loaded together, one per f64x2 lane: loadParent's operations per lane (rotationOfMatrix's trace
 * > 0 case only), e1's into the cache, e2's into the next-parent cache. Nothing is loaded when e1's
 * parent is already cached, the two are the same, or a lane takes a rare branch (a singular or
 * non-finite matrix, a degenerate rotation, trace <= 0): the limbs then load theirs one at a time.
 * Reads the parent matrices (pose worldM or charRootWs); writes only the two caches.
 */
@inline function loadParentsAhead(e1: i32, e2: i32): void {
  const ch1 = I(pChar, e1), par1 = I(pParent, I(pRootSlot, e1));
  if ((cValid && cPar === par1 && cChar === ch1) || (nValid && nPar === par1 && nChar === ch1)) return;
  const ch2 = I(pChar, e2), par2 = I(pParent, I(pRootSlot, e2));
  if (par1 === par2 && ch1 === ch2) return;
  const P1: usize = par1 >= 0 ? pWorldM + (<usize>(par1 * 16) << 3) : pRootWs + (<usize>(ch1 * 16) << 3);
  const P2: usize = par2 >= 0 ? pWorldM + (<usize>(par2 * 16) << 3) : pRootWs + (<usize>(ch2 * 16) << 3);
  const a00 = L0(P1, P2), a01 = L1(P1, P2), a02 = L2(P1, P2);
  const a10 = L4(P1, P2), a11 = L5(P1, P2), a12 = L6(P1, P2);
  const a20 = L8(P1, P2), a21 = L9(P1, P2), a22 = L10(P1, P2);
  const ptx = L12(P1, P2), pty = L13(P1, P2), ptz = L14(P1, P2);
  const zero = spl(0), one = spl(1);
  // loadParent: the inverse.
  const b01 = sb(mu(a22, a11), mu(a12, a21)), b11 = ad(mu(ng(a22), a10), mu(a12, a20)), b21 = sb(mu(a21, a10), mu(a11, a20));
  const det = ad(ad(mu(a00, b01), mu(a01, b11)), mu(a02, b21));
  const pts = ad(ad(ptx, pty), ptz);
  if (!all(v128.and(f64x2.gt(f64x2.abs(det), spl(1e-300)), v128.and(f64x2.eq(sb(det, det), zero), f64x2.eq(sb(pts, pts), zero))))) return;
  // rotationOfMatrix, trace > 0.
  let x0 = a00, x1 = a01, x2 = a02;
  let y0 = a10, y1 = a11, y2 = a12;
  const d = ad(sb(mu(x0, sb(mu(y1, a22), mu(y2, a21))), mu(y0, sb(mu(x1, a22), mu(x2, a21)))), mu(a20, sb(mu(x1, y2), mu(x2, y1))));
  const dm = f64x2.lt(d, zero);
  x0 = sel(dm, ng(x0), x0); x1 = sel(dm, ng(x1), x1); x2 = sel(dm, ng(x2), x2);
  let l = ad(ad(mu(x0, x0), mu(x1, x1)), mu(x2, x2));
  if (!all(v128.and(f64x2.gt(l, spl(1e-300)), f64x2.eq(sb(l, l), zero)))) return;
  l = dv(one, sq(l));
  x0 = mu(x0, l); x1 = mu(x1, l); x2 = mu(x2, l);
  const dp = ad(ad(mu(y0, x0), mu(y1, x1)), mu(y2, x2));
  y0 = sb(y0, mu(dp, x0)); y1 = sb(y1, mu(dp, x1)); y2 = sb(y2, mu(dp, x2));
  l = ad(ad(mu(y0, y0), mu(y1, y1)), mu(y2, y2));
  if (!all(f64x2.gt(l, spl(1e-300)))) return;
  l = dv(one, sq(l));
  y0 = mu(y0, l); y1 = mu(y1, l); y2 = mu(y2, l);
  const m02 = sb(mu(x1, y2), mu(x2, y1)), m12 = sb(mu(x2, y0), mu(x0, y2)), m22 = sb(mu(x0, y1), mu(x1, y0));
  const tr = ad(ad(x0, y1), m22);
  if (!all(f64x2.gt(tr, zero))) return;
  const S = mu(sq(ad(tr, one)), spl(2)), iS = dv(one, S);
  const qw = mu(spl(0.25), S), qx = mu(sb(y2, m12), iS), qy = mu(sb(m02, x2), iS), qz = mu(sb(x1, y0), iS);
  // isConformal.
  const na = ad(ad(mu(a00, a00), mu(a01, a01)), mu(a02, a02));
  const nb = ad(ad(mu(a10, a10), mu(a11, a11)), mu(a12, a12));
  const nc = ad(ad(mu(a20, a20), mu(a21, a21)), mu(a22, a22));
  const t = mu(spl(1e-6), na);
  const conf = v128.and(v128.and(v128.and(f64x2.le(f64x2.abs(sb(na, nb)), t), f64x2.le(f64x2.abs(sb(na, nc)), t)),
    v128.and(f64x2.le(f64x2.abs(ad(ad(mu(a00, a10), mu(a01, a11)), mu(a02, a12))), t), f64x2.le(f64x2.abs(ad(ad(mu(a00, a20), mu(a01, a21)), mu(a02, a22))), t))),
    f64x2.le(f64x2.abs(ad(ad(mu(a10, a20), mu(a11, a21)), mu(a12, a22))), t));
  const id = dv(one, det);
  const I00 = mu(b01, id), I01 = mu(ad(mu(ng(a22), a01), mu(a02, a21)), id), I02 = mu(sb(mu(a12, a01), mu(a02, a11)), id);
  const I10 = mu(b11, id), I11 = mu(sb(mu(a22, a00), mu(a02, a20)), id), I12 = mu(ad(mu(ng(a12), a00), mu(a02, a10)), id);
  const I20 = mu(b21, id), I21 = mu(ad(mu(ng(a21), a00), mu(a01, a20)), id), I22 = mu(sb(mu(a11, a00), mu(a01, a10)), id);
  const I30 = ng(ad(ad(mu(I00, ptx), mu(I10, pty)), mu(I20, ptz)));
  const I31 = ng(ad(ad(mu(I01, ptx), mu(I11, pty)), mu(I21, ptz)));
  const I32 = ng(ad(ad(mu(I02, ptx), mu(I12, pty)), mu(I22, ptz)));
  i00 = lane0(I00); i01 = lane0(I01); i02 = lane0(I02); i10 = lane0(I10); i11 = lane0(I11); i12 = lane0(I12);
  i20 = lane0(I20); i21 = lane0(I21); i22 = lane0(I22); i30 = lane0(I30); i31 = lane0(I31); i32_ = lane0(I32);
  qpx = lane0(qx); qpy = lane0(qy); qpz = lane0(qz); qpw = lane0(qw);
  cOk = true; cMir = lane0(det) < 0; cConf = i64x2.extract_lane(conf, 0) !== 0; cValid = true; cPar = par1; cChar = ch1;
  j00 = lane1(I00); j01 = lane1(I01); j02 = lane1(I02); j10 = lane1(I10); j11 = lane1(I11); j12 = lane1(I12);
  j20 = lane1(I20); j21 = lane1(I21); j22 = lane1(I22); j30 = lane1(I30); j31 = lane1(I31); j32 = lane1(I32);
  nqx = lane1(qx); nqy = lane1(qy); nqz = lane1(qz); nqw = lane1(qw);
  nMir = lane1(det) < 0; nConf = i64x2.extract_lane(conf, 1) !== 0; nValid = true; nPar = par2; nChar = ch2;
}

/** World matrix of slot k from its parent's (or the root frame) and its local TRS. */
function worldOfSlot(k: i32): void {
  const p = I(pParent, k);
  const P: usize = p >= 0 ? pWorldM + (<usize>(p * 16) << 3) : pRootWs + (<usize>(I(pOwner, k) * 16) << 3);
  const x = F(pLocalR, k * 4), y = F(pLocalR, k * 4 + 1), z = F(pLocalR, k * 4 + 2), w = F(pLocalR, k * 4 + 3);
  const sx = F(pLocalS, k * 3), sy = F(pLocalS, k * 3 + 1), sz = F(pLocalS, k * 3 + 2);
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2, wx = w * x2, wy = w * y2, wz = w * z2;
  const l00 = (1 - (yy + zz)) * sx, l01 = (xy + wz) * sx, l02 = (xz - wy) * sx;
  const l10 = (xy - wz) * sy, l11 = (1 - (xx + zz)) * sy, l12 = (yz + wx) * sy;
  const l20 = (xz + wy) * sz, l21 = (yz - wx) * sz, l22 = (1 - (xx + yy)) * sz;
  const tx = F(pLocalT, k * 3), ty = F(pLocalT, k * 3 + 1), tz = F(pLocalT, k * 3 + 2);
  const a00 = F(P, 0), a01 = F(P, 1), a02 = F(P, 2);
  const a10 = F(P, 4), a11 = F(P, 5), a12 = F(P, 6);
  const a20 = F(P, 8), a21 = F(P, 9), a22 = F(P, 10);
  const W: usize = pWorldM + (<usize>(k * 16) << 3);
  SF(W, 0, a00 * l00 + a10 * l01 + a20 * l02); SF(W, 1, a01 * l00 + a11 * l01 + a21 * l02); SF(W, 2, a02 * l00 + a12 * l01 + a22 * l02); SF(W, 3, 0);
  SF(W, 4, a00 * l10 + a10 * l11 + a20 * l12); SF(W, 5, a01 * l10 + a11 * l11 + a21 * l12); SF(W, 6, a02 * l10 + a12 * l11 + a22 * l12); SF(W, 7, 0);
  SF(W, 8, a00 * l20 + a10 * l21 + a20 * l22); SF(W, 9, a01 * l20 + a11 * l21 + a21 * l22); SF(W, 10, a02 * l20 + a12 * l21 + a22 * l22); SF(W, 11, 0);
  SF(W, 12, a00 * tx + a10 * ty + a20 * tz + F(P, 12));
  SF(W, 13, a01 * tx + a11 * ty + a21 * tz + F(P, 13));
  SF(W, 14, a02 * tx + a12 * ty + a22 * tz + F(P, 14));
  SF(W, 15, 1);
}

/** World matrices of the other bones of a solved chain's subtree [rs, sEnd) (toes, twists, bones between the joints). */
function subtreeWorlds(rs: i32, ms: i32, es: i32, sEnd: i32): void {
  SB(pDirty, rs, 1); SB(pDirty, ms, 1); SB(pDirty, es, 1);
  for (let k = rs + 1; k < sEnd; k++) {
    if (k === ms || k === es) continue;
    const p = I(pParent, k);
    if (p >= 0 && B(pDirty, p) === 1) { worldOfSlot(k); SB(pDirty, k, 1); }
  }
  for (let k = rs; k < sEnd; k++) SB(pDirty, k, 0);
}

/** Slerp of (ax..aw) toward (bx..bw) by f (wasm/quatMath.ts), into rx..rw. */
function slerp(ax: f64, ay: f64, az: f64, aw: f64, bx: f64, by: f64, bz: f64, bw: f64, f: f64): void {
  slerpQ(ax, ay, az, aw, bx, by, bz, bw, f);
  rx = qx; ry = qy; rz = qz; rw = qw;
}

/** The unit direction of a vector whose squared length overflows (components up to ±Infinity), into rx, ry, rz. */
function unitOfHuge(x: f64, y: f64, z: f64): void {
  let m = Math.max(Math.max(Math.abs(x), Math.abs(y)), Math.abs(z));
  if (m === Infinity) { x = x === Infinity ? 1 : x === -Infinity ? -1 : 0; y = y === Infinity ? 1 : y === -Infinity ? -1 : 0; z = z === Infinity ? 1 : z === -Infinity ? -1 : 0; m = 1; }
  x /= m; y /= m; z /= m;
  const l = Math.sqrt(x * x + y * y + z * z);
  rx = x / l; ry = y / l; rz = z / l;
}

/**
 * Solve the limbs `list[from..count)` in order (every one: see the header); returns `count`.
 * Per-frame; never traps on any input.
 */
export function twoBoneRun(from: i32, count: i32): i32 {
  cValid = false; cPar = -2; cChar = -1; nValid = false; nPar = -2; nChar = -1;
  // (the list indices last found in bounds, one and two entries on: the next limbs checked once; the check reads only the
  // limbs' slots, character and joints' parents, which no solve writes)
  let ok1 = -1, ok2 = -1;
  for (let i = from; i < count; i++) {
    const e = I(pList, i);
    if (<u32>e >= <u32>gEnts) continue;
    if (ok1 !== i && ok2 !== i && !limbInBounds(e)) { SB(pSolved, e, 0); SB(pInvalid, e, 1); continue; }
    const has1 = i + 1 < count && (ok2 === i + 1 || limbInBounds(I(pList, i + 1)));
    const has2 = i + 3 < count && limbInBounds(I(pList, i + 2));
    ok1 = has1 ? i + 1 : -1; ok2 = has2 ? i + 2 : -1;
    if (has2) loadParentsAhead(e, I(pList, i + 2));
    if (has1 && solvePair(e, I(pList, i + 1))) { i++; continue; }
    if (solveLeg(e)) continue;
    solveLimb(e);
    cValid = false; nValid = false; // (the cached parents may lie in the limb's subtree)
  }
  return count;
}

/** Solve limb e fused (a direct chain whose world and local rotations compose); false, having written nothing but an arm's request, when it is {@link solveLimb}'s. */
function solveLeg(e: i32): bool {
  const rs = I(pRootSlot, e), ms = I(pMidSlot, e), es = I(pEndSlot, e);
  if (B(pEndIsChild, e) !== 1 || I(pParent, ms) !== rs || I(pParent, es) !== ms || !uniformMagnitude(rs)) return false;
  const isArm = B(pKind, e) === LIMB_ARM;
  if (isArm) handRequest(e); // (from the HandTarget alone: solveLimb writes the same again if the limb is declined below)
  let w = F(pWeight, e);
  if (!(w > 0)) w = 0; else if (w > 1) w = 1;
  let wr = F(pRotWeight, e);
  if (!(wr > 0) || B(pHasTargetRot, e) !== 1) wr = 0; else if (wr > 1) wr = 1;
  if (w === 0 && wr === 0) {
    // Nothing asked: the animation stays exactly as it was.
    SB(pSolved, e, 0); SB(pReached, e, 1); SF(pMissWs, e, 0); SF(pMissFullWs, e, 0);
    if (isArm) { SB(hReposition, e, 0); heldObject(e); }
    return true;
  }
  const ch = I(pChar, e);
  const par = I(pParent, rs);
  const P: usize = par >= 0 ? pWorldM + (<usize>(par * 16) << 3) : pRootWs + (<usize>(ch * 16) << 3);
  if (!(cValid && cPar === par && cChar === ch)) { if (nValid && nPar === par && nChar === ch) adoptNext(); else loadParent(P, par, ch); }
  // Solve-space inputs (the root's parent frame): root A, mid B, end C, target.
  const ax = F(pLocalT, rs * 3), ay = F(pLocalT, rs * 3 + 1), az = F(pLocalT, rs * 3 + 2);
  let x = F(pWorldM, ms * 16 + 12), y = F(pWorldM, ms * 16 + 13), z = F(pWorldM, ms * 16 + 14);
  const bx = i00 * x + i10 * y + i20 * z + i30, by = i01 * x + i11 * y + i21 * z + i31, bz = i02 * x + i12 * y + i22 * z + i32_;
  const cwx = F(pWorldM, es * 16 + 12), cwy = F(pWorldM, es * 16 + 13), cwz = F(pWorldM, es * 16 + 14); // animated end (world)
  const cx = i00 * cwx + i10 * cwy + i20 * cwz + i30, cy = i01 * cwx + i11 * cwy + i21 * cwz + i31, cz = i02 * cwx + i12 * cwy + i22 * cwz + i32_;
  const twx = F(pTargetWs, e * 3), twy = F(pTargetWs, e * 3 + 1), twz = F(pTargetWs, e * 3 + 2);
  const tx0 = i00 * twx + i10 * twy + i20 * twz + i30, ty0 = i01 * twx + i11 * twy + i21 * twz + i31, tz0 = i02 * twx + i12 * twy + i22 * twz + i32_;
  const v1x = bx - ax, v1y = by - ay, v1z = bz - az;
  const v2x = cx - bx, v2y = cy - by, v2z = cz - bz;
  const l1 = Math.sqrt(v1x * v1x + v1y * v1y + v1z * v1z);
  const l2 = Math.sqrt(v2x * v2x + v2y * v2y + v2z * v2z);
  const sum = ax + ay + az + cx + cy + cz + bx + by + bz + tx0 + ty0 + tz0;
  if (!isFinite<f64>(sum) || !(l1 > 1e-12) || !(l2 > 1e-12) || !isFinite<f64>(l1 + l2) || !cOk) {
    SB(pSolved, e, 0); SB(pInvalid, e, 1); SB(pReached, e, 0); SF(pMissWs, e, 0); SF(pMissFullWs, e, 0);
    if (isArm) { SB(hReposition, e, 0); heldObject(e); }
    return true;
  }
  // World and local rotations compose (the end's rotation below is exact): else solveLimb's.
  const composes = cConf && uniformPositive(rs) && uniformPositive(ms) &&
    F(pLocalS, es * 3) > 0 && F(pLocalS, es * 3 + 1) > 0 && F(pLocalS, es * 3 + 2) > 0;
  if (!composes) return false;
  const lmax = l1 + l2;
  const acx = cx - ax, acy = cy - ay, acz = cz - az;
  let QRx: f64 = 0, QRy: f64 = 0, QRz: f64 = 0, QRw: f64 = 1, QMx: f64 = 0, QMy: f64 = 0, QMz: f64 = 0, QMw: f64 = 1, ext: f64;
  if (w === 0) ext = Math.sqrt(acx * acx + acy * acy + acz * acz) / lmax;
  else {
    const tx = cx + w * (tx0 - cx), ty = cy + w * (ty0 - cy), tz = cz + w * (tz0 - cz);
    // the knee's guide: the pole (solve space), else the animated upper bone (keep the bend plane)
    let pvx = v1x, pvy = v1y, pvz = v1z;
    if (B(pHasPole, e) === 1) {
      x = F(pPoleWs, e * 3); y = F(pPoleWs, e * 3 + 1); z = F(pPoleWs, e * 3 + 2);
      pvx = i00 * x + i10 * y + i20 * z + i30 - ax; pvy = i01 * x + i11 * y + i21 * z + i31 - ay; pvz = i02 * x + i12 * y + i22 * z + i32_ - az;
    }
    const De = bendSolve(v1x, v1y, v1z, v2x, v2y, v2z, l1, l2, tx - ax, ty - ay, tz - az, acx, acy, acz, F(pSoften, e),
      F(pBendHint, e * 3), F(pBendHint, e * 3 + 1), F(pBendHint, e * 3 + 2), pvx, pvy, pvz);
    QMx = gQMx; QMy = gQMy; QMz = gQMz; QMw = gQMw;
    QRx = rx; QRy = ry; QRz = rz; QRw = rw;
    ext = De / lmax;
  }
  SB(pSolved, e, 0);
  if (!isArm) SB(pInvalid, e, 0); // (an arm keeps its flag, as solveLimb does)
  // Local rotations: root qr, mid qm, end qe (solve space = the root's parent frame).
  const r4 = rs * 4, m4 = ms * 4, e4 = es * 4;
  const qrx = F(pLocalR, r4), qry = F(pLocalR, r4 + 1), qrz = F(pLocalR, r4 + 2), qrw = F(pLocalR, r4 + 3);
  const qmx = F(pLocalR, m4), qmy = F(pLocalR, m4 + 1), qmz = F(pLocalR, m4 + 2), qmw = F(pLocalR, m4 + 3);
  // End's parent orientation Q_pe = qr·qm; end orientation before the solve Qe = Q_pe·qe.
  const pex = qrx * qmw + qrw * qmx + qry * qmz - qrz * qmy;
  const pey = qry * qmw + qrw * qmy + qrz * qmx - qrx * qmz;
  const pez = qrz * qmw + qrw * qmz + qrx * qmy - qry * qmx;
  const pew = qrw * qmw - qrx * qmx - qry * qmy - qrz * qmz;
  let qex: f64, qey: f64, qez: f64, qew: f64;
  if (wr === 1) {
    // Full rotation weight: the target orientation replaces the animated one.
    const bx = F(pTargetRotWs, e * 4), by = F(pTargetRotWs, e * 4 + 1), bz = F(pTargetRotWs, e * 4 + 2), bw = F(pTargetRotWs, e * 4 + 3);
    const lx = -qpx * bw + qpw * bx - qpy * bz + qpz * by;
    let ly = -qpy * bw + qpw * by - qpz * bx + qpx * bz;
    let lz = -qpz * bw + qpw * bz - qpx * by + qpy * bx;
    const lw = qpw * bw + qpx * bx + qpy * by + qpz * bz;
    if (cMir) { ly = -ly; lz = -lz; }
    const l = Math.sqrt(lx * lx + ly * ly + lz * lz + lw * lw);
    if (l > 1e-15) { const il = 1 / l; qex = lx * il; qey = ly * il; qez = lz * il; qew = lw * il; } else { qex = 0; qey = 0; qez = 0; qew = 1; }
  } else {
    const bx = F(pLocalR, e4), by = F(pLocalR, e4 + 1), bz = F(pLocalR, e4 + 2), bw = F(pLocalR, e4 + 3);
    qex = pex * bw + pew * bx + pey * bz - pez * by;
    qey = pey * bw + pew * by + pez * bx - pex * bz;
    qez = pez * bw + pew * bz + pex * by - pey * bx;
    qew = pew * bw - pex * bx - pey * by - pez * bz;
    if (wr > 0) {
      // rotationToLocal (mirrored by cMir) of the target, normalised, then the slerp.
      const sx = -qpx, sy = -qpy, sz = -qpz, sw = qpw;
      const tx = F(pTargetRotWs, e * 4), ty = F(pTargetRotWs, e * 4 + 1), tz = F(pTargetRotWs, e * 4 + 2), tw = F(pTargetRotWs, e * 4 + 3);
      let lx = sx * tw + sw * tx + sy * tz - sz * ty;
      let ly = sy * tw + sw * ty + sz * tx - sx * tz;
      let lz = sz * tw + sw * tz + sx * ty - sy * tx;
      let lw = sw * tw - sx * tx - sy * ty - sz * tz;
      if (cMir) { ly = -ly; lz = -lz; }
      const l = Math.sqrt(lx * lx + ly * ly + lz * lz + lw * lw);
      if (l > 1e-15) { const il = 1 / l; lx = lx * il; ly = ly * il; lz = lz * il; lw = lw * il; } else { lx = 0; ly = 0; lz = 0; lw = 1; }
      slerp(qex, qey, qez, qew, lx, ly, lz, lw, wr);
      qex = rx; qey = ry; qez = rz; qew = rw;
    }
  }
  // Root: R_r' = rootDelta · qr.
  SF(pLocalR, r4, QRx * qrw + QRw * qrx + QRy * qrz - QRz * qry);
  SF(pLocalR, r4 + 1, QRy * qrw + QRw * qry + QRz * qrx - QRx * qrz);
  SF(pLocalR, r4 + 2, QRz * qrw + QRw * qrz + QRx * qry - QRy * qrx);
  SF(pLocalR, r4 + 3, QRw * qrw - QRx * qrx - QRy * qry - QRz * qrz);
  // Mid: R_m' = qr⁻¹ · midDelta · qr · qm (the root's scale is uniform and positive here).
  const gx = QMx * qrw + QMw * qrx + QMy * qrz - QMz * qry;
  const gy = QMy * qrw + QMw * qry + QMz * qrx - QMx * qrz;
  const gz = QMz * qrw + QMw * qrz + QMx * qry - QMy * qrx;
  const gw = QMw * qrw - QMx * qrx - QMy * qry - QMz * qrz;
  const hx = -qrx * gw + qrw * gx - qry * gz + qrz * gy;
  const hy = -qry * gw + qrw * gy - qrz * gx + qrx * gz;
  const hz = -qrz * gw + qrw * gz - qrx * gy + qry * gx;
  const hw = qrw * gw + qrx * gx + qry * gy + qrz * gz;
  SF(pLocalR, m4, hx * qmw + hw * qmx + hy * qmz - hz * qmy);
  SF(pLocalR, m4 + 1, hy * qmw + hw * qmy + hz * qmx - hx * qmz);
  SF(pLocalR, m4 + 2, hz * qmw + hw * qmz + hx * qmy - hy * qmx);
  SF(pLocalR, m4 + 3, hw * qmw - hx * qmx - hy * qmy - hz * qmz);
  // End: R_e' = (rootDelta · midDelta · Q_pe)⁻¹ · Qe.
  const jx = QMx * pew + QMw * pex + QMy * pez - QMz * pey;
  const jy = QMy * pew + QMw * pey + QMz * pex - QMx * pez;
  const jz = QMz * pew + QMw * pez + QMx * pey - QMy * pex;
  const jw = QMw * pew - QMx * pex - QMy * pey - QMz * pez;
  const fx = QRx * jw + QRw * jx + QRy * jz - QRz * jy;
  const fy = QRy * jw + QRw * jy + QRz * jx - QRx * jz;
  const fz = QRz * jw + QRw * jz + QRx * jy - QRy * jx;
  const fw = QRw * jw - QRx * jx - QRy * jy - QRz * jz;
  SF(pLocalR, e4, -fx * qew + fw * qex - fy * qez + fz * qey);
  SF(pLocalR, e4 + 1, -fy * qew + fw * qey - fz * qex + fx * qez);
  SF(pLocalR, e4 + 2, -fz * qew + fw * qez - fx * qey + fy * qex);
  SF(pLocalR, e4 + 3, fw * qew + fx * qex + fy * qey + fz * qez);
  // World matrices of the chain, then of any other bone of the root's subtree (toes, twists).
  worldOfSlot(rs);
  worldOfSlot(ms);
  worldOfSlot(es);
  const sEnd = I(pSubtreeEnd, e);
  if (sEnd > es + 1 || ms > rs + 1 || es > ms + 1) subtreeWorlds(rs, ms, es, sEnd);
  if (cPar >= rs && I(pOwner, cPar) === I(pOwner, rs)) cValid = false; // the cached parent moved with this limb
  if (nPar >= rs && I(pOwner, nPar) === I(pOwner, rs)) nValid = false;
  // Outcome, in world units.
  const ex = F(pWorldM, es * 16 + 12), ey = F(pWorldM, es * 16 + 13), ez = F(pWorldM, es * 16 + 14);
  const ox = cwx + w * (twx - cwx) - ex, oy = cwy + w * (twy - cwy) - ey, oz = cwz + w * (twz - cwz) - ez;
  const miss = Math.sqrt(ox * ox + oy * oy + oz * oz);
  SF(pMissWs, e, miss);
  SF(pMissFullWs, e, Math.sqrt((ex - twx) * (ex - twx) + (ey - twy) * (ey - twy) + (ez - twz) * (ez - twz)));
  SB(pReached, e, miss <= F(pReachTol, e) ? 1 : 0);
  SF(pExtension, e, ext);
  SB(pSolved, e, 1);
  if (isArm) armOutcome(e, P, w, ax, ay, az, tx0, ty0, tz0, l1, l2);
  return true;
}

/** An arm's request from its HandTarget: wrist = object × grip⁻¹ with a held object. */
function handRequest(e: i32): void {
  SF(pWeight, e, F(hWeight, e));
  SF(pRotWeight, e, F(hRotWeight, e));
  const e3 = e * 3, e4 = e * 4;
  if (B(hHasGrip, e) === 1) {
    // targetRot = objRot · gripRot⁻¹ (qMulConj), then pos = objPos − targetRot · gripPos (qRotate)
    const ax = F(hRotWs, e4), ay = F(hRotWs, e4 + 1), az = F(hRotWs, e4 + 2), aw = F(hRotWs, e4 + 3);
    const bx = -F(hGripRot, e4), by = -F(hGripRot, e4 + 1), bz = -F(hGripRot, e4 + 2), bw = F(hGripRot, e4 + 3);
    const qx = ax * bw + aw * bx + ay * bz - az * by;
    const qy = ay * bw + aw * by + az * bx - ax * bz;
    const qz = az * bw + aw * bz + ax * by - ay * bx;
    const qw = aw * bw - ax * bx - ay * by - az * bz;
    SF(pTargetRotWs, e4, qx); SF(pTargetRotWs, e4 + 1, qy); SF(pTargetRotWs, e4 + 2, qz); SF(pTargetRotWs, e4 + 3, qw);
    const vx = F(hGripPos, e3), vy = F(hGripPos, e3 + 1), vz = F(hGripPos, e3 + 2);
    const tx = 2 * (qy * vz - qz * vy);
    const ty = 2 * (qz * vx - qx * vz);
    const tz = 2 * (qx * vy - qy * vx);
    SF(pTargetWs, e3, F(hPosWs, e3) - (vx + qw * tx + (qy * tz - qz * ty)));
    SF(pTargetWs, e3 + 1, F(hPosWs, e3 + 1) - (vy + qw * ty + (qz * tx - qx * tz)));
    SF(pTargetWs, e3 + 2, F(hPosWs, e3 + 2) - (vz + qw * tz + (qx * ty - qy * tx)));
    SB(pHasTargetRot, e, 1);
  } else {
    for (let k = 0; k < 3; k++) SF(pTargetWs, e3 + k, F(hPosWs, e3 + k));
    for (let k = 0; k < 4; k++) SF(pTargetRotWs, e4 + k, F(hRotWs, e4 + k));
    SB(pHasTargetRot, e, B(hHasRot, e));
  }
  SB(pHasPole, e, B(hHasPole, e));
  for (let k = 0; k < 3; k++) SF(pPoleWs, e3 + k, F(hPoleWs, e3 + k));
}

/** The held object on the solved hand. */
function heldObject(e: i32): void {
  const eo = I(pEndSlot, e) * 16;
  rotationOfMatrix(pWorldM + (<usize>eo << 3));
  const qx = rx, qy = ry, qz = rz, qw = rw;
  const e3 = e * 3, e4 = e * 4;
  if (B(hHasGrip, e) === 1) {
    const vx = F(hGripPos, e3), vy = F(hGripPos, e3 + 1), vz = F(hGripPos, e3 + 2);
    const tx = 2 * (qy * vz - qz * vy);
    const ty = 2 * (qz * vx - qx * vz);
    const tz = 2 * (qx * vy - qy * vx);
    SF(hObjectPosWs, e3, F(pWorldM, eo + 12) + (vx + qw * tx + (qy * tz - qz * ty)));
    SF(hObjectPosWs, e3 + 1, F(pWorldM, eo + 13) + (vy + qw * ty + (qz * tx - qx * tz)));
    SF(hObjectPosWs, e3 + 2, F(pWorldM, eo + 14) + (vz + qw * tz + (qx * ty - qy * tx)));
    const bx = F(hGripRot, e4), by = F(hGripRot, e4 + 1), bz = F(hGripRot, e4 + 2), bw = F(hGripRot, e4 + 3);
    SF(hObjectRotWs, e4, qx * bw + qw * bx + qy * bz - qz * by);
    SF(hObjectRotWs, e4 + 1, qy * bw + qw * by + qz * bx - qx * bz);
    SF(hObjectRotWs, e4 + 2, qz * bw + qw * bz + qx * by - qy * bx);
    SF(hObjectRotWs, e4 + 3, qw * bw - qx * bx - qy * by - qz * bz);
  } else {
    for (let k = 0; k < 3; k++) SF(hObjectPosWs, e3 + k, F(pWorldM, eo + 12 + k));
    SF(hObjectRotWs, e4, qx); SF(hObjectRotWs, e4 + 1, qy); SF(hObjectRotWs, e4 + 2, qz); SF(hObjectRotWs, e4 + 3, qw);
  }
}

/**
 * An arm's outcome after a solve: `reposition` when the full
 * target is out of reach by more than the tolerance (measured in the world through the root
 * parent's linear map at byte address P), then the held object.
 */
function armOutcome(e: i32, P: usize, w: f64, ax: f64, ay: f64, az: f64, tx0: f64, ty0: f64, tz0: f64, l1: f64, l2: f64): void {
  const dx = tx0 - ax, dy = ty0 - ay, dz = tz0 - az;
  const reach = (l1 + l2) * (1 - F(pSoften, e));
  const dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
  let out = w > 0 && dist === Infinity;
  if (w > 0 && dist > reach && dist < Infinity) {
    const k = (dist - reach) / dist;
    const ex = (F(P, 0) * dx + F(P, 4) * dy + F(P, 8) * dz) * k;
    const ey = (F(P, 1) * dx + F(P, 5) * dy + F(P, 9) * dz) * k;
    const ez = (F(P, 2) * dx + F(P, 6) * dy + F(P, 10) * dz) * k;
    out = Math.sqrt(ex * ex + ey * ey + ez * ez) > F(pReachTol, e);
  }
  SB(hReposition, e, out ? 1 : 0);
  heldObject(e);
}

// ---- Two legs per f64x2 lane pair (lane 0: the first, lane 1: the second) -----------------------
//
// For the common case: two legs with the same root parent (a character's two legs), disjoint
// subtrees (so solving them together equals solving them in turn), both asked for a position
// (weight > 0), rotation weights 0 or 1, every input valid, and none of the rare branches (a
// target at or beyond 1e154, a straight leg, a pole on the root→target line, a root turn of more
// than 180° − ε in trace terms). Each lane does exactly the scalar operations of solveLeg (lane
// selects replace its branches; a leg inside its soft band takes the softened reach per lane in
// scalar), so the results are the same bits. When a condition fails the pair is declined before anything is written.

@inline function ad(a: v128, b: v128): v128 { return f64x2.add(a, b); }
@inline function sb(a: v128, b: v128): v128 { return f64x2.sub(a, b); }
@inline function mu(a: v128, b: v128): v128 { return f64x2.mul(a, b); }
@inline function dv(a: v128, b: v128): v128 { return f64x2.div(a, b); }
@inline function sq(a: v128): v128 { return f64x2.sqrt(a); }
@inline function ng(a: v128): v128 { return f64x2.neg(a); }
@inline function spl(x: f64): v128 { return f64x2.splat(x); }
@inline function sel(m: v128, a: v128, b: v128): v128 { return v128.bitselect(a, b, m); }
@inline function all(m: v128): bool { return i64x2.all_true(m); }
@inline function lane0(v: v128): f64 { return f64x2.extract_lane(v, 0); }
@inline function lane1(v: v128): f64 { return f64x2.extract_lane(v, 1); }
@inline function P(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0); v128.store64_lane(p + (<usize>ib << 3), v, 1); }
/** Lane mask of a per-limb u8 flag equal to 1. */
@inline function flag2(p: usize, ea: i32, eb: i32): v128 { return i64x2.replace_lane(i64x2.splat(B(p, ea) === 1 ? -1 : 0), 1, B(p, eb) === 1 ? -1 : 0); }

/**
 * True when leg e is a direct chain (the scalar path's first test but for the root's uniform
 * scale magnitude, which {@link composes2}'s uniform positive root scale implies).
 */
@inline function directChain(e: i32, rs: i32, ms: i32, es: i32): bool {
  return B(pKind, e) !== LIMB_ARM && B(pEndIsChild, e) === 1 && I(pParent, ms) === rs && I(pParent, es) === ms;
}

/** uniformPositive of the scales at byte addresses a (lane 0) and b (lane 1), as a lane mask. */
@inline function uniformPositive2(a: usize, b: usize): v128 {
  const x = L0(a, b), y = L1(a, b), z = L2(a, b), t = mu(spl(1e-6), x);
  return v128.and(v128.and(f64x2.gt(x, spl(0)), f64x2.le(f64x2.abs(sb(x, y)), t)), f64x2.le(f64x2.abs(sb(x, z)), t));
}

/**
 * The scalar path's composes test (with the cached parent conformal) for both legs at once: the
 * root and mid scales uniform and positive, the end's scale positive (the same comparisons, in lanes).
 */
@inline function composes2(rsa: i32, msa: i32, esa: i32, rsb: i32, msb: i32, esb: i32): bool {
  const S = pLocalS;
  const ea: usize = S + <usize>(esa * 24), eb: usize = S + <usize>(esb * 24), z = spl(0);
  return all(v128.and(v128.and(uniformPositive2(S + <usize>(rsa * 24), S + <usize>(rsb * 24)), uniformPositive2(S + <usize>(msa * 24), S + <usize>(msb * 24))),
    v128.and(v128.and(f64x2.gt(L0(ea, eb), z), f64x2.gt(L1(ea, eb), z)), f64x2.gt(L2(ea, eb), z))));
}

/** The softened, clamped reach De of solveLeg for one lane. */
function softReach(D: f64, lmax: f64, lmin: f64, sfIn: f64, acx: f64, acy: f64, acz: f64): f64 {
  let De = D;
  let sf = sfIn;
  if (!(sf > 0)) sf = 0; else if (sf > 0.5) sf = 0.5;
  if (sf > 0 && De > lmax * (1 - sf)) {
    let da = lmax * (1 - sf);
    const dc = Math.sqrt(acx * acx + acy * acy + acz * acz);
    if (dc > da) da = dc < lmax ? dc : lmax;
    const sl = lmax - da;
    if (De > da) De = sl > 1e-12 * lmax ? da + sl * (1 - jsExp(-(De - da) / sl)) : lmax;
  }
  if (De > lmax) De = lmax;
  if (De < lmin) De = lmin;
  return De;
}

/**
 * One level of {@link chainWorlds2}: worldOfSlot of two bones (lane 0: localR, localS, localT at
 * byte addresses ra, ka, ta, parent matrix at Qa, world matrix written at Wa; lane 1: rb, kb, tb,
 * Qb, Wb; `splat`: one parent matrix for both, at Qa). By rows of the parent: three parent
 * entries and the nine local columns live at a time, each entry stored as it is made.
 */
@inline function chainLevel(ra: usize, rb: usize, ka: usize, kb: usize, ta: usize, tb: usize, Qa: usize, Qb: usize, splat: bool, Wa: usize, Wb: usize): void {
  const one = spl(1);
  const x = L0(ra, rb), y = L1(ra, rb), z = L2(ra, rb), w = L3(ra, rb);
  const sx = L0(ka, kb), sy = L1(ka, kb), sz = L2(ka, kb);
  const x2 = ad(x, x), y2 = ad(y, y), z2 = ad(z, z);
  const xx = mu(x, x2), xy = mu(x, y2), xz = mu(x, z2), yy = mu(y, y2), yz = mu(y, z2), zz = mu(z, z2), wx = mu(w, x2), wy = mu(w, y2), wz = mu(w, z2);
  const l00 = mu(sb(one, ad(yy, zz)), sx), l01 = mu(ad(xy, wz), sx), l02 = mu(sb(xz, wy), sx);
  const l10 = mu(sb(xy, wz), sy), l11 = mu(sb(one, ad(xx, zz)), sy), l12 = mu(ad(yz, wx), sy);
  const l20 = mu(ad(xz, wy), sz), l21 = mu(sb(yz, wx), sz), l22 = mu(sb(one, ad(xx, yy)), sz);
  const tx = L0(ta, tb), ty = L1(ta, tb), tz = L2(ta, tb);
  {
    const p0 = splat ? v128.load64_splat(Qa, 0) : L0(Qa, Qb), p1 = splat ? v128.load64_splat(Qa, 32) : L4(Qa, Qb), p2 = splat ? v128.load64_splat(Qa, 64) : L8(Qa, Qb);
    St0(Wa, Wb, ad(ad(mu(p0, l00), mu(p1, l01)), mu(p2, l02)));
    St4(Wa, Wb, ad(ad(mu(p0, l10), mu(p1, l11)), mu(p2, l12)));
    St8(Wa, Wb, ad(ad(mu(p0, l20), mu(p1, l21)), mu(p2, l22)));
    St12(Wa, Wb, ad(ad(ad(mu(p0, tx), mu(p1, ty)), mu(p2, tz)), splat ? v128.load64_splat(Qa, 96) : L12(Qa, Qb)));
  }
  {
    const p0 = splat ? v128.load64_splat(Qa, 8) : L1(Qa, Qb), p1 = splat ? v128.load64_splat(Qa, 40) : L5(Qa, Qb), p2 = splat ? v128.load64_splat(Qa, 72) : L9(Qa, Qb);
    St1(Wa, Wb, ad(ad(mu(p0, l00), mu(p1, l01)), mu(p2, l02)));
    St5(Wa, Wb, ad(ad(mu(p0, l10), mu(p1, l11)), mu(p2, l12)));
    St9(Wa, Wb, ad(ad(mu(p0, l20), mu(p1, l21)), mu(p2, l22)));
    St13(Wa, Wb, ad(ad(ad(mu(p0, tx), mu(p1, ty)), mu(p2, tz)), splat ? v128.load64_splat(Qa, 104) : L13(Qa, Qb)));
  }
  {
    const p0 = splat ? v128.load64_splat(Qa, 16) : L2(Qa, Qb), p1 = splat ? v128.load64_splat(Qa, 48) : L6(Qa, Qb), p2 = splat ? v128.load64_splat(Qa, 80) : L10(Qa, Qb);
    St2(Wa, Wb, ad(ad(mu(p0, l00), mu(p1, l01)), mu(p2, l02)));
    St6(Wa, Wb, ad(ad(mu(p0, l10), mu(p1, l11)), mu(p2, l12)));
    St10(Wa, Wb, ad(ad(mu(p0, l20), mu(p1, l21)), mu(p2, l22)));
    St14(Wa, Wb, ad(ad(ad(mu(p0, tx), mu(p1, ty)), mu(p2, tz)), splat ? v128.load64_splat(Qa, 112) : L14(Qa, Qb)));
  }
  // (the constant entries, as worldOfSlot writes them)
  store<f64>(Wa, 0, 24); store<f64>(Wa, 0, 56); store<f64>(Wa, 0, 88); store<f64>(Wa, 1, 120);
  store<f64>(Wb, 0, 24); store<f64>(Wb, 0, 56); store<f64>(Wb, 0, 88); store<f64>(Wb, 1, 120);
}

/**
 * worldOfSlot of the solved chains of two legs, root → mid → end (slots rsa.. in lane 0, rsb.. in
 * lane 1), the roots under the common parent matrix at byte address Pp: each level's parent is
 * the level above as just written (read back, as worldOfSlot does). Reads localR, localS, localT
 * of the six slots and the parent matrix; writes their worldM.
 */
function chainWorlds2(rsa: i32, rsb: i32, msa: i32, msb: i32, esa: i32, esb: i32, Pp: usize): void {
  const R = pLocalR, S = pLocalS, T = pLocalT, W = pWorldM;
  const wra: usize = W + (<usize>rsa << 7), wrb: usize = W + (<usize>rsb << 7);
  const wma: usize = W + (<usize>msa << 7), wmb: usize = W + (<usize>msb << 7);
  chainLevel(R + (<usize>rsa << 5), R + (<usize>rsb << 5), S + <usize>(rsa * 24), S + <usize>(rsb * 24), T + <usize>(rsa * 24), T + <usize>(rsb * 24), Pp, Pp, true, wra, wrb);
  chainLevel(R + (<usize>msa << 5), R + (<usize>msb << 5), S + <usize>(msa * 24), S + <usize>(msb * 24), T + <usize>(msa * 24), T + <usize>(msb * 24), wra, wrb, false, wma, wmb);
  chainLevel(R + (<usize>esa << 5), R + (<usize>esb << 5), S + <usize>(esa * 24), S + <usize>(esb * 24), T + <usize>(esa * 24), T + <usize>(esb * 24), wma, wmb, false, W + (<usize>esa << 7), W + (<usize>esb << 7));
}

/** Solve legs ea and eb together (see above); false, having written nothing, when the pair does not qualify. */
@inline function solvePair(ea: i32, eb: i32): bool {
  const rsa = I(pRootSlot, ea), msa = I(pMidSlot, ea), esa = I(pEndSlot, ea);
  const rsb = I(pRootSlot, eb), msb = I(pMidSlot, eb), esb = I(pEndSlot, eb);
  if (!directChain(ea, rsa, msa, esa) || !directChain(eb, rsb, msb, esb)) return false;
  const ch = I(pChar, ea), par = I(pParent, rsa);
  if (I(pChar, eb) !== ch || I(pParent, rsb) !== par) return false;
  const sEa = I(pSubtreeEnd, ea), sEb = I(pSubtreeEnd, eb);
  if (!(sEa <= rsb || sEb <= rsa)) return false;
  let wa = F(pWeight, ea), wb = F(pWeight, eb);
  if (!(wa > 0)) wa = 0; else if (wa > 1) wa = 1;
  if (!(wb > 0)) wb = 0; else if (wb > 1) wb = 1;
  if (!(wa > 0 && wb > 0)) return false;
  let wra = F(pRotWeight, ea), wrb = F(pRotWeight, eb);
  if (!(wra > 0) || B(pHasTargetRot, ea) !== 1) wra = 0; else if (wra > 1) wra = 1;
  if (!(wrb > 0) || B(pHasTargetRot, eb) !== 1) wrb = 0; else if (wrb > 1) wrb = 1;
  if (!((wra === 0 || wra === 1) && (wrb === 0 || wrb === 1))) return false;
  const Pp: usize = par >= 0 ? pWorldM + (<usize>(par * 16) << 3) : pRootWs + (<usize>(ch * 16) << 3);
  if (!(cValid && cPar === par && cChar === ch)) { if (nValid && nPar === par && nChar === ch) adoptNext(); else loadParent(Pp, par, ch); }
  if (!cOk || !cConf || !composes2(rsa, msa, esa, rsb, msb, esb)) return false;
  const I00 = spl(i00), I01 = spl(i01), I02 = spl(i02), I10 = spl(i10), I11 = spl(i11), I12 = spl(i12);
  const I20 = spl(i20), I21 = spl(i21), I22 = spl(i22), I30 = spl(i30), I31 = spl(i31), I32 = spl(i32_);
  const zero = spl(0), one = spl(1), mone = spl(-1);
  // (each array's element of the two legs or bones by a base address and immediate offsets: L0..L15, S0..S15)
  const WM = pWorldM;
  // Solve-space inputs: root A, mid B, end C, target.
  const lta: usize = pLocalT + <usize>(rsa * 24), ltb: usize = pLocalT + <usize>(rsb * 24);
  const ax = L0(lta, ltb), ay = L1(lta, ltb), az = L2(lta, ltb);
  const wma: usize = WM + (<usize>msa << 7), wmb: usize = WM + (<usize>msb << 7);
  let x = L12(wma, wmb), y = L13(wma, wmb), z = L14(wma, wmb);
  const bx = ad(ad(ad(mu(I00, x), mu(I10, y)), mu(I20, z)), I30), by = ad(ad(ad(mu(I01, x), mu(I11, y)), mu(I21, z)), I31), bz = ad(ad(ad(mu(I02, x), mu(I12, y)), mu(I22, z)), I32);
  const wea: usize = WM + (<usize>esa << 7), web: usize = WM + (<usize>esb << 7);
  const cwx = L12(wea, web), cwy = L13(wea, web), cwz = L14(wea, web);
  const cx = ad(ad(ad(mu(I00, cwx), mu(I10, cwy)), mu(I20, cwz)), I30), cy = ad(ad(ad(mu(I01, cwx), mu(I11, cwy)), mu(I21, cwz)), I31), cz = ad(ad(ad(mu(I02, cwx), mu(I12, cwy)), mu(I22, cwz)), I32);
  const tga: usize = pTargetWs + <usize>(ea * 24), tgb: usize = pTargetWs + <usize>(eb * 24);
  const twx = L0(tga, tgb), twy = L1(tga, tgb), twz = L2(tga, tgb);
  const tx0 = ad(ad(ad(mu(I00, twx), mu(I10, twy)), mu(I20, twz)), I30), ty0 = ad(ad(ad(mu(I01, twx), mu(I11, twy)), mu(I21, twz)), I31), tz0 = ad(ad(ad(mu(I02, twx), mu(I12, twy)), mu(I22, twz)), I32);
  // (values are computed where they shorten what stays live; each is the same expression as in solveLeg)
  const W = f64x2.replace_lane(spl(wa), 1, wb);
  // the outcome's blended animated target, cw + w (tw − cw) (the end's world translation is overwritten below)
  const mbx = ad(cwx, mu(W, sb(twx, cwx))), mby = ad(cwy, mu(W, sb(twy, cwy))), mbz = ad(cwz, mu(W, sb(twz, cwz)));
  const v1x = sb(bx, ax), v1y = sb(by, ay), v1z = sb(bz, az);
  const v2x = sb(cx, bx), v2y = sb(cy, by), v2z = sb(cz, bz);
  const l1 = sq(ad(ad(mu(v1x, v1x), mu(v1y, v1y)), mu(v1z, v1z)));
  const l2 = sq(ad(ad(mu(v2x, v2x), mu(v2y, v2y)), mu(v2z, v2z)));
  const sum = ad(ad(ad(ad(ad(ad(ad(ad(ad(ad(ad(ax, ay), az), cx), cy), cz), bx), by), bz), tx0), ty0), tz0);
  const l12s = ad(l1, l2);
  const tiny = spl(1e-12);
  if (!all(v128.and(v128.and(f64x2.eq(sb(sum, sum), zero), f64x2.eq(sb(l12s, l12s), zero)), v128.and(f64x2.gt(l1, tiny), f64x2.gt(l2, tiny))))) return false;
  const lmax = l12s;
  const acx = sb(cx, ax), acy = sb(cy, ay), acz = sb(cz, az);
  const tx = ad(cx, mu(W, sb(tx0, cx))), ty = ad(cy, mu(W, sb(ty0, cy))), tz = ad(cz, mu(W, sb(tz0, cz)));
  const lmin = f64x2.abs(sb(l1, l2));
  const il1 = dv(one, l1);
  const u1x = mu(v1x, il1), u1y = mu(v1y, il1), u1z = mu(v1z, il1);
  let dx = sb(tx, ax), dy = sb(ty, ay), dz = sb(tz, az);
  const D = sq(ad(ad(mu(dx, dx), mu(dy, dy)), mu(dz, dz)));
  const tlmax = mu(tiny, lmax);
  if (!all(v128.and(f64x2.lt(D, spl(Infinity)), f64x2.gt(D, tlmax)))) return false;
  // Hinge axis n of the current bend (a straight leg is declined).
  let nx = sb(mu(v1y, v2z), mu(v1z, v2y)), ny = sb(mu(v1z, v2x), mu(v1x, v2z)), nz = sb(mu(v1x, v2y), mu(v1y, v2x));
  const nl = sq(ad(ad(mu(nx, nx), mu(ny, ny)), mu(nz, nz)));
  const l1l2 = mu(l1, l2);
  if (!all(f64x2.gt(nl, mu(mu(spl(1e-7), l1), l2)))) return false;
  // (the knee's current interior angle, used after the tests)
  let c0 = dv(ng(ad(ad(mu(v1x, v2x), mu(v1y, v2y)), mu(v1z, v2z))), l1l2);
  // Knee direction k̂ ⊥ û (toward the pole, default the animated knee; the hinge fallback is declined).
  const id = dv(one, D);
  dx = mu(dx, id); dy = mu(dy, id); dz = mu(dz, id);
  let pvx = v1x, pvy = v1y, pvz = v1z;
  const poleM = flag2(pHasPole, ea, eb);
  if (v128.any_true(poleM)) {
    const pla: usize = pPoleWs + <usize>(ea * 24), plb: usize = pPoleWs + <usize>(eb * 24);
    x = L0(pla, plb); y = L1(pla, plb); z = L2(pla, plb);
    pvx = sel(poleM, sb(ad(ad(ad(mu(spl(i00), x), mu(spl(i10), y)), mu(spl(i20), z)), spl(i30)), ax), pvx);
    pvy = sel(poleM, sb(ad(ad(ad(mu(spl(i01), x), mu(spl(i11), y)), mu(spl(i21), z)), spl(i31)), ay), pvy);
    pvz = sel(poleM, sb(ad(ad(ad(mu(spl(i02), x), mu(spl(i12), y)), mu(spl(i22), z)), spl(i32_)), az), pvz);
  }
  const pd = ad(ad(mu(pvx, dx), mu(pvy, dy)), mu(pvz, dz));
  let kx = sb(pvx, mu(pd, dx)), ky = sb(pvy, mu(pd, dy)), kz = sb(pvz, mu(pd, dz));
  const kl = sq(ad(ad(mu(kx, kx), mu(ky, ky)), mu(kz, kz)));
  const pv2 = ad(ad(mu(pvx, pvx), mu(pvy, pvy)), mu(pvz, pvz));
  if (!all(v128.and(f64x2.gt(mu(kl, kl), mu(spl(1e-14), pv2)), f64x2.eq(sb(kl, kl), zero)))) return false;
  // Softened reach: in lanes when neither leg is in its soft band (softReach's clamps, as lane
  // selects), else per lane in scalar.
  const sfIn = f64x2.replace_lane(spl(F(pSoften, ea)), 1, F(pSoften, eb));
  const sfPos = f64x2.gt(sfIn, zero);
  const sf = sel(sfPos, sel(f64x2.gt(sfIn, spl(0.5)), spl(0.5), sfIn), zero);
  let De = D;
  if (v128.any_true(v128.and(sfPos, f64x2.gt(De, mu(lmax, sb(one, sf)))))) {
    De = f64x2.replace_lane(
      spl(softReach(lane0(D), lane0(lmax), lane0(lmin), F(pSoften, ea), lane0(acx), lane0(acy), lane0(acz))), 1,
      softReach(lane1(D), lane1(lmax), lane1(lmin), F(pSoften, eb), lane1(acx), lane1(acy), lane1(acz)));
  } else {
    De = sel(f64x2.gt(De, lmax), lmax, De);
    De = sel(f64x2.lt(De, lmin), lmin, De);
  }
  // (the wanted knee angle and the extension, used after the tests)
  let c1 = dv(sb(ad(mu(l1, l1), mu(l2, l2)), mu(De, De)), mu(mu(spl(2), l1), l2));
  const ext = dv(De, lmax);
  // The root turn (Shepperd's first case only: trace > 0).
  nx = dv(nx, nl); ny = dv(ny, nl); nz = dv(nz, nl);
  kx = dv(kx, kl); ky = dv(ky, kl); kz = dv(kz, kl);
  const cAm = f64x2.gt(De, tlmax);
  let cA = dv(sb(ad(mu(l1, l1), mu(De, De)), mu(l2, l2)), mu(mu(spl(2), l1), De));
  cA = sel(f64x2.gt(cA, one), one, cA); cA = sel(f64x2.lt(cA, mone), mone, cA);
  cA = sel(cAm, cA, zero);
  const sA = sq(sb(one, mu(cA, cA)));
  const ux = ad(mu(cA, dx), mu(sA, kx)), uy = ad(mu(cA, dy), mu(sA, ky)), uz = ad(mu(cA, dz), mu(sA, kz));
  const mx = sb(mu(ky, dz), mu(kz, dy)), my = sb(mu(kz, dx), mu(kx, dz)), mz = sb(mu(kx, dy), mu(ky, dx));
  const ax0 = sb(mu(u1y, nz), mu(u1z, ny)), ay0 = sb(mu(u1z, nx), mu(u1x, nz)), az0 = sb(mu(u1x, ny), mu(u1y, nx));
  const bx1 = sb(mu(uy, mz), mu(uz, my)), by1 = sb(mu(uz, mx), mu(ux, mz)), bz1 = sb(mu(ux, my), mu(uy, mx));
  const r00 = ad(ad(mu(ux, u1x), mu(mx, nx)), mu(bx1, ax0)), r01 = ad(ad(mu(ux, u1y), mu(mx, ny)), mu(bx1, ay0)), r02 = ad(ad(mu(ux, u1z), mu(mx, nz)), mu(bx1, az0));
  const r10 = ad(ad(mu(uy, u1x), mu(my, nx)), mu(by1, ax0)), r11 = ad(ad(mu(uy, u1y), mu(my, ny)), mu(by1, ay0)), r12 = ad(ad(mu(uy, u1z), mu(my, nz)), mu(by1, az0));
  const r20 = ad(ad(mu(uz, u1x), mu(mz, nx)), mu(bz1, ax0)), r21 = ad(ad(mu(uz, u1y), mu(mz, ny)), mu(bz1, ay0)), r22 = ad(ad(mu(uz, u1z), mu(mz, nz)), mu(bz1, az0));
  const trc = ad(ad(r00, r11), r22);
  if (!all(f64x2.gt(trc, zero))) return false;
  // ---- Every test passed: from here on the pair is solved (writes only below).
  // Knee: interior angle now / wanted, midDelta from half-angle cosines.
  c0 = sel(f64x2.gt(c0, one), one, c0); c0 = sel(f64x2.lt(c0, mone), mone, c0);
  c1 = sel(f64x2.gt(c1, one), one, c1); c1 = sel(f64x2.lt(c1, mone), mone, c1);
  const half = spl(0.5);
  const ch0 = sq(mu(half, ad(one, c0))), sh0 = sq(mu(half, sb(one, c0)));
  const ch1 = sq(mu(half, ad(one, c1))), sh1 = sq(mu(half, sb(one, c1)));
  const sh = sb(mu(sh0, ch1), mu(ch0, sh1));
  const QMx = mu(nx, sh), QMy = mu(ny, sh), QMz = mu(nz, sh), QMw = ad(mu(ch0, ch1), mu(sh0, sh1));
  const S2 = mu(sq(ad(trc, one)), spl(2));
  let QRw = mu(spl(0.25), S2), QRx = dv(sb(r21, r12), S2), QRy = dv(sb(r02, r20), S2), QRz = dv(sb(r10, r01), S2);
  const ql = dv(one, sq(ad(ad(ad(mu(QRx, QRx), mu(QRy, QRy)), mu(QRz, QRz)), mu(QRw, QRw))));
  QRx = mu(QRx, ql); QRy = mu(QRy, ql); QRz = mu(QRz, ql); QRw = mu(QRw, ql);
  // Local rotations: root qr, mid qm, end qe.
  const LR = pLocalR;
  const lra: usize = LR + (<usize>rsa << 5), lrb: usize = LR + (<usize>rsb << 5), lma: usize = LR + (<usize>msa << 5), lmb: usize = LR + (<usize>msb << 5), lea: usize = LR + (<usize>esa << 5), leb: usize = LR + (<usize>esb << 5);
  // (the end's first, then the root's and the mid's: each reads qr and qm afresh, not held meanwhile)
  let qrx = L0(lra, lrb), qry = L1(lra, lrb), qrz = L2(lra, lrb), qrw = L3(lra, lrb);
  let qmx = L0(lma, lmb), qmy = L1(lma, lmb), qmz = L2(lma, lmb), qmw = L3(lma, lmb);
  const pex = sb(ad(ad(mu(qrx, qmw), mu(qrw, qmx)), mu(qry, qmz)), mu(qrz, qmy));
  const pey = sb(ad(ad(mu(qry, qmw), mu(qrw, qmy)), mu(qrz, qmx)), mu(qrx, qmz));
  const pez = sb(ad(ad(mu(qrz, qmw), mu(qrw, qmz)), mu(qrx, qmy)), mu(qry, qmx));
  const pew = sb(sb(sb(mu(qrw, qmw), mu(qrx, qmx)), mu(qry, qmy)), mu(qrz, qmz));
  let qex = zero, qey = zero, qez = zero, qew = zero;
  const fullM = i64x2.replace_lane(i64x2.splat(wra === 1 ? -1 : 0), 1, wrb === 1 ? -1 : 0);
  if (!all(fullM)) {
    const bx2 = L0(lea, leb), by2 = L1(lea, leb), bz2 = L2(lea, leb), bw2 = L3(lea, leb);
    qex = sb(ad(ad(mu(pex, bw2), mu(pew, bx2)), mu(pey, bz2)), mu(pez, by2));
    qey = sb(ad(ad(mu(pey, bw2), mu(pew, by2)), mu(pez, bx2)), mu(pex, bz2));
    qez = sb(ad(ad(mu(pez, bw2), mu(pew, bz2)), mu(pex, by2)), mu(pey, bx2));
    qew = sb(sb(sb(mu(pew, bw2), mu(pex, bx2)), mu(pey, by2)), mu(pez, bz2));
  }
  if (v128.any_true(fullM)) {
    // Full rotation weight: the target orientation in solve space, normalised.
    const Qx = spl(qpx), Qy = spl(qpy), Qz = spl(qpz), Qw = spl(qpw);
    const tra: usize = pTargetRotWs + (<usize>ea << 5), trb: usize = pTargetRotWs + (<usize>eb << 5);
    const bx2 = L0(tra, trb), by2 = L1(tra, trb), bz2 = L2(tra, trb), bw2 = L3(tra, trb);
    const lx = ad(sb(ad(mu(ng(Qx), bw2), mu(Qw, bx2)), mu(Qy, bz2)), mu(Qz, by2));
    let ly = ad(sb(ad(mu(ng(Qy), bw2), mu(Qw, by2)), mu(Qz, bx2)), mu(Qx, bz2));
    let lz = ad(sb(ad(mu(ng(Qz), bw2), mu(Qw, bz2)), mu(Qx, by2)), mu(Qy, bx2));
    const lw = ad(ad(ad(mu(Qw, bw2), mu(Qx, bx2)), mu(Qy, by2)), mu(Qz, bz2));
    if (cMir) { ly = ng(ly); lz = ng(lz); }
    const l = sq(ad(ad(ad(mu(lx, lx), mu(ly, ly)), mu(lz, lz)), mu(lw, lw)));
    const il = dv(one, l);
    const okm = v128.and(fullM, f64x2.gt(l, spl(1e-15)));
    const idm = v128.andnot(fullM, okm); // full weight but a zero target: identity
    qex = sel(okm, mu(lx, il), sel(idm, zero, qex));
    qey = sel(okm, mu(ly, il), sel(idm, zero, qey));
    qez = sel(okm, mu(lz, il), sel(idm, zero, qez));
    qew = sel(okm, mu(lw, il), sel(idm, one, qew));
  }
  // End: R_e' = (rootDelta · midDelta · Q_pe)⁻¹ · Qe.
  const jx = sb(ad(ad(mu(QMx, pew), mu(QMw, pex)), mu(QMy, pez)), mu(QMz, pey));
  const jy = sb(ad(ad(mu(QMy, pew), mu(QMw, pey)), mu(QMz, pex)), mu(QMx, pez));
  const jz = sb(ad(ad(mu(QMz, pew), mu(QMw, pez)), mu(QMx, pey)), mu(QMy, pex));
  const jw = sb(sb(sb(mu(QMw, pew), mu(QMx, pex)), mu(QMy, pey)), mu(QMz, pez));
  const fx = sb(ad(ad(mu(QRx, jw), mu(QRw, jx)), mu(QRy, jz)), mu(QRz, jy));
  const fy = sb(ad(ad(mu(QRy, jw), mu(QRw, jy)), mu(QRz, jx)), mu(QRx, jz));
  const fz = sb(ad(ad(mu(QRz, jw), mu(QRw, jz)), mu(QRx, jy)), mu(QRy, jx));
  const fw = sb(sb(sb(mu(QRw, jw), mu(QRx, jx)), mu(QRy, jy)), mu(QRz, jz));
  St0(lea, leb, ad(sb(ad(mu(ng(fx), qew), mu(fw, qex)), mu(fy, qez)), mu(fz, qey)));
  St1(lea, leb, ad(sb(ad(mu(ng(fy), qew), mu(fw, qey)), mu(fz, qex)), mu(fx, qez)));
  St2(lea, leb, ad(sb(ad(mu(ng(fz), qew), mu(fw, qez)), mu(fx, qey)), mu(fy, qex)));
  St3(lea, leb, ad(ad(ad(mu(fw, qew), mu(fx, qex)), mu(fy, qey)), mu(fz, qez)));
  // Root: R_r' = rootDelta · qr.
  qrx = L0(lra, lrb); qry = L1(lra, lrb); qrz = L2(lra, lrb); qrw = L3(lra, lrb);
  St0(lra, lrb, sb(ad(ad(mu(QRx, qrw), mu(QRw, qrx)), mu(QRy, qrz)), mu(QRz, qry)));
  St1(lra, lrb, sb(ad(ad(mu(QRy, qrw), mu(QRw, qry)), mu(QRz, qrx)), mu(QRx, qrz)));
  St2(lra, lrb, sb(ad(ad(mu(QRz, qrw), mu(QRw, qrz)), mu(QRx, qry)), mu(QRy, qrx)));
  St3(lra, lrb, sb(sb(sb(mu(QRw, qrw), mu(QRx, qrx)), mu(QRy, qry)), mu(QRz, qrz)));
  // Mid: R_m' = qr⁻¹ · midDelta · qr · qm.
  const gx = sb(ad(ad(mu(QMx, qrw), mu(QMw, qrx)), mu(QMy, qrz)), mu(QMz, qry));
  const gy = sb(ad(ad(mu(QMy, qrw), mu(QMw, qry)), mu(QMz, qrx)), mu(QMx, qrz));
  const gz = sb(ad(ad(mu(QMz, qrw), mu(QMw, qrz)), mu(QMx, qry)), mu(QMy, qrx));
  const gw = sb(sb(sb(mu(QMw, qrw), mu(QMx, qrx)), mu(QMy, qry)), mu(QMz, qrz));
  const hx = ad(sb(ad(mu(ng(qrx), gw), mu(qrw, gx)), mu(qry, gz)), mu(qrz, gy));
  const hy = ad(sb(ad(mu(ng(qry), gw), mu(qrw, gy)), mu(qrz, gx)), mu(qrx, gz));
  const hz = ad(sb(ad(mu(ng(qrz), gw), mu(qrw, gz)), mu(qrx, gy)), mu(qry, gx));
  const hw = ad(ad(ad(mu(qrw, gw), mu(qrx, gx)), mu(qry, gy)), mu(qrz, gz));
  qmx = L0(lma, lmb); qmy = L1(lma, lmb); qmz = L2(lma, lmb); qmw = L3(lma, lmb);
  St0(lma, lmb, sb(ad(ad(mu(hx, qmw), mu(hw, qmx)), mu(hy, qmz)), mu(hz, qmy)));
  St1(lma, lmb, sb(ad(ad(mu(hy, qmw), mu(hw, qmy)), mu(hz, qmx)), mu(hx, qmz)));
  St2(lma, lmb, sb(ad(ad(mu(hz, qmw), mu(hw, qmz)), mu(hx, qmy)), mu(hy, qmx)));
  St3(lma, lmb, sb(sb(sb(mu(hw, qmw), mu(hx, qmx)), mu(hy, qmy)), mu(hz, qmz)));
  // World matrices of the chains, then of any other bone of each root's subtree.
  chainWorlds2(rsa, rsb, msa, msb, esa, esb, Pp);
  if (sEa > esa + 1 || msa > rsa + 1 || esa > msa + 1) subtreeWorlds(rsa, msa, esa, sEa);
  if (sEb > esb + 1 || msb > rsb + 1 || esb > msb + 1) subtreeWorlds(rsb, msb, esb, sEb);
  if (cPar >= rsa && I(pOwner, cPar) === I(pOwner, rsa)) cValid = false;
  if (cPar >= rsb && I(pOwner, cPar) === I(pOwner, rsb)) cValid = false;
  if (nPar >= rsa && I(pOwner, nPar) === I(pOwner, rsa)) nValid = false;
  if (nPar >= rsb && I(pOwner, nPar) === I(pOwner, rsb)) nValid = false;
  // Outcome, in world units.
  const ex = L12(wea, web), ey = L13(wea, web), ez = L14(wea, web);
  const ox = sb(mbx, ex), oy = sb(mby, ey), oz = sb(mbz, ez);
  const miss = sq(ad(ad(mu(ox, ox), mu(oy, oy)), mu(oz, oz)));
  P(pMissWs, ea, eb, miss);
  const fxd = sb(ex, L0(tga, tgb)), fyd = sb(ey, L1(tga, tgb)), fzd = sb(ez, L2(tga, tgb));
  P(pMissFullWs, ea, eb, sq(ad(ad(mu(fxd, fxd), mu(fyd, fyd)), mu(fzd, fzd))));
  SB(pReached, ea, lane0(miss) <= F(pReachTol, ea) ? 1 : 0);
  SB(pReached, eb, lane1(miss) <= F(pReachTol, eb) ? 1 : 0);
  P(pExtension, ea, eb, ext);
  SB(pInvalid, ea, 0); SB(pInvalid, eb, 0);
  SB(pSolved, ea, 1); SB(pSolved, eb, 1);
  return true;
}

// ---- Any chain, step by step ----------------------------------------------------------------------
//
// Limbs the fused paths do not take: bones between the joints, an IK-controller end that hangs
// outside the chain, a mirroring or non-uniform scale on the chain, a non-conformal root parent,
// a stretchy (non-uniformly scaled) upper bone. The solve runs in the root parent's frame through
// the flat two-bone record ({@link twoBoneCore}); each bone's new local rotation is the solve-space
// delta seen from its own parent frame, and the end's rotation is solved from its parent's new
// world matrix ({@link localRotationForWorld}: exact under any affine parent in the convention of
// rotationOfMatrix). A stretchy upper bone makes the lower bone's solve-space length depend on the
// elbow angle: the reach search ({@link rsBegin}, {@link rsNext}) then picks the distances to ask
// the record for, and the chain swings about the root onto the target's direction at the end.

// The flat two-bone record (f64 indices): in root A 0, mid B 3, end C 6, target T 9, pole 12, bend
// hint 15, weight 18, soften 19, has pole 42; out rootDelta 20, midDelta 24, new mid 28, new end
// 31, miss 34, extension 35, upper length 36, lower length 37, blended target 38.
const IO: usize = memory.data(64 << 3, 16);
const T_QR = 20, T_QM = 24, T_NC = 31, T_EXT = 35, T_L1 = 36, T_L2 = 37, T_BT = 38;
// Scratch of the step-by-step path (f64 each).
const Q: usize = memory.data(32 << 3, 16); // quaternions (see solveLimb)
const VS: usize = memory.data(16 << 3, 16); // points
const V2: usize = memory.data(16 << 3, 16); // an inverse matrix; localRotationForWorld's result
const PI: usize = memory.data(16 << 3, 16); // the root parent's inverse
const QP: usize = memory.data(4 << 3, 16); // the root parent's rotation
const SV: usize = memory.data(16 << 3, 16); // the animated locals (root, mid, end rotations; end translation)
const TG: usize = memory.data(4 << 3, 16); // the target asked for (world)
const CQ: usize = memory.data(4 << 3, 16); // the final swing
const MM: usize = memory.data(16 << 3, 16); // a 3×3 in a column-major 4×4
const RR: usize = memory.data(16 << 3, 16); // localRotationForWorld's rotation
const RS: usize = memory.data(32 << 3, 16); // the reach search's state

/** Byte address of element i of the f64 array at p. */
@inline function A(p: usize, i: i32): usize { return p + (<usize>i << 3); }
/** Byte address of the 4×4 matrix of slot (or character) k in the matrix array at p. */
@inline function mat(p: usize, k: i32): usize { return p + (<usize>k << 7); }

/** The record's two-bone solve at byte address io (layout above); false on invalid input (non-finite values, a zero-length bone): identity deltas, the original positions. */
function twoBoneCore(io: usize): bool {
  const weight = F(io, 18), soften = F(io, 19), hasPole = F(io, 42) === 1;
  const ax = F(io, 0), ay = F(io, 1), az = F(io, 2);
  const bx = F(io, 3), by = F(io, 4), bz = F(io, 5);
  const cx = F(io, 6), cy = F(io, 7), cz = F(io, 8);
  SF(io, 20, 0); SF(io, 21, 0); SF(io, 22, 0); SF(io, 23, 1);
  SF(io, 24, 0); SF(io, 25, 0); SF(io, 26, 0); SF(io, 27, 1);
  SF(io, 28, bx); SF(io, 29, by); SF(io, 30, bz);
  SF(io, 31, cx); SF(io, 32, cy); SF(io, 33, cz);
  SF(io, 34, 0); SF(io, 35, 0);
  const v1x = bx - ax, v1y = by - ay, v1z = bz - az;
  const v2x = cx - bx, v2y = cy - by, v2z = cz - bz;
  const l1 = Math.sqrt(v1x * v1x + v1y * v1y + v1z * v1z);
  const l2 = Math.sqrt(v2x * v2x + v2y * v2y + v2z * v2z);
  SF(io, 36, l1); SF(io, 37, l2);
  let w = weight;
  if (!(w > 0)) w = 0; else if (w > 1) w = 1;
  const tx0 = F(io, 9), ty0 = F(io, 10), tz0 = F(io, 11);
  const sum = ax + ay + az + cx + cy + cz + bx + by + bz + tx0 + ty0 + tz0;
  if (!isFinite<f64>(sum) || !(l1 > 1e-12) || !(l2 > 1e-12) || !isFinite<f64>(l1 + l2)) {
    SF(io, 38, cx); SF(io, 39, cy); SF(io, 40, cz);
    return false;
  }
  const tx = cx + w * (tx0 - cx), ty = cy + w * (ty0 - cy), tz = cz + w * (tz0 - cz);
  SF(io, 38, tx); SF(io, 39, ty); SF(io, 40, tz);
  const lmax = l1 + l2;
  const acx = cx - ax, acy = cy - ay, acz = cz - az;
  if (w === 0) {
    const mx = cx - tx, my = cy - ty, mz = cz - tz;
    SF(io, 34, Math.sqrt(mx * mx + my * my + mz * mz));
    SF(io, 35, Math.sqrt(acx * acx + acy * acy + acz * acz) / lmax);
    return true;
  }
  const De = bendSolve(v1x, v1y, v1z, v2x, v2y, v2z, l1, l2, tx - ax, ty - ay, tz - az, acx, acy, acz, soften, F(io, 15), F(io, 16), F(io, 17),
    hasPole ? F(io, 12) - ax : v1x, hasPole ? F(io, 13) - ay : v1y, hasPole ? F(io, 14) - az : v1z);
  const dx = gDx, dy = gDy, dz = gDz;
  SF(io, 24, gQMx); SF(io, 25, gQMy); SF(io, 26, gQMz); SF(io, 27, gQMw);
  SF(io, 20, rx); SF(io, 21, ry); SF(io, 22, rz); SF(io, 23, rw);
  // New positions (rootDelta's new upper-bone direction is in ux..uz).
  SF(io, 28, ax + l1 * gUx); SF(io, 29, ay + l1 * gUy); SF(io, 30, az + l1 * gUz);
  const ncx = ax + De * dx, ncy = ay + De * dy, ncz = az + De * dz;
  SF(io, 31, ncx); SF(io, 32, ncy); SF(io, 33, ncz);
  const ex = ncx - tx, ey = ncy - ty, ez = ncz - tz;
  SF(io, 34, Math.sqrt(ex * ex + ey * ey + ez * ez));
  SF(io, 35, De / lmax);
  return true;
}

// bendSolve's results besides the root turn (rx..rw): the knee's turn, the target direction.
let gQMx: f64 = 0, gQMy: f64 = 0, gQMz: f64 = 0, gQMw: f64 = 1, gDx: f64 = 0, gDy: f64 = 0, gDz: f64 = 0;

/**
 * The two-bone solve in one frame: bones v1 (root → mid) and v2 (mid → end) of lengths l1, l2
 * (both > 1e-12), the offset td of the blended target from the root, the animated root → end ac,
 * the soften fraction, the bend hint h (for a straight limb) and the knee's guide pv (the pole's
 * offset from the root, or v1 to keep the animated bend plane). Returns the reached distance De
 * (softened, clamped to [|l1 − l2|, l1 + l2]); the root turn in rx..rw, the knee's turn in gQM..,
 * the unit target direction in gD.., the new upper-bone direction in gU...
 */
function bendSolve(v1x: f64, v1y: f64, v1z: f64, v2x: f64, v2y: f64, v2z: f64, l1: f64, l2: f64, tdx: f64, tdy: f64, tdz: f64,
  acx: f64, acy: f64, acz: f64, soften: f64, hx: f64, hy: f64, hz: f64, pvx: f64, pvy: f64, pvz: f64): f64 {
  const lmax = l1 + l2, lmin = Math.abs(l1 - l2);
  const il1 = 1 / l1;
  const u1x = v1x * il1, u1y = v1y * il1, u1z = v1z * il1;
  const D = targetDirection(tdx, tdy, tdz, acx, acy, acz, u1x, u1y, u1z, lmax);
  const dx = rx, dy = ry, dz = rz;
  gDx = dx; gDy = dy; gDz = dz;
  const De = softReach(D, lmax, lmin, soften, acx, acy, acz);
  // Hinge axis n of the current bend; a straight limb bends its knee toward the hint.
  let nx = v1y * v2z - v1z * v2y, ny = v1z * v2x - v1x * v2z, nz = v1x * v2y - v1y * v2x;
  const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (nl > 1e-7 * l1 * l2) { nx /= nl; ny /= nl; nz /= nl; } else {
    perpendicular(hx, hy, hz, u1x, u1y, u1z);
    nx = ry * u1z - rz * u1y; ny = rz * u1x - rx * u1z; nz = rx * u1y - ry * u1x;
  }
  kneeDelta(v1x, v1y, v1z, v2x, v2y, v2z, l1, l2, De, nx, ny, nz);
  gQMx = rx; gQMy = ry; gQMz = rz; gQMw = rw;
  // Knee direction k̂ ⊥ û: toward the guide; on the line, keep the hinge.
  kneeDirection(pvx, pvy, pvz, dx, dy, dz, nx, ny, nz);
  rootDelta(l1, l2, De, lmax, dx, dy, dz, rx, ry, rz, u1x, u1y, u1z, nx, ny, nz);
  return De;
}

/**
 * The unit direction root → blended target (into rx, ry, rz) and its distance (returned; 0 for a
 * target at the root): the offset d (its square may overflow), else the animated root → end ac,
 * else the upper bone u1.
 */
function targetDirection(dx: f64, dy: f64, dz: f64, acx: f64, acy: f64, acz: f64, u1x: f64, u1y: f64, u1z: f64, lmax: f64): f64 {
  let D = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (D === Infinity) { unitOfHuge(dx, dy, dz); return D; } // (a target beyond 1e154: the square overflowed)
  if (D > 1e-12 * lmax) { const id = 1 / D; rx = dx * id; ry = dy * id; rz = dz * id; return D; }
  const l = Math.sqrt(acx * acx + acy * acy + acz * acz);
  if (l > 1e-12 * lmax) { rx = acx / l; ry = acy / l; rz = acz / l; } else { rx = u1x; ry = u1y; rz = u1z; }
  return 0;
}

/**
 * The knee's turn (into rx..rw) about the unit hinge n: from the interior angle now (bones v1, v2
 * of lengths l1, l2) to the one that puts the end at distance De (law of cosines), from
 * half-angle cosines (no trigonometric calls).
 */
function kneeDelta(v1x: f64, v1y: f64, v1z: f64, v2x: f64, v2y: f64, v2z: f64, l1: f64, l2: f64, De: f64, nx: f64, ny: f64, nz: f64): void {
  let c0 = -(v1x * v2x + v1y * v2y + v1z * v2z) / (l1 * l2);
  if (c0 > 1) c0 = 1; else if (c0 < -1) c0 = -1;
  let c1 = (l1 * l1 + l2 * l2 - De * De) / (2 * l1 * l2);
  if (c1 > 1) c1 = 1; else if (c1 < -1) c1 = -1;
  const ch0 = Math.sqrt(0.5 * (1 + c0)), sh0 = Math.sqrt(0.5 * (1 - c0));
  const ch1 = Math.sqrt(0.5 * (1 + c1)), sh1 = Math.sqrt(0.5 * (1 - c1));
  const sh = sh0 * ch1 - ch0 * sh1;
  rx = nx * sh; ry = ny * sh; rz = nz * sh; rw = ch0 * ch1 + sh0 * sh1;
}

/**
 * The unit knee direction k ⊥ d (into rx, ry, rz): the pole offset pv made perpendicular to the
 * target direction d; on the line, d × n (keep the hinge); else any perpendicular.
 */
function kneeDirection(pvx: f64, pvy: f64, pvz: f64, dx: f64, dy: f64, dz: f64, nx: f64, ny: f64, nz: f64): void {
  const pd = pvx * dx + pvy * dy + pvz * dz;
  let kx = pvx - pd * dx, ky = pvy - pd * dy, kz = pvz - pd * dz;
  let kl = Math.sqrt(kx * kx + ky * ky + kz * kz);
  const pv2 = pvx * pvx + pvy * pvy + pvz * pvz;
  if (!(kl * kl > 1e-14 * pv2) || !isFinite<f64>(kl)) {
    kx = dy * nz - dz * ny; ky = dz * nx - dx * nz; kz = dx * ny - dy * nx;
    kl = Math.sqrt(kx * kx + ky * ky + kz * kz);
    if (!(kl > 1e-9)) { anyPerpendicular(dx, dy, dz); kx = rx; ky = ry; kz = rz; kl = rw; }
  }
  rx = kx / kl; ry = ky / kl; rz = kz / kl;
}

/** The unit vector of the hint (hx, hy, hz) made perpendicular to the unit u, or of the axis least along u when the hint has no such part; into rx, ry, rz. */
function perpendicular(hx: f64, hy: f64, hz: f64, ux: f64, uy: f64, uz: f64): void {
  const hp = hx * ux + hy * uy + hz * uz;
  let kx = hx - hp * ux, ky = hy - hp * uy, kz = hz - hp * uz;
  let kl = Math.sqrt(kx * kx + ky * ky + kz * kz);
  if (!(kl > 1e-9) || !isFinite<f64>(kl)) { anyPerpendicular(ux, uy, uz); kx = rx; ky = ry; kz = rz; kl = rw; }
  rx = kx / kl; ry = ky / kl; rz = kz / kl;
}

/** The axis least along the unit u, made perpendicular to it (not normalised) into rx, ry, rz, its length into rw. */
function anyPerpendicular(ux: f64, uy: f64, uz: f64): void {
  const ax = Math.abs(ux), ay = Math.abs(uy), az = Math.abs(uz);
  let kx: f64 = 0, ky: f64 = 0, kz: f64 = 0;
  if (ax <= ay && ax <= az) kx = 1; else if (ay <= az) ky = 1; else kz = 1;
  const kp = kx * ux + ky * uy + kz * uz;
  kx -= kp * ux; ky -= kp * uy; kz -= kp * uz;
  rx = kx; ry = ky; rz = kz; rw = Math.sqrt(kx * kx + ky * ky + kz * kz);
}

// rootDelta's new upper-bone direction (for the record's new mid).
let gUx: f64 = 0, gUy: f64 = 0, gUz: f64 = 0;

/**
 * The root turn (into rx..rw): the rotation taking the frame (u1, n, u1 × n) onto (u1', n',
 * u1' × n'), u1' at the root angle of the law of cosines from the target direction d toward the
 * knee direction k, n' = k × d. Matrix → quaternion by Shepperd's four cases, normalised.
 */
function rootDelta(l1: f64, l2: f64, De: f64, lmax: f64, dx: f64, dy: f64, dz: f64, kx: f64, ky: f64, kz: f64,
  u1x: f64, u1y: f64, u1z: f64, nx: f64, ny: f64, nz: f64): void {
  let cA: f64 = 0;
  if (De > 1e-12 * lmax) { cA = (l1 * l1 + De * De - l2 * l2) / (2 * l1 * De); if (cA > 1) cA = 1; else if (cA < -1) cA = -1; }
  const sA = Math.sqrt(1 - cA * cA);
  const ux = cA * dx + sA * kx, uy = cA * dy + sA * ky, uz = cA * dz + sA * kz;
  gUx = ux; gUy = uy; gUz = uz;
  const mx = ky * dz - kz * dy, my = kz * dx - kx * dz, mz = kx * dy - ky * dx;
  const ax0 = u1y * nz - u1z * ny, ay0 = u1z * nx - u1x * nz, az0 = u1x * ny - u1y * nx;
  const bx1 = uy * mz - uz * my, by1 = uz * mx - ux * mz, bz1 = ux * my - uy * mx;
  const r00 = ux * u1x + mx * nx + bx1 * ax0, r01 = ux * u1y + mx * ny + bx1 * ay0, r02 = ux * u1z + mx * nz + bx1 * az0;
  const r10 = uy * u1x + my * nx + by1 * ax0, r11 = uy * u1y + my * ny + by1 * ay0, r12 = uy * u1z + my * nz + by1 * az0;
  const r20 = uz * u1x + mz * nx + bz1 * ax0, r21 = uz * u1y + mz * ny + bz1 * ay0, r22 = uz * u1z + mz * nz + bz1 * az0;
  shepperd(r00, r01, r02, r10, r11, r12, r20, r21, r22);
  const ql = 1 / Math.sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
  rx *= ql; ry *= ql; rz *= ql; rw *= ql;
}

/** The rotation matrix (rows r0., r1., r2.) as a quaternion (wasm/quatMath.ts), into rx..rw. */
function shepperd(r00: f64, r01: f64, r02: f64, r10: f64, r11: f64, r12: f64, r20: f64, r21: f64, r22: f64): void {
  shepperdQ(r00, r01, r02, r10, r11, r12, r20, r21, r22);
  rx = qx; ry = qy; rz = qz; rw = qw;
}

/**
 * The standalone solve (runtime/twoBone.ts `solveTwoBone`): the flat record at {@link twoBoneRecord}
 * in, its outputs written there; 1 solved, 0 invalid input.
 */
export function twoBoneSolveRecord(): i32 { return twoBoneCore(IO) ? 1 : 0; }

/** Byte address of the flat two-bone record (64 f64; layout above). */
export function twoBoneRecord(): usize { return IO; }

/** The end of the kernel's static data (its scratch): a layout's arrays must start above it. */
export function staticEnd(): usize { return __heap_base; }

/** out = a' · b, a' = a with its vector part times s (1: a, −1: a⁻¹ for a unit a); quaternions at byte addresses, out may alias either. */
function qMulS(out: usize, a: usize, b: usize, s: f64): void {
  const ax = s * F(a, 0), ay = s * F(a, 1), az = s * F(a, 2), aw = F(a, 3);
  const bx = F(b, 0), by = F(b, 1), bz = F(b, 2), bw = F(b, 3);
  SF(out, 0, ax * bw + aw * bx + ay * bz - az * by);
  SF(out, 1, ay * bw + aw * by + az * bx - ax * bz);
  SF(out, 2, az * bw + aw * bz + ax * by - ay * bx);
  SF(out, 3, aw * bw - ax * bx - ay * by - az * bz);
}

/** out = a · b (out may alias either). */
@inline function qMulP(out: usize, a: usize, b: usize): void { qMulS(out, a, b, 1); }

/** out = a⁻¹ · b for a unit a (out may alias either). */
@inline function qConjMulP(out: usize, a: usize, b: usize): void { qMulS(out, a, b, -1); }

/** out = m · (p, 1) (an affine point transform; out may alias p). */
function transformPoint(out: usize, m: usize, p: usize): void {
  const x = F(p, 0), y = F(p, 1), z = F(p, 2);
  SF(out, 0, F(m, 0) * x + F(m, 4) * y + F(m, 8) * z + F(m, 12));
  SF(out, 1, F(m, 1) * x + F(m, 5) * y + F(m, 9) * z + F(m, 13));
  SF(out, 2, F(m, 2) * x + F(m, 6) * y + F(m, 10) * z + F(m, 14));
}

/** out = the inverse of the affine matrix m; identity and false when m is singular or not finite. */
function invertAffine(out: usize, m: usize): bool {
  const ok = loadInverse(m);
  SF(out, 0, gI00); SF(out, 1, gI01); SF(out, 2, gI02); SF(out, 3, 0);
  SF(out, 4, gI10); SF(out, 5, gI11); SF(out, 6, gI12); SF(out, 7, 0);
  SF(out, 8, gI20); SF(out, 9, gI21); SF(out, 10, gI22); SF(out, 11, 0);
  SF(out, 12, gI30); SF(out, 13, gI31); SF(out, 14, gI32); SF(out, 15, 1);
  return ok;
}

// loadInverse's result: the inverse's linear part (gIrc: row r of column c's… as loadParent's iRC) and translation.
let gI00: f64 = 1, gI01: f64 = 0, gI02: f64 = 0, gI10: f64 = 0, gI11: f64 = 1, gI12: f64 = 0, gI20: f64 = 0, gI21: f64 = 0, gI22: f64 = 1;
let gI30: f64 = 0, gI31: f64 = 0, gI32: f64 = 0, gDet: f64 = 1;

/** The inverse of the affine matrix at byte address m into gI.. (identity and false when singular or not finite); its determinant into gDet. */
function loadInverse(m: usize): bool {
  const a00 = F(m, 0), a01 = F(m, 1), a02 = F(m, 2);
  const a10 = F(m, 4), a11 = F(m, 5), a12 = F(m, 6);
  const a20 = F(m, 8), a21 = F(m, 9), a22 = F(m, 10);
  const ptx = F(m, 12), pty = F(m, 13), ptz = F(m, 14);
  const b01 = a22 * a11 - a12 * a21, b11 = -a22 * a10 + a12 * a20, b21 = a21 * a10 - a11 * a20;
  const det = a00 * b01 + a01 * b11 + a02 * b21;
  gDet = det;
  if (!(Math.abs(det) > 1e-300) || !isFinite<f64>(det) || !isFinite<f64>(ptx + pty + ptz)) {
    gI00 = 1; gI01 = 0; gI02 = 0; gI10 = 0; gI11 = 1; gI12 = 0; gI20 = 0; gI21 = 0; gI22 = 1; gI30 = 0; gI31 = 0; gI32 = 0;
    return false;
  }
  const id = 1 / det;
  gI00 = b01 * id; gI01 = (-a22 * a01 + a02 * a21) * id; gI02 = (a12 * a01 - a02 * a11) * id;
  gI10 = b11 * id; gI11 = (a22 * a00 - a02 * a20) * id; gI12 = (-a12 * a00 + a02 * a10) * id;
  gI20 = b21 * id; gI21 = (-a21 * a00 + a01 * a20) * id; gI22 = (a11 * a00 - a01 * a10) * id;
  gI30 = -(gI00 * ptx + gI10 * pty + gI20 * ptz);
  gI31 = -(gI01 * ptx + gI11 * pty + gI21 * ptz);
  gI32 = -(gI02 * ptx + gI12 * pty + gI22 * ptz);
  return true;
}

/** True when the linear part of the matrix at m is mirrored (negative determinant). */
function isMirrored(m: usize): bool {
  const a00 = F(m, 0), a01 = F(m, 1), a02 = F(m, 2), a10 = F(m, 4), a11 = F(m, 5), a12 = F(m, 6), a20 = F(m, 8), a21 = F(m, 9), a22 = F(m, 10);
  return a00 * (a22 * a11 - a12 * a21) + a01 * (-a22 * a10 + a12 * a20) + a02 * (a21 * a10 - a11 * a20) < 0;
}

/** out = rotationOfMatrix of the matrix at m. */
function rotationOf(out: usize, m: usize): void {
  rotationOfMatrix(m);
  SF(out, 0, rx); SF(out, 1, ry); SF(out, 2, rz); SF(out, 3, rw);
}

/** World rotation q → the local rotation under a parent of world rotation qP, mirrored or not: M(qP⁻¹ · q), M negating y and z (out may alias q). */
function rotationToLocal(out: usize, qP: usize, q: usize, mirrored: bool): void {
  qConjMulP(out, qP, q);
  if (mirrored) { SF(out, 1, -F(out, 1)); SF(out, 2, -F(out, 2)); }
}

/** The inverse of {@link rotationToLocal}: qP · M(q) (out may alias q). */
function rotationToWorld(out: usize, qP: usize, q: usize, mirrored: bool): void {
  if (mirrored) { SF(out, 0, F(q, 0)); SF(out, 1, -F(q, 1)); SF(out, 2, -F(q, 2)); SF(out, 3, F(q, 3)); qMulP(out, qP, out); } else qMulP(out, qP, q);
}

/** q normalised in place (identity when its length is 1e-15 or less). */
function normalize(q: usize): void {
  const x = F(q, 0), y = F(q, 1), z = F(q, 2), w = F(q, 3);
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  if (l > 1e-15) { const il = 1 / l; SF(q, 0, x * il); SF(q, 1, y * il); SF(q, 2, z * il); SF(q, 3, w * il); } else { SF(q, 0, 0); SF(q, 1, 0); SF(q, 2, 0); SF(q, 3, 1); }
}

/** out = slerp(a, b, f) (out may alias either). */
function slerpP(out: usize, a: usize, b: usize, f: f64): void {
  slerp(F(a, 0), F(a, 1), F(a, 2), F(a, 3), F(b, 0), F(b, 1), F(b, 2), F(b, 3), f);
  SF(out, 0, rx); SF(out, 1, ry); SF(out, 2, rz); SF(out, 3, rw);
}

/** out = the shortest rotation taking the direction a onto b (wasm/quatMath.ts). */
function qSwing(out: usize, a: usize, b: usize): void {
  swingQ(F(a, 0), F(a, 1), F(a, 2), F(b, 0), F(b, 1), F(b, 2));
  SF(out, 0, qx); SF(out, 1, qy); SF(out, 2, qz); SF(out, 3, qw);
}

/**
 * The local rotation (into out) giving a bone of local scale S the world rotation q under a parent
 * of world matrix P (any invertible affine): its world x axis along q's x, its world y axis in the
 * plane of q's x and y on the side of q's y. False (out unchanged) for a singular parent or a zero
 * or non-finite scale.
 */
function localRotationForWorld(out: usize, P: usize, S: usize, q: usize): bool {
  const s0 = F(S, 0), s1 = F(S, 1), s2 = F(S, 2);
  if (!loadInverse(P) || !(s0 !== 0 && s1 !== 0 && s2 !== 0) || !isFinite<f64>(s0 * s1 * s2)) return false;
  const x = F(q, 0), y = F(q, 1), z = F(q, 2), w = F(q, 3);
  const tx0 = 1 - 2 * (y * y + z * z), tx1 = 2 * (x * y + w * z), tx2 = 2 * (x * z - w * y);
  const ty0 = 2 * (x * y - w * z), ty1 = 1 - 2 * (x * x + z * z), ty2 = 2 * (y * z + w * x);
  let r0 = gI00 * tx0 + gI10 * tx1 + gI20 * tx2, r1 = gI01 * tx0 + gI11 * tx1 + gI21 * tx2, r2 = gI02 * tx0 + gI12 * tx1 + gI22 * tx2;
  let l = Math.sqrt(r0 * r0 + r1 * r1 + r2 * r2);
  if (!(l > 1e-300) || !isFinite<f64>(l)) return false;
  const mirrored = (gDet < 0) !== (s0 * s1 * s2 < 0);
  l = (s0 < 0) !== mirrored ? -1 / l : 1 / l;
  r0 *= l; r1 *= l; r2 *= l;
  const u0 = gI00 * ty0 + gI10 * ty1 + gI20 * ty2, u1 = gI01 * ty0 + gI11 * ty1 + gI21 * ty2, u2 = gI02 * ty0 + gI12 * ty1 + gI22 * ty2;
  const dp = u0 * r0 + u1 * r1 + u2 * r2;
  let v0 = u0 - dp * r0, v1 = u1 - dp * r1, v2 = u2 - dp * r2;
  l = Math.sqrt(v0 * v0 + v1 * v1 + v2 * v2);
  if (!(l > 1e-300) || !isFinite<f64>(l)) return false;
  l = s1 < 0 ? -1 / l : 1 / l;
  v0 *= l; v1 *= l; v2 *= l;
  SF(RR, 0, r0); SF(RR, 1, r1); SF(RR, 2, r2); SF(RR, 4, v0); SF(RR, 5, v1); SF(RR, 6, v2);
  SF(RR, 8, r1 * v2 - r2 * v1); SF(RR, 9, r2 * v0 - r0 * v2); SF(RR, 10, r0 * v1 - r1 * v0);
  rotationOf(out, RR);
  return true;
}

/** out = R_top · … · R_bottom along the parent chain (local rotations). */
function pathRot(top: i32, bottom: i32, out: usize): void {
  const r: usize = A(pLocalR, bottom * 4);
  SF(out, 0, F(r, 0)); SF(out, 1, F(r, 1)); SF(out, 2, F(r, 2)); SF(out, 3, F(r, 3));
  if (bottom === top) return;
  let s = I(pParent, bottom);
  for (let n = 0; s >= 0 && s !== top && n < gBones; n++) { qMulP(out, A(pLocalR, s * 4), out); s = I(pParent, s); }
  if (s === top) qMulP(out, A(pLocalR, top * 4), out);
}

/**
 * True when every bone from `pm` up to the root `rs` has a uniform scale: of uniform magnitude
 * (signs free: a mirror is exact) when `positive` is false, uniform and positive when true.
 */
function pathScalesUniform(rs: i32, pm: i32, positive: bool): bool {
  let s = pm;
  for (let n = 0; s >= 0 && n < gBones; n++) {
    if (!(positive ? uniformPositive(s) : uniformMagnitude(s))) return false;
    if (s === rs) return true;
    s = I(pParent, s);
  }
  return true;
}

/**
 * out = L⁻¹ · rot(q) · L, L the linear map from the frame of world matrix W to solve space (PI · W):
 * exact when L is conformal, the nearest rotation (rotationOfMatrix) otherwise; q itself when L is singular.
 */
function conjugateByFrame(out: usize, q: usize, W: usize): void {
  const x = F(q, 0), y = F(q, 1), z = F(q, 2), w = F(q, 3);
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2, wx = w * x2, wy = w * y2, wz = w * z2;
  const g00 = 1 - (yy + zz), g10 = xy + wz, g20 = xz - wy, g01 = xy - wz, g11 = 1 - (xx + zz), g21 = yz + wx, g02 = xz + wy, g12 = yz - wx, g22 = 1 - (xx + yy);
  const L00 = F(PI, 0) * F(W, 0) + F(PI, 4) * F(W, 1) + F(PI, 8) * F(W, 2);
  const L10 = F(PI, 1) * F(W, 0) + F(PI, 5) * F(W, 1) + F(PI, 9) * F(W, 2);
  const L20 = F(PI, 2) * F(W, 0) + F(PI, 6) * F(W, 1) + F(PI, 10) * F(W, 2);
  const L01 = F(PI, 0) * F(W, 4) + F(PI, 4) * F(W, 5) + F(PI, 8) * F(W, 6);
  const L11 = F(PI, 1) * F(W, 4) + F(PI, 5) * F(W, 5) + F(PI, 9) * F(W, 6);
  const L21 = F(PI, 2) * F(W, 4) + F(PI, 6) * F(W, 5) + F(PI, 10) * F(W, 6);
  const L02 = F(PI, 0) * F(W, 8) + F(PI, 4) * F(W, 9) + F(PI, 8) * F(W, 10);
  const L12 = F(PI, 1) * F(W, 8) + F(PI, 5) * F(W, 9) + F(PI, 9) * F(W, 10);
  const L22 = F(PI, 2) * F(W, 8) + F(PI, 6) * F(W, 9) + F(PI, 10) * F(W, 10);
  const c00 = L11 * L22 - L12 * L21, c01 = L12 * L20 - L10 * L22, c02 = L10 * L21 - L11 * L20;
  const det = L00 * c00 + L01 * c01 + L02 * c02;
  if (!(Math.abs(det) > 1e-300) || !isFinite<f64>(det)) { SF(out, 0, x); SF(out, 1, y); SF(out, 2, z); SF(out, 3, w); return; }
  const id = 1 / det;
  const i00 = c00 * id, i01 = (L02 * L21 - L01 * L22) * id, i02 = (L01 * L12 - L02 * L11) * id;
  const i10 = c01 * id, i11 = (L00 * L22 - L02 * L20) * id, i12 = (L02 * L10 - L00 * L12) * id;
  const i20 = c02 * id, i21 = (L01 * L20 - L00 * L21) * id, i22 = (L00 * L11 - L01 * L10) * id;
  const a00 = g00 * L00 + g01 * L10 + g02 * L20, a01 = g00 * L01 + g01 * L11 + g02 * L21, a02 = g00 * L02 + g01 * L12 + g02 * L22;
  const a10 = g10 * L00 + g11 * L10 + g12 * L20, a11 = g10 * L01 + g11 * L11 + g12 * L21, a12 = g10 * L02 + g11 * L12 + g12 * L22;
  const a20 = g20 * L00 + g21 * L10 + g22 * L20, a21 = g20 * L01 + g21 * L11 + g22 * L21, a22 = g20 * L02 + g21 * L12 + g22 * L22;
  SF(MM, 0, i00 * a00 + i01 * a10 + i02 * a20); SF(MM, 4, i00 * a01 + i01 * a11 + i02 * a21); SF(MM, 8, i00 * a02 + i01 * a12 + i02 * a22);
  SF(MM, 1, i10 * a00 + i11 * a10 + i12 * a20); SF(MM, 5, i10 * a01 + i11 * a11 + i12 * a21); SF(MM, 9, i10 * a02 + i11 * a12 + i12 * a22);
  SF(MM, 2, i20 * a00 + i21 * a10 + i22 * a20); SF(MM, 6, i20 * a01 + i21 * a11 + i22 * a21); SF(MM, 10, i20 * a02 + i21 * a12 + i22 * a22);
  rotationOf(out, MM);
}

/** Recompute the world matrices of `slot` and of its descendants in its character's slot range. */
function updateSubtree(slot: i32): void {
  const id = I(pOwner, slot);
  if (id < 0 || id >= gChars) return;
  let end = I(pCharStart, id) + I(pCharCount, id);
  if (end > gBones) end = gBones;
  worldOfSlot(slot);
  SB(pDirty, slot, 1);
  let last = slot;
  for (let k = slot + 1; k < end; k++) {
    const p = I(pParent, k);
    if (p >= 0 && p < gBones && B(pDirty, p) === 1) { worldOfSlot(k); SB(pDirty, k, 1); last = k; }
  }
  for (let k = slot; k <= last; k++) SB(pDirty, k, 0);
}

/**
 * The end bone's wanted world rotation into Q[24..27]: its animated world rotation (read from
 * worldM before the solve writes the end) slerped toward the limb's target by wr ∈ [0, 1].
 */
function endWantedWs(e: i32, wr: f64): void {
  if (wr < 1) rotationOf(A(Q, 24), mat(pWorldM, I(pEndSlot, e)));
  if (wr > 0) {
    for (let k = 0; k < 4; k++) SF(Q, 28 + k, F(pTargetRotWs, e * 4 + k));
    normalize(A(Q, 28));
    if (wr === 1) { for (let k = 0; k < 4; k++) SF(Q, 24 + k, F(Q, 28 + k)); } else slerpP(A(Q, 24), A(Q, 24), A(Q, 28), wr);
  }
}

/** The end's local rotation solved from its parent's new world matrix P to give the wanted world rotation Q[24..27] (kept when P is singular or the end's scale zero). */
function endRotationSheared(es: i32, P: usize): void {
  if (localRotationForWorld(V2, P, A(pLocalS, es * 3), A(Q, 24))) {
    for (let k = 0; k < 4; k++) SF(pLocalR, es * 4 + k, F(V2, k));
  }
}

/** The animated locals of the limb's root, mid and end (saved in SV) back in the pose, and their world matrices. */
function restoreAnimated(rs: i32, ms: i32, es: i32, child: bool): void {
  for (let k = 0; k < 4; k++) { SF(pLocalR, rs * 4 + k, F(SV, k)); SF(pLocalR, ms * 4 + k, F(SV, 4 + k)); SF(pLocalR, es * 4 + k, F(SV, 8 + k)); }
  for (let k = 0; k < 3; k++) SF(pLocalT, es * 3 + k, F(SV, 12 + k));
  updateSubtree(rs);
  if (!child) updateSubtree(es);
}

/** The tip (the end, or the mid's tipLs for an IK-controller end) in solve space, into VS[9..11] (VS[12..14]: scratch). */
function tipInSolveSpace(e: i32, ms: i32, es: i32, child: bool): void {
  if (child) transformPoint(A(VS, 9), PI, A(mat(pWorldM, es), 12));
  else { transformPoint(A(VS, 12), mat(pWorldM, ms), A(pTipLs, e * 3)); transformPoint(A(VS, 9), PI, A(VS, 12)); }
}

// The step-by-step solve's state between its phases (one limb at a time).
let sCwx: f64 = 0, sCwy: f64 = 0, sCwz: f64 = 0; // the animated end (world)
let sUx: f64 = 0, sUy: f64 = 0, sUz: f64 = 0; // the target's direction from the root (solve space)

/**
 * Solve limb e step by step (see above). Reads and writes what {@link solveLeg} does, and the end's
 * local translation of an IK-controller end. Invalid input (a non-finite target, a zero-length bone,
 * a singular root parent) keeps the animation and sets `invalid`.
 */
function solveLimb(e: i32): void {
  const isArm = B(pKind, e) === LIMB_ARM;
  if (isArm) handRequest(e);
  let w = F(pWeight, e);
  if (!(w > 0)) w = 0; else if (w > 1) w = 1;
  let wr = F(pRotWeight, e);
  if (!(wr > 0) || B(pHasTargetRot, e) !== 1) wr = 0; else if (wr > 1) wr = 1;
  SB(pSolved, e, 0);
  if (w === 0 && wr === 0) {
    SB(pReached, e, 1); SF(pMissWs, e, 0); SF(pMissFullWs, e, 0);
    if (isArm) { SB(hReposition, e, 0); heldObject(e); }
    return;
  }
  const rs = I(pRootSlot, e), ms = I(pMidSlot, e), es = I(pEndSlot, e);
  const child = B(pEndIsChild, e) === 1;
  const par = I(pParent, rs), ch = I(pChar, e);
  const P: usize = par >= 0 ? mat(pWorldM, par) : mat(pRootWs, ch);
  for (let k = 0; k < 4; k++) { SF(SV, k, F(pLocalR, rs * 4 + k)); SF(SV, 4 + k, F(pLocalR, ms * 4 + k)); SF(SV, 8 + k, F(pLocalR, es * 4 + k)); }
  for (let k = 0; k < 3; k++) { SF(SV, 12 + k, F(pLocalT, es * 3 + k)); SF(TG, k, F(pTargetWs, e * 3 + k)); }
  // A non-uniform scale between the root and the mid (a stretchy upper bone): the reach search.
  const refine = w > 0 && !pathScalesUniform(rs, I(pParent, ms), false);
  let wk = w, sk = F(pSoften, e);
  let searched = false;
  for (let round = 0; ; round++) {
    if (!solveRound(e, rs, ms, es, child, P, ch, wk, sk, wr)) {
      SB(pInvalid, e, 1); SB(pReached, e, 0); SF(pMissWs, e, 0); SF(pMissFullWs, e, 0);
      if (isArm) { SB(hReposition, e, 0); heldObject(e); }
      return;
    }
    if (!isArm) SB(pInvalid, e, 0);
    if (!refine) break;
    // The tip's distance r from the root A (IO 0..2), in solve space.
    tipInSolveSpace(e, ms, es, child);
    const vx = F(VS, 9) - F(IO, 0), vy = F(VS, 10) - F(IO, 1), vz = F(VS, 11) - F(IO, 2);
    const r = Math.sqrt(vx * vx + vy * vy + vz * vz);
    if (!isFinite<f64>(r)) { restoreAnimated(rs, ms, es, child); searched = false; break; } // (no defined distance: the animated pose, the miss reported)
    if (round === 0) {
      if (!searchBegin(e)) break;
      searched = true;
    } else if (!rsNext(r)) break;
    // Next: ask for the point at distance dd along the target's direction (weight 1, no soften).
    const dd = F(RS, RS_DD);
    SF(VS, 12, F(IO, 0) + sUx * dd); SF(VS, 13, F(IO, 1) + sUy * dd); SF(VS, 14, F(IO, 2) + sUz * dd);
    transformPoint(TG, P, A(VS, 12));
    wk = 1; sk = 0;
    restoreAnimated(rs, ms, es, child);
  }
  if (searched) searchSwing(e, rs, ms, es, child);
  if (refine) refineEnd(e, ms, es, child, ch);
  limbOutcome(e, ms, es, child, w, P, isArm);
}

/**
 * One solve of limb e toward TG (world) with weight wk and soften sk: the record filled in the root
 * parent's frame (PI, QP loaded from P), solved, and the root, mid and end rotations (an IK
 * controller's translation too) written, with the world matrices of the subtree. False, having
 * written nothing to the pose, on invalid input or a singular root parent.
 */
function solveRound(e: i32, rs: i32, ms: i32, es: i32, child: bool, P: usize, ch: i32, wk: f64, sk: f64, wr: f64): bool {
  const okP = invertAffine(PI, P);
  rotationOf(QP, P);
  const mirrored = isMirrored(P);
  for (let k = 0; k < 3; k++) SF(IO, k, F(pLocalT, rs * 3 + k));
  transformPoint(A(IO, 3), PI, A(mat(pWorldM, ms), 12));
  if (child) {
    const ew = mat(pWorldM, es);
    sCwx = F(ew, 12); sCwy = F(ew, 13); sCwz = F(ew, 14);
    transformPoint(A(IO, 6), PI, A(ew, 12));
  } else {
    transformPoint(A(VS, 3), mat(pWorldM, ms), A(pTipLs, e * 3));
    sCwx = F(VS, 3); sCwy = F(VS, 4); sCwz = F(VS, 5);
    transformPoint(A(IO, 6), PI, A(VS, 3));
  }
  transformPoint(A(IO, 9), PI, TG);
  const hasPole = B(pHasPole, e) === 1;
  if (hasPole) transformPoint(A(IO, 12), PI, A(pPoleWs, e * 3));
  for (let k = 0; k < 3; k++) SF(IO, 15 + k, F(pBendHint, e * 3 + k));
  SF(IO, 18, wk); SF(IO, 19, sk); SF(IO, 42, hasPole ? 1 : 0);
  if (!(twoBoneCore(IO) && okP)) return false;
  // Q 0: the mid's parent orientation in solve space; Q 4: the root's rotation before the solve.
  const pm = I(pParent, ms);
  pathRot(rs, pm, Q);
  for (let k = 0; k < 4; k++) SF(Q, 4 + k, F(pLocalR, rs * 4 + k));
  // Q 12: the end's orientation in solve space before the solve; Q 16: its parent's.
  if (child) {
    qMulP(A(Q, 16), Q, A(pLocalR, ms * 4));
    const pe = I(pParent, es);
    if (pe !== ms) { pathRot(ms, pe, A(Q, 20)); qConjMulP(A(Q, 20), A(pLocalR, ms * 4), A(Q, 20)); qMulP(A(Q, 16), A(Q, 16), A(Q, 20)); }
    qMulP(A(Q, 12), A(Q, 16), A(pLocalR, es * 4));
  } else {
    rotationOf(A(Q, 12), mat(pWorldM, es));
    rotationToLocal(A(Q, 12), QP, A(Q, 12), mirrored);
  }
  if (wr > 0) {
    rotationToLocal(A(Q, 20), QP, A(pTargetRotWs, e * 4), mirrored);
    normalize(A(Q, 20));
    if (wr === 1) { for (let k = 0; k < 4; k++) SF(Q, 12 + k, F(Q, 20 + k)); } else slerpP(A(Q, 12), A(Q, 12), A(Q, 20), wr);
  }
  // Root: R_r' = rootDelta · R_r. Mid: R_m' = L⁻¹ · midDelta · L · R_m, L the linear map from the
  // mid's parent frame to solve space (Q 0 when every bone between has a uniform positive scale).
  qMulP(A(pLocalR, rs * 4), A(IO, T_QR), A(Q, 4));
  if (pathScalesUniform(rs, pm, true)) { qMulP(A(Q, 8), A(IO, T_QM), Q); qConjMulP(A(Q, 8), Q, A(Q, 8)); }
  else conjugateByFrame(A(Q, 8), A(IO, T_QM), mat(pWorldM, pm));
  qMulP(A(pLocalR, ms * 4), A(Q, 8), A(pLocalR, ms * 4));
  if (child) {
    // R_e' = (rootDelta · midDelta · Q_pe)⁻¹ · Q_final, then solved from the parent's new world matrix.
    qMulP(A(Q, 16), A(IO, T_QM), A(Q, 16));
    qMulP(A(Q, 16), A(IO, T_QR), A(Q, 16));
    qConjMulP(A(pLocalR, es * 4), A(Q, 16), A(Q, 12));
    endWantedWs(e, wr); // (before the subtree update overwrites the end's world matrix)
    updateSubtree(rs);
    endRotationSheared(es, mat(pWorldM, I(pParent, es)));
    updateSubtree(es);
  } else {
    // The end (an IK controller outside the chain) goes to the solved tip, its wanted world
    // rotation (Q 12) solved from its parent's world matrix; the composed one for a singular parent.
    updateSubtree(rs);
    transformPoint(A(VS, 6), P, A(IO, T_NC));
    rotationToWorld(A(Q, 12), QP, A(Q, 12), mirrored);
    const pe = I(pParent, es);
    const Pe: usize = pe >= 0 ? mat(pWorldM, pe) : mat(pRootWs, ch);
    invertAffine(V2, Pe);
    transformPoint(A(pLocalT, es * 3), V2, A(VS, 6));
    rotationOf(A(Q, 24), Pe);
    rotationToLocal(A(pLocalR, es * 4), A(Q, 24), A(Q, 12), isMirrored(Pe));
    normalize(A(pLocalR, es * 4));
    for (let k = 0; k < 4; k++) SF(Q, 24 + k, F(Q, 12 + k));
    endRotationSheared(es, Pe);
    updateSubtree(es);
  }
  return true;
}

/** After the first solve of a stretchy limb: the target's direction (sU..) and the reach search started; false when there is none to run. */
function searchBegin(e: i32): bool {
  let hx = F(IO, T_BT) - F(IO, 0), hy = F(IO, T_BT + 1) - F(IO, 1), hz = F(IO, T_BT + 2) - F(IO, 2);
  let D = Math.sqrt(hx * hx + hy * hy + hz * hz);
  if (D === Infinity) { unitOfHuge(hx, hy, hz); hx = rx; hy = ry; hz = rz; D = f64.MAX_VALUE; } // (beyond 1e154: any reach is short of it)
  else if (!(D > 1e-12) || !isFinite<f64>(D)) { hx = F(IO, T_NC) - F(IO, 0); hy = F(IO, T_NC + 1) - F(IO, 1); hz = F(IO, T_NC + 2) - F(IO, 2); D = 0; }
  const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
  if (!(hl > 1e-12) || !isFinite<f64>(hl)) return false;
  sUx = hx / hl; sUy = hy / hl; sUz = hz / hl;
  const cx = F(IO, 6) - F(IO, 0), cy = F(IO, 7) - F(IO, 1), cz = F(IO, 8) - F(IO, 2);
  const lo = Math.abs(F(IO, T_L1) - F(IO, T_L2)), hi = F(IO, T_L1) + F(IO, T_L2);
  return rsBegin(lo, hi, D, Math.sqrt(cx * cx + cy * cy + cz * cz), F(pSoften, e), 1e-3 * F(pReachTol, e));
}

/** After the reach search: the whole chain swung about the root onto the target's direction; the record's lengths and extension set to the real reach. */
function searchSwing(e: i32, rs: i32, ms: i32, es: i32, child: bool): void {
  tipInSolveSpace(e, ms, es, child);
  SF(VS, 0, F(VS, 9) - F(IO, 0)); SF(VS, 1, F(VS, 10) - F(IO, 1)); SF(VS, 2, F(VS, 11) - F(IO, 2));
  SF(VS, 3, sUx); SF(VS, 4, sUy); SF(VS, 5, sUz);
  const reach = Math.sqrt(F(VS, 0) * F(VS, 0) + F(VS, 1) * F(VS, 1) + F(VS, 2) * F(VS, 2));
  qSwing(CQ, VS, A(VS, 3));
  qMulP(A(pLocalR, rs * 4), CQ, A(pLocalR, rs * 4));
  updateSubtree(rs);
  if (child) { endRotationSheared(es, mat(pWorldM, I(pParent, es))); updateSubtree(es); }
  const Lr = F(RS, RS_LR);
  if (Lr > 0) { SF(IO, T_L1, Lr); SF(IO, T_L2, 0); }
  SF(IO, T_EXT, reach / (F(IO, T_L1) + F(IO, T_L2)));
}

/** After a stretchy limb's solve: the record's target back to the real one (the arm outcome reads it); an IK controller placed at the forearm's real tip, keeping its wanted rotation. */
function refineEnd(e: i32, ms: i32, es: i32, child: bool, ch: i32): void {
  transformPoint(A(IO, 9), PI, A(pTargetWs, e * 3));
  if (child) return;
  transformPoint(A(VS, 6), mat(pWorldM, ms), A(pTipLs, e * 3));
  const pe = I(pParent, es);
  const Pe: usize = pe >= 0 ? mat(pWorldM, pe) : mat(pRootWs, ch);
  invertAffine(V2, Pe);
  transformPoint(A(pLocalT, es * 3), V2, A(VS, 6));
  endRotationSheared(es, Pe);
  updateSubtree(es);
}

/** The outcome of a step-by-step solve, in world units: miss, reached, extension, solved; an arm's reposition flag and held object. */
function limbOutcome(e: i32, ms: i32, es: i32, child: bool, w: f64, P: usize, isArm: bool): void {
  let ax: f64, ay: f64, az: f64;
  if (child) { const ew = mat(pWorldM, es); ax = F(ew, 12); ay = F(ew, 13); az = F(ew, 14); } else {
    transformPoint(A(VS, 9), mat(pWorldM, ms), A(pTipLs, e * 3)); ax = F(VS, 9); ay = F(VS, 10); az = F(VS, 11);
  }
  const tx = F(pTargetWs, e * 3), ty = F(pTargetWs, e * 3 + 1), tz = F(pTargetWs, e * 3 + 2);
  const bx = sCwx + w * (tx - sCwx) - ax, by = sCwy + w * (ty - sCwy) - ay, bz = sCwz + w * (tz - sCwz) - az;
  const miss = Math.sqrt(bx * bx + by * by + bz * bz);
  SF(pMissWs, e, miss);
  SF(pMissFullWs, e, Math.sqrt((ax - tx) * (ax - tx) + (ay - ty) * (ay - ty) + (az - tz) * (az - tz)));
  SB(pReached, e, miss <= F(pReachTol, e) ? 1 : 0);
  SF(pExtension, e, F(IO, T_EXT));
  SB(pSolved, e, 1);
  if (isArm) armOutcome(e, P, w, F(IO, 0), F(IO, 1), F(IO, 2), F(IO, 9), F(IO, 10), F(IO, 11), F(IO, T_L1), F(IO, T_L2));
}

// ---- The reach search of a stretchy limb ----------------------------------------------------------
//
// A non-uniform scale on a limb's root bone makes the lower bone's solve-space length depend on the
// elbow angle, so the record's model reach (l1 + l2) is not the limb's. The root's rotation is
// rigid, so the tip's distance r from the root depends on the elbow alone, i.e. on the distance dd
// the record is asked for. The solve evaluates r(dd); this search says which dd to evaluate next:
// 1. the folded limb, dd = lo (|l1 − l2|): r there is the least distance Lmin;
// 2. a golden-section search for the largest r on [lo, hi] (RS_GOLDEN steps), then the straight
//    limb dd = hi, which it never samples: the larger is the real reach Lr, at ddMax;
// 3. the goal: the blended target's distance with the soften and clamp applied to [Lmin, Lr];
// 4. regula falsi (Illinois) on [lo, ddMax] for r(dd) = goal.
// Continuous in the target; about 30 evaluations per limb and frame. State in RS (f64 slots below).

/** Golden-section steps: the bracket shrinks to 0.618^20 ≈ 7e-5 of the elbow's range, the reach found to about 1e-7 of itself. */
const RS_GOLDEN: f64 = 20;
/** Most evaluations, the first solve included. */
const RS_MAX_ROUNDS: f64 = 48;
const RS_PHASE = 0, RS_ROUND = 1, RS_GI = 2, RS_PEND_C = 3, RS_SIDE = 4, RS_LO = 5, RS_HI = 6, RS_DD = 7, RS_LMIN = 8, RS_LR = 9, RS_GOAL = 10;
const RS_GA = 11, RS_GB = 12, RS_GC = 13, RS_GD = 14, RS_RC = 15, RS_RD = 16, RS_FLO = 17, RS_FHI = 18, RS_DD_MAX = 19, RS_R_INT = 20, RS_DD_INT = 21;
const RS_D = 22, RS_DC = 23, RS_SOFTEN = 24, RS_TOL = 25;
const GR: f64 = 0.6180339887498949;

@inline function rg(i: i32): f64 { return F(RS, i); }
@inline function rset(i: i32, v: f64): void { SF(RS, i, v); }

/**
 * Start the search after the first solve: `lo`, `hi` the record's folded and straight distances,
 * `D` the blended target's distance, `dc` the animated tip's (the soften never pulls a target in
 * below it), `soften` ∈ [0, 0.5], `tol` the goal's tolerance (solve space). The first dd is lo.
 * False (nothing started) for non-finite or degenerate inputs: the first solve stays.
 */
function rsBegin(lo: f64, hi: f64, D: f64, dc: f64, soften: f64, tol: f64): bool {
  if (!(hi > 1e-12) || !isFinite<f64>(hi) || !(lo >= 0) || !(lo <= hi) || !(D >= 0) || !isFinite<f64>(D) || !(tol > 0)) return false;
  if (!(dc >= 0) || !isFinite<f64>(dc)) dc = 0;
  let sg = soften;
  if (!(sg > 0)) sg = 0; else if (sg > 0.5) sg = 0.5;
  memory.fill(RS, 0, 32 << 3);
  rset(RS_PHASE, 1);
  rset(RS_LO, lo); rset(RS_HI, hi); rset(RS_DD, lo);
  rset(RS_D, D); rset(RS_DC, dc); rset(RS_SOFTEN, sg); rset(RS_TOL, tol);
  return true;
}

/** Consume r = r(dd): true with the next dd in RS_DD, false when done (the pose just evaluated is the answer). */
function rsNext(r: f64): bool {
  const round = rg(RS_ROUND) + 1;
  rset(RS_ROUND, round);
  let phase = rg(RS_PHASE);
  if (phase === 1) {
    rset(RS_LMIN, r);
    const ga = rg(RS_LO), gb = rg(RS_HI);
    rset(RS_GA, ga); rset(RS_GB, gb);
    rset(RS_GC, gb - GR * (gb - ga)); rset(RS_GD, ga + GR * (gb - ga));
    rset(RS_DD, rg(RS_GC)); rset(RS_PEND_C, 1); rset(RS_PHASE, 2); rset(RS_GI, 0);
    return true;
  }
  if (phase === 2) {
    if (rg(RS_PEND_C) === 1) { rset(RS_RC, r); rset(RS_DD, rg(RS_GD)); rset(RS_PEND_C, 0); return true; }
    rset(RS_RD, r); phase = 3; rset(RS_PHASE, 3);
  }
  if (phase === 3) return rsGolden(r);
  let atMax = false;
  if (phase === 7) {
    if (r >= rg(RS_R_INT)) { rset(RS_DD_MAX, rg(RS_HI)); atMax = true; } else { rset(RS_DD_MAX, rg(RS_DD_INT)); rset(RS_DD, rg(RS_DD_INT)); }
    rset(RS_PHASE, 4);
    if (!atMax) return true;
  } else if (phase === 4) atMax = true;
  if (atMax) return rsAtMax(r);
  if (phase === 5) return rsFalsi(r, round);
  return false; // phase 6: the folded pose, evaluated
}

/** Phase 3: a golden-section step toward the largest r; then the straight limb (phase 7). */
function rsGolden(r: f64): bool {
  const gi = rg(RS_GI);
  if (gi > 0) { if (rg(RS_PEND_C) === 1) rset(RS_RC, r); else rset(RS_RD, r); }
  const rc = rg(RS_RC), rd = rg(RS_RD);
  if (gi >= RS_GOLDEN) {
    rset(RS_DD_INT, rc > rd ? rg(RS_GC) : rg(RS_GD)); rset(RS_R_INT, rc > rd ? rc : rd);
    rset(RS_DD, rg(RS_HI)); rset(RS_PHASE, 7);
    return true;
  }
  rset(RS_GI, gi + 1);
  if (rc > rd) {
    const gb = rg(RS_GD); rset(RS_GB, gb); rset(RS_GD, rg(RS_GC)); rset(RS_RD, rc);
    rset(RS_GC, gb - GR * (gb - rg(RS_GA))); rset(RS_DD, rg(RS_GC)); rset(RS_PEND_C, 1);
  } else {
    const ga = rg(RS_GC); rset(RS_GA, ga); rset(RS_GC, rg(RS_GD)); rset(RS_RC, rd);
    rset(RS_GD, ga + GR * (rg(RS_GB) - ga)); rset(RS_DD, rg(RS_GD)); rset(RS_PEND_C, 0);
  }
  return true;
}

/** At the maximum (r = the real reach Lr): the goal; stay there, fold, or start the regula falsi (phase 5). */
function rsAtMax(Lr: f64): bool {
  const tol = rg(RS_TOL);
  rset(RS_LR, Lr);
  const sG = rg(RS_SOFTEN), Lmin = rg(RS_LMIN), dcA = rg(RS_DC);
  let De = rg(RS_D);
  if (sG > 0 && De > Lr * (1 - sG)) {
    let da = Lr * (1 - sG);
    if (dcA > da) da = dcA < Lr ? dcA : Lr;
    const sl = Lr - da;
    if (De > da) De = sl > 1e-12 * Lr ? da + sl * (1 - jsExp(-(De - da) / sl)) : Lr;
  }
  if (De > Lr) De = Lr;
  if (De < Lmin) De = Lmin;
  rset(RS_GOAL, De);
  if (!(De < Lr - tol)) return false;
  const flo = Lmin - De, fhi = Lr - De;
  rset(RS_FLO, flo); rset(RS_FHI, fhi);
  if (!(flo < -tol)) { rset(RS_DD, rg(RS_LO)); rset(RS_PHASE, 6); return true; }
  const lo = rg(RS_LO), ddMax = rg(RS_DD_MAX);
  rset(RS_DD, (lo * fhi - ddMax * flo) / (fhi - flo)); rset(RS_HI, ddMax); rset(RS_SIDE, 0); rset(RS_PHASE, 5);
  return true;
}

/** Phase 5: a regula falsi (Illinois) step toward r = goal. */
function rsFalsi(r: f64, round: f64): bool {
  const tol = rg(RS_TOL);
  const f = r - rg(RS_GOAL);
  if (!(Math.abs(f) > tol) || round >= RS_MAX_ROUNDS) return false;
  let lo = rg(RS_LO), hi = rg(RS_HI), flo = rg(RS_FLO), fhi = rg(RS_FHI);
  const side = rg(RS_SIDE), dd = rg(RS_DD);
  if (f > 0) { hi = dd; fhi = f; if (side === 1) flo *= 0.5; rset(RS_SIDE, 1); } else { lo = dd; flo = f; if (side === -1) fhi *= 0.5; rset(RS_SIDE, -1); }
  rset(RS_LO, lo); rset(RS_HI, hi); rset(RS_FLO, flo); rset(RS_FHI, fhi);
  rset(RS_DD, (lo * fhi - hi * flo) / (fhi - flo));
  return true;
}

/** The frame maths on records at byte addresses (for the tests of the maths alone): {@link localRotationForWorld}, 1 when solved. */
export function frameLocalRotation(out: usize, P: usize, S: usize, q: usize): i32 { return localRotationForWorld(out, P, S, q) ? 1 : 0; }

/** {@link isConformal} of the matrix at byte address m (1 when conformal), for the tests. */
export function frameConformal(m: usize): i32 { return isConformal(m) ? 1 : 0; }

/** 1 when limb e's ids lie inside the layout ({@link limbInBounds}: what TwoBoneIK solves), else 0. */
export function limbOk(e: i32): i32 { return <u32>e < <u32>gEnts && limbInBounds(e) ? 1 : 0; }
