/**
 * Scene-contact components (bitECS 0.4: plain objects of typed arrays indexed by entity id).
 *
 * - `SceneCharacter`: one per character with scene IK — its legs and arms, the pelvis band
 *   and smoothed offset, centre of mass, ground callback.
 * - `Limb`: one per two-bone chain (leg or arm) — root/mid/end slots, the IK request for this
 *   frame (target, weights, pole) and the outcome (`reached`, miss).
 * - `FootContact` (legs): stance weight, lock state, the contact point and orientation in the
 *   supporting entity's local frame, sole calibration.
 * - `HandTarget` (arms): world target pose, weights, grip transform of a held object, outputs.
 * - `SupportFrame`: a floor, platform or ladder the game moves (world transform now and last frame).
 *
 * Space and units are named in each field: `Ws` world, `Ss` support-local, `Ls` bone-local;
 * lengths in world units (metres × unitScale), angles in radians, rates in 1/s.
 * Every field of a new entity is written by `addSceneIK` / `addSupport` (eids are recycled).
 */
import type { GroundQuery } from '../sceneIK';

/** Legs a character can have (bipeds 2, quadrupeds 4). */
export const MAX_LEGS = 4;
/** Arms a character can have. */
export const MAX_ARMS = 2;

/** Limb kind: a leg (gets a FootContact). */
export const LIMB_LEG = 0;
/** Limb kind: an arm (gets a HandTarget). */
export const LIMB_ARM = 1;

/** Sole calibration source: the ankle projected onto the lowest joint of the foot (no skin). */
export const SOLE_ANKLE = 0;
/** Sole calibration source: a support plane fitted to the foot's skin. */
export const SOLE_SKIN = 1;

/** Per-character scene state. */
export interface SceneCharacterComponent {
  /** Pose-store character id. */
  char: Int32Array;
  /** Pose slot of the pelvis. */
  pelvisSlot: Int32Array;
  /** Setup: one past the last pose slot of the pelvis subtree. */
  pelvisSubEnd: Int32Array;
  /** Setup: 1 when every slot in (pelvisSlot, pelvisSubEnd) is below the pelvis (its subtree is one contiguous range). */
  pelvisDense: Uint8Array;
  /** Leg limb entities, {@link MAX_LEGS} per character (-1 unused). */
  legs: Int32Array;
  /** Number of legs. */
  legCount: Uint8Array;
  /** Arm limb entities, {@link MAX_ARMS} per character (-1 unused). */
  arms: Int32Array;
  /** Number of arms. */
  armCount: Uint8Array;
  /** Input: 1 when the character stands on something (terrain adaptation and locks on). */
  grounded: Uint8Array;
  /** Smoothed grounded state in [0, 1] (fades scene IK in and out). */
  groundBlend: Float64Array;
  /** Rate (1/s) of the grounded fade. */
  groundRate: Float64Array;
  /** Input: balance weight this frame in [0, 1], or -1 for automatic (option × least stance weight). */
  balanceInput: Float64Array;
  /** Option: balance weight used when the input is automatic. */
  balance: Float64Array;
  /** Balance shift limit (world units). */
  balanceMaxShift: Float64Array;
  /** Pelvis smoothing rate (1/s). */
  pelvisRate: Float64Array;
  /** Largest pelvis drop (world units, positive). */
  maxDrop: Float64Array;
  /** Largest pelvis raise (world units). */
  maxRaise: Float64Array;
  /** World units per metre. */
  unitScale: Float64Array;
  /** Body mass (kg) against which held loads are weighed. */
  bodyMass: Float64Array;
  /** Smoothed pelvis offset applied this frame (world x, y, z; y is the band-limited height). 3 per entity. */
  offsetWs: Float64Array;
  /** Pelvis band this frame: lowest allowed offset (world units). */
  bandLo: Float64Array;
  /** Pelvis band this frame: highest allowed offset (world units). */
  bandHi: Float64Array;
  /** Legs that constrained the band this frame. */
  bandLegs: Uint8Array;
  /** Planted legs whose reach could not be met by any pelvis height this frame. */
  bandInfeasible: Uint8Array;
  /** 1 when the planted feet put the pelvis beyond its drop/raise limits this frame (they win over them). */
  bandBeyondLimits: Uint8Array;
  /** Centre of mass (world), 3 per entity; valid when `comValid`. */
  comWs: Float64Array;
  /** Weighted centroid of the planted contacts (world), 3 per entity. */
  supportWs: Float64Array;
  /** 1 when comWs was computed this frame. */
  comValid: Uint8Array;
  /** 0 until the first frame. */
  initialised: Uint8Array;
  /** Ground callback per character (null = flat floor at the root frame's height). */
  ground: (GroundQuery | null)[];
  /** Start of this character's centre-of-mass segments in `world.comSegments` (f64 index; triples: slot, child slot or -1, mass fraction). */
  segStart: Int32Array;
  /** Number of f64 of this character's segments (3 per segment; 0: none). */
  segCount: Int32Array;
}

