/**
 * The skeleton phase of the rig pass: read every skin's bind skeleton and skinned mesh, check
 * that the model can be measured, and find the model height H (bind space, model units, along
 * the up axis; the largest skin sets H for all).
 */
import type { Document, Skin } from '@gltf-transform/core';
import { readSkinMesh } from '../meshData';
import type { RigOptions } from '../options';
import type { SkinSkeleton } from '../skeleton';
import { readSkinSkeleton } from '../skeleton';
import type { SkinWork } from './types';

/** The model as the pass sees it before any piece is found. */
export interface Model {
  skins: Skin[];
  works: SkinWork[];
  /** Model height H (model units). */
  H: number;
  /** Bind-space up axis used for H. */
  up: [number, number, number];
  /** Per skin, the surface area of every skin sharing its skeleton. */
  skeletonArea: Float64Array;
}

/**
 * Read the skins of `doc` and measure the model. Throws `bitrig/rig: …` when there is no
 * skin, the pelvis option names no joint, nothing is skinned, or the model has zero height.
 */
export function readModel(doc: Document, o: RigOptions): Model {
  const skins = doc.getRoot().listSkins();
  if (skins.length === 0) throw new Error('bitrig/rig: the model has no skin (nothing is skinned to a skeleton)');
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
  const { height, up } = modelHeight(works);
  // [ours] Skins that share joint nodes are one skeleton (FBX2glTF and three's GLTFExporter
  // write one skin per skinned mesh): a piece's share of the surface area is measured against
  // all of them, so a cape in its own skin is not "most of the skin".
  return { skins, works, H: height, up, skeletonArea: sharedSkeletonArea(skins, works) };
}

/** Model height along each skin's up axis; the largest skin sets H for all. Throws on zero height. */
function modelHeight(works: SkinWork[]): { height: number; up: [number, number, number] } {
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
  return { height, up };
}

/** Notes on skins nothing could be done on: unmeasurable ones, and the body's skin without a pelvis. */
export function modelNotes(works: SkinWork[]): string[] {
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
  return notes;
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
function sharedSkeletonArea(skins: Skin[], works: SkinWork[]): Float64Array {
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

function skinHasJoint(skin: Skin, name: string): boolean {
  return skin.listJoints().some((j) => j.getName() === name);
}

