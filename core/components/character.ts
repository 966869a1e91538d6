/**
 * The character entity and the relation of its parts.
 *
 * A bound character is an entity with `Character` (its range in the pose store: the pose
 * character id); each of its tail chains, its scene character and that one's limbs is an
 * entity with `PartOf`, whose `character` field is the character entity (a parent component,
 * the relation: `PartOf.character[tailEid] === characterEid`). Both are plain objects of typed
 * arrays indexed by entity id, like every bitrig component, so a game queries them with
 * bitECS: `query(world, [world.components.TailChain, world.components.PartOf])`.
 */

/** `Character`: a bound skeleton. */
export interface CharacterComponent {
  /** Pose-store character id (its slots: `pose.charStart[id]` … + `pose.charCount[id]`); −1 once unbound. */
  pose: Int32Array;
}

/** `PartOf`: the character entity a tail chain, scene character or limb belongs to. */
export interface PartOfComponent {
  /** The character entity (−1: none, e.g. after its character was unbound). */
  character: Int32Array;
}

/**
 * The character components for `cap` entities (every id −1).
 *
 * @example
 * const { Character, PartOf } = createCharacterComponents(256);
 */
export function createCharacterComponents(cap: number): { Character: CharacterComponent; PartOf: PartOfComponent } {
  return {
    Character: { pose: new Int32Array(cap).fill(-1) },
    PartOf: { character: new Int32Array(cap).fill(-1) },
  };
}
