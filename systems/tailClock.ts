/**
 * TailClock — the tail's fixed internal clock and per-frame preparation.
 *
 * Reads: `world.tailClock`, the pose store's world matrix and owner of each chain's anchor (a
 * slot its character no longer owns, or links, row or bone slots outside the world's arrays —
 * `tailStructureOk` —: the chain simulates and writes nothing) and, for the
 * `'animation'` rest source, the clip's local rotations/translations of the tail bones.
 * Writes: the frame count (every call, whatever `dt`), the accumulator and step count; per
 * chain `anchorCur` (world position, rotation, uniform scale; reflected across x = 0 for a mirrored anchor, see `mirrored`), `mirrored`, `stepsLastFrame`, `resetLastFrame`, the rest rotations in animation mode,
 * and while a seat along a shown pose eases out (`seatEase`), the rest rotations turned by the
 * share left of the shown twist about each link's own direction (a zero-length link: of its
 * whole shown offset) (`restBase`, `seatTwist`, `seatAxis`);
 * and — on the first frame, a teleport or a non-finite state — the particles placed at rest.
 * Per step ({@link tailClockStep}): `anchorStep` interpolated between last frame's anchor and
 * this frame's at the new step's time.
 *
 * dt ≤ 0, NaN or Inf simulate nothing; a long frame (tab switch) runs at most
 * `maxStepsPerFrame` steps and drops the rest. Units: seconds; world units.
 */
import type { BitrigWorld } from '../core/world';
import { CLOCK, REST_ANIMATION, SEAT_EASE_TIME, SEAT_FROM_LOCAL, getLink, linkEl, linkIndex, setLink } from '../core/components/tail';
import { computeToHips, K, LF, LK, linkAim, linkFrame, refreshStepCache } from '../core/tailKernel';
import { qConjMul, qMul, qNormalize, qRotate, qSlerp, qSwingUnit } from '../core/qmath';

/**
 * Advance the clock by a frame of `dt` seconds and prepare every chain. Returns the number
 * of internal steps to run this frame.
 *
 * @example
 * const steps = tailClockBegin(world, 1 / 60);
 */
export function tailClockBegin(world: BitrigWorld, dt: number): number {
  const c = world.clock; // (a typed array: fractional seconds stored without boxing)
  const h = c[CLOCK.FIXED_STEP]!;
  const valid = Number.isFinite(dt) && dt > 0;
  c[CLOCK.FRAME_DT] = valid ? dt : 0;
  c[CLOCK.ACC_START] = c[CLOCK.ACC]!;
  c[CLOCK.CAPPED] = 0;
  c[CLOCK.FRAMES] = c[CLOCK.FRAMES]! + 1; // (here, not in update: this function is optimised within frames, see below; update's unoptimised code boxed it, 32 bytes a frame)
  if (valid) {
    c[CLOCK.TIME] = c[CLOCK.TIME]! + dt;
    c[CLOCK.ACC] = c[CLOCK.ACC]! + dt;
  }
  let steps = Math.floor(c[CLOCK.ACC]! / h + 1e-9) | 0; // (an int: passed on untagged-free)
  if (steps > c[CLOCK.MAX_STEPS]!) {
    steps = c[CLOCK.MAX_STEPS]! | 0;
    c[CLOCK.CAPPED] = 1;
    c[CLOCK.ACC] = 0;
  } else {
    c[CLOCK.ACC] = c[CLOCK.ACC]! - steps * h;
    if (c[CLOCK.ACC]! < 0) c[CLOCK.ACC] = 0;
  }
  c[CLOCK.STEPS] = steps;
  c[CLOCK.ALPHA] = c[CLOCK.ACC]! / h;
  if (c[CLOCK.ALPHA]! > 1) c[CLOCK.ALPHA] = 1;

  // Per chain (independent of each other). This function loops over the chains, which is what
  // gets it optimised within a few frames: unoptimised code boxes every number of the clock
  // arithmetic above (about 270 bytes a frame).
  const accel = world.tailAccel;
  if (accel === null) return steps; // (not attached: nothing to prepare)
  // the step length for this frame's steps (tailStep reads it from here unless given its own)
  LK[K.STEP] = h;
  accel.params[0] = h;
  // Every chain's anchor and decisions in the WebAssembly kernel; what it leaves (a reset, a
  // seat, the clip's rest pose, a seat's ease) here.
  const ents = world.queries.tails.dense;
  const ids = accel.ents;
  for (let e = 0; e < ents.length; e++) ids[e] = ents[e]!;
  const left = accel.kernel.prepareChains(ents.length, steps);
  for (let e = 0; e < left; e++) tailFinishPrepare(world, ids[e]!, steps);
  return steps;
}

