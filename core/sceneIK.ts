/**
 * Scene IK setup and per-frame inputs, engine-free. Adapters call:
 *
 * - {@link addSceneIK} once per bound character: finds the limbs (bone-name map), creates the
 *   limb entities, calibrates each sole from the foot's skin, builds the centre-of-mass
 *   segments, and flags the bones scene IK writes in the binding.
 * - {@link setSceneInputs} every frame before the pipeline: stance weights per leg, hand
 *   targets, the game's ground query, grounded state (copied into typed arrays; no allocation).
 * - {@link addSupport} / {@link setSupportFrame} for floors, platforms and ladders the game moves.
 * - {@link sceneDiagnostics} for overlays and tests: contacts, COM, reach status, pelvis band.
 *
 * The systems (FootLock → PelvisHeight → TwoBoneIK) do the work inside `update(world, dt)`.
 * Setup throws `bitrig/sceneIK: …`; the per-frame functions never throw.
 */
import { addComponent } from 'bitecs';
import type { BitrigWorld } from './world';
import { addBitrigEntity, ensureSupportRow, isBitrigWorld, relayout, removeBitrigEntity, requireBitrigWorld } from './world';
import type { CharacterBinding } from './binding';
import { findLimbs, type LimbBones } from './limbMap';
import { isSpineName, isTailName, parseBoneName, type SkeletonTopology } from './boneMap';
import { bindWorldMatrices } from './tailSetup';
import {
  LIMB_ARM, LIMB_LEG, MAX_ARMS, MAX_LEGS, SOLE_ANKLE, SOLE_SKIN,
} from './components/scene';
import { invertAffine, isInvertible3, isMirroredMatrix, rotationOfMatrix, transformDir, transformPoint } from './ik/frames';
import { qRotateInv } from './qmath';
import { computeCenterOfMass } from './ik/com';
import { checkOption, checkOptionKeys, describeValue, type OptionRow, type PartialOptions } from './defaults';

export { computeCenterOfMass };

// ---------------------------------------------------------------------------------------------
// Options

/** A skin as an adapter reads it from a mesh, in bind space (the space the inverse bind matrices apply to). */
export interface SkinInput {
  /** Vertex positions in bind space, 3 per vertex. */
  positions: ArrayLike<number>;
  /** Four joint indices per vertex, indexing the binding's bones (skin joint order). */
  joints: ArrayLike<number>;
  /** Four weights per vertex. */
  weights: ArrayLike<number>;
  /** Inverse bind matrices (16 per joint, column-major) in the same space as `positions`; default: derived from the binding's bind pose. */
  inverseBind?: ArrayLike<number> | undefined;
}

/** An explicitly named limb (overrides the bone-name map). */
export interface LimbSpec {
  /** `'leg'` or `'arm'`. */
  kind: 'leg' | 'arm';
  /** Root bone name (hip, shoulder). */
  root: string;
  /** Mid bone name (knee, elbow). */
  mid: string;
  /** End bone name (ankle, wrist, or an IK controller carrying the foot). */
  end: string;
  /** Side; default from the name. */
  side?: 'left' | 'right' | undefined;
  /** A quadruped's front leg. */
  front?: boolean | undefined;
}

/** Options of {@link addSceneIK}. Lengths in metres (× unitScale), angles in radians, rates in 1/s. */
export interface SceneIKOptions {
  /** World units per metre (100 for a centimetre rig left unscaled). */
  unitScale: number;
  /** Softening band of every limb near full extension, as a fraction of its length (0 = hard). */
  soften: number;
  /** Distance (metres) under which an end effector counts as having reached its target. */
  reachTolerance: number;
  /** Largest tilt of a sole toward the ground normal (radians, in [0, π/2]; default 30° = 0.5236). */
  maxTilt: number;
  /** Stance weight at which a foot's contact is recorded (locked). */
  lockOn: number;
  /** Pelvis height smoothing rate (1/s); the smoothed height is always clamped into the band. */
  pelvisRate: number;
  /** Largest pelvis drop the animation's own height is moved by, as a fraction of the mean leg length. Planted feet that need more win over it (diagnostics then say `beyondLimits` and ask for a reposition). */
  maxDrop: number;
  /** Largest pelvis raise, as `maxDrop`. */
  maxRaise: number;
  /** Balance weight used while every foot is planted (scaled by the least stance weight) when the game passes no `balance` input: how far the pelvis moves the COM over the supporting feet. Default 0 (off): the clip's own posture is kept; set it, or pass `balance` per frame, for standing reaches and carried loads. */
  balance: number;
  /** Largest horizontal balance shift, as a fraction of the mean leg length. */
  balanceMaxShift: number;
  /** Rate (1/s) at which scene IK fades in or out when `grounded` changes. */
  groundRate: number;
  /** Body mass (kg) against which held loads are weighed for the centre of mass. */
  bodyMass: number;
  /** Include arms (hand targets). */
  arms: boolean;
  /** The mesh's skin for sole calibration; null = ankle-projected approximation. */
  skin: SkinInput | null;
  /** Explicit limbs by bone name; null = found by the bone-name map. */
  limbs: readonly LimbSpec[] | null;
}

/**
 * The scene IK options' table: default, kind and range of each (the numbers, the angle and the
 * switch; `skin` and `limbs` are objects checked on their own). {@link SCENE_IK_DEFAULTS} and
 * the validation in {@link mergeSceneIKOptions} are made from it.
 */
export const SCENE_IK_OPTION_TABLE = {
  unitScale: { default: 1, kind: 'number', min: 0, openMin: true, max: 1e6, unit: '', field: 'unitScale', doc: 'world units per metre' },
  soften: { default: 0.01, kind: 'number', min: 0, max: 0.5, unit: '', field: 'soften', doc: 'softening band near full extension, as a fraction of the limb\'s length' },
  reachTolerance: { default: 1e-4, kind: 'number', min: 0, openMin: true, max: 1, unit: '', field: 'reachTolerance', doc: 'distance (m) under which an end effector has reached its target' },
  maxTilt: { default: (30 * Math.PI) / 180, kind: 'angle', min: 0, max: Math.PI / 2, minText: '0', maxText: 'π/2', unit: 'rad', field: 'maxTilt', doc: 'largest tilt of a sole toward the ground normal' },
  lockOn: { default: 0.5, kind: 'number', min: 0, openMin: true, max: 1, unit: '', field: 'lockOn', doc: 'stance weight at which a foot\'s contact is locked' },
  pelvisRate: { default: 12, kind: 'number', min: 0, max: 1e4, unit: '', field: 'pelvisRate', doc: 'pelvis height smoothing rate (1/s)' },
  maxDrop: { default: 0.45, kind: 'number', min: 0, max: 1, unit: '', field: 'maxDrop', doc: 'largest pelvis drop, as a fraction of the mean leg length' },
  maxRaise: { default: 0.05, kind: 'number', min: 0, max: 1, unit: '', field: 'maxRaise', doc: 'largest pelvis raise, as a fraction of the mean leg length' },
  balance: { default: 0, kind: 'number', min: 0, max: 1, unit: '', field: 'balance', doc: 'balance weight while every foot is planted' },
  balanceMaxShift: { default: 0.15, kind: 'number', min: 0, max: 1, unit: '', field: 'balanceMaxShift', doc: 'largest horizontal balance shift, as a fraction of the mean leg length' },
  groundRate: { default: 10, kind: 'number', min: 0, max: 1e4, unit: '', field: 'groundRate', doc: 'fade rate (1/s) when grounded changes' },
  bodyMass: { default: 70, kind: 'number', min: 0, openMin: true, max: 1e6, unit: '', field: 'bodyMass', doc: 'body mass (kg) held loads are weighed against' },
  arms: { default: true, kind: 'boolean', unit: '', field: 'armCount', doc: 'include arms (hand targets)' },
} as const satisfies Record<string, OptionRow>;

/** Defaults of {@link SceneIKOptions}. */
export const SCENE_IK_DEFAULTS: Readonly<SceneIKOptions> = Object.freeze({
  ...(Object.fromEntries(Object.entries(SCENE_IK_OPTION_TABLE).map(([k, r]) => [k, r.default])) as unknown as Omit<SceneIKOptions, 'skin' | 'limbs'>),
  skin: null,
  limbs: null,
});

/** The keys of {@link SceneIKOptions}. */
export const SCENE_IK_OPTION_KEYS: readonly string[] = Object.freeze(Object.keys(SCENE_IK_DEFAULTS));

const LIMB_SPEC_KEYS: readonly string[] = ['kind', 'root', 'mid', 'end', 'side', 'front'];

/**
 * Merge options over {@link SCENE_IK_DEFAULTS} and validate them (setup-time; throws
 * `bitrig/sceneIK: …` naming the bad field, its value and the fix: an unknown key, with the
 * nearest known one; `maxTilt` out of range, with a hint when it reads as degrees). A field
 * given as undefined keeps its default.
 *
 * @example
 * const o = mergeSceneIKOptions({ unitScale: 100, maxTilt: 0.4 });
 */
