/**
 * Pipeline steps 1–3 in chunks of characters on one thread (`sceneContactsChunked`, with the
 * WebAssembly scene kernels): every pose and scene component array byte-identical to the three
 * systems run over all characters in turn on a `wasm: false` world, over 90 frames of 300
 * characters on varied parents, slopes (a ground callback on some), a moving platform, stance
 * weights 0 / 0.5 / 1 changing over time, balance with held loads. Tolerance: none (bytes). A
 * world with fewer than two chunks of characters is left to the plain systems.
 */
import { describe, expect, test } from 'vitest';
import { mat4, quat } from 'gl-matrix';
import { createBitrigWorld, type BitrigWorld } from '../../core/world';
import { beginCharacterFrame } from '../../core/binding';
import { addSupport, setSceneInputs, setSupportFrame, type GroundQuery } from '../../core/sceneIK';
import { footLock } from '../../systems/footLock';
import { pelvisHeight } from '../../systems/pelvisHeight';
import { twoBoneIK } from '../../systems/twoBoneIK';
import { sceneContactsChunked } from '../../core/wasm/tailAccel';
import { makeBiped, PARENTS, type BipedRig } from './rig';
import { bytesOf } from '../helpers/worldBytes';

const DT = 1 / 60;

function firstDifference(a: BitrigWorld, b: BitrigWorld): string | null {
  for (const [k, v] of Object.entries(a.pose)) if (ArrayBuffer.isView(v) && !bytesOf(v).equals(bytesOf((b.pose as unknown as Record<string, ArrayBufferView>)[k]!))) return `pose.${k}`;
  const ca = a.components as unknown as Record<string, Record<string, unknown>>, cb = b.components as unknown as Record<string, Record<string, unknown>>;
  for (const c of ['SceneCharacter', 'Limb', 'FootContact', 'HandTarget', 'SupportFrame']) {
    for (const [k, v] of Object.entries(ca[c]!)) if (ArrayBuffer.isView(v) && !bytesOf(v).equals(bytesOf(cb[c]![k] as ArrayBufferView))) return `${c}.${k}`;
  }
  return null;
}

interface Scene { world: BitrigWorld; rigs: BipedRig[]; platform: number; frame(f: number): boolean }

function scene(wasm: boolean, n: number): Scene {
  const world = createBitrigWorld({ wasm, characters: n + 4, entities: n * 6 + 16, bones: n * 16 + 16 });
  const platform = addSupport(world);
  const slope: GroundQuery = (p, out) => { out.height = 0.27 * p[0]!; out.normal[0] = -0.26; out.normal[1] = 0.96; out.normal[2] = 0; return true; };
  const onPlatform: GroundQuery = (_p, out) => { out.height = 0; out.support = platform; return true; };
  const parents = Object.keys(PARENTS);
  const rigs: BipedRig[] = [];
  for (let i = 0; i < n; i++) {
    const rig = makeBiped({ world, kneeBend: i % 3 === 0 ? 0 : 0.04 });
    mat4.multiply(rig.root, mat4.fromTranslation(mat4.create(), [(i % 20) * 2, 0, Math.floor(i / 20) * 2]), PARENTS[parents[i % parents.length]!]!());
    rigs.push(rig);
  }
  const m = mat4.create(), q = quat.create();
  return {
    world, rigs, platform,
    frame(f) {
      quat.setAxisAngle(q, [0, 1, 0], 0.01 * f);
      mat4.fromRotationTranslation(m, q, [0.002 * f, 0, 0]);
      setSupportFrame(world, platform, m);
      const pose = world.pose;
      rigs.forEach((rig, i) => {
        const P = rig.world.pose;
        for (let b = 0; b < rig.names.length; b++) {
          const s = rig.binding.slotOf[b]!;
          const r = rig.rest[b]!;
          for (let j = 0; j < 3; j++) { P.localT[s * 3 + j] = r.t[j]!; P.localS[s * 3 + j] = 1; }
          for (let j = 0; j < 4; j++) P.localR[s * 4 + j] = r.r[j]!;
        }
        const sway = 0.04 * Math.sin(0.1 * f + i);
        const root = mat4.multiply(mat4.create(), mat4.fromTranslation(mat4.create(), [sway, 0.02 * Math.cos(0.13 * f + i), 0]), rig.root);
        for (let j = 0; j < 16; j++) pose.charRootWs[rig.binding.charId * 16 + j] = root[j]!;
        beginCharacterFrame(rig.binding);
        const phase = Math.floor(f / 15 + i) % 4;
        setSceneInputs(world, rig.ik, {
          feet: [phase === 0 ? 0 : 1, phase === 1 ? 0.5 : 1],
          grounded: phase !== 3 || i % 2 === 0,
          ground: i % 5 === 0 ? slope : i % 7 === 0 ? onPlatform : null,
          balance: i % 3 === 0 ? 0.6 : 0,
        });
      });
      if (wasm) return sceneContactsChunked(world, DT);
      footLock(world, DT); pelvisHeight(world, DT); twoBoneIK(world, DT);
      return false;
    },
  };
}

describe('scene contacts in chunks of characters (one thread, WebAssembly kernels)', () => {
  test('300 characters, 90 frames: every array byte-identical to the systems over all characters in turn', () => {
    const A = scene(true, 300), B = scene(false, 300);
    expect(A.world.tailAccel?.chunkView).not.toBeNull();
    for (let f = 0; f < 90; f++) {
      expect(A.frame(f)).toBe(true); // (the chunked path ran)
      B.frame(f);
      const d = firstDifference(A.world, B.world);
      expect(d, `frame ${f}`).toBeNull();
    }
    // (a control: the comparison sees a one-ulp change)
    const t = A.world.pose.localR;
    const i = A.rigs[150]!.binding.slotOf[0]! * 4;
    t[i] = t[i]! + Math.abs(t[i]!) * 2 ** -52 + Number.MIN_VALUE;
    expect(firstDifference(A.world, B.world)).toBe('pose.localR');
  });

  test('fewer than two chunks of characters: left to the plain systems', () => {
    const A = scene(true, 100);
    expect(A.frame(0)).toBe(false);
  });
});
