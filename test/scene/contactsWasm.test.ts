/**
 * The WebAssembly scene contacts (wasm/sceneContacts.ts: FootLock, PelvisHeight) against the
 * JavaScript systems: the same scene is built in a world with WebAssembly and in one without
 * (`wasm: false`, systems/footLock.ts and systems/pelvisHeight.ts in JavaScript) and driven
 * through the same frames; after FootLock, after PelvisHeight and after TwoBoneIK every
 * component array and every pose array must be byte-identical (no tolerance: every f64
 * compared by its bits).
 *
 * The scene: bipeds on a static floor, on a 15° slope ground query and on a moving, turning,
 * tilting platform (JavaScript's ground callbacks, asked before the kernel: feet recorded on the
 * support and carried by it; one character loses its ground query now and then),
 * under translated, rotated, uniformly scaled, mirrored, non-uniformly scaled and mirrored
 * non-uniform root frames; stance weights 0 / 0.5 / 1 with jumps and smooth transitions,
 * grounded fading, a tight maxTilt, NaN feet, balance on and off (option, input) with held
 * loads, tight pelvis limits; three characters turned over (FootLock's f64x2 foot rotations in
 * every Shepperd case). Controls show that the comparison sees a one-ulp change in either
 * kernel's input. Also checks that the committed module is the compile of wasm/sceneContacts.ts.
 */
import { describe, expect, test } from 'vitest';
import { mat4, quat, vec3 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame } from '../../core/binding';
import { addSupport, setSceneInputs, setSupportFrame, type GroundHit, type GroundQuery, type SceneInputs, type SceneIKOptions } from '../../core/sceneIK';
import { footLock } from '../../systems/footLock';
import { pelvisHeight } from '../../systems/pelvisHeight';
import { twoBoneIK } from '../../systems/twoBoneIK';
import { SCENE_CONTACTS_WASM_BASE64 } from '../../runtime/wasm/sceneContactsWasm';
import type { SceneContactsExports } from '../../core/kernelTypes';
import { makeBiped, PARENTS, type BipedRig } from './rig';
import { bytesOf } from '../helpers/worldBytes';

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

/** One character of the scene: its root frame, its options and how its inputs vary. */
interface CharSpec {
  root: string;
  ground: 'none' | 'slope' | 'platform' | 'platformSometimes';
  ik?: Partial<SceneIKOptions>;
  /** Stance weights: smooth (sine), stepped (0 / 0.5 / 1, jumps) or all planted. */
  stance: 'smooth' | 'stepped' | 'planted';
  jumps?: boolean;
  nanFoot?: boolean;
  balanceInput?: number;
  load?: boolean;
  mirrorHip?: boolean;
}

const SPECS: CharSpec[] = [
  { root: 'identity', ground: 'none', stance: 'smooth', ik: { balance: 1 }, load: true },
  { root: 'platform', ground: 'platformSometimes', stance: 'smooth' },
  { root: 'identity', ground: 'slope', stance: 'smooth' },
  { root: 'rotated', ground: 'none', stance: 'smooth', jumps: true },
  { root: 'mirrored', ground: 'none', stance: 'stepped', ik: { maxTilt: 3 * DEG } },
  { root: 'uniformScale', ground: 'none', stance: 'smooth', ik: { maxDrop: 0.02, maxRaise: 0 }, nanFoot: true },
  { root: 'nonUniformScale', ground: 'none', stance: 'planted', balanceInput: 0.7, load: true },
  { root: 'translated', ground: 'none', stance: 'stepped', jumps: true, ik: { lockOn: 1 } },
  { root: 'mirroredNonUniform', ground: 'none', stance: 'smooth', ik: { maxTilt: 0, pelvisRate: 3 } },
  { root: 'platform', ground: 'platform', stance: 'stepped' },
  { root: 'identity', ground: 'none', stance: 'planted', ik: { balance: 0.5, maxDrop: 0.1, maxRaise: 0.01 }, mirrorHip: true },
  // turned over (trace of the foot rotation < 0: the other three Shepperd cases of FootLock's foot rotation)
  { root: 'flipX', ground: 'none', stance: 'smooth' },
  { root: 'flipY', ground: 'none', stance: 'stepped' },
  { root: 'flipZ', ground: 'none', stance: 'smooth' },
];

/** Root frames turned nearly over, about x, y and z. */
const FLIPS: Record<string, () => mat4> = {
  flipX: () => mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [1, 0, 0], Math.PI - 0.3), [2, 1.5, 0]),
  flipY: () => mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], Math.PI - 0.3), [-2, 0, 1]),
  flipZ: () => mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [0, 0, 1], Math.PI - 0.3), [0, 1.5, -2]),
};

