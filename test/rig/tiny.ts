/**
 * A tiny skinned model built in code for the rig tests: a vertical box "body" around a
 * Hips → Spine → Head chain with two legs, and optionally a tapered tail tube behind the hips
 * skinned to the left shin. Everything in bind space = world space (rest pose = bind pose).
 */
import { Accessor, Document } from '@gltf-transform/core';

/** Options of {@link makeTinyDoc}. */
export interface TinyOptions {
  /** Add a tail tube skinned to the left shin. */
  tail?: boolean;
  /** Write inverse bind matrices (a skin without them is bad input for the pass). */
  ibm?: boolean;
  /** Flatten every vertex and joint to y = 0 (a zero-height model). */
  flat?: boolean;
  /** Weight storage: float (default) or normalised unsigned bytes. */
  weights?: 'float' | 'ubyte';
  /**
   * A round fat body instead of the slim torso: a sphere of radius 0.42 around the spine
   * (hips skin below its centre, spine skin above), most of the model's surface, far from
   * every bone except where the legs and the neck enter it.
   */
  fatBody?: boolean;
  /** Fraction of the tail's curve built (default 1): below about 0.3 the tail is a short stub. */
  tailLength?: number;
}

const JOINTS: { name: string; parent: number; p: [number, number, number] }[] = [
  { name: 'Hips', parent: -1, p: [0, 1, 0] },
  { name: 'Spine', parent: 0, p: [0, 1.3, 0] },
  { name: 'Head', parent: 1, p: [0, 1.6, 0] },
  { name: 'LeftUpLeg', parent: 0, p: [0.12, 0.95, 0] },
  { name: 'LeftLeg', parent: 3, p: [0.12, 0.5, 0] },
  { name: 'LeftFoot', parent: 4, p: [0.12, 0.05, 0] },
  { name: 'RightUpLeg', parent: 0, p: [-0.12, 0.95, 0] },
  { name: 'RightLeg', parent: 6, p: [-0.12, 0.5, 0] },
  { name: 'RightFoot', parent: 7, p: [-0.12, 0.05, 0] },
];

interface Geo {
  pos: number[];
  idx: number[];
  joint: number[];
}

/** A capped tube along a polyline of centres with radii, skinned per ring by `jointOf`. */
function tube(g: Geo, centres: [number, number, number][], radii: number[], sides: number, jointOf: (ring: number) => number): void {
  const base = g.pos.length / 3;
  for (let r = 0; r < centres.length; r++) {
    const c = centres[r]!;
    const next = centres[Math.min(r + 1, centres.length - 1)]!;
    const prev = centres[Math.max(r - 1, 0)]!;
    let t = [next[0] - prev[0], next[1] - prev[1], next[2] - prev[2]];
    const tl = Math.hypot(t[0]!, t[1]!, t[2]!) || 1;
    t = t.map((x) => x / tl);
    // A side vector not parallel to t.
    const a = Math.abs(t[0]!) < 0.9 ? [1, 0, 0] : [0, 0, 1];
    let u = [t[1]! * a[2]! - t[2]! * a[1]!, t[2]! * a[0]! - t[0]! * a[2]!, t[0]! * a[1]! - t[1]! * a[0]!];
    const ul = Math.hypot(u[0]!, u[1]!, u[2]!);
    u = u.map((x) => x / ul);
    const v = [t[1]! * u[2]! - t[2]! * u[1]!, t[2]! * u[0]! - t[0]! * u[2]!, t[0]! * u[1]! - t[1]! * u[0]!];
    for (let k = 0; k < sides; k++) {
      const ang = (2 * Math.PI * k) / sides;
      const cs = Math.cos(ang), sn = Math.sin(ang);
      g.pos.push(c[0] + radii[r]! * (cs * u[0]! + sn * v[0]!), c[1] + radii[r]! * (cs * u[1]! + sn * v[1]!), c[2] + radii[r]! * (cs * u[2]! + sn * v[2]!));
      g.joint.push(jointOf(r));
    }
  }
  for (let r = 0; r + 1 < centres.length; r++) {
    for (let k = 0; k < sides; k++) {
      const a0 = base + r * sides + k, b0 = base + r * sides + ((k + 1) % sides);
      const a1 = a0 + sides, b1 = b0 + sides;
      g.idx.push(a0, a1, b0, b0, a1, b1);
    }
  }
  const s = g.pos.length / 3;
  const e = s + 1;
  const c0 = centres[0]!, c1 = centres[centres.length - 1]!;
  g.pos.push(...c0, ...c1);
  g.joint.push(jointOf(0), jointOf(centres.length - 1));
  const last = base + (centres.length - 1) * sides;
  for (let k = 0; k < sides; k++) {
    g.idx.push(s, base + ((k + 1) % sides), base + k);
    g.idx.push(e, last + k, last + ((k + 1) % sides));
  }
}

