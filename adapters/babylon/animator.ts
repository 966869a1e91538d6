/**
 * Babylon.js adapter: binds Babylon `Skeleton`s into a bitrig world, copies the animated pose
 * in after Babylon's animation groups evaluated, runs the pipeline and copies the corrected
 * bones out. It only copies between Babylon bones and the pose store; every decision lives in
 * core (`core/animatorBase.ts`, shared with the three.js adapter) and systems.
 *
 * Bones linked to TransformNodes (glTF files loaded by `@babylonjs/loaders`: the animation
 * groups animate the nodes, `Skeleton.prepare()` copies them into the bones at render) are
 * read from and written to their nodes; other bones directly.
 *
 * Handedness: Babylon's default world is left-handed, and the glTF loader puts a `__root__`
 * node above each file (180° about Y, scale z −1 — a mirror, determinant −1) so the
 * right-handed file shows the right way round. bitrig's core works in a right-handed world
 * with proper (unmirrored) frames, like three.js. So when a skeleton's root frame (the world
 * matrix of the node above its root bone) is mirrored, the adapter gives core that frame with
 * world x negated — `rootWs = diag(−1, 1, 1) · W` — which is exactly the frame three.js sees
 * for the same file: the pose store then holds three.js's world, and Babylon world = pose
 * store world with x negated. Heights (y: floor, gravity) are the same in both. Bone locals
 * are copied unchanged. `Animator.mirrorX` tells which skeletons are mapped this way.
 * Scene-IK inputs (hand targets, poles, the ground query) are given in Babylon's world and
 * mapped; `diagnostics().scene` is mapped back. Support frames are world-level: pass them
 * through {@link mirrorMatrixX} for a mirrored character. A mirrored world rotation follows
 * core's convention: the reflection sits on the frame's local x axis.
 *
 * When to run: after the animation groups evaluated and before the skeleton is prepared for
 * rendering — i.e. from `scene.onAfterAnimationsObservable` (what `autoUpdate: true` does) or
 * `scene.onBeforeRenderObservable`. Only bones bitrig drives are written (tail links; limb
 * bones and the pelvis when scene IK is on); every other bone keeps exactly what Babylon's
 * animation produced.
 *
 * Baked clips: while a started animation group (playing or paused, any weight) that targets a
 * bound skeleton carries the mark `bitrig bake` writes (the glTF animation's
 * `extras.bitrigBaked`, which the loader puts on the group as `metadata.gltf.extras`), that
 * skeleton's tails show the clip's keys as they are instead of simulating on top of them; once
 * no such group plays, the tails re-seat at rest and are simulated again.
 */
import { describeValue } from '../../core/defaults';
import type { AnimationGroup, Bone, Node, Observer, Quaternion, Scene, Skeleton, TransformNode, Vector3 } from '@babylonjs/core';
import type { BitrigWorld } from '../../core/world';
import type { CharacterBinding, SkeletonSource } from '../../core/binding';
import type { AnimatorDiagnostics, TailDiagnostics } from '../animatorCore';
import type { SceneInputs } from '../../core/sceneIK';
import { updateAnimatorGroup } from '../animatorCore';
import { createMirrorXInputs, mirrorSceneDiagnosticsX } from './handedness';
import { sceneSkinFromBabylon } from './sceneSkin';
import {
  ANIMATOR_BASE_DEFAULTS, createAnimatorBase, distinctSkeletons,
  type AdapterSkeleton, type AnimatorBase, type AnimatorBaseOptions,
} from '../animatorBase';

export type { AnimatorDiagnostics, TailDiagnostics };

const MODULE = 'bitrig/babylon';

/**
 * Options of {@link createAnimator}: the three.js adapter's options (same names and
 * defaults) except `mixer`/`updateMixer` — Babylon's scene owns the animation clock, there is
 * no mixer object to wrap — plus `autoUpdate`.
 */
export interface AnimatorOptions extends AnimatorBaseOptions {
  /**
   * Run `update(scene.deltaTime / 1000)` from `scene.onAfterAnimationsObservable` every time
   * Babylon evaluated the animations (once per frame, or once per lock step). Needs a private
   * world (for a shared world, call {@link updateAnimators} from that observer). Default false.
   */
  autoUpdate?: boolean | undefined;
}

