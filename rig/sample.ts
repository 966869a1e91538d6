/**
 * Clip sampling in Node on a GLB's own clips: every node's local translation,
 * rotation and scale at any time of an animation, with glTF's STEP, LINEAR and CUBICSPLINE
 * interpolation, evaluated as three.js's `KeyframeTrack` interpolants evaluate a loaded clip
 * (the same arithmetic, results rounded to float32 as three's result buffers are): the key
 * interval t0 ≤ t < t1, vectors lerp, quaternions slerp (a normalised lerp below 0.9995 of
 * the angle's cosine… above it, as three does), STEP holds the earlier key, CUBICSPLINE is
 * glTF's Hermite spline (normalised for rotations); before the first key the first value,
 * from the last key on the last. Written here, so that the offline tools need no three.js
 * (an optional peer dependency); test/bake/sample.test.ts checks bit-identity with three.
 *
 * A {@link SceneGraph} is a snapshot of the document's node tree and rest TRS taken when it
 * is read: later edits of the document (a viewer moving the live hips) do not reach it. It
 * is the "stable calibration" the bake and the measure run on.
 *
 * Setup functions allocate and throw `bitrig/sample: …`; {@link sampleClip} and
 * {@link computeWorldMatrices} do not allocate.
 */
import type { Animation, Document, Node, Accessor } from '@gltf-transform/core';
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
  /** Key times (seconds, float32 as stored). */
  times: Float32Array;
  /** Key values: `size` per key (CUBICSPLINE: in-tangent, value, out-tangent, `3 × size`). */
  values: Float32Array;
  /** Components per value: 3 (translation, scale) or 4 (rotation). */
  size: number;
  /** The last evaluation (float32, as three's result buffers). */
  result: Float32Array;
}

