/**
 * Pelvis grounding that ignores the tail, engine-free. `S` = support points sampled
 * from the skin, grouped by dominant bone; `T` = those dominated by tail bones (or given as a
 * tail-vertex mask, for a tail the rigger never gave bones); `E` = those owned by limb contact
 * solvers. With both minima using the same exclusion:
 *
 *   f_body = min_{v ∈ S∖T} y_v⁰                 (at calibration)
 *   c(t)   = min_{v ∈ S∖(T∪E)} y_v(t) − f_body
 *   L(t)   = max(0, a(t) − c(t)),  a(t) ≤ 0       (the allowed dip)
 *
 * and the seed's comparison `Δy_hips(t) = y_hips^{tail counted}(t) − y_hips^{tail excluded}(t)`.
 * "Tail counted" is the regression: `T = ∅` in both minima.
 *
 * World space of the scene, its units. Setup functions allocate and throw
 * `bitrig/grounding: …`; {@link supportHeights}, {@link bodyFloor} and {@link groundingLift}
 * do not allocate.
 */
import type { Document } from '@gltf-transform/core';
import { assertDocument } from './pass';
import { findPelvis, findTailChains, isTailName } from '../core/boneMap';
import { computeWorldMatrices, createClipSampler, createLocalPose, findClip, readSceneGraph, sampleClip, type SceneGraph } from './sample';
import { dominantJoints, jointMatrices, readSkins, skinVertices, type SkinData } from './skinning';
import { checkOptionKeys, describeValue, withDefaultsStrict, type PartialOptions } from '../core/defaults';

/** Options of the grounding functions. */
export interface GroundingOptions {
  /** Support points kept per dominant bone (extremes of the bone's skin first). */
  samplesPerBone: number;
  /** Exclude tail skin (T) from the calibration floor and from the lift. `false` is the regression. */
  excludeTail: boolean;
  /** Names of bones whose skin is owned by limb contact solvers (E): never asks for lift. */
  contactBones: readonly string[];
  /** Allowed dip a ≤ 0 below the calibration floor (world units). */
  allowedDip: number;
}

/** Defaults of {@link GroundingOptions}. */
export const GROUNDING_DEFAULTS: Readonly<GroundingOptions> = Object.freeze({
  samplesPerBone: 32,
  excludeTail: true,
  contactBones: Object.freeze([]) as readonly string[],
  allowedDip: 0,
});

/**
 * Merge grounding options over {@link GROUNDING_DEFAULTS}. Throws `bitrig/grounding: …`.
 *
 * @example
 * const o = mergeGroundingOptions({ excludeTail: false });
 */
export function mergeGroundingOptions(options: PartialOptions<GroundingOptions> = {}): GroundingOptions {
  checkOptionKeys(options, Object.keys(GROUNDING_DEFAULTS), 'bitrig/grounding');
  const o: GroundingOptions = { ...GROUNDING_DEFAULTS };
  for (const k of Object.keys(options) as (keyof GroundingOptions)[]) {
    if (options[k] !== undefined) (o as unknown as Record<string, unknown>)[k] = options[k];
  }
  if (!(Number.isInteger(o.samplesPerBone) && o.samplesPerBone >= 1)) throw new Error(`bitrig/grounding: samplesPerBone must be an integer ≥ 1, got ${String(o.samplesPerBone)}`);
  if (!(o.allowedDip <= 0 && Number.isFinite(o.allowedDip))) throw new Error(`bitrig/grounding: allowedDip must be a finite number ≤ 0, got ${String(o.allowedDip)}`);
  o.excludeTail = !!o.excludeTail;
  return o;
}

/** Support samples S over the skins, with their T and E flags. */
export interface SupportSamples {
  /** Skin (index into the skins array) of each sample. */
  skin: Int32Array;
  /** Vertex (in that skin's mesh) of each sample. */
  vertex: Int32Array;
  /** Dominant joint of each sample. */
  bone: Int32Array;
  /** 1 when the sample is tail skin (T). */
  tail: Uint8Array;
  /** 1 when the sample is owned by a limb contact solver (E). */
  contact: Uint8Array;
  /** Per skin: the sampled vertex indices (for skinning only those). */
  perSkin: Int32Array[];
}

