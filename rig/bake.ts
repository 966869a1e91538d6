/**
 * Bake tails into keyframes: simulate each clip with the runtime's own systems on a
 * private copy of the skeleton, warm up until the tail's motion repeats from one cycle to the
 * next (loop closure), then record real keyframes for every `Tail_*` link rotation.
 *
 * - **Private copy, stable calibration.** The simulation runs in its own bitECS world, bound
 *   from a {@link BakeCalibration}: a snapshot of the node tree's rest TRS and the inverse
 *   bind matrices taken once. The bake never writes a node's TRS; moving or rotating the live
 *   hips (the document's nodes, or a game's world) between bakes leaves the tracks identical.
 * - **Loop closure.** A cycle is F = round(duration · fps) frames; the internal step divides a
 *   frame exactly, so every cycle is stepped identically. Cycle c is compared with cycle c−1
 *   at every frame; the bake records the first cycle whose largest per-joint difference is
 *   under `loopTolerance` (degrees). It warns when that never happens within
 *   `maxWarmupSeconds` and records the last cycle.
 * - **One-shot clips.** glTF has no loop flag. A clip whose last pose differs from its first
 *   (a death, a sit-down; {@link detectClipMode}) is baked `'once'`: replaying it as a loop
 *   would warm the tail up on the clip's END pose and start the recording with the jump from
 *   end to start (a pop the clip never had). Instead the first pose is held still, in settle
 *   windows of max(duration, 1 s), until the tail moves less than `loopTolerance` from one
 *   window to the next; then the clip is recorded once from that settled state. `clipMode` /
 *   `clipModes` force a mode.
 * - **Tracks.** One LINEAR rotation channel per driven tail bone per clip (F + 1 keys from 0
 *   to the clip's duration; quaternions kept in one hemisphere), replacing the clip's own
 *   rotation channel for that bone when it has one.
 *
 * Setup-time code (allocates, throws `bitrig/bake: …`). Node-only: {@link bakeFile}.
 */
import { assertDocument } from './pass';
import type { Animation, AnimationChannel, AnimationSampler, Document } from '@gltf-transform/core';
import { mat4 } from 'gl-matrix';
import { type BitrigWorld } from '../core/world';
import { createBitrigWorld } from '../runtime/world';
import { beginCharacterFrame, bindSkeleton, resolveTailRestSource, type CharacterBinding } from '../core/binding';
import { update } from '../systems/pipeline';
import { checkOptionKeys, describeValue, mergeTailOptions, TAIL_OPTION_KEYS, type TailOptions, type PartialOptions } from '../core/defaults';
import { guessUnitScale, unitScaleNote } from './units';
import { findTailChains } from '../core/boneMap';
import { tailLinkIndex } from '../core/tailSetup';
import { linkEl } from '../core/components/tail';
import { decomposeAffine, mulAffine } from '../core/pose';
import {
  computeWorldMatrices, createClipSampler, createLocalPose, findClip, listClipNames, readSceneGraph, sampleClip,
  type ClipSampler, type LocalPose, type SceneGraph,
} from './sample';
import { jointMatrices, readSkins, skinVertices, type SkinData } from './skinning';
import { lowestPoint, tailDominatedVertices } from './grounding';
import { INPUT_LIMITS, validateDocument } from './validate/index';

/** A stable calibration: the node tree, rest TRS and skins, captured once. */
export interface BakeCalibration {
  /** The document it was captured from (bakes must run on the same document). */
  doc: Document;
  /** Node tree and rest TRS snapshot. */
  graph: SceneGraph;
  /** Skins with their inverse bind matrices and vertices. */
  skins: SkinData[];
}

/**
 * Capture the calibration a bake runs on. Capture it once before anything moves the live
 * pose and pass it to every later bake.
 *
 * @example
 * const calib = captureBakeCalibration(doc);
 * bakeTails(doc, { clips: ['Walk'], calibration: calib });
 */
export function captureBakeCalibration(doc: Document): BakeCalibration {
  assertDocument(doc, 'bitrig/bake');
  const graph = readSceneGraph(doc);
  const skins = readSkins(doc, graph);
  return { doc, graph, skins };
}

/** Progress callback: `stage` names the clip and step, `fraction` runs 0…1 over the run. */
export type BakeProgress = (stage: string, fraction: number) => void;

/** Options of the tail simulation used by the bake and the measure. */
export interface TailSimOptions {
  /** Tail options over TAIL_DEFAULTS. `unitScale` and `floorHeight` default to automatic values (see {@link resolveSimUnits}). */
  tail: PartialOptions<TailOptions>;
  /** Loop closure: largest per-joint rotation difference (degrees) between two consecutive cycles (one-shots: between two consecutive settle windows). */
  loopTolerance: number;
  /** Give up warming up after this much simulated time (seconds), then warn (one-shots: at least one settle window runs). */
  maxWarmupSeconds: number;
  /** Fewest warm-up cycles before the recorded one (one-shots: fewest settle windows). */
  minWarmupCycles: number;
  /** Progress callback, or null. */
  onProgress: BakeProgress | null;
}

/** Defaults of {@link TailSimOptions}. */
export const TAIL_SIM_DEFAULTS: Readonly<TailSimOptions> = Object.freeze({
  tail: Object.freeze({}),
  loopTolerance: 0.1,
  maxWarmupSeconds: 60,
  minWarmupCycles: 1,
  onProgress: null,
});

/**
 * How a clip is simulated. `'loop'`: warm up by replaying the clip until the tail closes its
 * loop, record the last cycle. `'once'` (a one-shot): hold the clip's first pose until the
 * tail settles, then record the clip one time from there.
 */
export type ClipMode = 'loop' | 'once';

/** A clip mode to use, or `'auto'`: detect it from the clip's first and last poses ({@link detectClipMode}). */
export type ClipModeSetting = ClipMode | 'auto';

const CLIP_MODE_SETTINGS: readonly ClipModeSetting[] = ['auto', 'loop', 'once'];

/** Options of {@link detectClipMode}: when do a clip's last and first poses differ? */
export interface ClipModeDetectOptions {
  /** Largest local rotation difference (degrees) of a node the simulation feels (a joint, tail bones included, or a node above the skeleton) between the first and the last pose that still counts as a loop. */
  endPoseRotationTolerance: number;
  /** Largest translation difference (fraction of the character's height; root motion taken out) of such a node between the first and the last pose that still counts as a loop. */
  endPoseTranslationTolerance: number;
  /** Largest relative scale difference (|last / first − 1| on any axis) of such a node between the first and the last pose that still counts as a loop. */
  endPoseScaleTolerance: number;
}

/**
 * Defaults of {@link ClipModeDetectOptions}: 10°, 2 % of the height and 2 % of scale. Measured on the real
 * assets (../shared/assets): the looping clips end within 5.2° (Xbot's run, a forearm) and
 * 0.001 % of the height of their start; the one-shots (Quaternius Death and Jump_ToIdle,
 * RobotExpressive Death, Sitting and Standing, Xbot's sad_pose and sneak_pose) differ by
 * 41–111°.
 */
export const CLIP_MODE_DETECT_DEFAULTS: Readonly<ClipModeDetectOptions> = Object.freeze({
  endPoseRotationTolerance: 10,
  endPoseTranslationTolerance: 0.02,
  endPoseScaleTolerance: 0.02,
});

/** Options of {@link bakeTails}. */
export interface BakeOptions extends TailSimOptions, ClipModeDetectOptions {
  /** Clip names to bake; null = every clip. */
  clips: readonly string[] | null;
  /** Keys per second of the recorded tracks (a cycle gets round(duration · fps) intervals). */
  fps: number;
  /** Calibration to run on; null = captured from the document now. */
  calibration: BakeCalibration | null;
  /** Called with each warning (also collected in the report), or null. */
  onWarning: ((message: string) => void) | null;
  /** Mode of every clip not named in {@link BakeOptions.clipModes}: `'auto'` detects loop or once from the clip's first and last poses. */
  clipMode: ClipModeSetting;
  /** Mode per clip name, over {@link BakeOptions.clipMode}: a plain object (not a Map); every name must be a clip being baked. */
  clipModes: Readonly<Record<string, ClipModeSetting>>;
}

