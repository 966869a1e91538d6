/**
 * Mesh builder for the built-in character: parametric patches (grids over u, v with
 * optional poles) appended to growing arrays, with per-vertex skin weights. Setup-time
 * only (allocates). Positions of shared patch borders are evaluated from the same
 * parameters, so seams split vertices at bit-identical positions (welding by position
 * recovers the connectivity, as with an exporter's UV / hard-normal seams).
 */
import { type V3, add, cross, dot, norm, scale, sub } from './math';

/** A (bone index, weight) pair. */
export type Influence = [number, number];

/** Growing mesh: flat arrays plus per-vertex tags. */
export interface MeshBuilder {
  /** Positions, 3 per vertex. */
  pos: number[];
  /** Normals, 3 per vertex. */
  nrm: number[];
  /** Triangle indices. */
  idx: number[];
  /** Raw influences per vertex (merged and normalised in {@link finishWeights}). */
  inf: Influence[][];
  /** Shell id per vertex. */
  shell: number[];
  /** 1 = tail vertex. */
  tail: number[];
  /** 1 = ear vertex. */
  ear: number[];
}

/** A rectangular piece of a parametric surface whose domain is u, v ∈ [0, 1]. */
export interface Patch {
  /** Quads along u. */
  nu: number;
  /** Quads along v. */
  nv: number;
  /** Sub-range of u covered by this patch. */
  u0: number; u1: number;
  /** Sub-range of v covered by this patch. */
  v0: number; v1: number;
  /** Surface point at (u, v); defined on the closed domain [0,1] in u (any v). */
  f: (u: number, v: number) => V3;
  /** A point inside the solid near (u, v) (used to orient the patch outward). */
  inside: (u: number, v: number) => V3;
  /** Row u = 0 collapses to one vertex (only when u0 = 0). */
  poleU0?: boolean;
  /** Row u = 1 collapses to one vertex (only when u1 = 1). */
  poleU1?: boolean;
  /** `surface`: smooth normals from the parametrisation; `faces`: area-weighted face normals of this patch only (hard seams at patch borders). */
  normals: 'surface' | 'faces';
  /** Skin influences at (u, v) with position p. */
  weight: (u: number, v: number, p: V3) => Influence[];
  /** Shell id written for every vertex. */
  shell: number;
  /** Mark vertices as tail skin. */
  tail?: boolean;
  /** Mark vertices as ear skin. */
  ear?: boolean;
}

/** Empty builder. */
export function createMeshBuilder(): MeshBuilder {
  return { pos: [], nrm: [], idx: [], inf: [], shell: [], tail: [], ear: [] };
}

/** Parameter i of n over [a, b], exact at both ends. */
function param(a: number, b: number, i: number, n: number): number {
  if (i === 0) return a;
  if (i === n) return b;
  const t = i / n;
  return (1 - t) * a + t * b;
}

const EPS = 1e-5;

function surfaceNormal(p: Patch, u: number, v: number): V3 {
  const ua = Math.max(0, u - EPS), ub = Math.min(1, u + EPS);
  const du = sub(p.f(ub, v), p.f(ua, v));
  const dv = sub(p.f(u, v + EPS), p.f(u, v - EPS));
  return norm(cross(du, dv));
}