/**
 * Joints that are tail bones: every bone of a tail chain found by name (and its end helper),
 * plus any joint whose name reads as a tail.
 *
 * @example
 * const isTail = tailJointMask(skins[0]!); // isTail[j] === 1 for Tail_1…Tail_End
 */
export function tailJointMask(skin: SkinData): Uint8Array {
  const mask = new Uint8Array(skin.names.length);
  for (const ch of findTailChains({ names: skin.names, parents: skin.parents })) {
    for (const b of ch.bones) mask[b] = 1;
    if (ch.end >= 0) mask[ch.end] = 1;
  }
  for (let j = 0; j < skin.names.length; j++) if (isTailName(skin.names[j]!)) mask[j] = 1;
  return mask;
}

/**
 * Tail vertices of a skin by dominant bone: vertices whose largest weight is on a tail bone.
 *
 * @example
 * const tail = tailDominatedVertices(skin);
 */
export function tailDominatedVertices(skin: SkinData): Uint8Array {
  const tj = tailJointMask(skin);
  const dom = dominantJoints(skin);
  const out = new Uint8Array(skin.mesh.count);
  for (let v = 0; v < out.length; v++) out[v] = dom[v]! >= 0 && tj[dom[v]!] === 1 ? 1 : 0;
  return out;
}

const DIRS: number[][] = [];
for (let x = -1; x <= 1; x++) for (let y = -1; y <= 1; y++) for (let z = -1; z <= 1; z++) {
  if (x === 0 && y === 0 && z === 0) continue;
  const l = Math.hypot(x, y, z);
  DIRS.push([x / l, y / l, z / l]);
}

/**
 * Pick support samples grouped by dominant bone: for each bone's skin, the extreme vertices
 * along 26 directions (the points that can become lowest as the bone turns), then evenly
 * spread vertices up to `samplesPerBone`. `tailVertex[s]` (per skin, optional) marks tail
 * skin; without it, tail skin is what tail bones dominate. Vertices without weight are not
 * support points.
 *
 * @example
 * const S = selectSupportSamples(skins, null, { samplesPerBone: 32, contactBones: [] });
 */
export function selectSupportSamples(
  skins: readonly SkinData[],
  tailVertex: readonly (Uint8Array | null | undefined)[] | null,
  options: Pick<GroundingOptions, 'samplesPerBone' | 'contactBones'>,
): SupportSamples {
  const sk: number[] = [], vx: number[] = [], bn: number[] = [], tl: number[] = [], ct: number[] = [];
  const perSkin: Int32Array[] = [];
  skins.forEach((skin, si) => {
    const dom = dominantJoints(skin);
    const tailMask = tailVertex?.[si] ?? tailDominatedVertices(skin);
    if (tailMask.length !== skin.mesh.count) throw new Error(`bitrig/grounding: tail mask of skin ${si} has ${tailMask.length} entries for ${skin.mesh.count} vertices`);
    const contactJ = new Uint8Array(skin.names.length);
    for (const name of options.contactBones) {
      const j = skin.names.indexOf(name);
      if (j >= 0) contactJ[j] = 1;
    }
    const groups = new Map<number, number[]>();
    for (let v = 0; v < skin.mesh.count; v++) {
      const j = dom[v]!;
      if (j < 0) continue;
      // Tail and body skin of one bone (a shin carrying a tail) are sampled separately.
      const key = j * 2 + (tailMask[v] ? 1 : 0);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = []));
      g.push(v);
    }
    const P = skin.mesh.positions;
    const chosen: number[] = [];
    for (const [key, g] of groups) {
      const pick = new Set<number>();
      let cx = 0, cy = 0, cz = 0;
      for (const v of g) { cx += P[3 * v]!; cy += P[3 * v + 1]!; cz += P[3 * v + 2]!; }
      cx /= g.length; cy /= g.length; cz /= g.length;
      for (const d of DIRS) {
        if (pick.size >= options.samplesPerBone) break;
        let best = -Infinity, bv = -1;
        for (const v of g) {
          const s = (P[3 * v]! - cx) * d[0]! + (P[3 * v + 1]! - cy) * d[1]! + (P[3 * v + 2]! - cz) * d[2]!;
          if (s > best) { best = s; bv = v; }
        }
        if (bv >= 0) pick.add(bv);
      }
      const rest = options.samplesPerBone - pick.size;
      if (rest > 0) {
        const step = g.length / rest;
        for (let i = 0; i < rest && pick.size < g.length; i++) pick.add(g[Math.min(g.length - 1, Math.floor(i * step))]!);
      }
      const j = key >> 1;
      for (const v of pick) {
        sk.push(si); vx.push(v); bn.push(j); tl.push(key & 1); ct.push(contactJ[j]!);
        chosen.push(v);
      }
    }
    perSkin.push(Int32Array.from(chosen));
  });
  return {
    skin: Int32Array.from(sk), vertex: Int32Array.from(vx), bone: Int32Array.from(bn),
    tail: Uint8Array.from(tl), contact: Uint8Array.from(ct), perSkin,
  };
}

