/**
 * `placeOnGround(model)` for three.js viewers: put a loaded model on the floor by its
 * body, ignoring tail-dominated skin, so a tail hanging below the soles never lifts the
 * character. Camera framing is the viewer's business and should still include the whole
 * model (a `Box3` of the object does).
 *
 * Reads the current pose (skinned positions via `SkinnedMesh.getVertexPosition`, world
 * matrices updated first); writes only `model.position`. The floor itself is the engine-free
 * {@link lowestPoint} of rig/grounding.ts over the non-tail points.
 */
import { Vector3, type Bone, type Mesh, type Object3D, type SkinnedMesh } from 'three';
import { findTailChains, isTailName } from '../../core/boneMap';
import { lowestPoint } from '../../rig/grounding';
import { describeValue, withDefaultsStrict, type PartialOptions } from '../../core/defaults';

/** Options of {@link placeOnGround}. */
export interface PlaceOnGroundOptions {
  /** Floor height in world Y. */
  floorY: number;
  /** Count tail skin too (the behaviour the seed fixed; for comparisons only). */
  includeTail: boolean;
  /** Decide which bones are tail bones; default: bones of a tail chain found by name (`Tail_1…`, `b_Tail01_012`, `Tail1`). */
  isTailBone: ((bone: Bone) => boolean) | null;
}

/**
 * Component `k` (0…3) of vertex `i` through `getX`…`getW`, which every supported three.js has
 * (`getComponent` arrived in r155 on BufferAttribute and r161 on InterleavedBufferAttribute;
 * both undo normalisation).
 */
interface VertexAttribute { itemSize: number; getX(i: number): number; getY(i: number): number; getZ(i: number): number; getW(i: number): number }
function componentOf(a: VertexAttribute, i: number, k: number): number {
  return k === 0 ? a.getX(i) : k === 1 ? a.getY(i) : k === 2 ? a.getZ(i) : a.getW(i);
}

/** Defaults of {@link PlaceOnGroundOptions}. */
export const PLACE_ON_GROUND_DEFAULTS: Readonly<PlaceOnGroundOptions> = Object.freeze({ floorY: 0, includeTail: false, isTailBone: null });

/** Result of {@link placeOnGround}. */
export interface GroundPlacementThree {
  /** World Y offset applied to the model. */
  offsetY: number;
  /** Lowest body point before the offset (tail skin excluded unless `includeTail`). */
  bodyFloor: number;
  /** Lowest point of everything, tail included. */
  allFloor: number;
}

const _v = new Vector3();
const _w = new Vector3();

function tailBoneMask(mesh: SkinnedMesh, isTailBone: PlaceOnGroundOptions['isTailBone']): Uint8Array {
  const bones = mesh.skeleton.bones;
  const mask = new Uint8Array(bones.length);
  if (isTailBone) {
    bones.forEach((b, i) => { mask[i] = isTailBone(b) ? 1 : 0; });
    return mask;
  }
  const names = bones.map((b) => b.name);
  const parents = bones.map((b) => bones.indexOf(b.parent as Bone));
  for (const ch of findTailChains({ names, parents })) {
    for (const b of ch.bones) mask[b] = 1;
    if (ch.end >= 0) mask[ch.end] = 1;
  }
  names.forEach((n, i) => { if (isTailName(n)) mask[i] = 1; });
  return mask;
}

/**
 * Move `model` vertically so its body (tail skin ignored) stands on `floorY`.
 * Returns the offset and both floors. Setup-time (allocates per call).
 *
 * @example
 * const gltf = await loader.loadAsync('fox.glb');
 * placeOnGround(gltf.scene);            // the soles touch y = 0, the tail may hang below
 * scene.add(gltf.scene);
 */
export function placeOnGround(model: Object3D, options: PartialOptions<PlaceOnGroundOptions> = {}): GroundPlacementThree {
  if (!model || typeof (model as { traverse?: unknown }).traverse !== 'function') {
    throw new Error(`bitrig/three: placeOnGround needs a three.js Object3D (e.g. gltf.scene), got ${describeValue(model)}`
      + ' (a glTF-Transform Document: use placeOnGround from \'bitrig/rig\')');
  }
  const o = withDefaultsStrict(PLACE_ON_GROUND_DEFAULTS, options, 'bitrig/three: placeOnGround');
  if (typeof o.floorY !== 'number' || !Number.isFinite(o.floorY)) throw new Error(`bitrig/three: placeOnGround: floorY must be a finite number, got ${describeValue(o.floorY)}`);
  if (typeof o.includeTail !== 'boolean') throw new Error(`bitrig/three: placeOnGround: includeTail must be true or false, got ${describeValue(o.includeTail)}`);
  if (o.isTailBone !== null && typeof o.isTailBone !== 'function') throw new Error(`bitrig/three: placeOnGround: isTailBone must be a function (bone) => boolean or null, got ${describeValue(o.isTailBone)}`);
  model.updateMatrixWorld(true);
  const ys: number[] = [];
  const tail: number[] = [];
  model.traverse((obj) => {
    const mesh = obj as Mesh;
    if (!mesh.isMesh || !mesh.geometry) return;
    const pos = mesh.geometry.getAttribute('position');
    if (!pos) return;
    const skinned = (obj as SkinnedMesh).isSkinnedMesh ? (obj as SkinnedMesh) : null;
    let mask: Uint8Array | null = null;
    let si = null as ReturnType<typeof mesh.geometry.getAttribute> | null;
    let sw = null as ReturnType<typeof mesh.geometry.getAttribute> | null;
    if (skinned) {
      skinned.skeleton.update();
      mask = tailBoneMask(skinned, o.isTailBone);
      si = skinned.geometry.getAttribute('skinIndex');
      sw = skinned.geometry.getAttribute('skinWeight');
    }
    for (let i = 0; i < pos.count; i++) {
      mesh.getVertexPosition(i, _v);
      _w.copy(_v).applyMatrix4(mesh.matrixWorld);
      ys.push(_w.y);
      let isTail = 0;
      if (skinned && mask && si && sw) {
        let best = 0, bj = -1;
        for (let k = 0; k < Math.min(si.itemSize, 4); k++) {
          const w = componentOf(sw, i, k);
          if (w > best) { best = w; bj = componentOf(si, i, k); }
        }
        isTail = bj >= 0 && mask[bj] === 1 ? 1 : 0;
      }
      tail.push(isTail);
    }
  });
  const y = Float64Array.from(ys);
  const all = lowestPoint(y, null);
  let body = o.includeTail ? all : lowestPoint(y, Uint8Array.from(tail));
  if (!Number.isFinite(body)) body = all;
  const offsetY = Number.isFinite(body) ? o.floorY - body : 0;
  if (offsetY !== 0) {
    model.getWorldPosition(_w);
    _w.y += offsetY;
    if (model.parent) model.parent.worldToLocal(_w);
    model.position.copy(_w);
    model.updateMatrixWorld(true);
  }
  return { offsetY, bodyFloor: body, allFloor: all };
}
