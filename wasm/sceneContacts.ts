// AssemblyScript source of the WebAssembly scene contacts (`npm run build:wasm` compiles it into
// runtime/wasm/sceneContactsWasm.ts; test/build/kernelsCurrent.test.ts checks the compile is current).
//
// FootLock and PelvisHeight, written once: systems/footLock.ts and systems/pelvisHeight.ts are thin
// wrappers that fill the character list (and ask the game's ground queries, which are JavaScript).
// exp, acos, sin and cos are JavaScript's own Math functions, imported (one rounding everywhere).
//
// footLockRun runs the characters of a list in order; an entry -1 - c is a character c with a
// game ground query: the callback is JavaScript's, so systems/footLock.ts asks it first for
// every finite sole point (listed by `footGroundPoints`) and leaves the hits per leg in `groundHit` (f64 × 5: height, normal x y z, support) and `groundOk` (u8).
// Two legs of a character run together, one per f64x2 lane, where both are planted on static
// ground (footLockPair: no ground query, locked on no support, stance × fade at least 1); every
// other leg runs alone. pelvisRun takes the characters of the list the same way (its entries
// -1 - c too), so the pipeline may run both, block by block, over one list.
//
// Reads (byte offsets from `setScenePointers`): the pose store's worldM, charRootWs, parent and
// localT; SceneCharacter (char, legs, legCount, grounded, groundRate, initialised, balance,
// balanceInput, balanceMaxShift, pelvisRate, maxDrop, maxRaise, bodyMass, arms, armCount,
// segStart, segCount, pelvisSlot, pelvisSubEnd, pelvisDense); Limb (rootSlot, midSlot, endSlot,
// endIsChild, tipLs, soften, targetWs); FootContact (stance, lockOn, maxTilt, soleLs,
// soleNormalLs, locked, support, contactSs, rotSs, normalSs, stanceEff, contactWs); SupportFrame
// (row, matrixWs, invMatrixWs, rotWs, mirrored); HandTarget (mass, hasGrip, objectPosWs); the
// world's comSegments pool; the list (i32 character ids), params ([0]: dt, seconds) and the
// ground hits (per leg entity).
// Writes: FootLock's (groundBlend; stanceEff, locked, support, contactSs, rotSs, normalSs,
// contactWs, normalWs, groundY, hasGround, groundSupport; the Limb request targetWs,
// targetRotWs, hasTargetRot, weight, rotWeight, hasPole) and PelvisHeight's (offsetWs, band*,
// comWs, supportWs, comValid, initialised; pose localT of the pelvis and the translation
// column of its subtree's worldM, pose `dirty` as scratch, left 0). A character whose structure
// fields point outside the layout (`charOk`, against `setSceneLimits`) is left alone, its legs'
// weights set to 0. Scratch: 448 bytes at
// `scratch`. Spaces: `Ws` world, `Ss` the support's local frame, `Ls` the bone's; units: world
// units, radians, seconds.

// JavaScript's Math functions: an AssemblyScript implementation would round differently.
// @ts-ignore: decorator
@external("env", "exp") declare function jsExp(x: f64): f64;
// @ts-ignore: decorator
@external("env", "acos") declare function jsAcos(x: f64): f64;
// @ts-ignore: decorator
@external("env", "cos") declare function jsCos(x: f64): f64;

import { L0, L1, L2, L3, L4, L5, L6, L8, L9, L10, L12, L13, L14, St0, St1, St2, St3 } from './lanes';
import { qx, qy, qz, qw, rotationOfMatrixQ, slerpQ, swingQ } from './quatMath';

const MAX_LEGS: i32 = 4; // = MAX_LEGS in core/components/scene.ts
const MAX_ARMS: i32 = 2; // = MAX_ARMS

let pWorldM: usize = 0, pRootWs: usize = 0, pParent: usize = 0, pLocalT: usize = 0, pDirty: usize = 0;
let pScChar: usize = 0, pLegs: usize = 0, pLegCount: usize = 0, pGrounded: usize = 0, pGroundBlend: usize = 0, pGroundRate: usize = 0;
let pInit: usize = 0, pBalance: usize = 0, pBalanceInput: usize = 0, pBalanceMaxShift: usize = 0, pPelvisRate: usize = 0;
let pMaxDrop: usize = 0, pMaxRaise: usize = 0, pBodyMass: usize = 0, pArms: usize = 0, pArmCount: usize = 0, pSegStart: usize = 0;
let pSegCount: usize = 0, pPelvisSlot: usize = 0, pPelvisSubEnd: usize = 0, pPelvisDense: usize = 0, pOffsetWs: usize = 0;
let pBandLo: usize = 0, pBandHi: usize = 0, pBandLegs: usize = 0, pBandInf: usize = 0, pBandBeyond: usize = 0, pComWs: usize = 0;
let pSupportWs: usize = 0, pComValid: usize = 0;
let pRootSlot: usize = 0, pMidSlot: usize = 0, pEndSlot: usize = 0, pEndIsChild: usize = 0, pTipLs: usize = 0, pSoften: usize = 0;
let pTargetWs: usize = 0, pTargetRotWs: usize = 0, pHasTargetRot: usize = 0, pWeight: usize = 0, pRotWeight: usize = 0, pHasPole: usize = 0;
let pStance: usize = 0, pStanceEff: usize = 0, pLockOn: usize = 0, pMaxTilt: usize = 0, pLocked: usize = 0, pSupport: usize = 0;
let pContactSs: usize = 0, pRotSs: usize = 0, pNormalSs: usize = 0, pSoleLs: usize = 0, pSoleNormalLs: usize = 0, pContactWs: usize = 0;
let pNormalWs: usize = 0, pGroundY: usize = 0, pHasGround: usize = 0, pGroundSupport: usize = 0;
let pSRow: usize = 0, pSMatrix: usize = 0, pSInv: usize = 0, pSRot: usize = 0, pSMirrored: usize = 0;
let pHMass: usize = 0, pHHasGrip: usize = 0, pHObjectPos: usize = 0;
let pComSeg: usize = 0, pList: usize = 0, pParams: usize = 0, pScratch: usize = 0, pGroundHit: usize = 0, pGroundOk: usize = 0;

/** Byte offsets of the arrays the systems read and write (setup, after every re-layout; runtime/kernels.ts SCENE_ORDER, then comSegments, list, params, scratch, the ground hits). */
export function setScenePointers(
  worldM: usize, rootWs: usize, parent: usize, localT: usize, dirty: usize,
  scChar: usize, legs: usize, legCount: usize, grounded: usize, groundBlend: usize, groundRate: usize, init: usize,
  balance: usize, balanceInput: usize, balanceMaxShift: usize, pelvisRate: usize, maxDrop: usize, maxRaise: usize, bodyMass: usize,
  arms: usize, armCount: usize, segStart: usize, segCount: usize, pelvisSlot: usize, pelvisSubEnd: usize, pelvisDense: usize,
  offsetWs: usize, bandLo: usize, bandHi: usize, bandLegs: usize, bandInf: usize, bandBeyond: usize, comWs: usize, supportWs: usize, comValid: usize,
  rootSlot: usize, midSlot: usize, endSlot: usize, endIsChild: usize, tipLs: usize, soften: usize,
  targetWs: usize, targetRotWs: usize, hasTargetRot: usize, weight: usize, rotWeight: usize, hasPole: usize,
  stance: usize, stanceEff: usize, lockOn: usize, maxTilt: usize, locked: usize, support: usize,
  contactSs: usize, rotSs: usize, normalSs: usize, soleLs: usize, soleNormalLs: usize, contactWs: usize,
  normalWs: usize, groundY: usize, hasGround: usize, groundSupport: usize,
  sRow: usize, sMatrix: usize, sInv: usize, sRot: usize, sMirrored: usize,
  hMass: usize, hHasGrip: usize, hObjectPos: usize,
  comSeg: usize, list: usize, params: usize, scratch: usize, groundHit: usize, groundOk: usize,
): void {
  pWorldM = worldM; pRootWs = rootWs; pParent = parent; pLocalT = localT; pDirty = dirty;
  pScChar = scChar; pLegs = legs; pLegCount = legCount; pGrounded = grounded; pGroundBlend = groundBlend; pGroundRate = groundRate; pInit = init;
  pBalance = balance; pBalanceInput = balanceInput; pBalanceMaxShift = balanceMaxShift; pPelvisRate = pelvisRate; pMaxDrop = maxDrop; pMaxRaise = maxRaise; pBodyMass = bodyMass;
  pArms = arms; pArmCount = armCount; pSegStart = segStart; pSegCount = segCount; pPelvisSlot = pelvisSlot; pPelvisSubEnd = pelvisSubEnd; pPelvisDense = pelvisDense;
  pOffsetWs = offsetWs; pBandLo = bandLo; pBandHi = bandHi; pBandLegs = bandLegs; pBandInf = bandInf; pBandBeyond = bandBeyond; pComWs = comWs; pSupportWs = supportWs; pComValid = comValid;
  pRootSlot = rootSlot; pMidSlot = midSlot; pEndSlot = endSlot; pEndIsChild = endIsChild; pTipLs = tipLs; pSoften = soften;
  pTargetWs = targetWs; pTargetRotWs = targetRotWs; pHasTargetRot = hasTargetRot; pWeight = weight; pRotWeight = rotWeight; pHasPole = hasPole;
  pStance = stance; pStanceEff = stanceEff; pLockOn = lockOn; pMaxTilt = maxTilt; pLocked = locked; pSupport = support;
  pContactSs = contactSs; pRotSs = rotSs; pNormalSs = normalSs; pSoleLs = soleLs; pSoleNormalLs = soleNormalLs; pContactWs = contactWs;
  pNormalWs = normalWs; pGroundY = groundY; pHasGround = hasGround; pGroundSupport = groundSupport;
  pSRow = sRow; pSMatrix = sMatrix; pSInv = sInv; pSRot = sRot; pSMirrored = sMirrored;
  pHMass = hMass; pHHasGrip = hHasGrip; pHObjectPos = hObjectPos;
  pComSeg = comSeg; pList = list; pParams = params; pScratch = scratch; pGroundHit = groundHit; pGroundOk = groundOk;
}

