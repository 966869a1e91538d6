/**
 * Re-weight phase of the rig pass: write the listed influences into the skin's JOINTS/WEIGHTS
 * (only the vertices that changed), measure each changed piece's weighted bone distance after,
 * and order the reports (chains, existing chains, rigid, left alone; larger first).
 */
import { jointBones, weightedBoneDistance } from '../distance';
import { writeInfluences } from '../meshData';
import type { AppendageReport, Grown, SkinResult } from './types';

/** Write the new weights and finish the reports. */
export function reweightPhase(g: Grown): SkinResult {
  const { skel, mesh } = g.work;
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
