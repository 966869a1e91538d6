/**
 * FootLock — planted feet, terrain and moving supports.
 *
 * Reads: per character the `grounded` input, the game's ground query and the root frame's
 * world height (the character's reference floor); per leg the stance weight, the sole
 * calibration, the animated world matrix of the end bone (pose store), and the recorded
 * contact with its SupportFrame (world matrix this frame).
 * Writes: per character the grounded fade `groundBlend`; per leg `stanceEff`, the lock state
 * (contact point, foot orientation and ground normal in the support's local frame), the
 * diagnostics (`contactWs`, `normalWs`, `groundY`, …) and the leg's IK request in the Limb
 * component: the end joint's world target, its world orientation target and the weights.
 *
 * Per leg, with w the stance weight (× grounded fade):
 * - free target F: the animated sole raised by the ground height under it minus the
 *   reference floor (the clip's swing height is kept above the terrain; never below it);
 * - planted target G: when locked, the recorded contact carried by its support's current
 *   frame (a translating or rotating platform carries the foot; the static world keeps it
 *   in place while the body moves); otherwise the animated sole dropped onto the ground with
 *   the sole normal turned onto the ground normal (at most `maxTilt`);
 * - a contact is recorded in the support's local frame when w reaches `lockOn` and released
 *   when w returns to 0, so the target never jumps: target = F + w (G − F), orientation
 *   slerp(F, G, w).
 * Units: world units; angles radians. Never allocates, never throws (a throwing ground query
 * counts as "no ground"; the error is kept in `world.groundError` for the diagnostics).
 *
 * With WebAssembly (`world.tailAccel.scene`, these components in its memory) every character
 * runs in `wasm/sceneContacts.ts`, the same operations in the same order, so every f64 is
 * bit-identical (test/scene/contactsWasm.test.ts). The game's ground queries (JavaScript
 * callbacks) are asked first, by {@link groundPrepass}, for the same legs, sole points and
 * order (test/scene/contactsWasmFuzz.test.ts compares the call logs); a query that reads
 * FootLock's outputs of this frame (another character's, or its own `groundBlend` and earlier
 * legs') would see them one frame older, and one that grows a capacity (adds supports past the
 * rows made at setup) loses that frame's foot lock — a ground query answers from the game's
 * terrain and adds nothing.
 *
 * Runs over a range of the scene characters (`from`, `count` into `world.queries.sceneChars.dense`;
 * all by default): characters are independent here, so a game's job system may split them.
 */
import { releaseLegs, sceneCharacterOk } from '../core/sceneGuard';
import type { BitrigWorld } from '../core/world';
import type { SceneContactsKernel } from '../core/kernelTypes';
import { MAX_LEGS } from '../core/components/scene';
import type { GroundHit } from '../core/sceneIK';
import { qSlerpAt, rotationToLocal, transformPoint } from '../core/ik/frames';
import { qRotateInv, qSwing } from '../core/qmath';

const _q = new Float64Array(24);
const _v = new Float64Array(24);
const _hit: GroundHit = { height: 0, normal: new Float64Array(3), support: -1 };
const _hitNormal = _hit.normal as Float64Array;
const _gp = new Float64Array(3); // ground query point (world sole)
const _g = new Float64Array(5); // ground: height, normal x y z, support
const _tilt = Float64Array.of(NaN, NaN); // memo: [maxTilt, cos(maxTilt / 2)] (NaN: nothing memoised, so maxTilt 0 computes cos 0 = 1)
const _f = new Float64Array(1); // slerp fraction (passed in an array: no boxed double argument)
const _qa = new Float64Array(4); // footRotation's result: the animated foot's world rotation qA (x, y, z, w)

/**
 * Run the foot-lock step for the scene characters `[from, from + count)` of
 * `world.queries.sceneChars.dense` (every one by default).
 *
 * @example
 * footLock(world, 1 / 60);
 */
