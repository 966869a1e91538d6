/**
 * Clip sampling in Node on a GLB's own clips (SPEC §5): every node's local translation,
 * rotation and scale at any time of an animation, with glTF's STEP, LINEAR and CUBICSPLINE
 * interpolation. The evaluation is three.js's: each channel becomes a three `KeyframeTrack`
 * (vectors lerp, quaternions slerp, STEP is three's discrete interpolant) and is evaluated
 * through its `Interpolant`; CUBICSPLINE uses the same Hermite interpolant three's
 * GLTFLoader installs (three does not export it), normalised for rotations.
 *
 * A {@link SceneGraph} is a snapshot of the document's node tree and rest TRS taken when it
 * is read: later edits of the document (a viewer moving the live hips) do not reach it. It
 * is the "stable calibration" the bake and the measure run on.
 *
 * Setup functions allocate and throw `bitrig/sample: …`; {@link sampleClip} and
 * {@link computeWorldMatrices} do not allocate.
 */
import type { Animation, Document, Node, Accessor } from '@gltf-transform/core';
import {
  AnimationClip, Interpolant, InterpolateDiscrete, InterpolateLinear, KeyframeTrack, Quaternion,
  QuaternionKeyframeTrack, VectorKeyframeTrack,
} from 'three';
import { composeTRS, mulAffine } from '../core/pose';

/** The document's nodes as flat arrays (a snapshot). */
export interface SceneGraph {
  /** Nodes of the document, in `listNodes()` order. */
  nodes: Node[];
  /** Index of each node in {@link SceneGraph.nodes}. */
  index: Map<Node, number>;
  /** Node names (`node<i>` when unnamed). */
  names: string[];
  /** Parent node index, -1 for a node without a parent node. */
  parent: Int32Array;
  /** Node indices ordered parents before children. */
  order: Int32Array;
  /** Rest local translation, 3 per node (as loaded; the live pose at snapshot time). */
  restT: Float64Array;
  /** Rest local rotation x, y, z, w, 4 per node. */
  restR: Float64Array;
  /** Rest local scale, 3 per node. */
  restS: Float64Array;
}

/** Local TRS of every node of a {@link SceneGraph}. */
export interface LocalPose {
  /** Translation, 3 per node. */
  t: Float64Array;
  /** Rotation x, y, z, w, 4 per node. */
  r: Float64Array;
  /** Scale, 3 per node. */
  s: Float64Array;
}

/** One animated property of one node. */
export interface ChannelSampler {
  /** Node index in the graph. */
  node: number;
  /** 0 translation, 1 rotation, 2 scale. */
  path: 0 | 1 | 2;
  /** glTF interpolation of the sampler. */
  interpolation: 'STEP' | 'LINEAR' | 'CUBICSPLINE';
  /** three.js track holding the keys. */
  track: KeyframeTrack;
  /** Its interpolant (owns the result buffer). */
  interpolant: Interpolant;
}

/** A clip resolved against a {@link SceneGraph}. */
export interface ClipSampler {
  /** Clip name. */
  name: string;
  /** The glTF animation. */
  animation: Animation;
  /** Duration in seconds: the last key time over all channels (three's `AnimationClip` rule). */
  duration: number;
  /** The clip as a three.js `AnimationClip` (tracks named `<node index>.<property>`). */
  clip: AnimationClip;
  /** Translation/rotation/scale channels (morph weights are ignored). */
  channels: ChannelSampler[];
  /** Per node, bit 1 translation, 2 rotation, 4 scale: which properties the clip keys. */
  keyed: Uint8Array;
}

/**
 * Read the document's node tree and rest TRS into a snapshot.
 *
 * @example
 * const graph = readSceneGraph(doc);
 * const pose = createLocalPose(graph);
 */
export function readSceneGraph(doc: Document): SceneGraph {
  const nodes = doc.getRoot().listNodes();
  const n = nodes.length;
  const index = new Map<Node, number>();
  nodes.forEach((nd, i) => index.set(nd, i));
  const parent = new Int32Array(n).fill(-1);
  const restT = new Float64Array(3 * n);
  const restR = new Float64Array(4 * n);
  const restS = new Float64Array(3 * n);
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const nd = nodes[i]!;
    names.push(nd.getName() || `node${i}`);
    const p = nd.getParentNode();
    parent[i] = p ? index.get(p) ?? -1 : -1;
    const t = nd.getTranslation();
    const r = nd.getRotation();
    const s = nd.getScale();
    for (let k = 0; k < 3; k++) {
      restT[3 * i + k] = finiteOr(t[k], 0);
      restS[3 * i + k] = finiteOr(s[k], 1);
    }
    let len = 0;
    for (let k = 0; k < 4; k++) len += finiteOr(r[k], 0) ** 2;
    len = Math.sqrt(len);
    for (let k = 0; k < 4; k++) restR[4 * i + k] = len > 1e-12 ? finiteOr(r[k], 0) / len : k === 3 ? 1 : 0;
  }
  // Parents before children.
  const order: number[] = [];
  const state = new Uint8Array(n);
  const visit = (i: number): void => {
    if (state[i] === 2) return;
    if (state[i] === 1) throw new Error(`bitrig/sample: node "${names[i]}" is part of a parent cycle`);
    state[i] = 1;
    if (parent[i]! >= 0) visit(parent[i]!);
    state[i] = 2;
    order.push(i);
  };
  for (let i = 0; i < n; i++) visit(i);
  return { nodes, index, names, parent, order: Int32Array.from(order), restT, restR, restS };
}

