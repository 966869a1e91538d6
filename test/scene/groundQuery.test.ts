/** FootLock's ground queries: which legs the game's callback is asked about, and what a bad foot does. */
import { describe, expect, test } from 'vitest';
import { mat4 } from 'gl-matrix';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame } from '../../core/binding';
import { setSceneInputs, type GroundQuery } from '../../core/sceneIK';
import { footLock } from '../../systems/footLock';
import { makeBiped, type BipedRig } from './rig';

const DT = 1 / 60;
function load(rig: BipedRig): void {
  const P = rig.world.pose;
  for (let i = 0; i < rig.names.length; i++) {
    const sl = rig.binding.slotOf[i]!, r = rig.rest[i]!;
    for (let j = 0; j < 3; j++) { P.localT[sl * 3 + j] = r.t[j]!; P.localS[sl * 3 + j] = 1; }
    for (let j = 0; j < 4; j++) P.localR[sl * 4 + j] = r.r[j]!;
  }
  for (let j = 0; j < 16; j++) P.charRootWs[rig.binding.charId * 16 + j] = rig.root[j]!;
  beginCharacterFrame(rig.binding);
}

describe('FootLock: ground callbacks', () => {
  test('each leg with a finite sole point is asked once, at that point; a huge but finite foot matrix (finite sole point, NaN foot rotation) is not asked, its leg released (weights 0), nothing non-finite written', () => {
    const world = createBitrigWorld();
    const rig = makeBiped({ world });
    const asked: number[][] = [];
    const g: GroundQuery = (p, out) => { asked.push([p[0]!, p[1]!, p[2]!]); out.height = 0; return true; };
    load(rig);
    setSceneInputs(world, rig.ik, { feet: [1, 1], ground: g });
    const L = world.components.Limb, F = world.components.FootContact, wm = world.pose.worldM;
    const [left, right] = rig.ik.legs.map((l) => l.eid) as [number, number];
    footLock(world, DT);
    // validity first: both legs asked, at their sole points (end bone world matrix × soleLs, 1e-12)
    expect(asked.length).toBe(2);
    for (const [k, e] of [left, right].entries()) {
      const wo = L.endSlot[e]! * 16, s = F.soleLs;
      for (let j = 0; j < 3; j++) expect(Math.abs(asked[k]![j]! - (wm[wo + j]! * s[e * 3]! + wm[wo + 4 + j]! * s[e * 3 + 1]! + wm[wo + 8 + j]! * s[e * 3 + 2]! + wm[wo + 12 + j]!))).toBeLessThan(1e-12);
      expect(L.weight[e]).toBe(1);
    }
    // left foot: x column unit, y column huge (the Gram-Schmidt dot product overflows), sole point at the ankle
    asked.length = 0;
    load(rig);
    const wo = L.endSlot[left]! * 16;
    wm[wo + 0] = 0.5; wm[wo + 1] = 0.5; wm[wo + 2] = Math.SQRT1_2;
    wm[wo + 4] = 1.5e308; wm[wo + 5] = 1.5e308; wm[wo + 6] = 1e308;
    wm[wo + 8] = 0; wm[wo + 9] = 0; wm[wo + 10] = 1;
    const sole = F.soleLs; sole[left * 3] = 0; sole[left * 3 + 1] = 0; sole[left * 3 + 2] = 0;
    footLock(world, DT);
    expect(asked.length).toBe(1);
    expect([L.weight[left], L.rotWeight[left], F.stanceEff[left]]).toEqual([0, 0, 0]);
    expect(L.weight[right]).toBe(1);
    for (const e of [left, right]) for (let j = 0; j < 3; j++) expect(Number.isNaN(L.targetWs[e * 3 + j]!)).toBe(false);
  });

  test('a throwing query counts as no ground and is kept in world.groundError; the leg still gets a finite request', () => {
    const world = createBitrigWorld();
    const rig = makeBiped({ world });
    load(rig);
    const boom = new Error('terrain not loaded');
    setSceneInputs(world, rig.ik, { feet: [1, 1], ground: () => { throw boom; } });
    expect(() => footLock(world, DT)).not.toThrow();
    expect(world.groundError.error).toBe(boom);
    const L = world.components.Limb, F = world.components.FootContact;
    for (const l of rig.ik.legs) {
      expect(F.hasGround[l.eid]).toBe(0);
      for (let j = 0; j < 3; j++) expect(Number.isFinite(L.targetWs[l.eid * 3 + j]!)).toBe(true);
    }
  });
});
