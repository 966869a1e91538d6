/**
 * The WebAssembly two-bone IK (wasm/twoBone.ts) against the JavaScript solve: the same scene is
 * built in a world with WebAssembly and in one without (`wasm: false`, every limb solved by
 * systems/twoBoneIK.ts in JavaScript) and driven through the same frames; after every frame the
 * pose's `localR`, `localT`, `worldM`, every Limb outcome field and the hands' held-object
 * outputs must be byte-identical (no tolerance: every f64 compared by its bits).
 *
 * The scene: bipeds walking on a 15° slope, on a moving, turning platform, under translated,
 * rotated, uniformly scaled, mirrored and non-uniformly scaled root frames (the last left to
 * JavaScript), one with a mirroring scale on a hip bone (JavaScript), arms reaching with partial
 * weights, a pole, a rotation and a held object, or at rest (weight 0) — so eligible and
 * ineligible limbs alternate in one world. Between
 * PelvisHeight and TwoBoneIK each frame rewrites some leg requests from a seeded generator:
 * weights 0 / 0.5 / 1, rotation weights 0 / 0.5 / 1, unreachable, NaN and overflowing targets,
 * zero rotation targets, poles, soften near full extension. A control shows that the comparison
 * sees a one-ulp change. The same scene ×5 with the systems run over split ranges (as a game's
 * job system would) against JavaScript; and the committed module is the compile of wasm/twoBone.ts.
 */
import { describe, expect, test } from 'vitest';
import { mat4, quat, vec3 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame } from '../../core/binding';
import { addSupport, setSceneInputs, setSupportFrame, type GroundHit, type GroundQuery, type SceneInputs } from '../../core/sceneIK';
import { footLock } from '../../systems/footLock';
import { pelvisHeight } from '../../systems/pelvisHeight';
import { twoBoneIK } from '../../systems/twoBoneIK';
import { TWO_BONE_WASM_BASE64 } from '../../runtime/wasm/twoBoneWasm';
import type { TwoBoneExports } from '../../core/kernelTypes';
import { makeBiped, PARENTS, type BipedRig } from './rig';
import { bytesOf } from '../helpers/worldBytes';
import { createRng as rng } from '../helpers/rng';

const DT = 1 / 60;
const DEG = Math.PI / 180;


/** A 15° slope rising along +z. */
const slope: GroundQuery = (p, out: GroundHit) => {
  const s = Math.tan(15 * DEG);
  out.height = p[2]! * s;
  const l = Math.hypot(s, 1);
  out.normal[0] = 0; out.normal[1] = 1 / l; out.normal[2] = -s / l;
  out.support = -1;
  return true;
};

function platformGround(eid: number, m: mat4): GroundQuery {
  return (p, out: GroundHit) => {
    const n = vec3.transformQuat(vec3.create(), [0, 1, 0], mat4.getRotation(quat.create(), m));
    const o = mat4.getTranslation(vec3.create(), m);
    out.height = o[1]! - (n[0]! * (p[0]! - o[0]!) + n[2]! * (p[2]! - o[2]!)) / n[1]!;
    out.normal[0] = n[0]!; out.normal[1] = n[1]!; out.normal[2] = n[2]!;
    out.support = eid;
    return true;
  };
}

interface Scene {
  world: BitrigWorld;
  rigs: BipedRig[];
  /** Run frame f (locals, inputs, FootLock, PelvisHeight, request rewrites, TwoBoneIK). */
  frame(f: number): void;
}

/** Kernel limbs taken (a wrapper counting what `twoBoneRun` solved), for the checks below. */
interface Counted { taken: number; calls: number }

/**
 * `copies` × the eight characters; `split` ≥ 0: the three systems run in one go, the requests
 * FootLock's own (no rewrites), each system over its range in pieces of `split` (0: whole).
 */