function finiteOr(v: number | undefined, d: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : d;
}

/**
 * A local pose with every node at its rest TRS.
 *
 * @example
 * const pose = createLocalPose(graph); // pose.t, pose.r, pose.s
 */
export function createLocalPose(graph: SceneGraph): LocalPose {
  return { t: graph.restT.slice(), r: graph.restR.slice(), s: graph.restS.slice() };
}

/**
 * Reset a local pose to the graph's rest TRS. No allocation.
 *
 * @example
 * resetLocalPose(graph, pose);
 */
export function resetLocalPose(graph: SceneGraph, pose: LocalPose): void {
  pose.t.set(graph.restT);
  pose.r.set(graph.restR);
  pose.s.set(graph.restS);
}

/**
 * Names of the document's animations (`animation<i>` when unnamed), in order.
 *
 * @example
 * listClipNames(doc); // ['Survey', 'Walk', 'Run']
 */
export function listClipNames(doc: Document): string[] {
  return doc.getRoot().listAnimations().map((a, i) => a.getName() || `animation${i}`);
}

/**
 * Find an animation by name. Throws `bitrig/sample: …` naming the clips that exist when it
 * is missing, or saying the file has none.
 *
 * @example
 * const walk = findClip(doc, 'Walk');
 */
export function findClip(doc: Document, name: string): Animation {
  const anims = doc.getRoot().listAnimations();
  if (anims.length === 0) throw new Error('bitrig/sample: the file has no animations');
  const names = listClipNames(doc);
  const i = names.indexOf(name);
  if (i < 0) throw new Error(`bitrig/sample: unknown clip "${name}"; clips: ${names.join(', ')}`);
  return anims[i]!;
}

function accessorFloats(acc: Accessor): Float32Array {
  const arr = acc.getArray();
  if (!arr) throw new Error(`bitrig/sample: accessor "${acc.getName()}" has no data`);
  const out = new Float32Array(arr.length);
  if (acc.getNormalized()) {
    const ct = acc.getComponentType();
    const div = ct === 5121 ? 255 : ct === 5123 ? 65535 : ct === 5120 ? 127 : ct === 5122 ? 32767 : 1;
    const signed = ct === 5120 || ct === 5122;
    for (let i = 0; i < arr.length; i++) out[i] = signed ? Math.max(arr[i]! / div, -1) : arr[i]! / div;
  } else {
    for (let i = 0; i < arr.length; i++) out[i] = arr[i]!;
  }
  return out;
}

const _q = new Quaternion();

/**
 * glTF CUBICSPLINE (Hermite) interpolant, as three's GLTFLoader defines it: values are
 * stored as [inTangent, vertex, outTangent] per key; tangents are scaled by the key gap.
 */
class CubicSplineInterpolant extends Interpolant {
  /** Normalise the result (rotations). */
  normalise = false;

  override copySampleValue_(index: number): Float32Array {
    const result = this.resultBuffer as Float32Array;
    const values = this.sampleValues;
    const size = this.valueSize;
    const offset = index * size * 3 + size;
    for (let i = 0; i < size; i++) result[i] = values[offset + i]!;
    return result;
  }

  interpolate_(i1: number, t0: number, t: number, t1: number): Float32Array {
    const result = this.resultBuffer as Float32Array;
    const values = this.sampleValues;
    const stride = this.valueSize;
    const stride2 = stride * 2;
    const stride3 = stride * 3;
    const td = t1 - t0;
    const p = (t - t0) / td;
    const pp = p * p;
    const ppp = pp * p;
    const offset1 = i1 * stride3;
    const offset0 = offset1 - stride3;
    const s2 = -2 * ppp + 3 * pp;
    const s3 = ppp - pp;
    const s0 = 1 - s2;
    const s1 = s3 - pp + p;
    for (let i = 0; i < stride; i++) {
      const p0 = values[offset0 + i + stride]!;
      const m0 = values[offset0 + i + stride2]! * td;
      const p1 = values[offset1 + i + stride]!;
      const m1 = values[offset1 + i]! * td;
      result[i] = s0 * p0 + s1 * m0 + s2 * p1 + s3 * m1;
    }
    if (this.normalise) _q.fromArray(result).normalize().toArray(result);
    return result;
  }
}

const PATHS = { translation: 0, rotation: 1, scale: 2 } as const;

/**
 * Resolve an animation against a scene graph: one three.js track and interpolant per
 * translation/rotation/scale channel. Channels whose node is not in the graph, empty
 * channels and morph-weight channels are skipped. Throws `bitrig/sample: …` on malformed
 * samplers (key count mismatch).
 *
 * @example
 * const walk = createClipSampler(graph, findClip(doc, 'Walk'));
 * sampleClip(walk, graph, 0.5, pose);
 */
