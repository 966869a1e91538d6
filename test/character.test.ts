/**
 * The built-in character (core/character): validity of skeleton, skin and clips, the two
 * variants, geometry the other modules rely on (flat soles, far ears, a long drooping tail
 * shell split at seams), the GLB writer (Khronos validator, read back with glTF-Transform
 * and three's GLTFLoader) and the three.js converter (bind and mixer playback).
 */
import { describe, expect, it } from 'vitest';
import { NodeIO } from '@gltf-transform/core';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
// @ts-expect-error gltf-validator ships no types
import validator from 'gltf-validator';
import {
  BODY_BONE_NAMES, BUILTIN_CHARACTER_DEFAULTS, characterBindPose, createBuiltinCharacter, createCharacterClipSampler,
  sampleCharacterClip, type CharacterData,
} from '../core/character/index';
import { mat4FromTRS, mat4Mul } from '../core/character/math';
import { SHELL } from '../core/character/body';
import { characterToDocument, characterToGlb } from '../rig/characterDocument';
import { characterToThree } from '../adapters/three/character';

const chain = createBuiltinCharacter();
const shin = createBuiltinCharacter({ variant: 'shin' });
const VARIANTS: [string, CharacterData][] = [['chain', chain], ['shin', shin]];
const CLIP_NAMES = ['walk', 'sprint', 'crouch', 'hipSweep'];

function bindWorld(d: CharacterData): Float64Array[] {
  const W: Float64Array[] = [];
  d.bones.forEach((b, i) => {
    const L = mat4FromTRS(b.t, b.r, b.s);
    W[i] = b.parent < 0 ? L : mat4Mul(W[b.parent]!, L);
  });
  return W;
}

/** World matrices for local TRS arrays (3/4/3 per bone). */
function worldFrom(d: CharacterData, t: Float64Array, r: Float64Array, s: Float64Array): Float64Array[] {
  const W: Float64Array[] = [];
  d.bones.forEach((b, i) => {
    const L = mat4FromTRS(t.subarray(i * 3, i * 3 + 3), r.subarray(i * 4, i * 4 + 4), s.subarray(i * 3, i * 3 + 3));
    W[i] = b.parent < 0 ? L : mat4Mul(W[b.parent]!, L);
  });
  return W;
}

function posePair(d: CharacterData, clip: string, time: number) {
  const n = d.bones.length;
  const t = new Float64Array(n * 3), r = new Float64Array(n * 4), s = new Float64Array(n * 3);
  characterBindPose(d, t, r, s);
  sampleCharacterClip(createCharacterClipSampler(d, clip), time, t, r, s);
  return { t, r, s, W: worldFrom(d, t, r, s) };
}

const boneIdx = (d: CharacterData, name: string) => d.bones.findIndex((b) => b.name === name);
const quatAngle = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  const dot = Math.abs(a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]! + a[3]! * b[3]!);
  return 2 * Math.acos(Math.min(1, dot));
};
const rotAngleOfMatrices = (A: ArrayLike<number>, B: ArrayLike<number>) => {
  // angle of A_rot^T B_rot
  let tr = 0;
  for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) tr += A[c * 4 + r]! * B[c * 4 + r]!;
  return Math.acos(Math.min(1, Math.max(-1, (tr - 1) / 2)));
};

function dominantBone(d: CharacterData, v: number): number {
  return d.mesh.joints[v * 4]!; // weights are stored in descending order
}

function segDist(p: number[], a: number[], b: number[]): number {
  const ab = [b[0]! - a[0]!, b[1]! - a[1]!, b[2]! - a[2]!];
  const ap = [p[0]! - a[0]!, p[1]! - a[1]!, p[2]! - a[2]!];
  const l2 = ab[0]! ** 2 + ab[1]! ** 2 + ab[2]! ** 2;
  const t = l2 > 0 ? Math.min(1, Math.max(0, (ap[0]! * ab[0]! + ap[1]! * ab[1]! + ap[2]! * ab[2]!) / l2)) : 0;
  return Math.hypot(ap[0]! - t * ab[0]!, ap[1]! - t * ab[1]!, ap[2]! - t * ab[2]!);
}

