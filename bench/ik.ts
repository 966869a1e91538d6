/**
 * Scene-contact benchmarks (issue 3):
 *
 * - `ik.limb`: FootLock + PelvisHeight + TwoBoneIK per limb at 10,000 limbs (5,000 bipeds,
 *   both feet planted while the bodies sway, so every limb locks, bands and solves), compared
 *   in the same run with Babylon's `BoneIKController.update()` and three's `CCDIKSolver`
 *   (10 iterations) on two-bone chains. Every frame first copies the animated pose into the
 *   pose store (what an adapter's read does, not timed), then times the three steps as
 *   `update` runs them (`sceneContacts`: block by block); the result is the median over 60
 *   frames. The other 60 frames, interleaved, time the three systems called one after the
 *   other over the whole crowd (a custom schedule): their sum and each stage are in `extra`.
 * - `ik.limb.fullSkeleton`: the same on a game-sized 65-bone humanoid (as `threejs-xbot.glb`),
 *   both sides on the same skeleton (Babylon's controllers on both legs of 1,000 skeletons).
 * - `crowd.frame`: milliseconds per frame for 10,000 characters with a six-link tail, two
 *   planted legs and a pelvis — the whole pipeline (`update`), systems only: the median of 40
 *   frames, each timed from after the pose copy to the end of `update`.
 *
 * Medians of repeats; the machine is shared and noisy: read the ratios.
 */
import {
  NullEngine, Scene, Mesh, TransformNode, Skeleton as BSkeleton, Bone as BBone, BoneIKController, Matrix,
} from '@babylonjs/core';
import { Bone, BufferGeometry, MeshBasicMaterial, Skeleton, SkinnedMesh } from 'three';
import { CCDIKSolver } from 'three/examples/jsm/animation/CCDIKSolver.js';
import { type BitrigWorld } from '../core/world';
import { createBitrigWorld } from '../runtime/world';
import { bindSkeleton, beginCharacterFrame, type CharacterBinding, type SkeletonSource } from '../core/binding';
import { addSceneIK, setSceneInputs, type SceneIKHandle } from '../core/sceneIK';
import { footLock } from '../systems/footLock';
import { pelvisHeight } from '../systems/pelvisHeight';
import { twoBoneIK } from '../systems/twoBoneIK';
import { update, sceneContacts } from '../systems/pipeline';
import { machineProbes, median, timeMedian, timeOnce, type BenchResult } from './common';
import { allocPerFrame, steadyAllocation } from './alloc';

const DT = 1 / 60;

/** A biped of 7 bones (Hips, two legs with bent knees), optionally with a 6-link tail + end. */
function bipedSource(tail: boolean): SkeletonSource {
  const names: string[] = [];
  const parents: number[] = [];
  const worldPos: number[][] = [];
  const add = (name: string, parent: number, p: number[]): number => { names.push(name); parents.push(parent); worldPos.push(p); return names.length - 1; };
  const hips = add('Hips', -1, [0, 0.93, 0]);
  for (const [side, sx] of [['Left', 1], ['Right', -1]] as const) {
    const up = add(`${side}UpLeg`, hips, [0.1 * sx, 0.9, 0]);
    const leg = add(`${side}Leg`, up, [0.1 * sx, 0.5, 0.04]);
    add(`${side}Foot`, leg, [0.1 * sx, 0.1, 0]);
  }
  if (tail) {
    let p = hips;
    for (let i = 0; i <= 6; i++) p = add(i < 6 ? `Tail_${i + 1}` : 'Tail_End', p, [0, 0.85 - 0.06 * i, -0.1 - 0.11 * i]);
  }
  const inverseBind = worldPos.map((p) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -p[0]!, -p[1]!, -p[2]!, 1]);
  const rest = worldPos.map((p, i) => ({
    t: parents[i]! >= 0 ? p.map((v, k) => v - worldPos[parents[i]!]![k]!) : p, r: [0, 0, 0, 1], s: [1, 1, 1],
  }));
  return { names, parents, inverseBind, rest };
}