/** Scratch for skinning samples: one joint-matrix and one position buffer per skin. */
export interface SupportScratch {
  /** Joint matrices per skin. */
  joints: Float64Array[];
  /** Skinned positions per skin (only sampled vertices are written). */
  positions: Float64Array[];
}

/**
 * Allocate the per-skin buffers {@link supportHeights} writes into.
 *
 * @example
 * const scratch = createSupportScratch(skins);
 */
export function createSupportScratch(skins: readonly SkinData[]): SupportScratch {
  return {
    joints: skins.map((s) => new Float64Array(16 * s.names.length)),
    positions: skins.map((s) => new Float64Array(3 * s.mesh.count)),
  };
}

/**
 * World height of every support sample at a pose (graph world matrices). No allocation.
 *
 * @example
 * supportHeights(skins, S, world, scratch, y);
 */
export function supportHeights(
  skins: readonly SkinData[], samples: SupportSamples, nodeWorld: Float64Array, scratch: SupportScratch, outY: Float64Array,
): void {
  for (let s = 0; s < skins.length; s++) {
    jointMatrices(skins[s]!, nodeWorld, scratch.joints[s]!);
    skinVertices(skins[s]!, scratch.joints[s]!, scratch.positions[s]!, samples.perSkin[s]!);
  }
  for (let i = 0; i < samples.vertex.length; i++) outY[i] = scratch.positions[samples.skin[i]!]![3 * samples.vertex[i]! + 1]!;
}

/**
 * Calibration floor `f_body = min_{v ∈ S∖T} y_v⁰` (all of S when `excludeTail` is false).
 * Returns +Infinity when no sample qualifies. No allocation.
 *
 * @example
 * const f = bodyFloor(S, y0, true);
 */
export function bodyFloor(samples: SupportSamples, y: ArrayLike<number>, excludeTail: boolean): number {
  let m = Infinity;
  for (let i = 0; i < samples.vertex.length; i++) {
    if (excludeTail && samples.tail[i] === 1) continue;
    const v = y[i]!;
    if (v < m) m = v;
  }
  return m;
}

/** Result of {@link groundingLift}. */
export interface GroundingLift {
  /** c(t): clearance of the lowest counted point above the calibration floor (world units). */
  clearance: number;
  /** L_raw(t) = max(0, a − c(t)) (world units, ≥ 0). */
  lift: number;
}

/**
 * Requested pelvis lift at a pose: `c = min_{v ∈ S∖(T∪E)} y_v − f_body`,
 * `L = max(0, a − c)`. With `excludeTail` false, T = ∅ (the regression). No allocation
 * except the returned object's fields written into `out`.
 *
 * @example
 * const r = groundingLift(S, y, f, { excludeTail: true, allowedDip: 0 }, { clearance: 0, lift: 0 });
 */
