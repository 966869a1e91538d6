/**
 * Parity: the same GLB, the same clip and the same inputs through the three.js adapter and
 * the Babylon.js adapter for 300 frames give the same tail — every tail bone's world
 * rotation within 1e-5 rad — after mapping Babylon's handedness: the glTF loader's
 * `__root__` (180° about Y, scale z −1) makes Babylon world = diag(−1, 1, 1) × three world.
 *
 * Clocks are aligned exactly: Babylon's first `scene.render()` evaluates the clip at t = 0 and
 * every later one 1/60 s further (deterministic lock step), so the three mixer is stepped by 0
 * and then 1/60; both animators get dt = 1/60 every frame.
 *
 * three's mixer skips writing a property whose blended value did not change since its last
 * update (PropertyMixer.apply); Babylon's animation groups write every frame. Where a clip
 * holds a tail key (quaternius-fox Walk holds Tail1 over its first keys), three's bone keeps
 * what bitrig wrote the frame before and the three adapter reads that back as "the
 * animation" — a three-adapter defect, not a difference between the engines. The three side
 * here therefore invalidates the mixer's last-applied values before each update so three
 * writes every frame like Babylon (see `alwaysApply`).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { AnimationMixer, PropertyBinding, type Bone as ThreeBone, type Object3D } from 'three';
import type { TransformNode } from '@babylonjs/core/Meshes/transformNode';
import { createAnimator as createThreeAnimator } from '../../adapters/three';
import { createAnimator as createBabylonAnimator, type AnimatorOptions } from '../../adapters/babylon';
import { createBuiltinCharacter } from '../../core/character';
import { characterToGlb } from '../../rig/characterDocument';
import { loadGlbThree, sharedAssets } from '../helpers/loadThree';
import { createTestScene, FRAME, loadGlbBabylon, rotationAngle, toThreeHanded, worldOf } from './helpers';

const hasAssets = existsSync(sharedAssets);
if (!hasAssets) console.warn(`skipping: ../shared/assets absent (${sharedAssets}); Babylon parity on real files not run`);

function threeBones(root: Object3D): Map<string, ThreeBone> {
  const out = new Map<string, ThreeBone>();
  root.traverse((o) => { if ((o as ThreeBone).isBone) out.set(o.name, o as ThreeBone); });
  return out;
}

/** Make three's mixer write every bound property on its next update (see the header). */
function alwaysApply(mixer: AnimationMixer): void {
  const bindings = (mixer as unknown as { _bindings: { buffer: Float64Array; valueSize: number }[] })._bindings;
  // PropertyMixer buffer: [incoming | accu 0 | accu 1 | …]; apply() writes when accu 0 ≠ accu 1.
  for (const b of bindings) b.buffer.fill(NaN, b.valueSize, 3 * b.valueSize);
}

interface ParityResult { tailMaxRad: number; otherMaxPos: number; tailSwing: number; tailBones: string[] }

