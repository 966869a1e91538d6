/**
 * Unit tests of the rig pass's parts: the blended weights formula, eigenvalues, welding,
 * geodesics, percentiles, K, options, GLB framing, weight writing. Tiny inputs made in code.
 */
import { Accessor, Document } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { bridgeShells, chainJoints, chainWeights, geodesic, percentileOf, segmentCount } from '../../rig/chain';
import { symEigen3 } from '../../rig/detect';
import { boneSegments, skeletonDistance } from '../../rig/distance';
import { checkGlbBytes, readGlbBytes, unknownExtensions } from '../../rig/glb';
import { readSkinMesh, writeInfluences } from '../../rig/meshData';
import { mergeRigOptions, RIG_DEFAULTS } from '../../rig/options';
import { weldGraph } from '../../rig/weld';

describe('chainWeights (blended weights)', () => {
  const out = [0, 0, 0, 0];
  const w = (g: number, K = 4, L = 1): Record<number, number> => {
    const c = chainWeights(g, K, L, out);
    const r: Record<number, number> = {};
    for (let k = 0; k < c; k++) r[out[2 * k]!] = (r[out[2 * k]!] ?? 0) + out[2 * k + 1]!;
    return r;
  };
  // Tolerance: 1e-9 (double arithmetic on small numbers; one case sits 1e-12 from a joint).
  const close = (a: Record<number, number>, b: Record<number, number>): void => {
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    for (const k of Object.keys(b)) expect(a[+k]!).toBeCloseTo(b[+k]!, 9);
  };
  it('meets 50/50 at a joint and owns mid-segment skin outright', () => {
    close(w(0), { 0: 0.5, 1: 0.5 }); // root: prev is the pelvis (bone 0)
    close(w(0.125), { 1: 1 }); // f = 0.5: mid segment
    close(w(0.25 - 1e-12), { 1: 0.5, 2: 0.5 }); // f → 1: next at 0.5
    close(w(0.25), { 2: 0.5, 1: 0.5 }); // f = 0 of segment 1: prev 0.5
    close(w(0.03125), { 1: 0.75, 0: 0.25 }); // f = 0.125: w_prev = 0.5 − 2·0.125 = 0.25
    close(w(0.0625), { 1: 1 }); // f = 0.25: w_prev = 0
  });
  it('follows w_prev = clamp(0.5 − 2f), w_next = clamp(2f − 1.5) inside a segment', () => {
    for (const f of [0, 0.1, 0.2, 0.25, 0.5, 0.75, 0.8, 0.9, 0.99]) {
      const s = 1 + f; // segment k = 1, owner bone 2
      const r = w(s / 4);
      const prev = Math.min(0.5, Math.max(0, 0.5 - 2 * f));
      const next = Math.min(0.5, Math.max(0, 2 * f - 1.5));
      expect(r[1] ?? 0).toBeCloseTo(prev, 12);
      expect(r[3] ?? 0).toBeCloseTo(next, 12);
      expect(r[2]!).toBeCloseTo(1 - prev - next, 12);
    }
  });
  it('keeps the last segment on bone K (Tail_End carries no weight), past L too', () => {
    close(w(0.99), { 4: 1 });
    close(w(1.5), { 4: 1 });
  });
  it('continues the ramp into the pelvis on the body side of the collar (g < 0)', () => {
    close(w(-0.03125), { 0: 0.75, 1: 0.25 }); // s = −0.125: Tail_1 gets 0.5 − 2·0.125
    close(w(-0.0625), { 0: 1 }); // a quarter segment behind the collar: all pelvis
    close(w(-0.5), { 0: 1 });
  });
  it('sums to 1 everywhere and never returns NaN', () => {
    for (let g = -0.3; g < 1.3; g += 0.0137) {
      const c = chainWeights(g, 5, 1, out);
      let s = 0;
      for (let k = 0; k < c; k++) {
        expect(Number.isFinite(out[2 * k + 1]!)).toBe(true);
        s += out[2 * k + 1]!;
      }
      expect(s).toBeCloseTo(1, 12);
    }
    expect(chainWeights(NaN, 4, 1, out)).toBe(1);
    expect(out[0]).toBe(0);
    expect(chainWeights(0.5, 4, 0, out)).toBe(1);
  });
});

