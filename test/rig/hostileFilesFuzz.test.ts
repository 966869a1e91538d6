/**
 * The seeded fuzz corpus at a fixed seed: one malformed GLB per kind of break (framing,
 * lengths, counts, offsets, types, strings for numbers, references, NaN/Inf, huge key times,
 * cycles, deep JSON, a JSON chunk that is not an object, a second buffer, byte flips), each
 * through `bitrig rig`, `measure` and `bake` in-process. Every run exits 0 with an output the
 * Khronos validator passes (no error its input did not have) or 2 with one line; no stack, no
 * input changed, no partial output. `npm run fuzz -- --seeds N` runs many more seeds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { malformedGlbs, MUTATION_NAMES } from './fuzz/malformedGlb';
import { fuzzBases, runFuzzCase } from './fuzz/runCase';

const SEED = 1;
let dir = '';
let bases: Uint8Array[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-fuzz-'));
  bases = await fuzzBases();
});
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe(`malformed GLBs, seed ${SEED}`, () => {
  it('the generator is deterministic and covers every kind of break', () => {
    const a = malformedGlbs(SEED, bases, MUTATION_NAMES.length);
    const b = malformedGlbs(SEED, bases, MUTATION_NAMES.length);
    expect(a.map((c) => c.name)).toEqual(b.map((c) => c.name));
    expect(a.every((c, i) => Buffer.from(c.bytes).equals(Buffer.from(b[i]!.bytes)))).toBe(true);
    const kinds = new Set(a.map((c) => c.name.replace(/^seed \d+ #\d+ base \d /, '').split(/[:=]| to | \d/)[0]));
    expect(kinds.size).toBeGreaterThanOrEqual(MUTATION_NAMES.length - 2); // (a few kinds share a leading word)
  });

  it('every command exits 0 with a valid output or 2 with one plain line; no stack, input unchanged, nothing partial', async () => {
    const problems: string[] = [];
    const codes = { 0: 0, 2: 0, other: 0 };
    for (const c of malformedGlbs(SEED, bases, MUTATION_NAMES.length)) {
      for (const o of await runFuzzCase(dir, c)) {
        for (const p of o.problems) problems.push(`${c.name} [${o.command}]: ${p}`);
        if (o.code === 0) codes[0]++;
        else if (o.code === 2) codes[2]++;
        else codes.other++;
      }
    }
    expect(problems).toEqual([]);
    expect(codes.other).toBe(0);
    expect(codes[2]).toBeGreaterThan(codes[0]); // (most breaks are refused; some, e.g. a flipped byte in a colour, are harmless)
  });
});
