/**
 * The shape of a GLB's JSON, checked before any reader walks it: every list a list of objects,
 * every reference an index in range, every count and offset a whole number, every accessor
 * inside its buffer view and every buffer view inside the binary chunk, formats the glTF rules
 * allow for each use (positions, indices, joints, weights, inverse bind matrices, key times),
 * one parent per node and no node cycles, one buffer (the GLB's own). Throws `bitrig/rig: …`
 * naming the accessor, buffer view, mesh, node, skin or clip. Values inside accessors are
 * checked on the Document afterwards (`validateDocument`).
 */
import { INPUT_LIMITS } from './limits';

type Obj = Record<string, unknown>;

const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const TYPE_SIZE: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const FLOAT = 5126;

function fail(msg: string): never {
  throw new Error(`bitrig/rig: ${msg}`);
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `accessor 3 "Tail_pos"` (the name when it has one). */
function label(kind: string, i: number, def: Obj): string {
  return typeof def.name === 'string' && def.name !== '' ? `${kind} ${i} "${def.name.slice(0, 60)}"` : `${kind} ${i}`;
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.slice(0, 40));
  if (v === undefined) return 'nothing';
  return Array.isArray(v) ? 'a list' : isObj(v) ? 'an object' : String(v);
}

/** The list `key` of `json` (absent = empty): a list of objects, else refused. */
function list(json: Obj, key: string, what: string): Obj[] {
  const v = json[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail(`"${key}" must be a list, got ${show(v)}`);
  v.forEach((d, i) => { if (!isObj(d)) fail(`${what} ${i} must be an object, got ${show(d)}`); });
  return v as Obj[];
}

/** A whole number in [min, max] (undefined gives `dflt` when one is given). */
function int(v: unknown, what: string, min: number, max = Number.MAX_SAFE_INTEGER, dflt?: number): number {
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    fail(`${what} must be a whole number${max < Number.MAX_SAFE_INTEGER ? ` in ${min}…${max}` : ` ≥ ${min}`}, got ${show(v)}`);
  }
  return v;
}

/** An index into a list of `n` (`undefined` allowed when `optional`). */
function ref(v: unknown, what: string, target: string, n: number, optional = true): number | null {
  if (v === undefined && optional) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(`${what} must be a ${target} index (a whole number), got ${show(v)}`);
  if (v < 0 || v >= n) {
    fail(`${what} refers to ${target} ${show(v)}, but the file has ${n === 0 ? 'none' : `${target}s 0…${n - 1}`}`);
  }
  return v;
}

function numbers(v: unknown, what: string, length: number): void {
  if (v === undefined) return;
  if (!Array.isArray(v) || v.length !== length || v.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
    fail(`${what} must be ${length} finite numbers`);
  }
}

/** Byte size of one element of an accessor (matrix columns padded to 4 bytes). */
function elementBytes(type: string, componentType: number): number {
  const cs = COMPONENT_BYTES[componentType]!;
  if (type === 'MAT2' && cs === 1) return 8;
  if (type === 'MAT3' && cs === 1) return 12;
  if (type === 'MAT3' && cs === 2) return 24;
  return TYPE_SIZE[type]! * cs;
}

interface Ctx {
  json: Obj;
  binLength: number;
  bufferViews: Obj[];
  accessors: Obj[];
  nodes: Obj[];
  /** Parent of each node (-1 for a root), filled by the node check. */
  parent: Int32Array;
}

function checkBuffers(c: Ctx): number[] {
  const buffers = list(c.json, 'buffers', 'buffer');
  if (buffers.length > 1) fail(`the file has ${buffers.length} buffers; bitrig reads GLBs whose data is all in the one binary chunk (repack it, e.g. npx @gltf-transform/cli copy in.glb out.glb)`);
  return buffers.map((b, i) => {
    if (b.uri !== undefined) fail(`${label('buffer', i, b)} points to ${typeof b.uri === 'string' && b.uri.startsWith('data:') ? 'a data: URI' : 'an outside file'}; bitrig reads GLBs whose data is in the binary chunk`);
    const len = int(b.byteLength, `${label('buffer', i, b)} byteLength`, 1);
    if (len > c.binLength) fail(`${label('buffer', i, b)} says ${len} bytes but the binary chunk has ${c.binLength}`);
    return len;
  });
}

