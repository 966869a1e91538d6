/**
 * A tiny rig for the collider tests, built in code: hips, a four-link tail with a `Tail_End`
 * hanging back and down from it, and colliders on the hips bone given in the hips' space. The
 * hips take an animated transform (translation, yaw, uniform scale, a mirror of hips-local z);
 * helpers read the tail's joints back from the pose store and measure how deep each link
 * segment lies inside each capsule.
 */
import { glMatrix, mat4, quat, vec3 } from 'gl-matrix';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { addTailCollider } from '../../core/colliderSetup';
import type { BitrigWorld } from '../../core/world';
import type { TailOptions } from '../../core/defaults';
import { loadRest, sourceFromWorlds, type RestLocals } from '../helpers/skeleton';

glMatrix.setMatrixArrayType(Float64Array as unknown as ArrayConstructor);

/** The hips' animated transform. */
export interface Parent { name: string; pos: [number, number, number]; yaw: number; scale: number; mirror: boolean }
export const PARENTS: Parent[] = [
  { name: 'plain', pos: [0, 1, 0], yaw: 0, scale: 1, mirror: false },
  { name: 'translated+rotated', pos: [3.2, 1.7, -4.1], yaw: 0.7, scale: 1, mirror: false },
  { name: 'scaled', pos: [-1, 2.5, 0.5], yaw: -1.1, scale: 2.5, mirror: false },
  { name: 'mirrored', pos: [0.6, 1, -0.2], yaw: 0.3, scale: 1, mirror: true },
];

/** A capsule (or a sphere: a = b) in the hips' space (metres at scale 1). */
export interface Capsule { a: [number, number, number]; b: [number, number, number]; r: number }

export interface ColliderRig {
  world: BitrigWorld;
  b: CharacterBinding;
  rest: RestLocals;
  tailEid: number;
  colliders: number[];
  /** Run one frame with the hips `sideways` metres along hips-local x from the parent's place. */
  frame(dt: number, sideways?: number): void;
  /** World positions of the tail joints (head of link 0 … the end helper). */
  joints(): vec3[];
  /** Each capsule in the world now: ends and radius. */
  capsulesWs(): { a: vec3; b: vec3; r: number }[];
  /** The hips' world matrix. */
  hipsWs(): mat4;
}

export const SEG = 0.2; // link length (m, bind)

/** The rig's skeleton: hips at the origin of its own space; a four-link tail from (0, −0.05, −0.1), back and down along `dir`. */
export function colliderRigSource(dir: [number, number, number] = [0, -1, -0.25]): ReturnType<typeof sourceFromWorlds> {
  const w0 = vec3.normalize(vec3.create(), dir);
  const worlds = [mat4.create()];
  for (let i = 0; i <= 4; i++) {
    const p = vec3.scaleAndAdd(vec3.create(), [0, -0.05, -0.1], w0, SEG * i);
    worlds.push(mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [1, 0, 0], 0.2 * i), p));
  }
  return sourceFromWorlds(['Hips', 'Tail_1', 'Tail_2', 'Tail_3', 'Tail_4', 'Tail_End'], [-1, 0, 1, 2, 3, 4], worlds);
}

/** Capsule c on binding b's hips bone (a = b: a sphere). */
export function addCapsule(world: BitrigWorld, b: CharacterBinding, c: Capsule): number {
  return addTailCollider(world, { char: b.charId, slot: b.slotOf[0]!, radius: c.r, a: c.a, ...(c.a.every((v, i) => v === c.b[i]) ? {} : { b: c.b }) });
}

/** Binding b's rest pose, with its hips at the parent's place, `sideways` metres along hips-local x, then its frame begun. */
export function placeHips(b: CharacterBinding, rest: RestLocals, parent: Parent, sideways = 0): void {
  const pose = b.world.pose, hs = b.slotOf[0]!;
  const sgn = parent.mirror ? -1 : 1;
  const hipsR = quat.setAxisAngle(quat.create(), [0, 1, 0], parent.yaw);
  loadRest(b, rest);
  const side = vec3.transformQuat(vec3.create(), [sideways * parent.scale, 0, 0], hipsR);
  for (let j = 0; j < 3; j++) pose.localT[hs * 3 + j] = parent.pos[j]! + side[j]!;
  for (let j = 0; j < 4; j++) pose.localR[hs * 4 + j] = hipsR[j]!;
  pose.localS[hs * 3] = parent.scale; pose.localS[hs * 3 + 1] = parent.scale; pose.localS[hs * 3 + 2] = sgn * parent.scale;
  beginCharacterFrame(b);
}

