/**
 * Measuring tails (rig/measure.ts): the harness (statistics, edges,
 * rigid = 1 under any armature), then the seed's four rows on the built-in character and on
 * de-tailed real animals: the original rig tears, rigid is exactly 1.00, the chain stays under
 * the body's own stretch with nothing torn, and the tail is not frozen.
 */
import { describe, expect, it } from 'vitest';
import { quat } from 'gl-matrix';
import { meshEdges, measureEdgeStretch, measureJson, measureTail, stretchStats, type MeasureReport } from '../../rig/measure';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterToDocument } from '../../rig/characterDocument';
import { makeCritter } from './fixtures';
import { addFallClip } from './oneShotFixtures';
import { loadAsset } from '../fixtures/assets';
import { ANIMAL_PRESETS, detailAnimal } from '../fixtures/detail';

describe('stretch harness', () => {
  it('statistics: nearest-rank percentiles, max, torn both ways', () => {
    const v = new Float64Array(100);
    for (let i = 0; i < 100; i++) v[i] = 1 + i / 100; // 1.00 … 1.99
    v[0] = 0.5; // squashed: torn
    const s = stretchStats(v, 1.5, 0.67);
    expect(s.p95).toBeCloseTo(1.94, 12);
    expect(s.p99).toBeCloseTo(1.98, 12);
    expect(s.max).toBeCloseTo(1.99, 12);
    expect(s.torn).toBeCloseTo(50 / 100, 12); // 1.51…1.99 (49) + 0.5
    expect(stretchStats(new Float64Array(0)).torn).toBe(0);
  });

  it('edges: each undirected edge once, degenerate ones dropped', () => {
    const e = meshEdges(new Uint32Array([0, 1, 2, 2, 1, 3, 4, 4, 5]));
    const set = new Set<string>();
    for (let i = 0; i < e.length; i += 2) set.add(`${e[i]}-${e[i + 1]}`);
    expect([...set].sort()).toEqual(['0-1', '0-2', '1-2', '1-3', '2-3', '4-5']);
    expect(e.length / 2).toBe(6);
  });

  const arms: [string, { t?: [number, number, number]; r?: [number, number, number, number]; s?: [number, number, number] }][] = [
    ['translated', { t: [4, -1, 2] }],
    ['rotated', { r: Array.from(quat.normalize(quat.create(), [0.2, 0.7, -0.1, 0.6])) as [number, number, number, number] }],
    ['scaled', { s: [0.01, 0.01, 0.01] }],
    ['mirrored', { s: [-1, 1, 1], r: Array.from(quat.setAxisAngle(quat.create(), [0, 1, 0], 1)) as [number, number, number, number] }],
  ];
  const ref = makeCritter({ variant: 'rigid' });
  const refStretch = measureEdgeStretch(ref.doc, 'walk', { tailVertex: [ref.tailVertex] });
  it('rigid tail: every tail edge sample is 1 (±1e-6); the legs bend the body', () => {
    expect(refStretch.tailEdgeSamples).toBeGreaterThan(1000);
    expect(Math.abs(refStretch.tail.max - 1)).toBeLessThan(1e-6);
    expect(Math.abs(refStretch.tail.p95 - 1)).toBeLessThan(1e-6);
    expect(refStretch.tail.torn).toBe(0);
    expect(refStretch.body.max).toBeGreaterThan(1.01); // knees bend: body edges do stretch
  });
  for (const [label, armature] of arms) {
    it(`${label} armature: rigid tail stays 1 (±1e-6) and the body row is unchanged (1e-6)`, () => {
      const c = makeCritter({ variant: 'rigid', armature });
      const r = measureEdgeStretch(c.doc, 'walk', { tailVertex: [c.tailVertex] });
      expect(Math.abs(r.tail.max - 1)).toBeLessThan(1e-6);
      expect(Math.abs(r.tail.p99 - 1)).toBeLessThan(1e-6);
      expect(Math.abs(r.body.p95 - refStretch.body.p95)).toBeLessThan(1e-6);
      expect(Math.abs(r.body.max - refStretch.body.max)).toBeLessThan(1e-6);
    });
  }
  it('a tail skinned to a shin stretches where a rigid one does not (same edges)', () => {
    const c = makeCritter({ variant: 'shin' });
    const r = measureEdgeStretch(c.doc, 'walk', { tailVertex: [c.tailVertex] });
    expect(r.tailEdgeSamples).toBe(refStretch.tailEdgeSamples);
    expect(r.tail.max).toBeGreaterThan(1.02);
  });
});

