/**
 * The scene page's characters: two copies of the built-in critter (the `chain` variant) —
 * the base pose (the clip through a plain mixer) and the corrected one (bitrig's three.js
 * animator with `sceneIK` on: soles calibrated from the mesh's skin, limbs found by name,
 * and the tail). Also: an idle clip made in code, and the walk's stance weights read off the
 * clip (the game supplies timing; the IK never infers it).
 */
import {
  type AnimationAction, AnimationClip, AnimationMixer, type Bone, Quaternion, QuaternionKeyframeTrack, Vector3,
  VectorKeyframeTrack, type Object3D,
} from 'three';
import { characterToThree, createAnimator, type Animator, type ThreeCharacter } from '../../adapters/three/index';
import type { CharacterData } from '../../core/character/index';
import { sceneDiagnostics, type SceneDiagnostics, type SceneIKHandle, type SceneInputs } from '../../core/sceneIK';
import { stepAnimator } from './animate';

/** One copy on the scene page. */
export interface SceneCopy {
  /** three.js objects (root group, mesh, bones, clips). */
  c: ThreeCharacter;
  /** Its mixer. */
  mixer: AnimationMixer;
  /** All clips (the character's plus `idle`). */
  clips: AnimationClip[];
  /** The playing action. */
  action: AnimationAction | null;
  /** bitrig's animator (corrected copy only). */
  animator: Animator | null;
  /** Scene IK (corrected copy only). */
  ik: SceneIKHandle | null;
  /** Bones by name. */
  bone: (name: string) => Bone;
  /** Play a clip by name, from the bind pose (a stopped clip leaves its last pose on the bones it keyed). */
  play(name: string): void;
  /** Set every object's layer (base 1, corrected 2). */
  setLayer(layer: number): void;
}

/**
 * Idle: a slow weight shift — hips ±5 cm sideways with a little roll, a breath of bob. Keys
 * only the hips, like a clip that leaves the feet to the IK (the base pose's feet slide with
 * the hips; planted feet stay).
 */
export function makeIdleClip(data: CharacterData): AnimationClip {
  const hips = data.bones.find((b) => b.name === 'Hips');
  if (!hips) throw new Error('bitrig demo: the character has no Hips bone');
  const T = 3, n = 90;
  const times: number[] = [], pos: number[] = [], rot: number[] = [];
  const bindR = new Quaternion(hips.r[0], hips.r[1], hips.r[2], hips.r[3]);
  const roll = new Quaternion();
  const q = new Quaternion();
  const zAxis = new Vector3(0, 0, 1);
  for (let i = 0; i <= n; i++) {
    const t = (i / n) * T;
    const p = (2 * Math.PI * t) / T;
    times.push(t);
    pos.push(hips.t[0] + 0.05 * Math.sin(p), hips.t[1] - 0.012 * (1 - Math.cos(2 * p)) / 2, hips.t[2]);
    roll.setFromAxisAngle(zAxis, (-3.5 * Math.PI / 180) * Math.sin(p));
    q.copy(roll).multiply(bindR);
    rot.push(q.x, q.y, q.z, q.w);
  }
  return new AnimationClip('idle', T, [
    new VectorKeyframeTrack('Hips.position', times, pos),
    new QuaternionKeyframeTrack('Hips.quaternion', times, rot),
  ]);
}

/**
 * Build a copy. `corrected` adds bitrig's animator (tail on) and scene IK.
 *
 * @example
 * const base = makeSceneCopy(data, false);
 * const fixed = makeSceneCopy(data, true);
 */
export function makeSceneCopy(data: CharacterData, corrected: boolean): SceneCopy {
  const c = characterToThree(data);
  const clips = [...c.clips, makeIdleClip(data)];
  const mixer = new AnimationMixer(c.root);
  const byName = new Map(c.bones.map((b) => [b.name, b] as const));
  const bone = (name: string): Bone => {
    const b = byName.get(name);
    if (!b) throw new Error(`bitrig demo: no bone ${name}`);
    return b;
  };
  const animator: Animator | null = corrected ? createAnimator(c.root, { mixer, tail: { restSource: 'bind' }, sceneIK: true }) : null;
  const ik: SceneIKHandle | null = animator?.sceneIK ?? null;
  if (corrected && !ik) throw new Error('bitrig demo: scene IK did not attach to the critter');
  const bind = c.bones.map((b) => ({ p: b.position.clone(), q: b.quaternion.clone(), s: b.scale.clone() }));
  const copy: SceneCopy = {
    c, mixer, clips, action: null, animator, ik, bone,
    play(name: string) {
      mixer.stopAllAction();
      c.bones.forEach((b, i) => { b.position.copy(bind[i]!.p); b.quaternion.copy(bind[i]!.q); b.scale.copy(bind[i]!.s); });
      // A driven bone the engine leaves as bitrig wrote it counts as the last read's animation:
      // read once so that is the bind pose just set, not the old clip's.
      animator?.read();
      const clip = clips.find((k) => k.name === name) ?? clips[0]!;
      copy.action = mixer.clipAction(clip);
      copy.action.play();
    },
    setLayer(layer: number) {
      c.root.traverse((o: Object3D) => o.layers.set(layer));
    },
  };
  return copy;
}

