/**
 * The rig pass gives the same outputs, bit for bit, as stored in test/rig/golden.json: the
 * SHA-256 of the output GLB and of the report JSON on every golden case the repository holds
 * (test/rig/goldenCases.ts: the tiny model, twin tails, the repository's models plain and
 * de-tailed). A deliberate change of outputs rewrites the file with
 * `npx tsx test/rig/goldenCheck.ts --write`, and the commit says which cases changed and why.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GOLDEN_CASES, goldenOf, type Golden } from './goldenCases';

const stored = JSON.parse(readFileSync(new URL('./golden.json', import.meta.url), 'utf8')) as Record<string, Golden>;
const cases = GOLDEN_CASES.filter((c) => !c.mixamo);

describe('rig pass outputs against the stored goldens', () => {
  it('golden.json holds exactly the repository\'s cases', () => {
    expect(Object.keys(stored)).toEqual(cases.map((c) => c.name));
  });
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    expect(await goldenOf(c)).toEqual(stored[name]);
  });
});
