/**
 * The automatic colliders through both adapters: the three.js and Babylon.js animators of the
 * Quaternius fox get the same capsules (bones, groups, ends and radii within 1e-6 m: the same
 * skin read through each engine), `colliders: false` gives none, the animator's colliders can
 * be edited and removed (bone names compared without three.js's dropped dots), `diagnostics()` counts contacts, and `dispose` removes them.
 */
import { describe, expect, test } from 'vitest';
import { AnimationMixer } from 'three';
import { createAnimator as createThreeAnimator } from '../../adapters/three';
import { createAnimator as createBabylonAnimator } from '../../adapters/babylon';
import { getTailCollider, removeTailCollider, setTailCollider } from '../../core/colliderSetup';
import { loadGlbThree } from '../helpers/loadThree';
import { createTestScene, loadGlbBabylon, stripTextures } from '../babylon/helpers';
import { assetBytes } from '../fixtures/assets';
import type { AnimatorBase } from '../../adapters/animatorBase';

function described(a: AnimatorBase): { bone: string; groups: number; a: number[]; b: number[]; radius: number }[] {
  return a.colliders.map((c) => {
    const s = getTailCollider(a.world, c);
    return { bone: a.world.pose.names[s.slot]!.replace('.', ''), groups: s.groups!, a: Array.from(s.a!), b: Array.from(s.b ?? s.a!), radius: s.radius };
  }).sort((x, y) => x.bone.localeCompare(y.bone));
}

describe('automatic colliders in the adapters', () => {
  test('three.js and Babylon.js give the fox the same leg and body capsules', async () => {
    const bytes = assetBytes('quaternius-fox');
    const t = createThreeAnimator((await loadGlbThree(bytes)).scene);
    const { scene } = createTestScene();
    const c = await loadGlbBabylon(await stripTextures(bytes), scene);
    const b = createBabylonAnimator(c.meshes[0]!);
    const dt = described(t), db = described(b);
    expect(dt.length).toBe(10); // (four legs × thigh and shin, hips, lower spine)
    expect(dt.filter((x) => x.groups === 2).map((x) => x.bone)).toEqual(['Back', 'Torso']);
    expect(db.map((x) => [x.bone, x.groups])).toEqual(dt.map((x) => [x.bone, x.groups]));
    for (let i = 0; i < dt.length; i++) {
      expect(Math.abs(db[i]!.radius - dt[i]!.radius), dt[i]!.bone).toBeLessThan(1e-6);
      for (let k = 0; k < 3; k++) expect(Math.abs(db[i]!.b[k]! - dt[i]!.b[k]!), dt[i]!.bone).toBeLessThan(1e-6);
    }
    expect(t.diagnostics().tails[0]!.colliders).toBe(10);
    t.dispose(); b.dispose();
    expect(t.world.queries.colliders.dense.length).toBe(0);
    expect(b.world.queries.colliders.dense.length).toBe(0);
  });

  test('colliders: false gives none; the animator\'s own can be edited and removed; diagnostics count contacts', async () => {
    const g = await loadGlbThree(assetBytes('quaternius-fox'));
    const off = createThreeAnimator(g.scene, { colliders: false });
    expect(off.colliders).toEqual([]);
    expect(off.diagnostics().tails[0]!.colliders).toBe(0);
    off.dispose();
    expect(() => createThreeAnimator(g.scene, { colliders: 1 as never })).toThrow('bitrig/three: options.colliders must be true or false, got 1');
    const mixer = new AnimationMixer(g.scene);
    const eating = g.animations.find((c) => c.name === 'Eating')!;
    mixer.clipAction(eating).play();
    const a = createThreeAnimator(g.scene, { mixer, tail: { gravity: 9.8, frequency: 0.3 } });
    const thigh = a.colliders.find((c) => a.world.pose.names[getTailCollider(a.world, c).slot] === 'BackUpperLegL')!;
    const r = getTailCollider(a.world, thigh).radius;
    setTailCollider(a.world, thigh, { radius: 1.1 * r });
    expect(getTailCollider(a.world, thigh).radius).toBe(1.1 * r);
    removeTailCollider(a.world, a.colliders.find((c) => a.world.pose.names[getTailCollider(a.world, c).slot] === 'FrontLowerLegL')!);
    expect(a.diagnostics().tails[0]!.colliders).toBe(9);
    let contacts = 0;
    for (let f = 0; f < eating.duration * 60; f++) { a.update(1 / 60); contacts += a.diagnostics().tails[0]!.colliderContacts; }
    expect(contacts).toBeGreaterThan(0); // (the tail brushes a leg while the fox eats)
    a.dispose(); // (removes the ones still there)
    expect(a.world.queries.colliders.dense.length).toBe(0);
  });
});
