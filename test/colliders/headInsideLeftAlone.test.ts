/**
 * A collider that holds a link's head (the tail's root inside the hips) is left to the links
 * beyond it: the link is not turned, so a capsule lying across the tail's root, around the
 * root's head, changes nothing while every link beyond stays clear of it. Checked
 * against the same rig without the capsule, under plain, moved, scaled and mirrored parents:
 * the joints agree within 1e-6 of the link length and no contact is counted. (The head's
 * nearest axis point is the capsule's middle, not an end: a wrong projection onto the axis
 * finds the head outside and turns the root link.)
 */
import { describe, expect, test } from 'vitest';
import { vec3 } from 'gl-matrix';
import { makeColliderRig, PARENTS, SEG, type Capsule } from './fixture';

const HANGING = { gravity: 9.8, frequency: 0.3, carry: 0, floorEnabled: false };
/**
 * Across the root along hips x, its axis 0.05 below the root's head (0, −0.05, −0.1), inside
 * its radius: the root link points through it, and its tip (0.2 down the tail) is clear.
 */
const ACROSS_ROOT: Capsule = { a: [-0.3, -0.1, -0.1], b: [0.3, -0.1, -0.1], r: 0.08 };

describe('a collider holding a link\'s head leaves that link to the links beyond', () => {
  for (const parent of PARENTS) {
    test(parent.name, () => {
      const withCap = makeColliderRig(parent, [ACROSS_ROOT], HANGING);
      const without = makeColliderRig(parent, [], HANGING);
      let worst = 0, contacts = 0;
      for (let f = 0; f < 90; f++) {
        withCap.frame(1 / 60, 0.02 * Math.sin(f * 0.2));
        without.frame(1 / 60, 0.02 * Math.sin(f * 0.2));
        contacts += withCap.world.components.TailChain.colliderContacts[withCap.tailEid]!;
        const a = withCap.joints(), b = without.joints();
        a.forEach((p, i) => { worst = Math.max(worst, vec3.distance(p, b[i]!)); });
      }
      expect(contacts).toBe(0);
      expect(worst / (SEG * parent.scale)).toBeLessThan(1e-6);
    });
  }
});
