/**
 * Centre of mass of a scene character: engine-free and setup-free, so that the scene systems
 * need nothing else from core/sceneIK.ts.
 */
import type { BitrigWorld } from '../world';
import { MAX_ARMS } from '../components/scene';

/**
 * Centre of mass of a scene character from the pose store now (world): weighted body segments
 * (midpoint of each bone and its child) plus held loads at the held objects. Per-frame safe.
 *
 * @example
 * computeCenterOfMass(world, handle.eid, out, 0);
 */
export function computeCenterOfMass(world: BitrigWorld, eid: number, out: Float64Array, o: number): boolean {
  const SC = world.components.SceneCharacter;
  const seg = world.comSegments;
  const wm = world.pose.worldM;
  let x = 0, y = 0, z = 0, m = 0;
  const s0 = SC.segStart[eid]!, s1 = s0 + SC.segCount[eid]!;
  for (let k = s0; k < s1; k += 3) {
    const s = seg[k]! * 16, c = seg[k + 1]!, w = seg[k + 2]!;
    let px = wm[s + 12]!, py = wm[s + 13]!, pz = wm[s + 14]!;
    if (c >= 0) { px = 0.5 * (px + wm[c * 16 + 12]!); py = 0.5 * (py + wm[c * 16 + 13]!); pz = 0.5 * (pz + wm[c * 16 + 14]!); }
    x += w * px; y += w * py; z += w * pz; m += w;
  }
  const H = world.components.HandTarget;
  const na = SC.armCount[eid]!;
  const body = SC.bodyMass[eid]!;
  for (let k = 0; k < na; k++) {
    const a = SC.arms[eid * MAX_ARMS + k]!;
    const load = H.mass[a]!;
    if (!(load > 0) || H.hasGrip[a] !== 1) continue;
    const w = (load / body) * (m > 0 ? m : 1);
    x += w * H.objectPosWs[a * 3]!; y += w * H.objectPosWs[a * 3 + 1]!; z += w * H.objectPosWs[a * 3 + 2]!; m += w;
  }
  if (!(m > 0) || !Number.isFinite(x + y + z)) return false;
  out[o] = x / m; out[o + 1] = y / m; out[o + 2] = z / m;
  return true;
}