/** Connected components of the vertices selected by `sel` over triangles, optionally welding equal positions. */
function components(d: CharacterData, sel: (v: number) => boolean, weld: boolean): number {
  const n = d.mesh.positions.length / 3;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => { while (parent[x] !== x) { parent[x] = parent[parent[x]!]!; x = parent[x]!; } return x; };
  const unite = (a: number, b: number) => { parent[find(a)] = find(b); };
  const idx = d.mesh.indices;
  for (let t = 0; t < idx.length; t += 3) {
    const a = idx[t]!, b = idx[t + 1]!, c = idx[t + 2]!;
    if (sel(a) && sel(b) && sel(c)) { unite(a, b); unite(b, c); }
  }
  if (weld) {
    const seen = new Map<string, number>();
    const P = d.mesh.positions;
    for (let v = 0; v < n; v++) {
      if (!sel(v)) continue;
      const k = `${P[v * 3]},${P[v * 3 + 1]},${P[v * 3 + 2]}`;
      const o = seen.get(k);
      if (o === undefined) seen.set(k, v); else unite(v, o);
    }
  }
  const roots = new Set<number>();
  for (let v = 0; v < n; v++) if (sel(v)) roots.add(find(v));
  return roots.size;
}

describe('built-in character: validity', () => {
  for (const [name, d] of VARIANTS) {
    it(`${name}: skeleton has Mixamo names, parents before children, uniform scale 1`, () => {
      const names = d.bones.map((b) => b.name);
      for (const n of BODY_BONE_NAMES) expect(names).toContain(n);
      d.bones.forEach((b, i) => {
        expect(b.parent).toBeLessThan(i);
        expect(b.parent >= 0 || i === 0).toBe(true);
        expect(b.s).toEqual([1, 1, 1]);
        expect(Math.hypot(...b.r)).toBeCloseTo(1, 12);
      });
      expect(new Set(names).size).toBe(names.length);
      expect(d.bones[0]!.name).toBe('Hips');
    });

    it(`${name}: inverseBind × bind world = identity (tolerance 1e-6)`, () => {
      const W = bindWorld(d);
      W.forEach((w, i) => {
        const m = mat4Mul(d.inverseBind.subarray(i * 16, i * 16 + 16), w);
        for (let k = 0; k < 16; k++) expect(Math.abs(m[k]! - (k % 5 === 0 ? 1 : 0))).toBeLessThan(1e-6);
      });
    });

    it(`${name}: skin weights sum to 1 (1e-6), ≤ 4 influences, sorted, joints in range, all finite`, () => {
      const m = d.mesh;
      const nv = m.positions.length / 3;
      expect(m.normals.length).toBe(nv * 3);
      expect(m.joints.length).toBe(nv * 4);
      expect(m.weights.length).toBe(nv * 4);
      const problems: string[] = [];
      for (let v = 0; v < nv; v++) {
        let s = 0;
        const used = new Set<number>();
        for (let k = 0; k < 4; k++) {
          const w = m.weights[v * 4 + k]!, j = m.joints[v * 4 + k]!;
          if (!(w >= 0)) problems.push(`v${v}: negative weight`);
          if (k > 0 && w > m.weights[v * 4 + k - 1]!) problems.push(`v${v}: weights not sorted`);
          if (j >= d.bones.length) problems.push(`v${v}: joint ${j} out of range`);
          if (w > 0) { if (used.has(j)) problems.push(`v${v}: joint ${j} twice`); used.add(j); }
          s += w;
        }
        if (!(Math.abs(s - 1) < 1e-6)) problems.push(`v${v}: weights sum to ${s}`);
      }
      expect(problems.slice(0, 5)).toEqual([]);
      for (const a of [m.positions, m.normals, m.weights, d.inverseBind, d.tailGroundTruth]) {
        expect(a.every((x) => Number.isFinite(x))).toBe(true);
      }
      let worstNormal = 0;
      for (let v = 0; v < nv; v++) {
        worstNormal = Math.max(worstNormal, Math.abs(Math.hypot(m.normals[v * 3]!, m.normals[v * 3 + 1]!, m.normals[v * 3 + 2]!) - 1));
      }
      expect(worstNormal).toBeLessThan(1e-6); // unit normals, float32 storage
      expect(m.indices.every((i) => i < nv)).toBe(true);
      expect(m.indices.length % 3).toBe(0);
    });

    it(`${name}: clips are the four named ones, LINEAR, unit quaternions (1e-6), continuous sign, closed loops, no Tail_* key`, () => {
      expect(d.clips.map((c) => c.name)).toEqual(CLIP_NAMES);
      const dur: Record<string, number> = { walk: 1, sprint: 0.6, crouch: 2, hipSweep: 2 };
      for (const c of d.clips) {
        expect(c.duration).toBe(dur[c.name]);
        for (const tr of c.tracks) {
          expect(tr.bone.startsWith('Tail')).toBe(false);
          expect(boneIdx(d, tr.bone)).toBeGreaterThanOrEqual(0);
          expect(tr.interpolation).toBe('LINEAR');
          const n = tr.times.length;
          expect(tr.times[0]).toBe(0);
          expect(tr.times[n - 1]).toBe(Math.fround(c.duration));
          for (let k = 1; k < n; k++) expect(tr.times[k]!).toBeGreaterThan(tr.times[k - 1]!);
          const w = tr.path === 'rotation' ? 4 : 3;
          expect(tr.values.length).toBe(n * w);
          for (const x of tr.values) expect(Number.isFinite(x)).toBe(true);
          for (let c2 = 0; c2 < w; c2++) expect(tr.values[(n - 1) * w + c2]).toBe(tr.values[c2]); // first key == last key
          if (tr.path === 'rotation') {
            for (let k = 0; k < n; k++) {
              const q = tr.values.subarray(k * 4, k * 4 + 4);
              expect(Math.abs(Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!) - 1)).toBeLessThan(1e-6);
              if (k > 0) {
                const p = tr.values.subarray(k * 4 - 4, k * 4);
                expect(p[0]! * q[0]! + p[1]! * q[1]! + p[2]! * q[2]! + p[3]! * q[3]!).toBeGreaterThan(0);
              }
            }
          }
        }
      }
    });
  }

  it('bind rotations are not trivial: Hips ≥ 20° from identity, ≥ 10 bones with a local bind rotation ≥ 20°', () => {
    expect(quatAngle(chain.bones[0]!.r, [0, 0, 0, 1])).toBeGreaterThan((20 * Math.PI) / 180);
    const big = chain.bones.filter((b) => quatAngle(b.r, [0, 0, 0, 1]) > (20 * Math.PI) / 180).length;
    expect(big).toBeGreaterThanOrEqual(10);
  });

  it('is deterministic and hands out independent copies', () => {
    const a = createBuiltinCharacter();
    a.mesh.positions[0] = 99;
    a.bones[0]!.t[1] = 5;
    const b = createBuiltinCharacter();
    expect(b).toEqual(chain);
    expect(b.mesh.positions[0]).not.toBe(99);
  });

  it('rejects bad options with a clear message', () => {
    expect(() => createBuiltinCharacter({ tailLinks: 2 })).toThrow(/bitrig\/character: tailLinks/);
    expect(() => createBuiltinCharacter({ tailLinks: 9 })).toThrow(/tailLinks/);
    expect(() => createBuiltinCharacter({ tailLinks: 4.5 })).toThrow(/tailLinks/);
    expect(() => createBuiltinCharacter({ tailLength: Number.NaN })).toThrow(/tailLength/);
    expect(() => createBuiltinCharacter({ tailLength: 3 })).toThrow(/tailLength/);
    expect(() => createBuiltinCharacter({ variant: 'x' as 'chain' })).toThrow(/variant/);
    expect(BUILTIN_CHARACTER_DEFAULTS).toEqual({ variant: 'chain', tailLinks: 6, tailLength: 0.9 });
  });
});

