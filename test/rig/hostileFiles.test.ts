/**
 * Hostile files, each case of the report that found them named: `bitrig rig`, `measure` and
 * `bake` answer every one with exit 2 and one plain line naming what is wrong (never a
 * JavaScript error, never a hang, never a half-written output), and the API functions say
 * the same things.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readGlbBytes, rigGlb } from '../../rig/glb';
import { measureTail } from '../../rig/measure';
import { runCli, type CliRun } from '../helpers/cli';
import { accessorsByUse, joinGlb, poke, splitGlb } from './fuzz/malformedGlb';
import { fuzzBases } from './fuzz/runCase';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let dir = '';
let chain: Uint8Array; // a critter with a Tail_* chain and clips walk, crouch
let shin: Uint8Array; // the same critter, its tail skinned to a shin (what the rig pass fixes)

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-hostile-'));
  [chain, shin] = await fuzzBases() as [Uint8Array, Uint8Array];
});
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

/** Write a variant of `base` (JSON and binary chunk edited by `edit`) and return its path. */
function variant(name: string, base: Uint8Array, edit: (json: Json, bin: Uint8Array) => void | string): string {
  const { json, bin } = splitGlb(base);
  const text = edit(json, bin);
  const file = path.join(dir, `${name}.glb`);
  writeFileSync(file, joinGlb(typeof text === 'string' ? text : JSON.stringify(json), bin));
  return file;
}

const ARGS: Record<string, (input: string, out: string) => string[]> = {
  rig: (i, o) => ['rig', i, '-o', o, '-q'],
  measure: (i) => ['measure', i, '--clip', 'walk', '--samples', '3'],
  bake: (i, o) => ['bake', i, '-o', o, '--clips', 'walk', '--fps', '10'],
};

/** Run `commands` on `input`: each exits 2 with exactly one line matching `reason`, writes nothing, leaves no temp file. */
async function refused(input: string, reason: RegExp, commands = ['rig', 'measure', 'bake']): Promise<CliRun[]> {
  const runs: CliRun[] = [];
  for (const c of commands) {
    const out = path.join(dir, `${path.basename(input, '.glb')}-${c}-out.glb`);
    const r = await runCli(ARGS[c]!(input, out));
    expect(r.code, `${c}: ${r.err.join(' | ')}`).toBe(2);
    expect(r.err, c).toHaveLength(1);
    expect(r.err[0], c).toMatch(new RegExp(`^bitrig ${c}: ${reason.source}`));
    expect(r.err[0], c).not.toMatch(/TypeError|RangeError|Cannot read|Invalid typed array|Maximum call stack|\n/);
    expect(existsSync(out), c).toBe(false);
    runs.push(r);
  }
  expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  return runs;
}

