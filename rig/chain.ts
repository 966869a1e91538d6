/**
 * Chain growth (step two): geodesic coordinate by Dijkstra from the collar, tail
 * length L (p99), K segments, joints J0…JK with smoothing passes, and the blended weights.
 * Works on welded ids, bind space, model units. Browser-safe.
 */
import type { WeldGraph } from './weld';

/**
 * Multi-source Dijkstra over `graph` restricted to vertices with `allowed[v] = 1`, from
 * `sources` (distance 0, or `start[i]` when given). Unreached vertices keep their value in
 * `into` (default: a new array of `Infinity`). Binary heap with lazy deletion.
 *
 * @example
 * const g = geodesic(graph, collar, allowed);
 */
export function geodesic(
  graph: WeldGraph,
  sources: ArrayLike<number>,
  allowed: Uint8Array,
  start: ArrayLike<number> | null = null,
  into: Float64Array | null = null,
): Float64Array {
  const n = graph.count;
  const dist = into ?? new Float64Array(n).fill(Infinity);
  // Heap of (key, vertex), grown as needed.
  let cap = 1024;
  let keys = new Float64Array(cap);
  let vals = new Int32Array(cap);
  let size = 0;
  const push = (k: number, v: number): void => {
    if (size === cap) {
      cap *= 2;
      const nk = new Float64Array(cap);
      nk.set(keys);
      keys = nk;
      const nv = new Int32Array(cap);
      nv.set(vals);
      vals = nv;
    }
    let i = size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p]! <= k) break;
      keys[i] = keys[p]!;
      vals[i] = vals[p]!;
      i = p;
    }
    keys[i] = k;
    vals[i] = v;
  };
  const pop = (): number => {
    const top = vals[0]!;
    const k = keys[--size]!;
    const v = vals[size]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && keys[c + 1]! < keys[c]!) c++;
      if (keys[c]! >= k) break;
      keys[i] = keys[c]!;
      vals[i] = vals[c]!;
      i = c;
    }
    keys[i] = k;
    vals[i] = v;
    return top;
  };
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i]!;
    const d0 = start ? start[i]! : 0;
    if (d0 < dist[s]!) {
      dist[s] = d0;
      push(d0, s);
    }
  }
  while (size > 0) {
    const key = keys[0]!;
    const a = pop();
    if (key > dist[a]!) continue;
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) {
      const b = graph.adj[e]!;
      if (!allowed[b]) continue;
      const nd = key + graph.adjLen[e]!;
      if (nd < dist[b]!) {
        dist[b] = nd;
        push(nd, b);
      }
    }
  }
  return dist;
}

/**
 * Give the unreached vertices of `domain` a coordinate across gaps between shells that were
 * never welded (a tail tip in another material, fur over skin): each starts at the nearest
 * reached vertex's value plus the straight distance to it, then Dijkstra runs inside them.
 *
 * @example
 * bridgeShells(graph, domain, g);
 */
export function bridgeShells(graph: WeldGraph, domain: readonly number[], g: Float64Array): void {
  const P = graph.positions;
  const reached: number[] = [];
  const lost: number[] = [];
  for (const v of domain) (Number.isFinite(g[v]!) ? reached : lost).push(v);
  if (lost.length === 0 || reached.length === 0) return;
  const start = new Float64Array(lost.length);
  const allowed = new Uint8Array(graph.count);
  lost.forEach((u, i) => {
    allowed[u] = 1;
    const x = P[3 * u]!, y = P[3 * u + 1]!, z = P[3 * u + 2]!;
    let best = Infinity;
    for (const r of reached) {
      const d = g[r]! + Math.hypot(P[3 * r]! - x, P[3 * r + 1]! - y, P[3 * r + 2]! - z);
      if (d < best) best = d;
    }
    start[i] = best;
  });
  geodesic(graph, lost, allowed, start, g);
}

/**
 * The `p`-th percentile (0…1) of the finite values of `values` at `ids` (nearest rank).
 *
 * @example
 * percentileOf(g, piece, 0.99)
 */
export function percentileOf(values: Float64Array, ids: ArrayLike<number>, p: number): number {
  const arr: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    const v = values[ids[i]!]!;
    if (Number.isFinite(v)) arr.push(v);
  }
  if (arr.length === 0) return 0;
  arr.sort((a, b) => a - b);
  const r = Math.min(arr.length - 1, Math.max(0, Math.ceil(p * arr.length) - 1));
  return arr[r]!;
}

