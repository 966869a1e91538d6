/**
 * Read a three.js skin as the engine-free {@link SkinInput} scene IK calibrates soles from:
 * bind-space positions (three skins `bindMatrix · position`), four joint indices per vertex
 * remapped to the skeleton's bone order, four weights, and the skeleton's inverse bind
 * matrices. Copies only; setup-time.
 */
import type { Object3D, Skeleton, SkinnedMesh } from 'three';
import type { SkinInput } from '../../core/sceneIK';

/**
 * Gather every SkinnedMesh under `object` whose bones all belong to `skeleton` (a glTF skin
 * shared by several meshes becomes one Skeleton per mesh in three.js) into one skin.
 * Returns null when no mesh uses the skeleton.
 *
 * @example
 * const skin = sceneSkinFromThree(gltf.scene, skeleton);
 * addSceneIK(world, binding, { skin });
 */
export function sceneSkinFromThree(object: Object3D, skeleton: Skeleton): SkinInput | null {
  const index = new Map<Object3D, number>();
  skeleton.bones.forEach((b, i) => index.set(b, i));
  const meshes: SkinnedMesh[] = [];
  object.traverse((o) => {
    const m = o as SkinnedMesh;
    if (m.isSkinnedMesh && m.skeleton && m.skeleton.bones.every((b) => index.has(b))) meshes.push(m);
  });
  if (meshes.length === 0) return null;
  const pos: number[] = [], joints: number[] = [], weights: number[] = [];
  for (const m of meshes) {
    const g = m.geometry;
    const p = g.getAttribute('position'), si = g.getAttribute('skinIndex'), sw = g.getAttribute('skinWeight');
    if (!p || !si || !sw) continue;
    const map = m.skeleton.bones.map((b) => index.get(b)!);
    const e = m.bindMatrix.elements;
    for (let v = 0; v < p.count; v++) {
      const x = p.getX(v), y = p.getY(v), z = p.getZ(v);
      pos.push(e[0]! * x + e[4]! * y + e[8]! * z + e[12]!, e[1]! * x + e[5]! * y + e[9]! * z + e[13]!, e[2]! * x + e[6]! * y + e[10]! * z + e[14]!);
      joints.push(map[si.getX(v)] ?? 0, map[si.getY(v)] ?? 0, map[si.getZ(v)] ?? 0, map[si.getW(v)] ?? 0);
      weights.push(sw.getX(v), sw.getY(v), sw.getZ(v), sw.getW(v));
    }
  }
  const inverseBind = new Float64Array(skeleton.bones.length * 16);
  skeleton.bones.forEach((_, i) => {
    const ib = skeleton.boneInverses[i];
    for (let k = 0; k < 16; k++) inverseBind[i * 16 + k] = ib ? ib.elements[k]! : k % 5 === 0 ? 1 : 0;
  });
  return { positions: Float32Array.from(pos), joints: Uint32Array.from(joints), weights: Float32Array.from(weights), inverseBind };
}