/** World positions of binding b's tail joints (head of link 0 … the end helper). */
export function tailJoints(b: CharacterBinding): vec3[] {
  const m = b.world.pose.worldM;
  return [1, 2, 3, 4, 5].map((i) => { const s = b.slotOf[i]! * 16; return vec3.fromValues(m[s + 12]!, m[s + 13]!, m[s + 14]!); });
}

/** Hips at the origin of its own space; the tail from (0, −0.05, −0.1), back and down along `dir`. */
export function makeColliderRig(parent: Parent, capsules: Capsule[], tail: Partial<TailOptions>, dir: [number, number, number] = [0, -1, -0.25]): ColliderRig {
  const world = createBitrigWorld();
  const src = colliderRigSource(dir);
  const b = bindSkeleton(world, src, { tail: { restSource: 'bind', ...tail } });
  const colliders = capsules.map((c) => addCapsule(world, b, c));
  const pose = world.pose, hs = b.slotOf[0]!;
  const hipsWs = (): mat4 => mat4.clone(pose.worldM.subarray(hs * 16, hs * 16 + 16) as unknown as mat4);
  return {
    world, b, rest: src.rest, tailEid: b.tails[0]!.eid, colliders,
    frame(dt, sideways = 0) {
      placeHips(b, src.rest, parent, sideways);
      update(world, dt);
    },
    joints: () => tailJoints(b),
    capsulesWs() {
      const m = hipsWs();
      return capsules.map((c) => ({ a: vec3.transformMat4(vec3.create(), c.a, m), b: vec3.transformMat4(vec3.create(), c.b, m), r: c.r * parent.scale }));
    },
    hipsWs,
  };
}

/** Closest distance between segments p0p1 and q0q1 (Ericson's clamped closest points, f64). */
export function segmentDistance(p0: vec3, p1: vec3, q0: vec3, q1: vec3): number {
  const d1 = vec3.sub(vec3.create(), p1, p0), d2 = vec3.sub(vec3.create(), q1, q0), r = vec3.sub(vec3.create(), p0, q0);
  const a = vec3.dot(d1, d1), e = vec3.dot(d2, d2), f = vec3.dot(d2, r);
  const clamp = (x: number): number => Math.min(1, Math.max(0, x));
  let s = 0, t = 0;
  if (a <= 1e-18 && e <= 1e-18) { s = 0; t = 0; } else if (a <= 1e-18) { t = clamp(f / e); } else {
    const c = vec3.dot(d1, r);
    if (e <= 1e-18) { s = clamp(-c / a); } else {
      const b = vec3.dot(d1, d2), den = a * e - b * b;
      s = den > 0 ? clamp((b * f - c * e) / den) : 0;
      t = (b * s + f) / e;
      if (t < 0) { t = 0; s = clamp(-c / a); } else if (t > 1) { t = 1; s = clamp((b - c) / a); }
    }
  }
  const cp = vec3.scaleAndAdd(vec3.create(), p0, d1, s), cq = vec3.scaleAndAdd(vec3.create(), q0, d2, t);
  return vec3.distance(cp, cq);
}

/**
 * Deepest penetration of a tail link segment into a capsule, as a fraction of its radius (0:
 * none), over links whose head is outside it (a link hanging from inside a shape is left to the
 * links beyond: the kernel's contract).
 */
export function deepestPenetration(joints: vec3[], caps: { a: vec3; b: vec3; r: number }[]): number {
  let worst = 0;
  for (const c of caps) {
    for (let i = 0; i + 1 < joints.length; i++) {
      if (segmentDistance(joints[i]!, joints[i]!, c.a, c.b) <= c.r) continue;
      const d = segmentDistance(joints[i]!, joints[i + 1]!, c.a, c.b);
      worst = Math.max(worst, (c.r - d) / c.r);
    }
  }
  return worst;
}

/** Lengths of the tail's links (world), from its joints. */
export function linkLengths(j: vec3[]): number[] {
  return j.slice(1).map((p, i) => vec3.distance(p, j[i]!));
}

