/**
 * Engine-free character binding, shared by every adapter: a skeleton described as names,
 * parents, inverse bind matrices and node rest TRS becomes a pose-store character plus
 * tail chain entities. Adapters only copy engine bones into and out of the pose store.
 *
 * Setup functions throw `bitrig/bind: …`; {@link beginCharacterFrame} and
 * {@link endCharacterFrame} are per-frame.
 */
import type { BitrigWorld } from './world';
import { addBitrigEntity, removeBitrigEntity, requireBitrigWorld } from './world';
import { addComponent } from 'bitecs';
import { bindLocalsFromInverseBind, poseAddCharacter, poseRemoveCharacter, poseUpdateWorld, type BoneDef } from './pose';
import { findPelvis, findTailChains, type TailChainBones } from './boneMap';
import { addTailChain, removeTailChain, setTailRestSource } from './tailSetup';
import { describeValue, mergeTailOptions, type TailOptions, type PartialOptions } from './defaults';
import { CLOCK, MAX_LINKS, REST_ANIMATION, SEAT_FROM_LOCAL, linkEl, linkIndex } from './components/tail';

/** A skeleton as an adapter reads it from an engine or a file. */
export interface SkeletonSource {
  /** Bone names. */
  names: readonly string[];
  /** Parent index per bone (-1 when the parent is not a bone of this skeleton). */
  parents: ArrayLike<number>;
  /** Inverse bind matrix per bone (column-major 16), or null when the skin has none. */
  inverseBind?: ReadonlyArray<ArrayLike<number> | null>;
  /** The node's loaded local TRS per bone (used for roots and bones without an IBM). */
  rest: ReadonlyArray<{ t: ArrayLike<number>; r: ArrayLike<number>; s: ArrayLike<number> }>;
}

/** Options of {@link bindSkeleton}. */
export interface BindOptions {
  /** Tail options for every chain (merged over TAIL_DEFAULTS). */
  tail?: PartialOptions<TailOptions> | undefined;
  /** Per-chain overrides keyed by the chain's first bone name. */
  tails?: Record<string, PartialOptions<TailOptions> | null | undefined> | undefined;
  /** Explicit tail chains as bone-name lists (root first); default: found by name. */
  tailChains?: readonly (readonly string[])[] | undefined;
  /** Pelvis bone name; default: found by name or structure. */
  pelvis?: string | undefined;
}

/** Defaults of {@link BindOptions}. */
export const BIND_DEFAULTS: Readonly<BindOptions> = Object.freeze({});

/** A bound tail chain. */
export interface BoundTail {
  /** Tail entity id. */
  eid: number;
  /** Bone indices (source order) of the links, root first. */
  bones: number[];
  /** Bone index of the end helper, or -1. */
  end: number;
  /** Rest source as requested ('auto' is resolved by the adapter). */
  restSource: TailOptions['restSource'];
}

/** A skeleton bound into a world. */
export interface CharacterBinding {
  /** The world it lives in. */
  world: BitrigWorld;
  /** The character entity (`Character`; its tails, scene character and limbs have `PartOf.character` = this). */
  eid: number;
  /** Pose-store character id. */
  charId: number;
  /** Pose-store serial number of the character (`PoseStore.charSerial`): the id may be reused after release. */
  charSerial: number;
  /** Pose slot of each source bone. */
  slotOf: Int32Array;
  /** Number of bones. */
  boneCount: number;
  /** Source index of the pelvis, or -1. */
  pelvis: number;
  /** Bound tail chains. */
  tails: BoundTail[];
  /** 1 for every bone whose local rotation bitrig writes (source order). */
  drivenRotation: Uint8Array;
  /** 1 for every bone whose local translation bitrig writes (source order). */
  drivenTranslation: Uint8Array;
  /**
   * Local rotation of every bone as bitrig last showed it (source order, 4 per bone): the
   * driven bones' rotations at the last {@link endCharacterFrame}; until then, and for the
   * other bones, the pose the skeleton was loaded in. {@link tailOverwrittenByClip} compares
   * the engine's pose with it; a rest-source switch re-seats the tail along it.
   */
  shownR: Float64Array;
  /** The world's frame count (`clock[CLOCK.FRAMES]`) when {@link CharacterBinding.shownR} was last filled (at bind, then by {@link endCharacterFrame}). */
  shownFrame: number;
  /** {@link endCharacterFrame} has filled {@link CharacterBinding.shownR}, or the adapter that will (the animators) set it at setup: from then on it holds what the engine's bones were last given, however many frames the world ran since. */
  shownCaptured: boolean;
  /** A frame ran before any {@link endCharacterFrame}, and this was reported in `problems` (once). */
  shownStaleReported: boolean;
  /** Non-fatal problems found at setup (e.g. a non-invertible inverse bind matrix). */
  problems: string[];
  /** False after {@link unbindSkeleton}. */
  alive: boolean;
}

