/**
 * The scene contacts kernel (wasm/sceneContacts.ts) and the two-bone kernel on seeded random
 * hostile scenes: ground (none, slope, steps, moving/rotating/mirrored platforms, callbacks
 * returning false/NaN/odd values, throwing, replacing the normal, bad support ids), supports
 * removed and recycled, stance and option values outside their ranges and NaN, grounded fading,
 * balance and loads, NaN/huge feet and roots, one-leg characters, characters added and removed,
 * capacity growth, odd dt. After every stage (FootLock, PelvisHeight, TwoBoneIK): no trap; no
 * bone's local rotation or translation made non-finite that was finite before the frame's
 * stages; every leg's request weights in [0, 1] and a leg asked to move (weight > 0) has a target
 * that is not NaN. Every frame the ground callbacks are asked only about finite points, at most
 * once per leg.
 *
 * FUZZ_SEEDS=n FUZZ_FRAMES=n to scale; FUZZ_ONLY=seed to rerun one; FUZZ_UPDATE=1 whole `update`
 * passes.
 */
import { describe, expect, test } from 'vitest';
import { mat4, quat, vec3 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame } from '../../core/binding';
import { addSupport, removeSceneIK, removeSupport, setSceneInputs, setSupportFrame, type GroundHit, type GroundQuery, type SceneInputs } from '../../core/sceneIK';
import { footLock } from '../../systems/footLock';
import { pelvisHeight } from '../../systems/pelvisHeight';
import { twoBoneIK } from '../../systems/twoBoneIK';
import { update } from '../../systems/pipeline';
import { makeBiped, PARENTS, type BipedRig } from './rig';
import { bytesOf } from '../helpers/worldBytes';
import { createRng as rng } from '../helpers/rng';

const DT = 1 / 60;

const pick = <T,>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const f64 = new Float64Array(1), u32 = new Uint32Array(f64.buffer);
const bits = (x: number): string => { f64[0] = x; return u32[1]!.toString(16) + ':' + u32[0]!.toString(16); };

type GroundKind = 'none' | 'slope' | 'step' | 'platform' | 'bad' | 'throws' | 'sometimesFalse' | 'normals' | 'badSupport';
interface CharPlan {
  root: string; ground: GroundKind; sup: number; stance: 'smooth' | 'stepped' | 'random' | 'weird'; jumps: boolean;
  foot: 'ok' | 'nan' | 'huge' | 'hugeScale' | 'inf'; legs: 0 | 1 | 2; balanceInput: boolean; load: boolean; mirrorHip: boolean;
  poke: { maxTilt?: number; lockOn?: number; groundRate?: number; maxDrop?: number; maxRaise?: number; balance?: number; pelvisRate?: number; balanceMaxShift?: number };
  bornAt: number; diesAt: number; rootSpin: number; rootScale: number;
}

function plan(seed: number, frames: number): { chars: CharPlan[]; supports: number; mirrorSupport: boolean; recycleAt: number } {
  const r = rng(seed);
  const n = process.env.FUZZ_CHARS ? Number(process.env.FUZZ_CHARS) : 2 + Math.floor(r() * 8);
  const chars: CharPlan[] = [];
  const weirdNums = [0, 1e-300, Math.PI, NaN, -1, 2, Infinity, 1e-9, 0.5, 1];
  for (let i = 0; i < n; i++) {
    const poke: CharPlan['poke'] = {};
    if (r() < 0.3) poke.maxTilt = pick(r, [0, 1e-300, 1e-9, Math.PI, NaN, -0.3, 4, 0.05]);
    if (r() < 0.3) poke.lockOn = pick(r, weirdNums);
    if (r() < 0.3) poke.groundRate = pick(r, [0, 10, 1e6, NaN, -5, Infinity]);
    if (r() < 0.2) poke.maxDrop = pick(r, [0, 0.02, NaN, -0.1, Infinity]);
    if (r() < 0.2) poke.maxRaise = pick(r, [0, 0.01, NaN, -0.1, Infinity]);
    if (r() < 0.3) poke.balance = pick(r, [0, 0.5, 1, 2, NaN, -1]);
    if (r() < 0.2) poke.pelvisRate = pick(r, [0, 3, NaN, 1e9, -1]);
    if (r() < 0.2) poke.balanceMaxShift = pick(r, [0, 0.15, NaN, Infinity]);
    chars.push({
      root: pick(r, [...Object.keys(PARENTS), 'platform', 'flip', 'random', 'nanRoot']),
      ground: pick(r, ['none', 'none', 'slope', 'step', 'platform', 'platform', 'bad', 'throws', 'sometimesFalse', 'normals', 'badSupport'] as const),
      sup: Math.floor(r() * 3),
      stance: pick(r, ['smooth', 'stepped', 'random', 'weird'] as const),
      jumps: r() < 0.4,
      foot: pick(r, ['ok', 'ok', 'ok', 'nan', 'huge', 'hugeScale', 'inf'] as const),
      balanceInput: r() < 0.3, load: r() < 0.4, mirrorHip: r() < 0.15, poke, legs: pick(r, [2, 2, 2, 1] as const),
      bornAt: r() < 0.2 ? Math.floor(r() * frames / 2) : 0,
      diesAt: r() < 0.2 ? Math.floor(frames / 2 + r() * frames / 2) : Infinity,
      rootSpin: r() * 2 - 1, rootScale: pick(r, [1, 1, 2.5, 0.01, -1, 1e-3]),
    });
  }
  return { chars, supports: 3, mirrorSupport: r() < 0.5, recycleAt: r() < 0.5 ? Math.floor(frames / 3) : -1 };
}

