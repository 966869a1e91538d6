/**
 * Clip sampling in Node (rig/sample.ts): STEP, LINEAR and CUBICSPLINE on translation,
 * rotation and scale, normalised-integer outputs, clamping outside the keys, and agreement
 * with three.js's AnimationMixer on a real clip.
 */
import { describe, expect, it } from 'vitest';
import { Document, NodeIO } from '@gltf-transform/core';
import { AnimationMixer, type Object3D, PropertyBinding } from 'three';
import { quat } from 'gl-matrix';
import {
  computeWorldMatrices, createClipSampler, createLocalPose, findClip, listClipNames, readSceneGraph, sampleClip,
} from '../../rig/sample';
import { assetBytes, loadAsset } from '../fixtures/assets';
import { loadGlbThree } from '../helpers/loadThree';

function docWith(channels: { path: 'translation' | 'rotation' | 'scale'; interp: 'STEP' | 'LINEAR' | 'CUBICSPLINE'; times: number[]; values: ArrayLike<number>; normalized?: boolean }[]) {
  const doc = new Document();
  const buf = doc.createBuffer();
  const parent = doc.createNode('Parent').setTranslation([0, 2, 0]).setRotation([0, Math.SQRT1_2, 0, Math.SQRT1_2]).setScale([2, 2, 2]);
  const node = doc.createNode('Bone').setTranslation([1, 0, 0]);
  parent.addChild(node);
  doc.createScene().addChild(parent);
  const anim = channels.length > 0 ? doc.createAnimation('clip') : null;
  for (const c of channels) {
    const input = doc.createAccessor('', buf).setType('SCALAR').setArray(new Float32Array(c.times));
    const arr = c.values instanceof Int16Array ? c.values : new Float32Array(Array.from(c.values));
    const output = doc.createAccessor('', buf).setType(c.path === 'rotation' ? 'VEC4' : 'VEC3').setArray(arr).setNormalized(!!c.normalized);
    const s = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation(c.interp);
    anim!.addSampler(s).addChannel(doc.createAnimationChannel().setSampler(s).setTargetNode(node).setTargetPath(c.path));
  }
  return { doc, node };
}

const deg = (q: ArrayLike<number>): number => (2 * Math.acos(Math.min(1, Math.abs(q[3]!))) * 180) / Math.PI;

