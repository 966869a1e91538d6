/**
 * Live edge stretch of a tail in the browser (the same measure as `bitrig measure`, computed
 * from the three.js skinned meshes as drawn): for every mesh edge with both vertices on the tail,
 * skinned length / bind length, over the last `window` samples (24 evenly spaced through a
 * clip cycle when sampled every duration/24 seconds). p99 by nearest rank; torn = ratio
 * > 1.5 or < 0.67 — the same statistics as `rig/measure.ts`, whose helpers it uses — plus the
 * 1st percentile, the squash side a p99 does not see.
 */
import { type SkinnedMesh, Vector3 } from 'three';
import { meshEdges, stretchStats } from '../../rig/measure';

/** One skinned mesh and its tail vertices (1 = on the tail). */
export interface MeterInput {
  /** The skinned mesh as drawn. */
  mesh: SkinnedMesh;
  /** Tail mask, one entry per vertex of the mesh's geometry. */
  tail: Uint8Array;
}

/** What {@link StretchMeter.stats} returns. */
export interface StretchReadout {
  /** 1st percentile ratio (the squash side: a tail collapsing under blended leg weights). */
  p1: number;
  /** 95th percentile ratio. */
  p95: number;
  /** 99th percentile ratio. */
  p99: number;
  /** Largest ratio. */
  max: number;
  /** Torn fraction 0…1. */
  torn: number;
  /** Samples in the window. */
  samples: number;
  /** Tail edges measured per sample. */
  edges: number;
}

/** A rolling edge-stretch meter over some skinned meshes. */
export interface StretchMeter {
  /** Tail edges measured per sample. */
  readonly edges: number;
  /** Skin the tail vertices now (bones' world matrices must be current) and store the ratios. */
  sample(): void;
  /** Statistics over the window (sorts a copy; call a few times a second, not every frame). */
  stats(): StretchReadout;
  /** Forget the window. */
  reset(): void;
}

interface MeshEdges {
  mesh: SkinnedMesh;
  /** Vertices used, and where each sits in the `skinned` scratch. */
  verts: Uint32Array;
  /** Edge endpoints as indices into `verts`. */
  a: Uint32Array;
  b: Uint32Array;
  bindLen: Float64Array;
  skinned: Float64Array;
}

const _v = new Vector3();

/**
 * Build a meter. Edges of zero bind length (seam duplicates) are skipped.
 *
 * @example
 * const meter = createStretchMeter([{ mesh, tail: data.tailVertex }]);
 * meter.sample(); meter.stats().p99;
 */
export function createStretchMeter(inputs: readonly MeterInput[], window = 24): StretchMeter {
  const parts: MeshEdges[] = [];
  let total = 0;
  for (const { mesh, tail } of inputs) {
    const geo = mesh.geometry;
    const pos = geo.getAttribute('position');
    if (!pos || tail.length !== pos.count) continue;
    const index = geo.getIndex();
    const tris = index ? index.array : Uint32Array.from({ length: pos.count }, (_, i) => i);
    const all = meshEdges(tris);
    const slot = new Int32Array(pos.count).fill(-1);
    const verts: number[] = [];
    const ea: number[] = [], eb: number[] = [], len: number[] = [];
    for (let e = 0; e < all.length; e += 2) {
      const i = all[e]!, j = all[e + 1]!;
      if (tail[i] !== 1 || tail[j] !== 1) continue;
      const l = Math.hypot(pos.getX(i) - pos.getX(j), pos.getY(i) - pos.getY(j), pos.getZ(i) - pos.getZ(j));
      if (!(l > 1e-9)) continue;
      for (const v of [i, j]) if (slot[v]! < 0) { slot[v] = verts.length; verts.push(v); }
      ea.push(slot[i]!); eb.push(slot[j]!); len.push(l);
    }
    if (len.length === 0) continue;
    parts.push({
      mesh, verts: Uint32Array.from(verts), a: Uint32Array.from(ea), b: Uint32Array.from(eb),
      bindLen: Float64Array.from(len), skinned: new Float64Array(verts.length * 3),
    });
    total += len.length;
  }
  const ring = new Float64Array(Math.max(1, total) * window);
  const scratch = new Float64Array(ring.length);
  let filled = 0, head = 0;
  return {
    edges: total,
    sample() {
      if (total === 0) return;
      let o = head * total;
      for (const p of parts) {
        const { mesh, verts, skinned } = p;
        for (let k = 0; k < verts.length; k++) {
          mesh.getVertexPosition(verts[k]!, _v);
          skinned[k * 3] = _v.x; skinned[k * 3 + 1] = _v.y; skinned[k * 3 + 2] = _v.z;
        }
        for (let e = 0; e < p.a.length; e++) {
          const i = p.a[e]! * 3, j = p.b[e]! * 3;
          const l = Math.hypot(skinned[i]! - skinned[j]!, skinned[i + 1]! - skinned[j + 1]!, skinned[i + 2]! - skinned[j + 2]!);
          ring[o++] = l / p.bindLen[e]!;
        }
      }
      head = (head + 1) % window;
      filled = Math.min(window, filled + 1);
    },
    stats() {
      const n = filled * total;
      if (n === 0) return { p1: NaN, p95: NaN, p99: NaN, max: NaN, torn: 0, samples: 0, edges: total };
      const v = scratch.subarray(0, n);
      v.set(ring.subarray(0, n));
      const s = stretchStats(v); // sorts v
      const p1 = v[Math.min(n - 1, Math.max(0, Math.ceil(0.01 * n) - 1))]!;
      return { ...s, p1, samples: filled, edges: total };
    },
    reset() { filled = 0; head = 0; },
  };
}
