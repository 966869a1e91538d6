/**
 * Shared per-link kernels of the tail systems (per-frame path: no allocation, no throw).
 *
 * Every tail stage walks a chain from the hips outward; for link i it needs the parent's
 * current world frame (the anchor for link 0, else link i−1 as already finalised this step),
 * the head position and the rest direction in world space. {@link linkFrame} computes them
 * into the module-scope {@link LF} scratch (the rest placement uses it);
 * {@link chainStepConstants} fills a chain's per-step constants into the link register
 * {@link LK}. The tail step itself keeps the parent frame in locals and hands a link's state
 * to the floor-contact resolution through {@link LK}.
 */
import type { BitrigWorld } from './world';
import { LINK_STRIDE, MAX_LINKS, getLink, linkEl, linkIndex, setLink } from './components/tail';
import { qMul, qRotate, qSwingUnit } from './qmath';

/**
 * Link frame scratch (world space, engine units): [0..2] head h_i, [3..6] parent world
 * rotation, [11..13] unit rest direction r_i (world), [14] link length ℓ_i, [15] anchor
 * uniform scale.
 */
export const LF = new Float64Array(16);

/**
 * Offsets into the link register {@link LK} (world space, engine units unless noted).
 * Per link: `M` parent world rotation as a 3×3 matrix (row-major, 9), `H` head (3), `R` unit
 * rest direction (3), `LEN` link length, `D` unit candidate direction (3, world), `DP` the
 * final direction in the parent's frame (3). Per chain and step: `O` tail root (head of link
 * 0), `F` hips forward axis (3), `BACK` backward horizontal unit (x, z), `FLOOR` floor height
 * F + ρ, `DAMP` contact damping factor e^(−γΔt), `ALPHA` coupling α, `COSH`/`SINH`
 * cos/sin(θmax/2), `GRAV` gravity (units/s²), `FLOORON` 1 when floor contact is on, `STEP` the
 * step length h (seconds; set by the caller before {@link chainStepConstants}).
 */
export const K = {
  M: 0, H: 9, R: 12, LEN: 15, O: 16, D: 19, DP: 22,
  F: 25, BACK: 28, FLOOR: 30, DAMP: 31, ALPHA: 32, COSH: 33, SINH: 34, GRAV: 35, FLOORON: 36, STEP: 37,
} as const;

/**
 * The link register: the state one link's stages hand to each other during a tail step
 * (see {@link K} for the layout). Module scope, so the per-link path never allocates.
 */
export const LK = new Float64Array(40);
const _s = new Float64Array(16);

/**
 * Fill the chain constants of {@link LK} (forward axis, backward horizontal, floor, damping,
 * coupling α, bend limit, gravity) for chain `eid`, a step of LK[STEP] seconds (passed in the
 * register: a double argument to a call V8 does not inline is boxed, an allocation per frame)
 * and the anchor at this step (`anchorStep`). The exponentials are cached per chain while the
 * step and the options stay the same.
 *
 * @example
 * LK[K.STEP] = 1 / 60; chainStepConstants(world, eid);
 */
export function chainStepConstants(world: BitrigWorld, eid: number): void {
  const C = world.components.TailChain;
  const h = LK[K.STEP]!;
  qRotate(LK, K.F, C.anchorStep, eid * 8 + 3, C.axesLs, eid * 9);
  let bx = -LK[K.F]!, bz = -LK[K.F + 2]!;
  const bl = Math.sqrt(bx * bx + bz * bz);
  if (bl > 1e-9) { bx /= bl; bz /= bl; } else { bx = 0; bz = -1; }
  LK[K.BACK] = bx; LK[K.BACK + 1] = bz;
  const us = C.unitScale[eid]!;
  LK[K.FLOOR] = C.floorY[eid]! + C.floorClearance[eid]! * us;
  const c = eid * 5;
  const cache = C.stepCache;
  if (cache[c] !== h) refreshStepCache(world, eid);
  LK[K.DAMP] = cache[c + 1]!;
  LK[K.ALPHA] = cache[c + 2]!;
  LK[K.COSH] = cache[c + 3]!;
  LK[K.SINH] = cache[c + 4]!;
  LK[K.GRAV] = C.gravity[eid]! * us;
  LK[K.FLOORON] = C.floorEnabled[eid]!;
}

/**
 * Recompute chain `eid`'s cached step constants for a step of LK[K.STEP] seconds: contact
 * damping e^(−γh), coupling α = 1 − e^(−kh) (0 for a one-link chain), cos and sin of half the
 * bend limit. Called when the step length changed or setTailOptions cleared the cache.
 *
 * @example
 * if (C.stepCache[eid * 5] !== LK[K.STEP]) refreshStepCache(world, eid);
 */
