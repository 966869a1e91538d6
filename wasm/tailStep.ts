// AssemblyScript source of the WebAssembly tail step and write (`npm run build:wasm` compiles
// it into runtime/wasm/tailStepWasm.ts; test/build/kernelsCurrent.test.ts checks the compile is current).
// This is the one implementation of the tail's physics: systems/tailStep.ts and
// systems/tailWrite.ts only call it.
//
// The step: float32, four chains at a time (f32x4: the four chains of a row group, which have
// the same link count), on the world's tail components themselves: their per-link fields keep
// the four chains of a group side by side (core/components/tail.ts linkEl), so every load and
// store of the link loop is one v128 at a fixed offset from the field's base, and the
// components are current after every step with nothing copied. Per link, the stages
// tailSpring, bendCouple, tailCollide and floorContact (named functions below) run in order.
// Branches become lane selects; the collider and the rare floor contacts run per lane in f64
// (a group whose chains have no colliders skips tailCollide at one test per link).
// The write: two chains per f64x2 lane pair. The clock's per-chain preparation, its common
// case (prepareChains), and its per-step anchors (anchorSteps, but the rotations that need the
// full slerp, left to JavaScript).
//
// Memory: the world's tail components (TailChain, TailParticle, BendState) are views into
// this instance's memory (runtime/kernels.ts lays them out); `setPointers` gives their
// byte offsets. The caller keeps each chain's `stepCache` current (the exponentials, computed
// with JavaScript's Math.exp) and gives the step length h (`params[0]`, seconds); per chain and
// step the kernel computes the chain's constants (core/tailKernel.ts chainStepConstants) into
// its lane of the group block, and for a chain with a link on the floor also into a 16-f64
// record (`chainK`, by entity id):
//   0 f0 (Hz), 1 df (Hz per link), 2 2ζ, 3..5 forward axis F (world), 6 gravity (units/s²),
//   7 coupling α, 8 cos(θmax/2), 9 sin(θmax/2), 10 floor on (0/1), 11 floor height F + ρ,
//   12..13 backward horizontal (x, z), 14 contact damping e^(−γΔt)

import * as QM from './quatMath';
import { shepperdQ } from './quatMath';

const LINK_STRIDE: i32 = 9; // = LINK_STRIDE in core/components/tail.ts
const MAX_LINKS: i32 = 8; // = MAX_LINKS in core/components/tail.ts

let pAS: usize = 0, pLinks: usize = 0, pRow: usize = 0, pSteps: usize = 0;
let pHeadLs: usize = 0, pRestDirLs: usize = 0, pLenRel: usize = 0, pScaleRel: usize = 0;
let pRestR: usize = 0, pLocalCur: usize = 0, pLocalPrev: usize = 0, pToHipsM: usize = 0;
let pRestDirHs: usize = 0, pBendOld: usize = 0;
let pPos: usize = 0, pVel: usize = 0, pContact: usize = 0, pChainK: usize = 0, pEnts: usize = 0, pParams: usize = 0;
let pAxesLs: usize = 0, pFrequency: usize = 0, pTipRatio: usize = 0, pDamping: usize = 0, pGravity: usize = 0, pUnitScale: usize = 0;
let pFloorY: usize = 0, pFloorClearance: usize = 0, pFloorEnabled: usize = 0, pStepCache: usize = 0;
let pOrigin: usize = 0, pRowEnt: usize = 0, pScratch: usize = 0;

/** Byte offsets of the arrays the step reads and writes (setup, after every re-layout). */
export function setPointers(
  anchorStep: usize, links: usize, row: usize, steps: usize, headLs: usize, restDirLs: usize, lenRel: usize, scaleRel: usize,
  restR: usize, localCur: usize, localPrev: usize, toHipsM: usize, restDirHs: usize, bendOld: usize,
  pos: usize, vel: usize, contact: usize,
  axesLs: usize, frequency: usize, tipRatio: usize, damping: usize, gravity: usize, unitScale: usize,
  floorY: usize, floorClearance: usize, floorEnabled: usize, stepCache: usize, origin: usize, rowEnt: usize,
  chainK: usize, ents: usize, params: usize, scratch: usize,
): void {
  pAS = anchorStep; pLinks = links; pRow = row; pSteps = steps; pHeadLs = headLs; pRestDirLs = restDirLs; pLenRel = lenRel;
  pScaleRel = scaleRel; pRestR = restR; pLocalCur = localCur; pLocalPrev = localPrev; pToHipsM = toHipsM; pRestDirHs = restDirHs;
  pBendOld = bendOld; pPos = pos; pVel = vel; pContact = contact; pChainK = chainK; pEnts = ents;
  pParams = params;
  pAxesLs = axesLs; pFrequency = frequency; pTipRatio = tipRatio; pDamping = damping; pGravity = gravity; pUnitScale = unitScale;
  pFloorY = floorY; pFloorClearance = floorClearance; pFloorEnabled = floorEnabled; pStepCache = stepCache;
  pOrigin = origin; pRowEnt = rowEnt; pScratch = scratch;
}

/** Fill chain eid's constants record (core/tailKernel.ts chainStepConstants, same operations). */
function chainConstants(eid: i32): void {
  const o = eid * 16;
  const a = eid * 8 + 3, v = eid * 9;
  // forward axis F = anchor rotation · axesLs[0..2] (qRotate)
  const qx = L(pAS, a), qy = L(pAS, a + 1), qz = L(pAS, a + 2), qw = L(pAS, a + 3);
  const vx = L(pAxesLs, v), vy = L(pAxesLs, v + 1), vz = L(pAxesLs, v + 2);
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  const fx = vx + qw * tx + (qy * tz - qz * ty);
  const fy = vy + qw * ty + (qz * tx - qx * tz);
  const fz = vz + qw * tz + (qx * ty - qy * tx);
  let bx = -fx, bz = -fz;
  const bl = Math.sqrt(bx * bx + bz * bz);
  if (bl > 1e-9) { bx /= bl; bz /= bl; } else { bx = 0; bz = -1; }
  const us = L(pUnitScale, eid);
  const n = <i32>load<u8>(pLinks + <usize>eid);
  const f0 = L(pFrequency, eid);
  const c = eid * 5;
  S(pChainK, o, f0);
  S(pChainK, o + 1, n > 1 ? (f0 * (L(pTipRatio, eid) - 1)) / <f64>(n - 1) : 0);
  S(pChainK, o + 2, 2 * L(pDamping, eid));
  S(pChainK, o + 3, fx); S(pChainK, o + 4, fy); S(pChainK, o + 5, fz);
  S(pChainK, o + 6, L(pGravity, eid) * us);
  S(pChainK, o + 7, L(pStepCache, c + 2)); S(pChainK, o + 8, L(pStepCache, c + 3)); S(pChainK, o + 9, L(pStepCache, c + 4));
  S(pChainK, o + 10, <f64>load<u8>(pFloorEnabled + <usize>eid));
  S(pChainK, o + 11, L(pFloorY, eid) + L(pFloorClearance, eid) * us);
  S(pChainK, o + 12, bx); S(pChainK, o + 13, bz); S(pChainK, o + 14, L(pStepCache, c + 1));
}

// ---- lane helpers
// Gc / Pc: load / store the lane pair (array p at element ia in lane 0, at ib in lane 1) + c.
// The field offset c is a constant folded into the instructions, so all fields of one array
// and link share one address computation per lane (Gc(p, a3, b3) for c = 0..2 is one x, y, z).
@inline function G0(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 0), 1, 0); }
@inline function G1(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 8), 1, 8); }
@inline function G2(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 16), 1, 16); }
@inline function G3(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 24), 1, 24); }
@inline function G4(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 32), 1, 32); }
@inline function G5(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 40), 1, 40); }
@inline function G6(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 48), 1, 48); }
@inline function G7(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 56), 1, 56); }
@inline function G8(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 64), 1, 64); }
@inline function G9(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 72), 1, 72); }
@inline function G10(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 80), 1, 80); }
@inline function G11(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 88), 1, 88); }
@inline function G12(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 96), 1, 96); }
@inline function G13(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 104), 1, 104); }
@inline function G14(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 112), 1, 112); }
@inline function G15(p: usize, ia: i32, ib: i32): v128 { return v128.load64_lane(p + (<usize>ib << 3), v128.load64_zero(p + (<usize>ia << 3), 120), 1, 120); }
@inline function P0(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 0); v128.store64_lane(p + (<usize>ib << 3), v, 1, 0); }
@inline function P1(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 8); v128.store64_lane(p + (<usize>ib << 3), v, 1, 8); }
@inline function P2(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 16); v128.store64_lane(p + (<usize>ib << 3), v, 1, 16); }
@inline function P3(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 24); v128.store64_lane(p + (<usize>ib << 3), v, 1, 24); }
@inline function P4(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 32); v128.store64_lane(p + (<usize>ib << 3), v, 1, 32); }
@inline function P5(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 40); v128.store64_lane(p + (<usize>ib << 3), v, 1, 40); }
@inline function P6(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 48); v128.store64_lane(p + (<usize>ib << 3), v, 1, 48); }
@inline function P7(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 56); v128.store64_lane(p + (<usize>ib << 3), v, 1, 56); }
@inline function P8(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 64); v128.store64_lane(p + (<usize>ib << 3), v, 1, 64); }
@inline function P9(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 72); v128.store64_lane(p + (<usize>ib << 3), v, 1, 72); }
@inline function P10(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 80); v128.store64_lane(p + (<usize>ib << 3), v, 1, 80); }
@inline function P11(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 88); v128.store64_lane(p + (<usize>ib << 3), v, 1, 88); }
@inline function P12(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 96); v128.store64_lane(p + (<usize>ib << 3), v, 1, 96); }
@inline function P13(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 104); v128.store64_lane(p + (<usize>ib << 3), v, 1, 104); }
@inline function P14(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 112); v128.store64_lane(p + (<usize>ib << 3), v, 1, 112); }
@inline function P15(p: usize, ia: i32, ib: i32, v: v128): void { v128.store64_lane(p + (<usize>ia << 3), v, 0, 120); v128.store64_lane(p + (<usize>ib << 3), v, 1, 120); }
@inline function ad(a: v128, b: v128): v128 { return f64x2.add(a, b); }
@inline function sb(a: v128, b: v128): v128 { return f64x2.sub(a, b); }
@inline function mu(a: v128, b: v128): v128 { return f64x2.mul(a, b); }
@inline function dv(a: v128, b: v128): v128 { return f64x2.div(a, b); }
@inline function sq(a: v128): v128 { return f64x2.sqrt(a); }
@inline function ng(a: v128): v128 { return f64x2.neg(a); }
@inline function sp(a: f64): v128 { return f64x2.splat(a); }
@inline function lt(a: v128, b: v128): v128 { return f64x2.lt(a, b); }
@inline function gt(a: v128, b: v128): v128 { return f64x2.gt(a, b); }
/** a where m, else b */
@inline function sel(m: v128, a: v128, b: v128): v128 { return v128.bitselect(a, b, m); }
/** Every lane of mask m set (the common case of the masks below: their selects are skipped). */
@inline function all(m: v128): bool { return i64x2.all_true(m); }
@inline function dot3(ax: v128, ay: v128, az: v128, bx: v128, by: v128, bz: v128): v128 {
  return ad(ad(mu(ax, bx), mu(ay, by)), mu(az, bz));
}
/** Components of the quaternion product a·b (x, y, z, w), in one fixed operation order. */
@inline function qmx(ax: v128, ay: v128, az: v128, aw: v128, bx: v128, by: v128, bz: v128, bw: v128): v128 {
  return sb(ad(ad(mu(ax, bw), mu(aw, bx)), mu(ay, bz)), mu(az, by));
}
@inline function qmy(ax: v128, ay: v128, az: v128, aw: v128, bx: v128, by: v128, bz: v128, bw: v128): v128 {
  return sb(ad(ad(mu(ay, bw), mu(aw, by)), mu(az, bx)), mu(ax, bz));
}
@inline function qmz(ax: v128, ay: v128, az: v128, aw: v128, bx: v128, by: v128, bz: v128, bw: v128): v128 {
  return sb(ad(ad(mu(az, bw), mu(aw, bz)), mu(ax, by)), mu(ay, bx));
}
@inline function qmw(ax: v128, ay: v128, az: v128, aw: v128, bx: v128, by: v128, bz: v128, bw: v128): v128 {
  return sb(sb(sb(mu(aw, bw), mu(ax, bx)), mu(ay, by)), mu(az, bz));
}
@inline function L(p: usize, i: i32): f64 { return load<f64>(p + (<usize>i << 3)); }
@inline function S(p: usize, i: i32, v: f64): void { store<f64>(p + (<usize>i << 3), v); }

// ---- the f32x4 step: the four chains of a row group, float32, in place
//
// Per-link fields keep the four chains of group g side by side: component c of a width-w field
// of link i is the v128 at base + ((g·LINK_STRIDE + i)·w + c)·16, lane j = the chain in row
// 4g + j. Particle positions are relative to the chain's `origin` (f64, the anchor's position
// at its last step): float32 world positions would lose 100× more. A lane without a chain, or
// whose chain has no step pending, computes with benign constants and stores nothing (its
// stores keep the old value). What lives only for one step (the lane constants, the link
// loop's state, the new bends and local rotations) is in the step's scratch below.
//
// Element index of component c of a width-w field at link number q (core/components/tail.ts linkEl).
@inline function EL(q: i32, w: i32, c: i32): usize { return <usize>((((q >> 2) * w + c) << 2) + (q & 3)); }
/** Component c of width-w float32 field p at link number q, as f64. */
@inline function LE(p: usize, q: i32, w: i32, c: i32): f64 { return <f64>load<f32>(p + (EL(q, w, c) << 2)); }
@inline function SE(p: usize, q: i32, w: i32, c: i32, v: f64): void { store<f32>(p + (EL(q, w, c) << 2), <f32>v); }
/** Link number of link i of the chain in row `row` (core/components/tail.ts linkIndex). */
@inline function LQ(row: i32, i: i32): i32 { return (((row >> 2) * LINK_STRIDE + i) << 2) + (row & 3); }
// A step's own per-link values (v128 each; in the step's scratch, below): bendNew 4 and
// localCur 4 (this step's, for the snapshot at the group's end).
const BN: i32 = 0, LC: i32 = 4;
/** Bytes of one link's step values, and of a group's (LINK_STRIDE links). */
const DYNB: i32 = 8 * 16;
const GDYNB: i32 = LINK_STRIDE * DYNB;
// Group block (v128 each): the chain constants of this step per lane, then the floor scratch.
const K_F0: i32 = 0, K_DF: i32 = 1, K_Z2: i32 = 2, K_FX: i32 = 3, K_GRAV: i32 = 6, K_ALPHA: i32 = 7, K_COSH: i32 = 8, K_SINH: i32 = 9;
const K_FLOORON: i32 = 10, K_FLOOR: i32 = 11, K_DX: i32 = 12, K_QX: i32 = 15, K_S: i32 = 19;
const K_M: i32 = 20, K_H: i32 = 29, K_R: i32 = 32, K_D: i32 = 34, K_LEN: i32 = 36, K_DP: i32 = 37;
// … the lanes' step mask (i32x4: −1 steps this call, 0 not), the link loop's state between
// links (parent frame rotation, head, scale; the first link's head), the group's link count (i32)
const K_LIVE: i32 = 40, K_SQ: i32 = 41, K_SP: i32 = 45, K_SPS: i32 = 48, K_SO: i32 = 49, K_N: i32 = 52;
// … the lanes whose chain has colliders (i32x4 mask: −1 live with colliders, 0 not), the most
// colliders a lane has (i32), then per collider slot m of each lane, this step's shape relative
// to the lane's origin (8 v128 from K_CS + 8m: a, b − a, the reach r·1.001 + lead (−1: none),
// the radius r)
const K_COLL: i32 = 53, K_NC: i32 = 54, K_CS: i32 = 55;
const MAX_CHAIN_COLLIDERS: i32 = 16; // = MAX_CHAIN_COLLIDERS in core/components/collider.ts
/** v128 per group block. */
const GKV: i32 = K_CS + 8 * MAX_CHAIN_COLLIDERS;
const GKB: i32 = GKV * 16;
/** Groups stepped side by side (their links interleaved: one chain's links are a dependency chain). */
const CHUNK: i32 = 16;
/** Bytes of the step's scratch (runtime/kernels.ts lays it out): a chunk's group blocks, then their step values. */
const SCRATCH_GK: i32 = CHUNK * GKB;
const SCRATCH: i32 = SCRATCH_GK + CHUNK * GDYNB;

@inline function f4(a: f32): v128 { return f32x4.splat(a); }
@inline function ad4(a: v128, b: v128): v128 { return f32x4.add(a, b); }
@inline function sb4(a: v128, b: v128): v128 { return f32x4.sub(a, b); }
@inline function mu4(a: v128, b: v128): v128 { return f32x4.mul(a, b); }
@inline function dv4(a: v128, b: v128): v128 { return f32x4.div(a, b); }
@inline function sq4(a: v128): v128 { return f32x4.sqrt(a); }
@inline function ng4(a: v128): v128 { return f32x4.neg(a); }
@inline function lt4(a: v128, b: v128): v128 { return f32x4.lt(a, b); }
@inline function gt4(a: v128, b: v128): v128 { return f32x4.gt(a, b); }
/** Every lane of mask m set (the common case of the masks below: their selects are skipped). */
@inline function all4(m: v128): bool { return i32x4.all_true(m); }
@inline function dot34(ax: v128, ay: v128, az: v128, bx: v128, by: v128, bz: v128): v128 {
  return ad4(ad4(mu4(ax, bx), mu4(ay, by)), mu4(az, bz));
}
/** Components of the quaternion product a·b (x, y, z, w), in one fixed operation order. */
@inline function qmx4(ax: v128, ay: v128, az: v128, aw: v128, bx: v128, by: v128, bz: v128, bw: v128): v128 {
  return sb4(ad4(ad4(mu4(ax, bw), mu4(aw, bx)), mu4(ay, bz)), mu4(az, by));
}
@inline function qmy4(ax: v128, ay: v128, az: v128, aw: v128, bx: v128, by: v128, bz: v128, bw: v128): v128 {
  return sb4(ad4(ad4(mu4(ay, bw), mu4(aw, by)), mu4(az, bx)), mu4(ax, bz));
}
@inline function qmz4(ax: v128, ay: v128, az: v128, aw: v128, bx: v128, by: v128, bz: v128, bw: v128): v128 {
  return sb4(ad4(ad4(mu4(az, bw), mu4(aw, bz)), mu4(ax, by)), mu4(ay, bx));
}
@inline function qmw4(ax: v128, ay: v128, az: v128, aw: v128, bx: v128, by: v128, bz: v128, bw: v128): v128 {
  return sb4(sb4(sb4(mu4(aw, bw), mu4(ax, bx)), mu4(ay, by)), mu4(az, bz));
}
/** Lane `lj` (byte offset j·4) of v128 `f` at record or block address `r`, as f64. */
@inline function LF(r: usize, f: i32, lj: usize): f64 { return <f64>load<f32>(r + (<usize>f << 4) + lj); }
@inline function SF(r: usize, f: i32, lj: usize, v: f64): void { store<f32>(r + (<usize>f << 4) + lj, <f32>v); }
/**
 * Lane j's constants of this step into the group block gk: those of {@link chainConstants}
 * but the floor fallback (the same operations in f64, demoted; computed here rather than read
 * back from `chainK`, whose record only a floor contact needs: {@link floorLane} fills it), the
 * floor height and the anchor's move since the chain's last step relative to its `ref` (then
 * moved to this step's anchor), the anchor rotation and scale.
 */
