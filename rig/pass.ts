/**
 * The rig pass (SPEC §1): find the pieces of skin far from the skeleton on every skin of a
 * glTF-Transform Document, decide per piece (chain, rigid, left alone), grow a chain of bones
 * along a tail and re-weight its skin. Works in place on the Document; no file I/O, no Node
 * imports (runs in the browser too). Everything is in bind space, model units.
 *
 * Reads: skins (joints, inverse bind matrices), POSITION, JOINTS_0/WEIGHTS_0 (and _1) of every
 * primitive using a skin. Writes: new joint nodes under the pelvis, the skin's joints and
 * inverse bind matrices, JOINTS/WEIGHTS of the re-weighted vertices only. Clips untouched.
 *
 * Beyond the seeds ([ours], each an option):
 * - Fat bodies hide tails: a quadruped's far belly skin joins the tail's into one worn torso
 *   piece at 7 % of H. Such a piece is searched again at raised thresholds (×1.25 per step up
 *   to 0.3 H) for a long piece hanging from the pelvis with a compact root ring (collar spread
 *   ≤ 0.4 of its reach) or skin driven from far away.
 * - The re-weighted domain of a tail is its far piece plus the connected skin that is driven
 *   from far away (weighted bone distance − skeleton distance > 3.5 % of H), crossing between
 *   touching shells: a tail's root ring, or a whole tail shell, given to a shin is tail too.
 *   Its geodesic coordinate starts at the ring of kept body skin around that domain.
 * - Tail candidates whose domains touch are one tail; floating shells (a tip in another
 *   material) join the piece they touch; unwelded shells of one tail are bridged.
 * - Only pieces reaching at least 15 % of H from their collar are long (belt pouches are not).
 * - Body, not worn: a long torso piece that fails the appendage tests is worn (a cape, a
 *   skirt: made rigid only with include "torso") unless it is the body itself: a volume, not a
 *   thin sheet (sqrt(λ3/λ2) ≥ BODY_MIN_THICKNESS 0.3: a cape is a sheet), that is elongated
 *   (≥ minElongation) along a direction more than 45° from up (it lies along the body like a
 *   quadruped's belly, flanks and neck, where capes and straps hang), or holds at least half
 *   of the surface area of all skins sharing its skeleton's joint nodes (exporters that write
 *   one skin per mesh put a cape in a skin of its own). Such a piece is kind `body`, searched
 *   for a hidden tail like a worn one, and never made rigid.
 * - A tail chain the skin already has (found by name: an artist's `Tail1…`, or `Tail_1…` from
 *   an earlier run) never gets a second chain beside it. Tail skin is at such a chain when its
 *   nearest bone is one of the chain's (or its parent) and it lies within the tail's diameter
 *   of the chain's polyline (2 × the RMS distance of the domain from its own axis, at least
 *   the far threshold: the chain runs inside the tail); each vertex goes to its nearest chain,
 *   so a forked tail with a chain per branch is done in one run. A domain ≥ 25 % at chains is
 *   re-weighted onto them when at least half of it lies along them while weighted mostly to
 *   other bones that are farther (by the absorb margin) than the chain: weights by the SPEC §1
 *   blend on the coordinate of the nearest point of the chain's polyline. Otherwise (or in
 *   rigid mode) it is left alone and the report names the chain. The part of the domain beyond
 *   every chain's bound (a separate tail nearby, a fork's bare branch) grows its own chain when
 *   it is long. So a run on the pass's own output changes nothing.
 */
import type { Document } from '@gltf-transform/core';
import { addChainBones, chainBoneNames } from './bones';
import { findTailChains } from '../core/boneMap';
import { bridgeShells, chainCoordinate, chainJoints, chainWeights, geodesic, percentileOf, segmentCount } from './chain';
import type { DetectInput, Piece } from './detect';
import { findPieces, symEigen3 } from './detect';
import { boneSegments, jointBones, skeletonDistance, vertexBoneDistance, weightedBoneDistance } from './distance';
import type { VertexInfluence } from './meshData';
import { readSkinMesh, writeInfluences } from './meshData';
import type { RigOptions, RigOptionsInput } from './options';
import { mergeRigOptions, RIG_DEFAULTS } from './options';
import type { SkinSkeleton } from './skeleton';
import { REGION_HEAD, REGION_LIMB, REGION_PELVIS, REGION_SPINE, jointRegions, readSkinSkeleton, regionName } from './skeleton';
import type { WeldGraph } from './weld';
import type { PointGrid } from './weld';
import { gridNeighbours, pointGrid, weldGraph } from './weld';

/**
 * What the pass did with a piece: `'chain'` grew new bones along it, `'existing-chain'`
 * re-weighted it onto a tail chain the skin already had (no bones added), `'rigid'` put it on
 * one bone, `'left-alone'` changed nothing.
 */
export type AppendageVerdict = 'chain' | 'existing-chain' | 'rigid' | 'left-alone';

/**
 * What a piece is: `tail` (long, hanging from the pelvis), `spine` (long, hanging from the
 * spine: sheath, quiver, strap), `worn` (long but wide or hanging on the torso: cape, skirt),
 * `body` (far skin of the body itself: a long body's belly, flanks and neck, or most of the
 * skin; never made rigid, not even with include "torso"), `short` (on the torso but shorter
 * than `minReach`), `head` (ears, hair), `limb` (sleeves, hands, feet), `speck` (a few vertices).
 */
export type AppendageKind = 'tail' | 'spine' | 'worn' | 'body' | 'short' | 'head' | 'limb' | 'speck';

/** One piece of far skin found by the pass. Lengths in model units (bind space). */
export interface AppendageReport {
  /** `'chain'`, `'existing-chain'`, `'rigid'` or `'left-alone'`. */
  verdict: AppendageVerdict;
  /** What the piece is. */
  kind: AppendageKind;
  /** Why, in words. */
  reason: string;
  /** Name of the skin the piece is skinned to. */
  skin: string;
  /** Attachment joint name after the torso/thigh bias (a thigh head at the pelvis reports the pelvis). */
  attachment: string;
  /** Joint nearest to the collar centroid (before the bias). */
  nearestJoint: string;
  /** Body region of the attachment: pelvis, spine, head, limb or other. */
  region: string;
  /** Original (unwelded) vertices of the far piece. */
  vertexCount: number;
  /** Original vertices whose weights the pass changed (the piece plus re-weighted collar skin). */
  changedVertexCount: number;
  /** Max distance from the collar centroid to a piece vertex. */
  reach: number;
  /** Reach as a fraction of the model height. */
  reachRatio: number;
  /** Skeleton distance of the piece's centroid divided by its reach (appendage test ≥ 0.4). */
  centroidRatio: number;
  /** sqrt(λ1/λ2) of the piece's covariance (tail ≈ 2.6, cape ≈ 1). */
  elongation: number;
  /** sqrt(λ3/λ2) of the piece's covariance: near 0 for a thin sheet (a cape), up to 1 for a round volume (a body's shell, a skirt's tube). */
  thickness: number;
  /** Raw pieces merged into this one (overlapping shells). */
  merged: number;
  /** Far threshold the piece was found at, as a fraction of H (raised inside fat bodies). */
  farFraction: number;
  /** RMS spread of the collar around its centroid divided by the reach. */
  collarSpread: number;
  /** Fraction of the piece's vertices driven from far away (the rigger's mistake). */
  misweighted: number;
  /** Tail length L (p99 of the geodesic coordinate), chains only; the existing chain's bone length for `'existing-chain'`; else 0. */
  length: number;
  /** Segment count K, chains only; the existing chain's bone count for `'existing-chain'`; else 0. */
  segments: number;
  /** New bone names (`Tail_1…Tail_K`, `Tail_End`), chains only; the existing chain's bones (and end helper) for `'existing-chain'`. */
  joints: string[];
  /** Bone the piece was made rigid on (rigid only), else ''. */
  rigidBone: string;
  /** Mean weighted bone distance over the piece's vertices before the pass. */
  boneDistanceBefore: number;
  /** The same after the pass (equal to before when left alone). */
  boneDistanceAfter: number;
}

