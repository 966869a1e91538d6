/**
 * A re-seat along the shown pose keeps each link's shown twist (systems/tailClock.ts
 * `seatChainAtLocal`, `BendState.seatTwist`), then eases it out with `seatEase`.
 *
 * The readback rule puts the rest's twist on every link (swing from the rest direction ·
 * rest). When the rest source switches, the new rest's twist differs from the shown one; put at
 * once, it kept each bone's direction in its parent's frame but turned the parent frames, so
 * the chain changed shape in one frame. Rig: a hip sweep bends the tail sideways on the
 * 'animation' rest (the rig's bind locals), then the rest switches to 'bind' (carry and rest
 * arc) with the hips held still. Checked under plain, rotated and centimetre
 * hips:
 * - the switch frame shows the joints where the frame before showed them (2e-7 of the tail
 *   length; before: 3.6 / 3.4 / 3.6 cm per 80 cm of tail);
 * - once the ease is over, `restR` is bit for bit the rest a twin that never switched has,
 *   also when the options change or the chain resets (teleport) while the ease runs, and when
 *   the chain is re-seated again mid-ease.
 * A zero-length link (its child joint on its head: no direction of its own) keeps its whole
 * shown rotation the same way (`seatAxis`): the clip turns it 40° from its bind rotation on the
 * 'animation' rest, the rest switches to 'bind'; the switch frame keeps the joints (1e-7 of the
 * tail length; before: 0, 0, 0, 0, 10.96, 21.51 cm per 80 cm of tail, the seat put the link on
 * its rest rotation and turned everything after it), and the ease ends on the never-switched
 * rest bit for bit.
 */
import { linkEl } from '../../core/components/tail';
import { describe, expect, test } from 'vitest';
import { makeTailRig, sweepX, type TailRig, type TailRigOptions } from './rig';
import { reseatTailsAtPose } from '../../adapters/animatorCore';
import { beginCharacterFrame, endCharacterFrame, resolveTailRestSource } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { setTailOptions, tailLinkIndex } from '../../core/tailSetup';

const LINKS = 5;
const cases: { name: string; o: TailRigOptions; hipsRot: [number, number, number, number] }[] = [
  { name: 'plain', o: {}, hipsRot: [0, 0, 0, 1] },
  { name: 'rotated hips', o: {}, hipsRot: [0.2, 0.5, -0.1, 0.84] },
  { name: 'centimetre rig', o: { unitScale: 100 }, hipsRot: [0, 0.38, 0, 0.92] },
];

/** Local rotations of every bone of a rig, by bone index (as an animator's written rotations). */
function shownByBone(r: TailRig): Float64Array {
  const out = new Float64Array(r.names.length * 4);
  for (let j = 0; j < r.names.length; j++) for (let c = 0; c < 4; c++) out[j * 4 + c] = r.world.pose.localR[r.binding.slotOf[j]! * 4 + c]!;
  return out;
}

/** A chain's rest rotations (4 per link). */
function restOf(r: TailRig): number[] {
  const B = r.world.components.BendState;
  const out: number[] = [];
  for (let i = 0; i < LINKS; i++) { const k = tailLinkIndex(r.world, r.eid, i); for (let c = 0; c < 4; c++) out.push(B.restR[linkEl(k, 4, c)]!); }
  return out;
}

/** Largest joint distance between two joint lists. */
function maxMove(a: number[][], b: number[][]): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.hypot(a[i]![0]! - b[i]![0]!, a[i]![1]! - b[i]![1]!, a[i]![2]! - b[i]![2]!));
  return m;
}