/** A clip resolved against a {@link SceneGraph}. */
export interface ClipSampler {
  /** Clip name. */
  name: string;
  /** The glTF animation. */
  animation: Animation;
  /** Duration in seconds: the last key time over all channels (three's `AnimationClip` rule). */
  duration: number;
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
 * Find an animation by name. Throws `<module>: …` (default `bitrig/sample`; a public function
 * passes its own, e.g. `bitrig/measure`) naming the clips that exist when it is missing, or
 * saying the file has none.
 *
 * @example
 * const walk = findClip(doc, 'Walk');
 */
export function findClip(doc: Document, name: string, module = 'bitrig/sample'): Animation {
  const anims = doc.getRoot().listAnimations();
  if (anims.length === 0) throw new Error(`${module}: the file has no animations`);
  const names = listClipNames(doc);
  const i = names.indexOf(name);
  if (i < 0) throw new Error(`${module}: unknown clip "${name}"; clips: ${names.join(', ')}`);
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

/**
 * Evaluate one channel at time t into its `result` (float32): the key interval t0 ≤ t < t1 by
 * bisection; before the first key the first value, from the last key on (or a NaN time) the
 * last. No allocation.
 */
function evaluateChannel(ch: ChannelSampler, t: number): Float32Array {
  const times = ch.times, n = times.length, size = ch.size, out = ch.result, v = ch.values;
  const per = ch.interpolation === 'CUBICSPLINE' ? 3 * size : size;
  const at = ch.interpolation === 'CUBICSPLINE' ? size : 0; // (the value inside a cubic key)
  let k = -1;
  if (t < times[0]!) k = 0;
  else if (!(t < times[n - 1]!)) k = n - 1;
  if (k >= 0) {
    for (let i = 0; i < size; i++) out[i] = v[k * per + at + i]!;
    return out;
  }
  let lo = 1, hi = n - 1; // the first key after t, in [1, n − 1]
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (t < times[mid]!) hi = mid; else lo = mid + 1; }
  const i1 = lo, t0 = times[i1 - 1]!, t1 = times[i1]!;
  if (ch.interpolation === 'STEP') {
    for (let i = 0; i < size; i++) out[i] = v[(i1 - 1) * size + i]!;
  } else if (ch.interpolation === 'CUBICSPLINE') {
    // Hermite: key = [in-tangent, value, out-tangent]; tangents scale with the key gap.
    const td = t1 - t0, p = (t - t0) / td, pp = p * p, ppp = pp * p;
    const o1 = i1 * per, o0 = o1 - per;
    const s2 = -2 * ppp + 3 * pp, s3 = ppp - pp, s0 = 1 - s2, s1 = s3 - pp + p;
    for (let i = 0; i < size; i++) {
      out[i] = s0 * v[o0 + size + i]! + s1 * (v[o0 + 2 * size + i]! * td) + s2 * v[o1 + size + i]! + s3 * (v[o1 + i]! * td);
    }
    if (ch.path === 1) {
      const x = out[0]!, y = out[1]!, z = out[2]!, w = out[3]!;
      let l = Math.sqrt(x * x + y * y + z * z + w * w);
      if (l === 0) { out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 1; } else { l = 1 / l; out[0] = x * l; out[1] = y * l; out[2] = z * l; out[3] = w * l; }
    }
  } else if (ch.path === 1) {
    slerpInto(out, v, (i1 - 1) * 4, i1 * 4, (t - t0) / (t1 - t0));
  } else {
    const w1 = (t - t0) / (t1 - t0), w0 = 1 - w1, o1 = i1 * size, o0 = o1 - size;
    for (let i = 0; i < size; i++) out[i] = v[o0 + i]! * w0 + v[o1 + i]! * w1;
  }
  return out;
}

/** out = slerp(v[a..a+3], v[b..b+3], u): the shorter way; a normalised lerp when the keys are within acos(0.9995). */
function slerpInto(out: Float32Array, v: Float32Array, a: number, b: number, u: number): void {
  let x0 = v[a]!, y0 = v[a + 1]!, z0 = v[a + 2]!, w0 = v[a + 3]!;
  let x1 = v[b]!, y1 = v[b + 1]!, z1 = v[b + 2]!, w1 = v[b + 3]!;
  if (w0 !== w1 || x0 !== x1 || y0 !== y1 || z0 !== z1) {
    let c = x0 * x1 + y0 * y1 + z0 * z1 + w0 * w1;
    if (c < 0) { x1 = -x1; y1 = -y1; z1 = -z1; w1 = -w1; c = -c; }
    let f0 = 1 - u, f1 = u;
    if (c < 0.9995) {
      const ang = Math.acos(c), sn = Math.sin(ang);
      f0 = Math.sin(f0 * ang) / sn; f1 = Math.sin(f1 * ang) / sn;
      x0 = x0 * f0 + x1 * f1; y0 = y0 * f0 + y1 * f1; z0 = z0 * f0 + z1 * f1; w0 = w0 * f0 + w1 * f1;
    } else {
      x0 = x0 * f0 + x1 * f1; y0 = y0 * f0 + y1 * f1; z0 = z0 * f0 + z1 * f1; w0 = w0 * f0 + w1 * f1;
      const f = 1 / Math.sqrt(x0 * x0 + y0 * y0 + z0 * z0 + w0 * w0);
      x0 *= f; y0 *= f; z0 *= f; w0 *= f;
    }
  }
  out[0] = x0; out[1] = y0; out[2] = z0; out[3] = w0;
}

const PATHS = { translation: 0, rotation: 1, scale: 2 } as const;

/**
 * Resolve an animation against a scene graph: one sampler per translation/rotation/scale
 * channel. Channels whose node is not in the graph, empty
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
    const vals = values.length === times.length * per ? values : values.subarray(0, times.length * per);
    const path = PATHS[pathName];
    keyed[ni] = keyed[ni]! | (1 << path);
    duration = Math.max(duration, times[times.length - 1]!);
    channels.push({ node: ni, path, interpolation: interp, times, values: vals, size, result: new Float32Array(size) });
  }
  return { name, animation, duration, channels, keyed };
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
    const v = evaluateChannel(ch, t);
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
