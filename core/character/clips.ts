/**
 * Clips of the built-in character, made in code: `walk` (1.0 s loop), `sprint` (0.6 s
 * loop), `crouch` (2 s: down, hold, up; feet kept on their bind spots by a sagittal
 * two-bone solve) and `hipSweep` (2 s: hips 0.5 m toward +X over 2/3 s and back).
 * Keys at 60 Hz, LINEAR; rotation keys are unit quaternions with continuous sign; the
 * first key equals the last. No clip keys a Tail_* bone. Setup-time only.
 *
 * Motions are authored as rotations about world axes *relative to the parent*
 * (`E`): a bone's animated world rotation is D = D_parent · E · (bind world), which gives
 * the local rotation R_parent⁻¹ · E · R_parent · r_bind (R = bind world rotations).
 */
import type { CharacterClip, CharacterTrack } from './types';
import type { SkeletonBuild } from './skeleton';
import { type Q, type V3, add, qInv, qMul, qRot, qX, qY, qZ, rad, smoothstep, sub } from './math';

const FPS = 60;

interface Ctx {
  sk: SkeletonBuild;
  P: Record<string, V3>;
}

function keyTimes(duration: number): Float32Array {
  const n = Math.round(duration * FPS);
  const t = new Float32Array(n + 1);
  for (let i = 0; i <= n; i++) t[i] = i === n ? duration : i / FPS;
  return t;
}

function rotTrack(c: Ctx, name: string, times: Float32Array, duration: number, E: (t: number) => Q): CharacterTrack {
  const i = c.sk.index.get(name);
  if (i === undefined) throw new Error(`bitrig/character: clip refers to missing bone ${name}`);
  const b = c.sk.bones[i]!;
  const rb: Q = b.r;
  const Rp: Q = b.parent < 0 ? [0, 0, 0, 1] : c.sk.worldRot[b.parent]!;
  const RpInv = qInv(Rp);
  const values = new Float32Array(times.length * 4);
  let prev: Q | null = null;
  for (let k = 0; k < times.length; k++) {
    const t = k === times.length - 1 ? duration : times[k]!;
    let q = qMul(qMul(qMul(RpInv, E(t)), Rp), rb);
    const l = Math.hypot(q[0], q[1], q[2], q[3]);
    q = [q[0] / l, q[1] / l, q[2] / l, q[3] / l];
    if (prev && prev[0] * q[0] + prev[1] * q[1] + prev[2] * q[2] + prev[3] * q[3] < 0) q = [-q[0], -q[1], -q[2], -q[3]];
    values.set(q, k * 4);
    prev = q;
  }
  return { bone: name, path: 'rotation', interpolation: 'LINEAR', times, values };
}

function hipsTranslation(c: Ctx, times: Float32Array, duration: number, off: (t: number) => V3): CharacterTrack {
  const b = c.sk.bones[c.sk.index.get('Hips')!]!;
  const values = new Float32Array(times.length * 3);
  for (let k = 0; k < times.length; k++) {
    const t = k === times.length - 1 ? duration : times[k]!;
    const o = off(t);
    values[k * 3] = b.t[0] + o[0];
    values[k * 3 + 1] = b.t[1] + o[1];
    values[k * 3 + 2] = b.t[2] + o[2];
  }
  return { bone: 'Hips', path: 'translation', interpolation: 'LINEAR', times, values };
}

/** Copy the first key onto the last so a loop closes exactly. */
function closeLoop(tracks: CharacterTrack[]): void {
  for (const tr of tracks) {
    const w = tr.path === 'rotation' ? 4 : 3;
    const n = tr.times.length;
    for (let c = 0; c < w; c++) tr.values[(n - 1) * w + c] = tr.values[c]!;
  }
}

const mul = (...qs: Q[]): Q => qs.reduce((a, b) => qMul(a, b));

interface GaitParams {
  duration: number;
  bob: number; drop: number; sway: number; yaw: number; roll: number; lean: number;
  thigh: number; kneeBase: number; kneeSwing: number; arm: number; elbow: number; elbowSwing: number; spineTwist: number;
}