export function groundingLift(
  samples: SupportSamples, y: ArrayLike<number>, floorBody: number,
  options: Pick<GroundingOptions, 'excludeTail' | 'allowedDip'>, out: GroundingLift,
): GroundingLift {
  let m = Infinity;
  for (let i = 0; i < samples.vertex.length; i++) {
    if (options.excludeTail && samples.tail[i] === 1) continue;
    if (samples.contact[i] === 1) continue;
    const v = y[i]!;
    if (v < m) m = v;
  }
  if (!Number.isFinite(m) || !Number.isFinite(floorBody)) {
    out.clearance = 0;
    out.lift = 0;
    return out;
  }
  out.clearance = m - floorBody;
  out.lift = Math.max(0, options.allowedDip - out.clearance);
  return out;
}

/** One row of the seed's comparison. */
export interface HipsLiftRow {
  /** Clip time (s). */
  t: number;
  /** Pelvis world height as the clip puts it (no lift). */
  hipsClip: number;
  /** Pelvis world height with the tail counted (world units). */
  hipsCounted: number;
  /** Pelvis world height with the tail excluded. */
  hipsExcluded: number;
  /** Δy_hips = counted − excluded (≥ 0: the extra lift the tail asks for). */
  dy: number;
}

/** Result of {@link compareHipsLift}. */
export interface HipsLiftComparison {
  /** Clip name. */
  clip: string;
  /** Pelvis joint name. */
  pelvis: string;
  /** Calibration floor with the tail counted / excluded (world units). */
  floorCounted: number;
  /** Calibration floor with the tail excluded. */
  floorExcluded: number;
  /** Rows at evenly spaced times. */
  rows: HipsLiftRow[];
  /** Largest Δy over the rows. */
  maxDy: number;
  /** Number of support samples, and how many are tail skin. */
  supportSamples: number;
  /** Tail samples among them. */
  tailSamples: number;
}

/** Options of {@link compareHipsLift}. */
export interface HipsLiftOptions extends GroundingOptions {
  /** Evenly spaced sample times through the clip (t_i = i·D/n). */
  samples: number;
  /** Tail skin per skin (for a tail without bones); default: dominated by tail bones. */
  tailVertex: readonly (Uint8Array | null)[] | null;
  /** Calibration pose: the rest pose as loaded, or the clip's first frame. */
  calibration: 'rest' | 'clipStart';
}

/** Defaults of {@link HipsLiftOptions}. */
export const HIPS_LIFT_DEFAULTS: Readonly<HipsLiftOptions> = Object.freeze({
  ...GROUNDING_DEFAULTS, samples: 24, tailVertex: null, calibration: 'rest' as const,
});

/**
 * Merge {@link HipsLiftOptions} over {@link HIPS_LIFT_DEFAULTS}. Throws `bitrig/grounding: …`.
 *
 * @example
 * const o = mergeHipsLiftOptions({ samples: 48, calibration: 'clipStart' });
 */
export function mergeHipsLiftOptions(options: PartialOptions<HipsLiftOptions> = {}): HipsLiftOptions {
  checkOptionKeys(options, Object.keys(HIPS_LIFT_DEFAULTS), 'bitrig/grounding');
  const o: HipsLiftOptions = { ...HIPS_LIFT_DEFAULTS };
  for (const k of Object.keys(options) as (keyof HipsLiftOptions)[]) {
    if (options[k] !== undefined) (o as unknown as Record<string, unknown>)[k] = options[k];
  }
  Object.assign(o, mergeGroundingOptions({ samplesPerBone: o.samplesPerBone, excludeTail: o.excludeTail, contactBones: o.contactBones, allowedDip: o.allowedDip }));
  if (!(Number.isInteger(o.samples) && o.samples >= 1)) throw new Error(`bitrig/grounding: samples must be an integer ≥ 1, got ${String(o.samples)}`);
  if (o.calibration !== 'rest' && o.calibration !== 'clipStart') throw new Error(`bitrig/grounding: calibration must be 'rest' or 'clipStart', got ${String(o.calibration)}`);
  return o;
}

/**
 * The seed's comparison on a document's clip: the pelvis height when body grounding counts
 * the tail vs when it excludes it, at evenly spaced times. Without smoothing,
 * `y_hips^X(t) = y_hips^clip(t) + L^X(t)`, so Δy is the extra lift the tail asks for.
 * Throws `bitrig/grounding: …` (not a Document, no skin, unknown clip, no pelvis).
 *
 * @example
 * const r = compareHipsLift(doc, 'crouch');
 * console.log(r.maxDy); // 0 when the tail never dips below the body's floor
 */
