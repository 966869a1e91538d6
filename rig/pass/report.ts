/**
 * Report entries of the rig pass: a piece's entry before anything is done with it, and the
 * fixed words its reasons are made of.
 */
import { weightedBoneDistance } from '../distance';
import { REGION_PELVIS, regionName } from '../skeleton';
import { membersOf } from './domain';
import type { AppendageReport, Field, Found } from './types';

/** Suffix of a chain decision's reason, replaced when the piece meets an existing chain. */
export const GREW = ': grew a chain';

/** Suffix of a rigid-mode tail decision's reason. */
export function rigidSuffix(pelvisName: string): string {
  return `; rigid mode: weight 1.0 on ${pelvisName}`;
}

/** A number in a reason: two decimals. */
export function fmt(x: number): string {
  return x.toFixed(2);
}

/** The report entry of a found piece, verdict `'left-alone'`, before anything is done with it. */
export function reportOf(s: Field & { regions: Uint8Array }, f: Found): AppendageReport {
  const { skel, mesh, label } = s.work;
  const { piece } = f;
  const { regions, H } = s;
  const farVerts = membersOf(s.graph, piece.vertices);
  const bd = weightedBoneDistance(s.bonesBefore, mesh.positions, s.originalJoints, s.originalWeights, mesh.slots, farVerts);
  return {
    verdict: 'left-alone',
    kind: f.decision.kind,
    reason: f.decision.reason,
    skin: label,
    // A thigh head at the pelvis belongs to the body: report the pelvis itself.
    attachment: piece.attachment < 0 ? '' : regions[piece.attachment] === REGION_PELVIS && skel.pelvis >= 0 ? skel.names[skel.pelvis]! : skel.names[piece.attachment]!,
    nearestJoint: piece.nearestJoint >= 0 ? skel.names[piece.nearestJoint]! : '',
    region: piece.attachment >= 0 ? regionName(regions[piece.attachment]!) : 'other',
    vertexCount: farVerts.length,
    changedVertexCount: 0,
    reach: piece.reach,
    reachRatio: piece.reach / H,
    centroidRatio: piece.centroidRatio,
    elongation: piece.elongation,
    thickness: piece.thickness,
    merged: piece.merged,
    farFraction: piece.far / H,
    collarSpread: piece.collarSpread,
    misweighted: f.misweighted,
    length: 0,
    segments: 0,
    joints: [],
    rigidBone: '',
    boneDistanceBefore: bd,
    boneDistanceAfter: bd,
  };
}
