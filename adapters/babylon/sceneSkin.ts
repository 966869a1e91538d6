/**
 * Read a Babylon skin as the engine-free {@link SkinInput} scene IK calibrates soles from:
 * mesh-space positions (the space a glTF skin's inverse bind matrices apply to; the loader
 * places skinned meshes so their own transform is ignored), four joint indices per vertex
 * remapped from Babylon's matrix indices to the bound bone order, four weights, and the bound
 * bones' absolute inverse bind matrices. Copies only; setup-time.
 */
import type { AbstractMesh, Bone, Skeleton } from '@babylonjs/core';
import type { SkinInput } from '../../core/sceneIK';

/**
 * Gather every mesh of the skeleton's scene skinned by `skeleton` into one skin, joints
 * indexed like `bones` (the bound bones). Returns null when no mesh with vertex data uses it.
 *
 * @example
 * const skin = sceneSkinFromBabylon(skeleton, boundBones);
 * addSceneIK(world, binding, { skin });
 */
export function sceneSkinFromBabylon(skeleton: Skeleton, bones: readonly Bone[]): SkinInput | null {
  const meshes = skeleton.getScene().meshes.filter((m: AbstractMesh) => m.skeleton === skeleton);
  // Babylon's matrix index of a bone is getIndex() (the glTF joint index); bound order differs
  // when the loader added non-joint bones.
  const boundOf = new Map<number, number>();
  bones.forEach((b, i) => boundOf.set(b.getIndex(), i));
  const pos: number[] = [], joints: number[] = [], weights: number[] = [];
  for (const m of meshes) {
    const p = m.getVerticesData('position');
    const mi = m.getVerticesData('matricesIndices');
    const mw = m.getVerticesData('matricesWeights');
    if (!p || !mi || !mw) continue;
    const n = p.length / 3;
    const packed = mi.length === n; // legacy .babylon: four byte indices packed in one float
    for (let v = 0; v < n; v++) {
      pos.push(p[v * 3]!, p[v * 3 + 1]!, p[v * 3 + 2]!);
      for (let k = 0; k < 4; k++) {
        const j = packed ? (mi[v]! >> (8 * k)) & 0xff : mi[v * 4 + k]!;
        joints.push(boundOf.get(j) ?? 0);
        weights.push(mw[v * 4 + k] ?? 0);
      }
    }
  }
  if (pos.length === 0) return null;
  const inverseBind = new Float64Array(bones.length * 16);
  bones.forEach((b, i) => {
    const m = b.getIndex() === -1 ? null : b.getAbsoluteInverseBindMatrix().m;
    for (let k = 0; k < 16; k++) inverseBind[i * 16 + k] = m ? m[k]! : k % 5 === 0 ? 1 : 0;
  });
  return { positions: Float32Array.from(pos), joints: Uint32Array.from(joints), weights: Float32Array.from(weights), inverseBind };
}