// The layout's capacities (setSceneLimits): a character whose structure fields point outside them is left alone.
let gSlots: u32 = 0, gChars: u32 = 0, gEnts: u32 = 0, gPool: i32 = 0, gSupportRows: i32 = 0;

/** The pose store's slot and character counts, the entity capacity, the COM pool's length and the support rows (setup, after every re-layout). */
export function setSceneLimits(slots: i32, chars: i32, ents: i32, pool: i32, supportRows: i32): void {
  gSlots = <u32>slots; gChars = <u32>chars; gEnts = <u32>ents; gPool = pool; gSupportRows = supportRows;
}

/**
 * Character c's structure is sound: its pose character, pelvis
 * slot and subtree end, leg and arm entities and counts, legs' slots and supports and COM
 * segments lie inside the layout. FootLock and PelvisHeight leave any other alone (FootLock
 * sets its legs' weights to 0: {@link releaseLegs}), so the kernel never reads or writes
 * outside its arrays for it (nor traps).
 */
function charOk(c: i32): bool {
  const ps = I(pPelvisSlot, c), pe = I(pPelvisSubEnd, c);
  if (<u32>I(pScChar, c) >= gChars || <u32>ps >= gSlots || !(pe > ps && pe <= <i32>gSlots)) return false;
  const nl = B(pLegCount, c), na = B(pArmCount, c);
  if (nl > MAX_LEGS || na > MAX_ARMS) return false;
  const s0 = I(pSegStart, c), sn = I(pSegCount, c), s1 = s0 + sn;
  if (!(s0 >= 0 && sn >= 0 && sn % 3 === 0 && s1 <= gPool)) return false;
  for (let k = 0; k < na; k++) if (<u32>I(pArms, c * MAX_ARMS + k) >= gEnts) return false;
  for (let k = 0; k < nl; k++) {
    const e = I(pLegs, c * MAX_LEGS + k);
    if (<u32>e >= gEnts) return false;
    if (<u32>I(pRootSlot, e) >= gSlots || <u32>I(pMidSlot, e) >= gSlots || <u32>I(pEndSlot, e) >= gSlots) return false;
    const s = I(pSupport, e);
    if (s === -1) continue;
    if (<u32>s >= gEnts) return false;
    const row = I(pSRow, s);
    if (!(row >= -1 && row < gSupportRows)) return false;
  }
  return true;
}

/** Character c's legs that are entities get weight 0 (TwoBoneIK leaves them as animated). */
function releaseLegs(c: i32): void {
  let nl = B(pLegCount, c);
  if (nl > MAX_LEGS) nl = MAX_LEGS;
  for (let k = 0; k < nl; k++) {
    const e = I(pLegs, c * MAX_LEGS + k);
    if (<u32>e < gEnts) { SF(pWeight, e, 0); SF(pRotWeight, e, 0); }
  }
}

@inline function F(p: usize, i: i32): f64 { return load<f64>(p + (<usize>i << 3)); }
@inline function SF(p: usize, i: i32, v: f64): void { store<f64>(p + (<usize>i << 3), v); }
@inline function I(p: usize, i: i32): i32 { return load<i32>(p + (<usize>i << 2)); }
@inline function SI(p: usize, i: i32, v: i32): void { store<i32>(p + (<usize>i << 2), v); }
@inline function B(p: usize, i: i32): i32 { return <i32>load<u8>(p + <usize>i); }
@inline function SB(p: usize, i: i32, v: i32): void { store<u8>(p + <usize>i, <u8>v); }

// The maxTilt memo: a cache of cos(maxTilt / 2).
let tiltMax: f64 = NaN, tiltCos: f64 = NaN;

// Results handed between helpers (no multiple returns): a quaternion.
let rx: f64 = 0, ry: f64 = 0, rz: f64 = 0, rw: f64 = 1;

/** The swing of a onto b (wasm/quatMath.ts), into rx..rw. */
function swing(ax: f64, ay: f64, az: f64, bx: f64, by: f64, bz: f64): void {
  swingQ(ax, ay, az, bx, by, bz);
  rx = qx; ry = qy; rz = qz; rw = qw;
}

/** slerp(a, b, f) (wasm/quatMath.ts), into rx..rw. */
function slerp(ax: f64, ay: f64, az: f64, aw: f64, bx: f64, by: f64, bz: f64, bw: f64, f: f64): void {
  slerpQ(ax, ay, az, aw, bx, by, bz, bw, f);
  rx = qx; ry = qy; rz = qz; rw = qw;
}

/**
 * FootLock for the characters `list[from..count)` in order (an entry -1 - c: character c, whose
 * ground hits systems/footLock.ts left per leg); returns `count`.
 */
export function footLockRun(from: i32, count: i32): i32 {
  const dt = F(pParams, 0);
  const valid = dt > 0 && isFinite<f64>(dt);
  for (let i = from; i < count; i++) {
    const c = I(pList, i);
    const cc = c < 0 ? -1 - c : c;
    if (!charOk(cc)) { releaseLegs(cc); continue; }
    footLockChar(cc, dt, valid, c < 0); // (inlined: one copy)
  }
  return count;
}

/**
 * The sole points the game's ground queries are asked for, before {@link footLockRun}: for every
 * character `-1 - c` of `list[0..count)` whose structure is sound, each leg whose animated sole
 * point (end bone world matrix × soleLs) and foot rotation are finite (the legs footLockRun plants;
 * it skips the others before it reads a hit). Writes the point into the leg's hit record
 * (`groundHit[e*5 .. e*5+2]`, world) and the character into `groundHit[e*5 + 4]`, and the leg's
 * entity id into `list[count + j]`; returns how many legs (the JavaScript then asks the callback
 * for each and writes its answer over the record). Stops before the list would run past the
 * entity capacity (a corrupted leg table), never traps.
 */