/** Defaults of {@link BakeOptions}. */
export const BAKE_DEFAULTS: Readonly<BakeOptions> = Object.freeze({
  ...TAIL_SIM_DEFAULTS,
  clips: null,
  fps: 30,
  calibration: null,
  onWarning: null,
  ...CLIP_MODE_DETECT_DEFAULTS,
  clipMode: 'auto',
  clipModes: Object.freeze({}),
});

/** The keys of {@link BakeOptions}. */
export const BAKE_OPTION_KEYS: readonly string[] = Object.freeze(Object.keys(BAKE_DEFAULTS));

/**
 * Merge bake options over {@link BAKE_DEFAULTS} and check them. Throws `bitrig/bake: …` naming
 * the bad option, its value and the fix: an unknown key (with the nearest known one, or
 * `tail: { … }` for a tail option such as `carry` given at the top level), `clips` that is not
 * an array of clip names, a string where a number is expected. A field given as undefined keeps
 * its default. Tail options are checked by `mergeTailOptions` (`bitrig/tail: …`).
 *
 * @example
 * const o = mergeBakeOptions({ fps: 60 });
 */
export function mergeBakeOptions(options: PartialOptions<BakeOptions> = {}): BakeOptions {
  checkOptionKeys(options, BAKE_OPTION_KEYS, 'bitrig/bake', { tail: TAIL_OPTION_KEYS });
  const o: BakeOptions = { ...BAKE_DEFAULTS };
  for (const k of Object.keys(options) as (keyof BakeOptions)[]) {
    if (options[k] !== undefined) (o as unknown as Record<string, unknown>)[k] = options[k];
  }
  if (!(typeof o.fps === 'number' && Number.isFinite(o.fps) && o.fps > 0 && o.fps <= 1000)) {
    throw new Error(`bitrig/bake: fps must be a number of keys per second in (0, 1000], got ${describeValue(o.fps)}`);
  }
  checkClips(o.clips);
  if (o.calibration !== null && !(typeof o.calibration === 'object' && 'doc' in o.calibration && 'graph' in o.calibration && 'skins' in o.calibration)) {
    throw new Error(`bitrig/bake: calibration must be null or captureBakeCalibration(doc)'s result, got ${describeValue(o.calibration)}`);
  }
  if (o.onWarning !== null && typeof o.onWarning !== 'function') {
    throw new Error(`bitrig/bake: onWarning must be a function (message) => void or null, got ${describeValue(o.onWarning)}`);
  }
  checkSim(o);
  checkDetect(o);
  if (!CLIP_MODE_SETTINGS.includes(o.clipMode)) throw new Error(`bitrig/bake: clipMode must be 'auto', 'loop' or 'once', got ${describeValue(o.clipMode)}`);
  const proto = typeof o.clipModes === 'object' && o.clipModes !== null ? Object.getPrototypeOf(o.clipModes) : undefined;
  if (proto !== Object.prototype && proto !== null) {
    // (a Map, an array or a class instance would be read as an empty object: every mode silently lost)
    throw new Error(`bitrig/bake: clipModes must be a plain object of clip name → 'auto' | 'loop' | 'once' (e.g. { Death: 'once' }), got ${o.clipModes instanceof Map ? 'a Map (use Object.fromEntries(map))' : describeValue(o.clipModes)}`);
  }
  for (const [name, m] of Object.entries(o.clipModes)) {
    if (!CLIP_MODE_SETTINGS.includes(m)) throw new Error(`bitrig/bake: clipModes[${JSON.stringify(name)}] must be 'auto', 'loop' or 'once', got ${describeValue(m)}`);
  }
  return o;
}

/** `clips`: null, or an array of distinct clip names (a lone string is not iterated letter by letter). */
function checkClips(clips: unknown): void {
  if (clips === null) return;
  if (typeof clips === 'string') {
    throw new Error(`bitrig/bake: clips must be an array of clip names or null (every clip), got ${describeValue(clips)}; for one clip pass [${JSON.stringify(clips)}]`);
  }
  if (!Array.isArray(clips)) throw new Error(`bitrig/bake: clips must be an array of clip names or null (every clip), got ${describeValue(clips)}`);
  clips.forEach((c: unknown, i) => {
    if (typeof c !== 'string') throw new Error(`bitrig/bake: clips[${i}] must be a clip name (a string), got ${describeValue(c)}`);
    if (clips.indexOf(c) !== i) throw new Error(`bitrig/bake: clips names ${JSON.stringify(c)} twice; list each clip once`);
  });
}

function checkDetect(o: ClipModeDetectOptions): void {
  if (!(typeof o.endPoseRotationTolerance === 'number' && Number.isFinite(o.endPoseRotationTolerance) && o.endPoseRotationTolerance >= 0)) {
    throw new Error(`bitrig/bake: endPoseRotationTolerance must be a number of degrees ≥ 0, got ${describeValue(o.endPoseRotationTolerance)}`);
  }
  if (!(typeof o.endPoseTranslationTolerance === 'number' && Number.isFinite(o.endPoseTranslationTolerance) && o.endPoseTranslationTolerance >= 0)) {
    throw new Error(`bitrig/bake: endPoseTranslationTolerance must be a fraction of the height ≥ 0, got ${describeValue(o.endPoseTranslationTolerance)}`);
  }
  if (!(typeof o.endPoseScaleTolerance === 'number' && Number.isFinite(o.endPoseScaleTolerance) && o.endPoseScaleTolerance >= 0)) {
    throw new Error(`bitrig/bake: endPoseScaleTolerance must be a relative scale difference ≥ 0 (0.02 = 2 %), got ${describeValue(o.endPoseScaleTolerance)}`);
  }
}

function checkSim(o: TailSimOptions): void {
  if (!(typeof o.loopTolerance === 'number' && Number.isFinite(o.loopTolerance) && o.loopTolerance > 0)) {
    throw new Error(`bitrig/bake: loopTolerance must be a positive number of degrees, got ${describeValue(o.loopTolerance)}`);
  }
  if (!(typeof o.maxWarmupSeconds === 'number' && Number.isFinite(o.maxWarmupSeconds) && o.maxWarmupSeconds >= 0)) {
    throw new Error(`bitrig/bake: maxWarmupSeconds must be a number of seconds ≥ 0, got ${describeValue(o.maxWarmupSeconds)}`);
  }
  if (!(Number.isInteger(o.minWarmupCycles) && o.minWarmupCycles >= 0)) throw new Error(`bitrig/bake: minWarmupCycles must be an integer ≥ 0, got ${describeValue(o.minWarmupCycles)}`);
  if (o.onProgress !== null && typeof o.onProgress !== 'function') {
    throw new Error(`bitrig/bake: onProgress must be a function (stage, fraction) => void or null, got ${describeValue(o.onProgress)}`);
  }
  if (typeof o.tail !== 'object' || o.tail === null || Array.isArray(o.tail)) {
    throw new Error(`bitrig/bake: tail must be an object of tail options (e.g. { carry: 0.5 }), got ${describeValue(o.tail)}`);
  }
  mergeTailOptions({ ...o.tail, unitScale: o.tail.unitScale ?? 1, floorHeight: o.tail.floorHeight ?? 0 });
}

