/**
 * An animator whose character's pose slots were released under it (`poseRemoveCharacter`
 * instead of `dispose()`): the slots, and often the id, go to the next character bound, so the
 * animator must neither read its bones into them nor write them out to its own bones.
 */
import { describe, expect, test } from 'vitest';
import { AnimationMixer } from 'three';
import { createAnimator, characterToThree } from '../../adapters/three';
import { createBuiltinCharacter } from '../../core/character';
import { bindSkeleton } from '../../core/binding';
import { poseRemoveCharacter } from '../../core/pose';
import { chainSource } from '../helpers/chainSource';

describe('a character released under its animator', () => {
  test('the next character on its slots keeps every local value bit for bit; the animator\'s bones are left as they are; said once in problems', () => {
    const data = createBuiltinCharacter({ variant: 'chain' });
    const t = characterToThree(data);
    const mixer = new AnimationMixer(t.root);
    mixer.clipAction(t.clips.find((c) => c.name === 'walk')!).play();
    const animator = createAnimator(t.root, { mixer, sceneIK: true });
    for (let f = 0; f < 10; f++) animator.update(1 / 60);
    const world = animator.world;
    const old = animator.bindings[0]!;
    poseRemoveCharacter(world.pose, old.charId);
    // the newcomer: no tails, so nothing of the world writes its locals; distinctive values
    const next = bindSkeleton(world, chainSource(8), { tailChains: [] });
    expect(next.charId).toBe(old.charId); // (the id is reused: the case the test is about)
    const pose = world.pose;
    const slots = Array.from(next.slotOf);
    expect(slots.some((s) => old.slotOf.includes(s))).toBe(true);
    slots.forEach((s, j) => {
      pose.localR.set([0.1 * j, 0.2, 0.3, 0.9], s * 4);
      pose.localT.set([j, 2 * j, 3 * j], s * 3);
    });
    const before = slots.map((s) => [...pose.localR.subarray(s * 4, s * 4 + 4), ...pose.localT.subarray(s * 3, s * 3 + 3)]);
    // the walk clip does not key the tail: its bones show what bitrig last wrote, and keep it
    const tail = t.skeleton.bones.filter((b) => /^Tail_\d+$/.test(b.name));
    expect(tail.length).toBe(6);
    const tailBefore = tail.map((b) => b.quaternion.toArray());
    for (let f = 0; f < 5; f++) animator.update(1 / 60);
    expect(slots.map((s) => [...pose.localR.subarray(s * 4, s * 4 + 4), ...pose.localT.subarray(s * 3, s * 3 + 3)])).toEqual(before);
    expect(tail.map((b) => b.quaternion.toArray())).toEqual(tailBefore);
    expect(old.problems.filter((p) => p.includes('poseRemoveCharacter')).length).toBe(1);
    expect(() => animator.dispose()).not.toThrow();
    expect(next.alive).toBe(true);
    for (let j = 0; j < slots.length; j++) expect(pose.owner[slots[j]!]).toBe(next.charId);
  });
});
