/**
 * bitrig's built-in character, made in code (no engine, no files): a small biped creature
 * — torso, head with two ears, arms, legs with flat-soled feet and a long drooping tail
 * modelled as its own shell — skinned to a Mixamo-named skeleton, with clips `walk`,
 * `sprint`, `crouch` and `hipSweep`. Two variants: `chain` (Tail_1…Tail_K + Tail_End
 * under Hips) and `shin` (no tail bones; the tail skin sits on the left shin and both
 * thighs, the auto-rigger failure the rig pass repairs).
 *
 * Metres, Y up, facing +Z, left = +X, feet at y = 0, height ≈ 1.27 m, tail 0.9 m toward −Z.
 * Deterministic: the same options always give bit-identical data. Setup-time only.
 */
import type { BuiltinCharacterOptions, CharacterData } from './types';
import { bodyJointPositions, buildSkeleton, tailCurve, tailJoints } from './skeleton';
import { buildBody, soleCorners } from './body';
import { buildClips } from './clips';
import { createMeshBuilder, finishWeights } from './surface';

export type {
  BuiltinCharacterOptions, CharacterBone, CharacterClip, CharacterData, CharacterMesh, CharacterTrack,
} from './types';
export { characterBindPose, createCharacterClipSampler, sampleCharacterClip, type CharacterClipSampler } from './sample';
export { hipSweepOffset } from './clips';
export { BODY_BONE_NAMES } from './skeleton';

/**
 * Defaults of {@link createBuiltinCharacter}: chain variant, 6 links, 0.9 m tail.
 *
 * @example
 * createBuiltinCharacter({ ...BUILTIN_CHARACTER_DEFAULTS, tailLinks: 4 });
 */
export const BUILTIN_CHARACTER_DEFAULTS: Required<BuiltinCharacterOptions> = {
  variant: 'chain',
  tailLinks: 6,
  tailLength: 0.9,
};

/**
 * Model name of the built-in character (also the mesh, skin and scene name in its GLB).
 *
 * @example
 * createBuiltinCharacter().name === BUILTIN_CHARACTER_NAME; // true
 */
export const BUILTIN_CHARACTER_NAME = 'bitrig-critter';

/**
 * Make the built-in character. Throws `bitrig/character: …` on bad options.
 *
 * @example
 * const critter = createBuiltinCharacter();                    // Tail_1…Tail_6
 * const broken = createBuiltinCharacter({ variant: 'shin' });  // tail skinned to the left shin
 * critter.clips.map((c) => c.name);                            // ['walk', 'sprint', 'crouch', 'hipSweep']
 */
export function createBuiltinCharacter(options: BuiltinCharacterOptions = {}): CharacterData {
  const o = { ...BUILTIN_CHARACTER_DEFAULTS, ...options };
  for (const k of Object.keys(o) as (keyof BuiltinCharacterOptions)[]) {
    if (o[k] === undefined) (o as Record<string, unknown>)[k] = BUILTIN_CHARACTER_DEFAULTS[k];
  }
  if (o.variant !== 'chain' && o.variant !== 'shin') {
    throw new Error(`bitrig/character: variant must be 'chain' or 'shin', got ${String(o.variant)}`);
  }
  if (!Number.isInteger(o.tailLinks) || o.tailLinks < 3 || o.tailLinks > 8) {
    throw new Error(`bitrig/character: tailLinks must be an integer in 3…8, got ${String(o.tailLinks)}`);
  }
  if (!Number.isFinite(o.tailLength) || o.tailLength < 0.3 || o.tailLength > 1.2) {
    throw new Error(`bitrig/character: tailLength must be in 0.3…1.2 m, got ${String(o.tailLength)}`);
  }
  const key = `${o.variant}|${o.tailLinks}|${o.tailLength}`;
  let made = cache.get(key);
  if (!made) {
    made = build(o);
    cache.set(key, made);
  }
  // callers own (and may edit) what they get: hand out a deep copy of the cached build
  return structuredClone(made);
}

/** Builds already made, by options (a built character is ~0.4 MB; a handful of keys at most in practice). */
const cache = new Map<string, CharacterData>();

function build(o: Required<BuiltinCharacterOptions>): CharacterData {
  const K = o.tailLinks;
  const curve = tailCurve(o.tailLength);
  const J = tailJoints(curve, K);
  const sk = buildSkeleton(o.variant === 'chain' ? J : null);
  const P = bodyJointPositions();
  const bone = (name: string): number => {
    const i = sk.index.get(name);
    if (i === undefined) throw new Error(`bitrig/character: internal: no bone ${name}`);
    return i;
  };
  const mb = createMeshBuilder();
  buildBody(mb, P, bone, curve, { variant: o.variant, links: K });
  const skin = finishWeights(mb.inf);
  const positions = new Float32Array(mb.pos);
  let yMin = Infinity, yMax = -Infinity;
  for (let i = 1; i < positions.length; i += 3) {
    yMin = Math.min(yMin, positions[i]!);
    yMax = Math.max(yMax, positions[i]!);
  }
  const tailGroundTruth = new Float32Array((K + 1) * 3);
  J.forEach((p, i) => tailGroundTruth.set(p, i * 3));
  const sole = new Float32Array(24);
  [...soleCorners(P, 'Left'), ...soleCorners(P, 'Right')].forEach((p, i) => sole.set(p, i * 3));
  return {
    name: BUILTIN_CHARACTER_NAME,
    variant: o.variant,
    bones: sk.bones,
    inverseBind: sk.inverseBind,
    mesh: {
      positions,
      normals: new Float32Array(mb.nrm),
      indices: new Uint32Array(mb.idx),
      joints: skin.joints,
      weights: skin.weights,
    },
    clips: buildClips(sk, P),
    tailVertex: new Uint8Array(mb.tail),
    earVertex: new Uint8Array(mb.ear),
    tailBoneNames: Array.from({ length: K }, (_, i) => `Tail_${i + 1}`),
    tailGroundTruth,
    height: yMax - yMin,
    tailLength: o.tailLength,
    shell: new Uint8Array(mb.shell),
    soleCorners: sole,
  };
}