interface Scene {
  world: BitrigWorld;
  log: string[];
  frame(f: number): void;
}

function buildScene(seed: number, frames: number): Scene {
  const p = plan(seed, frames);
  const small = seed % 2 === 0;
  const world = small ? createBitrigWorld({ entities: 4, bones: 8, characters: 1 }) : createBitrigWorld({ entities: 256, bones: 1024, characters: 32 });
  const log: string[] = [];
  let sups = [addSupport(world), addSupport(world), addSupport(world)];
  const supM = [mat4.create(), mat4.create(), mat4.create()];
  const rigs: (BipedRig | null)[] = p.chars.map(() => null);
  const r = rng(seed * 7919 + 1); // per-frame randomness
  let frameNo = 0;
  const pt = vec3.create();
  const ground = (i: number, kind: GroundKind, sup: number): GroundQuery | null => {
    let calls = 0;
    const platform = (q: ArrayLike<number>, out: GroundHit): boolean => {
      const m = supM[sup]!;
      const n = vec3.transformQuat(vec3.create(), [0, 1, 0], mat4.getRotation(quat.create(), m));
      const o = mat4.getTranslation(vec3.create(), m);
      out.height = o[1]! - (n[0]! * (q[0]! - o[0]!) + n[2]! * (q[2]! - o[2]!)) / n[1]!;
      out.normal[0] = n[0]!; out.normal[1] = n[1]!; out.normal[2] = n[2]!;
      out.support = sups[sup]!;
      return true;
    };
    const body = (q: ArrayLike<number>, out: GroundHit): boolean => {
      calls++;
      switch (kind) {
        case 'slope': out.height = 0.2 * q[2]! - 0.1 * q[0]!; out.normal[0] = 0.1; out.normal[1] = 1; out.normal[2] = -0.2; return true;
        case 'step': out.height = Math.floor(q[0]! * 4) * 0.05; return true;
        case 'platform': return platform(q, out);
        case 'bad': {
          const k = calls % 5;
          if (k === 0) { out.height = NaN; return true; }
          if (k === 1) { out.height = Infinity; return true; }
          if (k === 2) { out.height = 0; return 1 as unknown as boolean; }
          if (k === 3) { (out as { height: unknown }).height = '0.25'; return true; }
          out.height = 0.1; return false;
        }
        case 'throws': if (calls % 3 === 0) throw new Error('ground ' + calls); out.height = 0.05; return true;
        case 'sometimesFalse': if ((calls + frameNo) % 4 === 0) return false; return platform(q, out);
        case 'normals': {
          out.height = 0.02 * Math.sin(q[0]!);
          const k = calls % 6;
          if (k === 0) (out as { normal: unknown }).normal = null;
          else if (k === 1) (out as { normal: unknown }).normal = [0, -1, 0];
          else if (k === 2) (out as { normal: unknown }).normal = [NaN, 1, 0];
          else if (k === 3) (out as { normal: unknown }).normal = [0.3, 1e-9, 0];
          else if (k === 4) (out as { normal: unknown }).normal = new Float32Array([0.1, 2, 0.3]);
          else { out.normal[0] = 1e200; out.normal[1] = 1e200; out.normal[2] = 0; }
          return true;
        }
        case 'badSupport': {
          platform(q, out);
          const k = calls % 7;
          out.support = [sups[sup]!, -5, 1.5, 1e9, 2 ** 31, NaN, 0][k]!; // 0 is an entity that is no support (probably)
          return true;
        }
        default: return false;
      }
    };
    if (kind === 'none') return null;
    return (q, out) => { log.push(`${frameNo}:${i}:${Number.isFinite(q[0]! + q[1]! + q[2]!) ? 'finite' : 'NOT FINITE ' + bits(q[0]!)}`); return body(q, out); };
  };
  const queries = p.chars.map((c, i) => ground(i, c.ground, c.sup));
  const pose = () => world.pose;
  const frame = (f: number): void => {
    frameNo = f;
    const t = f * DT;
    // supports: move/rotate (one mirrored), recycle one
    if (f === p.recycleAt) { removeSupport(world, sups[1]!); sups = [sups[0]!, addSupport(world), sups[2]!]; }
    for (let s = 0; s < 3; s++) {
      const m = supM[s]!;
      mat4.fromRotationTranslation(m, quat.setAxisAngle(quat.create(), [0, 1, 0], (0.4 + s) * t), [0.5 * t - s, 0.08 * Math.sin(3 * t + s), 0.1 * Math.sin(t)]);
      mat4.rotateX(m, m, 0.1 * Math.sin(2 * t + s));
      if (s === 2 && p.mirrorSupport) mat4.scale(m, m, [-1, 1, 1]);
      setSupportFrame(world, sups[s]!, m);
    }
    for (let c = 0; c < p.chars.length; c++) {
      const spec = p.chars[c]!;
      if (f === spec.bornAt && rigs[c] === null) {
        const arms = [{ kind: 'arm', root: 'LeftArm', mid: 'LeftForeArm', end: 'LeftHand' }, { kind: 'arm', root: 'RightArm', mid: 'RightForeArm', end: 'RightHand' }] as const;
        const legs = [{ kind: 'leg', root: 'LeftUpLeg', mid: 'LeftLeg', end: 'LeftFoot' }, { kind: 'leg', root: 'RightUpLeg', mid: 'RightLeg', end: 'RightFoot' }] as const;
        rigs[c] = makeBiped({ world, ik: spec.legs === 2 ? { soften: 0.02 } : { soften: 0.02, limbs: [...legs.slice(0, spec.legs), ...arms] } });
        const h = rigs[c]!.ik;
        const SC = world.components.SceneCharacter, FC = world.components.FootContact;
        const k = spec.poke;
        for (const leg of h.legs) {
          if (k.maxTilt !== undefined) FC.maxTilt[leg.eid] = k.maxTilt;
          if (k.lockOn !== undefined) FC.lockOn[leg.eid] = k.lockOn;
        }
        if (k.groundRate !== undefined) SC.groundRate[h.eid] = k.groundRate;
        if (k.maxDrop !== undefined) SC.maxDrop[h.eid] = k.maxDrop;
        if (k.maxRaise !== undefined) SC.maxRaise[h.eid] = k.maxRaise;
        if (k.balance !== undefined) SC.balance[h.eid] = k.balance;
        if (k.pelvisRate !== undefined) SC.pelvisRate[h.eid] = k.pelvisRate;
        if (k.balanceMaxShift !== undefined) SC.balanceMaxShift[h.eid] = k.balanceMaxShift;
      }
      if (f === spec.diesAt && rigs[c] !== null) { removeSceneIK(world, rigs[c]!.ik); rigs[c] = null; }
    }
    for (let c = 0; c < p.chars.length; c++) {
      const rig = rigs[c], spec = p.chars[c]!;
      const rr = r(), rs = r(), rt = r(); // consumed for every character slot, alive or not
      if (rig === null) continue;
      const phase = 2 * Math.PI * (t * 1.2 + c * 0.13);
      const sway = mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], 0.2 * Math.sin(phase)),
        [0.05 * Math.sin(phase), 0.03 * Math.sin(2 * phase) - 0.02, 0.3 * t]);
      let base: mat4;
      if (spec.root === 'platform') base = mat4.clone(supM[spec.sup]!);
      else if (spec.root === 'flip') base = mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [1, spec.rootSpin, 0.3]), Math.PI - 0.2 + 0.1 * Math.sin(t)), [2, 1.5, 0]);
      else if (spec.root === 'random') base = mat4.fromRotationTranslationScale(mat4.create(), quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [spec.rootSpin, 1, 0.2]), spec.rootSpin * 5 * t), [c, 0, -c], [spec.rootScale, Math.abs(spec.rootScale), 1]);
      else if (spec.root === 'nanRoot') base = mat4.fromTranslation(mat4.create(), [0, f % 30 < 10 ? NaN : f % 30 < 15 ? Infinity : 0.1, 0]);
      else base = PARENTS[spec.root]!();
      mat4.multiply(rig.root, base, sway);
      rig.overrides.clear();
      for (const [side, s] of [['Left', 1], ['Right', -1]] as const) {
        rig.overrides.set(`${side}Leg`, { r: quat.setAxisAngle(quat.create(), [1, 0, 0], 0.3 + 0.3 * Math.sin(phase * s)) as unknown as number[] });
        rig.overrides.set(`${side}Foot`, { r: quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [1, 0, 0.5 * s]), 0.4 * Math.sin(phase + s) + (rr < 0.05 ? 3 : 0)) as unknown as number[] });
      }
      if (spec.mirrorHip) rig.overrides.set('LeftUpLeg', { s: [-1, 1, 1] });
      if (rs < 0.25) {
        if (spec.foot === 'nan') rig.overrides.set('RightFoot', { t: [NaN, 0, 0] });
        else if (spec.foot === 'inf') rig.overrides.set('LeftFoot', { t: [0, Infinity, 0] });
        else if (spec.foot === 'huge') rig.overrides.set('RightFoot', { t: [1e300, 1e300, 0] });
        else if (spec.foot === 'hugeScale') rig.overrides.set('LeftFoot', { s: [1e306, 1e306, 1e306] });
      }
      const P = pose();
      for (let i = 0; i < rig.names.length; i++) {
        const sl = rig.binding.slotOf[i]!;
        const rest = rig.rest[i]!, ov = rig.overrides.get(rig.names[i]!);
        const tt = ov?.t ?? rest.t, rq = ov?.r ?? rest.r, sc = ov?.s ?? [1, 1, 1];
        for (let j = 0; j < 3; j++) { P.localT[sl * 3 + j] = tt[j]!; P.localS[sl * 3 + j] = sc[j]!; }
        for (let j = 0; j < 4; j++) P.localR[sl * 4 + j] = rq[j]!;
      }
      for (let j = 0; j < 16; j++) P.charRootWs[rig.binding.charId * 16 + j] = rig.root[j]!;
      beginCharacterFrame(rig.binding);
      const sn = Math.sin(phase);
      const steps = [0, 0.5, 1, 1, 0.5, 0];
      const feet = spec.stance === 'stepped' ? [steps[Math.floor(f / 7 + c) % 6]!, steps[Math.floor(f / 7 + c + 3) % 6]!]
        : spec.stance === 'random' ? [rt, 1 - rt]
          : spec.stance === 'weird' ? [pick(() => rt, [NaN, -1, 2, Infinity, -Infinity, 0.5, 1, 0]), pick(() => rr, [NaN, -1, 2, 1, 0])]
            : [0.5 + 0.6 * sn, 0.5 - 0.6 * sn];
      const si: SceneInputs = {
        feet,
        ground: spec.ground === 'sometimesFalse' || f % 97 < 80 ? queries[c] : null,
        grounded: !(spec.jumps && f % 90 > 70),
        balance: spec.balanceInput ? (f % 200 < 150 ? pick(() => rt, [0.7, 0, 1, 3, NaN, -1]) : null) : undefined,
        hands: spec.load ? [{ position: [0.4, 1.1 + 0.1 * Math.sin(t), 0.3], weight: 1, grip: { position: [0, 0.05, 0], rotation: [0, 0, 0, 1] }, mass: f % 160 < 100 ? pick(() => rs, [8, 0, 1e6, 1e-9]) : 0 },
          { position: [-0.4, 1.3, 0.2], rotation: [0, 0, 0, 1], weight: 0.5, rotationWeight: 0.5, mass: 3 }] : [null, null],
      };
      setSceneInputs(world, rig.ik, si);
    }
  };
  return { world, log, frame };
}

