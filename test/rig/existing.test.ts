/**
 * The rig pass and tail chains that are already there (review 23): run on its own output it
 * grew a second chain (`Tail2_*`) beside the first on the de-tailed Shiba, on skin still
 * weighted to the thigh; and an artist's tail whose skin an auto-rigger gave to a shin got a
 * new chain beside the artist's bones. Now no chain is grown beside an existing one: skin
 * lying along it but weighted to a body bone is re-weighted onto it, other tail skin at it is
 * left alone, and the report names the chain.
 *
 * Tolerances: "the same weights" is exact equality of the stored JOINTS/WEIGHTS values (the
 * second run writes nothing). Re-weighting quality is the mean weighted bone distance over
 * the tail's vertices, against the artist's own weights on the same bones.
 */
import type { Document, Skin } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { formatRigSummary } from '../../cli/rig';
import { findTailChains } from '../../core/boneMap';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterToDocument, characterToGlb } from '../../rig/characterDocument';
import { jointBones, weightedBoneDistance } from '../../rig/distance';
import { readGlbBytes, rigGlb, writeGlbBytes } from '../../rig/glb';
import { readSkinMesh } from '../../rig/meshData';
import { rigAppendages, type RigReport } from '../../rig/pass';
import { readSkinSkeleton } from '../../rig/skeleton';
import { hasAsset, loadAsset, warnIfNoAssets, type AssetName } from '../fixtures/assets';
import { ANIMAL_PRESETS, addTailTube, detailAnimal, type TailTruth } from '../fixtures/detail';
import { rawInfluences } from './helpers';
import { validateGlb } from './validate';

warnIfNoAssets();

/** Joint and node counts of a document (what "adds no joints" compares). */
function counts(doc: Document): { joints: number[]; nodes: number } {
  return { joints: doc.getRoot().listSkins().map((s) => s.listJoints().length), nodes: doc.getRoot().listNodes().length };
}

/** Run the pass on GLB bytes twice (the second run on the first's output); everything a test compares. */
async function twice(glb: Uint8Array): Promise<{ r1: RigReport; r2: RigReport; out1: Document; out2: Document; before2: ReturnType<typeof rawInfluences>[] }> {
  const first = await rigGlb(glb);
  const out1 = await readGlbBytes(first.glb);
  const before2 = out1.getRoot().listSkins().map((s) => rawInfluences(out1, s));
  const second = await rigGlb(first.glb);
  const out2 = await readGlbBytes(second.glb);
  return { r1: first.report, r2: second.report, out1, out2, before2 };
}

/** The second run added no joint or node, grew no chain, and left every stored weight as the first run wrote it. */
function expectSecondRunChangesNothing(t: Awaited<ReturnType<typeof twice>>): void {
  expect(t.r2.chains).toBe(0);
  expect(t.r2.changedVertices).toBe(0);
  expect(t.r2.appendages.filter((a) => a.verdict !== 'left-alone')).toEqual([]);
  expect(counts(t.out2)).toEqual(counts(t.out1));
  t.out2.getRoot().listSkins().forEach((s, i) => expect(rawInfluences(t.out2, s).values).toEqual(t.before2[i]!.values));
  // The chain the first run grew is reported as existing, by its names.
  const grown = t.r1.appendages.filter((a) => a.verdict === 'chain').map((a) => a.joints);
  expect(grown.length).toBeGreaterThan(0);
  for (const joints of grown) expect(t.r2.existingChains.map((c) => c.joints)).toContainEqual(joints);
}

/**
 * Give the skin of the skin's first tail chain (found by name) to `shin` and both `thighs`
 * (60 / 20 / 20 % of each vertex's tail weight), keeping the bones: the auto-rigger failure
 * on a model that has tail bones. Returns the artist's weights and each vertex's tail weight.
 */
