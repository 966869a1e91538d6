/**
 * All skinned vertices of one skin, gathered from every primitive of every mesh that uses
 * it, as flat typed arrays in bind space (a skinned mesh's POSITION is its bind-space
 * position; the mesh node's own transform does not apply). Reads JOINTS_0/WEIGHTS_0 and
 * JOINTS_1/WEIGHTS_1 when present, float or normalised-integer weights; weights are
 * normalised per vertex on read (sources that do not sum to 1 are common). Writes new
 * influences back into the original accessors, keeping their component types valid.
 * Browser-safe.
 */
import type { Accessor, Document, Primitive, Skin } from '@gltf-transform/core';

/** One source of vertices: a primitive's (POSITION, JOINTS_0, WEIGHTS_0[, _1]) accessors. */
export interface VertexSource {
  /** Primitives that use exactly these accessors (usually one). */
  prims: Primitive[];
  /** First global vertex index of this source. */
  base: number;
  /** Vertex count. */
  count: number;
  /** POSITION accessor. */
  position: Accessor;
  /** JOINTS_0 / JOINTS_1 (the latter may be null). */
  joints: (Accessor | null)[];
  /** WEIGHTS_0 / WEIGHTS_1 (the latter may be null). */
  weights: (Accessor | null)[];
}

/** Skinned vertices of one skin. */
export interface SkinMesh {
  /** Total vertex count. */
  count: number;
  /** Bind-space positions, 3 per vertex. */
  positions: Float64Array;
  /** Influence slots per vertex: 4 (JOINTS_0 only) or 8 (with JOINTS_1 somewhere). */
  slots: number;
  /** Joint index per slot (slots per vertex). */
  joints: Uint16Array;
  /** Weight per slot, normalised per vertex (slots per vertex). */
  weights: Float32Array;
  /** Triangles as global vertex indices, 3 per triangle. */
  triangles: Uint32Array;
  /** Where each vertex lives. */
  sources: VertexSource[];
}

function readFloats(acc: Accessor): Float64Array {
  const arr = acc.getArray();
  if (!arr) throw new Error(`bitrig/rig: accessor "${acc.getName()}" has no data`);
  const n = acc.getCount() * acc.getElementSize();
  const out = new Float64Array(n);
  if (acc.getNormalized()) {
    const ct = acc.getComponentType();
    const div = ct === 5121 ? 255 : ct === 5123 ? 65535 : ct === 5120 ? 127 : ct === 5122 ? 32767 : 1;
    const signed = ct === 5120 || ct === 5122;
    for (let i = 0; i < n; i++) out[i] = signed ? Math.max(arr[i]! / div, -1) : arr[i]! / div;
  } else {
    for (let i = 0; i < n; i++) out[i] = arr[i]!;
  }
  return out;
}

/**
 * Gather every primitive skinned by `skin`. Primitives without JOINTS_0/WEIGHTS_0 are
 * skipped (they cannot be skinned). Triangle strips and fans are expanded to triangles;
 * points and lines contribute vertices but no faces.
 *
 * @example
 * const mesh = readSkinMesh(doc, doc.getRoot().listSkins()[0]!);
 * console.log(mesh.count, mesh.triangles.length / 3);
 */
