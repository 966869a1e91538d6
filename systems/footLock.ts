/**
 * FootLock — planted feet, terrain and moving supports (SPEC §4, pipeline step 1).
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
 * counts as "no ground").
 */
import type { BitrigWorld } from '../core/world';
import { MAX_LEGS } from '../core/components/scene';
import type { GroundHit } from '../core/sceneIK';
import { rotationOfMatrix, rotationToLocal, rotationToWorld, transformPoint } from '../core/ik/frames';
import { qMul, qMulConj, qRotate, qRotateInv, qSlerp, qSwing } from '../core/qmath';

const _q = new Float64Array(24);
const _v = new Float64Array(24);
const _hit: GroundHit = { height: 0, normal: new Float64Array(3), support: -1 };
const _hitNormal = _hit.normal as Float64Array;
const _g = new Float64Array(5); // ground: height, normal x y z, support
const _tilt = new Float64Array(2); // memo: [maxTilt, cos(maxTilt / 2)]

/**
 * Run the foot-lock step for every scene character.
 *
 * @example
 * footLock(world, 1 / 60);
 */
export function footLock(world: BitrigWorld, dt: number): void {
  const SC = world.components.SceneCharacter;
  const chars = world.queries.sceneChars.dense;
  const valid = dt > 0 && Number.isFinite(dt);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const want = SC.grounded[c] === 1 ? 1 : 0;
    let gb = SC.groundBlend[c]!;
    if (SC.initialised[c] === 0) gb = want;
    else if (valid && gb !== want) {
      gb += (want - gb) * (1 - Math.exp(-SC.groundRate[c]! * dt));
      if (Math.abs(want - gb) < 1e-4) gb = want;
    }
    if (!(gb >= 0 && gb <= 1)) gb = want;
    SC.groundBlend[c] = gb;
    const n = SC.legCount[c]!;
    for (let k = 0; k < n; k++) footLeg(world, SC.legs[c * MAX_LEGS + k]!, c);
  }
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
  try { ok = fn(_v[0]!, _v[2]!, _hit) === true; } catch { ok = false; }
  const h = +_hit.height;
  if (!ok || !Number.isFinite(h)) return false;
  const nn = _hit.normal;
  let nx = +nn[0]!, ny = +nn[1]!, nz = +nn[2]!;
  const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(l > 1e-12) || !Number.isFinite(l) || !(ny / l > 1e-6)) { nx = 0; ny = 1; nz = 0; } else { nx /= l; ny /= l; nz /= l; }
  const s = _hit.support;
  const S = world.components.SupportFrame;
  _g[0] = h; _g[1] = nx; _g[2] = ny; _g[3] = nz;
  _g[4] = Number.isInteger(s) && s >= 0 && s < world.capacity && S.alive[s] === 1 ? s : -1;
  return true;
}

