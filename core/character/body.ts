/**
 * The built-in character's skin: torso, head, ears, arms with hands, legs, feet with flat
 * soles, and a separate tapered tail shell, all in bind space (metres). Each part is one
 * or more parametric patches; weights blend smoothly along the bones they follow.
 * Setup-time only.
 */
import { type V3, add, cross, dot, len, norm, scale, smoothstep, sub } from './math';
import { type Influence, type MeshBuilder, addPatch } from './surface';
import { LEFT_HAND_DIR, type TailCurve } from './skeleton';

/** Shell ids written per vertex. */
export const SHELL = { torso: 0, head: 1, ears: 2, arms: 3, legs: 4, feet: 5, tail: 6 } as const;

const TWO_PI = Math.PI * 2;
/** cos/sin of 2πv with v = 1 folded onto v = 0 so wrap seams are bit-identical. */
function cs(v: number): [number, number] {
  const w = v >= 1 ? v - 1 : v;
  return [Math.cos(TWO_PI * w), Math.sin(TWO_PI * w)];
}

/** Weights along a chain parametrised by τ (knot k at τ = k); owner[i] owns [i, i+1]; blends of half-width h at knots. */
export function chainWeights(tau: number, owner: readonly number[], h: number): Influence[] {
  const n = owner.length;
  const i = Math.min(n - 1, Math.max(0, Math.floor(tau)));
  const f = tau - i;
  if (f < h && i > 0 && owner[i - 1] !== owner[i]) {
    const b = smoothstep(-h, h, f);
    return [[owner[i - 1]!, 1 - b], [owner[i]!, b]];
  }
  if (f > 1 - h && i < n - 1 && owner[i + 1] !== owner[i]) {
    const b = smoothstep(-h, h, f - 1);
    return [[owner[i]!, 1 - b], [owner[i + 1]!, b]];
  }
  return [[owner[i]!, 1]];
}

/** Centripetal Catmull-Rom through knots (no overshoot on uneven spacing; ends extrapolated); τ ∈ [0, n−1]. */
function catmull(knots: V3[]): (tau: number) => V3 {
  const n = knots.length;
  const K = (i: number): V3 => {
    if (i < 0) return sub(scale(knots[0]!, 2), knots[1]!);
    if (i > n - 1) return sub(scale(knots[n - 1]!, 2), knots[n - 2]!);
    return knots[i]!;
  };
  const mix = (a: V3, b: V3, ta: number, tb: number, t: number): V3 => {
    const d = tb - ta;
    return add(scale(a, (tb - t) / d), scale(b, (t - ta) / d));
  };
  return (tau: number): V3 => {
    const i = Math.min(n - 2, Math.max(0, Math.floor(tau)));
    const f = tau - i;
    if (f === 0) return knots[i]!;
    if (f === 1) return knots[i + 1]!;
    const p0 = K(i - 1), p1 = K(i), p2 = K(i + 1), p3 = K(i + 2);
    const t0 = 0;
    const t1 = t0 + Math.sqrt(len(sub(p1, p0)));
    const t2 = t1 + Math.sqrt(len(sub(p2, p1)));
    const t3 = t2 + Math.sqrt(len(sub(p3, p2)));
    const t = t1 + f * (t2 - t1);
    const A1 = mix(p0, p1, t0, t1, t), A2 = mix(p1, p2, t1, t2, t), A3 = mix(p2, p3, t2, t3, t);
    const B1 = mix(A1, A2, t0, t2, t), B2 = mix(A2, A3, t1, t3, t);
    return mix(B1, B2, t1, t2, t);
  };
}

/** Frame (N, B) around a unit tangent T from a reference axis not parallel to it. */
function ringFrame(T: V3, ref: V3): [V3, V3] {
  const N = norm(sub(ref, scale(T, dot(ref, T))));
  return [N, cross(T, N)];
}

interface LimbSpec {
  knots: V3[];
  radii: number[];
  ref: V3;
  nu: number;
  nv: number;
  weight: (tau: number) => Influence[];
  shell: number;
}

