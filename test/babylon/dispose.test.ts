/**
 * Disposing a bound skeleton (`skeleton.dispose()` removes it from its scene) or the scene
 * releases bitrig's pose slots, entities and scene observers: 1,000 bind/dispose cycles grow
 * nothing.
 */
import { describe, expect, test } from 'vitest';
import { Scene } from '@babylonjs/core/scene';
import { LoadAssetContainerAsync } from '@babylonjs/core/Loading/sceneLoader';
import '@babylonjs/loaders/glTF';
import { createAnimator, updateAnimators } from '../../adapters/babylon';
import { createBuiltinCharacter } from '../../core/character';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { characterToGlb } from '../../rig/characterDocument';
import { buildCodeCharacter, createTestScene, loadGlbBabylon } from './helpers';

/** Everything in a world that a leak would grow or keep. */
function footprint(world: BitrigWorld) {
  const p = world.pose;
  return {
    slots: p.capacity, chars: p.charCapacity, entities: world.capacity, tailRows: world.tailRows.capacity,
    freeRanges: [...p.freeRanges], freeChars: p.freeChars.length, tails: world.queries.tails.dense.length,
  };
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('Babylon adapter: release on dispose', () => {
  test('skeleton.dispose() releases the binding: 1,000 bind/dispose cycles grow neither the pose store nor the world, and leave no observer', async () => {
    const { scene } = createTestScene();
    const c = await loadGlbBabylon(await characterToGlb(createBuiltinCharacter()), scene);
    const world = createBitrigWorld({ bones: 64, entities: 8 }); // small: any leak shows as growth
    const observers0 = scene.onSkeletonRemovedObservable.observers.length + scene.onDisposeObservable.observers.length;
    const empty = footprint(world);
    // First cycle sizes the store for one character.
    let s = c.skeletons[0]!.clone('cycle');
    let a = createAnimator(s, { world });
    expect(world.queries.tails.dense.length).toBe(1);
    s.dispose();
    expect(a.alive).toBe(false);
    const base = footprint(world);
    expect(base.freeRanges).toEqual([0, base.slots]); // everything free again, merged
    expect(base.freeChars).toBe(base.chars);
    expect(base.tails).toBe(0);
    for (let i = 0; i < 1000; i++) {
      s = c.skeletons[0]!.clone(`cycle${i}`);
      a = createAnimator(s, { world });
      s.dispose();
      if (a.alive) throw new Error(`cycle ${i}: still alive after skeleton.dispose()`);
    }
    expect(footprint(world)).toEqual(base);
    expect(base.slots).toBeGreaterThanOrEqual(empty.slots); // sized once, for one character
    // A disposed animator is inert: no read or write into released slots.
    a.read(); a.write();
    expect(footprint(world)).toEqual(base);
    await tick(); // removals requested inside Babylon's notification are deferred by Babylon
    expect(scene.onSkeletonRemovedObservable.observers.length + scene.onDisposeObservable.observers.length).toBe(observers0);
    scene.dispose();
  });

  test('scene.dispose() releases every animator bound in it; other scenes\' animators and unrelated skeletons are unaffected', () => {
    const { engine } = createTestScene();
    const world = createBitrigWorld({ bones: 16, entities: 8 });
    const keepScene = new Scene(engine);
    const keep = createAnimator(buildCodeCharacter(keepScene, 'linked', 'keep').skeleton, { world });
    let base = footprint(world);
    for (let i = 0; i < 50; i++) {
      if (i === 1) base = footprint(world); // after the first cycle sized the store for three characters
      const scene = new Scene(engine);
      const a = createAnimator(buildCodeCharacter(scene, 'linked', `a${i}`).skeleton, { world });
      const b = createAnimator(buildCodeCharacter(scene, 'bones', `b${i}`).root, { world });
      buildCodeCharacter(scene, 'linked', `other${i}`).skeleton.dispose(); // not ours: nothing happens
      expect(a.alive && b.alive).toBe(true);
      scene.dispose();
      expect(a.alive || b.alive).toBe(false);
    }
    expect(footprint(world)).toEqual(base);
    expect(keep.alive).toBe(true);
    keepScene.dispose();
    expect(keep.alive).toBe(false);
    const after = footprint(world);
    expect(after.freeRanges).toEqual([0, after.slots]);
  });

  test('an AssetContainer taken out of the scene and added back (pooling) pauses the animator and resumes it (the tail moves again); disposing the container\'s skeleton then frees it (review 24)', async () => {
    const { scene } = createTestScene();
    const c = await LoadAssetContainerAsync(await characterToGlb(createBuiltinCharacter()), scene, { pluginExtension: '.glb', pluginOptions: { gltf: { animationStartMode: 0 } } });
    c.addAllToScene();
    const an = createAnimator(c.meshes[0]!, { autoUpdate: true });
    const sweep = c.animationGroups.find((g) => g.name === 'hipSweep')!;
    sweep.start(true);
    const tail = an.skeletons[0]!.bones.find((b) => b.name === 'Tail_1')!.getTransformNode()!;
    const snap = (): string => tail.rotationQuaternion!.asArray().join(',');
    for (let i = 0; i < 10; i++) scene.render();
    c.removeAllFromScene();
    await Promise.resolve(); // (the removal is judged once it has finished)
    expect(an.alive).toBe(true);
    const out = snap();
    for (let i = 0; i < 5; i++) scene.render();
    expect(snap(), 'paused while out of the scene').toBe(out);
    c.addAllToScene();
    sweep.start(true);
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) { scene.render(); seen.add(snap()); }
    expect(an.alive).toBe(true);
    expect(seen.size).toBeGreaterThan(20);
    an.skeletons[0]!.dispose();
    await Promise.resolve();
    expect(an.alive).toBe(false);
    // a container disposed while out of the scene (Babylon fires no removal then): freed on the
    // next frame, with autoUpdate and in a shared world (updateAnimators)
    for (const shared of [false, true]) {
      const world = createBitrigWorld();
      const c2 = await LoadAssetContainerAsync(await characterToGlb(createBuiltinCharacter()), scene, { pluginExtension: '.glb', pluginOptions: { gltf: { animationStartMode: 0 } } });
      c2.addAllToScene();
      const a2 = createAnimator(c2.meshes[0]!, shared ? { world } : { autoUpdate: true });
      scene.render();
      c2.removeAllFromScene();
      await Promise.resolve();
      c2.dispose();
      if (shared) updateAnimators([a2], 1 / 60); else scene.render();
      expect(a2.alive, shared ? 'shared world' : 'autoUpdate').toBe(false);
      if (shared) expect(world.queries.tails.dense.length).toBe(0);
    }
  });

  test('animator.dispose() removes its observers at once and is safe to call twice; the skeleton stays usable', () => {
    const { scene } = createTestScene();
    const ch = buildCodeCharacter(scene, 'linked');
    const watched = [scene.onSkeletonRemovedObservable, scene.onDisposeObservable, scene.onAfterAnimationsObservable];
    const before = watched.map((o) => o.observers.length);
    const a = createAnimator(ch.skeleton, { autoUpdate: true });
    expect(watched.map((o) => o.observers.length)).toEqual(before.map((n) => n + 1));
    a.dispose();
    a.dispose();
    expect(watched.map((o) => o.observers.length)).toEqual(before);
    const again = createAnimator(ch.skeleton); // rebinding the same skeleton works
    expect(again.diagnostics().tails.length).toBe(1);
    scene.render();
    scene.dispose();
    expect(again.alive).toBe(false);
  });
});