/**
 * What the kernel's preparation of chain `eid` leaves to JavaScript (wasm/tailStep.ts
 * `prepareChain` has written this frame's anchor and marked a needed reset in
 * `resetLastFrame`): the clip's rest pose for the `'animation'` rest source, then the reset at
 * rest or the re-seat along the shown pose ({@link SEAT_FROM_LOCAL}), or a seat's ease. Reads
 * and writes this chain's data only.
 *
 * @example
 * for (let e = 0; e < left; e++) tailFinishPrepare(world, ids[e], steps);
 */
export function tailFinishPrepare(world: BitrigWorld, eid: number, steps: number): void {
  const C = world.components.TailChain;
  const B = world.components.BendState;
  const pose = world.pose;
  const n = C.links[eid]!;
  if (C.restSource[eid] === REST_ANIMATION) {
    for (let i = 0; i < n; i++) {
      const k = linkIndex(C.row[eid]!, i);
      const s = C.slot[k]!;
      for (let j = 0; j < 4; j++) _tw[j] = pose.localR[s * 4 + j]!;
      qNormalize(_tw, 0);
      setLink(B.restR, k, 4, _tw, 0);
      for (let j = 0; j < 3; j++) {
        const v = pose.localT[s * 3 + j]!;
        B.headLs[linkEl(k, 3, j)] = Number.isFinite(v) ? v : pose.bindT[s * 3 + j]!;
      }
    }
    computeToHips(world, eid);
  }
  if (C.resetLastFrame[eid] === 1) {
    if (C.initialised[eid] === SEAT_FROM_LOCAL) seatChainAtLocal(world, eid); else resetChainToRest(world, eid);
    C.initialised[eid] = 1;
    return;
  }
  if (C.seatEase[eid]! > 0) {
    // after a seat along a shown pose: the limit, the coupling and the rest's twist return to theirs
    seatRestBase(world, eid);
    let r = C.seatEase[eid]! * Math.exp(-(steps * world.clock[CLOCK.FIXED_STEP]!) / SEAT_EASE_TIME);
    if (r < 1e-4) { r = 0; C.seatExcess[eid] = 0; }
    C.seatEase[eid] = r;
    seatTwistRest(world, eid);
    LK[K.STEP] = world.clock[CLOCK.FIXED_STEP]!;
    refreshStepCache(world, eid);
  }
}

/**
 * `BendState.restR` of link `k` with the share `e` of its seat turn: restBase · (sin(φe/2)·a,
 * cos(φe/2)), φ = `seatTwist`, a = `seatAxis` (the link's unit tip direction in its own frame
 * for a link with a length: the twist; for a zero-length link the axis of its whole shown
 * offset, so this is restBase · slerp(I, restBase⁻¹ · shown, e)), into `out[o..o+3]`. The same
 * operations every call, so a value written from it is recognised bit for bit. (Numbers come
 * through arrays: a double argument to a call V8 does not inline is boxed.)
 */
