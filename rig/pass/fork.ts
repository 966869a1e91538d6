/**
 * [ours] Twin and forked tails: two tails from one root (or a tail that forks) share one
 * re-weighting domain and one geodesic coordinate from the ring where they leave the body.
 * Cut at a coordinate s, the skin beyond s is one connected piece for one tail and two (or
 * more) for a fork. The lowest cut (in steps of L / {@link FORK_BANDS}) where at least two
 * such pieces each reach {@link FORK_MIN_REACH} × minReach · H beyond the cut, with at least
 * minPieceVertices vertices, splits the domain: each piece is a branch, and the skin before
 * the cut goes to the branch it reaches first over the skin (a multi-source breadth-first
 * walk). Shells closer than the float gap count as connected, so an unwelded shell of one
 * tail (fur over skin, a tip in another material) never looks like a second tail.
 */
import type { PointGrid, WeldGraph } from '../weld';
import { gridNeighbours } from '../weld';

/** Cuts tried along the tail's length. */
export const FORK_BANDS = 20;
/** The cross-section compared just beyond a cut is this many bands wide. */
export const FORK_WINDOW = 2;
/** Each twin has at least this many vertices in that cross-section. */
export const FORK_MIN_BAND = 3;
/** Twins' far ends are at least this × farther apart than their cross-sections at the cut. */
export const FORK_DIVERGE = 1.5;
/** A branch reaches at least this × minReach · H beyond the cut. */
export const FORK_MIN_REACH = 0.5;

/** Branches of a domain: the coordinate of the cut and, per welded id of the domain, its branch. */
export interface Branches {
  /** Coordinate of the cut, model units. */
  cut: number;
  /** Number of branches (≥ 2). */
  count: number;
  /** Branch per welded id (−1 outside the domain). */
  branchOf: Int32Array;
}

/**
 * Split a tail's domain into branches, or null when it is one tail. `ahead` are the domain's
 * ids with a coordinate measured from the ring, `coord` that coordinate, `L` the length,
 * `minReach` the reach a branch needs beyond the cut (model units), `minVertices` its size.
 *
 * @example
 * const b = splitBranches(graph, domain, ahead, coord, L, grid, gap, 0.5 * o.minReach * H, o.minPieceVertices);
 */
export function splitBranches(
  graph: WeldGraph,
  domain: readonly number[],
  ahead: readonly number[],
  coord: Float64Array,
  L: number,
  grid: PointGrid,
  gap: number,
  minReach: number,
  minVertices: number,
): Branches | null {
  const comp = new Int32Array(graph.count).fill(-1);
  for (let b = 1; b < FORK_BANDS; b++) {
    const cut = (b * L) / FORK_BANDS;
    comp.fill(-1);
    const inCut = new Uint8Array(graph.count);
    for (const v of ahead) if (coord[v]! >= cut) inCut[v] = 1;
    const kept: number[][] = [];
    let n = 0;
    for (const v of ahead) {
      if (!inCut[v] || comp[v]! >= 0) continue;
      const members = flood(graph, inCut, comp, v, n++, grid, gap);
      let top = -Infinity;
      for (const m of members) top = Math.max(top, coord[m]!);
      if (members.length >= minVertices && top - cut >= minReach) kept.push(members);
    }
    const twins = sideBySide(graph.positions, kept, coord, cut, (FORK_WINDOW * L) / FORK_BANDS);
    if (twins.length < 2) continue;
    const branchOf = new Int32Array(graph.count).fill(-1);
    twins.forEach((members, k) => {
      for (const m of members) branchOf[m] = k;
    });
    assignRest(graph, domain, branchOf, grid, gap);
    return { cut, count: twins.length, branchOf };
  }
  return null;
}

/**
 * The pieces beyond a cut that lie side by side (two tails), largest first: each has at least
 * {@link FORK_MIN_BAND} vertices within `window` of the cut, and the centroids of those
 * cross-sections are farther apart than either's RMS radius, and their far ends farther still
 * ({@link FORK_DIVERGE} × that). A piece that starts farther
 * along (a tip shell after a gap) or lies around another (fur over skin) is not a twin.
 */
function sideBySide(P: Float64Array, pieces: number[][], coord: Float64Array, cut: number, window: number): number[][] {
  const sections = pieces.map((members) => {
    const ids = members.filter((v) => coord[v]! < cut + window);
    const c = [0, 0, 0];
    for (const v of ids) for (let k = 0; k < 3; k++) c[k]! += P[3 * v + k]! / ids.length;
    let r = 0;
    for (const v of ids) r += (P[3 * v]! - c[0]!) ** 2 + (P[3 * v + 1]! - c[1]!) ** 2 + (P[3 * v + 2]! - c[2]!) ** 2;
    // The far end: its last fifth along the coordinate.
    let top = -Infinity;
    for (const v of members) top = Math.max(top, coord[v]!);
    const end = members.filter((v) => coord[v]! >= cut + 0.8 * (top - cut));
    const t = [0, 0, 0];
    for (const v of end) for (let k = 0; k < 3; k++) t[k]! += P[3 * v + k]! / end.length;
    return { members, ok: ids.length >= FORK_MIN_BAND, c, t, r: Math.sqrt(r / Math.max(1, ids.length)) };
  }).filter((x) => x.ok).sort((a, b) => b.members.length - a.members.length);
  const dist = (a: number[], b: number[]): number => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
  const chosen: typeof sections = [];
  for (const x of sections) {
    // Apart at the cut, and farther apart at their ends: they diverge.
    if (chosen.every((y) => dist(x.c, y.c) > Math.max(x.r, y.r) && dist(x.t, y.t) >= FORK_DIVERGE * dist(x.c, y.c))) chosen.push(x);
  }
  return chosen.map((x) => x.members);
}

/** Connected ids of `inSet` from `start` over edges and the float gap, labelled `label`. */
function flood(graph: WeldGraph, inSet: Uint8Array, comp: Int32Array, start: number, label: number, grid: PointGrid, gap: number): number[] {
  const out = [start];
  comp[start] = label;
  const visit = (b: number): void => {
    if (!inSet[b] || comp[b]! >= 0) return;
    comp[b] = label;
    out.push(b);
  };
  for (let i = 0; i < out.length; i++) {
    const a = out[i]!;
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) visit(graph.adj[e]!);
    if (gap > 0) gridNeighbours(grid, a, gap, visit);
  }
  return out;
}

/** Give every domain id without a branch the branch it reaches first (breadth first over edges and the gap); any left unreached go to branch 0. */
function assignRest(graph: WeldGraph, domain: readonly number[], branchOf: Int32Array, grid: PointGrid, gap: number): void {
  const inDomain = new Uint8Array(graph.count);
  for (const v of domain) inDomain[v] = 1;
  const queue: number[] = [];
  for (const v of domain) if (branchOf[v]! >= 0) queue.push(v);
  for (let i = 0; i < queue.length; i++) {
    const a = queue[i]!;
    const visit = (b: number): void => {
      if (!inDomain[b] || branchOf[b]! >= 0) return;
      branchOf[b] = branchOf[a]!;
      queue.push(b);
    };
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) visit(graph.adj[e]!);
    if (gap > 0) gridNeighbours(grid, a, gap, visit);
  }
  for (const v of domain) if (branchOf[v]! < 0) branchOf[v] = 0;
}
