/**
 * The engine-free body of every adapter's animator. An adapter finds the engine's skeletons,
 * reads them as {@link SkeletonSource}s and supplies two copy loops (engine → pose store,
 * driven bones → engine); everything else — option merging, unit scale, binding, the
 * per-frame order, tail options, diagnostics, release — lives here, once, for three.js and
 * Babylon.js alike.
 *
 * Setup throws `<module>: …` (the adapter's module name, e.g. `bitrig/babylon`); the
 * per-frame methods never throw (except `update` on a world other live animators share, a
 * usage error) and never allocate.
 */
import { isBitrigWorld, type BitrigWorld } from '../core/world';
import { createBitrigWorld } from '../runtime/world';
import { bindSkeleton, endCharacterFrame, mergeChainOptions, unbindSkeleton, writeTailRest, type BindOptions, type CharacterBinding, type SkeletonSource } from '../core/binding';
import { describeValue, TAIL_DEFAULTS, TAIL_OPTION_KEYS, withDefaults, withDefaultsStrict, type PartialOptions, type TailOptions } from '../core/defaults';
import { autoUnitScale } from '../core/units';
import {
  prepareCharacterFrame, reseatTails, reseatTailsAtPose, resolveAutoRestSources, setBindingTailOptions, tailDiagnostics,
  type AnimatorDiagnostics, type TailDiagnostics,
} from './animatorCore';
import {
  addSceneIK, removeSceneIK, sceneDiagnostics, setSceneInputs, SCENE_IK_OPTION_KEYS,
  type SceneDiagnostics, type SceneIKHandle, type SceneIKOptions, type SceneInputs, type SkinInput,
} from '../core/sceneIK';
import { update as runPipeline } from '../systems/pipeline';
import { REST_ANIMATION } from '../core/components/tail';
import { addAnimatorColliders } from './colliderPass';
import { isTailCollider, removeTailCollider } from '../core/colliderSetup';

/** The first bone's name of every tail chain of the bindings (how options name a chain). */
function chainFirstBones(bindings: readonly CharacterBinding[], names: readonly (readonly string[])[]): string[] {
  return bindings.flatMap((b, i) => b.tails.map((t) => names[i]![t.bones[0]!]!));
}

/** Live animators per world (a world with one animator may be stepped by its `update`). */
const animatorsOn = new WeakMap<BitrigWorld, number>();

/**
 * Options every adapter's `createAnimator` shares (same names and defaults in each). A field
 * given as undefined keeps its default, as a field left out does.
 */
export interface AnimatorBaseOptions {
  /** World to bind into (share one between many characters); default: a private world. */
  world?: BitrigWorld | undefined;
  /** Tail options for every chain (the documented defaults; restSource 'auto'). */
  tail?: PartialOptions<TailOptions> | undefined;
  /** Per-chain tail options keyed by the chain's first bone name (null or undefined: no override for that chain). */
  tails?: Record<string, PartialOptions<TailOptions> | null | undefined> | undefined;
  /** Explicit tail chains (bone names, root first); default: found by name. */
  tailChains?: readonly (readonly string[])[] | undefined;
  /** Pelvis bone name; default: found by name or structure. */
  pelvis?: string | undefined;
  /** World units per metre, or 'auto' (100 when the rig is taller than 20 units, else 1). */
  unitScale?: number | 'auto' | undefined;
  /** Tail physics on (default) or off (the carried rest pose is shown). */
  tailPhysics?: boolean | undefined;
  /** Scene contacts (feet, pelvis, hands) on the largest skeleton: `true` or options; soles calibrate from its meshes' skin. Off by default. */
  sceneIK?: boolean | PartialOptions<SceneIKOptions> | undefined;
  /**
   * Automatic tail colliders on every skeleton with a tail (on by default): capsules along the
   * thighs and shins (group legs) and the hips and lower spine (group body), radius from the
   * skin around each bone (the median distance of the vertices it moves most); listed in
   * `animator.colliders`, editable with `setTailCollider` and removable with `removeTailCollider`.
   * With a `vrm` file that has spring-bone colliders, those are added instead. False: none.
   */
  colliders?: boolean | undefined;
  /**
   * The glTF JSON of a VRM file (an object): its VRMC_springBone 1.0 or VRM 0.x spring-bone
   * colliders become the tail colliders instead of the automatic ones (see docs/colliders.md).
   * The three.js adapter also takes the loader's result (`gltf`) and reads `gltf.parser.json`.
   */
  vrm?: object | undefined;
}