export function mergeSceneIKOptions(user: PartialOptions<SceneIKOptions> = {}): SceneIKOptions {
  checkOptionKeys(user, SCENE_IK_OPTION_KEYS, 'bitrig/sceneIK');
  const o = { ...SCENE_IK_DEFAULTS } as SceneIKOptions;
  for (const k of Object.keys(user) as (keyof SceneIKOptions)[]) {
    if (user[k] !== undefined) (o as unknown as Record<string, unknown>)[k] = user[k];
  }
  for (const k of Object.keys(SCENE_IK_OPTION_TABLE) as (keyof typeof SCENE_IK_OPTION_TABLE)[]) checkOption('bitrig/sceneIK', k, SCENE_IK_OPTION_TABLE[k], o[k]);
  checkSkin(o.skin);
  checkLimbs(o.limbs);
  return o;
}

/** A number array (a typed array or an array of numbers). */
function isArrayLike(v: unknown): boolean {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

function checkSkin(skin: unknown): void {
  if (skin === null) return;
  if (typeof skin !== 'object' || Array.isArray(skin)) {
    throw new Error(`bitrig/sceneIK: option skin must be null or { positions, joints, weights } (an adapter's sceneSkin reads it from a mesh), got ${describeValue(skin)}`);
  }
  const s = skin as Record<string, unknown>;
  for (const k of ['positions', 'joints', 'weights'] as const) {
    if (!isArrayLike(s[k])) throw new Error(`bitrig/sceneIK: option skin.${k} must be an array or typed array of numbers, got ${describeValue(s[k])}`);
  }
  if (s.inverseBind !== undefined && !isArrayLike(s.inverseBind)) {
    throw new Error(`bitrig/sceneIK: option skin.inverseBind must be an array or typed array of 16 numbers per bone, or left out, got ${describeValue(s.inverseBind)}`);
  }
}

function checkLimbs(limbs: unknown): void {
  if (limbs === null) return;
  if (!Array.isArray(limbs)) {
    throw new Error(`bitrig/sceneIK: option limbs must be null or an array of { kind: 'leg' | 'arm', root, mid, end } bone names, got ${describeValue(limbs)}`);
  }
  limbs.forEach((spec: unknown, i) => {
    const at = `limbs[${i}]`;
    checkOptionKeys(spec, LIMB_SPEC_KEYS, 'bitrig/sceneIK', {}, at);
    const l = spec as Record<string, unknown>;
    if (l.kind !== 'leg' && l.kind !== 'arm') throw new Error(`bitrig/sceneIK: option ${at}.kind must be 'leg' or 'arm', got ${describeValue(l.kind)}`);
    for (const k of ['root', 'mid', 'end'] as const) {
      if (typeof l[k] !== 'string') throw new Error(`bitrig/sceneIK: option ${at}.${k} must be a bone name (a string), got ${describeValue(l[k])}`);
    }
    if (l.side !== undefined && l.side !== 'left' && l.side !== 'right') {
      throw new Error(`bitrig/sceneIK: option ${at}.side must be 'left', 'right' or left out, got ${describeValue(l.side)}`);
    }
    if (l.front !== undefined && typeof l.front !== 'boolean') throw new Error(`bitrig/sceneIK: option ${at}.front must be true, false or left out, got ${describeValue(l.front)}`);
  });
}

// ---------------------------------------------------------------------------------------------
// Per-frame input types

/** What a ground query writes. */
export interface GroundHit {
  /** Ground height (world y) under the queried point. */
  height: number;
  /** Ground normal (world, unit, pointing up out of the surface). */
  normal: Float64Array | number[];
  /** Support entity (from {@link addSupport}) the ground belongs to, or -1 for the static world. */
  support: number;
}

/**
 * The game's ground: fill `out` for the sole point `pointWs` (world x, y, z: read x and z for a
 * height field, or cast down from y) and return true, or return false when there is no ground
 * there (only `true` counts as ground). Called per foot per frame, and again by
 * {@link sceneDiagnostics}; must not allocate. `out.normal` may be written in place or replaced;
 * a missing or degenerate normal counts as up. (The point comes in an array: numbers passed one
 * by one to a function would be boxed, an allocation per foot per frame.)
 *
 * @example
 * const ground: GroundQuery = (p, out) => {
 *   out.height = terrainHeight(p[0]!, p[2]!); terrainNormal(p[0]!, p[2]!, out.normal); out.support = -1;
 *   return true;
 * };
 */
export type GroundQuery = (pointWs: Float64Array, out: GroundHit) => boolean;

/** A hand target for one arm. */
export interface HandTargetInput {
  /** Target position (world): the wrist, or the held object's desired position when `grip` is set. */
  position: ArrayLike<number>;
  /** Target orientation (world x, y, z, w): the wrist's, or the held object's when `grip` is set. */
  rotation?: ArrayLike<number> | null | undefined;
  /** Position weight in [0, 1] (default 1). */
  weight?: number | undefined;
  /** Rotation weight in [0, 1] (default 1 when a rotation or grip is given). */
  rotationWeight?: number | undefined;
  /** Elbow pole point (world); default: the animated elbow. */
  pole?: ArrayLike<number> | null | undefined;
  /** Held object's pose in the wrist frame (position in world units, rotation x y z w): wrist target = object × grip⁻¹. */
  grip?: { position: ArrayLike<number>; rotation: ArrayLike<number> } | null | undefined;
  /** Load of the held object (kg) added to the centre of mass. */
  mass?: number | undefined;
}

/** Per-frame inputs of one character. Fields left undefined keep their last value. */
export interface SceneInputs {
  /** Stance weight per leg in [0, 1], in `handle.legs` order (how planted each foot is now). */
  feet?: ArrayLike<number> | undefined;
  /** Hand target per arm in `handle.arms` order; null releases that hand. */
  hands?: readonly (HandTargetInput | null)[] | undefined;
  /** The game's ground query; null = a flat floor at the character root frame's height. */
  ground?: GroundQuery | null | undefined;
  /** The character stands on something (default true); false fades scene IK out (jumps, falls). */
  grounded?: boolean | undefined;
  /** Balance weight in [0, 1] this frame; null = automatic (option × least stance weight). */
  balance?: number | null | undefined;
}

// ---------------------------------------------------------------------------------------------
// Handle

/** One limb of a scene-IK character. */
export interface SceneLimbHandle {
  /** Limb entity. */
  eid: number;
  /** `'leg'` or `'arm'`. */
  kind: 'leg' | 'arm';
  /** Body side. */
  side: 'left' | 'right';
  /** A quadruped's front leg. */
  front: boolean;
  /** Bone names: root, mid, end. */
  bones: [string, string, string];
  /** Sole calibration (legs): fitted to the skin, or the ankle-projected approximation. */
  sole: 'skin' | 'ankle-projected' | 'none';
}

/** What {@link addSceneIK} returns. */
export interface SceneIKHandle {
  /** The world. */
  world: BitrigWorld;
  /** The character binding. */
  binding: CharacterBinding;
  /** SceneCharacter entity. */
  eid: number;
  /** Legs in input order (hind/biped left, right, then front left, right). */
  legs: SceneLimbHandle[];
  /** Arms in input order (left, right). */
  arms: SceneLimbHandle[];
  /** Non-fatal setup notes (e.g. sole calibration fell back to the ankle). */
  problems: string[];
  /** False after {@link removeSceneIK}. */
  alive: boolean;
}

// ---------------------------------------------------------------------------------------------
// Setup helpers

/** Symmetric 3×3 eigen-decomposition (Jacobi). Returns eigenvalues ascending and their vectors (columns). */
function eigSym3(a: number[]): { values: number[]; vectors: number[][] } {
  const A = [[a[0]!, a[1]!, a[2]!], [a[1]!, a[3]!, a[4]!], [a[2]!, a[4]!, a[5]!]];
  const V = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = Math.abs(A[0]![1]!) + Math.abs(A[0]![2]!) + Math.abs(A[1]![2]!);
    if (off < 1e-300) break;
    for (const [p, q] of [[0, 1], [0, 2], [1, 2]] as const) {
      const apq = A[p]![q]!;
      if (Math.abs(apq) < 1e-300) continue;
      const theta = (A[q]![q]! - A[p]![p]!) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1), s = t * c;
      for (let k = 0; k < 3; k++) {
        const akp = A[k]![p]!, akq = A[k]![q]!;
        A[k]![p] = c * akp - s * akq; A[k]![q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = A[p]![k]!, aqk = A[q]![k]!;
        A[p]![k] = c * apk - s * aqk; A[q]![k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = V[k]![p]!, vkq = V[k]![q]!;
        V[k]![p] = c * vkp - s * vkq; V[k]![q] = s * vkp + c * vkq;
      }
    }
  }
  const idx = [0, 1, 2].sort((i, j) => A[i]![i]! - A[j]![j]!);
  return { values: idx.map((i) => A[i]![i]!), vectors: idx.map((i) => [V[0]![i]!, V[1]![i]!, V[2]![i]!]) };
}

/** Result of {@link fitSolePlane}. */
export interface SolePlane {
  /** Support point: centroid of the sole vertices projected onto the support plane. */
  point: [number, number, number];
  /** Unit normal of the support plane (toward `up`). */
  normal: [number, number, number];
  /** Vertices in the sole set. */
  count: number;
}

/**
 * Fit a support plane to a foot's vertices (sole calibration): starting from `up`,
 * take the vertices within 10 % of the foot's extent of its low level (the 2nd percentile of
 * heights, so a single toe vertex poking down does not decide), fit a plane to them (least
 * squares), and repeat twice with the fitted normal. The plane lies at that low level; the
 * point is the centroid of the sole set projected onto it — the middle of the sole, not the
 * lowest toe vertex. The fitted normal may tilt at most `maxTilt` from `up`. Returns null with
 * fewer than 3 vertices. Setup-time.
 *
 * @example
 * const plane = fitSolePlane(footVertices, [0, 1, 0]);
 */
export function fitSolePlane(points: ArrayLike<number>, up: ArrayLike<number>, maxTilt = (35 * Math.PI) / 180): SolePlane | null {
  const n = Math.floor(points.length / 3);
  if (n < 3) return null;
  let ul = Math.hypot(up[0]!, up[1]!, up[2]!);
  if (!(ul > 0)) ul = 1;
  const u = [up[0]! / ul, up[1]! / ul, up[2]! / ul];
  let nrm = [...u];
  const hs = new Float64Array(n);
  const level = (): { low: number; band: number; set: number[] } => {
    for (let i = 0; i < n; i++) hs[i] = points[i * 3]! * nrm[0]! + points[i * 3 + 1]! * nrm[1]! + points[i * 3 + 2]! * nrm[2]!;
    const sorted = Float64Array.from(hs).sort();
    const low = sorted[Math.min(n - 1, Math.max(2, Math.floor(0.02 * n)))]!;
    const band = Math.max(0.1 * (sorted[n - 1]! - sorted[0]!), 1e-9 * (Math.abs(sorted[n - 1]!) + Math.abs(sorted[0]!) + 1));
    const set: number[] = [];
    for (let i = 0; i < n; i++) if (hs[i]! <= low + band && hs[i]! >= low - band) set.push(i);
    return { low, band, set };
  };
  for (let iter = 0; iter < 3; iter++) {
    const { set } = level();
    if (set.length < 3) break;
    let cx = 0, cy = 0, cz = 0;
    for (const i of set) { cx += points[i * 3]!; cy += points[i * 3 + 1]!; cz += points[i * 3 + 2]!; }
    cx /= set.length; cy /= set.length; cz /= set.length;
    const cov = [0, 0, 0, 0, 0, 0];
    for (const i of set) {
      const x = points[i * 3]! - cx, y = points[i * 3 + 1]! - cy, z = points[i * 3 + 2]! - cz;
      cov[0] += x * x; cov[1] += x * y; cov[2] += x * z; cov[3] += y * y; cov[4] += y * z; cov[5] += z * z;
    }
    const { values, vectors } = eigSym3(cov);
    // A sole is a patch: the two largest spreads must both be real, else keep the normal.
    if (!(values[1]! > 1e-6 * values[2]!) || !(values[2]! > 0)) break;
    let v = vectors[0]!;
    const vl = Math.hypot(v[0]!, v[1]!, v[2]!);
    v = [v[0]! / vl, v[1]! / vl, v[2]! / vl];
    if (v[0]! * u[0]! + v[1]! * u[1]! + v[2]! * u[2]! < 0) v = [-v[0]!, -v[1]!, -v[2]!];
    if (v[0]! * u[0]! + v[1]! * u[1]! + v[2]! * u[2]! < Math.cos(maxTilt)) break;
    nrm = v;
  }
  const { low, set } = level();
  if (set.length === 0) return null;
  let cx = 0, cy = 0, cz = 0;
  for (const i of set) { cx += points[i * 3]!; cy += points[i * 3 + 1]!; cz += points[i * 3 + 2]!; }
  cx /= set.length; cy /= set.length; cz /= set.length;
  const d = cx * nrm[0]! + cy * nrm[1]! + cz * nrm[2]! - low;
  return { point: [cx - d * nrm[0]!, cy - d * nrm[1]!, cz - d * nrm[2]!], normal: [nrm[0]!, nrm[1]!, nrm[2]!], count: set.length };
}

/**
 * Dominant joint of every vertex (largest weight; ties go to the first listed). Setup-time.
 *
 * @example
 * const dom = dominantJoints(skin); // dom[v]: the bone that moves vertex v most
 */
export function dominantJoints(skin: SkinInput): Int32Array {
  const nv = Math.floor(skin.positions.length / 3);
  const out = new Int32Array(nv).fill(-1);
  for (let v = 0; v < nv; v++) {
    let best = -1, bw = 0;
    for (let k = 0; k < 4; k++) {
      const w = skin.weights[v * 4 + k]!;
      if (w > bw) { bw = w; best = skin.joints[v * 4 + k]!; }
    }
    out[v] = best;
  }
  return out;
}

function snapAxis(v: number[]): [number, number, number] {
  const ax = Math.abs(v[0]!), ay = Math.abs(v[1]!), az = Math.abs(v[2]!);
  if (!(ax + ay + az > 0)) return [0, 1, 0];
  if (ay >= ax && ay >= az) return [0, Math.sign(v[1]!), 0];
  if (ax >= az) return [Math.sign(v[0]!), 0, 0];
  return [0, 0, Math.sign(v[2]!)];
}

function invert16(m: ArrayLike<number>, o = 0): Float64Array {
  const out = new Float64Array(16);
  invertAffine(out, 0, m, o);
  return out;
}

// ---------------------------------------------------------------------------------------------
// addSceneIK

const SEG_LEG = [0.1, 0.0465, 0.0145];
const SEG_ARM = [0.028, 0.016, 0.006];
const SEG_TRUNK = 0.497;
const SEG_HEAD = 0.069;
const SEG_NECK = 0.012;

/**
 * Store a character's centre-of-mass segments in the world's pool (`world.comSegments`, sized
 * from the world's `characters` option). When it is full, the holes removals left are
 * compacted away in place; only when the live segments do not fit does the pool grow (it
 * lives in the kernels' memory, so a growth lays that out again). Setup-time.
 */
function storeComSegments(world: BitrigWorld, eid: number, segs: number[]): void {
  const SC = world.components.SceneCharacter;
  const need = segs.length;
  if (world.comSegmentsUsed + need > world.comSegments.length) {
    // Live segments, in pool order.
    const chars = world.queries.sceneChars.dense;
    const live: number[] = [];
    let liveLen = 0;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c !== eid && SC.segCount[c]! > 0) { live.push(c); liveLen += SC.segCount[c]!; }
    }
    live.sort((a, b) => SC.segStart[a]! - SC.segStart[b]!);
    const grow = liveLen + need > world.comSegments.length;
    // Compact: in place when the holes make room (no new memory),
    // else into a pool twice the size the live segments need.
    let size = world.comSegments.length;
    if (grow) while (size < 2 * (liveLen + need)) size *= 2;
    const src = world.comSegments;
    const pool = grow ? new Float64Array(size) : src;
    let used = 0;
    for (const c of live) {
      const s0 = SC.segStart[c]!, n = SC.segCount[c]!;
      if (grow) pool.set(src.subarray(s0, s0 + n), used); else pool.copyWithin(used, s0, s0 + n); // (starts only move down)
      SC.segStart[c] = used;
      used += n;
    }
    world.comSegmentsUsed = used;
    if (grow) {
      world.comSegments = pool;
      relayout(world); // (PelvisHeight's kernel reads it)
    }
  }
  const start = world.comSegmentsUsed;
  for (let k = 0; k < need; k++) world.comSegments[start + k] = segs[k]!;
  world.comSegmentsUsed = start + need;
  SC.segStart[eid] = start;
  SC.segCount[eid] = need;
}