export function footLock(world: BitrigWorld, dt: number, from = 0, count = 0x7fffffff): void {
  const SC = world.components.SceneCharacter;
  const L = world.components.Limb;
  const F = world.components.FootContact;
  const S = world.components.SupportFrame;
  const wm = world.pose.worldM;
  const rootWs = world.pose.charRootWs;
  const chars = world.queries.sceneChars.dense;
  const valid = dt > 0 && Number.isFinite(dt);
  const lo = from > 0 ? from : 0;
  const hi = count < chars.length - lo ? lo + count : chars.length;
  const accel = world.tailAccel;
  if (accel != null && accel.scene !== null && hi - lo <= accel.sceneList.length && S.matrixWs.buffer === accel.memory.buffer) {
    if (hi <= lo) return;
    groundPrepass(world, accel, lo, hi);
    accel.sceneParams[0] = dt;
    accel.scene.footLockRun(0, hi - lo);
    return;
  }
  for (let i = lo; i < hi; i++) {
    const c = chars[i]!;
    // (structure fields outside the world's arrays: left alone, its legs as animated — core/sceneGuard.ts)
    if (!sceneCharacterOk(world, c)) { releaseLegs(world, c); continue; }
    const want = SC.grounded[c] === 1 ? 1 : 0;
    let gb = SC.groundBlend[c]!;
    if (SC.initialised[c] === 0) gb = want;
    else if (valid && gb !== want) {
      gb += (want - gb) * (1 - Math.exp(-SC.groundRate[c]! * dt));
      if (Math.abs(want - gb) < 1e-4) gb = want;
    }
    if (!(gb >= 0 && gb <= 1)) gb = want;
    SC.groundBlend[c] = gb;
    const refY = rootWs[SC.char[c]! * 16 + 13]!; // the character's reference floor (root frame height)
    const n = SC.legCount[c]!;
    for (let k = 0; k < n; k++) {
      const e = SC.legs[c * MAX_LEGS + k]!;
      const wo = L.endSlot[e]! * 16;
      // Animated foot (end bone world matrix): orientation qA, sole point p, sole normal na, ankle a.
      const m0 = wm[wo]!, m1 = wm[wo + 1]!, m2 = wm[wo + 2]!;
      const m4 = wm[wo + 4]!, m5 = wm[wo + 5]!, m6 = wm[wo + 6]!;
      const m8 = wm[wo + 8]!, m9 = wm[wo + 9]!, m10 = wm[wo + 10]!;
      const atx = wm[wo + 12]!, aty = wm[wo + 13]!, atz = wm[wo + 14]!;
      // qA: rotation of the linear part (footRotation)
      footRotation(wm, wo);
      const qax = _qa[0]!, qay = _qa[1]!, qaz = _qa[2]!, qaw = _qa[3]!;
      const e3 = e * 3, e4 = e * 4;
      const sl0 = F.soleLs[e3]!, sl1 = F.soleLs[e3 + 1]!, sl2 = F.soleLs[e3 + 2]!;
      const px = m0 * sl0 + m4 * sl1 + m8 * sl2 + atx;
      const py = m1 * sl0 + m5 * sl1 + m9 * sl2 + aty;
      const pz = m2 * sl0 + m6 * sl1 + m10 * sl2 + atz;
      if (!Number.isFinite(px + py + pz + qaw)) {
        // Non-finite animated foot: ask for nothing this frame.
        L.weight[e] = 0; L.rotWeight[e] = 0; F.stanceEff[e] = 0; F.locked[e] = 0;
        continue;
      }
      let st = F.stance[e]!;
      if (!(st > 0)) st = 0; else if (st > 1) st = 1;
      const w = st * gb;
      F.stanceEff[e] = w;
      // Ground under the sole: height h, normal gn, support gs.
      let hasGround: boolean, h: number, gnx = 0, gny = 1, gnz = 0, gs = -1;
      if (!SC.ground[c]) {
        h = refY;
        hasGround = Number.isFinite(h);
      } else {
        _v[0] = px; _v[1] = py; _v[2] = pz;
        hasGround = queryGround(world, c);
        h = _g[0]!; gnx = _g[1]!; gny = _g[2]!; gnz = _g[3]!; gs = _g[4]!;
      }
      F.hasGround[e] = hasGround ? 1 : 0;
      if (!hasGround) h = py;
      F.groundY[e] = h;
      F.groundSupport[e] = hasGround ? gs : -1;
      // Free target (fx, fy, fz), orientation qA.
      const fx = px, fz = pz;
      let fy = py;
      if (hasGround) {
        fy = py + gb * (h - refY);
        if (fy < h) fy = fy + (h - fy) * gb;
      }
      if (w <= 0) F.locked[e] = 0;
      // Planted target G, orientation qg, ground normal gN.
      let Gx: number, Gy: number, Gz: number, Nx: number, Ny: number, Nz: number;
      let qgx: number, qgy: number, qgz: number, qgw: number;
      if (F.locked[e] === 1) {
        const s = F.support[e]!;
        const sr = s >= 0 ? S.row[s]! : -1; // the support's row
        if (sr >= 0) {
          const M = S.matrixWs, so = sr * 16;
          const cx = F.contactSs[e3]!, cy = F.contactSs[e3 + 1]!, cz = F.contactSs[e3 + 2]!;
          Gx = M[so]! * cx + M[so + 4]! * cy + M[so + 8]! * cz + M[so + 12]!;
          Gy = M[so + 1]! * cx + M[so + 5]! * cy + M[so + 9]! * cz + M[so + 13]!;
          Gz = M[so + 2]! * cx + M[so + 6]! * cy + M[so + 10]! * cz + M[so + 14]!;
          const mir = S.mirrored[sr] === 1;
          const Q = S.rotWs, s4 = sr * 4;
          const ax = Q[s4]!, ay = Q[s4 + 1]!, az = Q[s4 + 2]!, aw = Q[s4 + 3]!;
          // orientation: qS · M(rotSs) (rotationToWorld)
          const bx = F.rotSs[e4]!, by = mir ? -F.rotSs[e4 + 1]! : F.rotSs[e4 + 1]!, bz = mir ? -F.rotSs[e4 + 2]! : F.rotSs[e4 + 2]!, bw = F.rotSs[e4 + 3]!;
          qgx = ax * bw + aw * bx + ay * bz - az * by;
          qgy = ay * bw + aw * by + az * bx - ax * bz;
          qgz = az * bw + aw * bz + ax * by - ay * bx;
          qgw = aw * bw - ax * bx - ay * by - az * bz;
          // normal: R · D · n (D negates x in a mirrored frame)
          const vx = mir ? -F.normalSs[e3]! : F.normalSs[e3]!, vy = F.normalSs[e3 + 1]!, vz = F.normalSs[e3 + 2]!;
          const tx = 2 * (ay * vz - az * vy), ty = 2 * (az * vx - ax * vz), tz = 2 * (ax * vy - ay * vx);
          Nx = vx + aw * tx + (ay * tz - az * ty);
          Ny = vy + aw * ty + (az * tx - ax * tz);
          Nz = vz + aw * tz + (ax * ty - ay * tx);
        } else {
          Gx = F.contactSs[e3]!; Gy = F.contactSs[e3 + 1]!; Gz = F.contactSs[e3 + 2]!;
          Nx = F.normalSs[e3]!; Ny = F.normalSs[e3 + 1]!; Nz = F.normalSs[e3 + 2]!;
          qgx = F.rotSs[e4]!; qgy = F.rotSs[e4 + 1]!; qgz = F.rotSs[e4 + 2]!; qgw = F.rotSs[e4 + 3]!;
        }
      } else if (hasGround) {
        Gx = px; Gy = h; Gz = pz;
        Nx = gnx; Ny = gny; Nz = gnz;
        // Sole normal onto the ground normal, at most maxTilt.
        // the animated sole normal (unit; up when degenerate), only needed here
        const snx = F.soleNormalLs[e3]!, sny = F.soleNormalLs[e3 + 1]!, snz = F.soleNormalLs[e3 + 2]!;
        let nax = m0 * snx + m4 * sny + m8 * snz;
        let nay = m1 * snx + m5 * sny + m9 * snz;
        let naz = m2 * snx + m6 * sny + m10 * snz;
        const nal = Math.sqrt(nax * nax + nay * nay + naz * naz);
        if (nal > 1e-12 && Number.isFinite(nal)) { nax /= nal; nay /= nal; naz /= nal; } else { nax = 0; nay = 1; naz = 0; }
        _v[3] = nax; _v[4] = nay; _v[5] = naz;
        _v[15] = Nx; _v[16] = Ny; _v[17] = Nz;
        qSwing(_q, 8, _v, 3, _v, 15);
        const maxT = F.maxTilt[e]!;
        if (_tilt[0] !== maxT) { _tilt[0] = maxT; _tilt[1] = Math.cos(0.5 * maxT); }
        const cw = Math.abs(_q[11]!);
        if (cw < _tilt[1]!) {
          // beyond maxTilt: keep maxTilt of the swing
          const ang = 2 * Math.acos(cw > 1 ? 1 : cw);
          _q[12] = 0; _q[13] = 0; _q[14] = 0; _q[15] = 1;
          _f[0] = ang > 0 ? maxT / ang : 0;
          qSlerpAt(_q, 8, _q, 12, _q, 8, _f, 0);
        }
        // qg = swing · qA
        {
          const ax = _q[8]!, ay = _q[9]!, az = _q[10]!, aw = _q[11]!;
          qgx = ax * qaw + aw * qax + ay * qaz - az * qay;
          qgy = ay * qaw + aw * qay + az * qax - ax * qaz;
          qgz = az * qaw + aw * qaz + ax * qay - ay * qax;
          qgw = aw * qaw - ax * qax - ay * qay - az * qaz;
        }
        if (w >= F.lockOn[e]!) {
          // Record the contact in the supporting entity's local frame.
          const s = gs;
          F.support[e] = s;
          if (s >= 0) {
            const sr = S.row[s]!; // (a live support: checked by the ground query)
            _v[12] = Gx; _v[13] = Gy; _v[14] = Gz;
            _q[4] = qgx; _q[5] = qgy; _q[6] = qgz; _q[7] = qgw;
            transformPoint(F.contactSs, e3, S.invMatrixWs, sr * 16, _v, 12);
            const mir = S.mirrored[sr] === 1;
            rotationToLocal(F.rotSs, e4, S.rotWs, sr * 4, _q, 4, mir);
            qRotateInv(F.normalSs, e3, S.rotWs, sr * 4, _v, 15);
            if (mir) F.normalSs[e3] = -F.normalSs[e3]!;
          } else {
            F.contactSs[e3] = Gx; F.contactSs[e3 + 1] = Gy; F.contactSs[e3 + 2] = Gz;
            F.normalSs[e3] = Nx; F.normalSs[e3 + 1] = Ny; F.normalSs[e3 + 2] = Nz;
            F.rotSs[e4] = qgx; F.rotSs[e4 + 1] = qgy; F.rotSs[e4 + 2] = qgz; F.rotSs[e4 + 3] = qgw;
          }
          F.locked[e] = 1;
        }
      } else {
        // No ground: nothing to plant on.
        Gx = fx; Gy = fy; Gz = fz;
        Nx = 0; Ny = 1; Nz = 0;
        qgx = qax; qgy = qay; qgz = qaz; qgw = qaw;
      }
      F.contactWs[e3] = Gx; F.contactWs[e3 + 1] = Gy; F.contactWs[e3 + 2] = Gz;
      F.normalWs[e3] = Nx; F.normalWs[e3 + 1] = Ny; F.normalWs[e3 + 2] = Nz;
      // Blend: sole target T, orientation qt.
      const Tx = fx + w * (Gx - fx), Ty = fy + w * (Gy - fy), Tz = fz + w * (Gz - fz);
      let qtx: number, qty: number, qtz: number, qtw: number;
      if (w >= 1) { qtx = qgx; qty = qgy; qtz = qgz; qtw = qgw; } else if (w > 0) {
        _q[0] = qax; _q[1] = qay; _q[2] = qaz; _q[3] = qaw;
        _q[4] = qgx; _q[5] = qgy; _q[6] = qgz; _q[7] = qgw;
        _f[0] = w;
        qSlerpAt(_q, 16, _q, 0, _q, 4, _f, 0);
        qtx = _q[16]!; qty = _q[17]!; qtz = _q[18]!; qtw = _q[19]!;
      } else { qtx = qax; qty = qay; qtz = qaz; qtw = qaw; }
      // Ankle target = T − R_delta (sole − ankle), R_delta = qt · qA⁻¹.
      const rx = qtx * qaw - qtw * qax - qty * qaz + qtz * qay;
      const ry = qty * qaw - qtw * qay - qtz * qax + qtx * qaz;
      const rz = qtz * qaw - qtw * qaz - qtx * qay + qty * qax;
      const rw = qtw * qaw + qtx * qax + qty * qay + qtz * qaz;
      const vx = px - atx, vy = py - aty, vz = pz - atz;
      const tx = 2 * (ry * vz - rz * vy), ty = 2 * (rz * vx - rx * vz), tz = 2 * (rx * vy - ry * vx);
      L.targetWs[e3] = Tx - (vx + rw * tx + (ry * tz - rz * ty));
      L.targetWs[e3 + 1] = Ty - (vy + rw * ty + (rz * tx - rx * tz));
      L.targetWs[e3 + 2] = Tz - (vz + rw * tz + (rx * ty - ry * tx));
      L.targetRotWs[e4] = qtx; L.targetRotWs[e4 + 1] = qty; L.targetRotWs[e4 + 2] = qtz; L.targetRotWs[e4 + 3] = qtw;
      L.hasTargetRot[e] = 1;
      L.weight[e] = gb;
      L.rotWeight[e] = gb;
      L.hasPole[e] = 0;
    }
  }
}

