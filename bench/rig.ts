/**
 * `rig.pass`: milliseconds for the whole rig pass (rigAppendages: weld, distance field,
 * pieces, raised-threshold search, chain growth, re-weighting) on threejs-xbot.glb with a
 * generated tail tube skinned to the left shin (≈ 29k vertices). Median of repeats, each on a
 * fresh Document read from the same bytes (reading and writing are timed apart, in `extra`).
 * Target: < 1000 ms. Falls back to the built-in character when ../shared/assets is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBuiltinCharacter } from '../core/character/index';
import { characterToGlb } from '../rig/characterDocument';
import { readGlbBytes, writeGlbBytes } from '../rig/glb';
import { rigAppendages } from '../rig/pass';
import { addTailTube } from '../test/fixtures/detail';
import { median, type BenchResult } from './common';

/** The repo root: the nearest folder above this file (or the cwd) holding bitrig's package.json. */
function repoRoot(): string {
  const starts = [path.dirname(fileURLToPath(import.meta.url)), process.cwd()];
  for (const s of starts) {
    let d = s;
    for (let i = 0; i < 6; i++) {
      const pj = path.join(d, 'package.json');
      if (existsSync(pj) && /"name":\s*"bitrig"/.test(readFileSync(pj, 'utf8'))) return d;
      d = path.dirname(d);
    }
  }
  return process.cwd();
}

/**
 * Time the rig pass on xbot + tail (median of `repeats`).
 *
 * @example
 * const r = await benchRigPass(); // { id: 'rig.pass', ms: 180, extra: { … } }
 */
export async function benchRigPass(repeats = 7): Promise<BenchResult & { id: 'rig.pass'; ms: number }> {
  const xbot = path.resolve(repoRoot(), '../shared/assets/threejs-xbot.glb');
  let bytes: Uint8Array;
  let input: string;
  if (existsSync(xbot)) {
    const doc = await readGlbBytes(new Uint8Array(readFileSync(xbot)));
    addTailTube(doc, {});
    bytes = await writeGlbBytes(doc);
    input = 'threejs-xbot.glb + tail tube';
  } else {
    bytes = await characterToGlb(createBuiltinCharacter({ variant: 'shin' }));
    input = 'built-in character (../shared/assets absent)';
  }
  const pass: number[] = [];
  const read: number[] = [];
  const write: number[] = [];
  let vertices = 0;
  let chains = 0;
  let segments = 0;
  // One untimed warm-up, then the repeats.
  for (let r = -1; r < repeats; r++) {
    const t0 = performance.now();
    const doc = await readGlbBytes(bytes);
    const t1 = performance.now();
    const report = rigAppendages(doc);
    const t2 = performance.now();
    await writeGlbBytes(doc);
    const t3 = performance.now();
    if (r < 0) {
      chains = report.chains;
      segments = report.appendages.find((a) => a.verdict === 'chain')?.segments ?? 0;
      for (const m of doc.getRoot().listMeshes()) for (const p of m.listPrimitives()) vertices += p.getAttribute('POSITION')?.getCount() ?? 0;
      continue;
    }
    read.push(t1 - t0);
    pass.push(t2 - t1);
    write.push(t3 - t2);
  }
  return {
    id: 'rig.pass',
    ms: median(pass),
    extra: { input, vertices, chains, K: segments, readMs: median(read), writeMs: median(write), targetMs: 1000 },
  };
}