function gait(c: Ctx, name: string, g: GaitParams): CharacterClip {
  const times = keyTimes(g.duration);
  const T = g.duration;
  const ph = (t: number) => (2 * Math.PI * t) / T;
  const tracks: CharacterTrack[] = [];
  tracks.push(hipsTranslation(c, times, T, (t) => {
    const p = ph(t);
    return [g.sway * Math.cos(p), g.bob * Math.cos(2 * p) - g.bob - g.drop, 0];
  }));
  tracks.push(rotTrack(c, 'Hips', times, T, (t) => {
    const p = ph(t);
    return mul(qY(rad(g.yaw) * Math.sin(p)), qZ(rad(g.roll) * Math.cos(p)), qX(rad(g.lean)));
  }));
  tracks.push(rotTrack(c, 'Spine', times, T, (t) => qY(-rad(g.spineTwist) * Math.sin(ph(t)))));
  tracks.push(rotTrack(c, 'Spine2', times, T, (t) => mul(qY(-rad(g.spineTwist) * Math.sin(ph(t))), qX(-rad(g.lean) * 0.3))));
  tracks.push(rotTrack(c, 'Neck', times, T, (t) => qY(rad(g.spineTwist) * Math.sin(ph(t)))));
  tracks.push(rotTrack(c, 'Head', times, T, (t) => mul(qY(rad(g.yaw) * 0.5 * Math.sin(ph(t))), qX(-rad(g.lean) * 0.5))));
  for (const side of ['Left', 'Right'] as const) {
    const off = side === 'Left' ? 0 : Math.PI;
    const thighA = (t: number) => -rad(g.lean) - rad(g.thigh) * Math.sin(ph(t) + off);
    const kneeA = (t: number) => rad(g.kneeBase) + rad(g.kneeSwing) * ((1 + Math.cos(ph(t) + off)) / 2) ** 2;
    tracks.push(rotTrack(c, side + 'UpLeg', times, T, (t) => qX(thighA(t))));
    tracks.push(rotTrack(c, side + 'Leg', times, T, (t) => qX(kneeA(t))));
    tracks.push(rotTrack(c, side + 'Foot', times, T, (t) => qX(-0.85 * (rad(g.lean) + thighA(t) + kneeA(t)))));
    tracks.push(rotTrack(c, side + 'Arm', times, T, (t) => qX(rad(g.arm) * Math.sin(ph(t) + off))));
    tracks.push(rotTrack(c, side + 'ForeArm', times, T, (t) => qX(-rad(g.elbow) - rad(g.elbowSwing) * Math.sin(ph(t) + off))));
  }
  closeLoop(tracks);
  return { name, duration: T, tracks };
}

/** Signed angle about +X taking the (y, z) part of p onto that of q. */
function angleX(p: V3, q: V3): number {
  return Math.atan2(p[1] * q[2] - p[2] * q[1], p[1] * q[1] + p[2] * q[2]);
}

/** World X-rotations (thigh a, shin b) putting the ankle on A from hip H; knee forward (+Z). */
function solveLegSagittal(H: V3, A: V3, u: V3, v: V3): [number, number] {
  const l1 = Math.hypot(u[1], u[2]), l2 = Math.hypot(v[1], v[2]);
  const dy = A[1] - H[1], dz = A[2] - H[2];
  let d = Math.hypot(dy, dz);
  d = Math.min(l1 + l2 - 1e-6, Math.max(Math.abs(l1 - l2) + 1e-6, d));
  const ey = dy / Math.hypot(dy, dz), ez = dz / Math.hypot(dy, dz);
  const al = Math.acos(Math.min(1, Math.max(-1, (l1 * l1 + d * d - l2 * l2) / (2 * l1 * d))));
  let best: V3 | null = null;
  for (const sgn of [1, -1]) {
    const cy = Math.cos(sgn * al), sy = Math.sin(sgn * al);
    const ky = (ey * cy - ez * sy) * l1, kz = (ey * sy + ez * cy) * l1;
    if (!best || kz > best[2]) best = [0, ky, kz];
  }
  const K: V3 = [H[0], H[1] + best![1], H[2] + best![2]];
  return [angleX(u, sub(K, H)), angleX(v, sub(A, K))];
}

