// AssemblyScript source of the WebAssembly tail step (`npm run build:wasm` compiles it into
// core/wasm/tailStepWasm.ts; test/tail/wasm.test.ts checks that the two agree).
//
// The same maths as systems/tailStep.ts (the reference, and the fallback where WebAssembly
// SIMD is missing), written for two chains at a time: every number is an f64x2 pair, lane 0
// one chain, lane 1 another with the same link count. Branches of the scalar code become
// lane selects of the very same IEEE operations, so both paths give bit-identical results
// (test/tail/wasm.test.ts compares them exactly). The rare floor contact runs per lane.
//
// Memory: the world's tail components (TailChain, TailParticle, BendState) are views into
// this instance's memory (core/wasm/tailAccel.ts lays them out); `setPointers` gives their
// byte offsets. The caller keeps each chain's `stepCache` current (the exponentials, computed
// with JavaScript's Math.exp so both paths agree) and lists the entity ids to step (`ents`, i32)
// and the step length h (`params[0]`, seconds); per chain and step the kernel first fills a
// 16-f64 record (`chainK`, by entity id; core/tailKernel.ts chainStepConstants):
//   0 f0 (Hz), 1 df (Hz per link), 2 2ζ, 3..5 forward axis F (world), 6 gravity (units/s²),
//   7 coupling α, 8 cos(θmax/2), 9 sin(θmax/2), 10 floor on (0/1), 11 floor height F + ρ,
//   12..13 backward horizontal (x, z), 14 contact damping e^(−γΔt)

const LINK_STRIDE: i32 = 9; // = LINK_STRIDE in core/components/tail.ts

let pAS: usize = 0, pLinks: usize = 0, pRow: usize = 0, pSteps: usize = 0;
let pHeadLs: usize = 0, pRestDirLs: usize = 0, pLenRel: usize = 0, pScaleRel: usize = 0;
let pRestR: usize = 0, pLocalCur: usize = 0, pLocalPrev: usize = 0, pToHipsM: usize = 0;
let pRestDirHs: usize = 0, pBendOld: usize = 0, pBendNew: usize = 0;
let pPos: usize = 0, pVel: usize = 0, pContact: usize = 0, pChainK: usize = 0, pEnts: usize = 0, pPending: usize = 0, pParams: usize = 0, pPairs: usize = 0;
let pAxesLs: usize = 0, pFrequency: usize = 0, pTipRatio: usize = 0, pDamping: usize = 0, pGravity: usize = 0, pUnitScale: usize = 0;
let pFloorY: usize = 0, pFloorClearance: usize = 0, pFloorEnabled: usize = 0, pStepCache: usize = 0;