/** The keys of {@link AnimatorBaseOptions} (an adapter adds its own with {@link AnimatorBaseSpec.optionKeys}). */
export const ANIMATOR_BASE_OPTION_KEYS: readonly string[] = Object.freeze(['world', 'tail', 'tails', 'tailChains', 'pelvis', 'unitScale', 'tailPhysics', 'sceneIK', 'colliders', 'vrm']);

/** Defaults of {@link AnimatorBaseOptions}. */
export const ANIMATOR_BASE_DEFAULTS = Object.freeze({ unitScale: 'auto' as number | 'auto', tailPhysics: true, colliders: true });

/**
 * Pick the skeletons to bind from every skeleton found under an engine object: largest
 * first, dropping any skeleton whose bones all belong to one already picked (a second mesh
 * skinned to a subset adds nothing). Setup-time.
 *
 * @example
 * const skeletons = distinctSkeletons(found, (s) => s.bones);
 */
export function distinctSkeletons<S, B>(skeletons: Iterable<S>, bonesOf: (s: S) => readonly B[]): S[] {
  const list = [...new Set(skeletons)].sort((a, b) => bonesOf(b).length - bonesOf(a).length);
  const out: S[] = [];
  const covered = new Set<B>();
  for (const s of list) {
    const bones = bonesOf(s);
    if (bones.every((b) => covered.has(b))) continue;
    out.push(s);
    for (const b of bones) covered.add(b);
  }
  return out;
}

/**
 * World units per metre from the option: a positive number as given, or `'auto'` from the
 * rig's height (spread of the bones' world y, read lazily). Throws `<module>: unitScale …`
 * when the result is not positive. Setup-time.
 *
 * @example
 * const unitScale = resolveUnitScale('auto', () => bones.map((b) => worldY(b)), 'bitrig/three');
 */
export function resolveUnitScale(option: number | 'auto', boneWorldYs: () => ArrayLike<number>, module: string): number {
  if (typeof option !== 'number' && option !== 'auto') throw new Error(`${module}: unitScale must be a positive number or 'auto', got ${describeValue(option)}`);
  let unitScale = typeof option === 'number' ? option : 1;
  if (option === 'auto') {
    const ys = boneWorldYs();
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < ys.length; i++) { lo = Math.min(lo, ys[i]!); hi = Math.max(hi, ys[i]!); }
    unitScale = autoUnitScale(hi - lo);
  }
  if (!(unitScale > 0)) throw new Error(`${module}: unitScale must be positive, got ${describeValue(option)}`);
  return unitScale;
}

/** One engine skeleton as an adapter hands it to {@link createAnimatorBase}. */
export interface AdapterSkeleton {
  /** The skeleton read as an engine-free source (bone order = the adapter's copy order). */
  source: SkeletonSource;
  /** World y of every bone now (for `unitScale: 'auto'`), read lazily. */
  boneWorldYs(): ArrayLike<number>;
}