function checkBufferViews(c: Ctx, bufferLengths: number[]): void {
  c.bufferViews.forEach((bv, i) => {
    const what = label('buffer view', i, bv);
    const b = ref(bv.buffer, what, 'buffer', bufferLengths.length, false)!;
    const off = int(bv.byteOffset, `${what} byteOffset`, 0, undefined, 0);
    const len = int(bv.byteLength, `${what} byteLength`, 1);
    if (off + len > bufferLengths[b]!) fail(`${what} (bytes ${off}…${off + len}) runs past the end of its buffer (${bufferLengths[b]} bytes)`);
    if (bv.byteStride !== undefined) {
      const s = int(bv.byteStride, `${what} byteStride`, 4, 252);
      if (s % 4 !== 0) fail(`${what} byteStride ${s} is not a multiple of 4`);
    }
    if (bv.target !== undefined && bv.target !== 34962 && bv.target !== 34963) fail(`${what} target must be 34962 or 34963, got ${show(bv.target)}`);
  });
}

/** One accessor's bytes against its buffer view (`what` names it). */
function checkAccessorBytes(c: Ctx, a: Obj, what: string, bytes: number, cs: number, count: number): void {
  const off = int(a.byteOffset, `${what} byteOffset`, 0, undefined, 0);
  if (a.bufferView === undefined) {
    if (a.byteOffset !== undefined) fail(`${what} has a byteOffset but no buffer view`);
    return;
  }
  const bvi = ref(a.bufferView, what, 'buffer view', c.bufferViews.length, false)!;
  const bv = c.bufferViews[bvi]!;
  const stride = (bv.byteStride as number | undefined) ?? bytes;
  if (stride < bytes) fail(`${what}: its buffer view's byteStride ${stride} is shorter than one element (${bytes} bytes)`);
  if (off % cs !== 0 || ((bv.byteOffset as number | undefined) ?? 0) % cs !== 0) fail(`${what}: its byte offset is not a multiple of its component size ${cs}`);
  const need = off + stride * (count - 1) + bytes;
  if (need > (bv.byteLength as number)) fail(`${what} claims ${count} elements (${need} bytes) but its buffer view ${bvi} holds ${bv.byteLength as number} bytes`);
}

function checkSparse(c: Ctx, a: Obj, what: string, count: number, bytes: number, cs: number): void {
  if (a.sparse === undefined) return;
  if (!isObj(a.sparse)) fail(`${what} sparse must be an object`);
  const s = a.sparse;
  const n = int(s.count, `${what} sparse count`, 1, count);
  if (!isObj(s.indices) || !isObj(s.values)) fail(`${what} sparse needs indices and values`);
  const ict = s.indices.componentType;
  if (ict !== 5121 && ict !== 5123 && ict !== 5125) fail(`${what} sparse indices must be unsigned bytes, shorts or ints, got ${show(ict)}`);
  const parts: [Obj, number, string][] = [[s.indices, COMPONENT_BYTES[ict]!, 'indices'], [s.values, bytes, 'values']];
  for (const [p, size, name] of parts) {
    const bvi = ref(p.bufferView, `${what} sparse ${name}`, 'buffer view', c.bufferViews.length, false)!;
    const off = int(p.byteOffset, `${what} sparse ${name} byteOffset`, 0, undefined, 0);
    if (off + size * n > (c.bufferViews[bvi]!.byteLength as number)) fail(`${what} sparse ${name} run past the end of buffer view ${bvi}`);
    if (off % (name === 'indices' ? size : cs) !== 0) fail(`${what} sparse ${name} byteOffset is not aligned`);
  }
}

