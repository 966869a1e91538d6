/**
 * A character taken out of the pose store (`poseRemoveCharacter`) while its scene IK still runs
 * (core/world.ts stopCharacterSystems): its scene character and limbs leave the scene systems,
 * so the next character bound, which gets its slots and id, keeps exactly its own pose; another
 * character's scene IK runs on exactly as in a world where nothing was removed; `removeSceneIK` and `unbindSkeleton` still release the stale
 * ones.
 */
import { describe, expect, test } from 'vitest';
import { createBitrigWorld } from '../../runtime/world';
import { poseRemoveCharacter } from '../../core/pose';
import { beginCharacterFrame, bindSkeleton, unbindSkeleton, type CharacterBinding } from '../../core/binding';
import { removeSceneIK } from '../../core/sceneIK';
import { update } from '../../systems/pipeline';
import { makeBiped } from './rig';

const inputs = { feet: [1, 1], hands: [{ position: [0.25, 1.0, 0.25] }, null] };

describe('scene IK of a character removed from the pose store', () => {
  test('the newcomer on its slots keeps its own pose; the other character is still solved; the stale handle and binding release cleanly', () => {
    const world = createBitrigWorld();
    const a = makeBiped({ world }), b = makeBiped({ world });
    // the same two characters in a world where nothing is removed: b's pose there is the reference
    const world2 = createBitrigWorld();
    const a2 = makeBiped({ world: world2 }), b2 = makeBiped({ world: world2 });
    const bPose = (w: typeof world, r: typeof b): number[] => Array.from({ length: r.binding.boneCount }, (_, j) => r.binding.slotOf[j]!)
      .flatMap((s) => [...w.pose.localR.subarray(s * 4, s * 4 + 4), ...w.pose.localT.subarray(s * 3, s * 3 + 3)]);
    for (let f = 0; f < 20; f++) { a.frame(1 / 60, inputs); b.frame(1 / 60, inputs); a2.frame(1 / 60, inputs); b2.frame(1 / 60, inputs); }
    expect(bPose(world, b)).toEqual(bPose(world2, b2));
    const n = a.binding.boneCount;
    const old = Array.from({ length: n }, (_, j) => a.binding.slotOf[j]!);
    poseRemoveCharacter(world.pose, a.binding.charId);
    // a plain chain of bones of the same count, no systems of its own
    const nb: CharacterBinding = bindSkeleton(world, {
      names: Array.from({ length: n }, (_, j) => 'B' + j), parents: Array.from({ length: n }, (_, j) => j - 1),
      rest: Array.from({ length: n }, () => ({ t: [0, 0.1, 0], r: [0, 0, 0, 1], s: [1, 1, 1] })),
    });
    // (validity first: it sits on the released slots and has the released id)
    const slots = Array.from({ length: n }, (_, j) => nb.slotOf[j]!);
    expect(slots.filter((s) => old.includes(s)).length).toBe(n);
    expect(nb.charId).toBe(a.binding.charId);
    for (let f = 0; f < 20; f++) {
      const R = world.pose.localR, T = world.pose.localT;
      for (let j = 0; j < n; j++) R.set([0, Math.sin(0.01 * (f + j)), 0, Math.cos(0.01 * (f + j))], slots[j]! * 4);
      const r0 = Array.from(slots.flatMap((s) => Array.from(R.subarray(s * 4, s * 4 + 4))));
      const t0 = Array.from(slots.flatMap((s) => Array.from(T.subarray(s * 3, s * 3 + 3))));
      beginCharacterFrame(nb);
      b.frame(1 / 60, inputs); // (runs the pipeline: the world's one update this frame)
      a2.frame(1 / 60, inputs); b2.frame(1 / 60, inputs);
      expect(bPose(world, b), `frame ${f}: the other character`).toEqual(bPose(world2, b2));
      // exact: nothing but the newcomer's own code wrote its bones
      expect(slots.flatMap((s) => Array.from(R.subarray(s * 4, s * 4 + 4))), `frame ${f}: rotations`).toEqual(r0);
      expect(slots.flatMap((s) => Array.from(T.subarray(s * 3, s * 3 + 3))), `frame ${f}: translations`).toEqual(t0);
    }
    // (and its scene IK did work: its arm's hand target moved the arm off the rest pose)
    expect(world.components.Limb.solved[b.ik.arms[0]!.eid]).toBe(1);
    // the stale handle and binding release cleanly, and the newcomer stays
    removeSceneIK(world, a.ik);
    unbindSkeleton(a.binding);
    expect(nb.alive).toBe(true);
    expect(world.pose.charStart[nb.charId]).toBeGreaterThanOrEqual(0);
    expect(world.queries.sceneChars.dense.length).toBe(1);
    update(world, 1 / 60);
  });
});
