/**
 * `bitrig/rig`: the offline rig pass — find a tail an auto-rigger never gave bones,
 * grow a bone chain along it and re-weight its skin — on a glTF-Transform Document or on GLB
 * bytes. Browser-safe: file I/O lives in the CLI (`bitrig rig`) and `rig/node.ts`.
 *
 * @example
 * import { rigGlb } from 'bitrig/rig';
 * const { glb, report } = await rigGlb(new Uint8Array(await file.arrayBuffer()));
 */
export { rigAppendages } from './pass';
export type { AppendageKind, AppendageReport, AppendageVerdict, ExistingChainReport, RigReport } from './pass';
export { RIG_DEFAULTS, RIG_OPTION_KEYS, mergeRigOptions } from './options';
export type { RigInclude, RigMode, RigOptions, RigOptionsInput, RigProgress } from './options';
export { checkGlbBytes, readGlbBytes, readGlbDocument, rigGlb, writeGlbBytes } from './glb';
export { INPUT_LIMITS, validateDocument, validateGlbBytes, checkGltfStructure, readGlbChunks, jsonDepth } from './validate/index';
export type { InputLimits, GlbChunks } from './validate/index';
export { guessUnitScale, unitScaleNote, TINY_HEIGHT } from './units';
export type { GlbBytes } from './glb';
export { chainWeights } from './chain';
export { boneSegments, jointBones, skeletonDistance, weightedBoneDistance } from './distance';
export type { BoneSegments, JointBones, SkeletonPoints } from './distance';
export { readSkinMesh } from './meshData';
export type { SkinMesh } from './meshData';
export { readSkinSkeleton } from './skeleton';
export type { SkinSkeleton } from './skeleton';
export { characterToDocument, characterToGlb } from './characterDocument';

// Bake and measure: clip sampling, CPU skinning, edge stretch, tail bake, grounding.
export { readSceneGraph, createLocalPose, resetLocalPose, createClipSampler, sampleClip, computeWorldMatrices, listClipNames, findClip } from './sample';
export type { SceneGraph, LocalPose, ClipSampler, ChannelSampler } from './sample';
export { readSkins, jointMatrices, skinVertices, dominantJoints } from './skinning';
export type { SkinData } from './skinning';
export { measureTail, measureEdgeStretch, measureJson, formatMeasureTable, stretchStats, meshEdges, MEASURE_DEFAULTS, mergeMeasureOptions } from './measure';
export type { MeasureOptions, MeasureReport, StretchRow, EdgeStretch, RigFunction } from './measure';
export { bakeTails, captureBakeCalibration, simulateTailCycle, hasTailBones, resolveSimUnits, mergeBakeOptions, detectClipMode, BAKE_DEFAULTS, TAIL_SIM_DEFAULTS, BAKED_EXTRA, CLIP_MODE_DETECT_DEFAULTS } from './bake';
export type { BakeOptions, BakeReport, BakedClipReport, BakeCalibration, BakeProgress, TailCycle, TailSimOptions, SimUnits, ClipMode, ClipModeSetting, ClipModeDetectOptions, ClipEndPose } from './bake';
export {
  placeOnGround, compareHipsLift, groundingLift, bodyFloor, lowestPoint, selectSupportSamples, supportHeights, createSupportScratch,
  tailJointMask, tailDominatedVertices, mergeGroundingOptions, mergeHipsLiftOptions, GROUNDING_DEFAULTS, HIPS_LIFT_DEFAULTS, PLACE_ON_GROUND_DEFAULTS,
} from './grounding';
export type {
  GroundingOptions, GroundingLift, SupportSamples, SupportScratch, HipsLiftRow, HipsLiftComparison, HipsLiftOptions, GroundPlacement, PlaceOnGroundOptions,
} from './grounding';
