/**
 * A stub takes only its own skin: the rump skin a rigger handed over with it (part of its
 * weight moved to the shin, so the stub's re-weighting domain spills onto it) keeps the body's
 * own weights, whether the stub gets a short chain or is made rigid on the pelvis. The tiny
 * model's tail cut to 0.3 of its curve (a chain stub) and to 0.2 (a rigid stub), with the torso
 * skin around the tail's root given 0.3 of its weight on the left shin. The tail's shell sits
 * 0.03 from the torso's (never welded), so the float gap is raised to 0.3 of the far threshold
 * (0.035 model units): the tail's domain then crosses onto the rump, as a tail modelled in one
 * shell with the body does.
 */
import type { Document } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { readSkinMesh } from '../../rig/meshData';
import { rigAppendages } from '../../rig/pass';
import { readSkinSkeleton } from '../../rig/skeleton';
import { makeTinyDoc } from './tiny';

/** Share of the rump skin's weight handed to the shin. */
const HANDED = 0.3;
/** Torso skin within this distance (model units) of the tail's root point is rump. */
const RUMP_RADIUS = 0.12;
const ROOT = [0, 1.0, -0.14] as const;
/** Float gap that reaches from the tail's shell to the torso's (fraction of the far threshold). */
const GAP = { floatGapFraction: 0.3 };

/** Move `HANDED` of the weight of the torso vertices near the tail's root onto the left shin; returns those vertices. */
function handRumpToShin(doc: Document, tailStart: number): number[] {
  const prim = doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!;
  const P = prim.getAttribute('POSITION')!.getArray()!;
  const J = prim.getAttribute('JOINTS_0')!.getArray()!;
  const W = prim.getAttribute('WEIGHTS_0')!.getArray()!;
  const shin = readSkinSkeleton(doc.getRoot().listSkins()[0]!, null).names.indexOf('LeftLeg');
  const rump: number[] = [];
  for (let v = 0; v < tailStart; v++) {
    const d = Math.hypot(P[3 * v]! - ROOT[0], P[3 * v + 1]! - ROOT[1], P[3 * v + 2]! - ROOT[2]);
    if (d > RUMP_RADIUS || J[4 * v] !== 0) continue;
    W[4 * v] = 1 - HANDED;
    J[4 * v + 1] = shin;
    W[4 * v + 1] = HANDED;
    rump.push(v);
  }
  return rump;
}

describe('a stub takes only its own skin, never the rump handed over with it', () => {
  it.each([[0.3, 'chain'], [0.2, 'rigid']] as const)('the tiny model\'s tail cut to %s (%s): the rump keeps its weight on the hips', (tailLength, verdict) => {
    const { doc, truth } = makeTinyDoc({ tail: true, tailLength });
    const rump = handRumpToShin(doc, truth.tailRange[0]);
    expect(rump.length).toBeGreaterThan(0);
    const report = rigAppendages(doc, GAP);
    const stub = report.appendages.find((a) => / a misweighted stub/.test(a.reason))!;
    expect(stub.verdict).toBe(verdict);
    // The stub's domain took the rump along (more vertices changed than the tail has).
    expect(stub.changedVertexCount).toBeGreaterThan(truth.tailRange[1] - truth.tailRange[0]);
    const skin = doc.getRoot().listSkins()[0]!;
    const mesh = readSkinMesh(doc, skin);
    const names = readSkinSkeleton(skin, null).names;
    const hips = names.indexOf('Hips');
    for (const v of rump) {
      let onHips = 0;
      for (let k = 0; k < mesh.slots; k++) {
        const j = mesh.joints[mesh.slots * v + k]!, w = mesh.weights[mesh.slots * v + k]!;
        if (j === hips) onHips += w;
        // Nothing on the new tail bones, nothing left on the shin (tolerance: float weights).
        if (w > 1e-6) expect(names[j]).not.toMatch(/^Tail_|^LeftLeg$/);
      }
      expect(onHips).toBeCloseTo(1, 5);
    }
    // The tail's own skin (all on the shin before) is on the stub: the pelvis or its chain.
    for (let v = truth.tailRange[0]; v < truth.tailRange[1]; v++) {
      for (let k = 0; k < mesh.slots; k++) {
        if (mesh.weights[mesh.slots * v + k]! > 1e-6) expect(names[mesh.joints[mesh.slots * v + k]!]).toMatch(verdict === 'chain' ? /^Tail_|^Hips$/ : /^Hips$/);
      }
    }
  });
});