/** A two-bone chain and its IK request/outcome. */
export interface LimbComponent {
  /** Pose-store character id. */
  char: Int32Array;
  /** SceneCharacter entity that owns the limb. */
  owner: Int32Array;
  /** LIMB_LEG or LIMB_ARM. */
  kind: Uint8Array;
  /** 0 left, 1 right. */
  side: Uint8Array;
  /** 1 for a quadruped's front leg. */
  front: Uint8Array;
  /** Root bone slot (hip, shoulder). */
  rootSlot: Int32Array;
  /** Mid bone slot (knee, elbow). */
  midSlot: Int32Array;
  /** End bone slot (ankle, wrist); may hang outside the chain (IK-controller rigs). */
  endSlot: Int32Array;
  /** 1 when the end bone is a descendant of the mid bone; 0 for IK-controller ends placed explicitly. */
  endIsChild: Uint8Array;
  /** Setup: one past the last pose slot of the root bone's subtree (the world-matrix refresh range after a solve). */
  subtreeEnd: Int32Array;
  /** End joint offset in the mid bone's local frame (used when `endIsChild` is 0), 3 per entity. */
  tipLs: Float64Array;
  /** Bend direction for a straight limb, in the root's parent frame, 3 per entity. */
  bendHintLs: Float64Array;
  /** Softening band (fraction of the chain length). */
  soften: Float64Array;
  /** Reach tolerance (world units). */
  reachTolerance: Float64Array;
  /** Request: position weight in [0, 1] (0 = leave the animation exactly). */
  weight: Float64Array;
  /** Request: rotation weight in [0, 1]. */
  rotWeight: Float64Array;
  /** Request: end joint target (world), 3 per entity. */
  targetWs: Float64Array;
  /** Request: end bone orientation target (world, x y z w), 4 per entity. */
  targetRotWs: Float64Array;
  /** Request: 1 when targetRotWs is set. */
  hasTargetRot: Uint8Array;
  /** Request: pole point (world), 3 per entity. */
  poleWs: Float64Array;
  /** Request: 1 when poleWs is set (else the animated knee/elbow guides the bend). */
  hasPole: Uint8Array;
  /** Outcome: 1 when the end reached the (weighted) target within tolerance. */
  reached: Uint8Array;
  /** Outcome: distance from the end to the weighted target (world units). */
  missWs: Float64Array;
  /** Outcome: distance from the end to the full-weight target (world units). */
  missFullWs: Float64Array;
  /** Outcome: root→end distance over chain length (1 = straight). */
  extension: Float64Array;
  /** Outcome: 1 when the solve ran on valid input this frame, 0 when skipped (weight 0) or invalid. */
  solved: Uint8Array;
  /** Outcome: 1 when this frame's input was invalid (non-finite target, zero-length bone); the animation was kept. */
  invalid: Uint8Array;
}