interface Scene {
  world: BitrigWorld;
  rigs: BipedRig[];
  /** Frame f's locals, root frames, support frame and scene inputs (the systems not run). */
  inputs(f: number): void;
  /** The ground queries' calls and the sum of the points they were asked for. */
  queries: { calls: number; sum: number };
}

/** The scene; `small`: a world made too small, so that every capacity grows while it is built (entities, bones, characters, COM pool, support rows). */
function buildScene(wasm: boolean, small = false): Scene {
  const world = small ? createBitrigWorld({ wasm, entities: 4, bones: 8, characters: 1 }) : createBitrigWorld({ wasm, entities: 128, bones: 512, characters: 16 });
  const rigs = SPECS.map((s) => makeBiped({ world, ik: { soften: 0.02, ...s.ik } }));
  if (small) for (let i = 0; i < 40; i++) addSupport(world); // (the support rows grow)
  const sup = addSupport(world);
  const pm = mat4.create();
  const queries = { calls: 0, sum: 0 };
  const counting = (q: GroundQuery): GroundQuery => (p, out) => { queries.calls++; queries.sum += p[0]! + 3 * p[1]! + 7 * p[2]!; return q(p, out); };
  const onPlatform = counting(platformGround(sup, pm));
  const onSlope = counting(slope);
  const pose = world.pose;
  const inputs = (f: number): void => {
    const t = f * DT;
    mat4.fromRotationTranslation(pm, quat.setAxisAngle(quat.create(), [0, 1, 0], 0.4 * t), [0.5 * t, 0.08 * Math.sin(3 * t), 0.1 * Math.sin(t)]);
    mat4.rotateX(pm, pm, 0.1 * Math.sin(2 * t));
    setSupportFrame(world, sup, pm);
    for (let c = 0; c < rigs.length; c++) {
      const rig = rigs[c]!, spec = SPECS[c]!;
      const phase = 2 * Math.PI * (t * 1.2 + c * 0.13);
      const sway = mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], 0.2 * Math.sin(phase)),
        [0.05 * Math.sin(phase), 0.03 * Math.sin(2 * phase) - 0.02 + 0.02 * Math.sin(0.7 * t), 0.3 * t]);
      const base = spec.root === 'platform' ? mat4.clone(pm) : (PARENTS[spec.root] ?? FLIPS[spec.root]!)();
      mat4.multiply(rig.root, base, sway);
      rig.overrides.clear();
      for (const [side, s] of [['Left', 1], ['Right', -1]] as const) {
        rig.overrides.set(`${side}Leg`, { r: quat.setAxisAngle(quat.create(), [1, 0, 0], 0.3 + 0.3 * Math.sin(phase * s)) as unknown as number[] });
        // the foot rolls and pitches (sole normal off the ground normal: the tilt clamp)
        rig.overrides.set(`${side}Foot`, { r: quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [1, 0, 0.5 * s]), 0.4 * Math.sin(phase + s)) as unknown as number[] });
      }
      if (spec.mirrorHip) rig.overrides.set('LeftUpLeg', { s: [-1, 1, 1] });
      if (spec.nanFoot && f % 50 >= 40) rig.overrides.set('RightFoot', { t: [NaN, 0, 0] });
      for (let i = 0; i < rig.names.length; i++) {
        const sl = rig.binding.slotOf[i]!;
        const r = rig.rest[i]!, ov = rig.overrides.get(rig.names[i]!);
        const tt = ov?.t ?? r.t, rr = ov?.r ?? r.r, sc = ov?.s ?? [1, 1, 1];
        for (let j = 0; j < 3; j++) { pose.localT[sl * 3 + j] = tt[j]!; pose.localS[sl * 3 + j] = sc[j]!; }
        for (let j = 0; j < 4; j++) pose.localR[sl * 4 + j] = rr[j]!;
      }
      for (let j = 0; j < 16; j++) pose.charRootWs[rig.binding.charId * 16 + j] = rig.root[j]!;
      beginCharacterFrame(rig.binding);
      const sn = Math.sin(phase);
      const steps = [0, 0.5, 1, 1, 0.5, 0];
      const feet = spec.stance === 'planted' ? [1, 1] : spec.stance === 'stepped'
        ? [steps[Math.floor(f / 7 + c) % 6]!, steps[Math.floor(f / 7 + c + 3) % 6]!]
        : [0.5 + 0.6 * sn, 0.5 - 0.6 * sn]; // (beyond [0, 1] at the ends: clamped)
      const ground = spec.ground === 'slope' ? onSlope : spec.ground === 'platform' ? onPlatform
        : spec.ground === 'platformSometimes' ? (f % 120 < 70 ? onPlatform : null) : null;
      const si: SceneInputs = {
        feet,
        ground,
        grounded: !(spec.jumps && f % 90 > 70), // a jump now and then: the ground blend fades
        balance: spec.balanceInput !== undefined ? (f % 200 < 150 ? spec.balanceInput : null) : undefined,
        hands: spec.load ? [{ position: [0.4, 1.1 + 0.1 * Math.sin(t), 0.3], weight: 1, grip: { position: [0, 0.05, 0], rotation: [0, 0, 0, 1] }, mass: f % 160 < 100 ? 8 : 0 },
          { position: [-0.4, 1.3, 0.2], rotation: [0, 0, 0, 1], weight: 0.5, rotationWeight: 0.5 }] : [null, null],
      };
      setSceneInputs(world, rig.ik, si);
    }
  };
  return { world, rigs, inputs, queries };
}

