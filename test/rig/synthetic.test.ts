/**
 * The rig pass on a tiny model built in code: a tail tube skinned to the left shin behind a
 * box body. Checks validity first, then the same result under a translated, rotated, scaled
 * and mirrored bind space (the same character exported another way), normalised-byte weights,
 * a JOINTS_1 set, progress reporting and the browser-safe bytes API.
 */
import type { Document } from '@gltf-transform/core';
import { mat4, vec3 } from 'gl-matrix';
import { describe, expect, it } from 'vitest';
import { readGlbBytes, rigGlb, writeGlbBytes } from '../../rig/glb';
import { readSkinMesh } from '../../rig/meshData';
import { rigAppendages, type RigReport } from '../../rig/pass';
import { readSkinSkeleton } from '../../rig/skeleton';
import { polylineDistance } from '../fixtures/detail';
import { influenceKey, rawInfluences } from './helpers';
import { makeTinyDoc } from './tiny';
import { validateGlb } from './validate';

/** Transform the bind space by T: POSITION p' = T·p, IBM' = IBM·T⁻¹; scene nodes untouched. */
function transformBindSpace(doc: Document, T: mat4): void {
  const inv = mat4.invert(mat4.create(), T)!;
  for (const prim of doc.getRoot().listMeshes().flatMap((m) => m.listPrimitives())) {
    const acc = prim.getAttribute('POSITION')!;
    const a = acc.getArray()!;
    const v = vec3.create();
    for (let i = 0; i < a.length; i += 3) {
      vec3.transformMat4(v, [a[i]!, a[i + 1]!, a[i + 2]!], T);
      a[i] = v[0]!;
      a[i + 1] = v[1]!;
      a[i + 2] = v[2]!;
    }
    acc.setArray(a);
  }
  for (const skin of doc.getRoot().listSkins()) {
    const acc = skin.getInverseBindMatrices()!;
    const a = acc.getArray()!;
    const m = mat4.create();
    for (let i = 0; i < a.length; i += 16) {
      mat4.multiply(m, a.subarray(i, i + 16) as unknown as mat4, inv);
      for (let k = 0; k < 16; k++) a[i + k] = m[k]!;
    }
    acc.setArray(a);
  }
}

function chainOf(r: RigReport): RigReport['appendages'][number] {
  const c = r.appendages.filter((a) => a.verdict === 'chain');
  expect(c).toHaveLength(1);
  return c[0]!;
}