/** Forget a character's segments (their space is reclaimed at the next growth, or now when they are last). Setup-time. */
function releaseComSegments(world: BitrigWorld, eid: number): void {
  const SC = world.components.SceneCharacter;
  if (SC.segStart[eid]! + SC.segCount[eid]! === world.comSegmentsUsed) world.comSegmentsUsed = SC.segStart[eid]!;
  SC.segStart[eid] = 0;
  SC.segCount[eid] = 0;
}

/** Relate part `eid` to character entity `ce` (`PartOf.character`). Setup-time. */
function partOf(world: BitrigWorld, eid: number, ce: number): void {
  addComponent(world, eid, world.components.PartOf);
  world.components.PartOf.character[eid] = ce;
}

/**
 * Add scene contacts to a bound character: limbs from the bone-name map (or `options.limbs`),
 * one Limb entity per leg and arm, a FootContact per leg with its sole calibrated from
 * `options.skin` (a support plane fitted to the foot's skin; without a skin, the ankle
 * projected onto the plane of the foot's lowest joint — reported in `handle.legs[i].sole`),
 * a HandTarget per arm, and centre-of-mass segments (tail bones never count). Flags the limb
 * bones in `binding.drivenRotation` and the pelvis (and IK-controller ends) in
 * `binding.drivenTranslation`. Throws `bitrig/sceneIK: …` on a skeleton without legs, a
 * missing or zero-length limb bone, or bad options.
 *
 * @example
 * const binding = bindSkeleton(world, source);
 * const ik = addSceneIK(world, binding, { unitScale: 1, skin });
 * // every frame, after the adapter filled the pose store:
 * setSceneInputs(world, ik, { feet: [1, 0], ground });
 * update(world, dt);
 */
