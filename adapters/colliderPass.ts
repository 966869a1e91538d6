/**
 * The animator's tail colliders (setup-time; engine-free; shared by every adapter): the VRM
 * file's spring-bone colliders when the `vrm` option gives a file that has some, else the
 * automatic leg and body capsules. Skipped VRM entries are said in the first binding's
 * problems.
 */
import type { BitrigWorld } from '../core/world';
import type { CharacterBinding } from '../core/binding';
import type { SkinInput } from '../core/sceneIK';
import type { TailOptions, PartialOptions } from '../core/defaults';
import { addAutoTailColliders } from '../core/colliderAuto';
import { readVrmColliders } from '../core/vrmColliders';
import { addVrmTailColliders } from '../core/vrmColliderSetup';

/** What {@link addAnimatorColliders} needs from the animator's setup. */
export interface ColliderPassInput {
  world: BitrigWorld;
  bindings: readonly CharacterBinding[];
  /** Each binding's bone names (source order). */
  names: readonly (readonly string[])[];
  /** `colliders` option: false adds none. */
  enabled: boolean;
  /** `vrm` option: the glTF JSON (undefined: none). */
  vrm: unknown;
  /** Each binding's bones' glTF node indices when the engine knows them (null: matched by name). */
  nodesOf: (binding: number) => ArrayLike<number> | null;
  /** Each binding's skin for the automatic radii (null: none). */
  skinOf: (binding: number) => SkinInput | null;
  /** The animator's `tail` option (colliderGroups set there: every chain keeps its groups). */
  tail: PartialOptions<TailOptions> | undefined;
  /** The animator's `tails` option (a chain whose colliderGroups are set there keeps them). */
  tails: Record<string, PartialOptions<TailOptions> | null | undefined> | undefined;
}

/** Characters engines drop from glTF node names (three.js's sanitised names): compared without them. */
const sanitise = (name: string): string => name.replace(/\s/g, '_').replace(/[[\].:/]/g, '');

/**
 * Each bone's glTF node index by name (−1: none): the node's name as it is, as three.js
 * sanitises it, or `joint<i>` (Babylon.js's name for an unnamed joint node i). Setup-time.
 *
 * @example
 * nodesByName({ nodes: [{ name: 'Hips' }, { name: 'Leg.L' }] }, ['Hips', 'LegL']); // Int32Array [0, 1]
 */
export function nodesByName(json: unknown, names: readonly string[]): Int32Array {
  const nodes = typeof json === 'object' && json !== null && Array.isArray((json as { nodes?: unknown }).nodes) ? (json as { nodes: unknown[] }).nodes : [];
  const exact = new Map<string, number>(), loose = new Map<string, number>();
  nodes.forEach((n, i) => {
    const name = typeof n === 'object' && n !== null && typeof (n as { name?: unknown }).name === 'string' ? (n as { name: string }).name : `joint${i}`;
    if (!exact.has(name)) exact.set(name, i);
    if (!loose.has(sanitise(name))) loose.set(sanitise(name), i);
  });
  return Int32Array.from(names, (b) => exact.get(b) ?? loose.get(sanitise(b)) ?? -1);
}

/** The chains of a binding whose `colliderGroups` the animator's options set. */
function keptChains(b: CharacterBinding, names: readonly string[], p: ColliderPassInput): number[] {
  if (p.tail?.colliderGroups !== undefined) return b.tails.map((t) => t.eid);
  return b.tails.filter((t) => p.tails?.[names[t.bones[0]!]!]?.colliderGroups !== undefined).map((t) => t.eid);
}

/**
 * Add the animator's colliders into `out` (entities, so a failed setup can remove them): the
 * VRM ones instead of the automatic ones when the file has any. Throws `bitrig/colliders: …`
 * for a malformed VRM JSON, `bitrig/tail: …` as `addTailCollider`. Setup-time.
 *
 * @example
 * addAnimatorColliders({ world, bindings, names, enabled: true, vrm: json, nodesOf: () => null, skinOf: () => null, tail: {}, tails: {} }, colliders);
 */
export function addAnimatorColliders(p: ColliderPassInput, out: number[]): void {
  if (!p.enabled) return;
  const vrm = p.vrm === undefined ? null : readVrmColliders(p.vrm);
  const problems = p.bindings[0]!.problems;
  if (vrm && vrm.colliders.length > 0) {
    for (const s of vrm.skipped) problems.push(`bitrig/colliders: VRM ${s.path} skipped: ${s.reason}`);
    const notOnBone = new Map<string, number>();
    let withTails = 0;
    p.bindings.forEach((b, i) => {
      if (b.tails.length === 0) return;
      withTails++;
      const nodes = p.nodesOf(i) ?? nodesByName(p.vrm, p.names[i]!);
      const r = addVrmTailColliders(p.world, b, vrm, nodes, { keepChainGroups: keptChains(b, p.names[i]!, p) });
      out.push(...r.colliders);
      for (const s of r.skipped) {
        if (s.reason.startsWith('its node is not a bone')) notOnBone.set(s.path, (notOnBone.get(s.path) ?? 0) + 1);
        else problems.push(`bitrig/colliders: VRM ${s.path} skipped: ${s.reason}`);
      }
    });
    for (const [path, n] of notOnBone) if (n === withTails) problems.push(`bitrig/colliders: VRM ${path} skipped: its node is no bone of a skeleton with a tail`);
    return;
  }
  p.bindings.forEach((b, i) => {
    if (b.tails.length > 0) out.push(...addAutoTailColliders(p.world, b, p.skinOf(i)));
  });
}
