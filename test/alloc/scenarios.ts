/**
 * The scenarios of test/alloc/steadyState.test.ts, run as a plain Node program from one esbuild
 * bundle of bitrig's sources (as a game's bundler would ship them; vitest's module runner
 * reaches every import through a getter, which changes what V8 inlines). Prints one JSON
 * line per scenario: { name, warmFrames, windows, check }.
 *
 *   node scenarios.mjs [name…]
 */
import type { Bone } from 'three';
import { createAnimator as createThreeAnimator, characterToThree, updateAnimators } from '../../adapters/three';
import { createAnimator as createBabylonAnimator } from '../../adapters/babylon';
import { createBuiltinCharacter, createCharacterClipSampler, characterBindPose, sampleCharacterClip } from '../../core/character';
import type { CharacterData } from '../../core/character/types';
import { createBitrigWorld } from '../../core/world';
import { addSupport, setSupportFrame, type GroundHit, type SceneInputs } from '../../core/sceneIK';
import { characterToGlb } from '../../rig/characterDocument';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine';
import { Scene } from '@babylonjs/core/scene';
import { LoadAssetContainerAsync } from '@babylonjs/core/Loading/sceneLoader';
import '@babylonjs/loaders/glTF';
import { steadyAllocation } from '../../bench/alloc';
import { mat4 } from 'gl-matrix';
import { bindSkeleton, beginCharacterFrame } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { sourceFromWorlds } from '../helpers/skeleton';

const DT = 1 / 60;
const FRAMES = 120; // two seconds of clip in the playback table

/** Local TRS of every bone for FRAMES frames of a clip (setup: allocates). */
function playbackTable(data: CharacterData, clip: string): { t: Float64Array; r: Float64Array; n: number } {
  const n = data.bones.length;
  const t = new Float64Array(FRAMES * n * 3), r = new Float64Array(FRAMES * n * 4);
  const bt = new Float64Array(n * 3), br = new Float64Array(n * 4), bs = new Float64Array(n * 3);
  const sampler = createCharacterClipSampler(data, clip);
  const dur = sampler.clip.duration;
  for (let f = 0; f < FRAMES; f++) {
    characterBindPose(data, bt, br, bs);
    sampleCharacterClip(sampler, (f * DT) % dur, bt, br, bs);
    t.set(bt, f * n * 3);
    r.set(br, f * n * 4);
  }
  return { t, r, n };
}

interface PoseTarget { position: { set(x: number, y: number, z: number): unknown }; quaternion: { set(x: number, y: number, z: number, w: number): unknown } }

/** Copy frame `f` of the table onto the targets (per frame: no allocation). */
function play(table: { t: Float64Array; r: Float64Array; n: number }, targets: readonly (PoseTarget | null)[], f: number): void {
  const { t, r, n } = table;
  const k = f % FRAMES;
  for (let i = 0; i < n; i++) {
    const b = targets[i];
    if (!b) continue;
    const o3 = (k * n + i) * 3, o4 = (k * n + i) * 4;
    b.position.set(t[o3]!, t[o3 + 1]!, t[o3 + 2]!);
    b.quaternion.set(r[o4]!, r[o4 + 1]!, r[o4 + 2]!, r[o4 + 3]!);
  }
}

/**
 * Scene inputs exercising every per-frame branch: stance weights that lift and plant each
 * foot in turn, a 15° slope that belongs to a moving, turning platform, and the right hand
 * holding an object (grip, mass) at a moving target. One object, mutated in place.
 */