/** A tail chain the skin already had when the pass ran (an artist's, or one an earlier run grew). */
export interface ExistingChainReport {
  /** Name of the skin the chain belongs to. */
  skin: string;
  /** Bone names from the root outward, then the end helper (`Tail_End`) when there is one. */
  joints: string[];
  /** Parent joint of the first bone ('' when the chain is a root). */
  parent: string;
  /** Original vertices this run re-weighted onto the chain (skin lying along it but weighted to a body bone). */
  changedVertexCount: number;
}

/** Result of {@link rigAppendages}. */
export interface RigReport {
  /** One entry per piece found, in skin order, largest first. */
  appendages: AppendageReport[];
  /** Model height H (bind space, model units, along `up`). */
  height: number;
  /** Bind-space up axis used for H. */
  up: [number, number, number];
  /** Number of chains grown (new bones). */
  chains: number;
  /**
   * Tail chains found by name (core/boneMap) before the pass ran, per skin. No chain is grown
   * beside one of them: skin along one is re-weighted onto it, other tail skin at it is left alone.
   */
  existingChains: ExistingChainReport[];
  /** Things worth knowing that are not pieces (a skin without a pelvis, an unskinned mesh…). */
  notes: string[];
  /** Original vertices re-weighted in total. */
  changedVertices: number;
  /** Wall time of the pass in milliseconds. */
  ms: number;
}

interface SkinWork {
  skel: SkinSkeleton;
  mesh: ReturnType<typeof readSkinMesh>;
  label: string;
  /** Why nothing on this skin can be measured (its bind skeleton is one point), or null. */
  skip: string | null;
}

/**
 * A value for an input error message: strings quoted, objects named by their constructor
 * (`a Uint8Array of 12 bytes`, `an ArrayBuffer of 3 bytes`, `a three.js Object3D (Group)`,
 * `an object`), null and undefined as they are.
 *
 * @example
 * describeInput('fox.glb'); // '"fox.glb" (a string)'
 */
