/**
 * `bake.clip`: milliseconds to bake a 1 s clip at 30 fps on the built-in character (the
 * `chain` variant's walk retimed to exactly 1 s): calibration, warm-up to loop closure and
 * the written tracks. `measure.clip`: milliseconds for the seed's four rows on the built-in
 * `shin` character's walk (two rig passes, 24 skinned samples per row, the chain warmed up).
 * Medians of repeats; the work per run (warm-up cycles, edge samples) is printed beside.
 */
import type { Document } from '@gltf-transform/core';
import { createBuiltinCharacter } from '../core/character/index';
import { characterToDocument } from '../rig/characterDocument';
import { bakeTails } from '../rig/bake';
import { measureTail } from '../rig/measure';
import { median, type BenchResult } from './common';

/** The built-in chain character with its walk retimed to last exactly `seconds`. */
function oneSecondWalk(seconds = 1): Document {
  const doc = characterToDocument(createBuiltinCharacter({ variant: 'chain' }));
  const walk = doc.getRoot().listAnimations().find((a) => a.getName() === 'walk')!;
  const inputs = new Set(walk.listSamplers().map((s) => s.getInput()!));
  let end = 0;
  for (const acc of inputs) end = Math.max(end, acc.getArray()![acc.getCount() - 1]!);
  for (const acc of inputs) acc.setArray(Float32Array.from(acc.getArray()! as ArrayLike<number>, (t: number) => (t * seconds) / end));
  for (const a of doc.getRoot().listAnimations()) if (a !== walk) a.dispose();
  return doc;
}

/**
 * Run the bake and measure benchmarks.
 *
 * @example
 * const results = await benchBake(); // [{ id: 'bake.clip', ms }, { id: 'measure.clip', ms }]
 */
export async function benchBake(): Promise<BenchResult[]> {
  const bakeMs: number[] = [];
  let cycles = 0;
  let keys = 0;
  for (let r = 0; r < 5; r++) {
    const doc = oneSecondWalk();
    const t0 = performance.now();
    const rep = bakeTails(doc, { clips: ['walk'], fps: 30 });
    bakeMs.push(performance.now() - t0);
    cycles = rep.clips[0]!.warmupCycles;
    keys = rep.clips[0]!.keys;
  }
  const measureMs: number[] = [];
  let samples = 0;
  for (let r = 0; r < 3; r++) {
    const doc = characterToDocument(createBuiltinCharacter({ variant: 'shin' }));
    const t0 = performance.now();
    const rep = measureTail(doc, 'walk');
    measureMs.push(performance.now() - t0);
    samples = rep.tailEdgeSamples + rep.bodyEdgeSamples;
  }
  return [
    { id: 'bake.clip', ms: median(bakeMs), extra: { seconds: median(bakeMs) / 1000, clipSeconds: 1, fps: 30, keys, warmupCycles: cycles } },
    { id: 'measure.clip', ms: median(measureMs), extra: { rows: 4, edgeSamplesPerRow: samples } },
  ];
}
