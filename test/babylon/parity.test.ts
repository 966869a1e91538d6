/**
 * Parity: the same GLB, the same clip and the same inputs through the three.js adapter and
 * the Babylon.js adapter for 300 frames give the same tail — every tail bone's world
 * rotation within {@link TAIL_TOL} rad — after mapping Babylon's handedness: the glTF loader's
 * `__root__` (180° about Y, scale z −1) makes Babylon world = diag(−1, 1, 1) × three world.
 *
 * Clocks are aligned exactly: Babylon's first `scene.render()` evaluates the clip at t = 0 and
 * every later one 1/60 s further (deterministic lock step), so the three mixer is stepped by 0
 * and then 1/60; both animators get dt = 1/60 every frame.
 *
 * three's mixer skips writing a property whose blended value did not change since its last
 * update (PropertyMixer.apply); Babylon's animation groups write every frame. Where a clip
 * holds a tail key (quaternius-fox Walk holds Tail1 over its first keys), three's bone would
 * keep what bitrig wrote the frame before. The three animator puts the animated pose back on
 * the bones it drives before the mixer runs (`restoreAnimatedPose`, called here because the
 * test steps the mixer itself), so both engines hand bitrig the clip's own pose.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { AnimationMixer, PropertyBinding, type Bone as ThreeBone, type Object3D } from 'three';
import type { TransformNode } from '@babylonjs/core/Meshes/transformNode';
import { createAnimator as createThreeAnimator } from '../../adapters/three';
import { createAnimator as createBabylonAnimator, type AnimatorOptions } from '../../adapters/babylon';
import type { GroundQuery, SceneInputs } from '../../core/sceneIK';
import { createBuiltinCharacter } from '../../core/character';
import { characterToGlb } from '../../rig/characterDocument';
import { loadGlbThree } from '../helpers/loadThree';
import { modelsDir } from '../fixtures/assets';
import { createTestScene, FRAME, loadGlbBabylon, rotationAngle, toThreeHanded, worldOf } from './helpers';

/**
 * Tail world rotations (rad). The engines hand bitrig inputs that differ at float32 round-off
 * (1e-7); the WebAssembly tail step computes in float32, so each run carries its own float32
 * rounding of the spring: measured 5.7e-6 (walk) and 1.02e-5 rad (walk + scene IK) — 1.7e-6
 * and 1.8e-6 with the former f64 step. The IK bones keep 1e-5 (f64 throughout).
 */
const TAIL_TOL = 3e-5;


function threeBones(root: Object3D): Map<string, ThreeBone> {
  const out = new Map<string, ThreeBone>();
  root.traverse((o) => { if ((o as ThreeBone).isBone) out.set(o.name, o as ThreeBone); });
  return out;
}

interface ParityResult {
  tailMaxRad: number; otherMaxPos: number; tailSwing: number; tailBones: string[];
  /** Scene IK (when on): largest world-rotation difference of the IK-driven bones (rad), of their positions, bones checked. */
  ikMaxRad: number; ikMaxPos: number; ikBones: string[];
  /** Frames with a locked foot / a reached hand; largest COM difference (mapped back to three's world). */
  lockedFrames: number; reachedFrames: number; comMax: number;
}

/** One frame's scene inputs in three's world and the same in Babylon's (x mirrored). */
interface IKInputs { three: SceneInputs; babylon: SceneInputs; rootX: number }

/**
 * The same physical scene for both engines at time t: stance weights alternating per leg, a
 * slope (15 % along x, 5 % along z in three's world), the character root sliding along x, a
 * left-hand target beside the chest with an orientation. Babylon's versions negate x
 * (points, the slope's normal) and conjugate rotations: (x, y, z, w) → (x, −y, −z, w).
 */
function ikInputs(t: number, legs: number, arms: number, us: number): IKInputs {
  const feet = Array.from({ length: legs }, (_, k) => Math.min(1, Math.max(0, 0.5 + 0.8 * Math.sin(2 * Math.PI * 1.1 * t + k * Math.PI))));
  const gx = 0.15, gz = 0.05;
  const nl = Math.hypot(gx, 1, gz);
  const groundT: GroundQuery = (p, out) => { const x = p[0]!, z = p[2]!; out.height = gx * x + gz * z; out.normal[0] = -gx / nl; out.normal[1] = 1 / nl; out.normal[2] = -gz / nl; out.support = -1; return true; };
  const groundB: GroundQuery = (p, out) => { const x = p[0]!, z = p[2]!; out.height = gx * -x + gz * z; out.normal[0] = gx / nl; out.normal[1] = 1 / nl; out.normal[2] = -gz / nl; out.support = -1; return true; };
  const rootX = 0.2 * us * Math.sin(2 * Math.PI * 0.4 * t);
  const p = [rootX + 0.3 * us, (0.85 + 0.05 * Math.sin(3 * t)) * us, 0.2 * us]; // within the built-in's left arm reach
  const a = 0.4 * Math.sin(2 * t);
  const q = [Math.sin(a / 2) * 0.6, Math.sin(a / 2) * 0.8, 0, Math.cos(a / 2)];
  const handsT = Array.from({ length: arms }, (_, k) => (k === 0 ? { position: p, rotation: q, weight: 1 } : null));
  const handsB = Array.from({ length: arms }, (_, k) => (k === 0 ? { position: [-p[0]!, p[1]!, p[2]!], rotation: [q[0]!, -q[1]!, -q[2]!, q[3]!], weight: 1 } : null));
  return {
    three: { feet, ground: groundT, grounded: true, hands: handsT },
    babylon: { feet, ground: groundB, grounded: true, hands: handsB },
    rootX,
  };
}