/** Defaults of {@link AnimatorOptions}. */
export const ANIMATOR_DEFAULTS = Object.freeze({ ...ANIMATOR_BASE_DEFAULTS, autoUpdate: false });

/** A bound Babylon character. */
export interface Animator extends AnimatorBase {
  /** The scene the skeletons live in. */
  readonly scene: Scene;
  /** The bound skeletons. */
  readonly skeletons: readonly Skeleton[];
  /**
   * Per bound skeleton: its root frame was mirrored at setup (the glTF loader's `__root__` in
   * a left-handed scene), so bitrig works in that world with x negated (three.js's world for
   * the same file). World-space values bitrig reports or takes for such a skeleton map to
   * Babylon's world by negating x.
   */
  readonly mirrorX: readonly boolean[];
  /**
   * No-op: Babylon's scene advances the animation groups (`scene.render()` / `scene.animate()`);
   * kept so Babylon and three.js animators mix in {@link updateAnimators}.
   */
  advanceMixer(dt: number): void;
}

/** What is read and written per bone: its linked TransformNode, or the bone itself. */
interface PoseTarget {
  position: Vector3;
  rotationQuaternion: Quaternion | null;
  rotation: Vector3;
  scaling: Vector3;
}

interface BabylonSkeleton extends AdapterSkeleton {
  skeleton: Skeleton;
  /** The bound bones (see {@link boundBones}), source order. */
  bones: Bone[];
  targets: PoseTarget[];
  /** True when the target is a TransformNode (false: an unlinked Bone). */
  isNode: boolean[];
  /** Adapter-owned rotation / translation objects assigned to driven targets (never Babylon's animation values). */
  ownR: Quaternion[];
  ownT: Vector3[];
  /** Node whose world matrix is the root frame, or null (identity). */
  frame: Node | null;
  /** The root frame was mirrored at setup: core gets it with world x negated. */
  mirrorX: boolean;
}

/** Skeletons a live animator drives (released by its `dispose`, however it is reached). */
const boundSkeletons = new WeakSet<Skeleton>();

/**
 * Refuse a `createAnimator` target that is neither a Skeleton nor a Node, with what it looks
 * like: the loader's result (pass `result.meshes[0]`), a three.js object, anything else.
 */
function checkTarget(target: unknown): void {
  if (isSkeleton(target)) return;
  const t = target as Record<string, unknown> | null;
  if (t && typeof t === 'object' && typeof t.getChildMeshes === 'function') return;
  const need = `${MODULE}: createAnimator needs a Skeleton or a Node (e.g. result.meshes[0]), got`;
  if (t && typeof t === 'object' && Array.isArray(t.meshes) && (Array.isArray(t.skeletons) || Array.isArray(t.animationGroups))) {
    throw new Error(`${need} the loader's result (ImportMeshAsync / LoadAssetContainerAsync): pass result.meshes[0] (the file's root node), a mesh of result.meshes, or one of result.skeletons`);
  }
  if (Array.isArray(target)) {
    throw new Error(`${need} an array of ${target.length}: pass one of them (e.g. result.meshes[0], the file's root node), once per character`);
  }
  if (t && typeof t === 'object' && (t.isObject3D === true || typeof t.traverse === 'function')) {
    throw new Error(`${need} a three.js object: use createAnimator from 'bitrig/three' for three.js`);
  }
  throw new Error(`${need} ${describeValue(target)}`);
}

function isSkeleton(x: unknown): x is Skeleton {
  return !!x && typeof x === 'object' && Array.isArray((x as Skeleton).bones) && typeof (x as Skeleton).prepare === 'function';
}

function targetOf(bone: Bone): PoseTarget {
  return (bone.getTransformNode() ?? bone) as unknown as PoseTarget;
}

const _qE = new Float64Array(4);

