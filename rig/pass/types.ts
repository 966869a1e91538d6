/**
 * Types of the rig pass: the report (public) and the records its phases hand on, one to the
 * next (internal). Lengths in model units, bind space.
 */
import type { Document } from '@gltf-transform/core';
import type { BoneSegments, JointBones } from '../distance';
import type { Piece } from '../detect';
import type { SkinMesh, VertexInfluence } from '../meshData';
import type { RigOptions } from '../options';
import type { SkinSkeleton } from '../skeleton';
import type { PointGrid, WeldGraph } from '../weld';

/**
 * What the pass did with a piece: `'chain'` grew new bones along it, `'existing-chain'`
 * re-weighted it onto a tail chain the skin already had (no bones added), `'rigid'` put it on
 * one bone, `'left-alone'` changed nothing.
 */
export type AppendageVerdict = 'chain' | 'existing-chain' | 'rigid' | 'left-alone';

/**
 * What a piece is: `tail` (long, hanging from the pelvis), `spine` (long, hanging from the
 * spine: sheath, quiver, strap), `worn` (long but wide or hanging on the torso: cape, skirt),
 * `body` (far skin of the body itself: a long body's belly, flanks and neck, or most of the
 * skin; never made rigid, not even with include "torso"), `short` (on the torso but shorter
 * than `minReach`), `head` (ears, hair), `limb` (sleeves, hands, feet), `speck` (a few vertices).
 */
export type AppendageKind = 'tail' | 'spine' | 'worn' | 'body' | 'short' | 'head' | 'limb' | 'speck';

/** One piece of far skin found by the pass. Lengths in model units (bind space). */
export interface AppendageReport {
  /** `'chain'`, `'existing-chain'`, `'rigid'` or `'left-alone'`. */
  verdict: AppendageVerdict;
  /** What the piece is. */
  kind: AppendageKind;
  /** Why, in words. */
  reason: string;
  /** Name of the skin the piece is skinned to. */
  skin: string;
  /** Attachment joint name after the torso/thigh bias (a thigh head at the pelvis reports the pelvis). */
  attachment: string;
  /** Joint nearest to the collar centroid (before the bias). */
  nearestJoint: string;
  /** Body region of the attachment: pelvis, spine, head, limb or other. */
  region: string;
  /** Original (unwelded) vertices of the far piece. */
  vertexCount: number;
  /** Original vertices whose weights the pass changed (the piece plus re-weighted collar skin). */
  changedVertexCount: number;
  /** Max distance from the collar centroid to a piece vertex. */
  reach: number;
  /** Reach as a fraction of the model height. */
  reachRatio: number;
  /** Skeleton distance of the piece's centroid divided by its reach (appendage test ≥ 0.4). */
  centroidRatio: number;
  /** sqrt(λ1/λ2) of the piece's covariance (tail ≈ 2.6, cape ≈ 1). */
  elongation: number;
  /** sqrt(λ3/λ2) of the piece's covariance: near 0 for a thin sheet (a cape), up to 1 for a round volume (a body's shell, a skirt's tube). */
  thickness: number;
  /** Raw pieces merged into this one (overlapping shells). */
  merged: number;
  /** Far threshold the piece was found at, as a fraction of H (raised inside fat bodies). */
  farFraction: number;
  /** RMS spread of the collar around its centroid divided by the reach. */
  collarSpread: number;
  /** Fraction of the piece's vertices driven from far away (the rigger's mistake). */
  misweighted: number;
  /** Tail length L (p99 of the geodesic coordinate), chains only; the existing chain's bone length for `'existing-chain'`; else 0. */
  length: number;
  /** Segment count K, chains only; the existing chain's bone count for `'existing-chain'`; else 0. */
  segments: number;
  /** New bone names (`Tail_1…Tail_K`, `Tail_End`), chains only; the existing chain's bones (and end helper) for `'existing-chain'`. */
  joints: string[];
  /** Bone the piece was made rigid on (rigid only), else ''. */
  rigidBone: string;
  /**
   * Present only when the piece is two or more tails lying side by side that the pass could
   * not tell apart (their skins never separate along their length, so no cut splits them into
   * a chain each): says so, and what was done instead, in one line, e.g. "2 tails side by side
   * from one root could not be told apart (…): one chain takes both".
   */
  twins?: string;
  /** Mean weighted bone distance over the piece's vertices before the pass. */
  boneDistanceBefore: number;
  /** The same after the pass (equal to before when left alone). */
  boneDistanceAfter: number;
}

/** A tail chain the skin already had when the pass ran (an artist's, or one an earlier run grew). */
export interface ExistingChainReport {
  /** Name of the skin the chain belongs to. */
  skin: string;
  /** Bone names from the root outward, then the end helper (`Tail_End`) when there is one. */
  joints: string[];
  /** Parent joint of the first bone ('' when the chain is a root). */
  parent: string;
  /** Original vertices this run re-weighted onto the chain (skin lying along it but weighted to a body bone). */
  changedVertexCount: number;
}

