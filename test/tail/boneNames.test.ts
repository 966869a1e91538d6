/**
 * Tail chains by name (core/boneMap.ts): every naming style the runtime must find, including
 * the names the rig pass gives a second grown chain (`Tail2_1…`), which the runtime and the
 * bake used to ignore (review 23).
 */
import { describe, expect, test } from 'vitest';
import { findTailChains, isTailName } from '../../core/boneMap';
import { createBitrigWorld } from '../../runtime/world';
import { bindSkeleton } from '../../core/binding';

describe('tail bone names', () => {
  test('tail names in every style are tails; look-alikes are not', () => {
    for (const n of ['Tail_1', 'Tail1', 'tail_end', 'TailBase', 'b_Tail01_013', 'mixamorig:Tail1', 'mixamorigTail1', 'Tail.L', 'Tail2_1', 'Tail2_End', 'Tail3_4']) expect(isTailName(n), n).toBe(true);
    for (const n of ['Tailor', 'DetailBone', 'Hips', 'Spine2', 'LeftFoot', 'Cocktail']) expect(isTailName(n), n).toBe(false);
  });

  test('two grown chains under one pelvis (Tail_1… and Tail2_1…, each with its end helper) are two chains, and a bound character drives both', () => {
    const names = ['Hips', 'Tail_1', 'Tail_2', 'Tail_End', 'Tail2_1', 'Tail2_2', 'Tail2_End'];
    const parents = [-1, 0, 1, 2, 0, 4, 5];
    expect(findTailChains({ names, parents })).toEqual([{ bones: [1, 2], end: 3, parent: 0 }, { bones: [4, 5], end: 6, parent: 0 }]);
    const pos = [[0, 1, 0], [0.1, 0.95, -0.1], [0.1, 0.85, -0.35], [0.1, 0.75, -0.6], [-0.1, 0.95, -0.1], [-0.1, 0.85, -0.35], [-0.1, 0.75, -0.6]];
    const inverseBind = pos.map((p) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -p[0]!, -p[1]!, -p[2]!, 1]);
    const rest = pos.map((p, i) => ({ t: parents[i]! >= 0 ? p.map((v, k) => v - pos[parents[i]!]![k]!) : p, r: [0, 0, 0, 1], s: [1, 1, 1] }));
    const b = bindSkeleton(createBitrigWorld(), { names, parents, inverseBind, rest });
    expect(b.tails.map((t) => t.bones.map((i) => names[i]))).toEqual([['Tail_1', 'Tail_2'], ['Tail2_1', 'Tail2_2']]);
  });
});