/** Babylon's Euler convention (yaw Y, pitch X, roll Z) → quaternion into `_qE`. No allocation. */
function quatFromBabylonEuler(e: Vector3): Float64Array {
  const hr = e.z * 0.5, hp = e.x * 0.5, hy = e.y * 0.5;
  const sr = Math.sin(hr), cr = Math.cos(hr), sp = Math.sin(hp), cp = Math.cos(hp), sy = Math.sin(hy), cy = Math.cos(hy);
  _qE[0] = cy * sp * cr + sy * cp * sr;
  _qE[1] = sy * cp * cr - cy * sp * sr;
  _qE[2] = cy * cp * sr - sy * sp * cr;
  _qE[3] = cy * cp * cr + sy * sp * sr;
  return _qE;
}

/** Determinant of the 3×3 part of a column-major 4×4. */
function det3(m: ArrayLike<number>): number {
  return m[0]! * (m[5]! * m[10]! - m[6]! * m[9]!) - m[4]! * (m[1]! * m[10]! - m[2]! * m[9]!) + m[8]! * (m[1]! * m[6]! - m[2]! * m[5]!);
}

/** Recompute a node's world matrix and its ancestors' (the game may have moved any of them this frame). */
function forceWorld(node: Node): void {
  const p = node.parent;
  if (p) forceWorld(p);
  node.computeWorldMatrix(true);
}

/**
 * The bones bitrig binds, in `skeleton.bones` order: every bone except the glTF loader's
 * non-joint bones above all joints (`getIndex() === -1` with no joint ancestor, e.g. an
 * `Armature` node used as the skin's skeleton root) — those belong to the root frame, as in
 * three.js, where only joints are bones. Setup-time.
 */
function boundBones(skeleton: Skeleton): Bone[] {
  const top = new Set<Bone>();
  for (const b of skeleton.bones) {
    if (b.getIndex() !== -1) continue;
    let joint = false;
    for (let p = b.getParent(); p; p = p.getParent()) if (p.getIndex() !== -1) { joint = true; break; }
    if (!joint) top.add(b);
  }
  return skeleton.bones.filter((b) => !top.has(b));
}

/**
 * Read a Babylon skeleton as an engine-free {@link SkeletonSource}: the skin's joints (and
 * any non-joint bone between joints) in `skeleton.bones` order, parents from `getParent()`,
 * absolute inverse bind matrices (null for non-joint bones), and each bone's current local
 * TRS (its linked TransformNode's, or its own) as the node rest. Non-joint bones the glTF
 * loader adds above all joints are left out (they are part of the root frame).
 *
 * @example
 * const src = skeletonSourceFromBabylon(container.skeletons[0]);
 */
export function skeletonSourceFromBabylon(skeleton: Skeleton): SkeletonSource {
  return sourceOf(boundBones(skeleton));
}

function sourceOf(bones: readonly Bone[]): SkeletonSource {
  const index = new Map<Bone, number>();
  bones.forEach((b, i) => index.set(b, i));
  const parents = bones.map((b) => {
    const p = b.getParent();
    return p && index.has(p) ? index.get(p)! : -1;
  });
  const inverseBind = bones.map((b) => (b.getIndex() === -1 ? null : Array.from(b.getAbsoluteInverseBindMatrix().m)));
  const rest = bones.map((b) => {
    const t = targetOf(b);
    const q = t.rotationQuaternion;
    const r = q ? [q.x, q.y, q.z, q.w] : Array.from(quatFromBabylonEuler(t.rotation));
    return { t: [t.position.x, t.position.y, t.position.z], r, s: [t.scaling.x, t.scaling.y, t.scaling.z] };
  });
  return { names: bones.map((b) => b.name), parents, inverseBind, rest };
}

/** Skeletons under a node (the node itself and its descendant meshes), or the one given. */
function collectSkeletons(target: Skeleton | Node): { skeletons: Skeleton[]; meshOf: Map<Skeleton, Node> } {
  const meshOf = new Map<Skeleton, Node>();
  if (isSkeleton(target)) return { skeletons: [target], meshOf };
  const node = target as Node & { skeleton?: Skeleton | null };
  const meshes: (Node & { skeleton?: Skeleton | null })[] = [];
  if ('skeleton' in node) meshes.push(node);
  meshes.push(...(node.getChildMeshes(false) as (Node & { skeleton?: Skeleton | null })[]));
  for (const m of meshes) if (m.skeleton && !meshOf.has(m.skeleton)) meshOf.set(m.skeleton, m);
  return { skeletons: distinctSkeletons(meshOf.keys(), (s) => s.bones), meshOf };
}

