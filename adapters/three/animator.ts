/**
 * Three.js adapter: binds the skeletons under an `Object3D` into a bitrig world, copies the
 * animated pose in after the mixer, runs the pipeline and copies the corrected bones out.
 * It only copies between `Bone`s and the pose store; every decision lives in core/systems.
 *
 * Per frame (inside {@link Animator.update}): mixer.update(dt) → read → bitrig update → write.
 * Only bones bitrig drives are written (tail links; limb bones and the pelvis when scene IK
 * is on); every other bone keeps exactly what the mixer produced.
 */
import { PropertyBinding, type AnimationClip, type AnimationMixer, type Bone, type Object3D, type Skeleton, type SkinnedMesh } from 'three';
import type { BitrigWorld } from '../../core/world';
import type { CharacterBinding, SkeletonSource } from '../../core/binding';
import { updateAnimatorGroup, type AnimatorDiagnostics, type TailDiagnostics } from '../animatorCore';
import {
  ANIMATOR_BASE_DEFAULTS, createAnimatorBase, distinctSkeletons,
  type AdapterSkeleton, type AnimatorBase, type AnimatorBaseOptions,
} from '../animatorBase';
import { sceneSkinFromThree } from './sceneSkin';
import { describeValue } from '../../core/defaults';

export type { AnimatorDiagnostics, TailDiagnostics };

/** Options of {@link createAnimator}: the options every adapter shares, plus the mixer to wrap. */
export interface AnimatorOptions extends AnimatorBaseOptions {
  /** An existing mixer to wrap: `update(dt)` calls `mixer.update(dt)` first (null or undefined: none). */
  mixer?: AnimationMixer | null | undefined;
  /** Call `mixer.update(dt)` inside `update` (default true when a mixer is given). */
  updateMixer?: boolean | undefined;
}

/** Defaults of {@link AnimatorOptions}. */
export const ANIMATOR_DEFAULTS = ANIMATOR_BASE_DEFAULTS;

/** A bound character. */
export interface Animator extends AnimatorBase {
  /** The mixer it wraps, if any. */
  readonly mixer: AnimationMixer | undefined;
}

interface ThreeSkeleton extends AdapterSkeleton {
  skeleton: Skeleton;
  /** The object the skeletons were found under (its meshes give the skin). */
  object: Object3D;
  /** Parent of the root bone: its world matrix is the root frame (null: identity). */
  rootParent: Object3D | null;
  /** What the wrapped mixer animates (null without a mixer). */
  animated: (() => Uint8Array | null) | null;
  /** Every bone's quaternion keeps its numbers in `_x…_w` with an `_onChangeCallback` (three's layout): copied field by field. */
  quatFields: boolean;
}

/**
 * three.js's Quaternion keeps its numbers in `_x`, `_y`, `_z`, `_w` behind accessors and
 * keeps its owner's Euler in step through `_onChangeCallback`. The per-frame copies use the
 * fields when every bone has them: through `q.x` or `q.set(…)`, each number crosses a call,
 * and a call V8 leaves un-inlined (its inlining budget depends on what else it compiled)
 * boxes every number it passes or returns, a few allocations a frame.
 */
interface QuaternionFields { _x: number; _y: number; _z: number; _w: number; _onChangeCallback(): void }

function hasQuaternionFields(q: unknown): boolean {
  const f = q as Partial<QuaternionFields>;
  return typeof f._x === 'number' && typeof f._y === 'number' && typeof f._z === 'number' && typeof f._w === 'number' && typeof f._onChangeCallback === 'function';
}

/**
 * The `vrm` option as the base takes it: the glTF JSON as given, or a GLTFLoader result's
 * `parser.json`, with each bone's node index from its `parser.associations` (null: by name).
 */
function vrmOption(vrm: unknown): { json: unknown; nodeOf: ((bone: Object3D) => number) | null } {
  const parser = typeof vrm === 'object' && vrm !== null ? (vrm as { parser?: { json?: unknown; associations?: unknown } }).parser : undefined;
  if (!parser || typeof parser.json !== 'object' || parser.json === null) return { json: vrm, nodeOf: null };
  const assoc = parser.associations instanceof Map ? (parser.associations as Map<Object3D, { nodes?: number }>) : null;
  return { json: parser.json, nodeOf: assoc ? (b) => assoc.get(b)?.nodes ?? -1 : null };
}