/** Units and floor the simulation runs with. */
export interface SimUnits {
  /** World units per metre (given, or guessed from the skinned rest pose's height: see `guessUnitScale`). */
  unitScale: number;
  /** Floor height (world Y): given, or the lowest body point of the skinned rest pose, tail skin excluded. */
  floorY: number;
  /** Height of the skinned rest pose (world units). */
  height: number;
}

/**
 * The unit scale and floor a simulation uses when the options leave them out: the floor is
 * where the body (not its tail) stands in the rest pose.
 *
 * @example
 * const { unitScale, floorY } = resolveSimUnits(calib, {});
 */
export function resolveSimUnits(calib: BakeCalibration, tail: PartialOptions<TailOptions>, tailVertex?: readonly (Uint8Array | null)[] | null): SimUnits {
  const world = new Float64Array(16 * calib.graph.nodes.length);
  computeWorldMatrices(calib.graph, { t: calib.graph.restT, r: calib.graph.restR, s: calib.graph.restS }, world);
  let lo = Infinity, hi = -Infinity, body = Infinity;
  calib.skins.forEach((skin, si) => {
    const jm = new Float64Array(16 * skin.names.length);
    jointMatrices(skin, world, jm);
    const pos = new Float64Array(3 * skin.mesh.count);
    skinVertices(skin, jm, pos);
    const ys = new Float64Array(skin.mesh.count);
    for (let v = 0; v < ys.length; v++) {
      ys[v] = pos[3 * v + 1]!;
      if (ys[v]! < lo) lo = ys[v]!;
      if (ys[v]! > hi) hi = ys[v]!;
    }
    body = Math.min(body, lowestPoint(ys, tailVertex?.[si] ?? tailDominatedVertices(skin)));
  });
  const height = hi > lo ? hi - lo : 0;
  if (!Number.isFinite(body)) body = Number.isFinite(lo) ? lo : 0;
  return {
    unitScale: tail.unitScale ?? guessUnitScale(height),
    floorY: tail.floorHeight ?? body,
    height,
  };
}

/** One simulated, loop-closed cycle of a clip's tail motion. */
export interface TailCycle {
  /** Clip name. */
  clip: string;
  /** Clip duration (seconds). */
  duration: number;
  /** Key times t_k = k·duration/F, k = 0…F. */
  times: Float64Array;
  /** Names of the driven tail bones, chain by chain, root first. */
  bones: string[];
  /** Graph node of each driven bone. */
  nodes: Int32Array;
  /** 1 when the bone's node hangs directly under its parent joint (its rotation can be written as a node track). */
  writable: Uint8Array;
  /** Index (into {@link TailCycle.bones}) of each chain's root link. */
  chainRoots: number[];
  /** Node-local rotation (x, y, z, w) of each bone at each key: (F+1) × bones × 4. */
  rotations: Float64Array;
  /** The spring's rest rotation of each bone at each key (carried rest; follows the clip in `'animation'` mode). */
  restRotations: Float64Array;
  /** How the clip was simulated: replayed as a loop, or recorded once after holding its first pose. */
  mode: ClipMode;
  /** Cycles simulated in total (warm-up + the recorded one). In `'once'` mode: settle windows + the recorded pass. */
  cycles: number;
  /** Warm-up cycles before the recorded one. In `'once'` mode: settle windows (of 1 s) the first pose was held. */
  warmupCycles: number;
  /** Simulated warm-up time (seconds) before the recorded cycle or pass. */
  warmupSeconds: number;
  /** Whether loop closure was reached within the tolerance. In `'once'` mode: whether the tail settled on the first pose. */
  converged: boolean;
  /** Largest per-joint difference (degrees) between the recorded cycle and the one compared with it: the one before, or for a clip shorter than 1 s the one ceil(1 s / duration) cycles before. In `'once'` mode: between the last two settle windows. */
  cycleDeltaDeg: number;
  /** Per bone: angle (degrees) between the first and the last key (the loop seam). Empty in `'once'` mode (a one-shot has no seam). */
  seamJumpDeg: Float64Array;
  /** Per bone: the largest rotation (degrees) between two neighbouring keys of the recorded track (a pop anywhere in the track shows here). */
  maxStepDeg: Float64Array;
  /** `'once'` mode: the largest angle (degrees) between a bone's last key and the tail settled on the clip's end pose (how far the tail still swings when the clip stops; the clip is not lengthened). 0 for a loop. */
  endUnsettledDeg: number;
  /** `'once'` mode: whether the tail held on the end pose settled within `maxWarmupSeconds` (else {@link TailCycle.endUnsettledDeg} is measured from where it got). True for a loop. */
  endSettleConverged: boolean;
  /** Rest source each chain ran with. */
  restSources: ('bind' | 'animation')[];
  /** Units the simulation ran with. */
  units: SimUnits;
}

interface DriveJoint {
  slot: number;
  node: number;
  /** -1 when the node hangs directly under its parent joint (or the root frame); else the reference node (-2 = identity). */
  ref: number;
}

interface PrivateRig {
  world: BitrigWorld;
  bindings: { binding: CharacterBinding; drive: DriveJoint[]; rootRef: number; skin: SkinData }[];
  bones: string[];
  nodes: number[];
  slots: number[];
  links: { eid: number; index: number }[];
  writable: number[];
  chainRoots: number[];
  chainKeys: { binding: CharacterBinding; chain: number; nodes: number[] }[];
}

function tailChainsOf(skin: SkinData) {
  return findTailChains({ names: skin.names, parents: skin.parents });
}

/**
 * Does the calibration's skeleton have any tail chain the runtime can drive?
 *
 * @example
 * if (!hasTailBones(calib)) rigAppendages(doc);
 */
export function hasTailBones(calib: BakeCalibration): boolean {
  return calib.skins.some((s) => tailChainsOf(s).some((c) => c.bones.length > 0 && c.parent >= 0));
}

function buildPrivateRig(calib: BakeCalibration, tail: TailOptions, fixedStep: number): PrivateRig {
  const graph = calib.graph;
  const world = createBitrigWorld({ fixedStep, maxStepsPerFrame: 64 });
  const rig: PrivateRig = { world, bindings: [], bones: [], nodes: [], slots: [], links: [], writable: [], chainRoots: [], chainKeys: [] };
  const covered = new Set<number>();
  for (const skin of calib.skins) {
    const chains = tailChainsOf(skin).filter((c) => c.bones.length > 0 && c.parent >= 0 && !covered.has(skin.jointNodes[c.bones[0]!]!));
    if (chains.length === 0) continue;
    for (const c of chains) covered.add(skin.jointNodes[c.bones[0]!]!);
    const n = skin.names.length;
    const ibms: Float64Array[] = [];
    for (let j = 0; j < n; j++) ibms.push(skin.inverseBind.subarray(16 * j, 16 * j + 16));
    const rest = Array.from(skin.jointNodes, (node) => ({
      t: graph.restT.subarray(3 * node, 3 * node + 3), r: graph.restR.subarray(4 * node, 4 * node + 4), s: graph.restS.subarray(3 * node, 3 * node + 3),
    }));
    const binding = bindSkeleton(world, {
      names: skin.names, parents: skin.parents, inverseBind: skin.hasInverseBind ? ibms : undefined, rest,
    }, { tail });
    // Root frame: the parent node of the first root joint.
    let rootRef = -2;
    for (let j = 0; j < n; j++) if (skin.parents[j]! < 0) { rootRef = graph.parent[skin.jointNodes[j]!]! >= 0 ? graph.parent[skin.jointNodes[j]!]! : -2; break; }
    const drive: DriveJoint[] = [];
    for (let j = 0; j < n; j++) {
      const node = skin.jointNodes[j]!;
      const gp = graph.parent[node]!;
      const p = skin.parents[j]!;
      let ref: number;
      if (p >= 0) ref = gp === skin.jointNodes[p]! ? -1 : skin.jointNodes[p]!;
      else ref = (gp < 0 ? -2 : gp) === rootRef ? -1 : rootRef;
      drive.push({ slot: binding.slotOf[j]!, node, ref });
    }
    rig.bindings.push({ binding, drive, rootRef, skin });
    binding.tails.forEach((t, ci) => {
      if (!chains.some((c) => c.bones[0] === t.bones[0])) return; // already recorded from another skin
      rig.chainRoots.push(rig.bones.length);
      const nodes: number[] = [];
      t.bones.forEach((b, i) => {
        rig.bones.push(skin.names[b]!);
        rig.nodes.push(skin.jointNodes[b]!);
        nodes.push(skin.jointNodes[b]!);
        rig.slots.push(binding.slotOf[b]!);
        rig.links.push({ eid: t.eid, index: i });
        rig.writable.push(drive[b]!.ref === -1 ? 1 : 0);
      });
      rig.chainKeys.push({ binding, chain: ci, nodes });
    });
  }
  if (rig.bones.length === 0) {
    throw new Error('bitrig/bake: the skeleton has no Tail_* chain to simulate; run the rig pass first (bitrig rig)');
  }
  return rig;
}