describe('rig pass on a tiny model with a tail', () => {
  it('writes a valid GLB with one chain under Hips and the tail weighted to it', async () => {
    const { doc, truth } = makeTinyDoc({ tail: true });
    const skin = doc.getRoot().listSkins()[0]!;
    const before = rawInfluences(doc, skin);
    const steps: [string, number][] = [];
    const r = rigAppendages(doc, { onProgress: (s, f) => steps.push([s, f]) });
    const c = chainOf(r);
    expect(c.attachment).toBe('Hips');
    expect(c.joints[0]).toBe('Tail_1');
    // Progress: named steps, fractions in [0, 1], never going back, ending at 1.
    expect(steps.length).toBeGreaterThan(3);
    for (let i = 1; i < steps.length; i++) expect(steps[i]![1]).toBeGreaterThanOrEqual(steps[i - 1]![1]);
    expect(steps[steps.length - 1]).toEqual(['done', 1]);
    const v = await validateGlb(await writeGlbBytes(doc));
    expect(v.errors).toBe(0);
    // Tail vertices only on Tail_* / Hips; every other vertex untouched.
    const skel = readSkinSkeleton(skin, null);
    const mesh = readSkinMesh(doc, skin);
    const after = rawInfluences(doc, skin);
    for (let vtx = 0; vtx < mesh.count; vtx++) {
      const inTail = vtx >= truth.tailRange[0] && vtx < truth.tailRange[1];
      if (!inTail) {
        expect(influenceKey(after, vtx)).toBe(influenceKey(before, vtx));
        continue;
      }
      for (let k = 0; k < 4; k++) {
        if (mesh.weights[4 * vtx + k]! > 0) expect(skel.names[mesh.joints[4 * vtx + k]!]).toMatch(/^(Tail_\d+|Hips)$/);
      }
    }
    // Joints on the tail's centre line: mean within 5 % of its length (tube of radius ≤ 5 % of it).
    const len = truth.centre.reduce((s, _, i, a) => (i >= 3 && i % 3 === 0 ? s + Math.hypot(a[i]! - a[i - 3]!, a[i + 1]! - a[i - 2]!, a[i + 2]! - a[i - 1]!) : s), 0);
    let sum = 0;
    for (const n of c.joints) {
      const j = skel.names.indexOf(n);
      sum += polylineDistance(truth.centre, skel.positions[3 * j]!, skel.positions[3 * j + 1]!, skel.positions[3 * j + 2]!);
    }
    expect(sum / c.joints.length / len).toBeLessThan(0.05);
    expect(c.boneDistanceAfter).toBeLessThan(c.boneDistanceBefore / 2);
  });

  it('finds nothing on the same model without a tail and changes nothing', () => {
    const { doc } = makeTinyDoc({ tail: false });
    const skin = doc.getRoot().listSkins()[0]!;
    const before = rawInfluences(doc, skin);
    const r = rigAppendages(doc);
    expect(r.chains).toBe(0);
    expect(r.changedVertices).toBe(0);
    expect(rawInfluences(doc, skin).values).toEqual(before.values);
    expect(skin.listJoints()).toHaveLength(9);
  });

  const transforms: [string, mat4][] = [
    ['translated', mat4.fromTranslation(mat4.create(), [5, -3, 2])],
    ['rotated 40° about an oblique axis', mat4.fromRotation(mat4.create(), (40 * Math.PI) / 180, vec3.normalize(vec3.create(), [1, 0.3, 0.2]))],
    ['scaled ×100 (centimetres)', mat4.fromScaling(mat4.create(), [100, 100, 100])],
    ['mirrored in x', mat4.fromScaling(mat4.create(), [-1, 1, 1])],
    ['all at once', mat4.multiply(mat4.create(), mat4.fromTranslation(mat4.create(), [0.4, 7, -2]), mat4.multiply(mat4.create(), mat4.fromRotation(mat4.create(), 2.1, vec3.normalize(vec3.create(), [-0.2, 1, 0.5])), mat4.fromScaling(mat4.create(), [-30, 30, 30])))],
  ];
  it.each(transforms)('gives the same chain in a %s bind space', (_label, T) => {
    const ref = makeTinyDoc({ tail: true }).doc;
    const r0 = rigAppendages(ref);
    const doc = makeTinyDoc({ tail: true }).doc;
    transformBindSpace(doc, T);
    const r1 = rigAppendages(doc);
    const scale = Math.cbrt(Math.abs(mat4.determinant(T)));
    // Positions are stored as float32 (relative precision ~6e-8 of the coordinates, which
    // include the translation), so tolerances are relative 1e-5.
    const rel = (a: number, b: number): number => Math.abs(a - b) / Math.abs(b);
    // Same decisions and sizes; lengths scale with T.
    expect(r1.appendages.map((a) => [a.verdict, a.attachment, a.vertexCount, a.changedVertexCount, a.segments])).toEqual(
      r0.appendages.map((a) => [a.verdict, a.attachment, a.vertexCount, a.changedVertexCount, a.segments]),
    );
    expect(rel(r1.height / r0.height, scale)).toBeLessThan(1e-5);
    const c0 = chainOf(r0), c1 = chainOf(r1);
    expect(rel(c1.length / c0.length, scale)).toBeLessThan(1e-5);
    expect(rel(c1.elongation, c0.elongation)).toBeLessThan(1e-5);
    // Joints move with the bind space (1e-5 of the height); node translations are identical (1e-4)
    // (each bone is a pure translation in the pelvis's frame, which moved with it).
    const s0 = readSkinSkeleton(ref.getRoot().listSkins()[0]!, null);
    const s1 = readSkinSkeleton(doc.getRoot().listSkins()[0]!, null);
    const p = vec3.create();
    for (const n of c0.joints) {
      const j0 = s0.names.indexOf(n), j1 = s1.names.indexOf(n);
      vec3.transformMat4(p, [s0.positions[3 * j0]!, s0.positions[3 * j0 + 1]!, s0.positions[3 * j0 + 2]!], T);
      const d = Math.hypot(p[0]! - s1.positions[3 * j1]!, p[1]! - s1.positions[3 * j1 + 1]!, p[2]! - s1.positions[3 * j1 + 2]!);
      expect(d / r1.height).toBeLessThan(1e-5);
      const t0 = s0.nodes[j0]!.getTranslation(), t1 = s1.nodes[j1]!.getTranslation();
      for (let k = 0; k < 3; k++) expect(t1[k]!).toBeCloseTo(t0[k]!, 4);
    }
    // Identical weights (1e-5).
    const m0 = readSkinMesh(ref, ref.getRoot().listSkins()[0]!);
    const m1 = readSkinMesh(doc, doc.getRoot().listSkins()[0]!);
    expect(Array.from(m1.joints)).toEqual(Array.from(m0.joints));
    for (let i = 0; i < m0.weights.length; i++) expect(Math.abs(m1.weights[i]! - m0.weights[i]!)).toBeLessThan(1e-5);
  });

  it('keeps normalised unsigned-byte weights valid (integer sums exactly 255)', async () => {
    const { doc, truth } = makeTinyDoc({ tail: true, weights: 'ubyte' });
    chainOf(rigAppendages(doc));
    const w = doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!.getAttribute('WEIGHTS_0')!;
    expect(w.getComponentType()).toBe(5121);
    const a = w.getArray()!;
    for (let v = truth.tailRange[0]; v < truth.tailRange[1]; v++) expect(a[4 * v]! + a[4 * v + 1]! + a[4 * v + 2]! + a[4 * v + 3]!).toBe(255);
    expect((await validateGlb(await writeGlbBytes(doc))).errors).toBe(0);
  });

  it('clears JOINTS_1/WEIGHTS_1 of re-weighted vertices and keeps the others', async () => {
    const { doc, truth } = makeTinyDoc({ tail: true });
    const prim = doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!;
    const n = prim.getAttribute('POSITION')!.getCount();
    const buf = doc.getRoot().listBuffers()[0]!;
    // Second influence set: a quarter of every vertex on the next joint (never its first one).
    const J1 = new Uint8Array(4 * n);
    const W1 = new Float32Array(4 * n);
    const W0 = prim.getAttribute('WEIGHTS_0')!.getArray()!;
    const J0 = prim.getAttribute('JOINTS_0')!.getArray()!;
    for (let v = 0; v < n; v++) {
      J1[4 * v] = (J0[4 * v]! + 1) % 9;
      W1[4 * v] = 0.25;
      W0[4 * v] = 0.75;
    }
    prim.getAttribute('WEIGHTS_0')!.setArray(W0);
    prim.setAttribute('JOINTS_1', doc.createAccessor('j1').setType('VEC4').setArray(J1).setBuffer(buf));
    prim.setAttribute('WEIGHTS_1', doc.createAccessor('w1').setType('VEC4').setArray(W1).setBuffer(buf));
    const before = rawInfluences(doc, doc.getRoot().listSkins()[0]!);
    expect((await validateGlb(await writeGlbBytes(doc))).errors).toBe(0);
    chainOf(rigAppendages(doc));
    const after = rawInfluences(doc, doc.getRoot().listSkins()[0]!);
    const w1 = prim.getAttribute('WEIGHTS_1')!.getArray()!;
    for (let v = 0; v < n; v++) {
      const inTail = v >= truth.tailRange[0] && v < truth.tailRange[1];
      if (inTail) expect(w1[4 * v]).toBe(0);
      else expect(influenceKey(after, v)).toBe(influenceKey(before, v));
    }
    expect((await validateGlb(await writeGlbBytes(doc))).errors).toBe(0);
  });

  it('never reuses a bone name: with a node already called Tail_1 the chain is Tail2_1…', () => {
    const { doc } = makeTinyDoc({ tail: true });
    doc.getRoot().listScenes()[0]!.addChild(doc.createNode('Tail_1'));
    const c = chainOf(rigAppendages(doc));
    expect(c.joints[0]).toBe('Tail2_1');
    expect(c.joints[c.joints.length - 1]).toBe('Tail2_End');
  });

  it('rigGlb runs the whole pass on bytes (the browser path) and the result reads back', async () => {
    const bytes = await writeGlbBytes(makeTinyDoc({ tail: true }).doc);
    const { glb, report } = await rigGlb(bytes, {});
    expect(report.chains).toBe(1);
    const back = await readGlbBytes(glb);
    const names = back.getRoot().listSkins()[0]!.listJoints().map((j) => j.getName());
    expect(names.slice(-2)).toEqual([`Tail_${report.appendages[0]!.segments}`, 'Tail_End']);
    expect(report.notes.some((n) => /drops the extension/.test(n))).toBe(false);
  });

  it('a GLB using extensions bitrig cannot keep (a VRM): the report says the output drops them (review 23)', async () => {
    const bytes = await writeGlbBytes(makeTinyDoc({ tail: true }).doc);
    // add "extensionsUsed": ["VRMC_vrm"] to the JSON chunk
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const jlen = dv.getUint32(12, true);
    const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jlen))) as Record<string, unknown>;
    json.extensionsUsed = [...((json.extensionsUsed as string[] | undefined) ?? []), 'VRMC_vrm'];
    let text = JSON.stringify(json);
    while (text.length % 4) text += ' ';
    const rest = bytes.subarray(20 + jlen);
    const out = new Uint8Array(20 + text.length + rest.length);
    const odv = new DataView(out.buffer);
    odv.setUint32(0, 0x46546c67, true); odv.setUint32(4, 2, true); odv.setUint32(8, out.length, true);
    odv.setUint32(12, text.length, true); odv.setUint32(16, 0x4e4f534a, true);
    out.set(new TextEncoder().encode(text), 20);
    out.set(rest, 20 + text.length);
    const { report } = await rigGlb(out, {});
    expect(report.chains).toBe(1);
    expect(report.notes).toContainEqual(expect.stringMatching(/the output drops the extension VRMC_vrm/));
  });
});
