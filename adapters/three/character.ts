/**
 * The built-in character as three.js objects, built directly from its data (no glTF
 * round trip): a `Group` holding the `Hips` bone tree and a `SkinnedMesh` bound with the
 * data's inverse bind matrices, plus one `AnimationClip` per clip whose track names are
 * `<bone>.position|quaternion|scale` (play them with an `AnimationMixer` on `root`).
 * Setup-time only (allocates).
 */
import {
  AnimationClip, Bone, BufferAttribute, BufferGeometry, Group, InterpolateDiscrete, InterpolateLinear, type KeyframeTrack,
  Matrix4, MeshStandardMaterial, QuaternionKeyframeTrack, Skeleton, SkinnedMesh, Uint16BufferAttribute, VectorKeyframeTrack,
} from 'three';
import type { CharacterData } from '../../core/character/index';

/** What {@link characterToThree} returns. */
export interface ThreeCharacter {
  /** Container: add it to the scene and give it to the `AnimationMixer`. */
  root: Group;
  /** The skinned mesh (child of `root`, identity transform, bind matrix identity). */
  mesh: SkinnedMesh;
  /** Skeleton whose `boneInverses` are the data's inverse bind matrices. */
  skeleton: Skeleton;
  /** Bones in the data's order. */
  bones: Bone[];
  /** One clip per data clip, same names. */
  clips: AnimationClip[];
}

/**
 * Build three.js objects for the character.
 *
 * @example
 * const c = characterToThree(createBuiltinCharacter());
 * scene.add(c.root);
 * const mixer = new AnimationMixer(c.root);
 * mixer.clipAction(c.clips.find((k) => k.name === 'walk')!).play();
 */
export function characterToThree(data: CharacterData): ThreeCharacter {
  const nb = data.bones.length;
  if (data.inverseBind.length !== nb * 16) {
    throw new Error(`bitrig/three: characterToThree: inverseBind has ${data.inverseBind.length} numbers, expected ${nb * 16}`);
  }
  const root = new Group();
  root.name = data.name;
  const bones = data.bones.map((b) => {
    const bone = new Bone();
    bone.name = b.name;
    bone.position.set(b.t[0], b.t[1], b.t[2]);
    bone.quaternion.set(b.r[0], b.r[1], b.r[2], b.r[3]);
    bone.scale.set(b.s[0], b.s[1], b.s[2]);
    return bone;
  });
  data.bones.forEach((b, i) => (b.parent < 0 ? root : bones[b.parent]!).add(bones[i]!));

  const m = data.mesh;
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(m.positions.slice(), 3));
  geometry.setAttribute('normal', new BufferAttribute(m.normals.slice(), 3));
  geometry.setAttribute('skinIndex', new Uint16BufferAttribute(m.joints.slice(), 4));
  geometry.setAttribute('skinWeight', new BufferAttribute(m.weights.slice(), 4));
  geometry.setIndex(new BufferAttribute(m.indices.slice(), 1));
  geometry.computeBoundingSphere();

  const inverses = bones.map((_, i) => new Matrix4().fromArray(data.inverseBind, i * 16));
  const skeleton = new Skeleton(bones, inverses);
  const material = new MeshStandardMaterial({ color: 0xcc8c59, roughness: 0.8, metalness: 0 });
  const mesh = new SkinnedMesh(geometry, material);
  mesh.name = data.name;
  mesh.frustumCulled = false; // the tail swings far outside the bind bounds
  root.add(mesh);
  root.updateMatrixWorld(true);
  mesh.bind(skeleton, new Matrix4());

  const clips = data.clips.map((c) => {
    const tracks: KeyframeTrack[] = c.tracks.map((tr) => {
      const interp = tr.interpolation === 'STEP' ? InterpolateDiscrete : InterpolateLinear;
      if (tr.path === 'rotation') return new QuaternionKeyframeTrack(`${tr.bone}.quaternion`, tr.times.slice(), tr.values.slice(), interp);
      const prop = tr.path === 'translation' ? 'position' : 'scale';
      return new VectorKeyframeTrack(`${tr.bone}.${prop}`, tr.times.slice(), tr.values.slice(), interp);
    });
    return new AnimationClip(c.name, c.duration, tracks);
  });
  return { root, mesh, skeleton, bones, clips };
}