function checkAccessors(c: Ctx): void {
  c.accessors.forEach((a, i) => {
    const what = label('accessor', i, a);
    const ct = a.componentType;
    if (typeof ct !== 'number' || !(ct in COMPONENT_BYTES)) fail(`${what} componentType must be one of 5120, 5121, 5122, 5123, 5125, 5126, got ${show(ct)}`);
    if (typeof a.type !== 'string' || !(a.type in TYPE_SIZE)) fail(`${what} type must be SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3 or MAT4, got ${show(a.type)}`);
    const count = int(a.count, `${what} count`, 1, 2 ** 31 - 1);
    if (a.normalized !== undefined && typeof a.normalized !== 'boolean') fail(`${what} normalized must be true or false, got ${show(a.normalized)}`);
    if (a.normalized === true && (ct === FLOAT || ct === 5125)) fail(`${what} is normalized, which only byte and short accessors can be`);
    const size = TYPE_SIZE[a.type]!;
    numbers(a.min, `${what} min`, size);
    numbers(a.max, `${what} max`, size);
    const cs = COMPONENT_BYTES[ct]!;
    const bytes = elementBytes(a.type, ct);
    checkAccessorBytes(c, a, what, bytes, cs, count);
    checkSparse(c, a, what, count, bytes, cs);
  });
}

/** The accessor `v` refers to (`what` names the reference), with its format checked against `formats` ("VEC3:5126", "VEC4:5121n"). */
function accessorRef(c: Ctx, v: unknown, what: string, formats: readonly string[] | null, optional = false): Obj | null {
  const i = ref(v, what, 'accessor', c.accessors.length, optional);
  if (i === null) return null;
  const a = c.accessors[i]!;
  const format = `${a.type as string}:${a.componentType as number}${a.normalized === true ? 'n' : ''}`;
  if (formats && !formats.includes(format)) fail(`${what} uses ${label('accessor', i, a)} of format ${format}; it must be one of ${formats.join(', ')}`);
  return a;
}

const F = (t: string): string => `${t}:5126`;
const ATTRIBUTE_FORMATS: Record<string, readonly string[]> = {
  POSITION: [F('VEC3')], NORMAL: [F('VEC3')], TANGENT: [F('VEC4')],
  TEXCOORD: [F('VEC2'), 'VEC2:5121n', 'VEC2:5123n'], COLOR: [F('VEC3'), F('VEC4'), 'VEC3:5121n', 'VEC3:5123n', 'VEC4:5121n', 'VEC4:5123n'],
  JOINTS: ['VEC4:5121', 'VEC4:5123'], WEIGHTS: [F('VEC4'), 'VEC4:5121n', 'VEC4:5123n'],
};
const INDEX_FORMATS = ['SCALAR:5121', 'SCALAR:5123', 'SCALAR:5125'];

function checkPrimitive(c: Ctx, p: Obj, what: string, materials: number): void {
  if (!isObj(p.attributes)) fail(`${what} has no attributes`);
  let count = -1;
  for (const [name, v] of Object.entries(p.attributes)) {
    const base = name.replace(/_\d+$/, '');
    const a = accessorRef(c, v, `${what} ${name}`, ATTRIBUTE_FORMATS[base] ?? null)!;
    if (count >= 0 && a.count !== count) fail(`${what}: its attributes have different counts (${name} has ${a.count as number}, another ${count})`);
    count = a.count as number;
  }
  if (p.attributes.POSITION === undefined) fail(`${what} has no POSITION`);
  const joints = Object.keys(p.attributes).filter((k) => k.startsWith('JOINTS_')).length;
  const weights = Object.keys(p.attributes).filter((k) => k.startsWith('WEIGHTS_')).length;
  if (joints !== weights) fail(`${what} has ${joints} JOINTS sets and ${weights} WEIGHTS sets`);
  accessorRef(c, p.indices, `${what} indices`, INDEX_FORMATS, true);
  ref(p.material, `${what} material`, 'material', materials);
  if (p.mode !== undefined) int(p.mode, `${what} mode`, 0, 6);
  if (p.targets !== undefined) {
    if (!Array.isArray(p.targets)) fail(`${what} targets must be a list`);
    p.targets.forEach((t, ti) => {
      if (!isObj(t)) fail(`${what} morph target ${ti} must be an object`);
      for (const [name, v] of Object.entries(t)) {
        const a = accessorRef(c, v, `${what} morph target ${ti} ${name}`, null)!;
        if (a.count !== count) fail(`${what} morph target ${ti} ${name} has ${a.count as number} elements for ${count} vertices`);
      }
    });
  }
}

function checkMeshes(c: Ctx): void {
  const materials = list(c.json, 'materials', 'material').length;
  list(c.json, 'meshes', 'mesh').forEach((m, mi) => {
    const what = label('mesh', mi, m);
    if (!Array.isArray(m.primitives) || m.primitives.length === 0) fail(`${what} has no primitives`);
    m.primitives.forEach((p, pi) => {
      if (!isObj(p)) fail(`${what} primitive ${pi} must be an object`);
      checkPrimitive(c, p, `${what} primitive ${pi}`, materials);
    });
  });
}

