/** The built-in character as an engine-free skeleton source (for characters bound without an engine). */
import type { SkeletonSource } from '../../core/binding';
import type { CharacterData } from '../../core/character/index';

/**
 * The skeleton source of a built-in character: names, parents, its inverse bind matrices and
 * rest TRS, as an adapter would read them from an engine.
 *
 * @example
 * const binding = bindSkeleton(world, characterSource(createBuiltinCharacter()));
 */
export function characterSource(data: CharacterData): SkeletonSource {
  return {
    names: data.bones.map((b) => b.name),
    parents: data.bones.map((b) => b.parent),
    inverseBind: data.bones.map((_, i) => data.inverseBind.subarray(i * 16, i * 16 + 16)),
    rest: data.bones.map((b) => ({ t: b.t, r: b.r, s: b.s })),
  };
}
