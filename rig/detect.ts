/**
 * Appendage detection: far skin → pieces over the welded faces → collar →
 * attachment by nearest joint with the torso/thigh bias → centroid and elongation tests →
 * merge of overlapping shells. Works on welded ids, bind space, model units.
 * Browser-safe; setup-time code (allocates).
 */
import type { BoneSegments } from './distance';
import { skeletonDistance } from './distance';
import type { WeldGraph } from './weld';
import { REGION_PELVIS, REGION_SPINE } from './skeleton';

/** A connected piece of far skin. */
export interface Piece {
  /** Welded ids of the piece's far vertices. */
  vertices: Int32Array;
  /** Welded ids of the collar: non-far vertices adjacent to the piece. */
  collar: Int32Array;
  /** Collar centroid (J0), bind space. */
  collarCentroid: Float64Array;
  /** Nearest candidate joint to the collar centroid. */
  nearestJoint: number;
  /** Attachment joint after the torso/thigh bias. */
  attachment: number;
  /** Max distance from the collar centroid to a piece vertex. */
  reach: number;
  /** Piece centroid, bind space. */
  centroid: Float64Array;
  /** Skeleton distance of the centroid divided by the reach. */
  centroidRatio: number;
  /** sqrt(λ1/λ2) of the piece's covariance. */
  elongation: number;
  /** sqrt(λ3/λ2) of the piece's covariance: about 0 for a thin sheet (cape), up to 1 for a round volume (a body's shell). */
  thickness: number;
  /** Unit eigenvector of λ1 (the piece's long axis, sign arbitrary), bind space; any unit vector when λ1 = λ2. */
  axis: Float64Array;
  /** Bounding box min and max, 3 each. */
  bmin: Float64Array;
  /** Bounding box max. */
  bmax: Float64Array;
  /** How many raw pieces were merged into this one (1 = none). */
  merged: number;
  /** RMS distance of the collar from its centroid divided by the reach (a tail's root ring is small; the hem of a skirt is long). */
  collarSpread: number;
  /** True when no non-far skin touches the piece (a shell floating in far space). */
  floating: boolean;
  /** Far threshold the piece was found at (model units). */
  far: number;
}

/** Inputs of {@link findPieces}. */
export interface DetectInput {
  /** Welded graph. */
  graph: WeldGraph;
  /** Skeleton distance per welded vertex. */
  distance: Float64Array;
  /** Far threshold (model units). */
  far: number;
  /** Floating shells within this distance of another piece join it (model units). */
  floatGap: number;
  /** Distance-field segments (for the centroid test). */
  segs: BoneSegments;
  /** Joint positions, 3 each. */
  jointPositions: Float64Array;
  /** 1 for joints that may be an attachment (weighted joints and the pelvis). */
  candidate: Uint8Array;
  /** Region per joint (see skeleton.ts). */
  regions: Uint8Array;
  /** Attachment bias factor (1.5). */
  attachBias: number;
  /** Merge overlap fraction (0.5). */
  mergeOverlap: number;
  /** Model height (fallback collar band). */
  height: number;
}

function find(parent: Int32Array, a: number): number {
  while (parent[a] !== a) {
    parent[a] = parent[parent[a]!]!;
    a = parent[a]!;
  }
  return a;
}

/**
 * Find, describe and merge the far pieces: connected components of vertices with skeleton
 * distance above `input.far` over the welded faces, restricted to `subset` when given (the
 * raised-threshold search inside a fat piece).
 *
 * @example
 * const pieces = findPieces({ graph, distance, far: 0.07 * H, floatGap: 0.07 * H, segs, jointPositions, candidate, regions, attachBias: 1.5, mergeOverlap: 0.5, height: H }, null);
 */
