/**
 * VRM colliders through both adapters, on the Quaternius fox with VRMC_springBone JSON added in
 * code: three.js given the loader's result (nodes matched through `parser.associations`) or the
 * JSON (nodes matched by name without the dots three.js drops), Babylon.js given the JSON
 * (names as in the file): the same colliders, on the same bones, in the file's groups, instead
 * of the automatic ones; the tail spring's chain collides with its group; skipped entries are
 * said in the problems; a file without spring bones keeps the automatic ones; bad input throws.
 */
import { describe, expect, test } from 'vitest';
import { createAnimator as createThreeAnimator } from '../../adapters/three';
import { createAnimator as createBabylonAnimator } from '../../adapters/babylon';
import { getTailCollider } from '../../core/colliderSetup';
import { loadGlbThree } from '../helpers/loadThree';
import { createTestScene, loadGlbBabylon, stripTextures } from '../babylon/helpers';
import { assetBytes } from '../fixtures/assets';
import type { AnimatorBase } from '../../adapters/animatorBase';

/** Fox node indices (quaternius-fox.glb): BackUpperLeg.L 22, BackUpperLeg.R 26, Tail1…Tail8 36…29. */
const SPRING_BONE = {
  specVersion: '1.0',
  colliders: [
    { node: 22, shape: { capsule: { offset: [0, 0, 0], radius: 0.12, tail: [0, 0.5, 0] } } },
    { node: 26, shape: { sphere: { offset: [0, 0.2, 0], radius: 0.15 } } },
    { node: 37, shape: { plane: { offset: [0, 0, 0], normal: [0, 1, 0] } } },
    { node: 0, shape: { sphere: { radius: 0.1 } } }, // (the head: in a group no spring names)
  ],
  colliderGroups: [{ name: 'hindLegs', colliders: [0, 1, 2] }, { name: 'head', colliders: [3] }],
  springs: [{ name: 'tail', joints: [36, 35, 34, 33, 32, 31, 30, 29].map((node) => ({ node })), colliderGroups: [0] }],
};

function described(a: AnimatorBase): { bone: string; groups: number; a: number[]; b: number[] | undefined; radius: number }[] {
  return a.colliders.map((c) => {
    const s = getTailCollider(a.world, c);
    return { bone: a.world.pose.names[s.slot]!.replace('.', ''), groups: s.groups!, a: Array.from(s.a!), b: s.b && Array.from(s.b), radius: s.radius };
  }).sort((x, y) => x.bone.localeCompare(y.bone));
}

const WANT = [
  { bone: 'BackUpperLegL', groups: 4, a: [0, 0, 0], b: [0, 0.5, 0], radius: 0.12 },
  { bone: 'BackUpperLegR', groups: 4, a: [0, 0.2, 0], b: undefined, radius: 0.15 },
  { bone: 'Head', groups: 8, a: [0, 0, 0], b: undefined, radius: 0.1 },
];

describe('VRM colliders in the adapters', () => {
  test('three.js (loader result, or JSON by name) and Babylon.js (JSON) place the file\'s colliders instead of the automatic ones', async () => {
    const bytes = assetBytes('quaternius-fox');
    const g = await loadGlbThree(bytes);
    (g.parser.json as { extensions?: Record<string, unknown> }).extensions = { VRMC_springBone: SPRING_BONE };
    const t = createThreeAnimator(g.scene, { vrm: g });
    expect(described(t)).toEqual(WANT);
    expect(t.diagnostics().tails[0]!.colliders).toBe(2); // (the tail spring names the hind legs' group only)
    expect(t.diagnostics().problems.filter((p) => p.startsWith('bitrig/colliders:'))).toEqual([
      'bitrig/colliders: VRM extensions.VRMC_springBone.colliders[2].shape skipped: plane colliders are not supported (bitrig colliders are spheres and capsules)',
    ]);
    t.dispose();
    const byName = createThreeAnimator(g.scene, { vrm: g.parser.json as object });
    expect(described(byName)).toEqual(WANT);
    byName.dispose();
    const { scene } = createTestScene();
    const c = await loadGlbBabylon(await stripTextures(bytes), scene);
    const b = createBabylonAnimator(c.meshes[0]!, { vrm: g.parser.json as object });
    expect(described(b)).toEqual(WANT);
    expect(b.diagnostics().tails[0]!.colliders).toBe(2);
    b.dispose();
    expect(b.world.queries.colliders.dense.length).toBe(0);
  });

  test('a file without spring bones keeps the automatic colliders; tail options naming colliderGroups are kept; bad input throws', async () => {
    const g = await loadGlbThree(assetBytes('quaternius-fox'));
    const plain = createThreeAnimator(g.scene, { vrm: g });
    expect(plain.colliders.length).toBe(10); // (the automatic ones)
    plain.dispose();
    (g.parser.json as { extensions?: Record<string, unknown> }).extensions = { VRMC_springBone: SPRING_BONE };
    const kept = createThreeAnimator(g.scene, { vrm: g, tail: { colliderGroups: 8 } });
    expect(kept.diagnostics().tails[0]!.colliders).toBe(1); // (its own choice: the head's group)
    kept.dispose();
    const off = createThreeAnimator(g.scene, { vrm: g, colliders: false });
    expect(off.colliders).toEqual([]);
    off.dispose();
    expect(() => createThreeAnimator(g.scene, { vrm: 'model.vrm' as never })).toThrow('bitrig/three: options.vrm must be the glTF JSON of a VRM file (an object), got "model.vrm" (a string)');
    (g.parser.json as { extensions?: Record<string, unknown> }).extensions = { VRMC_springBone: { colliders: 3 } };
    expect(() => createThreeAnimator(g.scene, { vrm: g })).toThrow('bitrig/colliders: extensions.VRMC_springBone.colliders must be an array, got 3');
  });
});
