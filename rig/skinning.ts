/**
 * CPU linear-blend skinning of every skinned primitive at a pose: per skin, the
 * joint matrices `M_j = W_j · B_j` (joint world × inverse bind, glTF's rule: the skinned
 * mesh node's own transform does not apply) and `p' = Σ_k w_k · M_{j_k} · p` over all
 * influences (JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1). Output is in the scene's world
 * space, in its units.
 *
 * Vertices are gathered per skin by the rig pass's `readSkinMesh` (weights normalised per
 * vertex), so vertex numbering is the same as the rig pass's and stays the same after it
 * re-weights a document.
 *
 * Setup functions allocate and throw `bitrig/skinning: …`; {@link jointMatrices} and
 * {@link skinVertices} do not allocate.
 */
import type { Document, Skin } from '@gltf-transform/core';
import { mat4 } from 'gl-matrix';
import { mulAffine } from '../core/pose';
import { readSkinMesh, type SkinMesh } from './meshData';
import { computeWorldMatrices, type SceneGraph } from './sample';

/** One skin with its vertices, joints and inverse bind matrices. */
export interface SkinData {
  /** The glTF skin. */
  skin: Skin;
  /** Index among the document's skins. */
  skinIndex: number;
  /** Joint names (node names). */
  names: string[];
  /** Graph node index of each joint. */
  jointNodes: Int32Array;
  /** Parent joint index (nearest ancestor node that is a joint of this skin), -1 for a root. */
  parents: Int32Array;
  /** Inverse bind matrix per joint, 16 each (identity when the skin has none). */
  inverseBind: Float64Array;
  /** Whether the skin has inverse bind matrices. */
  hasInverseBind: boolean;
  /** Skinned vertices of the skin (bind-space positions, influences, triangles). */
  mesh: SkinMesh;
  /**
   * Scale of the bind space in the scene's world at the rest pose (median over joints of
   * `|det(W_j · B_j)|^⅓`): 1 when the inverse bind matrices match the node tree, 0.01 for a
   * centimetre bind under a 0.01-scaled armature. Lengths in world / this = bind units.
   */
  bindToWorldScale: number;
}

/**
 * Read every skin that skins at least one primitive. Throws `bitrig/skinning: …` when the
 * document has no skin or no skinned primitive.
 *
 * @example
 * const skins = readSkins(doc, readSceneGraph(doc));
 */
export function readSkins(doc: Document, graph: SceneGraph): SkinData[] {
  const skins = doc.getRoot().listSkins();
  if (skins.length === 0) throw new Error('bitrig/skinning: the file has no skin');
  const out: SkinData[] = [];
  const world = restWorld(graph);
  skins.forEach((skin, skinIndex) => {
    const joints = skin.listJoints();
    const n = joints.length;
    if (n === 0) return;
    const mesh = readSkinMesh(doc, skin);
    if (mesh.count === 0) return;
    const names = joints.map((j, i) => j.getName() || `joint${i}`);
    const jointNodes = new Int32Array(n);
    const jset = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const ni = graph.index.get(joints[i]!);
      if (ni === undefined) throw new Error(`bitrig/skinning: joint "${names[i]}" is not a node of the document`);
      jointNodes[i] = ni;
      jset.set(ni, i);
    }
    const parents = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      let p = graph.parent[jointNodes[i]!]!;
      while (p >= 0 && !jset.has(p)) p = graph.parent[p]!;
      parents[i] = p >= 0 ? jset.get(p)! : -1;
    }
    const inverseBind = new Float64Array(16 * n);
    const ibm = skin.getInverseBindMatrices();
    const el: number[] = new Array<number>(16).fill(0);
    for (let i = 0; i < n; i++) {
      if (ibm && i < ibm.getCount()) {
        ibm.getElement(i, el);
        for (let k = 0; k < 16; k++) inverseBind[16 * i + k] = Number.isFinite(el[k]!) ? el[k]! : (k % 5 === 0 ? 1 : 0);
      } else {
        for (let k = 0; k < 16; k++) inverseBind[16 * i + k] = k % 5 === 0 ? 1 : 0;
      }
    }
    const data: SkinData = {
      skin, skinIndex, names, jointNodes, parents, inverseBind, hasInverseBind: !!ibm, mesh, bindToWorldScale: 1,
    };
    data.bindToWorldScale = bindScale(data, world);
    out.push(data);
  });
  if (out.length === 0) throw new Error('bitrig/skinning: the file has no skinned primitive (no mesh uses a skin with JOINTS_0/WEIGHTS_0)');
  return out;
}

