/**
 * The float32 WebAssembly tail step against the f64 JavaScript step: the largest differences
 * between two worlds driven alike, in the units the tests state their tolerances in. What the
 * step does not compute (anchors, options, rest data, every non-tail bone) must still be
 * bit-identical; `mirrorStale` (the WebAssembly step's own bookkeeping) is left out.
 */
import type { BitrigWorld } from '../../core/world';
import { LINK_STRIDE } from '../../core/components/tail';
import { bytesOf } from './worldBytes';

/** Largest differences (and the first array that differs where none may). */
export interface TailDiff {
  /** Particle positions: max |Δ| over links / that chain's length. */
  pos: number;
  /** Particle velocities: max |Δ| / chain length (per second). */
  vel: number;
  /** Local rotations after the step (`localCur`) and as written (`pose.localR` of tail bones): max angle (degrees). */
  rot: number;
  /** Bend snapshots (`bendOld`): max angle (degrees). */
  bend: number;
  /** World matrices of every bone: max |Δ| of the translation / the largest chain length; of the rotation-scale entries / their scale. */
  worldT: number;
  /** … of the rotation-scale entries. */
  worldR: number;
  /** Links whose floor contact flag differs. */
  contact: number;
  /** The first array outside the step's outputs that is not bit-identical, or ''. */
  exact: string;
}

/**
 * The step's outputs, what is derived from them (a seat along the shown pose: its scratch
 * `rotWs`/`headWs`, the bend excess and the step constants widened by it) and the WebAssembly
 * step's bookkeeping: compared within tolerances, or not at all.
 */
const STEP_OUTPUTS = new Set([
  'TailParticle.pos', 'TailParticle.vel', 'TailParticle.contact', 'BendState.bendOld', 'BendState.bendNew', 'BendState.localCur',
  'BendState.localPrev', 'BendState.rotWs', 'BendState.headWs', 'TailChain.seatExcess', 'TailChain.stepCache',
  'TailChain.mirrorStale', 'pose.localR', 'pose.worldM',
  // a seat along the shown pose measures the shown twist, which the rest carries while it
  // eases out (systems/tailClock.ts): the rest and what follows from it, compared in `rot`
  'BendState.restR', 'BendState.restBase', 'BendState.seatTwist', 'BendState.seatAxis', 'BendState.toHips', 'BendState.toHipsM',
  'BendState.restDirLs', 'BendState.restDirHs',
]);

/** |a − b|, 0 when both are NaN, Infinity when one is. */
function absDiff(a: number, b: number): number {
  const d = Math.abs(a - b);
  if (d === d) return d;
  return Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
}

function qAngleDeg(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  const l = Math.hypot(a[ao]!, a[ao + 1]!, a[ao + 2]!, a[ao + 3]!) * Math.hypot(b[bo]!, b[bo + 1]!, b[bo + 2]!, b[bo + 3]!);
  if (!(l > 0)) return Number.isNaN(a[ao]!) && Number.isNaN(b[bo]!) ? 0 : 180;
  // (the angle from the difference: acos near 1 would turn a 1e-16 round-off into 1e-6°)
  const sg = a[ao]! * b[bo]! + a[ao + 1]! * b[bo + 1]! + a[ao + 2]! * b[bo + 2]! + a[ao + 3]! * b[bo + 3]! < 0 ? -1 : 1;
  const la = Math.hypot(a[ao]!, a[ao + 1]!, a[ao + 2]!, a[ao + 3]!), lb = Math.hypot(b[bo]!, b[bo + 1]!, b[bo + 2]!, b[bo + 3]!);
  let s = 0;
  for (let j = 0; j < 4; j++) { const e = a[ao + j]! / la - sg * b[bo + j]! / lb; s += e * e; }
  return (4 * Math.asin(Math.min(1, Math.sqrt(s) / 2)) * 180) / Math.PI;
}

/**
 * Compare the WebAssembly world `wa` with the JavaScript world `js` (same chains, same entity
 * ids); `only` limits the per-link fields (and the tail bones' rotations) to some chains.
 */