export function createClipSampler(graph: SceneGraph, animation: Animation): ClipSampler {
  const name = animation.getName() || 'animation';
  const channels: ChannelSampler[] = [];
  const keyed = new Uint8Array(graph.nodes.length);
  let duration = 0;
  for (const ch of animation.listChannels()) {
    const node = ch.getTargetNode();
    const pathName = ch.getTargetPath();
    const sampler = ch.getSampler();
    if (!node || !sampler || !(pathName === 'translation' || pathName === 'rotation' || pathName === 'scale')) continue;
    const ni = graph.index.get(node);
    if (ni === undefined) continue;
    const input = sampler.getInput();
    const output = sampler.getOutput();
    if (!input || !output) continue;
    const times = accessorFloats(input);
    if (times.length === 0) continue;
    const values = accessorFloats(output);
    const size = pathName === 'rotation' ? 4 : 3;
    const interp = sampler.getInterpolation();
    const per = interp === 'CUBICSPLINE' ? 3 * size : size;
    if (values.length < times.length * per) {
      throw new Error(`bitrig/sample: clip "${name}" ${pathName} of "${graph.names[ni]}" has ${values.length / per} values for ${times.length} keys`);
    }
    const trackName = `${ni}.${pathName === 'translation' ? 'position' : pathName === 'rotation' ? 'quaternion' : 'scale'}`;
    const mode = interp === 'STEP' ? InterpolateDiscrete : InterpolateLinear;
    const vals = values.length === times.length * per ? values : values.subarray(0, times.length * per);
    const track = pathName === 'rotation'
      ? new QuaternionKeyframeTrack(trackName, times, vals, mode)
      : new VectorKeyframeTrack(trackName, times, vals, mode);
    let interpolant: Interpolant;
    if (interp === 'CUBICSPLINE') {
      const ci = new CubicSplineInterpolant(track.times, track.values, size, new Float32Array(size));
      ci.normalise = pathName === 'rotation';
      interpolant = ci;
    } else {
      interpolant = (track as unknown as { createInterpolant(result?: Float32Array): Interpolant }).createInterpolant(new Float32Array(size));
    }
    const path = PATHS[pathName];
    keyed[ni] = keyed[ni]! | (1 << path);
    duration = Math.max(duration, times[times.length - 1]!);
    channels.push({ node: ni, path, interpolation: interp, track, interpolant });
  }
  const clip = new AnimationClip(name, duration, channels.map((c) => c.track));
  return { name, animation, duration, clip, channels, keyed };
}

/**
 * Evaluate a clip at time `t` (seconds, clamped to the keys like three.js): every node starts
 * at its rest TRS and the clip's channels overwrite what they key. Rotations come out unit
 * length; a non-finite key leaves the rest value. No allocation.
 *
 * @example
 * sampleClip(walk, graph, 0.25, pose); // pose.r now holds the walk's rotations at 0.25 s
 */
export function sampleClip(sampler: ClipSampler, graph: SceneGraph, t: number, pose: LocalPose): void {
  resetLocalPose(graph, pose);
  const chs = sampler.channels;
  for (let c = 0; c < chs.length; c++) {
    const ch = chs[c]!;
    const v = ch.interpolant.evaluate(t);
    const n = ch.node;
    if (ch.path === 1) {
      const x = v[0]!, y = v[1]!, z = v[2]!, w = v[3]!;
      const len = Math.sqrt(x * x + y * y + z * z + w * w);
      if (!(len > 1e-12) || !Number.isFinite(len)) continue;
      pose.r[4 * n] = x / len; pose.r[4 * n + 1] = y / len; pose.r[4 * n + 2] = z / len; pose.r[4 * n + 3] = w / len;
    } else {
      const x = v[0]!, y = v[1]!, z = v[2]!;
      if (!Number.isFinite(x + y + z)) continue;
      const arr = ch.path === 0 ? pose.t : pose.s;
      arr[3 * n] = x; arr[3 * n + 1] = y; arr[3 * n + 2] = z;
    }
  }
}

/**
 * World matrices (column-major, 16 per node) of every node from a local pose, parents
 * first. No allocation.
 *
 * @example
 * const world = new Float64Array(16 * graph.nodes.length);
 * computeWorldMatrices(graph, pose, world);
 */
export function computeWorldMatrices(graph: SceneGraph, pose: LocalPose, out: Float64Array): void {
  const order = graph.order;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const p = graph.parent[i]!;
    if (p >= 0) {
      composeTRS(_local, 0, pose.t, 3 * i, pose.r, 4 * i, pose.s, 3 * i);
      mulAffine(out, 16 * i, out, 16 * p, _local, 0);
    } else {
      composeTRS(out, 16 * i, pose.t, 3 * i, pose.r, 4 * i, pose.s, 3 * i);
    }
  }
}

const _local = new Float64Array(16);