/**
 * A Mixamo-sized humanoid of 65 bones (as `threejs-xbot.glb`): hips, three spine bones, neck,
 * head and head end; per side a shoulder, arm, forearm and hand with five fingers of four
 * joints; per side up-leg, leg, foot, toe base and toe end. The size game characters have.
 */
function fullSkeletonPositions(): { names: string[]; parents: number[]; worldPos: number[][] } {
  const names: string[] = [];
  const parents: number[] = [];
  const worldPos: number[][] = [];
  const add = (name: string, parent: number, p: number[]): number => { names.push(name); parents.push(parent); worldPos.push(p); return names.length - 1; };
  const hips = add('Hips', -1, [0, 0.93, 0]);
  let sp = hips;
  for (const [i, n] of ['Spine', 'Spine1', 'Spine2'].entries()) sp = add(n, sp, [0, 1.03 + 0.12 * i, 0]);
  const neck = add('Neck', sp, [0, 1.45, 0]);
  const head = add('Head', neck, [0, 1.55, 0.02]);
  add('HeadTop_End', head, [0, 1.75, 0.02]);
  for (const [side, sx] of [['Left', 1], ['Right', -1]] as const) {
    const sh = add(`${side}Shoulder`, sp, [0.06 * sx, 1.4, 0]);
    const arm = add(`${side}Arm`, sh, [0.17 * sx, 1.4, 0]);
    const fore = add(`${side}ForeArm`, arm, [0.45 * sx, 1.4, 0]);
    const hand = add(`${side}Hand`, fore, [0.7 * sx, 1.4, 0]);
    for (const [k, finger] of ['Thumb', 'Index', 'Middle', 'Ring', 'Pinky'].entries()) {
      let p = hand;
      for (let j = 1; j <= 4; j++) p = add(`${side}Hand${finger}${j}`, p, [(0.72 + 0.025 * j) * sx, 1.4, 0.04 - 0.02 * k]);
    }
  }
  for (const [side, sx] of [['Left', 1], ['Right', -1]] as const) {
    const up = add(`${side}UpLeg`, hips, [0.1 * sx, 0.9, 0]);
    const leg = add(`${side}Leg`, up, [0.1 * sx, 0.5, 0.04]);
    const foot = add(`${side}Foot`, leg, [0.1 * sx, 0.1, 0]);
    const toe = add(`${side}ToeBase`, foot, [0.1 * sx, 0.02, 0.12]);
    add(`${side}Toe_End`, toe, [0.1 * sx, 0.02, 0.2]);
  }
  return { names, parents, worldPos };
}

/** The full 65-bone skeleton as a bitrig source. */
function fullSkeletonSource(): SkeletonSource {
  const { names, parents, worldPos } = fullSkeletonPositions();
  const inverseBind = worldPos.map((p) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -p[0]!, -p[1]!, -p[2]!, 1]);
  const rest = worldPos.map((p, i) => ({
    t: parents[i]! >= 0 ? p.map((v, k) => v - worldPos[parents[i]!]![k]!) : p, r: [0, 0, 0, 1], s: [1, 1, 1],
  }));
  return { names, parents, inverseBind, rest };
}

/** A benchmark crowd: its world, bindings, scene IK handles and the adapter-like read of frame `f`. */
export interface Crowd { world: BitrigWorld; bindings: CharacterBinding[]; handles: SceneIKHandle[]; read: (f: number) => void }

/**
 * `n` characters in one world, feet planted, an adapter-like read that sways each body (with a
 * six-link tail each when `tail`; the 65-bone skeleton when `full`).
 *
 * @example
 * const c = crowd(5000, false); c.read(0); footLock(c.world, 1 / 60);
 */