export function readSkinMesh(doc: Document, skin: Skin): SkinMesh {
  const sources: VertexSource[] = [];
  const byPos = new Map<Accessor, VertexSource[]>();
  const primSeen = new Set<Primitive>();
  const primList: { prim: Primitive; src: VertexSource }[] = [];
  for (const node of doc.getRoot().listNodes()) {
    if (node.getSkin() !== skin) continue;
    const mesh = node.getMesh();
    if (!mesh) continue;
    for (const prim of mesh.listPrimitives()) {
      if (primSeen.has(prim)) continue;
      primSeen.add(prim);
      const position = prim.getAttribute('POSITION');
      const j0 = prim.getAttribute('JOINTS_0');
      const w0 = prim.getAttribute('WEIGHTS_0');
      if (!position || !j0 || !w0) continue;
      const j1 = prim.getAttribute('JOINTS_1');
      const w1 = prim.getAttribute('WEIGHTS_1');
      const cands = byPos.get(position) ?? [];
      let src = cands.find((s) => s.joints[0] === j0 && s.weights[0] === w0 && s.joints[1] === (j1 && w1 ? j1 : null));
      if (!src) {
        src = { prims: [], base: 0, count: position.getCount(), position, joints: [j0, j1 && w1 ? j1 : null], weights: [w0, j1 && w1 ? w1 : null] };
        cands.push(src);
        byPos.set(position, cands);
        sources.push(src);
      }
      src.prims.push(prim);
      primList.push({ prim, src });
    }
  }
  let count = 0;
  let slots = 4;
  for (const s of sources) {
    s.base = count;
    count += s.count;
    if (s.joints[1]) slots = 8;
    if (s.joints[0]!.getCount() < s.count || s.weights[0]!.getCount() < s.count) {
      throw new Error(`bitrig/rig: JOINTS_0/WEIGHTS_0 of a primitive have fewer elements than POSITION`);
    }
  }
  const positions = new Float64Array(3 * count);
  const joints = new Uint16Array(slots * count);
  const weights = new Float32Array(slots * count);
  for (const s of sources) {
    const p = readFloats(s.position);
    const ps = s.position.getElementSize();
    for (let i = 0; i < s.count; i++) {
      positions[3 * (s.base + i)] = p[ps * i]!;
      positions[3 * (s.base + i) + 1] = p[ps * i + 1]!;
      positions[3 * (s.base + i) + 2] = p[ps * i + 2]!;
    }
    for (let set = 0; set < 2; set++) {
      const ja = s.joints[set];
      const wa = s.weights[set];
      if (!ja || !wa) continue;
      const jarr = ja.getArray()!;
      const w = readFloats(wa);
      const jsz = ja.getElementSize();
      const wsz = wa.getElementSize();
      for (let i = 0; i < s.count; i++) {
        const o = slots * (s.base + i) + 4 * set;
        for (let k = 0; k < 4; k++) {
          joints[o + k] = k < jsz ? jarr[jsz * i + k]! : 0;
          const wv = k < wsz ? w[wsz * i + k]! : 0;
          weights[o + k] = wv > 0 && Number.isFinite(wv) ? wv : 0;
        }
      }
    }
    // Normalise per vertex.
    for (let i = 0; i < s.count; i++) {
      const o = slots * (s.base + i);
      let sum = 0;
      for (let k = 0; k < slots; k++) sum += weights[o + k]!;
      if (sum > 0) for (let k = 0; k < slots; k++) weights[o + k]! /= sum;
    }
  }
  // Triangles (typed, sized to the most a primitive can hold).
  let cap = 0;
  for (const { prim, src } of primList) cap += 3 * (prim.getIndices()?.getCount() ?? src.count);
  const tris = new Uint32Array(cap);
  let nt = 0;
  for (const { prim, src } of primList) {
    const mode = prim.getMode();
    const idxAcc = prim.getIndices();
    const idx: ArrayLike<number> = idxAcc ? idxAcc.getArray()! : identity(src.count);
    const m = idxAcc ? idxAcc.getCount() : src.count;
    const b = src.base;
    const c = src.count;
    const push = (a: number, e: number, d: number): void => {
      if (a >= c || e >= c || d >= c) return;
      tris[nt++] = b + a;
      tris[nt++] = b + e;
      tris[nt++] = b + d;
    };
    if (mode === 4) {
      for (let t = 0; t + 2 < m; t += 3) push(idx[t]!, idx[t + 1]!, idx[t + 2]!);
    } else if (mode === 5) {
      for (let t = 0; t + 2 < m; t++) {
        if (t % 2 === 0) push(idx[t]!, idx[t + 1]!, idx[t + 2]!);
        else push(idx[t + 1]!, idx[t]!, idx[t + 2]!);
      }
    } else if (mode === 6) {
      for (let t = 1; t + 1 < m; t++) push(idx[0]!, idx[t]!, idx[t + 1]!);
    }
  }
  return { count, positions, slots, joints, weights, triangles: tris.slice(0, nt), sources };
}

function identity(n: number): Uint32Array {
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}

/** New influences of one vertex: up to 4 (joint, weight) pairs summing to 1. */
export interface VertexInfluence {
  /** Global vertex index. */
  vertex: number;
  /** Joint indices (up to 4). */
  joints: number[];
  /** Weights (same length, sum 1). */
  weights: number[];
}

/**
 * Write new influences into the original accessors. Weights are stored in the accessor's own
 * type (float, or unsigned byte/short with the integer sum exactly the maximum);
 * unused slots get joint 0 and weight 0, JOINTS_1/WEIGHTS_1 slots are zeroed. A JOINTS
 * accessor of unsigned bytes is widened to unsigned shorts when a joint index exceeds 255.
 * Accessor min/max are not used for these attributes.
 *
 * @example
 * writeInfluences(mesh, [{ vertex: 12, joints: [3, 70], weights: [0.5, 0.5] }]);
 */