describe('the cases of the hostile-files report, each by name', () => {
  it('a clip whose last key time is 1e30: measure no longer spins and bake no longer dies on a typed array length', async () => {
    const f = variant('time-1e30', chain, (json, bin) => {
      const ai = json.animations[0].samplers[0].input as number;
      poke(json, bin, ai, json.accessors[ai].count - 1, 0, 1e30);
      json.accessors[ai].max = [1e30];
    });
    const t0 = Date.now();
    await refused(f, /clip "walk" has a key at 1\.0+\d*e\+30 s, longer than the 3600 s bitrig accepts for a clip$/);
    expect(Date.now() - t0).toBeLessThan(5000); // (three refusals before any sampling: well under a second each)
  });

  it('a JSON chunk that is null (and other JSON that is not an object)', async () => {
    await refused(variant('json-null', chain, () => 'null'), /the JSON chunk is null, not a glTF object$/);
    await refused(variant('json-array', chain, () => '[]'), /the JSON chunk is an array, not a glTF object$/, ['rig']);
  });

  it('a second data: buffer: refused before the pass, not after it', async () => {
    const f = variant('two-buffers', chain, (json) => { json.buffers.push({ byteLength: 4, uri: 'data:application/octet-stream;base64,AAAAAA==' }); });
    await refused(f, /the file has 2 buffers; bitrig reads GLBs whose data is all in the one binary chunk/);
  });

  it('200k nested arrays in extras: refused by the depth limit, no stack overflow', async () => {
    const f = variant('deep', chain, (json) => JSON.stringify(json).replace('"asset":{', `"extras":${'['.repeat(200_000)}${']'.repeat(200_000)},"asset":{`));
    await refused(f, /the JSON chunk nests arrays and objects more than 64 deep/);
  });

  it('a POSITION count of 1.5', async () => {
    const f = variant('count-1.5', chain, (json) => { json.accessors[accessorsByUse(json).POSITION![0]!].count = 1.5; });
    await refused(f, /accessor \d+ "\w+" count must be a whole number in 1…2147483647, got 1\.5$/);
  });

  it('an index accessor claiming 2^31−1 elements: rig and bake no longer read past its buffer view', async () => {
    const f = variant('indices-huge', shin, (json) => { json.accessors[accessorsByUse(json).indices![0]!].count = 2 ** 31 - 1; });
    await refused(f, /accessor \d+ "idx" claims 2147483647 elements \(\d+ bytes\) but its buffer view \d+ holds \d+ bytes$/);
  });

  it('"count": "10" (a string): refused, not written out as a file nobody can read back', async () => {
    const f = variant('count-string', chain, (json) => { json.accessors[0].count = '10'; });
    await refused(f, /accessor 0 "\w+" count must be a whole number in 1…2147483647, got "10"$/);
  });

  it('a cyclic node graph: rig refuses it as measure and bake do', async () => {
    const f = variant('cycle', chain, (json) => {
      const p = json.nodes.findIndex((n: Json) => n.children?.length);
      const c = json.nodes[p].children[0];
      json.nodes[c].children = [...(json.nodes[c].children ?? []), p];
    });
    await refused(f, /node \d+ "\w+" (?:has two parents|is part of a node cycle)/);
  });

  it('NaN and Inf in positions, weights, inverse bind matrices and key values: refused, naming the accessor and its use', async () => {
    const cases: [string, number, RegExp][] = [
      ['POSITION', NaN, /accessor \d+ "\w+" \(POSITION of mesh "Critter" primitive 0\) has NaN at element 7; every number must be finite$/],
      ['WEIGHTS_0', Infinity, /accessor \d+ "\w+" \(WEIGHTS_0 of mesh "Critter" primitive 0\) has Infinity at element 7/],
      ['ibm', -Infinity, /accessor \d+ "\w+" \(inverse bind matrices of skin "CritterSkin"\) has -Infinity at element 7/],
      ['values', NaN, /accessor \d+ "\w+" \(key values of clip "walk"\) has NaN at element 7/],
    ];
    for (const [use, v, reason] of cases) {
      const f = variant(`poison-${use}`, chain, (json, bin) => { poke(json, bin, accessorsByUse(json)[use]![0]!, 7, 0, v); });
      await refused(f, reason);
    }
  });

  it('measure on all-NaN positions: exit 2, never "Infinity → Infinity"', async () => {
    const f = variant('all-nan', shin, (json, bin) => {
      const ai = accessorsByUse(json).POSITION![0]!;
      for (let e = 0; e < json.accessors[ai].count; e++) for (let k = 0; k < 3; k++) poke(json, bin, ai, e, k, NaN);
    });
    const [r] = await refused(f, /accessor \d+ "\w+" \(POSITION of mesh "Critter" primitive 0\) has NaN at element 0/, ['measure']);
    expect(r!.out.join('\n')).not.toMatch(/Infinity/);
  });

  it('raw JavaScript reasons are plain words: no asset, a buffer view without its buffer, a bad byteStride, an unknown component type', async () => {
    await refused(variant('no-asset', chain, (json) => { delete json.asset; }), /the file has no "asset" with a glTF "version"$/, ['rig']);
    await refused(variant('bv-buffer', chain, (json) => { json.bufferViews[0].buffer = 3; }), /buffer view 0 refers to buffer 3, but the file has buffers 0…0$/, ['rig']);
    await refused(variant('bv-stride', chain, (json) => { json.bufferViews[0].byteStride = 'x'; }), /buffer view 0 byteStride must be a whole number in 4…252, got "x"$/, ['rig']);
    await refused(variant('component', chain, (json) => { json.accessors[0].componentType = 1234; }), /accessor 0 "\w+" componentType must be one of 5120, 5121, 5122, 5123, 5125, 5126, got 1234$/, ['rig']);
  });

  it('one NaN vertex in the mesh: rig, measure and bake give the same reason (not "the model has zero height")', async () => {
    const f = variant('one-nan', chain, (json, bin) => { poke(json, bin, accessorsByUse(json).POSITION![0]!, 100, 1, NaN); });
    const runs = await refused(f, /accessor \d+ "\w+" \(POSITION of mesh "Critter" primitive 0\) has NaN at element 100; every number must be finite$/);
    expect(new Set(runs.map((r) => r.err[0]!.replace(/^bitrig \w+: /, ''))).size).toBe(1);
  });

  it('skin weights: a sum of 1e30 is refused; a sum a little off 1 is normalised and said in a note, the output keeping only the input\'s own error', async () => {
    const huge = variant('weight-huge', shin, (json, bin) => { poke(json, bin, accessorsByUse(json).WEIGHTS_0![0]!, 9, 0, 1e30); });
    await refused(huge, /accessor \d+ "weights" \(WEIGHTS_0 of mesh "Critter" primitive 0\): the skin weights of vertex 9 sum to 1\.000e\+30, more than 10: these are not skin weights$/);
    const slop = variant('weight-slop', shin, (json, bin) => {
      const ai = accessorsByUse(json).WEIGHTS_0![0]!;
      for (let c = 0; c < 4; c++) poke(json, bin, ai, 9, c, c === 0 ? 0.97 : 0);
    });
    const out = path.join(dir, 'weight-slop-out.glb');
    const r = await runCli(ARGS.rig!(slop, out));
    expect(r.code).toBe(0);
    expect(r.out.join('\n')).toMatch(/note: accessor \d+ "weights" \(WEIGHTS_0 of mesh "Critter" primitive 0\): the skin weights of 1 vertex\(es\) do not sum to 1 \(vertex 9: 0\.9700\); bitrig normalises them/);
  });

  it('a scene without nodes (valid): rig and bake write no empty node list, so the output stays valid', async () => {
    const { validateGlb } = await import('./validate');
    const f = variant('scene-no-nodes', chain, (json) => { delete json.scenes[0].nodes; });
    for (const c of ['rig', 'bake']) {
      const out = path.join(dir, `scene-no-nodes-${c}.glb`);
      const r = await runCli(ARGS[c]!(f, out));
      expect(r.code, `${c}: ${r.err.join(' | ')}`).toBe(0);
      expect((await validateGlb(new Uint8Array(readFileSync(out)))).codes, c).toEqual({});
    }
  });

  it('/dev/zero as input: refused at once as not a GLB, memory not filled', async () => {
    if (!existsSync('/dev/zero')) return;
    const t0 = Date.now();
    for (const c of ['rig', 'measure', 'bake']) {
      const r = await runCli(ARGS[c]!('/dev/zero', path.join(dir, 'zero-out.glb')));
      expect(r.code, c).toBe(2);
      expect(r.err, c).toEqual([`bitrig ${c}: not a GLB file (starts with "????", expected "glTF")`]);
    }
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a file over the size limit is refused while reading (the limit is stated)', async () => {
    const { readFileCapped } = await import('../../rig/node');
    const f = path.join(dir, 'big.glb');
    writeFileSync(f, chain);
    await expect(readFileCapped(f, 'bitrig/rig', 1000)).rejects.toThrow(`bitrig/rig: ${f} is larger than 1000 bytes, the most bitrig reads (is it a GLB?)`);
  });
});