export function footGroundPoints(count: i32): i32 {
  let m = 0;
  for (let i = 0; i < count; i++) {
    const c = I(pList, i);
    if (c >= 0) continue;
    const cc = -1 - c;
    if (!charOk(cc)) continue;
    const n = B(pLegCount, cc);
    for (let k = 0; k < n; k++) {
      if (count + m >= <i32>gEnts) return m;
      const e = I(pLegs, cc * MAX_LEGS + k);
      const wo = I(pEndSlot, e) * 16;
      footRotation(wo, k);
      const wm: usize = pWorldM + (<usize>wo << 3), o3: usize = <usize>e * 24;
      const sl0 = F(pSoleLs + o3, 0), sl1 = F(pSoleLs + o3, 1), sl2 = F(pSoleLs + o3, 2);
      const px = F(wm, 0) * sl0 + F(wm, 4) * sl1 + F(wm, 8) * sl2 + F(wm, 12);
      const py = F(wm, 1) * sl0 + F(wm, 5) * sl1 + F(wm, 9) * sl2 + F(wm, 13);
      const pz = F(wm, 2) * sl0 + F(wm, 6) * sl1 + F(wm, 10) * sl2 + F(wm, 14);
      if (!isFinite<f64>(px + py + pz + F(pScratch, S_QA + k * 4 + 3))) continue;
      const g: usize = pGroundHit + <usize>(e * 40);
      SF(g, 0, px); SF(g, 1, py); SF(g, 2, pz); SF(g, 3, 0); SF(g, 4, <f64>cc);
      store<i32>(pList + (<usize>(count + m) << 2), e);
      m++;
    }
  }
  return m;
}

// FootLock's scratch at pScratch (PelvisHeight's does not live across it): the legs' animated foot rotations.
const S_QA: i32 = 40; // f64 index: MAX_LEGS × 4 (x y z w)

/**
 * The animated foot rotation qA of the end bone world matrix at worldM[wo..] (
 * as rotationOfMatrix, Gram–Schmidt, x negated when mirrored, Shepperd) into scratch slot k. The
 * legs' first (two at a time in {@link footRotation2}), so that their square roots and divisions
 * are shared and overlap.
 */
function footRotation(wo: i32, k: i32): void {
  rotationOfMatrixQ(pWorldM + (<usize>wo << 3));
  const qo = S_QA + k * 4;
  SF(pScratch, qo, qx); SF(pScratch, qo + 1, qy); SF(pScratch, qo + 2, qz); SF(pScratch, qo + 3, qw);
}

@inline function V(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3)), 1); }
@inline function SV(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0); v128.store64_lane(p + (<usize>ib << 3), v, 1); }

// f64x2 helpers for footLockPair (lane 0: the first leg, lane 1: the second; the lane-pair
// loads and stores L0…, St0… are wasm/lanes.ts's).
@inline function ad(a: v128, b: v128): v128 { return f64x2.add(a, b); }
@inline function sb(a: v128, b: v128): v128 { return f64x2.sub(a, b); }
@inline function mu(a: v128, b: v128): v128 { return f64x2.mul(a, b); }

/** Which of the four Shepperd cases footRotation takes (0: trace > 0; 1, 2, 3: x, y, z largest). */
@inline function shepperdCase(tr: f64, x0: f64, y1: f64, r22: f64): i32 {
  return tr > 0 ? 0 : x0 > y1 && x0 > r22 ? 1 : y1 > r22 ? 2 : 3;
}

// Legs whose rotations footRotation2 computed in f64x2 lanes, and legs it left to the scalar footRotation (test counters).
let pairedLegs: i32 = 0, scalarLegs: i32 = 0;

/** Legs since the last call whose foot rotation ran in f64x2 lanes (returned) and alone (`scalarLegsSince`); for the tests. */
export function pairedLegsSince(): i32 { const n = pairedLegs; pairedLegs = 0; return n; }
/** See {@link pairedLegsSince}. */
export function scalarLegsSince(): i32 { const n = scalarLegs; scalarLegs = 0; return n; }

/**
 * footRotation of two legs at once (worldM[wa..], worldM[wb..] into scratch slots ka, kb), one
 * leg per f64x2 lane: every lane operation is the scalar one (IEEE-exact, in the same order), so
 * the results are bit-identical. The two legs go back to the scalar footRotation where they
 * would branch differently (a degenerate axis in either, different Shepperd cases).
 */
@inline function footRotation2(wa: i32, wb: i32, ka: i32, kb: i32): void {
  const one = f64x2.splat(1), zero = f64x2.splat(0), tiny = f64x2.splat(1e-300);
  let x0 = V(pWorldM, wa, wb), x1 = V(pWorldM, wa + 1, wb + 1), x2 = V(pWorldM, wa + 2, wb + 2);
  let y0 = V(pWorldM, wa + 4, wb + 4), y1 = V(pWorldM, wa + 5, wb + 5), y2 = V(pWorldM, wa + 6, wb + 6);
  const m8 = V(pWorldM, wa + 8, wb + 8), m9 = V(pWorldM, wa + 9, wb + 9), m10 = V(pWorldM, wa + 10, wb + 10);
  // d = x0 * (y1 * m10 - y2 * m9) - y0 * (x1 * m10 - x2 * m9) + m8 * (x1 * y2 - x2 * y1)
  const d = f64x2.add(
    f64x2.sub(f64x2.mul(x0, f64x2.sub(f64x2.mul(y1, m10), f64x2.mul(y2, m9))), f64x2.mul(y0, f64x2.sub(f64x2.mul(x1, m10), f64x2.mul(x2, m9)))),
    f64x2.mul(m8, f64x2.sub(f64x2.mul(x1, y2), f64x2.mul(x2, y1))));
  const neg = f64x2.lt(d, zero);
  x0 = v128.bitselect(f64x2.neg(x0), x0, neg); x1 = v128.bitselect(f64x2.neg(x1), x1, neg); x2 = v128.bitselect(f64x2.neg(x2), x2, neg);
  let l = f64x2.add(f64x2.add(f64x2.mul(x0, x0), f64x2.mul(x1, x1)), f64x2.mul(x2, x2));
  // l > 1e-300 && isFinite(l) in both lanes (l - l is 0 exactly when l is finite)
  if (!i64x2.all_true(v128.and(f64x2.gt(l, tiny), f64x2.eq(f64x2.sub(l, l), zero)))) { scalarLegs += 2; footRotation(wa, ka); footRotation(wb, kb); return; }
  l = f64x2.div(one, f64x2.sqrt(l));
  x0 = f64x2.mul(x0, l); x1 = f64x2.mul(x1, l); x2 = f64x2.mul(x2, l);
  const dp = f64x2.add(f64x2.add(f64x2.mul(y0, x0), f64x2.mul(y1, x1)), f64x2.mul(y2, x2));
  y0 = f64x2.sub(y0, f64x2.mul(dp, x0)); y1 = f64x2.sub(y1, f64x2.mul(dp, x1)); y2 = f64x2.sub(y2, f64x2.mul(dp, x2));
  l = f64x2.add(f64x2.add(f64x2.mul(y0, y0), f64x2.mul(y1, y1)), f64x2.mul(y2, y2));
  if (!i64x2.all_true(f64x2.gt(l, tiny))) { scalarLegs += 2; footRotation(wa, ka); footRotation(wb, kb); return; }
  l = f64x2.div(one, f64x2.sqrt(l));
  y0 = f64x2.mul(y0, l); y1 = f64x2.mul(y1, l); y2 = f64x2.mul(y2, l);
  const r02 = f64x2.sub(f64x2.mul(x1, y2), f64x2.mul(x2, y1));
  const r12 = f64x2.sub(f64x2.mul(x2, y0), f64x2.mul(x0, y2));
  const r22 = f64x2.sub(f64x2.mul(x0, y1), f64x2.mul(x1, y0));
  const tr = f64x2.add(f64x2.add(x0, y1), r22);
  const ca = shepperdCase(f64x2.extract_lane(tr, 0), f64x2.extract_lane(x0, 0), f64x2.extract_lane(y1, 0), f64x2.extract_lane(r22, 0));
  const cb = shepperdCase(f64x2.extract_lane(tr, 1), f64x2.extract_lane(x0, 1), f64x2.extract_lane(y1, 1), f64x2.extract_lane(r22, 1));
  if (ca !== cb) { scalarLegs += 2; footRotation(wa, ka); footRotation(wb, kb); return; }
  pairedLegs += 2;
  const quarter = f64x2.splat(0.25), two = f64x2.splat(2);
  let qx: v128, qy: v128, qz: v128, qw: v128;
  if (ca === 0) {
    const s2 = f64x2.mul(f64x2.sqrt(f64x2.add(tr, one)), two), is = f64x2.div(one, s2);
    qw = f64x2.mul(quarter, s2); qx = f64x2.mul(f64x2.sub(y2, r12), is); qy = f64x2.mul(f64x2.sub(r02, x2), is); qz = f64x2.mul(f64x2.sub(x1, y0), is);
  } else if (ca === 1) {
    const s2 = f64x2.mul(f64x2.sqrt(f64x2.sub(f64x2.sub(f64x2.add(one, x0), y1), r22)), two), is = f64x2.div(one, s2);
    qw = f64x2.mul(f64x2.sub(y2, r12), is); qx = f64x2.mul(quarter, s2); qy = f64x2.mul(f64x2.add(y0, x1), is); qz = f64x2.mul(f64x2.add(r02, x2), is);
  } else if (ca === 2) {
    const s2 = f64x2.mul(f64x2.sqrt(f64x2.sub(f64x2.sub(f64x2.add(one, y1), x0), r22)), two), is = f64x2.div(one, s2);
    qw = f64x2.mul(f64x2.sub(r02, x2), is); qx = f64x2.mul(f64x2.add(y0, x1), is); qy = f64x2.mul(quarter, s2); qz = f64x2.mul(f64x2.add(r12, y2), is);
  } else {
    const s2 = f64x2.mul(f64x2.sqrt(f64x2.sub(f64x2.sub(f64x2.add(one, r22), x0), y1)), two), is = f64x2.div(one, s2);
    qw = f64x2.mul(f64x2.sub(x1, y0), is); qx = f64x2.mul(f64x2.add(r02, x2), is); qy = f64x2.mul(f64x2.add(r12, y2), is); qz = f64x2.mul(quarter, s2);
  }
  const oa = S_QA + ka * 4, ob = S_QA + kb * 4;
  SV(pScratch, oa, ob, qx); SV(pScratch, oa + 1, ob + 1, qy); SV(pScratch, oa + 2, ob + 2, qz); SV(pScratch, oa + 3, ob + 3, qw);
}