export function describeInput(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'string') return `${JSON.stringify(v.length > 80 ? `${v.slice(0, 77)}…` : v)} (a string)`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${String(v)} (a ${typeof v})`;
  if (typeof v === 'function') return 'a function';
  if (typeof v !== 'object') return `a ${typeof v}`;
  if ((v as { isObject3D?: unknown }).isObject3D === true) return `a three.js Object3D (${(v as { type?: unknown }).type ?? 'Object3D'})`;
  const ctor = (v as { constructor?: { name?: unknown } }).constructor?.name;
  const name = typeof ctor === 'string' && ctor !== '' && ctor !== 'Object' ? ctor : null;
  if (ArrayBuffer.isView(v)) return `${/^[AEIO]/.test(name ?? 'T') ? 'an' : 'a'} ${name ?? 'typed array'} of ${v.byteLength} bytes`;
  if (v instanceof ArrayBuffer) return `an ArrayBuffer of ${v.byteLength} bytes`;
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof (v as { getRoot?: unknown }).getRoot === 'function') return 'a glTF-Transform Document';
  return name ? `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name}` : 'an object';
}

/**
 * Throw `<module>: expected a glTF-Transform Document …, got …` unless `value` is one. Duck
 * typed (`getRoot().listSkins()`), so a Document from another copy of @gltf-transform/core
 * passes. The message names what was given and what to do with it: GLB bytes (read them into
 * a Document), a path, a three.js object (`placeOnGround` from 'bitrig/three' works on one).
 *
 * @example
 * assertDocument(doc, 'bitrig/rig'); // throws for rigAppendages(bytes)
 */
export function assertDocument(value: unknown, module: string): asserts value is Document {
  const root = value && typeof value === 'object' && typeof (value as { getRoot?: unknown }).getRoot === 'function'
    ? (value as { getRoot: () => unknown }).getRoot() : null;
  if (root && typeof (root as { listSkins?: unknown }).listSkins === 'function') return;
  const tag = Object.prototype.toString.call(value);
  let hint = '';
  if (ArrayBuffer.isView(value) || tag === '[object ArrayBuffer]') hint = ': read the bytes into one first (const doc = await new WebIO().readBinary(bytes)), or give the bytes to rigGlb';
  else if (typeof value === 'string') hint = ': read the file into one first (await new NodeIO().read(path) in Node)';
  else if (value && typeof value === 'object' && (value as { isObject3D?: unknown }).isObject3D === true) hint = ": bitrig/rig works on glTF files; for a model loaded with three.js use placeOnGround and the animator from 'bitrig/three'";
  throw new Error(`${module}: expected a glTF-Transform Document (e.g. await new WebIO().readBinary(bytes)), got ${describeInput(value)}${hint}`);
}

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * Find tails (and other far pieces) on every skin of `doc`, grow bone chains along the
 * tails and re-weight their skin, in place. Tail skin at a tail chain the skin already has
 * goes onto that chain or is left alone (see the header); `existingChains` lists such chains.
 * A skin without inverse bind matrices has identity ones (glTF 2.0): all its joints sit at the
 * bind-space origin, so it is left as it is with a note. Throws `bitrig/rig: …` on bad input
 * (not a Document, no skin, a model of zero height, bad options).
 *
 * @example
 * const io = new WebIO();
 * const doc = await io.readBinary(bytes);
 * const report = rigAppendages(doc, { mode: 'chain' });
 * for (const a of report.appendages) console.log(a.verdict, a.attachment, a.reason);
 */
export function rigAppendages(doc: Document, options: RigOptionsInput = {}): RigReport {
  assertDocument(doc, 'bitrig/rig');
  const t0 = now();
  const o = mergeRigOptions(options);
  const progress = (step: string, f: number): void => {
    if (o.onProgress) o.onProgress(step, Math.min(1, Math.max(0, f)));
  };
  const skins = doc.getRoot().listSkins();
  if (skins.length === 0) throw new Error('bitrig/rig: the model has no skin (nothing is skinned to a skeleton)');
  progress('skeleton', 0);
  const works: SkinWork[] = [];
  skins.forEach((skin, si) => {
    const skel = readSkinSkeleton(skin, o.pelvis && skinHasJoint(skin, o.pelvis) ? o.pelvis : null);
    const mesh = readSkinMesh(doc, skin);
    const label = skin.getName() || `skin ${si}`;
    for (let v = 0; v < mesh.count; v++) {
      for (let k = 0; k < mesh.slots; k++) {
        const j = mesh.joints[mesh.slots * v + k]!;
        if (mesh.weights[mesh.slots * v + k]! > 0 && j < skel.weighted.length) skel.weighted[j] = 1;
      }
    }
    works.push({ skel, mesh, label, skip: unmeasurable(skel, mesh.positions, label) });
  });
  if (o.pelvis && !works.some((w) => w.skel.names.includes(o.pelvis!))) {
    throw new Error(`bitrig/rig: pelvis "${o.pelvis}" is not a joint of any skin`);
  }
  if (works.every((w) => w.mesh.count === 0)) throw new Error('bitrig/rig: no primitive is skinned (no JOINTS_0/WEIGHTS_0 on any mesh using a skin)');
  // Model height H along each skin's up axis; the largest skin sets H for all.
  let height = 0;
  let up: [number, number, number] = [0, 1, 0];
  let maxAbs = 0;
  for (const w of works) {
    if (w.mesh.count === 0 || w.skip) continue;
    const u = w.skel.up;
    let lo = Infinity, hi = -Infinity;
    const P = w.mesh.positions;
    for (let v = 0; v < w.mesh.count; v++) {
      const x = P[3 * v]!, y = P[3 * v + 1]!, z = P[3 * v + 2]!;
      const h = x * u[0]! + y * u[1]! + z * u[2]!;
      if (h < lo) lo = h;
      if (h > hi) hi = h;
      maxAbs = Math.max(maxAbs, Math.abs(x), Math.abs(y), Math.abs(z));
    }
    // All joints count (a model whose only skinned parts are its hands is still body-sized).
    const J = w.skel.positions;
    for (let j = 0; j < w.skel.names.length; j++) {
      const h = J[3 * j]! * u[0]! + J[3 * j + 1]! * u[1]! + J[3 * j + 2]! * u[2]!;
      if (h < lo) lo = h;
      if (h > hi) hi = h;
    }
    if (hi - lo > height) {
      height = hi - lo;
      up = [u[0]!, u[1]!, u[2]!];
    }
  }
  const measured = works.some((w) => w.mesh.count > 0 && !w.skip);
  if (measured && (!(height > 1e-9 * Math.max(1, maxAbs)) || !Number.isFinite(height))) {
    throw new Error('bitrig/rig: the model has zero height (its skinned bind-space bounding box is flat along the up axis)');
  }
  const H = height;
  const far = o.farFraction * H;
  const appendages: AppendageReport[] = [];
  const existingChains: ExistingChainReport[] = [];
  let chains = 0;
  let changedVertices = 0;
  // [ours] Skins that share joint nodes are one skeleton (FBX2glTF and three's GLTFExporter
  // write one skin per skinned mesh): a piece's share of the surface area is measured against
  // all of them, so a cape in its own skin is not "most of the skin".
  const skeletonArea = sharedSkeletonArea(skins, works);
  works.forEach((w, wi) => {
    if (w.mesh.count === 0 || w.skip) return;
    const r = rigSkin(doc, w, o, H, far, (step, f) => progress(step, (wi + f) / works.length), chains, skeletonArea[wi]!);
    appendages.push(...r.reports);
    existingChains.push(...r.existing);
    chains += r.chains;
    changedVertices += r.changed;
  });
  progress('done', 1);
  const notes: string[] = [];
  const largest = Math.max(...works.map((w) => w.mesh.count));
  for (const w of works) {
    if (w.skip) {
      if (w.mesh.count > 0) notes.push(w.skip);
      continue;
    }
    // The body's skin without a pelvis is worth a note; a 2-joint visor skin is not.
    if (w.mesh.count === largest && w.skel.pelvis < 0) notes.push(`${w.label}: no pelvis found by name or structure, so nothing on it can be a tail (name one with the pelvis option)`);
  }
  return { appendages, height: H, up, chains, existingChains, notes, changedVertices, ms: now() - t0 };
}

/**
 * Why a skin's bind skeleton cannot be measured against its skin, or null when it can. A skin
 * without inverse bind matrices has identity ones (glTF 2.0), so all its joints sit at the
 * bind-space origin; explicit matrices can also put every joint at one point. Either way the
 * skeleton distance is the distance from that point and says nothing about tails.
 */
function unmeasurable(skel: SkinSkeleton, positions: Float64Array, label: string): string | null {
  const J = skel.positions;
  const n = skel.names.length;
  let extent = 0;
  for (let i = 0; i < positions.length; i++) extent = Math.max(extent, Math.abs(positions[i]!));
  for (let i = 0; i < J.length; i++) extent = Math.max(extent, Math.abs(J[i]!));
  let spread = 0;
  for (let j = 1; j < n; j++) spread = Math.max(spread, Math.hypot(J[3 * j]! - J[0]!, J[3 * j + 1]! - J[1]!, J[3 * j + 2]! - J[2]!));
  const onePoint = spread <= 1e-7 * Math.max(extent, 1e-30);
  if (!skel.hasInverseBind) {
    return `${label}: no inverse bind matrices, so glTF 2.0 makes them identity and puts ${n > 1 ? `all ${n} joints` : 'its joint'} at the bind-space origin; nothing on it can be measured against the skeleton, left as it is`;
  }
  if (n > 1 && onePoint) return `${label}: its inverse bind matrices put all ${n} joints at one point of bind space; nothing on it can be measured against the skeleton, left as it is`;
  return null;
}

/** Surface area of a skin's triangles (model units²; non-finite triangles skipped). */
function meshArea(mesh: SkinWork['mesh']): number {
  const P = mesh.positions;
  const T = mesh.triangles;
  let area = 0;
  for (let t = 0; t < T.length; t += 3) {
    const i = 3 * T[t]!, j = 3 * T[t + 1]!, k = 3 * T[t + 2]!;
    const ux = P[j]! - P[i]!, uy = P[j + 1]! - P[i + 1]!, uz = P[j + 2]! - P[i + 2]!;
    const vx = P[k]! - P[i]!, vy = P[k + 1]! - P[i + 1]!, vz = P[k + 2]! - P[i + 2]!;
    const a = Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx) / 2;
    if (Number.isFinite(a)) area += a;
  }
  return area;
}

/**
 * Per skin, the surface area of every skin that shares a joint node with it, directly or
 * through another skin (one skeleton written as one skin per mesh), itself included.
 */
function sharedSkeletonArea(skins: ReturnType<ReturnType<Document['getRoot']>['listSkins']>, works: SkinWork[]): Float64Array {
  const n = skins.length;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  const owner = new Map<unknown, number>();
  skins.forEach((skin, si) => {
    for (const j of skin.listJoints()) {
      const o = owner.get(j);
      if (o === undefined) owner.set(j, si);
      else parent[root(si)] = root(o);
    }
  });
  const areaOf = works.map((w) => (w.mesh.count > 0 ? meshArea(w.mesh) : 0));
  const sum = new Float64Array(n);
  for (let i = 0; i < n; i++) sum[root(i)]! += areaOf[i]!;
  return Float64Array.from({ length: n }, (_, i) => sum[root(i)]!);
}

/** A piece with its decision and, for tails, its re-weighting domain. */
interface Found {
  piece: Piece;
  decision: Decision;
  /** Fraction of the piece's vertices driven from far away (weighted bone distance − skeleton distance > absorbMargin·H). */
  misweighted: number;
}

/** Run the pass on one skin. */
function rigSkin(
  doc: Document,
  w: SkinWork,
  o: RigOptions,
  H: number,
  far: number,
  progress: (step: string, f: number) => void,
  chainsBefore: number,
  skeletonArea: number,
): { reports: AppendageReport[]; chains: number; changed: number; existing: ExistingChainReport[] } {
  const { skel, mesh } = w;
  // Tail chains the skin already has (found by name before anything is grown here).
  const existing = existingTailChains(skel, o.leafStubFraction);
  const existingReports: ExistingChainReport[] = existing.map((c) => ({ skin: w.label, joints: c.names, parent: c.parent >= 0 ? skel.names[c.parent]! : '', changedVertexCount: 0 }));
  progress('weld', 0.05);
  const graph = weldGraph(mesh.positions, mesh.triangles, o.weldFraction * H);
  progress('distance', 0.15);
  const include = Uint8Array.from(skel.weighted);
  if (skel.pelvis >= 0) include[skel.pelvis] = 1;
  const segs = boneSegments(skel, include, o.leafStubFraction);
  // Nearest-bone field with every existing chain bone in it (weighted or not).
  const chainOfJoint = new Int32Array(skel.names.length).fill(-1);
  existing.forEach((c, ci) => {
    for (const b of c.bones) chainOfJoint[b] = ci;
  });
  let nearSegs: ReturnType<typeof boneSegments> | null = null;
  if (existing.length > 0) {
    const nearInclude = Uint8Array.from(include);
    for (const c of existing) for (const b of c.bones) nearInclude[b] = 1;
    nearSegs = boneSegments(skel, nearInclude, o.leafStubFraction);
  }
  const dist = new Float64Array(graph.count);
  skeletonDistance(segs, graph.positions, dist, null);
  // Bones of the original skeleton, for the weighted bone distance and re-weighting.
  const bonesBefore = jointBones(skel, o.leafStubFraction);
  const originalJoints = Uint16Array.from(mesh.joints);
  const originalWeights = Float32Array.from(mesh.weights);
  // How far each welded vertex is driven from: weighted bone distance minus skeleton distance.
  const drivenFrom = new Float64Array(graph.count).fill(NaN);
  const excess = (b: number): number => {
    if (Number.isNaN(drivenFrom[b]!)) {
      const P = graph.positions;
      let wbd = 0;
      for (let m = graph.membersStart[b]!; m < graph.membersStart[b + 1]!; m++) {
        const v = graph.members[m]!;
        wbd = Math.max(wbd, vertexBoneDistance(bonesBefore, originalJoints, originalWeights, mesh.slots * v, mesh.slots, P[3 * b]!, P[3 * b + 1]!, P[3 * b + 2]!));
      }
      drivenFrom[b] = wbd - dist[b]!;
    }
    return drivenFrom[b]!;
  };
  const margin = o.absorbMisweighted ? o.absorbMargin * H : Infinity;
  const misweightedOf = (p: Piece): number => {
    let c = 0;
    for (const v of p.vertices) if (excess(v) > margin) c++;
    return p.vertices.length ? c / p.vertices.length : 0;
  };
  // Surface area per welded vertex (a third of each triangle's), for the body's area share.
  const vertexArea = new Float64Array(graph.count);
  let totalArea = 0;
  {
    const P = mesh.positions;
    const T = mesh.triangles;
    for (let t = 0; t < T.length; t += 3) {
      const i = 3 * T[t]!, j = 3 * T[t + 1]!, k = 3 * T[t + 2]!;
      const ux = P[j]! - P[i]!, uy = P[j + 1]! - P[i + 1]!, uz = P[j + 2]! - P[i + 2]!;
      const vx = P[k]! - P[i]!, vy = P[k + 1]! - P[i + 1]!, vz = P[k + 2]! - P[i + 2]!;
      const third = Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx) / 6;
      if (!Number.isFinite(third)) continue;
      totalArea += 3 * third;
      vertexArea[graph.weldOf[T[t]!]!]! += third;
      vertexArea[graph.weldOf[T[t + 1]!]!]! += third;
      vertexArea[graph.weldOf[T[t + 2]!]!]! += third;
    }
  }
  // Against every skin of the skeleton (this one included), not this skin alone.
  const areaTotal = Math.max(totalArea, skeletonArea);
  const areaShare = (p: Piece): number => {
    let a = 0;
    for (const v of p.vertices) a += vertexArea[v]!;
    return areaTotal > 0 ? a / areaTotal : 0;
  };
  progress('pieces', 0.35);
  const regions = jointRegions(skel);
  const input: DetectInput = {
    graph,
    distance: dist,
    far,
    floatGap: o.floatGapFraction * far,
    segs,
    jointPositions: skel.positions,
    candidate: include,
    regions,
    attachBias: o.attachBias,
    mergeOverlap: o.mergeOverlap,
    height: H,
  };
  const levels: number[] = [];
  if (o.refineStep > 1) for (let t = far * o.refineStep; t <= o.maxFarFraction * H * (1 + 1e-9); t *= o.refineStep) levels.push(t);
  // [ours] Fat bodies hide tails: the far skin of a quadruped's belly joins the tail's into one
  // worn torso piece. Such a piece is searched again at raised thresholds for a long piece
  // hanging from the pelvis whose root is a compact ring, or whose skin is driven from far
  // away (the rigger's mistake this pass exists for). A skirt's hem is neither.
  const refine = (piece: Piece, k: number): Found[] => {
    if (k >= levels.length) return [];
    const out: Found[] = [];
    for (const sub of findPieces({ ...input, far: levels[k]! }, piece.vertices)) {
      const d = decide(sub, skel, regions, o, H, areaShare);
      const mis = misweightedOf(sub);
      if (d.tail && (sub.collarSpread <= o.maxCollarSpread || mis >= 0.5)) {
        d.reason += ` (found inside a worn piece at a raised far threshold of ${fmt(sub.far / H)} H)`;
        out.push({ piece: sub, decision: d, misweighted: mis });
      } else if (d.worn) out.push(...refine(sub, k + 1));
    }
    return out;
  };
  const found: Found[] = [];
  for (const piece of findPieces(input, null)) {
    const decision = decide(piece, skel, regions, o, H, areaShare);
    found.push({ piece, decision, misweighted: misweightedOf(piece) });
    if (decision.worn) found.push(...refine(piece, 0));
  }
  progress('decide', 0.45);
  const reportOf = (f: Found): AppendageReport => {
    const { piece } = f;
    const farVerts = membersOf(graph, piece.vertices);
    const bd = weightedBoneDistance(bonesBefore, mesh.positions, originalJoints, originalWeights, mesh.slots, farVerts);
    return {
      verdict: 'left-alone',
      kind: f.decision.kind,
      reason: f.decision.reason,
      skin: w.label,
      // A thigh head at the pelvis belongs to the body: report the pelvis itself.
      attachment: piece.attachment < 0 ? '' : regions[piece.attachment] === REGION_PELVIS && skel.pelvis >= 0 ? skel.names[skel.pelvis]! : skel.names[piece.attachment]!,
      nearestJoint: piece.nearestJoint >= 0 ? skel.names[piece.nearestJoint]! : '',
      region: piece.attachment >= 0 ? regionName(regions[piece.attachment]!) : 'other',
      vertexCount: farVerts.length,
      changedVertexCount: 0,
      reach: piece.reach,
      reachRatio: piece.reach / H,
      centroidRatio: piece.centroidRatio,
      elongation: piece.elongation,
      thickness: piece.thickness,
      merged: piece.merged,
      farFraction: piece.far / H,
      collarSpread: piece.collarSpread,
      misweighted: f.misweighted,
      length: 0,
      segments: 0,
      joints: [],
      rigidBone: '',
      boneDistanceBefore: bd,
      boneDistanceAfter: bd,
    };
  };
  const reports: AppendageReport[] = [];
  const influences: VertexInfluence[] = [];
  const pending: { report: AppendageReport; changed: Int32Array }[] = [];
  const taken = new Uint8Array(graph.count);
  let chains = 0;
  // 1. Tails. Candidates whose re-weighting domains touch are one tail (one chain).
  const tails = found.filter((f) => f.decision.tail);
  const gap = o.floatGapFraction * far;
  const grid = pointGrid(graph.positions, Math.max(gap, 1e-9 * H));
  const domains = tails.map((f) => domainOf(graph, f.piece, excess, margin, null, grid, gap));
  const group = new Int32Array(tails.length);
  for (let i = 0; i < tails.length; i++) group[i] = i;
  const root = (i: number): number => (group[i] === i ? i : (group[i] = root(group[i]!)));
  for (let i = 0; i < tails.length; i++) {
    for (let j = i + 1; j < tails.length; j++) {
      if (touches(graph, domains[i]!, domains[j]!, 0.5 * far)) group[root(i)] = root(j);
    }
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < tails.length; i++) {
    const r = root(i);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r)!.push(i);
  }
  const orderedGroups = [...groups.values()].sort((a, b) => sizeOf(b) - sizeOf(a));
  function sizeOf(g: number[]): number {
    let n = 0;
    for (const i of g) n += tails[i]!.piece.vertices.length;
    return n;
  }
  for (const g of orderedGroups) {
    g.sort((a, b) => tails[b]!.piece.vertices.length - tails[a]!.piece.vertices.length);
    const lead = tails[g[0]!]!;
    let report = reportOf(lead);
    // Union of the group's pieces, collars and domains.
    const pieceVerts = new Set<number>();
    const collar = new Set<number>();
    const domainSet = new Set<number>();
    let minFar = Infinity;
    for (const i of g) {
      for (const v of tails[i]!.piece.vertices) pieceVerts.add(v);
      for (const v of tails[i]!.piece.collar) collar.add(v);
      for (const v of domains[i]!) domainSet.add(v);
      minFar = Math.min(minFar, tails[i]!.piece.far);
    }
    if (g.length > 1) {
      report.vertexCount = membersOf(graph, Int32Array.from(pieceVerts)).length;
      report.merged = g.reduce((s, i) => s + tails[i]!.piece.merged, 0);
      report.reason += `; joined with ${g.length - 1} more far piece${g.length > 2 ? 's' : ''} on the same skin`;
    }
    let domain = [...domainSet].filter((v) => !taken[v]);
    if (domain.length === 0) {
      report.reason += '; its skin was already taken by a larger piece, left alone';
      reports.push(report);
      continue;
    }
    // [ours] A tail chain is already there (an artist's, or one an earlier run grew): never a
    // second chain beside it. Skin lying along it but weighted to a body bone goes onto it.
    const at = existing.length > 0 ? atExistingChain(domain) : null;
    let restOfAt = false;
    if (at) {
      const c = existing[at.chain]!;
      const used = at.chains.filter((e) => e.along.length > 0 || e.chain === at.chain);
      const label = used.map((e) => chainLabel(existing[e.chain]!)).join(' and ');
      const pct = used.length > 1
        ? `${used.map((e) => `${Math.round((100 * e.at) / domain.length)} %`).join(' and ')} of its skin lies at those chains, each vertex given to the nearest`
        : `${Math.round(100 * at.share)} % of its skin lies at that chain`;
      const alongCount = at.chains.reduce((n, e) => n + e.along.length, 0);
      if (o.mode === 'chain' && alongCount >= EXISTING_ALONG * domain.length) {
        const allAlong = at.chains.flatMap((e) => e.along);
        const changed = membersOf(graph, Int32Array.from(allAlong));
        report.boneDistanceBefore = weightedBoneDistance(bonesBefore, mesh.positions, originalJoints, originalWeights, mesh.slots, changed);
        report.changedVertexCount = changed.length;
        for (const v of at.atVerts) taken[v] = 1;
        const out = [0, 0, 0, 0];
        for (const e of at.chains) {
          const ce = existing[e.chain]!;
          const K = ce.bones.length;
          e.along.forEach((wv, i) => {
            const n = chainWeights(e.coords[i]!, K, K, out);
            const joints: number[] = [];
            const weights: number[] = [];
            for (let k = 0; k < n; k++) {
              const bn = out[2 * k]!;
              const j = bn === 0 ? (ce.parent >= 0 ? ce.parent : ce.bones[0]!) : ce.bones[bn - 1]!;
              const x = joints.indexOf(j);
              if (x >= 0) weights[x]! += out[2 * k + 1]!;
              else {
                joints.push(j);
                weights.push(out[2 * k + 1]!);
              }
            }
            for (let m = graph.membersStart[wv]!; m < graph.membersStart[wv + 1]!; m++) influences.push({ vertex: graph.members[m]!, joints, weights });
          });
          if (e.along.length > 0) existingReports[e.chain]!.changedVertexCount += membersOf(graph, Int32Array.from(e.along)).length;
        }
        report.verdict = 'existing-chain';
        report.reason = `${report.reason.replace(GREW, '')}; lies along the existing tail chain${used.length > 1 ? 's' : ''} ${label} (${pct}) but was weighted to ${dominantNames(changed)}: re-weighted onto ${used.length > 1 ? 'those chains' : 'that chain'}, no bones added`;
        report.joints = c.names.slice();
        report.segments = c.bones.length;
        report.length = c.length;
        pending.push({ report, changed });
      } else {
        const why = o.mode !== 'chain'
          ? 'rigid mode does not move skin off an existing chain'
          : `only ${Math.round((100 * alongCount) / domain.length)} % of it lies along ${used.length > 1 ? 'those chains' : 'that chain'} while weighted to bones farther away, ${Math.round(100 * EXISTING_ALONG)} % is needed to re-weight it onto ${used.length > 1 ? 'them' : 'the chain'}`;
        report.reason = report.reason.replace(GREW, '').replace(rigidSuffix(skel.names[skel.pelvis] ?? '?'), '') +
          `; beside the existing tail chain${used.length > 1 ? 's' : ''} ${label} (${pct}): no second chain is grown beside an existing one; left alone (${why})`;
        report.verdict = 'left-alone';
        reports.push(report);
      }
      // [ours] A branch of the tail beyond every chain's bound (a fork whose other branch has
      // no bones) is a tail of its own: it grows a chain, rooted where it leaves the chain.
      const isAt = new Uint8Array(graph.count);
      for (const v of at.atVerts) isAt[v] = 1;
      const rest = domain.filter((v) => !isAt[v]);
      if (o.mode !== 'chain' || rest.length < o.minPieceVertices) continue;
      // It must stick out from the chain by a tail's length (skin lying beside a chain, like
      // a haunch by a curled tip, does not).
      let out = 0;
      for (const v of rest) out = Math.max(out, at.offChain.get(v) ?? 0);
      if (out < o.minReach * H) {
        report = reportOf(lead);
        report.vertexCount = membersOf(graph, Int32Array.from(rest)).length;
        report.reason = `${report.reason.replace(GREW, '').replace(rigidSuffix(skel.names[skel.pelvis] ?? '?'), '')}; beside the existing tail chain${used.length > 1 ? 's' : ''} ${label}: its skin beyond the tail's diameter (${fmt(at.bound / H)} H) reaches only ${fmt(out / H)} H from the chain (< ${o.minReach} H), not a tail of its own; left alone`;
        reports.push(report);
        continue;
      }
      domain = rest;
      report = reportOf(lead);
      report.vertexCount = membersOf(graph, Int32Array.from(rest)).length;
      report.reason += `; beside the existing tail chain${used.length > 1 ? 's' : ''} ${label}, ${Math.round((100 * rest.length) / (rest.length + at.atVerts.length))} % of it lies farther than the tail's diameter (${fmt(at.bound / H)} H) from ${used.length > 1 ? 'them' : 'it'}: that branch is a tail of its own`;
      restOfAt = true;
    }
    const changed = membersOf(graph, Int32Array.from(domain));
    report.boneDistanceBefore = weightedBoneDistance(bonesBefore, mesh.positions, originalJoints, originalWeights, mesh.slots, changed);
    report.changedVertexCount = changed.length;
    if (lead.decision.verdict === 'rigid') {
      for (const v of domain) taken[v] = 1;
      for (const v of changed) influences.push({ vertex: v, joints: [skel.pelvis], weights: [1] });
      report.verdict = 'rigid';
      report.rigidBone = skel.names[skel.pelvis]!;
      pending.push({ report, changed });
      continue;
    }
    const grown = growChain(graph, dist, domain, Int32Array.from(collar), minFar, H, o);
    if (!grown) {
      report.reason = report.reason.replace(GREW, '') + '; but no geodesic length could be measured, left alone';
      report.changedVertexCount = 0;
      reports.push(report);
      continue;
    }
    if (restOfAt && grown.L < o.minReach * H) {
      report.reason = `${report.reason.replace(GREW, '')}, but it is short (${fmt(grown.L / H)} H < ${o.minReach} H): left alone`;
      report.changedVertexCount = 0;
      reports.push(report);
      continue;
    }
    for (const v of domain) taken[v] = 1;
    const prefix = freePrefix(doc, o.boneName, chainsBefore + chains);
    const names = chainBoneNames(prefix, grown.K);
    const first = addChainBones(doc, skel, grown.joints, names);
    chains++;
    const out = [0, 0, 0, 0];
    for (const wv of domain) {
      const c = chainWeights(grown.coord[wv]!, grown.K, grown.L, out);
      const joints: number[] = [];
      const weights: number[] = [];
      for (let k = 0; k < c; k++) {
        const bn = out[2 * k]!;
        joints.push(bn === 0 ? skel.pelvis : first + bn - 1);
        weights.push(out[2 * k + 1]!);
      }
      for (let e = graph.membersStart[wv]!; e < graph.membersStart[wv + 1]!; e++) influences.push({ vertex: graph.members[e]!, joints, weights });
    }
    report.verdict = 'chain';
    report.length = grown.L;
    report.segments = grown.K;
    report.joints = names;
    pending.push({ report, changed });
  }
  // 2. Worn pieces made rigid on request, then 3. everything left alone.
  for (const f of found) {
    if (f.decision.tail) continue;
    const report = reportOf(f);
    if (f.decision.verdict !== 'rigid') {
      reports.push(report);
      continue;
    }
    const domain = domainOf(graph, f.piece, excess, margin, taken, grid, gap);
    if (domain.length === 0) {
      report.reason += '; its skin was already taken by a tail, left alone';
      report.verdict = 'left-alone';
      reports.push(report);
      continue;
    }
    for (const v of domain) taken[v] = 1;
    const changed = membersOf(graph, Int32Array.from(domain));
    report.boneDistanceBefore = weightedBoneDistance(bonesBefore, mesh.positions, originalJoints, originalWeights, mesh.slots, changed);
    report.changedVertexCount = changed.length;
    for (const v of changed) influences.push({ vertex: v, joints: [f.decision.bone], weights: [1] });
    report.verdict = 'rigid';
    report.rigidBone = skel.names[f.decision.bone]!;
    pending.push({ report, changed });
  }
  progress('write', 0.85);
  writeInfluences(mesh, influences);
  if (pending.length > 0) {
    const bonesAfter = jointBones(skel, o.leafStubFraction);
    for (const p of pending) {
      p.report.boneDistanceAfter = weightedBoneDistance(bonesAfter, mesh.positions, mesh.joints, mesh.weights, mesh.slots, p.changed);
    }
  }
  const rank = (r: AppendageReport): number => (r.verdict === 'chain' ? 0 : r.verdict === 'existing-chain' ? 1 : r.verdict === 'rigid' ? 2 : 3);
  const all = [...pending.map((p) => p.report), ...reports].sort((a, b) => rank(a) - rank(b) || b.vertexCount - a.vertexCount);
  return { reports: all, chains, changed: influences.length, existing: existingReports };

  /**
   * Is a tail domain at an existing chain? A vertex is at a chain when its nearest bone
   * (weighted bones, the pelvis and every existing chain bone) is a bone of that chain or its
   * parent, and it lies within the tail's diameter of the chain's polyline ({@link atChainBound}:
   * twice the domain's RMS distance from its own principal axis, at least the far threshold):
   * the chain runs inside the tail. A vertex goes to the nearest such chain (a forked tail with
   * a chain per branch gives each branch to its own chain). When at least
   * {@link EXISTING_SHARE} of the domain is at chains, the domain is at them; `chain` is the one
   * holding most of it. Per chain, `along` lists the vertices at it whose weighted bone
   * distance exceeds their distance to the chain by more than the absorb margin and whose
   * weight is mostly off the chain (skin along the chain but driven from a body bone), with
   * their coordinates along it in bones. A separate tail farther away than the bound is not at
   * the chain however near the chain is compared with the body's bones: it grows its own.
   */
  function atExistingChain(domain: readonly number[]): { chain: number; share: number; bound: number; atVerts: number[]; offChain: Map<number, number>; chains: { chain: number; at: number; along: number[]; coords: number[] }[] } | null {
    const n = domain.length;
    if (n === 0) return null;
    const pts = new Float64Array(3 * n);
    const P = graph.positions;
    domain.forEach((v, i) => {
      pts[3 * i] = P[3 * v]!;
      pts[3 * i + 1] = P[3 * v + 1]!;
      pts[3 * i + 2] = P[3 * v + 2]!;
    });
    const dn = new Float64Array(n);
    const near = new Int32Array(n);
    skeletonDistance(nearSegs!, pts, dn, near);
    const bound = atChainBound(pts, far);
    const chains = existing.map((_, c) => ({ chain: c, at: 0, along: [] as number[], coords: [] as number[] }));
    const out = [0, 0];
    const absorb = o.absorbMargin * H;
    const atVerts: number[] = [];
    const offChain = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const j = nearSegs!.joint[near[i]!]!;
      const v = domain[i]!;
      for (const ch of existing) {
        chainCoordinate(ch.points, P[3 * v]!, P[3 * v + 1]!, P[3 * v + 2]!, out);
        offChain.set(v, Math.min(offChain.get(v) ?? Infinity, out[1]!));
      }
      if (chainOfJoint[j]! < 0 && !existing.some((c) => c.parent === j)) continue;
      let best = -1;
      let bestD = Infinity;
      let bestS = 0;
      for (let c = 0; c < existing.length; c++) {
        chainCoordinate(existing[c]!.points, P[3 * v]!, P[3 * v + 1]!, P[3 * v + 2]!, out);
        if (out[1]! < bestD) {
          bestD = out[1]!;
          bestS = out[0]!;
          best = c;
        }
      }
      if (best < 0 || !(bestD <= bound)) continue;
      atVerts.push(v);
      const e = chains[best]!;
      e.at++;
      if (chainShare(v, best) >= 0.5) continue; // (already the chain's skin)
      if (excess(v) + dist[v]! - bestD > absorb) {
        e.along.push(v);
        e.coords.push(bestS);
      }
    }
    if (atVerts.length < EXISTING_SHARE * n) return null;
    let top = 0;
    for (let c = 1; c < chains.length; c++) if (chains[c]!.at > chains[top]!.at) top = c;
    return { chain: top, share: atVerts.length / n, bound, atVerts, offChain, chains: chains.filter((e) => e.at > 0) };
  }

  /** Mean share of a welded vertex's original weight on chain `c`'s bones and end helper. */
  function chainShare(wv: number, c: number): number {
    const ch = existing[c]!;
    let on = 0;
    let all = 0;
    for (let e = graph.membersStart[wv]!; e < graph.membersStart[wv + 1]!; e++) {
      const v = graph.members[e]!;
      for (let k = 0; k < mesh.slots; k++) {
        const wt = originalWeights[mesh.slots * v + k]!;
        if (!(wt > 0)) continue;
        const j = originalJoints[mesh.slots * v + k]!;
        all += wt;
        if (chainOfJoint[j] === c || j === ch.end) on += wt;
      }
    }
    return all > 0 ? on / all : 0;
  }

  /** The joints the given original vertices were weighted to most, by summed weight. */
  function dominantNames(verts: Int32Array): string {
    const sum = new Float64Array(skel.names.length);
    for (const v of verts) {
      for (let k = 0; k < mesh.slots; k++) {
        const wt = originalWeights[mesh.slots * v + k]!;
        if (wt > 0) sum[originalJoints[mesh.slots * v + k]!]! += wt;
      }
    }
    const order = [...sum.keys()].filter((j) => sum[j]! > 0).sort((a, b) => sum[b]! - sum[a]!);
    const total = order.reduce((t, j) => t + sum[j]!, 0);
    const top = order.slice(0, 3).map((j) => `${skel.names[j]} ${Math.round((100 * sum[j]!) / total)} %`);
    return top.join(', ') || 'nothing';
  }
}