function restWorld(graph: SceneGraph): Float64Array {
  const w = new Float64Array(16 * graph.nodes.length);
  computeWorldMatrices(graph, { t: graph.restT, r: graph.restR, s: graph.restS }, w);
  return w;
}

function bindScale(s: SkinData, world: Float64Array): number {
  const n = s.jointNodes.length;
  const m = new Float64Array(16);
  const scales: number[] = [];
  for (let j = 0; j < n; j++) {
    mulAffine(m, 0, world, 16 * s.jointNodes[j]!, s.inverseBind, 16 * j);
    const det = mat4.determinant(m as unknown as mat4);
    const sc = Math.cbrt(Math.abs(det));
    if (Number.isFinite(sc) && sc > 0) scales.push(sc);
  }
  if (scales.length === 0) return 1;
  scales.sort((a, b) => a - b);
  return scales[scales.length >> 1]!;
}

/**
 * Joint matrices `M_j = W_j · B_j` (16 per joint) of a skin from the graph's world matrices.
 * No allocation.
 *
 * @example
 * const jm = new Float64Array(16 * skin.names.length);
 * jointMatrices(skin, world, jm);
 */
export function jointMatrices(skin: SkinData, nodeWorld: Float64Array, out: Float64Array): void {
  const n = skin.jointNodes.length;
  for (let j = 0; j < n; j++) mulAffine(out, 16 * j, nodeWorld, 16 * skin.jointNodes[j]!, skin.inverseBind, 16 * j);
}

/**
 * Linear-blend skin every vertex of a skin (or only `vertices` when given): writes world
 * positions, 3 per vertex, at the vertex's index in `out`. Influences on a joint index the
 * skin does not have are ignored; a vertex without weight keeps its bind position.
 * No allocation.
 *
 * @example
 * const pos = new Float64Array(3 * skin.mesh.count);
 * skinVertices(skin, jm, pos);
 */
export function skinVertices(skin: SkinData, jointMats: Float64Array, out: Float64Array, vertices?: ArrayLike<number>): void {
  const mesh = skin.mesh;
  const count = vertices ? vertices.length : mesh.count;
  const slots = mesh.slots;
  const nj = skin.jointNodes.length;
  const P = mesh.positions;
  const J = mesh.joints;
  const W = mesh.weights;
  for (let q = 0; q < count; q++) {
    const v = vertices ? vertices[q]! : q;
    const x = P[3 * v]!, y = P[3 * v + 1]!, z = P[3 * v + 2]!;
    let ox = 0, oy = 0, oz = 0, ws = 0;
    const o = slots * v;
    for (let k = 0; k < slots; k++) {
      const w = W[o + k]!;
      if (!(w > 0)) continue;
      const j = J[o + k]!;
      if (j >= nj) continue;
      const m = 16 * j;
      ox += w * (jointMats[m]! * x + jointMats[m + 4]! * y + jointMats[m + 8]! * z + jointMats[m + 12]!);
      oy += w * (jointMats[m + 1]! * x + jointMats[m + 5]! * y + jointMats[m + 9]! * z + jointMats[m + 13]!);
      oz += w * (jointMats[m + 2]! * x + jointMats[m + 6]! * y + jointMats[m + 10]! * z + jointMats[m + 14]!);
      ws += w;
    }
    if (ws > 0) {
      const inv = 1 / ws;
      out[3 * v] = ox * inv; out[3 * v + 1] = oy * inv; out[3 * v + 2] = oz * inv;
    } else {
      out[3 * v] = x; out[3 * v + 1] = y; out[3 * v + 2] = z;
    }
  }
}

/**
 * Dominant joint of every vertex (largest weight; ties go to the lower slot), -1 without
 * weight.
 *
 * @example
 * const dom = dominantJoints(skin); // dom[v] indexes skin.names
 */
export function dominantJoints(skin: SkinData): Int32Array {
  const mesh = skin.mesh;
  const out = new Int32Array(mesh.count).fill(-1);
  const nj = skin.jointNodes.length;
  for (let v = 0; v < mesh.count; v++) {
    let best = 0;
    for (let k = 0; k < mesh.slots; k++) {
      const w = mesh.weights[mesh.slots * v + k]!;
      const j = mesh.joints[mesh.slots * v + k]!;
      if (w > best && j < nj) { best = w; out[v] = j; }
    }
  }
  return out;
}