/** Foot contact state of a leg. */
export interface FootContactComponent {
  /** Input: stance weight in [0, 1] (how planted the foot is now). */
  stance: Float64Array;
  /** Stance weight after the grounded fade (what the solvers use). */
  stanceEff: Float64Array;
  /** Stance weight at which a contact is recorded. */
  lockOn: Float64Array;
  /** Largest tilt (radians) of the sole toward the ground normal. */
  maxTilt: Float64Array;
  /** 1 while a contact is recorded. */
  locked: Uint8Array;
  /** Support entity of the recorded contact, -1 for the world. */
  support: Int32Array;
  /** Recorded sole contact point in the support's local frame, 3 per entity. */
  contactSs: Float64Array;
  /** Recorded foot orientation in the support's local frame, 4 per entity. */
  rotSs: Float64Array;
  /** Recorded ground normal in the support's local frame, 3 per entity. */
  normalSs: Float64Array;
  /** Calibrated sole point in the end bone's local frame, 3 per entity. */
  soleLs: Float64Array;
  /** Calibrated sole normal (unit, pointing out of the sole toward the ground's up side) in the end bone's frame, 3 per entity. */
  soleNormalLs: Float64Array;
  /** SOLE_SKIN or SOLE_ANKLE. */
  soleSource: Uint8Array;
  /** Diagnostic: planted sole target this frame (world), 3 per entity. */
  contactWs: Float64Array;
  /** Diagnostic: ground normal under the foot this frame (world), 3 per entity. */
  normalWs: Float64Array;
  /** Diagnostic: ground height under the sole this frame (world y). */
  groundY: Float64Array;
  /** Diagnostic: 1 when the ground query found ground under the sole. */
  hasGround: Uint8Array;
  /** Diagnostic: support entity under the sole this frame (-1 world). */
  groundSupport: Int32Array;
}

/** Hand target of an arm. */
export interface HandTargetComponent {
  /** Input: target position (world): the wrist, or the held object when `hasGrip`. 3 per entity. */
  posWs: Float64Array;
  /** Input: target orientation (world), 4 per entity. */
  rotWs: Float64Array;
  /** Input: 1 when rotWs is set. */
  hasRot: Uint8Array;
  /** Input: position weight in [0, 1]. */
  weight: Float64Array;
  /** Input: rotation weight in [0, 1]. */
  rotWeight: Float64Array;
  /** Input: elbow pole point (world), 3 per entity. */
  poleWs: Float64Array;
  /** Input: 1 when poleWs is set. */
  hasPole: Uint8Array;
  /** Input: held object's pose in the wrist frame: position (world units), 3 per entity. */
  gripPos: Float64Array;
  /** Input: held object's pose in the wrist frame: rotation, 4 per entity. */
  gripRot: Float64Array;
  /** Input: 1 when a held object is given (posWs/rotWs are then the object's desired pose). */
  hasGrip: Uint8Array;
  /** Input: load of the held object (kg) for the centre of mass. */
  mass: Float64Array;
  /** Output: where the held object is after the solve (world), 3 per entity. */
  objectPosWs: Float64Array;
  /** Output: orientation of the held object after the solve (world), 4 per entity. */
  objectRotWs: Float64Array;
  /** Output: 1 when the target was out of reach: the character must be repositioned. */
  reposition: Uint8Array;
}

/**
 * A supporting object moved by the game. Supports are few, so their frames live in dense rows
 * (the world's `supportRows`, grown at setup), not one per entity: `row[eid]` is the support's
 * row, −1 for any entity that is not a live support; the other fields are indexed by row.
 */
export interface SupportFrameComponent {
  /** The support's row (per entity; −1: not a live support). */
  row: Int32Array;
  /** World matrix this frame (column-major), 16 per row. */
  matrixWs: Float64Array;
  /** World matrix last frame, 16 per row. */
  prevMatrixWs: Float64Array;
  /** Inverse of matrixWs, 16 per row. */
  invMatrixWs: Float64Array;
  /** Rotation of matrixWs (x y z w), 4 per row. */
  rotWs: Float64Array;
  /** 1 when matrixWs is mirrored, per row. */
  mirrored: Uint8Array;
}

/** The SupportFrame fields sized by support rows (the rest are per entity). */
export const SUPPORT_ROW_FIELDS = ['matrixWs', 'prevMatrixWs', 'invMatrixWs', 'rotWs', 'mirrored'] as const;

function f64(n: number): Float64Array {
  return new Float64Array(n);
}

/**
 * Create the scene components for `cap` entities and `supports` support rows.
 *
 * @example
 * const scene = createSceneComponents(256);
 */