// Legs whose FootLock ran two at a time in f64x2 lanes ({@link footLockPair}; a test counter).
let pairedLocks: i32 = 0;

/** Legs since the last call whose FootLock ran two at a time in lanes (footLockPair); for the tests. */
export function pairedLocksSince(): i32 { const n = pairedLocks; pairedLocks = 0; return n; }

/**
 * FootLock of legs ea and eb of a character without a ground query (their rotations qA in scratch
 * slots ka, ka + 1; grounded fade gb, reference floor refY), one leg per f64x2 lane, for the
 * common case of planted feet on static ground: both animated soles finite, both stance weights ×
 * gb at least 1 (so the target orientation is the locked one), both already locked, on no support.
 * Every lane operation is footLockChar's, in the same order, so the results are the same bits;
 * false, having written nothing, when the pair is not that case (each leg then runs alone). The
 * two legs are different entities: neither reads what the other writes.
 */
function footLockPair(ea: i32, eb: i32, ka: i32, gb: f64, refY: f64): bool {
  const wa: usize = pWorldM + (<usize>I(pEndSlot, ea) << 7), wb: usize = pWorldM + (<usize>I(pEndSlot, eb) << 7);
  const a3: usize = <usize>ea * 24, b3: usize = <usize>eb * 24, a4: usize = <usize>ea << 5, b4: usize = <usize>eb << 5;
  const a8: usize = <usize>ea << 3, b8: usize = <usize>eb << 3;
  // Tests first (nothing written): stance, lock state, support.
  let sta = F(pStance, ea), stb = F(pStance, eb);
  if (!(sta > 0)) sta = 0; else if (sta > 1) sta = 1;
  if (!(stb > 0)) stb = 0; else if (stb > 1) stb = 1;
  const wA = sta * gb, wB = stb * gb;
  if (!(wA >= 1 && wB >= 1) || B(pLocked, ea) !== 1 || B(pLocked, eb) !== 1) return false;
  const sa = I(pSupport, ea), sbv = I(pSupport, eb);
  if ((sa >= 0 ? I(pSRow, sa) : -1) >= 0 || (sbv >= 0 ? I(pSRow, sbv) : -1) >= 0) return false;
  // Animated sole point p = M · sole + ankle, finite with qA.w.
  const sl0 = L0(pSoleLs + a3, pSoleLs + b3), sl1 = L1(pSoleLs + a3, pSoleLs + b3), sl2 = L2(pSoleLs + a3, pSoleLs + b3);
  const atx = L12(wa, wb), aty = L13(wa, wb), atz = L14(wa, wb);
  const px = ad(ad(ad(mu(L0(wa, wb), sl0), mu(L4(wa, wb), sl1)), mu(L8(wa, wb), sl2)), atx);
  const py = ad(ad(ad(mu(L1(wa, wb), sl0), mu(L5(wa, wb), sl1)), mu(L9(wa, wb), sl2)), aty);
  const pz = ad(ad(ad(mu(L2(wa, wb), sl0), mu(L6(wa, wb), sl1)), mu(L10(wa, wb), sl2)), atz);
  const qa: usize = pScratch + (<usize>(S_QA + ka * 4) << 3), qb: usize = qa + 32;
  const qax = L0(qa, qb), qay = L1(qa, qb), qaz = L2(qa, qb), qaw = L3(qa, qb);
  const fin = ad(ad(ad(px, py), pz), qaw);
  if (!i64x2.all_true(f64x2.eq(sb(fin, fin), f64x2.splat(0)))) return false;
  pairedLocks += 2;
  const W = f64x2.replace_lane(f64x2.splat(wA), 1, wB);
  SF(pStanceEff, ea, wA); SF(pStanceEff, eb, wB);
  // Ground: the reference floor (no ground query).
  let h = f64x2.splat(refY);
  const hasGround = isFinite<f64>(refY);
  SB(pHasGround, ea, hasGround ? 1 : 0); SB(pHasGround, eb, hasGround ? 1 : 0);
  if (!hasGround) h = py;
  v128.store64_lane(pGroundY + a8, h, 0); v128.store64_lane(pGroundY + b8, h, 1);
  SI(pGroundSupport, ea, -1); SI(pGroundSupport, eb, -1);
  // Free target f (fy raised by the ground).
  let fy = py;
  if (hasGround) {
    const G = f64x2.splat(gb);
    fy = ad(py, mu(G, sb(h, f64x2.splat(refY))));
    fy = v128.bitselect(ad(fy, mu(sb(h, fy), G)), fy, f64x2.lt(fy, h));
  }
  // Planted target: the recorded contact (static: no support frame).
  const Gx = L0(pContactSs + a3, pContactSs + b3), Gy = L1(pContactSs + a3, pContactSs + b3), Gz = L2(pContactSs + a3, pContactSs + b3);
  const Nx = L0(pNormalSs + a3, pNormalSs + b3), Ny = L1(pNormalSs + a3, pNormalSs + b3), Nz = L2(pNormalSs + a3, pNormalSs + b3);
  const qtx = L0(pRotSs + a4, pRotSs + b4), qty = L1(pRotSs + a4, pRotSs + b4), qtz = L2(pRotSs + a4, pRotSs + b4), qtw = L3(pRotSs + a4, pRotSs + b4);
  St0(pContactWs + a3, pContactWs + b3, Gx); St1(pContactWs + a3, pContactWs + b3, Gy); St2(pContactWs + a3, pContactWs + b3, Gz);
  St0(pNormalWs + a3, pNormalWs + b3, Nx); St1(pNormalWs + a3, pNormalWs + b3, Ny); St2(pNormalWs + a3, pNormalWs + b3, Nz);
  // Blend (w ≥ 1: the planted target and orientation), then the ankle target T − R_delta (sole − ankle).
  const Tx = ad(px, mu(W, sb(Gx, px))), Ty = ad(fy, mu(W, sb(Gy, fy))), Tz = ad(pz, mu(W, sb(Gz, pz)));
  const Rx = ad(sb(sb(mu(qtx, qaw), mu(qtw, qax)), mu(qty, qaz)), mu(qtz, qay));
  const Ry = ad(sb(sb(mu(qty, qaw), mu(qtw, qay)), mu(qtz, qax)), mu(qtx, qaz));
  const Rz = ad(sb(sb(mu(qtz, qaw), mu(qtw, qaz)), mu(qtx, qay)), mu(qty, qax));
  const Rw = ad(ad(ad(mu(qtw, qaw), mu(qtx, qax)), mu(qty, qay)), mu(qtz, qaz));
  const vx = sb(px, atx), vy = sb(py, aty), vz = sb(pz, atz);
  const two = f64x2.splat(2);
  const tx = mu(two, sb(mu(Ry, vz), mu(Rz, vy))), ty = mu(two, sb(mu(Rz, vx), mu(Rx, vz))), tz = mu(two, sb(mu(Rx, vy), mu(Ry, vx)));
  St0(pTargetWs + a3, pTargetWs + b3, sb(Tx, ad(ad(vx, mu(Rw, tx)), sb(mu(Ry, tz), mu(Rz, ty)))));
  St1(pTargetWs + a3, pTargetWs + b3, sb(Ty, ad(ad(vy, mu(Rw, ty)), sb(mu(Rz, tx), mu(Rx, tz)))));
  St2(pTargetWs + a3, pTargetWs + b3, sb(Tz, ad(ad(vz, mu(Rw, tz)), sb(mu(Rx, ty), mu(Ry, tx)))));
  St0(pTargetRotWs + a4, pTargetRotWs + b4, qtx); St1(pTargetRotWs + a4, pTargetRotWs + b4, qty); St2(pTargetRotWs + a4, pTargetRotWs + b4, qtz); St3(pTargetRotWs + a4, pTargetRotWs + b4, qtw);
  SB(pHasTargetRot, ea, 1); SB(pHasTargetRot, eb, 1);
  SF(pWeight, ea, gb); SF(pWeight, eb, gb);
  SF(pRotWeight, ea, gb); SF(pRotWeight, eb, gb);
  SB(pHasPole, ea, 0); SB(pHasPole, eb, 0);
  return true;
}

