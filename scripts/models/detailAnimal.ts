/**
 * The auto-rigger failure made from a real animal: {@link detailAnimal} removes the tail
 * bones from the skin, the scene and the clips, and hands the tail's skin to the left lower
 * leg and both thighs, as a humanoid template rigger does. It returns the artist's chain as
 * ground truth. `npm run models:detail` runs it on the repository's fox
 * (scripts/models/detail.ts); the tests run it on every tailed model.
 *
 * Vertices are addressed by the rig pass's global index for the skin
 * (`readSkinMesh(doc, skin)` order), which survives a GLB write/read round trip.
 */
import type { Accessor, Document, Node, Skin } from '@gltf-transform/core';
import { findTailChains } from '../../core/boneMap';
import { readSkinMesh } from '../../rig/meshData';
import { readSkinSkeleton } from '../../rig/skeleton';

/** Ground truth of a tail fixture. */
export interface TailTruth {
  /** Skin holding the tail's skin. */
  skin: Skin;
  /** Pelvis joint name (what the grown chain must hang from). */
  pelvis: string;
  /** The artist's chain as a polyline in bind space (joint heads, then the tip), 3 per point. */
  chain: Float64Array;
  /** Polyline length. */
  length: number;
  /** Per global vertex of the skin: how much of it belongs to the tail (0…1). */
  tailWeight: Float32Array;
  /** Global vertex indices that are tail vertices (tailWeight ≥ 0.5). */
  tailVertices: Int32Array;
  /** Global vertex indices with no tail weight at all (must not change). */
  bodyVertices: Int32Array;
  /** Mean distance of the tail vertices to the chain polyline (the tail's mean radius). */
  meanRadius: number;
  /** Joints the tail's skin was given to (names). */
  wrongJoints: string[];
}

/** Options of {@link detailAnimal}. */
export interface DetailOptions {
  /** Left lower leg (the "shin") joint name. */
  shin: string;
  /** Left and right thigh joint names. */
  thighs: [string, string];
  /** Shares of the tail weight given to shin, left thigh, right thigh. */
  split?: [number, number, number];
}

/** Presets for the three tailed assets. */
export const ANIMAL_PRESETS: Record<'quaternius-fox' | 'quaternius-shiba-inu' | 'khronos-fox', DetailOptions> = {
  'quaternius-fox': { shin: 'BackLowerLeg.L', thighs: ['BackUpperLeg.L', 'BackUpperLeg.R'] },
  'quaternius-shiba-inu': { shin: 'BackLowerLeg.L', thighs: ['BackUpperLeg.L', 'BackUpperLeg.R'] },
  'khronos-fox': { shin: 'b_LeftLeg02_016', thighs: ['b_LeftLeg01_015', 'b_RightLeg01_019'] },
};

function jointTopo(skin: Skin): { nodes: Node[]; names: string[]; parents: number[] } {
  const nodes = skin.listJoints();
  const set = new Map<Node, number>();
  nodes.forEach((n, i) => set.set(n, i));
  const parents = nodes.map((n) => {
    let p = n.getParentNode();
    while (p && !set.has(p)) p = p.getParentNode();
    return p ? set.get(p)! : -1;
  });
  return { nodes, names: nodes.map((n) => n.getName()), parents };
}

/** Distance from a point to a polyline (3 per point). */
export function polylineDistance(poly: ArrayLike<number>, x: number, y: number, z: number): number {
  let best = Infinity;
  const n = poly.length / 3;
  if (n === 1) return Math.hypot(x - poly[0]!, y - poly[1]!, z - poly[2]!);
  for (let i = 0; i + 1 < n; i++) {
    const ax = poly[3 * i]!, ay = poly[3 * i + 1]!, az = poly[3 * i + 2]!;
    const dx = poly[3 * i + 3]! - ax, dy = poly[3 * i + 4]! - ay, dz = poly[3 * i + 5]! - az;
    const l2 = dx * dx + dy * dy + dz * dz;
    let t = l2 > 0 ? ((x - ax) * dx + (y - ay) * dy + (z - az) * dz) / l2 : 0;
    t = Math.max(0, Math.min(1, t));
    best = Math.min(best, Math.hypot(x - ax - t * dx, y - ay - t * dy, z - az - t * dz));
  }
  return best;
}

/** Length of a polyline. */
export function polylineLength(poly: ArrayLike<number>): number {
  let s = 0;
  for (let i = 3; i < poly.length; i += 3) s += Math.hypot(poly[i]! - poly[i - 3]!, poly[i + 1]! - poly[i - 2]!, poly[i + 2]! - poly[i - 1]!);
  return s;
}

