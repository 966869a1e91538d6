/**
 * Every tail a rigger handed to a leg, on the repository's own animals (demo/models), de-tailed
 * by `detailAnimal` (tail bones removed, tail skin given to a shin and both thighs): long
 * tails, short tails made by cutting a real tail (test/fixtures/shorten.ts), and two tails
 * from one root (test/rig/twoTails.ts). Stretch is measured on the clip with the grown bones
 * at rest (how the skin follows the body; the runtime's swing is test/bake/measure.test.ts).
 */
import type { Document } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { writeGlbBytes } from '../../rig/glb';
import { rigAppendages, type RigReport } from '../../rig/pass';
import { readSkinSkeleton } from '../../rig/skeleton';
import { loadAsset } from '../fixtures/assets';
import { ANIMAL_PRESETS, detailAnimal, polylineDistance, type TailTruth } from '../fixtures/detail';
import { shortenTail } from '../fixtures/shorten';
import { jointErrors, stretch } from './tailMetrics';
import { twoTailDoc } from './twoTails';
import { validateGlb } from './validate';

type Animal = keyof typeof ANIMAL_PRESETS;

async function rigged(asset: Animal, keep: number): Promise<{ doc: Document; truth: TailTruth; report: RigReport }> {
  const doc = await loadAsset(asset);
  if (keep < 1) shortenTail(doc, keep);
  const truth = detailAnimal(doc, ANIMAL_PRESETS[asset]);
  return { doc, truth, report: rigAppendages(doc) };
}

/** The tail's skin stretches no more than the body's own (p99 and max), and none of it tears. */
function expectTailNoWorseThanBody(doc: Document, truth: TailTruth): void {
  const s = stretch(doc, truth, 'Walk');
  expect(s.tail.p99).toBeLessThanOrEqual(s.body.p99);
  expect(s.tail.max).toBeLessThanOrEqual(s.body.max);
  expect(s.tail.torn).toBe(0);
}

/** Every grown chain hangs from the pelvis: its first bone's parent is the truth's pelvis. */
function expectChainsOnPelvis(report: RigReport, truth: TailTruth): void {
  const skel = readSkinSkeleton(truth.skin, null);
  for (const c of report.appendages.filter((a) => a.verdict === 'chain')) {
    expect(c.attachment).toBe(truth.pelvis);
    expect(skel.parents[skel.names.indexOf(c.joints[0]!)]).toBe(skel.names.indexOf(truth.pelvis));
  }
}

describe('long tails on real animals: one chain each, where the artist put it', () => {
  // Joint errors as fractions of the artist's tail length (tolerance 0.10 on the mean, and at
  // the root, where the chain starts where the tail leaves the body). The Shiba's artist chain
  // does not follow its curled skin (test/rig/assets.test.ts), so only its count and stretch.
  const cases: [Animal, number | null][] = [['quaternius-fox', 0.1], ['khronos-fox', 0.1], ['quaternius-shiba-inu', null]];
  it.each(cases)('%s de-tailed', async (asset, tolerance) => {
    const { doc, truth, report } = await rigged(asset, 1);
    expect(report.chains).toBe(1);
    expectChainsOnPelvis(report, truth);
    const chain = report.appendages.find((a) => a.verdict === 'chain')!;
    const e = jointErrors(truth, chain.joints);
    if (tolerance !== null) {
      expect(e.mean).toBeLessThanOrEqual(tolerance);
      expect(e.root).toBeLessThanOrEqual(tolerance);
    }
    expectTailNoWorseThanBody(doc, truth);
    expect((await validateGlb(await writeGlbBytes(doc))).errors).toBe(0);
  });
});

describe('short tails cut from real ones: repaired as stubs, the report says how and why', () => {
  // keep: the fraction of the artist's chain left by the cut; its tail is then under 0.25 H.
  const cases: [Animal, number, 'chain' | 'rigid'][] = [
    ['quaternius-fox', 0.1, 'rigid'],
    ['quaternius-fox', 0.2, 'rigid'],
    ['khronos-fox', 0.3, 'rigid'],
    ['quaternius-shiba-inu', 0.1, 'chain'],
  ];
  it.each(cases)('%s cut at %s of its tail: %s', async (asset, keep, verdict) => {
    const { doc, truth, report } = await rigged(asset, keep);
    expect(truth.length / report.height).toBeLessThan(0.25);
    const stubs = report.appendages.filter((a) => / a misweighted stub/.test(a.reason));
    expect(stubs).toHaveLength(1);
    const stub = stubs[0]!;
    expect(stub.verdict).toBe(verdict);
    expect(stub.region).toBe('pelvis');
    expect(stub.misweighted).toBeGreaterThanOrEqual(0.5);
    expect(stub.changedVertexCount).toBeGreaterThan(0);
    expect(stub.boneDistanceAfter).toBeLessThan(stub.boneDistanceBefore);
    if (verdict === 'chain') {
      expect(report.chains).toBe(1);
      expect(stub.segments).toBeGreaterThanOrEqual(2);
      expect(stub.segments).toBeLessThanOrEqual(3);
      expect(stub.joints).toHaveLength(stub.segments + 1);
      expect(stub.reason).toMatch(/tail-shaped: grew a chain of 2–3 links/);
      expectChainsOnPelvis(report, truth);
    } else {
      expect(report.chains).toBe(0);
      expect(stub.rigidBone).toBe(truth.pelvis);
      expect(stub.reason).toMatch(/(not tail-shaped|too short for 2 links).*rigid on /);
    }
    expectTailNoWorseThanBody(doc, truth);
    expect((await validateGlb(await writeGlbBytes(doc))).errors).toBe(0);
  });

  it('a short tail weighted correctly is left as it is', async () => {
    const doc = await loadAsset('quaternius-fox');
    shortenTail(doc, 0.2);
    const report = rigAppendages(doc);
    expect(report.changedVertices).toBe(0);
    expect(report.appendages.some((a) => / a misweighted stub/.test(a.reason))).toBe(false);
  });
});

describe('two tails from one root', () => {
  it('get a chain each, each along its own tail', () => {
    const t = twoTailDoc(0, 0.3);
    const report = rigAppendages(t.doc);
    const chains = report.appendages.filter((a) => a.verdict === 'chain');
    expect(report.chains).toBe(2);
    expect(chains.every((c) => c.attachment === 'Hips' && /one of 2 tails from one root/.test(c.reason))).toBe(true);
    // Each chain's tip lies near one tail's centre line and the two tips near different ones
    // (tolerance 0.1 of the tail's centre-line length, about 0.8).
    const skel = readSkinSkeleton(t.doc.getRoot().listSkins()[0]!, null);
    const line = (side: 1 | -1): Float64Array => Float64Array.from(Array.from({ length: 21 }, (_, i) => t.centre(side)(i / 20)).flat());
    const sides = chains.map((c) => {
      const j = skel.names.indexOf(c.joints[c.joints.length - 2]!);
      const p = [skel.positions[3 * j]!, skel.positions[3 * j + 1]!, skel.positions[3 * j + 2]!] as const;
      const dA = polylineDistance(line(1), ...p);
      const dB = polylineDistance(line(-1), ...p);
      expect(Math.min(dA, dB)).toBeLessThan(0.08);
      return dA < dB ? 1 : -1;
    });
    expect(new Set(sides).size).toBe(2);
  });

  it('two tails side by side that never meet keep a chain each (no change)', () => {
    expect(rigAppendages(twoTailDoc(0.4, 0).doc).chains).toBe(2);
  });
});
