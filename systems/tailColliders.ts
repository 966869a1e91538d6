/**
 * TailColliders — places the tail colliders for the frame and for each internal step
 * (with pipeline step 4, before the tail steps; the tail kernel's tailCollide stage, 6b, reads them).
 *
 * Reads: each collider's bone slot and shape in the bone's space (`TailCollider.shapeLs`:
 * ends a, b and radius, bone units) and the pose store's world matrices of this frame (after
 * the scene IK). Writes: `shapePrev` ← `shapeCur` ← the world shape now (ends through the
 * bone's world matrix; radius × the bone's world scale, the mean length of its axes), and
 * per internal step `shapeWs`, the shape interpolated between the two at the step's time (as the
 * tail clock interpolates the anchors). The lead (slot 7): how far the ends moved this frame in
 * the frame of `refSlot` (the tails' anchor), in engine units, per step (× step / frame dt),
 * at most the radius (`relPrev` keeps the ends in that frame). A collider whose character was
 * unbound, or whose bone its character no longer owns, gets radius −1 (inert). Clears each
 * chain's `colliderContacts` at the frame's start, and drops from each chain's list
 * (`TailChain.colliders`, `colliderCount`) a collider whose entity is gone without
 * `removeTailCollider`. World space, engine units.
 */
import type { BitrigWorld } from '../core/world';
import { CLOCK } from '../core/components/tail';
import { MAX_CHAIN_COLLIDERS, SHAPE_STRIDE, type TailColliderComponent } from '../core/components/collider';

/**
 * Collider c's lead this frame into `shapeCur` slot 7 (see the header; 0 when it has no
 * reference or is fresh): its ends in the reference bone's frame against last frame's, kept
 * in `relPrev`. The reference frame is taken as a rotation and uniform scale s (inverse
 * Mᵀ/s², s² from its first column): the lead is a margin, not a contact. (Written, not
 * returned: a double returned from a call is boxed.)
 */
function placeLead(K: TailColliderComponent, c: number, W: Float64Array, slots: number, fresh: boolean): void {
  const ref = K.refSlot[c]!, cur = K.shapeCur, o = c * SHAPE_STRIDE, rp = K.relPrev, q = c * 6;
  cur[o + 7] = 0;
  if (!(cur[o + 6]! > 0) || !(ref >= 0 && ref < slots)) return;
  const m = ref * 16;
  const s2 = W[m]! * W[m]! + W[m + 1]! * W[m + 1]! + W[m + 2]! * W[m + 2]!;
  if (!(s2 > 1e-24)) return;
  const is2 = 1 / s2;
  let lead = 0;
  for (let e = 0; e < 6; e += 3) {
    const x = cur[o + e]! - W[m + 12]!, y = cur[o + e + 1]! - W[m + 13]!, z = cur[o + e + 2]! - W[m + 14]!;
    const rx = (W[m]! * x + W[m + 1]! * y + W[m + 2]! * z) * is2;
    const ry = (W[m + 4]! * x + W[m + 5]! * y + W[m + 6]! * z) * is2;
    const rz = (W[m + 8]! * x + W[m + 9]! * y + W[m + 10]! * z) * is2;
    const dx = rx - rp[q + e]!, dy = ry - rp[q + e + 1]!, dz = rz - rp[q + e + 2]!;
    const d2 = dx * dx + dy * dy + dz * dz;
    if (d2 > lead) lead = d2;
    rp[q + e] = rx; rp[q + e + 1] = ry; rp[q + e + 2] = rz;
  }
  lead = Math.sqrt(lead * s2); // (back to world units)
  if (!fresh) cur[o + 7] = lead < cur[o + 6]! ? lead : cur[o + 6]!; // (at most the radius; NaN: the radius)
}

/**
 * The colliders' world shapes for this frame (call once a frame, before the tail steps, after
 * the pose store's world matrices are final). No allocation; never throws.
 *
 * @example
 * tailCollidersBegin(world); const steps = tailClockBegin(world, dt);
 */