/** Suffix of a chain decision's reason, replaced when the piece meets an existing chain. */
const GREW = ': grew a chain';
/** Suffix of a rigid-mode tail decision's reason. */
function rigidSuffix(pelvisName: string): string {
  return `; rigid mode: weight 1.0 on ${pelvisName}`;
}
/** [ours] A tail domain is at existing chains when at least this fraction of it is at them (nearest their bones, within {@link atChainBound}). */
const EXISTING_SHARE = 0.25;
/** [ours] It is re-weighted onto that chain when at least this fraction of it lies along the chain and is driven from farther away. */
const EXISTING_ALONG = 0.5;

/**
 * [ours] How far from an existing chain's polyline tail skin may lie and still be at that
 * chain: the tail's diameter, 2 × the RMS distance of its skin (`pts`, xyz triples) from its
 * own principal axis through its centroid (a round tube of radius r gives exactly r; a chain
 * anywhere inside the tube is within 2r of every vertex), and at least the far threshold
 * `far` (skin nearer than that to a bone is not even far from it).
 */
export function atChainBound(pts: Float64Array, far: number): number {
  const n = pts.length / 3;
  if (n === 0) return far;
  let cx = 0, cy = 0, cz = 0;
  for (let i = 0; i < n; i++) {
    cx += pts[3 * i]!;
    cy += pts[3 * i + 1]!;
    cz += pts[3 * i + 2]!;
  }
  cx /= n;
  cy /= n;
  cz /= n;
  let xx = 0, xy = 0, xz = 0, yy = 0, yz = 0, zz = 0;
  for (let i = 0; i < n; i++) {
    const x = pts[3 * i]! - cx, y = pts[3 * i + 1]! - cy, z = pts[3 * i + 2]! - cz;
    xx += x * x;
    xy += x * y;
    xz += x * z;
    yy += y * y;
    yz += y * z;
    zz += z * z;
  }
  const [, l2, l3] = symEigen3(xx / n, xy / n, xz / n, yy / n, yz / n, zz / n);
  const radius = Math.sqrt(Math.max(0, l2) + Math.max(0, l3));
  return Math.max(far, 2 * radius);
}