/** Byte offsets of the arrays the step reads and writes (setup, after every re-layout). */
export function setPointers(
  anchorStep: usize, links: usize, row: usize, steps: usize, headLs: usize, restDirLs: usize, lenRel: usize, scaleRel: usize,
  restR: usize, localCur: usize, localPrev: usize, toHipsM: usize, restDirHs: usize, bendOld: usize, bendNew: usize,
  pos: usize, vel: usize, contact: usize,
  axesLs: usize, frequency: usize, tipRatio: usize, damping: usize, gravity: usize, unitScale: usize,
  floorY: usize, floorClearance: usize, floorEnabled: usize, stepCache: usize,
  chainK: usize, ents: usize, pending: usize, params: usize, pairs: usize,
): void {
  pAS = anchorStep; pLinks = links; pRow = row; pSteps = steps; pHeadLs = headLs; pRestDirLs = restDirLs; pLenRel = lenRel;
  pScaleRel = scaleRel; pRestR = restR; pLocalCur = localCur; pLocalPrev = localPrev; pToHipsM = toHipsM; pRestDirHs = restDirHs;
  pBendOld = bendOld; pBendNew = bendNew; pPos = pos; pVel = vel; pContact = contact; pChainK = chainK; pEnts = ents; pPending = pending;
  pParams = params; pPairs = pairs;
  pAxesLs = axesLs; pFrequency = frequency; pTipRatio = tipRatio; pDamping = damping; pGravity = gravity; pUnitScale = unitScale;
  pFloorY = floorY; pFloorClearance = floorClearance; pFloorEnabled = floorEnabled; pStepCache = stepCache;
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
/** Components of the quaternion product a·b (x, y, z, w), in the JavaScript step's operation order. */
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

// ---- floor contact (one lane; systems/floorContact.ts + floorDirection + qSwingUnit)
let gDpx: f64 = 0, gDpy: f64 = 0, gDpz: f64 = 0;

function floorResolve(
  k: i32, m00: f64, m01: f64, m02: f64, m10: f64, m11: f64, m12: f64, m20: f64, m21: f64, m22: f64,
  hx: f64, hy: f64, hz: f64, rx: f64, rz: f64, dx0: f64, dz0: f64, len: f64, F: f64, bkx: f64, bkz: f64, damp: f64,
): void {
  // floorDirection
  let u = (F - hy) / len;
  if (u > 1) u = 1; else if (u < -1) u = -1;
  let tx = dx0, tz = dz0;
  let tl = Math.sqrt(tx * tx + tz * tz);
  if (tl < 1e-9) { tx = rx; tz = rz; tl = Math.sqrt(tx * tx + tz * tz); }
  if (tl < 1e-9) {
    tx = bkx; tz = bkz; tl = Math.sqrt(tx * tx + tz * tz);
    if (!(tl > 0)) tl = 1; // (JS `|| 1`: 0 or NaN; a square root is never negative)
  }
  const c = Math.sqrt(1 - u * u);
  const dx = (c * tx) / tl, dy = u, dz = (c * tz) / tl;
  const k3 = k * 3;
  S(pPos, k3, hx + len * dx); S(pPos, k3 + 1, hy + len * dy); S(pPos, k3 + 2, hz + len * dz);
  let vx = L(pVel, k3), vy = L(pVel, k3 + 1), vz = L(pVel, k3 + 2);
  const vr = vx * dx + vy * dy + vz * dz;
  vx -= vr * dx; vy -= vr * dy; vz -= vr * dz;
  if (vy < 0) vy = 0;
  S(pVel, k3, vx * damp); S(pVel, k3 + 1, vy * damp); S(pVel, k3 + 2, vz * damp);
  store<u8>(pContact + <usize>k, 1);
  const ux = m00 * dx + m10 * dy + m20 * dz;
  const uy = m01 * dx + m11 * dy + m21 * dz;
  const uz = m02 * dx + m12 * dy + m22 * dz;
  gDpx = ux; gDpy = uy; gDpz = uz;
  const m = k * 9;
  const bx = L(pToHipsM, m) * ux + L(pToHipsM, m + 1) * uy + L(pToHipsM, m + 2) * uz;
  const by = L(pToHipsM, m + 3) * ux + L(pToHipsM, m + 4) * uy + L(pToHipsM, m + 5) * uz;
  const bz = L(pToHipsM, m + 6) * ux + L(pToHipsM, m + 7) * uy + L(pToHipsM, m + 8) * uz;
  // qSwingUnit(bendNew[k], restDirHs[k], b)
  const ax = L(pRestDirHs, k3), ay = L(pRestDirHs, k3 + 1), az = L(pRestDirHs, k3 + 2);
  const d = ax * bx + ay * by + az * bz;
  const k4 = k * 4;
  if (d < -0.999999999) {
    let px: f64 = 0, py = -az, pz = ay;
    if (py * py + pz * pz < 1e-12) { px = az; py = 0; pz = -ax; }
    const lp = Math.sqrt(px * px + py * py + pz * pz);
    S(pBendNew, k4, px / lp); S(pBendNew, k4 + 1, py / lp); S(pBendNew, k4 + 2, pz / lp); S(pBendNew, k4 + 3, 0);
    return;
  }
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  const w = 1 + d;
  const l = Math.sqrt(cx * cx + cy * cy + cz * cz + w * w);
  S(pBendNew, k4, cx / l); S(pBendNew, k4 + 1, cy / l); S(pBendNew, k4 + 2, cz / l); S(pBendNew, k4 + 3, w / l);
}

/**
 * One step of chains eA and eB (same link count). With eA == eB (`dup`) both lanes compute the
 * same chain; the floor contact then runs once.
 */
function stepPair(eA: i32, eB: i32, h: f64): void {
  const lAS = pAS, lBendNew = pBendNew, lBendOld = pBendOld, lChainK = pChainK, lHeadLs = pHeadLs, lLenRel = pLenRel, lLocalCur = pLocalCur, lLocalPrev = pLocalPrev, lPos = pPos, lRestDirHs = pRestDirHs, lRestDirLs = pRestDirLs, lRestR = pRestR, lScaleRel = pScaleRel, lToHipsM = pToHipsM, lVel = pVel; // (the pointers as locals: one load each)
  const dup = eA == eB;
  const H = sp(h), ONE = sp(1), ZERO = sp(0), TWO = sp(2), EPS12 = sp(1e-12), ANTI = sp(-0.999999999);
  const n = <i32>load<u8>(pLinks + <usize>eA);
  const baseA = load<i32>(pRow + (<usize>eA << 2)) * LINK_STRIDE, baseB = load<i32>(pRow + (<usize>eB << 2)) * LINK_STRIDE;
  const aA = eA * 8, aB = eB * 8;
  let qx = G3(lAS, aA, aB), qy = G4(lAS, aA, aB), qz = G5(lAS, aA, aB), qw = G6(lAS, aA, aB);
  let px = G0(lAS, aA, aB), py = G1(lAS, aA, aB), pz = G2(lAS, aA, aB);
  const s = G7(lAS, aA, aB);
  let ps = s;
  const cA = eA * 16, cB = eB * 16;
  const f0 = G0(lChainK, cA, cB), df = G1(lChainK, cA, cB), zeta2 = G2(lChainK, cA, cB);
  const fx = G3(lChainK, cA, cB), fy = G4(lChainK, cA, cB), fz = G5(lChainK, cA, cB);
  const grav = G6(lChainK, cA, cB), alpha = G7(lChainK, cA, cB);
  const cosH = G8(lChainK, cA, cB), sinH = G9(lChainK, cA, cB);
  const floorOn = f64x2.eq(G10(lChainK, cA, cB), ONE), floorF = G11(lChainK, cA, cB);
  const alphaPos = gt(alpha, ZERO);
  const allAlpha = all(alphaPos);
  let ox = ZERO, oy = ZERO, oz = ZERO;
  for (let i = 0; i < n; i++) {
    const kA = baseA + i, kB = baseB + i;
    const a3 = kA * 3, b3 = kB * 3, a4 = kA * 4, b4 = kB * 4, a9 = kA * 9, b9 = kB * 9;
    const x2 = ad(qx, qx), y2 = ad(qy, qy), z2 = ad(qz, qz);
    const xx = mu(qx, x2), xy = mu(qx, y2), xz = mu(qx, z2), yy = mu(qy, y2), yz = mu(qy, z2), zz = mu(qz, z2);
    const wx = mu(qw, x2), wy = mu(qw, y2), wz = mu(qw, z2);
    const m00 = sb(ONE, ad(yy, zz)), m01 = sb(xy, wz), m02 = ad(xz, wy);
    const m10 = ad(xy, wz), m11 = sb(ONE, ad(xx, zz)), m12 = sb(yz, wx);
    const m20 = sb(xz, wy), m21 = ad(yz, wx), m22 = sb(ONE, ad(xx, yy));
    const lx = G0(lHeadLs, a3, b3), ly = G1(lHeadLs, a3, b3), lz = G2(lHeadLs, a3, b3);
    const hx = ad(px, mu(ps, dot3(m00, m01, m02, lx, ly, lz)));
    const hy = ad(py, mu(ps, dot3(m10, m11, m12, lx, ly, lz)));
    const hz = ad(pz, mu(ps, dot3(m20, m21, m22, lx, ly, lz)));
    const ux = G0(lRestDirLs, a3, b3), uy = G1(lRestDirLs, a3, b3), uz = G2(lRestDirLs, a3, b3);
    const rx = dot3(m00, m01, m02, ux, uy, uz);
    const ry = dot3(m10, m11, m12, ux, uy, uz);
    const rz = dot3(m20, m21, m22, ux, uy, uz);
    const len = mu(s, G0(lLenRel, kA, kB));
    if (i == 0) { ox = hx; oy = hy; oz = hz; }
    const live = gt(len, ZERO);
    // ---- 5. TailSpring
    const w = mu(sp(6.283185307179586), ad(f0, mu(df, sp(<f64>i))));
    const w2 = mu(w, w), c = mu(zeta2, w);
    const tx = ad(hx, mu(len, rx)), ty = ad(hy, mu(len, ry)), tz = ad(hz, mu(len, rz));
    let vx = G0(lVel, a3, b3), vy = G1(lVel, a3, b3), vz = G2(lVel, a3, b3);
    let cx = G0(lPos, a3, b3), cy = G1(lPos, a3, b3), cz = G2(lPos, a3, b3);
    vx = ad(vx, mu(sb(mu(w2, sb(tx, cx)), mu(c, vx)), H));
    vy = ad(vy, mu(sb(sb(mu(w2, sb(ty, cy)), mu(c, vy)), grav), H));
    vz = ad(vz, mu(sb(mu(w2, sb(tz, cz)), mu(c, vz)), H));
    cx = ad(cx, mu(vx, H)); cy = ad(cy, mu(vy, H)); cz = ad(cz, mu(vz, H));
    let dx = sb(cx, hx), dy = sb(cy, hy), dz = sb(cz, hz);
    const dl = sq(dot3(dx, dy, dz, dx, dy, dz));
    const okd = v128.and(gt(dl, mu(EPS12, len)), lt(dl, sp(Infinity)));
    const idl = dv(ONE, dl);
    if (all(okd)) { dx = mu(dx, idl); dy = mu(dy, idl); dz = mu(dz, idl); } else {
      dx = sel(okd, mu(dx, idl), rx); dy = sel(okd, mu(dy, idl), ry); dz = sel(okd, mu(dz, idl), rz);
    }
    const tf = ad(ad(mu(sb(tx, ox), fx), mu(sb(ty, oy), fy)), mu(sb(tz, oz), fz));
    const ex = sb(
      ad(ad(mu(sb(ad(hx, mu(len, dx)), ox), fx), mu(sb(ad(hy, mu(len, dy)), oy), fy)), mu(sb(ad(hz, mu(len, dz)), oz), fz)),
      f64x2.pmax(ZERO, tf), // (tf > 0 ? tf : 0, lane by lane: the same select in one instruction)
    );
    const exm = gt(ex, ZERO);
    if (v128.any_true(exm)) {
      const cx2 = sb(ad(hx, mu(len, dx)), mu(ex, fx)), cy2 = sb(ad(hy, mu(len, dy)), mu(ex, fy)), cz2 = sb(ad(hz, mu(len, dz)), mu(ex, fz));
      let ddx = sb(cx2, hx), ddy = sb(cy2, hy), ddz = sb(cz2, hz);
      const dl2 = sq(dot3(ddx, ddy, ddz, ddx, ddy, ddz));
      const ok2 = gt(dl2, mu(EPS12, len));
      ddx = sel(ok2, dv(ddx, dl2), rx); ddy = sel(ok2, dv(ddy, dl2), ry); ddz = sel(ok2, dv(ddz, dl2), rz);
      const vf = dot3(vx, vy, vz, fx, fy, fz);
      const vfm = v128.and(exm, gt(vf, ZERO));
      vx = sel(vfm, sb(vx, mu(vf, fx)), vx); vy = sel(vfm, sb(vy, mu(vf, fy)), vy); vz = sel(vfm, sb(vz, mu(vf, fz)), vz);
      dx = sel(exm, ddx, dx); dy = sel(exm, ddy, dy); dz = sel(exm, ddz, dz);
    }
    const vr = dot3(vx, vy, vz, dx, dy, dz);
    vx = sb(vx, mu(vr, dx)); vy = sb(vy, mu(vr, dy)); vz = sb(vz, mu(vr, dz));
    // ---- 6. BendCouple
    let dpx = dot3(m00, m10, m20, dx, dy, dz);
    let dpy = dot3(m01, m11, m21, dx, dy, dz);
    let dpz = dot3(m02, m12, m22, dx, dy, dz);
    const a00 = G0(lToHipsM, a9, b9), a01 = G1(lToHipsM, a9, b9), a02 = G2(lToHipsM, a9, b9);
    const a10 = G3(lToHipsM, a9, b9), a11 = G4(lToHipsM, a9, b9), a12 = G5(lToHipsM, a9, b9);
    const a20 = G6(lToHipsM, a9, b9), a21 = G7(lToHipsM, a9, b9), a22 = G8(lToHipsM, a9, b9);
    const gx = dot3(a00, a01, a02, dpx, dpy, dpz);
    const gy = dot3(a10, a11, a12, dpx, dpy, dpz);
    const gz = dot3(a20, a21, a22, dpx, dpy, dpz);
    const bx0 = G0(lRestDirHs, a3, b3), by0 = G1(lRestDirHs, a3, b3), bz0 = G2(lRestDirHs, a3, b3);
    const dd = dot3(bx0, by0, bz0, gx, gy, gz);
    let sw = ad(ONE, dd);
    const ql = dv(ONE, sq(ad(sw, sw)));
    let sx = mu(sb(mu(by0, gz), mu(bz0, gy)), ql), sy = mu(sb(mu(bz0, gx), mu(bx0, gz)), ql), sz = mu(sb(mu(bx0, gy), mu(by0, gx)), ql);
    sw = mu(sw, ql);
    const anti = lt(dd, ANTI);
    if (v128.any_true(anti)) {
      let qa = ZERO, qb = ng(bz0), qc = by0;
      const deg = lt(ad(mu(qb, qb), mu(qc, qc)), EPS12);
      qa = sel(deg, bz0, qa); qb = sel(deg, ZERO, qb); qc = sel(deg, ng(bx0), qc);
      const pl = sq(dot3(qa, qb, qc, qa, qb, qc));
      sx = sel(anti, dv(qa, pl), sx); sy = sel(anti, dv(qb, pl), sy); sz = sel(anti, dv(qc, pl), sz); sw = sel(anti, ZERO, sw);
    }
    if (v128.any_true(alphaPos)) {
      let bx: v128, by: v128, bz: v128, bw: v128;
      if (i == 0) {
        const jA = a4 + 4, jB = b4 + 4;
        const o0 = G0(lBendOld, jA, jB), o1 = G1(lBendOld, jA, jB), o2 = G2(lBendOld, jA, jB), o3 = G3(lBendOld, jA, jB);
        const sg = sel(lt(o3, ZERO), sp(-1), ONE);
        bx = mu(sg, o0); by = mu(sg, o1); bz = mu(sg, o2); bw = ad(mu(sg, o3), ONE);
      } else if (i == n - 1) {
        const jA = a4 - 4, jB = b4 - 4;
        bx = G0(lBendOld, jA, jB); by = G1(lBendOld, jA, jB); bz = G2(lBendOld, jA, jB); bw = G3(lBendOld, jA, jB);
      } else {
        const jA = a4 - 4, jB = b4 - 4, lA = a4 + 4, lB = b4 + 4;
        const e0 = G0(lBendOld, jA, jB), e1 = G1(lBendOld, jA, jB), e2 = G2(lBendOld, jA, jB), e3 = G3(lBendOld, jA, jB);
        const o0 = G0(lBendOld, lA, lB), o1 = G1(lBendOld, lA, lB), o2 = G2(lBendOld, lA, lB), o3 = G3(lBendOld, lA, lB);
        const sg = sel(lt(ad(ad(ad(mu(e0, o0), mu(e1, o1)), mu(e2, o2)), mu(e3, o3)), ZERO), sp(-1), ONE);
        bx = ad(e0, mu(sg, o0)); by = ad(e1, mu(sg, o1)); bz = ad(e2, mu(sg, o2)); bw = ad(e3, mu(sg, o3));
      }
      const bl = sq(ad(ad(ad(mu(bx, bx), mu(by, by)), mu(bz, bz)), mu(bw, bw)));
      const blm = gt(bl, EPS12);
      const ib = dv(ONE, bl);
      if (all(blm)) { bx = mu(bx, ib); by = mu(by, ib); bz = mu(bz, ib); bw = mu(bw, ib); } else {
        bx = sel(blm, mu(bx, ib), ZERO); by = sel(blm, mu(by, ib), ZERO); bz = sel(blm, mu(bz, ib), ZERO); bw = sel(blm, mu(bw, ib), ONE);
      }
      const d = sel(lt(ad(ad(ad(mu(sx, bx), mu(sy, by)), mu(sz, bz)), mu(sw, bw)), ZERO), ng(alpha), alpha);
      const u = sb(ONE, alpha);
      const x = ad(mu(sx, u), mu(bx, d)), y = ad(mu(sy, u), mu(by, d)), z = ad(mu(sz, u), mu(bz, d)), ww = ad(mu(sw, u), mu(bw, d));
      const l = dv(ONE, sq(ad(ad(ad(mu(x, x), mu(y, y)), mu(z, z)), mu(ww, ww))));
      if (allAlpha) { sx = mu(x, l); sy = mu(y, l); sz = mu(z, l); sw = mu(ww, l); } else {
        sx = sel(alphaPos, mu(x, l), sx); sy = sel(alphaPos, mu(y, l), sy); sz = sel(alphaPos, mu(z, l), sz); sw = sel(alphaPos, mu(ww, l), sw);
      }
    }
    const neg = lt(sw, ZERO);
    if (v128.any_true(neg)) { sx = sel(neg, ng(sx), sx); sy = sel(neg, ng(sy), sy); sz = sel(neg, ng(sz), sz); sw = sel(neg, ng(sw), sw); }
    const al = sq(dot3(sx, sy, sz, sx, sy, sz));
    const limited = v128.and(lt(sw, cosH), gt(al, EPS12));
    if (v128.any_true(limited)) {
      const fl = dv(sinH, al);
      sx = sel(limited, mu(sx, fl), sx); sy = sel(limited, mu(sy, fl), sy); sz = sel(limited, mu(sz, fl), sz); sw = sel(limited, cosH, sw);
    }
    const bm = v128.or(limited, alphaPos);
    const allLive = all(live);
    if (allLive) {
      P0(lBendNew, a4, b4, sx); P1(lBendNew, a4, b4, sy); P2(lBendNew, a4, b4, sz); P3(lBendNew, a4, b4, sw);
    } else {
      P0(lBendNew, a4, b4, sel(live, sx, ZERO)); P1(lBendNew, a4, b4, sel(live, sy, ZERO));
      P2(lBendNew, a4, b4, sel(live, sz, ZERO)); P3(lBendNew, a4, b4, sel(live, sw, ONE));
    }
    if (v128.any_true(bm)) {
      const t0 = mu(TWO, sb(mu(sy, bz0), mu(sz, by0))), t1 = mu(TWO, sb(mu(sz, bx0), mu(sx, bz0))), t2 = mu(TWO, sb(mu(sx, by0), mu(sy, bx0)));
      const ex_ = ad(ad(bx0, mu(sw, t0)), sb(mu(sy, t2), mu(sz, t1)));
      const ey_ = ad(ad(by0, mu(sw, t1)), sb(mu(sz, t0), mu(sx, t2)));
      const ez_ = ad(ad(bz0, mu(sw, t2)), sb(mu(sx, t1), mu(sy, t0)));
      const qpx = dot3(a00, a10, a20, ex_, ey_, ez_);
      const qpy = dot3(a01, a11, a21, ex_, ey_, ez_);
      const qpz = dot3(a02, a12, a22, ex_, ey_, ez_);
      const nx = dot3(m00, m01, m02, qpx, qpy, qpz);
      const ny = dot3(m10, m11, m12, qpx, qpy, qpz);
      const nz = dot3(m20, m21, m22, qpx, qpy, qpz);
      const vr2 = dot3(vx, vy, vz, nx, ny, nz);
      let wx2 = sb(vx, mu(vr2, nx)), wy2 = sb(vy, mu(vr2, ny)), wz2 = sb(vz, mu(vr2, nz));
      const cc = dot3(dx, dy, dz, nx, ny, nz);
      let qx2 = sb(nx, mu(cc, dx)), qy2 = sb(ny, mu(cc, dy)), qz2 = sb(nz, mu(cc, dz));
      const ve0 = dot3(wx2, wy2, wz2, qx2, qy2, qz2);
      const el = sq(dot3(qx2, qy2, qz2, qx2, qy2, qz2));
      const cm = v128.and(lt(ve0, ZERO), gt(el, EPS12));
      const il2 = dv(ONE, el);
      qx2 = mu(qx2, il2); qy2 = mu(qy2, il2); qz2 = mu(qz2, il2);
      const ve = mu(ve0, il2);
      const lim = dv(ng(mu(el, len)), H);
      let cut = f64x2.pmax(lim, ve); // (ve > lim ? ve : lim)
      if (v128.any_true(limited)) cut = sel(limited, ve, cut);
      if (v128.any_true(cm)) { wx2 = sel(cm, sb(wx2, mu(cut, qx2)), wx2); wy2 = sel(cm, sb(wy2, mu(cut, qy2)), wy2); wz2 = sel(cm, sb(wz2, mu(cut, qz2)), wz2); }
      if (all(bm)) {
        vx = wx2; vy = wy2; vz = wz2; dx = nx; dy = ny; dz = nz; dpx = qpx; dpy = qpy; dpz = qpz;
      } else {
        vx = sel(bm, wx2, vx); vy = sel(bm, wy2, vy); vz = sel(bm, wz2, vz);
        dx = sel(bm, nx, dx); dy = sel(bm, ny, dy); dz = sel(bm, nz, dz);
        dpx = sel(bm, qpx, dpx); dpy = sel(bm, qpy, dpy); dpz = sel(bm, qpz, dpz);
      }
    }
    // Particles (a zero-length link: at its head, at rest, no bend).
    const tipY = ad(hy, mu(len, dy));
    if (allLive) {
      P0(lPos, a3, b3, ad(hx, mu(len, dx))); P1(lPos, a3, b3, tipY); P2(lPos, a3, b3, ad(hz, mu(len, dz)));
      P0(lVel, a3, b3, vx); P1(lVel, a3, b3, vy); P2(lVel, a3, b3, vz);
    } else {
      P0(lPos, a3, b3, sel(live, ad(hx, mu(len, dx)), hx)); P1(lPos, a3, b3, sel(live, tipY, hy));
      P2(lPos, a3, b3, sel(live, ad(hz, mu(len, dz)), hz));
      P0(lVel, a3, b3, sel(live, vx, ZERO)); P1(lVel, a3, b3, sel(live, vy, ZERO)); P2(lVel, a3, b3, sel(live, vz, ZERO));
      dpx = sel(live, dpx, ux); dpy = sel(live, dpy, uy); dpz = sel(live, dpz, uz);
    }
    store<u8>(pContact + <usize>kA, 0); store<u8>(pContact + <usize>kB, 0);
    // ---- 7. FloorContact (rare: per lane)
    const fm = v128.and(v128.and(live, floorOn), lt(tipY, floorF));
    if (v128.any_true(fm)) {
      if (f64x2.extract_lane(fm, 0) != 0) {
        floorResolve(kA,
          f64x2.extract_lane(m00, 0), f64x2.extract_lane(m01, 0), f64x2.extract_lane(m02, 0),
          f64x2.extract_lane(m10, 0), f64x2.extract_lane(m11, 0), f64x2.extract_lane(m12, 0),
          f64x2.extract_lane(m20, 0), f64x2.extract_lane(m21, 0), f64x2.extract_lane(m22, 0),
          f64x2.extract_lane(hx, 0), f64x2.extract_lane(hy, 0), f64x2.extract_lane(hz, 0),
          f64x2.extract_lane(rx, 0), f64x2.extract_lane(rz, 0), f64x2.extract_lane(dx, 0), f64x2.extract_lane(dz, 0),
          f64x2.extract_lane(len, 0), f64x2.extract_lane(floorF, 0),
          L(pChainK, cA + 12), L(pChainK, cA + 13), L(pChainK, cA + 14));
        dpx = f64x2.replace_lane(dpx, 0, gDpx); dpy = f64x2.replace_lane(dpy, 0, gDpy); dpz = f64x2.replace_lane(dpz, 0, gDpz);
      }
      if (dup) {
        dpx = f64x2.splat(f64x2.extract_lane(dpx, 0)); dpy = f64x2.splat(f64x2.extract_lane(dpy, 0)); dpz = f64x2.splat(f64x2.extract_lane(dpz, 0));
      } else if (f64x2.extract_lane(fm, 1) != 0) {
        floorResolve(kB,
          f64x2.extract_lane(m00, 1), f64x2.extract_lane(m01, 1), f64x2.extract_lane(m02, 1),
          f64x2.extract_lane(m10, 1), f64x2.extract_lane(m11, 1), f64x2.extract_lane(m12, 1),
          f64x2.extract_lane(m20, 1), f64x2.extract_lane(m21, 1), f64x2.extract_lane(m22, 1),
          f64x2.extract_lane(hx, 1), f64x2.extract_lane(hy, 1), f64x2.extract_lane(hz, 1),
          f64x2.extract_lane(rx, 1), f64x2.extract_lane(rz, 1), f64x2.extract_lane(dx, 1), f64x2.extract_lane(dz, 1),
          f64x2.extract_lane(len, 1), f64x2.extract_lane(floorF, 1),
          L(pChainK, cB + 12), L(pChainK, cB + 13), L(pChainK, cB + 14));
        dpx = f64x2.replace_lane(dpx, 1, gDpx); dpy = f64x2.replace_lane(dpy, 1, gDpy); dpz = f64x2.replace_lane(dpz, 1, gDpz);
      }
    }
    // ---- aim: local = swing(restDirLs, d_parent) · restR; the next link's parent frame
    const dd2 = dot3(ux, uy, uz, dpx, dpy, dpz);
    let ax = sb(mu(uy, dpz), mu(uz, dpy)), ay = sb(mu(uz, dpx), mu(ux, dpz)), az = sb(mu(ux, dpy), mu(uy, dpx)), aw = ad(ONE, dd2);
    const sl = dv(ONE, sq(ad(aw, aw)));
    ax = mu(ax, sl); ay = mu(ay, sl); az = mu(az, sl); aw = mu(aw, sl);
    const anti2 = lt(dd2, ANTI);
    if (v128.any_true(anti2)) {
      let qa = ZERO, qb = ng(uz), qc = uy;
      const deg = lt(ad(mu(qb, qb), mu(qc, qc)), EPS12);
      qa = sel(deg, uz, qa); qb = sel(deg, ZERO, qb); qc = sel(deg, ng(ux), qc);
      const pl = sq(dot3(qa, qb, qc, qa, qb, qc));
      ax = sel(anti2, dv(qa, pl), ax); ay = sel(anti2, dv(qb, pl), ay); az = sel(anti2, dv(qc, pl), az); aw = sel(anti2, ZERO, aw);
    }
    const r0 = G0(lRestR, a4, b4), r1 = G1(lRestR, a4, b4), r2 = G2(lRestR, a4, b4), r3 = G3(lRestR, a4, b4);
    const kx = qmx(ax, ay, az, aw, r0, r1, r2, r3), ky = qmy(ax, ay, az, aw, r0, r1, r2, r3);
    const kz = qmz(ax, ay, az, aw, r0, r1, r2, r3), kw = qmw(ax, ay, az, aw, r0, r1, r2, r3);
    P0(lLocalPrev, a4, b4, G0(lLocalCur, a4, b4)); P1(lLocalPrev, a4, b4, G1(lLocalCur, a4, b4));
    P2(lLocalPrev, a4, b4, G2(lLocalCur, a4, b4)); P3(lLocalPrev, a4, b4, G3(lLocalCur, a4, b4));
    P0(lLocalCur, a4, b4, kx); P1(lLocalCur, a4, b4, ky); P2(lLocalCur, a4, b4, kz); P3(lLocalCur, a4, b4, kw);
    const nqx = qmx(qx, qy, qz, qw, kx, ky, kz, kw), nqy = qmy(qx, qy, qz, qw, kx, ky, kz, kw);
    const nqz = qmz(qx, qy, qz, qw, kx, ky, kz, kw), nqw = qmw(qx, qy, qz, qw, kx, ky, kz, kw);
    qx = nqx; qy = nqy; qz = nqz; qw = nqw;
    px = hx; py = hy; pz = hz;
    ps = mu(s, G0(lScaleRel, kA, kB));
  }
  // Snapshots for the next step's coupling, once the whole chain is done.
  const oA = baseA * 4, oB = baseB * 4;
  const bo = pBendOld, bn = pBendNew, byA = <usize>oA << 3, byB = <usize>oB << 3, bytes = <usize>(n * 32);
  for (let j: usize = 0; j < bytes; j += 16) { // (n · 4 doubles: a whole number of v128)
    v128.store(bo + byA + j, v128.load(bn + byA + j));
    v128.store(bo + byB + j, v128.load(bn + byB + j));
  }
}

// ---- jobs: the pairs of one step or write, claimed in chunks by the calling thread and by
// any worker threads sharing this memory (core/wasm/tailThreads.ts). One 64-bit word holds the
// whole job so that a claim can never mix two jobs: bits 0–23 next pair, 24–47 pair count,
// 48–62 job number, 63 kind (0 step, 1 write). DONE (i32) counts the pairs finished.

let pCtl: usize = 0;
const CTL_DONE: usize = 8, CTL_CLAIM: usize = 16;
const CHUNK: i64 = 16; // pairs per claim
const IDX_MASK: i64 = 0xffffff;

/** Byte offset of the job control block (32 bytes, 8-aligned; setup, after every re-layout). */
export function setControl(ctl: usize): void { pCtl = ctl; }

function publish(kind: i64, np: i32): void {
  const old = atomic.load<i64>(pCtl + CTL_CLAIM);
  const job = ((old >> 48) + 1) & 0x7fff;
  atomic.store<i32>(pCtl + CTL_DONE, 0);
  atomic.store<i64>(pCtl + CTL_CLAIM, (kind << 63) | (job << 48) | (<i64>np << 24));
}

/**
 * Pair the `count` chains listed in `ents` that have a step pending (by link count; order does
 * not matter: chains are independent; a chain left without a partner runs in both lanes) and
 * publish them as the current step job of params[0] seconds. Returns the number of pairs;
 * {@link run} does the work.
 */
export function prepareStep(count: i32): i32 {
  const np = pairChains(count, pSteps);
  publish(0, np);
  return np;
}

/**
 * Claim chunks of the current job and run them until none is left (any number of threads may
 * call it at once; each pair runs exactly once). Returns the pairs this call ran.
 */
export function run(): i32 {
  let w = atomic.load<i64>(pCtl + CTL_CLAIM);
  const head = w >> 24; // kind, job and pair count: fixed for this job
  const np = head & IDX_MASK;
  const write = w < 0;
  let ran = 0;
  for (;;) {
    const idx = w & IDX_MASK;
    if (idx >= np) break;
    const end = idx + CHUNK < np ? idx + CHUNK : np;
    const seen = atomic.cmpxchg<i64>(pCtl + CTL_CLAIM, w, (head << 24) | end);
    if (seen != w) {
      if (seen >> 24 != head) break; // a newer job: this one is finished
      w = seen;
      continue;
    }
    if (write) {
      const al = load<f64>(pParams + 8);
      for (let p = <i32>idx; p < <i32>end; p++) writePair(load<i32>(pPairs + (<usize>p << 3)), load<i32>(pPairs + (<usize>p << 3) + 4), al);
    } else {
      const h = load<f64>(pParams);
      for (let p = <i32>idx; p < <i32>end; p++) {
        const eA = load<i32>(pPairs + (<usize>p << 3)), eB = load<i32>(pPairs + (<usize>p << 3) + 4);
        chainConstants(eA);
        if (eB != eA) chainConstants(eB);
        stepPair(eA, eB, h);
      }
    }
    atomic.add<i32>(pCtl + CTL_DONE, <i32>(end - idx));
    ran += <i32>(end - idx);
    w = (head << 24) | end;
  }
  return ran;
}

/** Step the `count` chains listed in `ents` by params[0] seconds on this thread alone. */
export function tailStep(count: i32): void {
  prepareStep(count);
  run();
}

/**
 * Pair the listed chains whose `flag[eid]` is set and that have links, by link count, into
 * `pairs` (two i32 per pair; a chain left without a partner is paired with itself). Returns the
 * number of pairs. Chains are independent, so the order does not change any result.
 */
function pairChains(count: i32, flag: usize): i32 {
  let np = 0;
  // pending[n] = entity id waiting for a partner with n links, or -1
  for (let n = 0; n <= LINK_STRIDE; n++) store<i32>(pPending + (<usize>n << 2), -1);
  for (let e = 0; e < count; e++) {
    const eid = load<i32>(pEnts + (<usize>e << 2));
    if (load<u8>(flag + <usize>eid) == 0) continue;
    const n = <i32>load<u8>(pLinks + <usize>eid);
    if (n == 0) continue;
    const slot = pPending + (<usize>n << 2);
    const other = load<i32>(slot);
    if (other < 0) { store<i32>(slot, eid); continue; }
    store<i32>(pPairs + (<usize>np << 3), other); store<i32>(pPairs + (<usize>np << 3) + 4, eid);
    np++;
    store<i32>(slot, -1);
  }
  for (let n = 1; n <= LINK_STRIDE; n++) {
    const other = load<i32>(pPending + (<usize>n << 2));
    if (other < 0) continue;
    store<i32>(pPairs + (<usize>np << 3), other); store<i32>(pPairs + (<usize>np << 3) + 4, other);
    np++;
  }
  return np;
}

// ---------------------------------------------------------------------------------------------
// Tail write (systems/tailWrite.ts, the link loop and the common part of the per-chain
// finish, core/tailFinish.ts): displayed local rotations into the pose store's `localR`, the
// chain's `writtenR` and, unless the chain keeps exact world matrices, the bones' world
// matrices; then per chain the anchor copy for the next frame and, for a `Tail_End` helper
// without children, its world matrix (poseUpdateSlot's operations). The caller finishes what
// is left: the non-finite fallback flagged in `writeFailed`, chains with exact world matrices
// and end helpers with children.

let pAnchorCur: usize = 0, pInitialised: usize = 0, pExactWorld: usize = 0, pMirrored: usize = 0, pSlot: usize = 0;
let pTipDirLs: usize = 0, pWrittenR: usize = 0, pPoseLocalR: usize = 0, pPoseWorldM: usize = 0, pWriteFailed: usize = 0;
let pEndSlot: usize = 0, pEndLeaf: usize = 0, pAnchorPrev: usize = 0, pPoseLocalT: usize = 0, pPoseLocalS: usize = 0, pPoseOwner: usize = 0;

/** Byte offsets of the arrays the write reads and writes (setup, after every re-layout). */
export function setWritePointers(
  anchorCur: usize, initialised: usize, exactWorld: usize, mirrored: usize, slot: usize,
  tipDirLs: usize, writtenR: usize, poseLocalR: usize, poseWorldM: usize, writeFailed: usize,
  endSlot: usize, endLeaf: usize, anchorPrev: usize, poseLocalT: usize, poseLocalS: usize, poseOwner: usize,
): void {
  pAnchorCur = anchorCur; pInitialised = initialised; pExactWorld = exactWorld; pMirrored = mirrored; pSlot = slot;
  pTipDirLs = tipDirLs; pWrittenR = writtenR; pPoseLocalR = poseLocalR; pPoseWorldM = poseWorldM; pWriteFailed = writeFailed;
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
  if (end < 0 || load<i32>(pPoseOwner + (<usize>end << 2)) < 0) return; // (a released slot: as poseUpdateSubtree)
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
  const po = load<i32>(pSlot + (<usize>(load<i32>(pRow + (<usize>e << 2)) * LINK_STRIDE + <i32>load<u8>(pLinks + <usize>e) - 1) << 2)) * 16;
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

@inline function storeLanes(p: usize, ia: i32, ib: i32, v: v128, wa: bool, wb: bool): void {
  if (wa) v128.store64_lane(p + (<usize>ia << 3), v, 0);
  if (wb) v128.store64_lane(p + (<usize>ib << 3), v, 1);
}

function writePair(eA: i32, eB: i32, al: f64): void {
  const lAnchorCur = pAnchorCur, lFloorClearance = pFloorClearance, lFloorY = pFloorY, lHeadLs = pHeadLs, lLenRel = pLenRel, lLocalCur = pLocalCur, lLocalPrev = pLocalPrev, lPoseLocalR = pPoseLocalR, lPoseWorldM = pPoseWorldM, lRestDirLs = pRestDirLs, lRestR = pRestR, lScaleRel = pScaleRel, lTipDirLs = pTipDirLs, lUnitScale = pUnitScale, lWrittenR = pWrittenR; // (the pointers as locals: one load each)
  const ONE = sp(1), ZERO = sp(0), EPS12 = sp(1e-12), ANTI = sp(-0.999999999), TINY = sp(1e-9);
  const AL = sp(al), AL1 = sp(1 - al), NAL = sp(-al);
  const n = <i32>load<u8>(pLinks + <usize>eA);
  const baseA = load<i32>(pRow + (<usize>eA << 2)) * LINK_STRIDE, baseB = load<i32>(pRow + (<usize>eB << 2)) * LINK_STRIDE;
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
  for (let i = 0; i < n; i++) {
    const kA = baseA + i, kB = baseB + i;
    const a3 = kA * 3, b3 = kB * 3, a4 = kA * 4, b4 = kB * 4;
    const p0 = G0(lLocalPrev, a4, b4), p1 = G1(lLocalPrev, a4, b4), p2 = G2(lLocalPrev, a4, b4), p3 = G3(lLocalPrev, a4, b4);
    const c0 = G0(lLocalCur, a4, b4), c1 = G1(lLocalCur, a4, b4), c2 = G2(lLocalCur, a4, b4), c3 = G3(lLocalCur, a4, b4);
    const sg = sel(lt(ad(ad(ad(mu(p0, c0), mu(p1, c1)), mu(p2, c2)), mu(p3, c3)), ZERO), NAL, AL);
    let lx = ad(mu(p0, AL1), mu(c0, sg)), ly = ad(mu(p1, AL1), mu(c1, sg)), lz = ad(mu(p2, AL1), mu(c2, sg)), lw = ad(mu(p3, AL1), mu(c3, sg));
    const l2 = ad(ad(ad(mu(lx, lx), mu(ly, ly)), mu(lz, lz)), mu(lw, lw));
    bad = v128.or(bad, v128.not(v128.and(gt(l2, sp(1e-18)), lt(l2, sp(Infinity)))));
    if (al != 0) {
      const il = dv(ONE, sq(l2));
      lx = mu(lx, il); ly = mu(ly, il); lz = mu(lz, il); lw = mu(lw, il);
    }
    const hlx = G0(lHeadLs, a3, b3), hly = G1(lHeadLs, a3, b3), hlz = G2(lHeadLs, a3, b3);
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
    const len = mu(s, G0(lLenRel, kA, kB));
    const fm0 = v128.and(floorOnM, gt(len, ZERO));
    if (v128.any_true(fm0)) {
      const tx = G0(lTipDirLs, a3, b3), ty = G1(lTipDirLs, a3, b3), tz = G2(lTipDirLs, a3, b3);
      const dy = dot3(n10, n11, n12, tx, ty, tz);
      const fm = v128.and(fm0, lt(ad(hy, mu(len, dy)), F));
      if (v128.any_true(fm)) {
        // Back onto the floor circle, aimed with the least twist from rest.
        const dx = dot3(n00, n01, n02, tx, ty, tz), dz = dot3(n20, n21, n22, tx, ty, tz);
        const ux = G0(lRestDirLs, a3, b3), uy = G1(lRestDirLs, a3, b3), uz = G2(lRestDirLs, a3, b3);
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
        const r0 = G0(lRestR, a4, b4), r1 = G1(lRestR, a4, b4), r2 = G2(lRestR, a4, b4), r3 = G3(lRestR, a4, b4);
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
    const slA = load<i32>(pSlot + (<usize>kA << 2)), slB = load<i32>(pSlot + (<usize>kB << 2));
    const sA = slA * 4, sB = slB * 4;
    P0(lPoseLocalR, sA, sB, lx); P1(lPoseLocalR, sA, sB, ly); P2(lPoseLocalR, sA, sB, lz); P3(lPoseLocalR, sA, sB, lw);
    P0(lWrittenR, a4, b4, lx); P1(lWrittenR, a4, b4, ly); P2(lWrittenR, a4, b4, lz); P3(lWrittenR, a4, b4, lw);
    const sc = mu(s, G0(lScaleRel, kA, kB));
    if (composeA && composeB) {
      const oA = slA * 16, oB = slB * 16;
      const sxv = mu(mxv, sc);
      P0(lPoseWorldM, oA, oB, mu(n00, sxv)); P1(lPoseWorldM, oA, oB, mu(n10, sc)); P2(lPoseWorldM, oA, oB, mu(n20, sc)); P3(lPoseWorldM, oA, oB, ZERO);
      P4(lPoseWorldM, oA, oB, mu(n01, sxv)); P5(lPoseWorldM, oA, oB, mu(n11, sc)); P6(lPoseWorldM, oA, oB, mu(n21, sc)); P7(lPoseWorldM, oA, oB, ZERO);
      P8(lPoseWorldM, oA, oB, mu(n02, sxv)); P9(lPoseWorldM, oA, oB, mu(n12, sc)); P10(lPoseWorldM, oA, oB, mu(n22, sc)); P11(lPoseWorldM, oA, oB, ZERO);
      P12(lPoseWorldM, oA, oB, mu(mxv, hx)); P13(lPoseWorldM, oA, oB, hy); P14(lPoseWorldM, oA, oB, hz); P15(lPoseWorldM, oA, oB, ONE);
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
  finishChain(eA, composeA, badA);
  if (eB != eA) finishChain(eB, composeB, badB);
}

/**
 * Pair the `count` chains listed in `ents` (those with initialised ≠ 0 and links) and publish
 * them as the current write job for the display fraction α = params[1]. Returns the number of
 * pairs; {@link run} does the work. A chain whose blend went non-finite gets writeFailed = 1
 * (its written values are then replaced by the caller's rest fallback, as in the JavaScript write).
 */
export function prepareWrite(count: i32): i32 {
  const np = pairChains(count, pInitialised);
  publish(1, np);
  return np;
}

/** Write the `count` chains listed in `ents` on this thread alone. */
export function tailWrite(count: i32): void {
  prepareWrite(count);
  run();
}
