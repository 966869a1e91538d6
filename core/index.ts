/**
 * `bitrig` — the engine-free runtime: pose store, bitECS world and components, bone-name map,
 * tail setup and the systems in their fixed pipeline order.
 *
 * @example
 * import { createBitrigWorld, bindSkeleton, beginCharacterFrame, endCharacterFrame, update } from 'bitrig';
 * const world = createBitrigWorld();
 * const binding = bindSkeleton(world, { names, parents, inverseBind, rest });
 * // every frame: copy the engine pose into world.pose, then
 * beginCharacterFrame(binding);
 * update(world, dt);
 * // copy the bones flagged in binding.drivenRotation back to the engine, then
 * endCharacterFrame(binding); // (what they were shown: for 'auto' tail rest sources)
 */
export { createBitrigWorld, addBitrigEntity, ensureTailRow, removeBitrigEntity, BITRIG_WORLD_DEFAULTS } from './world';
export type { BitrigWorld, BitrigWorldOptions, BitrigContext, BitrigComponents, TailClock } from './world';
export { tailBackend } from './wasm/tailAccel';
export type { TailAccel } from './wasm/tailAccel';
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
export { addTailChain, removeTailChain, tailLinkIndex, markTailChainChanged, setTailOptions, getTailOptions, setTailRestSource, applyCarryAndArc, bindWorldMatrices } from './tailSetup';
export type { TailChainSpec } from './tailSetup';
export { MAX_LINKS, LINK_STRIDE, REST_BIND, REST_ANIMATION, createTailComponents, TAIL_LINK_FIELDS, CLOCK, SEAT_FROM_LOCAL, SEAT_EASE_TIME } from './components/tail';
export type { TailChainComponent, TailParticleComponent, BendStateComponent } from './components/tail';
export { autoUnitScale } from './units';
export { update } from '../systems/pipeline';
export { tailClockBegin, tailClockStep, resetChainToRest } from '../systems/tailClock';
export { tailStep } from '../systems/tailStep';
export { bendAngleOf, tailStructureOk } from './tailKernel';
export { sceneCharacterOk, limbStructureOk } from './sceneGuard';
export { tailWrite } from '../systems/tailWrite';
export * from './character';
export {
  prepareCharacterFrame, reseatTails, reseatTailsAtPose, setBindingTailOptions, tailDiagnostics, updateAnimatorGroup,
} from './animatorCore';
export type { AnimatorDiagnostics, TailDiagnostics, AnimatorLike } from './animatorCore';
export type { AnimatorBase, AnimatorBaseOptions } from './animatorBase';
// --- scene contacts (issue 3) ---
export {
  addSceneIK, removeSceneIK, setSceneInputs, addSupport, setSupportFrame, removeSupport, sceneDiagnostics,
  computeCenterOfMass, fitSolePlane, mergeSceneIKOptions, SCENE_IK_DEFAULTS,
} from './sceneIK';
export type {
  SceneIKOptions, SceneIKHandle, SceneLimbHandle, SceneInputs, HandTargetInput, GroundHit, GroundQuery, SkinInput, LimbSpec,
  SceneDiagnostics, ContactDiagnostics, ReachDiagnostics, SolePlane,
} from './sceneIK';
export { findLimbs } from './limbMap';
export type { LimbBones } from './limbMap';
export { solveTwoBone, createTwoBoneOutput, twoBoneOptions, twoBoneKernel, TWO_BONE_DEFAULTS, TB } from './ik/twoBone';
export type { TwoBoneInput, TwoBoneOutput, TwoBoneOptions } from './ik/twoBone';
export {
  createSceneComponents, MAX_LEGS, MAX_ARMS, LIMB_LEG, LIMB_ARM, SOLE_ANKLE, SOLE_SKIN,
} from './components/scene';
export type {
  SceneCharacterComponent, LimbComponent, FootContactComponent, HandTargetComponent, SupportFrameComponent,
} from './components/scene';
export { footLock } from '../systems/footLock';
export { pelvisHeight } from '../systems/pelvisHeight';
export { twoBoneIK } from '../systems/twoBoneIK';
// --- end scene contacts ---
