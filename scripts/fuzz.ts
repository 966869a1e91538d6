/**
 * `npm run fuzz -- --seeds N [--from S] [--cases C]`: malformed GLBs from seeds S…S+N−1
 * (C cases each, default one per mutation) through `bitrig rig`, `measure` and `bake`
 * in-process; prints each broken promise and the outcome counts (exit 0 clean, exit 0 with
 * only the input's own validator errors, exit 2, other). Exit code 1 when any case broke one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { malformedGlbs, MUTATION_NAMES } from '../test/rig/fuzz/malformedGlb';
import { fuzzBases, runFuzzCase } from '../test/rig/fuzz/runCase';

function flag(name: string, dflt: number): number {
  const i = process.argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return dflt;
  const v = Number(process.argv[i]!.includes('=') ? process.argv[i]!.split('=')[1] : process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0) throw new Error(`${name} must be a whole number`);
  return v;
}

async function run(): Promise<number> {
  const seeds = flag('--seeds', 20);
  const from = flag('--from', 1);
  const cases = flag('--cases', MUTATION_NAMES.length);
  const bases = await fuzzBases();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-fuzz-'));
  const counts = { clean: 0, inputErrorsOnly: 0, refused: 0, other: 0 };
  let broken = 0;
  const kept = new Map<string, number>();
  const t0 = Date.now();
  try {
    for (let s = from; s < from + seeds; s++) {
      for (const c of malformedGlbs(s, bases, cases)) {
        const t = Date.now();
        for (const o of await runFuzzCase(dir, c)) {
          if (o.problems.length) { broken++; console.log(`BROKEN ${c.name} [${o.command}]: ${o.problems.join('; ')}`); }
          if (o.code === 2) counts.refused++;
          else if (o.code === 0 && o.clean === false) {
            counts.inputErrorsOnly++;
            for (const k of o.outputCodes ?? []) kept.set(k, (kept.get(k) ?? 0) + 1);
          }
          else if (o.code === 0) counts.clean++;
          else counts.other++;
        }
        if (Date.now() - t > 20_000) console.log(`SLOW ${c.name}: ${Date.now() - t} ms`);
      }
      process.stderr.write(`seed ${s} done (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${seeds} seeds × ${cases} cases × 3 commands: exit 0 clean ${counts.clean}, exit 0 with only the input's own validator errors ${counts.inputErrorsOnly}, exit 2 ${counts.refused}, other ${counts.other}; broken promises ${broken}; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (kept.size) console.log(`validator errors kept from inputs (outputs of exit 0): ${[...kept].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  return broken ? 1 : 0;
}

void run().then((code) => { process.exitCode = code; });
