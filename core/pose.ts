/**
 * The pose store: every bone of every bound character in one pool of flat typed arrays.
 *
 * A character owns a contiguous slot range `[start, start + count)`, ordered parents
 * before children. Per slot: parent slot (-1 = the character's root frame), bind local TRS
 * (recovered from inverse bind matrices), current local TRS (filled by an adapter from the
 * engine every frame) and the world matrix (column-major 4×4, gl-matrix layout).
 * Per character: the root frame `rootWs` (world matrix of the skeleton's container, e.g. the
 * three.js `SkinnedMesh` parent chain), so bone world = rootWs × local × local …
 *
 * Units are the engine's (metres × `unitScale`). Setup functions may allocate and throw
 * (messages start with `bitrig/pose:`); per-frame functions never allocate.
 */
import { mat4, quat, vec3 } from 'gl-matrix';

/** One bone as given to {@link poseAddCharacter}. */
export interface BoneDef {
  /** Bone name (kept for adapters, diagnostics and the bone-name map). */
  name: string;
  /** Index of the parent within the same list, or -1 for a root bone. */
  parent: number;
  /** Bind local translation (parent frame, engine units). */
  bindT: ArrayLike<number>;
  /** Bind local rotation quaternion x, y, z, w. */
  bindR: ArrayLike<number>;
  /** Bind local scale. */
  bindS: ArrayLike<number>;
}

/** Pool of bones for all characters; see the module header for the layout. */
export interface PoseStore {
  /** Slots allocated (capacity of every per-slot array). */
  capacity: number;
  /** Characters allocated (capacity of every per-character array). */
  charCapacity: number;
  /** Parent slot per bone, -1 when the parent is the character's root frame. */
  parent: Int32Array;
  /** Owning character per slot, -1 when free. */
  owner: Int32Array;
  /** Bind local translation, 3 per slot. */
  bindT: Float64Array;
  /** Bind local rotation (x, y, z, w), 4 per slot. */
  bindR: Float64Array;
  /** Bind local scale, 3 per slot. */
  bindS: Float64Array;
  /** Current local translation, 3 per slot. */
  localT: Float64Array;
  /** Current local rotation, 4 per slot. */
  localR: Float64Array;
  /** Current local scale, 3 per slot. */
  localS: Float64Array;
  /** World matrix, 16 per slot (column-major). */
  worldM: Float64Array;
  /** Bone names per slot ('' when free). */
  names: string[];
  /** First slot of each character, -1 when the character id is free. */
  charStart: Int32Array;
  /** Bone count of each character. */
  charCount: Int32Array;
  /** World matrix of each character's root frame, 16 per character. */
  charRootWs: Float64Array;
  /** Scratch flags used by subtree updates, 1 per slot. */
  dirty: Uint8Array;
  /** Free slot ranges as [start, count] pairs, kept sorted and merged. */
  freeRanges: number[];
  /** Free character ids. */
  freeChars: number[];
  /**
   * Serial number of the character holding each id (a new one at every
   * {@link poseAddCharacter}, 0 while free): a handle made for an earlier holder of a reused id
   * can tell that the id is no longer its character's.
   */
  charSerial: number[];
  /** The serial number the next character added gets. */
  nextSerial: number;
  /** Called after the slot arrays (`'slots'`) or the character arrays (`'chars'`) grew (the world moves them back into WebAssembly memory). */
  onGrow: ((what: 'slots' | 'chars') => void) | null;
  /** Called by {@link poseRemoveCharacter} before a character's slots and id are released (the world stops the chains still on them). */
  onRemove: ((id: number) => void) | null;
}

function grow<T extends Float64Array | Int32Array | Uint8Array>(a: T, n: number, fill = 0): T {
  const C = a.constructor as new (n: number) => T;
  const b = new C(n);
  b.set(a);
  if (fill !== 0) b.fill(fill as never, a.length);
  return b;
}

