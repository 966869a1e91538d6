/**
 * Automatic tail colliders from a bound skeleton and its skin (setup-time; may allocate):
 * a capsule along each leg's thigh and shin (group legs), and along the hips and the lower
 * spine (group body), each in its bone's space. Radius: the median (50th percentile) distance
 * from the bone's segment of the skin vertices that bone moves most (their dominant joint);
 * a bone with fewer than {@link MIN_SKIN_VERTICES} such vertices, or no skin, gets a fraction of
 * its segment's length instead ({@link AUTO_COLLIDER_DEFAULTS}). The hips capsule starts one
 * radius ahead of the hips joint, toward the spine, so the tail's root sits on its surface
 * rather than inside it.
 */
import { mat4, vec3 } from 'gl-matrix';
import type { BitrigWorld } from './world';
import type { CharacterBinding } from './binding';
import { bindWorldMatrices } from './tailSetup';
import { isSpineName, isTailName, type SkeletonTopology } from './boneMap';
import { findLimbs } from './limbMap';
import { dominantJoints, type SkinInput } from './sceneIK';
import { addTailCollider } from './colliderSetup';
import { COLLIDER_GROUPS } from './components/collider';

/** Options of {@link addAutoTailColliders}. */
export interface AutoColliderOptions {
  /** Percentile (0…100) of the skin distances taken as a capsule's radius. */
  percentile: number;
  /** Without skin: a leg capsule's radius as a fraction of its segment's length. */
  legFraction: number;
  /** Without skin: a body capsule's radius as a fraction of its segment's length. */
  bodyFraction: number;
}

/** Defaults of {@link AutoColliderOptions}. */
export const AUTO_COLLIDER_DEFAULTS: Readonly<AutoColliderOptions> = Object.freeze({ percentile: 50, legFraction: 0.12, bodyFraction: 0.35 });

/** Fewest dominant skin vertices a bone needs for a radius from the skin. */
export const MIN_SKIN_VERTICES = 8;

/** One automatic capsule: bone (source index), ends in its space, group. */
interface Segment { bone: number; end: vec3; group: number; fraction: number; fromHips: boolean }

/** Distance from point p to segment a–b. */
function pointSegment(p: vec3, a: vec3, b: vec3): number {
  const ab = vec3.sub(vec3.create(), b, a), ap = vec3.sub(vec3.create(), p, a);
  const l2 = vec3.dot(ab, ab);
  const t = l2 > 0 ? Math.min(1, Math.max(0, vec3.dot(ap, ab) / l2)) : 0;
  return vec3.distance(p, vec3.scaleAndAdd(vec3.create(), a, ab, t));
}

/**
 * Add the automatic colliders to a bound character (legs from the bone-name map, hips and
 * lower spine from the binding's pelvis and its spine children). Returns their entities
 * (none when the skeleton has neither legs nor a pelvis). Throws `bitrig/tail: …` as
 * `addTailCollider`. Setup-time.
 *
 * @example
 * const colliders = addAutoTailColliders(world, binding, skin);
 */
