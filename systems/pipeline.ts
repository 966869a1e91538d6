/**
 * The fixed pipeline order (DESIGN.md). Every system is a plain function of the world; a
 * game with its own ECS schedule may call them itself, in this order.
 *
 *   game: move character → engine evaluates animation → adapter.read (pose store filled)
 *   bitrig, {@link update}:
 *     1. FootLock      (scene IK)
 *     2. PelvisHeight  (scene IK)
 *     3. TwoBoneIK     (scene IK)
 *     4. TailClock     fixed internal step: accumulator, capped steps, anchors, resets
 *        TailColliders the colliders' world shapes this frame, then at each step
 *        for each internal step (TailStep), per link from the hips outward:
 *     5.   TailSpring    springs, rope, forward plane
 *     6.   BendCouple    coupling between neighbours, elastic bend limit
 *     6b.  TailCollide   spheres and capsules on the bones (rope kept)
 *     7.   FloorContact  floor plane (has precedence over the limit and the colliders)
 *     8. TailWrite     rotation readback into the pose store, every frame
 *   game: adapter.write → render
 *
 * Contacts come before secondary motion: the pelvis height is settled
 * before the legs are solved from it, and the tail's rest targets read the final hips.
 */
import { isBitrigWorld, type BitrigWorld } from '../core/world';
import { MAX_ARMS, MAX_LEGS } from '../core/components/scene';
import { tailClockBegin, tailClockStep } from './tailClock';
import { tailStep } from './tailStep';
import { tailCollidersBegin } from './tailColliders';
import { tailWrite } from './tailWrite';
import { footLock, footLockPrepare } from './footLock';
import { pelvisHeight } from './pelvisHeight';
import { twoBoneIK } from './twoBoneIK';

/**
 * Run every bitrig system for one frame of `dt` seconds. Never throws; a bad dt
 * (≤ 0, NaN, Inf) simulates nothing and still writes a valid pose; a world bitrig is not
 * attached to (no `attachBitrig`) is left alone.
 *
 * @example
 * mixer.update(dt); animator.read(); update(world, dt); animator.write();
 */
export function update(world: BitrigWorld, dt: number): void {
  if (!isBitrigWorld(world)) return; // (a world bitrig is not attached to: nothing to run; the frame never throws)
  // 1–3: scene contacts, block by block.
  sceneContacts(world, dt);
  // 4–8: tail secondary motion.
  const steps = tailClockBegin(world, dt);
  tailCollidersBegin(world);
  for (let s = 0; s < steps; s++) {
    tailClockStep(world, s);
    tailStep(world); // 5–7 per link, hips outward: TailSpring → BendCouple → TailCollide → FloorContact
  }
  tailWrite(world);
}

/** Characters per block of {@link sceneContacts}: a block's bones and limb records stay in the cache from FootLock to TwoBoneIK. */
const SCENE_BLOCK = 32;

/**
 * Steps 1–3 (FootLock, PelvisHeight, TwoBoneIK) for every scene character, as {@link update}
 * runs them: the game's ground queries first, for every character, then blocks of
 * characters, each through the three kernels before the next block, so that the block's pose
 * and limb data are read from memory once instead of three times. The results are those of the
 * three systems run in turn over the whole world: each step reads and writes only its own
 * character's bones and records (supports are the game's), so a character sees the same inputs
 * whichever block runs first, and limbs of different characters are independent. A block's
 * limbs are taken from the limb query in its own order when that comes grouped by character in
 * the characters' order (as setup adds them), else from each character's leg and arm lists
 * when these name every limb of the query once (after removals reordered the query); when
 * neither holds, and in a world mid-setup, the three systems run in turn. Never throws or
 * allocates.
 *
 * @example
 * sceneContacts(world, 1 / 60); // = footLock(world, dt); pelvisHeight(world, dt); twoBoneIK(world, dt);
 */
