/**
 * VRM spring-bone colliders read from a glTF's JSON (setup-time; engine-free; may allocate and
 * throw `bitrig/colliders: …`). Reads VRMC_springBone 1.0 (`colliders`, `colliderGroups`,
 * `springs`; a collider's VRMC_springBone_extended_collider shape when it is a plain sphere or
 * capsule) and VRM 0.x (`extensions.VRM.secondaryAnimation`: `colliderGroups` of spheres,
 * `boneGroups`). Shapes come out in their node's own space and units, as bitrig colliders are
 * given. A malformed container (the extension, or one of its arrays) throws naming the field; a
 * malformed or unsupported entry is skipped with the reason in `skipped`.
 */
import { describeValue } from './defaults';

/** One collider of the file, in its node's space and units. */
export interface VrmCollider {
  /** glTF node index the collider rides on. */
  node: number;
  /** That node's name (undefined when it has none). */
  nodeName: string | undefined;
  /** Sphere centre, or the capsule's first end (node space). */
  a: [number, number, number];
  /** The capsule's second end (node space); absent for a sphere. */
  b?: [number, number, number];
  /** Radius (node units, > 0). */
  radius: number;
  /** Indices into {@link VrmColliderSet.groups} of the groups that hold this collider. */
  groups: number[];
}

/** A collider group of the file: a name and the indices of its colliders in {@link VrmColliderSet.colliders}. */
export interface VrmColliderGroup {
  /** The group's name (VRM 1.0 `name`; VRM 0.x: the name of the group's node). */
  name: string;
  /** Indices into {@link VrmColliderSet.colliders}. */
  colliders: number[];
}

/** A spring of the file: the nodes it moves and the collider groups it collides with. */
export interface VrmSpring {
  /** The spring's name ('' when it has none). */
  name: string;
  /** glTF node indices of its joints (VRM 0.x: each root bone and all its descendants). */
  nodes: number[];
  /** Indices into {@link VrmColliderSet.groups}. */
  groups: number[];
}

/** What {@link readVrmColliders} found. */
export interface VrmColliderSet {
  /** Which extension the colliders came from (null: the file has none). */
  version: '1.0' | '0.x' | null;
  /** The colliders read (skipped ones left out; indices renumbered). */
  colliders: VrmCollider[];
  /** The collider groups (colliders skipped are left out of them). */
  groups: VrmColliderGroup[];
  /** The springs (joints and the groups they collide with). */
  springs: VrmSpring[];
  /** Entries left out, each with the JSON path and the reason. */
  skipped: { path: string; reason: string }[];
}

type Json = Record<string, unknown>;
type V3 = [number, number, number];

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNode = (v: unknown, nodes: readonly unknown[]): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) < nodes.length;
const finite3 = (v: unknown): v is V3 => Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
const okRadius = (r: unknown): r is number => typeof r === 'number' && r > 0 && r < 1e6;

/** The array at `obj[key]` ([] when absent); throws `bitrig/colliders: …` when it is not an array. */
function arrayAt(obj: Json, key: string, path: string): unknown[] {
  const v = obj[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new Error(`bitrig/colliders: ${path}.${key} must be an array, got ${describeValue(v)}`);
  return v;
}

/** The object at `obj[key]` (undefined when absent); throws when it is something else. */
function objectAt(obj: Json, key: string, path: string): Json | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (!isObj(v)) throw new Error(`bitrig/colliders: ${path}.${key} must be an object, got ${describeValue(v)}`);
  return v;
}

/** A shape record `{ sphere }` or `{ capsule }` read, or the reason it cannot be. Offsets default to the origin. */
function readShape(shape: unknown): { a: V3; b?: V3; radius: number } | string {
  if (!isObj(shape)) return `shape must be an object, got ${describeValue(shape)}`;
  const s = shape['sphere'] ?? shape['capsule'];
  if (!isObj(s)) return shape['plane'] !== undefined ? 'plane colliders are not supported (bitrig colliders are spheres and capsules)' : 'shape has neither sphere nor capsule';
  if (s['inside'] === true) return 'inside colliders (keeping bones within a shape) are not supported';
  const a = s['offset'] ?? [0, 0, 0];
  if (!finite3(a)) return `offset must be three finite numbers, got ${describeValue(a)}`;
  if (!okRadius(s['radius'])) return `radius must be a number in (0, 1e6), got ${describeValue(s['radius'])}`;
  if (shape['sphere'] !== undefined) return { a: [a[0], a[1], a[2]], radius: s['radius'] };
  const b = s['tail'] ?? [0, 0, 0];
  if (!finite3(b)) return `tail must be three finite numbers, got ${describeValue(b)}`;
  return { a: [a[0], a[1], a[2]], b: [b[0], b[1], b[2]], radius: s['radius'] };
}

