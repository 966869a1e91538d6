/**
 * The rig pass on the built-in character (runs with nothing but the repo): its `shin` variant
 * is the auto-rigger failure (tail skin on the left shin and thighs), its `chain` variant
 * already has Tail_1…Tail_K, its ears are a negative.
 */
import { describe, expect, it } from 'vitest';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterToDocument } from '../../rig/characterDocument';
import { writeGlbBytes } from '../../rig/glb';
import { readSkinMesh } from '../../rig/meshData';
import { rigAppendages } from '../../rig/pass';
import { readSkinSkeleton } from '../../rig/skeleton';
import { polylineDistance } from '../fixtures/detail';
import { clipSnapshot, influenceKey, rawInfluences } from './helpers';
import { validateGlb } from './validate';

describe('rig pass on the built-in character', () => {
  it('shin variant: one chain on Hips along the tail, ears and body untouched', async () => {
    const data = createBuiltinCharacter({ variant: 'shin' });
    const doc = characterToDocument(data);
    const skin = doc.getRoot().listSkins()[0]!;
    const before = rawInfluences(doc, skin);
    const clips = clipSnapshot(doc);
    const r = rigAppendages(doc);
    const chains = r.appendages.filter((a) => a.verdict === 'chain');
    expect(chains).toHaveLength(1);
    const c = chains[0]!;
    expect(c.attachment).toBe('Hips');
    const skel = readSkinSkeleton(skin, null);
    // Joints within 10 % of the tail length of the ground-truth chain, on average.
    let sum = 0;
    for (const n of c.joints) {
      const j = skel.names.indexOf(n);
      sum += polylineDistance(data.tailGroundTruth, skel.positions[3 * j]!, skel.positions[3 * j + 1]!, skel.positions[3 * j + 2]!);
    }
    expect(sum / c.joints.length / data.tailLength).toBeLessThan(0.1);
    // Tail vertices only on Tail_* and Hips; all other vertices (ears included) bit-identical.
    const mesh = readSkinMesh(doc, skin);
    const after = rawInfluences(doc, skin);
    let tail = 0;
    for (let v = 0; v < mesh.count; v++) {
      if (data.tailVertex[v]) {
        tail++;
        for (let k = 0; k < 4; k++) if (mesh.weights[4 * v + k]! > 0) expect(skel.names[mesh.joints[4 * v + k]!]).toMatch(/^(Tail_\d+|Hips)$/);
      } else {
        expect(influenceKey(after, v)).toBe(influenceKey(before, v));
      }
    }
    expect(c.changedVertexCount).toBe(tail);
    expect(c.boneDistanceBefore / c.boneDistanceAfter).toBeGreaterThan(2);
    expect(clipSnapshot(doc)).toBe(clips);
    expect((await validateGlb(await writeGlbBytes(doc))).errors).toBe(0);
  });

  it('leaves the ears alone even when spine and torso pieces are asked to go rigid', () => {
    const data = createBuiltinCharacter({ variant: 'shin' });
    const doc = characterToDocument(data);
    const skin = doc.getRoot().listSkins()[0]!;
    const before = rawInfluences(doc, skin);
    rigAppendages(doc, { include: ['spine', 'torso'] });
    const after = rawInfluences(doc, skin);
    let ears = 0;
    for (let v = 0; v < data.earVertex.length; v++) {
      if (!data.earVertex[v]) continue;
      ears++;
      expect(influenceKey(after, v)).toBe(influenceKey(before, v));
    }
    expect(ears).toBeGreaterThan(0);
  });

  it('chain variant (already has a tail chain): no new chain, weights identical', () => {
    const doc = characterToDocument(createBuiltinCharacter({ variant: 'chain' }));
    const skin = doc.getRoot().listSkins()[0]!;
    const before = rawInfluences(doc, skin);
    const r = rigAppendages(doc);
    expect(r.chains).toBe(0);
    expect(rawInfluences(doc, skin).values).toEqual(before.values);
  });

  it('rigid mode: every tail vertex weight 1.0 on Hips', () => {
    const data = createBuiltinCharacter({ variant: 'shin' });
    const doc = characterToDocument(data);
    const r = rigAppendages(doc, { mode: 'rigid' });
    expect(r.chains).toBe(0);
    expect(r.appendages.filter((a) => a.verdict === 'rigid').map((a) => a.rigidBone)).toEqual(['Hips']);
    const skin = doc.getRoot().listSkins()[0]!;
    const hips = readSkinSkeleton(skin, null).names.indexOf('Hips');
    const mesh = readSkinMesh(doc, skin);
    for (let v = 0; v < mesh.count; v++) {
      if (!data.tailVertex[v]) continue;
      expect(mesh.joints[4 * v]).toBe(hips);
      expect(mesh.weights[4 * v]).toBe(1);
    }
  });
});
