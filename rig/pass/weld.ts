/**
 * Weld phase of the rig pass: the skin's vertices welded by position (within weldFraction · H)
 * into one graph of faces, and the tail chains the skin already has (found by name before
 * anything is grown here).
 */
import { weldGraph } from '../weld';
import { existingTailChains } from './existing';
import type { SkinStart, Welded } from './types';

/** Weld the skin and list its existing tail chains. */
export function weldPhase(s: SkinStart): Welded {
  const { skel, mesh, label } = s.work;
  const existing = existingTailChains(skel, s.o.leafStubFraction);
  const existingReports = existing.map((c) => ({ skin: label, joints: c.names, parent: c.parent >= 0 ? skel.names[c.parent]! : '', changedVertexCount: 0 }));
  const graph = weldGraph(mesh.positions, mesh.triangles, s.o.weldFraction * s.H);
  return { ...s, graph, existing, existingReports };
}
