/**
 * rig/copyDocument.ts: a deep copy of a Document with @gltf-transform/core alone (so a runtime
 * install does not pull @gltf-transform/functions and its native image library). Checked
 * against the functions package's own `cloneDocument` (a dev dependency here): the written GLB
 * bytes are identical, on the built-in character and on every real asset; and the copy shares
 * nothing with its source (editing the copy leaves the source's bytes as they were).
 */
import { describe, expect, test } from 'vitest';
import { NodeIO, type Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { cloneDocument } from '@gltf-transform/functions';
import { copyDocument } from '../../rig/copyDocument';
import { characterToDocument } from '../../rig/characterDocument';
import { createBuiltinCharacter } from '../../core/character';
import { assetBytes, hasAsset, warnIfNoAssets, type AssetName } from '../fixtures/assets';

const io = new NodeIO().registerExtensions(ALL_EXTENSIONS);
const bytes = (d: Document): Promise<Uint8Array> => io.writeBinary(d);

async function expectSameAsClone(doc: Document): Promise<void> {
  const before = await bytes(doc);
  const mine = copyDocument(doc);
  expect(Buffer.compare(Buffer.from(await bytes(mine)), Buffer.from(await bytes(cloneDocument(doc))))).toBe(0);
  // nothing shared: edit the copy everywhere, the source is unchanged
  for (const n of mine.getRoot().listNodes()) n.setName(`${n.getName()}!`).setTranslation([9, 9, 9]);
  for (const a of mine.getRoot().listAccessors()) { const arr = a.getArray(); if (arr) arr.fill(0); }
  for (const an of mine.getRoot().listAnimations()) an.setExtras({ edited: true });
  expect(Buffer.compare(Buffer.from(await bytes(doc)), Buffer.from(before))).toBe(0);
}

describe('copyDocument', () => {
  test('the built-in character: same bytes as cloneDocument, nothing shared', async () => {
    await expectSameAsClone(characterToDocument(createBuiltinCharacter({ variant: 'shin' })));
  });
});

warnIfNoAssets();
describe('copyDocument on the real assets (the Mixamo ones only when ../shared/assets has them)', () => {
  const names: AssetName[] = ['khronos-fox', 'quaternius-fox', 'quaternius-shiba-inu', 'threejs-xbot', 'threejs-soldier', 'threejs-robot-expressive'];
  for (const name of names) {
    test.skipIf(!hasAsset(name))(`${name}: same bytes as cloneDocument, nothing shared`, async () => {
      await expectSameAsClone(await io.readBinary(assetBytes(name)));
    });
  }
});
