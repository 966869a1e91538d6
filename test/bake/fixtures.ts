/**
 * A tiny skinned creature built in code as a glTF-Transform Document, for the bake / measure
 * / grounding tests: hips, spine, two legs with flat feet (soles at y = 0) and a tail tube
 * hanging back and down from the pelvis. Metres, Y up, facing +Z, tail toward −Z.
 *
 * Variants: `chain` (Tail_1…Tail_K + Tail_End under Hips, weights — what the rig
 * pass grows), `shin` (no tail bones: the tail skin on the left shin and both thighs, the
 * auto-rigger failure), `rigid` (no tail bones: every tail vertex 1.0 on Hips). All variants
 * have the same vertices in the same order. Clips: `walk` (1 s), `crouch` (1 s: the hips
 * sink 0.25 m while the legs fold, feet stay down). No clip keys a tail bone.
 */
import { Document, type Node } from '@gltf-transform/core';
import { mat4, quat, vec3 } from 'gl-matrix';

export type CritterVariant = 'chain' | 'shin' | 'rigid';

export interface CritterOptions {
  variant?: CritterVariant;
  /** Tail links K (chain variant). */
  links?: number;
  /** Height of the tail tip's centreline at bind (m); below 0 it hangs below the soles. */
  tailTipY?: number;
  /** Armature node transform above the skeleton (coordinate-transform tests). */
  armature?: { t?: [number, number, number]; r?: [number, number, number, number]; s?: [number, number, number] };
}

export interface Critter {
  doc: Document;
  /** 1 for tail vertices (in readSkinMesh order: one primitive, so vertex order = POSITION order). */
  tailVertex: Uint8Array;
  jointNames: string[];
}

type V3 = [number, number, number];

const BODY: { name: string; parent: number; p: V3 }[] = [
  { name: 'Hips', parent: -1, p: [0, 1.0, 0] },
  { name: 'Spine', parent: 0, p: [0, 1.3, 0] },
  { name: 'LeftUpLeg', parent: 0, p: [0.15, 0.95, 0] },
  { name: 'LeftLeg', parent: 2, p: [0.15, 0.52, 0] },
  { name: 'LeftFoot', parent: 3, p: [0.15, 0.1, 0] },
  { name: 'RightUpLeg', parent: 0, p: [-0.15, 0.95, 0] },
  { name: 'RightLeg', parent: 5, p: [-0.15, 0.52, 0] },
  { name: 'RightFoot', parent: 6, p: [-0.15, 0.1, 0] },
];

function tailPoint(u: number, tipY: number): V3 {
  // From the root (0, 0.95, −0.18) back and down to (0, tipY, −0.75), sagging.
  const y0 = 0.95;
  return [0, y0 + (tipY - y0) * (0.55 * u + 0.45 * u * u), -0.18 - 0.57 * u];
}

