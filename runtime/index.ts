/**
 * `bitrig` — what a game needs: attach bitrig to its bitECS world, bind skeletons, the frame
 * calls and `update`, the options and the diagnostics. Each system for a schedule of your own
 * is in `bitrig/systems`, the built-in critter in `bitrig/character`, everything else (no
 * stability promise) in `bitrig/internals`.
 *
 * @example
 * import { createWorld } from 'bitecs';
 * import { attachBitrig, bindSkeleton, beginCharacterFrame, endCharacterFrame, update } from 'bitrig';
 * const world = attachBitrig(createWorld());
 * const binding = bindSkeleton(world, { names, parents, inverseBind, rest });
 * // every frame: copy the engine pose into world.pose, then
 * beginCharacterFrame(binding);
 * update(world, dt);
 * // copy the bones flagged in binding.drivenRotation back to the engine, then
 * endCharacterFrame(binding);
 */
// world
export { attachBitrig, createBitrigWorld } from './world';
export { isBitrigWorld, BITRIG_WORLD_DEFAULTS } from '../core/world';
export type { BitrigWorld, BitrigWorldOptions, BitrigContext, BitrigComponents, TailClock } from '../core/world';
// bind and the frame
export { bindSkeleton, unbindSkeleton, beginCharacterFrame, endCharacterFrame, BIND_DEFAULTS } from '../core/binding';
export type { SkeletonSource, BindOptions, BoundTail, CharacterBinding } from '../core/binding';
export { update } from '../systems/pipeline';
// tails
export { addTailChain, removeTailChain, setTailOptions, getTailOptions, setTailRestSource, tailLinkIndex } from '../core/tailSetup';
export { linkEl } from '../core/components/tail';
export type { TailChainSpec } from '../core/tailSetup';
export { addTailCollider, setTailCollider, removeTailCollider } from '../core/colliderSetup';
export { COLLIDER_GROUPS } from '../core/components/collider';
export type { TailColliderSpec } from '../core/colliderSetup';
export type { TailColliderComponent } from '../core/components/collider';
export { TAIL_DEFAULTS, mergeTailOptions } from '../core/defaults';
export type { PartialOptions, TailOptions, TailRestSource } from '../core/defaults';
// scene IK
export { addSceneIK, removeSceneIK, setSceneInputs, addSupport, setSupportFrame, removeSupport, sceneDiagnostics, mergeSceneIKOptions, SCENE_IK_DEFAULTS } from '../core/sceneIK';
export type {
  SceneIKOptions, SceneIKHandle, SceneLimbHandle, SceneInputs, HandTargetInput, GroundHit, GroundQuery, SkinInput, LimbSpec,
  SceneDiagnostics, ContactDiagnostics, ReachDiagnostics,
} from '../core/sceneIK';
// diagnostics
export type { TailChainComponent, TailParticleComponent, BendStateComponent } from '../core/components/tail';
export type { SceneCharacterComponent, LimbComponent, FootContactComponent, HandTargetComponent, SupportFrameComponent } from '../core/components/scene';
export type { CharacterComponent, PartOfComponent } from '../core/components/character';
// the built-in critter (also in bitrig/character)
export { createBuiltinCharacter } from '../core/character/index';
