/**
 * `npm run bench`: every benchmark side by side with its comparison, medians of repeats,
 * printed as a table and written to bench/results.json. A benchmark, never a test: the
 * machine is shared and timings are noisy; read the ratios.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, type BenchResult } from './common';

const here = path.dirname(fileURLToPath(import.meta.url));

type Bench = () => Promise<BenchResult[] | BenchResult>;
const suites: Array<[string, string, string]> = [
  ['tail', './tail', 'benchTail'],
  ['ik', './ik', 'benchIk'],
  ['rig', './rig', 'benchRigPass'],
  ['bake', './bake', 'benchBake'],
  ['adapter', './adapter', 'benchAdapters'],
];

const only = process.argv.slice(2);
const results: BenchResult[] = [];
console.log(`bitrig bench — ${machine()}`);
for (const [name, mod, fn] of suites) {
  if (only.length && !only.includes(name)) continue;
  let m: Record<string, unknown>;
  try {
    m = (await import(mod)) as Record<string, unknown>;
  } catch (e) {
    console.log(`- ${name}: not available (${String((e as Error).message).split('\n')[0]})`);
    continue;
  }
  const f = m[fn] as Bench | undefined;
  if (!f) continue;
  const t0 = performance.now();
  const r = await f();
  const list = Array.isArray(r) ? r : [r];
  results.push(...list);
  console.log(`- ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const fmt = (v: number | undefined, unit: string): string => (v === undefined ? '' : `${v < 10 ? v.toFixed(2) : v.toFixed(0)} ${unit}`);
console.log('\n| id | ours | comparison | ratio | extra |');
console.log('|---|---|---|---|---|');
for (const r of results) {
  const ours = r.nsPerItem !== undefined ? fmt(r.nsPerItem, 'ns/item') : fmt(r.ms, 'ms');
  const cmp = r.compare ? `${r.compare.id}: ${r.compare.nsPerItem !== undefined ? fmt(r.compare.nsPerItem, 'ns/item') : fmt(r.compare.ms, 'ms')}` : '';
  const extra = r.extra ? Object.entries(r.extra).map(([k, v]) => `${k}=${typeof v === 'number' ? +v.toFixed(3) : v}`).join(', ') : '';
  console.log(`| ${r.id} | ${ours} | ${cmp} | ${r.ratio ? r.ratio.toFixed(1) + '×' : ''} | ${extra} |`);
}
writeFileSync(path.join(here, 'results.json'), JSON.stringify({ machine: machine(), date: new Date().toISOString(), results }, null, 2) + '\n');
console.log(`\nwritten ${path.join('bench', 'results.json')}`);
