/**
 * Tiny VRM glTF JSON built in code for the VRM collider tests, and a skeleton bound from its
 * nodes' TRS (scale and mirror kept in the pose store's locals, as an adapter copies them).
 *
 * Nodes: 0 Hips (t (0, 1, 0), scale (−2, 2, 2): mirrored in x and scaled 2), 1 Leg under it
 * (t (0.1, −0.2, 0), 90° about z), 2 Foot under Leg, 3 Tail_1 under Hips, 4 Tail_End under Tail_1.
 */
import { mat4, quat, vec3 } from 'gl-matrix';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, type CharacterBinding, type SkeletonSource } from '../../core/binding';
import { update } from '../../systems/pipeline';
import type { BitrigWorld } from '../../core/world';

const RZ90 = Array.from(quat.setAxisAngle(quat.create(), [0, 0, 1], Math.PI / 2));

/** The glTF nodes of the fixture (TRS, children). */
export function vrmNodes(): Record<string, unknown>[] {
  return [
    { name: 'Hips', translation: [0, 1, 0], scale: [-2, 2, 2], children: [1, 3] },
    { name: 'Leg', translation: [0.1, -0.2, 0], rotation: RZ90, children: [2] },
    { name: 'Foot', translation: [0, -0.4, 0] },
    { name: 'Tail_1', translation: [0, 0, -0.1], children: [4] },
    { name: 'Tail_End', translation: [0, 0, -0.2] },
  ];
}

const PARENT = [-1, 0, 1, 0, 3];

/** Bind the fixture's nodes as a skeleton (bone i = node i) and run one frame at rest. */
export function bindVrmNodes(nodes = vrmNodes()): { world: BitrigWorld; b: CharacterBinding; frame(dt: number): void } {
  const world = createBitrigWorld();
  const locals = nodes.map((n) => ({
    t: (n['translation'] as number[] | undefined) ?? [0, 0, 0],
    r: (n['rotation'] as number[] | undefined) ?? [0, 0, 0, 1],
    s: (n['scale'] as number[] | undefined) ?? [1, 1, 1],
  }));
  const worlds: mat4[] = [];
  locals.forEach((l, i) => {
    const m = mat4.fromRotationTranslationScale(mat4.create(), l.r as quat, l.t as vec3, l.s as vec3);
    worlds.push(PARENT[i]! >= 0 ? mat4.multiply(mat4.create(), worlds[PARENT[i]!]!, m) : m);
  });
  const src: SkeletonSource = {
    names: nodes.map((n) => n['name'] as string), parents: PARENT.slice(0, nodes.length),
    inverseBind: worlds.map((w) => mat4.invert(mat4.create(), w)!), rest: locals,
  };
  const b = bindSkeleton(world, src, { tail: { restSource: 'bind' } });
  const pose = world.pose;
  const frame = (dt: number): void => {
    locals.forEach((l, i) => {
      const s = b.slotOf[i]!;
      for (let j = 0; j < 3; j++) { pose.localT[s * 3 + j] = l.t[j]!; pose.localS[s * 3 + j] = l.s[j]!; }
      for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = l.r[j]!;
    });
    beginCharacterFrame(b);
    update(world, dt);
  };
  return { world, b, frame };
}

/** A VRM 1.0 JSON: a sphere on Leg, a capsule on Leg, a sphere on Hips; groups and springs as given. */
export function vrm1Json(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    asset: { version: '2.0' }, nodes: vrmNodes(), extensionsUsed: ['VRMC_springBone'],
    extensions: {
      VRMC_springBone: {
        specVersion: '1.0',
        colliders: [
          { node: 1, shape: { sphere: { offset: [0.1, 0, 0], radius: 0.05 } } },
          { node: 1, shape: { capsule: { offset: [0, 0, 0], radius: 0.03, tail: [0, -0.4, 0] } } },
          { node: 0, shape: { sphere: { offset: [0, 0, 0.2], radius: 0.1 } } },
        ],
        colliderGroups: [{ name: 'Leg', colliders: [0, 1] }, { name: 'Hips', colliders: [2] }],
        springs: [{ name: 'Tail', joints: [{ node: 3 }, { node: 4 }], colliderGroups: [0] }],
        ...extra,
      },
    },
  };
}

/** A VRM 0.x JSON: spheres on Leg (one with a z offset, which VRM 0.x stores reversed) and on Hips. */
export function vrm0Json(): Record<string, unknown> {
  return {
    asset: { version: '2.0' }, nodes: vrmNodes(), extensionsUsed: ['VRM'],
    extensions: {
      VRM: {
        secondaryAnimation: {
          colliderGroups: [
            { node: 1, colliders: [{ offset: { x: 0.1, y: 0, z: 0.05 }, radius: 0.05 }] },
            { node: 0, colliders: [{ offset: { x: 0, y: 0, z: 0 }, radius: 0.1 }] },
          ],
          boneGroups: [{ comment: 'tail', bones: [3], colliderGroups: [1] }],
        },
      },
    },
  };
}
