/**
 * Re-weight phase of the rig pass: rump skin keeps the body's own weights
 * ({@link keepBodyWeights}), then the listed influences are written into the skin's
 * JOINTS/WEIGHTS (only the vertices that changed), each changed piece's weighted bone distance
 * is measured after, and the reports are ordered (chains, existing chains, rigid, left alone;
 * larger first).
 */
import { boneDistance, jointBones, weightedBoneDistance } from '../distance';
import type { VertexInfluence } from '../meshData';
import { writeInfluences } from '../meshData';
import type { AppendageReport, Grown, SkinResult } from './types';

/** [ours] A bone drives a vertex from near when its distance exceeds the vertex's skeleton distance by at most this × the absorb margin. */
export const NEAR_BONE_MARGIN = 1.5;
/** [ours] Rump skin with at least this share of its old weight on bones near it is the body's own: it keeps that share. */
export const BODY_NEAR_SHARE = 0.5;

/** Write the new weights and finish the reports. */
export function reweightPhase(g: Grown): SkinResult {
  const { skel, mesh } = g.work;
  if (Number.isFinite(g.margin)) {
    for (let i = 0; i < g.influences.length; i++) {
      const inf = g.influences[i]!;
      if (g.rump[g.graph.weldOf[inf.vertex]!]) g.influences[i] = keepBodyWeights(g, inf);
    }
  }
  writeInfluences(mesh, g.influences);
  if (g.pending.length > 0) {
    const bonesAfter = jointBones(skel, g.o.leafStubFraction);
    for (const p of g.pending) {
      p.report.boneDistanceAfter = weightedBoneDistance(bonesAfter, mesh.positions, mesh.joints, mesh.weights, mesh.slots, p.changed);
    }
  }
  const rank = (r: AppendageReport): number => (r.verdict === 'chain' ? 0 : r.verdict === 'existing-chain' ? 1 : r.verdict === 'rigid' ? 2 : 3);
  const all = [...g.pending.map((p) => p.report), ...g.reports].sort((a, b) => rank(a) - rank(b) || b.vertexCount - a.vertexCount);
  return { reports: all, chains: g.chains, changed: g.influences.length, existing: g.existingReports };
}

/**
 * [ours] Rump skin before a tail's base keeps the body's own weights. A tail's domain spills
 * over the rump the rigger handed over with it, and that skin is mostly the body's (a thigh's
 * back, weighted to the thigh by the artist): re-weighting all of it onto the pelvis and
 * Tail_1 tears the seam to the thigh skin beside it. A rump vertex with at least
 * {@link BODY_NEAR_SHARE} of its old weight on bones near it (each within
 * {@link NEAR_BONE_MARGIN} × the margin of its skeleton distance) keeps that share of its old
 * weights, and the rest (the weight driving it from far away) goes onto the pelvis: body skin
 * does not follow the tail. A vertex driven mostly from far away (the tail's own root skin)
 * takes the new influences whole.
 * Returns the influences to write (up to 4, summing to 1).
 */
export function keepBodyWeights(g: Grown, inf: VertexInfluence): VertexInfluence {
  const { mesh } = g.work;
  const v = inf.vertex;
  const P = g.work.mesh.positions;
  const x = P[3 * v]!, y = P[3 * v + 1]!, z = P[3 * v + 2]!;
  const reach = g.dist[g.graph.weldOf[v]!]! + NEAR_BONE_MARGIN * g.margin;
  let sum = 0;
  for (let k = 0; k < mesh.slots; k++) sum += Math.max(0, g.originalWeights[mesh.slots * v + k]!);
  if (!(sum > 0)) return inf;
  const acc = new Map<number, number>();
  let near = 0;
  for (let k = 0; k < mesh.slots; k++) {
    const w = Math.max(0, g.originalWeights[mesh.slots * v + k]!) / sum;
    const j = g.originalJoints[mesh.slots * v + k]!;
    if (w > 0 && boneDistance(g.bonesBefore, j, x, y, z) <= reach) {
      near += w;
      acc.set(j, (acc.get(j) ?? 0) + w);
    }
  }
  if (near < BODY_NEAR_SHARE) return inf;
  const pelvis = g.work.skel.pelvis;
  acc.set(pelvis, (acc.get(pelvis) ?? 0) + (1 - near));
  const top = [...acc.entries()].filter((e) => e[1] > 0).sort((a, b) => b[1] - a[1]).slice(0, 4);
  const total = top.reduce((a, e) => a + e[1], 0);
  return { vertex: v, joints: top.map((e) => e[0]), weights: top.map((e) => e[1] / total) };
}
