/**
 * Distance-field phase of the rig pass: per welded vertex, the skeleton distance (to the
 * nearest weighted bone or the pelvis), how far it is driven from (weighted bone distance
 * minus skeleton distance, computed on demand), and its share of the surface area.
 */
import type { Piece } from '../detect';
import { boneSegments, jointBones, skeletonDistance, vertexBoneDistance } from '../distance';
import type { Field, Welded } from './types';

/** Build the distance field of a welded skin. */
export function distancePhase(s: Welded): Field {
  const { skel, mesh } = s.work;
  const { graph, existing, o } = s;
  const include = Uint8Array.from(skel.weighted);
  if (skel.pelvis >= 0) include[skel.pelvis] = 1;
  const segs = boneSegments(skel, include, o.leafStubFraction);
  // Nearest-bone field with every existing chain bone in it (weighted or not).
  const chainOfJoint = new Int32Array(skel.names.length).fill(-1);
  existing.forEach((c, ci) => {
    for (const b of c.bones) chainOfJoint[b] = ci;
  });
  let nearSegs: Field['nearSegs'] = null;
  if (existing.length > 0) {
    const nearInclude = Uint8Array.from(include);
    for (const c of existing) for (const b of c.bones) nearInclude[b] = 1;
    nearSegs = boneSegments(skel, nearInclude, o.leafStubFraction);
  }
  const dist = new Float64Array(graph.count);
  skeletonDistance(segs, graph.positions, dist, null);
  const { vertexArea, totalArea } = areaPerVertex(s);
  return {
    ...s,
    include,
    segs,
    nearSegs,
    chainOfJoint,
    dist,
    // Bones of the original skeleton, for the weighted bone distance and re-weighting.
    bonesBefore: jointBones(skel, o.leafStubFraction),
    originalJoints: Uint16Array.from(mesh.joints),
    originalWeights: Float32Array.from(mesh.weights),
    drivenFrom: new Float64Array(graph.count).fill(NaN),
    margin: o.absorbMisweighted ? o.absorbMargin * s.H : Infinity,
    vertexArea,
    // Against every skin of the skeleton (this one included), not this skin alone.
    areaTotal: Math.max(totalArea, s.skeletonArea),
  };
}

/** Surface area per welded vertex (a third of each triangle's), and the skin's total. */
function areaPerVertex(s: Welded): { vertexArea: Float64Array; totalArea: number } {
  const { mesh } = s.work;
  const { graph } = s;
  const vertexArea = new Float64Array(graph.count);
  let totalArea = 0;
  const P = mesh.positions;
  const T = mesh.triangles;
  for (let t = 0; t < T.length; t += 3) {
    const i = 3 * T[t]!, j = 3 * T[t + 1]!, k = 3 * T[t + 2]!;
    const ux = P[j]! - P[i]!, uy = P[j + 1]! - P[i + 1]!, uz = P[j + 2]! - P[i + 2]!;
    const vx = P[k]! - P[i]!, vy = P[k + 1]! - P[i + 1]!, vz = P[k + 2]! - P[i + 2]!;
    const third = Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx) / 6;
    if (!Number.isFinite(third)) continue;
    totalArea += 3 * third;
    vertexArea[graph.weldOf[T[t]!]!]! += third;
    vertexArea[graph.weldOf[T[t + 1]!]!]! += third;
    vertexArea[graph.weldOf[T[t + 2]!]!]! += third;
  }
  return { vertexArea, totalArea };
}

/** How far welded vertex `b` is driven from: its weighted bone distance (the max over its original vertices) minus its skeleton distance. Cached. */
export function excessOf(f: Field, b: number): number {
  if (Number.isNaN(f.drivenFrom[b]!)) {
    const { mesh } = f.work;
    const P = f.graph.positions;
    let wbd = 0;
    for (let m = f.graph.membersStart[b]!; m < f.graph.membersStart[b + 1]!; m++) {
      const v = f.graph.members[m]!;
      wbd = Math.max(wbd, vertexBoneDistance(f.bonesBefore, f.originalJoints, f.originalWeights, mesh.slots * v, mesh.slots, P[3 * b]!, P[3 * b + 1]!, P[3 * b + 2]!));
    }
    f.drivenFrom[b] = wbd - f.dist[b]!;
  }
  return f.drivenFrom[b]!;
}

/** Fraction of a piece's vertices driven from farther than the margin. */
export function misweightedOf(f: Field, p: Piece): number {
  let c = 0;
  for (const v of p.vertices) if (excessOf(f, v) > f.margin) c++;
  return p.vertices.length ? c / p.vertices.length : 0;
}

/** A piece's share of the surface area of its skeleton's skins. */
export function areaShareOf(f: Field, p: Piece): number {
  let a = 0;
  for (const v of p.vertices) a += f.vertexArea[v]!;
  return f.areaTotal > 0 ? a / f.areaTotal : 0;
}
