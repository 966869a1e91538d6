/**
 * Load a GLB into three.js objects in Node for tests. three's GLTFLoader needs browser
 * image decoding for textures (`self`, `createImageBitmap`), which Node lacks, so textures are
 * removed first with glTF-Transform; geometry, skins, nodes and clips are untouched.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeIO } from '@gltf-transform/core';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Repo root. */
export const repoRoot = path.resolve(here, '../..');
/** ../shared/assets beside the repo. */
export const sharedAssets = path.resolve(repoRoot, '../shared/assets');

/** Parse GLB bytes with three's GLTFLoader, textures stripped. */
export async function loadGlbThree(bytes: Uint8Array): Promise<GLTF> {
  const io = new NodeIO();
  const doc = await io.readBinary(bytes);
  for (const t of doc.getRoot().listTextures()) t.dispose();
  const clean = await io.writeBinary(doc);
  const ab = clean.buffer.slice(clean.byteOffset, clean.byteOffset + clean.byteLength) as ArrayBuffer;
  return new Promise<GLTF>((resolve, reject) => new GLTFLoader().parse(ab, '', resolve, reject));
}

/** Load a GLB file from disk into three.js objects (textures stripped). */
export async function loadGlbFileThree(file: string): Promise<GLTF> {
  return loadGlbThree(new Uint8Array(readFileSync(file)));
}