/** What an adapter supplies to {@link createAnimatorBase}. */
export interface AnimatorBaseSpec<T extends AdapterSkeleton> {
  /** Module name for error messages, e.g. `'bitrig/three'`. */
  module: string;
  /** The adapter's own option keys beyond {@link ANIMATOR_BASE_OPTION_KEYS} (e.g. `['mixer', 'updateMixer']`); any other key is refused. */
  optionKeys?: readonly string[];
  /** The skeletons to bind (at least one; the adapter throws a clearer error before). */
  skeletons: readonly T[];
  /** Copy the engine's current local TRS of every bone of `skeleton` and its root frame into `world.pose`. Per-frame. */
  copyIn(skeleton: T, binding: CharacterBinding, world: BitrigWorld): void;
  /** Copy the bones flagged in `binding.drivenRotation` / `drivenTranslation` from `world.pose` onto the engine. Per-frame. */
  copyOut(skeleton: T, binding: CharacterBinding, world: BitrigWorld): void;
  /** Advance the engine's animation by dt when the animator owns it (no-op otherwise). */
  advanceMixer?(dt: number): void;
  /**
   * Per-bone flags (1 = the engine's playing animation targets this bone), kept up to date by
   * the adapter (no allocation while the playing clips stay the same), or null when unknown.
   * Drives the `'auto'` rest source; without it bitrig compares the bones with what it wrote.
   */
  animatedBones?(skeleton: T): Uint8Array | null;
  /**
   * True while the engine plays a clip that bitrig's bake wrote (its tail keys already hold the
   * follow-through): the animator then shows the clip's tail as it is instead of simulating on
   * top of it. Per-frame; no allocation.
   */
  playingBaked?(skeleton: T): boolean;
  /** Called once by `dispose` after bitrig's state is released (e.g. remove engine observers). */
  onDispose?(): void;
  /** Each bone's glTF node index of a skeleton (its source order; −1: none), or null to match the `vrm` JSON's nodes by name. Setup-time. */
  vrmNodes?(skeleton: T): ArrayLike<number> | null;
  /** The skin of a skeleton's meshes for sole calibration (scene IK), or null. Setup-time. */
  sceneSkin?(skeleton: T): SkinInput | null;
  /**
   * Map one frame's scene inputs from the engine's world into bitrig's (default: as given).
   * Per-frame: must not allocate (reuse buffers).
   */
  mapSceneInputs?(inputs: SceneInputs): SceneInputs;
  /** Map scene diagnostics from bitrig's world into the engine's, in place (default: none). */
  mapSceneDiagnostics?(d: SceneDiagnostics): void;
}

/** The adapter-independent part of an animator (an adapter's `Animator` extends it). */
export interface AnimatorBase {
  /** The world it lives in. */
  readonly world: BitrigWorld;
  /** Engine-free bindings (one per bound skeleton). */
  readonly bindings: readonly CharacterBinding[];
  /**
   * Advance one frame of `dt` **seconds** (a frame at 60 Hz is 1/60, not 16): engine animation
   * (if owned), read, scene inputs (if given), bitrig systems, write. A dt over 1 s three frames
   * in a row is reported in `diagnostics().problems` (milliseconds by mistake? one long frame is
   * normal); dt ≤ 0 or not finite simulates nothing.
   */
  update(dt: number, inputs?: SceneInputs): void;
  /** Scene IK handle (legs, arms in input order), or null when `sceneIK` is off. */
  readonly sceneIK: SceneIKHandle | null;
  /** The tail colliders it added (automatic, or the `vrm` file's; empty when `colliders` is off); `dispose` removes those still there. */
  readonly colliders: readonly number[];
  /** Set this frame's scene inputs (stance weights, hand targets, ground, grounded); for shared worlds call before `updateAnimators`. */
  setSceneInputs(inputs: SceneInputs): void;
  /** Advance the engine animation by dt when this animator owns it (no-op otherwise). */
  advanceMixer(dt: number): void;
  /**
   * Put back onto the engine, on the bones bitrig drives, the pose the engine's animation gave
   * at the last read (e.g. to show the plain animation). Not needed around your own mixer
   * update: a driven bone the engine leaves exactly as bitrig wrote it (a held key, or a bone
   * no clip animates) is read as last frame's animation, whoever advances the animation.
   */
  restoreAnimatedPose(): void;
  /** Copy the engine pose into the pose store (for shared worlds; see `updateAnimators`). */
  read(): void;
  /** Copy bitrig's results onto the bones it drives. */
  write(): void;
  /** Turn tail physics on or off (off shows the carried rest pose). Throws `<module>: …` when `on` is not a boolean. */
  setTailPhysics(on: boolean): void;
  /** Change tail options of every chain (or one, by first bone name). */
  setTailOptions(options: PartialOptions<TailOptions>, chain?: string): void;
  /**
   * Forget the motion history, for an exact replay or a cut: tails re-seat at rest on the next
   * frame, foot locks are released, the pelvis smoothing and grounded fade restart, and a
   * private world's fixed-step clock restarts (a shared world's clock is the caller's:
   * `world.tailClock.accumulator = 0`). Setting the engine's animation time is the caller's.
   */
  reset(): void;
  /** Diagnostics for overlays and tests (`scene`: contacts, COM, reach, pelvis band when scene IK is on). */
  diagnostics(): AnimatorDiagnostics & { scene?: SceneDiagnostics };
  /** Release bitrig's state (pose slots, entities, scene IK). Engine objects are untouched. Safe to call twice. */
  dispose(): void;
  /** False after `dispose`. */
  readonly alive: boolean;
}

