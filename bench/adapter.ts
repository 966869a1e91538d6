/**
 * `adapter.three` / `adapter.babylon`: what the engine sync costs, in ns per bone per frame —
 * `animator.read()` (copy every bone's local TRS and the root frame into the pose store,
 * then core's per-character frame prep: rest-source check and world matrices) plus
 * `animator.write()` (copy the driven bones back). The bitrig systems are not included (see
 * `tail.link`). Same character (the built-in one, 30 bones, 6 driven tail links) in both
 * engines, 100 copies sharing one world, read and write only (no engine animation), so the
 * two numbers compare the adapters and nothing else. `extra.prepareNsPerBone` is core's
 * share (the same code for both engines); `extra.copyNsPerBone` = the rest, the copies.
 */
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { Scene } from '@babylonjs/core/scene.js';
import { LoadAssetContainerAsync } from '@babylonjs/core/Loading/sceneLoader.js';
import type { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import '@babylonjs/loaders/glTF/index.js';
import { createAnimator as createThreeAnimator, characterToThree } from '../adapters/three';
import { createAnimator as createBabylonAnimator } from '../adapters/babylon';
import { createBuiltinCharacter } from '../core/character';
import { prepareCharacterFrame } from '../adapters/animatorCore';
import { createBitrigWorld } from '../runtime/world';
import type { CharacterBinding } from '../core/binding';
import { characterToGlb } from '../rig/characterDocument';
import { timeMedian } from './common';

const CHARACTERS = 100;
const FRAMES = 200;

interface Syncable { read(): void; write(): void; bindings: readonly CharacterBinding[] }

function measure(animators: readonly Syncable[], perturb: (f: number) => void): { total: number; prepare: number; bones: number; driven: number } {
  const bindings = animators.flatMap((a) => a.bindings);
  const bones = bindings.reduce((n, b) => n + b.boneCount, 0);
  const driven = bindings.reduce((n, b) => n + b.drivenRotation.reduce((m, x) => m + x, 0), 0);
  let frame = 0;
  const run = (): void => {
    for (let f = 0; f < FRAMES; f++) {
      perturb(frame++);
      for (let i = 0; i < animators.length; i++) animators[i]!.read();
      for (let i = 0; i < animators.length; i++) animators[i]!.write();
    }
  };
  const prep = (): void => {
    for (let f = 0; f < FRAMES; f++) for (let i = 0; i < bindings.length; i++) prepareCharacterFrame(bindings[i]!, true);
  };
  const base = (): void => { for (let f = 0; f < FRAMES; f++) perturb(frame++); };
  run(); prep(); // warm-up (JIT)
  const total = timeMedian(run, 7) - timeMedian(base, 7);
  const prepare = timeMedian(prep, 7);
  const per = (ms: number): number => (ms * 1e6) / (FRAMES * bones);
  return { total: per(total), prepare: per(prepare), bones, driven };
}

/** Run the adapter sync benchmarks (three.js and Babylon.js, same character). */
export async function benchAdapters(): Promise<Array<{ id: string; nsPerItem: number; extra?: Record<string, number | string> }>> {
  const data = createBuiltinCharacter();

  // ---- three.js: characterToThree copies, one shared world.
  const threeWorld = createBitrigWorld({ bones: CHARACTERS * 32, entities: CHARACTERS + 8 });
  const threeChars = Array.from({ length: CHARACTERS }, () => characterToThree(data));
  const threeAnimators = threeChars.map((c) => createThreeAnimator(c.root, { world: threeWorld }));
  const threeHips = threeChars.map((c) => c.bones.find((b) => b.name === 'Hips')!);
  const t = measure(threeAnimators, (f) => { for (let i = 0; i < threeHips.length; i++) threeHips[i]!.position.x = 0.01 * ((f + i) % 7); });

  // ---- Babylon.js: the GLB through @babylonjs/loaders, instantiated CHARACTERS times.
  const engine = new NullEngine();
  const scene = new Scene(engine);
  const container = await LoadAssetContainerAsync(await characterToGlb(data), scene, {
    pluginExtension: '.glb', pluginOptions: { gltf: { animationStartMode: 0 } },
  });
  const babylonWorld = createBitrigWorld({ bones: CHARACTERS * 32, entities: CHARACTERS + 8 });
  const babylonAnimators = [];
  const babylonHips: TransformNode[] = [];
  for (let i = 0; i < CHARACTERS; i++) {
    const inst = container.instantiateModelsToScene((n) => `${n}`, false, { doNotInstantiate: true });
    const root = inst.rootNodes[0]!;
    babylonAnimators.push(createBabylonAnimator(root, { world: babylonWorld }));
    babylonHips.push(inst.skeletons[0]!.bones.find((b) => b.name === 'Hips')!.getTransformNode()!);
  }
  const b = measure(babylonAnimators, (f) => { for (let i = 0; i < babylonHips.length; i++) babylonHips[i]!.position.x = 0.01 * ((f + i) % 7); });
  scene.dispose();
  engine.dispose();

  const row = (id: string, r: ReturnType<typeof measure>) => ({
    id,
    nsPerItem: r.total,
    extra: {
      bones: r.bones, characters: CHARACTERS, drivenBones: r.driven,
      prepareNsPerBone: r.prepare, copyNsPerBone: r.total - r.prepare,
    },
  });
  return [row('adapter.three', t), row('adapter.babylon', b)];
}