function laneConsts(gk: usize, j: i32, eid: i32): void {
  const lj = <usize>(j << 2);
  const a = eid * 8, e3 = eid * 3, v = eid * 9, c = eid * 5;
  // forward axis F = anchor rotation · axesLs[0..2] (qRotate, as chainConstants)
  const qx = L(pAS, a + 3), qy = L(pAS, a + 4), qz = L(pAS, a + 5), qw = L(pAS, a + 6);
  const vx = L(pAxesLs, v), vy = L(pAxesLs, v + 1), vz = L(pAxesLs, v + 2);
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  const us = L(pUnitScale, eid);
  const n = <i32>load<u8>(pLinks + <usize>eid);
  const f0 = L(pFrequency, eid);
  SF(gk, K_F0, lj, f0);
  SF(gk, K_DF, lj, n > 1 ? (f0 * (L(pTipRatio, eid) - 1)) / <f64>(n - 1) : 0);
  SF(gk, K_Z2, lj, 2 * L(pDamping, eid));
  SF(gk, K_FX, lj, vx + qw * tx + (qy * tz - qz * ty));
  SF(gk, K_FX + 1, lj, vy + qw * ty + (qz * tx - qx * tz));
  SF(gk, K_FX + 2, lj, vz + qw * tz + (qx * ty - qy * tx));
  SF(gk, K_GRAV, lj, L(pGravity, eid) * us);
  SF(gk, K_ALPHA, lj, L(pStepCache, c + 2)); SF(gk, K_COSH, lj, L(pStepCache, c + 3)); SF(gk, K_SINH, lj, L(pStepCache, c + 4));
  SF(gk, K_FLOORON, lj, <f64>load<u8>(pFloorEnabled + <usize>eid));
  const ax = L(pAS, a), ay = L(pAS, a + 1), az = L(pAS, a + 2);
  SF(gk, K_FLOOR, lj, (L(pFloorY, eid) + L(pFloorClearance, eid) * us) - ay);
  SF(gk, K_DX, lj, ax - L(pOrigin, e3)); SF(gk, K_DX + 1, lj, ay - L(pOrigin, e3 + 1)); SF(gk, K_DX + 2, lj, az - L(pOrigin, e3 + 2));
  S(pOrigin, e3, ax); S(pOrigin, e3 + 1, ay); S(pOrigin, e3 + 2, az);
  SF(gk, K_QX, lj, qx); SF(gk, K_QX + 1, lj, qy); SF(gk, K_QX + 2, lj, qz); SF(gk, K_QX + 3, lj, qw);
  SF(gk, K_S, lj, L(pAS, a + 7));
}

/** Lanes j, j + 1 (byte offset lo = 8·j/2 … as one 8-byte store) of the group block gk: the f32 pair of f64x2 v. */
@inline function SF2(gk: usize, f: i32, lo: usize, v: v128): void { v128.store64_lane(gk + (<usize>f << 4) + lo, f32x4.demote_f64x2_zero(v), 0); }

/**
 * {@link laneConsts} for the lanes (j, j + 1) of chains eA, eB (lo: their byte offset in the
 * block, 0 or 8), one per f64x2 lane: the same operations, the same f32 results.
 */
function laneConsts2(gk: usize, lo: usize, eA: i32, eB: i32, n: i32): void {
  const aA = eA * 8, aB = eB * 8, e3A = eA * 3, e3B = eB * 3, vA = eA * 9, vB = eB * 9, cA = eA * 5, cB = eB * 5;
  const qx = G3(pAS, aA, aB), qy = G4(pAS, aA, aB), qz = G5(pAS, aA, aB), qw = G6(pAS, aA, aB);
  const vx = G0(pAxesLs, vA, vB), vy = G1(pAxesLs, vA, vB), vz = G2(pAxesLs, vA, vB);
  const TWO = sp(2);
  const tx = mu(TWO, sb(mu(qy, vz), mu(qz, vy)));
  const ty = mu(TWO, sb(mu(qz, vx), mu(qx, vz)));
  const tz = mu(TWO, sb(mu(qx, vy), mu(qy, vx)));
  const us = G0(pUnitScale, eA, eB);
  const f0 = G0(pFrequency, eA, eB);
  SF2(gk, K_F0, lo, f0);
  SF2(gk, K_DF, lo, n > 1 ? dv(mu(f0, sb(G0(pTipRatio, eA, eB), sp(1))), sp(<f64>(n - 1))) : sp(0));
  SF2(gk, K_Z2, lo, mu(TWO, G0(pDamping, eA, eB)));
  SF2(gk, K_FX, lo, ad(ad(vx, mu(qw, tx)), sb(mu(qy, tz), mu(qz, ty))));
  SF2(gk, K_FX + 1, lo, ad(ad(vy, mu(qw, ty)), sb(mu(qz, tx), mu(qx, tz))));
  SF2(gk, K_FX + 2, lo, ad(ad(vz, mu(qw, tz)), sb(mu(qx, ty), mu(qy, tx))));
  SF2(gk, K_GRAV, lo, mu(G0(pGravity, eA, eB), us));
  SF2(gk, K_ALPHA, lo, G2(pStepCache, cA, cB)); SF2(gk, K_COSH, lo, G3(pStepCache, cA, cB)); SF2(gk, K_SINH, lo, G4(pStepCache, cA, cB));
  SF2(gk, K_FLOORON, lo, f64x2.replace_lane(sp(<f64>load<u8>(pFloorEnabled + <usize>eA)), 1, <f64>load<u8>(pFloorEnabled + <usize>eB)));
  const ax = G0(pAS, aA, aB), ay = G1(pAS, aA, aB), az = G2(pAS, aA, aB);
  SF2(gk, K_FLOOR, lo, sb(ad(G0(pFloorY, eA, eB), mu(G0(pFloorClearance, eA, eB), us)), ay));
  SF2(gk, K_DX, lo, sb(ax, G0(pOrigin, e3A, e3B))); SF2(gk, K_DX + 1, lo, sb(ay, G1(pOrigin, e3A, e3B))); SF2(gk, K_DX + 2, lo, sb(az, G2(pOrigin, e3A, e3B)));
  P0(pOrigin, e3A, e3B, ax); P1(pOrigin, e3A, e3B, ay); P2(pOrigin, e3A, e3B, az);
  SF2(gk, K_QX, lo, qx); SF2(gk, K_QX + 1, lo, qy); SF2(gk, K_QX + 2, lo, qz); SF2(gk, K_QX + 3, lo, qw);
  SF2(gk, K_S, lo, G7(pAS, aA, aB));
}

/** Lane j of a lane that steps nothing: benign constants (no coupling, floor off, identity anchor). */
function padConsts(gk: usize, j: i32): void {
  const lj = <usize>(j << 2);
  for (let c = 0; c < 20; c++) SF(gk, c, lj, 0);
  SF(gk, K_QX + 3, lj, 1); SF(gk, K_S, lj, 1); SF(gk, K_COSH, lj, -1);
}

// ---- 7. floorContact (one lane, in f64)
/**
 * floorContact: a tip predicted below the floor F = g0 + ρ goes onto the floor circle — the
 * point at distance ℓ from the head at height F (u = (F − h_y)/ℓ clamped to [−1, 1], direction
 * √(1−u²)·t + u·e_y with t the tip's horizontal direction, else the rest direction's, else the
 * hips' backward horizontal) —, keeping the rope length; the velocity loses its radial part and
 * any downward part and is damped by e^(−γΔt); the link is marked in contact. Contact has
 * precedence over the bend limit. Lane lj of link number k (the step's frame, head, rest and
 * tip directions and length in the group block's scratch, relative to the origin): position and
 * velocity into the components, the new bend into the step values dl, the new direction in the
 * parent frame into the block's DP scratch.
 */
function floorContact(gk: usize, dl: usize, lj: usize, k: i32, eid: i32): void {
  const hx = LF(gk, K_H, lj), hy = LF(gk, K_H + 1, lj), hz = LF(gk, K_H + 2, lj);
  const rx = LF(gk, K_R, lj), rz = LF(gk, K_R + 1, lj), dx0 = LF(gk, K_D, lj), dz0 = LF(gk, K_D + 1, lj);
  const len = LF(gk, K_LEN, lj), F = LF(gk, K_FLOOR, lj);
  const o = eid * 16;
  chainConstants(eid); // (this step's: the anchor and step cache are the step's throughout)
  const bkx = L(pChainK, o + 12), bkz = L(pChainK, o + 13), damp = L(pChainK, o + 14);
  // floorDirection
  let u = (F - hy) / len;
  if (u > 1) u = 1; else if (u < -1) u = -1;
  let tx = dx0, tz = dz0;
  // (thresholds for float32 inputs: floorDirection's 1e-9 and qSwingUnit's −0.999999999 sit
  // below their round-off, where a vertical tip or an exactly opposite floor direction would
  // pick a direction or axis from round-off; as the step's own anti-parallel threshold)
  let tl = Math.sqrt(tx * tx + tz * tz);
  if (tl < 1e-6) { tx = rx; tz = rz; tl = Math.sqrt(tx * tx + tz * tz); }
  if (tl < 1e-6) {
    tx = bkx; tz = bkz; tl = Math.sqrt(tx * tx + tz * tz);
    if (!(tl > 0)) tl = 1; // (JS `|| 1`: 0 or NaN; a square root is never negative)
  }
  const c = Math.sqrt(1 - u * u);
  const dx = (c * tx) / tl, dy = u, dz = (c * tz) / tl;
  SE(pPos, k, 3, 0, hx + len * dx); SE(pPos, k, 3, 1, hy + len * dy); SE(pPos, k, 3, 2, hz + len * dz);
  let vx = LE(pVel, k, 3, 0), vy = LE(pVel, k, 3, 1), vz = LE(pVel, k, 3, 2);
  const vr = vx * dx + vy * dy + vz * dz;
  vx -= vr * dx; vy -= vr * dy; vz -= vr * dz;
  if (vy < 0) vy = 0;
  SE(pVel, k, 3, 0, vx * damp); SE(pVel, k, 3, 1, vy * damp); SE(pVel, k, 3, 2, vz * damp);
  store<u8>(pContact + <usize>k, 1);
  laneAim(gk, dl, lj, k, dx, dy, dz);
}

/**
 * Lane lj of link number k aimed along the unit direction d (world, relative axes) after a
 * contact moved its tip: d in the parent frame into the block's DP scratch, the new bend
 * swing(restDirHs[k], A_k · d_parent) into the step values dl.
 */
function laneAim(gk: usize, dl: usize, lj: usize, k: i32, dx: f64, dy: f64, dz: f64): void {
  const m00 = LF(gk, K_M, lj), m01 = LF(gk, K_M + 1, lj), m02 = LF(gk, K_M + 2, lj);
  const m10 = LF(gk, K_M + 3, lj), m11 = LF(gk, K_M + 4, lj), m12 = LF(gk, K_M + 5, lj);
  const m20 = LF(gk, K_M + 6, lj), m21 = LF(gk, K_M + 7, lj), m22 = LF(gk, K_M + 8, lj);
  const ux = m00 * dx + m10 * dy + m20 * dz;
  const uy = m01 * dx + m11 * dy + m21 * dz;
  const uz = m02 * dx + m12 * dy + m22 * dz;
  SF(gk, K_DP, lj, ux); SF(gk, K_DP + 1, lj, uy); SF(gk, K_DP + 2, lj, uz);
  const bx = LE(pToHipsM, k, 9, 0) * ux + LE(pToHipsM, k, 9, 1) * uy + LE(pToHipsM, k, 9, 2) * uz;
  const by = LE(pToHipsM, k, 9, 3) * ux + LE(pToHipsM, k, 9, 4) * uy + LE(pToHipsM, k, 9, 5) * uz;
  const bz = LE(pToHipsM, k, 9, 6) * ux + LE(pToHipsM, k, 9, 7) * uy + LE(pToHipsM, k, 9, 8) * uz;
  // the new bend: swing(restDirHs[k], b)
  const ax = LE(pRestDirHs, k, 3, 0), ay = LE(pRestDirHs, k, 3, 1), az = LE(pRestDirHs, k, 3, 2);
  const d = ax * bx + ay * by + az * bz;
  if (d < -0.999999) {
    let px: f64 = 0, py = -az, pz = ay;
    if (py * py + pz * pz < 1e-12) { px = az; py = 0; pz = -ax; }
    const lp = Math.sqrt(px * px + py * py + pz * pz);
    SF(dl, BN, lj, px / lp); SF(dl, BN + 1, lj, py / lp); SF(dl, BN + 2, lj, pz / lp); SF(dl, BN + 3, lj, 0);
    return;
  }
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  const w = 1 + d;
  const l = Math.sqrt(cx * cx + cy * cy + cz * cz + w * w);
  SF(dl, BN, lj, cx / l); SF(dl, BN + 1, lj, cy / l); SF(dl, BN + 2, lj, cz / l); SF(dl, BN + 3, lj, w / l);
}

// ---- 6b. tailCollide (one lane, in f64)
let pCollCount: usize = 0, pCollList: usize = 0, pCollContacts: usize = 0;
const SHAPE_STRIDE: i32 = 8; // = SHAPE_STRIDE in core/components/collider.ts

/** Byte offsets of the collider arrays (setup, after every re-layout; with {@link setPointers}). */
export function setColliderPointers(count: usize, list: usize, contacts: usize): void {
  pCollCount = count; pCollList = list; pCollContacts = contacts;
}

/**
 * Whether collider c of chain e's list is placed this frame ({@link placeColliders} listed it:
 * its entity is still a collider) and still its character's (not an id the game reused).
 */
@inline function colliderLive(c: i32, e: i32): bool {
  return c >= 0 && load<i32>(pCStamp + (<usize>c << 2)) == placeFrame
    && load<i32>(pCChar + (<usize>c << 2)) == load<i32>(pChar + (<usize>e << 2));
}

/**
 * 6b. tailCollide — the lanes of mask `lanes` (link k0 + j of group g; head h and length ℓ in
 * the group block, tip just stored; relative to this step's anchor) kept out of their chains'
 * colliders (the block's shapes: spheres and capsules, reflected for a mirrored chain), four
 * lanes at once. For each collider the link segment h → tip meets by less than its reach r
 * (radius × 1.001 + lead), with c the axis point nearest the segment and D = |c − h|: the link
 * turns about its head, in the plane of its direction and c − h, just far enough that it clears
 * the sphere (c, r) — to the tangent when the link reaches it (ℓ² ≥ D² − r²: sin θ = r/D),
 * else with its tip on the sphere (cos θ = (ℓ² + D² − r²)/(2ℓD)). The rope length is kept (a
 * turn, never a stretch); three passes over the colliders settle a link against several. A
 * collider that holds the head itself (the tail root inside the hips) is left to the links
 * beyond it. On contact the velocity loses its part into the shape and its radial part (the
 * correction is never turned into velocity) and is damped by e^(−γΔt) (`contactDamping`); the
 * direction goes to the block's D and DP scratch and the new bend into the step values dl.
 */
function tailCollide(gk: usize, dl: usize, g: i32, o3: usize, o9: usize, lanes: v128): void {
  const ZERO = f4(0), ONE = f4(1), TINY = f4(1e-30);
  const hx = v128.load(gk, K_H * 16), hy = v128.load(gk, K_H * 16 + 16), hz = v128.load(gk, K_H * 16 + 32);
  const len = v128.load(gk, K_LEN * 16);
  const pp = pPos + o3;
  let ux = sb4(v128.load(pp), hx), uy = sb4(v128.load(pp, 16), hy), uz = sb4(v128.load(pp, 32), hz);
  const ul = sq4(dot34(ux, uy, uz, ux, uy, uz));
  const act = v128.and(lanes, v128.and(gt4(ul, mu4(f4(1e-12), len)), lt4(ul, f4(Infinity))));
  if (!v128.any_true(act)) return;
  const iul = dv4(ONE, ul);
  ux = mu4(ux, iul); uy = mu4(uy, iul); uz = mu4(uz, iul);
  const len2 = mu4(len, len), ilen2 = dv4(f4(0.5), len);
  const nc = load<i32>(gk, K_NC * 16);
  let hit = i32x4.splat(0), nx = ZERO, ny = ZERO, nz = ZERO;
  for (let pass = 0; pass < 3; pass++) {
    let moved = i32x4.splat(0);
    for (let m = 0; m < nc; m++) {
      const bk = gk + <usize>((K_CS + m * 8) << 4);
      const R = v128.load(bk, 96), r0 = v128.load(bk, 112);
      const ax = v128.load(bk), ay = v128.load(bk, 16), az = v128.load(bk, 32);
      const bx = v128.load(bk, 48), by = v128.load(bk, 64), bz = v128.load(bk, 80);
      // closest points of h + s·ℓu and a + t·(b − a), s, t in [0, 1] (as nearColliders)
      const d1x = mu4(len, ux), d1y = mu4(len, uy), d1z = mu4(len, uz);
      const rx = sb4(hx, ax), ry = sb4(hy, ay), rz = sb4(hz, az);
      const e = dot34(bx, by, bz, bx, by, bz), f = dot34(bx, by, bz, rx, ry, rz);
      const c = dot34(d1x, d1y, d1z, rx, ry, rz), b = dot34(d1x, d1y, d1z, bx, by, bz);
      const ae = mu4(len2, e), den = sb4(ae, mu4(b, b));
      const s0 = sel(gt4(den, mu4(f4(1e-6), ae)), f32x4.pmin(ONE, f32x4.pmax(ZERO, dv4(sb4(mu4(b, f), mu4(c, e)), f32x4.pmax(den, TINY)))), ZERO);
      const sphere = f32x4.le(e, mu4(f4(1e-12), len2));
      const ie = dv4(ONE, f32x4.pmax(e, TINY));
      const t0 = mu4(ad4(mu4(b, s0), f), ie);
      const inside = v128.andnot(v128.and(f32x4.ge(t0, ZERO), f32x4.le(t0, ONE)), sphere);
      const t = sel(sphere, ZERO, f32x4.pmin(ONE, f32x4.pmax(ZERO, t0)));
      const sv = sel(inside, s0, f32x4.pmin(ONE, f32x4.pmax(ZERO, dv4(sb4(mu4(b, t), c), len2))));
      const qx = sb4(ad4(rx, mu4(sv, d1x)), mu4(t, bx)), qy = sb4(ad4(ry, mu4(sv, d1y)), mu4(t, by)), qz = sb4(ad4(rz, mu4(sv, d1z)), mu4(t, bz));
      const touch = v128.and(v128.and(act, gt4(R, ZERO)), lt4(dot34(qx, qy, qz, qx, qy, qz), mu4(R, R)));
      if (!v128.any_true(touch)) continue;
      // the head inside the shape: left to the links beyond
      const th = sel(sphere, ZERO, f32x4.pmin(ONE, f32x4.pmax(ZERO, mu4(f, ie))));
      const gx = sb4(mu4(th, bx), rx), gy = sb4(mu4(th, by), ry), gz = sb4(mu4(th, bz), rz);
      const dh2 = dot34(gx, gy, gz, gx, gy, gz);
      let wx = sb4(mu4(t, bx), rx), wy = sb4(mu4(t, by), ry), wz = sb4(mu4(t, bz), rz);
      const D = sq4(dot34(wx, wy, wz, wx, wy, wz)), iD = dv4(ONE, f32x4.pmax(D, TINY));
      wx = mu4(wx, iD); wy = mu4(wy, iD); wz = mu4(wz, iD);
      const r = sel(f32x4.ge(mu4(R, R), dh2), mu4(sq4(dh2), f4(0.999999)), R);
      // the least turn away from c that clears the sphere (c, r)
      const tang = f32x4.ge(len2, sb4(mu4(D, D), mu4(r, r)));
      const smT = mu4(r, iD), cmI = mu4(mu4(sb4(ad4(len2, mu4(D, D)), mu4(r, r)), iD), ilen2);
      const cm = sel(tang, sq4(f32x4.pmax(ZERO, sb4(ONE, mu4(smT, smT)))), cmI);
      const sm = sel(tang, smT, sq4(f32x4.pmax(ZERO, sb4(ONE, mu4(cmI, cmI)))));
      const cu = dot34(ux, uy, uz, wx, wy, wz);
      const turn = v128.and(touch, v128.and(gt4(dh2, mu4(r0, r0)), gt4(cu, cm)));
      if (!v128.any_true(turn)) continue;
      let px = sb4(ux, mu4(cu, wx)), py = sb4(uy, mu4(cu, wy)), pz = sb4(uz, mu4(cu, wz));
      let pl = sq4(dot34(px, py, pz, px, py, pz));
      const aimed = lt4(pl, f4(1e-6)); // (aimed at c: turn away from the axis sideways, else any way)
      if (v128.any_true(aimed)) {
        let qx2 = sb4(mu4(wy, bz), mu4(wz, by)), qy2 = sb4(mu4(wz, bx), mu4(wx, bz)), qz2 = sb4(mu4(wx, by), mu4(wy, bx));
        let ql = sq4(dot34(qx2, qy2, qz2, qx2, qy2, qz2));
        const flat = lt4(ql, mu4(f4(1e-6), sq4(f32x4.pmax(e, TINY))));
        qx2 = sel(flat, ng4(wz), qx2); qy2 = sel(flat, ZERO, qy2); qz2 = sel(flat, wx, qz2);
        ql = sel(flat, sq4(ad4(mu4(wz, wz), mu4(wx, wx))), ql);
        const none = lt4(ql, f4(1e-6));
        qx2 = sel(none, ONE, qx2); qy2 = sel(none, ZERO, qy2); qz2 = sel(none, ZERO, qz2); ql = sel(none, ONE, ql);
        px = sel(aimed, qx2, px); py = sel(aimed, qy2, py); pz = sel(aimed, qz2, pz); pl = sel(aimed, ql, pl);
      }
      const ipl = dv4(ONE, pl);
      px = mu4(px, ipl); py = mu4(py, ipl); pz = mu4(pz, ipl);
      ux = sel(turn, ad4(mu4(cm, wx), mu4(sm, px)), ux); uy = sel(turn, ad4(mu4(cm, wy), mu4(sm, py)), uy); uz = sel(turn, ad4(mu4(cm, wz), mu4(sm, pz)), uz);
      nx = sel(turn, sb4(mu4(cm, px), mu4(sm, wx)), nx); ny = sel(turn, sb4(mu4(cm, py), mu4(sm, wy)), ny); nz = sel(turn, sb4(mu4(cm, pz), mu4(sm, wz)), nz);
      moved = v128.or(moved, turn);
    }
    if (!v128.any_true(moved)) break;
    hit = v128.or(hit, moved);
  }
  if (!v128.any_true(hit)) return;
  collideFinish(gk, dl, g, o3, o9, hit, hx, hy, hz, len, ux, uy, uz, nx, ny, nz);
}

