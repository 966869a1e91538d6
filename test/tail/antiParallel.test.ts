/**
 * A link turned exactly 180° from its rest direction: the shortest-arc swing has no unique axis
 * there, and the step takes a fallback axis (both the bend's swing in the hips frame and the
 * link's final aim; tests the branches the bend limit normally keeps out of reach). With the
 * limit opened to π, a particle placed exactly opposite its rest target sits on the spring's
 * line (the spring and the rope keep it there), so the branch runs every step.
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat, vec3 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { tailLinkIndex } from '../../core/tailSetup';
import { linkEl } from '../../core/components/tail';
import { loadRest, sourceFromWorlds } from '../helpers/skeleton';

glMatrix.setMatrixArrayType(Float64Array as unknown as ArrayConstructor);

/**
 * A two-link chain hanging straight down from the hips (so the forward axis is horizontal and
 * the forward plane never acts on a link turned straight up); no carry, no gravity, no floor,
 * the bend limit opened to π. `hipsRoll` turns the hips' bind frame about z, so the rest
 * direction in the hips frame is down (0) or +x (−π/2): the two choices of fallback axis.
 */
function bind(world: BitrigWorld, hipsRoll: number, couplingRate: number): { b: CharacterBinding; rest: { t: number[]; r: number[] }[] } {
  const names = ['Hips', 'Tail_1', 'Tail_2', 'Tail_End'];
  const parents = [-1, 0, 1, 2];
  const worlds = [1, 0.9, 0.6, 0.3].map((y, i) => i === 0
    ? mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [0, 0, 1], hipsRoll), [0, y, 0])
    : mat4.fromTranslation(mat4.create(), [0, y, 0]));
  const src = sourceFromWorlds(names, parents, worlds);
  const b = bindSkeleton(world, src, { tail: { bendLimit: Math.PI, couplingRate, gravity: 0, carry: 0, floorEnabled: false } });
  return { b, rest: src.rest };
}

function frame(world: BitrigWorld, chars: { b: CharacterBinding; rest: { t: number[]; r: number[] }[] }[]): void {
  for (const c of chars) { loadRest(c.b, c.rest); beginCharacterFrame(c.b); }
  update(world, 1 / 60);
}

/** Rest for a frame, then link 0's particle put exactly opposite its rest direction. */
function run(): { world: BitrigWorld; chars: { b: CharacterBinding; rest: { t: number[]; r: number[] }[] }[] } {
  const world = createBitrigWorld({ entities: 8, bones: 32 });
  const chars = [bind(world, 0, 0), bind(world, -Math.PI / 2, 0), bind(world, 0, 12), bind(world, -Math.PI / 2, 12)];
  frame(world, chars);
  const P = world.components.TailParticle;
  for (const c of chars) {
    const eid = c.b.tails[0]!.eid;
    const h = c.b.slotOf[1]! * 16;
    const k = tailLinkIndex(world, eid, 0);
    for (let j = 0; j < 3; j++) {
      const head = world.pose.worldM[h + 12 + j]! - world.components.TailChain.origin[eid * 3 + j]!; // (positions are relative to the chain's origin)
      const e = linkEl(k, 3, j);
      P.pos[e] = head - (P.pos[e]! - head); // at rest the particle is on its rest target: mirror it through the head
      P.vel[e] = 0;
    }
  }
  for (let f = 0; f < 3; f++) frame(world, chars);
  return { world, chars };
}

describe('anti-parallel swings', () => {
  test('a link held exactly 180° from rest: the bone points at its particle (1e-9), unit rotations (1e-12), no NaN', () => {
    const wa = run();
    for (const { world, chars } of [wa]) {
      const pose = world.pose;
      for (const [i, c] of chars.entries()) {
        const s1 = c.b.slotOf[1]!, s2 = c.b.slotOf[2]!;
        for (let j = 0; j < 4; j++) expect(Number.isFinite(pose.localR[s1 * 4 + j])).toBe(true);
        const q = pose.localR.subarray(s1 * 4, s1 * 4 + 4);
        expect(Math.abs(Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!) - 1)).toBeLessThan(1e-12);
        expect(pose.worldM.every(Number.isFinite)).toBe(true);
        if (i >= 2) continue; // (coupling on: the bend is blended toward its neighbour's, so it is not held at 180°)
        // the bone turned 180°: from hanging down to pointing straight up
        const dir = vec3.fromValues(0, -1, 0);
        const got = vec3.normalize(vec3.create(), [0, 1, 2].map((j) => pose.worldM[s2 * 16 + 12 + j]! - pose.worldM[s1 * 16 + 12 + j]!) as unknown as vec3);
        expect(vec3.dot(got, dir)).toBeLessThan(-1 + 1e-9);
      }
    }
  });
});