function twistedRest(B: BitrigWorld['components']['BendState'], k: number, e: Float64Array, ei: number, out: Float64Array, o: number): void {
  const h = 0.5 * B.seatTwist[k]! * e[ei]!;
  const s = Math.sin(h);
  _tw[0] = s * B.seatAxis[linkEl(k, 3, 0)]!; _tw[1] = s * B.seatAxis[linkEl(k, 3, 1)]!; _tw[2] = s * B.seatAxis[linkEl(k, 3, 2)]!; _tw[3] = Math.cos(h);
  getLink(B.restBase, k, 4, _tw, 8);
  qMul(out, o, _tw, 8, _tw, 0);
}

/** Whether quaternion `a` at link `k` (float32) equals `v[o…o+3]` rounded to float32. */
function sameQuat(a: Float32Array, k: number, v: Float64Array, o: number): boolean {
  for (let c = 0; c < 4; c++) if (a[linkEl(k, 4, c)] !== Math.fround(v[o + c]!)) return false;
  return true;
}

/**
 * `BendState.restBase` ← chain `eid`'s rest as its source gives it: kept when `restR` is still
 * exactly what {@link seatTwistRest} made of it with the current `seatEase`, else `restR` (no
 * ease running, the animation rest source read this frame's clip into it, or options or the
 * rest source changed it since).
 */
function seatRestBase(world: BitrigWorld, eid: number): void {
  const C = world.components.TailChain;
  const B = world.components.BendState;
  const n = C.links[eid]!;
  let same = C.seatEase[eid]! > 0;
  for (let i = 0; i < n && same; i++) {
    const k = linkIndex(C.row[eid]!, i);
    twistedRest(B, k, C.seatEase, eid, _tw, 4);
    same = sameQuat(B.restR, k, _tw, 4);
  }
  if (same) return;
  for (let i = 0; i < n; i++) {
    const k = linkIndex(C.row[eid]!, i);
    for (let c = 0; c < 4; c++) B.restBase[linkEl(k, 4, c)] = B.restR[linkEl(k, 4, c)]!;
  }
}

/**
 * `restR` ← `restBase` turned by `seatEase` × each link's seat twist (exactly `restBase` at 0),
 * and the rest frames (`toHips`, rest directions) that follow from it. Needs
 * {@link seatRestBase} first.
 */
function seatTwistRest(world: BitrigWorld, eid: number): void {
  const C = world.components.TailChain;
  const B = world.components.BendState;
  const n = C.links[eid]!;
  for (let i = 0; i < n; i++) {
    const k = linkIndex(C.row[eid]!, i);
    if (C.seatEase[eid]! > 0) {
      twistedRest(B, k, C.seatEase, eid, _tw, 4);
      setLink(B.restR, k, 4, _tw, 4);
    } else {
      for (let c = 0; c < 4; c++) B.restR[linkEl(k, 4, c)] = B.restBase[linkEl(k, 4, c)]!;
    }
  }
  computeToHips(world, eid);
}

/** Start a chain's anchor interpolation at this frame's anchor (no motion carried in from before). */
function holdAnchor(C: BitrigWorld['components']['TailChain'], a: number): void {
  for (let j = 0; j < 8; j++) {
    C.anchorPrev[a + j] = C.anchorCur[a + j]!;
    C.anchorStep[a + j] = C.anchorCur[a + j]!;
  }
}

/**
 * Place a chain at its rest pose from this frame's anchor: particles on the rest targets,
 * zero velocity, bend snapshots at identity, no contact; a seat's twist still easing out is
 * dropped (the rest rotations are the source's own again). Per-frame safe.
 */
