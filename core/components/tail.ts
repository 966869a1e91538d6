/**
 * Tail components (bitECS 0.4: plain objects of typed arrays, indexed by entity id).
 *
 * One tail chain entity holds up to {@link MAX_LINKS} links. Per-chain fields are indexed by the
 * entity id. Per-link fields (`TailParticle`, `BendState`, `TailChain.slot`) are indexed by the
 * link's number q = {@link linkIndex}(row, i) (`tailLinkIndex(world, eid, i)` from an entity):
 * chains sit four to a group of {@link LINK_STRIDE} links, and a width-w field keeps
 * component c of link q at {@link linkEl}(q, w, c) = ((q >> 2)·w + c)·4 + (q & 3) — the four
 * chains of a group side by side, so the WebAssembly SIMD step reads and writes one component
 * of four chains as one 16-byte vector, in place. The chains of a group have the same link
 * count (`addTailChain` picks the row). A width-1 field is simply `field[q]`.
 *
 * The step's state and rest data are float32, in the components themselves: the kernel steps
 * them in place, so there is no second copy. Particle positions are relative to the chain's
 * `TailChain.origin` (world, float64: the anchor's position at the chain's last step), so
 * float32 keeps its precision far from the world origin. Everything is in world space
 * (reflected across x = 0 while the anchor is mirrored, see `mirrored`), engine units;
 * rotations are unit quaternions x,y,z,w.
 *
 * Every field of every entity is written by `addTailChain` (eids are recycled).
 */

import { MAX_CHAIN_COLLIDERS } from './collider';

/** Most links a chain can have (the rig pass grows 3…8). */
export const MAX_LINKS = 8;
/** Links per chain row in the per-link arrays: 8 links + end. */
export const LINK_STRIDE = 9;

/**
 * The link number of link `i` of the chain in dense row `row` (`TailChain.row`): the index of
 * its width-1 fields, and the `q` of {@link linkEl}. Links of one chain are 4 apart.
 *
 * @example
 * const q = linkIndex(C.row[eid], 0); const len = B.lenRel[q];
 */
export function linkIndex(row: number, i: number): number {
  return ((row >> 2) * LINK_STRIDE + i) * 4 + (row & 3);
}

/**
 * Element of component `c` of a width-`w` per-link field at link number `q` (four chains
 * interleaved: see the module comment). `linkEl(q, 1, 0)` is `q`.
 *
 * @example
 * const x = P.pos[linkEl(q, 3, 0)] + C.origin[eid * 3]; // world x of the link's tip
 */
export function linkEl(q: number, w: number, c: number): number {
  return ((q >> 2) * w + c) * 4 + (q & 3);
}

/** Copy width-`w` field `a` at link `q` into `out[o…]` (setup and rare paths: the maths helpers take contiguous components). */
export function getLink(a: ArrayLike<number>, q: number, w: number, out: Float64Array, o: number): void {
  const b = (q >> 2) * w * 4 + (q & 3);
  for (let c = 0; c < w; c++) out[o + c] = a[b + c * 4]!;
}

/** Copy `src[o…]` into width-`w` field `a` at link `q` (the inverse of {@link getLink}). */
export function setLink(a: Float32Array | Float64Array, q: number, w: number, src: ArrayLike<number>, o: number): void {
  const b = (q >> 2) * w * 4 + (q & 3);
  for (let c = 0; c < w; c++) a[b + c * 4] = src[o + c]!;
}

/** Rest source of a chain: bind pose (grown chains) or the clip's own tail pose. */
export const REST_BIND = 0;
/** The spring rides on the clip's own tail keys and adds follow-through. */
export const REST_ANIMATION = 1;

/** Indices of the world's `clock` array (the tail clock's numbers and the world's time). */
export const CLOCK = {
  /** Fixed internal step (seconds). */
  FIXED_STEP: 0,
  /** Most internal steps per frame. */
  MAX_STEPS: 1,
  /** Seconds not yet simulated. */
  ACC: 2,
  /** The accumulator at the start of this frame. */
  ACC_START: 3,
  /** This frame's dt (0 when invalid). */
  FRAME_DT: 4,
  /** Internal steps this frame. */
  STEPS: 5,
  /** 1 when this frame hit the step cap. */
  CAPPED: 6,
  /** Display fraction of a step. */
  ALPHA: 7,
  /** `world.time`. */
  TIME: 8,
  /** Frames run so far, whatever their dt (counted by the tail clock, pipeline step 4: every `update(world, dt)`). */
  FRAMES: 9,
  /** The current internal step's time within the frame, 0…1 (set by the tail clock per step; the colliders are placed at it). */
  STEP_T: 10,
  /** Length of the array. */
  SIZE: 11,
} as const;

