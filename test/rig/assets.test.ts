/**
 * Acceptance of the rig pass on real geometry (issue 2), fixtures generated at test time from
 * ../shared/assets: de-tailed animals (the auto-rigger failure), humanoids with a generated
 * tail tube skinned to the left shin, and negatives (plain humanoids, RobotExpressive, a
 * humanoid with a skirt). Skipped with a printed reason when the assets are absent.
 */
import type { Document } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { writeGlbBytes, readGlbBytes } from '../../rig/glb';
import { jointBones, weightedBoneDistance } from '../../rig/distance';
import { readSkinMesh } from '../../rig/meshData';
import { rigAppendages } from '../../rig/pass';
import { readSkinSkeleton } from '../../rig/skeleton';
import { hasAsset, hasMixamo, loadAsset, warnIfNoAssets, type AssetName } from '../fixtures/assets';
import { ANIMAL_PRESETS, addSkirt, addTailTube, detailAnimal, polylineDistance, type TailTruth } from '../fixtures/detail';
import { clipSnapshot, influenceKey, rawInfluences } from './helpers';
import { validateGlb } from './validate';

warnIfNoAssets();

interface FailureCase {
  label: string;
  asset: AssetName;
  build: (doc: Document) => TailTruth;
  /**
   * Mean distance of the grown joints to the artist's chain, as a fraction of its length.
   * null where the artist's chain does not follow the tail's skin (see the shiba note).
   */
  jointTolerance: number | null;
  /**
   * Does the fixture itself (before the pass) validate clean? The Soldier's own weights do not
   * sum to 1 on 65 vertices (hidden in the original file behind its byte-stride errors); the
   * pass keeps other vertices exactly, so its output keeps exactly those errors and no more.
   */
  cleanInput: boolean;
}

const FAILURES: FailureCase[] = [
  { label: 'quaternius-fox de-tailed', asset: 'quaternius-fox', build: (d) => detailAnimal(d, ANIMAL_PRESETS['quaternius-fox']), jointTolerance: 0.1, cleanInput: true },
  { label: 'khronos-fox de-tailed', asset: 'khronos-fox', build: (d) => detailAnimal(d, ANIMAL_PRESETS['khronos-fox']), jointTolerance: 0.1, cleanInput: true },
  // The Shiba's artist chain is three bones rising backward; its last bone carries the whole
  // tail curl lying over the back as one rigid lump, so the chain does not follow the skin.
  // The grown chain follows the curl (measured: 53 % of the artist chain's length away on
  // average); instead its joints must run inside the tail's own skin (checked for all).
  { label: 'quaternius-shiba-inu de-tailed', asset: 'quaternius-shiba-inu', build: (d) => detailAnimal(d, ANIMAL_PRESETS['quaternius-shiba-inu']), jointTolerance: null, cleanInput: true },
  { label: 'threejs-xbot + tail tube (own primitive)', asset: 'threejs-xbot', build: (d) => addTailTube(d, {}), jointTolerance: 0.1, cleanInput: true },
  { label: 'threejs-soldier + tail tube (appended to its primitive)', asset: 'threejs-soldier', build: (d) => addTailTube(d, { into: 'append' }), jointTolerance: 0.1, cleanInput: false },
];

