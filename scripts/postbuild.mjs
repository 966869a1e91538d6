#!/usr/bin/env node
/**
 * After `tsup`: the declaration files that import glTF-Transform's types get a declaration of
 * `Float16Array`, which those types name and which TypeScript's lib has only from ES2025 /
 * ESNext on. Where the consumer's lib has it, the two declarations merge (ours adds nothing
 * the lib lacks); where it does not, `bitrig/rig` still type-checks under the default lib.
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
const MARK = '// bitrig: Float16Array for libs before ES2025';
const DECL = `${MARK}
declare global {
  interface Float16Array<TArrayBuffer extends ArrayBufferLike = ArrayBufferLike> extends ArrayLike<number> { readonly buffer: TArrayBuffer }
  interface Float16ArrayConstructor { readonly BYTES_PER_ELEMENT: number }
}
`;
let n = 0;
for (const f of readdirSync(dist)) {
  if (!/\.d\.c?ts$/.test(f)) continue;
  const file = path.join(dist, f);
  const text = readFileSync(file, 'utf8');
  if (!text.includes('@gltf-transform/') || text.includes(MARK)) continue;
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${DECL}${text}`);
  renameSync(tmp, file);
  n++;
}
console.log(`postbuild: Float16Array declared in ${n} declaration files`);