function tailSkinToShin(doc: Document, skin: Skin, shin: string, thighs: [string, string]): { tailWeight: Float32Array; joints: Uint16Array; weights: Float32Array; chain: string[]; parent: string } {
  const skel = readSkinSkeleton(skin, null);
  const chain = findTailChains({ names: skel.names, parents: skel.parents })[0]!;
  const tailSet = new Set([...chain.bones, ...(chain.end >= 0 ? [chain.end] : [])]);
  const targets = [shin, ...thighs].map((n) => skel.names.indexOf(n));
  expect(targets.every((j) => j >= 0)).toBe(true);
  const split = [0.6, 0.2, 0.2];
  const mesh = readSkinMesh(doc, skin);
  const tailWeight = new Float32Array(mesh.count);
  const joints = Uint16Array.from(mesh.joints);
  const weights = Float32Array.from(mesh.weights);
  for (const src of mesh.sources) {
    expect(src.joints[1] ?? null, 'fixture supports JOINTS_0 only').toBeNull();
    const ja = src.joints[0]!;
    const wa = src.weights[0]!;
    const jarr = ja.getArray()!;
    const warr = wa.getArray()!;
    const norm = wa.getNormalized() && wa.getComponentType() !== 5126 ? (wa.getComponentType() === 5121 ? 255 : 65535) : 0;
    for (let i = 0; i < src.count; i++) {
      const v = src.base + i;
      const acc = new Map<number, number>();
      let t = 0;
      for (let k = 0; k < 4; k++) {
        const j = mesh.joints[4 * v + k]!;
        const w = mesh.weights[4 * v + k]!;
        if (!(w > 0)) continue;
        if (tailSet.has(j)) t += w;
        else acc.set(j, (acc.get(j) ?? 0) + w);
      }
      tailWeight[v] = t;
      if (t === 0) continue;
      targets.forEach((j, k) => acc.set(j, (acc.get(j) ?? 0) + t * split[k]!));
      const list = [...acc.entries()].sort((a, b) => b[1] - a[1]).slice(0, 4);
      const sum = list.reduce((s, e) => s + e[1], 0);
      const q = list.map((e) => (norm ? Math.floor((e[1] / sum) * norm) : e[1] / sum));
      if (norm) q[0]! += norm - q.reduce((s, x) => s + x, 0);
      for (let k = 0; k < 4; k++) {
        jarr[4 * i + k] = k < list.length ? list[k]![0] : 0;
        warr[4 * i + k] = k < list.length ? q[k]! : 0;
      }
    }
    ja.setArray(jarr);
    wa.setArray(warr);
  }
  return { tailWeight, joints, weights, chain: chain.bones.map((b) => skel.names[b]!), parent: skel.names[chain.parent]! };
}

/**
 * The artist's tail given to a shin: the pass re-weights it onto the artist's chain and adds
 * no bones; the weighted bone distance over the tail's vertices drops at least 2× from the
 * shin's and ends within `vsArtist` × the artist's own weights'. Body vertices keep their
 * weights exactly; a second run changes nothing.
 */
