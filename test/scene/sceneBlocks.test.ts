/**
 * `sceneContacts` (steps 1–3 as `update` runs them: blocks of characters, each through FootLock,
 * PelvisHeight and TwoBoneIK before the next) gives exactly what the three systems give run one
 * after the other over the whole world. Two identical worlds of 40 bipeds (two blocks, the
 * second partial) with a mix of what the kernels branch on — ground queries on a slope, feet
 * lifting and planting, hand targets with held loads, balance, characters without arms, a
 * character turned off the ground — are driven with the same inputs; one runs the systems in
 * turn, the other `sceneContacts`. Every pose and scene component array must be bit-identical
 * (tolerance 0: the same operations on the same inputs), also after characters are removed
 * (the limbs' order in their query then changes, and the blocks take each character's limbs
 * from its leg and arm lists instead of the query's order).
 */
import { describe, expect, test } from 'vitest';
import { mat4 } from 'gl-matrix';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame } from '../../core/binding';
import { removeSceneIK, setSceneInputs, type GroundQuery, type SceneInputs } from '../../core/sceneIK';
import { type BitrigWorld } from '../../core/world';
import { footLock } from '../../systems/footLock';
import { pelvisHeight } from '../../systems/pelvisHeight';
import { twoBoneIK } from '../../systems/twoBoneIK';
import { sceneContacts } from '../../systems/pipeline';
import { makeBiped, type BipedRig } from './rig';

const CHARS = 40;
const DT = 1 / 60;

/** A 10° slope along x (height 0 at x = 0), normal up the slope. */
const slope: GroundQuery = (p, out) => {
  const k = Math.tan((10 * Math.PI) / 180);
  out.height = p[0]! * k;
  const l = Math.hypot(k, 1);
  out.normal[0] = -k / l; out.normal[1] = 1 / l; out.normal[2] = 0;
  return true;
};

function crowdWorld(): { world: BitrigWorld; rigs: BipedRig[] } {
  const world = createBitrigWorld();
  const rigs: BipedRig[] = [];
  for (let i = 0; i < CHARS; i++) {
    rigs.push(makeBiped({ world, withSkin: i % 5 !== 0, ik: { arms: i % 3 !== 0, balance: i % 4 === 0 ? 0.5 : 0 } }));
  }
  return { world, rigs };
}

/** Character i's pose and inputs for frame f (the same in both worlds). */
function loadFrame(r: BipedRig, i: number, f: number): void {
  const pose = r.world.pose;
  for (let b = 0; b < r.names.length; b++) {
    const s = r.binding.slotOf[b]!, rest = r.rest[b]!;
    for (let j = 0; j < 3; j++) { pose.localT[s * 3 + j] = rest.t[j]!; pose.localS[s * 3 + j] = 1; }
    for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = rest.r[j]!;
  }
  const root = mat4.fromYRotation(mat4.create(), 0.3 * i);
  root[12] = (i % 8) * 2 + 0.04 * Math.sin(0.2 * f + i); root[13] = i % 7 === 0 ? 0.05 : 0; root[14] = Math.floor(i / 8) * 2 + 0.03 * Math.cos(0.15 * f + i);
  for (let j = 0; j < 16; j++) pose.charRootWs[r.binding.charId * 16 + j] = root[j]!;
  beginCharacterFrame(r.binding);
  const lift = 0.5 + 0.5 * Math.sin(0.1 * f + i);
  const inputs: SceneInputs = { feet: [1, f % 40 < 20 ? 1 : lift], grounded: !(i === 7 && f > 10 && f < 25), ground: i % 2 === 0 ? slope : null };
  if (r.ik.arms.length > 0) {
    inputs.hands = [{ position: [root[12]! + 0.5, 1.1, root[14]! + 0.3], mass: 2, grip: { position: [0, 0, 0.05], rotation: [0, 0, 0, 1] } }, null];
  }
  setSceneInputs(r.world, r.ik, inputs);
}

/** Every typed array of the pose store and the scene components, by name. */
function arrays(world: BitrigWorld): Map<string, ArrayLike<number>> {
  const out = new Map<string, ArrayLike<number>>();
  const C = world.components as unknown as Record<string, Record<string, unknown>>;
  const groups: Array<[string, Record<string, unknown>]> = [['pose', world.pose as unknown as Record<string, unknown>]];
  for (const k of ['SceneCharacter', 'Limb', 'FootContact', 'HandTarget']) groups.push([k, C[k]!]);
  for (const [g, obj] of groups) {
    for (const [k, v] of Object.entries(obj)) if (ArrayBuffer.isView(v) && !(v instanceof DataView)) out.set(`${g}.${k}`, v as unknown as ArrayLike<number>);
  }
  return out;
}

/** The names of the arrays where the two worlds differ in any bit (NaN equal to NaN). */
function differences(a: BitrigWorld, b: BitrigWorld): string[] {
  const A = arrays(a), B = arrays(b), bad: string[] = [];
  for (const [k, x] of A) {
    const y = B.get(k)!;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) { bad.push(`${k}[${i}]: ${x[i]} vs ${y[i]}`); break; }
  }
  return bad;
}

describe('sceneContacts = FootLock, PelvisHeight, TwoBoneIK in turn', () => {
  test('40 bipeds in two blocks, 40 frames, then 3 removed and 20 more: every pose and scene array bit-identical', () => {
    const sep = crowdWorld(), blk = crowdWorld();
    let moved = 0;
    const run = (frames: number, from: number): void => {
      for (let f = from; f < from + frames; f++) {
        for (const w of [sep, blk]) w.rigs.forEach((r, i) => { if (r.ik.alive) loadFrame(r, i, f); });
        footLock(sep.world, DT); pelvisHeight(sep.world, DT); twoBoneIK(sep.world, DT);
        sceneContacts(blk.world, DT);
        expect(differences(sep.world, blk.world), `frame ${f}`).toEqual([]);
        const L = blk.world.components.Limb;
        for (const e of blk.world.queries.limbs.dense) moved += L.solved[e]!;
      }
    };
    run(40, 0);
    // the solves did something (not a run of no-ops): limbs were solved every frame
    expect(moved).toBeGreaterThan(40 * CHARS);
    for (const i of [3, 17, 21]) { removeSceneIK(sep.world, sep.rigs[i]!.ik); removeSceneIK(blk.world, blk.rigs[i]!.ik); }
    run(20, 40);
  });
});
