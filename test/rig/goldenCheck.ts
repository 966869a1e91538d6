/**
 * Golden check of the rig pass (test/rig/goldenCases.ts): prints the SHA-256 of the output
 * GLB bytes and of the report JSON of every case. Run before and after a refactor that must
 * not change outputs:
 *
 *   npx tsx test/rig/goldenCheck.ts > before.txt   # …refactor…
 *   npx tsx test/rig/goldenCheck.ts | diff before.txt -
 *
 * `--write` rewrites test/rig/golden.json (the repository's cases, which `npm test` checks in
 * test/rig/goldenOutputs.test.ts) after a deliberate change of outputs. Cases needing the
 * Mixamo characters are listed as skipped when ../shared/assets is absent.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hasMixamo } from '../fixtures/assets';
import { GOLDEN_CASES, goldenOf, type Golden } from './goldenCases';

const write = process.argv.includes('--write');
const stored: Record<string, Golden> = {};
for (const c of GOLDEN_CASES) {
  if (c.mixamo && !hasMixamo) {
    console.log(`${c.name}: skipped (Mixamo characters absent)`);
    continue;
  }
  const g = await goldenOf(c);
  if (!c.mixamo) stored[c.name] = g;
  console.log(`${c.name}: glb ${g.glb} report ${g.report} chains ${g.chains}`);
}
if (write) {
  const file = fileURLToPath(new URL('./golden.json', import.meta.url));
  writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`);
  console.log(`wrote ${file}`);
}