/** A rounded tube along a Catmull-Rom centreline through the knots (one closed shell, smooth normals); rings spaced by chord length. */
function addLimb(b: MeshBuilder, L: LimbSpec): void {
  const n = L.knots.length - 1;
  const C = catmull(L.knots);
  const cum: number[] = [0];
  for (let i = 0; i < n; i++) cum.push(cum[i]! + len(sub(L.knots[i + 1]!, L.knots[i]!)));
  const total = cum[n]!;
  const tauOf = (u: number): number => {
    const s = u * total;
    let i = 0;
    while (i < n - 1 && s > cum[i + 1]!) i++;
    return Math.min(n, i + (s - cum[i]!) / (cum[i + 1]! - cum[i]!));
  };
  const cap0 = Math.min(L.radii[0]!, 0.9 * cum[1]!);
  const cap1 = Math.min(L.radii[n]!, 0.9 * (total - cum[n - 1]!));
  const rad = (u: number): number => {
    const tau = tauOf(u);
    const i = Math.min(n - 1, Math.max(0, Math.floor(tau)));
    const t = tau - i;
    let r = (1 - t) * L.radii[i]! + t * L.radii[i + 1]!;
    const s = u * total;
    if (s < cap0) r *= Math.sqrt(Math.max(0, 1 - ((cap0 - s) / cap0) ** 2));
    if (s > total - cap1) r *= Math.sqrt(Math.max(0, 1 - ((s - (total - cap1)) / cap1) ** 2));
    return r;
  };
  const tangent = (tau: number): V3 => {
    const a = Math.max(0, tau - 1e-4), c = Math.min(n, tau + 1e-4);
    return norm(sub(C(c), C(a)));
  };
  const f = (u: number, v: number): V3 => {
    const tau = tauOf(u);
    const T = tangent(tau);
    const [N, B] = ringFrame(T, L.ref);
    const [c, s] = cs(v);
    const r = rad(u);
    return add(C(tau), add(scale(N, r * c), scale(B, r * s)));
  };
  addPatch(b, {
    nu: L.nu, nv: L.nv, u0: 0, u1: 1, v0: 0, v1: 1, f,
    inside: (u) => C(tauOf(u)),
    poleU0: true, poleU1: true, normals: 'surface',
    weight: (u) => L.weight(tauOf(u)),
    shell: L.shell,
  });
}

/** Ellipsoid with pole axis a (radius ra) and cross axes b, c (radii rb, rc). */
function addEllipsoid(
  b: MeshBuilder, C: V3, a: V3, bAxis: V3, ra: number, rb: number, rc: number, nu: number, nv: number,
  weight: (p: V3) => Influence[], shell: number,
): void {
  const A = norm(a);
  const Bv = norm(sub(bAxis, scale(A, dot(bAxis, A))));
  const Cv = cross(A, Bv);
  addPatch(b, {
    nu, nv, u0: 0, u1: 1, v0: 0, v1: 1,
    f: (u, v) => {
      const th = Math.PI * u;
      const [c, s] = cs(v);
      const st = u === 0 || u === 1 ? 0 : Math.sin(th);
      return add(C, add(scale(A, ra * Math.cos(th)), add(scale(Bv, rb * c * st), scale(Cv, rc * s * st))));
    },
    inside: () => C,
    poleU0: true, poleU1: true, normals: 'surface',
    weight: (_u, _v, p) => weight(p),
    shell,
  });
}

/** Bone indices the skin refers to (name → index in the skeleton). */
export type BoneIndex = (name: string) => number;

/** How the tail skin is weighted. */
export interface TailSkinSpec {
  /** `chain`: Tail_* bones + Hips blend; `shin`: LeftLeg / LeftUpLeg / RightUpLeg. */
  variant: 'chain' | 'shin';
  /** Links K. */
  links: number;
}

/** Build every part of the skin into `b`. */
export function buildBody(b: MeshBuilder, P: Record<string, V3>, bone: BoneIndex, curve: TailCurve, tail: TailSkinSpec): void {
  buildTorso(b, bone);
  buildHead(b, bone);
  for (const side of ['Left', 'Right'] as const) {
    buildArm(b, P, bone, side);
    buildLeg(b, P, bone, side);
    buildFoot(b, P, bone, side);
  }
  buildTail(b, bone, curve, tail);
}

const TORSO_Y0 = 0.46, TORSO_Y1 = 1.0;