const _inv = mat4.create() as unknown as Float64Array;
const _ref = mat4.create() as unknown as Float64Array;
const _m = new Float64Array(16);
const _t = new Float64Array(3) as unknown as [number, number, number];
const _r = new Float64Array(4) as unknown as [number, number, number, number];
const _s = new Float64Array(3) as unknown as [number, number, number];

/** World offset (x, y, z) of the whole sampled scene: the root motion carried over the loop cycles played so far. */
const _offsetWs = new Float64Array(3);

/** Copy a sampled pose into the private world (moved by `offsetWs`, when given) and run one frame of `dt`. */
function driveFrame(rig: PrivateRig, graph: SceneGraph, pose: LocalPose, nodeWorld: Float64Array, dt: number, offsetWs: Float64Array | null = null): void {
  computeWorldMatrices(graph, pose, nodeWorld);
  const P = rig.world.pose;
  for (const b of rig.bindings) {
    const c = b.binding.charId;
    if (b.rootRef >= 0) for (let k = 0; k < 16; k++) P.charRootWs[16 * c + k] = nodeWorld[16 * b.rootRef + k]!;
    else for (let k = 0; k < 16; k++) P.charRootWs[16 * c + k] = k % 5 === 0 ? 1 : 0;
    // (a translation in front of every world matrix: local poses below the root frame are unchanged)
    if (offsetWs !== null) for (let k = 0; k < 3; k++) P.charRootWs[16 * c + 12 + k] += offsetWs[k]!;
    for (const d of b.drive) {
      if (d.ref === -1) {
        for (let k = 0; k < 3; k++) { P.localT[3 * d.slot + k] = pose.t[3 * d.node + k]!; P.localS[3 * d.slot + k] = pose.s[3 * d.node + k]!; }
        for (let k = 0; k < 4; k++) P.localR[4 * d.slot + k] = pose.r[4 * d.node + k]!;
      } else {
        if (d.ref >= 0) for (let k = 0; k < 16; k++) _ref[k] = nodeWorld[16 * d.ref + k]!;
        else mat4.identity(_ref as unknown as mat4);
        if (!mat4.invert(_inv as unknown as mat4, _ref as unknown as mat4)) mat4.identity(_inv as unknown as mat4);
        mulAffine(_m, 0, _inv, 0, nodeWorld, 16 * d.node);
        decomposeAffine(_m, _t as never, _r as never, _s as never);
        for (let k = 0; k < 3; k++) { P.localT[3 * d.slot + k] = _t[k]; P.localS[3 * d.slot + k] = _s[k]; }
        for (let k = 0; k < 4; k++) P.localR[4 * d.slot + k] = _r[k];
      }
    }
    beginCharacterFrame(b.binding);
  }
  update(rig.world, dt);
}

function quatAngleDeg(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  const d = Math.abs(a[ao]! * b[bo]! + a[ao + 1]! * b[bo + 1]! + a[ao + 2]! * b[bo + 2]! + a[ao + 3]! * b[bo + 3]!);
  return (2 * Math.acos(Math.min(1, d)) * 180) / Math.PI;
}

/**
 * Simulate a clip's tail on a private world until it closes the loop, and return one
 * recorded cycle of `frames` intervals (frames + 1 keys). The runtime's `'auto'` rest source
 * rides on the clip's own tail keys when the clip has them, else on the bind pose.
 * `mode` `'once'` (a one-shot) instead holds the clip's first pose until the tail settles
 * (at least one settle window) and records one pass of the clip from there.
 * Throws `bitrig/bake: …` (no tail chain) or `bitrig/sample: …` (unknown clip).
 *
 * @example
 * const cyc = simulateTailCycle(calib, 'Walk', 24, {});
 * console.log(cyc.warmupCycles, Math.max(...cyc.seamJumpDeg));
 */
export function simulateTailCycle(calib: BakeCalibration, clip: string, frames: number, options: PartialOptions<TailSimOptions> = {}, mode: ClipMode = 'loop'): TailCycle {
  checkOptionKeys(options, Object.keys(TAIL_SIM_DEFAULTS), 'bitrig/bake', { tail: TAIL_OPTION_KEYS });
  const o: TailSimOptions = { ...TAIL_SIM_DEFAULTS };
  for (const k of Object.keys(options) as (keyof TailSimOptions)[]) {
    if (options[k] !== undefined) (o as unknown as Record<string, unknown>)[k] = options[k];
  }
  checkSim(o);
  if (!(Number.isInteger(frames) && frames >= 1 && frames < INPUT_LIMITS.maxBakeKeys)) throw new Error(`bitrig/bake: frames must be an integer in 1…${INPUT_LIMITS.maxBakeKeys - 1}, got ${describeValue(frames)}`);
  if (mode !== 'loop' && mode !== 'once') throw new Error(`bitrig/bake: mode must be 'loop' or 'once', got ${describeValue(mode)}`);
  const graph = calib.graph;
  const sampler = createClipSampler(graph, findClip(calib.doc, clip, 'bitrig/bake'));
  const units = resolveSimUnits(calib, o.tail);
  const tail = mergeTailOptions({ ...o.tail, unitScale: units.unitScale, floorHeight: units.floorY });
  const end = endPoseOf(calib, sampler, simulatedNodes(calib), units.height, CLIP_MODE_DETECT_DEFAULTS);
  return simulateWith(calib, sampler, frames, o, tail, units, mode, carriedRootMotion(end, CLIP_MODE_DETECT_DEFAULTS));
}

/** The root motion a loop bake carries across cycles: the clip's, when it is beyond the translation tolerance (else none: the loop bakes as it always did). */
function carriedRootMotion(end: ClipEndPose, o: ClipModeDetectOptions): Float64Array | null {
  return end.rootMotion > o.endPoseTranslationTolerance ? Float64Array.from(end.rootMotionWs) : null;
}

/** Settle window of a one-shot (seconds): the held pose is compared window to window (the tip's spring takes seconds). */
const SETTLE_WINDOW_SECONDS = 1;
/** Shortest span (seconds) between the two states a loop-closure test compares: a clip shorter than this compares cycle c with cycle c − ceil(1 s / duration). */
const LOOP_COMPARE_MIN_SECONDS = 1;
/** The world's step (seconds): a clip shorter than it is stepped at it (one step per key interval) rather than at its own tiny length. */
const WORLD_STEP = 1 / 60;

