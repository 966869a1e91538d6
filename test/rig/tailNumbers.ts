/**
 * The numbers of the rig pass on the repository's de-tailed animals and their shortened tails,
 * as a Markdown table: `npx tsx test/rig/tailNumbers.ts`. Per case: chains (and where they
 * hang), joint errors against the artist's chain and the tail skin's mean distance to the
 * grown and the artist's chains (fractions of the artist's length), the tail's and
 * the body's edge stretch on the Walk clip with the grown bones at rest and, for chains, the
 * tail swung by the runtime; the body before the pass; Khronos validator errors.
 */
import { copyDocument } from '../../rig/copyDocument';
import { writeGlbBytes } from '../../rig/glb';
import { measureTail, type StretchRow } from '../../rig/measure';
import { rigAppendages } from '../../rig/pass';
import { loadAsset } from '../fixtures/assets';
import { ANIMAL_PRESETS, detailAnimal } from '../fixtures/detail';
import { shortenTail } from '../fixtures/shorten';
import { jointErrors, RUNTIME_TAIL, skinToChain, stretch, truthMask } from './tailMetrics';
import { validateGlb } from './validate';

type Animal = keyof typeof ANIMAL_PRESETS;
const CASES: [Animal, number][] = [
  ['quaternius-fox', 1], ['khronos-fox', 1], ['quaternius-shiba-inu', 1],
  ['quaternius-fox', 0.1], ['quaternius-fox', 0.3], ['khronos-fox', 0.3], ['quaternius-shiba-inu', 0.1], ['quaternius-shiba-inu', 0.2],
];
const f = (x: number): string => x.toFixed(2);
const row = (r: StretchRow): string => `${f(r.p99)} / ${f(r.max)} / ${(100 * r.torn).toFixed(1)} %`;
console.log('| animal | tail (artist) | verdict | joints mean / root | skin to grown / artist chain | tail at rest p99 / max / torn | tail, runtime p99 / max / torn | body before p99 / max | body after p99 / max | validator errors |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const [a, keep] of CASES) {
  const doc = await loadAsset(a);
  if (keep < 1) shortenTail(doc, keep);
  const truth = detailAnimal(doc, ANIMAL_PRESETS[a]);
  const input = copyDocument(doc);
  const before = stretch(doc, truth, 'Walk');
  const report = rigAppendages(doc);
  const after = stretch(doc, truth, 'Walk');
  const chains = report.appendages.filter((x) => x.verdict === 'chain');
  const rigid = report.appendages.filter((x) => x.verdict === 'rigid');
  const verdict = chains.length > 0 ? chains.map((c) => `chain K=${c.segments} on ${c.attachment}`).join(', ') : rigid.map((r) => `rigid on ${r.rigidBone}`).join(', ');
  const joints = chains.map((c) => {
    const e = jointErrors(truth, c.joints);
    return `${(100 * e.mean).toFixed(1)} % / ${(100 * e.root).toFixed(1)} %`;
  }).join(', ') || '—';
  const near = chains.map((c) => {
    const d = skinToChain(doc, truth, c.joints);
    return `${(100 * d.grown / truth.length).toFixed(1)} % / ${(100 * d.artist / truth.length).toFixed(1)} %`;
  }).join(', ') || '—';
  let runtime = '— (no chain)';
  if (chains.length > 0) {
    runtime = row(measureTail(input, 'Walk', { tail: RUNTIME_TAIL[a], tailVertex: truthMask(input, truth, doc) }).rows.chain!);
  }
  const errors = (await validateGlb(await writeGlbBytes(doc))).errors;
  const label = keep < 1 ? `${a} cut at ${keep}` : a;
  console.log(`| ${label} | ${f(truth.length / report.height)} H | ${verdict} | ${joints} | ${near} | ${row(after.tail)} | ${runtime} | ${f(before.body.p99)} / ${f(before.body.max)} | ${f(after.body.p99)} / ${f(after.body.max)} | ${errors} |`);
}
