/**
 * The Babylon.js adapter on the built-in character (glTF through @babylonjs/loaders, played
 * by Babylon's own animation groups) and on small rigs built in code (bones linked to
 * quaternion-posed or Euler-posed TransformNodes, and unlinked bones).
 */
import { describe, expect, test } from 'vitest';
import { MeshBuilder } from '@babylonjs/core/Meshes/meshBuilder';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode';
import type { Scene } from '@babylonjs/core/scene';
import { createAnimator, updateAnimators } from '../../adapters/babylon';
import { createBuiltinCharacter } from '../../core/character';
import { createBitrigWorld } from '../../runtime/world';
import { characterToGlb } from '../../rig/characterDocument';
import { buildCodeCharacter, createTestScene, loadGlbBabylon, rotationAngle, type CodeRigKind } from './helpers';


let builtinGlb: Uint8Array | null = null;
async function builtin(): Promise<Uint8Array> {
  builtinGlb ??= await characterToGlb(createBuiltinCharacter());
  return builtinGlb;
}

/** Move a character root along a fixed path (position and yaw), frame f at 60 fps. */
function moveRoot(root: TransformNode, f: number): void {
  const t = f / 60;
  root.position.set(0.3 * Math.sin(2 * Math.PI * 1.3 * t), 0.05 * Math.sin(2 * Math.PI * 2.1 * t), 0.2 * Math.sin(2 * Math.PI * 0.7 * t));
  root.rotation.y = 0.4 * Math.sin(2 * Math.PI * 0.9 * t);
}

describe('createAnimator (Babylon) on the built-in character', () => {
  test('finds the Tail_1…Tail_6 chain, unit scale 1, the loader root is mirrored (mapped), bind rest source', async () => {
    const { scene } = createTestScene();
    const c = await loadGlbBabylon(await builtin(), scene);
    const animator = createAnimator(c.meshes[0]!);
    const d = animator.diagnostics();
    expect(d.tails.map((t) => t.bones)).toEqual([['Tail_1', 'Tail_2', 'Tail_3', 'Tail_4', 'Tail_5', 'Tail_6']]);
    expect(d.unitScale).toBe(1);
    expect(animator.mirrorX).toEqual([true]);
    expect(animator.skeletons).toEqual([c.skeletons[0]]);
    c.animationGroups.find((g) => g.name === 'walk')!.start(true);
    for (let f = 0; f < 10; f++) { scene.render(); animator.update(1 / 60); }
    expect(animator.diagnostics().tails[0]!.restSource).toBe('bind'); // walk does not key the tail
    // The same skeleton through the mesh or the skeleton itself binds the same bones (one live
    // animator per skeleton: each is disposed before the next binds).
    const boneCount = animator.bindings[0]!.boneCount;
    animator.dispose();
    const viaMesh = createAnimator(c.meshes.find((m) => m.skeleton)!);
    expect(viaMesh.bindings[0]!.boneCount).toBe(boneCount);
    viaMesh.dispose();
    const viaSkeleton = createAnimator(c.skeletons[0]!);
    expect(viaSkeleton.bindings[0]!.boneCount).toBe(boneCount);
    scene.dispose();
  });

  test('bones bitrig does not drive are exactly what Babylon\'s animation produced; driven tail bones move and reach the skin', async () => {
    const { scene } = createTestScene();
    const ref = await loadGlbBabylon(await builtin(), scene);
    const sim = await loadGlbBabylon(await builtin(), scene);
    const animator = createAnimator(sim.meshes[0]!, { autoUpdate: true });
    const binding = animator.bindings[0]!;
    const bonesRef = ref.skeletons[0]!.bones, bonesSim = sim.skeletons[0]!.bones;
    expect(bonesSim.map((b) => b.name)).toEqual(bonesRef.map((b) => b.name));
    const rootSim = sim.meshes[0]!;
    const root0 = [rootSim.position.clone(), rootSim.rotationQuaternion!.clone(), rootSim.scaling.clone()];
    ref.animationGroups.find((g) => g.name === 'walk')!.start(true);
    sim.animationGroups.find((g) => g.name === 'walk')!.start(true);
    let driven = 0, checked = 0, maxTailOff = 0;
    for (let f = 0; f < 120; f++) {
      ref.meshes[0]!.position.x = rootSim.position.x = 0.4 * Math.sin(f / 20); // both move the same way
      scene.render();
      for (let i = 0; i < bonesSim.length; i++) {
        const a = bonesRef[i]!.getTransformNode()!, b = bonesSim[i]!.getTransformNode()!;
        if (binding.drivenRotation[i] === 1) {
          driven++;
          const qa = a.rotationQuaternion!, qb = b.rotationQuaternion!;
          const dot = Math.min(1, Math.abs(qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w));
          maxTailOff = Math.max(maxTailOff, 2 * Math.acos(dot));
        } else {
          checked++;
          // exact equality: not a single bit changed
          expect([b.rotationQuaternion!.x, b.rotationQuaternion!.y, b.rotationQuaternion!.z, b.rotationQuaternion!.w])
            .toEqual([a.rotationQuaternion!.x, a.rotationQuaternion!.y, a.rotationQuaternion!.z, a.rotationQuaternion!.w]);
        }
        if (binding.drivenTranslation[i] !== 1) expect([b.position.x, b.position.y, b.position.z]).toEqual([a.position.x, a.position.y, a.position.z]);
        expect([b.scaling.x, b.scaling.y, b.scaling.z]).toEqual([a.scaling.x, a.scaling.y, a.scaling.z]);
      }
      // What bitrig wrote is what the skeleton renders with (Skeleton.prepare copied the nodes).
      sim.skeletons[0]!.prepare(true);
      for (let i = 0; i < bonesSim.length; i++) {
        if (binding.drivenRotation[i] !== 1) continue;
        const qn = bonesSim[i]!.getTransformNode()!.rotationQuaternion!, qbone = bonesSim[i]!.rotationQuaternion;
        expect(Math.abs(Math.abs(qn.x * qbone.x + qn.y * qbone.y + qn.z * qbone.z + qn.w * qbone.w) - 1)).toBeLessThan(1e-6);
      }
    }
    expect(driven).toBe(120 * 6);
    expect(checked).toBe(120 * (bonesSim.length - 6));
    expect(maxTailOff).toBeGreaterThan(5 * Math.PI / 180); // the tail really was driven
    // The loader's root node (not a bone) is untouched.
    expect(rootSim.rotationQuaternion!.equals(root0[1] as typeof rootSim.rotationQuaternion & object)).toBe(true);
    expect(rootSim.scaling.equals(root0[2] as typeof rootSim.scaling)).toBe(true);
    scene.dispose();
  });
});