async function expectReweightedOntoArtistChain(doc: Document, skin: Skin, shin: string, thighs: [string, string], vsArtist: number, label: string): Promise<void> {
  const artist = tailSkinToShin(doc, skin, shin, thighs);
  const skel = readSkinSkeleton(skin, null);
  const bones = jointBones(skel, 0.5);
  const mesh0 = readSkinMesh(doc, skin);
  const tail = Int32Array.from([...artist.tailWeight.keys()].filter((v) => artist.tailWeight[v]! >= 0.5));
  expect(tail.length).toBeGreaterThan(50);
  const bdArtist = weightedBoneDistance(bones, mesh0.positions, artist.joints, artist.weights, mesh0.slots, tail);
  const bdShin = weightedBoneDistance(bones, mesh0.positions, mesh0.joints, mesh0.weights, mesh0.slots, tail);
  const before = rawInfluences(doc, skin);
  const c0 = counts(doc);
  const r = rigAppendages(doc);
  expect(r.chains).toBe(0);
  expect(counts(doc)).toEqual(c0);
  const onto = r.appendages.filter((a) => a.verdict === 'existing-chain');
  expect(onto).toHaveLength(1);
  expect(onto[0]!.joints.slice(0, artist.chain.length)).toEqual(artist.chain);
  expect(onto[0]!.reason).toMatch(new RegExp(`lies along the existing tail chain ${artist.chain[0]}…`));
  expect(onto[0]!.reason).toMatch(new RegExp(`weighted to ${shin} `));
  expect(r.existingChains).toHaveLength(1);
  expect(r.existingChains[0]!.parent).toBe(artist.parent);
  expect(r.existingChains[0]!.changedVertexCount).toBe(onto[0]!.changedVertexCount);
  // The CLI summary says the chain was already there and what moved onto it (review 26 M5).
  const summary = formatRigSummary(r, 'in.glb', 'out.glb').join('\n');
  const esc = (x: string): string => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  expect(summary).toMatch(new RegExp(`already has a tail chain ${esc(artist.chain[0]!)}…\\S+( \\+ \\S+)? \\(${artist.chain.length} bones\\) on ${esc(artist.parent)}: nothing to grow; ${onto[0]!.changedVertexCount} vertices lying along it but weighted to body bones were re-weighted onto it`));
  expect(summary).toMatch(/onto the existing chain .* \(no bones added\) on /);
  expect(summary).not.toMatch(/no tail found|the same skeleton and weights/);
  const mesh = readSkinMesh(doc, skin);
  const bdAfter = weightedBoneDistance(bones, mesh.positions, mesh.joints, mesh.weights, mesh.slots, tail);
  expect(bdShin / bdAfter).toBeGreaterThanOrEqual(2);
  expect(bdAfter).toBeLessThanOrEqual(vsArtist * bdArtist);
  // No weight left on the shin or thighs above 5 % on a tail vertex; only chain bones and its parent.
  const allowed = new Set([...artist.chain, artist.parent].map((n) => skel.names.indexOf(n)));
  let offChain = 0;
  for (const v of tail) {
    let s = 0;
    for (let k = 0; k < mesh.slots; k++) {
      const w = mesh.weights[mesh.slots * v + k]!;
      if (w > 0 && !allowed.has(mesh.joints[mesh.slots * v + k]!)) offChain += w;
      s += w;
    }
    expect(Math.abs(s - 1)).toBeLessThan(1e-6);
  }
  expect(offChain / tail.length).toBeLessThan(0.05);
  // Skin that never had tail weight is bit-identical.
  const after = rawInfluences(doc, skin);
  let changedBody = 0;
  for (let v = 0; v < mesh.count; v++) if (artist.tailWeight[v] === 0 && JSON.stringify(after.values[v]) !== JSON.stringify(before.values[v])) changedBody++;
  expect(changedBody).toBe(0);
  console.info(`[rig] ${label}: artist tail on the shin → ${onto[0]!.changedVertexCount} vertices onto ${artist.chain[0]}…; tail bone distance shin ${bdShin.toPrecision(3)} → ${bdAfter.toPrecision(3)} (artist's own ${bdArtist.toPrecision(3)})`);
  // A second run on the output: nothing more.
  const out = await readGlbBytes(await writeGlbBytes(doc));
  const outSkin = out.getRoot().listSkins()[doc.getRoot().listSkins().indexOf(skin)]!;
  const mid = rawInfluences(out, outSkin);
  const r2 = rigAppendages(out);
  expect(r2.chains).toBe(0);
  expect(r2.changedVertices).toBe(0);
  expect(rawInfluences(out, outSkin).values).toEqual(mid.values);
}

