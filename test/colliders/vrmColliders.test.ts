/**
 * VRM spring-bone colliders: read from VRMC_springBone 1.0 and VRM 0.x JSON built in code,
 * placed on the bones they name (world positions against hand-computed values under a
 * mirrored, 2× scaled and turned parent, within 1e-6 m: float32 bone locals), grouped as the file groups them, and a
 * VRM capsule keeping a hanging tail out (no segment deeper than 2 % of its radius). Malformed
 * input is an error naming the field or a skipped entry with a reason, never a NaN.
 */
import { describe, expect, test } from 'vitest';
import { readVrmColliders } from '../../core/vrmColliders';
import { addVrmTailColliders, vrmGroupBit } from '../../core/vrmColliderSetup';
import { getTailCollider } from '../../core/colliderSetup';
import { getTailOptions } from '../../core/tailSetup';
import { SHAPE_STRIDE } from '../../core/components/collider';
import { nodesByName } from '../../adapters/colliderPass';
import { bindVrmNodes, vrm0Json, vrm1Json, vrmNodes } from './vrmFixture';
import { deepestPenetration, makeColliderRig, PARENTS } from './fixture';

const TOL = 1e-6; // (metres: the pose store keeps bone locals in float32, about 1e-7 relative)

/** Collider `c`'s world shape this frame: ends and radius. */
function shapeNow(world: ReturnType<typeof bindVrmNodes>['world'], c: number): number[] {
  const K = world.components.TailCollider;
  return Array.from(K.shapeCur.subarray(c * SHAPE_STRIDE, c * SHAPE_STRIDE + 7));
}

function expectClose(got: number[], want: number[]): void {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => expect(Math.abs(g - want[i]!), `component ${i}: ${got} vs ${want}`).toBeLessThan(TOL));
}

