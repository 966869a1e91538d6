/**
 * Skeleton layout of the built-in character: bind world joint positions (metres, Y up,
 * facing +Z, left = +X), bind world rotations (each bone's +Y runs toward its child,
 * Blender convention, with chosen rolls; the Hips carry a 25° roll and a forward tilt so
 * no bind rotation is the identity), and the tail centreline. Setup-time only.
 */
import type { CharacterBone } from './types';
import {
  type Q, type V3, add, len, mat4FromTRS, mat4Invert, mat4Mul, norm, qAlongY, qInv, qMul, qRot, rad, scale, sub,
} from './math';

/**
 * Mixamo names of the body skeleton (no tail), parents before children; both variants
 * start with exactly these bones in this order (the chain variant appends Tail_1…Tail_End).
 *
 * @example
 * createBuiltinCharacter().bones.slice(0, BODY_BONE_NAMES.length).map((b) => b.name); // = BODY_BONE_NAMES
 */
export const BODY_BONE_NAMES = [
  'Hips', 'Spine', 'Spine1', 'Spine2', 'Neck', 'Head', 'HeadTop_End',
  'LeftShoulder', 'LeftArm', 'LeftForeArm', 'LeftHand',
  'RightShoulder', 'RightArm', 'RightForeArm', 'RightHand',
  'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'LeftToeBase',
  'RightUpLeg', 'RightLeg', 'RightFoot', 'RightToeBase',
] as const;

const PARENT: Record<string, string | null> = {
  Hips: null, Spine: 'Hips', Spine1: 'Spine', Spine2: 'Spine1', Neck: 'Spine2', Head: 'Neck', HeadTop_End: 'Head',
  LeftShoulder: 'Spine2', LeftArm: 'LeftShoulder', LeftForeArm: 'LeftArm', LeftHand: 'LeftForeArm',
  RightShoulder: 'Spine2', RightArm: 'RightShoulder', RightForeArm: 'RightArm', RightHand: 'RightForeArm',
  LeftUpLeg: 'Hips', LeftLeg: 'LeftUpLeg', LeftFoot: 'LeftLeg', LeftToeBase: 'LeftFoot',
  RightUpLeg: 'Hips', RightLeg: 'RightUpLeg', RightFoot: 'RightLeg', RightToeBase: 'RightFoot',
};

const ARM_DIR: V3 = norm([0.77, -0.64, 0]);
const HAND_DIR: V3 = norm([0.72, -0.68, 0.12]);

/** Bind world joint positions of the left side and the spine (right side mirrors x). */
function leftAndSpine(): Record<string, V3> {
  const P: Record<string, V3> = {
    Hips: [0, 0.6, 0],
    Spine: [0, 0.69, -0.012],
    Spine1: [0, 0.78, -0.008],
    Spine2: [0, 0.87, 0],
    Neck: [0, 0.96, 0.005],
    Head: [0, 1.01, 0.015],
    HeadTop_End: [0, 1.19, 0.015],
    LeftShoulder: [0.035, 0.925, -0.005],
    LeftArm: [0.13, 0.93, -0.01],
    LeftUpLeg: [0.085, 0.56, 0],
    LeftLeg: [0.085, 0.3, 0.025],
    LeftFoot: [0.085, 0.075, -0.005],
    LeftToeBase: [0.085, 0.022, 0.095],
  };
  P.LeftForeArm = add(P.LeftArm!, scale(ARM_DIR, 0.19));
  P.LeftHand = add(P.LeftForeArm, scale(HAND_DIR, 0.17));
  return P;
}

/** Bind world positions of every body joint. */
export function bodyJointPositions(): Record<string, V3> {
  const P = leftAndSpine();
  for (const k of Object.keys(P)) {
    if (k.startsWith('Left')) {
      const p = P[k]!;
      P['Right' + k.slice(4)] = [-p[0], p[1], p[2]];
    }
  }
  return P;
}

/** Direction of the hand (wrist toward fingertips), left side. */
export const LEFT_HAND_DIR: V3 = HAND_DIR;

/** The tail centreline: arc-length parametrised planar curve in the x = 0 plane. */
export interface TailCurve {
  /** Arc length from the start (inside the body) to J0, where the tail leaves the body. */
  sIn: number;
  /** Tail length J0 → tip (metres). */
  length: number;
  /** Total centreline length sIn + length. */
  total: number;
  /** Point at arc length s ∈ [0, total]. */
  point: (s: number) => V3;
  /** Unit tangent at arc length s (toward the tip). */
  tangent: (s: number) => V3;
  /** Tube radius at arc length s (0 at both rounded ends). */
  radius: (s: number) => number;
}