/**
 * Create an empty pose store. It grows at setup when characters are added.
 *
 * @example
 * const pose = createPoseStore(256, 8);
 */
export function createPoseStore(capacity = 256, charCapacity = 16): PoseStore {
  if (!(capacity > 0) || !(charCapacity > 0)) throw new Error('bitrig/pose: capacities must be positive');
  const s: PoseStore = {
    capacity,
    charCapacity,
    parent: new Int32Array(capacity).fill(-1),
    owner: new Int32Array(capacity).fill(-1),
    bindT: new Float64Array(capacity * 3),
    bindR: new Float64Array(capacity * 4),
    bindS: new Float64Array(capacity * 3),
    localT: new Float64Array(capacity * 3),
    localR: new Float64Array(capacity * 4),
    localS: new Float64Array(capacity * 3),
    worldM: new Float64Array(capacity * 16),
    names: new Array<string>(capacity).fill(''),
    charStart: new Int32Array(charCapacity).fill(-1),
    charCount: new Int32Array(charCapacity),
    charRootWs: new Float64Array(charCapacity * 16),
    dirty: new Uint8Array(capacity),
    freeRanges: [0, capacity],
    freeChars: [],
    charSerial: new Array<number>(charCapacity).fill(0),
    nextSerial: 1,
    onGrow: null,
    onRemove: null,
  };
  for (let c = charCapacity - 1; c >= 0; c--) s.freeChars.push(c);
  return s;
}

function growSlots(s: PoseStore, need: number): void {
  let cap = s.capacity;
  while (cap < need) cap *= 2;
  if (cap === s.capacity) return;
  const old = s.capacity;
  s.parent = grow(s.parent, cap, -1);
  s.owner = grow(s.owner, cap, -1);
  s.bindT = grow(s.bindT, cap * 3);
  s.bindR = grow(s.bindR, cap * 4);
  s.bindS = grow(s.bindS, cap * 3);
  s.localT = grow(s.localT, cap * 3);
  s.localR = grow(s.localR, cap * 4);
  s.localS = grow(s.localS, cap * 3);
  s.worldM = grow(s.worldM, cap * 16);
  s.dirty = grow(s.dirty, cap);
  for (let i = old; i < cap; i++) s.names.push('');
  // Extend (or merge into) the trailing free range.
  const fr = s.freeRanges;
  if (fr.length >= 2 && fr[fr.length - 2]! + fr[fr.length - 1]! === old) fr[fr.length - 1]! += cap - old;
  else fr.push(old, cap - old);
  s.capacity = cap;
  if (s.onGrow !== null) s.onGrow('slots');
}

function growChars(s: PoseStore): void {
  const old = s.charCapacity;
  const cap = old * 2;
  s.charStart = grow(s.charStart, cap, -1);
  s.charCount = grow(s.charCount, cap);
  s.charRootWs = grow(s.charRootWs, cap * 16);
  for (let c = cap - 1; c >= old; c--) s.freeChars.push(c);
  for (let c = old; c < cap; c++) s.charSerial.push(0);
  s.charCapacity = cap;
  if (s.onGrow !== null) s.onGrow('chars');
}

function takeRange(s: PoseStore, count: number): number {
  for (;;) {
    const fr = s.freeRanges;
    for (let i = 0; i < fr.length; i += 2) {
      if (fr[i + 1]! >= count) {
        const start = fr[i]!;
        fr[i] = start + count;
        fr[i + 1] = fr[i + 1]! - count;
        if (fr[i + 1] === 0) fr.splice(i, 2);
        return start;
      }
    }
    growSlots(s, s.capacity + count);
  }
}

function giveRange(s: PoseStore, start: number, count: number): void {
  const fr = s.freeRanges;
  let i = 0;
  while (i < fr.length && fr[i]! < start) i += 2;
  fr.splice(i, 0, start, count);
  // Merge neighbours.
  for (let j = 0; j + 2 < fr.length; ) {
    if (fr[j]! + fr[j + 1]! === fr[j + 2]) {
      fr[j + 1]! += fr[j + 3]!;
      fr.splice(j + 2, 2);
    } else j += 2;
  }
}