export function addSceneIK(world: BitrigWorld, binding: CharacterBinding, options: PartialOptions<SceneIKOptions> = {}): SceneIKHandle {
  requireBitrigWorld(world, 'bitrig/sceneIK');
  if (typeof binding !== 'object' || binding === null) throw new Error(`bitrig/sceneIK: addSceneIK(world, binding) needs the binding bindSkeleton returned, got ${describeValue(binding)}`);
  if (!binding.alive || binding.world !== world) throw new Error('bitrig/sceneIK: the binding is not alive in this world');
  {
    // Two scene characters on one skeleton would both write its legs.
    const SC = world.components.SceneCharacter, chars = world.queries.sceneChars.dense;
    for (let i = 0; i < chars.length; i++) {
      if (SC.char[chars[i]!] === binding.charId) {
        throw new Error(`bitrig/sceneIK: a scene IK is still alive on this skeleton's pose character ${binding.charId} (removeSceneIK it first, also before unbinding)`);
      }
    }
  }
  const o = mergeSceneIKOptions(options);
  const pose = world.pose;
  const char = binding.charId;
  const n = binding.boneCount;
  const start = pose.charStart[char]!;
  const srcOfSlot = new Int32Array(pose.charCount[char]!).fill(-1);
  for (let i = 0; i < n; i++) srcOfSlot[binding.slotOf[i]! - start] = i;
  const names: string[] = [];
  const parents: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = binding.slotOf[i]!;
    names.push(pose.names[s]!);
    const ps = pose.parent[s]!;
    parents.push(ps >= 0 ? srcOfSlot[ps - start]! : -1);
  }
  const topo: SkeletonTopology = { names, parents };
  const bindW = bindWorldMatrices(world, char); // slot order, root frame = identity
  const bindOf = (i: number): number => (binding.slotOf[i]! - start) * 16;
  const bindPos = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) bindPos[i * 3 + k] = bindW[bindOf(i) + 12 + k]!;
  const pelvis = binding.pelvis;
  if (pelvis < 0) throw new Error('bitrig/sceneIK: the binding has no pelvis bone; pass bind option `pelvis`');

  let found: LimbBones[];
  if (o.limbs) {
    found = o.limbs.map((spec, li) => {
      const idx = (nm: string, role: string): number => {
        const i = names.indexOf(nm);
        if (i < 0) throw new Error(`bitrig/sceneIK: limb ${li} ${role} bone "${nm}" not found`);
        return i;
      };
      const root = idx(spec.root, 'root'), mid = idx(spec.mid, 'mid'), end = idx(spec.end, 'end');
      const below = (a: number, b: number): boolean => { for (let p = parents[b]!; p >= 0; p = parents[p]!) if (p === a) return true; return false; };
      const side = spec.side ?? (parseBoneName(spec.end).side === 'right' ? 'right' : 'left');
      const endBones: number[] = [];
      const stack = [end];
      while (stack.length) {
        const k = stack.pop()!;
        if (isTailName(names[k]!)) continue;
        endBones.push(k);
        for (let c = 0; c < n; c++) if (parents[c] === k) stack.push(c);
      }
      if (!below(root, mid)) throw new Error(`bitrig/sceneIK: limb ${li} mid bone "${spec.mid}" is not below root "${spec.root}"`);
      return { kind: spec.kind, side, front: !!spec.front, root, mid, end, endIsDescendant: below(mid, end), endBones };
    });
  } else found = findLimbs(topo, bindPos, pelvis);
  const legs = found.filter((l) => l.kind === 'leg').slice(0, MAX_LEGS);
  const arms = o.arms ? found.filter((l) => l.kind === 'arm').slice(0, MAX_ARMS) : [];
  if (legs.length === 0) {
    throw new Error(`bitrig/sceneIK: no legs found in a skeleton of ${n} bones (${names.slice(0, 12).join(', ')}${n > 12 ? ', …' : ''}); name them with options.limbs`);
  }
  const problems: string[] = [];
  if (found.filter((l) => l.kind === 'leg').length > MAX_LEGS) problems.push(`more than ${MAX_LEGS} legs found; the first ${MAX_LEGS} are used`);
  const dist = (a: number, b: number): number => Math.hypot(bindPos[a * 3]! - bindPos[b * 3]!, bindPos[a * 3 + 1]! - bindPos[b * 3 + 1]!, bindPos[a * 3 + 2]! - bindPos[b * 3 + 2]!);
  let meanLen = 0;
  for (const l of [...legs, ...arms]) {
    const l1 = dist(l.root, l.mid), l2 = dist(l.mid, l.end);
    const scale = Math.max(1e-300, dist(pelvis, l.root) + l1 + l2);
    if (!(l1 > 1e-6 * scale)) throw new Error(`bitrig/sceneIK: limb "${names[l.root]}" has a zero-length bone "${names[l.root]}" → "${names[l.mid]}"`);
    if (!(l2 > 1e-6 * scale)) throw new Error(`bitrig/sceneIK: limb "${names[l.root]}" has a zero-length bone "${names[l.mid]}" → "${names[l.end]}"`);
    if (l.kind === 'leg') meanLen += (l1 + l2) / legs.length;
  }
  // Body axes in bind space: up from the feet toward the pelvis (snapped to an axis: armatures
  // may be Z-up), forward = lateral × up with lateral = left hip − right hip.
  const footMean = [0, 0, 0];
  for (const l of legs) for (let k = 0; k < 3; k++) footMean[k]! += bindPos[l.end * 3 + k]! / legs.length;
  const up = snapAxis([0, 1, 2].map((k) => bindPos[pelvis * 3 + k]! - footMean[k]!));
  const lefts = legs.filter((l) => l.side === 'left' && !l.front), rights = legs.filter((l) => l.side === 'right' && !l.front);
  let fwd: number[] = [0, 0, 1];
  if (lefts.length && rights.length) {
    const lat = [0, 1, 2].map((k) => bindPos[lefts[0]!.root * 3 + k]! - bindPos[rights[0]!.root * 3 + k]!);
    const f = [lat[1]! * up[2]! - lat[2]! * up[1]!, lat[2]! * up[0]! - lat[0]! * up[2]!, lat[0]! * up[1]! - lat[1]! * up[0]!];
    const fl = Math.hypot(f[0]!, f[1]!, f[2]!);
    if (fl > 0) fwd = f.map((x) => x / fl);
  } else {
    const d = fwd[0]! * up[0]! + fwd[1]! * up[1]! + fwd[2]! * up[2]!;
    if (Math.abs(d) > 0.9) fwd = [0, 1, 0];
  }

  // Skin: dominant joints and bind-space joint frames.
  const skin = o.skin;
  let dom: Int32Array | null = null;
  let skinUp: [number, number, number] = up;
  const skinJointWorld: (Float64Array | null)[] = [];
  if (skin) {
    const nv = Math.floor(skin.positions.length / 3);
    if (skin.joints.length < nv * 4 || skin.weights.length < nv * 4) throw new Error('bitrig/sceneIK: skin.joints and skin.weights need 4 entries per vertex');
    if (skin.inverseBind && skin.inverseBind.length < n * 16) throw new Error(`bitrig/sceneIK: skin.inverseBind needs 16 numbers per bone (${n} bones)`);
    dom = dominantJoints(skin);
    for (let i = 0; i < n; i++) {
      if (skin.inverseBind) skinJointWorld.push(invert16(skin.inverseBind, i * 16));
      else skinJointWorld.push(Float64Array.from(bindW.subarray(bindOf(i), bindOf(i) + 16)));
    }
    const pm = skinJointWorld[pelvis]!;
    const fm = [0, 0, 0];
    for (const l of legs) for (let k = 0; k < 3; k++) fm[k]! += skinJointWorld[l.end]![12 + k]! / legs.length;
    skinUp = snapAxis([0, 1, 2].map((k) => pm[12 + k]! - fm[k]!));
  }

  // Character entity.
  const eid = addBitrigEntity(world);
  const C = world.components;
  const SC = C.SceneCharacter;
  addComponent(world, eid, SC);
  SC.char[eid] = char;
  partOf(world, eid, binding.eid);
  SC.pelvisSlot[eid] = binding.slotOf[pelvis]!;
  {
    // The pelvis subtree's slot range (slots are parents first: one forward pass).
    const ps = SC.pelvisSlot[eid]!, cEnd = pose.charStart[char]! + pose.charCount[char]!;
    const inSub = new Uint8Array(cEnd - ps);
    inSub[0] = 1;
    let last = ps, count = 1;
    for (let k = ps + 1; k < cEnd; k++) {
      const p = pose.parent[k]!;
      if (p >= ps && inSub[p - ps] === 1) { inSub[k - ps] = 1; last = k; count++; }
    }
    SC.pelvisSubEnd[eid] = last + 1;
    SC.pelvisDense[eid] = count === last + 1 - ps ? 1 : 0;
  }
  SC.legCount[eid] = legs.length;
  SC.armCount[eid] = arms.length;
  SC.grounded[eid] = 1;
  SC.groundBlend[eid] = 1;
  SC.groundRate[eid] = o.groundRate;
  SC.balanceInput[eid] = -1;
  SC.balance[eid] = o.balance;
  SC.balanceMaxShift[eid] = o.balanceMaxShift;
  SC.pelvisRate[eid] = o.pelvisRate;
  SC.maxDrop[eid] = o.maxDrop;
  SC.maxRaise[eid] = o.maxRaise;
  SC.unitScale[eid] = o.unitScale;
  SC.bodyMass[eid] = o.bodyMass;
  SC.offsetWs.fill(0, eid * 3, eid * 3 + 3);
  SC.bandLo[eid] = 0; SC.bandHi[eid] = 0; SC.bandLegs[eid] = 0; SC.bandInfeasible[eid] = 0; SC.bandBeyondLimits[eid] = 0;
  SC.comWs.fill(0, eid * 3, eid * 3 + 3); SC.supportWs.fill(0, eid * 3, eid * 3 + 3); SC.comValid[eid] = 0;
  SC.initialised[eid] = 0;
  SC.ground[eid] = null;
  for (let k = 0; k < MAX_LEGS; k++) SC.legs[eid * MAX_LEGS + k] = -1;
  for (let k = 0; k < MAX_ARMS; k++) SC.arms[eid * MAX_ARMS + k] = -1;

  const handle: SceneIKHandle = { world, binding, eid, legs: [], arms: [], problems, alive: true };
  const rotTmp = new Float64Array(4);
  const vTmp = new Float64Array(3);
  const addLimb = (l: LimbBones, slotIndex: number): SceneLimbHandle => {
    const le = addBitrigEntity(world);
    const L = C.Limb;
    addComponent(world, le, L);
    partOf(world, le, binding.eid);
    const kind = l.kind === 'leg' ? LIMB_LEG : LIMB_ARM;
    L.char[le] = char; L.owner[le] = eid; L.kind[le] = kind; L.side[le] = l.side === 'right' ? 1 : 0; L.front[le] = l.front ? 1 : 0;
    L.rootSlot[le] = binding.slotOf[l.root]!; L.midSlot[le] = binding.slotOf[l.mid]!; L.endSlot[le] = binding.slotOf[l.end]!;
    L.endIsChild[le] = l.endIsDescendant ? 1 : 0;
    {
      // Last slot of the root's subtree (slots are parents first, so one forward pass finds it).
      const rs = L.rootSlot[le]!, cEnd = pose.charStart[char]! + pose.charCount[char]!;
      const inSub = new Uint8Array(cEnd - rs);
      inSub[0] = 1;
      let last = rs;
      for (let k = rs + 1; k < cEnd; k++) {
        const p = pose.parent[k]!;
        if (p >= rs && inSub[p - rs] === 1) { inSub[k - rs] = 1; last = k; }
      }
      L.subtreeEnd[le] = last + 1;
    }
    // End offset in the mid bone's frame (bind).
    const midInv = invert16(bindW, bindOf(l.mid));
    transformPoint(L.tipLs, le * 3, midInv, 0, bindPos, l.end * 3);
    // Bend hint: the bind bend if the limb is bent, else forward (knees) / backward (elbows).
    const a = l.root * 3, b = l.mid * 3, c = l.end * 3;
    const ac = [0, 1, 2].map((k) => bindPos[c + k]! - bindPos[a + k]!);
    const ab = [0, 1, 2].map((k) => bindPos[b + k]! - bindPos[a + k]!);
    const acl = Math.hypot(ac[0]!, ac[1]!, ac[2]!) || 1;
    const acu = ac.map((x) => x / acl);
    const proj = ab[0]! * acu[0]! + ab[1]! * acu[1]! + ab[2]! * acu[2]!;
    const perp = ab.map((x, k) => x - proj * acu[k]!);
    const pl = Math.hypot(perp[0]!, perp[1]!, perp[2]!);
    const hint = pl > 0.02 * acl ? perp.map((x) => x / pl) : (kind === LIMB_LEG ? fwd : fwd.map((x) => -x));
    const parentSrc = parents[l.root]!;
    if (parentSrc >= 0) rotationOfMatrix(rotTmp, 0, bindW, bindOf(parentSrc)); else { rotTmp[0] = 0; rotTmp[1] = 0; rotTmp[2] = 0; rotTmp[3] = 1; }
    vTmp[0] = hint[0]!; vTmp[1] = hint[1]!; vTmp[2] = hint[2]!;
    qRotateInv(L.bendHintLs, le * 3, rotTmp, 0, vTmp, 0);
    L.soften[le] = o.soften;
    L.reachTolerance[le] = o.reachTolerance * o.unitScale;
    L.weight[le] = 0; L.rotWeight[le] = 0;
    L.targetWs.fill(0, le * 3, le * 3 + 3);
    L.targetRotWs[le * 4] = 0; L.targetRotWs[le * 4 + 1] = 0; L.targetRotWs[le * 4 + 2] = 0; L.targetRotWs[le * 4 + 3] = 1;
    L.hasTargetRot[le] = 0; L.poleWs.fill(0, le * 3, le * 3 + 3); L.hasPole[le] = 0;
    L.reached[le] = 1; L.missWs[le] = 0; L.missFullWs[le] = 0; L.extension[le] = 0; L.solved[le] = 0; L.invalid[le] = 0;
    binding.drivenRotation[l.root] = 1;
    binding.drivenRotation[l.mid] = 1;
    binding.drivenRotation[l.end] = 1;
    if (!l.endIsDescendant) binding.drivenTranslation[l.end] = 1;
    let sole: SceneLimbHandle['sole'] = 'none';
    if (kind === LIMB_LEG) {
      const F = C.FootContact;
      addComponent(world, le, F);
      F.stance[le] = 0; F.stanceEff[le] = 0; F.lockOn[le] = o.lockOn; F.maxTilt[le] = o.maxTilt; F.locked[le] = 0; F.support[le] = -1;
      F.contactSs.fill(0, le * 3, le * 3 + 3); F.normalSs.fill(0, le * 3, le * 3 + 3); F.normalSs[le * 3 + 1] = 1;
      F.rotSs[le * 4] = 0; F.rotSs[le * 4 + 1] = 0; F.rotSs[le * 4 + 2] = 0; F.rotSs[le * 4 + 3] = 1;
      F.contactWs.fill(0, le * 3, le * 3 + 3); F.normalWs.fill(0, le * 3, le * 3 + 3); F.normalWs[le * 3 + 1] = 1;
      F.groundY[le] = 0; F.hasGround[le] = 0; F.groundSupport[le] = -1;
      sole = calibrateLeg(world, le, l, skin, dom, skinJointWorld, skinUp, bindW, bindOf, up, problems, names) ? 'skin' : 'ankle-projected';
      SC.legs[eid * MAX_LEGS + slotIndex] = le;
    } else {
      const H = C.HandTarget;
      addComponent(world, le, H);
      H.posWs.fill(0, le * 3, le * 3 + 3); H.rotWs.fill(0, le * 4, le * 4 + 4); H.rotWs[le * 4 + 3] = 1; H.hasRot[le] = 0;
      H.weight[le] = 0; H.rotWeight[le] = 0; H.poleWs.fill(0, le * 3, le * 3 + 3); H.hasPole[le] = 0;
      H.gripPos.fill(0, le * 3, le * 3 + 3); H.gripRot.fill(0, le * 4, le * 4 + 4); H.gripRot[le * 4 + 3] = 1; H.hasGrip[le] = 0;
      H.mass[le] = 0; H.objectPosWs.fill(0, le * 3, le * 3 + 3); H.objectRotWs.fill(0, le * 4, le * 4 + 4); H.objectRotWs[le * 4 + 3] = 1;
      H.reposition[le] = 0;
      SC.arms[eid * MAX_ARMS + slotIndex] = le;
    }
    return { eid: le, kind: l.kind, side: l.side, front: l.front, bones: [names[l.root]!, names[l.mid]!, names[l.end]!], sole };
  };
  try {
    legs.forEach((l, i) => handle.legs.push(addLimb(l, i)));
    arms.forEach((l, i) => handle.arms.push(addLimb(l, i)));
  } catch (e) {
    removeSceneIK(world, handle);
    throw e;
  }
  binding.drivenTranslation[pelvis] = 1;
  if (meanLen <= 0) problems.push('legs have no length in the bind pose');

  // Centre-of-mass segments (tail bones never count).
  const segs: number[] = [];
  const firstChild = (i: number): number => {
    for (let c = 0; c < n; c++) if (parents[c] === i && !isTailName(names[c]!)) return c;
    return -1;
  };
  const addSeg = (i: number, mass: number, child = firstChild(i)): void => {
    segs.push(binding.slotOf[i]!, child >= 0 ? binding.slotOf[child]! : -1, mass);
  };
  for (const l of [...legs, ...arms]) {
    const f = l.kind === 'leg' ? SEG_LEG : SEG_ARM;
    addSeg(l.root, f[0]!, l.mid);
    addSeg(l.mid, f[1]!, l.endIsDescendant ? l.end : -1);
    addSeg(l.end, f[2]!);
  }
  const isBelow = (a: number, b: number): boolean => { for (let p = parents[b]!; p >= 0; p = parents[p]!) if (p === a) return true; return false; };
  const trunk = [pelvis];
  for (let i = 0; i < n; i++) if (i !== pelvis && isSpineName(names[i]!) && isBelow(pelvis, i) && !isTailName(names[i]!)) trunk.push(i);
  for (const t of trunk) addSeg(t, SEG_TRUNK / trunk.length);
  const heads = names.map((nm, i) => [parseBoneName(nm), i] as const).filter(([p]) => p.side === 'center');
  const head = heads.find(([p]) => p.base === 'head');
  const neck = heads.find(([p]) => p.base === 'neck');
  if (head) addSeg(head[1], SEG_HEAD);
  if (neck) addSeg(neck[1], SEG_NECK);
  let total = 0;
  for (let k = 2; k < segs.length; k += 3) total += segs[k]!;
  for (let k = 2; k < segs.length; k += 3) segs[k] = segs[k]! / total;
  storeComSegments(world, eid, segs);
  return handle;
}

