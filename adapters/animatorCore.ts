/**
 * The engine-free half of every adapter's animator: what happens between "the engine pose is
 * in the pose store" and "write the driven bones back", plus diagnostics and option changes.
 * The three.js and Babylon.js adapters call these; they only copy bones in and out.
 */
import type { BitrigWorld } from '../core/world';
import {
  beginCharacterFrame, resolveTailRestSource, tailOverwrittenByClip, writeTailRest, type CharacterBinding,
} from '../core/binding';
import { REST_ANIMATION, SEAT_FROM_LOCAL, linkEl, linkIndex } from '../core/components/tail';
import { setTailOptions } from '../core/tailSetup';
import { describeValue, type PartialOptions, type TailOptions } from '../core/defaults';
import { bendAngleOf } from '../core/tailKernel';
import { update as runPipeline } from '../systems/pipeline';

/** Diagnostics of one tail chain. */
export interface TailDiagnostics {
  /** Bone names of the links, root first. */
  bones: string[];
  /** Rest source in use. */
  restSource: 'bind' | 'animation';
  /** Bend angle per link at the last step (radians, 0 = rest). */
  bendAngles: number[];
  /** Floor contact per link at the last step. */
  contacts: boolean[];
  /** Link steps in contact with a collider during the last frame (0: none touched). */
  colliderContacts: number;
  /** How many colliders the chain collides with (its character's, in the groups it names). */
  colliders: number;
  /** The chain was reset to rest this frame (first frame, teleport or bad state). */
  reset: boolean;
  /** World units per metre this chain simulates with (the animator's, or the chain's own `tails[name].unitScale`). */
  unitScale: number;
}

/** What an animator's `diagnostics()` returns. */
export interface AnimatorDiagnostics {
  /** World units per metre of the animator (a chain given its own `unitScale` reports it in {@link TailDiagnostics.unitScale}). */
  unitScale: number;
  /** Tail chains. */
  tails: TailDiagnostics[];
  /** Setup problems that did not stop the binding. */
  problems: string[];
}

/**
 * After an adapter copied the engine's locals and root frame into the pose store: resolve
 * `'auto'` rest sources (from the engine's animated-bone flags when the adapter knows them,
 * else: the clip keys the tail when it overwrote what bitrig showed, `binding.shownR`), show
 * the carried rest pose when tail physics is off, and compute world matrices. Per-frame.
 *
 * @example
 * copyBonesIn(); prepareCharacterFrame(binding, true); update(world, dt); copyBonesOut(); endCharacterFrame(binding);
 */
export function prepareCharacterFrame(binding: CharacterBinding, tailPhysics: boolean, animatedBones: Uint8Array | null = null, autoResolved = false): void {
  if (!autoResolved) resolveAutoRestSources(binding, animatedBones);
  // (an 'animation' chain keeps the clip's pose just read: the systems take their rest from it)
  if (!tailPhysics) {
    // Physics off shows the rest: a pending seat along the shown pose becomes a plain reset
    // (its twist would ride on the rest rotations the bones show while it eased out).
    const C = binding.world.components.TailChain;
    const tails = binding.tails;
    for (let c = 0; c < tails.length; c++) if (C.initialised[tails[c]!.eid] === SEAT_FROM_LOCAL) C.initialised[tails[c]!.eid] = 0;
    writeTailRest(binding, true);
  }
  beginCharacterFrame(binding);
}

/**
 * Resolve the `'auto'` rest sources of a binding's chains, right after the engine pose was
 * copied in: from the engine's animated-bone flags when the adapter knows them, else from
 * whether the engine overwrote what bitrig wrote on the chain (then sticky: a chain already on
 * the animation stays there while the engine leaves it as written, as on a held key). Per-frame.
 *
 * @example
 * copyBonesIn(); resolveAutoRestSources(binding, null); // then prepareCharacterFrame(binding, true, null, true)
 */
export function resolveAutoRestSources(binding: CharacterBinding, animatedBones: Uint8Array | null): void {
  const C = binding.world.components.TailChain;
  for (let c = 0; c < binding.tails.length; c++) {
    const t = binding.tails[c]!;
    if (t.restSource !== 'auto') continue;
    let animated = false;
    if (animatedBones) {
      for (let j = 0; j < t.bones.length; j++) if (animatedBones[t.bones[j]!] === 1) { animated = true; break; }
    } else {
      animated = tailOverwrittenByClip(binding, c);
      if (!animated && C.restSource[t.eid] === REST_ANIMATION) continue; // (held, or stopped: unknown)
    }
    resolveTailRestSource(binding, c, animated);
  }
}

/** Re-seat every chain at rest on the next frame (after tail physics is turned back on). */
export function reseatTails(binding: CharacterBinding): void {
  const C = binding.world.components.TailChain;
  for (const t of binding.tails) C.initialised[t.eid] = 0;
}