/** FootLock of character c (its legs' animated foot rotations first, in pairs; then its legs, two planted ones at a time where footLockPair takes them). */
@inline function footLockChar(c: i32, dt: f64, valid: bool, queried: bool): void {
  const want: f64 = B(pGrounded, c) === 1 ? 1 : 0;
  let gb = F(pGroundBlend, c);
  if (B(pInit, c) === 0) gb = want;
  else if (valid && gb !== want) {
    gb += (want - gb) * (1 - jsExp(-F(pGroundRate, c) * dt));
    if (Math.abs(want - gb) < 1e-4) gb = want;
  }
  if (!(gb >= 0 && gb <= 1)) gb = want;
  SF(pGroundBlend, c, gb);
  const refY = F(pRootWs, I(pScChar, c) * 16 + 13);
  const n = B(pLegCount, c);
  // (the legs in pairs, one per f64x2 lane; an odd last one alone)
  let k0 = 0;
  for (; k0 + 1 < n; k0 += 2) footRotation2(I(pEndSlot, I(pLegs, c * MAX_LEGS + k0)) * 16, I(pEndSlot, I(pLegs, c * MAX_LEGS + k0 + 1)) * 16, k0, k0 + 1);
  if (k0 < n) { scalarLegs++; footRotation(I(pEndSlot, I(pLegs, c * MAX_LEGS + k0)) * 16, k0); }
  for (let k = 0; k < n; k++) {
    const e = I(pLegs, c * MAX_LEGS + k);
    // (two planted legs on static ground at a time, in lanes)
    if (!queried && k + 1 < n && footLockPair(e, I(pLegs, c * MAX_LEGS + k + 1), k, gb, refY)) { k++; continue; }
    const wo = I(pEndSlot, e) * 16;
    // (each array's element by a base address and immediate offsets)
    const wm: usize = pWorldM + (<usize>wo << 3), o3: usize = <usize>e * 24, o4: usize = <usize>e << 5;
    const m0 = F(wm, 0), m1 = F(wm, 1), m2 = F(wm, 2);
    const m4 = F(wm, 4), m5 = F(wm, 5), m6 = F(wm, 6);
    const m8 = F(wm, 8), m9 = F(wm, 9), m10 = F(wm, 10);
    const atx = F(wm, 12), aty = F(wm, 13), atz = F(wm, 14);
    const qa: usize = pScratch + (<usize>(S_QA + k * 4) << 3);
    const qax = F(qa, 0), qay = F(qa, 1), qaz = F(qa, 2), qaw = F(qa, 3);
    const sl0 = F(pSoleLs + o3, 0), sl1 = F(pSoleLs + o3, 1), sl2 = F(pSoleLs + o3, 2);
    const px = m0 * sl0 + m4 * sl1 + m8 * sl2 + atx;
    const py = m1 * sl0 + m5 * sl1 + m9 * sl2 + aty;
    const pz = m2 * sl0 + m6 * sl1 + m10 * sl2 + atz;
    if (!isFinite<f64>(px + py + pz + qaw)) {
      SF(pWeight, e, 0); SF(pRotWeight, e, 0); SF(pStanceEff, e, 0); SB(pLocked, e, 0);
      continue;
    }
    let st = F(pStance, e);
    if (!(st > 0)) st = 0; else if (st > 1) st = 1;
    const w = st * gb;
    SF(pStanceEff, e, w);
    // Ground under the sole: the game's ground query's hit (asked by systems/footLock.ts before
    // the kernel, for this sole point) or the reference floor, up normal, no support.
    let h: f64, hasGround: bool, gnx: f64 = 0, gny: f64 = 1, gnz: f64 = 0, gs: i32 = -1;
    if (!queried) {
      h = refY;
      hasGround = isFinite<f64>(h);
    } else {
      const g: usize = pGroundHit + <usize>(e * 40);
      hasGround = B(pGroundOk, e) === 1;
      h = F(g, 0); gnx = F(g, 1); gny = F(g, 2); gnz = F(g, 3); gs = <i32>F(g, 4);
    }
    SB(pHasGround, e, hasGround ? 1 : 0);
    if (!hasGround) h = py;
    SF(pGroundY, e, h);
    SI(pGroundSupport, e, hasGround ? gs : -1);
    const fx = px, fz = pz;
    let fy = py;
    if (hasGround) {
      fy = py + gb * (h - refY);
      if (fy < h) fy = fy + (h - fy) * gb;
    }
    if (w <= 0) SB(pLocked, e, 0);
    let Gx: f64, Gy: f64, Gz: f64, Nx: f64, Ny: f64, Nz: f64;
    let qgx: f64, qgy: f64, qgz: f64, qgw: f64;
    if (B(pLocked, e) === 1) {
      const s = I(pSupport, e);
      const sr = s >= 0 ? I(pSRow, s) : -1;
      if (sr >= 0) {
        const so = sr * 16;
        const cx = F(pContactSs + o3, 0), cy = F(pContactSs + o3, 1), cz = F(pContactSs + o3, 2);
        Gx = F(pSMatrix + (<usize>so << 3), 0) * cx + F(pSMatrix + (<usize>so << 3), 4) * cy + F(pSMatrix + (<usize>so << 3), 8) * cz + F(pSMatrix + (<usize>so << 3), 12);
        Gy = F(pSMatrix + (<usize>so << 3), 1) * cx + F(pSMatrix + (<usize>so << 3), 5) * cy + F(pSMatrix + (<usize>so << 3), 9) * cz + F(pSMatrix + (<usize>so << 3), 13);
        Gz = F(pSMatrix + (<usize>so << 3), 2) * cx + F(pSMatrix + (<usize>so << 3), 6) * cy + F(pSMatrix + (<usize>so << 3), 10) * cz + F(pSMatrix + (<usize>so << 3), 14);
        const mir = B(pSMirrored, sr) === 1;
        const s4 = sr * 4;
        const ax = F(pSRot + (<usize>s4 << 3), 0), ay = F(pSRot + (<usize>s4 << 3), 1), az = F(pSRot + (<usize>s4 << 3), 2), aw = F(pSRot + (<usize>s4 << 3), 3);
        const bx = F(pRotSs + o4, 0), by = mir ? -F(pRotSs + o4, 1) : F(pRotSs + o4, 1), bz = mir ? -F(pRotSs + o4, 2) : F(pRotSs + o4, 2), bw = F(pRotSs + o4, 3);
        qgx = ax * bw + aw * bx + ay * bz - az * by;
        qgy = ay * bw + aw * by + az * bx - ax * bz;
        qgz = az * bw + aw * bz + ax * by - ay * bx;
        qgw = aw * bw - ax * bx - ay * by - az * bz;
        const vx = mir ? -F(pNormalSs + o3, 0) : F(pNormalSs + o3, 0), vy = F(pNormalSs + o3, 1), vz = F(pNormalSs + o3, 2);
        const tx = 2 * (ay * vz - az * vy), ty = 2 * (az * vx - ax * vz), tz = 2 * (ax * vy - ay * vx);
        Nx = vx + aw * tx + (ay * tz - az * ty);
        Ny = vy + aw * ty + (az * tx - ax * tz);
        Nz = vz + aw * tz + (ax * ty - ay * tx);
      } else {
        Gx = F(pContactSs + o3, 0); Gy = F(pContactSs + o3, 1); Gz = F(pContactSs + o3, 2);
        Nx = F(pNormalSs + o3, 0); Ny = F(pNormalSs + o3, 1); Nz = F(pNormalSs + o3, 2);
        qgx = F(pRotSs + o4, 0); qgy = F(pRotSs + o4, 1); qgz = F(pRotSs + o4, 2); qgw = F(pRotSs + o4, 3);
      }
    } else if (hasGround) {
      Gx = px; Gy = h; Gz = pz;
      Nx = gnx; Ny = gny; Nz = gnz;
      const snx = F(pSoleNormalLs + o3, 0), sny = F(pSoleNormalLs + o3, 1), snz = F(pSoleNormalLs + o3, 2);
      let nax = m0 * snx + m4 * sny + m8 * snz;
      let nay = m1 * snx + m5 * sny + m9 * snz;
      let naz = m2 * snx + m6 * sny + m10 * snz;
      const nal = Math.sqrt(nax * nax + nay * nay + naz * naz);
      if (nal > 1e-12 && isFinite<f64>(nal)) { nax /= nal; nay /= nal; naz /= nal; } else { nax = 0; nay = 1; naz = 0; }
      swing(nax, nay, naz, Nx, Ny, Nz);
      let sx = rx, sy = ry, sz = rz, sw = rw;
      const maxT = F(pMaxTilt, e);
      if (tiltMax !== maxT) { tiltMax = maxT; tiltCos = jsCos(0.5 * maxT); }
      const cw = Math.abs(sw);
      if (cw < tiltCos) {
        const ang = 2 * jsAcos(cw > 1 ? 1 : cw);
        slerp(0, 0, 0, 1, sx, sy, sz, sw, ang > 0 ? maxT / ang : 0); // (from identity: maxTilt of the swing)
        sx = rx; sy = ry; sz = rz; sw = rw;
      }
      qgx = sx * qaw + sw * qax + sy * qaz - sz * qay;
      qgy = sy * qaw + sw * qay + sz * qax - sx * qaz;
      qgz = sz * qaw + sw * qaz + sx * qay - sy * qax;
      qgw = sw * qaw - sx * qax - sy * qay - sz * qaz;
      if (w >= F(pLockOn, e)) {
        // Record the contact in the supporting entity's local frame.
        const s = gs;
        SI(pSupport, e, s);
        if (s >= 0) {
          const sr = I(pSRow, s); // (a live support: checked by the ground query)
          const so = sr * 16;
          // transformPoint(contactSs, invMatrixWs, G)
          SF(pContactSs + o3, 0, F(pSInv + (<usize>so << 3), 0) * Gx + F(pSInv + (<usize>so << 3), 4) * Gy + F(pSInv + (<usize>so << 3), 8) * Gz + F(pSInv + (<usize>so << 3), 12));
          SF(pContactSs + o3, 1, F(pSInv + (<usize>so << 3), 1) * Gx + F(pSInv + (<usize>so << 3), 5) * Gy + F(pSInv + (<usize>so << 3), 9) * Gz + F(pSInv + (<usize>so << 3), 13));
          SF(pContactSs + o3, 2, F(pSInv + (<usize>so << 3), 2) * Gx + F(pSInv + (<usize>so << 3), 6) * Gy + F(pSInv + (<usize>so << 3), 10) * Gz + F(pSInv + (<usize>so << 3), 14));
          const mir = B(pSMirrored, sr) === 1;
          const s4 = sr * 4;
          // rotationToLocal(rotSs, rotWs, qg, mirrored)
          {
            const ax = -F(pSRot + (<usize>s4 << 3), 0), ay = -F(pSRot + (<usize>s4 << 3), 1), az = -F(pSRot + (<usize>s4 << 3), 2), aw = F(pSRot + (<usize>s4 << 3), 3);
            const x = ax * qgw + aw * qgx + ay * qgz - az * qgy;
            const y = ay * qgw + aw * qgy + az * qgx - ax * qgz;
            const z = az * qgw + aw * qgz + ax * qgy - ay * qgx;
            const w2 = aw * qgw - ax * qgx - ay * qgy - az * qgz;
            SF(pRotSs + o4, 0, x); SF(pRotSs + o4, 1, mir ? -y : y); SF(pRotSs + o4, 2, mir ? -z : z); SF(pRotSs + o4, 3, w2);
          }
          // qRotateInv(normalSs, rotWs, N), x negated when mirrored
          {
            const qx = -F(pSRot + (<usize>s4 << 3), 0), qy = -F(pSRot + (<usize>s4 << 3), 1), qz = -F(pSRot + (<usize>s4 << 3), 2), qw = F(pSRot + (<usize>s4 << 3), 3);
            const tx = 2 * (qy * Nz - qz * Ny), ty = 2 * (qz * Nx - qx * Nz), tz = 2 * (qx * Ny - qy * Nx);
            const nx = Nx + qw * tx + (qy * tz - qz * ty);
            SF(pNormalSs + o3, 0, mir ? -nx : nx);
            SF(pNormalSs + o3, 1, Ny + qw * ty + (qz * tx - qx * tz));
            SF(pNormalSs + o3, 2, Nz + qw * tz + (qx * ty - qy * tx));
          }
        } else {
          SF(pContactSs + o3, 0, Gx); SF(pContactSs + o3, 1, Gy); SF(pContactSs + o3, 2, Gz);
          SF(pNormalSs + o3, 0, Nx); SF(pNormalSs + o3, 1, Ny); SF(pNormalSs + o3, 2, Nz);
          SF(pRotSs + o4, 0, qgx); SF(pRotSs + o4, 1, qgy); SF(pRotSs + o4, 2, qgz); SF(pRotSs + o4, 3, qgw);
        }
        SB(pLocked, e, 1);
      }
    } else {
      Gx = fx; Gy = fy; Gz = fz;
      Nx = 0; Ny = 1; Nz = 0;
      qgx = qax; qgy = qay; qgz = qaz; qgw = qaw;
    }
    SF(pContactWs + o3, 0, Gx); SF(pContactWs + o3, 1, Gy); SF(pContactWs + o3, 2, Gz);
    SF(pNormalWs + o3, 0, Nx); SF(pNormalWs + o3, 1, Ny); SF(pNormalWs + o3, 2, Nz);
    const Tx = fx + w * (Gx - fx), Ty = fy + w * (Gy - fy), Tz = fz + w * (Gz - fz);
    let qtx: f64, qty: f64, qtz: f64, qtw: f64;
    if (w >= 1) { qtx = qgx; qty = qgy; qtz = qgz; qtw = qgw; } else if (w > 0) {
      slerp(qax, qay, qaz, qaw, qgx, qgy, qgz, qgw, w);
      qtx = rx; qty = ry; qtz = rz; qtw = rw;
    } else { qtx = qax; qty = qay; qtz = qaz; qtw = qaw; }
    const Rx = qtx * qaw - qtw * qax - qty * qaz + qtz * qay;
    const Ry = qty * qaw - qtw * qay - qtz * qax + qtx * qaz;
    const Rz = qtz * qaw - qtw * qaz - qtx * qay + qty * qax;
    const Rw = qtw * qaw + qtx * qax + qty * qay + qtz * qaz;
    const vx = px - atx, vy = py - aty, vz = pz - atz;
    const tx = 2 * (Ry * vz - Rz * vy), ty = 2 * (Rz * vx - Rx * vz), tz = 2 * (Rx * vy - Ry * vx);
    SF(pTargetWs + o3, 0, Tx - (vx + Rw * tx + (Ry * tz - Rz * ty)));
    SF(pTargetWs + o3, 1, Ty - (vy + Rw * ty + (Rz * tx - Rx * tz)));
    SF(pTargetWs + o3, 2, Tz - (vz + Rw * tz + (Rx * ty - Ry * tx)));
    SF(pTargetRotWs + o4, 0, qtx); SF(pTargetRotWs + o4, 1, qty); SF(pTargetRotWs + o4, 2, qtz); SF(pTargetRotWs + o4, 3, qtw);
    SB(pHasTargetRot, e, 1);
    SF(pWeight, e, gb);
    SF(pRotWeight, e, gb);
    SB(pHasPole, e, 0);
  }
}