export function compareTail(js: BitrigWorld, wa: BitrigWorld, only?: (eid: number) => boolean): TailDiff {
  const out: TailDiff = { pos: 0, vel: 0, rot: 0, bend: 0, worldT: 0, worldR: 0, contact: 0, exact: '' };
  const comps = (w: BitrigWorld) => w.components as unknown as Record<string, Record<string, unknown>>;
  for (const c of ['TailChain', 'TailParticle', 'BendState']) {
    for (const [key, v] of Object.entries(comps(js)[c]!)) {
      if (!ArrayBuffer.isView(v) || STEP_OUTPUTS.has(`${c}.${key}`)) continue;
      if (!bytesOf(v).equals(bytesOf(comps(wa)[c]![key] as ArrayBufferView)) && out.exact === '') out.exact = `${c}.${key}`;
    }
  }
  const C = js.components.TailChain, Pj = js.components.TailParticle, Pw = wa.components.TailParticle;
  const Bj = js.components.BendState, Bw = wa.components.BendState;
  const tailSlot = new Uint8Array(js.pose.localR.length / 4);
  let maxLen = 0;
  for (const e of js.queries.tails.dense) {
    const n = C.links[e]!, base = C.row[e]! * LINK_STRIDE;
    let len = 0;
    for (let i = 0; i < n; i++) len += Bj.lenRel[base + i]!;
    len *= Math.abs(C.anchorCur[e * 8 + 7]!) || 1;
    if (!(len > 0)) len = 1;
    maxLen = Math.max(maxLen, len);
    for (let i = 0; i < n; i++) tailSlot[C.slot[base + i]!] = only && !only(e) ? 2 : 1;
    if (only && !only(e)) continue;
    for (let i = 0; i < n; i++) {
      const k = base + i;
      for (let c = 0; c < 3; c++) {
        out.pos = Math.max(out.pos, absDiff(Pj.pos[k * 3 + c]!, Pw.pos[k * 3 + c]!) / len);
        out.vel = Math.max(out.vel, absDiff(Pj.vel[k * 3 + c]!, Pw.vel[k * 3 + c]!) / len);
      }
      out.rot = Math.max(out.rot, qAngleDeg(Bj.localCur, k * 4, Bw.localCur, k * 4));
      // the rest (derived from the shown pose while a seat's twist eases out; else bit-identical)
      const DEG = 180 / Math.PI;
      out.rot = Math.max(out.rot, qAngleDeg(Bj.restR, k * 4, Bw.restR, k * 4), qAngleDeg(Bj.toHips, k * 4, Bw.toHips, k * 4));
      if (C.seatEase[e]! > 0 || wa.components.TailChain.seatEase[e]! > 0) { // (restBase and seatTwist mean something only then)
        out.rot = Math.max(out.rot, qAngleDeg(Bj.restBase, k * 4, Bw.restBase, k * 4), absDiff(Bj.seatTwist[k]!, Bw.seatTwist[k]!) * DEG);
        // the seat's offset as a rotation vector (axis × angle: the axis of a near-zero offset is
        // round-off, review 50)
        for (let c = 0; c < 3; c++) {
          out.rot = Math.max(out.rot, absDiff(Bj.seatAxis[k * 3 + c]! * Bj.seatTwist[k]!, Bw.seatAxis[k * 3 + c]! * Bw.seatTwist[k]!) * DEG);
        }
      }
      for (let c = 0; c < 3; c++) {
        out.rot = Math.max(out.rot, absDiff(Bj.restDirLs[k * 3 + c]!, Bw.restDirLs[k * 3 + c]!) * DEG, absDiff(Bj.restDirHs[k * 3 + c]!, Bw.restDirHs[k * 3 + c]!) * DEG);
      }
      for (let c = 0; c < 9; c++) out.rot = Math.max(out.rot, absDiff(Bj.toHipsM[k * 9 + c]!, Bw.toHipsM[k * 9 + c]!) * DEG);
      out.bend = Math.max(out.bend, qAngleDeg(Bj.bendOld, k * 4, Bw.bendOld, k * 4));
      if (Pj.contact[k] !== Pw.contact[k]) out.contact++;
    }
  }
  const Rj = js.pose.localR, Rw = wa.pose.localR;
  for (let s = 0; s < tailSlot.length; s++) {
    if (tailSlot[s] === 1) out.rot = Math.max(out.rot, qAngleDeg(Rj, s * 4, Rw, s * 4));
    else if (tailSlot[s] === 0 && js.pose.owner[s]! >= 0) for (let j = 0; j < 4; j++) if (!Object.is(Rj[s * 4 + j], Rw[s * 4 + j]) && out.exact === '') out.exact = `pose.localR[${s}] (not a tail bone)`;
  }
  const Mj = js.pose.worldM, Mw = wa.pose.worldM;
  for (let s = 0; s < Mj.length / 16; s++) {
    if (only) continue; // (world matrices of a subset: not separable, a child bone follows every chain above it)
    const o = s * 16;
    const sc = Math.max(Math.hypot(Mj[o]!, Mj[o + 1]!, Mj[o + 2]!) || 1, 1e-12);
    for (let j = 0; j < 12; j++) if (j % 4 !== 3) out.worldR = Math.max(out.worldR, absDiff(Mj[o + j]!, Mw[o + j]!) / sc);
    for (let j = 12; j < 15; j++) out.worldT = Math.max(out.worldT, absDiff(Mj[o + j]!, Mw[o + j]!) / (maxLen || 1));
  }
  return out;
}

/**
 * Copy the tail state and the pose of world `src` into `dst` (same chains, same ids) and mark
 * every chain changed: the next frame of `dst` starts from `src`'s f64 state, so a comparison
 * after it measures one frame's error, not a trajectory's divergence.
 */
export function copyTailState(src: BitrigWorld, dst: BitrigWorld): void {
  const a = src.components as unknown as Record<string, Record<string, unknown>>;
  const b = dst.components as unknown as Record<string, Record<string, unknown>>;
  for (const c of ['TailChain', 'TailParticle', 'BendState']) {
    for (const [key, v] of Object.entries(a[c]!)) {
      if (key === 'mirrorStale' || !(v instanceof Float64Array || v instanceof Uint8Array || v instanceof Int32Array)) continue;
      (b[c]![key] as Float64Array).set(v as Float64Array);
    }
  }
  dst.components.TailChain.mirrorStale.fill(3);
  for (const key of ['localT', 'localR', 'localS', 'worldM'] as const) dst.pose[key].set(src.pose[key]);
}

/** The largest of each field over a run. */
export function maxDiff(a: TailDiff, b: TailDiff): TailDiff {
  return {
    pos: Math.max(a.pos, b.pos), vel: Math.max(a.vel, b.vel), rot: Math.max(a.rot, b.rot), bend: Math.max(a.bend, b.bend),
    worldT: Math.max(a.worldT, b.worldT), worldR: Math.max(a.worldR, b.worldR), contact: a.contact + b.contact, exact: a.exact || b.exact,
  };
}
