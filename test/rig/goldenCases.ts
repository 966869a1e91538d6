/**
 * The golden cases of the rig pass: the fixtures of test/rig/* and the repository's models,
 * plain and de-tailed (and, when ../shared/assets holds them, the Mixamo characters), each
 * with the SHA-256 (first 16 hex digits) of the output GLB bytes and of the report JSON (wall
 * time dropped). test/rig/goldenOutputs.test.ts checks the repository's cases against
 * test/rig/golden.json; test/rig/goldenCheck.ts prints every case, or rewrites the file.
 */
import { createHash } from 'node:crypto';
import type { Document } from '@gltf-transform/core';
import { writeGlbBytes } from '../../rig/glb';
import type { RigOptionsInput } from '../../rig/options';
import { rigAppendages } from '../../rig/pass';
import { loadAsset, type AssetName } from '../fixtures/assets';
import { ANIMAL_PRESETS, addSkirt, addTailTube, detailAnimal } from '../fixtures/detail';
import { shortenTail } from '../fixtures/shorten';
import { makeTinyDoc } from './tiny';
import { addArtistChain, twoTailDoc } from './twoTails';
import { addCape, moveToOwnSkin } from './wornFixtures';

/** One golden case: a document made in code, and the pass's options. */
export interface Case {
  /** Name, unique. */
  name: string;
  /** Needs the Mixamo characters of ../shared/assets (never in the repository, not in golden.json). */
  mixamo?: boolean;
  /** A fresh document for the case. */
  doc: () => Promise<Document> | Document;
  /** Options of the pass (defaults when absent). */
  options?: RigOptionsInput;
}

const animals = ['quaternius-fox', 'khronos-fox', 'quaternius-shiba-inu'] as const;
const detailed = (a: (typeof animals)[number]) => async (): Promise<Document> => {
  const d = await loadAsset(a);
  detailAnimal(d, ANIMAL_PRESETS[a]);
  return d;
};

/** Every golden case, in a fixed order. */
export const GOLDEN_CASES: Case[] = [
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
  { name: 'tiny stub tail (chain)', doc: () => makeTinyDoc({ tail: true, tailLength: 0.3 }).doc },
  { name: 'tiny stub tail (rigid)', doc: () => makeTinyDoc({ tail: true, tailLength: 0.2 }).doc },
  { name: 'two tails 0.1 apart (not told apart)', doc: () => twoTailDoc(0.1, 0).doc },
  ...(['khronos-fox', 'quaternius-fox', 'quaternius-shiba-inu', 'threejs-robot-expressive'] as AssetName[]).map((a) => ({ name: a, doc: () => loadAsset(a) })),
  ...animals.map((a) => ({ name: `${a} de-tailed`, doc: detailed(a) })),
  ...animals.map((a) => ({ name: `${a} de-tailed rigid`, doc: detailed(a), options: { mode: 'rigid' } as RigOptionsInput })),
  {
    name: 'quaternius-fox cut at 0.3 of its tail, de-tailed',
    doc: async () => {
      const d = await loadAsset('quaternius-fox');
      shortenTail(d, 0.3);
      detailAnimal(d, ANIMAL_PRESETS['quaternius-fox']);
      return d;
    },
  },
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

/** What a golden case gives: hashes of the output GLB and report, and the chains grown. */
export interface Golden {
  glb: string;
  report: string;
  chains: number;
}

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex').slice(0, 16);

/**
 * Run the pass on one golden case.
 *
 * @example
 * const g = await goldenOf(GOLDEN_CASES[0]!); // { glb: 'f43c…', report: '4c9b…', chains: 1 }
 */
export async function goldenOf(c: Case): Promise<Golden> {
  const doc = await c.doc();
  const report = rigAppendages(doc, c.options ?? {});
  return { glb: sha(await writeGlbBytes(doc)), report: sha(JSON.stringify({ ...report, ms: 0 })), chains: report.chains };
}