/**
 * Segment count: K = clamp(round(L / (segmentFraction·H)), min, max).
 *
 * @example
 * segmentCount(0.81, 1.91, 0.1, 3, 8) // 4 (the fox)
 */
export function segmentCount(length: number, height: number, segmentFraction: number, min: number, max: number): number {
  const k = Math.round(length / (segmentFraction * height));
  return Math.min(max, Math.max(min, Number.isFinite(k) ? k : min));
}

/**
 * Chain joints J0…JK (3 each): J0 = `root` (the collar centroid); Ji = centroid of the
 * vertices whose geodesic coordinate is within half a segment of iL/K (the nearest vertex
 * when that band is empty), then `passes` passes of Ji ← ½Ji + ¼(Ji−1 + Ji+1) on the
 * interior joints (J0 and JK stay).
 *
 * @example
 * const J = chainJoints(graph.positions, piece, g, L, K, collarCentroid, 2);
 */
export function chainJoints(
  positions: Float64Array,
  ids: ArrayLike<number>,
  g: Float64Array,
  length: number,
  K: number,
  root: ArrayLike<number>,
  passes: number,
): Float64Array {
  const J = new Float64Array(3 * (K + 1));
  J[0] = root[0]!;
  J[1] = root[1]!;
  J[2] = root[2]!;
  const seg = length / K;
  const sum = new Float64Array(3 * (K + 1));
  const cnt = new Int32Array(K + 1);
  const nearest = new Int32Array(K + 1).fill(-1);
  const nearestD = new Float64Array(K + 1).fill(Infinity);
  for (let t = 0; t < ids.length; t++) {
    const v = ids[t]!;
    const gv = g[v]!;
    if (!Number.isFinite(gv)) continue;
    const s = gv / seg;
    const i = Math.round(s);
    for (let c = Math.max(1, i - 1); c <= Math.min(K, i + 1); c++) {
      const d = Math.abs(s - c);
      if (d <= 0.5) {
        sum[3 * c]! += positions[3 * v]!;
        sum[3 * c + 1]! += positions[3 * v + 1]!;
        sum[3 * c + 2]! += positions[3 * v + 2]!;
        cnt[c]!++;
      }
      if (d < nearestD[c]!) {
        nearestD[c] = d;
        nearest[c] = v;
      }
    }
    if (i > K + 1) {
      const d = Math.abs(s - K);
      if (d < nearestD[K]!) {
        nearestD[K] = d;
        nearest[K] = v;
      }
    }
  }
  for (let c = 1; c <= K; c++) {
    if (cnt[c]! > 0) {
      for (let k = 0; k < 3; k++) J[3 * c + k] = sum[3 * c + k]! / cnt[c]!;
    } else if (nearest[c]! >= 0) {
      for (let k = 0; k < 3; k++) J[3 * c + k] = positions[3 * nearest[c]! + k]!;
    } else {
      for (let k = 0; k < 3; k++) J[3 * c + k] = J[3 * (c - 1) + k]!;
    }
  }
  const tmp = new Float64Array(J.length);
  for (let p = 0; p < passes; p++) {
    tmp.set(J);
    for (let c = 1; c < K; c++) {
      for (let k = 0; k < 3; k++) J[3 * c + k] = 0.5 * tmp[3 * c + k]! + 0.25 * (tmp[3 * (c - 1) + k]! + tmp[3 * (c + 1) + k]!);
    }
  }
  return J;
}

/** Half-width of the weight blend around a chain's joint, as a fraction of a link. */
export const CHAIN_BLEND = 0.25;

/**
 * Blended chain weights for a coordinate `g` along a chain of K segments and length L:
 * `s = K·g/L`, `k = floor(s)`, `f = s − k`, owner bone `k+1`,
 * `w_prev = clamp(0.5 − 2f, 0, 0.5)`, `w_next = clamp(2f − 1.5, 0, 0.5)`,
 * `w_self = 1 − w_prev − w_next`. `blend` (per joint 0…K, fractions of a link in
 * [{@link CHAIN_BLEND}, 0.5]) widens the blend around a joint to `b`:
 * `w_prev = clamp(0.5 − f/(2b), 0, 0.5)`, `w_next = clamp((f − 1 + b)/(2b), 0, 0.5)`;
 * null keeps {@link CHAIN_BLEND} (0.25) at every joint. Bone 0 is the pelvis ("prev" of the root segment); the
 * last segment has no "next" (Tail_End is weightless), so its share stays on bone K.
 * [ours] A negative `g` (skin on the body side of the collar, re-weighted because it was
 * driven from far away) continues the same ramp into the pelvis:
 * `w_bone1 = clamp(0.5 − 2|s|, 0, 0.5)`, the rest on the pelvis.
 * Writes up to two (bone, weight) pairs into `out` = [b0, w0, b1, w1]; returns the count.
 *
 * @example
 * const out = [0, 0, 0, 0];
 * chainWeights(0, 4, 1, out) // 2: pelvis 0.5, Tail_1 0.5
 */