/** Ground truth of a tail fixture from its chain polyline and per-vertex tail weight. */
export function finishTruth(doc: Document, skin: Skin, pelvis: string, chain: Float64Array, tailWeight: Float32Array, wrongJoints: string[]): TailTruth {
  const mesh = readSkinMesh(doc, skin);
  const tail: number[] = [];
  const body: number[] = [];
  let r = 0;
  for (let v = 0; v < mesh.count; v++) {
    if (tailWeight[v]! >= 0.5) {
      tail.push(v);
      r += polylineDistance(chain, mesh.positions[3 * v]!, mesh.positions[3 * v + 1]!, mesh.positions[3 * v + 2]!);
    } else if (tailWeight[v] === 0) body.push(v);
  }
  return {
    skin,
    pelvis,
    chain,
    length: polylineLength(chain),
    tailWeight,
    tailVertices: Int32Array.from(tail),
    bodyVertices: Int32Array.from(body),
    meanRadius: tail.length ? r / tail.length : 0,
    wrongJoints,
  };
}

/** Set a vertex's influences in its accessors (float or normalised int weights), up to 4. */
function setInfluences(ja: Accessor, wa: Accessor, i: number, joints: number[], weights: number[]): void {
  const jarr = ja.getArray()!;
  const warr = wa.getArray()!;
  const norm = wa.getNormalized() && wa.getComponentType() !== 5126 ? (wa.getComponentType() === 5121 ? 255 : 65535) : 0;
  let sum = 0;
  for (const w of weights) sum += w;
  const q: number[] = [];
  if (norm) {
    let used = 0;
    for (let k = 0; k < weights.length; k++) {
      q.push(Math.floor((weights[k]! / sum) * norm));
      used += q[k]!;
    }
    if (q.length) q[0]! += norm - used;
  }
  for (let k = 0; k < 4; k++) {
    const has = k < joints.length;
    jarr[4 * i + k] = has ? joints[k]! : 0;
    warr[4 * i + k] = has ? (norm ? q[k]! : weights[k]! / sum) : 0;
  }
}

/**
 * Remove the animal's tail chain (found by name: `Tail1…`, `b_Tail01_012…`) from the skin,
 * the scene and the clips, and hand its skin to `shin` and both `thighs` (by default
 * 60 / 20 / 20 % of each vertex's tail weight). Works in place; returns the ground truth.
 *
 * @example
 * const doc = await loadAsset('quaternius-fox');
 * const truth = detailAnimal(doc, ANIMAL_PRESETS['quaternius-fox']);
 */