describe('segmentCount, percentileOf', () => {
  it('K = clamp(round(L / 0.1H), 3, 8)', () => {
    expect(segmentCount(0.81, 1.91, 0.1, 3, 8)).toBe(4); // the fox: 81 cm on 191 cm → 4
    expect(segmentCount(0.1, 1, 0.1, 3, 8)).toBe(3);
    expect(segmentCount(5, 1, 0.1, 3, 8)).toBe(8);
  });
  it('nearest-rank percentile over the given ids, ignoring infinities', () => {
    const v = new Float64Array(101);
    for (let i = 0; i <= 100; i++) v[i] = i;
    const ids = Array.from({ length: 101 }, (_, i) => i);
    expect(percentileOf(v, ids, 0.99)).toBe(99);
    expect(percentileOf(v, ids, 1)).toBe(100);
    v[50] = Infinity;
    expect(percentileOf(v, [50], 0.5)).toBe(0);
  });
});

describe('symEigen3', () => {
  it('returns the eigenvalues of a rotated diagonal matrix, descending (1e-9)', () => {
    // R diag(9, 4, 1) Rᵀ with R a rotation about z by 30°.
    const c = Math.cos(Math.PI / 6), s = Math.sin(Math.PI / 6);
    const a = 9 * c * c + 4 * s * s, b = (9 - 4) * c * s, d = 9 * s * s + 4 * c * c;
    const e = symEigen3(a, b, 0, d, 0, 1);
    expect(e[0]).toBeCloseTo(9, 9);
    expect(e[1]).toBeCloseTo(4, 9);
    expect(e[2]).toBeCloseTo(1, 9);
    expect(symEigen3(2, 0, 0, 5, 0, 3)).toEqual([5, 3, 2]);
  });
});

describe('weldGraph', () => {
  it('joins seam duplicates and builds edges over welded ids', () => {
    // Two triangles sharing an edge, with the shared vertices duplicated (a UV seam).
    const P = new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, /* dup */ 1, 0, 0, 0, 1, 0, 1, 1, 0]);
    const g = weldGraph(P, new Uint32Array([0, 1, 2, 3, 5, 4]), 1e-6);
    expect(g.count).toBe(4);
    expect(g.weldOf[3]).toBe(g.weldOf[1]);
    expect(g.weldOf[4]).toBe(g.weldOf[2]);
    // Welded vertex 1 touches 0, 2, 3 (ids after welding).
    const n1 = new Set(Array.from(g.adj.subarray(g.adjStart[g.weldOf[1]!]!, g.adjStart[g.weldOf[1]! + 1]!)));
    expect(n1).toEqual(new Set([g.weldOf[0], g.weldOf[2], g.weldOf[5]]));
    expect(Array.from(g.members.subarray(g.membersStart[g.weldOf[1]!]!, g.membersStart[g.weldOf[1]! + 1]!)).sort()).toEqual([1, 3]);
  });
  it('keeps distinct positions apart', () => {
    const P = new Float64Array([0, 0, 0, 1e-3, 0, 0]);
    expect(weldGraph(P, new Uint32Array(0), 1e-5).count).toBe(2);
  });
});

