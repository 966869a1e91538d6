/**
 * A seeded generator of malformed GLBs: from a valid base GLB, each case breaks one thing
 * (framing, lengths, counts, offsets, strides, types, strings for numbers, references,
 * NaN/Inf/huge values in positions, weights, joints, indices, inverse bind matrices and
 * key times, node cycles, deep JSON, a JSON chunk that is not an object, a second buffer,
 * random byte flips). The same seed gives the same cases.
 */
import { createRng } from '../../helpers/rng';

/** One malformed file: what was broken, and the bytes. */
export interface FuzzCase {
  /** Mutation name and what it changed (`accessor 3 count = "10"`). */
  name: string;
  /** The GLB bytes. */
  bytes: Uint8Array;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export { createRng };

type Rng = () => number;
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const int = (rng: Rng, n: number): number => Math.floor(rng() * n);

/** The JSON object and binary chunk of a GLB (copies). */
export function splitGlb(bytes: Uint8Array): { json: Json; bin: Uint8Array } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jl = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jl))) as Json;
  const bl = dv.getUint32(20 + jl, true);
  return { json, bin: bytes.slice(28 + jl, 28 + jl + bl) };
}

/** A GLB from JSON text and a binary chunk (each padded to 4 bytes; no binary chunk when null). */
export function joinGlb(jsonText: string, bin: Uint8Array | null): Uint8Array {
  const jt = new TextEncoder().encode(jsonText);
  const jl = (jt.length + 3) & ~3;
  const bl = bin ? (bin.length + 3) & ~3 : 0;
  const total = 12 + 8 + jl + (bin ? 8 + bl : 0);
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0x46546c67, true);
  dv.setUint32(4, 2, true);
  dv.setUint32(8, total, true);
  dv.setUint32(12, jl, true);
  dv.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jl);
  out.set(jt, 20);
  if (bin) {
    dv.setUint32(20 + jl, bl, true);
    dv.setUint32(24 + jl, 0x004e4942, true);
    out.set(bin, 28 + jl);
  }
  return out;
}

const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const TYPE_SIZE: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };

/** Accessors by use (indices into `json.accessors`): POSITION, JOINTS_0, WEIGHTS_0, indices, IBM, key times, key values. */
export function accessorsByUse(json: Json): Record<string, number[]> {
  const use: Record<string, number[]> = { POSITION: [], JOINTS_0: [], WEIGHTS_0: [], indices: [], ibm: [], times: [], values: [] };
  for (const m of json.meshes ?? []) {
    for (const p of m.primitives) {
      for (const k of ['POSITION', 'JOINTS_0', 'WEIGHTS_0']) if (p.attributes[k] !== undefined) use[k]!.push(p.attributes[k]);
      if (p.indices !== undefined) use.indices!.push(p.indices);
    }
  }
  for (const s of json.skins ?? []) if (s.inverseBindMatrices !== undefined) use.ibm!.push(s.inverseBindMatrices);
  for (const a of json.animations ?? []) for (const s of a.samplers) { use.times!.push(s.input); use.values!.push(s.output); }
  return use;
}

/** Write `value` into component `comp` of element `el` of accessor `ai` in `bin`. */
export function poke(json: Json, bin: Uint8Array, ai: number, el: number, comp: number, value: number): void {
  const a = json.accessors[ai];
  const bv = json.bufferViews[a.bufferView];
  const cs = COMPONENT_BYTES[a.componentType]!;
  const stride = bv.byteStride ?? cs * TYPE_SIZE[a.type]!;
  const at = (bv.byteOffset ?? 0) + (a.byteOffset ?? 0) + stride * el + cs * comp;
  const dv = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
  if (a.componentType === 5126) dv.setFloat32(at, value, true);
  else if (cs === 4) dv.setUint32(at, value >>> 0, true);
  else if (cs === 2) dv.setUint16(at, value & 0xffff, true);
  else dv.setUint8(at, value & 0xff);
}

interface Base { json: Json; bin: Uint8Array; bytes: Uint8Array }
type Mutation = (rng: Rng, b: Base) => { name: string; bytes: Uint8Array };

const jsonMut = (name: string, f: (rng: Rng, json: Json, bin: Uint8Array) => string): Mutation => (rng, b) => {
  const json = structuredClone(b.json);
  const bin = b.bin.slice();
  const what = f(rng, json, bin);
  return { name: `${name}: ${what}`, bytes: joinGlb(JSON.stringify(json), bin) };
};

const WEIRD_NUMBERS: readonly unknown[] = [0, -1, 1.5, '10', null, 2 ** 31 - 1, 2 ** 32, 1e30, NaN, true, [], {}];
const FLOAT_POISON = [NaN, Infinity, -Infinity, 1e30, -1e30, 3.4e38];

