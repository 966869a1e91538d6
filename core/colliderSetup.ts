/**
 * Tail collider setup (setup-time; may allocate and throw `bitrig/tail: …`): add, edit and
 * remove the spheres and capsules that keep a character's tails out of its legs and body, and
 * keep each chain's collider list (`TailChain.colliders`: its own character's colliders whose
 * groups meet its `colliderGroups` option) current.
 */
import { addComponent, entityExists, hasComponent } from 'bitecs';
import { describeValue } from './defaults';
import { addBitrigEntity, removeBitrigEntity, requireBitrigWorld, type BitrigWorld } from './world';
import { COLLIDER_CAPSULE, COLLIDER_GROUPS, COLLIDER_SPHERE, MAX_CHAIN_COLLIDERS, SHAPE_STRIDE } from './components/collider';

/** A sphere (`b` left out) or a capsule (`a`–`b`) on a bone, in the bone's own space and units. */
export interface TailColliderSpec {
  /** Pose-store character id (`binding.charId`). */
  char: number;
  /** Pose slot of the bone (`binding.slotOf[boneIndex]`). */
  slot: number;
  /** Radius (bone units, > 0). */
  radius: number;
  /** Sphere centre, or the capsule's first end (bone space; default the bone's origin). */
  a?: ArrayLike<number> | undefined;
  /** The capsule's second end (bone space); left out: a sphere. */
  b?: ArrayLike<number> | undefined;
  /** Group bit mask (default {@link COLLIDER_GROUPS}.body; 1 legs, 2 body, higher bits the game's own). */
  groups?: number | undefined;
}

const ZERO3 = [0, 0, 0] as const;

function vec3Of(v: ArrayLike<number> | undefined, what: string): ArrayLike<number> {
  if (v === undefined) return ZERO3;
  if (typeof v !== 'object' || v === null || v.length !== 3 || ![0, 1, 2].every((i) => Number.isFinite(v[i]))) {
    throw new Error(`bitrig/tail: collider ${what} must be three finite numbers [x, y, z] in the bone's space, got ${describeValue(v)}`);
  }
  return v;
}

/**
 * Character `char`'s collider list (empty when it has none), without colliders that are gone
 * (entity removed, or `TailCollider` taken away, without `removeTailCollider`; or the id reused
 * by another character's collider): those leave the list here.
 */
function listOf(world: BitrigWorld, char: number): readonly number[] {
  const list = world.collidersByChar.get(char);
  if (!list) return [];
  const K = world.components.TailCollider;
  for (let i = list.length - 1; i >= 0; i--) if (!(isTailCollider(world, list[i]!) && K.char[list[i]!] === char)) list.splice(i, 1);
  if (list.length === 0) world.collidersByChar.delete(char);
  return list;
}

/** Enter or leave collider `eid` in character `char`'s list. */
function setListed(world: BitrigWorld, char: number, eid: number, on: boolean): void {
  if (char < 0) return;
  let list = world.collidersByChar.get(char);
  if (on) { if (!list) world.collidersByChar.set(char, (list = [])); if (!list.includes(eid)) list.push(eid); return; }
  if (!list) return;
  const at = list.indexOf(eid);
  if (at >= 0) list.splice(at, 1);
  if (list.length === 0) world.collidersByChar.delete(char);
}

/** A spec checked ({@link checkSpec}): its ends and groups filled in. */
interface CheckedSpec { char: number; slot: number; radius: number; a: ArrayLike<number>; b: ArrayLike<number>; groups: number; kind: number }

/** Check a spec; throws `bitrig/tail: …` naming the bad field. */
function checkSpec(world: BitrigWorld, spec: TailColliderSpec): CheckedSpec {
  if (typeof spec !== 'object' || spec === null) throw new Error(`bitrig/tail: a collider needs a spec { char, slot, radius, a?, b?, groups? }, got ${describeValue(spec)}`);
  const pose = world.pose;
  const char = spec.char, slot = spec.slot;
  if (!(Number.isInteger(char) && char >= 0 && char < pose.charCapacity && pose.charStart[char]! >= 0)) {
    throw new Error(`bitrig/tail: collider character ${describeValue(char)} is not bound`);
  }
  if (!(Number.isInteger(slot) && slot >= 0 && slot < pose.capacity && pose.owner[slot] === char)) {
    throw new Error(`bitrig/tail: collider bone slot ${describeValue(slot)} does not belong to character ${char}`);
  }
  if (!(typeof spec.radius === 'number' && spec.radius > 0 && spec.radius < 1e6)) {
    throw new Error(`bitrig/tail: collider radius must be a number in (0, 1e6) bone units, got ${describeValue(spec.radius)}`);
  }
  const groups = spec.groups ?? COLLIDER_GROUPS.body;
  if (!(Number.isInteger(groups) && groups >= 1 && groups <= 0x7fffffff)) {
    throw new Error(`bitrig/tail: collider groups must be an integer bit mask in [1, 2³¹ − 1] (1 legs, 2 body), got ${describeValue(groups)}`);
  }
  const a = vec3Of(spec.a, 'a'), b = spec.b === undefined ? a : vec3Of(spec.b, 'b');
  return { char, slot, radius: spec.radius, a, b, groups, kind: spec.b === undefined ? COLLIDER_SPHERE : COLLIDER_CAPSULE };
}