/** Result of {@link poseAddCharacter}. */
export interface PoseCharacter {
  /** Character id (index into the per-character arrays). */
  id: number;
  /** First slot of the character's range. */
  start: number;
  /** Slot of each input bone, in input order. */
  slotOf: Int32Array;
  /** The character's serial number ({@link PoseStore.charSerial}); pass it to {@link poseRemoveCharacter}. */
  serial: number;
}

/**
 * Add a character's skeleton. Bones may come in any order; slots are assigned parents
 * first. Current locals start at the bind pose; the root frame starts at identity.
 * Throws `bitrig/pose: …` on a cycle, a bad parent index or non-finite bind values.
 *
 * @example
 * const { id, slotOf } = poseAddCharacter(pose, [
 *   { name: 'Hips', parent: -1, bindT: [0, 1, 0], bindR: [0, 0, 0, 1], bindS: [1, 1, 1] },
 * ]);
 */
export function poseAddCharacter(s: PoseStore, bones: readonly BoneDef[]): PoseCharacter {
  const n = bones.length;
  if (n === 0) throw new Error('bitrig/pose: a character needs at least one bone');
  for (let i = 0; i < n; i++) {
    const b = bones[i]!;
    if (!(b.parent >= -1 && b.parent < n) || b.parent === i) {
      throw new Error(`bitrig/pose: bone "${b.name}" has an invalid parent index ${b.parent}`);
    }
    for (const [k, arr, len] of [['bindT', b.bindT, 3], ['bindR', b.bindR, 4], ['bindS', b.bindS, 3]] as const) {
      for (let j = 0; j < len; j++) {
        if (!Number.isFinite(arr[j])) throw new Error(`bitrig/pose: bone "${b.name}" has a non-finite ${k}`);
      }
    }
  }
  // Topological order: parents first (stable with respect to the input order).
  const order: number[] = [];
  const state = new Uint8Array(n); // 0 new, 1 visiting, 2 done
  const visit = (i: number): void => {
    if (state[i] === 2) return;
    if (state[i] === 1) throw new Error(`bitrig/pose: bone "${bones[i]!.name}" is part of a parent cycle`);
    state[i] = 1;
    const p = bones[i]!.parent;
    if (p >= 0) visit(p);
    state[i] = 2;
    order.push(i);
  };
  for (let i = 0; i < n; i++) visit(i);

  if (s.freeChars.length === 0) growChars(s);
  const id = s.freeChars.pop()!;
  const start = takeRange(s, n);
  const slotOf = new Int32Array(n);
  for (let k = 0; k < n; k++) slotOf[order[k]!] = start + k;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const b = bones[i]!;
    const slot = start + k;
    s.parent[slot] = b.parent >= 0 ? slotOf[b.parent]! : -1;
    s.owner[slot] = id;
    s.names[slot] = b.name;
    for (let j = 0; j < 3; j++) {
      s.bindT[slot * 3 + j] = b.bindT[j]!;
      s.bindS[slot * 3 + j] = b.bindS[j]!;
    }
    const q = Float64Array.from([b.bindR[0]!, b.bindR[1]!, b.bindR[2]!, b.bindR[3]!]) as unknown as quat;
    const len = quat.length(q);
    if (!(len > 1e-12)) quat.identity(q);
    else quat.scale(q, q, 1 / len);
    for (let j = 0; j < 4; j++) s.bindR[slot * 4 + j] = q[j]!;
  }
  s.charStart[id] = start;
  s.charCount[id] = n;
  const serial = s.nextSerial++;
  s.charSerial[id] = serial;
  mat4.identity(s.charRootWs.subarray(id * 16, id * 16 + 16) as unknown as mat4);
  poseResetToBind(s, id);
  poseUpdateWorld(s, id);
  return { id, start, slotOf, serial };
}