describe('rig pass: the auto-rigger failure on real geometry', () => {
  // The Mixamo cases run only when ../shared/assets has them (warnIfNoAssets says why not).
  describe.each(FAILURES.filter((c) => hasAsset(c.asset)))('$label', ({ asset, build, jointTolerance, cleanInput }) => {
    it('grows exactly one chain on the pelvis, close to the artist chain, and re-weights only the tail', async () => {
      const doc = await loadAsset(asset);
      const truth = build(doc);
      const skin = truth.skin;
      const before = rawInfluences(doc, skin);
      const clipsBefore = clipSnapshot(doc);
      const skel0 = readSkinSkeleton(skin, null);
      const mesh0 = readSkinMesh(doc, skin);
      const bdBefore = weightedBoneDistance(jointBones(skel0, 0.5), mesh0.positions, mesh0.joints, mesh0.weights, mesh0.slots, truth.tailVertices);
      const inputValidation = await validateGlb(await writeGlbBytes(doc));
      expect(inputValidation.errors === 0).toBe(cleanInput);

      const report = rigAppendages(doc);

      // Exactly one chain, attached to the pelvis (its first bone a child of the pelvis node).
      const chains = report.appendages.filter((a) => a.verdict === 'chain');
      expect(chains).toHaveLength(1);
      expect(report.chains).toBe(1);
      const chain = chains[0]!;
      expect(chain.attachment).toBe(truth.pelvis);
      expect(chain.region).toBe('pelvis');
      const skel = readSkinSkeleton(skin, null);
      const names = chain.joints;
      expect(names[0]).toBe('Tail_1');
      expect(names[names.length - 1]).toBe('Tail_End');
      expect(names.length - 1).toBe(chain.segments);
      expect(chain.segments).toBeGreaterThanOrEqual(3);
      expect(chain.segments).toBeLessThanOrEqual(8);
      const idx = names.map((n) => skel.names.indexOf(n));
      expect(idx.every((i) => i >= 0)).toBe(true);
      expect(skel.parents[idx[0]!]).toBe(skel.names.indexOf(truth.pelvis));
      for (let k = 1; k < idx.length; k++) expect(skel.parents[idx[k]!]).toBe(idx[k - 1]);

      // Grown joints near the artist's chain: mean distance ≤ tolerance × the chain's length.
      let sum = 0;
      for (const j of idx) sum += polylineDistance(truth.chain, skel.positions[3 * j]!, skel.positions[3 * j + 1]!, skel.positions[3 * j + 2]!);
      const meanJointDistance = sum / idx.length / truth.length;
      if (jointTolerance !== null) expect(meanJointDistance).toBeLessThanOrEqual(jointTolerance);
      // Every joint past the root runs inside the tail: the mesh vertex nearest to it is tail skin.
      const mesh = readSkinMesh(doc, skin);
      for (const j of idx.slice(1)) {
        let best = Infinity;
        let bv = -1;
        for (let v = 0; v < mesh.count; v++) {
          const d = Math.hypot(mesh.positions[3 * v]! - skel.positions[3 * j]!, mesh.positions[3 * v + 1]! - skel.positions[3 * j + 1]!, mesh.positions[3 * v + 2]! - skel.positions[3 * j + 2]!);
          if (d < best) {
            best = d;
            bv = v;
          }
        }
        expect(truth.tailWeight[bv]!, `joint ${skel.names[j]} lies in the tail`).toBeGreaterThan(0);
      }

      // Weighted bone distance over the tail: drops ≥ 2× and ends within 1.5× the tail's mean radius.
      const bdAfter = weightedBoneDistance(jointBones(skel, 0.5), mesh.positions, mesh.joints, mesh.weights, mesh.slots, truth.tailVertices);
      expect(bdBefore / bdAfter).toBeGreaterThanOrEqual(2);
      expect(bdAfter).toBeLessThanOrEqual(1.5 * truth.meanRadius);

      // Every tail vertex is weighted only to Tail_* and the pelvis, at most 4 influences summing to 1.
      const allowed = new Set([...idx.slice(0, -1), skel.names.indexOf(truth.pelvis)]);
      const tailEnd = idx[idx.length - 1]!;
      for (const v of truth.tailVertices) {
        let s = 0;
        let n = 0;
        for (let k = 0; k < mesh.slots; k++) {
          const w = mesh.weights[mesh.slots * v + k]!;
          if (w > 0) {
            expect(allowed.has(mesh.joints[mesh.slots * v + k]!), `tail vertex ${v} on ${skel.names[mesh.joints[mesh.slots * v + k]!]}`).toBe(true);
            expect(mesh.joints[mesh.slots * v + k]).not.toBe(tailEnd);
            s += w;
            n++;
          }
        }
        expect(n).toBeLessThanOrEqual(4);
        expect(Math.abs(s - 1)).toBeLessThan(1e-6);
      }
      // No vertex without tail skin changes, bit for bit.
      const after = rawInfluences(doc, skin);
      let changedBody = 0;
      for (const v of truth.bodyVertices) if (influenceKey(before, v) !== influenceKey(after, v)) changedBody++;
      expect(changedBody).toBe(0);
      // Clips are left as they were.
      expect(clipSnapshot(doc)).toBe(clipsBefore);

      // The written GLB passes the Khronos validator with 0 errors (no more than the fixture's
      // own when it was not clean) and reads back with the chain.
      const glb = await writeGlbBytes(doc);
      const v = await validateGlb(glb);
      expect(v.codes).toEqual(inputValidation.codes);
      if (cleanInput) expect(v.errors).toBe(0);
      const back = await readGlbBytes(glb);
      const names2 = back.getRoot().listSkins().flatMap((s) => s.listJoints().map((j) => j.getName()));
      for (const n of names) expect(names2).toContain(n);

      console.info(
        `[rig] ${asset}: chain K=${chain.segments} on ${chain.attachment}, ${chain.changedVertexCount} vertices re-weighted, ` +
          `reach ${chain.reachRatio.toFixed(2)} H, elongation ${chain.elongation.toFixed(2)}, far ${chain.farFraction.toFixed(3)} H; ` +
          `joints ${(100 * meanJointDistance).toFixed(1)} % of tail length from the artist chain; ` +
          `bone distance ${bdBefore.toPrecision(3)} → ${bdAfter.toPrecision(3)} (radius ${truth.meanRadius.toPrecision(3)}); ${report.ms.toFixed(0)} ms`,
      );
    });

    it('rigid mode gives every piece vertex weight 1.0 on the pelvis and grows no bones', async () => {
      const doc = await loadAsset(asset);
      const truth = build(doc);
      const jointsBefore = truth.skin.listJoints().length;
      const inputValidation = await validateGlb(await writeGlbBytes(doc));
      const report = rigAppendages(doc, { mode: 'rigid' });
      const rigid = report.appendages.filter((a) => a.verdict === 'rigid');
      expect(rigid).toHaveLength(1);
      expect(report.chains).toBe(0);
      expect(truth.skin.listJoints().length).toBe(jointsBefore);
      const skel = readSkinSkeleton(truth.skin, null);
      const pelvis = skel.names.indexOf(truth.pelvis);
      expect(rigid[0]!.rigidBone).toBe(truth.pelvis);
      const mesh = readSkinMesh(doc, truth.skin);
      for (const v of truth.tailVertices) {
        expect(mesh.joints[mesh.slots * v]).toBe(pelvis);
        expect(mesh.weights[mesh.slots * v]).toBe(1);
        for (let k = 1; k < mesh.slots; k++) expect(mesh.weights[mesh.slots * v + k]).toBe(0);
      }
      expect(rigid[0]!.changedVertexCount).toBeGreaterThanOrEqual(truth.tailVertices.length);
      const v = await validateGlb(await writeGlbBytes(doc));
      expect(v.codes).toEqual(inputValidation.codes);
      if (cleanInput) expect(v.errors).toBe(0);
    });
  });
});