/** Calibrate one leg's sole; returns true when fitted to skin. */
function calibrateLeg(
  world: BitrigWorld, le: number, l: LimbBones, skin: SkinInput | null, dom: Int32Array | null,
  skinJointWorld: (Float64Array | null)[], skinUp: [number, number, number], bindW: Float64Array,
  bindOf: (i: number) => number, up: [number, number, number], problems: string[], names: string[],
): boolean {
  const F = world.components.FootContact;
  const tmp = new Float64Array(3);
  if (skin && dom) {
    const set = new Set(l.endBones);
    const pts: number[] = [];
    const nv = dom.length;
    for (let v = 0; v < nv; v++) {
      const j = dom[v]!;
      if (j >= 0 && set.has(j)) pts.push(skin.positions[v * 3]!, skin.positions[v * 3 + 1]!, skin.positions[v * 3 + 2]!);
    }
    const plane = fitSolePlane(pts, skinUp);
    if (plane && plane.count >= 3) {
      const inv = invert16(skinJointWorld[l.end]!);
      transformPoint(F.soleLs, le * 3, inv, 0, plane.point, 0);
      tmp[0] = plane.normal[0]; tmp[1] = plane.normal[1]; tmp[2] = plane.normal[2];
      // Into the joint frame: mᵀ·n, which for the rotation × uniform scale (× mirror) frames of a
      // skin is the inverse's direction up to a positive factor.
      const m = skinJointWorld[l.end]!;
      const x = m[0]! * tmp[0]! + m[1]! * tmp[1]! + m[2]! * tmp[2]!;
      const y = m[4]! * tmp[0]! + m[5]! * tmp[1]! + m[6]! * tmp[2]!;
      const z = m[8]! * tmp[0]! + m[9]! * tmp[1]! + m[10]! * tmp[2]!;
      const nl = Math.hypot(x, y, z) || 1;
      F.soleNormalLs[le * 3] = x / nl; F.soleNormalLs[le * 3 + 1] = y / nl; F.soleNormalLs[le * 3 + 2] = z / nl;
      F.soleSource[le] = SOLE_SKIN;
      return true;
    }
    problems.push(`no skin dominated by the foot "${names[l.end]}"; its sole is the ankle projected onto its lowest joint`);
  } else {
    problems.push(`no skin given; the sole of "${names[l.end]}" is the ankle projected onto its lowest joint`);
  }
  // Ankle projected onto the plane (normal `up`) through the lowest joint of the foot.
  let low = Infinity;
  for (const b of l.endBones) low = Math.min(low, bindW[bindOf(b) + 12]! * up[0] + bindW[bindOf(b) + 13]! * up[1] + bindW[bindOf(b) + 14]! * up[2]);
  const eo = bindOf(l.end);
  const h = bindW[eo + 12]! * up[0] + bindW[eo + 13]! * up[1] + bindW[eo + 14]! * up[2];
  const p = [bindW[eo + 12]! - (h - low) * up[0], bindW[eo + 13]! - (h - low) * up[1], bindW[eo + 14]! - (h - low) * up[2]];
  const inv = invert16(bindW, eo);
  transformPoint(F.soleLs, le * 3, inv, 0, p, 0);
  tmp[0] = up[0]; tmp[1] = up[1]; tmp[2] = up[2];
  transformDir(tmp, 0, inv, 0, tmp, 0);
  const nl = Math.hypot(tmp[0]!, tmp[1]!, tmp[2]!) || 1;
  F.soleNormalLs[le * 3] = tmp[0]! / nl; F.soleNormalLs[le * 3 + 1] = tmp[1]! / nl; F.soleNormalLs[le * 3 + 2] = tmp[2]! / nl;
  F.soleSource[le] = SOLE_ANKLE;
  return false;
}