/**
 * Release a character's slots and id (e.g. when an engine skeleton is disposed). A bound
 * character goes with `unbindSkeleton`, which calls this; a world's tail chains and scene IK
 * still on the character stop here (they never touch its slots again, whoever gets them).
 * With `serial`, only the character of that serial number is released, so a second call after
 * the id went to another character does nothing. Safe to call twice.
 *
 * @example
 * poseRemoveCharacter(pose, character.id, character.serial);
 */
export function poseRemoveCharacter(s: PoseStore, id: number, serial?: number): void {
  if (id < 0 || id >= s.charCapacity || s.charStart[id]! < 0) return;
  if (serial !== undefined && s.charSerial[id] !== serial) return; // (the id went to another character since)
  if (s.onRemove !== null) s.onRemove(id);
  const start = s.charStart[id]!;
  const count = s.charCount[id]!;
  for (let k = start; k < start + count; k++) {
    s.owner[k] = -1;
    s.parent[k] = -1;
    s.names[k] = '';
  }
  giveRange(s, start, count);
  s.charStart[id] = -1;
  s.charCount[id] = 0;
  s.charSerial[id] = 0;
  s.freeChars.push(id);
}

/** Set every current local TRS of a character to its bind pose. Per-frame safe. */
export function poseResetToBind(s: PoseStore, id: number): void {
  const start = s.charStart[id]!;
  const end = start + s.charCount[id]!;
  for (let k = start; k < end; k++) {
    for (let j = 0; j < 3; j++) {
      s.localT[k * 3 + j] = s.bindT[k * 3 + j]!;
      s.localS[k * 3 + j] = s.bindS[k * 3 + j]!;
    }
    for (let j = 0; j < 4; j++) s.localR[k * 4 + j] = s.bindR[k * 4 + j]!;
  }
}

export { composeTRS, mulAffine, poseUpdateSlot, poseUpdateWorld, poseUpdateSubtree } from './poseMath';
import { composeTRS, mulAffine, poseUpdateWorld } from './poseMath';

// Float64 scratch (gl-matrix's create() gives Float32Array, too coarse for bind recovery).
const _inv = new Float64Array(16) as unknown as mat4;
const _w = new Float64Array(16) as unknown as mat4;
const _pw = new Float64Array(16) as unknown as mat4;
const _t = new Float64Array(3) as unknown as vec3;
const _s = new Float64Array(3) as unknown as vec3;
const _r = new Float64Array(4) as unknown as quat;

/**
 * Decompose an affine matrix into T, R, S. Mirrored matrices (negative determinant) put the
 * sign on scale x. A zero scale axis yields identity rotation for that frame.
 */
export function decomposeAffine(m: ArrayLike<number>, outT: vec3, outR: quat, outS: vec3): void {
  const mm = _w;
  for (let i = 0; i < 16; i++) mm[i] = m[i]!;
  mat4.getTranslation(outT, mm);
  mat4.getScaling(outS, mm);
  if (mat4.determinant(mm) < 0) outS[0] = -outS[0]!;
  if (Math.abs(outS[0]!) < 1e-12 || Math.abs(outS[1]!) < 1e-12 || Math.abs(outS[2]!) < 1e-12) {
    quat.identity(outR);
    return;
  }
  // Remove scale, then read the rotation.
  const r = _pw;
  for (let c = 0; c < 3; c++) {
    const sc = outS[c]!;
    for (let k = 0; k < 3; k++) r[c * 4 + k] = mm[c * 4 + k]! / sc;
    r[c * 4 + 3] = 0;
  }
  r[12] = 0; r[13] = 0; r[14] = 0; r[15] = 1;
  mat4.getRotation(outR, r);
  quat.normalize(outR, outR);
}