/** A UV sphere (poles on y), skinned per vertex by `jointOf(y)`. */
function sphere(g: Geo, c: [number, number, number], radius: number, sides: number, rings: number, jointOf: (y: number) => number): void {
  const base = g.pos.length / 3;
  for (let r = 0; r <= rings; r++) {
    const phi = (Math.PI * r) / rings;
    const count = r === 0 || r === rings ? 1 : sides;
    for (let k = 0; k < count; k++) {
      const th = (2 * Math.PI * k) / sides;
      const y = c[1] - radius * Math.cos(phi);
      g.pos.push(c[0] + radius * Math.sin(phi) * Math.cos(th), y, c[2] + radius * Math.sin(phi) * Math.sin(th));
      g.joint.push(jointOf(y));
    }
  }
  // Index of ring r (1…rings−1), side k; the poles are base and the last vertex.
  const at = (r: number, k: number): number => (r === 0 ? base : r === rings ? base + 1 + (rings - 1) * sides : base + 1 + (r - 1) * sides + (k % sides));
  for (let k = 0; k < sides; k++) {
    g.idx.push(at(0, 0), at(1, k + 1), at(1, k));
    g.idx.push(at(rings, 0), at(rings - 1, k), at(rings - 1, k + 1));
    for (let r = 1; r + 1 < rings; r++) {
      g.idx.push(at(r, k), at(r, k + 1), at(r + 1, k), at(r, k + 1), at(r + 1, k + 1), at(r + 1, k));
    }
  }
}

/** Ground truth of the tiny model's tail. */
export interface TinyTruth {
  /** Tail centre line (3 per point). */
  centre: number[];
  /** First and one-past-last vertex index of the tail. */
  tailRange: [number, number];
}

/**
 * Build the tiny model as a Document (one mesh, one skin, one scene; no clips).
 *
 * @example
 * const { doc } = makeTinyDoc({ tail: true });
 */
