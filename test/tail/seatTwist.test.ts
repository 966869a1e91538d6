/**
 * A re-seat along the shown pose keeps each link's shown twist (systems/tailClock.ts
 * `seatChainAtLocal`, `BendState.seatTwist`), then eases it out with `seatEase`.
 *
 * The readback rule puts the rest's twist on every link (swing from the rest direction ·
 * rest). When the rest source switches, the new rest's twist differs from the shown one; put at
 * once, it kept each bone's direction in its parent's frame but turned the parent frames, so
 * the chain changed shape in one frame. Rig: a hip sweep bends the tail sideways on the
 * 'animation' rest (the rig's bind locals), then the rest switches to 'bind' (carry and rest
 * arc) with the hips held still. Checked on both backends, under plain, rotated and centimetre
 * hips:
 * - the switch frame shows the joints where the frame before showed them (1e-9 of the tail
 *   length; before: 3.6 / 3.4 / 3.6 cm per 80 cm of tail);
 * - once the ease is over, `restR` is bit for bit the rest a twin that never switched has,
 *   also when the options change or the chain resets (teleport) while the ease runs, and when
 *   the chain is re-seated again mid-ease.
 */
import { describe, expect, test } from 'vitest';
import { makeTailRig, sweepX, type TailRig, type TailRigOptions } from './rig';
import { reseatTailsAtPose } from '../../core/animatorCore';
import { resolveTailRestSource } from '../../core/binding';
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
  for (let i = 0; i < LINKS; i++) { const k = tailLinkIndex(r.world, r.eid, i) * 4; for (let c = 0; c < 4; c++) out.push(B.restR[k + c]!); }
  return out;
}

/** Largest joint distance between two joint lists. */
function maxMove(a: number[][], b: number[][]): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.hypot(a[i]![0]! - b[i]![0]!, a[i]![1]! - b[i]![1]!, a[i]![2]! - b[i]![2]!));
  return m;
}

describe.each([['wasm', true], ['js', false]] as const)('the shown twist survives a rest-source switch (%s backend)', (_b, wasm) => {
  /** A rig swung sideways on the animation rest, hips then held at `last`. */
  function swung(o: TailRigOptions, hipsRot: number[]): { r: TailRig; last: number[] } {
    const us = o.unitScale ?? 1;
    const r = makeTailRig({ ...o, links: LINKS, world: { wasm }, tail: { restSource: 'auto', ...o.tail } });
    resolveTailRestSource(r.binding, 0, true); // the clip keys the tail: 'animation'
    const hips = (x: number): number[] => [x * us, 0.9 * us, 0];
    for (let f = 0; f <= 24; f++) r.frame(1 / 60, hips(sweepX(f / 60)), hipsRot);
    return { r, last: hips(sweepX(24 / 60)) };
  }

  test.each(cases)('$name: the switch frame shows the joints of the frame before (1e-9 of the length); after the ease, restR is the never-switched rest bit for bit', ({ o, hipsRot }) => {
    const us = o.unitScale ?? 1;
    const { r, last } = swung(o, hipsRot);
    expect(Math.max(...r.linkAngles()) * 180 / Math.PI).toBeGreaterThan(5); // bent (the test means something)
    const before = r.joints();
    resolveTailRestSource(r.binding, 0, false); // that clip stops: 'bind', re-seated along the shown pose
    r.frame(1 / 60, last, hipsRot);
    expect(r.world.components.TailChain.seatEase[r.eid]).toBe(1);
    expect(maxMove(before, r.joints())).toBeLessThan(1e-9 * 0.8 * us);
    for (let f = 0; f < 120; f++) r.frame(1 / 60, last, hipsRot);
    expect(r.world.components.TailChain.seatEase[r.eid]).toBe(0);
    const twin = makeTailRig({ ...o, links: LINKS, world: { wasm } });
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
    const twin = makeTailRig({ links: LINKS, world: { wasm }, tail: { carry: 0.2, restCurve: 0.3 } });
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
    expect(restOf(r)).toEqual(restOf(makeTailRig({ links: LINKS, world: { wasm } })));
  });

  test('re-seated again while the twist eases out (hips held): the joints stay (1e-9 of the length), and restR ends as the never-switched rest', () => {
    const { r, last } = swung({}, [0, 0, 0, 1]);
    resolveTailRestSource(r.binding, 0, false);
    for (let f = 0; f < 5; f++) r.frame(1 / 60, last);
    const before = r.joints();
    reseatTailsAtPose(r.binding, shownByBone(r));
    r.frame(1 / 60, last);
    expect(maxMove(before, r.joints())).toBeLessThan(1e-9 * 0.8);
    for (let f = 0; f < 120; f++) r.frame(1 / 60, last);
    expect(restOf(r)).toEqual(restOf(makeTailRig({ links: LINKS, world: { wasm } })));
  });
});
