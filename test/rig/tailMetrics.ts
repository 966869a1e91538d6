/**
 * Measures of a grown tail against the artist's (test/fixtures/detail.ts `TailTruth`): joint
 * errors as fractions of the artist's tail length, and the edge stretch of the tail's own
 * skin and of the body on a clip.
 */
import type { Document } from '@gltf-transform/core';
import { measureEdgeStretch } from '../../rig/measure';
import type { RigReport } from '../../rig/pass';
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

/** Edge stretch of the tail (the truth's tail vertices) and the body on a clip. */
export function stretch(doc: Document, truth: TailTruth, clip: string) {
  const skins = doc.getRoot().listSkins();
  const mask = skins.map((s) => {
    if (s !== truth.skin) return null;
    const m = new Uint8Array(truth.tailWeight.length);
    for (const v of truth.tailVertices) m[v] = 1;
    return m;
  });
  return measureEdgeStretch(doc, clip, { tailVertex: mask });
}

/** One case's numbers in words: chains, joint errors, stretch, the tail and short pieces' verdicts. */
export function describeRun(label: string, doc: Document, truth: TailTruth, report: RigReport, clip: string): string {
  const chains = report.appendages.filter((a) => a.verdict === 'chain');
  const lines = [`${label}: chains ${report.chains} (${chains.map((c) => `${c.attachment} K=${c.segments}`).join(', ')})`];
  for (const c of chains) {
    const e = jointErrors(truth, c.joints);
    lines.push(`  joints mean ${(100 * e.mean).toFixed(1)} %, root ${(100 * e.root).toFixed(1)} % (to the line ${(100 * e.rootOnLine).toFixed(1)} %)`);
  }
  const s = stretch(doc, truth, clip);
  lines.push(`  stretch tail p99 ${s.tail.p99.toFixed(3)} max ${s.tail.max.toFixed(3)} torn ${(100 * s.tail.torn).toFixed(2)} %; body p99 ${s.body.p99.toFixed(3)} max ${s.body.max.toFixed(3)}`);
  for (const a of report.appendages) if (a.kind === 'short' || a.kind === 'tail') lines.push(`  ${a.verdict} ${a.kind} ${a.reason}`);
  return lines.join('\n');
}