async function runParity(bytes: Uint8Array, clip: string, frames: number, options: AnimatorOptions = {}): Promise<ParityResult> {
  // three.js
  const gltf = await loadGlbThree(bytes);
  const mixer = new AnimationMixer(gltf.scene);
  const clipT = gltf.animations.find((c) => c.name === clip);
  if (!clipT) throw new Error(`clip ${clip} missing (three)`);
  mixer.clipAction(clipT).play();
  const three = createThreeAnimator(gltf.scene, options);
  const tBones = threeBones(gltf.scene);

  // Babylon.js: the clip played by its own animation group, bitrig after the animations.
  const { scene, engine } = createTestScene();
  const container = await loadGlbBabylon(bytes, scene);
  const babylon = createBabylonAnimator(container.meshes[0]!, { ...options, autoUpdate: true });
  const group = container.animationGroups.find((g) => g.name === clip);
  if (!group) throw new Error(`clip ${clip} missing (babylon)`);
  group.start(true);

  const dT = three.diagnostics(), dB = babylon.diagnostics();
  expect(dB.tails.map((t) => t.bones.map(PropertyBinding.sanitizeNodeName))).toEqual(dT.tails.map((t) => t.bones));
  expect(dB.unitScale).toBe(dT.unitScale);
  expect(dB.tails.length).toBeGreaterThan(0);
  expect(babylon.mirrorX).toEqual([true]);
  const tailNames = dB.tails.flatMap((t) => t.bones);
  const tailSet = new Set(tailNames);
  // Every bound Babylon bone and its three twin (three sanitises names).
  const pairs = babylon.skeletons[0]!.bones
    .filter((b) => b.getTransformNode() && tBones.has(PropertyBinding.sanitizeNodeName(b.name)))
    .map((b) => {
      let belowTail = false;
      for (let p = b.getParent(); p; p = p.getParent()) if (tailSet.has(p.name)) belowTail = true;
      return { name: b.name, belowTail, node: b.getTransformNode() as TransformNode, bone: tBones.get(PropertyBinding.sanitizeNodeName(b.name))! };
    });
  expect(pairs.length).toBe(babylon.bindings[0]!.boneCount);

  let tailMaxRad = 0, otherMaxPos = 0, tailSwing = 0;
  const firstTail = pairs.find((p) => p.name === tailNames[0])!;
  const rest0 = worldOf(firstTail.node);
  for (let f = 0; f < frames; f++) {
    alwaysApply(mixer);
    mixer.update(f === 0 ? 0 : FRAME);
    three.update(FRAME);
    scene.render(); // animation groups → onAfterAnimations → bitrig → skeleton
    gltf.scene.updateMatrixWorld(true);
    for (const p of pairs) {
      const mb = toThreeHanded(worldOf(p.node));
      const mt = p.bone.matrixWorld.elements;
      if (tailSet.has(p.name)) tailMaxRad = Math.max(tailMaxRad, rotationAngle(mt, mb));
      else if (!p.belowTail) otherMaxPos = Math.max(otherMaxPos, Math.hypot(mt[12]! - mb[12]!, mt[13]! - mb[13]!, mt[14]! - mb[14]!));
    }
    tailSwing = Math.max(tailSwing, rotationAngle(rest0, worldOf(firstTail.node)));
  }
  babylon.dispose();
  three.dispose();
  scene.dispose();
  engine.dispose();
  return { tailMaxRad, otherMaxPos, tailSwing, tailBones: tailNames };
}

describe('three.js ↔ Babylon.js parity (300 frames)', () => {
  test('built-in character, walk: tail world rotations agree within 1e-5 rad', async () => {
    const bytes = await characterToGlb(createBuiltinCharacter());
    const r = await runParity(bytes, 'walk', 300);
    console.log(`built-in walk: tail max ${r.tailMaxRad.toExponential(2)} rad, other bones max ${r.otherMaxPos.toExponential(2)} m, tail root swing ${(r.tailSwing * 180 / Math.PI).toFixed(1)}°`);
    expect(r.tailSwing).toBeGreaterThan(2 * Math.PI / 180); // the tail moves: the comparison means something
    expect(r.otherMaxPos).toBeLessThan(1e-5); // same clip at the same time in both engines (m; float32 keys)
    expect(r.tailMaxRad).toBeLessThan(1e-5);
  });

  describe.skipIf(!hasAssets)('real files', () => {
    for (const [file, clip, units] of [['quaternius-fox.glb', 'Walk', 1], ['khronos-fox.glb', 'Walk', 100]] as const) {
      test(`${file} ${clip}: tail world rotations agree within 1e-5 rad`, async () => {
        const bytes = new Uint8Array(readFileSync(path.join(sharedAssets, file)));
        const r = await runParity(bytes, clip, 300);
        console.log(`${file} ${clip}: tail (${r.tailBones.length} bones) max ${r.tailMaxRad.toExponential(2)} rad, other bones max ${r.otherMaxPos.toExponential(2)} units, tail root swing ${(r.tailSwing * 180 / Math.PI).toFixed(1)}°`);
        expect(r.tailSwing).toBeGreaterThan(2 * Math.PI / 180);
        expect(r.otherMaxPos).toBeLessThan(1e-5 * units); // 1e-5 m in the file's units
        expect(r.tailMaxRad).toBeLessThan(1e-5);
      });
    }
  });
});