const TAIL_START: V3 = [0, 0.575, -0.015];
const TAIL_S_IN = 0.085;
const TAIL_R0 = 0.056;
const TAIL_R_TIP = 0.012;
const TAIL_START_CAP = 0.03;
const TAIL_TIP_CAP = 0.012;

/**
 * Tail centreline: leaves the pelvis toward −Z, drooping from 8° below horizontal at the
 * start to θ1 at the tip (θ linear in arc length, integrated in closed form). θ1 = 42°
 * unless a long tail would bring the tip below 0.12 m, then less.
 */
export function tailCurve(length: number): TailCurve {
  const total = TAIL_S_IN + length;
  const a = rad(8);
  let th1 = rad(42);
  const make = (t1: number) => {
    const bb = (t1 - a) / total;
    const point = (s: number): V3 => {
      const th = a + bb * s;
      const dz = Math.abs(bb) < 1e-12 ? s * Math.cos(a) : (Math.sin(th) - Math.sin(a)) / bb;
      const dy = Math.abs(bb) < 1e-12 ? s * Math.sin(a) : (Math.cos(a) - Math.cos(th)) / bb;
      return [TAIL_START[0], TAIL_START[1] - dy, TAIL_START[2] - dz];
    };
    const tangent = (s: number): V3 => {
      const th = a + bb * s;
      return [0, -Math.sin(th), -Math.cos(th)];
    };
    return { point, tangent };
  };
  let c = make(th1);
  for (let it = 0; it < 40 && c.point(total)[1] < 0.12; it++) {
    th1 = a + (th1 - a) * 0.9;
    c = make(th1);
  }
  const radius = (s: number): number => {
    const sig = Math.min(1, Math.max(0, (s - TAIL_S_IN) / length));
    let r = TAIL_R_TIP + (TAIL_R0 - TAIL_R_TIP) * Math.pow(1 - sig, 1.2);
    if (s < TAIL_START_CAP) {
      const x = (TAIL_START_CAP - s) / TAIL_START_CAP;
      r *= Math.sqrt(Math.max(0, 1 - x * x));
    }
    const e = total - TAIL_TIP_CAP;
    if (s > e) {
      const x = (s - e) / TAIL_TIP_CAP;
      r *= Math.sqrt(Math.max(0, 1 - x * x));
    }
    return r;
  };
  return { sIn: TAIL_S_IN, length, total, point: c.point, tangent: c.tangent, radius };
}

/** Tail joints J0…JK (world bind) at equal arc length from J0 to the tip. */
export function tailJoints(curve: TailCurve, links: number): V3[] {
  const out: V3[] = [];
  for (let i = 0; i <= links; i++) {
    const s = i === links ? curve.total : curve.sIn + (curve.length * i) / links;
    out.push(curve.point(s));
  }
  return out;
}

/** The assembled skeleton. */
export interface SkeletonBuild {
  /** Bones with bind local TRS. */
  bones: CharacterBone[];
  /** Bind world position per bone. */
  worldPos: V3[];
  /** Bind world rotation per bone. */
  worldRot: Q[];
  /** Bind world matrices, 16 per bone (float64, column-major). */
  bindWorld: Float64Array;
  /** Inverse bind matrices, 16 per bone. */
  inverseBind: Float32Array;
  /** Name → index. */
  index: Map<string, number>;
}

const X: V3 = [1, 0, 0];

