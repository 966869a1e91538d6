/**
 * Skeleton fixtures made from world matrices, shared by the tail backend tests:
 * the bind source (inverse bind matrices and rest locals) and the per-frame load of those
 * rest locals into the pose store (what an adapter's read does before the hips are moved).
 */
import { mat4, quat, vec3 } from 'gl-matrix';
import type { CharacterBinding, SkeletonSource } from '../../core/binding';

/** Rest locals of a skeleton: translation, rotation, scale per bone. */
export type RestLocals = { t: number[]; r: number[]; s: number[] }[];

/** A bind source from bone world matrices (exact inverse binds; rest locals relative to the parent). */
export function sourceFromWorlds(names: string[], parents: number[], worlds: mat4[]): SkeletonSource & { rest: RestLocals } {
  const inverseBind = worlds.map((w) => mat4.invert(mat4.create(), w)!);
  const rest = worlds.map((w, i) => {
    const local = parents[i]! >= 0 ? mat4.multiply(mat4.create(), mat4.invert(mat4.create(), worlds[parents[i]!]!)!, w) : w;
    return { t: Array.from(mat4.getTranslation(vec3.create(), local)), r: Array.from(mat4.getRotation(quat.create(), local)), s: [1, 1, 1] };
  });
  return { names, parents, inverseBind, rest };
}

/** Write the rest locals (unit scale) of every bone of `binding` into its pose store slots. */
export function loadRest(binding: CharacterBinding, rest: readonly { t: ArrayLike<number>; r: ArrayLike<number> }[]): void {
  const pose = binding.world.pose;
  for (let i = 0; i < rest.length; i++) {
    const s = binding.slotOf[i]!;
    for (let j = 0; j < 3; j++) pose.localT[s * 3 + j] = rest[i]!.t[j]!;
    for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = rest[i]!.r[j]!;
    for (let j = 0; j < 3; j++) pose.localS[s * 3 + j] = 1;
  }
}
