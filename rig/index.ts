/**
 * `bitrig/rig`: the offline rig pass (SPEC §1) — find a tail an auto-rigger never gave bones,
 * grow a bone chain along it and re-weight its skin — on a glTF-Transform Document or on GLB
 * bytes. Browser-safe: file I/O lives in the CLI (`bitrig rig`) and `rig/node.ts`.
 *
 * @example
 * import { rigGlb } from 'bitrig/rig';
 * const { glb, report } = await rigGlb(new Uint8Array(await file.arrayBuffer()));
 */
export { rigAppendages } from './pass';
export type { AppendageReport, AppendageVerdict, RigReport } from './pass';
export { RIG_DEFAULTS, mergeRigOptions } from './options';
export type { RigInclude, RigMode, RigOptions, RigProgress } from './options';
export { checkGlbBytes, readGlbBytes, rigGlb, writeGlbBytes } from './glb';
export { chainWeights } from './chain';
export { boneSegments, jointBones, skeletonDistance, weightedBoneDistance } from './distance';
export type { BoneSegments, JointBones, SkeletonPoints } from './distance';
export { readSkinMesh } from './meshData';
export type { SkinMesh } from './meshData';
export { readSkinSkeleton } from './skeleton';
export type { SkinSkeleton } from './skeleton';
export { characterToDocument, characterToGlb } from './characterDocument';