/** A tail chain found by name in a skin before the pass grows anything. */
interface ExistingChain {
  /** Skin joint indices of the bones, root first. */
  bones: number[];
  /** End helper joint, or -1. */
  end: number;
  /** Parent joint of the first bone, or -1. */
  parent: number;
  /** Bone names, then the end helper's. */
  names: string[];
  /** Polyline for {@link chainCoordinate}: parent (the first head when none), bone heads, tip. */
  points: Float64Array;
  /** Length of the bones from the first head to the tip. */
  length: number;
}

/**
 * Tail chains of a skin by name (core/boneMap's `findTailChains`: an artist's `Tail1…`,
 * `b_Tail01_012…`, or `Tail_1…Tail_End` grown by an earlier run). The tip is the end helper,
 * else the last head plus `leafStub` times the last bone's incoming direction.
 */
function existingTailChains(skel: SkinSkeleton, leafStub: number): ExistingChain[] {
  const J = skel.positions;
  return findTailChains({ names: skel.names, parents: skel.parents }).map((t) => {
    const pts: number[] = [];
    const head = (j: number): void => {
      pts.push(J[3 * j]!, J[3 * j + 1]!, J[3 * j + 2]!);
    };
    head(t.parent >= 0 ? t.parent : t.bones[0]!);
    for (const b of t.bones) head(b);
    const last = t.bones[t.bones.length - 1]!;
    if (t.end >= 0) head(t.end);
    else {
      const prev = t.bones.length > 1 ? t.bones[t.bones.length - 2]! : t.parent >= 0 ? t.parent : last;
      for (let k = 0; k < 3; k++) pts.push(J[3 * last + k]! + leafStub * (J[3 * last + k]! - J[3 * prev + k]!));
    }
    let length = 0;
    for (let i = 6; i < pts.length; i += 3) length += Math.hypot(pts[i]! - pts[i - 3]!, pts[i + 1]! - pts[i - 2]!, pts[i + 2]! - pts[i - 1]!);
    const names = t.bones.map((b) => skel.names[b]!);
    if (t.end >= 0) names.push(skel.names[t.end]!);
    return { bones: t.bones, end: t.end, parent: t.parent, names, points: Float64Array.from(pts), length };
  });
}

