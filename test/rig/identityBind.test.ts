/**
 * Skins without inverse bind matrices (review 23): glTF 2.0 says a missing
 * `skin.inverseBindMatrices` means "each matrix is a 4x4 identity matrix" (pre-applied), so
 * they are accepted, not refused. With identity matrices every joint's bind world matrix is
 * the identity: all joints sit at the bind-space origin and the skin is right only when the
 * joints' world transforms are the identity at rest — how these fixtures place them. Such a
 * bind skeleton is one point, so nothing on that skin is measured: it is kept as it is with a
 * note, and the model's other skins are rigged as usual (the whole file was refused before).
 */
import { Accessor, type Document, type Node } from '@gltf-transform/core';
import { mat4 } from 'gl-matrix';
import { describe, expect, it } from 'vitest';
import { addChainBones, chainBoneNames } from '../../rig/bones';
import { readGlbBytes, writeGlbBytes } from '../../rig/glb';
import { rigAppendages } from '../../rig/pass';
import { readSkinSkeleton } from '../../rig/skeleton';
import { rawInfluences } from './helpers';
import { makeTinyDoc } from './tiny';
import { validateGlb } from './validate';

/**
 * Add a visor to the tiny model: a small box in front of the head bound to its own skin of two
 * joints, `VisorRoot` → `Visor`, with no inverse bind matrices. Both joints have identity world
 * transforms at rest, so identity inverse binds are right (the box renders where it is modelled).
 */
function addVisor(doc: Document): { skin: ReturnType<Document['createSkin']>; joints: Node[] } {
  const buffer = doc.getRoot().listBuffers()[0]!;
  const root = doc.createNode('VisorRoot');
  const visor = doc.createNode('Visor');
  root.addChild(visor);
  const skin = doc.createSkin('visor').addJoint(root).addJoint(visor);
  const pos: number[] = [];
  for (const x of [-0.08, 0.08]) for (const y of [1.55, 1.65]) for (const z of [0.08, 0.12]) pos.push(x, y, z);
  const idx = [0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3];
  const J = new Uint8Array(4 * 8);
  const W = new Float32Array(4 * 8);
  for (let i = 0; i < 8; i++) {
    J[4 * i] = 1;
    J[4 * i + 1] = 0;
    W[4 * i] = 0.75;
    W[4 * i + 1] = 0.25;
  }
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor('visor-pos').setType(Accessor.Type.VEC3).setArray(Float32Array.from(pos)).setBuffer(buffer))
    .setAttribute('JOINTS_0', doc.createAccessor('visor-joints').setType(Accessor.Type.VEC4).setArray(J).setBuffer(buffer))
    .setAttribute('WEIGHTS_0', doc.createAccessor('visor-weights').setType(Accessor.Type.VEC4).setArray(W).setBuffer(buffer))
    .setIndices(doc.createAccessor('visor-idx').setType(Accessor.Type.SCALAR).setArray(Uint16Array.from(idx)).setBuffer(buffer));
  const node = doc.createNode('visor').setMesh(doc.createMesh('visor').addPrimitive(prim)).setSkin(skin);
  doc.getRoot().listScenes()[0]!.addChild(root).addChild(node);
  return { skin, joints: [root, visor] };
}

const IDENTITY = Array.from(mat4.create());