/** Chain eid's contact counted; returns its contact damping factor e^(−γΔt) (1 for no chain). */
function contactOf(eid: i32): f32 {
  if (eid < 0) return 1;
  store<i32>(pCollContacts + (<usize>eid << 2), load<i32>(pCollContacts + (<usize>eid << 2)) + 1);
  return <f32>L(pStepCache, eid * 5 + 1);
}

/**
 * tailCollide's outcome in the lanes of `hit`: the tip h + ℓu, the velocity (its part into the
 * shape along −n and its radial part removed, then damped), the chain's contact count, the
 * block's D and DP scratch and the new bend swing(restDirHs, A · u_parent) in the step values.
 */
function collideFinish(
  gk: usize, dl: usize, g: i32, o3: usize, o9: usize, hit: v128,
  hx: v128, hy: v128, hz: v128, len: v128, ux: v128, uy: v128, uz: v128, nx: v128, ny: v128, nz: v128,
): void {
  const ZERO = f4(0), ONE = f4(1);
  const pp = pPos + o3, pv = pVel + o3;
  v128.store(pp, keep(hit, ad4(hx, mu4(len, ux)), pp)); v128.store(pp + 16, keep(hit, ad4(hy, mu4(len, uy)), pp + 16)); v128.store(pp + 32, keep(hit, ad4(hz, mu4(len, uz)), pp + 32));
  let vx = v128.load(pv), vy = v128.load(pv, 16), vz = v128.load(pv, 32);
  const vn = f32x4.pmin(ZERO, dot34(vx, vy, vz, nx, ny, nz)); // (only a velocity into the shape)
  vx = sb4(vx, mu4(vn, nx)); vy = sb4(vy, mu4(vn, ny)); vz = sb4(vz, mu4(vn, nz));
  const vr = dot34(vx, vy, vz, ux, uy, uz);
  vx = sb4(vx, mu4(vr, ux)); vy = sb4(vy, mu4(vr, uy)); vz = sb4(vz, mu4(vr, uz));
  const d0 = i32x4.extract_lane(hit, 0) != 0 ? contactOf(laneEnt(g, 0)) : <f32>1, d1 = i32x4.extract_lane(hit, 1) != 0 ? contactOf(laneEnt(g, 1)) : <f32>1;
  const d2 = i32x4.extract_lane(hit, 2) != 0 ? contactOf(laneEnt(g, 2)) : <f32>1, d3 = i32x4.extract_lane(hit, 3) != 0 ? contactOf(laneEnt(g, 3)) : <f32>1;
  const damp = f32x4.replace_lane(f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(d0), 1, d1), 2, d2), 3, d3);
  v128.store(pv, keep(hit, mu4(vx, damp), pv)); v128.store(pv + 16, keep(hit, mu4(vy, damp), pv + 16)); v128.store(pv + 32, keep(hit, mu4(vz, damp), pv + 32));
  v128.store(gk, keep(hit, ux, gk + K_D * 16), K_D * 16); v128.store(gk, keep(hit, uz, gk + K_D * 16 + 16), K_D * 16 + 16);
  // the direction in the parent frame (Mᵀu) and the new bend (laneAim's maths, four lanes)
  const m00 = v128.load(gk, K_M * 16), m01 = v128.load(gk, K_M * 16 + 16), m02 = v128.load(gk, K_M * 16 + 32);
  const m10 = v128.load(gk, K_M * 16 + 48), m11 = v128.load(gk, K_M * 16 + 64), m12 = v128.load(gk, K_M * 16 + 80);
  const m20 = v128.load(gk, K_M * 16 + 96), m21 = v128.load(gk, K_M * 16 + 112), m22 = v128.load(gk, K_M * 16 + 128);
  const dx = dot34(m00, m10, m20, ux, uy, uz), dy = dot34(m01, m11, m21, ux, uy, uz), dz = dot34(m02, m12, m22, ux, uy, uz);
  v128.store(gk, keep(hit, dx, gk + K_DP * 16), K_DP * 16); v128.store(gk, keep(hit, dy, gk + K_DP * 16 + 16), K_DP * 16 + 16); v128.store(gk, keep(hit, dz, gk + K_DP * 16 + 32), K_DP * 16 + 32);
  const A = pToHipsM + o9;
  const bx = dot34(v128.load(A), v128.load(A, 16), v128.load(A, 32), dx, dy, dz);
  const by = dot34(v128.load(A, 48), v128.load(A, 64), v128.load(A, 80), dx, dy, dz);
  const bz = dot34(v128.load(A, 96), v128.load(A, 112), v128.load(A, 128), dx, dy, dz);
  const ax = v128.load(pRestDirHs + o3), ay = v128.load(pRestDirHs + o3, 16), az = v128.load(pRestDirHs + o3, 32);
  const d = dot34(ax, ay, az, bx, by, bz);
  let cx = sb4(mu4(ay, bz), mu4(az, by)), cy = sb4(mu4(az, bx), mu4(ax, bz)), cz = sb4(mu4(ax, by), mu4(ay, bx)), cw = ad4(ONE, d);
  const anti = lt4(d, f4(-0.999999));
  if (v128.any_true(anti)) {
    let qa = ZERO, qb = ng4(az), qc = ay;
    const deg = lt4(ad4(mu4(qb, qb), mu4(qc, qc)), f4(1e-12));
    qa = sel(deg, az, qa); qb = sel(deg, ZERO, qb); qc = sel(deg, ng4(ax), qc);
    cx = sel(anti, qa, cx); cy = sel(anti, qb, cy); cz = sel(anti, qc, cz); cw = sel(anti, ZERO, cw);
  }
  const il = dv4(ONE, sq4(ad4(dot34(cx, cy, cz, cx, cy, cz), mu4(cw, cw))));
  v128.store(dl, keep(hit, mu4(cx, il), dl + BN * 16), BN * 16); v128.store(dl, keep(hit, mu4(cy, il), dl + BN * 16 + 16), BN * 16 + 16);
  v128.store(dl, keep(hit, mu4(cz, il), dl + BN * 16 + 32), BN * 16 + 32); v128.store(dl, keep(hit, mu4(cw, il), dl + BN * 16 + 48), BN * 16 + 48);
}

/** Benign lane constants' partner: whether chain e may step in lane j of group g this call (links n). */
@inline function laneLive(e: i32, g: i32, j: i32, n: i32): bool {
  return e >= 0 && load<u8>(pSteps + <usize>e) != 0 && load<i32>(pRow + (<usize>e << 2)) == g * 4 + j && linksOf(e) == n;
}

/**
 * Lane j's collider shapes for this step into the group block (K_CS on; chain e, its origin
 * already moved to this step's anchor; `on`: the lane steps and has colliders), float32,
 * relative to the origin, reflected for a mirrored chain: each shape interpolated between the
 * frame's previous and current world shapes at the step's time params[2] (as the tail clock
 * interpolates the anchors), its lead × params[3] (the step's share of the frame); radius −1
 * where either frame shape is inert. Slots up to `upTo` it does not fill get reach −1.
 * Returns its collider count.
 */
function laneShapes(gk: usize, j: i32, e: i32, on: bool, upTo: i32): i32 {
  const lj = <usize>(j << 2);
  let n = 0;
  if (on) {
    n = <i32>load<u8>(pCollCount + <usize>e);
    const ox = L(pOrigin, e * 3), oy = L(pOrigin, e * 3 + 1), oz = L(pOrigin, e * 3 + 2);
    const mx: f64 = load<u8>(pMirrored + <usize>e) == 1 ? -1 : 1;
    const t = load<f64>(pParams + 16), u = 1 - t, perStep = load<f64>(pParams + 24);
    const P = pShapePrev, C = pShapeCur;
    for (let m = 0; m < n; m++) {
      const c = load<i32>(pCollList + (<usize>(e * MAX_CHAIN_COLLIDERS + m) << 2)), f = K_CS + m * 8;
      const o = c * SHAPE_STRIDE;
      const rp = colliderLive(c, e) ? L(P, o + 6) : -1, rc = L(C, o + 6);
      if (!(rp > 0 && rc > 0)) { SF(gk, f + 6, lj, -1); continue; }
      const r0 = u * rp + t * rc;
      const ax = mx * (u * L(P, o) + t * L(C, o)) - ox, ay = u * L(P, o + 1) + t * L(C, o + 1) - oy, az = u * L(P, o + 2) + t * L(C, o + 2) - oz;
      SF(gk, f, lj, ax); SF(gk, f + 1, lj, ay); SF(gk, f + 2, lj, az);
      SF(gk, f + 3, lj, mx * (u * L(P, o + 3) + t * L(C, o + 3)) - ox - ax);
      SF(gk, f + 4, lj, u * L(P, o + 4) + t * L(C, o + 4) - oy - ay);
      SF(gk, f + 5, lj, u * L(P, o + 5) + t * L(C, o + 5) - oz - az);
      SF(gk, f + 6, lj, r0 * 1.001 + L(C, o + 7) * perStep); SF(gk, f + 7, lj, r0);
    }
  }
  for (let m = n; m < upTo; m++) SF(gk, K_CS + m * 8 + 6, lj, -1);
  return n;
}

/**
 * Lanes j, j + 1's collider shapes ({@link laneShapes}): both at once, a chain per f64x2 lane,
 * when both step with colliders and have as many; else each alone.
 */
function shapePair(gk: usize, j: i32, eA: i32, eB: i32, onA: bool, onB: bool, upTo: i32): void {
  const n = onA ? <i32>load<u8>(pCollCount + <usize>eA) : -1;
  if (!(onA && onB && n == <i32>load<u8>(pCollCount + <usize>eB) && n <= upTo)) { laneShapes(gk, j, eA, onA, upTo); laneShapes(gk, j + 1, eB, onB, upTo); return; }
  const lo = <usize>(j << 2);
  const e3A = eA * 3, e3B = eB * 3;
  const ox = G0(pOrigin, e3A, e3B), oy = G1(pOrigin, e3A, e3B), oz = G2(pOrigin, e3A, e3B);
  const mx = f64x2.replace_lane(sp(load<u8>(pMirrored + <usize>eA) == 1 ? -1.0 : 1.0), 1, load<u8>(pMirrored + <usize>eB) == 1 ? -1.0 : 1.0);
  const t = load<f64>(pParams + 16), T = sp(t), U = sp(1 - t), PS = sp(load<f64>(pParams + 24));
  const P = pShapePrev, C = pShapeCur;
  for (let m = 0; m < n; m++) {
    const cA = load<i32>(pCollList + (<usize>(eA * MAX_CHAIN_COLLIDERS + m) << 2)), cB = load<i32>(pCollList + (<usize>(eB * MAX_CHAIN_COLLIDERS + m) << 2));
    const okA = colliderLive(cA, eA), okB = colliderLive(cB, eB), f = K_CS + m * 8;
    const oA = (okA ? cA : 0) * SHAPE_STRIDE, oB = (okB ? cB : 0) * SHAPE_STRIDE; // (a collider not live reads collider 0's slots, then is marked inert)
    const rp = G6(P, oA, oB), rc = G6(C, oA, oB);
    const live = v128.and(v128.and(gt(rp, sp(0)), gt(rc, sp(0))), i64x2.replace_lane(i64x2.splat(okA ? -1 : 0), 1, okB ? -1 : 0));
    const r0 = ad(mu(U, rp), mu(T, rc));
    const ax = sb(mu(mx, ad(mu(U, G0(P, oA, oB)), mu(T, G0(C, oA, oB)))), ox);
    const ay = sb(ad(mu(U, G1(P, oA, oB)), mu(T, G1(C, oA, oB))), oy);
    const az = sb(ad(mu(U, G2(P, oA, oB)), mu(T, G2(C, oA, oB))), oz);
    SF2(gk, f, lo, ax); SF2(gk, f + 1, lo, ay); SF2(gk, f + 2, lo, az);
    SF2(gk, f + 3, lo, sb(sb(mu(mx, ad(mu(U, G3(P, oA, oB)), mu(T, G3(C, oA, oB)))), ox), ax));
    SF2(gk, f + 4, lo, sb(sb(ad(mu(U, G4(P, oA, oB)), mu(T, G4(C, oA, oB))), oy), ay));
    SF2(gk, f + 5, lo, sb(sb(ad(mu(U, G5(P, oA, oB)), mu(T, G5(C, oA, oB))), oz), az));
    SF2(gk, f + 6, lo, sel(live, ad(mu(r0, sp(1.001)), mu(G7(C, oA, oB), PS)), sp(-1))); SF2(gk, f + 7, lo, r0);
  }
  for (let m = n; m < upTo; m++) SF2(gk, K_CS + m * 8 + 6, lo, sp(-1));
}

/**
 * Set group g up for a step: the lane constants, the lanes' step mask and the link loop's
 * starting state. Returns whether any lane steps. Lanes without a chain or a pending step
 * compute with benign constants and store nothing.
 */
function stepGroupBegin(g: i32, gk: usize): bool {
  const e0 = load<i32>(pRowEnt + (<usize>(g * 4) << 2)), e1 = load<i32>(pRowEnt + (<usize>(g * 4 + 1) << 2));
  const e2 = load<i32>(pRowEnt + (<usize>(g * 4 + 2) << 2)), e3 = load<i32>(pRowEnt + (<usize>(g * 4 + 3) << 2));
  const n = e0 >= 0 ? linksOf(e0) : e1 >= 0 ? linksOf(e1) : e2 >= 0 ? linksOf(e2) : e3 >= 0 ? linksOf(e3) : 0;
  if (n == 0) return false;
  const l0 = laneLive(e0, g, 0, n), l1 = laneLive(e1, g, 1, n), l2 = laneLive(e2, g, 2, n), l3 = laneLive(e3, g, 3, n);
  if (!(l0 || l1 || l2 || l3)) return false;
  const all = l0 && l1 && l2 && l3;
  if (all) { laneConsts2(gk, 0, e0, e1, n); laneConsts2(gk, 8, e2, e3, n); } else { // (the common case: two lanes at a time)
    if (l0) laneConsts(gk, 0, e0); else padConsts(gk, 0);
    if (l1) laneConsts(gk, 1, e1); else padConsts(gk, 1);
    if (l2) laneConsts(gk, 2, e2); else padConsts(gk, 2);
    if (l3) laneConsts(gk, 3, e3); else padConsts(gk, 3);
  }
  v128.store(gk, i32x4.replace_lane(i32x4.replace_lane(i32x4.replace_lane(i32x4.splat(l0 ? -1 : 0), 1, l1 ? -1 : 0), 2, l2 ? -1 : 0), 3, l3 ? -1 : 0), K_LIVE * 16);
  const c0 = l0 && load<u8>(pCollCount + <usize>e0) != 0, c1 = l1 && load<u8>(pCollCount + <usize>e1) != 0;
  const c2 = l2 && load<u8>(pCollCount + <usize>e2) != 0, c3 = l3 && load<u8>(pCollCount + <usize>e3) != 0;
  v128.store(gk, i32x4.replace_lane(i32x4.replace_lane(i32x4.replace_lane(i32x4.splat(c0 ? -1 : 0), 1, c1 ? -1 : 0), 2, c2 ? -1 : 0), 3, c3 ? -1 : 0), K_COLL * 16);
  if (c0 || c1 || c2 || c3) {
    let nc = c0 ? <i32>load<u8>(pCollCount + <usize>e0) : 0;
    if (c1 && <i32>load<u8>(pCollCount + <usize>e1) > nc) nc = <i32>load<u8>(pCollCount + <usize>e1);
    if (c2 && <i32>load<u8>(pCollCount + <usize>e2) > nc) nc = <i32>load<u8>(pCollCount + <usize>e2);
    if (c3 && <i32>load<u8>(pCollCount + <usize>e3) > nc) nc = <i32>load<u8>(pCollCount + <usize>e3);
    if (nc > MAX_CHAIN_COLLIDERS) nc = MAX_CHAIN_COLLIDERS;
    shapePair(gk, 0, e0, e1, c0, c1, nc); shapePair(gk, 2, e2, e3, c2, c3, nc);
    store<i32>(gk, nc, K_NC * 16);
  }
  store<i32>(gk, n, K_N * 16);
  // the starting frame (the anchor's), head and scale
  for (let c = 0; c < 4; c++) v128.store(gk + <usize>(c << 4), v128.load(gk + <usize>(c << 4), K_QX * 16), K_SQ * 16);
  const z = f32x4.splat(0);
  v128.store(gk, z, K_SP * 16); v128.store(gk, z, K_SP * 16 + 16); v128.store(gk, z, K_SP * 16 + 32);
  v128.store(gk, v128.load(gk, K_S * 16), K_SPS * 16);
  return true;
}

/** The chain entity in lane j of group g (−1: none). */
@inline function laneEnt(g: i32, j: i32): i32 { return load<i32>(pRowEnt + (<usize>(g * 4 + j) << 2)); }

/** `a` where the lanes of mask m are set, else the v128 at address p (a masked store's value). */
@inline function keep(m: v128, a: v128, p: usize): v128 { return v128.bitselect(a, v128.load(p), m); }

/**
 * Finish group g's step (every link done): the bend snapshots (bendOld ← this step's bends),
 * and the shown rotations (localPrev ← localCur ← this step's), in the stepping lanes.
 */