/** A column-major 4×4 matrix with an invertible 3×3 part and a last row of 0, 0, 0, 1. */
function decomposable(m: number[]): boolean {
  const det = m[0]! * (m[5]! * m[10]! - m[6]! * m[9]!) - m[4]! * (m[1]! * m[10]! - m[2]! * m[9]!) + m[8]! * (m[1]! * m[6]! - m[2]! * m[5]!);
  return Number.isFinite(det) && Math.abs(det) > 1e-12 && m[3] === 0 && m[7] === 0 && m[11] === 0 && m[15] === 1;
}

/** Nodes: references in range, one parent each, no cycles, finite transforms. */
function checkNodes(c: Ctx): void {
  const n = c.nodes.length;
  if (n > INPUT_LIMITS.maxNodes) fail(`the file has ${n} nodes, more than the ${INPUT_LIMITS.maxNodes} bitrig reads`);
  const parent = c.parent;
  const meshes = list(c.json, 'meshes', 'mesh').length;
  const skins = list(c.json, 'skins', 'skin').length;
  const cameras = list(c.json, 'cameras', 'camera').length;
  c.nodes.forEach((nd, i) => {
    const what = label('node', i, nd);
    if (nd.children !== undefined) {
      if (!Array.isArray(nd.children)) fail(`${what} children must be a list`);
      for (const ch of nd.children) {
        const k = ref(ch, `${what} children`, 'node', n, false)!;
        if (k === i) fail(`${what} is its own child`);
        if (parent[k] >= 0) fail(`${label('node', k, c.nodes[k]!)} has two parents (nodes ${parent[k]} and ${i})`);
        parent[k] = i;
      }
    }
    ref(nd.mesh, `${what} mesh`, 'mesh', meshes);
    ref(nd.skin, `${what} skin`, 'skin', skins);
    ref(nd.camera, `${what} camera`, 'camera', cameras);
    if (nd.skin !== undefined && nd.mesh === undefined) fail(`${what} has a skin but no mesh`);
    numbers(nd.matrix, `${what} matrix`, 16);
    if (Array.isArray(nd.matrix) && !decomposable(nd.matrix as number[])) fail(`${what} matrix cannot be split into translation, rotation and scale (its 3×3 part is singular or its last row is not 0, 0, 0, 1)`);
    if (nd.matrix !== undefined && (nd.translation !== undefined || nd.rotation !== undefined || nd.scale !== undefined)) fail(`${what} has both a matrix and translation, rotation or scale`);
    numbers(nd.translation, `${what} translation`, 3);
    numbers(nd.rotation, `${what} rotation`, 4);
    numbers(nd.scale, `${what} scale`, 3);
    if (Array.isArray(nd.rotation)) {
      const len = Math.hypot(...(nd.rotation as number[]));
      if (Math.abs(len - 1) > 0.00769) fail(`${what} rotation is not a unit quaternion (length ${len.toPrecision(4)})`);
    }
  });
  // With one parent each, a cycle is a parent chain longer than the node count.
  for (let i = 0; i < n; i++) {
    let p = parent[i]!;
    for (let steps = 0; p >= 0; steps++) {
      if (steps > n) fail(`${label('node', i, c.nodes[i]!)} is part of a node cycle (a node is its own ancestor)`);
      p = parent[p]!;
    }
  }
  list(c.json, 'scenes', 'scene').forEach((s, si) => {
    if (s.nodes === undefined) return;
    if (!Array.isArray(s.nodes)) fail(`${label('scene', si, s)} nodes must be a list`);
    for (const k of s.nodes) {
      const ni = ref(k, `${label('scene', si, s)} nodes`, 'node', n, false)!;
      if (parent[ni]! >= 0) fail(`${label('scene', si, s)} lists ${label('node', ni, c.nodes[ni]!)}, which is not a root node`);
    }
  });
  ref(c.json.scene, 'the default scene', 'scene', list(c.json, 'scenes', 'scene').length);
}