function simulateWith(calib: BakeCalibration, sampler: ClipSampler, F: number, o: TailSimOptions, tail: TailOptions, units: SimUnits, mode: ClipMode = 'loop', rootMotionWs: Float64Array | null = null): TailCycle {
  const graph = calib.graph;
  const D = sampler.duration;
  const interval = D / F;
  // A clip shorter than the world's step is stepped at the world's step (the clip advances one key interval a step).
  const subStep = D > 0 && D < WORLD_STEP - 1e-12;
  const m = D > 0 && !subStep ? Math.max(1, Math.ceil(interval * 60 - 1e-9)) : 1;
  const h = D > 0 && !subStep ? interval / m : WORLD_STEP;
  const rig = buildPrivateRig(calib, tail, Math.min(0.1, h));
  // Rest source per chain: 'auto' follows whether this clip keys the chain's rotations.
  const restSources: ('bind' | 'animation')[] = [];
  for (const ck of rig.chainKeys) {
    const keys = ck.nodes.some((nd) => (sampler.keyed[nd]! & 2) !== 0);
    resolveTailRestSource(ck.binding, ck.chain, keys);
    const src = ck.binding.tails[ck.chain]!.restSource;
    restSources.push(src === 'auto' ? (keys ? 'animation' : 'bind') : src);
  }
  const L = rig.bones.length;
  const pose = createLocalPose(graph);
  const nodeWorld = new Float64Array(16 * graph.nodes.length);
  const P = rig.world.pose;
  const B = rig.world.components.BendState;
  const rec = (buf: Float64Array, rest: Float64Array, k: number): void => {
    for (let i = 0; i < L; i++) {
      const s = rig.slots[i]!;
      const o4 = 4 * (k * L + i);
      for (let j = 0; j < 4; j++) buf[o4 + j] = P.localR[4 * s + j]!;
      const lk = rig.links[i]!;
      const kk = tailLinkIndex(rig.world, lk.eid, lk.index);
      for (let j = 0; j < 4; j++) rest[o4 + j] = B.restR[linkEl(kk, 4, j)]!;
    }
  };
  /** Clip time of sub-step s (1…m) of key interval k (1…F). */
  const timeAt = (k: number, s: number): number => (s === m ? (k * D) / F : (k - 1) * interval + s * h);
  const size = (F + 1) * L * 4;
  let cur = new Float64Array(size), prev = new Float64Array(size);
  let curRest = new Float64Array(size), prevRest = new Float64Array(size);
  // Frame 0: the chain initialises at rest on the clip's first pose.
  sampleClip(sampler, graph, 0, pose);
  driveFrame(rig, graph, pose, nodeWorld, 0);
  rec(cur, curRest, 0);
  const cycleSeconds = D > 0 && !subStep ? D : F * m * h;
  const times = new Float64Array(F + 1);
  for (let k = 0; k <= F; k++) times[k] = (k * D) / F;
  /** Per bone: the largest rotation (degrees) between two neighbouring keys of the recorded track. */
  const maxSteps = (buf: Float64Array): Float64Array => {
    const out = new Float64Array(L);
    for (let k = 1; k <= F; k++) for (let i = 0; i < L; i++) out[i] = Math.max(out[i]!, quatAngleDeg(buf, 4 * ((k - 1) * L + i), buf, 4 * (k * L + i)));
    return out;
  };
  if (mode === 'once') {
    // Hold a pose (the hips still) in settle windows of W keys (1 s), each key m steps of h,
    // until a window differs from the one before by less than the tolerance at every key
    // (window 0 is compared with the state the hold starts from).
    const W = Math.max(1, Math.ceil(SETTLE_WINDOW_SECONDS / (m * h) - 1e-9));
    const windowSeconds = W * m * h;
    const maxWindows = Math.max(1, o.minWarmupCycles, Math.ceil(o.maxWarmupSeconds / windowSeconds - 1e-9));
    const wsize = W * L * 4;
    let win = new Float64Array(wsize), winPrev = new Float64Array(wsize);
    const hold = (from: Float64Array, fromKey: number, stage: string, base: number): { windows: number; delta: number; converged: boolean; last: Float64Array } => {
      for (let k = 0; k < W; k++) winPrev.set(from.subarray(fromKey * L * 4, (fromKey + 1) * L * 4), k * L * 4);
      let windows = 0, delta = Infinity, converged = false;
      for (let c = 0; c < maxWindows; c++) {
        for (let k = 0; k < W; k++) {
          for (let s = 1; s <= m; s++) driveFrame(rig, graph, pose, nodeWorld, h);
          for (let i = 0; i < L; i++) {
            const sl = rig.slots[i]!;
            for (let j = 0; j < 4; j++) win[4 * (k * L + i) + j] = P.localR[4 * sl + j]!;
          }
        }
        windows = c + 1;
        delta = 0;
        for (let q = 0; q < wsize; q += 4) delta = Math.max(delta, quatAngleDeg(win, q, winPrev, q));
        if (delta < o.loopTolerance && windows >= o.minWarmupCycles) { converged = true; break; }
        const w0 = win; win = winPrev; winPrev = w0;
        o.onProgress?.(`${sampler.name}: ${stage} ${c + 1}`, base + 0.5 * Math.min(1, (c + 1) / (maxWindows + 1)));
      }
      return { windows, delta, converged, last: win.slice((W - 1) * L * 4, W * L * 4) };
    };
    const start = hold(cur, 0, 'settle window', 0);
    // One pass of the clip from the settled state.
    rec(cur, curRest, 0);
    for (let k = 1; k <= F; k++) {
      for (let s = 1; s <= m; s++) {
        sampleClip(sampler, graph, timeAt(k, s), pose);
        driveFrame(rig, graph, pose, nodeWorld, h);
      }
      rec(cur, curRest, k);
    }
    // How far the last key is from the tail settled on the end pose (the clip is not lengthened).
    sampleClip(sampler, graph, D, pose);
    const end = hold(cur, F, 'end settle window', 0.5);
    let endUnsettled = 0;
    for (let i = 0; i < L; i++) endUnsettled = Math.max(endUnsettled, quatAngleDeg(cur, 4 * (F * L + i), end.last, 4 * i));
    o.onProgress?.(`${sampler.name}: recorded`, 1);
    return {
      clip: sampler.name, duration: D, times, bones: rig.bones.slice(), nodes: Int32Array.from(rig.nodes),
      writable: Uint8Array.from(rig.writable), chainRoots: rig.chainRoots.slice(), rotations: cur, restRotations: curRest,
      mode, cycles: start.windows + 1, warmupCycles: start.windows, warmupSeconds: start.windows * windowSeconds, converged: start.converged,
      cycleDeltaDeg: start.delta, seamJumpDeg: new Float64Array(0), maxStepDeg: maxSteps(cur), endUnsettledDeg: endUnsettled,
      endSettleConverged: end.converged, restSources, units,
    };
  }
  // Loop closure compares cycle c with cycle c − R: at least LOOP_COMPARE_MIN_SECONDS apart.
  const R = Math.max(1, Math.ceil(LOOP_COMPARE_MIN_SECONDS / cycleSeconds - 1e-9));
  const ref = new Float64Array(size);
  let converged = false;
  let delta = Infinity;
  let cycles = 0;
  const maxCycles = Math.max(o.minWarmupCycles + 1, Math.ceil(o.maxWarmupSeconds / cycleSeconds - 1e-9) + 1);
  // Root motion: cycle c is played moved by c × the clip's displacement, so the hips never jump back.
  const offset = rootMotionWs ? _offsetWs : null;
  for (let c = 0; c < maxCycles; c++) {
    if (c > 0) {
      const t0 = cur; cur = prev; prev = t0;
      const r0 = curRest; curRest = prevRest; prevRest = r0;
      // The new cycle starts where the previous one ended.
      cur.set(prev.subarray(F * L * 4, (F + 1) * L * 4), 0);
      curRest.set(prevRest.subarray(F * L * 4, (F + 1) * L * 4), 0);
    }
    if (offset) for (let k = 0; k < 3; k++) offset[k] = c * rootMotionWs![k]!;
    for (let k = 1; k <= F; k++) {
      for (let s = 1; s <= m; s++) {
        sampleClip(sampler, graph, timeAt(k, s), pose);
        driveFrame(rig, graph, pose, nodeWorld, h, offset);
      }
      rec(cur, curRest, k);
    }
    cycles = c + 1;
    if (c > 0 && c % R === 0) {
      delta = 0;
      for (let q = 0; q < size; q += 4) delta = Math.max(delta, quatAngleDeg(cur, q, ref, q));
      if (delta < o.loopTolerance && c >= o.minWarmupCycles) { converged = true; break; }
    }
    if (c % R === 0) ref.set(cur);
    o.onProgress?.(`${sampler.name}: warm-up cycle ${c + 1}`, Math.min(1, (c + 1) / maxCycles));
  }
  const seam = new Float64Array(L);
  for (let i = 0; i < L; i++) seam[i] = quatAngleDeg(cur, 4 * i, cur, 4 * (F * L + i));
  // A single (cold) cycle has nothing to compare with: its seam is the best estimate.
  if (!Number.isFinite(delta)) delta = Math.max(0, ...seam);
  o.onProgress?.(`${sampler.name}: recorded`, 1);
  return {
    clip: sampler.name, duration: D, times, bones: rig.bones.slice(), nodes: Int32Array.from(rig.nodes),
    writable: Uint8Array.from(rig.writable), chainRoots: rig.chainRoots.slice(), rotations: cur, restRotations: curRest,
    mode, cycles, warmupCycles: cycles - 1, warmupSeconds: (cycles - 1) * cycleSeconds, converged, cycleDeltaDeg: delta, seamJumpDeg: seam,
    maxStepDeg: maxSteps(cur), endUnsettledDeg: 0, endSettleConverged: true, restSources, units,
  };
}