/**
 * One corrected frame: the animator with this frame's scene inputs (mixer → read → inputs →
 * bitrig → write). Returns the scene diagnostics, refilled in place.
 *
 * @example
 * stepCorrected(copy, dt, true, { feet: [1, 1], ground }, diag);
 */
export function stepCorrected(copy: SceneCopy, dt: number, tailPhysics: boolean, inputs: SceneInputs, out?: SceneDiagnostics): SceneDiagnostics | null {
  if (!copy.animator || !copy.ik) return null;
  stepAnimator(copy.animator, dt, tailPhysics, inputs);
  return sceneDiagnostics(copy.animator.world, copy.ik, out);
}

/** Stance weights of a gait clip per foot, read off the clip, and the body speed that keeps a planted foot still. */
export interface GaitTiming {
  /** Clip length (s). */
  duration: number;
  /** Forward speed (m/s) at which a stance foot stays put. */
  speed: number;
  /** Stance weight of foot `side` (0 left, 1 right) at clip time t. */
  stance(t: number, side: 0 | 1): number;
}

const smooth = (a: number, b: number, x: number): number => {
  const u = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return u * u * (3 - 2 * u);
};

/**
 * Read a gait's timing off the clip: a foot is in stance from when it stops moving forward
 * under the body until its toe leaves the ground; the body speed is the stride the feet
 * sweep per cycle, 2·(z_max − z_min)/D. Setup-time (allocates).
 *
 * @example
 * const gait = analyzeGait(data, 'walk'); gait.stance(0.25, 0);
 */
export function analyzeGait(data: CharacterData, clipName: string, samples = 120): GaitTiming {
  const c = characterToThree(data);
  const clip = c.clips.find((k) => k.name === clipName);
  if (!clip) throw new Error(`bitrig demo: no clip ${clipName}`);
  const mixer = new AnimationMixer(c.root);
  mixer.clipAction(clip).play();
  const bone = (n: string): Bone => {
    const b = c.bones.find((x) => x.name === n);
    if (!b) throw new Error(`bitrig demo: no bone ${n}`);
    return b;
  };
  const ankles = [bone('LeftFoot'), bone('RightFoot')];
  const toes = [bone('LeftToeBase'), bone('RightToeBase')];
  const D = clip.duration;
  const toeY = [new Float64Array(samples), new Float64Array(samples)];
  const z = [new Float64Array(samples), new Float64Array(samples)];
  const p = new Vector3();
  for (let i = 0; i < samples; i++) {
    mixer.setTime((i / samples) * D);
    c.root.updateMatrixWorld(true);
    for (let s = 0; s < 2; s++) {
      z[s]![i] = ankles[s]!.getWorldPosition(p).z;
      toeY[s]![i] = toes[s]!.getWorldPosition(p).y;
    }
  }
  const table = [new Float64Array(samples), new Float64Array(samples)];
  let stride = 0;
  for (let s = 0; s < 2; s++) {
    let vmax = 0, ymin = Infinity, zmin = Infinity, zmax = -Infinity;
    const vz = new Float64Array(samples);
    for (let i = 0; i < samples; i++) {
      const a = z[s]![(i + samples - 1) % samples]!, b = z[s]![(i + 1) % samples]!;
      vz[i] = (b - a) / ((2 * D) / samples);
      vmax = Math.max(vmax, Math.abs(vz[i]!));
      ymin = Math.min(ymin, toeY[s]![i]!);
      zmin = Math.min(zmin, z[s]![i]!); zmax = Math.max(zmax, z[s]![i]!);
    }
    stride += (zmax - zmin) / 2;
    for (let i = 0; i < samples; i++) {
      const back = smooth(-0.3 * vmax, 0.05 * vmax, -vz[i]!);
      const low = 1 - smooth(0.015, 0.035, toeY[s]![i]! - ymin);
      table[s]![i] = back * low;
    }
  }
  const speed = (2 * stride) / D;
  return {
    duration: D,
    speed,
    stance(t: number, side: 0 | 1) {
      const u = ((((t % D) + D) % D) / D) * samples;
      const i = Math.floor(u), f = u - i;
      const tb = table[side]!;
      return tb[i % samples]! * (1 - f) + tb[(i + 1) % samples]! * f;
    },
  };
}