/** A node with a skin is in a scene only with its skin's joints (their tree is in that scene too). */
function checkSkinnedScenes(c: Ctx): void {
  const skins = list(c.json, 'skins', 'skin');
  const rootOf = (k: number): number => { while (c.parent[k]! >= 0) k = c.parent[k]!; return k; };
  list(c.json, 'scenes', 'scene').forEach((sc, si) => {
    const roots = new Set((sc.nodes as number[] | undefined) ?? []);
    c.nodes.forEach((nd, i) => {
      if (nd.skin === undefined || !roots.has(rootOf(i))) return;
      const j0 = (skins[nd.skin as number]!.joints as number[])[0]!;
      if (!roots.has(rootOf(j0))) fail(`${label('node', i, nd)} is skinned in ${label('scene', si, sc)}, but the joints of its skin are not in that scene`);
    });
  });
}

function checkSkins(c: Ctx): void {
  list(c.json, 'skins', 'skin').forEach((s, si) => {
    const what = label('skin', si, s);
    if (!Array.isArray(s.joints) || s.joints.length === 0) fail(`${what} has no joints`);
    const seen = new Set<number>();
    for (const j of s.joints) {
      const k = ref(j, `${what} joints`, 'node', c.nodes.length, false)!;
      if (seen.has(k)) fail(`${what} lists node ${k} twice as a joint`);
      seen.add(k);
    }
    const root = ref(s.skeleton, `${what} skeleton`, 'node', c.nodes.length);
    const rootOf = (k: number): number => { while (c.parent[k]! >= 0) k = c.parent[k]!; return k; };
    const under = (k: number, a: number): boolean => { for (; k >= 0; k = c.parent[k]!) if (k === a) return true; return false; };
    const tree = rootOf(s.joints[0] as number);
    for (const j of s.joints as number[]) {
      if (root !== null && !under(j, root)) fail(`${what} skeleton node ${root} is not above its joint ${label('node', j, c.nodes[j]!)}`);
      if (rootOf(j) !== tree) fail(`${what} has joints in two separate node trees (${label('node', s.joints[0] as number, c.nodes[s.joints[0] as number]!)} and ${label('node', j, c.nodes[j]!)})`);
    }
    const ibm = accessorRef(c, s.inverseBindMatrices, `${what} inverseBindMatrices`, [F('MAT4')], true);
    if (ibm && (ibm.count as number) < s.joints.length) fail(`${what} has ${ibm.count as number} inverse bind matrices for ${s.joints.length} joints`);
  });
}

const PATHS: Record<string, readonly string[]> = {
  translation: [F('VEC3')], scale: [F('VEC3')], weights: [F('SCALAR'), 'SCALAR:5120n', 'SCALAR:5121n', 'SCALAR:5122n', 'SCALAR:5123n'],
  rotation: [F('VEC4'), 'VEC4:5120n', 'VEC4:5121n', 'VEC4:5122n', 'VEC4:5123n'],
};

function checkAnimations(c: Ctx): void {
  list(c.json, 'animations', 'animation').forEach((an, ai) => {
    const what = label('clip', ai, an);
    const samplers = list(an, 'samplers', `${what} sampler`);
    const channels = list(an, 'channels', `${what} channel`);
    if (channels.length === 0 || samplers.length === 0) fail(`${what} has no ${channels.length === 0 ? 'channels' : 'samplers'} (a clip needs at least one of each)`);
    const pathOf: (string | null)[] = samplers.map(() => null);
    channels.forEach((ch, ci) => {
      const s = ref(ch.sampler, `${what} channel ${ci}`, 'sampler', samplers.length, false)!;
      if (!isObj(ch.target)) fail(`${what} channel ${ci} has no target`);
      ref(ch.target.node, `${what} channel ${ci} target`, 'node', c.nodes.length);
      const path = ch.target.path;
      if (typeof path !== 'string' || !(path in PATHS)) fail(`${what} channel ${ci} target path must be translation, rotation, scale or weights, got ${show(path)}`);
      pathOf[s] = path;
    });
    samplers.forEach((s, si) => {
      const sw = `${what} sampler ${si}`;
      const input = accessorRef(c, s.input, `${sw} input (key times)`, [F('SCALAR')])!;
      const output = accessorRef(c, s.output, `${sw} output (key values)`, pathOf[si] ? PATHS[pathOf[si]]! : null)!;
      const interp = s.interpolation ?? 'LINEAR';
      if (interp !== 'LINEAR' && interp !== 'STEP' && interp !== 'CUBICSPLINE') fail(`${sw} interpolation must be LINEAR, STEP or CUBICSPLINE, got ${show(interp)}`);
      const keys = input.count as number;
      const per = interp === 'CUBICSPLINE' ? 3 : 1;
      if (pathOf[si] !== 'weights' && (output.count as number) !== keys * per) fail(`${sw} has ${output.count as number} values for ${keys} key times`);
      if (pathOf[si] === 'weights' && (output.count as number) % (keys * per) !== 0) fail(`${sw} has ${output.count as number} morph weights for ${keys} key times`);
    });
  });
}