function sceneDriver(world: ReturnType<typeof createBitrigWorld>): { inputs: SceneInputs; step(f: number): void } {
  const platform = addSupport(world);
  const m = new Float64Array(16);
  const feet = new Float64Array(2);
  const slope = Math.tan((15 * Math.PI) / 180);
  const nl = Math.hypot(slope, 1);
  const ground = (p: Float64Array, out: GroundHit): boolean => {
    out.height = p[0]! * slope;
    const n = out.normal;
    n[0] = -slope / nl; n[1] = 1 / nl; n[2] = 0;
    out.support = platform;
    return true;
  };
  const keyPos = new Float64Array(3), keyRot = new Float64Array([0, 0, 0, 1]);
  const grip = { position: new Float64Array([0.05, -0.01, 0.02]), rotation: new Float64Array([0, Math.sin(0.2), 0, Math.cos(0.2)]) };
  const hand = { position: keyPos, rotation: keyRot, grip, mass: 2, weight: 1 };
  const inputs: SceneInputs = { feet, hands: [null, hand], ground, grounded: true };
  return {
    inputs,
    step(f: number): void {
      const a = f * DT;
      feet[0] = 0.5 + 0.5 * Math.sin(a * 4);
      feet[1] = 0.5 - 0.5 * Math.sin(a * 4);
      keyPos[0] = 0.3 + 0.2 * Math.sin(a); keyPos[1] = 1.0 + 0.1 * Math.cos(a * 1.3); keyPos[2] = 0.25;
      const th = 0.05 * Math.sin(a * 0.7), c = Math.cos(th), s = Math.sin(th);
      m[0] = c; m[2] = -s; m[5] = 1; m[8] = s; m[10] = c; m[15] = 1;
      m[12] = 0.1 * Math.sin(a * 0.5); m[13] = 0; m[14] = 0.05 * a % 1;
      setSupportFrame(world, platform, m);
    },
  };
}

function threeRig(clip: string) {
  const data = createBuiltinCharacter();
  const c = characterToThree(data);
  return { data, c, table: playbackTable(data, clip), targets: c.bones as (Bone & PoseTarget)[] };
}


/** One scenario: setup, then a frame function; `check` runs after the measurement (the path really ran). */
type Scenario = () => Promise<{ frame: () => void; check?: () => boolean; framesPerWindow?: number; dispose(): void }>;

