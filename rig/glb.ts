/**
 * GLB bytes in, GLB bytes out, around {@link rigAppendages}. Browser-safe: uses
 * glTF-Transform's WebIO on in-memory bytes (no fetch, no fs). Bad bytes get a one-line
 * error naming the problem (`bitrig/rig: not a GLB …`, `… truncated …`).
 */
import type { Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { WebIO } from '@gltf-transform/core';
import type { RigOptions } from './options';
import type { RigReport } from './pass';

/**
 * The glTF-Transform IO used for every read and write: all official extensions registered so
 * that materials, textures and other extension data pass through the pass untouched.
 * (Draco / meshopt compressed files need their decoders and are refused with a clear error.)
 */
function makeIO(): WebIO {
  return new WebIO().registerExtensions(ALL_EXTENSIONS);
}
import { rigAppendages } from './pass';

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

/**
 * Check GLB framing (magic, version 2, declared length, chunk bounds) and throw a clear
 * `bitrig/rig: …` error when it is wrong. Does not parse the JSON.
 *
 * @example
 * checkGlbBytes(new Uint8Array(await file.arrayBuffer()));
 */
export function checkGlbBytes(bytes: Uint8Array): void {
  if (bytes.byteLength < 12) throw new Error(`bitrig/rig: not a GLB file (only ${bytes.byteLength} bytes, a GLB header needs 12)`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, true) !== GLB_MAGIC) {
    const head = String.fromCharCode(...bytes.subarray(0, 4)).replace(/[^\x20-\x7e]/g, '?');
    throw new Error(`bitrig/rig: not a GLB file (starts with "${head}", expected "glTF")`);
  }
  const version = dv.getUint32(4, true);
  if (version !== 2) throw new Error(`bitrig/rig: unsupported GLB version ${version} (only glTF 2.0 is supported)`);
  const length = dv.getUint32(8, true);
  if (length > bytes.byteLength) throw new Error(`bitrig/rig: truncated GLB (header says ${length} bytes, the file has ${bytes.byteLength})`);
  let off = 12;
  let sawJson = false;
  while (off < length) {
    if (off + 8 > length) throw new Error(`bitrig/rig: truncated GLB (a chunk header at byte ${off} runs past the end)`);
    const clen = dv.getUint32(off, true);
    const ctype = dv.getUint32(off + 4, true);
    if (off + 8 + clen > length) throw new Error(`bitrig/rig: truncated GLB (chunk at byte ${off} needs ${clen} bytes, ${length - off - 8} remain)`);
    if (off === 12 && ctype !== CHUNK_JSON) throw new Error('bitrig/rig: malformed GLB (the first chunk is not JSON)');
    if (ctype === CHUNK_JSON) sawJson = true;
    void CHUNK_BIN;
    off += 8 + clen;
  }
  if (!sawJson) throw new Error('bitrig/rig: malformed GLB (no JSON chunk)');
}

/**
 * Extensions a GLB uses that bitrig's reader does not know: their data is not kept in what
 * bitrig writes (a VRM's `VRMC_vrm`, for one). Setup-time; [] when the JSON does not parse.
 *
 * @example
 * const lost = unknownExtensions(bytes); // ['VRMC_vrm', 'VRMC_springBone']
 */
export function unknownExtensions(bytes: Uint8Array): string[] {
  if (bytes.byteLength < 20) return [];
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = dv.getUint32(12, true);
  let json: { extensionsUsed?: unknown };
  try { json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + len))) as typeof json; } catch { return []; }
  const known = new Set(ALL_EXTENSIONS.map((e) => e.EXTENSION_NAME));
  return (Array.isArray(json.extensionsUsed) ? json.extensionsUsed : []).filter((e): e is string => typeof e === 'string' && !known.has(e));
}

/** The mesh compression extension a GLB requires (Draco, meshopt), or null. */
function compressionOf(bytes: Uint8Array): string | null {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = dv.getUint32(12, true);
  let json: { extensionsRequired?: unknown };
  try { json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + len))) as typeof json; } catch { return null; } // (the reader reports it)
  const list = Array.isArray(json.extensionsRequired) ? json.extensionsRequired as unknown[] : []; // (an optional one has uncompressed fallbacks)
  const hit = list.find((e) => e === 'KHR_draco_mesh_compression' || e === 'EXT_meshopt_compression' || e === 'KHR_meshopt_compression');
  return typeof hit === 'string' ? hit : null;
}

/**
 * Read GLB bytes into a Document, with framing checked first and parse errors wrapped.
 *
 * @example
 * const doc = await readGlbBytes(bytes);
 */
export async function readGlbBytes(bytes: Uint8Array): Promise<Document> {
  if (bytes.byteOffset % 4 !== 0) bytes = bytes.slice(); // (typed views of the chunks need 4-byte alignment)
  checkGlbBytes(bytes);
  const compressed = compressionOf(bytes);
  if (compressed) {
    throw new Error(`bitrig/rig: the GLB's meshes are compressed with ${compressed}, which bitrig does not decode; save it uncompressed first (e.g. from Blender, or glTF-Transform with the decoder)`);
  }
  try {
    return await makeIO().readBinary(bytes);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new Error(`bitrig/rig: cannot read the GLB (${msg.split('\n')[0]})`);
  }
}

/**
 * Write a Document to GLB bytes.
 *
 * @example
 * const out = await writeGlbBytes(doc);
 */
export async function writeGlbBytes(doc: Document): Promise<Uint8Array> {
  return makeIO().writeBinary(doc);
}

/**
 * The whole pass on bytes: read, {@link rigAppendages}, write. Progress steps `read` and
 * `encode` are reported around the pass's own.
 *
 * @example
 * const { glb, report } = await rigGlb(bytes, { mode: 'chain' });
 */
export async function rigGlb(bytes: Uint8Array, options: Partial<RigOptions> = {}): Promise<{ glb: Uint8Array; report: RigReport }> {
  options.onProgress?.('read', 0);
  const doc = await readGlbBytes(bytes);
  const report = rigAppendages(doc, options);
  const lost = unknownExtensions(bytes);
  if (lost.length) report.notes.push(`the output drops the extension${lost.length > 1 ? 's' : ''} ${lost.join(', ')} (not known to bitrig's reader; e.g. a VRM is no longer one)`);
  options.onProgress?.('encode', 1);
  const glb = await writeGlbBytes(doc);
  return { glb, report };
}
