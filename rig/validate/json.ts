/**
 * The GLB's JSON chunk, parsed with bounds: nesting deeper than the stated limit is refused
 * before `JSON.parse` (which would recurse), a chunk that is not a JSON object (`null`, a
 * number, an array) is refused, and the binary chunk is located. Setup-time; throws
 * `bitrig/rig: …` with a plain reason.
 */
import { INPUT_LIMITS } from './limits';

const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

/** The two chunks of a GLB: the parsed JSON object and the binary chunk (null when absent). */
export interface GlbChunks {
  /** The JSON chunk, parsed: always a plain object. */
  json: Record<string, unknown>;
  /** The binary chunk right after the JSON chunk, or null. */
  bin: Uint8Array | null;
}

/**
 * Deepest nesting of `[` and `{` in JSON text, strings skipped; stops counting once past
 * `limit` (the scan is linear, no recursion).
 *
 * @example
 * jsonDepth('{"a":[[1]]}', 64); // 3
 */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // (a backslash escapes the next character)
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) { deepest = depth; if (deepest > limit) return deepest; }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * Parse the chunks of framed GLB bytes (see `checkGlbBytes`): JSON depth capped, the JSON an
 * object, the binary chunk found. Throws `bitrig/rig: …`.
 *
 * @example
 * const { json, bin } = readGlbChunks(bytes);
 */
export function readGlbChunks(bytes: Uint8Array): GlbChunks {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = dv.getUint32(12, true);
  if (dv.getUint32(16, true) !== CHUNK_JSON) throw new Error('bitrig/rig: malformed GLB (the first chunk is not JSON)');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(20, 20 + jsonLength));
  } catch {
    throw new Error('bitrig/rig: malformed GLB (the JSON chunk is not UTF-8 text)');
  }
  const depth = jsonDepth(text, INPUT_LIMITS.maxJsonDepth);
  if (depth > INPUT_LIMITS.maxJsonDepth) throw new Error(`bitrig/rig: the JSON chunk nests arrays and objects more than ${INPUT_LIMITS.maxJsonDepth} deep (glTF needs about 8); refusing it`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`bitrig/rig: the JSON chunk is not valid JSON (${(e as Error).message.split('\n')[0]})`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new Error(`bitrig/rig: the JSON chunk is ${json === null ? 'null' : Array.isArray(json) ? 'an array' : `a ${typeof json}`}, not a glTF object`);
  }
  let bin: Uint8Array | null = null;
  const at = 20 + jsonLength;
  if (at + 8 <= bytes.byteLength && dv.getUint32(at + 4, true) === CHUNK_BIN) {
    const len = dv.getUint32(at, true);
    if (at + 8 + len > bytes.byteLength) throw new Error(`bitrig/rig: truncated GLB (the binary chunk needs ${len} bytes, ${bytes.byteLength - at - 8} remain)`);
    bin = bytes.subarray(at + 8, at + 8 + len);
  }
  return { json: json as Record<string, unknown>, bin };
}