function prepareSkeleton(skeleton: Skeleton, mesh: Node | undefined): BabylonSkeleton {
  const bones = boundBones(skeleton);
  if (bones.length === 0) throw new Error(`${MODULE}: skeleton "${skeleton.name}" has no bones`);
  const source = sourceOf(bones);
  const targets = bones.map(targetOf);
  const isNode = bones.map((b) => b.getTransformNode() !== null);
  const ownR = targets.map((t) => (t.rotationQuaternion ? t.rotationQuaternion.clone() : t.rotation.toQuaternion()));
  const ownT = targets.map((t) => t.position.clone());
  const root = bones.findIndex((_, i) => source.parents[i] === -1);
  let frame: Node | null = null;
  if (isNode[root]) frame = bones[root]!.getTransformNode()!.parent;
  else frame = mesh ?? skeleton.getScene().meshes.find((m) => m.skeleton === skeleton) ?? null;
  const boneWorldYs = (): number[] => bones.map((b, i) => {
    if (isNode[i]) {
      const n = b.getTransformNode()!;
      forceWorld(n);
      return n.getWorldMatrix().m[13]!;
    }
    if (frame) forceWorld(frame);
    return b.getAbsolutePosition(frame as TransformNode | null ?? undefined).y;
  });
  let mirrorX = false;
  if (frame) {
    forceWorld(frame);
    mirrorX = det3(frame.getWorldMatrix().m) < 0;
  }
  return { skeleton, bones, source, boneWorldYs, targets, isNode, ownR, ownT, frame, mirrorX };
}

/**
 * Per-bone flags of what the scene's running animatables target (animation groups included),
 * recomputed only when the list of animatables changes.
 */
function sceneAnimatedBones(scene: Scene, s: BabylonSkeleton): () => Uint8Array {
  const flags = new Uint8Array(s.bones.length);
  const index = new Map<unknown, number>();
  s.targets.forEach((t, i) => index.set(t, i));
  s.bones.forEach((b, i) => index.set(b, i));
  const last: unknown[] = [];
  return () => {
    const list = scene.animatables;
    let same = list.length === last.length;
    for (let i = 0; same && i < list.length; i++) same = list[i] === last[i];
    if (same) return flags;
    flags.fill(0);
    last.length = 0;
    for (const a of list) {
      last.push(a);
      const j = index.get(a.target);
      if (j !== undefined) flags[j] = 1;
    }
    return flags;
  };
}

/**
 * Extras key bitrig's bake sets on a glTF animation whose tail keys it wrote (`BAKED_EXTRA` in
 * rig/bake.ts; not imported: the adapter does not load the rig tools).
 */
const BAKED_EXTRA = 'bitrigBaked';

/** Where `@babylonjs/loaders` (its `ExtrasAsMetadata` extension) puts a glTF animation's extras. */
interface GltfMetadata { gltf?: { extras?: Record<string, unknown> } }

/**
 * Is a clip bitrig baked playing on this skeleton? Among the scene's animation groups that are
 * started (playing or paused: a paused group still holds its keys, as a paused three.js action
 * does) with a weight above 0 and target a bone of this skeleton or its linked node: true when
 * one carries `metadata.gltf.extras.bitrigBaked === true` (the glTF animation's extras, put
 * there by the loader's `ExtrasAsMetadata` extension, which `@babylonjs/loaders/glTF`
 * registers). When no started group targets the skeleton and the last baked one was a
 * one-shot (not looping) that ended, it still counts: Babylon leaves its last frame on the
 * bones, as a three.js action clamped when finished (a stopped looping group does not). Per frame: one pass over `scene.animationGroups`; whether a group
 * targets the skeleton is cached per group (WeakMap) and checked again when its targeted
 * animations change (count or first target). No allocation in steady state.
 */