export function findPieces(input: DetectInput, subset: Int32Array | null): Piece[] {
  const { graph, distance, far } = input;
  const n = graph.count;
  const isFar = new Uint8Array(n);
  if (subset) {
    for (const v of subset) isFar[v] = distance[v]! > far ? 1 : 0;
  } else {
    for (let i = 0; i < n; i++) isFar[i] = distance[i]! > far ? 1 : 0;
  }
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const visit = subset ?? null;
  const count = visit ? visit.length : n;
  for (let t = 0; t < count; t++) {
    const a = visit ? visit[t]! : t;
    if (!isFar[a]) continue;
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) {
      const b = graph.adj[e]!;
      if (b !== a && isFar[b]) {
        const ra = find(parent, a), rb = find(parent, b);
        if (ra !== rb) parent[ra] = rb;
      }
    }
  }
  const groups = new Map<number, number[]>();
  for (let t = 0; t < count; t++) {
    const i = visit ? visit[t]! : t;
    if (!isFar[i]) continue;
    const r = find(parent, i);
    let g = groups.get(r);
    if (!g) groups.set(r, (g = []));
    g.push(i);
  }
  // A vertex outside the subset is never far here, but its skeleton distance may be: the
  // collar test must use the threshold, not the subset.
  const farAtLevel = new Uint8Array(n);
  for (let i = 0; i < n; i++) farAtLevel[i] = distance[i]! > far ? 1 : 0;
  const raw: Piece[] = [];
  for (const verts of groups.values()) raw.push(describe(input, Int32Array.from(verts), farAtLevel, 1));
  return mergePieces(input, raw, farAtLevel);
}

function collarOf(input: DetectInput, verts: Int32Array, isFar: Uint8Array): { collar: Int32Array; floating: boolean } {
  const { graph } = input;
  const seen = new Set<number>();
  for (const a of verts) {
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) {
      const b = graph.adj[e]!;
      if (!isFar[b]) seen.add(b);
    }
  }
  if (seen.size > 0) return { collar: Int32Array.from(seen), floating: false };
  // A shell floating entirely in far space: its vertices nearest the skeleton stand in.
  let dmin = Infinity;
  for (const a of verts) dmin = Math.min(dmin, input.distance[a]!);
  const band = dmin + 0.02 * input.height;
  const out: number[] = [];
  for (const a of verts) if (input.distance[a]! <= band) out.push(a);
  return { collar: Int32Array.from(out), floating: true };
}

function describe(input: DetectInput, verts: Int32Array, isFar: Uint8Array, merged: number): Piece {
  const P = input.graph.positions;
  const { collar, floating } = collarOf(input, verts, isFar);
  const c0 = new Float64Array(3);
  for (const a of collar) {
    c0[0]! += P[3 * a]!;
    c0[1]! += P[3 * a + 1]!;
    c0[2]! += P[3 * a + 2]!;
  }
  for (let k = 0; k < 3; k++) c0[k]! /= Math.max(1, collar.length);
  let spread2 = 0;
  for (const a of collar) spread2 += (P[3 * a]! - c0[0]!) ** 2 + (P[3 * a + 1]! - c0[1]!) ** 2 + (P[3 * a + 2]! - c0[2]!) ** 2;
  const spread = Math.sqrt(spread2 / Math.max(1, collar.length));
  // Attachment: nearest candidate joint, then the torso/thigh bias.
  const J = input.jointPositions;
  const nj = J.length / 3;
  let nearest = -1;
  let dn = Infinity;
  const dj = new Float64Array(nj);
  for (let j = 0; j < nj; j++) {
    dj[j] = Math.hypot(J[3 * j]! - c0[0]!, J[3 * j + 1]! - c0[1]!, J[3 * j + 2]! - c0[2]!);
    if (input.candidate[j] && dj[j]! < dn) {
      dn = dj[j]!;
      nearest = j;
    }
  }
  let attachment = nearest;
  if (nearest >= 0) {
    const r = input.regions[nearest]!;
    if (r !== REGION_PELVIS && r !== REGION_SPINE) {
      let best = -1;
      let bd = Infinity;
      for (let j = 0; j < nj; j++) {
        if (!input.candidate[j]) continue;
        const rj = input.regions[j]!;
        if ((rj === REGION_PELVIS || rj === REGION_SPINE) && dj[j]! <= input.attachBias * dn && dj[j]! < bd) {
          bd = dj[j]!;
          best = j;
        }
      }
      if (best >= 0) attachment = best;
    }
  }
  // Centroid, bbox, covariance, reach.
  const cen = new Float64Array(3);
  const bmin = new Float64Array([Infinity, Infinity, Infinity]);
  const bmax = new Float64Array([-Infinity, -Infinity, -Infinity]);
  let reach = 0;
  for (const a of verts) {
    for (let k = 0; k < 3; k++) {
      const v = P[3 * a + k]!;
      cen[k]! += v;
      if (v < bmin[k]!) bmin[k] = v;
      if (v > bmax[k]!) bmax[k] = v;
    }
    reach = Math.max(reach, Math.hypot(P[3 * a]! - c0[0]!, P[3 * a + 1]! - c0[1]!, P[3 * a + 2]! - c0[2]!));
  }
  const m = Math.max(1, verts.length);
  for (let k = 0; k < 3; k++) cen[k]! /= m;
  let cxx = 0, cxy = 0, cxz = 0, cyy = 0, cyz = 0, czz = 0;
  for (const a of verts) {
    const x = P[3 * a]! - cen[0]!, y = P[3 * a + 1]! - cen[1]!, z = P[3 * a + 2]! - cen[2]!;
    cxx += x * x; cxy += x * y; cxz += x * z; cyy += y * y; cyz += y * z; czz += z * z;
  }
  const ev = symEigen3(cxx / m, cxy / m, cxz / m, cyy / m, cyz / m, czz / m);
  const l1 = ev[0]!, l2 = ev[1]!, l3 = Math.max(0, ev[2]!);
  const thickness = l2 > 1e-300 ? Math.min(1, Math.sqrt(l3 / l2)) : 0;
  const elongation = l2 > 1e-12 * Math.max(l1, 1e-300) ? Math.sqrt(l1 / l2) : l1 > 0 ? 1e3 : 1;
  const axis = principalAxis(cxx / m, cxy / m, cxz / m, cyy / m, cyz / m, czz / m, l1);
  const dc = new Float64Array(1);
  skeletonDistance(input.segs, cen, dc, null);
  const centroidRatio = reach > 0 ? dc[0]! / reach : 0;
  return {
    vertices: verts,
    collar,
    collarCentroid: c0,
    nearestJoint: nearest,
    attachment,
    reach,
    centroid: cen,
    centroidRatio,
    elongation: Math.min(elongation, 1e3),
    thickness,
    axis,
    bmin,
    bmax,
    merged,
    collarSpread: reach > 0 ? spread / reach : 0,
    floating,
    far: input.far,
  };
}