describe('built-in character: the two variants', () => {
  const tailCount = chain.tailVertex.reduce((a, b) => a + b, 0);
  const earCount = chain.earVertex.reduce((a, b) => a + b, 0);

  it('same mesh, tail and ear masks and ground truth in both variants; counts > 0', () => {
    expect(shin.mesh.positions).toEqual(chain.mesh.positions);
    expect(shin.mesh.indices).toEqual(chain.mesh.indices);
    expect(shin.tailVertex).toEqual(chain.tailVertex);
    expect(shin.earVertex).toEqual(chain.earVertex);
    expect(shin.tailGroundTruth).toEqual(chain.tailGroundTruth);
    expect(shin.tailBoneNames).toEqual(chain.tailBoneNames);
    expect(tailCount).toBeGreaterThan(500);
    expect(earCount).toBeGreaterThan(50);
    const nv = chain.mesh.positions.length / 3;
    expect(nv).toBeGreaterThanOrEqual(3000);
    expect(nv).toBeLessThanOrEqual(8000);
  });

  it("'shin': no Tail_* bone; every tail vertex's dominant bone is LeftLeg, rest on the thighs", () => {
    expect(shin.bones.some((b) => /^Tail/.test(b.name))).toBe(false);
    const lLeg = boneIdx(shin, 'LeftLeg');
    const allowed = new Set([lLeg, boneIdx(shin, 'LeftUpLeg'), boneIdx(shin, 'RightUpLeg')]);
    for (let v = 0; v < shin.tailVertex.length; v++) {
      if (!shin.tailVertex[v]) continue;
      expect(dominantBone(shin, v)).toBe(lLeg);
      for (let k = 0; k < 4; k++) if (shin.mesh.weights[v * 4 + k]! > 0) expect(allowed.has(shin.mesh.joints[v * 4 + k]!)).toBe(true);
    }
  });

  it("'chain': Tail_1…Tail_K + weightless Tail_End under Hips at the ground-truth joints; tail skin only on Tail_* and Hips", () => {
    const K = BUILTIN_CHARACTER_DEFAULTS.tailLinks;
    expect(chain.tailBoneNames).toEqual(Array.from({ length: K }, (_, i) => `Tail_${i + 1}`));
    const W = bindWorld(chain);
    const names = [...chain.tailBoneNames, 'Tail_End'];
    names.forEach((n, i) => {
      const b = boneIdx(chain, n);
      expect(b).toBeGreaterThan(0);
      expect(chain.bones[b]!.parent).toBe(boneIdx(chain, i === 0 ? 'Hips' : names[i - 1]!));
      for (let c = 0; c < 3; c++) expect(Math.abs(W[b]![12 + c]! - chain.tailGroundTruth[i * 3 + c]!)).toBeLessThan(1e-6);
    });
    const hips = boneIdx(chain, 'Hips');
    const tailSet = new Set(chain.tailBoneNames.map((n) => boneIdx(chain, n)));
    const end = boneIdx(chain, 'Tail_End');
    const perBone = new Map<number, number>();
    let blendedWithHips = 0;
    for (let v = 0; v < chain.tailVertex.length; v++) {
      for (let k = 0; k < 4; k++) {
        const w = chain.mesh.weights[v * 4 + k]!, j = chain.mesh.joints[v * 4 + k]!;
        if (w === 0) continue;
        expect(j).not.toBe(end); // Tail_End is weightless
        if (!chain.tailVertex[v]) { expect(tailSet.has(j)).toBe(false); continue; }
        expect(tailSet.has(j) || j === hips).toBe(true);
        perBone.set(j, (perBone.get(j) ?? 0) + 1);
        if (j === hips && w < 1 && w > 0) blendedWithHips++;
      }
    }
    for (const j of tailSet) expect(perBone.get(j) ?? 0).toBeGreaterThan(20);
    expect(blendedWithHips).toBeGreaterThan(20);
  });

  it('tailLinks 3 and 8 give chains of 3 and 8 links along the same tail', () => {
    for (const K of [3, 8]) {
      const d = createBuiltinCharacter({ tailLinks: K });
      expect(d.bones.filter((b) => /^Tail_\d+$/.test(b.name)).length).toBe(K);
      expect(d.tailGroundTruth.length).toBe((K + 1) * 3);
      expect(d.tailGroundTruth.subarray(0, 3)).toEqual(chain.tailGroundTruth.subarray(0, 3));
      expect(d.tailGroundTruth.subarray(K * 3)).toEqual(chain.tailGroundTruth.subarray(BUILTIN_CHARACTER_DEFAULTS.tailLinks * 3));
    }
  });
});