export function detailAnimal(doc: Document, opts: DetailOptions): TailTruth {
  const split = opts.split ?? [0.6, 0.2, 0.2];
  const skin = doc.getRoot().listSkins().find((s) => findTailChains(jointTopo(s)).length > 0);
  if (!skin) throw new Error('detailAnimal: no skin with a tail chain');
  const topo = jointTopo(skin);
  const chainBones = findTailChains(topo)[0]!;
  const tailSet = new Set<number>(chainBones.bones);
  if (chainBones.end >= 0) tailSet.add(chainBones.end);
  // Everything under the tail is tail too.
  let grew = true;
  while (grew) {
    grew = false;
    topo.parents.forEach((p, i) => {
      if (p >= 0 && tailSet.has(p) && !tailSet.has(i)) {
        tailSet.add(i);
        grew = true;
      }
    });
  }
  const pelvisIndex = chainBones.parent;
  const pelvis = topo.names[pelvisIndex]!;
  const skel = readSkinSkeleton(skin, pelvis);
  const mesh = readSkinMesh(doc, skin);
  // Ground-truth chain: joint heads, then a tip past the last joint covering its skin.
  const pts: number[] = [];
  for (const b of chainBones.bones) pts.push(skel.positions[3 * b]!, skel.positions[3 * b + 1]!, skel.positions[3 * b + 2]!);
  const last = chainBones.bones[chainBones.bones.length - 1]!;
  let tipX: number, tipY: number, tipZ: number;
  if (chainBones.end >= 0) {
    tipX = skel.positions[3 * chainBones.end]!;
    tipY = skel.positions[3 * chainBones.end + 1]!;
    tipZ = skel.positions[3 * chainBones.end + 2]!;
  } else {
    const prev = chainBones.bones.length > 1 ? chainBones.bones[chainBones.bones.length - 2]! : pelvisIndex;
    let dx = skel.positions[3 * last]! - skel.positions[3 * prev]!;
    let dy = skel.positions[3 * last + 1]! - skel.positions[3 * prev + 1]!;
    let dz = skel.positions[3 * last + 2]! - skel.positions[3 * prev + 2]!;
    const l = Math.hypot(dx, dy, dz) || 1;
    dx /= l; dy /= l; dz /= l;
    let far = 0;
    for (let v = 0; v < mesh.count; v++) {
      let wl = 0;
      for (let k = 0; k < mesh.slots; k++) if (mesh.joints[mesh.slots * v + k] === last) wl += mesh.weights[mesh.slots * v + k]!;
      if (wl < 0.5) continue;
      const t = (mesh.positions[3 * v]! - skel.positions[3 * last]!) * dx + (mesh.positions[3 * v + 1]! - skel.positions[3 * last + 1]!) * dy + (mesh.positions[3 * v + 2]! - skel.positions[3 * last + 2]!) * dz;
      far = Math.max(far, t);
    }
    tipX = skel.positions[3 * last]! + far * dx;
    tipY = skel.positions[3 * last + 1]! + far * dy;
    tipZ = skel.positions[3 * last + 2]! + far * dz;
  }
  pts.push(tipX, tipY, tipZ);
  // Joint index remap after removing the tail joints.
  const remap = new Int32Array(topo.names.length).fill(-1);
  let next = 0;
  for (let i = 0; i < topo.names.length; i++) if (!tailSet.has(i)) remap[i] = next++;
  const shin = topo.names.indexOf(opts.shin);
  const thighL = topo.names.indexOf(opts.thighs[0]);
  const thighR = topo.names.indexOf(opts.thighs[1]);
  if (shin < 0 || thighL < 0 || thighR < 0) throw new Error(`detailAnimal: joints ${opts.shin}/${opts.thighs.join('/')} not all found`);
  const targets = [remap[shin]!, remap[thighL]!, remap[thighR]!];
  const tailWeight = new Float32Array(mesh.count);
  for (const src of mesh.sources) {
    if (src.joints[1]) throw new Error('detailAnimal: JOINTS_1 not supported');
    const ja = src.joints[0]!;
    const wa = src.weights[0]!;
    for (let i = 0; i < src.count; i++) {
      const v = src.base + i;
      const acc = new Map<number, number>();
      let t = 0;
      for (let k = 0; k < 4; k++) {
        const j = mesh.joints[4 * v + k]!;
        const w = mesh.weights[4 * v + k]!;
        if (!(w > 0)) continue;
        if (tailSet.has(j)) t += w;
        else acc.set(remap[j]!, (acc.get(remap[j]!) ?? 0) + w);
      }
      tailWeight[v] = t;
      if (t > 0) for (let k = 0; k < 3; k++) acc.set(targets[k]!, (acc.get(targets[k]!) ?? 0) + t * split[k]!);
      const list = [...acc.entries()].sort((a, b) => b[1] - a[1]).slice(0, 4);
      if (list.length === 0) list.push([0, 1]);
      setInfluences(ja, wa, i, list.map((e) => e[0]), list.map((e) => e[1]));
    }
    ja.setArray(ja.getArray());
    wa.setArray(wa.getArray());
  }
  // Skin: joints and inverse bind matrices without the tail.
  const ibm = skin.getInverseBindMatrices()!;
  const keep: number[] = [];
  for (let i = 0; i < topo.names.length; i++) if (!tailSet.has(i)) keep.push(i);
  const arr = new Float32Array(16 * keep.length);
  const el: number[] = new Array(16).fill(0);
  keep.forEach((i, k) => {
    ibm.getElement(i, el);
    for (let c = 0; c < 16; c++) arr[16 * k + c] = el[c]!;
  });
  const newIbm = doc.createAccessor(ibm.getName()).setType('MAT4').setArray(arr).setBuffer(ibm.getBuffer());
  skin.setInverseBindMatrices(newIbm);
  if (ibm.listParents().every((p) => p.propertyType === 'Root')) ibm.dispose();
  const tailNodes = [...tailSet].map((i) => topo.nodes[i]!);
  for (const n of tailNodes) skin.removeJoint(n);
  // Clips: drop channels on tail nodes, then samplers nobody uses.
  const tailNodeSet = new Set(tailNodes);
  for (const anim of doc.getRoot().listAnimations()) {
    for (const ch of anim.listChannels()) {
      if (ch.getTargetNode() && tailNodeSet.has(ch.getTargetNode()!)) {
        const s = ch.getSampler();
        ch.dispose();
        if (s && s.listParents().every((p) => p.propertyType !== 'AnimationChannel')) {
          const inp = s.getInput();
          const out = s.getOutput();
          s.dispose();
          for (const a of [inp, out]) if (a && a.listParents().every((p) => p.propertyType === 'Root')) a.dispose();
        }
      }
    }
  }
  // Scene: dispose the tail nodes (children outside the tail move to the pelvis).
  const pelvisNode = topo.nodes[pelvisIndex]!;
  for (const n of tailNodes) {
    for (const c of n.listChildren()) if (!tailNodeSet.has(c)) pelvisNode.addChild(c);
  }
  for (const n of tailNodes) n.dispose();
  return finishTruth(doc, skin, pelvis, Float64Array.from(pts), tailWeight, [opts.shin, ...opts.thighs]);
}
