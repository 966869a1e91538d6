/**
 * The scene contacts' structure tests (the tail's is core/tailKernel.ts tailStructureOk), for
 * the diagnostics and the game.
 *
 * `addSceneIK` writes a scene character's structure fields — its pose character, pelvis slot and
 * subtree end, its legs and arms (Limb entities) and their bone slots and subtree ends, its
 * centre-of-mass segments — and FootLock writes its feet's supports from the game's checked
 * ground hits. The components are public typed arrays, though. Overwritten with values outside
 * the world's arrays, the kernels would read and write other arrays of their memory, so each
 * tests what it reads: FootLock and PelvisHeight leave such a character alone (FootLock sets
 * its legs' weights to 0, so TwoBoneIK leaves them as animated), TwoBoneIK such a limb (`solved`
 * 0, `invalid` 1). These functions ask the kernels' own tests (wasm/sceneContacts.ts `charOk`,
 * wasm/twoBone.ts `limbInBounds`).
 */
import type { BitrigWorld } from './world';

/**
 * Whether scene character `c` (its SceneCharacter entity) lies inside the world's arrays, as
 * FootLock and PelvisHeight read it: its pose character, pelvis slot and subtree end, at most
 * four legs and two arms that are entities, the legs' root, mid and end slots inside the pose
 * store and their feet on no support or on an entity with a support row, and centre-of-mass
 * segments inside the world's pool. False in a world without its kernels. Per-frame safe.
 *
 * @example
 * if (!sceneCharacterOk(world, handle.eid)) console.warn('bitrig: scene character', handle.eid, 'points outside the world');
 */
export function sceneCharacterOk(world: BitrigWorld, c: number): boolean {
  const accel = world.tailAccel;
  return accel !== null && accel.scene !== null && accel.scene.characterOk(c) === 1;
}

/**
 * Whether limb `e` lies inside the world's arrays, as TwoBoneIK reads it: an entity whose
 * character, root, mid and end slots, their parents and subtree end (at most the slot count) are
 * inside the pose store. False in a world without its kernels. Per-frame safe.
 *
 * @example
 * if (!limbStructureOk(world, handle.legs[0].eid)) console.warn('bitrig: limb points outside the pose store');
 */
export function limbStructureOk(world: BitrigWorld, e: number): boolean {
  const accel = world.tailAccel;
  return accel !== null && accel.ik !== null && accel.ik.limbOk(e) === 1;
}