function buildScene(wasm: boolean, seed: number, copies = 1, split = -1): Scene {
  const world = createBitrigWorld({ wasm, entities: 128 * copies, bones: 512 * copies, characters: 16 * copies });
  const roots = ['identity', 'translated', 'rotated', 'uniformScale', 'mirrored', 'nonUniformScale', 'identity', 'rotated'];
  const rigs = Array.from({ length: roots.length * copies }, () => makeBiped({ world, ik: { soften: 0.02 } }));
  const sup = addSupport(world);
  const pm = mat4.create();
  const onPlatform = platformGround(sup, pm);
  const rand = rng(seed);
  const pose = world.pose;
  const frame = (f: number): void => {
    const t = f * DT;
    mat4.fromRotationTranslation(pm, quat.setAxisAngle(quat.create(), [0, 1, 0], 0.4 * t), [0.5 * t, 0.08 * Math.sin(3 * t), 0.1 * Math.sin(t)]);
    mat4.rotateX(pm, pm, 0.1 * Math.sin(2 * t));
    setSupportFrame(world, sup, pm);
    for (let ci = 0; ci < rigs.length; ci++) {
      const rig = rigs[ci]!, c = ci % roots.length;
      // body sway, walking stride (stance weights) and knee bend from the "clip"
      const phase = 2 * Math.PI * (t * 1.2 + ci * 0.13);
      const sway = mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], 0.2 * Math.sin(phase)),
        [0.05 * Math.sin(phase), 0.03 * Math.sin(2 * phase) - 0.02, 0.3 * t]);
      const base = c === 1 ? mat4.clone(pm) : PARENTS[roots[c]!]!();
      mat4.multiply(rig.root, base, sway);
      rig.overrides.clear();
      for (const [side, s] of [['Left', 1], ['Right', -1]] as const) {
        rig.overrides.set(`${side}Leg`, { r: quat.setAxisAngle(quat.create(), [1, 0, 0], 0.3 + 0.3 * Math.sin(phase * s)) as unknown as number[] });
      }
      if (c === 6) rig.overrides.set('LeftUpLeg', { s: [-1, 1, 1] }); // a mirroring hip scale: JavaScript's
      for (let i = 0; i < rig.names.length; i++) {
        const sl = rig.binding.slotOf[i]!;
        const r = rig.rest[i]!, ov = rig.overrides.get(rig.names[i]!);
        const tt = ov?.t ?? r.t, rr = ov?.r ?? r.r, sc = ov?.s ?? [1, 1, 1];
        for (let j = 0; j < 3; j++) { pose.localT[sl * 3 + j] = tt[j]!; pose.localS[sl * 3 + j] = sc[j]!; }
        for (let j = 0; j < 4; j++) pose.localR[sl * 4 + j] = rr[j]!;
      }
      for (let j = 0; j < 16; j++) pose.charRootWs[rig.binding.charId * 16 + j] = rig.root[j]!;
      beginCharacterFrame(rig.binding);
      const inputs: SceneInputs = {
        feet: [0.5 + 0.5 * Math.sin(phase), 0.5 - 0.5 * Math.sin(phase)],
        ground: (c === 0 && ci < 8) || c === 7 ? slope : c === 1 ? onPlatform : null,
        grounded: !(c === 2 && f % 90 > 70), // a jump now and then: the ground blend fades (fractional weights)
        hands: c % 2 === 0 ? [{ position: [0.5, 1.2 + 0.1 * Math.sin(t), 0.3], weight: 0.5 + 0.5 * Math.sin(t), pole: [0.4, 1, -0.5] },
          { position: [-0.4, 1.3, 0.2], rotation: [0, 0, 0, 1], weight: 1, rotationWeight: 0.5, grip: { position: [0, 0.05, 0], rotation: [0, 0, 0, 1] } }] : [null, null],
      };
      setSceneInputs(world, rig.ik, inputs);
    }
    if (split >= 0) {
      const nc = world.queries.sceneChars.dense.length, nl = world.queries.limbs.dense.length, k = split > 0 ? split : 1 << 30;
      for (let i = 0; i < nc; i += k) footLock(world, DT, i, k);
      for (let i = 0; i < nc; i += k) pelvisHeight(world, DT, i, k);
      for (let i = 0; i < nl; i += k) twoBoneIK(world, DT, i, k);
      return;
    }
    footLock(world, DT);
    pelvisHeight(world, DT);
    // Rewrite some leg requests (the same draws in both worlds).
    const L = world.components.Limb;
    for (const rig of rigs) {
      for (const leg of rig.ik.legs) {
        const e = leg.eid;
        const u = rand();
        if (u < 0.5) continue; // FootLock's own request
        const pick = [0, 0.5, 1][Math.floor(rand() * 3)]!;
        const rpick = [0, 0.5, 1][Math.floor(rand() * 3)]!;
        const rs = L.rootSlot[e]!;
        const hx = pose.worldM[rs * 16 + 12]!, hy = pose.worldM[rs * 16 + 13]!, hz = pose.worldM[rs * 16 + 14]!;
        const kind = Math.floor(rand() * 8);
        L.weight[e] = pick; L.rotWeight[e] = rpick; L.hasTargetRot[e] = rand() < 0.8 ? 1 : 0;
        L.hasPole[e] = 0; L.soften[e] = 0.02;
        if (kind === 0) { L.targetWs[e * 3] = hx + 3; L.targetWs[e * 3 + 1] = hy - 4; L.targetWs[e * 3 + 2] = hz; } // unreachable
        else if (kind === 1) L.targetWs[e * 3 + 1] = NaN;
        else if (kind === 2) { L.targetWs[e * 3] = 1e200; L.targetWs[e * 3 + 1] = -1e200; } // overflowing distance
        else if (kind === 3) { // near full extension, softened
          const reach = 0.8 * (0.96 + 0.08 * rand());
          const a = rand() * 0.5;
          L.targetWs[e * 3] = hx + reach * Math.sin(a); L.targetWs[e * 3 + 1] = hy - reach * Math.cos(a); L.targetWs[e * 3 + 2] = hz;
          L.soften[e] = 0.05;
        } else if (kind === 4) { L.hasPole[e] = 1; L.poleWs[e * 3] = hx; L.poleWs[e * 3 + 1] = hy - 0.4; L.poleWs[e * 3 + 2] = hz + 1; }
        else if (kind === 5) { const q = quat.setAxisAngle(quat.create(), [rand(), rand(), rand()], 3 * rand()); for (let k = 0; k < 4; k++) L.targetRotWs[e * 4 + k] = q[k]! * 1.3; }
        else if (kind === 6) { for (let k = 0; k < 4; k++) L.targetRotWs[e * 4 + k] = 0; } // a zero rotation target
        else { L.targetWs[e * 3] += 0.1 * (rand() - 0.5); L.targetWs[e * 3 + 2] += 0.1 * (rand() - 0.5); }
      }
    }
    twoBoneIK(world, DT);
  };
  return { world, rigs, frame };
}

