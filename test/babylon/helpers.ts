/**
 * Babylon.js in Node for tests: a `NullEngine` whose clock is fixed (deterministic lock step,
 * one 1/60 s step per `scene.render()`, so Babylon's animation groups advance exactly like a
 * three.js mixer stepped by 1/60), GLB loading through `@babylonjs/loaders` (textures
 * stripped first: Node has no image decoder), and world-matrix helpers.
 */
import { NodeIO } from '@gltf-transform/core';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine';
import { Scene } from '@babylonjs/core/scene';
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera';
import { Matrix, Quaternion, Vector3 } from '@babylonjs/core/Maths/math.vector';
import { Bone } from '@babylonjs/core/Bones/bone';
import { Skeleton } from '@babylonjs/core/Bones/skeleton';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode';
import { Mesh } from '@babylonjs/core/Meshes/mesh';
import { LoadAssetContainerAsync } from '@babylonjs/core/Loading/sceneLoader';
import type { AssetContainer } from '@babylonjs/core/assetContainer';
import type { Node } from '@babylonjs/core/node';
import '@babylonjs/loaders/glTF';

/** Frame time of the test engine (s). */
export const FRAME = 1 / 60;

/** A NullEngine + scene + camera; every `scene.render()` advances animations by exactly {@link FRAME}. */
export function createTestScene(): { engine: NullEngine; scene: Scene } {
  const engine = new NullEngine({
    renderWidth: 64, renderHeight: 64, textureSize: 64, deterministicLockstep: true, lockstepMaxSteps: 1, timeStep: FRAME,
  });
  engine.getDeltaTime = () => FRAME * 1000;
  const scene = new Scene(engine);
  new FreeCamera('camera', new Vector3(0, 1, -5), scene);
  return { engine, scene };
}

/** Remove textures (Node cannot decode images); geometry, skins, nodes and clips untouched. */
export async function stripTextures(bytes: Uint8Array): Promise<Uint8Array> {
  const io = new NodeIO();
  const doc = await io.readBinary(bytes);
  for (const t of doc.getRoot().listTextures()) t.dispose();
  return io.writeBinary(doc);
}

/** Load GLB bytes into `scene` with no animation auto-started; everything added to the scene. */
export async function loadGlbBabylon(bytes: Uint8Array, scene: Scene): Promise<AssetContainer> {
  const clean = await stripTextures(bytes);
  const c = await LoadAssetContainerAsync(clean, scene, {
    pluginExtension: '.glb',
    pluginOptions: { gltf: { animationStartMode: 0 /* NONE */ } },
  });
  c.addAllToScene();
  return c;
}

/** World matrix (16, Babylon layout = column-major) of a node, ancestors recomputed first. */
export function worldOf(node: Node): Float64Array {
  const chain: Node[] = [];
  for (let n: Node | null = node; n; n = n.parent) chain.unshift(n);
  for (const n of chain) n.computeWorldMatrix(true);
  return Float64Array.from(node.getWorldMatrix().m);
}

/** How {@link buildCodeCharacter} poses bones. */
export type CodeRigKind = 'linked' | 'linked-euler' | 'bones';

/** What {@link buildCodeCharacter} returns. */
export interface CodeCharacter {
  skeleton: Skeleton;
  /** The node the game moves: a TransformNode above Hips (linked kinds) or the skinned mesh (bones). */
  root: TransformNode;
  /** Linked TransformNodes by bone name (linked kinds only). */
  nodes: Map<string, TransformNode>;
  /** World matrix of a bone now (16, column-major). */
  boneWorld(name: string): Float64Array;
}

const CODE_BONES: { name: string; parent: string | null; t: [number, number, number]; rxDeg: number }[] = [
  { name: 'Hips', parent: null, t: [0, 1, 0], rxDeg: 0 },
  { name: 'Spine', parent: 'Hips', t: [0, 0.2, 0.05], rxDeg: 5 },
  { name: 'Tail_1', parent: 'Hips', t: [0, -0.05, -0.12], rxDeg: -110 },
  { name: 'Tail_2', parent: 'Tail_1', t: [0, 0.2, 0], rxDeg: 12 },
  { name: 'Tail_3', parent: 'Tail_2', t: [0, 0.18, 0], rxDeg: 12 },
  { name: 'Tail_End', parent: 'Tail_3', t: [0, 0.15, 0], rxDeg: 0 },
];

