/**
 * Measures of a grown tail against the artist's (test/fixtures/detail.ts `TailTruth`): joint
 * errors as fractions of the artist's tail length, and the edge stretch of the tail's own
 * skin and of the body on a clip.
 */
import type { Document } from '@gltf-transform/core';
import { measureEdgeStretch } from '../../rig/measure';
import { readSkinMesh } from '../../rig/meshData';
import { readSkinSkeleton } from '../../rig/skeleton';
import { polylineDistance, type TailTruth } from '../fixtures/detail';

/** Joint errors of the grown chains against the artist's: mean over joints and at the root, as fractions of its length. */
export function jointErrors(truth: TailTruth, names: readonly string[]): { mean: number; root: number; rootOnLine: number } {
  const skel = readSkinSkeleton(truth.skin, null);
  const at = (n: string): [number, number, number] => {
    const j = skel.names.indexOf(n);
    return [skel.positions[3 * j]!, skel.positions[3 * j + 1]!, skel.positions[3 * j + 2]!];
  };
  let sum = 0;
  for (const n of names) sum += polylineDistance(truth.chain, ...at(n));
  const r = at(names[0]!);
  const c = truth.chain;
  return {
    mean: sum / names.length / truth.length,
    root: Math.hypot(r[0] - c[0]!, r[1] - c[1]!, r[2] - c[2]!) / truth.length,
    rootOnLine: polylineDistance(c, ...r) / truth.length,
  };
}

/**
 * Mean distance of the tail's skin (the truth's tail vertices) to the grown chain's polyline
 * (`names`, root first) and to the artist's, model units: a chain inside the tail lies close
 * to all of its skin. Where the artist's chain does not follow the skin (the Shiba's curled
 * tail), this still measures the grown chain.
 */
export function skinToChain(doc: Document, truth: TailTruth, names: readonly string[]): { grown: number; artist: number } {
  const skel = readSkinSkeleton(truth.skin, null);
  const mesh = readSkinMesh(doc, truth.skin);
  const line = Float64Array.from(names.flatMap((n) => {
    const j = skel.names.indexOf(n);
    return [skel.positions[3 * j]!, skel.positions[3 * j + 1]!, skel.positions[3 * j + 2]!];
  }));
  let grown = 0;
  let artist = 0;
  for (const v of truth.tailVertices) {
    const x = mesh.positions[3 * v]!, y = mesh.positions[3 * v + 1]!, z = mesh.positions[3 * v + 2]!;
    grown += polylineDistance(line, x, y, z);
    artist += polylineDistance(truth.chain, x, y, z);
  }
  const n = Math.max(1, truth.tailVertices.length);
  return { grown: grown / n, artist: artist / n };
}

/**
 * Per skin of `doc`: 1 on the truth's tail vertices, null for the other skins. `doc` may be a
 * copy of the truth's document (`truthDoc`): skins keep their order.
 */
export function truthMask(doc: Document, truth: TailTruth, truthDoc: Document = doc): (Uint8Array | null)[] {
  const index = truthDoc.getRoot().listSkins().indexOf(truth.skin);
  return doc.getRoot().listSkins().map((_, i) => {
    if (i !== index) return null;
    const m = new Uint8Array(truth.tailWeight.length);
    for (const v of truth.tailVertices) m[v] = 1;
    return m;
  });
}

/** Edge stretch of the tail (the truth's tail vertices) and the body on a clip. */
export function stretch(doc: Document, truth: TailTruth, clip: string) {
  return measureEdgeStretch(doc, clip, { tailVertex: truthMask(doc, truth) });
}

/**
 * The runtime's rest options per animal: these animals' modelled tails curve, so the chain
 * keeps the artist's curve (restCurve 1); the Shiba's tail is already carried (carry 0). The
 * same as test/bake/measure.test.ts.
 */
export const RUNTIME_TAIL = {
  'quaternius-fox': { restCurve: 1 },
  'khronos-fox': { restCurve: 1 },
  'quaternius-shiba-inu': { restCurve: 1, carry: 0 },
} as const;