export function sceneContacts(world: BitrigWorld, dt: number): void {
  const accel = world.tailAccel;
  const chars = world.queries.sceneChars.dense;
  // (where each block's limbs come from: the limb query's own order when it is grouped by character, else the characters' lists)
  let grouped = false;
  if (accel === null || accel.scene === null || accel.ik === null || chars.length > accel.sceneList.length ||
    world.queries.limbs.dense.length > accel.ikList.length || world.comSegments.buffer !== accel.memory.buffer ||
    !((grouped = limbsGrouped(world)) || limbsListed(world))) {
    footLock(world, dt); pelvisHeight(world, dt); twoBoneIK(world, dt);
    return;
  }
  const n = footLockPrepare(world, dt);
  if (world.tailAccel !== accel || n !== chars.length) {
    // (a ground query re-laid the world out: this frame's lock is lost, as footLock has it)
    if (n > 0) accel.scene.footLockRun(0, n);
    pelvisHeight(world, dt); twoBoneIK(world, dt);
    return;
  }
  const SC = world.components.SceneCharacter, legs = SC.legs, arms = SC.arms, legCount = SC.legCount, armCount = SC.armCount;
  const scene = accel.scene, ik = accel.ik, list = accel.ikList;
  const limbs = world.queries.limbs.dense, owner = world.components.Limb.owner, nLimbs = limbs.length;
  let p = 0;
  for (let b0 = 0; b0 < n; b0 += SCENE_BLOCK) {
    const b1 = b0 + SCENE_BLOCK < n ? b0 + SCENE_BLOCK : n;
    scene.footLockRun(b0, b1);
    scene.pelvisRun(b0, b1);
    let m = 0;
    for (let i = b0; i < b1; i++) {
      const c = chars[i]!;
      if (grouped) { while (p < nLimbs && owner[limbs[p]!] === c) list[m++] = limbs[p++]!; continue; }
      for (let k = 0, nl = legCount[c]!; k < nl; k++) list[m++] = legs[c * MAX_LEGS + k]!;
      for (let k = 0, na = armCount[c]!; k < na; k++) list[m++] = arms[c * MAX_ARMS + k]!;
    }
    if (m > 0) ik.twoBoneRun(0, m);
  }
}

/** True when the limb query's entities come grouped by their owner character, the groups in the scene characters' query order (as setup adds them). */
function limbsGrouped(world: BitrigWorld): boolean {
  const chars = world.queries.sceneChars.dense, limbs = world.queries.limbs.dense, owner = world.components.Limb.owner;
  const nl = limbs.length;
  let p = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    while (p < nl && owner[limbs[p]!] === c) p++;
  }
  return p === nl;
}

/**
 * True when the scene characters' leg and arm lists name every limb of `world.queries.limbs`
 * exactly once: each listed entity is a limb whose owner is that character, none twice in one
 * character's lists, and as many as the query holds (so none is left out).
 */
function limbsListed(world: BitrigWorld): boolean {
  const chars = world.queries.sceneChars.dense, limbs = world.queries.limbs;
  const SC = world.components.SceneCharacter, owner = world.components.Limb.owner;
  const legs = SC.legs, arms = SC.arms, legCount = SC.legCount, armCount = SC.armCount;
  let total = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const nl = legCount[c]!, na = armCount[c]!;
    if (nl > MAX_LEGS || na > MAX_ARMS) return false;
    for (let k = 0; k < nl + na; k++) {
      const e = k < nl ? legs[c * MAX_LEGS + k]! : arms[c * MAX_ARMS + k - nl]!;
      if (!(e >= 0) || owner[e] !== c || !limbs.has(e)) return false;
      for (let j = 0; j < k; j++) if ((j < nl ? legs[c * MAX_LEGS + j]! : arms[c * MAX_ARMS + j - nl]!) === e) return false;
    }
    total += nl + na;
  }
  return total === limbs.dense.length;
}