/**
 * The kernel's list and ground hits: the characters in order (`-1 - c` for a character with a
 * ground query) and, for each leg of those whose animated sole point is finite, the ground
 * query's answer for it ({@link queryGround}: the same point, asked in the same order as the
 * JavaScript loop asks; a leg the kernel finds non-finite is not asked, as there).
 */
function groundPrepass(world: BitrigWorld, accel: SceneContactsKernel, lo: number, hi: number): void {
  const SC = world.components.SceneCharacter;
  const L = world.components.Limb;
  const F = world.components.FootContact;
  const wm = world.pose.worldM;
  const chars = world.queries.sceneChars.dense;
  const list = accel.sceneList, ground = SC.ground, hit = accel.sceneGround, ok = accel.sceneGroundOk;
  for (let i = lo; i < hi; i++) {
    const c = chars[i]!, j = i - lo;
    if (!ground[c]) { list[j] = c; continue; }
    list[j] = -1 - c;
    if (!sceneCharacterOk(world, c)) continue; // (the kernel leaves it alone: no ground asked for it)
    const n = SC.legCount[c]!;
    for (let k = 0; k < n; k++) {
      const e = SC.legs[c * MAX_LEGS + k]!;
      const wo = L.endSlot[e]! * 16, e3 = e * 3;
      const sl0 = F.soleLs[e3]!, sl1 = F.soleLs[e3 + 1]!, sl2 = F.soleLs[e3 + 2]!;
      const px = wm[wo]! * sl0 + wm[wo + 4]! * sl1 + wm[wo + 8]! * sl2 + wm[wo + 12]!;
      const py = wm[wo + 1]! * sl0 + wm[wo + 5]! * sl1 + wm[wo + 9]! * sl2 + wm[wo + 13]!;
      const pz = wm[wo + 2]! * sl0 + wm[wo + 6]! * sl1 + wm[wo + 10]! * sl2 + wm[wo + 14]!;
      // (the loop's test of px + py + pz + qA.w: the callback is asked for exactly the legs the loop asks for)
      footRotation(wm, wo);
      if (!Number.isFinite(px + py + pz + _qa[3]!)) continue;
      _v[0] = px; _v[1] = py; _v[2] = pz;
      ok[e] = queryGround(world, c) ? 1 : 0;
      const g = e * 5;
      hit[g] = _g[0]!; hit[g + 1] = _g[1]!; hit[g + 2] = _g[2]!; hit[g + 3] = _g[3]!; hit[g + 4] = _g[4]!;
    }
  }
}

