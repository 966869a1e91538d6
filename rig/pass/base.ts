/**
 * [ours] Where a tail leaves the body. A tail's re-weighting domain may spill over the body
 * around its root (a rigger hands the rump with the tail to the legs): the ring of kept skin
 * around such a domain is a wide loop on the rump, and its centroid sits inside the body, off
 * the tail's axis. The tail proper is the tube beyond: cross-sections (bands of the geodesic
 * coordinate) whose RMS radius stays near the tube's own. The base is the first band of that
 * tube, walking from the tube toward the root until a band widens past
 * {@link BASE_SPREAD} × the tube's radius.
 */
import { percentileOf } from '../chain';

/** Bands of the geodesic coordinate over the tail's length L (each L / BASE_BANDS wide). */
export const BASE_BANDS = 20;
/** A cross-section wider than this × the tube's median RMS radius is body, not tail. */
export const BASE_SPREAD = 1.5;
/** A re-based chain's links are at least this × the 90th percentile of its edges' reach along the chain. */
export const BASE_LINK_SPAN = 1.2;
/** The tube's radius is measured on the bands in this part of the length (fractions of L). */
const TUBE_FROM = 0.25;
const TUBE_TO = 0.6;
/** Bands with fewer vertices say nothing (low-poly tails). */
const MIN_BAND = 3;

/** Where a tail leaves the body: coordinate `s` along it and the point (bind space). */
export interface TailBase {
  /** Geodesic coordinate of the base (model units from the ring). */
  s: number;
  /** Centroid of the base's cross-section. */
  at: Float64Array;
  /** RMS radius of the ring around the domain and of the tube, model units. */
  ringRadius: number;
  tubeRadius: number;
}

/**
 * The base of a tail whose domain spilled over the body, or null when the ring around the
 * domain is itself a tail-sized loop (then the ring is where the tail leaves the body).
 * `ids` are the welded ids ahead of the ring, `coord` their geodesic coordinate, `L` the
 * tail's length, `ring` the welded ids of the ring, `P` welded positions (xyz triples).
 *
 * @example
 * const base = tailBase(graph.positions, ahead, coord, L, ring);
 */
export function tailBase(P: Float64Array, ids: readonly number[], coord: Float64Array, L: number, ring: ArrayLike<number>): TailBase | null {
  const w = L / BASE_BANDS;
  const n = Math.ceil(TUBE_TO * BASE_BANDS);
  const members: number[][] = Array.from({ length: n }, () => []);
  for (const v of ids) {
    const b = Math.floor(coord[v]! / w);
    if (b >= 0 && b < n) members[b]!.push(v);
  }
  const radius = members.map((m) => (m.length >= MIN_BAND ? rmsRadius(P, m) : NaN));
  const tube = Float64Array.from(radius.slice(Math.floor(TUBE_FROM * BASE_BANDS)).filter((r) => Number.isFinite(r)));
  if (tube.length === 0) return null;
  const tubeRadius = percentileOf(tube, [...tube.keys()], 0.5);
  const ringRadius = rmsRadius(P, ring);
  if (!(tubeRadius > 0) || ringRadius <= BASE_SPREAD * tubeRadius) return null;
  let base = -1;
  for (let b = Math.floor(TUBE_FROM * BASE_BANDS); b >= 0; b--) {
    const r = radius[b]!;
    if (!Number.isFinite(r)) continue;
    if (r > BASE_SPREAD * tubeRadius) break;
    base = b;
  }
  if (base < 0) return null;
  const m = members[base]!;
  let s = 0;
  for (const v of m) s += coord[v]!;
  return { s: s / m.length, at: centroid(P, m), ringRadius, tubeRadius };
}

function centroid(P: Float64Array, ids: ArrayLike<number>): Float64Array {
  const c = new Float64Array(3);
  for (let i = 0; i < ids.length; i++) for (let k = 0; k < 3; k++) c[k]! += P[3 * ids[i]! + k]!;
  for (let k = 0; k < 3; k++) c[k]! /= Math.max(1, ids.length);
  return c;
}

/** RMS distance of the points from their centroid. */
function rmsRadius(P: Float64Array, ids: ArrayLike<number>): number {
  const c = centroid(P, ids);
  let r = 0;
  for (let i = 0; i < ids.length; i++) {
    const v = ids[i]!;
    r += (P[3 * v]! - c[0]!) ** 2 + (P[3 * v + 1]! - c[1]!) ** 2 + (P[3 * v + 2]! - c[2]!) ** 2;
  }
  return ids.length > 0 ? Math.sqrt(r / ids.length) : 0;
}
