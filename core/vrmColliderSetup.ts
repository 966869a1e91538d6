/**
 * A VRM file's spring-bone colliders as bitrig tail colliders (setup-time; engine-free; may
 * allocate and throw). Each VRM collider group becomes one bitrig collider group bit
 * ({@link vrmGroupBit}: group i → bit 2 + i, above the built-in legs and body bits); each
 * collider rides its node's bone in the groups that hold it. Each tail chain whose bones are
 * joints of VRM springs collides with those springs' groups; a chain in no spring collides
 * with every VRM group.
 */
import type { CharacterBinding } from './binding';
import type { BitrigWorld } from './world';
import { addTailCollider, removeTailCollider } from './colliderSetup';
import { setTailOptions } from './tailSetup';
import type { VrmColliderSet } from './vrmColliders';

/** How many VRM collider groups get a bit of their own (bits 2…30); later groups are skipped. */
export const MAX_VRM_GROUPS = 29;

/**
 * The bitrig collider group bit of VRM collider group `group` (its index in the file's
 * collider groups): `1 << (2 + group)`; 0 for a group past {@link MAX_VRM_GROUPS}.
 *
 * @example
 * setTailOptions(world, tailEid, { colliderGroups: vrmGroupBit(0) | vrmGroupBit(3) });
 */
export function vrmGroupBit(group: number): number {
  return Number.isInteger(group) && group >= 0 && group < MAX_VRM_GROUPS ? 1 << (2 + group) : 0;
}

/** Options of {@link addVrmTailColliders}. */
export interface VrmColliderOptions {
  /** Tail chain entities whose `colliderGroups` are left as they are (the game set them); the others get the VRM groups. */
  keepChainGroups: readonly number[];
}

/** Defaults of {@link VrmColliderOptions}. */
export const VRM_COLLIDER_DEFAULTS: Readonly<VrmColliderOptions> = Object.freeze({ keepChainGroups: [] });

/** What {@link addVrmTailColliders} did. */
export interface VrmCollidersAdded {
  /** The collider entities added (remove each with `removeTailCollider`). */
  colliders: number[];
  /** VRM colliders, groups or chains left out, each with the reason. */
  skipped: { path: string; reason: string }[];
}

/** Each chain's VRM group mask: its springs' groups, or every group when it is in none. */
function chainMask(vrm: VrmColliderSet, nodes: number[]): number {
  let mask = 0, inSpring = false;
  for (const s of vrm.springs) {
    if (!s.nodes.some((n) => nodes.includes(n))) continue;
    inSpring = true;
    for (const g of s.groups) mask |= vrmGroupBit(g);
  }
  if (!inSpring) for (let g = 0; g < vrm.groups.length; g++) mask |= vrmGroupBit(g);
  return mask;
}

/**
 * Add a VRM file's colliders (from {@link readVrmColliders}) to a bound character. `nodeOfBone`
 * gives each bone's glTF node index (by the binding's bone order; −1: none). A collider on a
 * node that is not one of the character's bones, in no group, or only in groups past
 * {@link MAX_VRM_GROUPS} is skipped with the reason; so is a chain whose VRM groups hold more
 * colliders than a chain may take (its `colliderGroups` then stay as they were). Throws
 * `bitrig/tail: …` as `addTailCollider` (nothing is left added). Setup-time.
 *
 * @example
 * const { colliders, skipped } = addVrmTailColliders(world, binding, readVrmColliders(json), nodeOfBone);
 */
export function addVrmTailColliders(world: BitrigWorld, binding: CharacterBinding, vrm: VrmColliderSet, nodeOfBone: ArrayLike<number>, options: Partial<VrmColliderOptions> = {}): VrmCollidersAdded {
  const o = { ...VRM_COLLIDER_DEFAULTS, ...options };
  const boneOf = new Map<number, number>();
  for (let i = 0; i < Math.min(nodeOfBone.length, binding.boneCount); i++) if (nodeOfBone[i]! >= 0 && !boneOf.has(nodeOfBone[i]!)) boneOf.set(nodeOfBone[i]!, i);
  const out: VrmCollidersAdded = { colliders: [], skipped: [] };
  try {
    vrm.colliders.forEach((c, i) => {
      const path = `colliders[${i}] (node ${c.node}${c.nodeName !== undefined ? ` "${c.nodeName}"` : ''})`;
      const bone = boneOf.get(c.node);
      let groups = 0;
      for (const g of c.groups) groups |= vrmGroupBit(g);
      if (bone === undefined) out.skipped.push({ path, reason: 'its node is not a bone of this skeleton' });
      else if (c.groups.length === 0) out.skipped.push({ path, reason: 'in no collider group: no spring collides with it' });
      else if (groups === 0) out.skipped.push({ path, reason: `only in collider groups past the first ${MAX_VRM_GROUPS}` });
      else out.colliders.push(addTailCollider(world, { char: binding.charId, slot: binding.slotOf[bone]!, radius: c.radius, a: c.a, b: c.b, groups }));
    });
  } catch (e) {
    for (const c of out.colliders) removeTailCollider(world, c);
    throw e;
  }
  if (out.colliders.length === 0) return out;
  for (const t of binding.tails) {
    if (o.keepChainGroups.includes(t.eid)) continue;
    const mask = chainMask(vrm, t.bones.map((b) => (b < nodeOfBone.length ? nodeOfBone[b]! : -1)));
    try {
      setTailOptions(world, t.eid, { colliderGroups: mask });
    } catch (e) {
      out.skipped.push({ path: `tail chain ${t.eid}`, reason: `${(e as Error).message.replace(/^bitrig\/tail: /, '')}; its colliderGroups were kept` });
    }
  }
  return out;
}