/** Append one patch (vertices, triangles, weights, tags), oriented outward. */
export function addPatch(b: MeshBuilder, p: Patch): void {
  const base = b.pos.length / 3;
  const rows = p.nu + 1, cols = p.nv + 1;
  const pole0 = !!p.poleU0 && p.u0 === 0;
  const pole1 = !!p.poleU1 && p.u1 === 1;
  // vertex index grid
  const id: number[] = new Array(rows * cols);
  const us: number[] = [], vs: number[] = [];
  for (let i = 0; i < rows; i++) us.push(param(p.u0, p.u1, i, p.nu));
  for (let j = 0; j < cols; j++) vs.push(param(p.v0, p.v1, j, p.nv));
  let count = 0;
  const P: V3[] = [];
  const UV: [number, number][] = [];
  for (let i = 0; i < rows; i++) {
    const pole = (i === 0 && pole0) || (i === rows - 1 && pole1);
    for (let j = 0; j < cols; j++) {
      if (pole && j > 0) {
        id[i * cols + j] = id[i * cols]!;
        continue;
      }
      const u = us[i]!, v = vs[j]!;
      id[i * cols + j] = count++;
      P.push(p.f(u, v));
      UV.push([u, v]);
    }
  }
  // triangles (local indices)
  const tris: number[] = [];
  for (let i = 0; i < p.nu; i++) {
    for (let j = 0; j < p.nv; j++) {
      const a = id[i * cols + j]!, bb = id[(i + 1) * cols + j]!;
      const c = id[(i + 1) * cols + j + 1]!, d = id[i * cols + j + 1]!;
      if (!(i === 0 && pole0)) tris.push(a, c, d);
      if (!(i === p.nu - 1 && pole1)) tris.push(a, bb, c);
    }
  }
  // orientation vote against the inside points
  let vote = 0;
  for (let t = 0; t < tris.length; t += 3) {
    const A = P[tris[t]!]!, B = P[tris[t + 1]!]!, C = P[tris[t + 2]!]!;
    const n = cross(sub(B, A), sub(C, A));
    const uc = (UV[tris[t]!]![0] + UV[tris[t + 1]!]![0] + UV[tris[t + 2]!]![0]) / 3;
    const vc = (UV[tris[t]!]![1] + UV[tris[t + 1]!]![1] + UV[tris[t + 2]!]![1]) / 3;
    const cen = scale(add(add(A, B), C), 1 / 3);
    vote += Math.sign(dot(n, sub(cen, p.inside(uc, vc))));
  }
  const flip = vote < 0;
  if (flip) {
    for (let t = 0; t < tris.length; t += 3) {
      const x = tris[t + 1]!;
      tris[t + 1] = tris[t + 2]!;
      tris[t + 2] = x;
    }
  }
  // normals
  const N: V3[] = [];
  if (p.normals === 'faces') {
    for (let k = 0; k < count; k++) N.push([0, 0, 0]);
    for (let t = 0; t < tris.length; t += 3) {
      const ia = tris[t]!, ib = tris[t + 1]!, ic = tris[t + 2]!;
      const n = cross(sub(P[ib]!, P[ia]!), sub(P[ic]!, P[ia]!));
      for (const k of [ia, ib, ic]) N[k] = add(N[k]!, n);
    }
    for (let k = 0; k < count; k++) N[k] = norm(N[k]!);
  } else {
    for (let k = 0; k < count; k++) {
      const [u, v] = UV[k]!;
      const isPole = (u === 0 && pole0) || (u === 1 && pole1);
      let n: V3;
      if (isPole) {
        // outward = away from the mean of the neighbouring ring
        const ring = u === 0 ? 1 : rows - 2;
        let m: V3 = [0, 0, 0];
        for (let j = 0; j < p.nv; j++) m = add(m, P[id[ring * cols + j]!]!);
        n = norm(sub(P[k]!, scale(m, 1 / p.nv)));
      } else {
        n = surfaceNormal(p, u, v);
        if (flip) n = scale(n, -1);
      }
      N.push(n);
    }
  }
  for (let k = 0; k < count; k++) {
    const q = P[k]!, n = N[k]!;
    b.pos.push(q[0], q[1], q[2]);
    b.nrm.push(n[0], n[1], n[2]);
    b.inf.push(p.weight(UV[k]![0], UV[k]![1], q));
    b.shell.push(p.shell);
    b.tail.push(p.tail ? 1 : 0);
    b.ear.push(p.ear ? 1 : 0);
  }
  for (const t of tris) b.idx.push(base + t);
}

/** Packed skin: 4 joints and 4 weights per vertex. */
export interface PackedSkin {
  /** Bone indices, 4 per vertex. */
  joints: Uint16Array;
  /** Weights, 4 per vertex, descending, float32 sum = 1 within 1 ulp. */
  weights: Float32Array;
}

/**
 * Merge duplicate bones, keep the 4 largest influences, normalise, and fix the largest
 * weight so the float32 weights sum to 1. Unused slots get joint 0, weight 0.
 */
export function finishWeights(inf: Influence[][]): PackedSkin {
  const n = inf.length;
  const joints = new Uint16Array(n * 4);
  const weights = new Float32Array(n * 4);
  for (let v = 0; v < n; v++) {
    const m = new Map<number, number>();
    for (const [j, w] of inf[v]!) if (w > 0) m.set(j, (m.get(j) ?? 0) + w);
    const list = [...m.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 4);
    if (list.length === 0) throw new Error(`bitrig/character: vertex ${v} has no skin influence`);
    let sum = 0;
    for (const e of list) sum += e[1];
    const f = list.map(([j, w]) => [j, Math.fround(w / sum)] as [number, number]).filter((e) => e[1] > 0);
    let rest = 0;
    for (let k = 1; k < f.length; k++) rest += f[k]![1];
    f[0]![1] = Math.fround(1 - rest);
    for (let k = 0; k < f.length; k++) {
      joints[v * 4 + k] = f[k]![0];
      weights[v * 4 + k] = f[k]![1];
    }
  }
  return { joints, weights };
}