describe('clip sampling (glTF samplers)', () => {
  it('LINEAR lerps vectors and slerps rotations; values clamp outside the keys', () => {
    const q90 = quat.setAxisAngle(quat.create(), [0, 1, 0], Math.PI / 2);
    const { doc } = docWith([
      { path: 'translation', interp: 'LINEAR', times: [0, 1], values: [0, 0, 0, 2, 4, 6] },
      { path: 'rotation', interp: 'LINEAR', times: [0, 1], values: [0, 0, 0, 1, ...q90] },
    ]);
    const g = readSceneGraph(doc);
    const s = createClipSampler(g, findClip(doc, 'clip'));
    const pose = createLocalPose(g);
    const b = g.names.indexOf('Bone');
    sampleClip(s, g, 0.25, pose);
    expect(Array.from(pose.t.subarray(3 * b, 3 * b + 3))).toEqual([0.5, 1, 1.5].map((x) => expect.closeTo(x, 6)));
    expect(deg(pose.r.subarray(4 * b, 4 * b + 4))).toBeCloseTo(22.5, 4); // slerp: a quarter of 90° (1e-4°)
    sampleClip(s, g, -3, pose); // before the first key: the first value
    expect(pose.t[3 * b + 1]).toBeCloseTo(0, 9);
    sampleClip(s, g, 7, pose); // after the last key: the last value
    expect(pose.t[3 * b + 2]).toBeCloseTo(6, 6);
    expect(s.duration).toBeCloseTo(1, 9);
    expect(s.keyed[b]).toBe(3); // translation | rotation
  });

  it('STEP holds the previous key until the next key time', () => {
    const q90 = quat.setAxisAngle(quat.create(), [0, 1, 0], Math.PI / 2);
    const { doc } = docWith([{ path: 'rotation', interp: 'STEP', times: [0, 1], values: [0, 0, 0, 1, ...q90] }]);
    const g = readSceneGraph(doc);
    const s = createClipSampler(g, findClip(doc, 'clip'));
    const pose = createLocalPose(g);
    const b = g.names.indexOf('Bone');
    sampleClip(s, g, 0.99, pose);
    expect(deg(pose.r.subarray(4 * b, 4 * b + 4))).toBeCloseTo(0, 6);
    sampleClip(s, g, 1, pose);
    expect(deg(pose.r.subarray(4 * b, 4 * b + 4))).toBeCloseTo(90, 4);
  });

  it('CUBICSPLINE follows the glTF Hermite spline (tangents scaled by the key gap); rotations come out unit length', () => {
    // Keys at 0 and 2 s; value 0 → 0 with out-tangent 2 and in-tangent −2 (per second).
    const { doc } = docWith([
      { path: 'scale', interp: 'CUBICSPLINE', times: [0, 2], values: [0, 0, 0, 1, 1, 1, 2, 0, 0, /* */ -2, 0, 0, 1, 1, 1, 0, 0, 0] },
      { path: 'rotation', interp: 'CUBICSPLINE', times: [0, 2], values: [0, 0, 0, 0, 0, 0, 0, 1, 0, 0.5, 0, 0, /* */ 0, 0, 0, 0, 0, 0.7071, 0, 0.7071, 0, 0, 0, 0] },
    ]);
    const g = readSceneGraph(doc);
    const s = createClipSampler(g, findClip(doc, 'clip'));
    const pose = createLocalPose(g);
    const b = g.names.indexOf('Bone');
    const t = 0.6;
    const p = t / 2;
    const h00 = 2 * p ** 3 - 3 * p ** 2 + 1, h10 = p ** 3 - 2 * p ** 2 + p, h01 = -2 * p ** 3 + 3 * p ** 2, h11 = p ** 3 - p ** 2;
    sampleClip(s, g, t, pose);
    const expectX = h00 * 1 + h10 * 2 * 2 + h01 * 1 + h11 * -2 * 2; // v0 = v1 = 1, out0 = 2, in1 = −2, gap 2 s
    expect(pose.s[3 * b]).toBeCloseTo(expectX, 6);
    expect(pose.s[3 * b + 1]).toBeCloseTo(h00 + h01, 6);
    const r = pose.r.subarray(4 * b, 4 * b + 4);
    expect(Math.hypot(r[0]!, r[1]!, r[2]!, r[3]!)).toBeCloseTo(1, 9);
  });

  it('reads normalised integer rotations (KHR_mesh_quantization style)', () => {
    const { doc } = docWith([{ path: 'rotation', interp: 'LINEAR', times: [0, 1], values: new Int16Array([0, 0, 0, 32767, 0, 23170, 0, 23170]), normalized: true }]);
    const g = readSceneGraph(doc);
    const s = createClipSampler(g, findClip(doc, 'clip'));
    const pose = createLocalPose(g);
    sampleClip(s, g, 1, pose);
    expect(deg(pose.r.subarray(4, 8))).toBeCloseTo(90, 2); // Int16 quantisation: 1e-2°
  });

  it('world matrices compose parents first (translated, rotated, scaled parent)', () => {
    const { doc } = docWith([]);
    const g = readSceneGraph(doc);
    const w = new Float64Array(16 * g.nodes.length);
    computeWorldMatrices(g, createLocalPose(g), w);
    const b = g.names.indexOf('Bone');
    // Parent: +90° about Y, scale 2, at y = 2; child at local x = 1 → world (0, 2, −2).
    expect(w[16 * b + 12]).toBeCloseTo(0, 9);
    expect(w[16 * b + 13]).toBeCloseTo(2, 9);
    expect(w[16 * b + 14]).toBeCloseTo(-2, 9);
  });

  it('unknown clip names the clips; a file without animations says so', () => {
    const { doc } = docWith([]);
    expect(() => findClip(doc, 'clip')).toThrow(/bitrig\/sample: the file has no animations/);
    const d2 = docWith([{ path: 'translation', interp: 'LINEAR', times: [0, 1], values: [0, 0, 0, 1, 1, 1] }]).doc;
    expect(listClipNames(d2)).toEqual(['clip']);
    expect(() => findClip(d2, 'Walk')).toThrow('bitrig/sample: unknown clip "Walk"; clips: clip');
  });
});