function stepGroupEnd(g: i32, gk: usize, dg: usize): void {
  const n = load<i32>(gk, K_N * 16);
  const m = v128.load(gk, K_LIVE * 16);
  const allLive = i32x4.all_true(m);
  for (let i = 0; i < n; i++) {
    const o4 = <usize>((g * LINK_STRIDE + i) * 64), dl = dg + <usize>(i * DYNB);
    for (let c = 0; c < 4; c++) {
      const oc = o4 + <usize>(c << 4);
      const bo = pBendOld + oc, lc = pLocalCur + oc, lp = pLocalPrev + oc;
      const bn = v128.load(dl + <usize>((BN + c) << 4)), nc = v128.load(dl + <usize>((LC + c) << 4)), cur = v128.load(lc);
      if (allLive) {
        v128.store(bo, bn); v128.store(lp, cur); v128.store(lc, nc);
      } else {
        v128.store(bo, keep(m, bn, bo)); v128.store(lp, keep(m, cur, lp)); v128.store(lc, v128.bitselect(nc, cur, m));
      }
    }
  }
}

/**
 * One step by h seconds of the groups [g0, g1) (at most {@link CHUNK}): set up, then link by
 * link across the groups ({@link stepLink}), then finished.
 */
function stepChunk(g0: i32, g1: i32, h: f64): void {
  const sc = pScratch, sd = sc + <usize>SCRATCH_GK;
  let live = 0, maxN = 0;
  for (let g = g0; g < g1; g++) {
    const gk = sc + <usize>((g - g0) * GKB);
    if (!stepGroupBegin(g, gk)) continue;
    live |= 1 << (g - g0);
    const n = load<i32>(gk, K_N * 16);
    if (n > maxN) maxN = n;
  }
  if (live == 0) return;
  const hf = <f32>h;
  for (let i = 0; i < maxN; i++) {
    for (let g = g0; g < g1; g++) {
      const gk = sc + <usize>((g - g0) * GKB);
      if ((live >> (g - g0)) & 1 && load<i32>(gk, K_N * 16) > i) stepLink(g, i, hf, gk, sd + <usize>((g - g0) * GDYNB));
    }
  }
  for (let g = g0; g < g1; g++) if ((live >> (g - g0)) & 1) stepGroupEnd(g, sc + <usize>((g - g0) * GKB), sd + <usize>((g - g0) * GDYNB));
}

// The link state the stages hand on (v128 globals; the stages are inlined into stepLink).
let sVx: v128 = f32x4.splat(0), sVy: v128 = f32x4.splat(0), sVz: v128 = f32x4.splat(0);
let sDx: v128 = f32x4.splat(0), sDy: v128 = f32x4.splat(0), sDz: v128 = f32x4.splat(0);
let sPx: v128 = f32x4.splat(0), sPy: v128 = f32x4.splat(0), sPz: v128 = f32x4.splat(0);

/**
 * 5. tailSpring — link i's particle toward its rest target T = h + ℓ r (h the head, r the rest
 * direction from the parent's frame this step): p̈ = ω²(T − p) − 2ζω ṗ + g, ω = 2πf with f
 * from the root's frequency to tipRatio × it at the tip, semi-implicit Euler; the rope puts p
 * back on the sphere of radius ℓ around h, dropping only the radial velocity (a correction is
 * never fed back as velocity); the forward plane through the tail root O keeps
 * (p − O)·F ≤ max(0, (T − O)·F), so the tail never swings between the legs. Reads the
 * particle (positions relative to the chain's origin before this step's move, `K_DX`) and the
 * group block's constants; leaves the velocity and the unit direction h → p in
 * sVx…sVz, sDx…sDz.
 */
@inline function tailSpring(i: i32, h: f32, gk: usize, o3: usize, hx: v128, hy: v128, hz: v128, rx: v128, ry: v128, rz: v128, len: v128, ox: v128, oy: v128, oz: v128): void {
  const H = f4(h), ONE = f4(1), ZERO = f4(0), EPS12 = f4(1e-12);
  const f0 = v128.load(gk, K_F0 * 16), df = v128.load(gk, K_DF * 16), zeta2 = v128.load(gk, K_Z2 * 16);
  const fx = v128.load(gk, K_FX * 16), fy = v128.load(gk, K_FX * 16 + 16), fz = v128.load(gk, K_FX * 16 + 32);
  const grav = v128.load(gk, K_GRAV * 16);
  const ax0 = v128.load(gk, K_DX * 16), ay0 = v128.load(gk, K_DX * 16 + 16), az0 = v128.load(gk, K_DX * 16 + 32);
  const w = mu4(f4(6.283185307179586), ad4(f0, mu4(df, f4(<f32>i))));
  const w2 = mu4(w, w), c = mu4(zeta2, w);
  const tx = ad4(hx, mu4(len, rx)), ty = ad4(hy, mu4(len, ry)), tz = ad4(hz, mu4(len, rz));
  let vx = v128.load(pVel + o3), vy = v128.load(pVel + o3, 16), vz = v128.load(pVel + o3, 32);
  // (relative to the anchor at this step: the stored positions are relative to the last)
  let cx = sb4(v128.load(pPos + o3), ax0), cy = sb4(v128.load(pPos + o3, 16), ay0), cz = sb4(v128.load(pPos + o3, 32), az0);
  vx = ad4(vx, mu4(sb4(mu4(w2, sb4(tx, cx)), mu4(c, vx)), H));
  vy = ad4(vy, mu4(sb4(sb4(mu4(w2, sb4(ty, cy)), mu4(c, vy)), grav), H));
  vz = ad4(vz, mu4(sb4(mu4(w2, sb4(tz, cz)), mu4(c, vz)), H));
  cx = ad4(cx, mu4(vx, H)); cy = ad4(cy, mu4(vy, H)); cz = ad4(cz, mu4(vz, H));
  let dx = sb4(cx, hx), dy = sb4(cy, hy), dz = sb4(cz, hz);
  const dl = sq4(dot34(dx, dy, dz, dx, dy, dz));
  const okd = v128.and(gt4(dl, mu4(EPS12, len)), lt4(dl, f4(Infinity)));
  const idl = dv4(ONE, dl);
  if (all4(okd)) { dx = mu4(dx, idl); dy = mu4(dy, idl); dz = mu4(dz, idl); } else {
    dx = sel(okd, mu4(dx, idl), rx); dy = sel(okd, mu4(dy, idl), ry); dz = sel(okd, mu4(dz, idl), rz);
  }
  const tf = ad4(ad4(mu4(sb4(tx, ox), fx), mu4(sb4(ty, oy), fy)), mu4(sb4(tz, oz), fz));
  const ex = sb4(
    ad4(ad4(mu4(sb4(ad4(hx, mu4(len, dx)), ox), fx), mu4(sb4(ad4(hy, mu4(len, dy)), oy), fy)), mu4(sb4(ad4(hz, mu4(len, dz)), oz), fz)),
    f32x4.pmax(ZERO, tf), // (tf > 0 ? tf : 0, lane by lane)
  );
  const exm = gt4(ex, ZERO);
  if (v128.any_true(exm)) {
    const cx2 = sb4(ad4(hx, mu4(len, dx)), mu4(ex, fx)), cy2 = sb4(ad4(hy, mu4(len, dy)), mu4(ex, fy)), cz2 = sb4(ad4(hz, mu4(len, dz)), mu4(ex, fz));
    let ddx = sb4(cx2, hx), ddy = sb4(cy2, hy), ddz = sb4(cz2, hz);
    const dl2 = sq4(dot34(ddx, ddy, ddz, ddx, ddy, ddz));
    const ok2 = gt4(dl2, mu4(EPS12, len));
    ddx = sel(ok2, dv4(ddx, dl2), rx); ddy = sel(ok2, dv4(ddy, dl2), ry); ddz = sel(ok2, dv4(ddz, dl2), rz);
    const vf = dot34(vx, vy, vz, fx, fy, fz);
    const vfm = v128.and(exm, gt4(vf, ZERO));
    vx = sel(vfm, sb4(vx, mu4(vf, fx)), vx); vy = sel(vfm, sb4(vy, mu4(vf, fy)), vy); vz = sel(vfm, sb4(vz, mu4(vf, fz)), vz);
    dx = sel(exm, ddx, dx); dy = sel(exm, ddy, dy); dz = sel(exm, ddz, dz);
  }
  const vr = dot34(vx, vy, vz, dx, dy, dz);
  vx = sb4(vx, mu4(vr, dx)); vy = sb4(vy, mu4(vr, dy)); vz = sb4(vz, mu4(vr, dz));
  sVx = vx; sVy = vy; sVz = vz; sDx = dx; sDy = dy; sDz = dz;
}

/**
 * 6. bendCouple — link i's bend q_i = swing(r_h, d_h) in the hips frame (d_h = A_i · parent⁻¹ ·
 * d) is pulled toward its neighbours' previous snapshots (interior: halfway between them; base:
 * halfway between the next bend and identity, the hips hold it; free tip: its one neighbour)
 * by α = 1 − e^(−kΔt), as a normalised lerp, then held within the elastic bend limit θmax (same
 * axis, angle θmax). Velocity that keeps pushing against a correction is removed, never added.
 * Leaves the new bend in the step values (dq), the velocity, direction (world) and direction in
 * the parent frame in sVx…sVz, sDx…sDz, sPx…sPz.
 */
@inline function bendCouple(
  i: i32, n: i32, h: f32, gk: usize, o3: usize, o4: usize, o9: usize, dq: usize,
  m00: v128, m01: v128, m02: v128, m10: v128, m11: v128, m12: v128, m20: v128, m21: v128, m22: v128,
  len: v128, live: v128, vx0: v128, vy0: v128, vz0: v128, dx0: v128, dy0: v128, dz0: v128,
): void {
  const H = f4(h), ONE = f4(1), ZERO = f4(0), TWO = f4(2), EPS12 = f4(1e-12);
  const alpha = v128.load(gk, K_ALPHA * 16);
  const cosH = v128.load(gk, K_COSH * 16), sinH = v128.load(gk, K_SINH * 16);
  const alphaPos = gt4(alpha, ZERO);
  const allAlpha = all4(alphaPos);
  let vx = vx0, vy = vy0, vz = vz0, dx = dx0, dy = dy0, dz = dz0;
  let dpx = dot34(m00, m10, m20, dx, dy, dz);
  let dpy = dot34(m01, m11, m21, dx, dy, dz);
  let dpz = dot34(m02, m12, m22, dx, dy, dz);
  const a00 = v128.load(pToHipsM + o9), a01 = v128.load(pToHipsM + o9, 16), a02 = v128.load(pToHipsM + o9, 32);
  const a10 = v128.load(pToHipsM + o9, 48), a11 = v128.load(pToHipsM + o9, 64), a12 = v128.load(pToHipsM + o9, 80);
  const a20 = v128.load(pToHipsM + o9, 96), a21 = v128.load(pToHipsM + o9, 112), a22 = v128.load(pToHipsM + o9, 128);
  const gx = dot34(a00, a01, a02, dpx, dpy, dpz);
  const gy = dot34(a10, a11, a12, dpx, dpy, dpz);
  const gz = dot34(a20, a21, a22, dpx, dpy, dpz);
  const bx0 = v128.load(pRestDirHs + o3), by0 = v128.load(pRestDirHs + o3, 16), bz0 = v128.load(pRestDirHs + o3, 32);
  const dd = dot34(bx0, by0, bz0, gx, gy, gz);
  // (1 + r·d as |r + d|²/2: accurate near anti-parallel, where 1 + r·d cancels in float32)
  const spx = ad4(bx0, gx), spy = ad4(by0, gy), spz = ad4(bz0, gz);
  let sw = sel(gt4(dd, f4(-0.5)), ad4(ONE, dd), mu4(f4(0.5), dot34(spx, spy, spz, spx, spy, spz)));
  const anti = lt4(sw, f4(1e-9)); // (as the f64 step's 1 + r·d < 1e-9)
  const ql = dv4(ONE, sq4(ad4(sw, sw)));
  let sx = mu4(sb4(mu4(by0, gz), mu4(bz0, gy)), ql), sy = mu4(sb4(mu4(bz0, gx), mu4(bx0, gz)), ql), sz = mu4(sb4(mu4(bx0, gy), mu4(by0, gx)), ql);
  sw = mu4(sw, ql);
  if (v128.any_true(anti)) {
    let qa = ZERO, qb = ng4(bz0), qc = by0;
    const deg = lt4(ad4(mu4(qb, qb), mu4(qc, qc)), EPS12);
    qa = sel(deg, bz0, qa); qb = sel(deg, ZERO, qb); qc = sel(deg, ng4(bx0), qc);
    const pl = sq4(dot34(qa, qb, qc, qa, qb, qc));
    sx = sel(anti, dv4(qa, pl), sx); sy = sel(anti, dv4(qb, pl), sy); sz = sel(anti, dv4(qc, pl), sz); sw = sel(anti, ZERO, sw);
  }
  if (v128.any_true(alphaPos)) {
    let bx: v128, by: v128, bz: v128, bw: v128;
    if (i == 0) {
      const rn = pBendOld + o4 + 64;
      const b0 = v128.load(rn), b1 = v128.load(rn, 16), b2 = v128.load(rn, 32), b3 = v128.load(rn, 48);
      const sg = sel(lt4(b3, ZERO), f4(-1), ONE);
      bx = mu4(sg, b0); by = mu4(sg, b1); bz = mu4(sg, b2); bw = ad4(mu4(sg, b3), ONE);
    } else if (i == n - 1) {
      const rp = pBendOld + o4 - 64;
      bx = v128.load(rp); by = v128.load(rp, 16); bz = v128.load(rp, 32); bw = v128.load(rp, 48);
    } else {
      const rp = pBendOld + o4 - 64, rn = pBendOld + o4 + 64;
      const a0 = v128.load(rp), a1 = v128.load(rp, 16), a2 = v128.load(rp, 32), a3 = v128.load(rp, 48);
      const b0 = v128.load(rn), b1 = v128.load(rn, 16), b2 = v128.load(rn, 32), b3 = v128.load(rn, 48);
      const sg = sel(lt4(ad4(ad4(ad4(mu4(a0, b0), mu4(a1, b1)), mu4(a2, b2)), mu4(a3, b3)), ZERO), f4(-1), ONE);
      bx = ad4(a0, mu4(sg, b0)); by = ad4(a1, mu4(sg, b1)); bz = ad4(a2, mu4(sg, b2)); bw = ad4(a3, mu4(sg, b3));
    }
    const bl = sq4(ad4(ad4(ad4(mu4(bx, bx), mu4(by, by)), mu4(bz, bz)), mu4(bw, bw)));
    const blm = gt4(bl, EPS12);
    const ib = dv4(ONE, bl);
    if (all4(blm)) { bx = mu4(bx, ib); by = mu4(by, ib); bz = mu4(bz, ib); bw = mu4(bw, ib); } else {
      bx = sel(blm, mu4(bx, ib), ZERO); by = sel(blm, mu4(by, ib), ZERO); bz = sel(blm, mu4(bz, ib), ZERO); bw = sel(blm, mu4(bw, ib), ONE);
    }
    const d = sel(lt4(ad4(ad4(ad4(mu4(sx, bx), mu4(sy, by)), mu4(sz, bz)), mu4(sw, bw)), ZERO), ng4(alpha), alpha);
    const u = sb4(ONE, alpha);
    const x = ad4(mu4(sx, u), mu4(bx, d)), y = ad4(mu4(sy, u), mu4(by, d)), z = ad4(mu4(sz, u), mu4(bz, d)), ww = ad4(mu4(sw, u), mu4(bw, d));
    const l = dv4(ONE, sq4(ad4(ad4(ad4(mu4(x, x), mu4(y, y)), mu4(z, z)), mu4(ww, ww))));
    if (allAlpha) { sx = mu4(x, l); sy = mu4(y, l); sz = mu4(z, l); sw = mu4(ww, l); } else {
      sx = sel(alphaPos, mu4(x, l), sx); sy = sel(alphaPos, mu4(y, l), sy); sz = sel(alphaPos, mu4(z, l), sz); sw = sel(alphaPos, mu4(ww, l), sw);
    }
  }
  const neg = lt4(sw, ZERO);
  if (v128.any_true(neg)) { sx = sel(neg, ng4(sx), sx); sy = sel(neg, ng4(sy), sy); sz = sel(neg, ng4(sz), sz); sw = sel(neg, ng4(sw), sw); }
  const al = sq4(dot34(sx, sy, sz, sx, sy, sz));
  const limited = v128.and(v128.or(lt4(sw, cosH), v128.and(gt4(al, sinH), gt4(cosH, ZERO))), gt4(al, EPS12)); // (sin test: cos(θ/2) rounds to 1 in float32 for θ < 5e-4)
  if (v128.any_true(limited)) {
    const fl = dv4(sinH, al);
    sx = sel(limited, mu4(sx, fl), sx); sy = sel(limited, mu4(sy, fl), sy); sz = sel(limited, mu4(sz, fl), sz); sw = sel(limited, cosH, sw);
  }
  const bm = v128.or(limited, alphaPos);
  if (all4(live)) {
    v128.store(dq, sx, BN * 16); v128.store(dq, sy, BN * 16 + 16); v128.store(dq, sz, BN * 16 + 32); v128.store(dq, sw, BN * 16 + 48);
  } else {
    v128.store(dq, sel(live, sx, ZERO), BN * 16); v128.store(dq, sel(live, sy, ZERO), BN * 16 + 16);
    v128.store(dq, sel(live, sz, ZERO), BN * 16 + 32); v128.store(dq, sel(live, sw, ONE), BN * 16 + 48);
  }
  if (v128.any_true(bm)) {
    const t0 = mu4(TWO, sb4(mu4(sy, bz0), mu4(sz, by0))), t1 = mu4(TWO, sb4(mu4(sz, bx0), mu4(sx, bz0))), t2 = mu4(TWO, sb4(mu4(sx, by0), mu4(sy, bx0)));
    const ex_ = ad4(ad4(bx0, mu4(sw, t0)), sb4(mu4(sy, t2), mu4(sz, t1)));
    const ey_ = ad4(ad4(by0, mu4(sw, t1)), sb4(mu4(sz, t0), mu4(sx, t2)));
    const ez_ = ad4(ad4(bz0, mu4(sw, t2)), sb4(mu4(sx, t1), mu4(sy, t0)));
    const qpx = dot34(a00, a10, a20, ex_, ey_, ez_);
    const qpy = dot34(a01, a11, a21, ex_, ey_, ez_);
    const qpz = dot34(a02, a12, a22, ex_, ey_, ez_);
    const nx = dot34(m00, m01, m02, qpx, qpy, qpz);
    const ny = dot34(m10, m11, m12, qpx, qpy, qpz);
    const nz = dot34(m20, m21, m22, qpx, qpy, qpz);
    const vr2 = dot34(vx, vy, vz, nx, ny, nz);
    let wx2 = sb4(vx, mu4(vr2, nx)), wy2 = sb4(vy, mu4(vr2, ny)), wz2 = sb4(vz, mu4(vr2, nz));
    const cc = dot34(dx, dy, dz, nx, ny, nz);
    let qx2 = sb4(nx, mu4(cc, dx)), qy2 = sb4(ny, mu4(cc, dy)), qz2 = sb4(nz, mu4(cc, dz));
    const ve0 = dot34(wx2, wy2, wz2, qx2, qy2, qz2);
    const el = sq4(dot34(qx2, qy2, qz2, qx2, qy2, qz2));
    const cm = v128.and(lt4(ve0, ZERO), gt4(el, EPS12));
    const il2 = dv4(ONE, el);
    qx2 = mu4(qx2, il2); qy2 = mu4(qy2, il2); qz2 = mu4(qz2, il2);
    const ve = mu4(ve0, il2);
    const lim = dv4(ng4(mu4(el, len)), H);
    let cut = f32x4.pmax(lim, ve); // (ve > lim ? ve : lim)
    if (v128.any_true(limited)) cut = sel(limited, ve, cut);
    if (v128.any_true(cm)) { wx2 = sel(cm, sb4(wx2, mu4(cut, qx2)), wx2); wy2 = sel(cm, sb4(wy2, mu4(cut, qy2)), wy2); wz2 = sel(cm, sb4(wz2, mu4(cut, qz2)), wz2); }
    if (all4(bm)) {
      vx = wx2; vy = wy2; vz = wz2; dx = nx; dy = ny; dz = nz; dpx = qpx; dpy = qpy; dpz = qpz;
    } else {
      vx = sel(bm, wx2, vx); vy = sel(bm, wy2, vy); vz = sel(bm, wz2, vz);
      dx = sel(bm, nx, dx); dy = sel(bm, ny, dy); dz = sel(bm, nz, dz);
      dpx = sel(bm, qpx, dpx); dpy = sel(bm, qpy, dpy); dpz = sel(bm, qpz, dpz);
    }
  }
  sVx = vx; sVy = vy; sVz = vz; sDx = dx; sDy = dy; sDz = dz; sPx = dpx; sPy = dpy; sPz = dpz;
}

