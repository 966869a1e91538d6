/**
 * The numbers of the rig pass on the repository's de-tailed animals, their shortened tails and
 * two tails from one root: `npx tsx test/rig/tailNumbers.ts`.
 */
import { rigAppendages } from '../../rig/pass';
import { loadAsset } from '../fixtures/assets';
import { ANIMAL_PRESETS, detailAnimal } from '../fixtures/detail';
import { shortenTail } from '../fixtures/shorten';
import { describeRun } from './tailMetrics';

const CASES: [keyof typeof ANIMAL_PRESETS, number][] = [
  ['quaternius-fox', 1], ['khronos-fox', 1], ['quaternius-shiba-inu', 1],
  ['quaternius-fox', 0.1], ['quaternius-fox', 0.2], ['khronos-fox', 0.3], ['quaternius-shiba-inu', 0.1], ['quaternius-shiba-inu', 0.2],
];
for (const [a, keep] of CASES) {
  const doc = await loadAsset(a);
  if (keep < 1) shortenTail(doc, keep);
  const truth = detailAnimal(doc, ANIMAL_PRESETS[a]);
  const report = rigAppendages(doc);
  console.log(describeRun(`${a}${keep < 1 ? ` cut at ${keep}` : ''} (artist tail ${(truth.length / report.height).toFixed(3)} H)`, doc, truth, report, 'Walk'));
}
