/**
 * Collider setup: add, edit, read back and remove; groups decide which chains collide; clear
 * `bitrig/tail: …` errors that leave the world unchanged; the chain option `colliderGroups`.
 */
import { describe, expect, test } from 'vitest';
import { addTailCollider, getTailCollider, removeTailCollider, setTailCollider, tailCollidersOf } from '../../core/colliderSetup';
import { setTailOptions, getTailOptions } from '../../core/tailSetup';
import { COLLIDER_GROUPS, MAX_CHAIN_COLLIDERS } from '../../core/components/collider';
import { unbindSkeleton } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { makeColliderRig, PARENTS } from './fixture';

const rigOf = () => makeColliderRig(PARENTS[0]!, [], {});

describe('tail collider setup', () => {
  test('add a sphere and a capsule, read them back, edit, remove; the chain lists them by group', () => {
    const { world, b, tailEid } = rigOf();
    const C = world.components.TailChain;
    const s = addTailCollider(world, { char: b.charId, slot: b.slotOf[0]!, radius: 0.1, a: [0, -0.3, 0] });
    const c = addTailCollider(world, { char: b.charId, slot: b.slotOf[0]!, radius: 0.05, a: [0.1, 0, 0], b: [0.1, -0.4, 0], groups: COLLIDER_GROUPS.legs });
    expect(getTailCollider(world, s)).toEqual({ char: b.charId, slot: b.slotOf[0]!, radius: 0.1, a: [0, -0.3, 0], groups: COLLIDER_GROUPS.body });
    expect(getTailCollider(world, c).b).toEqual([0.1, -0.4, 0]);
    expect(tailCollidersOf(world, b.charId)).toEqual([s, c].sort((x, y) => x - y));
    expect(C.colliderCount[tailEid]).toBe(2);
    expect(getTailOptions(world, tailEid).colliderGroups).toBe(3);
    setTailOptions(world, tailEid, { colliderGroups: COLLIDER_GROUPS.legs });
    expect(C.colliderCount[tailEid]).toBe(1);
    expect(C.colliders[tailEid * MAX_CHAIN_COLLIDERS]).toBe(c);
    setTailCollider(world, s, { groups: 3, radius: 0.2 });
    expect(C.colliderCount[tailEid]).toBe(2);
    expect(getTailCollider(world, s).radius).toBe(0.2);
    expect(getTailCollider(world, s).b).toBeUndefined(); // (still a sphere)
    removeTailCollider(world, c);
    expect(C.colliderCount[tailEid]).toBe(1);
    expect(() => removeTailCollider(world, c)).toThrow(/^bitrig\/tail: removeTailCollider: \d+ is not a tail collider of this world/);
    setTailOptions(world, tailEid, { colliderGroups: 0 });
    expect(C.colliderCount[tailEid]).toBe(0);
  });

  test('bad specs are refused naming the field, and add nothing', () => {
    const { world, b } = rigOf();
    const ok = { char: b.charId, slot: b.slotOf[0]!, radius: 0.1 };
    const before = world.queries.colliders.dense.length;
    expect(() => addTailCollider(world, { ...ok, radius: 0 })).toThrow('bitrig/tail: collider radius must be a number in (0, 1e6) bone units, got 0');
    expect(() => addTailCollider(world, { ...ok, radius: NaN })).toThrow(/^bitrig\/tail: collider radius/);
    expect(() => addTailCollider(world, { ...ok, char: 99 })).toThrow('bitrig/tail: collider character 99 is not bound');
    expect(() => addTailCollider(world, { ...ok, slot: 9999 })).toThrow(/^bitrig\/tail: collider bone slot 9999 does not belong to character/);
    expect(() => addTailCollider(world, { ...ok, a: [0, 1] })).toThrow(/^bitrig\/tail: collider a must be three finite numbers/);
    expect(() => addTailCollider(world, { ...ok, b: [0, Infinity, 0] })).toThrow(/^bitrig\/tail: collider b must be three finite numbers/);
    expect(() => addTailCollider(world, { ...ok, groups: 0 })).toThrow(/^bitrig\/tail: collider groups must be an integer bit mask/);
    expect(() => addTailCollider(world, { ...ok, groups: 1.5 })).toThrow(/^bitrig\/tail: collider groups/);
    expect(() => addTailCollider(world, null as never)).toThrow(/^bitrig\/tail: a collider needs a spec/);
    expect(world.queries.colliders.dense.length).toBe(before);
    expect(() => setTailOptions(world, b.tails[0]!.eid, { colliderGroups: 1.5 })).toThrow('bitrig/tail: option colliderGroups must be a number in [0, 2³¹ − 1] (an integer), got 1.5');
  });

  test(`a chain collides with at most ${MAX_CHAIN_COLLIDERS}: one more is refused before anything changes`, () => {
    const { world, b, tailEid } = rigOf();
    for (let i = 0; i < MAX_CHAIN_COLLIDERS; i++) addTailCollider(world, { char: b.charId, slot: b.slotOf[0]!, radius: 0.01, a: [i, 0, 0] });
    expect(() => addTailCollider(world, { char: b.charId, slot: b.slotOf[0]!, radius: 0.01 })).toThrow(/^bitrig\/tail: a tail chain collides with at most 16 colliders/);
    expect(world.queries.colliders.dense.length).toBe(MAX_CHAIN_COLLIDERS);
    // (a group the chain does not name is fine)
    addTailCollider(world, { char: b.charId, slot: b.slotOf[0]!, radius: 0.01, groups: 4 });
    expect(() => setTailOptions(world, tailEid, { colliderGroups: 7 })).toThrow(/^bitrig\/tail: a tail chain collides with at most 16/);
    expect(getTailOptions(world, tailEid).colliderGroups).toBe(3);
  });

  test('unbinding the character leaves its colliders inert; removing them still works', () => {
    const rig = rigOf();
    const c = addTailCollider(rig.world, { char: rig.b.charId, slot: rig.b.slotOf[0]!, radius: 0.1 });
    rig.frame(1 / 60);
    unbindSkeleton(rig.b);
    expect(rig.world.components.TailCollider.char[c]).toBe(-1);
    expect(() => setTailCollider(rig.world, c, { radius: 1 })).toThrow('bitrig/tail: setTailCollider: the collider\'s character was unbound');
    rig.world.components.TailCollider.shapeCur[c * 8 + 6] = 0.5; // (whatever was left there)
    update(rig.world, 1 / 60); // (the frame skips it)
    expect(rig.world.components.TailCollider.shapeCur[c * 8 + 6]).toBe(-1);
    removeTailCollider(rig.world, c);
    expect(rig.world.queries.colliders.dense.length).toBe(0);
  });
});