export function crowd(n: number, tail: boolean, full = false): Crowd {
  const src = full ? fullSkeletonSource() : bipedSource(tail);
  const bonesPer = src.names.length;
  const world = createBitrigWorld({ entities: n * 4 + 16, chains: tail ? n + 16 : 0, bones: n * bonesPer + 16, characters: n + 16 });
  const bindings: CharacterBinding[] = [];
  const handles: SceneIKHandle[] = [];
  for (let i = 0; i < n; i++) {
    const b = bindSkeleton(world, src, { tail: { floorEnabled: true } });
    bindings.push(b);
    const h = addSceneIK(world, b, { arms: false });
    setSceneInputs(world, h, { feet: [1, 1], grounded: true });
    handles.push(h);
  }
  const pose = world.pose;
  const restT = new Float64Array(bonesPer * 3), restR = new Float64Array(bonesPer * 4);
  src.rest.forEach((r, i) => { for (let k = 0; k < 3; k++) restT[i * 3 + k] = r.t[k]!; for (let k = 0; k < 4; k++) restR[i * 4 + k] = r.r[k]!; });
  const read = (f: number): void => {
    for (let c = 0; c < n; c++) {
      const b = bindings[c]!;
      for (let i = 0; i < bonesPer; i++) {
        const s = b.slotOf[i]!;
        pose.localT[s * 3] = restT[i * 3]!; pose.localT[s * 3 + 1] = restT[i * 3 + 1]!; pose.localT[s * 3 + 2] = restT[i * 3 + 2]!;
        pose.localR[s * 4] = restR[i * 4]!; pose.localR[s * 4 + 1] = restR[i * 4 + 1]!; pose.localR[s * 4 + 2] = restR[i * 4 + 2]!; pose.localR[s * 4 + 3] = restR[i * 4 + 3]!;
        pose.localS[s * 3] = 1; pose.localS[s * 3 + 1] = 1; pose.localS[s * 3 + 2] = 1;
      }
      // the body sways ±3 cm around its spot on a 2 m grid; the feet stay planted
      const r = b.charId * 16;
      pose.charRootWs[r] = 1; pose.charRootWs[r + 5] = 1; pose.charRootWs[r + 10] = 1; pose.charRootWs[r + 15] = 1;
      pose.charRootWs[r + 12] = (c % 100) * 2 + 0.03 * Math.sin(f * 0.1 + c);
      pose.charRootWs[r + 13] = 0;
      pose.charRootWs[r + 14] = Math.floor(c / 100) * 2 + 0.03 * Math.cos(f * 0.13 + c);
      beginCharacterFrame(b);
    }
  };
  return { world, bindings, handles, read };
}

/**
 * Babylon BoneIKController on `n` two-bone chains: `round()` returns ns per update() for one
 * timed round (target moves subtracted), `dispose()` frees the engine.
 */
function babylonRig(n: number): { round(): number; dispose(): void } {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  const ctrls: BoneIKController[] = [];
  const targets: TransformNode[] = [];
  for (let i = 0; i < n; i++) {
    const mesh = new Mesh(`m${i}`, scene);
    const sk = new BSkeleton(`s${i}`, `s${i}`, scene);
    const hip = new BBone('up', sk, null, Matrix.Translation(0, 0.9, 0));
    const knee = new BBone('leg', sk, hip, Matrix.Translation(0, -0.4, 0.04));
    new BBone('foot', sk, knee, Matrix.Translation(0, -0.4, -0.04));
    mesh.skeleton = sk;
    const target = new TransformNode(`t${i}`, scene);
    target.position.set(0.05, 0.15, 0.1);
    const pole = new TransformNode(`p${i}`, scene);
    pole.position.set(0, 0.5, 1);
    targets.push(target);
    ctrls.push(new BoneIKController(mesh, knee, { targetMesh: target, poleTargetMesh: pole }));
  }
  return controllerRounds(engine, ctrls, targets, () => 0.05);
}

/**
 * Timed rounds of Babylon controllers: each frame moves every target (x = `baseX(i)` plus a
 * sway) and updates its controller; `round()` returns ns per update() for one timed round of
 * 10 frames, the target moves timed alone and subtracted.
 */
