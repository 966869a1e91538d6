/**
 * The scenarios of test/alloc/steadyState.test.ts, run as a plain Node program from one esbuild
 * bundle of bitrig's sources (as a game's bundler would ship them; vitest's module runner
 * reaches every import through a getter, which changes what V8 inlines). Prints one JSON
 * line per scenario: { name, warmFrames, windows, check }.
 *
 *   node scenarios.mjs [name…]
 */
import { linkEl } from '../../core/components/tail';
import { AnimationMixer, QuaternionKeyframeTrack, type Bone } from 'three';
import { createAnimator as createThreeAnimator, characterToThree, updateAnimators } from '../../adapters/three';
import { createAnimator as createBabylonAnimator } from '../../adapters/babylon';
import { createBuiltinCharacter, createCharacterClipSampler, characterBindPose, sampleCharacterClip } from '../../core/character';
import type { CharacterClip, CharacterData } from '../../core/character/types';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { addSceneIK, addSupport, setSceneInputs, setSupportFrame, type GroundHit, type HandTargetInput, type SceneIKHandle, type SceneInputs } from '../../core/sceneIK';
import { characterToGlb } from '../../rig/characterDocument';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine';
import { Scene } from '@babylonjs/core/scene';
import { LoadAssetContainerAsync } from '@babylonjs/core/Loading/sceneLoader';
import '@babylonjs/loaders/glTF';
import { steadyAllocation } from '../../bench/alloc';
import { mat4, quat } from 'gl-matrix';
import { bindSkeleton, beginCharacterFrame, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { CLOCK } from '../../core/components/tail';
import { tailLinkIndex } from '../../core/tailSetup';
import { sourceFromWorlds } from '../helpers/skeleton';
import { characterSource } from '../helpers/characterSource';

const DT = 1 / 60;
const FRAMES = 120; // two seconds of clip in the playback table

/** Local TRS of every bone for FRAMES frames of a clip (setup: allocates). */
function playbackTable(data: CharacterData, clip: string | CharacterClip): { t: Float64Array; r: Float64Array; n: number } {
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

/** Copy frame `f` of the table onto engine targets through their setters (Babylon.js; per frame: no allocation). */
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

/** three.js's Quaternion fields (the adapter's copies use them too: see adapters/three/animator.ts). */
interface QuaternionFields { _x: number; _y: number; _z: number; _w: number; _onChangeCallback(): void }

/**
 * Copy frame `f` of the table onto three.js bones (per frame: no allocation). Field by field,
 * as the adapter does: through `set(…)` each number crosses a call, and when V8 leaves the
 * call un-inlined the numbers are boxed, so the test's own playback could allocate.
 */
function playThree(table: { t: Float64Array; r: Float64Array; n: number }, bones: readonly (Bone | null)[], f: number): void {
  const { t, r, n } = table;
  const k = f % FRAMES;
  for (let i = 0; i < n; i++) {
    const b = bones[i];
    if (!b) continue;
    const o3 = (k * n + i) * 3, o4 = (k * n + i) * 4;
    const p = b.position;
    p.x = t[o3]!; p.y = t[o3 + 1]!; p.z = t[o3 + 2]!;
    const q = b.quaternion as unknown as QuaternionFields;
    q._x = r[o4]!; q._y = r[o4 + 1]!; q._z = r[o4 + 2]!; q._w = r[o4 + 3]!;
    q._onChangeCallback();
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
  return { data, c, table: playbackTable(data, clip), targets: c.bones as (Bone | null)[] };
}

/**
 * A copy of `base` that also keys Tail_1 and Tail_2 (a sway of ±0.4 rad about x on their bind
 * rotation, five keys: the rest the tail rides on changes every frame). Setup: allocates.
 */
function tailKeyedClip(data: CharacterData, base: string): CharacterClip {
  const clip = data.clips.find((c) => c.name === base)!;
  const tracks = clip.tracks.slice();
  const d = clip.duration;
  for (const [name, amp] of [['Tail_1', 0.4], ['Tail_2', -0.3]] as const) {
    const b = data.bones.find((x) => x.name === name)!;
    const times = new Float32Array(5), values = new Float32Array(20);
    for (let k = 0; k < 5; k++) {
      times[k] = (k * d) / 4;
      const a = amp * Math.sin((k * Math.PI) / 2);
      const q = quat.multiply(quat.create(), quat.setAxisAngle(quat.create(), [1, 0, 0], a), b.r as unknown as quat);
      values.set(q, k * 4);
    }
    tracks.push({ bone: name, path: 'rotation', interpolation: 'LINEAR', times, values });
  }
  return { name: `${base}+tail`, duration: d, tracks };
}

/**
 * Play frame `f` of a table straight into the pose store for a binding bound from
 * {@link characterSource} (what an adapter's read does), with the root frame at
 * (rootXz[0], 0, rootXz[1]) (numbers through an array: a double passed to a call V8 does not
 * inline is boxed), then recompute its world matrices (per frame: no allocation).
 */
function playIntoPose(table: { t: Float64Array; r: Float64Array; n: number }, b: CharacterBinding, f: number, rootXz: Float64Array): void {
  const pose = b.world.pose;
  const { t, r, n } = table;
  const k = f % FRAMES;
  const slotOf = b.slotOf;
  for (let i = 0; i < n; i++) {
    const s = slotOf[i]!, o3 = (k * n + i) * 3, o4 = (k * n + i) * 4;
    pose.localT[s * 3] = t[o3]!; pose.localT[s * 3 + 1] = t[o3 + 1]!; pose.localT[s * 3 + 2] = t[o3 + 2]!;
    pose.localR[s * 4] = r[o4]!; pose.localR[s * 4 + 1] = r[o4 + 1]!; pose.localR[s * 4 + 2] = r[o4 + 2]!; pose.localR[s * 4 + 3] = r[o4 + 3]!;
    pose.localS[s * 3] = 1; pose.localS[s * 3 + 1] = 1; pose.localS[s * 3 + 2] = 1;
  }
  // (no second loop: V8 may compile a function for on-stack replacement at a later, short
  // loop and then leave the bone loop above unoptimised for thousands of frames)
  const m = b.charId * 16, W = pose.charRootWs;
  W[m] = 1; W[m + 1] = 0; W[m + 2] = 0; W[m + 3] = 0; W[m + 4] = 0; W[m + 5] = 1; W[m + 6] = 0; W[m + 7] = 0;
  W[m + 8] = 0; W[m + 9] = 0; W[m + 10] = 1; W[m + 11] = 0; W[m + 12] = rootXz[0]!; W[m + 13] = 0; W[m + 14] = rootXz[1]!; W[m + 15] = 1;
  beginCharacterFrame(b);
}


/**
 * The built-in character under a three.js animator that wraps a mixer it never advances
 * (`updateMixer: false`): a walk with a Tail_1 key (played), a copy of it marked as baked by
 * bitrig at `bakedWeight`, a crouch played but disabled. The table (walk with the tail keyed)
 * is what the frames play onto the bones. `tail3Off(f)`: how far Tail_3 is from frame f of the
 * table (sum of quaternion component differences).
 */
function mixerRig(bakedWeight: number) {
  const data = createBuiltinCharacter();
  const c = characterToThree(data);
  const table = playbackTable(data, tailKeyedClip(data, 'walk'));
  const targets = c.bones as (Bone | null)[];
  const mixer = new AnimationMixer(c.root);
  const walk = c.clips.find((k) => k.name === 'walk')!.clone();
  const t1 = c.bones.find((b) => b.name === 'Tail_1')!.quaternion.toArray();
  walk.tracks.push(new QuaternionKeyframeTrack('Tail_1.quaternion', [0, walk.duration], [...t1, ...t1]));
  const baked = walk.clone();
  baked.name = 'walk (baked)';
  baked.userData = { bitrigBaked: true };
  mixer.clipAction(walk).play();
  mixer.clipAction(baked).play().setEffectiveWeight(bakedWeight);
  const crouch = mixer.clipAction(c.clips.find((k) => k.name === 'crouch')!).play();
  crouch.enabled = false;
  const animator = createThreeAnimator(c.root, { mixer, updateMixer: false });
  const tail3 = data.bones.findIndex((b) => b.name === 'Tail_3');
  const q = c.bones[tail3]!.quaternion;
  const tail3Off = (f: number): number => {
    const k = ((f % FRAMES) * table.n + tail3) * 4;
    return Math.abs(q.x - table.r[k]!) + Math.abs(q.y - table.r[k + 1]!) + Math.abs(q.z - table.r[k + 2]!) + Math.abs(q.w - table.r[k + 3]!);
  };
  return { mixer, animator, table, targets, tail3Off };
}

/** One scenario: setup, then a frame function; `check` runs after the measurement, after each of up to `checkFrames` (120) more frames, until true (the path really ran). */
type Scenario = () => Promise<{ frame: () => void; check?: () => boolean; checkFrames?: number; framesPerWindow?: number; dispose(): void }>;

export const SCENARIOS: Record<string, Scenario> = {
  /** three.js, tail on the WebAssembly step, a walk. */
  async threeTailWasm() {
    const { c, table, targets } = threeRig('walk');
    const animator = createThreeAnimator(c.root);
    let f = 0;
    return { frame: () => { playThree(table, targets, f++); animator.update(DT); }, dispose: () => animator.dispose() };
  },
  /** three.js on a world passed in, a hip sweep (bend limit and coupling at work). */
  async threeTailJs() {
    const { c, table, targets } = threeRig('hipSweep');
    const animator = createThreeAnimator(c.root, { world: createBitrigWorld() });
    let f = 0;
    return { frame: () => { playThree(table, targets, f++); animator.update(DT); }, dispose: () => animator.dispose() };
  },
  /** three.js, a limp tail on the floor while crouching (floor contact every frame). */
  async threeTailFloor() {
    const { c, table, targets } = threeRig('crouch');
    const animator = createThreeAnimator(c.root, { tail: { gravity: 9.8, carry: 0, restCurve: 1 } });
    let f = 0;
    return {
      frame: () => { playThree(table, targets, f++); animator.update(DT); },
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
      frame: () => { playThree(table, targets, f); drive.step(f++); animator.update(DT, drive.inputs); },
      check: () => animator.diagnostics().scene!.contacts.some((x) => x.locked && x.support >= 0),
      dispose: () => animator.dispose(),
    };
  },
  /**
   * three.js, twelve characters with tails and scene IK sharing one world (updateAnimators),
   * each given its scene inputs every frame before the update (the stance weights and the held
   * object's target change every frame: given once, only the ground callback and the platform
   * moved).
   */
  async threeShared() {
    const world = createBitrigWorld();
    const rigs = Array.from({ length: 12 }, () => threeRig('walk'));
    const animators = rigs.map((r) => createThreeAnimator(r.c.root, { world, sceneIK: true }));
    const drives = animators.map(() => sceneDriver(world));
    let f = 0;
    return {
      frame: () => {
        for (let i = 0; i < rigs.length; i++) { playThree(rigs[i]!.table, rigs[i]!.targets, f + i); drives[i]!.step(f + i); animators[i]!.setSceneInputs(drives[i]!.inputs); }
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
      // (the 200 chains are live and the last frame stepped them)
      check: () => world.queries.tails.dense.length === 200 && world.clock[CLOCK.STEPS] === 1,
      dispose: () => {},
    };
  },
  /**
   * three.js, a clip that keys the tail (Tail_1 and Tail_2 sway), the chains on
   * `restSource: 'animation'`: the rest the spring pulls toward is read from the bones every
   * frame. Check: the first link's rest equals the key played this frame (1e-9) while the key
   * is away from the bind rotation.
   */
  async threeTailRestAnim() {
    const data = createBuiltinCharacter();
    const c = characterToThree(data);
    const table = playbackTable(data, tailKeyedClip(data, 'walk'));
    const targets = c.bones as (Bone | null)[];
    const animator = createThreeAnimator(c.root, { tail: { restSource: 'animation' } });
    const tail1 = data.bones.findIndex((b) => b.name === 'Tail_1');
    const bind1 = data.bones[tail1]!.r;
    let f = 0;
    return {
      frame: () => { playThree(table, targets, f++); animator.update(DT); },
      check: () => {
        if (animator.diagnostics().tails[0]!.restSource !== 'animation') return false;
        const B = animator.world.components.BendState;
        const r0 = tailLinkIndex(animator.world, animator.bindings[0]!.tails[0]!.eid, 0);
        const k = (((f - 1) % FRAMES) * table.n + tail1) * 4;
        let same = true, dot = 0;
        for (let j = 0; j < 4; j++) { same &&= Math.abs(B.restR[linkEl(r0, 4, j)]! - table.r[k + j]!) < 1e-7; dot += table.r[k + j]! * bind1[j]!; }
        return same && 2 * Math.acos(Math.min(1, Math.abs(dot))) > 0.1;
      },
      dispose: () => animator.dispose(),
    };
  },
  /**
   * three.js, a walk that leaves the tail bones alone (the table writes no Tail_* bone): the
   * `'auto'` rest source compares them with what bitrig wrote and stays on `'bind'` (every
   * other three.js scenario writes the tail bones from the table, so it is on `'animation'`).
   * Check: 'bind', and the tail moves (the first link's rotation is away from its bind rest).
   */
  async threeTailRestBind() {
    const { data, c, table, targets } = threeRig('walk');
    const notTail = targets.map((b) => (b && /^Tail_/.test(b.name) ? null : b));
    const animator = createThreeAnimator(c.root);
    const tail1 = c.bones.find((b) => b.name === 'Tail_1')!;
    const bind1 = data.bones.find((b) => b.name === 'Tail_1')!.r;
    let f = 0;
    return {
      frame: () => { playThree(table, notTail, f++); animator.update(DT); },
      check: () => {
        const q = tail1.quaternion;
        const dot = Math.abs(q.x * bind1[0] + q.y * bind1[1] + q.z * bind1[2] + q.w * bind1[3]);
        return animator.diagnostics().tails[0]!.restSource === 'bind' && 2 * Math.acos(Math.min(1, dot)) > 0.01;
      },
      dispose: () => animator.dispose(),
    };
  },
  /**
   * three.js scene IK, the input variants the other scenarios do not give: the left hand at a
   * moving target with an elbow pole and no grip (position only), the right hand with a
   * rotation and a target that is NaN every other second (invalid: the animation is kept),
   * `grounded` false and true in turn every 2 s (the fade), `balance` a number, no ground
   * callback (the flat floor). Check (over up to 300 frames): the left hand solved with its
   * pole, the right seen invalid and valid, the grounded fade seen partway both ways, the
   * balance input taken, every bone finite.
   */
  async threeSceneVariants() {
    const { c, table, targets } = threeRig('walk');
    const animator = createThreeAnimator(c.root, { sceneIK: true });
    const world = animator.world;
    const feet = new Float64Array(2);
    const leftPos = new Float64Array(3), leftPole = new Float64Array(3);
    const rightPos = new Float64Array(3), rightRot = new Float64Array([0, 0, Math.sin(0.3), Math.cos(0.3)]);
    const left: HandTargetInput = { position: leftPos, pole: leftPole, weight: 1 };
    const right: HandTargetInput = { position: rightPos, rotation: rightRot, weight: 0.8 };
    const inputs: SceneInputs = { feet, hands: [left, right], grounded: true, balance: 0.5, ground: null };
    let f = 0;
    const frame = (): void => {
      playThree(table, targets, f);
      const a = f * DT;
      feet[0] = 0.5 + 0.5 * Math.sin(a * 4); feet[1] = 0.5 - 0.5 * Math.sin(a * 4);
      leftPos[0] = -0.3 - 0.1 * Math.sin(a); leftPos[1] = 1.0 + 0.1 * Math.cos(a * 1.7); leftPos[2] = 0.2;
      leftPole[0] = -0.6; leftPole[1] = 1.0 + 0.2 * Math.sin(a * 0.5); leftPole[2] = -0.4;
      const bad = Math.floor(f / 60) % 2 === 1;
      rightPos[0] = bad ? NaN : 0.3 + 0.1 * Math.sin(a * 1.1); rightPos[1] = 1.1; rightPos[2] = 0.25;
      inputs.grounded = Math.floor(f / 120) % 2 === 0;
      inputs.balance = 0.5 + 0.5 * Math.sin(a * 0.3);
      f++;
      animator.update(DT, inputs);
    };
    const sc = animator.sceneIK!;
    const eL = sc.arms[0]!.eid, eC = sc.eid;
    let invalidSeen = false, validSeen = false, fadeDown = false, fadeUp = false, prevBlend = NaN;
    return {
      frame,
      checkFrames: 300,
      check: () => {
        const d = animator.diagnostics().scene!;
        const H = world.components.HandTarget, SC = world.components.SceneCharacter;
        if (!c.bones.every((b) => Number.isFinite(b.quaternion.x + b.quaternion.y + b.quaternion.z + b.quaternion.w + b.position.x + b.position.y + b.position.z))) return false;
        if (d.hands[1]!.invalid) invalidSeen = true; else if (d.hands[1]!.weight > 0) validSeen = true;
        const g = SC.groundBlend[eC]!;
        if (g > 0.05 && g < 0.95) { if (g < prevBlend) fadeDown = true; if (g > prevBlend) fadeUp = true; }
        prevBlend = g;
        const leftOk = H.hasPole[eL] === 1 && H.hasGrip[eL] === 0 && H.hasRot[eL] === 0 && d.hands[0]!.weight === 1;
        return leftOk && invalidSeen && validSeen && fadeDown && fadeUp && SC.balanceInput[eC]! >= 0;
      },
      dispose: () => animator.dispose(),
    };
  },
  /**
   * three.js animator wrapping a real AnimationMixer with `updateMixer: false`: the mixer's
   * actions stay active but the mixer is never advanced (the table is played onto the bones),
   * so only the adapter's per-frame mixer hooks run: the animated-bone flags (a walk that keys
   * the tail, so 'auto' goes to 'animation' from the flags; a crouch played but disabled) and
   * the baked-clip test (a copy of the walk marked `bitrigBaked`, at weight 0: it does not
   * count). Check: the rest source is 'animation', the tail simulates (Tail_3 away from the
   * clip's pose), the mixer never advanced.
   */
  async threeMixer() {
    const m = mixerRig(0);
    let f = 0;
    return {
      frame: () => { playThree(m.table, m.targets, f++); m.animator.update(DT); },
      check: () => m.animator.diagnostics().tails[0]!.restSource === 'animation' && m.tail3Off(f - 1) > 1e-4 && m.mixer.time === 0,
      dispose: () => m.animator.dispose(),
    };
  },
  /**
   * The same with the baked copy at weight 1: a baked clip plays, so every frame the animator
   * shows the clip's tail keys as they are (the tail's rest written before the systems, the
   * keys after). Check: Tail_3 exactly as played, the mixer never advanced.
   */
  async threeMixerBaked() {
    const m = mixerRig(1);
    let f = 0;
    return {
      frame: () => { playThree(m.table, m.targets, f++); m.animator.update(DT); },
      check: () => m.tail3Off(f - 1) === 0 && m.mixer.time === 0,
      dispose: () => m.animator.dispose(),
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
    if (s.check) { check = false; for (let k = 0; k < (s.checkFrames ?? 120) && !check; k++) { s.frame(); check = s.check(); } }
    s.dispose();
    process.stdout.write(JSON.stringify({ name, warmFrames: r.warmFrames, windows: r.windows, framesPerWindow: r.framesPerWindow, check }) + '\n');
  }
}

if (process.env.BITRIG_ALLOC_SCENARIOS === '1') void main().catch((e) => { console.error(e); process.exit(1); });
