/**
 * Input checks shared by the rig pass, bake, measure and grounding: what a value is, in words,
 * and the Document test.
 */
import type { Document } from '@gltf-transform/core';

/**
 * A value for an input error message: strings quoted, objects named by their constructor
 * (`a Uint8Array of 12 bytes`, `an ArrayBuffer of 3 bytes`, `a three.js Object3D (Group)`,
 * `an object`), null and undefined as they are.
 *
 * @example
 * describeInput('fox.glb'); // '"fox.glb" (a string)'
 */
export function describeInput(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'string') return `${JSON.stringify(v.length > 80 ? `${v.slice(0, 77)}…` : v)} (a string)`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${String(v)} (a ${typeof v})`;
  if (typeof v === 'function') return 'a function';
  if (typeof v !== 'object') return `a ${typeof v}`;
  if ((v as { isObject3D?: unknown }).isObject3D === true) return `a three.js Object3D (${(v as { type?: unknown }).type ?? 'Object3D'})`;
  const ctor = (v as { constructor?: { name?: unknown } }).constructor?.name;
  const name = typeof ctor === 'string' && ctor !== '' && ctor !== 'Object' ? ctor : null;
  if (ArrayBuffer.isView(v)) return `${/^[AEIO]/.test(name ?? 'T') ? 'an' : 'a'} ${name ?? 'typed array'} of ${v.byteLength} bytes`;
  if (v instanceof ArrayBuffer) return `an ArrayBuffer of ${v.byteLength} bytes`;
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof (v as { getRoot?: unknown }).getRoot === 'function') return 'a glTF-Transform Document';
  return name ? `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name}` : 'an object';
}

/**
 * Throw `<module>: expected a glTF-Transform Document …, got …` unless `value` is one. Duck
 * typed (`getRoot().listSkins()`), so a Document from another copy of @gltf-transform/core
 * passes. The message names what was given and what to do with it: GLB bytes (read them into
 * a Document), a path, a three.js object (`placeOnGround` from 'bitrig/three' works on one).
 *
 * @example
 * assertDocument(doc, 'bitrig/rig'); // throws for rigAppendages(bytes)
 */
export function assertDocument(value: unknown, module: string): asserts value is Document {
  const root = value && typeof value === 'object' && typeof (value as { getRoot?: unknown }).getRoot === 'function'
    ? (value as { getRoot: () => unknown }).getRoot() : null;
  if (root && typeof (root as { listSkins?: unknown }).listSkins === 'function') return;
  const tag = Object.prototype.toString.call(value);
  let hint = '';
  if (ArrayBuffer.isView(value) || tag === '[object ArrayBuffer]') hint = ': read the bytes into one first (const doc = await new WebIO().readBinary(bytes)), or give the bytes to rigGlb';
  else if (typeof value === 'string') hint = ': read the file into one first (await new NodeIO().read(path) in Node)';
  else if (value && typeof value === 'object' && (value as { isObject3D?: unknown }).isObject3D === true) hint = ": bitrig/rig works on glTF files; for a model loaded with three.js use placeOnGround and the animator from 'bitrig/three'";
  throw new Error(`${module}: expected a glTF-Transform Document (e.g. await new WebIO().readBinary(bytes)), got ${describeInput(value)}${hint}`);
}