const STAGES = [['FootLock', footLock], ['PelvisHeight', pelvisHeight], ['TwoBoneIK', twoBoneIK]] as const;

const finite = (a: ArrayLike<number>, o: number, n: number): boolean => { for (let k = 0; k < n; k++) if (!Number.isFinite(a[o + k]!)) return false; return true; };

/** What a stage may not do (see the header); null when it did none of it. */
function violation(world: BitrigWorld, localR: Float64Array, localT: Float64Array): string | null {
  const P = world.pose, L = world.components.Limb;
  for (let b = 0; b < localR.length / 4; b++) {
    if (finite(localR, b * 4, 4) && !finite(P.localR, b * 4, 4)) return `slot ${b}: local rotation made non-finite`;
    if (finite(localT, b * 3, 3) && !finite(P.localT, b * 3, 3)) return `slot ${b}: local translation made non-finite`;
  }
  for (const c of world.queries.sceneChars.dense) {
    const SC = world.components.SceneCharacter;
    for (let k = 0; k < Math.min(SC.legCount[c]!, 4); k++) {
      const e = SC.legs[c * 4 + k]!;
      if (!(e >= 0 && e < world.capacity)) continue;
      const w = L.weight[e]!, wr = L.rotWeight[e]!;
      if (!(w >= 0 && w <= 1) || !(wr >= 0 && wr <= 1)) return `leg ${e}: weights ${w}, ${wr} outside [0, 1]`;
      if (w > 0 && Number.isNaN(L.targetWs[e * 3]! + L.targetWs[e * 3 + 1]! + L.targetWs[e * 3 + 2]!)) return `leg ${e}: weight ${w} and a NaN target`;
    }
  }
  return null;
}