/** Time constant (seconds) of {@link TailChainComponent.seatEase}. */
export const SEAT_EASE_TIME = 0.15;

/** `TailChain.initialised` value: seat the chain along the local rotations in `BendState.localCur` at the next frame's preparation. */
export const SEAT_FROM_LOCAL = 2;

/** Chain topology, options and clock (scalars per entity unless noted). */
export interface TailChainComponent {
  /** Pose-store character id (-1: the character left the pose store under the chain, which then does nothing). */
  char: Int32Array;
  /** Number of links N (1…8). */
  links: Uint8Array;
  /** Slot of the bone the chain hangs from (parent of link 0; -1 with `char`). */
  anchorSlot: Int32Array;
  /** Slot of the hips (frame of carry axis and forward plane); usually the anchor. */
  hipsSlot: Int32Array;
  /** Dense row of the chain's per-link data (rows are reused after removal; see {@link linkIndex}). */
  row: Int32Array;
  /** Bone slot of each link (per link: `slot[q]`; −1 past the chain's links). */
  slot: Int32Array;
  /** World position (3 per entity, float64) the chain's `TailParticle.pos` is relative to: the anchor's position at its last step. */
  origin: Float64Array;
  /** Slot of the `Tail_End` helper, or -1. */
  endSlot: Int32Array;
  /** 1 when the `Tail_End` helper has no children (the WebAssembly write then places it itself). */
  endLeaf: Uint8Array;
  /** Root spring frequency f (Hz). */
  frequency: Float64Array;
  /** Tip frequency as a fraction of the root's (0.5 = half). */
  tipRatio: Float64Array;
  /** Damping ratio ζ. */
  damping: Float64Array;
  /** Gravity (m/s², downward, world −Y). */
  gravity: Float64Array;
  /** Carry angle C (radians), the raise of the whole tail. */
  carry: Float64Array;
  /** Centred rest arc β ∈ [0,1]. */
  restCurve: Float64Array;
  /** Elastic bend limit θmax (radians). */
  bendLimit: Float64Array;
  /** Bend coupling rate k (1/s). */
  couplingRate: Float64Array;
  /** Floor height g0 (world Y, engine units). */
  floorY: Float64Array;
  /** 1 when floor contact is on. */
  floorEnabled: Uint8Array;
  /** Centre-line clearance ρ (metres). */
  floorClearance: Float64Array;
  /** Contact damping γ (1/s). */
  contactDamping: Float64Array;
  /** REST_BIND or REST_ANIMATION. */
  restSource: Uint8Array;
  /** World units per metre (100 for a centimetre rig). */
  unitScale: Float64Array;
  /** Anchor jump (metres) per frame that resets the chain instead of whipping. */
  teleportDistance: Float64Array;
  /**
   * 0 until the first frame places the particles at rest; 1 once placed; {@link SEAT_FROM_LOCAL}
   * (2): place them next frame along the local rotations left in `BendState.localCur` (the pose
   * shown last, so leaving a baked clip does not snap the tail back to rest).
   */
  initialised: Uint8Array;
  /** Anchor at the previous frame: position (3), rotation (4), uniform scale (1); 8 per entity. */
  anchorPrev: Float64Array;
  /** Anchor this frame, same layout; 8 per entity. */
  anchorCur: Float64Array;
  /** Anchor at the current internal step (interpolated), same layout; 8 per entity. */
  anchorStep: Float64Array;
  /** Hips axes in the anchor's local frame: forward (3), lateral (3), up (3); 9 per entity. */
  axesLs: Float64Array;
  /**
   * 1 when the tail's world matrices must go through the pose store (a link bone has other
   * children, or a non-uniform scale, at setup; or this frame's anchor is non-uniformly
   * scaled) instead of being composed from the links' world frames.
   */
  exactWorld: Uint8Array;
  /** Setup part of {@link exactWorld}. */
  exactWorldSetup: Uint8Array;
  /** Internal steps run during the last frame (diagnostic). */
  stepsLastFrame: Uint8Array;
  /** 1 when the last frame reset the chain (teleport or bad input). */
  resetLastFrame: Uint8Array;
  /** 1 when this frame's write found a non-finite rotation (the chain shows its rest pose and starts again). */
  writeFailed: Uint8Array;
  /**
   * 1 while the anchor's world frame is mirrored (negative determinant, e.g. a parent with
   * scale.x = −1). The chain then simulates in the world reflected across x = 0, where the
   * anchor is a proper frame: the anchors, particles, `headWs` and `rotWs` are in that
   * reflected space, and TailWrite reflects the world matrices back. A change resets the chain.
   */
  mirrored: Uint8Array;
  /**
   * Per-step constants cached per chain, 5 per entity: step length h (s) they were computed
   * for (0 = stale; option changes clear it), e^(−γh), coupling α = 1 − e^(−kh),
   * cos(θmax/2), sin(θmax/2).
   */
  stepCache: Float64Array;
  /**
   * After the chain was seated along a shown pose ({@link SEAT_FROM_LOCAL}): how far (radians)
   * that pose was bent beyond the bend limit. 0 otherwise.
   */
  seatExcess: Float64Array;
  /**
   * Ease-in after a seat along a shown pose: 1 at the seat, shrinking to 0 with time constant
   * {@link SEAT_EASE_TIME}. Meanwhile the bend limit is widened by `seatEase · seatExcess` and
   * the coupling rate scaled by `1 − seatEase`, so the first steps ease a pose far from the new
   * rest in instead of clamping and pulling it at once; and `BendState.restR` carries
   * `seatEase` × each link's `BendState.seatTwist` (about `seatAxis`), so the shown twist (a
   * zero-length link's whole shown offset) eases out instead of jumping to the new rest's. 0
   * otherwise.
   */
  seatEase: Float64Array;
  /** Group mask of the colliders the chain collides with (its `colliderGroups` option, an integer kept as a number). */
  colliderGroups: Float64Array;
  /** The chain's colliders: their entity ids, {@link MAX_CHAIN_COLLIDERS} per entity (kept by setup; see core/colliderSetup.ts). */
  colliders: Int32Array;
  /** How many of `colliders` are in use. */
  colliderCount: Uint8Array;
  /** Link steps in contact with a collider since the frame began (diagnostic; the TailColliders system clears it each frame). */
  colliderContacts: Int32Array;
}