function buildTorso(b: MeshBuilder, bone: BoneIndex): void {
  const spineKnots = [0.69, 0.78, 0.87, 0.96];
  const spineOwners = ['Hips', 'Spine', 'Spine1', 'Spine2', 'Neck'].map(bone);
  const profile = (u: number): number => {
    const x = Math.abs(2 * u - 1);
    return Math.pow(Math.max(0, 1 - Math.pow(x, 2.5)), 0.4);
  };
  const y = (u: number) => (1 - u) * TORSO_Y0 + u * TORSO_Y1;
  const cz = (u: number) => -0.005 + 0.012 * Math.sin(Math.PI * u); // a slight belly
  const rx = (u: number) => 0.135 * profile(u) * (1 - 0.08 * Math.sin(Math.PI * Math.min(1, Math.max(0, (u - 0.3) / 0.4))));
  const rz = (u: number) => 0.098 * profile(u);
  addPatch(b, {
    nu: 30, nv: 28, u0: 0, u1: 1, v0: 0, v1: 1,
    f: (u, v) => {
      const [c, s] = cs(v);
      return [rx(u) * s, y(u), cz(u) + rz(u) * c];
    },
    inside: (u) => [0, y(u), cz(u)],
    poleU0: true, poleU1: true, normals: 'surface',
    weight: (_u, _v, p) => {
      // spine chain by height, 2.5 cm blend around each spine joint
      let k = 0;
      while (k < spineKnots.length && p[1] >= spineKnots[k]!) k++;
      let inf: Influence[] = [[spineOwners[k]!, 1]];
      for (let j = 0; j < spineKnots.length; j++) {
        const d = p[1] - spineKnots[j]!;
        if (Math.abs(d) < 0.025) {
          const t = smoothstep(-0.025, 0.025, d);
          inf = [[spineOwners[j]!, 1 - t], [spineOwners[j + 1]!, t]];
          break;
        }
      }
      const side = p[0] >= 0 ? 'Left' : 'Right';
      const wSh = 0.45 * smoothstep(0.86, 0.95, p[1]) * smoothstep(0.03, 0.11, Math.abs(p[0]));
      const wLeg = 0.45 * smoothstep(0.6, 0.5, p[1]) * smoothstep(0.02, 0.09, Math.abs(p[0]));
      const keep = 1 - wSh - wLeg;
      const out: Influence[] = inf.map(([j, w]) => [j, w * keep]);
      if (wSh > 0) out.push([bone(side + 'Shoulder'), wSh]);
      if (wLeg > 0) out.push([bone(side + 'UpLeg'), wLeg]);
      return out;
    },
    shell: SHELL.torso,
  });
}

/** Head centre and radii (bind, metres). */
export const HEAD_CENTRE: V3 = [0, 1.08, 0.03];

function buildHead(b: MeshBuilder, bone: BoneIndex): void {
  const head = bone('Head'), neck = bone('Neck');
  addEllipsoid(b, HEAD_CENTRE, [0, 1, 0], [0, 0, 1], 0.1, 0.105, 0.095, 20, 28, (p) => {
    const wn = 0.5 * smoothstep(1.06, 0.99, p[1]);
    return wn > 0 ? [[head, 1 - wn], [neck, wn]] : [[head, 1]];
  }, SHELL.head);
  // ears: flattened cones standing out from the top of the head, skinned to Head only
  for (const m of [1, -1]) {
    const dirBase = norm([m * 0.55, 0.83, -0.1]);
    const Bc = add(HEAD_CENTRE, scale(dirBase, 0.09));
    const A = norm([m * 0.6, 0.78, -0.15]);
    const L = 0.13;
    const e1 = norm(cross(A, [0, 0, 1]));
    const e2 = cross(A, e1);
    const rim = (v: number): V3 => {
      const [c, s] = cs(v);
      return add(scale(e1, 0.04 * c), scale(e2, 0.018 * s));
    };
    const cone = (u: number, v: number): V3 => add(Bc, add(scale(A, L * u), scale(rim(v), 1 - u)));
    const mid = add(Bc, scale(A, L * 0.3));
    addPatch(b, {
      nu: 8, nv: 16, u0: 0, u1: 1, v0: 0, v1: 1, f: cone,
      inside: (u) => add(Bc, scale(A, L * Math.min(u, 0.9))), poleU1: true, normals: 'surface',
      weight: () => [[head, 1]], shell: SHELL.ears, ear: true,
    });
    // base disk (own vertices: a hard seam at the rim)
    addPatch(b, {
      nu: 2, nv: 16, u0: 0, u1: 1, v0: 0, v1: 1,
      f: (u, v) => add(Bc, scale(rim(v), u)),
      inside: () => mid, poleU0: true, normals: 'faces',
      weight: () => [[head, 1]], shell: SHELL.ears, ear: true,
    });
  }
}

