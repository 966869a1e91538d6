/**
 * A collider whose entity the game removes without `removeTailCollider` (bitecs `removeEntity`,
 * or `removeComponent` of `TailCollider`) is dropped from its chains at the next frame: no
 * throw, no NaN, and the tail is no longer kept out by a stale shape (it hangs through where
 * the capsule was, as with no collider); later setup calls no longer list it (the chain's list
 * holds only the collider added since).
 */
import { describe, expect, test } from 'vitest';
import { addEntity, removeComponent, removeEntity } from 'bitecs';
import { addTailCollider, removeTailCollider, tailCollidersOf } from '../../core/colliderSetup';
import { deepestPenetration, makeColliderRig, PARENTS, type Capsule } from './fixture';

const HANGING = { gravity: 9.8, frequency: 0.3, carry: 0, floorEnabled: false, bendLimit: Math.PI };
const ACROSS: Capsule = { a: [-0.2, -0.45, -0.12], b: [0.4, -0.45, -0.13], r: 0.06 };

/** Deepest penetration into ACROSS over `frames` frames (held still), all joints finite. */
function hang(rig: ReturnType<typeof makeColliderRig>, frames: number): number {
  let worst = 0;
  for (let f = 0; f < frames; f++) {
    rig.frame(1 / 60);
    const j = rig.joints();
    expect(j.every((p) => Array.from(p).every(Number.isFinite))).toBe(true);
    worst = Math.max(worst, deepestPenetration(j, rig.capsulesWs()));
  }
  return worst;
}

describe('a collider removed behind bitrig\'s back', () => {
  for (const how of ['removeEntity', 'removeComponent'] as const) {
    test(`${how}: the next frame skips it; setup no longer lists it`, () => {
      const rig = makeColliderRig(PARENTS[0]!, [ACROSS], HANGING);
      const { world, b, tailEid } = rig;
      expect(hang(rig, 90)).toBeLessThanOrEqual(0.02); // (kept out while it is there)
      const c = rig.colliders[0]!;
      if (how === 'removeEntity') removeEntity(world, c); else removeComponent(world, c, world.components.TailCollider);
      addEntity(world); // (the game's next entity may reuse the id)
      expect(hang(rig, 120)).toBeGreaterThan(0.2); // (no stale shape holds it: it hangs through)
      expect(tailCollidersOf(world, b.charId)).toEqual([]);
      expect(() => removeTailCollider(world, c)).toThrow(/is not a tail collider of this world/);
      const again = addTailCollider(world, { char: b.charId, slot: b.slotOf[0]!, radius: ACROSS.r, a: ACROSS.a, b: ACROSS.b });
      expect(tailCollidersOf(world, b.charId)).toEqual([again]);
      expect(world.components.TailChain.colliderCount[tailEid]).toBe(1);
    });
  }
});