describe('createAnimator (Babylon) on rigs built in code', () => {
  function run(scene: Scene, kind: CodeRigKind): { tail: Float64Array[][]; rootSwing: number; eulerKept: boolean; mirror: boolean[] } {
    const ch = buildCodeCharacter(scene, kind, kind);
    const animator = createAnimator(kind === 'bones' ? ch.root : ch.skeleton);
    expect(animator.diagnostics().tails.map((t) => t.bones)).toEqual([['Tail_1', 'Tail_2', 'Tail_3']]);
    const tail: Float64Array[][] = [];
    const rest = ch.boneWorld('Tail_1');
    let rootSwing = 0, eulerKept = true;
    for (let f = 0; f < 180; f++) {
      moveRoot(ch.root, f);
      animator.update(1 / 60);
      tail.push(['Tail_1', 'Tail_2', 'Tail_3'].map((n) => ch.boneWorld(n)));
      rootSwing = Math.max(rootSwing, rotationAngle(rest, tail[f]![0]!) - Math.abs(ch.root.rotation.y));
      for (const n of ch.nodes.values()) if (n.rotationQuaternion) eulerKept = false;
    }
    return { tail, rootSwing, eulerKept, mirror: [...animator.mirrorX] };
  }

  test('linked quaternion nodes, Euler-posed nodes and unlinked bones give the same tail (1e-5 rad: Babylon stores matrices in float32)', () => {
    const { scene } = createTestScene();
    const q = run(scene, 'linked');
    const e = run(scene, 'linked-euler');
    const b = run(scene, 'bones');
    expect(q.mirror).toEqual([false]);
    expect(q.rootSwing).toBeGreaterThan(3 * Math.PI / 180); // the tail lags the moving hips
    expect(e.eulerKept).toBe(true); // Euler-posed nodes stay Euler-posed (their Euler animation keeps working)
    let maxE = 0, maxB = 0;
    for (let f = 0; f < q.tail.length; f++) {
      for (let i = 0; i < 3; i++) {
        maxE = Math.max(maxE, rotationAngle(q.tail[f]![i]!, e.tail[f]![i]!));
        maxB = Math.max(maxB, rotationAngle(q.tail[f]![i]!, b.tail[f]![i]!));
      }
    }
    expect(maxE).toBeLessThan(1e-5);
    expect(maxB).toBeLessThan(1e-5);
    scene.dispose();
  });

  test('a shared world (updateAnimators) matches private worlds (1e-12 on the pose store)', () => {
    const { scene } = createTestScene();
    const world = createBitrigWorld();
    const shared = [0, 1].map((i) => ({ ch: buildCodeCharacter(scene, 'linked', `s${i}`) }));
    const solo = [0, 1].map((i) => ({ ch: buildCodeCharacter(scene, 'linked', `p${i}`) }));
    const sharedA = shared.map((s) => createAnimator(s.ch.skeleton, { world }));
    const soloA = solo.map((s) => createAnimator(s.ch.skeleton));
    expect(() => sharedA[0]!.update(1 / 60)).toThrow(/^bitrig\/babylon: this animator shares its world with others/);
    for (let f = 0; f < 90; f++) {
      shared.forEach((s, i) => moveRoot(s.ch.root, f + 17 * i));
      solo.forEach((s, i) => moveRoot(s.ch.root, f + 17 * i));
      updateAnimators(sharedA, 1 / 60);
      for (const a of soloA) a.update(1 / 60);
      for (let i = 0; i < 2; i++) {
        for (const n of ['Tail_1', 'Tail_2', 'Tail_3']) {
          const x = shared[i]!.ch.nodes.get(n)!.rotationQuaternion!, y = solo[i]!.ch.nodes.get(n)!.rotationQuaternion!;
          expect(Math.abs(x.x - y.x) + Math.abs(x.y - y.y) + Math.abs(x.z - y.z) + Math.abs(x.w - y.w)).toBeLessThan(1e-12);
        }
      }
    }
    scene.dispose();
  });
});