describe('the sampler evaluates as three.js does, to the bit (without importing three.js)', () => {
  it('STEP, LINEAR and CUBICSPLINE translations and rotations (also opposite, equal and near-equal quaternion keys, one-key tracks): every channel equals three\'s interpolant on the GLTFLoader-loaded clip at 24,000 times, bit for bit', async () => {
    const doc = new Document();
    const buf = doc.createBuffer();
    const scene = doc.createScene();
    const anim = doc.createAnimation('clip');
    let seed = 7;
    const rnd = (): number => { seed = (seed * 16807) % 2147483647; return seed / 2147483647; };
    const specs: Array<[string, 'translation' | 'rotation', 'STEP' | 'LINEAR' | 'CUBICSPLINE', number]> = [
      ['A', 'translation', 'STEP', 30], ['B', 'rotation', 'STEP', 30], ['C', 'translation', 'LINEAR', 40], ['D', 'rotation', 'LINEAR', 60],
      ['E', 'translation', 'CUBICSPLINE', 30], ['F', 'rotation', 'CUBICSPLINE', 30], ['G', 'rotation', 'LINEAR', 1], ['H', 'translation', 'LINEAR', 2],
    ];
    for (const [name, path, interp, n] of specs) {
      const node = doc.createNode(name);
      scene.addChild(node);
      const size = path === 'rotation' ? 4 : 3, per = interp === 'CUBICSPLINE' ? 3 * size : size;
      const times = new Float32Array(n);
      let t = rnd() * 0.1;
      for (let i = 0; i < n; i++) { times[i] = t; t += 0.01 + rnd() * 0.2; }
      const vals = new Float32Array(n * per);
      for (let i = 0; i < vals.length; i++) vals[i] = rnd() * 2 - 1;
      if (size === 4 && interp !== 'CUBICSPLINE') {
        for (let k = 0; k < n; k++) {
          const o = k * 4, l = Math.hypot(vals[o]!, vals[o + 1]!, vals[o + 2]!, vals[o + 3]!);
          for (let j = 0; j < 4; j++) vals[o + j] = vals[o + j]! / l;
          if (k % 5 === 1) for (let j = 0; j < 4; j++) vals[o + j] = -vals[o - 4 + j]!; // opposite: the short way round
          if (k % 5 === 2) for (let j = 0; j < 4; j++) vals[o + j] = vals[o - 4 + j]! + 1e-4; // within acos(0.9995): normalised lerp
          if (k % 5 === 3) for (let j = 0; j < 4; j++) vals[o + j] = vals[o - 4 + j]!; // equal
          if (k % 5 === 4) { // 0.08 rad from the previous key: a dot of 0.9992, between the branches' 0.999 and 0.9995
            const q = quat.multiply(quat.create(), Array.from(vals.subarray(o - 4, o)) as unknown as quat, quat.setAxisAngle(quat.create(), [1, 0, 0], 0.08));
            for (let j = 0; j < 4; j++) vals[o + j] = q[j]!;
          }
        }
      }
      const sampler = doc.createAnimationSampler().setInterpolation(interp)
        .setInput(doc.createAccessor('', buf).setType('SCALAR').setArray(times))
        .setOutput(doc.createAccessor('', buf).setType(size === 4 ? 'VEC4' : 'VEC3').setArray(vals));
      anim.addSampler(sampler).addChannel(doc.createAnimationChannel().setSampler(sampler).setTargetNode(node).setTargetPath(path));
    }
    const g = readSceneGraph(doc);
    const s = createClipSampler(g, findClip(doc, 'clip'));
    const pose = createLocalPose(g);
    const gltf = await loadGlbThree(await new NodeIO().writeBinary(doc));
    const tracks = gltf.animations[0]!.tracks;
    const evals = s.channels.map((ch) => {
      const track = tracks.find((tr) => tr.name === `${g.names[ch.node]}.${ch.path === 1 ? 'quaternion' : 'position'}`)!;
      return (track as unknown as { createInterpolant(): { evaluate(t: number): Float32Array } }).createInterpolant();
    });
    const times: number[] = [-1, s.duration + 1, NaN];
    for (const ch of s.channels) for (const t of ch.times) times.push(t, t + 1e-6, t - 1e-6);
    while (times.length < 12_000) times.push(rnd() * s.duration * 1.2 - 0.1);
    let compared = 0;
    for (const t of [...times, ...times.slice().reverse()]) { // (three caches the last interval: both directions)
      sampleClip(s, g, t, pose);
      s.channels.forEach((ch, c) => {
        const want = evals[c]!.evaluate(t);
        for (let i = 0; i < ch.size; i++) if (!Object.is(ch.result[i], want[i])) expect.fail(`${g.names[ch.node]} ${ch.interpolation} at t = ${t}: ${Array.from(ch.result)} vs three ${Array.from(want)}`);
        compared++;
      });
    }
    expect(compared).toBe(24_000 * specs.length);
  });
});