const STAGES = [['FootLock', footLock], ['PelvisHeight', pelvisHeight], ['TwoBoneIK', twoBoneIK]] as const;

/** Frame f in both worlds, stage by stage; the first difference after a stage ("FootLock: FootContact.rotSs"), or null. */
function frameBoth(A: Scene, B: Scene, f: number): string | null {
  A.inputs(f); B.inputs(f);
  let d = firstDifference(A.world, B.world);
  if (d !== null) return `inputs: ${d}`;
  for (const [name, run] of STAGES) {
    run(A.world, DT); run(B.world, DT);
    d = firstDifference(A.world, B.world);
    if (d !== null) return `${name}: ${d}`;
  }
  return null;
}

/** The first array (any component, any pose array) that differs between the two worlds, or null. */
function firstDifference(a: BitrigWorld, b: BitrigWorld): string | null {
  const ca = a.components as unknown as Record<string, Record<string, unknown>>;
  const cb = b.components as unknown as Record<string, Record<string, unknown>>;
  for (const c of Object.keys(ca)) {
    for (const [key, v] of Object.entries(ca[c]!)) {
      if (ArrayBuffer.isView(v) && !bytesOf(v).equals(bytesOf(cb[c]![key] as ArrayBufferView))) return `${c}.${key}`;
    }
  }
  const pb = b.pose as unknown as Record<string, unknown>;
  for (const [key, v] of Object.entries(a.pose)) {
    if (ArrayBuffer.isView(v) && !bytesOf(v).equals(bytesOf(pb[key] as ArrayBufferView))) return `pose.${key}`;
  }
  return null;
}

interface Counted { footChars: number; footCalls: number; pelvisChars: number; real: SceneContactsExports }

/** Wrap the world's kernel to count the characters it runs. */
function countKernel(world: BitrigWorld): Counted {
  const a = world.tailAccel!;
  const real = a.scene!;
  const c: Counted = { footChars: 0, footCalls: 0, pelvisChars: 0, real };
  a.scene = {
    setScenePointers: (...o: number[]) => real.setScenePointers(...o),
    setSceneLimits: (...o: [number, number, number, number, number]) => real.setSceneLimits(...o),
    pairedLegsSince: () => real.pairedLegsSince(),
    scalarLegsSince: () => real.scalarLegsSince(),
    pairedLocksSince: () => real.pairedLocksSince(),
    footLockRun: (from: number, count: number) => { const j = real.footLockRun(from, count); c.footChars += j - from; c.footCalls++; return j; },
    pelvisRun: (count: number) => { c.pelvisChars += count; real.pelvisRun(count); },
  } satisfies SceneContactsExports;
  return c;
}

