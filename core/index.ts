/**
 * core's own surface: components, pose store, maths, bone-name map and setup (attach, bind,
 * tails, scene IK). Imports nothing from systems/, the runtime or adapters/; the `bitrig`
 * entry is runtime/index.ts.
 *
 * @example
 * import { attachBitrigData, bindSkeleton } from '../core/index';
 */
export { attachBitrigData, isBitrigWorld, requireBitrigWorld, relayout, addBitrigEntity, ensureTailRow, removeBitrigEntity, BITRIG_WORLD_DEFAULTS } from './world';
export type { BitrigWorld, BitrigWorldOptions, BitrigContext, BitrigComponents, TailClock } from './world';
export type { TailAccel, TailStepExports, TwoBoneExports, SceneContactsExports, SceneContactsKernel } from './kernelTypes';
export { createCharacterComponents } from './components/character';
export type { CharacterComponent, PartOfComponent } from './components/character';
export {
  createPoseStore, poseAddCharacter, poseRemoveCharacter, poseResetToBind, poseUpdateWorld, poseUpdateSubtree,
  poseUpdateSlot, poseFindSlot, poseCharacterRange, bindLocalsFromInverseBind, composeTRS, mulAffine, decomposeAffine,
} from './pose';
export type { PoseStore, BoneDef, PoseCharacter } from './pose';
export {
  bindSkeleton, unbindSkeleton, beginCharacterFrame, endCharacterFrame, resolveTailRestSource, tailOverwrittenByClip, tailLinkSlots,
  writeTailRest, BIND_DEFAULTS,
} from './binding';
export type { SkeletonSource, BindOptions, BoundTail, CharacterBinding } from './binding';
export { parseBoneName, findPelvis, findTailChains, isTailName, isSpineName, boneIsAncestor } from './boneMap';
export type { SkeletonTopology, ParsedBoneName, BoneSide, TailChainBones } from './boneMap';
export { TAIL_DEFAULTS, mergeTailOptions } from './defaults';
export type { PartialOptions, TailOptions, TailRestSource } from './defaults';
export { addTailChain, removeTailChain, tailLinkIndex, setTailOptions, getTailOptions, setTailRestSource, applyCarryAndArc, bindWorldMatrices } from './tailSetup';
export type { TailChainSpec } from './tailSetup';
export { MAX_LINKS, LINK_STRIDE, REST_BIND, REST_ANIMATION, createTailComponents, TAIL_LINK_FIELDS, CLOCK, SEAT_FROM_LOCAL, SEAT_EASE_TIME } from './components/tail';
export type { TailChainComponent, TailParticleComponent, BendStateComponent } from './components/tail';
export { autoUnitScale } from './units';
export { addTailCollider, setTailCollider, getTailCollider, removeTailCollider, isTailCollider, tailCollidersOf, refreshChainColliders, checkChainColliderRoom } from './colliderSetup';
export { addAutoTailColliders, AUTO_COLLIDER_DEFAULTS, MIN_SKIN_VERTICES } from './colliderAuto';
export type { AutoColliderOptions } from './colliderAuto';
export type { TailColliderSpec } from './colliderSetup';
export { createColliderComponents, COLLIDER_GROUPS, COLLIDER_SPHERE, COLLIDER_CAPSULE, MAX_CHAIN_COLLIDERS, SHAPE_STRIDE } from './components/collider';
export type { TailColliderComponent } from './components/collider';
export { readVrmColliders } from './vrmColliders';
export type { VrmCollider, VrmColliderGroup, VrmColliderSet, VrmSpring } from './vrmColliders';
export { addVrmTailColliders, vrmGroupBit, MAX_VRM_GROUPS, VRM_COLLIDER_DEFAULTS } from './vrmColliderSetup';
export type { VrmColliderOptions, VrmCollidersAdded } from './vrmColliderSetup';
export { bendAngleOf, tailStructureOk } from './tailKernel';
export { sceneCharacterOk, limbStructureOk } from './sceneGuard';
export * from './character';
export {
  addSceneIK, removeSceneIK, setSceneInputs, addSupport, setSupportFrame, removeSupport, sceneDiagnostics,
  computeCenterOfMass, fitSolePlane, mergeSceneIKOptions, SCENE_IK_DEFAULTS, dominantJoints,
} from './sceneIK';
export type {
  SceneIKOptions, SceneIKHandle, SceneLimbHandle, SceneInputs, HandTargetInput, GroundHit, GroundQuery, SkinInput, LimbSpec,
  SceneDiagnostics, ContactDiagnostics, ReachDiagnostics, SolePlane,
} from './sceneIK';
export { findLimbs } from './limbMap';
export type { LimbBones } from './limbMap';
export { createTwoBoneOutput, twoBoneOptions, TWO_BONE_DEFAULTS } from './ik/twoBone';
export type { TwoBoneInput, TwoBoneOutput, TwoBoneOptions } from './ik/twoBone';
export {
  createSceneComponents, MAX_LEGS, MAX_ARMS, LIMB_LEG, LIMB_ARM, SOLE_ANKLE, SOLE_SKIN,
} from './components/scene';
export type {
  SceneCharacterComponent, LimbComponent, FootContactComponent, HandTargetComponent, SupportFrameComponent,
} from './components/scene';
