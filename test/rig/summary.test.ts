/**
 * The CLI summary of a rig run (review 33 L): a model with nothing measurable prints its note
 * only (no "height 0.00", no "no tail found"); skins sharing joints (one skin per mesh, as
 * FBX2glTF writes them) give one line per existing chain, and every changed piece names its
 * skin. Models built in code; the summary is compared line by line.
 */
import { describe, expect, it } from 'vitest';
import { formatRigSummary } from '../../cli/rig';
import { rigAppendages } from '../../rig/pass';
import { makeTinyDoc } from './tiny';
import { addArtistChain } from './twoTails';

describe('bitrig rig summary', () => {
  it('a single skin without inverse bind matrices: the note only, no height and no "no tail found"', () => {
    const { doc } = makeTinyDoc({ tail: true, ibm: false });
    const r = rigAppendages(doc);
    expect(r.height).toBe(0);
    const lines = formatRigSummary(r, 'in.glb', 'out.glb');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^bitrig rig: in\.glb → out\.glb \(\d+ ms\)$/);
    expect(lines[1]).toMatch(/^ {2}note: tiny: no inverse bind matrices, so glTF 2\.0 makes them identity/);
    const text = lines.join('\n');
    expect(text).not.toMatch(/height|no tail found/);
  });

  it('a measured model without a tail still says "no tail found" with its height (control)', () => {
    const { doc } = makeTinyDoc({});
    const lines = formatRigSummary(rigAppendages(doc), 'in.glb', 'out.glb');
    expect(lines[0]).toMatch(/height 1\.\d+ model units/);
    expect(lines.join('\n')).toMatch(/no tail found: nothing long hangs from the pelvis/);
  });

  it('two skins over the same joints with an artist tail chain: one chain line for both, each re-weighted piece names its skin', () => {
    const { doc } = makeTinyDoc({ tail: true });
    addArtistChain(doc, ['Tail1', 'Tail2', 'Tail3', 'Tail4'], (t) => [0, 1.0 - 0.35 * t * t, -0.1 - 0.7 * t]);
    const a = doc.getRoot().listSkins()[0]!;
    const b = doc.createSkin('B');
    for (const j of a.listJoints()) b.addJoint(j);
    b.setInverseBindMatrices(a.getInverseBindMatrices()!.clone());
    doc.getRoot().listScenes()[0]!.addChild(doc.createNode('B').setMesh(doc.getRoot().listMeshes()[0]!.clone()).setSkin(b));
    const r = rigAppendages(doc);
    expect(r.existingChains.map((c) => c.skin)).toEqual(['tiny', 'B']);
    const n = r.existingChains[0]!.changedVertexCount;
    expect(n).toBeGreaterThan(0);
    expect(r.existingChains[1]!.changedVertexCount).toBe(n);
    const lines = formatRigSummary(r, 'in.glb', 'out.glb');
    const chainLines = lines.filter((l) => /already has a tail chain/.test(l));
    expect(chainLines).toEqual([
      `  already has a tail chain Tail1…Tail4 (4 bones) on Hips (in 2 skins: tiny, B): nothing to grow; ${2 * n} vertices lying along it but weighted to body bones were re-weighted onto it (${n} in tiny, ${n} in B)`,
    ]);
    const onto = lines.filter((l) => /onto the existing chain/.test(l));
    expect(onto).toHaveLength(2);
    expect(onto[0]).toMatch(/^ {2}onto the existing chain Tail1…Tail4 \(no bones added\) on Hips \(skin tiny\): /);
    expect(onto[1]).toMatch(/^ {2}onto the existing chain Tail1…Tail4 \(no bones added\) on Hips \(skin B\): /);
    expect(new Set(lines).size).toBe(lines.length);
  });
});
