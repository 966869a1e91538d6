/**
 * The standalone two-bone solve's types, options and defaults (the solve itself,
 * `solveTwoBone`, runs on the WebAssembly kernel: runtime/twoBone.ts).
 *
 * Analytic two-bone IK: a root → mid → end chain (hip-knee-ankle, shoulder-
 * elbow-wrist) turned so the end reaches a target, with a pole (knee/elbow guide), separate
 * position and rotation weights, an end-effector orientation target, softening near full
 * extension and a `reached` flag.
 *
 * Everything happens in one "solve space" chosen by the caller: any frame in which the chain
 * is rigid (bone lengths constant). The runtime uses the limb root's parent-local frame, which
 * makes the result exact under translated, rotated, uniformly or non-uniformly scaled and
 * mirrored parents (positions are carried by the full affine parent, so the end lands on the
 * target in world space whatever the parent's scale).
 *
 * The solve only produces rotations: bone lengths are never changed, so an out-of-reach target
 * leaves the limb fully extended, pointing at the target, and reports the miss.
 *
 * Method: the knee keeps its hinge axis n (normal of the current bend plane) and turns by the
 * change of its interior angle (law of cosines); the new knee lies toward the pole (default:
 * the animated knee, i.e. keep the clip's bend plane) and the root rotation is the one taking
 * the frame (upper bone, n) onto (new upper bone, new hinge). A straight limb bends its knee
 * toward the caller's bend hint; a pole on the root→target line keeps the current hinge. No
 * trigonometric calls: cosines, half-angle square roots and one matrix-to-quaternion.
 */
import type { PartialOptions } from '../defaults';

/** Options of {@link solveTwoBone}. */
export interface TwoBoneOptions {
  /** Position weight in [0, 1]: 0 leaves the chain exactly as animated, 1 reaches for the target. */
  weight: number;
  /** Rotation weight in [0, 1] for the end-effector orientation target (ignored without one). */
  rotationWeight: number;
  /** Softening band as a fraction of the chain length (0 = hard). Beyond `(1 − soften) × length` (or the animated extension, if larger) the reach approaches full extension smoothly instead of snapping straight. */
  soften: number;
  /** Distance (solve-space units) under which the end counts as having reached the target. */
  reachTolerance: number;
}

/** Defaults of {@link TwoBoneOptions}: full weights, hard reach, 1e-4 tolerance (0.1 mm in metres). */
export const TWO_BONE_DEFAULTS: Readonly<TwoBoneOptions> = Object.freeze({
  weight: 1,
  rotationWeight: 1,
  soften: 0,
  reachTolerance: 1e-4,
});

/**
 * Merge options over {@link TWO_BONE_DEFAULTS} and validate them. Setup-time; throws
 * `bitrig/ik: …` naming the bad field.
 *
 * @example
 * const opts = twoBoneOptions({ soften: 0.02 });
 */
export function twoBoneOptions(user: PartialOptions<TwoBoneOptions> = {}): TwoBoneOptions {
  const o: TwoBoneOptions = { ...TWO_BONE_DEFAULTS };
  for (const k of Object.keys(user) as (keyof TwoBoneOptions)[]) if (user[k] !== undefined) o[k] = user[k]!;
  const in01 = (k: keyof TwoBoneOptions, hi = 1): void => {
    if (!(o[k] >= 0 && o[k] <= hi)) throw new Error(`bitrig/ik: option ${k} must be in [0, ${hi}], got ${String(o[k])}`);
  };
  in01('weight');
  in01('rotationWeight');
  in01('soften', 0.5);
  if (!(o.reachTolerance > 0 && Number.isFinite(o.reachTolerance))) throw new Error(`bitrig/ik: option reachTolerance must be a positive number, got ${String(o.reachTolerance)}`);
  return o;
}

/** Inputs of {@link solveTwoBone}, all in one solve space. */
export interface TwoBoneInput {
  /** Root joint position (hip, shoulder). */
  root: ArrayLike<number>;
  /** Mid joint position (knee, elbow). */
  mid: ArrayLike<number>;
  /** End joint position (ankle, wrist) as animated. */
  end: ArrayLike<number>;
  /** Target position for the end joint. */
  target: ArrayLike<number>;
  /** End-effector orientation target (x, y, z, w), or null/undefined for position only. */
  targetRotation?: ArrayLike<number> | null;
  /** A point the mid joint should bend toward; default: the animated mid joint (keep the clip's bend plane). */
  pole?: ArrayLike<number> | null;
  /** Direction the mid joint should point when the limb is straight (default: any perpendicular). */
  bendHint?: ArrayLike<number> | null;
  /** Current orientation of the root bone (solve space); default identity. */
  rootRotation?: ArrayLike<number> | null;
  /** Current orientation of the mid bone; default identity. */
  midRotation?: ArrayLike<number> | null;
  /** Current orientation of the end bone; default identity. */
  endRotation?: ArrayLike<number> | null;
}

/** Caller-owned outputs of {@link solveTwoBone} (create once with {@link createTwoBoneOutput}). */
export interface TwoBoneOutput {
  /** Rotation applied to the whole chain about the root: `root' = rootDelta · root`. */
  rootDelta: Float64Array;
  /** Rotation of the lower bone about the mid joint, in the original pose: `mid' = rootDelta · midDelta · mid`. */
  midDelta: Float64Array;
  /** New root orientation. */
  rootRotation: Float64Array;
  /** New mid orientation. */
  midRotation: Float64Array;
  /** New end orientation (slerp of the animated one toward the target by the rotation weight). */
  endRotation: Float64Array;
  /** New mid joint position. */
  midPosition: Float64Array;
  /** New end joint position. */
  endPosition: Float64Array;
  /** The target after the position weight (what the solve reached for). */
  blendedTarget: Float64Array;
  /** True when the end is within `reachTolerance` of the blended target. */
  reached: boolean;
  /** Distance from the end to the blended target (solve-space units). */
  miss: number;
  /** Root→end distance over the chain length after the solve (1 = fully extended). */
  extension: number;
}

/**
 * Allocate an output record (setup-time).
 *
 * @example
 * const out = createTwoBoneOutput();
 */
export function createTwoBoneOutput(): TwoBoneOutput {
  const q = (): Float64Array => Float64Array.of(0, 0, 0, 1);
  return {
    rootDelta: q(), midDelta: q(), rootRotation: q(), midRotation: q(), endRotation: q(),
    midPosition: new Float64Array(3), endPosition: new Float64Array(3), blendedTarget: new Float64Array(3),
    reached: false, miss: 0, extension: 0,
  };
}