describe('createAnimator (Babylon): bad input', () => {
  test('a mesh without a skeleton, an empty node, nothing at all, autoUpdate on a shared world, a bad unit scale', () => {
    const { scene } = createTestScene();
    const box = MeshBuilder.CreateBox('box', {}, scene);
    expect(() => createAnimator(box)).toThrow(/^bitrig\/babylon: no mesh with a skeleton under "box"/);
    expect(() => createAnimator(new TransformNode('empty', scene))).toThrow(/^bitrig\/babylon: no mesh with a skeleton/);
    expect(() => createAnimator(undefined as never)).toThrow(/^bitrig\/babylon: createAnimator needs a Skeleton or a Node/);
    const ch = buildCodeCharacter(scene, 'linked');
    expect(() => createAnimator(ch.skeleton, { autoUpdate: true, world: createBitrigWorld() })).toThrow(/^bitrig\/babylon: autoUpdate needs a private world/);
    expect(() => createAnimator(ch.skeleton, { unitScale: -1 })).toThrow(/^bitrig\/babylon: unitScale must be positive/);
    expect(() => createAnimator(ch.skeleton, { tailChains: [['Tail_1', 'Nope']] })).toThrow(/^bitrig\/bind: tail bone "Nope" not found/);
    expect(() => createAnimator(ch.skeleton, { tail: { frequency: -2 } })).toThrow(/^bitrig\/tail: option frequency/);
    expect(() => createAnimator(ch.skeleton, null as never)).toThrow(/^bitrig\/babylon: options must be an object, got null/);
    expect(() => createAnimator(ch.skeleton, { autoUpdate: 'false' as never })).toThrow(/^bitrig\/babylon: options.autoUpdate must be true or false, got "false" \(a string\)/);
    expect(() => createAnimator(ch.skeleton, { autoUpdat: true } as never)).toThrow(/^bitrig\/babylon: unknown option "autoUpdat" \(did you mean "autoUpdate"\?\)/);
    scene.dispose();
  });
});
