/**
 * A chain whose structure fields were overwritten with values outside the world's arrays
 * (`TailChain.slot` of a link or `endSlot` outside the pose store, `links` beyond MAX_LINKS,
 * `row` beyond the per-link arrays; bitrig's setup never writes such values, but the
 * components are public typed arrays): `update` never throws (the WebAssembly kernels used to
 * trap, "memory access out of bounds", every frame), the chain simulates and writes nothing
 * (its bones keep exactly what they had, no NaN anywhere), every other chain swings on, and
 * once the field is put back the chain starts again (every third chain rests on the clip's
 * pose, which JavaScript finishes preparing, and stays on).
 */
import { describe, expect, test } from 'vitest';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { tailLinkIndex } from '../../core/tailSetup';
import { tailStructureOk } from '../../core/tailKernel';
import { chainSource } from '../helpers/chainSource';

type Field = 'slot' | 'negative slot' | 'endSlot' | 'links' | 'row';
const FIELDS: Field[] = ['slot', 'negative slot', 'endSlot', 'links', 'row'];

/** Overwrite `field` of chain `eid` with a value outside the arrays; returns the undo. */
function breakField(world: BitrigWorld, eid: number, field: Field): () => void {
  const C = world.components.TailChain;
  const k = tailLinkIndex(world, eid, 2);
  const put = <T extends Int32Array | Uint8Array>(a: T, i: number, v: number): (() => void) => { const old = a[i]!; a[i] = v; return () => { a[i] = old; }; };
  switch (field) {
    case 'slot': return put(C.slot, k, 2_000_000_000);
    case 'negative slot': return put(C.slot, k, -7);
    case 'endSlot': return put(C.endSlot, eid, 1_500_000_000);
    case 'links': return put(C.links, eid, 200);
    case 'row': return put(C.row, eid, 1_000_000_000);
  }
}

const slotsOf = (b: CharacterBinding): number[] => Array.from({ length: b.boneCount }, (_, j) => b.slotOf[j]!);

function run(field: Field): void {
  const n = 4;
  const world = createBitrigWorld({ entities: n + 16, chains: n + 8, bones: n * 8 + 16, characters: n + 8 });
  {
    // (every third chain rests on the clip's pose: prepared by JavaScript)
    const bindings = Array.from({ length: n }, (_, k) => bindSkeleton(world, chainSource(6), k % 3 === 2 ? { tail: { restSource: 'animation' } } : {}));
    const C = world.components.TailChain, pose = world.pose;
    const brokenAt = [1]; // (chain 1 is broken)
    const brokenList = brokenAt.map((i) => bindings[i]!), brokenEids = brokenList.map((b) => b.tails[0]!.eid);
    const undo: (() => void)[] = [];
    let frozen: number[][] = [];
    let otherMoved = 0;
    const brokenMovedAfter = brokenAt.map(() => 0);
    for (let f = 0; f < 80; f++) {
      bindings.forEach((b, i) => {
        const o = b.slotOf[0]! * 3;
        pose.localT[o] = 0.3 * Math.sin(0.15 * f + i); pose.localT[o + 2] = 0.2 * Math.cos(0.1 * f + i);
        beginCharacterFrame(b);
      });
      if (f === 20) {
        for (const e of brokenEids) {
          expect(tailStructureOk(world, e)).toBe(true); // (validity first: the fixture is whole)
          undo.push(breakField(world, e, field));
          expect(tailStructureOk(world, e)).toBe(false);
        }
        frozen = brokenList.map((b) => slotsOf(b).flatMap((s) => Array.from(pose.localR.subarray(s * 4, s * 4 + 4))));
      }
      if (f === 50) {
        for (const u of undo) u();
        undo.length = 0;
        for (const e of brokenEids) expect(tailStructureOk(world, e)).toBe(true);
      }
      const tip = (b: CharacterBinding): number[] => Array.from(pose.worldM.subarray(b.slotOf[6]! * 16 + 12, b.slotOf[6]! * 16 + 15));
      const t0 = tip(bindings[0]!), tb0 = brokenList.map(tip);
      expect(() => update(world, 1 / 60), `frame ${f}`).not.toThrow();
      const t1 = tip(bindings[0]!), tb1 = brokenList.map(tip);
      if (f > 20) otherMoved = Math.max(otherMoved, Math.hypot(t1[0]! - t0[0]!, t1[1]! - t0[1]!, t1[2]! - t0[2]!));
      if (f > 55) brokenAt.forEach((_, j) => { brokenMovedAfter[j] = Math.max(brokenMovedAfter[j]!, Math.hypot(tb1[j]![0]! - tb0[j]![0]!, tb1[j]![1]! - tb0[j]![1]!, tb1[j]![2]! - tb0[j]![2]!)); });
      for (let i = 0; i < pose.localR.length; i++) if (!Number.isFinite(pose.localR[i]!)) throw new Error(`frame ${f}: localR[${i}] is ${pose.localR[i]}`);
      for (let i = 0; i < pose.worldM.length; i++) if (!Number.isFinite(pose.worldM[i]!)) throw new Error(`frame ${f}: worldM[${i}] is ${pose.worldM[i]}`);
      if (f >= 20 && f < 50) {
        brokenList.forEach((b, j) => {
          // exact: the broken chain wrote nothing onto any of its character's bones
          const got = slotsOf(b).flatMap((s) => Array.from(pose.localR.subarray(s * 4, s * 4 + 4)));
          expect(got, `frame ${f}: broken chain ${brokenAt[j]}'s bones`).toEqual(frozen[j]);
          expect(C.initialised[brokenEids[j]!], `frame ${f}`).toBe(0);
          // (from the next frame's preparation on: on the WebAssembly backend the write finds it)
          if (f > 20) expect(C.stepsLastFrame[brokenEids[j]!], `frame ${f}`).toBe(0);
        });
      }
      // every other chain stays on, whichever backend prepared and wrote it
      if (f >= 1) bindings.forEach((b, i) => { if (!brokenAt.includes(i)) expect(C.initialised[b.tails[0]!.eid], `frame ${f}: chain ${i}`).toBe(1); });
    }
    // the others swung on meanwhile (tip > 1 mm in a frame), and the broken chain swings again once repaired
    expect(otherMoved).toBeGreaterThan(1e-3);
    for (const m of brokenMovedAfter) expect(m).toBeGreaterThan(1e-3);
    for (const e of brokenEids) expect(C.initialised[e]).toBe(1);
  }
}

describe.each(FIELDS)('a tail chain whose %s points outside the world\'s arrays', (field) => {
  test('no throw, nothing written for it, the others swing, it restarts when repaired', () => {
    run(field);
  });
});