export function makeCritter(o: CritterOptions = {}): Critter {
  const variant = o.variant ?? 'chain';
  const K = o.links ?? 4;
  const tipY = o.tailTipY ?? 0.12;
  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene('Scene');
  doc.getRoot().setDefaultScene(scene);

  const joints: { name: string; parent: number; p: V3 }[] = BODY.map((b) => ({ ...b, p: [...b.p] as V3 }));
  if (variant === 'chain') {
    for (let i = 0; i <= K; i++) joints.push({ name: i < K ? `Tail_${i + 1}` : 'Tail_End', parent: i === 0 ? 0 : joints.length - 1, p: tailPoint(i / K, tipY) });
  }
  const arm = doc.createNode('Armature');
  const A = o.armature ?? {};
  arm.setTranslation(A.t ?? [0, 0, 0]).setRotation(A.r ?? [0, 0, 0, 1]).setScale(A.s ?? [1, 1, 1]);
  scene.addChild(arm);
  const armM = mat4.fromRotationTranslationScale(mat4.create(), (A.r ?? [0, 0, 0, 1]) as quat, (A.t ?? [0, 0, 0]) as vec3, (A.s ?? [1, 1, 1]) as vec3);
  const nodes: Node[] = [];
  for (const j of joints) {
    const n = doc.createNode(j.name);
    const pp = j.parent >= 0 ? joints[j.parent]!.p : [0, 0, 0];
    n.setTranslation([j.p[0] - pp[0]!, j.p[1] - pp[1]!, j.p[2] - pp[2]!]);
    nodes.push(n);
    (j.parent >= 0 ? nodes[j.parent]! : arm).addChild(n);
  }
  const skin = doc.createSkin('CritterSkin');
  for (const n of nodes) skin.addJoint(n);
  skin.setSkeleton(nodes[0]!);
  const ibm = new Float32Array(16 * joints.length);
  joints.forEach((j, i) => {
    const w = mat4.multiply(mat4.create(), armM, mat4.fromTranslation(mat4.create(), j.p));
    ibm.set(mat4.invert(mat4.create(), w)!, 16 * i);
  });
  skin.setInverseBindMatrices(doc.createAccessor('ibm', buffer).setType('MAT4').setArray(ibm));

  // --- geometry -------------------------------------------------------------------------
  const pos: number[] = [];
  const jnt: number[] = [];
  const wgt: number[] = [];
  const idx: number[] = [];
  const tail: number[] = [];
  const J = (name: string): number => joints.findIndex((j) => j.name === name);
  // Bind space is the scene's world at bind (IBMs include the armature), so vertices are placed by it too.
  const addVertex = (p: V3, inf: [number, number][], isTail: boolean): void => {
    const wp = vec3.transformMat4(vec3.create(), p, armM);
    pos.push(wp[0]!, wp[1]!, wp[2]!);
    const s = [...inf].sort((a, b) => b[1] - a[1]).slice(0, 4);
    const sum = s.reduce((a, b) => a + b[1], 0);
    for (let k = 0; k < 4; k++) {
      jnt.push(k < s.length ? s[k]![0] : 0);
      wgt.push(k < s.length ? s[k]![1] / sum : 0);
    }
    tail.push(isTail ? 1 : 0);
  };
  // Tube along a centreline with rings of `sides` vertices.
  const tube = (rings: number, sides: number, at: (u: number) => { c: V3; r: number; inf: [number, number][] }, isTail: boolean, axisHint: V3): void => {
    const base = pos.length / 3;
    for (let i = 0; i <= rings; i++) {
      const u = i / rings;
      const { c, r, inf } = at(u);
      const c2 = at(Math.min(1, u + 1e-3)).c;
      const c1 = at(Math.max(0, u - 1e-3)).c;
      const d = vec3.normalize(vec3.create(), vec3.sub(vec3.create(), c2, c1));
      const a = vec3.normalize(vec3.create(), vec3.cross(vec3.create(), d, axisHint));
      const b = vec3.cross(vec3.create(), d, a);
      for (let k = 0; k < sides; k++) {
        const th = (2 * Math.PI * k) / sides;
        addVertex([c[0] + r * (Math.cos(th) * a[0]! + Math.sin(th) * b[0]!), c[1] + r * (Math.cos(th) * a[1]! + Math.sin(th) * b[1]!), c[2] + r * (Math.cos(th) * a[2]! + Math.sin(th) * b[2]!)], inf, isTail);
      }
    }
    for (let i = 0; i < rings; i++) {
      for (let k = 0; k < sides; k++) {
        const a0 = base + i * sides + k, a1 = base + i * sides + ((k + 1) % sides);
        const b0 = a0 + sides, b1 = a1 + sides;
        idx.push(a0, b0, a1, a1, b0, b1);
      }
    }
  };
  const smooth = (e0: number, e1: number, x: number): number => {
    const t = Math.min(1, Math.max(0, (x - e0) / (e1 - e0)));
    return t * t * (3 - 2 * t);
  };
  // Torso: hips → spine and above.
  tube(10, 10, (u) => {
    const y = 0.88 + 0.6 * u;
    const s = smooth(0.3, 0.7, u);
    return { c: [0, y, 0], r: 0.22 - 0.05 * u, inf: [[J('Hips'), 1 - s], [J('Spine'), s]] };
  }, false, [1, 0, 0]);
  // Legs.
  for (const side of ['Left', 'Right'] as const) {
    const x = side === 'Left' ? 0.15 : -0.15;
    tube(12, 8, (u) => {
      const y = 0.92 - 0.82 * u;
      const s = smooth(0.4, 0.6, u);
      return { c: [x, y, 0], r: 0.07 - 0.02 * u, inf: [[J(`${side}UpLeg`), 1 - s], [J(`${side}Leg`), s]] };
    }, false, [0, 0, 1]);
    // Foot: a box, soles at y = 0.
    const fb = pos.length / 3;
    const corners: V3[] = [];
    for (const yy of [0, 0.1]) for (const zz of [-0.06, 0.16]) for (const xx of [x - 0.06, x + 0.06]) corners.push([xx, yy, zz]);
    for (const c of corners) addVertex(c, [[J(`${side}Foot`), 1]], false);
    const q = (a: number, b: number, c: number, d: number): void => { idx.push(fb + a, fb + b, fb + c, fb + a, fb + c, fb + d); };
    q(0, 1, 3, 2); q(4, 6, 7, 5); q(0, 4, 5, 1); q(2, 3, 7, 6); q(0, 2, 6, 4); q(1, 5, 7, 3);
  }
  // Tail.
  const hips = J('Hips');
  tube(24, 8, (u) => {
    const c = tailPoint(u, tipY);
    const r = 0.06 - 0.035 * u;
    let inf: [number, number][];
    if (variant === 'chain') {
      const s = Math.min(K - 1e-9, K * u);
      const k = Math.floor(s);
      const f = s - k;
      const wPrev = Math.min(0.5, Math.max(0, 0.5 - 2 * f));
      const wNext = Math.min(0.5, Math.max(0, 2 * f - 1.5));
      const self = J(`Tail_${k + 1}`);
      const prev = k === 0 ? hips : J(`Tail_${k}`);
      inf = [[self, 1 - wPrev - wNext]];
      if (wPrev > 0) inf.push([prev, wPrev]);
      if (wNext > 0 && k + 1 < K) inf.push([J(`Tail_${k + 2}`), wNext]);
      else if (wNext > 0) inf[0]![1] += wNext;
    } else if (variant === 'rigid') {
      inf = [[hips, 1]];
    } else {
      // The auto-rigger's guess: thighs near the root, the left shin further out.
      inf = [[J('LeftLeg'), 0.2 + 0.6 * u], [J('LeftUpLeg'), 0.45 - 0.35 * u], [J('RightUpLeg'), 0.35 - 0.25 * u]];
    }
    return { c, r, inf };
  }, true, [1, 0, 0]);

  const mesh = doc.createMesh('Critter');
  const prim = doc.createPrimitive()
    .setAttribute('POSITION', doc.createAccessor('pos', buffer).setType('VEC3').setArray(new Float32Array(pos)))
    .setAttribute('JOINTS_0', doc.createAccessor('joints', buffer).setType('VEC4').setArray(new Uint16Array(jnt)))
    .setAttribute('WEIGHTS_0', doc.createAccessor('weights', buffer).setType('VEC4').setArray(new Float32Array(wgt)))
    .setIndices(doc.createAccessor('idx', buffer).setType('SCALAR').setArray(new Uint32Array(idx)));
  mesh.addPrimitive(prim);
  const meshNode = doc.createNode('CritterMesh').setMesh(mesh).setSkin(skin);
  scene.addChild(meshNode);

  // --- clips ---------------------------------------------------------------------------
  const keys = 25;
  const times = new Float32Array(keys);
  for (let i = 0; i < keys; i++) times[i] = i / (keys - 1);
  const addClip = (name: string, tracks: { node: string; path: 'translation' | 'rotation'; f: (t: number) => number[] }[]): void => {
    const anim = doc.createAnimation(name);
    const input = doc.createAccessor(`${name}_t`, buffer).setType('SCALAR').setArray(times.slice());
    for (const tr of tracks) {
      const vals: number[] = [];
      for (let i = 0; i < keys; i++) vals.push(...tr.f(times[i]!));
      const out = doc.createAccessor(`${name}_${tr.node}_${tr.path}`, buffer).setType(tr.path === 'rotation' ? 'VEC4' : 'VEC3').setArray(new Float32Array(vals));
      const s = doc.createAnimationSampler().setInput(input).setOutput(out).setInterpolation('LINEAR');
      anim.addSampler(s);
      anim.addChannel(doc.createAnimationChannel().setSampler(s).setTargetNode(nodes[J(tr.node)]!).setTargetPath(tr.path));
    }
  };
  const rot = (ax: V3, deg: number): number[] => Array.from(quat.setAxisAngle(quat.create(), ax, (deg * Math.PI) / 180));
  const mulq = (a: number[], b: number[]): number[] => Array.from(quat.multiply(quat.create(), a as unknown as quat, b as unknown as quat));
  const TAU = 2 * Math.PI;
  addClip('walk', [
    { node: 'Hips', path: 'translation', f: (t) => [0.03 * Math.sin(TAU * t), 1.0 + 0.03 * Math.sin(2 * TAU * t), 0] },
    { node: 'Hips', path: 'rotation', f: (t) => mulq(rot([0, 1, 0], 14 * Math.sin(TAU * t)), rot([0, 0, 1], 5 * Math.sin(TAU * t + 1))) },
    { node: 'LeftUpLeg', path: 'rotation', f: (t) => rot([1, 0, 0], -30 * Math.sin(TAU * t)) },
    { node: 'LeftLeg', path: 'rotation', f: (t) => rot([1, 0, 0], 35 * Math.max(0, Math.sin(TAU * t + 0.6))) },
    { node: 'RightUpLeg', path: 'rotation', f: (t) => rot([1, 0, 0], 30 * Math.sin(TAU * t)) },
    { node: 'RightLeg', path: 'rotation', f: (t) => rot([1, 0, 0], 35 * Math.max(0, Math.sin(TAU * t + 0.6 + Math.PI))) },
  ]);
  const drop = (t: number): number => 0.25 * Math.sin(Math.PI * t) ** 2;
  const theta = (t: number): number => (Math.acos((0.85 - drop(t)) / 0.85) * 180) / Math.PI;
  addClip('crouch', [
    { node: 'Hips', path: 'translation', f: (t) => [0, 1.0 - drop(t), 0] },
    { node: 'LeftUpLeg', path: 'rotation', f: (t) => rot([1, 0, 0], theta(t)) },
    { node: 'LeftLeg', path: 'rotation', f: (t) => rot([1, 0, 0], -2 * theta(t)) },
    { node: 'LeftFoot', path: 'rotation', f: (t) => rot([1, 0, 0], theta(t)) },
    { node: 'RightUpLeg', path: 'rotation', f: (t) => rot([1, 0, 0], theta(t)) },
    { node: 'RightLeg', path: 'rotation', f: (t) => rot([1, 0, 0], -2 * theta(t)) },
    { node: 'RightFoot', path: 'rotation', f: (t) => rot([1, 0, 0], theta(t)) },
  ]);
  return { doc, tailVertex: Uint8Array.from(tail), jointNames: joints.map((j) => j.name) };
}