/** Particle per link tip (per-link fields: see {@link linkEl}). */
export interface TailParticleComponent {
  /** Tip position per link relative to `TailChain.origin` (world axes, engine units; float32, width 3). */
  pos: Float32Array;
  /** Tip velocity per link (units/s; float32, width 3). */
  vel: Float32Array;
  /** 1 when the link's tip is in floor contact this step (width 1). */
  contact: Uint8Array;
}

/** Rest frames and bend state per link. */
export interface BendStateComponent {
  /** Rest local rotation per link (parent frame), after carry and rest arc; 4 × stride. */
  restR: Float32Array;
  /** Bind local translation of each link's bone (parent frame, engine units); 3 × stride. */
  headLs: Float32Array;
  /** Tip offset in each link's own frame (engine units); 3 × stride. */
  tipLs: Float64Array;
  /** A_i: rotation from link i's parent rest frame into the hips frame; 4 × stride. */
  toHips: Float64Array;
  /** A_i as a row-major 3×3 rotation matrix (kept with `toHips` by `computeRestDirs`); 9 × stride. */
  toHipsM: Float32Array;
  /** Bend snapshot q^old (hips frame) from the previous step; 4 × stride. */
  bendOld: Float32Array;
  /** Scratch of the rest placement (world rotation of each link's bone while re-seating); 4 × stride. */
  rotWs: Float64Array;
  /** Scratch of the rest placement (head of each link while re-seating); 3 × stride. */
  headWs: Float64Array;
  /** Product of the uniform local scales from the anchor down to each link's bone; 1 × stride. */
  scaleRel: Float32Array;
  /** Unit rest direction of each link's tip in its own frame (normalised tipLs); 3 × stride. */
  tipDirLs: Float64Array;
  /** Length of each link in anchor-scale units (|tipLs| × scaleRel); 1 × stride. */
  lenRel: Float32Array;
  /** Local rotation of each link's bone after the latest internal step; 4 × stride. */
  localCur: Float32Array;
  /** Local rotation of each link's bone after the step before (display interpolation); 4 × stride. */
  localPrev: Float32Array;
  /** Rest direction of each link in its parent's frame (restR · tipDir); 3 × stride. */
  restDirLs: Float32Array;
  /** Rest direction of each link in the hips frame (A_i · restDirLs); 3 × stride. */
  restDirHs: Float32Array;
  /**
   * While a re-seat along a shown pose eases out (`TailChain.seatEase` > 0): each link's rest
   * rotation as its rest source gives it, without the turn `restR` then carries
   * (`restR` = restBase · rotation(seatAxis, seatEase · seatTwist)); 4 × stride.
   */
  restBase: Float64Array;
  /**
   * Angle (radians, about `seatAxis`) of the turn from the rest to the rotation a re-seat
   * found shown, kept so the seated pose keeps its shape, then eased out with
   * `TailChain.seatEase`. For a link with a length: the twist about its tip direction between
   * the shown rotation and the one the readback rule gives the same direction on the rest
   * (swing from the rest direction · rest). For a zero-length link (no direction to keep): the
   * whole offset restBase⁻¹ · shown, the short way; 1 × stride.
   */
  seatTwist: Float64Array;
  /**
   * Unit axis (the link's own frame) of `seatTwist`: the link's tip direction (`tipDirLs`)
   * for a link with a length, the axis of restBase⁻¹ · shown for a zero-length link. Written
   * by every re-seat along a shown pose; read only while `TailChain.seatEase` > 0; 3 × stride.
   */
  seatAxis: Float64Array;
}