function footLeg(world: BitrigWorld, e: number, c: number): void {
  const gb = world.components.SceneCharacter.groundBlend[c]!;
  const refY = world.pose.charRootWs[world.components.SceneCharacter.char[c]! * 16 + 13]!;
  const L = world.components.Limb;
  const F = world.components.FootContact;
  const S = world.components.SupportFrame;
  const wm = world.pose.worldM;
  const wo = L.endSlot[e]! * 16;
  // Animated foot: orientation qA (_q 0), sole point (_v 0), sole normal (_v 3), ankle (_v 6).
  rotationOfMatrix(_q, 0, wm, wo);
  transformPoint(_v, 0, wm, wo, F.soleLs, e * 3);
  const snx = F.soleNormalLs[e * 3]!, sny = F.soleNormalLs[e * 3 + 1]!, snz = F.soleNormalLs[e * 3 + 2]!;
  let nax = wm[wo]! * snx + wm[wo + 4]! * sny + wm[wo + 8]! * snz;
  let nay = wm[wo + 1]! * snx + wm[wo + 5]! * sny + wm[wo + 9]! * snz;
  let naz = wm[wo + 2]! * snx + wm[wo + 6]! * sny + wm[wo + 10]! * snz;
  const nal = Math.sqrt(nax * nax + nay * nay + naz * naz);
  if (nal > 1e-12 && Number.isFinite(nal)) { nax /= nal; nay /= nal; naz /= nal; } else { nax = 0; nay = 1; naz = 0; }
  _v[3] = nax; _v[4] = nay; _v[5] = naz;
  _v[6] = wm[wo + 12]!; _v[7] = wm[wo + 13]!; _v[8] = wm[wo + 14]!;
  if (!Number.isFinite(_v[0]! + _v[1]! + _v[2]! + _q[3]!)) {
    // Non-finite animated foot: ask for nothing this frame.
    L.weight[e] = 0; L.rotWeight[e] = 0; F.stanceEff[e] = 0; F.locked[e] = 0;
    return;
  }
  let st = F.stance[e]!;
  if (!(st > 0)) st = 0; else if (st > 1) st = 1;
  const w = st * gb;
  F.stanceEff[e] = w;
  const hasGround = queryGround(world, c);
  F.hasGround[e] = hasGround ? 1 : 0;
  const h = hasGround ? _g[0]! : _v[1]!;
  F.groundY[e] = h;
  F.groundSupport[e] = hasGround ? _g[4]! : -1;
  // Free target F (_v 9) and orientation qA.
  _v[9] = _v[0]!; _v[10] = _v[1]!; _v[11] = _v[2]!;
  if (hasGround) {
    _v[10] = _v[1]! + gb * (h - refY);
    if (_v[10]! < h) _v[10] = _v[10]! + (h - _v[10]!) * gb;
  }
  if (w <= 0) F.locked[e] = 0;
  // Planted target G (_v 12), orientation (_q 4), ground normal (_v 15).
  if (F.locked[e] === 1) {
    const s = F.support[e]!;
    if (s >= 0) {
      transformPoint(_v, 12, S.matrixWs, s * 16, F.contactSs, e * 3);
      const mir = S.mirrored[s] === 1;
      rotationToWorld(_q, 4, S.rotWs, s * 4, F.rotSs, e * 4, mir);
      // normal: R · D · n (D negates x in a mirrored frame)
      _v[15] = mir ? -F.normalSs[e * 3]! : F.normalSs[e * 3]!; _v[16] = F.normalSs[e * 3 + 1]!; _v[17] = F.normalSs[e * 3 + 2]!;
      qRotate(_v, 15, S.rotWs, s * 4, _v, 15);
    } else {
      for (let k = 0; k < 3; k++) { _v[12 + k] = F.contactSs[e * 3 + k]!; _v[15 + k] = F.normalSs[e * 3 + k]!; }
      for (let k = 0; k < 4; k++) _q[4 + k] = F.rotSs[e * 4 + k]!;
    }
  } else if (hasGround) {
    _v[12] = _v[0]!; _v[13] = h; _v[14] = _v[2]!;
    _v[15] = _g[1]!; _v[16] = _g[2]!; _v[17] = _g[3]!;
    // Sole normal onto the ground normal, at most maxTilt.
    qSwing(_q, 8, _v, 3, _v, 15);
    const maxT = F.maxTilt[e]!;
    if (_tilt[0] !== maxT) { _tilt[0] = maxT; _tilt[1] = Math.cos(0.5 * maxT); }
    const cw = Math.abs(_q[11]!);
    if (cw < _tilt[1]!) {
      // beyond maxTilt: keep maxTilt of the swing
      const ang = 2 * Math.acos(cw > 1 ? 1 : cw);
      _q[12] = 0; _q[13] = 0; _q[14] = 0; _q[15] = 1;
      qSlerp(_q, 8, _q, 12, _q, 8, ang > 0 ? maxT / ang : 0);
    }
    qMul(_q, 4, _q, 8, _q, 0);
    if (w >= F.lockOn[e]!) {
      // Record the contact in the supporting entity's local frame.
      const s = _g[4]!;
      F.support[e] = s;
      if (s >= 0) {
        transformPoint(F.contactSs, e * 3, S.invMatrixWs, s * 16, _v, 12);
        const mir = S.mirrored[s] === 1;
        rotationToLocal(F.rotSs, e * 4, S.rotWs, s * 4, _q, 4, mir);
        qRotateInv(F.normalSs, e * 3, S.rotWs, s * 4, _v, 15);
        if (mir) F.normalSs[e * 3] = -F.normalSs[e * 3]!;
      } else {
        for (let k = 0; k < 3; k++) { F.contactSs[e * 3 + k] = _v[12 + k]!; F.normalSs[e * 3 + k] = _v[15 + k]!; }
        for (let k = 0; k < 4; k++) F.rotSs[e * 4 + k] = _q[4 + k]!;
      }
      F.locked[e] = 1;
    }
  } else {
    // No ground: nothing to plant on.
    _v[12] = _v[9]!; _v[13] = _v[10]!; _v[14] = _v[11]!;
    _v[15] = 0; _v[16] = 1; _v[17] = 0;
    for (let k = 0; k < 4; k++) _q[4 + k] = _q[k]!;
  }
  for (let k = 0; k < 3; k++) { F.contactWs[e * 3 + k] = _v[12 + k]!; F.normalWs[e * 3 + k] = _v[15 + k]!; }
  // Blend: sole target T (_v 18), orientation (_q 16).
  _v[18] = _v[9]! + w * (_v[12]! - _v[9]!);
  _v[19] = _v[10]! + w * (_v[13]! - _v[10]!);
  _v[20] = _v[11]! + w * (_v[14]! - _v[11]!);
  if (w >= 1) for (let k = 0; k < 4; k++) _q[16 + k] = _q[4 + k]!;
  else if (w > 0) qSlerp(_q, 16, _q, 0, _q, 4, w);
  else for (let k = 0; k < 4; k++) _q[16 + k] = _q[k]!;
  // Ankle target = T − R_delta (sole − ankle), R_delta = q_t · qA⁻¹.
  qMulConj(_q, 20, _q, 16, _q, 0);
  _v[21] = _v[0]! - _v[6]!; _v[22] = _v[1]! - _v[7]!; _v[23] = _v[2]! - _v[8]!;
  qRotate(_v, 21, _q, 20, _v, 21);
  L.targetWs[e * 3] = _v[18]! - _v[21]!;
  L.targetWs[e * 3 + 1] = _v[19]! - _v[22]!;
  L.targetWs[e * 3 + 2] = _v[20]! - _v[23]!;
  for (let k = 0; k < 4; k++) L.targetRotWs[e * 4 + k] = _q[16 + k]!;
  L.hasTargetRot[e] = 1;
  L.weight[e] = gb;
  L.rotWeight[e] = gb;
  L.hasPole[e] = 0;
}
