/**
 * Fixtures and measures for one-shot (non-looping) clips in the bake tests, built in code:
 *
 * - {@link addFallClip}: a one-shot on the tiny critter (test/bake/fixtures.ts): over 1 s the
 *   hips roll 70° onto their side about the forward axis and sink 0.45 m while the legs fold
 *   (knees 70° and 80°), and stay there. Its last pose is far from its first; played as a loop the hips snap back.
 * - {@link addHoldClip}: a clip that holds another clip's first pose (t = 0; or its last) still, as long
 *   as the source lasts: every channel of the source gets two equal keys. Simulated as a loop
 *   (a code path that knows nothing of one-shots) until it closes, its keys are the tail
 *   settled on that pose: the reference a one-shot's first key is compared with. (Same
 *   duration, so the same internal step: the runtime's rest state depends on the step by up
 *   to ~1.4° on the Quaternius fox, e.g. 1/90 s against 1/60 s.)
 * - {@link tailKeyAngles}: per tail bone, the angle between one key of a bake and a reference.
 */
import type { Document } from '@gltf-transform/core';
import { quat } from 'gl-matrix';
import { createClipSampler, createLocalPose, findClip, readSceneGraph, sampleClip } from '../../rig/sample';
import type { TailCycle } from '../../rig/bake';

/**
 * Add the one-shot `fall` clip (1 s, 25 keys) to a critter document.
 *
 * @example
 * const c = makeCritter({ variant: 'chain' }); addFallClip(c.doc);
 */
export function addFallClip(doc: Document, name = 'fall'): void {
  const root = doc.getRoot();
  const node = (n: string) => root.listNodes().find((x) => x.getName() === n)!;
  const buffer = root.listBuffers()[0]!;
  const keys = 25;
  const times = new Float32Array(keys);
  for (let i = 0; i < keys; i++) times[i] = i / (keys - 1);
  const ease = (t: number): number => t * t * (3 - 2 * t);
  const rot = (ax: [number, number, number], deg: number): number[] => Array.from(quat.setAxisAngle(quat.create(), ax, (deg * Math.PI) / 180));
  const tracks: { node: string; path: 'translation' | 'rotation'; f: (t: number) => number[] }[] = [
    { node: 'Hips', path: 'translation', f: (t) => [0.1 * ease(t), 1.0 - 0.45 * ease(t), 0] },
    { node: 'Hips', path: 'rotation', f: (t) => rot([0, 0, 1], 70 * ease(t)) },
    { node: 'LeftUpLeg', path: 'rotation', f: (t) => rot([1, 0, 0], -50 * ease(t)) },
    { node: 'LeftLeg', path: 'rotation', f: (t) => rot([1, 0, 0], 80 * ease(t)) },
    { node: 'RightUpLeg', path: 'rotation', f: (t) => rot([1, 0, 0], -40 * ease(t)) },
    { node: 'RightLeg', path: 'rotation', f: (t) => rot([1, 0, 0], 70 * ease(t)) },
  ];
  const anim = doc.createAnimation(name);
  const input = doc.createAccessor(`${name}_t`, buffer).setType('SCALAR').setArray(times.slice());
  for (const tr of tracks) {
    const vals: number[] = [];
    for (let i = 0; i < keys; i++) vals.push(...tr.f(times[i]!));
    const out = doc.createAccessor(`${name}_${tr.node}_${tr.path}`, buffer).setType(tr.path === 'rotation' ? 'VEC4' : 'VEC3').setArray(new Float32Array(vals));
    const s = doc.createAnimationSampler().setInput(input).setOutput(out).setInterpolation('LINEAR');
    anim.addSampler(s);
    anim.addChannel(doc.createAnimationChannel().setSampler(s).setTargetNode(node(tr.node)).setTargetPath(tr.path));
  }
}

/**
 * Add a clip holding `from`'s first pose (or with `at: 'end'` its last pose) still (every
 * channel of `from`, two equal keys at 0 and `seconds`, default: the duration of `from`).
 *
 * @example
 * addHoldClip(doc, 'Death', 'DeathHold');
 */