export const SCENARIOS: Record<string, Scenario> = {
  /** three.js, tail on the WebAssembly step, a walk. */
  async threeTailWasm() {
    const { c, table, targets } = threeRig('walk');
    const animator = createThreeAnimator(c.root);
    let f = 0;
    return { frame: () => { play(table, targets, f++); animator.update(DT); }, dispose: () => animator.dispose() };
  },
  /** three.js, tail on the JavaScript step, a hip sweep (bend limit and coupling at work). */
  async threeTailJs() {
    const { c, table, targets } = threeRig('hipSweep');
    const animator = createThreeAnimator(c.root, { world: createBitrigWorld({ wasm: false }) });
    let f = 0;
    return { frame: () => { play(table, targets, f++); animator.update(DT); }, dispose: () => animator.dispose() };
  },
  /** three.js, a limp tail on the floor while crouching (floor contact every frame). */
  async threeTailFloor() {
    const { c, table, targets } = threeRig('crouch');
    const animator = createThreeAnimator(c.root, { tail: { gravity: 9.8, carry: 0, restCurve: 1 } });
    let f = 0;
    return {
      frame: () => { play(table, targets, f++); animator.update(DT); },
      check: () => animator.diagnostics().tails[0]!.contacts.some((x) => x),
      dispose: () => animator.dispose(),
    };
  },
  /** three.js, scene IK on a moving, turning slope, feet lifting and planting, a hand holding an object. */
  async threeScene() {
    const { c, table, targets } = threeRig('walk');
    const animator = createThreeAnimator(c.root, { sceneIK: true });
    const drive = sceneDriver(animator.world);
    let f = 0;
    return {
      frame: () => { play(table, targets, f); drive.step(f++); animator.update(DT, drive.inputs); },
      check: () => animator.diagnostics().scene!.contacts.some((x) => x.locked && x.support >= 0),
      dispose: () => animator.dispose(),
    };
  },
  /** three.js, twelve characters with tails and scene IK sharing one world (updateAnimators). */
  async threeShared() {
    const world = createBitrigWorld();
    const rigs = Array.from({ length: 12 }, () => threeRig('walk'));
    const animators = rigs.map((r) => createThreeAnimator(r.c.root, { world, sceneIK: true }));
    const drives = animators.map((a) => { const d = sceneDriver(world); a.setSceneInputs(d.inputs); return d; });
    let f = 0;
    return {
      frame: () => {
        for (let i = 0; i < rigs.length; i++) { play(rigs[i]!.table, rigs[i]!.targets, f + i); drives[i]!.step(f + i); }
        f++;
        updateAnimators(animators, DT);
      },
      framesPerWindow: 250,
      dispose: () => { for (const a of animators) a.dispose(); },
    };
  },
  /**
   * A world of 200 six-link tails stepped with `update(world, dt)` once a frame, no adapter
   * (the benchmark's shape): a dispatcher run once a frame is left unoptimised by V8 for
   * thousands of frames, and unoptimised code boxes every number it reads (the tail step's
   * dispatcher read the step length: 16 B a frame).
   */
  async worldCrowd() {
    const world = createBitrigWorld();
    const names = ['Hips'], parents = [-1], worlds = [mat4.fromTranslation(mat4.create(), [0, 0.9, 0])];
    for (let i = 0; i < 6; i++) {
      names.push(`Tail_${i + 1}`);
      parents.push(i);
      worlds.push(mat4.fromTranslation(mat4.create(), [0, 0.85 - 0.07 * i, -0.1 - 0.12 * i]));
    }
    const src = sourceFromWorlds(names, parents, worlds);
    const hips: number[] = [];
    for (let c = 0; c < 200; c++) {
      const b = bindSkeleton(world, src);
      beginCharacterFrame(b);
      hips.push(b.slotOf[0]!);
    }
    // the hips sway for a second, then the frames run the systems alone (as `npm run bench`
    // measures them: the tails swing out and settle)
    const m = world.pose.worldM;
    for (let f = 0; f < 60; f++) {
      for (let c = 0; c < hips.length; c++) m[hips[c]! * 16 + 12] = (c % 20) * 2 + 0.25 * Math.sin(f * 0.15 + c);
      update(world, DT);
    }
    return {
      frame: () => update(world, DT),
      framesPerWindow: 250,
      check: () => world.clock[0] === DT,
      dispose: () => {},
    };
  },
  /** Babylon.js, tail and scene IK. */
  async babylonScene() {
    const data = createBuiltinCharacter();
    const engine = new NullEngine({ renderWidth: 64, renderHeight: 64, textureSize: 64, deterministicLockstep: false, lockstepMaxSteps: 1 });
    const scene = new Scene(engine);
    const container = await LoadAssetContainerAsync(await characterToGlb(data), scene, {
      pluginExtension: '.glb', pluginOptions: { gltf: { animationStartMode: 0 } },
    });
    container.addAllToScene();
    const skeleton = container.skeletons[0]!;
    const targets: (PoseTarget | null)[] = data.bones.map((b) => {
      const node = skeleton.bones.find((x) => x.name === b.name)?.getTransformNode();
      return node && node.rotationQuaternion ? { position: node.position, quaternion: node.rotationQuaternion } : null;
    });
    if (!targets.every((t) => t !== null)) throw new Error('scenarios: a bone without a transform node');
    const animator = createBabylonAnimator(container.meshes.find((x) => x.skeleton)!, { sceneIK: true });
    const drive = sceneDriver(animator.world);
    const table = playbackTable(data, 'walk');
    let f = 0;
    return {
      frame: () => { play(table, targets, f); drive.step(f++); animator.update(DT, drive.inputs); },
      check: () => animator.diagnostics().scene!.contacts.some((x) => x.locked && x.support >= 0),
      dispose: () => { animator.dispose(); engine.dispose(); },
    };
  },
};

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  for (const name of names.length ? names : Object.keys(SCENARIOS)) {
    const s = await SCENARIOS[name]!();
    const r = steadyAllocation(s.frame, { framesPerWindow: s.framesPerWindow ?? 1000 });
    let check = true;
    if (s.check) { check = false; for (let k = 0; k < 120 && !check; k++) { s.frame(); check = s.check(); } }
    s.dispose();
    process.stdout.write(JSON.stringify({ name, warmFrames: r.warmFrames, windows: r.windows, check }) + '\n');
  }
}

if (process.env.BITRIG_ALLOC_SCENARIOS === '1') void main().catch((e) => { console.error(e); process.exit(1); });