export function makeTinyDoc(opts: TinyOptions = {}): { doc: Document; truth: TinyTruth } {
  const g: Geo = { pos: [], idx: [], joint: [] };
  const steps = (a: number, b: number, n: number): number[] => Array.from({ length: n + 1 }, (_, i) => a + ((b - a) * i) / n);
  // Torso and head along the spine, legs.
  if (opts.fatBody) {
    sphere(g, [0, 1.22, 0], 0.42, 24, 16, (y) => (y < 1.22 ? 0 : 1));
    tube(g, steps(1.5, 1.75, 3).map((y) => [0, y, 0] as [number, number, number]), new Array(4).fill(0.09), 12, () => 2);
  } else {
    tube(g, steps(0.9, 1.7, 8).map((y) => [0, y, 0] as [number, number, number]), steps(0.9, 1.7, 8).map((y) => (y > 1.45 ? 0.09 : 0.14)), 12, (r) => (r < 3 ? 0 : r < 6 ? 1 : 2));
  }
  for (const side of [1, -1]) {
    const up = side > 0 ? 3 : 6;
    tube(g, steps(0.95, 0.02, 8).map((y) => [0.12 * side, y, 0] as [number, number, number]), new Array(9).fill(0.06), 10, (r) => (r < 4 ? up : r < 8 ? up + 1 : up + 2));
  }
  const tailStart = g.pos.length / 3;
  const centre: number[] = [];
  if (opts.tail) {
    const c: [number, number, number][] = [];
    for (let i = 0; i <= 20; i++) {
      const t = (opts.tailLength ?? 1) * (i / 20);
      c.push([0, 1.0 - 0.35 * t * t, -0.1 - 0.7 * t]);
    }
    for (const p of c) centre.push(...p);
    tube(g, c, c.map((_, i) => 0.05 - 0.035 * (i / 20)), 10, () => 4);
  }
  const tailEnd = g.pos.length / 3;
  if (opts.flat) for (let i = 1; i < g.pos.length; i += 3) g.pos[i] = 0;
  const doc = new Document();
  const buffer = doc.createBuffer();
  const nodes = JOINTS.map((j) => {
    const p = j.parent >= 0 ? JOINTS[j.parent]!.p : [0, 0, 0];
    const y = opts.flat ? 0 : 1;
    return doc.createNode(j.name).setTranslation([j.p[0] - p[0]!, (j.p[1] - p[1]!) * y, j.p[2] - p[2]!]);
  });
  JOINTS.forEach((j, i) => {
    if (j.parent >= 0) nodes[j.parent]!.addChild(nodes[i]!);
  });
  const skin = doc.createSkin('tiny');
  for (const n of nodes) skin.addJoint(n);
  if (opts.ibm !== false) {
    const ibm = new Float32Array(16 * JOINTS.length);
    JOINTS.forEach((j, i) => {
      ibm.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -j.p[0], opts.flat ? 0 : -j.p[1], -j.p[2], 1], 16 * i);
    });
    skin.setInverseBindMatrices(doc.createAccessor('ibm').setType(Accessor.Type.MAT4).setArray(ibm).setBuffer(buffer));
  }
  const n = g.pos.length / 3;
  const J = new Uint8Array(4 * n);
  const W = opts.weights === 'ubyte' ? new Uint8Array(4 * n) : new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    J[4 * i] = g.joint[i]!;
    W[4 * i] = opts.weights === 'ubyte' ? 255 : 1;
  }
  const wAcc = doc.createAccessor('weights').setType(Accessor.Type.VEC4).setArray(W).setBuffer(buffer);
  if (opts.weights === 'ubyte') wAcc.setNormalized(true);
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor('position').setType(Accessor.Type.VEC3).setArray(Float32Array.from(g.pos)).setBuffer(buffer))
    .setAttribute('JOINTS_0', doc.createAccessor('joints').setType(Accessor.Type.VEC4).setArray(J).setBuffer(buffer))
    .setAttribute('WEIGHTS_0', wAcc)
    .setIndices(doc.createAccessor('indices').setType(Accessor.Type.SCALAR).setArray(Uint16Array.from(g.idx)).setBuffer(buffer));
  const mesh = doc.createMesh('tiny').addPrimitive(prim);
  const meshNode = doc.createNode('tiny').setMesh(mesh).setSkin(skin);
  const scene = doc.createScene('tiny').addChild(nodes[0]!).addChild(meshNode);
  doc.getRoot().setDefaultScene(scene);
  return { doc, truth: { centre, tailRange: [tailStart, tailEnd] } };
}

/** A GLB-able document with a mesh and no skin. */
export function makeUnskinnedDoc(): Document {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor('p').setType(Accessor.Type.VEC3).setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0])).setBuffer(buffer));
  const node = doc.createNode('static').setMesh(doc.createMesh('m').addPrimitive(prim));
  doc.getRoot().setDefaultScene(doc.createScene('s').addChild(node));
  return doc;
}