function checkTexturesAndImages(c: Ctx): void {
  const images = list(c.json, 'images', 'image');
  images.forEach((im, i) => {
    const what = label('image', i, im);
    if (im.uri !== undefined && !(typeof im.uri === 'string' && im.uri.startsWith('data:'))) fail(`${what} points to an outside file; bitrig reads self-contained GLBs`);
    ref(im.bufferView, `${what}`, 'buffer view', c.bufferViews.length);
    if ((im.uri === undefined) === (im.bufferView === undefined)) fail(`${what} needs either a bufferView or a data: URI`);
    if (im.bufferView !== undefined && typeof im.mimeType !== 'string') fail(`${what} is in a buffer view but has no mimeType`);
  });
  const samplers = list(c.json, 'samplers', 'texture sampler').length;
  const textures = list(c.json, 'textures', 'texture');
  textures.forEach((t, i) => {
    ref(t.source, label('texture', i, t), 'image', images.length);
    ref(t.sampler, label('texture', i, t), 'texture sampler', samplers);
  });
  list(c.json, 'materials', 'material').forEach((m, i) => {
    const what = label('material', i, m);
    const pbr = isObj(m.pbrMetallicRoughness) ? m.pbrMetallicRoughness : {};
    const infos: [string, unknown][] = [['baseColorTexture', pbr.baseColorTexture], ['metallicRoughnessTexture', pbr.metallicRoughnessTexture],
      ['normalTexture', m.normalTexture], ['occlusionTexture', m.occlusionTexture], ['emissiveTexture', m.emissiveTexture]];
    for (const [name, info] of infos) {
      if (info === undefined) continue;
      if (!isObj(info)) fail(`${what} ${name} must be an object`);
      ref(info.index, `${what} ${name}`, 'texture', textures.length, false);
      if (info.texCoord !== undefined) int(info.texCoord, `${what} ${name} texCoord`, 0, 7);
    }
  });
}

/**
 * Check the JSON of a GLB whose binary chunk has `binLength` bytes (see the module header).
 * Throws `bitrig/rig: …` with the first problem found.
 *
 * @example
 * const { json, bin } = readGlbChunks(bytes);
 * checkGltfStructure(json, bin?.byteLength ?? 0);
 */
export function checkGltfStructure(json: Obj, binLength: number): void {
  if (!isObj(json.asset) || typeof json.asset.version !== 'string') fail('the file has no "asset" with a glTF "version"');
  if (!/^2\.\d+$/.test(json.asset.version)) fail(`the file is glTF version ${show(json.asset.version)}; bitrig reads glTF 2.x`);
  for (const key of ['extensionsUsed', 'extensionsRequired']) {
    const v = json[key];
    if (v !== undefined && (!Array.isArray(v) || v.some((e) => typeof e !== 'string'))) fail(`"${key}" must be a list of extension names`);
  }
  const c: Ctx = {
    json, binLength,
    bufferViews: list(json, 'bufferViews', 'buffer view'),
    accessors: list(json, 'accessors', 'accessor'),
    nodes: list(json, 'nodes', 'node'),
    parent: new Int32Array(0),
  };
  c.parent = new Int32Array(c.nodes.length).fill(-1);
  checkBufferViews(c, checkBuffers(c));
  checkAccessors(c);
  checkMeshes(c);
  checkNodes(c);
  checkSkins(c);
  checkSkinnedScenes(c);
  checkAnimations(c);
  checkTexturesAndImages(c);
  list(json, 'cameras', 'camera');
}