/**
 * A small skeleton built in code (metres, no glTF): Hips (1 m up) › Spine, and a 3-link tail
 * pointing backwards and slightly down. `linked`: bones linked to TransformNodes posed by
 * quaternions; `linked-euler`: the same posed by Euler angles (`rotationQuaternion` null);
 * `bones`: no TransformNodes, the bones themselves carry the pose, bound to an empty mesh.
 * Bind pose = the built pose. Setup-time.
 */
export function buildCodeCharacter(scene: Scene, kind: CodeRigKind, name = 'code'): CodeCharacter {
  const skeleton = new Skeleton(`${name}-skeleton`, `${name}-skeleton`, scene);
  const bones = new Map<string, Bone>();
  const nodes = new Map<string, TransformNode>();
  const root = kind === 'bones' ? new Mesh(`${name}-body`, scene) : new TransformNode(`${name}-root`, scene);
  if (kind === 'bones') (root as Mesh).skeleton = skeleton;
  for (const d of CODE_BONES) {
    const q = Quaternion.RotationAxis(new Vector3(1, 0, 0), (d.rxDeg * Math.PI) / 180);
    const local = Matrix.Compose(new Vector3(1, 1, 1), q, new Vector3(...d.t));
    const bone = new Bone(d.name, skeleton, d.parent ? bones.get(d.parent)! : null, local);
    bones.set(d.name, bone);
    if (kind !== 'bones') {
      const n = new TransformNode(d.name, scene);
      n.parent = d.parent ? nodes.get(d.parent)! : root;
      n.position = new Vector3(...d.t);
      if (kind === 'linked') n.rotationQuaternion = q.clone();
      else { n.rotationQuaternion = null; n.rotation = q.toEulerAngles(); }
      bone.linkTransformNode(n);
      nodes.set(d.name, n);
    }
  }
  const boneWorld = (boneName: string): Float64Array => {
    if (kind !== 'bones') return worldOf(nodes.get(boneName)!);
    skeleton.computeAbsoluteMatrices(true);
    const meshWorld = Matrix.FromArray(Array.from(worldOf(root)));
    return Float64Array.from(bones.get(boneName)!.getAbsoluteMatrix().multiply(meshWorld).m);
  };
  return { skeleton, root, nodes, boneWorld };
}

/** Rotation angle (rad) between the rotation parts of two column-major 4×4 matrices (columns normalised). */
export function rotationAngle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const col = (m: ArrayLike<number>, c: number): number[] => {
    const v = [m[c * 4]!, m[c * 4 + 1]!, m[c * 4 + 2]!];
    const l = Math.hypot(v[0]!, v[1]!, v[2]!);
    return v.map((x) => x / l);
  };
  const A = [col(a, 0), col(a, 1), col(a, 2)];
  const B = [col(b, 0), col(b, 1), col(b, 2)];
  // R = Aᵀ B: R[i][j] = A_i · B_j; angle from the trace (cos) and the skew part (sin).
  const R = [0, 1, 2].map((i) => [0, 1, 2].map((j) => A[i]![0]! * B[j]![0]! + A[i]![1]! * B[j]![1]! + A[i]![2]! * B[j]![2]!));
  const tr = R[0]![0]! + R[1]![1]! + R[2]![2]!;
  const sx = R[2]![1]! - R[1]![2]!, sy = R[0]![2]! - R[2]![0]!, sz = R[1]![0]! - R[0]![1]!;
  return Math.atan2(Math.hypot(sx, sy, sz) / 2, (tr - 1) / 2);
}

/** Babylon world under the glTF loader's `__root__` → three.js world: negate x (row 0). */
export function toThreeHanded(m: ArrayLike<number>): Float64Array {
  const o = Float64Array.from(m as ArrayLike<number>);
  o[0] = -o[0]!; o[4] = -o[4]!; o[8] = -o[8]!; o[12] = -o[12]!;
  return o;
}
