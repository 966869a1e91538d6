/**
 * PelvisHeight — the pelvis band and balance.
 *
 * Reads: per character the legs' animated joint positions (pose store, world), their IK
 * targets and effective stance weights (written by FootLock), the balance input, the
 * centre-of-mass segments and held loads; options (rate, limits as fractions of the mean leg
 * length, softening).
 * Writes: the pelvis local translation (pose store; the whole pelvis subtree's world matrices
 * are shifted by the same world translation), and per character the smoothed offset
 * `offsetWs`, the band `bandLo`/`bandHi`, the legs that set it, the infeasible legs, the
 * centre of mass and the support centroid.
 *
 * Band: for every planted leg (stance > 0), the pelvis heights y (world, relative to the
 * animated pelvis) from which its hip reaches the leg's target: |hip + y·ŷ − target| ≤ R with
 * R = (upper + lower) × (1 − soften), an interval from a quadratic. Heavier stance weights
 * come first, and among equal ones the interval nearest the animated height (a foot over a drop
 * or on a block far above the others misses, rather than the body moving to it); a leg whose
 * interval misses the band so far is reported as infeasible. The drop/raise limits narrow the band only where they overlap it
 * (planted feet win over the limits; diagnostics then ask for a reposition). The animated height (offset 0) is clamped into the band, smoothed with
 * α = 1 − exp(−rate·dt), and the smoothed height is clamped into the band again: smoothing
 * never crosses a reach limit (the seed's foot floating on a slope came from that).
 * Balance: when every foot is planted (or the game asks), the pelvis moves horizontally by
 * balance × (support centroid − COM), capped, smoothed with the same rate; the band is
 * computed after that shift. Units: world units; rates 1/s. Never allocates or throws.
 *
 * With WebAssembly (`world.tailAccel.scene`, these components, the pose store and the COM
 * segment pool in its memory) every character runs in `wasm/sceneContacts.ts`, the same
 * operations in the same order, so every f64 is bit-identical (test/scene/contactsWasm.test.ts).
 *
 * Runs over a range of the scene characters (`from`, `count` into `world.queries.sceneChars.dense`;
 * all by default): characters are independent here, so a game's job system may split them.
 */
import { sceneCharacterOk } from '../core/sceneGuard';
import type { BitrigWorld } from '../core/world';
import { MAX_LEGS } from '../core/components/scene';
import { computeCenterOfMass } from '../core/ik/com';

const _com = new Float64Array(3);
const _order = new Int32Array(MAX_LEGS);
const _w = new Float64Array(MAX_LEGS);
const _R = new Float64Array(MAX_LEGS);
const _hip = new Float64Array(MAX_LEGS * 3);
const _lo = new Float64Array(MAX_LEGS); // each planted leg's interval of pelvis heights (NaN: none)
const _hi = new Float64Array(MAX_LEGS);
const _gap = new Float64Array(MAX_LEGS); // each leg's gap from the animated height (NaN: no interval)

/**
 * Run the pelvis step for the scene characters `[from, from + count)` of
 * `world.queries.sceneChars.dense` (every one by default).
 *
 * @example
 * pelvisHeight(world, 1 / 60);
 */