function bodyRotations(P: Record<string, V3>): Record<string, Q> {
  const R: Record<string, Q> = {};
  // Hips: +Y toward the Spine, rolled 25° about it.
  R.Hips = qAlongY(sub(P.Spine!, P.Hips!), [Math.cos(rad(25)), 0, Math.sin(rad(25))]);
  R.Spine = qAlongY(sub(P.Spine1!, P.Spine!), X);
  R.Spine1 = qAlongY(sub(P.Spine2!, P.Spine1!), X);
  R.Spine2 = qAlongY(sub(P.Neck!, P.Spine2!), X);
  R.Neck = qAlongY(sub(P.Head!, P.Neck!), X);
  R.Head = qAlongY(sub(P.HeadTop_End!, P.Head!), X);
  R.HeadTop_End = R.Head;
  for (const side of ['Left', 'Right'] as const) {
    const m = side === 'Left' ? 1 : -1;
    const ref: V3 = [0, 0, -m];
    R[side + 'Shoulder'] = qAlongY(sub(P[side + 'Arm']!, P[side + 'Shoulder']!), ref);
    R[side + 'Arm'] = qAlongY(sub(P[side + 'ForeArm']!, P[side + 'Arm']!), ref);
    R[side + 'ForeArm'] = qAlongY(sub(P[side + 'Hand']!, P[side + 'ForeArm']!), ref);
    // the hand (a leaf) continues the wrist direction, rolled 30° more
    const hd: V3 = [m * HAND_DIR[0], HAND_DIR[1], HAND_DIR[2]];
    R[side + 'Hand'] = qAlongY(hd, [0, Math.sin(rad(30)), -m * Math.cos(rad(30))]);
    R[side + 'UpLeg'] = qAlongY(sub(P[side + 'Leg']!, P[side + 'UpLeg']!), X);
    R[side + 'Leg'] = qAlongY(sub(P[side + 'Foot']!, P[side + 'Leg']!), X);
    R[side + 'Foot'] = qAlongY(sub(P[side + 'ToeBase']!, P[side + 'Foot']!), X);
    R[side + 'ToeBase'] = qAlongY([0, 0, 1], X);
  }
  return R;
}

/**
 * Build the skeleton. `tail` gives J0…JK for the chain variant (null = no tail bones).
 * Tail_i runs J(i−1) → Ji with +Y along it; Tail_End sits at JK with Tail_K's rotation.
 */
export function buildSkeleton(tail: V3[] | null): SkeletonBuild {
  const P = bodyJointPositions();
  const R = bodyRotations(P);
  const names: string[] = [...BODY_BONE_NAMES];
  const parents: string[] = names.map((n) => PARENT[n] ?? '');
  if (tail) {
    const K = tail.length - 1;
    for (let i = 1; i <= K; i++) {
      const n = `Tail_${i}`;
      names.push(n);
      parents.push(i === 1 ? 'Hips' : `Tail_${i - 1}`);
      P[n] = tail[i - 1]!;
      R[n] = qAlongY(sub(tail[i]!, tail[i - 1]!), X);
    }
    names.push('Tail_End');
    parents.push(`Tail_${K}`);
    P.Tail_End = tail[K]!;
    R.Tail_End = R[`Tail_${K}`]!;
  }
  const index = new Map<string, number>();
  names.forEach((n, i) => index.set(n, i));
  const bones: CharacterBone[] = [];
  const worldPos: V3[] = [];
  const worldRot: Q[] = [];
  for (let i = 0; i < names.length; i++) {
    const n = names[i]!;
    const pn = parents[i]!;
    const pi = pn ? index.get(pn)! : -1;
    const Pw = P[n]!, Rw = R[n]!;
    let t: V3, r: Q;
    if (pi < 0) {
      t = Pw;
      r = Rw;
    } else {
      const Rp = R[pn]!;
      t = qRot(qInv(Rp), sub(Pw, P[pn]!));
      r = qMul(qInv(Rp), Rw);
    }
    if (r[3] < 0) r = [-r[0], -r[1], -r[2], -r[3]];
    bones.push({ name: n, parent: pi, t: [t[0], t[1], t[2]], r: [r[0], r[1], r[2], r[3]], s: [1, 1, 1] });
    worldPos.push(Pw);
    worldRot.push(Rw);
  }
  const bindWorld = new Float64Array(bones.length * 16);
  const inverseBind = new Float32Array(bones.length * 16);
  for (let i = 0; i < bones.length; i++) {
    const b = bones[i]!;
    const local = mat4FromTRS(b.t, b.r, b.s);
    const w = b.parent < 0 ? local : mat4Mul(bindWorld.subarray(b.parent * 16, b.parent * 16 + 16), local);
    bindWorld.set(w, i * 16);
    inverseBind.set(mat4Invert(w), i * 16);
  }
  return { bones, worldPos, worldRot, bindWorld, inverseBind, index };
}

/** Length of the leg from hip joint to ankle (thigh + shin), metres. */
export function legLengths(P: Record<string, V3>, side: 'Left' | 'Right'): [number, number] {
  return [len(sub(P[side + 'Leg']!, P[side + 'UpLeg']!)), len(sub(P[side + 'Foot']!, P[side + 'Leg']!))];
}