describe('geodesic, bridgeShells, chainJoints', () => {
  // A strip of quads along x: 0…10, two rows (y = 0, 1).
  const n = 11;
  const P = new Float64Array(6 * n);
  const tris: number[] = [];
  for (let i = 0; i < n; i++) {
    P.set([i, 0, 0], 3 * i);
    P.set([i, 1, 0], 3 * (n + i));
    if (i + 1 < n) tris.push(i, i + 1, n + i, i + 1, n + i + 1, n + i);
  }
  const g = weldGraph(P, Uint32Array.from(tris), 1e-6);
  const all = new Uint8Array(g.count).fill(1);
  it('measures edge-length distances from the sources (1e-12)', () => {
    const d = geodesic(g, [g.weldOf[0]!, g.weldOf[n]!], all);
    for (let i = 0; i < n; i++) expect(d[g.weldOf[i]!]).toBeCloseTo(i, 12);
  });
  it('does not leave the allowed set', () => {
    const allowed = new Uint8Array(g.count);
    for (let i = 0; i < 5; i++) allowed[g.weldOf[i]!] = 1;
    const d = geodesic(g, [g.weldOf[0]!], allowed);
    expect(d[g.weldOf[4]!]).toBeCloseTo(4, 12);
    expect(d[g.weldOf[6]!]).toBe(Infinity);
  });
  it('bridges a gap to an unwelded shell from the nearest reached vertex', () => {
    const allowed = new Uint8Array(g.count);
    for (let i = 0; i < n; i++) if (i !== 5) allowed[g.weldOf[i]!] = allowed[g.weldOf[n + i]!] = 1;
    const d = geodesic(g, [g.weldOf[0]!], allowed);
    expect(d[g.weldOf[8]!]).toBe(Infinity);
    const domain = Array.from({ length: g.count }, (_, i) => i).filter((i) => allowed[i]);
    bridgeShells(g, domain, d);
    // Vertex 6 is 2 from vertex 4 (d = 4) straight across the missing column: 6 (±1e-12).
    expect(d[g.weldOf[6]!]).toBeCloseTo(6, 12);
    expect(d[g.weldOf[10]!]).toBeCloseTo(10, 12);
  });
  it('places joints at the centroids of the geodesic bands and smooths interior joints', () => {
    const d = geodesic(g, [g.weldOf[0]!, g.weldOf[n]!], all);
    const ids = Array.from({ length: g.count }, (_, i) => i);
    const J = chainJoints(g.positions, ids, d, 10, 5, [0, 0.5, 0], 2);
    for (let i = 0; i <= 5; i++) {
      expect(J[3 * i + 1]).toBeCloseTo(0.5, 12);
      expect(J[3 * i + 2]).toBeCloseTo(0, 12);
    }
    // Interior joints at 2i (bands 2i ± 1, smoothing keeps a straight line); the tip band
    // 10 ± 1 holds the columns 9 and 10 → 9.5.
    expect(J[3 * 1]).toBeCloseTo(2, 9);
    expect(J[3 * 5]).toBeCloseTo(9.5, 9);
  });
});

describe('skeleton distance field', () => {
  it('measures to segments with a leaf stub past the leaf joint (1e-12)', () => {
    const skel = { positions: [0, 0, 0, 0, 1, 0], parents: [-1, 0] };
    const segs = boneSegments(skel, null, 0.5);
    const out = new Float64Array(3);
    skeletonDistance(segs, new Float64Array([1, 0.5, 0, 0, 1.4, 0, 0, 2, 0]), out, null);
    expect(out[0]).toBeCloseTo(1, 12);
    expect(out[1]).toBeCloseTo(0, 12); // inside the stub (1 … 1.5)
    expect(out[2]).toBeCloseTo(0.5, 12); // past the stub end
  });
  it('ignores the segments of joints that are not included', () => {
    const skel = { positions: [0, 0, 0, 0, 1, 0, 0, 2, 0], parents: [-1, 0, 1] };
    const segs = boneSegments(skel, [0, 1, 1], 0);
    const out = new Float64Array(1);
    skeletonDistance(segs, new Float64Array([1, 0.5, 0]), out, null);
    expect(out[0]).toBeCloseTo(Math.hypot(1, 0.5), 12); // 0→1 is weightless: only 1→2 and the leaf
  });
});

describe('mergeRigOptions', () => {
  it('fills the defaults and names bad fields', () => {
    expect(mergeRigOptions({}).farFraction).toBe(RIG_DEFAULTS.farFraction);
    expect(mergeRigOptions({ mode: 'rigid' }).mode).toBe('rigid');
    expect(() => mergeRigOptions({ mode: 'bones' as never })).toThrow(/bitrig\/rig: mode/);
    expect(() => mergeRigOptions({ farFraction: -1 })).toThrow(/farFraction/);
    expect(() => mergeRigOptions({ include: ['arms' as never] })).toThrow(/include/);
    expect(() => mergeRigOptions({ maxSegments: 9 })).toThrow(/segments/);
  });
});