/** Write a checked spec into collider `eid`'s fields (every field). */
function writeCollider(world: BitrigWorld, eid: number, v: CheckedSpec): void {
  const K = world.components.TailCollider;
  K.char[eid] = v.char; K.slot[eid] = v.slot; K.groups[eid] = v.groups; K.kind[eid] = v.kind;
  for (let c = 0; c < 3; c++) { K.shapeLs[eid * 7 + c] = v.a[c]!; K.shapeLs[eid * 7 + 3 + c] = v.b[c]!; }
  K.shapeLs[eid * 7 + 6] = v.radius;
  K.shapePrev.fill(0, eid * SHAPE_STRIDE, eid * SHAPE_STRIDE + SHAPE_STRIDE);
  K.shapeCur.fill(0, eid * SHAPE_STRIDE, eid * SHAPE_STRIDE + SHAPE_STRIDE);
  K.shapePrev[eid * SHAPE_STRIDE + 6] = -1; K.shapeCur[eid * SHAPE_STRIDE + 6] = -1; // (inert until the first frame places it)
  K.fresh[eid] = 1;
  K.refSlot[eid] = -1; // (refreshCharacterColliders sets it)
  K.relPrev.fill(0, eid * 6, eid * 6 + 6);
}

/**
 * Add a collider to a bound character: a sphere (`a`, `radius`) or a capsule (`a`–`b`,
 * `radius`) on one of its bones, in the bone's space and units, in `groups` (default body).
 * Its tails whose `colliderGroups` meet those groups collide with it from the next frame.
 * Returns the collider's entity. Throws `bitrig/tail: …` for a bad spec or when a chain
 * would collide with more than {@link MAX_CHAIN_COLLIDERS}. Setup-time.
 *
 * @example
 * const thigh = addTailCollider(world, { char: binding.charId, slot: binding.slotOf[thighBone], radius: 0.07, a: [0, 0, 0], b: [0, 0.4, 0], groups: 1 });
 */
export function addTailCollider(world: BitrigWorld, spec: TailColliderSpec): number {
  requireBitrigWorld(world, 'bitrig/tail');
  const v = checkSpec(world, spec); // (before the entity: a bad spec leaves nothing behind)
  checkCharacterRoom(world, v.char, v.groups);
  const eid = addBitrigEntity(world);
  const K = world.components.TailCollider;
  addComponent(world, eid, K);
  const owner = world.characterEntities.get(spec.char);
  if (owner !== undefined) { addComponent(world, eid, world.components.PartOf); world.components.PartOf.character[eid] = owner; }
  writeCollider(world, eid, v);
  setListed(world, v.char, eid, true);
  refreshCharacterColliders(world, v.char);
  return eid;
}

/**
 * Change a collider: any of its spec's fields (the rest kept). Throws `bitrig/tail: …` as
 * {@link addTailCollider}. Setup-time.
 *
 * @example
 * setTailCollider(world, thigh, { radius: 0.09 });
 */
export function setTailCollider(world: BitrigWorld, eid: number, change: Partial<TailColliderSpec>): void {
  requireCollider(world, eid, 'setTailCollider');
  const cur = getTailCollider(world, eid);
  if (cur.char < 0) throw new Error('bitrig/tail: setTailCollider: the collider\'s character was unbound');
  const next: TailColliderSpec = { ...cur, ...change };
  if (cur.b === undefined && change.b === undefined) delete next.b;
  const v = checkSpec(world, next);
  const added = v.char !== cur.char ? v.groups : v.groups & ~world.components.TailCollider.groups[eid]!; // (groups it newly joins)
  if (added !== 0) checkCharacterRoom(world, v.char, added);
  const oldChar = cur.char;
  setListed(world, oldChar, eid, false);
  writeCollider(world, eid, v);
  setListed(world, v.char, eid, true);
  refreshCharacterColliders(world, next.char);
  if (oldChar !== next.char) refreshCharacterColliders(world, oldChar);
}

/**
 * A collider's spec as set (`b` absent for a sphere; `char` −1 once its character was unbound).
 *
 * @example
 * const { radius } = getTailCollider(world, thigh);
 */
export function getTailCollider(world: BitrigWorld, eid: number): TailColliderSpec {
  requireCollider(world, eid, 'getTailCollider');
  const K = world.components.TailCollider, o = eid * 7;
  const a = [K.shapeLs[o]!, K.shapeLs[o + 1]!, K.shapeLs[o + 2]!];
  const spec: TailColliderSpec = { char: K.char[eid]!, slot: K.slot[eid]!, radius: K.shapeLs[o + 6]!, a, groups: K.groups[eid]! };
  if (K.kind[eid] === COLLIDER_CAPSULE) spec.b = [K.shapeLs[o + 3]!, K.shapeLs[o + 4]!, K.shapeLs[o + 5]!];
  return spec;
}

