/**
 * Options of the rig pass. One interface, one defaults object, one merge
 * ({@link mergeRigOptions}). Lengths are fractions of the model height `H` (bind-space
 * extent along the up axis) unless a field says otherwise.
 */

import { checkOptionKeys, describeValue, type PartialOptions } from '../core/defaults';

/** What a long piece hanging from the pelvis becomes. */
export type RigMode = 'chain' | 'rigid';

/** Opt-in classes of pieces the default policy leaves alone. */
export type RigInclude = 'spine' | 'torso';

/** Callback for long steps: `step` names the step, `fraction` runs 0…1 over the pass. */
export type RigProgress = (step: string, fraction: number) => void;

/** Options of {@link rigAppendages}. */
export interface RigOptions {
  /** `'chain'` grows Tail_1…Tail_K (default); `'rigid'` gives every piece vertex weight 1.0 on the pelvis. */
  mode: RigMode;
  /** Opt-ins: `'spine'` makes long pieces hanging from the spine rigid on their bone; `'torso'` does the same for worn torso pieces (capes, skirts), never for the body's own far skin (kind `body`). */
  include: readonly RigInclude[];
  /** Far skin: skeleton distance above this fraction of H (default 7 %). */
  farFraction: number;
  /** Leaf joints get a stub past the joint of this fraction of their incoming bone's length. */
  leafStubFraction: number;
  /** Weld tolerance: positions are quantised to this fraction of H before hashing. */
  weldFraction: number;
  /** Attachment bias: a torso or thigh joint within this factor of the nearest joint's distance wins. */
  attachBias: number;
  /** Appendage test (a): the centroid's skeleton distance must be at least this fraction of the reach. */
  minCentroidRatio: number;
  /** [ours] Only long pieces grow: the reach (collar centroid to farthest vertex) must be at least this fraction of H. */
  minReach: number;
  /** Appendage test (b): elongation sqrt(λ1/λ2) at least this (tail ≈ 2.6, cape or skirt ≈ 1). */
  minElongation: number;
  /**
   * [ours] Body, not worn: a long torso piece that is no appendage but is elongated (at least
   * `minElongation`) along a direction more than this many degrees from up lies along the
   * body (a quadruped's belly, flanks and neck), while a worn piece hangs (a cape or strap:
   * long axis near vertical) or is wide (a skirt). Degrees, 0…90.
   */
  hangAngleDeg: number;
  /** [ours] Body, not worn: a torso piece holding at least this fraction of the skin's surface area is the body itself, whatever its shape. */
  bodyAreaShare: number;
  /**
   * A far piece is the body itself only when it is a volume, not a thin sheet: its thickness
   * sqrt(λ3/λ2) (smallest over middle principal extent) at least this. Capes measure 0.10–0.24,
   * animal bodies 0.35–0.90.
   */
  bodyMinThickness: number;
  /**
   * [ours] Fat bodies hide tails: a worn torso piece at least `minReach` long is searched again
   * with the far threshold raised by this factor per step (1 disables the search).
   */
  refineStep: number;
  /** Highest raised far threshold, as a fraction of H. */
  maxFarFraction: number;
  /** A piece found at a raised threshold needs a compact root: collar RMS spread ≤ this fraction of its reach (or skin driven from far away). */
  maxCollarSpread: number;
  /** [ours] A floating shell (no non-far skin touches it: a tail tip in another material) joins the nearest piece within this fraction of the far distance. */
  floatGapFraction: number;
  /** Merge pieces on the same attachment whose bounding boxes overlap by more than this fraction (of the larger box). */
  mergeOverlap: number;
  /** Pieces with fewer welded vertices than this are reported as noise and left alone. */
  minPieceVertices: number;
  /** Tail length L is this percentile of the geodesic coordinate g (0…1). */
  lengthPercentile: number;
  /** Segment length target as a fraction of H: K = clamp(round(L / (segmentFraction·H)), minSegments, maxSegments). */
  segmentFraction: number;
  /** Fewest segments of a grown chain. */
  minSegments: number;
  /** Most segments of a grown chain. */
  maxSegments: number;
  /** Smoothing passes J_i ← ½J_i + ¼(J_{i−1} + J_{i+1}) on the interior joints. */
  smoothingPasses: number;
  /**
   * [ours] Also re-weight non-far skin connected to a piece whose weighted bone distance is
   * above the far distance (a tail's own root ring given to a shin is driven from far away).
   */
  absorbMisweighted: boolean;
  /** [ours] Skin is "driven from far away" when its weighted bone distance exceeds its skeleton distance by more than this fraction of H. */
  absorbMargin: number;
  /** Name prefix of grown bones: `Tail` gives `Tail_1…Tail_K` and `Tail_End`. */
  boneName: string;
  /** Pelvis joint name override; by default found by name, then by structure. */
  pelvis: string | null;
  /** Progress callback, or null. */
  onProgress: RigProgress | null;
}