describe('checkGlbBytes', () => {
  const glb = (length: number, chunks: [number, number][]): Uint8Array => {
    const size = 12 + chunks.reduce((s, c) => s + 8 + c[0], 0);
    const b = new Uint8Array(size);
    const dv = new DataView(b.buffer);
    dv.setUint32(0, 0x46546c67, true);
    dv.setUint32(4, 2, true);
    dv.setUint32(8, length, true);
    let o = 12;
    for (const [len, type] of chunks) {
      dv.setUint32(o, len, true);
      dv.setUint32(o + 4, type, true);
      o += 8 + len;
    }
    return b;
  };
  it('accepts well-framed bytes and names each framing problem', () => {
    expect(() => checkGlbBytes(glb(12 + 8 + 4, [[4, 0x4e4f534a]]))).not.toThrow();
    // A .gltf (JSON) file is named as one, with how to convert it (review 26 L12).
    expect(() => checkGlbBytes(new TextEncoder().encode('{"asset":{}}'))).toThrow(/not a GLB file: it starts with "\{", so it is a glTF JSON file \(\.gltf\); convert it .*npx @gltf-transform\/cli copy in\.gltf out\.glb/);
    expect(() => checkGlbBytes(new TextEncoder().encode('\ufeff\n  {"asset":{}}'))).toThrow(/glTF JSON file/);
    expect(() => checkGlbBytes(new TextEncoder().encode('glTX and more bytes'))).toThrow(/not a GLB file \(starts with "glTX", expected "glTF"\)/);
    expect(() => checkGlbBytes(new Uint8Array(5))).toThrow(/not a GLB file/);
    expect(() => checkGlbBytes(glb(1000, [[4, 0x4e4f534a]]))).toThrow(/truncated GLB \(header says 1000 bytes, the file has 24\)/);
    expect(() => checkGlbBytes(glb(12 + 8 + 4, [[40, 0x4e4f534a]]).subarray(0, 24))).toThrow(/truncated GLB/);
    expect(() => checkGlbBytes(glb(12 + 8 + 4, [[4, 0x004e4942]]))).toThrow(/first chunk is not JSON/);
  });
});

describe('readGlbBytes', () => {
  const withJson = (json: object): Uint8Array => {
    let text = JSON.stringify(json);
    while (text.length % 4) text += ' ';
    const b = new Uint8Array(20 + text.length);
    const dv = new DataView(b.buffer);
    dv.setUint32(0, 0x46546c67, true); dv.setUint32(4, 2, true); dv.setUint32(8, b.length, true);
    dv.setUint32(12, text.length, true); dv.setUint32(16, 0x4e4f534a, true);
    b.set(new TextEncoder().encode(text), 20);
    return b;
  };
  it('names a required mesh compression it cannot decode (Draco, meshopt); an optional one (with fallbacks) is read (review 23)', async () => {
    for (const ext of ['KHR_draco_mesh_compression', 'EXT_meshopt_compression']) {
      await expect(readGlbBytes(withJson({ asset: { version: '2.0' }, extensionsUsed: [ext], extensionsRequired: [ext] }))).rejects.toThrow(new RegExp(`^bitrig/rig: the GLB's meshes are compressed with ${ext}, which bitrig does not decode`));
    }
    await expect(readGlbBytes(withJson({ asset: { version: '2.0' }, extensionsUsed: ['EXT_meshopt_compression'] }))).resolves.toBeDefined();
  });
  it('unknownExtensions lists what the reader cannot keep (a VRM\'s VRMC_vrm), not the extensions it knows (review 23)', () => {
    expect(unknownExtensions(withJson({ asset: { version: '2.0' }, extensionsUsed: ['VRMC_vrm', 'KHR_materials_unlit', 'VRMC_springBone'] }))).toEqual(['VRMC_vrm', 'VRMC_springBone']);
    expect(unknownExtensions(withJson({ asset: { version: '2.0' } }))).toEqual([]);
  });

  it('reads bytes at any offset in their buffer (a view at byteOffset 1)', async () => {
    const b = withJson({ asset: { version: '2.0' }, nodes: [{ name: 'n' }] });
    const shifted = new Uint8Array(b.length + 1);
    shifted.set(b, 1);
    const doc = await readGlbBytes(shifted.subarray(1));
    expect(doc.getRoot().listNodes().map((n) => n.getName())).toEqual(['n']);
  });
});