export function writeInfluences(mesh: SkinMesh, list: readonly VertexInfluence[]): void {
  if (list.length === 0) return;
  let maxJoint = 0;
  for (const v of list) for (const j of v.joints) maxJoint = Math.max(maxJoint, j);
  const bySource = new Map<VertexSource, VertexInfluence[]>();
  for (const v of list) {
    const src = sourceOf(mesh, v.vertex);
    let arr = bySource.get(src);
    if (!arr) bySource.set(src, (arr = []));
    arr.push(v);
  }
  for (const [src, vs] of bySource) {
    const ja = src.joints[0]!;
    if (maxJoint > 255 && ja.getComponentType() === 5121) {
      ja.setArray(Uint16Array.from(ja.getArray()!));
    }
    if (maxJoint > 65535) throw new Error('bitrig/rig: more than 65536 joints');
    const jarr = ja.getArray()!;
    const jsz = ja.getElementSize();
    const wa = src.weights[0]!;
    const warr = wa.getArray()!;
    const wsz = wa.getElementSize();
    const ct = wa.getComponentType();
    // Integer weights are quantised to their full range (normalised per glTF; an integer
    // accessor wrongly left unnormalised keeps its own convention, read back per vertex).
    const norm = ct === 5126 ? 0 : ct === 5121 || ct === 5120 ? 255 : 65535;
    const j1 = src.joints[1];
    const w1 = src.weights[1];
    const j1arr = j1 ? j1.getArray()! : null;
    const w1arr = w1 ? w1.getArray()! : null;
    const q = [0, 0, 0, 0];
    for (const v of vs) {
      const i = v.vertex - src.base;
      for (let k = 0; k < jsz; k++) jarr[jsz * i + k] = 0;
      for (let k = 0; k < wsz; k++) warr[wsz * i + k] = 0;
      const n = Math.min(v.joints.length, 4, jsz, wsz);
      if (norm) {
        quantise(v.weights, n, norm, q);
        for (let k = 0; k < n; k++) {
          jarr[jsz * i + k] = q[k]! > 0 ? v.joints[k]! : 0;
          warr[wsz * i + k] = q[k]!;
        }
      } else {
        for (let k = 0; k < n; k++) {
          jarr[jsz * i + k] = v.weights[k]! > 0 ? v.joints[k]! : 0;
          warr[wsz * i + k] = v.weights[k]!;
        }
      }
      if (j1arr && w1arr) {
        const s1 = j1!.getElementSize();
        const t1 = w1!.getElementSize();
        for (let k = 0; k < s1; k++) j1arr[s1 * i + k] = 0;
        for (let k = 0; k < t1; k++) w1arr[t1 * i + k] = 0;
      }
      // Keep the in-memory copy in sync.
      const o = mesh.slots * v.vertex;
      for (let k = 0; k < mesh.slots; k++) {
        mesh.joints[o + k] = 0;
        mesh.weights[o + k] = 0;
      }
      for (let k = 0; k < n; k++) {
        mesh.joints[o + k] = v.joints[k]!;
        mesh.weights[o + k] = v.weights[k]!;
      }
    }
    // Setting the arrays again marks them changed for writers that cache.
    ja.setArray(jarr);
    wa.setArray(warr);
    if (j1 && j1arr) j1.setArray(j1arr);
    if (w1 && w1arr) w1.setArray(w1arr);
  }
}

/** Largest-remainder quantisation of weights to integers summing exactly to `max`. */
function quantise(w: readonly number[], n: number, max: number, out: number[]): void {
  let sum = 0;
  for (let k = 0; k < n; k++) sum += Math.max(0, w[k]!);
  let used = 0;
  const rem = [0, 0, 0, 0];
  for (let k = 0; k < 4; k++) out[k] = 0;
  for (let k = 0; k < n; k++) {
    const x = sum > 0 ? (Math.max(0, w[k]!) / sum) * max : k === 0 ? max : 0;
    out[k] = Math.floor(x);
    rem[k] = x - out[k]!;
    used += out[k]!;
  }
  while (used < max) {
    let best = 0;
    for (let k = 1; k < n; k++) if (rem[k]! > rem[best]!) best = k;
    out[best]! += 1;
    rem[best] = -1;
    used++;
  }
}

/**
 * The source holding a global vertex index (binary search over the bases).
 *
 * @example
 * const src = sourceOf(mesh, 1234); // src.prims[0] holds vertex 1234 − src.base
 */
export function sourceOf(mesh: SkinMesh, vertex: number): VertexSource {
  const s = mesh.sources;
  let lo = 0;
  let hi = s.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (s[mid]!.base <= vertex) lo = mid;
    else hi = mid - 1;
  }
  return s[lo]!;
}