/** The rig pass's defaults. */
export const RIG_DEFAULTS: Readonly<RigOptions> = Object.freeze({
  mode: 'chain' as RigMode,
  include: Object.freeze([]) as readonly RigInclude[],
  farFraction: 0.07,
  leafStubFraction: 0.5,
  weldFraction: 1e-5,
  attachBias: 1.5,
  minCentroidRatio: 0.4,
  minReach: 0.15,
  minElongation: 1.8,
  hangAngleDeg: 45,
  bodyAreaShare: 0.5,
  bodyMinThickness: 0.3,
  refineStep: 1.25,
  maxFarFraction: 0.3,
  maxCollarSpread: 0.4,
  floatGapFraction: 0.05,
  mergeOverlap: 0.5,
  minPieceVertices: 8,
  lengthPercentile: 0.99,
  segmentFraction: 0.1,
  minSegments: 3,
  maxSegments: 8,
  smoothingPasses: 2,
  absorbMisweighted: true,
  absorbMargin: 0.035,
  boneName: 'Tail',
  pelvis: null,
  onProgress: null,
});

/** The keys of {@link RigOptions}. */
export const RIG_OPTION_KEYS: readonly string[] = Object.freeze(Object.keys(RIG_DEFAULTS));

/**
 * {@link RigOptions} as callers pass them: every field optional (undefined keeps the default),
 * and `include` also as one name (`include: 'torso'` is `include: ['torso']`).
 */
export type RigOptionsInput = PartialOptions<Omit<RigOptions, 'include'>> & {
  /** Opt-ins (see {@link RigOptions.include}): a list, or one name. */
  include?: RigInclude | readonly RigInclude[] | undefined;
};

/**
 * Merge caller options over {@link RIG_DEFAULTS} and check them. Throws `bitrig/rig: …`
 * naming the bad field; an unknown key is refused with the nearest known one
 * (`mdoe` → did you mean "mode"?). A field given as undefined keeps its default; `include`
 * may be one name instead of a list.
 *
 * @example
 * const o = mergeRigOptions({ mode: 'rigid' }); // o.farFraction === 0.07
 */
export function mergeRigOptions(options: RigOptionsInput = {}): RigOptions {
  checkOptionKeys(options, RIG_OPTION_KEYS, 'bitrig/rig');
  const user = stripUndefined(options) as Partial<RigOptions> & { include?: unknown };
  // (one name is one entry: iterating the string 'torso' would give 't', 'o', …)
  if (typeof user.include === 'string') user.include = [user.include as RigInclude];
  else if (user.include !== undefined && !Array.isArray(user.include)) {
    throw new Error(`bitrig/rig: include must be a list of "spine" and "torso" (or one of them), got ${describeValue(user.include)}`);
  }
  const o: RigOptions = { ...RIG_DEFAULTS, ...(user as Partial<RigOptions>) };
  if (o.mode !== 'chain' && o.mode !== 'rigid') throw new Error(`bitrig/rig: mode must be "chain" or "rigid", got ${JSON.stringify(o.mode)}`);
  for (const inc of o.include) {
    if (inc !== 'spine' && inc !== 'torso') throw new Error(`bitrig/rig: include accepts "spine" and "torso", got ${JSON.stringify(inc)}`);
  }
  if (!(o.refineStep >= 1 && Number.isFinite(o.refineStep))) throw new Error(`bitrig/rig: option refineStep must be ≥ 1, got ${o.refineStep}`);
  const positive: (keyof RigOptions)[] = ['maxFarFraction', 'farFraction', 'weldFraction', 'attachBias', 'segmentFraction'];
  for (const k of positive) {
    const v = o[k] as number;
    if (!(typeof v === 'number' && v > 0 && Number.isFinite(v))) throw new Error(`bitrig/rig: option ${k} must be a positive number, got ${String(v)}`);
  }
  const nonNeg: (keyof RigOptions)[] = ['leafStubFraction', 'minCentroidRatio', 'floatGapFraction', 'absorbMargin', 'maxCollarSpread', 'minReach', 'minElongation', 'mergeOverlap', 'minPieceVertices', 'smoothingPasses'];
  for (const k of nonNeg) {
    const v = o[k] as number;
    if (!(typeof v === 'number' && v >= 0 && Number.isFinite(v))) throw new Error(`bitrig/rig: option ${k} must be a number ≥ 0, got ${String(v)}`);
  }
  if (!(o.hangAngleDeg >= 0 && o.hangAngleDeg <= 90)) throw new Error(`bitrig/rig: option hangAngleDeg must be a number of degrees in [0, 90], got ${String(o.hangAngleDeg)}`);
  if (!(o.bodyAreaShare > 0 && o.bodyAreaShare <= 1)) throw new Error(`bitrig/rig: option bodyAreaShare must be in (0, 1], got ${String(o.bodyAreaShare)}`);
  if (!(typeof o.bodyMinThickness === 'number' && o.bodyMinThickness >= 0 && o.bodyMinThickness <= 1)) throw new Error(`bitrig/rig: option bodyMinThickness must be a number in [0, 1], got ${String(o.bodyMinThickness)}`);
  if (!(o.lengthPercentile > 0 && o.lengthPercentile <= 1)) throw new Error(`bitrig/rig: option lengthPercentile must be in (0, 1], got ${o.lengthPercentile}`);
  if (!(Number.isInteger(o.minSegments) && Number.isInteger(o.maxSegments) && o.minSegments >= 1 && o.maxSegments >= o.minSegments && o.maxSegments <= 8)) {
    throw new Error(`bitrig/rig: segments must be integers with 1 ≤ minSegments ≤ maxSegments ≤ 8, got ${o.minSegments}…${o.maxSegments}`);
  }
  if (!o.boneName || /[\s]/.test(o.boneName)) throw new Error(`bitrig/rig: option boneName must be a non-empty name without spaces`);
  return o;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
