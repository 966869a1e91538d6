/**
 * GLB bytes in, GLB bytes out, around {@link rigAppendages}. Browser-safe: uses
 * glTF-Transform's WebIO on in-memory bytes (no fetch, no fs). Bad bytes get a one-line
 * error naming the problem (`bitrig/rig: not a GLB …`, `… truncated …`).
 */
import type { Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { WebIO } from '@gltf-transform/core';
import type { RigOptions, RigOptionsInput } from './options';
import type { RigReport } from './pass';
import { describeInput } from './pass';
import { validateDocument, validateGlbBytes } from './validate/index';

/**
 * The glTF-Transform IO used for every read and write: all official extensions registered so
 * that materials, textures and other extension data pass through the pass untouched.
 * (Draco / meshopt compressed files need their decoders and are refused with a clear error.)
 */
function makeIO(): WebIO {
  return new WebIO().registerExtensions(ALL_EXTENSIONS);
}
import { rigAppendages } from './pass';

/**
 * GLB bytes as the rig functions accept them: a `Uint8Array` (a Node `Buffer` is one), an
 * `ArrayBuffer` (what `file.arrayBuffer()` and `fetch(…).arrayBuffer()` give in a browser), or
 * any other view of one (`DataView`, another typed array).
 */
export type GlbBytes = Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * The bytes of {@link GlbBytes} as a `Uint8Array` (a view, no copy). Throws
 * `bitrig/rig: expected the GLB bytes (Uint8Array or ArrayBuffer), got …` for anything else,
 * naming what was given (a path string, null, a Document…).
 *
 * @example
 * const bytes = glbBytesOf(await file.arrayBuffer());
 */
export function glbBytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  const tag = Object.prototype.toString.call(value);
  if (value instanceof ArrayBuffer || tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]') return new Uint8Array(value as ArrayBuffer);
  let hint = '';
  if (typeof value === 'string') hint = ': read the file first (fs.readFile in Node; await file.arrayBuffer() or await (await fetch(url)).arrayBuffer() in a browser)';
  else if (value && typeof value === 'object' && typeof (value as { getRoot?: unknown }).getRoot === 'function') hint = ': rigAppendages(doc) takes a Document';
  throw new Error(`bitrig/rig: expected the GLB bytes (Uint8Array or ArrayBuffer), got ${describeInput(value)}${hint}`);
}

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

/**
 * Check GLB framing (magic, version 2, declared length, chunk bounds) and throw a clear
 * `bitrig/rig: …` error when it is wrong. Does not parse the JSON. A glTF JSON file (`.gltf`,
 * starting with `{`) is named as such, with how to convert it.
 *
 * @example
 * checkGlbBytes(await file.arrayBuffer());
 */
export function checkGlbBytes(input: GlbBytes): void {
  const bytes = glbBytesOf(input);
  if (bytes.byteLength < 12) throw new Error(`bitrig/rig: not a GLB file (only ${bytes.byteLength} bytes, a GLB header needs 12)`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, true) !== GLB_MAGIC) {
    let first = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0; // (a UTF-8 byte order mark)
    while (first < bytes.byteLength && first < 64 && /\s/.test(String.fromCharCode(bytes[first]!))) first++;
    if (bytes[first] === 0x7b) {
      throw new Error('bitrig/rig: not a GLB file: it starts with "{", so it is a glTF JSON file (.gltf); convert it to a binary GLB first, e.g. npx @gltf-transform/cli copy in.gltf out.glb (its .bin and textures are packed in)');
    }
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
export function unknownExtensions(input: GlbBytes): string[] {
  const bytes = glbBytesOf(input);
  if (bytes.byteLength < 20) return [];
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = dv.getUint32(12, true);
  let json: { extensionsUsed?: unknown };
  try { json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + len))) as typeof json; } catch { return []; }
  if (json === null || typeof json !== 'object') return [];
  const known = new Set(ALL_EXTENSIONS.map((e) => e.EXTENSION_NAME));
  return (Array.isArray(json.extensionsUsed) ? json.extensionsUsed : []).filter((e): e is string => typeof e === 'string' && !known.has(e));
}

/** The mesh compression extension a GLB requires (Draco, meshopt), or null. */
function compressionOf(bytes: Uint8Array): string | null {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = dv.getUint32(12, true);
  let json: { extensionsRequired?: unknown };
  try { json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + len))) as typeof json; } catch { return null; } // (the reader reports it)
  if (json === null || typeof json !== 'object') return null;
  const list = Array.isArray(json.extensionsRequired) ? json.extensionsRequired as unknown[] : []; // (an optional one has uncompressed fallbacks)
  const hit = list.find((e) => e === 'KHR_draco_mesh_compression' || e === 'EXT_meshopt_compression' || e === 'KHR_meshopt_compression');
  return typeof hit === 'string' ? hit : null;
}

/**
 * Read GLB bytes ({@link GlbBytes}: a Uint8Array, an ArrayBuffer…) into a Document, with
 * framing, size, JSON depth and structure checked first and the values after
 * (`validateGlbBytes`, `validateDocument`): a malformed file throws `bitrig/rig: …` naming
 * the problem, never a JavaScript error from inside the reader.
 *
 * @example
 * const doc = await readGlbBytes(await file.arrayBuffer());
 */