/** How far a clip's last pose is from its first, and the mode that suggests ({@link detectClipMode}). */
export interface ClipEndPose {
  /** `'once'` when the last pose differs from the first beyond a tolerance, else `'loop'` (root motion alone is a loop). */
  mode: ClipMode;
  /** Largest local rotation difference (degrees) between the first (t = 0) and the last (t = duration) pose over the nodes the simulation feels that the clip rotates. */
  rotationDeg: number;
  /** Node with that largest rotation difference, or null when the clip rotates none. */
  rotationJoint: string | null;
  /** Largest translation difference between the first and the last pose, root motion taken out, as a fraction of the character's height (measured in world units: the parent's scale applies). */
  translation: number;
  /** Node with that largest translation difference, or null when the clip translates none. */
  translationJoint: string | null;
  /** Largest relative scale difference (|last / first − 1| on an axis) between the first and the last pose over the nodes the clip scales. */
  scale: number;
  /** Node with that largest scale difference, or null when the clip scales none. */
  scaleJoint: string | null;
  /** Root motion: horizontal (world X and Z; Y is 0) displacement of the skeleton's root joint from the first to the last pose (world units). A loop bake carries it across warm-up cycles. */
  rootMotionWs: [number, number, number];
  /** Length of {@link ClipEndPose.rootMotionWs} as a fraction of the character's height. */
  rootMotion: number;
}

/**
 * Is a clip a loop or a one-shot? glTF has no loop flag, so compare the clip's pose at its
 * last time with its pose at t = 0 over every node the simulation feels that the clip
 * animates: the skin joints (tail bones included: keyed tail rotations are the tail's rest)
 * and the nodes above the skeleton (an `Armature` node: the simulation gets the root's parent
 * world matrix). A local rotation differing by more than `endPoseRotationTolerance` degrees,
 * a translation by more than `endPoseTranslationTolerance` of the character's height, or a
 * scale by more than `endPoseScaleTolerance` (relative) makes it a one-shot (`'once'`).
 * Root motion is not a difference: the horizontal world displacement of the skeleton's root
 * joint (`rootMotionWs`) is taken out of the translations of the root joints and the nodes
 * above them, so a walk that ends 1.2 m further on, otherwise in its start pose, is a loop
 * (the loop bake carries the displacement across warm-up cycles). Throws `bitrig/sample: …`
 * (unknown clip).
 *
 * @example
 * const end = detectClipMode(captureBakeCalibration(doc), 'Death');
 * console.log(end.mode, end.rotationDeg, end.rotationJoint); // 'once' 107.5 'IKFrontLeg.L'
 */
export function detectClipMode(calib: BakeCalibration, clip: string, options: PartialOptions<ClipModeDetectOptions> = {}): ClipEndPose {
  checkOptionKeys(options, Object.keys(CLIP_MODE_DETECT_DEFAULTS), 'bitrig/bake');
  const o: ClipModeDetectOptions = { ...CLIP_MODE_DETECT_DEFAULTS };
  for (const k of Object.keys(options) as (keyof ClipModeDetectOptions)[]) {
    if (options[k] !== undefined) o[k] = options[k]!;
  }
  checkDetect(o);
  const sampler = createClipSampler(calib.graph, findClip(calib.doc, clip, 'bitrig/bake'));
  return endPoseOf(calib, sampler, simulatedNodes(calib), resolveSimUnits(calib, {}).height, o);
}

/**
 * The nodes the simulation feels: 1 for every skin joint, 2 for a skin's root joint or a
 * node above one (their translation may carry root motion).
 */
function simulatedNodes(calib: BakeCalibration): Uint8Array {
  const graph = calib.graph;
  const mask = new Uint8Array(graph.nodes.length);
  for (const skin of calib.skins) for (const n of skin.jointNodes) mask[n] = 1;
  for (const skin of calib.skins) {
    for (let j = 0; j < skin.names.length; j++) {
      if (skin.parents[j]! >= 0) continue;
      for (let a = skin.jointNodes[j]!, guard = 0; a >= 0 && guard <= graph.nodes.length; a = graph.parent[a]!, guard++) mask[a] = 2;
    }
  }
  return mask;
}

/** The skeleton's root joint whose horizontal displacement is root motion: the root joint above the first tail chain (else the first skin's first root joint), or -1. */
function rootMotionNode(calib: BakeCalibration): number {
  for (const skin of calib.skins) {
    const c = tailChainsOf(skin).find((ch) => ch.bones.length > 0 && ch.parent >= 0);
    if (!c) continue;
    let j = c.bones[0]!;
    for (let guard = 0; skin.parents[j]! >= 0 && guard <= skin.names.length; guard++) j = skin.parents[j]!;
    return skin.jointNodes[j]!;
  }
  const skin = calib.skins[0];
  if (!skin) return -1;
  for (let j = 0; j < skin.names.length; j++) if (skin.parents[j]! < 0) return skin.jointNodes[j]!;
  return -1;
}

