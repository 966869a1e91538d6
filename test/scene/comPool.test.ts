/**
 * The world's centre-of-mass segment pool (`world.comSegments`): characters added and removed
 * leave holes; a growth compacts them away. Every surviving character's COM must stay exactly
 * what it was (tolerance: none — same segments, same order, same sums), and a removed
 * character's segments must not be read by anyone.
 */
import { describe, expect, test } from 'vitest';
import { createBitrigWorld } from '../../runtime/world';
import { computeCenterOfMass, removeSceneIK } from '../../core/sceneIK';
import { makeBiped, type BipedRig } from './rig';

describe('COM segment pool', () => {
  test('holes from removals, growth with compaction: surviving characters keep their COM bit for bit', () => {
    const world = createBitrigWorld({ entities: 8, bones: 32 });
    const rigs: BipedRig[] = [];
    // (characters are added without running frames: the pose stays put, so a COM can change
    // only through its segments)
    const add = (k: number): void => { rigs.push(makeBiped({ world, withTail: k % 2 === 0, twist: 0.1 * (k % 5) })); };
    for (let k = 0; k < 6; k++) add(k);
    for (let k = 0; k < 6; k++) { rigs[k]!.root[12] = k * 1.5; rigs[k]!.root[14] = -k; }
    rigs[0]!.frame(1 / 60, { feet: [1, 1] }); // one pipeline frame for the world (every character moves)
    const com = (r: BipedRig): number[] => { const o = new Float64Array(3); expect(computeCenterOfMass(world, r.ik.eid, o, 0)).toBe(true); return Array.from(o); };
    const before = rigs.map(com);
    const poolBefore = world.comSegments;
    // remove two in the middle (holes) and the last one (its space is reclaimed at once)
    const usedBefore = world.comSegmentsUsed;
    removeSceneIK(world, rigs[5]!.ik);
    expect(world.comSegmentsUsed).toBeLessThan(usedBefore);
    removeSceneIK(world, rigs[1]!.ik);
    removeSceneIK(world, rigs[3]!.ik);
    const survivors = [0, 2, 4];
    for (const i of survivors) expect(com(rigs[i]!)).toEqual(before[i]);
    // add until the pool grows: it compacts
    const n0 = rigs.length;
    while (world.comSegments === poolBefore || world.comSegments.length === poolBefore.length) add(rigs.length);
    expect(world.comSegments.length).toBeGreaterThan(poolBefore.length);
    for (const i of survivors) expect(com(rigs[i]!)).toEqual(before[i]);
    // after compaction nothing is left between the live blocks
    const SC = world.components.SceneCharacter;
    const live = [...survivors, ...Array.from({ length: rigs.length - n0 }, (_, j) => n0 + j)].map((i) => rigs[i]!.ik.eid);
    const total = live.reduce((s, e) => s + SC.segCount[e]!, 0);
    expect(world.comSegmentsUsed).toBe(total);
    // blocks do not overlap
    const blocks = live.map((e) => [SC.segStart[e]!, SC.segStart[e]! + SC.segCount[e]!] as const).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]![0]).toBeGreaterThanOrEqual(blocks[i - 1]![1]);
  });
});