/**
 * One chain's tail options over the character's: a problem names the chain
 * (`bitrig/tail: tails["Tail_1"]: option frequency must be …`).
 *
 * @example
 * const opts = mergeChainOptions('Tail_1', { frequency: 1.2 }, base);
 */
export function mergeChainOptions(chain: string, per: unknown, base: Readonly<TailOptions>): TailOptions {
  if (typeof per !== 'object' || per === null || Array.isArray(per)) throw new Error(`bitrig/tail: tails["${chain}"] must be an object of tail options, got ${describeValue(per)}`);
  try {
    return mergeTailOptions(per as PartialOptions<TailOptions>, base);
  } catch (e) {
    throw new Error(`bitrig/tail: tails["${chain}"]: ${(e as Error).message.replace(/^bitrig\/tail: /, '')}`);
  }
}

/**
 * Bind a skeleton: bind locals from inverse bind matrices (the bind pose, not the loaded
 * pose), a pose-store character, and one tail entity per chain found.
 *
 * @example
 * const binding = bindSkeleton(world, { names, parents, inverseBind, rest }, { tail: { carry: 0.7 } });
 */
export function bindSkeleton(world: BitrigWorld, src: SkeletonSource, options: BindOptions = {}): CharacterBinding {
  requireBitrigWorld(world, 'bitrig/bind');
  if (typeof src !== 'object' || src === null) {
    throw new Error(`bitrig/bind: bindSkeleton(world, source) needs a skeleton source { names, parents, rest, inverseBind? } (e.g. skeletonSourceFromThree(skeleton)), got ${describeValue(src)}`);
  }
  const listLike = (v: unknown): boolean => typeof v === 'object' && v !== null && typeof (v as ArrayLike<unknown>).length === 'number';
  for (const k of ['names', 'parents', 'rest'] as const) {
    if (!listLike(src[k])) throw new Error(`bitrig/bind: source.${k} must be an array with one entry per bone, got ${describeValue(src[k])}`);
  }
  if (!Array.from(src.names).every((nm) => typeof nm === 'string')) throw new Error('bitrig/bind: source.names must be bone names (strings)');
  for (let i = 0; i < src.rest.length; i++) {
    const r = src.rest[i] as { t?: unknown; r?: unknown; s?: unknown } | null | undefined;
    if (typeof r !== 'object' || r === null || !listLike(r.t) || !listLike(r.r) || !listLike(r.s)) {
      throw new Error(`bitrig/bind: source.rest[${i}] must be { t, r, s } (the bone's local translation, rotation quaternion and scale), got ${describeValue(r)}`);
    }
  }
  if (src.inverseBind != null && !listLike(src.inverseBind)) throw new Error(`bitrig/bind: source.inverseBind must be an array (one matrix or null per bone) or left out, got ${describeValue(src.inverseBind)}`);
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new Error(`bitrig/bind: options must be an object, got ${describeValue(options)}`);
  const n = src.names.length;
  if (n === 0) throw new Error('bitrig/bind: the skeleton has no bones');
  if (src.parents.length !== n || src.rest.length !== n) throw new Error('bitrig/bind: names, parents and rest must have one entry per bone');
  const ibms = src.inverseBind ?? new Array<null>(n).fill(null);
  if (ibms.length !== n) throw new Error('bitrig/bind: inverseBind must have one entry per bone');
  const { bones, problems } = bindLocalsFromInverseBind(ibms, src.parents, src.names, src.rest);
  const { id, slotOf, serial } = poseAddCharacter(world.pose, bones as BoneDef[]);
  // The character entity (its pose range in `Character`): tails and scene IK relate to it.
  const eid = addBitrigEntity(world);
  addComponent(world, eid, world.components.Character);
  world.components.Character.pose[eid] = id;
  world.characterEntities.set(id, eid);
  const binding: CharacterBinding = {
    world, eid, charId: id, charSerial: serial, slotOf, boneCount: n, pelvis: -1, tails: [],
    drivenRotation: new Uint8Array(n), drivenTranslation: new Uint8Array(n),
    shownR: new Float64Array(n * 4), shownFrame: world.clock[CLOCK.FRAMES]!, shownCaptured: false, shownStaleReported: false, problems, alive: true,
  };
  // Until the first frame, "what bitrig showed" is the pose the skeleton was loaded in: a clip
  // that moves the tail away from it on the very first frame is seen keying the tail.
  for (let j = 0; j < n; j++) {
    const r = src.rest[j]!.r;
    const x = Number(r[0]), y = Number(r[1]), z = Number(r[2]), w = Number(r[3]);
    const l = Math.hypot(x, y, z, w);
    const ok = l > 1e-12 && Number.isFinite(l);
    binding.shownR[j * 4] = ok ? x / l : 0; binding.shownR[j * 4 + 1] = ok ? y / l : 0;
    binding.shownR[j * 4 + 2] = ok ? z / l : 0; binding.shownR[j * 4 + 3] = ok ? w / l : 1;
  }
  try {
    const topo = { names: src.names, parents: src.parents };
    if (options.pelvis !== undefined) {
      binding.pelvis = src.names.indexOf(options.pelvis);
      if (binding.pelvis < 0) throw new Error(`bitrig/bind: pelvis bone "${options.pelvis}" not found`);
    } else binding.pelvis = findPelvis(topo);
    let chains: TailChainBones[];
    if (options.tailChains) {
      const tc = options.tailChains as unknown;
      if (!Array.isArray(tc) || !tc.every((c) => Array.isArray(c) && c.every((nm) => typeof nm === 'string'))) {
        throw new Error('bitrig/bind: tailChains must be an array of chains, each an array of bone names (root first)');
      }
      chains = options.tailChains.map((names) => {
        const idx = names.map((nm) => {
          const i = src.names.indexOf(nm);
          if (i < 0) throw new Error(`bitrig/bind: tail bone "${nm}" not found`);
          return i;
        });
        return { bones: idx, end: -1, parent: idx.length ? (src.parents[idx[0]!] ?? -1) : -1 };
      });
      // A bone driven by two chains would be written by whichever ran last.
      const owner = new Map<number, number>();
      chains.forEach((ch, c) => {
        for (const b of ch.bones) {
          if (owner.has(b)) {
            throw new Error(`bitrig/bind: tail bone "${src.names[b]}" is in two tail chains (${owner.get(b)! + 1} and ${c + 1}); a bone can be in one chain only`);
          }
          owner.set(b, c);
        }
      });
    } else chains = findTailChains(topo);
    const base = mergeTailOptions(options.tail ?? {});
    for (const ch of chains) {
      if (ch.bones.length === 0) continue;
      if (ch.parent < 0) {
        problems.push(`tail chain at "${src.names[ch.bones[0]!]}" has no parent bone; skipped`);
        continue;
      }
      let bonesUsed = ch.bones;
      let end = ch.end;
      if (bonesUsed.length > MAX_LINKS) {
        problems.push(`tail chain at "${src.names[ch.bones[0]!]}" has ${bonesUsed.length} bones; the last ${bonesUsed.length - MAX_LINKS} ride rigidly`);
        end = bonesUsed[MAX_LINKS]!;
        bonesUsed = bonesUsed.slice(0, MAX_LINKS);
      }
      const first = src.names[ch.bones[0]!]!;
      const per = options.tails?.[first] ?? {};
      const opts = mergeChainOptions(first, per, base);
      const eid = addTailChain(world, {
        char: id,
        linkSlots: bonesUsed.map((b) => slotOf[b]!),
        endSlot: end >= 0 ? slotOf[end]! : -1,
        anchorSlot: slotOf[ch.parent]!,
        hipsSlot: binding.pelvis >= 0 ? slotOf[binding.pelvis]! : slotOf[ch.parent]!,
      }, opts);
      for (const b of bonesUsed) binding.drivenRotation[b] = 1;
      binding.tails.push({ eid, bones: bonesUsed, end, restSource: opts.restSource });
    }
  } catch (e) {
    unbindSkeleton(binding);
    throw e;
  }
  return binding;
}