// PelvisHeight's per-leg scratch (hips, reaches, weights, intervals, gaps, order), at pScratch.
const S_HIP: i32 = 0; // f64 index: MAX_LEGS × 3
const S_R: i32 = 12, S_W: i32 = 16, S_LO: i32 = 20, S_HI: i32 = 24, S_GAP: i32 = 28; // f64 indices, MAX_LEGS each
const S_ORDER_BYTES: usize = 32 * 8; // i32 × MAX_LEGS after the f64s

// computeCenterOfMass's result.
let comX: f64 = 0, comY: f64 = 0, comZ: f64 = 0;

/** The centre of mass of character eid into comX..comZ (segments and held loads); false when it has none. */
function centerOfMass(eid: i32): bool {
  let x: f64 = 0, y: f64 = 0, z: f64 = 0, m: f64 = 0;
  const s0 = I(pSegStart, eid), s1 = s0 + I(pSegCount, eid);
  for (let k = s0; k < s1; k += 3) {
    const sl = F(pComSeg, k), c = F(pComSeg, k + 1), w = F(pComSeg, k + 2);
    // (a pool entry that is no slot of the store: no centre, as JavaScript's NaN gives)
    if (!(sl >= 0 && sl < <f64>gSlots && sl === <f64><i32>sl && c < <f64>gSlots && (c < 0 || c === <f64><i32>c))) return false;
    const s = <i32>sl * 16;
    let px = F(pWorldM, s + 12), py = F(pWorldM, s + 13), pz = F(pWorldM, s + 14);
    if (c >= 0) {
      const co = <i32>c * 16;
      px = 0.5 * (px + F(pWorldM, co + 12)); py = 0.5 * (py + F(pWorldM, co + 13)); pz = 0.5 * (pz + F(pWorldM, co + 14));
    }
    x += w * px; y += w * py; z += w * pz; m += w;
  }
  const na = B(pArmCount, eid);
  const body = F(pBodyMass, eid);
  for (let k = 0; k < na; k++) {
    const a = I(pArms, eid * MAX_ARMS + k);
    const load = F(pHMass, a);
    if (!(load > 0) || B(pHHasGrip, a) !== 1) continue;
    const w = (load / body) * (m > 0 ? m : 1);
    x += w * F(pHObjectPos, a * 3); y += w * F(pHObjectPos, a * 3 + 1); z += w * F(pHObjectPos, a * 3 + 2); m += w;
  }
  if (!(m > 0) || !isFinite<f64>(x + y + z)) return false;
  comX = x / m; comY = y / m; comZ = z / m;
  return true;
}

