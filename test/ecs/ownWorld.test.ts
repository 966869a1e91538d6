/**
 * bitrig on the game's own bitECS world: a world made with bitecs' `createWorld()`, the game's
 * own component on 100 entities, bitrig attached, 50 built-in characters bound (engine-free),
 * 300 frames of their bodies swaying. The tails swing (each chain's first link turns at least
 * 3° from where it started and stays under 90°), the game's data is unchanged bit for bit,
 * bitECS's `query` finds bitrig's components and their relation to the character, and a view
 * of a component array kept before the frames reads the current values (the same array the
 * systems write, never replaced in a frame).
 */
import { linkEl } from '../../core/components/tail';
import { describe, expect, test } from 'vitest';
import { addComponent, addEntity, createWorld, query } from 'bitecs';
import { attachBitrig } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, endCharacterFrame, type CharacterBinding } from '../../core/binding';
import { tailLinkIndex } from '../../core/tailSetup';
import { update } from '../../systems/pipeline';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterSource } from '../helpers/characterSource';

const angle = (q: ArrayLike<number>, o: number, p: ArrayLike<number>): number => {
  const d = Math.abs(q[o]! * p[0]! + q[o + 1]! * p[1]! + q[o + 2]! * p[2]! + q[o + 3]! * p[3]!);
  return 2 * Math.acos(Math.min(1, d));
};

describe('bitrig on the game\'s own bitECS world', () => {
  test('100 game entities, 50 built-in characters, 300 frames: tails swing, game data unchanged, query finds bitrig\'s components, a kept view is current', () => {
    const world = createWorld();
    // the game's own component and entities, before bitrig is attached
    const Health = { hp: new Float32Array(1024), team: new Uint8Array(1024) };
    const mine: number[] = [];
    for (let i = 0; i < 100; i++) {
      const e = addEntity(world);
      addComponent(world, e, Health);
      Health.hp[e] = 10 + 1.5 * i; Health.team[e] = i % 3;
      mine.push(e);
    }
    const hpBefore = Health.hp.slice(), teamBefore = Health.team.slice();

    const bw = attachBitrig(world, { characters: 64, chains: 64, entities: 512 });
    expect(bw).toBe(world); // (the same object: the game's world)
    const src = characterSource(createBuiltinCharacter());
    const bindings: CharacterBinding[] = [];
    for (let i = 0; i < 50; i++) bindings.push(bindSkeleton(bw, src));
    for (const b of bindings) expect(b.tails.length).toBe(1);

    // query from the game's side: bitrig's components, and the relation tail → character
    const { TailChain, Character, PartOf, TailParticle } = bw.components;
    expect(query(world, [Health]).length).toBe(100);
    expect(query(world, [Character]).length).toBe(50);
    const tails = Array.from(query(world, [TailChain, PartOf]));
    expect(tails.length).toBe(50);
    for (const b of bindings) {
      expect(Character.pose[b.eid]).toBe(b.charId);
      expect(PartOf.character[b.tails[0]!.eid]).toBe(b.eid);
      expect(tails).toContain(b.tails[0]!.eid);
    }
    for (const e of mine) expect(query(world, [TailChain]).includes(e)).toBe(false);

    // views kept after setup, read during the frames
    const keptPos = TailParticle.pos, keptLocalR = bw.pose.localR;
    const first = bindings.map((b) => b.slotOf[b.tails[0]!.bones[0]!]!); // each chain's first link
    const start: Float64Array[] = [];
    const maxAngle = new Float64Array(50);
    const pose = bw.pose;
    for (let f = 0; f < 300; f++) {
      for (let i = 0; i < 50; i++) {
        const b = bindings[i]!;
        for (let j = 0; j < src.names.length; j++) {
          const s = b.slotOf[j]!, r = src.rest[j]!;
          for (let k = 0; k < 3; k++) { pose.localT[s * 3 + k] = r.t[k]!; pose.localS[s * 3 + k] = 1; }
          for (let k = 0; k < 4; k++) pose.localR[s * 4 + k] = r.r[k]!;
        }
        const m = b.charId * 16, W = pose.charRootWs;
        W.fill(0, m, m + 16); W[m] = 1; W[m + 5] = 1; W[m + 10] = 1; W[m + 15] = 1;
        W[m + 12] = (i % 10) * 3 + 0.4 * Math.sin(2 * Math.PI * 0.8 * (f / 60) + i); W[m + 14] = Math.floor(i / 10) * 3;
        beginCharacterFrame(b);
      }
      update(bw, 1 / 60);
      for (const b of bindings) endCharacterFrame(b);
      // the kept views are the arrays the systems wrote this frame
      expect(bw.components.TailParticle.pos).toBe(keptPos);
      expect(bw.pose.localR).toBe(keptLocalR);
      for (let i = 0; i < 50; i++) {
        const s = first[i]!;
        if (f === 0) start.push(keptLocalR.slice(s * 4, s * 4 + 4));
        else maxAngle[i] = Math.max(maxAngle[i]!, angle(keptLocalR, s * 4, start[i]!));
      }
    }
    // tails swing: every chain's first link turned ≥ 3° from frame 0, < 90°
    for (let i = 0; i < 50; i++) {
      expect(maxAngle[i], `character ${i}`).toBeGreaterThan((3 * Math.PI) / 180);
      expect(maxAngle[i], `character ${i}`).toBeLessThan(Math.PI / 2);
    }
    // the per-link accessor reads the tip particle of a chain through the kept view: finite, current
    const b0 = bindings[0]!, k = tailLinkIndex(bw, b0.tails[0]!.eid, b0.tails[0]!.bones.length - 1);
    expect(k).toBeGreaterThanOrEqual(0);
    const tip = [0, 1, 2].map((c) => keptPos[linkEl(k, 3, c)]!);
    expect(tip.every(Number.isFinite)).toBe(true);
    expect(tip).toEqual([0, 1, 2].map((c) => bw.components.TailParticle.pos[linkEl(k, 3, c)]!));
    // the game's data is unchanged, bit for bit
    expect(Buffer.from(Health.hp.buffer).equals(Buffer.from(hpBefore.buffer))).toBe(true);
    expect(Buffer.from(Health.team.buffer).equals(Buffer.from(teamBefore.buffer))).toBe(true);
  });
});