/**
 * Release a binding's tail entities and pose slots. Safe to call twice.
 *
 * @example
 * unbindSkeleton(binding);
 */
export function unbindSkeleton(binding: CharacterBinding): void {
  if (!binding.alive) return;
  for (const t of binding.tails) removeTailChain(binding.world, t.eid);
  binding.tails.length = 0;
  const world = binding.world;
  if (world.characterEntities.get(binding.charId) === binding.eid) {
    world.characterEntities.delete(binding.charId);
    world.components.Character.pose[binding.eid] = -1;
    removeBitrigEntity(world, binding.eid);
  }
  poseRemoveCharacter(binding.world.pose, binding.charId, binding.charSerial);
  binding.alive = false;
}

/**
 * After an adapter copied the engine's local TRS and root frame into the pose store:
 * recompute the character's world matrices. Per-frame.
 */
export function beginCharacterFrame(binding: CharacterBinding): void {
  if (!binding.alive) return; // (per-frame: an unbound character is a no-op)
  poseUpdateWorld(binding.world.pose, binding.charId);
}

/**
 * After `update(world, dt)` (and whatever the adapter then wrote into the pose store, before
 * or after copying it out to the engine): remember the local rotations of the driven bones as
 * shown this frame, in {@link CharacterBinding.shownR}. Next frame, once the engine pose is
 * copied in, {@link tailOverwrittenByClip} compares the two to see whether the engine's
 * animation keys the tail, and a rest-source switch re-seats the tail along what was shown.
 * The three.js and Babylon.js animators call it; an adapter of your own calls it every frame
 * for `'auto'` chains (without it they stay on their current rest source). Per-frame; no allocation.
 *
 * @example
 * copyBonesIn(); beginCharacterFrame(binding); update(world, dt); copyBonesOut(); endCharacterFrame(binding);
 */