export function resetChainToRest(world: BitrigWorld, eid: number): void {
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
  const B = world.components.BendState;
  const n = C.links[eid]!;
  const a = eid * 8;
  if (C.seatEase[eid]! > 0) {
    // (the chain's own rest, limit and coupling again: the rest at once, the others next step)
    seatRestBase(world, eid);
    C.seatEase[eid] = 0; C.seatExcess[eid] = 0; C.stepCache[eid * 5] = NaN;
    seatTwistRest(world, eid);
  }
  holdAnchor(C, a);
  setOrigin(C, eid);
  for (let i = 0; i < n; i++) {
    const k = linkIndex(C.row[eid]!, i);
    linkFrame(world, eid, i, C.anchorCur, a);
    for (let c = 0; c < 3; c++) {
      P.pos[linkEl(k, 3, c)] = LF[c]! + LF[14]! * LF[11 + c]! - C.origin[eid * 3 + c]!;
      P.vel[linkEl(k, 3, c)] = 0;
      B.bendOld[linkEl(k, 4, c)] = 0;
    }
    B.bendOld[linkEl(k, 4, 3)] = 1;
    P.contact[k] = 0;
    linkAim(world, eid, i, LF, 11);
    for (let c = 0; c < 4; c++) {
      B.localCur[linkEl(k, 4, c)] = B.restR[linkEl(k, 4, c)]!;
      B.localPrev[linkEl(k, 4, c)] = B.restR[linkEl(k, 4, c)]!;
    }
  }
}

/** The chain's particle origin ← this frame's anchor position (positions are then written relative to it). */
function setOrigin(C: BitrigWorld['components']['TailChain'], eid: number): void {
  for (let c = 0; c < 3; c++) C.origin[eid * 3 + c] = C.anchorCur[eid * 8 + c]!;
}

const _d = new Float64Array(16); // seatChainAtLocal: directions (parent frame 0–2, world 3–5, hips frame 6–8), a swing (12–15); first a rotation (0–3), directions (4–6, 8–10), the twist (12–15)
const _tw = new Float64Array(12); // a twist (0–3); a twisted rest to compare (4–7); a rest base (8–11)
const _e = new Float64Array(28); // seatChainAtLocal: one link's fields (see there)

/**
 * Place a chain along the local rotations in `BendState.localCur` (parent frames; the pose
 * shown last frame, see {@link SEAT_FROM_LOCAL}) from this frame's anchor: each particle on
 * the direction that rotation gives the link, zero velocity, bend snapshots and displayed
 * rotations as a step would leave them for that direction. The twist about each link's own
 * direction stays the shown one — the rest rotations carry it (`seatTwist` about `seatAxis`,
 * eased out with `seatEase`; every step's readback takes its twist from the rest) — so the
 * parent frames, and with them the chain's shape, are the shown ones. A zero-length link (no
 * direction: the step shows it at its rest rotation) keeps its whole shown rotation the same
 * way: its rest carries the offset restBase⁻¹ · shown, eased out alike. A non-finite or zero
 * rotation takes the rest direction and twist. Per-frame safe.
 */