/**
 * The broad phase of {@link tailCollide}, four lanes at once: the lanes whose link (segment
 * h → h + ℓd) comes within reach (r·1.001 + lead) of one of its colliders (the block's shapes:
 * a segment and its reach). The closest points of the two segments as tailCollide finds them
 * (clamped, then the link's point again for a clamped collider point), in float32, so the
 * reach gets a margin of 10⁻⁴ (reach + ℓ) for its round-off: a lane that tailCollide would
 * find touching is never left out.
 */
@inline function nearColliders(gk: usize, hx: v128, hy: v128, hz: v128, dx: v128, dy: v128, dz: v128, len: v128): v128 {
  const ZERO = f4(0), ONE = f4(1), TINY = f4(1e-30);
  const d1x = mu4(len, dx), d1y = mu4(len, dy), d1z = mu4(len, dz);
  const a = f32x4.pmax(dot34(d1x, d1y, d1z, d1x, d1y, d1z), TINY), ia = dv4(ONE, a);
  const hl = mu4(len, f4(0.5));
  const cx = ad4(hx, mu4(hl, dx)), cy = ad4(hy, mu4(hl, dy)), cz = ad4(hz, mu4(hl, dz));
  const nc = load<i32>(gk, K_NC * 16);
  let near = i32x4.splat(0);
  for (let m = 0; m < nc; m++) {
    const bk = gk + <usize>((K_CS + m * 8) << 4);
    const R = v128.load(bk, 96);
    const d2x = v128.load(bk, 48), d2y = v128.load(bk, 64), d2z = v128.load(bk, 80);
    const e = dot34(d2x, d2y, d2z, d2x, d2y, d2z);
    // (first the link's bounding sphere, centre h + ℓd/2, radius ℓ/2, against the capsule: most
    // links are clear of most colliders, and then the closest points are not needed)
    const ax = v128.load(bk), ay = v128.load(bk, 16), az = v128.load(bk, 32);
    const px = sb4(cx, ax), py = sb4(cy, ay), pz = sb4(cz, az);
    const tm = f32x4.pmin(ONE, f32x4.pmax(ZERO, dv4(dot34(px, py, pz, d2x, d2y, d2z), f32x4.pmax(e, TINY))));
    const ex = sb4(px, mu4(tm, d2x)), ey = sb4(py, mu4(tm, d2y)), ez = sb4(pz, mu4(tm, d2z));
    const sr = mu4(ad4(R, hl), f4(1.001));
    const sphere0 = v128.and(gt4(R, ZERO), lt4(dot34(ex, ey, ez, ex, ey, ez), mu4(sr, sr)));
    if (!v128.any_true(v128.andnot(sphere0, near))) continue;
    const rx = sb4(hx, ax), ry = sb4(hy, ay), rz = sb4(hz, az);
    const f = dot34(d2x, d2y, d2z, rx, ry, rz);
    const c = dot34(d1x, d1y, d1z, rx, ry, rz), b = dot34(d1x, d1y, d1z, d2x, d2y, d2z);
    const ae = mu4(a, e), den = sb4(ae, mu4(b, b));
    // (the link's parameter for the lines' closest points; 0 for near-parallel segments)
    const s0 = sel(gt4(den, mu4(f4(1e-6), ae)), f32x4.pmin(ONE, f32x4.pmax(ZERO, dv4(sb4(mu4(b, f), mu4(c, e)), f32x4.pmax(den, TINY)))), ZERO);
    const sphere = f32x4.le(e, mu4(f4(1e-12), a));
    const t0 = dv4(ad4(mu4(b, s0), f), f32x4.pmax(e, TINY));
    const inside = v128.andnot(v128.and(f32x4.ge(t0, ZERO), f32x4.le(t0, ONE)), sphere);
    const t = sel(sphere, ZERO, f32x4.pmin(ONE, f32x4.pmax(ZERO, t0)));
    const s = sel(inside, s0, f32x4.pmin(ONE, f32x4.pmax(ZERO, mu4(sb4(mu4(b, t), c), ia))));
    const qx = sb4(ad4(rx, mu4(s, d1x)), mu4(t, d2x)), qy = sb4(ad4(ry, mu4(s, d1y)), mu4(t, d2y)), qz = sb4(ad4(rz, mu4(s, d1z)), mu4(t, d2z));
    const reach = ad4(R, mu4(f4(1e-4), ad4(R, len)));
    near = v128.or(near, v128.and(sphere0, lt4(dot34(qx, qy, qz, qx, qy, qz), mu4(reach, reach))));
  }
  return near;
}

/**
 * Link i of group g (systems/tailStep.ts's maths in f32x4; positions relative to the anchor at
 * this step): the parent frame, head and first-link origin come from the group block's state
 * (left there by link i − 1, or set up by {@link stepGroupBegin}) and go back there for link
 * i + 1. A chunk's groups run link by link ({@link stepChunk}): consecutive calls are
 * independent, so the processor overlaps one group's link with the next group's (one chain's
 * links are a single long dependency chain).
 */
function stepLink(g: i32, i: i32, h: f32, gk: usize, dg: usize): void {
  const n = load<i32>(gk, K_N * 16);
  const gl = g * LINK_STRIDE + i;
  // this link's fields: one base per width (core/components/tail.ts linkEl)
  const o1 = <usize>(gl << 4), o3 = <usize>(gl * 48), o4 = <usize>(gl << 6), o9 = <usize>(gl * 144);
  const dq = dg + <usize>(i * DYNB); // (this link's step values)
  const laneM = v128.load(gk, K_LIVE * 16);
  const l0 = i32x4.extract_lane(laneM, 0) != 0, l1 = i32x4.extract_lane(laneM, 1) != 0;
  const l2 = i32x4.extract_lane(laneM, 2) != 0, l3 = i32x4.extract_lane(laneM, 3) != 0;
  const allLanes = i32x4.all_true(laneM);
  const k0 = gl << 2; // (link number of lane 0; lane j: k0 + j)
  const ONE = f4(1), ZERO = f4(0), EPS12 = f4(1e-12);
  // (the anti-parallel fallback from 1 + d < 1e-6, within 0.08° of 180°: d carries float32
  // round-off of ~2e-7, and from the f64 threshold −0.999999999 an exactly opposite direction
  // would take the swing formula with a cross product of round-off: an arbitrary twist)
  let qx = v128.load(gk, K_SQ * 16), qy = v128.load(gk, K_SQ * 16 + 16), qz = v128.load(gk, K_SQ * 16 + 32), qw = v128.load(gk, K_SQ * 16 + 48);
  let px = v128.load(gk, K_SP * 16), py = v128.load(gk, K_SP * 16 + 16), pz = v128.load(gk, K_SP * 16 + 32);
  const s = v128.load(gk, K_S * 16);
  let ps = v128.load(gk, K_SPS * 16);
  const floorOn = v128.and(f32x4.eq(v128.load(gk, K_FLOORON * 16), ONE), laneM), floorF = v128.load(gk, K_FLOOR * 16);
  const anyFloor = v128.any_true(floorOn);
  let ox = v128.load(gk, K_SO * 16), oy = v128.load(gk, K_SO * 16 + 16), oz = v128.load(gk, K_SO * 16 + 32);

  const x2 = ad4(qx, qx), y2 = ad4(qy, qy), z2 = ad4(qz, qz);
  const xx = mu4(qx, x2), xy = mu4(qx, y2), xz = mu4(qx, z2), yy = mu4(qy, y2), yz = mu4(qy, z2), zz = mu4(qz, z2);
  const wx = mu4(qw, x2), wy = mu4(qw, y2), wz = mu4(qw, z2);
  const m00 = sb4(ONE, ad4(yy, zz)), m01 = sb4(xy, wz), m02 = ad4(xz, wy);
  const m10 = ad4(xy, wz), m11 = sb4(ONE, ad4(xx, zz)), m12 = sb4(yz, wx);
  const m20 = sb4(xz, wy), m21 = ad4(yz, wx), m22 = sb4(ONE, ad4(xx, yy));
  const lx = v128.load(pHeadLs + o3), ly = v128.load(pHeadLs + o3, 16), lz = v128.load(pHeadLs + o3, 32);
  const hx = ad4(px, mu4(ps, dot34(m00, m01, m02, lx, ly, lz)));
  const hy = ad4(py, mu4(ps, dot34(m10, m11, m12, lx, ly, lz)));
  const hz = ad4(pz, mu4(ps, dot34(m20, m21, m22, lx, ly, lz)));
  const ux = v128.load(pRestDirLs + o3), uy = v128.load(pRestDirLs + o3, 16), uz = v128.load(pRestDirLs + o3, 32);
  const rx = dot34(m00, m01, m02, ux, uy, uz);
  const ry = dot34(m10, m11, m12, ux, uy, uz);
  const rz = dot34(m20, m21, m22, ux, uy, uz);
  const len = mu4(s, v128.load(pLenRel + o1));
  if (i == 0) { ox = hx; oy = hy; oz = hz; }
  const live = gt4(len, ZERO);
  // ---- 5. TailSpring
  tailSpring(i, h, gk, o3, hx, hy, hz, rx, ry, rz, len, ox, oy, oz);
  let vx = sVx, vy = sVy, vz = sVz, dx = sDx, dy = sDy, dz = sDz;
  // ---- 6. BendCouple
  bendCouple(i, n, h, gk, o3, o4, o9, dq, m00, m01, m02, m10, m11, m12, m20, m21, m22, len, live, vx, vy, vz, dx, dy, dz);
  vx = sVx; vy = sVy; vz = sVz; dx = sDx; dy = sDy; dz = sDz;
  let dpx = sPx, dpy = sPy, dpz = sPz;
  const allLive = all4(live);
  // Particles (a zero-length link: at its head, at rest, no bend).
  const tipY = ad4(hy, mu4(len, dy));
  let ptx = ad4(hx, mu4(len, dx)), pty = tipY, ptz = ad4(hz, mu4(len, dz));
  if (!allLive) {
    ptx = sel(live, ptx, hx); pty = sel(live, pty, hy); ptz = sel(live, ptz, hz);
    vx = sel(live, vx, ZERO); vy = sel(live, vy, ZERO); vz = sel(live, vz, ZERO);
    dpx = sel(live, dpx, ux); dpy = sel(live, dpy, uy); dpz = sel(live, dpz, uz);
  }
  const pp = pPos + o3, pv = pVel + o3;
  if (allLanes) {
    v128.store(pp, ptx); v128.store(pp, pty, 16); v128.store(pp, ptz, 32);
    v128.store(pv, vx); v128.store(pv, vy, 16); v128.store(pv, vz, 32);
  } else {
    v128.store(pp, keep(laneM, ptx, pp)); v128.store(pp + 16, keep(laneM, pty, pp + 16)); v128.store(pp + 32, keep(laneM, ptz, pp + 32));
    v128.store(pv, keep(laneM, vx, pv)); v128.store(pv + 16, keep(laneM, vy, pv + 16)); v128.store(pv + 32, keep(laneM, vz, pv + 32));
  }
  if (l0) store<u8>(pContact + <usize>k0, 0);
  if (l1) store<u8>(pContact + <usize>(k0 + 1), 0);
  if (l2) store<u8>(pContact + <usize>(k0 + 2), 0);
  if (l3) store<u8>(pContact + <usize>(k0 + 3), 0);
  // ---- 6b. TailCollide (lanes with colliders: per lane, in f64), then 7. FloorContact (rare: per lane, in f64)
  let collM = v128.and(v128.load(gk, K_COLL * 16), live);
  if (v128.any_true(collM)) collM = v128.and(collM, nearColliders(gk, hx, hy, hz, dx, dy, dz, len));
  const anyColl = v128.any_true(collM);
  let fm = f32x4.splat(0);
  if (anyFloor) fm = v128.and(v128.and(live, floorOn), lt4(tipY, floorF));
  if (anyColl || v128.any_true(fm)) {
    v128.store(gk, m00, K_M * 16); v128.store(gk, m01, K_M * 16 + 16); v128.store(gk, m02, K_M * 16 + 32);
    v128.store(gk, m10, K_M * 16 + 48); v128.store(gk, m11, K_M * 16 + 64); v128.store(gk, m12, K_M * 16 + 80);
    v128.store(gk, m20, K_M * 16 + 96); v128.store(gk, m21, K_M * 16 + 112); v128.store(gk, m22, K_M * 16 + 128);
    v128.store(gk, hx, K_H * 16); v128.store(gk, hy, K_H * 16 + 16); v128.store(gk, hz, K_H * 16 + 32);
    v128.store(gk, rx, K_R * 16); v128.store(gk, rz, K_R * 16 + 16); v128.store(gk, dx, K_D * 16); v128.store(gk, dz, K_D * 16 + 16);
    v128.store(gk, len, K_LEN * 16);
    v128.store(gk, dpx, K_DP * 16); v128.store(gk, dpy, K_DP * 16 + 16); v128.store(gk, dpz, K_DP * 16 + 32);
    if (anyColl) {
      tailCollide(gk, dq, g, o3, o9, collM);
      // (floor contact has the last word: tested on the tips as the colliders left them)
      if (anyFloor) fm = v128.and(v128.and(live, floorOn), lt4(v128.load(pp, 16), floorF));
    }
    if (i32x4.extract_lane(fm, 0) != 0) floorContact(gk, dq, 0, k0, laneEnt(g, 0));
    if (i32x4.extract_lane(fm, 1) != 0) floorContact(gk, dq, 4, k0 + 1, laneEnt(g, 1));
    if (i32x4.extract_lane(fm, 2) != 0) floorContact(gk, dq, 8, k0 + 2, laneEnt(g, 2));
    if (i32x4.extract_lane(fm, 3) != 0) floorContact(gk, dq, 12, k0 + 3, laneEnt(g, 3));
    dpx = v128.load(gk, K_DP * 16); dpy = v128.load(gk, K_DP * 16 + 16); dpz = v128.load(gk, K_DP * 16 + 32);
  }
  // ---- aim: local = swing(restDirLs, d_parent) · restR; the next link's parent frame
  const dd2 = dot34(ux, uy, uz, dpx, dpy, dpz);
  const upx = ad4(ux, dpx), upy = ad4(uy, dpy), upz = ad4(uz, dpz);
  let ax = sb4(mu4(uy, dpz), mu4(uz, dpy)), ay = sb4(mu4(uz, dpx), mu4(ux, dpz)), az = sb4(mu4(ux, dpy), mu4(uy, dpx)), aw = sel(gt4(dd2, f4(-0.5)), ad4(ONE, dd2), mu4(f4(0.5), dot34(upx, upy, upz, upx, upy, upz)));
  const anti2 = lt4(aw, f4(1e-9));
  const sl = dv4(ONE, sq4(ad4(aw, aw)));
  ax = mu4(ax, sl); ay = mu4(ay, sl); az = mu4(az, sl); aw = mu4(aw, sl);
  if (v128.any_true(anti2)) {
    let qa = ZERO, qb = ng4(uz), qc = uy;
    const deg = lt4(ad4(mu4(qb, qb), mu4(qc, qc)), EPS12);
    qa = sel(deg, uz, qa); qb = sel(deg, ZERO, qb); qc = sel(deg, ng4(ux), qc);
    const pl = sq4(dot34(qa, qb, qc, qa, qb, qc));
    ax = sel(anti2, dv4(qa, pl), ax); ay = sel(anti2, dv4(qb, pl), ay); az = sel(anti2, dv4(qc, pl), az); aw = sel(anti2, ZERO, aw);
  }
  const q0 = v128.load(pRestR + o4), q1 = v128.load(pRestR + o4, 16), q2 = v128.load(pRestR + o4, 32), q3 = v128.load(pRestR + o4, 48);
  const kx = qmx4(ax, ay, az, aw, q0, q1, q2, q3), ky = qmy4(ax, ay, az, aw, q0, q1, q2, q3);
  const kz = qmz4(ax, ay, az, aw, q0, q1, q2, q3), kw = qmw4(ax, ay, az, aw, q0, q1, q2, q3);
  v128.store(dq, kx, LC * 16); v128.store(dq, ky, LC * 16 + 16); v128.store(dq, kz, LC * 16 + 32); v128.store(dq, kw, LC * 16 + 48);
  const nqx = qmx4(qx, qy, qz, qw, kx, ky, kz, kw), nqy = qmy4(qx, qy, qz, qw, kx, ky, kz, kw);
  const nqz = qmz4(qx, qy, qz, qw, kx, ky, kz, kw), nqw = qmw4(qx, qy, qz, qw, kx, ky, kz, kw);
  qx = nqx; qy = nqy; qz = nqz; qw = nqw;
  px = hx; py = hy; pz = hz;
  ps = mu4(s, v128.load(pScaleRel + o1));
  v128.store(gk, qx, K_SQ * 16); v128.store(gk, qy, K_SQ * 16 + 16); v128.store(gk, qz, K_SQ * 16 + 32); v128.store(gk, qw, K_SQ * 16 + 48);
  v128.store(gk, px, K_SP * 16); v128.store(gk, py, K_SP * 16 + 16); v128.store(gk, pz, K_SP * 16 + 32);
  v128.store(gk, ps, K_SPS * 16);
  if (i == 0) { v128.store(gk, ox, K_SO * 16); v128.store(gk, oy, K_SO * 16 + 16); v128.store(gk, oz, K_SO * 16 + 32); }
}


/**
 * Step the row groups [g0, g1) by params[0] seconds: every chain in them with a step pending
 * (`stepsLastFrame` ≠ 0); the others keep their state. Groups are independent, so a caller may
 * split the groups among workers that share this memory.
 */
export function tailStep(g0: i32, g1: i32): void {
  const h = load<f64>(pParams);
  for (let g = g0; g < g1; g += CHUNK) stepChunk(g, g + CHUNK < g1 ? g + CHUNK : g1, h);
}

// ---------------------------------------------------------------------------------------------
// Tail write (systems/tailWrite.ts, the link loop and the common part of the per-chain
// finish, core/tailFinish.ts): displayed local rotations into the pose store's `localR` and,
// unless the chain keeps exact world matrices, the bones' world matrices; then per chain the
// anchor copy for the next frame and, for a `Tail_End` helper without children, its world
// matrix (poseUpdateSlot's operations; for two such chains as a pair, from the last link's
// world matrix in registers). The caller finishes what is left: the non-finite fallback
// flagged in `writeFailed`, chains with exact world matrices and end helpers with children.

let pAnchorCur: usize = 0, pInitialised: usize = 0, pExactWorld: usize = 0, pMirrored: usize = 0, pSlot: usize = 0;
let pTipDirLs: usize = 0, pPoseLocalR: usize = 0, pPoseWorldM: usize = 0, pWriteFailed: usize = 0;
let pEndSlot: usize = 0, pEndLeaf: usize = 0, pAnchorPrev: usize = 0, pPoseLocalT: usize = 0, pPoseLocalS: usize = 0, pPoseOwner: usize = 0;