function scenePlaysBaked(scene: Scene, s: BabylonSkeleton): () => boolean {
  const mine = new Set<unknown>();
  for (const t of s.targets) mine.add(t);
  for (const b of s.bones) mine.add(b);
  const seen = new WeakMap<AnimationGroup, { n: number; first: unknown; hit: boolean }>();
  const targetsMine = (g: AnimationGroup): boolean => {
    const list = g.targetedAnimations;
    const n = list.length;
    const first = n > 0 ? list[0]!.target : null;
    let c = seen.get(g);
    if (c !== undefined && c.n === n && c.first === first) return c.hit;
    let hit = false;
    for (let i = 0; i < n; i++) if (mine.has(list[i]!.target)) { hit = true; break; }
    if (c === undefined) { c = { n, first, hit }; seen.set(g, c); } else { c.n = n; c.first = first; c.hit = hit; }
    return hit;
  };
  let last: AnimationGroup | null = null; // the baked group that counted last
  return () => {
    const groups = scene.animationGroups;
    let any = false;
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i]!;
      if (!g.isStarted) continue;
      const an = g.animatables;
      const w = an.length > 0 ? an[0]!.weight : g.weight; // (−1: not blended, full)
      if (w === 0) continue;
      if (!targetsMine(g)) continue;
      any = true;
      if ((g.metadata as GltfMetadata | null | undefined)?.gltf?.extras?.[BAKED_EXTRA] === true) { last = g; return true; }
    }
    if (any) last = null;
    // nothing plays here: a baked one-shot (not looping) that ended still holds its last frame
    return last !== null && !last.loopAnimation && !last.isStarted;
  };
}

function copyIn(s: BabylonSkeleton, binding: CharacterBinding, world: BitrigWorld): void {
  const pose = world.pose;
  const { targets } = s;
  const slotOf = binding.slotOf;
  const T = pose.localT, R = pose.localR, S = pose.localS;
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i]!;
    const k = slotOf[i]!;
    const p = t.position, sc = t.scaling;
    T[k * 3] = p.x; T[k * 3 + 1] = p.y; T[k * 3 + 2] = p.z;
    const q = t.rotationQuaternion;
    if (q) {
      R[k * 4] = q.x; R[k * 4 + 1] = q.y; R[k * 4 + 2] = q.z; R[k * 4 + 3] = q.w;
    } else {
      const e = quatFromBabylonEuler(t.rotation);
      R[k * 4] = e[0]!; R[k * 4 + 1] = e[1]!; R[k * 4 + 2] = e[2]!; R[k * 4 + 3] = e[3]!;
    }
    S[k * 3] = sc.x; S[k * 3 + 1] = sc.y; S[k * 3 + 2] = sc.z;
  }
  const r = binding.charId * 16;
  if (s.frame) {
    forceWorld(s.frame);
    const m = s.frame.getWorldMatrix().m;
    for (let j = 0; j < 16; j++) pose.charRootWs[r + j] = m[j]!;
    if (s.mirrorX) {
      // diag(−1, 1, 1) · W: negate the x row (column-major: elements 0, 4, 8, 12).
      pose.charRootWs[r] = -m[0]!; pose.charRootWs[r + 4] = -m[4]!; pose.charRootWs[r + 8] = -m[8]!; pose.charRootWs[r + 12] = -m[12]!;
    }
  } else {
    for (let j = 0; j < 16; j++) pose.charRootWs[r + j] = j % 5 === 0 ? 1 : 0;
  }
}

function copyOut(s: BabylonSkeleton, binding: CharacterBinding, world: BitrigWorld): void {
  const pose = world.pose;
  const { targets, ownR, ownT, isNode } = s;
  const slotOf = binding.slotOf;
  const dr = binding.drivenRotation, dt = binding.drivenTranslation;
  const T = pose.localT, R = pose.localR;
  for (let i = 0; i < targets.length; i++) {
    const k = slotOf[i]!;
    const t = targets[i]!;
    if (dr[i] === 1) {
      const q = ownR[i]!;
      q.set(R[k * 4]!, R[k * 4 + 1]!, R[k * 4 + 2]!, R[k * 4 + 3]!);
      // Assign the adapter's own object (never mutate the animation's current value); a
      // node posed by Euler angles keeps Euler angles so its Euler animation still applies.
      if (isNode[i] && !t.rotationQuaternion) q.toEulerAnglesToRef(t.rotation);
      else t.rotationQuaternion = q;
    }
    if (dt[i] === 1) {
      const v = ownT[i]!;
      v.set(T[k * 3]!, T[k * 3 + 1]!, T[k * 3 + 2]!);
      t.position = v;
    }
  }
}