export function pelvisHeight(world: BitrigWorld, dt: number, from = 0, count = 0x7fffffff): void {
  const SC = world.components.SceneCharacter;
  const L = world.components.Limb;
  const F = world.components.FootContact;
  const pose = world.pose;
  const wm = pose.worldM;
  const rootSlot = L.rootSlot, midSlot = L.midSlot, endSlot = L.endSlot, endIsChild = L.endIsChild;
  const tipLs = L.tipLs, soften = L.soften, targetWs = L.targetWs;
  const stanceEff = F.stanceEff, contactWs = F.contactWs;
  const legs = SC.legs, offsetWs = SC.offsetWs;
  const chars = world.queries.sceneChars.dense;
  const lo = from > 0 ? from : 0;
  const hi = count < chars.length - lo ? lo + count : chars.length;
  const accel = world.tailAccel;
  if (accel != null && accel.scene !== null && hi - lo <= accel.sceneList.length && world.comSegments.buffer === accel.memory.buffer) {
    const list = accel.sceneList;
    for (let i = lo; i < hi; i++) list[i - lo] = chars[i]!;
    accel.sceneParams[0] = dt;
    if (hi > lo) accel.scene.pelvisRun(hi - lo);
    return;
  }
  const valid = dt > 0 && Number.isFinite(dt);
  // 1 − exp(−rate·dt), recomputed only when the rate changes between characters.
  let aRate = NaN, alpha = 0;
  for (let i = lo; i < hi; i++) {
    const c = chars[i]!;
    if (!sceneCharacterOk(world, c)) continue; // (structure fields outside the world's arrays: left alone — core/sceneGuard.ts)
    const nLegs = SC.legCount[c]!;
    const rate = SC.pelvisRate[c]!;
    if (rate !== aRate) { aRate = rate; alpha = valid ? 1 - Math.exp(-rate * dt) : 0; }
    const first = SC.initialised[c] === 0;
    // Legs: hip positions, reach, weights.
    let meanLen = 0;
    let minStance = 1;
    let sw = 0, sx = 0, sz = 0;
    for (let k = 0; k < nLegs; k++) {
      const e = legs[c * MAX_LEGS + k]!;
      const a = rootSlot[e]! * 16, b = midSlot[e]! * 16;
      const bx = wm[b + 12]!, by = wm[b + 13]!, bz = wm[b + 14]!;
      let cx: number, cy: number, cz: number;
      if (endIsChild[e] === 1) { const eo = endSlot[e]! * 16; cx = wm[eo + 12]!; cy = wm[eo + 13]!; cz = wm[eo + 14]!; } else {
        const x = tipLs[e * 3]!, y = tipLs[e * 3 + 1]!, z = tipLs[e * 3 + 2]!;
        cx = wm[b]! * x + wm[b + 4]! * y + wm[b + 8]! * z + bx;
        cy = wm[b + 1]! * x + wm[b + 5]! * y + wm[b + 9]! * z + by;
        cz = wm[b + 2]! * x + wm[b + 6]! * y + wm[b + 10]! * z + bz;
      }
      const ax = wm[a + 12]!, ay = wm[a + 13]!, az = wm[a + 14]!;
      const len = Math.sqrt(((bx - ax) * (bx - ax)) + ((by - ay) * (by - ay)) + ((bz - az) * (bz - az))) + Math.sqrt(((cx - bx) * (cx - bx)) + ((cy - by) * (cy - by)) + ((cz - bz) * (cz - bz)));
      _hip[k * 3] = ax; _hip[k * 3 + 1] = ay; _hip[k * 3 + 2] = az;
      // Reach without softening: (1 − soften) × length, or the animated extension if larger.
      let R = len * (1 - soften[e]!);
      const dc = Math.sqrt(((cx - ax) * (cx - ax)) + ((cy - ay) * (cy - ay)) + ((cz - az) * (cz - az)));
      if (dc > R) R = dc < len ? dc : len;
      _R[k] = R * (1 - 1e-9);
      meanLen += len / nLegs;
      const w = stanceEff[e]!;
      _w[k] = w;
      if (w < minStance) minStance = w;
      if (w > 0) { sw += w; sx += w * contactWs[e * 3]!; sz += w * contactWs[e * 3 + 2]!; }
      _order[k] = k;
    }
    if (!Number.isFinite(meanLen)) meanLen = 0;
    if (nLegs === 0) minStance = 0;
    // Balance: horizontal shift toward the support centroid.
    const gb = SC.groundBlend[c]!;
    const bi = SC.balanceInput[c]!;
    const bw = (bi >= 0 ? bi : SC.balance[c]! * minStance) * gb;
    let wantX = 0, wantZ = 0;
    SC.comValid[c] = 0;
    if (bw > 0 && sw > 0 && computeCenterOfMass(world, c, _com, 0)) {
      SC.comValid[c] = 1;
      for (let k = 0; k < 3; k++) SC.comWs[c * 3 + k] = _com[k]!;
      SC.supportWs[c * 3] = sx / sw; SC.supportWs[c * 3 + 1] = _com[1]!; SC.supportWs[c * 3 + 2] = sz / sw;
      wantX = bw * (sx / sw - _com[0]!);
      wantZ = bw * (sz / sw - _com[2]!);
    }
    const maxShift = SC.balanceMaxShift[c]! * meanLen;
    let ox = offsetWs[c * 3]!, oz = offsetWs[c * 3 + 2]!;
    if (first) { ox = wantX; oz = wantZ; } else { ox += (wantX - ox) * alpha; oz += (wantZ - oz) * alpha; }
    const snap = 1e-9 * (meanLen > 0 ? meanLen : 1);
    if (Math.abs(ox - wantX) < snap) ox = wantX;
    if (Math.abs(oz - wantZ) < snap) oz = wantZ;
    const sh = Math.sqrt(ox * ox + oz * oz);
    if (sh > maxShift) { const f = maxShift > 0 ? maxShift / sh : 0; ox *= f; oz *= f; }
    if (!Number.isFinite(ox + oz)) { ox = 0; oz = 0; }
    // Each planted leg's interval of pelvis heights, then the band: heaviest stance first and,
    // among equal stances, the interval nearest the animated height (a foot over a drop, or on
    // a block far above the others, is the one that misses, not the body moving to it and
    // pushing the other feet into the ground or lifting them off it; whatever the legs' order).
    let nBad = 0;
    for (let k = 0; k < nLegs; k++) {
      _lo[k] = NaN; _hi[k] = NaN;
      if (!(_w[k]! > 0)) continue;
      const e = legs[c * MAX_LEGS + k]!;
      const dx = _hip[k * 3]! + ox - targetWs[e * 3]!;
      const dy = _hip[k * 3 + 1]! - targetWs[e * 3 + 1]!;
      const dz = _hip[k * 3 + 2]! + oz - targetWs[e * 3 + 2]!;
      const R = _R[k]!;
      const disc = R * R - dx * dx - dz * dz;
      if (!(disc >= 0)) { nBad++; continue; }
      const sq = Math.sqrt(disc);
      _lo[k] = -dy - sq; _hi[k] = -dy + sq;
    }
    // Each leg's gap: how far its interval is from the animated height 0 (0 when it holds
    // it; NaN: none). Insertion sort, written out here: a comparison helper called once a
    // frame stays unoptimised and boxes the numbers it reads (an allocation per frame).
    for (let k = 0; k < nLegs; k++) {
      const lo = _lo[k]!, hi = _hi[k]!;
      _gap[k] = lo > 0 ? lo : hi < 0 ? -hi : lo <= hi ? 0 : NaN;
    }
    for (let p = 1; p < nLegs; p++) {
      const k = _order[p]!;
      const wk = _w[k]!, gk = _gap[k]!;
      let q = p - 1;
      while (q >= 0) {
        const j = _order[q]!;
        const wj = _w[j]!, gj = _gap[j]!;
        // k before j: heavier stance, then the nearer interval (legs without one last)
        if (!(wk !== wj ? wk > wj : gk < gj || (gk === gk && gj !== gj))) break;
        _order[q + 1] = j;
        q--;
      }
      _order[q + 1] = k;
    }
    let lo = -Infinity, hi = Infinity, nIn = 0;
    for (let p = 0; p < nLegs; p++) {
      const k = _order[p]!;
      const li = _lo[k]!, hi2 = _hi[k]!;
      if (!(li <= hi2)) continue; // (not planted, or counted above)
      if (li > hi || hi2 < lo) { nBad++; continue; }
      if (li > lo) lo = li;
      if (hi2 < hi) hi = hi2;
      nIn++;
    }
    const dropLim = -SC.maxDrop[c]! * meanLen, raiseLim = SC.maxRaise[c]! * meanLen;
    if (nIn === 0) { lo = dropLim; hi = raiseLim; } else {
      const l2 = lo > dropLim ? lo : dropLim, h2 = hi < raiseLim ? hi : raiseLim;
      if (l2 <= h2) { lo = l2; hi = h2; }
    }
    let desired = 0;
    if (desired < lo) desired = lo; else if (desired > hi) desired = hi;
    let y = offsetWs[c * 3 + 1]!;
    y = first ? desired : y + (desired - y) * alpha;
    if (Math.abs(y - desired) < snap) y = desired;
    if (y < lo) y = lo; else if (y > hi) y = hi;
    if (!Number.isFinite(y)) y = 0;
    offsetWs[c * 3] = ox; offsetWs[c * 3 + 1] = y; offsetWs[c * 3 + 2] = oz;
    SC.bandLo[c] = lo; SC.bandHi[c] = hi; SC.bandLegs[c] = nIn; SC.bandInfeasible[c] = nBad;
    const slack = 1e-6 * meanLen;
    SC.bandBeyondLimits[c] = y < dropLim - slack || y > raiseLim + slack ? 1 : 0;
    SC.initialised[c] = 1;
    // (one expression, not a chain of branches: the last comparisons would first run only once
    // the offset settles at 0, and a comparison first met late deoptimises the whole system)
    if (Math.abs(ox) + Math.abs(y) + Math.abs(oz) === 0) continue;
    applyPelvisOffset(world, c);
  }
}

