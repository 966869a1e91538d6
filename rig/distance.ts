/**
 * Skeleton distance field and weighted bone distance, bind space, model units.
 *
 * Bone segments: for every joint `j` that carries weight, the segments `j → c` to each child
 * joint `c`; a weighted leaf gets a stub `j → j + stub·(j − parent)` past the joint (so a
 * snout or hand is not "far" from its own bone); a weighted joint without parent or children
 * is a point. Weightless joints (armature roots, IK poles) draw no bone of their own: their
 * segments cross empty space. Browser-safe.
 */

/** Bone segments as flat arrays. */
export interface BoneSegments {
  /** Segment count. */
  count: number;
  /** Segment start points a, 3 each. */
  a: Float64Array;
  /** Segment end points b, 3 each. */
  b: Float64Array;
  /** Owning joint of each segment (the bone the skin follows). */
  joint: Int32Array;
}

/** A skeleton as positions + parents, enough for the distance field. */
export interface SkeletonPoints {
  /** Joint positions, 3 per joint (bind space). */
  positions: ArrayLike<number>;
  /** Parent index per joint, -1 for roots. */
  parents: ArrayLike<number>;
}

/**
 * Build bone segments of the joints with `include[j] = 1` (usually: joints that carry weight).
 *
 * @example
 * const segs = boneSegments(skel, skel.weighted, 0.5);
 */
export function boneSegments(skel: SkeletonPoints, include: ArrayLike<number> | null, leafStub: number): BoneSegments {
  const n = skel.parents.length;
  const children: number[][] = [];
  for (let i = 0; i < n; i++) children.push([]);
  for (let i = 0; i < n; i++) {
    const p = skel.parents[i]!;
    if (p >= 0) children[p]!.push(i);
  }
  const a: number[] = [];
  const b: number[] = [];
  const joint: number[] = [];
  const P = skel.positions;
  for (let j = 0; j < n; j++) {
    if (include && !include[j]) continue;
    const ch = children[j]!;
    for (const c of ch) {
      a.push(P[3 * j]!, P[3 * j + 1]!, P[3 * j + 2]!);
      b.push(P[3 * c]!, P[3 * c + 1]!, P[3 * c + 2]!);
      joint.push(j);
    }
    if (ch.length === 0) {
      const p = skel.parents[j]!;
      a.push(P[3 * j]!, P[3 * j + 1]!, P[3 * j + 2]!);
      if (p >= 0) {
        b.push(
          P[3 * j]! + leafStub * (P[3 * j]! - P[3 * p]!),
          P[3 * j + 1]! + leafStub * (P[3 * j + 1]! - P[3 * p + 1]!),
          P[3 * j + 2]! + leafStub * (P[3 * j + 2]! - P[3 * p + 2]!),
        );
      } else {
        b.push(P[3 * j]!, P[3 * j + 1]!, P[3 * j + 2]!);
      }
      joint.push(j);
    }
  }
  return { count: joint.length, a: Float64Array.from(a), b: Float64Array.from(b), joint: Int32Array.from(joint) };
}

/**
 * Distance from point (x, y, z) to segment `s`: `t = clamp((p−a)·(b−a)/|b−a|², 0, 1)`,
 * `d = |p − (a + t(b−a))|`. A zero-length segment is a point.
 *
 * @example
 * const d = segmentDistance(segs, 0, 0.1, 1.0, -0.2);
 */
export function segmentDistance(segs: BoneSegments, s: number, x: number, y: number, z: number): number {
  const ax = segs.a[3 * s]!, ay = segs.a[3 * s + 1]!, az = segs.a[3 * s + 2]!;
  const dx = segs.b[3 * s]! - ax, dy = segs.b[3 * s + 1]! - ay, dz = segs.b[3 * s + 2]! - az;
  const px = x - ax, py = y - ay, pz = z - az;
  const len2 = dx * dx + dy * dy + dz * dz;
  let t = len2 > 0 ? (px * dx + py * dy + pz * dz) / len2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const ex = px - t * dx, ey = py - t * dy, ez = pz - t * dz;
  return Math.sqrt(ex * ex + ey * ey + ez * ez);
}

/**
 * Skeleton distance of every point: the minimum over all segments. Writes `out` (one per
 * point) and, when given, `nearest` (the segment index achieving it).
 *
 * @example
 * const d = new Float64Array(g.count);
 * skeletonDistance(segs, g.positions, d, null);
 */