/** Node name of `i` (undefined when none). */
function nodeName(nodes: readonly unknown[], i: number): string | undefined {
  const n = nodes[i];
  return isObj(n) && typeof n['name'] === 'string' ? n['name'] : undefined;
}

/** Keep the valid indices of `list` (into an array of length `n`), noting the others as skipped. */
function indices(list: unknown[], n: number, path: string, what: string, skipped: VrmColliderSet['skipped']): number[] {
  const out: number[] = [];
  list.forEach((v, k) => {
    if (Number.isInteger(v) && (v as number) >= 0 && (v as number) < n) out.push(v as number);
    else skipped.push({ path: `${path}[${k}]`, reason: `${describeValue(v)} is not a ${what} index (0…${n - 1})` });
  });
  return out;
}

/** VRMC_springBone 1.0: colliders (and their extended shapes), groups, springs. */
function readV1(ext: Json, nodes: readonly unknown[], out: VrmColliderSet): void {
  const P = 'extensions.VRMC_springBone';
  const renumber = new Map<number, number>();
  arrayAt(ext, 'colliders', P).forEach((c, i) => {
    const path = `${P}.colliders[${i}]`;
    if (!isObj(c)) { out.skipped.push({ path, reason: `a collider must be an object, got ${describeValue(c)}` }); return; }
    if (!isNode(c['node'], nodes)) { out.skipped.push({ path: `${path}.node`, reason: `${describeValue(c['node'])} is not a node index (0…${nodes.length - 1})` }); return; }
    const extended = isObj(c['extensions']) ? c['extensions']['VRMC_springBone_extended_collider'] : undefined;
    let shape = readShape(c['shape']);
    let where = `${path}.shape`;
    if (isObj(extended)) {
      const ex = readShape(extended['shape']);
      // (an extended shape bitrig cannot take falls back to the base shape, as the extension's readers do)
      if (typeof ex !== 'string') { shape = ex; where = `${path}.extensions.VRMC_springBone_extended_collider.shape`; }
      else out.skipped.push({ path: `${path}.extensions.VRMC_springBone_extended_collider.shape`, reason: `${ex}; the base shape is used` });
    }
    if (typeof shape === 'string') { out.skipped.push({ path: where, reason: shape }); return; }
    renumber.set(i, out.colliders.length);
    out.colliders.push({ node: c['node'], nodeName: nodeName(nodes, c['node']), ...shape, groups: [] });
  });
  const nColliders = arrayAt(ext, 'colliders', P).length;
  arrayAt(ext, 'colliderGroups', P).forEach((g, i) => {
    const path = `${P}.colliderGroups[${i}]`;
    const gg = isObj(g) ? g : {};
    if (!isObj(g)) out.skipped.push({ path, reason: `a collider group must be an object, got ${describeValue(g)} (kept empty)` });
    const list = indices(arrayAt(gg, 'colliders', path), nColliders, `${path}.colliders`, 'collider', out.skipped)
      .flatMap((k) => (renumber.has(k) ? [renumber.get(k)!] : []));
    out.groups.push({ name: typeof gg['name'] === 'string' ? gg['name'] : `colliderGroup${i}`, colliders: list });
  });
  arrayAt(ext, 'springs', P).forEach((s, i) => {
    const path = `${P}.springs[${i}]`;
    if (!isObj(s)) { out.skipped.push({ path, reason: `a spring must be an object, got ${describeValue(s)}` }); return; }
    const joints = arrayAt(s, 'joints', path).map((j) => (isObj(j) ? j['node'] : j));
    out.springs.push({
      name: typeof s['name'] === 'string' ? s['name'] : '',
      nodes: indices(joints, nodes.length, `${path}.joints`, 'node', out.skipped),
      groups: indices(arrayAt(s, 'colliderGroups', path), out.groups.length, `${path}.colliderGroups`, 'collider group', out.skipped),
    });
  });
}

/** Node `root` and every node under it (glTF `children`), cycle-safe. */
function subtree(nodes: readonly unknown[], root: number): number[] {
  const seen = new Set<number>(), stack = [root];
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (seen.has(i)) continue;
    seen.add(i);
    const kids = isObj(nodes[i]) ? nodes[i]['children'] : undefined;
    if (Array.isArray(kids)) for (const k of kids) if (isNode(k, nodes)) stack.push(k);
  }
  return [...seen];
}

