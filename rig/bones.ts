/**
 * Add a grown chain to a skin: bones `Tail_1…Tail_K` and a weightless `Tail_End`,
 * a chain parented under the pelvis, each sharing the pelvis's bind rotation (and scale) so
 * each is a pure translation in its parent's frame; their inverse bind matrices follow
 * directly. Existing clips are not touched. Browser-safe; setup-time code.
 */
import type { Document, Node } from '@gltf-transform/core';
import { mat3, mat4 } from 'gl-matrix';
import type { SkinSkeleton } from './skeleton';

/**
 * Names of a chain's bones: `${prefix}_1…${prefix}_K` and `${prefix}_End`.
 *
 * @example
 * chainBoneNames('Tail', 3) // ['Tail_1', 'Tail_2', 'Tail_3', 'Tail_End']
 */
export function chainBoneNames(prefix: string, K: number): string[] {
  const out: string[] = [];
  for (let i = 1; i <= K; i++) out.push(`${prefix}_${i}`);
  out.push(`${prefix}_End`);
  return out;
}

/**
 * Append chain bones to the skin of `skel`: nodes, joints and inverse bind matrices.
 * `J` holds K+1 bind-space joint positions (J0 = head of the first bone, JK = Tail_End).
 * Returns the skin joint index of the first new bone; the skeleton record is extended
 * (names, parents, positions, bind worlds, nodes).
 *
 * @example
 * const first = addChainBones(doc, skel, J, chainBoneNames('Tail', 4));
 */
export function addChainBones(doc: Document, skel: SkinSkeleton, J: Float64Array, names: readonly string[]): number {
  const K1 = J.length / 3;
  if (names.length !== K1) throw new Error('bitrig/rig: chain names and joints differ in count');
  const pelvis = skel.pelvis;
  if (pelvis < 0) throw new Error('bitrig/rig: cannot grow a chain on a skin without a pelvis');
  const skin = skel.skin;
  const oldIbm = skin.getInverseBindMatrices(); // (none: identity, glTF 2.0)
  const n0 = skel.names.length;
  const Wh = skel.bindWorld.subarray(16 * pelvis, 16 * pelvis + 16);
  const lin = mat3.fromMat4(mat3.create(), Wh as unknown as mat4);
  const linInv = mat3.invert(mat3.create(), lin) ?? mat3.create();
  const newIbm = new Float32Array(16 * (n0 + K1));
  const el: number[] = new Array(16).fill(0);
  for (let i = 0; i < n0; i++) {
    if (oldIbm) oldIbm.getElement(i, el);
    else for (let k = 0; k < 16; k++) el[k] = k % 5 === 0 ? 1 : 0;
    for (let k = 0; k < 16; k++) newIbm[16 * i + k] = el[k]!;
  }
  const W = mat4.create();
  const inv = mat4.create();
  let parentNode: Node = skel.nodes[pelvis]!;
  let parentIndex = pelvis;
  let px = skel.positions[3 * pelvis]!, py = skel.positions[3 * pelvis + 1]!, pz = skel.positions[3 * pelvis + 2]!;
  const positions = Array.from(skel.positions);
  const bindWorld = Array.from(skel.bindWorld);
  const parents = Array.from(skel.parents);
  for (let i = 0; i < K1; i++) {
    const x = J[3 * i]!, y = J[3 * i + 1]!, z = J[3 * i + 2]!;
    const dx = x - px, dy = y - py, dz = z - pz;
    // Local translation in the parent's frame: lin⁻¹ · (J_i − J_{i−1}).
    const tx = linInv[0]! * dx + linInv[3]! * dy + linInv[6]! * dz;
    const ty = linInv[1]! * dx + linInv[4]! * dy + linInv[7]! * dz;
    const tz = linInv[2]! * dx + linInv[5]! * dy + linInv[8]! * dz;
    const node = doc.createNode(names[i]!).setTranslation([tx, ty, tz]);
    parentNode.addChild(node);
    skin.addJoint(node);
    for (let k = 0; k < 16; k++) W[k] = Wh[k]!;
    W[12] = x;
    W[13] = y;
    W[14] = z;
    if (!mat4.invert(inv, W)) mat4.identity(inv);
    for (let k = 0; k < 16; k++) newIbm[16 * (n0 + i) + k] = inv[k]!;
    skel.nodes.push(node);
    skel.names.push(names[i]!);
    parents.push(parentIndex);
    positions.push(x, y, z);
    for (let k = 0; k < 16; k++) bindWorld.push(W[k]!);
    parentNode = node;
    parentIndex = n0 + i;
    px = x;
    py = y;
    pz = z;
  }
  const acc = doc
    .createAccessor(oldIbm?.getName() ?? '')
    .setType('MAT4')
    .setArray(newIbm)
    .setBuffer(oldIbm?.getBuffer() ?? doc.getRoot().listBuffers()[0] ?? doc.createBuffer());
  skin.setInverseBindMatrices(acc);
  if (oldIbm && oldIbm.listParents().every((p) => p.propertyType === 'Root')) oldIbm.dispose();
  skel.parents = Int32Array.from(parents);
  skel.positions = Float64Array.from(positions);
  skel.bindWorld = Float64Array.from(bindWorld);
  const w = new Uint8Array(skel.names.length);
  w.set(skel.weighted);
  skel.weighted = w;
  return n0;
}