/**
 * Remove a collider (its tails stop colliding with it from the next step). Setup-time.
 *
 * @example
 * removeTailCollider(world, thigh);
 */
export function removeTailCollider(world: BitrigWorld, eid: number): void {
  requireCollider(world, eid, 'removeTailCollider');
  const char = world.components.TailCollider.char[eid]!;
  setListed(world, char, eid, false);
  removeBitrigEntity(world, eid);
  if (char >= 0) refreshCharacterColliders(world, char);
}

/**
 * The colliders of character `char` (pose id), in entity order. Setup-time.
 *
 * @example
 * for (const c of tailCollidersOf(world, binding.charId)) removeTailCollider(world, c);
 */
export function tailCollidersOf(world: BitrigWorld, char: number): number[] {
  requireBitrigWorld(world, 'bitrig/tail');
  return [...listOf(world, char)].sort((x, y) => x - y);
}

/**
 * Throw `bitrig/tail: …` when a chain of character `char` naming groups `mask` would collide
 * with more than {@link MAX_CHAIN_COLLIDERS} colliders, counting one more in groups
 * `extraGroups` (0: none). Checked before any change, so a refused call changes nothing. Setup-time.
 */
export function checkChainColliderRoom(world: BitrigWorld, char: number, mask: number, extraGroups = 0): void {
  const K = world.components.TailCollider, cols = listOf(world, char);
  let n = (extraGroups & mask) !== 0 ? 1 : 0;
  for (let i = 0; i < cols.length; i++) if ((K.groups[cols[i]!]! & mask) !== 0) n++;
  if (n > MAX_CHAIN_COLLIDERS) {
    throw new Error(`bitrig/tail: a tail chain collides with at most ${MAX_CHAIN_COLLIDERS} colliders; character ${char} would have ${n} in groups ${mask} (remove some, or narrow the chain's colliderGroups)`);
  }
}

/**
 * Rebuild chain `eid`'s collider list from its character's colliders and its
 * `colliderGroups` (`addTailChain` and `setTailOptions` call it, after
 * {@link checkChainColliderRoom}). Setup-time.
 *
 * @example
 * refreshChainColliders(world, tailEid);
 */
export function refreshChainColliders(world: BitrigWorld, eid: number): void {
  const C = world.components.TailChain, K = world.components.TailCollider;
  const mask = C.colliderGroups[eid]! | 0, char = C.char[eid]!;
  const cols = listOf(world, char);
  let n = 0;
  C.colliders.fill(-1, eid * MAX_CHAIN_COLLIDERS, (eid + 1) * MAX_CHAIN_COLLIDERS);
  C.colliderContacts[eid] = 0;
  for (let i = 0; i < cols.length && char >= 0 && mask !== 0 && n < MAX_CHAIN_COLLIDERS; i++) {
    const c = cols[i]!;
    if (K.char[c] === char && (K.groups[c]! & mask) !== 0) C.colliders[eid * MAX_CHAIN_COLLIDERS + n++] = c;
  }
  C.colliderCount[eid] = n;
}

/** {@link checkChainColliderRoom} for every chain of character `char`, with one more collider in `groups`. */
function checkCharacterRoom(world: BitrigWorld, char: number, groups: number): void {
  const chains = world.tailsByChar.get(char);
  if (chains) for (const e of chains) checkChainColliderRoom(world, char, world.components.TailChain.colliderGroups[e]! | 0, groups);
}

/**
 * {@link refreshChainColliders} for every chain of character `char`, and its colliders'
 * reference frame for their lead (`refSlot`: the first chain's anchor). Setup-time.
 */
export function refreshCharacterColliders(world: BitrigWorld, char: number): void {
  const chains = world.tailsByChar.get(char);
  if (chains) for (const e of chains) refreshChainColliders(world, e);
  const K = world.components.TailCollider;
  const ref = chains && chains.length > 0 ? world.components.TailChain.anchorSlot[chains[0]!]! : -1;
  for (const c of listOf(world, char)) if (K.refSlot[c] !== ref) { K.refSlot[c] = ref; K.fresh[c] = 1; }
}

/**
 * Whether `eid` is a live tail collider of `world`. Never throws.
 *
 * @example
 * if (isTailCollider(world, c)) removeTailCollider(world, c);
 */
export function isTailCollider(world: BitrigWorld, eid: number): boolean {
  return Number.isInteger(eid) && eid >= 0 && eid < world.capacity && entityExists(world, eid) && hasComponent(world, eid, world.components.TailCollider);
}

/** Throw `bitrig/tail: …` unless `eid` is a live collider of an attached `world`. Setup-time. */
function requireCollider(world: BitrigWorld, eid: number, call: string): void {
  requireBitrigWorld(world, 'bitrig/tail');
  if (!isTailCollider(world, eid)) {
    throw new Error(`bitrig/tail: ${call}: ${describeValue(eid)} is not a tail collider of this world (removed, or never added)`);
  }
}
