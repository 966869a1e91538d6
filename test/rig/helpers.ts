/**
 * Test helpers for the rig pass: raw influence snapshots (exact accessor values), clip
 * snapshots, and chain geometry read back from a Document.
 */
import type { Document, Skin } from '@gltf-transform/core';
import { readSkinMesh } from '../../rig/meshData';
import { readSkinSkeleton } from '../../rig/skeleton';

/** Raw JOINTS/WEIGHTS values (as stored, before any normalisation) per global vertex. */
export interface RawInfluences {
  /** Values per vertex: joints then weights, 4 each per set present. */
  values: number[][];
}

/** Snapshot the stored influences of every vertex of `skin` (readSkinMesh order). */
export function rawInfluences(doc: Document, skin: Skin): RawInfluences {
  const mesh = readSkinMesh(doc, skin);
  const values: number[][] = [];
  for (const s of mesh.sources) {
    const arrs = [s.joints[0], s.weights[0], s.joints[1], s.weights[1]].filter((a) => a) as NonNullable<(typeof s.joints)[0]>[];
    const data = arrs.map((a) => a.getArray()!);
    for (let i = 0; i < s.count; i++) {
      const row: number[] = [];
      data.forEach((d, k) => {
        const size = arrs[k]!.getElementSize();
        for (let c = 0; c < size; c++) row.push(d[size * i + c]!);
      });
      values.push(row);
    }
  }
  return { values };
}

/** Stored influences of one vertex, with zero-weight slots dropped, as "joint:weight" strings sorted. */
export function influenceKey(raw: RawInfluences, v: number): string {
  const row = raw.values[v]!;
  const parts: string[] = [];
  const sets = row.length / 8;
  for (let s = 0; s < sets; s++) {
    for (let k = 0; k < 4; k++) {
      const w = row[8 * s + 4 + k]!;
      if (w !== 0) parts.push(`${row[8 * s + k]}:${w}`);
    }
  }
  return parts.sort().join(' ');
}

/** A comparable snapshot of every clip: names, channel targets and paths, sampler data. */
export function clipSnapshot(doc: Document): string {
  const out: string[] = [];
  for (const a of doc.getRoot().listAnimations()) {
    out.push(`clip ${a.getName()} ${a.listChannels().length}`);
    for (const ch of a.listChannels()) {
      const s = ch.getSampler()!;
      const inp = s.getInput()!.getArray()!;
      const val = s.getOutput()!.getArray()!;
      let h = 0;
      for (let i = 0; i < val.length; i++) h = (h * 31 + Math.round(val[i]! * 1e6)) % 1_000_000_007;
      out.push(`${ch.getTargetNode()?.getName()} ${ch.getTargetPath()} ${s.getInterpolation()} ${inp.length} ${inp[inp.length - 1]} ${val.length} ${h}`);
    }
  }
  return out.join('\n');
}

/** Bind-space positions of named joints of a skin (3 each), in the order given. */
export function jointPositions(skin: Skin, names: readonly string[]): Float64Array {
  const skel = readSkinSkeleton(skin, null);
  const out = new Float64Array(3 * names.length);
  names.forEach((n, i) => {
    const j = skel.names.indexOf(n);
    if (j < 0) throw new Error(`joint ${n} not in skin`);
    out[3 * i] = skel.positions[3 * j]!;
    out[3 * i + 1] = skel.positions[3 * j + 1]!;
    out[3 * i + 2] = skel.positions[3 * j + 2]!;
  });
  return out;
}
