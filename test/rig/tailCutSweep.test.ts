/**
 * Every cut of every repository animal's tail gets a sensible repair: each animal's tail cut at
 * 0.1, 0.2, … 1.0 of its artist's chain (test/fixtures/shorten.ts), de-tailed by the
 * repository's script (tail skin handed to a shin and both thighs), then rigged. Per cut: what
 * the pass decides (a chain, rigid on the pelvis, or nothing when the cut left no tail skin),
 * no tail skin left on the shin, and on the Walk clip with the grown bones at rest the tail
 * torn nowhere and stretching no more than the body, the body within 2 % of before. The
 * runtime's swing is checked on the two cuts whose coarse tips once tore under it.
 *
 * Cheap by design: each animal is read once and copied per cut, and the rest stretch samples
 * the clip 8 times (the full measure's 24 in tailsOnRealAnimals.test.ts).
 */
import type { Document } from '@gltf-transform/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyDocument } from '../../rig/copyDocument';
import { measureEdgeStretch, measureTail } from '../../rig/measure';
import { readSkinMesh } from '../../rig/meshData';
import { rigAppendages, type RigReport } from '../../rig/pass';
import { readSkinSkeleton } from '../../rig/skeleton';
import { loadAsset } from '../fixtures/assets';
import { ANIMAL_PRESETS, detailAnimal, type TailTruth } from '../fixtures/detail';
import { shortenTail } from '../fixtures/shorten';
import { RUNTIME_TAIL, truthMask } from './tailMetrics';

type Animal = keyof typeof ANIMAL_PRESETS;
type Decision = 'chain' | 'rigid' | 'nothing';

/**
 * The expected repair per cut 0.1 … 1.0. The Khronos fox cut at 0.1 keeps no tail skin (its
 * first tail bone's skin lies beyond the cut): nothing to repair. Cuts that keep the same
 * bones give the same tail (the Khronos fox's 0.3 … 0.6, the Shiba's 0.4 … 0.6 and 0.7 … 1.0).
 */
const EXPECTED: Record<Animal, Decision[]> = {
  'quaternius-fox': ['rigid', 'rigid', 'rigid', 'chain', 'chain', 'chain', 'chain', 'chain', 'chain', 'chain'],
  'khronos-fox': ['nothing', 'chain', 'rigid', 'rigid', 'rigid', 'rigid', 'chain', 'chain', 'chain', 'chain'],
  'quaternius-shiba-inu': ['rigid', 'rigid', 'rigid', 'rigid', 'rigid', 'rigid', 'chain', 'chain', 'chain', 'chain'],
};

const CUTS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
const originals = new Map<Animal, Document>();

beforeAll(async () => {
  for (const a of Object.keys(EXPECTED) as Animal[]) originals.set(a, await loadAsset(a));
});

interface Cut {
  doc: Document;
  input: Document;
  truth: TailTruth;
  report: RigReport;
}

function cut(animal: Animal, keep: number): Cut {
  const doc = copyDocument(originals.get(animal)!);
  if (keep < 1) shortenTail(doc, keep);
  const truth = detailAnimal(doc, ANIMAL_PRESETS[animal]);
  const input = copyDocument(doc);
  return { doc, input, truth, report: rigAppendages(doc) };
}

function decisionOf(report: RigReport): Decision {
  if (report.appendages.some((a) => a.verdict === 'chain')) return 'chain';
  return report.appendages.some((a) => a.verdict === 'rigid') ? 'rigid' : 'nothing';
}

/** Tail vertices (the truth's) with at least 0.1 of their weight on the shin the rigger gave them to. */
function onShin(c: Cut, animal: Animal): number {
  const mesh = readSkinMesh(c.doc, c.truth.skin);
  const shin = readSkinSkeleton(c.truth.skin, null).names.indexOf(ANIMAL_PRESETS[animal].shin);
  let n = 0;
  for (const v of c.truth.tailVertices) {
    for (let k = 0; k < mesh.slots; k++) {
      if (mesh.joints[mesh.slots * v + k] === shin && mesh.weights[mesh.slots * v + k]! >= 0.1) {
        n++;
        break;
      }
    }
  }
  return n;
}

const rest = { samples: 8 };

describe('every cut of a real tail gets a sensible repair', () => {
  const cases = (Object.keys(EXPECTED) as Animal[]).flatMap((a) => CUTS.map((keep, i) => [a, keep, EXPECTED[a][i]!] as const));
  it.each(cases)('%s cut at %s: %s', (animal, keep, decision) => {
    const c = cut(animal, keep);
    expect(decisionOf(c.report)).toBe(decision);
    expect(onShin(c, animal)).toBe(0);
    if (decision === 'nothing') {
      expect(c.truth.tailVertices.length).toBe(0);
      return;
    }
    // A chain hangs from the pelvis; a rigid repair is on it.
    for (const a of c.report.appendages) {
      if (a.verdict === 'chain') expect(a.attachment).toBe(c.truth.pelvis);
      if (a.verdict === 'rigid') expect(a.rigidBone).toBe(c.truth.pelvis);
    }
    const mask = { tailVertex: truthMask(c.doc, c.truth), ...rest };
    const before = measureEdgeStretch(c.input, 'Walk', { tailVertex: truthMask(c.input, c.truth, c.doc), ...rest });
    const after = measureEdgeStretch(c.doc, 'Walk', mask);
    expect(after.tail.torn).toBe(0);
    expect(after.tail.p99).toBeLessThanOrEqual(after.body.p99);
    expect(after.tail.max).toBeLessThanOrEqual(after.body.max);
    // Body within 2 % of before (p99 and max): a stub takes only its own skin, never the
    // thigh skin around its root (the Shiba cut at 0.1 once went 2.29 → 6.12 at the max).
    expect(after.body.p99).toBeLessThanOrEqual(1.02 * before.body.p99);
    expect(after.body.max).toBeLessThanOrEqual(1.02 * before.body.max);
  });

  // The runtime on the walk: the tail's stretch at or under the body's, nothing torn.
  it.each([['quaternius-fox', 0.6], ['khronos-fox', 0.8]] as const)('%s cut at %s: the chain swung by the runtime tears nothing', (animal, keep) => {
    const c = cut(animal, keep);
    const m = measureTail(c.input, 'Walk', { tail: RUNTIME_TAIL[animal], tailVertex: truthMask(c.input, c.truth, c.doc) });
    expect(m.rows.chain!.torn).toBe(0);
    expect(m.rows.chain!.p99).toBeLessThanOrEqual(m.rows.body!.p99);
    expect(m.rows.chain!.max).toBeLessThanOrEqual(m.rows.body!.max);
  });
});