function collectSkeletons(object: Object3D): Skeleton[] {
  const seen: Skeleton[] = [];
  object.traverse((o) => {
    const m = o as SkinnedMesh;
    if (m.isSkinnedMesh && m.skeleton) seen.push(m.skeleton);
  });
  return distinctSkeletons(seen, (s) => s.bones);
}

/** Read a three.js skeleton as an engine-free {@link SkeletonSource}. */
export function skeletonSourceFromThree(skeleton: Skeleton): SkeletonSource {
  const bones = skeleton.bones;
  const index = new Map<Object3D, number>();
  bones.forEach((b, i) => index.set(b, i));
  const parents = bones.map((b) => (b.parent && index.has(b.parent) ? index.get(b.parent)! : -1));
  const inverseBind = bones.map((_, i) => (skeleton.boneInverses[i] ? Array.from(skeleton.boneInverses[i]!.elements) : null));
  const rest = bones.map((b) => ({
    t: [b.position.x, b.position.y, b.position.z],
    r: [b.quaternion.x, b.quaternion.y, b.quaternion.z, b.quaternion.w],
    s: [b.scale.x, b.scale.y, b.scale.z],
  }));
  return { names: bones.map((b) => b.name), parents, inverseBind, rest };
}

function prepareSkeleton(object: Object3D, skeleton: Skeleton, mixer: AnimationMixer | undefined): ThreeSkeleton {
  const source = skeletonSourceFromThree(skeleton);
  const root = skeleton.bones.find((_, i) => source.parents[i] === -1);
  const boneWorldYs = (): number[] => {
    object.updateWorldMatrix(true, true);
    return skeleton.bones.map((b) => b.getWorldPosition(b.position.clone()).y);
  };
  return {
    skeleton, object, source, boneWorldYs, rootParent: root?.parent ?? null, animated: mixer ? mixerAnimatedBones(mixer, skeleton) : null,
    quatFields: skeleton.bones.every((b) => hasQuaternionFields(b.quaternion)),
  };
}

function copyIn(s: ThreeSkeleton, binding: CharacterBinding, world: BitrigWorld): void {
  const pose = world.pose;
  const bones = s.skeleton.bones;
  const slotOf = binding.slotOf;
  const fields = s.quatFields;
  for (let i = 0; i < bones.length; i++) {
    const bone = bones[i]!;
    const k = slotOf[i]!;
    const p = bone.position, sc = bone.scale;
    pose.localT[k * 3] = p.x; pose.localT[k * 3 + 1] = p.y; pose.localT[k * 3 + 2] = p.z;
    if (fields) {
      const q = bone.quaternion as unknown as QuaternionFields;
      pose.localR[k * 4] = q._x; pose.localR[k * 4 + 1] = q._y; pose.localR[k * 4 + 2] = q._z; pose.localR[k * 4 + 3] = q._w;
    } else {
      const q = bone.quaternion;
      pose.localR[k * 4] = q.x; pose.localR[k * 4 + 1] = q.y; pose.localR[k * 4 + 2] = q.z; pose.localR[k * 4 + 3] = q.w;
    }
    pose.localS[k * 3] = sc.x; pose.localS[k * 3 + 1] = sc.y; pose.localS[k * 3 + 2] = sc.z;
  }
  const r = binding.charId * 16;
  if (s.rootParent) {
    s.rootParent.updateWorldMatrix(true, false);
    const e = s.rootParent.matrixWorld.elements;
    for (let j = 0; j < 16; j++) pose.charRootWs[r + j] = e[j]!;
  } else {
    for (let j = 0; j < 16; j++) pose.charRootWs[r + j] = j % 5 === 0 ? 1 : 0;
  }
}