/**
 * PelvisHeight for the characters `list[from..count)` in order (an entry -1 - c, as footLockRun
 * takes it, is character c).
 */
export function pelvisRun(from: i32, count: i32): void {
  const dt = F(pParams, 0);
  const valid = dt > 0 && isFinite<f64>(dt);
  const sc = pScratch, so = pScratch + S_ORDER_BYTES;
  let aRate: f64 = NaN, alpha: f64 = 0;
  for (let i = from; i < count; i++) {
    const c0 = I(pList, i);
    const c = c0 < 0 ? -1 - c0 : c0;
    if (!charOk(c)) continue;
    const nLegs = B(pLegCount, c);
    const rate = F(pPelvisRate, c);
    if (rate !== aRate) { aRate = rate; alpha = valid ? 1 - jsExp(-rate * dt) : 0; }
    const first = B(pInit, c) === 0;
    let meanLen: f64 = 0;
    let minStance: f64 = 1;
    let sw: f64 = 0, sx: f64 = 0, sz: f64 = 0;
    for (let k = 0; k < nLegs; k++) {
      const e = I(pLegs, c * MAX_LEGS + k);
      const sk: usize = sc + (<usize>k << 3); // (leg k's scratch entries by immediate offsets)
      // (the world matrices by base address and immediate offsets)
      const wa: usize = pWorldM + (<usize>I(pRootSlot, e) << 7), wb: usize = pWorldM + (<usize>I(pMidSlot, e) << 7);
      const bx = F(wb, 12), by = F(wb, 13), bz = F(wb, 14);
      let cx: f64, cy: f64, cz: f64;
      if (B(pEndIsChild, e) === 1) { const we: usize = pWorldM + (<usize>I(pEndSlot, e) << 7); cx = F(we, 12); cy = F(we, 13); cz = F(we, 14); } else {
        const tl: usize = pTipLs + <usize>(e * 24);
        const x = F(tl, 0), y = F(tl, 1), z = F(tl, 2);
        cx = F(wb, 0) * x + F(wb, 4) * y + F(wb, 8) * z + bx;
        cy = F(wb, 1) * x + F(wb, 5) * y + F(wb, 9) * z + by;
        cz = F(wb, 2) * x + F(wb, 6) * y + F(wb, 10) * z + bz;
      }
      const ax = F(wa, 12), ay = F(wa, 13), az = F(wa, 14);
      const len = Math.sqrt(((bx - ax) * (bx - ax)) + ((by - ay) * (by - ay)) + ((bz - az) * (bz - az))) + Math.sqrt(((cx - bx) * (cx - bx)) + ((cy - by) * (cy - by)) + ((cz - bz) * (cz - bz)));
      const hp: usize = sc + (<usize>(S_HIP + k * 3) << 3);
      SF(hp, 0, ax); SF(hp, 1, ay); SF(hp, 2, az);
      let R = len * (1 - F(pSoften, e));
      const dc = Math.sqrt(((cx - ax) * (cx - ax)) + ((cy - ay) * (cy - ay)) + ((cz - az) * (cz - az)));
      if (dc > R) R = dc < len ? dc : len;
      SF(sk, S_R, R * (1 - 1e-9));
      meanLen += len / <f64>nLegs;
      const w = F(pStanceEff, e);
      SF(sk, S_W, w);
      if (w < minStance) minStance = w;
      if (w > 0) { const cw: usize = pContactWs + <usize>(e * 24); sw += w; sx += w * F(cw, 0); sz += w * F(cw, 2); }
      SI(so, k, k);
    }
    if (!isFinite<f64>(meanLen)) meanLen = 0;
    if (nLegs === 0) minStance = 0;
    const gb = F(pGroundBlend, c);
    const bi = F(pBalanceInput, c);
    const bw = (bi >= 0 ? bi : F(pBalance, c) * minStance) * gb;
    let wantX: f64 = 0, wantZ: f64 = 0;
    SB(pComValid, c, 0);
    if (bw > 0 && sw > 0 && centerOfMass(c)) {
      SB(pComValid, c, 1);
      SF(pComWs, c * 3, comX); SF(pComWs, c * 3 + 1, comY); SF(pComWs, c * 3 + 2, comZ);
      SF(pSupportWs, c * 3, sx / sw); SF(pSupportWs, c * 3 + 1, comY); SF(pSupportWs, c * 3 + 2, sz / sw);
      wantX = bw * (sx / sw - comX);
      wantZ = bw * (sz / sw - comZ);
    }
    const maxShift = F(pBalanceMaxShift, c) * meanLen;
    let ox = F(pOffsetWs + <usize>(c * 24), 0), oz = F(pOffsetWs + <usize>(c * 24), 2);
    if (first) { ox = wantX; oz = wantZ; } else { ox += (wantX - ox) * alpha; oz += (wantZ - oz) * alpha; }
    const snap = 1e-9 * (meanLen > 0 ? meanLen : 1);
    if (Math.abs(ox - wantX) < snap) ox = wantX;
    if (Math.abs(oz - wantZ) < snap) oz = wantZ;
    const sh = Math.sqrt(ox * ox + oz * oz);
    if (sh > maxShift) { const f = maxShift > 0 ? maxShift / sh : 0; ox *= f; oz *= f; }
    if (!isFinite<f64>(ox + oz)) { ox = 0; oz = 0; }
    let nBad: i32 = 0;
    for (let k = 0; k < nLegs; k++) {
      const sk: usize = sc + (<usize>k << 3);
      SF(sk, S_LO, NaN); SF(sk, S_HI, NaN);
      if (!(F(sk, S_W) > 0)) continue;
      const e = I(pLegs, c * MAX_LEGS + k);
      const hp: usize = sc + (<usize>(S_HIP + k * 3) << 3), tg: usize = pTargetWs + <usize>(e * 24);
      const dx = F(hp, 0) + ox - F(tg, 0);
      const dy = F(hp, 1) - F(tg, 1);
      const dz = F(hp, 2) + oz - F(tg, 2);
      const R = F(sk, S_R);
      const disc = R * R - dx * dx - dz * dz;
      if (!(disc >= 0)) { nBad++; continue; }
      const sq = Math.sqrt(disc);
      SF(sk, S_LO, -dy - sq); SF(sk, S_HI, -dy + sq);
    }
    for (let k = 0; k < nLegs; k++) {
      const sk: usize = sc + (<usize>k << 3);
      const lo = F(sk, S_LO), hi = F(sk, S_HI);
      SF(sk, S_GAP, lo > 0 ? lo : hi < 0 ? -hi : lo <= hi ? 0 : NaN);
    }
    for (let p = 1; p < nLegs; p++) {
      const k = I(so, p);
      const sk: usize = sc + (<usize>k << 3);
      const wk = F(sk, S_W), gk = F(sk, S_GAP);
      let q = p - 1;
      while (q >= 0) {
        const j = I(so, q);
        const sj: usize = sc + (<usize>j << 3);
        const wj = F(sj, S_W), gj = F(sj, S_GAP);
        if (!(wk != wj ? wk > wj : gk < gj || (gk == gk && gj != gj))) break;
        SI(so, q + 1, j);
        q--;
      }
      SI(so, q + 1, k);
    }
    let lo: f64 = -Infinity, hi: f64 = Infinity;
    let nIn: i32 = 0;
    for (let p = 0; p < nLegs; p++) {
      const k = I(so, p);
      const sk: usize = sc + (<usize>k << 3);
      const li = F(sk, S_LO), hi2 = F(sk, S_HI);
      if (!(li <= hi2)) continue;
      if (li > hi || hi2 < lo) { nBad++; continue; }
      if (li > lo) lo = li;
      if (hi2 < hi) hi = hi2;
      nIn++;
    }
    const dropLim = -F(pMaxDrop, c) * meanLen, raiseLim = F(pMaxRaise, c) * meanLen;
    if (nIn === 0) { lo = dropLim; hi = raiseLim; } else {
      const l2 = lo > dropLim ? lo : dropLim, h2 = hi < raiseLim ? hi : raiseLim;
      if (l2 <= h2) { lo = l2; hi = h2; }
    }
    let desired: f64 = 0;
    if (desired < lo) desired = lo; else if (desired > hi) desired = hi;
    let y = F(pOffsetWs + <usize>(c * 24), 1);
    y = first ? desired : y + (desired - y) * alpha;
    if (Math.abs(y - desired) < snap) y = desired;
    if (y < lo) y = lo; else if (y > hi) y = hi;
    if (!isFinite<f64>(y)) y = 0;
    SF(pOffsetWs + <usize>(c * 24), 0, ox); SF(pOffsetWs + <usize>(c * 24), 1, y); SF(pOffsetWs + <usize>(c * 24), 2, oz);
    SF(pBandLo, c, lo); SF(pBandHi, c, hi); SB(pBandLegs, c, nIn); SB(pBandInf, c, nBad);
    const slack = 1e-6 * meanLen;
    SB(pBandBeyond, c, y < dropLim - slack || y > raiseLim + slack ? 1 : 0);
    SB(pInit, c, 1);
    if (Math.abs(ox) + Math.abs(y) + Math.abs(oz) === 0) continue;
    applyPelvisOffset(c);
  }
}

