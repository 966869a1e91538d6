/**
 * Tail colliders (bitECS 0.4: plain objects of typed arrays, indexed by entity id).
 *
 * A collider is an entity related to a character (`PartOf`) and attached to one of its bones:
 * a sphere (centre `a`, radius) or a capsule (segment `a`–`b`, radius), given in the bone's own
 * space and units (the bone's world matrix places it, its scale (the mean length of its axes) scales the radius), in one or more
 * groups (a bit mask, {@link COLLIDER_GROUPS}). A tail chain collides with its own character's
 * colliders whose groups meet the chain's `colliderGroups` option; setup keeps each chain's list
 * (`TailChain.colliders`). Every field is written by `addTailCollider` (eids are recycled).
 */

/** Most colliders one chain collides with (its list in `TailChain.colliders`). */
export const MAX_CHAIN_COLLIDERS = 16;

/** Floats per collider of the frame shapes ({@link TailColliderComponent.shapeCur}, `shapePrev`). */
export const SHAPE_STRIDE = 8;

/**
 * The built-in collider groups (bits of a mask; bits 2…30 are the game's own). A chain's
 * default `colliderGroups` is `legs | body`: its own character's legs and body.
 */
export const COLLIDER_GROUPS = {
  /** Thighs and shins (the automatic leg capsules). */
  legs: 1,
  /** Hips and lower spine (the automatic body capsules). */
  body: 2,
} as const;

/** `TailCollider.kind` of a sphere. */
export const COLLIDER_SPHERE = 0;
/** `TailCollider.kind` of a capsule. */
export const COLLIDER_CAPSULE = 1;

/** A sphere or capsule on a bone. */
export interface TailColliderComponent {
  /** Pose-store character id (−1: the character was unbound; the collider is then inert). */
  char: Int32Array;
  /** Pose slot of the bone the collider rides on (−1 with `char`). */
  slot: Int32Array;
  /** {@link COLLIDER_SPHERE} or {@link COLLIDER_CAPSULE}. */
  kind: Uint8Array;
  /** Group bit mask ({@link COLLIDER_GROUPS}). */
  groups: Int32Array;
  /** Shape in the bone's space: `a` (3), `b` (3; = `a` for a sphere), radius; 7 per entity, bone units. */
  shapeLs: Float64Array;
  /** The shape at the previous frame, world space, same layout as `shapeCur` (each step interpolates from it). */
  shapePrev: Float64Array;
  /**
   * The shape this frame, world space (engine units), written by the TailColliders system: `a`
   * (3), `b` (3), radius (≤ 0: inert), lead; 8 per entity. The tail step interpolates each
   * internal step's shape between `shapePrev` and this. The lead (engine units, at most the
   * radius) is how far the shape moved relative to its tails' anchor over the frame: the kernel
   * keeps the tail that much (a step's share) further out, because the write shows the tail's
   * state one step late on the current bones (display interpolation), when the legs have moved
   * on by about that much.
   */
  shapeCur: Float64Array;
  /** 1 until the first frame has placed the collider (no previous frame to interpolate from). */
  fresh: Uint8Array;
  /** Pose slot of the anchor of its character's first tail chain (the frame its lead is measured in; −1: no chain, no lead). */
  refSlot: Int32Array;
  /** The ends `a`, `b` in the `refSlot` bone's frame at the last frame (6 per entity). */
  relPrev: Float64Array;
}

/**
 * The collider component for `cap` entities.
 *
 * @example
 * const { TailCollider } = createColliderComponents(256);
 */
export function createColliderComponents(cap: number): { TailCollider: TailColliderComponent } {
  return {
    TailCollider: {
      char: new Int32Array(cap).fill(-1), slot: new Int32Array(cap).fill(-1), kind: new Uint8Array(cap), groups: new Int32Array(cap),
      shapeLs: new Float64Array(cap * 7),
      shapePrev: new Float64Array(cap * SHAPE_STRIDE), shapeCur: new Float64Array(cap * SHAPE_STRIDE), fresh: new Uint8Array(cap),
      refSlot: new Int32Array(cap).fill(-1), relPrev: new Float64Array(cap * 6),
    },
  };
}