function overlapFraction(a: Piece, b: Piece, eps: number): number {
  let inter = 1;
  let va = 1;
  let vb = 1;
  for (let k = 0; k < 3; k++) {
    const lo = Math.max(a.bmin[k]!, b.bmin[k]!);
    const hi = Math.min(a.bmax[k]!, b.bmax[k]!);
    if (hi + eps < lo) return 0;
    inter *= Math.max(0, hi - lo) + eps;
    va *= a.bmax[k]! - a.bmin[k]! + eps;
    vb *= b.bmax[k]! - b.bmin[k]! + eps;
  }
  return inter / Math.max(va, vb);
}

function boxGap(a: Piece, b: Piece): number {
  let g2 = 0;
  for (let k = 0; k < 3; k++) {
    const d = Math.max(0, a.bmin[k]! - b.bmax[k]!, b.bmin[k]! - a.bmax[k]!);
    g2 += d * d;
  }
  return Math.sqrt(g2);
}

/** Smallest vertex-to-vertex distance between two pieces (brute force; pieces are small). */
function vertexGap(P: Float64Array, a: Piece, b: Piece, limit: number): number {
  let best = Infinity;
  for (const u of a.vertices) {
    const x = P[3 * u]!, y = P[3 * u + 1]!, z = P[3 * u + 2]!;
    for (const v of b.vertices) {
      const dx = P[3 * v]! - x, dy = P[3 * v + 1]! - y, dz = P[3 * v + 2]! - z;
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 < best) best = d2;
    }
    if (best <= limit * limit * 1e-4) break;
  }
  return Math.sqrt(best);
}

/**
 * Merge shells: pieces on the same attachment whose bounding boxes overlap by more
 * than `mergeOverlap` (of the larger box: fur over skin shares most of its box; a small piece
 * inside a long tail's box does not). [ours] A floating shell (no non-far skin touches it,
 * e.g. a tail tip modelled as its own shell) joins the nearest piece within `floatGap`: its
 * own "attachment" is meaningless without a collar.
 */