describe('built-in character: geometry', () => {
  const d = chain;
  const P = d.mesh.positions;
  const nv = P.length / 3;

  it('feet at y = 0, height 1.1–1.3 m, tail ≥ 40 % of height leaving toward −Z and drooping', () => {
    let yMin = Infinity;
    for (let v = 0; v < nv; v++) yMin = Math.min(yMin, P[v * 3 + 1]!);
    expect(yMin).toBe(0);
    expect(d.height).toBeGreaterThan(1.1);
    expect(d.height).toBeLessThan(1.3);
    const J = d.tailGroundTruth, K = J.length / 3 - 1;
    let arc = 0;
    for (let i = 1; i <= K; i++) arc += Math.hypot(J[i * 3]! - J[i * 3 - 3]!, J[i * 3 + 1]! - J[i * 3 - 2]!, J[i * 3 + 2]! - J[i * 3 - 1]!);
    expect(arc).toBeGreaterThan(0.4 * d.height);
    expect(d.tailLength).toBeGreaterThanOrEqual(0.8);
    expect(J[K * 3 + 2]!).toBeLessThan(J[2]! - 0.6); // toward −Z
    expect(J[K * 3 + 1]!).toBeLessThan(J[1]! - 0.2); // droops
    expect(J[K * 3 + 1]!).toBeGreaterThan(0.05); // above the floor in bind
    for (let i = 0; i <= K; i++) expect(J[i * 3]).toBe(0);
  });

  it('crouch lowers the hips ~0.3 m so a hanging tail would reach the floor; feet stay planted and flat (1 mm, 0.5°)', () => {
    const hips = boneIdx(d, 'Hips');
    const Wb = bindWorld(d);
    const { W } = posePair(d, 'crouch', 1.0);
    const drop = Wb[hips]![13]! - W[hips]![13]!;
    expect(drop).toBeGreaterThan(0.25);
    expect(drop).toBeLessThan(0.35);
    // tail root follows the hips: its crouched height minus the tail length is below the floor
    const rootLocal = [d.tailGroundTruth[0]!, d.tailGroundTruth[1]!, d.tailGroundTruth[2]!];
    const ib = d.inverseBind.subarray(hips * 16, hips * 16 + 16);
    const rel = [0, 1, 2].map((r) => ib[r]! * rootLocal[0]! + ib[4 + r]! * rootLocal[1]! + ib[8 + r]! * rootLocal[2]! + ib[12 + r]!);
    const Wh = W[hips]!;
    const rootY = Wh[1]! * rel[0]! + Wh[5]! * rel[1]! + Wh[9]! * rel[2]! + Wh[13]!;
    expect(rootY - d.tailLength).toBeLessThan(-0.3);
    for (const time of [0.3, 0.6, 1.0, 1.7]) {
      const { W: Wt } = posePair(d, 'crouch', time);
      for (const side of ['Left', 'Right']) {
        const f = boneIdx(d, side + 'Foot');
        for (let c = 0; c < 3; c++) expect(Math.abs(Wt[f]![12 + c]! - Wb[f]![12 + c]!)).toBeLessThan(1e-3);
        expect(rotAngleOfMatrices(Wt[f]!, Wb[f]!)).toBeLessThan((0.5 * Math.PI) / 180);
      }
    }
  });

  it('walk and sprint keep the skinned soles within 1 cm of the floor plane from below (locomotion in place)', () => {
    const m = d.mesh;
    for (const clip of ['walk', 'sprint']) {
      const dur = d.clips.find((c) => c.name === clip)!.duration;
      let lowest = Infinity;
      for (let k = 0; k < 24; k++) {
        const { W } = posePair(d, clip, (dur * k) / 24);
        const M = W.map((w, i) => mat4Mul(w, d.inverseBind.subarray(i * 16, i * 16 + 16)));
        for (let v = 0; v < nv; v++) {
          if (d.shell[v] !== SHELL.feet) continue;
          let y = 0;
          for (let j = 0; j < 4; j++) {
            const w = m.weights[v * 4 + j]!;
            if (!w) continue;
            const A = M[m.joints[v * 4 + j]!]!;
            y += w * (A[1]! * P[v * 3]! + A[5]! * P[v * 3 + 1]! + A[9]! * P[v * 3 + 2]! + A[13]!);
          }
          lowest = Math.min(lowest, y);
        }
      }
      expect(lowest, clip).toBeGreaterThan(-0.01);
      expect(lowest, clip).toBeLessThan(0.02); // a foot does come down to the floor
    }
  });

  it('hipSweep moves the hips 0.5 m toward +X by 2/3 s and back by 5/3 s (1e-6)', () => {
    const hips = boneIdx(d, 'Hips');
    const Wb = bindWorld(d);
    const x = (t: number) => posePair(d, 'hipSweep', t).W[hips]![12]! - Wb[hips]![12]!;
    expect(Math.abs(x(2 / 3) - 0.5)).toBeLessThan(1e-6);
    expect(Math.abs(x(1) - 0.5)).toBeLessThan(1e-6);
    expect(Math.abs(x(5 / 3))).toBeLessThan(1e-6);
    expect(Math.abs(x(1 / 3) - 0.25)).toBeLessThan(1e-3);
  });

  it('every shell is closed-oriented outward: positive signed volume per shell, face and vertex normals agree', () => {
    const idx = d.mesh.indices, N = d.mesh.normals;
    const vol = new Map<number, number>();
    let disagree = 0;
    for (let t = 0; t < idx.length; t += 3) {
      const [a, b, c] = [idx[t]!, idx[t + 1]!, idx[t + 2]!];
      const A = [P[a * 3]!, P[a * 3 + 1]!, P[a * 3 + 2]!], B = [P[b * 3]!, P[b * 3 + 1]!, P[b * 3 + 2]!], C = [P[c * 3]!, P[c * 3 + 1]!, P[c * 3 + 2]!];
      const cr = [
        (B[1]! - A[1]!) * (C[2]! - A[2]!) - (B[2]! - A[2]!) * (C[1]! - A[1]!),
        (B[2]! - A[2]!) * (C[0]! - A[0]!) - (B[0]! - A[0]!) * (C[2]! - A[2]!),
        (B[0]! - A[0]!) * (C[1]! - A[1]!) - (B[1]! - A[1]!) * (C[0]! - A[0]!),
      ];
      const sh = d.shell[a]!;
      vol.set(sh, (vol.get(sh) ?? 0) + (A[0]! * (B[1]! * C[2]! - B[2]! * C[1]!) - A[1]! * (B[0]! * C[2]! - B[2]! * C[0]!) + A[2]! * (B[0]! * C[1]! - B[1]! * C[0]!)) / 6);
      let dot = 0;
      for (const v of [a, b, c]) dot += cr[0]! * N[v * 3]! + cr[1]! * N[v * 3 + 1]! + cr[2]! * N[v * 3 + 2]!;
      if (dot <= 0) disagree++;
    }
    for (const s of Object.values(SHELL)) expect(vol.get(s) ?? 0).toBeGreaterThan(1e-5);
    expect(disagree).toBe(0);
  });

  it('seams split vertices: the tail shell is 10 raw islands and 1 after welding by position; some duplicates differ in normal', () => {
    const isTail = (v: number) => d.tailVertex[v] === 1;
    expect(components(d, isTail, false)).toBe(10);
    expect(components(d, isTail, true)).toBe(1);
    const groups = new Map<string, number[]>();
    for (let v = 0; v < nv; v++) {
      const k = `${P[v * 3]},${P[v * 3 + 1]},${P[v * 3 + 2]}`;
      groups.set(k, [...(groups.get(k) ?? []), v]);
    }
    let dup = 0, hard = 0;
    const N = d.mesh.normals;
    for (const g of groups.values()) {
      if (g.length < 2) continue;
      dup++;
      const a = g[0]!;
      if (g.some((b) => N[a * 3]! * N[b * 3]! + N[a * 3 + 1]! * N[b * 3 + 1]! + N[a * 3 + 2]! * N[b * 3 + 2]! < Math.cos((5 * Math.PI) / 180))) hard++;
    }
    expect(dup).toBeGreaterThan(300);
    expect(hard).toBeGreaterThan(100);
  });

  it('the tail is a separate shell overlapping the body near the pelvis', () => {
    // some tail vertices lie inside the torso's bounds next to the Hips joint
    let inside = 0;
    for (let v = 0; v < nv; v++) {
      if (!d.tailVertex[v]) continue;
      if (Math.hypot(P[v * 3]!, P[v * 3 + 1]! - 0.6, P[v * 3 + 2]!) < 0.08) inside++;
    }
    expect(inside).toBeGreaterThan(10);
    // no triangle mixes tail and non-tail vertices
    const idx = d.mesh.indices;
    for (let t = 0; t < idx.length; t += 3) {
      const s = d.tailVertex[idx[t]!]! + d.tailVertex[idx[t + 1]!]! + d.tailVertex[idx[t + 2]!]!;
      expect(s === 0 || s === 3).toBe(true);
    }
  });

  it('each foot has a flat sole at y = 0 with normals (0, −1, 0) spanning its sole corners', () => {
    const N = d.mesh.normals;
    let sole = 0;
    for (let v = 0; v < nv; v++) {
      if (d.shell[v] !== SHELL.feet || P[v * 3 + 1] !== 0) continue;
      const n = [N[v * 3]!, N[v * 3 + 1]!, N[v * 3 + 2]!];
      if (n[1]! < -0.999) sole++;
    }
    expect(sole).toBeGreaterThanOrEqual(2 * 45);
    for (let i = 0; i < 8; i++) expect(d.soleCorners[i * 3 + 1]).toBe(0);
    const Wb = bindWorld(d);
    for (const [k, side] of [[0, 'Left'], [1, 'Right']] as const) {
      const ankle = Wb[boneIdx(d, side + 'Foot')]!;
      const xs = [0, 1, 2, 3].map((c) => d.soleCorners[(k * 4 + c) * 3]!);
      expect(Math.min(...xs)).toBeLessThan(ankle[12]!);
      expect(Math.max(...xs)).toBeGreaterThan(ankle[12]!);
    }
  });

  it('ears: skinned to Head only, and partly far from the skeleton (> 7 % of height)', () => {
    const head = boneIdx(d, 'Head');
    const Wb = bindWorld(d);
    const segs: [number[], number[]][] = [];
    d.bones.forEach((b, i) => {
      if (b.parent >= 0) segs.push([[...Wb[b.parent]!.subarray(12, 15)], [...Wb[i]!.subarray(12, 15)]]);
    });
    let far = 0;
    for (let v = 0; v < nv; v++) {
      if (!d.earVertex[v]) continue;
      expect(d.mesh.joints[v * 4]).toBe(head);
      expect(d.mesh.weights[v * 4]).toBe(1);
      const p = [P[v * 3]!, P[v * 3 + 1]!, P[v * 3 + 2]!];
      if (Math.min(...segs.map(([a, b]) => segDist(p, a, b))) > 0.07 * d.height) far++;
    }
    expect(far).toBeGreaterThan(20);
  });
});

