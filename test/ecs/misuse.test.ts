/**
 * Misuse of the world API is a clear `bitrig…: ` error at setup and a no-op in the frame, never
 * a TypeError: a world bitrig is not attached to, a world attached twice, a property bitrig
 * would overwrite, a removed tail chain or scene IK handle.
 */
import { describe, expect, test } from 'vitest';
import { createWorld } from 'bitecs';
import { attachBitrig, createBitrigWorld } from '../../runtime/world';
import { bindSkeleton, beginCharacterFrame, endCharacterFrame, unbindSkeleton } from '../../core/binding';
import { addSupport, addSceneIK, removeSceneIK, setSceneInputs, setSupportFrame } from '../../core/sceneIK';
import { getTailOptions, removeTailChain, setTailOptions, tailLinkIndex } from '../../core/tailSetup';
import { update } from '../../systems/pipeline';
import { chainSource } from '../helpers/chainSource';
import { makeBiped } from '../scene/rig';
import type { BitrigWorld } from '../../core/world';

describe('a world bitrig is not attached to', () => {
  test('setup calls throw a bitrig error naming the fix; update and the frame calls do nothing', () => {
    const plain = createWorld() as unknown as BitrigWorld;
    expect(() => bindSkeleton(plain, chainSource(6))).toThrow(/^bitrig\/bind: expected a bitrig world, got a world bitrig is not attached to; call attachBitrig\(world\)/);
    expect(() => addSupport(plain)).toThrow(/^bitrig\/sceneIK: expected a bitrig world/);
    expect(() => setTailOptions(plain, 1, {})).toThrow(/^bitrig\/tail: expected a bitrig world/);
    expect(() => bindSkeleton(null as unknown as BitrigWorld, chainSource(6))).toThrow(/^bitrig\/bind: expected a bitrig world, got null/);
    expect(() => update(plain, 1 / 60)).not.toThrow();
    expect(() => update(undefined as unknown as BitrigWorld, 1 / 60)).not.toThrow();
    expect(() => setSupportFrame(plain, 1, new Float64Array(16))).not.toThrow();
    expect(tailLinkIndex(plain, 1, 0)).toBe(-1);
  });
  test('attaching twice, or onto a world with a property bitrig would overwrite, or onto a non-world, is refused', () => {
    const w = createWorld();
    attachBitrig(w);
    expect(() => attachBitrig(w)).toThrow('bitrig/world: this world already has bitrig attached');
    const taken = createWorld({ pose: 'mine' });
    expect(() => attachBitrig(taken)).toThrow('bitrig/world: the world already has a property "pose" that bitrig would overwrite');
    expect(() => attachBitrig({})).toThrow('bitrig/world: expected a bitECS 0.4 world (createWorld() from bitecs)');
    expect(() => attachBitrig(5 as unknown as object)).toThrow('bitrig/world: expected a bitECS world (createWorld() from bitecs), got 5');
  });
});

describe('removed ids', () => {
  test('a removed tail chain: setup calls throw naming it; the accessor gives −1; per-frame calls do nothing', () => {
    const world = createBitrigWorld();
    const b = bindSkeleton(world, chainSource(6));
    const eid = b.tails[0]!.eid;
    expect(getTailOptions(world, eid).frequency).toBeGreaterThan(0); // (validity first: a live chain)
    expect(tailLinkIndex(world, eid, 0)).toBeGreaterThanOrEqual(0);
    removeTailChain(world, eid);
    expect(() => setTailOptions(world, eid, { frequency: 1 })).toThrow(`bitrig/tail: setTailOptions: ${eid} is not a tail chain of this world (removed, or never added)`);
    expect(() => getTailOptions(world, eid)).toThrow(/^bitrig\/tail: getTailOptions: /);
    expect(() => removeTailChain(world, eid)).toThrow(/^bitrig\/tail: removeTailChain: /);
    expect(tailLinkIndex(world, eid, 0)).toBe(-1);
    expect(() => update(world, 1 / 60)).not.toThrow();
  });
  test('an unbound character and a removed scene IK handle: frame calls do nothing', () => {
    const world = createBitrigWorld();
    const rig = makeBiped({ world });
    removeSceneIK(world, rig.ik);
    expect(() => setSceneInputs(world, rig.ik, { feet: [1, 1] })).not.toThrow();
    expect(() => removeSceneIK(world, rig.ik)).not.toThrow(); // (twice: a no-op)
    expect(() => setSceneInputs(world, null as never, { feet: [1, 1] })).not.toThrow();
    unbindSkeleton(rig.binding);
    expect(() => beginCharacterFrame(rig.binding)).not.toThrow();
    expect(() => endCharacterFrame(rig.binding)).not.toThrow();
    expect(() => update(world, 1 / 60)).not.toThrow();
    expect(() => addSceneIK(world, rig.binding)).toThrow(/^bitrig\/sceneIK: the binding is not alive in this world/);
  });
});