const NEGATIVES: AssetName[] = ['threejs-xbot', 'threejs-soldier', 'threejs-robot-expressive'];

describe('rig pass: negatives grow nothing', () => {
  it.each(NEGATIVES.filter((a) => hasAsset(a)))('%s: zero chains, output weights identical to the input, no new validator errors', async (asset) => {
    const doc = await loadAsset(asset);
    const skins = doc.getRoot().listSkins();
    const before = skins.map((s) => rawInfluences(doc, s));
    const jointsBefore = skins.map((s) => s.listJoints().length);
    const inputErrors = await validateGlb(await writeGlbBytes(await loadAsset(asset)));
    const report = rigAppendages(doc);
    expect(report.chains).toBe(0);
    expect(report.appendages.filter((a) => a.verdict !== 'left-alone')).toEqual([]);
    expect(report.changedVertices).toBe(0);
    skins.forEach((s, i) => {
      expect(s.listJoints().length).toBe(jointsBefore[i]);
      const after = rawInfluences(doc, s);
      expect(after.values).toEqual(before[i]!.values);
    });
    // RobotExpressive's own weights do not sum to 1 (178 errors in the original); the pass
    // must add none: the re-encoded output has exactly the errors of the re-encoded input.
    const out = await validateGlb(await writeGlbBytes(doc));
    expect(out.codes).toEqual(inputErrors.codes);
  });

  it.skipIf(!hasMixamo)('a humanoid with a skirt: left alone by default, rigid on the pelvis only when asked', async () => {
    const doc = await loadAsset('threejs-xbot');
    const skirt = addSkirt(doc);
    const before = rawInfluences(doc, skirt.skin);
    const report = rigAppendages(doc);
    expect(report.chains).toBe(0);
    expect(report.changedVertices).toBe(0);
    const worn = report.appendages.find((a) => a.region === 'pelvis' && /worn piece/.test(a.reason));
    expect(worn, 'the skirt is reported as a worn piece').toBeDefined();
    expect(worn!.verdict).toBe('left-alone');
    expect(rawInfluences(doc, skirt.skin).values).toEqual(before.values);

    const doc2 = await loadAsset('threejs-xbot');
    const skirt2 = addSkirt(doc2);
    const r2 = rigAppendages(doc2, { include: ['torso'] });
    expect(r2.chains).toBe(0);
    const rigid = r2.appendages.filter((a) => a.verdict === 'rigid');
    expect(rigid.length).toBeGreaterThanOrEqual(1);
    expect(rigid.some((a) => a.rigidBone === skirt2.pelvis)).toBe(true);
    const skel = readSkinSkeleton(skirt2.skin, null);
    const pelvis = skel.names.indexOf(skirt2.pelvis);
    const mesh = readSkinMesh(doc2, skirt2.skin);
    // The skirt's far hem is rigid on the pelvis.
    let onPelvis = 0;
    for (const v of skirt2.vertices) if (mesh.joints[mesh.slots * v] === pelvis && mesh.weights[mesh.slots * v] === 1) onPelvis++;
    expect(onPelvis).toBeGreaterThan(skirt2.vertices.length / 3);
    const v = await validateGlb(await writeGlbBytes(doc2));
    expect(v.errors).toBe(0);
  });
});
