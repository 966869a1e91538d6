/**
 * CPU linear-blend skinning (rig/skinning.ts): all influences (JOINTS_1/WEIGHTS_1 too),
 * translated/rotated/scaled/mirrored armatures, the bind-to-world scale, and agreement with
 * three.js's SkinnedMesh on real assets.
 */
import { describe, expect, it } from 'vitest';
import { Document } from '@gltf-transform/core';
import { mat4, quat, vec3 } from 'gl-matrix';
import { AnimationMixer, SkinnedMesh, Vector3 } from 'three';
import { computeWorldMatrices, createClipSampler, createLocalPose, findClip, readSceneGraph, sampleClip } from '../../rig/sample';
import { dominantJoints, jointMatrices, readSkins, skinVertices } from '../../rig/skinning';
import { assetBytes, hasAsset, loadAsset, warnIfNoAssets } from '../fixtures/assets';
import { loadGlbThree } from '../helpers/loadThree';

interface Arm { t: vec3; r: quat; s: vec3 }

/** Root (0,0,0) → Child (0,1,0) under an armature node; IBMs include the armature unless `ibmWithoutArmature`. */
function twoBoneDoc(arm: Arm, ibmWithoutArmature = false) {
  const doc = new Document();
  const buf = doc.createBuffer();
  const armature = doc.createNode('Armature').setTranslation([...arm.t] as [number, number, number]).setRotation([...arm.r] as [number, number, number, number]).setScale([...arm.s] as [number, number, number]);
  const root = doc.createNode('Root');
  const child = doc.createNode('Child').setTranslation([0, 1, 0]);
  armature.addChild(root);
  root.addChild(child);
  const A = mat4.fromRotationTranslationScale(mat4.create(), arm.r, arm.t, arm.s);
  const ibm = new Float32Array(32);
  const w0 = ibmWithoutArmature ? mat4.create() : mat4.clone(A);
  const w1 = mat4.multiply(mat4.create(), w0, mat4.fromTranslation(mat4.create(), [0, 1, 0]));
  ibm.set(mat4.invert(mat4.create(), w0)!, 0);
  ibm.set(mat4.invert(mat4.create(), w1)!, 16);
  const skin = doc.createSkin('s').addJoint(root).addJoint(child).setInverseBindMatrices(doc.createAccessor('', buf).setType('MAT4').setArray(ibm));
  // Vertex 0: 8 influences, 0.1 on Root and 0.15 on Child ×… (four in JOINTS_0, four in JOINTS_1).
  const pos = new Float32Array([0.5, 1.5, 0.2, 0.2, 0.4, 0, 0.3, 1.2, -0.1]);
  const j0 = new Uint16Array([0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0]);
  const w0a = new Float32Array([0.1, 0.15, 0.1, 0.15, 1, 0, 0, 0, 1, 0, 0, 0]);
  const j1 = new Uint16Array([0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
  const w1a = new Float32Array([0.1, 0.15, 0.1, 0.15, 0, 0, 0, 0, 0, 0, 0, 0]);
  const prim = doc.createPrimitive()
    .setAttribute('POSITION', doc.createAccessor('', buf).setType('VEC3').setArray(pos))
    .setAttribute('JOINTS_0', doc.createAccessor('', buf).setType('VEC4').setArray(j0))
    .setAttribute('WEIGHTS_0', doc.createAccessor('', buf).setType('VEC4').setArray(w0a))
    .setAttribute('JOINTS_1', doc.createAccessor('', buf).setType('VEC4').setArray(j1))
    .setAttribute('WEIGHTS_1', doc.createAccessor('', buf).setType('VEC4').setArray(w1a))
    .setIndices(doc.createAccessor('', buf).setType('SCALAR').setArray(new Uint16Array([0, 1, 2])));
  const meshNode = doc.createNode('Mesh').setMesh(doc.createMesh().addPrimitive(prim)).setSkin(skin);
  doc.createScene().addChild(armature).addChild(meshNode);
  return { doc, A, pos };
}

const ARMS: [string, Arm][] = [
  ['identity', { t: [0, 0, 0], r: [0, 0, 0, 1], s: [1, 1, 1] }],
  ['translated', { t: [3, -2, 5], r: [0, 0, 0, 1], s: [1, 1, 1] }],
  ['rotated', { t: [0, 0, 0], r: quat.normalize(quat.create(), [0.3, -0.5, 0.2, 0.8]), s: [1, 1, 1] }],
  ['scaled', { t: [1, 1, 1], r: [0, 0, 0, 1], s: [0.01, 0.01, 0.01] }],
  ['mirrored', { t: [0, 1, 0], r: quat.setAxisAngle(quat.create(), [0, 1, 0], 0.7), s: [-1, 1, 1] }],
];

describe('CPU linear-blend skinning', () => {
  for (const [label, arm] of ARMS) {
    it(`${label} armature: rest pose gives the bind positions; a 90° child turn matches Σ w·W·B·p (1e-6 relative: float32 IBMs)`, () => {
      const { doc, A, pos } = twoBoneDoc(arm);
      const g = readSceneGraph(doc);
      const [skin] = readSkins(doc, g);
      expect(skin!.mesh.slots).toBe(8);
      expect(skin!.bindToWorldScale).toBeCloseTo(1, 6);
      const pose = createLocalPose(g);
      const world = new Float64Array(16 * g.nodes.length);
      const jm = new Float64Array(32);
      const out = new Float64Array(9);
      computeWorldMatrices(g, pose, world);
      jointMatrices(skin!, world, jm);
      skinVertices(skin!, jm, out);
      for (let i = 0; i < 9; i++) expect(out[i]).toBeCloseTo(pos[i]!, 6);
      // Turn the child 90° about Z.
      const c = g.names.indexOf('Child');
      const q = quat.setAxisAngle(quat.create(), [0, 0, 1], Math.PI / 2);
      pose.r.set(q, 4 * c);
      computeWorldMatrices(g, pose, world);
      jointMatrices(skin!, world, jm);
      skinVertices(skin!, jm, out);
      const Wc = mat4.multiply(mat4.create(), A, mat4.fromRotationTranslation(mat4.create(), q, [0, 1, 0]));
      const Bc = mat4.invert(mat4.create(), mat4.multiply(mat4.create(), A, mat4.fromTranslation(mat4.create(), [0, 1, 0])))!;
      const Mc = mat4.multiply(mat4.create(), Wc, Bc);
      const p0 = vec3.fromValues(pos[0]!, pos[1]!, pos[2]!);
      const onRoot = vec3.clone(p0);
      const onChild = vec3.transformMat4(vec3.create(), p0, Mc);
      // Vertex 0: 0.4 on Root (4 × 0.1), 0.6 on Child (4 × 0.15), across JOINTS_0 and JOINTS_1.
      const expected = vec3.add(vec3.create(), vec3.scale(vec3.create(), onRoot, 0.4), vec3.scale(vec3.create(), onChild, 0.6));
      const scale = Math.max(1, vec3.length(expected));
      for (let k = 0; k < 3; k++) expect(Math.abs(out[k]! - expected[k]!)).toBeLessThan(1e-6 * scale);
      expect(Array.from(dominantJoints(skin!))).toEqual([1, 0, 1]); // v0: 0.6 on Child; v1: Root; v2: Child
    });
  }

  it('bind space not matching the node tree (IBMs without the armature scale): bindToWorldScale reports it', () => {
    const { doc } = twoBoneDoc({ t: [0, 0, 0], r: quat.setAxisAngle(quat.create(), [1, 0, 0], -Math.PI / 2), s: [0.01, 0.01, 0.01] }, true);
    const g = readSceneGraph(doc);
    const [skin] = readSkins(doc, g);
    expect(skin!.bindToWorldScale).toBeCloseTo(0.01, 8);
  });

  it('a file without a skin is refused with a clear error', () => {
    const doc = new Document();
    doc.createScene().addChild(doc.createNode('n'));
    expect(() => readSkins(doc, readSceneGraph(doc))).toThrow('bitrig/skinning: the file has no skin');
  });
});

warnIfNoAssets();
describe('CPU skinning agrees with three.js SkinnedMesh (real assets)', () => {
  for (const [asset, clipName] of [['quaternius-fox', 'Walk'], ['threejs-soldier', 'Walk']] as const) {
    it.skipIf(!hasAsset(asset))(`${asset} ${clipName} at t = 0.4 s: every skinned vertex within 1e-4 of the model height`, async () => {
      const doc = await loadAsset(asset);
      const g = readSceneGraph(doc);
      const skins = readSkins(doc, g);
      const s = createClipSampler(g, findClip(doc, clipName));
      const pose = createLocalPose(g);
      sampleClip(s, g, 0.4, pose);
      const world = new Float64Array(16 * g.nodes.length);
      computeWorldMatrices(g, pose, world);
      const ours = skins.map((skin) => {
        const jm = new Float64Array(16 * skin.names.length);
        jointMatrices(skin, world, jm);
        const out = new Float64Array(3 * skin.mesh.count);
        skinVertices(skin, jm, out);
        return out;
      });
      let lo = Infinity, hi = -Infinity;
      for (const o of ours) for (let v = 1; v < o.length; v += 3) { lo = Math.min(lo, o[v]!); hi = Math.max(hi, o[v]!); }
      const H = hi - lo;
      const gltf = await loadGlbThree(assetBytes(asset));
      const mixer = new AnimationMixer(gltf.scene);
      mixer.clipAction(gltf.animations.find((a) => a.name === clipName)!).play();
      mixer.setTime(0.4);
      gltf.scene.updateMatrixWorld(true);
      // three's skinned positions, gathered per skin in the same order as readSkinMesh (primitives in node order).
      let compared = 0;
      let worst = 0;
      const v3 = new Vector3();
      skins.forEach((skin, si) => {
        const meshes: SkinnedMesh[] = [];
        gltf.scene.traverse((o) => {
          if ((o as SkinnedMesh).isSkinnedMesh && (o as SkinnedMesh).skeleton.bones.length === skin.names.length
            && (o as SkinnedMesh).skeleton.bones.every((b, i) => b.name === skin.names[i]!.replace(/[\s]/g, '_').replace(/[[\].:/]/g, ''))) meshes.push(o as SkinnedMesh);
        });
        for (const src of skin.mesh.sources) {
          const m = meshes.find((mm) => mm.geometry.getAttribute('position').count === src.count && !(mm.userData as { used?: boolean }).used);
          if (!m) continue;
          (m.userData as { used?: boolean }).used = true;
          for (let i = 0; i < src.count; i += 7) {
            m.getVertexPosition(i, v3);
            v3.applyMatrix4(m.matrixWorld);
            const o = ours[si]!;
            const v = src.base + i;
            worst = Math.max(worst, Math.hypot(v3.x - o[3 * v]!, v3.y - o[3 * v + 1]!, v3.z - o[3 * v + 2]!));
            compared++;
          }
        }
      });
      expect(compared).toBeGreaterThan(500);
      expect(worst / H).toBeLessThan(1e-4);
    });
  }
});