/**
 * Bind local TRS from inverse bind matrices (bind pose, not loaded pose):
 * `W_i = B_i⁻¹`, `L_i = W_parent⁻¹ · W_i`. A bone without an inverse bind matrix (null)
 * keeps the given fallback local (its node's rest TRS). Non-invertible matrices give
 * identity (with a warning string returned for the caller to report at setup).
 *
 * @param ibms one column-major 4×4 per bone, or null
 * @param parents parent index per bone, -1 for a root
 * @param fallback the node's rest local TRS per bone, used when no IBM exists
 * @returns bind local TRS per bone and the list of problems found
 *
 * @example
 * const { bones } = bindLocalsFromInverseBind(ibms, parents, names, restLocals);
 */
export function bindLocalsFromInverseBind(
  ibms: ReadonlyArray<ArrayLike<number> | null>,
  parents: ArrayLike<number>,
  names: readonly string[],
  fallback: ReadonlyArray<{ t: ArrayLike<number>; r: ArrayLike<number>; s: ArrayLike<number> }>,
): { bones: BoneDef[]; problems: string[] } {
  const n = names.length;
  const problems: string[] = [];
  const worlds: (Float64Array | null)[] = [];
  for (let i = 0; i < n; i++) {
    const b = ibms[i];
    if (!b) {
      worlds.push(null);
      continue;
    }
    for (let k = 0; k < 16; k++) _inv[k] = b[k]!;
    const ok = mat4.invert(_w, _inv);
    if (!ok) {
      problems.push(`inverse bind matrix of "${names[i]}" is not invertible; using its node's rest pose`);
      worlds.push(null);
      continue;
    }
    worlds.push(Float64Array.from(_w));
  }
  // Bones without IBM: world from the parent's world × fallback local (computed in order).
  const computed: Float64Array[] = new Array(n);
  const visit = (i: number, depth: number): Float64Array => {
    if (computed[i]) return computed[i]!;
    if (depth > n) throw new Error('bitrig/pose: parent cycle while reading inverse bind matrices');
    let w = worlds[i];
    if (!w) {
      const f = fallback[i]!;
      const local = new Float64Array(16);
      composeTRS(local, 0, f.t, 0, f.r, 0, f.s, 0);
      const p = parents[i]!;
      w = new Float64Array(16);
      if (p >= 0) mulAffine(w, 0, visit(p, depth + 1), 0, local, 0);
      else w.set(local);
    }
    computed[i] = w;
    return w;
  };
  const bones: BoneDef[] = [];
  for (let i = 0; i < n; i++) {
    const w = visit(i, 0);
    const p = parents[i]!;
    let local: Float64Array;
    if (p >= 0) {
      const pw = visit(p, 0);
      for (let k = 0; k < 16; k++) _pw[k] = pw[k]!;
      if (!mat4.invert(_inv, _pw)) mat4.identity(_inv);
      local = new Float64Array(16);
      mulAffine(local, 0, _inv, 0, w, 0);
    } else {
      // A root joint's parent is not a joint: its bind-space world says nothing about the
      // node it hangs from, so a root keeps its node's rest local.
      const f = fallback[i]!;
      local = new Float64Array(16);
      composeTRS(local, 0, f.t, 0, f.r, 0, f.s, 0);
    }
    decomposeAffine(local, _t, _r, _s);
    bones.push({ name: names[i]!, parent: p, bindT: [_t[0]!, _t[1]!, _t[2]!], bindR: [_r[0]!, _r[1]!, _r[2]!, _r[3]!], bindS: [_s[0]!, _s[1]!, _s[2]!] });
  }
  return { bones, problems };
}

/** Slot range helpers for a character. */
export function poseCharacterRange(s: PoseStore, id: number): { start: number; count: number } {
  return { start: s.charStart[id]!, count: s.charCount[id]! };
}

/** Find a slot by bone name within a character, or -1. Setup-time. */
export function poseFindSlot(s: PoseStore, id: number, name: string): number {
  const start = s.charStart[id]!;
  const end = start + s.charCount[id]!;
  for (let k = start; k < end; k++) if (s.names[k] === name) return k;
  return -1;
}