describe('clip sampling agrees with three.js AnimationMixer (real assets)', () => {
  for (const [asset, clipName] of [['quaternius-fox', 'Walk'], ['khronos-fox', 'Run']] as const) {
    it(`${asset} ${clipName}: every bone's local TRS matches the mixer at 7 times (1e-5)`, async () => {
      const doc = await loadAsset(asset);
      const g = readSceneGraph(doc);
      const s = createClipSampler(g, findClip(doc, clipName));
      const pose = createLocalPose(g);
      const gltf = await loadGlbThree(assetBytes(asset));
      const clip = gltf.animations.find((a) => a.name === clipName)!;
      const mixer = new AnimationMixer(gltf.scene);
      mixer.clipAction(clip).play();
      const byName = new Map<string, Object3D[]>();
      gltf.scene.traverse((o) => { const a = byName.get(o.name) ?? []; a.push(o); byName.set(o.name, a); });
      let compared = 0;
      for (let i = 0; i < 7; i++) {
        const t = (i + 0.37) * (s.duration / 7.2);
        sampleClip(s, g, t, pose);
        mixer.setTime(t);
        for (const ch of s.channels) {
          const objs = byName.get(PropertyBinding.sanitizeNodeName(g.names[ch.node]!));
          if (!objs || objs.length !== 1) continue;
          const o = objs[0]!;
          const n = ch.node;
          if (ch.path === 1) {
            const d = Math.abs(o.quaternion.x * pose.r[4 * n]! + o.quaternion.y * pose.r[4 * n + 1]! + o.quaternion.z * pose.r[4 * n + 2]! + o.quaternion.w * pose.r[4 * n + 3]!);
            expect(d).toBeGreaterThan(1 - 1e-5);
          } else {
            const v = ch.path === 0 ? o.position : o.scale;
            const arr = ch.path === 0 ? pose.t : pose.s;
            expect(Math.abs(v.x - arr[3 * n]!) + Math.abs(v.y - arr[3 * n + 1]!) + Math.abs(v.z - arr[3 * n + 2]!)).toBeLessThan(1e-5 * (1 + Math.abs(v.x) + Math.abs(v.y) + Math.abs(v.z)));
          }
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(50);
    });
  }
});