async function runParity(bytes: Uint8Array, clip: string, frames: number, options: AnimatorOptions = {}): Promise<ParityResult> {
  // three.js
  const gltf = await loadGlbThree(bytes);
  const mixer = new AnimationMixer(gltf.scene);
  const clipT = gltf.animations.find((c) => c.name === clip);
  if (!clipT) throw new Error(`clip ${clip} missing (three)`);
  mixer.clipAction(clipT).play();
  const three = createThreeAnimator(gltf.scene, { ...options, mixer, updateMixer: false });
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
  // IK-driven bones: what scene IK flags (rotation or translation) beyond the tail links.
  const ik = options.sceneIK ? babylon.sceneIK! : null;
  const bb = babylon.bindings[0]!;
  const ikSet = new Set<string>();
  if (ik) {
    expect(ik.legs.map((l) => l.bones)).toEqual(three.sceneIK!.legs.map((l) => l.bones)); // same limbs, same order
    expect(ik.arms.map((l) => l.bones)).toEqual(three.sceneIK!.arms.map((l) => l.bones));
    // soles calibrated from the skin in both (Babylon's vertex data vs three's geometry)
    expect(ik.legs.map((l) => l.sole)).toEqual(ik.legs.map(() => 'skin'));
    expect(three.sceneIK!.legs.map((l) => l.sole)).toEqual(ik.legs.map(() => 'skin'));
    for (let i = 0; i < bb.boneCount; i++) {
      const name = babylon.world.pose.names[bb.slotOf[i]!]!;
      if ((bb.drivenRotation[i] === 1 || bb.drivenTranslation[i] === 1) && !tailSet.has(name)) ikSet.add(name);
    }
    expect(ikSet.size).toBeGreaterThan(0);
  }
  const us = dB.unitScale;
  const rootT = gltf.scene, rootB = container.meshes[0]!;
  let ikMaxRad = 0, ikMaxPos = 0, lockedFrames = 0, reachedFrames = 0, comMax = 0;

  let tailMaxRad = 0, otherMaxPos = 0, tailSwing = 0;
  const firstTail = pairs.find((p) => p.name === tailNames[0])!;
  const rest0 = worldOf(firstTail.node);
  for (let f = 0; f < frames; f++) {
    const inputs = ik ? ikInputs(f * FRAME, ik.legs.length, ik.arms.length, us) : null;
    if (inputs) {
      // the game moves the character: the same physical motion in both worlds
      rootT.position.x = inputs.rootX;
      rootB.position.x = -inputs.rootX;
      babylon.setSceneInputs(inputs.babylon);
    }
    three.restoreAnimatedPose();
    mixer.update(f === 0 ? 0 : FRAME);
    three.update(FRAME, inputs?.three);
    scene.render(); // animation groups → onAfterAnimations → bitrig → skeleton
    gltf.scene.updateMatrixWorld(true);
    for (const p of pairs) {
      const mb = toThreeHanded(worldOf(p.node));
      const mt = p.bone.matrixWorld.elements;
      const dPos = Math.hypot(mt[12]! - mb[12]!, mt[13]! - mb[13]!, mt[14]! - mb[14]!);
      if (tailSet.has(p.name)) tailMaxRad = Math.max(tailMaxRad, rotationAngle(mt, mb));
      else if (ikSet.has(p.name)) { ikMaxRad = Math.max(ikMaxRad, rotationAngle(mt, mb)); ikMaxPos = Math.max(ikMaxPos, dPos); }
      else if (!p.belowTail) otherMaxPos = Math.max(otherMaxPos, dPos);
    }
    if (ik) {
      const sT = three.diagnostics().scene!, sB = babylon.diagnostics().scene!;
      if (sB.contacts.some((c) => c.locked)) lockedFrames++;
      if (sB.hands.some((h) => h.weight > 0 && h.reached)) reachedFrames++;
      comMax = Math.max(comMax, Math.hypot(sT.comWs[0] + sB.comWs[0], sT.comWs[1] - sB.comWs[1], sT.comWs[2] - sB.comWs[2]));
    }
    tailSwing = Math.max(tailSwing, rotationAngle(rest0, worldOf(firstTail.node)));
  }
  babylon.dispose();
  three.dispose();
  scene.dispose();
  engine.dispose();
  return { tailMaxRad, otherMaxPos, tailSwing, tailBones: tailNames, ikMaxRad, ikMaxPos, ikBones: [...ikSet], lockedFrames, reachedFrames, comMax };
}