/**
 * Remove a character's scene IK: its entities, and the driven flags it set (tail bones keep
 * theirs). Safe to call twice.
 *
 * @example
 * removeSceneIK(world, handle);
 */
export function removeSceneIK(world: BitrigWorld, handle: SceneIKHandle): void {
  requireBitrigWorld(world, 'bitrig/sceneIK');
  if (typeof handle !== 'object' || handle === null || handle.world !== world) throw new Error('bitrig/sceneIK: removeSceneIK(world, handle) needs a handle addSceneIK returned for this world');
  if (!handle.alive) return;
  handle.alive = false;
  const tailBones = new Set<number>();
  for (const t of handle.binding.tails) for (const b of t.bones) tailBones.add(b);
  const L = world.components.Limb;
  const srcOf = new Map<number, number>();
  handle.binding.slotOf.forEach((s, i) => srcOf.set(s, i));
  for (const l of [...handle.legs, ...handle.arms]) {
    for (const s of [L.rootSlot[l.eid]!, L.midSlot[l.eid]!, L.endSlot[l.eid]!]) {
      const i = srcOf.get(s);
      if (i === undefined) continue;
      if (!tailBones.has(i)) handle.binding.drivenRotation[i] = 0;
      handle.binding.drivenTranslation[i] = 0;
    }
    removeBitrigEntity(world, l.eid);
  }
  if (handle.binding.pelvis >= 0) handle.binding.drivenTranslation[handle.binding.pelvis] = 0;
  const SC = world.components.SceneCharacter;
  SC.ground[handle.eid] = null;
  releaseComSegments(world, handle.eid);
  removeBitrigEntity(world, handle.eid);
}

// ---------------------------------------------------------------------------------------------
// Per-frame inputs

function clamp01(v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!(v > 0)) return 0; // NaN and negatives
  return v > 1 ? 1 : v;
}

function finite3(a: ArrayLike<number> | null | undefined): boolean {
  return !!a && a.length >= 3 && Number.isFinite(a[0]! + a[1]! + a[2]!);
}

function finite4(a: ArrayLike<number> | null | undefined): boolean {
  return !!a && a.length >= 4 && Number.isFinite(a[0]! + a[1]! + a[2]! + a[3]!) && a[0]! * a[0]! + a[1]! * a[1]! + a[2]! * a[2]! + a[3]! * a[3]! > 1e-24;
}

/**
 * Copy one frame's inputs into the character's components (call before `update`). Weights
 * are clamped to [0, 1] (NaN → 0); a non-finite hand target turns that hand off for the frame
 * (its limb reports `invalid`); extra entries are ignored. Never throws, never allocates.
 *
 * @example
 * setSceneInputs(world, ik, { feet: stance, hands: [keyTarget, null], ground: queryTerrain, grounded: true });
 */