/**
 * `_qa` ← the rotation of the linear part of the world matrix wm[wo..] (as rotationOfMatrix:
 * Gram–Schmidt, x negated when mirrored, Shepperd; identity when degenerate): the animated
 * foot's orientation qA. One copy for the JavaScript loop and the ground pre-pass, which must
 * skip exactly the legs the loop skips (a finite sole point can still have a NaN rotation: huge
 * finite columns overflow the Gram–Schmidt dot product).
 */
function footRotation(wm: Float64Array, wo: number): void {
  const m0 = wm[wo]!, m1 = wm[wo + 1]!, m2 = wm[wo + 2]!;
  const m4 = wm[wo + 4]!, m5 = wm[wo + 5]!, m6 = wm[wo + 6]!;
  const m8 = wm[wo + 8]!, m9 = wm[wo + 9]!, m10 = wm[wo + 10]!;
  let qax = 0, qay = 0, qaz = 0, qaw = 1;
  {
    let x0 = m0, x1 = m1, x2 = m2, y0 = m4, y1 = m5, y2 = m6;
    const d = x0 * (y1 * m10 - y2 * m9) - y0 * (x1 * m10 - x2 * m9) + m8 * (x1 * y2 - x2 * y1);
    if (d < 0) { x0 = -x0; x1 = -x1; x2 = -x2; }
    let l = x0 * x0 + x1 * x1 + x2 * x2;
    if (l > 1e-300 && Number.isFinite(l)) {
      l = 1 / Math.sqrt(l);
      x0 *= l; x1 *= l; x2 *= l;
      const dp = y0 * x0 + y1 * x1 + y2 * x2;
      y0 -= dp * x0; y1 -= dp * x1; y2 -= dp * x2;
      l = y0 * y0 + y1 * y1 + y2 * y2;
      if (l > 1e-300) {
        l = 1 / Math.sqrt(l);
        y0 *= l; y1 *= l; y2 *= l;
        const r02 = x1 * y2 - x2 * y1, r12 = x2 * y0 - x0 * y2, r22 = x0 * y1 - x1 * y0;
        const tr = x0 + y1 + r22;
        if (tr > 0) {
          const s2 = Math.sqrt(tr + 1) * 2, is = 1 / s2;
          qaw = 0.25 * s2; qax = (y2 - r12) * is; qay = (r02 - x2) * is; qaz = (x1 - y0) * is;
        } else if (x0 > y1 && x0 > r22) {
          const s2 = Math.sqrt(1 + x0 - y1 - r22) * 2, is = 1 / s2;
          qaw = (y2 - r12) * is; qax = 0.25 * s2; qay = (y0 + x1) * is; qaz = (r02 + x2) * is;
        } else if (y1 > r22) {
          const s2 = Math.sqrt(1 + y1 - x0 - r22) * 2, is = 1 / s2;
          qaw = (r02 - x2) * is; qax = (y0 + x1) * is; qay = 0.25 * s2; qaz = (r12 + y2) * is;
        } else {
          const s2 = Math.sqrt(1 + r22 - x0 - y1) * 2, is = 1 / s2;
          qaw = (x1 - y0) * is; qax = (r02 + x2) * is; qay = (r12 + y2) * is; qaz = 0.25 * s2;
        }
      }
    }
  }
  _qa[0] = qax; _qa[1] = qay; _qa[2] = qaz; _qa[3] = qaw;
}

