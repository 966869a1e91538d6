/** Scene contacts kernel: directed cases against the JavaScript systems (ground callback calls). */
import { describe, expect, test } from 'vitest';
import { mat4 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame } from '../../core/binding';
import { addSupport, setSceneInputs, type GroundQuery } from '../../core/sceneIK';
import { footLock } from '../../systems/footLock';
import { pelvisHeight } from '../../systems/pelvisHeight';
import { twoBoneIK } from '../../systems/twoBoneIK';
import { makeBiped, type BipedRig } from './rig';
import { bytesOf } from '../helpers/worldBytes';

const DT = 1 / 60;
function diff(a: BitrigWorld, b: BitrigWorld): string[] {
  const out: string[] = [];
  const ca = a.components as unknown as Record<string, Record<string, unknown>>;
  const cb = b.components as unknown as Record<string, Record<string, unknown>>;
  for (const c of Object.keys(ca)) for (const [k, v] of Object.entries(ca[c]!)) if (ArrayBuffer.isView(v) && !bytesOf(v).equals(bytesOf(cb[c]![k] as ArrayBufferView))) out.push(`${c}.${k}`);
  return out;
}
function load(rig: BipedRig): void {
  const P = rig.world.pose;
  for (let i = 0; i < rig.names.length; i++) {
    const sl = rig.binding.slotOf[i]!, r = rig.rest[i]!;
    for (let j = 0; j < 3; j++) { P.localT[sl * 3 + j] = r.t[j]!; P.localS[sl * 3 + j] = 1; }
    for (let j = 0; j < 4; j++) P.localR[sl * 4 + j] = r.r[j]!;
  }
  for (let j = 0; j < 16; j++) P.charRootWs[rig.binding.charId * 16 + j] = rig.root[j]!;
  beginCharacterFrame(rig.binding);
}

describe('scene contacts kernel: ground callbacks', () => {
  test('a huge but finite foot matrix (finite sole point, NaN foot rotation): the ground callback is asked as often as by the JavaScript loop (review 6 #1)', () => {
    const calls = { wasm: 0, js: 0 };
    const mk = (wasm: boolean) => {
      const world = createBitrigWorld({ wasm });
      const rig = makeBiped({ world });
      const g: GroundQuery = (_p, out) => { calls[wasm ? 'wasm' : 'js']++; out.height = 0; return true; };
      return { world, rig, g };
    };
    const A = mk(true), B = mk(false);
    expect(A.world.tailAccel?.scene).not.toBeNull();
    for (const S of [A, B]) {
      load(S.rig);
      setSceneInputs(S.world, S.rig.ik, { feet: [1, 1], ground: S.g });
      // left foot: x column unit, y column huge (dot product overflows in Gram-Schmidt), sole point at the ankle
      const e = S.rig.ik.legs[0]!.eid;
      const wo = S.world.components.Limb.endSlot[e]! * 16, wm = S.world.pose.worldM;
      wm[wo + 0] = 0.5; wm[wo + 1] = 0.5; wm[wo + 2] = Math.SQRT1_2;
      wm[wo + 4] = 1.5e308; wm[wo + 5] = 1.5e308; wm[wo + 6] = 1e308;
      wm[wo + 8] = 0; wm[wo + 9] = 0; wm[wo + 10] = 1;
      const sole = S.world.components.FootContact.soleLs; sole[e * 3] = 0; sole[e * 3 + 1] = 0; sole[e * 3 + 2] = 0;
      footLock(S.world, DT);
    }
    expect(diff(A.world, B.world)).toEqual([]);
    expect(calls.wasm).toBe(calls.js);
  });

});