export function setSceneInputs(world: BitrigWorld, handle: SceneIKHandle, inputs: SceneInputs): void {
  // (per-frame: a wrong world, a removed handle or no inputs is a no-op, never a throw)
  if (!isBitrigWorld(world) || typeof handle !== 'object' || handle === null || !handle.alive || handle.world !== world || typeof inputs !== 'object' || inputs === null) return;
  const SC = world.components.SceneCharacter;
  const c = handle.eid;
  if (inputs.grounded !== undefined) SC.grounded[c] = inputs.grounded ? 1 : 0;
  if (inputs.ground !== undefined) SC.ground[c] = typeof inputs.ground === 'function' ? inputs.ground : null;
  if (inputs.balance !== undefined) SC.balanceInput[c] = inputs.balance === null ? -1 : clamp01(inputs.balance, 0);
  const F = world.components.FootContact;
  const feet = inputs.feet;
  if (feet) {
    const nl = handle.legs.length;
    for (let i = 0; i < nl && i < feet.length; i++) F.stance[handle.legs[i]!.eid] = clamp01(feet[i], 0);
  }
  const hands = inputs.hands;
  if (hands) {
    const H = world.components.HandTarget;
    const L = world.components.Limb;
    const na = handle.arms.length;
    for (let i = 0; i < na && i < hands.length; i++) {
      const e = handle.arms[i]!.eid;
      const h = hands[i];
      if (!h) { H.weight[e] = 0; H.rotWeight[e] = 0; H.hasGrip[e] = 0; H.mass[e] = 0; L.invalid[e] = 0; continue; }
      const okPos = finite3(h.position);
      const hasRot = finite4(h.rotation);
      const grip = h.grip;
      const hasGrip = !!grip && finite3(grip.position) && finite4(grip.rotation);
      if (!okPos || (h.rotation && !hasRot) || (grip && !hasGrip)) {
        // Bad target: keep the animation this frame and say so.
        H.weight[e] = 0; H.rotWeight[e] = 0; H.hasGrip[e] = 0; L.invalid[e] = 1;
        continue;
      }
      L.invalid[e] = 0;
      H.posWs[e * 3] = h.position[0]!; H.posWs[e * 3 + 1] = h.position[1]!; H.posWs[e * 3 + 2] = h.position[2]!;
      if (hasRot) {
        const r = h.rotation!;
        const l = Math.sqrt(r[0]! * r[0]! + r[1]! * r[1]! + r[2]! * r[2]! + r[3]! * r[3]!);
        H.rotWs[e * 4] = r[0]! / l; H.rotWs[e * 4 + 1] = r[1]! / l; H.rotWs[e * 4 + 2] = r[2]! / l; H.rotWs[e * 4 + 3] = r[3]! / l;
      } else { H.rotWs[e * 4] = 0; H.rotWs[e * 4 + 1] = 0; H.rotWs[e * 4 + 2] = 0; H.rotWs[e * 4 + 3] = 1; }
      H.hasRot[e] = hasRot ? 1 : 0;
      H.weight[e] = clamp01(h.weight, 1);
      H.rotWeight[e] = clamp01(h.rotationWeight, hasRot || hasGrip ? 1 : 0);
      if (finite3(h.pole)) {
        H.poleWs[e * 3] = h.pole![0]!; H.poleWs[e * 3 + 1] = h.pole![1]!; H.poleWs[e * 3 + 2] = h.pole![2]!;
        H.hasPole[e] = 1;
      } else H.hasPole[e] = 0;
      if (hasGrip) {
        const gp = grip!.position, gr = grip!.rotation;
        const l = Math.sqrt(gr[0]! * gr[0]! + gr[1]! * gr[1]! + gr[2]! * gr[2]! + gr[3]! * gr[3]!);
        H.gripPos[e * 3] = gp[0]!; H.gripPos[e * 3 + 1] = gp[1]!; H.gripPos[e * 3 + 2] = gp[2]!;
        H.gripRot[e * 4] = gr[0]! / l; H.gripRot[e * 4 + 1] = gr[1]! / l; H.gripRot[e * 4 + 2] = gr[2]! / l; H.gripRot[e * 4 + 3] = gr[3]! / l;
        H.hasGrip[e] = 1;
      } else H.hasGrip[e] = 0;
      const m = h.mass;
      H.mass[e] = m !== undefined && m > 0 && Number.isFinite(m) ? m : 0;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Supports

/**
 * Add a support entity (a floor, moving platform or ladder) with an identity frame. A ground
 * query returns its id in `GroundHit.support` for feet standing on it. Setup-time.
 *
 * @example
 * const platform = addSupport(world);
 * // every frame: setSupportFrame(world, platform, platformMesh.matrixWorld.elements);
 */
export function addSupport(world: BitrigWorld): number {
  requireBitrigWorld(world, 'bitrig/sceneIK');
  const eid = addBitrigEntity(world);
  const rows = world.supportRows;
  const row = rows.free.length > 0 ? rows.free.pop()! : rows.next++;
  ensureSupportRow(world, row);
  const S = world.components.SupportFrame;
  addComponent(world, eid, S);
  S.row[eid] = row;
  for (let i = 0; i < 16; i++) {
    const v = i % 5 === 0 ? 1 : 0;
    S.matrixWs[row * 16 + i] = v; S.prevMatrixWs[row * 16 + i] = v; S.invMatrixWs[row * 16 + i] = v;
  }
  S.rotWs[row * 4] = 0; S.rotWs[row * 4 + 1] = 0; S.rotWs[row * 4 + 2] = 0; S.rotWs[row * 4 + 3] = 1;
  S.mirrored[row] = 0;
  return eid;
}

/**
 * Set a support's world matrix for this frame (column-major 4×4; call before `update`). The
 * previous one is kept for diagnostics. A non-finite or singular matrix, or an id that is not
 * a live support, is ignored. Never throws, never allocates.
 *
 * @example
 * setSupportFrame(world, platform, matrixWs);
 */
export function setSupportFrame(world: BitrigWorld, eid: number, matrixWs: ArrayLike<number>): void {
  if (!isBitrigWorld(world)) return; // (per-frame: a no-op)
  const S = world.components.SupportFrame;
  if (!(eid >= 0 && eid < world.capacity) || !(S.row[eid]! >= 0) || !matrixWs || matrixWs.length < 16) return;
  let sum = 0;
  for (let i = 0; i < 16; i++) sum += matrixWs[i]!;
  if (!Number.isFinite(sum) || !isInvertible3(matrixWs, 0)) return;
  const row = S.row[eid]!;
  const o = row * 16;
  for (let i = 0; i < 16; i++) { S.prevMatrixWs[o + i] = S.matrixWs[o + i]!; S.matrixWs[o + i] = matrixWs[i]!; }
  invertAffine(S.invMatrixWs, o, S.matrixWs, o);
  rotationOfMatrix(S.rotWs, row * 4, S.matrixWs, o);
  S.mirrored[row] = isMirroredMatrix(S.matrixWs, o) ? 1 : 0;
}

/**
 * Remove a support. Feet locked on it keep its last frame until they lift (their contacts
 * move into world space). Setup-time.
 *
 * @example
 * removeSupport(world, platform);
 */
export function removeSupport(world: BitrigWorld, eid: number): void {
  requireBitrigWorld(world, 'bitrig/sceneIK');
  const S = world.components.SupportFrame;
  if (!(eid >= 0 && eid < world.capacity) || !(S.row[eid]! >= 0)) return;
  removeBitrigEntity(world, eid); // (releases the row; feet locked on it detach)
}

// ---------------------------------------------------------------------------------------------
// Diagnostics

/** One foot's contact state. */
export interface ContactDiagnostics {
  /** End bone name. */
  bone: string;
  /** Body side. */
  side: 'left' | 'right';
  /** A quadruped's front leg. */
  front: boolean;
  /** Stance weight after the grounded fade. */
  stance: number;
  /** A contact is recorded. */
  locked: boolean;
  /** Support entity of the contact (-1 world). */
  support: number;
  /** Planted sole target this frame (world). */
  pointWs: [number, number, number];
  /** Ground normal under the foot (world). */
  normalWs: [number, number, number];
  /** Sole point after the solve (world). */
  soleWs: [number, number, number];
  /** Sole normal after the solve (world). */
  soleNormalWs: [number, number, number];
  /** Height of the solved sole above the ground under it, along the ground normal (world units; < 0 = below). */
  gapWs: number;
  /** Sole calibration source. */
  sole: 'skin' | 'ankle-projected';
  /** The leg reached its target. */
  reached: boolean;
  /** Distance from the ankle to its target (world units). */
  missWs: number;
}

/** One hand's reach state. */
export interface ReachDiagnostics {
  /** End bone name. */
  bone: string;
  /** Body side. */
  side: 'left' | 'right';
  /** Position weight. */
  weight: number;
  /** The wrist reached its weighted target. */
  reached: boolean;
  /** Distance to the weighted target (world units). */
  missWs: number;
  /** Root→wrist over arm length (1 = straight). */
  extension: number;
  /** The full target is out of reach: move the character. */
  reposition: boolean;
  /** The target was invalid this frame (the animation was kept). */
  invalid: boolean;
  /** Held object's pose on the solved hand (world position). */
  objectPosWs: [number, number, number];
  /** Held object's orientation on the solved hand (world). */
  objectRotWs: [number, number, number, number];
}

/** What {@link sceneDiagnostics} returns. */
export interface SceneDiagnostics {
  /** Feet. */
  contacts: ContactDiagnostics[];
  /** Hands. */
  hands: ReachDiagnostics[];
  /** Centre of mass (world), body segments plus held loads; tail bones never count. */
  comWs: [number, number, number];
  /** Stance-weighted centroid of the planted contacts (world); the COM when nothing is planted. */
  supportWs: [number, number, number];
  /** Pelvis state. */
  pelvis: {
    /** Applied pelvis offset (world x, y, z). */
    offsetWs: [number, number, number];
    /** Band of offsets (world y) every planted leg can reach from. */
    band: [number, number];
    /** Legs that constrained the band. */
    legs: number;
    /** Planted legs no pelvis height could satisfy this frame. */
    infeasibleLegs: number;
    /** The planted feet pulled the pelvis beyond `maxDrop` / `maxRaise` (they win over the limits). */
    beyondLimits: boolean;
  };
  /** Some hand or planted foot cannot reach, or the feet pull the pelvis beyond its limits: the character must be repositioned. */
  repositionNeeded: boolean;
  /**
   * When the last error a ground query threw in this world was this character's (the foot lock
   * then counts "no ground" under that foot): its message and `world.time` (seconds) at the start of that frame;
   * otherwise null. The world keeps its last error only (`world.groundError`).
   */
  groundError: { message: string; time: number } | null;
  /** Setup notes. */
  problems: string[];
}

const _d = new Float64Array(16);
const _hitDNormal = new Float64Array(3);
const _hitD: GroundHit = { height: 0, normal: _hitDNormal, support: -1 };
const _gp = new Float64Array(3); // ground query point (world)

/**
 * Diagnostics of one character after `update`: contacts (stance, lock, support, contact point
 * and normal, solved sole and its gap to the ground, reach), hands (reach, miss, reposition
 * flag, held object pose), centre of mass, support centroid and the pelvis band. Pass `out`
 * from a previous call to refill it in place. Never throws.
 *
 * @example
 * const d = sceneDiagnostics(world, ik);
 * if (d.repositionNeeded) walkCloser();
 */
export function sceneDiagnostics(world: BitrigWorld, handle: SceneIKHandle, out?: SceneDiagnostics): SceneDiagnostics {
  const d: SceneDiagnostics = out ?? {
    contacts: [], hands: [], comWs: [0, 0, 0], supportWs: [0, 0, 0],
    pelvis: { offsetWs: [0, 0, 0], band: [0, 0], legs: 0, infeasibleLegs: 0, beyondLimits: false }, repositionNeeded: false, groundError: null, problems: handle.problems,
  };
  const { SceneCharacter: SC, Limb: L, FootContact: F, HandTarget: H } = world.components;
  const pose = world.pose;
  const c = handle.eid;
  d.contacts.length = handle.legs.length;
  d.hands.length = handle.arms.length;
  let reposition = false;
  const ground = SC.ground[c] ?? null;
  const refY = pose.charRootWs[SC.char[c]! * 16 + 13]!;
  for (let i = 0; i < handle.legs.length; i++) {
    const lh = handle.legs[i]!;
    const e = lh.eid;
    const cd: ContactDiagnostics = d.contacts[i] ?? {
      bone: lh.bones[2], side: lh.side, front: lh.front, stance: 0, locked: false, support: -1, pointWs: [0, 0, 0], normalWs: [0, 1, 0],
      soleWs: [0, 0, 0], soleNormalWs: [0, 1, 0], gapWs: 0, sole: lh.sole === 'skin' ? 'skin' : 'ankle-projected', reached: true, missWs: 0,
    };
    d.contacts[i] = cd;
    cd.stance = F.stanceEff[e]!;
    cd.locked = F.locked[e] === 1;
    cd.support = F.locked[e] === 1 ? F.support[e]! : F.groundSupport[e]!;
    for (let k = 0; k < 3; k++) { cd.pointWs[k] = F.contactWs[e * 3 + k]!; cd.normalWs[k] = F.normalWs[e * 3 + k]!; }
    const es = L.endSlot[e]! * 16;
    transformPoint(_d, 0, pose.worldM, es, F.soleLs, e * 3);
    transformDir(_d, 3, pose.worldM, es, F.soleNormalLs, e * 3);
    const nl = Math.hypot(_d[3]!, _d[4]!, _d[5]!) || 1;
    for (let k = 0; k < 3; k++) { cd.soleWs[k] = _d[k]!; cd.soleNormalWs[k] = _d[3 + k]! / nl; }
    // Gap to the ground under the solved sole.
    let gh = refY, gnx = 0, gny = 1, gnz = 0, ok = true;
    if (ground) {
      // (the same reading as the foot lock's: `true` only, a replaced or missing normal)
      _hitD.height = NaN; _hitD.support = -1;
      _hitD.normal = _hitDNormal;
      _hitDNormal[0] = 0; _hitDNormal[1] = 1; _hitDNormal[2] = 0;
      _gp[0] = _d[0]!; _gp[1] = _d[1]!; _gp[2] = _d[2]!;
      try { ok = ground(_gp, _hitD) === true; } catch { ok = false; }
      const nn = _hitD.normal as ArrayLike<number> | null | undefined;
      ok = ok && Number.isFinite(+_hitD.height);
      if (ok) {
        gh = +_hitD.height;
        if (nn !== null && nn !== undefined) {
          const nx = +nn[0]!, ny = +nn[1]!, nz = +nn[2]!;
          const l = Math.hypot(nx, ny, nz);
          if (l > 1e-12 && Number.isFinite(l) && ny / l > 1e-6) { gnx = nx / l; gny = ny / l; gnz = nz / l; }
        }
      }
    }
    cd.gapWs = ok ? (_d[1]! - gh) * gny : NaN;
    void gnx; void gnz;
    cd.reached = L.reached[e] === 1;
    cd.missWs = L.missWs[e]!;
    if (cd.stance >= 0.999 && !cd.reached) reposition = true;
  }
  for (let i = 0; i < handle.arms.length; i++) {
    const ah = handle.arms[i]!;
    const e = ah.eid;
    const hd: ReachDiagnostics = d.hands[i] ?? {
      bone: ah.bones[2], side: ah.side, weight: 0, reached: true, missWs: 0, extension: 0, reposition: false, invalid: false,
      objectPosWs: [0, 0, 0], objectRotWs: [0, 0, 0, 1],
    };
    d.hands[i] = hd;
    hd.weight = H.weight[e]!;
    hd.reached = L.reached[e] === 1;
    hd.missWs = L.missWs[e]!;
    hd.extension = L.extension[e]!;
    hd.reposition = H.reposition[e] === 1;
    hd.invalid = L.invalid[e] === 1;
    for (let k = 0; k < 3; k++) hd.objectPosWs[k] = H.objectPosWs[e * 3 + k]!;
    for (let k = 0; k < 4; k++) hd.objectRotWs[k] = H.objectRotWs[e * 4 + k]!;
    if (hd.reposition) reposition = true;
  }
  if (computeCenterOfMass(world, c, _d, 0)) { d.comWs[0] = _d[0]!; d.comWs[1] = _d[1]!; d.comWs[2] = _d[2]!; }
  let sw = 0, sx = 0, sy = 0, sz = 0;
  for (const lh of handle.legs) {
    const w = F.stanceEff[lh.eid]!;
    if (w > 0) { sw += w; sx += w * F.contactWs[lh.eid * 3]!; sy += w * F.contactWs[lh.eid * 3 + 1]!; sz += w * F.contactWs[lh.eid * 3 + 2]!; }
  }
  if (sw > 0) { d.supportWs[0] = sx / sw; d.supportWs[1] = sy / sw; d.supportWs[2] = sz / sw; } else { d.supportWs[0] = d.comWs[0]; d.supportWs[1] = d.comWs[1]; d.supportWs[2] = d.comWs[2]; }
  for (let k = 0; k < 3; k++) d.pelvis.offsetWs[k] = SC.offsetWs[c * 3 + k]!;
  d.pelvis.band[0] = SC.bandLo[c]!; d.pelvis.band[1] = SC.bandHi[c]!;
  d.pelvis.legs = SC.bandLegs[c]!;
  d.pelvis.infeasibleLegs = SC.bandInfeasible[c]!;
  d.pelvis.beyondLimits = SC.bandBeyondLimits[c] === 1;
  if (d.pelvis.beyondLimits) reposition = true;
  d.repositionNeeded = reposition;
  const ge = world.groundError;
  d.groundError = ge.char === c ? { message: ge.error instanceof Error ? ge.error.message : String(ge.error), time: ge.time } : null;
  d.problems = handle.problems;
  return d;
}