/**
 * Ground under the sole point in _v[0..2] into _g (height, normal x y z, support); the root
 * frame's height with an up normal when the character has no ground query.
 */
function queryGround(world: BitrigWorld, c: number): boolean {
  const SC = world.components.SceneCharacter;
  const fn = SC.ground[c];
  if (!fn) {
    _g[0] = world.pose.charRootWs[SC.char[c]! * 16 + 13]!; _g[1] = 0; _g[2] = 1; _g[3] = 0; _g[4] = -1;
    return Number.isFinite(_g[0]!);
  }
  _hit.height = NaN; _hit.support = -1;
  _hit.normal = _hitNormal;
  _hitNormal[0] = 0; _hitNormal[1] = 1; _hitNormal[2] = 0;
  let ok = false;
  _gp[0] = _v[0]!; _gp[1] = _v[1]!; _gp[2] = _v[2]!;
  try { ok = fn(_gp, _hit) === true; } catch (e) {
    ok = false;
    const ge = world.groundError;
    if (ge !== undefined) { ge.char = c; ge.error = e; ge.time = world.time; }
  }
  const h = +_hit.height;
  if (!ok || !Number.isFinite(h)) return false;
  // (the game may have replaced `normal`, with anything: a missing one counts as up)
  const nn = _hit.normal as ArrayLike<number> | null | undefined;
  let nx = 0, ny = 1, nz = 0;
  if (nn !== null && nn !== undefined) { nx = +nn[0]!; ny = +nn[1]!; nz = +nn[2]!; }
  const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(l > 1e-12) || !Number.isFinite(l) || !(ny / l > 1e-6)) { nx = 0; ny = 1; nz = 0; } else { nx /= l; ny /= l; nz /= l; }
  const s = _hit.support;
  const S = world.components.SupportFrame;
  _g[0] = h; _g[1] = nx; _g[2] = ny; _g[3] = nz;
  _g[4] = Number.isInteger(s) && s >= 0 && s < world.capacity && S.row[s]! >= 0 ? s : -1;
  return true;
}
