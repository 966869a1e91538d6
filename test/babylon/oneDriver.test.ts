/**
 * Review 43: one live animator per Babylon skeleton (as the three.js adapter: a second one on
 * the same skeleton would simulate its tails a second time on top of the first), whichever
 * way the skeleton is reached (the loader's root node, the skinned mesh, the Skeleton); and
 * createAnimator on something that is not a Skeleton or a Node says what to pass instead of
 * failing inside Babylon (`node.getChildMeshes is not a function`).
 */
import { describe, expect, test } from 'vitest';
import { LoadAssetContainerAsync } from '@babylonjs/core/Loading/sceneLoader';
import '@babylonjs/loaders/glTF';
import { createAnimator } from '../../adapters/babylon';
import { createBuiltinCharacter } from '../../core/character';
import { createBitrigWorld } from '../../runtime/world';
import { characterToGlb } from '../../rig/characterDocument';
import { buildCodeCharacter, createTestScene, loadGlbBabylon, stripTextures } from './helpers';

let builtinGlb: Uint8Array | null = null;
async function builtin(): Promise<Uint8Array> {
  builtinGlb ??= await characterToGlb(createBuiltinCharacter());
  return builtinGlb;
}

const DRIVEN = /^bitrig\/babylon: this skeleton is already driven by a live animator; dispose\(\) that one first$/;

describe('Babylon createAnimator: one live animator per skeleton', () => {
  test('a second animator on the same skeleton (root node, skinned mesh or Skeleton) is refused; after dispose() it binds', async () => {
    const { scene } = createTestScene();
    const c = await loadGlbBabylon(await builtin(), scene);
    const skinned = c.meshes.find((m) => m.skeleton)!;
    const first = createAnimator(c.meshes[0]!, { autoUpdate: true });
    expect(() => createAnimator(c.meshes[0]!)).toThrow(DRIVEN);
    expect(() => createAnimator(skinned, { autoUpdate: true })).toThrow(DRIVEN);
    expect(() => createAnimator(c.skeletons[0]!)).toThrow(DRIVEN);
    expect(() => createAnimator(c.skeletons[0]!, { world: createBitrigWorld() })).toThrow(DRIVEN); // another world does not help
    expect(first.alive).toBe(true);
    expect(first.world.queries.tails.dense.length).toBe(1); // the refused ones bound nothing
    first.dispose();
    const second = createAnimator(skinned);
    expect(second.diagnostics().tails.length).toBe(1);
    expect(() => createAnimator(c.skeletons[0]!)).toThrow(DRIVEN);
    scene.dispose(); // frees `second` (and so its skeleton)
    expect(second.alive).toBe(false);
  });

  test('the one animator simulates exactly as if it were alone (a refused second one changes nothing): tail rotations equal a solo twin to 1e-12 over 120 frames', async () => {
    const { scene } = createTestScene();
    const a = await loadGlbBabylon(await builtin(), scene);
    const b = await loadGlbBabylon(await builtin(), scene);
    const an = createAnimator(a.meshes[0]!, { autoUpdate: true });
    const twin = createAnimator(b.meshes[0]!, { autoUpdate: true });
    for (const m of a.meshes) expect(() => createAnimator(m, { autoUpdate: true })).toThrow(/^bitrig\/babylon: (this skeleton is already driven|no mesh with a skeleton)/);
    for (const c of [a, b]) c.animationGroups.find((g) => g.name === 'hipSweep')!.start(true);
    const tailOf = (c: typeof a) => c.skeletons[0]!.bones.find((x) => x.name === 'Tail_6')!.getTransformNode()!;
    let maxDiff = 0;
    for (let f = 0; f < 120; f++) {
      scene.render();
      const p = tailOf(a).rotationQuaternion!, q = tailOf(b).rotationQuaternion!;
      maxDiff = Math.max(maxDiff, Math.abs(p.x - q.x), Math.abs(p.y - q.y), Math.abs(p.z - q.z), Math.abs(p.w - q.w));
    }
    expect(an.alive && twin.alive).toBe(true);
    expect(maxDiff).toBeLessThan(1e-12);
    scene.dispose();
  });

  test('a container taken out of the scene (paused, still alive) keeps its skeleton bound; skeleton.dispose() or a failed createAnimator leaves it free', async () => {
    const { scene } = createTestScene();
    const c = await LoadAssetContainerAsync(await stripTextures(await builtin()), scene, { pluginExtension: '.glb', pluginOptions: { gltf: { animationStartMode: 0 } } });
    c.addAllToScene();
    const an = createAnimator(c.meshes[0]!, { autoUpdate: true });
    scene.render();
    c.removeAllFromScene();
    await Promise.resolve(); // (the removal is judged once it has finished)
    expect(an.alive).toBe(true);
    expect(() => createAnimator(c.skeletons[0]!)).toThrow(DRIVEN);
    c.addAllToScene();
    scene.render();
    expect(() => createAnimator(c.meshes[0]!)).toThrow(DRIVEN);
    c.skeletons[0]!.dispose();
    await Promise.resolve();
    expect(an.alive).toBe(false);
    // A skeleton built in code: a createAnimator that fails at setup does not keep it.
    const ch = buildCodeCharacter(scene, 'linked');
    expect(() => createAnimator(ch.skeleton, { tail: { frequency: -1 } })).toThrow(/^bitrig\/tail: option frequency/);
    expect(() => createAnimator(ch.skeleton, { tails: { Nope: { carry: 0 } } })).toThrow(/^bitrig\/babylon: options.tails\["Nope"\] names no tail chain/);
    const ok = createAnimator(ch.skeleton);
    expect(ok.alive).toBe(true);
    expect(() => createAnimator(ch.skeleton, { world: ok.world })).toThrow(DRIVEN);
    ch.skeleton.dispose();
    expect(ok.alive).toBe(false);
    scene.dispose();
  });
});

describe('Babylon createAnimator: a target that is not a Skeleton or a Node', () => {
  test('the loader\'s result, {}, a three.js object, a number: a bitrig/babylon error saying what to pass', async () => {
    const { scene } = createTestScene();
    const c = await loadGlbBabylon(await builtin(), scene);
    const need = /^bitrig\/babylon: createAnimator needs a Skeleton or a Node \(e\.g\. result\.meshes\[0\]\), got /;
    // ImportMeshAsync's result and an AssetContainer both carry meshes and skeletons.
    const result = { meshes: c.meshes, skeletons: c.skeletons, animationGroups: c.animationGroups, transformNodes: c.transformNodes };
    for (const r of [result, c]) {
      expect(() => createAnimator(r as never)).toThrow(need);
      expect(() => createAnimator(r as never)).toThrow(/pass result\.meshes\[0\]/);
    }
    expect(() => createAnimator({} as never)).toThrow(/^bitrig\/babylon: createAnimator needs a Skeleton or a Node \(e\.g\. result\.meshes\[0\]\), got an object$/);
    expect(() => createAnimator({ isObject3D: true, traverse() {} } as never)).toThrow(/got a three\.js object: use createAnimator from 'bitrig\/three'/);
    expect(() => createAnimator(c.meshes as never)).toThrow(/got an array of \d+: pass one of them \(e\.g\. result\.meshes\[0\]/);
    expect(() => createAnimator(3 as never)).toThrow(/got 3$/);
    expect(() => createAnimator(null as never)).toThrow(/got null$/);
    expect(() => createAnimator('fox' as never)).toThrow(/got "fox" \(a string\)$/);
    // (the real targets still bind)
    expect(createAnimator(c.meshes[0]!).alive).toBe(true);
    scene.dispose();
  });
});