/** `Tail_1…Tail_8 + Tail_End` (first and last bone, then the end helper when there is one). */
function chainLabel(c: ExistingChain): string {
  const K = c.bones.length;
  const bones = K === 1 ? c.names[0]! : `${c.names[0]}…${c.names[K - 1]}`;
  return c.end >= 0 ? `${bones} + ${c.names[K]}` : bones;
}

/** `Tail`, then `Tail2`, `Tail3`…: the first prefix whose `_1` and `_End` names no node has yet. */
function freePrefix(doc: Document, base: string, start: number): string {
  const names = new Set(doc.getRoot().listNodes().map((n) => n.getName()));
  for (let n = start; ; n++) {
    const p = n === 0 ? base : `${base}${n + 1}`;
    if (!names.has(`${p}_1`) && !names.has(`${p}_End`)) return p;
  }
}

function skinHasJoint(skin: import('@gltf-transform/core').Skin, name: string): boolean {
  return skin.listJoints().some((j) => j.getName() === name);
}

/** Original vertex indices of a set of welded ids. */
function membersOf(graph: WeldGraph, welded: ArrayLike<number>): Int32Array {
  let n = 0;
  for (let i = 0; i < welded.length; i++) n += graph.membersStart[welded[i]! + 1]! - graph.membersStart[welded[i]!]!;
  const out = new Int32Array(n);
  let o = 0;
  for (let i = 0; i < welded.length; i++) {
    const w = welded[i]!;
    for (let e = graph.membersStart[w]!; e < graph.membersStart[w + 1]!; e++) out[o++] = graph.members[e]!;
  }
  return out;
}