function controllerRounds(engine: NullEngine, ctrls: BoneIKController[], targets: TransformNode[], baseX: (i: number) => number): { round(): number; dispose(): void } {
  const n = ctrls.length;
  let f = 0;
  const move = (k: number): void => { for (let i = 0; i < n; i++) targets[i]!.position.x = baseX(i) + 0.03 * Math.sin(k * 0.1 + i); };
  const step = (): void => {
    for (let i = 0; i < n; i++) {
      targets[i]!.position.x = baseX(i) + 0.03 * Math.sin(f * 0.1 + i);
      ctrls[i]!.update();
    }
    f++;
  };
  for (let k = 0; k < 20; k++) step();
  const R = 10;
  return {
    round: () => {
      const ms = timeOnce(() => { for (let k = 0; k < R; k++) step(); });
      const base = timeOnce(() => { for (let k = 0; k < R; k++) move(k); });
      return ((ms - base) * 1e6) / (R * n);
    },
    dispose: () => engine.dispose(),
  };
}

/**
 * Babylon BoneIKController on both legs of `n` 65-bone skeletons ({@link fullSkeletonPositions}):
 * `round()` returns ns per controller update() for one timed round (target moves subtracted).
 */
function babylonFullRig(n: number): { round(): number; dispose(): void } {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  const ctrls: BoneIKController[] = [];
  const targets: TransformNode[] = [];
  const { names, parents, worldPos } = fullSkeletonPositions();
  for (let i = 0; i < n; i++) {
    const mesh = new Mesh(`m${i}`, scene);
    const sk = new BSkeleton(`s${i}`, `s${i}`, scene);
    const bones: BBone[] = [];
    for (let k = 0; k < names.length; k++) {
      const p = worldPos[k]!, q = parents[k]! >= 0 ? worldPos[parents[k]!]! : [0, 0, 0];
      bones.push(new BBone(names[k]!, sk, parents[k]! >= 0 ? bones[parents[k]!]! : null, Matrix.Translation(p[0]! - q[0]!, p[1]! - q[1]!, p[2]! - q[2]!)));
    }
    mesh.skeleton = sk;
    for (const [side, sx] of [['Left', 1], ['Right', -1]] as const) {
      const target = new TransformNode(`t${i}${side}`, scene);
      target.position.set(0.1 * sx + 0.05, 0.15, 0.1);
      const pole = new TransformNode(`p${i}${side}`, scene);
      pole.position.set(0.1 * sx, 0.5, 1);
      targets.push(target);
      ctrls.push(new BoneIKController(mesh, bones[names.indexOf(`${side}Leg`)]!, { targetMesh: target, poleTargetMesh: pole }));
    }
  }
  return controllerRounds(engine, ctrls, targets, (i) => (i % 2 === 0 ? 0.15 : -0.05));
}

/**
 * Our frames and Babylon's rounds interleaved (the machine is shared: the ratio comes from
 * timings taken side by side): 8 rounds of `frames / 8` of our frames (timed by `frame(true)`),
 * each followed by one round of Babylon's, whose garbage is collected before our next frames,
 * and by one round of the machine `probes` when given. Returns the median ns per Babylon
 * update; disposes the rig.
 */
function interleavedRounds(frame: (keep: boolean) => void, bab: { round(): number; dispose(): void }, frames: number, probes?: { round(): void }): number {
  const t: number[] = [];
  for (let r = 0; r < 8; r++) {
    for (let k = 0; k < frames / 8; k++) frame(true);
    t.push(bab.round());
    probes?.round();
    (globalThis as { gc?: () => void }).gc?.();
  }
  bab.dispose();
  return median(t);
}