/** Byte offsets of the arrays the write reads and writes (setup, after every re-layout). */
export function setWritePointers(
  anchorCur: usize, initialised: usize, exactWorld: usize, mirrored: usize, slot: usize,
  tipDirLs: usize, poseLocalR: usize, poseWorldM: usize, writeFailed: usize,
  endSlot: usize, endLeaf: usize, anchorPrev: usize, poseLocalT: usize, poseLocalS: usize, poseOwner: usize,
): void {
  pAnchorCur = anchorCur; pInitialised = initialised; pExactWorld = exactWorld; pMirrored = mirrored; pSlot = slot;
  pTipDirLs = tipDirLs; pPoseLocalR = poseLocalR; pPoseWorldM = poseWorldM; pWriteFailed = writeFailed;
  pEndSlot = endSlot; pEndLeaf = endLeaf; pAnchorPrev = anchorPrev; pPoseLocalT = poseLocalT; pPoseLocalS = poseLocalS; pPoseOwner = poseOwner;
}

/**
 * The per-chain finish of a written chain (core/tailFinish.ts, its common case, same
 * operations): the anchor copy for the next frame and, when the chain composed its world
 * matrices, did not fail and has a `Tail_End` helper without children, the helper's world
 * matrix = parent world · compose(T, R, S) (core/poseMath.ts poseUpdateSlot).
 */
function finishChain(e: i32, composed: bool, failed: bool): void {
  const a = e * 8;
  for (let j = 0; j < 8; j++) S(pAnchorPrev, a + j, L(pAnchorCur, a + j));
  if (!composed || failed || load<u8>(pEndLeaf + <usize>e) != 1) return;
  const end = load<i32>(pEndSlot + (<usize>e << 2));
  if (end < 0 || <u32>end >= poseSlots || load<i32>(pPoseOwner + (<usize>end << 2)) < 0) return; // (a released slot: as poseUpdateSubtree; outside the store: see structureOk)
  // composeTRS of the helper's local T, R, S (column-major, as poseMath.ts)
  const r4 = end * 4, t3 = end * 3;
  const x = L(pPoseLocalR, r4), y = L(pPoseLocalR, r4 + 1), z = L(pPoseLocalR, r4 + 2), w = L(pPoseLocalR, r4 + 3);
  const sx = L(pPoseLocalS, t3), sy = L(pPoseLocalS, t3 + 1), sz = L(pPoseLocalS, t3 + 2);
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
  const wx = w * x2, wy = w * y2, wz = w * z2;
  const b00 = (1 - (yy + zz)) * sx, b01 = (xy + wz) * sx, b02 = (xz - wy) * sx;
  const b10 = (xy - wz) * sy, b11 = (1 - (xx + zz)) * sy, b12 = (yz + wx) * sy;
  const b20 = (xz + wy) * sz, b21 = (yz - wx) * sz, b22 = (1 - (xx + yy)) * sz;
  const b30 = L(pPoseLocalT, t3), b31 = L(pPoseLocalT, t3 + 1), b32 = L(pPoseLocalT, t3 + 2);
  // mulAffine(worldM[end], worldM[parent = last link], local), a column at a time
  const po = load<i32>(pSlot + (<usize>LQ(load<i32>(pRow + (<usize>e << 2)), <i32>load<u8>(pLinks + <usize>e) - 1) << 2)) * 16;
  const o = end * 16;
  mulAffineColumn(po, o, b00, b01, b02, 0, 0);
  mulAffineColumn(po, o + 4, b10, b11, b12, 0, 0);
  mulAffineColumn(po, o + 8, b20, b21, b22, 0, 0);
  mulAffineColumn(po, o + 12, b30, b31, b32, 1, 1);
}

/**
 * Column `o..o+3` of worldM = worldM[po] (affine) · (b0, b1, b2, b3), last row `w`: the
 * operations of core/poseMath.ts mulAffine (b3 is 0 for the rotation columns, 1 for the
 * translation, and is multiplied in as there).
 */
@inline function mulAffineColumn(po: i32, o: i32, b0: f64, b1: f64, b2: f64, b3: f64, w: f64): void {
  S(pPoseWorldM, o, L(pPoseWorldM, po) * b0 + L(pPoseWorldM, po + 4) * b1 + L(pPoseWorldM, po + 8) * b2 + L(pPoseWorldM, po + 12) * b3);
  S(pPoseWorldM, o + 1, L(pPoseWorldM, po + 1) * b0 + L(pPoseWorldM, po + 5) * b1 + L(pPoseWorldM, po + 9) * b2 + L(pPoseWorldM, po + 13) * b3);
  S(pPoseWorldM, o + 2, L(pPoseWorldM, po + 2) * b0 + L(pPoseWorldM, po + 6) * b1 + L(pPoseWorldM, po + 10) * b2 + L(pPoseWorldM, po + 14) * b3);
  S(pPoseWorldM, o + 3, w);
}

/**
 * Store p[ia + c], p[ia + c + 1] = lanes 0 of (a, b) (chain A) and p[ib + c], p[ib + c + 1] =
 * lanes 1 (chain B), one 16-byte store each (the same values as P on both fields; ia = ib
 * stores the same pair twice).
 */
@inline function Q2(p: usize, ia: i32, ib: i32, a: v128, b: v128, c: i32): void {
  v128.store(p + (<usize>(ia + c) << 3), i64x2.shuffle(a, b, 0, 2));
  v128.store(p + (<usize>(ib + c) << 3), i64x2.shuffle(a, b, 1, 3));
}

/** Lanes la, lb (byte offsets 0, 4, 8, 12) of the float32 v128 at p (one component of a row group's link), as f64x2. */
@inline function FP(p: usize, la: usize, lb: usize): v128 {
  // (neighbouring lanes, the common case: one 8-byte load)
  if (lb == la + 4) return f64x2.promote_low_f32x4(v128.load64_zero(p + la));
  return f64x2.promote_low_f32x4(v128.load32_lane(p + lb, v128.load32_zero(p + la), 1));
}

/** Lanes la, lb (byte offsets 0, 8, 16, 24) of the four f64 at p (a float64 per-link field, interleaved alike), as f64x2. */
@inline function DP(p: usize, la: usize, lb: usize): v128 {
  return v128.load64_lane(p + lb, v128.load64_zero(p + la), 1);
}

@inline function storeLanes(p: usize, ia: i32, ib: i32, v: v128, wa: bool, wb: bool): void {
  if (wa) v128.store64_lane(p + (<usize>ia << 3), v, 0);
  if (wb) v128.store64_lane(p + (<usize>ib << 3), v, 1);
}

/**
 * Write the chains in lanes ja and jb of row group g (eA, eB; jb = ja, eB = eA: one chain
 * alone) for the display fraction al: the link loop two chains per f64x2, then their finish.
 */
function writeLanes(g: i32, ja: i32, jb: i32, eA: i32, eB: i32, al: f64): void {
  const la = <usize>(ja << 2), lb = <usize>(jb << 2), la8 = <usize>(ja << 3), lb8 = <usize>(jb << 3);
  const lAnchorCur = pAnchorCur, lFloorClearance = pFloorClearance, lFloorY = pFloorY, lHeadLs = pHeadLs, lLenRel = pLenRel, lLocalCur = pLocalCur, lLocalPrev = pLocalPrev, lPoseLocalR = pPoseLocalR, lPoseWorldM = pPoseWorldM, lRestDirLs = pRestDirLs, lRestR = pRestR, lScaleRel = pScaleRel, lTipDirLs = pTipDirLs, lUnitScale = pUnitScale; // (the pointers as locals: one load each)
  const ONE = sp(1), ZERO = sp(0), EPS12 = sp(1e-12), ANTI = sp(-0.999999), TINY = sp(1e-9); // (ANTI: within 0.08° of 180°, as the step's: the rest data is float32)
  const AL = sp(al), AL1 = sp(1 - al), NAL = sp(-al);
  const n = <i32>load<u8>(pLinks + <usize>eA);
  const aA = eA * 8, aB = eB * 8;
  const floorOnM = f64x2.eq(f64x2.replace_lane(f64x2.splat(<f64>load<u8>(pFloorEnabled + <usize>eA)), 1, <f64>load<u8>(pFloorEnabled + <usize>eB)), ONE);
  const F = ad(G0(lFloorY, eA, eB), mu(G0(lFloorClearance, eA, eB), G0(lUnitScale, eA, eB)));
  const composeA = load<u8>(pExactWorld + <usize>eA) != 1, composeB = load<u8>(pExactWorld + <usize>eB) != 1;
  const mxv = f64x2.replace_lane(f64x2.splat(load<u8>(pMirrored + <usize>eA) == 1 ? -1.0 : 1.0), 1, load<u8>(pMirrored + <usize>eB) == 1 ? -1.0 : 1.0);
  let qx = G3(lAnchorCur, aA, aB), qy = G4(lAnchorCur, aA, aB), qz = G5(lAnchorCur, aA, aB), qw = G6(lAnchorCur, aA, aB);
  let px = G0(lAnchorCur, aA, aB), py = G1(lAnchorCur, aA, aB), pz = G2(lAnchorCur, aA, aB);
  const s = G7(lAnchorCur, aA, aB);
  let ps = s;
  let x2 = ad(qx, qx), y2 = ad(qy, qy), z2 = ad(qz, qz);
  let xx = mu(qx, x2), xy = mu(qx, y2), xz = mu(qx, z2), yy = mu(qy, y2), yz = mu(qy, z2), zz = mu(qz, z2);
  let wx = mu(qw, x2), wy = mu(qw, y2), wz = mu(qw, z2);
  let m00 = sb(ONE, ad(yy, zz)), m01 = sb(xy, wz), m02 = ad(xz, wy);
  let m10 = ad(xy, wz), m11 = sb(ONE, ad(xx, zz)), m12 = sb(yz, wx);
  let m20 = sb(xz, wy), m21 = ad(yz, wx), m22 = sb(ONE, ad(xx, yy));
  let bad = f64x2.ne(ZERO, ZERO); // all false
  // The chains' Tail_End helpers for the finish below, read here: their misses overlap the
  // link loop (which writes neither their owner nor their local T and S; their local R it may:
  // a helper that is the other chain's link, read after the loop).
  const endA = load<i32>(pEndSlot + (<usize>eA << 2)), endB = load<i32>(pEndSlot + (<usize>eB << 2));
  const hA = endA >= 0 && <u32>endA < poseSlots ? endA : 0, hB = endB >= 0 && <u32>endB < poseSlots ? endB : 0;
  const liveA = endA >= 0 && hA == endA && load<u8>(pEndLeaf + <usize>eA) == 1 && load<i32>(pPoseOwner + (<usize>hA << 2)) >= 0;
  const liveB = endB >= 0 && hB == endB && load<u8>(pEndLeaf + <usize>eB) == 1 && load<i32>(pPoseOwner + (<usize>hB << 2)) >= 0;
  const t3A = hA * 3, t3B = hB * 3;
  const esx = G0(pPoseLocalS, t3A, t3B), esy = G1(pPoseLocalS, t3A, t3B), esz = G2(pPoseLocalS, t3A, t3B);
  const b30 = G0(pPoseLocalT, t3A, t3B), b31 = G1(pPoseLocalT, t3A, t3B), b32 = G2(pPoseLocalT, t3A, t3B);
  for (let i = 0; i < n; i++) {
    const gl = g * LINK_STRIDE + i;
    const o1 = <usize>(gl << 4), o3 = <usize>(gl * 48), o4 = <usize>(gl << 6), d3 = <usize>(gl * 96);
    const p0 = FP(lLocalPrev + o4, la, lb), p1 = FP(lLocalPrev + o4 + 16, la, lb), p2 = FP(lLocalPrev + o4 + 32, la, lb), p3 = FP(lLocalPrev + o4 + 48, la, lb);
    const c0 = FP(lLocalCur + o4, la, lb), c1 = FP(lLocalCur + o4 + 16, la, lb), c2 = FP(lLocalCur + o4 + 32, la, lb), c3 = FP(lLocalCur + o4 + 48, la, lb);
    const sg = sel(lt(ad(ad(ad(mu(p0, c0), mu(p1, c1)), mu(p2, c2)), mu(p3, c3)), ZERO), NAL, AL);
    let lx = ad(mu(p0, AL1), mu(c0, sg)), ly = ad(mu(p1, AL1), mu(c1, sg)), lz = ad(mu(p2, AL1), mu(c2, sg)), lw = ad(mu(p3, AL1), mu(c3, sg));
    const l2 = ad(ad(ad(mu(lx, lx), mu(ly, ly)), mu(lz, lz)), mu(lw, lw));
    bad = v128.or(bad, v128.not(v128.and(gt(l2, sp(1e-18)), lt(l2, sp(Infinity)))));
    // (normalised in f64 also at α = 0: float32 quaternions are unit to 1e-7 only, which bone
    // lengths and composed world matrices would carry)
    const il = dv(ONE, sq(l2));
    lx = mu(lx, il); ly = mu(ly, il); lz = mu(lz, il); lw = mu(lw, il);
    const hlx = FP(lHeadLs + o3, la, lb), hly = FP(lHeadLs + o3 + 16, la, lb), hlz = FP(lHeadLs + o3 + 32, la, lb);
    const hx = ad(px, mu(ps, dot3(m00, m01, m02, hlx, hly, hlz)));
    const hy = ad(py, mu(ps, dot3(m10, m11, m12, hlx, hly, hlz)));
    const hz = ad(pz, mu(ps, dot3(m20, m21, m22, hlx, hly, hlz)));
    let nx = qmx(qx, qy, qz, qw, lx, ly, lz, lw), ny = qmy(qx, qy, qz, qw, lx, ly, lz, lw);
    let nz = qmz(qx, qy, qz, qw, lx, ly, lz, lw), nw = qmw(qx, qy, qz, qw, lx, ly, lz, lw);
    x2 = ad(nx, nx); y2 = ad(ny, ny); z2 = ad(nz, nz);
    xx = mu(nx, x2); xy = mu(nx, y2); xz = mu(nx, z2); yy = mu(ny, y2); yz = mu(ny, z2); zz = mu(nz, z2);
    wx = mu(nw, x2); wy = mu(nw, y2); wz = mu(nw, z2);
    let n00 = sb(ONE, ad(yy, zz)), n01 = sb(xy, wz), n02 = ad(xz, wy);
    let n10 = ad(xy, wz), n11 = sb(ONE, ad(xx, zz)), n12 = sb(yz, wx);
    let n20 = sb(xz, wy), n21 = ad(yz, wx), n22 = sb(ONE, ad(xx, yy));
    const len = mu(s, FP(lLenRel + o1, la, lb));
    const fm0 = v128.and(floorOnM, gt(len, ZERO));
    if (v128.any_true(fm0)) {
      const tx = DP(lTipDirLs + d3, la8, lb8), ty = DP(lTipDirLs + d3 + 32, la8, lb8), tz = DP(lTipDirLs + d3 + 64, la8, lb8);
      const dy = dot3(n10, n11, n12, tx, ty, tz);
      const fm = v128.and(fm0, lt(ad(hy, mu(len, dy)), F));
      if (v128.any_true(fm)) {
        // Back onto the floor circle, aimed with the least twist from rest.
        const dx = dot3(n00, n01, n02, tx, ty, tz), dz = dot3(n20, n21, n22, tx, ty, tz);
        // (the rest direction and rotation normalised in f64: float32 is unit to 1e-7 only)
        const ux0 = FP(lRestDirLs + o3, la, lb), uy0 = FP(lRestDirLs + o3 + 16, la, lb), uz0 = FP(lRestDirLs + o3 + 32, la, lb);
        const iu = dv(ONE, sq(dot3(ux0, uy0, uz0, ux0, uy0, uz0)));
        const ux = mu(ux0, iu), uy = mu(uy0, iu), uz = mu(uz0, iu);
        const rx = dot3(m00, m01, m02, ux, uy, uz), rz = dot3(m20, m21, m22, ux, uy, uz);
        let u = dv(sb(F, hy), len);
        u = sel(gt(u, ONE), ONE, sel(lt(u, sp(-1)), sp(-1), u));
        let hx2 = dx, hz2 = dz;
        let tl = sq(ad(mu(hx2, hx2), mu(hz2, hz2)));
        const t1 = lt(tl, TINY);
        hx2 = sel(t1, rx, hx2); hz2 = sel(t1, rz, hz2); tl = sel(t1, sq(ad(mu(rx, rx), mu(rz, rz))), tl);
        const t2 = lt(tl, TINY);
        hx2 = sel(t2, ZERO, hx2); hz2 = sel(t2, sp(-1), hz2); tl = sel(t2, ONE, tl);
        const cu = dv(sq(sb(ONE, mu(u, u))), tl);
        const fx = mu(cu, hx2), fy = u, fz = mu(cu, hz2);
        const ex = dot3(m00, m10, m20, fx, fy, fz);
        const ey = dot3(m01, m11, m21, fx, fy, fz);
        const ez = dot3(m02, m12, m22, fx, fy, fz);
        const dd = dot3(ux, uy, uz, ex, ey, ez);
        let sx = sb(mu(uy, ez), mu(uz, ey)), sy = sb(mu(uz, ex), mu(ux, ez)), sz = sb(mu(ux, ey), mu(uy, ex)), sw = ad(ONE, dd);
        const slen = dv(ONE, sq(ad(ad(ad(mu(sx, sx), mu(sy, sy)), mu(sz, sz)), mu(sw, sw))));
        sx = mu(sx, slen); sy = mu(sy, slen); sz = mu(sz, slen); sw = mu(sw, slen);
        const anti = lt(dd, ANTI);
        if (v128.any_true(anti)) {
          let qa = ZERO, qb = ng(uz), qc = uy;
          const deg = lt(ad(mu(qb, qb), mu(qc, qc)), EPS12);
          qa = sel(deg, uz, qa); qb = sel(deg, ZERO, qb); qc = sel(deg, ng(ux), qc);
          const pl = sq(dot3(qa, qb, qc, qa, qb, qc));
          sx = sel(anti, dv(qa, pl), sx); sy = sel(anti, dv(qb, pl), sy); sz = sel(anti, dv(qc, pl), sz); sw = sel(anti, ZERO, sw);
        }
        const q0 = FP(lRestR + o4, la, lb), q1 = FP(lRestR + o4 + 16, la, lb), q2 = FP(lRestR + o4 + 32, la, lb), q3 = FP(lRestR + o4 + 48, la, lb);
        const iq = dv(ONE, sq(ad(ad(ad(mu(q0, q0), mu(q1, q1)), mu(q2, q2)), mu(q3, q3))));
        const r0 = mu(q0, iq), r1 = mu(q1, iq), r2 = mu(q2, iq), r3 = mu(q3, iq);
        const flx = qmx(sx, sy, sz, sw, r0, r1, r2, r3), fly = qmy(sx, sy, sz, sw, r0, r1, r2, r3);
        const flz = qmz(sx, sy, sz, sw, r0, r1, r2, r3), flw = qmw(sx, sy, sz, sw, r0, r1, r2, r3);
        const fnx = qmx(qx, qy, qz, qw, flx, fly, flz, flw), fny = qmy(qx, qy, qz, qw, flx, fly, flz, flw);
        const fnz = qmz(qx, qy, qz, qw, flx, fly, flz, flw), fnw = qmw(qx, qy, qz, qw, flx, fly, flz, flw);
        const fx2 = ad(fnx, fnx), fy2 = ad(fny, fny), fz2 = ad(fnz, fnz);
        const fxx = mu(fnx, fx2), fxy = mu(fnx, fy2), fxz = mu(fnx, fz2), fyy = mu(fny, fy2), fyz = mu(fny, fz2), fzz = mu(fnz, fz2);
        const fwx = mu(fnw, fx2), fwy = mu(fnw, fy2), fwz = mu(fnw, fz2);
        lx = sel(fm, flx, lx); ly = sel(fm, fly, ly); lz = sel(fm, flz, lz); lw = sel(fm, flw, lw);
        nx = sel(fm, fnx, nx); ny = sel(fm, fny, ny); nz = sel(fm, fnz, nz); nw = sel(fm, fnw, nw);
        n00 = sel(fm, sb(ONE, ad(fyy, fzz)), n00); n01 = sel(fm, sb(fxy, fwz), n01); n02 = sel(fm, ad(fxz, fwy), n02);
        n10 = sel(fm, ad(fxy, fwz), n10); n11 = sel(fm, sb(ONE, ad(fxx, fzz)), n11); n12 = sel(fm, sb(fyz, fwx), n12);
        n20 = sel(fm, sb(fxz, fwy), n20); n21 = sel(fm, ad(fyz, fwx), n21); n22 = sel(fm, sb(ONE, ad(fxx, fyy)), n22);
      }
    }
    const slA = load<i32>(pSlot + (<usize>((gl << 2) + ja) << 2)), slB = load<i32>(pSlot + (<usize>((gl << 2) + jb) << 2));
    const sA = slA * 4, sB = slB * 4;
    // (16-byte stores, a chain's two neighbouring values each: half the stores of one per
    // value, so the store buffer holds twice the cache lines in flight — the write is bound by
    // its stores' memory traffic)
    Q2(lPoseLocalR, sA, sB, lx, ly, 0); Q2(lPoseLocalR, sA, sB, lz, lw, 2);
    const sc = mu(s, FP(lScaleRel + o1, la, lb));
    if (composeA && composeB) {
      const oA = slA * 16, oB = slB * 16;
      const sxv = mu(mxv, sc);
      Q2(lPoseWorldM, oA, oB, mu(n00, sxv), mu(n10, sc), 0); Q2(lPoseWorldM, oA, oB, mu(n20, sc), ZERO, 2);
      Q2(lPoseWorldM, oA, oB, mu(n01, sxv), mu(n11, sc), 4); Q2(lPoseWorldM, oA, oB, mu(n21, sc), ZERO, 6);
      Q2(lPoseWorldM, oA, oB, mu(n02, sxv), mu(n12, sc), 8); Q2(lPoseWorldM, oA, oB, mu(n22, sc), ZERO, 10);
      Q2(lPoseWorldM, oA, oB, mu(mxv, hx), hy, 12); Q2(lPoseWorldM, oA, oB, hz, ONE, 14);
    } else if (composeA || composeB) {
      const oA = slA * 16, oB = slB * 16;
      const sxv = mu(mxv, sc);
      storeLanes(pPoseWorldM, oA, oB, mu(n00, sxv), composeA, composeB);
      storeLanes(pPoseWorldM, oA + 1, oB + 1, mu(n10, sc), composeA, composeB);
      storeLanes(pPoseWorldM, oA + 2, oB + 2, mu(n20, sc), composeA, composeB);
      storeLanes(pPoseWorldM, oA + 3, oB + 3, ZERO, composeA, composeB);
      storeLanes(pPoseWorldM, oA + 4, oB + 4, mu(n01, sxv), composeA, composeB);
      storeLanes(pPoseWorldM, oA + 5, oB + 5, mu(n11, sc), composeA, composeB);
      storeLanes(pPoseWorldM, oA + 6, oB + 6, mu(n21, sc), composeA, composeB);
      storeLanes(pPoseWorldM, oA + 7, oB + 7, ZERO, composeA, composeB);
      storeLanes(pPoseWorldM, oA + 8, oB + 8, mu(n02, sxv), composeA, composeB);
      storeLanes(pPoseWorldM, oA + 9, oB + 9, mu(n12, sc), composeA, composeB);
      storeLanes(pPoseWorldM, oA + 10, oB + 10, mu(n22, sc), composeA, composeB);
      storeLanes(pPoseWorldM, oA + 11, oB + 11, ZERO, composeA, composeB);
      storeLanes(pPoseWorldM, oA + 12, oB + 12, mu(mxv, hx), composeA, composeB);
      storeLanes(pPoseWorldM, oA + 13, oB + 13, hy, composeA, composeB);
      storeLanes(pPoseWorldM, oA + 14, oB + 14, hz, composeA, composeB);
      storeLanes(pPoseWorldM, oA + 15, oB + 15, ONE, composeA, composeB);
    }
    qx = nx; qy = ny; qz = nz; qw = nw;
    m00 = n00; m01 = n01; m02 = n02; m10 = n10; m11 = n11; m12 = n12; m20 = n20; m21 = n21; m22 = n22;
    px = hx; py = hy; pz = hz; ps = sc;
  }
  const badA = f64x2.extract_lane(bad, 0) != 0, badB = f64x2.extract_lane(bad, 1) != 0;
  store<u8>(pWriteFailed + <usize>eA, badA ? 1 : 0);
  store<u8>(pWriteFailed + <usize>eB, badB ? 1 : 0);
  // The per-chain finish: both chains with a Tail_End helper to compose (the common case) as
  // a pair here, from the last link's world matrix still in registers; else finishChain each.
  if (!(composeA && !badA && liveA && composeB && !badB && liveB)) {
    finishChain(eA, composeA, badA);
    if (eB != eA) finishChain(eB, composeB, badB);
    return;
  }
  copyAnchor(aA);
  if (eB != eA) copyAnchor(aB);
  // composeTRS of the helpers' local T, R, S (finishChain's operations, a chain per lane)
  const r4A = endA * 4, r4B = endB * 4;
  const ex = G0(pPoseLocalR, r4A, r4B), ey = G1(pPoseLocalR, r4A, r4B), ez = G2(pPoseLocalR, r4A, r4B), ew = G3(pPoseLocalR, r4A, r4B);
  x2 = ad(ex, ex); y2 = ad(ey, ey); z2 = ad(ez, ez);
  xx = mu(ex, x2); xy = mu(ex, y2); xz = mu(ex, z2); yy = mu(ey, y2); yz = mu(ey, z2); zz = mu(ez, z2);
  wx = mu(ew, x2); wy = mu(ew, y2); wz = mu(ew, z2);
  const b00 = mu(sb(ONE, ad(yy, zz)), esx), b01 = mu(ad(xy, wz), esx), b02 = mu(sb(xz, wy), esx);
  const b10 = mu(sb(xy, wz), esy), b11 = mu(sb(ONE, ad(xx, zz)), esy), b12 = mu(ad(yz, wx), esy);
  const b20 = mu(ad(xz, wy), esz), b21 = mu(sb(yz, wx), esz), b22 = mu(sb(ONE, ad(xx, yy)), esz);
  // the parent (last link) world matrix as written above: columns (c_0 … c_3), rows 0–2
  const sxv = mu(mxv, ps);
  const c00 = mu(m00, sxv), c01 = mu(m10, ps), c02 = mu(m20, ps);
  const c10 = mu(m01, sxv), c11 = mu(m11, ps), c12 = mu(m21, ps);
  const c20 = mu(m02, sxv), c21 = mu(m12, ps), c22 = mu(m22, ps);
  const c30 = mu(mxv, px), c31 = py, c32 = pz;
  // mulAffine(worldM[end], parent, local), a column at a time (mulAffineColumn's operations)
  const oA = endA * 16, oB = endB * 16, W = pPoseWorldM;
  Q2(W, oA, oB, mac(c00, c10, c20, c30, b00, b01, b02, ZERO), mac(c01, c11, c21, c31, b00, b01, b02, ZERO), 0);
  Q2(W, oA, oB, mac(c02, c12, c22, c32, b00, b01, b02, ZERO), ZERO, 2);
  Q2(W, oA, oB, mac(c00, c10, c20, c30, b10, b11, b12, ZERO), mac(c01, c11, c21, c31, b10, b11, b12, ZERO), 4);
  Q2(W, oA, oB, mac(c02, c12, c22, c32, b10, b11, b12, ZERO), ZERO, 6);
  Q2(W, oA, oB, mac(c00, c10, c20, c30, b20, b21, b22, ZERO), mac(c01, c11, c21, c31, b20, b21, b22, ZERO), 8);
  Q2(W, oA, oB, mac(c02, c12, c22, c32, b20, b21, b22, ZERO), ZERO, 10);
  Q2(W, oA, oB, mac(c00, c10, c20, c30, b30, b31, b32, ONE), mac(c01, c11, c21, c31, b30, b31, b32, ONE), 12);
  Q2(W, oA, oB, mac(c02, c12, c22, c32, b30, b31, b32, ONE), ONE, 14);
}