export function addHoldClip(doc: Document, from: string, name: string, seconds?: number, at: 'start' | 'end' = 'start'): void {
  const graph = readSceneGraph(doc);
  const src = findClip(doc, from);
  const pose = createLocalPose(graph);
  const sampler = createClipSampler(graph, src);
  sampleClip(sampler, graph, at === 'start' ? 0 : sampler.duration, pose);
  seconds ??= sampler.duration;
  const buffer = doc.getRoot().listBuffers()[0]!;
  const anim = doc.createAnimation(name);
  const input = doc.createAccessor(`${name}_t`, buffer).setType('SCALAR').setArray(new Float32Array([0, seconds]));
  for (const ch of src.listChannels()) {
    const n = ch.getTargetNode();
    const path = ch.getTargetPath();
    if (!n || !(path === 'translation' || path === 'rotation' || path === 'scale')) continue;
    const i = graph.index.get(n)!;
    const v = path === 'rotation' ? Array.from(pose.r.subarray(4 * i, 4 * i + 4)) : Array.from((path === 'translation' ? pose.t : pose.s).subarray(3 * i, 3 * i + 3));
    const out = doc.createAccessor(`${name}_${n.getName()}_${path}`, buffer).setType(path === 'rotation' ? 'VEC4' : 'VEC3').setArray(new Float32Array([...v, ...v]));
    const s = doc.createAnimationSampler().setInput(input).setOutput(out).setInterpolation('LINEAR');
    anim.addSampler(s);
    anim.addChannel(doc.createAnimationChannel().setSampler(s).setTargetNode(n).setTargetPath(path));
  }
}

/**
 * Per tail bone of `a`, the angle (degrees) between key `ka` of `a` and key `kb` of `b`
 * (same bones in the same order).
 *
 * @example
 * const off = tailKeyAngles(once, 0, hold, hold.times.length - 1);
 */
export function tailKeyAngles(a: TailCycle, ka: number, b: TailCycle, kb: number): number[] {
  const L = a.bones.length;
  if (b.bones.join() !== a.bones.join()) throw new Error('tailKeyAngles: different bones');
  const out: number[] = [];
  for (let i = 0; i < L; i++) {
    const p = 4 * (ka * L + i), q = 4 * (kb * L + i);
    const d = Math.abs(a.rotations[p]! * b.rotations[q]! + a.rotations[p + 1]! * b.rotations[q + 1]! + a.rotations[p + 2]! * b.rotations[q + 2]! + a.rotations[p + 3]! * b.rotations[q + 3]!);
    out.push((2 * Math.acos(Math.min(1, d)) * 180) / Math.PI);
  }
  return out;
}

/**
 * Add the one-shot `drop` clip (0.25 s, 7 keys) to a critter document: the hips sink 0.4 m and
 * roll 60° at a constant rate and stop dead, so the tail is still swinging at the last key.
 *
 * @example
 * const c = makeCritter({ variant: 'chain' }); addDropClip(c.doc);
 */
export function addDropClip(doc: Document, name = 'drop'): void {
  const root = doc.getRoot();
  const node = (n: string) => root.listNodes().find((x) => x.getName() === n)!;
  const buffer = root.listBuffers()[0]!;
  const times = Float32Array.from({ length: 7 }, (_, i) => (i * 0.25) / 6);
  const anim = doc.createAnimation(name);
  const input = doc.createAccessor(`${name}_t`, buffer).setType('SCALAR').setArray(times);
  const tracks: { node: string; path: 'translation' | 'rotation'; f: (u: number) => number[] }[] = [
    { node: 'Hips', path: 'translation', f: (u) => [0, 1.0 - 0.4 * u, 0] },
    { node: 'Hips', path: 'rotation', f: (u) => Array.from(quat.setAxisAngle(quat.create(), [0, 0, 1], (60 * u * Math.PI) / 180)) },
  ];
  for (const tr of tracks) {
    const vals: number[] = [];
    for (const t of times) vals.push(...tr.f(t / 0.25));
    const out = doc.createAccessor(`${name}_${tr.node}_${tr.path}`, buffer).setType(tr.path === 'rotation' ? 'VEC4' : 'VEC3').setArray(new Float32Array(vals));
    const s = doc.createAnimationSampler().setInput(input).setOutput(out).setInterpolation('LINEAR');
    anim.addSampler(s);
    anim.addChannel(doc.createAnimationChannel().setSampler(s).setTargetNode(node(tr.node)).setTargetPath(tr.path));
  }
}