function crouch(c: Ctx): CharacterClip {
  const T = 2;
  const times = keyTimes(T);
  const amt = (t: number) => (t <= 0.6 ? smoothstep(0, 0.6, t) : t < 1.4 ? 1 : smoothstep(2, 1.4, t));
  const pitch = (t: number) => rad(25) * amt(t);
  const off = (t: number): V3 => [0, -0.3 * amt(t), -0.04 * amt(t)];
  const tracks: CharacterTrack[] = [];
  tracks.push(hipsTranslation(c, times, T, off));
  tracks.push(rotTrack(c, 'Hips', times, T, (t) => qX(pitch(t))));
  tracks.push(rotTrack(c, 'Spine', times, T, (t) => qX(-rad(6) * amt(t))));
  tracks.push(rotTrack(c, 'Spine1', times, T, (t) => qX(-rad(6) * amt(t))));
  tracks.push(rotTrack(c, 'Neck', times, T, (t) => qX(-rad(10) * amt(t))));
  const P = c.P;
  for (const side of ['Left', 'Right'] as const) {
    const hipB = P[side + 'UpLeg']!, kneeB = P[side + 'Leg']!, ankleB = P[side + 'Foot']!;
    const u = sub(kneeB, hipB), v = sub(ankleB, kneeB);
    const solve = (t: number): [number, number] => {
      const H = add(add(P.Hips!, off(t)), qRot(qX(pitch(t)), sub(hipB, P.Hips!)));
      return solveLegSagittal(H, ankleB, u, v);
    };
    tracks.push(rotTrack(c, side + 'UpLeg', times, T, (t) => qX(solve(t)[0] - pitch(t))));
    tracks.push(rotTrack(c, side + 'Leg', times, T, (t) => { const [a, b] = solve(t); return qX(b - a); }));
    tracks.push(rotTrack(c, side + 'Foot', times, T, (t) => qX(-solve(t)[1])));
    tracks.push(rotTrack(c, side + 'Arm', times, T, (t) => qX(-rad(35) * amt(t))));
    tracks.push(rotTrack(c, side + 'ForeArm', times, T, (t) => qX(-rad(25) * amt(t))));
  }
  closeLoop(tracks);
  return { name: 'crouch', duration: T, tracks };
}

/**
 * Hips x offset of `hipSweep` at time t (metres): 0 → 0.5 over 2/3 s (cosine ease), hold,
 * back over 2/3 s from 1 s, hold to 2 s.
 *
 * @example
 * hipSweepOffset(2 / 3); // 0.5
 */
export function hipSweepOffset(t: number): number {
  const ease = (u: number) => (1 - Math.cos(Math.PI * Math.min(1, Math.max(0, u)))) / 2;
  if (t <= 2 / 3) return 0.5 * ease(t / (2 / 3));
  if (t <= 1) return 0.5;
  if (t <= 5 / 3) return 0.5 * (1 - ease((t - 1) / (2 / 3)));
  return 0;
}

function hipSweep(c: Ctx): CharacterClip {
  const T = 2;
  const times = keyTimes(T);
  const tracks = [hipsTranslation(c, times, T, (t) => [hipSweepOffset(t), 0, 0])];
  closeLoop(tracks);
  return { name: 'hipSweep', duration: T, tracks };
}

/** All four clips for a skeleton. */
export function buildClips(sk: SkeletonBuild, P: Record<string, V3>): CharacterClip[] {
  const c: Ctx = { sk, P };
  return [
    gait(c, 'walk', {
      duration: 1, bob: 0.012, drop: 0, sway: 0.02, yaw: 6, roll: 2.5, lean: 4,
      thigh: 25, kneeBase: 8, kneeSwing: 35, arm: 20, elbow: 15, elbowSwing: 8, spineTwist: 4,
    }),
    gait(c, 'sprint', {
      duration: 0.6, bob: 0.02, drop: 0.005, sway: 0.015, yaw: 8, roll: 3, lean: 14,
      thigh: 45, kneeBase: 12, kneeSwing: 85, arm: 40, elbow: 70, elbowSwing: 15, spineTwist: 7,
    }),
    crouch(c),
    hipSweep(c),
  ];
}