describe('three.js ↔ Babylon.js parity (300 frames)', () => {
  test('built-in character, walk: tail world rotations agree within 3e-5 rad', async () => {
    const bytes = await characterToGlb(createBuiltinCharacter());
    const r = await runParity(bytes, 'walk', 300);
    console.log(`built-in walk: tail max ${r.tailMaxRad.toExponential(2)} rad, other bones max ${r.otherMaxPos.toExponential(2)} m, tail root swing ${(r.tailSwing * 180 / Math.PI).toFixed(1)}°`);
    expect(r.tailSwing).toBeGreaterThan(2 * Math.PI / 180); // the tail moves: the comparison means something
    expect(r.otherMaxPos).toBeLessThan(1e-5); // same clip at the same time in both engines (m; float32 keys)
    expect(r.tailMaxRad).toBeLessThan(TAIL_TOL);
  });

  test('built-in character, walk, scene IK (alternating stance on a slope, a left-hand target, the root sliding): IK-driven bones agree within 1e-5 rad and 1e-5 m, tail within 3e-5 rad', async () => {
    const bytes = await characterToGlb(createBuiltinCharacter());
    const r = await runParity(bytes, 'walk', 300, { sceneIK: true });
    console.log(`built-in walk + scene IK: ${r.ikBones.length} IK bones max ${r.ikMaxRad.toExponential(2)} rad / ${r.ikMaxPos.toExponential(2)} m, tail max ${r.tailMaxRad.toExponential(2)} rad, COM max ${r.comMax.toExponential(2)} m, locked frames ${r.lockedFrames}, reached frames ${r.reachedFrames}`);
    expect(r.lockedFrames).toBeGreaterThan(100); // feet really were planted
    expect(r.reachedFrames).toBeGreaterThan(100); // the hand really was solved to its target
    expect(r.ikMaxRad).toBeLessThan(1e-5);
    expect(r.ikMaxPos).toBeLessThan(1e-5);
    expect(r.tailMaxRad).toBeLessThan(TAIL_TOL);
    expect(r.comMax).toBeLessThan(1e-5); // diagnostics come back in Babylon's world (x mirrored)
  });

  describe('real files (the repository models)', () => {
    for (const [file, clip, units] of [['quaternius-fox.glb', 'Walk', 1], ['khronos-fox.glb', 'Walk', 100]] as const) {
      test(`${file} ${clip}: tail world rotations agree within 3e-5 rad`, async () => {
        const bytes = new Uint8Array(readFileSync(path.join(modelsDir, file)));
        const r = await runParity(bytes, clip, 300);
        console.log(`${file} ${clip}: tail (${r.tailBones.length} bones) max ${r.tailMaxRad.toExponential(2)} rad, other bones max ${r.otherMaxPos.toExponential(2)} units, tail root swing ${(r.tailSwing * 180 / Math.PI).toFixed(1)}°`);
        expect(r.tailSwing).toBeGreaterThan(2 * Math.PI / 180);
        expect(r.otherMaxPos).toBeLessThan(1e-5 * units); // 1e-5 m in the file's units
        expect(r.tailMaxRad).toBeLessThan(TAIL_TOL);
      });
    }
    test('khronos-fox.glb Walk, scene IK on four legs: IK-driven bones agree within 1e-5 rad and 1e-5 m (× 100 units)', async () => {
      const bytes = new Uint8Array(readFileSync(path.join(modelsDir, 'khronos-fox.glb')));
      const r = await runParity(bytes, 'Walk', 300, { sceneIK: true });
      console.log(`khronos-fox Walk + scene IK: ${r.ikBones.length} IK bones max ${r.ikMaxRad.toExponential(2)} rad / ${r.ikMaxPos.toExponential(2)} units, tail max ${r.tailMaxRad.toExponential(2)} rad, locked frames ${r.lockedFrames}`);
      expect(r.lockedFrames).toBeGreaterThan(100);
      expect(r.ikMaxRad).toBeLessThan(1e-5);
      expect(r.ikMaxPos).toBeLessThan(1e-5 * 100);
      expect(r.tailMaxRad).toBeLessThan(TAIL_TOL);
    });
  });
});