/** a0·b0 + a1·b1 + a2·b2 + a3·b3, left to right (one row of {@link mulAffineColumn}, a chain per lane). */
@inline function mac(a0: v128, a1: v128, a2: v128, a3: v128, b0: v128, b1: v128, b2: v128, b3: v128): v128 {
  return ad(ad(ad(mu(a0, b0), mu(a1, b1)), mu(a2, b2)), mu(a3, b3));
}

/** anchorPrev ← anchorCur of the chain at a = eid·8 (four 16-byte moves). */
@inline function copyAnchor(a: i32): void {
  const s = pAnchorCur + (<usize>a << 3), d = pAnchorPrev + (<usize>a << 3);
  v128.store(d, v128.load(s)); v128.store(d, v128.load(s, 16), 16); v128.store(d, v128.load(s, 32), 32); v128.store(d, v128.load(s, 48), 48);
}

/** Whether chain e in lane j of group g is written this frame (initialised, its lane, whole; a chain with broken structure is turned off: `initialised` 0). */
function writable(e: i32, g: i32, j: i32, n: i32): bool {
  if (e < 0 || load<u8>(pInitialised + <usize>e) == 0) return false;
  if (load<i32>(pRow + (<usize>e << 2)) != g * 4 + j || linksOf(e) != n || !structureOk(e)) {
    store<u8>(pInitialised + <usize>e, 0);
    return false;
  }
  return true;
}

/** Write the chains of group g's lanes j, j + 1 (both, either alone, or none). */
function writeHalf(g: i32, j: i32, n: i32, al: f64): void {
  const eA = laneEnt(g, j), eB = laneEnt(g, j + 1);
  const okA = writable(eA, g, j, n), okB = writable(eB, g, j + 1, n);
  if (okA && okB) writeLanes(g, j, j + 1, eA, eB, al);
  else if (okA) writeLanes(g, j, j, eA, eA, al);
  else if (okB) writeLanes(g, j + 1, j + 1, eB, eB, al);
}

/**
 * How many of the `count` chains listed in `ents` the write left part of their finish to
 * JavaScript (systems/tailWrite.ts finishLeft: written, and without links, failed, with exact
 * world matrices or with a `Tail_End` helper that has children). After the write job.
 */
export function finishLeftCount(count: i32): i32 {
  let left = 0;
  for (let e = 0; e < count; e++) {
    const eid = load<i32>(pEnts + (<usize>e << 2));
    if (load<u8>(pInitialised + <usize>eid) == 0) continue;
    if (load<u8>(pLinks + <usize>eid) == 0 || load<u8>(pWriteFailed + <usize>eid) == 1 || load<u8>(pExactWorld + <usize>eid) == 1 ||
      (load<i32>(pEndSlot + (<usize>eid << 2)) >= 0 && load<u8>(pEndLeaf + <usize>eid) != 1)) left++;
  }
  return left;
}

/**
 * Write the chains of row groups [g0, g1) for the display fraction α = params[1]: each written
 * chain's links (a non-finite blend gives writeFailed = 1: the caller then writes the rest
 * fallback) and the common part of its finish. Groups are independent.
 */
export function tailWrite(g0: i32, g1: i32): void {
  const al = load<f64>(pParams + 8);
  for (let g = g0; g < g1; g++) {
    const e = laneEnt(g, 0) >= 0 ? laneEnt(g, 0) : laneEnt(g, 1) >= 0 ? laneEnt(g, 1) : laneEnt(g, 2) >= 0 ? laneEnt(g, 2) : laneEnt(g, 3);
    if (e < 0) continue;
    const n = linksOf(e);
    if (n == 0) continue;
    writeHalf(g, 0, n, al);
    writeHalf(g, 2, n, al);
  }
}

// ---------------------------------------------------------------------------------------------
// Tail clock preparation (the one implementation; systems/tailClock.ts finishes the rare
// cases): this frame's anchor from the pose store's world matrix of the chain's anchor bone,
// the step count, the exact-world flag and what the frame must do with the chain.

const REST_ANIMATION: u8 = 1; // = REST_ANIMATION in core/components/tail.ts

let pAnchorSlot: usize = 0, pResetLast: usize = 0, pExactWorldSetup: usize = 0, pRestSource: usize = 0, pTeleport: usize = 0, pSeatEase: usize = 0;
let pChar: usize = 0, poseSlots: u32 = 0, tailRows: u32 = 0;

/**
 * Byte offsets of the further arrays the clock preparation reads and writes, and the pose
 * store's slot count (setup, after every re-layout; with {@link setPointers} and
 * {@link setWritePointers}).
 */
export function setPreparePointers(
  anchorSlot: usize, resetLastFrame: usize, exactWorldSetup: usize, restSource: usize, teleportDistance: usize, seatEase: usize,
  char: usize, slots: i32, rows: i32,
): void {
  pAnchorSlot = anchorSlot; pResetLast = resetLastFrame; pExactWorldSetup = exactWorldSetup; pRestSource = restSource;
  pTeleport = teleportDistance; pSeatEase = seatEase; pChar = char; poseSlots = <u32>slots; tailRows = <u32>rows;
}

/** Chain eid's row lies inside the per-link arrays (see {@link structureOk}). */
@inline function rowOk(eid: i32): bool { return <u32>load<i32>(pRow + (<usize>eid << 2)) < tailRows; }

/**
 * Whether chain eid's structure lies inside the layout (core/tailKernel.ts tailStructureOk,
 * the same tests): at most MAX_LINKS links, a row inside the per-link arrays, every link's bone
 * slot and the `Tail_End` helper's (or -1) inside the pose store. bitrig's setup never writes
 * others; a chain whose fields were overwritten outside them is not grouped for the step
 * (links), steps nothing (row: stepGroupBegin) and is written nothing ({@link writePair}, which
 * also turns it off: `initialised` 0, so that JavaScript prepares it next frame and keeps it off
 * while the fields stay so). The kernels never read or write outside their arrays for it (nor
 * trap). Tested where the fields are read anyway: the write reads the slots again at once.
 */
function structureOk(eid: i32): bool {
  const n = <i32>load<u8>(pLinks + <usize>eid), row = load<i32>(pRow + (<usize>eid << 2));
  if (n > MAX_LINKS || <u32>row >= tailRows) return false;
  const end = load<i32>(pEndSlot + (<usize>eid << 2));
  if (end < -1 || (end >= 0 && <u32>end >= poseSlots)) return false;
  for (let i = 0; i < n; i++) if (<u32>load<i32>(pSlot + (<usize>LQ(row, i) << 2)) >= poseSlots) return false;
  return true;
}

/** Chain eid's link count, 0 when it is beyond MAX_LINKS (such a chain is never grouped for the step). */
@inline function linksOf(eid: i32): i32 {
  const n = <i32>load<u8>(pLinks + <usize>eid);
  return n <= MAX_LINKS ? n : 0;
}

/**
 * Whether chain eid's anchor bone is a pose slot its character still owns: a slot outside the
 * store, or one released or given to another character, makes the chain simulate and write
 * nothing ({@link prepareChain}). The kernel then never reads or writes outside the pose store
 * for it.
 */
@inline function anchorOwned(eid: i32): bool {
  const a = load<i32>(pAnchorSlot + (<usize>eid << 2));
  return <u32>a < poseSlots && load<i32>(pPoseOwner + (<usize>a << 2)) == load<i32>(pChar + (<usize>eid << 2));
}

/**
 * Prepare the `count` chains listed in `ents` for a frame of `steps` internal steps
 * ({@link prepareChain}, two at a time where both are in the common case: initialised, rest not
 * from the animation, no seat easing out, a finite anchor of non-zero scale, mirrored as it
 * was, no teleport). The chains with something left for JavaScript (a reset or re-seat, the
 * clip's rest pose, a seat's ease) are listed at the front of `ents`. Returns how many.
 */
export function prepareChains(count: i32, steps: i32): i32 {
  return prepareList(pEnts, 0, count, steps);
}

/**
 * {@link prepareChains} for entries `from` … `to` − 1 of the i32 chain list at byte `list`
 * (a worker's chunk of the prepare job): the chains left to JavaScript are listed from entry
 * `from` on. Returns how many were left. Threads may run disjoint ranges at once (each chain's
 * own data only).
 */
export function prepareList(list: usize, from: i32, to: i32, steps: i32): i32 {
  let left = 0, e = from;
  const out = list + (<usize>from << 2);
  // two at a time (preparePair), each alone where the pair's fast path does not apply
  for (; e + 1 < to; e += 2) {
    const eA = load<i32>(list + (<usize>e << 2)), eB = load<i32>(list + (<usize>(e + 1) << 2));
    if (preparePair(eA, eB, steps)) continue;
    if (!prepareChain(eA, steps)) { store<i32>(out + (<usize>left << 2), eA); left++; }
    if (!prepareChain(eB, steps)) { store<i32>(out + (<usize>left << 2), eB); left++; }
  }
  if (e < to) {
    const eid = load<i32>(list + (<usize>e << 2));
    if (!prepareChain(eid, steps)) { store<i32>(out + (<usize>left << 2), eid); left++; }
  }
  return left;
}

/** Whether chain eid may take {@link prepareChain}'s common case (its flags and anchor slot; the anchor's matrix is checked later). */
@inline function prepareable(eid: i32): bool {
  return load<u8>(pInitialised + <usize>eid) == 1 && load<u8>(pRestSource + <usize>eid) != REST_ANIMATION && !(L(pSeatEase, eid) > 0) && anchorOwned(eid);
}

/**
 * {@link prepareChain} for two chains at once, one per f64x2 lane (the same operations lane
 * by lane: the same results), when both are in its common case with a positive trace (the
 * first branch of Shepperd's matrix-to-quaternion: an anchor turned less than 180°); `false`, having written
 * nothing, otherwise.
 */