/**
 * The re-weighting domain of a piece: its far vertices plus the skin connected to them that
 * is driven from far away ([ours]: weighted bone distance exceeds the vertex's own skeleton
 * distance by more than `margin` — a tail's root ring, or its whole shell, handed to
 * a shin). Correctly weighted skin, even fat far from its bone, is driven by the bone it is
 * near and stops the growth. Growth crosses from shell to shell where they touch (within
 * `gap`). Vertices in `taken` are skipped.
 */
function domainOf(
  graph: WeldGraph,
  piece: Piece,
  excess: (v: number) => number,
  margin: number,
  taken: Uint8Array | null,
  grid: PointGrid,
  gap: number,
): number[] {
  const inDomain = new Uint8Array(graph.count);
  const domain: number[] = [];
  for (const v of piece.vertices) {
    if (taken && taken[v]) continue;
    inDomain[v] = 1;
    domain.push(v);
  }
  const queue = domain.slice();
  const tested = new Uint8Array(graph.count);
  const test = (b: number): void => {
    if (inDomain[b] || tested[b] || (taken && taken[b])) return;
    tested[b] = 1;
    if (excess(b) > margin) {
      inDomain[b] = 1;
      domain.push(b);
      queue.push(b);
    }
  };
  while (queue.length > 0) {
    const a = queue.pop()!;
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) test(graph.adj[e]!);
    // Shells never welded to this one (a tail root's underside in another material) touch it.
    if (gap > 0) gridNeighbours(grid, a, gap, test);
  }
  return domain;
}

/**
 * Do two domains share a vertex or an edge, or come within `gap` of each other (shells of
 * one tail that were never welded: fur over skin, a tip in another material)?
 */
function touches(graph: WeldGraph, a: readonly number[], b: readonly number[], gap: number): boolean {
  const inA = new Uint8Array(graph.count);
  for (const v of a) inA[v] = 1;
  for (const v of b) {
    if (inA[v]) return true;
    for (let e = graph.adjStart[v]!; e < graph.adjStart[v + 1]!; e++) if (inA[graph.adj[e]!]) return true;
  }
  const P = graph.positions;
  const g2 = gap * gap;
  for (const u of a) {
    const x = P[3 * u]!, y = P[3 * u + 1]!, z = P[3 * u + 2]!;
    for (const v of b) {
      const dx = P[3 * v]! - x, dy = P[3 * v + 1]! - y, dz = P[3 * v + 2]! - z;
      if (dx * dx + dy * dy + dz * dz <= g2) return true;
    }
  }
  return false;
}

/**
 * Geodesic coordinate, length and joints of a chain over `domain` (welded ids). The root is
 * the ring of kept skin around the domain; a shell with no such ring (its own shell, all of
 * it re-weighted) starts at the piece's `collar` instead, and its skin on the body side of
 * the collar (skeleton distance ≤ `pieceFar`) gets a negative coordinate.
 */
function growChain(
  graph: WeldGraph,
  dist: Float64Array,
  domain: readonly number[],
  collar: Int32Array,
  pieceFar: number,
  H: number,
  o: RigOptions,
): { coord: Float64Array; L: number; K: number; joints: Float64Array } | null {
  const inDomain = new Uint8Array(graph.count);
  for (const v of domain) inDomain[v] = 1;
  const outer = ringAround(graph, inDomain, domain);
  const shell = outer.length < 3;
  const sources = shell ? collar : outer;
  if (sources.length === 0) return null;
  const allowed = Uint8Array.from(inDomain);
  for (const c of sources) allowed[c] = 1;
  const g = geodesic(graph, sources, allowed);
  bridgeShells(graph, domain, g);
  const coord = new Float64Array(graph.count);
  const ahead: number[] = [];
  for (const v of domain) {
    const gv = Number.isFinite(g[v]!) ? g[v]! : 0;
    const isAhead = !shell || dist[v]! > pieceFar;
    coord[v] = isAhead ? gv : -gv;
    if (isAhead) ahead.push(v);
  }
  const L = percentileOf(coord, ahead, o.lengthPercentile);
  if (!(L > 0)) return null;
  const K = segmentCount(L, H, o.segmentFraction, o.minSegments, o.maxSegments);
  const joints = chainJoints(graph.positions, ahead, coord, L, K, centroidOf(graph.positions, sources), o.smoothingPasses);
  return { coord, L, K, joints };
}