/**
 * Move the pelvis by the world translation `offsetWs`: its local translation through the
 * inverse of its parent's linear part, and the world matrices of the pelvis and every
 * descendant shifted by the same translation (exact: a translated subtree only changes its
 * translation column). Per-frame; no allocation.
 */
function applyPelvisOffset(world: BitrigWorld, c: number): void {
  const SC = world.components.SceneCharacter;
  const ps = SC.pelvisSlot[c]!;
  const char = SC.char[c]!;
  const dx = SC.offsetWs[c * 3]!, dy = SC.offsetWs[c * 3 + 1]!, dz = SC.offsetWs[c * 3 + 2]!;
  const pose = world.pose;
  const par = pose.parent[ps]!;
  const m = par >= 0 ? pose.worldM : pose.charRootWs;
  const mo = par >= 0 ? par * 16 : char * 16;
  // Solve linear(m) · d = (dx, dy, dz).
  const a00 = m[mo]!, a01 = m[mo + 1]!, a02 = m[mo + 2]!;
  const a10 = m[mo + 4]!, a11 = m[mo + 5]!, a12 = m[mo + 6]!;
  const a20 = m[mo + 8]!, a21 = m[mo + 9]!, a22 = m[mo + 10]!;
  const b01 = a22 * a11 - a12 * a21, b11 = -a22 * a10 + a12 * a20, b21 = a21 * a10 - a11 * a20;
  const det = a00 * b01 + a01 * b11 + a02 * b21;
  if (!(Math.abs(det) > 1e-300) || !Number.isFinite(det)) return;
  const id = 1 / det;
  const lx = (b01 * dx + (-a22 * a01 + a02 * a21) * dy + (a12 * a01 - a02 * a11) * dz) * id;
  const ly = (b11 * dx + (a22 * a00 - a02 * a20) * dy + (-a12 * a00 + a02 * a10) * dz) * id;
  const lz = (b21 * dx + (-a21 * a00 + a01 * a20) * dy + (a11 * a00 - a01 * a10) * dz) * id;
  const T = pose.localT;
  T[ps * 3] = T[ps * 3]! + lx;
  T[ps * 3 + 1] = T[ps * 3 + 1]! + ly;
  T[ps * 3 + 2] = T[ps * 3 + 2]! + lz;
  const wm = pose.worldM;
  const end = SC.pelvisSubEnd[c]!;
  if (SC.pelvisDense[c] === 1) {
    // The subtree is the contiguous range [ps, end).
    for (let o = ps * 16 + 12; o < end * 16; o += 16) { wm[o] = wm[o]! + dx; wm[o + 1] = wm[o + 1]! + dy; wm[o + 2] = wm[o + 2]! + dz; }
    return;
  }
  const dirty = pose.dirty;
  const parent = pose.parent;
  wm[ps * 16 + 12] = wm[ps * 16 + 12]! + dx; wm[ps * 16 + 13] = wm[ps * 16 + 13]! + dy; wm[ps * 16 + 14] = wm[ps * 16 + 14]! + dz;
  dirty[ps] = 1;
  for (let k = ps + 1; k < end; k++) {
    const p = parent[k]!;
    if (p >= 0 && dirty[p] === 1) {
      const o = k * 16;
      wm[o + 12] = wm[o + 12]! + dx; wm[o + 13] = wm[o + 13]! + dy; wm[o + 14] = wm[o + 14]! + dz;
      dirty[k] = 1;
    }
  }
  for (let k = ps; k < end; k++) dirty[k] = 0;
}