describe('writeInfluences', () => {
  const make = (type: 'float' | 'ubyte' | 'ushort', joints: 'u8' | 'u16'): Document => {
    const doc = new Document();
    const buf = doc.createBuffer();
    const W = type === 'float' ? new Float32Array([1, 0, 0, 0, 1, 0, 0, 0]) : type === 'ubyte' ? new Uint8Array([255, 0, 0, 0, 255, 0, 0, 0]) : new Uint16Array([65535, 0, 0, 0, 65535, 0, 0, 0]);
    const J = joints === 'u8' ? new Uint8Array(8) : new Uint16Array(8);
    const wAcc = doc.createAccessor().setType(Accessor.Type.VEC4).setArray(W).setBuffer(buf).setNormalized(type !== 'float');
    const prim = doc
      .createPrimitive()
      .setAttribute('POSITION', doc.createAccessor().setType(Accessor.Type.VEC3).setArray(new Float32Array(6)).setBuffer(buf))
      .setAttribute('JOINTS_0', doc.createAccessor().setType(Accessor.Type.VEC4).setArray(J).setBuffer(buf))
      .setAttribute('WEIGHTS_0', wAcc);
    const skin = doc.createSkin();
    skin.addJoint(doc.createNode('a'));
    doc.createNode('m').setMesh(doc.createMesh().addPrimitive(prim)).setSkin(skin);
    return doc;
  };
  it('quantises normalised weights so the integers sum exactly to the maximum', () => {
    for (const [t, max] of [['ubyte', 255], ['ushort', 65535]] as const) {
      const doc = make(t, 'u8');
      const skin = doc.getRoot().listSkins()[0]!;
      const mesh = readSkinMesh(doc, skin);
      writeInfluences(mesh, [{ vertex: 1, joints: [3, 4, 5], weights: [1 / 3, 1 / 3, 1 / 3] }]);
      const prim = doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!;
      const W = prim.getAttribute('WEIGHTS_0')!.getArray()!;
      expect(W[4]! + W[5]! + W[6]! + W[7]!).toBe(max);
      expect(Array.from(W.subarray(0, 4))).toEqual([max, 0, 0, 0]); // other vertex untouched
      const J = prim.getAttribute('JOINTS_0')!.getArray()!;
      expect(Array.from(J.subarray(4, 8))).toEqual([3, 4, 5, 0]);
    }
  });
  it('writes integer weights at full range even when the accessor forgot the normalized flag', () => {
    const doc = make('ubyte', 'u8');
    const prim = doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!;
    prim.getAttribute('WEIGHTS_0')!.setNormalized(false);
    writeInfluences(readSkinMesh(doc, doc.getRoot().listSkins()[0]!), [{ vertex: 0, joints: [1, 2], weights: [0.5, 0.5] }]);
    const W = prim.getAttribute('WEIGHTS_0')!.getArray()!;
    expect(W[0]! + W[1]!).toBe(255);
    expect(Math.abs(W[0]! - W[1]!)).toBeLessThanOrEqual(1);
  });

  it('widens unsigned-byte joints when an index exceeds 255', () => {
    const doc = make('float', 'u8');
    const mesh = readSkinMesh(doc, doc.getRoot().listSkins()[0]!);
    writeInfluences(mesh, [{ vertex: 0, joints: [300], weights: [1] }]);
    const jAcc = doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!.getAttribute('JOINTS_0')!;
    expect(jAcc.getComponentType()).toBe(Accessor.ComponentType.UNSIGNED_SHORT);
    expect(Array.from(jAcc.getArray()!.subarray(0, 4))).toEqual([300, 0, 0, 0]);
  });
});