export function compareHipsLift(doc: Document, clip: string, options: PartialOptions<HipsLiftOptions> = {}): HipsLiftComparison {
  assertDocument(doc, 'bitrig/grounding');
  const o = mergeHipsLiftOptions(options);
  const graph = readSceneGraph(doc);
  const skins = readSkins(doc, graph);
  const sampler = createClipSampler(graph, findClip(doc, clip, 'bitrig/grounding'));
  return compareHipsLiftOn(graph, skins, sampler, o);
}

/**
 * {@link compareHipsLift} on already-read data (the measure reuses its reads).
 *
 * @example
 * const r = compareHipsLiftOn(graph, skins, sampler, { ...HIPS_LIFT_DEFAULTS, samples: 24 });
 */
export function compareHipsLiftOn(
  graph: SceneGraph, skins: readonly SkinData[], sampler: ReturnType<typeof createClipSampler>, o: HipsLiftOptions,
): HipsLiftComparison {
  let main = skins[0]!;
  for (const s of skins) if (s.mesh.count > main.mesh.count) main = s;
  const pelvisJoint = pelvisOf(main);
  if (pelvisJoint < 0) throw new Error('bitrig/grounding: no pelvis joint found');
  const pelvisNode = main.jointNodes[pelvisJoint]!;
  const S = selectSupportSamples(skins, o.tailVertex, o);
  const scratch = createSupportScratch(skins);
  const pose = createLocalPose(graph);
  const world = new Float64Array(16 * graph.nodes.length);
  const y = new Float64Array(S.vertex.length);
  if (o.calibration === 'clipStart') sampleClip(sampler, graph, 0, pose);
  computeWorldMatrices(graph, pose, world);
  supportHeights(skins, S, world, scratch, y);
  const floorCounted = bodyFloor(S, y, false);
  const floorExcluded = bodyFloor(S, y, true);
  const rows: HipsLiftRow[] = [];
  const lc: GroundingLift = { clearance: 0, lift: 0 };
  const le: GroundingLift = { clearance: 0, lift: 0 };
  let maxDy = 0;
  for (let i = 0; i < o.samples; i++) {
    const t = (i * sampler.duration) / o.samples;
    sampleClip(sampler, graph, t, pose);
    computeWorldMatrices(graph, pose, world);
    supportHeights(skins, S, world, scratch, y);
    groundingLift(S, y, floorCounted, { excludeTail: false, allowedDip: o.allowedDip }, lc);
    groundingLift(S, y, floorExcluded, { excludeTail: true, allowedDip: o.allowedDip }, le);
    const hy = world[16 * pelvisNode + 13]!;
    const row = { t, hipsClip: hy, hipsCounted: hy + lc.lift, hipsExcluded: hy + le.lift, dy: lc.lift - le.lift };
    if (row.dy > maxDy) maxDy = row.dy;
    rows.push(row);
  }
  let tailSamples = 0;
  for (let i = 0; i < S.tail.length; i++) tailSamples += S.tail[i]!;
  return {
    clip: sampler.name, pelvis: main.names[pelvisJoint]!, floorCounted, floorExcluded, rows, maxDy,
    supportSamples: S.vertex.length, tailSamples,
  };
}

function pelvisOf(skin: SkinData): number {
  return findPelvis({ names: skin.names, parents: skin.parents });
}

/**
 * Lowest point of a point set, skipping excluded points (`exclude[i] === 1`). +Infinity when
 * nothing is left. The engine-free core of {@link placeOnGround} and the three.js wrapper.
 *
 * @example
 * const floor = lowestPoint(ys, tailMask); // the body's floor, tail ignored
 */
export function lowestPoint(y: ArrayLike<number>, exclude: ArrayLike<number> | null): number {
  let m = Infinity;
  for (let i = 0; i < y.length; i++) {
    if (exclude && exclude[i] === 1) continue;
    const v = y[i]!;
    if (v < m) m = v;
  }
  return m;
}