describe('the API says the same as the commands', () => {
  it('rigGlb(bytes, null) is a clear bitrig/rig error, not a TypeError', async () => {
    await expect(rigGlb(chain, null as never)).rejects.toThrow(/^bitrig\/rig: options must be an object of rig options \(e\.g\. \{ mode: 'chain' \}\) or left out, got null$/);
  });

  it('measureTail(doc, clip, { samples: 1e7 }) is refused with the limit named, not a RangeError', async () => {
    const doc = await readGlbBytes(chain);
    expect(() => measureTail(doc, 'walk', { samples: 1e7 })).toThrow(/^bitrig\/measure: samples must be an integer in 1…10000, got 10000000$/);
  });

  it('sizes are capped with the limit named: frames of a simulated cycle, keys of a bake', async () => {
    const { bakeTails, captureBakeCalibration, simulateTailCycle } = await import('../../rig/bake');
    const doc = await readGlbBytes(chain);
    expect(() => simulateTailCycle(captureBakeCalibration(doc), 'walk', 1e9)).toThrow(/^bitrig\/bake: frames must be an integer in 1…199999, got 1000000000$/);
    const long = await readGlbBytes(await import('node:fs').then((fs) => fs.readFileSync(variant('long-clip', chain, (json, bin) => {
      const ai = json.animations[0].samplers[0].input as number;
      poke(json, bin, ai, json.accessors[ai].count - 1, 0, 3000);
      json.accessors[ai].max = [3000];
    }))));
    expect(() => bakeTails(long, { clips: ['walk'], fps: 100 })).toThrow(/^bitrig\/bake: clip "walk" lasts 3000 s: at 100 fps it needs 300001 keys, more than the 200000 a bake writes per clip; lower the fps$/);
  });

  it('measureTail and bakeTails validate a Document built in code too (NaN in a key)', async () => {
    const { bakeTails } = await import('../../rig/bake');
    const doc = await readGlbBytes(chain);
    const out = doc.getRoot().listAnimations()[0]!.listSamplers()[0]!.getOutput()!;
    const arr = out.getArray()!.slice();
    arr[2] = NaN;
    out.setArray(arr);
    expect(() => measureTail(doc, 'walk', { samples: 3 })).toThrow(/^bitrig\/measure: accessor \d+ "\w+" \(key values of clip "walk"\) has NaN at element 0/);
    expect(() => bakeTails(doc, { clips: ['walk'] })).toThrow(/^bitrig\/bake: accessor \d+ "\w+" \(key values of clip "walk"\) has NaN at element 0/);
  });
});