export function seatChainAtLocal(world: BitrigWorld, eid: number): void {
  const C = world.components.TailChain;
  const P = world.components.TailParticle;
  const B = world.components.BendState;
  const n = C.links[eid]!;
  const a = eid * 8;
  holdAnchor(C, a);
  setOrigin(C, eid);
  // The rest keeps, for now, each link's twist about its own direction as shown: the readback
  // rule (swing from the rest direction · rest) would put the new rest's twist on every link,
  // which keeps each bone's direction in its parent's frame but turns the parent frames, so the
  // chain would change shape at once (a tail lying on the floor, pushed under it and re-aimed).
  seatRestBase(world, eid);
  for (let i = 0; i < n; i++) {
    const k = linkIndex(C.row[eid]!, i);
    B.seatTwist[k] = 0;
    getLink(B.tipDirLs, k, 3, _e, 0); // (_e: tip direction 0–2, rest base 4–7)
    getLink(B.restBase, k, 4, _e, 4);
    setLink(B.seatAxis, k, 3, _e, 0);
    getLink(B.localCur, k, 4, _d, 0);
    const ql = _d[0]! * _d[0]! + _d[1]! * _d[1]! + _d[2]! * _d[2]! + _d[3]! * _d[3]!;
    if (!(ql > 1e-12 && Number.isFinite(ql))) continue; // (the rest direction: the rest rotation)
    qNormalize(_d, 0);
    if (!(B.lenRel[k]! > 0)) {
      // a zero-length link: the whole offset o = restBase⁻¹ · shown, the short way, as axis and angle
      qConjMul(_d, 12, _e, 4, _d, 0);
      const sg = _d[15]! < 0 ? -1 : 1;
      const x = sg * _d[12]!, y = sg * _d[13]!, z = sg * _d[14]!;
      const v = Math.sqrt(x * x + y * y + z * z);
      const phi = 2 * Math.atan2(v, sg * _d[15]!);
      if (v > 0 && Number.isFinite(v) && Number.isFinite(phi)) {
        B.seatAxis[linkEl(k, 3, 0)] = x / v; B.seatAxis[linkEl(k, 3, 1)] = y / v; B.seatAxis[linkEl(k, 3, 2)] = z / v;
        B.seatTwist[k] = phi;
      }
      continue;
    }
    // qr = swing(rest direction, shown direction) · rest; twist = qr⁻¹ · shown, about the tip direction
    qRotate(_d, 4, _d, 0, _e, 0);
    qRotate(_d, 8, _e, 4, _e, 0);
    qSwingUnit(_d, 12, _d, 8, _d, 4);
    qMul(_d, 12, _d, 12, _e, 4);
    qConjMul(_d, 12, _d, 12, _d, 0);
    const t = _d[12]! * _e[0]! + _d[13]! * _e[1]! + _d[14]! * _e[2]!;
    const w = _d[15]!;
    const phi = w < 0 ? 2 * Math.atan2(-t, -w) : 2 * Math.atan2(t, w);
    if (Number.isFinite(phi)) B.seatTwist[k] = phi;
  }
  C.seatEase[eid] = 1;
  seatTwistRest(world, eid);
  let maxBend = 0;
  const O = C.origin, e3 = eid * 3;
  for (let i = 0; i < n; i++) {
    const k = linkIndex(C.row[eid]!, i);
    linkFrame(world, eid, i, C.anchorCur, a);
    getLink(B.restR, k, 4, _e, 8); // (_e: tip direction 0–2, rest direction 4–6, rest 8–11, shown 12–15)
    if (!(LF[14]! > 0)) {
      // a zero-length link: as the step leaves it (particle on its head, rest rotation — now
      // carrying the shown offset —, no bend)
      for (let c = 0; c < 3; c++) { P.pos[linkEl(k, 3, c)] = LF[c]! - O[e3 + c]!; P.vel[linkEl(k, 3, c)] = 0; }
      P.contact[k] = 0;
      _d[0] = 0; _d[1] = 0; _d[2] = 0; _d[3] = 1;
      setLink(B.bendOld, k, 4, _d, 0);
      setLink(B.localCur, k, 4, _e, 8); setLink(B.localPrev, k, 4, _e, 8);
      linkAim(world, eid, i, LF, 11);
      continue;
    }
    getLink(B.tipDirLs, k, 3, _e, 0); getLink(B.restDirLs, k, 3, _e, 4); getLink(B.localCur, k, 4, _e, 12);
    // the link's direction in its parent's frame: the shown rotation applied to the bone's tip direction
    const ql = _e[12]! * _e[12]! + _e[13]! * _e[13]! + _e[14]! * _e[14]! + _e[15]! * _e[15]!;
    let ok = ql > 1e-12 && Number.isFinite(ql);
    if (ok) {
      qNormalize(_e, 12);
      qRotate(_d, 0, _e, 12, _e, 0);
      const l = Math.sqrt(_d[0]! * _d[0]! + _d[1]! * _d[1]! + _d[2]! * _d[2]!);
      ok = l > 1e-12 && Number.isFinite(l);
      if (ok) { _d[0] = _d[0]! / l; _d[1] = _d[1]! / l; _d[2] = _d[2]! / l; }
    }
    if (!ok) { _d[0] = _e[4]!; _d[1] = _e[5]!; _d[2] = _e[6]!; }
    qRotate(_d, 3, LF, 3, _d, 0); // world
    const len = LF[14]!;
    for (let c = 0; c < 3; c++) { P.pos[linkEl(k, 3, c)] = LF[c]! + len * _d[3 + c]! - O[e3 + c]!; P.vel[linkEl(k, 3, c)] = 0; }
    P.contact[k] = 0;
    // bend snapshot: swing(rest direction, direction) in the hips frame (as TailStep's bend)
    getLink(B.toHips, k, 4, _e, 16); getLink(B.restDirHs, k, 3, _e, 20);
    qRotate(_d, 6, _e, 16, _d, 0);
    qSwingUnit(_e, 24, _e, 20, _d, 6);
    setLink(B.bendOld, k, 4, _e, 24);
    const bw = Math.abs(_e[27]!);
    const bend = 2 * Math.acos(bw > 1 ? 1 : bw);
    if (bend > maxBend) maxBend = bend;
    // displayed local rotation: swing(rest direction, direction) · rest (as TailStep's)
    qSwingUnit(_d, 12, _e, 4, _d, 0);
    qMul(_e, 24, _d, 12, _e, 8);
    setLink(B.localCur, k, 4, _e, 24); setLink(B.localPrev, k, 4, _e, 24);
    linkAim(world, eid, i, _d, 3);
  }
  // Ease in (SEAT_EASE_TIME): the limit widened to the shown bend and the coupling off at first,
  // both returning to the chain's own, so a pose far from the new rest is not clamped to the
  // limit and pulled toward its neighbours in one step.
  const excess = maxBend - C.bendLimit[eid]!;
  C.seatExcess[eid] = excess > 0 ? excess + 1e-6 : 0;
  C.seatEase[eid] = 1;
  LK[K.STEP] = world.clock[CLOCK.FIXED_STEP]!;
  refreshStepCache(world, eid);
}

