/**
 * The built-in character as glTF: a glTF-Transform `Document` (one skinned mesh, one skin
 * whose joints are the bones in order, one animation per clip) and GLB bytes. Offline
 * code (allocates freely). Nothing is read from or written to disk here.
 */
import { Accessor, Document, type Node, WebIO } from '@gltf-transform/core';
import type { CharacterData } from '../core/character/index';

/**
 * Convert character data to a glTF-Transform document. Node names are the bone names; the
 * skinned mesh node (named after the character) sits at the scene root beside `Hips`.
 * Indices are written as 16-bit when the vertex count allows.
 *
 * @example
 * const doc = characterToDocument(createBuiltinCharacter({ variant: 'shin' }));
 * doc.getRoot().listAnimations().map((a) => a.getName()); // ['walk', 'sprint', 'crouch', 'hipSweep']
 */
export function characterToDocument(data: CharacterData): Document {
  const nb = data.bones.length;
  if (data.inverseBind.length !== nb * 16) {
    throw new Error(`bitrig/rig: characterToDocument: inverseBind has ${data.inverseBind.length} numbers, expected ${nb * 16}`);
  }
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'bitrig built-in character';
  const buffer = doc.createBuffer();
  const nodes: Node[] = data.bones.map((b) =>
    doc.createNode(b.name).setTranslation([...b.t]).setRotation([...b.r]).setScale([...b.s]),
  );
  const roots: Node[] = [];
  data.bones.forEach((b, i) => {
    if (b.parent < 0) roots.push(nodes[i]!);
    else nodes[b.parent]!.addChild(nodes[i]!);
  });

  const ibm = doc.createAccessor('inverseBind').setType(Accessor.Type.MAT4).setArray(data.inverseBind.slice()).setBuffer(buffer);
  const skin = doc.createSkin(data.name).setInverseBindMatrices(ibm).setSkeleton(roots[0] ?? null);
  for (const n of nodes) skin.addJoint(n);

  const m = data.mesh;
  const vcount = m.positions.length / 3;
  const indices = vcount <= 65535 ? Uint16Array.from(m.indices) : m.indices.slice();
  const material = doc.createMaterial('skin')
    .setBaseColorFactor([0.8, 0.55, 0.35, 1])
    .setMetallicFactor(0)
    .setRoughnessFactor(0.8);
  const prim = doc.createPrimitive()
    .setAttribute('POSITION', doc.createAccessor('position').setType(Accessor.Type.VEC3).setArray(m.positions.slice()).setBuffer(buffer))
    .setAttribute('NORMAL', doc.createAccessor('normal').setType(Accessor.Type.VEC3).setArray(m.normals.slice()).setBuffer(buffer))
    .setAttribute('JOINTS_0', doc.createAccessor('joints').setType(Accessor.Type.VEC4).setArray(m.joints.slice()).setBuffer(buffer))
    .setAttribute('WEIGHTS_0', doc.createAccessor('weights').setType(Accessor.Type.VEC4).setArray(m.weights.slice()).setBuffer(buffer))
    .setIndices(doc.createAccessor('indices').setType(Accessor.Type.SCALAR).setArray(indices).setBuffer(buffer))
    .setMaterial(material);
  const mesh = doc.createMesh(data.name).addPrimitive(prim);
  const meshNode = doc.createNode(data.name).setMesh(mesh).setSkin(skin);

  const scene = doc.createScene(data.name);
  for (const r of roots) scene.addChild(r);
  scene.addChild(meshNode);
  doc.getRoot().setDefaultScene(scene);

  const byName = new Map<string, Node>();
  data.bones.forEach((b, i) => byName.set(b.name, nodes[i]!));
  for (const clip of data.clips) {
    const anim = doc.createAnimation(clip.name);
    const inputs = new Map<Float32Array, Accessor>();
    for (const tr of clip.tracks) {
      const node = byName.get(tr.bone);
      if (!node) throw new Error(`bitrig/rig: characterToDocument: clip ${clip.name} keys unknown bone ${tr.bone}`);
      let input = inputs.get(tr.times);
      if (!input) {
        input = doc.createAccessor(`${clip.name}.time`).setType(Accessor.Type.SCALAR).setArray(tr.times.slice()).setBuffer(buffer);
        inputs.set(tr.times, input);
      }
      const output = doc.createAccessor(`${clip.name}.${tr.bone}.${tr.path}`)
        .setType(tr.path === 'rotation' ? Accessor.Type.VEC4 : Accessor.Type.VEC3)
        .setArray(tr.values.slice())
        .setBuffer(buffer);
      const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation(tr.interpolation);
      const channel = doc.createAnimationChannel().setTargetNode(node).setTargetPath(tr.path).setSampler(sampler);
      anim.addSampler(sampler).addChannel(channel);
    }
  }
  return doc;
}

/**
 * Write the character as GLB bytes (in memory; the caller decides where to save them).
 *
 * @example
 * const glb = await characterToGlb(createBuiltinCharacter({ variant: 'shin' }));
 * // fs.writeFileSync('critter-shin.glb', glb)
 */
export async function characterToGlb(data: CharacterData): Promise<Uint8Array> {
  return new WebIO().writeBinary(characterToDocument(data));
}
