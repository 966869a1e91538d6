/**
 * What the rig entry points accept (review 26 L10, L13): `rigGlb` takes the bytes a browser
 * has (`file.arrayBuffer()`, `fetch().arrayBuffer()`: an ArrayBuffer) and any view of them
 * (Uint8Array, Node Buffer, DataView); anything else, and a non-Document given to
 * `rigAppendages` / `placeOnGround`, is a one-line `bitrig/…:` error naming what was given
 * (it was a raw TypeError). Progress ends with `done` at 100 %, after `encode`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Group } from 'three';
import { afterAll, describe, expect, it } from 'vitest';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterToGlb } from '../../rig/characterDocument';
import { checkGlbBytes, glbBytesOf, readGlbBytes, rigGlb } from '../../rig/glb';
import { compareHipsLift, placeOnGround } from '../../rig/grounding';
import { readFailure, rigFile } from '../../rig/node';
import { describeInput, rigAppendages } from '../../rig/pass';

const dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const critter = (): Promise<Uint8Array> => characterToGlb(createBuiltinCharacter({ variant: 'shin' }));

describe('rigGlb: the GLB bytes in any form a caller has', () => {
  it('an ArrayBuffer, a Node Buffer, a DataView and an unaligned view give the same output as the Uint8Array', async () => {
    const bytes = await critter();
    const ref = await rigGlb(bytes);
    expect(ref.report.chains).toBe(1);
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const shifted = new Uint8Array(bytes.byteLength + 3);
    shifted.set(bytes, 3);
    const inputs: [string, ArrayBuffer | ArrayBufferView][] = [
      ['ArrayBuffer', ab],
      ['Buffer', Buffer.from(bytes)],
      ['DataView', new DataView(ab)],
      ['unaligned Uint8Array view', shifted.subarray(3)],
      // A pooled Buffer at an odd byteOffset: Buffer#slice is a view, so it stayed unaligned
      // ("start offset of Uint32Array should be a multiple of 4", review 33 L4).
      ['Buffer at an odd byteOffset', Buffer.concat([Buffer.alloc(5), Buffer.from(bytes)]).subarray(5)],
    ];
    for (const [label, input] of inputs) {
      const r = await rigGlb(input);
      expect(r.report.chains, label).toBe(1);
      expect(Buffer.from(r.glb).equals(Buffer.from(ref.glb)), label).toBe(true);
    }
    // readGlbBytes and checkGlbBytes take them too.
    expect((await readGlbBytes(ab)).getRoot().listSkins()).toHaveLength(1);
    expect(() => checkGlbBytes(ab)).not.toThrow();
  });

  it('a path, null, undefined, a number, an object or a Document: bitrig/rig: expected the GLB bytes, naming what was given', async () => {
    const doc = await readGlbBytes(await critter());
    const cases: [unknown, RegExp][] = [
      ['fox.glb', /got "fox\.glb" \(a string\): read the file first/],
      [null, /got null$/],
      [undefined, /got undefined$/],
      [42, /got 42 \(a number\)$/],
      [{ bytes: 1 }, /got an object$/],
      [[1, 2, 3], /got an array of 3$/],
      [doc, /got a glTF-Transform Document: rigAppendages\(doc\) takes a Document$/],
    ];
    for (const [value, tail] of cases) {
      const e = await rigGlb(value as Uint8Array).then(() => null, (x: unknown) => x as Error);
      expect(e, describeInput(value)).toBeInstanceOf(Error);
      expect(e!.message, describeInput(value)).toMatch(/^bitrig\/rig: expected the GLB bytes \(Uint8Array or ArrayBuffer\), got /);
      expect(e!.message).toMatch(tail);
      expect(() => glbBytesOf(value)).toThrow(/^bitrig\/rig: expected the GLB bytes/);
    }
  });
});

describe('Document entry points name a wrong argument', () => {
  it('rigAppendages(bytes | null | a path): bitrig/rig: expected a glTF-Transform Document, with what to do', async () => {
    const bytes = await critter();
    expect(() => rigAppendages(bytes as never)).toThrow(/^bitrig\/rig: expected a glTF-Transform Document \(e\.g\. await new WebIO\(\)\.readBinary\(bytes\)\), got a Uint8Array of \d+ bytes: read the bytes into one first/);
    expect(() => rigAppendages(bytes.buffer as never)).toThrow(/got an ArrayBuffer of \d+ bytes: read the bytes into one first/);
    expect(() => rigAppendages(null as never)).toThrow(/^bitrig\/rig: expected a glTF-Transform Document .*, got null$/);
    expect(() => rigAppendages(undefined as never)).toThrow(/got undefined$/);
    expect(() => rigAppendages('fox.glb' as never)).toThrow(/got "fox\.glb" \(a string\): read the file into one first/);
  });

  it("placeOnGround(a three.js Object3D) and compareHipsLift(null): bitrig/grounding: expected a glTF-Transform Document, pointing at 'bitrig/three'", () => {
    expect(() => placeOnGround(new Group() as never)).toThrow(/^bitrig\/grounding: expected a glTF-Transform Document .*, got a three\.js Object3D \(Group\): .*placeOnGround .*'bitrig\/three'/);
    expect(() => placeOnGround(null as never)).toThrow(/^bitrig\/grounding: expected a glTF-Transform Document .*, got null$/);
    expect(() => compareHipsLift({} as never, 'walk')).toThrow(/^bitrig\/grounding: expected a glTF-Transform Document .*, got an object$/);
  });
});

describe('progress: 100 % comes last', () => {
  const check = (steps: [string, number][], last: string[]): void => {
    for (let i = 1; i < steps.length; i++) expect(steps[i]![1], `${steps[i - 1]![0]} → ${steps[i]![0]}`).toBeGreaterThanOrEqual(steps[i - 1]![1]);
    expect(steps.slice(-last.length).map((s) => s[0])).toEqual(last);
    expect(steps[steps.length - 1]![1]).toBe(1);
    expect(steps.filter((s) => s[1] === 1).map((s) => s[0])).toEqual(['done']);
    expect(steps.filter((s) => s[0] === 'done')).toHaveLength(1);
  };

  it('rigGlb: read 0 … encode … done 1, fractions never go back', async () => {
    const steps: [string, number][] = [];
    await rigGlb(await critter(), { onProgress: (s, f) => steps.push([s, f]) });
    expect(steps[0]).toEqual(['read', 0]);
    check(steps, ['encode', 'done']);
  });

  it('rigFile: … encode, save, done 1', async () => {
    const input = path.join(dir, 'critter.glb');
    writeFileSync(input, await critter());
    const steps: [string, number][] = [];
    await rigFile(input, path.join(dir, 'critter-out.glb'), { onProgress: (s, f) => steps.push([s, f]) });
    check(steps, ['encode', 'save', 'done']);
  });

  it('rigAppendages alone still ends with done at 1', async () => {
    const steps: [string, number][] = [];
    rigAppendages(await readGlbBytes(await critter()), { onProgress: (s, f) => steps.push([s, f]) });
    check(steps, ['done']);
  });
});

describe('readFailure', () => {
  it('names the common read errors in words', () => {
    expect(readFailure('ENOENT')).toBe('no such file');
    expect(readFailure('EISDIR')).toBe('it is a folder');
    expect(readFailure('EACCES')).toBe('permission denied');
    expect(readFailure('EIO')).toBe('EIO');
    expect(readFailure(undefined)).toBe('');
  });
});