/** Result of {@link placeOnGround}. */
export interface GroundPlacement {
  /** Vertical offset that puts the body's lowest point on the floor (world units). */
  offsetY: number;
  /** Lowest point of the body skin (tail excluded) before the offset. */
  bodyFloor: number;
  /** Lowest point of all skin, tail included (what a naive viewer would use). */
  allFloor: number;
}

/** Options of {@link placeOnGround}. */
export interface PlaceOnGroundOptions {
  /** Floor height (world Y). */
  floorY: number;
  /** Translate the scene's root nodes by the offset (otherwise only report it). */
  apply: boolean;
  /** Tail skin per skin; default: dominated by tail bones. */
  tailVertex: readonly (Uint8Array | null)[] | null;
}

/** Defaults of {@link PlaceOnGroundOptions}. */
export const PLACE_ON_GROUND_DEFAULTS: Readonly<PlaceOnGroundOptions> = Object.freeze({ floorY: 0, apply: false, tailVertex: null });

/**
 * Put a document's character on the ground the way a viewer should: the floor is
 * the lowest point of the skinned rest pose **without tail skin**, so a tail hanging below
 * the soles never lifts the model. Unskinned meshes are not considered. With `apply`, the
 * scene's root nodes are translated by `offsetY`. Takes a glTF-Transform Document (a model
 * loaded with three.js has its own `placeOnGround` in 'bitrig/three'); anything else throws
 * `bitrig/grounding: expected a glTF-Transform Document …`, as does an unknown option key
 * (`bitrig/grounding: unknown option "aply" (did you mean "apply"?)…`).
 *
 * @example
 * const { offsetY } = placeOnGround(doc, { apply: true });
 */
export function placeOnGround(doc: Document, options: PartialOptions<PlaceOnGroundOptions> = {}): GroundPlacement {
  assertDocument(doc, 'bitrig/grounding');
  const o = withDefaultsStrict(PLACE_ON_GROUND_DEFAULTS, options, 'bitrig/grounding');
  if (typeof o.floorY !== 'number' || !Number.isFinite(o.floorY)) throw new Error(`bitrig/grounding: floorY must be a finite number, got ${describeValue(o.floorY)}`);
  if (typeof o.apply !== 'boolean') throw new Error(`bitrig/grounding: apply must be true or false, got ${describeValue(o.apply)}`);
  if (o.tailVertex !== null && !Array.isArray(o.tailVertex)) throw new Error(`bitrig/grounding: tailVertex must be a list (one vertex mask or null per skin) or null, got ${describeValue(o.tailVertex)}`);
  const graph = readSceneGraph(doc);
  const skins = readSkins(doc, graph);
  const world = new Float64Array(16 * graph.nodes.length);
  computeWorldMatrices(graph, createLocalPose(graph), world);
  let body = Infinity;
  let all = Infinity;
  skins.forEach((skin, si) => {
    const jm = new Float64Array(16 * skin.names.length);
    jointMatrices(skin, world, jm);
    const pos = new Float64Array(3 * skin.mesh.count);
    skinVertices(skin, jm, pos);
    const ys = new Float64Array(skin.mesh.count);
    for (let v = 0; v < ys.length; v++) ys[v] = pos[3 * v + 1]!;
    const tail = o.tailVertex?.[si] ?? tailDominatedVertices(skin);
    body = Math.min(body, lowestPoint(ys, tail));
    all = Math.min(all, lowestPoint(ys, null));
  });
  if (!Number.isFinite(body)) body = all;
  const offsetY = Number.isFinite(body) ? o.floorY - body : 0;
  if (o.apply && offsetY !== 0) {
    for (const scene of doc.getRoot().listScenes()) {
      for (const n of scene.listChildren()) {
        if (n.getSkin()) continue; // skinned mesh nodes do not move their skin (glTF)
        const t = n.getTranslation();
        n.setTranslation([t[0], t[1] + offsetY, t[2]]);
      }
    }
  }
  return { offsetY, bodyFloor: body, allFloor: all };
}
