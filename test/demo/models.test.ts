/**
 * demo/models/quaternius-fox-detailed.glb is what `npm run models:detail` makes from
 * quaternius-fox.glb, byte for byte: no tail bones, the tail's skin on the left shin and both
 * thighs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { findTailChains } from '../../core/boneMap';
import { readGlbBytes, writeGlbBytes } from '../../rig/glb';
import { ANIMAL_PRESETS, detailAnimal } from '../fixtures/detail';
import { modelsDir } from '../fixtures/assets';

describe('the de-tailed fox in demo/models', () => {
  test('equals a fresh run of detailAnimal on the CC0 fox, and has no tail chain', async () => {
    const doc = await readGlbBytes(new Uint8Array(readFileSync(path.join(modelsDir, 'quaternius-fox.glb'))));
    const truth = detailAnimal(doc, ANIMAL_PRESETS['quaternius-fox']);
    expect(truth.tailVertices.length).toBeGreaterThan(100);
    const fresh = await writeGlbBytes(doc);
    const committed = new Uint8Array(readFileSync(path.join(modelsDir, 'quaternius-fox-detailed.glb')));
    expect(Buffer.compare(Buffer.from(fresh), Buffer.from(committed))).toBe(0);
    const again = await readGlbBytes(committed);
    for (const skin of again.getRoot().listSkins()) {
      const joints = skin.listJoints();
      const names = joints.map((j) => j.getName());
      const parents = joints.map((j) => joints.indexOf(j.getParentNode()!));
      expect(findTailChains({ names, parents })).toEqual([]);
      expect(names).toEqual(expect.arrayContaining(['BackLowerLeg.L', 'BackUpperLeg.L', 'BackUpperLeg.R']));
    }
  });
});