function endPoseOf(calib: BakeCalibration, sampler: ClipSampler, felt: Uint8Array, height: number, o: ClipModeDetectOptions): ClipEndPose {
  const graph = calib.graph;
  const first = createLocalPose(graph);
  const last = createLocalPose(graph);
  sampleClip(sampler, graph, 0, first);
  sampleClip(sampler, graph, sampler.duration, last);
  const world = new Float64Array(16 * graph.nodes.length);
  const worldLast = new Float64Array(16 * graph.nodes.length);
  computeWorldMatrices(graph, first, world);
  computeWorldMatrices(graph, last, worldLast);
  // Root motion: the root joint's horizontal world displacement.
  const rm = rootMotionNode(calib);
  const rootMotionWs: [number, number, number] = [0, 0, 0];
  if (rm >= 0) {
    rootMotionWs[0] = worldLast[16 * rm + 12]! - world[16 * rm + 12]!;
    rootMotionWs[2] = worldLast[16 * rm + 14]! - world[16 * rm + 14]!;
  }
  let rotationDeg = 0, translationWs = 0, scale = 0;
  let rotationJoint: string | null = null, translationJoint: string | null = null, scaleJoint: string | null = null;
  for (let n = 0; n < graph.nodes.length; n++) {
    const keyed = sampler.keyed[n]!;
    if (!felt[n] || keyed === 0) continue;
    if (keyed & 2) {
      const a = quatAngleDeg(first.r, 4 * n, last.r, 4 * n);
      if (rotationJoint === null || a > rotationDeg) { rotationDeg = a; rotationJoint = graph.names[n]!; }
    }
    if (keyed & 4) {
      let d = 0;
      for (let k = 0; k < 3; k++) {
        const a = first.s[3 * n + k]!, b = last.s[3 * n + k]!;
        d = Math.max(d, a === b ? 0 : Math.abs(a) > 1e-12 ? Math.abs(b / a - 1) : Infinity);
      }
      if (scaleJoint === null || d > scale) { scale = d; scaleJoint = graph.names[n]!; }
    }
    if ((keyed & 1) && felt[n] === 1) {
      // The local difference in the parent's frame at the first pose, so in world units.
      const dx = last.t[3 * n]! - first.t[3 * n]!, dy = last.t[3 * n + 1]! - first.t[3 * n + 1]!, dz = last.t[3 * n + 2]! - first.t[3 * n + 2]!;
      const p = graph.parent[n]!;
      let d: number;
      if (p < 0) d = Math.hypot(dx, dy, dz);
      else {
        const M = world, b = 16 * p;
        d = Math.hypot(M[b]! * dx + M[b + 4]! * dy + M[b + 8]! * dz, M[b + 1]! * dx + M[b + 5]! * dy + M[b + 9]! * dz, M[b + 2]! * dx + M[b + 6]! * dy + M[b + 10]! * dz);
      }
      if (translationJoint === null || d > translationWs) { translationWs = d; translationJoint = graph.names[n]!; }
    }
  }
  // Root joints and the nodes above them: where each root joint ends up, root motion taken out.
  for (let n = 0; n < graph.nodes.length; n++) {
    if (felt[n] !== 2) continue;
    let keyedAbove = false;
    for (let a = n, guard = 0; a >= 0 && guard <= graph.nodes.length; a = graph.parent[a]!, guard++) if (sampler.keyed[a]! & 1) { keyedAbove = true; break; }
    if (!keyedAbove) continue;
    const b = 16 * n;
    const d = Math.hypot(worldLast[b + 12]! - world[b + 12]! - rootMotionWs[0], worldLast[b + 13]! - world[b + 13]!, worldLast[b + 14]! - world[b + 14]! - rootMotionWs[2]);
    if (translationJoint === null || d > translationWs) { translationWs = d; translationJoint = graph.names[n]!; }
  }
  const translation = height > 0 ? translationWs / height : 0;
  const rootMotion = height > 0 ? Math.hypot(rootMotionWs[0], rootMotionWs[2]) / height : 0;
  const once = rotationDeg > o.endPoseRotationTolerance || translation > o.endPoseTranslationTolerance || scale > o.endPoseScaleTolerance;
  return { mode: once ? 'once' : 'loop', rotationDeg, rotationJoint, translation, translationJoint, scale, scaleJoint, rootMotionWs, rootMotion };
}

/** What the bake did for one clip. */
export interface BakedClipReport {
  /** Clip name. */
  clip: string;
  /** Duration (seconds). */
  duration: number;
  /** Keys written per track. */
  keys: number;
  /** Bones that got a rotation track. */
  bones: string[];
  /** How the clip was baked: `'loop'` (warmed up by replaying it to loop closure) or `'once'` (a one-shot: recorded once after holding its first pose until the tail settled). */
  mode: ClipMode;
  /** Why: `'auto'` detected from {@link BakedClipReport.endPose}, `'option'` forced by `clipMode` / `clipModes`. */
  modeSource: 'auto' | 'option';
  /** The clip's last pose against its first (measured whatever the mode's source). */
  endPose: ClipEndPose;
  /** Warm-up cycles before the recorded one. In `'once'` mode: settle windows (of 1 s) the first pose was held. */
  warmupCycles: number;
  /** Simulated warm-up time (seconds). */
  warmupSeconds: number;
  /** Loop closure reached within the tolerance. In `'once'` mode: the tail settled on the first pose within the tolerance. */
  converged: boolean;
  /** Largest per-joint difference (degrees) between the recorded cycle and the one before. In `'once'` mode: between the last two settle windows. */
  cycleDeltaDeg: number;
  /** Per bone: rotation jump (degrees) at the loop seam of the written track. Empty in `'once'` mode: a one-shot has no loop seam. */
  seamJumpDeg: number[];
  /** Per bone: the largest rotation (degrees) between two neighbouring keys of the written track (a pop anywhere in it, not only at the seam). */
  maxStepDeg: number[];
  /** `'once'` mode: how far (degrees, largest over the bones) the last key is from the tail settled on the clip's end pose: the swing an engine freezes when it holds the last frame. 0 for a loop. */
  endUnsettledDeg: number;
  /** Root motion carried across the warm-up cycles of a loop (world units, horizontal), or null. */
  rootMotionWs: [number, number, number] | null;
  /** Largest rotation (degrees) of the chain's root link away from its rest over the cycle. */
  rootSwingDeg: number;
  /** Rest source each chain ran with. */
  restSources: ('bind' | 'animation')[];
}

/** Result of {@link bakeTails}. */
export interface BakeReport {
  /** One entry per baked clip. */
  clips: BakedClipReport[];
  /** Warnings (non-convergence, bones that could not be written). */
  warnings: string[];
  /** Units the simulation ran with. */
  units: SimUnits;
}

/** Extras key bake sets on an animation whose tail keys it wrote (`extras.bitrigBaked: true`). */
export const BAKED_EXTRA = 'bitrigBaked';

/**
 * Bake the tail of every chosen clip into the document: simulate on a private world from a
 * stable calibration, warm up to loop closure (a one-shot clip: settle on its first pose and
 * record it once; see {@link detectClipMode}), and write LINEAR rotation tracks for every
 * driven `Tail_*` bone (replacing a clip's own rotation track of that bone), marking the clip
 * baked (`extras.bitrigBaked`; a baked clip is left as it is by a later bake, with a warning).
 * Node TRS are never modified. Throws `bitrig/bake: …` (bad or unknown options, see {@link mergeBakeOptions}; no tail chain, calibration of another document)
 * or `bitrig/sample: …` (unknown clip, no animations).
 *
 * @example
 * const report = bakeTails(doc, { clips: ['walk'], fps: 30, clipModes: { Death: 'once' } });
 * console.log(report.clips[0].mode, report.clips[0].warmupCycles, report.clips[0].seamJumpDeg);
 */