/** three CCDIKSolver (10 iterations): ns per chain on `n` two-bone chains in one skeleton. */
function threeCcdNs(n: number): number {
  const bones: Bone[] = [];
  const iks: { target: number; effector: number; links: { index: number }[]; iteration: number }[] = [];
  const root = new Bone();
  bones.push(root);
  const targets: Bone[] = [];
  for (let i = 0; i < n; i++) {
    const hip = new Bone(); hip.position.set((i % 100) * 2, 0.9, Math.floor(i / 100) * 2);
    const knee = new Bone(); knee.position.set(0, -0.4, 0.04);
    const foot = new Bone(); foot.position.set(0, -0.4, -0.04);
    const target = new Bone(); target.position.set((i % 100) * 2 + 0.05, 0.15, Math.floor(i / 100) * 2 + 0.1);
    root.add(hip); hip.add(knee); knee.add(foot); root.add(target);
    const b = bones.length;
    bones.push(hip, knee, foot, target);
    targets.push(target);
    iks.push({ target: b + 3, effector: b + 2, links: [{ index: b + 1 }, { index: b }], iteration: 10 });
  }
  const mesh = new SkinnedMesh(new BufferGeometry(), new MeshBasicMaterial());
  mesh.add(root);
  mesh.bind(new Skeleton(bones));
  mesh.updateMatrixWorld(true);
  const solver = new CCDIKSolver(mesh, iks as never);
  let f = 0;
  const step = (): void => {
    for (let i = 0; i < n; i++) targets[i]!.position.x = (i % 100) * 2 + 0.05 + 0.03 * Math.sin(f * 0.1 + i);
    root.updateMatrixWorld(true);
    solver.update();
    f++;
  };
  for (let k = 0; k < 5; k++) step();
  const R = 5;
  const ms = timeMedian(() => { for (let k = 0; k < R; k++) step(); }, 3);
  const base = timeMedian(() => { for (let k = 0; k < R; k++) { for (let i = 0; i < n; i++) targets[i]!.position.x = 0.05 * i; root.updateMatrixWorld(true); } }, 3);
  return ((ms - base) * 1e6) / (R * n);
}

/**
 * Run the scene-contact benchmarks: `ik.limb` (ours vs Babylon BoneIKController; three's
 * CCDIKSolver in `extra`) and `crowd.frame`.
 *
 * @example
 * const results = await benchIk();
 */