const MUTATIONS: Record<string, Mutation> = {
  truncated: (rng, b) => { const n = int(rng, b.bytes.length); return { name: `truncated to ${n} of ${b.bytes.length} bytes`, bytes: b.bytes.slice(0, n) }; },
  headerLength: (rng, b) => {
    const bytes = b.bytes.slice();
    const v = pick(rng, [0, 12, bytes.length - 1, bytes.length + 1, 0xffffffff]);
    new DataView(bytes.buffer).setUint32(8, v, true);
    return { name: `GLB header length = ${v}`, bytes };
  },
  jsonChunkLength: (rng, b) => {
    const bytes = b.bytes.slice();
    const dv = new DataView(bytes.buffer);
    const v = pick(rng, [0, 1, dv.getUint32(12, true) - 4, dv.getUint32(12, true) + 4, 0x7fffffff]);
    dv.setUint32(12, v, true);
    return { name: `JSON chunk length = ${v}`, bytes };
  },
  accessorCount: jsonMut('accessor count', (rng, json) => {
    const use = accessorsByUse(json);
    const i = rng() < 0.3 && use.indices!.length ? use.indices![0]! : int(rng, json.accessors.length);
    const v = pick(rng, [...WEIRD_NUMBERS, json.accessors[i].count + 1, json.accessors[i].count * 2]);
    json.accessors[i].count = v;
    return `accessor ${i} count = ${JSON.stringify(v)}`;
  }),
  accessorOffset: jsonMut('accessor byteOffset', (rng, json) => {
    const i = int(rng, json.accessors.length);
    const v = pick(rng, [1, 2, 3, 4, 1e6, -4, '0', 0.5]);
    json.accessors[i].byteOffset = v;
    return `accessor ${i} byteOffset = ${JSON.stringify(v)}`;
  }),
  accessorType: jsonMut('accessor type', (rng, json) => {
    const i = int(rng, json.accessors.length);
    if (rng() < 0.5) { const v = pick(rng, [5120, 5121, 5122, 5123, 5125, 5126, 1234, '5126']); json.accessors[i].componentType = v; return `accessor ${i} componentType = ${JSON.stringify(v)}`; }
    const v = pick(rng, ['SCALAR', 'VEC2', 'VEC3', 'VEC4', 'MAT4', 'VEC5', 3]);
    json.accessors[i].type = v;
    return `accessor ${i} type = ${JSON.stringify(v)}`;
  }),
  normalized: jsonMut('accessor normalized', (rng, json) => {
    const i = int(rng, json.accessors.length);
    json.accessors[i].normalized = pick(rng, [true, 'yes', 1]);
    return `accessor ${i} normalized = ${JSON.stringify(json.accessors[i].normalized)}`;
  }),
  bufferView: jsonMut('buffer view', (rng, json) => {
    const i = int(rng, json.bufferViews.length);
    const key = pick(rng, ['byteLength', 'byteOffset', 'byteStride', 'buffer']);
    const v = pick(rng, [...WEIRD_NUMBERS, 2, 256, 1e9]);
    json.bufferViews[i][key] = v;
    return `buffer view ${i} ${key} = ${JSON.stringify(v)}`;
  }),
  bufferLength: jsonMut('buffer byteLength', (rng, json) => {
    const v = pick(rng, [0, 1, json.buffers[0].byteLength + 16, 2 ** 31, '100']);
    json.buffers[0].byteLength = v;
    return `= ${JSON.stringify(v)}`;
  }),
  secondBuffer: jsonMut('second buffer', (rng, json) => {
    json.buffers.push(pick(rng, [{ byteLength: 4, uri: 'data:application/octet-stream;base64,AAAAAA==' }, { byteLength: 4, uri: 'extra.bin' }, { byteLength: 4 }]));
    return JSON.stringify(json.buffers[1]);
  }),
  poisonFloat: jsonMut('poisoned float', (rng, json, bin) => {
    const use = accessorsByUse(json);
    const kind = pick(rng, ['POSITION', 'WEIGHTS_0', 'ibm', 'times', 'values'].filter((k) => use[k]!.length > 0));
    const ai = pick(rng, use[kind]!);
    const a = json.accessors[ai];
    const v = pick(rng, kind === 'times' ? [...FLOAT_POISON, -1] : kind === 'WEIGHTS_0' ? [...FLOAT_POISON, -0.5] : FLOAT_POISON);
    const all = rng() < 0.2;
    const el = kind === 'times' ? a.count - 1 : int(rng, a.count);
    for (let e = all ? 0 : el; e <= (all ? a.count - 1 : el); e++) poke(json, bin, ai, e, int(rng, TYPE_SIZE[a.type]!), v);
    return `${kind} accessor ${ai} ${all ? 'every element' : `element ${el}`} = ${v}`;
  }),
  hugeTime: jsonMut('huge key time', (rng, json, bin) => {
    const ai = pick(rng, accessorsByUse(json).times!);
    const v = pick(rng, [1e30, 1e6, 3601, 7200.5]);
    poke(json, bin, ai, json.accessors[ai].count - 1, 0, v);
    json.accessors[ai].max = [v];
    return `accessor ${ai} last key = ${v} s`;
  }),
  decreasingTimes: jsonMut('key times not increasing', (rng, json, bin) => {
    const ai = pick(rng, accessorsByUse(json).times!);
    poke(json, bin, ai, 1, 0, 0);
    return `accessor ${ai} key 1 = 0`;
  }),
  badIndex: jsonMut('index out of range', (rng, json, bin) => {
    const use = accessorsByUse(json);
    const ai = pick(rng, use.indices!);
    const v = pick(rng, [60000, 34953, json.accessors[use.POSITION![0]!].count]);
    poke(json, bin, ai, int(rng, json.accessors[ai].count), 0, v);
    return `accessor ${ai} = ${v}`;
  }),
  badJoint: jsonMut('joint out of range', (rng, json, bin) => {
    const ai = pick(rng, accessorsByUse(json).JOINTS_0!);
    const v = pick(rng, [200, json.skins[0].joints.length]);
    poke(json, bin, ai, int(rng, json.accessors[ai].count), int(rng, 4), v);
    return `accessor ${ai} = ${v}`;
  }),
  zeroWeights: jsonMut('zero weights', (rng, json, bin) => {
    const ai = pick(rng, accessorsByUse(json).WEIGHTS_0!);
    const el = int(rng, json.accessors[ai].count);
    for (let c = 0; c < 4; c++) poke(json, bin, ai, el, c, 0);
    return `accessor ${ai} vertex ${el}`;
  }),
  nodeCycle: jsonMut('node graph', (rng, json) => {
    const n = json.nodes.length;
    const withKids: number[] = json.nodes.map((nd: Json, i: number) => (nd.children?.length ? i : -1)).filter((i: number) => i >= 0);
    const p = pick(rng, withKids);
    const kind = pick(rng, ['self', 'cycle', 'twoParents', 'outOfRange']);
    if (kind === 'self') json.nodes[p].children.push(p);
    else if (kind === 'cycle') { const c = json.nodes[p].children[0]; json.nodes[c].children = [...(json.nodes[c].children ?? []), p]; }
    else if (kind === 'twoParents') { const other = (p + 1 + int(rng, n - 1)) % n; json.nodes[other].children = [...(json.nodes[other].children ?? []), json.nodes[p].children[0]]; }
    else json.nodes[p].children.push(n + 5);
    return `${kind} at node ${p}`;
  }),
  badReference: jsonMut('reference', (rng, json) => {
    const v = pick(rng, [-1, 999, 1.5, '0', null]);
    const where = pick(rng, ['node.mesh', 'node.skin', 'skin.joint', 'skin.ibm', 'channel.node', 'channel.sampler', 'sampler.input', 'sampler.output', 'prim.indices', 'prim.POSITION', 'scene.node', 'scene']);
    const node = json.nodes.find((n: Json) => n.mesh !== undefined);
    const anim = json.animations[0];
    if (where === 'node.mesh') node.mesh = v;
    else if (where === 'node.skin') node.skin = v;
    else if (where === 'skin.joint') json.skins[0].joints[0] = v;
    else if (where === 'skin.ibm') json.skins[0].inverseBindMatrices = v;
    else if (where === 'channel.node') anim.channels[0].target.node = v;
    else if (where === 'channel.sampler') anim.channels[0].sampler = v;
    else if (where === 'sampler.input') anim.samplers[0].input = v;
    else if (where === 'sampler.output') anim.samplers[0].output = v;
    else if (where === 'prim.indices') json.meshes[0].primitives[0].indices = v;
    else if (where === 'prim.POSITION') json.meshes[0].primitives[0].attributes.POSITION = v;
    else if (where === 'scene.node') json.scenes[0].nodes[0] = v;
    else json.scene = v;
    return `${where} = ${JSON.stringify(v)}`;
  }),
  stringNumber: jsonMut('string for a number', (rng, json) => {
    const targets: [Json, string][] = [];
    const walk = (o: unknown): void => {
      if (Array.isArray(o)) o.forEach(walk);
      else if (o && typeof o === 'object') for (const [k, v] of Object.entries(o)) { if (typeof v === 'number') targets.push([o as Json, k]); else walk(v); }
    };
    walk(json);
    const [o, k] = pick(rng, targets);
    o[k] = String(o[k]);
    return `${k} = "${o[k]}"`;
  }),
  nodeTransform: jsonMut('node transform', (rng, json) => {
    const i = int(rng, json.nodes.length);
    const kind = pick(rng, ['rotation', 'translation', 'scale', 'matrix']);
    const v = kind === 'rotation' ? pick(rng, [[0, 0, 0, 2], [0, 0, 0, 0], [1, 2, 3], 'q']) : kind === 'matrix' ? pick(rng, [[1, 2, 3], new Array(16).fill(0)]) : pick(rng, [[1e39, 0, 0], [1, 2], ['1', 0, 0]]);
    json.nodes[i][kind] = v;
    return `node ${i} ${kind} = ${JSON.stringify(v)}`;
  }),
  deleteField: jsonMut('field removed', (rng, json) => {
    const what = pick(rng, ['asset', 'asset.version', 'accessor.count', 'accessor.componentType', 'accessor.type', 'bufferView.byteLength', 'buffers', 'bufferViews', 'skin.joints', 'mesh.primitives', 'prim.attributes', 'animation.channels', 'animation.samplers', 'channel.target', 'scene.nodes']);
    if (what === 'asset') delete json.asset;
    else if (what === 'asset.version') delete json.asset.version;
    else if (what.startsWith('accessor.')) delete json.accessors[int(rng, json.accessors.length)][what.slice(9)];
    else if (what === 'bufferView.byteLength') delete json.bufferViews[0].byteLength;
    else if (what === 'skin.joints') delete json.skins[0].joints;
    else if (what === 'mesh.primitives') delete json.meshes[0].primitives;
    else if (what === 'prim.attributes') delete json.meshes[0].primitives[0].attributes;
    else if (what.startsWith('animation.')) delete json.animations[0][what.slice(10)];
    else if (what === 'channel.target') delete json.animations[0].channels[0].target;
    else if (what === 'scene.nodes') delete json.scenes[0].nodes;
    else delete json[what];
    return what;
  }),
  deepJson: (rng, b) => {
    const depth = pick(rng, [100, 10_000, 200_000]);
    const text = JSON.stringify(b.json).replace('"asset":{', `"extras":${'['.repeat(depth)}${']'.repeat(depth)},"asset":{`);
    return { name: `extras nested ${depth} deep`, bytes: joinGlb(text, b.bin) };
  },
  notAnObject: (rng, b) => {
    const text = pick(rng, ['null', '[]', '42', '"glTF"', 'true', '{', '']);
    return { name: `JSON chunk = ${JSON.stringify(text)}`, bytes: joinGlb(text, b.bin) };
  },
  noBin: (_rng, b) => ({ name: 'binary chunk missing', bytes: joinGlb(JSON.stringify(b.json), null) }),
  flipJsonByte: (rng, b) => {
    const text = new TextEncoder().encode(JSON.stringify(b.json));
    const i = int(rng, text.length);
    const c = pick(rng, [0x30 + int(rng, 10), 0x2c, 0x22, 0x7d, 0x5d, 0x2d, 0x20]);
    text[i] = c;
    return { name: `JSON byte ${i} = ${JSON.stringify(String.fromCharCode(c))}`, bytes: joinGlb(new TextDecoder().decode(text), b.bin) };
  },
  flipBinBytes: (rng, b) => {
    const bin = b.bin.slice();
    const n = 1 + int(rng, 8);
    for (let k = 0; k < n; k++) bin[int(rng, bin.length)] = int(rng, 256);
    return { name: `${n} random binary bytes changed`, bytes: joinGlb(JSON.stringify(b.json), bin) };
  },
};

/** The mutation names, in a fixed order. */
export const MUTATION_NAMES: readonly string[] = Object.keys(MUTATIONS);

/**
 * `count` malformed cases from the base GLBs for a seed: mutations taken in turn (so a seed
 * of at least {@link MUTATION_NAMES}.length cases covers each), base and details from the seed.
 *
 * @example
 * for (const c of malformedGlbs(1, [base], 26)) await run(c.bytes);
 */
export function malformedGlbs(seed: number, bases: readonly Uint8Array[], count: number): FuzzCase[] {
  const rng = createRng(seed);
  const split = bases.map((bytes) => ({ ...splitGlb(bytes), bytes }));
  const out: FuzzCase[] = [];
  for (let k = 0; k < count; k++) {
    const name = MUTATION_NAMES[(k + seed) % MUTATION_NAMES.length]!;
    const bi = int(rng, split.length);
    const { name: what, bytes } = MUTATIONS[name]!(rng, split[bi]!);
    out.push({ name: `seed ${seed} #${k} base ${bi} ${what}`, bytes });
  }
  return out;
}