export function chainWeights(g: number, K: number, L: number, out: number[], blend: ArrayLike<number> | null = null): number {
  if (!(L > 0) || !Number.isFinite(g)) {
    out[0] = 0;
    out[1] = 1;
    return 1;
  }
  let s = (K * g) / L;
  if (s < 0) {
    const wt = Math.min(0.5, Math.max(0, 0.5 + 2 * s));
    if (wt <= 0) {
      out[0] = 0;
      out[1] = 1;
      return 1;
    }
    out[0] = 0;
    out[1] = 1 - wt;
    out[2] = 1;
    out[3] = wt;
    return 2;
  }
  if (s >= K) s = K - 1e-9;
  const k = Math.floor(s);
  const f = s - k;
  const bPrev = blend ? blend[k]! : CHAIN_BLEND;
  const bNext = blend ? blend[k + 1]! : CHAIN_BLEND;
  const wPrev = Math.min(0.5, Math.max(0, 0.5 - (0.5 * f) / bPrev));
  const wNext = k + 1 < K ? Math.min(0.5, Math.max(0, (0.5 * (f - (1 - bNext))) / bNext)) : 0;
  const wSelf = 1 - wPrev - wNext;
  let c = 0;
  out[0] = k + 1;
  out[1] = wSelf;
  c = 1;
  if (wPrev > 0) {
    out[2] = k;
    out[3] = wPrev;
    c = 2;
  } else if (wNext > 0) {
    out[2] = k + 2;
    out[3] = wNext;
    c = 2;
  }
  return c;
}

/**
 * Where a point lies along an existing chain of joints, bind space, model units. `points`
 * holds 3 numbers per point: the chain's parent joint, the head of each of its K bones, then
 * the tip (K + 2 points). The nearest point of that polyline gives the coordinate in bones:
 * `s = k + f` on bone k+1 (`f` the fraction along it, k = 0…K−1), and on the parent's
 * segment a negative `s`, measured in lengths of the first bone back from its head (the same
 * ramp into the parent as {@link chainWeights}' negative coordinates). Writes
 * `out[0] = s`, `out[1] = distance to the polyline`. A zero-length segment is a point.
 *
 * @example
 * const out = [0, 0];
 * chainCoordinate(Float64Array.of(0, 0, 0, 0, 0, -1, 0, 0, -2, 0, 0, -3), 0.1, 0, -2.5, out); // out ≈ [1.5, 0.1]
 */
export function chainCoordinate(points: Float64Array, x: number, y: number, z: number, out: number[]): void {
  const n = points.length / 3;
  let bestD2 = Infinity;
  let bestSeg = 0;
  let bestT = 0;
  for (let i = 0; i + 1 < n; i++) {
    const ax = points[3 * i]!, ay = points[3 * i + 1]!, az = points[3 * i + 2]!;
    const dx = points[3 * i + 3]! - ax, dy = points[3 * i + 4]! - ay, dz = points[3 * i + 5]! - az;
    const px = x - ax, py = y - ay, pz = z - az;
    const l2 = dx * dx + dy * dy + dz * dz;
    let t = l2 > 0 ? (px * dx + py * dy + pz * dz) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    const ex = px - t * dx, ey = py - t * dy, ez = pz - t * dz;
    const d2 = ex * ex + ey * ey + ez * ez;
    if (d2 < bestD2) {
      bestD2 = d2;
      bestSeg = i;
      bestT = t;
    }
  }
  out[1] = Math.sqrt(bestD2);
  if (bestSeg >= 1) {
    out[0] = bestSeg - 1 + bestT;
    return;
  }
  // The parent's segment: back from the first bone's head, in first-bone lengths.
  const seg = (i: number): number => Math.hypot(points[3 * i + 3]! - points[3 * i]!, points[3 * i + 4]! - points[3 * i + 1]!, points[3 * i + 5]! - points[3 * i + 2]!);
  const first = n > 2 ? seg(1) : 0;
  out[0] = first > 0 ? (-(1 - bestT) * seg(0)) / first : 0;
}