function buildArm(b: MeshBuilder, P: Record<string, V3>, bone: BoneIndex, side: 'Left' | 'Right'): void {
  const m = side === 'Left' ? 1 : -1;
  const hd: V3 = [m * LEFT_HAND_DIR[0], LEFT_HAND_DIR[1], LEFT_HAND_DIR[2]];
  const S: V3 = [m * 0.07, 0.93, -0.008];
  const knots = [S, P[side + 'Arm']!, P[side + 'ForeArm']!, P[side + 'Hand']!, add(P[side + 'Hand']!, scale(hd, 0.025))];
  const owners = [side + 'Shoulder', side + 'Arm', side + 'ForeArm', side + 'Hand'].map(bone);
  addLimb(b, {
    knots, radii: [0.045, 0.045, 0.034, 0.028, 0.026], ref: [0, 0, 1], nu: 36, nv: 16,
    weight: (tau) => chainWeights(tau, owners, 0.25), shell: SHELL.arms,
  });
  const hand = bone(side + 'Hand'), fore = bone(side + 'ForeArm');
  const Hc = add(P[side + 'Hand']!, scale(hd, 0.05));
  addEllipsoid(b, Hc, hd, [0, 0, 1], 0.06, 0.042, 0.024, 10, 16, (p) => {
    const along = dot(sub(p, P[side + 'Hand']!), hd);
    const wf = 0.4 * smoothstep(0.02, -0.01, along);
    return wf > 0 ? [[hand, 1 - wf], [fore, wf]] : [[hand, 1]];
  }, SHELL.arms);
}

function buildLeg(b: MeshBuilder, P: Record<string, V3>, bone: BoneIndex, side: 'Left' | 'Right'): void {
  const hip = P[side + 'UpLeg']!, knee = P[side + 'Leg']!, ankle = P[side + 'Foot']!;
  const knots = [add(hip, [0, 0.05, -0.005]), hip, knee, ankle, add(ankle, [0, -0.035, 0.005])];
  const up = bone(side + 'UpLeg'), shin = bone(side + 'Leg'), foot = bone(side + 'Foot'), hips = bone('Hips');
  const owners = [up, up, shin, foot];
  addLimb(b, {
    knots, radii: [0.07, 0.068, 0.048, 0.036, 0.034], ref: [1, 0, 0], nu: 36, nv: 16,
    weight: (tau) => {
      const w = chainWeights(tau, owners, 0.2);
      if (tau < 1) {
        const wh = 0.5 * (1 - smoothstep(0, 1, tau));
        return [...w.map(([j, x]) => [j, x * (1 - wh)] as Influence), [hips, wh]];
      }
      return w;
    },
    shell: SHELL.legs,
  });
}

/** Foot box extents relative to the ankle x (metres); the sole is the plane y = 0. */
export const FOOT = { halfWidth: 0.045, z0: -0.06, z1: 0.15, heelHeight: 0.07, toeHeight: 0.035 } as const;

/** Corners of a foot's sole (y = 0), counter-clockwise seen from below: heel-in, heel-out, toe-out, toe-in order by x. */
export function soleCorners(P: Record<string, V3>, side: 'Left' | 'Right'): V3[] {
  const ax = P[side + 'Foot']![0];
  const x0 = ax - FOOT.halfWidth, x1 = ax + FOOT.halfWidth;
  return [[x0, 0, FOOT.z0], [x1, 0, FOOT.z0], [x1, 0, FOOT.z1], [x0, 0, FOOT.z1]];
}

