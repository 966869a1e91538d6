/**
 * GLB bytes checked before glTF-Transform reads them: the size limit, the GLB framing
 * (magic, version, chunk lengths: `checkGlbBytes`), the JSON chunk (depth, an object) and
 * its structure. Throws `bitrig/rig: …`.
 */
import { INPUT_LIMITS } from './limits';
import { readGlbChunks } from './json';
import { checkGltfStructure } from './structure';

/**
 * Check framed GLB bytes (call `checkGlbBytes` first for the framing) against the size limit
 * and the glTF structure rules. Throws `bitrig/rig: …` with a plain reason.
 *
 * @example
 * checkGlbBytes(bytes);
 * validateGlbBytes(bytes);
 */
export function validateGlbBytes(bytes: Uint8Array): void {
  if (bytes.byteLength > INPUT_LIMITS.maxGlbBytes) {
    throw new Error(`bitrig/rig: the GLB is ${bytes.byteLength} bytes, more than the ${INPUT_LIMITS.maxGlbBytes} bytes bitrig reads`);
  }
  const { json, bin } = readGlbChunks(bytes);
  checkGltfStructure(json, bin?.byteLength ?? 0);
}