/**
 * Prepare internal step `s` (0-based) of this frame: interpolate each chain's anchor at the
 * step's time (TailStep keeps the links' previous local rotations for display interpolation).
 *
 * @example
 * for (let s = 0; s < steps; s++) { tailClockStep(world, s); tailStep(world); }
 */
export function tailClockStep(world: BitrigWorld, s: number): void {
  // (no double is held here: this once-a-step function calls the kernel, whose export differs
  // per world, and V8 may deoptimise such a call site when several worlds run; stepTime, which
  // loops over the chains, does the arithmetic)
  const accel = world.tailAccel;
  if (accel === null) return;
  const n = stepTime(world, accel.ents, accel.params, s);
  const left = accel.kernel.anchorSteps(n);
  if (left > 0) slerpLeft(world, accel.ents, left);
}

/**
 * The step's time t within the frame (0…1) into the clock (`STEP_T`) and the kernel's
 * params[2], and the chains into the kernel's list; returns their count.
 */
function stepTime(world: BitrigWorld, ids: Int32Array, params: Float64Array, s: number): number {
  const c = world.clock;
  let t: number;
  if (c[CLOCK.CAPPED] === 1 || !(c[CLOCK.FRAME_DT]! > 0)) t = (s + 1) / c[CLOCK.STEPS]!;
  else t = ((s + 1) * c[CLOCK.FIXED_STEP]! - c[CLOCK.ACC_START]!) / c[CLOCK.FRAME_DT]!;
  if (!(t >= 0)) t = 0;
  if (t > 1) t = 1;
  c[CLOCK.STEP_T] = t;
  params[2] = t;
  const ents = world.queries.tails.dense;
  for (let e = 0; e < ents.length; e++) ids[e] = ents[e]!;
  return ents.length;
}

/** The anchor rotations the kernel left (those that need the full slerp), at the step's time. */
function slerpLeft(world: BitrigWorld, ids: Int32Array, left: number): void {
  const C = world.components.TailChain;
  for (let e = 0; e < left; e++) { const a = ids[e]! * 8; qSlerp(C.anchorStep, a + 3, C.anchorPrev, a + 3, C.anchorCur, a + 3, world.clock[CLOCK.STEP_T]!); }
}