export function addAutoTailColliders(world: BitrigWorld, binding: CharacterBinding, skin: SkinInput | null, options: Partial<AutoColliderOptions> = {}): number[] {
  const o = { ...AUTO_COLLIDER_DEFAULTS, ...options };
  const pose = world.pose, char = binding.charId, start = pose.charStart[char]!, n = binding.boneCount;
  const srcOfSlot = new Map<number, number>();
  for (let i = 0; i < n; i++) srcOfSlot.set(binding.slotOf[i]!, i);
  const names: string[] = [], parents: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = binding.slotOf[i]!;
    names.push(pose.names[s]!);
    parents.push(srcOfSlot.get(pose.parent[s]!) ?? -1);
  }
  const bindW = bindWorldMatrices(world, char);
  const worldOf = (i: number): mat4 => bindW.subarray((binding.slotOf[i]! - start) * 16, (binding.slotOf[i]! - start) * 16 + 16) as unknown as mat4;
  const bindPos = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) bindPos[i * 3 + k] = worldOf(i)[12 + k]!;
  const endIn = (bone: number, other: number): vec3 => {
    const inv = mat4.invert(mat4.create(), worldOf(bone)) ?? mat4.create();
    return vec3.transformMat4(vec3.create(), [worldOf(other)[12]!, worldOf(other)[13]!, worldOf(other)[14]!], inv);
  };
  const topo: SkeletonTopology = { names, parents };
  const segs: Segment[] = [];
  for (const l of findLimbs(topo, bindPos, binding.pelvis)) {
    if (l.kind !== 'leg') continue;
    segs.push({ bone: l.root, end: endIn(l.root, l.mid), group: COLLIDER_GROUPS.legs, fraction: o.legFraction, fromHips: false });
    segs.push({ bone: l.mid, end: endIn(l.mid, l.end), group: COLLIDER_GROUPS.legs, fraction: o.legFraction, fromHips: false });
  }
  const spineChild = (b: number): number => parents.findIndex((p, i) => p === b && isSpineName(names[i]!) && !isTailName(names[i]!));
  if (binding.pelvis >= 0) {
    const s1 = spineChild(binding.pelvis);
    if (s1 >= 0) {
      segs.push({ bone: binding.pelvis, end: endIn(binding.pelvis, s1), group: COLLIDER_GROUPS.body, fraction: o.bodyFraction, fromHips: true });
      const s2 = spineChild(s1);
      if (s2 >= 0) segs.push({ bone: s1, end: endIn(s1, s2), group: COLLIDER_GROUPS.body, fraction: o.bodyFraction, fromHips: false });
    }
  }
  const radii = skinRadii(skin, segs, n, worldOf, o.percentile);
  const out: number[] = [];
  for (let k = 0; k < segs.length; k++) {
    const g = segs[k]!, len = vec3.length(g.end);
    if (!(len > 0)) continue;
    const r = radii[k]! > 0 ? radii[k]! : g.fraction * len;
    // (the hips capsule starts one radius toward the spine: the tail's root on its surface)
    const a = g.fromHips ? vec3.scale(vec3.create(), g.end, Math.min(1, r / len)) : vec3.create();
    out.push(addTailCollider(world, { char, slot: binding.slotOf[g.bone]!, radius: r, a: Array.from(a), b: Array.from(g.end), groups: g.group }));
  }
  return out;
}

/** Each segment's radius from the skin (0: too few vertices, or no skin). */
function skinRadii(skin: SkinInput | null, segs: Segment[], n: number, worldOf: (i: number) => mat4, percentile: number): number[] {
  const out = segs.map(() => 0);
  if (!skin) return out;
  const nv = Math.floor(skin.positions.length / 3);
  if (skin.joints.length < nv * 4 || skin.weights.length < nv * 4) return out;
  const dom = dominantJoints(skin);
  for (let k = 0; k < segs.length; k++) {
    const g = segs[k]!;
    const toBone = skin.inverseBind && skin.inverseBind.length >= n * 16
      ? mat4.fromValues(...(Array.from({ length: 16 }, (_, c) => skin.inverseBind![g.bone * 16 + c]!) as Parameters<typeof mat4.fromValues>))
      : mat4.invert(mat4.create(), worldOf(g.bone)) ?? mat4.create();
    const d: number[] = [];
    const p = vec3.create(), zero = vec3.create();
    for (let v = 0; v < nv; v++) {
      if (dom[v] !== g.bone) continue;
      vec3.set(p, skin.positions[v * 3]!, skin.positions[v * 3 + 1]!, skin.positions[v * 3 + 2]!);
      vec3.transformMat4(p, p, toBone);
      d.push(pointSegment(p, zero, g.end));
    }
    if (d.length < MIN_SKIN_VERTICES) continue;
    d.sort((x, y) => x - y);
    out[k] = d[Math.min(d.length - 1, Math.floor((percentile / 100) * d.length))]!;
  }
  return out;
}