export function skeletonDistance(segs: BoneSegments, points: Float64Array, out: Float64Array, nearest: Int32Array | null): void {
  const n = points.length / 3;
  const S = segs.count;
  const A = segs.a;
  const B = segs.b;
  // Precompute directions and inverse squared lengths.
  const dir = new Float64Array(3 * S);
  const inv = new Float64Array(S);
  for (let s = 0; s < S; s++) {
    const dx = B[3 * s]! - A[3 * s]!, dy = B[3 * s + 1]! - A[3 * s + 1]!, dz = B[3 * s + 2]! - A[3 * s + 2]!;
    dir[3 * s] = dx;
    dir[3 * s + 1] = dy;
    dir[3 * s + 2] = dz;
    const l2 = dx * dx + dy * dy + dz * dz;
    inv[s] = l2 > 0 ? 1 / l2 : 0;
  }
  for (let i = 0; i < n; i++) {
    const x = points[3 * i]!, y = points[3 * i + 1]!, z = points[3 * i + 2]!;
    let best = Infinity;
    let bs = -1;
    for (let s = 0; s < S; s++) {
      const px = x - A[3 * s]!, py = y - A[3 * s + 1]!, pz = z - A[3 * s + 2]!;
      const dx = dir[3 * s]!, dy = dir[3 * s + 1]!, dz = dir[3 * s + 2]!;
      let t = (px * dx + py * dy + pz * dz) * inv[s]!;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      const ex = px - t * dx, ey = py - t * dy, ez = pz - t * dz;
      const d2 = ex * ex + ey * ey + ez * ez;
      if (d2 < best) {
        best = d2;
        bs = s;
      }
    }
    out[i] = S > 0 ? Math.sqrt(best) : Infinity;
    if (nearest) nearest[i] = bs;
  }
}

/**
 * Per-joint bone segments for the weighted bone distance: the distance from a point to
 * joint `j`'s bone is the minimum over `j`'s segments (every joint, weighted or not).
 */
export interface JointBones {
  /** Segments of all joints. */
  segs: BoneSegments;
  /** CSR offsets into `segs` by joint (joints + 1). */
  start: Int32Array;
  /** Segment indices grouped by joint. */
  list: Int32Array;
}

/**
 * Group bone segments by joint (all joints), for {@link weightedBoneDistance}.
 *
 * @example
 * const bones = jointBones(skel, 0.5);
 */
export function jointBones(skel: SkeletonPoints, leafStub: number): JointBones {
  const segs = boneSegments(skel, null, leafStub);
  const n = skel.parents.length;
  const start = new Int32Array(n + 1);
  for (let s = 0; s < segs.count; s++) start[segs.joint[s]! + 1]!++;
  for (let j = 0; j < n; j++) start[j + 1]! += start[j]!;
  const fill = start.slice(0, n);
  const list = new Int32Array(segs.count);
  for (let s = 0; s < segs.count; s++) list[fill[segs.joint[s]!]!++] = s;
  return { segs, start, list };
}

/**
 * Distance from a point to joint `j`'s bone (nearest of its segments).
 *
 * @example
 * const d = boneDistance(jointBones(skel, 0.5), hips, 0, 1, -0.1);
 */
export function boneDistance(bones: JointBones, j: number, x: number, y: number, z: number): number {
  let best = Infinity;
  for (let e = bones.start[j]!; e < bones.start[j + 1]!; e++) {
    const d = segmentDistance(bones.segs, bones.list[e]!, x, y, z);
    if (d < best) best = d;
  }
  return best;
}

/**
 * Weighted bone distance of one vertex: Σ_j w_j · dist(vertex, bone j), with the
 * vertex's influences given as `slots` (joint, weight) pairs starting at `o`.
 *
 * @example
 * const d = vertexBoneDistance(bones, mesh.joints, mesh.weights, mesh.slots * v, mesh.slots, x, y, z);
 */
export function vertexBoneDistance(
  bones: JointBones,
  joints: ArrayLike<number>,
  weights: ArrayLike<number>,
  o: number,
  slots: number,
  x: number,
  y: number,
  z: number,
): number {
  let sum = 0;
  let wsum = 0;
  for (let k = 0; k < slots; k++) {
    const w = weights[o + k]!;
    if (!(w > 0)) continue;
    const j = joints[o + k]!;
    if (j + 1 >= bones.start.length) continue;
    sum += w * boneDistance(bones, j, x, y, z);
    wsum += w;
  }
  return wsum > 0 ? sum / wsum : 0;
}

/**
 * Mean weighted bone distance over a set of vertices (weighted bone distance):
 * mean over the vertices of Σ_j w_j · dist(vertex, bone segment j).
 *
 * @example
 * const before = weightedBoneDistance(bones, mesh.positions, mesh.joints, mesh.weights, mesh.slots, tailVertices);
 */
export function weightedBoneDistance(
  bones: JointBones,
  positions: ArrayLike<number>,
  joints: ArrayLike<number>,
  weights: ArrayLike<number>,
  slots: number,
  vertices: ArrayLike<number>,
): number {
  if (vertices.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < vertices.length; i++) {
    const v = vertices[i]!;
    sum += vertexBoneDistance(bones, joints, weights, slots * v, slots, positions[3 * v]!, positions[3 * v + 1]!, positions[3 * v + 2]!);
  }
  return sum / vertices.length;
}