const LIMB_OUT = ['reached', 'missWs', 'missFullWs', 'extension', 'solved', 'invalid'] as const;
const HAND_OUT = ['objectPosWs', 'objectRotWs', 'reposition'] as const;

/** The first array that differs between the two worlds, or null. */
function firstDifference(a: BitrigWorld, b: BitrigWorld): string | null {
  for (const k of ['localR', 'localT', 'worldM'] as const) if (!bytesOf(a.pose[k]).equals(bytesOf(b.pose[k]))) return `pose.${k}`;
  for (const k of LIMB_OUT) if (!bytesOf(a.components.Limb[k]).equals(bytesOf(b.components.Limb[k]))) return `Limb.${k}`;
  for (const k of HAND_OUT) if (!bytesOf(a.components.HandTarget[k]).equals(bytesOf(b.components.HandTarget[k]))) return `HandTarget.${k}`;
  return null;
}

/** Wrap the world's kernel to count the limbs it solves. */
function countKernel(world: BitrigWorld): Counted {
  const a = world.tailAccel!;
  const real = a.ik!;
  const c: Counted = { taken: 0, calls: 0 };
  const wrapped: TwoBoneExports = {
    setIkPointers: (...o: number[]) => real.setIkPointers(...o), twoBoneAt: () => real.twoBoneAt(),
    twoBoneRun: (from: number, count: number) => { const j = real.twoBoneRun(from, count); c.taken += j - from; c.calls++; return j; },
  };
  a.ik = wrapped;
  return c;
}