/**
 * Re-seat a binding's tails, next frame, along the pose shown last instead of at rest:
 * `shownR` holds local rotations by bone index (4 per bone, as `binding.shownR`). The
 * particles start on the shown directions at rest velocity, so leaving a clip that showed the
 * tail as keyed (a baked clip) does not snap it back to rest.
 *
 * @example
 * reseatTailsAtPose(binding, binding.shownR); // the rotations bitrig showed last frame
 */
export function reseatTailsAtPose(binding: CharacterBinding, shownR: ArrayLike<number>): void {
  const { TailChain: C, BendState: B } = binding.world.components;
  for (const t of binding.tails) {
    const n = Math.min(C.links[t.eid]!, t.bones.length);
    const row = C.row[t.eid]!;
    for (let i = 0; i < n; i++) {
      const j = t.bones[i]!;
      for (let c = 0; c < 4; c++) B.localCur[linkEl(linkIndex(row, i), 4, c)] = shownR[j * 4 + c]!;
    }
    C.initialised[t.eid] = SEAT_FROM_LOCAL;
  }
}

/**
 * Change tail options of every chain of a binding, or of the chain whose first bone is named
 * `chain`. Throws `bitrig/tail: …` on invalid values.
 *
 * @example
 * setBindingTailOptions(binding, names, { carry: 0.6 });
 */
export function setBindingTailOptions(binding: CharacterBinding, boneNames: readonly string[], options: PartialOptions<TailOptions>, chain?: string): void {
  for (const t of binding.tails) {
    if (chain !== undefined && boneNames[t.bones[0]!] !== chain) continue;
    setTailOptions(binding.world, t.eid, options);
    if (options.restSource) t.restSource = options.restSource;
  }
}

/** Diagnostics of a binding's tail chains (allocates; for overlays and tests). */
export function tailDiagnostics(binding: CharacterBinding, boneNames: readonly string[]): TailDiagnostics[] {
  const { TailChain: C, TailParticle: P, BendState: B } = binding.world.components;
  const out: TailDiagnostics[] = [];
  for (const t of binding.tails) {
    const n = C.links[t.eid]!;
    const bendAngles: number[] = [];
    const contacts: boolean[] = [];
    for (let i = 0; i < n; i++) {
      bendAngles.push(bendAngleOf(B.bendOld[linkEl(linkIndex(C.row[t.eid]!, i), 4, 3)]!));
      contacts.push(P.contact[linkIndex(C.row[t.eid]!, i)] === 1);
    }
    out.push({
      bones: t.bones.map((i) => boneNames[i]!),
      restSource: C.restSource[t.eid] === REST_ANIMATION ? 'animation' : 'bind',
      bendAngles, contacts, colliderContacts: C.colliderContacts[t.eid]!, colliders: C.colliderCount[t.eid]!,
      reset: C.resetLastFrame[t.eid] === 1, unitScale: C.unitScale[t.eid]!,
    });
  }
  return out;
}

/** What {@link updateAnimatorGroup} needs of an animator. */
export interface AnimatorLike {
  /** The world it lives in. */
  readonly world: BitrigWorld;
  /** Advance its engine animation by dt (no-op if it does not own it). */
  advanceMixer(dt: number): void;
  /** Copy the engine pose in. */
  read(): void;
  /** Copy the driven bones out. */
  write(): void;
}

function isAnimatorLike(a: unknown): a is AnimatorLike {
  return typeof a === 'object' && a !== null && typeof (a as AnimatorLike).read === 'function' && typeof (a as AnimatorLike).write === 'function'
    && typeof (a as AnimatorLike).advanceMixer === 'function';
}

/**
 * Advance animators that share worlds: animations, reads, one pipeline run per distinct
 * world, writes. Works for any adapter (and mixes them). A single animator (not in an array)
 * is advanced as a list of one. Per-frame; no allocation. Throws `<module>: …` (`module`:
 * the adapter's, e.g. `'bitrig/three'`) when `animators` is neither an array of animators nor
 * one animator — a usage error, not a frame's data.
 *
 * @example
 * updateAnimatorGroup(crowd, dt);
 */
export function updateAnimatorGroup(animators: readonly AnimatorLike[] | AnimatorLike, dt: number, module = 'bitrig'): void {
  if (!Array.isArray(animators)) {
    if (isAnimatorLike(animators)) {
      animators.advanceMixer(dt);
      animators.read();
      runPipeline(animators.world, dt);
      animators.write();
      return;
    }
    throw new Error(`${module}: updateAnimators(animators, dt) needs an array of animators (or one animator), got ${describeValue(animators)}`);
  }
  const list = animators as readonly AnimatorLike[];
  for (let i = 0; i < list.length; i++) {
    const a = list[i];
    if (!isAnimatorLike(a)) throw new Error(`${module}: updateAnimators(animators, dt): animators[${i}] is not an animator, got ${describeValue(a)}`);
    a.advanceMixer(dt);
    a.read();
  }
  for (let i = 0; i < list.length; i++) {
    const w = list[i]!.world;
    let seen = false;
    for (let j = 0; j < i; j++) if (list[j]!.world === w) { seen = true; break; }
    if (!seen) runPipeline(w, dt);
  }
  for (let i = 0; i < list.length; i++) list[i]!.write();
}