describe('scene contacts in WebAssembly', () => {
  test('the scene components, the pose and the COM pool live in the kernel\'s memory', () => {
    const { world } = buildScene(true);
    const a = world.tailAccel!;
    expect(a).not.toBeNull();
    expect(a.scene).not.toBeNull();
    const buf = a.memory.buffer;
    const C = world.components;
    for (const v of [C.FootContact.contactSs, C.SupportFrame.matrixWs, C.SceneCharacter.offsetWs, C.HandTarget.objectPosWs, C.Limb.targetWs, world.comSegments, world.pose.worldM]) expect(v.buffer).toBe(buf);
    expect(buildScene(false).world.tailAccel).toBeNull();
  });

  test('byte-identical to the JavaScript systems over 600 frames (floor, slope, platform, parents, stance 0 / 0.5 / 1, fading, tilt clamp, NaN feet, balance and loads, pelvis limits)', () => {
    const A = buildScene(true), B = buildScene(false);
    const counted = countKernel(A.world);
    let recordedOnSupport = 0, lockedOnSupport = 0, tiltClamped = 0, nanFeet = 0, half = 0, fading = 0, comValid = 0, limited = 0;
    const F = A.world.components.FootContact, SC = A.world.components.SceneCharacter, L = A.world.components.Limb;
    for (let f = 0; f < 600; f++) {
      const d = frameBoth(A, B, f);
      if (d !== null) throw new Error(`frame ${f}: ${d} differs`);
      for (let c = 0; c < A.rigs.length; c++) {
        const rig = A.rigs[c]!, ch = rig.ik.eid;
        for (const leg of rig.ik.legs) {
          const e = leg.eid;
          if (F.locked[e] === 1 && F.support[e]! >= 0 && SPECS[c]!.ground === 'platformSometimes' && f % 120 >= 70) lockedOnSupport++;
          if (F.locked[e] === 1 && F.support[e]! >= 0 && SPECS[c]!.ground === 'platform') recordedOnSupport++;
          if (F.stanceEff[e]! > 0 && F.stanceEff[e]! < 1) half++;
          if (SPECS[c]!.nanFoot && L.weight[e] === 0 && F.stanceEff[e] === 0 && SC.groundBlend[ch] === 1) nanFeet++;
          // the tilt clamp's path: an unlocked foot over ground swung onto it (the feet roll and pitch up to 23°; maxTilt 3° and 0°)
          if ((c === 4 || c === 8) && F.locked[e] === 0 && F.hasGround[e] === 1) tiltClamped++;
        }
        if (SC.groundBlend[ch]! > 0 && SC.groundBlend[ch]! < 1) fading++;
        comValid += SC.comValid[ch]!;
        limited += SC.bandBeyondLimits[ch]! + (SC.bandInfeasible[ch]! > 0 ? 1 : 0);
      }
    }

    // FootLock's foot rotations ran two to a f64x2 and alone (NaN feet, different Shepperd cases).
    const paired = counted.real.pairedLegsSince(), alone = counted.real.scalarLegsSince();
    expect(paired).toBeGreaterThan(600 * 10);
    expect(alone).toBeGreaterThan(50);
    // ... and the whole foot lock of two planted legs on static ground ran in lanes, the others alone.
    const pairedLocks = counted.real.pairedLocksSince();
    expect(pairedLocks).toBeGreaterThan(600);
    expect(pairedLocks).toBeLessThan(600 * 2 * SPECS.length - 600);
    if (process.env.BITRIG_DEBUG) console.log({ paired, alone, pairedLocks, recordedOnSupport, counted, lockedOnSupport, half, nanFeet, fading, comValid, tiltClamped, limited });
    const chars = SPECS.length;
    // The kernel ran every character (those with a ground query on the hits asked before it), and
    // the ground queries were asked as often, for the same points (the slope's and platform's callers count).
    expect(counted.footChars).toBe(600 * chars);
    expect(counted.footCalls).toBe(600);
    expect(counted.pelvisChars).toBe(600 * chars);
    expect(A.queries.calls).toBe(B.queries.calls);
    expect(A.queries.sum).toBe(B.queries.sum);
    expect(A.queries.calls).toBeGreaterThan(600 * 4);
    // The frames exercised what they are meant to.
    expect(lockedOnSupport).toBeGreaterThan(20);
    expect(recordedOnSupport).toBeGreaterThan(300);
    expect(half).toBeGreaterThan(1000);
    expect(nanFeet).toBeGreaterThan(50);
    expect(fading).toBeGreaterThan(20);
    expect(comValid).toBeGreaterThan(600);
    expect(tiltClamped).toBeGreaterThan(100);
    expect(limited).toBeGreaterThan(10);
  });

  test('control: the comparison sees the FootLock kernel\'s sole calibration moved by one ulp', () => {
    const A = buildScene(true), B = buildScene(false);
    for (let f = 0; f < 30; f++) expect(frameBoth(A, B, f)).toBeNull();
    const a = A.world.tailAccel!, real = a.scene!;
    const f64 = new Float64Array(1), u64 = new BigUint64Array(f64.buffer);
    let moved = 0;
    a.scene = {
      setScenePointers: real.setScenePointers,
      setSceneLimits: real.setSceneLimits,
      pairedLegsSince: real.pairedLegsSince,
      scalarLegsSince: real.scalarLegsSince,
      pairedLocksSince: real.pairedLocksSince,
      footLockRun: (from: number, count: number) => {
        const SC = A.world.components.SceneCharacter, sole = A.world.components.FootContact.soleLs;
        for (let i = from; i < count; i++) {
          const c = a.sceneList[i]! >= 0 ? a.sceneList[i]! : -1 - a.sceneList[i]!;
          for (let k = 0; k < SC.legCount[c]!; k++) { const e = SC.legs[c * 4 + k]!; f64[0] = sole[e * 3]!; u64[0]! += 1n; sole[e * 3] = f64[0]!; moved++; }
        }
        return real.footLockRun(from, count);
      },
      pelvisRun: real.pelvisRun,
    };
    const d = frameBoth(A, B, 30);
    expect(moved).toBeGreaterThan(0);
    expect(d).not.toBeNull();
    expect(d!.startsWith('FootLock:')).toBe(true);
  });

  test('control: the comparison sees the PelvisHeight kernel\'s leg targets moved by one ulp', () => {
    const A = buildScene(true), B = buildScene(false);
    for (let f = 0; f < 30; f++) expect(frameBoth(A, B, f)).toBeNull();
    const a = A.world.tailAccel!, real = a.scene!;
    const f64 = new Float64Array(1), u64 = new BigUint64Array(f64.buffer);
    a.scene = {
      setScenePointers: real.setScenePointers,
      setSceneLimits: real.setSceneLimits,
      pairedLegsSince: real.pairedLegsSince,
      scalarLegsSince: real.scalarLegsSince,
      pairedLocksSince: real.pairedLocksSince,
      footLockRun: real.footLockRun,
      pelvisRun: (count: number) => {
        const SC = A.world.components.SceneCharacter, T = A.world.components.Limb.targetWs;
        for (let i = 0; i < count; i++) {
          const c = a.sceneList[i]!;
          for (let k = 0; k < SC.legCount[c]!; k++) { const e = SC.legs[c * 4 + k]!; f64[0] = T[e * 3 + 1]!; u64[0]! += 1n; T[e * 3 + 1] = f64[0]!; }
        }
        real.pelvisRun(count);
      },
    };
    const d = frameBoth(A, B, 30);
    expect(d).not.toBeNull();
    expect(d!.startsWith('PelvisHeight:')).toBe(true);
  });

  test('without the kernel (tailAccel.scene null) the systems run in JavaScript on the same arrays, byte-identical', () => {
    const A = buildScene(true), B = buildScene(false);
    A.world.tailAccel!.scene = null;
    for (let f = 0; f < 60; f++) expect(frameBoth(A, B, f)).toBeNull();
  });

  test('capacities grown while the scene is built (entities, bones, characters, COM pool, support rows): the arrays stay in the kernel\'s memory, byte-identical', () => {
    const A = buildScene(true, true), B = buildScene(false, true);
    const a = A.world.tailAccel!;
    expect(a.scene).not.toBeNull();
    const buf = a.memory.buffer, C = A.world.components;
    expect(A.world.components.SupportFrame.row.length).toBeGreaterThan(0);
    for (const v of [C.SupportFrame.matrixWs, C.SupportFrame.rotWs, C.FootContact.contactSs, C.SceneCharacter.segStart, A.world.comSegments, A.world.pose.worldM, A.world.pose.charRootWs]) expect(v.buffer).toBe(buf);
    const counted = countKernel(A.world);
    for (let f = 0; f < 120; f++) { const d = frameBoth(A, B, f); if (d !== null) throw new Error(`frame ${f}: ${d} differs`); }
    expect(counted.footChars).toBeGreaterThan(120 * 5);
    expect(counted.pelvisChars).toBe(120 * SPECS.length);
  });

  test('the committed module is the compile of wasm/sceneContacts.ts (npm run build:wasm)', async () => {
    const build = await import('../../scripts/build-wasm.mjs' as string) as {
      compileSceneContactsKernel(): Promise<{ base64: string; sourceSha256: string; bytes: number }>;
    };
    const fresh = await build.compileSceneContactsKernel();
    expect(fresh.base64 === SCENE_CONTACTS_WASM_BASE64, 'runtime/wasm/sceneContactsWasm.ts is stale: run npm run build:wasm').toBe(true);
  });
});
