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
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
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