function f64(n: number): Float64Array {
  return new Float64Array(n);
}

function f32(n: number): Float32Array {
  return new Float32Array(n);
}

/**
 * The per-link fields of each tail component: arrays of {@link LINK_STRIDE} × k entries per
 * chain row (k = 1, 3, 4 or 9), sized by the world's tail row capacity rather than its entity
 * capacity (see `BitrigWorldOptions.chains`).
 */
export const TAIL_LINK_FIELDS: Readonly<Record<'TailChain' | 'TailParticle' | 'BendState', readonly string[]>> = {
  TailChain: ['slot'],
  TailParticle: ['pos', 'vel', 'contact'],
  BendState: [
    'restR', 'headLs', 'tipLs', 'toHips', 'toHipsM', 'bendOld', 'rotWs', 'headWs', 'scaleRel', 'tipDirLs', 'lenRel',
    'localCur', 'localPrev', 'restDirLs', 'restDirHs', 'restBase', 'seatTwist', 'seatAxis',
  ],
};

/**
 * Create the tail components for `cap` entities and `rows` chains (per-link arrays: `rows`
 * rows of {@link LINK_STRIDE} links).
 *
 * @example
 * const { TailChain, TailParticle, BendState } = createTailComponents(256, 64);
 */
export function createTailComponents(cap: number, rows: number = cap): {
  TailChain: TailChainComponent;
  TailParticle: TailParticleComponent;
  BendState: BendStateComponent;
} {
  const L = LINK_STRIDE;
  return {
    TailChain: {
      char: new Int32Array(cap), links: new Uint8Array(cap), anchorSlot: new Int32Array(cap),
      hipsSlot: new Int32Array(cap), row: new Int32Array(cap), slot: new Int32Array(rows * L), endSlot: new Int32Array(cap), endLeaf: new Uint8Array(cap),
      frequency: f64(cap), tipRatio: f64(cap), damping: f64(cap), gravity: f64(cap), carry: f64(cap),
      restCurve: f64(cap), bendLimit: f64(cap), couplingRate: f64(cap), floorY: f64(cap),
      floorEnabled: new Uint8Array(cap), floorClearance: f64(cap), contactDamping: f64(cap),
      restSource: new Uint8Array(cap), unitScale: f64(cap), teleportDistance: f64(cap), initialised: new Uint8Array(cap),
      anchorPrev: f64(cap * 8), anchorCur: f64(cap * 8), anchorStep: f64(cap * 8), axesLs: f64(cap * 9),
      stepsLastFrame: new Uint8Array(cap), resetLastFrame: new Uint8Array(cap), writeFailed: new Uint8Array(cap), mirrored: new Uint8Array(cap), exactWorld: new Uint8Array(cap), exactWorldSetup: new Uint8Array(cap),
      stepCache: f64(cap * 5), seatExcess: f64(cap), seatEase: f64(cap), origin: f64(cap * 3),
      colliderGroups: f64(cap), colliders: new Int32Array(cap * MAX_CHAIN_COLLIDERS), colliderCount: new Uint8Array(cap), colliderContacts: new Int32Array(cap),
    },
    TailParticle: { pos: f32(rows * L * 3), vel: f32(rows * L * 3), contact: new Uint8Array(rows * L) },
    BendState: {
      restR: f32(rows * L * 4), headLs: f32(rows * L * 3), tipLs: f64(rows * L * 3), toHips: f64(rows * L * 4), toHipsM: f32(rows * L * 9),
      bendOld: f32(rows * L * 4), rotWs: f64(rows * L * 4), headWs: f64(rows * L * 3),
      scaleRel: f32(rows * L), tipDirLs: f64(rows * L * 3), lenRel: f32(rows * L),
      localCur: f32(rows * L * 4), localPrev: f32(rows * L * 4), restDirLs: f32(rows * L * 3), restDirHs: f32(rows * L * 3),
      restBase: f64(rows * L * 4), seatTwist: f64(rows * L), seatAxis: f64(rows * L * 3),
    },
  };
}