export async function benchIk(): Promise<Array<BenchResult & { id: string; nsPerItem: number; compare?: { id: string; nsPerItem: number } }>> {
  const LIMBS = 10_000;
  // ---- ik.limb: ours
  const c = crowd(LIMBS / 2, false);
  let f = 0;
  // Each frame: the adapter-like read (not timed), then the three systems, each timed; the
  // medians over the frames (a per-frame timing: nothing is subtracted, so no subtraction noise).
  const FR = 120;
  const tLock: number[] = [], tPelvis: number[] = [], tTwo: number[] = [], tSep: number[] = [], tAll: number[] = [];
  const sceneFrame = (keep: boolean): void => {
    c.read(f++);
    if (f % 2 === 0) {
      const t0 = performance.now();
      sceneContacts(c.world, DT);
      if (keep) tAll.push(performance.now() - t0);
      return;
    }
    const t0 = performance.now();
    footLock(c.world, DT);
    const t1 = performance.now();
    pelvisHeight(c.world, DT);
    const t2 = performance.now();
    twoBoneIK(c.world, DT);
    const t3 = performance.now();
    if (keep) { tLock.push(t1 - t0); tPelvis.push(t2 - t1); tTwo.push(t3 - t2); tSep.push(t3 - t0); }
  };
  for (let k = 0; k < 60; k++) sceneFrame(false);
  const probes = machineProbes();
  const babylon = interleavedRounds(sceneFrame, babylonRig(2000), FR, probes);
  const perLimb = (ms: number): number => (ms * 1e6) / LIMBS;
  const oursNs = perLimb(median(tAll));
  // reached check (not timed): every planted foot reached its lock
  const L = c.world.components.Limb;
  let reached = 0;
  for (const h of c.handles) for (const l of h.legs) reached += L.reached[l.eid]!;
  // Allocation by bitrig's own systems once V8 has optimised them (no adapter read, no
  // comparison solvers): the exact bytes the young generation gains over windows of 100
  // frames, until three in a row allocate nothing (bench/alloc.ts).
  const alloc = steadyAllocation(() => { sceneContacts(c.world, DT); footLock(c.world, DT); pelvisHeight(c.world, DT); twoBoneIK(c.world, DT); }, { framesPerWindow: 100, maxWindows: 40 });

  // ---- comparisons in the same run
  const ccd = threeCcdNs(2000);

  // ---- ik.limb on a game-sized skeleton (65 bones, legs solved): ours and Babylon's
  // controllers on the same skeleton, rounds interleaved as above. Not the headline (ik.limb
  // is the definition); it shows how both scale with the skeleton around the legs.
  const cf = crowd(LIMBS / 2, false, true);
  let ff = 0;
  const tFull: number[] = [];
  const fullFrame = (keep: boolean): void => {
    cf.read(ff++);
    const t0 = performance.now();
    sceneContacts(cf.world, DT);
    if (keep) tFull.push(performance.now() - t0);
  };
  for (let k = 0; k < 60; k++) fullFrame(false);
  const babylonFull = interleavedRounds(fullFrame, babylonFullRig(1000), FR);
  const fullNs = perLimb(median(tFull));
  let reachedFull = 0;
  for (const h of cf.handles) for (const l of h.legs) reachedFull += cf.world.components.Limb.reached[l.eid]!;

  // ---- crowd.frame: 10,000 characters, six-link tail, two planted legs, pelvis; whole pipeline
  const CH = 10_000;
  // Per frame: the read (not timed), then update() timed; medians over 40 frames. The scene
  // systems' share: the same three systems timed alone (as update runs them) in other frames.
  const cr = crowd(CH, true);
  let g = 0;
  const CF = 40;
  const framesMs = (read: (f: number) => void, n: number, step: () => void): number => {
    const t: number[] = [];
    for (let k = 0; k < n; k++) {
      read(g++);
      const t0 = performance.now();
      step();
      t.push(performance.now() - t0);
    }
    return median(t);
  };
  framesMs(cr.read, 30, () => update(cr.world, DT)); // warm-up
  const crowdFrameMs = framesMs(cr.read, CF, () => update(cr.world, DT));
  // (steps 1–3 as update runs them)
  const crowdSceneMs = framesMs(cr.read, CF, () => sceneContacts(cr.world, DT));

  return [
    {
      id: 'ik.limb',
      nsPerItem: oursNs,
      compare: { id: '@babylonjs/core BoneIKController', nsPerItem: babylon },
      ratio: babylon / oursNs,
      extra: {
        limbs: LIMBS,
        footLockNs: perLimb(median(tLock)),
        pelvisNs: perLimb(median(tPelvis)),
        twoBoneNs: perLimb(median(tTwo)),
        separateSystemsNs: perLimb(median(tSep)),
        'three CCDIKSolver(10 it) ns': ccd,
        ratioVsCCD: ccd / oursNs,
        reachedLimbs: reached,
        allocatedBytesPerFrame: allocPerFrame(alloc),
        allocQuietAfterFrames: alloc.warmFrames ?? 'never',
        ...probes.result(),
      },
    },
    {
      id: 'ik.limb.fullSkeleton',
      nsPerItem: fullNs,
      compare: { id: '@babylonjs/core BoneIKController (65-bone skeleton)', nsPerItem: babylonFull },
      ratio: babylonFull / fullNs,
      extra: { limbs: LIMBS, bonesPerCharacter: fullSkeletonPositions().names.length, reachedLimbs: reachedFull },
    },
    {
      id: 'crowd.frame',
      nsPerItem: (crowdFrameMs * 1e6) / CH,
      ms: crowdFrameMs,
      extra: {
        characters: CH,
        msPerFrame: crowdFrameMs,
        sceneIkMs: crowdSceneMs,
        tailMs: crowdFrameMs - crowdSceneMs,
        budgetMs: 16.6,
      },
    },
  ];
}