describe('the shown twist survives a rest-source switch', () => {
  /** A rig swung sideways on the animation rest, hips then held at `last`. */
  function swung(o: TailRigOptions, hipsRot: number[]): { r: TailRig; last: number[] } {
    const us = o.unitScale ?? 1;
    const r = makeTailRig({ ...o, links: LINKS, world: {}, tail: { restSource: 'auto', ...o.tail } });
    resolveTailRestSource(r.binding, 0, true); // the clip keys the tail: 'animation'
    const hips = (x: number): number[] => [x * us, 0.9 * us, 0];
    for (let f = 0; f <= 24; f++) r.frame(1 / 60, hips(sweepX(f / 60)), hipsRot);
    return { r, last: hips(sweepX(24 / 60)) };
  }

  test.each(cases)('$name: the switch frame shows the joints of the frame before (2e-7 of the length: float32 components); after the ease, restR is the never-switched rest bit for bit', ({ o, hipsRot }) => {
    const us = o.unitScale ?? 1;
    const { r, last } = swung(o, hipsRot);
    expect(Math.max(...r.linkAngles()) * 180 / Math.PI).toBeGreaterThan(5); // bent (the test means something)
    const before = r.joints();
    resolveTailRestSource(r.binding, 0, false); // that clip stops: 'bind', re-seated along the shown pose
    r.frame(1 / 60, last, hipsRot);
    expect(r.world.components.TailChain.seatEase[r.eid]).toBe(1);
    expect(maxMove(before, r.joints())).toBeLessThan(2e-7 * 0.8 * us);
    for (let f = 0; f < 120; f++) r.frame(1 / 60, last, hipsRot);
    expect(r.world.components.TailChain.seatEase[r.eid]).toBe(0);
    const twin = makeTailRig({ ...o, links: LINKS, world: {} });
    expect(restOf(r)).toEqual(restOf(twin));
    for (const v of r.joints().flat()) expect(Number.isFinite(v)).toBe(true);
  });

  test('options changed while the twist eases out: restR ends bit for bit as a twin built with those options', () => {
    const { r, last } = swung({}, [0, 0, 0, 1]);
    resolveTailRestSource(r.binding, 0, false);
    for (let f = 0; f < 5; f++) r.frame(1 / 60, last);
    setTailOptions(r.world, r.eid, { carry: 0.2, restCurve: 0.3 });
    for (let f = 0; f < 120; f++) r.frame(1 / 60, last);
    expect(r.world.components.TailChain.seatEase[r.eid]).toBe(0);
    const twin = makeTailRig({ links: LINKS, world: {}, tail: { carry: 0.2, restCurve: 0.3 } });
    expect(restOf(r)).toEqual(restOf(twin));
  });

  test('a reset (teleport) while the twist eases out: restR is the never-switched rest at once, bit for bit', () => {
    const { r, last } = swung({}, [0, 0, 0, 1]);
    resolveTailRestSource(r.binding, 0, false);
    for (let f = 0; f < 5; f++) r.frame(1 / 60, last);
    expect(r.world.components.TailChain.seatEase[r.eid]).toBeGreaterThan(0.4);
    r.frame(1 / 60, [last[0]! + 10, last[1]!, last[2]!]);
    expect(r.world.components.TailChain.resetLastFrame[r.eid]).toBe(1);
    expect(r.world.components.TailChain.seatEase[r.eid]).toBe(0);
    expect(restOf(r)).toEqual(restOf(makeTailRig({ links: LINKS, world: {} })));
  });

  test('re-seated again while the twist eases out (hips held): the joints stay (2e-7 of the length), and restR ends as the never-switched rest', () => {
    const { r, last } = swung({}, [0, 0, 0, 1]);
    resolveTailRestSource(r.binding, 0, false);
    for (let f = 0; f < 5; f++) r.frame(1 / 60, last);
    const before = r.joints();
    reseatTailsAtPose(r.binding, shownByBone(r));
    r.frame(1 / 60, last);
    expect(maxMove(before, r.joints())).toBeLessThan(2e-7 * 0.8);
    for (let f = 0; f < 120; f++) r.frame(1 / 60, last);
    expect(restOf(r)).toEqual(restOf(makeTailRig({ links: LINKS, world: {} })));
  });

  test.each(cases)('$name: a zero-length link the clip turns 40° keeps its shown rotation through the switch (joints 2e-7 of the length); the ease ends on the never-switched rest bit for bit', ({ o, hipsRot }) => {
    const us = o.unitScale ?? 1;
    const r = makeTailRig({ ...o, links: LINKS, zeroLinkAt: 2, world: {}, tail: { restSource: 'auto', ...o.tail } });
    const pose = r.world.pose;
    const k2 = tailLinkIndex(r.world, r.eid, 2);
    const C = r.world.components.TailChain, B = r.world.components.BendState;
    expect(B.lenRel[k2]).toBe(0); // (the link the test is about has no length)
    const s2 = C.slot[k2]!;
    const hipsSlot = r.binding.slotOf[0]!;
    // the clip: every bone at its bind local, link 2 turned 40° about its parent's x axis, hips at x
    const h = 20 * Math.PI / 180, qx = Math.sin(h), qw = Math.cos(h);
    const frame = (x: number): void => {
      for (let i = 0; i < r.names.length; i++) {
        const s = r.binding.slotOf[i]!;
        for (let j = 0; j < 3; j++) { pose.localT[s * 3 + j] = pose.bindT[s * 3 + j]!; pose.localS[s * 3 + j] = 1; }
        for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = pose.bindR[s * 4 + j]!;
      }
      const b = [pose.bindR[s2 * 4]!, pose.bindR[s2 * 4 + 1]!, pose.bindR[s2 * 4 + 2]!, pose.bindR[s2 * 4 + 3]!];
      pose.localR[s2 * 4] = qw * b[0]! + qx * b[3]!;
      pose.localR[s2 * 4 + 1] = qw * b[1]! - qx * b[2]!;
      pose.localR[s2 * 4 + 2] = qw * b[2]! + qx * b[1]!;
      pose.localR[s2 * 4 + 3] = qw * b[3]! - qx * b[0]!;
      pose.localT[hipsSlot * 3] = x * us; pose.localT[hipsSlot * 3 + 1] = 0.9 * us; pose.localT[hipsSlot * 3 + 2] = 0;
      for (let j = 0; j < 4; j++) pose.localR[hipsSlot * 4 + j] = hipsRot[j]!;
      beginCharacterFrame(r.binding);
      update(r.world, 1 / 60);
      endCharacterFrame(r.binding); // (what was shown: the switch re-seats along it)
    };
    resolveTailRestSource(r.binding, 0, true); // the clip keys the tail: 'animation'
    for (let f = 0; f <= 24; f++) frame(sweepX(f / 60));
    // link 2 is shown 40° from its bind rotation (the test means something)
    let d = 0;
    for (let j = 0; j < 4; j++) d += pose.localR[s2 * 4 + j]! * pose.bindR[s2 * 4 + j]!;
    expect(2 * Math.acos(Math.min(1, Math.abs(d))) * 180 / Math.PI).toBeCloseTo(40, 4); // (0.5e-4°: acos of a dot product)
    const before = r.joints();
    resolveTailRestSource(r.binding, 0, false); // that clip stops: 'bind', re-seated along the shown pose
    frame(sweepX(24 / 60));
    expect(C.seatEase[r.eid]).toBe(1);
    expect(maxMove(before, r.joints())).toBeLessThan(2e-7 * 0.8 * us);
    expect(B.seatTwist[k2]! * 180 / Math.PI).toBeCloseTo(40, 4); // link 2's whole offset, carried by its rest (0.5e-4°: the float32 step shows it to ~1e-6°)
    for (let f = 0; f < 120; f++) frame(sweepX(24 / 60));
    expect(C.seatEase[r.eid]).toBe(0);
    expect(restOf(r)).toEqual(restOf(makeTailRig({ ...o, links: LINKS, zeroLinkAt: 2, world: {} })));
    expect(r.linkAngles()[2]!).toBeLessThan(1e-7); // link 2 shown on its rest again (1e-7 rad: acos of a dot product resolves 3e-8)
    for (const v of r.joints().flat()) expect(Number.isFinite(v)).toBe(true);
  });
});