describe('reading VRM colliders', () => {
  test('VRMC_springBone 1.0: spheres and capsules in node space, groups, springs', () => {
    const v = readVrmColliders(vrm1Json());
    expect(v.version).toBe('1.0');
    expect(v.skipped).toEqual([]);
    expect(v.colliders).toEqual([
      { node: 1, nodeName: 'Leg', a: [0.1, 0, 0], radius: 0.05, groups: [0] },
      { node: 1, nodeName: 'Leg', a: [0, 0, 0], b: [0, -0.4, 0], radius: 0.03, groups: [0] },
      { node: 0, nodeName: 'Hips', a: [0, 0, 0.2], radius: 0.1, groups: [1] },
    ]);
    expect(v.groups).toEqual([{ name: 'Leg', colliders: [0, 1] }, { name: 'Hips', colliders: [2] }]);
    expect(v.springs).toEqual([{ name: 'Tail', nodes: [3, 4], groups: [0] }]);
  });

  test('VRM 0.x: spheres with z reversed, each group on its node, a bone group moves its subtree', () => {
    const v = readVrmColliders(vrm0Json());
    expect(v.version).toBe('0.x');
    expect(v.colliders).toEqual([
      { node: 1, nodeName: 'Leg', a: [0.1, 0, -0.05], radius: 0.05, groups: [0] },
      { node: 0, nodeName: 'Hips', a: [0, 0, 0], radius: 0.1, groups: [1] },
    ]);
    expect(v.groups.map((g) => g.name)).toEqual(['Leg', 'Hips']);
    expect(v.springs).toEqual([{ name: 'tail', nodes: [3, 4], groups: [1] }]);
  });

  test('a file without spring bones has none; malformed containers throw naming the field', () => {
    expect(readVrmColliders({ nodes: vrmNodes() })).toEqual({ version: null, colliders: [], groups: [], springs: [], skipped: [] });
    expect(() => readVrmColliders('{}')).toThrow('bitrig/colliders: the glTF JSON must be an object, got "{}" (a string)');
    expect(() => readVrmColliders(vrm1Json({ colliders: 3 }))).toThrow('bitrig/colliders: extensions.VRMC_springBone.colliders must be an array, got 3');
    expect(() => readVrmColliders({ extensions: { VRM: { secondaryAnimation: { colliderGroups: {} } } } })).toThrow(/^bitrig\/colliders: extensions\.VRM\.secondaryAnimation\.colliderGroups must be an array/);
    expect(() => readVrmColliders({ extensions: { VRMC_springBone: [] } })).toThrow(/^bitrig\/colliders: extensions\.VRMC_springBone must be an object/);
  });

  test('bad or unsupported entries are skipped with a reason, and no NaN comes out', () => {
    const ext = { specVersion: '1.0', shape: { plane: { offset: [0, 0, 0], normal: [0, 1, 0] } } };
    const v = readVrmColliders(vrm1Json({
      colliders: [
        { node: 1, shape: { sphere: { offset: [0, 0, 0], radius: NaN } } },
        { node: 99, shape: { sphere: { radius: 0.1 } } },
        { node: 1, shape: { capsule: { offset: [0, 0, 0], radius: 0.1, tail: [0, null, 0] } } },
        { node: 0, shape: { sphere: { radius: 0.1 } }, extensions: { VRMC_springBone_extended_collider: ext } },
        { node: 0, shape: { capsule: { radius: 0.1 } }, extensions: { VRMC_springBone_extended_collider: { specVersion: '1.0', shape: { sphere: { radius: 0.2, inside: true } } } } },
        { node: 0, shape: { plane: {} } },
        { node: 0, shape: { sphere: { offset: [0, 0.5, 0], radius: 0.07 } }, extensions: { VRMC_springBone_extended_collider: { specVersion: '1.0', shape: { capsule: { radius: 0.08, tail: [0, 1, 0] } } } } },
      ],
      colliderGroups: [{ name: 'g', colliders: [0, 1, 2, 3, 4, 5, 6, 7] }],
    }));
    expect(v.skipped.map((s) => s.path)).toEqual([
      'extensions.VRMC_springBone.colliders[0].shape',
      'extensions.VRMC_springBone.colliders[1].node',
      'extensions.VRMC_springBone.colliders[2].shape',
      'extensions.VRMC_springBone.colliders[3].extensions.VRMC_springBone_extended_collider.shape',
      'extensions.VRMC_springBone.colliders[4].extensions.VRMC_springBone_extended_collider.shape',
      'extensions.VRMC_springBone.colliders[5].shape',
      'extensions.VRMC_springBone.colliderGroups[0].colliders[7]',
    ]);
    expect(v.skipped[0]!.reason).toBe('radius must be a number in (0, 1e6), got NaN');
    expect(v.skipped[3]!.reason).toMatch(/^plane colliders are not supported .*; the base shape is used$/);
    expect(v.skipped[4]!.reason).toMatch(/^inside colliders .* are not supported/);
    // (3: the plane falls back to its base sphere; 4: the inside sphere to its base capsule; 6: the extended capsule)
    expect(v.colliders).toEqual([
      { node: 0, nodeName: 'Hips', a: [0, 0, 0], radius: 0.1, groups: [0] },
      { node: 0, nodeName: 'Hips', a: [0, 0, 0], b: [0, 0, 0], radius: 0.1, groups: [0] },
      { node: 0, nodeName: 'Hips', a: [0, 0, 0], b: [0, 1, 0], radius: 0.08, groups: [0] },
    ]);
    expect(v.groups[0]!.colliders).toEqual([0, 1, 2]);
    expect(JSON.stringify([v.colliders, v.groups, v.springs])).not.toMatch(/NaN|null/); // (JSON writes NaN as null)
  });
});