/**
 * Bind a Babylon character and return an animator. `target` is a `Skeleton`, or a node
 * (e.g. the loader's `__root__`, a mesh) whose own and descendant meshes' skeletons are
 * bound. Tail chains are found by name (`Tail_1…`, `Tail1…`, `b_Tail01…`) with no extra code.
 * Disposing a bound skeleton (`skeleton.dispose()`, which removes it from the scene) or the
 * scene releases bitrig's state; an AssetContainer's `removeAllFromScene()` only pauses it
 * (`autoUpdate`) until `addAllToScene()` brings the character back. A clip `bitrig bake` wrote
 * (`group.metadata.gltf.extras.bitrigBaked`) plays as it is: its tail keys are shown, not
 * simulated again. Throws `bitrig/babylon: …` when there is nothing to bind.
 *
 * @example
 * const container = await LoadAssetContainerAsync(url, scene);
 * container.addAllToScene();
 * const animator = createAnimator(container.meshes[0], { autoUpdate: true });
 * container.animationGroups[0].play(true); // Babylon plays the clip; bitrig adds the tail
 */
export function createAnimator(target: Skeleton | Node, options: AnimatorOptions = {}): Animator {
  checkTarget(target);
  if (typeof options !== 'object' || options === null) throw new Error(`${MODULE}: options must be an object, got ${describeValue(options)}`);
  if (options.autoUpdate !== undefined && typeof options.autoUpdate !== 'boolean') throw new Error(`${MODULE}: options.autoUpdate must be true or false, got ${describeValue(options.autoUpdate)}`);
  const o = { ...ANIMATOR_DEFAULTS, ...options };
  const { skeletons, meshOf } = collectSkeletons(target);
  if (skeletons.length === 0) {
    const name = (target as Node).name ?? '';
    throw new Error(`${MODULE}: no mesh with a skeleton under "${name}" (createAnimator needs a skinned mesh, a node above one, or a Skeleton)`);
  }
  for (const s of skeletons) {
    // Two live animators on one skeleton would both simulate its tails and write its bones.
    if (boundSkeletons.has(s)) throw new Error(`${MODULE}: this skeleton is already driven by a live animator; dispose() that one first`);
  }
  if (o.autoUpdate && o.world) throw new Error(`${MODULE}: autoUpdate needs a private world; with a shared world call updateAnimators(animators, dt) from scene.onAfterAnimationsObservable`);
  const scene = skeletons[0]!.getScene();
  if (skeletons.some((s) => s.getScene() !== scene)) throw new Error(`${MODULE}: the skeletons to bind belong to different scenes`);
  const prepared = skeletons.map((s) => prepareSkeleton(s, meshOf.get(s)));

  const observers: { obs: Observer<unknown>; remove(defer: boolean): void }[] = [];
  const watch = <T>(observable: { add(cb: (x: T) => void): Observer<T> | null; remove(o: Observer<T>): boolean }, cb: (x: T) => void): void => {
    const obs = observable.add(cb);
    if (!obs) return;
    observers.push({
      obs: obs as unknown as Observer<unknown>,
      // Inside a notification, removal is deferred (Babylon's own rule, so no other
      // observer is skipped); otherwise immediate.
      remove(defer) {
        const o2 = obs as Observer<T> & { remove?: (defer?: boolean) => void };
        if (typeof o2.remove === 'function') o2.remove(defer);
        else observable.remove(obs);
      },
    });
  };
  let inNotification = false;

  // Scene IK runs on the first (largest) skeleton; its world is mapped when that skeleton's
  // root frame is mirrored.
  const mirrored = prepared[0]!.mirrorX;
  const animated = new Map(prepared.map((p) => [p, sceneAnimatedBones(scene, p)] as const));
  const baked = new Map(prepared.map((p) => [p, scenePlaysBaked(scene, p)] as const));
  const base = createAnimatorBase({
    module: MODULE,
    optionKeys: ['autoUpdate'],
    skeletons: prepared,
    copyIn,
    copyOut,
    sceneSkin: (s) => sceneSkinFromBabylon(s.skeleton, s.bones),
    animatedBones: (s) => animated.get(s)!(),
    playingBaked: (s) => baked.get(s)!(),
    mapSceneInputs: mirrored ? createMirrorXInputs() : undefined,
    mapSceneDiagnostics: mirrored ? mirrorSceneDiagnosticsX : undefined,
    onDispose() {
      for (const w of observers) w.remove(inNotification);
      observers.length = 0;
      for (const s of skeletons) boundSkeletons.delete(s);
    },
  }, o);
  // (a skeleton paused out of the scene by its container stays bound: its animator is alive)
  for (const s of skeletons) boundSkeletons.add(s);

  const disposeFromEvent = (): void => {
    inNotification = true;
    try { base.dispose(); } finally { inNotification = false; }
  };
  // A skeleton leaving the scene: disposed (skeleton.dispose()) frees the animator; taken out
  // by its AssetContainer (removeAllFromScene, pooling: the container keeps it) pauses it until
  // it is added back, then the tails re-seat. For a skeleton of a container this is decided
  // once the removal has finished (dispose() drops the container right after removing it).
  let detached = false;
  const inContainer = (s: Skeleton): boolean => !!(s as unknown as { _parentContainer?: unknown })._parentContainer;
  watch<Skeleton>(scene.onSkeletonRemovedObservable, (s) => {
    if (!skeletons.includes(s)) return;
    if (!inContainer(s)) { disposeFromEvent(); return; }
    queueMicrotask(() => {
      if (!base.alive || scene.skeletons.includes(s)) return;
      if (inContainer(s)) detached = true; else base.dispose();
    });
  });
  watch<Scene>(scene.onDisposeObservable, () => disposeFromEvent());
  // Out of the scene, a container that is then disposed (skeleton.dispose() fires no removal
  // any more) shows as a skeleton without its container: checked on each update while out.
  const disposedWhileOut = (): boolean => detached && skeletons.some((k) => !inContainer(k) && !scene.skeletons.includes(k));
  const baseUpdate = base.update, baseRead = base.read;
  base.update = (dt: number, inputs?: SceneInputs): void => {
    if (disposedWhileOut()) { base.dispose(); return; }
    baseUpdate(dt, inputs);
  };
  base.read = (): void => { // (updateAnimators: shared worlds)
    if (disposedWhileOut()) { base.dispose(); return; }
    baseRead();
  };
  if (o.autoUpdate) {
    watch<Scene>(scene.onAfterAnimationsObservable, () => {
      if (disposedWhileOut()) { disposeFromEvent(); return; }
      if (detached) {
        if (!skeletons.every((k) => scene.skeletons.includes(k))) return; // (still out of the scene)
        detached = false;
        base.reset(); // back in the scene: the tails re-seat (time went on without them)
      }
      baseUpdate(scene.deltaTime / 1000);
    });
  }

  const animator = base as Animator;
  Object.defineProperties(animator, {
    scene: { value: scene, enumerable: true },
    skeletons: { value: skeletons, enumerable: true },
    mirrorX: { value: prepared.map((p) => p.mirrorX), enumerable: true },
  });
  return animator;
}

/**
 * Advance many animators that share worlds: reads, one pipeline run per world, writes.
 * Babylon's scene has already advanced the animation groups; call it from
 * `scene.onAfterAnimationsObservable`. Babylon and three.js animators may be mixed; one
 * animator may be passed alone. Throws `bitrig/babylon: …` when given anything else.
 *
 * @example
 * const world = createBitrigWorld();
 * const crowd = foxes.map((f) => createAnimator(f, { world }));
 * scene.onAfterAnimationsObservable.add(() => updateAnimators(crowd, scene.deltaTime / 1000));
 */
export function updateAnimators(animators: readonly AnimatorBase[] | AnimatorBase, dt: number): void {
  updateAnimatorGroup(animators, dt, MODULE);
}