/** Move the pelvis of character c by offsetWs. */
@inline function applyPelvisOffset(c: i32): void {
  const ps = I(pPelvisSlot, c);
  const ch = I(pScChar, c);
  const ow: usize = pOffsetWs + <usize>(c * 24);
  const dx = F(ow, 0), dy = F(ow, 1), dz = F(ow, 2);
  const par = I(pParent, ps);
  const m: usize = par >= 0 ? pWorldM + (<usize>(par * 16) << 3) : pRootWs + (<usize>(ch * 16) << 3);
  const a00 = F(m, 0), a01 = F(m, 1), a02 = F(m, 2);
  const a10 = F(m, 4), a11 = F(m, 5), a12 = F(m, 6);
  const a20 = F(m, 8), a21 = F(m, 9), a22 = F(m, 10);
  const b01 = a22 * a11 - a12 * a21, b11 = -a22 * a10 + a12 * a20, b21 = a21 * a10 - a11 * a20;
  const det = a00 * b01 + a01 * b11 + a02 * b21;
  if (!(Math.abs(det) > 1e-300) || !isFinite<f64>(det)) return;
  const id = 1 / det;
  const lx = (b01 * dx + (-a22 * a01 + a02 * a21) * dy + (a12 * a01 - a02 * a11) * dz) * id;
  const ly = (b11 * dx + (a22 * a00 - a02 * a20) * dy + (-a12 * a00 + a02 * a10) * dz) * id;
  const lz = (b21 * dx + (-a21 * a00 + a01 * a20) * dy + (a11 * a00 - a01 * a10) * dz) * id;
  const lt: usize = pLocalT + <usize>(ps * 24);
  SF(lt, 0, F(lt, 0) + lx);
  SF(lt, 1, F(lt, 1) + ly);
  SF(lt, 2, F(lt, 2) + lz);
  const end = I(pPelvisSubEnd, c);
  if (B(pPelvisDense, c) === 1) {
    // (the translation columns of slots ps..end − 1, by base address and immediate offsets)
    for (let k = ps; k < end; k++) {
      const w: usize = pWorldM + (<usize>k << 7);
      SF(w, 12, F(w, 12) + dx); SF(w, 13, F(w, 13) + dy); SF(w, 14, F(w, 14) + dz);
    }
    return;
  }
  const o0 = ps * 16;
  SF(pWorldM, o0 + 12, F(pWorldM, o0 + 12) + dx); SF(pWorldM, o0 + 13, F(pWorldM, o0 + 13) + dy); SF(pWorldM, o0 + 14, F(pWorldM, o0 + 14) + dz);
  SB(pDirty, ps, 1);
  for (let k = ps + 1; k < end; k++) {
    const p = I(pParent, k);
    if (p >= 0 && B(pDirty, p) === 1) {
      const o = k * 16;
      SF(pWorldM, o + 12, F(pWorldM, o + 12) + dx); SF(pWorldM, o + 13, F(pWorldM, o + 13) + dy); SF(pWorldM, o + 14, F(pWorldM, o + 14) + dz);
      SB(pDirty, k, 1);
    }
  }
  for (let k = ps; k < end; k++) SB(pDirty, k, 0);
}

/**
 * The centre of mass of character c now (world): weighted body segments (the midpoint of each
 * bone and its child) plus held loads at the held objects, as PelvisHeight's balance uses it.
 * 1 with the point in {@link comXOf}..{@link comZOf}; 0 for a character outside the layout or
 * without one (no segments, a non-finite pose).
 */
export function centerOfMassOf(c: i32): i32 {
  if (<u32>c >= gEnts || !charOk(c)) return 0;
  return centerOfMass(c) ? 1 : 0;
}
/** x of the last {@link centerOfMassOf} (world units). */
export function comXOf(): f64 { return comX; }
/** y of the last {@link centerOfMassOf}. */
export function comYOf(): f64 { return comY; }
/** z of the last {@link centerOfMassOf}. */
export function comZOf(): f64 { return comZ; }

/** 1 when scene character c's structure fields lie inside the layout ({@link charOk}: what FootLock and PelvisHeight solve), else 0. */
export function characterOk(c: i32): i32 { return <u32>c < gEnts && charOk(c) ? 1 : 0; }