/**
 * Bind an adapter's skeletons and build the animator body: merged options, unit scale,
 * one binding per skeleton (all released again if one fails), scene IK on the first (largest)
 * skeleton when asked, and the per-frame methods in the fixed order advanceMixer → read
 * (copyIn, prepareCharacterFrame) → scene inputs → pipeline → write (copyOut). Throws
 * `<module>: …` / `bitrig/bind: …` / `bitrig/tail: …` / `bitrig/sceneIK: …` on bad setup.
 *
 * @example
 * const base = createAnimatorBase({ module: 'bitrig/myengine', skeletons, copyIn, copyOut }, options);
 * base.update(dt);
 */
export function createAnimatorBase<T extends AdapterSkeleton>(spec: AnimatorBaseSpec<T>, options: AnimatorBaseOptions = {}): AnimatorBase {
  const { module, skeletons, copyIn, copyOut } = spec;
  const o = withDefaultsStrict(ANIMATOR_BASE_DEFAULTS as AnimatorBaseOptions & { unitScale: number | 'auto'; tailPhysics: boolean; colliders: boolean }, options, module,
    [...ANIMATOR_BASE_OPTION_KEYS, ...(spec.optionKeys ?? [])], { tail: TAIL_OPTION_KEYS, sceneIK: SCENE_IK_OPTION_KEYS });
  if (skeletons.length === 0) throw new Error(`${module}: no skeleton to bind`);
  if (o.world !== undefined && !isBitrigWorld(o.world)) {
    throw new Error(`${module}: options.world must be a world bitrig is attached to (attachBitrig(world), or createBitrigWorld()), got ${typeof o.world === 'object' && o.world !== null ? 'a world bitrig is not attached to' : describeValue(o.world)}`);
  }
  if (o.tail !== undefined && (typeof o.tail !== 'object' || o.tail === null || Array.isArray(o.tail))) {
    throw new Error(`${module}: options.tail must be an object of tail options, got ${describeValue(o.tail)}`);
  }
  if (typeof o.tailPhysics !== 'boolean') throw new Error(`${module}: options.tailPhysics must be true or false, got ${describeValue(o.tailPhysics)}`);
  if (typeof o.colliders !== 'boolean') throw new Error(`${module}: options.colliders must be true or false, got ${describeValue(o.colliders)}`);
  if (o.vrm !== undefined && (typeof o.vrm !== 'object' || o.vrm === null || Array.isArray(o.vrm))) throw new Error(`${module}: options.vrm must be the glTF JSON of a VRM file (an object), got ${describeValue(o.vrm)}`);
  if (o.sceneIK !== undefined && typeof o.sceneIK !== 'boolean' && !(typeof o.sceneIK === 'object' && o.sceneIK !== null && !Array.isArray(o.sceneIK))) {
    throw new Error(`${module}: options.sceneIK must be true, false or an object of scene IK options, got ${describeValue(o.sceneIK)}`);
  }
  if (o.tails !== undefined && (typeof o.tails !== 'object' || o.tails === null)) throw new Error(`${module}: options.tails must be an object keyed by each chain's first bone name`);
  for (const [chain, per] of Object.entries(o.tails ?? {})) {
    if (per === undefined || per === null) continue; // (no override for that chain)
    try {
      mergeChainOptions(chain, per, TAIL_DEFAULTS);
    } catch (e) {
      throw new Error(`${module}: options.${(e as Error).message.replace(/^bitrig\/tail: /, '')}`);
    }
  }
  const ownWorld = !o.world;
  const world = o.world ?? createBitrigWorld();
  const unitScale = resolveUnitScale(o.unitScale, () => {
    const ys: number[] = [];
    for (const s of skeletons) { const y = s.boneWorldYs(); for (let i = 0; i < y.length; i++) ys.push(y[i]!); }
    return ys;
  }, module);
  // (a field given as undefined keeps the animator's value, as everywhere: not spread over it)
  const bindOpts: BindOptions = { tail: withDefaults({ unitScale } as Partial<TailOptions>, o.tail ?? {}), tails: o.tails as BindOptions['tails'], tailChains: o.tailChains, pelvis: o.pelvis };
  const bindings: CharacterBinding[] = [];
  let sceneIK: SceneIKHandle | null = null;
  const colliders: number[] = [];
  try {
    for (const s of skeletons) bindings.push(bindSkeleton(world, s.source, bindOpts));
    // This animator keeps its bindings' shown poses (write() ends their frames): until its first
    // write, what bitrig showed is the pose the bones were loaded in (as at bind), however many
    // frames a shared world runs before this animator first updates.
    for (const b of bindings) b.shownCaptured = true;
    if (o.sceneIK) {
      const skin = spec.sceneSkin ? spec.sceneSkin(skeletons[0]!) : null;
      sceneIK = addSceneIK(world, bindings[0]!, withDefaults({ unitScale, skin } as Partial<SceneIKOptions>, o.sceneIK === true ? {} : o.sceneIK));
    }
    addAnimatorColliders({
      world, bindings, names: skeletons.map((s) => s.source.names), enabled: o.colliders, vrm: o.vrm, tail: o.tail, tails: o.tails,
      nodesOf: (i) => (spec.vrmNodes ? spec.vrmNodes(skeletons[i]!) : null),
      skinOf: (i) => (spec.sceneSkin ? spec.sceneSkin(skeletons[i]!) : null),
    }, colliders);
    // A per-chain option for a chain that does not exist is a typo, not a no-op.
    const chainNames = chainFirstBones(bindings, skeletons.map((s) => s.source.names));
    for (const key of Object.keys(o.tails ?? {})) {
      if (!chainNames.includes(key)) throw new Error(`${module}: options.tails["${key}"] names no tail chain (chains, by first bone: ${chainNames.length ? chainNames.join(', ') : 'none'})`);
    }
    // Nothing to drive is allowed (a game may create animators for every character) but said.
    if (chainNames.length === 0 && !sceneIK) {
      bindings[0]!.problems.push('no tail chain found (bones named Tail_1…, Tail1…, b_Tail01…), and scene IK is off: this animator drives no bone. '
        + 'A tail an auto-rigger gave to other bones needs bones first: `npx bitrig rig model.glb -o rigged.glb`; feet and hands: `{ sceneIK: true }`');
    }
  } catch (e) {
    for (const c of colliders) removeTailCollider(world, c);
    if (sceneIK) removeSceneIK(world, sceneIK);
    for (const b of bindings) unbindSkeleton(b);
    throw e;
  }
  const mapInputs = spec.mapSceneInputs;
  const names = skeletons.map((s) => s.source.names);
  animatorsOn.set(world, (animatorsOn.get(world) ?? 0) + 1);
  // Frames in a row given a dt over 1 s (diagnostics: a dt in milliseconds; one long frame, a
  // hitch or a tab switch, is normal) and the last such dt.
  let longFrames = 0, lastDt = 0;
  // The animated pose of every driven bone at the last read, and what bitrig wrote onto it at
  // the last write, per binding: rotations (4) and translations (3) per bone. A driven bone the
  // engine left exactly as bitrig wrote it was not animated this frame (three's mixer skips a
  // held key; a game may animate only some bones): its animation is still the one last read.
  // Deciding this at read time works whoever advances the engine's animation, and when.
  const readR = bindings.map((b) => new Float64Array(b.boneCount * 4));
  const readT = bindings.map((b) => new Float64Array(b.boneCount * 3));
  // (the rotations written are the bindings' shown poses, CharacterBinding.shownR)
  const writtenT = bindings.map((b) => new Float64Array(b.boneCount * 3));
  const keep = bindings.map((b) => new Uint8Array(b.boneCount)); // bones not to restore
  let wrote = false;
  let physics = o.tailPhysics;
  const baked = new Uint8Array(bindings.length); // per binding: a baked clip plays (no simulation this frame)
  let alive = true;
  const advance = spec.advanceMixer;
  // A binding whose pose slots were released under the animator (poseRemoveCharacter instead of
  // dispose()): the slots may hold another character now, so its bones are neither read nor
  // written any more (the world's systems already stopped on it). Said once in its problems.
  // (dispose() still releases its entities: unbindSkeleton leaves the slots' new holder alone)
  const released = new Uint8Array(bindings.length);
  const owns = (b: CharacterBinding, i: number): boolean => {
    if (world.pose.charSerial[b.charId] === b.charSerial) return true;
    if (released[i] === 0) {
      released[i] = 1;
      b.problems.push(`${module}: this character's pose slots were released (poseRemoveCharacter) under its animator: its bones are left as they are; dispose() the animator`);
    }
    return false;
  };

  const base: AnimatorBase = {
    world,
    bindings,
    sceneIK,
    colliders,
    get alive() { return alive; },
    setSceneInputs(inputs: SceneInputs) {
      if (alive && sceneIK && inputs) setSceneInputs(world, sceneIK, mapInputs ? mapInputs(inputs) : inputs);
    },
    restoreAnimatedPose() {
      if (!alive || !wrote) return;
      const pose = world.pose;
      const C = world.components.TailChain;
      for (let i = 0; i < bindings.length; i++) {
        const b = bindings[i]!;
        if (!owns(b, i)) continue;
        const r = readR[i]!, t = readT[i]!, skip = keep[i]!;
        // A chain on its bind rest ignores the engine's tail pose: leave bitrig's rotations
        // there, so that an engine that does not animate the tail keeps showing them.
        skip.fill(0);
        for (let c = 0; c < b.tails.length; c++) {
          const tail = b.tails[c]!;
          if (C.restSource[tail.eid] !== REST_ANIMATION) for (let j = 0; j < tail.bones.length; j++) skip[tail.bones[j]!] = 1;
        }
        for (let j = 0; j < b.boneCount; j++) {
          const k = b.slotOf[j]!;
          if (b.drivenRotation[j] === 1) for (let c = 0; c < 4; c++) pose.localR[k * 4 + c] = skip[j] === 1 ? pose.localR[k * 4 + c]! : r[j * 4 + c]!;
          if (b.drivenTranslation[j] === 1) for (let c = 0; c < 3; c++) pose.localT[k * 3 + c] = t[j * 3 + c]!;
        }
        copyOut(skeletons[i]!, b, world);
      }
      wrote = false;
    },
    advanceMixer(dt: number) {
      if (!alive) return;
      // (updateAnimators comes through here too)
      if (typeof dt === 'number' && dt > 1 && dt < Infinity) { longFrames++; lastDt = dt; } else longFrames = 0;
      if (advance) advance(dt);
    },
    read() {
      if (!alive) return;
      const pose = world.pose;
      const L = pose.localR, T = pose.localT;
      for (let i = 0; i < bindings.length; i++) {
        const b = bindings[i]!;
        if (!owns(b, i)) continue;
        copyIn(skeletons[i]!, b, world);
        const flags = spec.animatedBones ? spec.animatedBones(skeletons[i]!) : null;
        resolveAutoRestSources(b, flags); // (on the engine's values as they are)
        const r = readR[i]!, t = readT[i]!, wr = b.shownR, wt = writtenT[i]!;
        for (let j = 0; j < b.boneCount; j++) {
          const k = b.slotOf[j]!;
          if (b.drivenRotation[j] === 1) {
            const k4 = k * 4, j4 = j * 4;
            if (wrote && L[k4] === wr[j4] && L[k4 + 1] === wr[j4 + 1] && L[k4 + 2] === wr[j4 + 2] && L[k4 + 3] === wr[j4 + 3]) {
              for (let c = 0; c < 4; c++) L[k4 + c] = r[j4 + c]!;
            } else for (let c = 0; c < 4; c++) r[j4 + c] = L[k4 + c]!;
          }
          if (b.drivenTranslation[j] === 1) {
            const k3 = k * 3, j3 = j * 3;
            if (wrote && T[k3] === wt[j3] && T[k3 + 1] === wt[j3 + 1] && T[k3 + 2] === wt[j3 + 2]) {
              for (let c = 0; c < 3; c++) T[k3 + c] = t[j3 + c]!;
            } else for (let c = 0; c < 3; c++) t[j3 + c] = T[k3 + c]!;
          }
        }
        const nowBaked = spec.playingBaked ? spec.playingBaked(skeletons[i]!) : false;
        if (baked[i] === 1 && !nowBaked) reseatTailsAtPose(b, wr); // back to simulating, from the baked pose shown last frame (no snap to rest)
        baked[i] = nowBaked ? 1 : 0;
        prepareCharacterFrame(b, physics && !nowBaked, flags, true);
      }
    },
    write() {
      if (!alive) return;
      const pose = world.pose;
      for (let i = 0; i < bindings.length; i++) {
        const b = bindings[i]!;
        if (!owns(b, i)) continue;
        // Tail physics off: the systems still ran on the world (it may be shared); the bones
        // show the carried rest pose.
        if (baked[i] === 1) {
          // A baked clip plays: its tail keys go out as the engine gave them (not the rest pose:
          // a finished one-shot that holds its last frame, with 'auto' back on 'bind', too).
          const r = readR[i]!, L = pose.localR;
          for (let ti = 0; ti < b.tails.length; ti++) {
            const bones = b.tails[ti]!.bones;
            for (let bi = 0; bi < bones.length; bi++) { const j = bones[bi]!, k = b.slotOf[j]! * 4; for (let c = 0; c < 4; c++) L[k + c] = r[j * 4 + c]!; }
          }
        } else if (!physics) writeTailRest(b);
        copyOut(skeletons[i]!, b, world);
        endCharacterFrame(b); // (the driven rotations as written: b.shownR)
        const wt = writtenT[i]!;
        for (let j = 0; j < b.boneCount; j++) {
          const k = b.slotOf[j]!;
          if (b.drivenTranslation[j] === 1) for (let c = 0; c < 3; c++) wt[j * 3 + c] = pose.localT[k * 3 + c]!;
        }
      }
      wrote = true;
    },
    update(dt: number, inputs?: SceneInputs) {
      if (!alive) return;
      // (a world other animators also live in is stepped once per frame for all of them)
      if (!ownWorld && animatorsOn.get(world)! > 1) throw new Error(`${module}: this animator shares its world with others; call updateAnimators(animators, dt) instead`);
      base.advanceMixer(dt);
      base.read();
      if (inputs) base.setSceneInputs(inputs);
      runPipeline(world, dt);
      base.write();
    },
    setTailPhysics(on: boolean) {
      // ('no', 0 or 'false' would have turned physics on: a truthy value is not a yes)
      if (typeof on !== 'boolean') throw new Error(`${module}: setTailPhysics(on) needs true or false, got ${describeValue(on)}`);
      physics = on;
      for (const b of bindings) reseatTails(b); // re-seat at rest when turned back on
    },
    setTailOptions(opts: PartialOptions<TailOptions>, chain?: string) {
      if (chain !== undefined) {
        const chainNames = chainFirstBones(bindings, names);
        if (!chainNames.includes(chain)) throw new Error(`${module}: setTailOptions: no tail chain starts at "${chain}" (chains: ${chainNames.length ? chainNames.join(', ') : 'none'})`);
      }
      for (let i = 0; i < bindings.length; i++) setBindingTailOptions(bindings[i]!, names[i]!, opts, chain);
    },
    reset() {
      if (!alive) return;
      for (const b of bindings) reseatTails(b);
      baked.fill(0); // (at rest, as documented: not along a baked clip's last pose next read)
      if (ownWorld) world.tailClock.accumulator = 0;
      if (sceneIK) {
        world.components.SceneCharacter.initialised[sceneIK.eid] = 0;
        for (const leg of sceneIK.legs) world.components.FootContact.locked[leg.eid] = 0;
      }
    },
    diagnostics() {
      const tails: TailDiagnostics[] = [];
      const problems: string[] = [];
      // (after dispose the ids may belong to other characters: report nothing)
      if (!alive) return { unitScale, tails, problems: ['disposed'] };
      for (let i = 0; i < bindings.length; i++) {
        problems.push(...bindings[i]!.problems);
        tails.push(...tailDiagnostics(bindings[i]!, names[i]!));
      }
      if (longFrames >= 3) {
        problems.push(`update(dt) was given dt over 1 s ${longFrames} frames in a row (last ${lastDt} s): dt is in seconds (milliseconds? divide by 1000); the tail runs at most ${world.tailClock.maxStepsPerFrame} steps a frame`);
      }
      if (!sceneIK) return { unitScale, tails, problems };
      const scene = sceneDiagnostics(world, sceneIK);
      spec.mapSceneDiagnostics?.(scene);
      return { unitScale, tails, problems, scene };
    },
    dispose() {
      if (!alive) return;
      alive = false;
      animatorsOn.set(world, animatorsOn.get(world)! - 1);
      for (const c of colliders) if (isTailCollider(world, c)) removeTailCollider(world, c); // (the game may have removed some)
      if (sceneIK) removeSceneIK(world, sceneIK);
      for (const b of bindings) unbindSkeleton(b);
      spec.onDispose?.();
    },
  };
  return base;
}
