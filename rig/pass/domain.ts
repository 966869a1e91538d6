/**
 * Re-weighting domains of the rig pass: the skin a piece takes with it (its far vertices and
 * the connected skin driven from far away), whether two domains touch, and the original
 * vertices behind welded ids.
 */
import type { Piece } from '../detect';
import type { PointGrid, WeldGraph } from '../weld';
import { gridNeighbours } from '../weld';

/** Original vertex indices of a set of welded ids. */
export function membersOf(graph: WeldGraph, welded: ArrayLike<number>): Int32Array {
  let n = 0;
  for (let i = 0; i < welded.length; i++) n += graph.membersStart[welded[i]! + 1]! - graph.membersStart[welded[i]!]!;
  const out = new Int32Array(n);
  let o = 0;
  for (let i = 0; i < welded.length; i++) {
    const w = welded[i]!;
    for (let e = graph.membersStart[w]!; e < graph.membersStart[w + 1]!; e++) out[o++] = graph.members[e]!;
  }
  return out;
}

/**
 * The re-weighting domain of a piece: its far vertices plus the skin connected to them that
 * is driven from far away ([ours]: weighted bone distance exceeds the vertex's own skeleton
 * distance by more than `margin` — a tail's root ring, or its whole shell, handed to
 * a shin). Correctly weighted skin, even fat far from its bone, is driven by the bone it is
 * near and stops the growth. Growth crosses from shell to shell where they touch (within
 * `gap`). Vertices in `taken` are skipped.
 */
export function domainOf(
  graph: WeldGraph,
  piece: Piece,
  excess: (v: number) => number,
  margin: number,
  taken: Uint8Array | null,
  grid: PointGrid,
  gap: number,
): number[] {
  const inDomain = new Uint8Array(graph.count);
  const domain: number[] = [];
  for (const v of piece.vertices) {
    if (taken && taken[v]) continue;
    inDomain[v] = 1;
    domain.push(v);
  }
  const queue = domain.slice();
  const tested = new Uint8Array(graph.count);
  const test = (b: number): void => {
    if (inDomain[b] || tested[b] || (taken && taken[b])) return;
    tested[b] = 1;
    if (excess(b) > margin) {
      inDomain[b] = 1;
      domain.push(b);
      queue.push(b);
    }
  };
  while (queue.length > 0) {
    const a = queue.pop()!;
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) test(graph.adj[e]!);
    // Shells never welded to this one (a tail root's underside in another material) touch it.
    if (gap > 0) gridNeighbours(grid, a, gap, test);
  }
  return domain;
}

/**
 * Do two domains share a vertex or an edge, or come within `gap` of each other (shells of
 * one tail that were never welded: fur over skin, a tip in another material)?
 */
export function touches(graph: WeldGraph, a: readonly number[], b: readonly number[], gap: number): boolean {
  const inA = new Uint8Array(graph.count);
  for (const v of a) inA[v] = 1;
  for (const v of b) {
    if (inA[v]) return true;
    for (let e = graph.adjStart[v]!; e < graph.adjStart[v + 1]!; e++) if (inA[graph.adj[e]!]) return true;
  }
  const P = graph.positions;
  const g2 = gap * gap;
  for (const u of a) {
    const x = P[3 * u]!, y = P[3 * u + 1]!, z = P[3 * u + 2]!;
    for (const v of b) {
      const dx = P[3 * v]! - x, dy = P[3 * v + 1]! - y, dz = P[3 * v + 2]! - z;
      if (dx * dx + dy * dy + dz * dz <= g2) return true;
    }
  }
  return false;
}