export function refreshStepCache(world: BitrigWorld, eid: number): void {
  const C = world.components.TailChain;
  const h = LK[K.STEP]!;
  const c = eid * 5;
  const cache = C.stepCache;
  const n = C.links[eid]!;
  const k = C.couplingRate[eid]!;
  // (for a while after a seat along a shown pose: a wider limit and a weaker coupling; exact
  // otherwise: ease 0 adds 0 and scales by 1)
  const ease = C.seatEase[eid]!;
  const half = (C.bendLimit[eid]! + ease * C.seatExcess[eid]!) * 0.5;
  cache[c] = h;
  cache[c + 1] = Math.exp(-C.contactDamping[eid]! * h);
  cache[c + 2] = n > 1 && k > 0 ? 1 - Math.exp(-k * (1 - ease) * h) : 0;
  cache[c + 3] = Math.cos(half);
  cache[c + 4] = Math.sin(half);
}

/**
 * Fill {@link LF} for link `i` of chain `eid`. `anchor` holds the anchor frame used for
 * this pass (8 floats at `ao`: position, rotation, uniform scale). Also writes `headWs[i]`.
 */
export function linkFrame(world: BitrigWorld, eid: number, i: number, anchor: Float64Array, ao: number): void {
  const B = world.components.BendState;
  const k = linkIndex(world.components.TailChain.row[eid]!, i);
  const s = anchor[ao + 7]!;
  getLink(B.headLs, k, 3, _s, 8);
  if (i === 0) {
    LF[3] = anchor[ao + 3]!; LF[4] = anchor[ao + 4]!; LF[5] = anchor[ao + 5]!; LF[6] = anchor[ao + 6]!;
    qRotate(_s, 0, anchor, ao + 3, _s, 8);
    LF[0] = anchor[ao]! + s * _s[0]!;
    LF[1] = anchor[ao + 1]! + s * _s[1]!;
    LF[2] = anchor[ao + 2]! + s * _s[2]!;
  } else {
    const pk = k - 4; // (the parent link: links of a chain are 4 apart)
    getLink(B.rotWs, pk, 4, LF, 3);
    getLink(B.headWs, pk, 3, _s, 12);
    qRotate(_s, 0, LF, 3, _s, 8);
    const ps = s * B.scaleRel[pk]!;
    LF[0] = _s[12]! + ps * _s[0]!;
    LF[1] = _s[13]! + ps * _s[1]!;
    LF[2] = _s[14]! + ps * _s[2]!;
  }
  setLink(B.headWs, k, 3, LF, 0);
  getLink(B.restDirLs, k, 3, _s, 8);
  qRotate(LF, 11, LF, 3, _s, 8);
  LF[14] = s * B.lenRel[k]!;
  LF[15] = s;
}

/**
 * Set link `i`'s world rotation so that it points along the unit direction `dir[o..o+2]` with the
 * least twist from rest: rotWs_i = swing(r_i, d) · parent · restR_i. Needs {@link LF}
 * filled for the same link.
 */
export function linkAim(world: BitrigWorld, eid: number, i: number, dir: Float64Array, o: number): void {
  const B = world.components.BendState;
  const k = linkIndex(world.components.TailChain.row[eid]!, i);
  qSwingUnit(_s, 4, LF, 11, dir, o);
  qMul(_s, 8, _s, 4, LF, 3);
  getLink(B.restR, k, 4, _s, 12);
  qMul(_s, 8, _s, 8, _s, 12);
  setLink(B.rotWs, k, 4, _s, 8);
}

/**
 * Whether chain `eid`'s structure lies inside the world's arrays: at most {@link MAX_LINKS}
 * links, a `row` inside the per-link arrays, every link's bone slot (`TailChain.slot`) and the
 * `Tail_End` helper's (`endSlot`, or -1) inside the pose store. bitrig's setup always writes
 * such values; a chain whose fields were overwritten with others simulates and writes nothing
 * until they are valid again (then it starts at rest, as after any reset), on either backend:
 * TailClock tests it with the anchor when it prepares a chain in JavaScript, and the
 * WebAssembly kernels, which prepare the common case without it, test the same where they read
 * the fields (wasm/tailStep.ts structureOk: the write writes such a chain nothing and turns it
 * off, `initialised` 0, so that JavaScript prepares it from the next frame on). Per-frame safe.
 *
 * @example
 * if (!tailStructureOk(world, eid)) console.warn('bitrig: chain', eid, 'points outside the pose store');
 */