function preparePair(eA: i32, eB: i32, steps: i32): bool {
  if (eA == eB || !prepareable(eA) || !prepareable(eB)) return false;
  const moA = load<i32>(pAnchorSlot + (<usize>eA << 2)) * 16, moB = load<i32>(pAnchorSlot + (<usize>eB << 2)) * 16;
  const W = pPoseWorldM;
  const m00 = G0(W, moA, moB), m01 = G1(W, moA, moB), m02 = G2(W, moA, moB);
  const m10 = G4(W, moA, moB), m11 = G5(W, moA, moB), m12 = G6(W, moA, moB);
  const m20 = G8(W, moA, moB), m21 = G9(W, moA, moB), m22 = G10(W, moA, moB);
  const tx = G12(W, moA, moB), ty = G13(W, moA, moB), tz = G14(W, moA, moB);
  // anchorFromMatrix
  const sx2 = ad(ad(mu(m00, m00), mu(m01, m01)), mu(m02, m02));
  const sy2 = ad(ad(mu(m10, m10), mu(m11, m11)), mu(m12, m12));
  const sz2 = ad(ad(mu(m20, m20), mu(m21, m21)), mu(m22, m22));
  let sx = sq(sx2);
  const sy = sq(sy2), sz = sq(sz2);
  const det = ad(sb(mu(m00, sb(mu(m11, m22), mu(m12, m21))), mu(m10, sb(mu(m01, m22), mu(m02, m21)))), mu(m20, sb(mu(m01, m12), mu(m02, m11))));
  // (finite: x − x is 0 for a finite x, NaN for ±Inf and NaN)
  const tsum = ad(ad(tx, ty), tz);
  const fin = v128.and(f64x2.eq(sb(det, det), sp(0)), f64x2.eq(sb(tsum, tsum), sp(0)));
  const TINY = sp(1e-12);
  const pos = v128.and(v128.and(gt(sx, TINY), gt(sy, TINY)), gt(sz, TINY));
  const neg = lt(det, sp(0));
  const mirA: u8 = f64x2.extract_lane(det, 0) < 0 ? 1 : 0, mirB: u8 = f64x2.extract_lane(det, 1) < 0 ? 1 : 0;
  if (!i64x2.all_true(v128.and(fin, pos)) || load<u8>(pMirrored + <usize>eA) != mirA || load<u8>(pMirrored + <usize>eB) != mirB) return false;
  sx = sel(neg, ng(sx), sx);
  // the rotation of the rows (m00/sx, m10/sy, m20/sz), (m01/sx, m11/sy, m21/sz), (m02/sx, m12/sy, m22/sz): Shepperd's first case
  const r00 = dv(m00, sx), r01 = dv(m10, sy), r02 = dv(m20, sz);
  const r10 = dv(m01, sx), r11 = dv(m11, sy), r12 = dv(m21, sz);
  const r20 = dv(m02, sx), r21 = dv(m12, sy), r22 = dv(m22, sz);
  const tr = ad(ad(r00, r11), r22);
  if (!i64x2.all_true(gt(tr, sp(0)))) return false;
  const S2 = mu(sq(ad(tr, sp(1))), sp(2));
  const w = mu(sp(0.25), S2), x = dv(sb(r21, r12), S2), y = dv(sb(r02, r20), S2), z = dv(sb(r10, r01), S2);
  const l = dv(sp(1), sq(ad(ad(ad(mu(x, x), mu(y, y)), mu(z, z)), mu(w, w))));
  let qx = mu(x, l), qy = mu(y, l), qz = mu(z, l);
  const qw = mu(w, l);
  let px = tx;
  // (the world reflected across x = 0: P·R·P is (x, −y, −z, w))
  px = sel(neg, ng(px), px); qy = sel(neg, ng(qy), qy); qz = sel(neg, ng(qz), qz);
  // teleport: JavaScript resets the chain
  const aA = eA * 8, aB = eB * 8;
  const dx = sb(px, G0(pAnchorPrev, aA, aB)), dy = sb(ty, G1(pAnchorPrev, aA, aB)), dz = sb(tz, G2(pAnchorPrev, aA, aB));
  const lim = mu(G0(pTeleport, eA, eB), G0(pUnitScale, eA, eB));
  if (v128.any_true(gt(ad(ad(mu(dx, dx), mu(dy, dy)), mu(dz, dz)), mu(lim, lim)))) return false;
  P0(pAnchorCur, aA, aB, px); P1(pAnchorCur, aA, aB, ty); P2(pAnchorCur, aA, aB, tz);
  P3(pAnchorCur, aA, aB, qx); P4(pAnchorCur, aA, aB, qy); P5(pAnchorCur, aA, aB, qz); P6(pAnchorCur, aA, aB, qw);
  S(pAnchorCur, aA + 7, Math.cbrt(Math.abs(f64x2.extract_lane(det, 0))));
  S(pAnchorCur, aB + 7, Math.cbrt(Math.abs(f64x2.extract_lane(det, 1))));
  store<u8>(pResetLast + <usize>eA, 0); store<u8>(pResetLast + <usize>eB, 0);
  store<u8>(pSteps + <usize>eA, <u8>steps); store<u8>(pSteps + <usize>eB, <u8>steps);
  // a non-uniformly scaled anchor sends the tail's world matrices through the pose store
  const e9 = mu(sp(1e-9), sx2);
  const uni = v128.and(f64x2.le(f64x2.abs(sb(sx2, sy2)), e9), f64x2.le(f64x2.abs(sb(sx2, sz2)), e9));
  store<u8>(pExactWorld + <usize>eA, i64x2.extract_lane(uni, 0) != 0 ? load<u8>(pExactWorldSetup + <usize>eA) : 1);
  store<u8>(pExactWorld + <usize>eB, i64x2.extract_lane(uni, 1) != 0 ? load<u8>(pExactWorldSetup + <usize>eB) : 1);
  return true;
}

/**
 * {@link prepareChains} for one chain, whatever its case: this frame's anchor (position,
 * rotation, uniform scale; reflected across x = 0 while the anchor is mirrored), the step
 * count, the exact-world flag, and the decisions: a chain whose anchor bone is not its
 * character's, whose structure lies outside the layout, or whose anchor matrix is not finite
 * or degenerate simulates and writes nothing this frame (`stepsLastFrame` 0, `initialised` 0);
 * a chain seen for the first time, whose anchor's mirroring changed, or that jumped further
 * than its teleport distance is marked for a reset (`resetLastFrame` 1). Returns `true` when
 * nothing is left, `false` when JavaScript has the rest to do (systems/tailClock.ts
 * tailFinishPrepare: the reset or re-seat, the clip's rest pose, a seat's ease).
 */
function prepareChain(eid: i32, steps: i32): bool {
  store<u8>(pResetLast + <usize>eid, 0);
  if (!anchorOwned(eid) || !structureOk(eid)) return skipChain(eid);
  const mo = load<i32>(pAnchorSlot + (<usize>eid << 2)) * 16;
  const m00 = L(pPoseWorldM, mo), m01 = L(pPoseWorldM, mo + 1), m02 = L(pPoseWorldM, mo + 2);
  const m10 = L(pPoseWorldM, mo + 4), m11 = L(pPoseWorldM, mo + 5), m12 = L(pPoseWorldM, mo + 6);
  const m20 = L(pPoseWorldM, mo + 8), m21 = L(pPoseWorldM, mo + 9), m22 = L(pPoseWorldM, mo + 10);
  const tx = L(pPoseWorldM, mo + 12), ty = L(pPoseWorldM, mo + 13), tz = L(pPoseWorldM, mo + 14);
  // the anchor from its world matrix: position, rotation (the rows divided by the column
  // scales, the x column negated when the determinant is negative), uniform scale ∛|det|
  const sx2 = m00 * m00 + m01 * m01 + m02 * m02, sy2 = m10 * m10 + m11 * m11 + m12 * m12, sz2 = m20 * m20 + m21 * m21 + m22 * m22;
  let sx = Math.sqrt(sx2);
  const sy = Math.sqrt(sy2), sz = Math.sqrt(sz2);
  const det = m00 * (m11 * m22 - m12 * m21) - m10 * (m01 * m22 - m02 * m21) + m20 * (m01 * m12 - m02 * m11);
  if (!isFinite<f64>(det) || !isFinite<f64>(tx + ty + tz)) return skipChain(eid);
  if (!(sx > 1e-12 && sy > 1e-12 && sz > 1e-12)) return skipChain(eid);
  const mir: u8 = det < 0 ? 1 : 0;
  if (det < 0) sx = -sx;
  const r00 = m00 / sx, r01 = m10 / sy, r02 = m20 / sz;
  const r10 = m01 / sx, r11 = m11 / sy, r12 = m21 / sz;
  const r20 = m02 / sx, r21 = m12 / sy, r22 = m22 / sz;
  shepperdQ(r00, r01, r02, r10, r11, r12, r20, r21, r22);
  const x = QM.qx, y = QM.qy, z = QM.qz, w = QM.qw;
  const l = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  let qx = x * l, qy = y * l, qz = z * l;
  const qw = w * l;
  let px = tx;
  // (a mirrored anchor M = T·R·S·X, X = diag(−1, 1, 1): the chain simulates in the world
  // reflected across x = 0, where P·M is a proper frame; P·R·P is (x, −y, −z, w))
  if (mir == 1) { px = -px; qy = -qy; qz = -qz; }
  const a = eid * 8;
  S(pAnchorCur, a, px); S(pAnchorCur, a + 1, ty); S(pAnchorCur, a + 2, tz);
  S(pAnchorCur, a + 3, qx); S(pAnchorCur, a + 4, qy); S(pAnchorCur, a + 5, qz); S(pAnchorCur, a + 6, qw);
  S(pAnchorCur, a + 7, Math.cbrt(Math.abs(det)));
  store<u8>(pSteps + <usize>eid, <u8>steps);
  // a non-uniformly scaled anchor sends the tail's world matrices through the pose store
  const uniform = Math.abs(sx2 - sy2) <= 1e-9 * sx2 && Math.abs(sx2 - sz2) <= 1e-9 * sx2;
  store<u8>(pExactWorld + <usize>eid, uniform ? load<u8>(pExactWorldSetup + <usize>eid) : 1);
  // the particles live in the other space after a mirroring change: start again at rest
  if (load<u8>(pMirrored + <usize>eid) != mir) { store<u8>(pMirrored + <usize>eid, mir); store<u8>(pInitialised + <usize>eid, 0); }
  let done = load<u8>(pRestSource + <usize>eid) != REST_ANIMATION && !(L(pSeatEase, eid) > 0);
  if (load<u8>(pInitialised + <usize>eid) != 1) {
    store<u8>(pResetLast + <usize>eid, 1); done = false;
  } else {
    // a teleport resets the chain instead of whipping it
    const dx = px - L(pAnchorPrev, a), dy = ty - L(pAnchorPrev, a + 1), dz = tz - L(pAnchorPrev, a + 2);
    const lim = L(pTeleport, eid) * L(pUnitScale, eid);
    if (dx * dx + dy * dy + dz * dz > lim * lim) { store<u8>(pResetLast + <usize>eid, 1); done = false; }
  }
  return done;
}

/** A chain without a usable anchor or structure this frame: it simulates and writes nothing (returns `true`: nothing left). */
function skipChain(eid: i32): bool {
  store<u8>(pSteps + <usize>eid, 0);
  store<u8>(pInitialised + <usize>eid, 0);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Tail clock per step (systems/tailClock.ts tailClockStep): each chain's anchor at the step's
// time t, bit-identical (the same operations; the slerp of core/qmath.ts qSlerpAt, its
// normalised-lerp case).

/**
 * `anchorStep` of the `count` chains listed in `ents` (those with a step pending) at the
 * step's time t: position and scale interpolated, rotation as qSlerpAt does for rotations
 * within its lerp threshold (cos > 0.9995, the common case). A chain whose rotation needs the
 * full slerp (acos and sin: JavaScript's own) gets the position and scale here and is listed
 * at the front of `ents` for JavaScript to finish. Returns how many were left.
 */
export function anchorSteps(count: i32): i32 {
  const t = load<f64>(pParams + 16); // (the step's time, params[2])
  let left = 0;
  const u = 1 - t;
  for (let e = 0; e < count; e++) {
    const eid = load<i32>(pEnts + (<usize>e << 2));
    if (load<u8>(pSteps + <usize>eid) == 0) continue;
    const a = eid * 8;
    S(pAS, a, u * L(pAnchorPrev, a) + t * L(pAnchorCur, a));
    S(pAS, a + 1, u * L(pAnchorPrev, a + 1) + t * L(pAnchorCur, a + 1));
    S(pAS, a + 2, u * L(pAnchorPrev, a + 2) + t * L(pAnchorCur, a + 2));
    S(pAS, a + 7, u * L(pAnchorPrev, a + 7) + t * L(pAnchorCur, a + 7));
    const ax = L(pAnchorPrev, a + 3), ay = L(pAnchorPrev, a + 4), az = L(pAnchorPrev, a + 5), aw = L(pAnchorPrev, a + 6);
    let bx = L(pAnchorCur, a + 3), by = L(pAnchorCur, a + 4), bz = L(pAnchorCur, a + 5), bw = L(pAnchorCur, a + 6);
    let cos = ax * bx + ay * by + az * bz + aw * bw;
    if (cos < 0) { cos = -cos; bx = -bx; by = -by; bz = -bz; bw = -bw; }
    if (!(cos > 0.9995)) { store<i32>(pEnts + (<usize>left << 2), eid); left++; continue; }
    const s0 = 1 - t, s1 = t;
    let x = s0 * ax + s1 * bx, y = s0 * ay + s1 * by, z = s0 * az + s1 * bz, w = s0 * aw + s1 * bw;
    const l = Math.sqrt(x * x + y * y + z * z + w * w);
    if (l > 1e-15) { x /= l; y /= l; z /= l; w /= l; } else { x = 0; y = 0; z = 0; w = 1; }
    S(pAS, a + 3, x); S(pAS, a + 4, y); S(pAS, a + 5, z); S(pAS, a + 6, w);
  }
  return left;
}

// ---------------------------------------------------------------------------------------------
// Collider placement (systems/tailColliders.ts calls these; the frame's and each step's world
// shapes the tailCollide stage reads). Scalar f64, in the order the colliders are listed.

let pColList: usize = 0, pCStamp: usize = 0, pCSlot: usize = 0, pCChar: usize = 0, pCFresh: usize = 0, pCRef: usize = 0;
/** The frame number of the last {@link placeColliders}; a collider's stamp (`pCStamp`) says when it was last placed. */
let placeFrame: i32 = 0;
let pShapeLs: usize = 0, pShapePrev: usize = 0, pShapeCur: usize = 0, pRelPrev: usize = 0;

/** Byte offsets of the collider placement's arrays (setup, after every re-layout). */
export function setColliderPlacePointers(
  list: usize, stamp: usize, slot: usize, char: usize, fresh: usize, refSlot: usize,
  shapeLs: usize, shapePrev: usize, shapeCur: usize, relPrev: usize,
): void {
  pColList = list; pCStamp = stamp; placeFrame = 0; pCSlot = slot; pCChar = char; pCFresh = fresh; pCRef = refSlot;
  pShapeLs = shapeLs; pShapePrev = shapePrev; pShapeCur = shapeCur; pRelPrev = relPrev;
}

/**
 * The frame's world shapes of the `count` colliders listed (call once a frame, before the
 * steps, once the pose store's world matrices are final): `shapePrev` ← `shapeCur` ← the
 * ends through the bone's world matrix, the radius × the bone's scale (the mean length of its
 * axes), and the lead ({@link placeLead}). A collider whose character no longer owns its bone,
 * or whose shape is not finite, gets radius −1 (inert). A collider of a chain's list that this
 * call does not list (its entity removed behind bitrig's back) is skipped by the step.
 */
export function placeColliders(count: i32): void {
  placeFrame = placeFrame == 0x7fffffff ? 1 : placeFrame + 1;
  for (let i = 0; i < count; i++) {
    const c = load<i32>(pColList + (<usize>i << 2));
    store<i32>(pCStamp + (<usize>c << 2), placeFrame);
    placeCollider(c);
  }
}

function placeCollider(c: i32): void {
  const o = c * SHAPE_STRIDE, l = c * 7;
  const po = pShapePrev + (<usize>o << 3), co = pShapeCur + (<usize>o << 3);
  v128.store(po, v128.load(co)); v128.store(po, v128.load(co, 16), 16); v128.store(po, v128.load(co, 32), 32); v128.store(po, v128.load(co, 48), 48);
  const slot = load<i32>(pCSlot + (<usize>c << 2)), ch = load<i32>(pCChar + (<usize>c << 2));
  if (!(ch >= 0 && slot >= 0 && <u32>slot < poseSlots && load<i32>(pPoseOwner + (<usize>slot << 2)) == ch)) {
    S(pShapeCur, o + 6, -1); S(pShapePrev, o + 6, -1); store<u8>(pCFresh + <usize>c, 1);
    return;
  }
  // the ends a and b as the two lanes, through the bone's world matrix
  const m = slot * 16, W = pPoseWorldM;
  const m0 = L(W, m), m1 = L(W, m + 1), m2 = L(W, m + 2), m4 = L(W, m + 4), m5 = L(W, m + 5), m6 = L(W, m + 6);
  const m8 = L(W, m + 8), m9 = L(W, m + 9), m10 = L(W, m + 10);
  const lx = G0(pShapeLs, l, l + 3), ly = G1(pShapeLs, l, l + 3), lz = G2(pShapeLs, l, l + 3);
  const X = ad(ad(ad(mu(sp(m0), lx), mu(sp(m4), ly)), mu(sp(m8), lz)), sp(L(W, m + 12)));
  const Y = ad(ad(ad(mu(sp(m1), lx), mu(sp(m5), ly)), mu(sp(m9), lz)), sp(L(W, m + 13)));
  const Z = ad(ad(ad(mu(sp(m2), lx), mu(sp(m6), ly)), mu(sp(m10), lz)), sp(L(W, m + 14)));
  P0(pShapeCur, o, o + 3, X); P1(pShapeCur, o, o + 3, Y); P2(pShapeCur, o, o + 3, Z);
  // (the bone's scale: the mean length of its axes, as the tail setup's uniform scale)
  const r0 = L(pShapeLs, l + 6) * (Math.sqrt(m0 * m0 + m1 * m1 + m2 * m2) + Math.sqrt(m4 * m4 + m5 * m5 + m6 * m6) + Math.sqrt(m8 * m8 + m9 * m9 + m10 * m10)) * (1.0 / 3.0);
  const ax = f64x2.extract_lane(X, 0), by = f64x2.extract_lane(Y, 1);
  const r = r0 > 0 && r0 < Infinity && ax - ax == 0 && by - by == 0 ? r0 : -1; // (non-finite: inert)
  S(pShapeCur, o + 6, r);
  const fresh = load<u8>(pCFresh + <usize>c) == 1;
  S(pShapeCur, o + 7, placeLead(c, r, X, Y, Z, fresh));
  if (fresh) { v128.store(po, v128.load(co)); v128.store(po, v128.load(co, 16), 16); v128.store(po, v128.load(co, 32), 32); v128.store(po, v128.load(co, 48), 48); store<u8>(pCFresh + <usize>c, 0); }
}

/**
 * Collider c's lead this frame (0 when it has no reference or is fresh): how far its ends
 * (world, the lanes of X, Y, Z; radius r) moved in the frame of `refSlot` (its tails' anchor)
 * against last frame's (`relPrev`, updated here), at most the radius. The reference frame is
 * taken as a rotation and uniform scale s (inverse Mᵀ/s², s² from its first column): the lead
 * is a margin, not a contact.
 */
@inline function placeLead(c: i32, r: f64, X: v128, Y: v128, Z: v128, fresh: bool): f64 {
  const ref = load<i32>(pCRef + (<usize>c << 2)), q = c * 6, W = pPoseWorldM;
  if (!(r > 0) || !(ref >= 0 && <u32>ref < poseSlots)) return 0;
  const m = ref * 16;
  const m0 = L(W, m), m1 = L(W, m + 1), m2 = L(W, m + 2);
  const s2 = m0 * m0 + m1 * m1 + m2 * m2;
  if (!(s2 > 1e-24)) return 0;
  const is2 = sp(1 / s2);
  const x = sb(X, sp(L(W, m + 12))), y = sb(Y, sp(L(W, m + 13))), z = sb(Z, sp(L(W, m + 14)));
  const rx = mu(ad(ad(mu(sp(m0), x), mu(sp(m1), y)), mu(sp(m2), z)), is2);
  const ry = mu(ad(ad(mu(sp(L(W, m + 4)), x), mu(sp(L(W, m + 5)), y)), mu(sp(L(W, m + 6)), z)), is2);
  const rz = mu(ad(ad(mu(sp(L(W, m + 8)), x), mu(sp(L(W, m + 9)), y)), mu(sp(L(W, m + 10)), z)), is2);
  const dx = sb(rx, G0(pRelPrev, q, q + 3)), dy = sb(ry, G1(pRelPrev, q, q + 3)), dz = sb(rz, G2(pRelPrev, q, q + 3));
  P0(pRelPrev, q, q + 3, rx); P1(pRelPrev, q, q + 3, ry); P2(pRelPrev, q, q + 3, rz);
  if (fresh) return 0;
  const dd = ad(ad(mu(dx, dx), mu(dy, dy)), mu(dz, dz));
  const da = f64x2.extract_lane(dd, 0), db = f64x2.extract_lane(dd, 1);
  const d2 = (db > da ? db : da) * s2; // (back to world units, squared)
  return d2 < r * r ? Math.sqrt(d2) : r; // (at most the radius; NaN: the radius)
}

