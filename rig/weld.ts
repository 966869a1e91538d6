/**
 * Weld by position and the welded face graph. Exporters split vertices at UV and
 * hard-normal seams; connectivity must run on positions, not on the raw index buffer.
 * Positions are quantised to a cell (`tolerance`) and hashed in an open-addressing table
 * (typed arrays, no string keys). The graph is CSR adjacency over welded ids, both
 * directions, duplicates kept (harmless for BFS and Dijkstra). Browser-safe.
 */

/** Welded vertices and their edge graph. */
export interface WeldGraph {
  /** Welded vertex count. */
  count: number;
  /** Welded id of every original vertex. */
  weldOf: Int32Array;
  /** Positions of welded vertices (the first original vertex's), 3 each. */
  positions: Float64Array;
  /** CSR offsets (count + 1). */
  adjStart: Int32Array;
  /** CSR neighbours. */
  adj: Int32Array;
  /** Edge lengths parallel to `adj`. */
  adjLen: Float64Array;
  /** Original vertices of each welded vertex: CSR offsets (count + 1). */
  membersStart: Int32Array;
  /** Original vertex indices grouped by welded id. */
  members: Int32Array;
}

/** Mix three integers (murmur3-style finaliser: the low bits depend on every input bit). */
function hash3(x: number, y: number, z: number): number {
  let h = Math.imul((x | 0) ^ ((x / 4294967296) | 0), 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15) ^ ((y | 0) ^ ((y / 4294967296) | 0)), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ ((z | 0) ^ ((z / 4294967296) | 0)), 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Weld `positions` (3 per vertex) with cell size `tolerance` and build the welded edge graph
 * of `triangles`.
 *
 * @example
 * const g = weldGraph(mesh.positions, mesh.triangles, 1e-5 * height);
 */
export function weldGraph(positions: Float64Array, triangles: Uint32Array, tolerance: number): WeldGraph {
  const n = positions.length / 3;
  const inv = 1 / tolerance;
  let cap = 1;
  while (cap < n * 2) cap <<= 1;
  const table = new Int32Array(cap).fill(-1);
  const qx = new Float64Array(n);
  const qy = new Float64Array(n);
  const qz = new Float64Array(n);
  const weldOf = new Int32Array(n);
  const rep: number[] = [];
  const mask = cap - 1;
  for (let i = 0; i < n; i++) {
    const x = Math.round(positions[3 * i]! * inv);
    const y = Math.round(positions[3 * i + 1]! * inv);
    const z = Math.round(positions[3 * i + 2]! * inv);
    qx[i] = x;
    qy[i] = y;
    qz[i] = z;
    let h = hash3(x, y, z) & mask;
    for (;;) {
      const slot = table[h]!;
      if (slot < 0) {
        table[h] = rep.length;
        weldOf[i] = rep.length;
        rep.push(i);
        break;
      }
      const r = rep[slot]!;
      if (qx[r] === x && qy[r] === y && qz[r] === z) {
        weldOf[i] = slot;
        break;
      }
      h = (h + 1) & mask;
    }
  }
  const count = rep.length;
  const wpos = new Float64Array(3 * count);
  for (let w = 0; w < count; w++) {
    const r = rep[w]!;
    wpos[3 * w] = positions[3 * r]!;
    wpos[3 * w + 1] = positions[3 * r + 1]!;
    wpos[3 * w + 2] = positions[3 * r + 2]!;
  }
  // Members CSR.
  const membersStart = new Int32Array(count + 1);
  for (let i = 0; i < n; i++) membersStart[weldOf[i]! + 1]!++;
  for (let w = 0; w < count; w++) membersStart[w + 1]! += membersStart[w]!;
  const fill = membersStart.slice(0, count);
  const members = new Int32Array(n);
  for (let i = 0; i < n; i++) members[fill[weldOf[i]!]!++] = i;
  // Edge graph.
  const deg = new Int32Array(count + 1);
  const t = triangles.length;
  for (let k = 0; k < t; k += 3) {
    const a = weldOf[triangles[k]!]!, b = weldOf[triangles[k + 1]!]!, c = weldOf[triangles[k + 2]!]!;
    if (a !== b) { deg[a + 1]!++; deg[b + 1]!++; }
    if (b !== c) { deg[b + 1]!++; deg[c + 1]!++; }
    if (c !== a) { deg[c + 1]!++; deg[a + 1]!++; }
  }
  for (let w = 0; w < count; w++) deg[w + 1]! += deg[w]!;
  const adjStart = deg;
  const adj = new Int32Array(adjStart[count]!);
  const cur = adjStart.slice(0, count);
  const add = (a: number, b: number): void => {
    adj[cur[a]!++] = b;
    adj[cur[b]!++] = a;
  };
  for (let k = 0; k < t; k += 3) {
    const a = weldOf[triangles[k]!]!, b = weldOf[triangles[k + 1]!]!, c = weldOf[triangles[k + 2]!]!;
    if (a !== b) add(a, b);
    if (b !== c) add(b, c);
    if (c !== a) add(c, a);
  }
  const adjLen = new Float64Array(adj.length);
  for (let a = 0; a < count; a++) {
    for (let e = adjStart[a]!; e < adjStart[a + 1]!; e++) {
      const b = adj[e]!;
      const dx = wpos[3 * a]! - wpos[3 * b]!, dy = wpos[3 * a + 1]! - wpos[3 * b + 1]!, dz = wpos[3 * a + 2]! - wpos[3 * b + 2]!;
      adjLen[e] = Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  return { count, weldOf, positions: wpos, adjStart, adj, adjLen, membersStart, members };
}

/** A uniform grid over points for radius queries (setup-time helper). */
export interface PointGrid {
  /** Cell size. */
  cell: number;
  /** Cell key → point indices. */
  cells: Map<number, number[]>;
  /** Points, 3 each. */
  positions: Float64Array;
}

function cellKey(x: number, y: number, z: number): number {
  // 21 bits per axis (offset), enough for any mesh at a sensible cell size.
  return ((x + 1048576) * 2097152 + (y + 1048576)) * 2097152 + (z + 1048576);
}

/**
 * Bucket points into a grid of `cell`-sized cubes.
 *
 * @example
 * const grid = pointGrid(graph.positions, 0.01 * H);
 */
export function pointGrid(positions: Float64Array, cell: number): PointGrid {
  const cells = new Map<number, number[]>();
  const n = positions.length / 3;
  for (let i = 0; i < n; i++) {
    const k = cellKey(Math.floor(positions[3 * i]! / cell), Math.floor(positions[3 * i + 1]! / cell), Math.floor(positions[3 * i + 2]! / cell));
    let c = cells.get(k);
    if (!c) cells.set(k, (c = []));
    c.push(i);
  }
  return { cell, cells, positions };
}

/**
 * Call `visit(j)` for every point within `radius` (≤ the grid's cell) of point `i`, except `i`.
 *
 * @example
 * gridNeighbours(grid, v, 0.01 * H, (j) => near.push(j));
 */
export function gridNeighbours(grid: PointGrid, i: number, radius: number, visit: (j: number) => void): void {
  const P = grid.positions;
  const x = P[3 * i]!, y = P[3 * i + 1]!, z = P[3 * i + 2]!;
  const cx = Math.floor(x / grid.cell), cy = Math.floor(y / grid.cell), cz = Math.floor(z / grid.cell);
  const r2 = radius * radius;
  for (let dx = -1; dx <= 1; dx++) {
    for (let dy = -1; dy <= 1; dy++) {
      for (let dz = -1; dz <= 1; dz++) {
        const c = grid.cells.get(cellKey(cx + dx, cy + dy, cz + dz));
        if (!c) continue;
        for (const j of c) {
          if (j === i) continue;
          const ex = P[3 * j]! - x, ey = P[3 * j + 1]! - y, ez = P[3 * j + 2]! - z;
          if (ex * ex + ey * ey + ez * ez <= r2) visit(j);
        }
      }
    }
  }
}