describe('rig pass on a model that already has a tail chain (built-in character)', () => {
  it('its own output (shin variant rigged, as GLB): a second run adds no joints, changes no weight and reports the chain it grew', async () => {
    const t = await twice(await characterToGlb(createBuiltinCharacter({ variant: 'shin' })));
    expect(t.r1.chains).toBe(1);
    expect(t.r1.existingChains).toEqual([]);
    expectSecondRunChangesNothing(t);
    const c = t.r2.existingChains[0]!;
    expect(c.parent).toBe('Hips');
    expect(c.joints[0]).toBe('Tail_1');
    expect(c.joints[c.joints.length - 1]).toBe('Tail_End');
    const summary = formatRigSummary(t.r2, 'in.glb', 'out.glb').join('\n');
    expect(summary).toMatch(/already has a tail chain Tail_1…Tail_(\d) \+ Tail_End \(\1 bones\) on Hips: nothing to grow; its skin is left as it is/);
    expect(summary).toMatch(/no chain grown, no skin re-weighted: the output has the same skeleton and weights/);
    expect(summary).not.toMatch(/no tail found/);
  });

  it("an artist's chain whose skin went to the left shin (chain variant): re-weighted onto that chain, no bones added", async () => {
    const data = createBuiltinCharacter({ variant: 'chain' });
    const doc = characterToDocument(data);
    await expectReweightedOntoArtistChain(doc, doc.getRoot().listSkins()[0]!, 'LeftLeg', ['LeftUpLeg', 'RightUpLeg'], 1.1, 'built-in chain variant');
    expect((await validateGlb(await writeGlbBytes(doc))).errors).toBe(0);
  });

  it('rigid mode leaves skin along an existing chain alone and says why', async () => {
    const doc = characterToDocument(createBuiltinCharacter({ variant: 'chain' }));
    const skin = doc.getRoot().listSkins()[0]!;
    tailSkinToShin(doc, skin, 'LeftLeg', ['LeftUpLeg', 'RightUpLeg']);
    const before = rawInfluences(doc, skin);
    const c0 = counts(doc);
    const r = rigAppendages(doc, { mode: 'rigid' });
    expect(r.changedVertices).toBe(0);
    expect(counts(doc)).toEqual(c0);
    expect(rawInfluences(doc, skin).values).toEqual(before.values);
    const tail = r.appendages.filter((a) => a.kind === 'tail');
    expect(tail).toHaveLength(1);
    expect(tail[0]!.verdict).toBe('left-alone');
    expect(tail[0]!.reason).toMatch(/beside the existing tail chain Tail_1…Tail_\d \+ Tail_End .*rigid mode does not move skin off an existing chain/);
  });
});

interface OwnOutputCase {
  label: string;
  asset: AssetName;
  build: (doc: Document) => TailTruth;
}

const OWN_OUTPUT: OwnOutputCase[] = [
  { label: 'quaternius-fox de-tailed', asset: 'quaternius-fox', build: (d) => detailAnimal(d, ANIMAL_PRESETS['quaternius-fox']) },
  { label: 'khronos-fox de-tailed', asset: 'khronos-fox', build: (d) => detailAnimal(d, ANIMAL_PRESETS['khronos-fox']) },
  // Before the fix the second run grew Tail2_1…Tail2_3 + Tail2_End on 84 vertices of the left
  // haunch next to the first chain's curled tip (still weighted to the thigh).
  { label: 'quaternius-shiba-inu de-tailed', asset: 'quaternius-shiba-inu', build: (d) => detailAnimal(d, ANIMAL_PRESETS['quaternius-shiba-inu']) },
  { label: 'threejs-xbot + tail tube', asset: 'threejs-xbot', build: (d) => addTailTube(d, {}) },
];

describe('rig pass on its own output: real assets', () => {
  it.each(OWN_OUTPUT.filter((c) => hasAsset(c.asset)))('$label: pass(pass(x)) adds no joints and changes no weight', async ({ asset, build }) => {
    const doc = await loadAsset(asset);
    build(doc);
    const t = await twice(await writeGlbBytes(doc));
    expect(t.r1.chains).toBe(1);
    expectSecondRunChangesNothing(t);
    // Any tail-like piece the second run sees is left alone and names the chain it is beside.
    for (const a of t.r2.appendages.filter((x) => x.kind === 'tail')) expect(a.reason).toMatch(/beside the existing tail chain Tail_1…Tail_\d \+ Tail_End/);
    if (asset === 'quaternius-shiba-inu') expect(t.r2.appendages.filter((x) => x.kind === 'tail').length).toBeGreaterThan(0);
  });

  const ARTIST: ['khronos-fox' | 'quaternius-fox', number][] = [
    ['khronos-fox', 1.1],
    ['quaternius-fox', 1.1],
  ];
  it.each(ARTIST)("%s with the artist's tail skin given to the shin: re-weighted onto the artist's chain, no bones added", async (asset, vsArtist) => {
    const doc = await loadAsset(asset);
    const skin = doc.getRoot().listSkins()[0]!;
    const p = ANIMAL_PRESETS[asset];
    await expectReweightedOntoArtistChain(doc, skin, p.shin, p.thighs, vsArtist, asset);
    expect((await validateGlb(await writeGlbBytes(doc))).errors).toBe(0);
  });
});