export async function readGlbBytes(input: GlbBytes): Promise<Document> {
  return (await readGlbDocument(input)).doc;
}

/**
 * {@link readGlbBytes}, with the validation's notes (what bitrig tolerates in the file and
 * how: skin weights a little off 1…) for a report.
 *
 * @example
 * const { doc, notes } = await readGlbDocument(bytes);
 */
export async function readGlbDocument(input: GlbBytes): Promise<{ doc: Document; notes: string[] }> {
  let bytes = glbBytesOf(input);
  // Typed views of the chunks need 4-byte alignment: copy an unaligned view. A Node Buffer's
  // own slice() is a view of the same memory (still unaligned), so use Uint8Array's.
  if (bytes.byteOffset % 4 !== 0) bytes = Uint8Array.prototype.slice.call(bytes) as Uint8Array;
  checkGlbBytes(bytes);
  validateGlbBytes(bytes);
  const compressed = compressionOf(bytes);
  if (compressed) {
    throw new Error(`bitrig/rig: the GLB's meshes are compressed with ${compressed}, which bitrig does not decode; save it uncompressed first (e.g. from Blender, or glTF-Transform with the decoder)`);
  }
  let doc: Document;
  try {
    doc = await makeIO().readBinary(bytes);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new Error(`bitrig/rig: cannot read the GLB (${msg.split('\n')[0]})`);
  }
  const notes = validateDocument(doc, 'bitrig/rig');
  return { doc, notes };
}

/**
 * Write a Document to GLB bytes.
 *
 * @example
 * const out = await writeGlbBytes(doc);
 */
export async function writeGlbBytes(doc: Document): Promise<Uint8Array> {
  const glb = await makeIO().writeBinary(doc);
  return doc.getRoot().listScenes().some((s) => s.listChildren().length === 0) ? withoutEmptySceneNodes(glb) : glb;
}

/**
 * The GLB with `"nodes": []` removed from its scenes: glTF-Transform writes an empty list for
 * a scene without nodes (valid in the input, where `nodes` is left out), which the Khronos
 * validator calls an error (EMPTY_ENTITY). The binary chunk is kept as it is.
 */
function withoutEmptySceneNodes(glb: Uint8Array): Uint8Array {
  const dv = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLength = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength))) as { scenes?: { nodes?: unknown[] }[] };
  for (const scene of json.scenes ?? []) if (Array.isArray(scene.nodes) && scene.nodes.length === 0) delete scene.nodes;
  const text = new TextEncoder().encode(JSON.stringify(json));
  const padded = (text.length + 3) & ~3;
  const rest = glb.subarray(20 + jsonLength);
  const out = new Uint8Array(20 + padded + rest.length);
  const ov = new DataView(out.buffer);
  out.set(glb.subarray(0, 12));
  ov.setUint32(8, out.length, true);
  ov.setUint32(12, padded, true);
  ov.setUint32(16, CHUNK_JSON, true);
  out.fill(0x20, 20, 20 + padded);
  out.set(text, 20);
  out.set(rest, 20 + padded);
  return out;
}

/** Share of the progress bar the pass itself runs over inside {@link rigGlb} (read before, encode after). */
const PASS_FROM = 0.05;
const PASS_TO = 0.85;
/** Where {@link rigGlb} reports `encode`. */
const ENCODE_AT = 0.9;

/**
 * The whole pass on bytes: read, {@link rigAppendages}, write. Takes what a browser has
 * (`await file.arrayBuffer()`, `await (await fetch(url)).arrayBuffer()`) as well as a
 * Uint8Array or a Node Buffer ({@link GlbBytes}). Progress runs `read` (0), the pass's own
 * steps (scaled into 5…85 %), `encode` (90 %), then `done` (100 %) last, once the GLB is
 * encoded. Throws `bitrig/rig: …` on bad input.
 *
 * @example
 * const { glb, report } = await rigGlb(await file.arrayBuffer(), { mode: 'chain' });
 */
export async function rigGlb(bytes: GlbBytes, options: RigOptionsInput = {}): Promise<{ glb: Uint8Array; report: RigReport }> {
  const input = glbBytesOf(bytes);
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`bitrig/rig: options must be an object of rig options (e.g. { mode: 'chain' }) or left out, got ${describeInput(options)}`);
  }
  const onProgress = options.onProgress ?? null;
  onProgress?.('read', 0);
  // (rigAppendages validates the document and reports its notes)
  const { doc } = await readGlbDocument(input);
  const report = rigAppendages(doc, {
    ...options,
    // (the pass's own 'done' is not the end here: the GLB is still to be encoded)
    onProgress: onProgress ? (step, f) => { if (step !== 'done') onProgress(step, PASS_FROM + (PASS_TO - PASS_FROM) * f); } : null,
  });
  const lost = unknownExtensions(input);
  if (lost.length) report.notes.push(`the output drops the extension${lost.length > 1 ? 's' : ''} ${lost.join(', ')} (not known to bitrig's reader; e.g. a VRM is no longer one)`);
  onProgress?.('encode', ENCODE_AT);
  const glb = await writeGlbBytes(doc);
  onProgress?.('done', 1);
  return { glb, report };
}