function buildFoot(b: MeshBuilder, P: Record<string, V3>, bone: BoneIndex, side: 'Left' | 'Right'): void {
  const ax = P[side + 'Foot']![0];
  const x0 = ax - FOOT.halfWidth, x1 = ax + FOOT.halfWidth;
  // trilinear box: a = x param, c = z param (heel → toe), b = y param (sole → top)
  const corner = (a: number, bb: number, c: number): V3 => {
    const x = (1 - a) * x0 + a * x1;
    const z = (1 - c) * FOOT.z0 + c * FOOT.z1;
    const top = (1 - c) * FOOT.heelHeight + c * FOOT.toeHeight;
    return [x, bb * top, z];
  };
  const centre = corner(0.5, 0.5, 0.5);
  const foot = bone(side + 'Foot'), toe = bone(side + 'ToeBase');
  const weight = (_u: number, _v: number, p: V3): Influence[] => {
    const wt = smoothstep(0.06, 0.11, p[2]);
    return wt <= 0 ? [[foot, 1]] : wt >= 1 ? [[toe, 1]] : [[foot, 1 - wt], [toe, wt]];
  };
  const nx = 4, ny = 3, nz = 8;
  const faces: { nu: number; nv: number; f: (u: number, v: number) => V3 }[] = [
    { nu: nx, nv: nz, f: (u, v) => corner(u, 0, v) }, // sole (flat, y = 0)
    { nu: nx, nv: nz, f: (u, v) => corner(u, 1, v) }, // top
    { nu: ny, nv: nz, f: (u, v) => corner(0, u, v) }, // −x side
    { nu: ny, nv: nz, f: (u, v) => corner(1, u, v) }, // +x side
    { nu: nx, nv: ny, f: (u, v) => corner(u, v, 0) }, // heel
    { nu: nx, nv: ny, f: (u, v) => corner(u, v, 1) }, // toe
  ];
  for (const F of faces) {
    addPatch(b, {
      nu: F.nu, nv: F.nv, u0: 0, u1: 1, v0: 0, v1: 1, f: F.f,
      inside: () => centre, normals: 'faces', weight, shell: SHELL.feet,
    });
  }
}

/**
 * The tail: a separate tube shell starting inside the pelvis, split into 5 × 2 patches
 * (rings and a longitudinal seam) whose borders duplicate positions with one-sided
 * normals — the raw face graph has ten islands, welding by position makes it one.
 */
function buildTail(b: MeshBuilder, bone: BoneIndex, curve: TailCurve, spec: TailSkinSpec): void {
  const f = (u: number, v: number): V3 => {
    const s = u * curve.total;
    const C = curve.point(s);
    const T = curve.tangent(s);
    const [N, B] = ringFrame(T, [1, 0, 0]);
    const [c, sn] = cs(v + 0.25); // v = 0 on the underside
    const r = curve.radius(s);
    return add(C, add(scale(N, r * c), scale(B, r * sn)));
  };
  const hips = bone('Hips');
  const K = spec.links;
  const tailBones: number[] = [];
  if (spec.variant === 'chain') for (let i = 1; i <= K; i++) tailBones.push(bone(`Tail_${i}`));
  const lLeg = bone('LeftLeg'), lUp = bone('LeftUpLeg'), rUp = bone('RightUpLeg');
  const weight = (u: number): Influence[] => {
    const s = u * curve.total;
    if (spec.variant === 'shin') {
      const sig = Math.min(1, Math.max(0, (s - curve.sIn) / curve.length));
      return [[lLeg, 0.5 + 0.3 * sig], [lUp, 0.3 - 0.15 * sig], [rUp, 0.2 - 0.15 * sig]];
    }
    const sigma = (K * (s - curve.sIn)) / curve.length;
    if (sigma < 0) {
      const wh = Math.min(1, 0.5 - 2 * sigma);
      return wh >= 1 ? [[hips, 1]] : [[hips, wh], [tailBones[0]!, 1 - wh]];
    }
    const k = Math.min(K - 1, Math.floor(sigma));
    const fr = sigma - k;
    const wPrev = Math.min(0.5, Math.max(0, 0.5 - 2 * fr));
    const wNext = k < K - 1 ? Math.min(0.5, Math.max(0, 2 * fr - 1.5)) : 0;
    const out: Influence[] = [[tailBones[k]!, 1 - wPrev - wNext]];
    if (wPrev > 0) out.push([k === 0 ? hips : tailBones[k - 1]!, wPrev]);
    if (wNext > 0) out.push([tailBones[k + 1]!, wNext]);
    return out;
  };
  const uBreaks = [0, 0.2, 0.4, 0.6, 0.8, 1];
  const vBreaks = [0, 0.5, 1];
  for (let i = 0; i + 1 < uBreaks.length; i++) {
    for (let j = 0; j + 1 < vBreaks.length; j++) {
      addPatch(b, {
        nu: 15, nv: 8, u0: uBreaks[i]!, u1: uBreaks[i + 1]!, v0: vBreaks[j]!, v1: vBreaks[j + 1]!, f,
        inside: (u) => curve.point(u * curve.total),
        poleU0: true, poleU1: true, normals: 'faces',
        weight: (u) => weight(u), shell: SHELL.tail, tail: true,
      });
    }
  }
}