export function createSceneComponents(cap: number, supports = 16): {
  SceneCharacter: SceneCharacterComponent;
  Limb: LimbComponent;
  FootContact: FootContactComponent;
  HandTarget: HandTargetComponent;
  SupportFrame: SupportFrameComponent;
} {
  return {
    SceneCharacter: {
      char: new Int32Array(cap), pelvisSlot: new Int32Array(cap), pelvisSubEnd: new Int32Array(cap), pelvisDense: new Uint8Array(cap), legs: new Int32Array(cap * MAX_LEGS).fill(-1),
      legCount: new Uint8Array(cap), arms: new Int32Array(cap * MAX_ARMS).fill(-1), armCount: new Uint8Array(cap),
      grounded: new Uint8Array(cap), groundBlend: f64(cap), groundRate: f64(cap), balanceInput: f64(cap), balance: f64(cap),
      balanceMaxShift: f64(cap), pelvisRate: f64(cap), maxDrop: f64(cap), maxRaise: f64(cap), unitScale: f64(cap),
      bodyMass: f64(cap), offsetWs: f64(cap * 3), bandLo: f64(cap), bandHi: f64(cap), bandLegs: new Uint8Array(cap),
      bandInfeasible: new Uint8Array(cap), bandBeyondLimits: new Uint8Array(cap), comWs: f64(cap * 3), supportWs: f64(cap * 3), comValid: new Uint8Array(cap),
      initialised: new Uint8Array(cap), ground: new Array<GroundQuery | null>(cap).fill(null),
      segStart: new Int32Array(cap), segCount: new Int32Array(cap),
    },
    Limb: {
      char: new Int32Array(cap), owner: new Int32Array(cap), kind: new Uint8Array(cap), side: new Uint8Array(cap),
      front: new Uint8Array(cap), rootSlot: new Int32Array(cap), midSlot: new Int32Array(cap), endSlot: new Int32Array(cap),
      endIsChild: new Uint8Array(cap), subtreeEnd: new Int32Array(cap), tipLs: f64(cap * 3), bendHintLs: f64(cap * 3), soften: f64(cap),
      reachTolerance: f64(cap), weight: f64(cap), rotWeight: f64(cap), targetWs: f64(cap * 3), targetRotWs: f64(cap * 4),
      hasTargetRot: new Uint8Array(cap), poleWs: f64(cap * 3), hasPole: new Uint8Array(cap), reached: new Uint8Array(cap),
      missWs: f64(cap), missFullWs: f64(cap), extension: f64(cap), solved: new Uint8Array(cap), invalid: new Uint8Array(cap),
    },
    FootContact: {
      stance: f64(cap), stanceEff: f64(cap), lockOn: f64(cap), maxTilt: f64(cap), locked: new Uint8Array(cap),
      support: new Int32Array(cap), contactSs: f64(cap * 3), rotSs: f64(cap * 4), normalSs: f64(cap * 3),
      soleLs: f64(cap * 3), soleNormalLs: f64(cap * 3), soleSource: new Uint8Array(cap), contactWs: f64(cap * 3),
      normalWs: f64(cap * 3), groundY: f64(cap), hasGround: new Uint8Array(cap), groundSupport: new Int32Array(cap),
    },
    HandTarget: {
      posWs: f64(cap * 3), rotWs: f64(cap * 4), hasRot: new Uint8Array(cap), weight: f64(cap), rotWeight: f64(cap),
      poleWs: f64(cap * 3), hasPole: new Uint8Array(cap), gripPos: f64(cap * 3), gripRot: f64(cap * 4),
      hasGrip: new Uint8Array(cap), mass: f64(cap), objectPosWs: f64(cap * 3), objectRotWs: f64(cap * 4),
      reposition: new Uint8Array(cap),
    },
    SupportFrame: {
      row: new Int32Array(cap).fill(-1),
      matrixWs: f64(supports * 16), prevMatrixWs: f64(supports * 16), invMatrixWs: f64(supports * 16), rotWs: f64(supports * 4),
      mirrored: new Uint8Array(supports),
    },
  };
}