describe('VRM colliders on a bound skeleton', () => {
  test('1.0: placed in world space under a mirrored, scaled, turned parent; the tail spring\'s chain collides with its group', () => {
    const { world, b, frame } = bindVrmNodes();
    expect(b.tails.length).toBe(1);
    const r = addVrmTailColliders(world, b, readVrmColliders(vrm1Json()), [0, 1, 2, 3, 4]);
    expect(r.skipped).toEqual([]);
    expect(r.colliders.length).toBe(3);
    frame(1 / 60);
    // Hips: (0, 1, 0), linear diag(−2, 2, 2). Leg: (0, 1, 0) + diag(−2, 2, 2)(0.1, −0.2, 0) = (−0.2, 0.6, 0),
    // linear diag(−2, 2, 2)·Rz(90°), Rz(90°)(x, y, z) = (−y, x, z); every axis 2 long, so radii double.
    expectClose(shapeNow(world, r.colliders[0]!), [-0.2, 0.8, 0, -0.2, 0.8, 0, 0.1]); // (0.1, 0, 0) → (0, 0.1, 0) → (0, 0.2, 0)
    expectClose(shapeNow(world, r.colliders[1]!), [-0.2, 0.6, 0, -1.0, 0.6, 0, 0.06]); // tail (0, −0.4, 0) → (0.4, 0, 0) → (−0.8, 0, 0)
    expectClose(shapeNow(world, r.colliders[2]!), [0, 1, 0.4, 0, 1, 0.4, 0.2]);
    expect(getTailCollider(world, r.colliders[0]!).groups).toBe(vrmGroupBit(0));
    expect(getTailCollider(world, r.colliders[2]!).groups).toBe(vrmGroupBit(1));
    const tail = b.tails[0]!.eid;
    expect(getTailOptions(world, tail).colliderGroups).toBe(4); // (group 0 → bit 2)
    expect(world.components.TailChain.colliderCount[tail]).toBe(2);
  });

  test('0.x: the reversed z placed; the bone group\'s chain collides with its group; keepChainGroups leaves a chain alone', () => {
    const { world, b, frame } = bindVrmNodes();
    const r = addVrmTailColliders(world, b, readVrmColliders(vrm0Json()), [0, 1, 2, 3, 4]);
    frame(1 / 60);
    expectClose(shapeNow(world, r.colliders[0]!), [-0.2, 0.8, -0.1, -0.2, 0.8, -0.1, 0.1]); // (0.1, 0, −0.05) → (0, 0.1, −0.05) → (0, 0.2, −0.1)
    expectClose(shapeNow(world, r.colliders[1]!), [0, 1, 0, 0, 1, 0, 0.2]);
    expect(getTailOptions(world, b.tails[0]!.eid).colliderGroups).toBe(8); // (group 1 → bit 3)
    const other = bindVrmNodes();
    addVrmTailColliders(other.world, other.b, readVrmColliders(vrm0Json()), [0, 1, 2, 3, 4], { keepChainGroups: [other.b.tails[0]!.eid] });
    expect(getTailOptions(other.world, other.b.tails[0]!.eid).colliderGroups).toBe(3);
  });

  test('colliders on nodes that are not bones, or in no group, are skipped with a reason', () => {
    const { world, b } = bindVrmNodes();
    const json = vrm1Json({ colliderGroups: [{ name: 'Leg', colliders: [0] }] });
    const r = addVrmTailColliders(world, b, readVrmColliders(json), [0, -1, 2, 3, 4]); // (node 1 is no bone)
    expect(r.colliders.length).toBe(0);
    expect(r.skipped).toEqual([
      { path: 'colliders[0] (node 1 "Leg")', reason: 'its node is not a bone of this skeleton' },
      { path: 'colliders[1] (node 1 "Leg")', reason: 'its node is not a bone of this skeleton' },
      { path: 'colliders[2] (node 0 "Hips")', reason: 'in no collider group: no spring collides with it' },
    ]);
  });

  test('end to end: a VRM capsule across a hanging tail keeps it out (mirrored parent, 240 frames)', () => {
    const HANGING = { gravity: 9.8, frequency: 0.3, carry: 0, floorEnabled: false, bendLimit: Math.PI };
    const across = { offset: [-0.2, -0.45, -0.12], tail: [0.4, -0.45, -0.13], radius: 0.06 };
    const json = {
      nodes: ['Hips', 'Tail_1', 'Tail_2', 'Tail_3', 'Tail_4', 'Tail_End'].map((name) => ({ name })),
      extensions: { VRMC_springBone: { colliders: [{ node: 0, shape: { capsule: across } }], colliderGroups: [{ name: 'body', colliders: [0] }] } },
    };
    for (const withVrm of [true, false]) {
      const rig = makeColliderRig(PARENTS[3]!, [], HANGING);
      if (withVrm) expect(addVrmTailColliders(rig.world, rig.b, readVrmColliders(json), [0, 1, 2, 3, 4, 5]).colliders.length).toBe(1);
      const ghost = makeColliderRig(PARENTS[3]!, [{ a: across.offset as never, b: across.tail as never, r: across.radius }], HANGING);
      let worst = 0;
      for (let f = 0; f < 240; f++) {
        const side = 0.25 * Math.sin(2 * Math.PI * 0.6 * f / 60);
        rig.frame(1 / 60, side); ghost.frame(1 / 60, side);
        const j = rig.joints();
        expect(j.every((p) => Array.from(p).every(Number.isFinite))).toBe(true);
        worst = Math.max(worst, deepestPenetration(j, ghost.capsulesWs()));
      }
      if (withVrm) expect(worst).toBeLessThanOrEqual(0.02);
      else expect(worst).toBeGreaterThan(0.2); // (without it the tail hangs through: the test can fail)
    }
  });

  test('bones find their nodes by name: as written, as three.js sanitises it, or Babylon.js\'s joint<i> for an unnamed node', () => {
    const json = { nodes: [{ name: 'Hips' }, { name: 'Upper Leg.L' }, {}, { name: 'Hips' }] };
    expect(Array.from(nodesByName(json, ['Hips', 'Upper_LegL', 'joint2', 'Tail', 'Upper Leg.L']))).toEqual([0, 1, 2, -1, 1]);
    expect(Array.from(nodesByName({}, ['Hips']))).toEqual([-1]);
  });
});