export function endCharacterFrame(binding: CharacterBinding): void {
  if (!binding.alive) return; // (per-frame: an unbound character is a no-op)
  const R = binding.world.pose.localR, shown = binding.shownR, driven = binding.drivenRotation, slotOf = binding.slotOf;
  for (let j = 0; j < binding.boneCount; j++) {
    if (driven[j] !== 1) continue;
    const k = slotOf[j]! * 4, o = j * 4;
    shown[o] = R[k]!; shown[o + 1] = R[k + 1]!; shown[o + 2] = R[k + 2]!; shown[o + 3] = R[k + 3]!;
  }
  binding.shownFrame = binding.world.clock[CLOCK.FRAMES]!;
  binding.shownCaptured = true;
}

/**
 * Whether {@link CharacterBinding.shownR} holds what the engine's bones were last given: once
 * {@link endCharacterFrame} has run (an animator skipped for some frames of a shared world
 * still shows its last capture), or while no frame ran since the bind (the loaded pose). When
 * it does not, reports it once in `binding.problems` and returns false.
 */
function shownCurrent(binding: CharacterBinding): boolean {
  if (binding.shownCaptured || binding.shownFrame === binding.world.clock[CLOCK.FRAMES]) return true;
  if (!binding.shownStaleReported) {
    binding.shownStaleReported = true;
    binding.problems.push('bitrig/bind: a frame ran but endCharacterFrame(binding) was never called, so what the bones were shown is not known: \'auto\' tail chains keep their rest source, and a switch re-seats at rest');
  }
  return false;
}

/**
 * Resolve a chain's rest source: `'auto'` picks `'animation'` when the playing clip keys the
 * chain's bones. Cheap when nothing changes; call when the playing clips change.
 *
 * @example
 * resolveTailRestSource(binding, 0, clipAnimatesTail);
 */
export function resolveTailRestSource(binding: CharacterBinding, chainIndex: number, clipAnimatesTail: boolean): void {
  const t = binding.tails[chainIndex];
  if (!t) return;
  const want = t.restSource === 'auto' ? (clipAnimatesTail ? 'animation' : 'bind') : t.restSource;
  const C = binding.world.components.TailChain;
  const cur = C.restSource[t.eid] === REST_ANIMATION ? 'animation' : 'bind';
  if (want !== cur) {
    setTailRestSource(binding.world, t.eid, want);
    // Re-seat the particles for the new rest pose, from the rotations shown last frame when
    // there are any (the tail continues from what was shown instead of snapping to rest).
    if (C.initialised[t.eid] === 1 && shownCurrent(binding)) {
      const B = binding.world.components.BendState;
      const row = C.row[t.eid]!, shown = binding.shownR;
      const n = Math.min(C.links[t.eid]!, t.bones.length);
      for (let i = 0; i < n; i++) {
        const j = t.bones[i]! * 4, k = linkIndex(row, i);
        for (let c = 0; c < 4; c++) B.localCur[linkEl(k, 4, c)] = shown[j + c]!;
      }
      C.initialised[t.eid] = SEAT_FROM_LOCAL;
    } else C.initialised[t.eid] = 0;
  }
}

