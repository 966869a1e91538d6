import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { malformedGlbs, MUTATION_NAMES } from '/work/wt28/test/rig/fuzz/malformedGlb';
import { fuzzBases, runFuzzCase } from '/work/wt28/test/rig/fuzz/runCase';
import { validateGlb } from '/work/wt28/test/rig/validate';
const bases = await fuzzBases();
const dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-fz-'));
for (let seed = 100; seed < 140; seed++) for (const c of malformedGlbs(seed, bases, MUTATION_NAMES.length)) {
  const o = await runFuzzCase(dir, c);
  if (o.some((x) => x.clean === false)) console.log(c.name, JSON.stringify((await validateGlb(c.bytes)).codes), o.map((x) => `${x.command}:${x.code}:${x.clean}`).join(' '));
}