/** The acceptance checks of the four rows (tolerances stated inline). */
function expectFourRows(r: MeasureReport, minSwingDeg = 5): void {
  const { original, rigid, chain, body } = r.rows;
  expect(original && rigid && chain && body).toBeTruthy();
  expect(original!.torn).toBeGreaterThan(0); // the rigger's weights tear the tail
  for (const k of ['p95', 'p99', 'max'] as const) expect(Math.abs(rigid![k] - 1)).toBeLessThan(1e-6); // the harness check
  expect(rigid!.torn).toBe(0);
  expect(chain!.p99).toBeLessThanOrEqual(body!.p99);
  expect(chain!.max).toBeLessThanOrEqual(body!.max);
  expect(chain!.torn).toBe(0);
  expect(r.chainRootSwingDeg!).toBeGreaterThanOrEqual(minSwingDeg); // not frozen: root link ≥ minSwingDeg (5°) off its rest at some sample
  expect(r.boneDistance.after!).toBeLessThan(r.boneDistance.before!);
  expect(r.warmup!.converged).toBe(true);
  expect(r.tailEdgeSamples).toBe(24 * (r.tailEdgeSamples / 24));
  const json = measureJson(r);
  expect(Object.keys(json)).toEqual(['clip', 'samples', 'tailEdgeSamples', 'rows', 'boneDistance']);
  expect(Object.keys(json.rows)).toEqual(['original', 'rigid', 'chain', 'body']);
  expect(Object.keys(json.rows.original!)).toEqual(['p95', 'p99', 'max', 'torn']);
}

describe('the four rows on the built-in character (tail skinned to the left shin)', () => {
  it('sprint: original tears, rigid 1.00, chain under the body with 0 % torn, tail swinging', () => {
    const doc = characterToDocument(createBuiltinCharacter({ variant: 'shin' }));
    const r = measureTail(doc, 'sprint');
    expectFourRows(r);
    expect(r.samples).toBe(24);
    expect(r.hadTailBones).toBe(false);
  });
  it('a loop warms up as a loop; a one-shot (the critter\'s fall) settles on its first pose, as the bake does (warmup.mode)', () => {
    const doc = characterToDocument(createBuiltinCharacter({ variant: 'shin' }));
    expect(measureTail(doc, 'walk', { samples: 6 }).warmup!.mode).toBe('loop');
    const c = makeCritter({ variant: 'chain' });
    addFallClip(c.doc);
    const r = measureTail(c.doc, 'fall', { samples: 6 });
    expect(r.warmup!.mode).toBe('once');
    expect(r.warmup!.maxSeamJumpDeg).toBe(0); // no loop seam
  });
  it('measuring never modifies the input document', () => {
    const doc = characterToDocument(createBuiltinCharacter({ variant: 'shin' }));
    const nodesBefore = doc.getRoot().listNodes().length;
    const w = doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!.getAttribute('WEIGHTS_0')!.getArray()!.slice();
    measureTail(doc, 'crouch', { samples: 6 });
    expect(doc.getRoot().listNodes().length).toBe(nodesBefore);
    expect(Array.from(doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!.getAttribute('WEIGHTS_0')!.getArray()!)).toEqual(Array.from(w));
  });
});

describe('the four rows on de-tailed real animals (tail skin on the shin and thighs)', () => {
  // The runtime's rest options per animal, stated: these animals' modelled tails curve (the
  // Quaternius fox's rises and curls at the tip, the Shiba's curls over its back), so the
  // chain keeps the artist's curve (restCurve 1) instead of straightening it (β = 0 compresses
  // the inside of the curve below 0.67); the Shiba's tail is already carried (carry 0). The
  // Shiba's chain starts where its tail leaves the body and its root link rises there (a
  // carried tail): its root swings about 2.6° on the walk, so 2° is its "not frozen" bound.
  const cases: [keyof typeof ANIMAL_PRESETS, string, { restCurve: number; carry?: number }, number][] = [
    ['quaternius-fox', 'Walk', { restCurve: 1 }, 5],
    ['khronos-fox', 'Walk', { restCurve: 1 }, 5],
    ['quaternius-shiba-inu', 'Walk', { restCurve: 1, carry: 0 }, 2],
  ];
  for (const [asset, clip, tail, minSwing] of cases) {
    it(`${asset} ${clip}: original tears, rigid 1.00, chain ≤ body with 0 % torn, not frozen`, async () => {
      const doc = await loadAsset(asset);
      detailAnimal(doc, ANIMAL_PRESETS[asset]);
      const r = measureTail(doc, clip, { tail });
      expectFourRows(r, minSwing);
    });
  }

  it('an input that already has a tail chain gets the rows it can measure (no rigid row)', async () => {
    const doc = await loadAsset('quaternius-fox');
    const r = measureTail(doc, 'Walk', { samples: 12 });
    expect(r.hadTailBones).toBe(true);
    expect(r.rows.rigid).toBeNull();
    expect(r.rows.original).not.toBeNull();
    expect(r.rows.chain).not.toBeNull();
    expect(r.rows.body).not.toBeNull();
    expect(r.boneDistance.before).toBe(r.boneDistance.after);
  });
});