/**
 * VRM 0.x `secondaryAnimation`: each collider group is a node with spheres. Offsets are stored
 * with z reversed (VRM 0.x files keep the exporter's reversed-z axis convention for them), so
 * the node-space centre is (x, y, −z).
 */
function readV0(sec: Json, nodes: readonly unknown[], out: VrmColliderSet): void {
  const P = 'extensions.VRM.secondaryAnimation';
  arrayAt(sec, 'colliderGroups', P).forEach((g, i) => {
    const path = `${P}.colliderGroups[${i}]`;
    const group: VrmColliderGroup = { name: `colliderGroup${i}`, colliders: [] };
    out.groups.push(group);
    if (!isObj(g)) { out.skipped.push({ path, reason: `a collider group must be an object, got ${describeValue(g)}` }); return; }
    if (!isNode(g['node'], nodes)) { out.skipped.push({ path: `${path}.node`, reason: `${describeValue(g['node'])} is not a node index (0…${nodes.length - 1})` }); return; }
    const node = g['node'];
    group.name = nodeName(nodes, node) ?? group.name;
    arrayAt(g, 'colliders', path).forEach((c, k) => {
      const cp = `${path}.colliders[${k}]`;
      const o = isObj(c) ? (c['offset'] ?? {}) : null;
      const v = isObj(o) ? [o['x'] ?? 0, o['y'] ?? 0, o['z'] ?? 0] : null;
      if (!isObj(c) || !finite3(v)) { out.skipped.push({ path: cp, reason: `offset must be { x, y, z } of finite numbers, got ${describeValue(isObj(c) ? c['offset'] : c)}` }); return; }
      if (!okRadius(c['radius'])) { out.skipped.push({ path: `${cp}.radius`, reason: `radius must be a number in (0, 1e6), got ${describeValue(c['radius'])}` }); return; }
      group.colliders.push(out.colliders.length);
      out.colliders.push({ node, nodeName: nodeName(nodes, node), a: [v[0], v[1], v[2] === 0 ? 0 : -v[2]], radius: c['radius'], groups: [] });
    });
  });
  arrayAt(sec, 'boneGroups', P).forEach((s, i) => {
    const path = `${P}.boneGroups[${i}]`;
    if (!isObj(s)) { out.skipped.push({ path, reason: `a bone group must be an object, got ${describeValue(s)}` }); return; }
    const roots = indices(arrayAt(s, 'bones', path), nodes.length, `${path}.bones`, 'node', out.skipped);
    out.springs.push({
      name: typeof s['comment'] === 'string' ? s['comment'] : '',
      nodes: [...new Set(roots.flatMap((r) => subtree(nodes, r)))],
      groups: indices(arrayAt(s, 'colliderGroups', path), out.groups.length, `${path}.colliderGroups`, 'collider group', out.skipped),
    });
  });
}

/**
 * The spring-bone colliders of a VRM file from its glTF JSON (VRMC_springBone 1.0 when
 * present, else VRM 0.x), in node space; `version` null and nothing else when the file has
 * neither. Throws `bitrig/colliders: …` naming the field when the JSON or a container in it is
 * malformed; bad entries are skipped with a reason. Setup-time.
 *
 * @example
 * const vrm = readVrmColliders(gltf.parser.json);
 * for (const s of vrm.skipped) console.warn(s.path, s.reason);
 */
export function readVrmColliders(json: unknown): VrmColliderSet {
  if (!isObj(json)) throw new Error(`bitrig/colliders: the glTF JSON must be an object, got ${describeValue(json)}`);
  const out: VrmColliderSet = { version: null, colliders: [], groups: [], springs: [], skipped: [] };
  const nodes = arrayAt(json, 'nodes', 'glTF');
  const exts = objectAt(json, 'extensions', 'glTF');
  if (!exts) return out;
  const v1 = objectAt(exts, 'VRMC_springBone', 'extensions');
  const vrm0 = objectAt(exts, 'VRM', 'extensions');
  if (v1) { out.version = '1.0'; readV1(v1, nodes, out); } else {
    const sec = vrm0 ? objectAt(vrm0, 'secondaryAnimation', 'extensions.VRM') : undefined;
    if (!sec) return out;
    out.version = '0.x';
    readV0(sec, nodes, out);
  }
  out.groups.forEach((g, i) => { for (const c of g.colliders) if (!out.colliders[c]!.groups.includes(i)) out.colliders[c]!.groups.push(i); });
  return out;
}