export function bakeTails(doc: Document, options: PartialOptions<BakeOptions> = {}): BakeReport {
  assertDocument(doc, 'bitrig/bake');
  const o = mergeBakeOptions(options);
  const inputNotes = validateDocument(doc, 'bitrig/bake');
  const calib = o.calibration ?? captureBakeCalibration(doc);
  if (calib.doc !== doc) throw new Error('bitrig/bake: the calibration was captured from another document');
  const names = listClipNames(doc);
  if (names.length === 0) throw new Error('bitrig/bake: the file has no animations');
  const chosen = o.clips ?? names;
  for (const c of chosen) findClip(doc, c, 'bitrig/bake');
  const twice = chosen.find((c) => names.indexOf(c) !== names.lastIndexOf(c));
  if (twice !== undefined) throw new Error(`bitrig/bake: two animations are named "${twice}"; rename one (clips are chosen by name)`);
  if (!hasTailBones(calib)) throw new Error('bitrig/bake: the skeleton has no Tail_* chain to simulate; run the rig pass first (bitrig rig)');
  for (const c of Object.keys(o.clipModes)) {
    if (!names.includes(c)) throw new Error(`bitrig/bake: a clip mode is given for clip "${c}", which the file does not have; clips: ${names.join(', ')}`);
    if (!chosen.includes(c)) throw new Error(`bitrig/bake: a clip mode is given for clip "${c}", which is not among the clips being baked (${chosen.join(', ')}); add it to clips or drop its mode`);
  }
  const units = resolveSimUnits(calib, o.tail);
  const tail = mergeTailOptions({ ...o.tail, unitScale: units.unitScale, floorHeight: units.floorY });
  const warnings: string[] = [];
  const warn = (msg: string): void => { warnings.push(msg); o.onWarning?.(msg); };
  for (const n of inputNotes) warn(n);
  const scaleNote = o.tail.unitScale === undefined ? unitScaleNote(units.height, units.unitScale) : null;
  if (scaleNote) warn(scaleNote);
  const felt = simulatedNodes(calib);
  const cycles: TailCycle[] = [];
  const modes: { source: 'auto' | 'option'; endPose: ClipEndPose }[] = [];
  const rootMotions = new Map<string, [number, number, number] | null>();
  chosen.forEach((name, ci) => {
    const anim = findClip(doc, name, 'bitrig/bake');
    if ((anim.getExtras() as Record<string, unknown>)[BAKED_EXTRA] === true) {
      // Its tail keys are a bake's: simulating on them would add follow-through to follow-through.
      warn(`clip "${name}": already baked by bitrig (its tail keys hold the motion); left as it is`);
      return;
    }
    const sampler = createClipSampler(calib.graph, anim);
    if (!(sampler.duration > 0)) {
      // A single pose (or no keys): no loop to record; keys at [0, 0] would not be increasing.
      warn(`clip "${name}": it lasts 0 s (a single pose); left as it is`);
      return;
    }
    const F = Math.max(1, Math.round(sampler.duration * o.fps));
    if (F + 1 > INPUT_LIMITS.maxBakeKeys) {
      throw new Error(`bitrig/bake: clip "${name}" lasts ${sampler.duration} s: at ${o.fps} fps it needs ${F + 1} keys, more than the ${INPUT_LIMITS.maxBakeKeys} a bake writes per clip; lower the fps`);
    }
    const sub: TailSimOptions = {
      ...o,
      onProgress: o.onProgress ? (stage, f) => o.onProgress!(stage, (ci + f) / chosen.length) : null,
    };
    const endPose = endPoseOf(calib, sampler, felt, units.height, o);
    const setting = Object.prototype.hasOwnProperty.call(o.clipModes, name) ? o.clipModes[name]! : o.clipMode;
    const mode: ClipMode = setting === 'auto' ? endPose.mode : setting;
    const carried = mode === 'loop' ? carriedRootMotion(endPose, o) : null;
    const cyc = simulateWith(calib, sampler, F, sub, tail, units, mode, carried);
    rootMotions.set(name, carried ? [carried[0]!, carried[1]!, carried[2]!] : null);
    if (!cyc.converged && mode === 'loop') {
      warn(`clip "${name}": the tail did not close its loop within ${o.maxWarmupSeconds} s of warm-up `
        + `(last cycle differs by ${cyc.cycleDeltaDeg.toFixed(3)}° > ${o.loopTolerance}°); recorded the last cycle`);
    } else if (!cyc.converged) {
      warn(`clip "${name}" (one-shot): the tail did not settle on the clip's first pose within ${cyc.warmupSeconds.toFixed(2)} s `
        + `(last settle window differs by ${cyc.cycleDeltaDeg.toFixed(3)}° > ${o.loopTolerance}°); recorded the clip from where it was`);
    }
    cycles.push(cyc);
    modes.push({ source: setting === 'auto' ? 'auto' : 'option', endPose });
  });
  const reports: BakedClipReport[] = [];
  cycles.forEach((cyc, ci) => {
    const anim = findClip(doc, cyc.clip, 'bitrig/bake');
    const written = writeTailTracks(doc, calib, anim, cyc, warn);
    let rootSwing = 0;
    const L = cyc.bones.length;
    for (const r of cyc.chainRoots) {
      for (let k = 0; k < cyc.times.length; k++) rootSwing = Math.max(rootSwing, quatAngleDeg(cyc.rotations, 4 * (k * L + r), cyc.restRotations, 4 * (k * L + r)));
    }
    reports.push({
      clip: cyc.clip, duration: cyc.duration, keys: cyc.times.length, bones: written,
      mode: cyc.mode, modeSource: modes[ci]!.source, endPose: modes[ci]!.endPose,
      warmupCycles: cyc.warmupCycles, warmupSeconds: cyc.warmupSeconds, converged: cyc.converged, cycleDeltaDeg: cyc.cycleDeltaDeg,
      seamJumpDeg: Array.from(cyc.seamJumpDeg), maxStepDeg: Array.from(cyc.maxStepDeg), endUnsettledDeg: cyc.endUnsettledDeg,
      rootMotionWs: rootMotions.get(cyc.clip) ?? null, rootSwingDeg: rootSwing, restSources: cyc.restSources,
    });
  });
  return { clips: reports, warnings, units };
}

function writeTailTracks(doc: Document, calib: BakeCalibration, anim: Animation, cyc: TailCycle, warn: (m: string) => void): string[] {
  const graph = calib.graph.nodes;
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer();
  const F1 = cyc.times.length;
  const L = cyc.bones.length;
  const input = doc.createAccessor(`${cyc.clip}_tail_times`, buffer).setType('SCALAR').setArray(Float32Array.from(cyc.times));
  const written: string[] = [];
  const orphans = new Set<AnimationSampler>();
  for (let i = 0; i < L; i++) {
    if (cyc.writable[i] !== 1) {
      warn(`bone "${cyc.bones[i]}" is not directly under its parent joint; its rotation track was not written`);
      continue;
    }
    const node = graph[cyc.nodes[i]!]!;
    const vals = new Float32Array(4 * F1);
    let px = 0, py = 0, pz = 0, pw = 1;
    for (let k = 0; k < F1; k++) {
      const o4 = 4 * (k * L + i);
      let x = cyc.rotations[o4]!, y = cyc.rotations[o4 + 1]!, z = cyc.rotations[o4 + 2]!, w = cyc.rotations[o4 + 3]!;
      if (k > 0 && x * px + y * py + z * pz + w * pw < 0) { x = -x; y = -y; z = -z; w = -w; }
      vals[4 * k] = x; vals[4 * k + 1] = y; vals[4 * k + 2] = z; vals[4 * k + 3] = w;
      px = x; py = y; pz = z; pw = w;
    }
    const output = doc.createAccessor(`${cyc.clip}_${cyc.bones[i]}_rotation`, buffer).setType('VEC4').setArray(vals);
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
    anim.addSampler(sampler);
    let channel: AnimationChannel | undefined;
    for (const ch of anim.listChannels()) if (ch.getTargetNode() === node && ch.getTargetPath() === 'rotation') channel = ch;
    if (channel) {
      const old = channel.getSampler();
      if (old) orphans.add(old);
      channel.setSampler(sampler);
    } else {
      anim.addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler));
    }
    written.push(cyc.bones[i]!);
  }
  if (written.length === 0) input.dispose();
  else anim.setExtras({ ...anim.getExtras(), [BAKED_EXTRA]: true }); // (a later bake leaves it as it is)
  for (const s of orphans) {
    if (anim.listChannels().some((ch) => ch.getSampler() === s)) continue;
    const accs = [s.getInput(), s.getOutput()];
    s.dispose();
    for (const a of accs) if (a && a.listParents().every((p) => p.propertyType === 'Root')) a.dispose();
  }
  return written;
}