function copyOut(s: ThreeSkeleton, binding: CharacterBinding, world: BitrigWorld): void {
  const pose = world.pose;
  const bones: Bone[] = s.skeleton.bones;
  const slotOf = binding.slotOf;
  const dr = binding.drivenRotation, dt = binding.drivenTranslation;
  const R = pose.localR, T = pose.localT;
  const fields = s.quatFields;
  for (let i = 0; i < bones.length; i++) {
    const k = slotOf[i]!;
    if (dr[i] === 1) {
      if (fields) {
        const q = bones[i]!.quaternion as unknown as QuaternionFields;
        q._x = R[k * 4]!; q._y = R[k * 4 + 1]!; q._z = R[k * 4 + 2]!; q._w = R[k * 4 + 3]!;
        q._onChangeCallback(); // (the bone's Euler follows, as with q.set)
      } else bones[i]!.quaternion.set(R[k * 4]!, R[k * 4 + 1]!, R[k * 4 + 2]!, R[k * 4 + 3]!);
    }
    if (dt[i] === 1) { const p = bones[i]!.position; p.x = T[k * 3]!; p.y = T[k * 3 + 1]!; p.z = T[k * 3 + 2]!; }
  }
}

/**
 * Does an enabled action of the mixer with a weight above 0 play a clip bitrig's bake wrote
 * (`userData.bitrigBaked`, from the glTF extras)? (A baked clip faded to 0 beside another clip
 * does not turn the simulation off; a clamped, finished one-shot stays enabled and counts.)
 */
function mixerPlaysBaked(mixer: AnimationMixer): boolean {
  const m = mixer as unknown as MixerInternals;
  const acts = m._actions, n = m._nActiveActions;
  if (!acts || typeof n !== 'number') return false;
  for (let i = 0; i < n; i++) {
    const a = acts[i]!;
    if (a.enabled !== false && a.getEffectiveWeight() > 0 && (a.getClip().userData as Record<string, unknown> | undefined)?.bitrigBaked === true) return true;
  }
  return false;
}

/** Skeletons a live animator drives. */
const boundSkeletons = new WeakSet<Skeleton>();

interface MixerInternals {
  _actions?: { getClip(): AnimationClip; enabled: boolean; getEffectiveWeight(): number }[];
  _nActiveActions?: number;
}

/**
 * Per-bone flags of what a mixer's active actions animate, recomputed only when the set of
 * contributing actions changes: active (`_actions` / `_nActiveActions`, stable across three
 * releases) and enabled (three keeps a faded-out or finished action in its active list until
 * it is stopped, disabled). Returns null when a three version lacks the list.
 */
function mixerAnimatedBones(mixer: AnimationMixer, skeleton: Skeleton): () => Uint8Array | null {
  const flags = new Uint8Array(skeleton.bones.length);
  const byName = new Map<string, number>();
  skeleton.bones.forEach((b, i) => { byName.set(b.name, i); byName.set(b.uuid, i); });
  const last: unknown[] = [];
  const lastOn: boolean[] = [];
  let lastN = -1;
  // An enabled action counts (also at weight 0 in a blend: a rest switch would re-seat the
  // tail each time a weight crosses 0); three disables one that faded out or finished.
  const contributes = (a: { enabled: boolean }): boolean => a.enabled !== false;
  return () => {
    const m = mixer as unknown as MixerInternals;
    const acts = m._actions, n = m._nActiveActions;
    if (!acts || typeof n !== 'number') return null;
    let same = n === lastN;
    for (let i = 0; same && i < n; i++) same = acts[i] === last[i] && contributes(acts[i]!) === lastOn[i];
    if (same) return flags;
    flags.fill(0);
    last.length = 0;
    lastOn.length = 0;
    for (let i = 0; i < n; i++) {
      const on = contributes(acts[i]!);
      last.push(acts[i]);
      lastOn.push(on);
      if (!on) continue;
      for (const track of acts[i]!.getClip().tracks) {
        const node = PropertyBinding.parseTrackName(track.name).nodeName;
        const j = byName.get(node);
        if (j !== undefined) flags[j] = 1;
      }
    }
    lastN = n;
    return flags;
  };
}

