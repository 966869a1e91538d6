/**
 * Three.js adapter: binds the skeletons under an `Object3D` into a bitrig world, copies the
 * animated pose in after the mixer, runs the pipeline and copies the corrected bones out.
 * It only copies between `Bone`s and the pose store; every decision lives in core/systems.
 *
 * Per frame (inside {@link Animator.update}): mixer.update(dt) → read → bitrig update → write.
 * Only bones bitrig drives are written (tail links; limb bones and the pelvis when scene IK
 * is on); every other bone keeps exactly what the mixer produced.
 */
import type { AnimationMixer, Bone, Object3D, Skeleton, SkinnedMesh } from 'three';
import { createBitrigWorld, type BitrigWorld } from '../../core/world';
import { bindSkeleton, unbindSkeleton, type BindOptions, type CharacterBinding, type SkeletonSource } from '../../core/binding';
import { update as runPipeline } from '../../systems/pipeline';
import type { TailOptions } from '../../core/defaults';
import { autoUnitScale } from '../../core/units';
import {
  prepareCharacterFrame, reseatTails, setBindingTailOptions, tailDiagnostics, updateAnimatorGroup,
  type AnimatorDiagnostics, type TailDiagnostics,
} from '../../core/animatorCore';

// --- scene IK (issue 3) ---
import {
  addSceneIK, removeSceneIK, sceneDiagnostics, setSceneInputs,
  type SceneDiagnostics, type SceneIKHandle, type SceneIKOptions, type SceneInputs,
} from '../../core/sceneIK';
import { sceneSkinFromThree } from './sceneSkin';
// --- end scene IK ---

export type { AnimatorDiagnostics, TailDiagnostics };

/** Options of {@link createAnimator}. */
export interface AnimatorOptions {
  /** World to bind into (share one between many characters); default: a private world. */
  world?: BitrigWorld;
  /** An existing mixer to wrap: `update(dt)` calls `mixer.update(dt)` first. */
  mixer?: AnimationMixer;
  /** Call `mixer.update(dt)` inside `update` (default true when a mixer is given). */
  updateMixer?: boolean;
  /** Tail options for every chain (SPEC §2 defaults; restSource 'auto'). */
  tail?: Partial<TailOptions>;
  /** Per-chain tail options keyed by the chain's first bone name. */
  tails?: Record<string, Partial<TailOptions>>;
  /** Explicit tail chains (bone names, root first); default: found by name. */
  tailChains?: string[][];
  /** Pelvis bone name; default: found by name or structure. */
  pelvis?: string;
  /** World units per metre, or 'auto' (100 when the rig is taller than 20 units, else 1). */
  unitScale?: number | 'auto';
  /** Tail physics on (default) or off (the carried rest pose is shown). */
  tailPhysics?: boolean;
  /** Scene contacts (feet, pelvis, hands) on the largest skeleton: `true` or options; soles calibrate from its meshes' skin. Off by default. */
  sceneIK?: boolean | Partial<SceneIKOptions>;
}

/** Defaults of {@link AnimatorOptions}. */
export const ANIMATOR_DEFAULTS = Object.freeze({ unitScale: 'auto' as number | 'auto', tailPhysics: true });

/** A bound character. */
export interface Animator {
  /** The world it lives in. */
  readonly world: BitrigWorld;
  /** The mixer it wraps, if any. */
  readonly mixer: AnimationMixer | undefined;
  /** Engine-free bindings (one per bound skeleton). */
  readonly bindings: readonly CharacterBinding[];
  /** Advance one frame: mixer, read, scene inputs (if given), bitrig systems (private world only), write. */
  update(dt: number, inputs?: SceneInputs): void;
  /** Scene IK handle (legs, arms in input order), or null when `sceneIK` is off. */
  readonly sceneIK: SceneIKHandle | null;
  /** Set this frame's scene inputs (stance weights, hand targets, ground, grounded); for shared worlds call before `updateAnimators`. */
  setSceneInputs(inputs: SceneInputs): void;
  /** Advance the wrapped mixer by dt when this animator owns its update (no-op otherwise). */
  advanceMixer(dt: number): void;
  /** Copy the engine pose into the pose store (for shared worlds; see {@link updateAnimators}). */
  read(): void;
  /** Copy bitrig's results onto the bones it drives. */
  write(): void;
  /** Turn tail physics on or off (off shows the carried rest pose). */
  setTailPhysics(on: boolean): void;
  /** Change tail options of every chain (or one, by first bone name). */
  setTailOptions(options: Partial<TailOptions>, chain?: string): void;
  /** Diagnostics for overlays and tests (`scene`: contacts, COM, reach, pelvis band when scene IK is on). */
  diagnostics(): AnimatorDiagnostics & { scene?: SceneDiagnostics };
  /** Release bitrig's state (pose slots, entities). The three objects are untouched. */
  dispose(): void;
}