/** Result of {@link rigAppendages}. */
export interface RigReport {
  /** One entry per piece found, in skin order, largest first. */
  appendages: AppendageReport[];
  /** Model height H (bind space, model units, along `up`). */
  height: number;
  /** Bind-space up axis used for H. */
  up: [number, number, number];
  /** Number of chains grown (new bones). */
  chains: number;
  /**
   * Tail chains found by name (core/boneMap) before the pass ran, per skin. No chain is grown
   * beside one of them: skin along one is re-weighted onto it, other tail skin at it is left alone.
   */
  existingChains: ExistingChainReport[];
  /** Things worth knowing that are not pieces (a skin without a pelvis, an unskinned mesh…). */
  notes: string[];
  /** Original vertices re-weighted in total. */
  changedVertices: number;
  /** Wall time of the pass in milliseconds. */
  ms: number;
}

/** One skin as read before the pass. */
export interface SkinWork {
  skel: SkinSkeleton;
  mesh: SkinMesh;
  label: string;
  /** Why nothing on this skin can be measured (its bind skeleton is one point), or null. */
  skip: string | null;
}

/** A tail chain found by name in a skin before the pass grows anything. */
export interface ExistingChain {
  /** Skin joint indices of the bones, root first. */
  bones: number[];
  /** End helper joint, or -1. */
  end: number;
  /** Parent joint of the first bone, or -1. */
  parent: number;
  /** Bone names, then the end helper's. */
  names: string[];
  /** Polyline for `chainCoordinate`: parent (the first head when none), bone heads, tip. */
  points: Float64Array;
  /** Length of the bones from the first head to the tip. */
  length: number;
}

/** The policy's word on a piece. */
export interface Decision {
  verdict: AppendageVerdict;
  reason: string;
  /** What the piece is, in one word (see {@link AppendageKind}). */
  kind: AppendageKind;
  /** A long piece hanging from the pelvis (a tail: chain, or rigid in rigid mode). */
  tail: boolean;
  /** A long piece on the pelvis or spine that is not an appendage (worn, or the body's own far skin): searched again for a hidden tail. */
  worn: boolean;
  /** Bone for rigid pieces. */
  bone: number;
  /** A misweighted short piece at the pelvis or lower back, repaired as a stub (short chain or rigid). */
  stub?: boolean;
}

/** A piece with its decision. */
export interface Found {
  piece: Piece;
  decision: Decision;
  /** Fraction of the piece's vertices driven from far away (weighted bone distance − skeleton distance > absorbMargin·H). */
  misweighted: number;
}

/** Input of one skin's pass: the skin, the options and the model's height. */
export interface SkinStart {
  doc: Document;
  work: SkinWork;
  o: RigOptions;
  /** Model height H. */
  H: number;
  /** Far threshold (farFraction · H). */
  far: number;
  /** Chains grown on earlier skins (for free bone-name prefixes). */
  chainsBefore: number;
  /** Surface area of every skin sharing this skin's skeleton. */
  skeletonArea: number;
  progress: (step: string, f: number) => void;
}

/** After the weld phase: the welded graph and the tail chains the skin already has. */
export interface Welded extends SkinStart {
  graph: WeldGraph;
  existing: ExistingChain[];
  existingReports: ExistingChainReport[];
}

/** After the distance-field phase: per welded vertex, how far from the skeleton and driven from how far. */
export interface Field extends Welded {
  /** Joints in the distance field (weighted joints and the pelvis). */
  include: Uint8Array;
  segs: BoneSegments;
  /** Nearest-bone field with every existing chain bone in it; null without existing chains. */
  nearSegs: BoneSegments | null;
  /** Existing chain index per joint, −1 for none. */
  chainOfJoint: Int32Array;
  /** Skeleton distance per welded vertex. */
  dist: Float64Array;
  /** Bones of the original skeleton. */
  bonesBefore: JointBones;
  originalJoints: Uint16Array;
  originalWeights: Float32Array;
  /** Cache of weighted bone distance − skeleton distance per welded vertex (NaN: not yet computed); read through `excessOf`. */
  drivenFrom: Float64Array;
  /** Misweighted when driven from farther than this (model units; Infinity when absorbing is off). */
  margin: number;
  /** Surface area per welded vertex. */
  vertexArea: Float64Array;
  /** Area of every skin of the skeleton. */
  areaTotal: number;
}

/** After the pieces phase: every far piece with the policy's decision. */
export interface Pieces extends Field {
  regions: Uint8Array;
  found: Found[];
}

/** After the decide phase: tails grouped by touching domains, largest first. */
export interface Decided extends Pieces {
  tails: Found[];
  /** Re-weighting domain (welded ids) per tail. */
  domains: number[][];
  /** Indices into `tails`, one list per tail, largest group first, largest piece first. */
  groups: number[][];
  grid: PointGrid;
  /** Shells within this gap touch (model units). */
  gap: number;
}

/** A report whose weights changed, with the original vertices it changed. */
export interface Pending {
  report: AppendageReport;
  changed: Int32Array;
}

/** After the grow phase: new bones added, new influences listed (not yet written). */
export interface Grown extends Decided {
  reports: AppendageReport[];
  influences: VertexInfluence[];
  pending: Pending[];
  taken: Uint8Array;
  chains: number;
  /**
   * Per welded vertex: 1 on rump skin (before a tail's base, or within `RUMP_REACH` of its
   * length beyond it: skin its domain spilled over near where the tail leaves the body; all of
   * a stub whose domain spilled past its far pieces), where the re-weight phase keeps the
   * body's own weights (`keepBodyWeights` in reweight.ts).
   */
  rump: Uint8Array;
}

/** What one skin's pass gives back. */
export interface SkinResult {
  reports: AppendageReport[];
  chains: number;
  changed: number;
  existing: ExistingChainReport[];
}