/**
 * Bind every skinned skeleton under `object` and return an animator. Tail chains are found
 * by name (`Tail_1…`, `Tail1…`, `b_Tail01…`) with no extra code. Throws `bitrig/three: …`
 * when there is nothing to bind.
 *
 * @example
 * const animator = createAnimator(gltf.scene, { mixer });
 * // every frame:
 * animator.update(clock.getDelta());
 */
export function createAnimator(object: Object3D, options: AnimatorOptions = {}): Animator {
  if (!object || typeof (object as { traverse?: unknown }).traverse !== 'function') {
    const o = object as unknown as Record<string, unknown> | null;
    const need = 'bitrig/three: createAnimator needs a three.js Object3D (e.g. gltf.scene), got';
    if (o && typeof o === 'object' && o.scene && typeof (o.scene as { traverse?: unknown }).traverse === 'function') {
      throw new Error(`${need} the loader's result (an object with .scene): pass gltf.scene`);
    }
    if (o && typeof o === 'object' && (typeof o.getChildMeshes === 'function' || (Array.isArray(o.bones) && typeof o.prepare === 'function'))) {
      throw new Error(`${need} a Babylon.js object: use createAnimator from 'bitrig/babylon' for Babylon.js`);
    }
    throw new Error(`${need} ${describeValue(object)}`);
  }
  if (typeof options !== 'object' || options === null) throw new Error(`bitrig/three: options must be an object, got ${describeValue(options)}`);
  if (options.mixer != null && typeof (options.mixer as { update?: unknown }).update !== 'function') throw new Error(`bitrig/three: options.mixer must be a THREE.AnimationMixer, got ${describeValue(options.mixer)}`);
  if (options.updateMixer !== undefined && typeof options.updateMixer !== 'boolean') throw new Error(`bitrig/three: options.updateMixer must be true or false, got ${describeValue(options.updateMixer)}`);
  const skeletons = collectSkeletons(object);
  if (skeletons.length === 0) throw new Error('bitrig/three: no SkinnedMesh with a skeleton under this object');
  for (const s of skeletons) {
    // Two live animators on one skeleton would both write its bones (and advance a shared mixer twice).
    if (boundSkeletons.has(s)) throw new Error('bitrig/three: this skeleton is already driven by a live animator; dispose() that one first');
  }
  const mixer = options.mixer ?? undefined; // (null: no mixer, as undefined)
  const updateMixer = options.updateMixer ?? !!mixer;
  const vrm = vrmOption(options.vrm);
  const nodeOf = vrm.nodeOf;
  const base = createAnimatorBase({
    module: 'bitrig/three',
    optionKeys: ['mixer', 'updateMixer'],
    skeletons: skeletons.map((s) => prepareSkeleton(object, s, mixer)),
    copyIn,
    copyOut,
    advanceMixer(dt: number) {
      if (mixer && updateMixer && Number.isFinite(dt) && dt > 0) mixer.update(dt);
    },
    sceneSkin: (s) => sceneSkinFromThree(s.object, s.skeleton),
    vrmNodes: nodeOf ? (s) => s.skeleton.bones.map(nodeOf) : undefined,
    onDispose() { for (const s of skeletons) boundSkeletons.delete(s); },
    animatedBones: mixer ? (s) => s.animated!() : undefined,
    playingBaked: mixer ? () => mixerPlaysBaked(mixer) : undefined,
  }, options.vrm === vrm.json ? options : { ...options, vrm: vrm.json as object });
  for (const s of skeletons) boundSkeletons.add(s);
  const animator = base as Animator;
  Object.defineProperty(animator, 'mixer', { value: mixer, enumerable: true });
  return animator;
}

/**
 * Advance many animators that share worlds: mixers, reads, one pipeline run per world,
 * writes. The way to run a crowd. One animator may be passed alone; anything else throws
 * `bitrig/three: …`.
 *
 * @example
 * const world = createBitrigWorld();
 * const crowd = foxes.map((f) => createAnimator(f.scene, { world, mixer: f.mixer }));
 * // every frame:
 * updateAnimators(crowd, dt);
 */
export function updateAnimators(animators: readonly Animator[] | Animator, dt: number): void {
  updateAnimatorGroup(animators, dt, 'bitrig/three');
}