describe('two-bone IK in WebAssembly', () => {
  test('the Limb component and the pose live in the kernel\'s memory', () => {
    const { world } = buildScene(true, 1);
    const a = world.tailAccel!;
    expect(a).not.toBeNull();
    expect(a.ik).not.toBeNull();
    const buf = a.memory.buffer;
    for (const v of [world.components.Limb.weight, world.components.Limb.solved, world.pose.parent, world.pose.charRootWs, world.pose.dirty, world.pose.worldM]) expect(v.buffer).toBe(buf);
    const js = buildScene(false, 1).world;
    expect(js.tailAccel).toBeNull();
  });

  test('byte-identical to the JavaScript solve over 600 frames (slope, platform, parents, weights, unreachable / NaN / huge targets, soften, poles; eligible and ineligible limbs mixed)', () => {
    const A = buildScene(true, 7), B = buildScene(false, 7);
    const counted = countKernel(A.world);
    const legs = A.rigs.length * 2, limbs = A.rigs.length * 4;
    let solved = 0, invalid = 0, unreached = 0;
    for (let f = 0; f < 600; f++) {
      A.frame(f); B.frame(f);
      const d = firstDifference(A.world, B.world);
      if (d !== null) throw new Error(`frame ${f}: ${d} differs`);
      const L = A.world.components.Limb;
      for (const rig of A.rigs) for (const leg of rig.ik.legs) { solved += L.solved[leg.eid]!; invalid += L.invalid[leg.eid]!; unreached += L.solved[leg.eid]! === 1 && L.reached[leg.eid]! === 0 ? 1 : 0; }
    }
    // The kernel took most limbs (all but the non-uniformly scaled root's four — bar their frames
    // with weights 0 or invalid input — and the mirrored hip's leg), and the frames exercised
    // solved, invalid and unreached legs.
    expect(counted.taken).toBeGreaterThan(600 * (limbs - 5));
    expect(counted.taken).toBeLessThan(600 * limbs);
    expect(solved).toBeGreaterThan(600 * legs * 0.5);
    expect(invalid).toBeGreaterThan(100);
    expect(unreached).toBeGreaterThan(100);
  });

  test('control: the comparison sees the kernel\'s legs\' targets moved by one ulp', () => {
    const A = buildScene(true, 3), B = buildScene(false, 3);
    for (let f = 0; f < 30; f++) { A.frame(f); B.frame(f); }
    expect(firstDifference(A.world, B.world)).toBeNull();
    // The next frame in both, the targets of the limbs handed to the kernel moved by one ulp (x) in the wasm world.
    const real = A.world.tailAccel!.ik!;
    const f64 = new Float64Array(1), u64 = new BigUint64Array(f64.buffer);
    A.world.tailAccel!.ik = {
      setIkPointers: real.setIkPointers, twoBoneAt: real.twoBoneAt,
      twoBoneRun: (from: number, count: number) => {
        const T = A.world.components.Limb.targetWs, list = A.world.tailAccel!.ikList;
        for (let i = from; i < count; i++) { const e = list[i]!; f64[0] = T[e * 3]!; u64[0]! += 1n; T[e * 3] = f64[0]!; }
        return real.twoBoneRun(from, count);
      },
    };
    A.frame(30); B.frame(30);
    expect(firstDifference(A.world, B.world)).not.toBeNull();
  });

  test('the systems over split ranges (a job system\'s pieces of 7): 40 characters byte-identical to the JavaScript solve over the whole range, 120 frames', () => {
    const A = buildScene(true, 11, 5, 7), B = buildScene(false, 11, 5, 0);
    for (let f = 0; f < 120; f++) {
      A.frame(f); B.frame(f);
      const d = firstDifference(A.world, B.world);
      if (d !== null) throw new Error(`frame ${f}: ${d} differs`);
    }
    expect(A.world.components.Limb.solved.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  }, 60_000);

  test('the committed module is the compile of wasm/twoBone.ts (npm run build:wasm)', async () => {
    const build = await import('../../scripts/build-wasm.mjs' as string) as {
      compileTwoBoneKernel(): Promise<{ base64: string; sourceSha256: string; bytes: number }>;
    };
    const fresh = await build.compileTwoBoneKernel();
    expect(fresh.base64 === TWO_BONE_WASM_BASE64, 'runtime/wasm/twoBoneWasm.ts is stale: run npm run build:wasm').toBe(true);
  });
});

describe('two-bone kernel: limbs with ids outside the layout', () => {
  // (review 5: a subtree end beyond the memory made the kernel write past the world matrices and
  // trap; the recovery then solved the limbs it had finished a second time)
  test('a subtree end beyond the memory: that limb goes to JavaScript, the others are solved once, no trap — same as wasm: false', () => {
    const out: Record<string, number[]> = {};
    for (const wasm of [true, false]) {
      const world = createBitrigWorld({ wasm });
      const rigs = [makeBiped({ world }), makeBiped({ world })];
      const L = world.components.Limb, pose = world.pose;
      let traps = 0, declined = 0;
      if (wasm) {
        const real = world.tailAccel!.ik!;
        world.tailAccel!.ik = {
          setIkPointers: real.setIkPointers, twoBoneAt: real.twoBoneAt,
          twoBoneRun: (f: number, c: number) => { try { const j = real.twoBoneRun(f, c); if (j < c) declined++; return j; } catch (e) { traps++; throw e; } },
        };
      }
      for (const rig of rigs) {
        for (let i = 0; i < rig.names.length; i++) {
          const s = rig.binding.slotOf[i]!, r = rig.rest[i]!;
          for (let j = 0; j < 3; j++) { pose.localT[s * 3 + j] = r.t[j]!; pose.localS[s * 3 + j] = 1; }
          for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = r.r[j]!;
        }
        for (let j = 0; j < 16; j++) pose.charRootWs[rig.binding.charId * 16 + j] = j % 5 === 0 ? 1 : 0;
        beginCharacterFrame(rig.binding);
        for (const leg of rig.ik.legs) {
          const e = leg.eid, rs = L.rootSlot[e]!;
          L.weight[e] = 0.5; L.rotWeight[e] = 0; L.hasPole[e] = 0;
          L.targetWs[e * 3] = pose.worldM[rs * 16 + 12]! + 0.2; L.targetWs[e * 3 + 1] = pose.worldM[rs * 16 + 13]! - 0.6; L.targetWs[e * 3 + 2] = pose.worldM[rs * 16 + 14]! + 0.1;
        }
      }
      // a bogus subtree end on the second character's right leg: a slot id far beyond the memory
      L.subtreeEnd[rigs[1]!.ik.legs[1]!.eid] = pose.parent.length + 200000;
      twoBoneIK(world, 1 / 60);
      if (wasm) { expect(traps).toBe(0); expect(declined).toBeGreaterThan(0); }
      const r0 = rigs[0]!;
      out[String(wasm)] = [...r0.ik.legs.map((l) => L.missWs[l.eid]!), ...Array.from(pose.localR.subarray(r0.binding.slotOf[3]! * 4, r0.binding.slotOf[3]! * 4 + 4))];
    }
    expect(out['true']).toEqual(out['false']);
  });
});