describe('built-in character: GLB', () => {
  for (const [name, d] of VARIANTS) {
    it(`${name}: characterToGlb passes the Khronos validator with 0 errors and 0 warnings; NodeIO reads back joints, vertices, clips`, async () => {
      const glb = await characterToGlb(d);
      const report = await validator.validateBytes(glb, { maxIssues: 100 });
      const msgs = report.issues.messages.map((m: { code: string; pointer?: string; severity: number }) => `${m.severity} ${m.code} ${m.pointer ?? ''}`);
      expect(report.issues.numErrors, msgs.join('\n')).toBe(0);
      expect(report.issues.numWarnings, msgs.join('\n')).toBe(0);

      const doc = await new NodeIO().readBinary(glb);
      const root = doc.getRoot();
      const skin = root.listSkins()[0]!;
      expect(skin.listJoints().map((j) => j.getName())).toEqual(d.bones.map((b) => b.name));
      const prim = root.listMeshes()[0]!.listPrimitives()[0]!;
      expect(prim.getAttribute('POSITION')!.getCount()).toBe(d.mesh.positions.length / 3);
      expect(prim.getIndices()!.getCount()).toBe(d.mesh.indices.length);
      expect(root.listAnimations().map((a) => a.getName())).toEqual(CLIP_NAMES);
      const ibm = skin.getInverseBindMatrices()!.getArray()!;
      expect(Array.from(ibm)).toEqual(Array.from(d.inverseBind));
      // joint hierarchy survives
      for (const j of skin.listJoints()) {
        const b = d.bones[boneIdx(d, j.getName())]!;
        const parentName = j.getParentNode()?.getName();
        expect(parentName ?? null).toBe(b.parent < 0 ? null : d.bones[b.parent]!.name);
      }
    });
  }

  it("three's GLTFLoader parses the GLB in Node: same bone names, vertex count and clip names", async () => {
    const glb = await characterToGlb(chain);
    const ab = glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength) as ArrayBuffer;
    const gltf = await new Promise<{ scene: THREE.Group; animations: THREE.AnimationClip[] }>((resolve, reject) =>
      new GLTFLoader().parse(ab, '', resolve as never, reject),
    );
    let sm: THREE.SkinnedMesh | null = null;
    gltf.scene.traverse((o) => { if ((o as THREE.SkinnedMesh).isSkinnedMesh) sm = o as THREE.SkinnedMesh; });
    expect(sm).not.toBeNull();
    const s = sm! as THREE.SkinnedMesh;
    expect(s.skeleton.bones.map((b) => b.name)).toEqual(chain.bones.map((b) => b.name));
    expect(s.geometry.getAttribute('position').count).toBe(chain.mesh.positions.length / 3);
    expect(gltf.animations.map((a) => a.name)).toEqual(CLIP_NAMES);
  });

  it('characterToDocument keeps the bind TRS on the joint nodes', () => {
    const doc = characterToDocument(chain);
    const joints = doc.getRoot().listSkins()[0]!.listJoints();
    joints.forEach((j, i) => {
      expect(j.getTranslation()).toEqual(chain.bones[i]!.t);
      expect(j.getRotation()).toEqual(chain.bones[i]!.r);
    });
  });
});

