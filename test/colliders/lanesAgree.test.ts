/**
 * The step runs four chains side by side (a row group), two lanes at a time where it can: a
 * chain collides the same whichever chains share its group. Five rigs in one world (lanes 0–1
 * with one capsule each, lane 2 with two, lane 3 with none, a fifth chain alone in the next
 * group) against each rig alone in a world of its own, through contact with a capsule across
 * the hanging tail, under plain, moved, scaled and mirrored parents: the same operations, so
 * the same bits (joints equal exactly), and contacts happen (so the test can fail).
 */
import { describe, expect, test } from 'vitest';
import { bindSkeleton, type CharacterBinding } from '../../core/binding';
import { createBitrigWorld } from '../../runtime/world';
import { update } from '../../systems/pipeline';
import { addCapsule, colliderRigSource, PARENTS, placeHips, tailJoints, type Capsule, type Parent } from './fixture';

const HANGING = { restSource: 'bind' as const, gravity: 9.8, frequency: 0.3, carry: 0, floorEnabled: false, bendLimit: Math.PI };
const ACROSS: Capsule = { a: [-0.2, -0.45, -0.12], b: [0.4, -0.45, -0.13], r: 0.06 };
const FAR: Capsule = { a: [2, 0, 0], b: [2, 0.5, 0], r: 0.1 };
/** Each rig's capsules: lanes 0 and 1 alike, lane 2 one more, lane 3 none, a fifth in the next group. */
const SETS: Capsule[][] = [[ACROSS], [ACROSS], [ACROSS, FAR], [], [ACROSS]];

/** Rigs with these capsule sets in one world; `run` moves every hips, then one update. */
function worldOf(sets: Capsule[][], parent: Parent): { bindings: CharacterBinding[]; run(f: number): number } {
  const world = createBitrigWorld();
  const src = colliderRigSource();
  const bindings = sets.map((caps) => {
    const b = bindSkeleton(world, src, { tail: HANGING });
    for (const c of caps) addCapsule(world, b, c);
    return b;
  });
  return {
    bindings,
    run(f) {
      for (const b of bindings) placeHips(b, src.rest, parent, 0.03 * Math.sin(f * 0.15));
      update(world, 1 / 60);
      return bindings.reduce((s, b) => s + world.components.TailChain.colliderContacts[b.tails[0]!.eid]!, 0);
    },
  };
}

describe('chains side by side collide as each alone', () => {
  for (const parent of PARENTS) {
    test(parent.name, () => {
      const shared = worldOf(SETS, parent);
      const alone = SETS.map((caps) => worldOf([caps], parent));
      let worst = 0, contacts = 0;
      for (let f = 0; f < 120; f++) {
        contacts += shared.run(f);
        alone.forEach((w, k) => {
          w.run(f);
          const a = tailJoints(shared.bindings[k]!), b = tailJoints(w.bindings[0]!);
          a.forEach((p, i) => { for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(p[c]! - b[i]![c]!)); });
        });
      }
      expect(contacts).toBeGreaterThan(0);
      expect(worst).toBe(0);
    });
  }
});