interface BoundSkeleton {
  skeleton: Skeleton;
  bones: Bone[];
  binding: CharacterBinding;
  rootParent: Object3D | null;
}

function collectSkeletons(object: Object3D): Skeleton[] {
  const seen = new Set<Skeleton>();
  object.traverse((o) => {
    const m = o as SkinnedMesh;
    if (m.isSkinnedMesh && m.skeleton) seen.add(m.skeleton);
  });
  // Largest first; smaller skeletons whose bones are all in a larger one add nothing.
  const list = [...seen].sort((a, b) => b.bones.length - a.bones.length);
  const out: Skeleton[] = [];
  const covered = new Set<Bone>();
  for (const s of list) {
    if (s.bones.every((b) => covered.has(b))) continue;
    out.push(s);
    for (const b of s.bones) covered.add(b);
  }
  return out;
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
  const o = { ...ANIMATOR_DEFAULTS, ...options };
  const skeletons = collectSkeletons(object);
  if (skeletons.length === 0) throw new Error('bitrig/three: no SkinnedMesh with a skeleton under this object');
  const ownWorld = !o.world;
  const world = o.world ?? createBitrigWorld();
  object.updateWorldMatrix(true, true);
  let unitScale = typeof o.unitScale === 'number' ? o.unitScale : 1;
  if (o.unitScale === 'auto') {
    const ys: number[] = [];
    for (const s of skeletons) for (const b of s.bones) ys.push(b.getWorldPosition(b.position.clone()).y);
    unitScale = autoUnitScale(Math.max(...ys) - Math.min(...ys));
  }
  if (!(unitScale > 0)) throw new Error(`bitrig/three: unitScale must be positive, got ${String(o.unitScale)}`);
  const bindOpts: BindOptions = {
    tail: { unitScale, ...o.tail },
    tails: o.tails,
    tailChains: o.tailChains,
    pelvis: o.pelvis,
  };
  const bound: BoundSkeleton[] = [];
  try {
    for (const skeleton of skeletons) {
      const src = skeletonSourceFromThree(skeleton);
      const binding = bindSkeleton(world, src, bindOpts);
      const root = skeleton.bones.find((_, i) => src.parents[i] === -1);
      bound.push({ skeleton, bones: skeleton.bones, binding, rootParent: root?.parent ?? null });
    }
  } catch (e) {
    for (const b of bound) unbindSkeleton(b.binding);
    throw e;
  }
  // --- scene IK (issue 3) ---
  let sceneIK: SceneIKHandle | null = null;
  if (o.sceneIK) {
    try {
      const main = bound[0]!;
      sceneIK = addSceneIK(world, main.binding, { unitScale, skin: sceneSkinFromThree(object, main.skeleton), ...(o.sceneIK === true ? {} : o.sceneIK) });
    } catch (e) {
      for (const b of bound) unbindSkeleton(b.binding);
      throw e;
    }
  }
  // --- end scene IK ---
  let physics = o.tailPhysics;
  const mixer = o.mixer;
  const updateMixer = o.updateMixer ?? !!mixer;

  const read = (): void => {
    const pose = world.pose;
    for (const b of bound) {
      const { binding, bones } = b;
      const slotOf = binding.slotOf;
      for (let i = 0; i < bones.length; i++) {
        const bone = bones[i]!;
        const s = slotOf[i]!;
        pose.localT[s * 3] = bone.position.x; pose.localT[s * 3 + 1] = bone.position.y; pose.localT[s * 3 + 2] = bone.position.z;
        pose.localR[s * 4] = bone.quaternion.x; pose.localR[s * 4 + 1] = bone.quaternion.y;
        pose.localR[s * 4 + 2] = bone.quaternion.z; pose.localR[s * 4 + 3] = bone.quaternion.w;
        pose.localS[s * 3] = bone.scale.x; pose.localS[s * 3 + 1] = bone.scale.y; pose.localS[s * 3 + 2] = bone.scale.z;
      }
      const r = binding.charId * 16;
      if (b.rootParent) {
        b.rootParent.updateWorldMatrix(true, false);
        const e = b.rootParent.matrixWorld.elements;
        for (let j = 0; j < 16; j++) pose.charRootWs[r + j] = e[j]!;
      } else {
        for (let j = 0; j < 16; j++) pose.charRootWs[r + j] = j % 5 === 0 ? 1 : 0;
      }
      prepareCharacterFrame(binding, physics);
    }
  };

  const write = (): void => {
    const pose = world.pose;
    for (const b of bound) {
      const { binding, bones } = b;
      const slotOf = binding.slotOf;
      const dr = binding.drivenRotation, dt = binding.drivenTranslation;
      for (let i = 0; i < bones.length; i++) {
        const s = slotOf[i]!;
        if (dr[i] === 1) bones[i]!.quaternion.set(pose.localR[s * 4]!, pose.localR[s * 4 + 1]!, pose.localR[s * 4 + 2]!, pose.localR[s * 4 + 3]!);
        if (dt[i] === 1) bones[i]!.position.set(pose.localT[s * 3]!, pose.localT[s * 3 + 1]!, pose.localT[s * 3 + 2]!);
      }
    }
  };

  const animator: Animator = {
    world,
    mixer,
    bindings: bound.map((b) => b.binding),
    advanceMixer(dt: number) {
      if (mixer && updateMixer && Number.isFinite(dt) && dt > 0) mixer.update(dt);
    },
    sceneIK,
    setSceneInputs(inputs: SceneInputs) {
      if (sceneIK) setSceneInputs(world, sceneIK, inputs);
    },
    update(dt: number, inputs?: SceneInputs) {
      if (!ownWorld) throw new Error('bitrig/three: this animator shares a world; call updateAnimators(animators, dt) instead');
      animator.advanceMixer(dt);
      read();
      if (sceneIK && inputs) setSceneInputs(world, sceneIK, inputs);
      runPipeline(world, dt);
      write();
    },
    read,
    write,
    setTailPhysics(on: boolean) {
      physics = on;
      for (const b of bound) reseatTails(b.binding); // re-seat at rest when turned back on
    },
    setTailOptions(opts: Partial<TailOptions>, chain?: string) {
      for (const b of bound) setBindingTailOptions(b.binding, b.bones.map((x) => x.name), opts, chain);
    },
    diagnostics() {
      const tails: TailDiagnostics[] = [];
      const problems: string[] = [];
      for (const b of bound) {
        problems.push(...b.binding.problems);
        tails.push(...tailDiagnostics(b.binding, b.bones.map((x) => x.name)));
      }
      return { unitScale, tails, problems, ...(sceneIK ? { scene: sceneDiagnostics(world, sceneIK) } : {}) };
    },
    dispose() {
      if (sceneIK) removeSceneIK(world, sceneIK);
      for (const b of bound) unbindSkeleton(b.binding);
    },
  };
  return animator;
}

/**
 * Advance many animators that share worlds: mixers, reads, one pipeline run per world,
 * writes. The way to run a crowd.
 *
 * @example
 * const world = createBitrigWorld();
 * const crowd = foxes.map((f) => createAnimator(f.scene, { world, mixer: f.mixer }));
 * // every frame:
 * updateAnimators(crowd, dt);
 */
export function updateAnimators(animators: readonly Animator[], dt: number): void {
  updateAnimatorGroup(animators, dt);
}
