/**
 * Golden check of the rig pass: the SHA-256 of the output GLB bytes and of the report JSON
 * (wall time dropped) on the fixtures of test/rig/* and the repository's models, plain and
 * de-tailed. Run before and after a refactor that must not change outputs:
 *
 *   npx tsx test/rig/goldenCheck.ts > before.txt   # …refactor…
 *   npx tsx test/rig/goldenCheck.ts | diff before.txt -
 *
 * Cases needing the Mixamo characters are listed as skipped when ../shared/assets is absent.
 */
import { createHash } from 'node:crypto';
import type { Document } from '@gltf-transform/core';
import { writeGlbBytes } from '../../rig/glb';
import type { RigOptionsInput } from '../../rig/options';
import { rigAppendages } from '../../rig/pass';
import { hasMixamo, loadAsset, type AssetName } from '../fixtures/assets';
import { ANIMAL_PRESETS, addSkirt, addTailTube, detailAnimal } from '../fixtures/detail';
import { makeTinyDoc } from './tiny';
import { addArtistChain, twoTailDoc } from './twoTails';
import { addCape, moveToOwnSkin } from './wornFixtures';

interface Case {
  name: string;
  mixamo?: boolean;
  doc: () => Promise<Document> | Document;
  options?: RigOptionsInput;
}

const animals = ['quaternius-fox', 'khronos-fox', 'quaternius-shiba-inu'] as const;
const detailed = (a: (typeof animals)[number]) => async (): Promise<Document> => {
  const d = await loadAsset(a);
  detailAnimal(d, ANIMAL_PRESETS[a]);
  return d;
};

const CASES: Case[] = [
  { name: 'tiny tail', doc: () => makeTinyDoc({ tail: true }).doc },
  { name: 'tiny tail rigid', doc: () => makeTinyDoc({ tail: true }).doc, options: { mode: 'rigid' } },
  { name: 'tiny no tail', doc: () => makeTinyDoc({}).doc },
  { name: 'tiny ubyte', doc: () => makeTinyDoc({ tail: true, weights: 'ubyte' }).doc },
  { name: 'tiny fat body', doc: () => makeTinyDoc({ fatBody: true }).doc },
  { name: 'tiny fat body + tail', doc: () => makeTinyDoc({ fatBody: true, tail: true }).doc },
  { name: 'tiny no ibm', doc: () => makeTinyDoc({ tail: true, ibm: false }).doc },
  { name: 'two tails 0.4 apart', doc: () => twoTailDoc(0.4, 0).doc },
  { name: 'two tails forked', doc: () => twoTailDoc(0, 0.3).doc },
  {
    name: 'two tails, artist chain on A',
    doc: () => {
      const t = twoTailDoc(0.4, 0);
      addArtistChain(t.doc, ['Tail1', 'Tail2', 'Tail3', 'Tail4'], t.centre(1));
      return t.doc;
    },
  },
  {
    name: 'two tails, artist chains on both',
    doc: () => {
      const t = twoTailDoc(0.1, 0.25);
      addArtistChain(t.doc, ['Tail1.L', 'Tail2.L', 'Tail3.L', 'Tail4.L'], t.centre(1));
      addArtistChain(t.doc, ['Tail1.R', 'Tail2.R', 'Tail3.R', 'Tail4.R'], t.centre(-1));
      return t.doc;
    },
  },
  {
    name: 'fork, artist chain on A',
    doc: () => {
      const t = twoTailDoc(0, 0.3);
      addArtistChain(t.doc, ['Tail1', 'Tail2', 'Tail3', 'Tail4'], t.centre(1));
      return t.doc;
    },
  },
  ...(['khronos-fox', 'quaternius-fox', 'quaternius-shiba-inu', 'threejs-robot-expressive'] as AssetName[]).map((a) => ({ name: a, doc: () => loadAsset(a) })),
  ...animals.map((a) => ({ name: `${a} de-tailed`, doc: detailed(a) })),
  ...animals.map((a) => ({ name: `${a} de-tailed rigid`, doc: detailed(a), options: { mode: 'rigid' } as RigOptionsInput })),
  ...(['threejs-xbot', 'threejs-soldier'] as AssetName[]).map((a) => ({ name: a, mixamo: true, doc: () => loadAsset(a) })),
  { name: 'xbot + tail tube', mixamo: true, doc: async () => { const d = await loadAsset('threejs-xbot'); addTailTube(d, {}); return d; } },
  { name: 'soldier + tail tube appended', mixamo: true, doc: async () => { const d = await loadAsset('threejs-soldier'); addTailTube(d, { into: 'append' }); return d; } },
  { name: 'xbot + skirt', mixamo: true, doc: async () => { const d = await loadAsset('threejs-xbot'); addSkirt(d, {}); return d; } },
  { name: 'xbot + cape', mixamo: true, doc: async () => { const d = await loadAsset('threejs-xbot'); addCape(d); return d; } },
  { name: 'xbot + cape torso', mixamo: true, doc: async () => { const d = await loadAsset('threejs-xbot'); addCape(d); return d; }, options: { include: ['torso'] } },
  {
    name: 'soldier + cape in own skin',
    mixamo: true,
    doc: async () => {
      const d = await loadAsset('threejs-soldier');
      const cape = addCape(d);
      moveToOwnSkin(d, 'Cape', cape.skin, 'OwnSkin');
      return d;
    },
  },
];

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex').slice(0, 16);

for (const c of CASES) {
  if (c.mixamo && !hasMixamo) {
    console.log(`${c.name}: skipped (Mixamo characters absent)`);
    continue;
  }
  const doc = await c.doc();
  const report = rigAppendages(doc, c.options ?? {});
  const json = JSON.stringify({ ...report, ms: 0 });
  const glb = await writeGlbBytes(doc);
  console.log(`${c.name}: glb ${sha(glb)} report ${sha(json)} chains ${report.chains}`);
}