/** Slots of a chain's link bones (for diagnostics and tests). */
export function tailLinkSlots(binding: CharacterBinding, chainIndex: number): number[] {
  const t = binding.tails[chainIndex];
  if (!t) return [];
  const C = binding.world.components.TailChain;
  const out: number[] = [];
  for (let i = 0; i < C.links[t.eid]!; i++) out.push(C.slot[linkIndex(C.row[t.eid]!, i)]!);
  return out;
}

/**
 * Does the engine's animation overwrite this chain's bones? Call right after an adapter
 * copied the engine pose into the pose store: if any link's local rotation differs from what
 * bitrig showed last frame ({@link CharacterBinding.shownR}, captured by
 * {@link endCharacterFrame}; before the first frame: the pose it was loaded in; beyond
 * `tolerance`), something — the playing clip — keys the tail. Engine-agnostic: works for any
 * mixer that writes bones before the adapter reads. False (and a problem reported once) when
 * frames ran but {@link endCharacterFrame} was never called: what was shown is not known then.
 * Per-frame; no allocation.
 *
 * @example
 * copyBonesIn(); if (tailOverwrittenByClip(binding, 0)) resolveTailRestSource(binding, 0, true);
 */
export function tailOverwrittenByClip(binding: CharacterBinding, chainIndex: number, tolerance = 1e-6): boolean {
  const t = binding.tails[chainIndex];
  if (!t || !shownCurrent(binding)) return false;
  const C = binding.world.components.TailChain;
  const R = binding.world.pose.localR, W = binding.shownR;
  const n = Math.min(C.links[t.eid]!, t.bones.length);
  for (let i = 0; i < n; i++) {
    const s = C.slot[linkIndex(C.row[t.eid]!, i)]!, j = t.bones[i]!;
    const px = R[s * 4]!, py = R[s * 4 + 1]!, pz = R[s * 4 + 2]!, pw = R[s * 4 + 3]!;
    const wx = W[j * 4]!, wy = W[j * 4 + 1]!, wz = W[j * 4 + 2]!, ww = W[j * 4 + 3]!;
    // angle between the rotations, whatever the quaternions' lengths (a valid glTF may store a
    // rotation a little off unit length; engines do not normalise it)
    const l = Math.sqrt((px * px + py * py + pz * pz + pw * pw) * (wx * wx + wy * wy + wz * wz + ww * ww));
    const d = l > 0 ? Math.abs(px * wx + py * wy + pz * wz + pw * ww) / l : 0;
    if (1 - d > tolerance) return true;
  }
  return false;
}

/**
 * Quaternion `k` of a float32 per-link field into `out[o…o+3]`, normalised in f64 (float32 is
 * unit to 1e-7 only, which bone lengths and world matrices would carry).
 */
function copyUnitQuat(a: ArrayLike<number>, k: number, out: Float64Array, o: number): void {
  const x = a[linkEl(k, 4, 0)]!, y = a[linkEl(k, 4, 1)]!, z = a[linkEl(k, 4, 2)]!, w = a[linkEl(k, 4, 3)]!;
  const il = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  out[o] = x * il; out[o + 1] = y * il; out[o + 2] = z * il; out[o + 3] = w * il;
}

/**
 * Show the rest pose (tail physics off): every link's local rotation becomes its rest
 * rotation — the carried bind rest, or for an `'animation'` chain the clip's own pose as the
 * tail systems took it this frame. With `bindOnly` (before the systems run) only `'bind'`
 * chains are written: an `'animation'` chain keeps the clip's pose just read, which is its
 * rest for this frame. Per-frame; no allocation.
 *
 * @example
 * if (!tailPhysics) writeTailRest(binding, true); // after read
 * update(world, dt); if (!tailPhysics) writeTailRest(binding); // before write
 */
export function writeTailRest(binding: CharacterBinding, bindOnly = false): void {
  const { TailChain: C, BendState: B } = binding.world.components;
  const pose = binding.world.pose;
  for (const t of binding.tails) {
    if (bindOnly && C.restSource[t.eid] === REST_ANIMATION) continue;
    const n = C.links[t.eid]!;
    // (while a seat's twist eases out, restR carries it: the rest itself is restBase)
    const R = C.seatEase[t.eid]! > 0 ? B.restBase : B.restR;
    for (let i = 0; i < n; i++) {
      const k = linkIndex(C.row[t.eid]!, i);
      const s = C.slot[k]!;
      copyUnitQuat(R, k, pose.localR, s * 4);
    }
  }
}