/** Welded vertices outside the domain adjacent to it (the kept skin around it). */
function ringAround(graph: WeldGraph, inDomain: Uint8Array, domain: readonly number[]): Int32Array {
  const seen = new Uint8Array(graph.count);
  const out: number[] = [];
  for (const a of domain) {
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) {
      const b = graph.adj[e]!;
      if (!inDomain[b] && !seen[b]) {
        seen[b] = 1;
        out.push(b);
      }
    }
  }
  return Int32Array.from(out);
}

function centroidOf(P: Float64Array, ids: ArrayLike<number>): Float64Array {
  const c = new Float64Array(3);
  for (let i = 0; i < ids.length; i++) {
    const v = ids[i]!;
    c[0]! += P[3 * v]!;
    c[1]! += P[3 * v + 1]!;
    c[2]! += P[3 * v + 2]!;
  }
  const n = Math.max(1, ids.length);
  c[0]! /= n;
  c[1]! /= n;
  c[2]! /= n;
  return c;
}

interface Decision {
  verdict: AppendageVerdict;
  reason: string;
  /** What the piece is, in one word (see {@link AppendageKind}). */
  kind: AppendageKind;
  /** A long piece hanging from the pelvis (a tail: chain, or rigid in rigid mode). */
  tail: boolean;
  /** A long piece on the pelvis or spine that is not an appendage (worn, or the body's own far skin): searched again for a hidden tail. */
  worn: boolean;
  /** Bone for rigid pieces. */
  bone: number;
}

function fmt(x: number): string {
  return x.toFixed(2);
}

/**
 * [ours] A body is not a thin sheet: the far skin of a body is a shell around bones, whose
 * third principal extent is a good part of its second (sqrt(λ3/λ2) 0.35…0.90 on the far body
 * pieces of khronos-fox, quaternius-fox and quaternius-shiba-inu, de-tailed or not), while a
 * cape is a sheet (0.10…0.24 on the capes of test/rig/wornFixtures.ts on threejs-xbot and
 * threejs-soldier, whatever their size). Below this a piece is never the body.
 *
 * @example
 * report.appendages.filter((a) => a.kind === 'body').every((a) => a.thickness >= BODY_MIN_THICKNESS); // true
 */
export const BODY_MIN_THICKNESS = RIG_DEFAULTS.bodyMinThickness;

/**
 * [ours] Why a long torso piece that is no appendage is the body itself rather than something
 * worn on it, or null when it is worn. A body is a volume (thickness sqrt(λ3/λ2) ≥
 * {@link BODY_MIN_THICKNESS}; a cape, a thin sheet, never is) that lies along the body
 * (elongated along a direction more than `hangAngleDeg` from up) or holds at least
 * `bodyAreaShare` of the surface area of every skin of its skeleton (skins sharing joint nodes:
 * a cape or skirt in its own skin is not "most of its skin"). `areaShare` is that share.
 */
function bodyReason(piece: Piece, up: ArrayLike<number>, areaShare: number, o: RigOptions): string | null {
  if (piece.thickness < o.bodyMinThickness) return null;
  const ax = piece.axis;
  const cosUp = Math.min(1, Math.abs(ax[0]! * up[0]! + ax[1]! * up[1]! + ax[2]! * up[2]!));
  const fromUp = (Math.acos(cosUp) * 180) / Math.PI;
  const volume = `a volume, thickness ${fmt(piece.thickness)} ≥ ${o.bodyMinThickness}`;
  if (piece.elongation >= o.minElongation && fromUp > o.hangAngleDeg) {
    return `it lies along the body: elongation ${fmt(piece.elongation)} along a direction ${fromUp.toFixed(0)}° from up, where a cape or strap hangs within ${o.hangAngleDeg}° of up; ${volume}`;
  }
  if (areaShare >= o.bodyAreaShare) return `it holds ${Math.round(100 * areaShare)} % of the surface area of its skeleton's skins; ${volume}`;
  return null;
}

/** The policy of the 11 September update (SPEC §1). `areaShare` gives a piece's share of the skin's surface area. */
function decide(piece: Piece, skel: SkinSkeleton, regions: Uint8Array, o: RigOptions, height: number, areaShare: (p: Piece) => number): Decision {
  const a = piece.attachment;
  const name = a >= 0 ? skel.names[a]! : '?';
  const nWelded = piece.vertices.length;
  if (nWelded < o.minPieceVertices) {
    return { kind: 'speck', verdict: 'left-alone', reason: `a speck of ${nWelded} vertices (fewer than ${o.minPieceVertices}): ignored`, tail: false, worn: false, bone: -1 };
  }
  const region = a >= 0 ? regions[a]! : 0;
  const outward = piece.centroidRatio >= o.minCentroidRatio;
  const elongated = piece.elongation >= o.minElongation;
  const long = piece.reach >= o.minReach * height;
  const appendage = outward && elongated;
  const shape = `reach ${fmt(piece.reach / height)} H, elongation ${fmt(piece.elongation)}, centroid at ${fmt(piece.centroidRatio)} of its reach`;
  const whyNot = !outward
    ? `its centroid lies on the body (${fmt(piece.centroidRatio)} of its reach < ${o.minCentroidRatio})`
    : `it is wide, not long (elongation ${fmt(piece.elongation)} < ${o.minElongation})`;
  const none = { tail: false, worn: false, bone: -1 } as const;
  if (region === REGION_HEAD) return { kind: 'head', verdict: 'left-alone', reason: `hangs from the head (${name}): ears and hair are left alone (${shape})`, ...none };
  if (region === REGION_LIMB || region === 0) {
    return { kind: 'limb', verdict: 'left-alone', reason: `hangs from a limb (${name}): sleeves, hands and feet are left alone (${shape})`, ...none };
  }
  if (!long) {
    return { kind: 'short', verdict: 'left-alone', reason: `short piece near ${name} (reach ${fmt(piece.reach / height)} H < ${o.minReach} H): left alone`, ...none };
  }
  const pelvisName = skel.pelvis >= 0 ? skel.names[skel.pelvis]! : '?';
  if (region === REGION_PELVIS && appendage) {
    if (o.mode === 'rigid') {
      return { kind: 'tail', verdict: 'rigid', reason: `long piece hanging from the pelvis (${shape})${rigidSuffix(pelvisName)}`, tail: true, worn: false, bone: skel.pelvis };
    }
    return { kind: 'tail', verdict: 'chain', reason: `long piece hanging from the pelvis (${shape})${GREW}`, tail: true, worn: false, bone: skel.pelvis };
  }
  if (region === REGION_SPINE && appendage) {
    if (o.include.includes('spine')) {
      return { kind: 'spine', verdict: 'rigid', reason: `long piece hanging from the spine (${name}; ${shape}): rigid on ${name} as asked (include spine)`, tail: false, worn: false, bone: a };
    }
    return { kind: 'spine', verdict: 'left-alone', reason: `long piece hanging from the spine (${name}; ${shape}): left as it is (include "spine" makes it rigid on ${name})`, ...none };
  }
  // Pelvis or spine, long but not an appendage: the body's own far skin, or a worn piece on
  // the torso (cape, skirt). Both are searched for a tail hidden in them; only a worn one may
  // be made rigid (making the body rigid on one bone would freeze legs and tail with it).
  const body = bodyReason(piece, skel.up, areaShare(piece), o);
  if (body) {
    return {
      kind: 'body',
      verdict: 'left-alone',
      reason: `the body's own far skin, not a worn piece (${body}; ${whyNot}): left as it is, never made rigid (include "torso" is for capes and skirts)`,
      tail: false,
      worn: true,
      bone: -1,
    };
  }
  const bone = region === REGION_PELVIS ? skel.pelvis : a;
  const boneName = skel.names[bone]!;
  if (o.include.includes('torso')) {
    return { kind: 'worn', verdict: 'rigid', reason: `worn piece on the torso (${whyNot}): rigid on ${boneName} as asked (include torso)`, tail: false, worn: true, bone };
  }
  return { kind: 'worn', verdict: 'left-alone', reason: `worn piece on the torso (${whyNot}): left as it is (include "torso" makes it rigid on ${boneName})`, tail: false, worn: true, bone: -1 };
}