describe('a skin without inverse bind matrices (identity, glTF 2.0)', () => {
  it('reads as identity bind matrices: every joint at the bind-space origin', () => {
    const { doc } = makeTinyDoc({ tail: true });
    const { skin, joints } = addVisor(doc);
    expect(skin.getInverseBindMatrices()).toBeNull();
    // The fixture's premise: the joints' world transforms are the identity at rest.
    for (const j of joints) expect(Array.from(j.getWorldMatrix())).toEqual(IDENTITY);
    const skel = readSkinSkeleton(skin, null);
    expect(skel.hasInverseBind).toBe(false);
    expect(Array.from(skel.bindWorld)).toEqual([...IDENTITY, ...IDENTITY]);
    expect(Array.from(skel.positions)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(readSkinSkeleton(doc.getRoot().listSkins()[0]!, null).hasInverseBind).toBe(true);
  });

  it('the pass accepts the model: the body skin grows its chain, the visor skin is kept as it is with a note, and the output is valid glTF', async () => {
    const { doc } = makeTinyDoc({ tail: true });
    const { skin: visorSkin } = addVisor(doc);
    const visorBefore = rawInfluences(doc, visorSkin);
    const r = rigAppendages(doc);
    expect(r.chains).toBe(1);
    expect(r.appendages.filter((a) => a.verdict === 'chain').map((a) => a.skin)).toEqual(['tiny']);
    expect(r.appendages.some((a) => a.skin === 'visor')).toBe(false);
    expect(r.notes).toContainEqual(expect.stringMatching(/^visor: no inverse bind matrices, so glTF 2\.0 makes them identity and puts all 2 joints at the bind-space origin/));
    expect(rawInfluences(doc, visorSkin).values).toEqual(visorBefore.values);
    expect(visorSkin.getInverseBindMatrices()).toBeNull();
    expect(visorSkin.listJoints().map((j) => j.getName())).toEqual(['VisorRoot', 'Visor']);
    const glb = await writeGlbBytes(doc);
    expect((await validateGlb(glb)).errors).toBe(0);
    const back = await readGlbBytes(glb);
    const visorBack = back.getRoot().listSkins().find((s) => s.getName() === 'visor')!;
    expect(visorBack.getInverseBindMatrices()).toBeNull();
  });

  it('a model whose only skin has none: no error, nothing changed, a note says why', () => {
    const { doc } = makeTinyDoc({ tail: true, ibm: false });
    const skin = doc.getRoot().listSkins()[0]!;
    const before = rawInfluences(doc, skin);
    const jointsBefore = skin.listJoints().length;
    const r = rigAppendages(doc);
    expect(r.chains).toBe(0);
    expect(r.changedVertices).toBe(0);
    expect(r.appendages).toEqual([]);
    expect(r.notes).toEqual([expect.stringMatching(/^tiny: no inverse bind matrices, so glTF 2\.0 makes them identity and puts all 9 joints at the bind-space origin; nothing on it can be measured/)]);
    expect(rawInfluences(doc, skin).values).toEqual(before.values);
    expect(skin.listJoints()).toHaveLength(jointsBefore);
    expect(skin.getInverseBindMatrices()).toBeNull();
  });

  it('explicit inverse bind matrices that put every joint at one point: the same note, nothing changed', () => {
    const { doc } = makeTinyDoc({ tail: true });
    const skin = doc.getRoot().listSkins()[0]!;
    const ibm = skin.getInverseBindMatrices()!;
    const arr = new Float32Array(16 * skin.listJoints().length);
    for (let i = 0; i < skin.listJoints().length; i++) arr.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5, -1, 0, 1], 16 * i);
    ibm.setArray(arr);
    const before = rawInfluences(doc, skin);
    const r = rigAppendages(doc);
    expect(r.chains).toBe(0);
    expect(r.notes).toEqual([expect.stringMatching(/^tiny: its inverse bind matrices put all 9 joints at one point of bind space/)]);
    expect(rawInfluences(doc, skin).values).toEqual(before.values);
  });

  it('addChainBones on a skin without matrices writes identity for the old joints and exact inverses for the new', () => {
    const { doc } = makeTinyDoc({ tail: true, ibm: false });
    const skin = doc.getRoot().listSkins()[0]!;
    const skel = readSkinSkeleton(skin, null);
    const n0 = skel.names.length;
    const J = Float64Array.of(0, 0, -0.1, 0, 0, -0.4, 0, 0, -0.7);
    const first = addChainBones(doc, skel, J, chainBoneNames('Tail', 2));
    expect(first).toBe(n0);
    const acc = skin.getInverseBindMatrices()!;
    expect(acc.getCount()).toBe(n0 + 3);
    const el: number[] = new Array(16).fill(0);
    for (let i = 0; i < n0; i++) expect(Array.from(acc.getElement(i, el))).toEqual(IDENTITY);
    for (let i = 0; i < 3; i++) {
      acc.getElement(n0 + i, el);
      // Identity rotation (the pelvis's bind rotation) and minus the joint position (1e-7: float32 storage).
      for (let k = 0; k < 12; k++) expect(el[k]).toBeCloseTo(IDENTITY[k]!, 7);
      for (let k = 0; k < 3; k++) expect(el[12 + k]).toBeCloseTo(-J[3 * i + k]!, 7);
    }
  });
});