describe('built-in character: three.js', () => {
  it('characterToThree: skeleton bind matches inverseBind, bone world × inverse = identity (1e-6)', () => {
    const c = characterToThree(chain);
    expect(c.mesh.isSkinnedMesh).toBe(true);
    expect(c.bones.map((b) => b.name)).toEqual(chain.bones.map((b) => b.name));
    c.root.updateMatrixWorld(true);
    c.skeleton.boneInverses.forEach((m, i) => {
      for (let k = 0; k < 16; k++) expect(Math.abs(m.elements[k]! - chain.inverseBind[i * 16 + k]!)).toBeLessThan(1e-6);
      const p = new THREE.Matrix4().multiplyMatrices(c.bones[i]!.matrixWorld, m);
      for (let k = 0; k < 16; k++) expect(Math.abs(p.elements[k]! - (k % 5 === 0 ? 1 : 0))).toBeLessThan(1e-6);
    });
    expect(c.clips.map((k) => k.name)).toEqual(CLIP_NAMES);
  });

  it("AnimationMixer plays 'walk' for 1 s: legs move (> 10°), Tail_* stay at their bind rotation, pose matches the engine-free sampler (1e-6)", () => {
    const c = characterToThree(chain);
    const mixer = new THREE.AnimationMixer(c.root);
    mixer.clipAction(c.clips.find((k) => k.name === 'walk')!).play();
    const legs = ['LeftUpLeg', 'LeftLeg', 'RightUpLeg', 'RightLeg'].map((n) => boneIdx(chain, n));
    const tails = chain.tailBoneNames.map((n) => boneIdx(chain, n));
    let maxLeg = 0;
    const sampler = createCharacterClipSampler(chain, 'walk');
    const n = chain.bones.length;
    const t = new Float64Array(n * 3), r = new Float64Array(n * 4), s = new Float64Array(n * 3);
    for (let f = 1; f <= 60; f++) {
      mixer.update(1 / 60);
      for (const i of legs) maxLeg = Math.max(maxLeg, quatAngle(c.bones[i]!.quaternion.toArray(), chain.bones[i]!.r));
      for (const i of tails) expect(c.bones[i]!.quaternion.toArray()).toEqual(chain.bones[i]!.r);
      if (f === 23) {
        characterBindPose(chain, t, r, s);
        sampleCharacterClip(sampler, mixer.time % 1, t, r, s);
        for (let i = 0; i < n; i++) {
          const q = c.bones[i]!.quaternion, p = c.bones[i]!.position;
          expect(quatAngle([q.x, q.y, q.z, q.w], r.subarray(i * 4, i * 4 + 4))).toBeLessThan(1e-6);
          expect(Math.hypot(p.x - t[i * 3]!, p.y - t[i * 3 + 1]!, p.z - t[i * 3 + 2]!)).toBeLessThan(1e-6);
        }
      }
    }
    expect(maxLeg).toBeGreaterThan((10 * Math.PI) / 180);
  });
});