export function runSeed(seed: number, frames: number): string | null {
  const A = buildScene(seed, frames);
  if (A.world.tailAccel === null || A.world.tailAccel.scene === null) return 'no kernel';
  let calls = 0;
  for (let f = 0; f < frames; f++) {
    A.frame(f);
    const localR = Float64Array.from(A.world.pose.localR), localT = Float64Array.from(A.world.pose.localT);
    const dt = [DT, DT, DT, DT, DT, 0, NaN, -DT, 1, 1e-9, Infinity][(f * 7 + seed) % 11]!;
    for (const [name, run] of (process.env.FUZZ_UPDATE ? [['update', update]] as const : STAGES)) {
      try { run(A.world, dt); } catch (e) { return `seed ${seed} frame ${f} ${name}: threw ${String(e)}`; }
      const d = violation(A.world, localR, localT);
      if (d !== null) return `seed ${seed} frame ${f} ${name}: ${d}`;
    }
    const bad = A.log.find((x) => x.includes('NOT FINITE'));
    if (bad !== undefined) return `seed ${seed} frame ${f}: a ground call about a non-finite point (${bad})`;
    const perLeg = new Map<string, number>();
    for (const x of A.log) perLeg.set(x, (perLeg.get(x) ?? 0) + 1);
    for (const [k, n] of perLeg) if (n > 2) return `seed ${seed} frame ${f}: character ${k} asked ${n} times (2 legs at most)`;
    calls += A.log.length;
    A.log.length = 0;
  }
  return calls > 0 ? null : `seed ${seed}: no ground call at all (the fixture lost its ground queries)`;
}

describe('scene kernels on seeded random hostile scenes', () => {
  const seeds = Number(process.env.FUZZ_SEEDS ?? 8), frames = Number(process.env.FUZZ_FRAMES ?? 120);
  const only = process.env.FUZZ_ONLY;
  test('no trap, no NaN made, weights in range, ground asked only about finite points, once per leg', () => {
    const fails: string[] = [];
    for (let s = 1; s <= seeds; s++) {
      if (only !== undefined && String(s) !== only) continue;
      const d = runSeed(s, frames);
      if (d !== null) fails.push(d);
    }
    expect(fails).toEqual([]);
  }, 600_000);
});