function mergePieces(input: DetectInput, raw: Piece[], isFar: Uint8Array): Piece[] {
  const n = raw.length;
  if (n < 2) return raw;
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const eps = 1e-6 * input.height;
  const unite = (i: number, j: number): void => {
    const ri = find(parent, i), rj = find(parent, j);
    if (ri !== rj) parent[ri] = rj;
  };
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (raw[i]!.floating || raw[j]!.floating) continue;
      if (raw[i]!.attachment !== raw[j]!.attachment) continue;
      if (overlapFraction(raw[i]!, raw[j]!, eps) > input.mergeOverlap) unite(i, j);
    }
  }
  const P = input.graph.positions;
  for (let i = 0; i < n; i++) {
    if (!raw[i]!.floating) continue;
    let best = -1;
    let bd = Infinity;
    for (let j = 0; j < n; j++) {
      if (j === i || raw[j]!.floating) continue;
      if (boxGap(raw[i]!, raw[j]!) > input.floatGap) continue;
      const d = vertexGap(P, raw[i]!, raw[j]!, input.floatGap);
      if (d < bd) {
        bd = d;
        best = j;
      }
    }
    if (best >= 0 && bd <= input.floatGap) unite(i, best);
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = find(parent, i);
    let g = groups.get(r);
    if (!g) groups.set(r, (g = []));
    g.push(i);
  }
  const out: Piece[] = [];
  for (const g of groups.values()) {
    if (g.length === 1) {
      out.push(raw[g[0]!]!);
      continue;
    }
    let total = 0;
    for (const i of g) total += raw[i]!.vertices.length;
    const verts = new Int32Array(total);
    let o = 0;
    let lead = -1;
    for (const i of g) {
      verts.set(raw[i]!.vertices, o);
      o += raw[i]!.vertices.length;
      if (!raw[i]!.floating && (lead < 0 || raw[i]!.vertices.length > raw[lead]!.vertices.length)) lead = i;
    }
    const p = describe(input, verts, isFar, g.length);
    // Keep the attachment of the largest collared member (the bias may pick differently on
    // the merged collar).
    if (lead >= 0) {
      p.attachment = raw[lead]!.attachment;
      p.nearestJoint = raw[lead]!.nearestJoint;
    }
    out.push(p);
  }
  return out;
}

/**
 * Unit eigenvector of the symmetric 3×3 matrix [[a b c] [b d e] [c e f]] for its eigenvalue
 * `l`: the largest cross product of two rows of (M − l·I). When every cross product vanishes
 * (a repeated eigenvalue: any direction in its plane will do) the row space's normal is
 * ill-defined and the first axis is returned.
 *
 * @example
 * principalAxis(4, 0, 0, 1, 0, 1, 4); // [1, 0, 0] (up to sign)
 */
export function principalAxis(a: number, b: number, c: number, d: number, e: number, f: number, l: number): Float64Array {
  const r0 = [a - l, b, c];
  const r1 = [b, d - l, e];
  const r2 = [c, e, f - l];
  const cross = (u: number[], v: number[]): number[] => [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
  let best = [1, 0, 0];
  let bn = 0;
  for (const x of [cross(r0, r1), cross(r0, r2), cross(r1, r2)]) {
    const n = Math.hypot(x[0]!, x[1]!, x[2]!);
    if (n > bn) {
      bn = n;
      best = x;
    }
  }
  const scale = Math.max(Math.abs(a), Math.abs(d), Math.abs(f), Math.abs(b), Math.abs(c), Math.abs(e), 1e-300);
  if (!(bn > 1e-12 * scale * scale)) return Float64Array.of(1, 0, 0);
  return Float64Array.of(best[0]! / bn, best[1]! / bn, best[2]! / bn);
}

/**
 * Eigenvalues of a symmetric 3×3 matrix, descending (analytic, trigonometric method).
 *
 * @example
 * symEigen3(2, 0, 0, 1, 0, 0.5) // [2, 1, 0.5]
 */
export function symEigen3(a: number, b: number, c: number, d: number, e: number, f: number): [number, number, number] {
  // Matrix [[a b c] [b d e] [c e f]].
  const p1 = b * b + c * c + e * e;
  if (p1 <= 1e-30 * (a * a + d * d + f * f + 1e-300)) {
    const v = [a, d, f].sort((x, y) => y - x);
    return [v[0]!, v[1]!, v[2]!];
  }
  const q = (a + d + f) / 3;
  const p2 = (a - q) * (a - q) + (d - q) * (d - q) + (f - q) * (f - q) + 2 * p1;
  const p = Math.sqrt(p2 / 6);
  const ba = (a - q) / p, bb = b / p, bc = c / p, bd = (d - q) / p, be = e / p, bf = (f - q) / p;
  const det = ba * (bd * bf - be * be) - bb * (bb * bf - be * bc) + bc * (bb * be - bd * bc);
  let r = det / 2;
  r = r < -1 ? -1 : r > 1 ? 1 : r;
  const phi = Math.acos(r) / 3;
  const e1 = q + 2 * p * Math.cos(phi);
  const e3 = q + 2 * p * Math.cos(phi + (2 * Math.PI) / 3);
  const e2 = 3 * q - e1 - e3;
  return [e1, e2, e3];
}
