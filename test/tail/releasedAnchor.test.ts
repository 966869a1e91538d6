/**
 * A chain whose anchor bone is no longer its character's: the character's pose slots released
 * under a live chain (`poseRemoveCharacter` without `unbindSkeleton`; core/world.ts
 * stopCharacterSystems cuts the chain loose) and handed to a new character with the same id, or
 * an anchor slot outside the pose store (wasm/tailStep.ts `anchorOwned`, the preparation's
 * first test). The chain simulates and writes
 * nothing from that frame on: the new owner's bones keep exactly what its own code writes, no
 * read or write leaves the pose store, no NaN reaches a bone, and every other chain runs on.
 * On the JavaScript step and on the WebAssembly one.
 */
import { describe, expect, test } from 'vitest';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, unbindSkeleton, type CharacterBinding } from '../../core/binding';
import { poseRemoveCharacter } from '../../core/pose';
import { update } from '../../systems/pipeline';
import { chainSource } from '../helpers/chainSource';

function slotsOf(b: CharacterBinding): number[] { return Array.from({ length: b.boneCount }, (_, j) => b.slotOf[j]!); }

describe('tail chains whose anchor is not their character\'s', () => {
  test('released and reused slots, and an anchor slot outside the store: nothing written there, no NaN, the other chains swing on', () => {
    const world = createBitrigWorld();
    const bindings = [6, 6, 6, 6].map((n) => bindSkeleton(world, chainSource(n)));
    const C = world.components.TailChain, pose = world.pose;
    const eidOf = (b: CharacterBinding): number => b.tails[0]!.eid;
    let newcomer: CharacterBinding | null = null;
    const newcomerR: number[] = [];
    const frozen = new Map<number, number[]>(); // chain 3's link slots → their local R when its anchor went out
    let tipMoved = 0;
    for (let f = 0; f < 90; f++) {
      bindings.forEach((b, i) => {
        if (!b.alive || (f >= 30 && i === 1)) return; // (chain 1's character is gone from the pose store)
        const o = b.slotOf[0]! * 3;
        pose.localT[o] = 0.3 * Math.sin(0.15 * f + i); pose.localT[o + 2] = 0.2 * Math.cos(0.1 * f);
        beginCharacterFrame(b);
      });
      if (f === 30) {
        // Character 1's slots go back to the store while its chain lives, and a new character
        // (no tail: a plain two-bone skeleton) takes them.
        const old = slotsOf(bindings[1]!);
        poseRemoveCharacter(pose, bindings[1]!.charId);
        newcomer = bindSkeleton(world, { names: ['Root', 'Arm', 'Hand', 'A', 'B', 'C', 'D', 'E'], parents: [-1, 0, 1, 2, 3, 4, 5, 6],
          rest: Array.from({ length: 8 }, (_, j) => ({ t: [0, 0.1 * j, 0], r: [0, 0, 0, 1], s: [1, 1, 1] })) });
        // (validity first: the newcomer sits on the released slots, the stale chain's old anchor
        // among them, and has the released character id too)
        expect(slotsOf(newcomer)).toContain(old[0]);
        expect(newcomer.charId).toBe(bindings[1]!.charId);
        // the world cut the stale chain loose (no character, no anchor)
        expect(C.char[eidOf(bindings[1]!)]).toBe(-1);
        expect(C.anchorSlot[eidOf(bindings[1]!)]).toBe(-1);
        // chain 3's anchor slot goes outside the store
        C.anchorSlot[eidOf(bindings[3]!)] = pose.capacity + 1_000_000;
        for (const s of slotsOf(bindings[3]!).slice(1, 7)) frozen.set(s, Array.from(pose.localR.subarray(s * 4, s * 4 + 4)));
      }
      if (newcomer !== null) {
        // the newcomer's own pose this frame: the only thing on its bones
        newcomerR.length = 0;
        for (let j = 0; j < newcomer.boneCount; j++) {
          const q = [0, Math.sin(0.01 * (f + j)), 0, Math.cos(0.01 * (f + j))];
          pose.localR.set(q, newcomer.slotOf[j]! * 4);
          newcomerR.push(...q);
        }
        beginCharacterFrame(newcomer);
      }
      const tip0 = Array.from(pose.worldM.subarray(bindings[0]!.slotOf[6]! * 16 + 12, bindings[0]!.slotOf[6]! * 16 + 15));
      update(world, 1 / 60);
      const tip1 = pose.worldM.subarray(bindings[0]!.slotOf[6]! * 16 + 12, bindings[0]!.slotOf[6]! * 16 + 15);
      if (f > 30) tipMoved = Math.max(tipMoved, Math.hypot(tip1[0]! - tip0[0]!, tip1[1]! - tip0[1]!, tip1[2]! - tip0[2]!));
      for (let i = 0; i < pose.localR.length; i++) if (!Number.isFinite(pose.localR[i]!)) throw new Error(`frame ${f}: localR[${i}] is ${pose.localR[i]}`);
      for (let i = 0; i < pose.worldM.length; i++) if (!Number.isFinite(pose.worldM[i]!)) throw new Error(`frame ${f}: worldM[${i}] is ${pose.worldM[i]}`);
      if (newcomer !== null) {
        // exact: the stale chain wrote nothing onto the newcomer's bones
        const got: number[] = [];
        for (let j = 0; j < newcomer.boneCount; j++) got.push(...pose.localR.subarray(newcomer.slotOf[j]! * 4, newcomer.slotOf[j]! * 4 + 4));
        expect(got, `frame ${f}: the newcomer's local rotations`).toEqual(newcomerR);
        expect(C.initialised[eidOf(bindings[1]!)], `frame ${f}`).toBe(0);
        expect(C.initialised[eidOf(bindings[3]!)], `frame ${f}`).toBe(0);
        for (const [s, r] of frozen) expect(Array.from(pose.localR.subarray(s * 4, s * 4 + 4)), `frame ${f}: chain 3's slot ${s}`).toEqual(r);
      }
    }
    // the chains left alone still swing: chain 0's tip moved more than 1 mm in a frame after the changes
    expect(tipMoved).toBeGreaterThan(1e-3);
    expect(C.initialised[eidOf(bindings[0]!)]).toBe(1);
    expect(C.initialised[eidOf(bindings[2]!)]).toBe(1);
    // the stale binding still unbinds (its chain entity released once, the newcomer untouched)
    const chainsBefore = world.queries.tails.dense.length;
    unbindSkeleton(bindings[1]!);
    expect(world.queries.tails.dense.length).toBe(chainsBefore - 1);
    expect(newcomer!.alive).toBe(true);
    expect(pose.charStart[newcomer!.charId]).toBeGreaterThanOrEqual(0);
  });
});