export function tailCollidersBegin(world: BitrigWorld): void {
  const K = world.components.TailCollider, pose = world.pose;
  const W = pose.worldM, ls = K.shapeLs, prev = K.shapePrev, cur = K.shapeCur;
  const slots = K.slot, chars = K.char, fresh = K.fresh, owner = pose.owner, cap = pose.capacity;
  const cols = world.queries.colliders.dense;
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i]!, o = c * SHAPE_STRIDE, l = c * 7;
    for (let j = 0; j < 7; j++) prev[o + j] = cur[o + j]!;
    const slot = slots[c]!, ch = chars[c]!;
    if (!(ch >= 0 && slot >= 0 && slot < cap && owner[slot] === ch)) {
      cur[o + 6] = -1; prev[o + 6] = -1; fresh[c] = 1;
      continue;
    }
    const m = slot * 16;
    const m0 = W[m]!, m1 = W[m + 1]!, m2 = W[m + 2]!, m4 = W[m + 4]!, m5 = W[m + 5]!, m6 = W[m + 6]!;
    const m8 = W[m + 8]!, m9 = W[m + 9]!, m10 = W[m + 10]!;
    for (let e = 0; e < 6; e += 3) {
      const x = ls[l + e]!, y = ls[l + e + 1]!, z = ls[l + e + 2]!;
      cur[o + e] = m0 * x + m4 * y + m8 * z + W[m + 12]!;
      cur[o + e + 1] = m1 * x + m5 * y + m9 * z + W[m + 13]!;
      cur[o + e + 2] = m2 * x + m6 * y + m10 * z + W[m + 14]!;
    }
    // (the bone's scale: the mean length of its axes, as the tail setup's uniform scale)
    const r = ls[l + 6]! * (Math.sqrt(m0 * m0 + m1 * m1 + m2 * m2) + Math.sqrt(m4 * m4 + m5 * m5 + m6 * m6) + Math.sqrt(m8 * m8 + m9 * m9 + m10 * m10)) / 3;
    cur[o + 6] = r > 0 && r < Infinity && cur[o]! - cur[o]! === 0 && cur[o + 4]! - cur[o + 4]! === 0 ? r : -1; // (non-finite: inert)
    placeLead(K, c, W, cap, fresh[c] === 1);
    if (fresh[c] === 1) { for (let j = 0; j < 8; j++) prev[o + j] = cur[o + j]!; fresh[c] = 0; }
  }
  dropGoneColliders(world);
}

/**
 * Clear each chain's contact count, and drop from its collider list (`TailChain.colliders`,
 * compacted in place, `colliderCount` lowered) every collider that is gone: its entity removed
 * or its `TailCollider` taken away without `removeTailCollider` (bitecs `removeEntity` /
 * `removeComponent`; the query still lists it until bitecs commits the removal), or its id
 * reused by another character's collider. The kernel then never reads a stale shape.
 */
function dropGoneColliders(world: BitrigWorld): void {
  const C = world.components.TailChain, K = world.components.TailCollider, tails = world.queries.tails.dense;
  const q = world.queries.colliders, list = C.colliders, count = C.colliderCount;
  for (let i = 0; i < tails.length; i++) {
    const e = tails[i]!, n = count[e]!, base = e * MAX_CHAIN_COLLIDERS, ch = C.char[e]!;
    C.colliderContacts[e] = 0;
    let k = 0;
    for (let j = 0; j < n; j++) {
      const c = list[base + j]!;
      if (q.has(c) && !q.toRemove.has(c) && K.char[c] === ch) list[base + k++] = c;
    }
    if (k === n) continue;
    for (let j = k; j < n; j++) list[base + j] = -1;
    count[e] = k;
  }
}

/**
 * The colliders' shapes at internal step `s` of this frame (`shapeWs`), interpolated at the
 * step's time the tail clock set (`clock[CLOCK.STEP_T]`: call after `tailClockStep(world, s)`),
 * as it interpolates the anchors. Call before each `tailStep`. No allocation; never throws.
 *
 * @example
 * for (let s = 0; s < steps; s++) { tailClockStep(world, s); tailCollidersStep(world, s); tailStep(world); }
 */
export function tailCollidersStep(world: BitrigWorld, _s: number): void {
  const cols = world.queries.colliders.dense;
  if (cols.length === 0) return; // (no colliders: no double is computed here, so no unoptimised frame boxes one)
  const c = world.clock;
  const t = c[CLOCK.STEP_T]!; // (the tail clock's time of this step, set by tailClockStep)
  const K = world.components.TailCollider, prev = K.shapePrev, cur = K.shapeCur, ws = K.shapeWs;
  const u = 1 - t;
  const perStep = c[CLOCK.FRAME_DT]! > 0 ? Math.min(1, c[CLOCK.FIXED_STEP]! / c[CLOCK.FRAME_DT]!) : 1;
  for (let i = 0; i < cols.length; i++) {
    const o = cols[i]! * SHAPE_STRIDE;
    for (let j = 0; j < 6; j++) ws[o + j] = u * prev[o + j]! + t * cur[o + j]!;
    ws[o + 6] = prev[o + 6]! > 0 && cur[o + 6]! > 0 ? u * prev[o + 6]! + t * cur[o + 6]! : -1;
    ws[o + 7] = cur[o + 7]! * perStep;
  }
}