export function tailStructureOk(world: BitrigWorld, eid: number): boolean {
  const C = world.components.TailChain;
  const slots = world.pose.owner.length; // (the slot count)
  const n = C.links[eid]!, row = C.row[eid]!;
  if (n > MAX_LINKS || !(row >= 0 && ((row >> 2) + 1) * LINK_STRIDE * 4 <= C.slot.length)) return false;
  const end = C.endSlot[eid]!;
  if (end < -1 || end >= slots) return false;
  for (let i = 0; i < n; i++) {
    const s = C.slot[linkIndex(row, i)]!;
    if (!(s >= 0 && s < slots)) return false;
  }
  return true;
}

/**
 * Floor circle (floor contact): the unit direction from a head at height `hy` of a
 * link of length `len` whose tip sits at height F: u = (F − hy)/len clamped to [−1, 1],
 * d = √(1−u²)·t + u·e_y with t the unit horizontal part of (dx, dz), falling back to
 * (fx, fz) and then (bx, bz). Writes `out[o..o+2]`.
 */
export function floorDirection(
  out: Float64Array, o: number, hy: number, len: number, F: number,
  dx: number, dz: number, fx: number, fz: number, bx: number, bz: number,
): void {
  let u = (F - hy) / len;
  if (u > 1) u = 1; else if (u < -1) u = -1;
  let tx = dx, tz = dz;
  let tl = Math.sqrt(tx * tx + tz * tz);
  if (tl < 1e-9) { tx = fx; tz = fz; tl = Math.sqrt(tx * tx + tz * tz); }
  if (tl < 1e-9) { tx = bx; tz = bz; tl = Math.sqrt(tx * tx + tz * tz) || 1; }
  const c = Math.sqrt(1 - u * u);
  out[o] = (c * tx) / tl; out[o + 1] = u; out[o + 2] = (c * tz) / tl;
}

/**
 * Bend angle (radians) of a bend quaternion's w: θ = 2·acos(clamp(|w|, 0, 1)).
 *
 * @example
 * const deg = bendAngleOf(world.components.BendState.bendOld[k * 4 + 3]) * 180 / Math.PI;
 */
export function bendAngleOf(w: number): number {
  const a = w < 0 ? -w : w;
  return 2 * Math.acos(a > 1 ? 1 : a);
}

/** `toHips` (A_i) from the current rest rotations, without changing them. Per-frame safe. */
export function computeToHips(world: BitrigWorld, eid: number): void {
  const { TailChain: C, BendState: B } = world.components;
  const n = C.links[eid]!;
  _s[0] = 0; _s[1] = 0; _s[2] = 0; _s[3] = 1;
  for (let i = 0; i < n; i++) {
    const k = linkIndex(C.row[eid]!, i);
    setLink(B.toHips, k, 4, _s, 0);
    getLink(B.restR, k, 4, _s, 4);
    qMul(_s, 0, _s, 0, _s, 4);
  }
  computeRestDirs(world, eid);
}

/**
 * Rest directions of every link: in the parent frame (restR · tipDir) and in the hips frame
 * (A_i · that), and A_i as a matrix for the step. Per-frame safe (the animation rest source
 * calls it every frame).
 */
export function computeRestDirs(world: BitrigWorld, eid: number): void {
  const { TailChain: C, BendState: B } = world.components;
  const n = C.links[eid]!;
  const T = _s, M = B.toHipsM;
  for (let i = 0; i < n; i++) {
    const k = linkIndex(C.row[eid]!, i);
    getLink(B.restR, k, 4, T, 4); getLink(B.tipDirLs, k, 3, T, 8);
    qRotate(T, 11, T, 4, T, 8);
    setLink(B.restDirLs, k, 3, T, 11);
    getLink(B.toHips, k, 4, T, 0);
    qRotate(T, 8, T, 0, T, 11);
    setLink(B.restDirHs, k, 3, T, 8);
    // A_i as a matrix for the per-link hot loop.
    const x = T[0]!, y = T[1]!, z = T[2]!, w = T[3]!;
    const x2 = x + x, y2 = y + y, z2 = z + z;
    const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
    const wx = w * x2, wy = w * y2, wz = w * z2;
    M[linkEl(k, 9, 0)] = 1 - (yy + zz); M[linkEl(k, 9, 1)] = xy - wz; M[linkEl(k, 9, 2)] = xz + wy;
    M[linkEl(k, 9, 3)] = xy + wz; M[linkEl(k, 9, 4)] = 1 - (xx + zz); M[linkEl(k, 9, 5)] = yz - wx;
    M[linkEl(k, 9, 6)] = xz - wy; M[linkEl(k, 9, 7)] = yz + wx; M[linkEl(k, 9, 8)] = 1 - (xx + yy);
  }
}
