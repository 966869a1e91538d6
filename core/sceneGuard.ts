/**
 * The scene contacts' structure tests (the tail's is core/tailKernel.ts tailStructureOk).
 *
 * `addSceneIK` writes a scene character's structure fields — its pose character, pelvis slot and
 * subtree end, its legs and arms (Limb entities) and their bone slots and subtree ends, its
 * centre-of-mass segments — and FootLock writes its feet's supports from the game's checked
 * ground hits. The components are public typed arrays, though. Overwritten with values outside
 * the world's arrays, the WebAssembly kernels would read and write other arrays of their memory
 * or trap (`update` would throw every frame), and the JavaScript systems would loop to a garbage
 * subtree end (a frozen frame). So each system tests what it reads, where it reads it: FootLock
 * and PelvisHeight leave such a character alone (FootLock sets its legs' weights to 0, so
 * TwoBoneIK leaves them as animated), TwoBoneIK such a limb. The scene contacts kernel makes the same tests (wasm/sceneContacts.ts
 * `charOk`, and range tests of the COM pool's entries, where JavaScript gets NaN and no centre);
 * the two-bone kernel its own (wasm/twoBone.ts `limbInBounds`: it leaves other limbs to
 * JavaScript, which tests them here).
 */
import type { BitrigWorld } from './world';
import { MAX_ARMS, MAX_LEGS } from './components/scene';

/**
 * Whether scene character `c` (its SceneCharacter entity) lies inside the world's arrays, as
 * FootLock and PelvisHeight read it: its pose character, pelvis slot and subtree end, at most
 * {@link MAX_LEGS} legs and {@link MAX_ARMS} arms that are entities, the legs' root, mid and end
 * slots inside the pose store and their feet on no support or on an entity with a support row,
 * and centre-of-mass segments inside the world's pool. Per-frame safe.
 *
 * @example
 * if (!sceneCharacterOk(world, handle.eid)) console.warn('bitrig: scene character', handle.eid, 'points outside the world');
 */
export function sceneCharacterOk(world: BitrigWorld, c: number): boolean {
  const { SceneCharacter: SC, Limb: L, FootContact: F, SupportFrame: SF } = world.components;
  const pose = world.pose;
  const slots = pose.owner.length, ents = world.capacity;
  const ch = SC.char[c]!, ps = SC.pelvisSlot[c]!, pe = SC.pelvisSubEnd[c]!;
  if (!(ch >= 0 && ch < pose.charRootWs.length / 16 && ps >= 0 && ps < slots && pe > ps && pe <= slots)) return false;
  const nl = SC.legCount[c]!, na = SC.armCount[c]!;
  if (nl > MAX_LEGS || na > MAX_ARMS) return false;
  const s0 = SC.segStart[c]!, sn = SC.segCount[c]!;
  if (!(s0 >= 0 && sn >= 0 && sn % 3 === 0 && s0 + sn <= world.comSegments.length)) return false;
  for (let k = 0; k < na; k++) { const e = SC.arms[c * MAX_ARMS + k]!; if (!(e >= 0 && e < ents)) return false; }
  for (let k = 0; k < nl; k++) {
    const e = SC.legs[c * MAX_LEGS + k]!;
    if (!(e >= 0 && e < ents)) return false;
    const rs = L.rootSlot[e]!, ms = L.midSlot[e]!, es = L.endSlot[e]!;
    if (!(rs >= 0 && rs < slots && ms >= 0 && ms < slots && es >= 0 && es < slots)) return false;
    const s = F.support[e]!;
    if (s === -1) continue;
    if (!(s >= 0 && s < ents)) return false;
    const row = SF.row[s]!;
    if (!(row >= -1 && row < SF.mirrored.length)) return false;
  }
  return true;
}

/**
 * Whether limb `e` lies inside the world's arrays, as TwoBoneIK reads it: an entity whose
 * character, root, mid and end slots and subtree end
 * (at most the slot count) are inside the pose store. Per-frame safe.
 *
 * @example
 * if (!limbStructureOk(world, handle.legs[0].eid)) console.warn('bitrig: limb points outside the pose store');
 */
export function limbStructureOk(world: BitrigWorld, e: number): boolean {
  if (!(e >= 0 && e < world.capacity)) return false;
  const L = world.components.Limb;
  const slots = world.pose.owner.length;
  const rs = L.rootSlot[e]!, ms = L.midSlot[e]!, es = L.endSlot[e]!, se = L.subtreeEnd[e]!, ch = L.char[e]!;
  return rs >= 0 && rs < slots && ms >= 0 && ms < slots && es >= 0 && es < slots && se >= 0 && se <= slots
    && ch >= 0 && ch < world.pose.charRootWs.length / 16;
}

/**
 * FootLock's answer for a scene character that fails {@link sceneCharacterOk}: its legs that are
 * entities get weight 0 (TwoBoneIK then leaves them exactly as animated); nothing else is written.
 *
 * @example
 * if (!sceneCharacterOk(world, c)) { releaseLegs(world, c); continue; }
 */
export function releaseLegs(world: BitrigWorld, c: number): void {
  const { SceneCharacter: SC, Limb: L } = world.components;
  const nl = Math.min(SC.legCount[c]!, MAX_LEGS);
  for (let k = 0; k < nl; k++) {
    const e = SC.legs[c * MAX_LEGS + k]!;
    if (e >= 0 && e < world.capacity) { L.weight[e] = 0; L.rotWeight[e] = 0; }
  }
}
